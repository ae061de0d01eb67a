/*
 * barrier_retime.c - the time sweep of the barrier pass and the re-timing it
 * produces.
 *
 * A parallel schedule generation scheme over the schedule itself (its ops
 * include any a scheduler added, e.g. spill transfers): at each decision
 * time, ready ops (every predecessor over all edges, including those the
 * allocator adds on the way, has ended) start in the order of their planned
 * starts (ties by id) when their demands fit every resource and the barrier
 * allocator agrees (barrier_int.h); zero-length ops start and end at once.
 * So the new plan keeps the old one's order wherever the edges and the
 * barriers allow, and with release times (no op before its planned start) a
 * plan that the barriers never delay comes out unchanged. An op that cannot
 * start is set aside until the next decision time, and a decision stops
 * after 64 such ops in a row, which bounds the work per event without
 * affecting validity (an op may only start later than it could). An op the
 * allocator turns away until a running producer ends (it must consume that
 * producer's use) is not asked again before then: it is hung on that
 * producer and made ready when it ends, an event, not a poll. When
 * nothing runs and nothing is due, the allocator is told to start the first
 * op that fits, so the sweep never stalls. Units are then reassigned as
 * every scheduler does (lowest free PE or channel at its start, by start,
 * id).
 *
 * Durations come from acs__sgs_dur alone: the planned duration of each op,
 * except a transfer that crosses the shared DDR link (core/model/ddrlink.h)
 * of a schedule that records the link: it takes the time it needs alone at
 * a transfer's full rate, and holds one of the link's lanes, so that
 * whatever the sweep moves, the link can carry it. A schedule whose
 * scheduler held a DDR resource for whole transfers (the seed-000 family)
 * keeps that resource as it planned it. For a planner that timed its
 * transfers itself and has none (cascade, gang), a lane is held only while
 * the transfer's bytes move, from its start plus the link's latency to its
 * end, as on the link itself (and in the plan: latencies overlap the bytes
 * of other transfers): each lane keeps the time it is free, a transfer
 * starts at t when a lane is free by t + latency, and the sweep gets a
 * decision time when the first lane a refused transfer could take comes
 * within the latency. Holding the lane for the latency too serialised the
 * latencies of thousands of short transfers: on AlexNet's cascade plan
 * that alone made every barrier count 21% slower than none.
 *
 * CMX ranges move with their ops: a range is held from `cmx_alloc` (kept at
 * the same distance before its op's start) until its last holder ends (its
 * op, and the data successors that ran inside the range's old interval),
 * plus the same slack after it as before, cut where the next range at its
 * addresses is now allocated (clamp_slack). The control edges of a
 * scheduler that assigns ranges (spill, cascade, the SDF family) keep the
 * holders of ranges that share addresses apart in any execution respecting
 * the edges, so the moved ranges stay disjoint.
 *
 * Cost: O((V + E + A) log V + V R) for A added edges (the running ops'
 * heap; the lanes' heap adds O(log lanes) per transfer), plus O(log_64 V)
 * per op taken from, or put back into, the ready queues (a bitmap of plan
 * ranks): at most 64 + 8 per decision time, and
 * one per wake of a turned-away op (O(1) to hang it on its producer), plus
 * what the allocator spends per request (barrier.c).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/ctrledge.h"
#include "core/sched/npu/barrier_int.h"
#include "core/sched/heap.h"

#define SET_ASIDE_MAX 64
/* Ops the allocator may turn away per decision time: the ready ops are
 * asked in plan order, so when the first few find no barrier, the later
 * ones rarely would, and asking them all would make the sweep quadratic
 * on wide graphs. */
#define REFUSED_MAX 8

#define ACS__RSET_LEVELS 6 /* 64^6 > INT32_MAX ranks */

struct acs__rset {
  int nl;
  uint64_t *w[ACS__RSET_LEVELS];
  int32_t min;               /* the least rank, -1 when empty, RSET_UNKNOWN */
};

#define RSET_UNKNOWN (-2)

struct acs__sgs {
  const struct acs_schedule *s;
  const struct acs__sgs_hooks *hk;
  int release;               /* ops start no earlier than their old start */
  const int32_t *succ_off, *succ;  /* the edges followed: hk->reduced's or own */
  int32_t *own_off, *own_succ, *indeg, *aside;
  int32_t *dhead, *dnext, *ddst;  /* added edges from ops not yet ended */
  /* Ops the allocator turned away until a running op ends, hung on it:
   * whead[x] the first, wnext[v] the next (hooks' *wake). */
  int32_t *whead, *wnext;
  int32_t nd;
  size_t dcap;
  int64_t *start;            /* -1 until started */
  int64_t *dur;              /* per op: acs__sgs_dur, asked at every request */
  uint8_t *done;
  int64_t use[ACS_MAX_RES];
  /* The link's lanes when the schedule has no DDR resource (implicit_lanes,
   * 0 otherwise): a min-heap of the times they are free, the latency, and
   * the next decision time a refused transfer asks for (INT64_MAX). */
  int64_t lanes, latency, lane_retry;
  struct acs_heap lane_free;
  /* Ready ops by the unit they need: a PE, a DMA channel, or none (or no
   * time). A decision skips a queue whose units are all busy instead of
   * setting its ops aside one by one: on wide graphs most ready ops wait
   * for a unit. */
  struct acs__rset ready[3];
  const int32_t *rank;       /* per op: its place in (planned start, id) order */
  int32_t *own_rank;         /* that, when the hooks have none (sgs_init) */
  int32_t *by_rank;          /* the ops in that order */
  uint8_t *queue;            /* per op: its queue (queue_of) */
  struct acs_heap run, wait;
  int64_t max_tail;          /* the latest start + tail (hk->p) of an op started */
  int64_t work[ACS_MAX_RES]; /* per resource: duration x demand of the ops not started */
  int32_t cut_next;          /* may_end_before: first op by tail not started */
  int32_t placed;            /* ops started so far */
  int64_t t;                 /* the decision time the sweep is at */
};

/* Does op v move bytes over the DDR link that s records? */
static int on_link(const struct acs_schedule *s, int32_t v)
{
  const struct acs_sop *o = &s->ops[v];

  return s->link.link_bpc > 0 && o->kind == ACS_OP_DMA && o->bytes > 0 &&
         acs_ddrlink_crosses(o->src, o->dst);
}

int64_t acs__sgs_dur(const struct acs_schedule *s, int32_t v)
{
  return on_link(s, v) ? acs_ddrlink_min_cycles(&s->link, s->ops[v].bytes) : s->ops[v].dur;
}

/* The link's lanes when the schedule has no DDR resource to hold them
 * (as acs_ddrlink_lanes: at least one, no more than the DMA channels);
 * 0 when there is a resource, or no link. */
static int64_t implicit_lanes(const struct acs_schedule *s)
{
  double lanes;

  if (s->link.link_bpc <= 0 || s->link.xfer_bpc <= 0 || s->res_ddr >= 0)
    return 0;
  lanes = floor(s->link.link_bpc / s->link.xfer_bpc + 1e-9);
  if (s->res_dma >= 0 && lanes > (double)s->res_cap[s->res_dma])
    lanes = (double)s->res_cap[s->res_dma];
  return lanes < 1 ? 1 : (int64_t)lanes;
}

int acs__sgs_done(const struct acs__sgs *g, int32_t v)
{
  return g->done[v];
}

static int queue_of(const struct acs__sgs *g, int32_t v)
{
  const struct acs_schedule *s = g->s;

  if (acs__sgs_dur(s, v) == 0)
    return 2;
  if (s->res_pe >= 0 && acs_schedule_demand(s, v, s->res_pe) > 0)
    return 0;
  if (s->res_dma >= 0 && acs_schedule_demand(s, v, s->res_dma) > 0)
    return 1;
  return 2;
}

/* ---- the ready queues ---- */

/*
 * A set of ranks in [0, n) that finds its least in O(L) for L = log_64 n
 * levels: level 0 has a bit per rank, each level above a bit per nonzero
 * word of the one below, the top one word. Adding and removing are O(L)
 * too (they stop at the first level where the word was, or stays,
 * nonzero). For 10^5 ops L = 3: a few word operations where a heap of
 * ready ops spends O(log V) comparisons on scattered memory, and the sweep
 * makes one or two of them per request to the allocator. The least rank
 * is also kept (min): a decision asks for the first op of every queue
 * before each op it takes, and most of those asks find the queue as it
 * was; an add keeps it up to date in O(1), and only removing it makes the
 * next ask search.
 */
static int rset_init(struct acs__rset *r, int32_t n)
{
  size_t words = n > 0 ? ((size_t)n + 63) / 64 : 1;

  memset(r, 0, sizeof(*r));
  r->min = -1;
  for (;;) {
    if (r->nl == ACS__RSET_LEVELS || !(r->w[r->nl] = calloc(words, sizeof(uint64_t))))
      return ACS_ENOMEM;
    r->nl++;
    if (words == 1)
      return ACS_OK; /* the top: one word */
    words = (words + 63) / 64;
  }
}

static void rset_free(struct acs__rset *r)
{
  for (int l = 0; l < r->nl; l++)
    free(r->w[l]);
}

static void rset_add(struct acs__rset *r, int32_t x)
{
  if (r->min != RSET_UNKNOWN && (r->min < 0 || x < r->min))
    r->min = x;
  for (int l = 0; l < r->nl; l++, x >>= 6) {
    uint64_t *w = &r->w[l][x >> 6];
    int was = *w != 0;
    *w |= (uint64_t)1 << (x & 63);
    if (was)
      break;
  }
}

static void rset_del(struct acs__rset *r, int32_t x)
{
  if (x == r->min)
    r->min = RSET_UNKNOWN;
  for (int l = 0; l < r->nl; l++, x >>= 6) {
    uint64_t *w = &r->w[l][x >> 6];
    *w &= ~((uint64_t)1 << (x & 63));
    if (*w)
      break;
  }
}

/* The least rank in r, or -1. */
static int32_t rset_min(struct acs__rset *r)
{
  uint64_t top;
  int32_t x;

  if (r->min != RSET_UNKNOWN)
    return r->min;
  top = r->w[r->nl - 1][0];
  if (!top)
    return r->min = -1;
  x = __builtin_ctzll(top);
  for (int l = r->nl - 2; l >= 0; l--)
    x = (x << 6) | __builtin_ctzll(r->w[l][x]);
  return r->min = x;
}

/* Ready ops are kept by their rank in (planned start, id) order, the order
 * a heap keyed so would give: an op is in at most one place at a time
 * (ready, hung on a running op, or waiting in the wait heap), so a set of
 * ranks holds them. */
static int push_ready(struct acs__sgs *g, int32_t v)
{
  rset_add(&g->ready[g->queue[v]], g->rank[v]);
  return ACS_OK;
}

/* The first op of queue q, or -1. */
static int32_t first_ready(struct acs__sgs *g, int q)
{
  int32_t k = rset_min(&g->ready[q]);

  return k < 0 ? -1 : g->by_rank[k];
}

/* The queue whose first op comes first among those with a free unit, or -1;
 * that op in *first. */
static int next_queue(struct acs__sgs *g, int32_t *first)
{
  int best = -1;
  int32_t bv = -1;

  for (int q = 0; q < 3; q++) {
    int32_t v = first_ready(g, q);
    if (v < 0)
      continue;
    if (q < 2) {
      int r = q == 0 ? g->s->res_pe : g->s->res_dma;
      if (g->use[r] >= g->s->res_cap[r])
        continue;
    }
    if (best < 0 || g->rank[v] < g->rank[bv]) {
      best = q;
      bv = v;
    }
  }
  *first = bv;
  return best;
}

int acs__sgs_add_edge(struct acs__sgs *g, int32_t src, int32_t dst)
{
  if (g->done[src])
    return ACS_OK; /* already ended: it holds nothing back */
  if ((size_t)g->nd == g->dcap) {
    size_t cap = g->dcap ? 2 * g->dcap : 256;
    int32_t *a = realloc(g->dnext, cap * sizeof(*a));
    if (a)
      g->dnext = a;
    int32_t *b = realloc(g->ddst, cap * sizeof(*b));
    if (b)
      g->ddst = b;
    if (!a || !b || g->nd == INT32_MAX)
      return ACS_ENOMEM;
    g->dcap = cap;
  }
  g->ddst[g->nd] = dst;
  g->dnext[g->nd] = g->dhead[src];
  g->dhead[src] = g->nd++;
  g->indeg[dst]++;
  return ACS_OK;
}

static int fits(struct acs__sgs *g, int32_t v, int64_t t)
{
  if (g->lanes > 0 && on_link(g->s, v)) {
    int64_t free_at = acs_heap_peek(&g->lane_free).key;
    if (free_at > t + g->latency) {
      if (free_at - g->latency < g->lane_retry)
        g->lane_retry = free_at - g->latency;
      return 0;
    }
  }
  for (int r = 0; r < g->s->nres; r++)
    if (g->use[r] + acs_schedule_demand(g->s, v, r) > g->s->res_cap[r])
      return 0;
  return 1;
}

int acs__sgs_fits_beside(const struct acs__sgs *g, int32_t v, int32_t w)
{
  for (int r = 0; r < g->s->nres; r++)
    if (g->use[r] + acs_schedule_demand(g->s, v, r) + acs_schedule_demand(g->s, w, r) >
        g->s->res_cap[r])
      return 0;
  return 1;
}

/* v has ended: its successors over every edge may become ready. */
static int finish(struct acs__sgs *g, int32_t v)
{
  g->done[v] = 1;
  for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
    if (--g->indeg[g->succ[k]] == 0 && push_ready(g, g->succ[k]) < 0)
      return ACS_ENOMEM;
  for (int32_t e = g->dhead[v]; e >= 0; e = g->dnext[e])
    if (--g->indeg[g->ddst[e]] == 0 && push_ready(g, g->ddst[e]) < 0)
      return ACS_ENOMEM;
  g->dhead[v] = -1;
  return ACS_OK;
}

/* Starts v at t (the allocator has agreed). */
static int begin(struct acs__sgs *g, int32_t v, int64_t t)
{
  int64_t dur = g->dur[v];

  g->start[v] = t;
  if (g->hk->p && t + g->hk->p->tail[v] > g->max_tail)
    g->max_tail = t + g->hk->p->tail[v];
  for (int r = 0; r < g->s->nres; r++)
    g->work[r] -= dur * acs_schedule_demand(g->s, v, r);
  if (dur == 0)
    return finish(g, v);
  for (int r = 0; r < g->s->nres; r++)
    g->use[r] += acs_schedule_demand(g->s, v, r);
  if (g->lanes > 0 && on_link(g->s, v)) { /* fits(): the first lane is free by t + latency */
    int32_t lane = acs_heap_pop(&g->lane_free).id;
    if (acs_heap_push(&g->lane_free, t + dur, lane) < 0)
      return ACS_ENOMEM;
  }
  return acs_heap_push(&g->run, t + dur, v) < 0 ? ACS_ENOMEM : ACS_OK;
}

/* v is ready again when x, which runs and ends at the time the allocator
 * gave, ends (advance): the same decision time as a retry in the wait heap,
 * so the same decisions, in O(1). */
static void hang(struct acs__sgs *g, int32_t v, int32_t x)
{
  g->wnext[v] = g->whead[x];
  g->whead[x] = v;
}

/*
 * Starts what can start at t; returns the number of ops started or < 0.
 * With `force`, the first op that fits is started whatever its barriers.
 */
static int32_t decide(struct acs__sgs *g, int64_t t, int force)
{
  int32_t placed = 0, naside = 0, refused = 0;
  int err = ACS_OK;

  g->lane_retry = INT64_MAX;
  while (naside < SET_ASIDE_MAX && refused < REFUSED_MAX && err == ACS_OK) {
    int32_t v, wake = -1;
    int q = next_queue(g, &v);
    if (q < 0)
      break;
    rset_del(&g->ready[q], g->rank[v]);
    int64_t retry = INT64_MAX;
    int ok;
    if (g->start[v] >= 0 || g->indeg[v] > 0)
      continue; /* stale: started, or an added edge holds it back */
    if (g->release && g->s->ops[v].start > t) {
      err = acs_heap_push(&g->wait, g->s->ops[v].start, v) < 0 ? ACS_ENOMEM : ACS_OK;
      continue;
    }
    if (g->dur[v] > 0 && !fits(g, v, t)) {
      g->aside[naside++] = v;
      continue;
    }
    if ((ok = g->hk->try_start(g->hk->ctx, g, v, t, force && placed == 0, &retry, &wake)) < 0)
      return ok;
    if (!ok && wake >= 0 && retry > t && retry != INT64_MAX) {
      hang(g, v, wake); /* ready again at retry, when wake ends */
      continue;
    }
    if (!ok && retry > t && retry != INT64_MAX) {
      err = acs_heap_push(&g->wait, retry, v) < 0 ? ACS_ENOMEM : ACS_OK;
      continue;
    }
    if (!ok) {
      g->aside[naside++] = v;
      refused++;
      continue;
    }
    err = begin(g, v, t);
    placed++;
  }
  for (int32_t k = 0; k < naside; k++)
    push_ready(g, g->aside[k]);
  return err < 0 ? err : placed;
}

/* The next decision time: an end, (with release times) a release, or a
 * lane a refused transfer can take. */
static int64_t next_time(const struct acs__sgs *g)
{
  int64_t t = g->lane_retry;

  if (!acs_heap_empty(&g->run) && acs_heap_peek(&g->run).key < t)
    t = acs_heap_peek(&g->run).key;
  if (!acs_heap_empty(&g->wait) && acs_heap_peek(&g->wait).key < t)
    t = acs_heap_peek(&g->wait).key;
  return t;
}

/* Ends and releases due at t. */
static int advance(struct acs__sgs *g, int64_t t)
{
  int err = ACS_OK;

  while (!acs_heap_empty(&g->wait) && acs_heap_peek(&g->wait).key <= t && err == ACS_OK)
    err = push_ready(g, acs_heap_pop(&g->wait).id) < 0 ? ACS_ENOMEM : ACS_OK;
  while (!acs_heap_empty(&g->run) && acs_heap_peek(&g->run).key <= t && err == ACS_OK) {
    int32_t v = acs_heap_pop(&g->run).id;
    for (int r = 0; r < g->s->nres; r++)
      g->use[r] -= acs_schedule_demand(g->s, v, r);
    for (int32_t w = g->whead[v]; w >= 0 && err == ACS_OK; w = g->wnext[w])
      err = push_ready(g, w) < 0 ? ACS_ENOMEM : ACS_OK;
    g->whead[v] = -1;
    if (err == ACS_OK)
      err = finish(g, v);
  }
  return err;
}

/* Can the sweep still end before hk->cutoff, at decision time t? Every op
 * ends the sweep no earlier than its start plus its tail (its successors
 * start after it ends, and so on, with the durations the tails were
 * measured with), and one that has not started starts at t or later; and
 * the work of the ops not started on each resource (duration x demand)
 * takes at least its total over the capacity from t on. The ops by
 * decreasing tail are passed over once they have started: O(R) amortized,
 * O(V + R) per decision time at most. */
static int may_end_before(struct acs__sgs *g, int64_t t)
{
  const struct acs__bprep *p = g->hk->p;
  int64_t cutoff = atomic_load_explicit(&g->hk->cutoff, memory_order_relaxed);

  while (g->cut_next < p->n && g->start[p->by_tail[g->cut_next]] >= 0)
    g->cut_next++;
  if (g->max_tail >= cutoff)
    return 0;
  for (int r = 0; r < g->s->nres; r++)
    if (g->s->res_cap[r] > 0 &&
        t + (g->work[r] + g->s->res_cap[r] - 1) / g->s->res_cap[r] >= cutoff)
      return 0;
  return g->cut_next == p->n || t + p->tail[p->by_tail[g->cut_next]] < cutoff;
}

/* The sweep from where it is (g->placed ops started, at decision time
 * g->t) to its end, or to the first decision time at which it is cut. A
 * cut only stops it: with a later cutoff it goes on from there, as it
 * would have without the cut (acs__sgs_go). */
static int sweep(struct acs__sgs *g, struct acs_diag *d)
{
  int32_t n = g->s->nops;

  while (g->placed < n) {
    int32_t k;
    int err;
    if (g->hk->interrupted && *g->hk->interrupted)
      return ACS_EINTERRUPTED;
    if (g->hk->p && !may_end_before(g, g->t))
      return ACS__SGS_CUT;
    if ((err = advance(g, g->t)) < 0 || (k = decide(g, g->t, 0)) < 0)
      return err < 0 ? err : k;
    g->placed += k;
    if (g->placed < n && acs_heap_empty(&g->run) && acs_heap_empty(&g->wait)) {
      if (k == 0 && (k = decide(g, g->t, 1)) <= 0)
        return k < 0 ? k
                     : acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                                    "barrier pass: re-timing stalled with %d ops left (a "
                                    "cycle, or an op over a capacity)", (int)(n - g->placed));
      g->placed += k;
      continue; /* at the same time: zero-length ops may have released others */
    }
    if (g->placed < n)
      g->t = next_time(g);
  }
  return ACS_OK;
}

/* The ops' ranks in (planned start, id) order, from the hooks or sorted
 * here (O(V log V)), their inverse and their queues. */
static int plan_ranks(struct acs__sgs *g, const int32_t *rank)
{
  if (!rank) {
    g->own_rank = malloc(((size_t)g->s->nops + 1) * sizeof(int32_t));
    if (!g->own_rank || acs__plan_ranks(g->s, g->own_rank) < 0)
      return ACS_ENOMEM;
    rank = g->own_rank;
  }
  g->rank = rank;
  for (int32_t v = 0; v < g->s->nops; v++) {
    g->by_rank[rank[v]] = v;
    g->queue[v] = (uint8_t)queue_of(g, v);
  }
  return ACS_OK;
}

/* The successor lists the sweep follows and the in-degrees (indeg zeroed):
 * p's reduction when given, else s->edges. O(V + E). */
static int sgs_edges(struct acs__sgs *g, const struct acs__bprep *p)
{
  const struct acs_schedule *s = g->s;
  int32_t n = s->nops;

  if (p) {
    g->succ_off = p->rs_off;
    g->succ = p->rs;
    for (int32_t v = 0; v < n; v++)
      g->indeg[v] = p->rp_off[v + 1] - p->rp_off[v];
    return ACS_OK;
  }
  g->own_off = calloc((size_t)n + 2, sizeof(int32_t));
  g->own_succ = malloc(((size_t)s->nedges + 1) * sizeof(int32_t));
  if (!g->own_off || !g->own_succ)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < s->nedges; e++) {
    g->own_off[s->edges[e].src + 2]++;
    g->indeg[s->edges[e].dst]++;
  }
  for (int32_t v = 0; v < n; v++)
    g->own_off[v + 2] += g->own_off[v + 1];
  for (int32_t e = 0; e < s->nedges; e++) /* own_off[v + 1] ends as v's end */
    g->own_succ[g->own_off[s->edges[e].src + 1]++] = s->edges[e].dst;
  g->succ_off = g->own_off;
  g->succ = g->own_succ;
  return ACS_OK;
}

static int sgs_init(struct acs__sgs *g, const struct acs_schedule *s, int release,
                    const struct acs__sgs_hooks *hk, int64_t *start)
{
  size_t n = (size_t)s->nops + 1;

  memset(g, 0, sizeof(*g));
  g->s = s;
  g->hk = hk;
  g->release = release;
  g->start = start;
  g->lanes = implicit_lanes(s);
  g->latency = s->link.latency > 0 ? s->link.latency : 0;
  g->lane_retry = INT64_MAX;
  if (g->lanes > s->nops)
    g->lanes = s->nops > 0 ? s->nops : 1; /* never more lanes than transfers */
  g->indeg = calloc(n, sizeof(int32_t));
  g->aside = malloc((SET_ASIDE_MAX + 1) * sizeof(int32_t));
  g->dhead = malloc(n * sizeof(int32_t));
  g->whead = malloc(n * sizeof(int32_t));
  g->by_rank = malloc(n * sizeof(int32_t));
  g->queue = malloc(n);
  g->wnext = malloc(n * sizeof(int32_t));
  g->done = calloc(n, 1);
  g->dur = malloc(n * sizeof(int64_t));
  if (!g->indeg || !g->aside || !g->dhead || !g->whead || !g->wnext || !g->by_rank ||
      !g->queue || !g->done || !g->dur || sgs_edges(g, hk->reduced) < 0 ||
      rset_init(&g->ready[0], s->nops) < 0 || rset_init(&g->ready[1], s->nops) < 0 ||
      rset_init(&g->ready[2], s->nops) < 0 || acs_heap_init(&g->run, n) < 0 ||
      acs_heap_init(&g->wait, n) < 0 || acs_heap_init(&g->lane_free, (size_t)g->lanes + 1) < 0 ||
      plan_ranks(g, hk->plan_rank) < 0)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < s->nops; v++) {
    g->dur[v] = acs__sgs_dur(s, v);
    for (int r = 0; r < s->nres; r++)
      g->work[r] += g->dur[v] * acs_schedule_demand(s, v, r);
  }
  for (int32_t v = 0; v < s->nops; v++) {
    g->dhead[v] = g->whead[v] = -1;
    start[v] = -1;
  }
  for (int64_t k = 0; k < g->lanes; k++)
    acs_heap_push(&g->lane_free, 0, (int32_t)k); /* within its capacity */
  for (int32_t v = 0; v < s->nops; v++)
    if (g->indeg[v] == 0 && push_ready(g, v) < 0)
      return ACS_ENOMEM;
  return ACS_OK;
}

static void sgs_free(struct acs__sgs *g)
{
  free(g->own_off), free(g->own_succ), free(g->indeg), free(g->aside), free(g->dhead);
  free(g->whead), free(g->wnext), free(g->own_rank), free(g->by_rank), free(g->queue);
  free(g->dnext), free(g->ddst), free(g->done), free(g->dur);
  for (int q = 0; q < 3; q++)
    rset_free(&g->ready[q]);
  acs_heap_destroy(&g->run);
  acs_heap_destroy(&g->wait);
  acs_heap_destroy(&g->lane_free);
}

int acs__sgs_run(const struct acs_schedule *s, int release, const struct acs__sgs_hooks *hk,
                 int64_t *start, struct acs_diag *d)
{
  struct acs__sgs g;
  int err;

  if ((err = sgs_init(&g, s, release, hk, start)) == ACS_OK)
    err = sweep(&g, d);
  sgs_free(&g);
  return err;
}

int acs__sgs_new(struct acs__sgs **g, const struct acs_schedule *s, int release,
                 const struct acs__sgs_hooks *hk, int64_t *start)
{
  int err;

  if (!(*g = malloc(sizeof(**g))))
    return ACS_ENOMEM;
  if ((err = sgs_init(*g, s, release, hk, start)) < 0) {
    acs__sgs_free(*g);
    *g = NULL;
  }
  return err;
}

int acs__sgs_go(struct acs__sgs *g, struct acs_diag *d)
{
  return sweep(g, d);
}

void acs__sgs_free(struct acs__sgs *g)
{
  if (!g)
    return;
  sgs_free(g);
  free(g);
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

int acs__plan_ranks(const struct acs_schedule *s, int32_t *rank)
{
  struct by_start *o = malloc(((size_t)s->nops + 1) * sizeof(*o));

  if (!o)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < s->nops; v++)
    o[v] = (struct by_start){s->ops[v].start, v};
  qsort(o, (size_t)s->nops, sizeof(*o), cmp_by_start);
  for (int32_t k = 0; k < s->nops; k++)
    rank[o[k].op] = k;
  free(o);
  return ACS_OK;
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

struct clamp {
  struct acs_schedule *s;
  const double *new_last;
};

/* prev held, at some address of curr, the range before it (ctrledge.h):
 * prev's slack after its last holder ends where curr is allocated. */
static int clamp_pair(void *ctx, int32_t prev, int32_t curr)
{
  struct clamp *c = ctx;
  struct acs_sop *p = &c->s->ops[prev];
  double at = c->s->ops[curr].cmx_alloc;

  if (p->cmx_free > at)
    p->cmx_free = at > c->new_last[prev] ? at : c->new_last[prev];
  return 0;
}

/*
 * The slack a range keeps after its last holder (a scheduler may free a
 * buffer later than its last reader) moves with the range, and may then
 * reach past the allocation of the next range at its addresses: the edges
 * order the holders of one before the allocation of the next, not the
 * slack. Each such slack is cut at that allocation (never before the last
 * holder ends). The pairs of consecutive ranges at an address come from
 * the packing before the sweep (rects, in the old times). O(R log R) and
 * O(R) memory for R ranges.
 */
static int clamp_slack(struct acs_schedule *s, const struct acs_ctrl_rect *rects, size_t n,
                       const double *new_last)
{
  struct clamp c = {s, new_last};

  return acs__ctrl_pairs(rects, n, clamp_pair, &c);
}

/* Moves each CMX range with its holders (see the file comment): old_last
 * and new_last are scratch (V entries); old_start and old_end hold the
 * times before the sweep (a planner's transfer may have run longer than
 * its duration alone, sharing the link), s the new ones. O(V + E) plus
 * clamp_slack. ACS_OK or ACS_ENOMEM. */
static int move_ranges(struct acs_schedule *s, const int64_t *old_start, const int64_t *old_end,
                       double *old_last, double *new_last)
{
  struct acs_ctrl_rect *rects = malloc(((size_t)s->nops + 1) * sizeof(*rects));
  size_t nr = 0;
  int err;

  if (!rects)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < s->nops; i++) {
    old_last[i] = (double)old_end[i];
    new_last[i] = (double)s->ops[i].end;
  }
  for (int32_t e = 0; e < s->nedges; e++) {
    const struct acs_edge *x = &s->edges[e];
    const struct acs_sop *o = &s->ops[x->src], *c = &s->ops[x->dst];
    double os = (double)old_start[x->dst], oe = (double)old_end[x->dst];
    if (x->kind != ACS_EDGE_DATA || o->cmx_offset < 0 || isnan(o->cmx_alloc) ||
        isnan(o->cmx_free) || os < o->cmx_alloc || oe > o->cmx_free)
      continue;
    if (oe > old_last[x->src])
      old_last[x->src] = oe;
    if ((double)c->end > new_last[x->src])
      new_last[x->src] = (double)c->end;
  }
  for (int32_t i = 0; i < s->nops; i++) {
    struct acs_sop *o = &s->ops[i];
    if (o->cmx_offset < 0 || isnan(o->cmx_alloc) || isnan(o->cmx_free))
      continue;
    rects[nr++] = (struct acs_ctrl_rect){o->cmx_alloc, o->cmx_free, o->cmx_offset,
                                         o->cmx_offset + (o->cmx_bytes > 0 ? o->cmx_bytes : 0), i,
                                         i};
    o->cmx_alloc += (double)(o->start - old_start[i]);
    o->cmx_free = new_last[i] + (o->cmx_free - old_last[i]);
  }
  err = clamp_slack(s, rects, nr, new_last);
  free(rects);
  return err;
}

int acs__sgs_apply(struct acs_schedule *s, const int64_t *start)
{
  size_t n = (size_t)s->nops + 1;
  int64_t *old = malloc(2 * n * sizeof(*old));
  double *old_last = malloc(n * sizeof(double)), *new_last = malloc(n * sizeof(double));
  int err = ACS_ENOMEM;

  if (old && old_last && new_last) {
    for (int32_t i = 0; i < s->nops; i++) {
      old[i] = s->ops[i].start;
      old[n + (size_t)i] = s->ops[i].end;
      s->ops[i].start = start[i];
      s->ops[i].dur = acs__sgs_dur(s, i);
      s->ops[i].end = start[i] + s->ops[i].dur;
    }
    if ((err = move_ranges(s, old, old + n, old_last, new_last)) == ACS_OK)
      err = assign_units(s);
    acs_schedule_finish(s);
  }
  free(old), free(old_last), free(new_last);
  return err;
}

/* ---- re-timing without barriers ---- */

static int always(void *ctx, struct acs__sgs *g, int32_t v, int64_t t, int force,
                  int64_t *retry, int32_t *wake)
{
  (void)ctx, (void)g, (void)v, (void)t, (void)force, (void)retry, (void)wake;
  return 1;
}

int64_t acs__sgs_makespan(const struct acs_schedule *s, const int64_t *start)
{
  int64_t m = 0;

  for (int32_t i = 0; i < s->nops; i++)
    if (start[i] + acs__sgs_dur(s, i) > m)
      m = start[i] + acs__sgs_dur(s, i);
  return m;
}

int acs__barrier_retime(struct acs_schedule *s, int32_t first_new_edge, struct acs_diag *d)
{
  struct acs__sgs_hooks hk = {NULL, always, NULL, NULL, INT64_MAX, NULL, NULL};
  int64_t *start[2];
  int need = 0, err = ACS_ENOMEM;

  for (int32_t e = first_new_edge; e < s->nedges && !need; e++)
    need = s->ops[s->edges[e].dst].start < s->ops[s->edges[e].src].end;
  if (!need)
    return 0;
  start[0] = malloc(((size_t)s->nops + 1) * sizeof(int64_t));
  start[1] = malloc(((size_t)s->nops + 1) * sizeof(int64_t));
  if (start[0] && start[1] && (err = acs__sgs_run(s, 1, &hk, start[0], d)) == ACS_OK &&
      (err = acs__sgs_run(s, 0, &hk, start[1], d)) == ACS_OK) {
    int best = acs__sgs_makespan(s, start[1]) < acs__sgs_makespan(s, start[0]);
    err = acs__sgs_apply(s, start[best]);
  }
  free(start[0]), free(start[1]);
  return err < 0 ? err : 1;
}
