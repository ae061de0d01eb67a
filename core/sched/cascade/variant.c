/*
 * variant.c - the `cascade` variant (seed 002): the CascaderGraph of a
 * workload's layer graph, the proposals within the CMX budget, the chosen one
 * lowered into the common schedule, checked by check.c, and its plans and
 * Pareto front as result tables.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/ddrlink.h"
#include "core/sched/cascade/cascade.h"
#include "core/sched/common.h"
#include "core/sched/ctrledge.h"
#include "core/sched/sched.h"

static const char *const modes_choices[] = {"per-tensor", "uniform", "recompute", "rolling",
                                            NULL};

static const struct acs_opt_desc cascade_opts_desc[] = {
  ACS_OPT_INT_FIELD(struct acs_cas_opts, max_parts, "6", 1, ACS_CAS_MAX_PARTS,
    "most Parts (fused layers) in one cascade"),
  ACS_OPT_INT_FIELD(struct acs_cas_opts, max_proposals, "64", 2, 1e6,
    "most proposals kept per state of the dynamic programming (TVM's max_proposals)"),
  ACS_OPT_INT_FIELD(struct acs_cas_opts, budget_kib, "0", 0, 1e9,
    "CMX budget in KiB (0: the platform's cmx_kib)"),
  ACS_OPT_INT_FIELD(struct acs_cas_opts, heights, "8", 1, 64,
    "most stripe heights tried per cascade (the whole height, then powers of two)"),
  ACS_OPT_INT_FIELD(struct acs_cas_opts, widths, "1", 1, 64,
    "most stripe widths tried per cascade (1: whole rows; then halvings by powers of two)"),
  ACS_OPT_INT_FIELD(struct acs_cas_opts, chan_splits, "7", 0, 63,
    "most halvings of the output channels of a one-layer cascade (weights stripe too)"),
  ACS_OPT_ENUM_FIELD(struct acs_cas_opts, modes, "uniform", modes_choices,
    "buffering of intermediate tensors: per-tensor (recompute or rolling each, cascades of "
    "up to 10 layers), uniform (all the same), recompute, rolling"),
  ACS_OPT_INT_FIELD(struct acs_cas_opts, split, "0", 0, 64,
    "most channel slices (one PE each) of a stripe's block (0: the PE count, at most 64)"),
  ACS_OPT_INT_FIELD(struct acs_cas_opts, max_stripes, "128", 1, 1e9,
    "plans of more stripes than this are not tried (each stripe costs a DMA and a "
    "synchronisation; planning time grows with stripes)"),
  ACS_OPT_END,
};

/* ---- result tables ---- */

static const char *mode_text(const struct acs_cas_plan *p, char *buf, size_t size)
{
  uint32_t all = (1u << (p->nparts + 1)) - 1;
  size_t used = 0;

  if (p->steps <= 1)
    return "whole";
  if ((p->rolling & all) == 0)
    return "recompute";
  if ((p->rolling & all) == all)
    return "rolling";
  /* Per tensor: one letter per Part's output (r rolled, c recomputed),
   * then the loads'. */
  for (int32_t k = 0; k <= p->nparts && used + 1 < size; k++)
    buf[used++] = (p->rolling >> k) & 1 ? 'r' : 'c';
  buf[used] = '\0';
  return buf;
}

static int plans_table(const struct acs_cas_env *env, const struct acs_cas_result *r,
                       struct acs_schedule *s)
{
  static const struct acs_rtab_col cols[] = {
    {"group", ACS_RTAB_I64, NULL},       {"first_layer", ACS_RTAB_STR, NULL},
    {"last_layer", ACS_RTAB_STR, NULL},  {"parts", ACS_RTAB_I64, NULL},
    {"stripe_h", ACS_RTAB_I64, "rows"},  {"stripe_w", ACS_RTAB_I64, "columns"},
    {"stripe_c", ACS_RTAB_I64, "channels"}, {"order", ACS_RTAB_STR, NULL},
    {"buffering", ACS_RTAB_STR, NULL},   {"buffers", ACS_RTAB_I64, NULL},
    {"out_home", ACS_RTAB_STR, NULL},    {"memory_bytes", ACS_RTAB_I64, "bytes"},
    {"cycles", ACS_RTAB_I64, "cycles"},  {"ddr_bytes", ACS_RTAB_I64, "bytes"},
    {"macs", ACS_RTAB_I64, NULL},        {"stripes", ACS_RTAB_I64, NULL},
    {"ops", ACS_RTAB_I64, NULL},
  };
  const struct acs_cgraph *cg = env->cg;
  struct acs_rtab *t;
  int err;

  if ((err = acs_schedule_add_rtab(s, "cascade_plans", cols, 17, &t)) < 0)
    return err;
  t->show = 1;
  for (int32_t g = 0; g < r->nplans; g++) {
    const struct acs_cas_plan *p = &r->plans[g];
    const struct acs_ltensor *ot = &cg->lg->t[cg->tensors[cg->parts[p->first + p->nparts - 1]
                                                             .out].lt];
    int wa = acs_cas_w_axis(ot->rank);
    int64_t row = acs_rtab_add_row(t), width = wa < 0 ? 1 : p->w > 0 ? p->w : ot->dims[wa];
    char mbuf[ACS_CAS_MAX_PARTS + 2];
    const int64_t iv[] = {g, p->nparts, p->h, width, p->c, p->nbuf, p->mem, p->cycles,
                          p->ddr_bytes, p->macs, p->steps, p->ops};
    const int ic[] = {0, 3, 4, 5, 6, 9, 11, 12, 13, 14, 15, 16};
    if (row < 0)
      return (int)row;
    for (size_t i = 0; i < sizeof(ic) / sizeof(ic[0]) && err == ACS_OK; i++)
      err = acs_rtab_set_i64(t, row, ic[i], iv[i]);
    if (err == ACS_OK)
      err = acs_rtab_set_str(t, row, 1, cg->lg->n[cg->parts[p->first].node].name);
    if (err == ACS_OK)
      err = acs_rtab_set_str(t, row, 2, cg->lg->n[cg->parts[p->first + p->nparts - 1].node].name);
    if (err == ACS_OK)
      err = acs_rtab_set_str(t, row, 7, p->chan_major ? "channels" : "rows");
    if (err == ACS_OK)
      err = acs_rtab_set_str(t, row, 8, mode_text(p, mbuf, sizeof(mbuf)));
    if (err == ACS_OK)
      err = acs_rtab_set_str(t, row, 10, p->out_home == ACS_CAS_HOME_CMX ? "cmx" : "ddr");
    if (err < 0)
      return err;
  }
  return ACS_OK;
}

static int front_table(const struct acs_cas_result *r, struct acs_schedule *s)
{
  static const struct acs_rtab_col cols[] = {
    {"memory_bytes", ACS_RTAB_I64, "bytes"},
    {"cycles", ACS_RTAB_I64, "cycles"},
    {"chosen", ACS_RTAB_I64, NULL},
  };
  struct acs_rtab *t;
  int err;

  if ((err = acs_schedule_add_rtab(s, "cascade_front", cols, 3, &t)) < 0)
    return err;
  for (int32_t k = 0; k < r->nfront; k++) {
    int64_t row = acs_rtab_add_row(t);
    if (row < 0)
      return (int)row;
    if ((err = acs_rtab_set_i64(t, row, 0, r->front[k].mem)) < 0 ||
        (err = acs_rtab_set_i64(t, row, 1, r->front[k].cycles)) < 0 ||
        (err = acs_rtab_set_i64(t, row, 2, k == r->chosen)) < 0)
      return err;
  }
  if ((err = acs_rtab_attr_i64(t, "budget_bytes", r->budget)) < 0 ||
      (err = acs_rtab_attr_i64(t, "groups_costed", r->groups_tried)) < 0 ||
      (err = acs_rtab_attr_i64(t, "plans_costed", r->plans_costed)) < 0)
    return err;
  return ACS_OK;
}

int acs_cas_tables(const struct acs_cas_env *env, const struct acs_cas_result *r,
                   struct acs_schedule *s)
{
  int err = plans_table(env, r, s);

  return err < 0 ? err : front_table(r, s);
}

/* ---- the variant ---- */

/* A tensor that no Part produces must come from DDR: a network input. A
 * secondary output of a multi-output node (Split) is neither. */
static int graph_supported(const struct acs_cgraph *cg, struct acs_diag *d)
{
  for (int32_t t = 0; t < cg->ntensors; t++) {
    const struct acs_ctensor *ct = &cg->tensors[t];
    const struct acs_ltensor *lt = &cg->lg->t[ct->lt];
    if (!ct->weight && ct->producer < 0 && lt->kind != ACS_LT_INPUT)
      return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                          "cascade: tensor '%s' is a secondary output of a multi-output "
                          "node, which the cascading scheduler does not stripe",
                          lt->name);
  }
  return ACS_OK;
}

static int64_t budget_of(const struct acs_cas_opts *o, const struct acs_schedule *s,
                         struct acs_diag *d)
{
  int64_t b = o->budget_kib > 0 ? o->budget_kib * 1024 : s->cmx_capacity;

  if (b <= 0)
    return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                        "cascade: the platform has no CMX and no budget_kib is set");
  if (s->cmx_capacity > 0 && b > s->cmx_capacity)
    return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                        "cascade: budget_kib=%lld exceeds the platform's CMX (%lld bytes)",
                        (long long)o->budget_kib, (long long)s->cmx_capacity);
  return b;
}

/* The bound of the cascade's own ops: every MAC runs on some PE at
 * pe_macs_per_cycle (recomputation only adds MACs). O(V + E). */
static int64_t own_bound(const struct acs_cas_env *env, const struct acs_lgraph *lg,
                         const struct acs_schedule *s)
{
  struct acs_lgraph_totals tot;
  int64_t lanes = (int64_t)env->pes * env->macs_per_cycle;

  if (lanes <= 0 || acs_lgraph_totals(lg, env->elem_bytes, &tot) != ACS_OK)
    return s->lower_bound;
  return tot.macs / lanes + (tot.macs % lanes != 0);
}

/* Lowers the chosen proposal; when its buffers do not pack into the
 * budget, the next cheaper-in-memory point of the front. */
static int lower_some(const struct acs_cas_env *env, struct acs_cas_result *r,
                      struct acs_schedule *s, struct acs_cas_tag **tags, struct acs_diag *d)
{
  int err = ACS_EINFEASIBLE;

  for (int32_t k = r->chosen; k >= 0; k--) {
    if ((err = acs_cas_result_pick(r, k)) < 0)
      return err;
    err = acs_cas_lower(env, r->plans, r->nplans, r->budget, s, tags, d);
    if (err != ACS_EINFEASIBLE)
      return err;
  }
  return err;
}

/*
 * The walk reuses CMX addresses by time alone; the control edges of its
 * packing (ctrledge.h) make every execution that respects the edges keep
 * the ranges apart, as a runtime needs, and as the barrier pass's
 * re-timing assumes. Every candidate edge is added (search budget 0:
 * searching for an implying path per candidate cost 4x the planning time
 * on ResNet-18 at 16 PEs), then the implied ones are dropped in one
 * transitive reduction: on ResNet-18 at 256 KiB, 1.39 M candidates for
 * 10,032 ops, which the verifier, the barrier pass, the simulation and the
 * study file would otherwise each carry.
 */
static int memory_edges(struct acs_schedule *s)
{
  struct acs_ctrl_stats st;
  int64_t dropped;
  int err = acs__ctrl_edges_add(s, NULL, 0, &st);

  return err < 0 ? err : acs__ctrl_edges_reduce(s, &dropped);
}

int acs_cas_schedule(const struct acs_lgraph *lg, const struct acs_platform *plat,
                     const struct acs_cas_opts *o, const volatile sig_atomic_t *intr,
                     struct acs_cas_pset *pset, struct acs_schedule *out,
                     struct acs_diag *d)
{
  struct acs_cgraph cg;
  struct acs_cas_env env;
  struct acs_cas_result r;
  struct acs_cas_tag *tags = NULL;
  int64_t budget;
  int err;

  if ((budget = budget_of(o, out, d)) < 0)
    return (int)budget;
  if ((err = acs_cgraph_build(lg, (int64_t)acs_platform_get(plat, ACS_P_BYTES_PER_ELEM),
                              &cg)) < 0)
    return err;
  memset(&r, 0, sizeof(r));
  if ((err = graph_supported(&cg, d)) < 0 ||
      (err = acs_cas_env_init(&env, &cg, plat, o->split, out->res_pe, out->res_dma)) < 0)
    goto out_with_cg;
  env.pset = pset;
  if ((err = acs_cas_propose(&env, o, budget, intr, &r, d)) < 0)
    goto out_with_result;
  if (intr && *intr) {
    err = ACS_EINTERRUPTED;
    goto out_with_result;
  }
  /* The walk times DDR transfers on the shared link (link.c): the verifier
   * holds the schedule to it (acs_ddrlink_check). Its ops hold no unit of
   * the problem graph's DDR resource, so the schedule has none: the barrier
   * pass's re-timing then keeps transfers to the link's lanes itself. */
  acs_ddrlink_from_platform(&out->link, plat);
  out->res_ddr = -1;
  if ((err = lower_some(&env, &r, out, &tags, d)) < 0 || (err = memory_edges(out)) < 0 ||
      (err = acs_cas_check(&env, tags, budget, r.front[r.chosen].mem, out, d)) < 0 ||
      (err = acs_cas_tables(&env, &r, out)) < 0)
    goto out_with_result;
  out->lower_bound = own_bound(&env, lg, out);
out_with_result:
  free(tags);
  acs_cas_result_free(&r);
out_with_cg:
  acs_cgraph_free(&cg);
  return err;
}

static int cascade_schedule(const struct acs_problem *pb, const void *opts,
                            const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                            struct acs_diag *d)
{
  const struct acs_cas_opts *o = opts;
  const struct acs_lgraph *lg = acs_problem_lgraph(pb);
  int err;

  if ((err = acs__sched_model_need(lg, ACS_EINFEASIBLE, d, "cascade: needs a layer graph "
                                   "(an ONNX model or a SCALE-Sim table)")) < 0)
    return err;
  return acs_cas_schedule(lg, &pb->plat, o, ctx ? ctx->interrupted : NULL,
                          acs_cas_pset_get(ctx ? ctx->cache : NULL, pb->digest, &pb->plat, o),
                          out, d);
}

const struct acs_sched_ops acs_sched_cascade = {
  .name = "cascade",
  .seed = "002_971d82e47555c36c.txt",
  .summary = "cascading scheduler: layers grouped into cascades run stripe by stripe, "
             "Pareto plans and proposals within the CMX budget",
  .kinds = ACS_WL_BIT(ACS_WL_DNN),
  ACS_SCHED_OPTS(struct acs_cas_opts, cascade_opts_desc),
  .memory_model = ACS_MEM_RESIDENT, /* every buffer holds its range for its whole life */
  .own_ops = 1,
  .schedule = cascade_schedule,
};
