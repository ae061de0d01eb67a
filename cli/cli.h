/*
 * cli.h - the `acsim` program: thin subcommands over the libraries.
 */
#ifndef ACS_CLI_CLI_H
#define ACS_CLI_CLI_H

#include <signal.h>
#include <stdio.h>

#include "core/acs.h"
#include "core/load/load.h"
#include "core/sched/sched.h"
#include "core/model/rtab.h"

/* Exit codes (DESIGN.md): 0 ok, 1 regression or failed check, 2 usage or input error. */
enum { ACS_EXIT_OK = 0, ACS_EXIT_FAIL = 1, ACS_EXIT_USAGE = 2, ACS_EXIT_INTERRUPTED = 130 };

int acs_cmd_run(int argc, char **argv);
int acs_cmd_list(int argc, char **argv);
int acs_cmd_platform(int argc, char **argv);
int acs_cmd_validate(int argc, char **argv);
int acs_cmd_sweep(int argc, char **argv);
int acs_cmd_report(int argc, char **argv);
int acs_cmd_compare(int argc, char **argv);
int acs_cmd_merge(int argc, char **argv);
int acs_cmd_workload(int argc, char **argv);

/* The --help lines of -w that name every workload format acsim reads
 * (core/load/workload.c), shared by run and sweep. */
#define ACS_CLI_WORKLOAD_FORMATS                                                  \
  "                        formats: .onnx ONNX model; .csv SCALE-Sim layer\n"     \
  "                        table, op graph or loop; .sm PSPLIB; .stg Standard\n"  \
  "                        Task Graph; .graphml HatScheT loop, with its\n"        \
  "                        resource model X_RM.xml or XRM.xml beside it; .xml\n"  \
  "                        SDF3 graph (SDF or CSDF); .sare recurrence equations\n" \
  "                        (FILE.sare:N=8..64*2 sets parameters); a suite .txt\n" \
  "                        lists one workload path per line\n"

/* "acsim: file:line:col: msg" on stderr. */
void acs_cli_error(const struct acs_diag *d);
void acs_cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Warning callback for struct acs_diag that prints "file:line:col: warning: msg". */
void acs_cli_warn(void *ctx, const char *file, int line, int col, const char *msg);
/* Usage error: prints the message and a hint to `acsim CMD --help`; returns 2. */
int acs_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Data directory (platforms/, workloads/): $ACSIM_DATADIR or the source tree. */
const char *acs_cli_datadir(void);
/* Resolves a data path: as given when it exists, else under the data dir. */
const char *acs_cli_resolve(const char *path, char *buf, size_t size);

/* Platform rows from -p (default platforms/default.csv) with --set applied. */
struct acs_cli_platforms {
  struct acs_platform *rows;
  size_t n;
  char path[1024];
};
int acs_cli_load_platforms(const char *path, char **sets, size_t nsets,
                           struct acs_cli_platforms *out);

/* The /workloads row of w: name, path, kind, digest, and the size of its
 * graph (ops, edges) when that does not depend on the platform (an op
 * graph, PSPLIB, STG); -1 for the kinds whose graph does (a DNN tiles to
 * the CMX, a loop unrolls, SDF graphs and recurrence equations follow the
 * platform), whose runs keep their own size in /runs. So the row is the
 * same whatever platform, and whichever run, stores it first. */
struct acs_workload_row;
void acs_cli_workload_row(const struct acs_workload *w, int64_t ops, int64_t edges,
                          struct acs_workload_row *row);

/* Workload paths from -w arguments: a .txt argument is a suite. */
int acs_cli_expand_workloads(char **args, size_t nargs, char ***paths, size_t *n);

/* Scheduler selection: "all", or a comma list; checked against the registry. */
int acs_cli_parse_schedulers(const char *cmd, const char *spec,
                             const struct acs_sched_ops ***out, size_t *n);

/*
 * Which selected schedulers run on which workloads (fit.c): a scheduler
 * runs only on the kinds it takes. When no (scheduler, workload) pair runs,
 * the command would do nothing: a usage error of `cmd` naming what each
 * scheduler takes (printed; ACS_EINVAL). Otherwise, when the schedulers
 * were named with -s (`named`) and pairs are left out, one note on stderr
 * names them (unless quiet). fit counts the pairs either way.
 */
struct acs_cli_wl {
  const char *name;
  int kind;                  /* ACS_WL_* */
};
struct acs_cli_fit {
  size_t pairs;              /* pairs that run */
  size_t skipped;            /* pairs left out: the scheduler does not take the kind */
};
int acs_cli_fit_check(const char *cmd, const struct acs_sched_ops *const *ops, size_t nops,
                      const struct acs_cli_wl *wls, size_t nwl, int named, int quiet,
                      struct acs_cli_fit *fit);
/* The same for loaded workloads (their names and kinds). */
int acs_cli_fit_workloads(const char *cmd, const struct acs_sched_ops *const *ops, size_t nops,
                          struct acs_workload *const *wls, size_t nwl, int named, int quiet,
                          struct acs_cli_fit *fit);

/* --time-limit SEC (a positive number) and --seed N (a non-negative
 * integer) for subcommand `cmd`; a bad value is a usage error (printed). */
int acs_cli_parse_seconds(const char *cmd, const char *opt, const char *text, double *out);
int acs_cli_parse_seed(const char *cmd, const char *text, uint64_t *out);

/* --max K=N (core/acs.h, ACS_LIMIT_MAP) for subcommand `cmd`: sets the
 * limit for the whole process (forked workers inherit it); a bad key or
 * value is a usage error (printed). */
int acs_cli_set_limit(const char *cmd, const char *kv);

/* Human-readable bytes ("1.5 MiB"). */
const char *acs_cli_bytes(int64_t bytes, char *buf, size_t size);

/* A family result table (core/model/rtab.h) as aligned text: a line with
 * its name and attributes, then a header with units and one line per row,
 * every line starting with indent. */
void acs_cli_print_rtab(FILE *f, const struct acs_rtab *t, const char *indent);

/* The command line, space-joined, for the results file. */
char *acs_cli_join_argv(int argc, char **argv);

/* Growable array of strings for repeated options. */
struct acs_strv {
  char **v;
  size_t n, cap;
};
int acs_strv_push(struct acs_strv *sv, char *s);
void acs_strv_free(struct acs_strv *sv); /* frees the array, not the strings */

/*
 * Set when SIGINT or SIGTERM arrives. Commands install the handlers first
 * thing (acs_cli_catch_signals), check the flag between phases and runs,
 * and pass it to the schedulers (acs_sched_ctx.interrupted) and the
 * simulation (acs_sim_opts.interrupted), which stop within a second; the
 * command then keeps what finished and exits 130.
 */
extern volatile sig_atomic_t acs_cli_interrupted;
void acs_cli_catch_signals(void);

#endif
