/*
 * benchutil.h - shared helpers of the benchmarks (figures, not tests).
 */
#ifndef ACS_BENCH_BENCHUTIL_H
#define ACS_BENCH_BENCHUTIL_H

#include "core/load/load.h"
#include "core/sched/sched.h"

/* Peak resident set size of this process so far, in MiB (getrusage). */
double bench_peak_rss_mib(void);

/* CPU seconds this process has used (CLOCK_PROCESS_CPUTIME_ID): on a
 * machine shared with other work, the figure that does not depend on the
 * load, beside the wall-clock one. */
double bench_cpu_seconds(void);

/*
 * A random layered DAG shaped like a DNN on an NPU: layers of 16 to 256 ops;
 * a quarter are dma transfers (one DMA channel, CMX bytes of the tile moved),
 * the rest dpu compute (one PE, CMX bytes of the output tile); each op of a
 * layer after the first has 1 to 3 predecessors in the previous layer.
 * Resources pe, dma, cmx (indices 0, 1, 2). Deterministic for a seed.
 */
int bench_layered_dag(struct acs_graph *g, uint64_t seed, int32_t n,
                      int64_t cmx_max, struct acs_diag *d);

/*
 * Runs scheduler `name` with "key=value" settings (NULL-ended) on pb into
 * out (initialised here). *seconds gets the time of schedule() alone.
 */
int bench_run(const char *name, const struct acs_problem *pb,
              const char *const *sets, struct acs_schedule *out,
              double *seconds, struct acs_diag *d);

/* Known optima or bounds of a PSPLIB set, read from a results file: rows
 * whose first fields are integers (group, instance, value[, value2]). */
struct bench_optima {
  size_t n;
  int32_t *group, *inst;
  int64_t *v1, *v2;    /* v2 = -1 when the row has only one value */
};
int bench_optima_load(const char *path, struct bench_optima *o);
void bench_optima_free(struct bench_optima *o);
/* Index of the row of file name j<jobs><group>_<inst>.sm, or -1. */
long bench_optima_find(const struct bench_optima *o, const char *smpath);

#endif
