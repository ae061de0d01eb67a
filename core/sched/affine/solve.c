/*
 * solve.c - the exact lexicographic minimum of the Farkas program, and the
 * dependences to blame when there is none.
 *
 * Solver: isl, exact (arbitrary-precision integers and rationals). The
 * lexicographic minimum in the seed's order is isl's integer lexmin
 * (isl_basic_set_lexmin: parametric integer programming without
 * parameters, Feautrier's PIP, the solver the seed's MMAlpha called as
 * mppip), computed after the latency's coefficients have been fixed one by
 * one by exact linear programs (isl's rational simplex), which is several
 * times faster than one integer lexmin over everything and gives the same
 * point (lexmin_latency_first says why). GLPK's exact simplex would do the
 * linear programs but reports its exact solution as doubles, and a
 * schedule is a cycle count: the integer minimum is the one wanted.
 *
 * PIP minimizes non-negative variables; the seed substitutes tau - G with a
 * big parameter G for the free ones. Here every free unknown u is written
 * u' - B with u' >= 0 and B = 2^30, and a solution that reaches u = -B is
 * refused (ERANGE) rather than taken for a real optimum. The latency's
 * parameter coefficients are non-negative (a latency that falls as a
 * parameter grows is not what the seed's order of minimization, parameters
 * first, is meant for: with a bounded context it would trade an arbitrarily
 * negative coefficient against the constant).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/local_space.h>
#include <isl/lp.h>
#include <isl/mat.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "core/model/sare_int.h"
#include "core/sched/affine/affine.h"

#define FREE_BOUND (INT64_C(1) << 30)

void acs_affine_sched_free(struct acs_affine_sched *s)
{
  free(s->coef);
  free(s->off);
  memset(s, 0, sizeof(*s));
}

static int mat_set(isl_ctx *ctx, isl_mat **mat, int r, int c, int64_t v)
{
  if (v == 0)
    return 0;
  *mat = isl_mat_set_element_val(*mat, r, c, isl_val_int_from_si(ctx, (long)v));
  return *mat ? 0 : -1;
}

/* An isl matrix of zeros (isl_mat_alloc leaves it uninitialised). */
static isl_mat *zeros(isl_ctx *ctx, int32_t rows, int32_t cols)
{
  isl_mat *mat = isl_mat_alloc(ctx, (unsigned)rows, (unsigned)cols);

  for (int32_t r = 0; r < rows && mat; r++)
    for (int32_t c = 0; c < cols && mat; c++)
      mat = isl_mat_set_element_si(mat, r, c, 0);
  return mat;
}

/* The program as an isl basic set over the shifted columns u' (u = u' - B
 * for free columns): the equalities, and u' >= 0 for every column. */
static isl_basic_set *to_isl(isl_ctx *ctx, const struct acs_affine_lp *lp)
{
  int32_t n = lp->ncols, w = n + 1;
  isl_mat *eq = zeros(ctx, lp->nrows, w), *ineq = zeros(ctx, n, w);
  int bad = !eq || !ineq;

  for (int32_t r = 0; r < lp->nrows && !bad; r++) {
    const int64_t *row = lp->rows + (size_t)r * (size_t)w;
    int64_t cst = row[n], t;
    for (int32_t c = 0; c < n && !bad; c++) {
      bad = mat_set(ctx, &eq, r, c, row[c]) < 0;
      if (lp->col_kind[c] == ACS_AFFINE_COL_FREE && row[c] != 0)
        bad |= acs_mul_i64(row[c], FREE_BOUND, &t) || __builtin_sub_overflow(cst, t, &cst);
    }
    bad = bad || mat_set(ctx, &eq, r, n, cst) < 0;
  }
  for (int32_t c = 0; c < n && !bad; c++)
    bad = !(ineq = isl_mat_set_element_si(ineq, c, c, 1));
  if (bad) {
    isl_mat_free(eq);
    isl_mat_free(ineq);
    return NULL;
  }
  return isl_basic_set_from_constraint_matrices(isl_space_set_alloc(ctx, 0, (unsigned)n), eq,
                                                ineq, isl_dim_set, isl_dim_cst, isl_dim_param,
                                                isl_dim_div);
}

int acs_affine_feasible(isl_ctx *ctx, const struct acs_affine_lp *lp)
{
  isl_basic_set *bs = to_isl(ctx, lp);
  isl_bool empty = bs ? isl_basic_set_is_empty(bs) : isl_bool_error;

  isl_basic_set_free(bs);
  return empty == isl_bool_error ? ACS_ENOMEM : empty == isl_bool_false;
}

static int sched_alloc(const struct acs_affine_lp *lp, struct acs_affine_sched *s)
{
  memset(s, 0, sizeof(*s));
  s->nparams = lp->nparams;
  s->nvars = lp->nvars;
  s->coef = calloc((size_t)(lp->nunk - lp->nparams - 1) + 1, sizeof(*s->coef));
  s->off = malloc(((size_t)lp->nvars + 1) * sizeof(*s->off));
  if (!s->coef || !s->off) {
    acs_affine_sched_free(s);
    return ACS_ENOMEM;
  }
  for (int32_t v = 0; v < lp->nvars; v++)
    s->off[v] = lp->var_col[v] < 0 ? -1 : lp->var_col[v] - (lp->nparams + 1);
  return ACS_OK;
}

/* Reads the unknowns of the lexmin point into s. */
static int read_point(const struct acs_affine_lp *lp, isl_point *pt, struct acs_affine_sched *s,
                      struct acs_diag *d)
{
  for (int32_t c = 0; c < lp->nunk; c++) {
    int64_t x;
    if (acs__sare_val_i64(isl_point_get_coordinate_val(pt, isl_dim_set, c), &x) < 0)
      return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0, "a schedule coefficient exceeds 64 bits");
    if (lp->col_kind[c] == ACS_AFFINE_COL_FREE) {
      if (x == 0)
        return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0, "the lexicographic minimum is unbounded "
                            "(a schedule coefficient reached -2^30)");
      x -= FREE_BOUND;
    }
    if (c <= lp->nparams)
      s->phi[c] = x;
    else
      s->coef[c - lp->nparams - 1] = x;
  }
  return ACS_OK;
}

/*
 * The latency's coefficients first, by one exact linear program each
 * (isl's rational simplex): when each minimum is an integer, fixing it
 * and taking the integer lexmin of what remains gives the exact answer at
 * a fraction of the cost of one integer lexmin over everything (the
 * rational minimum bounds the integer one from below, and the integer
 * lexmin of the rest shows it is reached). When a minimum is fractional or
 * the rest has no integer point, the integer lexmin of the whole program
 * decides. Returns the lexmin set (a single point), or NULL.
 */
static isl_set *lexmin_latency_first(isl_basic_set *bs, const struct acs_affine_lp *lp,
                                     const volatile sig_atomic_t *interrupted, int *stopped)
{
  isl_basic_set *cur = isl_basic_set_copy(bs);
  isl_set *min;
  isl_bool empty;

  for (int32_t c = 0; c <= lp->nparams && cur; c++) {
    isl_local_space *ls = isl_local_space_from_space(isl_basic_set_get_space(cur));
    isl_aff *obj = isl_aff_var_on_domain(ls, isl_dim_set, (unsigned)c);
    isl_val *v = obj ? isl_basic_set_min_lp_val(cur, obj) : NULL;
    isl_aff_free(obj);
    if (interrupted && *interrupted) {
      *stopped = 1;
      isl_val_free(v);
      isl_basic_set_free(cur);
      isl_basic_set_free(bs);
      return NULL;
    }
    if (!v || isl_val_is_int(v) != isl_bool_true) {
      isl_val_free(v);
      isl_basic_set_free(cur);
      cur = NULL;
      break;
    }
    cur = isl_basic_set_fix_val(cur, isl_dim_set, (unsigned)c, v);
  }
  if (cur) {
    min = isl_basic_set_lexmin(cur);
    empty = min ? isl_set_is_empty(min) : isl_bool_error;
    if (empty == isl_bool_false) {
      isl_basic_set_free(bs);
      return min;
    }
    isl_set_free(min);
  }
  return isl_basic_set_lexmin(bs);
}

int acs_affine_solve(isl_ctx *ctx, const struct acs_affine_lp *lp,
                     const volatile sig_atomic_t *interrupted, struct acs_affine_sched *s,
                     struct acs_diag *d)
{
  isl_basic_set *bs;
  isl_set *min;
  isl_point *pt;
  isl_bool empty;
  int err, stopped = 0;

  if (interrupted && *interrupted)
    return ACS_EINTERRUPTED;
  if ((err = sched_alloc(lp, s)) < 0)
    return err;
  bs = to_isl(ctx, lp);
  empty = bs ? isl_basic_set_is_empty(bs) : isl_bool_error;
  min = empty == isl_bool_false ? lexmin_latency_first(bs, lp, interrupted, &stopped) : NULL;
  if (empty != isl_bool_false)
    isl_basic_set_free(bs);
  if (stopped || empty == isl_bool_true || !min) {
    acs_affine_sched_free(s);
    return stopped ? ACS_EINTERRUPTED : empty == isl_bool_true ? ACS_EINFEASIBLE : ACS_ENOMEM;
  }
  pt = isl_set_sample_point(min);
  err = pt ? read_point(lp, pt, s, d) : ACS_ENOMEM;
  isl_point_free(pt);
  if (err < 0)
    acs_affine_sched_free(s);
  else if (interrupted && *interrupted)
    err = ACS_EINTERRUPTED;
  return err;
}

/* ---- no schedule: which dependences ---- */

/* Feasibility of positivity plus the dependences in use (no objective). */
static int feasible_with(isl_ctx *ctx, const struct acs_sare *m, const uint8_t *use, int obj)
{
  struct acs_affine_lp lp;
  struct acs_affine_lp_sel sel = {use, NULL, obj, 0};
  struct acs_diag d;
  int rc;

  acs_diag_init(&d);
  if ((rc = acs_affine_lp_build(m, &sel, &lp, &d)) < 0)
    return rc;
  rc = acs_affine_feasible(ctx, &lp);
  acs_affine_lp_free(&lp);
  return rc;
}

/* A cycle through the variable graph of the used dependences, as "a -> b
 * -> a" into buf (depth-first search from each variable; the graphs are
 * tiny). */
static void name_cycle(const struct acs_sare *m, const uint8_t *use, char *buf, size_t size)
{
  int32_t path[64], n;

  buf[0] = '\0';
  for (int32_t start = 0; start < m->nvars; start++) {
    /* walk: from the current variable follow a used dependence src -> dst */
    n = 0;
    path[n++] = start;
    for (int32_t step = 0; step < m->nvars && n < 64; step++) {
      int32_t cur = path[n - 1], nextv = -1;
      for (int32_t e = 0; e < m->ndeps && nextv < 0; e++)
        if (use[e] && m->deps[e].src == cur)
          nextv = m->deps[e].dst;
      if (nextv < 0)
        break;
      for (int32_t k = 0; k < n; k++)
        if (path[k] == nextv) {
          size_t used = 0;
          for (int32_t j = k; j < n && used < size; j++)
            used += (size_t)snprintf(buf + used, size - used, "%s -> ", m->vars[path[j]].name);
          if (used < size)
            snprintf(buf + used, size - used, "%s", m->vars[nextv].name);
          return;
        }
      path[n++] = nextv;
    }
  }
}

int acs_affine_explain_infeasible(isl_ctx *ctx, const struct acs_sare *m, char *msg, size_t size)
{
  uint8_t *use = malloc((size_t)m->ndeps + 1);
  char cycle[512];
  size_t used;
  int rc;

  if (!use)
    return ACS_ENOMEM;
  memset(use, 1, (size_t)m->ndeps + 1);
  if ((rc = feasible_with(ctx, m, use, 0)) != 0) {
    free(use);
    if (rc < 0)
      return rc;
    snprintf(msg, size, "no one-dimensional affine schedule: the dependences can all be "
             "satisfied, but no affine function of the parameters bounds the latency");
    return ACS_OK;
  }
  /* Deletion filter: drop each dependence whose absence keeps the program
   * infeasible; what remains is a minimal infeasible set. */
  for (int32_t e = 0; e < m->ndeps; e++) {
    use[e] = 0;
    if ((rc = feasible_with(ctx, m, use, 0)) < 0)
      break;
    if (rc == 1)
      use[e] = 1;
  }
  if (rc < 0) {
    free(use);
    return rc;
  }
  name_cycle(m, use, cycle, sizeof(cycle));
  used = (size_t)snprintf(msg, size, "no one-dimensional affine schedule: the dependences of "
                          "the cycle %s cannot all hold with one affine time:",
                          cycle[0] ? cycle : "(none found)");
  for (int32_t e = 0; e < m->ndeps && used < size; e++)
    if (use[e])
      used += (size_t)snprintf(msg + used, size - used, " line %d %s;", m->deps[e].line,
                               m->deps[e].text);
  if (used < size && used > 0 && msg[used - 1] == ';')
    msg[--used] = '\0';
  if (used < size)
    snprintf(msg + used, size - used, " (a multidimensional schedule is needed: -O dims=2, Feautrier's part II)");
  free(use);
  return ACS_OK;
}

/* ---- multidimensional schedules (Feautrier's part II) ---- */

void acs_affine_msched_free(struct acs_affine_msched *ms)
{
  for (int32_t k = 0; k < ms->ndims; k++)
    acs_affine_sched_free(&ms->row[k]);
  free(ms->level);
  memset(ms, 0, sizeof(*ms));
}

static int feasible_sel(isl_ctx *ctx, const struct acs_sare *m, const struct acs_affine_lp_sel *sel)
{
  struct acs_affine_lp lp;
  struct acs_diag d;
  int rc;

  acs_diag_init(&d);
  if ((rc = acs_affine_lp_build(m, sel, &lp, &d)) < 0)
    return rc;
  rc = acs_affine_feasible(ctx, &lp);
  acs_affine_lp_free(&lp);
  return rc;
}

/* Row k: which of the open dependences it carries (greedy, in order), then
 * its lexicographic minimum. O(dependences) feasibility tests. */
static int one_row(isl_ctx *ctx, const struct acs_sare *m, uint8_t *open, uint8_t *strong,
                   const volatile sig_atomic_t *interrupted, struct acs_affine_sched *row,
                   int32_t *carried, struct acs_diag *d)
{
  struct acs_affine_lp_sel sel = {open, strong, 0, 0};
  struct acs_affine_lp lp;
  int rc;

  *carried = 0;
  memset(strong, 0, (size_t)m->ndeps + 1);
  for (int32_t e = 0; e < m->ndeps; e++) {
    if (!open[e])
      continue;
    if (interrupted && *interrupted)
      return ACS_EINTERRUPTED;
    strong[e] = 1;
    if ((rc = feasible_sel(ctx, m, &sel)) < 0)
      return rc;
    strong[e] = rc == 1;
    *carried += rc == 1;
  }
  if (*carried == 0)
    return ACS_OK;
  sel.objective = 1;
  if ((rc = acs_affine_lp_build(m, &sel, &lp, d)) < 0)
    return rc;
  rc = acs_affine_solve(ctx, &lp, interrupted, row, d);
  acs_affine_lp_free(&lp);
  return rc;
}

int acs_affine_solve_multi(isl_ctx *ctx, const struct acs_sare *m, int32_t maxdims,
                           const volatile sig_atomic_t *interrupted,
                           struct acs_affine_msched *out, struct acs_diag *d)
{
  uint8_t *open = malloc((size_t)m->ndeps + 1), *strong = malloc((size_t)m->ndeps + 1);
  int32_t left = 0;
  int err = ACS_OK;

  memset(out, 0, sizeof(*out));
  out->level = malloc(((size_t)m->ndeps + 1) * sizeof(*out->level));
  if (!open || !strong || !out->level) {
    err = ACS_ENOMEM;
    goto out_with_sets;
  }
  /* reads of preloaded inputs hold at every row (T = 0, delay 0) */
  for (int32_t e = 0; e < m->ndeps; e++) {
    open[e] = acs_sare_computed(m, m->deps[e].src);
    out->level[e] = -1;
    left += open[e];
  }
  maxdims = maxdims > ACS_AFFINE_MAX_DIMS ? ACS_AFFINE_MAX_DIMS : maxdims;
  while (err == ACS_OK && (left > 0 || out->ndims == 0) && out->ndims < maxdims) {
    int32_t carried;
    struct acs_affine_sched *row = &out->row[out->ndims];
    if ((err = one_row(ctx, m, open, strong, interrupted, row, &carried, d)) < 0)
      break;
    if (carried == 0 && left > 0) {
      err = acs_diag_set(d, ACS_EINFEASIBLE, m->path, 0, 0, "no schedule: after %d dimension%s "
                         "no row carries any of the %d dependences left", (int)out->ndims,
                         out->ndims == 1 ? "" : "s", (int)left);
      break;
    }
    if (carried == 0) {
      /* nothing to carry at all: one row of the plain program */
      struct acs_affine_lp lp;
      if ((err = acs_affine_lp_build(m, NULL, &lp, d)) == ACS_OK)
        err = acs_affine_solve(ctx, &lp, interrupted, row, d);
      acs_affine_lp_free(&lp);
      if (err == ACS_OK)
        out->ndims++;
      break;
    }
    for (int32_t e = 0; e < m->ndeps; e++)
      if (open[e] && strong[e]) {
        out->level[e] = out->ndims;
        open[e] = 0;
        left--;
      }
    out->ndims++;
  }
  if (err == ACS_OK && left > 0)
    err = acs_diag_set(d, ACS_EINFEASIBLE, m->path, 0, 0, "no schedule in %d dimensions: %d "
                       "dependences are still not carried", (int)maxdims, (int)left);

out_with_sets:
  free(open);
  free(strong);
  if (err < 0)
    acs_affine_msched_free(out);
  return err;
}
