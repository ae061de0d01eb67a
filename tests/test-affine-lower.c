/*
 * test-affine-lower.c - the affine variant lowered onto PEs, verified and
 * simulated; multidimensional schedules (Feautrier's part II).
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
  struct acs_sched_ctx ctx = {1, 0, NULL, NULL, 0};
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
  struct acs_sare *m = sare_read_ok(EX("conv2d"));
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
  struct acs_sched_ctx ctx = {1, 0, NULL, NULL, 0};
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
  struct acs_sare *m = sare_read_ok(EX("flatten"));
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
