/*
 * dnn.c - SCALE-Sim topology tables and their op DAG.
 *
 * A table is a header row starting with "Layer name" and one row per layer:
 * name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels,
 * Num Filter, Strides. It is read the way SCALE-Sim reads it: columns after
 * Strides are ignored, every layer's input tensor is taken from its own row
 * (no padding: OH = (IH - FH) / S + 1), a depthwise layer written as
 * Num Filter = 1 is taken literally, and the rows form a chain (layer i
 * consumes layer i-1). Rows that disagree with the layer before (a pooling
 * layer left out, padding) are warnings, never errors.
 *
 * acs_dnn_build() turns the layers into ops for one platform: weight DMAs,
 * compute ops tiled to fit the CMX, the DMAs that link tiled layers through
 * DDR, a network input and output. The README ("DNN layer tables") describes the mapping.
 */
#include "core/load/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { F_NAME, F_IH, F_IW, F_FH, F_FW, F_C, F_NF, F_S, F__COUNT };

static const char *const dnn_col_name[F__COUNT] = {
  "Layer name", "IFMAP Height", "IFMAP Width", "Filter Height",
  "Filter Width", "Channels", "Num Filter", "Strides",
};

/* Longest layer name: leaves room for suffixes such as ".t1234567". */
#define LAYER_NAME_MAX (ACS_NAME_MAX - 32)

struct dnn_reader {
  struct acs_workload *w;
  const char *path;
  int have_header, header_line;
  struct acs_dnn_layer *layers;
  size_t n, cap;
  struct acs__names names;
};

/* ---- reading ---- */

static int read_header(struct dnn_reader *r, const struct acs_csv_field *f,
                       int line, struct acs_diag *d)
{
  if (strcasecmp(f[0].text, "Layer name") != 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, f[0].line, f[0].col,
                        "not a SCALE-Sim topology table: the header must start "
                        "with 'Layer name', found '%s'", f[0].text);
  r->have_header = 1;
  r->header_line = line;
  return ACS_OK;
}

static int parse_numbers(struct dnn_reader *r, const struct acs_csv_field *f,
                         int64_t v[F__COUNT], struct acs_diag *d)
{
  for (int i = F_IH; i < F__COUNT; i++) {
    if (f[i].text[0] == '\0')
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "missing value for %s", dnn_col_name[i]);
    int err = acs_parse_i64(f[i].text, &v[i]);
    if (err == ACS_EPARSE)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "bad number '%s' for %s (expected a positive integer)",
                          f[i].text, dnn_col_name[i]);
    if ((err == ACS_ERANGE && f[i].text[0] != '-') || (err == ACS_OK && v[i] > ACS_QTY_MAX))
      return acs_diag_set(d, ACS_ERANGE, r->path, f[i].line, f[i].col,
                          "'%s' is out of range for %s (max %lld)", f[i].text,
                          dnn_col_name[i], (long long)ACS_QTY_MAX);
    if (err != ACS_OK || v[i] <= 0)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "%s must be positive, got %s", dnn_col_name[i], f[i].text);
  }
  if (v[F_FH] > v[F_IH] || v[F_FW] > v[F_IW]) {
    int k = v[F_FH] > v[F_IH] ? F_FH : F_FW;
    return acs_diag_set(d, ACS_EPARSE, r->path, f[k].line, f[k].col,
                        "filter %lldx%lld is larger than the %lldx%lld ifmap",
                        (long long)v[F_FH], (long long)v[F_FW],
                        (long long)v[F_IH], (long long)v[F_IW]);
  }
  return ACS_OK;
}

/*
 * Names the layer. SCALE-Sim does not care about names, so an empty or
 * repeated one is a warning and gets a unique replacement.
 */
static int name_layer(struct dnn_reader *r, const struct acs_csv_field *f,
                      int line, struct acs_dnn_layer *L, struct acs_diag *d)
{
  char buf[ACS_NAME_MAX];
  const char *name = f[F_NAME].text;
  int32_t old;

  if (strlen(name) > LAYER_NAME_MAX)
    return acs_diag_set(d, ACS_EPARSE, r->path, f[F_NAME].line, f[F_NAME].col,
                        "layer name longer than %d bytes", LAYER_NAME_MAX);
  if (*name == '\0') {
    snprintf(buf, sizeof(buf), "row%d", line);
    acs_diag_warn(d, r->path, line, f[F_NAME].col,
                  "layer without a name; calling it '%s'", buf);
    name = buf;
  } else if ((old = acs__names_get(&r->names, name)) >= 0) {
    snprintf(buf, sizeof(buf), "%s@%d", name, line);
    acs_diag_warn(d, r->path, line, f[F_NAME].col,
                  "duplicate layer name '%s' (first at line %d); calling it '%s'",
                  name, (int)r->layers[old].line, buf);
    name = buf;
  }
  L->name = acs_arena_strdup(&r->w->arena, name);
  if (!L->name)
    return ACS_ENOMEM;
  int rc = acs__names_put(&r->names, L->name, (int32_t)r->n, &old);
  return rc < 0 ? rc : ACS_OK;
}

static int64_t out_dim(int64_t in, int64_t filt, int64_t stride)
{
  return (in - filt) / stride + 1;
}

/*
 * Whether `next` is a plausible spatial size after a layer of input `in`:
 * SCALE-Sim computes outputs without padding, (in - filt) / stride + 1, but
 * the networks these tables describe pad their convolutions ("same"), giving
 * ceil(in / stride). Tables follow the real network, so both are consistent.
 */
static int dim_follows(int64_t in, int64_t filt, int64_t stride, int64_t next)
{
  return next == out_dim(in, filt, stride) || next == (in + stride - 1) / stride;
}

/*
 * Warns when the row's input shape is not the previous layer's output. A
 * depthwise layer (written as Num Filter = 1) keeps its input channels, so
 * its output has `channels` channels, not one. What remains are real gaps:
 * pooling layers left out, or branch layers (ResNet shortcuts) that read an
 * earlier tensor; the layer still takes its input shape from its own row.
 */
static void check_chain(struct dnn_reader *r, const struct acs_dnn_layer *L,
                        int col, struct acs_diag *d)
{
  if (r->n == 0)
    return;
  const struct acs_dnn_layer *P = &r->layers[r->n - 1];
  int64_t oh = out_dim(P->ifmap_h, P->filt_h, P->stride);
  int64_t ow = out_dim(P->ifmap_w, P->filt_w, P->stride);
  int64_t och = P->num_filt == 1 ? P->channels : P->num_filt;
  if (dim_follows(P->ifmap_h, P->filt_h, P->stride, L->ifmap_h) &&
      dim_follows(P->ifmap_w, P->filt_w, P->stride, L->ifmap_w) &&
      (och == L->channels || P->num_filt == L->channels))
    return;
  acs_diag_warn(d, r->path, L->line, col,
                "layer '%s' input %lldx%lldx%lld does not match '%s' output "
                "%lldx%lldx%lld (%lldx%lld padded; a pooling or branch layer "
                "left out?); using the row's own shape", L->name,
                (long long)L->ifmap_h, (long long)L->ifmap_w, (long long)L->channels,
                P->name, (long long)oh, (long long)ow, (long long)och,
                (long long)((P->ifmap_h + P->stride - 1) / P->stride),
                (long long)((P->ifmap_w + P->stride - 1) / P->stride));
}

static int read_layer(struct dnn_reader *r, const struct acs_csv_field *f,
                      size_t n, int line, struct acs_diag *d)
{
  int64_t v[F__COUNT];
  struct acs_dnn_layer L;
  int rc;

  if (n < F__COUNT) {
    const struct acs_csv_field *last = &f[n - 1];
    return acs_diag_set(d, ACS_EPARSE, r->path, last->line,
                        last->col + (int)strlen(last->text),
                        "layer row has %zu fields; expected 8 (name, IFMAP "
                        "Height, IFMAP Width, Filter Height, Filter Width, "
                        "Channels, Num Filter, Strides)", n);
  }
  rc = parse_numbers(r, f, v, d);
  if (rc != 0)
    return rc;
  memset(&L, 0, sizeof(L));
  L.ifmap_h = v[F_IH];
  L.ifmap_w = v[F_IW];
  L.filt_h = v[F_FH];
  L.filt_w = v[F_FW];
  L.channels = v[F_C];
  L.num_filt = v[F_NF];
  L.stride = v[F_S];
  L.line = line;
  rc = name_layer(r, f, line, &L, d);
  if (rc != 0)
    return rc;
  check_chain(r, &L, f[F_IH].col, d);
  if (acs_grow((void **)&r->layers, sizeof(*r->layers), &r->cap, r->n + 1) != 0)
    return ACS_ENOMEM;
  r->layers[r->n++] = L;
  return ACS_OK;
}

static int on_record(void *ctx, const struct acs_csv_field *f, size_t n,
                     int line, struct acs_diag *d)
{
  struct dnn_reader *r = ctx;
  if (!r->have_header)
    return read_header(r, f, line, d);
  return read_layer(r, f, n, line, d);
}

int acs_dnn_load(const char *path, struct acs_workload *w, struct acs_diag *d)
{
  struct dnn_reader r;
  memset(&r, 0, sizeof(r));
  r.w = w;
  r.path = path;

  int rc = acs_csv_read(path, on_record, &r, d);
  if (rc != 0)
    goto out_with_layers;
  if (!r.have_header) {
    rc = acs_diag_set(d, ACS_EPARSE, path, 1, 1, "empty file: no header row");
    goto out_with_layers;
  }
  if (r.n == 0) {
    rc = acs_diag_set(d, ACS_EPARSE, path, r.header_line, 1,
                      "no layer rows after the header");
    goto out_with_layers;
  }
  w->layers = acs_arena_calloc(&w->arena, r.n, sizeof(*w->layers));
  if (!w->layers) {
    rc = ACS_ENOMEM;
    goto out_with_layers;
  }
  memcpy(w->layers, r.layers, r.n * sizeof(*w->layers));
  w->nlayers = r.n;
  w->kind = ACS_WL_DNN;
out_with_layers:
  free(r.layers);
  acs__names_free(&r.names);
  return rc;
}

/* ---- sizes and tiling ---- */

struct plan {
  int64_t oh, ow;
  int64_t in_b, w_b, out_b, macs, ws; /* whole layer, bytes and MACs */
  int64_t nrt, nfg;                   /* row tiles, filter groups */
  int32_t tile0;                      /* op id of tile 0 (tiles are contiguous) */
};

/* The product of f[0..n), or -1 when it exceeds ACS_QTY_MAX. */
static int mul_all(int64_t *out, int n, const int64_t *f)
{
  int64_t p = 1;
  for (int i = 0; i < n; i++)
    if (acs_mul_i64(p, f[i], &p) != 0 || p > ACS_QTY_MAX)
      return -1;
  *out = p;
  return 0;
}

/*
 * Whole-layer sizes, each at most ACS_QTY_MAX; every tile's numbers are
 * smaller, so no size computed later can overflow. Returns NULL, or what
 * is too large, for the message.
 */
static const char *layer_sizes(const struct acs_dnn_layer *L, int64_t bpe, struct plan *pl)
{
  memset(pl, 0, sizeof(*pl));
  pl->oh = out_dim(L->ifmap_h, L->filt_h, L->stride);
  pl->ow = out_dim(L->ifmap_w, L->filt_w, L->stride);
  const int64_t in[] = { L->ifmap_h, L->ifmap_w, L->channels, bpe };
  const int64_t wt[] = { L->filt_h, L->filt_w, L->channels, L->num_filt, bpe };
  const int64_t out[] = { pl->oh, pl->ow, L->num_filt, bpe };
  const int64_t macs[] = { pl->oh, pl->ow, L->filt_h, L->filt_w, L->channels,
                           L->num_filt };
  if (mul_all(&pl->in_b, 4, in))
    return "its input tensor has";
  if (mul_all(&pl->w_b, 5, wt))
    return "its weights have";
  if (mul_all(&pl->out_b, 4, out))
    return "its output tensor has";
  if (mul_all(&pl->macs, 6, macs))
    return "it computes";
  pl->ws = pl->in_b + pl->w_b + pl->out_b; /* < 3 * 2^53: no overflow */
  if (pl->ws > ACS_QTY_MAX)
    return "its input, weights and output have";
  pl->nrt = pl->nfg = 1;
  return NULL;
}

/* Input rows a tile of `rows` output rows reads. */
static int64_t in_rows(const struct acs_dnn_layer *L, int64_t rows)
{
  return (rows - 1) * L->stride + L->filt_h;
}

/* Working set (input rows + weights + output) of a rows x filters tile. */
static int64_t tile_ws(const struct acs_dnn_layer *L, const struct plan *pl,
                       int64_t bpe, int64_t rows, int64_t filt)
{
  return in_rows(L, rows) * L->ifmap_w * L->channels * bpe +
         L->filt_h * L->filt_w * L->channels * filt * bpe +
         rows * pl->ow * filt * bpe;
}

/* Most output rows a tile of `filt` filters can have within cmx; 0 if none.
 * The working set grows with rows, so binary search: O(log OH). */
static int64_t max_rows(const struct acs_dnn_layer *L, const struct plan *pl,
                        int64_t bpe, int64_t filt, int64_t cmx)
{
  int64_t lo = 0, hi = pl->oh;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (tile_ws(L, pl, bpe, mid, filt) <= cmx)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
  return a / b + (a % b != 0);
}

/*
 * Chooses the tiling: the whole layer when it fits; else the fewest tiles of
 * output rows with all filters; else, when one row with all filters does not
 * fit, the fewest (row tiles x filter groups), ties to fewer filter groups.
 * Only the O(sqrt NF) distinct group sizes ceil(NF / G) need trying, each
 * with the smallest G giving it: O(sqrt(NF) log OH). When one row with one
 * filter does not fit, the layer stays one op (the scheduler reports it).
 */
static void choose_tiling(const struct acs_dnn_layer *L, struct plan *pl,
                          int64_t bpe, int64_t cmx)
{
  if (pl->ws <= cmx)
    return;
  /* Rows are searched below OH: a layer that does not fit whole must split
   * (OH rows may read fewer input rows than IH when the stride leaves some
   * unread, which would otherwise pass for a fitting single tile). */
  struct plan below = *pl;
  below.oh = pl->oh - 1;
  int64_t rows = below.oh > 0 ? max_rows(L, &below, bpe, L->num_filt, cmx) : 0;
  if (rows > 0) {
    pl->nrt = ceil_div(pl->oh, rows);
    return;
  }
  int64_t best = 0;
  for (int64_t groups = 1; groups <= L->num_filt;) {
    int64_t filt = ceil_div(L->num_filt, groups);
    rows = max_rows(L, pl, bpe, filt, cmx);
    if (rows > 0) {
      int64_t nrt = ceil_div(pl->oh, rows);
      if (nrt * groups > 1 && (best == 0 || nrt * groups < best)) {
        best = nrt * groups;
        pl->nrt = nrt;
        pl->nfg = groups;
      }
    }
    if (filt == 1)
      break;
    groups = ceil_div(L->num_filt, filt - 1); /* smallest G with a smaller size */
  }
}

/* Balanced split of `total` into `parts`: part i and where it starts. */
static int64_t part_size(int64_t total, int64_t parts, int64_t i)
{
  return total / parts + (i < total % parts);
}

/* ---- building ---- */

struct builder {
  const struct acs_workload *w;
  struct acs_graph *g;
  struct acs_diag *d;
  int64_t bpe, cmx;
  int res_pe, res_dma, res_cmx, res_ddr;
  struct plan *plans;
};

static int32_t add_op(struct builder *b, const char *name, int kind,
                      int32_t line, struct acs_op *op)
{
  op->name = name;
  op->kind = (uint8_t)kind;
  op->slots = 1;
  op->line = line;
  return acs_graph_add_op(b->g, op);
}

static int32_t add_dma(struct builder *b, const char *name, int src, int dst,
                       int64_t bytes, int32_t line)
{
  struct acs_op op;
  memset(&op, 0, sizeof(op));
  op.src = (uint8_t)src;
  op.dst = (uint8_t)dst;
  op.cycles = -1;
  op.bytes = bytes;
  op.out_bytes = dst == ACS_MEM_CMX ? bytes : 0;
  int32_t id = add_op(b, name, ACS_OP_DMA, line, &op);
  if (id < 0)
    return id;
  int rc = acs_graph_set_demand(b->g, id, b->res_dma, 1);
  if (rc == 0 && (src == ACS_MEM_DDR || dst == ACS_MEM_DDR))
    rc = acs_graph_set_demand(b->g, id, b->res_ddr, 1);
  if (rc == 0)
    rc = acs_graph_set_demand(b->g, id, b->res_cmx, bytes);
  return rc < 0 ? rc : id;
}

static int32_t add_sync(struct builder *b, const char *name, int32_t line)
{
  struct acs_op op;
  memset(&op, 0, sizeof(op));
  op.cycles = 0;
  return add_op(b, name, ACS_OP_SYNC, line, &op);
}

static int edge(struct builder *b, int32_t src, int32_t dst)
{
  return acs_graph_add_edge(b->g, src, dst, ACS_EDGE_DATA);
}

/* "<layer><suffix>" or "<layer><suffix><i>" when the layer has several. */
static const char *op_name(char *buf, const char *layer, const char *suffix,
                           int64_t i, int64_t count)
{
  if (count > 1)
    snprintf(buf, ACS_NAME_MAX, "%s%s%lld", layer, suffix, (long long)i);
  else
    snprintf(buf, ACS_NAME_MAX, "%s%s", layer, suffix);
  return buf;
}

/* Rows and filters of tile i (i = group * nrt + row tile). */
static void tile_shape(const struct acs_dnn_layer *L, const struct plan *pl,
                       int64_t i, int64_t *rows, int64_t *filt)
{
  *rows = part_size(pl->oh, pl->nrt, i % pl->nrt);
  *filt = part_size(L->num_filt, pl->nfg, i / pl->nrt);
}

/* Weight DMAs (one per filter group) and the compute tiles they feed. */
static int emit_layer(struct builder *b, size_t k)
{
  const struct acs_dnn_layer *L = &b->w->layers[k];
  struct plan *pl = &b->plans[k];
  int64_t ntiles = pl->nrt * pl->nfg;
  char name[ACS_NAME_MAX];
  int32_t w0 = b->g->nops;

  for (int64_t j = 0; j < pl->nfg; j++) {
    int64_t filt = part_size(L->num_filt, pl->nfg, j);
    int64_t bytes = L->filt_h * L->filt_w * L->channels * filt * b->bpe;
    int32_t id = add_dma(b, op_name(name, L->name, ".w", j, pl->nfg),
                         ACS_MEM_DDR, ACS_MEM_CMX, bytes, L->line);
    if (id < 0)
      return id;
  }
  pl->tile0 = b->g->nops;
  for (int64_t i = 0; i < ntiles; i++) {
    int64_t rows, filt;
    struct acs_op op;
    tile_shape(L, pl, i, &rows, &filt);
    memset(&op, 0, sizeof(op));
    op.cycles = -1;
    op.macs = rows * pl->ow * L->filt_h * L->filt_w * L->channels * filt;
    op.out_bytes = rows * pl->ow * filt * b->bpe;
    const char *tname = ntiles > 1 ? op_name(name, L->name, ".t", i, ntiles) : L->name;
    int32_t id = add_op(b, tname, ACS_OP_DPU, L->line, &op);
    if (id < 0)
      return id;
    int rc = acs_graph_set_demand(b->g, id, b->res_pe, 1);
    if (rc == 0)
      rc = acs_graph_set_demand(b->g, id, b->res_cmx,
                                ntiles > 1 ? tile_ws(L, pl, b->bpe, rows, filt) : pl->ws);
    if (rc == 0)
      rc = edge(b, w0 + (int32_t)(i / pl->nrt), id);
    if (rc < 0)
      return rc;
  }
  return ACS_OK;
}

static int tiled(const struct plan *pl)
{
  return pl->nrt * pl->nfg > 1;
}

/* Each tile of layer k reads its input rows from DDR after `from`. */
static int read_inputs(struct builder *b, size_t k, int32_t from)
{
  const struct acs_dnn_layer *L = &b->w->layers[k];
  const struct plan *pl = &b->plans[k];
  int64_t ntiles = pl->nrt * pl->nfg;
  char name[ACS_NAME_MAX];

  for (int64_t i = 0; i < ntiles; i++) {
    int64_t rows, filt;
    tile_shape(L, pl, i, &rows, &filt);
    int64_t bytes = in_rows(L, rows) * L->ifmap_w * L->channels * b->bpe;
    int32_t id = add_dma(b, op_name(name, L->name, ".i", i, ntiles),
                         ACS_MEM_DDR, ACS_MEM_CMX, bytes, L->line);
    if (id < 0)
      return id;
    int rc = edge(b, from, id);
    if (rc == 0)
      rc = edge(b, id, pl->tile0 + (int32_t)i);
    if (rc < 0)
      return rc;
  }
  return ACS_OK;
}

/*
 * Each tile of layer k writes its output to DDR; then a sync op `join_name`
 * waits for all the writes. Returns the sync op's id.
 */
static int32_t write_outputs(struct builder *b, size_t k, const char *join_name,
                             int32_t join_line)
{
  const struct acs_dnn_layer *L = &b->w->layers[k];
  const struct plan *pl = &b->plans[k];
  int64_t ntiles = pl->nrt * pl->nfg;
  char name[ACS_NAME_MAX];
  int32_t first = b->g->nops;

  for (int64_t i = 0; i < ntiles; i++) {
    int64_t rows, filt;
    tile_shape(L, pl, i, &rows, &filt);
    int32_t id = add_dma(b, op_name(name, L->name, ".o", i, ntiles),
                         ACS_MEM_CMX, ACS_MEM_DDR, rows * pl->ow * filt * b->bpe,
                         L->line);
    int rc = id < 0 ? id : edge(b, pl->tile0 + (int32_t)i, id);
    if (rc < 0)
      return rc;
  }
  int32_t join = add_sync(b, join_name, join_line);
  for (int64_t i = 0; i < ntiles && join >= 0; i++) {
    int rc = edge(b, first + (int32_t)i, join);
    if (rc < 0)
      return rc;
  }
  return join;
}

/*
 * The network input: one DMA when the first layer is whole, else a sync op
 * before the tiles' own reads. It is created before the first layer's ops
 * (so it is op 0) and linked once they exist.
 */
static int32_t add_input(struct builder *b)
{
  const struct plan *pl = &b->plans[0];
  int32_t line = b->w->layers[0].line;
  if (tiled(pl))
    return add_sync(b, "input", line);
  return add_dma(b, "input", ACS_MEM_DDR, ACS_MEM_CMX, pl->in_b, line);
}

static int link_input(struct builder *b, int32_t input)
{
  const struct plan *pl = &b->plans[0];
  if (tiled(pl))
    return read_inputs(b, 0, input);
  return edge(b, input, pl->tile0);
}

static int link_output(struct builder *b)
{
  size_t k = b->w->nlayers - 1;
  const struct acs_dnn_layer *L = &b->w->layers[k];
  const struct plan *pl = &b->plans[k];
  int32_t id;

  if (tiled(pl)) {
    id = write_outputs(b, k, "output", L->line);
    return id < 0 ? id : ACS_OK;
  }
  id = add_dma(b, "output", ACS_MEM_CMX, ACS_MEM_DDR, pl->out_b, L->line);
  return id < 0 ? id : edge(b, pl->tile0, id);
}

/*
 * Whether layer k can read layer k-1's output straight from CMX: neither is
 * tiled, and the tensor it would actually hold (the previous output, which
 * differs from the row's own input where the table leaves a pooling layer
 * out) fits beside its weights and output. Otherwise the link goes through
 * DDR, where the left-out layer's result would live, so a row that fits on
 * its own never becomes infeasible because of its neighbour.
 */
static int links_in_cmx(const struct builder *b, size_t k)
{
  const struct plan *prev = &b->plans[k - 1], *next = &b->plans[k];

  if (tiled(prev) || tiled(next))
    return 0;
  return prev->out_b <= b->cmx - (next->ws - next->in_b);
}

/* Layer k consumes layer k-1: in CMX when it fits (above), else via DDR. */
static int link_layers(struct builder *b, size_t k)
{
  const struct plan *prev = &b->plans[k - 1], *next = &b->plans[k];
  char name[ACS_NAME_MAX];

  if (links_in_cmx(b, k))
    return edge(b, prev->tile0, next->tile0);
  int32_t join = write_outputs(b, k - 1,
                               op_name(name, b->w->layers[k].name, ".in", 0, 1),
                               b->w->layers[k].line);
  return join < 0 ? join : read_inputs(b, k, join);
}

/* More tiles than this for one layer means a CMX far too small for the
 * network; refusing keeps the graph (and op ids) within bounds. */
#define MAX_TILES_PER_LAYER ((int64_t)1 << 20)

static int plan_layers(struct builder *b)
{
  for (size_t k = 0; k < b->w->nlayers; k++) {
    const struct acs_dnn_layer *L = &b->w->layers[k];
    struct plan *pl = &b->plans[k];
    int64_t ntiles;
    const char *big = layer_sizes(L, b->bpe, pl);
    if (big)
      return acs_diag_set(b->d, ACS_ERANGE, b->w->path, L->line, 0,
                          "layer '%s': %s more than %lld %s (bytes_per_elem %lld)",
                          L->name, big, (long long)ACS_QTY_MAX,
                          strcmp(big, "it computes") == 0 ? "MACs" : "bytes",
                          (long long)b->bpe);
    choose_tiling(L, pl, b->bpe, b->cmx);
    if (acs_mul_i64(pl->nrt, pl->nfg, &ntiles) != 0 || ntiles > MAX_TILES_PER_LAYER)
      return acs_diag_set(b->d, ACS_ERANGE, b->w->path, L->line, 0,
                          "layer '%s' would need %lld x %lld tiles to fit the "
                          "%lld-byte CMX (at most %lld)", L->name,
                          (long long)pl->nrt, (long long)pl->nfg,
                          (long long)b->cmx, (long long)MAX_TILES_PER_LAYER);
  }
  return ACS_OK;
}

static int add_resources(struct builder *b)
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

static int emit_all(struct builder *b)
{
  int32_t input = add_input(b);
  int rc = input < 0 ? input : ACS_OK;
  for (size_t k = 0; k < b->w->nlayers && rc == 0; k++) {
    rc = emit_layer(b, k);
    if (rc == 0)
      rc = k == 0 ? link_input(b, input) : link_layers(b, k);
  }
  return rc == 0 ? link_output(b) : rc;
}

int acs_dnn_build(const struct acs_workload *w, const struct acs_platform *p,
                  struct acs_graph *g, struct acs_diag *d)
{
  struct builder b;
  int rc;

  if (w->kind != ACS_WL_DNN || w->nlayers == 0)
    return ACS_EINVAL;
  memset(&b, 0, sizeof(b));
  b.w = w;
  b.g = g;
  b.d = d;
  b.bpe = (int64_t)acs_platform_get(p, ACS_P_BYTES_PER_ELEM);
  b.cmx = acs_platform_cmx_bytes(p);
  b.plans = calloc(w->nlayers, sizeof(*b.plans));
  if (!b.plans)
    return ACS_ENOMEM;
  rc = acs_graph_init(g, w->name, w->path);
  if (rc != 0)
    goto out_with_plans;
  rc = plan_layers(&b);
  if (rc == 0)
    rc = add_resources(&b);
  if (rc == 0)
    rc = emit_all(&b);
  if (rc == 0)
    rc = acs_graph_finalize(g, d);
  if (rc != 0)
    goto out_with_graph;
  free(b.plans);
  return ACS_OK;
out_with_graph:
  if (rc != ACS_ENOMEM && d->file[0] == '\0')
    snprintf(d->file, sizeof(d->file), "%s", w->path);
  acs_graph_destroy(g);
out_with_plans:
  free(b.plans);
  return rc;
}
