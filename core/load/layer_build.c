/*
 * layer_build.c - the op DAG of a layer graph on one platform.
 *
 * The mapping of the SCALE-Sim tables (dnn.c) generalized to graphs with
 * branches, joins and every supported op (README "ONNX models" > "From
 * layers to ops"):
 *
 * - views (Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout, and a
 *   Concat whose inputs are contiguous slices of its output) make no op:
 *   their readers read the tensors the view is made of (its sources);
 * - every other node is a compute op, or tiles when its working set (data
 *   inputs, weights, outputs) exceeds the CMX: tiles split the output along
 *   its row axis (dim 2 of an N-D tensor, dim 0 of a matrix) and, when one
 *   row does not fit, into channel groups (dim 1), with the region of each
 *   input a tile reads from acs_lnode_input_box;
 * - weights load with one DMA per channel group, `<node>.w<g>`;
 * - a tensor stays in CMX between producer and reader (a data edge) when
 *   neither is tiled; otherwise the producer's tiles write it to DDR once
 *   (`<node>.o<i>`, joined by the sync `<node>.out`) and each reader's tiles
 *   read what they need (`<node>.i<i>`);
 * - network inputs load with a DMA (`input`, or `input<k>` for several), a
 *   sync when only tiled nodes read them; network outputs are written back
 *   by `output` (`output<k>`).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/layer.h"

/* More tiles than this for one node means a CMX far too small. */
#define MAX_TILES ((int64_t)1 << 20)

struct lplan {
  int compute;               /* not a view */
  int ra, ca;                /* row and channel axes of the output, -1 none */
  int64_t nrt, nfg;          /* row tiles, channel groups */
  int32_t tile0;             /* op id of tile 0 */
  int32_t w0;                /* op id of the first weight DMA, -1 none */
  int32_t ddr;               /* the sync after its writes to DDR, -1 not made */
};

struct lb {
  const struct acs_lgraph *lg;
  struct acs_graph *g;
  struct acs_diag *d;
  int64_t bpe, cmx;
  int res_pe, res_dma, res_cmx, res_ddr;
  struct lplan *pl;
  int32_t *src_off, *src;    /* root tensors of each tensor through views (CSR) */
  int32_t *in_op;            /* per tensor: the op of a network input, -1 */
  uint8_t *in_cmx;           /* per tensor: the input is loaded into CMX */
};

static int tiled(const struct lplan *p)
{
  return p->nrt * p->nfg > 1;
}

static int64_t part_size(int64_t total, int64_t parts, int64_t i)
{
  return total / parts + (i < total % parts);
}

static int64_t part_start(int64_t total, int64_t parts, int64_t i)
{
  int64_t q = total / parts, r = total % parts;
  return i * q + (i < r ? i : r);
}

static int64_t ceil_div(int64_t a, int64_t b)
{
  return a / b + (a % b != 0);
}

/* ---- sources through views ---- */

/*
 * The root tensors each tensor is made of: a view's output is the
 * concatenation of its data inputs' roots; any other tensor is its own.
 * Computed in topological order, O(V + E + total roots).
 */
static int resolve_sources(struct lb *b)
{
  const struct acs_lgraph *lg = b->lg;
  int32_t nt = lg->ntensors;
  int32_t *cnt = calloc((size_t)nt + 1, sizeof(*cnt));
  size_t total = 0, cap = 0;
  int rc = ACS_ENOMEM;
  int32_t *list = NULL, *off = calloc((size_t)nt + 1, sizeof(*off)),
          *start = calloc((size_t)nt + 1, sizeof(*start));
  if (!cnt || !off || !start)
    goto out;
  /* Roots are appended in topological order, so a view's inputs are done. */
  for (int32_t t = 0; t < nt; t++) {
    int32_t p = lg->t[t].producer;
    if (p >= 0 && acs_lnode_is_view(lg, p))
      continue;
    if (acs_grow((void **)&list, sizeof(*list), &cap, total + 1) != 0)
      goto out;
    start[t] = (int32_t)total;
    list[total++] = t;
    cnt[t] = 1;
  }
  for (int32_t i = 0; i < lg->nnodes; i++) {
    int32_t v = lg->topo[i];
    const struct acs_lnode *n = &lg->n[v];
    if (!acs_lnode_is_view(lg, v))
      continue;
    for (int k = 0; k < n->nout; k++) {
      int32_t t = n->out[k];
      if (t < 0)
        continue;
      start[t] = (int32_t)total;
      for (int j = 0; j < n->nin; j++) {
        int32_t s = n->in[j];
        if (s < 0 || n->role[j] != ACS_LR_DATA || (k > 0))
          continue; /* a Dropout mask is made of nothing */
        if (acs_grow((void **)&list, sizeof(*list), &cap, total + (size_t)cnt[s]) != 0)
          goto out;
        memcpy(list + total, list + start[s], (size_t)cnt[s] * sizeof(*list));
        total += (size_t)cnt[s];
        cnt[t] += cnt[s];
      }
    }
  }
  /* Into CSR by tensor id. */
  for (int32_t t = 0; t < nt; t++)
    off[t + 1] = off[t] + cnt[t];
  b->src = malloc(((size_t)off[nt] + 1) * sizeof(*b->src));
  if (!b->src)
    goto out;
  for (int32_t t = 0; t < nt; t++)
    memcpy(b->src + off[t], list + start[t], (size_t)cnt[t] * sizeof(*list));
  b->src_off = off;
  off = NULL;
  rc = ACS_OK;
out:
  free(cnt);
  free(off);
  free(start);
  free(list);
  return rc;
}

/* Whether every root of tensor t is a constant (a view of a weight). */
static int const_sourced(const struct lb *b, int32_t t)
{
  if (b->src_off[t] == b->src_off[t + 1])
    return 0;
  for (int32_t i = b->src_off[t]; i < b->src_off[t + 1]; i++)
    if (b->lg->t[b->src[i]].kind != ACS_LT_WEIGHT && b->lg->t[b->src[i]].kind != ACS_LT_PARAM)
      return 0;
  return 1;
}

/* Whether slot k of node n is read from memory as data (an activation). */
static int data_slot(const struct lb *b, const struct acs_lnode *n, int k)
{
  return n->in[k] >= 0 && n->role[k] == ACS_LR_DATA && !const_sourced(b, n->in[k]);
}

/* ... and as a weight (a constant, or a view of one). */
static int weight_slot(const struct lb *b, const struct acs_lnode *n, int k)
{
  return n->in[k] >= 0 && (n->role[k] == ACS_LR_WEIGHT ||
                           (n->role[k] == ACS_LR_DATA && const_sourced(b, n->in[k])));
}

/* ---- sizes of a box ---- */

static int box_bytes(const struct lb *b, const struct acs_lbox *box, int64_t *out)
{
  int64_t e = acs_lbox_elems(box);
  if (e == INT64_MAX || acs_mul_i64(e, b->bpe, out) != 0)
    return ACS_ERANGE;
  return ACS_OK;
}

/* The whole output of node v, with dim `ra` cut to row part i of nrt and
 * `ca` to channel part j of nfg. */
static void tile_box(const struct lb *b, int32_t v, int64_t i, int64_t nrt, int64_t j,
                     int64_t nfg, struct acs_lbox *box)
{
  const struct lplan *p = &b->pl[v];
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[v].out[0]];
  acs_ltensor_box(o, box);
  if (p->ra >= 0) {
    box->lo[p->ra] = part_start(o->dims[p->ra], nrt, i);
    box->hi[p->ra] = box->lo[p->ra] + part_size(o->dims[p->ra], nrt, i);
  }
  if (p->ca >= 0) {
    box->lo[p->ca] = part_start(o->dims[p->ca], nfg, j);
    box->hi[p->ca] = box->lo[p->ca] + part_size(o->dims[p->ca], nfg, j);
  }
}

enum { SLOT_DATA = 1, SLOT_WEIGHT = 2 };

/* Bytes of the slots of node v (data and/or weights, by `which`) that
 * output box `out` reads; a tensor read twice through the same region
 * counts once. */
static int slots_bytes(const struct lb *b, int32_t v, const struct acs_lbox *out, int which,
                       int64_t *bytes)
{
  const struct acs_lnode *n = &b->lg->n[v];
  struct acs_lbox in[2];
  *bytes = 0;
  for (int k = 0; k < n->nin; k++) {
    int want = (which & SLOT_DATA && data_slot(b, n, k)) ||
               (which & SLOT_WEIGHT && weight_slot(b, n, k));
    int64_t x, dup = 0;
    if (!want)
      continue;
    int rc = acs_lnode_input_box(b->lg, v, k, out, &in[0]);
    for (int j = 0; rc == 0 && j < k && !dup; j++)
      if (n->in[j] == n->in[k] && n->role[j] == n->role[k] &&
          acs_lnode_input_box(b->lg, v, j, out, &in[1]) == 0)
        dup = memcmp(&in[0], &in[1], sizeof(in[0])) == 0;
    if (rc != 0)
      return rc;
    if (dup)
      continue;
    if (box_bytes(b, &in[0], &x) != 0 || acs_add_i64(*bytes, x, bytes) != 0)
      return ACS_ERANGE;
  }
  return ACS_OK;
}

/* Bytes of all of node v's outputs over box `out` (they share its shape). */
static int out_bytes(const struct lb *b, int32_t v, const struct acs_lbox *out, int64_t *bytes)
{
  const struct acs_lnode *n = &b->lg->n[v];
  int64_t one;
  *bytes = 0;
  if (box_bytes(b, out, &one) != 0)
    return ACS_ERANGE;
  for (int k = 0; k < n->nout; k++)
    if (n->out[k] >= 0 && acs_add_i64(*bytes, one, bytes) != 0)
      return ACS_ERANGE;
  return ACS_OK;
}

/* Working set of the tile over `out`: inputs it reads, weights, outputs. */
static int tile_ws(const struct lb *b, int32_t v, const struct acs_lbox *out, int64_t *ws)
{
  int64_t in, o;
  int rc = slots_bytes(b, v, out, SLOT_DATA | SLOT_WEIGHT, &in);
  if (rc == 0)
    rc = out_bytes(b, v, out, &o);
  if (rc == 0 && acs_add_i64(in, o, ws) != 0)
    rc = ACS_ERANGE;
  return rc;
}

/* ---- tiling ---- */

/*
 * Whether every tile of the (nrt, nfg) split fits the CMX. Each input dim
 * depends on the output's row axis, its channel axis or neither
 * (layer_region.c), so a tile's box is bounded by the largest extent each
 * dim takes over the row parts (all channels) and over the channel parts
 * (all rows): the bound is checked in O((nrt + nfg) * slots * rank) rather
 * than over all nrt * nfg tiles.
 */
static int split_fits(const struct lb *b, int32_t v, int64_t nrt, int64_t nfg, int *fits)
{
  const struct acs_lnode *n = &b->lg->n[v];
  struct acs_lbox out, in, full_out;
  int64_t total = 0, x;
  int64_t ext[2][ACS_LAYER_MAX_RANK];
  *fits = 0;
  /* The output: the largest row part times the largest channel part. */
  tile_box(b, v, 0, nrt, 0, nfg, &full_out);
  if (out_bytes(b, v, &full_out, &total) != 0)
    return ACS_ERANGE;
  for (int k = 0; k < n->nin; k++) {
    int dup = 0;
    if (!data_slot(b, n, k) && !weight_slot(b, n, k))
      continue;
    for (int j = 0; j < k; j++)
      dup |= n->in[j] == n->in[k] && n->role[j] == n->role[k];
    if (dup)
      continue; /* bounded by the first reading (same op, same box) */
    int rank = b->lg->t[n->in[k]].rank;
    for (int s = 0; s < 2; s++) {
      int64_t parts = s == 0 ? nrt : nfg;
      for (int dd = 0; dd < rank; dd++)
        ext[s][dd] = 0;
      for (int64_t i = 0; i < parts; i++) {
        tile_box(b, v, s == 0 ? i : 0, s == 0 ? nrt : 1, s == 1 ? i : 0, s == 1 ? nfg : 1, &out);
        if (acs_lnode_input_box(b->lg, v, k, &out, &in) != 0)
          return ACS_EINVAL;
        for (int dd = 0; dd < rank; dd++)
          if (in.hi[dd] - in.lo[dd] > ext[s][dd])
            ext[s][dd] = in.hi[dd] - in.lo[dd];
      }
    }
    x = 1;
    for (int dd = 0; dd < rank; dd++)
      if (acs_mul_i64(x, ext[0][dd] < ext[1][dd] ? ext[0][dd] : ext[1][dd], &x) != 0)
        return ACS_ERANGE;
    if (acs_mul_i64(x, b->bpe, &x) != 0 || acs_add_i64(total, x, &total) != 0)
      return ACS_ERANGE;
  }
  *fits = total <= b->cmx;
  return ACS_OK;
}

/* Fewest row tiles in [lo, hi] for `nfg` groups whose split fits, or 0.
 * Binary search: the bound grows with the part size, up to the edge
 * effects of clipping, so the answer is checked and, if need be, walked
 * up. O(log R) checks. */
static int min_row_tiles(const struct lb *b, int32_t v, int64_t lo, int64_t hi, int64_t nfg,
                         int64_t *out)
{
  int fits, rc;
  *out = 0;
  if (lo > hi)
    return ACS_OK;
  if ((rc = split_fits(b, v, hi, nfg, &fits)) != 0)
    return rc;
  if (!fits)
    return ACS_OK;
  int64_t l = lo, h = hi;
  while (l < h) {
    int64_t mid = l + (h - l) / 2;
    if ((rc = split_fits(b, v, mid, nfg, &fits)) != 0)
      return rc;
    if (fits)
      h = mid;
    else
      l = mid + 1;
  }
  for (;; l++) {
    if ((rc = split_fits(b, v, l, nfg, &fits)) != 0)
      return rc;
    if (fits)
      break;
  }
  *out = l;
  return ACS_OK;
}

/*
 * The tiling of node v, as for SCALE-Sim tables: the whole node when it
 * fits; else the fewest row tiles with all channels; else the fewest (row
 * tiles x channel groups), ties to fewer groups, over the O(sqrt C)
 * distinct group sizes; else one op (the scheduler reports it).
 */
static int choose_tiling(struct lb *b, int32_t v)
{
  struct lplan *p = &b->pl[v];
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[v].out[0]];
  struct acs_lbox whole;
  int64_t ws, rows = p->ra >= 0 ? o->dims[p->ra] : 1, chans = p->ca >= 0 ? o->dims[p->ca] : 1;
  int64_t nrt;
  int rc;
  p->nrt = p->nfg = 1;
  acs_ltensor_box(o, &whole);
  if ((rc = tile_ws(b, v, &whole, &ws)) != 0 || ws <= b->cmx)
    return rc;
  if ((rc = min_row_tiles(b, v, 2, rows, 1, &nrt)) != 0)
    return rc;
  if (nrt > 0) {
    p->nrt = nrt;
    return ACS_OK;
  }
  int64_t best = 0;
  for (int64_t groups = 2; groups <= chans && (best == 0 || groups < best);) {
    int64_t size = ceil_div(chans, groups);
    if ((rc = min_row_tiles(b, v, 1, rows, groups, &nrt)) != 0)
      return rc;
    if (nrt > 0 && (best == 0 || nrt * groups < best)) {
      best = nrt * groups;
      p->nrt = nrt;
      p->nfg = groups;
    }
    if (size == 1)
      break;
    groups = ceil_div(chans, size - 1); /* the smallest count with a smaller size */
  }
  return ACS_OK;
}

static int plan_nodes(struct lb *b)
{
  const struct acs_lgraph *lg = b->lg;
  for (int32_t v = 0; v < lg->nnodes; v++) {
    struct lplan *p = &b->pl[v];
    const struct acs_lnode *n = &lg->n[v];
    char nb[128];
    p->w0 = p->ddr = -1;
    p->compute = !acs_lnode_is_view(lg, v);
    if (!p->compute)
      continue;
    int r = lg->t[n->out[0]].rank;
    p->ra = r >= 3 ? 2 : r == 2 ? 0 : -1;
    p->ca = r >= 2 ? 1 : r == 1 ? 0 : -1;
    int rc = choose_tiling(b, v);
    if (rc == ACS_ERANGE)
      return acs_diag_set(b->d, rc, lg->path, 0, 0, "node '%s': tensor sizes overflow "
                          "64-bit integers at %lld bytes per element",
                          (acs_lname_mask(n->name, nb, sizeof(nb)), nb), (long long)b->bpe);
    if (rc != 0)
      return rc;
    if (p->nrt * p->nfg > MAX_TILES) {
      acs_lname_mask(n->name, nb, sizeof(nb));
      return acs_diag_set(b->d, ACS_ERANGE, lg->path, 0, 0, "node '%s' would need %lld x %lld "
                          "tiles to fit the %lld-byte CMX (at most %lld)", nb,
                          (long long)p->nrt, (long long)p->nfg, (long long)b->cmx,
                          (long long)MAX_TILES);
    }
  }
  return ACS_OK;
}

/* ---- emitting ops ---- */

/* Adds op (its name made unique with "@<k>" if taken). */
static int32_t add_op(struct lb *b, const char *name, int kind, struct acs_op *op)
{
  char buf[ACS_NAME_MAX];
  snprintf(buf, sizeof(buf), "%s", name);
  for (int k = 2; acs_graph_find_op(b->g, buf) >= 0; k++)
    snprintf(buf, sizeof(buf), "%.*s@%d", ACS_NAME_MAX - 16, name, k);
  op->name = buf;
  op->kind = (uint8_t)kind;
  op->slots = 1;
  return acs_graph_add_op(b->g, op);
}

static int32_t add_dma(struct lb *b, const char *name, int src, int dst, int64_t bytes)
{
  struct acs_op op;
  memset(&op, 0, sizeof(op));
  op.src = (uint8_t)src;
  op.dst = (uint8_t)dst;
  op.cycles = -1;
  op.bytes = bytes;
  op.out_bytes = dst == ACS_MEM_CMX ? bytes : 0;
  int32_t id = add_op(b, name, ACS_OP_DMA, &op);
  if (id < 0)
    return id;
  int rc = acs_graph_set_demand(b->g, id, b->res_dma, 1);
  if (rc == 0 && (src == ACS_MEM_DDR || dst == ACS_MEM_DDR))
    rc = acs_graph_set_demand(b->g, id, b->res_ddr, 1);
  if (rc == 0)
    rc = acs_graph_set_demand(b->g, id, b->res_cmx, bytes);
  return rc < 0 ? rc : id;
}

static int32_t add_sync(struct lb *b, const char *name)
{
  struct acs_op op;
  memset(&op, 0, sizeof(op));
  return add_op(b, name, ACS_OP_SYNC, &op);
}

static int edge(struct lb *b, int32_t src, int32_t dst)
{
  return acs_graph_add_edge(b->g, src, dst, ACS_EDGE_DATA);
}

/* "<node><suffix>" or "<node><suffix><i>" when there are several. */
static const char *op_name(char *buf, const char *node, const char *suffix, int64_t i,
                           int64_t count)
{
  if (count > 1)
    snprintf(buf, ACS_NAME_MAX, "%s%s%lld", node, suffix, (long long)i);
  else
    snprintf(buf, ACS_NAME_MAX, "%s%s", node, suffix);
  return buf;
}

/* Softmax, Resize, Transpose and Pad run on a vector core (shave); the
 * others are DPU work (convolution engines handle pooling, elementwise
 * and copies too). */
static int op_kind(int op)
{
  int cls = acs_lop_class(op);
  return cls == ACS_LC_SOFTMAX || cls == ACS_LC_RESIZE || cls == ACS_LC_TRANSPOSE ||
         cls == ACS_LC_PAD ? ACS_OP_SHAVE : ACS_OP_DPU;
}

/* Weight DMAs, one per channel group, each loading every weight slot's
 * region for the group's channels and all rows. */
static int emit_weights(struct lb *b, int32_t v)
{
  struct lplan *p = &b->pl[v];
  const struct acs_lnode *n = &b->lg->n[v];
  char name[ACS_NAME_MAX];
  for (int64_t j = 0; j < p->nfg; j++) {
    struct acs_lbox box;
    int64_t bytes;
    tile_box(b, v, 0, 1, j, p->nfg, &box);
    int rc = slots_bytes(b, v, &box, SLOT_WEIGHT, &bytes);
    if (rc != 0)
      return rc;
    if (bytes == 0)
      return ACS_OK; /* no weights */
    int32_t id = add_dma(b, op_name(name, n->name, ".w", j, p->nfg), ACS_MEM_DDR,
                         ACS_MEM_CMX, bytes);
    if (id < 0)
      return id;
    if (j == 0)
      p->w0 = id;
  }
  return ACS_OK;
}

static int emit_tiles(struct lb *b, int32_t v)
{
  struct lplan *p = &b->pl[v];
  const struct acs_lnode *n = &b->lg->n[v];
  int64_t ntiles = p->nrt * p->nfg;
  char name[ACS_NAME_MAX];
  p->tile0 = b->g->nops;
  for (int64_t i = 0; i < ntiles; i++) {
    struct acs_lbox box;
    struct acs_op op;
    int64_t ws;
    memset(&op, 0, sizeof(op));
    tile_box(b, v, i % p->nrt, p->nrt, i / p->nrt, p->nfg, &box);
    op.cycles = -1;
    int rc = acs_lnode_work(b->lg, v, &box, &op.macs);
    if (rc == 0)
      rc = out_bytes(b, v, &box, &op.out_bytes);
    if (rc == 0)
      rc = tile_ws(b, v, &box, &ws);
    if (rc != 0)
      return rc;
    int32_t id = add_op(b, ntiles > 1 ? op_name(name, n->name, ".t", i, ntiles) : n->name,
                        op_kind(n->op), &op);
    if (id < 0)
      return id;
    rc = acs_graph_set_demand(b->g, id, b->res_pe, 1);
    if (rc == 0)
      rc = acs_graph_set_demand(b->g, id, b->res_cmx, ws);
    if (rc == 0 && p->w0 >= 0)
      rc = edge(b, p->w0 + (int32_t)(i / p->nrt), id);
    if (rc < 0)
      return rc;
  }
  return ACS_OK;
}

/* The tiles of node v write its outputs to DDR (once, for every reader that
 * needs them there), joined by the sync `<node>.out`. */
static int32_t ddr_copy(struct lb *b, int32_t v)
{
  struct lplan *p = &b->pl[v];
  const struct acs_lnode *n = &b->lg->n[v];
  int64_t ntiles = p->nrt * p->nfg;
  char name[ACS_NAME_MAX];
  if (p->ddr >= 0)
    return p->ddr;
  int32_t first = b->g->nops;
  for (int64_t i = 0; i < ntiles; i++) {
    struct acs_lbox box;
    int64_t bytes;
    tile_box(b, v, i % p->nrt, p->nrt, i / p->nrt, p->nfg, &box);
    if (out_bytes(b, v, &box, &bytes) != 0)
      return ACS_ERANGE;
    int32_t id = add_dma(b, op_name(name, n->name, ".o", i, ntiles), ACS_MEM_CMX,
                         ACS_MEM_DDR, bytes);
    int rc = id < 0 ? id : edge(b, p->tile0 + (int32_t)i, id);
    if (rc < 0)
      return rc;
  }
  int32_t join = add_sync(b, op_name(name, n->name, ".out", 0, 1));
  for (int64_t i = 0; i < ntiles && join >= 0; i++) {
    int rc = edge(b, first + (int32_t)i, join);
    if (rc < 0)
      return rc;
  }
  p->ddr = join;
  return join;
}

/* Whether root tensor t reaches node v's tiles in CMX (else through DDR). */
static int in_cmx(const struct lb *b, int32_t v, int32_t t)
{
  int32_t p = b->lg->t[t].producer;
  if (tiled(&b->pl[v]))
    return 0;
  return p >= 0 ? !tiled(&b->pl[p]) : b->in_cmx[t];
}

static int root_bytes(const struct lb *b, int32_t t, int64_t *bytes)
{
  struct acs_lbox box;
  acs_ltensor_box(&b->lg->t[t], &box);
  return box_bytes(b, &box, bytes);
}

/*
 * Links node v to what its data inputs are made of: a data edge from each
 * root in CMX; from the others, the reads `<node>.i<i>` (a tile's own input
 * region when v is tiled, the whole roots otherwise) after the producers'
 * DDR copies or the network input.
 */
/* A growing list of op ids. */
struct ids {
  int32_t *v;
  size_t n, cap;
};

static int ids_add(struct ids *l, int32_t id)
{
  if (acs_grow((void **)&l->v, sizeof(*l->v), &l->cap, l->n + 1) != 0)
    return ACS_ENOMEM;
  l->v[l->n++] = id;
  return ACS_OK;
}

static int link_inputs(struct lb *b, int32_t v)
{
  struct lplan *p = &b->pl[v];
  const struct acs_lnode *n = &b->lg->n[v];
  int64_t ntiles = p->nrt * p->nfg, via_ddr = 0;
  struct ids deps = { NULL, 0, 0 };
  char name[ACS_NAME_MAX];
  int rc = ACS_OK;

  for (int k = 0; k < n->nin && rc == 0; k++) {
    if (!data_slot(b, n, k))
      continue;
    for (int32_t i = b->src_off[n->in[k]]; i < b->src_off[n->in[k] + 1] && rc == 0; i++) {
      int32_t t = b->src[i], prod = b->lg->t[t].producer, from;
      int64_t bytes;
      if (in_cmx(b, v, t)) {
        rc = edge(b, prod >= 0 ? b->pl[prod].tile0 : b->in_op[t], p->tile0);
        continue;
      }
      from = prod >= 0 ? ddr_copy(b, prod) : b->in_op[t];
      if (from < 0)
        rc = from;
      else if (!tiled(p) && (root_bytes(b, t, &bytes) != 0 ||
                             acs_add_i64(via_ddr, bytes, &via_ddr) != 0))
        rc = ACS_ERANGE;
      else
        rc = ids_add(&deps, from);
    }
  }
  for (int64_t i = 0; i < ntiles && deps.n > 0 && rc == 0; i++) {
    int64_t bytes = via_ddr;
    if (tiled(p)) {
      struct acs_lbox box;
      tile_box(b, v, i % p->nrt, p->nrt, i / p->nrt, p->nfg, &box);
      if ((rc = slots_bytes(b, v, &box, SLOT_DATA, &bytes)) != 0)
        break;
    }
    int32_t id = add_dma(b, op_name(name, n->name, ".i", i, ntiles), ACS_MEM_DDR,
                         ACS_MEM_CMX, bytes);
    rc = id < 0 ? id : edge(b, id, p->tile0 + (int32_t)i);
    for (size_t j = 0; j < deps.n && rc >= 0; j++)
      rc = edge(b, deps.v[j], id);
  }
  free(deps.v);
  return rc < 0 ? rc : ACS_OK;
}

/* ---- network inputs and outputs ---- */

/*
 * Which network inputs something reads, and whether into CMX (an untiled
 * reader, or a network output made of it): those get a DMA, the others,
 * read only by tiled nodes from DDR, a sync. Unread inputs get no op.
 */
static int emit_inputs(struct lb *b)
{
  const struct acs_lgraph *lg = b->lg;
  uint8_t *used = calloc((size_t)lg->ntensors + 1, 1);
  int32_t nused = 0, k = 0;
  char name[ACS_NAME_MAX];
  if (!used)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < lg->nnodes; v++) {
    const struct acs_lnode *n = &lg->n[v];
    if (!b->pl[v].compute)
      continue;
    for (int j = 0; j < n->nin; j++) {
      if (!data_slot(b, n, j))
        continue;
      for (int32_t i = b->src_off[n->in[j]]; i < b->src_off[n->in[j] + 1]; i++)
        if (lg->t[b->src[i]].kind == ACS_LT_INPUT) {
          used[b->src[i]] = 1;
          b->in_cmx[b->src[i]] |= !tiled(&b->pl[v]);
        }
    }
  }
  for (int32_t o = 0; o < lg->noutputs; o++)
    for (int32_t i = b->src_off[lg->outputs[o]]; i < b->src_off[lg->outputs[o] + 1]; i++)
      if (lg->t[b->src[i]].kind == ACS_LT_INPUT)
        used[b->src[i]] = b->in_cmx[b->src[i]] = 1;
  for (int32_t i = 0; i < lg->ninputs; i++)
    nused += used[lg->inputs[i]];
  int rc = ACS_OK;
  for (int32_t i = 0; i < lg->ninputs && rc == 0; i++) {
    int32_t t = lg->inputs[i], id;
    int64_t bytes;
    if (!used[t])
      continue;
    op_name(name, "input", "", k++, nused);
    if (b->in_cmx[t])
      id = root_bytes(b, t, &bytes) != 0 ? ACS_ERANGE
         : add_dma(b, name, ACS_MEM_DDR, ACS_MEM_CMX, bytes);
    else
      id = add_sync(b, name);
    rc = id < 0 ? id : ACS_OK;
    b->in_op[t] = id;
  }
  free(used);
  return rc;
}

/* Each network output: a DMA writing the roots still in CMX to DDR (a sync
 * when every root is already there), after their producers. */
static int emit_outputs(struct lb *b)
{
  const struct acs_lgraph *lg = b->lg;
  char name[ACS_NAME_MAX];
  int rc = ACS_OK;
  for (int32_t o = 0; o < lg->noutputs && rc == 0; o++) {
    int32_t t = lg->outputs[o];
    struct ids deps = { NULL, 0, 0 };
    int64_t bytes = 0, x;
    for (int32_t i = b->src_off[t]; i < b->src_off[t + 1] && rc == 0; i++) {
      int32_t r = b->src[i], prod = lg->t[r].producer, from;
      if (lg->t[r].kind == ACS_LT_WEIGHT || lg->t[r].kind == ACS_LT_PARAM)
        continue;
      if (prod >= 0 && tiled(&b->pl[prod])) {
        from = ddr_copy(b, prod);
      } else {
        from = prod >= 0 ? b->pl[prod].tile0 : b->in_op[r];
        if (root_bytes(b, r, &x) != 0 || acs_add_i64(bytes, x, &bytes) != 0)
          rc = ACS_ERANGE;
      }
      if (rc == 0)
        rc = from < 0 ? from : ids_add(&deps, from);
    }
    op_name(name, "output", "", o, lg->noutputs);
    int32_t id = rc != 0 ? rc : bytes > 0 ? add_dma(b, name, ACS_MEM_CMX, ACS_MEM_DDR, bytes)
                                          : add_sync(b, name);
    rc = id < 0 ? id : ACS_OK;
    for (size_t j = 0; j < deps.n && rc >= 0; j++)
      rc = edge(b, deps.v[j], id);
    free(deps.v);
  }
  return rc < 0 ? rc : ACS_OK;
}

static int add_resources(struct lb *b)
{
  b->res_pe = acs_graph_add_resource(b->g, "pe", ACS_RES_PE, 0);
  b->res_dma = acs_graph_add_resource(b->g, "dma", ACS_RES_DMA, 0);
  b->res_cmx = acs_graph_add_resource(b->g, "cmx", ACS_RES_CMX, 0);
  b->res_ddr = acs_graph_add_resource(b->g, "ddr", ACS_RES_DDR, 0);
  if (b->res_ddr < 0)
    return b->res_ddr;
  if (b->res_pe < 0)
    return b->res_pe;
  if (b->res_dma < 0)
    return b->res_dma;
  return b->res_cmx < 0 ? b->res_cmx : ACS_OK;
}

static int emit_all(struct lb *b)
{
  int rc = add_resources(b);
  if (rc == 0)
    rc = emit_inputs(b);
  for (int32_t i = 0; i < b->lg->nnodes && rc == 0; i++) {
    int32_t v = b->lg->topo[i];
    if (!b->pl[v].compute)
      continue;
    rc = emit_weights(b, v);
    if (rc == 0)
      rc = emit_tiles(b, v);
    if (rc == 0)
      rc = link_inputs(b, v);
  }
  return rc == 0 ? emit_outputs(b) : rc;
}

int acs_lgraph_build(const struct acs_lgraph *lg, const struct acs_platform *p,
                     struct acs_graph *g, struct acs_diag *d)
{
  struct lb b;
  int rc;

  if (!lg->finalized || !lg->inferred)
    return ACS_EINVAL;
  memset(&b, 0, sizeof(b));
  b.lg = lg;
  b.g = g;
  b.d = d;
  b.bpe = (int64_t)acs_platform_get(p, ACS_P_BYTES_PER_ELEM);
  b.cmx = acs_platform_cmx_bytes(p);
  b.pl = calloc((size_t)lg->nnodes + 1, sizeof(*b.pl));
  b.in_op = malloc(((size_t)lg->ntensors + 1) * sizeof(*b.in_op));
  b.in_cmx = calloc((size_t)lg->ntensors + 1, 1);
  rc = ACS_ENOMEM;
  if (!b.pl || !b.in_op || !b.in_cmx)
    goto out_with_plans;
  for (int32_t t = 0; t < lg->ntensors; t++)
    b.in_op[t] = -1;
  rc = resolve_sources(&b);
  if (rc == 0)
    rc = plan_nodes(&b);
  if (rc != 0)
    goto out_with_plans;
  rc = acs_graph_init(g, lg->name, lg->path);
  if (rc != 0)
    goto out_with_plans;
  rc = emit_all(&b);
  if (rc == 0)
    rc = acs_graph_finalize(g, d);
  if (rc != 0) {
    if (rc == ACS_ERANGE && d->msg[0] == '\0')
      acs_diag_set(d, rc, lg->path, 0, 0, "tensor sizes overflow 64-bit integers at %lld "
                   "bytes per element", (long long)b.bpe);
    acs_graph_destroy(g);
  }
out_with_plans:
  if (rc != 0 && rc != ACS_ENOMEM && d->file[0] == '\0')
    snprintf(d->file, sizeof(d->file), "%s", lg->path);
  free(b.pl);
  free(b.in_op);
  free(b.in_cmx);
  free(b.src_off);
  free(b.src);
  return rc;
}
