/*
 * bprog_check.c - the verifier's checks of a barrier program (the rule that
 * recovers uses from a schedule is in bprog.h). Each check is independent of
 * how the program was built:
 *
 * Linear, always (O((V + E) log V + E w + W log W)):
 *  - every edge is enforced by the barriers: its source updates a barrier and
 *    its destination waits on it;
 *  - the producers of one use take at most `barrier_slots` slots;
 *  - the plan is an execution of the program: a consumer starts after every
 *    producer of the use it waits on has ended, and the producers of a use
 *    start after the previous use of their barrier is complete (its producers
 *    ended, its consumers started).
 *
 * With the transitive closure, for schedules of at most
 * ACS_BARRIER_CHECK_MAX_OPS ops (O(V * (V + E) / 64) time, V^2 / 8 bytes):
 *  - the edges hold every order the barriers impose (each producer of a use
 *    reaches each of its consumers), so the order of uses below is transitive;
 *  - the reuse rule holds in every execution, not just the plan: each
 *    consumer of a use (or, for a use without consumers, each producer)
 *    reaches every producer of the next use of its barrier;
 *  - at most `barriers` uses can be live at once in any execution: use X
 *    precedes use Y when every consumer of X (every producer, if X has none)
 *    is or reaches every producer of Y, so X is complete before Y starts; the
 *    largest antichain of that order, computed by Dilworth's theorem
 *    (antichain.h), is at most `barriers`. With one producer per use, as with
 *    one-slot barriers, this also bounds the barrier-holding ops active at
 *    once (seed 000, Theorem-1).
 * Above the limit the closure checks are skipped and the verifier reports
 * that through acs_diag_warn (the run's message says so).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/antichain.h"
#include "core/model/bprog.h"

#define FAIL(d, ...) acs_diag_set((d), ACS_EVERIFY, NULL, 0, 0, __VA_ARGS__)

static const char *op_name(const struct acs_schedule *s, int32_t i)
{
  return s->ops[i].name;
}

/* Every edge (w, v): w updates a barrier and v waits on it. */
static int check_coverage(const struct acs_schedule *s, const struct acs_bprog *bp,
                          struct acs_diag *d)
{
  int32_t *wait_off = calloc((size_t)s->nops + 2, sizeof(*wait_off));
  int32_t *wb = malloc(((size_t)s->nwaits + 1) * sizeof(*wb));
  int err = ACS_OK;

  if (!wait_off || !wb) {
    err = ACS_ENOMEM;
    goto out_with_waits;
  }
  for (int32_t w = 0; w < s->nwaits; w++)
    wait_off[s->waits[w].op + 2]++;
  for (int32_t v = 0; v < s->nops; v++)
    wait_off[v + 2] += wait_off[v + 1];
  for (int32_t w = 0; w < s->nwaits; w++)
    wb[wait_off[s->waits[w].op + 1]++] = s->waits[w].barrier;
  for (int32_t v = 0; v < s->nops && err == ACS_OK; v++)
    for (int32_t k = bp->pred_off[v]; k < bp->pred_off[v + 1] && err == ACS_OK; k++) {
      int32_t w = bp->pred[k], b = s->ops[w].update_barrier, found = 0;
      for (int32_t j = wait_off[v]; j < wait_off[v + 1] && !found; j++)
        found = wb[j] == b;
      if (b < 0)
        err = FAIL(d, "'%s' precedes '%s' but updates no barrier, so nothing tells '%s' "
                      "that '%s' has ended", op_name(s, w), op_name(s, v), op_name(s, v),
                   op_name(s, w));
      else if (!found)
        err = FAIL(d, "'%s' precedes '%s' but '%s' does not wait on barrier %d, which '%s' "
                      "updates", op_name(s, w), op_name(s, v), op_name(s, v), b,
                   op_name(s, w));
    }
out_with_waits:
  free(wait_off);
  free(wb);
  return err;
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

/* ---- with the transitive closure ---- */

struct closure {
  int32_t n;
  size_t words;
  uint64_t *rows;   /* strict descendants of every op */
};

static int reaches(const struct closure *c, int32_t a, int32_t b)
{
  return a == b || acs_bit_get(c->rows + (size_t)a * c->words, b);
}

static int check_reach_consumers(const struct acs_schedule *s, const struct acs_bprog *bp,
                                 const struct closure *c, struct acs_diag *d)
{
  for (int32_t u = 0; u < bp->nuses; u++)
    for (int32_t k = bp->cons_off[u]; k < bp->cons_off[u + 1]; k++)
      for (int32_t j = bp->prod_off[u]; j < bp->prod_off[u + 1]; j++)
        if (!reaches(c, bp->prod[j], bp->cons[k]))
          return FAIL(d, "'%s' waits on barrier %d, so it runs after '%s', which updates it, "
                         "but no path of edges says so (the edges must hold every order the "
                         "barriers impose)", op_name(s, bp->cons[k]), bp->barrier[u],
                      op_name(s, bp->prod[j]));
  return ACS_OK;
}

/* Members of use u that must be done before the next use of its barrier:
 * its consumers (they start after all its producers end), or its producers
 * when it has no consumer. */
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

static int check_reach_reuse(const struct acs_schedule *s, const struct acs_bprog *bp,
                             const struct closure *c, struct acs_diag *d)
{
  for (int32_t u = 0; u < bp->nuses; u++) {
    const int32_t *m;
    int32_t nm, q = bp->prev[u];
    if (q < 0)
      continue;
    use_end(bp, q, &m, &nm);
    for (int32_t k = 0; k < nm; k++)
      for (int32_t j = bp->prod_off[u]; j < bp->prod_off[u + 1]; j++)
        if (!reaches(c, m[k], bp->prod[j]))
          return FAIL(d, "barrier %d is reused by '%s' while '%s', %s of its previous use, "
                         "may not have %s in some execution (no path of edges between them)",
                      bp->barrier[u], op_name(s, bp->prod[j]), op_name(s, m[k]),
                      bp->cons_off[q + 1] > bp->cons_off[q] ? "a consumer" : "a producer",
                      bp->cons_off[q + 1] > bp->cons_off[q] ? "started" : "ended");
  }
  return ACS_OK;
}

/* Row X of the use order: every use Y != X all of whose producers are in
 * R = the intersection over X's end members e of (descendants of e, and e). */
static void use_row(const struct acs_bprog *bp, const struct closure *c, int32_t x,
                    uint64_t *r, int32_t *cnt, int32_t *touched, uint64_t *urow)
{
  const int32_t *m;
  int32_t nm, nt = 0;

  use_end(bp, x, &m, &nm);
  for (size_t w = 0; w < c->words; w++)
    r[w] = ~(uint64_t)0;
  for (int32_t k = 0; k < nm; k++) {
    const uint64_t *row = c->rows + (size_t)m[k] * c->words;
    uint64_t self[1];
    for (size_t w = 0; w < c->words; w++) {
      self[0] = (size_t)m[k] >> 6 == w ? (uint64_t)1 << (m[k] & 63) : 0;
      r[w] &= row[w] | self[0];
    }
  }
  for (size_t w = 0; w < c->words; w++)
    for (uint64_t bits = r[w]; bits; bits &= bits - 1) {
      int32_t p = (int32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
      int32_t y = p < c->n ? bp->use_of[p] : -1;
      if (y >= 0 && cnt[y]++ == 0)
        touched[nt++] = y;
    }
  for (int32_t k = 0; k < nt; k++) {
    int32_t y = touched[k];
    if (y != x && cnt[y] == bp->prod_off[y + 1] - bp->prod_off[y])
      acs_bit_set(urow, y);
    cnt[y] = 0;
  }
}

/* The width of the use order, a largest antichain of uses in members. */
static int use_width(const struct acs_bprog *bp, const struct closure *c, int32_t *width,
                     int32_t *members)
{
  int32_t nu = bp->nuses;
  size_t uw = acs_bits_words(nu), bytes;
  uint64_t *urows = NULL, *r = malloc((c->words + 1) * sizeof(*r));
  int32_t *cnt = calloc((size_t)nu + 1, sizeof(*cnt));
  int32_t *touched = malloc(((size_t)nu + 1) * sizeof(*touched));
  int err = ACS_ENOMEM;

  if (!acs_mul_size((size_t)nu, uw * sizeof(uint64_t), &bytes))
    urows = calloc(bytes + 1, 1);
  if (urows && r && cnt && touched) {
    for (int32_t x = 0; x < nu; x++)
      use_row(bp, c, x, r, cnt, touched, urows + (size_t)x * uw);
    err = acs_poset_width(nu, urows, uw, width, members);
  }
  free(urows), free(r), free(cnt), free(touched);
  return err;
}

static int check_width(const struct acs_schedule *s, const struct acs_bprog *bp,
                       const struct closure *c, struct acs_diag *d)
{
  int32_t width = 0, *members = malloc(((size_t)bp->nuses + 1) * sizeof(*members));
  int err = ACS_ENOMEM;

  if (!members || (err = use_width(bp, c, &width, members)) < 0)
    goto out_with_members;
  if (width > s->barriers) {
    char list[256] = "";
    size_t len = 0;
    for (int32_t k = 0; k < width && k < 6 && len < sizeof(list); k++)
      len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'", k ? ", " : "",
                              op_name(s, bp->prod[bp->prod_off[members[k]]]));
    err = FAIL(d, "%d barrier uses can be live at once in some execution, more than the %d "
                  "barriers (largest antichain by Dilworth's theorem: the uses updated by "
                  "%s%s)", width, s->barriers, list, width > 6 ? ", ..." : "");
  }
out_with_members:
  free(members);
  return err;
}

static int closure_init(struct closure *c, const struct acs_schedule *s,
                        const struct acs_bprog *bp)
{
  size_t bytes;

  c->n = s->nops;
  c->words = acs_bits_words(s->nops);
  if (acs_mul_size((size_t)s->nops, c->words * sizeof(uint64_t), &bytes) ||
      !(c->rows = calloc(bytes + 1, 1)))
    return ACS_ENOMEM;
  acs_dag_descendants(s->nops, bp->succ_off, bp->succ, bp->order, c->rows);
  return ACS_OK;
}

static int check_closure(const struct acs_schedule *s, const struct acs_bprog *bp,
                         struct acs_diag *d)
{
  struct closure c;
  int err;

  if ((err = closure_init(&c, s, bp)) < 0)
    return err;
  if ((err = check_reach_consumers(s, bp, &c, d)) == ACS_OK &&
      (err = check_reach_reuse(s, bp, &c, d)) == ACS_OK && s->barriers > 0)
    err = check_width(s, bp, &c, d);
  free(c.rows);
  return err;
}

int acs__bprog_verify(const struct acs_schedule *s, struct acs_diag *d)
{
  struct acs_bprog bp;
  int err;

  if (!acs_bprog_present(s))
    return ACS_OK;
  if ((err = acs_bprog_build(s, &bp)) == ACS_ECYCLE)
    return FAIL(d, "the edges form a cycle");
  if (err < 0)
    return err == ACS_EINVAL ? FAIL(d, "an edge or a wait refers to a missing op") : err;
  if ((err = check_coverage(s, &bp, d)) == ACS_OK && (err = check_slots(s, &bp, d)) == ACS_OK &&
      (err = check_plan_waits(s, &bp, d)) == ACS_OK &&
      (err = check_plan_reuse(s, &bp, d)) == ACS_OK) {
    if (s->nops <= ACS_BARRIER_CHECK_MAX_OPS)
      err = check_closure(s, &bp, d);
    else
      acs_diag_warn(d, NULL, 0, 0,
                    "barrier antichain bound not checked: %d ops, more than %d (linear "
                    "barrier checks only)", s->nops, ACS_BARRIER_CHECK_MAX_OPS);
  }
  acs_bprog_destroy(&bp);
  return err;
}

int acs_bprog_use_width(const struct acs_schedule *s, int32_t *width)
{
  struct acs_bprog bp;
  struct closure c;
  int err;

  if (s->nops > ACS_BARRIER_CHECK_MAX_OPS)
    return ACS_ERANGE;
  if ((err = acs_bprog_build(s, &bp)) < 0)
    return err;
  if ((err = closure_init(&c, s, &bp)) == ACS_OK) {
    err = use_width(&bp, &c, width, NULL);
    free(c.rows);
  }
  acs_bprog_destroy(&bp);
  return err;
}
