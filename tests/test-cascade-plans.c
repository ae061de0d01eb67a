/*
 * test-cascade-plans.c - cascade plans lowered and costed by hand, the
 * proposals' dynamic programming against brute force on chains, the grid
 * of stripes.
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

Test(plans, one_layer_by_hand)
{
  struct acs_lgraph lg;
  struct acs_lattrs a0;
  struct rig r;
  struct acs_cas_plan p;

  memset(&a0, 0, sizeof(a0));
  cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
  node(&lg, "relu", ACS_LOP_RELU, &a0, 1, (int32_t[]){INPUT(&lg, "x", 1, 2, 4, 4)}, DATA2, "y");
  lg.t[lg.n[0].out[0]].is_output = 1;
  infer_ok(&lg);
  rig_make(&r, &lg, HAND);
  memset(&p, 0, sizeof(p));
  p.h = 2;
  p.c = 2;
  p.nbuf = 1;
  walk_ok(&r, 0, 1, &p);
  cr_assert_eq(p.steps, 2);
  cr_assert_eq(p.cycles, 96);
  cr_assert_eq(p.mem, 32);
  cr_assert_eq(p.ddr_bytes, 64);
  cr_assert_eq(p.macs, 32);
  cr_assert_eq(p.ops, 6);
  lower_ok(&r, &p, 1, p.mem);
  cr_assert_eq(r.peak, 32); /* 16-32: load 0's slot (read by relu 0) and relu 0's */
  cr_assert_eq(r.s.ops[3].start, 32); /* load 1, issued when its slot frees */
  cr_assert_eq(r.s.ops[3].end, 64);   /* after store 0 on the link */
  p.nbuf = 2;
  walk_ok(&r, 0, 1, &p);
  cr_assert_eq(p.cycles, 64);
  cr_assert_eq(p.mem, 64);
  lower_ok(&r, &p, 1, p.mem);
  /* The plan counts its rings whole (4 slots, 64 bytes); held ranges peak
   * at 48: at 16-32 both input slots and relu 0's output, at 32-48 load
   * 1's input and both outputs. A ring is an upper bound on what is held. */
  cr_assert_eq(r.peak, 48);
  rig_free(&r);
  acs_lgraph_destroy(&lg);
}

/* x (1, 4, 8, 8) -> conv 3x3 pad 1 (8 filters) -> y -> relu -> z, one
 * cascade of 4 stripes of 2 rows, by hand. MACs: 8 x 8 x 8 outputs x 36
 * taps + 512 relus = 18944, once whatever the buffering (y's stripes do
 * not overlap). Recompute: x rows [0,3) [1,5) [3,7) [5,8) = 14 rows of 32
 * bytes = 448 loaded, the 288 bytes of weights once, z's 512 stored:
 * 1248 bytes; buffers: x 4 rows (128), y 2 rows (128), weights 288, z 2
 * rows (128) = 672. Rolling: x rows [0,3) then 2 new rows a stripe, [7,8)
 * last: 8 rows = 256 loaded, 1056 in all; x's ring has blocks of sigma = 2
 * rows (64 bytes) and at most 3 of them meet a window (rows 1-4 after
 * stripe 1: blocks [0,2) [2,3) [3,5)): 192 bytes, 736 in all. */
Test(plans, conv_relu_cascade_by_hand)
{
  struct acs_lgraph lg;
  struct acs_lattrs a3 = window(3, 1, 1, 1, 1, 1), a0;
  struct rig r;
  struct acs_cas_plan p;
  int32_t c;

  memset(&a0, 0, sizeof(a0));
  cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
  c = node(&lg, "conv", ACS_LOP_CONV, &a3, 2,
           (int32_t[]){INPUT(&lg, "x", 1, 4, 8, 8), WEIGHT(&lg, "w", 8, 4, 3, 3)}, ROLES, "y");
  node(&lg, "relu", ACS_LOP_RELU, &a0, 1, (int32_t[]){lg.n[c].out[0]}, DATA2, "z");
  lg.t[lg.n[1].out[0]].is_output = 1;
  infer_ok(&lg);
  rig_make(&r, &lg, HAND);
  memset(&p, 0, sizeof(p));
  p.h = 2;
  p.c = 8;
  p.nbuf = 1;
  walk_ok(&r, 0, 2, &p);
  cr_assert_eq(p.steps, 4);
  cr_assert_eq(p.macs, 18944);
  cr_assert_eq(p.ddr_bytes, 1248);
  cr_assert_eq(p.mem, 672);
  lower_ok(&r, &p, 1, p.mem);
  p.rolling = 1 | 4; /* bit 0: y (Part 0's output); bit nparts = 2: the loads */
  walk_ok(&r, 0, 2, &p);
  cr_assert_eq(p.macs, 18944);
  cr_assert_eq(p.ddr_bytes, 1056);
  cr_assert_eq(p.mem, 736);
  lower_ok(&r, &p, 1, p.mem);
  rig_free(&r);
  acs_lgraph_destroy(&lg);
}

/* ---- proposals: the dynamic programming against brute force ---- */

struct bf {
  const struct rig *r;
  const struct acs_cas_opts *o;
  struct acs_cas_plan *plans[ACS_CAS_MAX_PARTS][ACS_CAS_MAX_PARTS + 1][2];
  int32_t nplans[ACS_CAS_MAX_PARTS][ACS_CAS_MAX_PARTS + 1][2];
  struct acs_cas_point *pt;
  size_t n, cap;
};

static int cmp_point(const void *x, const void *y)
{
  const struct acs_cas_point *a = x, *b = y;

  if (a->mem != b->mem)
    return a->mem < b->mem ? -1 : 1;
  return (a->cycles > b->cycles) - (a->cycles < b->cycles);
}

/* Every plan of group [at, at + len) reading its input from CMX (ctx 1)
 * or DDR, uncull'd, computed once. */
static void bf_plans(struct bf *b, int32_t at, int32_t len, uint32_t ctx,
                     struct acs_cas_plan **v, int32_t *n)
{
  struct acs_cas_group g;

  if (!b->plans[at][len][ctx]) {
    cr_assert(acs_cas_group_of(&b->r->cg, at, len, &g));
    cr_assert_eq(acs_cas_plans(&b->r->env, b->o, &g, ctx, 0, NULL, &b->plans[at][len][ctx],
                               &b->nplans[at][len][ctx]),
                 ACS_OK);
  }
  *v = b->plans[at][len][ctx];
  *n = b->nplans[at][len][ctx];
}

/* Every grouping of a chain's Parts [at, N) and every plan of each group:
 * the tensor entering `at` is in CMX when in_cmx. */
static void bf_rec(struct bf *b, int32_t at, int in_cmx, int64_t mem, int64_t cycles)
{
  const struct acs_cgraph *cg = &b->r->cg;
  int64_t live = 0;

  if (at == cg->nparts) {
    cr_assert_eq(acs_grow((void **)&b->pt, sizeof(*b->pt), &b->cap, b->n + 1), ACS_OK);
    b->pt[b->n++] = (struct acs_cas_point){mem, cycles};
    return;
  }
  if (in_cmx)
    live = acs_cas_align(cg->tensors[cg->parts[at].in[0]].bytes, b->r->env.align);
  for (int32_t len = 1; len <= b->o->max_parts && at + len <= cg->nparts; len++) {
    struct acs_cas_group g;
    struct acs_cas_plan *v;
    int32_t n;
    if (!acs_cas_group_of(cg, at, len, &g))
      continue;
    bf_plans(b, at, len, (uint32_t)in_cmx, &v, &n);
    for (int32_t q = 0; q < n; q++) {
      int64_t m = live + v[q].mem > mem ? live + v[q].mem : mem;
      bf_rec(b, at + len, v[q].out_home == ACS_CAS_HOME_CMX, m, cycles + v[q].cycles);
    }
  }
}

/* The Pareto front of the points, by memory (ties: fewest cycles). */
static size_t bf_front(struct bf *b)
{
  size_t k = 0;

  qsort(b->pt, b->n, sizeof(*b->pt), cmp_point);
  for (size_t i = 0; i < b->n; i++)
    if (k == 0 || b->pt[i].cycles < b->pt[k - 1].cycles)
      b->pt[k++] = b->pt[i];
  return k;
}

static void dp_equals_brute_force(int n, const struct acs_cas_opts *o, const char *const *sets)
{
  struct acs_lgraph lg;
  struct rig r;
  struct bf b;
  struct acs_cas_result res;
  struct acs_diag d;
  size_t k;

  chain(&lg, n);
  rig_make(&r, &lg, sets);
  memset(&b, 0, sizeof(b));
  b.r = &r;
  b.o = o;
  bf_rec(&b, 0, 0, 0, 0);
  k = bf_front(&b);
  acs_diag_init(&d);
  cr_assert_eq(acs_cas_propose(&r.env, o, INT64_MAX / 4, NULL, &res, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq((size_t)res.nfront, k, "%d layers: front of %d points, brute force %zu", n,
               (int)res.nfront, k);
  for (size_t i = 0; i < k; i++) {
    cr_assert_eq(res.front[i].mem, b.pt[i].mem, "%d layers, point %zu", n, i);
    cr_assert_eq(res.front[i].cycles, b.pt[i].cycles, "%d layers, point %zu", n, i);
  }
  /* The chosen proposal (the fastest: no budget) lowers as planned. */
  cr_assert_eq(res.chosen, res.nfront - 1);
  lower_ok(&r, res.plans, res.nplans, res.front[res.chosen].mem);
  acs_cas_result_free(&res);
  for (int i = 0; i < ACS_CAS_MAX_PARTS; i++)
    for (int j = 0; j <= ACS_CAS_MAX_PARTS; j++)
      free(b.plans[i][j][0]), free(b.plans[i][j][1]);
  free(b.pt);
  rig_free(&r);
  acs_lgraph_destroy(&lg);
}

/* max_proposals beyond any front: the DP keeps every Pareto point, so its
 * front must be brute force's exactly (a few thousand to a few hundred
 * thousand complete proposals each). Per-tensor buffering on 2 layers, the
 * two uniform modes on 3 (with stripes cut along W too) and 4, recompute
 * only on 4 on HAND's figures. */
Test(proposals, dp_front_equals_brute_force_on_chains)
{
  struct acs_cas_opts o = {.max_parts = 4, .max_proposals = 1000000, .heights = 3, .widths = 1,
                           .chan_splits = 1, .modes = 0, .max_stripes = 1000000};

  dp_equals_brute_force(2, &o, CHAIN);
  o.modes = 1;
  o.widths = 2;
  dp_equals_brute_force(3, &o, CHAIN);
  o.widths = 1;
  dp_equals_brute_force(4, &o, CHAIN);
  o.modes = 2;
  o.heights = 2;
  dp_equals_brute_force(4, &o, HAND);
}

/* ---- the grid ---- */

/* max_stripes bounds the stripes of every plan of a group with an H axis
 * (the 4-layer chain's last conv is 8 x 8 with 16 channels: heights 8, 4,
 * 2, 1 and channel halvings 16, 8 give 1 to 16 stripes). */
Test(plans, max_stripes_bounds_every_plan)
{
  struct acs_cas_opts o = {.max_parts = 4, .max_proposals = 64, .heights = 8, .widths = 1,
                           .chan_splits = 1, .modes = 1, .max_stripes = 1000};
  struct acs_cas_group g;
  struct acs_cas_plan *v;
  struct acs_lgraph lg;
  struct rig r;
  int32_t n, most = 0;

  chain(&lg, 4);
  rig_make(&r, &lg, CHAIN);
  cr_assert(acs_cas_group_of(&r.cg, 3, 1, &g));
  cr_assert_eq(acs_cas_plans(&r.env, &o, &g, 0, 0, NULL, &v, &n), ACS_OK);
  for (int32_t i = 0; i < n; i++)
    most = v[i].steps > most ? (int32_t)v[i].steps : most;
  cr_assert_eq(most, 16);
  free(v);
  o.max_stripes = 4;
  cr_assert_eq(acs_cas_plans(&r.env, &o, &g, 0, 0, NULL, &v, &n), ACS_OK);
  cr_assert_gt(n, 0);
  for (int32_t i = 0; i < n; i++)
    cr_assert_leq(v[i].steps, 4, "plan %d: %lld stripes", (int)i, (long long)v[i].steps);
  free(v);
  rig_free(&r);
  acs_lgraph_destroy(&lg);
}

/* A fully connected layer (no H axis) stripes its weights by every
 * channel halving down to one, whatever chan_splits and max_stripes say:
 * 12 outputs give 12, 6, 3, 2, 1. */
Test(plans, fully_connected_layer_stripes_down_to_one_channel)
{
  struct acs_cas_opts o = {.max_parts = 1, .max_proposals = 64, .heights = 8, .widths = 1,
                           .chan_splits = 0, .modes = 1, .max_stripes = 2};
  static const int64_t want[] = {12, 6, 3, 2, 1};
  struct acs_lattrs a;
  struct acs_cas_group g;
  struct acs_cas_plan *v;
  struct acs_lgraph lg;
  struct rig r;
  int32_t n, seen = 0;

  memset(&a, 0, sizeof(a));
  a.trans_b = 1;
  cr_assert_eq(acs_lgraph_init(&lg, "fc", "fc.onnx"), ACS_OK);
  node(&lg, "fc", ACS_LOP_GEMM, &a, 3,
       (int32_t[]){INPUT(&lg, "f", 1, 10), WEIGHT(&lg, "fw", 12, 10), WEIGHT(&lg, "fb", 12)},
       ROLES, "g");
  lg.t[lg.n[0].out[0]].is_output = 1;
  infer_ok(&lg);
  rig_make(&r, &lg, HAND);
  cr_assert(acs_cas_group_of(&r.cg, 0, 1, &g));
  cr_assert_eq(acs_cas_plans(&r.env, &o, &g, 0, 0, NULL, &v, &n), ACS_OK);
  for (int32_t i = 0; i < n; i++)
    for (int k = 0; k < 5; k++)
      if (v[i].c == want[k]) {
        cr_assert_eq(v[i].steps, 12 / want[k] + (12 % want[k] != 0));
        seen |= 1 << k;
      }
  cr_assert_eq(seen, 31, "channel stripes seen: %#x", seen);
  for (int32_t i = 0; i < n; i++)
    lower_ok(&r, &v[i], 1, v[i].mem);
  free(v);
  rig_free(&r);
  acs_lgraph_destroy(&lg);
}
