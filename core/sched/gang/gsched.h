/*
 * gsched.h - the list-scheduling engine of one gang segment (lsched.c) and
 * what the retiming and buffer phases read from it (gsched.c).
 */
#ifndef ACS_SCHED_GANG_GSCHED_H
#define ACS_SCHED_GANG_GSCHED_H

#include "core/sched/gang/gang.h"

/* Tokens of edge e: arrived after the source's firings before k_excl,
 * needed by the destination's firing k, and the lowest still held once its
 * firing k has ended (at least the edge's base). DDR ends are unbounded.
 * Inline: the retiming, the loop vector and the engine evaluate them for
 * every edge and firing they look at. */
static inline int64_t acs_gang_e_arrived(const struct acs_gang_ctx *c, const struct acs_gang *gg,
                                         const struct acs_gang_edge *e, int64_t k_excl)
{
  if (e->src < 0)
    return INT64_MAX;
  if (gg->nodes[e->src].kind == ACS_GANG_N_PROC)
    return acs_sdf_avail(c->g, e->chan, k_excl);
  return k_excl;   /* a transfer moves token k at its firing k */
}

static inline int64_t acs_gang_e_need(const struct acs_gang_ctx *c, const struct acs_gang *gg,
                                      const struct acs_gang_edge *e, int64_t k)
{
  if (gg->nodes[e->dst].kind == ACS_GANG_N_PROC)
    return acs_sdf_need(c->g, e->chan, k);
  return k + 1;
}

static inline int64_t acs_gang_e_release(const struct acs_gang_ctx *c, const struct acs_gang *gg,
                                         const struct acs_gang_edge *e, int64_t k)
{
  int64_t v;

  if (e->dst < 0)
    return INT64_MAX;
  if (gg->nodes[e->dst].kind == ACS_GANG_N_PROC)
    v = acs_sdf_release(c->g, e->chan, k);
  else
    v = k + 1;
  return v > e->base ? v : e->base;
}

/* Cycles of node n's firing k. */
static inline int64_t acs_gang_node_dur(const struct acs_gang_ctx *c,
                                        const struct acs_gang_node *n, int64_t k)
{
  const struct acs_sdf_seq *ex;

  if (n->kind != ACS_GANG_N_PROC)
    return n->xtime;
  ex = &c->g->actors[n->actor].exec;
  return ex->n == 1 ? ex->v[0] : acs_sdf_seq_at(ex, k);   /* most actors: no division */
}

/* Idle time on hardware `hw` before a firing of `node` (whose latest input
 * came from `crit`, -1 none). */
struct acs_gang_slack {
  int32_t hw, node;
  int64_t gap;
  int32_t crit;
};

/* The token counts of an edge that the readiness tests compare: arrived
 * at the consumer, reserved by started producer firings after the
 * producer's next start, released by the consumer, needed by the
 * consumer's next firing; and the two verdicts they give: the consumer
 * lacks tokens (short), the producer's next start lacks space (full).
 * A DDR source's arr is INT64_MAX. */
struct acs_gang_etok {
  int64_t arr, resv_next, rel, need;
  int64_t cap;           /* the edge's capacity in this run (INT64_MAX: never full) */
  char short_in, full_out;
};

/* A node's state while a segment runs: its next firing, when its running
 * firing ends (running: one does), when its last firing ended, since when
 * a ready firing has waited for space on edge blk_edge (-1: it has not);
 * its hardware (PEs, then DMA channels); how many of its input edges lack
 * tokens and how many of its output edges lack space. */
struct acs_gang_nstate {
  int64_t nxt, run_end, last_end, blk_since;
  int32_t blk_edge, hw, nshort, nfull;
  char running;
};

struct acs_gang_run {
  const struct acs_gang_ctx *c;
  const struct acs_gang *gg;
  int64_t *from, *to;    /* per node: firings [from, to) to schedule (set by the caller) */
  int caps;
  /* results */
  int ok;                /* every firing scheduled */
  int32_t dead_edge;     /* when not: an edge whose lack of space stopped it, or -1 */
  int64_t makespan;
  int64_t *off;          /* t_start[off[v] + k - from[v]] is firing k of v */
  int64_t *t_start;
  size_t cap_start;      /* t_start's room, kept from segment to segment */
  int64_t *hw_end;       /* last end per hardware (PEs, then DMA channels) */
  struct acs_gang_slack *slack;   /* recorded without capacities only */
  size_t nslack, cap_slack;
  int64_t *edge_block;   /* longest wait for space per edge */
  int32_t *edge_block_hw;
  /* state: per edge and per node, one record each, kept up to date at
   * each start and end, so a node's readiness is two counters */
  struct acs_gang_etok *tok;
  struct acs_gang_nstate *node;
  int64_t *idle_since;   /* per hardware: since when it is idle */
  char *hw_busy;
  int32_t *runq;         /* the running nodes (at most one per hardware), any order */
  int32_t nrun;
  int64_t ddr_busy;      /* DDR transfers running (the link carries xp.lanes at once) */
  /* Bit sets over priority positions (pos[v]: v's position in gg->prio),
   * nwords words each: act holds the nodes a pass has to look at (not
   * running, firings left, inputs there, and either room on every output
   * or a wait for space not yet recorded), idle the nodes whose hardware
   * is free, ddr_nodes the nodes that need the DDR link, hw_nodes (per
   * hardware) the nodes on it. */
  uint64_t *act, *idle, *ddr_nodes, *hw_nodes;
  int32_t *pos, nwords;
  /* The token functions of each edge and the duration of each node in
   * closed form where they are linear (lsched.c). */
  struct acs_gang_efn *fn;
  int64_t *dur1;         /* per node: every firing's duration, or -1 */
  void *block;           /* the allocation of every fixed-size array above */
};

int acs_gang_run_init(struct acs_gang_run *r, const struct acs_gang_ctx *c,
                      const struct acs_gang *gg);
void acs_gang_run_free(struct acs_gang_run *r);
/* Schedules the segment; r->ok tells whether it completed. */
int acs_gang_run_segment(struct acs_gang_run *r, int caps);

/* Segment ranges for retiming r: preamble [f0, f0 + r), one loop iteration
 * [f0 + r, f0 + r + qL), postamble after L iterations (gsched.c). */
void acs_gang_set_pre(const struct acs_gang *gg, const int64_t *r, struct acs_gang_run *run);
void acs_gang_set_body(const struct acs_gang *gg, const int64_t *r, struct acs_gang_run *run);
void acs_gang_set_post(const struct acs_gang *gg, const int64_t *r, int64_t L,
                       struct acs_gang_run *run);

#endif
