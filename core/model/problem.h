/*
 * problem.h - a graph bound to a platform: what schedulers consume.
 *
 * Binding turns work into cycles (MACs over pe_macs_per_cycle, bytes over the
 * DDR or DMA bandwidth) and resolves resource capacities (pe_count,
 * dma_channels, CMX bytes, or the workload's own capacities).
 */
#ifndef ACS_MODEL_PROBLEM_H
#define ACS_MODEL_PROBLEM_H

#include "core/model/graph.h"
#include "core/model/platform.h"

struct acs_workload;

struct acs_problem {
  const struct acs_graph *g;
  /* The workload g was built from, or NULL (tests, benchmarks): a family
   * scheduler finds its own model there (w->model; core/load/load.h). Set
   * by the caller after acs_problem_init. */
  const struct acs_workload *wl;
  struct acs_platform plat;
  int32_t nops, nres;
  int64_t *dur;            /* cycles per op */
  int64_t cap[ACS_MAX_RES];
  int res_pe, res_dma, res_cmx, res_ddr; /* resource index of each kind, -1 if absent */
};

/*
 * g must be finalized. Guarantees what schedulers rely on to never overflow:
 * every duration, MAC count, byte count, demand and capacity is at most
 * ACS_QTY_MAX (2^53), and so is the sum of all durations. Fails with
 * ACS_ERANGE and the op's line when a platform makes an op too long (a huge
 * transfer on a slow link), ACS_EINVAL on a bad graph.
 */
int acs_problem_init(struct acs_problem *pb, const struct acs_graph *g,
                     const struct acs_platform *plat, struct acs_diag *d);
void acs_problem_destroy(struct acs_problem *pb);

static inline int64_t acs_problem_demand(const struct acs_problem *pb, int32_t op, int res)
{
  return acs_graph_demand(pb->g, op, res);
}

/*
 * Returns ACS_EINFEASIBLE, with the op, resource and amounts in d, when some
 * op alone demands more than a capacity (no schedule can exist).
 */
int acs_problem_check_demands(const struct acs_problem *pb, struct acs_diag *d);

/* Lower bounds on the makespan, in cycles. */
int64_t acs_bound_critical_path(const struct acs_problem *pb); /* O(V + E) */
int64_t acs_bound_resources(const struct acs_problem *pb);     /* max_r ceil(sum d*r / cap), O(V R) */
int64_t acs_bound_best(const struct acs_problem *pb);          /* max of the above */

#endif
