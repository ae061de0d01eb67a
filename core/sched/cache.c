/*
 * cache.c - one slot per scheduler for what it keeps between runs
 * (cache.h).
 */
#include "config.h"

#include <stdlib.h>

#include "core/sched/cache.h"

struct acs_sched_cache {
  struct {
    const void *owner;
    void *obj;
    void (*destroy)(void *);
  } slot[ACS_SCHED_CACHE_SLOTS];
};

struct acs_sched_cache *acs_sched_cache_new(void)
{
  return calloc(1, sizeof(struct acs_sched_cache));
}

void acs_sched_cache_free(struct acs_sched_cache *c)
{
  if (!c)
    return;
  for (int i = 0; i < ACS_SCHED_CACHE_SLOTS; i++)
    if (c->slot[i].obj && c->slot[i].destroy)
      c->slot[i].destroy(c->slot[i].obj);
  free(c);
}

void **acs_sched_cache_slot(struct acs_sched_cache *c, const void *owner,
                            void (*destroy)(void *))
{
  if (!c || !owner)
    return NULL;
  for (int i = 0; i < ACS_SCHED_CACHE_SLOTS; i++) {
    if (c->slot[i].owner == owner)
      return &c->slot[i].obj;
    if (!c->slot[i].owner) {
      c->slot[i].owner = owner;
      c->slot[i].destroy = destroy;
      return &c->slot[i].obj;
    }
  }
  return NULL;
}
