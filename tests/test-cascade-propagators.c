/*
 * test-cascade-propagators.c - the cascading scheduler's propagators (seed
 * 002, step 1): the seed's example, random layers against direct index
 * arithmetic and against acs_lnode_input_box (itself tested against
 * enumeration in test-layer), composition along a chain, the integer form;
 * the CascaderGraph of a branching graph by hand.
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

/* ---- the seed's example ---- */

/* Seed 002: a 3x3 conv maps output stripe (1, 3, 3, 4) (NHWC there) to
 * input stripe (1, 5, 5, 8) for 8 input channels: NCHW here, output
 * (1, 4, 3, 3) to input (1, 8, 5, 5), unclipped. */
Test(propagator, seed_example_3x3_conv)
{
  struct acs_lgraph lg;
  struct acs_lattrs a = window(3, 1, 1, 1, 1, 1);
  struct acs_prop p;
  struct acs_stripe out = {4, {0, 0, 4, 4}, {1, 4, 3, 3}}, in;
  int32_t x, v;

  cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
  x = INPUT(&lg, "x", 1, 8, 16, 16);
  v = node(&lg, "conv", ACS_LOP_CONV, &a, 2, (int32_t[]){x, WEIGHT(&lg, "w", 16, 8, 3, 3)},
           ROLES, "y");
  infer_ok(&lg);
  cr_assert_eq(acs_prop_of(&lg, v, 0, &p), ACS_OK);
  acs_prop_apply(&p, &out, &in);
  cr_assert_eq(in.rank, 4);
  cr_assert(in.shape[0] == 1 && in.shape[1] == 8 && in.shape[2] == 5 && in.shape[3] == 5,
            "(%g, %g, %g, %g)", in.shape[0], in.shape[1], in.shape[2], in.shape[3]);
  /* the stripe at rows 4..6 reads rows 3..7 (padding 1) */
  cr_assert(in.origin[2] == 3 && in.origin[3] == 3 && in.origin[1] == 0);
  acs_lgraph_destroy(&lg);
}

/* ---- random layers ---- */

/* Bounding box, by index arithmetic straight from the operator definition,
 * of the taps of output box `ob` of a 2-D Conv (one group or depthwise) or
 * pool, clipped to the data input. Taps in the padding count before the
 * clip: a stripe is a box, and with dilation the last taps of a window can
 * fall in the padding after skipping real rows, which the box still spans
 * (the rows between are in it either way). */
static void direct_box(const struct acs_lnode *n, const struct acs_ltensor *in,
                       const struct acs_ltensor *out, const struct acs_lbox *ob,
                       struct acs_lbox *ib)
{
  const struct acs_lattrs *a = &n->a;
  int conv = n->op == ACS_LOP_CONV;
  int64_t lo[4] = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX}, hi[4] = {0, 0, 0, 0};

  for (int64_t b = ob->lo[0]; b < ob->hi[0]; b++)
    for (int64_t m = ob->lo[1]; m < ob->hi[1]; m++)
      for (int64_t y = ob->lo[2]; y < ob->hi[2]; y++)
        for (int64_t x = ob->lo[3]; x < ob->hi[3]; x++) {
          int64_t c0 = m, c1 = m + 1;
          if (conv && a->group == 1)
            c0 = 0, c1 = in->dims[1];
          else if (conv)
            c0 = m / (out->dims[1] / a->group), c1 = c0 + 1;
          for (int64_t ky = 0; ky < a->kernel[0]; ky++)
            for (int64_t kx = 0; kx < a->kernel[1]; kx++) {
              int64_t iy = y * a->strides[0] - a->pads[0] + ky * a->dilations[0];
              int64_t ix = x * a->strides[1] - a->pads[1] + kx * a->dilations[1];
              const int64_t i0[4] = {b, c0, iy, ix}, i1[4] = {b + 1, c1, iy + 1, ix + 1};
              for (int d = 0; d < 4; d++) {
                lo[d] = i0[d] < lo[d] ? i0[d] : lo[d];
                hi[d] = i1[d] > hi[d] ? i1[d] : hi[d];
              }
            }
        }
  ib->rank = 4;
  for (int d = 0; d < 4; d++) {
    ib->lo[d] = lo[d] < 0 ? 0 : lo[d];
    ib->hi[d] = hi[d] > in->dims[d] ? in->dims[d] : hi[d];
  }
  if (acs_lbox_elems(ib) == 0) /* every tap in the padding */
    for (int d = 0; d < 4; d++)
      ib->lo[d] = ib->hi[d] = 0;
}

/* One random window layer: conv (one group), depthwise conv (multiplier 1
 * or 2), max pool; kernel 1-7, stride 1-3, dilation 1-3 (pools 1), pads
 * 0-3 at each end. */
static int32_t random_window(struct acs_lgraph *lg, struct acs_rng *r, int k)
{
  int64_t c = 1 + (int64_t)acs_rng_below(r, 6), h = 12 + (int64_t)acs_rng_below(r, 10);
  int64_t kern = 1 + (int64_t)acs_rng_below(r, 7), s = 1 + (int64_t)acs_rng_below(r, 3);
  int64_t dil = 1 + (int64_t)acs_rng_below(r, 3), pb = (int64_t)acs_rng_below(r, 4);
  int64_t pe = (int64_t)acs_rng_below(r, 4), kind = (int64_t)acs_rng_below(r, 3);
  char name[32], xn[32], wn[32], yn[32];
  struct acs_lattrs a;
  int32_t x;

  while (dil * (kern - 1) + 1 > h + pb + pe) /* the window must fit the padded input */
    kern--;
  snprintf(name, sizeof(name), "n%d", k);
  snprintf(xn, sizeof(xn), "x%d", k);
  snprintf(wn, sizeof(wn), "w%d", k);
  snprintf(yn, sizeof(yn), "y%d", k);
  x = tensor(lg, xn, ACS_LT_INPUT, 4, DIMS(2, c, h, h + 3));
  if (kind == 2) {
    a = window(kern, s, 1, pb, pe, 0);
    return node(lg, name, ACS_LOP_MAX_POOL, &a, 1, &x, ROLES, yn);
  }
  if (kind == 1) {
    int64_t mult = 1 + (int64_t)acs_rng_below(r, 2);
    a = window(kern, s, dil, pb, pe, c);
    return node(lg, name, ACS_LOP_CONV, &a, 2,
                (int32_t[]){x, tensor(lg, wn, ACS_LT_WEIGHT, 4, DIMS(c * mult, 1, kern, kern))},
                ROLES, yn);
  }
  a = window(kern, s, dil, pb, pe, 1);
  return node(lg, name, ACS_LOP_CONV, &a, 2,
              (int32_t[]){x, tensor(lg, wn, ACS_LT_WEIGHT, 4, DIMS(5, c, kern, kern))}, ROLES,
              yn);
}

Test(propagator, random_window_layers_match_index_arithmetic_and_regions)
{
  struct acs_lgraph lg;
  struct acs_rng r;
  int32_t v[40];

  cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
  acs_rng_seed(&r, 11);
  for (int k = 0; k < 40; k++)
    v[k] = random_window(&lg, &r, k);
  infer_ok(&lg);
  for (int k = 0; k < 40; k++) {
    const struct acs_lnode *n = &lg.n[v[k]];
    const struct acs_ltensor *in = &lg.t[n->in[0]], *out = &lg.t[n->out[0]];
    for (int trial = 0; trial < 25; trial++) {
      struct acs_lbox ob, want, direct, got;
      char what[96];
      random_box(&r, out, &ob);
      snprintf(what, sizeof(what), "%s (%s, k %lld s %lld d %lld) trial %d", n->name,
               acs_lop_name(n->op), (long long)n->a.kernel[0], (long long)n->a.strides[0],
               (long long)n->a.dilations[0], trial);
      propagated(&lg, v[k], 0, &ob, &got);
      direct_box(n, in, out, &ob, &direct);
      assert_box_eq(&got, &direct, what);
      cr_assert_eq(acs_lnode_input_box(&lg, v[k], 0, &ob, &want), ACS_OK);
      assert_box_eq(&got, &want, what);
      for (int slot = 1; slot < n->nin; slot++) { /* weights, bias */
        if (n->in[slot] < 0)
          continue;
        propagated(&lg, v[k], slot, &ob, &got);
        cr_assert_eq(acs_lnode_input_box(&lg, v[k], slot, &ob, &want), ACS_OK);
        assert_box_eq(&got, &want, what);
      }
    }
  }
  acs_lgraph_destroy(&lg);
}

/* Elementwise with broadcasting, Concat, Transpose, constant Pad and
 * Softmax against acs_lnode_input_box on random boxes, every slot. */
Test(propagator, follow_ops_match_regions)
{
  struct acs_lgraph lg;
  struct acs_lattrs a;
  struct acs_rng r;
  int32_t x, y, z, v[8];

  cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
  x = INPUT(&lg, "x", 2, 6, 7, 9);
  y = INPUT(&lg, "y", 6, 1, 9);
  z = INPUT(&lg, "z", 2, 3, 7, 9);
  memset(&a, 0, sizeof(a));
  v[0] = node(&lg, "add", ACS_LOP_ADD, &a, 2, (int32_t[]){x, y}, DATA2, "s");
  a.axis = 1;
  v[1] = node(&lg, "cat", ACS_LOP_CONCAT, &a, 2, (int32_t[]){x, z}, DATA2, "c");
  memset(&a, 0, sizeof(a));
  a.nperm = 4;
  memcpy(a.perm, DIMS(0, 2, 3, 1), sizeof(int64_t) * 4);
  v[2] = node(&lg, "tr", ACS_LOP_TRANSPOSE, &a, 1, &x, DATA2, "t");
  memset(&a, 0, sizeof(a));
  a.npads = 8;
  memcpy(a.pads, DIMS(0, 1, 2, 0, 1, 0, 3, 2), sizeof(int64_t) * 8);
  v[3] = node(&lg, "pad", ACS_LOP_PAD, &a, 1, &x, DATA2, "p");
  memset(&a, 0, sizeof(a));
  a.axis = 1;
  v[4] = node(&lg, "sm", ACS_LOP_SOFTMAX, &a, 1, &x, DATA2, "q");
  /* FC layers: Gemm with B transposed (weights [N, K]) and a bias, Gemm
   * with A transposed, and a batched MatMul broadcasting its batch axis. */
  memset(&a, 0, sizeof(a));
  a.trans_b = 1;
  v[5] = node(&lg, "fc", ACS_LOP_GEMM, &a, 3,
              (int32_t[]){INPUT(&lg, "f", 3, 10), WEIGHT(&lg, "fw", 12, 10), WEIGHT(&lg, "fb", 12)},
              ROLES, "g");
  memset(&a, 0, sizeof(a));
  a.trans_a = 1;
  v[6] = node(&lg, "gt", ACS_LOP_GEMM, &a, 2,
              (int32_t[]){INPUT(&lg, "ft", 10, 3), WEIGHT(&lg, "gw", 10, 7)}, ROLES, "h");
  memset(&a, 0, sizeof(a));
  v[7] = node(&lg, "mm", ACS_LOP_MATMUL, &a, 2,
              (int32_t[]){INPUT(&lg, "ma", 2, 1, 5, 6), INPUT(&lg, "mb", 3, 6, 4)}, DATA2, "m");
  infer_ok(&lg);
  acs_rng_seed(&r, 5);
  for (int k = 0; k < 8; k++) {
    const struct acs_lnode *n = &lg.n[v[k]];
    for (int trial = 0; trial < 200; trial++) {
      struct acs_lbox ob, want, got;
      random_box(&r, &lg.t[n->out[0]], &ob);
      for (int slot = 0; slot < n->nin; slot++) {
        char what[64];
        snprintf(what, sizeof(what), "%s slot %d trial %d", n->name, slot, trial);
        propagated(&lg, v[k], slot, &ob, &got);
        cr_assert_eq(acs_lnode_input_box(&lg, v[k], slot, &ob, &want), ACS_OK);
        assert_box_eq(&got, &want, what);
      }
    }
  }
  acs_lgraph_destroy(&lg);
}

/* ---- composition ---- */

/* conv (3x3, stride 2, pad 1) -> depthwise (5x5, dilation 2, pad 4) ->
 * pool (2x2, stride 2): a stripe of the pool's output propagated node by
 * node (unclipped) equals the stripe propagated by the product of the
 * three propagators. */
Test(propagator, composition_equals_step_by_step)
{
  struct acs_lgraph lg;
  struct acs_lattrs a1 = window(3, 2, 1, 1, 1, 1), a2 = window(5, 1, 2, 4, 4, 8),
                    a3 = window(2, 2, 1, 0, 0, 0);
  struct acs_prop p1, p2, p3, p23, p123;
  struct acs_rng r;
  int32_t x, v1, v2, v3;

  cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
  x = INPUT(&lg, "x", 1, 3, 64, 64);
  v1 = node(&lg, "c1", ACS_LOP_CONV, &a1, 2, (int32_t[]){x, WEIGHT(&lg, "w1", 8, 3, 3, 3)},
            ROLES, "y1");
  v2 = node(&lg, "c2", ACS_LOP_CONV, &a2, 2,
            (int32_t[]){lg.n[v1].out[0], WEIGHT(&lg, "w2", 8, 1, 5, 5)}, ROLES, "y2");
  v3 = node(&lg, "p3", ACS_LOP_MAX_POOL, &a3, 1, (int32_t[]){lg.n[v2].out[0]}, ROLES, "y3");
  infer_ok(&lg);
  cr_assert_eq(acs_prop_of(&lg, v1, 0, &p1), ACS_OK);
  cr_assert_eq(acs_prop_of(&lg, v2, 0, &p2), ACS_OK);
  cr_assert_eq(acs_prop_of(&lg, v3, 0, &p3), ACS_OK);
  acs_prop_compose(&p3, &p2, &p23);
  acs_prop_compose(&p23, &p1, &p123);
  cr_assert_eq(p123.rin, 4);
  cr_assert_eq(p123.rout, 4);
  acs_rng_seed(&r, 3);
  for (int trial = 0; trial < 200; trial++) {
    struct acs_lbox ob;
    struct acs_stripe s0, s1, s2, s3, direct;
    random_box(&r, &lg.t[lg.n[v3].out[0]], &ob);
    acs_stripe_of_box(&ob, &s0);
    acs_prop_apply(&p3, &s0, &s1);
    acs_prop_apply(&p2, &s1, &s2);
    acs_prop_apply(&p1, &s2, &s3);
    acs_prop_apply(&p123, &s0, &direct);
    for (int i = 0; i < 4; i++)
      cr_assert(s3.origin[i] == direct.origin[i] && s3.shape[i] == direct.shape[i],
                "trial %d axis %d: (%g, %g) against (%g, %g)", trial, i, s3.origin[i],
                s3.shape[i], direct.origin[i], direct.shape[i]);
  }
  /* By hand for the spatial axes: pool 2x2/2 then dilated 5x5 then 3x3/2:
   * shape h -> 2h -> 2h + 8 -> 2 (2h + 8) + 1 = 4h + 17; origin
   * o -> 2o -> 2o - 4 -> 2 (2o - 4) - 1 = 4o - 9. */
  cr_assert_eq(p123.a[2][2], 4.0);
  cr_assert_eq(p123.b[2], 17.0);
  cr_assert_eq(p123.c[2], -9.0);
  /* the channel axis: all 3 input channels, whatever the stripe */
  cr_assert_eq(p123.a[1][1], 0.0);
  cr_assert_eq(p123.b[1], 3.0);
  acs_lgraph_destroy(&lg);
}

Test(propagator, bad_slot_is_einval)
{
  struct acs_lgraph lg;
  struct acs_lattrs a;
  struct acs_prop p;
  int32_t x, v;

  memset(&a, 0, sizeof(a));
  cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
  x = INPUT(&lg, "x", 1, 2, 3, 3);
  v = node(&lg, "relu", ACS_LOP_RELU, &a, 1, &x, ROLES, "y");
  infer_ok(&lg);
  cr_assert_eq(acs_prop_of(&lg, v, 1, &p), ACS_EINVAL);
  cr_assert_eq(acs_prop_of(&lg, v, -1, &p), ACS_EINVAL);
  cr_assert_eq(acs_prop_of(&lg, 99, 0, &p), ACS_EINVAL);
  acs_lgraph_destroy(&lg);
}

/* ---- the CascaderGraph ---- */

/* x -> conv1 (3x3, bias) -> y1 -> relu -> r; x -> conv2 (1x1) -> y2;
 * add(r, y2) -> s; concat(s, y1) -> c; maxpool(c) -> o. By hand: 6 Parts
 * in topological order; 10 Tensors (x, w1, b1, y1, r, w2, y2, s, c, o);
 * x and y1 have two consumers each, o none; 11 consumer entries. */
Test(cgraph, branching_graph_by_hand)
{
  struct acs_lgraph lg;
  struct acs_lattrs a3 = window(3, 1, 1, 1, 1, 1), a1 = window(1, 1, 1, 0, 0, 1),
                    ap = window(2, 2, 1, 0, 0, 0), a0, ac;
  struct acs_cgraph cg;
  int32_t x, c1, re, c2, ad, ca, po, seen = 0;

  memset(&a0, 0, sizeof(a0));
  memset(&ac, 0, sizeof(ac));
  ac.axis = 1;
  cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
  x = INPUT(&lg, "x", 1, 4, 8, 8);
  c1 = node(&lg, "conv1", ACS_LOP_CONV, &a3, 3,
            (int32_t[]){x, WEIGHT(&lg, "w1", 8, 4, 3, 3), WEIGHT(&lg, "b1", 8)}, ROLES, "y1");
  re = node(&lg, "relu", ACS_LOP_RELU, &a0, 1, (int32_t[]){lg.n[c1].out[0]}, DATA2, "r");
  c2 = node(&lg, "conv2", ACS_LOP_CONV, &a1, 2, (int32_t[]){x, WEIGHT(&lg, "w2", 8, 4, 1, 1)},
            ROLES, "y2");
  ad = node(&lg, "add", ACS_LOP_ADD, &a0, 2, (int32_t[]){lg.n[re].out[0], lg.n[c2].out[0]},
            DATA2, "s");
  ca = node(&lg, "cat", ACS_LOP_CONCAT, &ac, 2, (int32_t[]){lg.n[ad].out[0], lg.n[c1].out[0]},
            DATA2, "c");
  po = node(&lg, "pool", ACS_LOP_MAX_POOL, &ap, 1, (int32_t[]){lg.n[ca].out[0]}, DATA2, "o");
  infer_ok(&lg);
  cr_assert_eq(acs_cgraph_build(&lg, 1, &cg), ACS_OK);
  cr_assert_eq(cg.nparts, 6);
  cr_assert_eq(cg.ntensors, 10);
  cr_assert_eq(cg.ncons, 11);
  /* producers come before consumers; every slot's propagator is the node's */
  for (int32_t k = 0; k < cg.nparts; k++) {
    const struct acs_cpart *p = &cg.parts[k];
    for (int s = 0; s < p->nin; s++) {
      struct acs_prop want;
      int32_t t = p->in[s];
      cr_assert_geq(t, 0);
      cr_assert(cg.tensors[t].producer < k, "part %d slot %d", (int)k, s);
      cr_assert_eq(acs_prop_of(&lg, p->node, s, &want), ACS_OK);
      cr_assert(memcmp(&want, &p->prop[s], sizeof(want)) == 0, "part %d slot %d", (int)k, s);
    }
    seen |= 1 << p->node;
  }
  cr_assert_eq(seen, (1 << c1) | (1 << re) | (1 << c2) | (1 << ad) | (1 << ca) | (1 << po));
  {
    const struct acs_ctensor *tx = &cg.tensors[cg.tensor_of[x]];
    const struct acs_ctensor *ty1 = &cg.tensors[cg.tensor_of[lg.n[c1].out[0]]];
    const struct acs_ctensor *tc = &cg.tensors[cg.tensor_of[lg.n[ca].out[0]]];
    const struct acs_ctensor *to = &cg.tensors[cg.tensor_of[lg.n[po].out[0]]];
    const struct acs_ctensor *tw = &cg.tensors[cg.tensor_of[lg.n[c1].in[1]]];
    cr_assert_eq(tx->producer, -1);
    cr_assert_eq(tx->ncons, 2);
    cr_assert_eq(tx->bytes, 256);
    cr_assert_eq(ty1->ncons, 2);
    cr_assert_eq(cg.parts[ty1->producer].node, c1);
    cr_assert_eq(cg.parts[cg.cons[ty1->cons_off + 1].part].node, ca);
    cr_assert_eq(cg.cons[ty1->cons_off + 1].slot, 1);
    cr_assert_eq(tc->bytes, 16 * 8 * 8);
    cr_assert_eq(to->ncons, 0);
    cr_assert_eq(to->bytes, 16 * 4 * 4);
    cr_assert(tw->weight);
    cr_assert_eq(tw->ncons, 1);
    cr_assert_eq(tw->bytes, 8 * 4 * 3 * 3);
  }
  acs_cgraph_free(&cg);
  acs_lgraph_destroy(&lg);
}

Test(cgraph, uninferred_graph_is_einval)
{
  struct acs_lgraph lg;
  struct acs_cgraph cg;

  cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
  cr_assert_eq(acs_cgraph_build(&lg, 1, &cg), ACS_EINVAL);
  acs_cgraph_free(&cg);
  acs_lgraph_destroy(&lg);
}

/* ---- the integer propagators ---- */

/* acs_iprop_box equals apply-then-clip on random boxes of random layers. */
Test(propagator, integer_form_equals_apply_and_clip)
{
  struct acs_rng r;

  acs_rng_seed(&r, 7);
  for (int iter = 0; iter < 200; iter++) {
    struct acs_lgraph lg;
    int32_t v;
    cr_assert_eq(acs_lgraph_init(&lg, "t", "t.onnx"), ACS_OK);
    v = random_window(&lg, &r, iter % 3);
    infer_ok(&lg);
    for (int slot = 0; slot < lg.n[v].nin; slot++) {
      struct acs_prop p;
      struct acs_iprop ip;
      if (lg.n[v].in[slot] < 0)
        continue;
      cr_assert_eq(acs_prop_of(&lg, v, slot, &p), ACS_OK);
      acs_iprop_make(&p, &ip);
      if (!ip.ok)
        continue;
      for (int k = 0; k < 20; k++) {
        struct acs_lbox ob, a, b;
        random_box(&r, &lg.t[lg.n[v].out[0]], &ob);
        propagated(&lg, v, slot, &ob, &a);
        acs_iprop_box(&ip, &ob, &lg.t[lg.n[v].in[slot]], &b);
        assert_box_eq(&a, &b, "integer form");
      }
    }
    acs_lgraph_destroy(&lg);
  }
}

