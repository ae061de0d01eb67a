/*
 * proposals.c - combining plans into proposals (seed 002, step 3).
 *
 * Boundaries b = 0..N sit between the Parts in topological order; a
 * proposal for the prefix [0, b) is a sequence of groups covering it.
 * What the rest of the network can still do depends only on where the
 * tensors crossing b live (CMX or DDR: their producers' plans chose), so
 * the state at b is that set of homes, and each state keeps the Pareto
 * front of (peak memory, cycles) over the proposals that reach it: a
 * proposal worse in both can never become better, since later groups add
 * the same cycles and raise the peak the same way. A group [b, j) with
 * plan p leads from state K at b to the state at j with
 *   peak'   = max(peak, CMX-resident crossing bytes at b + p.mem)
 *   cycles' = cycles + p.cycles.
 * Fronts are culled when a boundary is reached and thinned to
 * max_proposals points (the cheapest within the budget, the smallest, and
 * evenly spaced others). Step 3 is O(N P K Q) for N Parts, groups of at
 * most P Parts, K proposals per state and Q plans per group.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/cascade.h"

/* More tensors than this crossing a boundary: the state would not fit a
 * 64-bit set of homes (no network acsim ships comes near: at most 3). */
#define MAX_CROSS 64

struct entry {
  int64_t mem, cycles;
  int32_t prev;              /* entry, -1 for the empty proposal */
  int32_t plan;              /* in the plan pool, -1 */
};

struct state {
  uint64_t key;              /* bit i: crossing tensor i of the boundary in CMX */
  int32_t *ent;
  size_t n, cap;
};

struct bnd {
  int32_t nx;
  int32_t *x;                /* crossing Tensors, by id */
  struct state *st;
  size_t nst, cap;
};

struct cache {               /* plans of a group in a context */
  int32_t first, nparts;
  uint32_t ctx;
  int32_t off, n;            /* in the plan pool */
  int valid;
};

struct dp {
  const struct acs_cas_env *env;
  const struct acs_cas_opts *o;
  const struct acs_cgraph *cg;
  int64_t budget;
  const volatile sig_atomic_t *interrupted;
  struct bnd *b;
  int32_t *lastc;            /* last consumer Part of each Tensor, -1 */
  struct entry *e;
  size_t ne, cap_e;
  struct acs_cas_plan *pool;
  size_t npool, cap_pool;
  struct cache *c;
  size_t nc, cap_c;
  int64_t groups, costed;
};

/* ---- boundaries ---- */

static int crossing(struct dp *dp)
{
  const struct acs_cgraph *cg = dp->cg;

  if (!(dp->lastc = malloc(((size_t)cg->ntensors + 1) * sizeof(*dp->lastc))) ||
      !(dp->b = calloc((size_t)cg->nparts + 1, sizeof(*dp->b))))
    return ACS_ENOMEM;
  for (int32_t t = 0; t < cg->ntensors; t++) {
    const struct acs_ctensor *ct = &cg->tensors[t];
    dp->lastc[t] = -1;
    for (int32_t c = 0; c < ct->ncons; c++)
      if (cg->cons[ct->cons_off + c].part > dp->lastc[t])
        dp->lastc[t] = cg->cons[ct->cons_off + c].part;
  }
  for (int32_t b = 0; b <= cg->nparts; b++) {
    struct bnd *B = &dp->b[b];
    for (int pass = 0; pass < 2; pass++) {
      B->nx = 0;
      for (int32_t t = 0; t < cg->ntensors; t++) {
        const struct acs_ctensor *ct = &cg->tensors[t];
        if (ct->weight || ct->producer < 0 || ct->producer >= b || dp->lastc[t] < b)
          continue;
        if (pass)
          B->x[B->nx] = t;
        B->nx++;
      }
      if (B->nx > MAX_CROSS)
        return ACS_ERANGE;
      if (!pass && !(B->x = malloc(((size_t)B->nx + 1) * sizeof(*B->x))))
        return ACS_ENOMEM;
    }
  }
  return ACS_OK;
}

static int32_t cross_index(const struct bnd *B, int32_t t)
{
  for (int32_t i = 0; i < B->nx; i++)
    if (B->x[i] == t)
      return i;
  return -1;
}

/* CMX bytes of the crossing tensors state K keeps in CMX. */
static int64_t live_bytes(const struct dp *dp, const struct bnd *B, uint64_t key)
{
  int64_t sum = 0;

  for (int32_t i = 0; i < B->nx; i++)
    if ((key >> i) & 1)
      sum += acs_cas_align(dp->cg->tensors[B->x[i]].bytes, dp->env->align);
  return sum;
}

static struct state *state_get(struct bnd *B, uint64_t key)
{
  for (size_t i = 0; i < B->nst; i++)
    if (B->st[i].key == key)
      return &B->st[i];
  if (acs_grow((void **)&B->st, sizeof(*B->st), &B->cap, B->nst + 1) < 0)
    return NULL;
  memset(&B->st[B->nst], 0, sizeof(B->st[0]));
  B->st[B->nst].key = key;
  return &B->st[B->nst++];
}

static int32_t entry_add(struct dp *dp, int64_t mem, int64_t cycles, int32_t prev, int32_t plan)
{
  if (dp->ne >= INT32_MAX ||
      acs_grow((void **)&dp->e, sizeof(*dp->e), &dp->cap_e, dp->ne + 1) < 0)
    return ACS_ENOMEM;
  dp->e[dp->ne] = (struct entry){mem, cycles, prev, plan};
  return (int32_t)dp->ne++;
}

/* ---- fronts ---- */

/* An entry's key for sorting a front (qsort has no context argument). */
struct ekey {
  int64_t mem, cycles;
  int32_t id;
};

static int cmp_ekey(const void *x, const void *y)
{
  const struct ekey *a = x, *b = y;

  if (a->mem != b->mem)
    return a->mem < b->mem ? -1 : 1;
  if (a->cycles != b->cycles)
    return a->cycles < b->cycles ? -1 : 1;
  return (a->id > b->id) - (a->id < b->id);
}

static int front_sort(struct dp *dp, struct state *S)
{
  struct ekey *k = malloc((S->n + 1) * sizeof(*k));

  if (!k)
    return ACS_ENOMEM;
  for (size_t i = 0; i < S->n; i++)
    k[i] = (struct ekey){dp->e[S->ent[i]].mem, dp->e[S->ent[i]].cycles, S->ent[i]};
  qsort(k, S->n, sizeof(*k), cmp_ekey);
  for (size_t i = 0; i < S->n; i++)
    S->ent[i] = k[i].id;
  free(k);
  return ACS_OK;
}

/* Pareto cull of a state's entries, then thinning to max_proposals. */
static int front_cull(struct dp *dp, struct state *S)
{
  size_t k = 0, keep = (size_t)dp->o->max_proposals, best = 0, n;

  if (front_sort(dp, S) < 0)
    return ACS_ENOMEM;
  for (size_t i = 0; i < S->n; i++)
    if (k == 0 || dp->e[S->ent[i]].cycles < dp->e[S->ent[k - 1]].cycles)
      S->ent[k++] = S->ent[i];
  S->n = n = k;
  if (n <= keep || keep < 2)
    return ACS_OK;
  for (size_t i = 0; i < n; i++)
    if (dp->e[S->ent[i]].mem <= dp->budget)
      best = i;
  /* Keep index 0, `best`, and keep - 2 others evenly spaced. */
  k = 0;
  for (size_t i = 0; i < n; i++) {
    size_t slot_lo = (keep - 1) * i / (n - 1), slot_prev = i ? (keep - 1) * (i - 1) / (n - 1) : 0;
    if (i == 0 || i == best || i == n - 1 || slot_lo != slot_prev)
      S->ent[k++] = S->ent[i];
  }
  S->n = k;
  return ACS_OK;
}

/* ---- plans, cached per group and context ---- */

/* g's plans in context ctx within the run's memory limit (malloc'd):
 * those kept across runs when there are (the same, pcache.c), else made. */
static int plans_make(struct dp *dp, const struct acs_cas_group *g, uint32_t ctx,
                      struct acs_cas_plan **v, int32_t *nv)
{
  const struct acs_cas_plan *all;
  int64_t limit = dp->env->mem_limit;
  int32_t n;
  int err = ACS_ELIMIT;

  if (dp->env->pset)
    err = acs_cas_pset_plans(dp->env->pset, dp->env, dp->o, g, ctx, dp->interrupted, &all, &n);
  if (err == ACS_ELIMIT)
    return acs_cas_plans(dp->env, dp->o, g, ctx, 1, dp->interrupted, v, nv);
  if (err < 0)
    return err;
  if (!(*v = malloc(((size_t)n + 1) * sizeof(**v))))
    return ACS_ENOMEM;
  *nv = 0;
  for (int32_t q = 0; q < n; q++)
    if (limit <= 0 || all[q].mem <= limit)
      (*v)[(*nv)++] = all[q];
  return ACS_OK;
}

static int plans_get(struct dp *dp, const struct acs_cas_group *g, uint32_t ctx, int32_t *off,
                     int32_t *n)
{
  struct acs_cas_plan *v;
  int32_t nv;
  int err;

  for (size_t i = dp->nc; i-- > 0;) {
    if (dp->c[i].first != g->first)
      break; /* the cache is filled boundary by boundary */
    if (dp->c[i].nparts == g->nparts && dp->c[i].ctx == ctx) {
      *off = dp->c[i].off;
      *n = dp->c[i].n;
      return ACS_OK;
    }
  }
  if ((err = plans_make(dp, g, ctx, &v, &nv)) < 0)
    return err;
  dp->groups++;
  dp->costed += nv;
  if (acs_grow((void **)&dp->pool, sizeof(*dp->pool), &dp->cap_pool,
               dp->npool + (size_t)nv + 1) < 0 ||
      acs_grow((void **)&dp->c, sizeof(*dp->c), &dp->cap_c, dp->nc + 1) < 0) {
    free(v);
    return ACS_ENOMEM;
  }
  if (nv > 0)
    memcpy(dp->pool + dp->npool, v, (size_t)nv * sizeof(*v));
  free(v);
  dp->c[dp->nc++] = (struct cache){g->first, g->nparts, ctx, (int32_t)dp->npool, nv, 1};
  *off = (int32_t)dp->npool;
  *n = nv;
  dp->npool += (size_t)nv;
  return ACS_OK;
}

/* ---- transitions ---- */

/* The context of group g in state key at its first boundary: which
 * entering activations are in CMX. */
static uint32_t context_of(const struct dp *dp, const struct acs_cas_group *g, uint64_t key)
{
  const struct bnd *B = &dp->b[g->first];
  uint32_t ctx = 0;

  for (int32_t i = 0; i < g->nin; i++) {
    int32_t x = g->in_net[i] ? -1 : cross_index(B, g->in[i]);
    if (x >= 0 && ((key >> x) & 1))
      ctx |= 1u << i;
  }
  return ctx;
}

/* The state at g's end boundary after plan p from state key. */
static uint64_t key_after(const struct dp *dp, const struct acs_cas_group *g, uint64_t key,
                          const struct acs_cas_plan *p)
{
  const struct bnd *A = &dp->b[g->first], *B = &dp->b[g->next];
  uint64_t out = 0;

  for (int32_t i = 0; i < B->nx; i++) {
    int32_t t = B->x[i], prod = dp->cg->tensors[t].producer, x;
    int home;
    if (prod >= g->first) {
      home = p->out_home == ACS_CAS_HOME_CMX;
    } else {
      x = cross_index(A, t);
      home = x >= 0 && ((key >> x) & 1);
    }
    out |= (uint64_t)home << i;
  }
  return out;
}

static int extend(struct dp *dp, int32_t b, struct state *S, const struct acs_cas_group *g)
{
  uint32_t ctx = context_of(dp, g, S->key);
  int64_t live = live_bytes(dp, &dp->b[b], S->key);
  int32_t off, n;
  int err;

  if ((err = plans_get(dp, g, ctx, &off, &n)) < 0)
    return err;
  for (int32_t q = 0; q < n; q++) {
    const struct acs_cas_plan *p = &dp->pool[off + q];
    struct state *T = state_get(&dp->b[g->next], key_after(dp, g, S->key, p));
    if (!T)
      return ACS_ENOMEM;
    for (size_t k = 0; k < S->n; k++) {
      const struct entry *e = &dp->e[S->ent[k]];
      int64_t mem = live + p->mem > e->mem ? live + p->mem : e->mem;
      int32_t id = entry_add(dp, mem, e->cycles + p->cycles, S->ent[k], off + q);
      if (id < 0)
        return id;
      if (acs_grow((void **)&T->ent, sizeof(*T->ent), &T->cap, T->n + 1) < 0)
        return ACS_ENOMEM;
      T->ent[T->n++] = id;
    }
  }
  return ACS_OK;
}

/*
 * Whether Parts [b, e) form one block: one tensor (or none) crosses each
 * end and at least two cross every boundary inside (the branches of an
 * Inception block, a residual block and its skip). A block may be a group
 * beyond max_parts, so a whole block can run as one cascade: at most one
 * extra group per boundary, found in O(e - b).
 */
static int is_block(const struct dp *dp, int32_t b, int32_t e)
{
  if (dp->b[b].nx > 1 || dp->b[e].nx > 1 || e - b < 2)
    return 0;
  for (int32_t i = b + 1; i < e; i++)
    if (dp->b[i].nx < 2)
      return 0;
  return 1;
}

static int dp_run(struct dp *dp)
{
  int32_t N = dp->cg->nparts;
  struct state *S0 = state_get(&dp->b[0], 0);
  int32_t e0;
  int err;

  if (!S0 || (e0 = entry_add(dp, 0, 0, -1, -1)) < 0 ||
      acs_grow((void **)&S0->ent, sizeof(*S0->ent), &S0->cap, 1) < 0)
    return ACS_ENOMEM;
  S0->ent[S0->n++] = e0;
  for (int32_t b = 0; b < N; b++) {
    if (dp->interrupted && *dp->interrupted)
      return ACS_EINTERRUPTED;
    for (size_t s = 0; s < dp->b[b].nst; s++) {
      if (front_cull(dp, &dp->b[b].st[s]) < 0)
        return ACS_ENOMEM;
      for (int32_t len = 1; len <= ACS_CAS_MAX_PARTS && b + len <= N; len++) {
        struct acs_cas_group g;
        if ((len > dp->o->max_parts && !is_block(dp, b, b + len)) ||
            !acs_cas_group_of(dp->cg, b, len, &g))
          continue;
        if ((err = extend(dp, b, &dp->b[b].st[s], &g)) < 0)
          return err;
      }
    }
  }
  for (size_t s = 0; s < dp->b[N].nst; s++)
    if (front_cull(dp, &dp->b[N].st[s]) < 0)
      return ACS_ENOMEM;
  return ACS_OK;
}

/* ---- the result ---- */

static int result_fill(struct dp *dp, struct acs_cas_result *r, const struct state *F)
{
  size_t total = 0;

  r->nfront = (int32_t)F->n;
  r->front = malloc((F->n + 1) * sizeof(*r->front));
  r->all_off = malloc((F->n + 2) * sizeof(*r->all_off));
  if (!r->front || !r->all_off)
    return ACS_ENOMEM;
  for (size_t k = 0; k < F->n; k++) {
    r->front[k] = (struct acs_cas_point){dp->e[F->ent[k]].mem, dp->e[F->ent[k]].cycles};
    r->all_off[k] = (int32_t)total;
    for (int32_t i = F->ent[k]; dp->e[i].plan >= 0; i = dp->e[i].prev)
      total++;
  }
  r->all_off[F->n] = (int32_t)total;
  if (!(r->all_plans = malloc((total + 1) * sizeof(*r->all_plans))))
    return ACS_ENOMEM;
  for (size_t k = 0; k < F->n; k++) {
    int32_t at = r->all_off[k + 1];
    for (int32_t i = F->ent[k]; dp->e[i].plan >= 0; i = dp->e[i].prev)
      r->all_plans[--at] = dp->pool[dp->e[i].plan];
  }
  r->chosen = -1;
  for (int32_t k = 0; k < r->nfront; k++)
    if (r->front[k].mem <= r->budget)
      r->chosen = k; /* by memory, so cycles fall: the last within the budget */
  return ACS_OK;
}

static void dp_free(struct dp *dp)
{
  for (int32_t b = 0; dp->b && b <= dp->cg->nparts; b++) {
    for (size_t s = 0; s < dp->b[b].nst; s++)
      free(dp->b[b].st[s].ent);
    free(dp->b[b].st);
    free(dp->b[b].x);
  }
  free(dp->b);
  free(dp->lastc);
  free(dp->e);
  free(dp->pool);
  free(dp->c);
}

static int propose(const struct acs_cas_env *env, const struct acs_cas_opts *o, int64_t budget,
                   const volatile sig_atomic_t *interrupted, struct acs_cas_result *r,
                   struct acs_diag *d)
{
  struct dp dp;
  const struct state *F = NULL;
  int err;

  memset(r, 0, sizeof(*r));
  memset(&dp, 0, sizeof(dp));
  dp.env = env;
  dp.o = o;
  dp.cg = env->cg;
  dp.budget = r->budget = budget;
  dp.interrupted = interrupted;
  if ((err = crossing(&dp)) < 0) {
    if (err == ACS_ERANGE)
      err = acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                         "cascade: more than %d tensors are live at one point", MAX_CROSS);
    goto out;
  }
  if ((err = dp_run(&dp)) < 0)
    goto out;
  for (size_t s = 0; s < dp.b[env->cg->nparts].nst; s++)
    if (dp.b[env->cg->nparts].st[s].key == 0)
      F = &dp.b[env->cg->nparts].st[s];
  r->groups_tried = dp.groups;
  r->plans_costed = dp.costed;
  err = ACS_EINFEASIBLE;
  if (!F || F->n == 0) {
    acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                 "cascade: no grouping of the network's %d parts into cascades exists",
                 (int)env->cg->nparts);
    goto out;
  }
  if ((err = result_fill(&dp, r, F)) < 0)
    goto out;
  err = r->chosen < 0 ? acs_cas_result_none(r, d) : acs_cas_result_pick(r, r->chosen);
out:
  dp_free(&dp);
  return err;
}

/* Plans over the budget are dropped after sizing (most of a walk's time is
 * its timing pass): a proposal holding one cannot fit. When nothing fits,
 * the unpruned front says how much the smallest proposal needs. */
int acs_cas_propose(const struct acs_cas_env *env, const struct acs_cas_opts *o, int64_t budget,
                    const volatile sig_atomic_t *interrupted, struct acs_cas_result *r,
                    struct acs_diag *d)
{
  struct acs_cas_env pruned = *env;
  int err;

  pruned.mem_limit = budget;
  err = propose(&pruned, o, budget, interrupted, r, d);
  if (err != ACS_EINFEASIBLE || r->nfront > 0)
    return err;
  acs_cas_result_free(r);
  pruned.mem_limit = 0;
  return propose(&pruned, o, budget, interrupted, r, d);
}

int acs_cas_result_none(const struct acs_cas_result *r, struct acs_diag *d)
{
  return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                      "cascade: the smallest proposal needs %lld bytes of CMX; the budget is %lld",
                      (long long)(r->nfront > 0 ? r->front[0].mem : -1), (long long)r->budget);
}

int acs_cas_result_pick(struct acs_cas_result *r, int32_t k)
{
  int32_t n;
  struct acs_cas_plan *v;

  if (k < 0 || k >= r->nfront)
    return ACS_EINVAL;
  n = r->all_off[k + 1] - r->all_off[k];
  if (!(v = malloc(((size_t)n + 1) * sizeof(*v))))
    return ACS_ENOMEM;
  memcpy(v, r->all_plans + r->all_off[k], (size_t)n * sizeof(*v));
  free(r->plans);
  r->plans = v;
  r->nplans = n;
  r->chosen = k;
  return ACS_OK;
}

void acs_cas_result_free(struct acs_cas_result *r)
{
  free(r->plans);
  free(r->front);
  free(r->all_off);
  free(r->all_plans);
  memset(r, 0, sizeof(*r));
}
