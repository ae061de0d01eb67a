/*
 * cmd_sweep.c - `acsim sweep`: a trade study. The cartesian product of
 * --vary values over every platform row, every workload and the chosen
 * schedulers, run by forked workers, written by one process.
 *
 * Design (why it is built this way):
 *  - One writer. HDF5 files are locked against a second writer and the
 *    results writer is atomic per process, so workers never touch the study
 *    file: each run's row (and its schedule when it is to be kept) travels
 *    over a pipe to the parent (sweep_wire.h), which appends it and
 *    checkpoints about once a second. A pipe protocol rather than per-worker
 *    temporary HDF5 files because the parent stores every run the moment it
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
 *    run twice; a workload given twice (two paths to one file, a suite and
 *    a file in it) runs once. Stored `error` runs are not skipped: they run
 *    again and their rows are replaced, so re-running a failed sweep (a CI
 *    retry) cannot turn a crash into a pass by skipping it.
 *  - Worker deaths. A run whose worker dies (a crash in a scheduler or the
 *    simulator, the OOM killer) is retried once in a fresh worker, since a
 *    death can come from outside the run; a second death stores it as
 *    `error` naming the signal, and the sweep exits 1.
 *  - Shards. Run i of the full grid (platform variant x workload x
 *    scheduler, in that nesting) belongs to shard (i mod N) + 1: a
 *    deterministic, balanced split for job arrays; `acsim merge` joins them.
 *  - Schedules. --keep-schedules stores every schedule. By default
 *    (extremes) a schedule is stored when its run sets a new best or worst
 *    makespan for its workload, so the best and worst run of every workload
 *    have their schedule for the report's Gantt charts at a cost of a few
 *    schedules per workload (records are rare once the extremes are found).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/proc.h"
#include "cli/job.h"
#include "cli/sweep_wire.h"
#include "report/report.h"
#include "simulate/sim.h"

static const char sweep_help[] =
  "usage: acsim sweep [-p PLATFORM.csv] [-w WORKLOAD|SUITE.txt]... [-s SCHED,...|all]\n"
  "                   [-O opt=v]... [--set k=v]... [--vary k=v1,v2,...]... [-j N]\n"
  "                   [-o study.h5] [--shard K/N] [--keep-schedules[=all|extremes|none]]\n"
  "                   [--no-sim] [--time-limit SEC] [--sim-timeout SEC] [--seed N]\n"
  "                   [--max K=N]... [-q] [-h]\n"
  "\n"
  "Runs every selected scheduler on every workload on every platform variant:\n"
  "each row of the platform file times the cartesian product of the --vary\n"
  "values. Each run is scheduled, verified and simulated as by `acsim run`,\n"
  "in N forked workers; the parent alone writes the study file.\n"
  "\n"
  "  -p, --platform FILE   platform CSV (default platforms/default.csv)\n"
  "                        every row runs, times the --vary values\n"
  "  -w, --workload FILE   a workload or a suite (.txt); repeatable\n"
  "                        default: workloads/suites/default.txt\n"
  ACS_CLI_WORKLOAD_FORMATS
  "  -s, --sched LIST      comma-separated schedulers, or all\n"
  "                        default: every scheduler except the searching ones\n"
  "                        (ilp, strip), which join when --time-limit is given\n"
  "  -O, --option K=V      scheduler option for every selected scheduler that has it\n"
  "      --set K=V         override a platform parameter on every row\n"
  "                        (variant names unchanged)\n"
  "      --vary K=VALUES   vary a parameter; VALUES is a comma list of numbers\n"
  "                        and ranges: a..b+s (a, a+s, ... <= b; a..b steps by 1)\n"
  "                        and a..b*f (a, a*f, a*f^2, ... <= b). Repeatable: the\n"
  "                        product of all. Variants are named after their row,\n"
  "                        e.g. default[cmx_kib=512,barriers=8]\n"
  "  -j, --jobs N          worker processes (default: the number of cores)\n"
  "  -o, --output FILE     study file (default study.h5); runs already in it are\n"
  "                        skipped, so the same command resumes a sweep; runs\n"
  "                        stored as error run again (their rows replaced)\n"
  "      --shard K/N       run only the K-th of N disjoint slices (run i of the\n"
  "                        grid goes to shard i mod N + 1); join with `acsim merge`\n"
  "      --keep-schedules[=WHICH]  store schedules: all (the flag alone), none,\n"
  "                        or extremes (default: the runs that set a new best or\n"
  "                        worst makespan of their workload, for the report)\n"
  "      --no-sim          do not simulate (the simulated columns stay NaN)\n"
  "      --time-limit SEC  seconds per run for schedulers that search (ilp, strip)\n"
  "      --sim-timeout SEC limit on a simulation's CPU time (0 = none; default\n"
  "                        10 s + 1 ms per op + 0.1 ms per dependency)\n"
  "      --seed N          seed for randomized schedulers (default 1)\n"
  "      --max K=N         raise a limit on what an input may cost (ops, edges,\n"
  "                        bytes, isl_ops; docs/fuzzing.md), for the whole command\n"
  "  -q, --quiet           no warnings or progress on stderr (errors still print)\n"
  "  -h, --help            this help\n"
  "\n"
  "With no -p, -w and --vary it runs the default study: platforms/default.csv,\n"
  "workloads/suites/default.txt, --vary cmx_kib=128..4096*2 --vary barriers=0,4..32*2\n"
  "--vary pe_count=4,8: the report answers how much CMX, how many barriers, and what\n"
  "8 PEs buy over 4.\n"
  "A run is identified by its platform variant (name and parameters), the SHA-256\n"
  "of its workload's files (their content, not their names: one file reached by\n"
  "two paths runs once, an edited file is a new run), its scheduler and options.\n"
  "A run whose worker dies (a crash) is retried once in a fresh worker; if it\n"
  "dies again it is stored as error, naming the signal.\n"
  "Progress goes to stderr (a bar on a terminal). Ctrl-C keeps every finished run.\n"
  "Exit 0; 1 when a run ended in error; 2 on a bad option, a bad or missing\n"
  "input, or an output it cannot write; 130 when interrupted.\n"
  "Then: acsim report study.h5 -o DIR; acsim compare BASE.h5 HEAD.h5.\n";

/* The default study (DESIGN.md: `acsim sweep` with no -p/-w): the three
 * sizing questions the report answers first, CMX, barriers and PEs. */
static const char *const default_varies[] = {"cmx_kib=128..4096*2", "barriers=0,4..32*2",
                                             "pe_count=4,8"};
#define DEFAULT_SUITE "workloads/suites/default.txt"

enum { KEEP_NONE, KEEP_EXTREMES, KEEP_ALL };
#define INFLIGHT 2            /* tasks queued per worker */
#define CHECKPOINT_SECONDS 1.0
#define MAX_RESPAWNS 1000

struct sweep_args {
  const char *platform, *sched, *output;
  struct acs_strv workloads, sets, opts, varies;
  int jobs, no_sim, quiet, keep, shard_k, shard_n, default_study;
  double time_limit;
  uint64_t seed;
};

struct task {
  uint32_t plat, wl, sel;
  int64_t replace;             /* run_id of a stored error run this retries; 0 none */
};

struct worker {
  pid_t pid;
  int task_fd, result_fd;      /* parent's ends; -1 when closed */
  uint32_t inflight[INFLIGHT];
  int ninflight;
};

/* The records of a workload, over all its ok runs and over those of a
 * resident memory model: the report's best and worst run is one or the
 * other (report/study.h), so both keep their schedules. */
struct extreme {
  double best, worst;          /* NaN until the first ok run */
  double best_res, worst_res;  /* NaN until the first ok resident run */
};

struct sweep {
  struct sweep_args a;
  struct acs_cli_platforms base;
  struct acs_platform *plats;
  size_t nplats;
  char **paths;
  size_t npaths;
  struct acs_workload **wls;
  struct acs_sched_sel *sel;
  size_t nsel;
  char (*optstext)[ACS_STR_OPTS];
  struct task *tasks;
  size_t ntasks, grid, in_shard, skipped;
  size_t stored_errors;        /* tasks that retry a stored error run */
  size_t by_name;              /* skipped through a stored run without digest */
  uint8_t *deaths;             /* per task: times its worker died under it */
  size_t retried;              /* runs retried after a worker death */
  int *origin;                 /* per workload: the -w argument it came from */
  struct extreme *ext;         /* per workload */
  int32_t *pid_of;             /* per platform variant; -1 until stored */
  struct acs_results *res;
  struct worker *w;
  int nw;
  uint32_t *requeue;
  size_t nrequeue, next;
  /* progress */
  size_t done, nstatus[4], nstored;
  double t0, last_draw, last_line, last_checkpoint;
  int tty, dirty, forwarded, respawns;
  char left_out[256];          /* searching variants the default selection left out */
  struct acs_cli_fit fit;      /* scheduler-workload pairs that run and that do not */
};

/* ---- arguments ---- */

static int parse_shard(const char *s, struct sweep_args *a)
{
  char *end;
  long k = strtol(s, &end, 10), n;

  if (end == s || *end != '/')
    return ACS_EINVAL;
  n = strtol(end + 1, &end, 10);
  if (*end || n < 1 || n > 1000000 || k < 1 || k > n)
    return ACS_EINVAL;
  a->shard_k = (int)k;
  a->shard_n = (int)n;
  return ACS_OK;
}

static int parse_keep(const char *s, struct sweep_args *a)
{
  if (!s || strcmp(s, "all") == 0)
    a->keep = KEEP_ALL;
  else if (strcmp(s, "extremes") == 0)
    a->keep = KEEP_EXTREMES;
  else if (strcmp(s, "none") == 0)
    a->keep = KEEP_NONE;
  else
    return ACS_EINVAL;
  return ACS_OK;
}

static int parse_number_opt(int c, const char *arg, struct sweep_args *a)
{
  char *end;
  long j;

  switch (c) {
  case 'j':
    j = strtol(arg, &end, 10);
    if (*end || end == arg || j < 1 || j > 1024)
      return acs_cli_usage("sweep", "-j: '%s' is not a number of workers (1-1024)", arg),
             ACS_EINVAL;
    a->jobs = (int)j;
    return ACS_OK;
  case 'T':
    return acs_cli_parse_seconds("sweep", "--time-limit", arg, &a->time_limit);
  default: /* 'R' */
    return acs_cli_parse_seed("sweep", arg, &a->seed);
  }
}

static int parse_args(int argc, char **argv, struct sweep_args *a)
{
  static const struct option longopts[] = {
    {"platform", required_argument, NULL, 'p'}, {"workload", required_argument, NULL, 'w'},
    {"sched", required_argument, NULL, 's'},    {"option", required_argument, NULL, 'O'},
    {"set", required_argument, NULL, 'S'},      {"vary", required_argument, NULL, 'V'},
    {"jobs", required_argument, NULL, 'j'},     {"output", required_argument, NULL, 'o'},
    {"shard", required_argument, NULL, 'K'},    {"keep-schedules", optional_argument, NULL, 'k'},
    {"no-sim", no_argument, NULL, 'N'},         {"time-limit", required_argument, NULL, 'T'},
    {"seed", required_argument, NULL, 'R'},     {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},           {"sim-timeout", required_argument, NULL, 'M'},
    {"max", required_argument, NULL, 'L'},
    {NULL, 0, NULL, 0}};
  struct acs_strv *lists[] = {['w'] = &a->workloads, ['O'] = &a->opts, ['S'] = &a->sets,
                              ['V'] = &a->varies};
  int c;

  memset(a, 0, sizeof(*a));
  a->seed = 1;
  a->keep = KEEP_EXTREMES;
  a->output = "study.h5";
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":p:w:s:O:j:o:qh", longopts, NULL)) != -1) {
    switch (c) {
    case 'p': a->platform = optarg; break;
    case 'w': case 'O': case 'S': case 'V':
      if (acs_strv_push(lists[c], optarg) < 0)
        return ACS_ENOMEM;
      break;
    case 's': a->sched = optarg; break;
    case 'o': a->output = optarg; break;
    case 'N': a->no_sim = 1; break;
    case 'q': a->quiet = 1; break;
    case 'j': case 'T': case 'R':
      if (parse_number_opt(c, optarg, a) < 0)
        return ACS_EINVAL;
      break;
    case 'M':
      if (acs_job_parse_sim_timeout("sweep", optarg) < 0)
        return ACS_EINVAL;
      break;
    case 'L':
      if (acs_cli_set_limit("sweep", optarg) < 0)
        return ACS_EINVAL;
      break;
    case 'K':
      if (parse_shard(optarg, a) < 0)
        return acs_cli_usage("sweep", "--shard: '%s' is not K/N with 1 <= K <= N", optarg),
               ACS_EINVAL;
      break;
    case 'k':
      if (parse_keep(optarg, a) < 0)
        return acs_cli_usage("sweep", "--keep-schedules: '%s' is not all, extremes or none",
                             optarg), ACS_EINVAL;
      break;
    case 'h': fputs(sweep_help, stdout); return 1;
    case ':': return acs_cli_usage("sweep", "option '%s' needs a value", argv[optind - 1]), ACS_EINVAL;
    default: return acs_cli_usage("sweep", "unknown option '%s'", argv[optind - 1]), ACS_EINVAL;
    }
  }
  if (optind < argc)
    return acs_cli_usage("sweep", "unexpected argument '%s'", argv[optind]), ACS_EINVAL;
  if (!*a->output)
    return acs_cli_usage("sweep", "-o: empty file name"), ACS_EINVAL;
  a->default_study = !a->platform && a->workloads.n == 0 && a->varies.n == 0;
  if (a->jobs == 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = n > 0 ? (n > 1024 ? 1024 : (int)n) : 1;
  }
  return ACS_OK;
}

/* ---- setup: platforms, workloads, schedulers, tasks ---- */

static int expand_platforms(struct sweep *sw)
{
  const char *const *vary = (const char *const *)sw->a.varies.v;
  size_t nvary = sw->a.varies.n;
  struct acs_vary *v;
  struct acs_diag d;
  int err = ACS_OK;

  if (sw->a.default_study) {
    vary = default_varies;
    nvary = sizeof(default_varies) / sizeof(default_varies[0]);
  }
  if ((err = acs_cli_load_platforms(sw->a.platform, sw->a.sets.v, sw->a.sets.n, &sw->base)) < 0)
    return err;
  if (!(v = calloc(nvary ? nvary : 1, sizeof(*v))))
    return ACS_ENOMEM;
  acs_diag_init(&d);
  for (size_t i = 0; i < nvary && err == ACS_OK; i++) {
    if ((err = acs_vary_parse(vary[i], (int)i + 1, &v[i], &d)) < 0)
      break;
    /* --set and --vary on one key would silently disagree about which wins. */
    for (size_t k = 0; k < sw->a.sets.n && err == ACS_OK; k++) {
      const char *eq = strchr(sw->a.sets.v[k], '=');
      size_t len = eq ? (size_t)(eq - sw->a.sets.v[k]) : 0;
      char kbuf[ACS_UNIT_CLASS_MAX + 8];
      const char *name = acs_vary_key(&v[i], kbuf, sizeof(kbuf));
      if (len == strlen(name) && strncmp(sw->a.sets.v[k], name, len) == 0)
        err = acs_diag_set(&d, ACS_EINVAL, "--vary", (int)i + 1, 1,
                           "%s is also given by --set %s; use one of them", name,
                           sw->a.sets.v[k]);
    }
  }
  if (err == ACS_OK)
    err = acs_vary_expand(sw->base.rows, sw->base.n, v, nvary, &sw->plats, &sw->nplats, &d);
  if (err < 0 && err != ACS_ENOMEM)
    acs_cli_error(&d);
  for (size_t i = 0; i < nvary; i++)
    acs_vary_free(&v[i]);
  free(v);
  return err;
}

/* The workload paths of every -w argument (suites expanded), each with the
 * index of the argument it came from, for messages. */
static int expand_workloads(struct sweep *sw)
{
  size_t cap = 0, ocap = 0;

  for (size_t a = 0; a < sw->a.workloads.n; a++) {
    char **paths;
    size_t n;
    int err = acs_cli_expand_workloads(&sw->a.workloads.v[a], 1, &paths, &n);
    if (err < 0)
      return err;
    if ((err = acs_grow((void **)&sw->paths, sizeof(*sw->paths), &cap, sw->npaths + n + 1)) < 0 ||
        (err = acs_grow((void **)&sw->origin, sizeof(*sw->origin), &ocap, sw->npaths + n + 1)) < 0) {
      acs_suite_free(paths, n);
      return err;
    }
    for (size_t k = 0; k < n; k++) {
      sw->origin[sw->npaths] = (int)a;
      sw->paths[sw->npaths++] = paths[k];
    }
    free(paths);
  }
  return ACS_OK;
}

/* "PATH" when given as -w PATH, "PATH (in -w SUITE)" from a suite. */
static void describe_path(const struct sweep *sw, size_t j, char *buf, size_t size)
{
  const char *arg = sw->a.workloads.v[sw->origin[j]];

  if (strcmp(arg, sw->paths[j]) == 0)
    snprintf(buf, size, "-w %s", arg);
  else
    snprintf(buf, size, "%s (in -w %s)", sw->paths[j], arg);
}

/*
 * A workload listed twice (the same file by two paths, a file and a suite
 * holding it, two suites that overlap, or two files with equal content)
 * would make every run of it twice, and `acsim merge` would refuse the
 * result. Platforms cannot repeat (their loader refuses a repeated name,
 * --vary drops repeated values) nor schedulers (-s drops repeats), so equal
 * workloads are the only way a sweep can plan one identity twice. The later
 * one is dropped, with a note naming both arguments: overlapping suites are
 * a natural way to ask for the union. O(workloads) expected.
 */
static int drop_duplicate_workloads(struct sweep *sw)
{
  struct acs_keyset *seen = acs_keyset_new();
  char key[ACS_DIGEST_HEX + 32], first[1024], again[1024];
  size_t kept = 0, dropped = 0, j;
  int err = ACS_OK;

  if (!seen)
    return ACS_ENOMEM;
  for (j = 0; j < sw->npaths; j++) {
    const struct acs_workload *w = sw->wls[j];
    int64_t at;
    snprintf(key, sizeof(key), "%s:%s", acs_wl_kind_name(w->kind), w->digest);
    if ((err = acs_keyset_add(seen, key, (int64_t)kept, &at)) < 0)
      break;
    if (err == 1) {
      if (dropped++ < 10) {
        describe_path(sw, j, again, sizeof(again));
        describe_path(sw, (size_t)at, first, sizeof(first));
        fprintf(stderr, "acsim sweep: note: %s is the same workload as %s (equal content, "
                        "SHA-256 %.12s...); it runs once\n", again, first, w->digest);
      }
      acs_workload_free(sw->wls[j]);
      free(sw->paths[j]);
      continue;
    }
    sw->wls[kept] = sw->wls[j];
    sw->paths[kept] = sw->paths[j];
    sw->origin[kept] = sw->origin[j];
    kept++;
  }
  if (dropped > 10)
    fprintf(stderr, "acsim sweep: note: %zu more workloads given twice run once\n",
            dropped - 10);
  /* Out of memory: the workloads not looked at stay, to be freed. */
  for (; j < sw->npaths; j++, kept++) {
    sw->wls[kept] = sw->wls[j];
    sw->paths[kept] = sw->paths[j];
  }
  sw->npaths = kept;
  acs_keyset_free(seen);
  return err < 0 ? err : ACS_OK;
}

static int load_workloads(struct sweep *sw)
{
  char *def = DEFAULT_SUITE;
  struct acs_diag d;
  int err;

  if (sw->a.workloads.n == 0 && acs_strv_push(&sw->a.workloads, def) < 0)
    return ACS_ENOMEM;
  if ((err = expand_workloads(sw)) < 0)
    return err;
  acs_diag_init(&d);
  d.warn = sw->a.quiet ? NULL : acs_cli_warn;
  if (!(sw->wls = calloc(sw->npaths ? sw->npaths : 1, sizeof(*sw->wls))) ||
      !(sw->ext = calloc(sw->npaths ? sw->npaths : 1, sizeof(*sw->ext))))
    return ACS_ENOMEM;
  for (size_t i = 0; i < sw->npaths; i++) {
    sw->ext[i].best = sw->ext[i].worst = sw->ext[i].best_res = sw->ext[i].worst_res = NAN;
    if ((err = acs_workload_load(sw->paths[i], &sw->wls[i], &d)) < 0) {
      if (err != ACS_EINTERRUPTED) /* Ctrl-C: exit 130, nothing to report */
        acs_cli_error(&d);
      return err;
    }
  }
  return drop_duplicate_workloads(sw);
}

/* The default selection: every variant, less the searching ones (ops
 * `searches`: seconds to minutes per run, the default study would spend its
 * whole budget in them) unless a time limit bounds them. They also join
 * when -s names them (or is `all`). Prints what was left out. */
static int default_schedulers(struct sweep *sw, const struct acs_sched_ops ***ops, size_t *n)
{
  size_t nall, k = 0;
  const struct acs_sched_ops *const *all = acs_sched_list(&nall);
  char *left = sw->left_out;
  size_t size = sizeof(sw->left_out);

  if (!(*ops = malloc((nall ? nall : 1) * sizeof(**ops))))
    return ACS_ENOMEM;
  for (size_t i = 0; i < nall; i++) {
    if (all[i]->searches && !(sw->a.time_limit > 0)) {
      size_t off = strlen(left);
      snprintf(left + off, size - off, "%s%s", off ? ", " : "", all[i]->name);
      continue;
    }
    (*ops)[k++] = all[i];
  }
  *n = k;
  return ACS_OK; /* print_plan says what was left out, once the setup is good */
}

static int select_schedulers(struct sweep *sw)
{
  const struct acs_sched_ops **ops;
  size_t n;
  int err;

  if (sw->a.sched)
    err = acs_cli_parse_schedulers("sweep", sw->a.sched, &ops, &n);
  else
    err = default_schedulers(sw, &ops, &n);
  if (err < 0)
    return err;
  sw->sel = calloc(n ? n : 1, sizeof(*sw->sel));
  sw->optstext = calloc(n ? n : 1, sizeof(*sw->optstext));
  if (!sw->sel || !sw->optstext) {
    free(ops);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < n; i++)
    sw->sel[i].ops = ops[i];
  sw->nsel = n;
  free(ops);
  if ((err = acs_job_bind_options("sweep", sw->sel, sw->nsel, sw->a.opts.v, sw->a.opts.n)) < 0)
    return err;
  for (size_t i = 0; i < n; i++)
    acs_job_options_text(&sw->sel[i], sw->optstext[i], sizeof(sw->optstext[i]));
  return ACS_OK;
}

/* The workload of this sweep a stored row is: by digest, or by name for a
 * row stored without one. O(workloads). */
static int workload_index(const struct sweep *sw, const struct acs_workload_row *row)
{
  for (size_t j = 0; j < sw->npaths; j++) {
    const struct acs_workload *w = sw->wls[j];
    if (strcmp(acs_wl_kind_name(w->kind), row->kind) == 0 &&
        (row->digest[0] ? strcmp(w->digest, row->digest) == 0 : strcmp(w->name, row->name) == 0))
      return (int)j;
  }
  return -1;
}

static double run_value(const struct acs_run_row *r)
{
  return isnan(r->sim_makespan_cycles) ? r->makespan_cycles : r->sim_makespan_cycles;
}

/* Updates one pair of records with v; 1 when v set a new one. Ties keep
 * the first run, as the report breaks them. */
static int record_update(double *best, double *worst, double v)
{
  int record = 0;

  if (isnan(*best) || v < *best) {
    *best = v;
    record = 1;
  }
  if (isnan(*worst) || v > *worst) {
    *worst = v;
    record = 1;
  }
  return record;
}

/* Updates the workload's extremes; 1 when r set a new best or worst. */
static int extreme_update(struct extreme *e, const struct acs_run_row *r)
{
  double v = run_value(r);
  int record;

  if (strcmp(r->status, "ok") != 0 || isnan(v))
    return 0;
  record = record_update(&e->best, &e->worst, v);
  if (strcmp(r->memory_model, "resident") == 0)
    record |= record_update(&e->best_res, &e->worst_res, v);
  return record;
}

#define KEY_FLAGS (ACS_KEY_NAME | ACS_KEY_PARAMS | ACS_KEY_DIGEST)

/* What the output already holds: the identities of its finished runs
 * (`done`) and of its `error` runs (`failed`, to run again, with the run_id
 * whose row the retry replaces); *legacy when some run's workload has no
 * digest (such runs have name keys, see report.h). Also the extremes. */
struct existing {
  struct acs_keyset *done, *failed;
  int legacy;
};

static int read_existing(struct sweep *sw, struct existing *ex)
{
  struct acs_results_data data;
  char key[ACS_RUN_KEY_MAX];
  struct acs_diag d;
  int err = ACS_OK;

  if (!(ex->done = acs_keyset_new()) || !(ex->failed = acs_keyset_new()))
    return ACS_ENOMEM;
  if (access(sw->a.output, F_OK) != 0)
    return ACS_OK;
  acs_diag_init(&d);
  if ((err = acs_results_read(sw->a.output, &data, &d)) < 0) {
    acs_cli_error(&d);
    return err;
  }
  ex->legacy = !acs_results_digested(&data);
  for (size_t i = 0; i < data.nruns && err >= 0; i++) {
    const struct acs_run_row *r = &data.runs[i];
    const struct acs_workload_row *w = acs_results_workload_of(&data, r);
    int j;
    if (acs_run_key_of(&data, r, KEY_FLAGS, key) < 0)
      continue;
    /* put: of repeated error rows (older files) the latest is replaced. */
    err = strcmp(r->status, "error") == 0 ? acs_keyset_put(ex->failed, key, r->run_id)
                                          : acs_keyset_add(ex->done, key, r->run_id, NULL);
    if (w && (j = workload_index(sw, w)) >= 0)
      extreme_update(&sw->ext[j], r);
  }
  acs_results_data_free(&data);
  return err < 0 ? err : ACS_OK;
}

/* Whether task (p, j, k) is already in the output; otherwise *replace gets
 * the run_id of a stored error run of it (0 when none). Stored runs without
 * a workload digest are found by name, as acsim wrote them. */
static int stored(struct sweep *sw, const struct existing *ex, size_t p, size_t j, size_t k,
                  int64_t *replace)
{
  const struct acs_workload *w = sw->wls[j];
  const char *kind = acs_wl_kind_name(w->kind);
  char key[ACS_RUN_KEY_MAX], name_key[ACS_RUN_KEY_MAX];

  *replace = 0;
  acs_run_key(&sw->plats[p], w->name, kind, w->digest, sw->sel[k].ops->name, sw->optstext[k],
              KEY_FLAGS, key);
  if (acs_keyset_get(ex->done, key, NULL))
    return 1;
  if (ex->legacy) {
    acs_run_key(&sw->plats[p], w->name, kind, NULL, sw->sel[k].ops->name, sw->optstext[k],
                KEY_FLAGS, name_key);
    if (acs_keyset_get(ex->done, name_key, NULL)) {
      sw->by_name++;
      return 1;
    }
    if (acs_keyset_get(ex->failed, name_key, replace))
      return 0;
  }
  acs_keyset_get(ex->failed, key, replace);
  return 0;
}

static int push_task(struct sweep *sw, size_t *cap, uint32_t p, uint32_t j, uint32_t k,
                     int64_t replace)
{
  int err = acs_grow((void **)&sw->tasks, sizeof(*sw->tasks), cap, sw->ntasks + 1);

  if (err < 0)
    return err;
  sw->tasks[sw->ntasks].plat = p;
  sw->tasks[sw->ntasks].wl = j;
  sw->tasks[sw->ntasks].sel = k;
  sw->tasks[sw->ntasks].replace = replace;
  sw->ntasks++;
  sw->stored_errors += replace > 0;
  return ACS_OK;
}

struct plat_ref {
  const struct acs_platform *p;
  size_t idx;
};

static int plat_ref_cmp(const void *a, const void *b)
{
  const struct plat_ref *x = a, *y = b;
  int c = acs_sim_platform_cmp(x->p, y->p);

  return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Dispatch order: the canonical grid with the platform variants that load
 * the same SimGrid platform (those that differ only in CMX size, barriers,
 * ...) brought together, stable otherwise. A simulation process forks from
 * a zygote that loaded its SimGrid platform, and a worker keeps only a few
 * zygotes: in grid order, `--vary cmx_kib=... --vary dma_gbps=a,b,c --vary
 * ddr_ratio=x,y` cycles through six SimGrid platforms, every change
 * evicted a zygote and restarted SimGrid (29 starts per worker for 48
 * simulations, measured), and -j 2 was no faster than -j 1. Sharding and
 * run identity stay on the canonical grid; only the order runs start in
 * changes. O(P log P + T) for P variants and T tasks.
 */
static int order_tasks(struct sweep *sw)
{
  struct plat_ref *ref;
  size_t *first;
  struct task *out;
  size_t n = 0;
  int err = ACS_ENOMEM;

  if (sw->ntasks == 0)
    return ACS_OK;
  ref = malloc(sw->nplats * sizeof(*ref));
  first = calloc(sw->nplats + 1, sizeof(*first));
  out = malloc(sw->ntasks * sizeof(*out));
  if (!ref || !first || !out)
    goto out_with_arrays;
  for (size_t p = 0; p < sw->nplats; p++)
    ref[p] = (struct plat_ref){&sw->plats[p], p};
  qsort(ref, sw->nplats, sizeof(*ref), plat_ref_cmp);
  /* Tasks come platform-major: first[p] .. first[p + 1] are platform p's. */
  for (size_t t = 0; t < sw->ntasks; t++)
    first[sw->tasks[t].plat + 1]++;
  for (size_t p = 0; p < sw->nplats; p++)
    first[p + 1] += first[p];
  for (size_t r = 0; r < sw->nplats; r++)
    for (size_t t = first[ref[r].idx]; t < first[ref[r].idx + 1]; t++)
      out[n++] = sw->tasks[t];
  memcpy(sw->tasks, out, sw->ntasks * sizeof(*out));
  err = ACS_OK;
out_with_arrays:
  free(out);
  free(first);
  free(ref);
  return err;
}

/* The grid in its canonical order; keeps this shard's runs not yet stored
 * (and those stored as error). */
static int make_tasks(struct sweep *sw)
{
  struct existing ex = {NULL, NULL, 0};
  size_t cap = 0;
  int err;

  if ((err = read_existing(sw, &ex)) < 0)
    goto out_with_existing;
  for (size_t p = 0; p < sw->nplats; p++)
    for (size_t j = 0; j < sw->npaths; j++)
      for (size_t k = 0; k < sw->nsel; k++) {
        int64_t replace;
        size_t g;
        if (!acs_sched_accepts(sw->sel[k].ops, sw->wls[j]->kind))
          continue;
        g = sw->grid++;
        if (sw->a.shard_n > 0 && (int)(g % (size_t)sw->a.shard_n) != sw->a.shard_k - 1)
          continue;
        sw->in_shard++;
        if (stored(sw, &ex, p, j, k, &replace)) {
          sw->skipped++;
          continue;
        }
        if (sw->ntasks >= UINT32_MAX - 1) {
          acs_cli_errorf("sweep: more than %u runs; split it with --shard K/N", UINT32_MAX - 2);
          err = ACS_ERANGE;
          goto out_with_existing;
        }
        if ((err = push_task(sw, &cap, (uint32_t)p, (uint32_t)j, (uint32_t)k, replace)) < 0)
          goto out_with_existing;
      }
  if ((err = order_tasks(sw)) < 0)
    goto out_with_existing;
  err = sw->ntasks && !(sw->deaths = calloc(sw->ntasks, sizeof(*sw->deaths))) ? ACS_ENOMEM
                                                                            : ACS_OK;
out_with_existing:
  acs_keyset_free(ex.done);
  acs_keyset_free(ex.failed);
  return err;
}

/* ---- the worker ---- */

struct prepared {
  long plat, wl;               /* -1: nothing prepared */
  int err;
  char msg[ACS_STR_MSG];
  struct acs_graph g;
  struct acs_problem pb;
  int64_t bound;
};

static void prepared_drop(struct prepared *pr)
{
  if (pr->plat >= 0 && pr->err == ACS_OK) {
    acs_problem_destroy(&pr->pb);
    acs_graph_destroy(&pr->g);
  }
  pr->plat = pr->wl = -1;
}

/* Builds the graph and problem of a (platform, workload) pair, reusing the
 * previous one when the pair repeats (tasks come in grid order). */
static void prepare(const struct sweep *sw, const struct task *t, struct prepared *pr)
{
  struct acs_diag d;

  if (pr->plat == (long)t->plat && pr->wl == (long)t->wl)
    return;
  prepared_drop(pr);
  acs_diag_init(&d);
  pr->plat = (long)t->plat;
  pr->wl = (long)t->wl;
  pr->err = acs_job_prepare(sw->wls[t->wl], &sw->plats[t->plat], &pr->g, &pr->pb, &pr->bound, &d);
  if (pr->err < 0)
    acs_diag_format(&d, pr->msg, sizeof(pr->msg));
}

/* Runs one task and sends its message; ACS_EINTERRUPTED when the run was
 * cut short (nothing sent). */
static int worker_task(const struct sweep *sw, uint32_t idx, struct prepared *pr, int out,
                       struct acs_wbuf *buf)
{
  const struct task *t = &sw->tasks[idx];
  struct acs_sched_ctx ctx = {sw->a.seed, sw->a.time_limit, &acs_cli_interrupted};
  struct acs_wire_head h;
  struct acs_schedule s;
  int keep = 0, err;

  memset(&h, 0, sizeof(h));
  h.magic = ACS_WIRE_MAGIC;
  h.task = idx;
  h.ops = h.edges = -1;
  acs_run_row_init(&h.row);
  buf->n = 0;
  prepare(sw, t, pr);
  if (pr->err < 0) {
    snprintf(h.row.scheduler, sizeof(h.row.scheduler), "%s", sw->sel[t->sel].ops->name);
    snprintf(h.row.options, sizeof(h.row.options), "%s", sw->optstext[t->sel]);
    snprintf(h.row.status, sizeof(h.row.status), "%s",
             pr->err == ACS_EINFEASIBLE ? "infeasible" : "error");
    snprintf(h.row.message, sizeof(h.row.message), "%s", pr->msg);
  } else {
    h.ops = pr->g.nops;
    h.edges = pr->g.nedges;
    h.row.lower_bound_cycles = (double)pr->bound;
    h.row.ops = pr->g.nops;
    h.row.edges = pr->g.nedges;
    err = acs_job_run(&pr->pb, &sw->sel[t->sel], &ctx, !sw->a.no_sim, &s, &h.row, &keep);
    if (err == ACS_EINTERRUPTED) {
      acs_schedule_destroy(&s);
      return err;
    }
    if (err < 0) {
      snprintf(h.row.status, sizeof(h.row.status), "error");
      snprintf(h.row.message, sizeof(h.row.message), "%s", acs_strerror(err));
      keep = 0;
    }
    if (keep && sw->a.keep != KEEP_NONE && acs_wire_put_schedule(buf, &s) < 0)
      buf->n = 0; /* out of memory: the row still goes, without its schedule */
    acs_schedule_destroy(&s);
  }
  h.sched_len = buf->n;
  if (acs_wire_write(out, &h, sizeof(h)) < 0 || acs_wire_write(out, buf->p, buf->n) < 0)
    return ACS_EIO;
  return ACS_OK;
}

/*
 * A test hook, so that the tests can make a worker misbehave on a chosen
 * run deterministically (tests/sweep.sh), as the simulator's hooks do
 * (simulate/sim.h): ACSIM_TEST_WORKER="ACTION N" acts on the N-th run (from
 * 1, in this invocation's task order, which is the grid order with the runs
 * already stored left out). ACTION `abort` aborts the worker every time it
 * gets that run, `abort-once` only the first time (a retry in a fresh
 * worker then succeeds), `hang` blocks it until the parent closes its task
 * pipe (Ctrl-C, or the parent's death) so that a test can stop the sweep at
 * a known point without timing. Unset, it costs one getenv per worker.
 */
enum { HOOK_NONE, HOOK_ABORT, HOOK_ABORT_ONCE, HOOK_HANG };
struct test_hook {
  int action;
  unsigned long run;
};

static struct test_hook test_hook_get(void)
{
  struct test_hook h = {HOOK_NONE, 0};
  const char *env = getenv("ACSIM_TEST_WORKER");
  char action[16];

  if (env && sscanf(env, "%15s %lu", action, &h.run) == 2 && h.run > 0)
    h.action = strcmp(action, "abort") == 0 ? HOOK_ABORT
             : strcmp(action, "abort-once") == 0 ? HOOK_ABORT_ONCE
             : strcmp(action, "hang") == 0 ? HOOK_HANG : HOOK_NONE;
  return h;
}

static void test_hook_run(const struct sweep *sw, const struct test_hook *h, uint32_t idx, int in)
{
  uint32_t drain;

  if (h->action == HOOK_NONE || idx + 1ul != h->run)
    return;
  /* sw->deaths was copied when this worker was forked: a retry runs in a
   * worker forked after the death, which sees it. */
  if (h->action == HOOK_ABORT || (h->action == HOOK_ABORT_ONCE && sw->deaths[idx] == 0)) {
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none); /* a test leaves no core file behind */
    abort();
  }
  if (h->action == HOOK_HANG) {
    while (acs_wire_read(in, &drain, sizeof(drain)) == 1)
      ;
    _exit(0);
  }
}

static void worker_main(const struct sweep *sw, int in, int out)
{
  struct prepared pr = {.plat = -1, .wl = -1};
  struct acs_wbuf buf = {0};
  struct test_hook hook = test_hook_get();
  uint32_t idx;

  /* The parent reports a dead pipe; a worker just leaves. */
  signal(SIGPIPE, SIG_IGN);
  while (!acs_cli_interrupted && acs_wire_read(in, &idx, sizeof(idx)) == 1) {
    if (idx >= sw->ntasks)
      break;
    test_hook_run(sw, &hook, idx, in);
    if (worker_task(sw, idx, &pr, out, &buf) < 0)
      break;
  }
  /* _exit: no atexit handler of the parent (HDF5's among them) runs here. */
  _exit(0);
}

static int spawn(struct sweep *sw, int slot)
{
  int tp[2], rp[2];
  pid_t pid;

  if (pipe(tp) < 0)
    return ACS_EIO;
  if (pipe(rp) < 0) {
    close(tp[0]);
    close(tp[1]);
    return ACS_EIO;
  }
  fflush(stdout);
  fflush(stderr);
  if ((pid = fork()) < 0) {
    close(tp[0]);
    close(tp[1]);
    close(rp[0]);
    close(rp[1]);
    return ACS_EIO;
  }
  if (pid == 0) {
    /* Only stdio and this worker's two pipe ends stay open: other workers'
     * pipes must close or they would never see end of file, and the study
     * file's descriptors (and HDF5's lock on them) must not outlive a
     * parent that was killed. */
    acs_close_other_fds(tp[0], rp[1]);
    worker_main(sw, tp[0], rp[1]);
  }
  close(tp[0]);
  close(rp[1]);
  sw->w[slot].pid = pid;
  sw->w[slot].task_fd = tp[1];
  sw->w[slot].result_fd = rp[0];
  sw->w[slot].ninflight = 0;
  return ACS_OK;
}

/*
 * A schedule not kept still keeps its family's result tables (a cascade's
 * plans and Pareto front, a modulo schedule's II): they are small, and the
 * report plots them for every run. 1 and the tables (no ops) in *s when
 * the run has some.
 */
static int tables_only(const void *blob, size_t len, struct acs_schedule *s)
{
  if (acs_wire_get_schedule(blob, len, s) != ACS_OK) {
    acs_schedule_destroy(s);
    return 0;
  }
  if (s->ntables == 0) {
    acs_schedule_destroy(s);
    return 0;
  }
  s->nops = s->norig = 0;
  s->nedges = 0;
  s->nwaits = 0;
  s->makespan = 0;
  return 1;
}

/* ---- the parent: storing results ---- */

static int store(struct sweep *sw, const struct acs_wire_head *h, const unsigned char *blob)
{
  const struct task *t = &sw->tasks[h->task];
  const struct acs_workload *w = sw->wls[t->wl];
  struct acs_workload_row wrow;
  struct acs_run_row row = h->row;
  struct acs_schedule s;
  int err, st, with = 0, tables = 0;

  if (sw->pid_of[t->plat] < 0 &&
      (err = acs_results_add_platform(sw->res, &sw->plats[t->plat], &sw->pid_of[t->plat])) < 0)
    return err;
  acs_cli_workload_row(w, h->ops, h->edges, &wrow);
  if ((err = acs_results_add_workload(sw->res, &wrow, &row.workload_id)) < 0)
    return err;
  row.platform_id = sw->pid_of[t->plat];
  if (h->sched_len > 0 && (sw->a.keep == KEEP_ALL || extreme_update(&sw->ext[t->wl], &row))) {
    if (acs_wire_get_schedule(blob, h->sched_len, &s) == ACS_OK)
      with = 1;
    else
      acs_schedule_destroy(&s);
  } else {
    extreme_update(&sw->ext[t->wl], &row);
    tables = h->sched_len > 0 && tables_only(blob, h->sched_len, &s);
  }
  /* A retried error run takes the place of its stored row. */
  row.run_id = t->replace;
  err = t->replace > 0 ? acs_results_replace_run(sw->res, &row, with || tables ? &s : NULL)
                       : acs_results_add_run(sw->res, &row, with || tables ? &s : NULL);
  if (with || tables)
    acs_schedule_destroy(&s);
  if (err < 0)
    return err;
  st = acs_status_parse(row.status);
  sw->nstatus[st >= 0 && st < 4 ? st : ACS_ST_ERROR]++;
  sw->nstored += (size_t)with;
  sw->done++;
  sw->dirty = 1;
  return ACS_OK;
}

/* A run whose worker died under it twice. */
static int store_lost(struct sweep *sw, uint32_t idx, int wstatus)
{
  struct acs_wire_head h;

  memset(&h, 0, sizeof(h));
  h.task = idx;
  h.ops = h.edges = -1;
  acs_run_row_init(&h.row);
  snprintf(h.row.scheduler, sizeof(h.row.scheduler), "%s",
           sw->sel[sw->tasks[idx].sel].ops->name);
  snprintf(h.row.options, sizeof(h.row.options), "%s", sw->optstext[sw->tasks[idx].sel]);
  snprintf(h.row.status, sizeof(h.row.status), "error");
  if (WIFSIGNALED(wstatus))
    snprintf(h.row.message, sizeof(h.row.message),
             "the sweep worker running this was killed by signal %d (%s), also when retried "
             "in a fresh worker; running the sweep again retries it",
             WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
  else
    snprintf(h.row.message, sizeof(h.row.message),
             "the sweep worker running this exited (status %d) without a result, also when "
             "retried in a fresh worker; running the sweep again retries it",
             WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
  return store(sw, &h, NULL);
}

static void close_worker(struct worker *w)
{
  if (w->task_fd >= 0)
    close(w->task_fd);
  if (w->result_fd >= 0)
    close(w->result_fd);
  w->task_fd = w->result_fd = -1;
}

/* A worker's pipe ended: reap it. Its first task in flight was running:
 * unless we are stopping, it is retried once in the replacement worker, and
 * stored as error when it was the retry that died. The others go back in
 * the queue. */
static int worker_gone(struct sweep *sw, int i)
{
  struct worker *w = &sw->w[i];
  int wstatus = 0, err = ACS_OK, retry = 0;
  uint32_t idx = 0;

  close_worker(w);
  while (waitpid(w->pid, &wstatus, 0) < 0 && errno == EINTR)
    ;
  w->pid = -1;
  if (!acs_cli_interrupted && w->ninflight > 0) {
    idx = w->inflight[0];
    if (sw->deaths[idx]++ == 0) {
      retry = 1;
      sw->retried++;
    } else {
      err = store_lost(sw, idx, wstatus);
    }
    for (int k = 1; k < w->ninflight; k++)
      sw->requeue[sw->nrequeue++] = w->inflight[k];
  }
  w->ninflight = 0;
  /* A replacement, unless stopping; a bounded number, in case something
   * kills workers faster than they work. */
  if (err == ACS_OK && !acs_cli_interrupted &&
      (retry || sw->next < sw->ntasks || sw->nrequeue > 0) && sw->respawns++ < MAX_RESPAWNS)
    err = spawn(sw, i);
  if (retry) {
    /* First in the fresh worker's queue; if there is none (the respawn
     * limit), whichever worker asks next. */
    if (err == ACS_OK && w->pid > 0 && acs_wire_write(w->task_fd, &idx, sizeof(idx)) == ACS_OK)
      w->inflight[w->ninflight++] = idx;
    else
      sw->requeue[sw->nrequeue++] = idx;
  }
  return err;
}

/* Reads one message of worker i. */
static int receive(struct sweep *sw, int i)
{
  struct worker *w = &sw->w[i];
  struct acs_wire_head h;
  unsigned char *blob = NULL;
  int rc, err;

  rc = acs_wire_read(w->result_fd, &h, sizeof(h));
  if (rc != 1 || h.magic != ACS_WIRE_MAGIC || w->ninflight == 0 || h.task != w->inflight[0] ||
      h.sched_len > ((uint64_t)1 << 40))
    return worker_gone(sw, i);
  if (h.sched_len > 0) {
    if (!(blob = malloc((size_t)h.sched_len)))
      return ACS_ENOMEM;
    if (acs_wire_read(w->result_fd, blob, (size_t)h.sched_len) != 1) {
      free(blob);
      return worker_gone(sw, i);
    }
  }
  memmove(w->inflight, w->inflight + 1, (size_t)(w->ninflight - 1) * sizeof(w->inflight[0]));
  w->ninflight--;
  err = store(sw, &h, blob);
  free(blob);
  return err;
}

/* ---- the parent: progress ---- */

static void fmt_duration(double s, char *buf, size_t size)
{
  long t = (long)(s + 0.5);

  if (t >= 3600)
    snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

static void progress(struct sweep *sw, int final)
{
  double now = acs_now_seconds(), el = now - sw->t0;
  size_t n = sw->ntasks, d = sw->done;
  char eta[32], elapsed[32];

  if (sw->a.quiet) /* -q: no warnings and no progress, as in every command */
    return;

  fmt_duration(el, elapsed, sizeof(elapsed));
  if (d > 0 && d < n)
    fmt_duration(el / (double)d * (double)(n - d), eta, sizeof(eta));
  else
    snprintf(eta, sizeof(eta), "--:--");
  if (sw->tty) {
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    int width = cols - 50, fill;
    if (!final && now - sw->last_draw < 0.1)
      return;
    sw->last_draw = now;
    if (width > 40)
      width = 40;
    if (width < 10)
      width = 10;
    fill = n ? (int)((double)width * (double)d / (double)n) : width;
    fprintf(stderr, "\r\033[K[");
    for (int i = 0; i < width; i++)
      fputc(i < fill ? '#' : '-', stderr);
    fprintf(stderr, "] %zu/%zu %3.0f%%  %s  ETA %s  %zu err", d, n,
            n ? 100.0 * (double)d / (double)n : 100.0, elapsed, eta, sw->nstatus[ACS_ST_ERROR]);
    if (final)
      fputc('\n', stderr);
    fflush(stderr);
    return;
  }
  /* Not a terminal (a log, CI): a plain line every 10 s and at the end. */
  if (!final && now - sw->last_line < 10.0)
    return;
  sw->last_line = now;
  fprintf(stderr, "sweep: %zu/%zu runs (%.0f%%), %s elapsed, ETA %s\n", d, n,
          n ? 100.0 * (double)d / (double)n : 100.0, elapsed, eta);
  fflush(stderr);
}

/* ---- the parent: the loop ---- */

static int dispatch(struct sweep *sw)
{
  for (int i = 0; i < sw->nw && !acs_cli_interrupted; i++) {
    struct worker *w = &sw->w[i];
    while (w->pid > 0 && w->ninflight < INFLIGHT &&
           (sw->nrequeue > 0 || sw->next < sw->ntasks)) {
      uint32_t idx = sw->nrequeue > 0 ? sw->requeue[--sw->nrequeue] : (uint32_t)sw->next++;
      if (acs_wire_write(w->task_fd, &idx, sizeof(idx)) < 0) {
        sw->requeue[sw->nrequeue++] = idx; /* it died; its pipe will say so */
        break;
      }
      w->inflight[w->ninflight++] = idx;
    }
  }
  return ACS_OK;
}

/* When no task is left to hand out, closing a worker's task pipe lets it
 * finish what it has and leave. */
static void release_idle(struct sweep *sw)
{
  if (sw->next < sw->ntasks || sw->nrequeue > 0)
    return;
  for (int i = 0; i < sw->nw; i++)
    if (sw->w[i].task_fd >= 0) {
      close(sw->w[i].task_fd);
      sw->w[i].task_fd = -1;
    }
}

static void forward_interrupt(struct sweep *sw)
{
  if (!acs_cli_interrupted || sw->forwarded)
    return;
  sw->forwarded = 1;
  /* Workers finish (or cut short) the run they have and leave; closing the
   * task pipes wakes one that waits for a task. */
  for (int i = 0; i < sw->nw; i++)
    if (sw->w[i].pid > 0) {
      kill(sw->w[i].pid, SIGTERM);
      if (sw->w[i].task_fd >= 0) {
        close(sw->w[i].task_fd);
        sw->w[i].task_fd = -1;
      }
    }
}

static int poll_workers(struct sweep *sw)
{
  struct pollfd pfd[64];
  int map[64], n = 0, rc, err;

  for (int i = 0; i < sw->nw && n < 64; i++)
    if (sw->w[i].pid > 0 && sw->w[i].result_fd >= 0) {
      pfd[n].fd = sw->w[i].result_fd;
      pfd[n].events = POLLIN;
      map[n++] = i;
    }
  if (n == 0)
    return 0;
  rc = poll(pfd, (nfds_t)n, 100);
  if (rc < 0)
    return errno == EINTR ? 1 : ACS_EIO;
  for (int k = 0; k < n; k++)
    if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
      if ((err = receive(sw, map[k])) < 0)
        return err;
  return 1;
}

static int checkpoint(struct sweep *sw, int force)
{
  struct acs_diag d;
  double now = acs_now_seconds();
  int err;

  if (!sw->dirty || (!force && now - sw->last_checkpoint < CHECKPOINT_SECONDS))
    return ACS_OK;
  acs_diag_init(&d);
  if ((err = acs_results_checkpoint(sw->res, &d)) < 0) {
    acs_cli_error(&d);
    return err;
  }
  sw->last_checkpoint = now;
  sw->dirty = 0;
  return ACS_OK;
}

static int run_workers(struct sweep *sw)
{
  int err = ACS_OK, nw = sw->a.jobs;

  if ((size_t)nw > sw->ntasks)
    nw = (int)sw->ntasks;
  if (nw > 64)
    nw = 64;
  if (!(sw->w = calloc((size_t)(nw ? nw : 1), sizeof(*sw->w))) ||
      !(sw->requeue = calloc((size_t)(nw ? nw : 1) * INFLIGHT + 1, sizeof(*sw->requeue))))
    return ACS_ENOMEM;
  for (int i = 0; i < nw; i++)
    sw->w[i].task_fd = sw->w[i].result_fd = -1, sw->w[i].pid = -1;
  for (int i = 0; i < nw && err == ACS_OK; i++) {
    sw->nw = i; /* the child closes the pipes of workers 0..i-1 */
    err = spawn(sw, i);
  }
  sw->nw = nw;
  while (err == ACS_OK) {
    int rc;
    forward_interrupt(sw);
    dispatch(sw);
    release_idle(sw);
    if ((rc = poll_workers(sw)) <= 0) {
      err = rc;
      break;
    }
    progress(sw, 0);
    err = checkpoint(sw, 0);
  }
  return err;
}

static void stop_workers(struct sweep *sw)
{
  for (int i = 0; sw->w && i < sw->nw; i++) {
    if (sw->w[i].pid <= 0)
      continue;
    close_worker(&sw->w[i]);
    kill(sw->w[i].pid, SIGTERM);
    while (waitpid(sw->w[i].pid, NULL, 0) < 0 && errno == EINTR)
      ;
    sw->w[i].pid = -1;
  }
}

/* ---- the command ---- */

static void sweep_free(struct sweep *sw)
{
  stop_workers(sw);
  if (sw->res)
    acs_results_abort(sw->res);
  for (size_t i = 0; sw->wls && i < sw->npaths; i++)
    if (sw->wls[i])
      acs_workload_free(sw->wls[i]);
  free(sw->wls);
  free(sw->ext);
  acs_job_free_options(sw->sel, sw->nsel);
  free(sw->sel);
  free(sw->optstext);
  acs_suite_free(sw->paths, sw->npaths);
  free(sw->base.rows);
  free(sw->plats);
  free(sw->tasks);
  free(sw->deaths);
  free(sw->origin);
  free(sw->pid_of);
  free(sw->w);
  free(sw->requeue);
  acs_strv_free(&sw->a.workloads);
  acs_strv_free(&sw->a.sets);
  acs_strv_free(&sw->a.opts);
  acs_strv_free(&sw->a.varies);
}

static void print_plan(const struct sweep *sw)
{
  if (sw->left_out[0])
    printf("schedulers: left out %s (searching; give --time-limit SEC or -s to include)\n",
           sw->left_out);
  /* The count is of the runs that will be: pairs whose scheduler does not
   * take the workload's kind are not runs, and the line says so. */
  if (sw->fit.skipped == 0)
    printf("sweep: %zu platform variant%s x %zu workload%s x %zu scheduler%s = %zu run%s",
           sw->nplats, sw->nplats == 1 ? "" : "s", sw->npaths, sw->npaths == 1 ? "" : "s",
           sw->nsel, sw->nsel == 1 ? "" : "s", sw->grid, sw->grid == 1 ? "" : "s");
  else
    printf("sweep: %zu platform variant%s x %zu scheduler-workload pair%s = %zu run%s",
           sw->nplats, sw->nplats == 1 ? "" : "s", sw->fit.pairs, sw->fit.pairs == 1 ? "" : "s",
           sw->grid, sw->grid == 1 ? "" : "s");
  if (sw->a.shard_n > 0)
    printf("; shard %d/%d: %zu", sw->a.shard_k, sw->a.shard_n, sw->in_shard);
  if (sw->skipped > 0)
    printf("; %zu already in %s", sw->skipped, sw->a.output);
  if (sw->stored_errors > 0)
    printf("; %zu error run%s to retry", sw->stored_errors, sw->stored_errors == 1 ? "" : "s");
  printf("\n");
  if (sw->fit.skipped > 0)
    printf("sweep: %zu workload%s x %zu scheduler%s make %zu pairs; %zu do not run, their "
           "scheduler does not take the workload's kind\n", sw->npaths,
           sw->npaths == 1 ? "" : "s", sw->nsel, sw->nsel == 1 ? "" : "s",
           sw->fit.pairs + sw->fit.skipped, sw->fit.skipped);
  if (sw->by_name > 0)
    printf("note: %zu of the runs already in %s were matched by workload name, not content: "
           "they were stored by an older acsim, without workload digests\n", sw->by_name,
           sw->a.output);
  if (sw->a.default_study)
    printf("default study: %s, %s, --vary %s --vary %s --vary %s\n", sw->base.path,
           DEFAULT_SUITE, default_varies[0], default_varies[1], default_varies[2]);
  fflush(stdout);
}

static void print_summary(const struct sweep *sw)
{
  double el = acs_now_seconds() - sw->t0;

  printf("%s%zu run%s in %.1f s: %zu ok, %zu infeasible, %zu timeout, %zu error; "
         "%zu schedule%s stored\n", acs_cli_interrupted ? "interrupted after " : "",
         sw->done, sw->done == 1 ? "" : "s", el, sw->nstatus[ACS_ST_OK],
         sw->nstatus[ACS_ST_INFEASIBLE], sw->nstatus[ACS_ST_TIMEOUT],
         sw->nstatus[ACS_ST_ERROR], sw->nstored, sw->nstored == 1 ? "" : "s");
  if (sw->retried > 0)
    printf("%zu run%s retried in a fresh worker after %s worker died\n", sw->retried,
           sw->retried == 1 ? "" : "s", sw->retried == 1 ? "its" : "their");
  if (sw->a.no_sim)
    printf("not simulated (--no-sim): the simulated columns are NaN\n");
  printf("written to %s%s\n", sw->a.output,
         acs_cli_interrupted ? "; run the same command again to resume" : "");
  if (!acs_cli_interrupted) {
    /* The report beside the study (out/study.h5: out/report), where
     * ./quickstart.sh writes it. */
    const char *slash = strrchr(sw->a.output, '/');
    int dir = slash ? (int)(slash - sw->a.output) + 1 : 0;
    printf("next: acsim report %s -o %.*sreport\n", sw->a.output, dir, sw->a.output);
  }
}

/* Nothing silently skipped: a scheduler named with -s that takes none of
 * the workloads is an error unless another one runs (fit.c). */
static int check_fit(struct sweep *sw)
{
  const struct acs_sched_ops **ops = calloc(sw->nsel ? sw->nsel : 1, sizeof(*ops));
  int err;

  if (!ops)
    return ACS_ENOMEM;
  for (size_t k = 0; k < sw->nsel; k++)
    ops[k] = sw->sel[k].ops;
  err = acs_cli_fit_workloads("sweep", ops, sw->nsel, sw->wls, sw->npaths,
                          sw->a.sched && strcmp(sw->a.sched, "all") != 0, sw->a.quiet, &sw->fit);
  free(ops);
  return err;
}

static int setup(struct sweep *sw)
{
  int err;

  if ((err = select_schedulers(sw)) < 0 || (err = expand_platforms(sw)) < 0 ||
      (err = load_workloads(sw)) < 0 || (err = check_fit(sw)) < 0 || (err = make_tasks(sw)) < 0)
    return err;
  if (!(sw->pid_of = malloc((sw->nplats ? sw->nplats : 1) * sizeof(*sw->pid_of))))
    return ACS_ENOMEM;
  for (size_t i = 0; i < sw->nplats; i++)
    sw->pid_of[i] = -1;
  return ACS_OK;
}

int acs_cmd_sweep(int argc, char **argv)
{
  struct sweep sw;
  struct acs_diag d;
  char *cmdline = NULL;
  int err, rc = ACS_EXIT_USAGE;

  memset(&sw, 0, sizeof(sw));
  acs_diag_init(&d);
  if ((err = parse_args(argc, argv, &sw.a)) != ACS_OK) {
    rc = err > 0 ? ACS_EXIT_OK : ACS_EXIT_USAGE;
    goto out;
  }
  /* From here on SIGINT and SIGTERM only set a flag (inherited by the
   * workers): every phase checks it and the finished runs are kept. */
  acs_cli_catch_signals();
  signal(SIGPIPE, SIG_IGN);
  if ((err = setup(&sw)) < 0) {
    /* Every other failure printed its own one-line message. */
    if (err == ACS_ENOMEM)
      acs_cli_errorf("%s", acs_strerror(err));
    if (acs_cli_interrupted)
      rc = ACS_EXIT_INTERRUPTED;
    goto out;
  }
  if (acs_cli_interrupted) { /* nothing ran yet: nothing to keep */
    rc = ACS_EXIT_INTERRUPTED;
    goto out;
  }
  print_plan(&sw);
  cmdline = acs_cli_join_argv(argc, argv);
  if (acs_results_open(sw.a.output, cmdline ? cmdline : "acsim sweep", &sw.res, &d) < 0) {
    acs_cli_error(&d);
    goto out;
  }
  sw.tty = isatty(STDERR_FILENO);
  sw.t0 = sw.last_checkpoint = acs_now_seconds();
  err = sw.ntasks > 0 ? run_workers(&sw) : ACS_OK;
  stop_workers(&sw);
  progress(&sw, 1);
  if (err < 0) {
    acs_cli_errorf("sweep stopped: %s; the runs finished so far are kept", acs_strerror(err));
    rc = ACS_EXIT_USAGE; /* the command could not do its work: 2, as in run */
  } else if (!acs_cli_interrupted && sw.done < sw.ntasks) {
    /* Only when workers died faster than MAX_RESPAWNS allows replacing:
     * runs that died are failed checks, as a run stored in error is. */
    acs_cli_errorf("sweep stopped: %zu runs not run, workers kept dying (%d replaced); the "
                   "runs finished so far are kept", sw.ntasks - sw.done, sw.respawns);
    err = ACS_EIO;
    rc = ACS_EXIT_FAIL;
  }
  /* Finished runs are kept whatever stopped the loop. */
  {
    struct acs_results *res = sw.res;
    sw.res = NULL;
    if (acs_results_commit(res, &d) < 0) {
      acs_cli_error(&d);
      rc = ACS_EXIT_USAGE;
      goto out;
    }
  }
  print_summary(&sw);
  if (err == ACS_OK)
    rc = acs_cli_interrupted ? ACS_EXIT_INTERRUPTED
         : sw.nstatus[ACS_ST_ERROR] ? ACS_EXIT_FAIL : ACS_EXIT_OK;
out:
  free(cmdline);
  sweep_free(&sw);
  return rc;
}
