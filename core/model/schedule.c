/*
 * schedule.c - construction of self-contained schedules, and their figures.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/rtab_int.h"
#include "core/model/schedule.h"

void acs_schedule_init(struct acs_schedule *s)
{
  memset(s, 0, sizeof(*s));
  acs_arena_init(&s->arena);
  s->res_pe = s->res_dma = s->res_cmx = s->res_ddr = -1;
  s->cmx_capacity = -1;
  s->cmx_align = 1;
}

void acs_schedule_destroy(struct acs_schedule *s)
{
  free(s->ops);
  free(s->demand);
  free(s->edges);
  free(s->waits);
  for (int32_t k = 0; k < s->ntables; k++)
    acs__rtab_free(s->tables[k]);
  free(s->tables);
  acs_arena_destroy(&s->arena);
  memset(s, 0, sizeof(*s));
}

static void sop_blank(struct acs_sop *o)
{
  o->unit = -1;
  o->start = o->end = -1;
  o->cmx_offset = o->cmx_bytes = -1;
  o->cmx_alloc = o->cmx_free = NAN;
  o->update_barrier = -1;
  o->sim_start = o->sim_end = NAN;
}

int32_t acs_schedule_add_op(struct acs_schedule *s, const struct acs_sop *op)
{
  size_t cap_demand = s->cap_ops * (size_t)s->nres, need;
  struct acs_sop *o;
  int err;

  if (s->nops == INT32_MAX)
    return ACS_ENOMEM;
  if ((err = acs_grow((void **)&s->ops, sizeof(*s->ops), &s->cap_ops, (size_t)s->nops + 1)) < 0)
    return err;
  if (s->nres > 0) {
    if (acs_mul_size(s->cap_ops, (size_t)s->nres, &need))
      return ACS_ENOMEM;
    if ((err = acs_grow((void **)&s->demand, sizeof(*s->demand), &cap_demand, need)) < 0)
      return err;
  }
  o = &s->ops[s->nops];
  *o = *op;
  o->name = acs_arena_strdup(&s->arena, op->name ? op->name : "");
  if (!o->name)
    return ACS_ENOMEM;
  for (int r = 0; r < s->nres; r++)
    s->demand[(size_t)s->nops * (size_t)s->nres + (size_t)r] = 0;
  return s->nops++;
}

int acs_schedule_set_demand(struct acs_schedule *s, int32_t op, int res, int64_t v)
{
  if (op < 0 || op >= s->nops || res < 0 || res >= s->nres || v < 0)
    return ACS_EINVAL;
  s->demand[(size_t)op * (size_t)s->nres + (size_t)res] = v;
  return ACS_OK;
}

int acs_schedule_add_edge(struct acs_schedule *s, int32_t src, int32_t dst, int kind)
{
  int err;

  if (src < 0 || src >= s->nops || dst < 0 || dst >= s->nops)
    return ACS_EINVAL;
  if (s->nedges == INT32_MAX)
    return ACS_ENOMEM;
  if ((err = acs_grow((void **)&s->edges, sizeof(*s->edges), &s->cap_edges,
                      (size_t)s->nedges + 1)) < 0)
    return err;
  s->edges[s->nedges].src = src;
  s->edges[s->nedges].dst = dst;
  s->edges[s->nedges].kind = (uint8_t)kind;
  s->nedges++;
  return ACS_OK;
}

int acs_schedule_add_wait(struct acs_schedule *s, int32_t op, int32_t barrier)
{
  int err;

  if (op < 0 || op >= s->nops || barrier < 0)
    return ACS_EINVAL;
  if ((err = acs_grow((void **)&s->waits, sizeof(*s->waits), &s->cap_waits,
                      (size_t)s->nwaits + 1)) < 0)
    return err;
  s->waits[s->nwaits].op = op;
  s->waits[s->nwaits].barrier = barrier;
  s->nwaits++;
  return ACS_OK;
}

int acs_schedule_init_problem(struct acs_schedule *s, const struct acs_problem *pb)
{
  const struct acs_graph *g = pb->g;
  int err;

  acs_schedule_init(s);
  s->nres = pb->nres;
  for (int r = 0; r < pb->nres; r++) {
    s->res_name[r] = acs_arena_strdup(&s->arena, g->res[r].name);
    if (!s->res_name[r]) {
      err = ACS_ENOMEM;
      goto out_with_schedule;
    }
    s->res_cap[r] = pb->cap[r];
  }
  s->res_pe = pb->res_pe;
  s->res_dma = pb->res_dma;
  s->res_cmx = pb->res_cmx;
  s->res_ddr = pb->res_ddr;
  for (int32_t i = 0; i < pb->nops; i++) {
    const struct acs_op *op = &g->ops[i];
    struct acs_sop so;
    int32_t id;
    memset(&so, 0, sizeof(so));
    sop_blank(&so);
    so.name = op->name;
    so.kind = op->kind;
    so.src = op->src;
    so.dst = op->dst;
    so.dur = pb->dur[i];
    so.bytes = op->bytes;
    so.out_bytes = op->out_bytes;
    so.slots = op->slots;
    if ((id = acs_schedule_add_op(s, &so)) < 0) {
      err = id;
      goto out_with_schedule;
    }
    for (int r = 0; r < pb->nres; r++)
      s->demand[(size_t)id * (size_t)s->nres + (size_t)r] = acs_problem_demand(pb, i, r);
  }
  s->norig = s->nops;
  for (int32_t e = 0; e < g->nedges; e++)
    if ((err = acs_schedule_add_edge(s, g->edges[e].src, g->edges[e].dst, g->edges[e].kind)) < 0)
      goto out_with_schedule;
  s->cmx_capacity = acs_platform_cmx_bytes(&pb->plat);
  s->cmx_align = (int64_t)acs_platform_get(&pb->plat, ACS_P_CMX_ALIGN_BYTES);
  s->barriers = (int32_t)acs_platform_get(&pb->plat, ACS_P_BARRIERS);
  s->barrier_slots = (int32_t)acs_platform_get(&pb->plat, ACS_P_BARRIER_SLOTS);
  /* A graph that models the DDR link is planned against it and checked
   * against it; planners that time DDR transfers themselves (cascade,
   * gang) set the link on their own schedules. */
  if (pb->res_ddr >= 0)
    acs_ddrlink_from_platform(&s->link, &pb->plat);
  return ACS_OK;

out_with_schedule:
  acs_schedule_destroy(s);
  return err;
}

/* n elements of size `size` of src into a fresh *dst with capacity n. */
static int array_copy(void **dst, size_t *cap, const void *src, size_t n, size_t size)
{
  int err;

  *cap = 0;
  if (n == 0)
    return ACS_OK;
  if ((err = acs_grow(dst, size, cap, n)) < 0)
    return err;
  memcpy(*dst, src, n * size);
  return ACS_OK;
}

/* Everything of src but its ops, demands, edges, waits and tables. */
static int header_copy(struct acs_schedule *d, const struct acs_schedule *src)
{
  d->nres = src->nres;
  for (int r = 0; r < src->nres; r++) {
    if (!(d->res_name[r] = acs_arena_strdup(&d->arena, src->res_name[r])))
      return ACS_ENOMEM;
    d->res_cap[r] = src->res_cap[r];
  }
  d->res_pe = src->res_pe;
  d->res_dma = src->res_dma;
  d->res_cmx = src->res_cmx;
  d->res_ddr = src->res_ddr;
  d->cmx_capacity = src->cmx_capacity;
  d->cmx_align = src->cmx_align;
  d->barriers = src->barriers;
  d->barrier_slots = src->barrier_slots;
  d->link = src->link;
  d->makespan = src->makespan;
  d->lower_bound = src->lower_bound;
  return ACS_OK;
}

int acs_schedule_copy(struct acs_schedule *d, const struct acs_schedule *src)
{
  int err;

  acs_schedule_init(d);
  if ((err = header_copy(d, src)) < 0)
    goto out_with_copy;
  for (int32_t i = 0; i < src->nops; i++)
    if ((err = acs_schedule_add_op(d, &src->ops[i])) < 0)
      goto out_with_copy;
  d->norig = src->norig;
  if (d->nres > 0 && d->nops > 0)
    memcpy(d->demand, src->demand, (size_t)d->nops * (size_t)d->nres * sizeof(*d->demand));
  if ((err = array_copy((void **)&d->edges, &d->cap_edges, src->edges, (size_t)src->nedges,
                        sizeof(*src->edges))) < 0 ||
      (err = array_copy((void **)&d->waits, &d->cap_waits, src->waits, (size_t)src->nwaits,
                        sizeof(*src->waits))) < 0)
    goto out_with_copy;
  d->nedges = src->nedges;
  d->nwaits = src->nwaits;
  for (int32_t k = 0; k < src->ntables; k++)
    if ((err = acs__rtab_copy(d, src->tables[k])) < 0)
      goto out_with_copy;
  return ACS_OK;

out_with_copy:
  acs_schedule_destroy(d);
  return err;
}

void acs_schedule_finish(struct acs_schedule *s)
{
  s->makespan = 0;
  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].end > s->makespan)
      s->makespan = s->ops[i].end;
}

/* ---- figures ---- */

struct cmx_event {
  double t;
  int64_t delta;
};

static int cmp_event(const void *a, const void *b)
{
  const struct cmx_event *x = a, *y = b;

  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  /* Releases before acquisitions at the same instant: [alloc, free) is
   * half-open, so a range freed at t can be reused at t. */
  return (x->delta > y->delta) - (x->delta < y->delta);
}

/*
 * Peak of held CMX bytes over time: the assigned ranges where a scheduler
 * placed buffers, else each op's cmx demand while it runs. O(V log V).
 */
static int64_t peak_cmx(const struct acs_schedule *s)
{
  struct cmx_event *ev = malloc(((size_t)s->nops * 2 + 1) * sizeof(*ev));
  size_t n = 0;
  int64_t cur = 0, peak = 0;

  if (!ev)
    return -1;
  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    if (o->cmx_bytes > 0 && !isnan(o->cmx_alloc)) {
      ev[n++] = (struct cmx_event){o->cmx_alloc, o->cmx_bytes};
      ev[n++] = (struct cmx_event){o->cmx_free, -o->cmx_bytes};
    } else if (s->res_cmx >= 0 && o->end > o->start) {
      int64_t b = acs_schedule_demand(s, i, s->res_cmx);
      if (b > 0) {
        ev[n++] = (struct cmx_event){(double)o->start, b};
        ev[n++] = (struct cmx_event){(double)o->end, -b};
      }
    }
  }
  qsort(ev, n, sizeof(*ev), cmp_event);
  for (size_t k = 0; k < n; k++) {
    cur += ev[k].delta;
    if (cur > peak)
      peak = cur;
  }
  free(ev);
  return peak;
}

void acs_schedule_stats(const struct acs_schedule *s, struct acs_schedule_stats *st)
{
  int32_t maxb = -1;

  memset(st, 0, sizeof(*st));
  st->makespan = s->makespan;
  st->peak_cmx_bytes = peak_cmx(s);
  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    if (o->kind == ACS_OP_DMA) {
      if (o->src == ACS_MEM_DDR || o->dst == ACS_MEM_DDR)
        st->ddr_bytes += o->bytes;
      if (i >= s->norig && o->src == ACS_MEM_CMX && o->dst == ACS_MEM_DDR)
        st->spill_bytes += o->bytes;
      if (o->unit >= 0)
        st->dma_busy += (double)o->dur;
    } else if (o->unit >= 0) {
      st->pe_busy += (double)o->dur;
    }
    if (o->update_barrier > maxb)
      maxb = o->update_barrier;
  }
  if (maxb >= 0) {
    char *seen = calloc((size_t)maxb + 1, 1);
    if (seen) {
      for (int32_t i = 0; i < s->nops; i++)
        if (s->ops[i].update_barrier >= 0 && !seen[s->ops[i].update_barrier]) {
          seen[s->ops[i].update_barrier] = 1;
          st->barriers_used++;
        }
      free(seen);
    }
  }
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].kind == ACS_EDGE_CONTROL)
      st->control_edges++;
}

const char *acs_mem_model_name(int m)
{
  switch (m) {
  case ACS_MEM_TRANSIENT: return "transient";
  case ACS_MEM_RESIDENT: return "resident";
  case ACS_MEM_UNUSED: return "none";
  default: return "";
  }
}
