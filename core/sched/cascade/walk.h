/*
 * walk.h - the walk's state, shared by walk.c (regions, sizing, layout)
 * and emit.c (pass 3: the ops), internal to core/sched/cascade.
 */
#ifndef ACS_SCHED_CASCADE_WALK_H
#define ACS_SCHED_CASCADE_WALK_H

#include "core/model/ddrlink.h"
#include "core/sched/cascade/box.h"
#include "core/sched/cascade/cascade.h"
#include "core/sched/cascade/lower.h"

/* Buffer kinds: an inner Part's output (a ring of blocks); the group's
 * output going back to DDR (a ring of nbuf slots, a store per block) or
 * kept whole in CMX (its region, placed by lower.c); a load from DDR
 * (weights, activations streamed in); an entering activation already in
 * CMX (read in place). */
enum { ACS_CW_B_PART, ACS_CW_B_OUT_DDR, ACS_CW_B_OUT_CMX, ACS_CW_B_LOAD, ACS_CW_B_EXT_CMX };

/* acs_grow, with the common case (room left) inline: the walk appends to
 * these arrays millions of times while planning. */
#define ACS_CW_GROW(arr, cap, need)                                                                \
  ((need) <= (cap) ? 0 : acs_grow((void **)&(arr), sizeof(*(arr)), &(cap), (need)))

/* A piece of a slot's occupant: one channel slice of a computed block, or
 * a load. Kept only while lowering (the schedule op, its box). */
struct acs_cw_piece {
  int32_t gid;               /* schedule op */
  struct acs_lbox box;
};

/*
 * A ring slot. Timing needs only aggregates: the occupant block's box (the
 * hull of its pieces), when its last piece ends, and when its last reader
 * ends (the slot is free for the next occupant after both). A lowering
 * also keeps the pieces and readers, for the edges.
 */
struct acs_cw_slot {
  struct acs_lbox hull;         /* empty: no occupant */
  int64_t end, read_end;
  int32_t npieces;
  struct acs_cw_piece *pieces;  /* up to split (lowering only) */
  int32_t *readers;             /* schedule ops that read the occupant (lowering only) */
  size_t nreaders, cap;
};

/* A block's H range, for sizing (pass 2). */
struct acs_cw_blk {
  int64_t lo, hi;
};

struct acs_cw_buf {
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
  struct acs_cw_blk *fifo;
  size_t nfifo, cap_fifo, fifo_head;
  int64_t nblocks, slot_bytes;
  int32_t max_live, nslots;
  /* pass 3 */
  int64_t base;              /* ring offset in the arena */
  int32_t next;              /* next slot, round robin */
  struct acs_cw_slot *slots;
};

/* A buffer's regions at one stripe, as pass 1 found them. */
struct acs_cw_rec {
  struct acs_lbox newr;
  int64_t held_lo;
  uint8_t held_ok;
};

/*
 * Pass 1's regions and block heights, kept across the plans of one group
 * and context that cut the same stripes and roll the same buffers (h, w,
 * c, chan_major, rolling): they do not depend on the buffering (nbuf) or
 * on where the output goes (out_home), so of the four such plans only the
 * first runs pass 1. Owned by the caller (acs_cas_regions_free).
 */
struct acs_cas_regions {
  int valid;
  int64_t h, w, c, steps;
  uint8_t chan_major;
  uint32_t rolling;
  int32_t nbufs;
  struct acs_cw_rec *rec;
  uint64_t *rmask;
  int64_t sigma[ACS_CAS_MAX_BUFS];
};
void acs_cas_regions_free(struct acs_cas_regions *rc);

/* The DDR link as the walk times it (link.c): the bandwidth its transfers
 * use, a step function u[i] on [t[i], t[i + 1]) (the last step is idle to
 * infinity); steps before head are forgotten. */
struct acs_cw_link {
  double bw, rate;           /* the link's bytes per cycle; one transfer's */
  int64_t lat;
  struct acs_ddrlink min;    /* for acs_ddrlink_min_cycles */
  int64_t *t;
  double *u;
  size_t head, n, cap_t, cap_u;
};

struct acs_cw_walk {
  const struct acs_cas_env *env;
  const struct acs_cgraph *cg;
  const struct acs_lgraph *lg;
  const struct acs_cas_group *g;
  struct acs_cas_plan *p;
  struct acs_cas_lower *lw;
  int32_t nbufs;
  int32_t pbuf[ACS_CAS_MAX_PARTS];       /* buffer of each Part's output */
  struct acs_lbox comp[ACS_CAS_MAX_PARTS]; /* region each Part computes this stripe */
  struct acs_lbox stripe;
  int64_t *pe_free, *dma_free;
  struct acs_cw_link link;
  int64_t ready;                          /* the op being made starts no earlier */
  int64_t cycles, nops;                   /* the ops' makespan and count */
  int32_t *sr;                            /* scratch: slots a block reads (b * 65536 + slot) */
  size_t nsr, cap_sr;
  /* Lowering only: the current op's predecessors in the group (data, then
   * control from the slot it reuses), in earlier groups, and which of the
   * group's schedule ops (from gid0) have successors in it. */
  struct acs_cas_ids data, ctrl, gp;
  int32_t gid0;
  uint8_t *succ;
  size_t cap_succ;
  int64_t macs, ddr_bytes;
  struct acs_cw_rec *rec;                 /* steps x nbufs, or NULL: recompute */
  uint64_t *rmask;                        /* per step, the buffers restarted */
  /* Last: a walk clears the fields above and each buffer it adds (buf_add),
   * not the whole array (tens of kB, cleared per plan costed). */
  struct acs_cw_buf bufs[ACS_CAS_MAX_BUFS];
};

/* Bytes of a box of a tensor: its elements fit (a box lies inside its
 * tensor, whose size the layer graph bounds). */
static inline int64_t acs__cw_box_bytes(const struct acs_cw_walk *w, const struct acs_lbox *b)
{
  int64_t e = w->env->elem_bytes;

  for (int i = 0; i < b->rank; i++) {
    if (b->hi[i] <= b->lo[i])
      return 0;
    e *= b->hi[i] - b->lo[i];
  }
  return e;
}

/* walk.c */
/* The region of input slot `slot` of Part k that computing `out` reads. */
void acs__cw_part_reads(const struct acs_cw_walk *w, int32_t k, int slot,
                        const struct acs_lbox *out, struct acs_lbox *in);
int32_t acs__cw_buf_of(const struct acs_cw_walk *w, int32_t tensor);
/* Blocks of a buffer's new region, and block i. */
int64_t acs__cw_block_count(const struct acs_cw_buf *b);
void acs__cw_block_box(const struct acs_cw_buf *b, int64_t i, struct acs_lbox *out);
/* Channel slices of a computed block, and slice k of n. */
int32_t acs__cw_slice_count(const struct acs_cw_walk *w, const struct acs_lbox *box);
void acs__cw_slice_box(const struct acs_lbox *box, int32_t k, int32_t n, struct acs_lbox *out);
/* Every buffer's regions at stripe j (recorded by pass 1, or recomputed);
 * the buffers restarted. */
uint64_t acs__cw_regions_at(struct acs_cw_walk *w, int64_t j);

/* link.c */
void acs__cw_link_init(struct acs_cw_link *l, const struct acs_platform *p);
void acs__cw_link_free(struct acs_cw_link *l);
/* The end of a transfer of `bytes` issued at `start` (see link.c), its
 * bandwidth taken; -1 out of memory. */
int64_t acs__cw_link_xfer(struct acs_cw_link *l, int64_t start, int64_t bytes);
/* No transfer will move data before `before`: steps before it go. */
void acs__cw_link_forget(struct acs_cw_link *l, int64_t before);

/* emit.c */
/* Pass 3 for stripe `step`: its loads, then each Part's blocks in order. */
int acs__cw_stripe_emit(struct acs_cw_walk *w, int64_t step);
/* Ends a lowered group: its sync after the ops nothing in it follows. */
int acs__cw_group_end(struct acs_cw_walk *w, int64_t cycles);

#endif
