/*
 * test-reach.c - reachability without a closure (core/model/reach.h): the
 * transitive reduction and batched queries against brute force (a
 * depth-first search from every node), on graphs large enough for several
 * batches of sources and windows that do not start at the first node, and
 * a hand-worked diamond. A third of the queries are the ends of an edge.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/reach.h"

/* A random DAG on n nodes: edges go from lower to higher ids (so ids are
 * a topological order), with duplicates; `span` bounds how far an edge
 * reaches. Keys shuffle the order the DAG is built in. */
struct rgraph {
  int32_t n, m;
  int32_t *src, *dst;
  int64_t *key;
};

static void rgraph_make(struct rgraph *g, uint64_t seed, int32_t n, int32_t per, int32_t span)
{
  struct acs_rng r;

  acs_rng_seed(&r, seed);
  g->n = n;
  g->m = 0;
  g->src = malloc(sizeof(int32_t) * (size_t)(n * per + 1));
  g->dst = malloc(sizeof(int32_t) * (size_t)(n * per + 1));
  g->key = malloc(sizeof(int64_t) * (size_t)(n + 1));
  cr_assert(g->src && g->dst && g->key);
  for (int32_t v = 0; v < n; v++) {
    g->key[v] = (int64_t)acs_rng_below(&r, 1000);
    for (int32_t k = 0; k < per && v + 1 < n; k++) {
      int32_t w = v + 1 + (int32_t)acs_rng_below(&r, (uint64_t)(span < n - v - 1 ? span : n - v - 1));
      g->src[g->m] = v;
      g->dst[g->m++] = w;
    }
  }
}

static void rgraph_free(struct rgraph *g)
{
  free(g->src), free(g->dst), free(g->key);
}

/* reach[u * n + v] = 1 when u reaches v by one or more edges: brute force,
 * one depth-first search per node over adjacency lists built here. */
static uint8_t *brute_reach(const struct rgraph *g)
{
  size_t n = (size_t)g->n;
  uint8_t *reach = calloc(n * n + 1, 1);
  int32_t *stack = malloc(sizeof(int32_t) * (n + 1)), *off = calloc(n + 2, sizeof(int32_t));
  int32_t *adj = malloc(sizeof(int32_t) * (size_t)(g->m + 1));

  cr_assert(reach && stack && off && adj);
  memset(off, 0, sizeof(int32_t) * (n + 2));
  for (int32_t e = 0; e < g->m; e++)
    off[g->src[e] + 2]++;
  for (size_t v = 0; v < n; v++)
    off[v + 2] += off[v + 1];
  for (int32_t e = 0; e < g->m; e++)
    adj[off[g->src[e] + 1]++] = g->dst[e];
  for (int32_t u = 0; u < g->n; u++) {
    uint8_t *ru = reach + (size_t)u * n;
    int32_t sp = 0;
    stack[sp++] = u;
    while (sp > 0) {
      int32_t x = stack[--sp];
      for (int32_t k = off[x]; k < off[x + 1]; k++)
        if (!ru[adj[k]]) {
          ru[adj[k]] = 1;
          stack[sp++] = adj[k];
        }
    }
  }
  free(stack), free(off), free(adj);
  return reach;
}

Test(reach, reduction_matches_brute_force)
{
  /* up to 1,400 nodes: three batches of sources; spans from local to any */
  static const int32_t sizes[][3] = {{12, 3, 12}, {60, 3, 8}, {300, 4, 40}, {1400, 3, 60},
                                     {700, 5, 700}};
  for (size_t c = 0; c < sizeof(sizes) / sizeof(sizes[0]); c++)
    for (uint64_t seed = 1; seed <= 3; seed++) {
      struct rgraph r;
      struct acs_dag g;
      uint8_t *reach, *keep;
      int32_t n;

      rgraph_make(&r, seed * 31 + c, sizes[c][0], sizes[c][1], sizes[c][2]);
      n = r.n;
      reach = brute_reach(&r);
      cr_assert_eq(acs_dag_build(&g, r.n, r.m, r.src, r.dst, r.key), ACS_OK);
      keep = malloc((size_t)r.m + 1);
      cr_assert_not_null(keep);
      cr_assert_eq(acs_dag_reduce(&g, keep), ACS_OK);
      for (int32_t u = 0; u < n; u++)
        for (int32_t k = g.succ_off[u]; k < g.succ_off[u + 1]; k++) {
          int32_t v = g.succ[k], implied = 0, repeat = 0;
          /* implied: another successor of u reaches v; a repeat: the same
           * edge earlier in u's list */
          for (int32_t j = g.succ_off[u]; j < g.succ_off[u + 1]; j++) {
            implied |= g.succ[j] != v && reach[(size_t)g.succ[j] * (size_t)n + (size_t)v];
            repeat |= j < k && g.succ[j] == v;
          }
          cr_assert_eq(keep[k], !implied && !repeat, "n %d seed %llu: edge %d -> %d", n,
                       (unsigned long long)seed, u, v);
        }
      free(keep), free(reach);
      acs_dag_destroy(&g);
      rgraph_free(&r);
    }
}

Test(reach, queries_match_brute_force)
{
  for (uint64_t seed = 1; seed <= 4; seed++) {
    struct rgraph r;
    struct acs_dag g;
    struct acs_rng q;
    int32_t n, nq = 5000, *qs = malloc(sizeof(int32_t) * 5000), *qd = malloc(sizeof(int32_t) * 5000);
    uint8_t *reach, *ans = malloc(5000);

    cr_assert(qs && qd && ans);
    rgraph_make(&r, seed, seed == 4 ? 1300 : 200 * (int32_t)seed, 2, seed == 4 ? 1300 : 30);
    n = r.n;
    reach = brute_reach(&r);
    cr_assert_eq(acs_dag_build(&g, r.n, r.m, r.src, r.dst, r.key), ACS_OK);
    acs_rng_seed(&q, seed + 100);
    for (int32_t i = 0; i < nq; i++) {
      qs[i] = (int32_t)acs_rng_below(&q, (uint64_t)n);
      qd[i] = i % 10 == 0 ? qs[i] : (int32_t)acs_rng_below(&q, (uint64_t)n);
      /* The ends of an edge, either way round: the edge answers the first. */
      if (i % 10 >= 1 && i % 10 <= 3) {
        int32_t e = (int32_t)acs_rng_below(&q, (uint64_t)r.m);
        qs[i] = i % 10 == 3 ? r.dst[e] : r.src[e];
        qd[i] = i % 10 == 3 ? r.src[e] : r.dst[e];
      }
    }
    cr_assert_eq(acs_dag_reach(&g, nq, qs, qd, ans), ACS_OK);
    for (int32_t i = 0; i < nq; i++)
      cr_assert_eq(ans[i], qs[i] == qd[i] || reach[(size_t)qs[i] * (size_t)n + (size_t)qd[i]],
                   "seed %llu: %d -> %d", (unsigned long long)seed, qs[i], qd[i]);
    free(qs), free(qd), free(ans), free(reach);
    acs_dag_destroy(&g);
    rgraph_free(&r);
  }
}

Test(reach, diamond_by_hand)
{
  /* a -> b -> d, a -> c -> d, a -> d, and b -> d again: a -> d is implied
   * (through b or c), the second b -> d repeats the first; the other four
   * edges are the reduction. a reaches everything, d nothing, b not c. */
  enum { A, B, C, D };
  static const int32_t src[] = {A, B, A, C, A, B}, dst[] = {B, D, C, D, D, D};
  static const int32_t qs[] = {A, D, B, C, D}, qd[] = {D, A, C, C, D};
  static const uint8_t want[] = {1, 0, 0, 1, 1};
  struct acs_dag g;
  uint8_t keep[6], ans[5];
  int32_t kept = 0;

  cr_assert_eq(acs_dag_build(&g, 4, 6, src, dst, NULL), ACS_OK);
  cr_assert_eq(g.topo[0], A);
  cr_assert_eq(g.topo[3], D);
  cr_assert_eq(acs_dag_reduce(&g, keep), ACS_OK);
  for (int32_t u = 0; u < 4; u++)
    for (int32_t k = g.succ_off[u]; k < g.succ_off[u + 1]; k++) {
      kept += keep[k];
      if (u == A && g.succ[k] == D)
        cr_assert_eq(keep[k], 0);
    }
  cr_assert_eq(kept, 4);
  cr_assert_eq(acs_dag_reach(&g, 5, qs, qd, ans), ACS_OK);
  cr_assert_arr_eq(ans, want, 5);
  acs_dag_destroy(&g);
}

Test(reach, rows_no_source_reaches_are_skipped_by_hand)
{
  /* Keys order a, x, b, y, c, z: a -> b -> c with a -> c implied, and
   * x -> y -> z with x -> z implied, interleaved so that the window of a's
   * batch holds x and y, which a does not reach (their rows stay empty),
   * and y's edge to z is read while z's other predecessor x is a source of
   * the same batch. Also p -> q once, from a node no source reaches. */
  enum { A, X, B, Y, C, Z, P, Q };
  static const int32_t src[] = {A, B, A, X, Y, X, P}, dst[] = {B, C, C, Y, Z, Z, Q};
  static const int64_t key[] = {0, 1, 2, 3, 4, 5, 6, 7};
  struct acs_dag g;
  uint8_t keep[7];

  cr_assert_eq(acs_dag_build(&g, 8, 7, src, dst, key), ACS_OK);
  cr_assert_eq(acs_dag_reduce(&g, keep), ACS_OK);
  for (int32_t u = 0; u < 8; u++)
    for (int32_t k = g.succ_off[u]; k < g.succ_off[u + 1]; k++) {
      int implied = (u == A && g.succ[k] == C) || (u == X && g.succ[k] == Z);
      cr_assert_eq(keep[k], !implied, "%d -> %d", u, g.succ[k]);
    }
  acs_dag_destroy(&g);
}

Test(reach, order_follows_the_keys_and_cycles_are_refused)
{
  /* Three independent nodes keyed 30, 10, 20 come out as 1, 2, 0; adding
   * 0 -> 1 puts 0 before 1. A two-cycle is ACS_ECYCLE. */
  static const int64_t key[] = {30, 10, 20};
  static const int32_t s1[] = {0}, d1[] = {1}, s2[] = {0, 1}, d2[] = {1, 0};
  struct acs_dag g;

  cr_assert_eq(acs_dag_build(&g, 3, 0, NULL, NULL, key), ACS_OK);
  cr_assert(g.topo[0] == 1 && g.topo[1] == 2 && g.topo[2] == 0);
  cr_assert(g.pos[1] == 0 && g.pos[2] == 1 && g.pos[0] == 2);
  acs_dag_destroy(&g);
  cr_assert_eq(acs_dag_build(&g, 3, 1, s1, d1, key), ACS_OK);
  cr_assert(g.topo[0] == 2 && g.topo[1] == 0 && g.topo[2] == 1);
  acs_dag_destroy(&g);
  cr_assert_eq(acs_dag_build(&g, 2, 2, s2, d2, NULL), ACS_ECYCLE);
}
