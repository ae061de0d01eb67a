/*
 * propagator.h - the cascading scheduler's propagators (seed 002, step 1).
 *
 * A propagator maps a stripe of a node's output (an origin and a shape per
 * axis) to the stripe of one of its inputs that computing it reads. The
 * seed writes it as an augmented affine matrix; here it is the matrix A
 * (input rank x output rank) with two constant columns, one for shapes and
 * one for origins:
 *
 *   in_shape  = A . out_shape  + b
 *   in_origin = A . out_origin + c
 *
 * that is the augmented matrices [A b; 0 1] and [A c; 0 1]. A 3x3 conv with
 * stride 1 maps shape (1, 4, 3, 3) (NCHW) to (1, C_in, 5, 5): the channel
 * row of A is zero and its b the input's channel count (the channel axis is
 * reduced), each spatial row is stride with b = dilation (k - 1) + 1 -
 * stride and c = -pad. Propagators compose by the matrix product, so the
 * propagator of a cascade is the product along its chain, and a stripe is
 * propagated through it in one step (before clipping: a propagated stripe
 * may hang over the tensor's edge where the layer pads, and is clipped to
 * the tensor by acs_prop_clip).
 *
 * Entries are rational in general (a depthwise conv with a channel
 * multiplier m maps output channels to input channels by 1/m, a resize by
 * its scale), so they are doubles; applied to a stripe, an origin is
 * rounded down and an end (origin + shape) up, which is exact for integer
 * entries and conservative otherwise.
 */
#ifndef ACS_SCHED_CASCADE_PROPAGATOR_H
#define ACS_SCHED_CASCADE_PROPAGATOR_H

#include "core/model/layer.h"

#define ACS_PROP_RANK ACS_LAYER_MAX_RANK

struct acs_prop {
  int rin, rout;                                /* input and output rank */
  double a[ACS_PROP_RANK][ACS_PROP_RANK];       /* rin x rout */
  double b[ACS_PROP_RANK];                      /* shape constants */
  double c[ACS_PROP_RANK];                      /* origin constants */
};

/* A stripe of a tensor: [origin[i], origin[i] + shape[i]) along each axis. */
struct acs_stripe {
  int rank;
  double origin[ACS_PROP_RANK], shape[ACS_PROP_RANK];
};

/*
 * The propagator of input slot `slot` of node `node` (an inferred layer
 * graph), from its output 0. Exact (equal, after clipping, to
 * acs_lnode_input_box) for Conv with one group or depthwise (groups =
 * input channels), pooling, global pooling, elementwise ops with or without
 * broadcasting, normalization, Concat, Pad, and the weights and biases of
 * Conv; conservative for grouped Conv with other group counts (whole input
 * channels) and Resize (its scale and a margin of ceil(in/out) + 2 at each
 * end); exact for Gemm and MatMul (rows of A and columns of B follow the
 * output, the reduction axis whole, so FC weights stripe with the output
 * columns); the whole input for ConvTranspose, views other than Identity,
 * and reductions (their input stripes are not affine images of the
 * output's, or the seed cascades them whole). ACS_EINVAL for a slot the node
 * does not have. O(rank^2).
 */
int acs_prop_of(const struct acs_lgraph *lg, int32_t node, int slot, struct acs_prop *p);

/* p = outer o inner: first inner (a node's input as the output of the node
 * before it), then outer. inner->rin must equal outer->rout. O(rank^3). */
void acs_prop_compose(const struct acs_prop *outer, const struct acs_prop *inner,
                      struct acs_prop *p);

/* The stripe of the input that the output stripe `out` reads, unclipped. */
void acs_prop_apply(const struct acs_prop *p, const struct acs_stripe *out,
                    struct acs_stripe *in);

/* The stripe clipped to tensor t, as a box (empty when it misses t:
 * some hi <= lo). O(rank). */
void acs_prop_clip(const struct acs_stripe *s, const struct acs_ltensor *t, struct acs_lbox *b);

/* The stripe of a box. */
void acs_stripe_of_box(const struct acs_lbox *b, struct acs_stripe *s);

/*
 * A propagator with integer entries, kept sparse: what the planner's walk
 * applies millions of times. acs_iprop_make gives ok = 0 when some entry
 * is not an integer (then the caller uses acs_prop_apply and
 * acs_prop_clip); otherwise acs_iprop_box equals apply-then-clip exactly,
 * in O(rank + nonzeros).
 */
struct acs_iprop {
  int ok, rin, rout;
  int64_t b[ACS_PROP_RANK], c[ACS_PROP_RANK];
  int nt[ACS_PROP_RANK];                    /* nonzeros of row i */
  int8_t j[ACS_PROP_RANK][ACS_PROP_RANK];   /* their columns */
  int64_t a[ACS_PROP_RANK][ACS_PROP_RANK];  /* and values */
};
void acs_iprop_make(const struct acs_prop *p, struct acs_iprop *ip);

/* Inline: the planner's walk applies it for every block and slice. */
static inline void acs_iprop_box(const struct acs_iprop *ip, const struct acs_lbox *out,
                                 const struct acs_ltensor *t, struct acs_lbox *in)
{
  int empty = 0;

  in->rank = ip->rin;
  for (int i = 0; i < ip->rin; i++) {
    int64_t lo = ip->c[i], hi, sh = ip->b[i];
    int64_t dim = i < t->rank ? t->dims[i] : 1;
    for (int k = 0; k < ip->nt[i]; k++) {
      int j = ip->j[i][k];
      if (j >= out->rank)
        continue;
      lo += ip->a[i][k] * out->lo[j];
      sh += ip->a[i][k] * (out->hi[j] - out->lo[j]);
    }
    hi = lo + sh;
    lo = lo < 0 ? 0 : lo > dim ? dim : lo;
    hi = hi > dim ? dim : hi < lo ? lo : hi;
    in->lo[i] = lo;
    in->hi[i] = hi;
    empty |= hi <= lo;
  }
  if (empty)
    for (int i = 0; i < in->rank; i++)
      in->lo[i] = in->hi[i] = 0;
}

#endif
