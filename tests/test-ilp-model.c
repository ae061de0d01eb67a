/*
 * test-ilp-model.c - `ilp` against brute-force enumeration, time-step
 * bounds, the contiguous model, the seed's strip example (height 9), and
 * interrupts (searching variants, the barrier pass, GLPK in a child).
 *
 * Optima of the hand-made instances come from the brute-force enumerator of
 * tests/ilp_util.c: every precedence-feasible activity list scheduled by a
 * serial schedule generation scheme (placing each op at its earliest
 * feasible start). The schedules this produces over all lists include an
 * optimal one (Kolisch 1996: the serial scheme generates every active
 * schedule, and some optimal schedule is active), so their minimum is the
 * optimum. Every schedule produced goes through the verifier.
 *
 * No result here depends on the machine's speed: every instance an `ilp`
 * or `strip` run must solve exactly is one it solves in milliseconds (the
 * slowest test here takes about 0.3 s), and the time limits passed are
 * far-off watchdogs: acs__mip_params (core/sched/ilpmodel.h) exposes only
 * a time limit to GLPK, no node or iteration limit.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/load/optima.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "report/validation.h"
#include "tests/testutil.h"

#include "tests/ilp_util.h"

/* ---- ilp ------------------------------------------------------------------ */

Test(brute, enumerator_finds_a_hand_computed_optimum)
{
  /* Three ops of demand 2 on a capacity of 3 must run one at a time on R1,
   * a fourth (demand 1) fits beside any of them: 2 + 3 + 4 = 9. */
  struct acs_graph g;
  struct acs_problem pb;
  int64_t opt;

  nine_instance(&g, &pb);
  opt = brute_optimum(&pb);
  cr_assert_eq(opt, 9);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Sixteen tiny instances (7 ops), each one GLPK proves in milliseconds:
 * seeds 1 to 16 but 8, 10 and 16 (GLPK took 2.3, 0.3 and 0.13 s on those,
 * and 10 to 20 times that under sanitizers on a loaded machine, which made
 * the proof a race against the limit), replaced by 20, 25 and 26 (0.01 s
 * or less, optimum above the bound). The slowest left took 0.05 s. The
 * 60 s limit of each run and the test's timeout are watchdogs against a
 * hang only, not part of what is tested.
 */
static const uint64_t fast_seeds[] = {1, 2, 3, 4, 5, 6, 7, 9, 11, 12, 13, 14, 15, 20, 25, 26};

Test(ilp, finds_and_proves_enumerated_optima, .timeout = 1200)
{
  int nontrivial = 0;

  for (size_t i = 0; i < sizeof(fast_seeds) / sizeof(fast_seeds[0]); i++) {
    uint64_t seed = fast_seeds[i];
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_diag d;
    int64_t opt;
    int err;

    tiny_instance(&g, seed, 7, 1);
    tu_problem(&pb, &g, NULL);
    opt = brute_optimum(&pb);
    nontrivial += acs_bound_best(&pb) < opt;
    err = run_sched("ilp", &pb, NULL, 60, 1, &s, &d);
    cr_assert_eq(err, ACS_OK, "seed %llu: %s (%s)", (unsigned long long)seed,
                 acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    cr_assert_eq(s.makespan, opt, "seed %llu: ilp %lld, enumeration %lld (%s)",
                 (unsigned long long)seed, (long long)s.makespan, (long long)opt, d.msg);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  /* Instances whose optimum is above the lower bound need the model. */
  cr_assert_geq(nontrivial, 4, "only %d instances exercised the model", nontrivial);
}

Test(ilp, proves_optimum_above_the_bound_by_the_model)
{
  /* The enumerator's example: the bound is max(critical path 5, R1 work
   * ceil(23 / 3) = 8) = 8 but the optimum is 9; only the model proves it. */
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  nine_instance(&g, &pb);
  cr_assert_eq(acs_bound_best(&pb), 8);
  /* GLPK proves it in a few milliseconds: 30 s is a watchdog. */
  err = run_sched("ilp", &pb, NULL, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s);
  cr_assert_eq(s.makespan, 9);
  cr_assert(strstr(d.msg, "optimal") != NULL, "message: %s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* Reads the number after `key` in msg into *v; 0 when found. */
static int msg_number(const char *msg, const char *key, long long *v)
{
  const char *p = strstr(msg, key);
  return p && sscanf(p + strlen(key), "%lld", v) == 1 ? 0 : -1;
}

Test(ilp, time_step_reports_bounds_in_cycles, .timeout = 120)
{
  /* Durations of 1000 to 5999 cycles on steps of 1000: the step model's
   * optimum is an upper bound in cycles, the reported lower bound is below
   * the true optimum (enumerated in cycles), and the schedule is valid. */
  int checked = 0;

  /* Each step model is solved in 0.25 s or less (ACS_ETIMEOUT here is the
   * scheduler's "not proven in cycles", with the step model solved, not a
   * limit reached): 60 s is a watchdog. */
  for (uint64_t seed = 1; seed <= 6; seed++) {
    static const char *const sets[] = { "time_step=1000", NULL };
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_diag d;
    long long step, upper, lower;
    int64_t opt;
    int err;

    tiny_instance(&g, 100 + seed, 6, 1000);
    tu_problem(&pb, &g, NULL);
    opt = brute_optimum(&pb);
    err = run_sched("ilp", &pb, sets, 60, 1, &s, &d);
    cr_assert(err == ACS_OK || err == ACS_ETIMEOUT, "%s (%s)", acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    cr_assert_geq(s.makespan, opt, "below the enumerated optimum: %s", d.msg);
    if (err == ACS_OK) {
      /* Proven only when the schedule meets a bound in cycles. */
      cr_assert_eq(s.makespan, opt, "%s", d.msg);
    } else if (strstr(d.msg, "time step")) {
      cr_assert_eq(msg_number(d.msg, "time step ", &step), 0, "%s", d.msg);
      cr_assert_eq(step, 1000);
      cr_assert_eq(msg_number(d.msg, "steps = ", &upper), 0, "%s", d.msg);
      cr_assert_eq(msg_number(d.msg, "lower bound ", &lower), 0, "%s", d.msg);
      cr_assert_geq(upper, opt, "the step model's optimum %lld is not an upper bound (%lld): %s",
                    upper, (long long)opt, d.msg);
      cr_assert_leq(lower, opt, "lower bound %lld above the optimum %lld: %s", lower,
                    (long long)opt, d.msg);
      cr_assert_leq(s.makespan, upper, "%s", d.msg);
      checked++;
    }
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  cr_assert_geq(checked, 2, "only %d instances went through the step model", checked);
}

/* n ops on the NPU graph, each one PE, the given CMX bytes and duration. */
static void cmx_graph(struct acs_graph *g, const int64_t *dur, const int64_t *bytes, int n)
{
  char name[16];

  tu_graph_npu(g, "cmx");
  for (int i = 0; i < n; i++) {
    int32_t id;
    snprintf(name, sizeof(name), "r%d", i);
    id = tu_op(g, name, ACS_OP_DPU, dur[i]);
    acs_graph_set_demand(g, id, TU_CMX, bytes[i]);
  }
}

Test(ilp, contiguous_assigns_disjoint_ranges)
{
  /* 1 KiB of CMX in cells of 256 bytes; three ops of 512 bytes: two at a
   * time, so 2 + 2 = 4 at best (enumerated below without contiguity; here
   * contiguity costs nothing and the model must find it). */
  static const int64_t dur[] = { 2, 2, 2 }, bytes[] = { 512, 512, 512 };
  static const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=256", NULL };
  static const char *const sets[] = { "contiguous=1", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  cmx_graph(&g, dur, bytes, 3);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  cr_assert_eq(brute_optimum(&pb), 4);
  err = run_sched("ilp", &pb, sets, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s); /* ranges inside the CMX, aligned, disjoint while held */
  cr_assert_eq(s.makespan, 4);
  for (int i = 0; i < 3; i++) {
    cr_assert_geq(s.ops[i].cmx_offset, 0, "op %d has no range", i);
    cr_assert_eq(s.ops[i].cmx_bytes, 512);
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(ilp, contiguous_model_over_the_size_limit_is_an_error)
{
  static const int64_t dur[] = { 20, 30, 40, 50 }, bytes[] = { 512, 768, 256, 512 };
  static const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=64", NULL };
  static const char *const sets[] = { "contiguous=1", "max_vars=100", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  cmx_graph(&g, dur, bytes, 4);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  err = run_sched("ilp", &pb, sets, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_ERANGE, "%s (%s)", acs_strerror(err), d.msg);
  cr_assert(strstr(d.msg, "max_vars=100") != NULL, "message: %s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- strip ----------------------------------------------------------------- */

Test(strip, packs_the_seed_example_to_height_9)
{
  /* The seed's reference example: rectangles (w, h) = (2, 2), (8, 8), (7, 7)
   * in a strip of width 15. With 68-byte alignment units, 1 KiB of CMX is 15
   * units (1020 bytes); each op's bytes are its width in units. 8 and 7 fit
   * side by side, the 2-wide one cannot join them (17 > 15) and goes on top
   * of the 7: height 9, while the lower bound is only 8. */
  static const int64_t dur[] = { 2, 8, 7 }, bytes[] = { 2 * 68, 8 * 68, 7 * 68 };
  static const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=68", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  cmx_graph(&g, dur, bytes, 3);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  cr_assert_eq(acs_bound_best(&pb), 8);
  err = run_sched("strip", &pb, NULL, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s);
  cr_assert_eq(s.makespan, 9, "height %lld (%s)", (long long)s.makespan, d.msg);
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(s.ops[i].cmx_offset % 68, 0);
    cr_assert_leq(s.ops[i].cmx_offset + s.ops[i].cmx_bytes, 1024);
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(strip, respects_the_pe_count)
{
  /* Three 5-cycle ops with room in CMX for all: strip packing alone would
   * run them together; 2 PEs allow two at a time (10), 1 PE one (15). */
  static const int64_t dur[] = { 5, 5, 5 }, bytes[] = { 64, 64, 64 };
  static const char *const two[] = { "pe_count=2", NULL }, *const one[] = { "pe_count=1", NULL };
  const char *const *plats[] = { two, one };
  static const int64_t want[] = { 10, 15 };

  for (int k = 0; k < 2; k++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_diag d;
    int err;
    cmx_graph(&g, dur, bytes, 3);
    tu_finalize(&g);
    tu_problem(&pb, &g, plats[k]);
    err = run_sched("strip", &pb, NULL, 30, 1, &s, &d);
    cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    cr_assert_eq(s.makespan, want[k]);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

Test(strip, keeps_precedence_and_packs_beside_it)
{
  /* a -> b (each 600 of 1024 bytes, so never together anyway) and c (400
   * bytes) beside either: c fits next to a or b, makespan 3 + 4 = 7. */
  static const int64_t dur[] = { 3, 4, 6 }, bytes[] = { 600, 600, 400 };
  static const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=8", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  cmx_graph(&g, dur, bytes, 3);
  tu_edge(&g, 0, 1);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  err = run_sched("strip", &pb, NULL, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s);
  cr_assert_eq(s.makespan, 7);
  cr_assert_geq(s.ops[1].start, s.ops[0].end);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- interrupts ------------------------------------------------------- */

/*
 * Every variant that searches polls acs_sched_ctx.interrupted: with the
 * flag set (as a SIGINT handler would) each returns ACS_EINTERRUPTED rather
 * than a result; without it the same runs succeed. No timing involved: the
 * flag is set before the run, so the first poll sees it.
 */
Test(interrupt, searching_variants_stop_with_einterrupted)
{
  static const char *const iter[] = { "iterations=1000", NULL };
  static const struct { const char *name; const char *const *sets; } v[] = {
    { "list", iter }, { "ilp", NULL }, { "strip", NULL }, { "spill", NULL },
  };
  volatile sig_atomic_t flag = 1, calm = 0;
  /* `go` has a limit of 1 s, but each variant returns a verified schedule
   * whether or not its search ends in time (checked with a limit of 1 us),
   * so what is asserted does not depend on the machine. */
  struct acs_sched_ctx stop = { 1, 30, &flag, NULL, 0 }, go = { 1, 1, &calm, NULL, 0 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  tu_random_dag(&g, 11, 60, 200000);
  tu_problem(&pb, &g, NULL);
  for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    err = tu_run_ctx(v[i].name, &pb, v[i].sets, &stop, &s, &d);
    cr_assert_eq(err, ACS_EINTERRUPTED, "%s: %s (%s)", v[i].name, acs_strerror(err), d.msg);
    acs_schedule_destroy(&s);
    err = tu_run_ctx(v[i].name, &pb, v[i].sets, &go, &s, &d);
    cr_assert(err == ACS_OK || err == ACS_ETIMEOUT, "%s: %s (%s)", v[i].name,
              acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    acs_schedule_destroy(&s);
  }
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* The barrier pass polls the flag at every op and leaves the schedule as
 * it was when interrupted. */
Test(interrupt, barrier_pass_stops_and_leaves_the_schedule)
{
  static const char *const sets[] = { "barriers=2", NULL };
  volatile sig_atomic_t flag = 1;
  struct acs_sched_ctx stop = { 1, 0, &flag, NULL, 0 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int64_t makespan;
  int32_t nedges;

  tu_random_dag(&g, 5, 80, 1000);
  tu_problem(&pb, &g, sets);
  cr_assert_eq(run_sched("list", &pb, NULL, 0, 1, &s, &d), ACS_OK, "%s", d.msg);
  makespan = s.makespan;
  nedges = s.nedges;
  acs_diag_init(&d);
  cr_assert_eq(acs_barrier_pass(&pb, &s, &stop, &d), ACS_EINTERRUPTED, "%s", d.msg);
  cr_assert_eq(s.makespan, makespan);
  cr_assert_eq(s.nedges, nedges);
  cr_assert_eq(s.nwaits, 0);
  tu_assert_verified(&s);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Watching a flag, GLPK solves in a forked child the caller can kill. The
 * child must give the same answers: the enumerator's example needs the
 * model to prove its optimum 9 (the bound is 8), so at least one solve goes
 * through the child.
 */
Test(interrupt, glpk_in_a_child_proves_the_same_optimum)
{
  volatile sig_atomic_t calm = 0;
  /* Proven in milliseconds: the 30 s limit is a watchdog. */
  struct acs_sched_ctx ctx = { 1, 30, &calm, NULL, 0 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  nine_instance(&g, &pb);
  err = tu_run_ctx("ilp", &pb, NULL, &ctx, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s);
  cr_assert_eq(s.makespan, 9);
  {
    long long models = 0;
    cr_assert_eq(msg_number(d.msg, "lower bound (", &models), 0, "message: %s", d.msg);
    cr_assert_geq(models, 1, "message: %s", d.msg);
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}
