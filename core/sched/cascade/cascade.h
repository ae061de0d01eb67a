/*
 * cascade.h - the cascading scheduler of seed 002, internal to
 * core/sched/cascade (README "Cascading (seed 002)").
 *
 * Step 1 (cgraph.h, propagator.h) gives Parts and Tensors. This file adds:
 *
 *  - Groups (step 2): a Part group is an interval [first, first + nparts) of
 *    the Parts' topological order whose inner outputs are read inside it
 *    only; just the last Part's output leaves the group. Intervals keep the
 *    proposal search linear in the number of Parts (the seed's O(N) step 3)
 *    and still cover the shapes networks have: chains, residual blocks
 *    (the skip tensor enters the group twice) and branches that join inside.
 *    A group has at most max_parts Parts, or up to ACS_CAS_MAX_PARTS when it
 *    is one whole block (one tensor crossing each end, two or more every
 *    boundary inside: an Inception or residual block).
 *
 *  - Plans (step 2): how a group runs. The output is cut into stripes of h
 *    rows (the H axis, axis 2 of an N-D tensor), w columns (the W axis,
 *    axis 3) and, for a group of one Part with weights, c output channels
 *    (axis 1), so weights stripe too;
 *    for every stripe, each Part computes the region its consumers in the
 *    group need (propagated stripes, clipped). Per tensor produced or
 *    loaded in the group, a buffering mode: recompute (a buffer of one
 *    stripe's region, recomputed or reloaded whole when the region moves)
 *    or rolling (a ring of blocks of sigma rows; only rows not yet held are
 *    computed or loaded). nbuf = 2 adds a slot to every ring (double
 *    buffering: a stripe's producer may run while the previous stripe is
 *    still read). The output lives in CMX whole (home CMX, read in place by
 *    later groups) or goes back to DDR stripe by stripe (home DDR, a ring of
 *    nbuf slots and a store per stripe). Activations entering the group come
 *    from CMX when their producer left them there, otherwise they stream
 *    from DDR; weights stream from DDR.
 *
 *  - The walk (walk.c, emit.c) turns a plan into its ops in execution
 *    order, times them on the platform (a compute block is a gang of up to
 *    `split` channel slices, one per PE, starting together; DMAs take the
 *    first free channel and the shared DDR link, link.c) and sizes its
 *    buffers. The same walk costs a plan (dry run) and lowers it into the
 *    schedule, so a plan's memory and cycles are those of its ops.
 *
 *  - Unread elements: an element no consumer reads need not be computed;
 *    network outputs are computed whole. Inside a group a Part computes
 *    what its consumers read (the boxes their taps span); check.c demands
 *    exactly that.
 *
 *  - Proposals (proposals.c, step 3): dynamic programming over the
 *    boundaries between Parts in topological order; a state is the home
 *    (CMX or DDR) of every tensor crossing the boundary, and each state
 *    keeps a Pareto front of (peak memory, cycles).
 *
 *
 *  - Lowering (lower.c, step 4): places CMX-resident tensors and each
 *    group's buffers in the CMX and walks the plans into the schedule with
 *    ranges and edges; check.c checks the result with code of its own;
 *    variant.c ties the steps together and writes the result tables.
 */
#ifndef ACS_SCHED_CASCADE_CASCADE_H
#define ACS_SCHED_CASCADE_CASCADE_H

#include "core/model/schedule.h"
#include "core/sched/cascade/cgraph.h"

enum { ACS_CAS_RECOMPUTE = 0, ACS_CAS_ROLLING = 1 };
enum { ACS_CAS_HOME_DDR = 0, ACS_CAS_HOME_CMX = 1 };

/* At most this many Parts in a group (the rolling mask has a bit each). */
#define ACS_CAS_MAX_PARTS 16
/* At most this many activations enter a group (the context mask). */
#define ACS_CAS_MAX_EXT 32
/* At most this many buffers in a group: Part outputs, entering activations
 * and weight tensors (a walk's restart mask has a bit each). */
#define ACS_CAS_MAX_BUFS 63

/* What plans are costed against: the graph and the platform's figures. */
struct acs_cas_env {
  const struct acs_cgraph *cg;
  const struct acs_platform *plat;
  int64_t align;             /* CMX alignment, bytes */
  int64_t elem_bytes;
  int32_t pes;               /* PEs, each computes one channel slice */
  int32_t split;             /* most channel slices of a block */
  int32_t dma;               /* DMA channels */
  int64_t macs_per_cycle;
  int res_pe, res_dma;       /* resource indices in the schedule, -1 none */
  /* > 0: a dry run stops after sizing a plan that needs more CMX than
   * this (no proposal holding it fits the budget) and says so. */
  int64_t mem_limit;
  /* Plans kept from earlier runs (pcache.c), or NULL. */
  struct acs_cas_pset *pset;
};

/* acs_cas_walk's answer for a plan over env->mem_limit (mem filled), or
 * one that a plan of `known` dominates (acs_cas_walk_known). */
#define ACS_CAS_OVER 1

/* A group: Parts [first, first + nparts) and the activations entering it. */
struct acs_cas_group {
  int32_t first, nparts;
  int32_t next;              /* first + nparts */
  int next_reads;            /* 1: the output is read after the group (or is a network output) */
  int out_is_net;            /* the output is a network output: it goes to DDR */
  int32_t next_last;         /* the last Part that reads the output, -1 none */
  int32_t nin;
  int32_t in[ACS_CAS_MAX_EXT];  /* entering activation Tensors, by Tensor id */
  int in_net[ACS_CAS_MAX_EXT];  /* a network input (always in DDR) */
};

struct acs_cas_plan {
  int32_t first, nparts;
  int64_t h, c;              /* output stripe: rows along H, channels */
  int64_t w;                 /* columns along W (axis 3 of a rank-4 tensor); <= 0: all */
  uint8_t chan_major;        /* channel stripes outermost (weights loaded once each) */
  uint8_t nbuf;              /* 1, or 2: double buffering */
  uint8_t out_home;          /* ACS_CAS_HOME_* */
  uint32_t rolling;          /* bit k: output of Part first + k rolled; bit nparts: loads rolled */
  uint32_t in_cmx;           /* bit i: entering activation i is in CMX (the context) */
  /* Costs, from the walk. */
  int64_t mem;               /* CMX bytes the group holds: rings, weights, its output if home CMX */
  int64_t out_bytes;         /* CMX bytes of the output when home CMX (aligned), else 0 */
  int64_t cycles;            /* makespan of the group's ops */
  int64_t ddr_bytes;         /* loaded from and stored to DDR */
  int64_t macs;              /* computed, recomputation included */
  int64_t steps;             /* stripes */
  int64_t ops;               /* ops of the group */
};

/* Options of the variant (variant.c). */
struct acs_cas_opts {
  int64_t max_parts;         /* most Parts in a group */
  int64_t max_proposals;     /* most proposals kept per state */
  int64_t budget_kib;        /* 0: the platform's CMX */
  int64_t heights;           /* most stripe heights tried per group */
  int64_t widths;            /* most stripe widths tried per group (1: whole rows) */
  int64_t chan_splits;       /* most halvings of the channel stripe */
  int64_t modes;             /* 0: recompute or rolling per tensor, 1: one for all, 2: recompute
                              * only, 3: rolling only */
  int64_t split;             /* most channel slices of a block (0: the PE count) */
  int64_t max_stripes;       /* plans of more stripes are not tried */
};

/* ---- groups (plans.c) ---- */

/* 1 and *g when Parts [first, first + nparts) form a group. O(nparts E). */
int acs_cas_group_of(const struct acs_cgraph *cg, int32_t first, int32_t nparts,
                     struct acs_cas_group *g);

/* ---- the walk (walk.c) ---- */

struct acs_cas_lower;  /* lower.c: where a walk that emits puts its ops */

/*
 * Walks plan p of group g. Without `lw`, a dry run: fills p->mem,
 * p->out_bytes, p->cycles, p->ddr_bytes, p->macs, p->steps, p->ops.
 * With it, appends the group's ops to the schedule being lowered, starting
 * at lw's time and arena. Returns ACS_OK, ACS_CAS_OVER (a dry run of a
 * plan needing more than env->mem_limit: only p->mem is filled),
 * ACS_ENOMEM, ACS_ERANGE (a quantity beyond ACS_QTY_MAX). A dry run is
 * O(stripes (parts rank^2 + blocks (slots + split))), whatever the PE
 * count beyond split; a lowering adds O(slices x pieces read) per block.
 */
int acs_cas_walk(const struct acs_cas_env *env, const struct acs_cas_group *g,
                 struct acs_cas_plan *p, struct acs_cas_lower *lw);
/*
 * A dry run that also stops, with ACS_CAS_OVER, as soon as p is sure to
 * be strictly dominated by one of the nknown plans already walked: one of
 * the same out_home, needing no more CMX, and fewer cycles than p's ops
 * have taken so far (the makespan only grows as a walk goes on). Such a
 * plan never survives acs_cas_pareto, nor does its presence remove
 * another that the dominating plan does not, so the front is unchanged.
 * O(nknown) more per plan. rc (may be NULL) keeps the regions of pass 1
 * for the next plan of the same stripes (walk.h).
 */
struct acs_cas_regions;  /* walk.h */
int acs_cas_walk_known(const struct acs_cas_env *env, const struct acs_cas_group *g,
                       struct acs_cas_plan *p, const struct acs_cas_plan *known,
                       int32_t nknown, struct acs_cas_regions *rc);

/* ---- plans (plans.c) ---- */

/*
 * Every plan of group g in context in_cmx that the option grid allows,
 * costed by the walk, in a deterministic order (*n of them, malloc'd).
 * With cull, only the Pareto-efficient ones in (mem, cycles) per output
 * home, sorted by (out_home, mem, cycles). O(grid * walk).
 */
int acs_cas_plans(const struct acs_cas_env *env, const struct acs_cas_opts *o,
                  const struct acs_cas_group *g, uint32_t in_cmx, int cull,
                  const volatile sig_atomic_t *interrupted,
                  struct acs_cas_plan **out, int32_t *n);

/* ---- plans kept across runs (pcache.c) ---- */

struct acs_sched_cache;
struct acs_cas_pset;

/*
 * The plans kept in `cache` for network `digest` on platforms like plat
 * (all but the CMX size and the barrier pass's parameters) with options o
 * (the budget aside); NULL without a cache or a digest, or when out of
 * memory (the run then plans alone). May free the least recently used
 * set: a set is good until the next call.
 */
struct acs_cas_pset *acs_cas_pset_get(struct acs_sched_cache *cache, const char *digest,
                                      const struct acs_platform *plat,
                                      const struct acs_cas_opts *o);
/*
 * acs_cas_plans(env, o, g, ctx, cull 1) without env's memory limit, made
 * once per set: *v points into the set until the next call. A run with a
 * limit uses those of mem <= it (the same plans, in the same order, as
 * with the limit: pcache.c says why). ACS_ELIMIT when they would pass the
 * cache's bytes; ACS_EINTERRUPTED, ACS_ENOMEM, ACS_ERANGE.
 */
int acs_cas_pset_plans(struct acs_cas_pset *ps, const struct acs_cas_env *env,
                       const struct acs_cas_opts *o, const struct acs_cas_group *g,
                       uint32_t ctx, const volatile sig_atomic_t *interrupted,
                       const struct acs_cas_plan **v, int32_t *n);

/* The most the plans kept in `cache` may take (0: 128 MiB, the default;
 * tests set less to reach a full set), and what they take now; 0 without
 * a cache or when out of memory. */
size_t acs_cas_pcache_limit(struct acs_sched_cache *cache, size_t bytes);
size_t acs_cas_pcache_bytes(struct acs_sched_cache *cache);

/* Keeps the Pareto-efficient items of a (mem, cycles) array in place,
 * sorted by mem; ties keep the first. Returns the count. O(n log n). */
int32_t acs_cas_pareto(struct acs_cas_plan *p, int32_t n);

/* ---- proposals (proposals.c) ---- */

struct acs_cas_point {
  int64_t mem, cycles;
};

struct acs_cas_result {
  int32_t nplans;
  struct acs_cas_plan *plans;   /* the chosen proposal, in Part order */
  int32_t nfront;
  struct acs_cas_point *front;  /* the final Pareto front, by memory */
  int32_t chosen;               /* index of the chosen point in front */
  int64_t budget;               /* bytes */
  int64_t groups_tried, plans_costed;
  /* Every front point's proposal, for the lowering's fallback when a
   * placement fragments: plans of point k are
   * all_plans[all_off[k] .. all_off[k + 1]). */
  int32_t *all_off;
  struct acs_cas_plan *all_plans;
};

/*
 * The seed's step 3: the Pareto front of proposals covering every Part and
 * the best one within `budget` bytes. ACS_EINFEASIBLE (with the smallest
 * memory any proposal needs in d) when none fits, ACS_EINTERRUPTED,
 * ACS_ENOMEM. O(N P K (Q + log K)) for N Parts, groups of at most P Parts,
 * K proposals per state and Q plans per group, plus step 2's plans.
 */
int acs_cas_propose(const struct acs_cas_env *env, const struct acs_cas_opts *o, int64_t budget,
                    const volatile sig_atomic_t *interrupted, struct acs_cas_result *r,
                    struct acs_diag *d);
/* ACS_EINFEASIBLE, saying what the smallest proposal needs (no point of a
 * filled result fits its budget). */
int acs_cas_result_none(const struct acs_cas_result *r, struct acs_diag *d);
/* Makes front point k the chosen one: r->plans, r->nplans its proposal. */
int acs_cas_result_pick(struct acs_cas_result *r, int32_t k);
void acs_cas_result_free(struct acs_cas_result *r);

/* ---- lowering (lower.c) ---- */

/* What each op of a lowered schedule is, for the checker (check.c): a
 * compute op computes `box` of Part `part`'s output Tensor `tensor`; a
 * load brings `box` of `tensor` from DDR; a store writes it back. */
enum { ACS_CAS_OP_OTHER, ACS_CAS_OP_COMPUTE, ACS_CAS_OP_LOAD, ACS_CAS_OP_STORE };
struct acs_cas_tag {
  int32_t what, part, tensor;
  struct acs_lbox box;
};

/*
 * Lowers the plans of one proposal into s (whose ops are cleared first):
 * places tensors and buffers within `budget` bytes; ACS_EINFEASIBLE when
 * the placement fragments beyond it. Sets s->norig = s->nops (every op is
 * the network's work: no spill). With tags, *tags gets one per op of s
 * (malloc'd; NULL on error).
 */
int acs_cas_lower(const struct acs_cas_env *env, const struct acs_cas_plan *plans, int32_t n,
                  int64_t budget, struct acs_schedule *s, struct acs_cas_tag **tags,
                  struct acs_diag *d);

/* ---- the variant (variant.c) ---- */

/*
 * Steps 1-4 on the inferred layer graph lg: the proposal within the budget
 * (o->budget_kib, or out's CMX) lowered into out (initialised for a problem
 * on plat, whose ops it replaces), checked by acs_cas_check, with the result
 * tables and the bound of its own ops. pset: plans kept across runs, or
 * NULL (the same schedule either way).
 * ACS_EINFEASIBLE with the reason in d, ACS_EVERIFY (a failed check),
 * ACS_EINTERRUPTED, ACS_ENOMEM, ACS_ERANGE.
 */
int acs_cas_schedule(const struct acs_lgraph *lg, const struct acs_platform *plat,
                     const struct acs_cas_opts *o, const volatile sig_atomic_t *intr,
                     struct acs_cas_pset *pset, struct acs_schedule *out,
                     struct acs_diag *d);

/* Adds the tables cascade_plans (shown) and cascade_front to s
 * (variant.c). */
int acs_cas_tables(const struct acs_cas_env *env, const struct acs_cas_result *r,
                   struct acs_schedule *s);

/* ---- the independent checker (check.c) ---- */

/*
 * Checks a lowered cascade schedule (tags: what each op is, from the
 * lowering) with code of its own, not the walk's: every compute op lasts
 * its work at the PE rate and every DMA its bytes at the DDR rate; what a
 * compute op reads, slot by slot (acs_lnode_input_box), is covered by its
 * data predecessors of that tensor; a load of an activation is covered by
 * stores of it, a store by the compute ops that made it (coverage decided
 * exactly by coordinate compression); every network output is computed
 * whole (an element of an inner tensor that no op reads need not be
 * computed: the reads above are covered transitively from the outputs
 * back); the peak CMX is at most the budget and `predicted`. The
 * common verifier adds what this leaves to it: precedence, residency of
 * each read range while its reader runs, no two live ranges overlapping
 * (so a ring slot is not overwritten while read). ACS_EVERIFY with the
 * first violation in d.
 */
int acs_cas_check(const struct acs_cas_env *env, const struct acs_cas_tag *tags,
                  int64_t budget, int64_t predicted, const struct acs_schedule *s,
                  struct acs_diag *d);

/* Helpers shared by the files of this folder. */
int acs_cas_env_init(struct acs_cas_env *env, const struct acs_cgraph *cg,
                     const struct acs_platform *plat, int64_t split, int res_pe, int res_dma);
static inline int64_t acs_cas_align(int64_t v, int64_t a)
{
  return a > 1 ? (v + a - 1) / a * a : v;
}
/* The H axis of a tensor of rank r (2 for N-D tensors of rank >= 3), -1. */
static inline int acs_cas_h_axis(int rank)
{
  return rank >= 3 ? 2 : -1;
}
/* The W axis (3 for rank >= 4), -1. */
static inline int acs_cas_w_axis(int rank)
{
  return rank >= 4 ? 3 : -1;
}
/* The channel axis (1 for rank >= 2), -1. */
static inline int acs_cas_c_axis(int rank)
{
  return rank >= 2 ? 1 : -1;
}

#endif
