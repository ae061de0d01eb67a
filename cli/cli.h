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

/* The --help lines of the options run, sweep and validate share. */
#define ACS_CLI_HELP_TIME_LIMIT \
  "      --time-limit SEC  seconds per run for schedulers that search (ilp, strip)\n"
#define ACS_CLI_HELP_TIME_STEP \
  "      --time-step N     ilp: round durations up to N-cycle steps (-O time_step=N)\n" \
  "                        default: automatic, a few hundred steps\n"
#define ACS_CLI_HELP_SIM_TIMEOUT \
  "      --sim-timeout SEC limit on a simulation's CPU time (0 = none; default\n" \
  "                        10 s + 1 ms per op + 0.1 ms per dependency)\n"
#define ACS_CLI_HELP_SEED_MAX_QUIET \
  "      --seed N          seed for randomized schedulers (default 1)\n" \
  "      --max K=N         raise a limit on what an input may cost (ops, edges,\n" \
  "                        bytes, isl_ops; docs/fuzzing.md), for the whole command\n" \
  "  -q, --quiet           no warnings or progress on stderr (errors still print)\n" \
  "  -h, --help            this help\n"

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

/* 1 when s ends with suffix (a file's extension, a benchmark's "opt.sm"). */
int acs_cli_ends_with(const char *s, const char *suffix);

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

/* Growable array of strings for repeated options. */
struct acs_strv {
  char **v;
  size_t n, cap;
};
int acs_strv_push(struct acs_strv *sv, char *s);
void acs_strv_free(struct acs_strv *sv); /* frees the array, not the strings */

/*
 * The command line of the commands that run schedulers (run, sweep,
 * validate, args.c): one table of the options they share, each command
 * taking those whose codes it names, plus its own.
 */
enum {
  ACS_OPT_PLATFORM = 'p',      /* -p, --platform FILE */
  ACS_OPT_WORKLOAD = 'w',      /* -w, --workload FILE (repeatable) */
  ACS_OPT_SCHED = 's',         /* -s, --sched LIST */
  ACS_OPT_OPTION = 'O',        /* -O, --option K=V (repeatable) */
  ACS_OPT_SET = 'S',           /* --set K=V (repeatable) */
  ACS_OPT_OUTPUT = 'o',        /* -o, --output FILE */
  ACS_OPT_NO_SIM = 'N',        /* --no-sim */
  ACS_OPT_TIME_LIMIT = 'T',    /* --time-limit SEC */
  ACS_OPT_SEED = 'R',          /* --seed N */
  ACS_OPT_QUIET = 'q',         /* -q, --quiet */
  ACS_OPT_HELP = 'h',          /* -h, --help: prints the help */
  ACS_OPT_TIME_STEP = 'P',     /* --time-step N: -O time_step=N */
  ACS_OPT_SIM_TIMEOUT = 'M',   /* --sim-timeout SEC (acs_job_sim_timeout) */
  ACS_OPT_MAX = 'L',           /* --max K=N (acs_cli_set_limit) */
};
struct acs_cli_args {
  const char *platform, *sched, *output;
  int sched_given;             /* -s was given */
  struct acs_strv workloads, sets, opts;
  int no_sim, quiet;
  double time_limit;
  uint64_t seed;
  char time_step_kv[64];       /* --time-step N as the option "time_step=N" */
};
struct option;
/* What own_opt returns for an option that is not the command's. */
#define ACS_CLI_NOT_MINE 2
struct acs_cli_spec {
  const char *common;          /* the codes of the common options taken, "pwsO..." */
  const struct option *own;    /* the command's own long options, ending in {0}; or NULL */
  const char *own_short;       /* its own short options ("j:"); or NULL */
  const char *sched;           /* -s when not given (commands that take -s) */
  const char *help;            /* printed by -h */
  void (*print_help)(void);    /* or this prints it, when help is NULL */
  /* Handles an own option: ACS_OK, a negative code (message printed), or
   * ACS_CLI_NOT_MINE. */
  int (*own_opt)(void *ctx, int c, const char *arg);
};
/* Parses the options of argv into a (initialised by the caller: zeros and
 * its defaults; this sets spec->sched and --seed 1, the default of every
 * command that takes it) and the command's own through spec->own_opt(ctx, ...); the
 * operands are argv[optind..]. An unknown option or one lacking its value
 * is a usage error of `cmd` (printed). ACS_OK, 1 after -h, or a negative
 * code. */
int acs_cli_parse(const char *cmd, int argc, char **argv, const struct acs_cli_spec *spec,
                  struct acs_cli_args *a, void *ctx);
/* How a running command starts, given what parsing its options returned
 * (ACS_OK, 1 after -h, or an error): 0 to stop with *rc set (0 after -h, 2
 * on an error); else 1, the signal handlers installed
 * (acs_cli_catch_signals). */
int acs_cli_started(int err, int *rc);
/* Whether a command stops after its setup (loading and checking inputs,
 * which printed their own messages): 1 when it `failed`, or when Ctrl-C came
 * meanwhile, with *rc = 130 (a reader stopped by it is an interrupt, not bad
 * input; nothing ran yet, so there is nothing to keep); else 0. */
int acs_cli_setup_stop(int failed, int *rc);

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
