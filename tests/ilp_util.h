/*
 * ilp_util.h - helpers shared by the test-ilp-* programs: running a
 * variant with a context, graphs of named resources, the brute-force
 * enumerator of optima and its tiny instances.
 */
#ifndef ACS_TESTS_ILP_UTIL_H
#define ACS_TESTS_ILP_UTIL_H

#include <stdint.h>

#include "core/sched/sched.h"
#include "tests/testutil.h"

/* ---- helpers ---------------------------------------------------------- */

/* Runs variant `name` with "key=value" settings (NULL-ended), a time limit
 * and a seed (tu_run_ctx); out is initialised here. */
int run_sched(const char *name, const struct acs_problem *pb, const char *const *sets,
                     double limit, uint64_t seed, struct acs_schedule *out, struct acs_diag *d);

/* A graph with two named resources of the given capacities. */
void named2(struct acs_graph *g, int64_t c1, int64_t c2);

int32_t named_op(struct acs_graph *g, const char *name, int64_t dur, int64_t r1,
                        int64_t r2);

/* The hand-worked instance: three ops of demand 2 on R1 of capacity 3 run
 * one at a time (2 + 3 + 4), a fourth of demand 1 fits beside any of
 * them; its optimum is 9, above the bound max(critical path 5, R1 work
 * ceil(23 / 3) = 8). g and pb are made here. */
void nine_instance(struct acs_graph *g, struct acs_problem *pb);

/* ---- the brute-force enumerator ---------------------------------------- */

struct brute {
  const struct acs_problem *pb;
  int32_t n, *list, *waiting;
  int64_t *start, best;
};

/* Whether v fits at [t, t + d) against the ops list[0..k) placed. Usage
 * changes only at starts, so checking t and every start inside suffices. */
int fits(const struct brute *b, int32_t k, int32_t v, int64_t t);

/* Serial SGS of list[0..n): earliest start among est and the ends of the
 * placed ops. Returns the makespan. */
int64_t serial(struct brute *b);

/* Every precedence-feasible list, depth first. O(n! n^3). */
void enumerate(struct brute *b, int32_t k);

int64_t brute_optimum(const struct acs_problem *pb);

/* A random tiny instance: n ops, durations scaled by `scale`, two tight
 * named resources, edges i -> j (i < j) with probability 1/4. */
void tiny_instance(struct acs_graph *g, uint64_t seed, int32_t n, int64_t scale);

#endif
