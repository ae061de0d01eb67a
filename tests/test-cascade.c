/*
 * test-cascade.c - the cascading scheduler's propagators (seed 002, step
 * 1): the seed's example, random layers against direct index arithmetic and
 * against acs_lnode_input_box (itself tested against enumeration in
 * test-layer), and composition along a chain.
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

/* ---- building graphs ---- */

static int32_t tensor(struct acs_lgraph *lg, const char *name, int kind, int rank,
                      const int64_t *dims)
{
  int32_t t = acs_lgraph_add_tensor(lg, name);

  cr_assert_geq(t, 0, "tensor %s", name);
  lg->t[t].kind = (uint8_t)kind;
  if (dims) {
    acs_ltensor_set_shape(&lg->t[t], rank, dims);
    lg->t[t].dtype = 1;
    lg->t[t].elem_bytes = 4;
  }
  if (kind == ACS_LT_INPUT) {
    int32_t *in = acs_arena_calloc(&lg->arena, (size_t)lg->ninputs + 1, sizeof(*in));
    cr_assert_not_null(in);
    if (lg->ninputs)
      memcpy(in, lg->inputs, (size_t)lg->ninputs * sizeof(*in));
    in[lg->ninputs++] = t;
    lg->inputs = in;
  }
  return t;
}

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define NDIMS(...) ((int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define INPUT(lg, name, ...) tensor(lg, name, ACS_LT_INPUT, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))
#define WEIGHT(lg, name, ...) tensor(lg, name, ACS_LT_WEIGHT, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))

static const uint8_t ROLES[] = {ACS_LR_DATA, ACS_LR_WEIGHT, ACS_LR_WEIGHT};
static const uint8_t DATA2[] = {ACS_LR_DATA, ACS_LR_DATA};

static int32_t node(struct acs_lgraph *lg, const char *name, int op, const struct acs_lattrs *a,
                    int nin, const int32_t *in, const uint8_t *roles, const char *out)
{
  int32_t o = tensor(lg, out, ACS_LT_ACT, 0, NULL);
  int32_t v = acs_lgraph_add_node(lg, name, op, a, nin, in, roles, 1, &o);

  cr_assert_geq(v, 0);
  return v;
}

static void infer_ok(struct acs_lgraph *lg)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_lgraph_finalize(lg, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_lgraph_infer(lg, &d), ACS_OK, "%s", d.msg);
}

static struct acs_lattrs window(int64_t k, int64_t s, int64_t dil, int64_t pb, int64_t pe,
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
static void propagated(const struct acs_lgraph *lg, int32_t v, int slot,
                       const struct acs_lbox *out, struct acs_lbox *in)
{
  struct acs_prop p;
  struct acs_stripe so, si;

  cr_assert_eq(acs_prop_of(lg, v, slot, &p), ACS_OK);
  acs_stripe_of_box(out, &so);
  acs_prop_apply(&p, &so, &si);
  acs_prop_clip(&si, &lg->t[lg->n[v].in[slot]], in);
}

static void assert_box_eq(const struct acs_lbox *a, const struct acs_lbox *b, const char *what)
{
  cr_assert_eq(a->rank, b->rank, "%s: rank", what);
  for (int i = 0; i < a->rank; i++)
    cr_assert(a->lo[i] == b->lo[i] && a->hi[i] == b->hi[i],
              "%s: axis %d: [%lld, %lld) against [%lld, %lld)", what, i, (long long)a->lo[i],
              (long long)a->hi[i], (long long)b->lo[i], (long long)b->hi[i]);
}

static void random_box(struct acs_rng *r, const struct acs_ltensor *t, struct acs_lbox *b)
{
  b->rank = t->rank;
  for (int d = 0; d < t->rank; d++) {
    int64_t x = (int64_t)acs_rng_below(r, (uint64_t)t->dims[d]);
    int64_t y = (int64_t)acs_rng_below(r, (uint64_t)t->dims[d]);
    b->lo[d] = x < y ? x : y;
    b->hi[d] = (x < y ? y : x) + 1;
  }
}

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

/* ---- plans ---- */

/* A platform whose figures make costs countable by hand: one PE doing one
 * MAC (or elementary op) a cycle, DMA and DDR moving a byte a cycle with no
 * latency, bytes of one byte, no alignment. */
static const char *const HAND[] = {
  "pe_count=1", "pe_macs_per_cycle=1", "dma_channels=2", "freq_mhz=1000", "dma_gbps=1",
  "ddr_ratio=1", "ddr_latency_cycles=0", "cmx_align_bytes=1", "bytes_per_elem=1", NULL};

/* Two PEs, 16-byte alignment, bytes of one byte, room for anything. */
static const char *const CHAIN[] = {"pe_count=2", "cmx_align_bytes=16", "bytes_per_elem=1",
                                    "cmx_kib=4096", NULL};

struct rig {
  int64_t peak;              /* of the last lowering */
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_cgraph cg;
  struct acs_cas_env env;
};

/* Binds lg to a platform (`sets` over the defaults) and a schedule to
 * lower into. acs_schedule_init_problem gives the schedule the platform's
 * resources and CMX; it needs a problem graph, here one op, which the
 * lowering replaces with the cascade's ops. */
static void rig_make(struct rig *r, const struct acs_lgraph *lg, const char *const *sets)
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

static void rig_free(struct rig *r)
{
  acs_cgraph_free(&r->cg);
  acs_schedule_destroy(&r->s);
  acs_problem_destroy(&r->pb);
  acs_graph_destroy(&r->g);
}

static void walk_ok(const struct rig *r, int32_t first, int32_t nparts, struct acs_cas_plan *p)
{
  struct acs_cas_group g;

  cr_assert(acs_cas_group_of(&r->cg, first, nparts, &g));
  p->first = first;
  p->nparts = nparts;
  cr_assert_eq(acs_cas_walk(&r->env, &g, p, NULL), ACS_OK);
}

/* Lowers plans, verifies the schedule, and checks it: the cycles are the
 * plans' sum and the peak CMX at most their memory. */
static void lower_ok(struct rig *r, const struct acs_cas_plan *plans, int32_t n,
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

/* A chain of `n` layers on x (1, 4, 16, 16): conv 3x3 (8 filters), relu,
 * depthwise 3x3 stride 2, conv 1x1 (16 filters), in that order. */
static void chain(struct acs_lgraph *lg, int n)
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

/* ---- the variant on shipped networks ---- */

struct net_run {
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
};

/* Runs `cascade` with options (NULL-ended "k=v") on a shipped network. */
static int net_schedule(struct net_run *n, const char *rel, const char *const *sets,
                        const char *const *opts, struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find("cascade");
  struct acs_platform p;
  struct acs_cas_opts o;
  struct acs_sched_ctx ctx = {1, 0, NULL};

  cr_assert_not_null(ops);
  acs_diag_init(d);
  cr_assert_eq(acs_workload_load(tu_path(rel), &n->w, d), ACS_OK, "%s", d->msg);
  acs_platform_init(&p);
  for (; sets && *sets; sets++)
    cr_assert_eq(acs_platform_set_kv(&p, *sets, d), ACS_OK, "%s", d->msg);
  cr_assert_eq(acs_workload_build(n->w, &p, &n->g, d), ACS_OK, "%s", d->msg);
  cr_assert_eq(acs_problem_init(&n->pb, &n->g, &p, d), ACS_OK, "%s", d->msg);
  acs_workload_bind(n->w, &n->pb);
  cr_assert_eq(acs_sched_opts_defaults(ops, &o), ACS_OK);
  for (; opts && *opts; opts++) {
    char key[64];
    const char *eq = strchr(*opts, '=');
    snprintf(key, sizeof(key), "%.*s", (int)(eq - *opts), *opts);
    cr_assert_eq(acs_sched_opts_set(ops, &o, key, eq + 1, d), ACS_OK, "%s", d->msg);
  }
  acs_schedule_init(&n->s);
  cr_assert_eq(acs_schedule_init_problem(&n->s, &n->pb), ACS_OK);
  return ops->schedule(&n->pb, &o, &ctx, &n->s, d);
}

static void net_free(struct net_run *n)
{
  acs_schedule_destroy(&n->s);
  acs_problem_destroy(&n->pb);
  acs_graph_destroy(&n->g);
  acs_workload_free(n->w);
}

/* The chosen front point of a run: its memory and cycles. */
static void chosen_point(const struct acs_schedule *s, int64_t *mem, int64_t *cycles)
{
  const struct acs_rtab *t = acs_schedule_find_rtab(s, "cascade_front");
  int found = 0;

  cr_assert_not_null(t);
  for (int64_t i = 0; i < t->nrows; i++)
    if (acs_rtab_get(t, i, 2).i) {
      *mem = acs_rtab_get(t, i, 0).i;
      *cycles = acs_rtab_get(t, i, 1).i;
      found++;
    }
  cr_assert_eq(found, 1);
}

/* The seed's headline: MobileNetV1 (224, int8) needs 1,204,224 bytes run
 * layer by layer (test-onnx checks that figure) and under 300 kB
 * cascaded. At cmx_kib=256 the schedule verifies, its peak is within the
 * budget and the front point it came from, and its makespan is that
 * point's cycles (groups run one after another). */
Test(variant, mobilenet_v1_within_256_kib)
{
  static const char *const sets[] = {"cmx_kib=256", NULL};
  static const char *const opts[] = {"max_parts=6", "heights=6", NULL};
  struct acs_schedule_stats st;
  struct net_run n;
  struct acs_diag d;
  int64_t mem, cycles;

  cr_assert_eq(net_schedule(&n, "workloads/onnx/mobilenet_v1.onnx", sets, opts, &d), ACS_OK,
               "%s", d.msg);
  tu_assert_verified(&n.s);
  acs_schedule_stats(&n.s, &st);
  chosen_point(&n.s, &mem, &cycles);
  cr_assert_leq(st.peak_cmx_bytes, 256 * 1024);
  cr_assert_leq(st.peak_cmx_bytes, mem);
  cr_assert_lt(st.peak_cmx_bytes, 300000);
  cr_assert_eq(st.makespan, cycles);
  cr_assert_eq(st.spill_bytes, 0);
  cr_assert_not_null(acs_schedule_find_rtab(&n.s, "cascade_plans"));
  net_free(&n);
}

/* Residual blocks (the skip tensor enters a cascade twice, or stays in
 * CMX across cascades) at a small budget. */
Test(variant, resnet18_small_budget_verifies)
{
  static const char *const sets[] = {"cmx_kib=192", NULL};
  static const char *const opts[] = {"max_parts=4", "heights=4", NULL};
  struct acs_schedule_stats st;
  struct net_run n;
  struct acs_diag d;
  int64_t mem, cycles;

  cr_assert_eq(net_schedule(&n, "workloads/onnx/resnet18.onnx", sets, opts, &d), ACS_OK, "%s",
               d.msg);
  tu_assert_verified(&n.s);
  acs_schedule_stats(&n.s, &st);
  chosen_point(&n.s, &mem, &cycles);
  cr_assert_leq(st.peak_cmx_bytes, mem);
  cr_assert_eq(st.makespan, cycles);
  net_free(&n);
}

/* A budget below the smallest proposal: infeasible, with the figure. */
Test(variant, budget_below_every_proposal_is_infeasible)
{
  static const char *const sets[] = {"cmx_kib=256", NULL};
  static const char *const opts[] = {"budget_kib=8", "max_parts=2", "heights=2", NULL};
  struct net_run n;
  struct acs_diag d;

  cr_assert_eq(net_schedule(&n, "workloads/onnx/mobilenet_v1.onnx", sets, opts, &d),
               ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "smallest proposal needs"), "%s", d.msg);
  net_free(&n);
}

/* ---- the memo of recent proposals ---- */

/* A sweep over barrier counts plans each CMX size once: the key ignores
 * the barrier parameters and nothing else; a hit is a deep copy. */
Test(memo, keyed_by_everything_but_barriers)
{
  struct acs_cas_opts o = {.max_parts = 3, .max_proposals = 64, .heights = 3, .widths = 1,
                           .chan_splits = 1, .modes = 1, .max_stripes = 128};
  struct acs_cas_memo_key k;
  struct acs_cas_result r, hit;
  struct acs_workload wl;
  struct acs_platform p;
  struct acs_lgraph lg;
  struct acs_diag d;
  struct rig rg;

  chain(&lg, 3);
  rig_make(&rg, &lg, CHAIN);
  acs_diag_init(&d);
  cr_assert_eq(acs_cas_propose(&rg.env, &o, 1 << 20, NULL, &r, &d), ACS_OK, "%s", d.msg);
  memset(&wl, 0, sizeof(wl));
  snprintf(wl.digest, sizeof(wl.digest), "%064d", 1);
  p = rg.pb.plat;
  cr_assert(acs_cas_memo_key(&k, wl.digest, &p, &o, 1 << 20));
  acs_cas_memo_put(&k, &r);
  cr_assert_eq(acs_platform_set_kv(&p, "barriers=8", &d), ACS_OK);
  cr_assert_eq(acs_platform_set_kv(&p, "barrier_slots=2", &d), ACS_OK);
  cr_assert(acs_cas_memo_key(&k, wl.digest, &p, &o, 1 << 20));
  cr_assert(acs_cas_memo_get(&k, &hit), "barriers do not change the plans");
  cr_assert_eq(hit.nfront, r.nfront);
  cr_assert_eq(hit.chosen, r.chosen);
  cr_assert_eq(hit.nplans, r.nplans);
  cr_assert(hit.front != r.front && hit.plans != r.plans, "a hit is a copy");
  for (int32_t i = 0; i < r.nfront; i++)
    cr_assert(hit.front[i].mem == r.front[i].mem && hit.front[i].cycles == r.front[i].cycles);
  cr_assert(memcmp(hit.plans, r.plans, (size_t)r.nplans * sizeof(*r.plans)) == 0);
  acs_cas_result_free(&hit);
  cr_assert_eq(acs_platform_set_kv(&p, "dma_gbps=16", &d), ACS_OK);
  cr_assert(acs_cas_memo_key(&k, wl.digest, &p, &o, 1 << 20));
  cr_assert_not(acs_cas_memo_get(&k, &hit), "the DMA rate changes the plans");
  p = rg.pb.plat;
  cr_assert(acs_cas_memo_key(&k, wl.digest, &p, &o, 1 << 19));
  cr_assert_not(acs_cas_memo_get(&k, &hit), "so does the budget");
  o.heights = 2;
  cr_assert(acs_cas_memo_key(&k, wl.digest, &p, &o, 1 << 20));
  cr_assert_not(acs_cas_memo_get(&k, &hit), "and the options");
  o.heights = 3;
  wl.digest[0] = 'f';
  cr_assert(acs_cas_memo_key(&k, wl.digest, &p, &o, 1 << 20));
  cr_assert_not(acs_cas_memo_get(&k, &hit), "and the workload's content");
  wl.digest[0] = '\0';
  cr_assert_not(acs_cas_memo_key(&k, wl.digest, &p, &o, 1 << 20), "no digest, no memo");
  acs_cas_result_free(&r);
  rig_free(&rg);
  acs_lgraph_destroy(&lg);
}

/* What the variant refuses, each with one clear message. */
Test(variant, refusals_say_why)
{
  static const char *const sets[] = {"cmx_kib=128", NULL};
  static const char *const big[] = {"budget_kib=129", NULL};
  struct net_run n;
  struct acs_diag d;

  cr_assert_eq(net_schedule(&n, "workloads/onnx/alexnet.onnx", sets, big, &d), ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "exceeds the platform's CMX"), "%s", d.msg);
  net_free(&n);
  /* An op-graph CSV has ops, not layers. */
  cr_assert_eq(net_schedule(&n, "tests/data/load/graph_good.csv", sets, NULL, &d), ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "needs a layer graph"), "%s", d.msg);
  net_free(&n);
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
