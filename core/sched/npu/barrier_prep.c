/*
 * barrier_prep.c - what the barrier sweeps share, computed once per pass:
 *
 *  - the transitive reduction of the schedule's edges (over a topological
 *    order that follows the planned starts; the graph of every edge is
 *    dropped once it is made): an op waits only on the edges that no path
 *    of other edges implies (on fine-grained DNN schedules nine edges in
 *    ten are implied: each stripe depends on every op of the stripes it
 *    reads, directly and through them). The allocator reads predecessors,
 *    successors and ancestors from it alone, so the program is the same
 *    whether or not a schedule carries implied edges;
 *  - consumer classes: ops whose reduced successor sets are equal. One use
 *    of a barrier serves a whole class at no cost, because every consumer
 *    waits for every producer of the class anyway;
 *  - latest starts (the planned makespan minus the longest path from the op
 *    to the end), which price a delay: an op delayed up to its latest start
 *    does not lengthen the plan through its successors.
 *
 * O((V + E) log V) plus the reduction (reach.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/npu/barrier_int.h"

/* Reduced successors (increasing ids) and predecessors, as CSR: the
 * reduction (acs_dag_reduce, reach.h) plus O(V + E). */
static int build_reduced(struct acs__bprep *p, const struct acs_dag *g)
{
  int32_t n = p->n, m = g->succ_off[n];
  uint8_t *keep = malloc((size_t)m + 1);
  int32_t *fill = calloc((size_t)n + 2, sizeof(int32_t));
  int err;

  p->rs_off = calloc((size_t)n + 2, sizeof(int32_t));
  p->rp_off = calloc((size_t)n + 2, sizeof(int32_t));
  if (!keep || !fill || !p->rs_off || !p->rp_off) {
    err = ACS_ENOMEM;
    goto out_with_keep;
  }
  if ((err = acs_dag_reduce(g, keep)) < 0)
    goto out_with_keep;
  for (int32_t u = 0; u < n; u++)
    for (int32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++)
      if (keep[k]) {
        p->rs_off[u + 1]++;
        p->rp_off[g->succ[k] + 1]++;
        p->reduced++;
      }
  for (int32_t v = 0; v < n; v++) {
    p->rs_off[v + 1] += p->rs_off[v];
    p->rp_off[v + 1] += p->rp_off[v];
  }
  p->rs = malloc(((size_t)p->reduced + 1) * sizeof(int32_t));
  p->rp = malloc(((size_t)p->reduced + 1) * sizeof(int32_t));
  p->rs_g = malloc(((size_t)p->reduced + 1) * sizeof(int32_t));
  if (!p->rs || !p->rp || !p->rs_g) {
    err = ACS_ENOMEM;
    goto out_with_keep;
  }
  /* Walking the sources in id order fills every rp list in increasing
   * ids; the rs lists are sorted with the classes, rs_g keeps g's (the
   * schedule's edge order, acs_csr_fill). */
  for (int32_t u = 0; u < n; u++)
    for (int32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++)
      if (keep[k])
        p->rs[p->rs_off[u] + fill[u]++] = g->succ[k];
  memcpy(p->rs_g, p->rs, (size_t)p->reduced * sizeof(int32_t));
  memset(fill, 0, ((size_t)n + 2) * sizeof(int32_t));
  for (int32_t u = 0; u < n; u++)
    for (int32_t k = p->rs_off[u]; k < p->rs_off[u + 1]; k++) {
      int32_t v = p->rs[k];
      p->rp[p->rp_off[v] + fill[v]++] = u;
    }
  /* Distinct edges, for the figures: fill[] now stamps successors. */
  for (int32_t v = 0; v < n; v++)
    fill[v] = -1;
  for (int32_t u = 0; u < n; u++)
    for (int32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++)
      if (fill[g->succ[k]] != u) {
        fill[g->succ[k]] = u;
        p->edges++;
      }
out_with_keep:
  free(keep);
  free(fill);
  return err;
}

struct hv {
  uint64_t h;
  int32_t v;
};

static int cmp_hv(const void *x, const void *y)
{
  const struct hv *a = x, *b = y;

  if (a->h != b->h)
    return a->h < b->h ? -1 : 1;
  return (a->v > b->v) - (a->v < b->v);
}

static int same_list(const struct acs__bprep *p, int32_t a, int32_t b)
{
  int32_t la = p->rs_off[a + 1] - p->rs_off[a];

  return la == p->rs_off[b + 1] - p->rs_off[b] &&
         (la == 0 || memcmp(p->rs + p->rs_off[a], p->rs + p->rs_off[b],
                            (size_t)la * sizeof(int32_t)) == 0);
}

/* Classes of equal reduced successor sets: hash, sort, then compare each
 * op with the first op of each class already seen under its hash.
 * O(R log R + V log V) for the R reduced edges (more only on hash
 * collisions). */
static int build_classes(struct acs__bprep *p)
{
  int32_t n = p->n, *rep = malloc(((size_t)n + 1) * sizeof(int32_t));
  struct hv *h = malloc(((size_t)n + 1) * sizeof(*h));

  p->cls = malloc(((size_t)n + 1) * sizeof(int32_t));
  if (!rep || !h || !p->cls) {
    free(rep), free(h);
    return ACS_ENOMEM;
  }
  for (int32_t v = 0; v < n; v++) {
    uint64_t x = 1469598103934665603u;
    acs_sort_i32(p->rs + p->rs_off[v], (size_t)(p->rs_off[v + 1] - p->rs_off[v]));
    for (int32_t k = p->rs_off[v]; k < p->rs_off[v + 1]; k++)
      x = (x ^ (uint64_t)(uint32_t)p->rs[k]) * 1099511628211u;
    h[v] = (struct hv){x, v};
  }
  qsort(h, (size_t)n, sizeof(*h), cmp_hv);
  for (int32_t i = 0, first = 0, nrep = 0; i < n; i++) {
    int32_t v = h[i].v, c = -1;
    if (i > 0 && h[i].h != h[i - 1].h)
      first = nrep;
    if (p->rs_off[v + 1] == p->rs_off[v]) {
      p->cls[v] = -1;
      continue;
    }
    for (int32_t k = first; k < nrep && c < 0; k++)
      if (same_list(p, rep[k], v))
        c = p->cls[rep[k]];
    if (c < 0) {
      c = p->ncls++;
      rep[nrep++] = v;
    }
    p->cls[v] = c;
  }
  free(rep), free(h);
  return ACS_OK;
}

struct tv {
  int64_t tail;
  int32_t v;
};

static int cmp_tail(const void *x, const void *y)
{
  const struct tv *a = x, *b = y;

  if (a->tail != b->tail)
    return a->tail > b->tail ? -1 : 1;
  return (a->v > b->v) - (a->v < b->v);
}

/* tail(v) = the longest path from v's start to the end, lst(v) = makespan
 * - tail(v), and the ops by decreasing tail. O(V log V + E). */
static int build_latest(struct acs__bprep *p, const struct acs_dag *g,
                        const struct acs_schedule *s)
{
  int64_t *tail = p->tail = calloc((size_t)p->n + 1, sizeof(int64_t));

  p->lst = malloc(((size_t)p->n + 1) * sizeof(int64_t));
  p->by_tail = malloc(((size_t)p->n + 1) * sizeof(int32_t));
  if (!tail || !p->lst || !p->by_tail)
    return ACS_ENOMEM;
  for (int32_t k = p->n - 1; k >= 0; k--) {
    int32_t v = g->topo[k];
    int64_t best = 0;
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      if (tail[g->succ[e]] > best)
        best = tail[g->succ[e]];
    tail[v] = best + acs__sgs_dur(s, v);
    p->lst[v] = s->makespan - tail[v];
  }
  struct tv *o = malloc(((size_t)p->n + 1) * sizeof(*o));
  if (!o)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < p->n; v++)
    o[v] = (struct tv){tail[v], v};
  qsort(o, (size_t)p->n, sizeof(*o), cmp_tail);
  for (int32_t k = 0; k < p->n; k++)
    p->by_tail[k] = o[k].v;
  free(o);
  return ACS_OK;
}

/*
 * The schedule's edges as a DAG, the same as acs_schedule_edge_dag (edge
 * lists in edge order, Kahn's order taking the ready op of least (start,
 * id)), from the ranks in (start, id) order: when every edge goes up in
 * rank, that order is topological, and Kahn's then takes exactly it (the
 * least op left has all its predecessors taken). A complete schedule's
 * edges go forward in time, so only an edge between ops at one instant
 * (a zero-length source) can go down; then Kahn's order is computed.
 * O(V + E) instead of O((V + E) log V).
 */
static int edge_dag(const struct acs_schedule *s, const int32_t *rank, struct acs_dag *g)
{
  size_t nn = (size_t)s->nops + 2, mm = (size_t)s->nedges + 1;
  int32_t *src = malloc(mm * sizeof(int32_t)), *dst = malloc(mm * sizeof(int32_t));
  int32_t *at_s = malloc(mm * sizeof(int32_t)), *at_p = malloc(mm * sizeof(int32_t));
  int err = ACS_ENOMEM;

  memset(g, 0, sizeof(*g));
  g->n = s->nops;
  g->succ_off = calloc(nn, sizeof(int32_t)), g->pred_off = calloc(nn, sizeof(int32_t));
  g->succ = malloc(mm * sizeof(int32_t)), g->pred = malloc(mm * sizeof(int32_t));
  g->pred_edge = malloc(mm * sizeof(int32_t));
  g->topo = malloc(nn * sizeof(int32_t)), g->pos = malloc(nn * sizeof(int32_t));
  if (!src || !dst || !at_s || !at_p || !g->succ_off || !g->pred_off || !g->succ || !g->pred ||
      !g->pred_edge || !g->topo || !g->pos)
    goto out_with_edges;
  err = ACS_OK;
  for (int32_t e = 0; e < s->nedges; e++) {
    src[e] = s->edges[e].src;
    dst[e] = s->edges[e].dst;
    if (src[e] < 0 || src[e] >= s->nops || dst[e] < 0 || dst[e] >= s->nops)
      err = ACS_EINVAL;
    else if (rank[src[e]] >= rank[dst[e]])
      err = ACS_ECYCLE; /* not in rank order: Kahn's decides */
  }
  if (err < 0) {
    acs_dag_destroy(g);
    err = acs_schedule_edge_dag(s, g);
    goto out_with_edges;
  }
  acs_csr_fill(s->nops, s->nedges, src, dst, g->succ_off, g->succ, at_s);
  acs_csr_fill(s->nops, s->nedges, dst, src, g->pred_off, g->pred, at_p);
  for (int32_t e = 0; e < s->nedges; e++)
    g->pred_edge[at_p[e]] = at_s[e];
  for (int32_t v = 0; v < s->nops; v++) {
    g->topo[rank[v]] = v;
    g->pos[v] = rank[v];
  }
out_with_edges:
  free(src), free(dst), free(at_s), free(at_p);
  if (err < 0)
    acs_dag_destroy(g);
  return err;
}

/* All of the above, once per pass: O((V + E) log V) plus the reduction;
 * nothing depends on the barrier count. The graph of every edge is
 * dropped once made use of: the sweeps read the reduction alone, and a
 * preparation kept across barrier counts (cli/job_memo.c) then holds
 * O(V + reduced edges), not O(V + E). */
int acs__bprep_init(struct acs__bprep *p, const struct acs_schedule *s)
{
  struct acs_dag g;
  int err = ACS_ENOMEM;

  memset(p, 0, sizeof(*p));
  memset(&g, 0, sizeof(g));
  p->n = s->nops;
  if (!(p->rank = malloc(((size_t)p->n + 1) * sizeof(int32_t))) ||
      (err = acs__plan_ranks(s, p->rank)) < 0 || (err = edge_dag(s, p->rank, &g)) < 0 ||
      (err = build_reduced(p, &g)) < 0 || (err = build_classes(p)) < 0 ||
      (err = build_latest(p, &g, s)) < 0) {
    acs_dag_destroy(&g);
    acs__bprep_destroy(p);
    return err;
  }
  acs_dag_destroy(&g);
  return ACS_OK;
}

void acs__bprep_destroy(struct acs__bprep *p)
{
  free(p->rp_off), free(p->rp), free(p->rs_off), free(p->rs), free(p->rs_g);
  free(p->cls);
  free(p->lst);
  free(p->tail), free(p->by_tail), free(p->rank);
  memset(p, 0, sizeof(*p));
}
