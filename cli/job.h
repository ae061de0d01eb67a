/*
 * job.h - one run of acsim: a scheduler on a workload bound to a platform,
 * verified, measured and simulated. `acsim run` and `acsim sweep` (and its
 * forked workers) execute runs through this one path, so a run means the
 * same thing whichever command made it.
 */
#ifndef ACS_CLI_JOB_H
#define ACS_CLI_JOB_H

#include "cli/cli.h"
#include "report/results.h"

/* A selected scheduler with its own bound options struct. */
struct acs_sched_sel {
  const struct acs_sched_ops *ops;
  void *opts;
};

/* The schedulers of -s `spec` (acs_cli_parse_schedulers, errors printed)
 * as *sel[0 .. *nsel), options not bound yet; their ops in *ops (free it)
 * when ops is not NULL. */
int acs_job_select(const char *cmd, const char *spec, struct acs_sched_sel **sel, size_t *nsel,
                   const struct acs_sched_ops ***ops);

/* Allocates every sel[i].opts with defaults and applies the -O key=value
 * strings; an option no selected scheduler has is a usage error of `cmd`
 * (message printed). Returns ACS_OK or a negative code. */
int acs_job_bind_options(const char *cmd, struct acs_sched_sel *sel, size_t nsel,
                         char *const *kv, size_t nkv);
void acs_job_free_options(struct acs_sched_sel *sel, size_t nsel);
/* The options of sel that differ from their defaults, "k=v,k=v" in the
 * variant's descriptor order ("" when all are defaults): the /runs `options`
 * column, part of a run's identity in sweeps, compare and merge. */
void acs_job_options_text(const struct acs_sched_sel *sel, char *buf, size_t size);

/* Builds the graph of w for p and binds it: *g and *pb initialised here
 * (destroy both on success). *bound is the best lower bound. */
int acs_job_prepare(const struct acs_workload *w, const struct acs_platform *p,
                    struct acs_graph *g, struct acs_problem *pb, int64_t *bound,
                    struct acs_diag *d);

/* --sim-timeout for every simulated run (`run` and `sweep`; a sweep's
 * workers inherit it): the simulation's CPU-time limit in seconds, 0 for
 * the default (it scales with the plan, simulate/sim.h), INFINITY for none. */
extern double acs_job_sim_timeout;
/* Parses --sim-timeout SEC of `cmd`: 0 means no limit, else a positive
 * number of seconds. Sets acs_job_sim_timeout; a usage error otherwise. */
int acs_job_parse_sim_timeout(const char *cmd, const char *text);

/* Initialises row (acs_run_row_init) for a run on graph g: its platform
 * and workload ids, its lower bound and the graph's size. */
void acs_job_row_init(struct acs_run_row *row, int32_t pid, int32_t wid, int64_t bound,
                      const struct acs_graph *g);

/* -o FILE of `cmd`: opens (or creates) the results file with the command
 * line; an error is printed. *res is NULL on failure. */
int acs_job_open_results(const char *cmd, const char *path, int argc, char **argv,
                         struct acs_results **res);
/* Commits *res (set to NULL: it is gone whatever the outcome); an error is
 * printed. */
int acs_job_commit_results(struct acs_results **res);

/*
 * Runs sel on pb: schedule, verify, measure, and simulate when `simulate`.
 * Fills row->scheduler, status, message and every figure (row must be
 * initialised by acs_run_row_init, ids and bound set by the caller). s is
 * initialised here and must be destroyed by the caller in every case; *keep
 * is set when s holds a complete, verified schedule worth storing.
 * Returns ACS_OK whatever the run's status, ACS_EINTERRUPTED when the
 * scheduler or the simulation was interrupted (ctx->interrupted, the CLI's
 * flag; the run is no result and must not be stored), or a negative code
 * for an internal failure.
 */
int acs_job_run(const struct acs_problem *pb, const struct acs_sched_sel *sel,
                const struct acs_sched_ctx *ctx, int simulate,
                struct acs_schedule *s, struct acs_run_row *row, int *keep);

/* A (platform, workload) pair ready for runs: what acs_job_prepare built,
 * the workload's kind and the ids the results file gave the pair (-1
 * without one). */
struct acs_job_pair {
  const struct acs_problem *pb;
  const struct acs_graph *g;
  int kind;                      /* ACS_WL_* */
  int32_t pid, wid;
  int64_t bound;
};
/* What a command does with one run that acs_job_run finished (ACS_OK): s
 * and *keep as acs_job_run left them, k the scheduler's index in sel. */
typedef int (*acs_job_run_fn)(void *arg, size_t k, const struct acs_schedule *s,
                              struct acs_run_row *row, int keep);
/*
 * Runs every scheduler of sel[0..nsel) that takes the pair's kind, in
 * order, until the CLI is interrupted: each run's row is initialised
 * (acs_job_row_init), run (acs_job_run) and handed to on_run; its schedule
 * is destroyed after. `acsim run` and `acsim validate` run pairs through
 * this one loop. Returns ACS_OK or the first negative code of a run or of
 * on_run.
 */
int acs_job_run_pair(const struct acs_job_pair *pair, const struct acs_sched_sel *sel,
                     size_t nsel, const struct acs_sched_ctx *ctx, int simulate,
                     acs_job_run_fn on_run, void *arg);

#endif
