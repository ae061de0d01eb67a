/*
 * cmd_sweep.c - `acsim sweep`: a trade study. The cartesian product of
 * --vary values over every platform row, every workload and the chosen
 * schedulers, run by forked workers, written by one process.
 *
 * The engine (the task list and resume, the worker pool, dispatch, storing,
 * progress) is sweep/sweep.h; this file is the command over it: its
 * options, the platform variants, the workloads and the schedulers, how one
 * run executes in a worker (cli/job.h, as `acsim run`), and what it prints.
 * A workload given twice (two paths to one file, a suite and a file in it)
 * runs once.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/proc.h"
#include "core/sched/cache.h"
#include "cli/job.h"
#include "report/report.h"
#include "simulate/sim.h"
#include "sweep/sweep.h"

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
  "                        or extremes (default: the best and worst run of each\n"
  "                        workload, for the report; written when the sweep ends)\n"
  "      --no-sim          do not simulate (the simulated columns stay NaN)\n"
  ACS_CLI_HELP_TIME_LIMIT
  ACS_CLI_HELP_SIM_TIMEOUT
  ACS_CLI_HELP_SEED_MAX_QUIET
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

struct sweep_args {
  struct acs_cli_args c;       /* -p -w -s -O --set -o --no-sim ... */
  struct acs_strv varies;
  int jobs, keep, shard_k, shard_n, default_study;
};

/* A worker's last (platform, workload) pair, built once for its runs. */
struct prepared {
  long plat, wl;               /* -1: nothing prepared */
  int err;
  char msg[ACS_STR_MSG];
  struct acs_graph g;
  struct acs_problem pb;
  int64_t bound;
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
  const struct acs_sched_ops **ops; /* sel[k].ops, for the engine */
  size_t nsel;
  char (*optstext)[ACS_STR_OPTS];
  int *origin;                 /* per workload: the -w argument it came from */
  char left_out[256];          /* searching variants the default selection left out */
  struct acs_cli_fit fit;      /* scheduler-workload pairs that run and that do not */
  struct prepared pr;          /* in a worker */
  struct acs_sched_cache *cache; /* in a worker: what schedulers keep between runs */
  struct acs_sweep s;          /* the engine */
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
    a->keep = ACS_SWEEP_KEEP_ALL;
  else if (strcmp(s, "extremes") == 0)
    a->keep = ACS_SWEEP_KEEP_EXTREMES;
  else if (strcmp(s, "none") == 0)
    a->keep = ACS_SWEEP_KEEP_NONE;
  else
    return ACS_EINVAL;
  return ACS_OK;
}

enum { OPT_VARY = 'V', OPT_JOBS = 'j', OPT_SHARD = 'K', OPT_KEEP = 'k' };

static int own_opt(void *ctx, int c, const char *arg)
{
  struct sweep_args *a = ctx;
  char *end;
  long j;

  switch (c) {
  case OPT_VARY:
    return acs_strv_push(&a->varies, (char *)arg) < 0 ? ACS_ENOMEM : ACS_OK;
  case OPT_JOBS:
    j = strtol(arg, &end, 10);
    if (*end || end == arg || j < 1 || j > 1024)
      return acs_cli_usage("sweep", "-j: '%s' is not a number of workers (1-1024)", arg),
             ACS_EINVAL;
    a->jobs = (int)j;
    return ACS_OK;
  case OPT_SHARD:
    if (parse_shard(arg, a) < 0)
      return acs_cli_usage("sweep", "--shard: '%s' is not K/N with 1 <= K <= N", arg),
             ACS_EINVAL;
    return ACS_OK;
  case OPT_KEEP:
    if (parse_keep(arg, a) < 0)
      return acs_cli_usage("sweep", "--keep-schedules: '%s' is not all, extremes or none", arg),
             ACS_EINVAL;
    return ACS_OK;
  default:
    return ACS_CLI_NOT_MINE;
  }
}

static int parse_args(int argc, char **argv, struct sweep_args *a)
{
  static const struct option own[] = {
    {"vary", required_argument, NULL, OPT_VARY},   {"jobs", required_argument, NULL, OPT_JOBS},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"keep-schedules", optional_argument, NULL, OPT_KEEP},
    {NULL, 0, NULL, 0}};
  static const struct acs_cli_spec spec = {
    .common = "pwsOSoNTRqhML", .own = own, .own_short = "j:", .help = sweep_help,
    .own_opt = own_opt};
  int err;

  memset(a, 0, sizeof(*a));
  a->keep = ACS_SWEEP_KEEP_EXTREMES;
  a->c.output = "study.h5";
  if ((err = acs_cli_parse("sweep", argc, argv, &spec, &a->c, a)) != ACS_OK)
    return err;
  if (optind < argc)
    return acs_cli_usage("sweep", "unexpected argument '%s'", argv[optind]), ACS_EINVAL;
  if (!*a->c.output)
    return acs_cli_usage("sweep", "-o: empty file name"), ACS_EINVAL;
  a->default_study = !a->c.platform && a->c.workloads.n == 0 && a->varies.n == 0;
  if (a->jobs == 0)
    a->jobs = acs_cpus_online(1024);
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
  if ((err = acs_cli_load_platforms(sw->a.c.platform, sw->a.c.sets.v, sw->a.c.sets.n, &sw->base)) < 0)
    return err;
  if (!(v = calloc(nvary ? nvary : 1, sizeof(*v))))
    return ACS_ENOMEM;
  acs_diag_init(&d);
  for (size_t i = 0; i < nvary && err == ACS_OK; i++) {
    if ((err = acs_vary_parse(vary[i], (int)i + 1, &v[i], &d)) < 0)
      break;
    /* --set and --vary on one key would silently disagree about which wins. */
    for (size_t k = 0; k < sw->a.c.sets.n && err == ACS_OK; k++) {
      const char *eq = strchr(sw->a.c.sets.v[k], '=');
      size_t len = eq ? (size_t)(eq - sw->a.c.sets.v[k]) : 0;
      char kbuf[ACS_UNIT_CLASS_MAX + 8];
      const char *name = acs_vary_key(&v[i], kbuf, sizeof(kbuf));
      if (len == strlen(name) && strncmp(sw->a.c.sets.v[k], name, len) == 0)
        err = acs_diag_set(&d, ACS_EINVAL, "--vary", (int)i + 1, 1,
                           "%s is also given by --set %s; use one of them", name,
                           sw->a.c.sets.v[k]);
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

  for (size_t a = 0; a < sw->a.c.workloads.n; a++) {
    char **paths;
    size_t n;
    int err = acs_cli_expand_workloads(&sw->a.c.workloads.v[a], 1, &paths, &n);
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
  const char *arg = sw->a.c.workloads.v[sw->origin[j]];

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

  if (sw->a.c.workloads.n == 0 && acs_strv_push(&sw->a.c.workloads, def) < 0)
    return ACS_ENOMEM;
  if ((err = expand_workloads(sw)) < 0)
    return err;
  acs_diag_init(&d);
  d.warn = sw->a.c.quiet ? NULL : acs_cli_warn;
  if (!(sw->wls = calloc(sw->npaths ? sw->npaths : 1, sizeof(*sw->wls))))
    return ACS_ENOMEM;
  for (size_t i = 0; i < sw->npaths; i++) {
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
    if (all[i]->searches && !(sw->a.c.time_limit > 0)) {
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

  if (sw->a.c.sched)
    err = acs_cli_parse_schedulers("sweep", sw->a.c.sched, &ops, &n);
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
  sw->ops = ops;
  if ((err = acs_job_bind_options("sweep", sw->sel, sw->nsel, sw->a.c.opts.v, sw->a.c.opts.n)) < 0)
    return err;
  for (size_t i = 0; i < n; i++)
    acs_job_options_text(&sw->sel[i], sw->optstext[i], sizeof(sw->optstext[i]));
  return ACS_OK;
}

/* ---- the command ---- */

static void sweep_free(struct sweep *sw)
{
  acs_sweep_free(&sw->s);
  acs_sched_cache_free(sw->cache);
  for (size_t i = 0; sw->wls && i < sw->npaths; i++)
    if (sw->wls[i])
      acs_workload_free(sw->wls[i]);
  free(sw->wls);
  acs_job_free_options(sw->sel, sw->nsel);
  free(sw->sel);
  free(sw->optstext);
  free(sw->ops);
  acs_suite_free(sw->paths, sw->npaths);
  free(sw->base.rows);
  free(sw->plats);
  free(sw->origin);
  acs_strv_free(&sw->a.c.workloads);
  acs_strv_free(&sw->a.c.sets);
  acs_strv_free(&sw->a.c.opts);
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
           sw->nsel, sw->nsel == 1 ? "" : "s", sw->s.n.grid, sw->s.n.grid == 1 ? "" : "s");
  else
    printf("sweep: %zu platform variant%s x %zu scheduler-workload pair%s = %zu run%s",
           sw->nplats, sw->nplats == 1 ? "" : "s", sw->fit.pairs, sw->fit.pairs == 1 ? "" : "s",
           sw->s.n.grid, sw->s.n.grid == 1 ? "" : "s");
  if (sw->a.shard_n > 0)
    printf("; shard %d/%d: %zu", sw->a.shard_k, sw->a.shard_n, sw->s.n.in_shard);
  if (sw->s.n.skipped > 0)
    printf("; %zu already in %s", sw->s.n.skipped, sw->a.c.output);
  if (sw->s.n.stored_errors > 0)
    printf("; %zu error run%s to retry", sw->s.n.stored_errors, sw->s.n.stored_errors == 1 ? "" : "s");
  printf("\n");
  if (sw->fit.skipped > 0)
    printf("sweep: %zu workload%s x %zu scheduler%s make %zu pairs; %zu do not run, their "
           "scheduler does not take the workload's kind\n", sw->npaths,
           sw->npaths == 1 ? "" : "s", sw->nsel, sw->nsel == 1 ? "" : "s",
           sw->fit.pairs + sw->fit.skipped, sw->fit.skipped);
  if (sw->s.n.by_name > 0)
    printf("note: %zu of the runs already in %s were matched by workload name, not content: "
           "they were stored by an older acsim, without workload digests\n", sw->s.n.by_name,
           sw->a.c.output);
  if (sw->a.default_study)
    printf("default study: %s, %s, --vary %s --vary %s --vary %s\n", sw->base.path,
           DEFAULT_SUITE, default_varies[0], default_varies[1], default_varies[2]);
  fflush(stdout);
}

static void print_summary(const struct sweep *sw)
{
  double el = acs_now_seconds() - sw->s.n.t0;

  printf("%s%zu run%s in %.1f s: %zu ok, %zu infeasible, %zu timeout, %zu error; "
         "%zu schedule%s stored\n", acs_cli_interrupted ? "interrupted after " : "",
         sw->s.n.done, sw->s.n.done == 1 ? "" : "s", el, sw->s.n.nstatus[ACS_ST_OK],
         sw->s.n.nstatus[ACS_ST_INFEASIBLE], sw->s.n.nstatus[ACS_ST_TIMEOUT],
         sw->s.n.nstatus[ACS_ST_ERROR], sw->s.n.nstored, sw->s.n.nstored == 1 ? "" : "s");
  if (sw->s.n.retried > 0)
    printf("%zu run%s retried in a fresh worker after %s worker died\n", sw->s.n.retried,
           sw->s.n.retried == 1 ? "" : "s", sw->s.n.retried == 1 ? "its" : "their");
  if (sw->a.c.no_sim)
    printf("not simulated (--no-sim): the simulated columns are NaN\n");
  printf("written to %s%s\n", sw->a.c.output,
         acs_cli_interrupted ? "; run the same command again to resume" : "");
  if (!acs_cli_interrupted) {
    /* The report beside the study (out/study.h5: out/report), where
     * ./quickstart.sh writes it. */
    const char *slash = strrchr(sw->a.c.output, '/');
    int dir = slash ? (int)(slash - sw->a.c.output) + 1 : 0;
    printf("next: acsim report %s -o %.*sreport\n", sw->a.c.output, dir, sw->a.c.output);
  }
}

/* Nothing silently skipped: a scheduler named with -s that takes none of
 * the workloads is an error unless another one runs (fit.c). */
static int check_fit(struct sweep *sw)
{
  return acs_cli_fit_workloads("sweep", sw->ops, sw->nsel, sw->wls, sw->npaths,
                               sw->a.c.sched && strcmp(sw->a.c.sched, "all") != 0, sw->a.c.quiet,
                               &sw->fit);
}

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
static void prepare(const struct sweep *sw, const struct acs_sweep_task *t, struct prepared *pr)
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

/* Runs task t in a worker (acs_sweep_run_fn): as `acsim run` does
 * (cli/job.h), on the graph and problem of its (platform, workload) pair. */
static int run_task(void *ctx, const struct acs_sweep_task *t, struct acs_run_row *row,
                    int64_t *ops, int64_t *edges, struct acs_schedule *s, int *keep)
{
  struct sweep *sw = ctx;
  struct prepared *pr = &sw->pr;
  struct acs_sched_ctx sctx = {sw->a.c.seed, sw->a.c.time_limit, &acs_cli_interrupted, NULL,
                              0};
  int err;

  *keep = 0;
  /* A worker's runs share what schedulers keep (NULL when out of memory:
   * they then keep nothing). */
  if (!sw->cache)
    sw->cache = acs_sched_cache_new();
  sctx.cache = sw->cache;
  sctx.threads = sw->a.jobs > 1 ? 1 : 0; /* the other workers use the CPUs */
  prepare(sw, t, pr);
  if (pr->err < 0) {
    acs_schedule_init(s);
    snprintf(row->scheduler, sizeof(row->scheduler), "%s", sw->sel[t->sel].ops->name);
    snprintf(row->options, sizeof(row->options), "%s", sw->optstext[t->sel]);
    snprintf(row->status, sizeof(row->status), "%s",
             pr->err == ACS_EINFEASIBLE ? "infeasible" : "error");
    snprintf(row->message, sizeof(row->message), "%s", pr->msg);
    return ACS_OK;
  }
  *ops = pr->g.nops;
  *edges = pr->g.nedges;
  row->lower_bound_cycles = (double)pr->bound;
  row->ops = pr->g.nops;
  row->edges = pr->g.nedges;
  err = acs_job_run(&pr->pb, &sw->sel[t->sel], &sctx, !sw->a.c.no_sim, s, row, keep);
  if (err == ACS_EINTERRUPTED)
    return err;
  if (err < 0) {
    snprintf(row->status, sizeof(row->status), "error");
    snprintf(row->message, sizeof(row->message), "%s", acs_strerror(err));
    *keep = 0;
  }
  return ACS_OK;
}

static int setup(struct sweep *sw)
{
  struct acs_sweep_config *c = &sw->s.cfg;
  int err;

  if ((err = select_schedulers(sw)) < 0 || (err = expand_platforms(sw)) < 0 ||
      (err = load_workloads(sw)) < 0 || (err = check_fit(sw)) < 0)
    return err;
  c->plats = sw->plats;
  c->nplats = sw->nplats;
  c->wls = sw->wls;
  c->nwls = sw->npaths;
  c->ops = sw->ops;
  c->opts = sw->optstext;
  c->nsel = sw->nsel;
  c->output = sw->a.c.output;
  c->jobs = sw->a.jobs;
  c->keep = sw->a.keep;
  c->shard_k = sw->a.shard_k;
  c->shard_n = sw->a.shard_n;
  c->quiet = sw->a.c.quiet;
  c->interrupted = &acs_cli_interrupted;
  c->run = run_task;
  c->run_ctx = sw;
  c->worker_exit = acs_sim_shutdown;
  c->error = acs_cli_error;
  sw->pr.plat = sw->pr.wl = -1;
  return acs_sweep_plan(&sw->s);
}

int acs_cmd_sweep(int argc, char **argv)
{
  struct sweep sw;
  struct acs_diag d;
  char *cmdline = NULL;
  int err, rc = ACS_EXIT_USAGE;

  memset(&sw, 0, sizeof(sw));
  acs_diag_init(&d);
  if (!acs_cli_started(parse_args(argc, argv, &sw.a), &rc))
    goto out;
  signal(SIGPIPE, SIG_IGN);
  /* Every failure of setup but ENOMEM printed its own one-line message. */
  if ((err = setup(&sw)) == ACS_ENOMEM)
    acs_cli_errorf("%s", acs_strerror(err));
  if (acs_cli_setup_stop(err < 0, &rc))
    goto out;
  print_plan(&sw);
  cmdline = acs_cli_join_argv(argc, argv);
  if (acs_sweep_open(&sw.s, cmdline ? cmdline : "acsim sweep", &d) < 0) {
    acs_cli_error(&d);
    goto out;
  }
  err = acs_sweep_run(&sw.s);
  if (err < 0) {
    acs_cli_errorf("sweep stopped: %s; the runs finished so far are kept", acs_strerror(err));
    rc = ACS_EXIT_USAGE; /* the command could not do its work: 2, as in run */
  } else if (!acs_cli_interrupted && sw.s.n.done < sw.s.n.ntasks) {
    /* Only when workers died faster than the engine replaces them:
     * runs that died are failed checks, as a run stored in error is. */
    acs_cli_errorf("sweep stopped: %zu runs not run, workers kept dying (%d replaced); the "
                   "runs finished so far are kept", sw.s.n.ntasks - sw.s.n.done, sw.s.n.respawns);
    err = ACS_EIO;
    rc = ACS_EXIT_FAIL;
  }
  /* Finished runs are kept whatever stopped the loop. */
  if (acs_sweep_commit(&sw.s, &d) < 0) {
    acs_cli_error(&d);
    rc = ACS_EXIT_USAGE;
    goto out;
  }
  print_summary(&sw);
  if (err == ACS_OK)
    rc = acs_cli_interrupted ? ACS_EXIT_INTERRUPTED
         : sw.s.n.nstatus[ACS_ST_ERROR] ? ACS_EXIT_FAIL : ACS_EXIT_OK;
out:
  free(cmdline);
  sweep_free(&sw);
  return rc;
}
