/*
 * layer_tile.c - how one compute node is cut: tiles, loop order, and the
 * split of each tile over the PEs (layer_build_int.h, decisions 2 and 3).
 *
 * The objective. A node's output is cut into R row tiles x G channel
 * groups. A tile needs its weights (the group's), its input region (the
 * part that comes from DDR: resident inputs are already in CMX) and room
 * for its output (unless the output is resident). The cut must fit the
 * node's budget b (the CMX the resident tensors leave) double-buffered:
 *
 *     2 x (weights + input + output of the largest tile) <= b,
 *
 * so the next tile's loads (or the next layer's first) proceed while a
 * tile runs. Among the cuts that fit, the one with the least estimated
 * time is taken:
 *
 *     max(compute, link)  where
 *     compute = tiles x the cycles of the largest workload of a tile
 *     link    = DMAs x DDR latency + DDR bytes / link bytes per cycle
 *
 * (the planners hold the DDR link for a transfer's latency and bytes, so
 * this is the time the link is busy). Two loop orders give the DDR bytes:
 * groups outer (each group's weights load once; every row tile's input
 * loads once per group) or rows outer (each row tile's input loads once;
 * every group's weights load once per row tile). Ties go to fewer tiles,
 * then fewer groups. When no cut fits double-buffered, the fewest tiles
 * that fit single-buffered; when none fits at all, the smallest tile (one
 * row of one channel group), which the schedulers then report infeasible
 * with its bytes.
 *
 * The search. For G in {1, 2, 4, ..., C} (O(log C) values), the fewest row
 * tiles R that fit is found by binary search (the tile's bytes grow with
 * its size, up to the edge effects of clipping, so the answer is checked
 * and walked up), O(log R) checks. A check bounds every tile's region by
 * sampling the parts that can be largest (the first, middle and last of
 * each size: interior parts of one size read regions of one size, clipped
 * parts less), O(slots x rank). So a node costs O(log C x log R x slots x
 * rank), whatever its size.
 *
 * The workloads. A tile is split over min(pe_count, extent) PEs along one
 * output dim: channels, rows or columns. The split with the smallest
 * largest workload (MACs balance) wins; ties go to the one that reads the
 * least in all (a channel split reads the whole input region on every PE
 * and a share of the weights, a spatial split the reverse), then to
 * channels.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/layer_build_int.h"

/* Sampled parts per axis (see the top of the file). */
#define MAX_SAMPLES 12

/* The parts of `parts` worth checking for the largest region. */
static int sample_parts(int64_t total, int64_t parts, int64_t *out)
{
  int64_t r = total % parts, cand[MAX_SAMPLES] = {
    0, 1, 2, r - 1, r, r + 1, r / 2, r + (parts - r) / 2, parts - 3, parts - 2, parts - 1, parts / 2,
  };
  int n = 0;

  if (parts <= MAX_SAMPLES) {
    for (int64_t i = 0; i < parts; i++)
      out[n++] = i;
    return n;
  }
  for (int k = 0; k < MAX_SAMPLES; k++) {
    int dup = cand[k] < 0 || cand[k] >= parts;
    for (int j = 0; j < n && !dup; j++)
      dup = out[j] == cand[k];
    if (!dup)
      out[n++] = cand[k];
  }
  return n;
}

/* The box of row part i of R (all channels) or channel part j of G (all
 * rows) of node v's output. */
static void part_box(const struct acs__lb *b, int32_t v, int axis, int64_t parts, int64_t i,
                     struct acs_lbox *box)
{
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[v].out[0]];

  acs_ltensor_box(o, box);
  if (axis >= 0) {
    box->lo[axis] = acs__part_start(o->dims[axis], parts, i);
    box->hi[axis] = box->lo[axis] + acs__part_size(o->dims[axis], parts, i);
  }
}

/* The entry of the builder's memos for the key (v, x, y). */
static size_t memo_slot(const struct acs__lb *b, int32_t v, int64_t x, int64_t y)
{
  uint64_t h = ((uint64_t)y * UINT64_C(0x9e3779b97f4a7c15)) ^
               ((uint64_t)x * UINT64_C(0xff51afd7ed558ccd)) ^
               ((uint64_t)(uint32_t)v * UINT64_C(0xc2b2ae3d27d4eb4f));
  return (size_t)(h ^ h >> 29) & b->memo_mask;
}

/*
 * The largest extent, per input dim, of the regions of slot k that the
 * parts of one output axis read (s = 0: the rows in `parts` parts, s = 1:
 * the channels in `parts` groups), from the sampled parts. It depends on
 * the layer graph alone, and a search asks for the same counts again and
 * again (every group count's binary search over the rows starts with the
 * same midpoints; a residency candidate re-plans every node of its life
 * within a smaller budget), so it is kept in the builder's memo.
 */
static int axis_extents(struct acs__lb *b, int32_t v, int k, int s, int64_t parts,
                        int64_t *ext)
{
  const struct acs__lplan *p = &b->pl[v];
  int rank = b->lg->t[b->lg->n[v].in[k]].rank, axis = s == 0 ? p->ra : p->ca;
  struct acs__lext *e = &b->ext[memo_slot(b, v, (int64_t)k << 1 | s, parts)];
  int64_t idx[MAX_SAMPLES];
  int n;

  if (axis < 0)
    parts = 1;  /* one part, the whole output, whatever the count */
  if (e->parts == parts && e->v == v && e->k == k && e->s == s) {
    memcpy(ext, e->ext, (size_t)rank * sizeof(*ext));
    return ACS_OK;
  }
  n = axis >= 0 ? sample_parts(b->lg->t[b->lg->n[v].out[0]].dims[axis], parts, idx) : 1;
  if (axis < 0)
    idx[0] = 0;
  for (int dd = 0; dd < rank; dd++)
    ext[dd] = 0;
  for (int i = 0; i < n; i++) {
    struct acs_lbox out, in;
    part_box(b, v, axis, parts, idx[i], &out);
    if (acs_lnode_input_box(b->lg, v, k, &out, &in) != 0)
      return ACS_EINVAL;
    for (int dd = 0; dd < rank; dd++)
      if (in.hi[dd] - in.lo[dd] > ext[dd])
        ext[dd] = in.hi[dd] - in.lo[dd];
  }
  *e = (struct acs__lext){ .parts = parts, .v = v, .k = k, .s = (int8_t)s };
  memcpy(e->ext, ext, (size_t)rank * sizeof(*ext));
  return ACS_OK;
}

/*
 * A bound on the bytes of slot k that any tile of the (R, G) cut reads:
 * every input dim follows the row axis, the channel axis or neither
 * (layer_region.c), and a tile lies in one row part and one channel part,
 * so per dim the smaller of the largest extents over the row parts and
 * over the channel parts bounds it.
 */
static int slot_bound(struct acs__lb *b, int32_t v, int k, int64_t R, int64_t G,
                      int64_t *bytes)
{
  int rank = b->lg->t[b->lg->n[v].in[k]].rank, rc;
  int64_t ext[2][ACS_LAYER_MAX_RANK], x = 1;

  if ((rc = axis_extents(b, v, k, 0, R, ext[0])) != 0 ||
      (rc = axis_extents(b, v, k, 1, G, ext[1])) != 0)
    return rc;
  for (int dd = 0; dd < rank; dd++)
    if (acs_mul_i64(x, ext[0][dd] < ext[1][dd] ? ext[0][dd] : ext[1][dd], &x) != 0)
      return ACS_ERANGE;
  return acs_mul_i64(x, b->bpe, bytes) != 0 ? ACS_ERANGE : ACS_OK;
}

/* What the largest tile of the (R, G) cut loads and holds. */
struct tile_bytes {
  int64_t w, in, out;
};

/*
 * The slots of node v that a tile loads (a weight, or data from DDR; a
 * slot reading the same tensor in the same role as an earlier one is
 * bounded by it), into b->cur, with the key of the tile memo for them and
 * the output's residency (0: more slots than it can say). The residency
 * is fixed while a search runs, so the search asks once rather than at
 * every cut it checks.
 */
static void classify(struct acs__lb *b, int32_t v)
{
  const struct acs_lnode *n = &b->lg->n[v];
  struct acs__lslots *c = &b->cur;
  uint64_t mask = 0;

  c->v = v;
  c->n = 0;
  for (int k = 0; k < n->nin; k++) {
    int w = acs__lb_weight_slot(b, n, k), dup = 0;
    if (!w && !acs__lb_slot_from_ddr(b, n, k))
      continue;
    for (int j = 0; j < k; j++)
      dup |= n->in[j] == n->in[k] && n->role[j] == n->role[k];
    if (dup)
      continue; /* bounded by the first reading */
    c->slot_k[c->n] = k;
    c->slot_w[c->n++] = (uint8_t)w;
    if (k < 62)
      mask |= UINT64_C(1) << k;
  }
  c->sig = n->nin <= 62 ? UINT64_C(1) << 63 | (uint64_t)b->pl[v].res_out << 62 | mask : 0;
}

/* The box of the first (largest) tile of the (R, G) cut of node v:
 * acs__lb_tile_box's tile 0 for that cut. */
static void first_tile_box(const struct acs__lb *b, int32_t v, int64_t R, int64_t G,
                           struct acs_lbox *box)
{
  const struct acs__lplan *p = &b->pl[v];
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[v].out[0]];

  acs_ltensor_box(o, box);
  if (p->ra >= 0)
    box->hi[p->ra] = box->lo[p->ra] + acs__part_size(o->dims[p->ra], R, 0);
  if (p->ca >= 0)
    box->hi[p->ca] = box->lo[p->ca] + acs__part_size(o->dims[p->ca], G, 0);
}

static int tile_bytes_of(struct acs__lb *b, int32_t v, int64_t R, int64_t G,
                         struct tile_bytes *tb)
{
  const struct acs__lslots *c = &b->cur;
  struct acs_lbox box;
  int rc;

  memset(tb, 0, sizeof(*tb));
  for (int i = 0; i < c->n; i++) {
    int64_t x;
    if ((rc = slot_bound(b, v, c->slot_k[i], R, G, &x)) != 0)
      return rc;
    if (acs_add_i64(c->slot_w[i] ? tb->w : tb->in, x, c->slot_w[i] ? &tb->w : &tb->in) != 0)
      return ACS_ERANGE;
  }
  if (b->pl[v].res_out)
    return ACS_OK;
  first_tile_box(b, v, R, G, &box);
  return acs__lb_out_bytes(b, v, &box, &tb->out);
}

/* tile_bytes_of through the builder's memo, for the slots classify chose:
 * a search's binary searches over the rows probe the same counts as the
 * searches of the node before it whenever its slots are the same, with
 * only the budget changed. */
static int tile_bytes(struct acs__lb *b, int32_t v, int64_t R, int64_t G,
                      struct tile_bytes *tb)
{
  uint64_t sig = b->cur.sig;
  struct acs__ltile *e = &b->tile[memo_slot(b, v, R ^ (int64_t)(sig >> 1), G)];
  int rc;

  if (sig && e->R == R && e->G == G && e->v == v && e->sig == sig) {
    *tb = (struct tile_bytes){ e->w, e->in, e->out };
    return ACS_OK;
  }
  if ((rc = tile_bytes_of(b, v, R, G, tb)) == ACS_OK && sig)
    *e = (struct acs__ltile){ .R = R, .G = G, .w = tb->w, .in = tb->in, .out = tb->out,
                              .sig = sig, .v = v };
  return rc;
}

enum { FIT_DOUBLE, FIT_SINGLE };

/* Whether the (R, G) cut fits the node's budget; makes it the node's
 * current cut. */
static int fits(struct acs__lb *b, int32_t v, int64_t R, int64_t G, int mode, int *ok)
{
  struct tile_bytes tb;
  int64_t sum;
  int rc;

  b->pl[v].nrt = R;
  b->pl[v].nfg = G;
  rc = tile_bytes(b, v, R, G, &tb);
  *ok = 0;
  if (rc != 0)
    return rc;
  if (acs_add_i64(tb.w, tb.in, &sum) != 0 || acs_add_i64(sum, tb.out, &sum) != 0 ||
      (mode == FIT_DOUBLE && acs_mul_i64(sum, 2, &sum) != 0))
    return ACS_OK; /* beyond 2^63 bytes: does not fit */
  *ok = sum <= b->pl[v].budget;
  return ACS_OK;
}

/* The fewest row tiles that fit with G groups, or 0. */
static int min_rows(struct acs__lb *b, int32_t v, int64_t rows, int64_t G, int mode,
                    int64_t *out)
{
  int64_t lo = 1, hi = rows;
  int ok, rc;

  *out = 0;
  if ((rc = fits(b, v, rows, G, mode, &ok)) != 0 || !ok)
    return rc;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if ((rc = fits(b, v, mid, G, mode, &ok)) != 0)
      return rc;
    if (ok)
      hi = mid;
    else
      lo = mid + 1;
  }
  /* Clipping can make a smaller count fit where a larger one does not;
   * walk up a little, then take the count known to fit. */
  for (int step = 0; step < 64 && lo < rows; step++, lo++) {
    if ((rc = fits(b, v, lo, G, mode, &ok)) != 0 || ok)
      break;
  }
  *out = rc == 0 && ok ? lo : rows;
  return rc;
}

/* ---- workloads ---- */

/* The smallest extent along `axis` over the tiles of the current cut. */
static int64_t min_extent(const struct acs__lb *b, int32_t v, int axis)
{
  const struct acs__lplan *p = &b->pl[v];
  int64_t dim = b->lg->t[b->lg->n[v].out[0]].dims[axis];

  if (axis == p->ra)
    return dim / p->nrt;
  if (axis == p->ca)
    return dim / p->nfg;
  return dim;
}

/* Balance (largest workload's work) and reads (bytes of all workloads) of
 * splitting tile 0 along `axis` in w parts. */
static int split_cost(const struct acs__lb *b, int32_t v, int axis, int64_t w, int64_t *work,
                      double *reads)
{
  struct acs_lbox box;
  int64_t in, out;
  int rc;

  acs__lb_tile_box(b, v, 0, &box);
  if (axis >= 0) {
    int64_t e = box.hi[axis] - box.lo[axis];
    box.hi[axis] = box.lo[axis] + acs__part_size(e, w, 0);
  }
  if ((rc = acs_lnode_work(b->lg, v, &box, work)) != 0 ||
      (rc = acs__lb_slots_bytes(b, v, &box, ACS__SLOT_DATA | ACS__SLOT_WEIGHT, &in)) != 0 ||
      (rc = acs__lb_out_bytes(b, v, &box, &out)) != 0)
    return rc;
  *reads = (double)w * ((double)in + (double)out);
  return ACS_OK;
}

/* Chooses p->split and p->nwl for the current cut; *work is the largest
 * workload's. */
static int split_search(struct acs__lb *b, int32_t v, int64_t *work)
{
  struct acs__lplan *p = &b->pl[v];
  int rank = b->lg->t[b->lg->n[v].out[0]].rank;
  int axes[3] = { p->ca, p->ra, p->ra >= 0 && p->ra + 1 < rank ? p->ra + 1 : -1 };
  double best_reads = 0;
  int rc;

  p->split = -1;
  p->nwl = 1;
  if ((rc = split_cost(b, v, -1, 1, work, &best_reads)) != 0)
    return rc;
  for (int i = 0; i < 3; i++) {
    int64_t w, wk;
    double reads;
    if (axes[i] < 0 || (i == 2 && axes[i] == p->ca))
      continue;
    w = min_extent(b, v, axes[i]);
    w = w < b->pes ? w : b->pes;
    if (w <= 1)
      continue;
    if ((rc = split_cost(b, v, axes[i], w, &wk, &reads)) != 0)
      return rc;
    if (p->split < 0 || wk < *work || (wk == *work && reads < best_reads)) {
      p->split = (int8_t)axes[i];
      p->nwl = (int32_t)w;
      *work = wk;
      best_reads = reads;
    }
  }
  return ACS_OK;
}

/* split_search through the builder's memo: the split is a function of the
 * layer graph and the cut alone, and every search over the node (one per
 * residency candidate whose life covers it) costs the same cuts again. */
static int choose_split(struct acs__lb *b, int32_t v, int64_t *work)
{
  struct acs__lplan *p = &b->pl[v];
  struct acs__lsplit *e = &b->split[memo_slot(b, v, p->nrt, p->nfg)];
  int rc;

  if (e->R == p->nrt && e->G == p->nfg && e->v == v) {
    p->split = e->split;
    p->nwl = e->nwl;
    *work = e->work;
    return ACS_OK;
  }
  if ((rc = split_search(b, v, work)) == ACS_OK)
    *e = (struct acs__lsplit){ .R = p->nrt, .G = p->nfg, .work = *work, .v = v,
                               .nwl = p->nwl, .split = p->split };
  return rc;
}

/* ---- cost of a cut ---- */

struct cut {
  int64_t R, G;
  int rows_outer;
  double est, link;
};

/*
 * The estimated time of the (R, G) cut in its better loop order. Rows
 * outer keeps a row tile's input for every group, so it needs that input
 * for all channels (more than a group's when the input follows the
 * channels, as in a depthwise convolution) to fit beside the streams.
 */
static int cut_cost(struct acs__lb *b, int32_t v, int64_t R, int64_t G, struct cut *c)
{
  struct acs__lplan *p = &b->pl[v];
  struct tile_bytes tb, row;
  double tiles = (double)R * (double)G, compute, link[2];
  int64_t work;
  int rc, rows_fit = R > 1 && G > 1;

  if (rows_fit && (rc = tile_bytes(b, v, R, 1, &row)) != 0)
    return rc;
  p->nrt = R;
  p->nfg = G;
  if ((rc = tile_bytes(b, v, R, G, &tb)) != 0 || (rc = choose_split(b, v, &work)) != 0)
    return rc;
  if (rows_fit)
    rows_fit = 2.0 * ((double)tb.w + (double)row.in + (double)tb.out) <= (double)p->budget;
  compute = tiles * ceil((double)work / (double)b->mpc);
  for (int order = 0; order < 2; order++) {
    /* groups outer: weights G times, inputs R x G times; rows outer:
     * weights R x G times, every row's input once. */
    double nw = tb.w > 0 ? (order ? tiles : (double)G) : 0;
    double ni = tb.in > 0 ? (order ? (double)R : tiles) : 0;
    double no = tb.out > 0 ? tiles : 0;
    double in = order ? (double)row.in : (double)tb.in;
    double bytes = nw * (double)tb.w + ni * in + no * (double)tb.out;
    link[order] = (nw + ni + no) * (double)b->latency + bytes / b->link_bpc;
    if (!rows_fit)
      break;
  }
  c->R = R;
  c->G = G;
  c->rows_outer = rows_fit && link[1] < link[0];
  c->link = link[c->rows_outer];
  c->est = fmax(compute, c->link);
  return ACS_OK;
}

static int better(const struct cut *a, const struct cut *c)
{
  if (a->est != c->est)
    return a->est < c->est;
  if (a->R * a->G != c->R * c->G)
    return a->R * a->G < c->R * c->G;
  return a->G < c->G;
}

/* The best cut that fits in `mode`; best->R == 0 when none does. */
static int search(struct acs__lb *b, int32_t v, int mode, struct cut *best)
{
  struct acs__lplan *p = &b->pl[v];
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[v].out[0]];
  int64_t rows = p->ra >= 0 ? o->dims[p->ra] : 1, chans = p->ca >= 0 ? o->dims[p->ca] : 1;
  int64_t cap = acs_limit_get(ACS_LIMIT_OPS); /* more tiles cannot be built */
  int rc;

  best->R = 0;
  classify(b, v);
  for (int64_t G = 1;; G = G * 2 < chans ? G * 2 : chans) {
    int64_t R;
    struct cut c;
    if ((rc = min_rows(b, v, rows, G, mode, &R)) != 0)
      return rc;
    if (R > 0 && R <= cap / G) {
      if ((rc = cut_cost(b, v, R, G, &c)) != 0)
        return rc;
      if (best->R == 0 || better(&c, best))
        *best = c;
    }
    if (G >= chans || (best->R > 0 && best->R * best->G == 1))
      break;
  }
  return ACS_OK;
}

int acs__lb_node_link(struct acs__lb *b, int32_t v, double *link)
{
  struct cut best;
  int rc = search(b, v, FIT_DOUBLE, &best);

  *link = rc == 0 && best.R > 0 ? best.link : INFINITY;
  return rc;
}

int acs__lb_plan_tiles(struct acs__lb *b, int32_t v)
{
  struct acs__lplan *p = &b->pl[v];
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[v].out[0]];
  struct cut best;
  int64_t work;
  int rc;

  if ((rc = search(b, v, FIT_DOUBLE, &best)) != 0)
    return rc;
  if (best.R == 0 && (rc = search(b, v, FIT_SINGLE, &best)) != 0)
    return rc;
  if (best.R == 0) {
    /* Nothing fits: the smallest tile, reported by the schedulers. */
    best.R = p->ra >= 0 ? o->dims[p->ra] : 1;
    best.G = p->ca >= 0 ? o->dims[p->ca] : 1;
    best.rows_outer = 0;
  }
  p->nrt = best.R;
  p->nfg = best.G;
  p->rows_outer = (uint8_t)best.rows_outer;
  return choose_split(b, v, &work);
}
