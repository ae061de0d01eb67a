/*
 * test-memo.c - the schedules a process remembers across runs
 * (cli/job_memo.h): what room a group's barrier preparation gets.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "cli/job_memo.h"
#include "core/sched/npu/barrier.h"
#include "tests/testutil.h"

/* A problem with a workload digest (the memo keys on it) and one
 * platform setting. */
static void problem(struct acs_problem *pb, const struct acs_graph *g, const char *set)
{
  const char *sets[] = {set, NULL};

  tu_problem(pb, g, sets);
  pb->digest = "5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e";
}

/* name with its default options (the memo keys on them too). */
static struct acs_sched_sel sel_of(const char *name)
{
  struct acs_sched_sel sel = {acs_sched_find(name), NULL};

  cr_assert_not_null(sel.ops, "%s", name);
  cr_assert_not_null(sel.opts = calloc(1, sel.ops->opts_size + 1));
  cr_assert_eq(acs_sched_opts_defaults(sel.ops, sel.opts), ACS_OK);
  return sel;
}

static void keep(const struct acs_problem *pb, const char *name)
{
  struct acs_sched_sel sel = sel_of(name);
  struct acs_sched_ctx ctx = {1, 0, 0, NULL, 0};
  struct acs_run_row row;
  struct acs_schedule s;

  memset(&row, 0, sizeof(row));
  snprintf(row.status, sizeof(row.status), "ok");
  tu_schedule_verified(name, pb, &s);
  acs_job_memo_keep(pb, &sel, &ctx, &s, 1, &row);
  acs_schedule_destroy(&s);
  free(sel.opts);
}

/* 1 when the memo has sel's schedule of pb, -1 when not. */
static int has(const struct acs_problem *pb, const char *name)
{
  struct acs_sched_sel sel = sel_of(name);
  struct acs_sched_ctx ctx = {1, 0, 0, NULL, 0};
  struct acs_run_row row;
  struct acs_schedule s;
  int r;

  cr_assert_eq(acs_schedule_init_problem(&s, pb), ACS_OK);
  r = acs_job_memo_find(pb, &sel, &ctx, &s, &row);
  acs_schedule_destroy(&s);
  free(sel.opts);
  return r;
}

static const struct acs_barrier_prep *prep(const struct acs_problem *pb, const char *name)
{
  struct acs_sched_sel sel = sel_of(name);
  struct acs_sched_ctx ctx = {1, 0, 0, NULL, 0};
  const struct acs_barrier_prep *bp = acs_job_memo_barrier_prep(pb, &sel, &ctx);

  free(sel.opts);
  return bp;
}

/* Group B (one problem, two schedulers) comes after group A. When B's
 * preparation needs room, A's schedule makes it, never the other
 * scheduler's schedule of B: the runs to come need that one. Where
 * dropping A is not enough, the preparation is not kept (the pass makes
 * its own) and both of B's schedules stay. */
Test(memo, a_groups_preparation_pushes_out_older_groups_not_its_own)
{
  struct acs_graph g;
  struct acs_problem a, b;
  struct acs_schedule s;
  struct acs_barrier_prep *bp;
  size_t held, sa, need;

  tu_random_dag(&g, 7, 60, 1000);
  problem(&a, &g, "cmx_kib=512");
  problem(&b, &g, "cmx_kib=1024");
  acs_job_memo_set_limit(0);
  keep(&a, "list");
  sa = acs_job_memo_bytes();
  keep(&b, "sequential");
  keep(&b, "list");
  held = acs_job_memo_bytes();
  tu_schedule_verified("list", &b, &s);
  cr_assert_eq(acs_barrier_prep_new(&s, &bp), ACS_OK);
  need = acs_barrier_prep_bytes(bp);
  acs_barrier_prep_free(bp);
  acs_schedule_destroy(&s);
  cr_assert(sa > need / 2, "the test needs A's schedule (%zu bytes) to make room for half "
                           "the preparation (%zu)", sa, need);

  /* Room for half the preparation: A goes, B's two schedules stay. */
  acs_job_memo_set_limit(held + need / 2);
  keep(&a, "list");
  keep(&b, "sequential");
  keep(&b, "list");
  cr_assert_eq(acs_job_memo_bytes(), held);
  cr_assert_not_null(prep(&b, "list"));
  cr_assert_eq(has(&a, "list"), -1);
  cr_assert_eq(has(&b, "sequential"), 1);
  cr_assert_eq(has(&b, "list"), 1);
  cr_assert_eq(acs_job_memo_bytes(), held - sa + need);

  /* One byte short even without A: no preparation, B's schedules stay. */
  acs_job_memo_set_limit(held - sa + need - 1);
  keep(&a, "list");
  keep(&b, "sequential");
  keep(&b, "list");
  cr_assert_null(prep(&b, "list"));
  cr_assert_eq(has(&b, "sequential"), 1);
  cr_assert_eq(has(&b, "list"), 1);

  acs_job_memo_set_limit(0);
  acs_problem_destroy(&a);
  acs_problem_destroy(&b);
  acs_graph_destroy(&g);
}
