/*
 * graph.h - the op DAG every workload becomes.
 *
 * An op is compute (dpu, shave), a transfer (dma) or a sync point. It has a
 * fixed duration in cycles or a platform-dependent amount of work (MACs for
 * compute, bytes for a transfer) that acs_problem_init() turns into cycles.
 * Each op has a demand on each of the graph's resources (a row of `demand`)
 * and produces a tensor of `out_bytes`.
 *
 * Build order: acs_graph_init, acs_graph_add_resource (all of them), then
 * ops, demands and edges, then acs_graph_finalize, which builds the CSR
 * adjacency and a topological order and rejects cycles by naming their ops.
 */
#ifndef ACS_MODEL_GRAPH_H
#define ACS_MODEL_GRAPH_H

#include "core/acs.h"

/* Resources of one graph: the standard three plus named ones (a loop's
 * limited resource classes reach 67 in the HatScheT set). */
#define ACS_MAX_RES 128
#define ACS_NAME_MAX 256

enum acs_op_kind { ACS_OP_DPU, ACS_OP_DMA, ACS_OP_SHAVE, ACS_OP_SYNC, ACS_OP__COUNT };
/* ACS_MEM_PE is a PE's local memory: a dma op from pe to pe is a transfer
 * over the local links between two PEs (the PE of its data predecessor and
 * the PE of its data successors); it runs on no DMA channel (unit -1). */
enum acs_mem { ACS_MEM_NONE, ACS_MEM_DDR, ACS_MEM_CMX, ACS_MEM_PE, ACS_MEM__COUNT };
enum acs_edge_kind { ACS_EDGE_DATA, ACS_EDGE_CONTROL };
/* PE, DMA, CMX and DDR-link capacities come from the platform; NAMED ones
 * from the workload. A DMA that crosses DDR demands one unit of the DDR
 * link (core/model/ddrlink.h). */
enum acs_res_kind { ACS_RES_PE, ACS_RES_DMA, ACS_RES_CMX, ACS_RES_NAMED, ACS_RES_DDR };

const char *acs_op_kind_name(int kind);   /* "dpu", "dma", "shave", "sync" */
int acs_op_kind_parse(const char *s);     /* -1 if unknown */
const char *acs_mem_name(int mem);        /* "none", "ddr", "cmx", "pe" */
int acs_mem_parse(const char *s);
const char *acs_edge_kind_name(int kind); /* "data", "control" */

struct acs_op {
  const char *name;      /* unique within the graph; owned by the graph arena */
  uint8_t kind;          /* enum acs_op_kind */
  uint8_t src, dst;      /* dma: memories moved between (enum acs_mem) */
  int64_t cycles;        /* fixed duration, or -1: derived from macs/bytes */
  int64_t macs;          /* compute work when cycles < 0 */
  int64_t bytes;         /* dma: bytes moved */
  int64_t out_bytes;     /* tensor produced (0 = none) */
  int32_t slots;         /* barrier producer slots it needs (seed: workloads); >= 1 */
  int32_t line;          /* source line, for diagnostics; 0 = unknown */
};

struct acs_resource {
  const char *name;
  uint8_t kind;          /* enum acs_res_kind */
  int64_t capacity;      /* ACS_RES_NAMED only */
};

struct acs_edge {
  int32_t src, dst;
  uint8_t kind;          /* enum acs_edge_kind */
};

struct acs_graph {
  struct acs_arena arena;
  const char *name;
  const char *path;

  int32_t nres;
  struct acs_resource res[ACS_MAX_RES];

  int32_t nops;
  size_t cap_ops;
  struct acs_op *ops;
  int64_t *demand;       /* nops x nres, row-major; grows with ops */

  int32_t nedges;
  size_t cap_edges;
  struct acs_edge *edges;

  /* Filled by acs_graph_finalize(): CSR adjacency (op ids) and a
   * deterministic topological order (Kahn's algorithm, FIFO seeded in id order). */
  int finalized;
  int32_t *succ_off, *succ;   /* succ[succ_off[v] .. succ_off[v+1]) */
  int32_t *pred_off, *pred;
  int32_t *topo;              /* nops op ids */

  struct acs__name_index *name_index; /* name -> op id, kept up to date by add_op */
};

int acs_graph_init(struct acs_graph *g, const char *name, const char *path);
void acs_graph_destroy(struct acs_graph *g);
/* Deep copy (finalized state included). */
int acs_graph_clone(const struct acs_graph *g, struct acs_graph *out);

/* Returns the resource index (>= 0) or a negative error. Only before ops exist. */
int acs_graph_add_resource(struct acs_graph *g, const char *name, int kind,
                           int64_t capacity);
int acs_graph_find_resource(const struct acs_graph *g, const char *name);
/* Index of the first resource of `kind`, or -1. */
int acs_graph_resource_of_kind(const struct acs_graph *g, int kind);

/* Copies *op (its name into the arena); demands start at 0. Returns id >= 0
 * or a negative error. Name uniqueness is checked by acs_graph_finalize. */
int32_t acs_graph_add_op(struct acs_graph *g, const struct acs_op *op);
int acs_graph_set_demand(struct acs_graph *g, int32_t op, int res, int64_t amount);
static inline int64_t acs_graph_demand(const struct acs_graph *g, int32_t op, int res)
{
  return g->demand[(size_t)op * (size_t)g->nres + (size_t)res];
}
int acs_graph_add_edge(struct acs_graph *g, int32_t src, int32_t dst, int kind);
/* Op id by name (hashed, O(1) expected), or -1. With duplicate names, the first. */
int32_t acs_graph_find_op(const struct acs_graph *g, const char *name);

/*
 * Builds adjacency and topological order. Duplicate edges are kept (they are
 * harmless); self-loops and cycles are ACS_ECYCLE with a message naming the
 * ops on one cycle ("cycle: a -> b -> c -> a"); duplicate op names are
 * ACS_EPARSE. O(V + E).
 */
int acs_graph_finalize(struct acs_graph *g, struct acs_diag *d);

#endif
