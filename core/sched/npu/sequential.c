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

#include "core/sched/npu/npu.h"
#include "core/sched/gang/gang.h"

/* The precheck bounds the sum of durations, so t cannot overflow. */
static int topo_starts(const struct acs_problem *pb, void *arg, int64_t *start,
                       struct acs_diag *d)
{
  const int32_t *topo = pb->g->topo;
  int64_t t = 0;

  (void)arg;
  (void)d;
  for (int32_t i = 0; i < pb->nops; i++) {
    start[topo[i]] = t;
    t += pb->dur[topo[i]];
  }
  return ACS_OK;
}

static int sequential_schedule(const struct acs_problem *pb, const void *opts,
                               const struct acs_sched_ctx *ctx,
                               struct acs_schedule *out, struct acs_diag *d)
{
  (void)opts;
  /* On SDF graphs "sequential" is the thesis's sequential approach (seed
   * 004, section 6.4): one kernel per gang, each pipelined with its own
   * transfers, every intermediate through DDR. */
  if (pb->kind == ACS_WL_SDF)
    return acs__sdf_sequential(pb, ctx, out, d);
  return acs__sched_by_starts(pb, topo_starts, NULL, out, d);
}

const struct acs_sched_ops acs_sched_sequential = {
  .name = "sequential",
  .memory_model = ACS_MEM_TRANSIENT, /* one op at a time: CMX holds only the running op's tensors (on SDF graphs, its buffers) */
  .seed = ACS_SEED_VAN_SON,
  .summary = "one op at a time in topological order (baseline); on SDF graphs one kernel per gang",
  .kinds = ACS_KINDS_OPGRAPH | ACS_WL_BIT(ACS_WL_LOOP) | ACS_WL_BIT(ACS_WL_SDF) |
           ACS_WL_BIT(ACS_WL_AFFINE),
  .schedule = sequential_schedule,
};
