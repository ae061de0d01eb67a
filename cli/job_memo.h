/*
 * job_memo.h - the verified schedules of the last few runs of this process,
 * before their barrier programs.
 *
 * Barrier count and slots are read by the barrier pass only, after the
 * scheduler (acs_param_after_scheduling), so runs that differ in nothing
 * else schedule to the same verified schedule: a sweep over barrier counts
 * schedules each problem once and runs only the barrier pass, its
 * verification, the measures and the simulation again. Keyed by the
 * workload's content digest, every other platform parameter, the scheduler,
 * its options, the seed and the time limit; process-local (sweep workers
 * are processes), least recently used first out, bounded in entries and
 * bytes. Deterministic: a hit is what the scheduler and the verifier said.
 */
#ifndef ACS_CLI_JOB_MEMO_H
#define ACS_CLI_JOB_MEMO_H

#include "cli/job.h"

/*
 * The outcome of scheduling and verifying sel on pb before: row's status,
 * message and sched_seconds as they were, and, when it was a verified
 * schedule, *s (destroyed first) becomes its copy with pb's barrier limits.
 * Returns 1 for a schedule, 0 for an outcome without one (infeasible,
 * error), -1 when nothing is known (a miss; s and row untouched) and
 * ACS_ENOMEM when the copy failed.
 */
int acs_job_memo_find(const struct acs_problem *pb, const struct acs_sched_sel *sel,
                      const struct acs_sched_ctx *ctx, struct acs_schedule *s,
                      struct acs_run_row *row);
/* Keeps the outcome in row (status, message, sched_seconds) and, when
 * `verified`, a copy of s; silently keeps nothing when pb has no content
 * digest, when the copy is larger than the memo or out of memory. */
void acs_job_memo_keep(const struct acs_problem *pb, const struct acs_sched_sel *sel,
                       const struct acs_sched_ctx *ctx, const struct acs_schedule *s,
                       int verified, const struct acs_run_row *row);
/* The barrier pass's preparation of the remembered schedule of sel on pb
 * (made on the first call, kept with it), or NULL when none is remembered
 * or it could not be made or kept: the pass then makes its own. */
struct acs_barrier_prep;
const struct acs_barrier_prep *acs_job_memo_barrier_prep(const struct acs_problem *pb,
                                                         const struct acs_sched_sel *sel,
                                                         const struct acs_sched_ctx *ctx);
/* Forgets everything. */
void acs_job_memo_clear(void);
/* What is held, in bytes as the memo counts them; and, for tests, the
 * most it holds (0: 256 MiB, the default), which forgets everything. */
size_t acs_job_memo_bytes(void);
void acs_job_memo_set_limit(size_t bytes);

#endif
