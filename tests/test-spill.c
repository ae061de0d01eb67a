/*
 * test-spill.c - the `spill` variant (seed 000: producer/consumer memory
 * model with dynamic spills), its disjoint interval set, the control-edge
 * generator, and the verifier's spill rules.
 *
 * Expected values are derived by hand in the comments, or by a second
 * method: brute-force visibility for the control-edge pairs, and a replay of
 * every random schedule with random durations that recomputes start times
 * from the edges alone and checks that no two CMX ranges overlap. Every
 * schedule produced here goes through acs_schedule_verify.
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

/* ---- helpers ---------------------------------------------------------- */

/* Runs `spill` with "key=value" options (NULL-ended) on pb into out
 * (initialised here); st may be NULL. */
static int run_spill(const struct acs_problem *pb, const char *const *sets,
                     struct acs_schedule *out, struct acs_spill_stats *st,
                     struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find("spill");
  void *opts;
  int err;

  cr_assert_not_null(ops, "no scheduler 'spill'");
  opts = calloc(1, ops->opts_size + 1);
  cr_assert_not_null(opts);
  cr_assert_eq(acs_sched_opts_defaults(ops, opts), ACS_OK);
  for (; sets && *sets; sets++) {
    char key[64];
    const char *eq = strchr(*sets, '=');
    cr_assert_not_null(eq);
    snprintf(key, sizeof(key), "%.*s", (int)(eq - *sets), *sets);
    cr_assert_eq(acs_sched_opts_set(ops, opts, key, eq + 1, d), ACS_OK, "%s: %s", *sets, d->msg);
  }
  cr_assert_eq(acs_schedule_init_problem(out, pb), ACS_OK);
  acs_diag_init(d);
  err = acs__spill_run(pb, opts, out, st, d);
  free(opts);
  return err;
}

static void run_ok(const struct acs_problem *pb, const char *const *sets,
                   struct acs_schedule *out, struct acs_spill_stats *st)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = run_spill(pb, sets, out, st, &d);
  cr_assert_eq(err, ACS_OK, "spill: %s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(out);
}

/* An op with a tensor of out_bytes (a dma loads it from DDR). */
static int32_t top(struct acs_graph *g, const char *name, int kind, int64_t cycles,
                   int64_t out_bytes)
{
  int32_t id = tu_op(g, name, kind, cycles);

  g->ops[id].out_bytes = out_bytes;
  if (kind == ACS_OP_DMA)
    g->ops[id].bytes = out_bytes;
  return id;
}

static int32_t find_op(const struct acs_schedule *s, const char *name)
{
  for (int32_t i = 0; i < s->nops; i++)
    if (strcmp(s->ops[i].name, name) == 0)
      return i;
  cr_assert_fail("no op '%s' in the schedule", name);
  return -1;
}

static int has_edge(const struct acs_schedule *s, int32_t a, int32_t b, int kind)
{
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].src == a && s->edges[e].dst == b && s->edges[e].kind == kind)
      return 1;
  return 0;
}

static int64_t count_kind(const struct acs_schedule *s, int kind)
{
  int64_t n = 0;

  for (int32_t e = 0; e < s->nedges; e++)
    n += s->edges[e].kind == kind;
  return n;
}

/* ---- the disjoint interval set --------------------------------------- */

Test(interval, insert_refuses_overlap)
{
  struct acs_ivset s;

  acs__ivset_init(&s);
  cr_assert_eq(acs__ivset_insert(&s, 10, 20, 1), ACS_OK);
  cr_assert_eq(acs__ivset_insert(&s, 0, 10, 2), ACS_OK);   /* touching is fine */
  cr_assert_eq(acs__ivset_insert(&s, 19, 25, 3), ACS_EINVAL);
  cr_assert_eq(acs__ivset_insert(&s, 5, 6, 3), ACS_EINVAL);
  cr_assert_eq(acs__ivset_insert(&s, 4, 4, 3), ACS_EINVAL); /* empty */
  cr_assert_eq(s.n, 2);
  cr_assert_eq(s.v[0].val, 2);
  cr_assert_eq(s.v[1].val, 1);
  cr_assert_eq(acs__ivset_erase_at(&s, 10), ACS_OK);
  cr_assert_eq(acs__ivset_erase_at(&s, 10), ACS_ENOTFOUND);
  cr_assert_eq(s.n, 1);
  acs__ivset_destroy(&s);
}

struct seen_log {
  struct acs_ival v[8];
  int n;
};

static void log_part(void *ctx, const struct acs_ival *part)
{
  struct seen_log *l = ctx;

  l->v[l->n++] = *part;
}

Test(interval, subtract_trims_splits_and_removes)
{
  struct acs_ivset s;
  struct seen_log l = { .n = 0 };

  acs__ivset_init(&s);
  cr_assert_eq(acs__ivset_insert(&s, 0, 10, 1), ACS_OK);
  cr_assert_eq(acs__ivset_insert(&s, 20, 30, 2), ACS_OK);
  cr_assert_eq(acs__ivset_insert(&s, 40, 50, 3), ACS_OK);
  /* [5, 45) trims 1 to [0, 5), removes 2, trims 3 to [45, 50). */
  cr_assert_eq(acs__ivset_subtract(&s, 5, 45, log_part, &l), 3);
  cr_assert_eq(l.n, 3);
  cr_assert(l.v[0].lo == 5 && l.v[0].hi == 10 && l.v[0].val == 1);
  cr_assert(l.v[1].lo == 20 && l.v[1].hi == 30 && l.v[1].val == 2);
  cr_assert(l.v[2].lo == 40 && l.v[2].hi == 45 && l.v[2].val == 3);
  cr_assert_eq(s.n, 2);
  cr_assert(s.v[0].lo == 0 && s.v[0].hi == 5 && s.v[1].lo == 45 && s.v[1].hi == 50);
  /* A hole in the middle of one interval splits it. */
  cr_assert_eq(acs__ivset_subtract(&s, 1, 3, NULL, NULL), 1);
  cr_assert_eq(s.n, 3);
  cr_assert(s.v[0].hi == 1 && s.v[1].lo == 3 && s.v[1].hi == 5 && s.v[1].val == 1);
  cr_assert(acs__ivset_valid(&s));
  cr_assert_eq(acs__ivset_subtract(&s, 60, 70, NULL, NULL), 0);
  acs__ivset_destroy(&s);
}

Test(interval, gaps_first_fit_and_best_fit)
{
  struct acs_ivset s;
  int64_t largest, total;

  /* Used: [64, 128) and [384, 448) of 512 bytes, alignment 64. Gaps:
   * [0, 64) 64 B, [128, 384) 256 B, [448, 512) 64 B. */
  acs__ivset_init(&s);
  cr_assert_eq(acs__ivset_insert(&s, 64, 128, 1), ACS_OK);
  cr_assert_eq(acs__ivset_insert(&s, 384, 448, 2), ACS_OK);
  acs__ivset_gaps(&s, 512, 64, &largest, &total);
  cr_assert_eq(largest, 256);
  cr_assert_eq(total, 384);
  cr_assert_eq(acs__ivset_find_gap(&s, 512, 64, 64, ACS_FIT_FIRST), 0);
  cr_assert_eq(acs__ivset_find_gap(&s, 512, 64, 64, ACS_FIT_BEST), 0);  /* smallest, lowest */
  cr_assert_eq(acs__ivset_find_gap(&s, 512, 128, 64, ACS_FIT_FIRST), 128);
  cr_assert_eq(acs__ivset_find_gap(&s, 512, 320, 64, ACS_FIT_FIRST), -1);
  /* Best fit prefers the exact 64-byte gap at 448 over a piece of the big one
   * once the first small gap is taken. */
  cr_assert_eq(acs__ivset_insert(&s, 0, 64, 3), ACS_OK);
  cr_assert_eq(acs__ivset_find_gap(&s, 512, 64, 64, ACS_FIT_BEST), 448);
  cr_assert_eq(acs__ivset_find_gap(&s, 512, 64, 64, ACS_FIT_FIRST), 128);
  /* Alignment: a gap starting at 130 is used from 192. */
  acs__ivset_destroy(&s);
  acs__ivset_init(&s);
  cr_assert_eq(acs__ivset_insert(&s, 0, 130, 1), ACS_OK);
  cr_assert_eq(acs__ivset_find_gap(&s, 512, 64, 64, ACS_FIT_FIRST), 192);
  acs__ivset_destroy(&s);
}

/* ---- control edges: geometry ----------------------------------------- */

struct pairs {
  int32_t a[256], b[256];
  int n;
};

static int add_pair(void *ctx, int32_t prev, int32_t curr)
{
  struct pairs *p = ctx;

  cr_assert_lt(p->n, 256);
  p->a[p->n] = prev;
  p->b[p->n] = curr;
  p->n++;
  return 0;
}

static int has_pair(const struct pairs *p, int32_t a, int32_t b)
{
  for (int k = 0; k < p->n; k++)
    if (p->a[k] == a && p->b[k] == b)
      return 1;
  return 0;
}

/*
 * A packing in the style of the seed's Fig-4 (time right, addresses up):
 *
 *   addr 6 +----------------------------------+
 *        5 | R2 ####|           |      R5 ####|
 *        4 | R2 ####| R3 ###### |             |
 *        3 | R2 ####| R3 ###### | R4 ######   |
 *        2 | R1 ##########|     | R4 ######   |
 *        1 | R1 ##########|     | R4 ######   |
 *        0 | R1 ##########|                   |
 *          0       2      4     5      7  6..8
 *
 * R1 [0,4)x[0,3), R2 [0,2)x[3,6), R3 [2,5)x[3,5), R4 [5,7)x[1,4),
 * R5 [6,8)x[5,6). By hand, the pairs are the rectangles that follow each
 * other at some address: R2 -> R3 (they touch along t = 2, addresses 3-4),
 * R1 -> R4 (addresses 1-2, through the empty gap [4, 5)), R3 -> R4 (touch at
 * t = 5, address 3), R2 -> R5 (address 5 is empty from t = 2 to 6: the
 * seed's horizontal visibility). R2 and R4 share address 3 but R3 is
 * between them, so that pair comes through R3.
 */
Test(ctrledge, fig4_style_packing)
{
  const struct acs_ctrl_rect r[] = {
    { 0, 4, 0, 3, 0, 1 }, { 0, 2, 3, 6, 0, 2 }, { 2, 5, 3, 5, 0, 3 },
    { 5, 7, 1, 4, 0, 4 }, { 6, 8, 5, 6, 0, 5 },
  };
  struct pairs p = { .n = 0 };

  cr_assert_eq(acs__ctrl_pairs(r, 5, add_pair, &p), ACS_OK);
  cr_assert_eq(p.n, 4);
  cr_assert(has_pair(&p, 2, 3));
  cr_assert(has_pair(&p, 1, 4));
  cr_assert(has_pair(&p, 3, 4));
  cr_assert(has_pair(&p, 2, 5));
}

/* The seed's update of D, literally: for each stored interval i overlapping
 * i_curr (the overlap set taken first), erase i, insert the parts of
 * i XOR i_curr (to r_curr when inside i_curr, else to i's rectangle) and
 * i AND i_curr (to r_curr). `strict` refuses an insert that overlaps a
 * stored interval, as a real disjoint interval set does; otherwise the list
 * takes anything. */
struct seed_d {
  struct acs_ival v[64];
  int n;
};

static void seed_insert(struct seed_d *d, int64_t lo, int64_t hi, int32_t val, int strict)
{
  if (lo >= hi)
    return;
  for (int k = 0; strict && k < d->n; k++)
    if (d->v[k].lo < hi && lo < d->v[k].hi)
      return;
  d->v[d->n++] = (struct acs_ival){ lo, hi, val };
}

static void seed_update(struct seed_d *d, int64_t lo, int64_t hi, int32_t cur, int strict,
                        struct pairs *edges)
{
  struct acs_ival over[64];
  int no = 0;

  for (int k = 0; k < d->n; k++)
    if (d->v[k].lo < hi && lo < d->v[k].hi)
      over[no++] = d->v[k];
  if (no == 0)
    seed_insert(d, lo, hi, cur, strict);
  for (int j = 0; j < no; j++) {
    struct acs_ival i = over[j];
    int64_t ilo = i.lo > lo ? i.lo : lo, ihi = i.hi < hi ? i.hi : hi;
    int64_t ulo = i.lo < lo ? i.lo : lo, uhi = i.hi > hi ? i.hi : hi;
    add_pair(edges, i.val, cur);
    for (int k = 0; k < d->n; k++)
      if (d->v[k].lo == i.lo && d->v[k].hi == i.hi && d->v[k].val == i.val) {
        d->v[k] = d->v[--d->n];
        break;
      }
    /* i XOR i_curr = [ulo, ilo) and [ihi, uhi). */
    seed_insert(d, ulo, ilo, ulo >= lo ? cur : i.val, strict);
    seed_insert(d, ihi, uhi, uhi <= hi ? cur : i.val, strict);
    seed_insert(d, ilo, ihi, cur, strict);
  }
}

static int seed_disjoint(const struct seed_d *d)
{
  for (int a = 0; a < d->n; a++)
    for (int b = a + 1; b < d->n; b++)
      if (d->v[a].lo < d->v[b].hi && d->v[b].lo < d->v[a].hi)
        return 0;
  return 1;
}

/*
 * Review comment 11: the current interval [1, 7) overlaps two stored ones,
 * P = [0, 2) and Q = [6, 8), with a gap between them. Then N = [3, 5)
 * arrives, inside the current interval's addresses, so it must be ordered
 * after it.
 *
 * The seed's update inserts [2, 7) for P (it is in P XOR curr) although it
 * overlaps Q, and [1, 6) for Q although it overlaps [1, 2): a permissive
 * set is no longer disjoint, and a strict one (which refuses those inserts)
 * loses addresses [2, 6) altogether, so N gets no edge from curr: the two
 * could overlap in CMX at run time. Subtract-then-insert keeps D disjoint
 * and maps [1, 7) to curr.
 */
Test(ctrledge, review_comment_11_two_overlaps)
{
  struct seed_d loose = { .n = 0 }, strict = { .n = 0 };
  struct pairs e1 = { .n = 0 }, e2 = { .n = 0 }, ours = { .n = 0 };
  struct acs_ivset d;
  const struct acs_ctrl_rect r[] = {
    { 0, 1, 0, 2, 0, 1 },  /* P */
    { 0, 1, 6, 8, 0, 2 },  /* Q */
    { 1, 2, 1, 7, 0, 3 },  /* curr */
    { 2, 3, 3, 5, 0, 4 },  /* N */
  };

  for (int k = 0; k < 4; k++) {
    seed_update(&loose, r[k].lo, r[k].hi, r[k].id, 0, &e1);
    if (k == 2)
      cr_assert_not(seed_disjoint(&loose), "the seed's update keeps D disjoint after all?");
    seed_update(&strict, r[k].lo, r[k].hi, r[k].id, 1, &e2);
  }
  cr_assert(has_pair(&e2, 1, 3) && has_pair(&e2, 2, 3));
  cr_assert_not(has_pair(&e2, 3, 4), "strict seed set kept an edge curr -> N");

  acs__ivset_init(&d);
  for (int k = 0; k < 3; k++)
    cr_assert_geq(acs__ivset_assign(&d, r[k].lo, r[k].hi, r[k].id, NULL, NULL), 0);
  cr_assert(acs__ivset_valid(&d));
  cr_assert_eq(d.n, 3);
  cr_assert(d.v[0].lo == 0 && d.v[0].hi == 1 && d.v[0].val == 1);
  cr_assert(d.v[1].lo == 1 && d.v[1].hi == 7 && d.v[1].val == 3);
  cr_assert(d.v[2].lo == 7 && d.v[2].hi == 8 && d.v[2].val == 2);
  acs__ivset_destroy(&d);

  cr_assert_eq(acs__ctrl_pairs(r, 4, add_pair, &ours), ACS_OK);
  cr_assert_eq(ours.n, 3);
  cr_assert(has_pair(&ours, 1, 3) && has_pair(&ours, 2, 3) && has_pair(&ours, 3, 4));
}

/* Brute force: at every integer address, the rectangles covering it in
 * time order; consecutive ones form the pairs. */
static void brute_pairs(const struct acs_ctrl_rect *r, int n, int64_t amax, struct pairs *p)
{
  for (int64_t y = 0; y < amax; y++) {
    int cov[64], nc = 0;
    for (int i = 0; i < n; i++)
      if (r[i].lo <= y && y < r[i].hi)
        cov[nc++] = i;
    for (int a = 0; a < nc; a++)
      for (int b = a + 1; b < nc; b++)
        if (r[cov[b]].t0 < r[cov[a]].t0) {
          int t = cov[a];
          cov[a] = cov[b];
          cov[b] = t;
        }
    for (int k = 1; k < nc; k++)
      if (!has_pair(p, r[cov[k - 1]].id, r[cov[k]].id))
        add_pair(p, r[cov[k - 1]].id, r[cov[k]].id);
  }
}

Test(ctrledge, sweep_matches_brute_force_on_random_packings)
{
  struct acs_rng rng;

  acs_rng_seed(&rng, 7);
  for (int trial = 0; trial < 500; trial++) {
    struct acs_ctrl_rect r[24];
    struct pairs got = { .n = 0 }, want = { .n = 0 };
    int n = 0;
    for (int tries = 0; tries < 200 && n < 24; tries++) {
      double t0 = (double)acs_rng_below(&rng, 40), t1 = t0 + 1 + (double)acs_rng_below(&rng, 8);
      int64_t lo = (int64_t)acs_rng_below(&rng, 30), hi = lo + 1 + (int64_t)acs_rng_below(&rng, 8);
      int ok = 1;
      for (int i = 0; i < n && ok; i++)
        ok = !(r[i].t0 < t1 && t0 < r[i].t1 && r[i].lo < hi && lo < r[i].hi);
      if (ok) {
        r[n] = (struct acs_ctrl_rect){ t0, t1, lo, hi, 0, n + 1 };
        n++;
      }
    }
    cr_assert_eq(acs__ctrl_pairs(r, (size_t)n, add_pair, &got), ACS_OK);
    brute_pairs(r, n, 40, &want);
    cr_assert_eq(got.n, want.n, "trial %d: %d pairs, brute force %d", trial, got.n, want.n);
    for (int k = 0; k < want.n; k++)
      cr_assert(has_pair(&got, want.a[k], want.b[k]), "trial %d: missing %d -> %d", trial,
                want.a[k], want.b[k]);
  }
}

/* ---- the seed's Figure-10 network ------------------------------------- */

/*
 * Figure-10 (the seed's unit test "simple_spill_test"): inputs In_0 (A_in,
 * 5 units) and In_1 (B_in, 4 units) are loads; A (5) reads A_in, B (1) reads
 * A and B_in, C (4) reads A_in and B. Resource bound 10 units; a unit is
 * 1 KiB here (the platform's CMX is a whole number of KiB). Every op takes
 * one cycle; spill DMAs take the platform's DDR time (100 + ceil(bytes /
 * 11.43) cycles at 700 MHz, 8 GB/s DDR). Ops are added in the order A_in, A,
 * B_in, B, C so that rank ties (equal latest finish times) follow the seed.
 */
static void fig10(struct acs_graph *g, int32_t id[5])
{
  tu_graph_npu(g, "fig10");
  id[0] = top(g, "A_in", ACS_OP_DMA, 1, 5 << 10);
  id[1] = top(g, "A", ACS_OP_DPU, 1, 5 << 10);
  id[2] = top(g, "B_in", ACS_OP_DMA, 1, 4 << 10);
  id[3] = top(g, "B", ACS_OP_DPU, 1, 1 << 10);
  id[4] = top(g, "C", ACS_OP_DPU, 1, 4 << 10);
  tu_edge(g, id[0], id[1]);
  tu_edge(g, id[0], id[4]);
  tu_edge(g, id[2], id[3]);
  tu_edge(g, id[1], id[3]);
  tu_edge(g, id[3], id[4]);
  tu_finalize(g);
}

static const char *const FIG10_PLAT[] = { "cmx_kib=10", "cmx_align_bytes=1024", NULL };

/*
 * With the seed's write-back of every evicted tensor (clean=write) and a
 * lookahead of one rank (the seed loads an input with the op that needs it),
 * by hand: A_in loads at 0 into [0, 5K); A runs at 1 into [5K, 10K); at 2
 * B_in (4K) finds no gap and nothing runs, so a 4K window is evicted: the
 * one over A_in (last used when A started) is older than the one over A
 * (produced after that): A_in@sw1 writes it out over [2, 550). B_in then
 * loads into [0, 4K) at 550, B runs at 551 into [4K, 5K), and when B ends at
 * 552 A and B_in are freed; C needs A_in back: A_in@sr1 reads it into
 * [5K, 10K) over [552, 1100), and C runs at 1100 into [0, 4K).
 *
 * The seed's Figure-12 lists the same order: A_in, A, A_in SPILLED_WRITE,
 * B_in, B, A_in SPILLED_READ, C. Differences: (1) its last line, a
 * SPILLED_WRITE of C, does not exist here: C has no consumer, so its range
 * is freed when C ends (a network writes its results with an explicit
 * output DMA, which the DNN graphs have); (2) its addresses come from its
 * own allocator (A_in at the top, A at the bottom); here first fit from 0;
 * (3) its times are steps, here cycles with real DDR transfer times.
 */
Test(fig10, seed_write_back_matches_figure_12)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_schedule_stats st;
  struct acs_spill_stats ss;
  const char *const opts[] = { "clean=write", "lookahead=1", NULL };
  int32_t id[5];

  fig10(&g, id);
  tu_problem(&pb, &g, FIG10_PLAT);
  run_ok(&pb, opts, &s, &ss);
  cr_assert_eq(s.nops, 7, "5 ops plus a spill write and read, got %d", s.nops);
  int32_t sw = find_op(&s, "A_in@sw1"), sr = find_op(&s, "A_in@sr1");
  const char *order[] = { "A_in", "A", "A_in@sw1", "B_in", "B", "A_in@sr1", "C" };
  const int64_t start[] = { 0, 1, 2, 550, 551, 552, 1100 };
  const int64_t off[] = { 0, 5 << 10, -1, 0, 4 << 10, 5 << 10, 0 };
  for (int k = 0; k < 7; k++) {
    int32_t i = find_op(&s, order[k]);
    cr_assert_eq(s.ops[i].start, start[k], "%s starts at %lld", order[k], (long long)s.ops[i].start);
    cr_assert_eq(s.ops[i].cmx_offset, off[k], "%s at %lld", order[k], (long long)s.ops[i].cmx_offset);
  }
  cr_assert_eq(s.ops[sw].src, ACS_MEM_CMX);
  cr_assert_eq(s.ops[sw].dst, ACS_MEM_DDR);
  cr_assert_eq(s.ops[sw].bytes, 5 << 10);
  cr_assert_geq(s.ops[sw].unit, 0);
  cr_assert_eq(s.ops[sr].src, ACS_MEM_DDR);
  cr_assert_eq(s.ops[sr].bytes, 5 << 10);
  /* Data edges: A_in -> write -> read -> C. */
  cr_assert(has_edge(&s, id[0], sw, ACS_EDGE_DATA));
  cr_assert(has_edge(&s, sw, sr, ACS_EDGE_DATA));
  cr_assert(has_edge(&s, sr, id[4], ACS_EDGE_DATA));
  /* A_in's range is given back when the write ends. */
  double fr = s.ops[id[0]].cmx_free;
  cr_assert_float_eq(fr, 550.0, 1e-9);
  acs_schedule_stats(&s, &st);
  cr_assert_eq(st.spill_bytes, 5 << 10);
  cr_assert_eq(ss.writes, 1);
  cr_assert_eq(ss.reads, 1);
  /* DDR traffic: the two loads (9K) and the spill both ways (10K). */
  cr_assert_eq(st.ddr_bytes, 19 << 10);
  cr_assert_eq(st.peak_cmx_bytes, 10 << 10);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * The control edges of that packing, by hand. Ranges reused: [0, 4K) of
 * A_in by B_in (holders of A_in: A and the write; neither reaches B_in:
 * A -> B_in and A_in@sw1 -> B_in are added); [4K, 5K) of A_in by B (A -> B
 * is a data edge, A_in@sw1 -> B_in -> B a path: both dropped); [5K, 10K) of
 * A by A_in@sr1 (holder B; nothing orders B before the read: B -> A_in@sr1
 * added); [0, 4K) of B_in by C (holder B, a data edge). Three edges.
 */
Test(fig10, control_edges_by_hand)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_spill_stats ss;
  const char *const opts[] = { "clean=write", "lookahead=1", NULL };
  int32_t id[5];

  fig10(&g, id);
  tu_problem(&pb, &g, FIG10_PLAT);
  run_ok(&pb, opts, &s, &ss);
  int32_t sw = find_op(&s, "A_in@sw1"), sr = find_op(&s, "A_in@sr1");
  cr_assert_eq(count_kind(&s, ACS_EDGE_CONTROL), 3);
  cr_assert(has_edge(&s, id[1], id[2], ACS_EDGE_CONTROL));
  cr_assert(has_edge(&s, sw, id[2], ACS_EDGE_CONTROL));
  cr_assert(has_edge(&s, id[3], sr, ACS_EDGE_CONTROL));
  cr_assert_eq(ss.ctrl.added, 3);
  cr_assert_eq(ss.ctrl.implied, ss.ctrl.candidates - 3);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * clean=drop (the default): A_in is a load from DDR, so it is dropped
 * without a write at 2 and re-read from its source for C: B_in loads at 2,
 * B runs at 3, A_in@sr1 (fed by A_in itself) reads over [4, 552), C at 552.
 * No spilled bytes, one read.
 */
Test(fig10, clean_loads_are_dropped_and_reread)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_schedule_stats st;
  const char *const opts[] = { "lookahead=1", NULL };
  int32_t id[5];

  fig10(&g, id);
  tu_problem(&pb, &g, FIG10_PLAT);
  run_ok(&pb, opts, &s, NULL);
  cr_assert_eq(s.nops, 6);
  int32_t sr = find_op(&s, "A_in@sr1");
  cr_assert(has_edge(&s, id[0], sr, ACS_EDGE_DATA));
  cr_assert(has_edge(&s, sr, id[4], ACS_EDGE_DATA));
  cr_assert_eq(s.ops[id[2]].start, 2);
  cr_assert_eq(s.ops[id[3]].start, 3);
  cr_assert_eq(s.ops[sr].start, 4);
  cr_assert_eq(s.ops[id[4]].start, 552);
  acs_schedule_stats(&s, &st);
  cr_assert_eq(st.spill_bytes, 0);
  cr_assert_eq(st.ddr_bytes, 14 << 10);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- precondition and contiguity --------------------------------------- */

/* B reads A (600 B) and A2 (300 B) and writes 200 B: 1100 > 1024 with
 * alignment 1; the message names B and the bytes. */
Test(spill, precondition_names_the_op_and_bytes)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=1", NULL };
  int32_t a, a2, b;

  tu_graph_npu(&g, "pre");
  a = top(&g, "A", ACS_OP_DMA, 5, 600);
  a2 = top(&g, "A2", ACS_OP_DMA, 5, 300);
  b = top(&g, "B", ACS_OP_DPU, 5, 200);
  tu_edge(&g, a, b);
  tu_edge(&g, a2, b);
  tu_edge(&g, a2, b); /* a duplicate edge does not count twice */
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  acs_diag_init(&d);
  cr_assert_eq(run_spill(&pb, NULL, &s, NULL, &d), ACS_EINFEASIBLE);
  cr_assert_str_eq(d.msg, "op 'B' needs 1100 bytes of CMX at once (2 input tensors, 900 "
                          "bytes, and its output, 200 bytes, aligned to 1) but the CMX holds 1024");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  /* 924 bytes of output fit exactly. */
  g.ops[b].out_bytes = 124;
  tu_problem(&pb, &g, plat);
  run_ok(&pb, NULL, &s, NULL);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Enough bytes in total but no gap. CMX 4 KiB, alignment 1 KiB, one DMA
 * channel, topological priority: loads X1..X4 (1 KiB each, one cycle) land
 * in address order [0, 1K) .. [3K, 4K) at cycles 0..3. K (10 cycles from 3)
 * reads X1 and X3; when it ends at 13 they are freed: 2 KiB free, but as two
 * 1 KiB gaps. W needs a 2 KiB output, and X2, X4 wait for L (after W).
 * Nothing runs, so a 2 KiB window is evicted rather than overcommitting:
 * [0, 2K) holds only X2, the least recently used (loaded before X4), so X2
 * is dropped (a clean load) and W takes [0, 2K) at 13. L then needs X2 back:
 * X2@sr1 reads it into the gap [2K, 3K).
 */
Test(spill, no_contiguous_gap_evicts_a_window)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_spill_stats ss;
  const char *const plat[] = { "cmx_kib=4", "cmx_align_bytes=1024", "dma_channels=1", NULL };
  const char *const opts[] = { "lookahead=0", "rule=topo", NULL };
  int32_t x[4], k, w, l;

  tu_graph_npu(&g, "frag");
  for (int i = 0; i < 4; i++) {
    char name[8];
    snprintf(name, sizeof(name), "X%d", i + 1);
    x[i] = top(&g, name, ACS_OP_DMA, 1, 1024);
  }
  k = top(&g, "K", ACS_OP_DPU, 10, 0);
  w = top(&g, "W", ACS_OP_DPU, 1, 2048);
  l = top(&g, "L", ACS_OP_DPU, 1, 0);
  tu_edge(&g, x[0], k);
  tu_edge(&g, x[2], k);
  tu_edge(&g, k, w);
  tu_edge(&g, w, l);
  tu_edge(&g, x[1], l);
  tu_edge(&g, x[3], l);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  run_ok(&pb, opts, &s, &ss);
  for (int i = 0; i < 4; i++)
    cr_assert_eq(s.ops[x[i]].cmx_offset, i * 1024);
  cr_assert_gt(ss.contig_refused, 0, "W was never refused for contiguity");
  cr_assert_eq(s.ops[w].start, 13);
  cr_assert_eq(s.ops[w].cmx_offset, 0);
  cr_assert_eq(s.ops[w].cmx_bytes, 2048);
  cr_assert_eq(ss.drops, 1);
  cr_assert_eq(ss.writes, 0);
  double fr = s.ops[x[1]].cmx_free;
  cr_assert_float_eq(fr, 2.0, 1e-9); /* X2 was last held when it finished loading */
  int32_t r = find_op(&s, "X2@sr1");
  cr_assert_eq(s.ops[r].cmx_offset, 2048);
  cr_assert(has_edge(&s, r, l, ACS_EDGE_DATA));
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- the verifier's spill rules --------------------------------------- */

/* A hand-made spill schedule: a (dma, 512 B) -> b, a -> c; a is written out
 * by w over [10, 20) and read back by r into the same range over [20, 30)
 * for c. */
static void spilled_by_hand(struct acs_graph *g, struct acs_problem *pb, struct acs_schedule *s,
                            int32_t *w, int32_t *r)
{
  const char *const plat[] = { "cmx_kib=1", NULL };
  struct acs_sop so;
  int32_t a, b, c;

  tu_graph_npu(g, "byhand");
  a = top(g, "a", ACS_OP_DMA, 5, 512);
  b = top(g, "b", ACS_OP_DPU, 5, 0);
  c = top(g, "c", ACS_OP_DPU, 5, 0);
  tu_edge(g, a, b);
  tu_edge(g, a, c);
  tu_finalize(g);
  tu_problem(pb, g, plat);
  cr_assert_eq(acs_schedule_init_problem(s, pb), ACS_OK);
  s->ops[a].start = 0, s->ops[a].end = 5, s->ops[a].unit = 0;
  s->ops[b].start = 5, s->ops[b].end = 10, s->ops[b].unit = 0;
  s->ops[c].start = 30, s->ops[c].end = 35, s->ops[c].unit = 0;
  s->ops[a].cmx_offset = 0, s->ops[a].cmx_bytes = 512;
  s->ops[a].cmx_alloc = 0, s->ops[a].cmx_free = 20;
  memset(&so, 0, sizeof(so));
  so.kind = ACS_OP_DMA;
  so.bytes = 512;
  so.slots = 1;
  so.update_barrier = -1;
  so.sim_start = so.sim_end = NAN;
  so.name = "a@sw1", so.src = ACS_MEM_CMX, so.dst = ACS_MEM_DDR;
  so.start = 10, so.end = 20, so.dur = 10, so.unit = 0;
  so.cmx_offset = so.cmx_bytes = -1, so.cmx_alloc = so.cmx_free = NAN;
  *w = acs_schedule_add_op(s, &so);
  so.name = "a@sr1", so.src = ACS_MEM_DDR, so.dst = ACS_MEM_CMX, so.out_bytes = 512;
  so.start = 20, so.end = 30;
  so.cmx_offset = 0, so.cmx_bytes = 512, so.cmx_alloc = 20, so.cmx_free = 35;
  *r = acs_schedule_add_op(s, &so);
  cr_assert_eq(acs_schedule_set_demand(s, *w, TU_DMA, 1), ACS_OK);
  cr_assert_eq(acs_schedule_set_demand(s, *r, TU_DMA, 1), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(s, a, *w, ACS_EDGE_DATA), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(s, *w, *r, ACS_EDGE_DATA), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(s, *r, c, ACS_EDGE_DATA), ACS_OK);
  /* The graph's cmx demands are the S-R working sets; a spill schedule
   * states the range bytes. */
  for (int32_t i = 0; i < s->nops; i++)
    s->demand[(size_t)i * (size_t)s->nres + TU_CMX] = s->ops[i].cmx_bytes > 0 ? s->ops[i].cmx_bytes : 0;
  acs_schedule_finish(s);
}

static void expect_violation(const struct acs_schedule *s, const char *msg)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(s, &d), ACS_EVERIFY, "accepted a bad schedule");
  cr_assert_str_eq(d.msg, msg);
}

Test(verify_spill, accepts_a_tensor_read_back_before_its_use)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  tu_assert_verified(&s);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(verify_spill, catches_a_use_without_read_back)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.edges[s.nedges - 1].kind = ACS_EDGE_CONTROL; /* r -> c orders, but feeds nothing */
  expect_violation(&s, "'c' reads the tensor of 'a' until 35 but its CMX range is freed at 20");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(verify_spill, catches_a_read_back_freed_too_early)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.ops[r].cmx_free = 33;
  expect_violation(&s, "'c' reads the tensor of 'a' until 35 but its CMX range is freed at 20");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(verify_spill, catches_a_partial_spill)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.ops[w].bytes = 256;
  expect_violation(&s, "spill op 'a@sw1' moves 256 bytes but the tensor of 'a' has 512");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* A read whose data comes from neither a spill-write nor a load from DDR is
 * no copy of a's tensor, so c is not fed. */
Test(verify_spill, a_read_from_nowhere_feeds_nothing)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.edges[s.nedges - 2].src = 1; /* b -> r instead of w -> r */
  expect_violation(&s, "'c' reads the tensor of 'a' until 35 but its CMX range is freed at 20");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* A schedule without CMX ranges may add a write-back DMA of its own: it is
 * not a spill and is not held to the spill rules. */
Test(verify_spill, accepts_an_added_write_back_without_ranges)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.ops[0].cmx_offset = s.ops[0].cmx_bytes = -1;
  s.ops[0].cmx_alloc = s.ops[0].cmx_free = NAN;
  s.ops[r].cmx_offset = s.ops[r].cmx_bytes = -1;
  s.ops[r].cmx_alloc = s.ops[r].cmx_free = NAN;
  s.ops[w].bytes = 100; /* not a copy of anything: any size */
  tu_assert_verified(&s);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(verify_spill, catches_a_read_before_the_write_ends)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  int32_t w, r;

  spilled_by_hand(&g, &pb, &s, &w, &r);
  s.ops[r].start = 18, s.ops[r].end = 28, s.ops[r].cmx_alloc = 18;
  expect_violation(&s, "data edge 'a@sw1' -> 'a@sr1' violated: 'a@sr1' starts at 18 before "
                       "'a@sw1' ends at 20");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

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
    full += count_kind(&s1, ACS_EDGE_CONTROL);
    reduced += count_kind(&s2, ACS_EDGE_CONTROL);
    cr_assert_leq(count_kind(&s2, ACS_EDGE_CONTROL), count_kind(&s1, ACS_EDGE_CONTROL));
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
