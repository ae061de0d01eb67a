/*
 * lower.c - from an affine schedule to the common schedule: space
 * allocation, folding onto the platform's PEs, start times, transfers.
 *
 * Space allocation (the systolic-array designer's projection): each
 * computed variable v is projected along a direction u (entries -1, 0, 1,
 * at most two of them non-zero): the instances on one line x + Z u share a
 * virtual PE. A direction is valid when |tau_v . u| >= delay_v, so two
 * instances of one line start at least delay_v cycles apart and never run
 * at the same time on their PE; among the valid ones the direction giving
 * the fewest virtual PEs is chosen (ties: fewer non-zeros, then the order
 * of enumeration). Without a valid direction (every instance of v at the
 * same time, tau_v = 0) each instance gets a PE of its own. Variables get
 * disjoint sets of virtual PEs, numbered in declaration order, each set
 * in lexicographic order of the projected coordinates.
 *
 * Folding: with V virtual PEs and P = pe_count, PE p runs virtual PE v when
 * p = v mod P (cyclic, the default: neighbours on different PEs, so a
 * wavefront keeps every PE busy) or p = floor(v P / V) (block: neighbours
 * together, fewer transfers). With V <= P, p = v.
 *
 * Start times: ops in order of affine time T (then op id, which is a
 * topological order since every delay is at least one cycle), each at
 * max(T, end of its predecessors, end of the previous op on its PE). When
 * nothing is folded the projection guarantees the PE is free and the
 * schedule guarantees the predecessors are done, so every op starts at
 * exactly T and the makespan is the latency; folded, the PEs serialize
 * what the array would have run side by side. A multidimensional schedule
 * gives an order, not times: ops go in the lexicographic order of their
 * rows, each as early as its predecessors and PE allow, and the projection
 * follows the last row.
 *
 * Transfers: a value used on another PE than the one that produced it is
 * sent once per consuming PE: a dma op from pe to pe of bytes_per_elem
 * bytes, planned with zero duration at the producer's end (a systolic
 * array latches a neighbour's result at the end of the producing cycle,
 * which the delay already counts); SimGrid charges it its bytes over the
 * two PEs' local links, so the simulated makespan shows what communication
 * costs.
 *
 * O(I (C + log I) + E) for I instances, C candidate directions and E
 * dependence instances.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/affine/affine.h"

/* ---- an open-addressing set of int64 keys ---- */

struct keyset {
  size_t cap, n;
  int64_t *key;
  uint8_t *used;
};

static uint64_t mix64(uint64_t x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

static int keyset_init(struct keyset *k, size_t expect)
{
  size_t cap = 16;

  while (cap < 2 * expect + 2)
    cap *= 2;
  k->cap = cap;
  k->n = 0;
  k->key = malloc(cap * sizeof(*k->key));
  k->used = calloc(cap, 1);
  return k->key && k->used ? ACS_OK : ACS_ENOMEM;
}

static void keyset_free(struct keyset *k)
{
  free(k->key);
  free(k->used);
  memset(k, 0, sizeof(*k));
}

/* Inserts x; the set never fills (sized for every point). O(1) expected. */
static void keyset_add(struct keyset *k, int64_t x)
{
  size_t i = mix64((uint64_t)x) & (k->cap - 1);

  while (k->used[i]) {
    if (k->key[i] == x)
      return;
    i = (i + 1) & (k->cap - 1);
  }
  k->used[i] = 1;
  k->key[i] = x;
  k->n++;
}

/* ---- projections ---- */

struct proj {
  int32_t nx;
  int64_t u[ACS_SARE_MAX_DIMS];
  int32_t pivot;           /* first non-zero of u (it is +1) */
  int64_t lo[ACS_SARE_MAX_DIMS], ext[ACS_SARE_MAX_DIMS]; /* key coordinate ranges */
};

/* Prepares the key of direction u over the box of vi; -1 when the keys do
 * not fit in 63 bits. */
static int proj_init(struct proj *p, const struct acs_sare_vinst *vi, int32_t nx, const int64_t *u)
{
  int64_t span = 1;

  p->nx = nx;
  memcpy(p->u, u, (size_t)nx * sizeof(*u));
  p->pivot = 0;
  while (p->pivot < nx && u[p->pivot] == 0)
    p->pivot++;
  for (int32_t j = 0; j < nx; j++) {
    /* key_j = x_j - x_pivot u_j lies in [lo_j - ..., hi_j + ...] */
    int64_t a = vi->lo[j], b = vi->hi[j], c = vi->lo[p->pivot], e = vi->hi[p->pivot];
    if (u[j] == 1) {
      a -= e;
      b -= c;
    } else if (u[j] == -1) {
      a += c;
      b += e;
    }
    p->lo[j] = a;
    p->ext[j] = b - a + 1;
    if (j != p->pivot && acs_mul_i64(span, p->ext[j], &span))
      return -1;
  }
  return span < (INT64_C(1) << 62) ? 0 : -1;
}

static int64_t proj_key(const struct proj *p, const int32_t *x)
{
  int64_t key = 0;

  for (int32_t j = 0; j < p->nx; j++)
    if (j != p->pivot)
      key = key * p->ext[j] + ((int64_t)x[j] - (int64_t)x[p->pivot] * p->u[j] - p->lo[j]);
  return key;
}

/* Next candidate direction (entries -1..1, first non-zero +1, at most two
 * non-zeros), in the order: unit vectors from the last index to the first,
 * then pairs. Returns 0 after the last. */
static int next_direction(int32_t nx, int *state, int64_t *u)
{
  int s = (*state)++;

  memset(u, 0, (size_t)nx * sizeof(*u));
  if (s < nx) {
    u[nx - 1 - s] = 1;
    return 1;
  }
  s -= nx;
  for (int32_t a = 0; a < nx; a++)
    for (int32_t b = a + 1; b < nx; b++)
      for (int sign = 1; sign >= -1; sign -= 2) {
        if (s-- == 0) {
          u[a] = 1;
          u[b] = sign;
          return 1;
        }
      }
  return 0;
}

/* Chooses variable v's direction (zeros when none is valid) and counts its
 * virtual PEs. O(points x candidates). */
static int choose_direction(const struct acs_sare *m, const struct acs_sare_vinst *vi, int32_t v,
                            const int64_t *tau, int64_t *best, int64_t *best_pes)
{
  int32_t nx = m->vars[v].ndims;
  int64_t u[ACS_SARE_MAX_DIMS];
  struct keyset ks;
  int state = 0, err;

  memset(best, 0, sizeof(*best) * ACS_SARE_MAX_DIMS);
  *best_pes = vi->count;
  if (nx == 0 || vi->count == 0)
    return ACS_OK;
  if ((err = keyset_init(&ks, (size_t)vi->count)) < 0) {
    keyset_free(&ks);
    return err;
  }
  while (next_direction(nx, &state, u)) {
    struct proj p;
    int64_t dot = 0;
    for (int32_t j = 0; j < nx; j++)
      dot += tau[j] * u[j];
    if ((dot < 0 ? -dot : dot) < m->vars[v].delay || proj_init(&p, vi, nx, u) < 0)
      continue;
    memset(ks.used, 0, ks.cap);
    ks.n = 0;
    for (int64_t k = 0; k < vi->count; k++)
      keyset_add(&ks, proj_key(&p, vi->pt + (size_t)k * (size_t)nx));
    /* a valid direction never gives more PEs than points; strictly fewer
     * PEs win, so among equals the first in enumeration order stays */
    int have = 0;
    for (int32_t j = 0; j < nx; j++)
      have |= best[j] != 0;
    if (!have || (int64_t)ks.n < *best_pes) {
      memcpy(best, u, (size_t)nx * sizeof(*u));
      *best_pes = (int64_t)ks.n;
    }
  }
  keyset_free(&ks);
  return ACS_OK;
}

/* Virtual PE of every instance of v: keys sorted, ids in that order. */
static int assign_vpes(const struct acs_sare *m, const struct acs_sare_vinst *vi, int32_t v,
                       const int64_t *u, int64_t first, int64_t *vpe, int64_t *count)
{
  int32_t nx = m->vars[v].ndims;
  int64_t *keys, nk = 0;
  struct proj p;
  int none = 1;

  for (int32_t j = 0; j < nx; j++)
    none &= u[j] == 0;
  if (none || proj_init(&p, vi, nx, u) < 0) {
    for (int64_t k = 0; k < vi->count; k++)
      vpe[k] = first + k;
    *count = vi->count;
    return ACS_OK;
  }
  keys = malloc(((size_t)vi->count + 1) * sizeof(*keys));
  if (!keys)
    return ACS_ENOMEM;
  for (int64_t k = 0; k < vi->count; k++)
    keys[k] = proj_key(&p, vi->pt + (size_t)k * (size_t)nx);
  qsort(keys, (size_t)vi->count, sizeof(*keys), acs_cmp_i64);
  for (int64_t k = 0; k < vi->count; k++)
    if (k == 0 || keys[k] != keys[nk - 1])
      keys[nk++] = keys[k];
  for (int64_t k = 0; k < vi->count; k++) {
    int64_t key = proj_key(&p, vi->pt + (size_t)k * (size_t)nx), lo = 0, hi = nk - 1;
    while (lo < hi) {
      int64_t mid = (lo + hi) / 2;
      if (keys[mid] < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    vpe[k] = first + lo;
  }
  free(keys);
  *count = nk;
  return ACS_OK;
}

/* ---- the lowering ---- */

void acs_affine_lowered_free(struct acs_affine_lowered *r)
{
  free(r->var);
  memset(r, 0, sizeof(*r));
}

struct lowering {
  const struct acs_problem *pb;
  const struct acs_sare *m;
  const struct acs_sare_inst *in;
  const struct acs_affine_sched *s;   /* the last (innermost) row */
  const struct acs_affine_sched *rows;
  int32_t nrows;
  struct acs_schedule *out;
  struct acs_affine_lowered *r;
  struct acs_diag *d;
  int32_t n;
  int64_t *t;              /* affine start of every op */
  int64_t *vpe;            /* virtual PE of every op */
  int32_t *order;          /* ops by (T, id) */
  int fold;                /* enum acs_affine_fold */
};

/* The time of every op in every row (n x nrows); all must be >= 0 (the
 * checker has said so already). */
static int affine_times(struct lowering *L, int64_t *t)
{
  int64_t x[ACS_SARE_MAX_DIMS];

  for (int32_t i = 0; i < L->n; i++) {
    int32_t v = L->in->op_var[i];
    const struct acs_sare_vinst *vi = &L->in->var[v];
    int64_t k = i - vi->first_op;
    for (int32_t j = 0; j < L->m->vars[v].ndims; j++)
      x[j] = vi->pt[(size_t)k * (size_t)L->m->vars[v].ndims + (size_t)j];
    for (int32_t r = 0; r < L->nrows; r++) {
      int64_t *ti = &t[(size_t)i * (size_t)L->nrows + (size_t)r];
      if (acs_affine_eval(&L->rows[r], L->m, v, x, L->in->value, ti) < 0 || *ti < 0)
        return acs_diag_set(L->d, ACS_EINVAL, NULL, 0, 0, "op '%s' has no valid affine time",
                            L->out->ops[i].name);
    }
  }
  return ACS_OK;
}

static int allocate(struct lowering *L)
{
  const struct acs_sare *m = L->m;
  int64_t first = 0;
  int err;

  for (int32_t v = 0; v < m->nvars; v++) {
    const struct acs_sare_vinst *vi = &L->in->var[v];
    int64_t pes;
    if (!acs_sare_computed(m, v) || vi->count == 0)
      continue;
    if ((err = choose_direction(m, vi, v, L->s->coef + L->s->off[v] + m->nparams,
                                L->r->var[v].u, &pes)) < 0 ||
        (err = assign_vpes(m, vi, v, L->r->var[v].u, first, L->vpe + vi->first_op,
                           &L->r->var[v].vpes)) < 0)
      return err;
    first += L->r->var[v].vpes;
  }
  L->r->virtual_pes = first;
  return ACS_OK;
}

static int64_t fold_pe(int64_t v, int64_t nv, int64_t np, int fold)
{
  if (nv <= np)
    return v;
  if (fold == ACS_AFFINE_FOLD_BLOCK)
    return (int64_t)(((__int128)v * np) / nv);
  return v % np;
}

struct tkey {
  int64_t t;
  int32_t id;
};

static int cmp_tkey(const void *a, const void *b)
{
  const struct tkey *x = a, *y = b;

  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* Multidimensional times: the rows in order, then the op id. */
struct mkey {
  int64_t t[ACS_AFFINE_MAX_DIMS];
  int32_t nd, id;
};

static int cmp_mkey(const void *a, const void *b)
{
  const struct mkey *x = a, *y = b;

  for (int32_t k = 0; k < x->nd; k++)
    if (x->t[k] != y->t[k])
      return x->t[k] < y->t[k] ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static int time_order(struct lowering *L)
{
  if (L->nrows == 1) {
    struct tkey *k = malloc(((size_t)L->n + 1) * sizeof(*k));
    if (!k)
      return ACS_ENOMEM;
    for (int32_t i = 0; i < L->n; i++)
      k[i] = (struct tkey){L->t[i], i};
    qsort(k, (size_t)L->n, sizeof(*k), cmp_tkey);
    for (int32_t i = 0; i < L->n; i++)
      L->order[i] = k[i].id;
    free(k);
    return ACS_OK;
  }
  struct mkey *k = malloc(((size_t)L->n + 1) * sizeof(*k));
  if (!k)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < L->n; i++) {
    k[i].nd = L->nrows;
    k[i].id = i;
    memcpy(k[i].t, L->t + (size_t)i * (size_t)L->nrows, (size_t)L->nrows * sizeof(int64_t));
  }
  qsort(k, (size_t)L->n, sizeof(*k), cmp_mkey);
  for (int32_t i = 0; i < L->n; i++)
    L->order[i] = k[i].id;
  free(k);
  return ACS_OK;
}

/* Start times: in time order, as early as the PE and the predecessors
 * allow, never before T. */
static int place(struct lowering *L, const volatile sig_atomic_t *interrupted)
{
  const struct acs_graph *g = L->pb->g;
  int64_t np = L->r->pe_count, *free_at = calloc((size_t)np + 1, sizeof(*free_at));

  if (!free_at)
    return ACS_ENOMEM;
  for (int32_t k = 0; k < L->n; k++) {
    int32_t i = L->order[k];
    struct acs_sop *o = &L->out->ops[i];
    /* one row: never before T; several: the rows are an order, not times */
    int64_t start = L->nrows == 1 ? L->t[i] : 0;
    if ((k & 0xffff) == 0 && interrupted && *interrupted) {
      free(free_at);
      return ACS_EINTERRUPTED;
    }
    o->unit = (int32_t)fold_pe(L->vpe[i], L->r->virtual_pes, np, L->fold);
    start = start > free_at[o->unit] ? start : free_at[o->unit];
    for (int32_t e = g->pred_off[i]; e < g->pred_off[i + 1]; e++) {
      int64_t pend = L->out->ops[g->pred[e]].end;
      start = start > pend ? start : pend;
    }
    o->start = start;
    o->end = start + o->dur;
    free_at[o->unit] = o->end;
    L->r->at_affine_time += L->nrows == 1 && start == L->t[i];
  }
  free(free_at);
  return ACS_OK;
}

/* ---- transfers ---- */

/* (producer op, consuming PE) -> transfer op, open addressing. */
struct xmap {
  size_t cap;
  int64_t *key;
  int32_t *val;            /* -1: empty */
};

static int xmap_init(struct xmap *x, size_t expect)
{
  size_t cap = 16;

  while (cap < 2 * expect + 2)
    cap *= 2;
  x->cap = cap;
  x->key = malloc(cap * sizeof(*x->key));
  x->val = malloc(cap * sizeof(*x->val));
  if (!x->key || !x->val)
    return ACS_ENOMEM;
  memset(x->val, 0xff, cap * sizeof(*x->val));
  return ACS_OK;
}

/* The slot of key: found (val >= 0) or empty. */
static size_t xmap_slot(const struct xmap *x, int64_t key)
{
  size_t i = mix64((uint64_t)key) & (x->cap - 1);

  while (x->val[i] >= 0 && x->key[i] != key)
    i = (i + 1) & (x->cap - 1);
  return i;
}

static int add_transfer(struct lowering *L, int32_t src, int32_t dst, int64_t bytes,
                        int32_t *id)
{
  struct acs_sop op;
  char name[ACS_NAME_MAX + 32];
  int32_t x;
  int err;

  memset(&op, 0, sizeof(op));
  snprintf(name, sizeof(name), "%s>pe%d", L->out->ops[src].name, (int)L->out->ops[dst].unit);
  op.name = name;
  op.kind = ACS_OP_DMA;
  op.src = op.dst = ACS_MEM_PE;
  op.unit = -1;
  op.start = op.end = L->out->ops[src].end;
  op.dur = 0;
  op.bytes = bytes;
  op.slots = 1;
  op.cmx_offset = op.cmx_bytes = -1;
  op.cmx_alloc = op.cmx_free = NAN;
  op.update_barrier = -1;
  op.sim_start = op.sim_end = NAN;
  if ((x = acs_schedule_add_op(L->out, &op)) < 0)
    return x;
  if ((err = acs_schedule_add_edge(L->out, src, x, ACS_EDGE_DATA)) < 0)
    return err;
  L->r->transfers++;
  L->r->transfer_bytes += bytes;
  *id = x;
  return ACS_OK;
}

/* Every edge between ops on different PEs goes through a transfer, one
 * per (producer, consuming PE). */
static int transfers(struct lowering *L, int64_t bytes)
{
  const struct acs_graph *g = L->pb->g;
  struct xmap xm = {0};
  int err = xmap_init(&xm, (size_t)g->nedges);

  for (int32_t i = 0; i < L->n && err == ACS_OK; i++)
    for (int32_t e = g->pred_off[i]; e < g->pred_off[i + 1] && err == ACS_OK; e++) {
      int32_t p = g->pred[e], pe = L->out->ops[i].unit;
      int64_t key = (int64_t)p * L->r->pe_count + pe;
      size_t slot;
      if (L->out->ops[p].unit == pe)
        continue;
      slot = xmap_slot(&xm, key);
      if (xm.val[slot] < 0) {
        if ((err = add_transfer(L, p, i, bytes, &xm.val[slot])) < 0)
          break;
        xm.key[slot] = key;
      }
      err = acs_schedule_add_edge(L->out, xm.val[slot], i, ACS_EDGE_DATA);
    }
  free(xm.key);
  free(xm.val);
  return err;
}

int acs_affine_lower(const struct acs_problem *pb, const struct acs_sare *m,
                     const struct acs_sare_inst *in, const struct acs_affine_sched *rows,
                     int32_t nrows, int fold, const volatile sig_atomic_t *interrupted,
                     struct acs_schedule *out, struct acs_affine_lowered *r,
                     struct acs_diag *d)
{
  struct lowering L = {pb, m, in, &rows[nrows - 1], rows, nrows, out, r, d, in->nops,
                       NULL, NULL, NULL, fold};
  int err;

  memset(r, 0, sizeof(*r));
  if (pb->g->nops != in->nops || out->norig != in->nops || pb->res_pe < 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "the problem's graph is not the instance DAG "
                        "of this system (%d ops, %d instances)", (int)pb->g->nops, (int)in->nops);
  r->var = calloc((size_t)m->nvars + 1, sizeof(*r->var));
  L.t = malloc(((size_t)L.n * (size_t)nrows + 1) * sizeof(*L.t));
  L.vpe = malloc(((size_t)L.n + 1) * sizeof(*L.vpe));
  L.order = malloc(((size_t)L.n + 1) * sizeof(*L.order));
  r->pe_count = pb->cap[pb->res_pe];
  err = !r->var || !L.t || !L.vpe || !L.order ? ACS_ENOMEM : affine_times(&L, L.t);
  if (err == ACS_OK && (err = allocate(&L)) == ACS_OK) {
    r->folded = r->virtual_pes > r->pe_count;
    if ((err = time_order(&L)) == ACS_OK && (err = place(&L, interrupted)) == ACS_OK)
      err = transfers(&L, (int64_t)acs_platform_get(&pb->plat, ACS_P_BYTES_PER_ELEM));
  }
  if (err == ACS_OK) {
    acs_schedule_finish(out);
    r->makespan = out->makespan;
  }
  free(L.t);
  free(L.vpe);
  free(L.order);
  if (err < 0)
    acs_affine_lowered_free(r);
  return err;
}
