/*
 * barrier.h - the barrier pass (seed 000, "Scheduling with Barrier Resource
 * Constraints", "Barrier Slots and Wait Lists"): turns a complete, verified
 * schedule into one that runs with `barriers` hardware barriers of
 * `barrier_slots` producer slots each, by giving every op an update barrier
 * and a wait list, adding the control edges this needs and, where the
 * barriers run short, delaying ops. It runs after any DAG scheduler when the
 * platform sets `barriers` > 0 (cli/job.c).
 *
 * The hardware model and the rule that reads the program back are in
 * core/model/bprog.h; the construction and why it is correct in barrier.c;
 * how the parts fit in barrier_int.h.
 */
#ifndef ACS_SCHED_BARRIER_H
#define ACS_SCHED_BARRIER_H

#include <signal.h>

#include "core/model/schedule.h"
#include "core/sched/sched.h"

/* The largest barrier count and slot count the pass accepts: the platform's
 * own maxima (core/model/platform.h). A barrier id must fit the int32
 * columns of the results, and slot sums an int64. */
#define ACS_BARRIERS_MAX 65536
#define ACS_BARRIER_SLOTS_MAX 65536

struct acs_barrier_stats {
  int64_t edges;            /* distinct edges of the schedule before the pass */
  int64_t reduced;          /* of those, not implied by others (the waits come from these) */
  int32_t classes;          /* distinct reduced successor sets (consumer classes) */
  int32_t uses;             /* barrier uses (virtual barriers) programmed */
  int32_t barriers_used;    /* physical barriers touched */
  int32_t joins;            /* producers that joined a use another op opened */
  int32_t refused_joins;    /* producers whose class had an open use they could not join */
  int32_t shares;           /* producers that joined the open use of another class */
  int32_t reuses;           /* uses opened on a barrier whose previous use was complete */
  int32_t steals;           /* uses opened on a barrier whose previous use still had
                             * consumers to come (they wait on the new use instead) */
  int32_t waited;           /* times an op found no barrier and waited */
  int64_t attempts;         /* times the sweep asked for a barrier (started or not) */
  int64_t blocked;          /* ... and the op had to wait for a use it consumes */
  int64_t starved;          /* ... and no barrier could be had at all */
  int64_t reuse_edges;      /* previous use's end -> new producer, not implied */
  int64_t coproducer_edges; /* producers of a consumed use -> consumer, not implied */
  int64_t marker_edges;     /* edges the program's reading rule needs (bprog.h) */
  int retimed;              /* 1 when the times changed */
  int released;             /* 1 when the kept sweep kept every op at or after its plan */
  int policy;               /* the allocator policy of the kept sweep (barrier_int.h) */
  int sweeps;               /* sweeps made */
};

/*
 * Builds the barrier program of s (complete and verified, s->barriers > 0;
 * s->barrier_slots 0 = unlimited): replaces every update_barrier and wait,
 * appends the added edges as ACS_EDGE_CONTROL and re-times s when the
 * barriers delay an op (units reassigned, CMX ranges moved with their ops).
 * Returns ACS_OK; ACS_EINFEASIBLE when no program exists for the limits
 * (an op needs more producer slots than a barrier has, or a limit beyond
 * what the model numbers; the message says which); ACS_EINVAL when
 * s->barriers <= 0 or s is not a complete acyclic schedule; ACS_ENOMEM.
 * `pb` is the problem s was made from (only for the platform; may be NULL).
 *
 * Cost: O((V + E) log V) plus the transitive reduction (reach.h) to
 * prepare; then at most fourteen sweeps, four above 5,000 ops and three
 * above 20,000, each O((V + E + A) log V) for the A edges added plus a
 * bounded amount of allocator work per request (barrier.c), and each cut
 * short once it cannot beat the best so far (barrier_pass.c); memory
 * O(V + E + A + min(barriers, V)). No part's work per op grows with the
 * barrier count. An op that must wait for a use whose producer runs is
 * woken when that producer ends (an event: O(1) to wait, O(log_64 V) to be
 * ready again, O(distinct barriers of its predecessors) to be asked
 * again), not polled (barrier_retime.c).
 *
 * ctx (may be NULL) gives the interrupt flag, polled at every decision
 * time: the pass then returns ACS_EINTERRUPTED with s as it was; and the
 * most threads the sweeps after the first run on (ctx->threads; 0 or no
 * ctx: the online CPUs, at most four). The program does not depend on
 * them; memory grows by one sweep's per thread.
 */
int acs_barrier_pass(const struct acs_problem *pb, struct acs_schedule *s,
                     const struct acs_sched_ctx *ctx, struct acs_diag *d);
/* The same, reporting what the kept program needed in st (may be NULL),
 * on at most `threads` threads (acs_sched_ctx.threads); interrupted may be
 * NULL. */
int acs__barrier_run(struct acs_schedule *s, struct acs_barrier_stats *st, int threads,
                     const volatile sig_atomic_t *interrupted, struct acs_diag *d);

/*
 * What the pass derives from a schedule before it reads the barrier
 * limits: the edge graph, its transitive reduction, consumer classes and
 * latest starts (barrier_prep.c), the same for every barrier count. A sweep
 * over barrier counts makes it once per schedule (cli/job_memo.c) rather
 * than once per run. It records a digest of what it was made from (op
 * times, edges), which the pass checks in O(V + E).
 */
struct acs_barrier_prep;

/* ACS_OK; ACS_EINVAL when s's edges have a cycle or name no op; ACS_ENOMEM. */
int acs_barrier_prep_new(const struct acs_schedule *s, struct acs_barrier_prep **out);
void acs_barrier_prep_free(struct acs_barrier_prep *bp);
/* The memory it holds, roughly. */
size_t acs_barrier_prep_bytes(const struct acs_barrier_prep *bp);
/* acs_barrier_pass with bp made from s as it is now (NULL: made here);
 * ACS_EINVAL when bp was made from another schedule. */
int acs_barrier_pass_prepared(const struct acs_problem *pb, struct acs_schedule *s,
                              const struct acs_barrier_prep *bp,
                              const struct acs_sched_ctx *ctx, struct acs_diag *d);

/* New times for s when an edge from first_new_edge on contradicts them, by
 * the pass's time sweep without barriers (barrier_retime.c): 0 when none
 * does, 1 when re-timed, or an error. For programs built by other means. */
int acs__barrier_retime(struct acs_schedule *s, int32_t first_new_edge, struct acs_diag *d);

#endif
