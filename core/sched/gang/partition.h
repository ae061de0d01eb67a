/*
 * partition.h - the state of the partition search (partition.c), shared
 * with the move validity checks (moves.c). Not part of any interface.
 */
#ifndef ACS_SCHED_GANG_PARTITION_H
#define ACS_SCHED_GANG_PARTITION_H

#include "core/sched/gang/gang.h"

struct acs_gang_slot {
  int alive;
  int32_t nact;
  int32_t *act;          /* sorted */
  /* The committed members and their mapping (acs_gang_map), which expected gains
   * start from; a look-ahead (depth > 1) changes act and nact for a while,
   * never these. mact is act as committed. */
  int32_t mn, *mact, *pe;
  struct acs_gang gg;     /* its shortest realization (realize.c) */
  int64_t opt;           /* optimal cost of the mapping */
};

/* An edge of the unit graph (the actor graph over SCCs), for acs_gang_move_allowed:
 * units su -> du, and whether a channel along it leaves an actor that is
 * not fully pipelineable. */
struct acs_gang_uedge {
  int32_t su, du;
  int nonfull;
};

struct acs_gang_search {
  struct acs_gang_ctx *c;
  struct acs_gang_setcache oc;
  struct acs_gang_setcache gc;      /* scheduled gangs: cost = total cycles, rc = ok */
  int32_t *qoff, *qdst, *qfill;   /* the gang graph by source, for moves.c */
  int32_t *qindeg, *queue;        /* its in-degrees and Kahn's queue, for moves.c */
  struct acs_gang_uedge *uedge;            /* the unit graph's edges, each once, by source unit */
  int32_t nuedge;
  int32_t *uout_off;              /* unit x's edges: uedge[uout_off[x] .. uout_off[x + 1]) */
  int32_t *uin_off, *uin;         /* and the ones into it: uedge[uin[uin_off[x] ..]] */
  /* The current gang graph (move_quick): its topological positions and
   * its edges by source (CSR), valid while gpos_ok is 1 (-1 after the
   * partition changed); marks and a queue for searching it. */
  int32_t *gpos, *gq_off, *gq_dst, *gmark, *gin, *gbfs, *gvis, gstamp, gvstamp;
  int gpos_ok;
  int32_t *members;               /* a gang's members after a move, for expected_gain */
  int32_t *ic_act, *ic_pe;        /* incremental_cost's members and PEs */
  int64_t *ic_pm;                 /* and its program memory per PE */
  const struct acs_gang_opts *o;
  int32_t na, nslots;
  int32_t *gang_of;      /* actor -> slot */
  struct acs_gang_slot *slots;
  int32_t *order;        /* actors in the target order */
  int32_t *topo_pos;     /* actor -> position in topological order */
  int32_t *unit_off, *unit_act;   /* actors of each SCC (CSR) */
  struct acs_diag *d;
};

/* The unit graph and the scratch of the move checks (moves.c), built
 * once per partition search; freed by acs_gang_unit_graph_free. */
int acs_gang_unit_graph(struct acs_gang_search *ps);
void acs_gang_unit_graph_free(struct acs_gang_search *ps);
/* Whether unit u may move into slot t: no non-pipelineable kernel joins
 * or is joined, no channel from a kernel that is not fully pipelineable
 * becomes internal, and the gang graph stays acyclic. The partition must
 * call acs_gang_moves_changed whenever gang_of changes. */
int acs_gang_move_allowed(struct acs_gang_search *ps, int32_t u, int32_t t);
static inline void acs_gang_moves_changed(struct acs_gang_search *ps)
{
  ps->gpos_ok = -1;
}

#endif
