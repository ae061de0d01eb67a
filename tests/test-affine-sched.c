/*
 * test-affine-sched.c - the exact schedules of every shipped .sare example
 * against the schedules derived by hand in their comments, the enumeration
 * checker (and that it catches wrong schedules), isl's Feautrier scheduler
 * on the same systems.
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
    struct acs_sare *m = sare_read_ok(rel);
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
    struct acs_sare *m = sare_read_ok(rel);
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
    struct acs_sare *m = sare_read_ok(rel);
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
  struct acs_sare *m = sare_read_ok(EX("matvec"));
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
  struct acs_sare *m = sare_read_ok(EX("flatten"));
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
    struct acs_sare *m = sare_read_ok(rel);
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
  struct acs_sare *m = sare_read_ok(EX("matmul_systolic"));
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
  struct acs_sare *m = sare_read_ok(EX("conv1d"));
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
  struct acs_sare *m = sare_read_ok(EX("fir"));
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
  struct acs_sare *m = sare_read_ok(EX("flatten"));
  char why[1024];

  for (int64_t n = 2; n <= 4; n++)
    cr_assert_eq(isl_latency(m, n, why, sizeof(why)), -1, "N=%" PRId64, n);
  acs_sare_free(m);
}

