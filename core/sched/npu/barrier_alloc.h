/*
 * barrier_alloc.h - the barrier allocator's state, shared by its policy
 * (barrier.c: what to choose, and why the result is correct) and its
 * bookkeeping (barrier_state.c: uses, physical barriers, edges, waits).
 */
#ifndef ACS_SCHED_BARRIER_ALLOC_H
#define ACS_SCHED_BARRIER_ALLOC_H

#include "core/sched/npu/barrier_int.h"
#include "core/sched/heap.h"

/* Members of a use on busy barriers that a request checks one by one
 * (followable, barrier.c). */
#define ACS_BA_RISKY_MAX 4
/* Ops the backward search for existing paths visits at most. */
#define ACS_BA_ANC_BUDGET 64
/* Ops whose search is kept (barrier_state.c, mark_ancestors): about the ops
 * ready at once, which are those asked again. */
#define ACS_BA_ANC_SLOTS 1024

struct acs_ba_use {
  int32_t barrier, prev;  /* physical barrier; previous use of it, -1 */
  int32_t prod, nprod;    /* producers, linked through a->prod_next */
  int32_t cons, ncons;    /* consumers that have started, linked in a->cons */
  int64_t open_t;         /* when its first producer started */
  int64_t slots;          /* slot demand of its producers */
  int64_t prod_end;       /* latest end among its producers */
  int32_t last;           /* the producer that ends then (-1: none ends after open_t) */
  int64_t cons_end;       /* latest end among its consumers */
  int32_t cbar;           /* the barriers its consumers update: first entry
                           * of a->cbar, -1 */
  uint8_t joinable;       /* open: no consumer has started, more producers may join */
  int64_t refused_at;     /* a decision time at which no op can follow it
                           * (followable, barrier.c); -1 */
  int64_t rk_t;           /* the decision time rk was counted at; -1: count again */
  int64_t rk_until;       /* refused before then (count_risky, barrier.c); -1 */
  int32_t rk;             /* its members on a barrier with a producer running */
  uint8_t rk_several;     /* ... two or more of them on one such barrier */
  int8_t rk_n;            /* those entries of a->cbar, kept when few; -1: not kept */
  int32_t rk_e[ACS_BA_RISKY_MAX];
};

/* The lists a physical barrier is on while its current use is done (its
 * producers and consumers have ended): free, or with ops still to wait
 * on it. Until then it is in the `busy` heap, keyed by when it will be. */
enum { ACS_BA_L_NONE, ACS_BA_L_FREE, ACS_BA_L_STEAL };

struct acs_ba_bar {
  int32_t cur;            /* current use */
  int32_t pending;        /* unstarted ops registered to wait on it */
  /* Those of them whose predecessors have all started (the others cannot
   * start before one more op runs), by when the last of those ends (their
   * earliest start) and by latest start; stale entries dropped lazily. */
  struct acs_heap by_ready;
  struct acs_heap by_lst;
  struct acs_heap by_start; /* all of them by planned start (barrier.c drops
                             * those before the decision time) */
  int8_t list;            /* ACS_BA_L_* */
  int32_t prev, next;     /* links in that list */
  int32_t oprev, onext;   /* links in the list of open uses, when on it */
  uint8_t open;
  /* hold_tidy ran at decision time tidy_t with tidy_ver == a->ver + 1
   * (0: never): until an op starts, the heaps' tops stay tidy. */
  int64_t tidy_t, tidy_ver;
  /* The entries of a->cbar on this barrier (their uses' rk counts them
   * when it has a producer running), pruned of those of uses no request
   * can price any more (barrier_state.c, busy_now). */
  int32_t *rev, nrev, caprev;
};

/* Pairs grown together, with a link: per-use and per-op lists. */
struct acs_ba_list {
  int32_t *a, *b, *next;
  int32_t n;
  size_t cap;
};

struct acs__balloc {
  const struct acs_schedule *s;
  const struct acs__bprep *p;
  struct acs_barrier_stats *st;
  int32_t n, nb;          /* ops; barriers allowed */
  int64_t plimit;         /* slots per barrier, 0 = none */
  int policy;             /* enum acs__bpolicy */
  int by_plan;            /* ACS__BP_BY_PLAN was given */
  int keep_class;         /* ACS__BP_KEEP_CLASS was given (not with by_plan) */
  struct acs__sgs *g;     /* the sweep of the current request (try_start) */
  int32_t nbar;           /* barriers touched so far: ids [0, nbar) */
  struct acs_ba_bar *bar;        /* min(nb, n) of them at most */
  int64_t *bar_pend;      /* per barrier: prod_end of its current use (compact,
                           * for the scans of barrier.c) */
  int32_t head[3], tail[3]; /* the ACS_BA_L_* lists, oldest first */
  int32_t ohead, otail;   /* barriers whose current use is open, oldest first */
  struct acs_heap busy;   /* (done time, barrier), stale entries dropped lazily */
  struct acs_heap idle;   /* the same, for busy barriers nobody is to wait on */
  int64_t now;            /* the decision time the lists are up to date for */
  struct acs_ba_use *use;
  int32_t nuse;
  size_t ucap;
  int32_t *use_of, *prod_next, *open_cls, open_sink;
  int32_t *pbar, *npbar;  /* per op: the distinct barriers of its reduced
                           * predecessors (at p->rp_off), their number or -1
                           * (barrier.c, pred_barriers) */
  int64_t *end;           /* planned end of each started op */
  int32_t *unstarted;     /* per op: reduced predecessors not started yet */
  int64_t *ready_at;      /* per op: latest end among its started reduced
                           * predecessors (that among all, once all started) */
  struct acs_ba_list cons;       /* a: consumer op; next: within its use */
  struct acs_ba_list reg;        /* a: barrier an op is registered on; next: per op */
  int32_t *reg_head;
  struct acs_ba_list add;        /* a -> b: added edges; next: per destination */
  int32_t *add_in;
  struct acs_ba_list waits;      /* (op, barrier) */
  struct acs_ba_list opcons;     /* a: a use an op consumed; next: per op */
  int32_t *opcons_head;
  /* Per use (use.cbar, linked through next): a barrier its consumers
   * update, how many of them, one of them, the use, and all of them (mhead:
   * first entry of a->cmem). One record per entry, so that followable
   * (barrier.c), which walks these lists on most requests, reads one cache
   * line per entry. */
  struct acs_ba_cbar {
    int32_t bar, count, next, member, use;
    int32_t dead;         /* its use can no longer be priced (retire) */
    int32_t mhead;
  } *cbar;
  struct acs_ba_list cmem;       /* a: a member of a cbar entry; next: within it */
  int32_t ncbar;
  size_t cbar_cap;
  int32_t *chash;         /* entries of cbar by (use, barrier) (cbar_slot), -1 */
  size_t chash_cap;       /* a power of two */
  int64_t ver;            /* one more per op started */
  int64_t scan_t, scan_ver; /* when every free and stealable barrier priced
                             * was refused for any op (choose, barrier.c) */
  /* scratch for one request */
  int32_t epoch, pstamp;
  int32_t *pred_mark, *anc_mark, *bar_mark, *pull_mark, *try_mark, *queue, *wb, *wz;
  int32_t *succ_mark;     /* the requesting op's direct successors */
  int32_t *anc_cache;     /* ACS_BA_ANC_SLOTS x (op, ops its search marked, -1) */
  int anc_done;
};

/* Candidate kinds: join the open use of v's class; share the open use of
 * another class; take a barrier never used; reuse a barrier whose use is
 * complete; steal one whose use still has waiters. */
enum acs_ba_kind { ACS_BA_K_NONE, ACS_BA_K_JOIN, ACS_BA_K_SHARE, ACS_BA_K_FRESH, ACS_BA_K_REUSE, ACS_BA_K_STEAL };

struct acs_ba_choice {
  int kind;
  int32_t bar;            /* physical barrier */
  int32_t use;            /* ACS_BA_K_JOIN, ACS_BA_K_SHARE: the use joined */
  int64_t edges;          /* edges to add; < 0: not possible now */
  int64_t over;           /* cycles by which it makes some op start after its
                           * latest start (barrier_prep.c) */
  int64_t delay;          /* cycles by which it makes some op start later */
  int32_t held;           /* the first op it holds back (by when it can start), -1 */
  int32_t nheld;          /* ops it holds back (counted up to HELD_MAX) */
};

/* ---- barrier_state.c ---- */

/* When use x is done: its producers and its consumers have ended. */
static inline int64_t acs__use_done(const struct acs__balloc *a, int32_t x)
{
  const struct acs_ba_use *u = &a->use[x];

  return u->prod_end > u->cons_end ? u->prod_end : u->cons_end;
}

/* Members of use x that must precede the next use of its barrier: its
 * consumers, or its producers when it has none. Runs the statements with m
 * bound to each. */
#define ACS__FOR_END(a, x, m, ...)                                               \
  do {                                                                           \
    if ((a)->use[x].ncons > 0) {                                                 \
      for (int32_t k_ = (a)->use[x].cons; k_ >= 0; k_ = (a)->cons.next[k_]) {    \
        int32_t m = (a)->cons.a[k_];                                             \
        __VA_ARGS__;                                                             \
      }                                                                          \
    } else {                                                                     \
      for (int32_t m = (a)->use[x].prod; m >= 0; m = (a)->prod_next[m]) {        \
        __VA_ARGS__;                                                             \
      }                                                                          \
    }                                                                            \
  } while (0)

/* Moves the barrier lists to decision time t. */
int acs__bars_advance(struct acs__balloc *a, int64_t t);
/* The earliest time a busy barrier nobody is to wait on will be free, or
 * INT64_MAX. */
int64_t acs__bars_next_done(struct acs__balloc *a);

void acs__mark_preds(struct acs__balloc *a, int32_t v);
int acs__ordered_before(struct acs__balloc *a, int32_t x, int32_t v);
int acs__reached_before(struct acs__balloc *a, int32_t x, int32_t v);
int acs__has_direct_member(const struct acs__balloc *a, int32_t x);
int acs__registered(const struct acs__balloc *a, int32_t v, int32_t b);

/* v starts at t with choice c; nw barriers of its predecessors in a->wb. */
int acs__commit(struct acs__balloc *a, struct acs__sgs *g, int32_t v, int64_t t,
                const struct acs_ba_choice *c, int32_t nw);

#endif
