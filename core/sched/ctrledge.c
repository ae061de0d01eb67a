/*
 * ctrledge.c - control edges from a time-by-address packing (see ctrledge.h).
 *
 * The seed sweeps the left edges of the rectangles and keeps a disjoint
 * interval set D mapping address ranges to the rectangle that last held
 * them; each stored interval overlapping the current left edge yields a
 * control edge. Its update of D (erase the overlapped interval i, insert the
 * two parts of i XOR i_curr and i_curr AND i) is done once per overlapped
 * interval, so when i_curr overlaps several stored intervals the parts of
 * i_curr inserted for the first one overlap the next ones: D stops being
 * disjoint (review comment 11; comment 12 doubts it, tests/test-spill.c has
 * the example it asks for). With a set that refuses overlapping inserts, as
 * the seed's reference implementation's is, those parts are lost instead,
 * and a later rectangle over the lost addresses gets no edge: an unsafe
 * packing. Here the update is the reviewer's: subtract i_curr from every
 * stored interval, then insert it (acs__ivset_assign). Then D maps every
 * address to the last rectangle holding it, which is exactly what the
 * edges need.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/reach.h"
#include "core/sched/ctrledge.h"
#include "core/sched/heap.h"
#include "core/sched/interval.h"

/* ---- geometry ---------------------------------------------------------- */

struct sweep {
  int32_t *prev;       /* values seen for the current rectangle */
  size_t n, cap;
  int oom;
};

static void collect(void *ctx, const struct acs_ival *part)
{
  struct sweep *w = ctx;

  if (acs_grow((void **)&w->prev, sizeof(*w->prev), &w->cap, w->n + 1) < 0) {
    w->oom = 1;
    return;
  }
  w->prev[w->n++] = part->val;
}

static const struct acs_ctrl_rect *sort_base;

static int cmp_rect_idx(const void *a, const void *b)
{
  const struct acs_ctrl_rect *x = &sort_base[*(const size_t *)a];
  const struct acs_ctrl_rect *y = &sort_base[*(const size_t *)b];

  if (x->t0 != y->t0)
    return x->t0 < y->t0 ? -1 : 1;
  if (x->t1 != y->t1)
    return x->t1 < y->t1 ? -1 : 1;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* Sweep order. qsort has no context argument; the static base is only
 * used during this call (the library is single-threaded). */
static size_t *sweep_order(const struct acs_ctrl_rect *r, size_t n)
{
  size_t *ord = malloc((n + 1) * sizeof(*ord));

  if (!ord)
    return NULL;
  for (size_t i = 0; i < n; i++)
    ord[i] = i;
  sort_base = r;
  qsort(ord, n, sizeof(*ord), cmp_rect_idx);
  sort_base = NULL;
  return ord;
}

/* Reports the distinct previous holders of one rectangle. */
static int emit_unique(struct sweep *w, int32_t curr,
                       int (*emit)(void *ctx, int32_t prev, int32_t curr), void *ctx)
{
  int rc = 0;

  if (w->n > 1)
    qsort(w->prev, w->n, sizeof(*w->prev), acs_cmp_i32);
  for (size_t k = 0; k < w->n && rc == 0; k++)
    if ((k == 0 || w->prev[k] != w->prev[k - 1]) && w->prev[k] != curr)
      rc = emit(ctx, w->prev[k], curr);
  return rc;
}

int acs__ctrl_pairs(const struct acs_ctrl_rect *r, size_t n,
                    int (*emit)(void *ctx, int32_t prev, int32_t curr), void *ctx)
{
  struct acs_ivset d;
  struct sweep w;
  size_t *ord;
  int rc = ACS_OK;

  if (n > SIZE_MAX / sizeof(size_t) - 1 || !(ord = sweep_order(r, n)))
    return ACS_ENOMEM;
  acs__ivset_init(&d);
  memset(&w, 0, sizeof(w));
  for (size_t k = 0; k < n && rc == ACS_OK; k++) {
    const struct acs_ctrl_rect *c = &r[ord[k]];
    if (c->lo >= c->hi)
      continue;
    w.n = 0;
    rc = acs__ivset_assign(&d, c->lo, c->hi, c->id, collect, &w);
    if (rc >= 0)
      rc = w.oom ? ACS_ENOMEM : emit_unique(&w, c->id, emit, ctx);
  }
  free(w.prev);
  acs__ivset_destroy(&d);
  free(ord);
  return rc;
}

/* ---- on a schedule ------------------------------------------------------ */

struct csr {
  int32_t *off, *adj;
};

/* Adjacency of s's edges by source (succ, data edges only) or by
 * destination (pred, every edge). O(V + E). */
static int csr_build(const struct acs_schedule *s, int by_dst, int data_only, struct csr *c)
{
  int32_t n = s->nops;

  c->off = calloc((size_t)n + 2, sizeof(*c->off));
  c->adj = malloc(((size_t)s->nedges + 1) * sizeof(*c->adj));
  if (!c->off || !c->adj)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < s->nedges; e++)
    if (!data_only || s->edges[e].kind == ACS_EDGE_DATA)
      c->off[(by_dst ? s->edges[e].dst : s->edges[e].src) + 2]++;
  for (int32_t v = 0; v < n; v++)
    c->off[v + 2] += c->off[v + 1];
  for (int32_t e = 0; e < s->nedges; e++)
    if (!data_only || s->edges[e].kind == ACS_EDGE_DATA) {
      const struct acs_edge *ed = &s->edges[e];
      c->adj[c->off[(by_dst ? ed->dst : ed->src) + 1]++] = by_dst ? ed->src : ed->dst;
    }
  return ACS_OK;
}

static void csr_free(struct csr *c)
{
  free(c->off);
  free(c->adj);
}

/* A topological order of s's edges by (planned start, id): Kahn's algorithm
 * with a heap, O((V + E) log V). ACS_EINVAL on a cycle. */
static int default_pos(const struct acs_schedule *s, int64_t *pos)
{
  struct csr succ = { NULL, NULL };
  struct acs_heap h;
  int32_t *indeg = calloc((size_t)s->nops + 1, sizeof(*indeg)), done = 0;
  int err = indeg ? csr_build(s, 0, 0, &succ) : ACS_ENOMEM;

  if (err == ACS_OK)
    err = acs_heap_init(&h, (size_t)s->nops + 1);
  if (err != ACS_OK)
    goto out_with_arrays;
  for (int32_t e = 0; e < s->nedges; e++)
    indeg[s->edges[e].dst]++;
  for (int32_t v = 0; v < s->nops && err == ACS_OK; v++)
    if (indeg[v] == 0)
      err = acs_heap_push(&h, s->ops[v].start, v);
  while (err == ACS_OK && !acs_heap_empty(&h)) {
    int32_t v = acs_heap_pop(&h).id;
    pos[v] = done++;
    for (int32_t k = succ.off[v]; k < succ.off[v + 1] && err == ACS_OK; k++)
      if (--indeg[succ.adj[k]] == 0)
        err = acs_heap_push(&h, s->ops[succ.adj[k]].start, succ.adj[k]);
  }
  if (err == ACS_OK && done != s->nops)
    err = ACS_EINVAL;
  acs_heap_destroy(&h);
out_with_arrays:
  csr_free(&succ);
  free(indeg);
  return err;
}

struct cand {
  int32_t u, v;
};

struct builder {
  struct acs_schedule *s;
  const int64_t *pos;
  struct csr succ;          /* data successors */
  struct cand *c;
  size_t nc, cap;
  struct acs_ctrl_stats *st;
};

static int add_cand(struct builder *b, int32_t u, int32_t v)
{
  int err;

  if (u == v)
    return ACS_OK;
  if (b->pos[u] >= b->pos[v])
    return ACS_EINVAL; /* the packing contradicts the order */
  if ((err = acs_grow((void **)&b->c, sizeof(*b->c), &b->cap, b->nc + 1)) < 0)
    return err;
  b->c[b->nc++] = (struct cand){ u, v };
  return ACS_OK;
}

/* Whether op c holds the range of op a: it reads it within its holding. */
static int holds(const struct acs_sop *a, const struct acs_sop *c)
{
  return (double)c->start >= a->cmx_alloc && (double)c->end <= a->cmx_free;
}

/* Pair (a, v): every holder of a's range before v. */
static int on_pair(void *ctx, int32_t a, int32_t v)
{
  struct builder *b = ctx;
  const struct acs_sop *pa = &b->s->ops[a];
  int any = 0, err = ACS_OK;

  b->st->pairs++;
  for (int32_t k = b->succ.off[a]; k < b->succ.off[a + 1] && err == ACS_OK; k++) {
    int32_t c = b->succ.adj[k];
    if (holds(pa, &b->s->ops[c])) {
      any = 1;
      err = add_cand(b, c, v);
    }
  }
  return err == ACS_OK && !any ? add_cand(b, a, v) : err;
}

static const int64_t *cmp_pos;

/* By destination's position, then source's position latest first, so that an
 * edge from a later holder is in place before an earlier one is tested. */
static int cmp_cand(const void *x, const void *y)
{
  const struct cand *a = x, *b = y;

  if (a->v != b->v)
    return cmp_pos[a->v] < cmp_pos[b->v] ? -1 : 1;
  if (a->u != b->u)
    return cmp_pos[a->u] > cmp_pos[b->u] ? -1 : 1;
  return 0;
}

struct reach {
  struct csr pred;                /* every edge of s before this pass */
  int32_t *acc_head, *acc_next, *acc_src; /* edges added by this pass */
  int32_t nacc;
  int32_t *stamp, cur, *stack;
};

/* Whether v is reachable from u: 1 yes, 0 no, -1 budget exhausted. Only
 * ops after u in pos and starting no earlier than u's end can lie on a
 * path, so the search stays inside that window. */
static int reachable(struct reach *r, const struct acs_schedule *s, const int64_t *pos,
                     int32_t u, int32_t v, int64_t budget, int64_t *visited)
{
  int32_t top = 0;
  int64_t seen = 0;

  r->cur++;
  r->stack[top++] = v;
  r->stamp[v] = r->cur;
  while (top > 0) {
    int32_t x = r->stack[--top];
    for (int pass = 0; pass < 2; pass++) {
      int32_t k = pass == 0 ? r->pred.off[x] : r->acc_head[x];
      int32_t end = pass == 0 ? r->pred.off[x + 1] : -1;
      while (pass == 0 ? k < end : k >= 0) {
        int32_t w = pass == 0 ? r->pred.adj[k] : r->acc_src[k];
        k = pass == 0 ? k + 1 : r->acc_next[k];
        if (w == u)
          return 1;
        if (r->stamp[w] == r->cur || pos[w] <= pos[u] || s->ops[w].start < s->ops[u].end)
          continue;
        if (++seen > budget)
          return -1;
        (*visited)++;
        r->stamp[w] = r->cur;
        r->stack[top++] = w;
      }
    }
  }
  return 0;
}

static int reach_init(struct reach *r, const struct acs_schedule *s, size_t ncand)
{
  size_t n = (size_t)s->nops + 1;

  memset(r, 0, sizeof(*r));
  if (csr_build(s, 1, 0, &r->pred) < 0)
    return ACS_ENOMEM;
  r->acc_head = malloc(n * sizeof(*r->acc_head));
  r->acc_next = malloc((ncand + 1) * sizeof(*r->acc_next));
  r->acc_src = malloc((ncand + 1) * sizeof(*r->acc_src));
  r->stamp = calloc(n, sizeof(*r->stamp));
  r->stack = malloc(n * sizeof(*r->stack));
  if (!r->acc_head || !r->acc_next || !r->acc_src || !r->stamp || !r->stack)
    return ACS_ENOMEM;
  for (size_t i = 0; i < n; i++)
    r->acc_head[i] = -1;
  return ACS_OK;
}

static void reach_free(struct reach *r)
{
  csr_free(&r->pred);
  free(r->acc_head);
  free(r->acc_next);
  free(r->acc_src);
  free(r->stamp);
  free(r->stack);
}

/* Tests the sorted, distinct candidates in order and adds those not implied. */
static int add_needed(struct builder *b, int64_t budget)
{
  struct reach r;
  int err = reach_init(&r, b->s, b->nc);

  for (size_t k = 0; k < b->nc && err == ACS_OK; k++) {
    int32_t u = b->c[k].u, v = b->c[k].v;
    int found = budget > 0 ? reachable(&r, b->s, b->pos, u, v, budget, &b->st->visited) : 0;
    if (found == 1) {
      b->st->implied++;
      continue;
    }
    b->st->unknown += found < 0;
    r.acc_src[r.nacc] = u;
    r.acc_next[r.nacc] = r.acc_head[v];
    r.acc_head[v] = r.nacc++;
    err = acs_schedule_add_edge(b->s, u, v, ACS_EDGE_CONTROL);
    b->st->added++;
  }
  reach_free(&r);
  return err;
}

static int build_rects(const struct acs_schedule *s, const int64_t *pos,
                       struct acs_ctrl_rect **out, size_t *n)
{
  struct acs_ctrl_rect *r = malloc(((size_t)s->nops + 1) * sizeof(*r));

  *n = 0;
  if (!r)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    if (o->cmx_offset < 0 || o->cmx_bytes <= 0 || isnan(o->cmx_alloc) || isnan(o->cmx_free))
      continue;
    r[(*n)++] = (struct acs_ctrl_rect){ o->cmx_alloc, o->cmx_free, o->cmx_offset,
                                         o->cmx_offset + o->cmx_bytes, pos[i], i };
  }
  *out = r;
  return ACS_OK;
}

int acs__ctrl_edges_add(struct acs_schedule *s, const int64_t *pos, int64_t budget,
                        struct acs_ctrl_stats *st)
{
  struct builder b;
  struct acs_ctrl_rect *rects = NULL;
  int64_t *own = NULL;
  size_t nr = 0, w = 0;
  int err = ACS_OK;

  memset(st, 0, sizeof(*st));
  memset(&b, 0, sizeof(b));
  if (!pos) {
    if (!(own = malloc(((size_t)s->nops + 1) * sizeof(*own))))
      return ACS_ENOMEM;
    if ((err = default_pos(s, own)) < 0)
      goto out_with_pos;
    pos = own;
  }
  b.s = s;
  b.pos = pos;
  b.st = st;
  if ((err = csr_build(s, 0, 1, &b.succ)) < 0 || (err = build_rects(s, pos, &rects, &nr)) < 0)
    goto out_with_builder;
  st->rects = (int64_t)nr;
  if ((err = acs__ctrl_pairs(rects, nr, on_pair, &b)) < 0)
    goto out_with_builder;
  cmp_pos = pos;
  if (b.nc > 1)
    qsort(b.c, b.nc, sizeof(*b.c), cmp_cand);
  cmp_pos = NULL;
  for (size_t k = 0; k < b.nc; k++)
    if (w == 0 || b.c[k].u != b.c[w - 1].u || b.c[k].v != b.c[w - 1].v)
      b.c[w++] = b.c[k];
  b.nc = w;
  st->candidates = (int64_t)w;
  err = add_needed(&b, budget);
out_with_builder:
  free(rects);
  free(b.c);
  csr_free(&b.succ);
out_with_pos:
  free(own);
  return err;
}

int acs__ctrl_edges_reduce(struct acs_schedule *s, int64_t *dropped)
{
  struct acs_dag g;
  uint8_t *keep = NULL;
  int32_t *next = NULL, w = 0;
  int err;

  *dropped = 0;
  if ((err = acs_schedule_edge_dag(s, &g)) < 0)
    return err;
  keep = malloc((size_t)s->nedges + 1);
  next = malloc(((size_t)s->nops + 1) * sizeof(*next));
  if (!keep || !next) {
    err = ACS_ENOMEM;
    goto out_with_dag;
  }
  if ((err = acs_dag_reduce(&g, keep)) < 0)
    goto out_with_dag;
  /* acs_dag_build lists each op's out-edges in edge order: the j-th edge
   * out of u is out-edge succ_off[u] + j. */
  for (int32_t v = 0; v < s->nops; v++)
    next[v] = g.succ_off[v];
  for (int32_t e = 0; e < s->nedges; e++) {
    int32_t k = next[s->edges[e].src]++;
    if (s->edges[e].kind == ACS_EDGE_CONTROL && !keep[k])
      continue;
    s->edges[w++] = s->edges[e];
  }
  *dropped = s->nedges - w;
  s->nedges = w;
out_with_dag:
  free(keep);
  free(next);
  acs_dag_destroy(&g);
  return err;
}
