/*
 * bprog.c - the barrier program of a schedule (the uses of each physical
 * barrier, their producers and consumers; rule in bprog.h) and the
 * verifier's checks of it. Independent of how the program was built.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/bprog.h"
#include "core/model/bprog_int.h"
#include "core/model/reach.h"

/* Kahn's algorithm taking the ready op of smallest (start, id): an order
 * that follows the planned starts wherever the edges allow (reach.h).
 * O((V+E) log V). */
static int topo_by_start(const struct acs_schedule *s, const int32_t *succ_off,
                         const int32_t *succ, int32_t *order)
{
  int64_t *start = malloc(((size_t)s->nops + 1) * sizeof(*start));
  int err;

  if (!start)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < s->nops; v++)
    start[v] = s->ops[v].start;
  err = acs_topo_order(s->nops, succ_off, succ, start, order);
  free(start);
  return err;
}

/* ---- building the program ---- */

struct build {
  const struct acs_schedule *s;
  struct acs_bprog *bp;
  int32_t nb;                 /* barrier ids are in [0, nb) */
  int32_t *pred_off, *pred;   /* direct predecessors */
  int32_t *succ_off, *succ;
  int32_t *wait_off, *wait;   /* entries of s->waits by op */
  int32_t *cur;               /* per barrier: its current (latest) use, -1 */
  int32_t *stamp, *best;      /* per barrier: latest use among one op's preds */
  int32_t ucap;
};

static int32_t max_barrier(const struct acs_schedule *s)
{
  int32_t m = -1;

  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].update_barrier > m)
      m = s->ops[i].update_barrier;
  for (int32_t w = 0; w < s->nwaits; w++)
    if (s->waits[w].barrier > m)
      m = s->waits[w].barrier;
  return m;
}

static int build_adjacency(struct build *b)
{
  const struct acs_schedule *s = b->s;
  int32_t n = s->nops, m = s->nedges;
  int32_t *src = malloc(((size_t)m + 1) * sizeof(*src));
  int32_t *dst = malloc(((size_t)m + 1) * sizeof(*dst));
  int32_t *wop = malloc(((size_t)s->nwaits + 1) * sizeof(*wop));

  b->pred_off = b->bp->pred_off = calloc((size_t)n + 2, sizeof(int32_t));
  b->succ_off = b->bp->succ_off = calloc((size_t)n + 2, sizeof(int32_t));
  b->wait_off = calloc((size_t)n + 2, sizeof(int32_t));
  b->pred = b->bp->pred = malloc(((size_t)m + 1) * sizeof(int32_t));
  b->succ = b->bp->succ = malloc(((size_t)m + 1) * sizeof(int32_t));
  b->wait = malloc(((size_t)s->nwaits + 1) * sizeof(int32_t));
  if (!src || !dst || !wop || !b->pred_off || !b->succ_off || !b->wait_off || !b->pred ||
      !b->succ || !b->wait) {
    free(src), free(dst), free(wop);
    return ACS_ENOMEM;
  }
  for (int32_t e = 0; e < m; e++) {
    src[e] = s->edges[e].src;
    dst[e] = s->edges[e].dst;
  }
  for (int32_t w = 0; w < s->nwaits; w++)
    wop[w] = s->waits[w].op;
  acs_csr_fill(n, m, dst, src, b->pred_off, b->pred, NULL);
  acs_csr_fill(n, m, src, dst, b->succ_off, b->succ, NULL);
  acs_csr_fill(n, s->nwaits, wop, NULL, b->wait_off, b->wait, NULL);
  free(src), free(dst), free(wop);
  return ACS_OK;
}

static int add_use(struct build *b, int32_t barrier)
{
  struct acs_bprog *bp = b->bp;
  int32_t u = bp->nuses;

  if (u == b->ucap) {
    int32_t cap = b->ucap ? 2 * b->ucap : 64;
    int32_t *nb = realloc(bp->barrier, (size_t)cap * sizeof(*nb));
    if (nb)
      bp->barrier = nb;
    int32_t *np = realloc(bp->prev, (size_t)cap * sizeof(*np));
    if (np)
      bp->prev = np;
    int64_t *ns = realloc(bp->slots, (size_t)cap * sizeof(*ns));
    if (ns)
      bp->slots = ns;
    if (!nb || !np || !ns)
      return ACS_ENOMEM;
    b->ucap = cap;
  }
  bp->barrier[u] = barrier;
  bp->prev[u] = b->cur[barrier];
  bp->slots[u] = 0;
  b->cur[barrier] = u;
  bp->nuses++;
  return u;
}

/* The use of B that op x consumes, or -1. */
static int32_t consumed_use(const struct build *b, int32_t x, int32_t barrier)
{
  for (int32_t k = b->wait_off[x]; k < b->wait_off[x + 1]; k++)
    if (b->s->waits[b->wait[k]].barrier == barrier)
      return b->bp->wait_use[b->wait[k]];
  return -1;
}

/* Each wait of r consumes the latest use of its barrier among r's preds. */
static void resolve_waits(struct build *b, int32_t r)
{
  const struct acs_schedule *s = b->s;

  for (int32_t k = b->pred_off[r]; k < b->pred_off[r + 1]; k++) {
    int32_t x = b->pred[k], bar = s->ops[x].update_barrier;
    if (bar < 0 || bar >= b->nb || b->bp->use_of[x] < 0)
      continue;
    if (b->stamp[bar] != r) {
      b->stamp[bar] = r;
      b->best[bar] = -1;
    }
    if (b->bp->use_of[x] > b->best[bar])
      b->best[bar] = b->bp->use_of[x];
  }
  for (int32_t k = b->wait_off[r]; k < b->wait_off[r + 1]; k++) {
    int32_t w = b->wait[k], bar = s->waits[w].barrier;
    b->bp->wait_use[w] = bar >= 0 && bar < b->nb && b->stamp[bar] == r ? b->best[bar] : -1;
  }
}

/* r updates B: opens a new use when B has none, or when a direct pred of r
 * produces or consumes B's current use; joins the current use otherwise. */
static int place_producer(struct build *b, int32_t r)
{
  const struct acs_schedule *s = b->s;
  int32_t bar = s->ops[r].update_barrier, cur = b->cur[bar], u = cur;

  for (int32_t k = b->pred_off[r]; k < b->pred_off[r + 1] && u == cur && cur >= 0; k++) {
    int32_t x = b->pred[k];
    if (b->bp->use_of[x] == cur || consumed_use(b, x, bar) == cur)
      u = -1;
  }
  if (u < 0 && (u = add_use(b, bar)) < 0)
    return u;
  b->bp->use_of[r] = u;
  b->bp->slots[u] += acs_barrier_slot_demand(&s->ops[r]);
  return ACS_OK;
}

static int cmp_pair(const void *x, const void *y)
{
  const int32_t *a = x, *b = y;

  if (a[0] != b[0])
    return a[0] < b[0] ? -1 : 1;
  return (a[1] > b[1]) - (a[1] < b[1]);
}

/* Producers and distinct consumers of every use, in CSR form. */
static int build_members(struct build *b)
{
  const struct acs_schedule *s = b->s;
  struct acs_bprog *bp = b->bp;
  int32_t nu = bp->nuses, np = 0, nc = 0;
  size_t m = (size_t)(s->nops > s->nwaits ? s->nops : s->nwaits) + 1;
  int32_t *key = malloc(m * sizeof(*key));   /* producers, then consumers */
  int32_t *val = malloc(m * sizeof(*val));
  int32_t *pair = malloc(((size_t)s->nwaits + 1) * 2 * sizeof(*pair));

  bp->prod_off = calloc((size_t)nu + 2, sizeof(int32_t));
  bp->cons_off = calloc((size_t)nu + 2, sizeof(int32_t));
  bp->prod = malloc(((size_t)s->nops + 1) * sizeof(int32_t));
  bp->cons = malloc(((size_t)s->nwaits + 1) * sizeof(int32_t));
  if (!key || !val || !pair || !bp->prod_off || !bp->cons_off || !bp->prod || !bp->cons) {
    free(key), free(val), free(pair);
    return ACS_ENOMEM;
  }
  for (int32_t i = 0; i < s->nops; i++)
    if (bp->use_of[i] >= 0) {
      key[np] = bp->use_of[i];
      val[np++] = i;
    }
  acs_csr_fill(nu, np, key, val, bp->prod_off, bp->prod, NULL);
  for (int32_t w = 0; w < s->nwaits; w++)
    if (bp->wait_use[w] >= 0) {
      pair[2 * nc] = bp->wait_use[w];
      pair[2 * nc + 1] = s->waits[w].op;
      nc++;
    }
  qsort(pair, (size_t)nc, 2 * sizeof(*pair), cmp_pair);
  np = 0;
  for (int32_t k = 0; k < nc; k++)
    if (k == 0 || cmp_pair(&pair[2 * k], &pair[2 * (k - 1)]) != 0) {
      key[np] = pair[2 * k];
      val[np++] = pair[2 * k + 1];
    }
  acs_csr_fill(nu, np, key, val, bp->cons_off, bp->cons, NULL);
  free(key), free(val), free(pair);
  return ACS_OK;
}

static void build_free(struct build *b)
{
  free(b->wait_off), free(b->wait), free(b->cur), free(b->stamp), free(b->best);
}

static int check_refs(const struct acs_schedule *s)
{
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].src < 0 || s->edges[e].src >= s->nops || s->edges[e].dst < 0 ||
        s->edges[e].dst >= s->nops)
      return ACS_EINVAL;
  for (int32_t w = 0; w < s->nwaits; w++)
    if (s->waits[w].op < 0 || s->waits[w].op >= s->nops)
      return ACS_EINVAL;
  return ACS_OK;
}

int acs_bprog_build(const struct acs_schedule *s, struct acs_bprog *bp)
{
  struct build b;
  int err;

  memset(bp, 0, sizeof(*bp));
  memset(&b, 0, sizeof(b));
  if ((err = check_refs(s)) < 0)
    return err;
  b.s = s;
  b.bp = bp;
  b.nb = max_barrier(s) + 1;
  bp->nops = s->nops;
  bp->use_of = malloc(((size_t)s->nops + 1) * sizeof(int32_t));
  bp->wait_use = malloc(((size_t)s->nwaits + 1) * sizeof(int32_t));
  bp->order = malloc(((size_t)s->nops + 1) * sizeof(int32_t));
  b.cur = malloc(((size_t)b.nb + 1) * sizeof(int32_t));
  b.stamp = malloc(((size_t)b.nb + 1) * sizeof(int32_t));
  b.best = malloc(((size_t)b.nb + 1) * sizeof(int32_t));
  if (!bp->use_of || !bp->wait_use || !bp->order || !b.cur || !b.stamp || !b.best) {
    err = ACS_ENOMEM;
    goto out_with_build;
  }
  for (int32_t i = 0; i < s->nops; i++)
    bp->use_of[i] = -1;
  for (int32_t w = 0; w < s->nwaits; w++)
    bp->wait_use[w] = -1;
  for (int32_t k = 0; k < b.nb; k++)
    b.cur[k] = b.stamp[k] = -1;
  if ((err = build_adjacency(&b)) < 0 ||
      (err = topo_by_start(s, b.succ_off, b.succ, bp->order)) < 0)
    goto out_with_build;
  for (int32_t k = 0; k < s->nops; k++) {
    int32_t r = bp->order[k];
    resolve_waits(&b, r);
    if (s->ops[r].update_barrier >= 0 && (err = place_producer(&b, r)) < 0)
      goto out_with_build;
  }
  err = build_members(&b);
out_with_build:
  build_free(&b);
  if (err < 0)
    acs_bprog_destroy(bp);
  return err;
}

void acs_bprog_destroy(struct acs_bprog *bp)
{
  free(bp->use_of), free(bp->wait_use), free(bp->barrier), free(bp->prev);
  free(bp->slots), free(bp->prod_off), free(bp->prod), free(bp->cons_off);
  free(bp->cons), free(bp->order);
  free(bp->pred_off), free(bp->pred), free(bp->succ_off), free(bp->succ);
  memset(bp, 0, sizeof(*bp));
}

int acs_bprog_present(const struct acs_schedule *s)
{
  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].update_barrier >= 0)
      return 1;
  return 0;
}

/* Where each edge went in the successor and predecessor lists (both filled
 * in edge order, acs_csr_fill) gives pred_edge; bp->order is Kahn's order
 * by (start, id), as acs_dag_build computes it. */
int acs__bprog_edge_dag(const struct acs_schedule *s, const struct acs_bprog *bp,
                        struct acs_dag *g)
{
  size_t nn = (size_t)s->nops + 2, mm = (size_t)s->nedges + 1;
  int32_t *fs = calloc(nn, sizeof(int32_t)), *fp = calloc(nn, sizeof(int32_t));
  int err = ACS_ENOMEM;

  memset(g, 0, sizeof(*g));
  g->n = s->nops;
  g->succ_off = malloc(nn * sizeof(int32_t)), g->pred_off = malloc(nn * sizeof(int32_t));
  g->succ = malloc(mm * sizeof(int32_t)), g->pred = malloc(mm * sizeof(int32_t));
  g->pred_edge = malloc(mm * sizeof(int32_t));
  g->topo = malloc(nn * sizeof(int32_t)), g->pos = malloc(nn * sizeof(int32_t));
  if (!fs || !fp || !g->succ_off || !g->pred_off || !g->succ || !g->pred || !g->pred_edge ||
      !g->topo || !g->pos)
    goto out_with_fill;
  memcpy(g->succ_off, bp->succ_off, nn * sizeof(int32_t));
  memcpy(g->pred_off, bp->pred_off, nn * sizeof(int32_t));
  memcpy(g->succ, bp->succ, (size_t)s->nedges * sizeof(int32_t));
  memcpy(g->pred, bp->pred, (size_t)s->nedges * sizeof(int32_t));
  memcpy(g->topo, bp->order, (size_t)s->nops * sizeof(int32_t));
  for (int32_t e = 0; e < s->nedges; e++) {
    int32_t u = s->edges[e].src, v = s->edges[e].dst;
    g->pred_edge[g->pred_off[v] + fp[v]++] = g->succ_off[u] + fs[u]++;
  }
  for (int32_t k = 0; k < s->nops; k++)
    g->pos[g->topo[k]] = k;
  err = ACS_OK;
out_with_fill:
  free(fs), free(fp);
  if (err < 0)
    acs_dag_destroy(g);
  return err;
}
