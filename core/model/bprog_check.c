/*
 * bprog_check.c - the verifier's checks of a barrier program (the rule that
 * recovers uses from a schedule is in bprog.h). Each check is independent of
 * how the program was built, and each covers schedules of any size: the
 * checks that need reachability ask acs_dag_reach (reach.h) only the
 * questions a direct edge does not answer.
 *
 * Linear (O((V + E) log V + E w + W log W)):
 *  - the producers of one use take at most `barrier_slots` slots;
 *  - the plan is an execution of the program: a consumer starts after every
 *    producer of the use it waits on has ended, and the producers of a use
 *    start after the previous use of their barrier is complete (its producers
 *    ended, its consumers started).
 *
 * With reachability:
 *  - every edge is enforced by the barriers: its source reaches its
 *    destination through the program alone (producer -> use -> consumer
 *    steps), so the hardware keeps every edge, directly (the destination
 *    waits on the source's use) or through others (an edge implied by a path
 *    needs no wait of its own);
 *  - the edges hold every order the barriers impose: each producer of a use
 *    reaches each of its consumers by edges. With the first check, the
 *    executions that respect the edges are exactly those the hardware runs;
 *  - the reuse rule holds in every execution, not just the plan: each
 *    consumer of a use (or, for a use without consumers, each producer) is
 *    or reaches every producer of the next use of its barrier;
 *  - at most `barriers` uses can be live at once in any execution
 *    (bprog_width.c: Dilworth's theorem on the order of uses).
 * Each costs O(V + E + Q log Q) for its Q questions plus the sweeps of
 * reach.h, O((V + E) S / 64) word operations for S distinct sources at
 * worst, far less when they are local in time, as in barrier programs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/bprog.h"
#include "core/model/bprog_int.h"
#include "core/model/reach.h"

#define FAIL(d, ...) acs_diag_set((d), ACS_EVERIFY, NULL, 0, 0, __VA_ARGS__)

static const char *op_name(const struct acs_schedule *s, int32_t i)
{
  return s->ops[i].name;
}

/* Ordinal of use u among the uses of its barrier (1 = first), for messages. */
static int32_t use_ordinal(const struct acs_bprog *bp, int32_t u)
{
  int32_t k = 1;

  while ((u = bp->prev[u]) >= 0)
    k++;
  return k;
}

static int check_slots(const struct acs_schedule *s, const struct acs_bprog *bp,
                       struct acs_diag *d)
{
  if (s->barrier_slots <= 0)
    return ACS_OK;
  for (int32_t u = 0; u < bp->nuses; u++)
    if (bp->slots[u] > s->barrier_slots) {
      int32_t a = bp->prod[bp->prod_off[u]];
      return FAIL(d, "use %d of barrier %d has %d producers ('%s', ...) taking %lld slots, "
                     "more than the %d slots of a barrier", use_ordinal(bp, u),
                  bp->barrier[u], bp->prod_off[u + 1] - bp->prod_off[u], op_name(s, a),
                  (long long)bp->slots[u], s->barrier_slots);
    }
  return ACS_OK;
}

/* Producer of use u that ends last. */
static int32_t last_producer(const struct acs_schedule *s, const struct acs_bprog *bp,
                             int32_t u)
{
  int32_t best = bp->prod[bp->prod_off[u]];

  for (int32_t k = bp->prod_off[u]; k < bp->prod_off[u + 1]; k++)
    if (s->ops[bp->prod[k]].end > s->ops[best].end)
      best = bp->prod[k];
  return best;
}

/* The plan honours the waits: consumers start after every producer ends. */
static int check_plan_waits(const struct acs_schedule *s, const struct acs_bprog *bp,
                            struct acs_diag *d)
{
  for (int32_t u = 0; u < bp->nuses; u++) {
    int32_t p = last_producer(s, bp, u);
    for (int32_t k = bp->cons_off[u]; k < bp->cons_off[u + 1]; k++) {
      int32_t c = bp->cons[k];
      if (s->ops[c].start < s->ops[p].end)
        return FAIL(d, "'%s' waits on barrier %d but starts at %lld, before '%s', a "
                       "producer of that use, ends at %lld", op_name(s, c), bp->barrier[u],
                    (long long)s->ops[c].start, op_name(s, p), (long long)s->ops[p].end);
    }
  }
  return ACS_OK;
}

/* The two producers of use u that start first (second = -1 if only one). */
static void first_two(const struct acs_schedule *s, const struct acs_bprog *bp, int32_t u,
                      int32_t *first, int32_t *second)
{
  *first = *second = -1;
  for (int32_t k = bp->prod_off[u]; k < bp->prod_off[u + 1]; k++) {
    int32_t p = bp->prod[k];
    if (*first < 0 || s->ops[p].start < s->ops[*first].start) {
      *second = *first;
      *first = p;
    } else if (*second < 0 || s->ops[p].start < s->ops[*second].start) {
      *second = p;
    }
  }
}

/* The plan honours the reuse rule: every producer of a use starts after the
 * previous use of its barrier is complete. A consumer of the previous use
 * may itself be a producer of the next (it consumes, then updates). */
static int check_plan_reuse(const struct acs_schedule *s, const struct acs_bprog *bp,
                            struct acs_diag *d)
{
  for (int32_t u = 0; u < bp->nuses; u++) {
    int32_t q = bp->prev[u], f, f2;
    if (q < 0)
      continue;
    first_two(s, bp, u, &f, &f2);
    int32_t w = last_producer(s, bp, q);
    if (s->ops[f].start < s->ops[w].end)
      return FAIL(d, "barrier %d is reused by '%s' at %lld before '%s', a producer of its "
                     "previous use, ends at %lld", bp->barrier[u], op_name(s, f),
                  (long long)s->ops[f].start, op_name(s, w), (long long)s->ops[w].end);
    for (int32_t k = bp->cons_off[q]; k < bp->cons_off[q + 1]; k++) {
      int32_t c = bp->cons[k], p = c == f ? f2 : f;
      if (p >= 0 && s->ops[p].start < s->ops[c].start)
        return FAIL(d, "barrier %d is reused by '%s' at %lld before '%s', a consumer of its "
                       "previous use, starts at %lld", bp->barrier[u], op_name(s, p),
                    (long long)s->ops[p].start, op_name(s, c), (long long)s->ops[c].start);
    }
  }
  return ACS_OK;
}

/* ---- reachability questions ---- */

struct questions {
  int32_t n;
  size_t cap;
  int32_t *src, *dst, *tag;   /* tag: what the caller needs to name a failure */
  uint8_t *ans;
};

static int ask(struct questions *q, int32_t src, int32_t dst, int32_t tag)
{
  if ((size_t)q->n == q->cap) {
    size_t cap = q->cap ? 2 * q->cap : 1024;
    int32_t *a = realloc(q->src, cap * sizeof(*a));
    if (a)
      q->src = a;
    int32_t *b = realloc(q->dst, cap * sizeof(*b));
    if (b)
      q->dst = b;
    int32_t *c = realloc(q->tag, cap * sizeof(*c));
    if (c)
      q->tag = c;
    if (!a || !b || !c || q->n == INT32_MAX)
      return ACS_ENOMEM;
    q->cap = cap;
  }
  q->src[q->n] = src;
  q->dst[q->n] = dst;
  q->tag[q->n++] = tag;
  return ACS_OK;
}

static int answer(struct questions *q, const struct acs_dag *g)
{
  if (!(q->ans = malloc((size_t)q->n + 1)))
    return ACS_ENOMEM;
  return acs_dag_reach(g, q->n, q->src, q->dst, q->ans);
}

static void questions_free(struct questions *q)
{
  free(q->src), free(q->dst), free(q->tag), free(q->ans);
  memset(q, 0, sizeof(*q));
}

/* The program as a DAG: op p -> node n + u for the use u it produces, and
 * n + u -> c for each consumer c of u. Keys follow time (a use after its
 * producers' ends) so that the sweeps of reach.h stay local. */
static int program_dag(const struct acs_schedule *s, const struct acs_bprog *bp,
                       struct acs_dag *g)
{
  int32_t n = s->nops, m = 0, cap = n + bp->cons_off[bp->nuses];
  int32_t *src = malloc(((size_t)cap + 1) * sizeof(int32_t));
  int32_t *dst = malloc(((size_t)cap + 1) * sizeof(int32_t));
  int64_t *key = malloc(((size_t)n + (size_t)bp->nuses + 1) * sizeof(int64_t));
  int err = ACS_ENOMEM;

  if (src && dst && key) {
    for (int32_t i = 0; i < n; i++) {
      key[i] = s->ops[i].start;
      if (bp->use_of[i] >= 0) {
        src[m] = i;
        dst[m++] = n + bp->use_of[i];
      }
    }
    for (int32_t u = 0; u < bp->nuses; u++) {
      key[n + u] = INT64_MIN;
      for (int32_t k = bp->prod_off[u]; k < bp->prod_off[u + 1]; k++)
        if (s->ops[bp->prod[k]].end > key[n + u])
          key[n + u] = s->ops[bp->prod[k]].end;
      for (int32_t k = bp->cons_off[u]; k < bp->cons_off[u + 1]; k++) {
        src[m] = n + u;
        dst[m++] = bp->cons[k];
      }
    }
    err = acs_dag_build(g, n + bp->nuses, m, src, dst, key);
  }
  free(src), free(dst), free(key);
  return err;
}

/* Marks the direct predecessors of v over the edges (mark[x] == stamp). */
static void mark_preds(const struct acs_bprog *bp, int32_t v, int32_t *mark, int32_t stamp)
{
  for (int32_t k = bp->pred_off[v]; k < bp->pred_off[v + 1]; k++)
    mark[bp->pred[k]] = stamp;
}

/* ---- every edge enforced ---- */

/* The uses op v consumes, marked (mark[u] == v + 1); coverage_questions
 * marks the uses it has asked about for v the same way. */
static void mark_consumed(const struct acs_schedule *s, const struct acs_bprog *bp,
                          const int32_t *wait_off, const int32_t *wait, int32_t v, int32_t *mark)
{
  (void)s;
  for (int32_t k = wait_off[v]; k < wait_off[v + 1]; k++)
    if (bp->wait_use[wait[k]] >= 0)
      mark[bp->wait_use[wait[k]]] = v + 1;
}

static int coverage_questions(const struct acs_schedule *s, const struct acs_bprog *bp,
                              struct questions *q, struct acs_diag *d)
{
  int32_t n = s->nops, *wait_off = calloc((size_t)n + 2, sizeof(int32_t));
  int32_t *wait = malloc(((size_t)s->nwaits + 1) * sizeof(int32_t));
  int32_t *mark = calloc((size_t)bp->nuses + 1, sizeof(int32_t));
  int err = ACS_OK;

  if (!wait_off || !wait || !mark) {
    err = ACS_ENOMEM;
    goto out_with_marks;
  }
  for (int32_t w = 0; w < s->nwaits; w++)
    wait_off[s->waits[w].op + 2]++;
  for (int32_t v = 0; v < n; v++)
    wait_off[v + 2] += wait_off[v + 1];
  for (int32_t w = 0; w < s->nwaits; w++)
    wait[wait_off[s->waits[w].op + 1]++] = w;
  for (int32_t v = 0; v < n && err == ACS_OK; v++) {
    mark_consumed(s, bp, wait_off, wait, v, mark);
    for (int32_t k = bp->pred_off[v]; k < bp->pred_off[v + 1] && err == ACS_OK; k++) {
      int32_t w = bp->pred[k], u = bp->use_of[w];
      if (u < 0)
        err = FAIL(d, "'%s' precedes '%s' but updates no barrier, so nothing tells '%s' "
                      "that '%s' has ended", op_name(s, w), op_name(s, v), op_name(s, v),
                   op_name(s, w));
      else if (mark[u] != v + 1) {
        /* w's one step in the program is to its use, so w reaches v
         * exactly when the use does: one question per (use, v), asked
         * from the use's node (program_dag), tagged with the edge. */
        mark[u] = v + 1;
        err = ask(q, n + u, v, k);
      }
    }
  }
out_with_marks:
  free(wait_off), free(wait), free(mark);
  return err;
}

/* Every edge (w, v): v waits on w's use, or the program orders them
 * through other uses (an edge implied by others needs no wait). */
static int check_coverage(const struct acs_schedule *s, const struct acs_bprog *bp,
                          struct acs_diag *d)
{
  struct questions q = {0};
  struct acs_dag g;
  int err;

  if ((err = coverage_questions(s, bp, &q, d)) < 0 || q.n == 0)
    goto out_with_questions;
  if ((err = program_dag(s, bp, &g)) < 0)
    goto out_with_questions;
  if ((err = answer(&q, &g)) == ACS_OK)
    for (int32_t i = 0; i < q.n && err == ACS_OK; i++)
      if (!q.ans[i]) {
        int32_t w = bp->pred[q.tag[i]], v = q.dst[i];
        err = FAIL(d, "'%s' precedes '%s' but '%s' does not wait on barrier %d, which '%s' "
                      "updates, nor does any chain of barrier waits lead from '%s' to '%s'",
                   op_name(s, w), op_name(s, v), op_name(s, v), s->ops[w].update_barrier,
                   op_name(s, w), op_name(s, w), op_name(s, v));
      }
  acs_dag_destroy(&g);
out_with_questions:
  questions_free(&q);
  return err;
}

/* ---- the edges hold the barriers' orders, and the reuse rule ---- */

/* Members of use u that must be done before the next use of its barrier:
 * its consumers (they start after all its producers end), or its producers
 * when it has none. */
static void use_end(const struct acs_bprog *bp, int32_t u, const int32_t **m, int32_t *nm)
{
  if (bp->cons_off[u + 1] > bp->cons_off[u]) {
    *m = bp->cons + bp->cons_off[u];
    *nm = bp->cons_off[u + 1] - bp->cons_off[u];
  } else {
    *m = bp->prod + bp->prod_off[u];
    *nm = bp->prod_off[u + 1] - bp->prod_off[u];
  }
}

/* Questions tagged 2u (producer of u -> consumer of u) and 2u + 1 (end of
 * the previous use of u's barrier -> producer of u). */
static int order_questions(const struct acs_bprog *bp, struct questions *q, int32_t *mark)
{
  int err = ACS_OK;

  for (int32_t u = 0; u < bp->nuses && err == ACS_OK; u++) {
    int32_t pv = bp->prev[u], nm = 0;
    const int32_t *m = NULL;
    for (int32_t k = bp->cons_off[u]; k < bp->cons_off[u + 1] && err == ACS_OK; k++) {
      int32_t c = bp->cons[k];
      mark_preds(bp, c, mark, c);
      for (int32_t j = bp->prod_off[u]; j < bp->prod_off[u + 1] && err == ACS_OK; j++)
        if (mark[bp->prod[j]] != c)
          err = ask(q, bp->prod[j], c, 2 * u);
    }
    if (pv >= 0)
      use_end(bp, pv, &m, &nm);
    for (int32_t j = bp->prod_off[u]; j < bp->prod_off[u + 1] && pv >= 0 && err == ACS_OK; j++) {
      int32_t p = bp->prod[j];
      mark_preds(bp, p, mark, p);
      for (int32_t k = 0; k < nm && err == ACS_OK; k++)
        if (m[k] != p && mark[m[k]] != p)
          err = ask(q, m[k], p, 2 * u + 1);
    }
  }
  return err;
}

static int order_failure(const struct acs_schedule *s, const struct acs_bprog *bp,
                         const struct questions *q, int32_t i, struct acs_diag *d)
{
  int32_t u = q->tag[i] / 2, pv = bp->prev[u], a = q->src[i], b = q->dst[i];
  int used = pv >= 0 && bp->cons_off[pv + 1] > bp->cons_off[pv];

  if (q->tag[i] % 2 == 0)
    return FAIL(d, "'%s' waits on barrier %d, so it runs after '%s', which updates it, but no "
                   "path of edges says so (the edges must hold every order the barriers "
                   "impose)", op_name(s, b), bp->barrier[u], op_name(s, a));
  return FAIL(d, "barrier %d is reused by '%s' while '%s', %s of its previous use, may not "
                 "have %s in some execution (no path of edges between them)",
              bp->barrier[u], op_name(s, b), op_name(s, a), used ? "a consumer" : "a producer",
              used ? "started" : "ended");
}

static int check_orders(const struct acs_schedule *s, const struct acs_bprog *bp,
                        const struct acs_dag *g, struct acs_diag *d)
{
  struct questions q = {0};
  int32_t *mark = malloc(((size_t)s->nops + 1) * sizeof(int32_t));
  int err = ACS_ENOMEM;

  if (!mark)
    goto out_with_questions;
  for (int32_t v = 0; v < s->nops; v++)
    mark[v] = -1;
  if ((err = order_questions(bp, &q, mark)) < 0 || q.n == 0)
    goto out_with_questions;
  if ((err = answer(&q, g)) == ACS_OK) {
    int32_t worst = -1;
    /* Report in the order of the uses: the first use's failure first. */
    for (int32_t i = 0; i < q.n; i++)
      if (!q.ans[i] && (worst < 0 || q.tag[i] < q.tag[worst]))
        worst = i;
    if (worst >= 0)
      err = order_failure(s, bp, &q, worst, d);
  }
out_with_questions:
  questions_free(&q);
  free(mark);
  return err;
}

/* The checks on the schedule's edges, which share one DAG of them. */
static int check_edges(const struct acs_schedule *s, const struct acs_bprog *bp,
                       struct acs_diag *d)
{
  struct acs_dag g;
  int err;

  if ((err = acs__bprog_edge_dag(s, bp, &g)) < 0)
    return err;
  if ((err = check_orders(s, bp, &g, d)) == ACS_OK && s->barriers > 0)
    err = acs__bprog_check_width(s, bp, &g, d);
  acs_dag_destroy(&g);
  return err;
}

int acs__bprog_verify(const struct acs_schedule *s, struct acs_bprog *keep,
                      struct acs_diag *d)
{
  struct acs_bprog bp;
  int err;

  if (keep)
    memset(keep, 0, sizeof(*keep));
  if (!acs_bprog_present(s))
    return ACS_OK;
  if ((err = acs_bprog_build(s, &bp)) == ACS_ECYCLE)
    return FAIL(d, "the edges form a cycle");
  if (err < 0)
    return err == ACS_EINVAL ? FAIL(d, "an edge or a wait refers to a missing op") : err;
  if ((err = check_slots(s, &bp, d)) == ACS_OK && (err = check_plan_waits(s, &bp, d)) == ACS_OK &&
      (err = check_plan_reuse(s, &bp, d)) == ACS_OK &&
      (err = check_coverage(s, &bp, d)) == ACS_OK)
    err = check_edges(s, &bp, d);
  if (err == ACS_OK && keep)
    *keep = bp;
  else
    acs_bprog_destroy(&bp);
  return err;
}
