/*
 * barrier.h - the barrier pass (seed 000, "Scheduling with Barrier Resource
 * Constraints", "Barrier Slots and Wait Lists"): turns a complete, verified
 * schedule into one that runs with `barriers` hardware barriers of
 * `barrier_slots` producer slots each, by giving every op an update barrier
 * and a wait list and adding the control edges this needs. It runs after any
 * DAG scheduler when the platform sets `barriers` > 0 (cli/job.c).
 *
 * The hardware model and the rule that reads the program back are in
 * core/model/bprog.h; the construction and why it is correct in barrier.c.
 */
#ifndef ACS_SCHED_BARRIER_H
#define ACS_SCHED_BARRIER_H

#include <signal.h>

#include "core/model/schedule.h"
#include "core/sched/sched.h"

struct acs_barrier_stats {
  int32_t steps;           /* unit-delay steps of the barrier list schedule */
  int32_t uses;            /* barrier uses (virtual barriers) programmed */
  int32_t joins;           /* ops that joined a use as an extra producer */
  int32_t deferred;        /* times a ready op found no barrier and waited a step */
  int64_t reuse_edges;     /* previous use's consumers (or producers) -> new producer */
  int64_t coproducer_edges;/* producers of the use an op waits on -> the op */
  int retimed;             /* 1 when the times had to change */
  /* acs_barrier_pass: the candidate kept, and how many were built */
  int32_t limit;           /* the barrier limit it was built for (<= barriers) */
  int mode;                /* enum acs_barrier_mode */
  int32_t candidates;
};

/*
 * Builds the barrier program of s (complete and verified, s->barriers > 0;
 * s->barrier_slots 0 = unlimited): replaces every update_barrier and wait,
 * appends the added edges as ACS_EDGE_CONTROL and, when an added edge
 * contradicts the planned times, re-times s (units reassigned, CMX ranges
 * moved with their ops). Returns ACS_OK; ACS_EINFEASIBLE when an op needs
 * more producer slots than a barrier has (message names it); ACS_EINVAL when
 * s->barriers <= 0 or s is not a complete acyclic schedule; ACS_ENOMEM.
 * `pb` is the problem s was made from (only for the platform; may be NULL).
 *
 * A program for fewer barriers is also one for `barriers`, so the pass
 * builds candidates for the limits b, b/2, b/4, ..., 1 in both orders
 * (enum acs_barrier_mode) and keeps the one with the shortest planned
 * makespan (then the fewest added edges, then the first built): doubling
 * `barriers` never lengthens the plan. 2 log2(b) + 2 constructions.
 *
 * ctx (may be NULL) gives the interrupt flag: the constructions poll it at
 * every op (seconds in all on 10^5-op schedules) and the pass returns
 * ACS_EINTERRUPTED with s as it was.
 */
int acs_barrier_pass(const struct acs_problem *pb, struct acs_schedule *s,
                     const struct acs_sched_ctx *ctx, struct acs_diag *d);
/* The same, reporting the kept candidate in st (may be NULL); interrupted
 * may be NULL. */
int acs__barrier_search(struct acs_schedule *s, struct acs_barrier_stats *st,
                        const volatile sig_atomic_t *interrupted, struct acs_diag *d);

/*
 * One construction for the limit s->barriers. The order in which ops get
 * their barriers (barrier.c explains both):
 * PLAN takes them in the order of the planned starts and prefers choices
 * whose edges the plan already satisfies (what acs_barrier_pass uses);
 * UNIT_DELAY is the seed's unit-delay list schedule, kept for comparison.
 */
enum acs_barrier_mode { ACS_BARRIER_PLAN, ACS_BARRIER_UNIT_DELAY };
int acs__barrier_run(struct acs_schedule *s, int mode, struct acs_barrier_stats *st,
                     const volatile sig_atomic_t *interrupted, struct acs_diag *d);

/* New times for s when an edge from first_new_edge on contradicts them
 * (barrier_retime.c): 0 when none does, 1 when re-timed, or an error. */
int acs__barrier_retime(struct acs_schedule *s, int32_t first_new_edge, struct acs_diag *d);

#endif
