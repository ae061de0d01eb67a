/*
 * layer_region.c - which part of each input a region of a node's output
 * reads, and what computing that region costs.
 *
 * These are the per-op dependences a cascading scheduler propagates stripes
 * through (seed 002's affine transforms, with the clipping at the tensor
 * edges made explicit) and the ones the DNN builder tiles layers with. Every
 * input dim depends on at most one output dim (or on none), so a box maps to
 * a box.
 */
#include "config.h"

#include <string.h>

#include "core/model/layer.h"

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static void clip(struct acs_lbox *b, int i, int64_t lo, int64_t hi, int64_t dim)
{
  b->lo[i] = max64(lo, 0);
  b->hi[i] = min64(hi, dim);
  if (b->hi[i] < b->lo[i])
    b->hi[i] = b->lo[i];
}

static void full(struct acs_lbox *b, int i, int64_t dim)
{
  b->lo[i] = 0;
  b->hi[i] = dim;
}

static void set_empty(struct acs_lbox *b)
{
  for (int i = 0; i < b->rank; i++)
    b->lo[i] = b->hi[i] = 0;
}

/* Input range of a window (conv or pool) along spatial dim i for output
 * range [o0, o1): from o0 * s - pad_begin to (o1 - 1) * s - pad_begin +
 * extent, clipped to the input (the padding reads nothing). */
static void window_range(const struct acs_lattrs *a, int i, int64_t o0, int64_t o1,
                         int64_t in, int64_t *lo, int64_t *hi)
{
  int64_t ek = (a->kernel[i] - 1) * a->dilations[i] + 1;
  *lo = o0 * a->strides[i] - a->pads[i];
  *hi = (o1 - 1) * a->strides[i] - a->pads[i] + ek;
  if (*lo < 0)
    *lo = 0;
  if (*hi > in)
    *hi = in;
}

/* ConvTranspose: input i feeds outputs i * s - pad + k * d for k < K, so
 * output range [o0, o1) reads i from ceil((o0 + pad - (K-1) d) / s) to
 * floor((o1 - 1 + pad) / s). */
static void convt_range(const struct acs_lattrs *a, int i, int64_t o0, int64_t o1,
                        int64_t in, int64_t *lo, int64_t *hi)
{
  int64_t span = (a->kernel[i] - 1) * a->dilations[i];
  *lo = max64(0, acs_ceil_div_i64(o0 + a->pads[i] - span, a->strides[i]));
  *hi = min64(in, acs_floor_div_i64(o1 - 1 + a->pads[i], a->strides[i]) + 1);
  if (*hi < *lo)
    *hi = *lo;
}

/* Groups [g0, g1] that output channels [m0, m1) of m in `groups` touch. */
static void group_range(int64_t m0, int64_t m1, int64_t m, int64_t groups, int64_t *g0,
                        int64_t *g1)
{
  int64_t per = m / groups;
  *g0 = m0 / per;
  *g1 = (m1 - 1) / per;
}

static void conv_box(const struct acs_lgraph *lg, const struct acs_lnode *n, int slot,
                     const struct acs_lbox *out, const struct acs_ltensor *t,
                     struct acs_lbox *in)
{
  const struct acs_lattrs *a = &n->a;
  const struct acs_ltensor *o = &lg->t[n->out[0]];
  int transpose = n->op == ACS_LOP_CONV_TRANSPOSE;
  int64_t m = o->dims[1], g0, g1;
  group_range(out->lo[1], out->hi[1], m, a->group, &g0, &g1);
  if (slot == 2) { /* bias [M] */
    in->lo[0] = out->lo[1];
    in->hi[0] = out->hi[1];
    return;
  }
  if (slot == 1) { /* Conv [M, C/g, k...], ConvTranspose [C, M/g, k...] */
    for (int i = 0; i < t->rank; i++)
      full(in, i, t->dims[i]);
    if (!transpose) {
      in->lo[0] = out->lo[1];
      in->hi[0] = out->hi[1];
    } else {
      int64_t cg = t->dims[0] / a->group, mg = t->dims[1];
      in->lo[0] = g0 * cg;
      in->hi[0] = (g1 + 1) * cg;
      if (g0 == g1) {
        in->lo[1] = out->lo[1] - g0 * mg;
        in->hi[1] = out->hi[1] - g0 * mg;
      }
    }
    return;
  }
  int64_t cg = t->dims[1] / a->group;
  in->lo[0] = out->lo[0];
  in->hi[0] = out->hi[0];
  in->lo[1] = g0 * cg;
  in->hi[1] = (g1 + 1) * cg;
  for (int i = 0; i < a->nsp; i++) {
    int64_t lo, hi;
    if (transpose)
      convt_range(a, i, out->lo[2 + i], out->hi[2 + i], t->dims[2 + i], &lo, &hi);
    else
      window_range(a, i, out->lo[2 + i], out->hi[2 + i], t->dims[2 + i], &lo, &hi);
    clip(in, 2 + i, lo, hi, t->dims[2 + i]);
  }
}

/* Broadcasting: input dim j of rank r aligns with output dim j + (ro - r);
 * a dim of size 1 is read whole. */
static void broadcast_box(const struct acs_lbox *out, const struct acs_ltensor *t,
                          struct acs_lbox *in)
{
  for (int j = 0; j < t->rank; j++) {
    int oj = j + out->rank - t->rank;
    if (t->dims[j] == 1 || oj < 0) {
      full(in, j, t->dims[j]);
    } else {
      in->lo[j] = out->lo[oj];
      in->hi[j] = out->hi[oj];
    }
  }
}

static void gemm_box(const struct acs_lnode *n, int slot, const struct acs_lbox *out,
                     const struct acs_ltensor *t, struct acs_lbox *in)
{
  const struct acs_lattrs *a = &n->a;
  if (slot == 2) {
    broadcast_box(out, t, in);
    return;
  }
  int trans = slot == 0 ? a->trans_a : a->trans_b;
  int keep = slot == 0 ? 0 : 1;             /* output dim this operand follows */
  int dim = slot == 0 ? (trans ? 1 : 0) : (trans ? 0 : 1);
  full(in, 0, t->dims[0]);
  full(in, 1, t->dims[1]);
  in->lo[dim] = out->lo[keep];
  in->hi[dim] = out->hi[keep];
}

/* MatMul: A's rows follow the output's rows, B's columns its columns, the
 * batch dims broadcast, the reduction dim is read whole. */
static void matmul_box(const struct acs_lgraph *lg, const struct acs_lnode *n, int slot,
                       const struct acs_lbox *out, const struct acs_ltensor *t,
                       struct acs_lbox *in)
{
  const struct acs_ltensor *A = &lg->t[n->in[0]], *B = &lg->t[n->in[1]];
  int ro = out->rank;
  int has_m = A->rank != 1, has_n = B->rank != 1;
  int nbatch = ro - has_m - has_n;
  for (int j = 0; j < t->rank; j++)
    full(in, j, t->dims[j]);
  if (t->rank == 1)
    return; /* a promoted vector: its only dim is the reduction */
  int rows = t->rank - 2;
  for (int j = 0; j < rows; j++) {
    int oj = j + nbatch - rows;
    if (oj >= 0 && t->dims[j] != 1) {
      in->lo[j] = out->lo[oj];
      in->hi[j] = out->hi[oj];
    }
  }
  if (slot == 0) {
    in->lo[t->rank - 2] = out->lo[nbatch];
    in->hi[t->rank - 2] = out->hi[nbatch];
  } else {
    in->lo[t->rank - 1] = out->lo[ro - 1];
    in->hi[t->rank - 1] = out->hi[ro - 1];
  }
}

static void concat_box(const struct acs_lgraph *lg, const struct acs_lnode *n, int slot,
                       const struct acs_lbox *out, const struct acs_ltensor *t,
                       struct acs_lbox *in)
{
  int64_t ax = n->a.axis, off = 0;
  for (int k = 0; k < slot; k++)
    off += lg->t[n->in[k]].dims[ax];
  for (int j = 0; j < t->rank; j++) {
    in->lo[j] = out->lo[j];
    in->hi[j] = out->hi[j];
  }
  clip(in, (int)ax, out->lo[ax] - off, out->hi[ax] - off, t->dims[ax]);
}

/* Resize: the source coordinate of output o is about o * in / out under
 * every coordinate transformation mode; a margin of ceil(in / out) + 2
 * covers the offsets of the modes and the interpolation taps. */
static void resize_box(const struct acs_lgraph *lg, const struct acs_lnode *n,
                       const struct acs_lbox *out, const struct acs_ltensor *t,
                       struct acs_lbox *in)
{
  const struct acs_ltensor *o = &lg->t[n->out[0]];
  for (int j = 0; j < t->rank; j++) {
    int64_t di = t->dims[j], dout = o->dims[j];
    if (di == dout) {
      in->lo[j] = out->lo[j];
      in->hi[j] = out->hi[j];
      continue;
    }
    int64_t m = acs_ceil_div_i64(di, dout) + 2;
    /* o * di fits: both are below 2^60 (inference bounds the elements). */
    int64_t lo = (int64_t)((__int128)out->lo[j] * di / dout) - m;
    int64_t hi = (int64_t)((__int128)(out->hi[j] - 1) * di / dout) + 1 + m;
    clip(in, j, lo, hi, di);
  }
}

/* Pad: output o reads input o - pad_begin; reflect and edge modes read the
 * rows next to the edge for outputs in the padding. */
static void pad_box(const struct acs_lnode *n, const struct acs_lbox *out,
                    const struct acs_ltensor *t, struct acs_lbox *in)
{
  const struct acs_lattrs *a = &n->a;
  for (int j = 0; j < t->rank; j++) {
    int64_t b = a->pads[j], e = a->pads[t->rank + j], dim = t->dims[j];
    int64_t lo = out->lo[j] - b, hi = out->hi[j] - b;
    if (a->pad_mode != ACS_PAD_CONSTANT) {
      if (out->lo[j] < b)             /* reflect reads up to b + 1 rows */
        hi = max64(hi, min64(dim, b - out->lo[j] + 1)), lo = min64(lo, 0);
      if (out->hi[j] > b + dim && e > 0)
        lo = min64(lo, max64(0, dim - 1 - (out->hi[j] - b - dim))), hi = max64(hi, dim);
    }
    clip(in, j, lo, hi, dim);
  }
}

static int has_axis(const struct acs_lattrs *a, int64_t ax)
{
  for (int i = 0; i < a->naxes; i++)
    if (a->axes[i] == ax)
      return 1;
  return 0;
}

/* Squeeze and Unsqueeze only drop or add dims of size 1 (their axes are
 * normalized by inference): the other dims map one to one. */
static void squeeze_box(const struct acs_lnode *n, const struct acs_lbox *out,
                        const struct acs_ltensor *t, const struct acs_ltensor *o,
                        struct acs_lbox *in)
{
  const struct acs_lattrs *a = &n->a;
  if (n->op == ACS_LOP_SQUEEZE) {
    for (int j = 0, k = 0; j < t->rank; j++) {
      if (a->naxes ? has_axis(a, j) : t->dims[j] == 1) {
        full(in, j, 1);
      } else {
        in->lo[j] = out->lo[k];
        in->hi[j] = out->hi[k++];
      }
    }
    return;
  }
  for (int k = 0, j = 0; k < o->rank; k++)
    if (!has_axis(a, k)) {
      in->lo[j] = out->lo[k];
      in->hi[j++] = out->hi[k];
    }
}

/* Reductions read their reduced dims whole; the others map to the output
 * dims in order (at the same index with keepdims). */
static void reduce_box(const struct acs_lnode *n, const struct acs_lbox *out,
                       const struct acs_ltensor *t, struct acs_lbox *in)
{
  const struct acs_lattrs *a = &n->a;
  for (int j = 0, k = 0; j < t->rank; j++) {
    int red = a->naxes ? has_axis(a, j) : !a->noop_empty;
    if (!red) {
      in->lo[j] = out->lo[k];
      in->hi[j] = out->hi[k];
    }
    k += !red || a->keepdims;
  }
}

int acs_lnode_input_box(const struct acs_lgraph *lg, int32_t node, int slot,
                        const struct acs_lbox *out, struct acs_lbox *in)
{
  const struct acs_lnode *n = &lg->n[node];
  if (slot < 0 || slot >= n->nin)
    return ACS_EINVAL;
  if (n->in[slot] < 0) {
    in->rank = 0;
    return ACS_OK;
  }
  const struct acs_ltensor *t = &lg->t[n->in[slot]], *o = &lg->t[n->out[0]];
  in->rank = t->rank;
  for (int j = 0; j < t->rank; j++)
    full(in, j, t->dims[j]);
  if (acs_lbox_elems(out) == 0) {
    set_empty(in);
    return ACS_OK;
  }
  if (n->role[slot] == ACS_LR_PARAM)
    return ACS_OK;
  switch (acs_lop_class(n->op)) {
  case ACS_LC_CONV:
    conv_box(lg, n, slot, out, t, in);
    break;
  case ACS_LC_MATMUL:
    if (n->op == ACS_LOP_GEMM)
      gemm_box(n, slot, out, t, in);
    else
      matmul_box(lg, n, slot, out, t, in);
    break;
  case ACS_LC_POOL:
    for (int i = 0; i < 2; i++) {
      in->lo[i] = out->lo[i];
      in->hi[i] = out->hi[i];
    }
    for (int i = 0; i < n->a.nsp; i++) {
      int64_t lo, hi;
      window_range(&n->a, i, out->lo[2 + i], out->hi[2 + i], t->dims[2 + i], &lo, &hi);
      clip(in, 2 + i, lo, hi, t->dims[2 + i]);
    }
    break;
  case ACS_LC_GLOBAL_POOL:
    for (int i = 0; i < 2; i++) {
      in->lo[i] = out->lo[i];
      in->hi[i] = out->hi[i];
    }
    break;
  case ACS_LC_BINARY:
    if (n->op == ACS_LOP_PRELU && slot == 1 && n->a.prelu_channel && t->rank == 1 &&
        out->rank >= 2) {
      if (t->dims[0] != 1) {
        in->lo[0] = out->lo[1];
        in->hi[0] = out->hi[1];
      }
      break;
    }
    broadcast_box(out, t, in);
    break;
  case ACS_LC_REDUCE:
    reduce_box(n, out, t, in);
    break;
  case ACS_LC_NORM:
    if (slot > 0) {
      in->lo[0] = out->lo[1];
      in->hi[0] = out->hi[1];
      break;
    }
    /* fall through */
  case ACS_LC_UNARY:
    if (slot == 0)
      memcpy(in, out, sizeof(*in));
    break;
  case ACS_LC_CONCAT:
    concat_box(lg, n, slot, out, t, in);
    break;
  case ACS_LC_RESIZE:
    if (slot == 0)
      resize_box(lg, n, out, t, in);
    break;
  case ACS_LC_VIEW:
    if (slot != 0)
      break;
    if (n->op == ACS_LOP_IDENTITY || n->op == ACS_LOP_DROPOUT)
      memcpy(in, out, sizeof(*in));
    else if (n->op == ACS_LOP_SQUEEZE || n->op == ACS_LOP_UNSQUEEZE)
      squeeze_box(n, out, t, o, in);
    /* Reshape, Flatten: the whole input (a box of the output is not a box
     * of the input in general) */
    break;
  case ACS_LC_TRANSPOSE:
    for (int i = 0; i < out->rank; i++) {
      in->lo[n->a.perm[i]] = out->lo[i];
      in->hi[n->a.perm[i]] = out->hi[i];
    }
    break;
  case ACS_LC_PAD:
    pad_box(n, out, t, in);
    break;
  case ACS_LC_SOFTMAX:
    memcpy(in, out, sizeof(*in));
    for (int i = (int)n->a.axis; i < (n->a.axis_to_end ? t->rank : n->a.axis + 1); i++)
      full(in, i, t->dims[i]);
    break;
  default:
    return ACS_EINVAL;
  }
  if (acs_lbox_elems(in) == 0)
    set_empty(in);
  return ACS_OK;
}

/* ---- work ---- */

/* Pairs (input i, tap k) of a ConvTranspose along spatial dim sp that land
 * in output range [o0, o1): for each tap, the inputs i with
 * o0 <= i * s - pad + k * d < o1 and 0 <= i < in. O(kernel). */
static int64_t convt_pairs(const struct acs_lattrs *a, int sp, int64_t o0, int64_t o1,
                           int64_t in)
{
  int64_t s = a->strides[sp], count = 0;
  for (int64_t k = 0; k < a->kernel[sp]; k++) {
    int64_t off = k * a->dilations[sp] - a->pads[sp];
    int64_t lo = max64(0, acs_ceil_div_i64(o0 - off, s));
    int64_t hi = min64(in - 1, acs_floor_div_i64(o1 - 1 - off, s));
    if (hi >= lo)
      count += hi - lo + 1;
  }
  return count;
}

static int mul_into(int64_t *acc, int64_t f)
{
  return acs_mul_i64(*acc, f, acc);
}

/* Operations per output element of the classes costed that way. */
static int per_element(const struct acs_lgraph *lg, const struct acs_lnode *n, int64_t *per)
{
  const struct acs_ltensor *x = n->in[0] >= 0 ? &lg->t[n->in[0]] : NULL;
  *per = 1;
  switch (acs_lop_class(n->op)) {
  case ACS_LC_CONV: /* Conv: C/g x kernel taps; padding taps count, as published MACs do */
    if (mul_into(per, x->dims[1] / n->a.group))
      return ACS_ERANGE;
    for (int i = 0; i < n->a.nsp; i++)
      if (mul_into(per, n->a.kernel[i]))
        return ACS_ERANGE;
    return ACS_OK;
  case ACS_LC_MATMUL: { /* the reduction length */
    if (n->op == ACS_LOP_GEMM)
      *per = x->dims[n->a.trans_a ? 0 : 1];
    else
      *per = x->dims[x->rank - 1];
    return ACS_OK;
  }
  case ACS_LC_POOL:
    for (int i = 0; i < n->a.nsp; i++)
      if (mul_into(per, n->a.kernel[i]))
        return ACS_ERANGE;
    return ACS_OK;
  case ACS_LC_GLOBAL_POOL:
    for (int i = 2; i < x->rank; i++)
      if (mul_into(per, x->dims[i]))
        return ACS_ERANGE;
    return ACS_OK;
  case ACS_LC_RESIZE: { /* interpolation taps over the resized dims */
    const struct acs_ltensor *o = &lg->t[n->out[0]];
    int64_t taps = n->a.resize_mode == ACS_RESIZE_CUBIC ? 4
                 : n->a.resize_mode == ACS_RESIZE_LINEAR ? 2 : 1;
    for (int i = 0; i < x->rank; i++)
      if (x->dims[i] != o->dims[i] && mul_into(per, taps))
        return ACS_ERANGE;
    return ACS_OK;
  }
  case ACS_LC_SOFTMAX: /* exp, sum, divide */
    *per = 3;
    return ACS_OK;
  case ACS_LC_REDUCE: { /* the elements reduced into each output */
    const struct acs_ltensor *o = &lg->t[n->out[0]];
    *per = acs_ltensor_elems(x) / acs_ltensor_elems(o);
    return ACS_OK;
  }
  case ACS_LC_BINARY: { /* one operation per extra operand */
    int ops = 0;
    for (int k = 1; k < n->nin; k++)
      ops += n->in[k] >= 0;
    *per = ops > 1 ? ops : 1;
    return ACS_OK;
  }
  default: /* elementwise, normalization, copies */
    return ACS_OK;
  }
}

int acs_lnode_work(const struct acs_lgraph *lg, int32_t node, const struct acs_lbox *out,
                   int64_t *work)
{
  const struct acs_lnode *n = &lg->n[node];
  int64_t elems = acs_lbox_elems(out), per;
  *work = 0;
  if (elems == 0 || acs_lnode_is_view(lg, node))
    return ACS_OK;
  if (elems == INT64_MAX)
    return ACS_ERANGE;
  if (n->op == ACS_LOP_CONV_TRANSPOSE) {
    const struct acs_ltensor *x = &lg->t[n->in[0]];
    int64_t w = out->hi[0] - out->lo[0];
    if (mul_into(&w, out->hi[1] - out->lo[1]) || mul_into(&w, x->dims[1] / n->a.group))
      return ACS_ERANGE;
    for (int i = 0; i < n->a.nsp; i++)
      if (mul_into(&w, convt_pairs(&n->a, i, out->lo[2 + i], out->hi[2 + i], x->dims[2 + i])))
        return ACS_ERANGE;
    *work = w;
    return ACS_OK;
  }
  int rc = per_element(lg, n, &per);
  if (rc != 0)
    return rc;
  return acs_mul_i64(elems, per, work) != 0 ? ACS_ERANGE : ACS_OK;
}
