/*
 * check.c - the cascade family's own checker (see cascade.h).
 *
 * It shares nothing with the planner but the layer graph: regions come
 * from acs_lnode_input_box (direct index arithmetic, not the propagators),
 * coverage is decided exactly by coordinate compression (the boxes' edges
 * cut the region into cells; every cell must lie in some box), and memory
 * from the schedule's own statistics. With the common verifier (capacity,
 * address overlap, residency along data edges, precedence) this proves the
 * lowered schedule computes the network:
 *  - every compute op's duration is its work at the PE's MAC rate, and
 *    every DMA's at least its latency plus its bytes at one transfer's DDR
 *    rate (the verifier's link check holds the transfers together to the
 *    shared link's bandwidth);
 *  - what each compute op reads, slot by slot, is covered by its data
 *    predecessors of that tensor (the blocks, loads or resident pieces
 *    the verifier then proves are held while it runs);
 *  - a load of an activation is covered by stores of it that precede it,
 *    and a store by the compute ops that made what it writes;
 *  - every network output is computed whole.
 * An element of an inner tensor that no op reads need not be computed (a
 * strided or dilated consumer whose windows stop short of the end of its
 * input leaves the last rows unread): the checks above already demand
 * everything that is read, transitively from the network outputs back, so
 * they prove the outputs are computed from the inputs without asking more.
 *  - the peak CMX is within the budget and the planner's prediction.
 * O(E + sum of cells over the checks); cells are at most the product of
 * the boxes' edges met per axis.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/box.h"
#include "core/sched/cascade/cascade.h"

#define FAIL(d, ...) acs_diag_set((d), ACS_EVERIFY, NULL, 0, 0, __VA_ARGS__)

/* Regions beyond this many cells are not checked cell by cell (none of a
 * shipped network comes near: a region's cells are its pieces'). */
#define MAX_CELLS (1 << 24)

struct cover {
  const struct acs_lbox *need;
  const struct acs_lbox **box;
  size_t n, cap;
};

static int cover_add(struct cover *c, const struct acs_lbox *b)
{
  if (acs_grow((void **)&c->box, sizeof(*c->box), &c->cap, c->n + 1) < 0)
    return ACS_ENOMEM;
  c->box[c->n++] = b;
  return ACS_OK;
}

/* The sorted distinct cuts of axis a inside the region: its ends and the
 * boxes' edges. */
static size_t cuts_of(const struct cover *c, int a, int64_t *v)
{
  size_t n = 0, k = 0;

  v[n++] = c->need->lo[a];
  v[n++] = c->need->hi[a];
  for (size_t i = 0; i < c->n; i++) {
    if (c->box[i]->lo[a] > c->need->lo[a] && c->box[i]->lo[a] < c->need->hi[a])
      v[n++] = c->box[i]->lo[a];
    if (c->box[i]->hi[a] > c->need->lo[a] && c->box[i]->hi[a] < c->need->hi[a])
      v[n++] = c->box[i]->hi[a];
  }
  acs_sort_i64(v, n);
  for (size_t i = 0; i < n; i++)
    if (k == 0 || v[i] != v[k - 1])
      v[k++] = v[i];
  return k;
}

static size_t find_cut(const int64_t *v, size_t n, int64_t x)
{
  size_t lo = 0, hi = n;

  while (lo + 1 < hi) {
    size_t mid = (lo + hi) / 2;
    if (v[mid] <= x)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Marks the cells of box b (clipped to the region). */
static void mark(const struct cover *c, int64_t *const *cuts, const size_t *ncut,
                 const struct acs_lbox *b, uint8_t *cell)
{
  int r = c->need->rank;
  size_t lo[ACS_LAYER_MAX_RANK], hi[ACS_LAYER_MAX_RANK], at[ACS_LAYER_MAX_RANK];

  for (int a = 0; a < r; a++) {
    int64_t l = b->lo[a] > c->need->lo[a] ? b->lo[a] : c->need->lo[a];
    int64_t h = b->hi[a] < c->need->hi[a] ? b->hi[a] : c->need->hi[a];
    if (h <= l)
      return;
    lo[a] = at[a] = find_cut(cuts[a], ncut[a], l);
    hi[a] = find_cut(cuts[a], ncut[a], h);
  }
  for (;;) {
    size_t idx = 0;
    int a;
    for (a = 0; a < r; a++)
      idx = idx * (ncut[a] - 1) + at[a];
    cell[idx] = 1;
    for (a = r - 1; a >= 0; a--) {
      if (++at[a] < hi[a])
        break;
      at[a] = lo[a];
    }
    if (a < 0)
      return;
  }
}

/* Whether box b contains the region `need` (same rank). */
static int box_holds(const struct acs_lbox *b, const struct acs_lbox *need)
{
  for (int a = 0; a < need->rank; a++)
    if (b->lo[a] > need->lo[a] || b->hi[a] < need->hi[a])
      return 0;
  return 1;
}

static int box_meets(const struct acs_lbox *b, const struct acs_lbox *need)
{
  for (int i = 0; i < need->rank; i++)
    if (b->hi[i] <= need->lo[i] || b->lo[i] >= need->hi[i])
      return 0;
  return 1;
}

/* The one axis along which box b falls short of the region (-1: none,
 * -2: more than one, or it misses the region). */
static int short_axis(const struct acs_lbox *b, const struct acs_lbox *need)
{
  int a = -1;

  for (int i = 0; i < need->rank; i++) {
    if (b->hi[i] <= need->lo[i] || b->lo[i] >= need->hi[i])
      return -2;
    if (b->lo[i] > need->lo[i] || b->hi[i] < need->hi[i]) {
      if (a >= 0)
        return -2;
      a = i;
    }
  }
  return a;
}

/* When every box that meets the region spans it but along one common axis,
 * whether their intervals on it cover the region's: 1 or 0; -1 when the
 * boxes are not of that shape (the cell grid decides). */
static int covered_1d(const struct cover *c)
{
  int axis = -1;
  int64_t at;
  size_t left = 0;

  if (c->n > 64)
    return -1; /* quadratic below: the cell grid is cheaper */
  for (size_t i = 0; i < c->n; i++) {
    int a = short_axis(c->box[i], c->need);
    if (a == -2) {
      if (box_meets(c->box[i], c->need))
        return -1;
      continue; /* misses the region: no help */
    }
    if (axis >= 0 && a != axis)
      return -1;
    axis = a;
    left++;
  }
  if (axis < 0)
    return -1; /* no box meets the region, or one holds it (the caller saw) */
  /* Sweep: extend the covered prefix by any box starting inside it;
   * O(boxes) per step, at most boxes steps. */
  at = c->need->lo[axis];
  while (at < c->need->hi[axis] && left > 0) {
    int64_t reach = at;
    for (size_t i = 0; i < c->n; i++) {
      const struct acs_lbox *b = c->box[i];
      if (short_axis(b, c->need) == axis && b->lo[axis] <= at && b->hi[axis] > reach)
        reach = b->hi[axis];
    }
    if (reach == at)
      return 0;
    at = reach;
    left--;
  }
  return at >= c->need->hi[axis];
}

/* 1 when the boxes cover the region, 0 when not, or a negative error. */
static int covered(const struct cover *c)
{
  int r = c->need->rank, res = ACS_ENOMEM;
  int64_t *cuts[ACS_LAYER_MAX_RANK] = {NULL};
  size_t ncut[ACS_LAYER_MAX_RANK], cells = 1;
  uint8_t *cell = NULL;

  if (acs_lbox_elems(c->need) == 0)
    return 1;
  /* Most reads are fed by one box that holds them whole, or by boxes
   * stacked along one axis: O(boxes rank) and O(boxes^2). */
  for (size_t i = 0; i < c->n; i++)
    if (box_holds(c->box[i], c->need))
      return 1;
  if ((res = covered_1d(c)) >= 0)
    return res;
  res = ACS_ENOMEM;
  for (int a = 0; a < r; a++) {
    if (!(cuts[a] = malloc((2 * c->n + 2) * sizeof(**cuts))))
      goto out;
    ncut[a] = cuts_of(c, a, cuts[a]);
    if (cells > MAX_CELLS / (ncut[a] - 1)) {
      res = ACS_ERANGE;
      goto out;
    }
    cells *= ncut[a] - 1;
  }
  if (!(cell = calloc(cells, 1)))
    goto out;
  for (size_t i = 0; i < c->n; i++)
    mark(c, cuts, ncut, c->box[i], cell);
  res = 1;
  for (size_t i = 0; i < cells && res; i++)
    res = cell[i];
out:
  free(cell);
  for (int a = 0; a < r; a++)
    free(cuts[a]);
  return res;
}

/* The last region of a tensor found covered, and the boxes that did. */
struct fed {
  struct acs_lbox need;
  struct cover c;
};

/* Data-predecessor index: for each op, its data predecessors (CSR); and
 * per tensor, the last region found covered. */
struct preds {
  int32_t *off, *src;
  struct fed *last;
};

static int preds_build(const struct acs_schedule *s, struct preds *p)
{
  p->off = calloc((size_t)s->nops + 2, sizeof(*p->off));
  p->src = malloc(((size_t)s->nedges + 1) * sizeof(*p->src));
  if (!p->off || !p->src)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].kind == ACS_EDGE_DATA)
      p->off[s->edges[e].dst + 2]++;
  for (int32_t v = 0; v < s->nops; v++)
    p->off[v + 2] += p->off[v + 1];
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].kind == ACS_EDGE_DATA)
      p->src[p->off[s->edges[e].dst + 1]++] = s->edges[e].src;
  return ACS_OK;
}

static const char *tname(const struct acs_cas_env *env, int32_t t)
{
  return env->cg->lg->t[env->cg->tensors[t].lt].name;
}

/* Region `need` of tensor t, read by op i, covered by i's data
 * predecessors that are `what` ops of t. */
static int check_fed(const struct acs_cas_env *env, const struct acs_cas_tag *tags,
                     const struct acs_schedule *s, struct preds *p, int32_t i,
                     int32_t t, int what, const struct acs_lbox *need, struct acs_diag *d)
{
  struct cover c = {need, NULL, 0, 0};
  struct fed *last = &p->last[t];
  int res = ACS_OK;

  /* A box that misses the region cannot help: an op of a stripe that
   * reads a CMX-resident tensor has every op that wrote it as a
   * predecessor (hundreds at 8 PEs), and the cell grid below grows with
   * the boxes it is given. */
  for (int32_t k = p->off[i]; k < p->off[i + 1] && res == ACS_OK; k++) {
    const struct acs_cas_tag *q = &tags[p->src[k]];
    if (q->tensor == t && (q->what == what || (what == ACS_CAS_OP_COMPUTE &&
                                               q->what == ACS_CAS_OP_LOAD)) &&
        box_meets(&q->box, need))
      res = cover_add(&c, &q->box);
  }
  if (res != ACS_OK)
    goto out;
  /* The ops that split a stripe by channels read one region of each
   * input from the same predecessors: asked once. */
  if (last->c.n == c.n && c.n > 0 && acs_lbox_eq(&last->need, need) &&
      memcmp(last->c.box, c.box, c.n * sizeof(*c.box)) == 0)
    goto out;
  if ((res = covered(&c)) == 0)
    res = FAIL(d, "cascade check: '%s' reads a region of '%s' that no predecessor of it "
               "produced or loaded", s->ops[i].name, tname(env, t));
  if (res == 1) {
    free(last->c.box);
    last->c = c;
    last->need = *need;
    last->c.need = &last->need;
    return ACS_OK;
  }
out:
  free(c.box);
  return res < 0 ? res : ACS_OK;
}

static int check_compute(const struct acs_cas_env *env, const struct acs_cas_tag *tags,
                         const struct acs_schedule *s, struct preds *p, int32_t i,
                         struct acs_diag *d)
{
  const struct acs_cpart *pt = &env->cg->parts[tags[i].part];
  int64_t work, dur;
  int err;

  if ((err = acs_lnode_work(env->cg->lg, pt->node, &tags[i].box, &work)) < 0)
    return err;
  dur = work / env->macs_per_cycle + (work % env->macs_per_cycle != 0);
  if (s->ops[i].dur != dur)
    return FAIL(d, "cascade check: '%s' lasts %lld cycles for %lld MACs (expected %lld)",
                s->ops[i].name, (long long)s->ops[i].dur, (long long)work, (long long)dur);
  for (int slot = 0; slot < pt->nin; slot++) {
    struct acs_lbox need;
    int32_t t = pt->in[slot];
    if (t < 0)
      continue;
    if ((err = acs_lnode_input_box(env->cg->lg, pt->node, slot, &tags[i].box, &need)) < 0 ||
        (err = check_fed(env, tags, s, p, i, t, ACS_CAS_OP_COMPUTE, &need, d)) < 0)
      return err;
  }
  return ACS_OK;
}

static int check_dma(const struct acs_cas_env *env, const struct acs_cas_tag *tags,
                     const struct acs_schedule *s, struct preds *p, int32_t i,
                     struct acs_diag *d)
{
  const struct acs_sop *o = &s->ops[i];
  const struct acs_cas_tag *g = &tags[i];
  int64_t bytes = acs_lbox_elems(&g->box) * env->elem_bytes;

  if (o->bytes != bytes || o->dur < acs_platform_ddr_cycles(env->plat, bytes))
    return FAIL(d, "cascade check: '%s' moves %lld bytes in %lld cycles; its region has "
                "%lld bytes, which take at least %lld", o->name, (long long)o->bytes,
                (long long)o->dur, (long long)bytes,
                (long long)acs_platform_ddr_cycles(env->plat, bytes));
  if (g->what == ACS_CAS_OP_STORE)
    return check_fed(env, tags, s, p, i, g->tensor, ACS_CAS_OP_COMPUTE, &g->box, d);
  if (env->cg->tensors[g->tensor].producer >= 0)
    return check_fed(env, tags, s, p, i, g->tensor, ACS_CAS_OP_STORE, &g->box, d);
  return ACS_OK;
}

/* Every network output, computed whole by its compute ops. O(ops + cells). */
static int check_outputs(const struct acs_cas_env *env, const struct acs_cas_tag *tags,
                       const struct acs_schedule *s, struct acs_diag *d)
{
  const struct acs_cgraph *cg = env->cg;
  struct cover *c = calloc((size_t)cg->nparts + 1, sizeof(*c));
  struct acs_lbox *whole = malloc(((size_t)cg->nparts + 1) * sizeof(*whole));
  int err = ACS_ENOMEM;

  if (!c || !whole)
    goto out;
  err = ACS_OK;
  for (int32_t k = 0; k < cg->nparts; k++) {
    acs_ltensor_box(&cg->lg->t[cg->tensors[cg->parts[k].out].lt], &whole[k]);
    c[k].need = &whole[k];
  }
  for (int32_t i = 0; i < s->nops && err == ACS_OK; i++)
    if (tags[i].what == ACS_CAS_OP_COMPUTE)
      err = cover_add(&c[tags[i].part], &tags[i].box);
  for (int32_t k = 0; k < cg->nparts && err == ACS_OK; k++)
    if (cg->lg->t[cg->tensors[cg->parts[k].out].lt].is_output && (err = covered(&c[k])) == 0)
      err = FAIL(d, "cascade check: the network output '%s' of '%s' is not computed whole",
                 cg->lg->t[cg->tensors[cg->parts[k].out].lt].name,
                 cg->lg->n[cg->parts[k].node].name);
out:
  for (int32_t k = 0; c && k < cg->nparts; k++)
    free(c[k].box);
  free(c);
  free(whole);
  return err < 0 ? err : ACS_OK;
}

int acs_cas_check(const struct acs_cas_env *env, const struct acs_cas_tag *tags,
                  int64_t budget, int64_t predicted, const struct acs_schedule *s,
                  struct acs_diag *d)
{
  struct acs_schedule_stats st;
  struct preds p;
  int err;

  memset(&p, 0, sizeof(p));
  err = ACS_ENOMEM;
  if (!(p.last = calloc((size_t)env->cg->ntensors + 1, sizeof(*p.last))) ||
      (err = preds_build(s, &p)) < 0)
    goto out;
  for (int32_t i = 0; i < s->nops && err == ACS_OK; i++) {
    if (tags[i].what == ACS_CAS_OP_COMPUTE)
      err = check_compute(env, tags, s, &p, i, d);
    else if (tags[i].what != ACS_CAS_OP_OTHER)
      err = check_dma(env, tags, s, &p, i, d);
  }
  if (err == ACS_OK)
    err = check_outputs(env, tags, s, d);
  if (err < 0)
    goto out;
  acs_schedule_stats(s, &st);
  if (st.peak_cmx_bytes > budget || st.peak_cmx_bytes > predicted)
    err = FAIL(d, "cascade check: peak CMX %lld bytes exceeds the budget (%lld) or the "
               "planner's prediction (%lld)", (long long)st.peak_cmx_bytes, (long long)budget,
               (long long)predicted);
out:
  free(p.off);
  free(p.src);
  for (int32_t t = 0; p.last && t < env->cg->ntensors; t++)
    free(p.last[t].c.box);
  free(p.last);
  return err;
}
