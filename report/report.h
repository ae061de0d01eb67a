/*
 * report.h - trade-study tools over results files (report/): the identity of
 * a run, the numeric /runs metrics, `acsim merge`, `acsim compare` and the
 * HTML report with gnuplot plots.
 *
 * Like the rest of report/, these use core and HDF5 only, never print to
 * stdout and never exit. The writers that format for people (compare's text,
 * markdown and JUnit) write to a stream or file the caller gives.
 */
#ifndef ACS_REPORT_REPORT_H
#define ACS_REPORT_REPORT_H

#include <stdio.h>

#include "report/results.h"

/* ---- the identity of a run ----
 *
 * A run is identified by its platform (the variant's name and every
 * parameter, compared exactly), its workload, its scheduler and the
 * scheduler's non-default options. The workload counts by its content
 * digest and kind (ACS_KEY_DIGEST): not by its name or path, so the same
 * file reached by two paths is one workload, and an edited file, or another
 * file of the same name, is another. Workloads stored before the digest
 * column existed have none; their runs are identified by workload name and
 * kind, as acsim did then. `acsim sweep` skips runs whose identity is
 * already in its output (resume), `acsim merge` rejects an identity present
 * twice, and `acsim compare` matches base and head runs by it
 * (ACS_KEY_PARAMS: by the platform's parameters instead of its name).
 */
enum { ACS_KEY_NAME = 1, ACS_KEY_PARAMS = 2, ACS_KEY_DIGEST = 4 };
#define ACS_RUN_KEY_MAX 2048
/* Writes the identity of a run as text into buf (ACS_RUN_KEY_MAX bytes).
 * The workload counts by wl_digest with ACS_KEY_DIGEST when wl_digest is
 * not empty, else by wl_name; a digest key never equals a name key. */
void acs_run_key(const struct acs_platform *p, const char *wl_name, const char *wl_kind,
                 const char *wl_digest, const char *scheduler, const char *options, int flags,
                 char *buf);
/* The identity of run `r` of a file read with acs_results_read. ACS_EFORMAT
 * when the run refers to a platform or workload id the file lacks. */
int acs_run_key_of(const struct acs_results_data *data, const struct acs_run_row *r, int flags,
                   char *buf);
/* 1 when every run's workload has a digest (files written since the column
 * exists), 0 when some run must be identified by workload name. */
int acs_results_digested(const struct acs_results_data *data);
/* Platform and workload rows of run r (NULL when the id is unknown). */
const struct acs_platform_row *acs_results_platform_of(const struct acs_results_data *data,
                                                       const struct acs_run_row *r);
const struct acs_workload_row *acs_results_workload_of(const struct acs_results_data *data,
                                                       const struct acs_run_row *r);

/* A set of run identities (open addressing, FNV-1a; keys copied), each with
 * a value (e.g. the index of the run). O(1) expected per operation. */
struct acs_keyset;
struct acs_keyset *acs_keyset_new(void);
void acs_keyset_free(struct acs_keyset *ks);
/* Returns 0 when added, 1 when present (*old, if not NULL, gets its value and
 * nothing changes), or ACS_ENOMEM. */
int acs_keyset_add(struct acs_keyset *ks, const char *key, int64_t value, int64_t *old);
/* Sets the value of a present key, or adds it. */
int acs_keyset_put(struct acs_keyset *ks, const char *key, int64_t value);
/* 1 and *value when present, 0 when absent. */
int acs_keyset_get(const struct acs_keyset *ks, const char *key, int64_t *value);
size_t acs_keyset_size(const struct acs_keyset *ks);

/* ---- numeric /runs columns ---- */
struct acs_metric {
  const char *name;          /* the /runs column */
  int higher_is_better;      /* utilizations; every other metric is a cost */
  const char *unit;          /* "cycles", "bytes", "s", "fraction", "" */
  const char *doc;
};
const struct acs_metric *acs_metric_list(size_t *n);
const struct acs_metric *acs_metric_find(const char *name);
/* The value of m in r; NaN for "none" (NaN, or -1 in an integer column). */
double acs_metric_value(const struct acs_metric *m, const struct acs_run_row *r);
/* "a, b, c": every metric name, for messages. */
void acs_metric_names(char *buf, size_t size);

/* ---- acsim merge ----
 *
 * Appends every run (with its platform, workload and stored schedule) of each
 * input to `output` (created when missing), through the atomic writer: the
 * output changes only when the whole merge succeeds. Every input must be a
 * results file of this schema; a run whose identity appears twice (in two
 * inputs, in one input, or already in the output) is an error naming both
 * places, and nothing is written. Workloads count by content digest when
 * every file has digests, else by name (the stricter test: a file without
 * digests cannot tell an edited workload from the old one).
 * O(total runs + stored schedule rows).
 */
struct acs_merge_stats {
  size_t inputs, runs, schedules, existing;
};
int acs_merge(const char *const *inputs, size_t n, const char *output, const char *command_line,
              struct acs_merge_stats *st, struct acs_diag *d);

/* ---- acsim compare ---- */
enum acs_cmp_kind {
  ACS_CMP_REGRESSION,        /* worse beyond the tolerance, a status got worse, a value was lost */
  ACS_CMP_IMPROVEMENT,       /* better beyond the tolerance, or a failed run now ok */
  ACS_CMP_CHANGE,            /* another status change (e.g. timeout -> infeasible), a value gained */
  ACS_CMP_MISSING,           /* in base only */
  ACS_CMP_NEW,               /* in head only */
  ACS_CMP_SAME               /* matched, within the tolerance */
};
struct acs_cmp_item {
  int kind;                  /* enum acs_cmp_kind */
  int status_changed;
  char platform[ACS_STR_NAME], workload[ACS_STR_NAME], scheduler[ACS_STR_NAME];
  char options[ACS_STR_OPTS];
  char base_status[16], head_status[16];
  double base, head;         /* the metric; NaN when absent */
  double change;             /* (head - base) / |base|; +-inf from 0; NaN unknown */
  int64_t base_run, head_run;/* run ids; -1 when absent */
  char message[ACS_STR_MSG]; /* head's message (base's for a missing run) */
};
struct acs_compare_opts {
  const char *metric;        /* NULL: sim_makespan_cycles */
  double tolerance;          /* relative, 0.01 = 1% */
  int match;                 /* ACS_KEY_NAME or ACS_KEY_PARAMS */
};
struct acs_compare_result {
  const struct acs_metric *metric;
  double tolerance;
  int match;
  /* Workloads matched by content digest (both files have digests), else by
   * name (a file written before the digest column). */
  int by_digest;
  /* Workload names with missing runs in base and new runs in head: by
   * digest, a workload whose file changed between the two. */
  size_t changed_workloads;
  char changed_example[ACS_STR_NAME];
  /* Regressions first (status regressions, then the largest change), then
   * improvements (largest first), other changes, missing, new, and the
   * unchanged matches last. */
  struct acs_cmp_item *items;
  size_t nitems;
  size_t count[ACS_CMP_SAME + 1];
  size_t base_runs, head_runs, matched;
  size_t base_dups, head_dups; /* runs superseded by a later run of the same identity */
};
/* ACS_EINVAL with the valid names in d for an unknown metric. A file that
 * holds one identity several times (appended runs) is compared through the
 * latest run of each. Workloads match by content digest when both files
 * have digests, else by name (r->by_digest). O((B + H) log(B + H)). */
int acs_compare_data(const struct acs_results_data *base, const struct acs_results_data *head,
                     const struct acs_compare_opts *o, struct acs_compare_result *r,
                     struct acs_diag *d);
void acs_compare_free(struct acs_compare_result *r);
enum { ACS_CMP_TEXT, ACS_CMP_MARKDOWN };
/* The report for people: sections of regressions, improvements, changes,
 * missing and new runs (at most `limit` rows each, 0 = all) and a summary
 * line. */
int acs_compare_write(FILE *f, const struct acs_compare_result *r, int format,
                      const char *base_name, const char *head_name, size_t limit);
/* JUnit XML: one test case per base or head run (a failure per regression,
 * skipped for missing ones). Written atomically. */
int acs_compare_write_junit(const char *path, const struct acs_compare_result *r,
                            const char *base_name, const char *head_name, struct acs_diag *d);

/* ---- acsim report ---- */
struct acs_report_opts {
  const char *gnuplot;       /* program to run; NULL: "gnuplot" from PATH */
};
struct acs_report_info {
  size_t runs, workloads, plots, plot_failures, gantts;
  int gnuplot_missing;       /* plots' scripts and data written, SVGs not made */
  char gnuplot_error[512];   /* first failure, for the caller to show */
};
/*
 * Writes dir/index.html (self-contained, opens offline), dir/runs.csv (every
 * run with its platform parameters as columns), and dir/plots/ with one
 * .gp script, its .dat data and the .svg gnuplot made from them per plot.
 * gnuplot runs as a child process (its output goes to plots/NAME.log); when
 * it is missing, the page says so and references no SVG. Schedules for the
 * Gantt charts are read from the study file when stored.
 */
int acs_report_write(const char *study, const char *dir, const struct acs_report_opts *o,
                     struct acs_report_info *info, struct acs_diag *d);
/* runs.csv alone (also written by acs_report_write). */
int acs_report_write_csv(const struct acs_results_data *data, const char *path,
                         struct acs_diag *d);

#endif
