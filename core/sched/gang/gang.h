/*
 * gang.h - internals of the SDF scheduler family (seed 004): gang
 * partitioning, mapping, per-gang pipelined schedules, control programs,
 * the baselines (sequential, tiling, naive-list), the plan every variant
 * produces, its independent checker and its lowering to the common
 * schedule. Not part of the library's interface.
 *
 * Vocabulary (seed 004, chapters 3 and 5): a *gang* is a set of actors
 * whose kernels are loaded together and run as one software-pipelined
 * schedule (preamble, loop body repeated L times, postamble); gangs run one
 * after another and exchange data through DDR. Inside a gang, the CUKG
 * (actors and channels) becomes a CAKG: a transfer node per channel whose
 * ends sit on different PEs (local DMA transfer), and per channel entering
 * or leaving the gang (a DDR read or write).
 */
#ifndef ACS_SCHED_GANG_GANG_H
#define ACS_SCHED_GANG_GANG_H

#include <signal.h>
#include <stdio.h>

#include "core/model/ddrlink.h"
#include "core/model/platform.h"
#include "core/model/sdf.h"
#include "core/sched/sched.h"

/* ---- the platform as the SDF schedulers see it ---- */

struct acs_gang_plat {
  const struct acs_platform *p;
  int32_t npe, ndma;
  int64_t vmem;          /* bytes of one PE's VMEM for buffers (aligned down) */
  int64_t pmem;          /* bytes of one PE's program memory */
  int64_t align;         /* buffer slots are multiples of this */
  /* DDR transfers the DDR link carries at once, each at its full rate
   * (acs_ddrlink_lanes: 1 unless DDR is faster than a DMA engine). The
   * plans never put more on the link, so no transfer is ever slowed by
   * another and SimGrid, which shares the link's bandwidth among the
   * transfers it carries, replays a plan exactly. */
  int64_t lanes;
};

/* Fails (ACS_EINFEASIBLE, message in d) when the platform has no VMEM or
 * PMEM (pe_vmem_kib, pe_pmem_kib = 0). */
int acs_gang_plat_init(struct acs_gang_plat *xp, const struct acs_platform *p, struct acs_diag *d);
int64_t acs_gang_slot_bytes(const struct acs_gang_plat *xp, int64_t token_bytes);

/* ---- the plan: what every SDF variant produces ---- */

enum acs_gang_act_kind { ACS_GANG_FIRE, ACS_GANG_XFER, ACS_GANG_LOAD };
enum acs_gang_xfer_kind { ACS_GANG_X_LOCAL, ACS_GANG_X_IN, ACS_GANG_X_OUT };

/* One activity: a firing on a PE, a token transfer or a kernel load on a DMA
 * channel. */
struct acs_gang_act {
  uint8_t kind;          /* enum acs_gang_act_kind */
  uint8_t xk;            /* enum acs_gang_xfer_kind (ACS_GANG_XFER) */
  int32_t actor;         /* ACS_GANG_FIRE, ACS_GANG_LOAD */
  int32_t chan;          /* ACS_GANG_XFER */
  int64_t k;             /* ACS_GANG_FIRE: firing index; ACS_GANG_XFER: token index */
  int32_t unit;          /* ACS_GANG_FIRE: PE; ACS_GANG_XFER, ACS_GANG_LOAD: DMA channel */
  int32_t pe;            /* ACS_GANG_XFER: destination PE (-1 DDR); ACS_GANG_LOAD: the PE */
  int32_t pe_from;       /* ACS_GANG_XFER: source PE (-1 DDR) */
  int64_t start, end;
  int64_t bytes;         /* ACS_GANG_XFER, ACS_GANG_LOAD */
  int64_t evict;         /* ACS_GANG_LOAD: when the kernel leaves the PMEM */
  int32_t gang;          /* gang (or pass) index; -1 none */
};

/* A token resident in a PE's VMEM over [alloc, free): reserved when the
 * activity that writes it starts, readable from `ready` (that activity's
 * end), released when the last reader that needs it ends. */
struct acs_gang_buf {
  int32_t chan;
  int64_t j;             /* token index on the channel */
  int32_t pe;
  int64_t offset;        /* address in the PE's VMEM */
  int64_t bytes;         /* slot bytes */
  int64_t alloc, ready, free;
  int32_t writer;        /* act index that writes it (-1: an initial token) */
};

struct acs_gang_plan {
  int32_t nacts, nbufs;
  size_t cap_acts, cap_bufs;
  struct acs_gang_act *acts;
  struct acs_gang_buf *bufs;
  int64_t makespan;
};

void acs_gang_plan_init(struct acs_gang_plan *pl);
void acs_gang_plan_free(struct acs_gang_plan *pl);
int32_t acs_gang_plan_add_act(struct acs_gang_plan *pl, const struct acs_gang_act *a);
int acs_gang_plan_add_buf(struct acs_gang_plan *pl, const struct acs_gang_buf *b);

/*
 * The independent checker (check.c): every firing of the run exactly once;
 * admissibility (eqs. 3.3/3.4 generalised to CSDF windows): every token a
 * firing reads is resident on its PE from before its start until its end,
 * written there by its producer on that PE or by a transfer; transfers read
 * resident or DDR-held tokens; every graph output token reaches DDR; no two
 * activities overlap on a PE or a DMA channel, and the DDR link carries no
 * more than xp.lanes transfers and loads at once (eq. 3.6);
 * VMEM (eq. 3.13, at every instant, and every buffer inside its PE's
 * segment, disjoint from the others) and PMEM (kernels resident at once)
 * within the platform; a kernel loaded before its firings (eq. 3.8);
 * pipeline classes (section 5.2.2: across a channel from an input- or
 * none-class kernel, or into a none-class one, the consumer's first firing
 * after the producer's last, unless both lie on a cycle).
 * Returns ACS_OK or ACS_EVERIFY with the first violation in d.
 * O((A + B) log (A + B) + F W) for A acts, B buffers, F firings reading W
 * tokens each.
 */
int acs_gang_check_plan(const struct acs_sdf_graph *g, const struct acs_gang_plat *xp,
                        const struct acs_gang_plan *pl, struct acs_diag *d);

/*
 * Lowering (lower.c): firing k of actor a becomes op base[a] + k of s (the
 * firing DAG's op), transfers and loads DMA ops, and every buffer a
 * zero-length holder op whose CMX range [pe * vmem + offset, + bytes) is
 * held over [alloc, free): the common schedule's CMX is the PEs' VMEMs side
 * by side, so the verifier checks every buffer against every other at every
 * instant. Edges: writer -> readers (data), holder -> readers (data, so the
 * verifier checks residency), releaser of a slot -> next writer of it and
 * load -> firings, last firing -> next load on the PE (control), so a
 * self-timed replay keeps every buffer and program memory safe.
 */
int acs_gang_lower(const struct acs_sdf_graph *g, const struct acs_gang_plat *xp,
                   const struct acs_gang_plan *pl, struct acs_schedule *s);

/* ---- CAKG: one gang's model ---- */

/* How a gang is scheduled (realize.c): the thesis's software pipeline; all
 * its firings list-scheduled at once (no loop); one actor's firings split
 * into a strip per PE (the tiling baseline's pass); or, for the whole
 * graph, kernels loaded on demand (the naive-list baseline's schedule). */
enum acs_gang_mode {
  ACS_GANG_MODE_PIPELINED,
  ACS_GANG_MODE_WHOLE,
  ACS_GANG_MODE_TILED,
  ACS_GANG_MODE_DYNAMIC
};
const char *acs_gang_mode_name(int mode);

enum acs_gang_node_kind { ACS_GANG_N_PROC, ACS_GANG_N_XLOCAL, ACS_GANG_N_XIN, ACS_GANG_N_XOUT };

struct acs_gang_node {
  uint8_t kind;
  int32_t actor;         /* ACS_GANG_N_PROC */
  int32_t chan;          /* transfers */
  int32_t hw;            /* PE (proc) or DMA channel (transfers) */
  int32_t pe_from, pe_to;/* transfers: -1 = DDR */
  int ddr;               /* needs the DDR link (DDR transfers) */
  int64_t f0, T;         /* firings f0 .. f0 + T - 1 (transfers: token indices) */
  int64_t xtime;         /* transfers: cycles per token */
  int64_t bytes;         /* transfers: bytes per token */
  /* loop region [lo, hi) of global firing indices, period lam; qL firings
   * per loop iteration (0: not in the loop) */
  int64_t lo, hi, lam, qL;
  int in_pre;            /* a node outside the loop: 1 all firings in the preamble, 0 postamble */
  int64_t level;         /* list-scheduling priority (longest path to a sink) */
};

struct acs_gang_edge {
  int32_t src, dst;      /* gang nodes; -1 = DDR */
  int32_t chan;
  int32_t pe;            /* VMEM that holds its tokens; -1 none */
  int64_t base;          /* lowest token index ever held here */
  int64_t slot;          /* slot bytes */
  int64_t cap;           /* slots; INT64_MAX = unbounded */
  int64_t offset;        /* slot base in the PE's VMEM */
  int64_t pmax, wmax;    /* most tokens one source firing writes / one destination firing holds */
};

/* Per-actor facts the gang model needs, computed once per graph. */
struct acs_gang_actor_info {
  int64_t lo, hi, lam;   /* loop region of the actor (global firing indices) */
  int64_t work;          /* cycles of all its firings */
  int64_t load;          /* cycles of its kernel's load from DDR */
};

/* Per channel, what it adds to a gang's cost (acs_gang_cost) over the
 * run: written to DDR (its source in the gang, not its destination), read
 * from DDR (the other way round), moved PE to PE (both in, apart); and the
 * cycles of one token through DDR and PE to PE. */
struct acs_gang_chan_cost {
  int64_t to_ddr, from_ddr, local;
  int64_t ddr_token, cmx_token;
};

struct acs_gang_ctx;

/* One gang: members, mapping, model and schedule. */
struct acs_gang {
  int32_t nact;
  int32_t *act;          /* actors, ascending */
  int32_t *pe;           /* pe[i] for act[i] */
  int32_t nnodes, nedges;
  struct acs_gang_node *nodes;
  struct acs_gang_edge *edges;
  int32_t *in_off, *in_e, *out_off, *out_e;   /* CSR over edges, DDR ends left out */
  int32_t *prio;         /* nodes by priority */
  int has_loop;          /* the model admits a loop body (acs_gang_loop_vector) */
  int whole;             /* set before scheduling: list-schedule every firing at once, no loop */
  int mode;              /* enum acs_gang_mode: how the schedule below was made */
  /* schedule */
  int ok;                /* 1: scheduled */
  int64_t *r;            /* preamble firings per node */
  int64_t L;             /* loop iterations */
  int64_t P, Pstar;      /* period and its eq. 5.1 bound */
  int64_t t_load, t_pre, t_post, total;
  int64_t bound;         /* the gang's optimal cost: max over PE, DMA, DDR of its busy time */
  int iters_r, iters_b;  /* iterations of the retiming and buffer phases */
};

void acs_gang_free(struct acs_gang *gg);

/* Everything the family shares for one run. */
struct acs_gang_ctx {
  const struct acs_sdf_graph *g;
  struct acs_gang_plat xp;
  struct acs_gang_actor_info *info;
  int64_t *wmax;         /* per channel: the largest window a consumer firing holds */
  struct acs_gang_chan_cost *ccost;   /* per channel */
  /* strongly connected components of the actor graph (moves move whole SCCs) */
  int32_t *scc, nscc;
  const volatile sig_atomic_t *interrupted;
  double deadline;       /* acs_now_seconds() limit, 0 = none */
  int64_t max_iter;      /* retiming / buffer iterations per phase */
  int searching;         /* partition moves: a gang whose loop does not fit is rejected */
  int modes;             /* gang: also the whole and tiled realizations of a gang (realize.c) */
};

int acs_gang_ctx_init(struct acs_gang_ctx *c, const struct acs_sdf_graph *g,
                      const struct acs_platform *p, struct acs_diag *d);
void acs_gang_ctx_free(struct acs_gang_ctx *c);
int acs_gang_interrupted(const struct acs_gang_ctx *c);
/* ACS_EINFEASIBLE naming the first actor whose kernel is larger than a PE's
 * program memory (no plan that loads kernels can run it), else ACS_OK. */
int acs_gang_kernels_fit(const struct acs_gang_ctx *c, struct acs_diag *d);

/*
 * Builds gang `gg` from its actors and their PEs (gg->act, gg->pe set):
 * processing nodes, transfer nodes (transfers on DMA channels balanced by
 * load), edges with their VMEM and token bases, loop regions and the loop
 * repetition vector, priorities (gang_graph.c). `channel_pe` maps channels whose
 * producer runs in an earlier gang to nothing: they are read from DDR.
 */
int acs_gang_build(const struct acs_gang_ctx *c, struct acs_gang *gg);
/* The loop repetition vector and the preamble/postamble placement of nodes
 * outside the loop (gsched.c; called by acs_gang_build). */
int acs_gang_loop_vector(const struct acs_gang_ctx *c, struct acs_gang *gg);

/* Building a gang model by hand (the tiling baseline's strips): nodes and
 * edges, then acs_gang_finish. */
struct acs_gang_builder {
  const struct acs_gang_ctx *c;
  struct acs_gang *gg;
  size_t cap_nodes, cap_edges;
};
int32_t acs_gang_add_node(struct acs_gang_builder *b, const struct acs_gang_node *n);
int acs_gang_add_edge(struct acs_gang_builder *b, int32_t src, int32_t dst, int32_t chan,
                      int32_t pe, int64_t base);
/* A transfer node of channel ch from PE `from` to PE `to` (-1 = DDR) moving
 * tokens f0 .. f0 + T - 1. */
struct acs_gang_node acs_gang_xfer_node(const struct acs_gang_ctx *c, int kind, int32_t ch,
                                        int32_t from, int32_t to, int64_t f0, int64_t T);
int acs_gang_finish(const struct acs_gang_ctx *c, struct acs_gang *gg);

/* The gang's optimal cost (eq. 5.1 over the whole gang: the busiest PE, DMA
 * channel or the DDR link, kernel loads included) for a mapping, without
 * building the model. O(members + channels). */
int64_t acs_gang_cost(const struct acs_gang_ctx *c, int32_t nact, const int32_t *act,
                      const int32_t *pe, int64_t *xfer_time);

/*
 * Schedules a built gang (gsched.c): the retiming phase (iterative list
 * scheduling of the loop body with unbounded buffers, raising preparations
 * behind the longest slack until the body meets the eq. 5.1 period), then
 * the buffer phase (the same with buffers, raised behind the longest
 * blocking within each PE's VMEM), then preamble and postamble. Sets ok = 0
 * (not an error) when the gang cannot be scheduled within VMEM.
 */
int acs_gang_schedule(const struct acs_gang_ctx *c, struct acs_gang *gg);

/*
 * Appends the gang's activities and buffers to the plan, starting at `t0`
 * (gsched.c: loads, preamble, L loop iterations, postamble). Returns the
 * end time in *t_end.
 */
int acs_gang_emit(const struct acs_gang_ctx *c, const struct acs_gang *gg, int32_t gang_index,
                  int64_t t0, struct acs_gang_plan *pl, int64_t *t_end);

/* ---- mapping ---- */

/*
 * Maps the actors of a gang onto PEs minimising the gang's optimal cost,
 * then its local transfer time, under the PMEM limit (mapping.c). Exact
 * branch and bound over symmetry-free assignments (identical PEs: a node
 * opens at most the next unused PE), pruned by load and transfer bounds and
 * seeded by a greedy solution, up to `budget` search nodes; beyond the
 * budget the best found (never worse than the greedy one improved by
 * single-node moves) is returned. Returns 1 when a mapping exists, 0 when
 * the kernels cannot fit the PMEM, < 0 on error.
 */
int acs_gang_map(const struct acs_gang_ctx *c, int32_t nact, const int32_t *act, int32_t *pe,
                 int64_t budget, int64_t *cost);

/*
 * The shortest schedule of a member set (realize.c): mapped by acs_gang_map
 * (pe[] gets the mapping, *opt its optimal cost) and pipelined, and with
 * ctx->modes also list-scheduled whole (within a node limit) and, for one
 * splittable actor, tiled; gg gets the shortest (ties keep the pipelined
 * one). Returns < 0 on error; *ok = 0 when no realization fits the PMEM or
 * the VMEM (gg is then empty).
 */
int acs_gang_realize(const struct acs_gang_ctx *c, int64_t map_budget, int32_t nact,
                     const int32_t *act, int32_t *pe, struct acs_gang *gg, int64_t *opt, int *ok);
/* A lower bound of every realization's cycles, without mapping or
 * scheduling: the DDR link's busy time, the work over the PEs, and the
 * largest actor's work unless it may be tiled. O(actors + channels). */
int64_t acs_gang_realize_floor(const struct acs_gang_ctx *c, int32_t nact, const int32_t *act);

/* ---- the control program ---- */

enum acs_gang_instr {
  ACS_GANG_I_LOAD,
  ACS_GANG_I_START_P,
  ACS_GANG_I_SYNC_P,
  ACS_GANG_I_START_T,
  ACS_GANG_I_SYNC_T
};
const char *acs_gang_instr_name(int instr);

/* ---- variants ---- */

/* Options of `gang` (and of `sequential`, `tiling` which reuse parts). */
struct acs_gang_opts {
  int64_t sort;          /* enum: topo, level, exec, rtopo, rlevel */
  int64_t zero_gain;
  int64_t depth;
  int64_t map_budget;
  int64_t gain_map;      /* incremental, exact */
  int64_t partition;     /* heuristic, ilp */
  int64_t max_iter;
  char program[ACS_OPT_STR_MAX];
};

/* A whole partition scheduled: gangs in execution order; or, when dyn is
 * set (and ngangs 0), the dynamic gang: the whole graph with kernels
 * loaded on demand, dyn its plan (dynamic.c). */
struct acs_gang_part {
  int32_t ngangs;
  struct acs_gang *gangs;
  int64_t makespan;
  struct acs_gang_plan *dyn;
};
void acs_gang_part_free(struct acs_gang_part *pt);

/* The thesis's partitioning heuristic (partition.c), or the singleton
 * partition when `singletons` is set (the sequential approach). */
int acs_gang_partition(struct acs_gang_ctx *c, const struct acs_gang_opts *o, int singletons,
                       struct acs_gang_part *out, struct acs_diag *d);
/* A cache of member sets (setcache.c): sorted actor lists to a cost and an
 * outcome. get returns the outcome with *cost, or -1 when the set is not
 * there; put records or overwrites one (ACS_ENOMEM). O(n) expected. */
struct acs_gang_setcache {
  size_t cap, n;
  uint64_t *key;
  int32_t **set;         /* set[i][0] = length, then the actors */
  int64_t *cost;
  int8_t *rc;
};
int acs_gang_setcache_get(const struct acs_gang_setcache *sc, int32_t n, const int32_t *act,
                          int64_t *cost);
int acs_gang_setcache_put(struct acs_gang_setcache *sc, int32_t n, const int32_t *act, int64_t cost,
                          int rc);
void acs_gang_setcache_free(struct acs_gang_setcache *sc);

/* The exact partition + mapping by ILP over optimal costs (ilp.c);
 * *lower gets the proven optimum of the sum of gang costs (a lower bound of
 * every gang schedule's makespan), or -1 when not proven. */
int acs_gang_partition_ilp(struct acs_gang_ctx *c, const struct acs_gang_opts *o, double time_limit,
                           struct acs_gang_part *out, int64_t *lower, struct acs_diag *d);

/* Emits a scheduled partition into a plan (gangs back to back). */
int acs_gang_part_emit(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                       struct acs_gang_plan *pl);

/*
 * The dynamic gang (dynamic.c): the naive-list baseline's schedule of the
 * whole graph (one gang whose kernels are loaded on demand and whose
 * firings go to any PE) replaces pt's gangs when it ends strictly before
 * pt->makespan. It is run with that limit and stops as soon as it cannot
 * beat it. Returns < 0 only on errors (a schedule naive-list cannot
 * finish is simply not kept).
 */
int acs_gang_dynamic_try(struct acs_gang_ctx *c, struct acs_gang_part *pt);
/* Appends the dynamic gang's plan to pl. */
int acs_gang_dyn_emit(const struct acs_gang_plan *dyn, struct acs_gang_plan *pl);
/* Its tables, control program (every activity at its time, loads where
 * they happen) and that program's check against the plan. */
int acs_gang_dyn_tables(const struct acs_gang_ctx *c, const struct acs_gang_plan *dyn,
                        struct acs_schedule *s);
int acs_gang_dyn_program_text(FILE *f, const struct acs_gang_ctx *c,
                              const struct acs_gang_plan *dyn);
int acs_gang_dyn_program_verify(const struct acs_gang_ctx *c, const struct acs_gang_plan *dyn,
                                const struct acs_gang_plan *pl, struct acs_diag *d);

/* The family's result tables with their columns (program.c). */
enum { ACS_GANG_RTAB_GANGS, ACS_GANG_RTAB_PARTITION, ACS_GANG_RTAB_PROGRAM };
int acs_gang_rtab_add(struct acs_schedule *s, int which, struct acs_rtab **t);

/* Result tables and the control program text (program.c). */
int acs_gang_part_tables(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                         struct acs_schedule *s);
int acs_gang_program_write(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                           const char *path, struct acs_diag *d);
/* The control program reproduces the plan (program.c; see there). */
int acs_gang_program_verify(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                            const struct acs_gang_plan *pl, struct acs_diag *d);

/* Whether actor a can be split into strips: no self-edge orders its
 * firings and no cycle holds it (tiling.c). */
int acs_gang_splittable(const struct acs_gang_ctx *c, int32_t a);
/* The tiling baseline's pass of a splittable actor, built (not scheduled):
 * one strip of consecutive firings per PE, each reading its input lines
 * (ghost lines included) from DDR and writing its output to DDR. */
int acs_gang_tiling_pass(const struct acs_gang_ctx *c, int32_t a, struct acs_gang *gg);

/* Baselines (tiling.c, naive.c): fill a plan. */
int acs_gang_tiling(struct acs_gang_ctx *c, const struct acs_gang_opts *o, struct acs_gang_plan *pl,
                    struct acs_diag *d);
int acs_gang_naive(struct acs_gang_ctx *c, struct acs_gang_plan *pl, struct acs_diag *d);
/* acs_gang_naive, stopped (ACS_OK, *done = 0, the plan partial) as soon as its
 * schedule cannot end before `limit` cycles (0: no limit); with `probe`
 * the plan gets no buffers (only its makespan is wanted). */
int acs_gang_naive_within(struct acs_gang_ctx *c, int64_t limit, int probe,
                          struct acs_gang_plan *pl, int *done, struct acs_diag *d);

/* The SDF side of `sequential` (variants.c). */
int acs__sdf_sequential(const struct acs_problem *pb, const struct acs_sched_ctx *ctx,
                        struct acs_schedule *out, struct acs_diag *d);

#endif
