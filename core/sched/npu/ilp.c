/*
 * ilp.c - the `ilp` variant: optimal schedules from the time-indexed 0-1
 * program of seed 000 ("Integer Linear Program"), over the whole resource
 * vector, solved through the solver-independent model of ilpmodel.h.
 *
 * The seed's program, and what is done instead where it is weak:
 *
 *  - Variables x_{i,t} = 1 when op i starts at step t; (5) every op starts
 *    once. Here the start variables are kept in cumulative form,
 *    z_{i,t} = sum_{tau <= t} x_{i,tau} ("has started by t"), an exact
 *    change of variables (x_{i,t} = z_{i,t} - z_{i,t-1}) with far fewer
 *    nonzeros: the rows below have 2 terms per op instead of d_i or t.
 *  - (6) The seed links an edge (i, j) by aggregated start times,
 *    sum_t t x_{i,t} + d_i <= sum_t t x_{j,t}. That is one row per edge and
 *    its LP relaxation is very weak: fractional starts spread over the
 *    window satisfy it while no integer schedule is close. It is replaced by
 *    the disaggregated constraints sum_{tau <= t} x_{j,tau} <=
 *    sum_{tau <= t - d_i} x_{i,tau} for every t of j's window, i.e.
 *    z_{j,t} <= z_{i,t-d_i}: j cannot have started by t unless i started by
 *    t - d_i. They imply (6) and cut off most fractional points (the
 *    standard result of Christofides et al. 1987 and Artigues 2017).
 *  - (1)-(4) Active ops and resource use: op i is active at t iff it started
 *    in (t - d_i, t], i.e. z_{i,t} - z_{i,t-d_i}; for every resource r of the
 *    problem (PEs, DMA channels, CMX bytes, named ones) and step t,
 *    sum_i r_i (z_{i,t} - z_{i,t-d_i}) <= C_r. The seed's concurrency
 *    constraint (4) is the PE row (each op demands what it uses).
 *  - (7) The seed minimizes sum_t x_{sink,t}, which is 1 for every schedule
 *    by (5); the intended objective is the sink's start sum_t t x_{sink,t}.
 *    Here the makespan is not an objective at all: the model at horizon T
 *    only admits schedules ending by T (start windows [ES_i, T - tail_i]
 *    from longest paths), and the search below decides feasibility for
 *    T = LB, LB + 1, ... (destructive improvement), which lets every
 *    window shrink with T and proves a bound at each step.
 *  - The seed's time runs over [1, m] with m the FSG makespan; here steps
 *    are [0, T) and m is the best heuristic makespan (the list scheduler
 *    with randomized sampling, the incumbent).
 *
 * Proving optimality fast. The incumbent M from the list scheduler and the
 * lower bound L (critical path, resource work) are compared first: M = L is
 * optimal without any model (most PSPLIB instances with loose resources).
 * Otherwise T runs from L upward: each T is first tried with the LP
 * relaxation alone (an infeasible LP refutes T cheaply), then with the MIP,
 * which stops at its first integer solution. Each refuted T raises the
 * proven bound to T + 1; the first feasible T is optimal. The time limit
 * stops the search with the incumbent, the proven bound and the gap. (On
 * resource-tight instances the LP relaxation stays weak, e.g. 62 against an
 * optimum of 79 on j3037_1, and the MIP cannot refute T in time: those end
 * with a gap.)
 *
 * Time steps. Durations of real workloads are thousands to millions of
 * cycles; a model per cycle would be huge. Durations are rounded up to whole
 * steps of `time_step` cycles (automatic: the smallest step that puts the
 * heuristic makespan within `max_steps` steps). Any step schedule is a valid
 * cycle schedule once scaled (each op ends no later than its step end), so
 * the quantized optimum times the step is an upper bound in cycles, never an
 * optimum; the real schedule is then left-shifted op by op in the order of
 * the step starts (a serial pass, which never delays an op). The lower
 * bound in cycles is the critical-path/resource bound, the proven bound of
 * the step model when the step is 1, and otherwise step times the proven
 * bound of a second model with durations rounded down (floor_bound). Status
 * `ok` means optimality proven in cycles; anything else is `timeout` with
 * the gap in the message.
 *
 * Contiguous CMX (option contiguous=1): the seed's x_{i,t,p} variables and
 * constraints 3.1/3.2 (see build_contiguous).
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

struct ilp_opts {
  int64_t time_step;   /* cycles per step; 0 = automatic */
  int64_t max_steps;   /* automatic step: at most this many steps */
  int64_t contiguous;  /* 1: contiguous CMX addresses (x_{i,t,p}) */
  int64_t cmx_slots;   /* contiguous: CMX positions at most */
  int64_t iterations;  /* list samples for the incumbent */
  int64_t max_vars;    /* model size limit (columns) */
};

/* Without --time-limit the search still ends: `-s all` runs this variant on
 * every workload. */
#define ILP_DEFAULT_LIMIT 5.0

/* ---- the quantized problem ------------------------------------------- */

struct qprob {
  const struct acs_problem *pb;
  struct acs_problem q;   /* *pb with q.dur in steps (owned here) */
  int64_t step;
  int64_t *head, *tail;   /* earliest start; longest path from start to the end */
  int32_t *pos;           /* topological position */
};

/* Heads and tails by longest paths in steps, O(V + E). */
static void qprob_paths(struct qprob *qp)
{
  const struct acs_graph *g = qp->pb->g;
  const int64_t *d = qp->q.dur;

  for (int32_t k = 0; k < g->nops; k++) {
    int32_t v = g->topo[k];
    qp->pos[v] = k;
    qp->head[v] = 0;
    for (int32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++)
      if (qp->head[g->pred[e]] + d[g->pred[e]] > qp->head[v])
        qp->head[v] = qp->head[g->pred[e]] + d[g->pred[e]];
  }
  for (int32_t k = g->nops - 1; k >= 0; k--) {
    int32_t v = g->topo[k];
    int64_t after = 0;
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      if (qp->tail[g->succ[e]] > after)
        after = qp->tail[g->succ[e]];
    qp->tail[v] = d[v] + after;
  }
}

static void qprob_destroy(struct qprob *qp)
{
  free(qp->q.dur);
  free(qp->head);
  free(qp->tail);
  free(qp->pos);
  memset(qp, 0, sizeof(*qp));
}

/* Durations in steps, rounded up (round_up = 1: a restriction whose
 * schedules are valid in cycles) or down (0: a relaxation, for bounds). */
static int qprob_init(struct qprob *qp, const struct acs_problem *pb, int64_t step,
                      int round_up)
{
  size_t n = (size_t)pb->nops;

  memset(qp, 0, sizeof(*qp));
  qp->pb = pb;
  qp->q = *pb;
  qp->step = step;
  qp->q.dur = acs__sched_array(n, sizeof(int64_t));
  qp->head = acs__sched_array(n, sizeof(int64_t));
  qp->tail = acs__sched_array(n, sizeof(int64_t));
  qp->pos = acs__sched_array(n, sizeof(int32_t));
  if (!qp->q.dur || !qp->head || !qp->tail || !qp->pos) {
    qprob_destroy(qp);
    return ACS_ENOMEM;
  }
  for (size_t v = 0; v < n; v++)
    qp->q.dur[v] = pb->dur[v] / step + (round_up && pb->dur[v] % step != 0);
  qprob_paths(qp);
  return ACS_OK;
}

/* ---- the model at horizon T ------------------------------------------- */

struct tmodel {
  struct acs__mip mip;
  const struct qprob *qp;
  int64_t T;
  int64_t *ls;            /* latest start at T; the earliest is qp->head */
  int32_t *zcol;          /* column of z_{j,es_j}; z_{j,t} is zcol + t - es_j */
  /* contiguous variant */
  int contiguous;
  int64_t unit, ncell;    /* CMX bytes per cell; cells */
  int64_t *npos, *width;  /* base positions and cells of each op (0: not placed) */
  int32_t *xcol;          /* column of x_{j,es_j,0}; x_{j,t,p} = xcol + (t - es_j) npos + p */
};

static int tmodel_init(struct tmodel *m, const struct qprob *qp)
{
  size_t n = (size_t)qp->pb->nops;

  memset(m, 0, sizeof(*m));
  acs__mip_init(&m->mip);
  m->qp = qp;
  m->ls = acs__sched_array(n, sizeof(int64_t));
  m->zcol = acs__sched_array(n, sizeof(int32_t));
  m->npos = calloc(n + 1, sizeof(int64_t));
  m->width = calloc(n + 1, sizeof(int64_t));
  m->xcol = acs__sched_array(n, sizeof(int32_t));
  return m->ls && m->zcol && m->npos && m->width && m->xcol ? ACS_OK : ACS_ENOMEM;
}

static void tmodel_destroy(struct tmodel *m)
{
  acs__mip_destroy(&m->mip);
  free(m->ls);
  free(m->zcol);
  free(m->npos);
  free(m->width);
  free(m->xcol);
}

/*
 * z_{j,t}: returns its column, or -1 when it is a constant (0 before j's
 * window, 1 from its latest start on), stored in *c.
 */
static int32_t zvar(const struct tmodel *m, int32_t j, int64_t t, int *c)
{
  if (t < m->qp->head[j]) {
    *c = 0;
    return -1;
  }
  if (t >= m->ls[j]) {
    *c = 1;
    return -1;
  }
  *c = 0;
  return m->zcol[j] + (int32_t)(t - m->qp->head[j]);
}

/* Adds coef * z_{j,t} to the open row; a constant goes to *rhs_shift. */
static int add_z(struct tmodel *m, int32_t j, int64_t t, double coef, double *konst)
{
  int c;
  int32_t col = zvar(m, j, t, &c);

  if (col < 0) {
    *konst += coef * c;
    return ACS_OK;
  }
  return acs__mip_coef(&m->mip, col, coef);
}

/* Windows at T; returns 1 when some window is empty (T is infeasible), and
 * the number of z columns in *ncols. */
static int windows(struct tmodel *m, int64_t T, int64_t *ncols)
{
  const struct qprob *qp = m->qp;

  *ncols = 0;
  m->T = T;
  for (int32_t j = 0; j < qp->pb->nops; j++) {
    m->ls[j] = T - qp->tail[j];
    if (m->ls[j] < qp->head[j])
      return 1;
    *ncols += m->ls[j] - qp->head[j];
  }
  return 0;
}

/* z columns, the monotone rows z_{j,t} <= z_{j,t+1}. The objective
 * maximizes sum z (minimizes the sum of starts): it steers the LP towards
 * left-justified schedules, which round to feasible ones more often. */
static int build_z(struct tmodel *m)
{
  const struct qprob *qp = m->qp;
  int err = ACS_OK;

  for (int32_t j = 0; err == ACS_OK && j < qp->pb->nops; j++) {
    m->zcol[j] = m->mip.ncols;
    for (int64_t t = qp->head[j]; t < m->ls[j]; t++)
      if (acs__mip_col(&m->mip, 0, 1, -1, 1) < 0)
        return ACS_ENOMEM;
    for (int64_t t = qp->head[j]; err == ACS_OK && t + 1 < m->ls[j]; t++) {
      if (acs__mip_row(&m->mip, -HUGE_VAL, 0) < 0)
        return ACS_ENOMEM;
      err = acs__mip_coef(&m->mip, m->zcol[j] + (int32_t)(t - qp->head[j]), 1);
      if (err == ACS_OK)
        err = acs__mip_coef(&m->mip, m->zcol[j] + (int32_t)(t + 1 - qp->head[j]), -1);
    }
  }
  return err;
}

/* Disaggregated precedence: z_{j,t} <= z_{i,t-d_i} for each edge (i, j) and
 * each t of j's window where the right side is not the constant 1. */
static int build_precedence(struct tmodel *m)
{
  const struct qprob *qp = m->qp;
  const struct acs_graph *g = qp->pb->g;
  int err = ACS_OK;

  for (int32_t e = 0; err == ACS_OK && e < g->nedges; e++) {
    int32_t i = g->edges[e].src, j = g->edges[e].dst;
    int64_t di = qp->q.dur[i];
    for (int64_t t = qp->head[j]; err == ACS_OK && t < m->ls[j]; t++) {
      double konst = 0;
      int c;
      if (zvar(m, i, t - di, &c) < 0 && c == 1)
        break; /* and for every later t */
      if (acs__mip_row(&m->mip, -HUGE_VAL, 0) < 0)
        return ACS_ENOMEM;
      err = add_z(m, j, t, 1, &konst);
      if (err == ACS_OK)
        err = add_z(m, i, t - di, -1, &konst);
      m->mip.rhi[m->mip.nrows - 1] -= konst;
    }
  }
  return err;
}

/* Whether op j may be active at step t of horizon m->T. */
static int may_run(const struct tmodel *m, int32_t j, int64_t t)
{
  int64_t d = m->qp->q.dur[j];

  return d > 0 && t >= m->qp->head[j] && t < m->ls[j] + d;
}

/* Resource rows: sum_j r_j (z_{j,t} - z_{j,t-d_j}) <= C_r for every resource
 * and step where the ops that may run could exceed C_r. */
static int build_resources(struct tmodel *m)
{
  const struct acs_problem *pb = m->qp->pb;
  int err = ACS_OK;

  for (int r = 0; err == ACS_OK && r < pb->nres; r++)
    for (int64_t t = 0; err == ACS_OK && t < m->T; t++) {
      long double most = 0;
      double konst = 0;
      for (int32_t j = 0; j < pb->nops; j++)
        if (may_run(m, j, t))
          most += (long double)acs_problem_demand(pb, j, r);
      if (most <= (long double)pb->cap[r])
        continue;
      if (acs__mip_row(&m->mip, -HUGE_VAL, (double)pb->cap[r]) < 0)
        return ACS_ENOMEM;
      for (int32_t j = 0; err == ACS_OK && j < pb->nops; j++) {
        double rj = (double)acs_problem_demand(pb, j, r);
        if (rj <= 0 || !may_run(m, j, t))
          continue;
        err = add_z(m, j, t, rj, &konst);
        if (err == ACS_OK)
          err = add_z(m, j, t - m->qp->q.dur[j], -rj, &konst);
      }
      m->mip.rhi[m->mip.nrows - 1] -= konst;
    }
  return err;
}

/* ---- contiguous CMX (seed 3.1 / 3.2) ---------------------------------- */

/*
 * The seed's contiguous-resource program: x_{i,t,p} = 1 when op i starts at
 * t with its CMX range based at position p, and (3.2) at most one op uses a
 * position at any step. Two corrections to (3.1): its sum runs over
 * q in [min{0, p - r(v_i)}, p], which is always from 0 (min of 0 and a
 * number below p); the positions that cover p are q in
 * [max{0, p - r(v_i) + 1}, p], and a base q is only legal when the whole
 * range fits (q + r(v_i) <= k). And b_{i,t,p} must also sum over the starts
 * that keep i active at t (tau in (t - d_i, t]), not only the start at t.
 *
 * Positions are cells of `unit` bytes, a multiple of the CMX alignment
 * chosen so that there are at most cmx_slots cells: op i covers
 * ceil(bytes / unit) cells from its base, and may be based at cell p when
 * p unit + bytes <= capacity. With unit = alignment this is exact; a coarser
 * unit only forbids some placements (the result stays valid, an upper
 * bound). The x variables are linked to the cumulative ones by
 * sum_p x_{i,t,p} = z_{i,t} - z_{i,t-1}, so every other row is unchanged.
 * Size: sum over ops of window x positions columns, and each x appears in
 * d_i x cells rows of (3.2): small graphs only (max_vars).
 */
static void contiguous_cells(struct tmodel *m, int64_t slots)
{
  const struct acs_problem *pb = m->qp->pb;
  int64_t cap = pb->cap[pb->res_cmx], align = pb->plat.v[ACS_P_CMX_ALIGN_BYTES] >= 1
                                                  ? (int64_t)pb->plat.v[ACS_P_CMX_ALIGN_BYTES] : 1;
  int64_t per = cap / align / slots + (cap / align % slots != 0);

  m->unit = align * (per < 1 ? 1 : per);
  m->ncell = cap / m->unit + (cap % m->unit != 0);
  for (int32_t j = 0; j < pb->nops; j++) {
    int64_t b = acs_problem_demand(pb, j, pb->res_cmx);
    m->npos[j] = m->width[j] = 0;
    if (b <= 0 || m->qp->q.dur[j] == 0)
      continue;
    m->width[j] = b / m->unit + (b % m->unit != 0);
    m->npos[j] = (cap - b) / m->unit + 1;
  }
}

/* Estimated columns and nonzeros of the contiguous rows at T. */
static void contiguous_size(const struct tmodel *m, double *cols, double *nnz)
{
  *cols = *nnz = 0;
  for (int32_t j = 0; j < m->qp->pb->nops; j++) {
    double nx = (double)(m->ls[j] - m->qp->head[j] + 1) * (double)m->npos[j];
    *cols += nx;
    *nnz += nx * (double)m->qp->q.dur[j] * (double)m->width[j];
  }
}

static int build_x_links(struct tmodel *m)
{
  const struct qprob *qp = m->qp;
  int err = ACS_OK;

  for (int32_t j = 0; err == ACS_OK && j < qp->pb->nops; j++) {
    if (m->npos[j] == 0)
      continue;
    m->xcol[j] = m->mip.ncols;
    for (int64_t k = 0; k < (m->ls[j] - qp->head[j] + 1) * m->npos[j]; k++)
      if (acs__mip_col(&m->mip, 0, 1, 0, 1) < 0)
        return ACS_ENOMEM;
    for (int64_t t = qp->head[j]; err == ACS_OK && t <= m->ls[j]; t++) {
      double konst = 0;
      if (acs__mip_row(&m->mip, 0, 0) < 0)
        return ACS_ENOMEM;
      for (int64_t p = 0; err == ACS_OK && p < m->npos[j]; p++)
        err = acs__mip_coef(&m->mip, m->xcol[j] + (int32_t)((t - qp->head[j]) * m->npos[j] + p), 1);
      if (err == ACS_OK)
        err = add_z(m, j, t, -1, &konst);
      if (err == ACS_OK)
        err = add_z(m, j, t - 1, 1, &konst);
      m->mip.rlo[m->mip.nrows - 1] -= konst;
      m->mip.rhi[m->mip.nrows - 1] -= konst;
    }
  }
  return err;
}

/* (3.2) at step t, cell c: sum of x_{j,tau,q} with tau in (t - d_j, t] and q
 * in [c - w_j + 1, c] over every placed op, at most 1. */
static int build_cell_row(struct tmodel *m, int64_t t, int64_t c)
{
  const struct qprob *qp = m->qp;
  int32_t users = 0, row = -1;
  int err = ACS_OK;

  for (int32_t j = 0; j < qp->pb->nops; j++)
    users += m->npos[j] > 0 && may_run(m, j, t) && c - m->width[j] + 1 < m->npos[j];
  if (users < 2)
    return ACS_OK;
  for (int32_t j = 0; err == ACS_OK && j < qp->pb->nops; j++) {
    int64_t t0, t1, p0, p1;
    if (m->npos[j] == 0 || !may_run(m, j, t))
      continue;
    t0 = t - qp->q.dur[j] + 1 > qp->head[j] ? t - qp->q.dur[j] + 1 : qp->head[j];
    t1 = t < m->ls[j] ? t : m->ls[j];
    p0 = c - m->width[j] + 1 > 0 ? c - m->width[j] + 1 : 0;
    p1 = c < m->npos[j] - 1 ? c : m->npos[j] - 1;
    for (int64_t tau = t0; err == ACS_OK && tau <= t1; tau++)
      for (int64_t p = p0; err == ACS_OK && p <= p1; p++) {
        if (row < 0 && (row = acs__mip_row(&m->mip, -HUGE_VAL, 1)) < 0)
          return ACS_ENOMEM;
        err = acs__mip_coef(&m->mip, m->xcol[j] + (int32_t)((tau - qp->head[j]) * m->npos[j] + p), 1);
      }
  }
  return err;
}

static int build_contiguous(struct tmodel *m)
{
  int err = build_x_links(m);

  for (int64_t t = 0; err == ACS_OK && t < m->T; t++)
    for (int64_t c = 0; err == ACS_OK && c < m->ncell; c++)
      err = build_cell_row(m, t, c);
  return err;
}

/*
 * Builds the model for horizon T. Returns 1 when T is infeasible by the
 * windows alone, 2 when the model would exceed max_vars columns, 0 when
 * built, or a negative error.
 */
static int tmodel_build(struct tmodel *m, int64_t T, int64_t max_vars)
{
  int64_t nz;
  int err;

  acs__mip_clear(&m->mip);
  if (windows(m, T, &nz))
    return 1;
  if (m->contiguous) {
    double cols, nnz;
    contiguous_size(m, &cols, &nnz);
    if (cols + (double)nz > (double)max_vars || nnz > 50.0 * (double)max_vars)
      return 2;
  } else if (nz > max_vars) {
    return 2;
  }
  err = build_z(m);
  if (err == ACS_OK)
    err = build_precedence(m);
  if (err == ACS_OK)
    err = build_resources(m);
  if (err == ACS_OK && m->contiguous)
    err = build_contiguous(m);
  return err;
}

/* Step starts (and cells) from a solution. */
static void tmodel_decode(const struct tmodel *m, const double *x, int64_t *s, int64_t *cell)
{
  for (int32_t j = 0; j < m->qp->pb->nops; j++) {
    int64_t t = m->qp->head[j];
    while (t < m->ls[j] && x[m->zcol[j] + (t - m->qp->head[j])] < 0.5)
      t++;
    s[j] = t;
    cell[j] = -1;
    for (int64_t p = 0; p < m->npos[j]; p++)
      if (x[m->xcol[j] + (t - m->qp->head[j]) * m->npos[j] + p] > 0.5)
        cell[j] = p;
  }
}

/* ---- search ----------------------------------------------------------- */

struct ilp_run {
  const struct acs_problem *pb;
  const struct ilp_opts *o;
  double deadline;
  const volatile sig_atomic_t *interrupted; /* ctx->interrupted */
  struct qprob qp;
  struct tmodel m;
  int64_t lb, ub;          /* steps: proven bound, best makespan found */
  int64_t *best;           /* step starts of the best */
  int64_t *cell;           /* contiguous: cell of each op in the best (-1 none) */
  int have_cells;          /* cell[] belongs to best[] */
  int too_large, timed_out;
  int64_t models;          /* models solved */
};

/*
 * The LP phase of destructive improvement: raises lb while the LP
 * relaxation at horizon lb is infeasible. Cheap (no branching), and with
 * the disaggregated rows it refutes most horizons the MIP would.
 */
static int lp_bound(struct ilp_run *run, struct acs_diag *d)
{
  struct acs__mip_params p;
  int err = ACS_OK;

  acs__mip_params_init(&p);
  p.lp_only = 1;
  p.interrupted = run->interrupted;
  while (err == ACS_OK && run->lb < run->ub) {
    struct acs__mip_result r;
    int built = tmodel_build(&run->m, run->lb, run->o->max_vars);
    if (built < 0)
      return built;
    if (built == 1) {
      run->lb++;
      continue;
    }
    p.time_limit = run->deadline - acs_now_seconds();
    if (built == 2 || p.time_limit <= 0)
      break;
    err = acs__mip_solve(&run->m.mip, &p, &r, d);
    run->models++;
    free(r.x);
    if (err != ACS_OK || r.status != ACS__MIP_INFEASIBLE)
      break;
    run->lb++;
  }
  return err;
}

/*
 * Destructive improvement: decides T = lb, lb + 1, ... below ub. An
 * infeasible T raises lb; a feasible one is optimal (every smaller T was
 * refuted) and becomes the best. Stops at the deadline.
 */
static int search(struct ilp_run *run, struct acs_diag *d)
{
  struct acs__mip_params p;
  int64_t *cell = malloc(sizeof(int64_t) * ((size_t)run->pb->nops + 1));
  int err = cell ? ACS_OK : ACS_ENOMEM;

  acs__mip_params_init(&p);
  p.first_solution = 1; /* any schedule within the horizon is optimal */
  p.interrupted = run->interrupted;
  if (err == ACS_OK)
    err = lp_bound(run, d);
  while (err == ACS_OK && run->lb < run->ub) {
    struct acs__mip_result r;
    int built = tmodel_build(&run->m, run->lb, run->o->max_vars);
    if (built < 0) {
      err = built;
      break;
    }
    if (built == 1) {
      run->lb++;
      continue;
    }
    if (built == 2 && run->m.contiguous) {
      err = acs_diag_set(d, ACS_ERANGE, NULL, 0, 0,
                         "ilp: the contiguous model at horizon %lld steps would exceed "
                         "max_vars=%lld columns (or 50 x as many nonzeros); use a larger "
                         "time_step, fewer cmx_slots or contiguous=0",
                         (long long)run->lb, (long long)run->o->max_vars);
      break;
    }
    if (built == 2) {
      run->too_large = 1;
      break;
    }
    p.time_limit = run->deadline - acs_now_seconds();
    if (p.time_limit <= 0) {
      run->timed_out = 1;
      break;
    }
    err = acs__mip_solve(&run->m.mip, &p, &r, d);
    run->models++;
    if (err == ACS_OK && r.status == ACS__MIP_INFEASIBLE) {
      run->lb++;
    } else if (err == ACS_OK && r.x) {
      tmodel_decode(&run->m, r.x, run->best, cell);
      memcpy(run->cell, cell, sizeof(int64_t) * (size_t)run->pb->nops);
      run->have_cells = run->m.contiguous;
      run->ub = run->lb;
    } else if (err == ACS_OK) {
      run->timed_out = 1;
    }
    free(r.x);
    if (run->timed_out)
      break;
  }
  free(cell);
  return err;
}

/* ---- from steps to cycles --------------------------------------------- */

struct pos_key {
  int64_t s;
  int32_t pos, id;
};

static int cmp_pos_key(const void *a, const void *b)
{
  const struct pos_key *x = a, *y = b;

  if (x->s != y->s)
    return x->s < y->s ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * Cycle starts from step starts: a serial pass in the order of the step
 * starts (ties by topological position, so zero-length ops keep their
 * order) places each op at its earliest feasible cycle. Placing op j at
 * step * s_j is feasible (ops placed before it started no later in steps and
 * end no later in cycles), so no op starts later than its scaled step
 * start: the makespan is at most step times the step makespan.
 */
static int left_shift(const struct qprob *qp, const int64_t *s, int64_t *start)
{
  int32_t n = qp->pb->nops, *rank;
  struct pos_key *k;
  int err;

  k = acs__sched_array((size_t)n, sizeof(*k));
  rank = acs__sched_array((size_t)n, sizeof(*rank));
  err = k && rank ? ACS_OK : ACS_ENOMEM;
  for (int32_t v = 0; err == ACS_OK && v < n; v++)
    k[v] = (struct pos_key){ s[v], qp->pos[v], v };
  if (err == ACS_OK) {
    qsort(k, (size_t)n, sizeof(*k), cmp_pos_key);
    for (int32_t i = 0; i < n; i++)
      rank[k[i].id] = i;
    err = acs__serial_sgs(qp->pb, rank, start);
  }
  free(rank);
  free(k);
  return err;
}

/*
 * In the contiguous model an op holds its range for its own duration (the
 * seed's b_{i,t,p}): its working set, inputs included. Tensors do not stay
 * in CMX between ops, so the graph's data edges are orderings here; they
 * become control edges in the output, and the verifier's residency rule
 * (a producer's range held while its consumers run, the producer/consumer
 * model of the spill scheduler) does not apply.
 */
static int set_ranges(const struct tmodel *m, const int64_t *cell, struct acs_schedule *out)
{
  const struct acs_problem *pb = m->qp->pb;
  struct acs_ctrl_stats st;

  for (int32_t j = 0; j < pb->nops; j++) {
    struct acs_sop *o = &out->ops[j];
    if (cell[j] < 0)
      continue;
    o->cmx_offset = cell[j] * m->unit;
    o->cmx_bytes = acs_problem_demand(pb, j, pb->res_cmx);
    o->cmx_alloc = (double)o->start;
    o->cmx_free = (double)o->end;
  }
  for (int32_t e = 0; e < out->nedges; e++)
    out->edges[e].kind = ACS_EDGE_CONTROL;
  /* Ranges that reuse an address are ordered by control edges (seed 000,
   * control edge generation), as the spill scheduler does: the planned
   * times keep them apart, but the barrier pass re-times the plan and an
   * execution may shift it, and only edges survive both. */
  return acs__ctrl_edges_add(out, NULL, ACS__CTRL_REDUCE, &st);
}

/* ---- the variant ------------------------------------------------------- */

static int64_t auto_step(const struct ilp_opts *o, int64_t makespan)
{
  if (o->time_step > 0)
    return o->time_step;
  if (makespan <= o->max_steps)
    return 1;
  return makespan / o->max_steps + (makespan % o->max_steps != 0);
}

/* The incumbent in steps: the cycle heuristic when step is 1, else the
 * heuristic run on the quantized durations. */
static int step_incumbent(struct ilp_run *run, const int64_t *cyc, uint64_t seed,
                          const struct acs__stop *hstop, struct acs_diag *d)
{
  int err = ACS_OK;

  if (run->qp.step == 1)
    memcpy(run->best, cyc, sizeof(int64_t) * (size_t)run->pb->nops);
  else
    err = acs__list_heuristic(&run->qp.q, run->o->iterations, seed, hstop, run->best, d);
  run->ub = acs__sched_makespan(&run->qp.q, run->best);
  run->lb = acs_bound_best(&run->qp.q);
  return err;
}

/* Writes the result and its message; returns ACS_OK when proven optimal. */
static int finish(struct ilp_run *run, const int64_t *start, int64_t lb_cyc,
                  struct acs_schedule *out, struct acs_diag *d)
{
  int64_t mk = acs__sched_makespan(run->pb, start), step = run->qp.step;
  int err = acs__sched_emit(run->pb, start, out);
  double gap = lb_cyc > 0 ? 100.0 * (double)(mk - lb_cyc) / (double)lb_cyc : 0;
  char why[160] = "";

  if (err != ACS_OK)
    return err;
  /* The proven bound travels with the schedule, not only in the message,
   * so the run's lower_bound_cycles column shows it. */
  out->lower_bound = lb_cyc < mk ? lb_cyc : mk;
  if (run->have_cells && (err = set_ranges(&run->m, run->cell, out)) != ACS_OK)
    return err;
  if (run->too_large)
    snprintf(why, sizeof(why), "; the model at horizon %lld steps exceeds max_vars=%lld",
             (long long)run->lb, (long long)run->o->max_vars);
  if (mk <= lb_cyc) {
    acs_diag_msgf(d, "optimal: makespan %lld = lower bound (%lld models solved%s)", (long long)mk,
         (long long)run->models, step > 1 ? ", by the cycle bound" : "");
    return ACS_OK;
  }
  if (step > 1)
    acs_diag_msgf(d, "time step %lld cycles: step model %s %lld steps = %lld cycles (an upper bound), "
            "proven >= %lld steps; schedule %lld cycles, lower bound %lld cycles, gap %.2f%%%s",
         (long long)step, run->lb >= run->ub ? "optimum" : "best", (long long)run->ub,
         (long long)(run->ub * step), (long long)run->lb, (long long)mk, (long long)lb_cyc,
         gap, why);
  else
    acs_diag_msgf(d, "not proven optimal%s: makespan %lld, lower bound %lld, gap %.2f%%%s",
         run->timed_out ? " within the time limit" : "", (long long)mk, (long long)lb_cyc,
         gap, why);
  return ACS_ETIMEOUT;
}

/*
 * The contiguous search starts from a sequential schedule (topological
 * order, every range at cell 0), which always fits: the list heuristic's
 * schedule has no addresses and may admit none.
 */
static void contiguous_start(struct ilp_run *run, int64_t slots)
{
  const struct acs_graph *g = run->pb->g;
  int64_t t = 0;

  run->m.contiguous = 1;
  contiguous_cells(&run->m, slots);
  for (int32_t k = 0; k < g->nops; k++) {
    int32_t v = g->topo[k];
    run->best[v] = t;
    run->cell[v] = run->m.npos[v] > 0 ? 0 : -1;
    t += run->qp.q.dur[v];
  }
  run->have_cells = 1;
  run->ub = t;
  run->lb = acs_bound_best(&run->qp.q);
}

/*
 * A lower bound in cycles from the step model with durations rounded
 * down. Any cycle schedule of makespan M gives a schedule of that model
 * with makespan at most floor(M / step): start each op at floor(S / step);
 * precedence holds (floor(a) + floor(b) <= floor(a + b)), and the ops it
 * runs at step t all run at the cycle just before (t + 1) step in the cycle
 * schedule, so capacities hold. Hence the optimum is at least step times
 * the proven bound of that model, which destructive improvement on it gives
 * with the time left. O(one search).
 */
static int floor_bound(const struct ilp_run *up, int64_t *lb_cyc, struct acs_diag *d)
{
  struct ilp_run run = *up;
  int err;

  memset(&run.qp, 0, sizeof(run.qp));
  run.best = acs__sched_array((size_t)up->pb->nops, sizeof(int64_t));
  run.cell = acs__sched_array((size_t)up->pb->nops, sizeof(int64_t));
  err = run.best && run.cell ? qprob_init(&run.qp, up->pb, up->qp.step, 0) : ACS_ENOMEM;
  if (err == ACS_OK)
    err = tmodel_init(&run.m, &run.qp);
  if (err == ACS_OK) {
    run.m.contiguous = 0;
    run.have_cells = run.too_large = run.timed_out = 0;
    run.lb = acs_bound_best(&run.qp.q);
    run.ub = up->ub; /* the round-up optimum bounds the round-down one */
    err = search(&run, d);
    if (err == ACS_OK && run.lb * up->qp.step > *lb_cyc)
      *lb_cyc = run.lb * up->qp.step;
  }
  tmodel_destroy(&run.m);
  qprob_destroy(&run.qp);
  free(run.best);
  free(run.cell);
  return err;
}

static int ilp_solve(struct ilp_run *run, int64_t *cyc, struct acs_schedule *out,
                     struct acs_diag *d)
{
  int64_t *start, lb_cyc = acs_bound_best(run->pb);
  int err;

  start = acs__sched_array((size_t)run->pb->nops, sizeof(*start));
  if (!start)
    return ACS_ENOMEM;
  /* With steps, the bound in cycles comes from a second model: it gets
   * 40% of the time. */
  if (run->qp.step > 1 && !run->m.contiguous) {
    double end = run->deadline;
    run->deadline = acs_now_seconds() + 0.6 * (end - acs_now_seconds());
    err = search(run, d);
    run->deadline = end;
    if (err == ACS_OK && acs_now_seconds() < end)
      err = floor_bound(run, &lb_cyc, d);
  } else {
    err = search(run, d);
  }
  if (err == ACS_OK && run->qp.step == 1 && run->lb > lb_cyc)
    lb_cyc = run->lb;
  if (err == ACS_OK) {
    if (run->have_cells) {
      /* Scaled, not shifted: a shift would not see address conflicts. */
      for (int32_t j = 0; j < run->pb->nops; j++)
        start[j] = run->best[j] * run->qp.step;
    } else {
      err = left_shift(&run->qp, run->best, start);
    }
  }
  if (err == ACS_OK && !run->have_cells &&
      acs__sched_makespan(run->pb, cyc) < acs__sched_makespan(run->pb, start))
    memcpy(start, cyc, sizeof(*start) * (size_t)run->pb->nops);
  if (err == ACS_OK)
    err = finish(run, start, lb_cyc, out, d);
  free(start);
  return err;
}

static int ilp_schedule(const struct acs_problem *pb, const void *opts,
                        const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                        struct acs_diag *d)
{
  const struct ilp_opts *o = opts;
  struct acs__exact_stops stops = acs__exact_stops_make(ctx, ILP_DEFAULT_LIMIT);
  uint64_t seed = ctx ? ctx->seed : 1;
  struct ilp_run run;
  int64_t *cyc;
  int err;

  if ((err = acs__sched_precheck(pb, d)) != ACS_OK)
    return err;
  if (o->contiguous && pb->res_cmx < 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                        "ilp: contiguous=1 needs a CMX resource; this workload has none");
  memset(&run, 0, sizeof(run));
  run.pb = pb;
  run.o = o;
  run.deadline = stops.deadline;
  run.interrupted = stops.incumbent.interrupted;
  cyc = acs__sched_array((size_t)pb->nops, sizeof(*cyc));
  run.best = acs__sched_array((size_t)pb->nops, sizeof(int64_t));
  run.cell = acs__sched_array((size_t)pb->nops, sizeof(int64_t));
  if (!cyc || !run.best || !run.cell) {
    err = ACS_ENOMEM;
    goto out_with_arrays;
  }
  err = acs__list_heuristic(pb, o->iterations, seed, &stops.incumbent, cyc, d);
  if (err != ACS_OK)
    goto out_with_arrays;
  if (acs__sched_makespan(pb, cyc) <= acs_bound_best(pb) && !o->contiguous) {
    err = acs__sched_emit(pb, cyc, out);
    out->lower_bound = acs__sched_makespan(pb, cyc);
    if (err == ACS_OK)
      acs_diag_msgf(d, "optimal: the heuristic makespan %lld equals the lower bound",
           (long long)out->lower_bound);
    goto out_with_arrays;
  }
  err = qprob_init(&run.qp, pb, auto_step(o, acs__sched_makespan(pb, cyc)), 1);
  if (err != ACS_OK)
    goto out_with_arrays;
  err = tmodel_init(&run.m, &run.qp);
  if (err == ACS_OK && o->contiguous)
    contiguous_start(&run, o->cmx_slots);
  else if (err == ACS_OK)
    err = step_incumbent(&run, cyc, seed, &stops.incumbent, d);
  if (err == ACS_OK)
    err = ilp_solve(&run, cyc, out, d);
  tmodel_destroy(&run.m);
  qprob_destroy(&run.qp);
out_with_arrays:
  free(run.cell);
  free(run.best);
  free(cyc);
  return err;
}

static const struct acs_opt_desc ilp_opts_desc[] = {
  ACS_OPT_INT_FIELD(struct ilp_opts, time_step, "0", 0, 1e15,
    "cycles per time step; durations round up to whole steps (0 = automatic: the "
    "smallest step that puts the heuristic makespan within max_steps steps)"),
  ACS_OPT_INT_FIELD(struct ilp_opts, max_steps, "400", 10, 100000,
    "automatic time step: the heuristic makespan spans at most this many steps (rounding "
    "durations up can make the step schedule longer)"),
  ACS_OPT_INT_FIELD(struct ilp_opts, contiguous, "0", 0, 1,
    "1: contiguous CMX addresses (seed constraints 3.1/3.2, x_{i,t,p}); small graphs only"),
  ACS_OPT_INT_FIELD(struct ilp_opts, cmx_slots, "32", 1, 4096,
    "contiguous: CMX positions at most (cells of a multiple of cmx_align_bytes)"),
  ACS__OPT_INCUMBENT_ITERATIONS(struct ilp_opts),
  ACS_OPT_INT_FIELD(struct ilp_opts, max_vars, "300000", 100, 1e9,
    "model size limit in columns; a larger model stops the search with the incumbent "
    "(contiguous=1: an error)"),
  ACS_OPT_END,
};

const struct acs_sched_ops acs_sched_ilp = {
  .name = "ilp",
  .memory_model = ACS_MEM_TRANSIENT, /* the time-indexed program charges CMX per running op, as list does */
  .seed = ACS_SEED_KUNDETI,
  .summary = "time-indexed 0-1 program (GLPK): optimal schedules proven by destructive "
             "bounding from the lower bound; the list scheduler's best is the incumbent",
  .kinds = ACS_KINDS_OPGRAPH,
  ACS_SCHED_OPTS(struct ilp_opts, ilp_opts_desc),
  .proves = 1,
  .searches = 1,
  .schedule = ilp_schedule,
};
