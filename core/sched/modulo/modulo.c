/*
 * modulo.c - the `modulo` scheduler variant (seed 001): software pipelining
 * of loop workloads. It finds an initiation interval II and a start and
 * unit for every op of the loop body (search.c), checks that schedule
 * against the loop on its own (check.c), lowers N iterations of the
 * pipelined loop into the common schedule (lower.c) and attaches the
 * family's tables.
 *
 * Status: ok with the schedule; with -O exact=1, ok only when II is proven
 * minimal (II = MII, or every smaller II proven infeasible by the integer
 * program), else timeout with the best II found.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/sched/modulo/modulo_int.h"
#include "core/sched/common.h"

struct modulo_opts {
  int64_t search;
  int64_t budget;
  int64_t restarts;
  int64_t arms;
  int64_t exact;
  int64_t max_stages;
  int64_t ii_max;
};

static const char *const search_choices[] = {"linear", "gallop", NULL};

static const struct acs_opt_desc modulo_opts_desc[] = {
  ACS_OPT_ENUM_FIELD(struct modulo_opts, search, "linear", search_choices,
    "II search: linear from MII, or gallop (MII, +1, +3, +7, ...) then bisect"),
  ACS_OPT_INT_FIELD(struct modulo_opts, budget, "6", 1, 1000000,
    "IMS placements per op and attempt (Rau's BudgetRatio)"),
  ACS_OPT_INT_FIELD(struct modulo_opts, restarts, "4", 0, 1000,
    "IMS attempts with perturbed priorities after the first, per II"),
  ACS_OPT_INT_FIELD(struct modulo_opts, arms, "1", 0, 1,
    "1: try the seed's placement arms (permute, fuse, retry, cost) before IMS"),
  ACS_OPT_INT_FIELD(struct modulo_opts, exact, "0", 0, 1,
    "1: prove the minimum II by integer programming (GLPK), within --time-limit"),
  ACS_OPT_INT_FIELD(struct modulo_opts, max_stages, "0", 0, 1000000,
    "most pipeline stages (iterations in flight); 0 = no limit"),
  ACS_OPT_INT_FIELD(struct modulo_opts, ii_max, "0", 0, 1e15,
    "largest II to try; 0 = the flat schedule's length (always feasible)"),
  ACS_OPT_END,
};

static void opts_from(const struct modulo_opts *mo, const struct acs_sched_ctx *ctx,
                      struct acs_mopts *o)
{
  memset(o, 0, sizeof(*o));
  o->search = mo->search;
  o->budget = mo->budget;
  o->restarts = mo->restarts;
  o->arms = mo->arms;
  o->exact = mo->exact;
  o->max_stages = mo->max_stages;
  o->ii_max = mo->ii_max;
  o->seed = ctx ? ctx->seed : 1;
  o->time_limit = ctx ? ctx->time_limit : 0;
  o->interrupted = ctx ? ctx->interrupted : NULL;
}

static int modulo_schedule(const struct acs_problem *pb, const void *opts,
                           const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                           struct acs_diag *d)
{
  const struct modulo_opts *mo = opts;
  const struct acs_loop *l;
  struct acs_loop_layout lay;
  struct acs_mresult r;
  struct acs_msp m;
  struct acs_mopts o;
  int err;

  if ((err = acs__sched_model_need(l = acs_problem_loop(pb), ACS_EUNSUPPORTED, d,
                                   "modulo schedules loop workloads (.graphml, loop CSV)")) < 0)
    return err;
  if ((err = acs_loop_layout_init(&lay, l, &pb->plat)) < 0)
    return err;
  if ((err = acs__msp_init(&m, l, lay.units)) < 0)
    goto out_with_layout;
  opts_from(mo, ctx, &o);
  m.max_stages = o.max_stages;
  memset(&r, 0, sizeof(r));
  if ((err = acs__modulo_search(&m, &o, &r, d)) < 0)
    goto out_with_result;
  /* The schedule must satisfy the loop itself, independently of how it was
   * found; a failure here is a bug, reported as such. */
  if ((err = acs__modulo_check(&m, r.ii, r.t, r.unit, d)) < 0) {
    err = acs_diag_msg_prefix(d, ACS_EVERIFY, NULL, 0, 0, "internal error (%s at II %lld): ",
                              r.how, (long long)r.ii);
    goto out_with_result;
  }
  if ((err = acs__modulo_lower(l, &lay, &r, out, d)) < 0 ||
      (err = acs__modulo_tables(&m, &r, &lay, 0, out)) < 0)
    goto out_with_result;
  if (r.note[0])
    acs_diag_set(d, ACS_OK, NULL, 0, 0, "%s", r.note);
  if (o.exact && !r.proven)
    err = ACS_ETIMEOUT;
out_with_result:
  acs__mresult_free(&r);
  acs__msp_destroy(&m);
out_with_layout:
  acs_loop_layout_destroy(&lay);
  return err;
}

const struct acs_sched_ops acs_sched_modulo = {
  .name = "modulo",
  .memory_model = ACS_MEM_UNUSED, /* loop ops use functional units, no CMX */
  .seed = "001_0dd4a5969f69725f.txt",
  .summary = "Rau-style modulo scheduling of loops: MII bounds, RRT, placement arms, IMS, "
             "exact II by ILP",
  .kinds = ACS_WL_BIT(ACS_WL_LOOP),
  ACS_SCHED_OPTS(struct modulo_opts, modulo_opts_desc),
  .schedule = modulo_schedule,
};
