/*
 * lower.c - an SDF plan as the common schedule (see acs_gang_lower in gang.h).
 *
 * Op names: firings keep the firing DAG's "<actor>#<k>"; transfers are
 * "<channel>#<j>:pe<p>>pe<q>", "<channel>#<j>:pe<p>>ddr" and
 * "<channel>#<j>:ddr>pe<q>"; kernel loads "load:<actor>@pe<p>"; buffers
 * "buf:<channel>#<j>@pe<p>". O((A + B) log (A + B) + B W) for A activities
 * and B buffers read by W firings each.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/ctrledge.h"
#include "core/sched/gang/gang.h"

struct lw {
  const struct acs_sdf_graph *g;
  const struct acs_gang_plat *xp;
  const struct acs_gang_plan *pl;
  struct acs_schedule *s;
  int32_t *op_of;        /* act -> schedule op */
  int32_t *xf;           /* transfer acts sorted by (chan, j, start) */
  int32_t nxf;
  int32_t *fire_pe;      /* firing acts sorted by (PE, start) */
  int32_t nfire;
};

static int add_dma(struct lw *w, int32_t ai)
{
  const struct acs_gang_act *a = &w->pl->acts[ai];
  struct acs_sop o;
  char name[ACS_NAME_MAX];
  int32_t id;

  memset(&o, 0, sizeof(o));
  o.kind = ACS_OP_DMA;
  o.unit = a->unit;
  o.start = a->start;
  o.end = a->end;
  o.dur = a->end - a->start;
  o.bytes = a->bytes;
  o.slots = 1;
  o.cmx_offset = o.cmx_bytes = -1;
  o.update_barrier = -1;
  o.cmx_alloc = o.cmx_free = o.sim_start = o.sim_end = NAN;
  if (a->kind == ACS_GANG_LOAD) {
    o.src = ACS_MEM_DDR;
    o.dst = ACS_MEM_CMX;
    snprintf(name, sizeof(name), "load:%s@pe%d", w->g->actors[a->actor].name, (int)a->pe);
  } else {
    const char *cn = w->g->channels[a->chan].name;
    o.src = a->xk == ACS_GANG_X_IN ? ACS_MEM_DDR : ACS_MEM_CMX;
    o.dst = a->xk == ACS_GANG_X_OUT ? ACS_MEM_DDR : ACS_MEM_CMX;
    if (a->xk == ACS_GANG_X_LOCAL)
      snprintf(name, sizeof(name), "%s#%lld:pe%d>pe%d", cn, (long long)a->k, (int)a->pe_from,
               (int)a->pe);
    else if (a->xk == ACS_GANG_X_OUT)
      snprintf(name, sizeof(name), "%s#%lld:pe%d>ddr", cn, (long long)a->k, (int)a->pe_from);
    else
      snprintf(name, sizeof(name), "%s#%lld:ddr>pe%d", cn, (long long)a->k, (int)a->pe);
  }
  o.name = name;
  if ((id = acs_schedule_add_op(w->s, &o)) < 0)
    return id;
  if (w->s->res_dma >= 0 && acs_schedule_set_demand(w->s, id, w->s->res_dma, 1) < 0)
    return ACS_EINVAL;
  w->op_of[ai] = id;
  return ACS_OK;
}

static int place_acts(struct lw *w)
{
  const struct acs_sdf_graph *g = w->g;
  int err;

  for (int32_t i = 0; i < w->pl->nacts; i++) {
    const struct acs_gang_act *a = &w->pl->acts[i];
    if (a->kind == ACS_GANG_FIRE) {
      int64_t id = g->base[a->actor] + a->k;
      struct acs_sop *o;
      if (a->k < 0 || a->k >= g->actors[a->actor].total || id >= w->s->norig)
        return ACS_EINVAL;
      o = &w->s->ops[id];
      o->start = a->start;
      o->end = a->end;
      o->unit = a->unit;
      w->op_of[i] = (int32_t)id;
    } else if ((err = add_dma(w, i)) < 0) {
      return err;
    }
  }
  return ACS_OK;
}

/* ---- lookups ---- */

static const struct acs_gang_plan *sort_plan;

static int cmp_xf(const void *x, const void *y)
{
  const struct acs_gang_act *a = &sort_plan->acts[*(const int32_t *)x],
                            *b = &sort_plan->acts[*(const int32_t *)y];

  if (a->chan != b->chan)
    return a->chan < b->chan ? -1 : 1;
  if (a->k != b->k)
    return a->k < b->k ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (*(const int32_t *)x > *(const int32_t *)y) - (*(const int32_t *)x < *(const int32_t *)y);
}

static int cmp_fire_pe(const void *x, const void *y)
{
  const struct acs_gang_act *a = &sort_plan->acts[*(const int32_t *)x],
                            *b = &sort_plan->acts[*(const int32_t *)y];

  if (a->unit != b->unit)
    return a->unit < b->unit ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (*(const int32_t *)x > *(const int32_t *)y) - (*(const int32_t *)x < *(const int32_t *)y);
}

static int build_index(struct lw *w)
{
  const struct acs_gang_plan *pl = w->pl;

  w->xf = malloc(((size_t)pl->nacts + 1) * sizeof(int32_t));
  w->fire_pe = malloc(((size_t)pl->nacts + 1) * sizeof(int32_t));
  if (!w->xf || !w->fire_pe)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < pl->nacts; i++) {
    if (pl->acts[i].kind == ACS_GANG_XFER)
      w->xf[w->nxf++] = i;
    else if (pl->acts[i].kind == ACS_GANG_FIRE)
      w->fire_pe[w->nfire++] = i;
  }
  sort_plan = pl;
  qsort(w->xf, (size_t)w->nxf, sizeof(int32_t), cmp_xf);
  qsort(w->fire_pe, (size_t)w->nfire, sizeof(int32_t), cmp_fire_pe);
  return ACS_OK;
}

/* First transfer of token (c, j) in w->xf, or nxf. */
static int32_t xf_first(const struct lw *w, int32_t c, int64_t j)
{
  int32_t lo = 0, hi = w->nxf;

  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    const struct acs_gang_act *a = &w->pl->acts[w->xf[mid]];
    if (a->chan < c || (a->chan == c && a->k < j))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int edge(struct lw *w, int32_t a, int32_t b, int kind)
{
  if (a < 0 || b < 0 || a == b)
    return ACS_OK;
  return acs_schedule_add_edge(w->s, a, b, kind);
}

/* ---- buffers ---- */

/* Readers of buffer b: firings of the channel's consumer on its PE whose
 * window holds the token, and transfers of the token out of its PE, within
 * [ready, free]. Adds data edges from the holder and the writer; returns
 * the op that ends last (the releaser), or -1. */
static int readers(struct lw *w, const struct acs_gang_buf *b, int32_t holder, int32_t writer,
                   int32_t *last)
{
  const struct acs_sdf_graph *g = w->g;
  const struct acs_sdf_channel *cc = &g->channels[b->chan];
  int64_t best_end = -1;
  int err;

  *last = -1;
  if (cc->dst >= 0) {
    int64_t T = g->actors[cc->dst].total, lo = 0, hi = T;
    /* First firing with need(k) > j. */
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (acs_sdf_need(g, b->chan, mid) > b->j)
        hi = mid;
      else
        lo = mid + 1;
    }
    for (int64_t k = lo; k < T && acs_sdf_release(g, b->chan, k - 1) <= b->j; k++) {
      int32_t op = (int32_t)(g->base[cc->dst] + k);
      const struct acs_sop *o = &w->s->ops[op];
      if (o->unit != b->pe || o->start < b->ready || o->end > b->free)
        continue;
      if ((err = edge(w, holder, op, ACS_EDGE_DATA)) < 0 ||
          (err = edge(w, writer, op, ACS_EDGE_DATA)) < 0)
        return err;
      if (o->end > best_end) {
        best_end = o->end;
        *last = op;
      }
    }
  }
  for (int32_t i = xf_first(w, b->chan, b->j); i < w->nxf; i++) {
    const struct acs_gang_act *a = &w->pl->acts[w->xf[i]];
    if (a->chan != b->chan || a->k != b->j)
      break;
    if (a->pe_from != b->pe || a->start < b->ready || a->end > b->free)
      continue;
    if ((err = edge(w, holder, w->op_of[w->xf[i]], ACS_EDGE_DATA)) < 0 ||
        (err = edge(w, writer, w->op_of[w->xf[i]], ACS_EDGE_DATA)) < 0)
      return err;
    if (a->end > best_end) {
      best_end = a->end;
      *last = w->op_of[w->xf[i]];
    }
  }
  return ACS_OK;
}

struct slotuse {
  int32_t buf, holder, writer, releaser;
};

static const struct acs_gang_plan *sort_bufs;

static int cmp_slotuse(const void *x, const void *y)
{
  const struct acs_gang_buf *a = &sort_bufs->bufs[((const struct slotuse *)x)->buf];
  const struct acs_gang_buf *b = &sort_bufs->bufs[((const struct slotuse *)y)->buf];

  if (a->pe != b->pe)
    return a->pe < b->pe ? -1 : 1;
  if (a->offset != b->offset)
    return a->offset < b->offset ? -1 : 1;
  if (a->alloc != b->alloc)
    return a->alloc < b->alloc ? -1 : 1;
  return (((const struct slotuse *)x)->buf > ((const struct slotuse *)y)->buf) -
         (((const struct slotuse *)x)->buf < ((const struct slotuse *)y)->buf);
}

static int add_buffers(struct lw *w)
{
  const struct acs_gang_plan *pl = w->pl;
  struct slotuse *su = malloc(((size_t)pl->nbufs + 1) * sizeof(*su));
  int err = ACS_OK;

  if (!su)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < pl->nbufs && err == ACS_OK; i++) {
    const struct acs_gang_buf *b = &pl->bufs[i];
    struct acs_sop o;
    char name[ACS_NAME_MAX];
    int32_t id;
    memset(&o, 0, sizeof(o));
    snprintf(name, sizeof(name), "buf:%s#%lld@pe%d", w->g->channels[b->chan].name,
             (long long)b->j, (int)b->pe);
    o.name = name;
    o.kind = ACS_OP_SYNC;
    o.unit = -1;
    o.start = o.end = b->alloc;
    o.slots = 1;
    o.cmx_offset = (int64_t)b->pe * w->xp->vmem + b->offset;
    o.cmx_bytes = b->bytes;
    o.out_bytes = b->bytes;
    o.cmx_alloc = (double)b->alloc;
    o.cmx_free = (double)b->free;
    o.update_barrier = -1;
    o.sim_start = o.sim_end = NAN;
    if ((id = acs_schedule_add_op(w->s, &o)) < 0) {
      err = id;
      break;
    }
    su[i].buf = i;
    su[i].holder = id;
    su[i].writer = b->writer >= 0 ? w->op_of[b->writer] : -1;
    if ((err = edge(w, id, su[i].writer, ACS_EDGE_CONTROL)) < 0)
      break;
    err = readers(w, b, id, su[i].writer, &su[i].releaser);
  }
  /* A slot is allocated again (and so written again: the writer follows
   * the op that holds the buffer) after the reader that frees it. */
  if (err == ACS_OK) {
    sort_bufs = pl;
    qsort(su, (size_t)pl->nbufs, sizeof(*su), cmp_slotuse);
    for (int32_t i = 1; i < pl->nbufs && err == ACS_OK; i++) {
      const struct acs_gang_buf *a = &pl->bufs[su[i - 1].buf], *b = &pl->bufs[su[i].buf];
      if (a->pe == b->pe && a->offset == b->offset)
        err = edge(w, su[i - 1].releaser, su[i].holder, ACS_EDGE_CONTROL);
    }
  }
  free(su);
  return err;
}

/* ---- loads and DDR hand-overs ---- */

/* The latest firing on PE p that ends by t, or -1. */
static int32_t last_firing_before(const struct lw *w, int32_t p, int64_t t)
{
  int32_t best = -1;

  for (int32_t i = 0; i < w->nfire; i++) {
    const struct acs_gang_act *a = &w->pl->acts[w->fire_pe[i]];
    if (a->unit != p || a->start >= t)
      continue;
    if (a->end <= t && (best < 0 || a->end >= w->pl->acts[best].end))
      best = w->fire_pe[i];
  }
  return best;
}

static int link_loads(struct lw *w)
{
  const struct acs_gang_plan *pl = w->pl;
  int err;

  for (int32_t i = 0; i < pl->nacts; i++) {
    const struct acs_gang_act *ld = &pl->acts[i];
    int32_t prev, first = -1;
    if (ld->kind != ACS_GANG_LOAD)
      continue;
    /* The PE's earlier work is done before its program memory is rewritten. */
    prev = last_firing_before(w, ld->pe, ld->start);
    if (prev >= 0 && (err = edge(w, w->op_of[prev], w->op_of[i], ACS_EDGE_CONTROL)) < 0)
      return err;
    /* The kernel is there before its first firing on the PE. */
    for (int32_t k = 0; k < w->nfire; k++) {
      const struct acs_gang_act *a = &pl->acts[w->fire_pe[k]];
      if (a->unit == ld->pe && a->actor == ld->actor && a->start >= ld->end &&
          (ld->evict < 0 || a->end <= ld->evict) &&
          (first < 0 || a->start < pl->acts[first].start))
        first = w->fire_pe[k];
    }
    if (first >= 0 && (err = edge(w, w->op_of[i], w->op_of[first], ACS_EDGE_CONTROL)) < 0)
      return err;
  }
  return ACS_OK;
}

/* A DDR read of a token after the write that put it there. */
static int link_ddr(struct lw *w)
{
  int err;

  for (int32_t i = 0; i < w->nxf; i++) {
    const struct acs_gang_act *in = &w->pl->acts[w->xf[i]];
    int32_t best = -1;
    if (in->xk != ACS_GANG_X_IN)
      continue;
    for (int32_t k = xf_first(w, in->chan, in->k); k < w->nxf; k++) {
      const struct acs_gang_act *o = &w->pl->acts[w->xf[k]];
      if (o->chan != in->chan || o->k != in->k)
        break;
      if (o->xk == ACS_GANG_X_OUT && o->end <= in->start &&
          (best < 0 || o->end > w->pl->acts[best].end))
        best = w->xf[k];
    }
    if (best >= 0 && (err = edge(w, w->op_of[best], w->op_of[w->xf[i]], ACS_EDGE_DATA)) < 0)
      return err;
  }
  return ACS_OK;
}

/*
 * The control edges of the buffers' packing (ctrledge.h). The slot chains
 * of add_buffers order the tokens of one channel slot; buffers of other
 * channels share addresses over time too (a later gang's buffers reuse an
 * earlier one's), and only the planned times kept those apart. With these
 * edges every execution that respects the edges keeps every two buffers
 * apart, as a runtime needs and as the barrier pass's re-timing assumes
 * (without them it moved a buffer's allocation before the last reader of
 * the one it replaces, and the verifier refused the program). A candidate
 * is dropped when a search of at most 64 ops finds a path that implies it
 * (the slot chains imply most): on double HDR, 6,566 edges for 85,882
 * buffers, in a third of the time a transitive reduction takes.
 */
static int memory_edges(struct acs_schedule *s)
{
  struct acs_ctrl_stats st;

  return acs__ctrl_edges_add(s, NULL, 64, &st);
}

int acs_gang_lower(const struct acs_sdf_graph *g, const struct acs_gang_plat *xp,
                   const struct acs_gang_plan *pl, struct acs_schedule *s)
{
  struct lw w = { g, xp, pl, s, NULL, NULL, 0, NULL, 0 };
  int err;

  if (s->norig != g->total_firings)
    return ACS_EINVAL;
  w.op_of = malloc(((size_t)pl->nacts + 1) * sizeof(int32_t));
  if (!w.op_of)
    return ACS_ENOMEM;
  s->cmx_capacity = (int64_t)xp->npe * xp->vmem;
  s->cmx_align = xp->align;
  if (s->res_cmx >= 0)
    s->res_cap[s->res_cmx] = s->cmx_capacity;
  if ((err = place_acts(&w)) < 0 || (err = build_index(&w)) < 0 || (err = add_buffers(&w)) < 0 ||
      (err = link_loads(&w)) < 0 || (err = link_ddr(&w)) < 0 || (err = memory_edges(s)) < 0)
    goto out_with_maps;
  acs_schedule_finish(s);
out_with_maps:
  free(w.op_of);
  free(w.xf);
  free(w.fire_pe);
  return err;
}
