/*
 * cascade_util.c - helpers shared by the test-cascade-* programs: layer graphs
 * built by hand, boxes compared, and a rig that lowers cascade plans.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "core/model/platform.h"
#include "core/model/problem.h"
#include "core/sched/cascade/cascade.h"
#include "core/sched/cascade/cgraph.h"
#include "core/sched/cascade/propagator.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

#include "tests/cascade_util.h"
#include "tests/lgraph_util.h"

/* ---- building graphs ---- */

const uint8_t ROLES[] = {ACS_LR_DATA, ACS_LR_WEIGHT, ACS_LR_WEIGHT};
const uint8_t DATA2[] = {ACS_LR_DATA, ACS_LR_DATA};

struct acs_lattrs window(int64_t k, int64_t s, int64_t dil, int64_t pb, int64_t pe,
                                int64_t group)
{
  struct acs_lattrs a;

  memset(&a, 0, sizeof(a));
  a.group = group;
  a.nkernel = a.nstrides = a.ndilations = 2;
  a.kernel[0] = a.kernel[1] = k;
  a.strides[0] = a.strides[1] = s;
  a.dilations[0] = a.dilations[1] = dil;
  a.npads = 4;
  a.pads[0] = a.pads[1] = pb;
  a.pads[2] = a.pads[3] = pe;
  return a;
}

/* The node's propagated, clipped box for slot `slot`. */
void propagated(const struct acs_lgraph *lg, int32_t v, int slot,
                       const struct acs_lbox *out, struct acs_lbox *in)
{
  struct acs_prop p;
  struct acs_stripe so, si;

  cr_assert_eq(acs_prop_of(lg, v, slot, &p), ACS_OK);
  acs_stripe_of_box(out, &so);
  acs_prop_apply(&p, &so, &si);
  acs_prop_clip(&si, &lg->t[lg->n[v].in[slot]], in);
}

void assert_box_eq(const struct acs_lbox *a, const struct acs_lbox *b, const char *what)
{
  cr_assert_eq(a->rank, b->rank, "%s: rank", what);
  for (int i = 0; i < a->rank; i++)
    cr_assert(a->lo[i] == b->lo[i] && a->hi[i] == b->hi[i],
              "%s: axis %d: [%lld, %lld) against [%lld, %lld)", what, i, (long long)a->lo[i],
              (long long)a->hi[i], (long long)b->lo[i], (long long)b->hi[i]);
}

void random_box(struct acs_rng *r, const struct acs_ltensor *t, struct acs_lbox *b)
{
  b->rank = t->rank;
  for (int d = 0; d < t->rank; d++) {
    int64_t x = (int64_t)acs_rng_below(r, (uint64_t)t->dims[d]);
    int64_t y = (int64_t)acs_rng_below(r, (uint64_t)t->dims[d]);
    b->lo[d] = x < y ? x : y;
    b->hi[d] = (x < y ? y : x) + 1;
  }
}

/* ---- plans ---- */

/* A platform whose figures make costs countable by hand: one PE doing one
 * MAC (or elementary op) a cycle, DMA and DDR moving a byte a cycle with no
 * latency, bytes of one byte, no alignment. */
const char *const HAND[] = {
  "pe_count=1", "pe_macs_per_cycle=1", "dma_channels=2", "freq_mhz=1000", "dma_gbps=1",
  "ddr_ratio=1", "ddr_latency_cycles=0", "cmx_align_bytes=1", "bytes_per_elem=1", NULL};

/* Two PEs, 16-byte alignment, bytes of one byte, room for anything. */
const char *const CHAIN[] = {"pe_count=2", "cmx_align_bytes=16", "bytes_per_elem=1",
                                    "cmx_kib=4096", NULL};

/* Binds lg to a platform (`sets` over the defaults) and a schedule to
 * lower into. acs_schedule_init_problem gives the schedule the platform's
 * resources and CMX; it needs a problem graph, here one op, which the
 * lowering replaces with the cascade's ops. */
void rig_make(struct rig *r, const struct acs_lgraph *lg, const char *const *sets)
{
  tu_graph_npu(&r->g, "one-op");
  tu_op(&r->g, "x", ACS_OP_DPU, 1);
  tu_finalize(&r->g);
  tu_problem(&r->pb, &r->g, sets);
  acs_schedule_init(&r->s);
  cr_assert_eq(acs_schedule_init_problem(&r->s, &r->pb), ACS_OK);
  cr_assert_eq(acs_cgraph_build(lg, 1, &r->cg), ACS_OK);
  cr_assert_eq(acs_cas_env_init(&r->env, &r->cg, &r->pb.plat, 0, r->s.res_pe, r->s.res_dma),
               ACS_OK);
}

void rig_free(struct rig *r)
{
  acs_cgraph_free(&r->cg);
  acs_schedule_destroy(&r->s);
  acs_problem_destroy(&r->pb);
  acs_graph_destroy(&r->g);
}

void walk_ok(const struct rig *r, int32_t first, int32_t nparts, struct acs_cas_plan *p)
{
  struct acs_cas_group g;

  cr_assert(acs_cas_group_of(&r->cg, first, nparts, &g));
  p->first = first;
  p->nparts = nparts;
  cr_assert_eq(acs_cas_walk(&r->env, &g, p, NULL), ACS_OK);
}

/* Lowers plans, verifies the schedule, and checks it: the cycles are the
 * plans' sum and the peak CMX at most their memory. */
void lower_ok(struct rig *r, const struct acs_cas_plan *plans, int32_t n,
                     int64_t predicted)
{
  struct acs_schedule_stats st;
  struct acs_cas_tag *tags;
  struct acs_diag d;
  int64_t cycles = 0;

  acs_diag_init(&d);
  cr_assert_eq(acs_cas_lower(&r->env, plans, n, r->s.cmx_capacity, &r->s, &tags, &d), ACS_OK,
               "%s", d.msg);
  tu_assert_verified(&r->s);
  cr_assert_eq(acs_cas_check(&r->env, tags, r->s.cmx_capacity, predicted, &r->s, &d), ACS_OK,
               "%s", d.msg);
  free(tags);
  acs_schedule_stats(&r->s, &st);
  for (int32_t i = 0; i < n; i++)
    cycles += plans[i].cycles;
  cr_assert_eq(st.makespan, cycles);
  cr_assert_leq(st.peak_cmx_bytes, predicted);
  r->peak = st.peak_cmx_bytes;
}

/* x (1, 2, 4, 4) -> relu: two stripes of 2 rows, by hand on HAND. Each
 * stripe loads 16 bytes (16 cycles), computes 16 elements (16 cycles) and
 * stores 16 bytes (16 cycles); both DMA channels share one DDR link of a
 * byte a cycle. One slot per buffer: 0-16 load 0 (channel 0), 16-32 relu
 * 0, 32-48 store 0 (channel 1, free first); load 1 is issued at 32
 * (channel 0: the input slot frees when relu 0 ends) but the link is
 * store 0's until 48, so it moves its bytes at 48-64; 64-80 relu 1, 80-96
 * store 1: 96 cycles, 32 bytes. (Each channel at the full rate would
 * overlap store 0 and load 1, 80 cycles, twice what the link carries.)
 * Double buffering (two slots each, 64 bytes): load 1 is issued at 0 on
 * channel 1 and moves at 16-32, beside relu 0; store 0 at 32-48 beside
 * relu 1, store 1 at 48-64: 64 cycles. */
/* A chain of `n` layers on x (1, 4, 16, 16): conv 3x3 (8 filters), relu,
 * depthwise 3x3 stride 2, conv 1x1 (16 filters), in that order. */
void chain(struct acs_lgraph *lg, int n)
{
  static struct acs_lattrs a3, a0, dw, a1;
  int32_t t, v;

  a3 = window(3, 1, 1, 1, 1, 1);
  a1 = window(1, 1, 1, 0, 0, 1);
  dw = window(3, 2, 1, 1, 1, 8);
  memset(&a0, 0, sizeof(a0));
  cr_assert_eq(acs_lgraph_init(lg, "chain", "chain.onnx"), ACS_OK);
  t = INPUT(lg, "x", 1, 4, 16, 16);
  /* node() may move lg->n: take the id first. */
  v = node(lg, "conv", ACS_LOP_CONV, &a3, 2, (int32_t[]){t, WEIGHT(lg, "w1", 8, 4, 3, 3)}, ROLES,
           "y1");
  t = lg->n[v].out[0];
  if (n >= 2) {
    v = node(lg, "relu", ACS_LOP_RELU, &a0, 1, (int32_t[]){t}, DATA2, "y2");
    t = lg->n[v].out[0];
  }
  if (n >= 3) {
    v = node(lg, "dw", ACS_LOP_CONV, &dw, 2, (int32_t[]){t, WEIGHT(lg, "w3", 8, 1, 3, 3)}, ROLES,
             "y3");
    t = lg->n[v].out[0];
  }
  if (n >= 4) {
    v = node(lg, "pw", ACS_LOP_CONV, &a1, 2, (int32_t[]){t, WEIGHT(lg, "w4", 16, 8, 1, 1)},
             ROLES, "y4");
    t = lg->n[v].out[0];
  }
  lg->t[t].is_output = 1;
  infer_ok(lg);
}

