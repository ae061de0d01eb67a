/*
 * cgraph.h - the CascaderGraph of seed 002 (step 1): Parts and Tensors.
 *
 * A Part is what the planner schedules as one unit: one node of the layer
 * graph after acs_lgraph_fuse (which has already merged each Conv or Gemm
 * with its BatchNormalization and activation, the seed's "scheduled
 * identically" case). Views (Reshape, Flatten, contiguous Concat: see
 * acs_lnode_is_view) are Parts too, flagged, since they move no data but
 * their propagators still map stripes. Each Part has one Propagator per
 * input slot (data and weights), from its output.
 *
 * A Tensor is a layer-graph tensor that Parts read or write: activations
 * and network inputs (with their producer Part, -1 for inputs, and their
 * consumers), and weights (read by one Part, striped with its output
 * channels). Element sizes are the platform's, given at build time.
 *
 * This lives with the scheduler, not in core/model: it is the planner's
 * derived working structure, rebuilt per platform, not a workload model.
 */
#ifndef ACS_SCHED_CASCADE_CGRAPH_H
#define ACS_SCHED_CASCADE_CGRAPH_H

#include "core/sched/cascade/propagator.h"

struct acs_cpart {
  int32_t node;                  /* layer-graph node */
  int view;                      /* moves no data (acs_lnode_is_view) */
  int nin;                       /* input slots, as the node's */
  int32_t *in;                   /* Tensor per slot, -1 for an omitted or parameter slot */
  struct acs_prop *prop;         /* per slot (the whole input where in[slot] < 0) */
  struct acs_iprop *iprop;       /* per slot, the integer form (ok = 0: use prop) */
  int32_t out;                   /* Tensor of output 0 */
};

/* A consumer: the Part and its input slot. */
struct acs_ccons {
  int32_t part, slot;
};

struct acs_ctensor {
  int32_t lt;                    /* layer-graph tensor */
  int weight;                    /* a constant read from memory (weights, biases) */
  int32_t producer;              /* Part, or -1 (network input, weight) */
  int64_t bytes;                 /* elements x element size */
  int32_t cons_off, ncons;       /* consumers: cons[cons_off .. cons_off + ncons) */
};

struct acs_cgraph {
  const struct acs_lgraph *lg;
  int32_t nparts, ntensors, ncons;
  struct acs_cpart *parts;       /* in the layer graph's topological order */
  struct acs_ctensor *tensors;
  struct acs_ccons *cons;
  int32_t *tensor_of;            /* layer tensor id -> Tensor, or -1 */
  int32_t *slot_in;              /* storage of every Part's in[] */
  struct acs_prop *slot_prop;    /* and prop[] */
  struct acs_iprop *slot_iprop;  /* and iprop[] */
};

/*
 * Builds the CascaderGraph of an inferred layer graph at elem_bytes bytes
 * per element (0: each tensor's own). Parts are in topological order, so a
 * Part's producers come before it. ACS_ENOMEM, ACS_EINVAL for a graph that
 * is not inferred. O(V + E) plus O(rank^2) per propagator.
 */
int acs_cgraph_build(const struct acs_lgraph *lg, int64_t elem_bytes, struct acs_cgraph *cg);
void acs_cgraph_free(struct acs_cgraph *cg);

#endif
