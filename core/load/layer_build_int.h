/*
 * layer_build_int.h - internals of the DNN lowering (layer_build.c, layer_tile.c,
 * layer_link.c): how a layer graph becomes the op DAG of the NPU family.
 *
 * The lowering an NPU compiler does, in four decisions per network:
 *
 * 1. Residency (layer_build.c): which activations stay in CMX from their
 *    producer to their last reader instead of a round trip through DDR.
 * 2. Tiling (layer_tile.c): each compute node's output is cut into row
 *    tiles x channel groups sized so that a running tile and the loads of
 *    the next one fit the CMX left by the resident tensors (double
 *    buffering), choosing the cut and the loop order (weights once per
 *    group, or inputs once per row tile) by the time they cost.
 * 3. Workloads (layer_tile.c): every tile is split over the PEs, by output
 *    channels or by rows or columns, whichever balances the MACs best and
 *    then duplicates the least data (weight-heavy layers split the weights,
 *    activation-heavy ones split space). Each workload is an op on one PE
 *    (seed 000: a DPU task's workloads run on the DPUs at once, and the
 *    barrier slots it takes are its workloads).
 * 4. Links (layer_link.c): data edges from exactly the producer ops whose
 *    output a reader's region overlaps, through CMX or through the stores
 *    and loads of DDR.
 *
 * A resident output is one tensor: the buffer `<v>.buf`, a sync op that
 * produces the node's whole output in CMX and that every workload of the
 * node writes into (a data edge to each); its readers take a data edge
 * from the buffer (the memory) and edges from the workloads that write
 * their region (the order). So a memory model that keeps a tensor from
 * its producer to its last reader keeps the buffer, once, however finely
 * the node is cut.
 */
#ifndef ACS_LOAD_LAYER_BUILD_INT_H
#define ACS_LOAD_LAYER_BUILD_INT_H

#include "core/load/load.h"
#include "core/model/layer.h"

/* The graph's size is bounded by the process limits (core/acs.h): the
 * ops of every node's plan are counted against ACS_LIMIT_OPS and
 * ACS_LIMIT_BYTES before anything is made, and edges against
 * ACS_LIMIT_EDGES as they are made (overlap edges are not known before). */

/* The plan of one node. Tiles are numbered t = g * nrt + i (row tile i of
 * channel group g); their ops are made in loop order (position p). */
struct acs__lplan {
  uint8_t compute;           /* not a view: the node makes ops */
  uint8_t res_out;           /* its outputs stay in CMX for their readers */
  uint8_t rows_outer;        /* loop order: row tiles outer, weights per tile */
  int8_t ra, ca;             /* row and channel axes of the output, -1 none */
  int8_t split;              /* the output dim a tile's workloads cut, -1 none */
  int32_t nwl;               /* workloads per tile (1 .. pe_count) */
  int64_t nrt, nfg;          /* row tiles, channel groups */
  int64_t budget;            /* CMX bytes left by the resident tensors */
  int32_t w0, in0, wl0, st0; /* first weight DMA, input load, workload, store; -1 none */
  int32_t buf;               /* the buffer of resident outputs (`<v>.buf`), -1 none */
  int32_t nw;                /* weight DMAs made */
};

struct acs__lb {
  const struct acs_lgraph *lg;
  struct acs_graph *g;
  struct acs_diag *d;
  int64_t bpe, cmx, pes, mpc;
  double link_bpc;           /* the DDR link's bytes per cycle */
  int64_t latency;           /* of one DDR transfer */
  int res_pe, res_dma, res_cmx, res_ddr;
  struct acs__lplan *pl;
  int32_t *src_off, *src;    /* root tensors of each tensor through views (CSR) */
  int32_t *pos;              /* per node: its place in the topological order */
  uint8_t *res;              /* per tensor: a root kept in CMX */
  int32_t *in_op;            /* per tensor: the load of a resident network input, -1 */
  int32_t *join;             /* per node: the sync after its stores, -1 not made */
  int32_t *done;             /* per node: the sync after its workloads, -1 not made */
  int32_t **band[2];         /* per node, made on first use: per row tile the sync
                              * after its workloads [0] or stores [1] of every
                              * channel group, -1 not made */
  /* Edges into op mirror_dst are also made into mirror_to (a buffer starts
   * when its node's first workload could). */
  int32_t mirror_dst, mirror_to;
  int32_t line;              /* source line of the node being made, 0 unknown */
  /* The tiling search's memos (layer_tile.c): direct-mapped, memo_mask + 1
   * entries each (a power of two), allocated with the builder. */
  struct acs__lext *ext;
  struct acs__lsplit *split;
  struct acs__ltile *tile;
  size_t memo_mask;
  /* The slots the node of the running search loads (layer_tile.c's
   * classify); slot_k and slot_w have room for any node's slots. */
  struct acs__lslots {
    int32_t v, n;
    uint64_t sig;              /* the memo's key for them, 0: none */
    int32_t *slot_k;           /* the slots */
    uint8_t *slot_w;           /* each a weight (1) or data from DDR (0) */
  } cur;
};

/*
 * What the tiling search keeps of slot k of node v read by the parts of
 * one output axis (s = 0: rows in `parts` parts, s = 1: channels in
 * `parts` groups): the largest extent of the regions they read, per input
 * dim. A function of the layer graph alone, so one entry serves every
 * search of the build, whatever the budgets and residency; parts == 0
 * marks an empty entry.
 */
struct acs__lext {
  int64_t parts;
  int32_t v;
  int32_t k;                 /* a node may read any number of slots */
  int8_t s;
  int64_t ext[ACS_LAYER_MAX_RANK];
};
/* The workload split of the (R, G) cut of node v (choose_split), also a
 * function of the layer graph alone; R == 0 marks an empty entry. */
struct acs__lsplit {
  int64_t R, G, work;
  int32_t v, nwl;
  int8_t split;
};
/* What the largest tile of the (R, G) cut of node v loads (weights w,
 * inputs in) and holds (out), given which slots it loads and whether the
 * output is resident (sig, struct acs__lslots): again a function of the
 * layer graph and of sig alone; R == 0 marks an empty entry. */
struct acs__ltile {
  int64_t R, G, w, in, out;
  uint64_t sig;
  int32_t v;
};
/* Entries of each memo: per compute node, and the most for any network.
 * Each build allocates its memos zeroed and a hash touches them all over,
 * so every page of them costs a page fault or two: 32 entries a node
 * rather than 128 made the scalesim fuzzer's small tables a quarter
 * faster, and no shipped network measurably slower. */
#define ACS__LMEMO_PER_NODE 32
#define ACS__LMEMO_MAX (1 << 14)

/* Parts of an axis: `total` shared out in `parts` pieces whose sizes differ
 * by at most one, the larger ones first. */
static inline int64_t acs__part_size(int64_t total, int64_t parts, int64_t i)
{
  return total / parts + (i < total % parts);
}

static inline int64_t acs__part_start(int64_t total, int64_t parts, int64_t i)
{
  int64_t q = total / parts, r = total % parts;
  return i * q + (i < r ? i : r);
}

/* The part holding coordinate x. */
static inline int64_t acs__part_of(int64_t total, int64_t parts, int64_t x)
{
  int64_t q = total / parts, r = total % parts;
  return x < r * (q + 1) ? x / (q + 1) : r + (x - r * (q + 1)) / q;
}

/* Whether slot k of node n is read from memory as data (an activation),
 * and as a weight (a constant, or a view of one). */
int acs__lb_data_slot(const struct acs__lb *b, const struct acs_lnode *n, int k);
int acs__lb_weight_slot(const struct acs__lb *b, const struct acs_lnode *n, int k);
/* Whether slot k of node n is data that reaches the node from DDR (some of
 * its roots are not resident). */
int acs__lb_slot_from_ddr(const struct acs__lb *b, const struct acs_lnode *n, int k);

enum { ACS__SLOT_DATA = 1, ACS__SLOT_WEIGHT = 2, ACS__SLOT_DDR = 4 };
/* Bytes of the slots of node v selected by `which` (data, weights, and with
 * ACS__SLOT_DDR only data that comes from DDR) that output box `out`
 * reads; a tensor read twice through the same region counts once. */
int acs__lb_slots_bytes(const struct acs__lb *b, int32_t v, const struct acs_lbox *out,
                        int which, int64_t *bytes);
/* Bytes of all of node v's outputs over box `out`. */
int acs__lb_out_bytes(const struct acs__lb *b, int32_t v, const struct acs_lbox *out,
                      int64_t *bytes);

/* The output box of tile t of node v, and of workload k of it. */
void acs__lb_tile_box(const struct acs__lb *b, int32_t v, int64_t t, struct acs_lbox *box);
void acs__lb_workload_box(const struct acs__lb *b, int32_t v, int64_t t, int32_t k,
                          struct acs_lbox *box);
/* Tile and its position in loop order. */
int64_t acs__lb_tile_at(const struct acs__lplan *p, int64_t pos);

/* layer_tile.c: the tiling, loop order and workload split of compute node
 * v within p->budget (ra, ca and res_out already set). */
int acs__lb_plan_tiles(struct acs__lb *b, int32_t v);
/* The time the DDR link spends on node v's loads and stores in its best
 * double-buffered cut within p->budget; INFINITY when none fits. The
 * node's cut fields are left modified. */
int acs__lb_node_link(struct acs__lb *b, int32_t v, double *link);

/* layer_link.c: the edges into node v's loads and workloads from what its
 * data inputs are made of; the network outputs. */
int acs__lb_link_inputs(struct acs__lb *b, int32_t v);
int acs__lb_emit_outputs(struct acs__lb *b);
/* Adds op *op (name and kind set here, its name made unique with "@<k>"
 * if taken, one barrier slot); returns its id or < 0. */
int32_t acs__lb_add_op(struct acs__lb *b, const char *name, int kind, struct acs_op *op);
/* Adds a data edge. */
int acs__lb_edge(struct acs__lb *b, int32_t src, int32_t dst);

#endif
