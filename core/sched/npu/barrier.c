/*
 * barrier.c - the barrier allocator: which barrier each op updates, what it
 * waits on, and which edges that needs (seed 000: "Scheduling with Barrier
 * Resource Constraints", "Barrier Slots and Wait Lists"; the hardware model
 * and the rule that reads a program back are in core/model/bprog.h).
 *
 * It runs inside the time sweep (barrier_retime.c), which asks it before
 * starting each op, so every choice is made with the times the program
 * will have: an op that finds no barrier waits, and the ops after it move
 * with it.
 *
 * Uses. Every op updates one barrier (a barrier is the only way an op tells
 * its successors, the runtime, or the next producers of a reused barrier
 * that it has ended). Ops of one consumer class (equal reduced successor
 * sets, barrier_prep.c) share one use of one barrier: a later member joins
 * the use its class opened while that use is still open (no consumer has
 * started), the slots allow it and its barrier is still on that use. This
 * costs nothing, since each consumer of the class waits for every member
 * anyway. Sinks share a use with the sinks running at the same time. An op
 * may also share the open use of another class (its consumers then wait
 * for every producer of that use, and that use's consumers for it), priced
 * by the delays this brings and capped in size (price_share).
 *
 * Waits. An op waits only on the barriers of its reduced predecessors (the
 * edges no path implies), and on each it consumes the barrier's *current*
 * use: that is its predecessor's use, or a later use of the same barrier,
 * which comes after it in every execution; the producers of the consumed
 * use get an edge to the op when no path already orders them (co-producer
 * edges), so the edges hold every order the barriers impose.
 *
 * Physical barriers. A new use takes, in order of preference: a barrier
 * whose current use is complete (its producers have ended, its consumers
 * have started and ended, no op is left to wait on it) when no edge is
 * needed; a barrier never used; a complete barrier with the fewest edges;
 * and, when none is free, either waiting for one to complete or taking a
 * barrier whose current use still has consumers to come (a steal: they
 * will wait on the new use instead, after its producers). Between waiting
 * and taking a choice that delays other ops (a steal, a share) the
 * allocator delays the op that costs least: each op's latest start
 * (barrier_prep.c) says how far it can slip without lengthening the plan,
 * and the smaller overrun wins, then the smaller delay (ties: wait). A
 * choice holds back only the waiters whose predecessors have all started
 * (the others wait for an op that has not), from when those end; so the
 * barriers whose waiters are far off carry them from use to use, and
 * those with a waiter about to start are left alone. A choice that holds
 * back a member of v's own class, ready beside v now, splits the class
 * (that member waits on v's use and can never join it): under
 * ACS__BP_KEEP_CLASS it is made only when waiting has no end. The
 * policies of barrier_int.h shift this balance, and the pass keeps the
 * best of several (barrier_pass.c). Taking a
 * barrier in plan order as soon as its use completes is interval colouring
 * of the uses' lifetimes: with as many barriers as uses overlap in the plan,
 * nothing waits.
 *
 * Edges for a reused barrier B (previous use X, new use Y): every consumer
 * of X (every producer, when X has none) must have started before any
 * producer of Y starts, in every execution; since an edge orders an end
 * before a start, each of them gets an edge to each producer of Y unless a
 * path already orders them. Those ops have ended when Y's producers start
 * (the sweep waits for it), so the plan keeps every added edge.
 *
 * Why the hardware rule holds in every execution that respects the edges:
 * the consumers of X are exactly the ops that started while X was B's
 * current use; each of them is, or precedes by a path of edges, every
 * producer of Y (the edges above), and every producer of X precedes its
 * consumers. A steal leaves X's unstarted waiters to consume Y, after Y's
 * producers (co-producer edges). Y may take more producers while it is
 * open: such a producer has every predecessor ended when it joins, and a
 * waiter that has started consumed Y and closed it, so no producer follows
 * a waiter and the co-producer edges stay acyclic; the waiters then wait
 * for it too, which its price counts (hold_waiters). So the uses of one
 * barrier follow each other in every execution, and since every op updates
 * one of b barriers, at most b uses are live at once (Theorem-1 applied to
 * uses; with one-slot barriers a use is one op, so at most b ops run at
 * once). Every added edge goes from an op that has started to one that is
 * starting or has not, so the graph stays acyclic.
 *
 * The reading rule (bprog.h) must find the uses the allocator built: a
 * producer of a later use of a barrier needs a direct predecessor in the
 * previous use, and a consumer of a later use a direct predecessor among
 * its producers. Where paths made every such edge unnecessary, one is
 * added anyway (a marker edge; it is implied, so it needs no wait).
 *
 * Cost: per request, O(distinct barriers of v's reduced predecessors)
 * (kept from v's first request, pred_barriers) to find its waits; a request
 * turned away because a use v must consume has a producer running ends
 * there, and v is asked again only when that producer ends (the sweep
 * hangs it on it). Otherwise at most CANDIDATES barriers of each kind are
 * priced, each in O(EXACT_MAX) (or O(1) for a use with more members) once
 * it can be followed (followable: O(1) for a use refused for every op at
 * this decision time, else the barriers of its consumers counted once per
 * use and change of their state), plus a backward search of at most
 * ACS_BA_ANC_BUDGET ops for the paths that make edges unnecessary (kept
 * per op while it waits, barrier_state.c), O(HELD_MAX) per take priced
 * (hold_waiters; a refused take only tidies its heaps) and O(degree) for
 * the waits; a scan of the free and stealable barriers that every op is
 * refused is not repeated before the next start. The barrier lists cost
 * O(log k) per change for the k <= min(b, V) barriers in use
 * (barrier_state.c). So the work per op does not grow with the barrier
 * count. Memory O(V + E + added edges + k).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/bprog.h"
#include "core/sched/npu/barrier_alloc.h"

/* Sharing a use of another class stops at this many producers or ops to
 * wait on it: each consumer waits for each producer, and the next use of
 * the barrier for each consumer, so a shared use costs edges in the
 * product of the two. Joins within a class have no such limit. */
#define SHARE_MAX_PROD 16
#define SHARE_MAX_CONS 64
/* Sinks (no successor) sharing one use, at most (see joinable_use). */
#define SINK_MAX_PROD 256
/* Uses with more members to precede the next one are priced at one edge
 * each without looking for paths: the count only breaks ties, and looking
 * costs O(members) on every request. */
#define EXACT_MAX 16
/* Barriers of each kind (free, stealable, open) priced per request, oldest
 * first: the oldest free barrier is the most likely to need no edges. */
#define CANDIDATES 16

/* ---- what an op already has ---- */

/* The distinct barriers of v's reduced predecessors, in the order of
 * those, kept in a->pbar from v's first request on (its predecessors have
 * all started then, so their barriers are fixed): an op asked again and
 * again while the barriers run short costs O(its distinct barriers) per
 * request, not O(in-degree). Returns their number. */
static int32_t pred_barriers(struct acs__balloc *a, int32_t v)
{
  const struct acs__bprep *p = a->p;
  int32_t n = 0, *l = a->pbar + p->rp_off[v];

  if (a->npbar[v] >= 0)
    return a->npbar[v];
  for (int32_t k = p->rp_off[v]; k < p->rp_off[v + 1]; k++) {
    int32_t b = a->use[a->use_of[p->rp[k]]].barrier;
    if (a->bar_mark[b] != a->epoch) {
      a->bar_mark[b] = a->epoch;
      l[n++] = b;
    }
  }
  return a->npbar[v] = n;
}

/* The barriers of v's reduced predecessors, distinct, in wb; returns how
 * many, or -1 when the use v would consume on one of them still has a
 * producer running at t: v must wait for it, until *retry at least, when
 * the producer *wake ends (the one of that use that ends last). */
static int32_t base_waits(struct acs__balloc *a, int32_t v, int64_t t, int64_t *retry,
                          int32_t *wake)
{
  int32_t nw = 0, n = pred_barriers(a, v), *l = a->pbar + a->p->rp_off[v];

  for (int32_t k = 0; k < n; k++) {
    int32_t b = l[k];
    int64_t end = a->bar_pend[b];
    a->bar_mark[b] = a->epoch;
    if (end > t)
      nw = -1;
    if (end > t && end < *retry) {
      *retry = end;
      *wake = a->use[a->bar[b].cur].last;
    }
    if (nw >= 0)
      a->wb[nw++] = b;
  }
  return nw;
}

/* ---- pricing a choice ---- */

static int32_t end_count(const struct acs__balloc *a, int32_t x)
{
  return a->use[x].ncons > 0 ? a->use[x].ncons : a->use[x].nprod;
}

/* Members on a barrier with a producer running that followable() looks at
 * one by one; a use with more is refused at once. */
#define RISKY_MAX ACS_BA_RISKY_MAX

/*
 * How many of use u's consumers are on a barrier with a producer running
 * at t (u->rk, and u->rk_several: two or more of them on one). When more
 * than RISKY_MAX are (the count stops there), also until when at least
 * that many will be, in u->rk_until: the (RISKY_MAX + 1)-th latest end of
 * the producers of those counted, the consumers counted with their
 * multiplicity (those not counted could only make it later). A barrier's current producers
 * only end later as time goes (a new use opens once the old one is done,
 * so its producers end no earlier), and u only gains consumers, so the
 * count at any later time is at least what these ends say: u is refused
 * before u->rk_until in O(1), and counted again only after it. When at
 * most RISKY_MAX are, they are kept (u->rk_e): until a barrier of u's
 * consumers gets a producer running or u a consumer (which clear them,
 * barrier_state.c), the count at a later time is theirs whose producers
 * still run (recount_risky, O(RISKY_MAX)). O(entries).
 */
static int32_t count_risky(struct acs__balloc *a, struct acs_ba_use *u, int64_t t)
{
  int64_t top[RISKY_MAX + 1];
  int32_t cnt[RISKY_MAX + 1], seen[RISKY_MAX + 1], ntop = 0, risky = 0, cum = 0;

  u->rk_several = 0;
  for (int32_t e = u->cbar; e >= 0; e = a->cbar[e].next) {
    int64_t end = a->bar_pend[a->cbar[e].bar];
    int32_t j;
    if (end <= t)
      continue;
    u->rk_several |= a->cbar[e].count > 1;
    risky += a->cbar[e].count;
    /* the busy entries seen, latest end first: at most RISKY_MAX + 1 of
     * them, as the walk stops once they are too many (the ends of those
     * seen bound when the count falls from below, as all of them do) */
    seen[ntop] = e;
    for (j = ntop++; j > 0 && top[j - 1] < end; j--) {
      top[j] = top[j - 1];
      cnt[j] = cnt[j - 1];
    }
    top[j] = end;
    cnt[j] = a->cbar[e].count;
    if (risky > RISKY_MAX)
      break;
  }
  u->rk_t = t;
  u->rk = risky;
  u->rk_n = -1;
  for (int32_t j = 0; j < ntop && risky > RISKY_MAX; j++)
    if ((cum += cnt[j]) > RISKY_MAX) {
      u->rk_until = top[j];
      break;
    }
  if (risky <= RISKY_MAX) { /* every busy entry was seen: at most RISKY_MAX */
    memcpy(u->rk_e, seen, (size_t)ntop * sizeof(int32_t));
    u->rk_n = (int8_t)ntop;
  }
  return risky;
}

/* The same from the entries kept at the last count (u->rk_n >= 0). */
static int32_t recount_risky(struct acs__balloc *a, struct acs_ba_use *u, int64_t t)
{
  int32_t risky = 0, n = 0;

  u->rk_several = 0;
  for (int32_t k = 0; k < u->rk_n; k++) {
    int32_t e = u->rk_e[k];
    if (a->bar_pend[a->cbar[e].bar] <= t)
      continue;
    u->rk_several |= a->cbar[e].count > 1;
    risky += a->cbar[e].count;
    u->rk_e[n++] = e;
  }
  u->rk_n = (int8_t)n;
  u->rk_t = t;
  u->rk = risky;
  /* a kept entry gained consumers: too many now, the full count says
   * until when (rk_until) */
  return risky > RISKY_MAX ? count_risky(a, u, t) : risky;
}

/*
 * Can v follow every member of x's end at t, as far as their barriers go?
 * A member that v does not follow by a path yet needs an edge, and v then
 * waits on the member's barrier, whose current use must not have a
 * producer running. So every member on a barrier that has one must be
 * ordered before v already; with more than RISKY_MAX such members x is
 * refused without looking.
 *
 * Whether x is done by t, and how many of its members are on a barrier
 * with a producer running at t, do not depend on v, and within one
 * decision time they only get worse: a use gains consumers and producers
 * (its ends grow), and a barrier whose current use has a producer running
 * is not done, so no new use replaces it before t moves on. Such a refusal
 * is kept in x->refused_at and answers every later request at t in O(1);
 * on a tight program most barriers are refused this way for most ops. The
 * count itself is kept (x->rk) until a barrier of x's consumers gets a
 * producer running or x gets a consumer (barrier_state.c, busy_now and
 * note_consumer), the only changes within a decision time that can raise
 * it. Otherwise O(barriers of x's consumers) once per use and such change,
 * plus O(members looked at), at most RISKY_MAX (the members of each entry
 * on a busy barrier are listed in it, a->cmem).
 */
static int followable(struct acs__balloc *a, int32_t x, int32_t v, int64_t t)
{
  struct acs_ba_use *u = &a->use[x];
  int32_t risky = 0;

  if (u->refused_at == t)
    return 0;
  if (acs__use_done(a, x) > t) {
    u->refused_at = t; /* a member has not ended */
    return 0;
  }
  if (u->ncons == 0) {
    int32_t b = u->barrier;
    if (a->bar_pend[b] <= t)
      return 1;
    for (int32_t m = u->prod; m >= 0; m = a->prod_next[m])
      if (m == v || !acs__ordered_before(a, m, v))
        return 0;
    return 1;
  }
  if (t < u->rk_until) {
    u->refused_at = t; /* still too many members on busy barriers */
    return 0;
  }
  if (u->rk_t == t) {
    risky = u->rk; /* counted for another op, and still so */
  } else if ((risky = u->rk_n >= 0 ? recount_risky(a, u, t) : count_risky(a, u, t)) >
             RISKY_MAX) {
    u->refused_at = t;
    return 0;
  }
  if (risky == 0)
    return 1;
  for (int32_t k = 0; k < u->rk_n; k++) { /* the entries on busy barriers */
    const struct acs_ba_cbar *c = &a->cbar[u->rk_e[k]];
    if (c->count == 1 && !acs__ordered_before(a, c->member, v))
      return 0;
  }
  if (!u->rk_several)
    return 1; /* each member on a busy barrier was looked at above */
  for (int32_t k = 0; k < u->rk_n; k++) { /* the entries of several members */
    const struct acs_ba_cbar *c = &a->cbar[u->rk_e[k]];
    for (int32_t j = c->count > 1 ? c->mhead : -1; j >= 0; j = a->cmem.next[j])
      if (!acs__ordered_before(a, a->cmem.a[j], v))
        return 0;
  }
  return 1;
}

/*
 * Edges that v needs to come after use x (the previous use of the barrier
 * it takes), or -1 when it cannot take it at t: a member that must precede
 * v has not ended, or its barrier's current use still has a producer
 * running (v would wait on it), or (joining `join`) it is a producer of the
 * use v would join. `marker`: v must find a direct predecessor in x. An
 * edge that makes v wait on a barrier it did not counts that barrier's
 * producers too (v comes after each of them). Without a join, the count
 * stops once it passes `bound` (a choice with more edges cannot win): the
 * result is then only known to be above it.
 */
static int64_t count_edges(struct acs__balloc *a, int32_t x, int32_t v, int32_t join, int marker,
                           int64_t bound);

static int64_t edges_after(struct acs__balloc *a, int32_t x, int32_t v, int64_t t,
                           int32_t join, int marker, int64_t bound)
{
  return x >= 0 && !followable(a, x, v, t) ? -1 : count_edges(a, x, v, join, marker, bound);
}

/* edges_after once x is known to be followable (or is none: no edges). */
static int64_t count_edges(struct acs__balloc *a, int32_t x, int32_t v, int32_t join, int marker,
                           int64_t bound)
{
  int64_t edges = 0;
  int bad = 0;

  if (x < 0)
    return 0;
  if (join >= 0)
    bound = INT64_MAX; /* a later member may still refuse the join */
  if (end_count(a, x) > EXACT_MAX && join < 0)
    return end_count(a, x);
  a->pstamp++;
  ACS__FOR_END(a, x, m, {
    if (bad || edges > bound || m == v || acs__reached_before(a, m, v))
      continue;
    int32_t b = a->use[a->use_of[m]].barrier, z = a->bar[b].cur;
    if (a->pull_mark[b] == a->pstamp)
      continue; /* v waits on b for another member already: ordered */
    if (join >= 0 && b == a->use[join].barrier)
      bad = 1; /* v would wait on the use it joins */
    a->pull_mark[b] = a->pstamp;
    edges += 1 + a->use[z].nprod;
  });
  if (bad)
    return -1;
  return edges + (marker && edges == 0 && !acs__has_direct_member(a, x));
}

/* The smallest key in h among ops other than v that have not started (that
 * op in *who, when who is not NULL). */
static int64_t first_waiting(struct acs__balloc *a, struct acs_heap *h, int32_t v, int32_t *who)
{
  int64_t key = INT64_MAX;
  struct acs_heap_item held = {0, -1};

  while (!acs_heap_empty(h)) {
    struct acs_heap_item top = acs_heap_peek(h);
    if (a->use_of[top.id] >= 0)
      acs_heap_pop(h); /* started since */
    else if (top.id == v && held.id < 0)
      held = acs_heap_pop(h);
    else {
      key = top.key;
      if (who)
        *who = top.id;
      break;
    }
  }
  if (held.id >= 0)
    acs_heap_push(h, held.key, held.id); /* room: it was just popped */
  return key;
}

static int64_t overrun(int64_t when, int64_t lst)
{
  return lst == INT64_MAX || when <= lst ? 0 : when - lst;
}

/* Held-back candidates looked at per barrier and heap, at most (held). */
#define HELD_MAX 16
/* The overrun a choice that splits v's class counts (hold_waiters): more
 * than any plan's, and far from overflowing when compared. */
#define SPLIT_OVER (INT64_MAX / 4)

/*
 * The ops of h (keyed by when they can start) that v's choice holds back
 * until `until`: those that can start before then, have not started, and
 * are neither v nor one of its successors (which wait for v anyway); with
 * `pending`, only those with a predecessor still to start (the others are
 * keyed by when they can start, in by_ready). Returns the smallest key
 * among them (INT64_MAX: none; that op in *who) and adds their number to
 * *n. With `split` (not NULL), sets it when one of them is a member of
 * v's consumer class that could start beside v now (ACS__BP_KEEP_CLASS).
 * A walk of the heap's nodes with keys below `until`, at most 2 HELD_MAX
 * of them, after dropping started ops from its top: O(HELD_MAX) plus the
 * drops.
 */
static int64_t held(struct acs__balloc *a, struct acs_heap *h, int32_t v, int64_t until,
                    int pending, int32_t *who, int32_t *n, int *split)
{
  size_t stack[2 * HELD_MAX + 2], sp = 0;
  int32_t seen = 0;
  int64_t key = INT64_MAX;

  while (!acs_heap_empty(h) && a->use_of[acs_heap_peek(h).id] >= 0)
    acs_heap_pop(h); /* started since */
  if (h->n > 0 && h->a[0].key < until)
    stack[sp++] = 0;
  /* Only nodes with keys below `until` are pushed (their subtrees are
   * all at or above it otherwise), in the order of their indices, and
   * each pushes at most two: at most 2 HELD_MAX + 1 on the stack. */
  while (sp > 0 && seen < 2 * HELD_MAX) {
    size_t i = stack[--sp];
    int32_t w = h->a[i].id;
    seen++;
    if (w != v && a->use_of[w] < 0 && a->succ_mark[w] != a->epoch &&
        (!pending || a->unstarted[w] > 0)) {
      (*n)++;
      if (split && h->a[i].key <= a->now && a->p->cls[w] >= 0 &&
          a->p->cls[w] == a->p->cls[v] && acs__sgs_fits_beside(a->g, v, w))
        *split = 1;
      if (h->a[i].key < key) {
        key = h->a[i].key;
        *who = w;
      }
    }
    if (2 * i + 1 < h->n && h->a[2 * i + 1].key < until)
      stack[sp++] = 2 * i + 1;
    if (2 * i + 2 < h->n && h->a[2 * i + 2].key < until)
      stack[sp++] = 2 * i + 2;
  }
  return key;
}

/*
 * What holding back every op other than v still to wait on barrier b
 * until `until` costs: the overrun of their latest starts, the delay of
 * their starts, and how many are held (ties). When an op can start is
 * known once its predecessors have all started: when the last of them ends
 * (by_ready). An op with
 * a predecessor still to start is counted at its planned start while that
 * lies ahead; once the sweep is past it, the plan says nothing about when
 * the op can start, and it is not counted: it waits for an op that has not
 * even started. Under ACS__BP_KEEP_CLASS, holding back a member of v's
 * class that could start beside v now counts as an overrun larger than
 * any plan (SPLIT_OVER): the choice is then made only when waiting has
 * no end.
 */
static void hold_waiters(struct acs__balloc *a, int32_t b, int32_t v, int64_t t, int64_t until,
                         struct acs_ba_choice *c)
{
  struct acs_heap *h = &a->bar[b].by_start;
  int32_t w = -1, w2 = -1;
  int64_t ready, planned, o, d, lst;
  int split = 0;

  if (a->by_plan) { /* every waiter at its planned start, every latest start */
    ready = first_waiting(a, h, v, NULL);
    o = overrun(until, first_waiting(a, &a->bar[b].by_lst, v, NULL));
    d = ready == INT64_MAX ? 0 : until - (ready > t ? ready : t);
    c->over = o > c->over ? o : c->over;
    c->delay = d > c->delay ? d : c->delay;
    return;
  }
  ready = held(a, &a->bar[b].by_ready, v, until, 0, &w, &c->nheld,
               a->keep_class ? &split : NULL);
  if (split)
    c->over = SPLIT_OVER;
  lst = ready == INT64_MAX ? INT64_MAX : first_waiting(a, &a->bar[b].by_lst, v, NULL);

  while (!acs_heap_empty(h) && acs_heap_peek(h).key < t)
    acs_heap_pop(h); /* in the past for good: t only grows */
  planned = held(a, h, v, until, 1, &w2, &c->nheld, NULL);
  if (planned < ready) {
    ready = planned;
    w = w2;
  }
  if (planned != INT64_MAX && a->p->lst[w2] < lst)
    lst = a->p->lst[w2];
  if (ready == INT64_MAX)
    return;
  o = overrun(until, lst);
  d = until - (ready > t ? ready : t);
  c->over = o > c->over ? o : c->over;
  if (d > c->delay) {
    c->delay = d;
    c->held = w;
  }
}

/* The earliest latest start among v's reduced successors. */
static int64_t succ_lst(const struct acs__balloc *a, int32_t v)
{
  int64_t m = INT64_MAX;

  for (int32_t k = a->p->rs_off[v]; k < a->p->rs_off[v + 1]; k++)
    if (a->p->lst[a->p->rs[k]] < m)
      m = a->p->lst[a->p->rs[k]];
  return m;
}

/* The use of v's class that v may join at t, or -1. */
static int32_t joinable_use(struct acs__balloc *a, int32_t v, int64_t t)
{
  int32_t cls = a->p->cls[v], y = cls >= 0 ? a->open_cls[cls] : a->open_sink;

  if (y < 0)
    return -1;
  const struct acs_ba_use *u = &a->use[y];
  /* Sinks join a sink use only while one of its producers runs, and up to
   * SINK_MAX_PROD of them: with no consumer, the next use of the barrier
   * follows each producer, so a sink use costs an edge per producer. */
  if (!u->joinable || a->bar[u->barrier].cur != y || a->bar_mark[u->barrier] == a->epoch ||
      (a->plimit > 0 && u->slots + acs_barrier_slot_demand(&a->s->ops[v]) > a->plimit) ||
      (cls < 0 && (u->prod_end <= t || u->nprod >= SINK_MAX_PROD)))
    return -1;
  return y;
}

static int tier(const struct acs_ba_choice *c);

/* Is choice c, a share or a steal, worse than best (of tier 3) whatever
 * edges it needs? Overrun, delay and ops held back rank before edges. */
static int costs_more(const struct acs_ba_choice *c, const struct acs_ba_choice *best)
{
  if (best->kind == ACS_BA_K_NONE || tier(best) != 3)
    return 0;
  if (c->over != best->over)
    return c->over > best->over;
  if (c->delay != best->delay)
    return c->delay > best->delay;
  return c->nheld > best->nheld;
}

/*
 * What pricing a steal or a share of b does to the heaps that held()
 * walks, without the pricing: drops the started ops from the top of
 * by_ready and by_start and the past entries of by_start, as hold_waiters
 * would. held() reads the heaps' layout (it walks their first nodes), so a
 * choice refused without its price leaves them as a priced one does, and
 * the choices stay those of pricing every one. By planned starts only the
 * smallest keys are read, which no layout changes. O(1) plus the entries
 * dropped.
 */
static void hold_tidy_drop(struct acs__balloc *a, int32_t b, int64_t t)
{
  struct acs_heap *h = &a->bar[b].by_ready;

  a->bar[b].tidy_t = t;
  a->bar[b].tidy_ver = a->ver + 1;
  while (!acs_heap_empty(h) && a->use_of[acs_heap_peek(h).id] >= 0)
    acs_heap_pop(h);
  h = &a->bar[b].by_start;
  while (!acs_heap_empty(h) && acs_heap_peek(h).key < t)
    acs_heap_pop(h);
  while (!acs_heap_empty(h) && a->use_of[acs_heap_peek(h).id] >= 0)
    acs_heap_pop(h);
}

static inline void hold_tidy(struct acs__balloc *a, int32_t b, int64_t t)
{
  if (!a->by_plan && (a->bar[b].tidy_t != t || a->bar[b].tidy_ver != a->ver + 1))
    hold_tidy_drop(a, b, t); /* else tidied at t, and no op has started since */
}

/*
 * May v share use x (open, of another class) on barrier b? Then every op to
 * wait on x also waits for v, and v's successors for every producer of x:
 * priced by how far that pushes them past their latest starts and planned
 * starts, and by the producer-consumer pairs it adds. v must not wait on x
 * itself, nor follow one of its producers directly (the reading rule would
 * see a new use). When it already costs more than `best` (may be NULL)
 * before its edges count, they are not counted: it cannot win (edges -1).
 */
static void price_share(struct acs__balloc *a, int32_t v, int64_t t, int32_t b,
                        const struct acs_ba_choice *best, struct acs_ba_choice *c)
{
  const struct acs_ba_use *x = &a->use[a->bar[b].cur];
  int64_t end = t + acs__sgs_dur(a->s, v), nsucc = a->p->rs_off[v + 1] - a->p->rs_off[v];

  c->edges = -1;
  if (a->bar_mark[b] == a->epoch || x->nprod >= SHARE_MAX_PROD ||
      a->bar[b].pending + nsucc > SHARE_MAX_CONS ||
      (a->plimit > 0 && x->slots + acs_barrier_slot_demand(&a->s->ops[v]) > a->plimit))
    return;
  for (int32_t m = x->prod; m >= 0; m = a->prod_next[m])
    if (a->pred_mark[m] == a->epoch)
      return;
  if (x->prev >= 0 && !followable(a, x->prev, v, t)) {
    hold_tidy(a, b, t); /* as pricing it would leave the heaps */
    return;
  }
  hold_waiters(a, b, v, t, end, c);
  if (x->prod_end > end) { /* v's successors wait for x's producers */
    int64_t o = overrun(x->prod_end, succ_lst(a, v));
    c->over = o > c->over ? o : c->over;
    c->delay = x->prod_end - end > c->delay ? x->prod_end - end : c->delay;
  }
  if (best && costs_more(c, best))
    return;
  c->edges = count_edges(a, x->prev, v, a->bar[b].cur, x->open_t == t, INT64_MAX);
  if (c->edges >= 0)
    c->edges += x->nprod * nsucc + a->bar[b].pending;
}

/* The most edges choice c may need to beat best (NULL: a reuse without
 * edges is wanted): best's edges when c costs what best does on every
 * other count (it costs less: no limit), else -1 (it costs more: it cannot
 * win). */
static int64_t edge_bound(const struct acs_ba_choice *c, const struct acs_ba_choice *best)
{
  if (!best)
    return 0;
  if (best->kind == ACS_BA_K_NONE || tier(best) != 3)
    return INT64_MAX;
  if (costs_more(c, best))
    return -1;
  return c->over == best->over && c->delay == best->delay && c->nheld == best->nheld
             ? best->edges
             : INT64_MAX;
}

/* Ops other than v registered on barrier b: v counts in pending when it
 * is one, so only a pending count of one needs v's registrations walked. */
static int32_t others_waiting(struct acs__balloc *a, int32_t v, int32_t b)
{
  int32_t pend = a->bar[b].pending;

  return pend == 1 ? 1 - acs__registered(a, v, b) : pend;
}

/*
 * Reuse or steal barrier b (its current use is done), to beat best (NULL:
 * only a reuse without edges is wanted). A refused take (edges < 0) is not
 * priced further, nor is one that cannot win (edges -1, or above what
 * could: edge_bound); the heaps are then tidied as pricing leaves them.
 */
static void price_take(struct acs__balloc *a, int32_t v, int64_t t, int32_t b,
                       const struct acs_ba_choice *best, struct acs_ba_choice *c)
{
  int32_t others = others_waiting(a, v, b), x = a->bar[b].cur;
  int64_t bound;

  *c = (struct acs_ba_choice){others > 0 ? ACS_BA_K_STEAL : ACS_BA_K_REUSE, b, -1, 0, 0, 0, -1, 0};
  if (x >= 0 && !followable(a, x, v, t)) {
    c->edges = -1;
  } else if (c->kind == ACS_BA_K_STEAL && best) {
    hold_waiters(a, b, v, t, t + acs__sgs_dur(a->s, v), c);
    bound = edge_bound(c, best);
    c->edges = bound < 0 ? -1 : count_edges(a, x, v, -1, 1, bound);
    return;
  } else {
    c->edges = count_edges(a, x, v, -1, 1, edge_bound(c, best));
  }
  if (c->kind == ACS_BA_K_STEAL)
    hold_tidy(a, b, t); /* it cannot be had or cannot win */
}

/* Is a take of b refused for any op at t, its use refused at t
 * (followable)? Then it leaves the heaps as price_take would and says so,
 * in O(1) plus the tidying, without pricing it. */
static int take_refused_at_t(struct acs__balloc *a, int32_t v, int64_t t, int32_t b)
{
  if (a->use[a->bar[b].cur].refused_at != t)
    return 0;
  if (others_waiting(a, v, b) > 0)
    hold_tidy(a, b, t); /* a steal */
  return 1;
}

/* ---- choosing ---- */

/* Choices that cost nothing: a join or a reuse without edges, a fresh
 * barrier (in this order); then the least overrun, the least delay, the
 * fewest edges, and joins and reuses before sharing and stealing. Ties go
 * to the candidate seen first. */
static int tier(const struct acs_ba_choice *c)
{
  if (c->kind == ACS_BA_K_FRESH)
    return 2;
  if (c->edges == 0 && c->over == 0 && c->delay == 0 && (c->kind == ACS_BA_K_JOIN || c->kind == ACS_BA_K_REUSE))
    return c->kind == ACS_BA_K_JOIN ? 0 : 1;
  return 3;
}

static int better(const struct acs_ba_choice *c, const struct acs_ba_choice *b)
{
  static const int rank[] = {[ACS_BA_K_NONE] = 9, [ACS_BA_K_JOIN] = 0, [ACS_BA_K_REUSE] = 1, [ACS_BA_K_SHARE] = 2,
                             [ACS_BA_K_STEAL] = 3, [ACS_BA_K_FRESH] = 4};

  if (tier(c) != tier(b))
    return tier(c) < tier(b);
  if (c->over != b->over)
    return c->over < b->over;
  if (c->delay != b->delay)
    return c->delay < b->delay;
  if (c->nheld != b->nheld)
    return c->nheld < b->nheld;
  if (c->edges != b->edges)
    return c->edges < b->edges;
  return rank[c->kind] < rank[b->kind];
}

static void consider(struct acs_ba_choice *best, const struct acs_ba_choice *c)
{
  if (c->edges >= 0 && (best->kind == ACS_BA_K_NONE || better(c, best)))
    *best = *c;
}

/* Is use u, current on its barrier and done, one v can reuse without
 * edges? Then it goes into *best. Each barrier is tried once per request.
 * Inline: most uses reuse_near offers are no longer current, and are
 * turned away by the first test. */
static inline int reuse_free(struct acs__balloc *a, int32_t v, int64_t t, int32_t u,
                             struct acs_ba_choice *best)
{
  int32_t b = a->use[u].barrier;
  struct acs_ba_choice c;

  if (a->bar[b].cur != u || a->try_mark[b] == a->epoch || acs__use_done(a, u) > t)
    return 0;
  a->try_mark[b] = a->epoch;
  if (others_waiting(a, v, b) > 0) {
    hold_tidy(a, b, t); /* a steal: as price_take would leave it */
    return 0;
  }
  price_take(a, v, t, b, NULL, &c);
  if (c.kind != ACS_BA_K_REUSE || c.edges != 0)
    return 0;
  *best = c;
  return 1;
}

/*
 * With a fresh barrier at hand, only a reuse without edges is better. Its
 * use must have a member among v's reduced predecessors (the reading rule
 * needs one), so only the uses they produce or consume are tried:
 * O(in-degree x waits), whatever the number of barriers.
 */
static void reuse_near(struct acs__balloc *a, int32_t v, int64_t t, struct acs_ba_choice *best)
{
  const struct acs__bprep *p = a->p;

  for (int32_t k = p->rp_off[v]; k < p->rp_off[v + 1]; k++) {
    int32_t m = p->rp[k];
    if (reuse_free(a, v, t, a->use_of[m], best))
      return;
    for (int32_t j = a->opcons_head[m]; j >= 0; j = a->opcons.next[j])
      if (reuse_free(a, v, t, a->opcons.a[j], best))
        return;
  }
}

/* A share that delays nobody replaces a fresh barrier in *best. */
static void share_free(struct acs__balloc *a, int32_t v, int64_t t, int32_t y,
                       struct acs_ba_choice *best)
{
  int32_t n = 0;

  for (int32_t b = a->ohead; b >= 0 && n < CANDIDATES; b = a->bar[b].onext) {
    struct acs_ba_choice c = {ACS_BA_K_SHARE, b, a->bar[b].cur, 0, 0, 0, -1, 0};
    if (c.use == y)
      continue;
    price_share(a, v, t, b, NULL, &c);
    n++;
    if (c.edges >= 0 && c.over == 0 && c.delay == 0 &&
        (best->kind == ACS_BA_K_FRESH || c.edges < best->edges))
      *best = c;
  }
}

/* The best barrier for v at t (kind ACS_BA_K_NONE: none can be had now).
 * O(CANDIDATES) candidates of each kind, each priced as the file comment
 * says, plus reuse_near's O(in-degree x uses consumed). */
static struct acs_ba_choice choose(struct acs__balloc *a, int32_t v, int64_t t)
{
  struct acs_ba_choice best = {ACS_BA_K_NONE, -1, -1, 0, 0, 0, -1, 0};
  int32_t y = joinable_use(a, v, t), n;

  if (y >= 0) {
    struct acs_ba_choice c = {ACS_BA_K_JOIN, a->use[y].barrier, y, 0, 0, 0, -1, 0};
    c.edges = edges_after(a, a->use[y].prev, v, t, y, a->use[y].open_t == t, INT64_MAX);
    /* The class's consumers wait for v anyway; ops left waiting on the
     * barrier by a steal wait for it too. */
    if (!a->by_plan)
      hold_waiters(a, c.bar, v, t, t + acs__sgs_dur(a->s, v), &c);
    consider(&best, &c);
    if (tier(&best) == 0)
      return best;
  }
  if (a->nbar < a->nb) {
    struct acs_ba_choice c = {ACS_BA_K_FRESH, a->nbar, -1, 0, 0, 0, -1, 0};
    reuse_near(a, v, t, &c);
    if (c.kind == ACS_BA_K_FRESH && a->policy == ACS__BP_SHARE)
      share_free(a, v, t, y, &c);
    consider(&best, &c);
    return best;
  }
  reuse_near(a, v, t, &best);
  if (tier(&best) <= 1)
    return best;
  /* When every barrier priced was refused for any op at this decision time
   * (followable) and no op has started since, the lists are the same and
   * so is the answer: the scan is skipped. */
  if (a->scan_t != t || a->scan_ver != a->ver) {
    int all = 1;
    for (int l = ACS_BA_L_FREE; l <= ACS_BA_L_STEAL; l++) {
      n = 0;
      for (int32_t b = a->tail[l]; b >= 0 && n < CANDIDATES && tier(&best) > 1; b = a->bar[b].prev) {
        struct acs_ba_choice c;
        if (take_refused_at_t(a, v, t, b)) {
          all = all && a->bar[b].pending != 1;
          n++;
          continue;
        }
        price_take(a, v, t, b, &best, &c);
        consider(&best, &c);
        /* refused for any op, and priced as a take of the same kind for
         * any op (so the heaps are as pricing it again leaves them) */
        all = all && c.edges < 0 && a->bar[b].pending != 1 &&
              a->use[a->bar[b].cur].refused_at == t;
        n++;
      }
    }
    if (all) {
      a->scan_t = t;
      a->scan_ver = a->ver;
    }
  }
  n = a->policy == ACS__BP_NOSHARE ? CANDIDATES : 0;
  for (int32_t b = a->ohead; b >= 0 && n < CANDIDATES && tier(&best) == 3; b = a->bar[b].onext) {
    struct acs_ba_choice c = {ACS_BA_K_SHARE, b, a->bar[b].cur, 0, 0, 0, -1, 0};
    if (c.use == y)
      continue;
    price_share(a, v, t, b, &best, &c);
    consider(&best, &c);
    n++;
  }
  return best;
}

/* ---- the hook ---- */

static int try_start(void *ctx, struct acs__sgs *g, int32_t v, int64_t t, int force,
                     int64_t *retry, int32_t *wake)
{
  struct acs__balloc *a = ctx;
  struct acs_ba_choice c;
  int32_t nw;
  int err;

  a->epoch++;
  a->anc_done = 0;
  a->g = g;
  if (a->st)
    a->st->attempts++;
  if ((nw = base_waits(a, v, t, retry, wake)) < 0) {
    if (a->st)
      a->st->blocked++;
    return 0; /* a use it must consume still has a producer running */
  }
  /* The barrier lists at t (base_waits reads none of them): most requests
   * on few barriers end above, and never need them. */
  if ((err = acs__bars_advance(a, t)) < 0)
    return err;
  acs__mark_preds(a, v);
  c = choose(a, v, t);
  if (c.kind == ACS_BA_K_NONE && !force) {
    if (a->st)
      a->st->starved++;
    return 0;
  }
  if (c.kind == ACS_BA_K_NONE)
    return ACS_EINVAL; /* forced with nothing to take: cannot happen */
  if ((c.over > 0 || c.delay > 0) && !force && a->policy != ACS__BP_TAKE) {
    /* Delay the op that costs least: v until a barrier completes, or the
     * ops the choice holds back. When it holds back an op that the plan
     * starts before v, waiting costs v nothing yet (that op goes first,
     * as in the plan; v asks again at the next decision time). */
    int64_t until = c.held >= 0 && a->s->ops[c.held].start < a->s->ops[v].start
                        ? t
                        : acs__bars_next_done(a);
    int64_t wait_over = until == INT64_MAX ? INT64_MAX : overrun(until, a->p->lst[v]);
    int64_t wait_delay = until == INT64_MAX ? INT64_MAX : until - t;
    if ((a->policy == ACS__BP_WAIT && until != INT64_MAX) || wait_over < c.over ||
        (wait_over == c.over && wait_delay <= c.delay)) {
      if (a->st)
        a->st->waited++;
      return 0;
    }
  }
  err = acs__commit(a, g, v, t, &c, nw);
  return err < 0 ? err : 1;
}

void acs__balloc_hooks(struct acs__balloc *a, struct acs__sgs_hooks *hk)
{
  hk->ctx = a;
  hk->try_start = try_start;
}
