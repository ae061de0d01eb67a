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

#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/cascade.h"
#include "core/sched/cascade/lower.h"

enum { B_PART, B_OUT_DDR, B_OUT_CMX, B_LOAD, B_EXT_CMX };

/* acs_grow, with the common case (room left) inline: the walk appends to
 * these arrays millions of times while planning. */
#define GROW(arr, cap, need)                                                                       \
  ((need) <= (cap) ? 0 : acs_grow((void **)&(arr), sizeof(*(arr)), &(cap), (need)))

struct wpiece {
  int32_t op;                /* local op */
  struct acs_lbox box;
  int64_t off, bytes;        /* in the slot; bytes as held (aligned) */
};

struct wslot {
  int32_t npieces;
  struct wpiece *pieces;     /* split of them */
  int32_t *readers;          /* local ops that read the occupant */
  size_t nreaders, cap;
};

/* A block's H range, for sizing (pass 2). */
struct wblk {
  int64_t lo, hi;
};

struct wbuf {
  int32_t tensor;            /* cgraph Tensor */
  int kind;
  int rolling;
  int h;                     /* H axis of the tensor, -1 */
  const struct acs_ltensor *lt;
  struct acs_lbox need, held, newr;
  int held_ok;
  /* pass 1 */
  int64_t sig_steady, sig_any, sigma;
  /* pass 2 */
  struct wblk *fifo;
  size_t nfifo, cap_fifo, fifo_head;
  int64_t nblocks, slot_bytes;
  int32_t max_live, nslots;
  /* pass 3 */
  int64_t base;              /* ring offset in the arena */
  int32_t next;              /* next slot, round robin */
  struct wslot *slots;
};

/* A buffer's regions at one stripe, as pass 1 found them. */
struct wrec {
  struct acs_lbox newr;
  int64_t held_lo;
  uint8_t held_ok;
};

struct wop {
  int64_t start, end;
  int32_t gid;               /* schedule op, or -1 in a dry run */
  uint32_t mark;             /* == walk's stamp: in the scratch predecessors */
  uint8_t has_pred, has_succ;
};

struct walk {
  const struct acs_cas_env *env;
  const struct acs_cgraph *cg;
  const struct acs_lgraph *lg;
  const struct acs_cas_group *g;
  struct acs_cas_plan *p;
  struct acs_cas_lower *lw;
  int32_t nbufs;
  struct wbuf bufs[2 * ACS_CAS_MAX_PARTS + ACS_CAS_MAX_EXT + 8];
  int32_t pbuf[ACS_CAS_MAX_PARTS];       /* buffer of each Part's output */
  struct acs_lbox comp[ACS_CAS_MAX_PARTS]; /* region each Part computes this stripe */
  struct acs_lbox stripe;
  struct wop *ops;
  size_t nops, cap_ops;
  int64_t *pe_free, *dma_free;
  int32_t *preds;                         /* scratch: predecessors of one op */
  size_t npreds, cap_preds;
  uint32_t stamp;                         /* marks the ops in preds[] */
  int32_t *war;                           /* scratch: a claimed slot's previous holders */
  size_t nwar, cap_war;
  struct acs_cas_ids gp;                  /* scratch: data predecessors in earlier groups */
  int32_t *sr;                            /* scratch: slots a slice reads (b * 65536 + slot) */
  size_t nsr, cap_sr;
  int32_t *saved;                         /* a block's reads, for its invariant slices */
  size_t nsaved, cap_saved;
  struct acs_cas_ids gp_saved;
  int64_t macs, ddr_bytes;
  struct wrec *rec;                       /* steps x nbufs, or NULL: recompute */
  uint64_t *rmask;                        /* per step, the buffers restarted */
};

/* ---- boxes ---- */

static int box_empty(const struct acs_lbox *b)
{
  for (int i = 0; i < b->rank; i++)
    if (b->hi[i] <= b->lo[i])
      return 1;
  return b->rank == 0 ? 0 : 0;
}

static void box_clear(struct acs_lbox *b, int rank)
{
  b->rank = rank;
  for (int i = 0; i < rank; i++)
    b->lo[i] = 0, b->hi[i] = 0;
}

static int box_meets(const struct acs_lbox *a, const struct acs_lbox *b)
{
  for (int i = 0; i < a->rank; i++)
    if (a->hi[i] <= b->lo[i] || b->hi[i] <= a->lo[i] || a->hi[i] <= a->lo[i])
      return 0;
  return 1;
}

static int box_eq(const struct acs_lbox *a, const struct acs_lbox *b)
{
  if (a->rank != b->rank)
    return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->lo[i] != b->lo[i] || a->hi[i] != b->hi[i])
      return 0;
  return 1;
}

/* a = the bounding box of a and b (a may be empty). */
static void box_hull(struct acs_lbox *a, const struct acs_lbox *b)
{
  if (box_empty(b))
    return;
  if (box_empty(a)) {
    *a = *b;
    return;
  }
  for (int i = 0; i < a->rank; i++) {
    if (b->lo[i] < a->lo[i])
      a->lo[i] = b->lo[i];
    if (b->hi[i] > a->hi[i])
      a->hi[i] = b->hi[i];
  }
}

static int64_t box_bytes(const struct walk *w, const struct acs_lbox *b)
{
  return acs_lbox_elems(b) * w->env->elem_bytes;
}

/* The region of input slot `slot` of Part k that computing `out` reads. */
static void part_reads(const struct walk *w, int32_t k, int slot, const struct acs_lbox *out,
                       struct acs_lbox *in)
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

static int32_t buf_of(const struct walk *w, int32_t tensor)
{
  for (int32_t b = 0; b < w->nbufs; b++)
    if (w->bufs[b].tensor == tensor)
      return b;
  return -1;
}

static int32_t buf_add(struct walk *w, int32_t tensor, int kind, int rolling)
{
  struct wbuf *b = &w->bufs[w->nbufs];

  memset(b, 0, sizeof(*b));
  b->tensor = tensor;
  b->kind = kind;
  b->lt = &w->lg->t[w->cg->tensors[tensor].lt];
  b->h = acs_cas_h_axis(b->lt->rank);
  b->rolling = rolling && b->h >= 0;
  box_clear(&b->need, b->lt->rank);
  box_clear(&b->held, b->lt->rank);
  return w->nbufs++;
}

/* One buffer per tensor the group makes or reads. */
static void bufs_make(struct walk *w)
{
  const struct acs_cas_plan *p = w->p;
  int32_t last = p->first + p->nparts - 1;

  w->nbufs = 0;
  for (int32_t k = p->first; k <= last; k++) {
    int32_t t = w->cg->parts[k].out;
    int kind = k < last ? B_PART : p->out_home == ACS_CAS_HOME_CMX ? B_OUT_CMX : B_OUT_DDR;
    w->pbuf[k - p->first] = buf_add(w, t, kind, k < last && (p->rolling >> (k - p->first)) & 1);
  }
  for (int32_t i = 0; i < w->g->nin; i++)
    buf_add(w, w->g->in[i], (p->in_cmx >> i) & 1 ? B_EXT_CMX : B_LOAD,
            (p->rolling >> p->nparts) & 1);
  for (int32_t k = p->first; k <= last; k++) {
    const struct acs_cpart *pt = &w->cg->parts[k];
    for (int s = 0; s < pt->nin; s++)
      if (pt->in[s] >= 0 && w->cg->tensors[pt->in[s]].weight && buf_of(w, pt->in[s]) < 0)
        buf_add(w, pt->in[s], B_LOAD, 0);
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
static int buf_advance(struct wbuf *b)
{
  int h = b->h, fwd;

  box_clear(&b->newr, b->lt->rank);
  if (box_empty(&b->need))
    return 0;
  if (b->held_ok && box_eq(&b->need, &b->held))
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

static int64_t ceil_div(int64_t a, int64_t b)
{
  return a / b + (a % b != 0);
}

static const struct acs_ltensor *out_tensor(const struct walk *w)
{
  int32_t last = w->p->first + w->p->nparts - 1;
  return &w->lg->t[w->cg->tensors[w->cg->parts[last].out].lt];
}

/* Stripes of the plan along H by h, W by w and channels by c. */
static void stripe_counts(const struct walk *w, int64_t *nh, int64_t *nw, int64_t *nc)
{
  const struct acs_ltensor *t = out_tensor(w);
  int ha = acs_cas_h_axis(t->rank), wa = acs_cas_w_axis(t->rank), ca = acs_cas_c_axis(t->rank);

  *nh = ha >= 0 ? ceil_div(t->dims[ha], w->p->h) : 1;
  *nw = wa >= 0 && w->p->w > 0 ? ceil_div(t->dims[wa], w->p->w) : 1;
  *nc = ca >= 0 ? ceil_div(t->dims[ca], w->p->c) : 1;
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
static void stripe_box(struct walk *w, int64_t step)
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
static uint64_t stripe_regions(struct walk *w, int64_t step)
{
  const struct acs_cas_plan *p = w->p;
  uint64_t restarted = 0;

  stripe_box(w, step);
  for (int32_t b = 0; b < w->nbufs; b++)
    box_clear(&w->bufs[b].need, w->bufs[b].lt->rank);
  for (int32_t k = p->nparts - 1; k >= 0; k--) {
    const struct acs_cpart *pt = &w->cg->parts[p->first + k];
    struct wbuf *ob = &w->bufs[w->pbuf[k]];
    if (k == p->nparts - 1) {
      w->comp[k] = w->stripe;
      ob->newr = w->stripe;
    } else {
      if (buf_advance(ob))
        restarted |= (uint64_t)1 << w->pbuf[k];
      w->comp[k] = ob->newr;
    }
    if (box_empty(&w->comp[k]))
      continue;
    for (int s = 0; s < pt->nin; s++) {
      struct acs_lbox r;
      int32_t b;
      if (pt->in[s] < 0 || (b = buf_of(w, pt->in[s])) < 0)
        continue;
      part_reads(w, p->first + k, s, &w->comp[k], &r);
      box_hull(&w->bufs[b].need, &r);
    }
  }
  for (int32_t b = 0; b < w->nbufs; b++)
    if (w->bufs[b].kind == B_LOAD && buf_advance(&w->bufs[b]))
      restarted |= (uint64_t)1 << b;
  return restarted;
}

/* ---- blocks and slices ---- */

/* Blocks of a new region: sigma rows each when rolled, else one. */
static int64_t block_count(const struct wbuf *b)
{
  int64_t rows;

  if (box_empty(&b->newr))
    return 0;
  if (!b->rolling || b->sigma <= 0)
    return 1;
  rows = b->newr.hi[b->h] - b->newr.lo[b->h];
  return ceil_div(rows, b->sigma);
}

static void block_box(const struct wbuf *b, int64_t i, struct acs_lbox *out)
{
  *out = b->newr;
  if (b->rolling && b->sigma > 0) {
    out->lo[b->h] = b->newr.lo[b->h] + i * b->sigma;
    if (out->lo[b->h] + b->sigma < b->newr.hi[b->h])
      out->hi[b->h] = out->lo[b->h] + b->sigma;
  }
}

/* Channel slices of a computed block: up to split, evenly. */
static int32_t slice_count(const struct walk *w, const struct acs_lbox *box)
{
  int ca = acs_cas_c_axis(box->rank);
  int64_t ch = ca >= 0 ? box->hi[ca] - box->lo[ca] : 1;

  return (int32_t)(ch < w->env->split ? ch : w->env->split);
}

static void slice_box(const struct acs_lbox *box, int32_t k, int32_t n, struct acs_lbox *out)
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
static int64_t block_bytes(const struct walk *w, const struct wbuf *b, const struct acs_lbox *box)
{
  int64_t sum = 0;
  int32_t n;

  if (b->kind == B_LOAD)
    return acs_cas_align(box_bytes(w, box), w->env->align);
  n = slice_count(w, box);
  for (int32_t k = 0; k < n; k++) {
    struct acs_lbox sb;
    slice_box(box, k, n, &sb);
    sum += acs_cas_align(box_bytes(w, &sb), w->env->align);
  }
  return sum;
}

/* ---- passes 1 and 2 ---- */

static int64_t steps_of(const struct walk *w)
{
  int64_t nh, nw, nc;
  stripe_counts(w, &nh, &nw, &nc);
  return nh * nw * nc;
}

static void held_reset(struct walk *w)
{
  for (int32_t b = 0; b < w->nbufs; b++) {
    w->bufs[b].held_ok = 0;
    box_clear(&w->bufs[b].held, w->bufs[b].lt->rank);
  }
}

/* Regions do not depend on sigma or on anything passes 2 and 3 compute,
 * so pass 1 records them (when they fit in a few MB) and the later passes
 * replay them. */
#define REC_MAX (1 << 15)

static void regions_record(struct walk *w, int64_t j, uint64_t restarted)
{
  if (!w->rec)
    return;
  w->rmask[j] = restarted;
  for (int32_t b = 0; b < w->nbufs; b++) {
    const struct wbuf *B = &w->bufs[b];
    struct wrec *r = &w->rec[j * w->nbufs + b];
    r->newr = B->newr;
    r->held_lo = B->h >= 0 ? B->held.lo[B->h] : 0;
    r->held_ok = (uint8_t)B->held_ok;
  }
}

static uint64_t regions_at(struct walk *w, int64_t j)
{
  if (!w->rec)
    return stripe_regions(w, j);
  for (int32_t b = 0; b < w->nbufs; b++) {
    struct wbuf *B = &w->bufs[b];
    const struct wrec *r = &w->rec[j * w->nbufs + b];
    B->newr = r->newr;
    if (B->h >= 0)
      B->held.lo[B->h] = r->held_lo;
    B->held_ok = r->held_ok;
  }
  return w->rmask[j];
}

/* Pass 1: sigma of each rolling buffer. */
static void pass_sigma(struct walk *w, int64_t steps)
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
      struct wbuf *B = &w->bufs[b];
      int64_t rows;
      if (!B->rolling || box_empty(&B->newr))
        continue;
      rows = B->newr.hi[B->h] - B->newr.lo[B->h];
      if (rows > B->sig_any)
        B->sig_any = rows;
      if (!((restarted >> b) & 1) && rows > B->sig_steady)
        B->sig_steady = rows;
    }
  }
  for (int32_t b = 0; b < w->nbufs; b++) {
    struct wbuf *B = &w->bufs[b];
    B->sigma = B->sig_steady > 0 ? B->sig_steady : B->sig_any;
  }
}

static int fifo_push(struct wbuf *b, int64_t lo, int64_t hi)
{
  if (GROW(b->fifo, b->cap_fifo, b->nfifo + 1) < 0)
    return ACS_ENOMEM;
  b->fifo[b->nfifo++] = (struct wblk){lo, hi};
  return ACS_OK;
}

/* Pass 2: blocks per buffer, the largest, and the most alive at once. */
static int pass_size(struct walk *w, int64_t steps)
{
  held_reset(w);
  for (int64_t j = 0; j < steps; j++) {
    uint64_t restarted = regions_at(w, j);
    for (int32_t b = 0; b < w->nbufs; b++) {
      struct wbuf *B = &w->bufs[b];
      int64_t nb = block_count(B), live = 0;
      if (B->kind == B_EXT_CMX || B->kind == B_OUT_CMX)
        continue;
      if ((restarted >> b) & 1 || B->kind == B_OUT_DDR || !B->rolling)
        B->fifo_head = B->nfifo; /* every earlier block is dead */
      for (int64_t i = 0; i < nb; i++) {
        struct acs_lbox bb;
        int64_t by;
        block_box(B, i, &bb);
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
      if (B->kind == B_OUT_DDR)
        live = nb;
      if (live > B->max_live)
        B->max_live = (int32_t)live;
    }
  }
  for (int32_t b = 0; b < w->nbufs; b++) {
    struct wbuf *B = &w->bufs[b];
    int64_t n = (int64_t)B->max_live + w->p->nbuf - 1;
    B->nslots = (int32_t)(B->nblocks < n ? B->nblocks : n);
    free(B->fifo);
    B->fifo = NULL;
    B->nfifo = B->cap_fifo = B->fifo_head = 0;
  }
  return ACS_OK;
}

/* ---- pass 3: ops ---- */

/* Empties the scratch predecessors: O(1), by a new stamp. */
static void preds_reset(struct walk *w)
{
  w->npreds = 0;
  if (++w->stamp == 0) {
    for (size_t i = 0; i < w->nops; i++)
      w->ops[i].mark = 0;
    w->stamp = 1;
  }
}

static int preds_add(struct walk *w, int32_t op)
{
  if (w->ops[op].mark == w->stamp)
    return ACS_OK;
  w->ops[op].mark = w->stamp;
  if (GROW(w->preds, w->cap_preds, w->npreds + 1) < 0)
    return ACS_ENOMEM;
  w->preds[w->npreds++] = op;
  return ACS_OK;
}

static int slot_reader(struct wslot *s, int32_t op)
{
  if (s->nreaders > 0 && s->readers[s->nreaders - 1] == op)
    return ACS_OK;
  if (GROW(s->readers, s->cap, s->nreaders + 1) < 0)
    return ACS_ENOMEM;
  s->readers[s->nreaders++] = op;
  return ACS_OK;
}

/*
 * Makes op `o` (its kind, duration, bytes, CMX offset and size filled by
 * the caller) after the scratch predecessors: times it, records it, and
 * with a lowering, appends it with its edges. The first `ndata` scratch
 * predecessors are data, the rest control (a reused slot); w->gp are data
 * predecessors in earlier groups, ended before this group starts.
 */
static int op_make(struct walk *w, struct acs_sop *o, size_t ndata, int32_t pe, int32_t *out)
{
  int64_t ready = 0, start;
  int32_t unit = -1, id = (int32_t)w->nops;
  struct wop *r;
  int err;

  for (size_t i = 0; i < w->npreds; i++) {
    struct wop *q = &w->ops[w->preds[i]];
    if (q->end > ready)
      ready = q->end;
    q->has_succ = 1;
  }
  if (o->kind == ACS_OP_DMA) {
    unit = 0;
    for (int32_t c = 1; c < w->env->dma; c++)
      if (w->dma_free[c] < w->dma_free[unit])
        unit = c;
    start = ready > w->dma_free[unit] ? ready : w->dma_free[unit];
    w->dma_free[unit] = start + o->dur;
  } else if (o->kind == ACS_OP_SYNC) {
    start = ready;
  } else {
    unit = pe;
    start = ready > w->pe_free[pe] ? ready : w->pe_free[pe];
    w->pe_free[pe] = start + o->dur;
  }
  if (start > ACS_QTY_MAX - o->dur)
    return ACS_ERANGE;
  if (GROW(w->ops, w->cap_ops, w->nops + 1) < 0)
    return ACS_ENOMEM;
  r = &w->ops[w->nops++];
  memset(r, 0, sizeof(*r));
  r->start = start;
  r->end = start + o->dur;
  r->gid = -1;
  r->has_pred = w->npreds > 0;
  o->unit = unit;
  o->start = start;
  o->end = start + o->dur;
  *out = id;
  if (!w->lw)
    return ACS_OK;
  if ((err = acs_cas_lower_op(w->lw, w->env, o, r->has_pred, &r->gid)) < 0)
    return err;
  for (size_t i = 0; i < w->npreds; i++) {
    int kind = i < ndata ? ACS_EDGE_DATA : ACS_EDGE_CONTROL;
    if ((err = acs_cas_lower_edge(w->lw, w->ops[w->preds[i]].gid, r->gid, kind)) < 0)
      return err;
  }
  acs_cas_ids_unique(&w->gp);
  for (size_t i = 0; i < w->gp.n; i++)
    if ((err = acs_cas_lower_edge(w->lw, w->gp.v[i], r->gid, ACS_EDGE_DATA)) < 0)
      return err;
  return ACS_OK;
}

/* Predecessors of reading region `r` of buffer b: the blocks it meets
 * (their slots go to slots_read, as b * 65536 + slot). */
static int reads_add(struct walk *w, int32_t b, const struct acs_lbox *r,
                     int32_t **slots_read, size_t *nslots_read, size_t *cap)
{
  struct wbuf *B = &w->bufs[b];

  if (B->kind == B_EXT_CMX)
    return w->lw ? acs_cas_lower_ext_preds(w->lw, B->tensor, r, &w->gp) : ACS_OK;
  for (int32_t s = 0; s < B->nslots; s++) {
    struct wslot *S = &B->slots[s];
    int met = 0;
    for (int32_t k = 0; k < S->npieces; k++)
      if (box_meets(&S->pieces[k].box, r)) {
        int err = preds_add(w, S->pieces[k].op);
        if (err < 0)
          return err;
        met = 1;
      }
    if (met) {
      if (*nslots_read + 1 > *cap &&
          acs_grow((void **)slots_read, sizeof(**slots_read), cap, *nslots_read + 1) < 0)
        return ACS_ENOMEM;
      (*slots_read)[(*nslots_read)++] = b * 65536 + s;
    }
  }
  return ACS_OK;
}

static int war_add(struct walk *w, int32_t op)
{
  if (GROW(w->war, w->cap_war, w->nwar + 1) < 0)
    return ACS_ENOMEM;
  w->war[w->nwar++] = op;
  return ACS_OK;
}

/* Takes the next slot of B (round robin): w->war gets its previous
 * occupant's ops and readers, which every op writing into it must follow
 * (control: the slot is reused). */
static int slot_claim(struct walk *w, struct wbuf *B, struct wslot **out)
{
  struct wslot *S = &B->slots[B->next];
  int err;

  B->next = (B->next + 1) % B->nslots;
  w->nwar = 0;
  for (int32_t k = 0; k < S->npieces; k++)
    if ((err = war_add(w, S->pieces[k].op)) < 0)
      return err;
  for (size_t i = 0; i < S->nreaders; i++)
    if ((err = war_add(w, S->readers[i])) < 0)
      return err;
  S->npieces = 0;
  S->nreaders = 0;
  *out = S;
  return ACS_OK;
}

/* Appends the claimed slot's holders to the scratch predecessors. */
static int preds_add_war(struct walk *w)
{
  for (size_t i = 0; i < w->nwar; i++) {
    int err = preds_add(w, w->war[i]);
    if (err < 0)
      return err;
  }
  return ACS_OK;
}

static int64_t slot_offset(const struct walk *w, const struct wbuf *B, const struct wslot *S)
{
  return B->base + (int64_t)(S - B->slots) * B->slot_bytes;
}

static void sop_init(struct acs_sop *o, int kind)
{
  memset(o, 0, sizeof(*o));
  o->kind = (uint8_t)kind;
  o->cmx_offset = -1;
  o->cmx_bytes = -1;
  o->update_barrier = -1;
  o->slots = 1;
}

/* Loads of buffer b's new region (a weight or an entering activation). */
static int emit_loads(struct walk *w, int32_t b, int64_t step)
{
  struct wbuf *B = &w->bufs[b];
  int64_t nb = block_count(B);
  int err;

  for (int64_t i = 0; i < nb; i++) {
    struct acs_sop o;
    struct wslot *S;
    struct acs_lbox bb;
    size_t data;
    int32_t id;
    block_box(B, i, &bb);
    preds_reset(w);
    w->gp.n = 0;
    if (w->lw && (err = acs_cas_lower_ddr_preds(w->lw, B->tensor, &bb, &w->gp)) < 0)
      return err;
    data = w->npreds;
    if ((err = slot_claim(w, B, &S)) < 0 || (err = preds_add_war(w)) < 0)
      return err;
    sop_init(&o, ACS_OP_DMA);
    o.src = ACS_MEM_DDR;
    o.dst = ACS_MEM_CMX;
    o.bytes = box_bytes(w, &bb);
    o.out_bytes = o.bytes;
    o.dur = acs_platform_ddr_cycles(w->env->plat, o.bytes);
    if (o.dur < 0)
      return ACS_ERANGE;
    o.cmx_offset = slot_offset(w, B, S);
    o.cmx_bytes = acs_cas_align(o.bytes, w->env->align);
    if (w->lw) {
      acs_cas_lower_name(w->lw, &o, w->lg->t[w->cg->tensors[B->tensor].lt].name, "ld", step, i);
      acs_cas_lower_tag(w->lw, ACS_CAS_OP_LOAD, -1, B->tensor, &bb);
    }
    if ((err = op_make(w, &o, data, 0, &id)) < 0)
      return err;
    S->pieces[0] = (struct wpiece){id, bb, 0, o.cmx_bytes};
    S->npieces = 1;
    w->ddr_bytes += o.bytes;
  }
  return ACS_OK;
}

/* Reads of one compute slice: every input slot's region. */
static int slice_reads(struct walk *w, int32_t k, const struct acs_lbox *sb, int32_t **sr,
                       size_t *nsr, size_t *cap)
{
  const struct acs_cpart *pt = &w->cg->parts[w->p->first + k];

  for (int s = 0; s < pt->nin; s++) {
    struct acs_lbox r;
    int32_t b;
    int err;
    if (pt->in[s] < 0 || (b = buf_of(w, pt->in[s])) < 0)
      continue;
    part_reads(w, w->p->first + k, s, sb, &r);
    if (box_empty(&r))
      continue;
    if ((err = reads_add(w, b, &r, sr, nsr, cap)) < 0)
      return err;
  }
  return ACS_OK;
}

static int op_kind_of(int lop)
{
  int cls = acs_lop_class(lop);
  return cls == ACS_LC_SOFTMAX || cls == ACS_LC_RESIZE || cls == ACS_LC_TRANSPOSE ||
         cls == ACS_LC_PAD ? ACS_OP_SHAVE : ACS_OP_DPU;
}

/* The store of an output block to DDR, after its slices; it reads the
 * slot, so the slot is not reused before it ends. */
static int emit_store(struct walk *w, struct wslot *S, int64_t step, int64_t bi)
{
  const struct acs_cpart *pt = &w->cg->parts[w->p->first + w->p->nparts - 1];
  struct acs_lbox box = S->pieces[0].box;
  struct acs_sop o;
  int32_t id;
  int err;

  preds_reset(w);
  w->gp.n = 0;
  sop_init(&o, ACS_OP_DMA);
  for (int32_t k = 0; k < S->npieces; k++) {
    if ((err = preds_add(w, S->pieces[k].op)) < 0)
      return err;
    box_hull(&box, &S->pieces[k].box);
    o.bytes += box_bytes(w, &S->pieces[k].box);
  }
  o.src = ACS_MEM_CMX;
  o.dst = ACS_MEM_DDR;
  o.dur = acs_platform_ddr_cycles(w->env->plat, o.bytes);
  if (o.dur < 0)
    return ACS_ERANGE;
  if (w->lw) {
    acs_cas_lower_name(w->lw, &o, w->lg->n[pt->node].name, "st", step, bi);
    acs_cas_lower_tag(w->lw, ACS_CAS_OP_STORE, w->p->first + w->p->nparts - 1, pt->out, &box);
  }
  if ((err = op_make(w, &o, w->npreds, 0, &id)) < 0 || (err = slot_reader(S, id)) < 0)
    return err;
  w->ddr_bytes += o.bytes;
  return w->lw ? acs_cas_lower_ddr_piece(w->lw, w->bufs[w->pbuf[w->p->nparts - 1]].tensor, &box,
                                         w->ops[id].gid)
               : ACS_OK;
}

/* Whether every channel slice of Part k's blocks reads the same regions:
 * no input axis of any slot depends on the output's channel axis (a conv,
 * not a depthwise one). Then a block's reads are looked up once. */
static int slice_invariant(const struct walk *w, int32_t k)
{
  const struct acs_cpart *pt = &w->cg->parts[w->p->first + k];
  int ca = acs_cas_c_axis(w->lg->t[w->cg->tensors[pt->out].lt].rank);

  for (int s = 0; s < pt->nin; s++) {
    const struct acs_iprop *ip = &pt->iprop[s];
    if (pt->in[s] < 0)
      continue;
    if (!ip->ok)
      return 0;
    for (int i = 0; i < ip->rin; i++)
      for (int t = 0; t < ip->nt[i]; t++)
        if (ip->j[i][t] == ca)
          return 0;
  }
  return 1;
}

/* The data predecessors of one slice (or of every slice, when invariant):
 * into the scratch predecessors, w->gp and w->sr. */
static int block_reads(struct walk *w, int32_t k, const struct acs_lbox *box, int out_cmx)
{
  int err;

  preds_reset(w);
  w->gp.n = 0;
  w->nsr = 0;
  if ((err = slice_reads(w, k, box, &w->sr, &w->nsr, &w->cap_sr)) < 0)
    return err;
  return out_cmx && w->lw ? acs_cas_lower_out_alloc(w->lw, &w->gp) : ACS_OK;
}

/* Saves (save = 1) or restores the reads block_reads found. */
static int reads_keep(struct walk *w, int save)
{
  size_t n = save ? w->npreds : w->nsaved;

  if (save) {
    if (acs_grow((void **)&w->saved, sizeof(*w->saved), &w->cap_saved, n + 1) < 0)
      return ACS_ENOMEM;
    if (n)
      memcpy(w->saved, w->preds, n * sizeof(*w->saved));
    w->nsaved = n;
    w->gp_saved.n = 0;
    for (size_t i = 0; i < w->gp.n; i++)
      if (acs_cas_ids_add(&w->gp_saved, w->gp.v[i]) < 0)
        return ACS_ENOMEM;
    return ACS_OK;
  }
  preds_reset(w);
  for (size_t i = 0; i < n; i++)
    if (preds_add(w, w->saved[i]) < 0)
      return ACS_ENOMEM;
  w->gp.n = 0;
  for (size_t i = 0; i < w->gp_saved.n; i++)
    if (acs_cas_ids_add(&w->gp, w->gp_saved.v[i]) < 0)
      return ACS_ENOMEM;
  return ACS_OK;
}

/* The compute op of slice sb of Part k's block, into slot S at off. */
static int emit_slice(struct walk *w, int32_t k, const struct acs_lbox *sb, struct wslot *S,
                      int64_t off, int64_t step, int64_t label, int32_t pe, int32_t *out)
{
  const struct acs_cpart *pt = &w->cg->parts[w->p->first + k];
  const struct acs_lnode *n = &w->lg->n[pt->node];
  struct wbuf *B = &w->bufs[w->pbuf[k]];
  size_t data = w->npreds;
  struct acs_sop o;
  int64_t work;
  int err;

  if (B->kind != B_OUT_CMX && (err = preds_add_war(w)) < 0)
    return err;
  sop_init(&o, op_kind_of(n->op));
  if ((err = acs_lnode_work(w->lg, pt->node, sb, &work)) < 0)
    return err;
  o.dur = work / w->env->macs_per_cycle + (work % w->env->macs_per_cycle != 0);
  o.out_bytes = box_bytes(w, sb);
  if (B->kind != B_OUT_CMX) {
    o.cmx_offset = slot_offset(w, B, S) + off;
    o.cmx_bytes = acs_cas_align(o.out_bytes, w->env->align);
  }
  if (w->lw) {
    acs_cas_lower_name(w->lw, &o, n->name, "s", step, label);
    acs_cas_lower_tag(w->lw, ACS_CAS_OP_COMPUTE, w->p->first + k, B->tensor, sb);
  }
  if ((err = op_make(w, &o, data, pe, out)) < 0)
    return err;
  w->macs += work;
  for (size_t i = 0; i < w->nsr && err == ACS_OK; i++)
    err = slot_reader(&w->bufs[w->sr[i] / 65536].slots[w->sr[i] % 65536], *out);
  if (err == ACS_OK && B->kind == B_OUT_CMX && w->lw)
    err = acs_cas_lower_out_piece(w->lw, B->tensor, sb, w->ops[*out].gid);
  if (err == ACS_OK && B->kind != B_OUT_CMX)
    S->pieces[S->npieces++] = (struct wpiece){*out, *sb, off, o.cmx_bytes};
  return err;
}

/* One block of Part k's region: a compute op per channel slice. */
static int emit_block(struct walk *w, int32_t k, const struct acs_lbox *bb, int64_t step,
                      int64_t bi)
{
  struct wbuf *B = &w->bufs[w->pbuf[k]];
  struct wslot *S = NULL;
  int32_t ns = slice_count(w, bb);
  int inv = ns > 1 && slice_invariant(w, k), out_cmx = B->kind == B_OUT_CMX;
  int64_t off = 0;
  int err = ACS_OK;

  if (!out_cmx && (err = slot_claim(w, B, &S)) < 0)
    return err;
  if (inv && ((err = block_reads(w, k, bb, out_cmx)) < 0 || (err = reads_keep(w, 1)) < 0))
    return err;
  for (int32_t q = 0; q < ns && err == ACS_OK; q++) {
    struct acs_lbox sb;
    int32_t id;
    slice_box(bb, q, ns, &sb);
    err = inv ? reads_keep(w, 0) : block_reads(w, k, &sb, out_cmx);
    if (err == ACS_OK)
      err = emit_slice(w, k, &sb, S, off, step, bi * 1000 + q, q % w->env->pes, &id);
    if (err == ACS_OK && !out_cmx)
      off += S->pieces[S->npieces - 1].bytes;
  }
  if (err == ACS_OK && B->kind == B_OUT_DDR)
    err = emit_store(w, S, step, bi);
  return err;
}

/* Pass 3 for one stripe: loads, then each Part's blocks in order. */
static int stripe_emit(struct walk *w, int64_t step)
{
  int err;

  regions_at(w, step);
  for (int32_t b = 0; b < w->nbufs; b++)
    if (w->bufs[b].kind == B_LOAD && (err = emit_loads(w, b, step)) < 0)
      return err;
  for (int32_t k = 0; k < w->p->nparts; k++) {
    struct wbuf *B = &w->bufs[w->pbuf[k]];
    int64_t nb = block_count(B);
    for (int64_t i = 0; i < nb; i++) {
      struct acs_lbox bb;
      block_box(B, i, &bb);
      if ((err = emit_block(w, k, &bb, step, i)) < 0)
        return err;
    }
  }
  return ACS_OK;
}

/* Rings in the arena, one after another; slots with room for the pieces. */
static int layout(struct walk *w, int64_t base, int64_t *arena)
{
  int64_t off = 0;

  for (int32_t b = 0; b < w->nbufs; b++) {
    struct wbuf *B = &w->bufs[b];
    int32_t per = B->kind == B_LOAD ? 1 : w->env->split;
    int64_t sz;
    if (B->kind == B_EXT_CMX || B->kind == B_OUT_CMX || B->nslots == 0)
      continue;
    if (acs_mul_i64(B->slot_bytes, B->nslots, &sz) || acs_add_i64(off, sz, &off) ||
        off > ACS_QTY_MAX)
      return ACS_ERANGE;
    B->base = base + off - sz;
    B->slots = calloc((size_t)B->nslots, sizeof(*B->slots));
    if (!B->slots)
      return ACS_ENOMEM;
    for (int32_t s = 0; s < B->nslots; s++)
      if (!(B->slots[s].pieces = calloc((size_t)per, sizeof(*B->slots[s].pieces))))
        return ACS_ENOMEM;
  }
  *arena = off;
  return ACS_OK;
}

static void walk_free(struct walk *w)
{
  for (int32_t b = 0; b < w->nbufs; b++) {
    struct wbuf *B = &w->bufs[b];
    for (int32_t s = 0; B->slots && s < B->nslots; s++) {
      free(B->slots[s].pieces);
      free(B->slots[s].readers);
    }
    free(B->slots);
    free(B->fifo);
  }
  free(w->ops);
  free(w->pe_free);
  free(w->dma_free);
  free(w->preds);
  free(w->war);
  free(w->gp.v);
  free(w->sr);
  free(w->rec);
  free(w->rmask);
  free(w->saved);
  free(w->gp_saved.v);
}

/* The group's sync follows its ops that nothing in the group follows. */
static int group_end(struct walk *w, int64_t cycles)
{
  struct acs_cas_ids sinks = {NULL, 0, 0};
  int err = ACS_OK;

  for (size_t i = 0; i < w->nops && err == ACS_OK; i++)
    if (!w->ops[i].has_succ)
      err = acs_cas_ids_add(&sinks, w->ops[i].gid);
  if (err == ACS_OK)
    err = acs_cas_lower_group_end(w->lw, cycles, sinks.v, sinks.n);
  free(sinks.v);
  return err;
}

int acs_cas_walk(const struct acs_cas_env *env, const struct acs_cas_group *g,
                 struct acs_cas_plan *p, struct acs_cas_lower *lw)
{
  struct walk w;
  int64_t steps, arena = 0, cycles = 0;
  const struct acs_ctensor *ot;
  int err;

  memset(&w, 0, sizeof(w));
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
  pass_sigma(&w, steps);
  if ((err = pass_size(&w, steps)) < 0 ||
      (err = layout(&w, lw ? acs_cas_lower_arena(lw) : 0, &arena)) < 0)
    goto out;
  w.pe_free = calloc((size_t)env->pes + 1, sizeof(*w.pe_free));
  w.dma_free = calloc((size_t)env->dma + 1, sizeof(*w.dma_free));
  err = ACS_ENOMEM;
  if (!w.pe_free || !w.dma_free)
    goto out;
  held_reset(&w);
  for (int64_t j = 0; j < steps; j++)
    if ((err = stripe_emit(&w, j)) < 0)
      goto out;
  for (size_t i = 0; i < w.nops; i++)
    if (w.ops[i].end > cycles)
      cycles = w.ops[i].end;
  ot = &env->cg->tensors[env->cg->parts[p->first + p->nparts - 1].out];
  p->out_bytes = p->out_home == ACS_CAS_HOME_CMX ? acs_cas_align(ot->bytes, env->align) : 0;
  p->mem = arena + p->out_bytes;
  p->cycles = cycles;
  p->ddr_bytes = w.ddr_bytes;
  p->macs = w.macs;
  p->steps = steps;
  p->ops = (int64_t)w.nops;
  err = lw ? group_end(&w, cycles) : ACS_OK;
out:
  walk_free(&w);
  return err;
}
