/*
 * test-modulo-variant.c - the `modulo` variant: unrolled N-iteration
 * schedules lowered, verified and simulated, the exact search's proofs,
 * `list` on the same iterations; `modulo` against exhaustive search on tiny
 * random loops.
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

/* ---- the variant: lowering, verifier, tables ---- */

static void run_variant(const char *rel, const char *const *sets, const char *const *opts,
                        struct acs_schedule *s, struct acs_workload **wout,
                        struct acs_graph *g, struct acs_problem *pb, int want)
{
  const struct acs_sched_ops *ops = acs_sched_find("modulo");
  struct acs_sched_ctx ctx = {1, 0, NULL, NULL, 0};
  struct acs_workload *w = loop_load_ok(rel);
  struct acs_platform p;
  struct acs_diag d;
  char optbuf[256];

  acs_platform_init(&p);
  acs_diag_init(&d);
  for (size_t i = 0; sets && sets[i]; i++)
    cr_assert_eq(acs_platform_set_kv(&p, sets[i], &d), ACS_OK);
  cr_assert_eq(acs_workload_build(w, &p, g, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_problem_init(pb, g, &p, &d), ACS_OK);
  acs_workload_bind(w, pb);
  cr_assert_not_null(ops);
  void *o = calloc(1, ops->opts_size);
  cr_assert_eq(acs_sched_opts_defaults(ops, o), ACS_OK);
  for (size_t i = 0; opts && opts[i]; i++) {
    snprintf(optbuf, sizeof(optbuf), "%s", opts[i]);
    char *eq = strchr(optbuf, '=');
    *eq = '\0';
    cr_assert_eq(acs_sched_opts_set(ops, o, optbuf, eq + 1, &d), ACS_OK, "%s", d.msg);
  }
  cr_assert_eq(acs_schedule_init_problem(s, pb), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(ops->schedule(pb, o, &ctx, s, &d), want, "%s", d.msg);
  free(o);
  *wout = w;
}

Test(variant, lowering_is_verified_and_periodic)
{
  static const char *const sets[] = {"loop_iterations=5", NULL};
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  run_variant(LP("iir_biqu.graphml"), sets, NULL, &s, &w, &g, &pb, ACS_OK);
  tu_assert_verified(&s);
  const struct acs_rtab *t = acs_schedule_find_rtab(&s, "modulo");
  cr_assert_not_null(t);
  int64_t ii = acs_rtab_attr_find(t, "ii")->v.i;
  cr_assert_eq(acs_rtab_attr_find(t, "iterations")->v.i, 5);
  cr_assert_eq(t->nrows, ((const struct acs_loop *)w->model)->nops);
  /* Every op of iteration k starts k II after its iteration-0 self, and the
   * table's start and slot agree with the lowered schedule. */
  for (int64_t row = 0; row < t->nrows; row++) {
    char name[ACS_NAME_MAX + 16];
    int64_t start = acs_rtab_get(t, row, 2).i;
    cr_assert_eq(acs_rtab_get(t, row, 4).i, start % ii);
    cr_assert_eq(acs_rtab_get(t, row, 3).i, start / ii);
    for (int k = 0; k < 5; k++) {
      snprintf(name, sizeof(name), "%s@%d", acs_rtab_get(t, row, 0).s, k);
      int32_t i = acs_graph_find_op(&g, name);
      cr_assert_geq(i, 0, "%s", name);
      cr_assert_eq(s.ops[i].start, start + k * ii, "%s", name);
    }
  }
  /* Planned cycles per iteration: 4 II plus the span of iteration 0 (its
   * latest end), over 5 iterations. */
  int64_t span = 0;
  for (int32_t i = 0; i < s.norig / 5; i++)
    if (s.ops[i].end > span)
      span = s.ops[i].end;
  double cpi = acs_loop_cycles_per_iter(w->model, &pb.plat, &s, 0);
  double want = (double)(4 * ii + span) / 5.0;
  cr_assert_float_eq(cpi, want, 1e-9);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

Test(variant, exact_mode_reports_proof)
{
  static const char *const opts[] = {"exact=1", NULL};
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  run_variant(LP("unreachable.csv"), NULL, opts, &s, &w, &g, &pb, ACS_OK);
  tu_assert_verified(&s);
  const struct acs_rtab *t = acs_schedule_find_rtab(&s, "modulo");
  cr_assert_eq(acs_rtab_attr_find(t, "ii")->v.i, 3);
  cr_assert_eq(acs_rtab_attr_find(t, "proven")->v.i, 1);
  const struct acs_rtab *tries = acs_schedule_find_rtab(&s, "modulo_tries");
  cr_assert_not_null(tries);
  cr_assert(tries->show, "II > MII: the tries are shown");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

Test(variant, list_runs_on_the_same_unrolled_iterations)
{
  static const char *const sets[] = {"loop_iterations=4", NULL};
  const struct acs_sched_ops *list = acs_sched_find("list");
  struct acs_sched_ctx ctx = {1, 0, NULL, NULL, 0};
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s, ls;
  struct acs_diag d;

  run_variant(LP("fir.csv"), sets, NULL, &s, &w, &g, &pb, ACS_OK);
  cr_assert(acs_sched_accepts(list, ACS_WL_LOOP));
  void *o = calloc(1, list->opts_size);
  cr_assert_eq(acs_sched_opts_defaults(list, o), ACS_OK);
  cr_assert_eq(acs_schedule_init_problem(&ls, &pb), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(list->schedule(&pb, o, &ctx, &ls, &d), ACS_OK, "%s", d.msg);
  tu_assert_verified(&ls);
  cr_assert_eq(ls.nops, s.nops);
  free(o);
  acs_schedule_destroy(&ls);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

/* ---- cross-check by enumeration on tiny random loops ---- */

/*
 * A random loop of 3 ops: a limited class (1 or 2 units, blocking 1 or 2,
 * latency 0..3) and an unlimited one (latency 0..2); 3 to 5 edges with
 * delay 0..1 and distance 0..2 (distance 0 only forward, so no zero
 * cycle). Deterministic for a seed.
 */
static void random_loop(struct acs_loop *l, uint64_t seed)
{
  struct acs_rng rng;

  acs_rng_seed(&rng, seed);
  loop_new(l);
  cr_assert_geq(acs_loop_add_class(l, "u", (int64_t)acs_rng_below(&rng, 4),
                                   1 + (int64_t)acs_rng_below(&rng, 2),
                                   1 + (int64_t)acs_rng_below(&rng, 2), 1), 0);
  cr_assert_geq(acs_loop_add_class(l, "f", (int64_t)acs_rng_below(&rng, 3), 1, -1, 2), 0);
  for (int i = 0; i < 3; i++) {
    char name[8];
    snprintf(name, sizeof(name), "o%d", i);
    /* At least two ops on the limited class. */
    cr_assert_geq(acs_loop_add_op(l, name, i < 2 ? 0 : (int32_t)acs_rng_below(&rng, 2), 3 + i), 0);
  }
  int ne = 3 + (int)acs_rng_below(&rng, 3);
  for (int k = 0; k < ne; k++) {
    int32_t a = (int32_t)acs_rng_below(&rng, 3), b = (int32_t)acs_rng_below(&rng, 3);
    int64_t dist = (int64_t)acs_rng_below(&rng, 3);
    if (a >= b && dist == 0)
      dist = 1;
    cr_assert_eq(acs_loop_add_edge(l, a, b, (int64_t)acs_rng_below(&rng, 2), dist, 9), ACS_OK);
  }
  cr_assert_eq(acs_loop_check(l, NULL), ACS_OK);
}

/*
 * Whether a schedule exists at II (within `stages` stages when > 0), by
 * enumerating every start in [0, bound) and every unit, the independent
 * checker deciding each candidate. The bound is safe (exact.c): if a
 * schedule exists, the least one with its residues and units starts every
 * op below II + sum over ops of (largest out-weight + II), here below
 * 4 II + 15.
 */
static int brute_feasible(const struct acs_msp *m, int64_t ii, int64_t stages)
{
  int64_t bound = stages > 0 ? stages * ii : 4 * ii + 15, t[3];
  int32_t u[3], nu[3];
  struct acs_diag d;

  for (int i = 0; i < 3; i++)
    nu[i] = m->units[m->cls[i]] == ACS_LOOP_UNLIMITED ? 1 : (int32_t)m->units[m->cls[i]];
  for (t[0] = 0; t[0] < bound; t[0]++)
    for (t[1] = 0; t[1] < bound; t[1]++)
      for (t[2] = 0; t[2] < bound; t[2]++)
        for (int32_t k = 0; k < nu[0] * nu[1] * nu[2]; k++) {
          u[0] = k % nu[0];
          u[1] = (k / nu[0]) % nu[1];
          u[2] = k / (nu[0] * nu[1]);
          for (int i = 0; i < 3; i++)
            if (m->units[m->cls[i]] == ACS_LOOP_UNLIMITED)
              u[i] = -1;
          acs_diag_init(&d);
          if (acs__modulo_check(m, ii, t, u, &d) == ACS_OK)
            return 1;
        }
  return 0;
}

Test(enumeration, exact_mode_finds_the_least_ii_and_heuristic_is_valid, .timeout = 120)
{
  int beyond_mii = 0;

  for (uint64_t seed = 1; seed <= 80; seed++) {
    int64_t cap = seed % 4 == 0 ? 2 : 0;
    struct acs_loop l;
    struct bound b;
    struct acs_mopts o;
    struct acs_mresult r;
    int64_t best = 0;

    random_loop(&l, seed);
    loop_bind(&b, &l, NULL);
    b.m.max_stages = cap;
    for (int64_t ii = 1; ii <= 24 && !best; ii++)
      if (brute_feasible(&b.m, ii, cap))
        best = ii;
    cr_assert_gt(best, 0, "seed %llu: no schedule up to II 24", (unsigned long long)seed);
    defaults(&o);
    o.max_stages = cap;
    search_ok(&b.m, &o, &r);
    cr_assert_geq(r.ii, best, "seed %llu: heuristic II %lld below the least %lld",
                  (unsigned long long)seed, (long long)r.ii, (long long)best);
    cr_assert_leq(r.mii.mii, best, "seed %llu: MII %lld above the least II %lld",
                  (unsigned long long)seed, (long long)r.mii.mii, (long long)best);
    if (cap > 0)
      cr_assert_leq(r.stages, cap);
    acs__mresult_free(&r);
    o.exact = 1;
    search_ok(&b.m, &o, &r);
    cr_assert_eq(r.ii, best, "seed %llu: exact II %lld, enumeration %lld",
                 (unsigned long long)seed, (long long)r.ii, (long long)best);
    cr_assert_eq(r.proven, 1);
    beyond_mii += best > r.mii.mii;
    acs__mresult_free(&r);
    loop_unbind(&b);
    acs_loop_destroy(&l);
  }
  /* The sample must exercise the integer program, not only II = MII. */
  cr_assert_gt(beyond_mii, 0, "no loop with MII unreachable in the sample");
}
