/*
 * test-spill-geometry.c - the disjoint interval set of the `spill` variant
 * and the control-edge generator (Figure-4 packing, review comment 11,
 * brute-force visibility).
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
#include "core/sched/npu/spill_int.h"
#include "tests/testutil.h"

#include "tests/spill_util.h"

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


/* The reduction drops control edges a path implies and repeats, and no
 * data edge even when implied; the rest keep their order. Ops a..e in a
 * chain of data edges a->b->c, plus: a->c control (implied by a->b->c),
 * a->c data (implied, but data), b->c control (a repeat of the data edge),
 * c->d control (the only way to d), d->e control then a->e control
 * (implied through d). */
Test(ctrledge, reduce_drops_implied_control_edges_only)
{
  static const struct { int32_t u, v; int kind; } in[] = {
    {0, 1, ACS_EDGE_DATA},    {1, 2, ACS_EDGE_DATA},    {0, 2, ACS_EDGE_CONTROL},
    {0, 2, ACS_EDGE_DATA},    {1, 2, ACS_EDGE_CONTROL}, {2, 3, ACS_EDGE_CONTROL},
    {3, 4, ACS_EDGE_CONTROL}, {0, 4, ACS_EDGE_CONTROL}};
  static const int want[] = {0, 1, 3, 5, 6}; /* indices into in[] */
  struct acs_schedule s;
  int64_t dropped;

  acs_schedule_init(&s);
  for (int i = 0; i < 5; i++) {
    struct acs_sop o = {.name = "op", .start = 10 * i, .end = 10 * i + 5, .dur = 5};
    cr_assert_eq(acs_schedule_add_op(&s, &o), i);
  }
  for (size_t k = 0; k < sizeof(in) / sizeof(in[0]); k++)
    cr_assert_eq(acs_schedule_add_edge(&s, in[k].u, in[k].v, in[k].kind), ACS_OK);
  cr_assert_eq(acs__ctrl_edges_reduce(&s, &dropped), ACS_OK);
  cr_assert_eq(dropped, 3);
  cr_assert_eq(s.nedges, 5);
  for (int k = 0; k < 5; k++)
    cr_assert(s.edges[k].src == in[want[k]].u && s.edges[k].dst == in[want[k]].v &&
                  s.edges[k].kind == in[want[k]].kind,
              "edge %d is %d->%d", k, s.edges[k].src, s.edges[k].dst);
  acs_schedule_destroy(&s);
}

/* ---- the eviction window ---------------------------------------------- */

/* Is window a better to evict than b, by (dirty, key, bytes, at)? */
static int pick_before(const struct acs__wpick *a, const struct acs__wpick *b)
{
  if (a->dirty != b->dirty)
    return a->dirty < b->dirty;
  if (a->key != b->key)
    return a->key < b->key;
  return a->bytes != b->bytes ? a->bytes < b->bytes : a->at < b->at;
}

/* The window by enumeration: every start, every range tested for overlap. */
static int pick_by_enumeration(const struct acs__wrange *r, size_t n, int64_t len, int64_t cap,
                               struct acs__wpick *best)
{
  int found = 0;

  for (size_t i = 0; i <= 2 * n; i++) {
    int64_t at = i == 2 * n ? 0 : i % 2 ? r[i / 2].hi : r[i / 2].lo;
    struct acs__wpick w = {at, INT64_MIN, 0, 0, n, 0};
    int ok = at + len <= cap;
    for (size_t k = 0; k < n && ok; k++) {
      if (r[k].hi <= at || r[k].lo >= at + len)
        continue;
      ok = r[k].ok;
      w.k0 = k < w.k0 ? k : w.k0;
      w.k1 = k + 1;
      w.bytes += r[k].bytes;
      w.dirty |= r[k].dirty;
      w.key = r[k].key > w.key ? r[k].key : w.key;
    }
    if (ok && w.k1 > 0 && (!found || pick_before(&w, best))) {
      *best = w;
      found = 1;
    }
  }
  return found;
}

/*
 * By hand, a CMX of 100 bytes: A [0, 20) key 5, B [20, 50) key 1, C
 * [60, 80) that may not go, D [80, 100) key 0 and dirty. 30 bytes: the
 * window at 0 holds A and B (key 5), at 20 B alone (key 1), at 50 and 60
 * C, at 80 it passes the end: B's, at 20. 10 bytes: A alone at 0 (key 5),
 * B alone at 20 (key 1), nothing at 50 (no window), C at 60, D at 80 (key
 * 0, but dirty): B's again; with B dirty too, the only clean one, A's at 0.
 */
Test(spill, eviction_window_by_hand)
{
  struct acs__wrange r[] = {{0, 20, 5, 20, 1, 0}, {20, 50, 1, 30, 1, 0}, {60, 80, 2, 20, 0, 0},
                            {80, 100, 0, 20, 1, 1}};
  struct acs__wpick w;

  cr_assert_eq(acs__spill_window_pick(r, 4, 30, 100, &w), 1);
  cr_assert(w.at == 20 && w.key == 1 && w.bytes == 30 && !w.dirty && w.k0 == 1 && w.k1 == 2,
            "at %lld key %lld", (long long)w.at, (long long)w.key);
  cr_assert_eq(acs__spill_window_pick(r, 4, 10, 100, &w), 1);
  cr_assert(w.at == 20 && w.k0 == 1 && w.k1 == 2);
  r[1].dirty = 1;
  cr_assert_eq(acs__spill_window_pick(r, 4, 10, 100, &w), 1);
  cr_assert(w.at == 0 && w.key == 5 && !w.dirty && w.k0 == 0 && w.k1 == 1);
  cr_assert_eq(acs__spill_window_pick(r, 4, 101, 100, &w), 0, "longer than the CMX");
  r[0].ok = r[1].ok = r[3].ok = 0;
  cr_assert_eq(acs__spill_window_pick(r, 4, 10, 100, &w), 0, "nothing may go");
}

/*
 * The sliding window against the enumeration on 20,000 random CMX states:
 * up to 40 ranges, adjacent or apart, keys from a small set (ties), a
 * fifth that may not go, a third dirty, windows from 1 byte to the CMX.
 */
Test(spill, eviction_window_matches_enumeration)
{
  struct acs_rng g;
  int found = 0;

  acs_rng_seed(&g, 7);
  for (int trial = 0; trial < 20000; trial++) {
    struct acs__wrange r[40];
    struct acs__wpick a = {0, 0, 0, 0, 0, 0}, b = a;
    size_t n = (size_t)acs_rng_below(&g, 41);
    int64_t at = 0, cap, len;
    for (size_t k = 0; k < n; k++) {
      at += (int64_t)acs_rng_below(&g, 3) * (int64_t)acs_rng_below(&g, 64);
      r[k].lo = at;
      r[k].hi = at += 1 + (int64_t)acs_rng_below(&g, 96);
      r[k].key = (int64_t)acs_rng_below(&g, 8) - 4;
      r[k].bytes = r[k].hi - r[k].lo;
      r[k].ok = acs_rng_below(&g, 5) != 0;
      r[k].dirty = acs_rng_below(&g, 3) == 0;
    }
    cap = at + (int64_t)acs_rng_below(&g, 64);
    len = 1 + (int64_t)acs_rng_below(&g, (uint64_t)cap + 1);
    int fa = acs__spill_window_pick(r, n, len, cap, &a), fb = pick_by_enumeration(r, n, len, cap, &b);
    cr_assert_eq(fa, fb, "trial %d: found %d, enumeration %d", trial, fa, fb);
    if (fa)
      cr_assert(a.at == b.at && a.key == b.key && a.bytes == b.bytes && a.dirty == b.dirty &&
                    a.k0 == b.k0 && a.k1 == b.k1,
                "trial %d: at %lld members %zu-%zu, enumeration at %lld members %zu-%zu", trial,
                (long long)a.at, a.k0, a.k1, (long long)b.at, b.k0, b.k1);
    found += fa;
  }
  cr_assert_gt(found, 5000, "only %d states had a window", found);
}
