/*
 * spill_evict.c - the spill and reload choice of the `spill` variant (the
 * planner is spill.c, whose top comment gives the model and the rules):
 * the spill DMAs it adds (spill-writes from CMX to DDR, spill-reads back),
 * and, when nothing runs and nothing can start, which window of the CMX to
 * evict for the most urgent ready op (clean windows first, then evict=lru
 * or evict=belady, then fewer bytes and the lower address) or the flush
 * that guarantees progress.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/npu/spill_int.h"

/* ---- spill DMAs and spill-reads --------------------------------------------- */

/* Appends a spill DMA (what = X_WRITE: CMX to DDR, X_READ: DDR to CMX) of
 * tensor p, fed by a data edge from `from`; returns its op index or < 0. */
static int32_t add_spill_op(struct spill *s, int32_t p, int what, int32_t from)
{
  const struct acs_op *g = &s->pb->g->ops[p];
  struct tensor *t = &s->t[p];
  char name[ACS_NAME_MAX + 32];
  struct acs_sop so;
  int32_t id;
  int err;

  /* A safety net: the rescue rules guarantee progress (see acs__spill_rescue()), and
   * the heaviest workloads measured add about one spill op per op and edge;
   * far more would be a bug, which must fail rather than loop. */
  if ((int64_t)s->out->nops - s->n > 8 * ((int64_t)s->n + s->pb->g->nedges) + 4096)
    return FAIL(s, ACS_EINVAL, "spill: no progress after %d spill operations",
                s->out->nops - s->n);
  memset(&so, 0, sizeof(so));
  snprintf(name, sizeof(name), "%s@%s%d", g->name, what == X_WRITE ? "sw" : "sr",
           what == X_WRITE ? ++t->nwrites : ++t->nreads);
  so.name = name;
  so.kind = ACS_OP_DMA;
  so.src = what == X_WRITE ? ACS_MEM_CMX : ACS_MEM_DDR;
  so.dst = what == X_WRITE ? ACS_MEM_DDR : ACS_MEM_CMX;
  so.dur = acs_platform_ddr_cycles(&s->pb->plat, t->bytes);
  if (so.dur < 0)
    return FAIL(s, ACS_ERANGE, "spilling tensor '%s' (%lld bytes) would take more than %lld "
                "cycles", g->name, (long long)t->bytes, (long long)ACS_QTY_MAX);
  so.bytes = t->bytes;
  so.out_bytes = what == X_READ ? t->bytes : 0;
  so.slots = 1;
  so.unit = -1;
  so.cmx_offset = so.cmx_bytes = -1;
  so.cmx_alloc = so.cmx_free = so.sim_start = so.sim_end = NAN;
  so.update_barrier = -1;
  if ((id = acs_schedule_add_op(s->out, &so)) < 0)
    return id;
  if ((err = acs_grow((void **)&s->x, sizeof(*s->x), &s->xcap, (size_t)(id - s->n) + 1)) < 0 ||
      (err = acs_schedule_set_demand(s->out, id, s->res_dma, 1)) < 0 ||
      (s->res_ddr >= 0 && (err = acs_schedule_set_demand(s->out, id, s->res_ddr, 1)) < 0) ||
      (err = acs_schedule_add_edge(s->out, from, id, ACS_EDGE_DATA)) < 0)
    return err;
  s->x[id - s->n] = (struct xop){ p, (uint8_t)what };
  return id;
}

/* Starts a spill-read of evicted tensor p when a channel and a gap exist.
 * Returns 1 started, 0 not now, < 0 error. */
int acs__spill_try_read(struct spill *s, int32_t p)
{
  struct tensor *t = &s->t[p];
  int64_t off, end;
  int32_t r;
  int err;

  if (!dma_free(s) || (off = acs__spill_place(s, p, t->bytes)) < 0)
    return 0;
  if ((r = add_spill_op(s, p, X_READ, t->ddr_src)) < 0)
    return r;
  s->out->ops[r].cmx_offset = t->off = off;
  s->out->ops[r].cmx_bytes = t->len = rsv(s, t->bytes);
  s->out->ops[r].cmx_alloc = (double)s->now;
  if ((err = acs__spill_note_start(s, r, s->out->ops[r].dur, &end)) < 0)
    return err;
  t->holder = r;
  t->hold_until = end;
  t->last_use = ++s->stamp;
  acs__spill_set_state(s, p, T_LOADING);
  dma_take(s, 1);
  s->st->reads++;
  s->st->read_bytes += t->bytes;
  return 1;
}

/* ---- eviction ------------------------------------------------------------------ */

static int evictable(const struct spill *s, int32_t p)
{
  return s->t[p].state == T_RESIDENT && s->t[p].running == 0 && s->mark[p] != s->mark_cur;
}

/* Rank of the first consumer of p not started yet (Belady's next use). */
static int32_t next_use(struct spill *s, int32_t p)
{
  struct tensor *t = &s->t[p];
  int32_t end = s->cons_off[p + 1] - s->cons_off[p];

  while (t->cursor < end && s->opstate[s->cons[s->cons_off[p] + t->cursor]] >= OP_RUNNING)
    t->cursor++;
  return t->cursor < end ? s->rank[s->cons[s->cons_off[p] + t->cursor]] : INT32_MAX;
}

/* Is window a better to evict than b: no write first, then the smaller
 * key, fewer bytes, the lower start (which tells any two apart, so the
 * order windows are tried in does not matter). */
static int window_better(const struct acs__wpick *a, const struct acs__wpick *b)
{
  if (a->dirty != b->dirty)
    return a->dirty < b->dirty;
  if (a->key != b->key)
    return a->key < b->key;
  if (a->bytes != b->bytes)
    return a->bytes < b->bytes;
  return a->at < b->at;
}

/*
 * The starts, 0 and every range's ends in address order, only grow, and so
 * do a window's first and last members (the ranges that overlap it): one
 * pass slides the window over the ranges, keeping its bytes, counts of the
 * members that may not go or need a write, and its key in a monotonic
 * queue. O(n); trying every window would be O(n^2).
 */
int acs__spill_window_pick(const struct acs__wrange *r, size_t n, int64_t len, int64_t cap,
                           struct acs__wpick *best)
{
  size_t k0 = 0, k1 = 0, qh = 0, qt = 0, bad = 0, dirty = 0, *q = malloc((n + 1) * sizeof(*q));
  int64_t bytes = 0;
  int found = 0;

  if (!q)
    return ACS_ENOMEM;
  for (size_t i = 0; i <= 2 * n; i++) {
    int64_t at = i == 0 ? 0 : i % 2 ? r[(i - 1) / 2].lo : r[(i - 1) / 2].hi;
    if (at + len > cap)
      break; /* the starts only grow */
    for (; k0 < n && r[k0].hi <= at; k0++)
      if (k0 < k1) { /* it leaves the window */
        bad -= !r[k0].ok;
        dirty -= r[k0].dirty != 0;
        bytes -= r[k0].bytes;
      }
    k1 = k1 < k0 ? k0 : k1;
    for (; k1 < n && r[k1].lo < at + len; k1++) {
      bad += !r[k1].ok;
      dirty += r[k1].dirty != 0;
      bytes += r[k1].bytes;
      while (qt > qh && r[q[qt - 1]].key <= r[k1].key)
        qt--; /* the queue's keys decrease: its front is the largest */
      q[qt++] = k1;
    }
    while (qh < qt && q[qh] < k0)
      qh++;
    if (bad > 0 || k1 == k0)
      continue;
    struct acs__wpick w = {at, r[q[qh]].key, bytes, dirty > 0, k0, k1};
    if (!found || window_better(&w, best)) {
      *best = w;
      found = 1;
    }
  }
  free(q);
  return found;
}

/* The best window of `len` bytes made of gaps and evictable tensors; its
 * start is a range boundary (moving a window left to the start of the
 * piece its left end is in never adds a tensor). Windows whose tensors are
 * all clean first, then by the eviction policy: lru the window whose most
 * recent use is the oldest, belady the one whose soonest next use is the
 * furthest; then fewer bytes, the lower address. Returns 1, 0 when none,
 * or ACS_ENOMEM. O(m) for the m ranges in CMX. */
static int best_window(struct spill *s, int64_t len, struct acs__wpick *best)
{
  size_t n = s->used.n;
  struct acs__wrange *r = malloc((n + 1) * sizeof(*r));
  int lru = s->o->evict == EVICT_LRU, found;

  if (!r)
    return ACS_ENOMEM;
  for (size_t k = 0; k < n; k++) {
    int32_t p = s->used.v[k].val;
    r[k] = (struct acs__wrange){s->used.v[k].lo, s->used.v[k].hi,
                                lru ? s->t[p].last_use : -(int64_t)next_use(s, p),
                                s->t[p].bytes, evictable(s, p), s->t[p].ddr_src < 0};
  }
  found = acs__spill_window_pick(r, n, len, s->cap, best);
  free(r);
  return found;
}

/* Evicts resident tensor p now: a clean one is dropped, a dirty one gets a
 * spill-write when a channel is free. Returns 1 evicted, 0 not now. */
static int evict(struct spill *s, int32_t p)
{
  struct tensor *t = &s->t[p];
  int64_t end;
  int32_t w;
  int err;

  if (t->ddr_src >= 0) {
    acs__spill_unplace(s, p);
    acs__spill_set_state(s, p, T_IN_DDR);
    s->st->drops++;
    return 1;
  }
  if (!dma_free(s))
    return 0;
  if ((w = add_spill_op(s, p, X_WRITE, t->holder)) < 0 ||
      (err = acs__spill_note_start(s, w, s->out->ops[w].dur, &end)) < 0)
    return w < 0 ? w : err;
  t->hold_until = end > t->hold_until ? end : t->hold_until;
  acs__spill_set_state(s, p, T_SPILLING);
  dma_take(s, 1);
  s->st->writes++;
  s->st->write_bytes += t->bytes;
  return 1;
}

/* Evicts the tensors of used.v[k0 .. k1) (collected first: evicting
 * changes the set). Returns how many went, or < 0. */
static int evict_range(struct spill *s, size_t k0, size_t k1)
{
  int32_t *ids = malloc((k1 - k0 + 1) * sizeof(*ids));
  int done = 0, err = 0;

  if (!ids)
    return ACS_ENOMEM;
  for (size_t k = k0; k < k1; k++)
    ids[k - k0] = s->used.v[k].val;
  for (size_t k = 0; k < k1 - k0 && err >= 0; k++)
    if (evictable(s, ids[k]) && (err = evict(s, ids[k])) > 0)
      done++;
  free(ids);
  return err < 0 ? err : done;
}

/* The buffer `target` is blocked on: its first evicted input, else its output. */
static int64_t blocked_bytes(const struct spill *s, int32_t v)
{
  for (int32_t k = s->in_off[v]; k < s->in_off[v + 1]; k++)
    if (s->t[s->in[k]].state == T_IN_DDR)
      return s->t[s->in[k]].bytes;
  return has_tensor(s, v) ? s->pb->g->ops[v].out_bytes : 0;
}

/*
 * Nothing runs and nothing can start: evict for the most urgent ready op v
 * (see the top of the file). Returns ACS_OK when something was evicted.
 *
 * Why this terminates. Between two starts of graph ops only evictions and
 * v's spill-reads happen (reads for other ops wait until v starts). Each
 * call evicts at least one tensor (idle: every resident tensor is
 * evictable, a dirty one as soon as a channel is free), and the only
 * tensors that enter the CMX are v's inputs. So the tensors of other ops
 * leave and stay out; once only v's inputs are left and v still does not
 * fit, the flush empties the CMX, v's inputs come back packed from address
 * 0 (first fit, and best fit with a single gap, both place at its start),
 * and v's output fits by the precondition.
 */
int acs__spill_rescue(struct spill *s)
{
  int32_t v = s->rescue >= 0 ? s->rescue : s->by_rank[rs_next(&s->rs, 0)];
  int64_t need = blocked_bytes(s, v);
  struct acs__wpick w = { 0, 0, 0, 0, 0, 0 };
  int done;

  s->rescue = v;
  s->st->rescues++;
  s->mark_cur++;
  for (int32_t k = s->in_off[v]; k < s->in_off[v + 1]; k++)
    s->mark[s->in[k]] = s->mark_cur;
  if (need > 0 && (done = best_window(s, rsv(s, need), &w)) < 0)
    return done;
  if (need > 0 && done)
    done = evict_range(s, w.k0, w.k1);
  else {
    s->mark_cur++; /* a flush: the target's inputs may go too */
    done = evict_range(s, 0, s->used.n);
  }
  if (done < 0)
    return done;
  if (done == 0)
    return FAIL(s, ACS_EINVAL, "spill: op '%s' cannot start at cycle %lld and nothing "
                "can be evicted", s->pb->g->ops[v].name, (long long)s->now);
  return ACS_OK;
}
