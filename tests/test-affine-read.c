/*
 * test-affine-read.c - systems of affine recurrence equations (seed 003):
 * the .sare reader and its located errors, instances and the instance DAG,
 * the Farkas program against isl's own Farkas dual.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/val.h>

#include "core/load/load.h"
#include "core/sched/affine/affine.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "tests/testutil.h"

#include "tests/affine_util.h"

/* ---- the reader ---- */

Test(sare_read, matmul_structure)
{
  struct acs_sare *m = sare_read_ok(EX("matmul"));

  cr_assert_eq(m->nparams, 1);
  cr_assert_str_eq(m->param[0], "N");
  cr_assert_eq(m->nvars, 3);
  cr_assert_eq(m->vars[2].kind, ACS_SARE_OUTPUT);
  cr_assert_eq(m->vars[2].ndims, 3);
  cr_assert_str_eq(m->vars[2].dim[2], "k");
  cr_assert_eq(m->vars[2].delay, 1);
  cr_assert_eq(m->ndeps, 3);
  /* C[i,j,k] -> C[i,j,k-1]: F = (i, j, k - 1) over (i, j, k, N, 1) */
  const int64_t want[] = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, -1};
  cr_assert_arr_eq(m->deps[0].fn, want, sizeof(want));
  cr_assert(m->has_value[0]);
  cr_assert_eq(m->value[0], 8);
  acs_sare_free(m);
}

Test(sare_read, every_example_reads)
{
  static const char *const ex[] = {"matmul", "matvec", "matmul_systolic", "fir", "conv1d",
                                   "conv2d", "editdist", "prefix", "flatten"};
  for (size_t k = 0; k < sizeof(ex) / sizeof(ex[0]); k++) {
    char rel[128];
    snprintf(rel, sizeof(rel), "workloads/affine/%s.sare", ex[k]);
    acs_sare_free(sare_read_ok(rel));
  }
}

Test(sare_read, statements_span_lines_and_comments)
{
  struct acs_diag d;
  struct acs_sare *m;

  cr_assert_eq(read_text("# a comment\n"
                         "params [N] -> { : N >= 1 }   # trailing comment\n"
                         "output { C[i] :\n"
                         "         0 <= i < N }  delay 3\n"
                         "read { C[i] -> C[i - 1] :   # continued\n"
                         "       i >= 1 }\n",
                         &d, &m),
               ACS_OK, "%s:%d:%d: %s", d.file, d.line, d.col, d.msg);
  cr_assert_eq(m->vars[0].delay, 3);
  cr_assert_eq(m->ndeps, 1);
  cr_assert_eq(m->deps[0].line, 5);
  acs_sare_free(m);
}

Test(sare_read, errors_are_located)
{
  const char *P = "params [N] -> { : N >= 1 }\n";
  char buf[1024];
  struct {
    const char *body;
    int line, col;
    const char *part;
  } cases[] = {
    {"output { C[i] : 0 <= i < N and }\n", 2, 32, "expected a number, a name or '('"},
    {"bogus { A[i] }\n", 2, 1, "unknown statement 'bogus'"},
    {"output { C[i] : 0 <= i < N\n", 2, 8, "'{' is never closed"},
    {"output { C[i] : 0 <= q < N }\n", 2, 22, "unknown name 'q'"},
    {"output { C[i,j] : 0 <= i, j < N and i*j >= 0 }\n", 2, 38, "not affine"},
    {"output { C[i] : 0 <= i < N/2 }\n", 2, 27, "'/' is not supported"},
    {"output { C[i] : exists (e : i = 2e) and 0 <= i < N }\n", 2, 17, "'exists' is not supported"},
    {"output { [i] : 0 <= i < N }\n", 2, 10, "a tuple needs a name"},
    {"output { C[i] : 0 <= i < N }\noutput { C[j] : 0 <= j < N }\n", 3, 10, "declared twice"},
    {"output { N[i] : 0 <= i < N }\n", 2, 10, "'N' is a parameter"},
    {"output { C[N] : 0 <= N }\n", 2, 12, "has the name of a parameter"},
    {"output { C[i] : 0 <= i < N }\nread { C[i] -> D[i] }\n", 3, 16, "unknown variable 'D'"},
    {"input { A[i] : 0 <= i < N }\noutput { C[i] : 0 <= i < N }\nread { A[i] -> C[i] }\n", 4, 8,
     "'A' is an input"},
    {"output { C[i] : 0 <= i < N }\nread { C[i] -> C[i,i] }\n", 3, 16,
     "'C' is declared with 1 index; this tuple has 2"},
    {"output { C[i] : 0 <= i < N }\nread { C[i] -> C[i-1] }\n", 3, 6,
     "reaches outside the domain of 'C', e.g. from [N = 1] -> { C[0] }"},
    {"output { C[i] : 0 <= i < N }\noutput { D[i] : 0 <= i < N }\nread { C[i] -> D[j] : 0 <= j < N }\n",
     4, 18, "unknown name 'j'"},
    {"output { C[i] : 0 <= i < N } delay 0\n", 2, 36, "delay 0 is out of range"},
    {"output { C[i] : 0 <= i < N } delay 2000000000\n", 2, 36, "out of range [1, 1073741824]"},
    {"input { A[i] : 0 <= i < N } delay 2\n", 2, 29, "an input is not computed"},
    {"output { C[i] : 0 <= i < N } delay 2 extra\n", 2, 38, "unexpected text after the delay"},
    {"output { C[i] : 0 <= i }\n", 2, 10, "unbounded"},
    {"output { C[i] : 0 <= i < N and i > N }\n", 2, 10, "empty for every parameter value"},
    {"output { C[i,j] : 0 <= i < N and j = i }\n", 2, 10, "is flat"},
    {"bind M = 3\n", 2, 6, "'M' is not a parameter"},
    {"bind N = 3, N = 4\n", 2, 13, "N is bound twice"},
    {"bind N = 99999999999999999999\n", 2, 10, "does not fit in 64 bits"},
    {"bind N = 2000000\n", 2, 10, "out of range"},
    {"output [M] -> { C[i] : 0 <= i < M }\n", 2, 9, "'M' is not a parameter of the system"},
    {"output { C[i] : 0 <= i < N }\nread { C[i] -> C[i-1] : i >= 1 } }\n", 3, 34,
     "'}' without a matching '{'"},
    {"output { C[i] : 0 <= i < N }\nread { C[i] -> C[j] : 0 <= j < N }\n", 3, 18,
     "unknown name 'j'"},
  };

  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
    snprintf(buf, sizeof(buf), "%s%s", P, cases[k].body);
    expect_error(buf, cases[k].line, cases[k].col, cases[k].part);
  }
  /* statements out of order, nothing declared, no output, an empty context */
  expect_error("output { C[i] : 0 <= i < 4 }\nparams [N] -> { : N >= 1 }\n", 2, 1,
               "'params' must come before");
  expect_error("\n# nothing\n", 0, 0, "no variable declared");
  expect_error("params [N] -> { : N >= 1 }\ninput { A[i] : 0 <= i < N }\n", 0, 0,
               "no output variable");
  expect_error("params [N] -> { : N >= 1 and N <= 0 }\n", 1, 8, "allows no parameter value");
  expect_error("params [N] -> { C[i] : N >= 1 }\n", 1, 17, "the context constrains parameters only");
}

Test(sare_read, missing_file_and_empty_file)
{
  struct acs_diag d;
  struct acs_sare *m;

  acs_diag_init(&d);
  cr_assert_eq(acs_sare_read("/nonexistent/x.sare", &m, &d), ACS_EIO);
  cr_assert_not_null(strstr(d.msg, "cannot open"));
  cr_assert_eq(read_text("", &d, &m), ACS_EPARSE);
  cr_assert_not_null(strstr(d.msg, "empty file"));
}

Test(sare_read, suffix_binds_and_names)
{
  struct acs_workload *w;
  struct acs_diag d;
  char spec[1024];

  acs_diag_init(&d);
  snprintf(spec, sizeof(spec), "%s:N=5", tu_path(EX("matmul")));
  cr_assert_eq(acs_workload_load(spec, &w, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(w->kind, ACS_WL_AFFINE);
  cr_assert_str_eq(w->name, "matmul[N=5]");
  cr_assert_eq(((struct acs_sare *)w->model)->value[0], 5);
  acs_workload_free(w);
  snprintf(spec, sizeof(spec), "%s:N=x", tu_path(EX("matmul")));
  cr_assert_eq(acs_workload_load(spec, &w, &d), ACS_EPARSE);
  cr_assert_not_null(strstr(d.msg, "is not an integer"), "%s", d.msg);
  snprintf(spec, sizeof(spec), "%s:Q=3", tu_path(EX("matmul")));
  cr_assert_eq(acs_workload_load(spec, &w, &d), ACS_EPARSE);
  cr_assert_not_null(strstr(d.msg, "'Q' is not a parameter"), "%s", d.msg);
}

Test(sare_read, spec_expansion)
{
  struct acs_diag d;
  char **v;
  size_t n;

  acs_diag_init(&d);
  cr_assert_eq(acs_sare_spec_expand("a/m.sare:N=2..16*2:K=1,3", &v, &n, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 8);
  cr_assert_str_eq(v[0], "a/m.sare:N=2:K=1");
  cr_assert_str_eq(v[1], "a/m.sare:N=2:K=3");
  cr_assert_str_eq(v[7], "a/m.sare:N=16:K=3");
  acs_suite_free(v, n);
  cr_assert_eq(acs_sare_spec_expand("m.sare:N=4..10+3", &v, &n, &d), ACS_OK);
  cr_assert_eq(n, 3);
  cr_assert_str_eq(v[2], "m.sare:N=10");
  acs_suite_free(v, n);
  cr_assert_eq(acs_sare_spec_expand("m.sare", &v, &n, &d), ACS_OK);
  cr_assert_eq(n, 1);
  acs_suite_free(v, n);
  cr_assert_eq(acs_sare_spec_expand("m.sare:N=8..4", &v, &n, &d), ACS_EPARSE);
  cr_assert_eq(acs_sare_spec_expand("m.sare:N=1..9*1", &v, &n, &d), ACS_EPARSE);
  cr_assert_eq(acs_sare_spec_expand("m.sare:N=1..1000000:K=1..100", &v, &n, &d), ACS_ERANGE);
  cr_assert_eq(acs_sare_spec_expand("m.csv", &v, &n, &d), ACS_EINVAL);
}

Test(sare_read, values_outside_the_context)
{
  struct acs_diag d;
  struct acs_sare *m;
  struct acs_sare_inst in;

  cr_assert_eq(read_text("params [N] -> { : N >= 2 }\nbind N = 1\noutput { C[i] : 0 <= i < N }\n",
                         &d, &m), ACS_OK);
  cr_assert_eq(acs_sare_inst_build(m, NULL, &in, &d), ACS_ERANGE);
  cr_assert_eq(d.line, 2);
  cr_assert_not_null(strstr(d.msg, "N = 1 lie outside the context"), "%s", d.msg);
  acs_sare_free(m);
  cr_assert_eq(read_text("params [N] -> { : N >= 2 }\noutput { C[i] : 0 <= i < N }\n", &d, &m),
               ACS_OK);
  cr_assert_eq(acs_sare_inst_build(m, NULL, &in, &d), ACS_EINVAL);
  cr_assert_not_null(strstr(d.msg, "parameter N has no value"), "%s", d.msg);
  acs_sare_free(m);
}

/* ---- instances and the instance DAG ---- */

Test(sare_inst, matmul_counts_and_edges)
{
  struct acs_sare *m = sare_read_ok(EX("matmul"));
  struct acs_sare_inst in;
  struct acs_graph g;
  struct acs_diag d;
  int64_t n3[] = {3};

  acs_diag_init(&d);
  cr_assert_eq(acs_sare_inst_build(m, n3, &in, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(in.nops, 27);
  cr_assert_eq(in.var[0].count, 9);      /* A, an input: enumerated, no op */
  cr_assert_eq(in.var[0].first_op, -1);
  cr_assert_eq(in.var[2].first_op, 0);
  cr_assert_eq(acs_sare_build_graph(m, &in, 1, "mm", "mm", &g, &d), ACS_OK, "%s", d.msg);
  /* only C -> C edges: 3 x 3 x 2 (k >= 1) */
  cr_assert_eq(g.nedges, 18);
  cr_assert_str_eq(g.ops[0].name, "C[0,0,0]");
  cr_assert_str_eq(g.ops[26].name, "C[2,2,2]");
  cr_assert_eq(acs_graph_find_op(&g, "C[1,2,1]") + 0, 1 * 9 + 2 * 3 + 1);
  acs_graph_destroy(&g);
  acs_sare_inst_free(&in);
  acs_sare_free(m);
}

Test(sare_inst, union_domains_and_triangles)
{
  struct acs_diag d;
  struct acs_sare *m;
  struct acs_sare_inst in;
  int64_t x[2];

  cr_assert_eq(read_text("params [N] -> { : N >= 1 }\nbind N = 4\n"
                         "output { T[i,j] : 0 <= j <= i < N or (i = N and j = 0) }\n", &d, &m),
               ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_sare_inst_build(m, NULL, &in, &d), ACS_OK, "%s", d.msg);
  /* a triangle of 10 points plus T[4,0] */
  cr_assert_eq(in.var[0].count, 11);
  x[0] = 4, x[1] = 0;
  cr_assert_eq(acs_sare_inst_rank(&in, m, 0, x), 10);
  x[0] = 1, x[1] = 2;
  cr_assert_eq(acs_sare_inst_rank(&in, m, 0, x), -1);
  acs_sare_inst_free(&in);
  acs_sare_free(m);
}

/* ---- the Farkas program against isl's Farkas dual ---- */

/* Appends u[col] = value to the program. */
static void lp_fix(struct acs_affine_lp *lp, int32_t col, int64_t value)
{
  int32_t w = lp->ncols + 1;
  int64_t *rows = realloc(lp->rows, (size_t)(lp->nrows + 1) * (size_t)w * sizeof(*rows));

  cr_assert_not_null(rows);
  lp->rows = rows;
  memset(rows + (size_t)lp->nrows * (size_t)w, 0, (size_t)w * sizeof(*rows));
  rows[(size_t)lp->nrows * (size_t)w + (size_t)col] = 1;
  rows[(size_t)lp->nrows * (size_t)w + (size_t)lp->ncols] = -value;
  lp->nrows++;
}

/*
 * For a one-variable system, the program with positivity alone admits
 * exactly the affine forms (tau, alpha) that are non-negative on the
 * domain: the set isl_set_coefficients computes by duality. Every integer
 * form in a box is checked both ways.
 */
static void farkas_matches_isl(const char *text, int64_t box)
{
  struct acs_diag d;
  struct acs_sare *m;
  struct acs_affine_lp base;
  uint8_t none[1] = {0};
  struct acs_affine_lp_sel sel = {none, NULL, 0, 0};
  int64_t c[4];
  int agree = 0, feasible = 0;

  cr_assert_eq(read_text(text, &d, &m), ACS_OK, "%s", d.msg);
  cr_assert_eq(m->nparams + m->vars[0].ndims, 3);
  isl_basic_set *coef = isl_set_coefficients(isl_set_copy(m->vars[0].domain));
  cr_assert_not_null(coef);
  for (c[0] = -box; c[0] <= box; c[0]++)
    for (c[1] = -box; c[1] <= box; c[1]++)
      for (c[2] = -box; c[2] <= box; c[2]++)
        for (c[3] = -box; c[3] <= box; c[3]++) {
          struct acs_affine_lp lp;
          cr_assert_eq(acs_affine_lp_build(m, &sel, &lp, &d), ACS_OK);
          /* isl: [c_cst, c_N, c_i, c_j]; ours: tau_N, tau_i, tau_j, alpha */
          int32_t v0 = lp.var_col[0];
          lp_fix(&lp, v0 + 0, c[1]);
          lp_fix(&lp, v0 + 1, c[2]);
          lp_fix(&lp, v0 + 2, c[3]);
          lp_fix(&lp, v0 + 3, c[0]);
          int ours = acs_affine_feasible(m->ctx, &lp);
          isl_basic_set *pt = isl_basic_set_copy(coef);
          for (int k = 0; k < 4; k++)
            pt = isl_basic_set_fix_si(pt, isl_dim_set, (unsigned)k, (int)c[k]);
          int theirs = isl_basic_set_is_empty(pt) == isl_bool_false;
          isl_basic_set_free(pt);
          cr_assert_eq(ours, theirs, "form %" PRId64 " + %" PRId64 "N + %" PRId64 "i + %" PRId64
                       "j: ours %d, isl %d", c[0], c[1], c[2], c[3], ours, theirs);
          agree++;
          feasible += ours;
          acs_affine_lp_free(&lp);
        }
  (void)base;
  isl_basic_set_free(coef);
  cr_assert_gt(feasible, 0);
  cr_assert_lt(feasible, agree);
  acs_sare_free(m);
}

Test(farkas, positivity_matches_isl_coefficients_on_a_triangle)
{
  farkas_matches_isl("params [N] -> { : N >= 1 }\n"
                     "output { C[i,j] : 0 <= i < N and 0 <= j <= i }\n", 2);
}

/* The form i >= 0 on { 2i - j >= 0, j >= 0 } needs multipliers 1/2: the
 * scale D = 2 makes integer multipliers enough. */
Test(farkas, non_unimodular_domain_needs_a_scale)
{
  struct acs_diag d;
  struct acs_sare *m;
  struct acs_affine_lp lp;
  uint8_t none[1] = {0};
  struct acs_affine_lp_sel sel = {none, NULL, 0, 0};

  farkas_matches_isl("params [N] -> { : N >= 1 }\n"
                     "output { C[i,j] : 0 <= j and 2i - j >= 0 and i <= N }\n", 2);
  cr_assert_eq(read_text("params [N] -> { : N >= 1 }\n"
                         "output { C[i,j] : 0 <= j and 2i - j >= 0 and i <= N }\n", &d, &m),
               ACS_OK);
  cr_assert_eq(acs_affine_lp_build(m, &sel, &lp, &d), ACS_OK);
  cr_assert_eq(lp.nfarkas, 1);
  cr_assert_eq(lp.farkas[0].scale % 2, 0, "scale %" PRId64, lp.farkas[0].scale);
  cr_assert(lp.farkas[0].exact);
  acs_affine_lp_free(&lp);
  acs_sare_free(m);
}

Test(farkas, minors_lcm_by_hand)
{
  const int64_t id[] = {1, 0, 0, 1};
  const int64_t diag[] = {2, 0, 0, 3};
  const int64_t rect[] = {1, 1, 0, 1, 2, 0}; /* 2 x 3: minors 1, 2, 1, ... and 1*2-1*1 = 1 */
  const int64_t big[] = {4, 1, 1, 4};       /* det 15, entries 4, 1 */

  cr_assert_eq(acs_affine_minors_lcm(id, 2, 2, 1000), 1);
  cr_assert_eq(acs_affine_minors_lcm(diag, 2, 2, 1000), 6);
  cr_assert_eq(acs_affine_minors_lcm(rect, 2, 3, 1000), 2);
  cr_assert_eq(acs_affine_minors_lcm(big, 2, 2, 1000), 60);
  cr_assert_eq(acs_affine_minors_lcm(big, 2, 2, 3), 0); /* 5 minors > limit 3 */
}

