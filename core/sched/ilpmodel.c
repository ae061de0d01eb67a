/*
 * ilpmodel.c - the solver-independent model and its GLPK backend.
 */
#include "config.h"

#include <errno.h>
#include <glpk.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "core/proc.h"
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

static int interrupted(const volatile sig_atomic_t *flag)
{
  return flag && *flag;
}

/* GLPK's time limit in ms from seconds (<= 0: none), capped at INT32_MAX. */
static int tm_lim_ms(double seconds)
{
  if (seconds <= 0)
    return INT32_MAX;
  return seconds * 1000 >= INT32_MAX ? INT32_MAX : (int)(seconds * 1000 + 1);
}

/* Tracks the best bound of the open subproblems while GLPK searches, stops
 * at the first integer solution when that is all the caller needs, and
 * stops at once on an interrupt. GLPK calls back at every node and between
 * the phases of a node (cuts, heuristics, branching), so an interrupt is
 * seen within one node LP. */
struct glpk_cb {
  double bound;
  int first_solution;
  const volatile sig_atomic_t *interrupted;
};

static void glpk_callback(glp_tree *t, void *info)
{
  struct glpk_cb *cb = info;
  int best;

  if (interrupted(cb->interrupted) ||
      (glp_ios_reason(t) == GLP_IBINGO && cb->first_solution)) {
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
  sp.tm_lim = tm_lim_ms(p->time_limit);
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
  ip.tm_lim = tm_lim_ms(p->time_limit);
  ret = glp_intopt(lp, &ip);
  if (interrupted(p->interrupted))
    return ACS_EINTERRUPTED;
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
  if (err == ACS_EINTERRUPTED) {
    acs_diag_set(d, err, NULL, 0, 0, "interrupted");
  } else if (err != ACS_OK) {
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

/* ---- interruptible solves: GLPK in a child process ------------------ */

/*
 * GLPK has long stretches that no callback reaches: glp_load_matrix, the
 * simplex's setup, the presolvers, the root LP of glp_intopt. Measured on a
 * 306,339-column horizon model (resnet50, max_steps=10000): 3.5 s to load,
 * then 2 to 3.7 s inside every glp_simplex call whatever its time limit. So
 * when an interrupt flag is watched the solve runs in a forked child that
 * the parent, polling the flag every 100 ms, can kill at any moment (it
 * dies with the parent too). The child shares the model copy-on-write and
 * sends back one message: the header below, the diagnostic message, then
 * x. The fork per solve did not show in the results: 12 PSPLIB j30
 * instances with `ilp --time-limit 5` proved the same bounds (one step
 * either way, the time limit's noise) in 54.8 s against 56.2 s in-process.
 */
struct child_head {
  int32_t err, status, has_x, msglen;
  double obj, bound;
};

static void __attribute__((noreturn))
child_main(const struct acs__mip *m, const struct acs__mip_params *p, int fd)
{
  struct acs__mip_result r;
  struct child_head h;
  struct acs_diag d;

#ifdef __linux__
  /* Die with the parent (killed outright, it cannot kill us). */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
  acs_diag_init(&d);
  memset(&r, 0, sizeof(r));
  r.status = ACS__MIP_UNKNOWN;
  r.bound = -HUGE_VAL;
  memset(&h, 0, sizeof(h));
  h.err = glpk_solve(m, p, &r, &d);
  h.status = r.status;
  h.obj = r.obj;
  h.bound = r.bound;
  h.has_x = r.x != NULL;
  h.msglen = (int32_t)strlen(d.msg);
  if (acs_write_all(fd, &h, sizeof(h)) < 0 || acs_write_all(fd, d.msg, (size_t)h.msglen) < 0 ||
      (r.x && acs_write_all(fd, r.x, sizeof(double) * (size_t)m->ncols) < 0))
    _exit(1);
  /* _exit: no atexit handler of the caller (stdio, HDF5) runs twice. */
  _exit(0);
}

/* Reads the child's message into *buf until end of file, the flag or an
 * error. Returns 1 at end of file, 0 when interrupted, -1 on error. */
static int child_collect(int fd, const volatile sig_atomic_t *flag, char **buf, size_t *len)
{
  size_t cap = 0;

  for (;;) {
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    char tmp[65536];
    ssize_t got;
    int rc;

    if (interrupted(flag))
      return 0;
    rc = poll(&pfd, 1, 100);
    if (rc < 0 && errno != EINTR)
      return -1;
    if (rc <= 0)
      continue;
    got = read(fd, tmp, sizeof(tmp));
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (got < 0)
      return -1;
    if (got == 0)
      return 1;
    if (acs_grow((void **)buf, 1, &cap, *len + (size_t)got) < 0)
      return -1;
    memcpy(*buf + *len, tmp, (size_t)got);
    *len += (size_t)got;
  }
}

/* Turns the child's message into r and the return code. */
static int child_decode(const struct acs__mip *m, const char *buf, size_t len,
                        struct acs__mip_result *r, struct acs_diag *d)
{
  struct child_head h;
  size_t xlen;

  if (len < sizeof(h))
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                        "the GLPK process ended without a result (model of %d columns)",
                        m->ncols);
  memcpy(&h, buf, sizeof(h));
  xlen = h.has_x ? sizeof(double) * (size_t)m->ncols : 0;
  if (h.msglen < 0 || len != sizeof(h) + (size_t)h.msglen + xlen)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "the GLPK process sent a malformed result");
  r->status = h.status;
  r->obj = h.obj;
  r->bound = h.bound;
  if (h.msglen > 0)
    acs_diag_set(d, h.err, NULL, 0, 0, "%.*s", (int)h.msglen, buf + sizeof(h));
  if (h.has_x) {
    if (!(r->x = malloc(xlen + sizeof(double))))
      return ACS_ENOMEM;
    memcpy(r->x, buf + sizeof(h) + (size_t)h.msglen, xlen);
  }
  return h.err;
}

/* The solve in a child; ACS_EINTERRUPTED (the child killed) when the flag
 * is set first. Falls back to solving here when no child can be made. */
static int solve_in_child(const struct acs__mip *m, const struct acs__mip_params *p,
                          struct acs__mip_result *r, struct acs_diag *d)
{
  char *buf = NULL;
  size_t len = 0;
  int fds[2], status, rc, err;
  pid_t pid, w;

  if (pipe(fds) < 0)
    return glpk_solve(m, p, r, d);
  fflush(NULL);
  if ((pid = fork()) < 0) {
    close(fds[0]);
    close(fds[1]);
    return glpk_solve(m, p, r, d);
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(m, p, fds[1]);
  }
  close(fds[1]);
  rc = child_collect(fds[0], p->interrupted, &buf, &len);
  close(fds[0]);
  if (rc <= 0)
    kill(pid, SIGKILL);
  while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
    ;
  if (rc == 0)
    err = acs_diag_set(d, ACS_EINTERRUPTED, NULL, 0, 0, "interrupted");
  else if (rc < 0)
    err = acs_diag_set(d, ACS_EIO, NULL, 0, 0, "reading the GLPK process: %s", strerror(errno));
  else if (w == pid && WIFSIGNALED(status))
    err = acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                       "GLPK crashed (%s) on a model of %d columns and %d rows",
                       strsignal(WTERMSIG(status)), m->ncols, m->nrows);
  else
    err = child_decode(m, buf, len, r, d);
  free(buf);
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
  if (interrupted(p->interrupted))
    return acs_diag_set(d, ACS_EINTERRUPTED, NULL, 0, 0, "interrupted");
  switch (p->solver) {
  case ACS__MIP_GLPK:
    err = p->interrupted ? solve_in_child(m, p, r, d) : glpk_solve(m, p, r, d);
    break;
  default:
    err = acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "unknown solver %d", p->solver);
    break;
  }
  r->seconds = acs_now_seconds() - t0;
  return err;
}
