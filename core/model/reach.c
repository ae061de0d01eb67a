/*
 * reach.c - transitive reduction and batched reachability queries by
 * bit-parallel sweeps over a window of the topological order (reach.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/reach.h"
#include "core/model/schedule.h"

/* ---- building the DAG ---- */

struct kitem {
  int64_t key;
  int32_t v;
};

static int kless(const struct kitem *a, const struct kitem *b)
{
  return a->key < b->key || (a->key == b->key && a->v < b->v);
}

static void kpush(struct kitem *h, size_t *n, struct kitem x)
{
  size_t k = (*n)++;

  while (k > 0 && kless(&x, &h[(k - 1) / 2])) {
    h[k] = h[(k - 1) / 2];
    k = (k - 1) / 2;
  }
  h[k] = x;
}

static struct kitem kpop(struct kitem *h, size_t *n)
{
  struct kitem top = h[0], last = h[--(*n)];
  size_t k = 0, c;

  while ((c = 2 * k + 1) < *n) {
    if (c + 1 < *n && kless(&h[c + 1], &h[c]))
      c++;
    if (!kless(&h[c], &last))
      break;
    h[k] = h[c];
    k = c;
  }
  if (*n > 0)
    h[k] = last;
  return top;
}

void acs_csr_fill(int32_t n, int32_t m, const int32_t *key, const int32_t *val, int32_t *off,
                  int32_t *idx, int32_t *at)
{
  for (int32_t i = 0; i < m; i++)
    off[key[i] + 2]++;
  for (int32_t k = 0; k < n; k++)
    off[k + 2] += off[k + 1];
  for (int32_t i = 0; i < m; i++) {
    int32_t j = off[key[i] + 1]++;
    idx[j] = val ? val[i] : i;
    if (at)
      at[i] = j;
  }
}

int acs_topo_order(int32_t n, const int32_t *succ_off, const int32_t *succ, const int64_t *key,
                   int32_t *order)
{
  int32_t k = 0;
  int32_t *indeg = calloc((size_t)n + 1, sizeof(*indeg));
  struct kitem *h = malloc(((size_t)n + 1) * sizeof(*h));
  size_t nh = 0;
  int err = ACS_OK;

  if (!indeg || !h) {
    err = ACS_ENOMEM;
    goto out_with_heap;
  }
  for (int32_t u = 0; u < n; u++)
    for (int32_t e = succ_off[u]; e < succ_off[u + 1]; e++)
      indeg[succ[e]]++;
  for (int32_t v = 0; v < n; v++)
    if (indeg[v] == 0)
      kpush(h, &nh, (struct kitem){key ? key[v] : 0, v});
  while (nh > 0) {
    int32_t u = kpop(h, &nh).v;
    order[k++] = u;
    for (int32_t e = succ_off[u]; e < succ_off[u + 1]; e++)
      if (--indeg[succ[e]] == 0)
        kpush(h, &nh, (struct kitem){key ? key[succ[e]] : 0, succ[e]});
  }
  if (k < n)
    err = ACS_ECYCLE;
out_with_heap:
  free(indeg);
  free(h);
  return err;
}

int acs_dag_build(struct acs_dag *g, int32_t n, int32_t m, const int32_t *src,
                  const int32_t *dst, const int64_t *key)
{
  size_t nn = (size_t)n + 2, mm = (size_t)m + 1;
  int32_t *at_succ, *at_pred;
  int err;

  memset(g, 0, sizeof(*g));
  g->n = n;
  for (int32_t i = 0; i < m; i++)
    if (src[i] < 0 || src[i] >= n || dst[i] < 0 || dst[i] >= n)
      return ACS_EINVAL;
  g->succ_off = calloc(nn, sizeof(int32_t));
  g->pred_off = calloc(nn, sizeof(int32_t));
  g->succ = malloc(mm * sizeof(int32_t));
  g->pred = malloc(mm * sizeof(int32_t));
  g->pred_edge = malloc(mm * sizeof(int32_t));
  g->topo = malloc(nn * sizeof(int32_t));
  g->pos = malloc(nn * sizeof(int32_t));
  at_succ = malloc(mm * sizeof(int32_t));
  at_pred = malloc(mm * sizeof(int32_t));
  if (!g->succ_off || !g->pred_off || !g->succ || !g->pred || !g->pred_edge || !g->topo ||
      !g->pos || !at_succ || !at_pred) {
    free(at_succ), free(at_pred);
    acs_dag_destroy(g);
    return ACS_ENOMEM;
  }
  acs_csr_fill(n, m, src, dst, g->succ_off, g->succ, at_succ);
  acs_csr_fill(n, m, dst, src, g->pred_off, g->pred, at_pred);
  for (int32_t i = 0; i < m; i++)
    g->pred_edge[at_pred[i]] = at_succ[i];
  free(at_succ), free(at_pred);
  if ((err = acs_topo_order(n, g->succ_off, g->succ, key, g->topo)) < 0) {
    acs_dag_destroy(g);
    return err;
  }
  for (int32_t k = 0; k < n; k++)
    g->pos[g->topo[k]] = k;
  return ACS_OK;
}

void acs_dag_destroy(struct acs_dag *g)
{
  free(g->succ_off), free(g->succ), free(g->pred_off), free(g->pred), free(g->pred_edge);
  free(g->topo), free(g->pos);
  memset(g, 0, sizeof(*g));
}

/* ---- one batch of sources ---- */

/* Bits of the nodes at positions [lo, hi] of the order, ACS_REACH_WORDS
 * words each; row(p) is the row of the node at position p. */
struct window {
  uint64_t *bits;
  int32_t lo, hi;
};

static uint64_t *row(const struct window *w, int32_t p)
{
  return w->bits + (size_t)(p - w->lo) * ACS_REACH_WORDS;
}

static void bit_set(uint64_t *r, int32_t i)
{
  r[i >> 6] |= (uint64_t)1 << (i & 63);
}

static int bit_get(const uint64_t *r, int32_t i)
{
  return (int)((r[i >> 6] >> (i & 63)) & 1u);
}

/* ---- transitive reduction ---- */

/*
 * One batch of sources (their positions, increasing): sweeps the window
 * from the first source to the last successor of any, keeping in A(v) the
 * sources that reach v by one or more edges. An edge (u, v) from a source u
 * is implied when u reaches some other predecessor of v, i.e. when u's bit
 * is in the union of A(y) over the predecessors y of v.
 *
 * A row is written only when it has a bit (nz[], one byte per position of
 * the window): predecessors that no source reaches cost a byte, not a row,
 * and the bits need no clearing. Predecessors are read as positions
 * (ppos, per in-edge) and sources indexed by position (bidx), so the scan
 * touches only the window's own arrays. O(window x (in-degree +
 * ACS_REACH_WORDS per predecessor reached)).
 */
static void reduce_batch(const struct acs_dag *g, const int32_t *ppos, const int32_t *src_pos,
                         int32_t nsrc, int32_t *bidx, struct window *w, uint8_t *nz,
                         uint8_t *keep)
{
  uint64_t b2[ACS_REACH_WORDS];

  w->lo = src_pos[0];
  w->hi = w->lo;
  for (int32_t i = 0; i < nsrc; i++) {
    int32_t u = g->topo[src_pos[i]];
    bidx[src_pos[i]] = i;
    for (int32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++)
      if (g->pos[g->succ[k]] > w->hi)
        w->hi = g->pos[g->succ[k]];
  }
  for (int32_t p = w->lo; p <= w->hi; p++) {
    int32_t v = g->topo[p];
    int reached = 0, from_src = 0;
    for (int32_t k = g->pred_off[v]; k < g->pred_off[v + 1]; k++) {
      int32_t y = ppos[k];
      if (y < w->lo)
        continue;
      from_src |= bidx[y] >= 0;
      if (!nz[y - w->lo])
        continue;
      const uint64_t *ay = row(w, y);
      if (!reached)
        memcpy(b2, ay, sizeof(b2));
      else
        for (int j = 0; j < ACS_REACH_WORDS; j++)
          b2[j] |= ay[j];
      reached = 1;
    }
    nz[p - w->lo] = (uint8_t)(reached || from_src);
    if (!reached && !from_src)
      continue;
    uint64_t *a = row(w, p);
    if (reached)
      memcpy(a, b2, sizeof(b2));
    else
      memset(a, 0, sizeof(b2));
    for (int32_t k = g->pred_off[v]; k < g->pred_off[v + 1]; k++) {
      int32_t u = ppos[k];
      if (u < w->lo || bidx[u] < 0)
        continue;
      bit_set(a, bidx[u]);
      /* The edges into v from sources: implied when the source is in b2. */
      if (reached && bit_get(b2, bidx[u]))
        keep[g->pred_edge[k]] = 0;
    }
  }
  for (int32_t i = 0; i < nsrc; i++)
    bidx[src_pos[i]] = -1;
}

/* Marks repeated edges and returns the number of distinct successors of u. */
static int32_t dedupe(const struct acs_dag *g, int32_t u, int32_t *stamp, uint8_t *keep)
{
  int32_t distinct = 0;

  for (int32_t k = g->succ_off[u]; k < g->succ_off[u + 1]; k++) {
    int32_t v = g->succ[k];
    if (stamp[v] == u)
      keep[k] = 0;
    else {
      stamp[v] = u;
      distinct++;
    }
  }
  return distinct;
}

int acs_dag_reduce(const struct acs_dag *g, uint8_t *keep)
{
  int32_t n = g->n, nsrc = 0;
  int32_t *stamp = malloc(((size_t)n + 1) * sizeof(int32_t));
  int32_t *bidx = malloc(((size_t)n + 1) * sizeof(int32_t));
  int32_t *src_pos = malloc(((size_t)ACS_REACH_BATCH + 1) * sizeof(int32_t));
  int32_t *ppos = malloc(((size_t)g->pred_off[n] + 1) * sizeof(int32_t));
  struct window w = {malloc(((size_t)n + 1) * ACS_REACH_WORDS * sizeof(uint64_t)), 0, 0};
  uint8_t *nz = malloc((size_t)n + 1);
  int err = ACS_OK;

  if (!stamp || !bidx || !src_pos || !ppos || !w.bits || !nz) {
    err = ACS_ENOMEM;
    goto out_with_bits;
  }
  for (int32_t k = 0; k < g->pred_off[n]; k++)
    ppos[k] = g->pos[g->pred[k]];
  memset(keep, 1, (size_t)g->succ_off[n]);
  for (int32_t v = 0; v < n; v++)
    stamp[v] = bidx[v] = -1;
  for (int32_t p = 0; p < n; p++) {
    if (dedupe(g, g->topo[p], stamp, keep) >= 2)
      src_pos[nsrc++] = p;
    if (nsrc == ACS_REACH_BATCH || (p == n - 1 && nsrc > 0)) {
      if (acs_interrupt_pending()) {
        err = ACS_EINTERRUPTED;
        break;
      }
      reduce_batch(g, ppos, src_pos, nsrc, bidx, &w, nz, keep);
      nsrc = 0;
    }
  }
out_with_bits:
  free(stamp), free(bidx), free(src_pos), free(ppos), free(w.bits), free(nz);
  return err;
}

/* ---- reachability queries ---- */

struct query {
  int32_t sp, dp;  /* positions of source and destination */
  int32_t i;       /* index of the query */
};

/* Queries grouped by source position, ascending, in their order within a
 * group: a counting sort, O(Q + V) (qsort was most of the verifier's time
 * on programs that ask 10^5 questions). cnt has room for g->n + 1 entries
 * and is zeroed here; tmp for m queries. */
static void sort_queries(int32_t n, struct query *q, int32_t m, int32_t *cnt, struct query *tmp)
{
  memset(cnt, 0, ((size_t)n + 1) * sizeof(*cnt));
  for (int32_t i = 0; i < m; i++)
    cnt[q[i].sp + 1]++;
  for (int32_t p = 0; p < n; p++)
    cnt[p + 1] += cnt[p];
  for (int32_t i = 0; i < m; i++)
    tmp[cnt[q[i].sp]++] = q[i];
  memcpy(q, tmp, (size_t)m * sizeof(*q));
}

/* Sweeps the window of queries q[0 .. nq) (sorted, sources in at most
 * ACS_REACH_BATCH distinct positions) and answers them; spos[k] is the
 * position of out-edge k's head. */
static void reach_batch(const struct acs_dag *g, const int32_t *spos, const struct query *q,
                        int32_t nq, struct window *w, uint8_t *ans)
{
  int32_t nsrc = 0;

  w->lo = q[0].sp;
  w->hi = w->lo;
  for (int32_t i = 0; i < nq; i++)
    if (q[i].dp > w->hi)
      w->hi = q[i].dp;
  memset(w->bits, 0, (size_t)(w->hi - w->lo + 1) * ACS_REACH_WORDS * sizeof(uint64_t));
  for (int32_t i = 0; i < nq; i++) {
    if (i > 0 && q[i].sp != q[i - 1].sp)
      nsrc++;
    bit_set(row(w, q[i].sp), nsrc);
  }
  for (int32_t p = w->lo; p <= w->hi; p++) {
    int32_t v = g->topo[p];
    const uint64_t *a = row(w, p);
    uint64_t any = 0;
    for (int j = 0; j < ACS_REACH_WORDS; j++)
      any |= a[j];
    if (!any) /* no source of the batch reaches v: nothing to pass on */
      continue;
    for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++) {
      int32_t sp = spos[k];
      if (sp > w->hi)
        continue;
      uint64_t *b = row(w, sp);
      for (int j = 0; j < ACS_REACH_WORDS; j++)
        b[j] |= a[j];
    }
  }
  nsrc = 0;
  for (int32_t i = 0; i < nq; i++) {
    if (i > 0 && q[i].sp != q[i - 1].sp)
      nsrc++;
    ans[q[i].i] = (uint8_t)bit_get(row(w, q[i].dp), nsrc);
  }
}

/*
 * Answers the queries that an edge answers (most of what a barrier
 * program asks: a producer and the consumer that waits on it) and keeps
 * the others in q, in order; returns how many are left. The successors of
 * each distinct source are marked once in `mark` (room for g->n words,
 * zero on entry and on return). O(Q + sum of the sources' out-degrees).
 */
static int32_t answer_edges(const struct acs_dag *g, struct query *q, int32_t m, uint64_t *mark,
                            uint8_t *ans)
{
  int32_t left = 0;

  for (int32_t i = 0, j; i < m; i = j) {
    int32_t v = g->topo[q[i].sp];
    for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
      mark[g->succ[k]] = 1;
    for (j = i; j < m && q[j].sp == q[i].sp; j++) {
      if (mark[g->topo[q[j].dp]])
        ans[q[j].i] = 1;
      else
        q[left++] = q[j];
    }
    for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
      mark[g->succ[k]] = 0;
  }
  return left;
}

int acs_dag_reach(const struct acs_dag *g, int32_t nq, const int32_t *qsrc,
                  const int32_t *qdst, uint8_t *ans)
{
  struct query *q = malloc(((size_t)nq * 2 + 1) * sizeof(*q)); /* and room to sort */
  struct window w = {calloc(((size_t)g->n + 1) * ACS_REACH_WORDS, sizeof(uint64_t)), 0, 0};
  int32_t m = 0, first = 0, nsrc = 0, *spos = NULL;
  int err = ACS_OK;

  if (!q || !w.bits) {
    err = ACS_ENOMEM;
    goto out_with_queries;
  }
  for (int32_t i = 0; i < nq; i++) {
    if (qsrc[i] < 0 || qsrc[i] >= g->n || qdst[i] < 0 || qdst[i] >= g->n) {
      err = ACS_EINVAL;
      goto out_with_queries;
    }
    ans[i] = qsrc[i] == qdst[i];
    if (!ans[i] && g->pos[qsrc[i]] < g->pos[qdst[i]])
      q[m++] = (struct query){g->pos[qsrc[i]], g->pos[qdst[i]], i};
  }
  sort_queries(g->n, q, m, (int32_t *)w.bits, q + nq);
  memset(w.bits, 0, ((size_t)g->n + 1) * sizeof(int32_t));
  m = answer_edges(g, q, m, w.bits, ans);
  if (m > 0 && !(spos = malloc(((size_t)g->succ_off[g->n] + 1) * sizeof(int32_t)))) {
    err = ACS_ENOMEM;
    goto out_with_queries;
  }
  for (int32_t k = 0; m > 0 && k < g->succ_off[g->n]; k++)
    spos[k] = g->pos[g->succ[k]];
  for (int32_t i = 0; i < m; i++) {
    if (i > first && q[i].sp == q[i - 1].sp)
      continue;
    if (nsrc == ACS_REACH_BATCH) {
      if (acs_interrupt_pending()) {
        err = ACS_EINTERRUPTED;
        break;
      }
      reach_batch(g, spos, q + first, i - first, &w, ans);
      first = i;
      nsrc = 0;
    }
    nsrc++;
  }
  if (err == ACS_OK && m > first)
    reach_batch(g, spos, q + first, m - first, &w, ans);
out_with_queries:
  free(q);
  free(spos);
  free(w.bits);
  return err;
}

int acs_schedule_edge_dag(const struct acs_schedule *s, struct acs_dag *g)
{
  int32_t m = s->nedges, *src = malloc(((size_t)m + 1) * sizeof(int32_t));
  int32_t *dst = malloc(((size_t)m + 1) * sizeof(int32_t));
  int64_t *key = malloc(((size_t)s->nops + 1) * sizeof(int64_t));
  int err = ACS_ENOMEM;

  if (src && dst && key) {
    for (int32_t e = 0; e < m; e++) {
      src[e] = s->edges[e].src;
      dst[e] = s->edges[e].dst;
    }
    for (int32_t i = 0; i < s->nops; i++)
      key[i] = s->ops[i].start;
    err = acs_dag_build(g, s->nops, m, src, dst, key);
  }
  free(src), free(dst), free(key);
  return err;
}
