/*
 * netbound.c - the network bound (see netbound.h).
 *
 * Only the elements some consumer reads must be computed or loaded (the
 * network outputs always whole), so the bound counts those, found backwards
 * from the outputs. The needed part of a tensor is kept as a product of one
 * set per axis (a bitmap per axis). Convolutions and pools map a product
 * set to a product set exactly (per spatial axis, the union of the taps of
 * the needed outputs; per channel, the groups of the needed output
 * channels), and so do transposed convolutions, elementwise ops,
 * normalisation, global pooling and Concat. Two consumers of one tensor would need the union of two products,
 * which is not a product: the larger of them is kept, fewer elements than
 * are needed, so the bound stays a bound. Other ops need their inputs whole
 * when their output is needed whole, and are otherwise counted as needing
 * nothing (again fewer than the truth). O(V + E + sum of the tensors'
 * axes), memory O(sum of the axes), bounded by NB_AXES_BUDGET.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/netbound.h"

/* The needed part of a tensor: a set per axis, or nothing. */
struct need {
  int set;
  uint8_t *ax[ACS_LAYER_MAX_RANK];
};

struct walk {
  const struct acs_lgraph *lg;
  struct need *nd;           /* per tensor */
  int64_t *weight;           /* per tensor: needed bytes of a constant, most over readers */
  int64_t bpe;
};

static int64_t axis_count(const struct need *n, int a, int64_t dim)
{
  int64_t c = 0;

  for (int64_t i = 0; i < dim; i++)
    c += n->ax[a][i];
  return c;
}

/* Elements of the set, saturating; 0 when none. */
static double need_count(const struct acs_ltensor *t, const struct need *n)
{
  double c = 1;

  if (!n->set)
    return 0;
  for (int a = 0; a < t->rank; a++)
    c *= (double)axis_count(n, a, t->dims[a]);
  return c;
}

static int need_whole(const struct acs_ltensor *t, const struct need *n)
{
  return n->set && need_count(t, n) == (double)acs_ltensor_elems(t);
}

static void need_free(struct need *n)
{
  for (int a = 0; a < ACS_LAYER_MAX_RANK; a++)
    free(n->ax[a]);
  memset(n, 0, sizeof(*n));
}

static int need_alloc(const struct acs_ltensor *t, struct need *n, int fill)
{
  memset(n, 0, sizeof(*n));
  for (int a = 0; a < t->rank; a++) {
    if (!(n->ax[a] = malloc((size_t)t->dims[a] + 1)))
      return ACS_ENOMEM;
    memset(n->ax[a], fill, (size_t)t->dims[a]);
  }
  n->set = 1;
  return ACS_OK;
}

/* Keeps the larger of tensor t's need and n (n is consumed). */
static void need_merge(struct walk *w, int32_t t, struct need *n)
{
  const struct acs_ltensor *lt = &w->lg->t[t];

  if (need_count(lt, n) > need_count(lt, &w->nd[t])) {
    need_free(&w->nd[t]);
    w->nd[t] = *n;
    memset(n, 0, sizeof(*n));
  }
  need_free(n);
}

/* The taps k in [0, K) of window start p0 (step d) that land in [0, lim):
 * [*k0, *k1], empty when *k0 > *k1. Saturating: far-off starts clip. */
static void taps_in(int64_t p0, int64_t K, int64_t d, int64_t lim, int64_t *k0, int64_t *k1)
{
  *k0 = p0 < 0 ? (-p0 + d - 1) / d : 0;
  *k1 = p0 >= lim ? -1 : (lim - 1 - p0) / d;
  if (*k1 > K - 1)
    *k1 = K - 1;
}

/* Start of window q: q s - pad, or a value past every axis on overflow. */
static int64_t window_start(int64_t q, int64_t s, int64_t pad)
{
  int64_t p;
  return acs_mul_i64(q, s, &p) ? INT64_MAX / 2 : p - pad;
}

/*
 * One spatial axis of a window op. A conv's output q reads inputs
 * q s - pad + k d (k < K); a transposed conv's input q feeds outputs
 * q s - pad + k d. Each window is an arithmetic progression of step d, so
 * a difference array summed with stride d marks a conv's inputs, and a
 * prefix count with stride d tells whether a transposed conv's outputs
 * hold a needed one: O(n + lim) rather than O(n K). `cnt` holds lim + 1
 * counts.
 */
static void axis_window(int tr, int64_t n, int64_t lim, int64_t s, int64_t pad, int64_t K,
                        int64_t d, const uint8_t *oq, uint8_t *iq, int32_t *cnt)
{
  int64_t k0, k1;

  memset(cnt, 0, (size_t)(lim + 1) * sizeof(*cnt));
  if (!tr) {
    for (int64_t q = 0; q < n; q++) {
      int64_t p0 = window_start(q, s, pad);
      taps_in(p0, K, d, lim, &k0, &k1);
      if (!oq[q] || k0 > k1)
        continue;
      cnt[p0 + k0 * d]++;
      if (p0 + (k1 + 1) * d < lim)
        cnt[p0 + (k1 + 1) * d]--;
    }
    for (int64_t p = 0; p < lim; p++) {
      cnt[p] += p >= d ? cnt[p - d] : 0;
      iq[p] = cnt[p] > 0;
    }
    return;
  }
  for (int64_t p = 0; p < lim; p++)
    cnt[p] = oq[p] + (p >= d ? cnt[p - d] : 0);
  for (int64_t q = 0; q < n; q++) {
    int64_t p0 = window_start(q, s, pad);
    taps_in(p0, K, d, lim, &k0, &k1);
    int64_t first = p0 + k0 * d, last = p0 + k1 * d;
    iq[q] = k0 <= k1 && cnt[last] - (first >= d ? cnt[first - d] : 0) > 0;
  }
}

/* Input x of a conv, transposed conv or pool v whose output need is o:
 * exact per axis, in O(sum of the axes). Channels: a group's inputs when
 * one of its output channels is needed. */
static int window_need(const struct acs_lnode *v, const struct acs_ltensor *x,
                       const struct acs_ltensor *y, const struct need *o, struct need *in)
{
  const struct acs_lattrs *a = &v->a;
  int conv = acs_lop_class(v->op) == ACS_LC_CONV, tr = v->op == ACS_LOP_CONV_TRANSPOSE;
  int64_t g = conv && a->group > 0 ? a->group : 1, lim_max = 0;
  int32_t *cnt;

  memcpy(in->ax[0], o->ax[0], (size_t)x->dims[0]);
  if (conv) {
    int64_t cin = x->dims[1] / g, cout = y->dims[1] / g;
    for (int64_t gi = 0; gi < g; gi++) {
      int any = 0;
      for (int64_t m = gi * cout; m < (gi + 1) * cout && !any; m++)
        any = o->ax[1][m];
      memset(in->ax[1] + gi * cin, any, (size_t)cin);
    }
  } else {
    memcpy(in->ax[1], o->ax[1], (size_t)x->dims[1]);
  }
  for (int i = 2; i < x->rank; i++)
    lim_max = y->dims[i] > lim_max ? y->dims[i] : lim_max,
    lim_max = x->dims[i] > lim_max ? x->dims[i] : lim_max;
  if (!(cnt = malloc((size_t)(lim_max + 1) * sizeof(*cnt))))
    return ACS_ENOMEM;
  for (int i = 0; i < x->rank - 2; i++) {
    int64_t s = a->strides[i] > 0 ? a->strides[i] : 1, d = a->dilations[i] > 0 ? a->dilations[i] : 1;
    int64_t n = tr ? x->dims[2 + i] : y->dims[2 + i], lim = tr ? y->dims[2 + i] : x->dims[2 + i];
    axis_window(tr, n, lim, s, a->pads[i], a->kernel[i], d, o->ax[2 + i], in->ax[2 + i], cnt);
  }
  free(cnt);
  return ACS_OK;
}

/* Data input `slot` of node v: its need from the output's, or none. */
static int input_need(struct walk *w, int32_t v, int slot, const struct need *o,
                      struct need *in)
{
  const struct acs_lnode *n = &w->lg->n[v];
  const struct acs_ltensor *x = &w->lg->t[n->in[slot]], *y = &w->lg->t[n->out[0]];
  int cls = acs_lop_class(n->op), err;
  int64_t off = 0;

  memset(in, 0, sizeof(*in));
  if (cls == ACS_LC_CONV || cls == ACS_LC_POOL) {
    if (slot != 0 || x->rank != y->rank || x->rank < 3)
      return ACS_OK;
    if ((err = need_alloc(x, in, 0)) < 0)
      return err;
    return window_need(n, x, y, o, in);
  }
  if (cls == ACS_LC_GLOBAL_POOL || cls == ACS_LC_BINARY || cls == ACS_LC_UNARY ||
      cls == ACS_LC_NORM || cls == ACS_LC_CONCAT) {
    if (x->rank > y->rank || (cls == ACS_LC_GLOBAL_POOL && x->rank < 2))
      return ACS_OK;
    if ((err = need_alloc(x, in, 0)) < 0)
      return err;
    for (int k = 0; cls == ACS_LC_CONCAT && k < slot; k++)
      off += n->in[k] >= 0 ? w->lg->t[n->in[k]].dims[n->a.axis] : 0;
    for (int j = 0; j < x->rank; j++) {
      int i = j + y->rank - x->rank;
      int any = axis_count(o, i, y->dims[i]) > 0;
      for (int64_t e = 0; e < x->dims[j]; e++)
        in->ax[j][e] = cls == ACS_LC_GLOBAL_POOL && j >= 2 ? (uint8_t)any
                       : x->dims[j] == 1 && y->dims[i] != 1 ? (uint8_t)any
                       : cls == ACS_LC_CONCAT && i == n->a.axis ? o->ax[i][off + e]
                       : o->ax[i][e];
    }
    return ACS_OK;
  }
  /* Anything else: whole when the output is needed whole (a Resize that
   * shrinks an axis or a Pad that crops may skip elements: nothing). */
  if (!need_whole(y, o))
    return ACS_OK;
  for (int i = 0; cls == ACS_LC_RESIZE && i < x->rank && i < y->rank; i++)
    if (y->dims[i] < x->dims[i])
      return ACS_OK;
  for (int i = 0; cls == ACS_LC_PAD && i < n->a.npads; i++)
    if (n->a.pads[i] < 0)
      return ACS_OK;
  return need_alloc(x, in, 1);
}

/* Node v: its needed work (uniform per output element, except
 * ConvTranspose, counted only when its output is needed whole), the needs
 * of its inputs, and the needed bytes of the constants it reads (those of
 * the needed output channels for a conv or a fully connected layer). */
static int node_need(struct walk *w, int32_t v, int64_t *macs)
{
  const struct acs_lnode *n = &w->lg->n[v];
  const struct acs_ltensor *y = &w->lg->t[n->out[0]];
  const struct need *o = &w->nd[n->out[0]];
  struct acs_lbox box;
  double frac, share;
  int64_t work;
  int err;

  if (!o->set || need_count(y, o) == 0)
    return ACS_OK;
  frac = need_count(y, o) / (double)acs_ltensor_elems(y);
  acs_ltensor_box(y, &box);
  if ((err = acs_lnode_work(w->lg, v, &box, &work)) < 0)
    return err;
  if (n->op != ACS_LOP_CONV_TRANSPOSE || frac == 1)
    *macs += acs_lop_is_mac(n->op) ? (int64_t)floor((double)work * frac) : 0;
  share = y->rank >= 2 && (n->op == ACS_LOP_CONV || acs_lop_class(n->op) == ACS_LC_MATMUL)
            ? (double)axis_count(o, 1, y->dims[1]) / (double)y->dims[1]
            : frac == 1;
  for (int k = 0; k < n->nin; k++) {
    int32_t t = n->in[k];
    struct need in;
    if (t < 0)
      continue;
    if (n->role[k] == ACS_LR_WEIGHT || w->lg->t[t].kind == ACS_LT_WEIGHT) {
      int64_t b = (int64_t)floor((double)acs_ltensor_elems(&w->lg->t[t]) * (double)w->bpe * share);
      w->weight[t] = b > w->weight[t] ? b : w->weight[t];
      continue;
    }
    if (n->role[k] != ACS_LR_DATA)
      continue;
    if ((err = input_need(w, v, k, o, &in)) < 0) {
      need_free(&in);
      return err;
    }
    need_merge(w, t, &in);
  }
  return ACS_OK;
}

/*
 * The per-axis sets of every tensor take sum-of-axes bytes. Past this
 * budget (an axis of millions of elements, which no real network has) the
 * bound falls back to what is certainly needed: the network outputs whole
 * and the work of the nodes writing them.
 */
#define NB_AXES_BUDGET (INT64_C(1) << 24)

static int64_t axes_total(const struct acs_lgraph *lg)
{
  int64_t sum = 0;

  for (int32_t t = 0; t < lg->ntensors; t++)
    for (int a = 0; a < lg->t[t].rank; a++)
      if (acs_add_i64(sum, lg->t[t].dims[a], &sum))
        return INT64_MAX;
  return sum;
}

static int outputs_only(const struct acs_lgraph *lg, int64_t bpe, int64_t *macs, int64_t *bytes)
{
  double sum = 0;
  struct acs_lbox box;
  int64_t work;
  int err;

  *macs = 0;
  for (int32_t v = 0; v < lg->nnodes; v++) {
    const struct acs_ltensor *y = &lg->t[lg->n[v].out[0]];
    if (!y->is_output || !acs_lop_is_mac(lg->n[v].op))
      continue;
    acs_ltensor_box(y, &box);
    if ((err = acs_lnode_work(lg, v, &box, &work)) < 0)
      return err;
    if (acs_add_i64(*macs, work, macs))
      return ACS_ERANGE;
  }
  for (int32_t t = 0; t < lg->ntensors; t++)
    if (lg->t[t].is_output)
      sum += (double)acs_ltensor_elems(&lg->t[t]) * (double)bpe;
  if (sum > (double)ACS_QTY_MAX)
    return ACS_ERANGE;
  *bytes = (int64_t)sum;
  return ACS_OK;
}

/* Needed MACs and bytes across DDR (needed constants and network inputs,
 * whole network outputs). */
static int needs(const struct acs_lgraph *lg, int64_t bpe, int64_t *macs, int64_t *bytes)
{
  if (axes_total(lg) > NB_AXES_BUDGET)
    return outputs_only(lg, bpe, macs, bytes);

  struct walk w = {lg, calloc((size_t)lg->ntensors + 1, sizeof(struct need)),
                   calloc((size_t)lg->ntensors + 1, sizeof(int64_t)), bpe};
  int err = w.nd && w.weight ? ACS_OK : ACS_ENOMEM;
  double sum = 0;

  *macs = *bytes = 0;
  for (int32_t t = 0; t < lg->ntensors && err == ACS_OK; t++)
    if (lg->t[t].is_output)
      err = need_alloc(&lg->t[t], &w.nd[t], 1);
  for (int32_t i = lg->nnodes - 1; i >= 0 && err == ACS_OK; i--)
    err = node_need(&w, lg->topo[i], macs);
  for (int32_t t = 0; t < lg->ntensors && err == ACS_OK; t++) {
    if (lg->t[t].kind == ACS_LT_WEIGHT || w.weight[t] > 0)
      sum += (double)w.weight[t];
    else if (lg->t[t].is_output)
      sum += (double)acs_ltensor_elems(&lg->t[t]) * (double)bpe;
    else if (lg->t[t].kind == ACS_LT_INPUT)
      sum += need_count(&lg->t[t], &w.nd[t]) * (double)bpe;
  }
  if (err == ACS_OK && sum > (double)ACS_QTY_MAX)
    err = ACS_ERANGE;
  *bytes = (int64_t)sum;
  for (int32_t t = 0; w.nd && t < lg->ntensors; t++)
    need_free(&w.nd[t]);
  free(w.nd);
  free(w.weight);
  return err;
}

static int64_t ceil_div_d(double a, double b)
{
  double c = ceil(a / b - 1e-9);
  return c < 0 ? 0 : c > (double)ACS_QTY_MAX ? ACS_QTY_MAX : (int64_t)c;
}

int acs_netbound_compute(const struct acs_lgraph *lg, const struct acs_platform *p,
                         struct acs_netbound *nb)
{
  int64_t bpe = (int64_t)acs_platform_get(p, ACS_P_BYTES_PER_ELEM);
  double lanes = acs_platform_get(p, ACS_P_PE_COUNT) * acs_platform_get(p, ACS_P_PE_MACS_PER_CYCLE);
  double rate = acs_platform_ddr_gbps(p), dma = acs_platform_get(p, ACS_P_DMA_GBPS) *
                                                acs_platform_get(p, ACS_P_DMA_CHANNELS);
  int rc;

  memset(nb, 0, sizeof(*nb));
  if (!lg->topo)
    return ACS_EINVAL;
  if ((rc = needs(lg, bpe, &nb->macs, &nb->ddr_bytes)) < 0)
    return rc;
  nb->mac_cycles = nb->macs / (int64_t)lanes + (nb->macs % (int64_t)lanes != 0);
  rate = (rate < dma ? rate : dma) * 1e9 / (acs_platform_get(p, ACS_P_FREQ_MHZ) * 1e6);
  nb->ddr_cycles = ceil_div_d((double)nb->ddr_bytes, rate);
  nb->cycles = nb->mac_cycles > nb->ddr_cycles ? nb->mac_cycles : nb->ddr_cycles;
  return ACS_OK;
}
