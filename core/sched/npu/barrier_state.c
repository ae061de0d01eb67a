/*
 * barrier_state.c - the barrier allocator's bookkeeping: uses and their
 * members, the physical barriers sorted by what a new use can do with them,
 * paths between ops, and what starting an op with a chosen barrier adds
 * (edges, waits, registrations). The choices themselves and why the result
 * is correct: barrier.c.
 *
 * Physical barriers are kept so that no request looks at more than a few:
 * a barrier whose current use is not done yet sits in a heap keyed by when
 * it will be; once done it moves to the free list (nobody left to wait on
 * it) or the steal list (some op still will). Open uses are on a list of
 * their own. Every change is O(log k) for the k barriers in use, so the
 * work per op does not grow with the barrier count.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/bprog.h"
#include "core/sched/npu/barrier_alloc.h"

/* ---- containers ---- */

static int list_push(struct acs_ba_list *l, int32_t x, int32_t y, int32_t next)
{
  if ((size_t)l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 256;
    int32_t *p = realloc(l->a, cap * sizeof(*p));
    if (p)
      l->a = p;
    int32_t *q = realloc(l->b, cap * sizeof(*q));
    if (q)
      l->b = q;
    int32_t *r = realloc(l->next, cap * sizeof(*r));
    if (r)
      l->next = r;
    if (!p || !q || !r || l->n == INT32_MAX)
      return ACS_ENOMEM;
    l->cap = cap;
  }
  l->a[l->n] = x;
  l->b[l->n] = y;
  l->next[l->n] = next;
  return l->n++;
}

static void list_free(struct acs_ba_list *l)
{
  free(l->a), free(l->b), free(l->next);
}

/* ---- the physical barrier lists ---- */

static void unlink_done(struct acs__balloc *a, int32_t b)
{
  struct acs_ba_bar *x = &a->bar[b];

  if (x->list == ACS_BA_L_NONE)
    return;
  if (x->prev >= 0)
    a->bar[x->prev].next = x->next;
  else
    a->head[x->list] = x->next;
  if (x->next >= 0)
    a->bar[x->next].prev = x->prev;
  else
    a->tail[x->list] = x->prev;
  x->list = ACS_BA_L_NONE;
}

static void link_done(struct acs__balloc *a, int32_t b)
{
  struct acs_ba_bar *x = &a->bar[b];
  int l = x->pending > 0 ? ACS_BA_L_STEAL : ACS_BA_L_FREE;

  x->list = (int8_t)l;
  x->next = -1;
  x->prev = a->tail[l];
  if (x->prev >= 0)
    a->bar[x->prev].next = b;
  else
    a->head[l] = b;
  a->tail[l] = b;
}

static void set_open(struct acs__balloc *a, int32_t b, int open)
{
  struct acs_ba_bar *x = &a->bar[b];

  if (x->open == open)
    return;
  x->open = (uint8_t)open;
  if (open) {
    x->onext = -1;
    x->oprev = a->otail;
    if (x->oprev >= 0)
      a->bar[x->oprev].onext = b;
    else
      a->ohead = b;
    a->otail = b;
    return;
  }
  if (x->oprev >= 0)
    a->bar[x->oprev].onext = x->onext;
  else
    a->ohead = x->onext;
  if (x->onext >= 0)
    a->bar[x->onext].oprev = x->oprev;
  else
    a->otail = x->oprev;
}

/* Barrier b's current use changed: back into the heap until it is done. */
static int touch(struct acs__balloc *a, int32_t b)
{
  int64_t done = acs__use_done(a, a->bar[b].cur);

  unlink_done(a, b);
  set_open(a, b, a->use[a->bar[b].cur].joinable);
  if (done <= a->now) {
    link_done(a, b);
    return ACS_OK;
  }
  if (acs_heap_push(&a->busy, done, b) < 0 ||
      (a->bar[b].pending == 0 && acs_heap_push(&a->idle, done, b) < 0))
    return ACS_ENOMEM;
  return ACS_OK;
}

static int pending_add(struct acs__balloc *a, int32_t b, int32_t delta)
{
  struct acs_ba_bar *x = &a->bar[b];
  int was = x->pending > 0;

  x->pending += delta;
  if (was == (x->pending > 0))
    return ACS_OK;
  if (x->list != ACS_BA_L_NONE) {
    unlink_done(a, b);
    link_done(a, b);
  } else if (x->cur >= 0 && x->pending == 0 &&
             acs_heap_push(&a->idle, acs__use_done(a, x->cur), b) < 0) {
    return ACS_ENOMEM;
  }
  return ACS_OK;
}

int acs__bars_advance(struct acs__balloc *a, int64_t t)
{
  a->now = t;
  while (!acs_heap_empty(&a->busy) && acs_heap_peek(&a->busy).key <= t) {
    struct acs_heap_item it = acs_heap_pop(&a->busy);
    /* stale: the use changed since (a later entry stands for it) */
    if (a->bar[it.id].list == ACS_BA_L_NONE && acs__use_done(a, a->bar[it.id].cur) == it.key)
      link_done(a, it.id);
  }
  return ACS_OK;
}

int64_t acs__bars_next_done(struct acs__balloc *a)
{
  while (!acs_heap_empty(&a->idle)) {
    struct acs_heap_item it = acs_heap_peek(&a->idle);
    const struct acs_ba_bar *x = &a->bar[it.id];
    if (x->list == ACS_BA_L_NONE && x->pending == 0 && acs__use_done(a, x->cur) == it.key &&
        it.key > a->now)
      return it.key;
    acs_heap_pop(&a->idle);
  }
  return INT64_MAX;
}

/* ---- paths ---- */

/* Marks v's direct predecessors (the reduced edges and the added ones) and
 * its reduced successors. The allocator reads paths from the transitive
 * reduction only (barrier_prep.c), never from the edges as given: an
 * implied edge orders nothing its path does not, and the program must not
 * depend on whether a scheduler wrote such edges. */
void acs__mark_preds(struct acs__balloc *a, int32_t v)
{
  const struct acs__bprep *p = a->p;

  for (int32_t k = p->rs_off[v]; k < p->rs_off[v + 1]; k++)
    a->succ_mark[p->rs[k]] = a->epoch;
  for (int32_t k = p->rp_off[v]; k < p->rp_off[v + 1]; k++)
    a->pred_mark[p->rp[k]] = a->epoch;
  for (int32_t e = a->add_in[v]; e >= 0; e = a->add.next[e])
    a->pred_mark[a->add.a[e]] = a->epoch;
}

/*
 * Marks up to ACS_BA_ANC_BUDGET ancestors of v, nearest first (breadth-first over
 * the reduced edges and those added so far): a mark proves a path, so the edge it would replace
 * is implied. An unmarked op may still be an ancestor; then an edge is
 * added that was not needed, which costs nothing but an edge.
 *
 * The search only reads edges into v and its ancestors, which have all
 * started (v is asked once its predecessors have ended), and edges are
 * added only into the op that starts: so until edges into v are added
 * (when it starts) it finds the same ops at every request of v. An op
 * turned away is asked again and again, so the ops found are kept in a
 * small cache (a->anc_cache, ACS_BA_ANC_SLOTS slots by op id) and marked
 * again from there in O(ACS_BA_ANC_BUDGET). Once per request (a->anc_done,
 * acs__ordered_before).
 */
static void mark_ancestors(struct acs__balloc *a, int32_t v)
{
  const struct acs__bprep *p = a->p;
  int32_t head = 0, tail = 0, *slot = a->anc_cache + (size_t)(v % ACS_BA_ANC_SLOTS) *
                                                       (ACS_BA_ANC_BUDGET + 1);

  a->anc_done = 1;
  if (slot[0] == v && a->add_in[v] < 0) { /* no edge into v added yet (commit adds them) */
    for (int32_t k = 1; k < ACS_BA_ANC_BUDGET && slot[k] >= 0; k++)
      a->anc_mark[slot[k]] = a->epoch;
    return;
  }
  a->queue[tail++] = v;
  while (head < tail && tail < ACS_BA_ANC_BUDGET) {
    int32_t x = a->queue[head++];
    for (int32_t k = p->rp_off[x]; k < p->rp_off[x + 1] && tail < ACS_BA_ANC_BUDGET; k++)
      if (a->anc_mark[p->rp[k]] != a->epoch) {
        a->anc_mark[p->rp[k]] = a->epoch;
        a->queue[tail++] = p->rp[k];
      }
    for (int32_t e = a->add_in[x]; e >= 0 && tail < ACS_BA_ANC_BUDGET; e = a->add.next[e])
      if (a->anc_mark[a->add.a[e]] != a->epoch) {
        a->anc_mark[a->add.a[e]] = a->epoch;
        a->queue[tail++] = a->add.a[e];
      }
  }
  memcpy(slot, a->queue, (size_t)tail * sizeof(int32_t));
  if (tail < ACS_BA_ANC_BUDGET)
    slot[tail] = -1;
}

/* Does a path of edges lead from x to v? Yes when x is a direct
 * predecessor or a near ancestor; no proves nothing. */
int acs__ordered_before(struct acs__balloc *a, int32_t x, int32_t v)
{
  if (a->pred_mark[x] == a->epoch)
    return 1;
  if (!a->anc_done)
    mark_ancestors(a, v); /* once per request: every query of one is for v */
  return a->anc_mark[x] == a->epoch;
}

/* Or will one, once v starts? Also when v waits on x's barrier: v then
 * consumes that barrier's current use, after all its producers (consume),
 * and they come after x's own use (the reuse rule, kept for every use so
 * far). */
int acs__reached_before(struct acs__balloc *a, int32_t x, int32_t v)
{
  return a->bar_mark[a->use[a->use_of[x]].barrier] == a->epoch || acs__ordered_before(a, x, v);
}

int acs__has_direct_member(const struct acs__balloc *a, int32_t x)
{
  for (int32_t m = a->use[x].prod; m >= 0; m = a->prod_next[m])
    if (a->pred_mark[m] == a->epoch)
      return 1;
  for (int32_t k = a->use[x].cons; k >= 0; k = a->cons.next[k])
    if (a->pred_mark[a->cons.a[k]] == a->epoch)
      return 1;
  return 0;
}

/* Is b registered as a barrier v will wait on? */
int acs__registered(const struct acs__balloc *a, int32_t v, int32_t b)
{
  for (int32_t k = a->reg_head[v]; k >= 0; k = a->reg.next[k])
    if (a->reg.a[k] == b)
      return 1;
  return 0;
}

/* ---- starting an op ---- */

static int add_edge(struct acs__balloc *a, struct acs__sgs *g, int32_t src, int32_t v,
                    int64_t *count)
{
  int e = list_push(&a->add, src, v, a->add_in[v]);

  if (e < 0)
    return e;
  a->add_in[v] = e;
  a->pred_mark[src] = a->epoch;
  if (count)
    (*count)++;
  return acs__sgs_add_edge(g, src, v);
}

/* Edges from the end of use x to v (none when a path will order them), a
 * marker when the reading rule needs one; the barriers of their sources
 * join v's waits (wb, nw). */
static int edges_from_end(struct acs__balloc *a, struct acs__sgs *g, int32_t x, int32_t v,
                          int marker, int32_t *nw)
{
  int64_t *cnt = a->st ? &a->st->reuse_edges : NULL;
  int err = ACS_OK;

  if (x < 0)
    return ACS_OK;
  if (marker && !acs__has_direct_member(a, x)) {
    int any = 0;
    ACS__FOR_END(a, x, m, any |= m != v && !acs__reached_before(a, m, v));
    if (!any) /* every order is implied: one edge for the reading rule */
      return add_edge(a, g, a->use[x].prod, v, a->st ? &a->st->marker_edges : NULL);
  }
  ACS__FOR_END(a, x, m, {
    if (err == ACS_OK && m != v && !acs__reached_before(a, m, v)) {
      int32_t b = a->use[a->use_of[m]].barrier;
      err = add_edge(a, g, m, v, cnt);
      if (a->bar_mark[b] != a->epoch) {
        a->bar_mark[b] = a->epoch;
        a->wb[(*nw)++] = b;
      }
    }
  });
  return err;
}

/* v consumes the current use z of barrier b: edges from its producers that
 * no path orders before v (at least one direct, for the reading rule). */
static int consume(struct acs__balloc *a, struct acs__sgs *g, int32_t v, int64_t t, int32_t b,
                   int32_t z)
{
  struct acs_ba_use *u = &a->use[z];
  int64_t end = t + acs__sgs_dur(a->s, v);
  int direct = 0, err;

  for (int32_t m = u->prod; m >= 0; m = a->prod_next[m])
    direct |= a->pred_mark[m] == a->epoch;
  for (int32_t m = u->prod; m >= 0; m = a->prod_next[m])
    if (!acs__ordered_before(a, m, v) || (!direct && m == u->prod)) {
      if ((err = add_edge(a, g, m, v, a->st ? &a->st->coproducer_edges : NULL)) < 0)
        return err;
      direct = 1;
    }
  if ((err = list_push(&a->cons, v, 0, u->cons)) < 0)
    return err;
  u->cons = err;
  u->ncons++;
  u->joinable = 0;
  if (end > u->cons_end)
    u->cons_end = end;
  if ((err = list_push(&a->opcons, z, 0, a->opcons_head[v])) < 0)
    return err;
  a->opcons_head[v] = err;
  if ((err = list_push(&a->waits, v, b, -1)) < 0)
    return err;
  return a->bar[b].cur == z ? touch(a, b) : ACS_OK;
}

/* v's reduced successors will wait on barrier b. */
static int register_succ(struct acs__balloc *a, int32_t v, int32_t b)
{
  const struct acs__bprep *p = a->p;
  int err;

  for (int32_t k = p->rs_off[v]; k < p->rs_off[v + 1]; k++) {
    int32_t u = p->rs[k];
    if (a->use_of[u] >= 0 || acs__registered(a, u, b))
      continue;
    if ((err = list_push(&a->reg, b, 0, a->reg_head[u])) < 0)
      return err;
    a->reg_head[u] = err;
    if ((err = pending_add(a, b, 1)) < 0)
      return err;
    if (acs_heap_push(&a->bar[b].by_start, a->s->ops[u].start, u) < 0 ||
        (a->by_plan && acs_heap_push(&a->bar[b].by_lst, p->lst[u], u) < 0))
      return ACS_ENOMEM;
  }
  return ACS_OK;
}

/* v has started: its successors whose predecessors have now all started
 * can start once those end, so they count as about to wait on each barrier
 * they are registered on (what holding such a barrier back costs,
 * barrier.c). Every registration of an op comes from one of its reduced
 * predecessors, so it is made before its last predecessor starts.
 *
 * Only reduced edges count (a->unstarted counts reduced predecessors): a
 * predecessor u of w whose edge is implied reaches w through a reduced
 * predecessor x, which starts only after u has ended. So w's reduced
 * predecessors have all started exactly when all of them have, and the
 * latest end among them is the latest among all; on fine-grained
 * schedules nine edges in ten are implied (barrier_prep.c), and their
 * ends are not touched (rs_g lists only the reduced edges). The edges are
 * taken in the schedule's order, which decides the order of the pushes
 * below, and so how the waiters' heaps are laid out for held() (barrier.c). */
static int note_started(struct acs__balloc *a, int32_t v)
{
  const struct acs__bprep *p = a->p;

  for (int32_t k = p->rs_off[v]; k < p->rs_off[v + 1]; k++) {
    int32_t w = p->rs_g[k];
    if (a->end[v] > a->ready_at[w])
      a->ready_at[w] = a->end[v];
    if (--a->unstarted[w] != 0 || a->by_plan)
      continue;
    for (int32_t r = a->reg_head[w]; r >= 0; r = a->reg.next[r]) {
      struct acs_ba_bar *x = &a->bar[a->reg.a[r]];
      if (acs_heap_push(&x->by_ready, a->ready_at[w], w) < 0 ||
          acs_heap_push(&x->by_lst, a->p->lst[w], w) < 0)
        return ACS_ENOMEM;
    }
  }
  return ACS_OK;
}

/* Use z can no longer be priced (followable, barrier.c, prices a
 * barrier's current use and the one before it; the current use only moves
 * on): its entries are dead, and busy_now drops them. O(its entries), once. */
static void retire(struct acs__balloc *a, int32_t z)
{
  for (int32_t e = a->use[z].cbar; e >= 0; e = a->cbar[e].next)
    a->cbar[e].dead = 1;
}

/* Opens a new use on c->bar for v after its current use; returns it. */
static int open_use(struct acs__balloc *a, int32_t v, int64_t t, const struct acs_ba_choice *c)
{
  int32_t cls = a->p->cls[v], b = c->bar, y;

  if (c->kind == ACS_BA_K_FRESH) {
    a->nbar++;
    a->bar[b].cur = -1;
  }
  if ((size_t)a->nuse == a->ucap) {
    size_t cap = a->ucap ? 2 * a->ucap : 256;
    struct acs_ba_use *u = realloc(a->use, cap * sizeof(*u));
    if (!u)
      return ACS_ENOMEM;
    a->use = u;
    a->ucap = cap;
  }
  if (a->bar[b].cur >= 0 && a->use[a->bar[b].cur].prev >= 0)
    retire(a, a->use[a->bar[b].cur].prev);
  y = a->nuse++;
  a->use[y] = (struct acs_ba_use){b, a->bar[b].cur, -1, 0, -1, 0, t, 0, t, -1, t, -1, 1, -1, -1, -1,
                                  0, 0, -1, {0}};
  /* By planned starts alone, a use that took its barrier from waiters
   * takes no other producer: joining it is not priced. */
  a->use[y].joinable = !a->by_plan || c->kind != ACS_BA_K_STEAL;
  a->bar[b].cur = y;
  a->bar_pend[b] = t;
  if (cls >= 0)
    a->open_cls[cls] = y;
  else
    a->open_sink = y;
  if (a->st) {
    a->st->uses++;
    a->st->reuses += c->kind == ACS_BA_K_REUSE;
    a->st->steals += c->kind == ACS_BA_K_STEAL;
  }
  return y;
}

/* The uses v consumes are the current ones before v opens its own: first
 * those of its predecessors (their producers then precede v, which can
 * make edges from the previous use unnecessary), then those the edges from
 * the previous use bring. */
static int consume_all(struct acs__balloc *a, struct acs__sgs *g, int32_t v, int64_t t,
                       int32_t from, int32_t nw)
{
  int err;

  for (int32_t k = from; k < nw; k++)
    a->wz[k] = a->bar[a->wb[k]].cur;
  for (int32_t k = from; k < nw; k++)
    if ((err = consume(a, g, v, t, a->wb[k], a->wz[k])) < 0)
      return err;
  return ACS_OK;
}

/*
 * Entry e of use z's consumer barriers has a producer running now: z's
 * count is stale, and e joins the entries kept for recounting it
 * (barrier.c, count_risky), so that they stay a superset of those with a
 * producer running; when more than ACS_BA_RISKY_MAX would be kept, none
 * is, and z is counted in full again. O(ACS_BA_RISKY_MAX).
 */
static void keep_busy(struct acs__balloc *a, int32_t z, int32_t e)
{
  struct acs_ba_use *u = &a->use[z];
  int32_t n = 0;

  u->rk_t = -1;
  if (u->rk_n < 0)
    return;
  for (int32_t k = 0; k < u->rk_n; k++) {
    if (u->rk_e[k] == e)
      return;
    if (a->bar_pend[a->cbar[u->rk_e[k]].bar] > a->now)
      u->rk_e[n++] = u->rk_e[k]; /* the others no longer count */
  }
  u->rk_n = (int8_t)n;
  if (n == ACS_BA_RISKY_MAX)
    u->rk_n = -1;
  else
    u->rk_e[u->rk_n++] = e;
}

/* Barrier b got a producer running at the current decision time: the
 * uses whose consumers update it count one more consumer on a busy
 * barrier (keep_busy). O(entries listed), those of uses no request can
 * price any more (dead, retire) dropped for good. */
static void busy_now(struct acs__balloc *a, int32_t b)
{
  struct acs_ba_bar *x = &a->bar[b];
  int32_t k = 0;

  while (k < x->nrev) {
    int32_t e = x->rev[k];
    if (a->cbar[e].dead) {
      x->rev[k] = x->rev[--x->nrev];
      continue;
    }
    keep_busy(a, a->cbar[e].use, e);
    k++;
  }
}

static int rev_push(struct acs_ba_bar *x, int32_t z)
{
  if (x->nrev == x->caprev) {
    int32_t cap = x->caprev ? 2 * x->caprev : 4, *r = realloc(x->rev, (size_t)cap * sizeof(*r));
    if (!r)
      return ACS_ENOMEM;
    x->rev = r;
    x->caprev = cap;
  }
  x->rev[x->nrev++] = z;
  return ACS_OK;
}

/* Where entry (z, b) of a->cbar is, or would go, in a->chash: open
 * addressing, linear probing, at most half full. */
static size_t cbar_slot(const struct acs__balloc *a, int32_t z, int32_t b)
{
  uint64_t k = ((uint64_t)(uint32_t)z << 32 | (uint32_t)b) * 0x9E3779B97F4A7C15u;

  return (size_t)(k >> 32) & (a->chash_cap - 1);
}

static int cbar_rehash(struct acs__balloc *a)
{
  size_t cap = a->chash_cap ? 2 * a->chash_cap : 1024;
  int32_t *t = malloc(cap * sizeof(*t));

  if (!t)
    return ACS_ENOMEM;
  for (size_t k = 0; k < cap; k++)
    t[k] = -1;
  free(a->chash);
  a->chash = t;
  a->chash_cap = cap;
  for (int32_t e = 0; e < a->ncbar; e++) {
    size_t h = cbar_slot(a, a->cbar[e].use, a->cbar[e].bar);
    while (t[h] >= 0)
      h = (h + 1) & (cap - 1);
    t[h] = e;
  }
  return ACS_OK;
}

/* v, a consumer of use z, updates barrier b: counted in z's consumer
 * barriers (what the reuse of z's barrier must check, barrier.c). */
static int note_consumer(struct acs__balloc *a, int32_t z, int32_t b, int32_t v)
{
  int32_t e = -1, m;
  size_t h;

  a->use[z].rk_t = -1; /* its count may change */
  for (h = cbar_slot(a, z, b); (e = a->chash[h]) >= 0; h = (h + 1) & (a->chash_cap - 1))
    if (a->cbar[e].use == z && a->cbar[e].bar == b) {
      if ((m = list_push(&a->cmem, v, 0, a->cbar[e].mhead)) < 0)
        return m;
      a->cbar[e].mhead = m;
      a->cbar[e].count++;
      if (a->bar_pend[b] > a->now)
        keep_busy(a, z, e);
      return ACS_OK;
    }
  if ((size_t)a->ncbar == a->cbar_cap) {
    size_t cap = a->cbar_cap ? 2 * a->cbar_cap : 256;
    struct acs_ba_cbar *c = realloc(a->cbar, cap * sizeof(*c));
    if (!c || a->ncbar == INT32_MAX)
      return ACS_ENOMEM;
    a->cbar = c;
    a->cbar_cap = cap;
  }
  if ((m = list_push(&a->cmem, v, 0, -1)) < 0)
    return m;
  e = a->ncbar++;
  a->cbar[e] = (struct acs_ba_cbar){b, 1, a->use[z].cbar, v, z, 0, m};
  a->use[z].cbar = e;
  a->chash[h] = e;
  if (2 * (size_t)a->ncbar > a->chash_cap && cbar_rehash(a) < 0)
    return ACS_ENOMEM;
  if (a->bar_pend[b] > a->now)
    keep_busy(a, z, e);
  return rev_push(&a->bar[b], e);
}

static void count_refused(struct acs__balloc *a, int32_t v, int join)
{
  int32_t cls = a->p->cls[v], y = cls >= 0 ? a->open_cls[cls] : -1;

  if (a->st && !join && y >= 0 && a->use[y].joinable && a->bar[a->use[y].barrier].cur == y)
    a->st->refused_joins++;
}

int acs__commit(struct acs__balloc *a, struct acs__sgs *g, int32_t v, int64_t t,
                const struct acs_ba_choice *c, int32_t nw)
{
  int join = c->kind == ACS_BA_K_JOIN || c->kind == ACS_BA_K_SHARE;
  int32_t prev = join ? a->use[c->use].prev : c->kind == ACS_BA_K_FRESH ? -1 : a->bar[c->bar].cur;
  int marker = !join || a->use[c->use].open_t == t;
  int32_t y = c->use, nw0 = nw;
  int err;

  a->ver++;
  if ((err = consume_all(a, g, v, t, 0, nw)) < 0 ||
      (err = edges_from_end(a, g, prev, v, marker, &nw)) < 0 ||
      (err = consume_all(a, g, v, t, nw0, nw)) < 0)
    return err;
  for (int32_t k = a->reg_head[v]; k >= 0; k = a->reg.next[k])
    if ((err = pending_add(a, a->reg.a[k], -1)) < 0)
      return err;
  count_refused(a, v, join);
  if (!join && (y = open_use(a, v, t, c)) < 0)
    return y;
  if (a->st) {
    a->st->joins += c->kind == ACS_BA_K_JOIN;
    a->st->shares += c->kind == ACS_BA_K_SHARE;
  }
  a->use_of[v] = y;
  a->end[v] = t + acs__sgs_dur(a->s, v);
  a->prod_next[v] = a->use[y].prod;
  a->use[y].prod = v;
  a->use[y].nprod++;
  a->use[y].slots += acs_barrier_slot_demand(&a->s->ops[v]);
  if (a->end[v] > a->use[y].prod_end) {
    a->use[y].prod_end = a->end[v];
    a->use[y].last = v;
  }
  if (a->bar_pend[a->use[y].barrier] <= t && a->use[y].prod_end > t)
    busy_now(a, a->use[y].barrier);
  a->bar_pend[a->use[y].barrier] = a->use[y].prod_end; /* y is its barrier's current use */
  if ((err = touch(a, a->use[y].barrier)) < 0)
    return err;
  for (int32_t k = 0; k < nw; k++)
    if ((err = note_consumer(a, a->wz[k], a->use[y].barrier, v)) < 0)
      return err;
  if ((err = register_succ(a, v, a->use[y].barrier)) < 0)
    return err;
  return note_started(a, v);
}

/* ---- setup and output ---- */

int acs__balloc_init(struct acs__balloc **out, const struct acs_schedule *s,
                     const struct acs__bprep *p, int policy, struct acs_barrier_stats *st)
{
  struct acs__balloc *a = calloc(1, sizeof(*a));
  size_t n = (size_t)s->nops + 1, nb;

  if (!(*out = a))
    return ACS_ENOMEM;
  a->s = s;
  a->p = p;
  a->st = st;
  a->n = s->nops;
  a->nb = s->barriers;
  a->plimit = s->barrier_slots > 0 ? s->barrier_slots : 0;
  a->policy = policy & ~(ACS__BP_BY_PLAN | ACS__BP_KEEP_CLASS);
  a->by_plan = (policy & ACS__BP_BY_PLAN) != 0;
  a->keep_class = !a->by_plan && (policy & ACS__BP_KEEP_CLASS) != 0;
  a->open_sink = a->ohead = a->otail = -1;
  a->now = -1;
  a->scan_t = -1;
  for (int l = 0; l < 3; l++)
    a->head[l] = a->tail[l] = -1;
  /* Never more barriers than ops: each use has one. */
  nb = (size_t)(s->barriers < s->nops ? s->barriers : s->nops) + 1;
  a->bar = calloc(nb, sizeof(*a->bar));
  a->use_of = malloc(n * sizeof(int32_t));
  a->prod_next = malloc(n * sizeof(int32_t));
  a->pbar = malloc(((size_t)p->reduced + 1) * sizeof(int32_t));
  a->npbar = malloc(n * sizeof(int32_t));
  a->open_cls = malloc(((size_t)p->ncls + 1) * sizeof(int32_t));
  a->end = calloc(n, sizeof(int64_t));
  a->unstarted = malloc(n * sizeof(int32_t));
  a->ready_at = calloc(n, sizeof(int64_t));
  a->reg_head = malloc(n * sizeof(int32_t));
  a->add_in = malloc(n * sizeof(int32_t));
  a->opcons_head = malloc(n * sizeof(int32_t));
  a->pred_mark = calloc(n, sizeof(int32_t));
  a->anc_mark = calloc(n, sizeof(int32_t));
  a->bar_mark = calloc(nb, sizeof(int32_t));
  a->bar_pend = calloc(nb, sizeof(int64_t));
  a->pull_mark = calloc(nb, sizeof(int32_t));
  a->succ_mark = calloc(n, sizeof(int32_t));
  a->try_mark = calloc(nb, sizeof(int32_t));
  a->queue = malloc((ACS_BA_ANC_BUDGET + 1) * sizeof(int32_t));
  a->anc_cache = malloc((size_t)ACS_BA_ANC_SLOTS * (ACS_BA_ANC_BUDGET + 1) * sizeof(int32_t));
  if (cbar_rehash(a) < 0)
    return ACS_ENOMEM;
  a->wb = malloc(n * sizeof(int32_t));
  a->wz = malloc(n * sizeof(int32_t));
  if (!a->bar || !a->use_of || !a->prod_next || !a->pbar || !a->npbar || !a->open_cls || !a->end || !a->unstarted ||
      !a->ready_at || !a->reg_head ||
      !a->add_in || !a->opcons_head || !a->pred_mark || !a->anc_mark || !a->bar_mark || !a->bar_pend ||
      !a->pull_mark || !a->succ_mark || !a->try_mark || !a->queue || !a->anc_cache || !a->wb ||
      !a->wz ||
      acs_heap_init(&a->busy, 64) < 0 || acs_heap_init(&a->idle, 64) < 0)
    return ACS_ENOMEM;
  for (size_t b = 0; b + 1 < nb; b++) {
    a->bar[b].cur = -1;
    if (acs_heap_init(&a->bar[b].by_ready, 4) < 0 || acs_heap_init(&a->bar[b].by_lst, 4) < 0 ||
        acs_heap_init(&a->bar[b].by_start, 4) < 0)
      return ACS_ENOMEM;
  }
  for (int32_t v = 0; v < a->n; v++) {
    a->use_of[v] = a->prod_next[v] = a->reg_head[v] = a->add_in[v] = a->opcons_head[v] = -1;
    a->npbar[v] = -1;
    a->unstarted[v] = p->rp_off[v + 1] - p->rp_off[v];
  }
  for (int32_t c = 0; c < p->ncls; c++)
    a->open_cls[c] = -1;
  for (int32_t k = 0; k < ACS_BA_ANC_SLOTS; k++)
    a->anc_cache[(size_t)k * (ACS_BA_ANC_BUDGET + 1)] = -1;
  return ACS_OK;
}

void acs__balloc_destroy(struct acs__balloc *a)
{
  if (!a)
    return;
  for (int32_t b = 0; a->bar && b < (a->nb < a->n ? a->nb : a->n); b++) {
    acs_heap_destroy(&a->bar[b].by_ready);
    acs_heap_destroy(&a->bar[b].by_lst);
    acs_heap_destroy(&a->bar[b].by_start);
    free(a->bar[b].rev);
  }
  acs_heap_destroy(&a->busy);
  acs_heap_destroy(&a->idle);
  free(a->bar), free(a->use), free(a->use_of), free(a->prod_next), free(a->open_cls);
  free(a->pbar), free(a->npbar);
  free(a->end), free(a->unstarted), free(a->ready_at), free(a->reg_head), free(a->add_in), free(a->opcons_head);
  free(a->pred_mark), free(a->anc_mark), free(a->bar_mark), free(a->bar_pend), free(a->pull_mark);
  free(a->try_mark), free(a->succ_mark), free(a->queue), free(a->anc_cache), free(a->wb);
  free(a->wz);
  list_free(&a->cons), list_free(&a->reg), list_free(&a->add), list_free(&a->waits);
  list_free(&a->opcons), list_free(&a->cmem);
  free(a->cbar), free(a->chash);
  free(a);
}

int acs__balloc_emit(const struct acs__balloc *a, struct acs_schedule *s)
{
  int err;

  s->nwaits = 0;
  for (int32_t v = 0; v < a->n; v++)
    s->ops[v].update_barrier = a->use[a->use_of[v]].barrier;
  for (int32_t k = 0; k < a->waits.n; k++)
    if ((err = acs_schedule_add_wait(s, a->waits.a[k], a->waits.b[k])) < 0)
      return err;
  for (int32_t k = 0; k < a->add.n; k++)
    if ((err = acs_schedule_add_edge(s, a->add.a[k], a->add.b[k], ACS_EDGE_CONTROL)) < 0)
      return err;
  if (a->st)
    a->st->barriers_used = a->nbar;
  return ACS_OK;
}
