/*
 * test-barrier.c - barrier programs: the Dilworth width against
 * brute force, the pass on the seed's kind of example and on random DAGs,
 * the verifier's barrier checks, and the simulation of barrier programs.
 *
 * Expected values come from hand counts (stated at each test), from brute
 * force (every subset of a small graph), or from a second method (the width
 * of the final graph computed here, independently of the verifier's use
 * order; the number of uses live at once measured on the simulated times).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/antichain.h"
#include "core/model/bprog.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "tests/testutil.h"

/* ---- helpers ---- */

static void set_limits(struct acs_schedule *s, int32_t b, int32_t p)
{
  s->barriers = b;
  s->barrier_slots = p;
}

static void pass_ok(struct acs_schedule *s)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = acs_barrier_pass(NULL, s, NULL, &d);
  cr_assert_eq(err, ACS_OK, "barrier pass: %s: %s", acs_strerror(err), d.msg);
  tu_assert_verified(s);
}

/* Strict descendants of every op over s's edges (rows of acs_bits_words). */
static uint64_t *closure_of(const struct acs_schedule *s)
{
  int32_t n = s->nops, *off = calloc((size_t)n + 2, sizeof(int32_t));
  int32_t *adj = malloc(((size_t)s->nedges + 1) * sizeof(int32_t));
  int32_t *indeg = calloc((size_t)n + 1, sizeof(int32_t)), *topo = malloc(((size_t)n + 1) * 4);
  uint64_t *rows = calloc((size_t)n * acs_bits_words(n) + 1, sizeof(uint64_t));
  int32_t head = 0, tail = 0;

  cr_assert(off && adj && indeg && topo && rows);
  for (int32_t e = 0; e < s->nedges; e++) {
    off[s->edges[e].src + 2]++;
    indeg[s->edges[e].dst]++;
  }
  for (int32_t v = 0; v < n; v++)
    off[v + 2] += off[v + 1];
  for (int32_t e = 0; e < s->nedges; e++)
    adj[off[s->edges[e].src + 1]++] = s->edges[e].dst;
  for (int32_t v = 0; v < n; v++)
    if (indeg[v] == 0)
      topo[tail++] = v;
  while (head < tail) {
    int32_t u = topo[head++];
    for (int32_t k = off[u]; k < off[u + 1]; k++)
      if (--indeg[adj[k]] == 0)
        topo[tail++] = adj[k];
  }
  cr_assert_eq(tail, n, "the schedule's edges have a cycle");
  acs_dag_descendants(n, off, adj, topo, rows);
  free(off), free(adj), free(indeg), free(topo);
  return rows;
}

/* Largest antichain of all ops by Dilworth (acs_poset_width). */
static int32_t op_width(const struct acs_schedule *s)
{
  uint64_t *rows = closure_of(s);
  int32_t w = -1;

  cr_assert_eq(acs_poset_width(s->nops, rows, acs_bits_words(s->nops), &w, NULL), ACS_OK);
  free(rows);
  return w;
}

/* Largest antichain by trying every subset (n <= 20). */
static int32_t brute_width(int32_t n, const uint64_t *rows)
{
  size_t words = acs_bits_words(n);
  int32_t best = 0;

  for (uint32_t m = 1; m < (1u << n); m++) {
    int ok = 1, size = __builtin_popcount(m);
    if (size <= best)
      continue;
    for (int32_t i = 0; i < n && ok; i++)
      for (int32_t j = 0; j < n && ok; j++)
        if ((m >> i & 1) && (m >> j & 1) && acs_bit_get(rows + (size_t)i * words, j))
          ok = 0;
    if (ok)
      best = size;
  }
  return best;
}

static int64_t sum_durations(const struct acs_schedule *s)
{
  int64_t t = 0;

  for (int32_t i = 0; i < s->nops; i++)
    t += s->ops[i].dur;
  return t;
}

/* ---- Dilworth ---- */

Test(antichain, dilworth_matches_brute_force_on_small_dags)
{
  for (uint64_t seed = 1; seed <= 300; seed++) {
    struct acs_rng r;
    int32_t n, ne = 0, (*edges)[2], w, *members;
    int64_t dur[14];
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    uint64_t *rows;

    acs_rng_seed(&r, seed);
    n = 1 + (int32_t)acs_rng_below(&r, 14);
    edges = malloc(sizeof(*edges) * (size_t)(n * n + 1));
    members = malloc(sizeof(int32_t) * (size_t)(n + 1));
    cr_assert(edges && members);
    for (int32_t i = 0; i < n; i++) {
      dur[i] = 1;
      for (int32_t j = i + 1; j < n; j++)
        if (acs_rng_below(&r, 100) < 20) {
          edges[ne][0] = i;
          edges[ne++][1] = j;
        }
    }
    tu_small_graph(&g, n, dur, (const int32_t(*)[2])edges, ne);
    tu_problem(&pb, &g, NULL);
    cr_assert_eq(acs_schedule_init_problem(&s, &pb), ACS_OK);
    rows = closure_of(&s);
    cr_assert_eq(acs_poset_width(n, rows, acs_bits_words(n), &w, members), ACS_OK);
    cr_assert_eq(w, brute_width(n, rows), "seed %llu: Dilworth %d", (unsigned long long)seed, w);
    for (int32_t i = 0; i < w; i++) /* the antichain returned is one */
      for (int32_t j = 0; j < w; j++)
        cr_assert(!acs_bit_get(rows + (size_t)members[i] * acs_bits_words(n), members[j]));
    free(rows), free(edges), free(members);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

Test(antichain, chain_and_independent_ops_by_hand)
{
  /* 10 ops in a chain: one chain covers them, width 1; no edges: width 10. */
  uint64_t chain[10], none[10] = {0};
  int32_t w;

  for (int i = 0; i < 10; i++)
    chain[i] = (((uint64_t)1 << 10) - 1) & ~(((uint64_t)1 << (i + 1)) - 1);
  cr_assert_eq(acs_poset_width(10, chain, 1, &w, NULL), ACS_OK);
  cr_assert_eq(w, 1);
  cr_assert_eq(acs_poset_width(10, none, 1, &w, NULL), ACS_OK);
  cr_assert_eq(w, 10);
}

/* ---- the seed's example ---- */

/*
 * Figure 12 of the seed is an image that the text seed does not carry; this
 * graph has its shape: a source fanning out to six independent ops, joined
 * pairwise and then into a sink. Width 6 ({b..g}); b = 4 barriers of one
 * slot. Figure 13 is the seed's unit-delay list schedule over 4 barriers and
 * Figure 14 its GenerateMaximumIndependentSetEdges: seed_program() below
 * rebuilds both literally.
 */
enum { FA, FB, FC, FD, FE, FF, FG, FH, FI, FJ, FK, FN };
static const int32_t fig12_edges[][2] = {
    {FA, FB}, {FA, FC}, {FA, FD}, {FA, FE}, {FA, FF}, {FA, FG}, {FB, FH}, {FC, FH},
    {FD, FI}, {FE, FI}, {FF, FJ}, {FG, FJ}, {FH, FK}, {FI, FK}, {FJ, FK}};
static const int64_t fig12_dur[FN] = {5, 30, 40, 50, 60, 70, 80, 10, 20, 30, 5};

static void fig12(struct acs_graph *g, struct acs_problem *pb, struct acs_schedule *s)
{
  static const char *const sets[] = {"pe_count=8", NULL};

  tu_small_graph(g, FN, fig12_dur, fig12_edges, (int32_t)(sizeof(fig12_edges) / sizeof(fig12_edges[0])));
  tu_problem(pb, g, sets);
  tu_schedule_verified("list", pb, s);
}

Test(barrier, seed_example_bounds_the_antichain_by_4)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t before, after, uw;

  fig12(&g, &pb, &s);
  before = op_width(&s);
  cr_assert_eq(before, 6, "the six middle ops are independent");
  cr_assert_eq(s.makespan, 120, "5 + 80 + 30 + 5 on 8 PEs");
  set_limits(&s, 4, 1);
  pass_ok(&s);
  after = op_width(&s);
  cr_assert_leq(after, 4, "antichain of %d ops after the pass", after);
  /* 190 cycles, as with the construction this pass replaced: with one
   * slot each op is a use of its own, a's lives until all six middle ops
   * have ended and each join's until k has, so at most two barriers are
   * left for the middle ops at most times. */
  cr_assert_eq(s.makespan, 190);
  cr_assert_eq(acs_bprog_use_width(&s, &uw), ACS_OK);
  cr_assert_leq(uw, 4);
  for (int32_t i = 0; i < s.nops; i++)
    cr_assert(s.ops[i].update_barrier >= 0 && s.ops[i].update_barrier < 4);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * The seed's construction, literally: a unit-delay list schedule in which
 * each op with successors holds one of b barriers for its one step (lowest
 * free id, ready ops by id), then lastOp[b_i] -> v edges, W(v) = {U(w)}.
 */
static void seed_program(struct acs_schedule *s, int32_t b)
{
  int32_t n = s->nops, *step = malloc(sizeof(int32_t) * (size_t)n), *last = calloc((size_t)b, 4);
  int32_t done = 0, base = s->nedges;
  int *out = calloc((size_t)n, sizeof(int));
  struct acs_diag d;

  cr_assert(step && last && out);
  for (int32_t e = 0; e < s->nedges; e++)
    out[s->edges[e].src]++;
  for (int32_t i = 0; i < n; i++)
    step[i] = -1;
  for (int32_t k = 0; k < b; k++)
    last[k] = -1;
  for (int32_t t = 0; done < n; t++) {
    int32_t used = 0;
    for (int32_t v = 0; v < n; v++) {
      int ready = step[v] < 0;
      for (int32_t e = 0; e < base && ready; e++)
        if (s->edges[e].dst == v && (step[s->edges[e].src] < 0 || step[s->edges[e].src] >= t))
          ready = 0;
      if (!ready || (out[v] > 0 && used == b))
        continue;
      step[v] = t;
      done++;
      if (out[v] > 0) {
        s->ops[v].update_barrier = used;
        if (last[used] >= 0)
          cr_assert_eq(acs_schedule_add_edge(s, last[used], v, ACS_EDGE_CONTROL), ACS_OK);
        last[used++] = v;
      }
    }
  }
  for (int32_t v = 0; v < n; v++) {
    int seen[64] = {0};
    for (int32_t e = 0; e < s->nedges; e++) {
      int32_t bw = s->ops[s->edges[e].src].update_barrier;
      if (s->edges[e].dst == v && bw >= 0 && !seen[bw]++)
        cr_assert_eq(acs_schedule_add_wait(s, v, bw), ACS_OK);
    }
  }
  acs_diag_init(&d);
  cr_assert_geq(acs__barrier_retime(s, base, &d), 0, "%s", d.msg);
  free(step), free(last), free(out);
}

Test(barrier, seed_construction_misses_the_reuse_rule)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  fig12(&g, &pb, &s);
  set_limits(&s, 4, 1);
  seed_program(&s, 4);
  /* Theorem-1 holds for the ops: same-barrier ops are chained ... */
  cr_assert_leq(op_width(&s), 4);
  /* ... but b's barrier (a's, reused by lastOp edge a -> b) is reprogrammed
   * while c, d and e, consumers of a's use, are not ordered before b. */
  acs_diag_init(&d);
  err = acs_schedule_verify(&s, &d);
  cr_assert_eq(err, ACS_EVERIFY);
  cr_assert(strstr(d.msg, "reused by"), "message: %s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- limits ---- */

Test(barrier, one_barrier_of_one_slot_serializes_every_op)
{
  for (uint64_t seed = 1; seed <= 40; seed++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;

    tu_random_dag(&g, seed, 5 + (int32_t)(seed % 30), 1000);
    tu_problem(&pb, &g, NULL);
    tu_schedule_verified("list", &pb, &s);
    set_limits(&s, 1, 1);
    pass_ok(&s);
    /* Every op holds the one barrier, so all ops form one chain: width 1
     * and the plan is as long as all durations together. */
    cr_assert_eq(op_width(&s), 1, "seed %llu", (unsigned long long)seed);
    cr_assert_eq(s.makespan, sum_durations(&s));
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

static int32_t distinct_barriers(const struct acs_schedule *s)
{
  int32_t count = 0;
  char seen[4096] = {0};

  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].update_barrier >= 0 && !seen[s->ops[i].update_barrier]++)
      count++;
  return count;
}

Test(barrier, enough_barriers_add_no_edge)
{
  for (uint64_t seed = 1; seed <= 60; seed++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    int32_t base, need;
    int64_t m0;

    tu_random_dag(&g, seed, 4 + (int32_t)(seed % 40), 1000);
    tu_problem(&pb, &g, NULL);
    tu_schedule_verified("list", &pb, &s);
    base = s.nedges;
    m0 = s.makespan;
    /* As many barriers as ops: never short of one, so nothing is added. */
    set_limits(&s, s.nops, 0);
    pass_ok(&s);
    cr_assert_eq(s.nedges, base);
    cr_assert_eq(s.makespan, m0);
    need = distinct_barriers(&s);
    acs_schedule_destroy(&s);
    /* The barriers that program used are enough too (same choices). */
    tu_schedule_verified("list", &pb, &s);
    set_limits(&s, need, 0);
    pass_ok(&s);
    cr_assert_eq(s.nedges, base, "seed %llu, %d barriers", (unsigned long long)seed, need);
    cr_assert_eq(s.makespan, m0);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

/*
 * The width of the ops does not bound the barriers needed: a barrier stays
 * in use until its last consumer starts. v -> w -> z, v -> c and
 * s1 -> s2 -> s3 -> c: widest antichain 2 ({w, s1}, ...), but without added
 * edges the uses of v (waiting for c), of s3 (waiting for c) and of z (its
 * own, until it ends) can all be live at once, so 2 barriers need edges.
 */
Test(barrier, op_width_is_not_enough_barriers)
{
  enum { V, W, Z, C, S1, S2, S3, N };
  static const int32_t e[][2] = {{V, W}, {W, Z}, {V, C}, {S1, S2}, {S2, S3}, {S3, C}};
  static const int64_t dur[N] = {10, 10, 10, 10, 10, 10, 10};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t base, uw;

  tu_small_graph(&g, N, dur, e, 6);
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  base = s.nedges;
  cr_assert_eq(op_width(&s), 2);
  set_limits(&s, N, 0);
  pass_ok(&s);
  cr_assert_eq(s.nedges, base);
  cr_assert_eq(acs_bprog_use_width(&s, &uw), ACS_OK);
  cr_assert_eq(uw, 3, "uses of v, s3 and z");
  acs_schedule_destroy(&s);
  tu_schedule_verified("list", &pb, &s);
  set_limits(&s, 2, 0);
  pass_ok(&s);
  cr_assert_gt(s.nedges, base);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(barrier, slots_bound_each_use_and_an_op_over_the_slots_is_infeasible)
{
  /* x and y, independent DPU ops of 2 slots each, both feed z: with one
   * barrier of 4 slots they share one use (4 slots); with 3 slots they
   * cannot, and an op of 5 slots fits no barrier of 4. */
  static const int32_t e[][2] = {{0, 2}, {1, 2}};
  static const int64_t dur[3] = {10, 10, 10};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_bprog bp;
  struct acs_diag d;

  tu_small_graph(&g, 3, dur, e, 2);
  g.ops[0].kind = g.ops[1].kind = ACS_OP_DPU;
  g.ops[0].slots = g.ops[1].slots = 2;
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  set_limits(&s, 1, 4);
  pass_ok(&s);
  cr_assert_eq(acs_bprog_build(&s, &bp), ACS_OK);
  cr_assert_eq(bp.use_of[0], bp.use_of[1], "x and y share a use");
  cr_assert_eq(bp.slots[bp.use_of[0]], 4);
  acs_bprog_destroy(&bp);
  acs_schedule_destroy(&s);

  tu_schedule_verified("list", &pb, &s);
  set_limits(&s, 1, 3);
  pass_ok(&s);
  cr_assert_eq(acs_bprog_build(&s, &bp), ACS_OK);
  cr_assert_neq(bp.use_of[0], bp.use_of[1]);
  acs_bprog_destroy(&bp);
  acs_schedule_destroy(&s);

  tu_schedule_verified("list", &pb, &s);
  s.ops[0].slots = 5;
  set_limits(&s, 1, 4);
  acs_diag_init(&d);
  cr_assert_eq(acs_barrier_pass(NULL, &s, NULL, &d), ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "'a' needs 5 barrier producer slots"), "%s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- the verifier ---- */

Test(verify, rejects_a_use_over_its_slots_and_an_edge_without_a_wait)
{
  static const int32_t e[][2] = {{0, 2}, {1, 2}};
  static const int64_t dur[3] = {10, 10, 10};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;

  tu_small_graph(&g, 3, dur, e, 2);
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  set_limits(&s, 1, 2);
  pass_ok(&s); /* x and y share one use of 2 slots */
  s.barrier_slots = 1;
  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "taking 2 slots, more than the 1 slots"), "%s", d.msg);
  s.barrier_slots = 2;
  s.nwaits = 0; /* nobody waits: c would not know that a and b ended */
  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "does not wait on barrier"), "%s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * A hand-made program that reuses a barrier too early: a and b both update
 * barrier 0; b opens its second use (b follows x, a consumer of a's use)
 * while y, another consumer of a's use, waits for z, which waits for b. The
 * hardware would deadlock; the verifier names the reuse and the simulation
 * reports the cycle instead of hanging.
 */
Test(verify, early_reuse_is_rejected_and_deadlocks_in_simulation)
{
  enum { A, X, B, Z, Y, N };
  static const int32_t e[][2] = {{A, X}, {X, B}, {A, Y}, {B, Z}, {Z, Y}};
  static const int64_t dur[N] = {10, 10, 10, 10, 10};
  static const int32_t upd[N] = {0, 1, 0, 2, 3};
  static const int32_t waits[][2] = {{X, 0}, {B, 1}, {Z, 0}, {Y, 0}, {Y, 2}};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_sim_result r;
  struct acs_diag d;

  tu_small_graph(&g, N, dur, e, 5);
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  set_limits(&s, 4, 0);
  for (int32_t i = 0; i < N; i++)
    s.ops[i].update_barrier = upd[i];
  for (int k = 0; k < 5; k++)
    cr_assert_eq(acs_schedule_add_wait(&s, waits[k][0], waits[k][1]), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "barrier 0 is reused by 'c'"), "%s", d.msg);
  acs_diag_init(&d);
  cr_assert_eq(acs_sim_run(&pb.plat, &s, NULL, &r, &d), ACS_ESIM);
  cr_assert(strstr(d.msg, "simulation incomplete") && strstr(d.msg, "barrier 0 reused"),
            "%s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

static void count_warning(void *ctx, const char *file, int line, int col, const char *msg)
{
  (void)file, (void)line, (void)col;
  snprintf(ctx, 256, "%s", msg);
}

/*
 * Two independent chains of 10,001 ops each on one barrier: every op
 * updates barrier 0, so the program must order all 20,002 ops in one chain
 * of uses, and its width is 1 (every use precedes the next). The verifier
 * checks it whole, with no warning; without one of the control edges the
 * pass added, some consumer of a use of barrier 0 is no longer ordered
 * before the next use's producer in every execution, and the verifier
 * names the barrier. (Up to 20,000 ops the verifier used to build the
 * transitive closure; above, it skipped these checks.)
 */
Test(verify, checks_every_execution_above_20000_ops, .timeout = 600)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  char note[256] = "";
  char name[32];
  int32_t n = 10001, uw = -1, base;

  tu_graph_npu(&g, "two-chains");
  for (int32_t i = 0; i < 2 * n; i++) {
    snprintf(name, sizeof(name), "%c%d", i < n ? 'a' : 'b', i % n);
    tu_op(&g, name, ACS_OP_SHAVE, 1 + i % 3);
    if (i % n > 0)
      tu_edge(&g, i - 1, i);
  }
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  base = s.nedges;
  set_limits(&s, 1, 0);
  acs_diag_init(&d);
  cr_assert_eq(acs_barrier_pass(NULL, &s, NULL, &d), ACS_OK, "%s", d.msg);
  cr_assert_gt(s.nedges, base);
  acs_diag_init(&d);
  d.warn = count_warning;
  d.warn_ctx = note;
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(d.nwarn, 0, "%s", note);
  cr_assert_eq(acs_bprog_use_width(&s, &uw), ACS_OK);
  cr_assert_eq(uw, 1);
  /* The first control edge the pass added ties the chains together. */
  s.edges[base] = s.edges[--s.nedges];
  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "barrier 0"), "%s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- simulation ---- */

Test(simulate, barrier_program_replays_the_plan_exactly_without_contention)
{
  /* Compute ops only: no DDR, so the simulated times are the planned ones;
   * the barrier dependencies are all already edges of the plan. */
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_sim_result r;
  struct acs_diag d;
  double m;

  fig12(&g, &pb, &s);
  set_limits(&s, 2, 1);
  pass_ok(&s);
  acs_diag_init(&d);
  cr_assert_eq(acs_sim_run(&pb.plat, &s, NULL, &r, &d), ACS_OK, "%s", d.msg);
  m = r.makespan_cycles;
  cr_assert_float_eq(m, (double)s.makespan, 1e-3);
  for (int32_t i = 0; i < s.nops; i++) {
    double st = s.ops[i].sim_start;
    cr_assert_float_eq(st, (double)s.ops[i].start, 1e-3, "%s", s.ops[i].name);
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* The program the verifier hands back (acs_schedule_verify_keep) is the
 * one acs_bprog_build makes, and a simulation given it runs as one that
 * builds its own: the same start of every op, also when told it was
 * verified and so left without the edges, which its dependencies imply.
 * Without a program, nothing is kept. */
Test(simulate, the_verified_program_serves_the_simulation)
{
  for (uint64_t seed = 1; seed <= 6; seed++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_sim_result r;
    struct acs_sim_opts o;
    struct acs_bprog kept, built;
    struct acs_diag d;
    double *alone;

    tu_random_dag(&g, seed, 30 + (int32_t)seed * 10, 1000);
    tu_problem(&pb, &g, NULL);
    tu_schedule_verified("list", &pb, &s);
    acs_diag_init(&d);
    cr_assert_eq(acs_schedule_verify_keep(&s, &kept, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(kept.nuses, 0);
    set_limits(&s, 2 + (int)seed % 3, 0);
    pass_ok(&s);
    cr_assert_eq(acs_schedule_verify_keep(&s, &kept, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(acs_bprog_build(&s, &built), ACS_OK);
    cr_assert_gt(kept.nuses, 0);
    cr_assert_eq(kept.nuses, built.nuses);
    for (int32_t u = 0; u <= kept.nuses; u++)
      cr_assert(kept.prod_off[u] == built.prod_off[u] && kept.cons_off[u] == built.cons_off[u]);
    cr_assert_eq(acs_sim_run(&pb.plat, &s, NULL, &r, &d), ACS_OK, "%s", d.msg);
    alone = malloc(((size_t)s.nops + 1) * sizeof(double));
    cr_assert_not_null(alone);
    for (int32_t i = 0; i < s.nops; i++)
      alone[i] = s.ops[i].sim_start;
    acs_sim_opts_init(&o);
    o.bprog = &kept;
    for (o.bprog_verified = 0; o.bprog_verified < 2; o.bprog_verified++) {
      cr_assert_eq(acs_sim_run(&pb.plat, &s, &o, &r, &d), ACS_OK, "%s", d.msg);
      for (int32_t i = 0; i < s.nops; i++)
        cr_assert_eq(s.ops[i].sim_start, alone[i], "seed %llu, verified %d, %s",
                     (unsigned long long)seed, o.bprog_verified, s.ops[i].name);
    }
    free(alone);
    acs_bprog_destroy(&kept);
    acs_bprog_destroy(&built);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

/* ---- properties over random DAGs ---- */

struct live {
  double t;
  int delta;
};

static int cmp_live(const void *x, const void *y)
{
  const struct live *a = x, *b = y;

  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  return a->delta - b->delta; /* ends first: a use may be reprogrammed at once */
}

/* Largest number of uses live at once in the simulated execution: a use
 * lives from its first producer's start until its producers have ended and
 * its consumers have started. */
static int32_t max_live_uses(const struct acs_schedule *s)
{
  struct acs_bprog bp;
  struct live *ev;
  int32_t cur = 0, best = 0;

  cr_assert_eq(acs_bprog_build(s, &bp), ACS_OK);
  ev = malloc(sizeof(*ev) * (size_t)(2 * bp.nuses + 1));
  cr_assert_not_null(ev);
  for (int32_t u = 0; u < bp.nuses; u++) {
    double lo = INFINITY, hi = -INFINITY;
    for (int32_t k = bp.prod_off[u]; k < bp.prod_off[u + 1]; k++) {
      lo = fmin(lo, s->ops[bp.prod[k]].sim_start);
      hi = fmax(hi, s->ops[bp.prod[k]].sim_end);
    }
    for (int32_t k = bp.cons_off[u]; k < bp.cons_off[u + 1]; k++)
      hi = fmax(hi, s->ops[bp.cons[k]].sim_start);
    ev[2 * u] = (struct live){lo, 1};
    ev[2 * u + 1] = (struct live){hi, -1};
  }
  qsort(ev, (size_t)(2 * bp.nuses), sizeof(*ev), cmp_live);
  for (int32_t k = 0; k < 2 * bp.nuses; k++)
    if ((cur += ev[k].delta) > best)
      best = cur;
  free(ev);
  acs_bprog_destroy(&bp);
  return best;
}

/* Same-instant starts and ends count as disjoint above, which a use taken
 * over by its last consumer needs; zero-length ops can make a use live for
 * an instant only, which the sweep also treats as ending first. */

static void slot_sums_within(const struct acs_schedule *s, int64_t p)
{
  struct acs_bprog bp;

  cr_assert_eq(acs_bprog_build(s, &bp), ACS_OK);
  for (int32_t u = 0; u < bp.nuses; u++) {
    int64_t sum = 0;
    for (int32_t k = bp.prod_off[u]; k < bp.prod_off[u + 1]; k++)
      sum += acs_barrier_slot_demand(&s->ops[bp.prod[k]]);
    cr_assert_eq(sum, bp.slots[u]);
    if (p > 0)
      cr_assert_leq(sum, p);
  }
  acs_bprog_destroy(&bp);
}

/*
 * 1,200 random layered DAGs of 2 to 60 ops (DPU ops of 1 to 3 slots, DMA
 * ops of 1) with random b in [1, 8] and p in {0 (none), 3, 4, 8}: every
 * pass verifies (which checks the slot bound and the use-antichain bound by
 * Dilworth), every op updates a barrier in [0, b), slot sums per use are
 * within p, and with one-slot barriers the largest antichain of ops is at
 * most b. One case in eight (150 of them) is also simulated: no deadlock,
 * and at no instant are more than b uses live. The simulations fork a child
 * each (about 3 ms), so the whole test takes a couple of seconds. The
 * timeout is only a watchdog against a hang: a sanitizer build on a loaded
 * two-core machine took 88 s, so it is far above that.
 */
Test(barrier, random_dags_respect_the_limits, .timeout = 1200)
{
  static const int32_t slots_limit[] = {0, 3, 4, 8, 1};
  int simulated = 0;

  for (uint64_t seed = 1; seed <= 1200; seed++) {
    struct acs_rng r;
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    int32_t n, b, p;
    char pe[32];
    const char *sets[] = {pe, NULL};

    acs_rng_seed(&r, seed * 7919);
    n = 2 + (int32_t)acs_rng_below(&r, 59);
    b = 1 + (int32_t)acs_rng_below(&r, 8);
    p = slots_limit[acs_rng_below(&r, 5)];
    snprintf(pe, sizeof(pe), "pe_count=%d", 1 + (int)acs_rng_below(&r, 4));
    tu_random_dag(&g, seed, n, 100000);
    for (int32_t i = 0; i < n; i++)
      if (g.ops[i].kind == ACS_OP_DPU)
        g.ops[i].slots = 1 + (int32_t)acs_rng_below(&r, p == 1 ? 1 : 3);
    tu_problem(&pb, &g, sets);
    tu_schedule_verified("list", &pb, &s);
    set_limits(&s, b, p);
    pass_ok(&s);
    for (int32_t i = 0; i < n; i++)
      cr_assert(s.ops[i].update_barrier >= 0 && s.ops[i].update_barrier < b);
    slot_sums_within(&s, p);
    if (p == 1)
      cr_assert_leq(op_width(&s), b, "seed %llu", (unsigned long long)seed);
    if (seed % 8 == 0) {
      struct acs_sim_result res;
      struct acs_diag d;
      acs_diag_init(&d);
      cr_assert_eq(acs_sim_run(&pb.plat, &s, NULL, &res, &d), ACS_OK, "seed %llu: %s",
                   (unsigned long long)seed, d.msg);
      cr_assert_leq(max_live_uses(&s), b, "seed %llu", (unsigned long long)seed);
      simulated++;
    }
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  cr_assert_eq(simulated, 150);
}

/*
 * A use opened by a steal takes the rest of its class, and a steal holds
 * back only the waiters that could start meanwhile. Three barriers, one PE
 * per op: p (10) -> q (10) -> c1, c2 (10 each) -> d (300); p -> z (10) and
 * y (200) -> z. p, y and q take a barrier each (0 to 10, 0 to 200, 10 to
 * 20). At 20 c1 finds none free: p's barrier (its use complete, q having
 * consumed it) still has z to wait on, but z cannot start before y ends at
 * 200, so stealing it holds nobody back, while q's barrier would hold c2
 * and y's open use would make d wait for y. So c1 steals p's barrier (q,
 * its direct predecessor, ended that use: no edge), c2 joins c1's use
 * (same consumers, ordered after q, holding nobody), both run 20 to 30, d
 * waits on that one use, 30 to 330, and z runs 200 to 210: the plan keeps
 * its barrier-free 330. (When a stolen use took no other producer, c2
 * shared y's use and d started at 200: 500.)
 */
Test(barrier, a_stolen_use_takes_the_rest_of_its_class)
{
  enum { P, Y, Q, C1, C2, D, Z, N };
  static const int32_t e[][2] = {{P, Q}, {P, Z}, {Y, Z}, {Q, C1}, {Q, C2}, {C1, D}, {C2, D}};
  static const int64_t dur[N] = {10, 200, 10, 10, 10, 300, 10};
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t dwaits = 0;

  tu_small_graph(&g, N, dur, e, 7);
  tu_problem(&pb, &g, NULL);
  tu_schedule_verified("list", &pb, &s);
  cr_assert_eq(s.makespan, 330);
  set_limits(&s, 3, 0);
  pass_ok(&s);
  cr_assert_eq(s.makespan, 330);
  cr_assert_eq(s.ops[C1].start, 20);
  cr_assert_eq(s.ops[C2].start, 20);
  cr_assert_eq(s.ops[Z].start, 200);
  cr_assert_eq(s.ops[C1].update_barrier, s.ops[P].update_barrier, "c1 takes p's barrier");
  cr_assert_eq(s.ops[C2].update_barrier, s.ops[C1].update_barrier, "c2 joins c1's use");
  for (int32_t k = 0; k < s.nwaits; k++)
    if (s.waits[k].op == D) {
      dwaits++;
      cr_assert_eq(s.waits[k].barrier, s.ops[C1].update_barrier);
    }
  cr_assert_eq(dwaits, 1);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}
