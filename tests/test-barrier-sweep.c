/*
 * test-barrier-sweep.c - the barrier pass's time sweep (barrier_int.h):
 * where it is cut short of a cutoff, and that a cut sweep resumes as if it
 * had never stopped, and that it may follow the reduced edges.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
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
      cr_assert_eq(acs__barrier_run(&c.s, &st, 0, NULL, &d), ACS_OK, "%s", d.msg);
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

/* One sweep of the allocator under `policy`, with release times or not;
 * starts in start[]. */
static void sweep_policy(const struct acs_schedule *s, const struct acs__bprep *p, int policy,
                         int release, int64_t *start)
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
  cr_assert_eq(acs__sgs_run(s, release, &hk, start, &d), ACS_OK, "%s", d.msg);
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

  sweep_policy(&s, &p, ACS__BP_COST, 1, start);
  memcpy(sorted, start + W0, sizeof(sorted));
  acs_sort_i64(sorted, 4);
  for (int k = 0; k < 4; k++)
    cr_assert_eq(sorted[k], 10 + 100 * k, "without: the class runs one after another");

  sweep_policy(&s, &p, ACS__BP_COST | ACS__BP_KEEP_CLASS, 1, start);
  for (int32_t w = W0; w <= W3; w++)
    cr_assert_eq(start[w], 10, "with: w%d starts at %lld", w - W0, (long long)start[w]);
  cr_assert_eq(start[S], 1000);
  acs__bprep_destroy(&p);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Streams of layer steps as the NPU lowering makes them: per step a load,
 * then `tiles` tiles (one consumer class: after the load, before the
 * store and the next step's load), then a store; `streams` such streams
 * side by side, durations drawn from the seed.
 */
static void stepped_streams(struct acs_graph *g, uint64_t seed, int streams, int steps, int tiles)
{
  struct acs_rng r;
  char name[48];

  acs_rng_seed(&r, seed);
  tu_graph_npu(g, "steps");
  for (int k = 0; k < streams; k++) {
    int32_t prev_tiles = -1;
    for (int j = 0; j < steps; j++) {
      int32_t load, first, store;
      snprintf(name, sizeof(name), "s%d.l%d", k, j);
      load = tu_op(g, name, ACS_OP_SHAVE, 5 + (int64_t)acs_rng_below(&r, 40));
      for (int i = 0; prev_tiles >= 0 && i < tiles; i++)
        tu_edge(g, prev_tiles + i, load);
      first = -1;
      for (int i = 0; i < tiles; i++) {
        int32_t w;
        snprintf(name, sizeof(name), "s%d.t%d.%d", k, j, i);
        w = tu_op(g, name, ACS_OP_SHAVE, 20 + (int64_t)acs_rng_below(&r, 80));
        first = first < 0 ? w : first;
        tu_edge(g, load, w);
      }
      snprintf(name, sizeof(name), "s%d.o%d", k, j);
      store = tu_op(g, name, ACS_OP_SHAVE, 5 + (int64_t)acs_rng_below(&r, 20));
      for (int i = 0; i < tiles; i++)
        tu_edge(g, first + i, store);
      prev_tiles = first;
    }
  }
  tu_finalize(g);
}

/*
 * Stepped streams at 2 to 4 barriers, 24 seeds: a sweep by cost that
 * keeps classes together is often shorter than one that splits them (the
 * tiles of a step run side by side instead of one after another; 13 of
 * the 24 when this was written, none longer by more than 10%), and the
 * pass, which runs both with and without release times among its
 * sweeps, is never longer than either.
 */
Test(barrier, keeping_classes_pays_on_stepped_streams)
{
  int paid = 0;

  for (uint64_t seed = 1; seed <= 24; seed++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs__bprep p;
    struct acs_barrier_stats st;
    struct acs_diag d;
    int64_t *start, plain = INT64_MAX, kept = INT64_MAX;

    stepped_streams(&g, seed, 2 + (int)(seed % 2), 3 + (int)(seed % 4), 2 + (int)(seed % 3));
    tu_problem(&pb, &g, NULL);
    tu_schedule_verified("list", &pb, &s);
    s.barriers = 2 + (int32_t)(seed % 3);
    cr_assert_eq(acs__bprep_init(&p, &s), ACS_OK);
    cr_assert(start = malloc(((size_t)s.nops + 1) * sizeof(int64_t)));
    for (int release = 0; release < 2; release++) {
      int64_t m;
      sweep_policy(&s, &p, ACS__BP_COST, release, start);
      m = acs__sgs_makespan(&s, start);
      plain = m < plain ? m : plain;
      sweep_policy(&s, &p, ACS__BP_COST | ACS__BP_KEEP_CLASS, release, start);
      m = acs__sgs_makespan(&s, start);
      kept = m < kept ? m : kept;
    }
    free(start);
    acs__bprep_destroy(&p);
    paid += kept < plain;
    cr_assert_leq(kept, plain + plain / 10, "seed %llu: %lld keeping classes, %lld splitting",
                  (unsigned long long)seed, (long long)kept, (long long)plain);
    acs_diag_init(&d);
    cr_assert_eq(acs__barrier_run(&s, &st, 0, NULL, &d), ACS_OK, "%s", d.msg);
    tu_assert_verified(&s);
    cr_assert(s.makespan <= plain && s.makespan <= kept, "seed %llu: %lld after the pass",
              (unsigned long long)seed, (long long)s.makespan);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  cr_assert_geq(paid, 8, "keeping classes together was shorter on only %d of 24", paid);
}

enum { MAX_VARIANTS = 32 };

/* The makespan of each variant of the pass run alone to its end on s (the
 * variants beyond its size: INT64_MAX), in m[]; returns how many there are
 * (at most MAX_VARIANTS, the room in m, policy and release). */
static int every_variant(const struct acs_schedule *s, const struct acs__bprep *p, int64_t *m,
                         int *policy, int *release)
{
  int32_t max_ops;
  int64_t *start;
  int k;

  cr_assert(start = malloc(((size_t)s->nops + 1) * sizeof(int64_t)));
  for (k = 0; k < MAX_VARIANTS && acs__barrier_variant(k, &policy[k], &release[k], &max_ops) == ACS_OK;
       k++) {
    m[k] = INT64_MAX;
    if (s->nops > max_ops)
      continue;
    sweep_policy(s, p, policy[k], release[k], start);
    m[k] = acs__sgs_makespan(s, start);
  }
  free(start);
  return k;
}

/*
 * Whatever order the pass runs its sweeps in and wherever it cuts them, it
 * keeps the sweep that beats the others when each runs alone to its end:
 * the first variant when it keeps the planned makespan, else the shortest,
 * ties to the variant first in the table; and when the first variant
 * cannot keep the plan, it runs every variant its size allows (max_ops),
 * no more. Random DAGs of 60 to 2,600 ops
 * and stepped streams at 2 to 8 barriers: all fourteen variants and the
 * eight up to 5,000 ops, plans kept and not, and ties between variants;
 * the pass on one to four threads.
 */
Test(barrier, the_pass_keeps_the_sweep_that_beats_all_run_to_the_end)
{
  int ties = 0, kinds = 0, seen[MAX_VARIANTS] = {0};

  for (uint64_t seed = 1; seed <= 16; seed++) {
    struct tu_case c;
    struct acs__bprep p;
    struct acs_barrier_stats st;
    struct acs_diag d;
    int64_t m[MAX_VARIANTS], plan;
    int policy[MAX_VARIANTS], release[MAX_VARIANTS], n, win = 0;

    if (seed % 4 == 0) {
      stepped_streams(&c.g, seed, 2 + (int)(seed % 3), 3 + (int)(seed % 4), 3);
      tu_problem(&c.pb, &c.g, NULL);
      tu_schedule_verified("list", &c.pb, &c.s);
    } else {
      tu_case_random(&c, seed, seed % 4 == 3 ? 2600 : 60 + 40 * (int32_t)seed);
    }
    c.s.barriers = 2 + (int32_t)(seed % 7);
    plan = c.s.makespan;
    cr_assert_eq(acs__bprep_init(&p, &c.s), ACS_OK);
    cr_assert_lt(n = every_variant(&c.s, &p, m, policy, release), MAX_VARIANTS,
                 "more sweep variants than this test has room for");
    acs__bprep_destroy(&p);
    if (m[0] > plan)
      for (int k = 1; k < n; k++)
        win = m[k] < m[win] ? k : win;
    for (int k = 0; k < n; k++)
      ties += k != win && m[k] == m[win] && m[win] > plan;
    kinds += !seen[win];
    seen[win] = 1;
    acs_diag_init(&d);
    cr_assert_eq(acs__barrier_run(&c.s, &st, 1 + (int)(seed % 4), NULL, &d), ACS_OK, "%s",
                 d.msg);
    tu_assert_verified(&c.s);
    cr_assert_eq(c.s.makespan, m[win], "seed %llu: %lld kept, variant %d alone %lld",
                 (unsigned long long)seed, (long long)c.s.makespan, win, (long long)m[win]);
    cr_assert(st.policy == policy[win] && st.released == release[win],
              "seed %llu: kept policy %d release %d, variant %d is %d %d",
              (unsigned long long)seed, st.policy, st.released, win, policy[win], release[win]);
    if (m[0] > plan) { /* every variant the schedule's size allows ran */
      int ran = 0;
      for (int k = 0; k < n; k++)
        ran += m[k] != INT64_MAX;
      cr_assert_eq(st.sweeps, ran, "seed %llu: %d sweeps for %d variants of %d ops",
                   (unsigned long long)seed, st.sweeps, ran, c.s.nops);
    }
    tu_case_free(&c);
  }
  cr_assert_geq(kinds, 3, "only %d variants won", kinds);
  cr_assert_geq(ties, 1, "no ties between variants: the rule for them went untested");
}

/* The program and what the pass reports of it, a against b. */
static void assert_same_program(const struct acs_schedule *a, const struct acs_schedule *b,
                                const struct acs_barrier_stats *sa,
                                const struct acs_barrier_stats *sb, const char *what)
{
  cr_assert(a->makespan == b->makespan && a->nops == b->nops && a->nedges == b->nedges &&
                a->nwaits == b->nwaits,
            "%s: makespan %lld/%lld, edges %d/%d, waits %d/%d", what, (long long)a->makespan,
            (long long)b->makespan, a->nedges, b->nedges, a->nwaits, b->nwaits);
  for (int32_t i = 0; i < a->nops; i++)
    cr_assert(a->ops[i].start == b->ops[i].start &&
                  a->ops[i].update_barrier == b->ops[i].update_barrier &&
                  a->ops[i].unit == b->ops[i].unit,
              "%s: op %d", what, i);
  for (int32_t k = 0; k < a->nwaits; k++)
    cr_assert(a->waits[k].op == b->waits[k].op && a->waits[k].barrier == b->waits[k].barrier,
              "%s: wait %d", what, k);
  for (int32_t e = 0; e < a->nedges; e++)
    cr_assert(a->edges[e].src == b->edges[e].src && a->edges[e].dst == b->edges[e].dst &&
                  a->edges[e].kind == b->edges[e].kind,
              "%s: edge %d", what, e);
  cr_assert(sa->policy == sb->policy && sa->released == sb->released &&
                sa->sweeps == sb->sweeps && sa->attempts == sb->attempts &&
                sa->uses == sb->uses && sa->steals == sb->steals,
            "%s: policy %d/%d, release %d/%d, sweeps %d/%d, attempts %lld/%lld", what,
            sa->policy, sb->policy, sa->released, sb->released, sa->sweeps, sb->sweeps,
            (long long)sa->attempts, (long long)sb->attempts);
}

/*
 * The program does not depend on how many threads the pass runs its
 * sweeps on, nor on which sweep ends first: random DAGs of 1,400 to 3,400
 * ops at 2 to 32 barriers, on one thread against two, three and four, each
 * run twice (the sweeps race differently from run to run).
 */
Test(barrier, the_pass_keeps_the_same_program_on_any_number_of_threads)
{
  static const int32_t barriers[] = {2, 4, 8, 16, 32};
  int several = 0;

  for (uint64_t seed = 1; seed <= 6; seed++) {
    struct tu_case c;
    struct acs_schedule one;
    struct acs_barrier_stats st1, st;
    struct acs_diag d;
    char what[64];

    tu_case_random(&c, seed, 1000 + 400 * (int32_t)seed);
    c.s.barriers = barriers[seed % 5];
    cr_assert_eq(acs_schedule_copy(&one, &c.s), ACS_OK);
    acs_diag_init(&d);
    cr_assert_eq(acs__barrier_run(&one, &st1, 1, NULL, &d), ACS_OK, "%s", d.msg);
    several += st1.sweeps > 1;
    for (int threads = 2; threads <= 4; threads++)
      for (int rep = 0; rep < 2; rep++) {
        struct acs_schedule s;
        cr_assert_eq(acs_schedule_copy(&s, &c.s), ACS_OK);
        cr_assert_eq(acs__barrier_run(&s, &st, threads, NULL, &d), ACS_OK, "%s", d.msg);
        snprintf(what, sizeof(what), "seed %llu, %d threads", (unsigned long long)seed, threads);
        assert_same_program(&one, &s, &st1, &st, what);
        acs_schedule_destroy(&s);
      }
    acs_schedule_destroy(&one);
    tu_case_free(&c);
  }
  cr_assert_geq(several, 4, "only %d cases ran more than one sweep", several);
}
