/*
 * justify.c - serial schedule generation against a resource profile, and
 * forward-backward improvement (justification) built on it.
 *
 * The profile is the resource usage of the ops placed so far as a piecewise
 * constant function of time: sorted breakpoints t[0] = 0 < t[1] < ... with
 * the usage vector of [t[k], t[k+1]) in row k; the last row extends to
 * infinity and is zero once every placed interval has ended. Placing an op
 * at its earliest feasible start scans the rows from its precedence bound;
 * a row that does not leave room for the op moves the candidate start to the
 * row's end, so each row is looked at once per placement. With B <= 2V + 1
 * rows one placement is O(B R) and a pass of V placements O(V^2 R) in the
 * worst case; inserting a breakpoint is a memmove of the rows after it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/npu/npu.h"
#include "core/sched/heap.h"

struct profile {
  const struct acs_problem *pb;
  int32_t n, cap;   /* rows used, rows allocated */
  int64_t *t;       /* cap breakpoints */
  int64_t *u;       /* cap x nres usage */
};

static int profile_init(struct profile *p, const struct acs_problem *pb)
{
  size_t rows = (size_t)pb->nops * 2 + 2, tbytes, ubytes;

  p->pb = pb;
  if (acs_mul_size(rows, sizeof(int64_t), &tbytes) != 0 ||
      acs_mul_size(tbytes, (size_t)pb->nres + 1, &ubytes) != 0 ||
      rows > INT32_MAX)
    return ACS_ENOMEM;
  p->t = malloc(tbytes);
  if (!p->t)
    return ACS_ENOMEM;
  p->u = calloc(1, ubytes);
  if (!p->u) {
    free(p->t);
    return ACS_ENOMEM;
  }
  p->cap = (int32_t)rows;
  p->n = 1;
  p->t[0] = 0;
  return ACS_OK;
}

static void profile_reset(struct profile *p)
{
  p->n = 1;
  p->t[0] = 0;
  memset(p->u, 0, sizeof(int64_t) * (size_t)p->pb->nres);
}

static void profile_destroy(struct profile *p)
{
  free(p->t);
  free(p->u);
}

static int64_t *row(const struct profile *p, int32_t k)
{
  return p->u + (size_t)k * (size_t)p->pb->nres;
}

/* Row containing time x >= 0: the last k with t[k] <= x. O(log B). */
static int32_t profile_find(const struct profile *p, int64_t x)
{
  int32_t lo = 0, hi = p->n - 1;

  while (lo < hi) {
    int32_t mid = lo + (hi - lo + 1) / 2;
    if (p->t[mid] <= x)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Makes x a breakpoint and returns its row. O(B R) for the memmove. */
static int32_t profile_split(struct profile *p, int64_t x)
{
  int32_t k = profile_find(p, x);
  size_t nres = (size_t)p->pb->nres;

  if (p->t[k] == x)
    return k;
  memmove(p->t + k + 2, p->t + k + 1, sizeof(int64_t) * (size_t)(p->n - k - 1));
  memmove(row(p, k + 2), row(p, k + 1), sizeof(int64_t) * nres * (size_t)(p->n - k - 1));
  p->t[k + 1] = x;
  memcpy(row(p, k + 1), row(p, k), sizeof(int64_t) * nres);
  p->n++;
  return k + 1;
}

/* Zero-length ops and ops that demand nothing hold nothing. */
static int holds_nothing(const struct acs_problem *pb, int32_t v)
{
  if (pb->dur[v] == 0)
    return 1;
  for (int r = 0; r < pb->nres; r++)
    if (acs_problem_demand(pb, v, r) > 0)
      return 0;
  return 1;
}

static void profile_add(struct profile *p, int32_t v, int64_t s)
{
  const struct acs_problem *pb = p->pb;
  int32_t ks, ke;

  if (holds_nothing(pb, v))
    return;
  ks = profile_split(p, s);
  ke = profile_split(p, s + pb->dur[v]);
  for (int32_t k = ks; k < ke; k++)
    for (int r = 0; r < pb->nres; r++)
      row(p, k)[r] += acs_problem_demand(pb, v, r);
}

static int row_fits(const struct profile *p, int32_t k, int32_t v)
{
  const struct acs_problem *pb = p->pb;

  for (int r = 0; r < pb->nres; r++)
    if (row(p, k)[r] + acs_problem_demand(pb, v, r) > pb->cap[r])
      return 0;
  return 1;
}

/* Earliest start >= est at which v fits for its whole duration. The last
 * row is empty and each op fits alone (precheck), so the scan ends. */
static int64_t profile_earliest(const struct profile *p, int32_t v, int64_t est)
{
  int64_t t = est, d = p->pb->dur[v];
  int32_t j;

  if (holds_nothing(p->pb, v))
    return est;
  j = profile_find(p, t);
  while (j < p->n && p->t[j] < t + d) {
    if (row_fits(p, j, v)) {
      j++;
      continue;
    }
    t = p->t[j + 1];
    j++;
  }
  return t;
}

/*
 * Places ops in the given order at their earliest feasible starts. With
 * backward = 0 an op waits for its predecessors; with backward = 1 the
 * times are reversed (the makespan minus a finish time) and an op waits for
 * its successors. Every op's neighbours in that direction precede it in
 * `order`.
 */
static void place_in_order(struct profile *p, const int32_t *order, int backward,
                           int64_t *start)
{
  const struct acs_graph *g = p->pb->g;
  const int32_t *off = backward ? g->succ_off : g->pred_off;
  const int32_t *adj = backward ? g->succ : g->pred;

  profile_reset(p);
  for (int32_t i = 0; i < p->pb->nops; i++) {
    int32_t v = order[i];
    int64_t est = 0;
    for (int32_t k = off[v]; k < off[v + 1]; k++) {
      int32_t w = adj[k];
      if (start[w] + p->pb->dur[w] > est)
        est = start[w] + p->pb->dur[w];
    }
    start[v] = profile_earliest(p, v, est);
    profile_add(p, v, start[v]);
  }
}

int acs__serial_sgs(const struct acs_problem *pb, const int32_t *rank,
                    int64_t *start)
{
  const struct acs_graph *g = pb->g;
  struct profile p;
  struct acs_heap eligible;
  int32_t *waiting, *order;
  int err;

  waiting = acs__sched_array((size_t)pb->nops, sizeof(*waiting));
  order = acs__sched_array((size_t)pb->nops, sizeof(*order));
  err = (waiting && order) ? profile_init(&p, pb) : ACS_ENOMEM;
  if (err != ACS_OK)
    goto out_with_arrays;
  err = acs_heap_init(&eligible, 64);
  if (err != ACS_OK)
    goto out_with_profile;
  /* The activity list: always the eligible op of best rank. O(V log V + E). */
  for (int32_t v = 0; err == ACS_OK && v < pb->nops; v++) {
    waiting[v] = g->pred_off[v + 1] - g->pred_off[v];
    if (waiting[v] == 0)
      err = acs_heap_push(&eligible, rank[v], v);
  }
  for (int32_t i = 0; err == ACS_OK && i < pb->nops; i++) {
    int32_t v = acs_heap_pop(&eligible).id;
    order[i] = v;
    for (int32_t k = g->succ_off[v]; err == ACS_OK && k < g->succ_off[v + 1]; k++)
      if (--waiting[g->succ[k]] == 0)
        err = acs_heap_push(&eligible, rank[g->succ[k]], g->succ[k]);
  }
  if (err == ACS_OK)
    place_in_order(&p, order, 0, start);
  acs_heap_destroy(&eligible);
out_with_profile:
  profile_destroy(&p);
out_with_arrays:
  free(order);
  free(waiting);
  return err;
}

struct order_key {
  int64_t time;
  int32_t pos;   /* topological position, breaks ties between equal times */
  int32_t id;
};

static int cmp_order_key(const void *a, const void *b)
{
  const struct order_key *x = a, *y = b;

  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return (x->pos > y->pos) - (x->pos < y->pos);
}

/*
 * Sorts ops by key time ascending; ties by topological position (ascending,
 * or descending when `reverse`) so that a zero-length op and the neighbour it
 * touches keep their precedence order.
 */
static void sort_ops(struct order_key *keys, const int32_t *pos, int32_t n,
                     int reverse, int32_t *order)
{
  for (int32_t v = 0; v < n; v++) {
    keys[v].pos = reverse ? -pos[v] : pos[v];
    keys[v].id = v;
  }
  qsort(keys, (size_t)n, sizeof(*keys), cmp_order_key);
  for (int32_t i = 0; i < n; i++)
    order[i] = keys[i].id;
}

/*
 * One forward-backward round on cur[]. Backward: ops in order of decreasing
 * finish time, each as late as its successors and the resources allow
 * (right-justified against the current makespan, computed as a forward pass
 * on reversed time). Forward: ops in order of the backward starts, each as
 * early as possible. A serial pass in the order of a feasible schedule's
 * starts (or finishes) never moves an op in the wrong direction, so the
 * result is never longer than cur.
 */
static void fb_round(struct profile *p, const int32_t *pos, struct order_key *keys,
                     int32_t *order, int64_t *cur, int64_t *rev)
{
  const struct acs_problem *pb = p->pb;
  int32_t n = pb->nops;
  int64_t m;

  for (int32_t v = 0; v < n; v++)
    keys[v].time = -(cur[v] + pb->dur[v]);
  sort_ops(keys, pos, n, 1, order);
  place_in_order(p, order, 1, rev);
  m = acs__sched_makespan(pb, rev);
  for (int32_t v = 0; v < n; v++)
    cur[v] = m - rev[v] - pb->dur[v];
  for (int32_t v = 0; v < n; v++)
    keys[v].time = cur[v];
  sort_ops(keys, pos, n, 0, order);
  place_in_order(p, order, 0, cur);
}

int acs__justify(const struct acs_problem *pb, int64_t *start, int rounds,
                 int64_t bound, const struct acs__stop *stop)
{
  int32_t n = pb->nops, *pos, *order;
  int64_t *cur, *rev, best = acs__sched_makespan(pb, start);
  struct order_key *keys;
  struct profile p;
  int improved = 0, err;

  pos = acs__sched_array((size_t)n, sizeof(*pos));
  order = acs__sched_array((size_t)n, sizeof(*order));
  cur = acs__sched_array((size_t)n, sizeof(*cur));
  rev = acs__sched_array((size_t)n, sizeof(*rev));
  keys = acs__sched_array((size_t)n, sizeof(*keys));
  err = (pos && order && cur && rev && keys) ? profile_init(&p, pb) : ACS_ENOMEM;
  if (err != ACS_OK)
    goto out_with_arrays;
  for (int32_t i = 0; i < n; i++)
    pos[pb->g->topo[i]] = i;
  memcpy(cur, start, sizeof(*cur) * (size_t)n);
  for (int r = 0; r < rounds && best > bound; r++) {
    int64_t m;
    fb_round(&p, pos, keys, order, cur, rev);
    m = acs__sched_makespan(pb, cur);
    if (m >= best)
      break;
    best = m;
    memcpy(start, cur, sizeof(*cur) * (size_t)n);
    improved++;
    if (acs__stop_now(stop))
      break;
  }
  if (acs__stop_interrupted(stop))
    err = ACS_EINTERRUPTED;
  profile_destroy(&p);
out_with_arrays:
  free(keys);
  free(rev);
  free(cur);
  free(order);
  free(pos);
  return err != ACS_OK ? err : improved;
}
