/*
 * bprog.h - the barrier program of a schedule, read back from its fields.
 *
 * Hardware model (seed 000, "Barrier Slots and Wait Lists", and what it
 * leaves implicit). A physical barrier is a counter that is programmed for
 * one *use* at a time: a set of producers (ops that update it when they end,
 * each taking its slot demand out of the barrier's `barrier_slots`) and a set
 * of consumers (ops that wait on it and start only when every producer of the
 * use has ended). A use is complete when all its producers have ended and
 * all its consumers have started; only then may the barrier be programmed for
 * its next use (a consumer that has not started yet would otherwise see the
 * next use's state and wait on the wrong producers).
 *
 * A schedule stores the program op by op: update_barrier (the physical id an
 * op updates) and waits (op, physical id). The uses are recovered by this
 * rule, which is the contract between the barrier pass (core/sched/npu/barrier.c),
 * the verifier and the simulation:
 *  - ops are taken in topological order by planned start (ties by id);
 *  - an op that updates barrier B opens a new use of B when B has none yet,
 *    or when one of its direct predecessors is a producer or a consumer of
 *    B's current use (it then comes after that use); otherwise it joins B's
 *    current use as one more producer;
 *  - a wait (v, B) consumes the latest use of B among v's direct
 *    predecessors (earlier uses of B are complete before that one is
 *    programmed, so waiting on the latest covers them).
 * O((V + E) log V + E * w) for at most w waits per op.
 */
#ifndef ACS_MODEL_BPROG_H
#define ACS_MODEL_BPROG_H

#include "core/model/schedule.h"

/* Producer slots an op takes on the barrier it updates: 1 for a DMA (one
 * descriptor), otherwise its `slots` (a DPU op's workloads), at least 1. */
static inline int64_t acs_barrier_slot_demand(const struct acs_sop *o)
{
  return o->kind == ACS_OP_DMA || o->slots < 1 ? 1 : o->slots;
}

struct acs_bprog {
  int32_t nops, nuses;
  int32_t *use_of;            /* per op: the use it produces, -1 none */
  int32_t *wait_use;          /* per entry of s->waits: the use consumed, -1 none */
  int32_t *barrier;           /* per use: its physical barrier */
  int32_t *prev;              /* per use: the previous use of that barrier, -1 */
  int64_t *slots;             /* per use: slot demand of its producers */
  int32_t *prod_off, *prod;   /* producers of use u: prod[prod_off[u] .. prod_off[u+1]) */
  int32_t *cons_off, *cons;   /* distinct consumers of each use, same layout */
  int32_t *order;             /* the ops in the order the rule took them */
  int32_t *pred_off, *pred;   /* direct predecessors over s->edges, CSR */
  int32_t *succ_off, *succ;   /* direct successors, CSR */
};

/* ACS_OK; ACS_ECYCLE when the edges have a cycle; ACS_EINVAL for an edge or
 * wait outside the ops; ACS_ENOMEM. */
int acs_bprog_build(const struct acs_schedule *s, struct acs_bprog *bp);
void acs_bprog_destroy(struct acs_bprog *bp);

/* 1 when s carries a barrier program (some op updates a barrier). */
int acs_bprog_present(const struct acs_schedule *s);

/* The largest number of uses of s's program that can be live at once in
 * some execution: the width of the order of uses, by Dilworth's theorem
 * (bprog_width.c). s must pass the verifier's barrier checks (the uses of
 * each barrier must form a chain). ACS_ERANGE when the program is too large
 * for the exact computation (the verifier's bound needs none). */
int acs_bprog_use_width(const struct acs_schedule *s, int32_t *width);

#endif
