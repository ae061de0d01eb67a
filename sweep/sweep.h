/*
 * sweep.h - the sweep engine: a grid of runs (platform variant x workload x
 * scheduler) executed by a pool of forked workers and stored by one writer,
 * the parent, in a study file that it resumes.
 *
 * The caller (`acsim sweep`, cli/cmd_sweep.c) loads the platform variants,
 * the workloads and the schedulers and says how one run executes (`run`,
 * called in a worker); the engine plans the tasks (this shard's runs not yet
 * in the output, stored `error` runs again), hands them out, retries a run
 * whose worker died, stores every result as it arrives, checkpoints the
 * file about once a second and draws the progress on stderr.
 *
 * Design (why it is built this way):
 *  - One writer. HDF5 files are locked against a second writer and the
 *    results writer is atomic per process, so workers never touch the study
 *    file: each run's row (and its schedule when it is to be kept) travels
 *    over a pipe to the parent (wire.h), which appends it and checkpoints
 *    about once a second. A pipe protocol rather than per-worker temporary
 *    HDF5 files because the parent stores every run the moment it
 *    finishes: Ctrl-C, a crash or SIGKILL loses at most the last second, no
 *    merge step is needed at the end, and the progress bar is exact.
 *  - Dynamic dispatch. The parent hands out task indices (4 bytes) to
 *    workers, keeping two in flight per worker so a worker never waits for
 *    the parent; slow runs (large graphs, small CMX) balance themselves.
 *    Workers inherit every loaded workload and the task list through fork
 *    (copy-on-write), so a task is just an index.
 *  - Identity and resume. A run is identified by its platform variant
 *    (name and parameters), workload content digest, scheduler and options
 *    (report.h). Runs whose identity is already in the output are skipped,
 *    so the same command resumes an interrupted sweep and never stores a
 *    run twice. Stored `error` runs are not skipped: they run again and
 *    their rows are replaced, so re-running a failed sweep (a CI retry)
 *    cannot turn a crash into a pass by skipping it.
 *  - Worker deaths. A run whose worker dies (a crash in a scheduler or the
 *    simulator, the OOM killer) is retried once in a fresh worker, since a
 *    death can come from outside the run; a second death stores it as
 *    `error` naming the signal.
 *  - Shards. Run i of the full grid (platform variant x workload x
 *    scheduler, in that nesting) belongs to shard (i mod N) + 1: a
 *    deterministic, balanced split for job arrays; `acsim merge` joins them.
 *  - Schedules. ACS_SWEEP_KEEP_ALL stores every schedule. With
 *    ACS_SWEEP_KEEP_EXTREMES the best and worst run of every workload have
 *    their schedule, for the report's Gantt charts: the parent holds the
 *    schedule of each run that holds a record and writes those that still
 *    do when the sweep ends (records.h), a few per workload.
 *  - Affinity. The runs of one workload on platform variants that differ
 *    only in what the barrier pass reads go to one worker, so its
 *    schedulers plan once for all the barrier counts (order_tasks).
 */
#ifndef ACS_SWEEP_SWEEP_H
#define ACS_SWEEP_SWEEP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/acs.h"
#include "core/load/load.h"
#include "core/sched/sched.h"
#include "report/results.h"

enum { ACS_SWEEP_KEEP_NONE, ACS_SWEEP_KEEP_EXTREMES, ACS_SWEEP_KEEP_ALL };

/* One run of the grid: indices into the config's arrays. */
struct acs_sweep_task {
  uint32_t plat, wl, sel;
  int64_t replace;             /* run_id of a stored error run this retries; 0 none */
};

/*
 * Runs task t in a worker process. row is initialised (acs_run_row_init);
 * the function fills its scheduler, options, status, message and figures,
 * and *ops and *edges (the workload's graph on that platform, left -1 when
 * unknown). s is initialised by the function in every case (the engine
 * destroys it); *keep is set when s is a schedule worth storing. Returns
 * ACS_OK whatever the run's status, or ACS_EINTERRUPTED when the run was
 * cut short (nothing is sent; the worker leaves).
 */
typedef int (*acs_sweep_run_fn)(void *ctx, const struct acs_sweep_task *t,
                                struct acs_run_row *row, int64_t *ops, int64_t *edges,
                                struct acs_schedule *s, int *keep);

/* What the caller gives; the arrays stay the caller's and must outlive the
 * sweep. */
struct acs_sweep_config {
  const struct acs_platform *plats;
  size_t nplats;
  struct acs_workload *const *wls;
  size_t nwls;
  const struct acs_sched_ops *const *ops; /* the selected schedulers */
  char (*opts)[ACS_STR_OPTS];             /* per scheduler: its options text */
  size_t nsel;
  const char *output;                     /* the study file */
  int jobs;                               /* workers, 1..1024 (at most 64 run) */
  int keep;                               /* ACS_SWEEP_KEEP_* */
  int shard_k, shard_n;                   /* shard_n 0: the whole grid */
  int quiet;                              /* no progress on stderr */
  const volatile sig_atomic_t *interrupted; /* set by SIGINT/SIGTERM */
  acs_sweep_run_fn run;
  void *run_ctx;
  void (*worker_exit)(void);               /* a worker's last call (may be NULL):
                                            * ends and reaps what it started */
  void (*error)(const struct acs_diag *d); /* prints an error */
};

/* What the engine counts, for the caller's plan and summary lines. */
struct acs_sweep_counts {
  size_t grid;                 /* runs in the full grid (pairs that run) */
  size_t in_shard;             /* of those, this shard's */
  size_t skipped;              /* already in the output */
  size_t stored_errors;        /* tasks that retry a stored error run */
  size_t by_name;              /* skipped through a stored run without digest */
  size_t ntasks;               /* runs to do */
  size_t done;                 /* runs stored */
  size_t nstatus[4];           /* stored, by enum acs_run_status */
  size_t nstored;              /* schedules stored */
  size_t retried;              /* runs retried after a worker death */
  int respawns;                /* workers replaced */
  double t0;                   /* when the runs started (acs_now_seconds) */
};

struct acs_sweep_engine;       /* the pool, the tasks, the open study */

struct acs_sweep {
  struct acs_sweep_config cfg; /* set by the caller */
  struct acs_sweep_counts n;   /* read by the caller */
  struct acs_sweep_engine *e;  /* the engine's own */
};

/* Reads what the output holds already and makes the task list: this
 * shard's runs, in the grid's order, less those stored (but not those
 * stored as error). Sets the counts grid, in_shard, skipped, stored_errors,
 * by_name and ntasks. Errors are printed through cfg.error. */
int acs_sweep_plan(struct acs_sweep *sw);
/* Opens (or creates) the output for appending; cmdline is recorded. */
int acs_sweep_open(struct acs_sweep *sw, const char *cmdline, struct acs_diag *d);
/* Runs the tasks in cfg.jobs workers until all are stored, an error, or
 * *cfg.interrupted (then every finished run is kept); stops the workers and
 * draws the final progress. ACS_OK, or the error that stopped it. */
int acs_sweep_run(struct acs_sweep *sw);
/* Writes the output for good (whatever stopped the runs) and closes it. */
int acs_sweep_commit(struct acs_sweep *sw, struct acs_diag *d);
/* Stops any worker, abandons an output not committed, frees the engine. */
void acs_sweep_free(struct acs_sweep *sw);

#endif
