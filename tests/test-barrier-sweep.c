/*
 * test-barrier-sweep.c - the barrier pass's time sweep (barrier_int.h):
 * where it is cut short of a cutoff, and that a cut sweep resumes as if it
 * had never stopped, and that it may follow the reduced edges.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/npu/barrier.h"
#include "core/sched/npu/barrier_int.h"
#include "tests/testutil.h"

static int start_always(void *ctx, struct acs__sgs *g, int32_t v, int64_t t, int force,
                        int64_t *retry, int32_t *wake)
{
  (void)ctx, (void)g, (void)v, (void)t, (void)force, (void)retry, (void)wake;
  return 1;
}

/* Sweeps s without barriers, cut at `cutoff` (INT64_MAX: never); returns
 * what acs__sgs_run does, the starts in start[]. */
static int sweep_cut(const struct acs_schedule *s, const struct acs__bprep *p, int64_t cutoff,
                     int64_t *start)
{
  struct acs__sgs_hooks hk = {NULL, start_always, NULL, cutoff < INT64_MAX ? p : NULL, cutoff,
                               NULL, NULL};
  struct acs_diag d;

  acs_diag_init(&d);
  return acs__sgs_run(s, 0, &hk, start, &d);
}

/* By hand: a chain of 10, 20 and 30 cycles has a tail of 60 from its first
 * op, so a cut at 60 stops before anything starts and one at 61 never
 * does; 2C + 1 independent ops of 10 cycles on C PEs need
 * ceil(10 (2C + 1) / C) cycles at least from 0, by their work alone. */
Test(barrier, sweep_cut_by_tail_and_by_work_at_the_boundary)
{
  static const int64_t chain_dur[] = {10, 20, 30};
  static const int32_t chain_edges[][2] = {{0, 1}, {1, 2}};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs__bprep p;
  int64_t start[64];

  tu_small_graph(&g, 3, chain_dur, chain_edges, 2);
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  cr_assert_eq(acs__bprep_init(&p, &s), ACS_OK);
  cr_assert_eq(p.tail[0], 60);
  cr_assert_eq(p.by_tail[0], 0);
  cr_assert_eq(sweep_cut(&s, &p, 60, start), ACS__SGS_CUT);
  for (int32_t i = 0; i < 3; i++)
    cr_assert_eq(start[i], -1, "op %d started before the cut", i);
  cr_assert_eq(sweep_cut(&s, &p, 61, start), ACS_OK);
  cr_assert_eq(start[0], 0);
  cr_assert_eq(start[1], 10);
  cr_assert_eq(start[2], 30);
  acs__bprep_destroy(&p);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);

  {
    int64_t dur[64], cap, n, bound;
    tu_small_graph(&g, 1, chain_dur, NULL, 0);
    tu_problem(&pb, &g, NULL);
    tu_schedule_verified("list", &pb, &s);
    cap = s.res_cap[s.res_pe];
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
    n = 2 * cap + 1;
    cr_assert(n <= 26, "%lld PEs: too many for the letters of small_graph", (long long)cap);
    for (int32_t i = 0; i < n; i++)
      dur[i] = 10;
    tu_small_graph(&g, (int32_t)n, dur, NULL, 0);
    tu_problem(&pb, &g, NULL);
    tu_schedule_verified("list", &pb, &s);
    cr_assert_eq(acs__bprep_init(&p, &s), ACS_OK);
    bound = (10 * n + cap - 1) / cap;
    cr_assert_eq(sweep_cut(&s, &p, bound, start), ACS__SGS_CUT);
    for (int32_t i = 0; i < n; i++)
      cr_assert_eq(start[i], -1, "op %d started before the cut", i);
    cr_assert_eq(sweep_cut(&s, &p, bound + 1, start), s.makespan > bound ? ACS__SGS_CUT : ACS_OK);
    cr_assert_neq(start[0], -1, "the first ops start at 0");
    acs__bprep_destroy(&p);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

/* A sweep is cut exactly when it cannot end before the cutoff: at its own
 * makespan it is, one cycle above it it runs to the same starts. */
Test(barrier, sweep_cut_only_when_the_makespan_reaches_the_cutoff)
{
  for (uint64_t seed = 1; seed <= 30; seed++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs__bprep p;
    int64_t *full, *cut, m;

    tu_random_dag(&g, seed, 5 + (int32_t)(seed * 7 % 60), 1000);
    tu_problem(&pb, &g, NULL);
    tu_schedule_verified("list", &pb, &s);
    cr_assert_eq(acs__bprep_init(&p, &s), ACS_OK);
    full = malloc(((size_t)s.nops + 1) * sizeof(int64_t));
    cut = malloc(((size_t)s.nops + 1) * sizeof(int64_t));
    cr_assert(full && cut);
    cr_assert_eq(sweep_cut(&s, &p, INT64_MAX, full), ACS_OK);
    m = acs__sgs_makespan(&s, full);
    cr_assert_eq(sweep_cut(&s, &p, m, cut), ACS__SGS_CUT, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(sweep_cut(&s, &p, m + 1, cut), ACS_OK, "seed %llu", (unsigned long long)seed);
    for (int32_t i = 0; i < s.nops; i++)
      cr_assert_eq(cut[i], full[i], "seed %llu op %d", (unsigned long long)seed, i);
    free(full), free(cut);
    acs__bprep_destroy(&p);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

/* A sweep cut at one cutoff goes on, with a later one, exactly as a sweep
 * that was never cut: the pass resumes its first variant after a probe
 * (barrier_pass.c). Cut at the makespan, then let run; on 8 of these 30
 * DAGs the cut comes after some ops started (on the others, at once). */
Test(barrier, a_cut_sweep_goes_on_as_if_never_cut)
{
  int mid = 0;

  for (uint64_t seed = 1; seed <= 30; seed++) {
    struct tu_case c;
    struct acs__bprep p;
    struct acs__sgs *sg = NULL;
    struct acs_diag d;
    int64_t *full, *part, m;
    int32_t started = 0;
    struct acs__sgs_hooks hk = {NULL, start_always, NULL, NULL, 0, NULL, NULL};

    tu_case_random(&c, seed, 5 + (int32_t)(seed * 7 % 60));
    cr_assert_eq(acs__bprep_init(&p, &c.s), ACS_OK);
    full = malloc(((size_t)c.s.nops + 1) * sizeof(int64_t));
    part = malloc(((size_t)c.s.nops + 1) * sizeof(int64_t));
    cr_assert(full && part);
    cr_assert_eq(sweep_cut(&c.s, &p, INT64_MAX, full), ACS_OK);
    m = acs__sgs_makespan(&c.s, full);
    acs_diag_init(&d);
    hk.p = &p;
    hk.cutoff = m;
    cr_assert_eq(acs__sgs_new(&sg, &c.s, 0, &hk, part), ACS_OK);
    cr_assert_eq(acs__sgs_go(sg, &d), ACS__SGS_CUT, "seed %llu", (unsigned long long)seed);
    for (int32_t i = 0; i < c.s.nops; i++)
      started += part[i] >= 0;
    mid += started > 0 && started < c.s.nops;
    hk.cutoff = m + 1;
    cr_assert_eq(acs__sgs_go(sg, &d), ACS_OK, "seed %llu", (unsigned long long)seed);
    for (int32_t i = 0; i < c.s.nops; i++)
      cr_assert_eq(part[i], full[i], "seed %llu op %d", (unsigned long long)seed, i);
    acs__sgs_free(sg);
    free(full), free(part);
    acs__bprep_destroy(&p);
    tu_case_free(&c);
  }
  cr_assert_geq(mid, 5, "only %d of 30 sweeps were cut after some ops started", mid);
}

/* The first sweep runs first and alone when the barriers never hold the
 * plan back: with as many barriers as ops, one sweep and the plan kept;
 * with one barrier on a DAG with ops side by side, the plan slips and the
 * other variants run too. */
Test(barrier, a_plan_the_barriers_keep_takes_one_sweep)
{
  int slipped = 0;

  for (uint64_t seed = 1; seed <= 20; seed++) {
    struct tu_case c;
    struct acs_barrier_stats st;
    struct acs_diag d;
    int64_t m0;

    for (int b = 0; b < 2; b++) {
      tu_case_random(&c, seed, 10 + (int32_t)(seed * 3 % 40));
      m0 = c.s.makespan;
      c.s.barriers = b ? 1 : c.s.nops;
      acs_diag_init(&d);
      cr_assert_eq(acs__barrier_run(&c.s, &st, NULL, &d), ACS_OK, "%s", d.msg);
      tu_assert_verified(&c.s);
      if (!b)
        cr_assert(st.sweeps == 1 && c.s.makespan == m0, "seed %llu: %d sweeps, %lld -> %lld",
                  (unsigned long long)seed, st.sweeps, (long long)m0, (long long)c.s.makespan);
      else if (c.s.makespan > m0)
        slipped += st.sweeps > 1;
      tu_case_free(&c);
    }
  }
  cr_assert_geq(slipped, 10, "only %d of 20 DAGs slipped at one barrier and swept again", slipped);
}

/* The sweep may follow the reduced edges (hooks' `reduced`): an op starts
 * after its predecessors end, so its ancestors have ended when its reduced
 * predecessors have, and the starts must be those of a sweep over every
 * edge, with and without release times, on DAGs with implied edges. */
Test(barrier, the_reduced_edges_sweep_as_all_the_edges)
{
  int64_t implied = 0;

  for (uint64_t seed = 1; seed <= 30; seed++) {
    struct tu_case c;
    struct acs__bprep p;
    struct acs_diag d;
    int64_t *all, *red;

    tu_case_random(&c, seed, 5 + (int32_t)(seed * 11 % 80));
    for (int32_t e = 0, m = c.s.nedges; e < m; e++) /* u -> w -> x implies u -> x */
      for (int32_t f = 0; f < m; f++)
        if (c.s.edges[f].src == c.s.edges[e].dst && (e + f) % 3 == 0)
          cr_assert_eq(acs_schedule_add_edge(&c.s, c.s.edges[e].src, c.s.edges[f].dst,
                                             ACS_EDGE_CONTROL), ACS_OK);
    cr_assert_eq(acs__bprep_init(&p, &c.s), ACS_OK);
    implied += p.edges - p.reduced;
    all = malloc(((size_t)c.s.nops + 1) * sizeof(int64_t));
    red = malloc(((size_t)c.s.nops + 1) * sizeof(int64_t));
    cr_assert(all && red);
    for (int release = 0; release < 2; release++) {
      struct acs__sgs_hooks hk = {NULL, start_always, NULL, NULL, INT64_MAX, NULL, NULL};
      acs_diag_init(&d);
      cr_assert_eq(acs__sgs_run(&c.s, release, &hk, all, &d), ACS_OK);
      hk.reduced = &p;
      cr_assert_eq(acs__sgs_run(&c.s, release, &hk, red, &d), ACS_OK);
      for (int32_t i = 0; i < c.s.nops; i++)
        cr_assert_eq(red[i], all[i], "seed %llu release %d op %d", (unsigned long long)seed,
                     release, i);
    }
    free(all), free(red);
    acs__bprep_destroy(&p);
    tu_case_free(&c);
  }
  cr_assert_gt(implied, 20, "only %lld implied edges in 30 DAGs", (long long)implied);
}

/* One sweep of the allocator under `policy` with release times; starts in
 * start[]. */
static void sweep_policy(const struct acs_schedule *s, const struct acs__bprep *p, int policy,
                         int64_t *start)
{
  struct acs__balloc *a;
  struct acs_barrier_stats st;
  struct acs__sgs_hooks hk;
  struct acs_diag d;

  memset(&st, 0, sizeof(st));
  acs_diag_init(&d);
  cr_assert_eq(acs__balloc_init(&a, s, p, policy, &st), ACS_OK);
  acs__balloc_hooks(a, &hk);
  hk.interrupted = NULL;
  hk.p = NULL;
  hk.cutoff = INT64_MAX;
  hk.plan_rank = p->rank;
  hk.reduced = p;
  cr_assert_eq(acs__sgs_run(s, 1, &hk, start, &d), ACS_OK, "%s", d.msg);
  acs__balloc_destroy(a);
}

/*
 * By hand, on two barriers and eight PEs: z (1000 cycles) and the load l
 * (10) start at 0 on a barrier each; w0..w3 (100 each, one consumer class:
 * after l, before the store s) have latest starts of 890 by the edges.
 * When l ends at 10, w0 may take l's barrier, where w1..w3 still wait:
 * no op passes its latest start, so the cost policy takes it, and w1..w3
 * then wait on w0's use, which they cannot join: each takes the barrier
 * in turn (starts 10, 110, 210, 310). With ACS__BP_KEEP_CLASS that take
 * holds back w1..w3, which could start beside w0, so it is not made;
 * sharing z's use costs the store 10 cycles past its latest start (990)
 * against 110 for waiting for z, so w0 shares it, w1..w3 join, and all
 * four start at 10.
 */
Test(barrier, keep_class_runs_a_class_side_by_side)
{
  enum { Z, L, W0, W1, W2, W3, S, N };
  static const int32_t e[][2] = {{L, W0}, {L, W1}, {L, W2}, {L, W3},
                                 {W0, S}, {W1, S}, {W2, S}, {W3, S}};
  static const int64_t dur[N] = {1000, 10, 100, 100, 100, 100, 10};
  static const char *const sets[] = {"pe_count=8", NULL};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs__bprep p;
  int64_t start[N + 1], sorted[4];

  tu_small_graph(&g, N, dur, e, 8);
  tu_problem(&pb, &g, sets);
  tu_schedule_verified("list", &pb, &s);
  cr_assert_eq(s.makespan, 1000);
  s.barriers = 2;
  cr_assert_eq(acs__bprep_init(&p, &s), ACS_OK);
  for (int32_t w = W0; w <= W3; w++)
    cr_assert_eq(p.lst[w], 890);

  sweep_policy(&s, &p, ACS__BP_COST, start);
  memcpy(sorted, start + W0, sizeof(sorted));
  acs_sort_i64(sorted, 4);
  for (int k = 0; k < 4; k++)
    cr_assert_eq(sorted[k], 10 + 100 * k, "without: the class runs one after another");

  sweep_policy(&s, &p, ACS__BP_COST | ACS__BP_KEEP_CLASS, start);
  for (int32_t w = W0; w <= W3; w++)
    cr_assert_eq(start[w], 10, "with: w%d starts at %lld", w - W0, (long long)start[w]);
  cr_assert_eq(start[S], 1000);
  acs__bprep_destroy(&p);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}
