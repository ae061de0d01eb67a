/*
 * ctrledge.h - control edges from a time-by-address packing (seed 000, "An
 * Algorithm for Control Edge Generation"), internal to core/sched.
 *
 * A packing is a set of rectangles: time [t0, t1) by address [lo, hi), one
 * per CMX range a schedule holds, pairwise disjoint. The planned times keep
 * them apart, but another execution of the same schedule (other durations,
 * DDR contention, a hardware runtime that only sees edges) shifts them. The
 * control edges make any execution that respects the edges keep the ranges
 * disjoint: whenever two rectangles share an address, everything that holds
 * the earlier one finishes before the later one is allocated.
 *
 * Two layers:
 *  - acs__ctrl_pairs, pure geometry: sweeps the rectangles in order of t0
 *    and reports each pair (prev, curr) where prev is, at some address of
 *    curr, the last rectangle that held it. For any address the rectangles
 *    holding it are disjoint in time, so consecutive holders are reported
 *    and every earlier holder is ordered before curr through them.
 *  - acs__ctrl_edges_add, on a schedule: builds the packing from the ops'
 *    cmx_offset/cmx_bytes/cmx_alloc/cmx_free, turns each pair into edges
 *    (each op that holds prev, i.e. prev's op or its readers, before the op
 *    that allocates curr), drops those already implied by a path, and adds
 *    the rest as ACS_EDGE_CONTROL edges.
 */
#ifndef ACS_SCHED_CTRLEDGE_H
#define ACS_SCHED_CTRLEDGE_H

#include "core/model/schedule.h"

struct acs_ctrl_rect {
  double t0, t1;     /* time [t0, t1) */
  int64_t lo, hi;    /* addresses [lo, hi) */
  int64_t key;       /* tie-break of the sweep at equal t0 (smaller first) */
  int32_t id;        /* reported in pairs */
};

/*
 * Calls emit(ctx, prev, curr) for every pair described above (each pair
 * once per rectangle curr, prev != curr), in sweep order. Rectangles are
 * swept by (t0, t1, key): a zero-length rectangle at t goes before one that
 * starts at t. The packing must be disjoint; rectangles with lo >= hi are
 * ignored. A nonzero return from emit stops the sweep and is returned.
 * O(n log n) for the sort plus O(n (log m + m)) for the set of m pieces;
 * returns ACS_OK, ACS_ENOMEM or emit's value.
 */
int acs__ctrl_pairs(const struct acs_ctrl_rect *r, size_t n,
                    int (*emit)(void *ctx, int32_t prev, int32_t curr), void *ctx);

struct acs_ctrl_stats {
  int64_t rects;       /* CMX ranges in the packing */
  int64_t pairs;       /* (prev, curr) rectangle pairs */
  int64_t candidates;  /* distinct (holder, allocator) op pairs */
  int64_t implied;     /* candidates already implied by a path: dropped */
  int64_t unknown;     /* searches that hit the budget: edge kept */
  int64_t added;       /* control edges added */
  int64_t visited;     /* nodes visited by all reachability searches */
};

/*
 * Adds the control edges of s's packing to s. `pos` gives every op a
 * position in a topological order of s's edges that is consistent with the
 * planned times (e.g. the order in which a scheduler started them); NULL
 * computes one (Kahn's algorithm by (start, id)). An op is a holder of a
 * range when it is the op that allocated it or a data successor that runs
 * within [cmx_alloc, cmx_free]. A candidate edge u -> v is dropped when v
 * is already reachable from u: a backward search from v over s's edges
 * (and the edges added so far), visiting only ops placed after u, at most
 * `budget` ops per search (0: no search, every candidate is added). The
 * cost is O(E + R log R + C budget) for R ranges and C candidates.
 * ACS_EINVAL when the packing is not consistent with pos (a candidate would
 * point backwards), ACS_ENOMEM.
 */
int acs__ctrl_edges_add(struct acs_schedule *s, const int64_t *pos, int64_t budget,
                        struct acs_ctrl_stats *st);

/*
 * Drops the control edges of s that a path of two or more edges implies,
 * and repeats of an edge (acs_dag_reduce), keeping every data edge and the
 * order of the rest: every execution that respects the edges left respects
 * the ones dropped. *dropped gets how many went. For schedules whose
 * packing adds every candidate (budget 0), where most are implied.
 * O(V + E) plus acs_dag_reduce's bit rows.
 */
int acs__ctrl_edges_reduce(struct acs_schedule *s, int64_t *dropped);

/* The search budget the packing schedulers (strip, contiguous ilp) use:
 * the spill scheduler's default `reduce`. */
#define ACS__CTRL_REDUCE 4096

#endif
