/*
 * ilp_util.c - helpers shared by the test-ilp-* programs: running a
 * variant with a context, graphs of named resources, the brute-force
 * enumerator of optima and its tiny instances.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/load/optima.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "report/validation.h"
#include "tests/testutil.h"

#include "tests/ilp_util.h"

/* ---- helpers ---------------------------------------------------------- */

/* Runs variant `name` with "key=value" settings (NULL-ended), a time limit
 * and a seed (tu_run_ctx); out is initialised here. */
int run_sched(const char *name, const struct acs_problem *pb, const char *const *sets,
                     double limit, uint64_t seed, struct acs_schedule *out, struct acs_diag *d)
{
  struct acs_sched_ctx ctx = { seed, limit, 0, NULL, 0 };

  return tu_run_ctx(name, pb, sets, &ctx, out, d);
}

/* A graph with two named resources of the given capacities. */
void named2(struct acs_graph *g, int64_t c1, int64_t c2)
{
  cr_assert_eq(acs_graph_init(g, "tiny", "tiny"), ACS_OK);
  cr_assert_eq(acs_graph_add_resource(g, "R1", ACS_RES_NAMED, c1), 0);
  cr_assert_eq(acs_graph_add_resource(g, "R2", ACS_RES_NAMED, c2), 1);
}

int32_t named_op(struct acs_graph *g, const char *name, int64_t dur, int64_t r1,
                        int64_t r2)
{
  int32_t id = tu_op(g, name, ACS_OP_SHAVE, dur);
  acs_graph_set_demand(g, id, 0, r1);
  acs_graph_set_demand(g, id, 1, r2);
  return id;
}

void nine_instance(struct acs_graph *g, struct acs_problem *pb)
{
  named2(g, 3, 3);
  named_op(g, "a", 2, 2, 0);
  named_op(g, "b", 3, 2, 0);
  named_op(g, "c", 4, 2, 0);
  named_op(g, "d", 5, 1, 0);
  tu_finalize(g);
  tu_problem(pb, g, NULL);
}

/* Whether v fits at [t, t + d) against the ops list[0..k) placed. Usage
 * changes only at starts, so checking t and every start inside suffices. */
int fits(const struct brute *b, int32_t k, int32_t v, int64_t t)
{
  const struct acs_problem *pb = b->pb;
  int64_t d = pb->dur[v];

  if (d == 0)
    return 1;
  for (int32_t q = -1; q < k; q++) {
    int64_t at = q < 0 ? t : b->start[b->list[q]];
    if (at < t || at >= t + d)
      continue;
    for (int r = 0; r < pb->nres; r++) {
      int64_t use = acs_problem_demand(pb, v, r);
      for (int32_t i = 0; i < k; i++) {
        int32_t u = b->list[i];
        if (pb->dur[u] > 0 && b->start[u] <= at && at < b->start[u] + pb->dur[u])
          use += acs_problem_demand(pb, u, r);
      }
      if (use > pb->cap[r])
        return 0;
    }
  }
  return 1;
}

/* Serial SGS of list[0..n): earliest start among est and the ends of the
 * placed ops. Returns the makespan. */
int64_t serial(struct brute *b)
{
  const struct acs_graph *g = b->pb->g;
  int64_t mk = 0;

  for (int32_t k = 0; k < b->n; k++) {
    int32_t v = b->list[k];
    int64_t est = 0, t = -1;
    for (int32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++)
      if (b->start[g->pred[e]] + b->pb->dur[g->pred[e]] > est)
        est = b->start[g->pred[e]] + b->pb->dur[g->pred[e]];
    if (fits(b, k, v, est))
      t = est;
    for (int32_t i = 0; i < k; i++) {
      int64_t c = b->start[b->list[i]] + b->pb->dur[b->list[i]];
      if (c >= est && (t < 0 || c < t) && fits(b, k, v, c))
        t = c;
    }
    b->start[v] = t;
    if (t + b->pb->dur[v] > mk)
      mk = t + b->pb->dur[v];
  }
  return mk;
}

/* Every precedence-feasible list, depth first. O(n! n^3). */
void enumerate(struct brute *b, int32_t k)
{
  const struct acs_graph *g = b->pb->g;

  if (k == b->n) {
    int64_t mk = serial(b);
    if (b->best < 0 || mk < b->best)
      b->best = mk;
    return;
  }
  for (int32_t v = 0; v < b->n; v++) {
    if (b->waiting[v] != 0)
      continue;
    b->waiting[v] = -1;
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      b->waiting[g->succ[e]]--;
    b->list[k] = v;
    enumerate(b, k + 1);
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      b->waiting[g->succ[e]]++;
    b->waiting[v] = 0;
  }
}

int64_t brute_optimum(const struct acs_problem *pb)
{
  struct brute b = { pb, pb->nops, NULL, NULL, NULL, -1 };

  cr_assert_leq(pb->nops, 8, "the enumerator is for tiny instances");
  b.list = calloc((size_t)b.n + 1, sizeof(int32_t));
  b.waiting = calloc((size_t)b.n + 1, sizeof(int32_t));
  b.start = calloc((size_t)b.n + 1, sizeof(int64_t));
  cr_assert(b.list && b.waiting && b.start);
  for (int32_t v = 0; v < b.n; v++)
    b.waiting[v] = pb->g->pred_off[v + 1] - pb->g->pred_off[v];
  enumerate(&b, 0);
  free(b.list);
  free(b.waiting);
  free(b.start);
  return b.best;
}

/* A random tiny instance: n ops, durations scaled by `scale`, two tight
 * named resources, edges i -> j (i < j) with probability 1/4. */
void tiny_instance(struct acs_graph *g, uint64_t seed, int32_t n, int64_t scale)
{
  struct acs_rng r;
  char name[16];

  acs_rng_seed(&r, seed);
  named2(g, 3 + (int64_t)acs_rng_below(&r, 2), 3 + (int64_t)acs_rng_below(&r, 2));
  for (int32_t i = 0; i < n; i++) {
    snprintf(name, sizeof(name), "op%d", i);
    named_op(g, name, scale * (1 + (int64_t)acs_rng_below(&r, 5)) + (int64_t)acs_rng_below(&r, (uint64_t)scale),
             (int64_t)acs_rng_below(&r, 4), (int64_t)acs_rng_below(&r, 4));
  }
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = i + 1; j < n; j++)
      if (acs_rng_below(&r, 4) == 0)
        tu_edge(g, i, j);
  tu_finalize(g);
}

