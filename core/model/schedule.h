/*
 * schedule.h - a schedule, self-contained.
 *
 * A schedule carries everything needed to check it without the graph it came
 * from: every op (the graph's ops first, in graph order, then ops the
 * scheduler added such as spill transfers) with kind, duration, demands,
 * unit, CMX range and barriers; the resources with their capacities; every
 * edge (the graph's plus added control edges); the wait lists. This is
 * exactly what the HDF5 /schedules tables store, so a schedule read back from
 * a results file can be verified again.
 */
#ifndef ACS_MODEL_SCHEDULE_H
#define ACS_MODEL_SCHEDULE_H

#include "core/model/ddrlink.h"
#include "core/model/problem.h"
#include "core/model/rtab.h"

struct acs_sop {
  const char *name;        /* owned by the schedule arena */
  uint8_t kind;            /* enum acs_op_kind */
  uint8_t src, dst;        /* dma memories */
  int32_t unit;            /* PE index (compute) or DMA channel (dma); -1 none */
  int64_t start, end;      /* planned, cycles */
  int64_t dur;             /* end - start must equal this */
  int64_t bytes;           /* dma bytes */
  int64_t out_bytes;
  int32_t slots;           /* barrier slot demand */
  int64_t cmx_offset;      /* -1 none */
  int64_t cmx_bytes;       /* -1 none */
  double cmx_alloc, cmx_free; /* [alloc, free) the range is held; NaN none */
  int32_t update_barrier;  /* -1 none */
  double sim_start, sim_end;  /* simulated, NaN when not simulated */
};

struct acs_wait {
  int32_t op, barrier;
};

struct acs_schedule {
  struct acs_arena arena;
  int32_t norig;           /* ops [0, norig) are the graph's */
  int32_t nops;
  size_t cap_ops;
  struct acs_sop *ops;

  int32_t nres;
  const char *res_name[ACS_MAX_RES];
  int64_t res_cap[ACS_MAX_RES];
  int res_pe, res_dma, res_cmx, res_ddr;
  int64_t *demand;         /* nops x nres */

  int32_t nedges;
  size_t cap_edges;
  struct acs_edge *edges;

  int32_t nwaits;
  size_t cap_waits;
  struct acs_wait *waits;

  int64_t cmx_capacity;    /* bytes; -1 when the platform has no CMX notion */
  int64_t cmx_align;
  int32_t barriers;        /* limit, 0 = none */
  int32_t barrier_slots;   /* limit, 0 = none */
  /* The platform's DDR link; link.link_bpc == 0 when unknown (nothing is
   * checked against it). */
  struct acs_ddrlink link;
  int64_t makespan;        /* max end */
  /* A lower bound on the makespan of every schedule of the problem that the
   * scheduler proved while searching (cycles; 0 = none), e.g. by showing
   * that no schedule within a horizon exists. For a schedule proven optimal
   * it equals the makespan. acsim reports the larger of it and
   * acs_bound_best() as the run's lower_bound_cycles. */
  int64_t lower_bound;

  /* The family's own result tables (core/model/rtab.h), in the order added. */
  int32_t ntables;
  size_t cap_tables;
  struct acs_rtab **tables;
};

/*
 * What a scheduler variant assumes of on-chip memory (README "Memory
 * models"; each variant declares one, core/sched/sched.h). The
 * report answers CMX-sizing questions from resident variants only: a
 * transient variant's makespan at a small CMX is an optimistic bound, not a
 * schedule a real CMX of that size could run.
 */
enum acs_mem_model {
  ACS_MEM_UNDECLARED, /* a variant must declare one (test-sched checks) */
  ACS_MEM_TRANSIENT,  /* a tensor holds CMX only while an op that reads or writes it runs */
  ACS_MEM_RESIDENT,   /* a tensor holds memory from its producer to its last consumer,
                       * or is spilled to DDR and brought back */
  ACS_MEM_UNUSED,     /* the variant places nothing in CMX (loops, recurrences) */
};
/* "transient", "resident", "none"; "" for undeclared. */
const char *acs_mem_model_name(int m);

/* Empty schedule (for readers that fill it themselves). */
void acs_schedule_init(struct acs_schedule *s);
/* Copies ops, demands, durations, resources and edges of pb; every op
 * unscheduled (start = end = -1, unit -1, no CMX range, no barrier). */
int acs_schedule_init_problem(struct acs_schedule *s, const struct acs_problem *pb);
void acs_schedule_destroy(struct acs_schedule *s);
/* *d (uninitialised) becomes a deep copy of src: ops and their names,
 * demands, resources, edges, waits, tables; independent of src afterwards.
 * On failure *d is left destroyed. O(size of src). */
int acs_schedule_copy(struct acs_schedule *d, const struct acs_schedule *src);

/* Appends an op (name copied) with zero demands; returns its index or < 0. */
int32_t acs_schedule_add_op(struct acs_schedule *s, const struct acs_sop *op);
int acs_schedule_set_demand(struct acs_schedule *s, int32_t op, int res, int64_t v);
static inline int64_t acs_schedule_demand(const struct acs_schedule *s, int32_t op, int res)
{
  return s->demand[(size_t)op * (size_t)s->nres + (size_t)res];
}
int acs_schedule_add_edge(struct acs_schedule *s, int32_t src, int32_t dst, int kind);
int acs_schedule_add_wait(struct acs_schedule *s, int32_t op, int32_t barrier);
/* Sets makespan = max end over ops. */
void acs_schedule_finish(struct acs_schedule *s);

/*
 * Checks every invariant that applies and reports the first violation in d
 * (the message names the ops, times and amounts). Returns ACS_OK or
 * ACS_EVERIFY.
 *  - every op scheduled, start >= 0, end - start == dur;
 *  - precedence over every edge (data and control): dst.start >= src.end;
 *  - units: compute ops that demand a PE run on a PE index in [0, pe count),
 *    dma ops on a channel in [0, dma channels); ops on one unit never overlap;
 *  - capacities: at every instant the demands of running ops fit each
 *    resource (zero-length ops hold nothing);
 *  - CMX ranges: inside [0, cmx_capacity), offsets aligned, cmx_alloc <= start
 *    and end <= cmx_free, and ranges of ops whose holding intervals overlap
 *    are disjoint;
 *  - barriers: update ids in [0, barriers) and at most barrier_slots slots on
 *    one barrier use when limits are set; every wait refers to a barrier some
 *    predecessor updates; and, when a barrier program is present, the rules
 *    of core/model/bprog_check.c (every edge enforced by the program, the
 *    edges holding every order the program imposes, the plan an execution
 *    of the program, the reuse rule in every execution, and at most
 *    `barriers` uses live at once by Dilworth's theorem), at any size.
 *  - PE-to-PE transfers (dma ops from pe to pe): no channel, one data
 *    predecessor computing on a PE, data successors computing on one other PE.
 *  - the DDR link (when s->link is known): every DDR transfer takes at least
 *    its latency plus its bytes at one transfer's rate, and the link could
 *    have carried all of them as planned (acs_ddrlink_check).
 * O((V + E) log V), plus the reachability sweeps of the barrier checks
 * (core/model/reach.h, at worst O((V + E) V / 64) word operations).
 */
int acs_schedule_verify(const struct acs_schedule *s, struct acs_diag *d);
/* The same, handing back in *keep the barrier program it checked (as
 * acs_bprog_build makes it; the caller frees it with acs_bprog_destroy)
 * when s passes; *keep is zeroed otherwise, and when s has no program. A
 * simulation of s can take it (acs_sim_opts.bprog) instead of building it
 * again. */
struct acs_bprog;
int acs_schedule_verify_keep(const struct acs_schedule *s, struct acs_bprog *keep,
                             struct acs_diag *d);

/* Summary figures of a schedule. */
struct acs_schedule_stats {
  int64_t makespan;
  int64_t peak_cmx_bytes;  /* max over time of held CMX: ranges when assigned, else cmx demand */
  int64_t spill_bytes;     /* bytes of added DMA ops that write CMX to DDR */
  int64_t ddr_bytes;       /* bytes of all DMA ops touching DDR */
  int32_t barriers_used;   /* distinct update barriers */
  int64_t control_edges;   /* edges of kind control */
  double pe_busy, dma_busy;/* sum of durations on PEs / DMA channels */
};
void acs_schedule_stats(const struct acs_schedule *s, struct acs_schedule_stats *st);

#endif
