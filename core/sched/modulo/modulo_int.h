/*
 * modulo_int.h - the modulo scheduler's internals (seed 001): the problem as the
 * algorithms see it, lower bounds on II, the resource reservation table,
 * the placement arms, Rau's iterative modulo scheduling, the II search, the
 * exact mode, the independent checker and the lowering.
 *
 * Internal to core/sched/modulo; the scheduler variant itself is
 * acs_sched_modulo (core/sched/sched.h).
 */
#ifndef ACS_SCHED_MODULO_MODULO_INT_H
#define ACS_SCHED_MODULO_MODULO_INT_H

#include <signal.h>

#include "core/model/loop.h"
#include "core/model/schedule.h"

/*
 * A loop bound to unit counts. Edge e from src to dst of weight w and
 * distance d requires t[dst] - t[src] >= w - d * II, with w = latency of
 * src + the edge's delay. An op of a limited class occupies one unit of it
 * for occ cycles from its start (the fixed-unit model of the seed's
 * reservation table: an op keeps its unit in every iteration); an op of an
 * unlimited class occupies nothing (occ 0).
 */
struct acs_msp {
  int32_t n, m, nclasses;
  const struct acs_loop *loop;     /* names, lines */
  int32_t *cls;                    /* per op */
  int64_t *lat, *occ;              /* per op */
  int64_t *units;                  /* per class: unit count, ACS_LOOP_UNLIMITED none */
  int32_t *src, *dst;              /* per edge */
  int64_t *w, *dist;               /* per edge */
  int32_t *out_off, *out;          /* edge ids by source (CSR) */
  int32_t *in_off, *in;            /* edge ids by destination */
  int32_t *scc;                    /* per op: strongly connected component */
  int32_t nscc;
  int32_t *scc_cyclic;             /* per component: 1 when it holds a cycle */
  int32_t *topo;                   /* ops in a topological order of distance-0 edges */
  int64_t max_stages;              /* 0 = no limit (option max_stages) */
};

/* O(V + E + C). units[] as acs_loop_units. */
int acs__msp_init(struct acs_msp *m, const struct acs_loop *l, const int64_t *units);
void acs__msp_destroy(struct acs_msp *m);

/* Interrupt polling: nonzero once the flag is set. */
static inline int acs__msp_stop(const volatile sig_atomic_t *intr)
{
  return intr && *intr;
}

/* ---- lower bounds (mii.c) ---- */

struct acs_mii {
  int64_t res;           /* max over classes of ceil(ops * occ / units) */
  int64_t rec;           /* least II without a cycle of positive w - II d */
  int64_t fine;          /* max over classes of occ * ceil(ops / units): units are fixed,
                          * so a unit holds at most floor(II / occ) ops */
  int64_t dep;           /* ceil((longest distance-0 path + 1) / max_stages), 1 without a cap */
  int64_t mii;           /* max of the above and 1 */
  int32_t res_class, fine_class; /* the classes attaining res and fine, -1 none */
};
/*
 * RecMII by cycle jumping: at a candidate II, a longest-path search finds a
 * cycle of positive slack if one exists; the next candidate is that cycle's
 * own ratio ceil(sum w / sum d), so II rises to a true cycle bound each
 * step (Dinkelbach's iteration) and ends at the largest one. Each step is a
 * queue-based Bellman-Ford on the cyclic components, O(V E) worst case,
 * much less in practice. ACS_EINTERRUPTED when intr is set.
 */
int acs__msp_mii(const struct acs_msp *m, struct acs_mii *out,
                 const volatile sig_atomic_t *intr);
/* Longest path lengths from sources (asap[i] >= 0) at II over all edges;
 * 0 on success, 1 when a positive cycle exists (II below RecMII). O(V E)
 * worst case. */
int acs__msp_asap(const struct acs_msp *m, int64_t ii, int64_t *asap);
/* HeightR of Rau: longest path from each op to any op, weights w - d II,
 * the op's own latency as the base. 1 on a positive cycle. */
int acs__msp_height(const struct acs_msp *m, int64_t ii, int64_t *height);

/*
 * The work list of a queue-based Bellman-Ford over n ops (the longest
 * paths above, rrt.c's compaction): a ring in which an op waits at most
 * once, all ops in order at first, and how often each op was raised (more
 * than about n times: a positive cycle).
 */
struct acs__mqueue {
  int32_t *ring, *count;
  char *queued;
  int32_t head, size, cap;
};
int acs__mqueue_init(struct acs__mqueue *q, int32_t n); /* ACS_ENOMEM leaves q empty */
void acs__mqueue_destroy(struct acs__mqueue *q);
/* The next op to relax, or -1 when none waits. */
int32_t acs__mqueue_pop(struct acs__mqueue *q);
/* Op u was raised: counts it, queues it unless it waits already, and
 * returns how often it has been raised. */
int32_t acs__mqueue_raise(struct acs__mqueue *q, int32_t u);

/* ---- resource reservation table (rrt.c) ---- */

/*
 * One row per cycle modulo II and class: a bitset of the class's units
 * (the seed's table, split per class so a class of 200 units is 4 words).
 * An op's footprint is (class, unit, occ): `occ` consecutive rows of one
 * unit's bit. Probe before commit: acs__rrt_commit refuses (ACS_EINVAL,
 * table unchanged) a footprint that acs__rrt_probe would reject, so a
 * commit can never be partial.
 */
struct acs_rrt {
  int64_t ii;
  int32_t nclasses;
  int32_t *words;        /* per class, 0 for unlimited */
  size_t *base;          /* per class: first word of its row 0 */
  size_t nwords;
  uint64_t *rows;
  int64_t *units;        /* per class (borrowed from the problem) */
};

int acs__rrt_init(struct acs_rrt *t, const struct acs_msp *m, int64_t ii);
void acs__rrt_destroy(struct acs_rrt *t);
void acs__rrt_clear(struct acs_rrt *t);
/* 1 when the footprint fits: every row free on that unit and occ <= II (a
 * longer footprint would overlap itself). O(occ). */
int acs__rrt_probe(const struct acs_rrt *t, int32_t cls, int32_t unit, int64_t occ,
                   int64_t start);
int acs__rrt_commit(struct acs_rrt *t, int32_t cls, int32_t unit, int64_t occ, int64_t start);
/* Clears a committed footprint (eviction). */
void acs__rrt_release(struct acs_rrt *t, int32_t cls, int32_t unit, int64_t occ, int64_t start);
/* The lowest unit on which the footprint fits, or -1. O(occ * words). */
int32_t acs__rrt_free_unit(const struct acs_rrt *t, int32_t cls, int64_t occ, int64_t start);
/* Units of cls busy in row r (a popcount). */
int32_t acs__rrt_row_load(const struct acs_rrt *t, int32_t cls, int64_t r);

/* ---- schedules at one II (arms.c, ims.c) ---- */

/* What made a placement fail, for the diagnostics the seed lists. */
struct acs_mfail {
  int set;
  int64_t ii;
  int32_t op;            /* the op that found no seat */
  int64_t occ;           /* its footprint: occ rows of one unit of its class */
  int64_t lo, hi;        /* its dependence window [lo, hi] (hi < lo: empty) */
  int32_t pool;          /* the class (capacity pool) that rejected it, -1 when the
                          * window alone is empty */
  int64_t row_lo, row_hi;/* the conflicting rows, as residues */
  int32_t load;          /* busy units in the fullest of those rows */
  int32_t group;         /* its strongly connected component */
  int32_t order;         /* its position in the arm's placement order (-1: IMS) */
  int64_t stage;         /* lo / II: the stage it was being placed in */
  char arm[16];
};

struct acs_mstate {
  int64_t ii;
  int64_t *t;            /* start per op, or ACS_MSP_NONE */
  int32_t *unit;         /* unit per op, -1 for unlimited classes or unplaced */
  struct acs_rrt rrt;
  struct acs_mfail fail; /* the last failure */
};
#define ACS_MSP_NONE INT64_MIN

int acs__mstate_init(struct acs_mstate *s, const struct acs_msp *m, int64_t ii);
void acs__mstate_destroy(struct acs_mstate *s);
void acs__mstate_clear(struct acs_mstate *s, const struct acs_msp *m);
/* Places op i at t on a free unit, or returns 0 (nothing changed). */
int acs__mstate_seat(struct acs_mstate *s, const struct acs_msp *m, int32_t i, int64_t t);
void acs__mstate_unseat(struct acs_mstate *s, const struct acs_msp *m, int32_t i);
/* Dependence window of op i from its placed neighbours: [lo, hi]. */
void acs__mstate_window(const struct acs_mstate *s, const struct acs_msp *m, int32_t i,
                        int64_t *lo, int64_t *hi);
/* Records why op i found no seat in [lo, hi] (arm name, its order). */
void acs__mstate_fail(struct acs_mstate *s, const struct acs_msp *m, int32_t i, int64_t lo,
                      int64_t hi, int32_t order, const char *arm);
/* Shifts every start so the earliest is 0 (residues rotate with it). */
void acs__mstate_normalize(struct acs_mstate *s, const struct acs_msp *m);

/* Placement priority at II: ops by decreasing HeightR, ties by the
 * distance-0 topological order, so every distance-0 predecessor comes
 * first. O(V E) for the heights, O(V log V) for the sort. */
int acs__msp_priority(const struct acs_msp *m, int64_t ii, int32_t *order, int64_t *height);

/* The seed's placement arms, each a complete attempt at II: 1 success,
 * 0 failure (s->fail says why), < 0 error. */
int acs__arm_permute(struct acs_mstate *s, const struct acs_msp *m, const int32_t *order);
int acs__arm_fuse(struct acs_mstate *s, const struct acs_msp *m, const int32_t *order,
                  const int64_t *height);
int acs__arm_retry(struct acs_mstate *s, const struct acs_msp *m, const int32_t *order);
int acs__arm_cost(struct acs_mstate *s, const struct acs_msp *m, const int32_t *order);

/*
 * Rau's iterative modulo scheduling at II with a budget of placements:
 * lowest rank first, earliest free slot in [Estart, Estart + II - 1],
 * else a forced slot that evicts the ops holding the unit's rows and the
 * successors it would violate. Only the edges with edge_on[e] count (NULL:
 * all). 1 when every op is placed within the budget.
 * O(budget (deg + II occ words + log V)).
 */
int acs__ims(struct acs_mstate *s, const struct acs_msp *m, const int64_t *rank, int64_t budget,
             const char *edge_on, const volatile sig_atomic_t *intr);
/*
 * Keeps every op's residue and unit and moves it by multiples of II to the
 * least start its predecessors allow (the least fixpoint of t_j = the
 * first start >= max(0, t_i + w - d II) in j's residue; ops of unlimited
 * classes need no residue). Every edge holds after it; when the given
 * schedule already satisfied every edge, no start grows (it bounds the
 * fixpoint). This completes a schedule that satisfied only some edges, and
 * makes every schedule as shallow as its residues allow. 0 on success, 1 when the residues
 * admit no schedule (then s is unchanged). O(V E) worst case.
 */
int acs__mstate_compact(struct acs_mstate *s, const struct acs_msp *m);

/* ---- the II search (search.c) ---- */

enum { ACS_MSP_SEARCH_LINEAR, ACS_MSP_SEARCH_GALLOP };

struct acs_mopts {
  int64_t search;        /* MOD_SEARCH_* */
  int64_t budget;        /* IMS placements per op and attempt */
  int64_t restarts;      /* IMS attempts with perturbed priorities after the first */
  int64_t arms;          /* 1: try the seed's arms before IMS */
  int64_t exact;         /* 1: prove the minimum II by integer programming */
  int64_t max_stages;    /* 0 none */
  int64_t ii_max;        /* 0: the flat schedule's length (always feasible) */
  uint64_t seed;
  double time_limit;     /* seconds for the exact mode, <= 0 none */
  const volatile sig_atomic_t *interrupted;
};

/* One tried II: its outcome and, for a failure, why. */
struct acs_mtry {
  int64_t ii;
  int ok;                /* 1 placed, 0 heuristic failure, -1 proven infeasible */
  char how[16];          /* the arm or "ims" that succeeded, "exact" */
  struct acs_mfail fail;
};

struct acs_mresult {
  struct acs_mii mii;
  int64_t ii;            /* 0 when nothing was found */
  int64_t *t;            /* per op, normalized (min 0) */
  int32_t *unit;         /* per op */
  int64_t stages, depth; /* depth: max t + latency */
  int proven;            /* II = MII, or the exact mode proved it */
  int exact_status;      /* ACS_OK, ACS_ETIMEOUT (exact mode ran out of time) */
  char how[16];
  char note[256];        /* how the bound was proven, or why not */
  struct acs_mtry *tries;
  size_t ntries, cap_tries;
  double seconds;
};

void acs__mresult_free(struct acs_mresult *r);
/*
 * The whole search: bounds, then II from MII upward (or galloping and
 * bisecting), each II tried by the arms and IMS; with opts->exact, the
 * integer program then proves the minimum or times out. Returns ACS_OK with
 * r->ii > 0, ACS_EINFEASIBLE (nothing up to ii_max: only with max_stages),
 * ACS_EINTERRUPTED, ACS_ENOMEM.
 */
int acs__modulo_search(const struct acs_msp *m, const struct acs_mopts *o,
                       struct acs_mresult *r, struct acs_diag *d);

/* ---- exact mode (exact.c) ---- */

/*
 * Whether a modulo schedule exists at II (integer program, GLPK): 1 yes
 * (t, unit filled), 0 proven none, ACS_ETIMEOUT when the solver ran out of
 * time (deadline: acs_now_seconds() value), ACS_EINTERRUPTED.
 */
int acs__exact_feasible(const struct acs_msp *m, int64_t ii, double deadline,
                        const volatile sig_atomic_t *intr, int64_t *t, int32_t *unit);

/* ---- independent checker (check.c) ---- */

/*
 * Checks a modulo schedule against the loop itself (not the RRT): every
 * edge with its distance, starts >= 0, units inside their class, at most
 * `units` ops of a class occupying each residue (counting every cycle of
 * every blocking time, with its multiplicity), and no two ops on one unit
 * in one residue. Located message in d. O(V + E + sum occ).
 */
int acs__modulo_check(const struct acs_msp *m, int64_t ii, const int64_t *t,
                      const int32_t *unit, struct acs_diag *d);

/* ---- lowering and result tables (lower.c) ---- */

/* Sets the start and end of every op of out (the unrolled graph of
 * lay->iterations iterations, core/model/loop.h) from r. ACS_EINVAL when
 * out is not that graph. */
int acs__modulo_lower(const struct acs_loop *l, const struct acs_loop_layout *lay,
                      const struct acs_mresult *r, struct acs_schedule *out, struct acs_diag *d);
/* The tables `modulo` (per op), `modulo_units` (per class) and
 * `modulo_tries` (per II tried; shown when verbose or II > MII). */
int acs__modulo_tables(const struct acs_msp *m, const struct acs_mresult *r,
                       const struct acs_loop_layout *lay, int verbose, struct acs_schedule *out);

#endif
