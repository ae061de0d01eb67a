/*
 * spill_int.h - internals of the `spill` variant shared by its two files:
 * spill.c, the planner (setup, CMX placement, the event loop that starts
 * and finishes ops, the output, the variant), and spill_evict.c, the spill
 * and reload choice (spill DMAs, spill-reads, eviction windows, rescue).
 * The model and the rules are described at the top of spill.c.
 */
#ifndef ACS_SCHED_NPU_SPILL_INT_H
#define ACS_SCHED_NPU_SPILL_INT_H

#include "core/sched/heap.h"
#include "core/sched/interval.h"
#include "core/sched/npu/npu.h"
#include "core/sched/npu/spill.h"

enum { RULE_LFT, RULE_TOPO };
enum { EVICT_LRU, EVICT_BELADY };
enum { CLEAN_DROP, CLEAN_WRITE };

struct spill_opts {
  int64_t placement; /* ACS_FIT_FIRST, ACS_FIT_BEST */
  int64_t evict;
  int64_t clean;
  int64_t lookahead; /* 0 = no limit; -1 = LOOKAHEAD_PER_PE x pe_count */
  int64_t rule;
  int64_t reduce;    /* reachability budget per control edge; 0 = keep all */
};

/* Tensor states. */
enum { T_NONE, T_PRODUCING, T_RESIDENT, T_SPILLING, T_IN_DDR, T_LOADING, T_FREED };
/* Graph op states. */
enum { OP_WAITING, OP_READY, OP_RUNNING, OP_DONE };
/* Added ops. */
enum { X_WRITE, X_READ };

/* The tensor of graph op p (only when out_bytes > 0). */
struct tensor {
  int64_t bytes, off, len;  /* current range [off, off + len), -1 none */
  int64_t last_use;         /* LRU stamp of the latest access */
  int64_t hold_until;       /* latest end of an op holding the range */
  int32_t holder;           /* schedule op that holds the range, -1 none */
  int32_t ddr_src;          /* schedule op whose data is this tensor in DDR, -1 none */
  int32_t remaining;        /* consumers not finished */
  int32_t running;          /* consumers running now */
  int32_t cursor;           /* first possibly unstarted consumer (Belady) */
  int32_t nwrites, nreads;
  uint8_t state;
};

struct xop {
  int32_t tensor;
  uint8_t what;
};

/* Ready graph ops as a two-level bitset over ranks: next() skips 4096
 * ranks per summary word. */
struct readyset {
  uint64_t *w0, *w1;
  int32_t n;
};

struct spill {
  const struct acs_problem *pb;
  const struct spill_opts *o;
  const volatile sig_atomic_t *interrupted; /* polled at every event; may be NULL */
  struct acs_schedule *out;
  struct acs_diag *d;
  struct acs_spill_stats *st;
  int32_t n;                /* graph ops */
  int64_t cap, align;       /* usable CMX bytes (a multiple of align) */
  int res_cmx, res_dma, res_ddr; /* res_ddr: the DDR link, -1 none */
  int64_t avail[ACS_MAX_RES];
  int32_t *rank, *by_rank, *waiting;
  int32_t *missing;         /* input tensors not resident, of ready ops */
  uint8_t *opstate;
  int32_t *in_off, *in;     /* distinct input tensors of each op */
  int32_t *cons_off, *cons; /* distinct consumers of each tensor, by rank */
  struct tensor *t;
  struct xop *x;
  size_t xcap;
  int64_t *pos;             /* start sequence of every schedule op */
  size_t poscap;
  int64_t seq, stamp, now;
  struct acs_ivset used;    /* CMX ranges in use -> tensor */
  int64_t largest, freeb;   /* cached gaps of `used` */
  int gaps_ok;
  struct acs_heap run;      /* (end, schedule op) */
  struct readyset rs;
  int32_t ndone, rescue;
  int32_t *mark;            /* exclusion stamps for eviction */
  int64_t lookahead;        /* the window in ranks (option lookahead, resolved) */
  int32_t mark_cur;
  double frag_area;
};

#define FAIL(s, err, ...) acs_diag_set((s)->d, (err), NULL, 0, 0, __VA_ARGS__)

/* ---- small helpers of both files ---------------------------------------- */

/* Smallest set index >= from, or -1. */
static inline int32_t rs_next(const struct readyset *r, int32_t from)
{
  int32_t nw0 = (r->n + 63) / 64, nw1 = (nw0 + 63) / 64;
  int32_t w, j;
  uint64_t bits;

  if (from >= r->n)
    return -1;
  w = from >> 6;
  bits = r->w0[w] & (~UINT64_C(0) << (from & 63));
  if (bits)
    return (w << 6) + __builtin_ctzll(bits);
  w++;
  if (w >= nw0)
    return -1;
  j = w >> 6;
  bits = r->w1[j] & (~UINT64_C(0) << (w & 63));
  while (!bits) {
    if (++j >= nw1)
      return -1;
    bits = r->w1[j];
  }
  w = (j << 6) + __builtin_ctzll(bits);
  return (w << 6) + __builtin_ctzll(r->w0[w]);
}

static inline int64_t round_up(int64_t x, int64_t a)
{
  return (x + a - 1) / a * a;
}

/* CMX bytes a tensor reserves. */
static inline int64_t rsv(const struct spill *s, int64_t bytes)
{
  return round_up(bytes, s->align);
}

static inline int has_tensor(const struct spill *s, int32_t v)
{
  return s->pb->g->ops[v].out_bytes > 0;
}

/* A spill transfer takes a DMA channel and, when the graph models it, a
 * unit of the DDR link, like every other DDR transfer. */
static inline int dma_free(const struct spill *s)
{
  return s->avail[s->res_dma] > 0 && (s->res_ddr < 0 || s->avail[s->res_ddr] > 0);
}

static inline void dma_take(struct spill *s, int64_t n)
{
  s->avail[s->res_dma] -= n;
  if (s->res_ddr >= 0)
    s->avail[s->res_ddr] -= n;
}

/* ---- the planner (spill.c) ------------------------------------------------ */

/* Places `bytes` for tensor p; returns the offset or -1 (no gap). */
int64_t acs__spill_place(struct spill *s, int32_t p, int64_t bytes);
/* Gives back the range of tensor p. */
void acs__spill_unplace(struct spill *s, int32_t p);
/* Sets p's state, keeping the missing-input counts of its ready consumers. */
void acs__spill_set_state(struct spill *s, int32_t p, uint8_t state);
/* Starts schedule op `op` of duration dur now (end in *end): queues its end
 * and records its start sequence. */
int acs__spill_note_start(struct spill *s, int32_t op, int64_t dur, int64_t *end);

/* ---- spill and reload (spill_evict.c) ------------------------------------- */

/* Starts a spill-read of evicted tensor p when a channel and a gap exist.
 * Returns 1 started, 0 not now, < 0 error. */
int acs__spill_try_read(struct spill *s, int32_t p);
/* Nothing runs and nothing can start: evicts for the most urgent ready op.
 * ACS_OK when something was evicted. */
int acs__spill_rescue(struct spill *s);

/* A resident range as the eviction window sees it: its addresses, its key
 * (a window's is its members' largest, and the smaller goes first: the
 * latest use for lru, minus the soonest next use for belady), bytes,
 * whether it may go and whether it needs a write. */
struct acs__wrange {
  int64_t lo, hi, key, bytes;
  int ok, dirty;
};

/* A window to evict and what it costs (acs__spill_window_pick). */
struct acs__wpick {
  int64_t at, key, bytes; /* start, key, bytes of its members */
  int dirty;              /* a member needs a write */
  size_t k0, k1;          /* its members r[k0 .. k1) */
};

/*
 * Of the windows [at, at + len) inside [0, cap) that start at 0 or at an
 * end of one of the n ranges r (disjoint, by address), overlap at least one
 * range and only ranges that may go, the least by (dirty, key, bytes, at).
 * 1 and *best, or 0 when there is none; ACS_ENOMEM. O(n).
 */
int acs__spill_window_pick(const struct acs__wrange *r, size_t n, int64_t len, int64_t cap,
                           struct acs__wpick *best);

#endif
