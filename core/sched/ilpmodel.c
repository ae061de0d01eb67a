/*
 * ilpmodel.c - the solver-independent model and its GLPK backend.
 */
#include "config.h"

#include <glpk.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/ilpmodel.h"

void acs__mip_init(struct acs__mip *m)
{
  memset(m, 0, sizeof(*m));
}

void acs__mip_destroy(struct acs__mip *m)
{
  free(m->clb);
  free(m->cub);
  free(m->cobj);
  free(m->cint);
  free(m->rlo);
  free(m->rhi);
  free(m->rbeg);
  free(m->nzcol);
  free(m->nzval);
  acs__mip_init(m);
}

void acs__mip_clear(struct acs__mip *m)
{
  m->ncols = m->nrows = 0;
  m->nnz = 0;
}

/* Grows each of the parallel arrays to hold `need` elements. */
static int grow_cols(struct acs__mip *m, size_t need)
{
  size_t cap = m->cap_cols, c;

  if (need <= cap)
    return ACS_OK;
  c = cap;
  if (acs_grow((void **)&m->clb, sizeof(double), &c, need) < 0)
    return ACS_ENOMEM;
  c = cap;
  if (acs_grow((void **)&m->cub, sizeof(double), &c, need) < 0)
    return ACS_ENOMEM;
  c = cap;
  if (acs_grow((void **)&m->cobj, sizeof(double), &c, need) < 0)
    return ACS_ENOMEM;
  c = cap;
  if (acs_grow((void **)&m->cint, sizeof(uint8_t), &c, need) < 0)
    return ACS_ENOMEM;
  m->cap_cols = c;
  return ACS_OK;
}

static int grow_rows(struct acs__mip *m, size_t need)
{
  size_t cap = m->cap_rows, c;

  if (need + 1 <= cap)
    return ACS_OK;
  c = cap;
  if (acs_grow((void **)&m->rlo, sizeof(double), &c, need + 1) < 0)
    return ACS_ENOMEM;
  c = cap;
  if (acs_grow((void **)&m->rhi, sizeof(double), &c, need + 1) < 0)
    return ACS_ENOMEM;
  c = cap;
  if (acs_grow((void **)&m->rbeg, sizeof(size_t), &c, need + 1) < 0)
    return ACS_ENOMEM;
  m->cap_rows = c;
  return ACS_OK;
}

int32_t acs__mip_col(struct acs__mip *m, double lb, double ub, double obj, int integer)
{
  if (m->ncols == INT32_MAX - 1 || grow_cols(m, (size_t)m->ncols + 1) < 0)
    return ACS_ENOMEM;
  m->clb[m->ncols] = lb;
  m->cub[m->ncols] = ub;
  m->cobj[m->ncols] = obj;
  m->cint[m->ncols] = integer ? 1 : 0;
  return m->ncols++;
}

int32_t acs__mip_row(struct acs__mip *m, double lo, double hi)
{
  if (m->nrows == INT32_MAX - 1 || grow_rows(m, (size_t)m->nrows + 1) < 0)
    return ACS_ENOMEM;
  m->rlo[m->nrows] = lo;
  m->rhi[m->nrows] = hi;
  m->rbeg[m->nrows] = m->nnz;
  m->rbeg[m->nrows + 1] = m->nnz;
  return m->nrows++;
}

int acs__mip_coef(struct acs__mip *m, int32_t col, double val)
{
  size_t c;

  if (m->nrows == 0 || col < 0 || col >= m->ncols)
    return ACS_EINVAL;
  if (m->nnz + 1 > m->cap_nnz) {
    c = m->cap_nnz;
    if (acs_grow((void **)&m->nzcol, sizeof(int32_t), &c, m->nnz + 1) < 0)
      return ACS_ENOMEM;
    c = m->cap_nnz;
    if (acs_grow((void **)&m->nzval, sizeof(double), &c, m->nnz + 1) < 0)
      return ACS_ENOMEM;
    m->cap_nnz = c;
  }
  m->nzcol[m->nnz] = col;
  m->nzval[m->nnz] = val;
  m->nnz++;
  m->rbeg[m->nrows] = m->nnz;
  return ACS_OK;
}

void acs__mip_params_init(struct acs__mip_params *p)
{
  memset(p, 0, sizeof(*p));
  p->solver = ACS__MIP_GLPK;
  p->cuts = 1;
}

int acs__mip_solver_parse(const char *name)
{
  if (name && strcmp(name, "glpk") == 0)
    return ACS__MIP_GLPK;
  return -1;
}

/* ---- GLPK backend ---------------------------------------------------- */

#define ACS__MIP_CUTS_MAX_COLS 20000

static int bound_type(double lo, double hi)
{
  if (isinf(lo) && isinf(hi))
    return GLP_FR;
  if (isinf(hi))
    return GLP_LO;
  if (isinf(lo))
    return GLP_UP;
  return lo == hi ? GLP_FX : GLP_DB;
}

/* Loads m into a new GLPK problem. GLPK indexes from 1. */
static glp_prob *glpk_load(const struct acs__mip *m)
{
  glp_prob *lp;
  int *ia, *ja;
  double *ar;
  size_t n = m->nnz;

  if (n >= (size_t)INT32_MAX)
    return NULL;
  ia = malloc(sizeof(int) * (n + 1));
  ja = malloc(sizeof(int) * (n + 1));
  ar = malloc(sizeof(double) * (n + 1));
  if (!ia || !ja || !ar) {
    free(ia);
    free(ja);
    free(ar);
    return NULL;
  }
  lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  if (m->ncols > 0)
    glp_add_cols(lp, m->ncols);
  if (m->nrows > 0)
    glp_add_rows(lp, m->nrows);
  for (int32_t j = 0; j < m->ncols; j++) {
    glp_set_col_bnds(lp, j + 1, bound_type(m->clb[j], m->cub[j]), m->clb[j], m->cub[j]);
    glp_set_obj_coef(lp, j + 1, m->cobj[j]);
    if (m->cint[j])
      glp_set_col_kind(lp, j + 1, m->clb[j] == 0 && m->cub[j] == 1 ? GLP_BV : GLP_IV);
  }
  for (int32_t i = 0; i < m->nrows; i++) {
    glp_set_row_bnds(lp, i + 1, bound_type(m->rlo[i], m->rhi[i]), m->rlo[i], m->rhi[i]);
    for (size_t k = m->rbeg[i]; k < m->rbeg[i + 1]; k++) {
      ia[k + 1] = i + 1;
      ja[k + 1] = m->nzcol[k] + 1;
      ar[k + 1] = m->nzval[k];
    }
  }
  glp_load_matrix(lp, (int)n, ia, ja, ar);
  free(ia);
  free(ja);
  free(ar);
  return lp;
}

/* Tracks the best bound of the open subproblems while GLPK searches, and
 * stops at the first integer solution when that is all the caller needs. */
struct glpk_cb {
  double bound;
  int first_solution;
  const volatile sig_atomic_t *interrupted;
};

static void glpk_callback(glp_tree *t, void *info)
{
  struct glpk_cb *cb = info;
  int best;

  if (cb->interrupted && *cb->interrupted) {
    glp_ios_terminate(t);
    return;
  }
  if (glp_ios_reason(t) == GLP_IBINGO && cb->first_solution) {
    glp_ios_terminate(t);
    return;
  }
  if (glp_ios_reason(t) != GLP_ISELECT && glp_ios_reason(t) != GLP_IBINGO)
    return;
  best = glp_ios_best_node(t);
  if (best > 0) {
    double b = glp_ios_node_bound(t, best);
    if (b > cb->bound || isinf(cb->bound))
      cb->bound = b;
  }
}

static int glpk_lp(glp_prob *lp, const struct acs__mip_params *p,
                   struct acs__mip_result *r)
{
  glp_smcp sp;
  int ret, st;

  glp_init_smcp(&sp);
  sp.msg_lev = GLP_MSG_OFF;
  /* The LP presolver does not look at the clock (seconds on 10^5 columns). */
  sp.presolve = glp_get_num_cols(lp) <= ACS__MIP_CUTS_MAX_COLS ? GLP_ON : GLP_OFF;
  if (p->time_limit > 0)
    sp.tm_lim = p->time_limit * 1000 >= INT32_MAX ? INT32_MAX : (int)(p->time_limit * 1000 + 1);
  ret = glp_simplex(lp, &sp);
  st = glp_get_status(lp);
  if (ret == GLP_ENOPFS || st == GLP_NOFEAS || st == GLP_INFEAS) {
    r->status = ret == 0 || ret == GLP_ENOPFS ? ACS__MIP_INFEASIBLE : ACS__MIP_UNKNOWN;
    return ACS_OK;
  }
  if (ret == GLP_ETMLIM) {
    r->status = ACS__MIP_UNKNOWN;
    return ACS_OK;
  }
  if (ret != 0 || st != GLP_OPT)
    return ACS_EINVAL;
  r->status = ACS__MIP_OPTIMAL;
  r->obj = r->bound = glp_get_obj_val(lp);
  return ACS_OK;
}

static int glpk_mip(glp_prob *lp, const struct acs__mip_params *p,
                    struct acs__mip_result *r)
{
  struct glpk_cb cb = { -HUGE_VAL, p->first_solution, p->interrupted };
  glp_iocp ip;
  int ret, st;

  glp_init_iocp(&ip);
  ip.msg_lev = GLP_MSG_OFF;
  ip.presolve = GLP_ON;
  ip.cb_func = glpk_callback;
  ip.cb_info = &cb;
  /* GLPK's cut generators and its default branching heuristic
   * (Driebeck-Tomlin: a glp_transform_row per fractional column) run
   * without looking at the clock: on a model of 45,000 columns they
   * overran a 10 s limit by 7 s. Large models branch on the most
   * fractional column and get no cuts. */
  if (glp_get_num_cols(lp) > ACS__MIP_CUTS_MAX_COLS) {
    ip.br_tech = GLP_BR_MFV;
  } else if (p->cuts) {
    ip.clq_cuts = GLP_ON;
    ip.cov_cuts = GLP_ON;
    ip.mir_cuts = GLP_ON;
  }
  if (p->time_limit > 0)
    ip.tm_lim = p->time_limit * 1000 >= INT32_MAX ? INT32_MAX : (int)(p->time_limit * 1000 + 1);
  ret = glp_intopt(lp, &ip);
  st = glp_mip_status(lp);
  r->bound = cb.bound;
  if (ret == GLP_ENOPFS || (ret == 0 && st == GLP_NOFEAS)) {
    r->status = ACS__MIP_INFEASIBLE;
    return ACS_OK;
  }
  if (ret != 0 && ret != GLP_ETMLIM && ret != GLP_ESTOP)
    return ACS_EINVAL;
  if (st == GLP_OPT) {
    r->status = ACS__MIP_OPTIMAL;
    r->obj = r->bound = glp_mip_obj_val(lp);
  } else if (st == GLP_FEAS) {
    r->status = ACS__MIP_FEASIBLE;
    r->obj = glp_mip_obj_val(lp);
  } else {
    r->status = ACS__MIP_UNKNOWN;
  }
  return ACS_OK;
}

static int glpk_solve(const struct acs__mip *m, const struct acs__mip_params *p,
                      struct acs__mip_result *r, struct acs_diag *d)
{
  glp_prob *lp;
  int err;

  /* Library code never prints: GLPK's terminal output goes nowhere. */
  glp_term_out(GLP_OFF);
  lp = glpk_load(m);
  if (!lp)
    return ACS_ENOMEM;
  err = p->lp_only ? glpk_lp(lp, p, r) : glpk_mip(lp, p, r);
  if (err != ACS_OK) {
    acs_diag_set(d, err, NULL, 0, 0, "GLPK failed on a model of %d columns and %d rows",
                 m->ncols, m->nrows);
  } else if (r->status == ACS__MIP_OPTIMAL || r->status == ACS__MIP_FEASIBLE) {
    r->x = malloc(sizeof(double) * ((size_t)m->ncols + 1));
    if (!r->x)
      err = ACS_ENOMEM;
    for (int32_t j = 0; r->x && j < m->ncols; j++)
      r->x[j] = p->lp_only ? glp_get_col_prim(lp, j + 1) : glp_mip_col_val(lp, j + 1);
  }
  glp_delete_prob(lp);
  return err;
}

int acs__mip_solve(const struct acs__mip *m, const struct acs__mip_params *p,
                   struct acs__mip_result *r, struct acs_diag *d)
{
  double t0 = acs_now_seconds();
  int err;

  memset(r, 0, sizeof(*r));
  r->status = ACS__MIP_UNKNOWN;
  r->bound = -HUGE_VAL;
  switch (p->solver) {
  case ACS__MIP_GLPK:
    err = glpk_solve(m, p, r, d);
    break;
  default:
    err = acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "unknown solver %d", p->solver);
    break;
  }
  r->seconds = acs_now_seconds() - t0;
  return err;
}
