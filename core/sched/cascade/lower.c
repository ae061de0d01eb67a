/*
 * lower.c - a proposal into the common schedule (seed 002, step 4).
 *
 * Placement: each group needs an arena (its rings and weights) for its own
 * duration, and each CMX-resident output a region from its group to the
 * last group that reads it. Groups run one after another, so this is
 * interval packing on the group index. Outputs go alternately to the
 * bottom and the top of the budget (a chain then keeps its input at one end
 * and its output at the other, with the arena between: no fragmentation),
 * arenas first-fit from the bottom; when that fails, every item first-fit
 * from the bottom. A proposal whose placement fails both ways is refused,
 * and the caller tries the next one on the front.
 *
 * Ops: every stripe op of the walk (walk.c), plus per group a sync op
 * after its last ops (every op of the next group without a predecessor in
 * its own group follows it, so a group's arena may reuse the previous
 * group's addresses) and, for a CMX-resident output, a zero-length op
 * that holds its region: it feeds every op that writes or reads the
 * tensor, so the verifier checks the region is held while they run.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/box.h"
#include "core/sched/cascade/lower.h"

struct lpiece {
  int32_t gid;
  struct acs_lbox box;
};

struct lvec {
  struct lpiece *v;
  size_t n, cap;
};

struct acs_cas_lower {
  struct acs_schedule *s;
  const struct acs_cas_env *env;
  int64_t t0, arena;
  int32_t sync, out_alloc;
  struct acs_cas_tag tag;     /* of the next op */
  struct acs_cas_tag *tags;  /* per op, or NULL when not kept */
  size_t cap_tags;
  int32_t *alloc_of;         /* per Tensor: the op holding its CMX region, -1 */
  struct lvec *cmx, *ddr;    /* per Tensor: CMX-resident pieces, stores to DDR */
  char name[ACS_NAME_MAX];
};

int acs_cas_ids_add(struct acs_cas_ids *l, int32_t id)
{
  if (l->n + 1 > l->cap && acs_grow((void **)&l->v, sizeof(*l->v), &l->cap, l->n + 1) < 0)
    return ACS_ENOMEM;
  l->v[l->n++] = id;
  return ACS_OK;
}

void acs_cas_ids_unique(struct acs_cas_ids *l)
{
  size_t k = 0;

  if (l->n < 2)
    return;
  acs_sort_i32(l->v, l->n); /* qsort's indirect calls were 4% of a ResNet-18 run */
  for (size_t i = 0; i < l->n; i++)
    if (k == 0 || l->v[i] != l->v[k - 1])
      l->v[k++] = l->v[i];
  l->n = k;
}

static int lvec_add(struct lvec *l, int32_t gid, const struct acs_lbox *box)
{
  if (acs_grow((void **)&l->v, sizeof(*l->v), &l->cap, l->n + 1) < 0)
    return ACS_ENOMEM;
  l->v[l->n++] = (struct lpiece){gid, *box};
  return ACS_OK;
}

static int lvec_preds(const struct lvec *l, const struct acs_lbox *box, struct acs_cas_ids *ids)
{
  for (size_t i = 0; i < l->n; i++)
    if (acs_lbox_meets(&l->v[i].box, box)) {
      int err = acs_cas_ids_add(ids, l->v[i].gid);
      if (err < 0)
        return err;
    }
  return ACS_OK;
}

/* ---- what the walk calls ---- */

void acs_cas_sop_init(struct acs_sop *o, int kind)
{
  memset(o, 0, sizeof(*o));
  o->kind = (uint8_t)kind;
  o->unit = -1;
  o->cmx_offset = o->cmx_bytes = -1;
  o->update_barrier = -1;
  o->slots = 1;
  o->cmx_alloc = o->cmx_free = o->sim_start = o->sim_end = NAN;
}

void acs_cas_lower_tag(struct acs_cas_lower *lw, int what, int32_t part, int32_t tensor,
                       const struct acs_lbox *box)
{
  lw->tag.what = what;
  lw->tag.part = part;
  lw->tag.tensor = tensor;
  lw->tag.box = *box;
}

/* Appends o to the schedule with the pending tag (then cleared). */
static int32_t add_op(struct acs_cas_lower *lw, const struct acs_sop *o)
{
  int32_t id = acs_schedule_add_op(lw->s, o);

  if (id >= 0 &&
      acs_grow((void **)&lw->tags, sizeof(*lw->tags), &lw->cap_tags, (size_t)id + 1) < 0)
    return ACS_ENOMEM;
  if (id >= 0)
    lw->tags[id] = lw->tag;
  memset(&lw->tag, 0, sizeof(lw->tag));
  return id;
}

int acs_cas_lower_op(struct acs_cas_lower *lw, const struct acs_cas_env *env, struct acs_sop *o,
                     int has_pred, int32_t *gid)
{
  int32_t id;
  int err;

  o->start += lw->t0;
  o->end += lw->t0;
  o->sim_start = o->sim_end = NAN;
  o->cmx_alloc = o->cmx_free = NAN;
  if (o->cmx_offset >= 0) {
    o->cmx_alloc = (double)o->start;
    o->cmx_free = (double)o->end;
  }
  if ((id = add_op(lw, o)) < 0)
    return id;
  if (o->kind == ACS_OP_DMA && env->res_dma >= 0)
    err = acs_schedule_set_demand(lw->s, id, env->res_dma, 1);
  else if ((o->kind == ACS_OP_DPU || o->kind == ACS_OP_SHAVE) && env->res_pe >= 0)
    err = acs_schedule_set_demand(lw->s, id, env->res_pe, 1);
  else
    err = ACS_OK;
  if (err == ACS_OK && !has_pred && lw->sync >= 0)
    err = acs_schedule_add_edge(lw->s, lw->sync, id, ACS_EDGE_CONTROL);
  *gid = id;
  return err;
}

int acs_cas_lower_edge(struct acs_cas_lower *lw, int32_t src, int32_t dst, int kind)
{
  struct acs_sop *p = &lw->s->ops[src];

  if (kind == ACS_EDGE_DATA && p->cmx_offset >= 0 && p->cmx_free < (double)lw->s->ops[dst].end)
    p->cmx_free = (double)lw->s->ops[dst].end;
  return acs_schedule_add_edge(lw->s, src, dst, kind);
}

int acs_cas_lower_ext_preds(struct acs_cas_lower *lw, int32_t tensor, const struct acs_lbox *box,
                            struct acs_cas_ids *ids)
{
  int err = lvec_preds(&lw->cmx[tensor], box, ids);

  if (err == ACS_OK && lw->alloc_of[tensor] >= 0)
    err = acs_cas_ids_add(ids, lw->alloc_of[tensor]);
  return err;
}

int acs_cas_lower_ddr_preds(struct acs_cas_lower *lw, int32_t tensor, const struct acs_lbox *box,
                            struct acs_cas_ids *ids)
{
  return lvec_preds(&lw->ddr[tensor], box, ids);
}

int acs_cas_lower_out_alloc(struct acs_cas_lower *lw, struct acs_cas_ids *ids)
{
  return lw->out_alloc >= 0 ? acs_cas_ids_add(ids, lw->out_alloc) : ACS_OK;
}

int acs_cas_lower_out_piece(struct acs_cas_lower *lw, int32_t tensor, const struct acs_lbox *box,
                            int32_t gid)
{
  return lvec_add(&lw->cmx[tensor], gid, box);
}

int acs_cas_lower_ddr_piece(struct acs_cas_lower *lw, int32_t tensor, const struct acs_lbox *box,
                            int32_t gid)
{
  return lvec_add(&lw->ddr[tensor], gid, box);
}

void acs_cas_lower_name(struct acs_cas_lower *lw, struct acs_sop *o, const char *base,
                        const char *what, int64_t step, int64_t i)
{
  snprintf(lw->name, sizeof(lw->name), "%.*s.%s%lld.%lld", ACS_NAME_MAX - 48, base, what,
           (long long)step, (long long)i);
  o->name = lw->name;
}

int64_t acs_cas_lower_arena(const struct acs_cas_lower *lw)
{
  return lw->arena;
}

int acs_cas_lower_group_end(struct acs_cas_lower *lw, int64_t cycles, const int32_t *sinks,
                            size_t nsinks)
{
  struct acs_sop o;
  int32_t id;
  int err = ACS_OK;

  acs_cas_sop_init(&o, ACS_OP_SYNC);
  o.start = o.end = lw->t0 + cycles;
  snprintf(lw->name, sizeof(lw->name), "cascade.sync%lld", (long long)lw->s->nops);
  o.name = lw->name;
  if ((id = add_op(lw, &o)) < 0)
    return id;
  for (size_t i = 0; i < nsinks && err == ACS_OK; i++)
    err = acs_schedule_add_edge(lw->s, sinks[i], id, ACS_EDGE_CONTROL);
  if (err == ACS_OK && lw->sync >= 0 && nsinks == 0)
    err = acs_schedule_add_edge(lw->s, lw->sync, id, ACS_EDGE_CONTROL);
  lw->sync = id;
  lw->t0 += cycles;
  return err;
}

/* ---- placement ---- */

struct item {
  int64_t size, off;
  int32_t from, to;          /* groups */
};

static int overlaps(const struct item *a, int64_t off, int64_t size, int32_t from, int32_t to)
{
  return a->off >= 0 && a->from <= to && from <= a->to && a->off < off + size &&
         off < a->off + a->size;
}

static int fits(const struct item *it, int32_t n, int64_t off, int64_t size, int32_t from,
                int32_t to, int64_t budget)
{
  if (off < 0 || off + size > budget)
    return 0;
  for (int32_t i = 0; i < n; i++)
    if (overlaps(&it[i], off, size, from, to))
      return 0;
  return 1;
}

/* Places item k at the lowest (or highest) feasible offset: candidates are
 * the budget's ends and the edges of items alive at the same time. */
static int place(struct item *it, int32_t n, int32_t k, int top, int64_t budget, int64_t align)
{
  struct item *x = &it[k];
  int64_t best = -1;

  for (int32_t i = -1; i < n; i++) {
    int64_t c;
    if (i >= 0 && (it[i].off < 0 || it[i].from > x->to || x->from > it[i].to))
      continue;
    if (top)
      c = i < 0 ? budget - x->size : it[i].off - x->size;
    else
      c = i < 0 ? 0 : it[i].off + it[i].size;
    c = top ? c / align * align : acs_cas_align(c, align);
    if (!fits(it, n, c, x->size, x->from, x->to, budget))
      continue;
    if (best < 0 || (top ? c > best : c < best))
      best = c;
  }
  x->off = best;
  return best >= 0;
}

/*
 * Items 2i (arena of group i) and 2i + 1 (its CMX-resident output, size 0
 * when none). Returns 1 when every item is placed within the budget.
 */
static int place_all(struct item *it, int32_t ngroups, int alternate, int64_t budget,
                     int64_t align)
{
  for (int32_t i = 0; i < 2 * ngroups; i++)
    it[i].off = -1;
  for (int32_t g = 0; g < ngroups; g++) {
    struct item *t = &it[2 * g + 1], *a = &it[2 * g];
    if (t->size > 0 && !place(it, 2 * ngroups, 2 * g + 1, alternate && (g % 2), budget, align))
      return 0;
    if (a->size > 0 && !place(it, 2 * ngroups, 2 * g, 0, budget, align))
      return 0;
    if (a->size == 0)
      a->off = 0;
    if (t->size == 0)
      t->off = 0, t->to = -1; /* never alive */
  }
  return 1;
}

static int items_make(const struct acs_cas_env *env, const struct acs_cas_plan *plans, int32_t n,
                      struct item *it)
{
  const struct acs_cgraph *cg = env->cg;

  for (int32_t g = 0; g < n; g++) {
    const struct acs_cas_plan *p = &plans[g];
    const struct acs_ctensor *t = &cg->tensors[cg->parts[p->first + p->nparts - 1].out];
    int32_t last = -1;
    it[2 * g] = (struct item){p->mem - p->out_bytes, -1, g, g};
    it[2 * g + 1] = (struct item){p->out_bytes, -1, g, g};
    for (int32_t c = 0; c < t->ncons; c++)
      if (cg->cons[t->cons_off + c].part > last)
        last = cg->cons[t->cons_off + c].part;
    for (int32_t h = g + 1; h < n; h++)
      if (plans[h].first <= last)
        it[2 * g + 1].to = h;
  }
  return ACS_OK;
}

/* ---- lowering ---- */

static void lower_free(struct acs_cas_lower *lw, int32_t ntensors)
{
  for (int32_t t = 0; t < ntensors; t++) {
    if (lw->cmx)
      free(lw->cmx[t].v);
    if (lw->ddr)
      free(lw->ddr[t].v);
  }
  free(lw->cmx);
  free(lw->ddr);
  free(lw->alloc_of);
}

/* The op holding group g's CMX-resident output from the group's start. */
static int out_alloc(struct acs_cas_lower *lw, const struct acs_cas_plan *p, int64_t off)
{
  const struct acs_cgraph *cg = lw->env->cg;
  int32_t t = cg->parts[p->first + p->nparts - 1].out;
  struct acs_sop o;
  int32_t id;
  int err = ACS_OK;

  lw->out_alloc = -1;
  if (p->out_home != ACS_CAS_HOME_CMX)
    return ACS_OK;
  acs_cas_sop_init(&o, ACS_OP_SYNC);
  o.start = o.end = lw->t0;
  o.cmx_offset = off;
  o.cmx_bytes = p->out_bytes;
  o.cmx_alloc = o.cmx_free = (double)lw->t0;
  snprintf(lw->name, sizeof(lw->name), "%.*s.cmx", ACS_NAME_MAX - 8,
           cg->lg->t[cg->tensors[t].lt].name);
  o.name = lw->name;
  if ((id = add_op(lw, &o)) < 0)
    return id;
  if (lw->sync >= 0)
    err = acs_schedule_add_edge(lw->s, lw->sync, id, ACS_EDGE_CONTROL);
  lw->out_alloc = lw->alloc_of[t] = id;
  return err;
}

static int lower_groups(struct acs_cas_lower *lw, const struct acs_cas_plan *plans, int32_t n,
                        const struct item *it)
{
  for (int32_t g = 0; g < n; g++) {
    struct acs_cas_group grp;
    struct acs_cas_plan p = plans[g];
    int err;
    if (!acs_cas_group_of(lw->env->cg, p.first, p.nparts, &grp))
      return ACS_EINVAL;
    lw->arena = it[2 * g].off;
    if ((err = out_alloc(lw, &p, it[2 * g + 1].off)) < 0 ||
        (err = acs_cas_walk(lw->env, &grp, &p, lw)) < 0)
      return err;
    if (p.cycles != plans[g].cycles || p.mem != plans[g].mem || p.macs != plans[g].macs)
      return ACS_EINVAL; /* the walk is deterministic: a plan lowers as it was costed */
  }
  return ACS_OK;
}

int acs_cas_lower(const struct acs_cas_env *env, const struct acs_cas_plan *plans, int32_t n,
                  int64_t budget, struct acs_schedule *s, struct acs_cas_tag **tags,
                  struct acs_diag *d)
{
  struct acs_cas_lower lw;
  int32_t nt = env->cg->ntensors;
  struct item *it = calloc(2 * (size_t)n + 1, sizeof(*it));
  int err = ACS_ENOMEM;

  if (tags)
    *tags = NULL;
  memset(&lw, 0, sizeof(lw));
  lw.s = s;
  lw.env = env;
  lw.sync = lw.out_alloc = -1;
  lw.alloc_of = malloc(((size_t)nt + 1) * sizeof(*lw.alloc_of));
  lw.cmx = calloc((size_t)nt + 1, sizeof(*lw.cmx));
  lw.ddr = calloc((size_t)nt + 1, sizeof(*lw.ddr));
  if (!it || !lw.alloc_of || !lw.cmx || !lw.ddr)
    goto out;
  for (int32_t t = 0; t < nt; t++)
    lw.alloc_of[t] = -1;
  items_make(env, plans, n, it);
  if (!place_all(it, n, 1, budget, env->align > 0 ? env->align : 1) &&
      !place_all(it, n, 0, budget, env->align > 0 ? env->align : 1)) {
    err = acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                       "cascade: the proposal's buffers do not pack into %lld bytes of CMX",
                       (long long)budget);
    goto out;
  }
  s->nops = s->norig = 0;
  s->nedges = 0;
  s->nwaits = 0;
  if ((err = lower_groups(&lw, plans, n, it)) < 0)
    goto out;
  s->norig = s->nops;
  acs_schedule_finish(s);
  if (tags) {
    *tags = lw.tags;
    lw.tags = NULL;
  }
out:
  free(lw.tags);
  lower_free(&lw, nt);
  free(it);
  return err;
}
