/*
 * layer_link.c - the edges of the NPU lowering (layer_build_int.h, decision 4), and
 * the network outputs.
 *
 * A reader depends on exactly the producer ops whose output its region
 * overlaps: the region a workload (resident input) or a load (input from
 * DDR) reads is acs_lnode_input_box of its box, and the producer's pieces
 * (tiles, and workloads within a tile) are a grid of parts along the
 * producer's row axis, channel axis and split axis, so the overlapping
 * pieces are ranges of part indices found in O(1) per axis. A reader that
 * reads a tensor through a view (Reshape, Flatten, a Concat made of
 * slices) depends on every piece of each root: a view's coordinates are
 * not the root's. Through DDR such whole dependences meet in one sync op
 * (`<node>.in<k>`) so that n producers and m readers cost n + m edges, not
 * n x m; through CMX they stay direct, because a memory model that keeps a
 * tensor until its last reader must see the readers themselves.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/layer_build_int.h"

/* The loop position of tile t. */
static int64_t pos_of(const struct acs__lplan *p, int64_t t)
{
  if (!p->rows_outer)
    return t;
  return (t % p->nrt) * p->nfg + t / p->nrt;
}

/* The part range [*lo, *hi] of an axis of `total` in `parts` that
 * [a, z) overlaps; the whole range when axis < 0. */
static void part_range(int axis, int64_t total, int64_t parts, const struct acs_lbox *q,
                       int64_t *lo, int64_t *hi)
{
  if (axis < 0) {
    *lo = 0;
    *hi = parts - 1;
    return;
  }
  *lo = acs__part_of(total, parts, q->lo[axis]);
  *hi = acs__part_of(total, parts, q->hi[axis] - 1);
}

/* Edges into dst from node u's pieces overlapping box q of its output:
 * its stores (stores = 1) or its workloads. */
static int edges_from_overlap(struct acs__lb *b, int32_t u, const struct acs_lbox *q, int stores,
                              int32_t dst)
{
  const struct acs__lplan *p = &b->pl[u];
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[u].out[0]];
  int64_t i0, i1, g0, g1;

  part_range(p->ra, p->ra >= 0 ? o->dims[p->ra] : 1, p->nrt, q, &i0, &i1);
  part_range(p->ca, p->ca >= 0 ? o->dims[p->ca] : 1, p->nfg, q, &g0, &g1);
  for (int64_t g = g0; g <= g1; g++)
    for (int64_t i = i0; i <= i1; i++) {
      int64_t t = g * p->nrt + i, pos = pos_of(p, t), k0 = 0, k1 = p->nwl - 1;
      int rc;
      if (stores) {
        if ((rc = acs__lb_edge(b, p->st0 + (int32_t)pos, dst)) < 0)
          return rc;
        continue;
      }
      if (p->split >= 0) {
        struct acs_lbox tile, rel = *q;
        acs__lb_tile_box(b, u, t, &tile);
        int64_t e = tile.hi[p->split] - tile.lo[p->split];
        rel.lo[p->split] = (q->lo[p->split] > tile.lo[p->split] ? q->lo[p->split] : tile.lo[p->split]) - tile.lo[p->split];
        rel.hi[p->split] = (q->hi[p->split] < tile.hi[p->split] ? q->hi[p->split] : tile.hi[p->split]) - tile.lo[p->split];
        if (rel.hi[p->split] <= rel.lo[p->split])
          continue;
        part_range(p->split, e, p->nwl, &rel, &k0, &k1);
      }
      for (int64_t k = k0; k <= k1; k++)
        if ((rc = acs__lb_edge(b, p->wl0 + (int32_t)(pos * p->nwl + k), dst)) < 0)
          return rc;
    }
  return ACS_OK;
}

/* How many pieces (stores, or workloads) node u has. */
static int64_t pieces(const struct acs__lplan *p, int stores)
{
  return p->nrt * p->nfg * (stores ? 1 : p->nwl);
}

/* How many of node u's pieces box q of its output overlaps. */
static int64_t overlap_count(const struct acs__lb *b, int32_t u, const struct acs_lbox *q,
                             int stores)
{
  const struct acs__lplan *p = &b->pl[u];
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[u].out[0]];
  int64_t i0, i1, g0, g1, per = stores ? 1 : p->nwl;

  part_range(p->ra, p->ra >= 0 ? o->dims[p->ra] : 1, p->nrt, q, &i0, &i1);
  part_range(p->ca, p->ca >= 0 ? o->dims[p->ca] : 1, p->nfg, q, &g0, &g1);
  if (!stores && p->split >= 0 && p->split != p->ra && p->split != p->ca) {
    int64_t k0, k1;
    part_range(p->split, o->dims[p->split], p->nwl, q, &k0, &k1);
    per = k1 - k0 + 1;
  }
  return (i1 - i0 + 1) * (g1 - g0 + 1) * per; /* an upper bound along split == ra or ca */
}

/* The sync after every store (`<u>.out`) or every workload (`<u>.done`)
 * of node u, made once. */
static int32_t join_of(struct acs__lb *b, int32_t u, int stores)
{
  const struct acs__lplan *p = &b->pl[u];
  int32_t *slot = stores ? &b->join[u] : &b->done[u], first = stores ? p->st0 : p->wl0, id;
  char name[ACS_NAME_MAX];
  struct acs_op op;

  if (*slot >= 0)
    return *slot;
  memset(&op, 0, sizeof(op));
  snprintf(name, sizeof(name), "%s.%s", b->lg->n[u].name, stores ? "out" : "done");
  if ((id = acs__lb_add_op(b, name, ACS_OP_SYNC, &op)) < 0)
    return id;
  for (int64_t i = 0; i < pieces(p, stores); i++) {
    int rc = acs__lb_edge(b, first + (int32_t)i, id);
    if (rc < 0)
      return rc;
  }
  return *slot = id;
}

/* Many readers of most of a producer meet in its join: n + m edges where
 * direct ones would be n x m, at the price of waiting for the few pieces
 * a reader does not need. */
#define JOIN_MIN 8

/* The sync after every piece (stores, or workloads) of row tile i of node
 * u, across its channel groups (`<u>.r<i>` or `<u>.rd<i>`), made once. */
static int32_t band_of(struct acs__lb *b, int32_t u, int64_t i, int stores)
{
  const struct acs__lplan *p = &b->pl[u];
  int32_t **slot = &b->band[stores][u], id;
  int64_t per = stores ? 1 : p->nwl;
  char name[ACS_NAME_MAX];
  struct acs_op op;

  if (!*slot) {
    if (!(*slot = malloc((size_t)p->nrt * sizeof(**slot))))
      return ACS_ENOMEM;
    for (int64_t r = 0; r < p->nrt; r++)
      (*slot)[r] = -1;
  }
  if ((*slot)[i] >= 0)
    return (*slot)[i];
  memset(&op, 0, sizeof(op));
  snprintf(name, sizeof(name), "%.*s.%s%lld", ACS_NAME_MAX - 32, b->lg->n[u].name,
           stores ? "r" : "rd", (long long)i);
  if ((id = acs__lb_add_op(b, name, ACS_OP_SYNC, &op)) < 0)
    return id;
  for (int64_t g = 0; g < p->nfg; g++) {
    int64_t pos = pos_of(p, g * p->nrt + i);
    for (int64_t k = 0; k < per; k++) {
      int rc = acs__lb_edge(b, (stores ? p->st0 : p->wl0) + (int32_t)(pos * per + k), id);
      if (rc < 0)
        return rc;
    }
  }
  return (*slot)[i] = id;
}

/*
 * Box q of u's output read across every channel group of u, with at least
 * JOIN_MIN pieces a row tile (a convolution reading all its input
 * channels from a producer cut in many channel groups): the reader waits
 * on one sync per row tile, so n pieces and m readers cost n + m x rows
 * edges, not n x m.
 */
static int depend_bands(struct acs__lb *b, int32_t u, const struct acs_lbox *q, int stores,
                        int32_t dst, int *done)
{
  const struct acs__lplan *p = &b->pl[u];
  const struct acs_ltensor *o = &b->lg->t[b->lg->n[u].out[0]];
  int64_t i0, i1, g0, g1;

  *done = 0;
  part_range(p->ra, p->ra >= 0 ? o->dims[p->ra] : 1, p->nrt, q, &i0, &i1);
  part_range(p->ca, p->ca >= 0 ? o->dims[p->ca] : 1, p->nfg, q, &g0, &g1);
  if (g0 != 0 || g1 != p->nfg - 1 || p->nfg * (stores ? 1 : p->nwl) < JOIN_MIN)
    return ACS_OK;
  for (int64_t i = i0; i <= i1; i++) {
    int32_t j = band_of(b, u, i, stores);
    int rc = j < 0 ? j : acs__lb_edge(b, j, dst);
    if (rc < 0)
      return rc;
  }
  *done = 1;
  return ACS_OK;
}

/*
 * Orders dst after node u's pieces (stores or workloads) that box q of
 * u's output overlaps, or all of them (q NULL).
 */
static int depend(struct acs__lb *b, int32_t u, const struct acs_lbox *q, int stores, int32_t dst)
{
  int64_t total = pieces(&b->pl[u], stores), cnt = q ? overlap_count(b, u, q, stores) : total;
  int32_t j;

  if (cnt <= 0)
    return ACS_OK;
  if (cnt >= JOIN_MIN && 2 * cnt >= total) {
    j = join_of(b, u, stores);
    return j < 0 ? j : acs__lb_edge(b, j, dst);
  }
  if (q) {
    int rc, banded;
    if ((rc = depend_bands(b, u, q, stores, dst, &banded)) < 0 || banded)
      return rc;
    return edges_from_overlap(b, u, q, stores, dst);
  }
  for (int64_t i = 0; i < total; i++) {
    int rc = acs__lb_edge(b, (stores ? b->pl[u].st0 : b->pl[u].wl0) + (int32_t)i, dst);
    if (rc < 0)
      return rc;
  }
  return ACS_OK;
}

/* The box a reader op of node v covers: workload k of tile t, or (k < 0)
 * the tile a load serves. */
static void reader_box(const struct acs__lb *b, int32_t v, int64_t t, int32_t k,
                       struct acs_lbox *box)
{
  const struct acs__lplan *p = &b->pl[v];

  if (k >= 0) {
    acs__lb_workload_box(b, v, t, k, box);
    return;
  }
  acs__lb_tile_box(b, v, t, box);
  if (p->rows_outer && p->ca >= 0) {
    box->lo[p->ca] = 0;
    box->hi[p->ca] = b->lg->t[b->lg->n[v].out[0]].dims[p->ca];
  }
}

/* The reader op `dst` of node v (covering box) reads root r through slot
 * k from u's pieces: only those its region overlaps when it reads r
 * itself, every one through a view (a view's coordinates are not r's). */
static int depend_region(struct acs__lb *b, int32_t v, int k, int32_t r, const struct acs_lbox *box,
                         int stores, int32_t dst)
{
  int32_t u = b->lg->t[r].producer;
  struct acs_lbox q;
  int rc;

  if (b->lg->n[v].in[k] != r)
    return depend(b, u, NULL, stores, dst);
  if ((rc = acs_lnode_input_box(b->lg, v, k, box, &q)) != 0)
    return rc;
  return acs_lbox_elems(&q) > 0 ? depend(b, u, &q, stores, dst) : ACS_OK;
}

/* A resident root r read through slot k: every workload of v reads its
 * buffer (the tensor) after the pieces that write its region. */
static int link_resident(struct acs__lb *b, int32_t v, int k, int32_t r)
{
  const struct acs__lplan *p = &b->pl[v];
  int32_t u = b->lg->t[r].producer;

  for (int64_t pos = 0; pos < p->nrt * p->nfg; pos++)
    for (int32_t j = 0; j < p->nwl; j++) {
      int32_t dst = p->wl0 + (int32_t)(pos * p->nwl + j);
      struct acs_lbox box;
      int rc;
      if (u < 0) {
        rc = acs__lb_edge(b, b->in_op[r], dst);
      } else {
        reader_box(b, v, acs__lb_tile_at(p, pos), j, &box);
        rc = acs__lb_edge(b, b->pl[u].buf, dst);
        if (rc == 0)
          rc = depend_region(b, v, k, r, &box, 0, dst);
      }
      if (rc < 0)
        return rc;
    }
  return ACS_OK;
}

/* A root r in DDR read through slot k: each load of v after the stores of
 * the region it reads. */
static int link_ddr(struct acs__lb *b, int32_t v, int k, int32_t r)
{
  const struct acs__lplan *p = &b->pl[v];
  int64_t ntiles = p->nrt * p->nfg, step = p->rows_outer ? p->nfg : 1;

  if (b->lg->t[r].producer < 0 || p->in0 < 0)
    return ACS_OK; /* a network input: in DDR from the start */
  for (int64_t pos = 0; pos < ntiles; pos += step) {
    struct acs_lbox box;
    reader_box(b, v, acs__lb_tile_at(p, pos), -1, &box);
    int rc = depend_region(b, v, k, r, &box, 1, p->in0 + (int32_t)(pos / step));
    if (rc < 0)
      return rc;
  }
  return ACS_OK;
}

int acs__lb_link_inputs(struct acs__lb *b, int32_t v)
{
  const struct acs_lnode *n = &b->lg->n[v];
  int rc = ACS_OK;

  for (int k = 0; k < n->nin && rc == ACS_OK; k++) {
    int dup = 0;
    if (!acs__lb_data_slot(b, n, k))
      continue;
    for (int j = 0; j < k; j++)
      dup |= n->in[j] == n->in[k] && n->role[j] == n->role[k];
    for (int32_t i = b->src_off[n->in[k]]; i < b->src_off[n->in[k] + 1] && rc == 0 && !dup; i++) {
      int32_t r = b->src[i];
      if (b->lg->t[r].kind == ACS_LT_WEIGHT || b->lg->t[r].kind == ACS_LT_PARAM)
        continue;
      rc = b->res[r] ? link_resident(b, v, k, r) : link_ddr(b, v, k, r);
    }
  }
  return rc < 0 ? rc : ACS_OK;
}

/* ---- network outputs ---- */

/*
 * Each network output: a DMA writing the roots still in CMX to DDR after
 * their producers (or a sync, when every root is already in DDR), after
 * the stores of the others.
 */
static int emit_output(struct acs__lb *b, int32_t o, char *name)
{
  const struct acs_lgraph *lg = b->lg;
  int32_t t = lg->outputs[o];
  int64_t bytes = 0, x;
  struct acs_op op;
  int32_t id;
  int rc = ACS_OK;

  for (int32_t i = b->src_off[t]; i < b->src_off[t + 1]; i++) {
    int32_t r = b->src[i];
    if (b->res[r] && (acs_mul_i64(acs_ltensor_elems(&lg->t[r]), b->bpe, &x) != 0 ||
                      acs_add_i64(bytes, x, &bytes) != 0))
      return ACS_ERANGE;
  }
  memset(&op, 0, sizeof(op));
  if (bytes > 0) {
    op.src = ACS_MEM_CMX;
    op.dst = ACS_MEM_DDR;
    op.cycles = -1;
    op.bytes = bytes;
  }
  if ((id = acs__lb_add_op(b, name, bytes > 0 ? ACS_OP_DMA : ACS_OP_SYNC, &op)) < 0)
    return id;
  if (bytes > 0 && ((rc = acs_graph_set_demand(b->g, id, b->res_dma, 1)) < 0 ||
                    (rc = acs_graph_set_demand(b->g, id, b->res_ddr, 1)) < 0 ||
                    (rc = acs_graph_set_demand(b->g, id, b->res_cmx, bytes)) < 0))
    return rc;
  for (int32_t i = b->src_off[t]; i < b->src_off[t + 1] && rc == 0; i++) {
    int32_t r = b->src[i], u = lg->t[r].producer;
    if (lg->t[r].kind == ACS_LT_WEIGHT || lg->t[r].kind == ACS_LT_PARAM)
      continue;
    if (u < 0)
      rc = b->res[r] ? acs__lb_edge(b, b->in_op[r], id) : ACS_OK;
    else if (b->res[r] && (rc = acs__lb_edge(b, b->pl[u].buf, id)) < 0)
      break;
    else
      rc = depend(b, u, NULL, !b->res[r], id);
  }
  return rc < 0 ? rc : ACS_OK;
}

int acs__lb_emit_outputs(struct acs__lb *b)
{
  char name[ACS_NAME_MAX];
  int rc = ACS_OK;

  for (int32_t o = 0; o < b->lg->noutputs && rc == ACS_OK; o++) {
    if (b->lg->noutputs > 1)
      snprintf(name, sizeof(name), "output%d", (int)o);
    else
      snprintf(name, sizeof(name), "output");
    rc = emit_output(b, o, name);
  }
  return rc;
}
