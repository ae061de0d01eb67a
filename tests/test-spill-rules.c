/*
 * test-spill-rules.c - the `spill` variant (seed 000: producer/consumer
 * memory model with dynamic spills) on the seed's Figure-10 network, its
 * precondition and contiguity, and the verifier's spill rules.
 *
 * Expected values are derived by hand in the comments, or by a second
 * method. Every schedule produced here goes through acs_schedule_verify.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/sched/ctrledge.h"
#include "core/sched/interval.h"
#include "core/sched/npu/spill.h"
#include "tests/testutil.h"

#include "tests/spill_util.h"

/* ---- the seed's Figure-10 network ------------------------------------- */

/*
 * Figure-10 (the seed's unit test "simple_spill_test"): inputs In_0 (A_in,
 * 5 units) and In_1 (B_in, 4 units) are loads; A (5) reads A_in, B (1) reads
 * A and B_in, C (4) reads A_in and B. Resource bound 10 units; a unit is
 * 1 KiB here (the platform's CMX is a whole number of KiB). Every op takes
 * one cycle; spill DMAs take the platform's DDR time (100 + ceil(bytes /
 * 11.43) cycles at 700 MHz, 8 GB/s DDR). Ops are added in the order A_in, A,
 * B_in, B, C so that rank ties (equal latest finish times) follow the seed.
 */
static void fig10(struct acs_graph *g, int32_t id[5])
{
  tu_graph_npu(g, "fig10");
  id[0] = top(g, "A_in", ACS_OP_DMA, 1, 5 << 10);
  id[1] = top(g, "A", ACS_OP_DPU, 1, 5 << 10);
  id[2] = top(g, "B_in", ACS_OP_DMA, 1, 4 << 10);
  id[3] = top(g, "B", ACS_OP_DPU, 1, 1 << 10);
  id[4] = top(g, "C", ACS_OP_DPU, 1, 4 << 10);
  tu_edge(g, id[0], id[1]);
  tu_edge(g, id[0], id[4]);
  tu_edge(g, id[2], id[3]);
  tu_edge(g, id[1], id[3]);
  tu_edge(g, id[3], id[4]);
  tu_finalize(g);
}

static const char *const FIG10_PLAT[] = { "cmx_kib=10", "cmx_align_bytes=1024", NULL };

/*
 * With the seed's write-back of every evicted tensor (clean=write) and a
 * lookahead of one rank (the seed loads an input with the op that needs it),
 * by hand: A_in loads at 0 into [0, 5K); A runs at 1 into [5K, 10K); at 2
 * B_in (4K) finds no gap and nothing runs, so a 4K window is evicted: the
 * one over A_in (last used when A started) is older than the one over A
 * (produced after that): A_in@sw1 writes it out over [2, 550). B_in then
 * loads into [0, 4K) at 550, B runs at 551 into [4K, 5K), and when B ends at
 * 552 A and B_in are freed; C needs A_in back: A_in@sr1 reads it into
 * [5K, 10K) over [552, 1100), and C runs at 1100 into [0, 4K).
 *
 * The seed's Figure-12 lists the same order: A_in, A, A_in SPILLED_WRITE,
 * B_in, B, A_in SPILLED_READ, C. Differences: (1) its last line, a
 * SPILLED_WRITE of C, does not exist here: C has no consumer, so its range
 * is freed when C ends (a network writes its results with an explicit
 * output DMA, which the DNN graphs have); (2) its addresses come from its
 * own allocator (A_in at the top, A at the bottom); here first fit from 0;
 * (3) its times are steps, here cycles with real DDR transfer times.
 */
Test(fig10, seed_write_back_matches_figure_12)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_schedule_stats st;
  struct acs_spill_stats ss;
  const char *const opts[] = { "clean=write", "lookahead=1", NULL };
  int32_t id[5];

  fig10(&g, id);
  tu_problem(&pb, &g, FIG10_PLAT);
  run_ok(&pb, opts, &s, &ss);
  cr_assert_eq(s.nops, 7, "5 ops plus a spill write and read, got %d", s.nops);
  int32_t sw = find_op(&s, "A_in@sw1"), sr = find_op(&s, "A_in@sr1");
  const char *order[] = { "A_in", "A", "A_in@sw1", "B_in", "B", "A_in@sr1", "C" };
  const int64_t start[] = { 0, 1, 2, 550, 551, 552, 1100 };
  const int64_t off[] = { 0, 5 << 10, -1, 0, 4 << 10, 5 << 10, 0 };
  for (int k = 0; k < 7; k++) {
    int32_t i = find_op(&s, order[k]);
    cr_assert_eq(s.ops[i].start, start[k], "%s starts at %lld", order[k], (long long)s.ops[i].start);
    cr_assert_eq(s.ops[i].cmx_offset, off[k], "%s at %lld", order[k], (long long)s.ops[i].cmx_offset);
  }
  cr_assert_eq(s.ops[sw].src, ACS_MEM_CMX);
  cr_assert_eq(s.ops[sw].dst, ACS_MEM_DDR);
  cr_assert_eq(s.ops[sw].bytes, 5 << 10);
  cr_assert_geq(s.ops[sw].unit, 0);
  cr_assert_eq(s.ops[sr].src, ACS_MEM_DDR);
  cr_assert_eq(s.ops[sr].bytes, 5 << 10);
  /* Data edges: A_in -> write -> read -> C. */
  cr_assert(sched_has_edge(&s, id[0], sw, ACS_EDGE_DATA));
  cr_assert(sched_has_edge(&s, sw, sr, ACS_EDGE_DATA));
  cr_assert(sched_has_edge(&s, sr, id[4], ACS_EDGE_DATA));
  /* A_in's range is given back when the write ends. */
  double fr = s.ops[id[0]].cmx_free;
  cr_assert_float_eq(fr, 550.0, 1e-9);
  acs_schedule_stats(&s, &st);
  cr_assert_eq(st.spill_bytes, 5 << 10);
  cr_assert_eq(ss.writes, 1);
  cr_assert_eq(ss.reads, 1);
  /* DDR traffic: the two loads (9K) and the spill both ways (10K). */
  cr_assert_eq(st.ddr_bytes, 19 << 10);
  cr_assert_eq(st.peak_cmx_bytes, 10 << 10);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * The control edges of that packing, by hand. Ranges reused: [0, 4K) of
 * A_in by B_in (holders of A_in: A and the write; neither reaches B_in:
 * A -> B_in and A_in@sw1 -> B_in are added); [4K, 5K) of A_in by B (A -> B
 * is a data edge, A_in@sw1 -> B_in -> B a path: both dropped); [5K, 10K) of
 * A by A_in@sr1 (holder B; nothing orders B before the read: B -> A_in@sr1
 * added); [0, 4K) of B_in by C (holder B, a data edge). Three edges.
 */
Test(fig10, control_edges_by_hand)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_spill_stats ss;
  const char *const opts[] = { "clean=write", "lookahead=1", NULL };
  int32_t id[5];

  fig10(&g, id);
  tu_problem(&pb, &g, FIG10_PLAT);
  run_ok(&pb, opts, &s, &ss);
  int32_t sw = find_op(&s, "A_in@sw1"), sr = find_op(&s, "A_in@sr1");
  cr_assert_eq(count_edges_of_kind(&s, ACS_EDGE_CONTROL), 3);
  cr_assert(sched_has_edge(&s, id[1], id[2], ACS_EDGE_CONTROL));
  cr_assert(sched_has_edge(&s, sw, id[2], ACS_EDGE_CONTROL));
  cr_assert(sched_has_edge(&s, id[3], sr, ACS_EDGE_CONTROL));
  cr_assert_eq(ss.ctrl.added, 3);
  cr_assert_eq(ss.ctrl.implied, ss.ctrl.candidates - 3);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * clean=drop (the default): A_in is a load from DDR, so it is dropped
 * without a write at 2 and re-read from its source for C: B_in loads at 2,
 * B runs at 3, A_in@sr1 (fed by A_in itself) reads over [4, 552), C at 552.
 * No spilled bytes, one read.
 */
Test(fig10, clean_loads_are_dropped_and_reread)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_schedule_stats st;
  const char *const opts[] = { "lookahead=1", NULL };
  int32_t id[5];

  fig10(&g, id);
  tu_problem(&pb, &g, FIG10_PLAT);
  run_ok(&pb, opts, &s, NULL);
  cr_assert_eq(s.nops, 6);
  int32_t sr = find_op(&s, "A_in@sr1");
  cr_assert(sched_has_edge(&s, id[0], sr, ACS_EDGE_DATA));
  cr_assert(sched_has_edge(&s, sr, id[4], ACS_EDGE_DATA));
  cr_assert_eq(s.ops[id[2]].start, 2);
  cr_assert_eq(s.ops[id[3]].start, 3);
  cr_assert_eq(s.ops[sr].start, 4);
  cr_assert_eq(s.ops[id[4]].start, 552);
  acs_schedule_stats(&s, &st);
  cr_assert_eq(st.spill_bytes, 0);
  cr_assert_eq(st.ddr_bytes, 14 << 10);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- precondition and contiguity --------------------------------------- */

/* B reads A (600 B) and A2 (300 B) and writes 200 B: 1100 > 1024 with
 * alignment 1; the message names B and the bytes. */
Test(spill, precondition_names_the_op_and_bytes)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=1", NULL };
  int32_t a, a2, b;

  tu_graph_npu(&g, "pre");
  a = top(&g, "A", ACS_OP_DMA, 5, 600);
  a2 = top(&g, "A2", ACS_OP_DMA, 5, 300);
  b = top(&g, "B", ACS_OP_DPU, 5, 200);
  tu_edge(&g, a, b);
  tu_edge(&g, a2, b);
  tu_edge(&g, a2, b); /* a duplicate edge does not count twice */
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  acs_diag_init(&d);
  cr_assert_eq(run_spill(&pb, NULL, &s, NULL, &d), ACS_EINFEASIBLE);
  cr_assert_str_eq(d.msg, "op 'B' needs 1100 bytes of CMX at once (2 input tensors, 900 "
                          "bytes, and its output, 200 bytes, aligned to 1) but the CMX holds 1024");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  /* 924 bytes of output fit exactly. */
  g.ops[b].out_bytes = 124;
  tu_problem(&pb, &g, plat);
  run_ok(&pb, NULL, &s, NULL);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Enough bytes in total but no gap. CMX 4 KiB, alignment 1 KiB, one DMA
 * channel, topological priority: loads X1..X4 (1 KiB each, one cycle) land
 * in address order [0, 1K) .. [3K, 4K) at cycles 0..3. K (10 cycles from 3)
 * reads X1 and X3; when it ends at 13 they are freed: 2 KiB free, but as two
 * 1 KiB gaps. W needs a 2 KiB output, and X2, X4 wait for L (after W).
 * Nothing runs, so a 2 KiB window is evicted rather than overcommitting:
 * [0, 2K) holds only X2, the least recently used (loaded before X4), so X2
 * is dropped (a clean load) and W takes [0, 2K) at 13. L then needs X2 back:
 * X2@sr1 reads it into the gap [2K, 3K).
 */
Test(spill, no_contiguous_gap_evicts_a_window)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_spill_stats ss;
  const char *const plat[] = { "cmx_kib=4", "cmx_align_bytes=1024", "dma_channels=1", NULL };
  const char *const opts[] = { "lookahead=0", "rule=topo", NULL };
  int32_t x[4], k, w, l;

  tu_graph_npu(&g, "frag");
  for (int i = 0; i < 4; i++) {
    char name[8];
    snprintf(name, sizeof(name), "X%d", i + 1);
    x[i] = top(&g, name, ACS_OP_DMA, 1, 1024);
  }
  k = top(&g, "K", ACS_OP_DPU, 10, 0);
  w = top(&g, "W", ACS_OP_DPU, 1, 2048);
  l = top(&g, "L", ACS_OP_DPU, 1, 0);
  tu_edge(&g, x[0], k);
  tu_edge(&g, x[2], k);
  tu_edge(&g, k, w);
  tu_edge(&g, w, l);
  tu_edge(&g, x[1], l);
  tu_edge(&g, x[3], l);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  run_ok(&pb, opts, &s, &ss);
  for (int i = 0; i < 4; i++)
    cr_assert_eq(s.ops[x[i]].cmx_offset, i * 1024);
  cr_assert_gt(ss.contig_refused, 0, "W was never refused for contiguity");
  cr_assert_eq(s.ops[w].start, 13);
  cr_assert_eq(s.ops[w].cmx_offset, 0);
  cr_assert_eq(s.ops[w].cmx_bytes, 2048);
  cr_assert_eq(ss.drops, 1);
  cr_assert_eq(ss.writes, 0);
  double fr = s.ops[x[1]].cmx_free;
  cr_assert_float_eq(fr, 2.0, 1e-9); /* X2 was last held when it finished loading */
  int32_t r = find_op(&s, "X2@sr1");
  cr_assert_eq(s.ops[r].cmx_offset, 2048);
  cr_assert(sched_has_edge(&s, r, l, ACS_EDGE_DATA));
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- the verifier's spill rules --------------------------------------- */

/* A hand-made spill schedule: a (dma, 512 B) -> b, a -> c; a is written out
 * by w over [10, 20) and read back by r into the same range over [20, 30)
 * for c. */
static void spilled_by_hand(struct acs_graph *g, struct acs_problem *pb, struct acs_schedule *s,
                            int32_t *w, int32_t *r)
{
  const char *const plat[] = { "cmx_kib=1", NULL };
  struct acs_sop so;
  int32_t a, b, c;

  tu_graph_npu(g, "byhand");
  a = top(g, "a", ACS_OP_DMA, 5, 512);
  b = top(g, "b", ACS_OP_DPU, 5, 0);
  c = top(g, "c", ACS_OP_DPU, 5, 0);
  tu_edge(g, a, b);
  tu_edge(g, a, c);
  tu_finalize(g);
  tu_problem(pb, g, plat);
  cr_assert_eq(acs_schedule_init_problem(s, pb), ACS_OK);
  s->ops[a].start = 0, s->ops[a].end = 5, s->ops[a].unit = 0;
  s->ops[b].start = 5, s->ops[b].end = 10, s->ops[b].unit = 0;
  s->ops[c].start = 30, s->ops[c].end = 35, s->ops[c].unit = 0;
  s->ops[a].cmx_offset = 0, s->ops[a].cmx_bytes = 512;
  s->ops[a].cmx_alloc = 0, s->ops[a].cmx_free = 20;
  memset(&so, 0, sizeof(so));
  so.kind = ACS_OP_DMA;
  so.bytes = 512;
  so.slots = 1;
  so.update_barrier = -1;
  so.sim_start = so.sim_end = NAN;
  so.name = "a@sw1", so.src = ACS_MEM_CMX, so.dst = ACS_MEM_DDR;
  so.start = 10, so.end = 20, so.dur = 10, so.unit = 0;
  so.cmx_offset = so.cmx_bytes = -1, so.cmx_alloc = so.cmx_free = NAN;
  *w = acs_schedule_add_op(s, &so);
  so.name = "a@sr1", so.src = ACS_MEM_DDR, so.dst = ACS_MEM_CMX, so.out_bytes = 512;
  so.start = 20, so.end = 30;
  so.cmx_offset = 0, so.cmx_bytes = 512, so.cmx_alloc = 20, so.cmx_free = 35;
  *r = acs_schedule_add_op(s, &so);
  cr_assert_eq(acs_schedule_set_demand(s, *w, TU_DMA, 1), ACS_OK);
  cr_assert_eq(acs_schedule_set_demand(s, *r, TU_DMA, 1), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(s, a, *w, ACS_EDGE_DATA), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(s, *w, *r, ACS_EDGE_DATA), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(s, *r, c, ACS_EDGE_DATA), ACS_OK);
  /* The graph's cmx demands are the S-R working sets; a spill schedule
   * states the range bytes. */
  for (int32_t i = 0; i < s->nops; i++)
    s->demand[(size_t)i * (size_t)s->nres + TU_CMX] = s->ops[i].cmx_bytes > 0 ? s->ops[i].cmx_bytes : 0;
  acs_schedule_finish(s);
}

static void expect_violation(const struct acs_schedule *s, const char *msg)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(s, &d), ACS_EVERIFY, "accepted a bad schedule");
  cr_assert_str_eq(d.msg, msg);
}

Test(verify_spill, accepts_a_tensor_read_back_before_its_use)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  tu_assert_verified(&s);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(verify_spill, catches_a_use_without_read_back)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.edges[s.nedges - 1].kind = ACS_EDGE_CONTROL; /* r -> c orders, but feeds nothing */
  expect_violation(&s, "'c' reads the tensor of 'a' until 35 but its CMX range is freed at 20");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(verify_spill, catches_a_read_back_freed_too_early)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.ops[r].cmx_free = 33;
  expect_violation(&s, "'c' reads the tensor of 'a' until 35 but its CMX range is freed at 20");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(verify_spill, catches_a_partial_spill)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.ops[w].bytes = 256;
  expect_violation(&s, "spill op 'a@sw1' moves 256 bytes but the tensor of 'a' has 512");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* A read whose data comes from neither a spill-write nor a load from DDR is
 * no copy of a's tensor, so c is not fed. */
Test(verify_spill, a_read_from_nowhere_feeds_nothing)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.edges[s.nedges - 2].src = 1; /* b -> r instead of w -> r */
  expect_violation(&s, "'c' reads the tensor of 'a' until 35 but its CMX range is freed at 20");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* A schedule without CMX ranges may add a write-back DMA of its own: it is
 * not a spill and is not held to the spill rules. */
Test(verify_spill, accepts_an_added_write_back_without_ranges)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.ops[0].cmx_offset = s.ops[0].cmx_bytes = -1;
  s.ops[0].cmx_alloc = s.ops[0].cmx_free = NAN;
  s.ops[r].cmx_offset = s.ops[r].cmx_bytes = -1;
  s.ops[r].cmx_alloc = s.ops[r].cmx_free = NAN;
  s.ops[w].bytes = 100; /* not a copy of anything: any size */
  tu_assert_verified(&s);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(verify_spill, catches_a_read_before_the_write_ends)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.ops[r].start = 18, s.ops[r].end = 28, s.ops[r].cmx_alloc = 18;
  expect_violation(&s, "data edge 'a@sw1' -> 'a@sr1' violated: 'a@sr1' starts at 18 before "
                       "'a@sw1' ends at 20");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

