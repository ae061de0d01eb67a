/*
 * testutil.h - shared helpers for the Criterion tests.
 */
#ifndef ACS_TESTS_TESTUTIL_H
#define ACS_TESTS_TESTUTIL_H

#include "core/model/schedule.h"

/* ACS_SRCDIR "/" rel, in a static buffer (one call per expression). */
const char *tu_path(const char *rel);
/* A fresh directory for one test, under ${TMPDIR:-/tmp}; removed with
 * everything in it when the test program ends (testutil.c). */
const char *tu_tmpdir(void);
/* A fresh directory (tu_tmpdir) for each test of a suite whose .init it is
 * (TestSuite(x, .init = tu_scratch_init)), and tu_at(name), the path of
 * `name` in it (four static buffers in turn: up to four in one expression). */
void tu_scratch_init(void);
const char *tu_at(const char *name);
/* Writes `text` to a file `name` in a fresh directory (tu_tmpdir); returns
 * its path, in a static buffer (one call per expression). */
const char *tu_write_tmp(const char *name, const char *text);

/* A graph with resources "pe" (PE), "dma" (DMA) and "cmx" (CMX), in that
 * order (indices TU_PE, TU_DMA, TU_CMX). */
enum { TU_PE = 0, TU_DMA = 1, TU_CMX = 2 };
void tu_graph_npu(struct acs_graph *g, const char *name);
/* Adds an op of fixed duration; dpu/shave ops demand one PE, dma ops one
 * channel (src ddr, dst cmx). Returns its id. */
int32_t tu_op(struct acs_graph *g, const char *name, int kind, int64_t cycles);
void tu_edge(struct acs_graph *g, int32_t a, int32_t b);
/* Finalizes g, failing the test on error. */
void tu_finalize(struct acs_graph *g);
/* A finalized NPU graph of n SHAVE ops named "a", "b", ... with durations
 * dur and edges[k] = {src, dst}. */
void tu_small_graph(struct acs_graph *g, int32_t n, const int64_t *dur,
                    const int32_t (*edges)[2], int32_t nedges);

/* Binds g to the default platform with the given overrides ("k=v", NULL-ended). */
void tu_problem(struct acs_problem *pb, const struct acs_graph *g, const char *const *sets);

struct acs_sched_ctx;

/* The options of variant `name`: its defaults, then each "key=value" of
 * sets (NULL-ended), each of which must be accepted (message in d).
 * Allocated: free() them. */
void *tu_sched_opts(const char *name, const char *const *sets, struct acs_diag *d);
/* Runs variant `name` with those options and context ctx (seed, time
 * limit, interrupt flag) on pb; out is initialised here and must be
 * destroyed by the caller. Returns the variant's result. */
int tu_run_ctx(const char *name, const struct acs_problem *pb, const char *const *sets,
               const struct acs_sched_ctx *ctx, struct acs_schedule *out, struct acs_diag *d);

/* Runs variant `name` with its default options on pb into s (initialised
 * here; the caller destroys it) and fails the test unless it succeeds and
 * the schedule verifies. */
void tu_schedule_verified(const char *name, const struct acs_problem *pb,
                          struct acs_schedule *s);

/* Fails the test with the verifier's message unless s verifies. */
void tu_assert_verified(const struct acs_schedule *s);

/*
 * A random layered DAG of n ops over the NPU resources: dpu ops (cycles in
 * [1, 100], cmx demand in [1, cmx_max]) and dma ops, each op with 1 to 3
 * predecessors in earlier layers. Deterministic for a seed.
 */
void tu_random_dag(struct acs_graph *g, uint64_t seed, int32_t n, int64_t cmx_max);

/* tu_random_dag's graph (cmx_max 1000), its problem on the default
 * platform and a verified list schedule; tu_case_free frees the three. */
struct tu_case {
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
};
void tu_case_random(struct tu_case *c, uint64_t seed, int32_t n);
void tu_case_free(struct tu_case *c);

/*
 * Result tables (core/model/rtab.h) of every type on s: "plans" (shown; an
 * int64, a double with units, a text column with UTF-8 and an empty value;
 * three rows; one attribute of each type) and "front" (no rows).
 */
void tu_sample_rtabs(struct acs_schedule *s);
/* Fails the test unless a and b hold the same result tables. */
void tu_assert_rtabs_eq(const struct acs_schedule *a, const struct acs_schedule *b);

#endif
