/*
 * strip.c - the `strip` variant: the 2D strip-packing ILP of seed 000
 * ("Transform 1-0 LP to Integer LP by Reducing to 2D Strip Packing").
 *
 * Every op that holds CMX is a rectangle: its width is its CMX demand (in
 * units of the CMX alignment), its height its duration; x is its CMX
 * address and y its start time, in a strip of width W (the CMX) whose
 * height, the makespan, is minimized. Two rectangles i < j do not overlap
 * iff one of the seed's four inequalities holds, each switched off by its
 * binary (1 = relaxed) with big-M 2W or 2H:
 *
 *   x_i + w_i <= x_j + 2W t_R      x_j + w_j <= x_i + 2W t_L
 *   y_j + h_j <= y_i + 2H t_U      y_i + h_i <= y_j + 2H t_B
 *   t_R + t_L + t_U + t_B <= 3
 *
 * What is added or done differently from the seed, and why:
 *
 *  - H_fsg, the big-M and the height bound, must be the height of a
 *    feasible *packing*. The list scheduler checks CMX bytes as a sum, not
 *    contiguity, so its makespan may admit no packing. Its schedule is given
 *    addresses first-fit (in order of start, the lowest aligned range free
 *    over the op's interval); when that fails, a sequential schedule with
 *    every range at 0 (always a packing) gives H.
 *  - Precedence: y_j >= y_i + h_i for every edge. Pairs ordered by a path
 *    can never overlap in time, so they get no binaries.
 *  - Other resources: strip packing alone ignores the PE count, the DMA
 *    channels and named resources. Pairs whose two demands exceed a
 *    capacity must be ordered in time (t_U + t_B <= 1). Larger sets are
 *    added lazily: after each solve the usage of every non-CMX resource is
 *    checked at every start; when the ops running at an instant exceed a
 *    capacity, a cut requires that some pair of them be ordered in time
 *    (intervals with no common point always have a disjoint pair), and the
 *    model is solved again. Pairs that share such a resource get the two
 *    time binaries t_U, t_B even when they hold no CMX. Units are then
 *    assigned from the start times like every other variant.
 *  - Widths round the bytes up to whole alignment units and x_i is bounded
 *    by x_i A + bytes_i <= capacity, so the packing is exact at the
 *    alignment (offsets must be aligned anyway).
 *  - As in the seed, an op holds its range for its own duration (its
 *    working set, inputs included). Tensors do not stay in CMX between ops
 *    in this model, so the graph's data edges become control edges in the
 *    output (the verifier's residency rule belongs to the producer/consumer
 *    model of the spill scheduler).
 *
 * Size: O(n^2) binaries and rows for n ops, so the model is for small
 * graphs (max_vars). Status `ok` means the packing is proven optimal.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/npu/npu.h"
#include "core/sched/ctrledge.h"
#include "core/sched/ilpmodel.h"

struct strip_opts {
  int64_t iterations;   /* list samples for the incumbent */
  int64_t max_vars;     /* model size limit (columns) */
};

#define STRIP_DEFAULT_LIMIT 5.0
#define STRIP_MAX_ROUNDS 1000  /* lazy-cut rounds */

/* An op's rectangle: its width in units (0: it has none) and largest
 * base, and its columns x_i and y_i in the model. */
struct strip_rect {
  int64_t w, xmax;
  int32_t xcol, ycol;
};

struct strip {
  const struct acs_problem *pb;
  int32_t n;
  int64_t align, W, H;
  struct strip_rect *rect; /* per op */
  uint64_t *reach;         /* n x words: reach[i] has j when a path i -> j exists */
  size_t words;
  struct acs__mip mip;
  int32_t zcol;
  int32_t *pair;           /* n x n: first binary of pair (i < j), -1 none */
  /* best packing found */
  int64_t *bx, *by, best;
};

/* Transitive successors as bit sets, O(V (V + E) / 64). */
static int strip_reach(struct strip *st)
{
  const struct acs_graph *g = st->pb->g;

  st->words = ((size_t)st->n + 63) / 64;
  st->reach = calloc((size_t)st->n * st->words + 1, sizeof(uint64_t));
  if (!st->reach)
    return ACS_ENOMEM;
  for (int32_t k = st->n - 1; k >= 0; k--) {
    int32_t v = g->topo[k];
    uint64_t *rv = st->reach + (size_t)v * st->words;
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++) {
      int32_t s = g->succ[e];
      const uint64_t *rs = st->reach + (size_t)s * st->words;
      for (size_t w = 0; w < st->words; w++)
        rv[w] |= rs[w];
      rv[s / 64] |= UINT64_C(1) << (s % 64);
    }
  }
  return ACS_OK;
}

static int ordered(const struct strip *st, int32_t i, int32_t j)
{
  return (st->reach[(size_t)i * st->words + (size_t)j / 64] >> (j % 64) & 1) ||
         (st->reach[(size_t)j * st->words + (size_t)i / 64] >> (i % 64) & 1);
}

/* Whether i and j both demand some resource other than the CMX. */
static int share_other(const struct strip *st, int32_t i, int32_t j, int *conflict)
{
  const struct acs_problem *pb = st->pb;
  int share = 0;

  *conflict = 0;
  for (int r = 0; r < pb->nres; r++) {
    int64_t a = acs_problem_demand(pb, i, r), b = acs_problem_demand(pb, j, r);
    if (r == pb->res_cmx || a <= 0 || b <= 0)
      continue;
    share = 1;
    if (a + b > pb->cap[r])
      *conflict = 1;
  }
  return share;
}

/* ---- the heuristic packing --------------------------------------------- */

/* Lowest aligned base for op v over [s, s + d) against the ops placed in
 * order[0..k); -1 when none fits. O(k^2). */
static int64_t first_fit(const struct strip *st, const int32_t *order, int32_t k,
                         const int64_t *start, const int64_t *addr, int32_t v)
{
  const struct acs_problem *pb = st->pb;
  int64_t b = acs_problem_demand(pb, v, pb->res_cmx), cand = 0;
  int moved = 1;

  while (moved) {
    moved = 0;
    for (int32_t i = 0; i < k; i++) {
      int32_t u = order[i];
      int64_t ub = acs_problem_demand(pb, u, pb->res_cmx);
      if (st->rect[u].w == 0 || start[u] + pb->dur[u] <= start[v] ||
          start[v] + pb->dur[v] <= start[u])
        continue;
      if (addr[u] < cand + b && cand < addr[u] + ub) {
        cand = acs_ceil_div_i64(addr[u] + ub, st->align) * st->align;
        moved = 1;
      }
    }
  }
  return cand + b <= pb->cap[pb->res_cmx] ? cand : -1;
}

struct start_key {
  int64_t s;
  int32_t id;
};

static int cmp_start(const void *a, const void *b)
{
  const struct start_key *x = a, *y = b;

  if (x->s != y->s)
    return x->s < y->s ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* Addresses (in alignment units) for start[] first-fit in order of start;
 * 0 when all fit, 1 when some op finds no range. */
static int pack_first_fit(struct strip *st, const int64_t *start, int64_t *addr)
{
  struct start_key *k = acs__sched_array((size_t)st->n, sizeof(*k));
  int32_t *order = acs__sched_array((size_t)st->n, sizeof(*order));
  int rc = k && order ? 0 : ACS_ENOMEM;

  for (int32_t v = 0; rc == 0 && v < st->n; v++)
    k[v] = (struct start_key){ start[v], v };
  if (rc == 0)
    qsort(k, (size_t)st->n, sizeof(*k), cmp_start);
  for (int32_t i = 0; rc == 0 && i < st->n; i++) {
    int32_t v = k[i].id;
    order[i] = v;
    addr[v] = st->rect[v].w ? first_fit(st, order, i, start, addr, v) : -1;
    if (st->rect[v].w && addr[v] < 0)
      rc = 1;
  }
  /* Bytes (aligned) to alignment units, the model's x. */
  for (int32_t v = 0; rc == 0 && v < st->n; v++)
    if (addr[v] >= 0)
      addr[v] /= st->align;
  free(order);
  free(k);
  return rc;
}

/* The incumbent packing into bx/by and its height st->H. */
static int strip_incumbent(struct strip *st, int64_t iterations, uint64_t seed,
                           const struct acs__stop *stop, struct acs_diag *d)
{
  const struct acs_graph *g = st->pb->g;
  int64_t t = 0;
  int err;

  err = acs__list_heuristic(st->pb, iterations, seed, stop, st->by, d);
  if (err != ACS_OK)
    return err;
  err = pack_first_fit(st, st->by, st->bx);
  if (err < 0)
    return err;
  if (err == 0) {
    st->H = st->best = acs__sched_makespan(st->pb, st->by);
    return ACS_OK;
  }
  for (int32_t k = 0; k < st->n; k++) {
    int32_t v = g->topo[k];
    st->by[v] = t;
    st->bx[v] = st->rect[v].w ? 0 : -1;
    t += st->pb->dur[v];
  }
  st->H = st->best = t;
  return ACS_OK;
}

/* ---- the model ----------------------------------------------------------- */

/* Adds a row lo <= a x_i + b x_j + c t <= hi in one call (-1 columns skipped). */
static int row3(struct acs__mip *m, double lo, double hi, int32_t c1, double a1,
                int32_t c2, double a2, int32_t c3, double a3)
{
  int err;

  if (acs__mip_row(m, lo, hi) < 0)
    return ACS_ENOMEM;
  err = c1 >= 0 ? acs__mip_coef(m, c1, a1) : ACS_OK;
  if (err == ACS_OK && c2 >= 0)
    err = acs__mip_coef(m, c2, a2);
  if (err == ACS_OK && c3 >= 0)
    err = acs__mip_coef(m, c3, a3);
  return err;
}

/* Binaries t_R, t_L, t_U, t_B of pair (i, j) at pair[i n + j] (t_R, t_L
 * only when both are rectangles), and the seed's le_1..le_5. */
static int add_pair(struct strip *st, int32_t i, int32_t j, int conflict)
{
  struct acs__mip *m = &st->mip;
  const struct strip_rect *ri = &st->rect[i], *rj = &st->rect[j];
  double MW = 2.0 * (double)(st->W + 1), MH = 2.0 * (double)st->H;
  double hi = (double)st->pb->dur[i], hj = (double)st->pb->dur[j];
  int rect = ri->w > 0 && rj->w > 0;
  int32_t c0 = m->ncols;
  int err = ACS_OK;

  for (int k = 0; k < 4; k++)
    if (acs__mip_col(m, 0, 1, 0, 1) < 0)
      return ACS_ENOMEM;
  st->pair[(size_t)i * (size_t)st->n + (size_t)j] = c0;
  /* t_U: y_j + h_j <= y_i + 2H t_U; t_B: y_i + h_i <= y_j + 2H t_B */
  err = row3(m, -HUGE_VAL, -hj, rj->ycol, 1, ri->ycol, -1, c0 + 2, -MH);
  if (err == ACS_OK)
    err = row3(m, -HUGE_VAL, -hi, ri->ycol, 1, rj->ycol, -1, c0 + 3, -MH);
  if (err == ACS_OK && rect) {
    /* t_R: x_i + w_i <= x_j + 2W t_R; t_L: x_j + w_j <= x_i + 2W t_L */
    err = row3(m, -HUGE_VAL, -(double)ri->w, ri->xcol, 1, rj->xcol, -1, c0, -MW);
    if (err == ACS_OK)
      err = row3(m, -HUGE_VAL, -(double)rj->w, rj->xcol, 1, ri->xcol, -1, c0 + 1, -MW);
    if (err == ACS_OK) {
      err = row3(m, -HUGE_VAL, 3, c0, 1, c0 + 1, 1, c0 + 2, 1);
      if (err == ACS_OK)
        err = acs__mip_coef(m, c0 + 3, 1);
    }
  } else if (err == ACS_OK) {
    /* No rectangles: t_R, t_L stay relaxed (fixed at 1). */
    m->clb[c0] = m->clb[c0 + 1] = 1;
  }
  /* A pair that exceeds a capacity by itself is ordered in time. */
  if (err == ACS_OK && conflict)
    err = row3(m, -HUGE_VAL, 1, c0 + 2, 1, c0 + 3, 1, -1, 0);
  return err;
}

static int64_t strip_columns(const struct strip *st)
{
  int64_t cols = 1 + 2 * (int64_t)st->n;

  for (int32_t i = 0; i < st->n; i++)
    for (int32_t j = i + 1; j < st->n; j++) {
      int conflict;
      if (!ordered(st, i, j) &&
          ((st->rect[i].w && st->rect[j].w) || share_other(st, i, j, &conflict)))
        cols += 4;
    }
  return cols;
}

/*
 * min z_H subject to y_i + h_i <= z_H <= H, x_i A + bytes_i <= capacity,
 * precedence, and the pairwise rows. Columns x_i (integer, CMX units; fixed
 * at 0 for ops without a rectangle), y_i (integer cycles), z_H.
 */
static int strip_build(struct strip *st)
{
  const struct acs_problem *pb = st->pb;
  const struct acs_graph *g = pb->g;
  struct acs__mip *m = &st->mip;
  int err = ACS_OK;

  st->zcol = acs__mip_col(m, 0, (double)st->H, 1, 0);
  for (int32_t i = 0; i < st->n && err == ACS_OK; i++) {
    st->rect[i].xcol = acs__mip_col(m, 0, (double)st->rect[i].xmax, 0, 1);
    st->rect[i].ycol = acs__mip_col(m, 0, (double)(st->H - pb->dur[i]), 0, 1);
    if (st->rect[i].xcol < 0 || st->rect[i].ycol < 0)
      return ACS_ENOMEM;
    /* y_i + h_i <= z_H */
    err = row3(m, -HUGE_VAL, -(double)pb->dur[i], st->rect[i].ycol, 1, st->zcol, -1, -1, 0);
  }
  for (int32_t e = 0; err == ACS_OK && e < g->nedges; e++)
    err = row3(m, (double)pb->dur[g->edges[e].src], HUGE_VAL, st->rect[g->edges[e].dst].ycol, 1,
               st->rect[g->edges[e].src].ycol, -1, -1, 0);
  for (int32_t i = 0; err == ACS_OK && i < st->n; i++)
    for (int32_t j = i + 1; err == ACS_OK && j < st->n; j++) {
      int conflict = 0, share;
      st->pair[(size_t)i * (size_t)st->n + (size_t)j] = -1;
      if (ordered(st, i, j))
        continue;
      share = share_other(st, i, j, &conflict);
      if ((st->rect[i].w && st->rect[j].w) || share)
        err = add_pair(st, i, j, conflict);
    }
  return err;
}

/* ---- lazy resource cuts ---------------------------------------------------- */

/*
 * Checks every non-CMX resource at every start time of y[] (usage only
 * rises at starts). For each instant where the running ops exceed a
 * capacity, adds sum over their pairs of (2 - t_U - t_B) >= 1: some pair
 * is ordered. Returns the number of cuts added (0: feasible). O(V^2 R).
 */
static int lazy_cuts(struct strip *st, const int64_t *y)
{
  const struct acs_problem *pb = st->pb;
  int32_t *run = acs__sched_array((size_t)st->n, sizeof(*run));
  int cuts = 0, err = run ? ACS_OK : ACS_ENOMEM;

  for (int32_t v = 0; err == ACS_OK && v < st->n; v++) {
    int32_t nrun = 0, over = 0;
    if (pb->dur[v] == 0)
      continue;
    for (int32_t u = 0; u < st->n; u++)
      if (pb->dur[u] > 0 && y[u] <= y[v] && y[v] < y[u] + pb->dur[u])
        run[nrun++] = u;
    for (int r = 0; r < pb->nres && !over; r++) {
      int64_t use = 0;
      if (r == pb->res_cmx)
        continue;
      for (int32_t k = 0; k < nrun; k++)
        use += acs_problem_demand(pb, run[k], r);
      over = use > pb->cap[r];
    }
    if (!over)
      continue;
    double pairs = 0;
    if (acs__mip_row(&st->mip, -HUGE_VAL, 0) < 0)
      err = ACS_ENOMEM;
    for (int32_t a = 0; err == ACS_OK && a < nrun; a++)
      for (int32_t b = a + 1; err == ACS_OK && b < nrun; b++) {
        int32_t i = run[a] < run[b] ? run[a] : run[b], j = run[a] ^ run[b] ^ i;
        int32_t c = st->pair[(size_t)i * (size_t)st->n + (size_t)j];
        if (c < 0)
          continue;
        pairs += 2;
        err = acs__mip_coef(&st->mip, c + 2, 1);
        if (err == ACS_OK)
          err = acs__mip_coef(&st->mip, c + 3, 1);
      }
    /* sum (t_U + t_B) <= 2 pairs - 1 */
    st->mip.rhi[st->mip.nrows - 1] = pairs - 1;
    cuts++;
  }
  free(run);
  return err != ACS_OK ? err : cuts;
}

/* ---- the variant ------------------------------------------------------------- */

static int strip_init(struct strip *st, const struct acs_problem *pb)
{
  size_t n = (size_t)pb->nops, nn;
  int64_t cap = pb->cap[pb->res_cmx];

  memset(st, 0, sizeof(*st));
  acs__mip_init(&st->mip);
  st->pb = pb;
  st->n = pb->nops;
  st->align = pb->plat.v[ACS_P_CMX_ALIGN_BYTES] >= 1 ? (int64_t)pb->plat.v[ACS_P_CMX_ALIGN_BYTES] : 1;
  st->W = cap / st->align;
  if (acs_mul_size(n, n, &nn) != 0)
    return ACS_ENOMEM;
  st->rect = acs__sched_array(n, sizeof(*st->rect));
  st->bx = acs__sched_array(n, sizeof(int64_t));
  st->by = acs__sched_array(n, sizeof(int64_t));
  st->pair = acs__sched_array(nn, sizeof(int32_t));
  if (!st->rect || !st->bx || !st->by || !st->pair)
    return ACS_ENOMEM;
  for (size_t v = 0; v < n; v++) {
    int64_t b = acs_problem_demand(pb, (int32_t)v, pb->res_cmx);
    st->rect[v].w = b > 0 && pb->dur[v] > 0 ? acs_ceil_div_i64(b, st->align) : 0;
    st->rect[v].xmax = st->rect[v].w ? (cap - b) / st->align : 0;
  }
  return strip_reach(st);
}

static void strip_destroy(struct strip *st)
{
  acs__mip_destroy(&st->mip);
  free(st->rect);
  free(st->bx);
  free(st->by);
  free(st->pair);
  free(st->reach);
}

/* Solves with lazy cuts until the solution respects every resource, the
 * deadline passes or the solver gives up. *proven when optimal. */
static int strip_solve(struct strip *st, double deadline,
                       const volatile sig_atomic_t *interrupted, int *proven, double *bound,
                       struct acs_diag *d)
{
  struct acs__mip_params p;
  int64_t *x = acs__sched_array((size_t)st->n, sizeof(int64_t));
  int64_t *y = acs__sched_array((size_t)st->n, sizeof(int64_t));
  int err = x && y ? ACS_OK : ACS_ENOMEM;

  acs__mip_params_init(&p);
  p.interrupted = interrupted;
  *proven = 0;
  for (int round = 0; err == ACS_OK && round < STRIP_MAX_ROUNDS; round++) {
    struct acs__mip_result r;
    int cuts;
    p.time_limit = deadline - acs_now_seconds();
    if (p.time_limit <= 0)
      break;
    err = acs__mip_solve(&st->mip, &p, &r, d);
    if (err == ACS_OK && r.bound > *bound)
      *bound = r.bound;
    if (err != ACS_OK || !r.x) {
      free(r.x);
      break;
    }
    for (int32_t v = 0; v < st->n; v++) {
      x[v] = st->rect[v].w ? llround(r.x[st->rect[v].xcol]) : -1;
      y[v] = llround(r.x[st->rect[v].ycol]);
    }
    free(r.x);
    cuts = lazy_cuts(st, y);
    if (cuts < 0) {
      err = cuts;
    } else if (cuts == 0) {
      int64_t mk = acs__sched_makespan(st->pb, y);
      if (mk < st->best) {
        st->best = mk;
        memcpy(st->bx, x, sizeof(*x) * (size_t)st->n);
        memcpy(st->by, y, sizeof(*y) * (size_t)st->n);
      }
      *proven = r.status == ACS__MIP_OPTIMAL;
      break;
    }
  }
  free(x);
  free(y);
  return err;
}

static int strip_emit(struct strip *st, struct acs_schedule *out)
{
  int err = acs__sched_emit(st->pb, st->by, out);
  struct acs_ctrl_stats cs;

  for (int32_t v = 0; err == ACS_OK && v < st->n; v++) {
    struct acs_sop *o = &out->ops[v];
    if (st->bx[v] < 0 || st->rect[v].w == 0)
      continue;
    o->cmx_offset = st->bx[v] * st->align;
    o->cmx_bytes = acs_problem_demand(st->pb, v, st->pb->res_cmx);
    o->cmx_alloc = (double)o->start;
    o->cmx_free = (double)o->end;
  }
  for (int32_t e = 0; err == ACS_OK && e < out->nedges; e++)
    out->edges[e].kind = ACS_EDGE_CONTROL;
  /* Address reuse becomes control edges (seed 000, control edge
   * generation): the packing's times keep two ranges at one address apart,
   * but the barrier pass re-times the plan and an execution shifts it; only
   * edges hold through both. Without them a barrier limit made strip's
   * ranges overlap. */
  if (err == ACS_OK)
    err = acs__ctrl_edges_add(out, NULL, ACS__CTRL_REDUCE, &cs);
  return err;
}

static int strip_schedule(const struct acs_problem *pb, const void *opts,
                          const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                          struct acs_diag *d)
{
  const struct strip_opts *o = opts;
  struct acs__exact_stops stops = acs__exact_stops_make(ctx, STRIP_DEFAULT_LIMIT);
  double bound = -HUGE_VAL;
  int64_t lb, cols;
  struct strip st;
  int err, proven = 0;

  if ((err = acs__sched_precheck(pb, d)) != ACS_OK)
    return err;
  if (pb->res_cmx < 0 || pb->cap[pb->res_cmx] <= 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                        "strip: the strip is the CMX and this workload has no CMX resource");
  err = strip_init(&st, pb);
  if (err == ACS_OK)
    err = strip_incumbent(&st, o->iterations, ctx ? ctx->seed : 1, &stops.incumbent, d);
  if (err != ACS_OK)
    goto out_with_strip;
  lb = acs_bound_best(pb);
  cols = strip_columns(&st);
  if (st.best > lb && cols <= o->max_vars) {
    err = strip_build(&st);
    if (err == ACS_OK)
      err = strip_solve(&st, stops.deadline, stops.incumbent.interrupted, &proven, &bound, d);
  }
  if (err != ACS_OK)
    goto out_with_strip;
  if (proven || (bound > -HUGE_VAL && (int64_t)ceil(bound - 1e-6) > lb))
    lb = proven ? st.best : (int64_t)ceil(bound - 1e-6);
  err = strip_emit(&st, out);
  if (err != ACS_OK)
    goto out_with_strip;
  /* The bound the packing search proved travels with the schedule (the
   * run's lower_bound_cycles), not only in the message. */
  out->lower_bound = lb < st.best ? lb : st.best;
  if (st.best <= lb) {
    acs_diag_msgf(d, "optimal packing: height %lld", (long long)st.best);
  } else {
    acs_diag_msgf(d, "packing not proven optimal%s: height %lld, lower bound %lld, gap %.2f%%",
         cols > o->max_vars ? " (model larger than max_vars)" : " within the time limit",
         (long long)st.best, (long long)lb, 100.0 * (double)(st.best - lb) / (double)lb);
    err = ACS_ETIMEOUT;
  }
out_with_strip:
  strip_destroy(&st);
  return err;
}

static const struct acs_opt_desc strip_opts_desc[] = {
  ACS__OPT_INCUMBENT_ITERATIONS(struct strip_opts),
  ACS_OPT_INT_FIELD(struct strip_opts, max_vars, "200000", 10, 1e9,
    "model size limit in columns (4 binaries per pair of ops); larger graphs keep "
    "the incumbent packing"),
  ACS_OPT_END,
};

const struct acs_sched_ops acs_sched_strip = {
  .name = "strip",
  .memory_model = ACS_MEM_TRANSIENT, /* each op's CMX block lives for that op's duration only */
  .seed = ACS_SEED_KUNDETI,
  .summary = "2D strip-packing ILP (GLPK): CMX address x time, contiguous ranges, "
             "precedence, PE/DMA capacities by lazy cuts",
  .kinds = ACS_KINDS_NETWORK,
  ACS_SCHED_OPTS(struct strip_opts, strip_opts_desc),
  .searches = 1,
  .schedule = strip_schedule,
};
