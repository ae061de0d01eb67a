/*
 * test-ddrlink.c - the shared DDR link: its rates from the platform, and the
 * verifier's check that a plan's DDR transfers fit through it, on
 * hand-worked plans.
 *
 * Platform of every case: 1000 MHz, dma_gbps 40, ddr_ratio 4, latency 100:
 * the link moves 10 bytes per cycle, one transfer alone 10 B/cycle too
 * (the DDR side is the slower), so a 1000-byte transfer takes at least
 * 100 + 100 = 200 cycles.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "core/model/ddrlink.h"
#include "tests/testutil.h"

static const char *const base_sets[] = {"freq_mhz=1000", "dma_gbps=40", "ddr_ratio=4",
                                        "ddr_latency_cycles=100", "dma_channels=4", NULL};

/* n DDR->CMX transfers of `bytes`, planned at [start[i], end[i]), on
 * channel i; the graph models the link (a "ddr" resource). */
static void plan(struct acs_graph *g, struct acs_problem *pb, struct acs_schedule *s,
                 const char *const *sets, int n, int64_t bytes, const int64_t *start,
                 const int64_t *end)
{
  acs_graph_init(g, "xfers", "xfers");
  acs_graph_add_resource(g, "pe", ACS_RES_PE, 0);
  acs_graph_add_resource(g, "dma", ACS_RES_DMA, 0);
  acs_graph_add_resource(g, "cmx", ACS_RES_CMX, 0);
  acs_graph_add_resource(g, "ddr", ACS_RES_DDR, 0);
  for (int i = 0; i < n; i++) {
    char name[8];
    struct acs_op op;
    memset(&op, 0, sizeof(op));
    snprintf(name, sizeof(name), "x%d", i);
    op.name = name;
    op.kind = ACS_OP_DMA;
    op.src = ACS_MEM_DDR;
    op.dst = ACS_MEM_CMX;
    op.cycles = -1;
    op.bytes = bytes;
    op.slots = 1;
    cr_assert_eq(acs_graph_add_op(g, &op), i);
    acs_graph_set_demand(g, i, 1, 1);
  }
  tu_finalize(g);
  tu_problem(pb, g, sets);
  cr_assert_eq(acs_schedule_init_problem(s, pb), ACS_OK);
  for (int i = 0; i < n; i++) {
    s->ops[i].start = start[i];
    s->ops[i].end = end[i];
    s->ops[i].dur = end[i] - start[i];
    s->ops[i].unit = i;
  }
  acs_schedule_finish(s);
}

static int check(const struct acs_schedule *s, char *msg, size_t size)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = acs_ddrlink_check(s, &d);
  snprintf(msg, size, "%s", d.msg);
  return err;
}

static void done(struct acs_graph *g, struct acs_problem *pb, struct acs_schedule *s)
{
  acs_schedule_destroy(s);
  acs_problem_destroy(pb);
  acs_graph_destroy(g);
}

Test(ddrlink, rates_from_the_platform)
{
  struct acs_platform p;
  struct acs_ddrlink l;
  struct acs_diag d;

  acs_platform_init(&p);
  for (const char *const *kv = base_sets; *kv; kv++)
    cr_assert_eq(acs_platform_set_kv(&p, *kv, &d), ACS_OK);
  acs_ddrlink_from_platform(&l, &p);
  cr_assert_float_eq(l.link_bpc, 10.0, 1e-12);
  cr_assert_float_eq(l.xfer_bpc, 10.0, 1e-12);
  cr_assert_eq(l.latency, 100);
  cr_assert_eq(acs_ddrlink_min_cycles(&l, 1000), 200);
  cr_assert_eq(acs_ddrlink_min_cycles(&l, 1001), 201);
  cr_assert_eq(acs_ddrlink_lanes(&p), 1);
  /* DDR 4x faster than one engine: 4 transfers side by side, but only as
   * many as there are channels. */
  cr_assert_eq(acs_platform_set_kv(&p, "ddr_ratio=0.25", &d), ACS_OK);
  acs_ddrlink_from_platform(&l, &p);
  cr_assert_float_eq(l.link_bpc, 160.0, 1e-9);
  cr_assert_float_eq(l.xfer_bpc, 40.0, 1e-12);
  cr_assert_eq(acs_ddrlink_lanes(&p), 4);
  cr_assert_eq(acs_platform_set_kv(&p, "dma_channels=2", &d), ACS_OK);
  cr_assert_eq(acs_ddrlink_lanes(&p), 2);
}

Test(ddrlink, one_transfer_at_its_minimum_passes)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  const int64_t st[] = {0}, en[] = {200};
  char msg[1024];

  plan(&g, &pb, &s, base_sets, 1, 1000, st, en);
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_OK, "%s", msg);
  tu_assert_verified(&s);
  done(&g, &pb, &s);
}

Test(ddrlink, a_transfer_shorter_than_its_bytes_allow_is_refused)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  const int64_t st[] = {0}, en[] = {199};
  char msg[1024];

  plan(&g, &pb, &s, base_sets, 1, 1000, st, en);
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_EVERIFY);
  cr_assert(strstr(msg, "'x0' of 1000 bytes runs [0, 199), 199 cycles, but needs at least 200"),
            "%s", msg);
  done(&g, &pb, &s);
}

/* Two transfers side by side each at full rate: 2000 bytes in the 100
 * cycles [100, 200) where the link moves 1000. EDF serves x0 first (same
 * deadline, lower id); x1 cannot end before 300. */
Test(ddrlink, two_full_rate_transfers_side_by_side_are_refused)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  const int64_t st[] = {0, 0}, en[] = {200, 200};
  char msg[1024];

  plan(&g, &pb, &s, base_sets, 2, 1000, st, en);
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_EVERIFY);
  cr_assert(strstr(msg, "transfer 'x1' (1000 bytes, planned [0, 200)) cannot end before cycle "
                        "300"), "%s", msg);
  done(&g, &pb, &s);
}

/* Latency overlaps the transfer ahead: x1 starts at 100, its bytes move in
 * [200, 300), after x0's. Starting it at 99 makes it one cycle short. */
Test(ddrlink, latency_overlaps_the_transfer_ahead)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int64_t st[] = {0, 100}, en[] = {200, 300};
  char msg[1024];

  plan(&g, &pb, &s, base_sets, 2, 1000, st, en);
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_OK, "%s", msg);
  s.ops[1].start = 99;
  s.ops[1].end = 299;
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_EVERIFY);
  cr_assert(strstr(msg, "'x1'") && strstr(msg, "cannot end before cycle 300"), "%s", msg);
  done(&g, &pb, &s);
}

/* Shared bandwidth: x0 [0, 300) and x1 [0, 300) can both move 1000 bytes
 * in [100, 300) (2000 bytes, 200 cycles at 10 B/cycle), whichever way the
 * link is shared; a third transfer in the same window cannot. */
Test(ddrlink, sharing_the_link_fills_it_and_no_more)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  const int64_t st[] = {0, 0, 0}, en[] = {300, 300, 300};
  char msg[1024];

  plan(&g, &pb, &s, base_sets, 2, 1000, st, en);
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_OK, "%s", msg);
  done(&g, &pb, &s);
  plan(&g, &pb, &s, base_sets, 3, 1000, st, en);
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_EVERIFY);
  cr_assert(strstr(msg, "'x2'") && strstr(msg, "cannot end before cycle 400"), "%s", msg);
  done(&g, &pb, &s);
}

/* A long transfer with a late deadline leaves room for a short urgent one
 * (EDF serves the urgent one first): x0 1000 bytes [0, 400), x1 1000 bytes
 * [150, 350): bytes move in [100, 400) and [250, 350): 2000 bytes in 300
 * cycles, x1's 1000 within its 100 cycles only if x0 yields. */
Test(ddrlink, an_urgent_transfer_preempts_a_lax_one)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  const int64_t st[] = {0, 150}, en[] = {400, 350};
  char msg[1024];

  plan(&g, &pb, &s, base_sets, 2, 1000, st, en);
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_OK, "%s", msg);
  done(&g, &pb, &s);
}

/* DDR twice as fast as one engine: two transfers side by side at the
 * engine's 40 B/cycle fit (80 of the link's 80), three do not. */
Test(ddrlink, a_fast_link_carries_lanes_side_by_side)
{
  static const char *const sets[] = {"freq_mhz=1000", "dma_gbps=40", "ddr_ratio=0.5",
                                     "ddr_latency_cycles=100", "dma_channels=4", NULL};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  const int64_t st[] = {0, 0, 0}, en[] = {200, 200, 200};
  char msg[1024];

  /* 4000 bytes at 40 B/cycle: 100 + 100 cycles. */
  plan(&g, &pb, &s, sets, 2, 4000, st, en);
  cr_assert_eq(pb.cap[3], 2, "lanes");
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_OK, "%s", msg);
  done(&g, &pb, &s);
  plan(&g, &pb, &s, sets, 3, 4000, st, en);
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_EVERIFY);
  done(&g, &pb, &s);
}

/* A graph without a DDR resource does not model the link: its plans are
 * not held to it (hand-made graphs with abstract DMA times). */
Test(ddrlink, graphs_without_the_link_are_not_held_to_it)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  char msg[1024];

  tu_graph_npu(&g, "nolink");
  tu_op(&g, "x", ACS_OP_DMA, 1);
  tu_finalize(&g);
  tu_problem(&pb, &g, base_sets);
  cr_assert_eq(acs_schedule_init_problem(&s, &pb), ACS_OK);
  cr_assert_eq(s.link.link_bpc, 0.0);
  s.ops[0].start = 0;
  s.ops[0].end = 1;
  cr_assert_eq(check(&s, msg, sizeof(msg)), ACS_OK, "%s", msg);
  done(&g, &pb, &s);
}
