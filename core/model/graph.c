/*
 * graph.c - op DAG: construction, name index, CSR adjacency, topological
 * order and cycle reporting.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/graph.h"

static const char *const op_kind_names[ACS_OP__COUNT] = {"dpu", "dma", "shave", "sync"};
static const char *const mem_names[ACS_MEM__COUNT] = {"none", "ddr", "cmx", "pe"};

const char *acs_op_kind_name(int kind)
{
  return kind >= 0 && kind < ACS_OP__COUNT ? op_kind_names[kind] : "?";
}

int acs_op_kind_parse(const char *s)
{
  for (int i = 0; i < ACS_OP__COUNT; i++)
    if (strcmp(s, op_kind_names[i]) == 0)
      return i;
  return -1;
}

const char *acs_mem_name(int mem)
{
  return mem >= 0 && mem < ACS_MEM__COUNT ? mem_names[mem] : "?";
}

int acs_mem_parse(const char *s)
{
  for (int i = 0; i < ACS_MEM__COUNT; i++)
    if (strcmp(s, mem_names[i]) == 0)
      return i;
  return -1;
}

const char *acs_edge_kind_name(int kind)
{
  return kind == ACS_EDGE_CONTROL ? "control" : "data";
}

/* ---- name index: open addressing over op ids, FNV-1a hashes ---- */

struct acs__name_index {
  size_t mask;      /* capacity - 1, a power of two */
  int32_t *slot;    /* op id or -1 */
};

static int index_insert(struct acs_graph *g, struct acs__name_index *ix, int32_t id)
{
  size_t i = acs_str_hash(g->ops[id].name) & ix->mask;

  while (ix->slot[i] >= 0)
    i = (i + 1) & ix->mask;
  ix->slot[i] = id;
  return ACS_OK;
}

/* Keeps the load factor under 1/2 so probes stay short. */
static int index_reserve(struct acs_graph *g, size_t n)
{
  struct acs__name_index *ix = g->name_index;
  size_t cap = 64, bytes;
  int32_t *slot;

  if (ix && (ix->mask + 1) / 2 > n)
    return ACS_OK;
  while (cap / 2 <= n)
    cap *= 2;
  if (acs_mul_size(cap, sizeof(*slot), &bytes))
    return ACS_ENOMEM;
  slot = malloc(bytes);
  if (!slot)
    return ACS_ENOMEM;
  memset(slot, 0xff, bytes);
  if (!ix) {
    ix = malloc(sizeof(*ix));
    if (!ix) {
      free(slot);
      return ACS_ENOMEM;
    }
    g->name_index = ix;
  } else {
    free(ix->slot);
  }
  ix->slot = slot;
  ix->mask = cap - 1;
  for (int32_t id = 0; id < g->nops; id++)
    index_insert(g, ix, id);
  return ACS_OK;
}

int32_t acs_graph_find_op(const struct acs_graph *g, const char *name)
{
  const struct acs__name_index *ix = g->name_index;
  size_t i;

  if (!ix)
    return -1;
  for (i = acs_str_hash(name) & ix->mask; ix->slot[i] >= 0; i = (i + 1) & ix->mask)
    if (strcmp(g->ops[ix->slot[i]].name, name) == 0)
      return ix->slot[i];
  return -1;
}

/* ---- construction ---- */

int acs_graph_init(struct acs_graph *g, const char *name, const char *path)
{
  memset(g, 0, sizeof(*g));
  acs_arena_init(&g->arena);
  g->name = acs_arena_strdup(&g->arena, name ? name : "");
  g->path = acs_arena_strdup(&g->arena, path ? path : "");
  if (!g->name || !g->path) {
    acs_arena_destroy(&g->arena);
    return ACS_ENOMEM;
  }
  return ACS_OK;
}

void acs_graph_destroy(struct acs_graph *g)
{
  if (g->name_index) {
    free(g->name_index->slot);
    free(g->name_index);
  }
  free(g->ops);
  free(g->demand);
  free(g->edges);
  acs_arena_destroy(&g->arena);
  memset(g, 0, sizeof(*g));
}

int acs_graph_add_resource(struct acs_graph *g, const char *name, int kind,
                           int64_t capacity)
{
  struct acs_resource *r;

  if (g->nops > 0 || g->nres >= ACS_MAX_RES || kind < ACS_RES_PE || kind > ACS_RES_DDR)
    return ACS_EINVAL;
  if (acs_graph_find_resource(g, name) >= 0)
    return ACS_EINVAL;
  r = &g->res[g->nres];
  r->name = acs_arena_strdup(&g->arena, name);
  if (!r->name)
    return ACS_ENOMEM;
  r->kind = (uint8_t)kind;
  r->capacity = capacity;
  return g->nres++;
}

int acs_graph_find_resource(const struct acs_graph *g, const char *name)
{
  for (int i = 0; i < g->nres; i++)
    if (strcmp(g->res[i].name, name) == 0)
      return i;
  return -1;
}

int acs_graph_resource_of_kind(const struct acs_graph *g, int kind)
{
  for (int i = 0; i < g->nres; i++)
    if (g->res[i].kind == kind)
      return i;
  return -1;
}

int32_t acs_graph_add_op(struct acs_graph *g, const struct acs_op *op)
{
  size_t cap_demand = g->cap_ops * (size_t)g->nres;
  size_t n = (size_t)g->nops + 1;
  struct acs_op *o;
  int err;

  if (g->nops == INT32_MAX || g->finalized)
    return ACS_EINVAL;
  if ((err = acs_grow((void **)&g->ops, sizeof(*g->ops), &g->cap_ops, n)) < 0)
    return err;
  if (g->nres > 0) {
    size_t need;
    if (acs_mul_size(g->cap_ops, (size_t)g->nres, &need))
      return ACS_ENOMEM;
    if ((err = acs_grow((void **)&g->demand, sizeof(*g->demand), &cap_demand, need)) < 0)
      return err;
  }
  o = &g->ops[g->nops];
  *o = *op;
  o->name = acs_arena_strdup(&g->arena, op->name ? op->name : "");
  if (!o->name)
    return ACS_ENOMEM;
  if (o->slots < 1)
    o->slots = 1;
  for (int r = 0; r < g->nres; r++)
    g->demand[(size_t)g->nops * (size_t)g->nres + (size_t)r] = 0;
  if ((err = index_reserve(g, n)) < 0)
    return err;
  /* index_reserve rebuilds from ops [0, nops) only when it grows, so the
   * new op is inserted here in every case. */
  g->nops++;
  if (acs_graph_find_op(g, o->name) < 0)
    index_insert(g, g->name_index, g->nops - 1);
  return g->nops - 1;
}

int acs_graph_set_demand(struct acs_graph *g, int32_t op, int res, int64_t amount)
{
  if (op < 0 || op >= g->nops || res < 0 || res >= g->nres || amount < 0)
    return ACS_EINVAL;
  g->demand[(size_t)op * (size_t)g->nres + (size_t)res] = amount;
  return ACS_OK;
}

int acs_graph_add_edge(struct acs_graph *g, int32_t src, int32_t dst, int kind)
{
  int err;

  if (src < 0 || src >= g->nops || dst < 0 || dst >= g->nops || g->finalized)
    return ACS_EINVAL;
  if (g->nedges == INT32_MAX)
    return ACS_ENOMEM;
  if ((err = acs_grow((void **)&g->edges, sizeof(*g->edges), &g->cap_edges,
                      (size_t)g->nedges + 1)) < 0)
    return err;
  g->edges[g->nedges].src = src;
  g->edges[g->nedges].dst = dst;
  g->edges[g->nedges].kind = (uint8_t)kind;
  g->nedges++;
  return ACS_OK;
}

/* ---- finalize ---- */

static int32_t *arena_ints(struct acs_arena *a, size_t n)
{
  return acs_arena_calloc(a, n ? n : 1, sizeof(int32_t));
}

/* Counting sort of edges into CSR rows; O(V + E). */
static int build_csr(struct acs_graph *g, int by_src, int32_t **off_out, int32_t **adj_out)
{
  size_t n = (size_t)g->nops;
  int32_t *off = arena_ints(&g->arena, n + 1);
  int32_t *adj = arena_ints(&g->arena, (size_t)g->nedges);
  int32_t *fill;

  if (!off || !adj)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < g->nedges; e++)
    off[(by_src ? g->edges[e].src : g->edges[e].dst) + 1]++;
  for (size_t v = 0; v < n; v++)
    off[v + 1] += off[v];
  fill = malloc((n ? n : 1) * sizeof(*fill));
  if (!fill)
    return ACS_ENOMEM;
  memcpy(fill, off, n * sizeof(*fill));
  for (int32_t e = 0; e < g->nedges; e++) {
    int32_t from = by_src ? g->edges[e].src : g->edges[e].dst;
    int32_t to = by_src ? g->edges[e].dst : g->edges[e].src;
    adj[fill[from]++] = to;
  }
  free(fill);
  *off_out = off;
  *adj_out = adj;
  return ACS_OK;
}

/*
 * Names the ops of one cycle among the ops Kahn's algorithm could not order
 * (indeg > 0). Every such op has a predecessor that is also unordered, so
 * walking predecessors must revisit an op; the revisited stretch is a cycle.
 */
static int report_cycle(const struct acs_graph *g, const int32_t *indeg,
                        struct acs_diag *d)
{
  int32_t *seen = calloc((size_t)g->nops, sizeof(*seen));
  int32_t *path = malloc((size_t)g->nops * sizeof(*path));
  int32_t v = -1, len = 0, start, line;
  char buf[900];
  size_t pos = 0;

  if (!seen || !path) {
    free(seen);
    free(path);
    return acs_diag_set(d, ACS_ECYCLE, g->path, 0, 0, "graph '%s' has a cycle", g->name);
  }
  for (int32_t i = 0; i < g->nops && v < 0; i++)
    if (indeg[i] > 0)
      v = i;
  while (!seen[v]) {
    seen[v] = ++len;
    path[len - 1] = v;
    for (int32_t k = g->pred_off[v]; k < g->pred_off[v + 1]; k++)
      if (indeg[g->pred[k]] > 0) {
        v = g->pred[k];
        break;
      }
  }
  /* path[start .. len-1] walks predecessors, so reversed it follows the
   * edges. Print it from the op with the smallest id (the first in the
   * input), so the message does not depend on where the walk began. */
  start = seen[v] - 1;
  int32_t n = len - start, first = 0;
  for (int32_t k = 1; k < n; k++)
    if (path[len - 1 - k] < path[len - 1 - first])
      first = k;
  buf[0] = '\0';
  for (int32_t k = 0; k <= n && pos < sizeof(buf) - 64; k++)
    pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, k < n ? "%s -> " : "%s",
                            g->ops[path[len - 1 - (first + k) % n]].name);
  if (pos >= sizeof(buf) - 64)
    snprintf(buf + sizeof(buf) - 64, 64, "...");
  line = g->ops[path[len - 1 - first]].line;
  free(seen);
  free(path);
  return acs_diag_set(d, ACS_ECYCLE, g->path, line, 0, "cycle: %s", buf);
}

static int check_unique_names(const struct acs_graph *g, struct acs_diag *d)
{
  for (int32_t i = 0; i < g->nops; i++) {
    int32_t j = acs_graph_find_op(g, g->ops[i].name);
    if (j != i)
      return acs_diag_set(d, ACS_EPARSE, g->path, g->ops[i].line, 0,
                          "duplicate op name '%s'", g->ops[i].name);
  }
  return ACS_OK;
}

int acs_graph_finalize(struct acs_graph *g, struct acs_diag *d)
{
  int32_t *indeg = NULL, head = 0, tail = 0;
  int err;

  if (g->finalized)
    return ACS_OK;
  if ((err = check_unique_names(g, d)) < 0)
    return err;
  for (int32_t e = 0; e < g->nedges; e++)
    if (g->edges[e].src == g->edges[e].dst)
      return acs_diag_set(d, ACS_ECYCLE, g->path, g->ops[g->edges[e].src].line, 0,
                          "cycle: %s -> %s", g->ops[g->edges[e].src].name,
                          g->ops[g->edges[e].src].name);
  if ((err = build_csr(g, 1, &g->succ_off, &g->succ)) < 0 ||
      (err = build_csr(g, 0, &g->pred_off, &g->pred)) < 0)
    return err;
  g->topo = arena_ints(&g->arena, (size_t)g->nops);
  indeg = malloc(((size_t)g->nops + 1) * sizeof(*indeg));
  if (!g->topo || !indeg) {
    free(indeg);
    return ACS_ENOMEM;
  }
  /* Kahn's algorithm with a FIFO seeded in id order: deterministic, O(V + E). */
  for (int32_t v = 0; v < g->nops; v++) {
    indeg[v] = g->pred_off[v + 1] - g->pred_off[v];
    if (indeg[v] == 0)
      g->topo[tail++] = v;
  }
  while (head < tail) {
    int32_t v = g->topo[head++];
    for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
      if (--indeg[g->succ[k]] == 0)
        g->topo[tail++] = g->succ[k];
  }
  if (tail < g->nops) {
    err = report_cycle(g, indeg, d);
    free(indeg);
    return err;
  }
  free(indeg);
  g->finalized = 1;
  return ACS_OK;
}

int acs_graph_clone(const struct acs_graph *g, struct acs_graph *out)
{
  int err;

  if ((err = acs_graph_init(out, g->name, g->path)) < 0)
    return err;
  for (int r = 0; r < g->nres; r++)
    if ((err = acs_graph_add_resource(out, g->res[r].name, g->res[r].kind,
                                      g->res[r].capacity)) < 0)
      goto out_with_graph;
  for (int32_t i = 0; i < g->nops; i++) {
    int32_t id = acs_graph_add_op(out, &g->ops[i]);
    if (id < 0) {
      err = id;
      goto out_with_graph;
    }
    for (int r = 0; r < g->nres; r++)
      out->demand[(size_t)id * (size_t)g->nres + (size_t)r] = acs_graph_demand(g, i, r);
  }
  for (int32_t e = 0; e < g->nedges; e++)
    if ((err = acs_graph_add_edge(out, g->edges[e].src, g->edges[e].dst,
                                  g->edges[e].kind)) < 0)
      goto out_with_graph;
  if (g->finalized && (err = acs_graph_finalize(out, NULL)) < 0)
    goto out_with_graph;
  return ACS_OK;

out_with_graph:
  acs_graph_destroy(out);
  return err;
}

/* ---- cost ---- */

/*
 * Per op: the op record and its demand row, each in an array that may be
 * twice the size it holds; its name in the arena; two name-index slots or
 * more; its CSR offsets and its place in the order. Per edge: the record
 * twice over, and its two CSR entries.
 */
#define OP_BYTES (2 * (int64_t)sizeof(struct acs_op) + 48 + 16 + 12)
#define RES_BYTES (2 * (int64_t)sizeof(int64_t))
#define EDGE_BYTES (2 * (int64_t)sizeof(struct acs_edge) + 8)

int64_t acs_graph_cost_bytes(int64_t nops, int64_t nedges, int nres)
{
  int64_t per_op, a, b, sum;

  if (nops < 0 || nedges < 0 || nres < 0 ||
      acs_mul_i64(RES_BYTES, nres, &per_op) || acs_add_i64(per_op, OP_BYTES, &per_op) ||
      acs_mul_i64(per_op, nops, &a) || acs_mul_i64(EDGE_BYTES, nedges, &b) ||
      acs_add_i64(a, b, &sum))
    return INT64_MAX;
  return sum;
}

int acs_graph_check_cost(int64_t nops, int64_t nedges, int nres, struct acs_diag *d,
                         const char *file, int line, int col, const char *what)
{
  int err;

  if ((err = acs_limit_check(ACS_LIMIT_OPS, nops, d, file, line, col, "%s", what)) < 0 ||
      (err = acs_limit_check(ACS_LIMIT_EDGES, nedges, d, file, line, col, "%s", what)) < 0)
    return err;
  return acs_limit_check(ACS_LIMIT_BYTES, acs_graph_cost_bytes(nops, nedges, nres), d, file,
                         line, col, "%s (a graph of %" PRId64 " ops and %" PRId64 " edges)",
                         what, nops, nedges);
}
