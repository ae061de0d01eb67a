/*
 * test-layer.c - the layer graph model (core/model/layer*.c): shape
 * inference rules worked out by hand, located errors, the input regions of
 * output boxes checked against a brute-force enumeration of what each
 * output element reads (from the operator definitions), the work of
 * boxes (additive, and counted by enumeration for ConvTranspose), and the
 * network bound worked out by hand.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "core/model/netbound.h"
#include "tests/lgraph_util.h"
#include "tests/testutil.h"

/* ---- building graphs by hand (tensor, node, infer_ok: lgraph_util.h) ---- */

static const uint8_t DATA2[] = { ACS_LR_DATA, ACS_LR_DATA, ACS_LR_DATA, ACS_LR_DATA };
static const uint8_t CONV_ROLES[] = { ACS_LR_DATA, ACS_LR_WEIGHT, ACS_LR_WEIGHT };

static int infer(struct acs_lgraph *lg, struct acs_diag *d)
{
  acs_diag_init(d);
  int rc = acs_lgraph_finalize(lg, d);
  return rc == 0 ? acs_lgraph_infer(lg, d) : rc;
}

static void shape_is(const struct acs_lgraph *lg, int32_t node_id, const char *want)
{
  char got[256];
  acs_ltensor_shape_text(&lg->t[lg->n[node_id].out[0]], got, sizeof(got));
  cr_assert_str_eq(got, want, "node %s", lg->n[node_id].name);
}

/* One node graph: infer, compare the output shape or the error. */
static void infer_err(struct acs_lgraph *lg, const char *msg)
{
  struct acs_diag d;
  int rc = infer(lg, &d);
  cr_assert_neq(rc, ACS_OK, "no error; expected: %s", msg);
  cr_assert_str_eq(d.msg, msg);
  cr_assert_str_eq(d.file, "f.onnx");
}

static struct acs_lgraph *new_graph(void)
{
  struct acs_lgraph *lg = malloc(sizeof(*lg));
  cr_assert_not_null(lg);
  cr_assert_eq(acs_lgraph_init(lg, "t", "f.onnx"), ACS_OK);
  return lg;
}

static void free_graph(struct acs_lgraph *lg)
{
  acs_lgraph_destroy(lg);
  free(lg);
}

static struct acs_lattrs conv_attrs(int nsp, const int64_t *strides, const int64_t *dil,
                                    const int64_t *pads, int64_t group)
{
  struct acs_lattrs a;
  memset(&a, 0, sizeof(a));
  a.group = group;
  if (strides) {
    a.nstrides = nsp;
    memcpy(a.strides, strides, sizeof(int64_t) * (size_t)nsp);
  }
  if (dil) {
    a.ndilations = nsp;
    memcpy(a.dilations, dil, sizeof(int64_t) * (size_t)nsp);
  }
  if (pads) {
    a.npads = 2 * nsp;
    memcpy(a.pads, pads, sizeof(int64_t) * 2 * (size_t)nsp);
  }
  return a;
}

/* ---- shape inference ---- */

/* H: (10 + 1 + 2 - 3) / 2 + 1 = 6; W: (11 + 0 + 1 - ((3-1)*2+1)) / 1 + 1 = 8. */
Test(layer_infer, conv_with_asymmetric_pads_strides_and_dilations)
{
  struct acs_lgraph *lg = new_graph();
  int32_t in[] = { INPUT(lg, "x", 1, 3, 10, 11), WEIGHT(lg, "w", 4, 3, 3, 3) };
  struct acs_lattrs a = conv_attrs(2, DIMS(2, 1), DIMS(1, 2), DIMS(1, 0, 2, 1), 1);
  int32_t v = node(lg, "c", ACS_LOP_CONV, &a, 2, in, CONV_ROLES, "y");
  infer_ok(lg);
  shape_is(lg, v, "1x4x6x8");
  free_graph(lg);
}

/* 7 wide, kernel 4, stride 2: SAME gives ceil(7/2) = 4 outputs and
 * (4-1)*2 + 4 - 7 = 3 pixels of padding: 1 before and 2 after for
 * SAME_UPPER, 2 and 1 for SAME_LOWER. */
Test(layer_infer, auto_pad_same_splits_the_odd_pixel)
{
  for (int lower = 0; lower < 2; lower++) {
    struct acs_lgraph *lg = new_graph();
    int32_t in[] = { INPUT(lg, "x", 1, 1, 7, 7), WEIGHT(lg, "w", 1, 1, 4, 4) };
    struct acs_lattrs a = conv_attrs(2, DIMS(2, 2), NULL, NULL, 1);
    a.auto_pad = lower ? ACS_AUTO_PAD_SAME_LOWER : ACS_AUTO_PAD_SAME_UPPER;
    int32_t v = node(lg, "c", ACS_LOP_CONV, &a, 2, in, CONV_ROLES, "y");
    infer_ok(lg);
    shape_is(lg, v, "1x1x4x4");
    cr_assert_eq(lg->n[v].a.pads[0], lower ? 2 : 1);
    cr_assert_eq(lg->n[v].a.pads[2], lower ? 1 : 2);
    free_graph(lg);
  }
}

Test(layer_infer, grouped_depthwise_and_transposed_convolutions)
{
  struct acs_lgraph *lg = new_graph();
  int32_t x = INPUT(lg, "x", 1, 3, 5, 5);
  int32_t in[] = { x, WEIGHT(lg, "w", 6, 1, 3, 3) };
  struct acs_lattrs a = conv_attrs(2, NULL, NULL, NULL, 3);
  int32_t dw = node(lg, "dw", ACS_LOP_CONV, &a, 2, in, CONV_ROLES, "y");
  /* ConvTranspose: W is C x M/g x k: 3 x 2 x 3 x 3, stride 2:
   * 2 * (3 - 1) + 0 + 3 - 0 = 7. */
  int32_t in2[] = { lg->n[dw].out[0], WEIGHT(lg, "wt", 6, 2, 3, 3) };
  struct acs_lattrs t = conv_attrs(2, DIMS(2, 2), NULL, NULL, 1);
  int32_t ct = node(lg, "ct", ACS_LOP_CONV_TRANSPOSE, &t, 2, in2, CONV_ROLES, "z");
  infer_ok(lg);
  shape_is(lg, dw, "1x6x3x3");
  shape_is(lg, ct, "1x2x7x7");
  free_graph(lg);
}

Test(layer_infer, pools_floor_and_ceil)
{
  for (int ceil = 0; ceil < 2; ceil++) {
    struct acs_lgraph *lg = new_graph();
    int32_t x = INPUT(lg, "x", 1, 1, 4, 4);
    struct acs_lattrs a = conv_attrs(2, DIMS(2, 2), NULL, NULL, 0);
    a.nkernel = 2;
    a.kernel[0] = a.kernel[1] = 3;
    a.ceil_mode = ceil;
    int32_t v = node(lg, "p", ACS_LOP_MAX_POOL, &a, 1, &x, DATA2, "y");
    infer_ok(lg);
    /* (4 - 3) / 2 + 1: floor 1, ceil 2 */
    shape_is(lg, v, ceil ? "1x1x2x2" : "1x1x1x1");
    free_graph(lg);
  }
}

Test(layer_infer, gemm_and_matmul)
{
  struct acs_lgraph *lg = new_graph();
  int32_t g_in[] = { INPUT(lg, "a", 4, 3), WEIGHT(lg, "b", 5, 4), WEIGHT(lg, "c", 5) };
  struct acs_lattrs a;
  memset(&a, 0, sizeof(a));
  a.trans_a = a.trans_b = 1;
  int32_t g = node(lg, "gemm", ACS_LOP_GEMM, &a, 3, g_in, CONV_ROLES, "y");
  int32_t m_in[] = { INPUT(lg, "p", 2, 1, 3, 4), INPUT(lg, "q", 5, 4, 6) };
  int32_t mm = node(lg, "mm", ACS_LOP_MATMUL, NULL, 2, m_in, DATA2, "z");
  int32_t v_in[] = { INPUT(lg, "v", 4), INPUT(lg, "r", 4, 6) };
  int32_t mv = node(lg, "mv", ACS_LOP_MATMUL, NULL, 2, v_in, DATA2, "u");
  infer_ok(lg);
  shape_is(lg, g, "3x5");       /* A^T is 3x4, B^T is 4x5 */
  shape_is(lg, mm, "2x5x3x6");  /* batch 2x1 and 5 broadcast */
  shape_is(lg, mv, "6");        /* the promoted vector's dim is removed */
  free_graph(lg);
}

Test(layer_infer, views_concat_transpose_pad_resize)
{
  struct acs_lgraph *lg = new_graph();
  int32_t x = INPUT(lg, "x", 2, 3, 4);
  struct acs_lattrs a;
  memset(&a, 0, sizeof(a));
  a.nshape = 2;
  a.shape[0] = 0;
  a.shape[1] = -1;
  int32_t rs = node(lg, "rs", ACS_LOP_RESHAPE, &a, 1, &x, DATA2, "r");
  memset(&a, 0, sizeof(a));
  a.axis = -1;
  int32_t fl = node(lg, "fl", ACS_LOP_FLATTEN, &a, 1, &x, DATA2, "f");
  memset(&a, 0, sizeof(a));
  int32_t tr = node(lg, "tr", ACS_LOP_TRANSPOSE, &a, 1, &x, DATA2, "t");
  int32_t cat_in[] = { x, INPUT(lg, "x2", 2, 3, 5) };
  memset(&a, 0, sizeof(a));
  a.axis = -1;
  int32_t cat = node(lg, "cat", ACS_LOP_CONCAT, &a, 2, cat_in, DATA2, "c");
  int32_t img = INPUT(lg, "img", 1, 3, 5, 5);
  memset(&a, 0, sizeof(a));
  a.npads = 8;
  memcpy(a.pads, DIMS(0, 0, -1, 2, 0, 0, 1, 2), sizeof(int64_t) * 8);
  int32_t pad = node(lg, "pad", ACS_LOP_PAD, &a, 1, &img, DATA2, "p");
  memset(&a, 0, sizeof(a));
  a.nscales = 4;
  a.scales[0] = a.scales[1] = 1;
  a.scales[2] = 0.5;
  a.scales[3] = 2.5;
  int32_t rz = node(lg, "rz", ACS_LOP_RESIZE, &a, 1, &img, DATA2, "z");
  infer_ok(lg);
  shape_is(lg, rs, "2x12");
  shape_is(lg, fl, "6x4");     /* axis -1 is 2: 2*3 x 4 */
  shape_is(lg, tr, "4x3x2");   /* the default reverses the dims */
  shape_is(lg, cat, "2x3x9");
  shape_is(lg, pad, "1x3x5x9"); /* rows -1 + 1, columns 2 + 2 */
  shape_is(lg, rz, "1x3x2x12"); /* floor(2.5), floor(12.5) */
  free_graph(lg);
}

Test(layer_infer, errors_name_the_node_and_the_rule)
{
  struct acs_lgraph *lg = new_graph();
  int32_t in[] = { INPUT(lg, "x", 1, 3, 2, 2), WEIGHT(lg, "w", 4, 3, 3, 3) };
  struct acs_lattrs a = conv_attrs(2, NULL, NULL, NULL, 1);
  node(lg, "c", ACS_LOP_CONV, &a, 2, in, CONV_ROLES, "y");
  infer_err(lg, "node 'c' (Conv): the window (extent 3) is larger than the padded input (2) "
                "along spatial dimension 0");
  free_graph(lg);

  lg = new_graph();
  int32_t bin[] = { INPUT(lg, "a", 2, 3), INPUT(lg, "b", 4, 3) };
  node(lg, "add", ACS_LOP_ADD, NULL, 2, bin, DATA2, "y");
  infer_err(lg, "node 'add' (Add): shapes 2x3 and 4x3 do not broadcast");
  free_graph(lg);

  lg = new_graph();
  int32_t x = INPUT(lg, "x", 2, 3);
  memset(&a, 0, sizeof(a));
  a.nshape = 1;
  a.shape[0] = 5;
  node(lg, "rs", ACS_LOP_RESHAPE, &a, 1, &x, DATA2, "y");
  infer_err(lg, "node 'rs' (Reshape): shape has 5 elements, the input 6");
  free_graph(lg);

  lg = new_graph();
  x = INPUT(lg, "x", 2, 3);
  memset(&a, 0, sizeof(a));
  a.nperm = 2;
  a.perm[0] = a.perm[1] = 0;
  node(lg, "tr", ACS_LOP_TRANSPOSE, &a, 1, &x, DATA2, "y");
  infer_err(lg, "node 'tr' (Transpose): perm is not a permutation of 0..1");
  free_graph(lg);
}

/* ---- regions against enumeration ---- */

/* A set of input elements as a bitmap over a tensor of up to 4 dims. */
struct elems {
  int64_t dims[4];
  uint8_t *bit;
};

static int64_t flat(const struct elems *e, const int64_t *i)
{
  return ((i[0] * e->dims[1] + i[1]) * e->dims[2] + i[2]) * e->dims[3] + i[3];
}

static void mark(struct elems *e, int64_t a, int64_t b, int64_t c, int64_t d)
{
  if (a < 0 || b < 0 || c < 0 || d < 0 || a >= e->dims[0] || b >= e->dims[1] ||
      c >= e->dims[2] || d >= e->dims[3])
    return;
  const int64_t i[4] = { a, b, c, d };
  e->bit[flat(e, i)] = 1;
}

/* What output element (n, m, y, x) of a 2-D Conv, ConvTranspose or pool
 * reads from its data input, straight from the operator definitions. */
static void reads(const struct acs_lnode *n, const struct acs_ltensor *in,
                  const struct acs_ltensor *out, const int64_t *o, struct elems *e)
{
  const struct acs_lattrs *a = &n->a;
  int64_t c0 = o[1], c1 = o[1] + 1;
  if (n->op == ACS_LOP_CONV || n->op == ACS_LOP_CONV_TRANSPOSE) {
    int64_t per_out = out->dims[1] / a->group, per_in = in->dims[1] / a->group;
    c0 = o[1] / per_out * per_in;
    c1 = c0 + per_in;
  }
  for (int64_t c = c0; c < c1; c++)
    for (int64_t ky = 0; ky < a->kernel[0]; ky++)
      for (int64_t kx = 0; kx < a->kernel[1]; kx++) {
        if (n->op != ACS_LOP_CONV_TRANSPOSE) {
          mark(e, o[0], c, o[2] * a->strides[0] - a->pads[0] + ky * a->dilations[0],
               o[3] * a->strides[1] - a->pads[1] + kx * a->dilations[1]);
          continue;
        }
        /* output y = iy * s - pad + ky * d: the inputs with that y */
        int64_t ny = o[2] + a->pads[0] - ky * a->dilations[0];
        int64_t nx = o[3] + a->pads[1] - kx * a->dilations[1];
        if (ny >= 0 && nx >= 0 && ny % a->strides[0] == 0 && nx % a->strides[1] == 0)
          mark(e, o[0], c, ny / a->strides[0], nx / a->strides[1]);
      }
}

/* Checks acs_lnode_input_box for every box of a 2-D window op's output
 * against the bounding box of the elements the box's outputs read: it must
 * contain them all, and equal their bounding box when `exact`. */
static void check_window_op(struct acs_lgraph *lg, int32_t v, int exact)
{
  const struct acs_lnode *n = &lg->n[v];
  const struct acs_ltensor *in = &lg->t[n->in[0]], *out = &lg->t[n->out[0]];
  struct elems e;
  memcpy(e.dims, in->dims, sizeof(e.dims));
  int64_t size = e.dims[0] * e.dims[1] * e.dims[2] * e.dims[3];
  e.bit = malloc((size_t)size);
  cr_assert_not_null(e.bit);
  struct acs_rng rng;
  acs_rng_seed(&rng, 7);
  for (int trial = 0; trial < 60; trial++) {
    struct acs_lbox ob, ib;
    ob.rank = 4;
    for (int d = 0; d < 4; d++) {
      int64_t a = (int64_t)acs_rng_below(&rng, (uint64_t)out->dims[d]);
      int64_t b = (int64_t)acs_rng_below(&rng, (uint64_t)out->dims[d]);
      ob.lo[d] = a < b ? a : b;
      ob.hi[d] = (a < b ? b : a) + 1;
    }
    memset(e.bit, 0, (size_t)size);
    int64_t o[4];
    for (o[0] = ob.lo[0]; o[0] < ob.hi[0]; o[0]++)
      for (o[1] = ob.lo[1]; o[1] < ob.hi[1]; o[1]++)
        for (o[2] = ob.lo[2]; o[2] < ob.hi[2]; o[2]++)
          for (o[3] = ob.lo[3]; o[3] < ob.hi[3]; o[3]++)
            reads(n, in, out, o, &e);
    cr_assert_eq(acs_lnode_input_box(lg, v, 0, &ob, &ib), ACS_OK);
    int64_t lo[4] = { INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX }, hi[4] = { 0, 0, 0, 0 };
    int64_t i[4];
    for (i[0] = 0; i[0] < e.dims[0]; i[0]++)
      for (i[1] = 0; i[1] < e.dims[1]; i[1]++)
        for (i[2] = 0; i[2] < e.dims[2]; i[2]++)
          for (i[3] = 0; i[3] < e.dims[3]; i[3]++) {
            if (!e.bit[flat(&e, i)])
              continue;
            for (int d = 0; d < 4; d++) {
              cr_assert(i[d] >= ib.lo[d] && i[d] < ib.hi[d],
                        "%s trial %d: element %lld in dim %d outside [%lld, %lld)", n->name,
                        trial, (long long)i[d], d, (long long)ib.lo[d], (long long)ib.hi[d]);
              lo[d] = i[d] < lo[d] ? i[d] : lo[d];
              hi[d] = i[d] + 1 > hi[d] ? i[d] + 1 : hi[d];
            }
          }
    if (!exact)
      continue;
    if (lo[0] == INT64_MAX) { /* reads nothing (all padding): an empty box */
      cr_assert_eq(acs_lbox_elems(&ib), 0, "%s trial %d", n->name, trial);
      continue;
    }
    for (int d = 0; d < 4; d++)
      cr_assert(lo[d] == ib.lo[d] && hi[d] == ib.hi[d],
                "%s trial %d dim %d: box [%lld, %lld), reads [%lld, %lld)", n->name, trial, d,
                (long long)ib.lo[d], (long long)ib.hi[d], (long long)lo[d], (long long)hi[d]);
  }
  free(e.bit);
}

Test(layer_region, window_ops_match_enumeration)
{
  struct acs_lgraph *lg = new_graph();
  int32_t x = INPUT(lg, "x", 2, 4, 11, 9);
  /* strided, asymmetrically padded conv */
  int32_t in1[] = { x, WEIGHT(lg, "w1", 6, 4, 3, 2) };
  struct acs_lattrs a1 = conv_attrs(2, DIMS(2, 3), NULL, DIMS(1, 0, 2, 1), 1);
  int32_t c1 = node(lg, "conv", ACS_LOP_CONV, &a1, 2, in1, CONV_ROLES, "y1");
  /* grouped (2 groups of 2 channels, 3 filters each), dilated */
  int32_t in2[] = { x, WEIGHT(lg, "w2", 6, 2, 3, 3) };
  struct acs_lattrs a2 = conv_attrs(2, NULL, DIMS(2, 1), DIMS(2, 1, 2, 1), 2);
  int32_t c2 = node(lg, "group", ACS_LOP_CONV, &a2, 2, in2, CONV_ROLES, "y2");
  /* depthwise */
  int32_t in3[] = { x, WEIGHT(lg, "w3", 4, 1, 3, 3) };
  struct acs_lattrs a3 = conv_attrs(2, DIMS(2, 2), NULL, DIMS(1, 1, 1, 1), 4);
  int32_t c3 = node(lg, "dw", ACS_LOP_CONV, &a3, 2, in3, CONV_ROLES, "y3");
  /* ConvTranspose, stride 2 and 3, with pads */
  int32_t in4[] = { x, WEIGHT(lg, "w4", 4, 3, 3, 2) };
  struct acs_lattrs a4 = conv_attrs(2, DIMS(2, 3), NULL, DIMS(1, 0, 0, 1), 1);
  int32_t c4 = node(lg, "convt", ACS_LOP_CONV_TRANSPOSE, &a4, 2, in4, CONV_ROLES, "y4");
  /* grouped ConvTranspose */
  int32_t in5[] = { x, WEIGHT(lg, "w5", 4, 1, 2, 2) };
  struct acs_lattrs a5 = conv_attrs(2, DIMS(2, 2), NULL, NULL, 2);
  int32_t c5 = node(lg, "convt_g", ACS_LOP_CONV_TRANSPOSE, &a5, 2, in5, CONV_ROLES, "y5");
  /* a pool with ceil_mode and padding */
  struct acs_lattrs a6 = conv_attrs(2, DIMS(2, 2), NULL, DIMS(1, 1, 0, 0), 0);
  a6.nkernel = 2;
  a6.kernel[0] = a6.kernel[1] = 3;
  a6.ceil_mode = 1;
  int32_t p = node(lg, "pool", ACS_LOP_AVERAGE_POOL, &a6, 1, &x, DATA2, "y6");
  infer_ok(lg);
  check_window_op(lg, c1, 1);
  check_window_op(lg, c2, 0); /* dilation leaves holes at the clipped edges */
  check_window_op(lg, c3, 1);
  check_window_op(lg, c4, 1);
  check_window_op(lg, c5, 1);
  check_window_op(lg, p, 1);
  free_graph(lg);
}

Test(layer_region, concat_transpose_broadcast_and_weights)
{
  struct acs_lgraph *lg = new_graph();
  int32_t cat_in[] = { INPUT(lg, "a", 1, 2, 4, 4), INPUT(lg, "b", 1, 3, 4, 4) };
  struct acs_lattrs a;
  memset(&a, 0, sizeof(a));
  a.axis = 1;
  int32_t cat = node(lg, "cat", ACS_LOP_CONCAT, &a, 2, cat_in, DATA2, "c");
  int32_t x = INPUT(lg, "x", 2, 3, 4);
  memset(&a, 0, sizeof(a));
  a.nperm = 3;
  memcpy(a.perm, DIMS(1, 2, 0), sizeof(int64_t) * 3);
  int32_t tr = node(lg, "tr", ACS_LOP_TRANSPOSE, &a, 1, &x, DATA2, "t");
  int32_t add_in[] = { INPUT(lg, "p", 1, 5, 4, 4), INPUT(lg, "q", 5, 1, 1) };
  int32_t add = node(lg, "add", ACS_LOP_ADD, NULL, 2, add_in, DATA2, "s");
  int32_t cin[] = { cat_in[0], WEIGHT(lg, "w", 6, 2, 3, 3), WEIGHT(lg, "bias", 6) };
  struct acs_lattrs ca = conv_attrs(2, NULL, NULL, DIMS(1, 1, 1, 1), 1);
  int32_t cv = node(lg, "cv", ACS_LOP_CONV, &ca, 3, cin, CONV_ROLES, "y");
  infer_ok(lg);
  struct acs_lbox out = { 4, { 0, 1, 1, 0 }, { 1, 3, 3, 4 } }, in;
  /* Concat channels [1, 3): a's channel 1 and b's channel 0. */
  cr_assert_eq(acs_lnode_input_box(lg, cat, 0, &out, &in), ACS_OK);
  cr_assert(in.lo[1] == 1 && in.hi[1] == 2 && in.lo[2] == 1 && in.hi[2] == 3);
  cr_assert_eq(acs_lnode_input_box(lg, cat, 1, &out, &in), ACS_OK);
  cr_assert(in.lo[1] == 0 && in.hi[1] == 1);
  struct acs_lbox hi_ch = { 4, { 0, 3, 0, 0 }, { 1, 5, 4, 4 } };
  cr_assert_eq(acs_lnode_input_box(lg, cat, 0, &hi_ch, &in), ACS_OK);
  cr_assert_eq(acs_lbox_elems(&in), 0); /* channels 3..4 are all b's */
  /* Transpose: out dim i is input dim perm[i]. Out is 3x4x2. */
  struct acs_lbox tb = { 3, { 1, 0, 1 }, { 2, 2, 2 } };
  cr_assert_eq(acs_lnode_input_box(lg, tr, 0, &tb, &in), ACS_OK);
  cr_assert(in.lo[0] == 1 && in.hi[0] == 2 && in.lo[1] == 1 && in.hi[1] == 2 &&
            in.lo[2] == 0 && in.hi[2] == 2);
  /* Broadcast: q (5x1x1) follows the channels and is read whole in H, W. */
  struct acs_lbox ab = { 4, { 0, 2, 1, 1 }, { 1, 4, 2, 3 } };
  cr_assert_eq(acs_lnode_input_box(lg, add, 1, &ab, &in), ACS_OK);
  cr_assert(in.rank == 3 && in.lo[0] == 2 && in.hi[0] == 4 && in.hi[1] == 1 && in.hi[2] == 1);
  /* Conv weights and bias for output channels [2, 5). */
  struct acs_lbox cb = { 4, { 0, 2, 0, 0 }, { 1, 5, 2, 2 } };
  cr_assert_eq(acs_lnode_input_box(lg, cv, 1, &cb, &in), ACS_OK);
  cr_assert(in.lo[0] == 2 && in.hi[0] == 5 && in.hi[1] == 2 && in.hi[2] == 3);
  cr_assert_eq(acs_lnode_input_box(lg, cv, 2, &cb, &in), ACS_OK);
  cr_assert(in.rank == 1 && in.lo[0] == 2 && in.hi[0] == 5);
  free_graph(lg);
}

/* ---- work ---- */

Test(layer_work, additive_over_partitions_and_convtranspose_counted)
{
  struct acs_lgraph *lg = new_graph();
  int32_t x = INPUT(lg, "x", 1, 4, 6, 5);
  int32_t in[] = { x, WEIGHT(lg, "w", 4, 3, 3, 2) };
  struct acs_lattrs a = conv_attrs(2, DIMS(2, 3), NULL, DIMS(1, 0, 0, 1), 2);
  int32_t ct = node(lg, "convt", ACS_LOP_CONV_TRANSPOSE, &a, 2, in, CONV_ROLES, "y");
  infer_ok(lg);
  const struct acs_ltensor *o = &lg->t[lg->n[ct].out[0]];
  struct acs_lbox whole;
  int64_t total, sum = 0, w;
  acs_ltensor_box(o, &whole);
  cr_assert_eq(acs_lnode_work(lg, ct, &whole, &total), ACS_OK);
  /* Enumerate (input, tap) pairs landing in the output: each costs C/g
   * multiply-accumulates per output channel. */
  int64_t pairs = 0;
  for (int64_t iy = 0; iy < 6; iy++)
    for (int64_t ix = 0; ix < 5; ix++)
      for (int64_t ky = 0; ky < 3; ky++)
        for (int64_t kx = 0; kx < 2; kx++) {
          int64_t oy = iy * 2 - 1 + ky, ox = ix * 3 - 0 + kx;
          pairs += oy >= 0 && oy < o->dims[2] && ox >= 0 && ox < o->dims[3];
        }
  cr_assert_eq(total, pairs * o->dims[1] * (4 / 2));
  /* Rows split three ways, channels two ways: the parts add up. */
  for (int64_t r = 0; r < 3; r++)
    for (int64_t c = 0; c < 2; c++) {
      struct acs_lbox b = whole;
      b.lo[2] = o->dims[2] * r / 3;
      b.hi[2] = o->dims[2] * (r + 1) / 3;
      b.lo[1] = o->dims[1] * c / 2;
      b.hi[1] = o->dims[1] * (c + 1) / 2;
      cr_assert_eq(acs_lnode_work(lg, ct, &b, &w), ACS_OK);
      sum += w;
    }
  cr_assert_eq(sum, total);
  free_graph(lg);
}

/* ---- the network bound (core/model/netbound.c) ---- */

/* One 3x3 conv, 1x3x8x8 -> 1x4x6x6, int8: 6*6*4 outputs x 27 taps = 3888
 * MACs; DDR: input 192 + weights 108 + output 144 = 444 bytes. */
static struct acs_lgraph *one_conv(void)
{
  struct acs_lgraph *lg = new_graph();
  int32_t in[] = { INPUT(lg, "x", 1, 3, 8, 8), WEIGHT(lg, "w", 4, 3, 3, 3) };
  struct acs_lattrs a = conv_attrs(2, NULL, NULL, NULL, 1);
  int32_t v = node(lg, "c", ACS_LOP_CONV, &a, 2, in, CONV_ROLES, "y");
  int32_t *out = acs_arena_calloc(&lg->arena, 1, sizeof(*out));
  cr_assert_not_null(out);
  out[0] = lg->n[v].out[0];
  lg->outputs = out;
  lg->noutputs = 1;
  lg->t[out[0]].is_output = 1;
  infer_ok(lg);
  return lg;
}

static struct acs_netbound bound_at(const struct acs_lgraph *lg, const char *const *sets)
{
  struct acs_platform p;
  struct acs_netbound nb;
  struct acs_diag d;

  acs_platform_init(&p);
  for (; *sets; sets++)
    cr_assert_eq(acs_platform_set_kv(&p, *sets, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_netbound_compute(lg, &p, &nb), ACS_OK);
  return nb;
}

Test(netbound, one_conv_by_hand)
{
  struct acs_lgraph *lg = one_conv();
  /* 2 PEs x 4 MACs/cycle: ceil(3888 / 8) = 486. The link: 40 GB/s / 4 at
   * 1000 MHz = 10 B/cycle: ceil(444 / 10) = 45. */
  const char *sets[] = { "bytes_per_elem=1", "pe_count=2", "pe_macs_per_cycle=4",
                         "freq_mhz=1000", "dma_gbps=40", "ddr_ratio=4", NULL };
  struct acs_netbound nb = bound_at(lg, sets);
  cr_assert_eq(nb.macs, 3888);
  cr_assert_eq(nb.ddr_bytes, 444);
  cr_assert_eq(nb.mac_cycles, 486);
  cr_assert_eq(nb.ddr_cycles, 45);
  cr_assert_eq(nb.cycles, 486);
  /* A DDR 100 times slower (0.1 B/cycle): 4440 cycles, DDR-bound. */
  const char *slow[] = { "bytes_per_elem=1", "pe_count=2", "pe_macs_per_cycle=4",
                         "freq_mhz=1000", "dma_gbps=40", "ddr_ratio=400", NULL };
  nb = bound_at(lg, slow);
  cr_assert_eq(nb.ddr_cycles, 4440);
  cr_assert_eq(nb.cycles, 4440);
  /* DDR far faster than the engines: two channels of 40 B/cycle move 80
   * B/cycle at most: ceil(444 / 80) = 6. Two bytes per element double the
   * bytes: ceil(888 / 80) = 12. */
  const char *fast[] = { "bytes_per_elem=2", "dma_channels=2", "freq_mhz=1000", "dma_gbps=40",
                         "ddr_ratio=0.01", NULL };
  nb = bound_at(lg, fast);
  cr_assert_eq(nb.ddr_bytes, 888);
  cr_assert_eq(nb.ddr_cycles, 12);
  free_graph(lg);
}

/* MobileNetV1 (shipped ONNX): 568,740,352 MACs (published), over 4 PEs x
 * 256: ceil(555,410.5) = 555,411. Bytes: its 4,231,976 parameters less the
 * 10,944 BatchNormalization scales folded into the weights (32 + the
 * depthwise 4,960 + the pointwise 5,952 channels), plus the 150,528-byte
 * input and the 1,000-byte output: 4,372,560 bytes at 8 GB/s and 700 MHz
 * (80/7 B/cycle): 382,599 cycles. At 16 PEs the MACs take 138,853 cycles
 * and DDR bounds the network. */
Test(netbound, mobilenet_v1_by_hand)
{
  struct acs_workload *w;
  struct acs_diag d;
  const char *four[] = { NULL }, *sixteen[] = { "pe_count=16", NULL };

  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(tu_path("workloads/onnx/mobilenet_v1.onnx"), &w, &d), ACS_OK,
               "%s", d.msg);
  struct acs_netbound nb = bound_at(acs_workload_lgraph(w), four);
  cr_assert_eq(nb.macs, 568740352);
  cr_assert_eq(nb.mac_cycles, 555411);
  cr_assert_eq(nb.ddr_bytes, 4372560);
  cr_assert_eq(nb.ddr_cycles, 382599);
  cr_assert_eq(nb.cycles, 555411);
  nb = bound_at(acs_workload_lgraph(w), sixteen);
  cr_assert_eq(nb.mac_cycles, 138853);
  cr_assert_eq(nb.cycles, 382599);
  acs_workload_free(w);
}

/* One Relu on [1, n]: its input and its output cross DDR, 2n bytes at one
 * byte an element. Past 2^24 elements summed over the axes of every tensor
 * the bound stops keeping a set per axis and counts only what is certainly
 * needed, the output: n bytes (still a bound, never above the truth). */
static struct acs_netbound relu_bound(int64_t n)
{
  struct acs_lgraph *lg = new_graph();
  int32_t in[] = { INPUT(lg, "x", 1, n) };
  static const uint8_t roles[] = { ACS_LR_DATA };
  struct acs_lattrs a;
  int32_t v, *out;

  memset(&a, 0, sizeof(a));
  v = node(lg, "r", ACS_LOP_RELU, &a, 1, in, roles, "y");
  out = acs_arena_calloc(&lg->arena, 1, sizeof(*out));
  const char *sets[] = { "bytes_per_elem=1", NULL };
  struct acs_netbound nb;

  cr_assert_not_null(out);
  out[0] = lg->n[v].out[0];
  lg->outputs = out;
  lg->noutputs = 1;
  lg->t[out[0]].is_output = 1;
  infer_ok(lg);
  nb = bound_at(lg, sets);
  free_graph(lg);
  return nb;
}

Test(netbound, huge_axes_count_only_the_outputs)
{
  struct acs_netbound nb = relu_bound(1024);
  cr_assert_eq(nb.macs, 0);
  cr_assert_eq(nb.ddr_bytes, 2048);
  nb = relu_bound(INT64_C(1) << 25);
  cr_assert_eq(nb.macs, 0);
  cr_assert_eq(nb.ddr_bytes, INT64_C(1) << 25);
}
