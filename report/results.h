/*
 * results.h - HDF5 results files, schema 1 (see README "HDF5 results").
 *
 * Writes are atomic: acs_results_open() works on a private temporary copy
 * next to the target (a copy of the existing file when appending) and
 * acs_results_commit() fsyncs it and renames it over the target. Until the
 * commit the target file is untouched, so a crash or Ctrl-C never leaves a
 * corrupt file and never loses the runs it already held. Long jobs commit
 * periodically (acs_results_checkpoint) so finished work is kept.
 */
#ifndef ACS_REPORT_RESULTS_H
#define ACS_REPORT_RESULTS_H

#include "core/model/schedule.h"
#include "core/load/load.h"

#define ACS_SCHEMA_VERSION 1
#define ACS_STR_NAME 128
#define ACS_STR_PATH 512
#define ACS_STR_MSG 512
#define ACS_STR_OPTS 256

enum acs_run_status { ACS_ST_OK, ACS_ST_INFEASIBLE, ACS_ST_TIMEOUT, ACS_ST_ERROR };
const char *acs_status_name(int st); /* "ok", "infeasible", "timeout", "error" */
int acs_status_parse(const char *s);

/* One row of /runs. */
struct acs_run_row {
  int64_t run_id;                 /* assigned by acs_results_add_run */
  int32_t platform_id, workload_id;
  char scheduler[ACS_STR_NAME];
  /* The scheduler's options that differ from their defaults, "k=v,k=v" in
   * the variant's descriptor order; "" for defaults. Part of a run's
   * identity (resume, compare, merge). */
  char options[ACS_STR_OPTS];
  char status[16];
  /* The scheduler's memory model (enum acs_mem_model: "transient",
   * "resident", "none"); "" in files written before the column existed,
   * where a reader takes the variant's from the registry. */
  char memory_model[16];
  double makespan_cycles;         /* NaN when there is no schedule */
  double sim_makespan_cycles;     /* NaN if not simulated */
  double lower_bound_cycles;
  /* Networks (a workload with a layer graph): the network bound
   * (core/model/netbound.h), the same for every family on one platform;
   * NaN for other workloads. */
  double network_bound_cycles;
  int64_t peak_cmx_bytes, spill_bytes, ddr_bytes;
  int32_t barriers_used;
  int64_t control_edges;
  double sched_seconds, sim_seconds;
  double pe_utilization, dma_utilization; /* NaN if not simulated */
  /* Loop workloads (issue 14): the initiation interval and its lower bound
   * (modulo runs; NaN for other schedulers), and the simulated cycles per
   * iteration: the simulated makespan of the N unrolled iterations over N
   * (any scheduler on a loop; NaN otherwise or when not simulated). */
  double ii, mii, cycles_per_iter;
  /* The size of the op graph the run scheduled: a DNN's graph depends on
   * the platform (tiles follow the CMX size), so it is a figure of the run;
   * -1 when unknown (files written before the columns existed). */
  int64_t ops, edges;
  char message[ACS_STR_MSG];
};
/* Sets every field to its "nothing" value (NaN, -1, empty). */
void acs_run_row_init(struct acs_run_row *r);

struct acs_workload_row {
  int32_t workload_id;
  char name[ACS_STR_NAME];
  char path[ACS_STR_PATH];
  char kind[16];
  int64_t ops, edges;
  /* The workload's content digest (hex SHA-256, struct acs_workload), part
   * of a run's identity; "" in files written before the column existed. */
  char digest[ACS_DIGEST_HEX + 1];
};

/* The /workloads row of w: name, path, kind, digest, and the size of its
 * graph (ops, edges) when that does not depend on the platform (an op
 * graph, PSPLIB, STG); -1 for the kinds whose graph does (a DNN tiles to
 * the CMX, a loop unrolls, SDF graphs and recurrence equations follow the
 * platform), whose runs keep their own size in /runs. So the row is the
 * same whatever platform, and whichever run, stores it first. */
void acs_results_workload_row(const struct acs_workload *w, int64_t ops, int64_t edges,
                              struct acs_workload_row *row);

struct acs_platform_row {
  int32_t platform_id;
  struct acs_platform plat;       /* name + every parameter */
};

struct acs_results;               /* an open writer */

/* Opens path for appending (creating it if missing). command_line goes to the
 * root attribute. A file with another schema_version is ACS_EFORMAT. */
int acs_results_open(const char *path, const char *command_line,
                     struct acs_results **out, struct acs_diag *d);
/* Returns the id of an identical platform (name and every parameter) already
 * stored, or adds it. */
int acs_results_add_platform(struct acs_results *r, const struct acs_platform *p,
                             int32_t *id);
/* Same for workloads, matched by name, path, kind and digest: one row per
 * workload, whose ops and edges are those of its graph on the first
 * platform it was stored with (each run's are in its row). */
int acs_results_add_workload(struct acs_results *r, const struct acs_workload_row *w,
                             int32_t *id);
/* Appends a run; row->run_id is set. When s is not NULL its
 * /schedules/run_<id>/{ops,resources,edges,waits} tables are written. */
int acs_results_add_run(struct acs_results *r, struct acs_run_row *row,
                        const struct acs_schedule *s);
/*
 * Replaces the stored run row->run_id by row (same run_id; the platform,
 * workload and every value may change), and its schedule: s is written as
 * /schedules/run_<id>, or without s any stored one is removed. For a run
 * that is retried (a sweep runs stored `error` runs again), so a file
 * never holds a run twice. ACS_ENOTFOUND when no row has that id.
 * O(log runs) to find the row.
 */
int acs_results_replace_run(struct acs_results *r, const struct acs_run_row *row,
                            const struct acs_schedule *s);
/* Makes everything added so far durable in the target file, and goes on. */
int acs_results_checkpoint(struct acs_results *r, struct acs_diag *d);
/* Checkpoint and close. r is freed whatever the outcome. */
int acs_results_commit(struct acs_results *r, struct acs_diag *d);
/* Drops everything since the last checkpoint; the target is untouched. */
void acs_results_abort(struct acs_results *r);

/* Reading. */
struct acs_results_data {
  int schema_version;
  char acsim_version[64];
  char created_utc[64];
  char command_line[1024];
  size_t nplatforms, nworkloads, nruns;
  struct acs_platform_row *platforms;
  struct acs_workload_row *workloads;
  struct acs_run_row *runs;
};
int acs_results_read(const char *path, struct acs_results_data *out,
                     struct acs_diag *d);
void acs_results_data_free(struct acs_results_data *data);
/* Reads /schedules/run_<id> back into a schedule, which it initialises
 * (acs_schedule_destroy it after; on error it is left empty). The limits
 * (norig, cmx capacity, alignment, barriers, slots) come from the group's
 * attributes, or the run's platform row when a file lacks them.
 * ACS_ENOTFOUND when the run has no stored schedule. */
int acs_results_read_schedule(const char *path, int64_t run_id,
                              struct acs_schedule *s, struct acs_diag *d);

#endif
