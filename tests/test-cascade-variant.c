/*
 * test-cascade-variant.c - the `cascade` variant on shipped networks
 * (budgets, infeasibility, refusals that say why) and the memo of recent
 * proposals.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "core/model/platform.h"
#include "core/model/problem.h"
#include "core/sched/cascade/cascade.h"
#include "core/sched/cascade/cgraph.h"
#include "core/sched/cascade/propagator.h"
#include "core/sched/cache.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

#include "tests/cascade_util.h"

/* ---- the variant on shipped networks ---- */

struct net_run {
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
};

/* Runs `cascade` with options (NULL-ended "k=v") on a shipped network,
 * keeping what it may in `cache` (NULL: nothing). */
static int net_schedule_in(struct net_run *n, const char *rel, const char *const *sets,
                           const char *const *opts, struct acs_sched_cache *cache,
                           struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find("cascade");
  struct acs_platform p;
  struct acs_cas_opts o;
  struct acs_sched_ctx ctx = {1, 0, NULL, cache, 0};

  cr_assert_not_null(ops);
  acs_diag_init(d);
  cr_assert_eq(acs_workload_load(tu_path(rel), &n->w, d), ACS_OK, "%s", d->msg);
  acs_platform_init(&p);
  for (; sets && *sets; sets++)
    cr_assert_eq(acs_platform_set_kv(&p, *sets, d), ACS_OK, "%s", d->msg);
  cr_assert_eq(acs_workload_build(n->w, &p, &n->g, d), ACS_OK, "%s", d->msg);
  cr_assert_eq(acs_problem_init(&n->pb, &n->g, &p, d), ACS_OK, "%s", d->msg);
  acs_workload_bind(n->w, &n->pb);
  cr_assert_eq(acs_sched_opts_defaults(ops, &o), ACS_OK);
  for (; opts && *opts; opts++) {
    char key[64];
    const char *eq = strchr(*opts, '=');
    snprintf(key, sizeof(key), "%.*s", (int)(eq - *opts), *opts);
    cr_assert_eq(acs_sched_opts_set(ops, &o, key, eq + 1, d), ACS_OK, "%s", d->msg);
  }
  acs_schedule_init(&n->s);
  cr_assert_eq(acs_schedule_init_problem(&n->s, &n->pb), ACS_OK);
  return ops->schedule(&n->pb, &o, &ctx, &n->s, d);
}

static int net_schedule(struct net_run *n, const char *rel, const char *const *sets,
                        const char *const *opts, struct acs_diag *d)
{
  return net_schedule_in(n, rel, sets, opts, NULL, d);
}

static void net_free(struct net_run *n)
{
  acs_schedule_destroy(&n->s);
  acs_problem_destroy(&n->pb);
  acs_graph_destroy(&n->g);
  acs_workload_free(n->w);
}

/* The chosen front point of a run: its memory and cycles. */
static void chosen_point(const struct acs_schedule *s, int64_t *mem, int64_t *cycles)
{
  const struct acs_rtab *t = acs_schedule_find_rtab(s, "cascade_front");
  int found = 0;

  cr_assert_not_null(t);
  for (int64_t i = 0; i < t->nrows; i++)
    if (acs_rtab_get(t, i, 2).i) {
      *mem = acs_rtab_get(t, i, 0).i;
      *cycles = acs_rtab_get(t, i, 1).i;
      found++;
    }
  cr_assert_eq(found, 1);
}

/* The seed's headline: MobileNetV1 (224, int8) needs 1,204,224 bytes run
 * layer by layer (test-onnx checks that figure) and under 300 kB
 * cascaded. At cmx_kib=256 the schedule verifies, its peak is within the
 * budget and the front point it came from, and its makespan is that
 * point's cycles (groups run one after another). */
Test(variant, mobilenet_v1_within_256_kib)
{
  static const char *const sets[] = {"cmx_kib=256", NULL};
  static const char *const opts[] = {"max_parts=6", "heights=6", NULL};
  struct acs_schedule_stats st;
  struct net_run n;
  struct acs_diag d;
  int64_t mem, cycles;

  cr_assert_eq(net_schedule(&n, "workloads/onnx/mobilenet_v1.onnx", sets, opts, &d), ACS_OK,
               "%s", d.msg);
  tu_assert_verified(&n.s);
  acs_schedule_stats(&n.s, &st);
  chosen_point(&n.s, &mem, &cycles);
  cr_assert_leq(st.peak_cmx_bytes, 256 * 1024);
  cr_assert_leq(st.peak_cmx_bytes, mem);
  cr_assert_lt(st.peak_cmx_bytes, 300000);
  cr_assert_eq(st.makespan, cycles);
  cr_assert_eq(st.spill_bytes, 0);
  cr_assert_not_null(acs_schedule_find_rtab(&n.s, "cascade_plans"));
  net_free(&n);
}

/* Residual blocks (the skip tensor enters a cascade twice, or stays in
 * CMX across cascades) at a small budget. */
Test(variant, resnet18_small_budget_verifies)
{
  static const char *const sets[] = {"cmx_kib=192", NULL};
  static const char *const opts[] = {"max_parts=4", "heights=4", NULL};
  struct acs_schedule_stats st;
  struct net_run n;
  struct acs_diag d;
  int64_t mem, cycles;

  cr_assert_eq(net_schedule(&n, "workloads/onnx/resnet18.onnx", sets, opts, &d), ACS_OK, "%s",
               d.msg);
  tu_assert_verified(&n.s);
  acs_schedule_stats(&n.s, &st);
  chosen_point(&n.s, &mem, &cycles);
  cr_assert_leq(st.peak_cmx_bytes, mem);
  cr_assert_eq(st.makespan, cycles);
  net_free(&n);
}

/* A budget below the smallest proposal: infeasible, with the figure. */
Test(variant, budget_below_every_proposal_is_infeasible)
{
  static const char *const sets[] = {"cmx_kib=256", NULL};
  static const char *const opts[] = {"budget_kib=8", "max_parts=2", "heights=2", NULL};
  struct net_run n;
  struct acs_diag d;

  cr_assert_eq(net_schedule(&n, "workloads/onnx/mobilenet_v1.onnx", sets, opts, &d),
               ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "smallest proposal needs"), "%s", d.msg);
  net_free(&n);
}

/* What the variant refuses, each with one clear message. */
Test(variant, refusals_say_why)
{
  static const char *const sets[] = {"cmx_kib=128", NULL};
  static const char *const big[] = {"budget_kib=129", NULL};
  struct net_run n;
  struct acs_diag d;

  cr_assert_eq(net_schedule(&n, "workloads/onnx/alexnet.onnx", sets, big, &d), ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "exceeds the platform's CMX"), "%s", d.msg);
  net_free(&n);
  /* An op-graph CSV has ops, not layers. */
  cr_assert_eq(net_schedule(&n, "tests/data/load/graph_good.csv", sets, NULL, &d), ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "needs a layer graph"), "%s", d.msg);
  net_free(&n);
}


/* ---- plans kept across runs ---- */

static void assert_same_schedule(const struct acs_schedule *a, const struct acs_schedule *b)
{
  cr_assert_eq(a->makespan, b->makespan);
  cr_assert_eq(a->nops, b->nops);
  cr_assert_eq(a->nedges, b->nedges);
  for (int32_t i = 0; i < a->nops; i++) {
    cr_assert_str_eq(a->ops[i].name, b->ops[i].name);
    cr_assert_eq(a->ops[i].start, b->ops[i].start, "%s", a->ops[i].name);
    cr_assert_eq(a->ops[i].dur, b->ops[i].dur, "%s", a->ops[i].name);
    cr_assert_eq(a->ops[i].cmx_offset, b->ops[i].cmx_offset, "%s", a->ops[i].name);
  }
  for (int32_t e = 0; e < a->nedges; e++)
    cr_assert(a->edges[e].src == b->edges[e].src && a->edges[e].dst == b->edges[e].dst);
  /* cascade_plans, cascade_front and their counts of groups and plans
   * costed: a run that saw more plans than its budget allows differs. */
  tu_assert_rtabs_eq(a, b);
}

/*
 * A group's plans do not depend on the budget (pcache.c): runs that share
 * a cache, at budgets in no particular order and at two PE counts (two
 * sets of plans), give the schedules and tables of runs alone, and so does
 * a budget no proposal fits (the same message). The first run at a large
 * budget fills the cache with plans a small one must not see.
 */
Test(variant, plans_kept_across_runs_change_nothing)
{
  static const char *const kib[] = {"cmx_kib=1024", "cmx_kib=128", "cmx_kib=512", "cmx_kib=192"};
  static const char *const pes[] = {"pe_count=4", "pe_count=2"};
  static const char *const opts[] = {"max_parts=4", "heights=3", NULL};
  static const char *const tiny[] = {"max_parts=4", "heights=3", "budget_kib=8", NULL};
  struct acs_sched_cache *cache = acs_sched_cache_new();
  struct acs_diag d, e;

  cr_assert_not_null(cache);
  for (int k = 0; k < 8; k++) {
    const char *const sets[] = {kib[k % 4], pes[k / 4], NULL};
    struct net_run kept, alone;
    int a = net_schedule_in(&kept, "workloads/onnx/mobilenet_v1.onnx", sets, opts, cache, &d);
    int b = net_schedule(&alone, "workloads/onnx/mobilenet_v1.onnx", sets, opts, &e);
    cr_assert_eq(a, b, "%s %s: %s / %s", sets[0], sets[1], d.msg, e.msg);
    cr_assert_eq(a, ACS_OK, "%s %s: %s", sets[0], sets[1], d.msg);
    assert_same_schedule(&kept.s, &alone.s);
    net_free(&kept);
    net_free(&alone);
  }
  {
    const char *const sets[] = {"cmx_kib=256", "pe_count=4", NULL};
    struct net_run kept, alone;
    cr_assert_eq(net_schedule_in(&kept, "workloads/onnx/mobilenet_v1.onnx", sets, tiny, cache,
                                 &d), ACS_EINFEASIBLE);
    cr_assert_eq(net_schedule(&alone, "workloads/onnx/mobilenet_v1.onnx", sets, tiny, &e),
                 ACS_EINFEASIBLE);
    cr_assert_str_eq(d.msg, e.msg);
    net_free(&kept);
    net_free(&alone);
  }
  acs_sched_cache_free(cache);
}

/* A cache too small for every group's plans (half what one network's
 * plans take, then one byte): the set answers for the groups it holds,
 * the others are planned with the run's limit, and the runs are still
 * those of runs alone, within the bytes allowed. */
Test(variant, a_full_plan_cache_changes_nothing)
{
  static const char *const kib[] = {"cmx_kib=1024", "cmx_kib=128", "cmx_kib=512"};
  static const char *const opts[] = {"max_parts=4", "heights=3", NULL};
  size_t whole;

  {
    const char *const sets[] = {kib[0], NULL};
    struct acs_sched_cache *cache = acs_sched_cache_new();
    struct net_run kept;
    struct acs_diag d;
    cr_assert_not_null(cache);
    cr_assert_eq(net_schedule_in(&kept, "workloads/onnx/mobilenet_v1.onnx", sets, opts, cache,
                                 &d), ACS_OK, "%s", d.msg);
    whole = acs_cas_pcache_bytes(cache);
    cr_assert_gt(whole, 0);
    net_free(&kept);
    acs_sched_cache_free(cache);
  }
  for (size_t limit = whole / 2; limit > 0; limit = limit > 1 ? 1 : 0) {
    struct acs_sched_cache *cache = acs_sched_cache_new();
    cr_assert_not_null(cache);
    cr_assert_eq(acs_cas_pcache_limit(cache, limit), limit);
    for (int k = 0; k < 3; k++) {
      const char *const sets[] = {kib[k], NULL};
      struct net_run kept, alone;
      struct acs_diag d, e;
      int a = net_schedule_in(&kept, "workloads/onnx/mobilenet_v1.onnx", sets, opts, cache, &d);
      int b = net_schedule(&alone, "workloads/onnx/mobilenet_v1.onnx", sets, opts, &e);
      cr_assert_eq(a, ACS_OK, "%s at %zu bytes: %s", sets[0], limit, d.msg);
      cr_assert_eq(b, ACS_OK, "%s: %s", sets[0], e.msg);
      assert_same_schedule(&kept.s, &alone.s);
      cr_assert_leq(acs_cas_pcache_bytes(cache), limit);
      net_free(&kept);
      net_free(&alone);
    }
    if (limit > 1)
      cr_assert_gt(acs_cas_pcache_bytes(cache), 0, "half the room kept nothing");
    acs_sched_cache_free(cache);
  }
}
