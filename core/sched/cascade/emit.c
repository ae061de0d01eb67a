/*
 * emit.c - pass 3 of a walk (see walk.c): a plan's ops, timed, and with a
 * lowering, appended to the schedule with their edges and CMX ranges.
 *
 * Per stripe: the loads of every buffer streamed from DDR, then each
 * Part's new region cut into blocks (one per ring slot) and each block
 * into channel slices (one compute op per PE), then the block's store when
 * the output goes back to DDR. An op's predecessors are the ops that wrote
 * what it reads (looked up among the slots of the buffers it reads) and,
 * for an op writing into a reused slot, the slot's previous occupant and
 * its readers (control: the slot is not overwritten while read).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/walk.h"

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

/* Loads of buffer b's new region (a weight or an entering activation). */
static int emit_loads(struct walk *w, int32_t b, int64_t step)
{
  struct wbuf *B = &w->bufs[b];
  int64_t nb = acs__cw_block_count(B);
  int err;

  for (int64_t i = 0; i < nb; i++) {
    struct acs_sop o;
    struct wslot *S;
    struct acs_lbox bb;
    size_t data;
    int32_t id;
    acs__cw_block_box(B, i, &bb);
    preds_reset(w);
    w->gp.n = 0;
    if (w->lw && (err = acs_cas_lower_ddr_preds(w->lw, B->tensor, &bb, &w->gp)) < 0)
      return err;
    data = w->npreds;
    if ((err = slot_claim(w, B, &S)) < 0 || (err = preds_add_war(w)) < 0)
      return err;
    acs_cas_sop_init(&o, ACS_OP_DMA);
    o.src = ACS_MEM_DDR;
    o.dst = ACS_MEM_CMX;
    o.bytes = acs__cw_box_bytes(w, &bb);
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
    if (pt->in[s] < 0 || (b = acs__cw_buf_of(w, pt->in[s])) < 0)
      continue;
    acs__cw_part_reads(w, w->p->first + k, s, sb, &r);
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
  acs_cas_sop_init(&o, ACS_OP_DMA);
  for (int32_t k = 0; k < S->npieces; k++) {
    if ((err = preds_add(w, S->pieces[k].op)) < 0)
      return err;
    box_hull(&box, &S->pieces[k].box);
    o.bytes += acs__cw_box_bytes(w, &S->pieces[k].box);
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
  acs_cas_sop_init(&o, op_kind_of(n->op));
  if ((err = acs_lnode_work(w->lg, pt->node, sb, &work)) < 0)
    return err;
  o.dur = work / w->env->macs_per_cycle + (work % w->env->macs_per_cycle != 0);
  o.out_bytes = acs__cw_box_bytes(w, sb);
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
  int32_t ns = acs__cw_slice_count(w, bb);
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
    acs__cw_slice_box(bb, q, ns, &sb);
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
int acs__cw_stripe_emit(struct walk *w, int64_t step)
{
  int err;

  acs__cw_regions_at(w, step);
  for (int32_t b = 0; b < w->nbufs; b++)
    if (w->bufs[b].kind == B_LOAD && (err = emit_loads(w, b, step)) < 0)
      return err;
  for (int32_t k = 0; k < w->p->nparts; k++) {
    struct wbuf *B = &w->bufs[w->pbuf[k]];
    int64_t nb = acs__cw_block_count(B);
    for (int64_t i = 0; i < nb; i++) {
      struct acs_lbox bb;
      acs__cw_block_box(B, i, &bb);
      if ((err = emit_block(w, k, &bb, step, i)) < 0)
        return err;
    }
  }
  return ACS_OK;
}

/* The group's sync follows its ops that nothing in the group follows. */
int acs__cw_group_end(struct walk *w, int64_t cycles)
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
