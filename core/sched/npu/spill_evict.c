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

struct window {
  int64_t at, bytes, key;
  int dirty;     /* some member needs a write */
  size_t k0, k1; /* members used.v[k0 .. k1) */
};

/* Cost of evicting the window at `at` (smaller is better), or 0 when it
 * holds a tensor that may not go. */
static int window_cost(struct spill *s, int64_t at, int64_t len, struct window *w)
{
  size_t k = acs__ivset_lower(&s->used, at);

  w->at = at;
  w->bytes = 0;
  w->dirty = 0;
  w->key = s->o->evict == EVICT_LRU ? INT64_MIN : INT64_MAX;
  w->k0 = k;
  for (; k < s->used.n && s->used.v[k].lo < at + len; k++) {
    int32_t p = s->used.v[k].val;
    if (!evictable(s, p))
      return 0;
    w->bytes += s->t[p].bytes;
    w->dirty |= s->t[p].ddr_src < 0;
    if (s->o->evict == EVICT_LRU)
      w->key = s->t[p].last_use > w->key ? s->t[p].last_use : w->key;
    else
      w->key = next_use(s, p) < w->key ? next_use(s, p) : w->key;
  }
  w->k1 = k;
  if (s->o->evict == EVICT_BELADY)
    w->key = -w->key; /* furthest next use first */
  return 1;
}

static int window_better(const struct window *a, const struct window *b)
{
  if (a->dirty != b->dirty)
    return a->dirty < b->dirty;
  if (a->key != b->key)
    return a->key < b->key;
  if (a->bytes != b->bytes)
    return a->bytes < b->bytes;
  return a->at < b->at;
}

/* The best window of `len` bytes made of gaps and evictable tensors; its
 * start is a range boundary (moving a window left to the start of the piece
 * its left end is in never adds a tensor). Returns 0 when none. O(m^2). */
static int best_window(struct spill *s, int64_t len, struct window *best)
{
  int found = 0;

  for (size_t k = 0; k <= s->used.n; k++)
    for (int side = 0; side < 2; side++) {
      struct window w = { 0, 0, 0, 0, 0, 0 };
      int64_t at = k == s->used.n ? (side ? 0 : -1) : side ? s->used.v[k].hi : s->used.v[k].lo;
      if (at < 0 || at + len > s->cap || !window_cost(s, at, len, &w) || w.k1 == w.k0)
        continue;
      if (!found || window_better(&w, best)) {
        *best = w;
        found = 1;
      }
    }
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
  struct window w = { 0, 0, 0, 0, 0, 0 };
  int done;

  s->rescue = v;
  s->st->rescues++;
  s->mark_cur++;
  for (int32_t k = s->in_off[v]; k < s->in_off[v + 1]; k++)
    s->mark[s->in[k]] = s->mark_cur;
  if (need > 0 && best_window(s, rsv(s, need), &w))
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
