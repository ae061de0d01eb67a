/*
 * spill_util.h - helpers shared by the test-spill-* programs: running
 * `spill`, building ops by hand, finding ops and edges in a schedule.
 */
#ifndef ACS_TESTS_SPILL_UTIL_H
#define ACS_TESTS_SPILL_UTIL_H

#include <stdint.h>

#include "core/sched/npu/spill.h"
#include "tests/testutil.h"

/* ---- helpers ---------------------------------------------------------- */

/* Runs `spill` with "key=value" options (NULL-ended) on pb into out
 * (initialised here); st may be NULL. */
int run_spill(const struct acs_problem *pb, const char *const *sets,
                     struct acs_schedule *out, struct acs_spill_stats *st,
                     struct acs_diag *d);

void run_ok(const struct acs_problem *pb, const char *const *sets,
                   struct acs_schedule *out, struct acs_spill_stats *st);

/* An op with a tensor of out_bytes (a dma loads it from DDR). */
int32_t top(struct acs_graph *g, const char *name, int kind, int64_t cycles,
                   int64_t out_bytes);

int32_t find_op(const struct acs_schedule *s, const char *name);

int sched_has_edge(const struct acs_schedule *s, int32_t a, int32_t b, int kind);

int64_t count_edges_of_kind(const struct acs_schedule *s, int kind);

#endif
