/*
 * layer_build.c - the op DAG of a layer graph on one platform: the NPU
 * lowering (layer_build_int.h gives the four decisions; docs/workloads.md the
 * mapping with worked examples).
 *
 * Ops of a compute node v (views make none: their readers read the tensors
 * a view is made of, its roots):
 *  - `<v>.w<g>`: a DMA DDR->CMX of the weights of channel group g (one per
 *    group when groups are outer, one per tile when rows are outer);
 *  - `<v>.i<p>`: a DMA DDR->CMX of the input region of the tile at loop
 *    position p that comes from DDR (none when every input is resident;
 *    with rows outer, one per row tile, kept for its groups);
 *  - `<v>.t<p>.<k>` (`<v>.<k>` for one tile, `<v>` for one workload): the
 *    workloads of each tile, one per PE, each demanding one `pe`, its share
 *    of the tile's working set in `cmx`, and one barrier slot;
 *  - `<v>.o<p>`: a DMA CMX->DDR of the tile's output, unless the output is
 *    resident.
 * Network inputs kept in CMX load with `input` (`input<k>`); outputs are
 * written by `output` (`output<k>`): a DMA of what is still in CMX after
 * its producers, or a sync after the stores of the rest.
 *
 * Residency (plan_residency) comes first, with every node's budget; then
 * each node's cut within its budget (layer_tile.c); then the ops in
 * topological order, each node's weights, loads, workloads and stores,
 * and the edges into them (layer_link.c).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/layer_build_int.h"
#include "core/model/ddrlink.h"

/* ---- sources through views ---- */

/*
 * The root tensors each tensor is made of: a view's output is the
 * concatenation of its data inputs' roots; any other tensor is its own.
 * Computed in topological order, O(V + E + total roots).
 */
static int resolve_sources(struct acs__lb *b)
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
      for (int j = 0; j < n->nin && k == 0; j++) {
        int32_t s = n->in[j];
        if (s < 0 || n->role[j] != ACS_LR_DATA)
          continue; /* a Dropout mask is made of nothing */
        if (acs_grow((void **)&list, sizeof(*list), &cap, total + (size_t)cnt[s]) != 0)
          goto out;
        memcpy(list + total, list + start[s], (size_t)cnt[s] * sizeof(*list));
        total += (size_t)cnt[s];
        cnt[t] += cnt[s];
      }
    }
  }
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
static int const_sourced(const struct acs__lb *b, int32_t t)
{
  if (b->src_off[t] == b->src_off[t + 1])
    return 0;
  for (int32_t i = b->src_off[t]; i < b->src_off[t + 1]; i++)
    if (b->lg->t[b->src[i]].kind != ACS_LT_WEIGHT && b->lg->t[b->src[i]].kind != ACS_LT_PARAM)
      return 0;
  return 1;
}

int acs__lb_data_slot(const struct acs__lb *b, const struct acs_lnode *n, int k)
{
  return n->in[k] >= 0 && n->role[k] == ACS_LR_DATA && !const_sourced(b, n->in[k]);
}

int acs__lb_weight_slot(const struct acs__lb *b, const struct acs_lnode *n, int k)
{
  return n->in[k] >= 0 && (n->role[k] == ACS_LR_WEIGHT ||
                           (n->role[k] == ACS_LR_DATA && const_sourced(b, n->in[k])));
}

int acs__lb_slot_from_ddr(const struct acs__lb *b, const struct acs_lnode *n, int k)
{
  if (!acs__lb_data_slot(b, n, k))
    return 0;
  for (int32_t i = b->src_off[n->in[k]]; i < b->src_off[n->in[k] + 1]; i++)
    if (!b->res[b->src[i]] && b->lg->t[b->src[i]].kind != ACS_LT_WEIGHT &&
        b->lg->t[b->src[i]].kind != ACS_LT_PARAM)
      return 1;
  return 0;
}

/* ---- sizes of boxes ---- */

static int box_bytes(const struct acs__lb *b, const struct acs_lbox *box, int64_t *out)
{
  int64_t e = acs_lbox_elems(box);
  if (e == INT64_MAX || acs_mul_i64(e, b->bpe, out) != 0)
    return ACS_ERANGE;
  return ACS_OK;
}

int acs__lb_slots_bytes(const struct acs__lb *b, int32_t v, const struct acs_lbox *out,
                        int which, int64_t *bytes)
{
  const struct acs_lnode *n = &b->lg->n[v];
  struct acs_lbox in[2];
  *bytes = 0;
  for (int k = 0; k < n->nin; k++) {
    int data = which & ACS__SLOT_DDR ? acs__lb_slot_from_ddr(b, n, k) : acs__lb_data_slot(b, n, k);
    int want = (which & ACS__SLOT_DATA && data) ||
               (which & ACS__SLOT_WEIGHT && acs__lb_weight_slot(b, n, k));
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

int acs__lb_out_bytes(const struct acs__lb *b, int32_t v, const struct acs_lbox *out,
                      int64_t *bytes)
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

/* ---- tiles and workloads ---- */

void acs__lb_tile_box(const struct acs__lb *b, int32_t v, int64_t t, struct acs_lbox *box)
{
  const struct acs__lplan *p = &b->pl[v];
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[v].out[0]];
  int64_t i = t % p->nrt, g = t / p->nrt;

  acs_ltensor_box(o, box);
  if (p->ra >= 0) {
    box->lo[p->ra] = acs__part_start(o->dims[p->ra], p->nrt, i);
    box->hi[p->ra] = box->lo[p->ra] + acs__part_size(o->dims[p->ra], p->nrt, i);
  }
  if (p->ca >= 0) {
    box->lo[p->ca] = acs__part_start(o->dims[p->ca], p->nfg, g);
    box->hi[p->ca] = box->lo[p->ca] + acs__part_size(o->dims[p->ca], p->nfg, g);
  }
}

void acs__lb_workload_box(const struct acs__lb *b, int32_t v, int64_t t, int32_t k,
                          struct acs_lbox *box)
{
  const struct acs__lplan *p = &b->pl[v];

  acs__lb_tile_box(b, v, t, box);
  if (p->split >= 0) {
    int64_t lo = box->lo[p->split], e = box->hi[p->split] - lo;
    box->lo[p->split] = lo + acs__part_start(e, p->nwl, k);
    box->hi[p->split] = box->lo[p->split] + acs__part_size(e, p->nwl, k);
  }
}

int64_t acs__lb_tile_at(const struct acs__lplan *p, int64_t pos)
{
  if (!p->rows_outer)
    return pos;
  return (pos % p->nfg) * p->nrt + pos / p->nfg;
}

/* ---- residency ---- */

static int64_t root_bytes(const struct acs__lb *b, int32_t t)
{
  int64_t x;
  return acs_mul_i64(acs_ltensor_elems(&b->lg->t[t]), b->bpe, &x) != 0 ? INT64_MAX : x;
}

/* last_of[t]: the latest position (topological) of a compute node reading
 * root t, -1 when none does. */
static void reader_spans(const struct acs__lb *b, int32_t *last_of)
{
  const struct acs_lgraph *lg = b->lg;

  for (int32_t t = 0; t < lg->ntensors; t++)
    last_of[t] = -1;
  for (int32_t v = 0; v < lg->nnodes; v++) {
    const struct acs_lnode *n = &lg->n[v];
    if (!b->pl[v].compute)
      continue;
    for (int k = 0; k < n->nin; k++) {
      if (!acs__lb_data_slot(b, n, k))
        continue;
      for (int32_t i = b->src_off[n->in[k]]; i < b->src_off[n->in[k] + 1]; i++)
        if (last_of[b->src[i]] < b->pos[v])
          last_of[b->src[i]] = b->pos[v];
    }
  }
}

/* What a candidate for residency is: a node's outputs (together) or a
 * network input, with the span of its life. */
struct cand {
  const int32_t *t;
  int nt;
  int32_t prod;              /* the producing node, -1 for a network input */
  int32_t from, to;          /* positions of the producer and last reader */
  double extra;              /* link time it adds: its `input` or `output` DMA */
};

/* Marks (on = 1) or unmarks the candidate resident, with the budgets of
 * the nodes of its life. */
static void mark(struct acs__lb *b, const struct cand *c, int64_t bytes, int on)
{
  for (int k = 0; k < c->nt; k++)
    if (c->t[k] >= 0)
      b->res[c->t[k]] = (uint8_t)on;
  if (c->prod >= 0)
    b->pl[c->prod].res_out = (uint8_t)on;
  for (int32_t q = c->from; q <= c->to; q++)
    b->pl[b->lg->topo[q]].budget += on ? -bytes : bytes;
}

/* Keeps the candidate in CMX when every node of its life still has a
 * double-buffered cut and their link time drops. */
static int try_resident(struct acs__lb *b, const struct cand *c, double *link, double *scratch)
{
  double old = 0, now = c->extra;
  int64_t bytes = 0;
  int rc = ACS_OK;

  for (int k = 0; k < c->nt; k++)
    if (c->t[k] >= 0 && acs_add_i64(bytes, root_bytes(b, c->t[k]), &bytes) != 0)
      return ACS_OK;
  if (c->to < c->from || bytes > b->cmx)
    return ACS_OK;
  mark(b, c, bytes, 1);
  for (int32_t q = c->from; q <= c->to && rc == ACS_OK && now < INFINITY; q++) {
    int32_t u = b->lg->topo[q];
    if (!b->pl[u].compute)
      continue;
    rc = acs__lb_node_link(b, u, &scratch[q - c->from]);
    old += link[u];
    now += scratch[q - c->from];
  }
  if (rc == ACS_OK && now < old) {
    for (int32_t q = c->from; q <= c->to; q++)
      if (b->pl[b->lg->topo[q]].compute)
        link[b->lg->topo[q]] = scratch[q - c->from];
    return ACS_OK;
  }
  mark(b, c, bytes, 0);
  return rc;
}

/* The link time of one DMA of `bytes`. */
static double dma_link(const struct acs__lb *b, int64_t bytes)
{
  return (double)b->latency + (double)bytes / b->link_bpc;
}

/* The candidate made of node v's outputs. */
static void node_cand(const struct acs__lb *b, int32_t v, const int32_t *last_of,
                      struct cand *c)
{
  const struct acs_lnode *n = &b->lg->n[v];

  c->t = n->out;
  c->nt = n->nout;
  c->prod = v;
  c->from = b->pos[v];
  c->to = -1;
  c->extra = 0;
  for (int k = 0; k < n->nout; k++) {
    if (n->out[k] < 0)
      continue;
    if (last_of[n->out[k]] > c->to)
      c->to = last_of[n->out[k]];
    if (b->lg->t[n->out[k]].is_output)
      c->extra += dma_link(b, root_bytes(b, n->out[k]));
  }
}

/*
 * Residency: which activations stay in CMX from producer to last reader.
 * Candidates (each node's outputs together, each network input) are taken
 * in topological order of their producers, and one stays when every node
 * of its life (producer to last reader) still has a double-buffered cut in
 * the CMX it leaves, and the DDR link time of those nodes drops: the
 * stores and loads it saves outweigh the weight and input traffic that
 * smaller budgets cost. Greedy; each candidate re-plans the nodes of its
 * life, O(sum of lives x a node's search).
 */
static int plan_residency(struct acs__lb *b)
{
  const struct acs_lgraph *lg = b->lg;
  int32_t n = lg->nnodes, *last_of = malloc(((size_t)lg->ntensors + 1) * sizeof(*last_of));
  double *link = calloc((size_t)n + 1, sizeof(*link)), *scratch = calloc((size_t)n + 1, sizeof(*scratch));
  int rc = last_of && link && scratch ? ACS_OK : ACS_ENOMEM;

  if (rc != ACS_OK)
    goto out;
  reader_spans(b, last_of);
  for (int32_t v = 0; v < n && rc == ACS_OK; v++) {
    b->pl[v].budget = b->cmx;
    if (b->pl[v].compute)
      rc = acs__lb_node_link(b, v, &link[v]);
  }
  for (int32_t i = 0; i < lg->ninputs && rc == ACS_OK; i++) {
    int32_t t = lg->inputs[i];
    struct cand c = { &lg->inputs[i], 1, -1, 0, last_of[t], dma_link(b, root_bytes(b, t)) };
    rc = try_resident(b, &c, link, scratch);
  }
  for (int32_t i = 0; i < n && rc == ACS_OK; i++) {
    struct cand c;
    if (!b->pl[lg->topo[i]].compute)
      continue;
    node_cand(b, lg->topo[i], last_of, &c);
    rc = try_resident(b, &c, link, scratch);
  }
out:
  free(last_of);
  free(link);
  free(scratch);
  return rc;
}

/* ---- planning ---- */

static int plan_nodes(struct acs__lb *b)
{
  const struct acs_lgraph *lg = b->lg;
  int64_t ops = 0;
  char nb[128];

  for (int32_t v = 0; v < lg->nnodes; v++) {
    struct acs__lplan *p = &b->pl[v];
    const struct acs_lnode *n = &lg->n[v];
    if (!p->compute)
      continue;
    int rc = acs__lb_plan_tiles(b, v);
    acs_lname_mask(n->name, nb, sizeof(nb));
    if (rc == ACS_ERANGE)
      return acs_diag_set(b->d, rc, lg->path, n->line, 0, "node '%s': tensor sizes overflow "
                          "64-bit integers at %lld bytes per element", nb, (long long)b->bpe);
    if (rc != 0)
      return rc;
    /* Per tile its workloads, a load, a store, weights and at most two
     * row-band syncs; per node a buffer and two joins: an upper bound,
     * saturated rather than overflowed (tiles can be a tensor's
     * elements when nothing fits). */
    int64_t tiles = p->nrt > INT64_MAX / p->nfg ? INT64_MAX : p->nrt * p->nfg;
    ops = tiles > (INT64_MAX - ops - 3) / (p->nwl + 5) ? INT64_MAX
                                                        : ops + tiles * (p->nwl + 5) + 3;
    /* Bytes with two edges an op, what the shipped networks make. */
    if ((rc = acs_limit_check(ACS_LIMIT_OPS, ops, b->d, lg->path, n->line, 0,
                              "the network's ops up to node '%s' (cut in %lld x %lld tiles "
                              "of %d workloads to fit the %lld-byte CMX)", nb,
                              (long long)p->nrt, (long long)p->nfg, (int)p->nwl,
                              (long long)b->cmx)) < 0 ||
        (rc = acs_limit_check(ACS_LIMIT_BYTES, acs_graph_cost_bytes(ops, 2 * ops, 4), b->d,
                              lg->path, n->line, 0, "the network's ops up to node '%s' (%lld "
                              "ops)", nb, (long long)ops)) < 0)
      return rc;
  }
  return ACS_OK;
}

/* ---- making ops ---- */

int32_t acs__lb_add_op(struct acs__lb *b, const char *name, int kind, struct acs_op *op)
{
  char buf[ACS_NAME_MAX];
  snprintf(buf, sizeof(buf), "%s", name);
  for (int k = 2; acs_graph_find_op(b->g, buf) >= 0; k++)
    snprintf(buf, sizeof(buf), "%.*s@%d", ACS_NAME_MAX - 16, name, k);
  op->name = buf;
  op->kind = (uint8_t)kind;
  op->slots = 1;
  op->line = b->line;
  return acs_graph_add_op(b->g, op);
}

static int32_t add_dma(struct acs__lb *b, const char *name, int src, int dst, int64_t bytes)
{
  struct acs_op op;
  memset(&op, 0, sizeof(op));
  op.src = (uint8_t)src;
  op.dst = (uint8_t)dst;
  op.cycles = -1;
  op.bytes = bytes;
  op.out_bytes = dst == ACS_MEM_CMX ? bytes : 0;
  int32_t id = acs__lb_add_op(b, name, ACS_OP_DMA, &op);
  if (id < 0)
    return id;
  int rc = acs_graph_set_demand(b->g, id, b->res_dma, 1);
  if (rc == 0 && acs_ddrlink_crosses(src, dst))
    rc = acs_graph_set_demand(b->g, id, b->res_ddr, 1);
  if (rc == 0)
    rc = acs_graph_set_demand(b->g, id, b->res_cmx, bytes);
  return rc < 0 ? rc : id;
}

int acs__lb_edge(struct acs__lb *b, int32_t src, int32_t dst)
{
  int rc = acs_limit_check(ACS_LIMIT_EDGES, (int64_t)b->g->nedges + 2, b->d, b->lg->path, b->line,
                           0, "the network's edges up to op '%s'", b->g->ops[dst].name);

  if (rc == 0)
    rc = acs_graph_add_edge(b->g, src, dst, ACS_EDGE_DATA);
  if (rc == 0 && dst == b->mirror_dst && src != b->mirror_to)
    rc = acs_graph_add_edge(b->g, src, b->mirror_to, ACS_EDGE_DATA);
  return rc;
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

/* The weight DMAs: per group (groups outer) or per tile (rows outer). */
static int emit_weights(struct acs__lb *b, int32_t v)
{
  struct acs__lplan *p = &b->pl[v];
  const char *name = b->lg->n[v].name;
  int64_t count = p->rows_outer ? p->nrt * p->nfg : p->nfg;
  char buf[ACS_NAME_MAX];

  p->w0 = -1;
  p->nw = 0;
  for (int64_t j = 0; j < count; j++) {
    struct acs_lbox box;
    int64_t bytes, t = p->rows_outer ? acs__lb_tile_at(p, j) : j * p->nrt;
    acs__lb_tile_box(b, v, t, &box);
    if (p->ra >= 0) { /* every row: weights follow channels only */
      box.lo[p->ra] = 0;
      box.hi[p->ra] = b->lg->t[b->lg->n[v].out[0]].dims[p->ra];
    }
    int rc = acs__lb_slots_bytes(b, v, &box, ACS__SLOT_WEIGHT, &bytes);
    if (rc != 0)
      return rc;
    if (bytes == 0)
      return ACS_OK; /* no weights */
    if (count > 1)
      snprintf(buf, sizeof(buf), "%s.w%lld", name, (long long)j);
    else
      snprintf(buf, sizeof(buf), "%s.w", name);
    int32_t id = add_dma(b, buf, ACS_MEM_DDR, ACS_MEM_CMX, bytes);
    if (id < 0)
      return id;
    if (j == 0)
      p->w0 = id;
    p->nw++;
  }
  return ACS_OK;
}

/* The input loads: per tile (groups outer) or per row tile (rows outer),
 * of the regions that come from DDR. */
static int emit_loads(struct acs__lb *b, int32_t v)
{
  struct acs__lplan *p = &b->pl[v];
  const struct acs_lnode *n = &b->lg->n[v];
  int64_t ntiles = p->nrt * p->nfg, step = p->rows_outer ? p->nfg : 1;
  char buf[ACS_NAME_MAX];
  int any = 0;

  p->in0 = -1;
  for (int k = 0; k < n->nin && !any; k++)
    any = acs__lb_slot_from_ddr(b, n, k);
  if (!any)
    return ACS_OK;
  for (int64_t pos = 0; pos < ntiles; pos += step) {
    struct acs_lbox box;
    int64_t bytes;
    int rc;
    acs__lb_tile_box(b, v, acs__lb_tile_at(p, pos), &box);
    if (p->rows_outer && p->ca >= 0) { /* the row tile's input serves every group */
      box.lo[p->ca] = 0;
      box.hi[p->ca] = b->lg->t[n->out[0]].dims[p->ca];
    }
    if ((rc = acs__lb_slots_bytes(b, v, &box, ACS__SLOT_DATA | ACS__SLOT_DDR, &bytes)) != 0)
      return rc;
    if (ntiles / step > 1)
      snprintf(buf, sizeof(buf), "%s.i%lld", n->name, (long long)(pos / step));
    else
      snprintf(buf, sizeof(buf), "%s.i", n->name);
    int32_t id = add_dma(b, buf, ACS_MEM_DDR, ACS_MEM_CMX, bytes);
    if (id < 0)
      return id;
    if (pos == 0)
      p->in0 = id;
  }
  return ACS_OK;
}

/* The CMX a workload demands while it runs: its own output, and an even
 * share of what the tile reads (regions shared by its workloads are in
 * CMX once). */
static int workload_cmx(const struct acs__lb *b, int32_t v, int64_t t, int32_t k,
                        int64_t *cmx)
{
  const struct acs__lplan *p = &b->pl[v];
  struct acs_lbox tile, wl;
  int64_t reads, out;
  int rc;

  acs__lb_tile_box(b, v, t, &tile);
  acs__lb_workload_box(b, v, t, k, &wl);
  if ((rc = acs__lb_slots_bytes(b, v, &tile, ACS__SLOT_DATA | ACS__SLOT_WEIGHT, &reads)) != 0 ||
      (rc = acs__lb_out_bytes(b, v, &wl, &out)) != 0)
    return rc;
  *cmx = out + reads / p->nwl + (k < reads % p->nwl);
  return ACS_OK;
}

static const char *workload_name(char *buf, const char *node, int64_t pos, int64_t ntiles,
                                 int32_t k, int32_t nwl)
{
  if (ntiles > 1)
    snprintf(buf, ACS_NAME_MAX, "%s.t%lld.%d", node, (long long)pos, (int)k);
  else if (nwl > 1)
    snprintf(buf, ACS_NAME_MAX, "%s.%d", node, (int)k);
  else
    snprintf(buf, ACS_NAME_MAX, "%s", node);
  return buf;
}

/* The workloads of every tile, in loop order, with their weight and load
 * edges. */
static int emit_workloads(struct acs__lb *b, int32_t v)
{
  struct acs__lplan *p = &b->pl[v];
  const struct acs_lnode *n = &b->lg->n[v];
  int64_t ntiles = p->nrt * p->nfg;
  char buf[ACS_NAME_MAX];

  p->wl0 = b->g->nops;
  for (int64_t pos = 0; pos < ntiles; pos++) {
    int64_t t = acs__lb_tile_at(p, pos);
    for (int32_t k = 0; k < p->nwl; k++) {
      struct acs_lbox box;
      struct acs_op op;
      int64_t cmx;
      memset(&op, 0, sizeof(op));
      acs__lb_workload_box(b, v, t, k, &box);
      op.cycles = -1;
      int rc = acs_lnode_work(b->lg, v, &box, &op.macs);
      /* A resident output is written into the node's buffer. */
      if (rc == 0 && !p->res_out)
        rc = acs__lb_out_bytes(b, v, &box, &op.out_bytes);
      if (rc == 0)
        rc = workload_cmx(b, v, t, k, &cmx);
      if (rc != 0)
        return rc;
      int32_t id = acs__lb_add_op(b, workload_name(buf, n->name, pos, ntiles, k, p->nwl),
                          op_kind(n->op), &op);
      if (id < 0)
        return id;
      rc = acs_graph_set_demand(b->g, id, b->res_pe, 1);
      if (rc == 0)
        rc = acs_graph_set_demand(b->g, id, b->res_cmx, cmx);
      if (rc == 0 && p->buf >= 0)
        rc = acs__lb_edge(b, p->buf, id);
      if (rc == 0 && p->w0 >= 0)
        rc = acs__lb_edge(b, p->w0 + (int32_t)(p->rows_outer ? pos : t / p->nrt), id);
      if (rc == 0 && p->in0 >= 0)
        rc = acs__lb_edge(b, p->in0 + (int32_t)(p->rows_outer ? pos / p->nfg : pos), id);
      if (rc < 0)
        return rc;
    }
  }
  return ACS_OK;
}

/*
 * Double buffering in the graph: the load into a buffer waits until the
 * workloads that read the buffer's previous contents, two positions
 * before, are done (ping-pong buffers, as a compiler allocates them). So
 * every memory model sees at most two tiles' loads in flight per node,
 * which is what the cut was sized for.
 */
static int emit_buffer_reuse(struct acs__lb *b, int32_t v)
{
  const struct acs__lplan *p = &b->pl[v];
  int64_t ntiles = p->nrt * p->nfg, istep = p->rows_outer ? p->nfg : 1;
  int64_t wstep = p->rows_outer ? 1 : p->nrt;
  int rc = ACS_OK;

  /* Input loads: one per `istep` positions. */
  for (int64_t q = 2; p->in0 >= 0 && q * istep < ntiles && rc == ACS_OK; q++)
    for (int32_t k = 0; k < p->nwl && rc == ACS_OK; k++)
      rc = acs__lb_edge(b, p->wl0 + (int32_t)(((q - 1) * istep - 1) * p->nwl + k),
                        p->in0 + (int32_t)q);
  /* Weight loads: one per `wstep` positions (per group, or per tile). */
  for (int64_t q = 2; p->w0 >= 0 && q < p->nw && rc == ACS_OK; q++)
    for (int32_t k = 0; k < p->nwl && rc == ACS_OK; k++)
      rc = acs__lb_edge(b, p->wl0 + (int32_t)(((q - 1) * wstep - 1) * p->nwl + k),
                        p->w0 + (int32_t)q);
  return rc;
}

/* The buffer of a node whose outputs stay in CMX; it starts when the
 * node's first workload could (the edges into that workload are mirrored
 * into it). */
static int emit_buffer(struct acs__lb *b, int32_t v)
{
  struct acs__lplan *p = &b->pl[v];
  const struct acs_lnode *n = &b->lg->n[v];
  struct acs_lbox box;
  struct acs_op op;
  char buf[ACS_NAME_MAX];
  int32_t id;

  p->buf = -1;
  if (!p->res_out)
    return ACS_OK;
  memset(&op, 0, sizeof(op));
  acs_ltensor_box(&b->lg->t[n->out[0]], &box);
  if (acs__lb_out_bytes(b, v, &box, &op.out_bytes) != 0)
    return ACS_ERANGE;
  snprintf(buf, sizeof(buf), "%s.buf", n->name);
  if ((id = acs__lb_add_op(b, buf, ACS_OP_SYNC, &op)) < 0)
    return id;
  p->buf = id;
  b->mirror_dst = b->g->nops; /* the first workload, made next */
  b->mirror_to = id;
  return ACS_OK;
}

/* The stores of a node whose outputs go to DDR. */
static int emit_stores(struct acs__lb *b, int32_t v)
{
  struct acs__lplan *p = &b->pl[v];
  const struct acs_lnode *n = &b->lg->n[v];
  int64_t ntiles = p->nrt * p->nfg;
  char buf[ACS_NAME_MAX];

  p->st0 = -1;
  if (p->res_out)
    return ACS_OK;
  for (int64_t pos = 0; pos < ntiles; pos++) {
    struct acs_lbox box;
    int64_t bytes;
    acs__lb_tile_box(b, v, acs__lb_tile_at(p, pos), &box);
    if (acs__lb_out_bytes(b, v, &box, &bytes) != 0)
      return ACS_ERANGE;
    if (ntiles > 1)
      snprintf(buf, sizeof(buf), "%s.o%lld", n->name, (long long)pos);
    else
      snprintf(buf, sizeof(buf), "%s.o", n->name);
    int32_t id = add_dma(b, buf, ACS_MEM_CMX, ACS_MEM_DDR, bytes);
    if (id < 0)
      return id;
    if (pos == 0)
      p->st0 = id;
    for (int32_t k = 0; k < p->nwl; k++) {
      int rc = acs__lb_edge(b, p->wl0 + (int32_t)(pos * p->nwl + k), id);
      if (rc < 0)
        return rc;
    }
  }
  return ACS_OK;
}

/* A DMA for each network input kept in CMX (`input`, `input<k>`); the
 * others stay in DDR and their readers load what they need. */
static int emit_inputs(struct acs__lb *b)
{
  const struct acs_lgraph *lg = b->lg;
  int32_t nres = 0, k = 0;
  char name[ACS_NAME_MAX];

  for (int32_t i = 0; i < lg->ninputs; i++)
    nres += b->res[lg->inputs[i]];
  for (int32_t i = 0; i < lg->ninputs; i++) {
    int32_t t = lg->inputs[i];
    if (!b->res[t])
      continue;
    if (nres > 1)
      snprintf(name, sizeof(name), "input%d", (int)k++);
    else
      snprintf(name, sizeof(name), "input");
    int32_t id = add_dma(b, name, ACS_MEM_DDR, ACS_MEM_CMX, root_bytes(b, t));
    if (id < 0)
      return id;
    b->in_op[t] = id;
  }
  return ACS_OK;
}

static int add_resources(struct acs__lb *b)
{
  b->res_pe = acs_graph_add_resource(b->g, "pe", ACS_RES_PE, 0);
  b->res_dma = acs_graph_add_resource(b->g, "dma", ACS_RES_DMA, 0);
  b->res_cmx = acs_graph_add_resource(b->g, "cmx", ACS_RES_CMX, 0);
  b->res_ddr = acs_graph_add_resource(b->g, "ddr", ACS_RES_DDR, 0);
  if (b->res_pe < 0)
    return b->res_pe;
  if (b->res_dma < 0)
    return b->res_dma;
  if (b->res_cmx < 0)
    return b->res_cmx;
  return b->res_ddr < 0 ? b->res_ddr : ACS_OK;
}

static int emit_all(struct acs__lb *b)
{
  int rc = add_resources(b);
  if (rc == 0)
    rc = emit_inputs(b);
  for (int32_t i = 0; i < b->lg->nnodes && rc == 0; i++) {
    int32_t v = b->lg->topo[i];
    if (!b->pl[v].compute)
      continue;
    b->line = b->lg->n[v].line;
    rc = emit_weights(b, v);
    if (rc == 0)
      rc = emit_loads(b, v);
    if (rc == 0)
      rc = emit_buffer(b, v);
    if (rc == 0)
      rc = emit_workloads(b, v);
    if (rc == 0)
      rc = emit_stores(b, v);
    if (rc == 0)
      rc = emit_buffer_reuse(b, v);
    if (rc == 0)
      rc = acs__lb_link_inputs(b, v);
    b->mirror_dst = b->mirror_to = -1;
    if (rc == 0 && acs_interrupt_pending())
      rc = ACS_EINTERRUPTED;
  }
  b->line = 0;
  return rc == 0 ? acs__lb_emit_outputs(b) : rc;
}

/* ---- the entry point ---- */

static int init_builder(struct acs__lb *b, const struct acs_lgraph *lg,
                        const struct acs_platform *p, struct acs_graph *g, struct acs_diag *d)
{
  struct acs_ddrlink link;
  size_t memo_n = ACS__LMEMO_PER_NODE;
  int32_t ncompute = 0, maxin = 1;

  memset(b, 0, sizeof(*b));
  b->lg = lg;
  b->g = g;
  b->d = d;
  b->bpe = (int64_t)acs_platform_get(p, ACS_P_BYTES_PER_ELEM);
  b->cmx = acs_platform_cmx_bytes(p);
  b->pes = (int64_t)acs_platform_get(p, ACS_P_PE_COUNT);
  b->mpc = (int64_t)acs_platform_get(p, ACS_P_PE_MACS_PER_CYCLE);
  acs_ddrlink_from_platform(&link, p);
  /* A transfer holds the link in the planners' model: its rate is one
   * transfer's. */
  b->link_bpc = link.xfer_bpc;
  b->latency = link.latency;
  b->pl = calloc((size_t)lg->nnodes + 1, sizeof(*b->pl));
  b->pos = malloc(((size_t)lg->nnodes + 1) * sizeof(*b->pos));
  b->in_op = malloc(((size_t)lg->ntensors + 1) * sizeof(*b->in_op));
  b->res = calloc((size_t)lg->ntensors + 1, 1);
  b->join = malloc(((size_t)lg->nnodes + 1) * sizeof(*b->join));
  b->done = malloc(((size_t)lg->nnodes + 1) * sizeof(*b->done));
  b->band[0] = calloc((size_t)lg->nnodes + 1, sizeof(*b->band[0]));
  b->band[1] = calloc((size_t)lg->nnodes + 1, sizeof(*b->band[1]));
  b->mirror_dst = b->mirror_to = -1;
  if (!b->pl || !b->pos || !b->in_op || !b->res || !b->join || !b->done || !b->band[0] ||
      !b->band[1])
    return ACS_ENOMEM;
  for (int32_t t = 0; t < lg->ntensors; t++)
    b->in_op[t] = -1;
  for (int32_t i = 0; i < lg->nnodes; i++)
    b->pos[lg->topo[i]] = i;
  for (int32_t v = 0; v < lg->nnodes; v++) {
    struct acs__lplan *pv = &b->pl[v];
    int r = lg->n[v].nout > 0 && lg->n[v].out[0] >= 0 ? lg->t[lg->n[v].out[0]].rank : 0;
    b->join[v] = b->done[v] = -1;
    pv->compute = (uint8_t)(!acs_lnode_is_view(lg, v) && lg->n[v].nout > 0 && lg->n[v].out[0] >= 0);
    /* Rows: dim 2 of an N-D tensor (NCHW), dim 0 of a matrix; channels:
     * dim 1 (dim 0 of a vector). */
    pv->ra = (int8_t)(r >= 3 ? 2 : r == 2 ? 0 : -1);
    pv->ca = (int8_t)(r >= 2 ? 1 : r == 1 ? 0 : -1);
    pv->nrt = pv->nfg = pv->nwl = 1;
    pv->split = -1;
    pv->w0 = pv->in0 = pv->wl0 = pv->st0 = pv->buf = -1;
    ncompute += pv->compute;
    maxin = lg->n[v].nin > maxin ? lg->n[v].nin : maxin;
  }
  /* The tiling search's memos, sized to the network: a node's searches
   * (one per residency candidate whose life covers it) visit a few dozen
   * row and group counts each. */
  while (memo_n < ACS__LMEMO_MAX && memo_n < (size_t)ncompute * ACS__LMEMO_PER_NODE)
    memo_n *= 2;
  b->ext = calloc(memo_n, sizeof(*b->ext));
  b->split = calloc(memo_n, sizeof(*b->split));
  b->tile = calloc(memo_n, sizeof(*b->tile));
  b->cur.slot_k = malloc((size_t)maxin * sizeof(*b->cur.slot_k));
  b->cur.slot_w = malloc((size_t)maxin);
  b->cur.v = -1;
  if (!b->ext || !b->split || !b->tile || !b->cur.slot_k || !b->cur.slot_w)
    return ACS_ENOMEM;
  b->memo_mask = memo_n - 1;
  return ACS_OK;
}

static void free_builder(struct acs__lb *b)
{
  free(b->pl);
  free(b->pos);
  free(b->in_op);
  free(b->res);
  free(b->join);
  free(b->done);
  for (int k = 0; k < 2; k++) {
    for (int32_t v = 0; b->band[k] && v < b->lg->nnodes; v++)
      free(b->band[k][v]);
    free(b->band[k]);
  }
  free(b->src_off);
  free(b->src);
  free(b->ext);
  free(b->split);
  free(b->tile);
  free(b->cur.slot_k);
  free(b->cur.slot_w);
}

int acs_lgraph_build(const struct acs_lgraph *lg, const struct acs_platform *p,
                     struct acs_graph *g, struct acs_diag *d)
{
  struct acs__lb b;
  int rc;

  if (!lg->finalized || !lg->inferred)
    return ACS_EINVAL;
  rc = init_builder(&b, lg, p, g, d);
  if (rc == 0)
    rc = resolve_sources(&b);
  if (rc == 0)
    rc = plan_residency(&b);
  if (rc == 0)
    rc = plan_nodes(&b);
  if (rc != 0)
    goto out_with_builder;
  rc = acs_graph_init(g, lg->name, lg->path);
  if (rc != 0)
    goto out_with_builder;
  rc = emit_all(&b);
  if (rc == 0)
    rc = acs_graph_finalize(g, d);
  if (rc != 0) {
    if (rc == ACS_ERANGE && d->msg[0] == '\0')
      acs_diag_set(d, rc, lg->path, 0, 0, "tensor sizes overflow 64-bit integers at %lld "
                   "bytes per element", (long long)b.bpe);
    acs_graph_destroy(g);
  }
out_with_builder:
  if (rc != 0 && rc != ACS_ENOMEM && d->file[0] == '\0')
    snprintf(d->file, sizeof(d->file), "%s", lg->path);
  free_builder(&b);
  return rc;
}
