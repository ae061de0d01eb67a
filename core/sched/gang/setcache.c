/*
 * setcache.c - what the partition search learnt about member sets: a
 * sorted list of actors to a cost and an outcome, by open addressing over
 * a hash of the list. The same sets recur from one move target to the
 * next and after every cycle of targets, and mapping or scheduling them
 * again would give the same answer (both are deterministic).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gang.h"

static uint64_t set_hash(int32_t n, const int32_t *act)
{
  uint64_t h = 1469598103934665603ull;

  for (int32_t i = 0; i < n; i++) {
    h ^= (uint64_t)(uint32_t)act[i];
    h *= 1099511628211ull;
  }
  return h ^ (uint64_t)n;
}

void acs_gang_setcache_free(struct acs_gang_setcache *oc)
{
  for (size_t i = 0; i < oc->cap; i++)
    free(oc->set[i]);
  free(oc->key);
  free(oc->set);
  free(oc->cost);
  free(oc->rc);
  memset(oc, 0, sizeof(*oc));
}

/* Slot of the set (found, or the empty slot where it goes). */
static size_t slot_of(const struct acs_gang_setcache *oc, uint64_t h, int32_t n, const int32_t *act)
{
  size_t i = (size_t)h & (oc->cap - 1);

  while (oc->set[i] && !(oc->key[i] == h && oc->set[i][0] == n &&
                         memcmp(oc->set[i] + 1, act, (size_t)n * sizeof(*act)) == 0))
    i = (i + 1) & (oc->cap - 1);
  return i;
}

static int grow(struct acs_gang_setcache *oc)
{
  struct acs_gang_setcache nw;
  size_t cap = oc->cap ? oc->cap * 2 : 256;

  memset(&nw, 0, sizeof(nw));
  nw.cap = cap;
  nw.key = calloc(cap, sizeof(*nw.key));
  nw.set = calloc(cap, sizeof(*nw.set));
  nw.cost = calloc(cap, sizeof(*nw.cost));
  nw.rc = calloc(cap, sizeof(*nw.rc));
  if (!nw.key || !nw.set || !nw.cost || !nw.rc) {
    acs_gang_setcache_free(&nw);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < oc->cap; i++)
    if (oc->set[i]) {
      size_t j = slot_of(&nw, oc->key[i], oc->set[i][0], oc->set[i] + 1);
      nw.key[j] = oc->key[i];
      nw.set[j] = oc->set[i];
      nw.cost[j] = oc->cost[i];
      nw.rc[j] = oc->rc[i];
      oc->set[i] = NULL;
      nw.n++;
    }
  acs_gang_setcache_free(oc);
  *oc = nw;
  return ACS_OK;
}

/* The cached cost and rc of a set, or -1 when absent. O(n) expected. */
int acs_gang_setcache_get(const struct acs_gang_setcache *oc, int32_t n, const int32_t *act,
                          int64_t *cost)
{
  size_t slot;

  if (!oc->cap || !oc->set[slot = slot_of(oc, set_hash(n, act), n, act)])
    return -1;
  *cost = oc->cost[slot];
  return oc->rc[slot];
}

/* Records a set (absent so far, or overwritten with the same values). */
int acs_gang_setcache_put(struct acs_gang_setcache *oc, int32_t n, const int32_t *act, int64_t cost,
                          int rc)
{
  uint64_t h = set_hash(n, act);
  size_t slot;

  if ((oc->n + 1) * 2 > oc->cap && grow(oc) < 0)
    return ACS_ENOMEM;
  slot = slot_of(oc, h, n, act);
  if (!oc->set[slot]) {
    if (!(oc->set[slot] = malloc(((size_t)n + 1) * sizeof(int32_t))))
      return ACS_ENOMEM;
    oc->set[slot][0] = n;
    memcpy(oc->set[slot] + 1, act, (size_t)n * sizeof(*act));
    oc->key[slot] = h;
    oc->n++;
  }
  oc->cost[slot] = cost;
  oc->rc[slot] = (int8_t)rc;
  return ACS_OK;
}
