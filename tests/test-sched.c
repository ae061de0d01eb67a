/*
 * test-sched.c - the scheduler registry, options, and the `sequential` and
 * `list` variants: hand-computed schedules, infeasibility, units, each
 * priority rule, PSPLIB instances against their proven optima, determinism
 * and random DAGs. Every schedule produced here goes through the verifier.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

/* ---- helpers ---------------------------------------------------------- */

/* Runs variant `name` with "key=value" option settings (NULL-ended) on pb;
 * out is initialised here and must be destroyed by the caller. */
static int run_sched(const char *name, const struct acs_problem *pb,
                     const char *const *sets, struct acs_schedule *out,
                     struct acs_diag *d)
{
  struct acs_sched_ctx ctx = { 1, 0, NULL, NULL, 0 };

  return tu_run_ctx(name, pb, sets, &ctx, out, d);
}

/* Runs and requires success and a verified schedule. */
static void run_ok(const char *name, const struct acs_problem *pb,
                   const char *const *sets, struct acs_schedule *out)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = run_sched(name, pb, sets, out, &d);
  cr_assert_eq(err, ACS_OK, "%s: %s (%s)", name, acs_strerror(err), d.msg);
  tu_assert_verified(out);
}

static void assert_starts(const struct acs_schedule *s, const int64_t *want, int n)
{
  for (int i = 0; i < n; i++)
    cr_assert_eq(s->ops[i].start, want[i], "op '%s' starts at %lld, expected %lld",
                 s->ops[i].name, (long long)s->ops[i].start, (long long)want[i]);
}

/* A graph whose only resource is a named one of the given capacity. */
static void named_graph(struct acs_graph *g, const char *res, int64_t cap)
{
  cr_assert_eq(acs_graph_init(g, "named", "named"), ACS_OK);
  cr_assert_eq(acs_graph_add_resource(g, res, ACS_RES_NAMED, cap), 0);
}

static const char *const NOJUSTIFY[] = { "justify=0", NULL };

/* ---- registry and options -------------------------------------------- */

Test(registry, lists_sequential_and_list)
{
  size_t n = 0;
  const struct acs_sched_ops *const *all = acs_sched_list(&n);

  cr_assert_geq(n, 2);
  cr_assert_str_eq(all[0]->name, "sequential");
  cr_assert_str_eq(all[1]->name, "list");
  cr_assert_eq(acs_sched_find("list"), all[1]);
  cr_assert_null(acs_sched_find("nosuch"));
  cr_assert(acs_sched_accepts(all[1], ACS_WL_PSPLIB));
  cr_assert(acs_sched_accepts(all[0], ACS_WL_DNN));
  cr_assert_not(acs_sched_accepts(all[1], ACS_WL__COUNT));
  cr_assert_not(acs_sched_accepts(all[1], -1));
}

/* Every variant declares its memory model (the report's CMX answers rest
 * on it); the seed-000 variants as their code models memory. */
Test(registry, every_variant_declares_a_memory_model)
{
  size_t n = 0;
  const struct acs_sched_ops *const *all = acs_sched_list(&n);

  for (size_t i = 0; i < n; i++)
    cr_assert(all[i]->memory_model > ACS_MEM_UNDECLARED && all[i]->memory_model <= ACS_MEM_UNUSED,
              "%s declares no memory model", all[i]->name);
  cr_assert_eq(acs_sched_find("spill")->memory_model, ACS_MEM_RESIDENT);
  cr_assert_eq(acs_sched_find("list")->memory_model, ACS_MEM_TRANSIENT);
  cr_assert_eq(acs_sched_find("sequential")->memory_model, ACS_MEM_TRANSIENT);
  cr_assert_str_eq(acs_mem_model_name(ACS_MEM_RESIDENT), "resident");
  cr_assert_str_eq(acs_mem_model_name(ACS_MEM_UNDECLARED), "");
}

/* The list options as stored by opts.c: four int64_t in declaration order. */
struct list_opts_view {
  int64_t rule, sgs, justify, iterations;
};

Test(options, defaults_and_valid_values)
{
  const struct acs_sched_ops *ops = acs_sched_find("list");
  struct list_opts_view o;
  struct acs_diag d;

  cr_assert_eq(ops->opts_size, sizeof(o));
  cr_assert_eq(acs_sched_opts_defaults(ops, &o), ACS_OK);
  cr_assert_eq(o.rule, 2, "default rule is lft (index 2)");
  cr_assert_eq(o.sgs, 0, "default sgs is parallel");
  cr_assert_eq(o.justify, 2);
  acs_diag_init(&d);
  cr_assert_eq(acs_sched_opts_set(ops, &o, "rule", "mts", &d), ACS_OK);
  cr_assert_eq(o.rule, 3);
  cr_assert_eq(acs_sched_opts_set(ops, &o, "sgs", "serial", &d), ACS_OK);
  cr_assert_eq(o.sgs, 1);
  cr_assert_eq(acs_sched_opts_set(ops, &o, "justify", "7", &d), ACS_OK);
  cr_assert_eq(o.justify, 7);
  cr_assert_not_null(acs_sched_opt_find(ops, "justify"));
  cr_assert_eq(o.iterations, 0, "one deterministic pass by default");
  cr_assert_eq(acs_sched_opts_set(ops, &o, "iterations", "1000", &d), ACS_OK);
  cr_assert_eq(o.iterations, 1000);
  cr_assert_null(acs_sched_opt_find(ops, "frobnicate"));
}

Test(options, unknown_option_is_notfound)
{
  const struct acs_sched_ops *ops = acs_sched_find("list");
  struct list_opts_view o;
  struct acs_diag d;

  acs_sched_opts_defaults(ops, &o);
  acs_diag_init(&d);
  cr_assert_eq(acs_sched_opts_set(ops, &o, "frobnicate", "10", &d), ACS_ENOTFOUND);
  cr_assert_str_eq(d.msg, "scheduler 'list' has no option 'frobnicate'");
  cr_assert_eq(acs_sched_opts_set(acs_sched_find("sequential"), NULL, "rule", "lft", &d),
               ACS_ENOTFOUND);
}

Test(options, bad_values_name_the_option)
{
  const struct acs_sched_ops *ops = acs_sched_find("list");
  struct list_opts_view o;
  struct acs_diag d;

  acs_sched_opts_defaults(ops, &o);
  acs_diag_init(&d);
  cr_assert_eq(acs_sched_opts_set(ops, &o, "rule", "foo", &d), ACS_EPARSE);
  cr_assert_str_eq(d.msg, "option 'rule': unknown value 'foo' (choices: topo, lpath, lft, mts)");
  cr_assert_eq(o.rule, 2, "a rejected value leaves the option unchanged");
  cr_assert_eq(acs_sched_opts_set(ops, &o, "justify", "two", &d), ACS_EPARSE);
  cr_assert_str_eq(d.msg, "option 'justify': 'two' is not an integer");
  cr_assert_eq(acs_sched_opts_set(ops, &o, "justify", "3x", &d), ACS_EPARSE);
  cr_assert_eq(acs_sched_opts_set(ops, &o, "justify", "", &d), ACS_EPARSE);
  cr_assert_eq(acs_sched_opts_set(ops, &o, "justify", "-1", &d), ACS_ERANGE);
  cr_assert_str_eq(d.msg, "option 'justify': -1 is out of range [0, 1000]");
  cr_assert_eq(o.justify, 2);
}

/* ---- hand-computed schedules ------------------------------------------ */

/*
 * Chain a(3) -> b(5) -> c(2): every scheduler must give a = 0, b = 3, c = 8,
 * makespan 10.
 */
Test(list, chain_runs_back_to_back)
{
  static const char *const scheds[] = { "sequential", "list" };
  const int64_t want[] = { 0, 3, 8 };
  struct acs_graph g;
  struct acs_problem pb;

  tu_graph_npu(&g, "chain");
  tu_op(&g, "a", ACS_OP_DPU, 3);
  tu_op(&g, "b", ACS_OP_DPU, 5);
  tu_op(&g, "c", ACS_OP_DPU, 2);
  tu_edge(&g, 0, 1);
  tu_edge(&g, 1, 2);
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  for (int k = 0; k < 2; k++) {
    struct acs_schedule s;
    run_ok(scheds[k], &pb, NULL, &s);
    assert_starts(&s, want, 3);
    cr_assert_eq(s.makespan, 10);
    acs_schedule_destroy(&s);
  }
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Diamond a(2) -> {b(3), c(4)} -> d(1), all on PEs.
 * LFT: tails after the end are b 1, c 1, so LFT(b) = LFT(c) = 6 and b (lower
 * id) goes first.
 *  1 PE:  a [0,2) b [2,5) c [5,9) d [9,10)   makespan 10, all on PE 0.
 *  2 PEs: a [0,2) b [2,5) c [2,6) d [6,7)    makespan 7; b on PE 0, c on PE 1,
 *         d on PE 0 (the lowest free one at 6).
 */
static void diamond(struct acs_graph *g)
{
  tu_graph_npu(g, "diamond");
  tu_op(g, "a", ACS_OP_DPU, 2);
  tu_op(g, "b", ACS_OP_DPU, 3);
  tu_op(g, "c", ACS_OP_DPU, 4);
  tu_op(g, "d", ACS_OP_DPU, 1);
  tu_edge(g, 0, 1);
  tu_edge(g, 0, 2);
  tu_edge(g, 1, 3);
  tu_edge(g, 2, 3);
  tu_finalize(g);
}

Test(list, diamond_on_one_pe_serializes)
{
  static const char *const sets[] = { "pe_count=1", NULL };
  const int64_t want[] = { 0, 2, 5, 9 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  diamond(&g);
  tu_problem(&pb, &g, sets);
  run_ok("list", &pb, NULL, &s);
  assert_starts(&s, want, 4);
  cr_assert_eq(s.makespan, 10);
  for (int i = 0; i < 4; i++)
    cr_assert_eq(s.ops[i].unit, 0);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(list, diamond_on_two_pes_overlaps_branches)
{
  static const char *const sets[] = { "pe_count=2", NULL };
  const int64_t want[] = { 0, 2, 2, 6 };
  const int32_t units[] = { 0, 0, 1, 0 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  diamond(&g);
  tu_problem(&pb, &g, sets);
  run_ok("list", &pb, NULL, &s);
  assert_starts(&s, want, 4);
  cr_assert_eq(s.makespan, 7);
  for (int i = 0; i < 4; i++)
    cr_assert_eq(s.ops[i].unit, units[i], "op %d on unit %d", i, s.ops[i].unit);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Sequential on the diamond with 2 PEs: topological order a, b, c, d back
 * to back: 0, 2, 5, 9, makespan 10, everything on PE 0.
 */
Test(sequential, diamond_runs_one_op_at_a_time)
{
  static const char *const sets[] = { "pe_count=2", NULL };
  const int64_t want[] = { 0, 2, 5, 9 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  diamond(&g);
  tu_problem(&pb, &g, sets);
  run_ok("sequential", &pb, NULL, &s);
  assert_starts(&s, want, 4);
  cr_assert_eq(s.makespan, 10);
  for (int i = 0; i < 4; i++)
    cr_assert_eq(s.ops[i].unit, 0);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * CMX of 4 KiB = 4096 bytes; a(10 cycles, 3000 B) and b(5 cycles, 2000 B)
 * are independent and 4 PEs are free, but 5000 B do not fit: they cannot
 * overlap. Equal LFT (10), a has the lower id: a [0,10), b [10,15).
 */
Test(list, respects_cmx_capacity)
{
  static const char *const sets[] = { "cmx_kib=4", NULL };
  const int64_t want[] = { 0, 10 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  tu_graph_npu(&g, "cmx");
  tu_op(&g, "a", ACS_OP_DPU, 10);
  tu_op(&g, "b", ACS_OP_DPU, 5);
  acs_graph_set_demand(&g, 0, TU_CMX, 3000);
  acs_graph_set_demand(&g, 1, TU_CMX, 2000);
  tu_finalize(&g);
  tu_problem(&pb, &g, sets);
  run_ok("list", &pb, NULL, &s);
  assert_starts(&s, want, 2);
  cr_assert_eq(s.makespan, 15);
  cr_assert_eq(s.ops[0].unit, 0);
  cr_assert_eq(s.ops[1].unit, 0, "a has ended at 10, so PE 0 is free again");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Named resource "bus" of capacity 2, no PEs: x(4, bus 2), y(3, bus 1),
 * z(3, bus 1), independent. All LFTs equal the bound 4, so the order is by
 * id: x takes the whole bus at 0; y and z share it at 4. Units are -1.
 */
Test(list, respects_named_resource)
{
  const int64_t want[] = { 0, 4, 4 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  named_graph(&g, "bus", 2);
  tu_op(&g, "x", ACS_OP_DPU, 4);
  tu_op(&g, "y", ACS_OP_DPU, 3);
  tu_op(&g, "z", ACS_OP_DPU, 3);
  acs_graph_set_demand(&g, 0, 0, 2);
  acs_graph_set_demand(&g, 1, 0, 1);
  acs_graph_set_demand(&g, 2, 0, 1);
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  run_ok("list", &pb, NOJUSTIFY, &s);
  assert_starts(&s, want, 3);
  cr_assert_eq(s.makespan, 7);
  for (int i = 0; i < 3; i++)
    cr_assert_eq(s.ops[i].unit, -1);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* An op that alone needs more CMX than exists: both variants refuse, naming it
 * (the seed's FSG would loop forever on it). */
Test(list, op_exceeding_capacity_is_infeasible)
{
  static const char *const sets[] = { "cmx_kib=4", NULL };
  static const char *const scheds[] = { "sequential", "list" };
  struct acs_graph g;
  struct acs_problem pb;

  tu_graph_npu(&g, "big");
  tu_op(&g, "small", ACS_OP_DPU, 1);
  tu_op(&g, "huge_conv", ACS_OP_DPU, 1);
  acs_graph_set_demand(&g, 1, TU_CMX, 5000);
  tu_edge(&g, 0, 1);
  tu_finalize(&g);
  tu_problem(&pb, &g, sets);
  for (int k = 0; k < 2; k++) {
    struct acs_schedule s;
    struct acs_diag d;
    int err = run_sched(scheds[k], &pb, NULL, &s, &d);
    cr_assert_eq(err, ACS_EINFEASIBLE, "%s: %d", scheds[k], err);
    cr_assert_not_null(strstr(d.msg, "huge_conv"), "message: %s", d.msg);
    acs_schedule_destroy(&s);
  }
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Units: five independent 4-cycle dpu ops and three 2-cycle dma ops on 2 PEs
 * and 2 channels. Ids give the order (equal LFT 8 for the dpu ops, 8 for the
 * dma ones as well). PEs: p0 [0,4) PE0, p1 [0,4) PE1, p2 [4,8) PE0,
 * p3 [4,8) PE1, p4 [8,12) PE0. Channels: m0 [0,2) ch0, m1 [0,2) ch1,
 * m2 [2,4) ch0.
 */
Test(list, assigns_lowest_free_units_exclusively)
{
  static const char *const sets[] = { "pe_count=2", "dma_channels=2", NULL };
  const int64_t want[] = { 0, 0, 4, 4, 8, 0, 0, 2 };
  const int32_t units[] = { 0, 1, 0, 1, 0, 0, 1, 0 };
  static const char *const names[] = { "p0", "p1", "p2", "p3", "p4", "m0", "m1", "m2" };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  tu_graph_npu(&g, "units");
  for (int i = 0; i < 8; i++)
    tu_op(&g, names[i], i < 5 ? ACS_OP_DPU : ACS_OP_DMA, i < 5 ? 4 : 2);
  tu_finalize(&g);
  tu_problem(&pb, &g, sets);
  run_ok("list", &pb, NOJUSTIFY, &s);
  assert_starts(&s, want, 8);
  for (int i = 0; i < 8; i++)
    cr_assert_eq(s.ops[i].unit, units[i], "%s on unit %d", names[i], s.ops[i].unit);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * One PE, so only the order changes with the rule. Ops (id: duration):
 * a0:1, b1:6 -> x4:1, c2:1 -> y5:3, d3:1 -> {p6, q7, r8}:1. CP = 7.
 *   lpath (own duration included): a 1, b 7, c 4, d 2, x 1, y 3, p/q/r 1
 *   LFT = 7 - (lpath - duration):  a 7, b 6, c 4, d 6, x 7, y 7, p/q/r 7
 *   total successors:              a 0, b 1, c 1, d 3, others 0
 *   topological position = id.
 * Greedy on one PE (smallest key, then id, among ready ops at each end):
 *   topo:  a0 b1 c7 d8 x9 y10 p13 q14 r15
 *   lpath: b0 c6 y7 d10 a11 x12 p13 q14 r15
 *   lft:   c0 b1 d7 a8 x9 y10 p13 q14 r15
 *   mts:   d0 b1 c7 a8 x9 y10 p13 q14 r15
 * (start times listed per op; the order of the list is a b c d x y p q r).
 */
static void rules_graph(struct acs_graph *g)
{
  static const char *const names[] = { "a", "b", "c", "d", "x", "y", "p", "q", "r" };
  static const int64_t dur[] = { 1, 6, 1, 1, 1, 3, 1, 1, 1 };

  tu_graph_npu(g, "rules");
  for (int i = 0; i < 9; i++)
    tu_op(g, names[i], ACS_OP_DPU, dur[i]);
  tu_edge(g, 1, 4);
  tu_edge(g, 2, 5);
  tu_edge(g, 3, 6);
  tu_edge(g, 3, 7);
  tu_edge(g, 3, 8);
  tu_finalize(g);
}

static void check_rule(const char *rule, const int64_t *want)
{
  static const char *const plat[] = { "pe_count=1", NULL };
  char set[32];
  const char *sets[] = { set, "justify=0", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  snprintf(set, sizeof(set), "rule=%s", rule);
  rules_graph(&g);
  tu_problem(&pb, &g, plat);
  run_ok("list", &pb, sets, &s);
  assert_starts(&s, want, 9);
  cr_assert_eq(s.makespan, 16);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(rules, topo_takes_lowest_position)
{
  const int64_t want[] = { 0, 1, 7, 8, 9, 10, 13, 14, 15 };
  check_rule("topo", want);
}

Test(rules, lpath_takes_longest_path)
{
  /* a b c d x y p q r */
  const int64_t want[] = { 11, 0, 6, 10, 12, 7, 13, 14, 15 };
  check_rule("lpath", want);
}

Test(rules, lft_takes_latest_finish_time)
{
  const int64_t want[] = { 8, 1, 0, 7, 9, 10, 13, 14, 15 };
  check_rule("lft", want);
}

Test(rules, mts_takes_most_successors)
{
  const int64_t want[] = { 8, 1, 7, 0, 9, 10, 13, 14, 15 };
  check_rule("mts", want);
}

/*
 * Named resource of capacity 2: a(1, needs 1), b(1, needs 2) -> c(5, needs 1).
 * Topo rule without justification: a [0,1) leaves too little for b, so
 * b [1,2), c [2,7): makespan 7. One forward-backward round: right-justified
 * against 7, c [2,7), b [1,2), a [6,7); shifted to start at 0: b 0, c 1,
 * a 5; left-justified in that order: b [0,1), c [1,6), a [1,2): makespan 6,
 * the optimum.
 */
Test(list, justification_repairs_a_greedy_choice)
{
  const char *plain[] = { "rule=topo", "justify=0", NULL };
  const char *fbi[] = { "rule=topo", "justify=1", NULL };
  const int64_t want_plain[] = { 0, 1, 2 }, want_fbi[] = { 1, 0, 1 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  named_graph(&g, "r", 2);
  tu_op(&g, "a", ACS_OP_DPU, 1);
  tu_op(&g, "b", ACS_OP_DPU, 1);
  tu_op(&g, "c", ACS_OP_DPU, 5);
  acs_graph_set_demand(&g, 0, 0, 1);
  acs_graph_set_demand(&g, 1, 0, 2);
  acs_graph_set_demand(&g, 2, 0, 1);
  tu_edge(&g, 1, 2);
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  run_ok("list", &pb, plain, &s);
  assert_starts(&s, want_plain, 3);
  cr_assert_eq(s.makespan, 7);
  acs_schedule_destroy(&s);
  run_ok("list", &pb, fbi, &s);
  assert_starts(&s, want_fbi, 3);
  cr_assert_eq(s.makespan, 6);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Serial SGS on the same instance with rule topo: the activity list is
 * a, b, c; a at 0, b needs the whole resource so waits until 1, c at 2.
 */
Test(list, serial_sgs_places_in_list_order)
{
  const char *sets[] = { "rule=topo", "justify=0", "sgs=serial", NULL };
  const int64_t want[] = { 0, 1, 2 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  named_graph(&g, "r", 2);
  tu_op(&g, "a", ACS_OP_DPU, 1);
  tu_op(&g, "b", ACS_OP_DPU, 1);
  tu_op(&g, "c", ACS_OP_DPU, 5);
  acs_graph_set_demand(&g, 0, 0, 1);
  acs_graph_set_demand(&g, 1, 0, 2);
  acs_graph_set_demand(&g, 2, 0, 1);
  tu_edge(&g, 1, 2);
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  run_ok("list", &pb, sets, &s);
  assert_starts(&s, want, 3);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* Zero-length ops (like PSPLIB's dummy source and sink) hold nothing and
 * pass their predecessors' end straight on: s(0) -> {a(2), b(3)} -> t(0) on
 * 1 PE: s 0, a 0, b 2, t 5. */
Test(list, zero_length_ops_pass_through)
{
  static const char *const plat[] = { "pe_count=1", NULL };
  const int64_t want[] = { 0, 0, 2, 5 };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  tu_graph_npu(&g, "zero");
  tu_op(&g, "s", ACS_OP_SYNC, 0);
  tu_op(&g, "a", ACS_OP_DPU, 2);
  tu_op(&g, "b", ACS_OP_DPU, 3);
  tu_op(&g, "t", ACS_OP_SYNC, 0);
  tu_edge(&g, 0, 1);
  tu_edge(&g, 0, 2);
  tu_edge(&g, 1, 3);
  tu_edge(&g, 2, 3);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  run_ok("list", &pb, NOJUSTIFY, &s);
  assert_starts(&s, want, 4);
  acs_schedule_destroy(&s);
  run_ok("list", &pb, NULL, &s);
  cr_assert_eq(s.makespan, 5);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- PSPLIB against proven optima ------------------------------------- */

/* Proven optimum of j30<group>_<inst>.sm from a j30opt.sm file: rows whose
 * first three fields are integers (group, instance, optimum). -1 if absent. */
static int64_t j30_optimum(const char *optfile, const char *smpath)
{
  const char *base = strrchr(smpath, '/');
  int group, inst, g, i, opt;
  char line[256];
  int64_t found = -1;
  FILE *f;

  base = base ? base + 1 : smpath;
  if (sscanf(base, "j30%d_%d.sm", &group, &inst) != 2)
    return -1;
  f = fopen(optfile, "r");
  cr_assert_not_null(f, "cannot open %s", optfile);
  while (found < 0 && fgets(line, sizeof(line), f))
    if (sscanf(line, "%d %d %d", &g, &i, &opt) == 3 && g == group && i == inst)
      found = opt;
  fclose(f);
  return found;
}

/* Schedules one instance with several configurations; each verifies, is no
 * shorter than the optimum and the lower bound, and is repeatable. */
static void check_psplib(const char *path, const char *optfile)
{
  static const char *const cfg[][4] = {
    { NULL }, { "rule=topo", "justify=0", NULL }, { "rule=lpath", "justify=0", NULL },
    { "rule=lft", "justify=0", NULL }, { "rule=mts", "justify=0", NULL },
    { "sgs=serial", NULL },
  };
  int64_t opt = j30_optimum(optfile, path), bound, first = -1;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;

  cr_assert_gt(opt, 0, "no optimum for %s in %s", path, optfile);
  acs_diag_init(&d);
  cr_assert_eq(acs_psplib_load(path, &g, &d), ACS_OK, "%s: %s", path, d.msg);
  tu_problem(&pb, &g, NULL);
  bound = acs_bound_best(&pb);
  cr_assert_leq(bound, opt, "%s: bound %lld above optimum %lld", path, (long long)bound,
                (long long)opt);
  run_ok("sequential", &pb, NULL, &s);
  cr_assert_geq(s.makespan, opt);
  acs_schedule_destroy(&s);
  for (size_t k = 0; k < sizeof(cfg) / sizeof(cfg[0]); k++) {
    run_ok("list", &pb, cfg[k], &s);
    cr_assert_geq(s.makespan, opt, "%s: makespan %lld below the optimum %lld", path,
                  (long long)s.makespan, (long long)opt);
    cr_assert_geq(s.makespan, bound);
    if (k == 0)
      first = s.makespan;
    acs_schedule_destroy(&s);
  }
  run_ok("list", &pb, NULL, &s);
  cr_assert_eq(s.makespan, first, "%s: two runs differ", path);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* Instance files j30<group>_<instance>.sm (not the optima file). */
static int is_sm(const struct dirent *e)
{
  int group, inst;
  char tail[4];

  return sscanf(e->d_name, "j30%d_%d.%3s", &group, &inst, tail) == 3 &&
         strcmp(tail, "sm") == 0;
}

/* Every j30 instance of a directory; returns how many. */
static int check_psplib_dir(const char *dir, const char *optfile)
{
  struct dirent **list;
  char path[4096];
  int n = scandir(dir, &list, is_sm, alphasort);

  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
    check_psplib(path, optfile);
    free(list[i]);
  }
  if (n > 0)
    free(list);
  return n;
}

Test(psplib, copied_j30_instances_never_beat_the_optimum)
{
  char dir[4096], opt[4096];
  int n;

  snprintf(dir, sizeof(dir), "%s/tests/data/psplib", ACS_SRCDIR);
  snprintf(opt, sizeof(opt), "%s/tests/data/psplib/j30opt.sm", ACS_SRCDIR);
  n = check_psplib_dir(dir, opt);
  cr_assert_geq(n, 10, "expected the copied j30 instances, found %d", n);
}

/* The whole shared j30 set when the shared data is beside the checkout. */
Test(psplib, shared_j30_instances_never_beat_the_optimum)
{
  char dir[4096], opt[4096];
  DIR *probe;

  snprintf(dir, sizeof(dir), "%s/../shared/data/psplib/j30", ACS_SRCDIR);
  snprintf(opt, sizeof(opt), "%s/../shared/data/psplib/optima/j30opt.sm", ACS_SRCDIR);
  probe = opendir(dir);
  if (!probe)
    cr_skip_test("no shared data at %s", dir);
  closedir(probe);
  cr_assert_gt(check_psplib_dir(dir, opt), 0);
}

/* ---- determinism and random graphs ------------------------------------ */

Test(list, same_input_gives_identical_schedule)
{
  static const char *const sets[] = { "cmx_kib=8", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule a, b;

  tu_random_dag(&g, 42, 2000, 3000);
  tu_problem(&pb, &g, sets);
  for (int rule = 0; rule < 2; rule++) {
    const char *cfg[] = { rule ? "rule=mts" : "rule=lft", NULL };
    run_ok("list", &pb, cfg, &a);
    run_ok("list", &pb, cfg, &b);
    for (int32_t i = 0; i < a.nops; i++) {
      cr_assert_eq(a.ops[i].start, b.ops[i].start);
      cr_assert_eq(a.ops[i].unit, b.ops[i].unit);
    }
    acs_schedule_destroy(&a);
    acs_schedule_destroy(&b);
  }
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* A few hundred seeded random DAGs with tight CMX: every configuration
 * verifies, is at least the lower bound and at most the sequential one. */
Test(list, random_dags_verify, .timeout = 120)
{
  static const char *const plat[] = { "cmx_kib=4", "pe_count=3", NULL };
  static const char *const cfg[][4] = {
    { NULL }, { "rule=topo", "justify=0", NULL }, { "rule=lpath", NULL },
    { "rule=mts", "justify=0", NULL }, { "sgs=serial", "rule=lft", NULL },
  };

  for (uint64_t seed = 1; seed <= 300; seed++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    int64_t bound, seq;

    tu_random_dag(&g, seed, 5 + (int32_t)(seed % 150), 2500);
    tu_problem(&pb, &g, plat);
    bound = acs_bound_best(&pb);
    run_ok("sequential", &pb, NULL, &s);
    seq = s.makespan;
    acs_schedule_destroy(&s);
    for (size_t k = 0; k < sizeof(cfg) / sizeof(cfg[0]); k++) {
      run_ok("list", &pb, cfg[k], &s);
      cr_assert_geq(s.makespan, bound, "seed %llu", (unsigned long long)seed);
      cr_assert_leq(s.makespan, seq, "seed %llu", (unsigned long long)seed);
      acs_schedule_destroy(&s);
    }
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

/* 10^5 ops are above the exact transitive-count limit of mts, which then
 * estimates the counts; the schedule must still be complete and valid. */
Test(rules, mts_estimate_on_a_large_graph_verifies, .timeout = 60)
{
  static const char *const sets[] = { "rule=mts", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  tu_random_dag(&g, 7, 100000, 100000);
  tu_problem(&pb, &g, NULL);
  run_ok("list", &pb, sets, &s);
  cr_assert_geq(s.makespan, acs_bound_best(&pb));
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}
