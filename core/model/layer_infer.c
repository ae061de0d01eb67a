/*
 * layer_infer.c - shape inference of the layer graph.
 *
 * Nodes are visited in topological order; each op class checks its inputs
 * and attributes against the ONNX operator definition and sets the shapes
 * of its outputs. The rules are ONNX's (onnx/defs, opsets 1 to 17), written
 * from the operator documentation; where ONNX leaves a choice (the padding
 * of ConvTranspose with output_shape) the comment says which rule is taken.
 * Errors name the node, its op and the file: "node 'conv1' (Conv): ...".
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/model/layer.h"

/* Every tensor's bytes must fit in 64 bits at this many bytes per element,
 * so the builder's byte counts cannot overflow for any element size up to it. */
#define MAX_ELEM_BYTES 16

struct ictx {
  struct acs_lgraph *lg;
  struct acs_diag *d;
  int32_t v;
  struct acs_lnode *n;
};

static int nerr(struct ictx *c, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int nerr(struct ictx *c, int err, const char *fmt, ...)
{
  char nb[128], msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  acs_lname_mask(c->n->name, nb, sizeof(nb));
  return acs_diag_set(c->d, err, c->lg->path, 0, 0, "node '%s' (%s): %s", nb,
                      acs_lop_name(c->n->op), msg);
}

int acs_ldtype_bytes(int dtype)
{
  /* TensorProto.DataType: FLOAT=1 UINT8 INT8 UINT16 INT16 INT32 INT64 STRING
   * BOOL FLOAT16 DOUBLE UINT32 UINT64 COMPLEX64 COMPLEX128 BFLOAT16=16. */
  static const int bytes[17] = { 0, 4, 1, 1, 2, 2, 4, 8, 0, 1, 2, 8, 4, 8, 8, 16, 2 };
  return dtype > 0 && dtype < 17 ? bytes[dtype] : 0;
}

/* The tensor in input slot k, or NULL when the slot is absent. */
static const struct acs_ltensor *in_t(struct ictx *c, int k)
{
  return k < c->n->nin && c->n->in[k] >= 0 ? &c->lg->t[c->n->in[k]] : NULL;
}

static void shape_str(const int64_t *dims, int rank, char *buf, size_t size)
{
  struct acs_ltensor t;
  memset(&t, 0, sizeof(t));
  acs_ltensor_set_shape(&t, rank, dims);
  acs_ltensor_shape_text(&t, buf, size);
}

/* Input slot k, which must be present, shaped and of rank in [lo, hi]. */
static int need_in(struct ictx *c, int k, const char *what, int lo, int hi,
                   const struct acs_ltensor **out)
{
  const struct acs_ltensor *t = in_t(c, k);
  char tb[128], sb[160];
  *out = t;
  if (!t)
    return nerr(c, ACS_EPARSE, "missing input %d (%s)", k + 1, what);
  acs_lname_mask(t->name, tb, sizeof(tb));
  if (!t->shaped)
    return nerr(c, ACS_EPARSE, "input '%s' has no known shape", tb);
  if (t->rank < lo || t->rank > hi) {
    shape_str(t->dims, t->rank, sb, sizeof(sb));
    if (lo == hi)
      return nerr(c, ACS_EPARSE, "%s '%s' must have rank %d, has %s", what, tb, lo, sb);
    return nerr(c, ACS_EPARSE, "%s '%s' must have rank %d to %d, has %s", what, tb, lo,
                hi, sb);
  }
  return ACS_OK;
}

/* An attribute of one value per dimension of an input of rank `rank`. */
static int need_per_dim(struct ictx *c, const char *attr, int nvals, int rank)
{
  if (nvals != rank)
    return nerr(c, ACS_EPARSE, "%s has %d values for rank %d", attr, nvals, rank);
  return ACS_OK;
}

/* Sets output k (if present) to dims, with the data type of `like`. */
static int set_out(struct ictx *c, int k, int rank, const int64_t *dims, int dtype)
{
  if (k >= c->n->nout || c->n->out[k] < 0)
    return ACS_OK;
  struct acs_ltensor *t = &c->lg->t[c->n->out[k]];
  int64_t e = 1;
  for (int i = 0; i < rank; i++) {
    if (dims[i] < 1) {
      char sb[160];
      shape_str(dims, rank, sb, sizeof(sb));
      return nerr(c, ACS_EPARSE, "output %s would have a dimension below 1 (empty "
                  "tensors are not supported)", sb);
    }
    if (acs_mul_i64(e, dims[i], &e) != 0 || e > INT64_MAX / MAX_ELEM_BYTES)
      return nerr(c, ACS_ERANGE, "output has more than %lld elements",
                  (long long)(INT64_MAX / MAX_ELEM_BYTES));
  }
  acs_ltensor_set_shape(t, rank, dims);
  t->dtype = dtype;
  t->elem_bytes = acs_ldtype_bytes(dtype);
  return ACS_OK;
}

/* Normalizes an axis in [-r, r + extra - 1] to [0, r + extra). */
static int norm_axis(struct ictx *c, int64_t axis, int r, int extra, const char *what,
                     int64_t *out)
{
  int64_t n = (int64_t)r + extra;
  if (axis < -n || axis >= n)
    return nerr(c, ACS_EPARSE, "%s %lld is out of range for rank %d", what,
                (long long)axis, r);
  *out = axis < 0 ? axis + n : axis;
  return ACS_OK;
}

/* Checks a per-spatial-dim attribute's count and minimum; fills the default. */
static int spatial_attr(struct ictx *c, const char *name, int count, int64_t *v, int nsp,
                        int64_t def, int64_t min)
{
  if (count == 0) {
    for (int i = 0; i < nsp; i++)
      v[i] = def;
    return ACS_OK;
  }
  if (count != nsp)
    return nerr(c, ACS_EPARSE, "%s has %d values for %d spatial dimensions", name, count, nsp);
  for (int i = 0; i < nsp; i++)
    if (v[i] < min)
      return nerr(c, ACS_EPARSE, "%s[%d] = %lld must be at least %lld", name, i,
                  (long long)v[i], (long long)min);
  return ACS_OK;
}

/* Effective kernel extent (k - 1) * d + 1, overflow-checked. */
static int eff_kernel(struct ictx *c, int i, int64_t *out)
{
  struct acs_lattrs *a = &c->n->a;
  int64_t e;
  if (acs_mul_i64(a->kernel[i] - 1, a->dilations[i], &e) != 0 || e > INT64_MAX / 4)
    return nerr(c, ACS_ERANGE, "kernel %lld with dilation %lld overflows",
                (long long)a->kernel[i], (long long)a->dilations[i]);
  *out = e + 1;
  return ACS_OK;
}

/* Strides, dilations and pads of a convolution or pool over nsp dims. */
static int window_attrs(struct ictx *c, int nsp, int pads_min_zero)
{
  struct acs_lattrs *a = &c->n->a;
  int rc;
  a->nsp = nsp;
  if ((rc = spatial_attr(c, "strides", a->nstrides, a->strides, nsp, 1, 1)) != 0 ||
      (rc = spatial_attr(c, "dilations", a->ndilations, a->dilations, nsp, 1, 1)) != 0)
    return rc;
  a->nstrides = a->ndilations = nsp;
  if (a->auto_pad == ACS_AUTO_PAD_VALID)
    a->npads = 0;
  if (a->npads == 0) {
    for (int i = 0; i < 2 * nsp; i++)
      a->pads[i] = 0;
  } else if (a->npads != 2 * nsp) {
    return nerr(c, ACS_EPARSE, "pads has %d values for %d spatial dimensions (want %d)",
                a->npads, nsp, 2 * nsp);
  } else if (pads_min_zero) {
    for (int i = 0; i < 2 * nsp; i++)
      if (a->pads[i] < 0)
        return nerr(c, ACS_EPARSE, "pads[%d] = %lld is negative", i, (long long)a->pads[i]);
  }
  for (int i = 0; i < 2 * nsp; i++)
    if (a->pads[i] > INT64_MAX / 8 || a->pads[i] < -(INT64_MAX / 8))
      return nerr(c, ACS_ERANGE, "pads[%d] = %lld is out of range", i, (long long)a->pads[i]);
  for (int i = 0; i < nsp; i++)
    if (a->strides[i] > INT64_MAX / 8)
      return nerr(c, ACS_ERANGE, "strides[%d] is out of range", i);
  a->npads = 2 * nsp;
  return ACS_OK;
}

/*
 * Output size of a window over one dim: SAME pads so the output is
 * ceil(in / s) (the odd pixel after for SAME_UPPER, before for SAME_LOWER);
 * otherwise floor (or, for pools with ceil_mode, ceil) of
 * (in + pads - extent) / s, plus one.
 */
static int window_out(struct ictx *c, int i, int64_t in, int64_t *out)
{
  struct acs_lattrs *a = &c->n->a;
  int64_t ek = 0, s = a->strides[i];
  int rc = eff_kernel(c, i, &ek);
  if (rc != 0)
    return rc;
  if (a->auto_pad == ACS_AUTO_PAD_SAME_UPPER || a->auto_pad == ACS_AUTO_PAD_SAME_LOWER) {
    int64_t o = in / s + (in % s != 0);
    int64_t total = (o - 1) * s + ek - in;
    if (total < 0)
      total = 0;
    a->pads[i] = a->auto_pad == ACS_AUTO_PAD_SAME_UPPER ? total / 2 : total - total / 2;
    a->pads[a->nsp + i] = total - a->pads[i];
    *out = o;
    return ACS_OK;
  }
  int64_t num = in + a->pads[i] + a->pads[a->nsp + i] - ek;
  if (num < 0)
    return nerr(c, ACS_EPARSE, "the window (extent %lld) is larger than the padded input "
                "(%lld) along spatial dimension %d", (long long)ek,
                (long long)(in + a->pads[i] + a->pads[a->nsp + i]), i);
  *out = (a->ceil_mode ? num / s + (num % s != 0) : num / s) + 1;
  return ACS_OK;
}

/*
 * ConvTranspose output sizes: s * (in - 1) + output_padding + extent -
 * pads. With output_shape (or auto_pad SAME, which asks for in * s) the
 * output is given and the pads follow from it, split as ONNX documents:
 * the odd one at the end for SAME_UPPER, at the start otherwise. They may
 * come out negative (an output larger than the natural one).
 */
static int convt_out(struct ictx *c, const struct acs_ltensor *x, int64_t *out)
{
  struct acs_lattrs *a = &c->n->a;
  int nsp = a->nsp, rc;
  if ((rc = spatial_attr(c, "output_padding", a->nout_pad, a->out_pad, nsp, 0, 0)) != 0)
    return rc;
  a->nout_pad = nsp;
  if (a->nout_shape && a->nout_shape != nsp && a->nout_shape != nsp + 2)
    return nerr(c, ACS_EPARSE, "output_shape has %d values for %d spatial dimensions",
                a->nout_shape, nsp);
  int off = a->nout_shape == nsp + 2 ? 2 : 0;
  int same = a->auto_pad == ACS_AUTO_PAD_SAME_UPPER || a->auto_pad == ACS_AUTO_PAD_SAME_LOWER;
  for (int i = 0; i < nsp; i++) {
    int64_t ek = 0, in = x->dims[2 + i], s = a->strides[i], natural, o;
    if ((rc = eff_kernel(c, i, &ek)) != 0)
      return rc;
    if (a->out_pad[i] > INT64_MAX / 8 || acs_mul_i64(s, in - 1, &natural) != 0 ||
        natural > INT64_MAX / 4)
      return nerr(c, ACS_ERANGE, "output size overflows along spatial dimension %d", i);
    natural += a->out_pad[i] + ek;
    if (a->nout_shape || same) {
      if (a->nout_shape)
        o = a->out_shape[off + i];
      else if (acs_mul_i64(in, s, &o) != 0)
        return nerr(c, ACS_ERANGE, "output size overflows along spatial dimension %d", i);
      if (o < 1 || o > INT64_MAX / 4)
        return nerr(c, ACS_EPARSE, "output_shape[%d] = %lld is out of range", i, (long long)o);
      int64_t total = natural - o;
      a->pads[i] = a->auto_pad == ACS_AUTO_PAD_SAME_UPPER ? total / 2 : total - total / 2;
      a->pads[nsp + i] = total - a->pads[i];
    } else {
      o = natural - a->pads[i] - a->pads[nsp + i];
    }
    out[2 + i] = o;
  }
  return set_out(c, 0, x->rank, out, x->dtype);
}

static int infer_conv(struct ictx *c)
{
  struct acs_lattrs *a = &c->n->a;
  const struct acs_ltensor *x, *w, *b;
  int64_t out[ACS_LAYER_MAX_RANK];
  int rc;
  int transpose = c->n->op == ACS_LOP_CONV_TRANSPOSE;

  if ((rc = need_in(c, 0, "input", 3, ACS_LAYER_MAX_RANK, &x)) != 0 ||
      (rc = need_in(c, 1, "weights", x->rank, x->rank, &w)) != 0)
    return rc;
  int nsp = x->rank - 2;
  if (a->group == 0)
    a->group = 1;
  if (a->group < 1)
    return nerr(c, ACS_EPARSE, "group %lld must be at least 1", (long long)a->group);
  if (a->nkernel) {
    if (a->nkernel != nsp)
      return nerr(c, ACS_EPARSE, "kernel_shape has %d values for %d spatial dimensions",
                  a->nkernel, nsp);
    for (int i = 0; i < nsp; i++)
      if (a->kernel[i] != w->dims[2 + i])
        return nerr(c, ACS_EPARSE, "kernel_shape[%d] = %lld but the weights have %lld", i,
                    (long long)a->kernel[i], (long long)w->dims[2 + i]);
  }
  for (int i = 0; i < nsp; i++)
    a->kernel[i] = w->dims[2 + i];
  a->nkernel = nsp;
  if ((rc = window_attrs(c, nsp, !transpose)) != 0)
    return rc;
  int64_t cin = x->dims[1], m;
  if (!transpose) {
    if (acs_mul_i64(w->dims[1], a->group, &m) != 0 || m != cin)
      return nerr(c, ACS_EPARSE, "input has %lld channels but the weights expect %lld x "
                  "group %lld", (long long)cin, (long long)w->dims[1], (long long)a->group);
    m = w->dims[0];
    if (m % a->group != 0)
      return nerr(c, ACS_EPARSE, "%lld filters do not divide into %lld groups",
                  (long long)m, (long long)a->group);
  } else {
    if (w->dims[0] != cin)
      return nerr(c, ACS_EPARSE, "input has %lld channels but the weights have %lld",
                  (long long)cin, (long long)w->dims[0]);
    if (cin % a->group != 0)
      return nerr(c, ACS_EPARSE, "%lld input channels do not divide into %lld groups",
                  (long long)cin, (long long)a->group);
    if (acs_mul_i64(w->dims[1], a->group, &m) != 0)
      return nerr(c, ACS_ERANGE, "output channels overflow");
  }
  if ((b = in_t(c, 2)) != NULL) {
    if (!b->shaped || b->rank != 1 || b->dims[0] != m)
      return nerr(c, ACS_EPARSE, "bias must have shape %lld", (long long)m);
  }
  out[0] = x->dims[0];
  out[1] = m;
  if (!transpose) {
    for (int i = 0; i < nsp; i++)
      if ((rc = window_out(c, i, x->dims[2 + i], &out[2 + i])) != 0)
        return rc;
    return set_out(c, 0, x->rank, out, x->dtype);
  }
  return convt_out(c, x, out);
}

static int infer_pool(struct ictx *c)
{
  struct acs_lattrs *a = &c->n->a;
  const struct acs_ltensor *x;
  int64_t out[ACS_LAYER_MAX_RANK];
  int rc = need_in(c, 0, "input", 3, ACS_LAYER_MAX_RANK, &x);
  if (rc != 0)
    return rc;
  int nsp = x->rank - 2;
  if (a->nkernel != nsp)
    return nerr(c, ACS_EPARSE, "kernel_shape has %d values for %d spatial dimensions",
                a->nkernel, nsp);
  for (int i = 0; i < nsp; i++)
    if (a->kernel[i] < 1)
      return nerr(c, ACS_EPARSE, "kernel_shape[%d] = %lld must be at least 1", i,
                  (long long)a->kernel[i]);
  if ((rc = window_attrs(c, nsp, 1)) != 0)
    return rc;
  out[0] = x->dims[0];
  out[1] = x->dims[1];
  for (int i = 0; i < nsp; i++)
    if ((rc = window_out(c, i, x->dims[2 + i], &out[2 + i])) != 0)
      return rc;
  rc = set_out(c, 0, x->rank, out, x->dtype);
  return rc == 0 ? set_out(c, 1, x->rank, out, 7 /* INT64 indices */) : rc;
}

static int infer_global_pool(struct ictx *c)
{
  const struct acs_ltensor *x;
  int64_t out[ACS_LAYER_MAX_RANK];
  int rc = need_in(c, 0, "input", 3, ACS_LAYER_MAX_RANK, &x);
  if (rc != 0)
    return rc;
  for (int i = 0; i < x->rank; i++)
    out[i] = i < 2 ? x->dims[i] : 1;
  return set_out(c, 0, x->rank, out, x->dtype);
}

static int infer_gemm(struct ictx *c)
{
  struct acs_lattrs *a = &c->n->a;
  const struct acs_ltensor *A, *B, *C;
  int rc;
  if ((rc = need_in(c, 0, "A", 2, 2, &A)) != 0 || (rc = need_in(c, 1, "B", 2, 2, &B)) != 0)
    return rc;
  int64_t m = A->dims[a->trans_a ? 1 : 0], k = A->dims[a->trans_a ? 0 : 1];
  int64_t kb = B->dims[a->trans_b ? 1 : 0], n = B->dims[a->trans_b ? 0 : 1];
  if (k != kb)
    return nerr(c, ACS_EPARSE, "A has %lld columns (transA %d) but B has %lld rows "
                "(transB %d)", (long long)k, a->trans_a, (long long)kb, a->trans_b);
  int64_t out[2] = { m, n };
  if ((C = in_t(c, 2)) != NULL) {
    if (!C->shaped || C->rank > 2)
      return nerr(c, ACS_EPARSE, "C must broadcast to %lldx%lld", (long long)m, (long long)n);
    for (int i = 0; i < C->rank; i++) {
      int64_t want = out[2 - C->rank + i];
      if (C->dims[i] != 1 && C->dims[i] != want)
        return nerr(c, ACS_EPARSE, "C does not broadcast to %lldx%lld", (long long)m,
                    (long long)n);
    }
  }
  return set_out(c, 0, 2, out, A->dtype);
}

/* Numpy broadcasting of the dims of a (rank ra) and b (rank rb) into out,
 * aligned at the right; -1 when some pair is neither equal nor 1. */
static int broadcast(const int64_t *a, int ra, const int64_t *b, int rb, int64_t *out,
                     int *rout)
{
  int r = ra > rb ? ra : rb;
  for (int i = 0; i < r; i++) {
    int64_t x = i - (r - ra) >= 0 ? a[i - (r - ra)] : 1;
    int64_t y = i - (r - rb) >= 0 ? b[i - (r - rb)] : 1;
    if (x != y && x != 1 && y != 1)
      return -1;
    out[i] = x == 1 ? y : x;
  }
  *rout = r;
  return 0;
}

/* MatMul as numpy.matmul: 1-D operands are promoted and the added dim
 * removed again; the batch dims broadcast. */
static int infer_matmul(struct ictx *c)
{
  const struct acs_ltensor *A, *B;
  int64_t pa[ACS_LAYER_MAX_RANK], pb[ACS_LAYER_MAX_RANK], out[ACS_LAYER_MAX_RANK];
  int rc, rb;
  if ((rc = need_in(c, 0, "A", 1, ACS_LAYER_MAX_RANK, &A)) != 0 ||
      (rc = need_in(c, 1, "B", 1, ACS_LAYER_MAX_RANK, &B)) != 0)
    return rc;
  int ra = A->rank == 1 ? 2 : A->rank, rbb = B->rank == 1 ? 2 : B->rank;
  if (A->rank == 1) {
    pa[0] = 1;
    pa[1] = A->dims[0];
  } else {
    memcpy(pa, A->dims, sizeof(int64_t) * (size_t)ra);
  }
  if (B->rank == 1) {
    pb[0] = B->dims[0];
    pb[1] = 1;
  } else {
    memcpy(pb, B->dims, sizeof(int64_t) * (size_t)rbb);
  }
  if (pa[ra - 1] != pb[rbb - 2])
    return nerr(c, ACS_EPARSE, "A has %lld columns but B has %lld rows",
                (long long)pa[ra - 1], (long long)pb[rbb - 2]);
  if (broadcast(pa, ra - 2, pb, rbb - 2, out, &rb) != 0)
    return nerr(c, ACS_EPARSE, "the batch dimensions of A and B do not broadcast");
  int r = rb;
  if (A->rank != 1)
    out[r++] = pa[ra - 2];
  if (B->rank != 1)
    out[r++] = pb[rbb - 1];
  if (r > ACS_LAYER_MAX_RANK)
    return nerr(c, ACS_EPARSE, "output rank exceeds %d", ACS_LAYER_MAX_RANK);
  return set_out(c, 0, r, out, A->dtype);
}

/* Multidirectional broadcasting of every input (two for Add, Sub, Mul,
 * Div, Pow; one or more for Sum, Max, Min, Mean). PRelu broadcasts its
 * slope to X only, or before opset 7 applies C slopes along dim 1. */
static int infer_binary(struct ictx *c)
{
  const struct acs_ltensor *A, *B;
  int64_t out[ACS_LAYER_MAX_RANK];
  int rc, r;
  char sa[160], sb[160];
  int two = c->n->op != ACS_LOP_SUM && c->n->op != ACS_LOP_MAX && c->n->op != ACS_LOP_MIN &&
            c->n->op != ACS_LOP_MEAN;
  if ((rc = need_in(c, 0, "input 1", 0, ACS_LAYER_MAX_RANK, &A)) != 0)
    return rc;
  if (two && c->n->nin != 2)
    return nerr(c, ACS_EPARSE, "needs 2 inputs, has %d", c->n->nin);
  r = A->rank;
  memcpy(out, A->dims, sizeof(int64_t) * (size_t)r);
  shape_str(A->dims, A->rank, sa, sizeof(sa));
  for (int k = 1; k < c->n->nin; k++) {
    int64_t prev[ACS_LAYER_MAX_RANK];
    int rp = r;
    if ((rc = need_in(c, k, "input", 0, ACS_LAYER_MAX_RANK, &B)) != 0)
      return rc;
    shape_str(B->dims, B->rank, sb, sizeof(sb));
    if (c->n->op == ACS_LOP_PRELU && c->n->a.prelu_channel && B->rank == 1 && A->rank >= 2 &&
        (B->dims[0] == A->dims[1] || B->dims[0] == 1))
      break; /* the legacy per-channel slope */
    memcpy(prev, out, sizeof(prev));
    if (broadcast(prev, rp, B->dims, B->rank, out, &r) != 0)
      return nerr(c, ACS_EPARSE, "shapes %s and %s do not broadcast", sa, sb);
    if (c->n->op == ACS_LOP_PRELU &&
        (r != A->rank || memcmp(out, A->dims, sizeof(int64_t) * (size_t)r) != 0))
      return nerr(c, ACS_EPARSE, "slope %s does not broadcast to the input %s", sb, sa);
  }
  return set_out(c, 0, r, out, A->dtype);
}

static int infer_same(struct ictx *c)
{
  const struct acs_ltensor *x;
  int rc = need_in(c, 0, "input", 0, ACS_LAYER_MAX_RANK, &x);
  if (rc != 0)
    return rc;
  for (int k = 1; k < c->n->nout; k++)
    if (c->n->out[k] >= 0 && c->n->op != ACS_LOP_DROPOUT)
      return nerr(c, ACS_EPARSE, "output %d is not supported", k + 1);
  rc = set_out(c, 0, x->rank, x->dims, c->n->op == ACS_LOP_CAST ? c->n->a.to_dtype : x->dtype);
  return rc == 0 ? set_out(c, 1, x->rank, x->dims, 9 /* BOOL mask */) : rc;
}

/* Reductions over `axes` (every dim when none are given, unless
 * noop_with_empty_axes), keeping them as dims of size 1 with keepdims. */
static int infer_reduce(struct ictx *c)
{
  struct acs_lattrs *a = &c->n->a;
  const struct acs_ltensor *x;
  int64_t out[ACS_LAYER_MAX_RANK], ax = 0;
  uint8_t red[ACS_LAYER_MAX_RANK] = { 0 };
  int rc = need_in(c, 0, "input", 0, ACS_LAYER_MAX_RANK, &x), r = 0;
  if (rc != 0)
    return rc;
  for (int i = 0; i < a->naxes; i++) {
    if ((rc = norm_axis(c, a->axes[i], x->rank, 0, "axes", &ax)) != 0)
      return rc;
    if (red[ax])
      return nerr(c, ACS_EPARSE, "axis %lld is repeated", (long long)ax);
    red[ax] = 1;
    a->axes[i] = ax;
  }
  if (a->naxes == 0 && !a->noop_empty)
    for (int i = 0; i < x->rank; i++)
      red[i] = 1;
  for (int i = 0; i < x->rank; i++)
    if (!red[i])
      out[r++] = x->dims[i];
    else if (a->keepdims)
      out[r++] = 1;
  int arg = c->n->op == ACS_LOP_ARGMAX || c->n->op == ACS_LOP_ARGMIN;
  return set_out(c, 0, r, out, arg ? 7 /* INT64 */ : x->dtype);
}

static int infer_norm(struct ictx *c)
{
  const struct acs_ltensor *x, *p;
  static const char *const what[] = { "", "scale", "B", "mean", "var" };
  int rc = need_in(c, 0, "input", 2, ACS_LAYER_MAX_RANK, &x);
  if (rc != 0)
    return rc;
  for (int k = 1; k <= 4; k++) {
    if ((rc = need_in(c, k, what[k], 1, 1, &p)) != 0)
      return rc;
    if (p->dims[0] != x->dims[1])
      return nerr(c, ACS_EPARSE, "%s has %lld values for %lld channels", what[k],
                  (long long)p->dims[0], (long long)x->dims[1]);
  }
  for (int k = 1; k < c->n->nout; k++)
    if (c->n->out[k] >= 0)
      return nerr(c, ACS_EPARSE, "training mode (output %d) is not supported", k + 1);
  return set_out(c, 0, x->rank, x->dims, x->dtype);
}

static int infer_concat(struct ictx *c)
{
  struct acs_lattrs *a = &c->n->a;
  const struct acs_ltensor *x0, *x;
  int64_t out[ACS_LAYER_MAX_RANK];
  int rc;
  if (c->n->nin < 1)
    return nerr(c, ACS_EPARSE, "no inputs");
  if ((rc = need_in(c, 0, "input", 1, ACS_LAYER_MAX_RANK, &x0)) != 0 ||
      (rc = norm_axis(c, a->axis, x0->rank, 0, "axis", &a->axis)) != 0)
    return rc;
  memcpy(out, x0->dims, sizeof(int64_t) * (size_t)x0->rank);
  for (int k = 1; k < c->n->nin; k++) {
    if ((rc = need_in(c, k, "input", x0->rank, x0->rank, &x)) != 0)
      return rc;
    for (int i = 0; i < x0->rank; i++) {
      if (i == a->axis) {
        if (acs_add_i64(out[i], x->dims[i], &out[i]) != 0)
          return nerr(c, ACS_ERANGE, "concatenated size overflows");
      } else if (x->dims[i] != x0->dims[i]) {
        char s0[160], s1[160];
        shape_str(x0->dims, x0->rank, s0, sizeof(s0));
        shape_str(x->dims, x->rank, s1, sizeof(s1));
        return nerr(c, ACS_EPARSE, "input %d (%s) differs from input 1 (%s) outside axis %lld",
                    k + 1, s1, s0, (long long)a->axis);
      }
    }
  }
  return set_out(c, 0, x0->rank, out, x0->dtype);
}

/*
 * The ops whose one output keeps the rank and type of input 0 (of rank
 * min_rank or more), each output dimension computed by dims() from the
 * input's and the attributes: resize, transpose, pad.
 */
static int infer_dims(struct ictx *c, int min_rank,
                      int (*dims)(struct ictx *c, const struct acs_ltensor *x, int64_t *out))
{
  const struct acs_ltensor *x;
  int64_t out[ACS_LAYER_MAX_RANK];
  int rc = need_in(c, 0, "input", min_rank, ACS_LAYER_MAX_RANK, &x);

  if (rc == 0)
    rc = dims(c, x, out);
  return rc == 0 ? set_out(c, 0, x->rank, out, x->dtype) : rc;
}

/* Resize and Upsample: the given sizes, or floor(in * scale) per dim (the
 * product in double precision of the float scale, as ONNX computes it). */
static int resize_dims(struct ictx *c, const struct acs_ltensor *x, int64_t *out)
{
  struct acs_lattrs *a = &c->n->a;
  int rc;

  if (a->nsizes) {
    if ((rc = need_per_dim(c, "sizes", a->nsizes, x->rank)) != 0)
      return rc;
    memcpy(out, a->sizes, sizeof(int64_t) * (size_t)x->rank);
  } else if (a->nscales) {
    if ((rc = need_per_dim(c, "scales", a->nscales, x->rank)) != 0)
      return rc;
    for (int i = 0; i < x->rank; i++) {
      double o = floor((double)x->dims[i] * a->scales[i]);
      if (!(a->scales[i] > 0) || !(o < 9.0e18))
        return nerr(c, ACS_EPARSE, "scale %g along dimension %d is out of range",
                    a->scales[i], i);
      out[i] = (int64_t)o;
    }
  } else {
    return nerr(c, ACS_EPARSE, "neither scales nor sizes are given");
  }
  return ACS_OK;
}

static int infer_reshape(struct ictx *c, const struct acs_ltensor *x, int64_t *out, int *r)
{
  struct acs_lattrs *a = &c->n->a;
  int64_t known = 1, total = acs_ltensor_elems(x);
  int infer = -1;
  *r = a->nshape;
  for (int i = 0; i < a->nshape; i++) {
    int64_t v = a->shape[i];
    if (v == 0 && !a->allowzero) {
      if (i >= x->rank)
        return nerr(c, ACS_EPARSE, "shape[%d] = 0 copies a dimension the input lacks", i);
      v = x->dims[i];
    }
    if (v == -1) {
      if (infer >= 0)
        return nerr(c, ACS_EPARSE, "shape has more than one -1");
      infer = i;
      continue;
    }
    if (v < 1)
      return nerr(c, ACS_EPARSE, "shape[%d] = %lld is not supported", i, (long long)v);
    out[i] = v;
    if (acs_mul_i64(known, v, &known) != 0)
      return nerr(c, ACS_ERANGE, "shape overflows");
  }
  if (infer >= 0) {
    if (total % known != 0)
      return nerr(c, ACS_EPARSE, "cannot reshape %lld elements into a multiple of %lld",
                  (long long)total, (long long)known);
    out[infer] = total / known;
    known = total;
  }
  if (known != total)
    return nerr(c, ACS_EPARSE, "shape has %lld elements, the input %lld", (long long)known,
                (long long)total);
  return ACS_OK;
}

static int infer_view(struct ictx *c)
{
  struct acs_lattrs *a = &c->n->a;
  const struct acs_ltensor *x;
  int64_t out[ACS_LAYER_MAX_RANK], ax = 0;
  int rc = need_in(c, 0, "input", 0, ACS_LAYER_MAX_RANK, &x), r = 0;
  if (rc != 0)
    return rc;
  switch (c->n->op) {
  case ACS_LOP_RESHAPE:
    rc = infer_reshape(c, x, out, &r);
    break;
  case ACS_LOP_FLATTEN:
    /* axis in [-r, r]; a negative one counts from the back (-1 is r - 1) */
    if (a->axis < -x->rank || a->axis > x->rank)
      return nerr(c, ACS_EPARSE, "axis %lld is out of range for rank %d", (long long)a->axis,
                  x->rank);
    if (a->axis < 0)
      a->axis += x->rank;
    out[0] = out[1] = 1;
    for (int i = 0; i < x->rank; i++)
      out[i >= a->axis] *= x->dims[i]; /* the product fits: it is the elements */
    r = 2;
    break;
  case ACS_LOP_SQUEEZE: {
    uint8_t drop[ACS_LAYER_MAX_RANK] = { 0 };
    for (int i = 0; i < a->naxes; i++) {
      if ((rc = norm_axis(c, a->axes[i], x->rank, 0, "axes", &ax)) != 0)
        return rc;
      if (x->dims[ax] != 1)
        return nerr(c, ACS_EPARSE, "dimension %lld has size %lld, not 1", (long long)ax,
                    (long long)x->dims[ax]);
      drop[ax] = 1;
      a->axes[i] = ax;
    }
    for (int i = 0; i < x->rank; i++)
      if (!(a->naxes ? drop[i] : x->dims[i] == 1))
        out[r++] = x->dims[i];
    break;
  }
  case ACS_LOP_UNSQUEEZE: {
    uint8_t add[ACS_LAYER_MAX_RANK] = { 0 };
    r = x->rank + a->naxes;
    if (a->naxes < 1 || r > ACS_LAYER_MAX_RANK)
      return nerr(c, ACS_EPARSE, "needs 1 to %d axes", ACS_LAYER_MAX_RANK - x->rank);
    for (int i = 0; i < a->naxes; i++) {
      if ((rc = norm_axis(c, a->axes[i], x->rank, a->naxes, "axes", &ax)) != 0)
        return rc;
      if (add[ax])
        return nerr(c, ACS_EPARSE, "axis %lld is repeated", (long long)ax);
      add[ax] = 1;
      a->axes[i] = ax;
    }
    for (int i = 0, j = 0; i < r; i++)
      out[i] = add[i] ? 1 : x->dims[j++];
    break;
  }
  default:
    return infer_same(c);
  }
  return rc == 0 ? set_out(c, 0, r, out, x->dtype) : rc;
}

static int transpose_dims(struct ictx *c, const struct acs_ltensor *x, int64_t *out)
{
  struct acs_lattrs *a = &c->n->a;
  uint8_t seen[ACS_LAYER_MAX_RANK] = { 0 };
  int rc;

  if (a->nperm == 0) {
    for (int i = 0; i < x->rank; i++)
      a->perm[i] = x->rank - 1 - i;
    a->nperm = x->rank;
  }
  if ((rc = need_per_dim(c, "perm", a->nperm, x->rank)) != 0)
    return rc;
  for (int i = 0; i < x->rank; i++) {
    if (a->perm[i] < 0 || a->perm[i] >= x->rank || seen[a->perm[i]])
      return nerr(c, ACS_EPARSE, "perm is not a permutation of 0..%d", x->rank - 1);
    seen[a->perm[i]] = 1;
    out[i] = x->dims[a->perm[i]];
  }
  return ACS_OK;
}

static int pad_dims(struct ictx *c, const struct acs_ltensor *x, int64_t *out)
{
  struct acs_lattrs *a = &c->n->a;

  if (a->npads != 2 * x->rank)
    return nerr(c, ACS_EPARSE, "pads has %d values for rank %d (want %d)", a->npads,
                x->rank, 2 * x->rank);
  for (int i = 0; i < x->rank; i++) {
    int64_t b = a->pads[i], e = a->pads[x->rank + i];
    if (b > INT64_MAX / 8 || b < -(INT64_MAX / 8) || e > INT64_MAX / 8 || e < -(INT64_MAX / 8))
      return nerr(c, ACS_ERANGE, "pads along dimension %d are out of range", i);
    out[i] = x->dims[i] + b + e;
  }
  return ACS_OK;
}

static int infer_softmax(struct ictx *c)
{
  const struct acs_ltensor *x;
  int rc = need_in(c, 0, "input", 1, ACS_LAYER_MAX_RANK, &x);
  if (rc == 0)
    rc = norm_axis(c, c->n->a.axis, x->rank, 0, "axis", &c->n->a.axis);
  return rc == 0 ? set_out(c, 0, x->rank, x->dims, x->dtype) : rc;
}

static int infer_node(struct ictx *c)
{
  switch (acs_lop_class(c->n->op)) {
  case ACS_LC_CONV: return infer_conv(c);
  case ACS_LC_MATMUL: return c->n->op == ACS_LOP_GEMM ? infer_gemm(c) : infer_matmul(c);
  case ACS_LC_POOL: return infer_pool(c);
  case ACS_LC_GLOBAL_POOL: return infer_global_pool(c);
  case ACS_LC_BINARY: return infer_binary(c);
  case ACS_LC_UNARY: return infer_same(c);
  case ACS_LC_NORM: return infer_norm(c);
  case ACS_LC_CONCAT: return infer_concat(c);
  case ACS_LC_RESIZE: return infer_dims(c, 1, resize_dims);
  case ACS_LC_VIEW: return infer_view(c);
  case ACS_LC_TRANSPOSE: return infer_dims(c, 0, transpose_dims);
  case ACS_LC_PAD: return infer_dims(c, 1, pad_dims);
  case ACS_LC_SOFTMAX: return infer_softmax(c);
  case ACS_LC_REDUCE: return infer_reduce(c);
  default: return nerr(c, ACS_EINVAL, "unknown op class");
  }
}

int acs_lgraph_infer(struct acs_lgraph *lg, struct acs_diag *d)
{
  struct ictx c = { lg, d, 0, NULL };
  if (!lg->finalized)
    return ACS_EINVAL;
  lg->inferred = 0;
  for (int32_t t = 0; t < lg->ntensors; t++)
    if (lg->t[t].producer >= 0)
      lg->t[t].shaped = 0;
  for (int32_t i = 0; i < lg->nnodes; i++) {
    c.v = lg->topo[i];
    c.n = &lg->n[c.v];
    int rc = infer_node(&c);
    if (rc != 0)
      return rc;
    for (int k = 0; k < c.n->nout; k++)
      if (c.n->out[k] >= 0 && !lg->t[c.n->out[k]].shaped)
        return nerr(&c, ACS_EPARSE, "output %d is not supported", k + 1);
    /* The node's work over its whole output must fit too. */
    struct acs_lbox box;
    int64_t work;
    acs_ltensor_box(&lg->t[c.n->out[0] >= 0 ? c.n->out[0] : 0], &box);
    if (c.n->out[0] >= 0 && acs_lnode_work(lg, c.v, &box, &work) != 0)
      return nerr(&c, ACS_ERANGE, "its work overflows 64-bit integers");
  }
  lg->inferred = 1;
  return ACS_OK;
}
