/*
 * cmd_run.c - `acsim run`: every selected scheduler over every workload on
 * every platform row; verified schedules stored in HDF5 with a summary table.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/job.h"
#include "simulate/sim.h"

static const char run_help[] =
  "usage: acsim run [-p PLATFORM.csv] -w WORKLOAD [-w ...] [-s SCHED,...|all]\n"
  "                 [-O opt=v]... [--set k=v]... [-o out.h5] [--no-sim]\n"
  "                 [--trace out.json] [--time-limit SEC] [--time-step N]\n"
  "                 [--sim-timeout SEC] [--seed N] [--max K=N]... [-q] [-h]\n"
  "\n"
  "Schedules each workload with each selected scheduler on each row of the\n"
  "platform file, checks every schedule with the verifier, executes it in\n"
  "SimGrid (one forked process per run) to measure what contention on the\n"
  "DDR link does to it, prints a summary table and, with -o, appends the runs\n"
  "and their schedules to an HDF5 file.\n"
  "\n"
  "  -p, --platform FILE   platform CSV (default platforms/default.csv)\n"
  "                        every row runs\n"
  "  -w, --workload FILE   a workload or a suite (.txt); repeatable\n"
  ACS_CLI_WORKLOAD_FORMATS
  "  -s, --sched LIST      comma-separated schedulers, or all\n"
  "                        default: all; `acsim list schedulers` shows them\n"
  "  -O, --option K=V      scheduler option for every selected scheduler that has it\n"
  "      --set K=V         override a platform parameter on every row\n"
  "  -o, --output FILE     results file (HDF5, schema 1); appended to when it exists\n"
  "      --no-sim          do not simulate (the simulated columns stay NaN)\n"
  "      --trace FILE      write the simulated runs as Chrome Trace Event JSON\n"
  "                        (Perfetto, chrome://tracing): one process per run\n"
  ACS_CLI_HELP_TIME_LIMIT
  ACS_CLI_HELP_TIME_STEP
  ACS_CLI_HELP_SIM_TIMEOUT
  ACS_CLI_HELP_SEED_MAX_QUIET
  "\n"
  "Barriers: when the platform sets barriers > 0 (e.g. --set barriers=8, and\n"
  "barrier_slots, 0 = unlimited), every schedule gets a barrier program (an\n"
  "update barrier per op, wait lists, and the control edges it needs; it may\n"
  "be re-timed) after its scheduler and is verified again, at any size: the\n"
  "program must keep the hardware rule in every execution, and at most\n"
  "`barriers` uses may be live at once (Dilworth's theorem). Limits no program\n"
  "can meet make the run infeasible, with the reason in its message.\n"
  "\n"
  "Status per run: ok, infeasible (no schedule exists on this platform, e.g. an\n"
  "op needs more CMX than there is), timeout, error (a scheduler or verifier\n"
  "failure). Exit 0; 1 when a run ended in error; 2 on a bad option, a bad or\n"
  "missing input, or an output it cannot write; 130 when interrupted.\n";

struct run_args {
  struct acs_cli_args c;       /* -p -w -s -O --set -o --no-sim ... */
  const char *trace;
};

enum { OPT_TRACE = 'J' };

static int own_opt(void *ctx, int c, const char *arg)
{
  struct run_args *a = ctx;

  if (c != OPT_TRACE)
    return ACS_CLI_NOT_MINE;
  a->trace = arg;
  return ACS_OK;
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
  static const struct option own[] = {{"trace", required_argument, NULL, OPT_TRACE},
                                      {NULL, 0, NULL, 0}};
  static const struct acs_cli_spec spec = {
    .common = "pwsOSoNTRqhPML", .own = own, .sched = "all", .help = run_help,
    .own_opt = own_opt};
  int err;

  memset(a, 0, sizeof(*a));
  if ((err = acs_cli_parse("run", argc, argv, &spec, &a->c, a)) != ACS_OK)
    return err;
  if (optind < argc)
    return acs_cli_usage("run", "unexpected argument '%s'", argv[optind]), ACS_EINVAL;
  if (a->c.workloads.n == 0)
    return acs_cli_usage("run", "no workload: give -w FILE (or a suite .txt)"), ACS_EINVAL;
  if (a->trace && a->c.no_sim)
    return acs_cli_usage("run", "--trace shows the simulated runs; it cannot go with --no-sim"), ACS_EINVAL;
  return ACS_OK;
}

static void print_header(void)
{
  printf("%-14s %-18s %-11s %-10s %12s %12s %7s %12s %7s %10s %9s\n", "platform",
         "workload", "scheduler", "status", "makespan", "simulated", "slow%", "bound", "gap%",
         "peak_cmx", "sched_s");
  /* Rows are flushed as runs finish; the header goes first, also into a pipe. */
  fflush(stdout);
}

/* 100 * diff / base for a "%.1f" column: a value that rounds to zero is
 * 0 (a simulation a fraction of a cycle early would print "-0.0"). */
static double pct_shown(double diff, double base)
{
  double v = 100.0 * diff / base;

  return fabs(v) < 0.05 ? 0.0 : v;
}

static void print_row(const char *plat, const char *wl, const struct acs_run_row *r)
{
  char mk[32], sim[32], slow[16], bytes[32], gap[16];

  if (isnan(r->makespan_cycles))
    snprintf(mk, sizeof(mk), "-");
  else
    snprintf(mk, sizeof(mk), "%.0f", r->makespan_cycles);
  if (isnan(r->sim_makespan_cycles)) {
    snprintf(sim, sizeof(sim), "-");
    snprintf(slow, sizeof(slow), "-");
  } else {
    snprintf(sim, sizeof(sim), "%.0f", r->sim_makespan_cycles);
    if (r->makespan_cycles > 0)
      snprintf(slow, sizeof(slow), "%.1f",
               pct_shown(r->sim_makespan_cycles - r->makespan_cycles, r->makespan_cycles));
    else
      snprintf(slow, sizeof(slow), "-");
  }
  /* A network is compared with its network bound, the same for every
   * family; other workloads with their own graph's bound. */
  double bound = isnan(r->network_bound_cycles) ? r->lower_bound_cycles : r->network_bound_cycles;
  if (!isnan(r->makespan_cycles) && bound > 0)
    snprintf(gap, sizeof(gap), "%.1f", pct_shown(r->makespan_cycles - bound, bound));
  else
    snprintf(gap, sizeof(gap), "-");
  printf("%-14.14s %-18.18s %-11.11s %-10s %12s %12s %7s %12.0f %7s %10s %9.4f\n", plat, wl,
         r->scheduler, r->status, mk, sim, slow, bound, gap,
         acs_cli_bytes(r->peak_cmx_bytes, bytes, sizeof(bytes)), r->sched_seconds);
  if (r->message[0])
    printf("    %s: %s\n", r->status, r->message);
  /* Loop workloads: the interval a modulo schedule promises beside what the
   * simulation achieved per iteration, for modulo and DAG schedulers alike. */
  if (!isnan(r->ii) || !isnan(r->cycles_per_iter)) {
    char ii[64] = "", cpi[64] = "cycles/iteration not simulated";
    if (!isnan(r->ii))
      snprintf(ii, sizeof(ii), "II %.0f (MII %.0f), ", r->ii, r->mii);
    if (!isnan(r->cycles_per_iter))
      snprintf(cpi, sizeof(cpi), "%.2f cycles/iteration (simulated makespan / iterations)",
               r->cycles_per_iter);
    printf("    loop: %s%s\n", ii, cpi);
  }
  fflush(stdout);
}

struct run_state {
  struct run_args args;
  struct acs_sim_trace *trace;
  struct acs_cli_platforms plats;
  char **paths;
  size_t npaths;
  struct acs_workload **wls;
  struct acs_sched_sel *sel;
  size_t nsel;
  struct acs_results *res;
  int nerror, nruns;
  int reported; /* an error message was already printed */
};

static int load_workloads(struct run_state *st)
{
  struct acs_diag d;

  acs_diag_init(&d);
  d.warn = st->args.c.quiet ? NULL : acs_cli_warn;
  st->wls = calloc(st->npaths ? st->npaths : 1, sizeof(*st->wls));
  if (!st->wls)
    return ACS_ENOMEM;
  for (size_t i = 0; i < st->npaths; i++) {
    int err = acs_workload_load(st->paths[i], &st->wls[i], &d);
    if (err < 0) {
      if (err != ACS_EINTERRUPTED) /* Ctrl-C: exit 130, nothing to report */
        acs_cli_error(&d);
      return err;
    }
  }
  return ACS_OK;
}

/* Adds a simulated run to the trace as a process of its own. */
static int add_trace(struct run_state *st, const struct acs_platform *p, const char *wl,
                     const struct acs_schedule *s, const struct acs_run_row *row)
{
  char pname[512];

  snprintf(pname, sizeof(pname), "%s on %s: %s", row->scheduler, p->name, wl);
  return acs_sim_trace_add(st->trace, pname, p, s, ACS_SIM_TIMES_SIMULATED);
}

/* Where the runs of one pair go: the trace, the table printed and the
 * results file. */
struct pair_out {
  struct run_state *st;
  const struct acs_platform *p;
  const struct acs_workload *w;
};

static int on_run(void *arg, size_t k, const struct acs_schedule *s, struct acs_run_row *row,
                  int keep)
{
  struct pair_out *o = arg;
  struct run_state *st = o->st;
  int err;

  (void)k;
  if (keep && st->trace && !isnan(row->sim_makespan_cycles) &&
      (err = add_trace(st, o->p, o->w->name, s, row)) < 0)
    return err;
  st->nruns++;
  if (strcmp(row->status, "error") == 0)
    st->nerror++;
  print_row(o->p->name, o->w->name, row);
  /* The family's own result (II, plans, schedule vectors) when it
   * marks a table as shown. */
  for (int32_t t = 0; keep && t < s->ntables; t++)
    if (s->tables[t]->show)
      acs_cli_print_rtab(stdout, s->tables[t], "    ");
  return st->res ? acs_results_add_run(st->res, row, keep ? s : NULL) : ACS_OK;
}

/* All schedulers on one (platform, workload) pair. */
static int run_pair(struct run_state *st, const struct acs_platform *p, int32_t pid,
                    const struct acs_workload *w)
{
  struct acs_sched_ctx ctx = {st->args.c.seed, st->args.c.time_limit, &acs_cli_interrupted, NULL,
                             0};
  struct pair_out out = {st, p, w};
  struct acs_workload_row wrow;
  struct acs_problem pb;
  struct acs_graph g;
  struct acs_diag d;
  struct acs_job_pair pair = {&pb, &g, w->kind, pid, -1, 0};
  int err;

  acs_diag_init(&d);
  d.warn = NULL; /* build warnings were already shown at load time */
  if ((err = acs_job_prepare(w, p, &g, &pb, &pair.bound, &d)) < 0) {
    acs_cli_error(&d);
    st->reported = 1;
    return err;
  }
  if (st->res) {
    acs_results_workload_row(w, g.nops, g.nedges, &wrow);
    if ((err = acs_results_add_workload(st->res, &wrow, &pair.wid)) < 0)
      goto out_with_problem;
  }
  err = acs_job_run_pair(&pair, st->sel, st->nsel, &ctx, !st->args.c.no_sim, on_run, &out);
out_with_problem:
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  return err;
}

/*
 * Bad input is found before any run: every (platform, workload) pair is
 * built and bound once up front (linear in the ops, per platform row), so
 * a workload that one row cannot take (an op longer than 2^53 cycles on a
 * slow link) is one message and exit 2, not an error after hours of runs.
 */
static int check_pairs(struct run_state *st)
{
  for (size_t i = 0; i < st->plats.n && !acs_cli_interrupted; i++)
    for (size_t j = 0; j < st->npaths && !acs_cli_interrupted; j++) {
      struct acs_problem pb;
      struct acs_graph g;
      struct acs_diag d;
      int64_t bound;
      int err;
      acs_diag_init(&d);
      if ((err = acs_job_prepare(st->wls[j], &st->plats.rows[i], &g, &pb, &bound, &d)) < 0) {
        if (err != ACS_EINTERRUPTED)
          acs_cli_error(&d);
        return err;
      }
      acs_problem_destroy(&pb);
      acs_graph_destroy(&g);
    }
  return ACS_OK;
}

static void state_free(struct run_state *st)
{
  if (st->res)
    acs_results_abort(st->res);
  if (st->trace)
    acs_sim_trace_abort(st->trace);
  for (size_t i = 0; st->wls && i < st->npaths; i++)
    if (st->wls[i])
      acs_workload_free(st->wls[i]);
  free(st->wls);
  acs_job_free_options(st->sel, st->nsel);
  free(st->sel);
  acs_suite_free(st->paths, st->npaths);
  free(st->plats.rows);
  acs_strv_free(&st->args.c.workloads);
  acs_strv_free(&st->args.c.sets);
  acs_strv_free(&st->args.c.opts);
}

static int select_schedulers(struct run_state *st)
{
  int err = acs_job_select("run", st->args.c.sched, &st->sel, &st->nsel, NULL);

  return err < 0 ? err
                 : acs_job_bind_options("run", st->sel, st->nsel, st->args.c.opts.v,
                                        st->args.c.opts.n);
}

/* Nothing silently skipped: a scheduler named with -s that takes none of
 * the workloads is an error unless another one runs (fit.c). */
static int check_fit(struct run_state *st)
{
  const struct acs_sched_ops **ops = calloc(st->nsel ? st->nsel : 1, sizeof(*ops));
  struct acs_cli_fit fit;
  int err;

  if (!ops)
    return ACS_ENOMEM;
  for (size_t k = 0; k < st->nsel; k++)
    ops[k] = st->sel[k].ops;
  err = acs_cli_fit_workloads("run", ops, st->nsel, st->wls, st->npaths,
                          strcmp(st->args.c.sched, "all") != 0, st->args.c.quiet, &fit);
  free(ops);
  return err;
}

static int run_all(struct run_state *st)
{
  struct acs_diag d;
  int err = ACS_OK;

  acs_diag_init(&d);
  print_header();
  for (size_t i = 0; i < st->plats.n && !acs_cli_interrupted; i++) {
    int32_t pid = -1;
    if (st->res && (err = acs_results_add_platform(st->res, &st->plats.rows[i], &pid)) < 0)
      return err;
    for (size_t j = 0; j < st->npaths && !acs_cli_interrupted; j++)
      if ((err = run_pair(st, &st->plats.rows[i], pid, st->wls[j])) < 0)
        return err;
  }
  return err;
}

int acs_cmd_run(int argc, char **argv)
{
  struct run_state st;
  struct acs_diag d;
  int err, failed, rc = ACS_EXIT_USAGE;

  memset(&st, 0, sizeof(st));
  acs_diag_init(&d);
  if (!acs_cli_started(parse_args(argc, argv, &st.args), &rc))
    goto out;
  failed = select_schedulers(&st) < 0 ||
      acs_cli_load_platforms(st.args.c.platform, st.args.c.sets.v, st.args.c.sets.n, &st.plats) < 0 ||
      acs_cli_expand_workloads(st.args.c.workloads.v, st.args.c.workloads.n, &st.paths, &st.npaths) < 0 ||
      load_workloads(&st) < 0 || check_fit(&st) < 0 || check_pairs(&st) < 0;
  if (acs_cli_setup_stop(failed, &rc))
    goto out;
  if (st.args.c.output) {
    if (acs_job_open_results("run", st.args.c.output, argc, argv, &st.res) < 0)
      goto out;
  }
  if (st.args.trace && acs_sim_trace_open(st.args.trace, &st.trace, &d) < 0) {
    acs_cli_error(&d);
    goto out;
  }
  err = run_all(&st);
  if (err < 0 && err != ACS_EINTERRUPTED) {
    if (!st.reported)
      acs_cli_errorf("%s", acs_strerror(err));
    goto out;
  }
  /* Runs finished before an interrupt are kept: commit them. */
  if (st.res && acs_job_commit_results(&st.res) < 0)
    goto out;
  if (st.trace) {
    struct acs_sim_trace *t = st.trace;
    st.trace = NULL;
    if (acs_sim_trace_close(t, &d) < 0) {
      acs_cli_error(&d);
      goto out;
    }
    printf("trace written to %s (open it in https://ui.perfetto.dev or chrome://tracing)\n",
           st.args.trace);
  }
  if (st.args.c.no_sim)
    printf("not simulated (--no-sim): the simulated columns are NaN\n");
  if (st.args.c.output)
    printf("%d run%s written to %s\n", st.nruns, st.nruns == 1 ? "" : "s", st.args.c.output);
  rc = acs_cli_interrupted ? ACS_EXIT_INTERRUPTED : st.nerror ? ACS_EXIT_FAIL : ACS_EXIT_OK;
out:
  state_free(&st);
  return rc;
}
