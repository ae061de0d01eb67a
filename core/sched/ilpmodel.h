/*
 * ilpmodel.h - a small solver-independent mixed-integer linear model and
 * the backends that solve it (internal to core/sched).
 *
 * The exact variants (ilp.c, strip.c) build their formulation here, column
 * by column and row by row, and never call a solver's API themselves; a
 * backend (GLPK today) loads the model, solves it within a time limit and
 * returns the status, the solution and the best proven bound. So a second
 * solver is one more backend behind the same model, selected by name.
 *
 * Rows are built in place: acs__mip_row() opens a row with its bounds and
 * acs__mip_coef() appends coefficients to the open row. Bounds use
 * -HUGE_VAL / HUGE_VAL for "none".
 */
#ifndef ACS_SCHED_ILPMODEL_H
#define ACS_SCHED_ILPMODEL_H

#include <math.h>
#include <signal.h>

#include "core/acs.h"

enum acs__mip_solver { ACS__MIP_GLPK, ACS__MIP__COUNT };

struct acs__mip {
  int32_t ncols, nrows;
  size_t cap_cols, cap_rows;
  double *clb, *cub, *cobj;  /* per column */
  uint8_t *cint;             /* 1: integer */
  double *rlo, *rhi;         /* per row */
  size_t *rbeg;              /* row i's coefficients: [rbeg[i], rbeg[i+1]) */
  size_t nnz, cap_nnz;
  int32_t *nzcol;
  double *nzval;
};

void acs__mip_init(struct acs__mip *m);
void acs__mip_destroy(struct acs__mip *m);
/* Removes every column and row (keeps the memory for the next model). */
void acs__mip_clear(struct acs__mip *m);
/* Adds a column; returns its index (>= 0) or ACS_ENOMEM. */
int32_t acs__mip_col(struct acs__mip *m, double lb, double ub, double obj, int integer);
/* Opens a row lo <= sum <= hi; returns its index or ACS_ENOMEM. */
int32_t acs__mip_row(struct acs__mip *m, double lo, double hi);
/* Appends coefficient val of column col to the open row. */
int acs__mip_coef(struct acs__mip *m, int32_t col, double val);

enum acs__mip_status {
  ACS__MIP_OPTIMAL,     /* solved: x optimal (for a feasibility model: feasible) */
  ACS__MIP_FEASIBLE,    /* stopped by the limit with a solution in x */
  ACS__MIP_INFEASIBLE,  /* proven: no integer solution */
  ACS__MIP_UNKNOWN,     /* stopped by the limit without a solution */
};

struct acs__mip_params {
  int solver;            /* enum acs__mip_solver */
  double time_limit;     /* seconds, <= 0 = none */
  int lp_only;           /* solve the LP relaxation only */
  int cuts;              /* let the solver add its own cuts */
  int first_solution;    /* stop at the first integer solution (feasibility) */
  /* NULL, or an interrupt flag: once nonzero the solve stops within about
   * 0.1 s and returns ACS_EINTERRUPTED. */
  const volatile sig_atomic_t *interrupted;
};

struct acs__mip_result {
  int status;            /* enum acs__mip_status */
  double obj;            /* objective of x (OPTIMAL, FEASIBLE) */
  double bound;          /* best proven bound on the optimum (min); -HUGE_VAL unknown */
  double *x;             /* ncols values, malloc'd by the solve; free() it */
  double seconds;
};

void acs__mip_params_init(struct acs__mip_params *p);
/* Names: "glpk". Returns the enum or -1. */
int acs__mip_solver_parse(const char *name);

/*
 * Minimizes the model. Returns ACS_OK with r filled (r->x set for OPTIMAL and
 * FEASIBLE, NULL otherwise), ACS_ENOMEM, ACS_EINTERRUPTED (p->interrupted
 * was set; r->x NULL), or ACS_EINVAL when the solver failed (message in d).
 */
int acs__mip_solve(const struct acs__mip *m, const struct acs__mip_params *p,
                   struct acs__mip_result *r, struct acs_diag *d);

#endif
