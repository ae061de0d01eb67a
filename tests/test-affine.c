/*
 * test-affine.c - systems of affine recurrence equations (seed 003): the
 * .sare reader and its located errors, the Farkas program against isl's
 * own Farkas dual, the exact schedules of every shipped example against
 * the schedules derived by hand in their comments, the enumeration checker
 * (and that it catches wrong schedules), isl's Feautrier scheduler on the
 * same systems, the lowering onto PEs, its verification and simulation.
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

#define EX(name) "workloads/affine/" name ".sare"

/* ---- helpers ---- */

static struct acs_sare *read_ok(const char *rel)
{
  struct acs_sare *m = NULL;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_sare_read(tu_path(rel), &m, &d), ACS_OK, "%s: %s:%d:%d: %s", rel, d.file,
               d.line, d.col, d.msg);
  return m;
}

/* Writes text to a fresh file and reads it; returns the error code and
 * fills d. */
static int read_text(const char *text, struct acs_diag *d, struct acs_sare **m)
{
  static int n;
  char path[512];
  FILE *f;

  snprintf(path, sizeof(path), "%s/t%d.sare", tu_tmpdir(), n++);
  f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  acs_diag_init(d);
  *m = NULL;
  return acs_sare_read(path, m, d);
}

static void expect_error(const char *text, int line, int col, const char *part)
{
  struct acs_diag d;
  struct acs_sare *m;
  int err = read_text(text, &d, &m);

  cr_assert_lt(err, 0, "accepted: %s", text);
  cr_assert_null(m);
  cr_assert_eq(d.line, line, "line %d, expected %d: %s", d.line, line, d.msg);
  cr_assert_eq(d.col, col, "column %d, expected %d: %s", d.col, col, d.msg);
  cr_assert_not_null(strstr(d.msg, part), "message '%s' lacks '%s'", d.msg, part);
}

/* Builds and solves the program (default selection). */
static void solve_ok(const struct acs_sare *m, struct acs_affine_sched *s)
{
  struct acs_affine_lp lp;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_affine_lp_build(m, NULL, &lp, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_affine_solve(m->ctx, &lp, NULL, s, &d), ACS_OK, "%s: %s", m->path, d.msg);
  acs_affine_lp_free(&lp);
}

static void assert_latency_text(const struct acs_affine_sched *s, const struct acs_sare *m,
                                const char *want)
{
  char buf[512];

  acs_affine_text_latency(s, m, buf, sizeof(buf));
  cr_assert_str_eq(buf, want);
}

static void assert_var_text(const struct acs_affine_sched *s, const struct acs_sare *m,
                            const char *var, const char *want)
{
  char buf[512];
  int32_t v = acs_sare_find_var(m, var);

  cr_assert_geq(v, 0, "no variable %s", var);
  acs_affine_text_var(s, m, v, 1, buf, sizeof(buf));
  cr_assert_str_eq(buf, want);
}

/* Parameter values: every parameter n. */
static void values_all(const struct acs_sare *m, int64_t n, int64_t *vals)
{
  for (int32_t p = 0; p < m->nparams; p++)
    vals[p] = n;
}

/* ---- the reader ---- */

Test(sare_read, matmul_structure)
{
  struct acs_sare *m = read_ok(EX("matmul"));

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
    acs_sare_free(read_ok(rel));
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
  struct acs_sare *m = read_ok(EX("matmul"));
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

/* ---- schedules of the shipped examples (derived by hand in each file) ---- */

struct known {
  const char *file;
  const char *latency;
  const char *var[3];
  const char *sched[3];
};

static const struct known known[] = {
  {"matmul", "[N] -> { [(N)] }", {"C"}, {"[N] -> { C[i,j,k] -> [(k)] }"}},
  {"matvec", "[N] -> { [(N + 1)] }", {"s", "y"},
   {"[N] -> { s[i,j] -> [(j)] }", "[N] -> { y[i] -> [(N)] }"}},
  {"matmul_systolic", "[N] -> { [(2N)] }", {"a", "b", "c"},
   {"[N] -> { a[i,j,k] -> [(j)] }", "[N] -> { b[i,j,k] -> [(i)] }",
    "[N] -> { c[i,j,k] -> [(k + N)] }"}},
  {"fir", "[N, K] -> { [(2K + 1)] }", {"acc", "y"},
   {"[N, K] -> { acc[i,k] -> [(2k)] }", "[N, K] -> { y[i] -> [(2K)] }"}},
  {"conv1d", "[N, K] -> { [(K + 2)] }", {"xp", "acc", "y"},
   {"[N, K] -> { xp[i,k] -> [(k)] }", "[N, K] -> { acc[i,k] -> [(k + 1)] }",
    "[N, K] -> { y[i] -> [(K + 1)] }"}},
  {"conv2d", "[N, K] -> { [(2K + 1)] }", {"r", "s", "y"},
   {"[N, K] -> { r[i,j,p,q] -> [(q)] }", "[N, K] -> { s[i,j,p] -> [(p + K)] }",
    "[N, K] -> { y[i,j] -> [(2K)] }"}},
  {"editdist", "[N, M] -> { [(N + M + 1)] }", {"D"}, {"[N, M] -> { D[i,j] -> [(i + j)] }"}},
  {"prefix", "[NB, B] -> { [(NB + B)] }", {"p", "t", "S"},
   {"[NB, B] -> { p[b,k] -> [(k)] }", "[NB, B] -> { t[b] -> [(b + B)] }",
    "[NB, B] -> { S[b,k] -> [(b + B)] }"}},
};

Test(affine, examples_get_their_known_schedules)
{
  for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
    char rel[128];
    struct acs_affine_sched s;
    snprintf(rel, sizeof(rel), "workloads/affine/%s.sare", known[k].file);
    struct acs_sare *m = read_ok(rel);
    solve_ok(m, &s);
    assert_latency_text(&s, m, known[k].latency);
    for (int v = 0; v < 3 && known[k].var[v]; v++)
      assert_var_text(&s, m, known[k].var[v], known[k].sched[v]);
    acs_affine_sched_free(&s);
    acs_sare_free(m);
  }
}

/* Every parameter combination in 1..8 (1..4 for the larger ones): the
 * schedule is non-negative, every dependence instance holds with its
 * delay, and the latency is the last end. */
Test(affine, examples_verified_by_enumeration)
{
  for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
    char rel[128];
    struct acs_affine_sched s;
    struct acs_affine_check r;
    struct acs_diag d;
    int64_t vals[ACS_SARE_MAX_PARAMS], top;
    snprintf(rel, sizeof(rel), "workloads/affine/%s.sare", known[k].file);
    struct acs_sare *m = read_ok(rel);
    solve_ok(m, &s);
    top = m->nparams > 1 ? 6 : 8;
    for (int64_t a = 1; a <= top; a++)
      for (int64_t b = 1; b <= (m->nparams > 1 ? top : 1); b++) {
        int64_t lat;
        values_all(m, a, vals);
        if (m->nparams > 1)
          vals[1] = b;
        acs_diag_init(&d);
        cr_assert_eq(acs_affine_check_values(m, &s, vals, 1, &r, &d), ACS_OK, "%s at %" PRId64
                     ",%" PRId64 ": %s", known[k].file, a, b, d.msg);
        cr_assert_eq(acs_affine_latency(&s, vals, &lat), 0);
        cr_assert_eq(lat, r.latency);
        cr_assert_gt(r.dep_instances, 0);
      }
    acs_affine_sched_free(&s);
    acs_sare_free(m);
  }
}

/* Scheduling the inputs too (the seed's way) changes no latency. */
Test(affine, scheduled_inputs_give_the_same_latency)
{
  for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
    char rel[128], a[512], b[512];
    struct acs_affine_sched s, t;
    struct acs_affine_lp lp;
    struct acs_affine_lp_sel sel = {NULL, NULL, 1, 1};
    struct acs_diag d;
    snprintf(rel, sizeof(rel), "workloads/affine/%s.sare", known[k].file);
    struct acs_sare *m = read_ok(rel);
    solve_ok(m, &s);
    acs_diag_init(&d);
    cr_assert_eq(acs_affine_lp_build(m, &sel, &lp, &d), ACS_OK);
    cr_assert_eq(acs_affine_solve(m->ctx, &lp, NULL, &t, &d), ACS_OK, "%s", d.msg);
    acs_affine_text_latency(&s, m, a, sizeof(a));
    acs_affine_text_latency(&t, m, b, sizeof(b));
    cr_assert_str_eq(a, b, "%s", known[k].file);
    /* the inputs are never needed later than time 0 */
    for (int32_t v = 0; v < m->nvars; v++)
      if (!acs_sare_computed(m, v))
        assert_var_text(&t, m, m->vars[v].name, (acs_affine_text_var(&s, m, v, 1, a, sizeof(a)), a));
    acs_affine_lp_free(&lp);
    acs_affine_sched_free(&s);
    acs_affine_sched_free(&t);
    acs_sare_free(m);
  }
}

/* The checker rejects schedules that break each rule, naming instances. */
Test(affine, checker_catches_wrong_schedules)
{
  struct acs_sare *m = read_ok(EX("matvec"));
  struct acs_affine_sched s;
  struct acs_affine_check r;
  struct acs_diag d;
  int64_t n4[] = {4};
  int32_t sv = acs_sare_find_var(m, "s"), yv = acs_sare_find_var(m, "y");
  int64_t *ts = s.coef;

  solve_ok(m, &s);
  ts = s.coef + s.off[sv];
  /* s[i,j] = j - 1: s[0,0] at -1 */
  ts[m->nparams + 2] = -1;
  acs_diag_init(&d);
  cr_assert_eq(acs_affine_check_values(m, &s, n4, 1, &r, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "s[0,0] is scheduled at -1"), "%s", d.msg);
  /* s[i,j] = 0: s[0,1] reads s[0,0] at the same time */
  ts[m->nparams + 2] = 0;
  ts[m->nparams + 1] = 0;
  cr_assert_eq(acs_affine_check_values(m, &s, n4, 1, &r, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "s[0,1] starts at 0 but reads s[0,0], which starts at 0"),
                     "%s", d.msg);
  cr_assert_eq(d.line, 12);
  /* back to j, but the latency bound one too high */
  ts[m->nparams + 1] = 1;
  s.phi[1] += 1;
  cr_assert_eq(acs_affine_check_values(m, &s, n4, 1, &r, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "latency bound gives 6 cycles but the last instance ends at 5"),
                     "%s", d.msg);
  (void)yv;
  acs_affine_sched_free(&s);
  acs_sare_free(m);
}

Test(affine, no_one_dimensional_schedule_names_the_cycle)
{
  struct acs_sare *m = read_ok(EX("flatten"));
  struct acs_affine_lp lp;
  struct acs_affine_sched s;
  struct acs_diag d;
  char msg[1024];

  acs_diag_init(&d);
  cr_assert_eq(acs_affine_lp_build(m, NULL, &lp, &d), ACS_OK);
  cr_assert_eq(acs_affine_solve(m->ctx, &lp, NULL, &s, &d), ACS_EINFEASIBLE);
  cr_assert_eq(acs_affine_explain_infeasible(m->ctx, m, msg, sizeof(msg)), ACS_OK);
  cr_assert_not_null(strstr(msg, "no one-dimensional affine schedule"), "%s", msg);
  cr_assert_not_null(strstr(msg, "cycle S -> S"), "%s", msg);
  cr_assert_not_null(strstr(msg, "line 10 { S[i,j] -> S[i,j-1] : j >= 1 }"), "%s", msg);
  cr_assert_not_null(strstr(msg, "line 11 { S[i,j] -> S[i-1,N-1] : j = 0 and i >= 1 }"), "%s", msg);
  /* the read of the input is no part of it */
  cr_assert_null(strstr(msg, "line 12"), "%s", msg);
  acs_affine_lp_free(&lp);
  acs_sare_free(m);
}

/* A cycle through two variables, with a third dependence that is innocent. */
Test(affine, two_variable_cycle_is_named)
{
  struct acs_diag d;
  struct acs_sare *m;
  char msg[1024];

  cr_assert_eq(read_text("params [N] -> { : N >= 1 }\nbind N = 3\n"
                         "local { a[i,j] : 0 <= i, j < N }\n"
                         "output { b[i,j] : 0 <= i, j < N }\n"
                         "read { a[i,j] -> b[i,j-1] : j >= 1 }\n"
                         "read { b[i,j] -> a[i,j] }\n"
                         "read { a[i,j] -> b[i-1,N-1] : j = 0 and i >= 1 }\n",
                         &d, &m), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_affine_explain_infeasible(m->ctx, m, msg, sizeof(msg)), ACS_OK);
  cr_assert(strstr(msg, "cycle a -> b -> a") || strstr(msg, "cycle b -> a -> b"), "%s", msg);
  cr_assert_not_null(strstr(msg, "line 7"), "%s", msg);
  acs_sare_free(m);
}

/* ---- isl's scheduler in Feautrier mode ---- */

/* isl's first schedule dimension, checked by enumeration: its latency at
 * N (every parameter N), or -1 when it is no one-dimensional schedule. */
static int64_t isl_latency(const struct acs_sare *m, int64_t n, char *why, size_t size)
{
  struct acs_diag d;
  int64_t vals[ACS_SARE_MAX_PARAMS], lat;

  acs_diag_init(&d);
  values_all(m, n, vals);
  if (acs_affine_isl_latency(m, vals, &lat, &d) < 0)
    snprintf(why, size, "%s", d.msg);
  return lat;
}

static int64_t our_latency(const struct acs_sare *m, int64_t n)
{
  struct acs_affine_sched s;
  int64_t vals[ACS_SARE_MAX_PARAMS], lat;

  solve_ok(m, &s);
  values_all(m, n, vals);
  cr_assert_eq(acs_affine_latency(&s, vals, &lat), 0);
  acs_affine_sched_free(&s);
  return lat;
}

Test(isl_feautrier, same_latency_where_it_minimizes_the_same_thing)
{
  static const char *const same[] = {"matmul", "matvec", "conv2d", "editdist", "prefix"};
  char why[1024];

  for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
    char rel[128];
    snprintf(rel, sizeof(rel), "workloads/affine/%s.sare", same[k]);
    struct acs_sare *m = read_ok(rel);
    for (int64_t n = 1; n <= 8; n++) {
      why[0] = '\0';
      int64_t theirs = isl_latency(m, n, why, sizeof(why)), ours = our_latency(m, n);
      cr_assert_eq(theirs, ours, "%s N=%" PRId64 ": isl %" PRId64 ", acsim %" PRId64 " %s",
                   same[k], n, theirs, ours, why);
    }
    acs_sare_free(m);
  }
}

/*
 * matmul_systolic: isl's Feautrier mode carries every dependence with the
 * smallest schedule coefficients, parameters first, so it keeps T_c free
 * of N and takes i + j + k + 1 (latency 3N - 1); the latency bound of the
 * seed's program prefers k + N (2N), which needs a parameter coefficient.
 * Both are valid; acsim's is shorter from N = 2 on and optimal (c[N-1,N-1,0]
 * waits for a[.,N-1,.], so c[N-1,N-1,N-1] cannot end before 2N).
 */
Test(isl_feautrier, systolic_matmul_isl_keeps_the_parameter_out)
{
  struct acs_sare *m = read_ok(EX("matmul_systolic"));
  char why[1024];

  for (int64_t n = 1; n <= 8; n++) {
    int64_t theirs = isl_latency(m, n, why, sizeof(why)), ours = our_latency(m, n);
    cr_assert_eq(theirs, 3 * n - 1, "isl %" PRId64 " at N=%" PRId64, theirs, n);
    cr_assert_eq(ours, 2 * n);
  }
  acs_sare_free(m);
}

/*
 * conv1d: isl's first dimension schedules the travelling input xp at -i
 * (one step per hop, without a parameter), which spans N - 1 more cycles
 * than acsim's k, a schedule of the same dependences whose latency K + 2
 * does not depend on N.
 */
Test(isl_feautrier, conv1d_isl_schedules_the_pipeline_backwards)
{
  struct acs_sare *m = read_ok(EX("conv1d"));
  char why[1024];

  for (int64_t n = 1; n <= 8; n++) {
    int64_t theirs = isl_latency(m, n, why, sizeof(why)), ours = our_latency(m, n);
    cr_assert_eq(ours, n + 2);                 /* K + 2 with K = n */
    cr_assert_eq(theirs, n + n + 1, "isl %" PRId64 " at %" PRId64 ": %s", theirs, n, why);
  }
  acs_sare_free(m);
}

/*
 * fir: isl's dependences have distance one, so acc's delay of 2 becomes a
 * copy statement acc -> acc__1 -> acc[k+1]; isl's first dimension (k)
 * carries acc__1 -> acc but leaves acc -> acc__1 to a later dimension, so
 * it is no one-dimensional schedule of the delayed system. With the delay
 * set to 1 the systems agree: latency K + 1 both ways.
 */
Test(isl_feautrier, fir_delays_are_left_to_later_dimensions)
{
  struct acs_sare *m = read_ok(EX("fir"));
  struct acs_diag d;
  char why[1024], text[2048];
  FILE *f;

  cr_assert_eq(isl_latency(m, 4, why, sizeof(why)), -1);
  cr_assert_not_null(strstr(why, "takes 2 cycles"), "%s", why);
  acs_sare_free(m);
  f = fopen(tu_path(EX("fir")), "r");
  cr_assert_not_null(f);
  size_t len = fread(text, 1, sizeof(text) - 1, f);
  fclose(f);
  text[len] = '\0';
  char *delay = strstr(text, "delay 2");
  cr_assert_not_null(delay);
  delay[6] = '1';
  cr_assert_eq(read_text(text, &d, &m), ACS_OK, "%s", d.msg);
  for (int64_t n = 1; n <= 8; n++) {
    int64_t theirs = isl_latency(m, n, why, sizeof(why)), ours = our_latency(m, n);
    cr_assert_eq(ours, n + 1);
    cr_assert_eq(theirs, ours, "isl %" PRId64 " at %" PRId64 ": %s", theirs, n, why);
  }
  acs_sare_free(m);
}

Test(isl_feautrier, flatten_has_no_one_dimensional_schedule_either)
{
  struct acs_sare *m = read_ok(EX("flatten"));
  char why[1024];

  for (int64_t n = 2; n <= 4; n++)
    cr_assert_eq(isl_latency(m, n, why, sizeof(why)), -1, "N=%" PRId64, n);
  acs_sare_free(m);
}

/* ---- the variant: lowering, verification, simulation ---- */

struct run {
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
};

static int run_affine(struct run *R, const char *spec, const char *const *sets,
                      const char *opt_key, const char *opt_val, struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find("affine");
  struct acs_platform p;
  struct acs_sched_ctx ctx = {1, 0, NULL};
  char opts[64];
  int err;

  acs_diag_init(d);
  cr_assert_eq(acs_workload_load(spec, &R->w, d), ACS_OK, "%s", d->msg);
  acs_platform_init(&p);
  for (int k = 0; sets && sets[k]; k++)
    cr_assert_eq(acs_platform_set_kv(&p, sets[k], d), ACS_OK);
  cr_assert_eq(acs_workload_build(R->w, &p, &R->g, d), ACS_OK, "%s", d->msg);
  cr_assert_eq(acs_problem_init(&R->pb, &R->g, &p, d), ACS_OK);
  acs_workload_bind(R->w, &R->pb);
  cr_assert_eq(acs_sched_opts_defaults(ops, opts), ACS_OK);
  if (opt_key)
    cr_assert_eq(acs_sched_opts_set(ops, opts, opt_key, opt_val, d), ACS_OK);
  cr_assert_eq(acs_schedule_init_problem(&R->s, &R->pb), ACS_OK);
  err = ops->schedule(&R->pb, opts, &ctx, &R->s, d);
  return err;
}

static void run_free(struct run *R)
{
  acs_schedule_destroy(&R->s);
  acs_problem_destroy(&R->pb);
  acs_graph_destroy(&R->g);
  acs_workload_free(R->w);
}

static int64_t attr_i64(const struct acs_schedule *s, const char *name)
{
  const struct acs_rtab *t = acs_schedule_find_rtab(s, "affine");
  const struct acs_rtab_attr *a = t ? acs_rtab_attr_find(t, name) : NULL;

  cr_assert_not_null(a, "no attribute %s", name);
  return a->v.i;
}

/* With PEs for the whole array every op starts at its affine time, so the
 * makespan is the latency. */
Test(lower, unfolded_array_runs_at_affine_times)
{
  static const char *const ex[] = {"matmul", "matvec", "matmul_systolic", "fir", "conv1d",
                                   "conv2d", "editdist", "prefix"};
  const char *sets[] = {"pe_count=100000", NULL};

  for (size_t k = 0; k < sizeof(ex) / sizeof(ex[0]); k++) {
    struct run R;
    struct acs_diag d;
    char rel[128];
    snprintf(rel, sizeof(rel), "workloads/affine/%s.sare", ex[k]);
    cr_assert_eq(run_affine(&R, tu_path(rel), sets, NULL, NULL, &d), ACS_OK, "%s: %s", ex[k],
                 d.msg);
    tu_assert_verified(&R.s);
    int64_t lat = attr_i64(&R.s, "latency_cycles");
    cr_assert_eq(R.s.makespan, lat, "%s: makespan %" PRId64 ", latency %" PRId64, ex[k],
                 R.s.makespan, lat);
    cr_assert_leq(attr_i64(&R.s, "virtual_pes"), 100000);
    /* the lowering keeps every op at T: the op count of the graph */
    cr_assert_eq(attr_i64(&R.s, "lowered_makespan"), lat);
    run_free(&R);
  }
}

/* Folded onto 4 PEs: matmul at N = 8 is 512 one-cycle ops, balanced. */
Test(lower, folded_matmul_is_balanced)
{
  struct run R;
  struct acs_diag d;
  int64_t busy[4] = {0};

  cr_assert_eq(run_affine(&R, tu_path(EX("matmul")), NULL, NULL, NULL, &d), ACS_OK, "%s", d.msg);
  tu_assert_verified(&R.s);
  cr_assert_eq(attr_i64(&R.s, "virtual_pes"), 64);
  cr_assert_eq(R.s.makespan, 512 / 4);
  for (int32_t i = 0; i < R.s.nops; i++)
    busy[R.s.ops[i].unit] += R.s.ops[i].dur;
  for (int p = 0; p < 4; p++)
    cr_assert_eq(busy[p], 128);
  cr_assert_eq(attr_i64(&R.s, "transfers"), 0);
  run_free(&R);
}

/* Block folding keeps neighbours together: fewer transfers than cyclic. */
Test(lower, block_folding_moves_less)
{
  struct run a, b;
  struct acs_diag d;
  char spec[1024];

  snprintf(spec, sizeof(spec), "%s:N=8:M=8", tu_path(EX("editdist")));
  cr_assert_eq(run_affine(&a, spec, NULL, NULL, NULL, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(run_affine(&b, spec, NULL, "fold", "block", &d), ACS_OK, "%s", d.msg);
  tu_assert_verified(&a.s);
  tu_assert_verified(&b.s);
  cr_assert_lt(attr_i64(&b.s, "transfers"), attr_i64(&a.s, "transfers"));
  cr_assert_geq(a.s.makespan, attr_i64(&a.s, "latency_cycles"));
  run_free(&a);
  run_free(&b);
}

/* Transfers: on the systolic array, a and b live on other PEs than c; each
 * value crossing PEs gets one pe -> pe transfer of bytes_per_elem bytes,
 * which SimGrid runs over the local links: the simulation ends a fraction
 * of a cycle per hop after the plan, never before. */
Test(lower, systolic_transfers_are_simulated)
{
  const char *sets[] = {"pe_count=64", "bytes_per_elem=2", NULL};
  struct acs_sim_result r;
  struct acs_diag d;
  struct run R;
  int64_t xfers = 0;

  cr_assert_eq(run_affine(&R, tu_path(EX("matmul_systolic")), sets, NULL, NULL, &d), ACS_OK,
               "%s", d.msg);
  tu_assert_verified(&R.s);
  for (int32_t i = R.s.norig; i < R.s.nops; i++) {
    cr_assert_eq(R.s.ops[i].kind, ACS_OP_DMA);
    cr_assert_eq(R.s.ops[i].src, ACS_MEM_PE);
    cr_assert_eq(R.s.ops[i].bytes, 2);
    xfers++;
  }
  /* N = 4: every c instance reads a and b from their own PEs: 2 x 64 */
  cr_assert_eq(xfers, 128);
  cr_assert_eq(attr_i64(&R.s, "transfers"), 128);
  cr_assert_eq(attr_i64(&R.s, "transfer_bytes"), 256);
  acs_diag_init(&d);
  cr_assert_eq(acs_sim_run(&R.pb.plat, &R.s, NULL, &r, &d), ACS_OK, "%s", d.msg);
  cr_assert_geq(r.makespan_cycles, (double)R.s.makespan - 1e-6);
  cr_assert_lt(r.makespan_cycles, (double)R.s.makespan + 1.0);
  cr_assert_eq(r.ddr_bytes, 0); /* local links only */
  for (int32_t i = R.s.norig; i < R.s.nops; i++)
    cr_assert_gt(R.s.ops[i].sim_end, R.s.ops[i].sim_start, "transfer %s took no time",
                 R.s.ops[i].name);
  run_free(&R);
}

Test(lower, flatten_run_is_infeasible_with_the_cycle)
{
  struct run R;
  struct acs_diag d;

  cr_assert_eq(run_affine(&R, tu_path(EX("flatten")), NULL, NULL, NULL, &d), ACS_EINFEASIBLE);
  cr_assert_not_null(strstr(d.msg, "cycle S -> S"), "%s", d.msg);
  run_free(&R);
}

Test(lower, result_table_has_the_vectors)
{
  struct run R;
  struct acs_diag d;
  const struct acs_rtab *t;

  cr_assert_eq(run_affine(&R, tu_path(EX("matmul")), NULL, "isl", "1", &d), ACS_OK, "%s", d.msg);
  t = acs_schedule_find_rtab(&R.s, "affine");
  cr_assert_not_null(t);
  cr_assert(t->show);
  cr_assert_eq(t->nrows, 3);
  cr_assert_str_eq(acs_rtab_get(t, 2, acs_rtab_col_find(t, "variable")).s, "C");
  cr_assert_str_eq(acs_rtab_get(t, 2, acs_rtab_col_find(t, "tau")).s, "[N] -> { C[i,j,k] -> [(k)] }");
  cr_assert_str_eq(acs_rtab_get(t, 2, acs_rtab_col_find(t, "alpha")).s, "0");
  cr_assert_str_eq(acs_rtab_get(t, 2, acs_rtab_col_find(t, "projection")).s, "(0,0,1)");
  cr_assert_str_eq(acs_rtab_attr_find(t, "latency")->v.s, "[N] -> { [(N)] }");
  cr_assert_eq(attr_i64(&R.s, "latency_cycles"), 8);
  cr_assert_eq(attr_i64(&R.s, "isl_latency_cycles"), 8);
  run_free(&R);
}

/* The latency text is isl notation: isl reads it back as the same function. */
Test(lower, latency_text_is_isl_notation)
{
  struct acs_sare *m = read_ok(EX("conv2d"));
  struct acs_affine_sched s;
  char buf[512];

  solve_ok(m, &s);
  acs_affine_text_latency(&s, m, buf, sizeof(buf));
  isl_set *a = isl_set_read_from_str(m->ctx, "[N, K] -> { [2K + 1] }");
  char map[600];
  snprintf(map, sizeof(map), "%s", buf);
  /* "{ [(2K + 1)] }" read as a set of one point per parameter value */
  isl_set *b = isl_set_read_from_str(m->ctx, map);
  cr_assert_not_null(b, "isl cannot read %s", buf);
  cr_assert_eq(isl_set_is_equal(a, b), isl_bool_true);
  isl_set_free(a);
  isl_set_free(b);
  for (int32_t v = 0; v < m->nvars; v++) {
    acs_affine_text_var(&s, m, v, 1, buf, sizeof(buf));
    isl_map *mp = isl_map_read_from_str(m->ctx, buf);
    cr_assert_not_null(mp, "isl cannot read %s", buf);
    isl_map_free(mp);
  }
  acs_affine_sched_free(&s);
  acs_sare_free(m);
}

/* A transfer with two producers, or feeding two PEs, is refused. */
Test(lower, verifier_checks_pe_transfers)
{
  struct run R;
  struct acs_diag d;
  const char *sets[] = {"pe_count=4096", NULL};

  cr_assert_eq(run_affine(&R, tu_path(EX("matmul_systolic")), sets, NULL, NULL, &d), ACS_OK);
  int32_t x = R.s.norig;
  cr_assert_eq(acs_schedule_add_edge(&R.s, 0, x, ACS_EDGE_DATA), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&R.s, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "has more than one data predecessor"), "%s", d.msg);
  run_free(&R);
}

/* list runs on the same instance DAG: it cannot beat the latency when the
 * array is as large as the instance DAG needs, and the two agree on
 * matmul. */
Test(lower, list_on_the_instance_dag)
{
  const struct acs_sched_ops *list = acs_sched_find("list");
  struct acs_sched_ctx ctx = {1, 0, NULL};
  const char *sets[] = {"pe_count=64", NULL};
  struct acs_schedule ls;
  struct acs_diag d;
  struct run R;
  char opts[256];

  cr_assert(acs_sched_accepts(list, ACS_WL_AFFINE));
  cr_assert_eq(run_affine(&R, tu_path(EX("matmul")), sets, NULL, NULL, &d), ACS_OK);
  cr_assert_eq(acs_sched_opts_defaults(list, opts), ACS_OK);
  cr_assert_eq(acs_schedule_init_problem(&ls, &R.pb), ACS_OK);
  cr_assert_eq(list->schedule(&R.pb, opts, &ctx, &ls, &d), ACS_OK, "%s", d.msg);
  tu_assert_verified(&ls);
  acs_schedule_finish(&ls);
  cr_assert_eq(ls.makespan, 8);
  cr_assert_eq(R.s.makespan, 8);
  acs_schedule_destroy(&ls);
  run_free(&R);
}

/* ---- multidimensional schedules (Feautrier's part II) ---- */

Test(multi, flatten_gets_rows_i_then_j)
{
  struct acs_sare *m = read_ok(EX("flatten"));
  struct acs_affine_msched ms;
  struct acs_affine_check r;
  struct acs_diag d;
  char buf[512];
  int32_t S = acs_sare_find_var(m, "S");

  acs_diag_init(&d);
  cr_assert_eq(acs_affine_solve_multi(m->ctx, m, 4, NULL, &ms, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(ms.ndims, 2);
  acs_affine_text_multi(&ms, m, S, 1, buf, sizeof(buf));
  cr_assert_str_eq(buf, "[N] -> { S[i,j] -> [(i), (j)] }");
  /* the jump from row i-1 to row i is carried first, the walk along a row second */
  cr_assert_eq(ms.level[1], 0);
  cr_assert_eq(ms.level[0], 1);
  for (int64_t n = 1; n <= 8; n++)
    cr_assert_eq(acs_affine_check_multi(m, &ms, &n, &r, &d), ACS_OK, "N=%" PRId64 ": %s", n, d.msg);
  /* rows swapped: (j, i) runs S[1,0] before S[0,3] */
  struct acs_affine_sched tmp = ms.row[0];
  ms.row[0] = ms.row[1];
  ms.row[1] = tmp;
  int64_t n4 = 4;
  cr_assert_eq(acs_affine_check_multi(m, &ms, &n4, &r, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "does not come after it"), "%s", d.msg);
  acs_affine_msched_free(&ms);
  acs_sare_free(m);
}

/* A cube scanned as one sequence needs three rows; two are not enough. */
Test(multi, three_dimensions_when_two_do_not_carry_everything)
{
  const char *text = "params [N] -> { : N >= 1 }\nbind N = 3\n"
                     "output { S[i,j,k] : 0 <= i, j, k < N }\n"
                     "read { S[i,j,k] -> S[i,j,k-1] : k >= 1 }\n"
                     "read { S[i,j,k] -> S[i,j-1,N-1] : k = 0 and j >= 1 }\n"
                     "read { S[i,j,k] -> S[i-1,N-1,N-1] : k = 0 and j = 0 and i >= 1 }\n";
  struct acs_affine_msched ms;
  struct acs_affine_check r;
  struct acs_diag d;
  struct acs_sare *m;
  char buf[512];

  cr_assert_eq(read_text(text, &d, &m), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_affine_solve_multi(m->ctx, m, 2, NULL, &ms, &d), ACS_EINFEASIBLE);
  cr_assert_not_null(strstr(d.msg, "no schedule in 2 dimensions"), "%s", d.msg);
  cr_assert_eq(acs_affine_solve_multi(m->ctx, m, 3, NULL, &ms, &d), ACS_OK, "%s", d.msg);
  acs_affine_text_multi(&ms, m, 0, 1, buf, sizeof(buf));
  cr_assert_str_eq(buf, "[N] -> { S[i,j,k] -> [(i), (j), (k)] }");
  for (int64_t n = 1; n <= 5; n++)
    cr_assert_eq(acs_affine_check_multi(m, &ms, &n, &r, &d), ACS_OK, "%s", d.msg);
  acs_affine_msched_free(&ms);
  acs_sare_free(m);
}

/* The variant with -O dims=2: lowered in the rows' order, verified, and as
 * long as list on the same chain (N^2 one-cycle ops in sequence). */
Test(multi, variant_lowers_the_rows_order)
{
  struct run R;
  struct acs_diag d;
  const struct acs_rtab *t;
  char spec[1024];

  snprintf(spec, sizeof(spec), "%s:N=5", tu_path(EX("flatten")));
  cr_assert_eq(run_affine(&R, spec, NULL, "dims", "2", &d), ACS_OK, "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "no one-dimensional schedule (the cycle S -> S); "
                                   "2-dimensional schedule"), "%s", d.msg);
  tu_assert_verified(&R.s);
  cr_assert_eq(R.s.makespan, 25);
  t = acs_schedule_find_rtab(&R.s, "affine");
  cr_assert_eq(attr_i64(&R.s, "dims"), 2);
  cr_assert_eq(attr_i64(&R.s, "latency_cycles"), -1);
  cr_assert_str_eq(acs_rtab_get(t, 1, acs_rtab_col_find(t, "tau")).s, "[N] -> { S[i,j] -> [(i), (j)] }");
  cr_assert_str_eq(acs_rtab_get(t, 1, acs_rtab_col_find(t, "alpha")).s, "0, 0");
  run_free(&R);
}

/* With a one-dimensional schedule, dims changes nothing. */
Test(multi, dims_is_a_fallback_only)
{
  struct run a, b;
  struct acs_diag d;

  cr_assert_eq(run_affine(&a, tu_path(EX("editdist")), NULL, NULL, NULL, &d), ACS_OK);
  cr_assert_eq(run_affine(&b, tu_path(EX("editdist")), NULL, "dims", "3", &d), ACS_OK);
  cr_assert_eq(attr_i64(&b.s, "dims"), 1);
  cr_assert_eq(a.s.makespan, b.s.makespan);
  cr_assert_eq(attr_i64(&a.s, "latency_cycles"), attr_i64(&b.s, "latency_cycles"));
  run_free(&a);
  run_free(&b);
}
