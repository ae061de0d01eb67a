/*
 * loop.h - a loop body for modulo scheduling (seed 001), and its unrolling
 * into the op DAG the other schedulers see.
 *
 * A loop is a set of ops, each bound to a resource class, and edges between
 * them. A class has a latency (cycles from an op's start until its result is
 * ready), a blocking time (cycles an op occupies one unit of the class) and
 * a limit (units available; ACS_LOOP_UNLIMITED for none). An edge i -> j
 * with an extra delay D and an iteration distance d constrains the start
 * times of a modulo schedule with initiation interval II by
 *
 *     t_j + d * II >= t_i + latency(class of i) + D,
 *
 * the semantics of the HatScheT / Oppermann benchmark files (their verifier
 * and their RecMII computation). As HatScheT does, a limited class with a
 * blocking time of 0 blocks its unit for one cycle (acs_loop_blocking).
 *
 * The platform may override the unit count of any class (its `units` list,
 * core/model/platform.h); acs_loop_units resolves the counts a run uses.
 */
#ifndef ACS_MODEL_LOOP_H
#define ACS_MODEL_LOOP_H

#include "core/model/graph.h"
#include "core/model/platform.h"
#include "core/model/schedule.h"

#define ACS_LOOP_UNLIMITED (-1)
/* Largest latency, blocking time, delay, distance or unit count accepted:
 * far beyond any hardware, small enough that sums over a loop never
 * overflow int64. */
#define ACS_LOOP_VALUE_MAX 1000000

struct acs_loop_class {
  const char *name;
  int64_t latency, blocking, limit;
  int32_t line;          /* where it is defined, for diagnostics */
};

struct acs_loop_op {
  const char *name;
  int32_t cls;
  int32_t line;
};

struct acs_loop_edge {
  int32_t src, dst;
  int64_t delay, distance;
  int32_t line;
};

struct acs_loop {
  struct acs_arena arena;
  const char *name;      /* file stem */
  const char *path;      /* the graph file */
  const char *rm_path;   /* the resource model file (GraphML input), or NULL */
  int32_t nclasses, nops, nedges;
  size_t cap_classes, cap_ops, cap_edges;
  struct acs_loop_class *classes;
  struct acs_loop_op *ops;
  struct acs_loop_edge *edges;
};

int acs_loop_init(struct acs_loop *l, const char *name, const char *path);
void acs_loop_destroy(struct acs_loop *l);
/* Append (names copied); return the index or a negative error. */
int32_t acs_loop_add_class(struct acs_loop *l, const char *name, int64_t latency,
                           int64_t blocking, int64_t limit, int32_t line);
int32_t acs_loop_add_op(struct acs_loop *l, const char *name, int32_t cls, int32_t line);
int acs_loop_add_edge(struct acs_loop *l, int32_t src, int32_t dst, int64_t delay,
                      int64_t distance, int32_t line);

/*
 * Checks what the readers cannot see one row at a time: every value in
 * range, every op on a class, and no cycle of distance 0 (it would make
 * one iteration wait for itself; the message names the ops on it, located
 * at the line of its first edge). O(V + E).
 */
int acs_loop_check(const struct acs_loop *l, struct acs_diag *d);

/*
 * The unit count of every class on platform p: the platform's override of
 * the class when it has one, else the class's limit. units[] has nclasses
 * entries (ACS_LOOP_UNLIMITED for none). O(C * |p->units|).
 */
void acs_loop_units(const struct acs_loop *l, const struct acs_platform *p, int64_t *units);

/* Cycles an op of class c occupies one unit when the class has `units`
 * units: the blocking time, at least 1; 0 for an unlimited class. */
static inline int64_t acs_loop_blocking(const struct acs_loop *l, int32_t c, int64_t units)
{
  if (units == ACS_LOOP_UNLIMITED)
    return 0;
  return l->classes[c].blocking > 0 ? l->classes[c].blocking : 1;
}

/*
 * Unrolling. Each loop op becomes, in every iteration k, a few graph ops
 * named after it (acs_loop_layout_init fixes the layout; the graph build and
 * the modulo lowering both follow it, so op indices agree):
 *  - "NAME@k", the issue: it holds one unit of a limited class for
 *    min(latency, blocking) cycles (an unlimited class: latency cycles, no
 *    unit);
 *  - "NAME@k.lat" when latency > blocking (limited): the rest of the latency,
 *    holding nothing (a pipelined unit is free again while its result is on
 *    its way);
 *  - "NAME@k.hold" when blocking > latency (limited): the rest of the
 *    blocking time on the unit, after the result is ready;
 *  - "NAME@k+D" for each distinct positive delay D of the op's out-edges, a
 *    chain of waits holding nothing, ending D cycles after the result is
 *    ready: an edge with delay D starts there.
 * An edge i -> j of distance d links iteration k of i to iteration k + d of
 * j when k + d < N. The result is a DAG when the loop passed acs_loop_check.
 */
enum acs_loop_part { ACS_LOOP_PART_ISSUE, ACS_LOOP_PART_LAT, ACS_LOOP_PART_HOLD,
                     ACS_LOOP_PART_DELAY };

struct acs_loop_layout {
  int32_t nops;          /* loop ops */
  int32_t iterations;    /* N */
  int32_t per_iter;      /* graph ops per iteration */
  int32_t *first;        /* nops + 1: graph op index (within an iteration) of
                          * each loop op's issue; its parts follow it */
  int64_t *ready_off;    /* per loop op: cycles from issue start to result */
  int64_t *delays;       /* per loop op, distinct positive out-delays, sorted,
                          * at delay_off[i] .. delay_off[i+1] */
  int32_t *delay_off;
  int64_t *units;        /* per class, as acs_loop_units */
};

/* O(V + E log E). */
int acs_loop_layout_init(struct acs_loop_layout *lay, const struct acs_loop *l,
                         const struct acs_platform *p);
void acs_loop_layout_destroy(struct acs_loop_layout *lay);
/* Graph op index (within an iteration) of the op an edge of delay D from
 * loop op i leaves: the op that ends D cycles after i's result. */
int32_t acs_loop_layout_source(const struct acs_loop_layout *lay, const struct acs_loop *l,
                               int32_t i, int64_t delay);

/*
 * Builds the unrolled DAG of N = loop_iterations iterations into g
 * (initialised here, finalized): one named resource per limited class that
 * some op uses (capacity: its unit count), the ops above with their
 * durations and demands, and the edges. ACS_ERANGE when the loop has more
 * limited classes than a graph has resources; ACS_ELIMIT, before the graph
 * is allocated, when N iterations exceed the limits (acs.h). O(N (V + E));
 * polls acs_interrupt_pending().
 */
int acs_loop_build_graph(const struct acs_loop *l, const struct acs_platform *p,
                         struct acs_graph *g, struct acs_diag *d);

/*
 * Cycles per iteration of a schedule of the N unrolled iterations: the end
 * of the last op over N (simulated ends when `simulated`, planned ones
 * otherwise), pipeline fill and drain included, so modulo and DAG
 * schedulers compare on the same work; a modulo schedule's tends to II as
 * N grows ((N - 1) II + one iteration's span, over N). NaN when s is not
 * such a schedule or an op lacks the times. O(V).
 */
double acs_loop_cycles_per_iter(const struct acs_loop *l, const struct acs_platform *p,
                                const struct acs_schedule *s, int simulated);

#endif
