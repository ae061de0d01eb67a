/*
 * test-modulo-search.c - the modulo scheduler (seed 001): MII proven
 * unreachable, the heuristic search (every arm, gallop, stage cap,
 * interrupt), the independent checker against broken schedules.
 *
 * Values are derived independently of the code under test: by hand (in the
 * comments), by brute-force enumeration of start times, or by the
 * scheduler's own independent checker on every produced schedule. Loops
 * copied from the HatScheT set are in tests/data/loops (README there).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/sched/modulo/modulo_int.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

#include "tests/modulo_util.h"

/* ---- MII provably unreachable ---- */

/*
 * unreachable.csv: ops a, b on one unit (latency 2, blocking 1), a -> b
 * and b -> a at distance 2. By enumeration: with t_a fixed at 0 (any
 * schedule can be shifted), every t_b in [0, 2 II + 2] and both units
 * orders, no schedule satisfies the edges and the unit at II = 2; one does
 * at II = 3. (Starts beyond 2 II + 2 break b -> a.)
 */
static int enumerate_feasible(int64_t ii)
{
  for (int64_t tb = 0; tb <= 2 * ii + 2; tb++) {
    int deps = tb >= 0 + 2 && 0 + 2 * ii >= tb + 2;
    int unit = (tb % ii) != 0; /* one unit, blocking 1: distinct residues */
    if (deps && unit)
      return 1;
  }
  return 0;
}

Test(unreachable, mii_is_proven_unreachable)
{
  struct acs_workload *w = loop_load_ok(LP("unreachable.csv"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;

  cr_assert_eq(enumerate_feasible(2), 0);
  cr_assert_eq(enumerate_feasible(3), 1);
  loop_bind(&b, w->model, NULL);
  /* Heuristic: MII 2 (ResMII 2, RecMII ceil(4 / 2) = 2), II 3, not proven. */
  defaults(&o);
  search_ok(&b.m, &o, &r);
  cr_assert_eq(r.mii.res, 2);
  cr_assert_eq(r.mii.rec, 2);
  cr_assert_eq(r.mii.mii, 2);
  cr_assert_eq(r.ii, 3);
  cr_assert_eq(r.proven, 0);
  cr_assert_eq(r.tries[0].ii, 2);
  cr_assert_eq(r.tries[0].ok, 0);
  acs__mresult_free(&r);
  /* Exact: II 2 proven infeasible, so 3 is proven minimal. */
  o.exact = 1;
  search_ok(&b.m, &o, &r);
  cr_assert_eq(r.ii, 3);
  cr_assert_eq(r.proven, 1);
  cr_assert_eq(r.exact_status, ACS_OK);
  int proved2 = 0;
  for (size_t k = 0; k < r.ntries; k++)
    proved2 |= r.tries[k].ii == 2 && r.tries[k].ok == -1;
  cr_assert(proved2, "II 2 not recorded as proven infeasible");
  cr_assert_not_null(strstr(r.note, "proven infeasible"), "%s", r.note);
  acs__mresult_free(&r);
  loop_unbind(&b);
  acs_workload_free(w);
}

Test(unreachable, failure_diagnostics_name_op_window_and_pool)
{
  struct acs_workload *w = loop_load_ok(LP("unreachable.csv"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;

  loop_bind(&b, w->model, NULL);
  defaults(&o);
  o.arms = 0;
  o.restarts = 0;
  search_ok(&b.m, &o, &r);
  const struct acs_mfail *f = &r.tries[0].fail;
  cr_assert_eq(r.tries[0].ok, 0);
  cr_assert(f->set);
  cr_assert_eq(f->ii, 2);
  cr_assert_str_eq(f->arm, "ims");
  cr_assert(f->op == 0 || f->op == 1);
  cr_assert_eq(f->occ, 1);
  acs__mresult_free(&r);
  loop_unbind(&b);
  acs_workload_free(w);
}

/* ---- schedules ---- */

Test(heuristic, shipped_loops_verified_and_deterministic)
{
  static const char *const files[] = {LP("iir_biqu.graphml"), LP("graph18.graphml"),
                                      LP("fir_gen.graphml"), LP("tiny.graphml"), LP("fir.csv")};
  for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
    struct acs_workload *w = loop_load_ok(files[k]);
    struct bound b;
    struct acs_mopts o;
    struct acs_mresult r1, r2;
    loop_bind(&b, w->model, NULL);
    defaults(&o);
    search_ok(&b.m, &o, &r1);
    search_ok(&b.m, &o, &r2);
    cr_assert_eq(r1.ii, r2.ii);
    cr_assert_eq(memcmp(r1.t, r2.t, sizeof(int64_t) * (size_t)b.m.n), 0, "%s", files[k]);
    cr_assert_eq(memcmp(r1.unit, r2.unit, sizeof(int32_t) * (size_t)b.m.n), 0);
    cr_assert_geq(r1.ii, r1.mii.mii);
    cr_assert_eq(r1.proven, r1.ii == r1.mii.mii);
    acs__mresult_free(&r1);
    acs__mresult_free(&r2);
    loop_unbind(&b);
    acs_workload_free(w);
  }
}

/* Every arm alone and IMS alone give checker-valid schedules when they
 * succeed; on fir.csv at a generous II every one of them succeeds. */
Test(heuristic, every_arm_yields_valid_schedules)
{
  struct acs_workload *w = loop_load_ok(LP("fir.csv"));
  struct bound b;
  struct acs_mstate s;
  struct acs_diag d;
  int32_t order[64];
  int64_t height[64], rank[64];
  int64_t ii = 6;

  loop_bind(&b, w->model, NULL);
  cr_assert_eq(acs__mstate_init(&s, &b.m, ii), ACS_OK);
  cr_assert_eq(acs__msp_priority(&b.m, ii, order, height), ACS_OK);
  for (int32_t p = 0; p < b.m.n; p++)
    rank[order[p]] = p;
  for (int k = 0; k < 5; k++) {
    int rc = k == 0   ? acs__arm_permute(&s, &b.m, order)
             : k == 1 ? acs__arm_fuse(&s, &b.m, order, height)
             : k == 2 ? acs__arm_retry(&s, &b.m, order)
             : k == 3 ? acs__arm_cost(&s, &b.m, order)
                      : acs__ims(&s, &b.m, rank, 6 * b.m.n, NULL, NULL);
    cr_assert_eq(rc, 1, "arm %d failed at II %lld", k, (long long)ii);
    acs__mstate_normalize(&s, &b.m);
    acs_diag_init(&d);
    cr_assert_eq(acs__modulo_check(&b.m, ii, s.t, s.unit, &d), ACS_OK, "arm %d: %s", k, d.msg);
  }
  acs__mstate_destroy(&s);
  loop_unbind(&b);
  acs_workload_free(w);
}

Test(heuristic, gallop_search_is_valid_and_units_help)
{
  struct acs_workload *w = loop_load_ok(LP("fir.csv"));
  static const char *const more[] = {"units.mul=3", NULL};
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;

  /* fir.csv: 3 multiplies on 1 unit -> ResMII 3; 4 memory ops on 2 ports
   * -> 2; acc's recurrence 1. With 3 multipliers, MII = 2. */
  loop_bind(&b, w->model, NULL);
  defaults(&o);
  o.search = ACS_MSP_SEARCH_GALLOP;
  search_ok(&b.m, &o, &r);
  cr_assert_eq(r.mii.mii, 3);
  cr_assert_eq(r.mii.res_class, 1);
  acs__mresult_free(&r);
  loop_unbind(&b);
  loop_bind(&b, w->model, more);
  search_ok(&b.m, &o, &r);
  cr_assert_eq(r.mii.mii, 2);
  cr_assert_eq(r.ii, 2);
  acs__mresult_free(&r);
  loop_unbind(&b);
  acs_workload_free(w);
}

Test(heuristic, stage_cap_is_respected_or_infeasible)
{
  struct acs_workload *w = loop_load_ok(LP("fir.csv"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;
  struct acs_diag d;

  loop_bind(&b, w->model, NULL);
  defaults(&o);
  o.max_stages = 1;
  b.m.max_stages = 1;
  search_ok(&b.m, &o, &r);
  /* One stage: every start below II. The chain x -> m -> s0 -> s1 -> acc
   * -> st starts st at 2 + 3 + 1 + 1 + 1 + 1 (delay) = 9 at least, so
   * II >= 10 (dependency MII). */
  cr_assert_eq(r.mii.dep, 10);
  cr_assert_geq(r.ii, 10);
  cr_assert_eq(r.stages, 1);
  acs__mresult_free(&r);
  /* An II cap below what one stage needs: infeasible, with a message. */
  o.ii_max = 9;
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_search(&b.m, &o, &r, &d), ACS_EINFEASIBLE);
  cr_assert_not_null(strstr(d.msg, "below the lower bound"), "%s", d.msg);
  acs__mresult_free(&r);
  loop_unbind(&b);
  acs_workload_free(w);
}

Test(heuristic, interrupt_stops_the_search)
{
  struct acs_workload *w = loop_load_ok(LP("graph18.graphml"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;
  struct acs_diag d;
  volatile sig_atomic_t flag = 1;

  loop_bind(&b, w->model, NULL);
  defaults(&o);
  o.interrupted = &flag;
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_search(&b.m, &o, &r, &d), ACS_EINTERRUPTED);
  acs__mresult_free(&r);
  loop_unbind(&b);
  acs_workload_free(w);
}

/* ---- the independent checker ---- */

Test(check, rejects_each_kind_of_violation)
{
  struct acs_workload *w = loop_load_ok(LP("fir.csv"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;
  struct acs_diag d;
  int64_t t[16];
  int32_t u[16];

  loop_bind(&b, w->model, NULL);
  defaults(&o);
  search_ok(&b.m, &o, &r);
  /* Ops: 0-2 x (mem), 3-5 m (mul), 6 s0, 7 s1, 8 acc, 9 st. */
  memcpy(t, r.t, sizeof(int64_t) * 10);
  memcpy(u, r.unit, sizeof(int32_t) * 10);
  t[3] = t[0]; /* m0 before its load's result */
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&b.m, r.ii, t, u, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "edge 'x0' -> 'm0'"), "%s", d.msg);
  memcpy(t, r.t, sizeof(int64_t) * 10);
  memcpy(u, r.unit, sizeof(int32_t) * 10);
  u[3] = 1; /* mul has one unit */
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&b.m, r.ii, t, u, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "outside [0, 1)"), "%s", d.msg);
  memcpy(u, r.unit, sizeof(int32_t) * 10);
  u[6] = 0; /* add is unlimited */
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&b.m, r.ii, t, u, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "unlimited class"), "%s", d.msg);
  memcpy(u, r.unit, sizeof(int32_t) * 10);
  t[0] = -1;
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&b.m, r.ii, t, u, &d), ACS_EVERIFY);
  acs__mresult_free(&r);
  loop_unbind(&b);
  acs_workload_free(w);
}

Test(check, resource_overlap_in_one_residue)
{
  struct acs_loop l;
  struct acs_msp m;
  struct acs_diag d;
  int64_t units[1] = {1}, t[2] = {0, 3};
  int32_t u[2] = {0, 0};

  loop_new(&l);
  cr_assert_geq(acs_loop_add_class(&l, "u", 1, 2, 1, 1), 0);
  cr_assert_geq(acs_loop_add_op(&l, "a", 0, 2), 0);
  cr_assert_geq(acs_loop_add_op(&l, "b", 0, 3), 0);
  cr_assert_eq(acs__msp_init(&m, &l, units), ACS_OK);
  /* II 4: a holds residues 0, 1; b 3, 0 (wrapping): residue 0 twice. */
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&m, 4, t, u, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "residue 0"), "%s", d.msg);
  t[1] = 2; /* residues 2, 3: fits */
  cr_assert_eq(acs__modulo_check(&m, 4, t, u, &d), ACS_OK);
  acs__msp_destroy(&m);
  acs_loop_destroy(&l);
}

