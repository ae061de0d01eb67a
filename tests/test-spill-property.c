/*
 * test-spill-property.c - `spill` on random DAGs, each schedule replayed with
 * random durations (start times recomputed from the edges alone, no two CMX
 * ranges overlapping), determinism, and every DNN from 16 KiB to 8 MiB.
 *
 * Expected values are derived by hand in the comments, or by a second
 * method. Every schedule produced here goes through acs_schedule_verify.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/sched/ctrledge.h"
#include "core/sched/interval.h"
#include "core/sched/npu/spill.h"
#include "tests/testutil.h"

#include "tests/spill_util.h"

/* ---- property tests on random DAGs ----------------------------------- */

/*
 * A random DAG: 8 to 40 ops, a quarter loads from DDR (no predecessors),
 * the rest compute ops with 1 to 3 data inputs among all earlier ops (so
 * some tensors live long), a few control edges; tensors of 1 B to a third of
 * the CMX; durations 1 to 100 (loads: the platform's DDR time). CMX of 1 to
 * 8 KiB, alignment 1, 64 or 256.
 */
static void random_spill_dag(struct acs_graph *g, struct acs_rng *r, int64_t cmx)
{
  int32_t n = 8 + (int32_t)acs_rng_below(r, 33);
  char name[32];

  tu_graph_npu(g, "rnd");
  for (int32_t i = 0; i < n; i++) {
    int load = i < 2 || acs_rng_below(r, 4) == 0;
    int64_t bytes = 1 + (int64_t)acs_rng_below(r, (uint64_t)(cmx / 3));
    snprintf(name, sizeof(name), "op%d", i);
    if (load) {
      int32_t id = top(g, name, ACS_OP_DMA, -1, bytes);
      (void)id;
      continue;
    }
    int32_t id = top(g, name, ACS_OP_DPU, 1 + (int64_t)acs_rng_below(r, 100),
                     acs_rng_below(r, 8) == 0 ? 0 : bytes);
    int32_t npred = 1 + (int32_t)acs_rng_below(r, 3);
    for (int32_t k = 0; k < npred; k++)
      tu_edge(g, (int32_t)acs_rng_below(r, (uint64_t)id), id);
    if (acs_rng_below(r, 6) == 0)
      cr_assert_eq(acs_graph_add_edge(g, (int32_t)acs_rng_below(r, (uint64_t)id), id,
                                      ACS_EDGE_CONTROL), ACS_OK);
  }
  tu_finalize(g);
}

/* The precondition computed independently: distinct data inputs plus the
 * output, each rounded up to the alignment, against the aligned capacity. */
static int precondition_holds(const struct acs_graph *g, int64_t cap, int64_t align)
{
  int64_t usable = cap / align * align;

  for (int32_t v = 0; v < g->nops; v++) {
    int64_t need = (g->ops[v].out_bytes + align - 1) / align * align;
    for (int32_t u = 0; u < g->nops; u++) {
      int is_in = 0;
      for (int32_t e = 0; e < g->nedges && !is_in; e++)
        is_in = g->edges[e].src == u && g->edges[e].dst == v &&
                g->edges[e].kind == ACS_EDGE_DATA;
      if (is_in)
        need += (g->ops[u].out_bytes + align - 1) / align * align;
    }
    if (need > usable)
      return 0;
  }
  return 1;
}

/*
 * Replays s with random durations: every op keeps its CMX range, starts as
 * soon as its predecessors over the edges (all of them, or with !use_added
 * all but the control edges added after the graph's first `keep` edges)
 * have ended, and holds its range from
 * its start until the last op that held it in the plan (its data successors
 * running inside [cmx_alloc, cmx_free]) ends. Returns the number of pairs
 * of ranges that overlap in address and in time.
 */
#define INCLUDED(e) ((e) < keep || use_added || s->edges[e].kind == ACS_EDGE_DATA)

static int replay_overlaps(const struct acs_schedule *s, struct acs_rng *r, int32_t keep,
                           int use_added, int64_t *max_ops)
{
  int32_t n = s->nops, *indeg = calloc((size_t)n, sizeof(int32_t)), *q = malloc((size_t)n * 4);
  int64_t *dur = malloc((size_t)n * 8), *st = calloc((size_t)n, 8), *fr = malloc((size_t)n * 8);
  int qh = 0, qt = 0, over = 0;

  cr_assert(indeg && q && dur && st && fr);
  *max_ops = n > *max_ops ? n : *max_ops;
  for (int32_t i = 0; i < n; i++)
    dur[i] = s->ops[i].dur == 0 ? 0 : 1 + (int64_t)acs_rng_below(r, (uint64_t)(3 * s->ops[i].dur));
  for (int32_t e = 0; e < s->nedges; e++)
    if (INCLUDED(e))
      indeg[s->edges[e].dst]++;
  for (int32_t i = 0; i < n; i++)
    if (indeg[i] == 0)
      q[qt++] = i;
  while (qh < qt) {
    int32_t v = q[qh++];
    for (int32_t e = 0; e < s->nedges; e++)
      if (INCLUDED(e) && s->edges[e].src == v) {
        int32_t w = s->edges[e].dst;
        st[w] = st[v] + dur[v] > st[w] ? st[v] + dur[v] : st[w];
        if (--indeg[w] == 0)
          q[qt++] = w;
      }
  }
  cr_assert_eq(qt, n, "the edges have a cycle");
  for (int32_t i = 0; i < n; i++) {
    const struct acs_sop *o = &s->ops[i];
    fr[i] = st[i] + dur[i];
    if (o->cmx_offset < 0)
      continue;
    for (int32_t e = 0; e < s->nedges; e++) {
      const struct acs_sop *c = &s->ops[s->edges[e].dst];
      if (s->edges[e].src == i && s->edges[e].kind == ACS_EDGE_DATA &&
          (double)c->start >= o->cmx_alloc && (double)c->end <= o->cmx_free &&
          st[s->edges[e].dst] + dur[s->edges[e].dst] > fr[i])
        fr[i] = st[s->edges[e].dst] + dur[s->edges[e].dst];
    }
  }
  for (int32_t a = 0; a < n; a++)
    for (int32_t b = a + 1; b < n; b++) {
      const struct acs_sop *x = &s->ops[a], *y = &s->ops[b];
      if (x->cmx_offset < 0 || y->cmx_offset < 0)
        continue;
      if (x->cmx_offset < y->cmx_offset + y->cmx_bytes && y->cmx_offset < x->cmx_offset + x->cmx_bytes &&
          st[a] < fr[b] && st[b] < fr[a])
        over++;
    }
  free(indeg);
  free(q);
  free(dur);
  free(st);
  free(fr);
  return over;
}

static const char *const PLACEMENT[] = { "placement=first", "placement=best" };
static const char *const EVICT[] = { "evict=lru", "evict=belady" };
static const char *const CLEAN[] = { "clean=drop", "clean=write" };
static const char *const LOOK[] = { "lookahead=64", "lookahead=0", "lookahead=1", "lookahead=3" };

Test(property, random_dags_verify_and_never_overlap_in_any_order, .timeout = 120)
{
  struct acs_rng r;
  int feasible = 0, with_spills = 0, unsafe_without_ctrl = 0;
  int64_t max_ops = 0;

  acs_rng_seed(&r, 2024);
  for (int trial = 0; trial < 1400; trial++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_schedule_stats st;
    struct acs_spill_stats ss;
    struct acs_diag d;
    char kib[32], align[32];
    int64_t al = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 64 : 256;
    int64_t cmx = (int64_t)(1 + acs_rng_below(&r, 8)) << 10;
    const char *plat[] = { kib, align, NULL };
    const char *opts[] = { PLACEMENT[trial % 2], EVICT[(trial / 2) % 2], CLEAN[(trial / 4) % 2],
                           LOOK[(trial / 8) % 4], NULL };
    int err;

    snprintf(kib, sizeof(kib), "cmx_kib=%lld", (long long)(cmx >> 10));
    snprintf(align, sizeof(align), "cmx_align_bytes=%lld", (long long)al);
    random_spill_dag(&g, &r, cmx);
    tu_problem(&pb, &g, plat);
    err = run_spill(&pb, opts, &s, &ss, &d);
    if (!precondition_holds(&g, cmx, al)) {
      cr_assert_eq(err, ACS_EINFEASIBLE, "trial %d: %s", trial, d.msg);
      cr_assert(strstr(d.msg, "bytes of CMX at once"), "trial %d: %s", trial, d.msg);
    } else {
      cr_assert_eq(err, ACS_OK, "trial %d: %s (%s)", trial, acs_strerror(err), d.msg);
      tu_assert_verified(&s);
      feasible++;
      with_spills += s.nops > s.norig;
      acs_schedule_stats(&s, &st);
      cr_assert_eq(st.spill_bytes, ss.write_bytes);
      cr_assert_leq(st.peak_cmx_bytes, cmx);
      for (int k = 0; k < 3; k++)
        cr_assert_eq(replay_overlaps(&s, &r, g.nedges, 1, &max_ops), 0,
                     "trial %d: CMX ranges overlap in a replay that respects the edges", trial);
      unsafe_without_ctrl += replay_overlaps(&s, &r, g.nedges, 0, &max_ops) > 0;
    }
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  cr_assert_geq(feasible, 1000, "only %d feasible random DAGs", feasible);
  cr_assert_gt(with_spills, feasible / 4, "only %d of %d schedules spill", with_spills, feasible);
  /* The replay is able to fail: without the added edges some do overlap. */
  cr_assert_gt(unsafe_without_ctrl, 0);
}

/* Transitive reduction drops only edges implied by paths: with and without
 * it, a replay never overlaps, and the reduced set is never larger. */
Test(property, reduction_keeps_safety_and_never_adds)
{
  struct acs_rng r;
  int64_t max_ops = 0, full = 0, reduced = 0;

  acs_rng_seed(&r, 99);
  for (int trial = 0; trial < 200; trial++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s1, s2;
    const char *plat[] = { "cmx_kib=2", "cmx_align_bytes=64", NULL };
    const char *o1[] = { "reduce=0", NULL }, *o2[] = { "reduce=4096", NULL };
    struct acs_diag d;

    random_spill_dag(&g, &r, 2048);
    tu_problem(&pb, &g, plat);
    if (!precondition_holds(&g, 2048, 64)) {
      acs_problem_destroy(&pb);
      acs_graph_destroy(&g);
      continue;
    }
    cr_assert_eq(run_spill(&pb, o1, &s1, NULL, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(run_spill(&pb, o2, &s2, NULL, &d), ACS_OK, "%s", d.msg);
    tu_assert_verified(&s1);
    tu_assert_verified(&s2);
    full += count_edges_of_kind(&s1, ACS_EDGE_CONTROL);
    reduced += count_edges_of_kind(&s2, ACS_EDGE_CONTROL);
    cr_assert_leq(count_edges_of_kind(&s2, ACS_EDGE_CONTROL), count_edges_of_kind(&s1, ACS_EDGE_CONTROL));
    cr_assert_eq(replay_overlaps(&s1, &r, g.nedges, 1, &max_ops), 0);
    cr_assert_eq(replay_overlaps(&s2, &r, g.nedges, 1, &max_ops), 0);
    acs_schedule_destroy(&s1);
    acs_schedule_destroy(&s2);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  cr_assert_lt(reduced, full, "the reduction dropped nothing (%lld edges)", (long long)full);
}

Test(spill, deterministic)
{
  struct acs_rng r;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule a, b;
  struct acs_diag d;
  const char *plat[] = { "cmx_kib=2", NULL };

  acs_rng_seed(&r, 5);
  random_spill_dag(&g, &r, 2048);
  tu_problem(&pb, &g, plat);
  cr_assert_eq(run_spill(&pb, NULL, &a, NULL, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(run_spill(&pb, NULL, &b, NULL, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(a.nops, b.nops);
  cr_assert_eq(a.nedges, b.nedges);
  for (int32_t i = 0; i < a.nops; i++) {
    cr_assert_str_eq(a.ops[i].name, b.ops[i].name);
    cr_assert_eq(a.ops[i].start, b.ops[i].start);
    cr_assert_eq(a.ops[i].unit, b.ops[i].unit);
    cr_assert_eq(a.ops[i].cmx_offset, b.ops[i].cmx_offset);
  }
  for (int32_t e = 0; e < a.nedges; e++)
    cr_assert(a.edges[e].src == b.edges[e].src && a.edges[e].dst == b.edges[e].dst &&
              a.edges[e].kind == b.edges[e].kind);
  acs_schedule_destroy(&a);
  acs_schedule_destroy(&b);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- the DNN suite ----------------------------------------------------- */

struct dnn_run {
  int err;
  int64_t spill_bytes, added, makespan;
  char msg[1100];
};

static void run_dnn(const struct acs_workload *w, int64_t kib, const char *const *opts,
                    struct dnn_run *out)
{
  struct acs_platform p;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_schedule_stats st;
  struct acs_diag d;
  char set[32];

  acs_platform_init(&p);
  acs_diag_init(&d);
  snprintf(set, sizeof(set), "cmx_kib=%lld", (long long)kib);
  cr_assert_eq(acs_platform_set_kv(&p, set, &d), ACS_OK);
  memset(out, 0, sizeof(*out));
  out->err = acs_workload_build(w, &p, &g, &d);
  if (out->err != ACS_OK) {
    snprintf(out->msg, sizeof(out->msg), "%s", d.msg);
    return;
  }
  cr_assert_eq(acs_problem_init(&pb, &g, &p, &d), ACS_OK);
  out->err = run_spill(&pb, opts, &s, NULL, &d);
  snprintf(out->msg, sizeof(out->msg), "%s", d.msg);
  if (out->err == ACS_OK) {
    tu_assert_verified(&s);
    acs_schedule_stats(&s, &st);
    out->spill_bytes = st.spill_bytes;
    out->added = s.nops - s.norig;
    out->makespan = st.makespan;
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* Largest "inputs + output" of any op of the untiled network (at 1 GiB of
 * CMX nothing is tiled): from this size on no tensor ever needs to go. */
static int64_t largest_working_set(const struct acs_workload *w)
{
  struct acs_platform p;
  struct acs_graph g;
  struct acs_diag d;
  int64_t best = 0;

  acs_platform_init(&p);
  acs_diag_init(&d);
  cr_assert_eq(acs_platform_set_kv(&p, "cmx_kib=1048576", &d), ACS_OK);
  cr_assert_eq(acs_workload_build(w, &p, &g, &d), ACS_OK);
  for (int32_t v = 0; v < g.nops; v++) {
    int64_t need = (g.ops[v].out_bytes + 63) / 64 * 64;
    for (int32_t e = 0; e < g.nedges; e++)
      if (g.edges[e].dst == v && g.ops[g.edges[e].src].out_bytes > 0)
        need += (g.ops[g.edges[e].src].out_bytes + 63) / 64 * 64;
    best = need > best ? need : best;
  }
  acs_graph_destroy(&g);
  return best;
}

/*
 * Shipped networks at CMX sizes from 16 KiB to 8 MiB (doubling). From the
 * smallest size that schedules, every larger size schedules: the lowering
 * keeps a tensor in CMX only where every node of its life still has a
 * double-buffered cut, so no size fails on its neighbour's tensor. Below
 * it, a size is infeasible or needs more ops than a network may have (both
 * with the reason). Spilled bytes are zero once the CMX holds the largest
 * working set, and the smaller sizes do spill. (VGG-16, ResNet-50 and YOLO
 * take minutes at 16 KiB, where they are cut into 10^5-10^6 ops: the
 * property is the same, the three smaller tables show it.)
 */
Test(dnn, every_network_from_smallest_feasible_to_8_mib, .timeout = 300)
{
  static const char *const nets[] = { "alexnet", "resnet18", "mobilenet_v1" };
  const char *const opts[] = { NULL };

  for (size_t n = 0; n < sizeof(nets) / sizeof(nets[0]); n++) {
    char rel[128];
    struct acs_workload *w;
    struct acs_diag d;
    int64_t ws, first = 0, spilled_small = 0;

    snprintf(rel, sizeof(rel), "workloads/dnn/%s.csv", nets[n]);
    acs_diag_init(&d);
    cr_assert_eq(acs_workload_load(tu_path(rel), &w, &d), ACS_OK, "%s", d.msg);
    ws = largest_working_set(w);
    for (int64_t kib = 16; kib <= 8192; kib *= 2) {
      struct dnn_run r;
      run_dnn(w, kib, opts, &r);
      if (r.err == ACS_OK) {
        first = first ? first : kib;
        if (kib * 1024 >= ws)
          cr_assert_eq(r.spill_bytes, 0, "%s at %lld KiB (working set %lld): %lld bytes spilled",
                       nets[n], (long long)kib, (long long)ws, (long long)r.spill_bytes);
        else
          spilled_small += r.spill_bytes;
        continue;
      }
      cr_assert(r.err == ACS_EINFEASIBLE || r.err == ACS_ERANGE, "%s at %lld KiB: %s", nets[n],
                (long long)kib, r.msg);
      cr_assert_eq(first, 0, "%s at %lld KiB fails after %lld KiB worked: %s", nets[n],
                   (long long)kib, (long long)first, r.msg);
    }
    cr_assert_gt(first, 0, "%s never schedules", nets[n]);
    cr_assert_gt(spilled_small, 0, "%s never spills below %lld bytes", nets[n], (long long)ws);
    acs_workload_free(w);
  }
}
