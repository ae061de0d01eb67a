/*
 * list.c - the list scheduler: the seed's Feasible Schedule Generator (seed
 * 000, "Feasible Schedule Generating Algorithm") over the whole resource
 * vector, with priority rules and optional forward-backward improvement.
 *
 * The seed's FSG keeps a topologically sorted list U of unscheduled ops and a
 * min-heap H of (completion time, op) of active ops; it starts any op of U
 * whose predecessors are done and whose demand fits, else pops one completion
 * and advances the clock. Three changes make it a parallel schedule
 * generation scheme that is fast and well defined:
 *
 *  - As review comment 5 of the seed suggests, U is kept as a graph: a count
 *    of unfinished predecessors per op, and a ready set R of ops whose
 *    predecessors are all complete. R is ordered by a priority rule (option
 *    `rule`), ties by op id, so the result is deterministic.
 *  - All ops completing at the same time are released together before the
 *    next decision. The seed pops one completion at a time, so at a decision
 *    instant T only part of the capacity freed at T is visible: a low-priority
 *    op that fits the partial release starts first and may take what a
 *    higher-priority op needed, which is exactly what the priority rule is
 *    meant to prevent. Releasing everything due at T makes each decision see
 *    the true state of time T.
 *  - The seed's loop never terminates when an op alone demands more than a
 *    capacity: it is never chosen, and once the heap is empty nothing can free
 *    resources. acs__sched_precheck rejects such an op first, naming it
 *    (ACS_EINFEASIBLE); after that, whenever the heap is empty all capacity is
 *    free and the best ready op fits, so every iteration makes progress.
 *
 * Making a decision instant cheap. The naive decision scans all of R in
 * priority order and starts every op that fits; an op that does not fit is
 * rescanned at every later instant, which is O(V^2) on wide graphs (10^5
 * ready convolutions waiting for 4 PEs). Instead R is split into buckets by
 * demand signature (the set of resources an op demands). Within a bucket a
 * resource is either constant (every op of the bucket demands the same
 * amount, e.g. one PE) or varying (e.g. CMX bytes). Each bucket keeps a
 * segment tree over its ops in priority order holding, per varying resource,
 * the minimum demand among its ready ops. The first ready op of a bucket that
 * fits is found by descending into the leftmost subtree whose minima all fit;
 * a bucket whose constant demands do not fit is skipped in O(R).
 *
 * Complexity. Each op enters and leaves a tree once, O(R log V); releases and
 * readiness cost O(E) plus O(log V) per heap operation; there are at most V + 1
 * decision instants, and each one queries every nonempty bucket once and
 * re-queries after each start, O(S R log V) per instant and per start, with S
 * the number of distinct signatures (at most min(V, 2^R); 3 or 4 on NPU
 * graphs, at most 15 on PSPLIB, R + 1 on unrolled loops). When a bucket has at most one varying resource the
 * descent never backtracks (a subtree whose minimum fits contains the op that
 * attains it), so a pass is O(V log V (S R) + E) = O((V + E) log V) for a
 * fixed resource vector. With two or more varying resources in one bucket
 * (PSPLIB jobs demanding several resources in different amounts) the minima
 * are only a necessary condition and the descent may visit leaves that do not
 * fit; it is then O(n) per query in the worst case, still far below a full
 * rescan in practice.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/npu/npu.h"
#include "core/sched/heap.h"

enum { RULE_TOPO, RULE_LPATH, RULE_LFT, RULE_MTS };
enum { SGS_PARALLEL, SGS_SERIAL };

struct list_opts {
  int64_t rule;       /* index into rule_choices */
  int64_t sgs;        /* index into sgs_choices */
  int64_t justify;    /* forward-backward rounds, 0 = off */
  int64_t iterations; /* randomized samples after the first pass, 0 = none */
};

/* Forward-backward passes are O(V^2 R) (justify.c); beyond this size the
 * single pass is returned unchanged, so that 10^6-op graphs still schedule
 * in seconds with the default options. */
#define JUSTIFY_MAX_OPS 20000

/* ---- priority rules -------------------------------------------------- */

/* Longest path from each op to a sink, its own duration included. O(V + E).
 * The precheck bounds the sum of durations, so no sum overflows. */
static void longest_tail(const struct acs_problem *pb, int64_t *lp)
{
  const struct acs_graph *g = pb->g;

  for (int32_t i = pb->nops - 1; i >= 0; i--) {
    int32_t v = g->topo[i];
    int64_t best = 0;
    for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
      if (lp[g->succ[k]] > best)
        best = lp[g->succ[k]];
    lp[v] = pb->dur[v] + best;
  }
}

/* Exact transitive successor counts cost O((V + E) V / 64) word operations;
 * above this many the counts are estimated (mts_estimate). */
#define MTS_EXACT_WORK (UINT64_C(1) << 28)
#define MTS_WORDS 16 /* targets per pass: 64 * MTS_WORDS */

/*
 * Exact counts of transitive successors, by bit-parallel reachability: for a
 * block of 64 * MTS_WORDS target ops, reach[v] is the set of targets that
 * are strict descendants of v, computed in reverse topological order as the
 * union over successors s of reach[s] plus s itself. Blocks are processed
 * one after the other, so memory is O(V MTS_WORDS) whatever the size.
 */
static int mts_exact(const struct acs_problem *pb, int64_t *count)
{
  const struct acs_graph *g = pb->g;
  int32_t n = pb->nops;
  uint64_t *reach;

  reach = acs__sched_array((size_t)n, sizeof(*reach) * MTS_WORDS);
  if (!reach)
    return ACS_ENOMEM;
  memset(count, 0, sizeof(*count) * (size_t)n);
  for (int32_t b0 = 0; b0 < n; b0 += 64 * MTS_WORDS) {
    for (int32_t i = n - 1; i >= 0; i--) {
      int32_t v = g->topo[i];
      uint64_t *rv = reach + (size_t)v * MTS_WORDS;
      memset(rv, 0, sizeof(*rv) * MTS_WORDS);
      for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++) {
        int32_t s = g->succ[k];
        const uint64_t *rs = reach + (size_t)s * MTS_WORDS;
        for (int w = 0; w < MTS_WORDS; w++)
          rv[w] |= rs[w];
        if (s >= b0 && s - b0 < 64 * MTS_WORDS)
          rv[(s - b0) / 64] |= UINT64_C(1) << ((s - b0) % 64);
      }
      for (int w = 0; w < MTS_WORDS; w++)
        count[v] += __builtin_popcountll(rv[w]);
    }
  }
  free(reach);
  return ACS_OK;
}

#define MTS_K 16 /* sketch size of the estimate */

static uint32_t mts_hash(int32_t v)
{
  uint64_t z = (uint64_t)v * UINT64_C(0x9E3779B97F4A7C15) + UINT64_C(0x6A09E667F3BCC909);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return (uint32_t)((z ^ (z >> 31)) >> 32) | 1u; /* 0 marks an empty slot */
}

/* Merges sorted sketch b into sorted sketch a, keeping the MTS_K smallest
 * distinct values. */
static void sketch_merge(uint32_t *a, const uint32_t *b)
{
  uint32_t out[MTS_K];
  int i = 0, j = 0, o = 0;

  while (o < MTS_K) {
    uint32_t x = i < MTS_K && a[i] ? a[i] : UINT32_MAX;
    uint32_t y = j < MTS_K && b[j] ? b[j] : UINT32_MAX;
    uint32_t m = x < y ? x : y;
    if (m == UINT32_MAX)
      break;
    out[o++] = m;
    if (x == m)
      i++;
    if (y == m)
      j++;
  }
  memset(a, 0, sizeof(out));
  memcpy(a, out, sizeof(*out) * (size_t)o);
}

/*
 * Estimated counts for graphs too large for the exact ones: each op gets a
 * fixed pseudo-random 32-bit hash, and each op keeps the MTS_K smallest
 * hashes of its descendants (a bottom-k sketch, merged over successors in
 * reverse topological order, O(E MTS_K)). Fewer than MTS_K distinct hashes
 * give the exact count; otherwise (MTS_K - 1) 2^32 / (k-th smallest hash)
 * estimates it with a relative error of about 1 / sqrt(MTS_K - 2) (25%).
 * Deterministic: the hashes depend only on op ids.
 */
static int mts_estimate(const struct acs_problem *pb, int64_t *count)
{
  const struct acs_graph *g = pb->g;
  int32_t n = pb->nops;
  uint32_t *sk, one[MTS_K];

  sk = acs__sched_array((size_t)n, sizeof(*sk) * MTS_K);
  if (!sk)
    return ACS_ENOMEM;
  for (int32_t i = n - 1; i >= 0; i--) {
    int32_t v = g->topo[i];
    uint32_t *sv = sk + (size_t)v * MTS_K;
    int c = 0;
    memset(sv, 0, sizeof(*sv) * MTS_K);
    for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++) {
      int32_t s = g->succ[k];
      memset(one, 0, sizeof(one));
      one[0] = mts_hash(s);
      sketch_merge(sv, one);
      sketch_merge(sv, sk + (size_t)s * MTS_K);
    }
    while (c < MTS_K && sv[c])
      c++;
    count[v] = c < MTS_K ? c
                         : (int64_t)((double)(MTS_K - 1) * 4294967296.0 / (double)sv[MTS_K - 1]);
  }
  free(sk);
  return ACS_OK;
}

static int mts_counts(const struct acs_problem *pb, int64_t *count)
{
  uint64_t blocks = ((uint64_t)pb->nops + 64 * MTS_WORDS - 1) / (64 * MTS_WORDS);
  uint64_t work = ((uint64_t)pb->nops + (uint64_t)pb->g->nedges) * blocks * MTS_WORDS;

  if (work <= MTS_EXACT_WORK)
    return mts_exact(pb, count);
  return mts_estimate(pb, count);
}


/* Fills key[v]: smaller is more urgent. */
static int rule_keys(const struct acs_problem *pb, int rule, int64_t *key)
{
  int64_t cp = 0;

  switch (rule) {
  case RULE_TOPO:
    for (int32_t i = 0; i < pb->nops; i++)
      key[pb->g->topo[i]] = i;
    return ACS_OK;
  case RULE_LPATH:
    longest_tail(pb, key);
    for (int32_t v = 0; v < pb->nops; v++)
      key[v] = -key[v];
    return ACS_OK;
  case RULE_LFT:
    /* LFT(v) = CP - (tail after v's end): the latest finish that does not
     * delay the critical-path bound CP. */
    longest_tail(pb, key);
    for (int32_t v = 0; v < pb->nops; v++)
      if (key[v] > cp)
        cp = key[v];
    for (int32_t v = 0; v < pb->nops; v++)
      key[v] = cp - (key[v] - pb->dur[v]);
    return ACS_OK;
  case RULE_MTS: {
    int err = mts_counts(pb, key);
    for (int32_t v = 0; v < pb->nops; v++)
      key[v] = -key[v];
    return err;
  }
  default:
    return ACS_EINVAL;
  }
}

/* rank[v]: position of v in priority order (0 first), ties by op id.
 * O(V + E) for the keys (more for exact mts) plus O(V log V) to sort. */
static int priority_ranks(const struct acs_problem *pb, int rule, int32_t *rank)
{
  struct acs__rank_key *rk;
  int64_t *key;
  int err;

  key = acs__sched_array((size_t)pb->nops, sizeof(*key));
  rk = acs__sched_array((size_t)pb->nops, sizeof(*rk));
  err = (key && rk) ? rule_keys(pb, rule, key) : ACS_ENOMEM;
  if (err == ACS_OK) {
    for (int32_t v = 0; v < pb->nops; v++) {
      rk[v].key = key[v];
      rk[v].id = v;
    }
    qsort(rk, (size_t)pb->nops, sizeof(*rk), acs__rank_key_cmp);
    for (int32_t i = 0; i < pb->nops; i++)
      rank[rk[i].id] = i;
  }
  free(rk);
  free(key);
  return err;
}

/* ---- parallel schedule generation ------------------------------------ */

/* Ready ops of one demand signature (see the comment at the top). */
struct bucket {
  int32_t n, size;            /* ops of this signature; leaves (power of 2) */
  int32_t *ops;               /* its ops in priority order (into psgs.bops) */
  int ncol;                   /* tree columns (>= 1) */
  int col_res[ACS_MAX_RES];   /* varying resource of each column; -1 = "ready" flag */
  int nconst;
  int const_res[ACS_MAX_RES];
  int64_t const_dem[ACS_MAX_RES];
  int64_t *tree;              /* 2 size x ncol minima; INT64_MAX = nothing ready */
  int32_t nready;
  int32_t cand;               /* first ready op that fits, -1 none */
};

struct psgs {
  const struct acs_problem *pb;
  const int32_t *rank;
  int32_t nb;
  struct bucket *b;
  int32_t *bucket_of, *leaf; /* per op: its bucket and position there */
  int32_t *bops;             /* all ops, grouped by bucket */
  int32_t *waiting;          /* unfinished predecessors per op */
  int64_t avail[ACS_MAX_RES];
  struct acs_heap active;    /* (completion time, op) */
};

/* The set of resources op v demands, as a bitset of SIG_WORDS words. */
#define SIG_WORDS ((ACS_MAX_RES + 63) / 64)
struct sig {
  uint64_t w[SIG_WORDS];
};

static struct sig signature(const struct acs_problem *pb, int32_t v)
{
  struct sig m;

  memset(&m, 0, sizeof(m));
  for (int r = 0; r < pb->nres; r++)
    if (acs_problem_demand(pb, v, r) > 0)
      m.w[r / 64] |= UINT64_C(1) << (r % 64);
  return m;
}

static uint64_t sig_hash(const struct sig *m)
{
  uint64_t h = UINT64_C(0x9e3779b97f4a7c15);

  for (int k = 0; k < SIG_WORDS; k++) {
    h ^= m->w[k];
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 32;
  }
  return h;
}

/* Splits the signature's resources (those its first op demands; every op of
 * the bucket demands the same ones) into constant and varying ones. */
static void bucket_columns(struct bucket *bk, const struct acs_problem *pb)
{
  bk->ncol = bk->nconst = 0;
  for (int r = 0; r < pb->nres; r++) {
    int64_t first = acs_problem_demand(pb, bk->ops[0], r);
    int varies = 0;
    if (first <= 0)
      continue;
    for (int32_t i = 1; i < bk->n && !varies; i++)
      varies = acs_problem_demand(pb, bk->ops[i], r) != first;
    if (varies) {
      bk->col_res[bk->ncol++] = r;
    } else {
      bk->const_res[bk->nconst] = r;
      bk->const_dem[bk->nconst++] = first;
    }
  }
  if (bk->ncol == 0)
    bk->col_res[bk->ncol++] = -1;
}

static int bucket_alloc_tree(struct bucket *bk)
{
  size_t cells;

  bk->size = 1;
  while (bk->size < bk->n)
    bk->size *= 2;
  if (acs_mul_size((size_t)bk->size * 2, (size_t)bk->ncol, &cells) != 0 ||
      acs_mul_size(cells, sizeof(int64_t), &cells) != 0)
    return ACS_ENOMEM;
  bk->tree = malloc(cells);
  if (!bk->tree)
    return ACS_ENOMEM;
  for (size_t i = 0; i < cells / sizeof(int64_t); i++)
    bk->tree[i] = INT64_MAX;
  return ACS_OK;
}

/*
 * Numbers the distinct signatures in order of first appearance: an
 * open-addressing table of (signature, bucket) with at least twice as many
 * slots as ops. O(V R) expected.
 */
static int number_signatures(struct psgs *s, const int32_t *order)
{
  const struct acs_problem *pb = s->pb;
  size_t cap = 16;
  struct sig *key;
  int32_t *val;

  while (cap < 2 * (size_t)pb->nops + 2)
    cap *= 2;
  key = malloc(cap * sizeof(*key));
  val = malloc(cap * sizeof(*val));
  if (!key || !val) {
    free(key);
    free(val);
    return ACS_ENOMEM;
  }
  for (size_t k = 0; k < cap; k++)
    val[k] = -1;
  s->nb = 0;
  for (int32_t i = 0; i < pb->nops; i++) {
    struct sig m = signature(pb, order[i]);
    size_t k = (size_t)sig_hash(&m) & (cap - 1);
    while (val[k] >= 0 && memcmp(&key[k], &m, sizeof(m)) != 0)
      k = (k + 1) & (cap - 1);
    if (val[k] < 0) {
      key[k] = m;
      val[k] = s->nb++;
    }
    s->bucket_of[order[i]] = val[k];
  }
  free(key);
  free(val);
  return ACS_OK;
}

/* Groups ops by signature, each group in priority order. O(V R). */
static int build_buckets(struct psgs *s, const int32_t *order)
{
  const struct acs_problem *pb = s->pb;
  int32_t *fill;
  int err;

  if ((err = number_signatures(s, order)) < 0)
    return err;
  s->b = calloc((size_t)s->nb + 1, sizeof(*s->b));
  fill = calloc((size_t)s->nb + 1, sizeof(*fill));
  if (!s->b || !fill) {
    free(fill);
    return ACS_ENOMEM;
  }
  for (int32_t v = 0; v < pb->nops; v++)
    s->b[s->bucket_of[v]].n++;
  for (int32_t b = 0, at = 0; b < s->nb; at += s->b[b].n, b++)
    s->b[b].ops = s->bops + at;
  for (int32_t i = 0; i < pb->nops; i++) {
    struct bucket *bk = &s->b[s->bucket_of[order[i]]];
    s->leaf[order[i]] = fill[bk - s->b];
    bk->ops[fill[bk - s->b]++] = order[i];
  }
  free(fill);
  for (int32_t b = 0; err == ACS_OK && b < s->nb; b++) {
    bucket_columns(&s->b[b], pb);
    err = bucket_alloc_tree(&s->b[b]);
  }
  return err;
}

/* Sets the leaf of v to its demands (ready) or to INT64_MAX (not ready) and
 * updates the minima up to the root. O(ncol log n). */
static void bucket_set(struct psgs *s, int32_t v, int ready)
{
  struct bucket *bk = &s->b[s->bucket_of[v]];
  int nc = bk->ncol;
  size_t node = (size_t)bk->size + (size_t)s->leaf[v];

  for (int c = 0; c < nc; c++)
    bk->tree[node * nc + c] = !ready ? INT64_MAX
                              : bk->col_res[c] < 0 ? 0
                              : acs_problem_demand(s->pb, v, bk->col_res[c]);
  bk->nready += ready ? 1 : -1;
  for (node /= 2; node >= 1; node /= 2)
    for (int c = 0; c < nc; c++) {
      int64_t l = bk->tree[2 * node * nc + c], r = bk->tree[(2 * node + 1) * nc + c];
      bk->tree[node * nc + c] = l < r ? l : r;
    }
}

static int node_fits(const struct bucket *bk, size_t node, const int64_t *thr)
{
  for (int c = 0; c < bk->ncol; c++)
    if (bk->tree[node * (size_t)bk->ncol + c] > thr[c])
      return 0;
  return 1;
}

static int32_t descend(const struct bucket *bk, size_t node, const int64_t *thr)
{
  int32_t found;

  if (!node_fits(bk, node, thr))
    return -1;
  if (node >= (size_t)bk->size)
    return bk->ops[node - (size_t)bk->size];
  found = descend(bk, 2 * node, thr);
  return found >= 0 ? found : descend(bk, 2 * node + 1, thr);
}

/* The ready op of bucket bk that comes first in priority order among those
 * whose demands fit the available capacities, or -1. */
static int32_t bucket_first_fit(const struct psgs *s, const struct bucket *bk)
{
  int64_t thr[ACS_MAX_RES];

  if (bk->nready == 0)
    return -1;
  for (int i = 0; i < bk->nconst; i++)
    if (bk->const_dem[i] > s->avail[bk->const_res[i]])
      return -1;
  for (int c = 0; c < bk->ncol; c++)
    thr[c] = bk->col_res[c] < 0 ? 0 : s->avail[bk->col_res[c]];
  return descend(bk, 1, thr);
}

static int op_fits(const struct psgs *s, int32_t v)
{
  for (int r = 0; r < s->pb->nres; r++)
    if (acs_problem_demand(s->pb, v, r) > s->avail[r])
      return 0;
  return 1;
}

static int start_op(struct psgs *s, int32_t v, int64_t t, int64_t *start)
{
  bucket_set(s, v, 0);
  for (int r = 0; r < s->pb->nres; r++)
    s->avail[r] -= acs_problem_demand(s->pb, v, r);
  start[v] = t;
  return acs_heap_push(&s->active, t + s->pb->dur[v], v);
}

/*
 * One decision instant: start, in priority order, every ready op that fits
 * what the ops started before it at this instant left. Each bucket's first
 * fitting op is cached; capacities only shrink during the instant, so a
 * cached op that still fits is still its bucket's first fit.
 */
static int decide(struct psgs *s, int64_t t, int64_t *start)
{
  int err = ACS_OK;

  for (int32_t b = 0; b < s->nb; b++)
    s->b[b].cand = bucket_first_fit(s, &s->b[b]);
  while (err == ACS_OK) {
    int32_t best = -1;
    for (int32_t b = 0; b < s->nb; b++)
      if (s->b[b].cand >= 0 &&
          (best < 0 || s->rank[s->b[b].cand] < s->rank[s->b[best].cand]))
        best = b;
    if (best < 0)
      break;
    err = start_op(s, s->b[best].cand, t, start);
    for (int32_t b = 0; b < s->nb; b++)
      if (s->b[b].cand >= 0 && (b == best || !op_fits(s, s->b[b].cand)))
        s->b[b].cand = bucket_first_fit(s, &s->b[b]);
  }
  return err;
}

/* Releases every op completing at time t and makes its successors ready. */
static int64_t release_due(struct psgs *s, int32_t *done)
{
  const struct acs_graph *g = s->pb->g;
  int64_t t = acs_heap_peek(&s->active).key;

  while (!acs_heap_empty(&s->active) && acs_heap_peek(&s->active).key == t) {
    int32_t v = acs_heap_pop(&s->active).id;
    for (int r = 0; r < s->pb->nres; r++)
      s->avail[r] += acs_problem_demand(s->pb, v, r);
    (*done)++;
    for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
      if (--s->waiting[g->succ[k]] == 0)
        bucket_set(s, g->succ[k], 1);
  }
  return t;
}

static int psgs_run(struct psgs *s, int64_t *start, struct acs_diag *d)
{
  const struct acs_graph *g = s->pb->g;
  int32_t done = 0;
  int64_t t = 0;
  int err = ACS_OK;

  for (int r = 0; r < s->pb->nres; r++)
    s->avail[r] = s->pb->cap[r];
  for (int32_t v = 0; v < s->pb->nops; v++) {
    s->waiting[v] = g->pred_off[v + 1] - g->pred_off[v];
    if (s->waiting[v] == 0)
      bucket_set(s, v, 1);
  }
  while (err == ACS_OK && done < s->pb->nops) {
    err = decide(s, t, start);
    if (err != ACS_OK)
      break;
    if (acs_heap_empty(&s->active))
      /* Cannot happen after the precheck on a finalized (acyclic) graph. */
      return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                          "list: no op can start at time %lld", (long long)t);
    t = release_due(s, &done);
  }
  return err;
}

/* Parallel SGS with priorities rank[]. Fills start[]. */
static int parallel_sgs(const struct acs_problem *pb, const int32_t *rank,
                        int64_t *start, struct acs_diag *d)
{
  struct psgs s;
  int32_t n = pb->nops, *order;
  int err;

  memset(&s, 0, sizeof(s));
  s.pb = pb;
  s.rank = rank;
  /* One block for the five per-op arrays. */
  order = acs__sched_array((size_t)n * 5 + 4, sizeof(int32_t));
  if (!order)
    return ACS_ENOMEM;
  s.bucket_of = order + n + 1;
  s.leaf = s.bucket_of + n + 1;
  s.bops = s.leaf + n + 1;
  s.waiting = s.bops + n + 1;
  for (int32_t v = 0; v < n; v++)
    order[rank[v]] = v;
  err = acs_heap_init(&s.active, 1024);
  if (err != ACS_OK)
    goto out_with_arrays;
  err = build_buckets(&s, order);
  if (err == ACS_OK)
    err = psgs_run(&s, start, d);
  for (int32_t b = 0; s.b && b < s.nb; b++)
    free(s.b[b].tree);
  free(s.b);
  acs_heap_destroy(&s.active);
out_with_arrays:
  free(order);
  return err;
}

/* ---- randomized sampling -------------------------------------------- */

/*
 * Regret-based biased random sampling (Drexl 1991; Kolisch & Drexl 1996),
 * the sampling rule of the best single-pass heuristics on PSPLIB: an
 * activity list is built one op at a time, each time drawing among the
 * eligible ops (all predecessors listed) with a probability proportional to
 * regret + 1, where an op's regret is how much better its key is than the
 * worst eligible key. So the rule's choice is the most likely, ops the rule
 * ranks much worse are rarely drawn, and equal keys are equally likely.
 * (Kolisch's alpha = 1, i.e. weights linear in the regret: on j30 with 1000
 * samples it gave 0.21-0.25% over three seeds, squared regrets 0.26-0.31%.)
 * The list position becomes the rank both schedule generation schemes use.
 * O(V W) per sample for W eligible ops at a time (W is small on PSPLIB; on
 * very wide graphs the time limit bounds the sampling).
 */
struct sampler {
  const struct acs_problem *pb;
  const int64_t *key;      /* the rule's keys, smaller is more urgent */
  int32_t *waiting, *elig; /* unlisted predecessors; eligible ops */
  double *w;               /* weights of elig[] */
  struct acs_rng rng;
};

static int sampler_init(struct sampler *sp, const struct acs_problem *pb,
                        const int64_t *key, uint64_t seed)
{
  memset(sp, 0, sizeof(*sp));
  sp->pb = pb;
  sp->key = key;
  sp->waiting = acs__sched_array((size_t)pb->nops, sizeof(*sp->waiting));
  sp->elig = acs__sched_array((size_t)pb->nops, sizeof(*sp->elig));
  sp->w = acs__sched_array((size_t)pb->nops, sizeof(*sp->w));
  acs_rng_seed(&sp->rng, seed);
  return sp->waiting && sp->elig && sp->w ? ACS_OK : ACS_ENOMEM;
}

static void sampler_destroy(struct sampler *sp)
{
  free(sp->waiting);
  free(sp->elig);
  free(sp->w);
}

/* Draws index into elig[0..ne) by regret weights. */
static int32_t sampler_draw(struct sampler *sp, int32_t ne)
{
  int64_t worst = INT64_MIN;
  double total = 0, u;
  int32_t i;

  for (i = 0; i < ne; i++)
    if (sp->key[sp->elig[i]] > worst)
      worst = sp->key[sp->elig[i]];
  for (i = 0; i < ne; i++) {
    double regret = (double)worst - (double)sp->key[sp->elig[i]] + 1.0;
    sp->w[i] = regret; /* alpha = 1 */
    total += sp->w[i];
  }
  u = acs_rng_unit(&sp->rng) * total;
  for (i = 0; i < ne - 1; i++) {
    u -= sp->w[i];
    if (u < 0)
      break;
  }
  return i;
}

/* Fills rank[] with a sampled activity list (a topological order). */
static void sample_ranks(struct sampler *sp, int32_t *rank)
{
  const struct acs_graph *g = sp->pb->g;
  int32_t ne = 0;

  for (int32_t v = 0; v < sp->pb->nops; v++) {
    sp->waiting[v] = g->pred_off[v + 1] - g->pred_off[v];
    if (sp->waiting[v] == 0)
      sp->elig[ne++] = v;
  }
  for (int32_t pos = 0; pos < sp->pb->nops; pos++) {
    int32_t i = sampler_draw(sp, ne), v = sp->elig[i];
    rank[v] = pos;
    /* Keep elig[] in insertion order (not swap-remove): the draw then
     * depends only on the sequence of choices, not on removal history. */
    memmove(sp->elig + i, sp->elig + i + 1, sizeof(*sp->elig) * (size_t)(ne - i - 1));
    ne--;
    for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
      if (--sp->waiting[g->succ[k]] == 0)
        sp->elig[ne++] = g->succ[k];
  }
}

/* ---- the variant ----------------------------------------------------- */

/* One schedule from ranks: the chosen generation scheme, then up to
 * `justify` forward-backward rounds (graphs of at most JUSTIFY_MAX_OPS). */
static int list_pass(const struct acs_problem *pb, const int32_t *rank, int sgs,
                     int64_t justify, int64_t bound, const struct acs__stop *stop,
                     int64_t *start, struct acs_diag *d)
{
  int err;

  if (sgs == SGS_SERIAL)
    err = acs__serial_sgs(pb, rank, start);
  else
    err = parallel_sgs(pb, rank, start, d);
  if (err == ACS_OK && justify > 0 && pb->nops <= JUSTIFY_MAX_OPS) {
    err = acs__justify(pb, start, (int)justify, bound, stop);
    err = err < 0 ? err : ACS_OK;
  }
  return err;
}

/*
 * The rule's deterministic pass into best[], then `iterations` sampled
 * activity lists, each scheduled by both generation schemes in turn
 * (serial on even samples, parallel on odd ones: the serial scheme reaches
 * every active schedule, the parallel one searches a smaller, on average
 * better set; alternating gave 0.21-0.25% on j30 with 1000 samples, serial
 * alone 0.34-0.38%, parallel alone 0.38-0.47%) and justified; the best makespan is
 * kept, the earliest sample on ties. Stops at the lower bound or at the
 * deadline (the only source of run-to-run differences: without a time limit
 * the result depends only on the seed); an interrupt (polled before every
 * sample, each a fraction of a second) ends it with ACS_EINTERRUPTED.
 */
static int list_search(const struct acs_problem *pb, const struct list_opts *o,
                       uint64_t seed, const struct acs__stop *stop, int64_t *best,
                       struct acs_diag *d)
{
  int64_t *key, *cur, bound = acs_bound_best(pb), mk;
  struct sampler sp;
  int32_t *rank;
  int err;

  key = acs__sched_array((size_t)pb->nops, sizeof(*key));
  cur = acs__sched_array((size_t)pb->nops, sizeof(*cur));
  rank = acs__sched_array((size_t)pb->nops, sizeof(*rank));
  err = key && cur && rank ? priority_ranks(pb, (int)o->rule, rank) : ACS_ENOMEM;
  if (err == ACS_OK)
    err = list_pass(pb, rank, (int)o->sgs, o->justify, bound, stop, best, d);
  if (err != ACS_OK || o->iterations <= 0)
    goto out_with_arrays;
  mk = acs__sched_makespan(pb, best);
  err = rule_keys(pb, (int)o->rule, key);
  if (err == ACS_OK)
    err = sampler_init(&sp, pb, key, seed);
  for (int64_t it = 0; err == ACS_OK && it < o->iterations && mk > bound; it++) {
    if (acs__stop_now(stop))
      break;
    sample_ranks(&sp, rank);
    err = list_pass(pb, rank, it % 2 ? SGS_PARALLEL : SGS_SERIAL, o->justify, bound,
                    stop, cur, d);
    if (err == ACS_OK && acs__sched_makespan(pb, cur) < mk) {
      mk = acs__sched_makespan(pb, cur);
      memcpy(best, cur, sizeof(*cur) * (size_t)pb->nops);
    }
  }
  sampler_destroy(&sp);
  if (err == ACS_OK && acs__stop_interrupted(stop))
    err = ACS_EINTERRUPTED;
out_with_arrays:
  free(rank);
  free(cur);
  free(key);
  return err;
}

int acs__list_heuristic(const struct acs_problem *pb, int64_t iterations,
                        uint64_t seed, const struct acs__stop *stop, int64_t *start,
                        struct acs_diag *d)
{
  struct list_opts o = { RULE_LFT, SGS_PARALLEL, 2, iterations };

  return list_search(pb, &o, seed, stop, start, d);
}

/* What list_search needs besides the problem, for acs__sched_by_starts. */
struct list_run {
  const struct list_opts *o;
  uint64_t seed;
  struct acs__stop stop;
};

static int list_starts(const struct acs_problem *pb, void *arg, int64_t *start,
                       struct acs_diag *d)
{
  struct list_run *run = arg;

  return list_search(pb, run->o, run->seed, &run->stop, start, d);
}

static int list_schedule(const struct acs_problem *pb, const void *opts,
                         const struct acs_sched_ctx *ctx,
                         struct acs_schedule *out, struct acs_diag *d)
{
  struct list_run run = { opts, ctx ? ctx->seed : 1,
                          acs__stop_make(ctx, ctx ? ctx->time_limit : 0) };

  return acs__sched_by_starts(pb, list_starts, &run, out, d);
}

static const char *const rule_choices[] = { "topo", "lpath", "lft", "mts", NULL };
static const char *const sgs_choices[] = { "parallel", "serial", NULL };

static const struct acs_opt_desc list_opts_desc[] = {
  ACS_OPT_ENUM_FIELD(struct list_opts, rule, "lft", rule_choices,
    "priority rule: topo (topological position), lpath (longest path to a sink), "
    "lft (latest finish time, smallest first), mts (most total successors)"),
  ACS_OPT_ENUM_FIELD(struct list_opts, sgs, "parallel", sgs_choices,
    "schedule generation: parallel (event-driven FSG) or serial (one op at a time "
    "at its earliest feasible start; O(V^2 R))"),
  ACS_OPT_INT_FIELD(struct list_opts, justify, "2", 0, 1000,
    "forward-backward improvement rounds (0 = off; graphs of at most 20000 ops)"),
  ACS_OPT_INT_FIELD(struct list_opts, iterations, "0", 0, 100000000,
    "randomized samples after the rule's pass (regret-based biased sampling of the "
    "rule's priorities, serial and parallel generation in turn, each justified); "
    "the best is kept; deterministic for --seed; stops at the lower bound or --time-limit"),
  ACS_OPT_END,
};

const struct acs_sched_ops acs_sched_listsched = {
  .name = "list",
  .memory_model = ACS_MEM_TRANSIENT, /* the seed's FSG: a tensor holds CMX only while an op that touches it runs */
  .seed = ACS_SEED_KUNDETI,
  .summary = "feasible schedule generator: event-driven list scheduling over "
             "every resource, with priority rules",
  .kinds = ACS_KINDS_OPGRAPH | ACS_WL_BIT(ACS_WL_LOOP) | ACS_WL_BIT(ACS_WL_AFFINE),
  ACS_SCHED_OPTS(struct list_opts, list_opts_desc),
  .schedule = list_schedule,
};
