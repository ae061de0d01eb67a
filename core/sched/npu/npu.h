/*
 * npu.h - seed 000's family: DAG scheduling of an op graph on the NPU
 * (not part of the library's interface).
 *
 * The variants (one file each, registered in core/sched/registry.c):
 *
 *  - sequential.c: one op at a time in topological order (the baseline);
 *  - list.c: list scheduling (parallel and serial generation, priority
 *    rules, randomized iterations) with justification (justify.c);
 *  - spill.c, spill_evict.c (spill_int.h): memory-aware scheduling with
 *    dynamic spills and contiguous CMX ranges; spill.h holds what tests
 *    and benchmarks measure of it;
 *  - ilp.c: the time-indexed ILP (core/sched/ilpmodel.h, shared with the
 *    other families' ILPs);
 *  - strip.c: the strip-packing ILP;
 *
 * and the barrier pass (barrier.h; barrier*.c, barrier_int.h,
 * barrier_alloc.h), which turns any family's schedule into a barrier
 * program (docs/barriers.md).
 *
 * Unlike the other family folders (modulo/, gang/, affine/, cascade/) this
 * one has no lower.c and no check.c: these variants schedule the problem's
 * op graph directly, so their schedules already are the common schedule
 * (core/model/schedule.h), with nothing to lower, and the common verifier
 * (core/model/verify.c) is their check.
 */
#ifndef ACS_SCHED_NPU_NPU_H
#define ACS_SCHED_NPU_NPU_H

#include "core/sched/common.h"

/* The option ilp and strip share: their incumbent is the list scheduler's
 * best of this many samples (acs__list_heuristic). */
#define ACS__OPT_INCUMBENT_ITERATIONS(type)                                          \
  ACS_OPT_INT_FIELD(type, iterations, "1000", 0, 100000000,                          \
    "list scheduler samples for the incumbent (at most a tenth of the time limit)")

/*
 * Serial schedule generation against a resource profile (justify.c).
 *
 * acs__serial_sgs: serial SGS, taking at each step the eligible op (all
 * predecessors placed) of smallest rank[] and placing it at its earliest
 * precedence- and resource-feasible start.
 *
 * acs__justify: forward-backward improvement of a feasible schedule in
 * start[] for up to `rounds` rounds, keeping the best schedule found (never
 * worse than the input). Rounds stop at the first that does not improve, when
 * the makespan reaches the lower bound `bound`, or when `stop` says so (NULL:
 * never). Returns the number of rounds that improved, or a negative error
 * (ACS_EINTERRUPTED when interrupted).
 *
 * Both place each op with a scan of a profile of B <= 2V breakpoints, so a
 * pass is O(V B R) = O(V^2 R) in the worst case.
 */
int acs__serial_sgs(const struct acs_problem *pb, const int32_t *rank,
                    int64_t *start);
int acs__justify(const struct acs_problem *pb, int64_t *start, int rounds,
                 int64_t bound, const struct acs__stop *stop);

/*
 * The list scheduler's default pass (rule lft, parallel generation, two
 * justification rounds) followed by `iterations` randomized samples seeded
 * by `seed` (list.c, option `iterations`), the best kept in start[]. Used as
 * the incumbent and horizon of the exact variants. Stops at the lower bound
 * or when `stop` says so; ACS_EINTERRUPTED when interrupted. The caller runs
 * the precheck.
 */
int acs__list_heuristic(const struct acs_problem *pb, int64_t iterations,
                        uint64_t seed, const struct acs__stop *stop, int64_t *start,
                        struct acs_diag *d);

#endif
