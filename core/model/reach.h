/*
 * reach.h - reachability in a DAG without its transitive closure: the
 * transitive reduction (which edges are implied by others) and batches of
 * reachability queries, for graphs of 10^5 nodes and more.
 *
 * Both work on the same idea: bit-parallel forward propagation from a batch
 * of up to ACS_REACH_BATCH source nodes at once, each node holding one bit
 * per source, swept in topological order. A batch only sweeps the window of
 * the topological order between its first source and the last node it
 * needs, so the local queries that barrier programs ask (an op and the ops
 * that start soon after it) cost far less than the worst case. Memory is
 * O(V * ACS_REACH_BATCH / 8) bytes for the bits of one batch, never V^2.
 */
#ifndef ACS_MODEL_REACH_H
#define ACS_MODEL_REACH_H

#include "core/acs.h"

/* Sources per batch: 8 words of bits per node. */
#define ACS_REACH_WORDS 8
#define ACS_REACH_BATCH (64 * ACS_REACH_WORDS)

/* A DAG in CSR form, both directions, with a topological order. */
struct acs_dag {
  int32_t n;
  int32_t *succ_off, *succ;  /* out-edges: succ[succ_off[v] .. succ_off[v + 1]) */
  int32_t *pred_off, *pred;  /* in-edges, same layout */
  int32_t *pred_edge;        /* per in-edge entry: the index of the same edge in succ */
  int32_t *topo;             /* the nodes in a topological order */
  int32_t *pos;              /* pos[v]: index of v in topo */
};

/* CSR lists: off[] (n + 2 entries, zeroed) and idx[] (m entries): for each
 * key k, idx[off[k] .. off[k + 1]) lists val[i] (i when val is NULL) of the
 * items i with key[i] == k, in item order; at[i] (at may be NULL) gets
 * where item i went. O(n + m). */
void acs_csr_fill(int32_t n, int32_t m, const int32_t *key, const int32_t *val, int32_t *off,
                  int32_t *idx, int32_t *at);

/* Kahn's topological order of n nodes with CSR successor lists, taking the
 * ready node of smallest (key[v], v) (key may be NULL: by id), into
 * order[0 .. n). ACS_OK, ACS_ECYCLE or ACS_ENOMEM. O((V + E) log V). */
int acs_topo_order(int32_t n, const int32_t *succ_off, const int32_t *succ, const int64_t *key,
                   int32_t *order);

/*
 * Builds g from m edges (src[i], dst[i]) over n nodes. The topological order
 * is Kahn's, taking the ready node of smallest (key[v], v) (key may be NULL:
 * by id), so it follows e.g. planned starts wherever the edges allow.
 * Returns ACS_OK, ACS_ECYCLE, ACS_EINVAL (a node outside [0, n)) or
 * ACS_ENOMEM. O((V + E) log V).
 */
int acs_dag_build(struct acs_dag *g, int32_t n, int32_t m, const int32_t *src,
                  const int32_t *dst, const int64_t *key);

struct acs_schedule;
/* A schedule's edges as a DAG over its ops, ordered by planned start (the
 * barrier pass and the barrier program's checker both reason on it). */
int acs_schedule_edge_dag(const struct acs_schedule *s, struct acs_dag *g);
void acs_dag_destroy(struct acs_dag *g);

/*
 * The transitive reduction: keep[k] = 1 for the out-edge succ[k] of g unless
 * a path of two or more edges joins its ends, or it repeats an earlier edge
 * between the same nodes. Only nodes with two or more distinct successors
 * can have implied edges, so only they are sources. O(V + E) plus
 * O((V + E) * S / 64) word operations for S such nodes in the worst case
 * (less when edges are local in the order, and where few nodes of a
 * batch's window are reached from its sources: an unreached predecessor
 * costs one byte, not a row of bits).
 */
int acs_dag_reduce(const struct acs_dag *g, uint8_t *keep);

/*
 * nq reachability queries: ans[i] = 1 when qsrc[i] reaches qdst[i] by a path
 * of zero or more edges (a node reaches itself), else 0. O(V + E + Q log Q)
 * (a query an edge answers costs no more) plus O((V + E) * S / 64) word
 * operations for the S distinct sources of the others in the worst case. ACS_OK or ACS_ENOMEM (ACS_EINVAL for a node outside the graph).
 */
int acs_dag_reach(const struct acs_dag *g, int32_t nq, const int32_t *qsrc,
                  const int32_t *qdst, uint8_t *ans);

#endif
