/*
 * exact.c - does a modulo schedule exist at II? An integer program with II
 * fixed per candidate (as Oppermann's Moovac does), made small by the
 * structure of the dependence graph:
 *
 *  - Edges between different strongly connected components never decide
 *    feasibility: in a topological order of the components, each one can
 *    be shifted by a multiple of II until its incoming edges hold, which
 *    changes no residue. So only edges inside cyclic components are
 *    constraints, an op outside every cycle only needs a residue, and an op
 *    of an unlimited class outside every cycle needs nothing at all. A
 *    cyclic component without limited ops needs no variable either (its
 *    longest paths from an anchor are a valid relative schedule).
 *  - Inside a cyclic component with anchor a (fixed at start 0 for the
 *    first component with limited ops, in [0, II) for the others: a shift
 *    by II changes nothing), op i starts in [LP(a, i), -LP(i, a)] (plus the
 *    anchor's range), LP being longest paths at II over the component's
 *    edges: a window of its slack, small near RecMII.
 *
 * The main model (build_step, below) then eliminates the unlimited ops and
 * uses step variables with disaggregated precedence; its solution gives
 * residues, and acs__mstate_compact makes the schedule. When a class has
 * several units and blocking times above 1 (the unit must be chosen by the
 * program), or under a stage cap (shifting by II is not free: every op gets
 * a window [ASAP_i, S II - 1 - tail_i] and every edge counts), the program is
 * the time-indexed one of build():
 *
 *   x[i][tau] in {0,1}  op i of a limited class starts at tau in its window
 *                       (x[i][tau][u] when the class needs unit variables)
 *   t_i integer         an op of an unlimited class with a window
 *
 *   sum_tau x[i][tau] = 1                              one start each
 *   sum over ops i of class c and starts tau with
 *     (rho - tau) mod II < occ_i of x[i][tau] <= units_c   per residue rho
 *     (<= 1 per unit and residue with unit variables)
 *   t_j - t_i >= w_e - d_e II                          every edge that counts
 *
 * with t_i = sum_tau tau x[i][tau] for limited ops. No objective: any
 * solution proves II feasible.
 *
 * Size: sum over limited ops of their window (times units with unit
 * variables) binaries, II * classes (or units) + E + V rows.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/ilpmodel.h"
#include "core/sched/modulo/modulo_int.h"

/* Longest paths at II from `src` (forward) or to it (backward) over the
 * edges inside component `scc`; INT64_MIN where unreachable. 1 when a
 * positive cycle exists. Bellman-Ford restricted to the component: O(V E). */
static int comp_paths(const struct acs_msp *m, int64_t ii, int32_t src, int backward,
                      int64_t *val, int32_t *queue, char *inq)
{
  int32_t scc = m->scc[src], head = 0, size = 0, cap = m->n > 0 ? m->n : 1;
  int64_t rounds = 0, limit = (int64_t)m->n * (int64_t)(m->m + 1) + 1;

  for (int32_t i = 0; i < m->n; i++) {
    val[i] = INT64_MIN;
    inq[i] = 0;
  }
  val[src] = 0;
  queue[size++] = src;
  inq[src] = 1;
  while (size > 0) {
    int32_t v = queue[head];
    const int32_t *off = backward ? m->in_off : m->out_off, *ids = backward ? m->in : m->out;
    head = (head + 1) % cap;
    size--;
    inq[v] = 0;
    if (++rounds > limit)
      return 1;
    for (int32_t k = off[v]; k < off[v + 1]; k++) {
      int32_t e = ids[k], u = backward ? m->src[e] : m->dst[e];
      int64_t cand;
      if (m->scc[u] != scc)
        continue;
      cand = val[v] + m->w[e] - m->dist[e] * ii;
      if (cand <= val[u])
        continue;
      if (u == src)
        return 1; /* a positive cycle through src */
      val[u] = cand;
      if (!inq[u]) {
        queue[(head + size) % cap] = u;
        size++;
        inq[u] = 1;
      }
    }
  }
  return 0;
}

struct model {
  struct acs__mip mip;
  int64_t *lo, *hi;     /* per op: start window; hi < lo: no variable */
  int32_t *col;         /* per op: first x column (limited) or the t column, -1 none */
  int32_t *ny;          /* per op: units chosen by variables (1: by count) */
  char *edge_on;        /* per edge: a constraint of the program */
  char *fixed;          /* per op: start fixed at lo, no variable */
};

static int unit_vars(const struct acs_msp *m, int32_t c, int64_t occ)
{
  return m->units[c] > 1 && occ > 1;
}

static int limited(const struct acs_msp *m, int32_t i)
{
  return m->units[m->cls[i]] != ACS_LOOP_UNLIMITED;
}

/* Whether some op's class needs unit variables (the step model has none). */
static int any_unit_vars(const struct acs_msp *m)
{
  for (int32_t i = 0; i < m->n; i++)
    if (limited(m, i) && unit_vars(m, m->cls[i], m->occ[i]))
      return 1;
  return 0;
}

/*
 * Windows for the decomposition (see top). Returns 0 when some component
 * has a positive cycle at II (infeasible), 1 otherwise.
 */
static int windows_decomposed(const struct acs_msp *m, int64_t ii, struct model *x)
{
  size_t n = (size_t)m->n + 1;
  int64_t *fw = malloc(n * sizeof(*fw)), *bw = malloc(n * sizeof(*bw));
  int32_t *anchor = malloc(((size_t)m->nscc + 1) * sizeof(*anchor)), *queue = malloc(n * 4);
  char *inq = malloc(n);
  int rc = 1, fixed = 0;

  if (!fw || !bw || !anchor || !queue || !inq) {
    rc = ACS_ENOMEM;
    goto out;
  }
  /* The anchor of a component: its first limited op, else its first op. */
  for (int32_t c = 0; c < m->nscc; c++)
    anchor[c] = -1;
  for (int32_t i = 0; i < m->n; i++) {
    int32_t c = m->scc[i];
    if (anchor[c] < 0 || (!limited(m, anchor[c]) && limited(m, i)))
      anchor[c] = i;
  }
  for (int32_t i = 0; i < m->m; i++)
    x->edge_on[i] = m->scc[m->src[i]] == m->scc[m->dst[i]] && m->scc_cyclic[m->scc[m->src[i]]] &&
                    m->src[i] != m->dst[i];
  for (int32_t i = 0; i < m->n; i++) {
    x->lo[i] = 0;
    x->hi[i] = limited(m, i) ? ii - 1 : -1; /* acyclic: a residue, or nothing */
    x->fixed[i] = 0;
  }
  /* Components from the last (a source of the condensation) down, so the
   * fixed one is deterministic. */
  for (int32_t c = m->nscc - 1; c >= 0 && rc == 1; c--) {
    int32_t a = anchor[c];
    int rot;
    if (!m->scc_cyclic[c])
      continue;
    if (comp_paths(m, ii, a, 0, fw, queue, inq) || comp_paths(m, ii, a, 1, bw, queue, inq)) {
      rc = 0;
      break;
    }
    /* A component without limited ops uses no unit: its longest paths
     * from the anchor are a valid relative schedule, fixed (no variable).
     * Of the others, the first is fixed at its anchor and the rest rotate. */
    if (!limited(m, a)) {
      for (int32_t i = 0; i < m->n; i++)
        if (m->scc[i] == c) {
          x->lo[i] = x->hi[i] = fw[i];
          x->fixed[i] = 1;
        }
      continue;
    }
    rot = fixed ? (int)(ii - 1) : 0;
    fixed = 1;
    for (int32_t i = 0; i < m->n; i++)
      if (m->scc[i] == c) {
        x->lo[i] = fw[i];
        x->hi[i] = -bw[i] + rot;
        if (x->hi[i] < x->lo[i])
          rc = 0;
      }
  }
out:
  free(fw), free(bw), free(anchor), free(queue), free(inq);
  return rc;
}

/* Windows with a stage cap: [ASAP_i, S II - 1 - tail_i], every edge. */
static int windows_capped(const struct acs_msp *m, int64_t ii, struct model *x)
{
  size_t n = (size_t)m->n + 1;
  int64_t *asap = malloc(n * sizeof(*asap)), *tail = malloc(n * sizeof(*tail));
  int64_t horizon = m->max_stages * ii - 1;
  int rc = 1;

  if (!asap || !tail) {
    free(asap), free(tail);
    return ACS_ENOMEM;
  }
  if (acs__msp_asap(m, ii, asap) != 0 || acs__msp_height(m, ii, tail) != 0) {
    free(asap), free(tail);
    return 0;
  }
  for (int32_t i = 0; i < m->n; i++) {
    /* The longest chain after i's start: its height minus the latency of
     * the chain's last op; at least 0. */
    int64_t after = 0;
    for (int32_t k = m->out_off[i]; k < m->out_off[i + 1]; k++) {
      int32_t e = m->out[k], j = m->dst[e];
      int64_t v = m->w[e] - m->dist[e] * ii + tail[j] - m->lat[j];
      if (j != i && v > after)
        after = v;
    }
    x->lo[i] = asap[i];
    x->hi[i] = horizon - after;
    x->fixed[i] = 0;
    if (x->hi[i] < x->lo[i])
      rc = 0;
  }
  for (int32_t e = 0; e < m->m; e++)
    x->edge_on[e] = m->src[e] != m->dst[e];
  free(asap), free(tail);
  return rc;
}

/* Adds sign * t_i to the open row. */
static int add_t(struct model *x, const struct acs_msp *m, int32_t i, double sign)
{
  int64_t width = x->hi[i] - x->lo[i] + 1;

  if (!limited(m, i))
    return acs__mip_coef(&x->mip, x->col[i], sign);
  for (int64_t k = 0; k < width; k++)
    for (int32_t u = 0; u < x->ny[i]; u++) {
      double tau = (double)(x->lo[i] + k);
      int err;
      if (tau != 0 &&
          (err = acs__mip_coef(&x->mip, x->col[i] + (int32_t)(k * x->ny[i] + u), sign * tau)) < 0)
        return err;
    }
  return ACS_OK;
}

/*
 * The open row of resource_rows: residue rho at II, the blocking time occ of
 * the row's class and the unit u (0 without unit variables).
 */
struct res_row {
  int32_t row;
  int64_t ii, rho, occ, u;
};

/*
 * The resource rows of both programs, built by one loop so that they
 * count the same starts: per limited class (and per unit, when
 * `unit_rows` and the class needs unit variables) and residue rho in
 * [0, II), a row <= the class's units (1 per unit), to which op() adds
 * each op of the class that has columns. The programs differ only in how
 * an op's starts tau that cover rho, (rho - tau) mod II < occ, enter it.
 */
static int resource_rows(struct model *x, const struct acs_msp *m, int64_t ii, int unit_rows,
                         int (*op)(struct model *x, int32_t i, const struct res_row *r,
                                   void *arg),
                         void *arg)
{
  int err = ACS_OK;

  for (int32_t c = 0; c < m->nclasses && err == ACS_OK; c++) {
    int64_t units = m->units[c], occ = acs_loop_blocking(m->loop, c, units);
    int uv = unit_rows && unit_vars(m, c, occ);
    struct res_row r = {-1, ii, 0, occ, 0};
    if (occ == 0)
      continue; /* unlimited */
    for (r.u = 0; r.u < (uv ? units : 1) && err == ACS_OK; r.u++)
      for (r.rho = 0; r.rho < ii && err == ACS_OK; r.rho++) {
        if ((r.row = acs__mip_row(&x->mip, -HUGE_VAL, uv ? 1.0 : (double)units)) < 0)
          return r.row;
        for (int32_t i = 0; i < m->n && err == ACS_OK; i++)
          if (m->cls[i] == c && x->col[i] >= 0)
            err = op(x, i, &r, arg);
      }
  }
  return err;
}

/* build()'s resource terms: x[i][tau] (x[i][tau][u] with unit variables)
 * for each start tau of op i that covers the row's residue. */
static int time_starts(struct model *x, int32_t i, const struct res_row *r, void *arg)
{
  int err = ACS_OK;

  (void)arg;
  for (int64_t k = 0; k < x->hi[i] - x->lo[i] + 1 && err == ACS_OK; k++)
    if (acs_mod_i64(r->rho - (x->lo[i] + k), r->ii) < r->occ)
      err = acs__mip_coef(&x->mip, x->col[i] + (int32_t)(k * x->ny[i] + r->u), 1);
  return err;
}

static int build(struct model *x, const struct acs_msp *m, int64_t ii)
{
  struct acs__mip *p = &x->mip;
  int err = ACS_OK;

  for (int32_t i = 0; i < m->n && err == ACS_OK; i++) {
    int32_t c = m->cls[i];
    int64_t width = x->hi[i] - x->lo[i] + 1;
    x->col[i] = -1;
    x->ny[i] = 1;
    if (width <= 0 || x->fixed[i])
      continue;
    if (!limited(m, i)) {
      x->col[i] = acs__mip_col(p, (double)x->lo[i], (double)x->hi[i], 0, 1);
      err = x->col[i] < 0 ? x->col[i] : ACS_OK;
      continue;
    }
    x->ny[i] = unit_vars(m, c, m->occ[i]) ? (int32_t)m->units[c] : 1;
    x->col[i] = p->ncols;
    for (int64_t k = 0; k < width * x->ny[i] && err == ACS_OK; k++)
      if (acs__mip_col(p, 0, 1, 0, 1) < 0)
        err = ACS_ENOMEM;
    if (err == ACS_OK && (err = acs__mip_row(p, 1, 1)) >= 0) {
      err = ACS_OK;
      for (int64_t k = 0; k < width * x->ny[i] && err == ACS_OK; k++)
        err = acs__mip_coef(p, x->col[i] + (int32_t)k, 1);
    }
  }
  /* Resources: per class (or unit) and residue, every start of every op
   * whose footprint covers the residue. */
  if (err == ACS_OK)
    err = resource_rows(x, m, ii, 1, time_starts, NULL);
  for (int32_t e = 0; e < m->m && err == ACS_OK; e++) {
    if (!x->edge_on[e] || x->fixed[m->src[e]])
      continue; /* a fixed component's longest paths satisfy its edges */
    if ((err = acs__mip_row(p, (double)(m->w[e] - m->dist[e] * ii), HUGE_VAL)) < 0)
      break;
    if ((err = add_t(x, m, m->dst[e], 1)) == ACS_OK)
      err = add_t(x, m, m->src[e], -1);
  }
  return err < 0 ? err : ACS_OK;
}

/* The ops of unit -2, of classes without unit variables (blocking 1, or one
 * unit): per residue, the lowest unit not taken by an op placed before in op
 * order. */
static void units_by_residue(const struct acs_msp *m, int64_t ii, const int64_t *t,
                             int32_t *unit)
{
  for (int32_t i = 0; i < m->n; i++) {
    int32_t next = 0;
    if (unit[i] != -2)
      continue;
    for (int32_t j = 0; j < i; j++)
      if (m->cls[j] == m->cls[i] && unit[j] >= 0 &&
          acs_mod_i64(t[j] - t[i], ii) < m->occ[j] && unit[j] + 1 > next)
        next = unit[j] + 1;
    unit[i] = next;
  }
}

/* Starts (relative to the windows) and units of the program's ops. */
static void read_solution(const struct model *x, const struct acs_msp *m, int64_t ii,
                          const double *v, int64_t *t, int32_t *unit)
{
  for (int32_t i = 0; i < m->n; i++) {
    unit[i] = -1;
    t[i] = x->fixed[i] ? x->lo[i] : ACS_MSP_NONE;
    if (x->col[i] < 0)
      continue;
    if (!limited(m, i)) {
      t[i] = (int64_t)llround(v[x->col[i]]);
      continue;
    }
    for (int64_t k = 0; k < x->hi[i] - x->lo[i] + 1; k++)
      for (int32_t u = 0; u < x->ny[i]; u++)
        if (v[x->col[i] + k * x->ny[i] + u] > 0.5) {
          t[i] = x->lo[i] + k;
          unit[i] = x->ny[i] > 1 ? u : -2; /* -2: chosen below by residue */
        }
  }
  units_by_residue(m, ii, t, unit);
}

/* ---- the step model of the decomposition ---- */

/*
 * Without a stage cap the program needs only the limited ops: an op of an
 * unlimited class only passes constraints on, so it is eliminated
 * (Fourier-Motzkin on difference constraints): a path from limited op i to
 * limited op j through unlimited ops of i's component becomes the edge
 * t_j - t_i >= its length at II, the longest per pair. Each limited op
 * then has step variables z[i][tau] = 1 when it has started by tau, for tau
 * in [lo_i, hi_i - 1] (0 before, 1 from hi_i on), nondecreasing in tau:
 *
 *   start_i = tau  <=>  z[i][tau] - z[i][tau-1] = 1,
 *   edge i -> j, lag c:  z[j][tau] <= z[i][tau - c]  for every tau,
 *
 * the disaggregated precedence of Pritsker et al., whose LP relaxation is
 * much tighter than t_j - t_i >= c on aggregated starts, and still two
 * terms per row. The schedule is then completed from the residues by
 * acs__mstate_compact. Derived edges cost a longest-path search per limited
 * op over its component: O(L V E) worst case.
 */
struct dedge {
  int32_t src, dst;
  int64_t lag;
};

struct dedges {
  struct dedge *v;
  size_t n, cap;
};

/* Derived edges from limited op src over its component (see above); 0 on
 * a positive cycle through src (infeasible at II), 1 otherwise. */
static int derive_from(const struct acs_msp *m, int64_t ii, int32_t src, int64_t *val,
                       int32_t *touched, int32_t *queue, char *inq, struct dedges *out)
{
  int32_t scc = m->scc[src], head = 0, size = 0, nt = 0, cap = m->n > 0 ? m->n : 1;
  int64_t steps = 0, limit = (int64_t)m->n * (int64_t)(m->m + 1) + 1;
  int rc = 1;

  val[src] = 0;
  touched[nt++] = src;
  queue[size++] = src;
  inq[src] = 1;
  while (size > 0 && rc == 1) {
    int32_t v = queue[head];
    head = (head + 1) % cap;
    size--;
    inq[v] = 0;
    if (++steps > limit) {
      rc = 0;
      break;
    }
    for (int32_t k = m->out_off[v]; k < m->out_off[v + 1]; k++) {
      int32_t e = m->out[k], u = m->dst[e];
      int64_t cand = val[v] + m->w[e] - m->dist[e] * ii;
      if (m->scc[u] != scc)
        continue;
      if (val[u] == INT64_MIN)
        touched[nt++] = u;
      else if (cand <= val[u])
        continue;
      val[u] = cand;
      if (u == src) {
        rc = cand > 0 ? 0 : 1; /* a cycle back to src: it must not gain */
        continue;
      }
      if (limited(m, u) || inq[u])
        continue; /* limited ops end a path; they are not expanded */
      queue[(head + size) % cap] = u;
      size++;
      inq[u] = 1;
    }
  }
  for (int32_t k = 0; k < nt && rc == 1; k++) {
    int32_t u = touched[k];
    if (u == src || !limited(m, u))
      continue;
    if (acs_grow((void **)&out->v, sizeof(*out->v), &out->cap, out->n + 1) < 0) {
      rc = ACS_ENOMEM;
      break;
    }
    out->v[out->n++] = (struct dedge){src, u, val[u]};
  }
  for (int32_t k = 0; k < nt; k++) {
    val[touched[k]] = INT64_MIN;
    inq[touched[k]] = 0;
  }
  return rc;
}

static int derive_edges(const struct acs_msp *m, int64_t ii, const struct model *x,
                        struct dedges *out)
{
  size_t n = (size_t)m->n + 1;
  int64_t *val = malloc(n * sizeof(*val));
  int32_t *touched = malloc(n * sizeof(*touched)), *queue = malloc(n * sizeof(*queue));
  char *inq = calloc(n, 1);
  int rc = 1;

  if (!val || !touched || !queue || !inq) {
    rc = ACS_ENOMEM;
    goto out;
  }
  for (int32_t i = 0; i < m->n; i++)
    val[i] = INT64_MIN;
  for (int32_t i = 0; i < m->n && rc == 1; i++)
    if (limited(m, i) && m->scc_cyclic[m->scc[i]] && !x->fixed[i])
      rc = derive_from(m, ii, i, val, touched, queue, inq, out);
out:
  free(val), free(touched), free(queue), free(inq);
  return rc;
}

/* Z(i, s): the column of z[i][s], or -1 for the constant 0 (s < lo_i) or
 * -2 for the constant 1 (s >= hi_i). */
static int32_t zcol(const struct model *x, int32_t i, int64_t s)
{
  if (s < x->lo[i])
    return -1;
  if (s >= x->hi[i])
    return -2;
  return x->col[i] + (int32_t)(s - x->lo[i]);
}

/* Adds a * (z(tau) - z(tau - 1)) for op i to coef[] (indexed from lo_i)
 * and its constants to *rhs_shift (to be subtracted from the bound). */
static void add_start(const struct model *x, int32_t i, int64_t tau, double a, double *coef,
                      double *konst)
{
  int32_t c1 = zcol(x, i, tau), c0 = zcol(x, i, tau - 1);

  if (c1 >= 0)
    coef[tau - x->lo[i]] += a;
  else if (c1 == -2)
    *konst += a;
  if (c0 >= 0)
    coef[tau - 1 - x->lo[i]] -= a;
  else if (c0 == -2)
    *konst -= a;
}

static int emit(struct acs__mip *p, const struct model *x, int32_t i, double *coef)
{
  int err = ACS_OK;

  for (int64_t k = 0; k < x->hi[i] - x->lo[i] && err == ACS_OK; k++)
    if (coef[k] != 0) {
      err = acs__mip_coef(p, x->col[i] + (int32_t)k, coef[k]);
      coef[k] = 0;
    }
  return err;
}

/* build_step()'s resource terms: z(tau) - z(tau - 1) for each start tau
 * of op i that covers the row's residue, through coef[] (wmax + 1 zeros,
 * left zero); the constant parts move to the row's bound. */
static int step_starts(struct model *x, int32_t i, const struct res_row *r, void *arg)
{
  double *coef = arg, konst = 0;

  for (int64_t tau = x->lo[i]; tau <= x->hi[i]; tau++)
    if (acs_mod_i64(r->rho - tau, r->ii) < r->occ)
      add_start(x, i, tau, 1, coef, &konst);
  x->mip.rhi[r->row] -= konst;
  return emit(&x->mip, x, i, coef);
}

static int build_step(struct model *x, const struct acs_msp *m, int64_t ii,
                      const struct dedges *de)
{
  struct acs__mip *p = &x->mip;
  int64_t wmax = 1;
  double *coef;
  int err = ACS_OK;

  for (int32_t i = 0; i < m->n; i++) {
    x->col[i] = -1;
    x->ny[i] = 1;
    if (!limited(m, i) || x->fixed[i])
      continue;
    if (x->hi[i] - x->lo[i] + 1 > wmax)
      wmax = x->hi[i] - x->lo[i] + 1;
    x->col[i] = p->ncols;
    for (int64_t k = 0; k < x->hi[i] - x->lo[i] && err == ACS_OK; k++)
      if (acs__mip_col(p, 0, 1, 0, 1) < 0)
        err = ACS_ENOMEM;
    for (int64_t k = 1; k < x->hi[i] - x->lo[i] && err == ACS_OK; k++)
      if ((err = acs__mip_row(p, -HUGE_VAL, 0)) >= 0 &&
          (err = acs__mip_coef(p, x->col[i] + (int32_t)k - 1, 1)) == ACS_OK)
        err = acs__mip_coef(p, x->col[i] + (int32_t)k, -1);
  }
  if (err < 0)
    return err;
  /* Precedence, disaggregated. */
  for (size_t k = 0; k < de->n && err == ACS_OK; k++) {
    int32_t i = de->v[k].src, j = de->v[k].dst;
    for (int64_t tau = x->lo[j]; tau <= x->hi[j] && err == ACS_OK; tau++) {
      int32_t cj = zcol(x, j, tau), ci = zcol(x, i, tau - de->v[k].lag);
      if (ci == -2)
        continue;          /* i has surely started */
      if (ci == -1) {      /* i cannot have started: neither can j */
        if (cj == -2)
          return 0;
        p->cub[cj] = 0;
        continue;
      }
      if (cj == -2) {      /* j has surely started by tau: so has i */
        p->clb[ci] = 1;
        continue;
      }
      if ((err = acs__mip_row(p, -HUGE_VAL, 0)) >= 0 &&
          (err = acs__mip_coef(p, cj, 1)) == ACS_OK)
        err = acs__mip_coef(p, ci, -1);
    }
  }
  if (err < 0)
    return err;
  /* Resources: per class and residue, counting every start whose
   * footprint covers the residue. */
  if (!(coef = calloc((size_t)wmax + 1, sizeof(*coef))))
    return ACS_ENOMEM;
  err = resource_rows(x, m, ii, 0, step_starts, coef);
  free(coef);
  return err < 0 ? err : 1;
}

/* The start of each limited op, the unit by residue (units are
 * interchangeable: blocking 1, or one unit), then the whole schedule from
 * those residues. */
static int read_step(const struct model *x, const struct acs_msp *m, int64_t ii, const double *v,
                     int64_t *t, int32_t *unit)
{
  struct acs_mstate tmp;

  for (int32_t i = 0; i < m->n; i++) {
    unit[i] = -1;
    t[i] = 0;
    if (!limited(m, i))
      continue;
    if (x->fixed[i] || x->col[i] < 0) {
      t[i] = x->lo[i];
    } else {
      t[i] = x->hi[i];
      for (int64_t k = x->hi[i] - x->lo[i] - 1; k >= 0; k--)
        if (v[x->col[i] + k] > 0.5)
          t[i] = x->lo[i] + k;
    }
    unit[i] = -2;
  }
  units_by_residue(m, ii, t, unit);
  memset(&tmp, 0, sizeof(tmp));
  tmp.ii = ii;
  tmp.t = t;
  tmp.unit = unit;
  return acs__mstate_compact(&tmp, m) == 0 ? 1 : ACS_EINVAL;
}

int acs__exact_feasible(const struct acs_msp *m, int64_t ii, double deadline,
                        const volatile sig_atomic_t *intr, int64_t *t, int32_t *unit)
{
  size_t n = (size_t)m->n + 1;
  struct acs__mip_params prm;
  struct acs__mip_result res;
  struct acs_diag d;
  struct model x;
  struct dedges de = {NULL, 0, 0};
  int step = m->max_stages <= 0 && !any_unit_vars(m), rc;

  memset(&x, 0, sizeof(x));
  memset(&res, 0, sizeof(res));
  acs__mip_init(&x.mip);
  x.lo = malloc(n * sizeof(*x.lo));
  x.hi = malloc(n * sizeof(*x.hi));
  x.col = malloc(n * sizeof(*x.col));
  x.ny = malloc(n * sizeof(*x.ny));
  x.edge_on = malloc((size_t)m->m + 1);
  x.fixed = malloc(n);
  if (!x.lo || !x.hi || !x.col || !x.ny || !x.edge_on || !x.fixed) {
    rc = ACS_ENOMEM;
    goto out;
  }
  rc = m->max_stages <= 0 ? windows_decomposed(m, ii, &x) : windows_capped(m, ii, &x);
  if (rc <= 0)
    goto out; /* a positive cycle or an empty window: infeasible */
  if (step && (rc = derive_edges(m, ii, &x, &de)) <= 0)
    goto out;
  rc = step ? build_step(&x, m, ii, &de) : build(&x, m, ii);
  if (rc <= 0)
    goto out;
  acs__mip_params_init(&prm);
  prm.first_solution = 1;
  prm.interrupted = intr;
  if (deadline > 0) {
    prm.time_limit = deadline - acs_now_seconds();
    if (prm.time_limit <= 0) {
      rc = ACS_ETIMEOUT;
      goto out;
    }
  }
  acs_diag_init(&d);
  if ((rc = acs__mip_solve(&x.mip, &prm, &res, &d)) < 0)
    goto out;
  if (intr && *intr) {
    rc = ACS_EINTERRUPTED;
  } else if (res.status == ACS__MIP_OPTIMAL || res.status == ACS__MIP_FEASIBLE) {
    if (step) {
      rc = read_step(&x, m, ii, res.x, t, unit);
    } else {
      struct acs_mstate tmp;
      read_solution(&x, m, ii, res.x, t, unit);
      memset(&tmp, 0, sizeof(tmp));
      tmp.ii = ii;
      tmp.t = t;
      tmp.unit = unit;
      /* Completes a decomposed solution; shortens a capped one. */
      rc = acs__mstate_compact(&tmp, m) == 0 ? 1 : ACS_EINVAL;
    }
  } else if (res.status == ACS__MIP_INFEASIBLE) {
    rc = 0;
  } else {
    rc = ACS_ETIMEOUT;
  }
out:
  free(res.x);
  acs__mip_destroy(&x.mip);
  free(x.lo), free(x.hi), free(x.col), free(x.ny), free(x.edge_on), free(x.fixed);
  free(de.v);
  return rc;
}
