/*
 * walk.c - a plan's ops, in execution order, timed (see cascade.h).
 *
 * A walk runs the plan's stripes three times:
 *  1. to learn each rolling buffer's block height sigma: the most rows a
 *     stripe adds to it once the window moves forward;
 *  2. to size every buffer: its largest block and the most blocks alive at
 *     once (blocks that meet the window still needed), plus nbuf - 1 slots;
 *  3. to make the ops: per stripe, loads (weights, entering activations),
 *     then each Part's new region cut in blocks and channel slices, then the
 *     output's store or its place in the CMX-resident tensor.
 * Passes 1 and 2 propagate regions only (O(stripes parts rank^2)); pass 3
 * makes O(ops) ops, each looking up the blocks it reads among a buffer's
 * slots.
 *
 * Timing is greedy in emission order (the order a runtime would issue
 * them): an op starts when its predecessors (data, and for a block written
 * into a reused slot, the slot's previous occupant and its readers) have
 * ended and its unit is free; channel slice k runs on PE k, a DMA on the
 * channel that frees first. A plan's cycles are its ops' makespan; groups
 * run one after another (lower.c joins them with a sync), so a proposal's
 * cycles are the sum of its plans'.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/walk.h"

/* The region of input slot `slot` of Part k that computing `out` reads. */
void acs__cw_part_reads(const struct acs_cw_walk *w, int32_t k, int slot,
                        const struct acs_lbox *out, struct acs_lbox *in)
{
  const struct acs_cpart *pt = &w->cg->parts[k];
  const struct acs_ltensor *t = &w->lg->t[w->cg->tensors[pt->in[slot]].lt];
  struct acs_stripe so, si;

  if (pt->iprop[slot].ok) {
    acs_iprop_box(&pt->iprop[slot], out, t, in);
    return;
  }
  acs_stripe_of_box(out, &so);
  acs_prop_apply(&pt->prop[slot], &so, &si);
  acs_prop_clip(&si, t, in);
}

/* ---- buffers ---- */

int32_t acs__cw_buf_of(const struct acs_cw_walk *w, int32_t tensor)
{
  for (int32_t b = 0; b < w->nbufs; b++)
    if (w->bufs[b].tensor == tensor)
      return b;
  return -1;
}

static int32_t buf_add(struct acs_cw_walk *w, int32_t tensor, int kind, int rolling)
{
  struct acs_cw_buf *b = &w->bufs[w->nbufs];

  memset(b, 0, sizeof(*b));
  b->tensor = tensor;
  b->kind = kind;
  b->lt = &w->lg->t[w->cg->tensors[tensor].lt];
  b->h = acs_cas_h_axis(b->lt->rank);
  b->rolling = rolling && b->h >= 0;
  acs_lbox_clear(&b->need, b->lt->rank);
  acs_lbox_clear(&b->held, b->lt->rank);
  return w->nbufs++;
}

/* One buffer per tensor the group makes or reads. */
static void bufs_make(struct acs_cw_walk *w)
{
  const struct acs_cas_plan *p = w->p;
  int32_t last = p->first + p->nparts - 1;

  w->nbufs = 0;
  for (int32_t k = p->first; k <= last; k++) {
    int32_t t = w->cg->parts[k].out;
    int kind = k < last                          ? ACS_CW_B_PART
               : p->out_home == ACS_CAS_HOME_CMX ? ACS_CW_B_OUT_CMX
                                                 : ACS_CW_B_OUT_DDR;
    w->pbuf[k - p->first] = buf_add(w, t, kind, k < last && (p->rolling >> (k - p->first)) & 1);
  }
  for (int32_t i = 0; i < w->g->nin; i++)
    buf_add(w, w->g->in[i], (p->in_cmx >> i) & 1 ? ACS_CW_B_EXT_CMX : ACS_CW_B_LOAD,
            (p->rolling >> p->nparts) & 1);
  for (int32_t k = p->first; k <= last; k++) {
    const struct acs_cpart *pt = &w->cg->parts[k];
    for (int s = 0; s < pt->nin; s++)
      if (pt->in[s] >= 0 && w->cg->tensors[pt->in[s]].weight && acs__cw_buf_of(w, pt->in[s]) < 0)
        buf_add(w, pt->in[s], ACS_CW_B_LOAD, 0);
  }
}

/*
 * What a buffer makes of the region needed this stripe: newr, the region
 * to compute or load (empty when held already). Recompute makes the whole
 * region unless it is the one held; rolling makes only the rows past the
 * held window when the window moves forward along H with the other axes
 * unchanged, and starts over otherwise. Returns 1 when the held blocks
 * die (a restart).
 */
static int buf_advance(struct acs_cw_buf *b)
{
  int h = b->h, fwd;

  acs_lbox_clear(&b->newr, b->lt->rank);
  if (acs_lbox_empty(&b->need))
    return 0;
  if (b->held_ok && acs_lbox_eq(&b->need, &b->held))
    return 0;
  fwd = b->rolling && b->held_ok && b->need.lo[h] >= b->held.lo[h] &&
        b->need.lo[h] <= b->held.hi[h];
  for (int i = 0; fwd && i < b->lt->rank; i++)
    if (i != h && (b->need.lo[i] != b->held.lo[i] || b->need.hi[i] != b->held.hi[i]))
      fwd = 0;
  if (!fwd) {
    b->newr = b->need;
    b->held = b->need;
    b->held_ok = 1;
    return 1;
  }
  if (b->need.hi[h] > b->held.hi[h]) {
    b->newr = b->need;
    b->newr.lo[h] = b->held.hi[h];
    b->held.hi[h] = b->need.hi[h];
  }
  b->held.lo[h] = b->need.lo[h];
  return 0;
}

/* ---- stripes ---- */

static const struct acs_ltensor *out_tensor(const struct acs_cw_walk *w)
{
  int32_t last = w->p->first + w->p->nparts - 1;
  return &w->lg->t[w->cg->tensors[w->cg->parts[last].out].lt];
}

/* Stripes of the plan along H by h, W by w and channels by c. */
static void stripe_counts(const struct acs_cw_walk *w, int64_t *nh, int64_t *nw, int64_t *nc)
{
  const struct acs_ltensor *t = out_tensor(w);
  int ha = acs_cas_h_axis(t->rank), wa = acs_cas_w_axis(t->rank), ca = acs_cas_c_axis(t->rank);

  *nh = ha >= 0 ? acs_ceil_div_i64(t->dims[ha], w->p->h) : 1;
  *nw = wa >= 0 && w->p->w > 0 ? acs_ceil_div_i64(t->dims[wa], w->p->w) : 1;
  *nc = ca >= 0 ? acs_ceil_div_i64(t->dims[ca], w->p->c) : 1;
}

/* Stripe i of n along axis a of t, by `size` (the whole axis for n == 1). */
static void stripe_cut(struct acs_lbox *b, const struct acs_ltensor *t, int a, int64_t i,
                       int64_t n, int64_t size)
{
  if (a < 0 || n <= 1)
    return;
  b->lo[a] = i * size;
  b->hi[a] = b->lo[a] + size < t->dims[a] ? b->lo[a] + size : t->dims[a];
}

/* Step `step` in the plan's order: rows, then columns, then channels
 * innermost; channel-major puts channels outermost. */
static void stripe_box(struct acs_cw_walk *w, int64_t step)
{
  const struct acs_ltensor *t = out_tensor(w);
  int64_t nh, nw, nc, ih, iw, ic, sp;

  stripe_counts(w, &nh, &nw, &nc);
  if (w->p->chan_major) {
    ic = step / (nh * nw);
    sp = step % (nh * nw);
  } else {
    ic = step % nc;
    sp = step / nc;
  }
  ih = sp / nw;
  iw = sp % nw;
  acs_ltensor_box(t, &w->stripe);
  stripe_cut(&w->stripe, t, acs_cas_h_axis(t->rank), ih, nh, w->p->h);
  stripe_cut(&w->stripe, t, acs_cas_w_axis(t->rank), iw, nw, w->p->w);
  stripe_cut(&w->stripe, t, acs_cas_c_axis(t->rank), ic, nc, w->p->c);
}

/*
 * The regions of one stripe: back from the output, each Part's region to
 * compute (its consumers' needs, less what its buffer holds), and what
 * each buffer must newly make. Returns a bitmask of buffers restarted
 * (pass 2 drops their blocks).
 */
static uint64_t stripe_regions(struct acs_cw_walk *w, int64_t step)
{
  const struct acs_cas_plan *p = w->p;
  uint64_t restarted = 0;

  stripe_box(w, step);
  for (int32_t b = 0; b < w->nbufs; b++)
    acs_lbox_clear(&w->bufs[b].need, w->bufs[b].lt->rank);
  for (int32_t k = p->nparts - 1; k >= 0; k--) {
    const struct acs_cpart *pt = &w->cg->parts[p->first + k];
    struct acs_cw_buf *ob = &w->bufs[w->pbuf[k]];
    if (k == p->nparts - 1) {
      w->comp[k] = w->stripe;
      ob->newr = w->stripe;
    } else {
      if (buf_advance(ob))
        restarted |= (uint64_t)1 << w->pbuf[k];
      w->comp[k] = ob->newr;
    }
    if (acs_lbox_empty(&w->comp[k]))
      continue;
    for (int s = 0; s < pt->nin; s++) {
      struct acs_lbox r;
      int32_t b;
      if (pt->in[s] < 0 || (b = acs__cw_buf_of(w, pt->in[s])) < 0)
        continue;
      acs__cw_part_reads(w, p->first + k, s, &w->comp[k], &r);
      acs_lbox_hull(&w->bufs[b].need, &r);
    }
  }
  for (int32_t b = 0; b < w->nbufs; b++)
    if (w->bufs[b].kind == ACS_CW_B_LOAD && buf_advance(&w->bufs[b]))
      restarted |= (uint64_t)1 << b;
  return restarted;
}

/* ---- blocks and slices ---- */

/* Blocks of a new region: sigma rows each when rolled, else one. */
int64_t acs__cw_block_count(const struct acs_cw_buf *b)
{
  int64_t rows;

  if (acs_lbox_empty(&b->newr))
    return 0;
  if (!b->rolling || b->sigma <= 0)
    return 1;
  rows = b->newr.hi[b->h] - b->newr.lo[b->h];
  return acs_ceil_div_i64(rows, b->sigma);
}

void acs__cw_block_box(const struct acs_cw_buf *b, int64_t i, struct acs_lbox *out)
{
  *out = b->newr;
  if (b->rolling && b->sigma > 0) {
    out->lo[b->h] = b->newr.lo[b->h] + i * b->sigma;
    if (out->lo[b->h] + b->sigma < b->newr.hi[b->h])
      out->hi[b->h] = out->lo[b->h] + b->sigma;
  }
}

/* Channel slices of a computed block: up to split, evenly. */
int32_t acs__cw_slice_count(const struct acs_cw_walk *w, const struct acs_lbox *box)
{
  int ca = acs_cas_c_axis(box->rank);
  int64_t ch = ca >= 0 ? box->hi[ca] - box->lo[ca] : 1;

  return (int32_t)(ch < w->env->split ? ch : w->env->split);
}

void acs__cw_slice_box(const struct acs_lbox *box, int32_t k, int32_t n, struct acs_lbox *out)
{
  int ca = acs_cas_c_axis(box->rank);
  int64_t ch, q, r;

  *out = *box;
  if (ca < 0 || n <= 1)
    return;
  ch = box->hi[ca] - box->lo[ca];
  q = ch / n;
  r = ch % n;
  out->lo[ca] = box->lo[ca] + k * q + (k < r ? k : r);
  out->hi[ca] = out->lo[ca] + q + (k < r);
}

/* CMX bytes a block takes: its slices, each aligned (loads: one piece). */
static int64_t block_bytes(const struct acs_cw_walk *w, const struct acs_cw_buf *b,
                           const struct acs_lbox *box)
{
  int64_t sum = 0;
  int32_t n;

  if (b->kind == ACS_CW_B_LOAD)
    return acs_cas_align(acs__cw_box_bytes(w, box), w->env->align);
  n = acs__cw_slice_count(w, box);
  for (int32_t k = 0; k < n; k++) {
    struct acs_lbox sb;
    acs__cw_slice_box(box, k, n, &sb);
    sum += acs_cas_align(acs__cw_box_bytes(w, &sb), w->env->align);
  }
  return sum;
}

/* ---- passes 1 and 2 ---- */

static int64_t steps_of(const struct acs_cw_walk *w)
{
  int64_t nh, nw, nc;
  stripe_counts(w, &nh, &nw, &nc);
  return nh * nw * nc;
}

static void held_reset(struct acs_cw_walk *w)
{
  for (int32_t b = 0; b < w->nbufs; b++) {
    w->bufs[b].held_ok = 0;
    acs_lbox_clear(&w->bufs[b].held, w->bufs[b].lt->rank);
  }
}

/* Regions do not depend on sigma or on anything passes 2 and 3 compute,
 * so pass 1 records them (when they fit in a few MB) and the later passes
 * replay them. */
#define REC_MAX (1 << 15)

static void regions_record(struct acs_cw_walk *w, int64_t j, uint64_t restarted)
{
  if (!w->rec)
    return;
  w->rmask[j] = restarted;
  for (int32_t b = 0; b < w->nbufs; b++) {
    const struct acs_cw_buf *B = &w->bufs[b];
    struct acs_cw_rec *r = &w->rec[j * w->nbufs + b];
    r->newr = B->newr;
    r->held_lo = B->h >= 0 ? B->held.lo[B->h] : 0;
    r->held_ok = (uint8_t)B->held_ok;
  }
}

uint64_t acs__cw_regions_at(struct acs_cw_walk *w, int64_t j)
{
  if (!w->rec)
    return stripe_regions(w, j);
  for (int32_t b = 0; b < w->nbufs; b++) {
    struct acs_cw_buf *B = &w->bufs[b];
    const struct acs_cw_rec *r = &w->rec[j * w->nbufs + b];
    B->newr = r->newr;
    if (B->h >= 0)
      B->held.lo[B->h] = r->held_lo;
    B->held_ok = r->held_ok;
  }
  return w->rmask[j];
}

/* Pass 1: sigma of each rolling buffer. */
static void pass_sigma(struct acs_cw_walk *w, int64_t steps)
{
  if (steps * w->nbufs <= REC_MAX) {
    w->rec = malloc((size_t)(steps * w->nbufs + 1) * sizeof(*w->rec));
    w->rmask = malloc((size_t)(steps + 1) * sizeof(*w->rmask));
    if (!w->rec || !w->rmask) { /* not an error: the later passes recompute */
      free(w->rec);
      free(w->rmask);
      w->rec = NULL;
      w->rmask = NULL;
    }
  }
  held_reset(w);
  for (int64_t j = 0; j < steps; j++) {
    uint64_t restarted = stripe_regions(w, j);
    regions_record(w, j, restarted);
    for (int32_t b = 0; b < w->nbufs; b++) {
      struct acs_cw_buf *B = &w->bufs[b];
      int64_t rows;
      if (!B->rolling || acs_lbox_empty(&B->newr))
        continue;
      rows = B->newr.hi[B->h] - B->newr.lo[B->h];
      if (rows > B->sig_any)
        B->sig_any = rows;
      if (!((restarted >> b) & 1) && rows > B->sig_steady)
        B->sig_steady = rows;
    }
  }
  for (int32_t b = 0; b < w->nbufs; b++) {
    struct acs_cw_buf *B = &w->bufs[b];
    B->sigma = B->sig_steady > 0 ? B->sig_steady : B->sig_any;
  }
}

static int fifo_push(struct acs_cw_buf *b, int64_t lo, int64_t hi)
{
  if (ACS_CW_GROW(b->fifo, b->cap_fifo, b->nfifo + 1) < 0)
    return ACS_ENOMEM;
  b->fifo[b->nfifo++] = (struct acs_cw_blk){lo, hi};
  return ACS_OK;
}

/* Pass 2: blocks per buffer, the largest, and the most alive at once. */
static int pass_size(struct acs_cw_walk *w, int64_t steps)
{
  held_reset(w);
  for (int64_t j = 0; j < steps; j++) {
    uint64_t restarted = acs__cw_regions_at(w, j);
    for (int32_t b = 0; b < w->nbufs; b++) {
      struct acs_cw_buf *B = &w->bufs[b];
      int64_t nb = acs__cw_block_count(B), live = 0;
      if (B->kind == ACS_CW_B_EXT_CMX || B->kind == ACS_CW_B_OUT_CMX)
        continue;
      if ((restarted >> b) & 1 || B->kind == ACS_CW_B_OUT_DDR || !B->rolling)
        B->fifo_head = B->nfifo; /* every earlier block is dead */
      for (int64_t i = 0; i < nb; i++) {
        struct acs_lbox bb;
        int64_t by;
        acs__cw_block_box(B, i, &bb);
        by = block_bytes(w, B, &bb);
        if (by > B->slot_bytes)
          B->slot_bytes = by;
        if (fifo_push(B, B->h >= 0 ? bb.lo[B->h] : 0, B->h >= 0 ? bb.hi[B->h] : 1) < 0)
          return ACS_ENOMEM;
        B->nblocks++;
      }
      /* Alive: blocks that meet the window held (or the new ones). */
      while (B->fifo_head < B->nfifo && B->h >= 0 && B->rolling && B->held_ok &&
             B->fifo[B->fifo_head].hi <= B->held.lo[B->h])
        B->fifo_head++;
      live = (int64_t)(B->nfifo - B->fifo_head);
      if (B->kind == ACS_CW_B_OUT_DDR)
        live = nb;
      if (live > B->max_live)
        B->max_live = (int32_t)live;
    }
  }
  for (int32_t b = 0; b < w->nbufs; b++) {
    struct acs_cw_buf *B = &w->bufs[b];
    int64_t n = (int64_t)B->max_live + w->p->nbuf - 1;
    B->nslots = (int32_t)(B->nblocks < n ? B->nblocks : n);
    free(B->fifo);
    B->fifo = NULL;
    B->nfifo = B->cap_fifo = B->fifo_head = 0;
  }
  return ACS_OK;
}

/* Rings in the arena, one after another; slots with room for the pieces. */
static int layout(struct acs_cw_walk *w, int64_t base, int64_t *arena)
{
  int64_t off = 0;

  for (int32_t b = 0; b < w->nbufs; b++) {
    struct acs_cw_buf *B = &w->bufs[b];
    int32_t per = B->kind == ACS_CW_B_LOAD ? 1 : w->env->split;
    int64_t sz;
    if (B->kind == ACS_CW_B_EXT_CMX || B->kind == ACS_CW_B_OUT_CMX || B->nslots == 0)
      continue;
    if (acs_mul_i64(B->slot_bytes, B->nslots, &sz) || acs_add_i64(off, sz, &off) ||
        off > ACS_QTY_MAX)
      return ACS_ERANGE;
    B->base = base + off - sz;
    B->slots = calloc((size_t)B->nslots, sizeof(*B->slots));
    if (!B->slots)
      return ACS_ENOMEM;
    for (int32_t s = 0; s < B->nslots; s++) {
      acs_lbox_clear(&B->slots[s].hull, B->lt->rank);
      if (w->lw && !(B->slots[s].pieces = calloc((size_t)per, sizeof(*B->slots[s].pieces))))
        return ACS_ENOMEM;
    }
  }
  *arena = off;
  return ACS_OK;
}

static void walk_free(struct acs_cw_walk *w)
{
  for (int32_t b = 0; b < w->nbufs; b++) {
    struct acs_cw_buf *B = &w->bufs[b];
    for (int32_t s = 0; B->slots && s < B->nslots; s++) {
      free(B->slots[s].pieces);
      free(B->slots[s].readers);
    }
    free(B->slots);
    free(B->fifo);
  }
  free(w->pe_free);
  free(w->dma_free);
  acs__cw_link_free(&w->link);
  free(w->data.v);
  free(w->ctrl.v);
  free(w->gp.v);
  free(w->succ);
  free(w->sr);
  free(w->rec);
  free(w->rmask);
}

/* The fewest cycles of a known plan that dominates a plan of p's home and
 * memory; INT64_MAX when none. */
static int64_t known_cap(const struct acs_cas_plan *p, const struct acs_cas_plan *known,
                         int32_t nknown)
{
  int64_t cap = INT64_MAX;

  for (int32_t i = 0; i < nknown; i++)
    if (known[i].out_home == p->out_home && known[i].mem <= p->mem && known[i].cycles < cap)
      cap = known[i].cycles;
  return cap;
}

/* Whether rc holds pass 1 of w's plan. */
static int regions_match(const struct acs_cas_regions *rc, const struct acs_cw_walk *w,
                         int64_t steps)
{
  const struct acs_cas_plan *p = w->p;

  return rc->valid && rc->h == p->h && rc->w == p->w && rc->c == p->c &&
         rc->chan_major == p->chan_major && rc->rolling == p->rolling && rc->steps == steps &&
         rc->nbufs == w->nbufs;
}

/* Pass 1, or its result from rc; then rc keeps this one's (its arrays
 * move to rc: walk_free leaves them). */
static void regions_get(struct acs_cw_walk *w, int64_t steps, struct acs_cas_regions *rc)
{
  const struct acs_cas_plan *p = w->p;

  if (rc && regions_match(rc, w, steps)) {
    w->rec = rc->rec;
    w->rmask = rc->rmask;
    for (int32_t b = 0; b < w->nbufs; b++)
      w->bufs[b].sigma = rc->sigma[b];
    return;
  }
  pass_sigma(w, steps);
  if (!rc)
    return;
  acs_cas_regions_free(rc);
  if (!w->rec)
    return;
  *rc = (struct acs_cas_regions){1, p->h, p->w, p->c, steps, p->chan_major, p->rolling,
                                 w->nbufs, w->rec, w->rmask, {0}};
  for (int32_t b = 0; b < w->nbufs; b++)
    rc->sigma[b] = w->bufs[b].sigma;
}

static int walk_run(const struct acs_cas_env *env, const struct acs_cas_group *g,
                    struct acs_cas_plan *p, struct acs_cas_lower *lw,
                    const struct acs_cas_plan *known, int32_t nknown,
                    struct acs_cas_regions *rc)
{
  struct acs_cw_walk w;
  int64_t steps, arena = 0, cap;
  const struct acs_ctensor *ot;
  int err;

  memset(&w, 0, offsetof(struct acs_cw_walk, bufs));
  w.env = env;
  w.cg = env->cg;
  w.lg = env->cg->lg;
  w.g = g;
  w.p = p;
  w.lw = lw;
  if (p->nparts < 1 || p->nparts > ACS_CAS_MAX_PARTS || g->nin > ACS_CAS_MAX_EXT || p->h < 1 ||
      p->c < 1 || (p->nbuf != 1 && p->nbuf != 2))
    return ACS_EINVAL;
  bufs_make(&w);
  steps = steps_of(&w);
  regions_get(&w, steps, rc);
  if ((err = pass_size(&w, steps)) < 0 ||
      (err = layout(&w, lw ? acs_cas_lower_arena(lw) : 0, &arena)) < 0)
    goto out;
  ot = &env->cg->tensors[env->cg->parts[p->first + p->nparts - 1].out];
  p->out_bytes = p->out_home == ACS_CAS_HOME_CMX ? acs_cas_align(ot->bytes, env->align) : 0;
  p->mem = arena + p->out_bytes;
  if (!lw && env->mem_limit > 0 && p->mem > env->mem_limit) {
    err = ACS_CAS_OVER; /* no proposal holding it fits: pass 3 is not needed */
    goto out;
  }
  w.pe_free = calloc((size_t)env->pes + 1, sizeof(*w.pe_free));
  w.dma_free = calloc((size_t)env->dma + 1, sizeof(*w.dma_free));
  acs__cw_link_init(&w.link, env->plat);
  w.gid0 = -1;
  err = ACS_ENOMEM;
  if (!w.pe_free || !w.dma_free)
    goto out;
  held_reset(&w);
  cap = known_cap(p, known, nknown);
  for (int64_t j = 0; j < steps; j++) {
    if ((err = acs__cw_stripe_emit(&w, j)) < 0)
      goto out;
    if (w.cycles > cap) {
      err = ACS_CAS_OVER;
      goto out;
    }
  }
  p->cycles = w.cycles;
  p->ddr_bytes = w.ddr_bytes;
  p->macs = w.macs;
  p->steps = steps;
  p->ops = w.nops;
  err = lw ? acs__cw_group_end(&w, w.cycles) : ACS_OK;
out:
  if (rc && rc->rec == w.rec) /* rc's arrays, not the walk's */
    w.rec = NULL, w.rmask = NULL;
  walk_free(&w);
  return err;
}

int acs_cas_walk(const struct acs_cas_env *env, const struct acs_cas_group *g,
                 struct acs_cas_plan *p, struct acs_cas_lower *lw)
{
  return walk_run(env, g, p, lw, NULL, 0, NULL);
}

int acs_cas_walk_known(const struct acs_cas_env *env, const struct acs_cas_group *g,
                       struct acs_cas_plan *p, const struct acs_cas_plan *known,
                       int32_t nknown, struct acs_cas_regions *rc)
{
  return walk_run(env, g, p, NULL, known, nknown, rc);
}

void acs_cas_regions_free(struct acs_cas_regions *rc)
{
  free(rc->rec);
  free(rc->rmask);
  memset(rc, 0, sizeof(*rc));
}
