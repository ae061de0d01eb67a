/*
 * affine.c - the `affine` scheduler variant (seed 003): Feautrier's
 * one-dimensional affine schedule of a system of recurrence equations,
 * checked by enumeration, lowered onto the platform's PEs.
 *
 * One run: the Farkas program (farkas.c), its exact lexicographic minimum
 * (solve.c), the family's own checker on the run's instances (check.c),
 * the lowering (lower.c), and the result table "affine": one row per
 * variable with its schedule vector in isl notation, the latency function
 * as an attribute. A system with no one-dimensional schedule is an
 * infeasible run whose message names the dependence cycle to blame.
 */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/sched/affine/affine.h"
#include "core/sched/common.h"

struct affine_opts {
  int64_t fold;            /* enum acs_affine_fold */
  int64_t inputs;          /* 0 preloaded, 1 scheduled */
  int64_t isl;             /* 1: compare with isl's Feautrier scheduler */
  int64_t dims;            /* most rows of a multidimensional schedule; 1: none */
};

/* What one run found, for the table. */
struct run {
  const struct acs_sare *m;
  struct acs_affine_lp lp;
  struct acs_affine_sched s;
  struct acs_sare_inst in;
  struct acs_affine_check chk;
  struct acs_affine_lowered low;
  struct acs_affine_msched ms;   /* when there is no one-dimensional schedule */
  int multi;
  char why[1024];                /* why no one-dimensional schedule */
  double solve_ms;
  int64_t latency;
  int64_t isl_latency;     /* -1: not run or no 1-D schedule */
  char isl_note[1200];
};

/*
 * The one-dimensional schedule; when there is none, the explanation and,
 * with -O dims >= 2, a multidimensional schedule (R->multi).
 */
static int solve(struct run *R, const struct affine_opts *o, const struct acs_sched_ctx *ctx,
                 struct acs_diag *d)
{
  struct acs_affine_lp_sel sel = {NULL, NULL, 1, o->inputs == 1};
  const volatile sig_atomic_t *stop = ctx ? ctx->interrupted : NULL;
  double t0 = acs_now_seconds();
  int err;

  if ((err = acs_affine_lp_build(R->m, &sel, &R->lp, d)) < 0)
    return err;
  err = acs_affine_solve(R->m->ctx, &R->lp, stop, &R->s, d);
  if (err == ACS_EINFEASIBLE) {
    int rc = acs_affine_explain_infeasible(R->m->ctx, R->m, R->why, sizeof(R->why));
    if (rc < 0)
      return rc;
    err = acs_diag_set(d, ACS_EINFEASIBLE, R->m->path, 0, 0, "%s", R->why);
    if (o->dims >= 2) {
      char msg[sizeof(d->msg) + sizeof(R->why) + 8];
      struct acs_diag md;
      acs_diag_init(&md);
      err = acs_affine_solve_multi(R->m->ctx, R->m, (int32_t)o->dims, stop, &R->ms, &md);
      R->multi = err == ACS_OK;
      if (err == ACS_EINFEASIBLE) {
        snprintf(msg, sizeof(msg), "%s; %s", R->why, md.msg);
        err = acs_diag_set(d, ACS_EINFEASIBLE, R->m->path, 0, 0, "%s", msg);
      } else if (err < 0) {
        acs_diag_set(d, err, md.file[0] ? md.file : NULL, md.line, md.col, "%s", md.msg);
      }
    }
  }
  R->solve_ms = (acs_now_seconds() - t0) * 1e3;
  return err;
}

/* isl's Feautrier scheduler on the same system: its latency at the run's
 * parameter values, or why there is none. */
static void isl_opinion(struct run *R)
{
  struct acs_diag d;

  acs_diag_init(&d);
  if (acs_affine_isl_latency(R->m, R->in.value, &R->isl_latency, &d) < 0)
    snprintf(R->isl_note, sizeof(R->isl_note), "%s", d.msg);
}

/* ---- the result table ---- */

static const struct acs_rtab_col cols[] = {
  {"variable", ACS_RTAB_STR, NULL},  {"kind", ACS_RTAB_STR, NULL},
  {"delay", ACS_RTAB_I64, "cycles"}, {"tau", ACS_RTAB_STR, NULL},
  {"alpha", ACS_RTAB_STR, NULL},     {"instances", ACS_RTAB_I64, NULL},
  {"projection", ACS_RTAB_STR, NULL}, {"pes", ACS_RTAB_I64, NULL},
};
enum { C_VAR, C_KIND, C_DELAY, C_TAU, C_ALPHA, C_INST, C_PROJ, C_PES, C__N };

static void projection_text(const struct run *R, int32_t v, char *buf, size_t size)
{
  const int64_t *u = R->low.var[v].u;
  int32_t nx = R->m->vars[v].ndims;
  size_t used = 0;
  int any = 0;

  for (int32_t j = 0; j < nx; j++)
    any |= u[j] != 0;
  if (!acs_sare_computed(R->m, v)) {
    snprintf(buf, size, "preloaded");
    return;
  }
  if (!any) {
    snprintf(buf, size, "none");
    return;
  }
  used += (size_t)snprintf(buf, size, "(");
  for (int32_t j = 0; j < nx && used < size; j++)
    used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, j ? "," : "", u[j]);
  if (used < size)
    snprintf(buf + used, size - used, ")");
}

/* alpha, or the alphas of every row ("0, 1"). */
static void alpha_text(const struct run *R, int32_t v, char *buf, size_t size)
{
  const struct acs_sare *m = R->m;
  int32_t n = R->multi ? R->ms.ndims : 1;
  size_t used = 0;

  buf[0] = '\0';
  for (int32_t k = 0; k < n && used < size; k++) {
    const struct acs_affine_sched *s = R->multi ? &R->ms.row[k] : &R->s;
    used += (size_t)snprintf(buf + used, size - used, "%s%" PRId64, k ? ", " : "",
                             s->off[v] < 0 ? 0 : s->coef[s->off[v] + m->nparams + m->vars[v].ndims]);
  }
}

static int table_row(struct acs_rtab *t, const struct run *R, int32_t v)
{
  const struct acs_sare *m = R->m;
  char buf[512];
  int64_t row = acs_rtab_add_row(t);
  int err;

  if (row < 0)
    return (int)row;
  if (R->multi)
    acs_affine_text_multi(&R->ms, m, v, 0, buf, sizeof(buf));
  else
    acs_affine_text_var(&R->s, m, v, 0, buf, sizeof(buf));
  if ((err = acs_rtab_set_str(t, row, C_VAR, m->vars[v].name)) < 0 ||
      (err = acs_rtab_set_str(t, row, C_KIND, acs_sare_kind_name(m->vars[v].kind))) < 0 ||
      (err = acs_rtab_set_i64(t, row, C_DELAY, m->vars[v].delay)) < 0 ||
      (err = acs_rtab_set_str(t, row, C_TAU, buf)) < 0)
    return err;
  alpha_text(R, v, buf, sizeof(buf));
  if ((err = acs_rtab_set_str(t, row, C_ALPHA, buf)) < 0 ||
      (err = acs_rtab_set_i64(t, row, C_INST, R->in.var[v].count)) < 0)
    return err;
  projection_text(R, v, buf, sizeof(buf));
  if ((err = acs_rtab_set_str(t, row, C_PROJ, buf)) < 0)
    return err;
  return acs_rtab_set_i64(t, row, C_PES, acs_sare_computed(m, v) ? R->low.var[v].vpes : 0);
}

static int table_attrs(struct acs_rtab *t, const struct run *R)
{
  const struct acs_sare *m = R->m;
  char buf[512];
  size_t used = 0;
  int err;

  if (R->multi)
    snprintf(buf, sizeof(buf), "none: no one-dimensional schedule");
  else
    acs_affine_text_latency(&R->s, m, buf, sizeof(buf));
  if ((err = acs_rtab_attr_str(t, "latency", buf)) < 0 ||
      (err = acs_rtab_attr_i64(t, "latency_cycles", R->latency)) < 0 ||
      (err = acs_rtab_attr_i64(t, "dims", R->multi ? R->ms.ndims : 1)) < 0)
    return err;
  buf[0] = '\0';
  for (int32_t p = 0; p < m->nparams && used < sizeof(buf); p++)
    used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s=%" PRId64, p ? "," : "",
                             m->param[p], R->in.value[p]);
  if ((err = acs_rtab_attr_str(t, "params", buf)) < 0 ||
      (err = acs_rtab_attr_i64(t, "lowered_makespan", R->low.makespan)) < 0 ||
      (err = acs_rtab_attr_i64(t, "virtual_pes", R->low.virtual_pes)) < 0 ||
      (err = acs_rtab_attr_i64(t, "pe_count", R->low.pe_count)) < 0 ||
      (err = acs_rtab_attr_i64(t, "transfers", R->low.transfers)) < 0 ||
      (err = acs_rtab_attr_i64(t, "transfer_bytes", R->low.transfer_bytes)) < 0 ||
      (err = acs_rtab_attr_i64(t, "lp_columns", R->lp.ncols)) < 0 ||
      (err = acs_rtab_attr_i64(t, "lp_rows", R->lp.nrows)) < 0 ||
      (err = acs_rtab_attr_f64(t, "solve_ms", R->solve_ms)) < 0)
    return err;
  if (R->isl_latency >= 0 || R->isl_note[0]) {
    if ((err = acs_rtab_attr_i64(t, "isl_latency_cycles", R->isl_latency)) < 0)
      return err;
    if (R->isl_note[0] && (err = acs_rtab_attr_str(t, "isl_note", R->isl_note)) < 0)
      return err;
  }
  return ACS_OK;
}

static int result_table(struct acs_schedule *out, const struct run *R)
{
  struct acs_rtab *t;
  int err = acs_schedule_add_rtab(out, "affine", cols, C__N, &t);

  if (err < 0)
    return err;
  t->show = 1;
  for (int32_t v = 0; v < R->m->nvars && err == ACS_OK; v++)
    err = table_row(t, R, v);
  return err == ACS_OK ? table_attrs(t, R) : err;
}

/* ---- the variant ---- */

/* The message of an ok run: the latency, or why there is none. */
static void run_note(const struct run *R, struct acs_diag *d)
{
  char lat[256];

  if (R->multi) {
    /* "the cycle S -> S" out of the explanation */
    const char *c = strstr(R->why, "the cycle "), *e = c ? strstr(c, " cannot") : NULL;
    acs_diag_set(d, ACS_OK, NULL, 0, 0, "no one-dimensional schedule (%.*s); %d-dimensional "
                 "schedule on %" PRId64 " virtual PEs%s", e ? (int)(e - c) : 4,
                 e ? c : "none", (int)R->ms.ndims, R->low.virtual_pes,
                 R->low.folded ? ", folded" : "");
    return;
  }
  acs_affine_text_latency(&R->s, R->m, lat, sizeof(lat));
  acs_diag_set(d, ACS_OK, NULL, 0, 0, "latency %s = %" PRId64 " cycles on %" PRId64
               " virtual PEs%s", lat, R->latency, R->low.virtual_pes,
               R->low.folded ? " (folded)" : "");
}

static void run_free(struct run *R)
{
  acs_affine_lp_free(&R->lp);
  acs_affine_sched_free(&R->s);
  acs_affine_msched_free(&R->ms);
  acs_sare_inst_free(&R->in);
  acs_affine_lowered_free(&R->low);
}

static int affine_schedule(const struct acs_problem *pb, const void *opts,
                           const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                           struct acs_diag *d)
{
  const struct affine_opts *o = opts;
  const struct acs_sare *m = acs_problem_sare(pb);
  struct run R;
  int err;

  if ((err = acs__sched_model_need(m, ACS_EUNSUPPORTED, d, "affine schedules systems of "
                                   "recurrence equations (.sare workloads)")) < 0)
    return err;
  memset(&R, 0, sizeof(R));
  R.m = m;
  R.isl_latency = -1;
  if ((err = solve(&R, o, ctx, d)) < 0 || (err = acs_sare_inst_build(R.m, NULL, &R.in, d)) < 0)
    goto out_with_run;
  /* The family's own checker, on this run's instances, before anything
   * is built on the schedule. */
  err = R.multi ? acs_affine_check_multi(R.m, &R.ms, R.in.value, &R.chk, d)
                : acs_affine_check_values(R.m, &R.s, R.in.value, 1, &R.chk, d);
  if (err < 0) {
    err = acs_diag_msg_prefix(d, ACS_EVERIFY, R.m->path, d->line, d->col, "affine checker: ");
    goto out_with_run;
  }
  R.latency = R.multi ? -1 : R.chk.latency;
  if ((err = acs_affine_lower(pb, R.m, &R.in, R.multi ? R.ms.row : &R.s,
                              R.multi ? R.ms.ndims : 1, (int)o->fold,
                              ctx ? ctx->interrupted : NULL, out, &R.low, d)) < 0)
    goto out_with_run;
  if (o->isl)
    isl_opinion(&R);
  if ((err = result_table(out, &R)) < 0)
    goto out_with_run;
  run_note(&R, d);

out_with_run:
  run_free(&R);
  return err;
}

static const char *const fold_choices[] = {"cyclic", "block", NULL};
static const char *const input_choices[] = {"preloaded", "scheduled", NULL};

static const struct acs_opt_desc affine_opts_desc[] = {
  ACS_OPT_ENUM_FIELD(struct affine_opts, fold, "cyclic", fold_choices,
    "how the virtual PEs of the array fold onto pe_count PEs when there are more: "
    "cyclic (PE v mod P) or block (contiguous blocks, fewer transfers)"),
  ACS_OPT_ENUM_FIELD(struct affine_opts, inputs, "preloaded", input_choices,
    "preloaded: inputs are in the PEs' memories at time 0; scheduled: inputs get "
    "schedules of their own in the program, as in the seed (same latency, larger program)"),
  ACS_OPT_INT_FIELD(struct affine_opts, isl, "0", 0, 1,
    "1: also run isl's scheduler in Feautrier mode and report its latency in the table"),
  ACS_OPT_INT_FIELD(struct affine_opts, dims, "1", 1, ACS_AFFINE_MAX_DIMS,
    "most rows of a multidimensional schedule (Feautrier's part II) when there is no "
    "one-dimensional one; 1: report the dependences to blame instead"),
  ACS_OPT_END,
};

const struct acs_sched_ops acs_sched_affine = {
  .name = "affine",
  .memory_model = ACS_MEM_UNUSED, /* instances live in PE registers; values move over local links, not CMX */
  .seed = "003_ccb5dcefa1c3645f.txt",
  .summary = "Feautrier's one-dimensional affine schedules of recurrence equations by the "
             "Farkas lemma (exact, isl), projected and folded onto the PEs",
  .kinds = ACS_WL_BIT(ACS_WL_AFFINE),
  ACS_SCHED_OPTS(struct affine_opts, affine_opts_desc),
  .schedule = affine_schedule,
};
