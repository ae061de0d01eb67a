/*
 * verify.c - the schedule verifier: an independent check of every invariant
 * a schedule must satisfy. It trusts nothing a scheduler computed beyond the
 * schedule itself, and reports the first violation with the ops, times and
 * amounts involved. Overall O((V + E) log V + V R).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/bprog.h"
#include "core/model/bprog_int.h"
#include "core/model/schedule.h"

#define FAIL(d, ...) acs_diag_set((d), ACS_EVERIFY, NULL, 0, 0, __VA_ARGS__)

static int check_times(const struct acs_schedule *s, struct acs_diag *d)
{
  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    if (o->start < 0)
      return FAIL(d, "op '%s' is not scheduled (start %lld)", o->name, (long long)o->start);
    if (o->end - o->start != o->dur)
      return FAIL(d, "op '%s' runs [%lld, %lld) but its duration is %lld cycles",
                  o->name, (long long)o->start, (long long)o->end, (long long)o->dur);
  }
  return ACS_OK;
}

static int check_edges(const struct acs_schedule *s, struct acs_diag *d)
{
  for (int32_t e = 0; e < s->nedges; e++) {
    const struct acs_edge *ed = &s->edges[e];
    const struct acs_sop *a, *b;
    if (ed->src < 0 || ed->src >= s->nops || ed->dst < 0 || ed->dst >= s->nops)
      return FAIL(d, "edge %d refers to op %d -> %d, outside [0, %d)", e, ed->src,
                  ed->dst, s->nops);
    a = &s->ops[ed->src];
    b = &s->ops[ed->dst];
    if (b->start < a->end)
      return FAIL(d, "%s edge '%s' -> '%s' violated: '%s' starts at %lld before '%s' ends at %lld",
                  acs_edge_kind_name(ed->kind), a->name, b->name, b->name,
                  (long long)b->start, a->name, (long long)a->end);
  }
  return ACS_OK;
}

/* ---- units ---- */

struct unit_slot {
  int32_t unit, op;
  int64_t start, end;
};

static int cmp_unit_slot(const void *x, const void *y)
{
  const struct unit_slot *a = x, *b = y;

  if (a->unit != b->unit)
    return a->unit < b->unit ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->op > b->op) - (a->op < b->op);
}

/* The resource whose instances an op's unit indexes: DMA channels for
 * transfers, PEs for everything else; -1 when the op needs neither. */
static int unit_resource(const struct acs_schedule *s, int32_t i)
{
  int r = s->ops[i].kind == ACS_OP_DMA ? s->res_dma : s->res_pe;

  if (r < 0 || acs_schedule_demand(s, i, r) == 0)
    return -1;
  return r;
}

static int check_unit_ranges(const struct acs_schedule *s, struct acs_diag *d)
{
  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    int r = unit_resource(s, i);
    if (r < 0) {
      if (o->unit >= 0)
        return FAIL(d, "op '%s' runs on unit %d but demands no %s", o->name, o->unit,
                    o->kind == ACS_OP_DMA ? "DMA channel" : "PE");
      continue;
    }
    if (acs_schedule_demand(s, i, r) != 1)
      return FAIL(d, "op '%s' demands %lld units of '%s'; one op runs on exactly one",
                  o->name, (long long)acs_schedule_demand(s, i, r), s->res_name[r]);
    if (o->unit < 0 || o->unit >= s->res_cap[r])
      return FAIL(d, "op '%s' runs on %s %d, outside [0, %lld)", o->name, s->res_name[r],
                  o->unit, (long long)s->res_cap[r]);
  }
  return ACS_OK;
}

static int check_unit_overlap(const struct acs_schedule *s, int dma, struct acs_diag *d)
{
  struct unit_slot *v = malloc(((size_t)s->nops + 1) * sizeof(*v));
  size_t n = 0;
  int err = ACS_OK;

  if (!v)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].unit >= 0 && (s->ops[i].kind == ACS_OP_DMA) == dma && s->ops[i].dur > 0)
      v[n++] = (struct unit_slot){s->ops[i].unit, i, s->ops[i].start, s->ops[i].end};
  qsort(v, n, sizeof(*v), cmp_unit_slot);
  for (size_t k = 1; k < n && err == ACS_OK; k++)
    if (v[k].unit == v[k - 1].unit && v[k].start < v[k - 1].end)
      err = FAIL(d, "ops '%s' [%lld, %lld) and '%s' [%lld, %lld) overlap on %s %d",
                 s->ops[v[k - 1].op].name, (long long)v[k - 1].start, (long long)v[k - 1].end,
                 s->ops[v[k].op].name, (long long)v[k].start, (long long)v[k].end,
                 dma ? "DMA channel" : "PE", v[k].unit);
  free(v);
  return err;
}

/* ---- capacities ---- */

struct cap_event {
  int64_t t;
  int32_t op;
  int8_t start; /* 1 start, 0 end */
};

static int cmp_cap_event(const void *x, const void *y)
{
  const struct cap_event *a = x, *b = y;

  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  /* Ends first: an op finishing at t frees its resources for ops starting at t. */
  if (a->start != b->start)
    return a->start - b->start;
  return (a->op > b->op) - (a->op < b->op);
}

static int check_capacities(const struct acs_schedule *s, struct acs_diag *d)
{
  struct cap_event *ev;
  int64_t use[ACS_MAX_RES] = {0};
  size_t n = 0, bytes;
  int err = ACS_OK;

  if (s->nres == 0)
    return ACS_OK;
  if (acs_mul_size((size_t)s->nops + 1, 2 * sizeof(*ev), &bytes) || !(ev = malloc(bytes)))
    return ACS_ENOMEM;
  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].end > s->ops[i].start) {
      ev[n++] = (struct cap_event){s->ops[i].start, i, 1};
      ev[n++] = (struct cap_event){s->ops[i].end, i, 0};
    }
  qsort(ev, n, sizeof(*ev), cmp_cap_event);
  for (size_t k = 0; k < n && err == ACS_OK; k++) {
    int32_t i = ev[k].op;
    for (int r = 0; r < s->nres; r++) {
      int64_t dem = acs_schedule_demand(s, i, r);
      use[r] += ev[k].start ? dem : -dem;
      if (ev[k].start && dem > 0 && use[r] > s->res_cap[r]) {
        err = FAIL(d, "at cycle %lld, '%s' starts and resource '%s' is over capacity: %lld > %lld",
                   (long long)ev[k].t, s->ops[i].name, s->res_name[r], (long long)use[r],
                   (long long)s->res_cap[r]);
        break;
      }
    }
  }
  free(ev);
  return err;
}

/* ---- CMX ranges ---- */

struct range_event {
  double t;
  int32_t op;
  int8_t alloc; /* 1 alloc, 0 free */
};

static int cmp_range_event(const void *x, const void *y)
{
  const struct range_event *a = x, *b = y;

  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  if (a->alloc != b->alloc)
    return a->alloc - b->alloc; /* frees first: [alloc, free) is half-open */
  return (a->op > b->op) - (a->op < b->op);
}

static int check_range_shape(const struct acs_schedule *s, int32_t i, struct acs_diag *d)
{
  const struct acs_sop *o = &s->ops[i];

  if (o->cmx_bytes <= 0)
    return FAIL(d, "op '%s' has CMX offset %lld but size %lld", o->name,
                (long long)o->cmx_offset, (long long)o->cmx_bytes);
  if (s->cmx_capacity >= 0 && o->cmx_offset + o->cmx_bytes > s->cmx_capacity)
    return FAIL(d, "op '%s' holds CMX [%lld, %lld), beyond the CMX size %lld", o->name,
                (long long)o->cmx_offset, (long long)(o->cmx_offset + o->cmx_bytes),
                (long long)s->cmx_capacity);
  if (s->cmx_align > 1 && o->cmx_offset % s->cmx_align != 0)
    return FAIL(d, "op '%s' CMX offset %lld is not aligned to %lld bytes", o->name,
                (long long)o->cmx_offset, (long long)s->cmx_align);
  if (isnan(o->cmx_alloc) || isnan(o->cmx_free) || o->cmx_alloc > (double)o->start ||
      o->cmx_free < (double)o->end)
    return FAIL(d, "op '%s' runs [%lld, %lld) but holds its CMX range only over [%g, %g)",
                o->name, (long long)o->start, (long long)o->end, o->cmx_alloc, o->cmx_free);
  return ACS_OK;
}

/* Active ranges kept sorted by offset; a new range must fit between its
 * neighbours. Insertion is a binary search plus a memmove. */
static int range_insert(const struct acs_schedule *s, int32_t *act, size_t *nact,
                        int32_t i, struct acs_diag *d)
{
  size_t lo = 0, hi = *nact;
  const struct acs_sop *o = &s->ops[i];

  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s->ops[act[mid]].cmx_offset < o->cmx_offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo > 0) {
    const struct acs_sop *p = &s->ops[act[lo - 1]];
    if (p->cmx_offset + p->cmx_bytes > o->cmx_offset)
      return FAIL(d, "CMX ranges of '%s' [%lld, %lld) and '%s' [%lld, %lld) overlap while both are held",
                  p->name, (long long)p->cmx_offset, (long long)(p->cmx_offset + p->cmx_bytes),
                  o->name, (long long)o->cmx_offset, (long long)(o->cmx_offset + o->cmx_bytes));
  }
  if (lo < *nact) {
    const struct acs_sop *q = &s->ops[act[lo]];
    if (o->cmx_offset + o->cmx_bytes > q->cmx_offset)
      return FAIL(d, "CMX ranges of '%s' [%lld, %lld) and '%s' [%lld, %lld) overlap while both are held",
                  o->name, (long long)o->cmx_offset, (long long)(o->cmx_offset + o->cmx_bytes),
                  q->name, (long long)q->cmx_offset, (long long)(q->cmx_offset + q->cmx_bytes));
  }
  memmove(act + lo + 1, act + lo, (*nact - lo) * sizeof(*act));
  act[lo] = i;
  (*nact)++;
  return ACS_OK;
}

static void range_remove(int32_t *act, size_t *nact, int32_t i)
{
  for (size_t k = 0; k < *nact; k++)
    if (act[k] == i) {
      memmove(act + k, act + k + 1, (*nact - k - 1) * sizeof(*act));
      (*nact)--;
      return;
    }
}

static int check_cmx_ranges(const struct acs_schedule *s, struct acs_diag *d)
{
  struct range_event *ev = NULL;
  int32_t *act = NULL;
  size_t n = 0, nact = 0;
  int err = ACS_OK;

  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].cmx_offset >= 0 && (err = check_range_shape(s, i, d)) < 0)
      return err;
  ev = malloc(((size_t)s->nops * 2 + 1) * sizeof(*ev));
  act = malloc(((size_t)s->nops + 1) * sizeof(*act));
  if (!ev || !act) {
    err = ACS_ENOMEM;
    goto out_with_buffers;
  }
  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].cmx_offset >= 0 && s->ops[i].cmx_free > s->ops[i].cmx_alloc) {
      ev[n++] = (struct range_event){s->ops[i].cmx_alloc, i, 1};
      ev[n++] = (struct range_event){s->ops[i].cmx_free, i, 0};
    }
  qsort(ev, n, sizeof(*ev), cmp_range_event);
  for (size_t k = 0; k < n && err == ACS_OK; k++) {
    if (ev[k].alloc)
      err = range_insert(s, act, &nact, ev[k].op, d);
    else
      range_remove(act, &nact, ev[k].op);
  }
out_with_buffers:
  free(ev);
  free(act);
  return err;
}

/* ---- residency and spills ---- */

/*
 * Spills (e.g. the `spill` variant's) are added DMA ops between CMX and DDR
 * that copy a tensor. A spill-write moves CMX to DDR and has exactly one
 * data predecessor, which holds a CMX range: it copies that tensor out. A
 * spill-read moves DDR to CMX into a range of its own and has exactly one
 * data predecessor, a spill-write or the graph's DDR-to-CMX load (whose
 * source still holds the data): it brings that tensor back. Consumers of a
 * tensor whose range was given back read such a copy, through a data edge
 * from the read. Other added DMAs (e.g. a write-back in a schedule without
 * CMX ranges) are not spills and follow the ordinary rules.
 */
enum { SPILL_NONE, SPILL_WRITE, SPILL_READ };

struct data_preds {
  int32_t *off, *pred;  /* data predecessors, CSR by destination */
  int32_t *origin;      /* the op whose tensor an op's data is */
  uint8_t *what;        /* SPILL_* */
};

static int data_preds_build(const struct acs_schedule *s, struct data_preds *dp)
{
  dp->off = calloc((size_t)s->nops + 2, sizeof(*dp->off));
  dp->pred = malloc(((size_t)s->nedges + 1) * sizeof(*dp->pred));
  dp->origin = malloc(((size_t)s->nops + 1) * sizeof(*dp->origin));
  dp->what = calloc((size_t)s->nops + 1, sizeof(*dp->what));
  if (!dp->off || !dp->pred || !dp->origin || !dp->what)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].kind == ACS_EDGE_DATA)
      dp->off[s->edges[e].dst + 2]++;
  for (int32_t v = 0; v < s->nops; v++)
    dp->off[v + 2] += dp->off[v + 1];
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].kind == ACS_EDGE_DATA)
      dp->pred[dp->off[s->edges[e].dst + 1]++] = s->edges[e].src;
  return ACS_OK;
}

static void data_preds_free(struct data_preds *dp)
{
  free(dp->off);
  free(dp->pred);
  free(dp->origin);
  free(dp->what);
}

static int is_load(const struct acs_sop *o)
{
  return o->kind == ACS_OP_DMA && o->src == ACS_MEM_DDR && o->dst == ACS_MEM_CMX;
}

/* Which spill op i is (sources come first in the op table). */
static int spill_kind(const struct acs_schedule *s, const struct data_preds *dp, int32_t i)
{
  const struct acs_sop *o = &s->ops[i], *q;
  int32_t src;

  if (i < s->norig || o->kind != ACS_OP_DMA || dp->off[i + 1] - dp->off[i] != 1)
    return SPILL_NONE;
  src = dp->pred[dp->off[i]];
  if (src >= i)
    return SPILL_NONE;
  q = &s->ops[src];
  if (o->src == ACS_MEM_CMX && o->dst == ACS_MEM_DDR && q->cmx_offset >= 0)
    return SPILL_WRITE;
  if (is_load(o) && (dp->what[src] == SPILL_WRITE || (src < s->norig && is_load(q))))
    return SPILL_READ;
  return SPILL_NONE;
}

/* Classifies every op (dp->what, dp->origin) and checks that each spill
 * copies its tensor whole, and that a read holds a range for it. O(V + E). */
static int check_spill_ops(const struct acs_schedule *s, struct data_preds *dp,
                           struct acs_diag *d)
{
  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    dp->origin[i] = i;
    dp->what[i] = (uint8_t)spill_kind(s, dp, i);
    if (dp->what[i] == SPILL_NONE)
      continue;
    dp->origin[i] = dp->origin[dp->pred[dp->off[i]]];
    if (dp->what[i] == SPILL_READ && (o->cmx_offset < 0 || o->out_bytes != o->bytes))
      return FAIL(d, "spill-read '%s' must hold a CMX range for the %lld bytes it reads",
                  o->name, (long long)o->bytes);
    if (o->bytes != s->ops[dp->origin[i]].out_bytes)
      return FAIL(d, "spill op '%s' moves %lld bytes but the tensor of '%s' has %lld", o->name,
                  (long long)o->bytes, s->ops[dp->origin[i]].name,
                  (long long)s->ops[dp->origin[i]].out_bytes);
  }
  return ACS_OK;
}

/* A spill-read of p's tensor that feeds c and is held while c runs. */
static int fed_by_copy(const struct acs_schedule *s, const struct data_preds *dp, int32_t p,
                       int32_t c)
{
  for (int32_t k = dp->off[c]; k < dp->off[c + 1]; k++) {
    int32_t r = dp->pred[k];
    if (dp->what[r] == SPILL_READ && dp->origin[r] == dp->origin[p] &&
        s->ops[r].cmx_free >= (double)s->ops[c].end)
      return 1;
  }
  return 0;
}

/*
 * A consumer reads its producer's tensor from CMX: when the producer holds a
 * range, that range must be held while the consumer runs, or the tensor was
 * spilled and read back before this use: a spill-read of it feeds the
 * consumer and is held while it runs. A spill-read itself reads DDR, not
 * the range. O(V + E) plus the data in-degree of each consumer per edge.
 */
static int check_residency(const struct acs_schedule *s, struct acs_diag *d)
{
  struct data_preds dp = { NULL, NULL, NULL, NULL };
  int err = data_preds_build(s, &dp);

  if (err == ACS_OK)
    err = check_spill_ops(s, &dp, d);
  for (int32_t e = 0; e < s->nedges && err == ACS_OK; e++) {
    const struct acs_edge *ed = &s->edges[e];
    const struct acs_sop *p = &s->ops[ed->src], *c = &s->ops[ed->dst];
    if (ed->kind != ACS_EDGE_DATA || p->cmx_offset < 0 || dp.what[ed->dst] == SPILL_READ ||
        p->cmx_free >= (double)c->end || fed_by_copy(s, &dp, ed->src, ed->dst))
      continue;
    err = FAIL(d, "'%s' reads the tensor of '%s' until %lld but its CMX range is freed at %g",
               c->name, p->name, (long long)c->end, p->cmx_free);
  }
  data_preds_free(&dp);
  return err;
}

/* ---- barriers ---- */

/* Every wait must name a barrier that one of the op's predecessors
 * updates; predecessors come from a CSR built over the edges, O(V + E + W). */
static int check_waits(const struct acs_schedule *s, struct acs_diag *d)
{
  int32_t *off = calloc((size_t)s->nops + 2, sizeof(*off));
  int32_t *pred = malloc(((size_t)s->nedges + 1) * sizeof(*pred));
  int err = ACS_OK;

  if (!off || !pred) {
    err = ACS_ENOMEM;
    goto out_with_csr;
  }
  for (int32_t e = 0; e < s->nedges; e++)
    off[s->edges[e].dst + 2]++;
  for (int32_t v = 0; v < s->nops; v++)
    off[v + 2] += off[v + 1];
  for (int32_t e = 0; e < s->nedges; e++)
    pred[off[s->edges[e].dst + 1]++] = s->edges[e].src;
  for (int32_t w = 0; w < s->nwaits && err == ACS_OK; w++) {
    int32_t op = s->waits[w].op, b = s->waits[w].barrier, found = 0;
    if (op < 0 || op >= s->nops) {
      err = FAIL(d, "wait %d refers to op %d, outside [0, %d)", w, op, s->nops);
      break;
    }
    for (int32_t k = off[op]; k < off[op + 1] && !found; k++)
      found = s->ops[pred[k]].update_barrier == b;
    if (!found)
      err = FAIL(d, "op '%s' waits on barrier %d but no predecessor updates it",
                 s->ops[op].name, b);
  }
out_with_csr:
  free(off);
  free(pred);
  return err;
}

static int check_barriers(const struct acs_schedule *s, struct acs_bprog *keep,
                          struct acs_diag *d)
{
  int err;

  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    if (o->update_barrier < -1 || (s->barriers > 0 && o->update_barrier >= s->barriers))
      return FAIL(d, "op '%s' updates barrier %d, outside [0, %d)", o->name,
                  o->update_barrier, s->barriers);
    if (o->update_barrier >= 0 && s->barrier_slots > 0 &&
        acs_barrier_slot_demand(o) > s->barrier_slots)
      return FAIL(d, "op '%s' needs %lld producer slots but a barrier has %d", o->name,
                  (long long)acs_barrier_slot_demand(o), s->barrier_slots);
  }
  if (s->nwaits > 0 && (err = check_waits(s, d)) < 0)
    return err;
  /* The program as a whole (uses, slots per use, reuse, antichain bound):
   * core/model/bprog_check.c. */
  return acs__bprog_verify(s, keep, d);
}

/* ---- PE-to-PE transfers ---- */

static int is_pe_transfer(const struct acs_sop *o)
{
  return o->kind == ACS_OP_DMA && o->src == ACS_MEM_PE && o->dst == ACS_MEM_PE;
}

/*
 * A dma op from pe to pe moves a value between two PEs over their local
 * links (the simulator needs both ends): no channel, one data predecessor
 * that computes on a PE, and data successors that compute on one other PE.
 * O(V + E).
 */
static int check_pe_transfers(const struct acs_schedule *s, struct acs_diag *d)
{
  int32_t *from = NULL, *to = NULL;
  int err = ACS_OK, any = 0;

  for (int32_t i = 0; i < s->nops && !any; i++)
    any = is_pe_transfer(&s->ops[i]);
  if (!any)
    return ACS_OK;
  from = malloc(((size_t)s->nops + 1) * sizeof(*from));
  to = malloc(((size_t)s->nops + 1) * sizeof(*to));
  if (!from || !to) {
    free(from);
    free(to);
    return ACS_ENOMEM;
  }
  for (int32_t i = 0; i < s->nops; i++)
    from[i] = to[i] = -2;   /* -2: none yet */
  for (int32_t e = 0; e < s->nedges && err == ACS_OK; e++) {
    int32_t a = s->edges[e].src, b = s->edges[e].dst;
    if (s->edges[e].kind != ACS_EDGE_DATA)
      continue;
    if (is_pe_transfer(&s->ops[b])) {
      if (from[b] != -2)
        err = FAIL(d, "PE-to-PE transfer '%s' has more than one data predecessor ('%s' is a "
                   "second); it needs exactly one", s->ops[b].name, s->ops[a].name);
      else if (s->ops[a].kind == ACS_OP_DMA || s->ops[a].unit < 0)
        err = FAIL(d, "PE-to-PE transfer '%s' needs exactly one data predecessor computing on "
                   "a PE ('%s' is not one)", s->ops[b].name, s->ops[a].name);
      from[b] = s->ops[a].unit;
    }
    if (err == ACS_OK && is_pe_transfer(&s->ops[a])) {
      if (s->ops[b].kind == ACS_OP_DMA || s->ops[b].unit < 0 ||
          (to[a] != -2 && to[a] != s->ops[b].unit))
        err = FAIL(d, "PE-to-PE transfer '%s' feeds '%s', which is not an op computing on "
                   "the one PE it delivers to", s->ops[a].name, s->ops[b].name);
      to[a] = s->ops[b].unit;
    }
  }
  for (int32_t i = 0; i < s->nops && err == ACS_OK; i++) {
    if (!is_pe_transfer(&s->ops[i]))
      continue;
    if (s->ops[i].unit >= 0)
      err = FAIL(d, "PE-to-PE transfer '%s' runs on DMA channel %d; it uses no channel",
                 s->ops[i].name, s->ops[i].unit);
    else if (from[i] < 0 || to[i] < 0)
      err = FAIL(d, "PE-to-PE transfer '%s' has no %s", s->ops[i].name,
                 from[i] < 0 ? "producer" : "consumer");
    else if (from[i] == to[i])
      err = FAIL(d, "PE-to-PE transfer '%s' goes from PE %d to itself", s->ops[i].name, from[i]);
  }
  free(from);
  free(to);
  return err;
}


static int check_units_pe(const struct acs_schedule *s, struct acs_diag *d)
{
  return check_unit_overlap(s, 0, d);
}

static int check_units_dma(const struct acs_schedule *s, struct acs_diag *d)
{
  return check_unit_overlap(s, 1, d);
}

/* Each check is O(n log n) at most (n ops + edges: about 0.1 s at 10^6
 * here), so the interrupt flag is polled between them. */
int acs_schedule_verify_keep(const struct acs_schedule *s, struct acs_bprog *keep,
                             struct acs_diag *d)
{
  /* NULL: the barrier checks, which can hand back the program they built. */
  static int (*const checks[])(const struct acs_schedule *, struct acs_diag *) = {
      check_times,      check_edges,      check_unit_ranges, check_units_pe, check_units_dma,
      check_capacities, check_cmx_ranges, check_residency,   NULL,           check_pe_transfers,
      acs_ddrlink_check,
  };
  int err;

  if (keep)
    memset(keep, 0, sizeof(*keep));
  for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
    if (acs_interrupt_pending())
      err = acs_diag_set(d, ACS_EINTERRUPTED, NULL, 0, 0, "interrupted");
    else
      err = checks[i] ? checks[i](s, d) : check_barriers(s, keep, d);
    if (err < 0) {
      if (keep)
        acs_bprog_destroy(keep);
      return err;
    }
  }
  return ACS_OK;
}

int acs_schedule_verify(const struct acs_schedule *s, struct acs_diag *d)
{
  return acs_schedule_verify_keep(s, NULL, d);
}
