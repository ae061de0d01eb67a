/*
 * propagator.c - propagators per op class (see propagator.h for the form).
 *
 * Each builder starts from "the whole input" (every row of A zero, b the
 * input's dims, c zero) and fills the rows that follow the output: a row
 * that copies output axis j is A[i][j] = 1; a window axis is
 * A[i][j] = stride, b = dilation (k - 1) + 1 - stride, c = -pad_begin.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "core/sched/cascade/propagator.h"

static void prop_whole(struct acs_prop *p, const struct acs_ltensor *in, int rout)
{
  memset(p, 0, sizeof(*p));
  p->rin = in->rank;
  p->rout = rout;
  for (int i = 0; i < in->rank; i++)
    p->b[i] = (double)in->dims[i];
}

/* Input axis i follows output axis j one to one, shifted by `shift`. */
static void prop_copy(struct acs_prop *p, int i, int j, double shift)
{
  p->a[i][j] = 1.0;
  p->b[i] = 0.0;
  p->c[i] = shift;
}

static int64_t attr_or_one(const int64_t *v, int n, int i)
{
  return i < n && v[i] > 0 ? v[i] : 1;
}

/* Spatial axis 2 + i of a window op (Conv, pooling): input rows
 * [o0 s - pad, (o1 - 1) s - pad + d (k - 1) + 1). */
static void prop_window(struct acs_prop *p, const struct acs_lattrs *a, int i)
{
  int64_t s = attr_or_one(a->strides, a->nstrides, i);
  int64_t d = attr_or_one(a->dilations, a->ndilations, i);
  int64_t k = a->kernel[i] > 0 ? a->kernel[i] : 1;

  p->a[2 + i][2 + i] = (double)s;
  p->b[2 + i] = (double)(d * (k - 1) + 1 - s);
  p->c[2 + i] = i < a->npads / 2 ? -(double)a->pads[i] : 0.0;
}

/* Conv (not transposed). Data: batch follows, channels are reduced (all
 * input channels; a depthwise conv's output channel m reads input channel
 * m / multiplier, the row 1 / multiplier), spatial axes are windows.
 * Weights [M, C/g, k...]: row 0 follows the output channels. Bias [M]:
 * likewise. Other group counts read whole groups, which is not affine: the
 * whole input channel axis (conservative). */
static void prop_conv(const struct acs_lgraph *lg, const struct acs_lnode *n, int slot,
                      struct acs_prop *p)
{
  const struct acs_ltensor *in = &lg->t[n->in[slot]], *out = &lg->t[n->out[0]];
  int64_t g = n->a.group > 0 ? n->a.group : 1;

  if (n->op == ACS_LOP_CONV_TRANSPOSE)
    return;
  if (slot == 1 || slot == 2) {
    prop_copy(p, 0, 1, 0.0);
    return;
  }
  prop_copy(p, 0, 0, 0.0);
  if (g > 1 && g == in->dims[1]) { /* depthwise, with a channel multiplier */
    p->a[1][1] = 1.0 / (double)(out->dims[1] / g);
    p->b[1] = 0.0;
  }
  for (int i = 0; i < n->a.nsp; i++)
    prop_window(p, &n->a, i);
}

/* Broadcasting: input axis j of rank r aligns with output axis
 * j + (rout - r); an axis of size 1 is read whole. PRelu's old per-channel
 * slope follows the channel axis. */
static void prop_broadcast(const struct acs_lnode *n, int slot, const struct acs_ltensor *in,
                           int rout, struct acs_prop *p)
{
  if (n->op == ACS_LOP_PRELU && slot == 1 && n->a.prelu_channel && in->rank == 1 && rout >= 2) {
    if (in->dims[0] != 1)
      prop_copy(p, 0, 1, 0.0);
    return;
  }
  for (int j = 0; j < in->rank; j++) {
    int oj = j + rout - in->rank;
    if (oj >= 0 && in->dims[j] != 1)
      prop_copy(p, j, oj, 0.0);
  }
}

/* Concat: the input's stripe is the output's, shifted by the input's offset
 * along the axis; clipping drops it when it misses the input. */
static void prop_concat(const struct acs_lgraph *lg, const struct acs_lnode *n, int slot,
                        int rout, struct acs_prop *p)
{
  int64_t ax = n->a.axis, off = 0;

  for (int k = 0; k < slot; k++)
    off += lg->t[n->in[k]].dims[ax];
  for (int j = 0; j < rout; j++)
    prop_copy(p, j, j, j == ax ? -(double)off : 0.0);
}

/* Resize: the source of output o is about o in / out; a margin of
 * ceil(in / out) + 2 at each end covers every coordinate transformation
 * mode and the interpolation taps (as acs_lnode_input_box). */
static void prop_resize(const struct acs_ltensor *in, const struct acs_ltensor *out,
                        struct acs_prop *p)
{
  for (int j = 0; j < in->rank; j++) {
    double r = (double)in->dims[j] / (double)out->dims[j];
    double m = in->dims[j] == out->dims[j] ? 0.0 : ceil(r) + 2.0;
    p->a[j][j] = r;
    p->b[j] = 2.0 * m;
    p->c[j] = -m;
  }
}

/* Pad (constant mode): output o reads input o - pad_begin. Reflect and edge
 * modes read rows near the edge for outputs in the padding: the whole axis
 * where they pad (conservative). */
static void prop_pad(const struct acs_lnode *n, const struct acs_ltensor *in, struct acs_prop *p)
{
  for (int j = 0; j < in->rank; j++) {
    int64_t b = n->a.pads[j], e = n->a.pads[in->rank + j];
    if (n->a.pad_mode == ACS_PAD_CONSTANT || (b == 0 && e == 0))
      prop_copy(p, j, j, -(double)b);
  }
}

/* Gemm, Y[M, N] = A[M, K] B[K, N] + C: A's row axis (its axis 1 when
 * transA) follows the output's rows, B's column axis (axis 0 when transB)
 * the output's columns, so a stripe of output columns reads a slice of the
 * weights; the reduction axis K is read whole. C broadcasts. */
static void prop_gemm(const struct acs_lnode *n, int slot, const struct acs_ltensor *in,
                      int rout, struct acs_prop *p)
{
  int trans, keep;

  if (slot == 2) {
    prop_broadcast(n, slot, in, rout, p);
    return;
  }
  if (in->rank != 2 || rout != 2)
    return;
  trans = slot == 0 ? n->a.trans_a : n->a.trans_b;
  keep = slot == 0 ? 0 : 1;
  prop_copy(p, slot == 0 ? (trans ? 1 : 0) : (trans ? 0 : 1), keep, 0.0);
}

/* MatMul (numpy semantics): batch axes broadcast as elementwise ops, A's
 * row axis follows the output's second-to-last, B's column axis its last;
 * the reduction axis is read whole, and a rank-1 operand (a promoted
 * vector) is only a reduction axis. */
static void prop_matmul(const struct acs_lgraph *lg, const struct acs_lnode *n, int slot,
                        const struct acs_ltensor *in, int rout, struct acs_prop *p)
{
  const struct acs_ltensor *A = &lg->t[n->in[0]], *B = &lg->t[n->in[1]];
  int nbatch = rout - (A->rank != 1) - (B->rank != 1), rows = in->rank - 2;

  if (in->rank == 1)
    return;
  for (int j = 0; j < rows; j++) {
    int oj = j + nbatch - rows;
    if (oj >= 0 && in->dims[j] != 1)
      prop_copy(p, j, oj, 0.0);
  }
  if (slot == 0)
    prop_copy(p, in->rank - 2, nbatch, 0.0);
  else
    prop_copy(p, in->rank - 1, rout - 1, 0.0);
}

/* The rows of classes whose input follows the output axis by axis. */
static void prop_follow(const struct acs_lgraph *lg, const struct acs_lnode *n, int slot,
                        struct acs_prop *p)
{
  const struct acs_ltensor *in = &lg->t[n->in[slot]], *out = &lg->t[n->out[0]];

  switch (acs_lop_class(n->op)) {
  case ACS_LC_POOL:
    prop_copy(p, 0, 0, 0.0);
    prop_copy(p, 1, 1, 0.0);
    for (int i = 0; i < n->a.nsp; i++)
      prop_window(p, &n->a, i);
    break;
  case ACS_LC_GLOBAL_POOL:
    prop_copy(p, 0, 0, 0.0);
    prop_copy(p, 1, 1, 0.0);
    break;
  case ACS_LC_BINARY:
    prop_broadcast(n, slot, in, out->rank, p);
    break;
  case ACS_LC_NORM:
    if (slot > 0) {
      prop_copy(p, 0, 1, 0.0);
      break;
    }
    /* fall through */
  case ACS_LC_UNARY:
    for (int j = 0; slot == 0 && j < in->rank; j++)
      prop_copy(p, j, j, 0.0);
    break;
  case ACS_LC_CONCAT:
    prop_concat(lg, n, slot, out->rank, p);
    break;
  case ACS_LC_RESIZE:
    if (slot == 0)
      prop_resize(in, out, p);
    break;
  case ACS_LC_TRANSPOSE:
    for (int i = 0; i < out->rank; i++)
      prop_copy(p, (int)n->a.perm[i], i, 0.0);
    break;
  case ACS_LC_PAD:
    if (slot == 0)
      prop_pad(n, in, p);
    break;
  case ACS_LC_SOFTMAX:
    for (int j = 0; j < in->rank; j++)
      if (j < n->a.axis || j >= (n->a.axis_to_end ? in->rank : n->a.axis + 1))
        prop_copy(p, j, j, 0.0);
    break;
  case ACS_LC_VIEW:
    if (n->op == ACS_LOP_IDENTITY || n->op == ACS_LOP_DROPOUT)
      for (int j = 0; slot == 0 && j < in->rank; j++)
        prop_copy(p, j, j, 0.0);
    break;
  case ACS_LC_MATMUL:
    if (n->op == ACS_LOP_GEMM)
      prop_gemm(n, slot, in, out->rank, p);
    else
      prop_matmul(lg, n, slot, in, out->rank, p);
    break;
  default: /* ConvTranspose, reductions: the whole input */
    break;
  }
}

int acs_prop_of(const struct acs_lgraph *lg, int32_t node, int slot, struct acs_prop *p)
{
  const struct acs_lnode *n;

  if (node < 0 || node >= lg->nnodes)
    return ACS_EINVAL;
  n = &lg->n[node];
  if (slot < 0 || slot >= n->nin || n->in[slot] < 0 || n->nout < 1 || n->out[0] < 0)
    return ACS_EINVAL;
  prop_whole(p, &lg->t[n->in[slot]], lg->t[n->out[0]].rank);
  if (n->role[slot] == ACS_LR_PARAM)
    return ACS_OK;
  if (acs_lop_class(n->op) == ACS_LC_CONV)
    prop_conv(lg, n, slot, p);
  else
    prop_follow(lg, n, slot, p);
  return ACS_OK;
}

void acs_prop_compose(const struct acs_prop *outer, const struct acs_prop *inner,
                      struct acs_prop *p)
{
  struct acs_prop r;

  memset(&r, 0, sizeof(r));
  r.rin = inner->rin;
  r.rout = outer->rout;
  for (int i = 0; i < inner->rin; i++) {
    r.b[i] = inner->b[i];
    r.c[i] = inner->c[i];
    for (int k = 0; k < inner->rout; k++) {
      for (int j = 0; j < outer->rout; j++)
        r.a[i][j] += inner->a[i][k] * outer->a[k][j];
      r.b[i] += inner->a[i][k] * outer->b[k];
      r.c[i] += inner->a[i][k] * outer->c[k];
    }
  }
  *p = r;
}

void acs_prop_apply(const struct acs_prop *p, const struct acs_stripe *out,
                    struct acs_stripe *in)
{
  in->rank = p->rin;
  for (int i = 0; i < p->rin; i++) {
    double o = p->c[i], s = p->b[i];
    for (int j = 0; j < p->rout && j < out->rank; j++) {
      o += p->a[i][j] * out->origin[j];
      s += p->a[i][j] * out->shape[j];
    }
    in->origin[i] = o;
    in->shape[i] = s;
  }
}

/* Origins round down, ends up: exact for integer entries, conservative for
 * rational ones. The tiny tolerance absorbs the rounding of products such
 * as (1/3) * 3. */
void acs_prop_clip(const struct acs_stripe *s, const struct acs_ltensor *t, struct acs_lbox *b)
{
  const double eps = 1e-9;

  b->rank = s->rank;
  for (int i = 0; i < s->rank; i++) {
    double lo = floor(s->origin[i] + eps), hi = ceil(s->origin[i] + s->shape[i] - eps);
    double dim = i < t->rank ? (double)t->dims[i] : 1.0;
    lo = lo < 0 ? 0 : lo > dim ? dim : lo;
    hi = hi > dim ? dim : hi < lo ? lo : hi;
    b->lo[i] = (int64_t)lo;
    b->hi[i] = (int64_t)hi;
  }
  if (acs_lbox_elems(b) == 0)
    for (int i = 0; i < b->rank; i++)
      b->lo[i] = b->hi[i] = 0;
}

void acs_stripe_of_box(const struct acs_lbox *b, struct acs_stripe *s)
{
  s->rank = b->rank;
  for (int i = 0; i < b->rank; i++) {
    s->origin[i] = (double)b->lo[i];
    s->shape[i] = (double)(b->hi[i] - b->lo[i]);
  }
}

/* An integer that a double holds exactly, within 2^53. */
static int integral(double v, int64_t *out)
{
  if (!(v > -9007199254740992.0 && v < 9007199254740992.0) || v != floor(v))
    return 0;
  *out = (int64_t)v;
  return 1;
}

void acs_iprop_make(const struct acs_prop *p, struct acs_iprop *ip)
{
  memset(ip, 0, sizeof(*ip));
  ip->rin = p->rin;
  ip->rout = p->rout;
  for (int i = 0; i < p->rin; i++) {
    if (!integral(p->b[i], &ip->b[i]) || !integral(p->c[i], &ip->c[i]))
      return;
    for (int j = 0; j < p->rout; j++) {
      int64_t v;
      if (!integral(p->a[i][j], &v))
        return;
      if (v != 0) {
        ip->j[i][ip->nt[i]] = (int8_t)j;
        ip->a[i][ip->nt[i]++] = v;
      }
    }
  }
  ip->ok = 1;
}

