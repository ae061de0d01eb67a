/*
 * pcache.c - plans of groups kept from one run to the next (cache.h): a
 * group's plans do not depend on the CMX budget, only which of them a run
 * may use.
 *
 * Why the answer is the same. acs_cas_plans with a memory limit L drops a
 * plan over L once it is sized and treats the others as without a limit:
 * the cut of a plan by one walked before it (known_cap in walk.c) only
 * reads plans of no more memory, within L whenever the cut plan is, so by
 * induction over the grid the same plans within L survive; and the Pareto
 * front of those, sorted by (home, memory, cycles, ...), is each home's
 * unlimited front up to L. So a run with limit L gets the unlimited plans
 * of mem <= L in the same order, and its proposals, schedule and counts
 * (groups_costed, plans_costed) are those it would get alone.
 *
 * Keys. A set holds the plans of one network (its content digest) on
 * platforms equal in every parameter but the CMX size and those read only
 * by the barrier pass, with the same options (the budget aside); in it an
 * open-addressing table maps (first Part, Parts, context) to a range of
 * the set's pool. At most PSET_MAX sets, the least recently used replaced,
 * and PCACHE_BYTES in all; once a group's plans do not fit, the set
 * answers only for the groups it holds and the others are planned with
 * the run's limit, as without a cache.
 *
 * Costs: a lookup is O(1) expected; a group's first lookup costs its plans
 * without the limit (more walks than with it at a small budget: the first
 * run of a network in a process pays for the others).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/cache.h"
#include "core/sched/cascade/cascade.h"

#define PSET_MAX 8
#define PCACHE_BYTES ((size_t)128 << 20)

struct pkey {
  char digest[ACS_DIGEST_HEX + 1];
  double v[ACS_PARAM_COUNT];           /* the CMX size and the pass's: 0 */
  char units[ACS_PLATFORM_UNITS_MAX];
  struct acs_cas_opts o;               /* budget_kib 0 */
};

struct pent {
  int32_t first, nparts;
  uint32_t ctx;
  int32_t n;                           /* plans; -1: slot empty */
  size_t off;                          /* in the pool */
};

struct pcache;

struct acs_cas_pset {
  struct pcache *pc;
  int used;
  int full;                            /* plans stopped fitting: make no more */
  uint64_t tick;
  struct pkey key;
  struct pent *tab;
  size_t cap, count;                   /* cap: 0 or a power of two */
  struct acs_cas_plan *pool;
  size_t npool, cap_pool;
  size_t bytes;
};

struct pcache {
  struct acs_cas_pset set[PSET_MAX];
  uint64_t tick;
  size_t bytes, limit;                 /* limit: PCACHE_BYTES, or a test's */
};

static const char pcache_owner; /* the slot's key in the scheduler cache */

static void pset_clear(struct pcache *pc, struct acs_cas_pset *ps)
{
  free(ps->tab);
  free(ps->pool);
  pc->bytes -= ps->bytes;
  memset(ps, 0, sizeof(*ps));
}

/* Frees the least recently used sets but ps until `need` more bytes fit;
 * 0 when they cannot. */
static int make_room(struct pcache *pc, const struct acs_cas_pset *ps, size_t need)
{
  while (pc->bytes + need > pc->limit) {
    struct acs_cas_pset *lru = NULL;
    for (int i = 0; i < PSET_MAX; i++) {
      struct acs_cas_pset *x = &pc->set[i];
      if (x != ps && x->used && x->bytes > 0 && (!lru || x->tick < lru->tick))
        lru = x;
    }
    if (!lru)
      return 0;
    pset_clear(pc, lru);
  }
  return 1;
}

static void pcache_destroy(void *obj)
{
  struct pcache *pc = obj;

  for (int i = 0; i < PSET_MAX; i++)
    pset_clear(pc, &pc->set[i]);
  free(pc);
}

static void key_make(struct pkey *k, const char *digest, const struct acs_platform *plat,
                     const struct acs_cas_opts *o)
{
  memset(k, 0, sizeof(*k));
  memcpy(k->digest, digest, strnlen(digest, ACS_DIGEST_HEX));
  for (int i = 0; i < ACS_PARAM_COUNT; i++)
    k->v[i] = i == ACS_P_CMX_KIB || acs_param_after_scheduling(i) ? 0 : plat->v[i];
  memcpy(k->units, plat->units, sizeof(k->units));
  k->o = *o;
  k->o.budget_kib = 0;
}

/* The cache's plan sets, made on first use; NULL without a cache. */
static struct pcache *pcache_of(struct acs_sched_cache *cache)
{
  void **slot = acs_sched_cache_slot(cache, &pcache_owner, pcache_destroy);

  if (!slot)
    return NULL;
  if (!*slot && (*slot = calloc(1, sizeof(struct pcache))))
    ((struct pcache *)*slot)->limit = PCACHE_BYTES;
  return *slot;
}

size_t acs_cas_pcache_limit(struct acs_sched_cache *cache, size_t bytes)
{
  struct pcache *pc = pcache_of(cache);

  if (!pc)
    return 0;
  pc->limit = bytes ? bytes : PCACHE_BYTES;
  make_room(pc, NULL, 0);
  return pc->limit;
}

size_t acs_cas_pcache_bytes(struct acs_sched_cache *cache)
{
  struct pcache *pc = pcache_of(cache);

  return pc ? pc->bytes : 0;
}

struct acs_cas_pset *acs_cas_pset_get(struct acs_sched_cache *cache, const char *digest,
                                      const struct acs_platform *plat,
                                      const struct acs_cas_opts *o)
{
  struct pcache *pc;
  struct acs_cas_pset *ps = NULL;
  struct pkey k;

  if (!digest || !digest[0] || !(pc = pcache_of(cache)))
    return NULL;
  key_make(&k, digest, plat, o);
  for (int i = 0; i < PSET_MAX; i++) {
    struct acs_cas_pset *x = &pc->set[i];
    if (x->used && memcmp(&x->key, &k, sizeof(k)) == 0) {
      ps = x;
      break;
    }
    if (!ps || (ps->used && (!x->used || x->tick < ps->tick)))
      ps = x; /* an empty set, else the least recently used */
  }
  if (ps->used && memcmp(&ps->key, &k, sizeof(k)) != 0)
    pset_clear(pc, ps);
  if (!ps->used) {
    ps->pc = pc;
    ps->used = 1;
    ps->key = k;
  }
  ps->tick = ++pc->tick;
  return ps;
}

static size_t pent_hash(int32_t first, int32_t nparts, uint32_t ctx)
{
  uint64_t h = (uint64_t)(uint32_t)first * 0x9e3779b97f4a7c15ull;

  h ^= ((uint64_t)(uint32_t)nparts << 32 | ctx) * 0xc2b2ae3d27d4eb4full;
  return (size_t)(h ^ h >> 29);
}

static struct pent *pent_find(struct acs_cas_pset *ps, int32_t first, int32_t nparts,
                              uint32_t ctx)
{
  size_t mask = ps->cap - 1;

  for (size_t i = pent_hash(first, nparts, ctx) & mask;; i = (i + 1) & mask) {
    struct pent *e = &ps->tab[i];
    if (e->n < 0 || (e->first == first && e->nparts == nparts && e->ctx == ctx))
      return e;
  }
}

/* Doubles the table when it would be more than half full; rehashes.
 * ACS_ELIMIT when the cache has no room for it. */
static int tab_grow(struct acs_cas_pset *ps)
{
  struct acs_cas_pset old = *ps;
  size_t cap = ps->cap ? 2 * ps->cap : 64, more = (cap - ps->cap) * sizeof(*ps->tab);

  if (ps->cap && 2 * (ps->count + 1) <= ps->cap)
    return ACS_OK;
  if (!make_room(ps->pc, ps, more))
    return ACS_ELIMIT;
  if (!(ps->tab = malloc(cap * sizeof(*ps->tab)))) {
    ps->tab = old.tab;
    return ACS_ENOMEM;
  }
  ps->cap = cap;
  for (size_t i = 0; i < cap; i++)
    ps->tab[i].n = -1;
  for (size_t i = 0; i < old.cap; i++)
    if (old.tab[i].n >= 0)
      *pent_find(ps, old.tab[i].first, old.tab[i].nparts, old.tab[i].ctx) = old.tab[i];
  free(old.tab);
  ps->bytes += more;
  ps->pc->bytes += more;
  return ACS_OK;
}

/* Appends plans v[0..n) to the pool; ACS_ELIMIT when they do not fit. */
static int pool_add(struct acs_cas_pset *ps, const struct acs_cas_plan *v, int32_t n)
{
  size_t cap = ps->cap_pool, more;
  struct acs_cas_plan *pool;

  if (ps->npool + (size_t)n > cap) {
    while (cap < ps->npool + (size_t)n)
      cap = cap ? 2 * cap : 1024;
    more = (cap - ps->cap_pool) * sizeof(*v);
    if (!make_room(ps->pc, ps, more))
      return ACS_ELIMIT;
    if (!(pool = realloc(ps->pool, cap * sizeof(*v))))
      return ACS_ENOMEM;
    ps->pool = pool;
    ps->cap_pool = cap;
    ps->bytes += more;
    ps->pc->bytes += more;
  }
  if (n > 0)
    memcpy(ps->pool + ps->npool, v, (size_t)n * sizeof(*v));
  ps->npool += (size_t)n;
  return ACS_OK;
}

int acs_cas_pset_plans(struct acs_cas_pset *ps, const struct acs_cas_env *env,
                       const struct acs_cas_opts *o, const struct acs_cas_group *g,
                       uint32_t ctx, const volatile sig_atomic_t *interrupted,
                       const struct acs_cas_plan **v, int32_t *n)
{
  struct acs_cas_env all = *env;
  struct acs_cas_plan *pv;
  struct pent *e = NULL;
  int32_t pn;
  size_t off = ps->npool;
  int err = ps->full ? ACS_ELIMIT : tab_grow(ps);

  if (err < 0 && err != ACS_ELIMIT)
    return err;
  ps->full = err == ACS_ELIMIT;
  /* A full set still answers for the groups it holds; the others are
   * planned with the run's limit, as without a cache, and never twice. */
  if (ps->cap > 0 && (e = pent_find(ps, g->first, g->nparts, ctx))->n >= 0) {
    *v = ps->pool + e->off;
    *n = e->n;
    return ACS_OK;
  }
  if (ps->full)
    return ACS_ELIMIT;
  all.mem_limit = 0;
  if ((err = acs_cas_plans(&all, o, g, ctx, 1, interrupted, &pv, &pn)) < 0)
    return err;
  err = pool_add(ps, pv, pn);
  free(pv);
  if (err < 0) {
    ps->full = err == ACS_ELIMIT;
    return err;
  }
  *e = (struct pent){g->first, g->nparts, ctx, pn, off};
  ps->count++;
  *v = ps->pool + off;
  *n = pn;
  return ACS_OK;
}
