/*
 * sequential.c - the baseline: one op at a time, in topological order.
 *
 * Every op starts when the previous one in the graph's topological order
 * (g->topo) ends, so precedence holds trivially and at most one op runs at
 * any instant; the only way to violate a capacity is an op that alone
 * exceeds it, which the precheck rejects. The makespan is the sum of all
 * durations: the upper end of the range every other variant should beat.
 * O(V + E) for the schedule (O(V log V) for the unit sweep of the output).
 */
#include "config.h"

#include <stdlib.h>

#include "core/sched/npu/npu.h"
#include "core/sched/gang/gang.h"

static int sequential_schedule(const struct acs_problem *pb, const void *opts,
                               const struct acs_sched_ctx *ctx,
                               struct acs_schedule *out, struct acs_diag *d)
{
  const int32_t *topo = pb->g->topo;
  int64_t *start, t = 0;
  int err;

  (void)opts;
  /* On SDF graphs "sequential" is the thesis's sequential approach (seed
   * 004, section 6.4): one kernel per gang, each pipelined with its own
   * transfers, every intermediate through DDR. */
  if (pb->kind == ACS_WL_SDF)
    return acs__sdf_sequential(pb, ctx, out, d);
  err = acs__sched_precheck(pb, d);
  if (err != ACS_OK)
    return err;
  start = acs__sched_array((size_t)pb->nops, sizeof(*start));
  if (!start)
    return ACS_ENOMEM;
  /* The precheck bounds the sum of durations, so t cannot overflow. */
  for (int32_t i = 0; i < pb->nops; i++) {
    start[topo[i]] = t;
    t += pb->dur[topo[i]];
  }
  err = acs__sched_emit(pb, start, out);
  free(start);
  return err;
}

static const struct acs_opt_desc sequential_opts[] = {
  { NULL, 0, 0, NULL, 0, 0, NULL, NULL },
};

const struct acs_sched_ops acs_sched_sequential = {
  .name = "sequential",
  .memory_model = ACS_MEM_TRANSIENT, /* one op at a time: CMX holds only the running op's tensors (on SDF graphs, its buffers) */
  .seed = "004_f57d4dacff9f18c5.txt",
  .summary = "one op at a time in topological order (baseline); on SDF graphs one kernel per gang",
  .kinds = (1u << ACS_WL_DNN) | (1u << ACS_WL_GRAPH) | (1u << ACS_WL_PSPLIB) |
           (1u << ACS_WL_STG) | (1u << ACS_WL_LOOP) | (1u << ACS_WL_SDF) |
           (1u << ACS_WL_AFFINE),
  .opts_size = 0,
  .opts = sequential_opts,
  .schedule = sequential_schedule,
};
