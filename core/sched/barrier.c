/*
 * barrier.c - barrier programs for b hardware barriers of p producer slots
 * (seed 000: "Scheduling with Barrier Resource Constraints", "An Algorithm
 * to Solve Concurrency Control Problem", GenerateMaximumIndependentSetEdges,
 * "Barrier Slots and Wait Lists"). The hardware model and the rule that
 * reads a program back are in core/model/bprog.h.
 *
 * Which ops hold a barrier: every op. The seed gives one to every op with an
 * outgoing edge, because a barrier is the only way an op tells its
 * successors it has ended. Two more kinds need one: a sink, because the
 * runtime learns that the network has finished only through barriers, and
 * any op that consumes a use of a barrier that is reprogrammed later: the
 * next producers of that barrier must know that it has started, so it gains
 * a successor while the program is built. Giving every op its barrier up
 * front keeps the construction one pass. Sync ops are lowered to a
 * zero-length task, as hardware without a join primitive does.
 *
 * Construction. The seed runs a unit-delay list schedule over the barrier
 * resource (each op takes one step; an op is ready when its predecessors
 * started at earlier steps) and then GenerateMaximumIndependentSetEdges.
 * Both orders are here (enum acs_barrier_mode): the seed's steps, and the
 * plan's own order (a topological order by planned start), which is what
 * makes the result cheap on real plans: the unit-delay steps start every
 * ready op at once whatever the PEs, so uses live far longer than in the
 * plan (resnet18 with `list` and 16 barriers: +15% makespan in steps, +0%
 * in plan order). In either order each op p gets a physical barrier as one
 * of: a fresh barrier; a reuse of barrier B (whose current use is X); or a
 * join of B's current use as one more producer (the seed's producer slots:
 * the slots must allow it, nobody may have consumed the use yet, p must not
 * follow one of its producers, and a use takes at most JOIN_MAX producers).
 * The cheapest choice wins: fewest cycles by which the plan contradicts the
 * edges it adds (plan order), then fewest added edges, then reuse, fresh,
 * join, then the lowest barrier.
 *
 * Edges. Reusing B for p adds the seed's edges and those it misses:
 *  - every consumer of X that has started -> p; when X has no consumer,
 *    every producer of X -> p (the seed's lastOp[B] -> p).
 * A joiner gets the same edges from the consumers of the use its use
 * replaced. And when an op v starts it consumes, for every barrier that a
 * direct predecessor updates (W(v) = {U(w) | (w, v) an edge}, the seed's
 * wait list), that barrier's *current* use, and every producer of that use
 * that is not yet a predecessor of v gets an edge to it (v waits for all of
 * them). An op that was waiting for an older use of B when B was reused
 * thus waits for the newer one, which comes after the older one: no edge is
 * needed for it until it starts.
 *
 * Why the hardware rule holds (a barrier is reprogrammed only after every
 * consumer of its previous use has started waiting on it) in every
 * execution that respects the edges, not only in the plan: the consumers of
 * X are exactly the ops that started while X was B's current use. Each of
 * them either precedes p by an edge (so it has ended, hence started, before
 * p starts), or is p itself (it starts, completing X, before it ends and
 * updates B). A joiner has the same edges, and joining is refused when the
 * opener itself consumed X (the joiner could otherwise finish before the
 * opener has started). Every producer of X precedes p (through a consumer
 * of X, or directly). So the uses of one barrier follow each other in every
 * execution and, as every op updates one of b barriers, at most b uses are
 * live at once (Theorem-1 applied to uses; with one-slot barriers a use is
 * one op, so any antichain of ops has at most b of them).
 *
 * Deadlock freedom: every added edge goes from an op taken earlier to the
 * op being taken (in unit-delay steps, from an earlier step: an op whose
 * barrier got a new use in its own step waits a step), so the final graph
 * is acyclic and the plan re-timed on it is an execution of the program.
 * Progress: reuse is always possible in plan order, and at the start of
 * every step in unit-delay order.
 *
 * Where the seed's construction falls short (tested in test-barrier.c):
 * its edges lastOp[B] -> v order the producers of one barrier, but not the
 * consumers of a use before the next producer, so a consumer still waiting
 * on a use can be overtaken by its reprogramming; with producer slots its
 * lastOp chain would also serialize the producers that share a use.
 *
 * Cost: O((V + E) log V) for the orders and heaps plus, per op, O(b)
 * candidate barriers each priced in O(producers + consumers) of its current
 * use (bounded by JOIN_MAX producers); memory O(V + E + added edges).
 * Re-timing: barrier_retime.c; the choice among constructions:
 * barrier_search.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/bprog.h"
#include "core/sched/barrier.h"
#include "core/sched/heap.h"

/* ---- the graph, with the edges added so far ---- */

struct dyn {
  int32_t n;
  int32_t *in_off, *in, *out_off, *out;   /* the schedule's edges, CSR */
  int32_t nadd;
  size_t cap;
  int32_t *asrc, *adst, *anext_out, *anext_in;
  int32_t *head_out, *head_in;            /* added edges, linked by op */
};

/* Calls `body` with x bound to each direct predecessor (or successor) of v. */
#define FOR_PRED(g, v, x, body)                                                   \
  do {                                                                            \
    for (int32_t k_ = (g)->in_off[v]; k_ < (g)->in_off[(v) + 1]; k_++) {          \
      int32_t x = (g)->in[k_];                                                    \
      body;                                                                       \
    }                                                                             \
    for (int32_t e_ = (g)->head_in[v]; e_ >= 0; e_ = (g)->anext_in[e_]) {         \
      int32_t x = (g)->asrc[e_];                                                  \
      body;                                                                       \
    }                                                                             \
  } while (0)
#define FOR_SUCC(g, v, x, body)                                                   \
  do {                                                                            \
    for (int32_t k_ = (g)->out_off[v]; k_ < (g)->out_off[(v) + 1]; k_++) {        \
      int32_t x = (g)->out[k_];                                                   \
      body;                                                                       \
    }                                                                             \
    for (int32_t e_ = (g)->head_out[v]; e_ >= 0; e_ = (g)->anext_out[e_]) {       \
      int32_t x = (g)->adst[e_];                                                  \
      body;                                                                       \
    }                                                                             \
  } while (0)

static int dyn_init(struct dyn *g, const struct acs_schedule *s)
{
  int32_t n = s->nops, m = s->nedges;

  memset(g, 0, sizeof(*g));
  g->n = n;
  g->in_off = calloc((size_t)n + 2, sizeof(int32_t));
  g->out_off = calloc((size_t)n + 2, sizeof(int32_t));
  g->in = malloc(((size_t)m + 1) * sizeof(int32_t));
  g->out = malloc(((size_t)m + 1) * sizeof(int32_t));
  g->head_in = malloc(((size_t)n + 1) * sizeof(int32_t));
  g->head_out = malloc(((size_t)n + 1) * sizeof(int32_t));
  if (!g->in_off || !g->out_off || !g->in || !g->out || !g->head_in || !g->head_out)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < m; e++) {
    g->in_off[s->edges[e].dst + 2]++;
    g->out_off[s->edges[e].src + 2]++;
  }
  for (int32_t v = 0; v < n; v++) {
    g->in_off[v + 2] += g->in_off[v + 1];
    g->out_off[v + 2] += g->out_off[v + 1];
    g->head_in[v] = g->head_out[v] = -1;
  }
  for (int32_t e = 0; e < m; e++) {
    g->in[g->in_off[s->edges[e].dst + 1]++] = s->edges[e].src;
    g->out[g->out_off[s->edges[e].src + 1]++] = s->edges[e].dst;
  }
  return ACS_OK;
}

static void dyn_free(struct dyn *g)
{
  free(g->in_off), free(g->in), free(g->out_off), free(g->out);
  free(g->asrc), free(g->adst), free(g->anext_out), free(g->anext_in);
  free(g->head_out), free(g->head_in);
}

static int dyn_add(struct dyn *g, int32_t u, int32_t v)
{
  if ((size_t)g->nadd == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 256;
    int32_t *a = realloc(g->asrc, cap * sizeof(*a));
    if (a)
      g->asrc = a;
    int32_t *b = realloc(g->adst, cap * sizeof(*b));
    if (b)
      g->adst = b;
    int32_t *c = realloc(g->anext_out, cap * sizeof(*c));
    if (c)
      g->anext_out = c;
    int32_t *e = realloc(g->anext_in, cap * sizeof(*e));
    if (e)
      g->anext_in = e;
    if (!a || !b || !c || !e || g->nadd == INT32_MAX)
      return ACS_ENOMEM;
    g->cap = cap;
  }
  g->asrc[g->nadd] = u;
  g->adst[g->nadd] = v;
  g->anext_out[g->nadd] = g->head_out[u];
  g->anext_in[g->nadd] = g->head_in[v];
  g->head_out[u] = g->head_in[v] = g->nadd++;
  return ACS_OK;
}

/* ---- the barrier list schedule ---- */

struct use {
  int32_t barrier, prev;     /* physical barrier; previous use of it, -1 */
  int32_t step;              /* step (or position, in plan order) it was opened at */
  int32_t prod;              /* producers: linked through st->prod_next */
  int32_t cons;              /* started consumers: linked through st->cons_* */
  int32_t nprod;
  int64_t slots;             /* slot demand of its producers */
  int64_t maxend;            /* latest planned end of its producers */
  uint8_t joinable;          /* other ops may join it as producers */
};

struct st {
  struct acs_schedule *s;
  struct acs_barrier_stats *stats;
  const volatile sig_atomic_t *interrupted; /* polled at every op; may be NULL */
  struct dyn g;
  int mode;                  /* enum acs_barrier_mode */
  int32_t n, nb;
  int64_t plimit;            /* slots per barrier, 0 = none */
  int32_t t;                 /* current step (unit delay) or position (plan order) */
  int32_t *step, *npend, *ready_at, *upd, *mark, *prod_next;
  uint8_t *in_heap;
  int32_t *bar_use, *bar_cstep;   /* per barrier: current use; step a consumer of it last started */
  struct use *use;
  int32_t nuse;
  size_t ucap;
  int32_t *cons_op, *cons_next;
  int32_t ncons;
  size_t ccap;
  int32_t *wbar;             /* scratch: distinct barriers one op waits on */
  struct acs_heap ready;
  /* Per barrier, the ops that have not started and will wait on it (a
   * direct predecessor updates it): how many, and their planned starts in
   * a heap (entries of ops that started since are dropped lazily). */
  int32_t *bcount;
  struct acs_heap *bwait;
  int32_t *reg_head, *reg_bar, *reg_next;  /* per op: barriers it is counted on */
  int32_t nreg;
  size_t rcap;
};

enum cand { C_NONE, C_REUSE, C_FRESH, C_JOIN };

static int new_use(struct st *st, int32_t barrier, int joinable)
{
  if ((size_t)st->nuse == st->ucap) {
    size_t cap = st->ucap ? 2 * st->ucap : 256;
    struct use *u = realloc(st->use, cap * sizeof(*u));
    if (!u)
      return ACS_ENOMEM;
    st->use = u;
    st->ucap = cap;
  }
  st->use[st->nuse] = (struct use){barrier, st->bar_use[barrier], st->t, -1, -1, 0, 0, 0,
                                   (uint8_t)joinable};
  st->bar_use[barrier] = st->nuse;
  if (st->stats)
    st->stats->uses++;
  return st->nuse++;
}

static int add_consumer(struct st *st, int32_t u, int32_t op)
{
  if ((size_t)st->ncons == st->ccap) {
    size_t cap = st->ccap ? 2 * st->ccap : 256;
    int32_t *a = realloc(st->cons_op, cap * sizeof(*a));
    if (a)
      st->cons_op = a;
    int32_t *b = realloc(st->cons_next, cap * sizeof(*b));
    if (b)
      st->cons_next = b;
    if (!a || !b)
      return ACS_ENOMEM;
    st->ccap = cap;
  }
  st->cons_op[st->ncons] = op;
  st->cons_next[st->ncons] = st->use[u].cons;
  st->use[u].cons = st->ncons++;
  return ACS_OK;
}

/* Marks the direct predecessors of p (mark[x] == p). */
static void mark_neighbours(struct st *st, int32_t p)
{
  FOR_PRED(&st->g, p, x, st->mark[x] = p);
}

/* Adds u -> p unless u already precedes p directly. u has started (at an
 * earlier step, or earlier in plan order), so p stays ready. */
static int edge_to(struct st *st, int32_t u, int32_t p, int64_t *count)
{
  int err;

  if (u == p || st->mark[u] == p)
    return ACS_OK;
  if ((err = dyn_add(&st->g, u, p)) < 0)
    return err;
  st->mark[u] = p;
  if (count)
    (*count)++;
  return ACS_OK;
}

/* Counts v (not started) as waiting on barrier b, once. */
static int register_wait(struct st *st, int32_t v, int32_t b)
{
  for (int32_t k = st->reg_head[v]; k >= 0; k = st->reg_next[k])
    if (st->reg_bar[k] == b)
      return ACS_OK;
  if ((size_t)st->nreg == st->rcap) {
    size_t cap = st->rcap ? 2 * st->rcap : 256;
    int32_t *a = realloc(st->reg_bar, cap * sizeof(*a));
    if (a)
      st->reg_bar = a;
    int32_t *c = realloc(st->reg_next, cap * sizeof(*c));
    if (c)
      st->reg_next = c;
    if (!a || !c)
      return ACS_ENOMEM;
    st->rcap = cap;
  }
  st->reg_bar[st->nreg] = b;
  st->reg_next[st->nreg] = st->reg_head[v];
  st->reg_head[v] = st->nreg++;
  st->bcount[b]++;
  return acs_heap_push(&st->bwait[b], st->s->ops[v].start, v);
}

/* The earliest planned start among the ops waiting on barrier b other than
 * p, or INT64_MAX. Drops the entries of ops that have started. */
static int64_t first_waiting(struct st *st, int32_t b, int32_t p)
{
  struct acs_heap *h = &st->bwait[b];
  struct acs_heap_item top;
  int64_t t = INT64_MAX;

  while (!acs_heap_empty(h) && st->step[acs_heap_peek(h).id] >= 0)
    acs_heap_pop(h);
  if (acs_heap_empty(h))
    return t;
  if (acs_heap_peek(h).id != p)
    return acs_heap_peek(h).key;
  top = acs_heap_pop(h);
  while (!acs_heap_empty(h) && st->step[acs_heap_peek(h).id] >= 0)
    acs_heap_pop(h);
  if (!acs_heap_empty(h))
    t = acs_heap_peek(h).key;
  acs_heap_push(&st->bwait[b], top.key, top.id); /* room: it was just popped */
  return t;
}

/* ---- what a choice costs ---- */

struct cost {
  int64_t viol;   /* cycles by which the plan contradicts added edges (plan order) */
  int64_t edges;  /* added edges */
};

static void price(const struct st *st, struct cost *c, int32_t a, int32_t b)
{
  c->edges++;
  if (st->mode == ACS_BARRIER_PLAN && st->s->ops[b].start < st->s->ops[a].end)
    c->viol += st->s->ops[a].end - st->s->ops[b].start;
}

static int is_producer_pred(const struct st *st, int32_t u, int32_t p)
{
  for (int32_t w = st->use[u].prod; w >= 0; w = st->prod_next[w])
    if (st->mark[w] == p)
      return 1;
  return 0;
}

/*
 * Would an edge c -> p (c started earlier, not yet a predecessor of p)
 * keep to the unit-delay steps? p then waits on c's barrier, whose current
 * use may be newer than c's own: when that use was opened in this very
 * step, p would wait for ops of its own step. (In plan order every earlier
 * op has its barrier already, so any edge from it is fine.)
 */
static int edge_in_step(const struct st *st, int32_t c, int32_t p)
{
  return st->mode == ACS_BARRIER_UNIT_DELAY && st->mark[c] != p &&
         st->use[st->bar_use[st->upd[c]]].step == st->t;
}

/* Can p wait for every started consumer of use u (consumers, added edges)? */
static int consumers_usable(const struct st *st, int32_t u, int32_t p)
{
  for (int32_t k = u >= 0 ? st->use[u].cons : -1; k >= 0; k = st->cons_next[k])
    if (edge_in_step(st, st->cons_op[k], p))
      return 0;
  return 1;
}

/* May p reuse barrier bar (current use u) now? In unit-delay steps, not
 * when u was opened, or a consumer of it started, in this very step (the
 * edge to p would stay inside the step), nor when an edge from one of its
 * consumers would (edge_in_step). */
static int reusable(const struct st *st, int32_t bar, int32_t u, int32_t p)
{
  return st->mode == ACS_BARRIER_PLAN ||
         (st->use[u].step != st->t && st->bar_cstep[bar] != st->t &&
          consumers_usable(st, u, p));
}

/* Reusing use u's barrier for p: started consumers -> p (or, with none,
 * producers -> p), p after every producer when p consumes u, and p ->
 * every unstarted consumer. p's neighbours are marked. */
/* The ops still to wait on barrier b will wait for p (it produces b's
 * next use): one edge each, and the plan is contradicted by as much as p
 * ends after the first of them starts. */
static void price_waiting(struct st *st, struct cost *c, int32_t b, int32_t p)
{
  int64_t first = first_waiting(st, b, p);

  c->edges += st->bcount[b];
  if (st->mode == ACS_BARRIER_PLAN && first < st->s->ops[p].end)
    c->viol += st->s->ops[p].end - first;
}

static struct cost price_reuse(struct st *st, int32_t u, int32_t p, int *takeover)
{
  struct cost c = {0, 0};
  int started = 0;

  *takeover = is_producer_pred(st, u, p);
  for (int32_t k = st->use[u].cons; k >= 0; k = st->cons_next[k]) {
    started = 1;
    if (st->mark[st->cons_op[k]] != p)
      price(st, &c, st->cons_op[k], p);
  }
  if (!started || *takeover)
    for (int32_t w = st->use[u].prod; w >= 0; w = st->prod_next[w])
      if (st->mark[w] != p)
        price(st, &c, w, p);
  price_waiting(st, &c, st->use[u].barrier, p);
  return c;
}

/* Producers per use at most, whatever the slots allow: its C consumers
 * each get an edge from each of its P producers, and the next use of the
 * barrier an edge from each consumer, so a use of P producers costs about
 * P x C edges (16 x 256 for a layer of a wide network). */
#define JOIN_MAX 16

/* May p join use u as one more producer? Only while nobody has consumed u,
 * when its opener did not consume the previous use (joinable), when the
 * slots allow, and (plan order) when p does not follow a producer of u
 * directly (it would then come after the use, not in it). In unit-delay
 * steps: only in the step u was opened, which implies the rest. */
static int can_join(const struct st *st, int32_t u, int32_t p)
{
  const struct use *x = &st->use[u];
  int64_t dem = acs_barrier_slot_demand(&st->s->ops[p]);

  if (!x->joinable || x->nprod >= JOIN_MAX || (st->plimit > 0 && x->slots + dem > st->plimit))
    return 0;
  if (st->mode == ACS_BARRIER_UNIT_DELAY)
    return x->step == st->t && consumers_usable(st, x->prev, p);
  return x->cons < 0 && !is_producer_pred(st, u, p);
}

/* Joining u: the previous use's consumers -> p now; later, p -> u's
 * consumers and u's producers -> p's successors (co-producer edges). */
static struct cost price_join(struct st *st, int32_t u, int32_t p)
{
  struct cost c = {0, 0};
  int32_t q = st->use[u].prev;

  if (q >= 0)
    for (int32_t k = st->use[q].cons; k >= 0; k = st->cons_next[k])
      if (st->mark[st->cons_op[k]] != p)
        price(st, &c, st->cons_op[k], p);
  price_waiting(st, &c, st->use[u].barrier, p);
  FOR_SUCC(&st->g, p, x, {
    c.edges += st->use[u].nprod;
    if (st->mode == ACS_BARRIER_PLAN && st->s->ops[x].start < st->use[u].maxend)
      c.viol += st->use[u].maxend - st->s->ops[x].start;
  });
  return c;
}

struct choice {
  int kind;        /* enum cand */
  int32_t bar;
  struct cost cost;
  int takeover;
};

/* Best first: in plan order, the fewest cycles by which the plan
 * contradicts the added edges; then the fewest added edges (each one is a
 * dependency the hardware enforces, and a shared use of P producers and C
 * consumers costs P x C of them); then reuse over a fresh barrier (fresh
 * ones are kept for when reuse would cost edges) over a join; then
 * takeovers, then the lowest barrier (the caller's scan order). */
static int better(const struct choice *a, const struct choice *b)
{
  static const int rank[] = {[C_NONE] = 9, [C_REUSE] = 0, [C_FRESH] = 1, [C_JOIN] = 2};

  if (a->cost.viol != b->cost.viol)
    return a->cost.viol < b->cost.viol;
  if (a->cost.edges != b->cost.edges)
    return a->cost.edges < b->cost.edges;
  if (rank[a->kind] != rank[b->kind])
    return rank[a->kind] < rank[b->kind];
  return a->kind == C_REUSE && a->takeover > b->takeover;
}

/* The best barrier for p now (kind C_NONE when none). p's neighbours are
 * marked. */
static struct choice choose(struct st *st, int32_t p)
{
  struct choice best = {C_NONE, -1, {0, 0}, 0};
  int fresh_seen = 0;

  for (int32_t b = 0; b < st->nb; b++) {
    struct choice c = {C_NONE, b, {0, 0}, 0};
    int32_t u = st->bar_use[b];
    if (u < 0) {
      if (fresh_seen++)
        continue; /* fresh barriers are all alike: the lowest stands for them */
      c.kind = C_FRESH;
    } else if (can_join(st, u, p)) {
      c.kind = C_JOIN;
      c.cost = price_join(st, u, p);
    } else if (reusable(st, b, u, p)) {
      c.kind = C_REUSE;
      c.cost = price_reuse(st, u, p, &c.takeover);
    }
    if (c.kind != C_NONE && (best.kind == C_NONE || better(&c, &best)))
      best = c;
    if (best.kind == C_REUSE && best.cost.edges == 0 && best.takeover)
      break;
  }
  return best;
}

/* ---- applying a choice ---- */

/* Reusing use u's barrier for p (see the file comment). Sets *consumed
 * when p consumes u (it then takes the barrier over from u). */
static int reuse_edges(struct st *st, int32_t u, int32_t p, int *consumed)
{
  int64_t *cnt = st->stats ? &st->stats->reuse_edges : NULL;
  int started = 0, err = ACS_OK;

  *consumed = is_producer_pred(st, u, p);
  for (int32_t c = st->use[u].cons; c >= 0 && err == ACS_OK; c = st->cons_next[c]) {
    started = 1;
    err = edge_to(st, st->cons_op[c], p, cnt);
  }
  if (!started && !*consumed) {
    for (int32_t w = st->use[u].prod; w >= 0 && err == ACS_OK; w = st->prod_next[w])
      err = edge_to(st, w, p, cnt);
    *consumed = 1;
  }
  return err;
}

/* p starts: it consumes the current use of every barrier a direct pred
 * updates, after every producer of that use (co-producer edges). Records
 * the distinct barriers in wbar; returns their number or an error. */
static int consume(struct st *st, int32_t p)
{
  int32_t nw = 0;
  int err = ACS_OK;

  FOR_PRED(&st->g, p, x, {
    int32_t b = st->upd[x];
    int dup = 0;
    for (int32_t k = 0; k < nw; k++)
      dup |= st->wbar[k] == b;
    if (!dup)
      st->wbar[nw++] = b;
  });
  for (int32_t k = 0; k < nw && err == ACS_OK; k++) {
    int32_t b = st->wbar[k], u = st->bar_use[b];
    for (int32_t w = st->use[u].prod; w >= 0 && err == ACS_OK; w = st->prod_next[w])
      err = edge_to(st, w, p, st->stats ? &st->stats->coproducer_edges : NULL);
    if (err == ACS_OK)
      err = add_consumer(st, u, p);
    st->bar_cstep[b] = st->t;
  }
  return err < 0 ? err : nw;
}

static int push_ready(struct st *st, int32_t v)
{
  if (st->in_heap[v])
    return ACS_OK;
  st->in_heap[v] = 1;
  return acs_heap_push(&st->ready, st->s->ops[v].start, v);
}

/* A joiner comes after the consumers of the use its use replaced. */
static int join_edges(struct st *st, int32_t u, int32_t p)
{
  int32_t q = st->use[u].prev;
  int err;

  for (int32_t k = q >= 0 ? st->use[q].cons : -1; k >= 0; k = st->cons_next[k])
    if ((err = edge_to(st, st->cons_op[k], p, st->stats ? &st->stats->reuse_edges : NULL)) < 0)
      return err;
  if (st->stats)
    st->stats->joins++;
  return ACS_OK;
}

/* Unit-delay steps: p's successors whose last predecessor p was become
 * ready at the next step. */
static int release(struct st *st, int32_t p)
{
  int err;

  FOR_SUCC(&st->g, p, v, {
    if (--st->npend[v] == 0) {
      st->ready_at[v] = st->t + 1;
      if ((err = push_ready(st, v)) < 0)
        return err;
    }
  });
  return ACS_OK;
}

/* p starts now with barrier choice c. */
static int start_op(struct st *st, int32_t p, const struct choice *c)
{
  int32_t u = c->kind == C_FRESH ? -1 : st->bar_use[c->bar];
  int consumed = 0, nw, err;

  if (c->kind == C_REUSE && (err = reuse_edges(st, u, p, &consumed)) < 0)
    return err;
  if (c->kind == C_JOIN && (err = join_edges(st, u, p)) < 0)
    return err;
  if ((nw = consume(st, p)) < 0)
    return nw;
  for (int32_t k = 0; k < nw; k++)
    if ((err = acs_schedule_add_wait(st->s, p, st->wbar[k])) < 0)
      return err;
  if (c->kind != C_JOIN && (u = new_use(st, c->bar, !consumed)) < 0)
    return u;
  st->prod_next[p] = st->use[u].prod;
  st->use[u].prod = p;
  st->use[u].nprod++;
  st->use[u].slots += acs_barrier_slot_demand(&st->s->ops[p]);
  if (st->s->ops[p].end > st->use[u].maxend)
    st->use[u].maxend = st->s->ops[p].end;
  st->upd[p] = c->bar;
  st->step[p] = st->t;
  for (int32_t k = st->reg_head[p]; k >= 0; k = st->reg_next[k])
    st->bcount[st->reg_bar[k]]--;
  FOR_SUCC(&st->g, p, v, {
    if (st->step[v] < 0 && (err = register_wait(st, v, c->bar)) < 0)
      return err;
  });
  return st->mode == ACS_BARRIER_UNIT_DELAY ? release(st, p) : ACS_OK;
}

/* Unit-delay steps: p can start in this step only if no barrier it waits
 * on got a new use in this step (it would wait for ops of its own step). */
static int waits_ready(const struct st *st, int32_t p)
{
  FOR_PRED(&st->g, p, x, {
    if (st->use[st->bar_use[st->upd[x]]].step == st->t)
      return 0;
  });
  return 1;
}

/* Is some barrier still usable in this step? */
static int any_open(const struct st *st)
{
  for (int32_t b = 0; b < st->nb; b++) {
    int32_t u = st->bar_use[b];
    if (u < 0 || (st->use[u].step == st->t ? st->use[u].joinable
                                           : st->bar_cstep[b] != st->t))
      return 1;
  }
  return 0;
}

/* One unit-delay step: the ready ops in priority order, each started if a
 * barrier can be had. Returns the number started or an error. */
static int run_step(struct st *st, int32_t *later, int32_t *nlater)
{
  int started = 0, err;

  *nlater = 0;
  while (!acs_heap_empty(&st->ready) && any_open(st)) {
    int32_t p = acs_heap_pop(&st->ready).id;
    struct choice c;
    st->in_heap[p] = 0;
    if (st->step[p] >= 0 || st->npend[p] > 0)
      continue;
    if (st->ready_at[p] > st->t) {
      later[(*nlater)++] = p;
      continue;
    }
    mark_neighbours(st, p);
    c.kind = C_NONE;
    if (waits_ready(st, p))
      c = choose(st, p);
    if (c.kind == C_NONE) {
      later[(*nlater)++] = p;
      if (st->stats)
        st->stats->deferred++;
      continue;
    }
    if ((err = start_op(st, p, &c)) < 0)
      return err;
    started++;
  }
  for (int32_t k = 0; k < *nlater; k++)
    if ((err = push_ready(st, later[k])) < 0)
      return err;
  return started;
}

static int st_init(struct st *st, struct acs_schedule *s, int mode,
                   struct acs_barrier_stats *stats)
{
  size_t n = (size_t)s->nops + 1, nb = (size_t)s->barriers + 1;
  int err;

  memset(st, 0, sizeof(*st));
  st->s = s;
  st->stats = stats;
  st->mode = mode;
  st->n = s->nops;
  st->nb = s->barriers;
  st->plimit = s->barrier_slots > 0 ? s->barrier_slots : 0;
  if ((err = dyn_init(&st->g, s)) < 0)
    return err;
  st->step = malloc(n * sizeof(int32_t));
  st->npend = calloc(n, sizeof(int32_t));
  st->ready_at = calloc(n, sizeof(int32_t));
  st->upd = malloc(n * sizeof(int32_t));
  st->mark = malloc(n * sizeof(int32_t));
  st->reg_head = malloc(n * sizeof(int32_t));
  st->bcount = calloc(nb, sizeof(int32_t));
  st->bwait = calloc(nb, sizeof(*st->bwait));
  st->prod_next = malloc(n * sizeof(int32_t));
  st->in_heap = calloc(n, 1);
  st->bar_use = malloc(nb * sizeof(int32_t));
  st->bar_cstep = malloc(nb * sizeof(int32_t));
  st->wbar = malloc(nb * sizeof(int32_t));
  if (!st->step || !st->npend || !st->ready_at || !st->upd || !st->mark || !st->reg_head ||
      !st->bcount || !st->bwait || !st->prod_next || !st->in_heap || !st->bar_use ||
      !st->bar_cstep || !st->wbar || acs_heap_init(&st->ready, n) < 0)
    return ACS_ENOMEM;
  for (int32_t b = 0; b < st->nb; b++)
    if (acs_heap_init(&st->bwait[b], 16) < 0)
      return ACS_ENOMEM;
  for (int32_t i = 0; i < st->n; i++)
    st->step[i] = st->upd[i] = st->prod_next[i] = st->mark[i] = st->reg_head[i] = -1;
  for (int32_t b = 0; b < st->nb; b++)
    st->bar_use[b] = st->bar_cstep[b] = -1;
  return ACS_OK;
}

static void st_free(struct st *st)
{
  dyn_free(&st->g);
  free(st->step), free(st->npend), free(st->ready_at), free(st->upd), free(st->mark);
  free(st->reg_head), free(st->reg_bar), free(st->reg_next), free(st->bcount);
  for (int32_t b = 0; st->bwait && b < st->nb; b++)
    acs_heap_destroy(&st->bwait[b]);
  free(st->bwait), free(st->prod_next), free(st->in_heap);
  free(st->bar_use), free(st->bar_cstep), free(st->wbar), free(st->use), free(st->cons_op);
  free(st->cons_next);
  acs_heap_destroy(&st->ready);
}

/* The seed's unit-delay list schedule: steps until every op has started. */
static int unit_delay_schedule(struct st *st, struct acs_diag *d)
{
  int32_t done = 0, nlater, *later = malloc(((size_t)st->n + 1) * sizeof(*later));
  int err = ACS_OK;

  if (!later)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < st->s->nedges; e++)
    st->npend[st->s->edges[e].dst]++;
  for (int32_t v = 0; v < st->n && err == ACS_OK; v++)
    if (st->npend[v] == 0)
      err = push_ready(st, v);
  for (st->t = 0; done < st->n && err == ACS_OK; st->t++) {
    int k = st->interrupted && *st->interrupted ? ACS_EINTERRUPTED
                                                : run_step(st, later, &nlater);
    if (k < 0)
      err = k;
    else if (k == 0 && acs_heap_empty(&st->ready))
      err = acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                         "barrier pass: %d ops never became ready (a cycle?)",
                         (int)(st->n - done));
    done += k;
  }
  if (st->stats)
    st->stats->steps = st->t;
  free(later);
  return err;
}

/* Plan order: the ops one at a time in a topological order that follows
 * the planned starts (Kahn's algorithm taking the smallest (start, id)).
 * The edges added go from earlier to later ops of this order, so it stays
 * topological. */
static int plan_order_schedule(struct st *st, struct acs_diag *d)
{
  int32_t *order = malloc(((size_t)st->n + 1) * sizeof(*order)), k = 0;
  int err = ACS_OK;

  if (!order)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < st->s->nedges; e++)
    st->npend[st->s->edges[e].dst]++;
  for (int32_t v = 0; v < st->n && err == ACS_OK; v++)
    if (st->npend[v] == 0)
      err = acs_heap_push(&st->ready, st->s->ops[v].start, v);
  while (err == ACS_OK && !acs_heap_empty(&st->ready)) {
    int32_t u = acs_heap_pop(&st->ready).id;
    order[k++] = u;
    for (int32_t j = st->g.out_off[u]; j < st->g.out_off[u + 1] && err == ACS_OK; j++)
      if (--st->npend[st->g.out[j]] == 0)
        err = acs_heap_push(&st->ready, st->s->ops[st->g.out[j]].start, st->g.out[j]);
  }
  if (err == ACS_OK && k < st->n)
    err = acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "barrier pass: the edges have a cycle");
  for (st->t = 0; st->t < k && err == ACS_OK; st->t++) {
    int32_t p = order[st->t];
    struct choice c;
    if (st->interrupted && *st->interrupted) {
      err = ACS_EINTERRUPTED;
      break;
    }
    mark_neighbours(st, p);
    c = choose(st, p);
    err = start_op(st, p, &c);
  }
  if (st->stats)
    st->stats->steps = k;
  free(order);
  return err;
}

/* Slot demands that no barrier can hold make the platform infeasible. */
static int check_slots(const struct acs_schedule *s, struct acs_diag *d)
{
  for (int32_t i = 0; s->barrier_slots > 0 && i < s->nops; i++)
    if (acs_barrier_slot_demand(&s->ops[i]) > s->barrier_slots)
      return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                          "op '%s' needs %lld barrier producer slots but a barrier has %d "
                          "(barrier_slots)", s->ops[i].name,
                          (long long)acs_barrier_slot_demand(&s->ops[i]), s->barrier_slots);
  return ACS_OK;
}

/* Writes the program and the added edges into s. */
static int emit(struct st *st)
{
  int err;

  for (int32_t i = 0; i < st->n; i++)
    st->s->ops[i].update_barrier = st->upd[i];
  for (int32_t e = 0; e < st->g.nadd; e++)
    if ((err = acs_schedule_add_edge(st->s, st->g.asrc[e], st->g.adst[e],
                                     ACS_EDGE_CONTROL)) < 0)
      return err;
  return ACS_OK;
}

int acs__barrier_run(struct acs_schedule *s, int mode, struct acs_barrier_stats *stats,
                     const volatile sig_atomic_t *interrupted, struct acs_diag *d)
{
  struct acs_barrier_stats local;
  struct st st;
  int32_t first_new;
  int err;

  if (!stats)
    stats = &local;
  memset(stats, 0, sizeof(*stats));
  if (s->barriers <= 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "barrier pass: no barrier limit");
  if ((err = check_slots(s, d)) < 0)
    return err;
  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].start < 0)
      return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "barrier pass: op '%s' is not scheduled",
                          s->ops[i].name);
  s->nwaits = 0;
  if ((err = st_init(&st, s, mode, stats)) < 0)
    goto out_with_state;
  st.interrupted = interrupted;
  err = mode == ACS_BARRIER_UNIT_DELAY ? unit_delay_schedule(&st, d)
                                       : plan_order_schedule(&st, d);
  if (err < 0)
    goto out_with_state;
  first_new = s->nedges;
  if ((err = emit(&st)) < 0)
    goto out_with_state;
  err = acs__barrier_retime(s, first_new, d);
  stats->retimed = err > 0;
  err = err < 0 ? err : ACS_OK;
out_with_state:
  st_free(&st);
  return err;
}
