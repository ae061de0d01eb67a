/*
 * barrier_int.h - the parts of the barrier pass and how they meet:
 *
 *   barrier_pass.c    entry point: limits, the two sweeps, the program kept
 *   barrier_prep.c    what the sweeps share: the graph, its transitive
 *                     reduction, consumer classes, latest starts
 *   barrier.c         the barrier allocator: uses, joins, reuse, steals
 *   barrier_retime.c  the time sweep (a schedule generation scheme that asks
 *                     the allocator before it starts an op), units, CMX
 */
#ifndef ACS_SCHED_BARRIER_INT_H
#define ACS_SCHED_BARRIER_INT_H

#include <stdatomic.h>

#include "core/model/reach.h"
#include "core/sched/npu/barrier.h"

/* ---- barrier_prep.c ---- */

struct acs__bprep {
  int32_t n;
  int32_t *rp_off, *rp;       /* reduced predecessors: edges no path implies */
  int32_t *rs_off, *rs;       /* reduced successors, increasing ids */
  int32_t *rs_g;              /* the same lists (rs_off) in s->edges order */
  int32_t *cls;               /* consumer class: ops with equal reduced successor
                               * sets share one (>= 0); sinks have -1 */
  int32_t ncls;
  int64_t *lst;               /* latest start that keeps the planned makespan */
  int64_t *tail;              /* longest path from the op's start to the end */
  int32_t *rank;              /* place in (planned start, id) order (acs__plan_ranks) */
  int32_t *by_tail;           /* the ops by decreasing tail (ties: id) */
  int64_t edges, reduced;     /* distinct edges, and those the reduction keeps */
};

int acs__bprep_init(struct acs__bprep *p, const struct acs_schedule *s);
void acs__bprep_destroy(struct acs__bprep *p);

/* ---- barrier_retime.c: the time sweep ---- */

struct acs__sgs;

/*
 * What the sweep asks before it starts an op whose predecessors have ended
 * and whose demands fit: try_start returns 1 when v starts at t (the
 * allocator has taken its barrier and recorded what it added), 0 when v
 * must wait for a later decision time, or an error. When v cannot start
 * before some time, the allocator says so in *retry (> t; left as is, the
 * next decision time); the sweep does not ask again before then. When that
 * time is the end of an op that runs, the allocator names it in *wake (left
 * as is, -1: none): the sweep then hangs v on that op, to be ready again
 * when it ends, in O(1) instead of a heap's O(log V) each way. `force` is
 * set when nothing runs and nothing is due for release, so that refusing
 * would stall: the allocator must then start v.
 */
struct acs__sgs_hooks {
  void *ctx;
  int (*try_start)(void *ctx, struct acs__sgs *g, int32_t v, int64_t t, int force,
                   int64_t *retry, int32_t *wake);
  const volatile sig_atomic_t *interrupted;  /* polled at every decision time; may be NULL */
  /* With p set, the sweep stops (acs__sgs_run returns ACS__SGS_CUT) at the
   * first decision time at which its makespan cannot come out below
   * cutoff: an op that has not started starts at the decision time or
   * later and still has its tail (p->tail) to run, over edges the
   * allocator only adds to. Atomic: the pass lowers it from another
   * thread when a sweep running there ends with a shorter plan. */
  const struct acs__bprep *p;
  _Atomic int64_t cutoff;
  /* Each op's rank in (planned start, id) order (acs__plan_ranks), or
   * NULL: the sweep ranks them itself. */
  const int32_t *plan_rank;
  /* The preparation of s, or NULL: the sweep then follows the reduced
   * edges instead of s->edges. An op starts only after its predecessors
   * end, so the ancestors of an op have all ended when its reduced
   * predecessors have: the ready ops, and so the sweep, are the same, and
   * a cascade schedule has ten times fewer reduced edges to walk. */
  const struct acs__bprep *reduced;
};

#define ACS__SGS_CUT 1

/* The duration the re-timing gives op v: the one place it is taken from. */
int64_t acs__sgs_dur(const struct acs_schedule *s, int32_t v);
/* Would op w find its units free at the sweep's decision time if op v
 * (not started) started then too? O(resources). */
int acs__sgs_fits_beside(const struct acs__sgs *g, int32_t v, int32_t w);
/* The latest end of s's ops at the starts start[] (those durations). */
int64_t acs__sgs_makespan(const struct acs_schedule *s, const int64_t *start);

/* An edge the allocator adds while sweeping, from an op that has started
 * (or is starting) to one that has not: the sweep holds dst until src ends. */
int acs__sgs_add_edge(struct acs__sgs *g, int32_t src, int32_t dst);

/* 1 when op v has started and ended by the current decision time. */
int acs__sgs_done(const struct acs__sgs *g, int32_t v);

/*
 * Sweeps s in time with the hooks: at each decision time the ready ops
 * start in the order of their planned starts (ties by id) when their
 * demands fit and the allocator agrees. With `release`, no op starts before
 * its planned start. New starts are written to start[] (the schedule is not
 * changed). ACS_OK, ACS__SGS_CUT (hk->p, hk->cutoff), or an error (a
 * stall names the ops left).
 */
int acs__sgs_run(const struct acs_schedule *s, int release, const struct acs__sgs_hooks *hk,
                 int64_t *start, struct acs_diag *d);

/*
 * The same sweep in steps, so that one that was cut can go on: _new sets
 * it up (hk and start must outlive it), _go runs it to its end or to a cut
 * at hk->cutoff (ACS_OK, ACS__SGS_CUT, or an error), and after a cut, with
 * hk->cutoff raised, _go again goes on from where it stopped: a cut changes
 * nothing but where the sweep stops. _free: NULL is fine.
 */
int acs__sgs_new(struct acs__sgs **g, const struct acs_schedule *s, int release,
                 const struct acs__sgs_hooks *hk, int64_t *start);
int acs__sgs_go(struct acs__sgs *g, struct acs_diag *d);
void acs__sgs_free(struct acs__sgs *g);

/* rank[v] = v's place among s's ops by (planned start, id): the order the
 * sweep takes ready ops in. O(V log V). ACS_OK or ACS_ENOMEM. */
int acs__plan_ranks(const struct acs_schedule *s, int32_t *rank);

/* Writes new starts into s: ends, CMX ranges moved with their ops, units
 * reassigned, makespan. */
int acs__sgs_apply(struct acs_schedule *s, const int64_t *start);

/* ---- barrier.c: the allocator ---- */

struct acs__balloc;

/* How the allocator trades a delay for a barrier (barrier.c, try_start):
 * by the costs of waiting and of taking (the default); never sharing a
 * use of another class; taking any barrier it can rather than waiting;
 * waiting whenever taking would delay an op; sharing a use of another
 * class when that delays nobody rather than taking a fresh barrier. */
enum acs__bpolicy { ACS__BP_COST, ACS__BP_NOSHARE, ACS__BP_TAKE, ACS__BP_WAIT, ACS__BP_SHARE,
                    ACS__BP_N };
/* Or'ed into a policy: price what a choice holds back by the waiters'
 * planned starts alone, and let a use opened by a steal take no other
 * producer (the rule before waiters were priced by when they can start,
 * barrier.c); it does better on some fine-grained plans that keep up with
 * their planned starts. */
#define ACS__BP_BY_PLAN 8
/* Or'ed into a policy that prices waiters by when they can start: a choice
 * that holds back a member of v's own consumer class which could start
 * beside v now is taken only when waiting has no end (barrier.c,
 * hold_waiters). That member waits on the use v opens, so it can never
 * join it: the class, which the plan runs side by side, would run one
 * after another. The policies without it still steal such a barrier
 * when that costs least by their prices, which does better on some
 * programs with very few barriers, so the pass tries both. */
#define ACS__BP_KEEP_CLASS 16

int acs__balloc_init(struct acs__balloc **a, const struct acs_schedule *s,
                     const struct acs__bprep *p, int policy, struct acs_barrier_stats *st);
void acs__balloc_destroy(struct acs__balloc *a);
void acs__balloc_hooks(struct acs__balloc *a, struct acs__sgs_hooks *hk);
/* Writes the program and the added edges into s (after acs__sgs_apply). */
int acs__balloc_emit(const struct acs__balloc *a, struct acs_schedule *s);

/* ---- barrier_pass.c ---- */

/* Sweep variant k of the pass, in the order that breaks ties: its policy,
 * whether it keeps release times, and the most ops it runs on. ACS_OK, or
 * ACS_EINVAL when there is no variant k (so the table can be walked). */
int acs__barrier_variant(int k, int *policy, int *release, int32_t *max_ops);

#endif
