/*
 * emit.c - pass 3 of a walk (see walk.c): a plan's ops, timed, and with a
 * lowering, appended to the schedule with their edges and CMX ranges.
 *
 * Per stripe: the loads of every buffer streamed from DDR, then each
 * Part's new region cut into blocks (one per ring slot), each block
 * computed as a gang of channel slices, one per PE, that start together,
 * then the block's store when the output goes back to DDR.
 *
 * Timing is the same in a dry run and a lowering. An op starts when what
 * it reads is written (the `end` of every slot of the buffers it reads
 * whose occupant meets its region), when the slot it writes is free (its
 * previous occupant and that occupant's readers have ended), and when its
 * units are: a gang of n slices waits for PEs 0..n-1, and each slice frees
 * its PE at its own end; a DMA takes the channel that frees first and the
 * bandwidth the shared DDR link has left (link.c). With these slot
 * aggregates a block costs O(slots read + slices) to time, whatever the
 * PE count; only a lowering makes each slice's op and its edges (the
 * pieces each slice reads, the slot's previous holders): O(slices x pieces
 * read) per block.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/walk.h"

static void wait_for(struct acs_cw_walk *w, int64_t t)
{
  if (t > w->ready)
    w->ready = t;
}

/* A new op: no predecessors yet. */
static void op_begin(struct acs_cw_walk *w)
{
  w->ready = 0;
  w->nsr = 0;
  w->data.n = w->ctrl.n = w->gp.n = 0;
}

/* An op that ends at `end` was made. */
static int op_done(struct acs_cw_walk *w, int64_t end)
{
  if (end > ACS_QTY_MAX)
    return ACS_ERANGE;
  if (end > w->cycles)
    w->cycles = end;
  w->nops++;
  return ACS_OK;
}

/* Lowering: appends o (timed from the group's start) after w->data (data
 * edges), w->ctrl (control: the slot it reuses) and w->gp (data, earlier
 * groups). */
static int lower_one(struct acs_cw_walk *w, struct acs_sop *o, int32_t *gid)
{
  size_t i;
  int err;

  acs_cas_ids_unique(&w->data);
  acs_cas_ids_unique(&w->ctrl);
  acs_cas_ids_unique(&w->gp);
  if ((err = acs_cas_lower_op(w->lw, w->env, o, w->data.n + w->ctrl.n > 0, gid)) < 0)
    return err;
  if (w->gid0 < 0)
    w->gid0 = *gid;
  i = (size_t)(*gid - w->gid0);
  if (ACS_CW_GROW(w->succ, w->cap_succ, i + 1) < 0)
    return ACS_ENOMEM;
  w->succ[i] = 0;
  for (i = 0; i < w->data.n + w->ctrl.n; i++) {
    int32_t src = i < w->data.n ? w->data.v[i] : w->ctrl.v[i - w->data.n];
    int kind = i < w->data.n ? ACS_EDGE_DATA : ACS_EDGE_CONTROL;
    if ((err = acs_cas_lower_edge(w->lw, src, *gid, kind)) < 0)
      return err;
    w->succ[src - w->gid0] = 1;
  }
  for (i = 0; i < w->gp.n; i++)
    if ((err = acs_cas_lower_edge(w->lw, w->gp.v[i], *gid, ACS_EDGE_DATA)) < 0)
      return err;
  return ACS_OK;
}

static int slot_read_by(struct acs_cw_walk *w, struct acs_cw_slot *S, int64_t end, int32_t gid)
{
  if (end > S->read_end)
    S->read_end = end;
  if (!w->lw || (S->nreaders > 0 && S->readers[S->nreaders - 1] == gid))
    return ACS_OK;
  if (ACS_CW_GROW(S->readers, S->cap, S->nreaders + 1) < 0)
    return ACS_ENOMEM;
  S->readers[S->nreaders++] = gid;
  return ACS_OK;
}

/* Takes the next slot of B (round robin): the op waits for its previous
 * occupant and readers (a lowering gets them as control predecessors). */
static int slot_claim(struct acs_cw_walk *w, struct acs_cw_buf *B, struct acs_cw_slot **out)
{
  struct acs_cw_slot *S = &B->slots[B->next];
  int err = ACS_OK;

  B->next = (B->next + 1) % B->nslots;
  wait_for(w, S->end);
  wait_for(w, S->read_end);
  for (int32_t k = 0; w->lw && k < S->npieces && err == ACS_OK; k++)
    err = acs_cas_ids_add(&w->ctrl, S->pieces[k].gid);
  for (size_t i = 0; w->lw && i < S->nreaders && err == ACS_OK; i++)
    err = acs_cas_ids_add(&w->ctrl, S->readers[i]);
  S->npieces = 0;
  S->nreaders = 0;
  S->end = S->read_end = 0;
  acs_lbox_clear(&S->hull, B->lt->rank);
  *out = S;
  return err;
}

static int64_t slot_offset(const struct acs_cw_walk *w, const struct acs_cw_buf *B,
                           const struct acs_cw_slot *S)
{
  return B->base + (int64_t)(S - B->slots) * B->slot_bytes;
}

/* A DMA of `bytes` after w->ready: the channel that frees first, the link's
 * bandwidth. Fills o's unit and times. */
static int dma_time(struct acs_cw_walk *w, struct acs_sop *o, int64_t bytes)
{
  int32_t unit = 0;
  int64_t start, end, first;

  for (int32_t c = 1; c < w->env->dma; c++)
    if (w->dma_free[c] < w->dma_free[unit])
      unit = c;
  start = w->ready > w->dma_free[unit] ? w->ready : w->dma_free[unit];
  if ((end = acs__cw_link_xfer(&w->link, start, bytes)) < 0)
    return ACS_ENOMEM;
  w->dma_free[unit] = end;
  first = w->dma_free[0];
  for (int32_t c = 1; c < w->env->dma; c++)
    first = w->dma_free[c] < first ? w->dma_free[c] : first;
  acs__cw_link_forget(&w->link, first + w->link.lat);
  o->unit = unit;
  o->start = start;
  o->end = end;
  o->dur = end - start;
  o->bytes = bytes;
  return op_done(w, end);
}

/* Loads of buffer b's new region (a weight or an entering activation). */
static int emit_loads(struct acs_cw_walk *w, int32_t b, int64_t step)
{
  struct acs_cw_buf *B = &w->bufs[b];
  int64_t nb = acs__cw_block_count(B);
  int err;

  for (int64_t i = 0; i < nb; i++) {
    struct acs_sop o;
    struct acs_cw_slot *S;
    struct acs_lbox bb;
    int32_t gid;
    acs__cw_block_box(B, i, &bb);
    op_begin(w);
    if (w->lw && (err = acs_cas_lower_ddr_preds(w->lw, B->tensor, &bb, &w->gp)) < 0)
      return err;
    if (w->lw) /* a dry run reads only the times dma_time sets */
      acs_cas_sop_init(&o, ACS_OP_DMA);
    if ((err = slot_claim(w, B, &S)) < 0 || (err = dma_time(w, &o, acs__cw_box_bytes(w, &bb))) < 0)
      return err;
    S->hull = bb;
    S->end = o.end;
    w->ddr_bytes += o.bytes;
    if (!w->lw)
      continue;
    o.src = ACS_MEM_DDR;
    o.dst = ACS_MEM_CMX;
    o.out_bytes = o.bytes;
    o.cmx_offset = slot_offset(w, B, S);
    o.cmx_bytes = acs_cas_align(o.bytes, w->env->align);
    acs_cas_lower_name(w->lw, &o, w->lg->t[w->cg->tensors[B->tensor].lt].name, "ld", step, i);
    acs_cas_lower_tag(w->lw, ACS_CAS_OP_LOAD, -1, B->tensor, &bb);
    if ((err = lower_one(w, &o, &gid)) < 0)
      return err;
    S->pieces[0] = (struct acs_cw_piece){gid, bb};
    S->npieces = 1;
  }
  return ACS_OK;
}

/* The store of an output block to DDR, after its slices; it reads the
 * slot, so the slot is not reused before it ends. */
static int emit_store(struct acs_cw_walk *w, struct acs_cw_slot *S, int64_t step, int64_t bi)
{
  int32_t last = w->p->first + w->p->nparts - 1, gid = -1;
  const struct acs_cpart *pt = &w->cg->parts[last];
  struct acs_sop o;
  int64_t end;
  int err = ACS_OK;

  op_begin(w);
  wait_for(w, S->end);
  for (int32_t k = 0; w->lw && k < S->npieces && err == ACS_OK; k++)
    err = acs_cas_ids_add(&w->data, S->pieces[k].gid);
  if (w->lw)
    acs_cas_sop_init(&o, ACS_OP_DMA);
  if (err < 0 || (err = dma_time(w, &o, acs__cw_box_bytes(w, &S->hull))) < 0)
    return err;
  w->ddr_bytes += o.bytes;
  end = o.end; /* the lowering moves o by the group's start */
  if (w->lw) {
    o.src = ACS_MEM_CMX;
    o.dst = ACS_MEM_DDR;
    acs_cas_lower_name(w->lw, &o, w->lg->n[pt->node].name, "st", step, bi);
    acs_cas_lower_tag(w->lw, ACS_CAS_OP_STORE, last, pt->out, &S->hull);
    if ((err = lower_one(w, &o, &gid)) < 0 ||
        (err = acs_cas_lower_ddr_piece(w->lw, pt->out, &S->hull, gid)) < 0)
      return err;
  }
  return slot_read_by(w, S, end, gid);
}

/* What the block reads: per input slot, its region of each buffer; the
 * op waits for the slots it meets (noted in w->sr). */
static int block_reads(struct acs_cw_walk *w, int32_t k, const struct acs_lbox *bb)
{
  const struct acs_cpart *pt = &w->cg->parts[w->p->first + k];

  for (int s = 0; s < pt->nin; s++) {
    struct acs_lbox r;
    struct acs_cw_buf *B;
    int32_t b;
    int err;
    if (pt->in[s] < 0 || (b = acs__cw_buf_of(w, pt->in[s])) < 0)
      continue;
    acs__cw_part_reads(w, w->p->first + k, s, bb, &r);
    B = &w->bufs[b];
    if (acs_lbox_empty(&r))
      continue;
    if (B->kind == ACS_CW_B_EXT_CMX) {
      if (w->lw && (err = acs_cas_lower_ext_preds(w->lw, B->tensor, &r, &w->gp)) < 0)
        return err;
      continue;
    }
    for (int32_t q = 0; q < B->nslots; q++)
      if (acs_lbox_meets(&B->slots[q].hull, &r)) {
        wait_for(w, B->slots[q].end);
        if (ACS_CW_GROW(w->sr, w->cap_sr, w->nsr + 1) < 0)
          return ACS_ENOMEM;
        w->sr[w->nsr++] = b * 65536 + q;
      }
  }
  return ACS_OK;
}

/* Lowering: the data predecessors of slice sb of Part k, the pieces of
 * the slots the block reads that meet what the slice reads. */
static int slice_preds(struct acs_cw_walk *w, int32_t k, const struct acs_lbox *sb)
{
  const struct acs_cpart *pt = &w->cg->parts[w->p->first + k];

  w->data.n = 0;
  for (int s = 0; s < pt->nin; s++) {
    struct acs_lbox r;
    int32_t b;
    if (pt->in[s] < 0 || (b = acs__cw_buf_of(w, pt->in[s])) < 0)
      continue;
    acs__cw_part_reads(w, w->p->first + k, s, sb, &r);
    for (size_t i = 0; i < w->nsr && !acs_lbox_empty(&r); i++) {
      const struct acs_cw_slot *S = &w->bufs[b].slots[w->sr[i] % 65536];
      if (w->sr[i] / 65536 != b)
        continue;
      for (int32_t q = 0; q < S->npieces; q++)
        if (acs_lbox_meets(&S->pieces[q].box, &r) &&
            acs_cas_ids_add(&w->data, S->pieces[q].gid) < 0)
          return ACS_ENOMEM;
    }
  }
  return ACS_OK;
}

static int op_kind_of(int lop)
{
  int cls = acs_lop_class(lop);
  return cls == ACS_LC_SOFTMAX || cls == ACS_LC_RESIZE || cls == ACS_LC_TRANSPOSE ||
         cls == ACS_LC_PAD ? ACS_OP_SHAVE : ACS_OP_DPU;
}

/* Work and cycles of slice q of ns of block bb of Part k. */
static int slice_cost(const struct acs_cw_walk *w, int32_t k, const struct acs_lbox *bb, int32_t q,
                      int32_t ns, int64_t *work, int64_t *dur)
{
  struct acs_lbox sb;
  int64_t m = w->env->macs_per_cycle;
  int err;

  acs__cw_slice_box(bb, q, ns, &sb);
  if ((err = acs_lnode_work(w->lg, w->cg->parts[w->p->first + k].node, &sb, work)) < 0)
    return err;
  *dur = *work / m + (*work % m != 0);
  return ACS_OK;
}

/* Lowering: slice q of the gang as an op on PE q, from `start`. */
static int lower_slice(struct acs_cw_walk *w, int32_t k, const struct acs_lbox *bb, int32_t q,
                       int32_t ns, struct acs_cw_slot *S, int64_t *off, int64_t start, int64_t dur,
                       int64_t step, int64_t bi)
{
  const struct acs_cpart *pt = &w->cg->parts[w->p->first + k];
  struct acs_cw_buf *B = &w->bufs[w->pbuf[k]];
  struct acs_lbox sb;
  struct acs_sop o;
  int32_t gid;
  int err;

  acs__cw_slice_box(bb, q, ns, &sb);
  if ((err = slice_preds(w, k, &sb)) < 0)
    return err;
  acs_cas_sop_init(&o, op_kind_of(w->lg->n[pt->node].op));
  o.unit = q % w->env->pes;
  o.start = start;
  o.dur = dur;
  o.end = start + dur;
  o.out_bytes = acs__cw_box_bytes(w, &sb);
  if (S) {
    o.cmx_offset = slot_offset(w, B, S) + *off;
    o.cmx_bytes = acs_cas_align(o.out_bytes, w->env->align);
    *off += o.cmx_bytes;
  }
  acs_cas_lower_name(w->lw, &o, w->lg->n[pt->node].name, "s", step, bi * 1000 + q);
  acs_cas_lower_tag(w->lw, ACS_CAS_OP_COMPUTE, w->p->first + k, B->tensor, &sb);
  if ((err = lower_one(w, &o, &gid)) < 0)
    return err;
  for (size_t i = 0; i < w->nsr && err == ACS_OK; i++)
    err = slot_read_by(w, &w->bufs[w->sr[i] / 65536].slots[w->sr[i] % 65536], start + dur, gid);
  if (err == ACS_OK && !S)
    err = acs_cas_lower_out_piece(w->lw, B->tensor, &sb, gid);
  if (err == ACS_OK && S)
    S->pieces[S->npieces++] = (struct acs_cw_piece){gid, sb};
  return err;
}

/*
 * One block of Part k's region: a gang of channel slices (up to split, one
 * per PE; the first ch % n have one channel more, so two costs cover
 * them). Channel slices of one block differ only in their channel range,
 * which no op's work depends on; a lowering recomputes each slice's work
 * and refuses a difference (ACS_EINVAL).
 */
static int emit_block(struct acs_cw_walk *w, int32_t k, const struct acs_lbox *bb, int64_t step,
                      int64_t bi)
{
  struct acs_cw_buf *B = &w->bufs[w->pbuf[k]];
  struct acs_cw_slot *S = NULL;
  int32_t ns = acs__cw_slice_count(w, bb), ca = acs_cas_c_axis(bb->rank), big;
  int64_t work[2], dur[2], start, end, off = 0;
  int err;

  big = ca >= 0 ? (int32_t)((bb->hi[ca] - bb->lo[ca]) % ns) : 0;
  op_begin(w);
  if (B->kind != ACS_CW_B_OUT_CMX && (err = slot_claim(w, B, &S)) < 0)
    return err;
  if ((err = block_reads(w, k, bb)) < 0 ||
      (B->kind == ACS_CW_B_OUT_CMX && w->lw &&
       (err = acs_cas_lower_out_alloc(w->lw, &w->gp)) < 0) ||
      (err = slice_cost(w, k, bb, 0, ns, &work[0], &dur[0])) < 0 ||
      (err = slice_cost(w, k, bb, ns - 1, ns, &work[1], &dur[1])) < 0)
    return err;
  start = w->ready;
  for (int32_t q = 0; q < ns; q++)
    start = w->pe_free[q % w->env->pes] > start ? w->pe_free[q % w->env->pes] : start;
  end = start + (dur[0] > dur[1] ? dur[0] : dur[1]);
  for (int32_t q = 0; q < ns; q++)
    w->pe_free[q % w->env->pes] = start + dur[q < big ? 0 : 1];
  w->macs += big * work[0] + (ns - big) * work[1];
  for (int32_t q = 0; w->lw && q < ns; q++) {
    int64_t wq, dq;
    if ((err = slice_cost(w, k, bb, q, ns, &wq, &dq)) < 0)
      return err;
    if (dq != dur[q < big ? 0 : 1] || wq != work[q < big ? 0 : 1])
      return ACS_EINVAL;
    if ((err = lower_slice(w, k, bb, q, ns, S, &off, start, dq, step, bi)) < 0)
      return err;
  }
  for (size_t i = 0; !w->lw && i < w->nsr; i++)
    slot_read_by(w, &w->bufs[w->sr[i] / 65536].slots[w->sr[i] % 65536], end, -1);
  w->nops += ns - 1;
  if ((err = op_done(w, end)) < 0)
    return err;
  if (!S)
    return ACS_OK;
  S->hull = *bb;
  S->end = end;
  return B->kind == ACS_CW_B_OUT_DDR ? emit_store(w, S, step, bi) : ACS_OK;
}

/* Pass 3 for one stripe: loads, then each Part's blocks in order. */
int acs__cw_stripe_emit(struct acs_cw_walk *w, int64_t step)
{
  int err;

  acs__cw_regions_at(w, step);
  for (int32_t b = 0; b < w->nbufs; b++)
    if (w->bufs[b].kind == ACS_CW_B_LOAD && (err = emit_loads(w, b, step)) < 0)
      return err;
  for (int32_t k = 0; k < w->p->nparts; k++) {
    struct acs_cw_buf *B = &w->bufs[w->pbuf[k]];
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
int acs__cw_group_end(struct acs_cw_walk *w, int64_t cycles)
{
  struct acs_cas_ids sinks = {NULL, 0, 0};
  int err = ACS_OK;

  for (int64_t i = 0; w->gid0 >= 0 && i < w->nops && err == ACS_OK; i++)
    if (!w->succ[i])
      err = acs_cas_ids_add(&sinks, w->gid0 + (int32_t)i);
  if (err == ACS_OK)
    err = acs_cas_lower_group_end(w->lw, cycles, sinks.v, sinks.n);
  free(sinks.v);
  return err;
}
