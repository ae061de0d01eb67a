/*
 * test-barrier-exec.c - barrier programs in executions other than the plan,
 * and small programs worked out by hand.
 *
 * The property: the program the pass builds keeps the hardware rule in
 * every execution that respects the schedule's edges. Executions here are
 * drawn at random (durations and start delays from a seeded generator,
 * never the clock) and run over the edges alone; the rule is then checked
 * on their times with the uses read back from the schedule (bprog.h):
 * every consumer starts after every producer of its use has ended, a
 * barrier's next use has no producer start before the previous use is
 * complete (producers ended, consumers started), and no more than
 * `barriers` uses are live at any instant. The width the verifier's
 * Dilworth computation finds (chain-based, bprog_width.c) is compared with
 * a second method: the order of uses built here from a closure of the
 * edges, its width by bitset matching (antichain.h, itself checked against
 * brute force in test-barrier.c).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/antichain.h"
#include "core/model/bprog.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

/* ---- helpers ---- */

static void pass_ok(struct acs_schedule *s, int32_t b, int32_t p)
{
  struct acs_diag d;
  int err;

  s->barriers = b;
  s->barrier_slots = p;
  acs_diag_init(&d);
  err = acs_barrier_pass(NULL, s, NULL, &d);
  cr_assert_eq(err, ACS_OK, "barrier pass: %s: %s", acs_strerror(err), d.msg);
  tu_assert_verified(s);
}

/* The barriers op v waits on, as a bit set (barrier ids < 64). */
static uint64_t waits_of(const struct acs_schedule *s, int32_t v)
{
  uint64_t m = 0;

  for (int32_t w = 0; w < s->nwaits; w++)
    if (s->waits[w].op == v)
      m |= (uint64_t)1 << s->waits[w].barrier;
  return m;
}

static int32_t control_edges(const struct acs_schedule *s)
{
  int32_t n = 0;

  for (int32_t e = 0; e < s->nedges; e++)
    n += s->edges[e].kind == ACS_EDGE_CONTROL;
  return n;
}

/* ---- random executions ---- */

/*
 * An execution of s's edges: ops in a topological order (Kahn, by id);
 * each starts a random delay after its last predecessor ends and runs a
 * random duration (0 to twice its planned one, plus one cycle, so that
 * zero-length ops sometimes take time and others sometimes none).
 */
static void execute(const struct acs_schedule *s, struct acs_rng *r, int64_t *st, int64_t *en)
{
  int32_t n = s->nops, head = 0, tail = 0;
  int32_t *indeg = calloc((size_t)n + 1, sizeof(int32_t)), *q = malloc(sizeof(int32_t) * ((size_t)n + 1));

  cr_assert(indeg && q);
  for (int32_t e = 0; e < s->nedges; e++)
    indeg[s->edges[e].dst]++;
  for (int32_t v = 0; v < n; v++) {
    st[v] = 0;
    if (indeg[v] == 0)
      q[tail++] = v;
  }
  while (head < tail) {
    int32_t v = q[head++];
    st[v] += acs_rng_below(r, 2) ? 0 : (int64_t)acs_rng_below(r, 50);
    en[v] = st[v] + (int64_t)acs_rng_below(r, (uint64_t)(2 * s->ops[v].dur + 2));
    for (int32_t e = 0; e < s->nedges; e++)
      if (s->edges[e].src == v) {
        int32_t w = s->edges[e].dst;
        st[w] = st[w] > en[v] ? st[w] : en[v];
        if (--indeg[w] == 0)
          q[tail++] = w;
      }
  }
  cr_assert_eq(tail, n, "the edges have a cycle");
  free(indeg), free(q);
}

struct ev {
  int64_t t;
  int d;
};

static int cmp_ev(const void *x, const void *y)
{
  const struct ev *a = x, *b = y;

  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  return a->d - b->d; /* a use completes before the next starts at the same instant */
}

/* The hardware rule on one execution (see the file comment): NULL when it
 * holds, else what broke it (in a static buffer). */
static const char *rule_broken(const struct acs_schedule *s, const struct acs_bprog *bp,
                               const int64_t *st, const int64_t *en)
{
  static char why[256];
  int64_t *done = malloc(sizeof(int64_t) * ((size_t)bp->nuses + 1));
  struct ev *ev = malloc(sizeof(struct ev) * (2 * (size_t)bp->nuses + 1));
  int32_t live = 0;

  cr_assert(done && ev);
  why[0] = '\0';
  for (int32_t u = 0; u < bp->nuses && !why[0]; u++) {
    int64_t pend = 0, first = INT64_MAX;
    for (int32_t k = bp->prod_off[u]; k < bp->prod_off[u + 1]; k++) {
      pend = en[bp->prod[k]] > pend ? en[bp->prod[k]] : pend;
      first = st[bp->prod[k]] < first ? st[bp->prod[k]] : first;
    }
    done[u] = pend;
    for (int32_t k = bp->cons_off[u]; k < bp->cons_off[u + 1]; k++) {
      int32_t c = bp->cons[k];
      if (st[c] < pend)
        snprintf(why, sizeof(why), "'%s' starts before a producer of barrier %d ends",
                 s->ops[c].name, bp->barrier[u]);
      done[u] = st[c] > done[u] ? st[c] : done[u];
    }
    if (bp->prev[u] >= 0 && first < done[bp->prev[u]])
      snprintf(why, sizeof(why), "barrier %d reprogrammed before its previous use completed",
               bp->barrier[u]);
    ev[2 * u] = (struct ev){first, 1};
    ev[2 * u + 1] = (struct ev){done[u], -1};
  }
  if (!why[0])
    qsort(ev, 2 * (size_t)bp->nuses, sizeof(*ev), cmp_ev);
  for (int32_t k = 0; k < 2 * bp->nuses && !why[0]; k++)
    if ((live += ev[k].d) > s->barriers)
      snprintf(why, sizeof(why), "%d uses live at once", live);
  free(done), free(ev);
  return why[0] ? why : NULL;
}

/* The width of the order of uses by a second method: the closure of the
 * edges (rows of descendants), the order X < Y when every member of X's
 * end is or reaches every producer of Y, and bitset matching. */
static int32_t width_by_closure(const struct acs_schedule *s, const struct acs_bprog *bp)
{
  size_t w = acs_bits_words(s->nops), uw = acs_bits_words(bp->nuses);
  uint64_t *rows = calloc((size_t)s->nops * w + 1, sizeof(uint64_t));
  uint64_t *urows = calloc((size_t)bp->nuses * uw + 1, sizeof(uint64_t));
  int32_t width = -1;

  cr_assert(rows && urows);
  acs_dag_descendants(s->nops, bp->succ_off, bp->succ, bp->order, rows);
  for (int32_t x = 0; x < bp->nuses; x++) {
    int cons = bp->cons_off[x + 1] > bp->cons_off[x];
    const int32_t *m = cons ? bp->cons + bp->cons_off[x] : bp->prod + bp->prod_off[x];
    int32_t nm = cons ? bp->cons_off[x + 1] - bp->cons_off[x] : bp->prod_off[x + 1] - bp->prod_off[x];
    for (int32_t y = 0; y < bp->nuses; y++) {
      int before = y != x;
      for (int32_t i = 0; i < nm && before; i++)
        for (int32_t j = bp->prod_off[y]; j < bp->prod_off[y + 1] && before; j++)
          before = m[i] == bp->prod[j] || acs_bit_get(rows + (size_t)m[i] * w, bp->prod[j]);
      if (before)
        acs_bit_set(urows + (size_t)x * uw, y);
    }
  }
  cr_assert_eq(acs_poset_width(bp->nuses, urows, uw, &width, NULL), ACS_OK);
  free(rows), free(urows);
  return width;
}

/*
 * 600 random DAGs of 2 to 70 ops (DPU ops of 1 to 3 slots) on 1 to 4 PEs,
 * with 1 to 8 barriers of 0 (none), 1, 3 or 8 slots, each program run in
 * 25 random executions; and the exact width against the second method.
 * Fails without the rule: a program whose uses of a barrier were not
 * ordered by edges, or that kept more than `barriers` uses live, would
 * break it in some of these executions.
 */
Test(barrier_exec, random_executions_keep_the_hardware_rule, .timeout = 600)
{
  static const int32_t slots[] = {0, 1, 3, 8};

  for (uint64_t seed = 1; seed <= 600; seed++) {
    struct acs_rng r;
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_bprog bp;
    int32_t n, b, p, uw = -1;
    int64_t *st, *en;
    char pe[32];
    const char *sets[] = {pe, NULL};

    acs_rng_seed(&r, seed * 104729);
    n = 2 + (int32_t)acs_rng_below(&r, 69);
    b = 1 + (int32_t)acs_rng_below(&r, 8);
    p = slots[acs_rng_below(&r, 4)];
    snprintf(pe, sizeof(pe), "pe_count=%d", 1 + (int)acs_rng_below(&r, 4));
    tu_random_dag(&g, seed + 7, n, 100000);
    for (int32_t i = 0; i < n; i++)
      if (g.ops[i].kind == ACS_OP_DPU)
        g.ops[i].slots = 1 + (int32_t)acs_rng_below(&r, p == 1 ? 1 : 3);
    tu_problem(&pb, &g, sets);
    tu_schedule_verified("list", &pb, &s);
    pass_ok(&s, b, p);
    cr_assert_eq(acs_bprog_build(&s, &bp), ACS_OK);
    st = malloc(sizeof(int64_t) * (size_t)n);
    en = malloc(sizeof(int64_t) * (size_t)n);
    cr_assert(st && en);
    for (int k = 0; k < 25; k++) {
      const char *why;
      execute(&s, &r, st, en);
      why = rule_broken(&s, &bp, st, en);
      cr_assert_null(why, "seed %llu: %s", (unsigned long long)seed, why);
    }
    cr_assert_eq(acs_bprog_use_width(&s, &uw), ACS_OK);
    cr_assert_eq(uw, width_by_closure(&s, &bp), "seed %llu", (unsigned long long)seed);
    cr_assert_leq(uw, b);
    free(st), free(en);
    acs_bprog_destroy(&bp);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

/*
 * The exact width where barriers are many and each carries few uses, so
 * that the matching starts by joining chains (a barrier's last use to
 * another's first, bprog_width.c): 60 random DAGs of 80 to 240 ops on 16
 * to 256 barriers, against the width of the closure. A join that broke
 * the matching, or a greedy start the rounds did not finish, would give
 * another width.
 */
Test(barrier_exec, exact_width_on_many_barriers_matches_the_closure)
{
  int joined = 0;

  for (uint64_t seed = 1; seed <= 60; seed++) {
    struct acs_rng r;
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_bprog bp;
    int32_t n, b, uw = -1, used = 0;

    acs_rng_seed(&r, seed * 7919);
    n = 80 + (int32_t)acs_rng_below(&r, 161);
    b = 16 << acs_rng_below(&r, 5);
    tu_random_dag(&g, seed + 1000, n, 100000);
    tu_problem(&pb, &g, (const char *[]){"pe_count=4", NULL});
    tu_schedule_verified("list", &pb, &s);
    pass_ok(&s, b, 0);
    cr_assert_eq(acs_bprog_build(&s, &bp), ACS_OK);
    for (int32_t x = 0; x < bp.nuses; x++)
      used = bp.barrier[x] + 1 > used ? bp.barrier[x] + 1 : used;
    cr_assert_eq(acs_bprog_use_width(&s, &uw), ACS_OK);
    cr_assert_eq(uw, width_by_closure(&s, &bp), "seed %llu", (unsigned long long)seed);
    joined += uw < used; /* fewer live at once than barriers in use */
    acs_bprog_destroy(&bp);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  cr_assert_gt(joined, 30, "%d of 60 programs needed chains joined", joined);
}

/*
 * The check above catches a program that breaks the rule: a and b update
 * barrier 0, b opening its second use (b follows x, which consumed a's
 * use) while y, another consumer of a's use, only follows a. In executions
 * where y starts late, barrier 0 is reprogrammed before y has started.
 */
Test(barrier_exec, random_executions_catch_an_early_reuse)
{
  enum { A, X, B, Y, N };
  static const int32_t e[][2] = {{A, X}, {X, B}, {A, Y}};
  static const int64_t dur[N] = {10, 10, 10, 10};
  static const int32_t upd[N] = {0, 1, 0, 2};
  static const int32_t waits[][2] = {{X, 0}, {B, 1}, {Y, 0}};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_bprog bp;
  struct acs_rng r;
  int64_t st[N], en[N];
  int broken = 0;

  tu_small_graph(&g, N, dur, e, 3);
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  s.barriers = 3;
  for (int32_t i = 0; i < N; i++)
    s.ops[i].update_barrier = upd[i];
  for (int k = 0; k < 3; k++)
    cr_assert_eq(acs_schedule_add_wait(&s, waits[k][0], waits[k][1]), ACS_OK);
  cr_assert_eq(acs_bprog_build(&s, &bp), ACS_OK);
  cr_assert_eq(bp.nuses, 4, "a's use, b's use of barrier 0, x's, y's");
  acs_rng_seed(&r, 11);
  for (int k = 0; k < 25; k++) {
    execute(&s, &r, st, en);
    broken += rule_broken(&s, &bp, st, en) != NULL;
  }
  cr_assert_gt(broken, 0);
  acs_bprog_destroy(&bp);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- hand-worked programs ---- */

/*
 * a -> b -> c and a -> c, each 10 cycles, 4 barriers. The edge a -> c is
 * implied by a -> b -> c, so c waits only on b's barrier (one wait) and a's
 * use has one consumer, b. Nothing is added and the plan (0, 10, 20) stays.
 */
Test(barrier_exec, implied_edges_need_no_wait)
{
  enum { A, B, C, N };
  static const int32_t e[][2] = {{A, B}, {B, C}, {A, C}};
  static const int64_t dur[N] = {10, 10, 10};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_bprog bp;
  int32_t base;

  tu_small_graph(&g, N, dur, e, 3);
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  base = s.nedges;
  pass_ok(&s, 4, 0);
  cr_assert_eq(s.nedges, base);
  cr_assert_eq(waits_of(&s, C), (uint64_t)1 << s.ops[B].update_barrier);
  cr_assert_eq(waits_of(&s, B), (uint64_t)1 << s.ops[A].update_barrier);
  cr_assert_eq(acs_bprog_build(&s, &bp), ACS_OK);
  cr_assert_eq(bp.cons_off[bp.use_of[A] + 1] - bp.cons_off[bp.use_of[A]], 1);
  cr_assert_eq(s.makespan, 30);
  acs_bprog_destroy(&bp);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * a and b (10 cycles, in parallel on 2 PEs) both feed c and d (10 each):
 * a and b have the same consumers, so they share one use of one barrier,
 * which c and d wait on. With 2 barriers c and d then share a second use
 * (both are sinks, running together): no edge is added, makespan 20.
 * With 1 barrier, the barrier's next use must wait until both c and d
 * have started and (an edge orders an end before a start) ended, unless
 * its producer is the only consumer still to start; c and d cannot both
 * be that, so one runs after the other: makespan 30, one control edge.
 */
Test(barrier_exec, same_consumers_share_a_use)
{
  enum { A, B, C, D, N };
  static const int32_t e[][2] = {{A, C}, {A, D}, {B, C}, {B, D}};
  static const int64_t dur[N] = {10, 10, 10, 10};
  static const char *const sets[] = {"pe_count=2", NULL};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_bprog bp;
  int32_t base;

  tu_small_graph(&g, N, dur, e, 4);
  tu_problem(&pb, &g, sets);
  tu_schedule_verified("list", &pb, &s);
  base = s.nedges;
  pass_ok(&s, 2, 0);
  cr_assert_eq(acs_bprog_build(&s, &bp), ACS_OK);
  cr_assert_eq(bp.use_of[A], bp.use_of[B]);
  cr_assert_eq(bp.use_of[C], bp.use_of[D]);
  cr_assert_eq(bp.nuses, 2);
  cr_assert_eq(s.nedges, base);
  cr_assert_eq(s.makespan, 20);
  acs_bprog_destroy(&bp);
  acs_schedule_destroy(&s);
  tu_schedule_verified("list", &pb, &s);
  pass_ok(&s, 1, 0);
  cr_assert_eq(s.makespan, 30);
  cr_assert_eq(control_edges(&s), 1);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * The budget the issue names as too small, one barrier of one slot for an
 * op with two independent successors: a program exists (one barrier can
 * order every op), so the pass builds it rather than refusing: a, then
 * its successors one after the other, makespan 5 + 10 + 20 with the
 * successors running in parallel otherwise (25 on 2 PEs). Only limits the
 * model cannot number, or an op over the slots, are infeasible, and then
 * the schedule is left as it was.
 */
Test(barrier_exec, limits_no_program_can_meet_are_infeasible)
{
  enum { A, X, Y, N };
  static const int32_t e[][2] = {{A, X}, {A, Y}};
  static const int64_t dur[N] = {5, 10, 20};
  static const char *const sets[] = {"pe_count=2", NULL};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;

  tu_small_graph(&g, N, dur, e, 2);
  tu_problem(&pb, &g, sets);
  tu_schedule_verified("list", &pb, &s);
  cr_assert_eq(s.makespan, 25);
  pass_ok(&s, 1, 1);
  cr_assert_eq(s.makespan, 35);
  acs_schedule_destroy(&s);

  tu_schedule_verified("list", &pb, &s);
  s.barriers = ACS_BARRIERS_MAX + 1;
  acs_diag_init(&d);
  cr_assert_eq(acs_barrier_pass(NULL, &s, NULL, &d), ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "65537 barriers") && strstr(d.msg, "at most 65536"), "%s", d.msg);
  s.barriers = 4;
  s.barrier_slots = ACS_BARRIER_SLOTS_MAX + 1;
  acs_diag_init(&d);
  cr_assert_eq(acs_barrier_pass(NULL, &s, NULL, &d), ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "65537 barrier slots"), "%s", d.msg);
  s.barrier_slots = -1;
  acs_diag_init(&d);
  cr_assert_eq(acs_barrier_pass(NULL, &s, NULL, &d), ACS_EINFEASIBLE);
  for (int32_t i = 0; i < N; i++)
    cr_assert_eq(s.ops[i].update_barrier, -1, "the schedule is left as it was");
  cr_assert_eq(s.nwaits, 0);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * The verifier names the op and the barrier: a and b update barrier 0 in
 * one use (b follows nothing in it), c follows a only but waits on barrier
 * 0, so the hardware makes c wait for b too, which no path of edges says.
 * Then an edge no wait enforces: with c's wait dropped, a -> c is kept by
 * nothing.
 */
Test(barrier_exec, verifier_names_the_op_and_the_barrier)
{
  enum { A, B, C, N };
  static const int32_t e[][2] = {{A, C}};
  static const int64_t dur[N] = {10, 10, 10};
  static const char *const sets[] = {"pe_count=2", NULL};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;

  tu_small_graph(&g, N, dur, e, 1);
  tu_problem(&pb, &g, sets);
  tu_schedule_verified("list", &pb, &s);
  s.barriers = 2;
  s.ops[A].update_barrier = s.ops[B].update_barrier = 0;
  s.ops[C].update_barrier = 1;
  cr_assert_eq(acs_schedule_add_wait(&s, C, 0), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "'c' waits on barrier 0, so it runs after 'b'"), "%s", d.msg);
  s.nwaits = 0;
  s.ops[B].update_barrier = 1;
  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "'a' precedes 'c' but 'c' does not wait on barrier 0"), "%s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * A planner that timed two DDR transfers itself, sharing the link: x and y
 * move 8,000 bytes each over [0, 1600) side by side, and c follows both.
 * The default platform's link carries 8 GB/s at 700 MHz, 11.43 bytes a
 * cycle, which is also one transfer's full rate: one lane. The pass's
 * re-timing runs every transfer it times at the full rate, 100 cycles of
 * latency + 8,000 / 11.43 = 700 cycles of bytes = 800 cycles, and holds
 * the lane only while the bytes move: x [0, 800) moves its bytes over
 * [100, 800), so y may start at 700 (no op ends then: the lane's own
 * decision time) and moves its bytes over [800, 1500). Holding the lane
 * for the latency too would give y [800, 1600). c keeps its planned start,
 * 1600: the first sweep keeps release times and, keeping the planned
 * makespan, decides alone. The verifier's check of the link
 * (acs_ddrlink_check) holds.
 */
Test(barrier_exec, transfers_are_timed_through_the_ddr_link)
{
  enum { X, Y, C, N };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  tu_graph_npu(&g, "link");
  cr_assert_eq(tu_op(&g, "x", ACS_OP_DMA, 1600), X);
  cr_assert_eq(tu_op(&g, "y", ACS_OP_DMA, 1600), Y);
  cr_assert_eq(tu_op(&g, "c", ACS_OP_SHAVE, 10), C);
  g.ops[X].bytes = g.ops[Y].bytes = 8000;
  tu_edge(&g, X, C);
  tu_edge(&g, Y, C);
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  cr_assert(s.res_ddr < 0 && s.ops[X].start == 0 && s.ops[Y].start == 0);
  acs_ddrlink_from_platform(&s.link, &pb.plat);
  tu_assert_verified(&s); /* the shared plan fits the link */
  pass_ok(&s, 4, 0);
  cr_assert_eq(s.ops[X].start, 0);
  cr_assert_eq(s.ops[X].end, 800);
  cr_assert_eq(s.ops[Y].start, 700);
  cr_assert_eq(s.ops[Y].end, 1500);
  cr_assert_eq(s.ops[C].start, 1600);
  cr_assert_eq(s.makespan, 1610);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* Adds to s an edge x -> w for every two-edge path x -> v -> w whose ends
 * no edge joins yet: edges every execution already keeps (O(E x in-degree)). */
static void add_implied_edges(struct acs_schedule *s)
{
  int32_t m = s->nedges;

  for (int32_t i = 0; i < m; i++)
    for (int32_t j = 0; j < m; j++) {
      int32_t x = s->edges[j].src, w = s->edges[i].dst, dup = 0;
      if (s->edges[j].dst != s->edges[i].src)
        continue;
      for (int32_t k = 0; k < s->nedges && !dup; k++)
        dup = s->edges[k].src == x && s->edges[k].dst == w;
      if (!dup)
        cr_assert_eq(acs_schedule_add_edge(s, x, w, ACS_EDGE_CONTROL), ACS_OK);
    }
}

/*
 * An edge that a path of other edges implies orders nothing the path does
 * not: a schedule with such edges added is the same problem, and the pass
 * must build the same program for it (same starts, update barriers and
 * waits). It reads paths from the transitive reduction alone; reading the
 * edges as given made a cascade plan's program depend on whether its
 * packing had already dropped the implied control edges.
 */
Test(barrier_exec, implied_edges_change_no_program)
{
  int32_t differ = 0, limited = 0;

  for (uint64_t seed = 1; seed <= 150; seed++) {
    struct acs_rng r;
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s, t;
    int32_t n, b;
    char pe[32];
    const char *sets[] = {pe, NULL};

    acs_rng_seed(&r, seed * 7919);
    n = 3 + (int32_t)acs_rng_below(&r, 60);
    b = 1 + (int32_t)acs_rng_below(&r, 6);
    snprintf(pe, sizeof(pe), "pe_count=%d", 1 + (int)acs_rng_below(&r, 4));
    tu_random_dag(&g, seed + 11, n, 100000);
    tu_problem(&pb, &g, sets);
    tu_schedule_verified("list", &pb, &s);
    cr_assert_eq(acs_schedule_copy(&t, &s), ACS_OK);
    add_implied_edges(&t);
    pass_ok(&s, b, 0);
    pass_ok(&t, b, 0);
    limited += s.nedges > g.nedges;
    for (int32_t v = 0; v < n; v++)
      differ += s.ops[v].start != t.ops[v].start ||
                s.ops[v].update_barrier != t.ops[v].update_barrier ||
                waits_of(&s, v) != waits_of(&t, v);
    cr_assert_eq(differ, 0, "seed %llu: the implied edges changed the program",
                 (unsigned long long)seed);
    acs_schedule_destroy(&t);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  /* The limits bound: the pass had choices to make. */
  cr_assert_gt(limited, 20, "only %d of 150 passes added edges", limited);
}

/*
 * One preparation serves every barrier count: the pass given a
 * preparation made once from the schedule builds, for each count and slot
 * limit, the program it builds alone (same starts, update barriers, waits
 * and edges); a preparation of another schedule is refused, the schedule
 * left as it was.
 */
Test(barrier_exec, one_preparation_serves_every_barrier_count)
{
  static const int32_t counts[][2] = {{1, 0}, {2, 0}, {3, 2}, {4, 0}, {8, 3}, {64, 0}};

  for (uint64_t seed = 1; seed <= 40; seed++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s, other;
    struct acs_barrier_prep *bp, *bp_other;
    struct acs_diag d;
    int32_t n = 3 + (int32_t)(seed * 7 % 50);
    const char *sets[] = {"pe_count=2", NULL};

    tu_random_dag(&g, seed + 101, n, 100000);
    tu_problem(&pb, &g, sets);
    tu_schedule_verified("list", &pb, &s);
    cr_assert_eq(acs_barrier_prep_new(&s, &bp), ACS_OK);
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
      struct acs_schedule alone, shared;
      cr_assert_eq(acs_schedule_copy(&alone, &s), ACS_OK);
      cr_assert_eq(acs_schedule_copy(&shared, &s), ACS_OK);
      pass_ok(&alone, counts[c][0], counts[c][1]);
      shared.barriers = counts[c][0];
      shared.barrier_slots = counts[c][1];
      acs_diag_init(&d);
      cr_assert_eq(acs_barrier_pass_prepared(NULL, &shared, bp, NULL, &d), ACS_OK, "%s", d.msg);
      tu_assert_verified(&shared);
      cr_assert_eq(shared.nedges, alone.nedges, "seed %llu", (unsigned long long)seed);
      for (int32_t e = 0; e < alone.nedges; e++)
        cr_assert(shared.edges[e].src == alone.edges[e].src &&
                  shared.edges[e].dst == alone.edges[e].dst);
      for (int32_t v = 0; v < n; v++)
        cr_assert(shared.ops[v].start == alone.ops[v].start &&
                      shared.ops[v].update_barrier == alone.ops[v].update_barrier &&
                      waits_of(&shared, v) == waits_of(&alone, v),
                  "seed %llu, %d barriers: op %d differs", (unsigned long long)seed,
                  counts[c][0], v);
      acs_schedule_destroy(&shared);
      acs_schedule_destroy(&alone);
    }
    /* The same schedule with one op moved is another schedule. */
    cr_assert_eq(acs_schedule_copy(&other, &s), ACS_OK);
    other.ops[n - 1].start++, other.ops[n - 1].end++;
    cr_assert_eq(acs_barrier_prep_new(&other, &bp_other), ACS_OK);
    s.barriers = 2;
    acs_diag_init(&d);
    cr_assert_eq(acs_barrier_pass_prepared(NULL, &s, bp_other, NULL, &d), ACS_EINVAL);
    cr_assert(strstr(d.msg, "another schedule"), "%s", d.msg);
    cr_assert_eq(s.nwaits, 0);
    acs_barrier_prep_free(bp_other);
    acs_barrier_prep_free(bp);
    acs_schedule_destroy(&other);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}
