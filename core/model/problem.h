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

/* Workload kinds (DESIGN.md "Scheduler families and workload kinds"): the
 * DAG kinds, then one per family with a model of its own. Names:
 * acs_wl_kind_name (core/load/load.h). */
enum acs_wl_kind { ACS_WL_DNN, ACS_WL_GRAPH, ACS_WL_PSPLIB, ACS_WL_STG,
                   ACS_WL_LOOP, ACS_WL_SDF, ACS_WL_AFFINE, ACS_WL__COUNT };

/* Hex digits of a workload's content digest (SHA-256). */
#define ACS_DIGEST_HEX 64

struct acs_workload;
struct acs_loop;
struct acs_sdf_graph;
struct acs_sare;
struct acs_lgraph;

struct acs_problem {
  const struct acs_graph *g;
  /*
   * The workload g was built from, or NULL (tests, benchmarks), and what a
   * scheduler may know of it: its kind (enum acs_wl_kind; -1 when unknown),
   * its family model (a loop, an SDF graph, a .sare system, a layer graph;
   * read it through the typed getters below) and its content digest (hex,
   * ACS_DIGEST_HEX digits; NULL when unknown). acs_problem_init leaves them
   * unknown; acs_workload_bind (core/load/load.h) fills all four.
   */
  const struct acs_workload *wl;
  int kind;
  const void *model;
  const char *digest;
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
 * The workload's family model, typed, or NULL when the workload is not of
 * that kind (or has no model): a loop (ACS_WL_LOOP, core/model/loop.h), an
 * SDF graph (ACS_WL_SDF, core/model/sdf.h), a system of recurrence
 * equations (ACS_WL_AFFINE, core/model/sare.h), a layer graph (ACS_WL_DNN
 * read from an ONNX model or a SCALE-Sim table, core/model/layer.h). O(1).
 */
const struct acs_loop *acs_problem_loop(const struct acs_problem *pb);
const struct acs_sdf_graph *acs_problem_sdf(const struct acs_problem *pb);
const struct acs_sare *acs_problem_sare(const struct acs_problem *pb);
const struct acs_lgraph *acs_problem_lgraph(const struct acs_problem *pb);

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
