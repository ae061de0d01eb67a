/*
 * barrier_retime.c - new times for a schedule whose graph the barrier pass
 * has extended, when an added edge contradicts the planned times.
 *
 * A parallel schedule generation scheme over the schedule itself (its ops
 * include any a scheduler added, e.g. spill transfers): at each decision
 * time, ready ops (every predecessor over all edges has ended) start in the
 * order of their previous starts (ties by id) when their demands fit every
 * resource; zero-length ops start and end at once. So the new plan keeps the
 * old one's order wherever the edges allow, every edge holds and every
 * capacity holds at every instant. An op that does not fit is set aside
 * until the next decision time, and a decision stops after 64 such ops in a
 * row, which bounds the work per event without affecting validity (an op
 * may only start later than it could). Units are then reassigned as every
 * scheduler does (lowest free PE or channel at its start, by start, id).
 *
 * CMX ranges move with their ops: a range is held from `cmx_alloc` (kept at
 * the same distance before its op's start) until its last holder ends (its
 * op, and the data successors that ran inside the range's old interval),
 * plus the same slack after it as before. The control edges of a scheduler
 * that assigns ranges (spill) keep ranges that share addresses apart in any
 * execution respecting the edges, so the moved ranges stay disjoint.
 *
 * O((V + E) log V + V R) plus 64 log V per decision time.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/barrier.h"
#include "core/sched/heap.h"

#define SET_ASIDE_MAX 64

struct sgs {
  struct acs_schedule *s;
  int32_t *succ_off, *succ, *indeg, *aside, *aside_pos;
  uint8_t *data;             /* per succ entry: a data edge */
  int64_t *old_start, *start;
  int64_t use[ACS_MAX_RES];
  int release;               /* ops start no earlier than their old start */
  struct acs_heap ready, run, wait;
};

static int fits(const struct sgs *g, int32_t v)
{
  for (int r = 0; r < g->s->nres; r++)
    if (g->use[r] + acs_schedule_demand(g->s, v, r) > g->s->res_cap[r])
      return 0;
  return 1;
}

static int release_succ(struct sgs *g, int32_t v)
{
  for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
    if (--g->indeg[g->succ[k]] == 0 &&
        acs_heap_push(&g->ready, g->old_start[g->succ[k]], g->succ[k]) < 0)
      return ACS_ENOMEM;
  return ACS_OK;
}

/* Starts what can start at t; returns the number of ops placed or < 0. */
static int32_t decide(struct sgs *g, int64_t t)
{
  int32_t placed = 0, naside = 0;

  while (!acs_heap_empty(&g->ready) && naside < SET_ASIDE_MAX) {
    int32_t v = acs_heap_pop(&g->ready).id;
    int64_t dur = g->s->ops[v].dur;
    if (g->release && g->old_start[v] > t) {
      if (acs_heap_push(&g->wait, g->old_start[v], v) < 0)
        return ACS_ENOMEM;
      continue;
    }
    if (dur > 0 && !fits(g, v)) {
      g->aside[naside++] = v;
      continue;
    }
    g->start[v] = t;
    placed++;
    if (dur == 0) {
      if (release_succ(g, v) < 0)
        return ACS_ENOMEM;
      continue;
    }
    for (int r = 0; r < g->s->nres; r++)
      g->use[r] += acs_schedule_demand(g->s, v, r);
    if (acs_heap_push(&g->run, t + dur, v) < 0)
      return ACS_ENOMEM;
  }
  for (int32_t k = 0; k < naside; k++)
    if (acs_heap_push(&g->ready, g->old_start[g->aside[k]], g->aside[k]) < 0)
      return ACS_ENOMEM;
  return placed;
}

/* The next decision time: an end, or (with release times) a release. */
static int64_t next_time(const struct sgs *g)
{
  int64_t t = INT64_MAX;

  if (!acs_heap_empty(&g->run))
    t = acs_heap_peek(&g->run).key;
  if (!acs_heap_empty(&g->wait) && acs_heap_peek(&g->wait).key < t)
    t = acs_heap_peek(&g->wait).key;
  return t;
}

static int sgs_run(struct sgs *g, struct acs_diag *d)
{
  int32_t placed = 0, n = g->s->nops;
  int64_t t = 0;

  for (int32_t v = 0; v < n; v++)
    if (g->indeg[v] == 0 && acs_heap_push(&g->ready, g->old_start[v], v) < 0)
      return ACS_ENOMEM;
  while (placed < n) {
    int32_t k;
    while (!acs_heap_empty(&g->wait) && acs_heap_peek(&g->wait).key <= t) {
      int32_t v = acs_heap_pop(&g->wait).id;
      if (acs_heap_push(&g->ready, g->old_start[v], v) < 0)
        return ACS_ENOMEM;
    }
    while (!acs_heap_empty(&g->run) && acs_heap_peek(&g->run).key <= t) {
      int32_t v = acs_heap_pop(&g->run).id;
      for (int r = 0; r < g->s->nres; r++)
        g->use[r] -= acs_schedule_demand(g->s, v, r);
      if (release_succ(g, v) < 0)
        return ACS_ENOMEM;
    }
    if ((k = decide(g, t)) < 0)
      return k;
    placed += k;
    if (placed < n && acs_heap_empty(&g->run) && acs_heap_empty(&g->wait)) {
      if (k == 0)
        return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                            "barrier pass: re-timing stalled with %d ops left (a cycle, or "
                            "an op over a capacity)", (int)(n - placed));
      continue; /* zero-length ops released others at t */
    }
    if (placed < n)
      t = next_time(g);
  }
  return ACS_OK;
}

static int sgs_init(struct sgs *g, struct acs_schedule *s, int release)
{
  size_t n = (size_t)s->nops + 1;

  memset(g, 0, sizeof(*g));
  g->s = s;
  g->release = release;
  g->succ_off = calloc(n + 1, sizeof(int32_t));
  g->succ = malloc(((size_t)s->nedges + 1) * sizeof(int32_t));
  g->indeg = calloc(n, sizeof(int32_t));
  g->aside = malloc((SET_ASIDE_MAX + 1) * sizeof(int32_t));
  g->aside_pos = malloc(n * sizeof(int32_t));
  g->data = malloc((size_t)s->nedges + 1);
  g->old_start = malloc(n * sizeof(int64_t));
  g->start = malloc(n * sizeof(int64_t));
  if (!g->succ_off || !g->succ || !g->indeg || !g->aside || !g->aside_pos || !g->data || !g->old_start ||
      !g->start ||
      acs_heap_init(&g->ready, n) < 0 || acs_heap_init(&g->run, n) < 0 ||
      acs_heap_init(&g->wait, n) < 0)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < s->nedges; e++) {
    g->succ_off[s->edges[e].src + 1]++;
    g->indeg[s->edges[e].dst]++;
  }
  for (int32_t v = 0; v < s->nops; v++)
    g->succ_off[v + 1] += g->succ_off[v];
  memcpy(g->aside_pos, g->succ_off, (size_t)s->nops * sizeof(int32_t));
  for (int32_t e = 0; e < s->nedges; e++) {
    g->data[g->aside_pos[s->edges[e].src]] = s->edges[e].kind == ACS_EDGE_DATA;
    g->succ[g->aside_pos[s->edges[e].src]++] = s->edges[e].dst;
  }
  for (int32_t v = 0; v < s->nops; v++)
    g->old_start[v] = s->ops[v].start;
  return ACS_OK;
}

static void sgs_free(struct sgs *g)
{
  free(g->succ_off), free(g->succ), free(g->indeg), free(g->aside), free(g->aside_pos);
  free(g->data);
  free(g->old_start), free(g->start);
  acs_heap_destroy(&g->ready);
  acs_heap_destroy(&g->run);
  acs_heap_destroy(&g->wait);
}

/* ---- units and CMX ranges ---- */

struct by_start {
  int64_t start;
  int32_t op;
};

static int cmp_by_start(const void *x, const void *y)
{
  const struct by_start *a = x, *b = y;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->op > b->op) - (a->op < b->op);
}

/* The resource whose instances an op's unit indexes, or -1 (as verify.c). */
static int unit_resource(const struct acs_schedule *s, int32_t i)
{
  int r = s->ops[i].kind == ACS_OP_DMA ? s->res_dma : s->res_pe;

  return r < 0 || acs_schedule_demand(s, i, r) == 0 ? -1 : r;
}

/* Lowest unit of resource r free at the op's start (an op of zero length
 * holds none: the lowest free one, or 0). */
static int assign_units(struct acs_schedule *s)
{
  struct by_start *v = malloc(((size_t)s->nops + 1) * sizeof(*v));
  int64_t *busy[2] = {NULL, NULL};
  int err = ACS_OK;

  for (int k = 0; k < 2; k++) {
    int r = k ? s->res_dma : s->res_pe;
    busy[k] = calloc(r >= 0 && s->res_cap[r] > 0 ? (size_t)s->res_cap[r] : 1, sizeof(int64_t));
  }
  if (!v || !busy[0] || !busy[1]) {
    err = ACS_ENOMEM;
    goto out_with_units;
  }
  for (int32_t i = 0; i < s->nops; i++)
    v[i] = (struct by_start){s->ops[i].start, i};
  qsort(v, (size_t)s->nops, sizeof(*v), cmp_by_start);
  for (int32_t k = 0; k < s->nops; k++) {
    struct acs_sop *o = &s->ops[v[k].op];
    int r = unit_resource(s, v[k].op), which = o->kind == ACS_OP_DMA;
    o->unit = -1;
    if (r < 0)
      continue;
    for (int64_t u = 0; u < s->res_cap[r] && o->unit < 0; u++)
      if (busy[which][u] <= o->start)
        o->unit = (int32_t)u;
    if (o->unit < 0 && o->dur == 0)
      o->unit = 0;
    else if (o->unit < 0)
      err = ACS_EINVAL; /* cannot happen: capacities hold */
    else if (o->dur > 0)
      busy[which][o->unit] = o->end;
  }
out_with_units:
  free(v), free(busy[0]), free(busy[1]);
  return err;
}

/* Moves each CMX range with its holders (see the file comment). O(V + E). */
static void move_ranges(struct acs_schedule *s, const struct sgs *g)
{
  for (int32_t i = 0; i < s->nops; i++) {
    struct acs_sop *o = &s->ops[i];
    double old_last, new_last;
    if (o->cmx_offset < 0 || isnan(o->cmx_alloc) || isnan(o->cmx_free))
      continue;
    old_last = (double)(g->old_start[i] + o->dur);
    new_last = (double)(g->start[i] + o->dur);
    for (int32_t k = g->succ_off[i]; k < g->succ_off[i + 1]; k++) {
      int32_t c = g->succ[k];
      double os = (double)g->old_start[c], oe = (double)(g->old_start[c] + s->ops[c].dur);
      if (!g->data[k] || os < o->cmx_alloc || oe > o->cmx_free)
        continue;
      if (oe > old_last)
        old_last = oe;
      if ((double)(g->start[c] + s->ops[c].dur) > new_last)
        new_last = (double)(g->start[c] + s->ops[c].dur);
    }
    o->cmx_alloc += (double)(g->start[i] - g->old_start[i]);
    o->cmx_free = new_last + (o->cmx_free - old_last);
  }
}

/* One generation scheme: new starts in g->start; returns the makespan. */
static int64_t sgs_makespan(const struct sgs *g)
{
  int64_t m = 0;

  for (int32_t i = 0; i < g->s->nops; i++)
    if (g->start[i] + g->s->ops[i].dur > m)
      m = g->start[i] + g->s->ops[i].dur;
  return m;
}

/*
 * Re-times s when an edge from first_new_edge on contradicts the plan: with
 * and without the old starts as release times (the first keeps every op
 * whose edges do not bind where it was, so a justified plan keeps its
 * improvements; the second can move ops earlier), keeping the shorter.
 * Returns 0 when the times already respect every edge, 1 when re-timed.
 */
int acs__barrier_retime(struct acs_schedule *s, int32_t first_new_edge, struct acs_diag *d)
{
  struct sgs g[2];
  int need = 0, err, best;

  for (int32_t e = first_new_edge; e < s->nedges && !need; e++)
    need = s->ops[s->edges[e].dst].start < s->ops[s->edges[e].src].end;
  if (!need)
    return 0;
  memset(g, 0, sizeof(g));
  for (int k = 0; k < 2; k++)
    if ((err = sgs_init(&g[k], s, k == 0)) < 0 || (err = sgs_run(&g[k], d)) < 0)
      goto out_with_sgs;
  best = sgs_makespan(&g[1]) < sgs_makespan(&g[0]);
  for (int32_t i = 0; i < s->nops; i++) {
    s->ops[i].start = g[best].start[i];
    s->ops[i].end = g[best].start[i] + s->ops[i].dur;
  }
  move_ranges(s, &g[best]);
  if ((err = assign_units(s)) < 0)
    goto out_with_sgs;
  acs_schedule_finish(s);
  err = 1;
out_with_sgs:
  sgs_free(&g[0]);
  sgs_free(&g[1]);
  return err;
}
