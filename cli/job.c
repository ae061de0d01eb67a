/*
 * job.c - one run: schedule, verify, measure, simulate.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/job.h"
#include "cli/job_memo.h"
#include "core/suggest.h"
#include "core/model/bprog.h"
#include "core/model/loop.h"
#include "core/model/netbound.h"
#include "core/sched/npu/barrier.h"
#include "simulate/sim.h"

/* Names of every option of the given variants, for suggestions (at most
 * max; NULL-padded duplicates are harmless). */
static size_t option_names(const struct acs_sched_ops *const *ops, size_t nops,
                           const char **names, size_t max)
{
  size_t n = 0;

  for (size_t i = 0; i < nops; i++)
    for (const struct acs_opt_desc *o = ops[i]->opts; o && o->name && n < max; o++)
      names[n++] = o->name;
  return n;
}

/*
 * The message for -O KEY=V that no selected scheduler takes: the option of
 * a selected scheduler it most likely misspells, or else the unselected
 * schedulers that have it, so the user knows whether to fix the key or -s.
 */
static int unknown_option(const char *cmd, const struct acs_sched_sel *sel, size_t nsel,
                          const char *kv, const char *key)
{
  const struct acs_sched_ops *selected[64];
  const char *names[512];
  char owners[256] = "";
  size_t nall, n, off = 0;
  const struct acs_sched_ops *const *all = acs_sched_list(&nall);
  const char *guess;

  for (n = 0; n < nsel && n < 64; n++)
    selected[n] = sel[n].ops;
  n = option_names(selected, n, names, 512);
  if ((guess = acs_suggest(key, names, n)))
    return acs_cli_usage(cmd, "-O %s: no selected scheduler has option '%s'; did you mean %s?",
                         kv, key, guess), ACS_EINVAL;
  for (size_t i = 0; i < nall && off < sizeof(owners); i++)
    for (const struct acs_opt_desc *o = all[i]->opts; o && o->name; o++)
      if (strcmp(o->name, key) == 0) {
        off += (size_t)snprintf(owners + off, sizeof(owners) - off, "%s%s", off ? ", " : "",
                                all[i]->name);
        break;
      }
  if (owners[0])
    return acs_cli_usage(cmd, "-O %s: no selected scheduler has option '%s' (%s %s it; "
                         "`acsim list schedulers` shows every option)", kv, key, owners,
                         strchr(owners, ',') ? "have" : "has"), ACS_EINVAL;
  return acs_cli_usage(cmd, "-O %s: no selected scheduler has option '%s' (`acsim list "
                       "schedulers` shows every option)", kv, key), ACS_EINVAL;
}

int acs_job_bind_options(const char *cmd, struct acs_sched_sel *sel, size_t nsel,
                         char *const *kv, size_t nkv)
{
  struct acs_diag d;

  acs_diag_init(&d);
  for (size_t i = 0; i < nsel; i++) {
    sel[i].opts = calloc(1, sel[i].ops->opts_size ? sel[i].ops->opts_size : 1);
    if (!sel[i].opts || acs_sched_opts_defaults(sel[i].ops, sel[i].opts) < 0)
      return ACS_ENOMEM;
  }
  for (size_t k = 0; k < nkv; k++) {
    const char *eq = strchr(kv[k], '=');
    char key[128];
    int taken = 0;
    if (!eq || eq == kv[k] || (size_t)(eq - kv[k]) >= sizeof(key))
      return acs_cli_usage(cmd, "-O '%s': expected key=value", kv[k]), ACS_EINVAL;
    memcpy(key, kv[k], (size_t)(eq - kv[k]));
    key[eq - kv[k]] = '\0';
    for (size_t i = 0; i < nsel; i++) {
      int err = acs_sched_opts_set(sel[i].ops, sel[i].opts, key, eq + 1, &d);
      if (err == ACS_ENOTFOUND)
        continue;
      if (err < 0)
        return acs_cli_usage(cmd, "-O %s (%s): %s", kv[k], sel[i].ops->name, d.msg), ACS_EINVAL;
      taken = 1;
    }
    if (!taken)
      return unknown_option(cmd, sel, nsel, kv[k], key);
  }
  return ACS_OK;
}

void acs_job_free_options(struct acs_sched_sel *sel, size_t nsel)
{
  for (size_t i = 0; sel && i < nsel; i++) {
    free(sel[i].opts);
    sel[i].opts = NULL;
  }
}

/* One option's value as text; 1 when it differs from the default in def. */
static int option_text(const struct acs_opt_desc *o, const void *opts, const void *def,
                       char *buf, size_t size)
{
  const char *p = (const char *)opts + o->offset, *q = (const char *)def + o->offset;
  int64_t iv, idef;
  double dv, ddef;

  if (o->type == ACS_OPT_STR) {
    snprintf(buf, size, "%s", p);
    return strcmp(p, q) != 0;
  }
  if (o->type == ACS_OPT_DOUBLE) {
    memcpy(&dv, p, sizeof(dv));
    memcpy(&ddef, q, sizeof(ddef));
    acs_vary_format_value(dv, buf, size);
    return dv != ddef;
  }
  memcpy(&iv, p, sizeof(iv));
  memcpy(&idef, q, sizeof(idef));
  if (o->type == ACS_OPT_ENUM && o->choices)
    snprintf(buf, size, "%s", o->choices[iv]);
  else
    snprintf(buf, size, "%lld", (long long)iv);
  return iv != idef;
}

void acs_job_options_text(const struct acs_sched_sel *sel, char *buf, size_t size)
{
  size_t off = 0;
  void *def;

  buf[0] = '\0';
  if (!sel->ops->opts || !sel->opts || !(def = calloc(1, sel->ops->opts_size + 1)))
    return;
  if (acs_sched_opts_defaults(sel->ops, def) == ACS_OK)
    for (const struct acs_opt_desc *o = sel->ops->opts; o->name && off < size; o++) {
      char val[128];
      if (option_text(o, sel->opts, def, val, sizeof(val)))
        off += (size_t)snprintf(buf + off, size - off, "%s%s=%s", off ? "," : "", o->name, val);
    }
  free(def);
}

int acs_job_prepare(const struct acs_workload *w, const struct acs_platform *p,
                    struct acs_graph *g, struct acs_problem *pb, int64_t *bound,
                    struct acs_diag *d)
{
  int err;

  if ((err = acs_workload_build(w, p, g, d)) < 0)
    return err;
  if ((err = acs_problem_init(pb, g, p, d)) < 0) {
    acs_graph_destroy(g);
    return err;
  }
  acs_workload_bind(w, pb);
  *bound = acs_bound_best(pb);
  return ACS_OK;
}

/* Messages longer than the fixed-length HDF5 column are cut on purpose. */
static void row_msg(struct acs_run_row *row, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void row_msg(struct acs_run_row *row, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(row->message, sizeof(row->message), fmt, ap);
  va_end(ap);
}

static void row_status(struct acs_run_row *row, const char *status)
{
  snprintf(row->status, sizeof(row->status), "%s", status);
}

/*
 * Schedules and verifies. A scheduler that returns a schedule the verifier
 * rejects makes an error run, never a result. Returns 1 when s is complete
 * and verified, 0 when not, ACS_EINTERRUPTED when the scheduler was
 * interrupted (the run is no result at all).
 */
static int schedule_verified(const struct acs_problem *pb, const struct acs_sched_sel *sel,
                             const struct acs_sched_ctx *ctx, struct acs_schedule *s,
                             struct acs_run_row *row)
{
  struct acs_diag d;
  double t0;
  int err;

  acs_diag_init(&d);
  t0 = acs_now_seconds();
  err = sel->ops->schedule(pb, sel->opts, ctx, s, &d);
  row->sched_seconds = acs_now_seconds() - t0;
  if (err == ACS_EINTERRUPTED)
    return err;
  if (err == ACS_EINFEASIBLE) {
    row_status(row, "infeasible");
    row_msg(row, "%s", d.msg);
    return 0;
  }
  if (err < 0 && err != ACS_ETIMEOUT) {
    row_status(row, "error");
    row_msg(row, "%s: %s", acs_strerror(err), d.msg);
    return 0;
  }
  row_status(row, err == ACS_ETIMEOUT ? "timeout" : "ok");
  /* A timeout says why; an ok run may leave a note (ilp: how optimality
   * was proven). */
  if (err == ACS_ETIMEOUT || d.msg[0])
    row_msg(row, "%s", d.msg);
  acs_diag_init(&d);
  if ((err = acs_schedule_verify(s, &d)) < 0) {
    if (err == ACS_EINTERRUPTED)
      return err;
    row_status(row, "error");
    row_msg(row, "verifier: %s", d.msg);
    return 0;
  }
  return 1;
}

/*
 * schedule_verified, or its outcome for the same problem in this process
 * before (job_memo.h: a sweep over barrier counts schedules each problem
 * once). The run reports the scheduler's time as it was measured then.
 */
static int schedule_remembered(const struct acs_problem *pb, const struct acs_sched_sel *sel,
                               const struct acs_sched_ctx *ctx, struct acs_schedule *s,
                               struct acs_run_row *row)
{
  int err = acs_job_memo_find(pb, sel, ctx, s, row);

  if (err != -1)
    return err;
  err = schedule_verified(pb, sel, ctx, s, row);
  if (err >= 0)
    acs_job_memo_keep(pb, sel, ctx, s, err == 1, row);
  return err;
}

/* A verifier warning (e.g. the barrier antichain bound left unchecked on a
 * large schedule) becomes a note in the run's message. */
static void note_warning(void *ctx, const char *file, int line, int col, const char *msg)
{
  struct acs_run_row *row = ctx;
  size_t len = strlen(row->message);

  (void)file, (void)line, (void)col;
  snprintf(row->message + len, sizeof(row->message) - len, "%s%s", len ? "; " : "", msg);
}

/*
 * The barrier pass (core/sched/npu/barrier.c) after any DAG scheduler
 * when the platform limits barriers: it adds the barrier program and its
 * control edges and may re-time the schedule, which is then verified again.
 * Its time counts as scheduling time. Returns 1 when s is complete and
 * verified (with its program in *bp, for the simulation), 0 when not,
 * ACS_EINTERRUPTED when interrupted.
 */
static int barrier_program(const struct acs_problem *pb, const struct acs_sched_sel *sel,
                           struct acs_schedule *s, const struct acs_sched_ctx *ctx,
                           struct acs_bprog *bp, struct acs_run_row *row)
{
  struct acs_diag d;
  double t0 = acs_now_seconds();
  int err;

  acs_diag_init(&d);
  /* The pass's preparation does not depend on the barrier limits: the
   * runs that share a remembered schedule share it too. */
  err = acs_barrier_pass_prepared(pb, s, acs_job_memo_barrier_prep(pb, sel, ctx), ctx, &d);
  row->sched_seconds += acs_now_seconds() - t0;
  if (err == ACS_EINTERRUPTED)
    return err;
  if (err < 0) {
    row_status(row, err == ACS_EINFEASIBLE ? "infeasible" : "error");
    if (err == ACS_EINFEASIBLE)
      row_msg(row, "%s", d.msg);
    else
      row_msg(row, "barrier pass: %s: %s", acs_strerror(err), d.msg);
    return 0;
  }
  acs_diag_init(&d);
  d.warn = note_warning;
  d.warn_ctx = row;
  if ((err = acs_schedule_verify_keep(s, bp, &d)) < 0) {
    if (err == ACS_EINTERRUPTED)
      return err;
    row_status(row, "error");
    row_msg(row, "verifier (after the barrier pass): %s", d.msg);
    return 0;
  }
  return 1;
}

double acs_job_sim_timeout;

int acs_job_parse_sim_timeout(const char *cmd, const char *text)
{
  char *end;
  double v = strtod(text, &end);

  if (*end || end == text || !(v >= 0) || !isfinite(v))
    return acs_cli_usage(cmd, "--sim-timeout: '%s' is not a number of seconds (0 = no limit)",
                         text), ACS_EINVAL;
  acs_job_sim_timeout = v > 0 ? v : INFINITY;
  return ACS_OK;
}

/*
 * Executes a verified schedule in SimGrid and fills the sim columns. A
 * simulation that fails (a deadlock, a crash of the child) makes the run an
 * error: the plan could not be executed as written.
 */
static int simulate(const struct acs_problem *pb, struct acs_schedule *s,
                    const struct acs_bprog *bp, struct acs_run_row *row)
{
  struct acs_sim_opts opts;
  struct acs_sim_result r;
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  acs_sim_opts_init(&opts);
  opts.interrupted = &acs_cli_interrupted;
  opts.timeout = acs_job_sim_timeout;
  opts.bprog = bp;
  opts.bprog_verified = bp != NULL; /* barrier_program: the verifier accepted it */
  err = acs_sim_run(&pb->plat, s, &opts, &r, &d);
  row->sim_seconds = r.sim_seconds;
  if (err == ACS_EINTERRUPTED)
    return err;
  if (err < 0) {
    row_status(row, "error");
    row_msg(row, "simulation: %s", d.msg[0] ? d.msg : acs_strerror(err));
    return ACS_OK;
  }
  row->sim_makespan_cycles = r.makespan_cycles;
  if (acs_problem_loop(pb))
    row->cycles_per_iter = acs_loop_cycles_per_iter(acs_problem_loop(pb), &pb->plat, s, 1);
  row->pe_utilization = r.pe_utilization;
  row->dma_utilization = r.dma_utilization;
  row->ddr_bytes = r.ddr_bytes;
  return ACS_OK;
}

/*
 * The lower bound the scheduler proved for this problem: the one it reports
 * with the schedule (s->lower_bound: ilp and strip prove bounds while they
 * search) and, for a variant whose `ok` means proven optimal, its plan's
 * makespan. Taken before the barrier pass, which only adds constraints, so
 * the bound still holds for the final schedule (a pass that delays the plan
 * then shows as a gap). The caller keeps the larger of this and
 * acs_bound_best().
 */
static int64_t scheduler_bound(const struct acs_sched_sel *sel, const struct acs_schedule *s,
                               const struct acs_run_row *row)
{
  int64_t b = s->lower_bound > 0 ? s->lower_bound : 0;

  if (sel->ops->proves && strcmp(row->status, "ok") == 0 && s->makespan > b)
    b = s->makespan;
  return b;
}

/* The II and MII of a modulo schedule, from its `modulo` table. */
static void loop_figures(const struct acs_schedule *s, struct acs_run_row *row)
{
  const struct acs_rtab *t = acs_schedule_find_rtab(s, "modulo");
  const struct acs_rtab_attr *a;

  if (!t)
    return;
  if ((a = acs_rtab_attr_find(t, "ii")) && a->type == ACS_RTAB_I64)
    row->ii = (double)a->v.i;
  if ((a = acs_rtab_attr_find(t, "mii")) && a->type == ACS_RTAB_I64)
    row->mii = (double)a->v.i;
}

/* The network bound of a workload with a layer graph (every DNN, whatever
 * the family: core/model/netbound.h). */
static void network_bound(const struct acs_problem *pb, struct acs_run_row *row)
{
  const struct acs_lgraph *lg = acs_problem_lgraph(pb);
  struct acs_netbound nb;

  if (lg && acs_netbound_compute(lg, &pb->plat, &nb) == ACS_OK)
    row->network_bound_cycles = (double)nb.cycles;
}

int acs_job_run(const struct acs_problem *pb, const struct acs_sched_sel *sel,
                const struct acs_sched_ctx *ctx, int sim, struct acs_schedule *s,
                struct acs_run_row *row, int *keep)
{
  struct acs_schedule_stats st;
  struct acs_bprog bp;
  int64_t proven;
  int err;

  *keep = 0;
  memset(&bp, 0, sizeof(bp));
  network_bound(pb, row);
  if (sel->ops->own_ops)
    row->lower_bound_cycles = NAN; /* the graph's bounds do not bound its own ops */
  snprintf(row->scheduler, sizeof(row->scheduler), "%s", sel->ops->name);
  snprintf(row->memory_model, sizeof(row->memory_model), "%s",
           acs_mem_model_name(sel->ops->memory_model));
  acs_job_options_text(sel, row->options, sizeof(row->options));
  if ((err = acs_schedule_init_problem(s, pb)) < 0) {
    row_status(row, "error");
    row_msg(row, "%s", acs_strerror(err));
    return err == ACS_ENOMEM ? err : ACS_OK;
  }
  if ((err = schedule_remembered(pb, sel, ctx, s, row)) <= 0)
    return err;
  proven = scheduler_bound(sel, s, row);
  if (s->barriers > 0 && (err = barrier_program(pb, sel, s, ctx, &bp, row)) <= 0)
    return err;
  acs_schedule_stats(s, &st);
  row->makespan_cycles = (double)st.makespan;
  if (sel->ops->own_ops)
    row->lower_bound_cycles = proven > 0 ? (double)proven : NAN;
  else if ((double)proven > row->lower_bound_cycles || isnan(row->lower_bound_cycles))
    row->lower_bound_cycles = (double)proven;
  loop_figures(s, row);
  row->peak_cmx_bytes = st.peak_cmx_bytes;
  row->spill_bytes = st.spill_bytes;
  row->ddr_bytes = st.ddr_bytes;
  row->barriers_used = st.barriers_used;
  row->control_edges = st.control_edges;
  *keep = 1;
  /* The program the verifier built, for the simulation (none without a
   * barrier limit: it finds none). */
  err = sim ? simulate(pb, s, s->barriers > 0 ? &bp : NULL, row) : ACS_OK;
  acs_bprog_destroy(&bp);
  return err < 0 ? err : ACS_OK;
}

void acs_job_row_init(struct acs_run_row *row, int32_t pid, int32_t wid, int64_t bound,
                      const struct acs_graph *g)
{
  acs_run_row_init(row);
  row->platform_id = pid;
  row->workload_id = wid;
  row->lower_bound_cycles = (double)bound;
  row->ops = g->nops;
  row->edges = g->nedges;
}

int acs_job_open_results(const char *cmd, const char *path, int argc, char **argv,
                         struct acs_results **res)
{
  char *cmdline = acs_cli_join_argv(argc, argv), dflt[64];
  struct acs_diag d;
  int err;

  snprintf(dflt, sizeof(dflt), "acsim %s", cmd);
  acs_diag_init(&d);
  *res = NULL;
  if ((err = acs_results_open(path, cmdline ? cmdline : dflt, res, &d)) < 0)
    acs_cli_error(&d);
  free(cmdline);
  return err;
}

int acs_job_commit_results(struct acs_results **res)
{
  struct acs_results *r = *res;
  struct acs_diag d;
  int err;

  *res = NULL;
  acs_diag_init(&d);
  if ((err = acs_results_commit(r, &d)) < 0)
    acs_cli_error(&d);
  return err;
}

int acs_job_select(const char *cmd, const char *spec, struct acs_sched_sel **sel, size_t *nsel,
                   const struct acs_sched_ops ***ops)
{
  const struct acs_sched_ops **o;
  size_t n;
  int err;

  if ((err = acs_cli_parse_schedulers(cmd, spec, &o, &n)) < 0)
    return err;
  if (!(*sel = calloc(n + 1, sizeof(**sel)))) {
    free(o);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < n; i++)
    (*sel)[i].ops = o[i];
  *nsel = n;
  if (ops)
    *ops = o;
  else
    free(o);
  return ACS_OK;
}

int acs_job_run_pair(const struct acs_job_pair *pair, const struct acs_sched_sel *sel,
                     size_t nsel, const struct acs_sched_ctx *ctx, int simulate,
                     acs_job_run_fn on_run, void *arg)
{
  int err = ACS_OK;

  for (size_t k = 0; err == ACS_OK && k < nsel && !acs_cli_interrupted; k++) {
    struct acs_schedule s;
    struct acs_run_row row;
    int keep;
    if (!acs_sched_accepts(sel[k].ops, pair->kind))
      continue;
    acs_job_row_init(&row, pair->pid, pair->wid, pair->bound, pair->g);
    if ((err = acs_job_run(pair->pb, &sel[k], ctx, simulate, &s, &row, &keep)) == ACS_OK)
      err = on_run(arg, k, &s, &row, keep);
    /* Safe whatever acs_job_run reached: a failed init leaves s zeroed. */
    acs_schedule_destroy(&s);
  }
  return err < 0 ? err : ACS_OK;
}
