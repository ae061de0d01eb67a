/*
 * sdf_names.c - the name index of an SDF graph: actors and channels by
 * name, ports by actor and name.
 *
 * The reader looks up every actor, port and channel it meets by name (to
 * refuse duplicates and to resolve channel ends and properties), and
 * finalize names a DDR channel per unconnected port; a linear scan per
 * lookup made a megabyte of SDF3 quadratic. One open-addressing table
 * holds all three kinds: a slot is (kind, id), compared through the
 * element's own name, so no key is copied.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/sdf.h"
#include "core/model/sdf_int.h"

struct acs__sdf_names {
  size_t mask;       /* capacity - 1, a power of two */
  int32_t *kind;     /* -1 empty */
  int32_t *id;
};

static uint64_t hash_of(int kind, int32_t owner, const char *name)
{
  uint64_t h = 1469598103934665603ull ^ (uint64_t)(kind * 131 + 7) ^
               ((uint64_t)(uint32_t)owner << 17);

  for (const unsigned char *s = (const unsigned char *)name; *s; s++)
    h = (h ^ *s) * 1099511628211ull;
  return h ^ (h >> 29);
}

static const char *name_of(const struct acs_sdf_graph *g, int kind, int32_t id,
                           int32_t *owner)
{
  *owner = kind == ACS__SDF_PORT ? g->ports[id].actor : -1;
  return kind == ACS__SDF_ACTOR ? g->actors[id].name
       : kind == ACS__SDF_PORT ? g->ports[id].name : g->channels[id].name;
}

static void insert(const struct acs_sdf_graph *g, struct acs__sdf_names *ix, int kind, int32_t id)
{
  int32_t owner;
  const char *name = name_of(g, kind, id, &owner);
  size_t i = (size_t)hash_of(kind, owner, name) & ix->mask;

  while (ix->kind[i] >= 0)
    i = (i + 1) & ix->mask;
  ix->kind[i] = kind;
  ix->id[i] = id;
}

/* A table of at least twice `need` slots, rebuilt from the graph's arrays
 * (the element being added included): the load factor stays at most 1/2. */
static int rebuild(struct acs_sdf_graph *g, size_t need)
{
  struct acs__sdf_names *ix = g->names, fresh;
  size_t cap = 64;

  while (cap < need * 2)
    cap *= 2;
  fresh.mask = cap - 1;
  fresh.kind = malloc(cap * sizeof(*fresh.kind));
  fresh.id = malloc(cap * sizeof(*fresh.id));
  if (!fresh.kind || !fresh.id || (!ix && !(ix = g->names = calloc(1, sizeof(*ix))))) {
    free(fresh.kind);
    free(fresh.id);
    return ACS_ENOMEM;
  }
  memset(fresh.kind, 0xff, cap * sizeof(*fresh.kind));
  free(ix->kind);
  free(ix->id);
  *ix = fresh;
  for (int32_t i = 0; i < g->nactors; i++)
    insert(g, ix, ACS__SDF_ACTOR, i);
  for (int32_t i = 0; i < g->nports; i++)
    insert(g, ix, ACS__SDF_PORT, i);
  for (int32_t i = 0; i < g->nchannels; i++)
    insert(g, ix, ACS__SDF_CHANNEL, i);
  return ACS_OK;
}

int acs__sdf_names_add(struct acs_sdf_graph *g, int kind, int32_t id)
{
  /* The new element is already counted in the graph's arrays. */
  size_t total = (size_t)g->nactors + (size_t)g->nports + (size_t)g->nchannels;

  if (!g->names || total * 2 > g->names->mask + 1)
    return rebuild(g, total);
  insert(g, g->names, kind, id);
  return ACS_OK;
}

void acs__sdf_names_free(struct acs_sdf_graph *g)
{
  if (!g->names)
    return;
  free(g->names->kind);
  free(g->names->id);
  free(g->names);
  g->names = NULL;
}

static int32_t find(const struct acs_sdf_graph *g, int kind, int32_t owner, const char *name)
{
  const struct acs__sdf_names *ix = g->names;
  size_t i;

  if (!ix)
    return -1;
  for (i = (size_t)hash_of(kind, owner, name) & ix->mask; ix->kind[i] >= 0;
       i = (i + 1) & ix->mask) {
    int32_t o;
    if (ix->kind[i] == kind && strcmp(name_of(g, kind, ix->id[i], &o), name) == 0 &&
        o == owner)
      return ix->id[i];
  }
  return -1;
}

int32_t acs_sdf_find_actor(const struct acs_sdf_graph *g, const char *name)
{
  return find(g, ACS__SDF_ACTOR, -1, name);
}

int32_t acs_sdf_find_port(const struct acs_sdf_graph *g, int32_t actor, const char *name)
{
  return find(g, ACS__SDF_PORT, actor, name);
}

int32_t acs_sdf_find_channel(const struct acs_sdf_graph *g, const char *name)
{
  return find(g, ACS__SDF_CHANNEL, -1, name);
}
