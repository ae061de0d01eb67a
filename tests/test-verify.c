/*
 * test-verify.c - the verifier catches each class of violation, on
 * hand-built schedules, and accepts a correct one.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/testutil.h"

/*
 * Fixture: a -> b (dpu, 10 cycles each), c (dma, 5 cycles), d (dpu, 10).
 * Platform: 2 PEs, 1 DMA channel, CMX 1 KiB, alignment 64.
 * The good schedule: a [0,10) PE0, b [10,20) PE0, c [0,5) ch0, d [0,10) PE1.
 */
static struct acs_graph g;
static struct acs_problem pb;
static struct acs_schedule s;
enum { A, B, C, D };

static void setup(void)
{
  const char *sets[] = {"pe_count=2", "dma_channels=1", "cmx_kib=1", "cmx_align_bytes=64", NULL};

  tu_graph_npu(&g, "fixture");
  tu_op(&g, "a", ACS_OP_DPU, 10);
  tu_op(&g, "b", ACS_OP_DPU, 10);
  tu_op(&g, "c", ACS_OP_DMA, 5);
  tu_op(&g, "d", ACS_OP_DPU, 10);
  tu_edge(&g, A, B);
  acs_graph_set_demand(&g, A, TU_CMX, 600);
  acs_graph_set_demand(&g, D, TU_CMX, 400);
  tu_finalize(&g);
  tu_problem(&pb, &g, sets);
  cr_assert_eq(acs_schedule_init_problem(&s, &pb), ACS_OK);
  const int64_t start[] = {0, 10, 0, 0};
  const int32_t unit[] = {0, 0, 0, 1};
  for (int i = 0; i < 4; i++) {
    s.ops[i].start = start[i];
    s.ops[i].end = start[i] + s.ops[i].dur;
    s.ops[i].unit = unit[i];
  }
  acs_schedule_finish(&s);
}

static void teardown(void)
{
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

static void expect_violation(const char *msg)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_EVERIFY, "accepted a bad schedule");
  cr_assert_str_eq(d.msg, msg);
}

TestSuite(verify, .init = setup, .fini = teardown);

Test(verify, accepts_the_good_schedule)
{
  tu_assert_verified(&s);
  cr_assert_eq(s.makespan, 20);
}

/* The process's interrupt flag set: the verifier stops before its next
 * check with ACS_EINTERRUPTED (never a verdict on the schedule), and
 * verifies again once the flag is cleared. */
Test(verify, stops_when_interrupted)
{
  static volatile sig_atomic_t flag = 1;
  struct acs_diag d;

  acs_interrupt_flag_set(&flag);
  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_EINTERRUPTED);
  cr_assert_str_eq(d.msg, "interrupted");
  flag = 0;
  tu_assert_verified(&s);
  acs_interrupt_flag_set(NULL);
}

Test(verify, catches_unscheduled_op)
{
  s.ops[C].start = -1;
  expect_violation("op 'c' is not scheduled (start -1)");
}

Test(verify, catches_wrong_duration)
{
  s.ops[B].end = 19;
  expect_violation("op 'b' runs [10, 19) but its duration is 10 cycles");
}

Test(verify, catches_precedence_violation)
{
  s.ops[B].start = 9;
  s.ops[B].end = 19;
  s.ops[B].unit = 1;
  s.ops[D].start = 20;
  s.ops[D].end = 30;
  expect_violation("data edge 'a' -> 'b' violated: 'b' starts at 9 before 'a' ends at 10");
}

Test(verify, catches_control_edge_violation)
{
  cr_assert_eq(acs_schedule_add_edge(&s, D, C, ACS_EDGE_CONTROL), ACS_OK);
  expect_violation("control edge 'd' -> 'c' violated: 'c' starts at 0 before 'd' ends at 10");
}

Test(verify, catches_unit_overlap)
{
  s.ops[D].unit = 0;
  expect_violation("ops 'a' [0, 10) and 'd' [0, 10) overlap on PE 0");
}

Test(verify, catches_unit_out_of_range)
{
  s.ops[D].unit = 2;
  expect_violation("op 'd' runs on pe 2, outside [0, 2)");
}

Test(verify, catches_missing_unit)
{
  s.ops[C].unit = -1;
  expect_violation("op 'c' runs on dma -1, outside [0, 1)");
}

Test(verify, catches_capacity_overflow)
{
  /* a holds 600 and d 400 bytes: 1000 <= 1024. Make d need 500. */
  cr_assert_eq(acs_schedule_set_demand(&s, D, TU_CMX, 500), ACS_OK);
  expect_violation("at cycle 0, 'd' starts and resource 'cmx' is over capacity: 1100 > 1024");
}

Test(verify, capacity_is_released_at_end_time)
{
  /* d needs 500 but starts when a ends: legal (half-open intervals). */
  cr_assert_eq(acs_schedule_set_demand(&s, D, TU_CMX, 500), ACS_OK);
  s.ops[D].start = 10;
  s.ops[D].end = 20;
  tu_assert_verified(&s);
}

static void give_range(int op, int64_t off, int64_t bytes, double alloc, double fre)
{
  s.ops[op].cmx_offset = off;
  s.ops[op].cmx_bytes = bytes;
  s.ops[op].cmx_alloc = alloc;
  s.ops[op].cmx_free = fre;
}

Test(verify, accepts_disjoint_cmx_ranges)
{
  give_range(A, 0, 512, 0, 20);   /* a's tensor is read by b until 20 */
  give_range(D, 512, 512, 0, 10);
  give_range(B, 512, 256, 10, 20); /* reuses d's range after it is freed */
  tu_assert_verified(&s);
}

Test(verify, catches_cmx_overlap)
{
  give_range(A, 0, 512, 0, 20);
  give_range(D, 448, 128, 0, 10);
  expect_violation("CMX ranges of 'a' [0, 512) and 'd' [448, 576) overlap while both are held");
}

Test(verify, catches_cmx_range_outside)
{
  give_range(D, 960, 128, 0, 10);
  expect_violation("op 'd' holds CMX [960, 1088), beyond the CMX size 1024");
}

Test(verify, catches_misaligned_offset)
{
  give_range(D, 100, 128, 0, 10);
  expect_violation("op 'd' CMX offset 100 is not aligned to 64 bytes");
}

Test(verify, catches_range_not_held_while_running)
{
  give_range(D, 0, 128, 1, 10);
  expect_violation("op 'd' runs [0, 10) but holds its CMX range only over [1, 10)");
}

Test(verify, catches_input_not_resident)
{
  give_range(A, 0, 512, 0, 15); /* freed while b (ends at 20) still reads it */
  expect_violation("'b' reads the tensor of 'a' until 20 but its CMX range is freed at 15");
}

Test(verify, catches_barrier_out_of_range)
{
  s.barriers = 2;
  s.ops[A].update_barrier = 2;
  expect_violation("op 'a' updates barrier 2, outside [0, 2)");
}

Test(verify, catches_slots_over_limit)
{
  s.barriers = 2;
  s.barrier_slots = 1;
  s.ops[A].update_barrier = 0;
  s.ops[A].slots = 2;
  expect_violation("op 'a' needs 2 producer slots but a barrier has 1");
}

Test(verify, catches_wait_without_updater)
{
  s.barriers = 4;
  s.ops[A].update_barrier = 1;
  cr_assert_eq(acs_schedule_add_wait(&s, B, 1), ACS_OK);
  tu_assert_verified(&s);
  cr_assert_eq(acs_schedule_add_wait(&s, D, 1), ACS_OK);
  expect_violation("op 'd' waits on barrier 1 but no predecessor updates it");
}

Test(verify, catches_edge_out_of_range)
{
  s.edges[0].dst = 9;
  expect_violation("edge 0 refers to op 0 -> 9, outside [0, 4)");
}

Test(verify, stats_by_hand)
{
  struct acs_schedule_stats st;

  acs_schedule_stats(&s, &st);
  cr_assert_eq(st.makespan, 20);
  /* CMX demands: a 600 over [0,10), d 400 over [0,10): peak 1000. */
  cr_assert_eq(st.peak_cmx_bytes, 1000);
  cr_assert_eq(st.control_edges, 0);
  double pe = st.pe_busy, dma = st.dma_busy;
  cr_assert_float_eq(pe, 30.0, 1e-12);
  cr_assert_float_eq(dma, 5.0, 1e-12);
}
