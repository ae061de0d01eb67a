/*
 * variants.c - the SDF scheduler variants as ops tables: `gang` (the
 * thesis's heuristic), the SDF side of `sequential` (the thesis's sequential
 * approach: the initial partition, one node per gang), `tiling` and
 * `naive-list` (the baselines of section 6.4). Each builds a plan, checks it
 * with the family's independent checker, lowers it to the common schedule
 * and attaches its result tables.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/common.h"
#include "core/sched/gang/gang.h"

static const char *const sort_choices[] = { "topo", "level", "exec", "rtopo", "rlevel", NULL };
static const char *const partition_choices[] = { "heuristic", "ilp", NULL };
static const char *const gain_map_choices[] = { "incremental", "exact", NULL };

static const struct acs_opt_desc gang_opts[] = {
    ACS_OPT_ENUM_FIELD(struct acs_gang_opts, sort, "topo", sort_choices,
      "order in which gangs become the move target: topological, level (unit-weight longest "
      "path to a sink), execution time, or either of the first two reversed"),
    ACS_OPT_INT_FIELD(struct acs_gang_opts, zero_gain, "1", 0, 1,
      "commit moves whose expected and real gain is zero (they can enable better moves)"),
    ACS_OPT_INT_FIELD(struct acs_gang_opts, depth, "1", 1, 4,
      "search depth: a move's gain includes the best of up to depth-1 follow-up moves"),
    ACS_OPT_INT_FIELD(struct acs_gang_opts, map_budget, "2000", 0, 1e9,
      "search nodes of the branch-and-bound mapping of one gang before it returns its best "
      "(0: the greedy mapping improved by moves and swaps)"),
    ACS_OPT_ENUM_FIELD(struct acs_gang_opts, gain_map, "incremental", gain_map_choices,
      "expected gains from the current mappings with the moved node placed where it costs least "
      "(incremental), or from an optimal mapping of each new gang (exact, the thesis's way)"),
    ACS_OPT_ENUM_FIELD(struct acs_gang_opts, partition, "heuristic", partition_choices,
      "heuristic: the thesis's moves; ilp: the exact partition and mapping over optimal costs "
      "(GLPK; small graphs)"),
    ACS_OPT_INT_FIELD(struct acs_gang_opts, max_iter, "16", 1, 10000,
      "iterations of the retiming and of the buffer phase per gang"),
    ACS_OPT_STR_FIELD(struct acs_gang_opts, program, "",
      "also write the control program as text to this file"),
    ACS_OPT_END,
};

static int sdf_model(const struct acs_problem *pb, const char *who, const struct acs_sdf_graph **g,
                     struct acs_diag *d)
{
  return acs__sched_model_need(*g = acs_problem_sdf(pb), ACS_EUNSUPPORTED, d,
                               "%s schedules SDF graphs (SDF3 .xml workloads) only", who);
}

static void ctx_limits(struct acs_gang_ctx *c, const struct acs_sched_ctx *ctx, int64_t max_iter)
{
  c->interrupted = ctx ? ctx->interrupted : NULL;
  c->deadline = ctx && ctx->time_limit > 0 ? acs_now_seconds() + ctx->time_limit : 0;
  c->max_iter = max_iter;
}

/* Checks, lowers and stores a plan (and the partition's tables). */
static int finish(struct acs_gang_ctx *c, const struct acs_gang_plan *pl,
                  const struct acs_gang_part *pt, struct acs_schedule *out, struct acs_diag *d)
{
  int err;

  if ((err = acs_gang_check_plan(c->g, &c->xp, pl, d)) < 0)
    return err;
  if (pt && (err = acs_gang_program_verify(c, pt, pl, d)) < 0)
    return err;
  if ((err = acs_gang_lower(c->g, &c->xp, pl, out)) < 0)
    return err;
  if (pt && (err = acs_gang_part_tables(c, pt, out)) < 0)
    return err;
  return ACS_OK;
}

/*
 * The partition of `mode` (0 the heuristic, 1 the singletons, 2 the ILP's)
 * in *pt. For `gang` (mode 0) the partition naive-list implies is one more
 * candidate (dynamic.c): with the search's own start no longer than
 * sequential's and tiling's (realize.c), gang's plan is never longer than
 * any baseline's; and when no gang partition fits, the dynamic gang may
 * still. When the ILP finds no solution within its limit, the heuristic's
 * partition (milliseconds) is the best found: *timeout is set.
 */
static int choose_partition(struct acs_gang_ctx *c, const struct acs_gang_opts *o,
                            const struct acs_sched_ctx *ctx, int mode, struct acs_gang_part *pt,
                            int64_t *lower, int *timeout, struct acs_diag *d)
{
  int err, had;

  *timeout = 0;
  if (mode == 2) {
    if ((err = acs_gang_partition_ilp(c, o, ctx ? ctx->time_limit : 0, pt, lower, d)) !=
        ACS_ETIMEOUT)
      return err;
    *timeout = 1;
    c->deadline = 0;
    mode = 0;
  }
  err = acs_gang_partition(c, o, mode == 1, pt, d);
  if (mode != 0 || (err != ACS_OK && err != ACS_EINFEASIBLE))
    return err;
  if (!(had = err == ACS_OK))
    pt->makespan = INT64_MAX;
  if ((err = acs_gang_dynamic_try(c, pt)) < 0)
    return err;
  return had || pt->dyn ? ACS_OK : ACS_EINFEASIBLE;
}

/* Schedules a partition: the heuristic, the singletons, or the ILP's. */
static int run_partition(const struct acs_problem *pb, const struct acs_gang_opts *o,
                         const struct acs_sched_ctx *ctx, int mode, struct acs_schedule *out,
                         struct acs_diag *d)
{
  const struct acs_sdf_graph *g = NULL;
  struct acs_gang_ctx c;
  struct acs_gang_part pt;
  struct acs_gang_plan pl;
  struct acs_diag why;
  int64_t lower = -1;
  int err, timeout;

  if ((err = sdf_model(pb, mode == 1 ? "sequential (SDF)" : "gang", &g, d)) < 0)
    return err;
  if ((err = acs_gang_ctx_init(&c, g, &pb->plat, d)) < 0)
    return err;
  ctx_limits(&c, ctx, o->max_iter);
  c.modes = mode != 1;   /* sequential is the thesis's: pipelined gangs only */
  memset(&pt, 0, sizeof(pt));
  acs_gang_plan_init(&pl);
  acs_diag_init(&why);
  if ((err = choose_partition(&c, o, ctx, mode, &pt, &lower, &timeout, &why)) < 0) {
    *d = why;
    goto out_with_ctx;
  }
  if ((err = acs_gang_part_emit(&c, &pt, &pl)) < 0 || (err = finish(&c, &pl, &pt, out, d)) < 0)
    goto out_with_ctx;
  if (o->program[0] && (err = acs_gang_program_write(&c, &pt, o->program, d)) < 0)
    goto out_with_ctx;
  if (mode == 2 && lower >= 0) {
    struct acs_rtab *t = acs_schedule_find_rtab(out, "gangs");
    if (t)
      acs_rtab_attr_i64(t, "ilp_cost_bound", lower);
  }
  if (timeout)
    err = acs_diag_set(d, ACS_ETIMEOUT, NULL, 0, 0, "%s; the heuristic's partition is kept",
                       why.msg);
  else if (why.msg[0] && mode == 2)
    *d = why;   /* the ILP's note (stopped at its limit with a solution) */
out_with_ctx:
  acs_gang_plan_free(&pl);
  acs_gang_part_free(&pt);
  acs_gang_ctx_free(&c);
  return err;
}

static int gang_schedule(const struct acs_problem *pb, const void *opts,
                         const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                         struct acs_diag *d)
{
  const struct acs_gang_opts *o = opts;

  return run_partition(pb, o, ctx, o->partition == 1 ? 2 : 0, out, d);
}

const struct acs_sched_ops acs_sched_gang = {
    .name = "gang",
    .memory_model = ACS_MEM_RESIDENT, /* channel buffers held in VMEM for the whole gang */
    .seed = ACS_SEED_VAN_SON,
    .summary = "gang partitioning, mapping and pipelined schedules of SDF graphs on a multi-PE ISP",
    .kinds = ACS_WL_BIT(ACS_WL_SDF),
    ACS_SCHED_OPTS(struct acs_gang_opts, gang_opts),
    .schedule = gang_schedule,
};

/* The sequential approach of section 6.4: every node alone in its gang,
 * pipelined with its own transfers, all data through DDR. */
int acs__sdf_sequential(const struct acs_problem *pb, const struct acs_sched_ctx *ctx,
                        struct acs_schedule *out, struct acs_diag *d)
{
  struct acs_gang_opts o;

  memset(&o, 0, sizeof(o));
  o.map_budget = 2000;
  o.max_iter = 16;
  return run_partition(pb, &o, ctx, 1, out, d);
}

/* ---- tiling ---- */

static const struct acs_opt_desc tiling_opts[] = {
    ACS_OPT_INT_FIELD(struct acs_gang_opts, map_budget, "2000", 0, 1e9,
      "search nodes of the mapping of a cycle that runs as one gang"),
    ACS_OPT_INT_FIELD(struct acs_gang_opts, max_iter, "16", 1, 10000,
      "iterations of the retiming and of the buffer phase per pass"),
    ACS_OPT_END,
};

/* Runs a plan builder, then checks, lowers and stores its plan. */
static int run_plan(const struct acs_problem *pb, const char *who, const struct acs_gang_opts *o,
                    const struct acs_sched_ctx *ctx,
                    int (*build)(struct acs_gang_ctx *, const struct acs_gang_opts *,
                                 struct acs_gang_plan *, struct acs_diag *),
                    struct acs_schedule *out, struct acs_diag *d)
{
  const struct acs_sdf_graph *g = NULL;
  struct acs_gang_ctx c;
  struct acs_gang_plan pl;
  int err;

  if ((err = sdf_model(pb, who, &g, d)) < 0)
    return err;
  if ((err = acs_gang_ctx_init(&c, g, &pb->plat, d)) < 0)
    return err;
  ctx_limits(&c, ctx, o->max_iter);
  acs_gang_plan_init(&pl);
  if ((err = build(&c, o, &pl, d)) == ACS_OK)
    err = finish(&c, &pl, NULL, out, d);
  acs_gang_plan_free(&pl);
  acs_gang_ctx_free(&c);
  return err;
}

static int tiling_schedule(const struct acs_problem *pb, const void *opts,
                           const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                           struct acs_diag *d)
{
  return run_plan(pb, "tiling", opts, ctx, acs_gang_tiling, out, d);
}

const struct acs_sched_ops acs_sched_tiling = {
    .name = "tiling",
    .memory_model = ACS_MEM_RESIDENT, /* each pass's strips held in VMEM while the pass runs,
                                         intermediates in DDR */
    .seed = ACS_SEED_VAN_SON,
    .summary = "baseline: every kernel a pass of its own, its lines split over the PEs, all data "
               "through DDR",
    .kinds = ACS_WL_BIT(ACS_WL_SDF),
    ACS_SCHED_OPTS(struct acs_gang_opts, tiling_opts),
    .schedule = tiling_schedule,
};

/* ---- naive-list ---- */

static int naive_build(struct acs_gang_ctx *c, const struct acs_gang_opts *o,
                       struct acs_gang_plan *pl, struct acs_diag *d)
{
  (void)o;
  return acs_gang_naive(c, pl, d);
}

static int naive_schedule(const struct acs_problem *pb, const void *opts,
                          const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                          struct acs_diag *d)
{
  struct acs_gang_opts o;

  (void)opts;
  memset(&o, 0, sizeof(o));
  o.max_iter = 16;
  return run_plan(pb, "naive-list", &o, ctx, naive_build, out, d);
}

const struct acs_sched_ops acs_sched_naive = {
  .name = "naive-list",
  .memory_model = ACS_MEM_RESIDENT, /* triple input buffers held in VMEM per loaded kernel */
  .seed = ACS_SEED_VAN_SON,
  .summary = "baseline: kernels loaded and replaced on demand, DMA arbitrated by four rules",
  .kinds = ACS_WL_BIT(ACS_WL_SDF),
  .schedule = naive_schedule,
};
