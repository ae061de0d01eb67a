/*
 * layer.h - the layer graph of a neural network: nodes with their op type
 * and attributes, tensors with shapes, exact producer/consumer links.
 *
 * This is the faithful form of a DNN (read from ONNX, core/load/onnx.c) that
 * the DNN builder (core/load/layer_build.c) turns into the op DAG of the DAG
 * schedulers, that `acsim workload` prints, and that a cascading scheduler
 * (seed 002) walks: for every node it can ask which region of each input an
 * output region needs (acs_lnode_input_box), the affine dependence the seed
 * calls a propagator, and how much work a region costs (acs_lnode_work).
 *
 * Layout: shapes are ONNX's, N-dimensional, in ONNX's dimension order. For
 * convolutions and pools that is NCHW (N, C, then the spatial dims D1..Dk);
 * nothing is transposed on import.
 *
 * Life cycle: acs_lgraph_init; acs_lgraph_add_tensor / acs_lgraph_add_node
 * (names are copied); set t->kind, the shapes of the inputs and weights,
 * lg->inputs and lg->outputs; acs_lgraph_finalize (producers, consumers,
 * topological order, cycles); acs_lgraph_infer (every node's output shapes,
 * attributes resolved, sizes checked); optionally acs_lgraph_fuse (folds
 * BatchNormalization into the convolution before it and fuses activations
 * into their producer, as inference runtimes do; the graph is finalized
 * and inferred again). Every query below needs a finalized, inferred graph.
 */
#ifndef ACS_MODEL_LAYER_H
#define ACS_MODEL_LAYER_H

#include "core/acs.h"

#define ACS_LAYER_MAX_RANK 8           /* dims of a tensor */
#define ACS_LAYER_MAX_SPATIAL (ACS_LAYER_MAX_RANK - 2)
#define ACS_LAYER_MAX_FUSED 4          /* ops folded into one node */

/*
 * Op classes: how a node's shapes, input regions and work are derived.
 */
enum acs_lclass {
  ACS_LC_CONV,        /* Conv, ConvTranspose (groups, dilations, pads, strides) */
  ACS_LC_MATMUL,      /* Gemm, MatMul */
  ACS_LC_POOL,        /* MaxPool, AveragePool: a window per output element */
  ACS_LC_GLOBAL_POOL, /* GlobalAveragePool, GlobalMaxPool */
  ACS_LC_BINARY,      /* Add, Sub, Mul, Div, PRelu, Pow, and the variadic Sum,
                         Max, Min, Mean: broadcasting elementwise */
  ACS_LC_UNARY,       /* Relu, Clip, Sigmoid, HardSwish, Cast, ...: same shape */
  ACS_LC_NORM,        /* BatchNormalization (inference): per-channel affine */
  ACS_LC_CONCAT,
  ACS_LC_RESIZE,      /* Resize, Upsample */
  ACS_LC_VIEW,        /* Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout */
  ACS_LC_TRANSPOSE,
  ACS_LC_PAD,
  ACS_LC_SOFTMAX,     /* Softmax, LogSoftmax */
  ACS_LC_REDUCE,      /* ReduceMean, ReduceSum, ..., ArgMax, ArgMin */
};

/* XX(ID, ONNX op_type, class). The supported ONNX operators. */
#define ACS_LOP_MAP(XX)                                      \
  XX(CONV, "Conv", CONV)                                     \
  XX(CONV_TRANSPOSE, "ConvTranspose", CONV)                  \
  XX(GEMM, "Gemm", MATMUL)                                   \
  XX(MATMUL, "MatMul", MATMUL)                               \
  XX(MAX_POOL, "MaxPool", POOL)                              \
  XX(AVERAGE_POOL, "AveragePool", POOL)                      \
  XX(GLOBAL_AVERAGE_POOL, "GlobalAveragePool", GLOBAL_POOL)  \
  XX(GLOBAL_MAX_POOL, "GlobalMaxPool", GLOBAL_POOL)          \
  XX(ADD, "Add", BINARY)                                     \
  XX(SUB, "Sub", BINARY)                                     \
  XX(MUL, "Mul", BINARY)                                     \
  XX(DIV, "Div", BINARY)                                     \
  XX(PRELU, "PRelu", BINARY)                                 \
  XX(POW, "Pow", BINARY)                                     \
  XX(SUM, "Sum", BINARY)                                     \
  XX(MAX, "Max", BINARY)                                     \
  XX(MIN, "Min", BINARY)                                     \
  XX(MEAN, "Mean", BINARY)                                   \
  XX(RELU, "Relu", UNARY)                                    \
  XX(LEAKY_RELU, "LeakyRelu", UNARY)                         \
  XX(CLIP, "Clip", UNARY)                                    \
  XX(SIGMOID, "Sigmoid", UNARY)                              \
  XX(HARD_SIGMOID, "HardSigmoid", UNARY)                     \
  XX(HARD_SWISH, "HardSwish", UNARY)                         \
  XX(TANH, "Tanh", UNARY)                                    \
  XX(ELU, "Elu", UNARY)                                      \
  XX(SELU, "Selu", UNARY)                                    \
  XX(CELU, "Celu", UNARY)                                    \
  XX(SOFTPLUS, "Softplus", UNARY)                            \
  XX(SOFTSIGN, "Softsign", UNARY)                            \
  XX(THRESHOLDED_RELU, "ThresholdedRelu", UNARY)             \
  XX(ABS, "Abs", UNARY)                                      \
  XX(NEG, "Neg", UNARY)                                      \
  XX(EXP, "Exp", UNARY)                                      \
  XX(LOG, "Log", UNARY)                                      \
  XX(SQRT, "Sqrt", UNARY)                                    \
  XX(RECIPROCAL, "Reciprocal", UNARY)                        \
  XX(FLOOR, "Floor", UNARY)                                  \
  XX(CEIL, "Ceil", UNARY)                                    \
  XX(ERF, "Erf", UNARY)                                      \
  XX(CAST, "Cast", UNARY)                                    \
  XX(BATCH_NORM, "BatchNormalization", NORM)                 \
  XX(CONCAT, "Concat", CONCAT)                               \
  XX(RESIZE, "Resize", RESIZE)                               \
  XX(UPSAMPLE, "Upsample", RESIZE)                           \
  XX(RESHAPE, "Reshape", VIEW)                               \
  XX(FLATTEN, "Flatten", VIEW)                               \
  XX(SQUEEZE, "Squeeze", VIEW)                               \
  XX(UNSQUEEZE, "Unsqueeze", VIEW)                           \
  XX(IDENTITY, "Identity", VIEW)                             \
  XX(DROPOUT, "Dropout", VIEW)                               \
  XX(TRANSPOSE, "Transpose", TRANSPOSE)                      \
  XX(PAD, "Pad", PAD)                                        \
  XX(SOFTMAX, "Softmax", SOFTMAX)                            \
  XX(LOG_SOFTMAX, "LogSoftmax", SOFTMAX)                     \
  XX(REDUCE_MEAN, "ReduceMean", REDUCE)                      \
  XX(REDUCE_SUM, "ReduceSum", REDUCE)                        \
  XX(REDUCE_MAX, "ReduceMax", REDUCE)                        \
  XX(REDUCE_MIN, "ReduceMin", REDUCE)                        \
  XX(REDUCE_PROD, "ReduceProd", REDUCE)                      \
  XX(REDUCE_L1, "ReduceL1", REDUCE)                          \
  XX(REDUCE_L2, "ReduceL2", REDUCE)                          \
  XX(REDUCE_LOG_SUM, "ReduceLogSum", REDUCE)                 \
  XX(REDUCE_LOG_SUM_EXP, "ReduceLogSumExp", REDUCE)          \
  XX(REDUCE_SUM_SQUARE, "ReduceSumSquare", REDUCE)           \
  XX(ARGMAX, "ArgMax", REDUCE)                               \
  XX(ARGMIN, "ArgMin", REDUCE)

enum acs_lop {
#define XX(id, onnx, cls) ACS_LOP_##id,
  ACS_LOP_MAP(XX)
#undef XX
  ACS_LOP__COUNT
};

const char *acs_lop_name(int op);      /* the ONNX op_type, "?" if out of range */
int acs_lop_parse(const char *name);   /* ACS_LOP_* or -1 */
int acs_lop_class(int op);             /* enum acs_lclass */
/* Bytes of an element of ONNX data type `dtype` (TensorProto.DataType), or
 * 0 for a type acsim does not size (strings, unknown codes). */
int acs_ldtype_bytes(int dtype);
/* Whether the op's work is multiply-accumulates (Conv, ConvTranspose, Gemm,
 * MatMul): what published MAC counts add up. */
int acs_lop_is_mac(int op);

enum acs_auto_pad { ACS_AUTO_PAD_NOTSET, ACS_AUTO_PAD_SAME_UPPER,
                    ACS_AUTO_PAD_SAME_LOWER, ACS_AUTO_PAD_VALID };
enum acs_resize_mode { ACS_RESIZE_NEAREST, ACS_RESIZE_LINEAR, ACS_RESIZE_CUBIC };
enum acs_pad_mode { ACS_PAD_CONSTANT, ACS_PAD_REFLECT, ACS_PAD_EDGE };

/*
 * Attributes as written in the file (a count of 0 means "not given": the
 * ONNX default applies), resolved by acs_lgraph_infer: afterwards nsp is
 * the number of spatial dims and kernel, strides, dilations, out_pad and
 * pads (the padding auto_pad implies) hold nsp (pads 2 * nsp) values, axis
 * and perm are non-negative and complete. Which fields a node uses follows
 * from its op.
 */
struct acs_lattrs {
  /* Conv, ConvTranspose, MaxPool, AveragePool: over the nsp spatial dims */
  int nsp;
  int nkernel, nstrides, ndilations, nout_pad, nout_shape;
  int64_t kernel[ACS_LAYER_MAX_SPATIAL];
  int64_t strides[ACS_LAYER_MAX_SPATIAL];
  int64_t dilations[ACS_LAYER_MAX_SPATIAL];
  int64_t out_pad[ACS_LAYER_MAX_SPATIAL];     /* ConvTranspose output_padding */
  int64_t out_shape[ACS_LAYER_MAX_RANK];      /* ConvTranspose output_shape */
  int64_t group;                              /* 0 = not given (1) */
  int auto_pad;                               /* enum acs_auto_pad */
  int ceil_mode, count_include_pad;
  /* pads: conv/pool over nsp dims, Pad over every dim; pads[i] is the
   * padding before dim i and pads[npads / 2 + i] after it. Conv and pool
   * pads are >= 0; ConvTranspose (from output_shape) and Pad may be negative
   * (a crop). */
  int npads;
  int64_t pads[2 * ACS_LAYER_MAX_RANK];
  int pad_mode;                               /* enum acs_pad_mode */
  /* Gemm */
  int trans_a, trans_b;
  /* Concat, Flatten, Softmax, LogSoftmax (the reader sets the default) */
  int64_t axis;
  int axis_to_end;      /* Softmax before opset 13: over every dim from axis on */
  /* Transpose: the permutation (out dim i is input dim perm[i]) */
  int nperm;
  int64_t perm[ACS_LAYER_MAX_RANK];
  /* Reshape: the target shape (0 copies, -1 infers, as ONNX); Squeeze and
   * Unsqueeze (and the Reduce ops): their axes (Squeeze with naxes 0:
   * every dim of size 1) */
  int nshape;
  int64_t shape[ACS_LAYER_MAX_RANK];
  int allowzero;
  int naxes;
  int64_t axes[ACS_LAYER_MAX_RANK];
  /* Reduce*, ArgMax, ArgMin: the reduced axes (normalized by inference;
   * naxes 0: every dim, unless noop_empty), keepdims; Cast: the type */
  int keepdims, noop_empty;
  int to_dtype;
  /* PRelu before opset 7: a slope of C values applies along dim 1 */
  int prelu_channel;
  /* Resize, Upsample: scales per dim, or the output sizes */
  int nscales, nsizes;
  double scales[ACS_LAYER_MAX_RANK];
  int64_t sizes[ACS_LAYER_MAX_RANK];
  int resize_mode;                            /* enum acs_resize_mode */
};

/* Roles of a node's input slots. */
enum acs_lrole {
  ACS_LR_NONE,   /* an omitted optional input */
  ACS_LR_DATA,   /* an activation: produced by a node or a network input */
  ACS_LR_WEIGHT, /* a constant the node reads from memory (weights, bias, a constant operand) */
  ACS_LR_PARAM,  /* a constant folded into the attributes (a Reshape's shape, Resize scales...) */
};

/* Kinds of tensors. */
enum acs_ltkind {
  ACS_LT_ACT,    /* produced by a node */
  ACS_LT_INPUT,  /* a network input (comes from DDR) */
  ACS_LT_WEIGHT, /* a constant read by nodes (its shape is known; its data need not be) */
  ACS_LT_PARAM,  /* a constant used only as a parameter (no memory of its own) */
};

struct acs_ltensor {
  const char *name;
  int rank;                                   /* 0 = scalar */
  int64_t dims[ACS_LAYER_MAX_RANK];
  int dtype;                                  /* ONNX TensorProto.DataType, 0 unknown */
  int elem_bytes;                             /* of dtype in the file; 0 unknown */
  uint8_t kind;                               /* enum acs_ltkind */
  uint8_t is_output;                          /* a network output */
  uint8_t shaped;                             /* dims known (set, or inferred) */
  int32_t producer;                           /* node id, or -1 */
};

struct acs_lnode {
  const char *name;                           /* unique within the graph */
  int op;                                     /* enum acs_lop */
  int32_t index;                              /* position in the file (0-based) */
  int32_t line;                               /* source line (SCALE-Sim rows), 0 unknown */
  struct acs_lattrs a;
  int nin, nout;
  int32_t *in;                                /* tensor per input slot, -1 omitted */
  uint8_t *role;                              /* enum acs_lrole per input slot */
  int32_t *out;                               /* tensor per output slot, -1 omitted */
  int nfused;
  int fused[ACS_LAYER_MAX_FUSED];             /* ops folded into this one, in order */
  int64_t folded_params;                      /* learnable elements folded away (a
                                                 BatchNormalization's scale, and its
                                                 bias when the conv kept its own) */
};

/* A consumer of a tensor: the node and the input slot it reads it through. */
struct acs_lref {
  int32_t node;
  int32_t slot;
};

struct acs_lgraph {
  struct acs_arena arena;
  const char *name, *path;
  int32_t ntensors, nnodes;
  size_t cap_t, cap_n;
  struct acs_ltensor *t;
  struct acs_lnode *n;
  int32_t ninputs, noutputs;                  /* network inputs and outputs (tensor ids) */
  int32_t *inputs, *outputs;                  /* arena */
  /* acs_lgraph_finalize: the consumers of tensor i are
   * cons[cons_off[i] .. cons_off[i + 1]) in node id order, and `topo` holds
   * the node ids in a topological order (Kahn, ties by id). */
  int finalized, inferred;
  int32_t *cons_off;
  struct acs_lref *cons;
  int32_t *topo;
  struct acs__lindex *index;                  /* tensor name -> id */
};

/* A box in a tensor: [lo[i], hi[i]) along each dim i < rank. It is empty
 * when some hi[i] <= lo[i]. */
struct acs_lbox {
  int rank;
  int64_t lo[ACS_LAYER_MAX_RANK], hi[ACS_LAYER_MAX_RANK];
};

int acs_lgraph_init(struct acs_lgraph *lg, const char *name, const char *path);
void acs_lgraph_destroy(struct acs_lgraph *lg);

/* Returns the tensor's id (>= 0), or ACS_EINVAL for a name already used, or
 * ACS_ENOMEM. The tensor starts as ACS_LT_ACT, unshaped, without producer. */
int32_t acs_lgraph_add_tensor(struct acs_lgraph *lg, const char *name);
int32_t acs_lgraph_find_tensor(const struct acs_lgraph *lg, const char *name); /* -1 */
/* Sets a tensor's shape (rank <= ACS_LAYER_MAX_RANK). */
void acs_ltensor_set_shape(struct acs_ltensor *t, int rank, const int64_t *dims);

/* Adds a node (nin, nout >= 0; in/role/out copied). Returns its id or an error. */
int32_t acs_lgraph_add_node(struct acs_lgraph *lg, const char *name, int op,
                            const struct acs_lattrs *a, int nin, const int32_t *in,
                            const uint8_t *role, int nout, const int32_t *out);

/*
 * Links the graph: each tensor's producer (one node at most; network inputs
 * and constants have none), the consumers of each tensor, a topological
 * order. Errors (ACS_EPARSE, with the file and the node in d): a tensor
 * produced twice, a node producing an input or a constant, a node reading
 * an ACS_LT_ACT tensor that nothing produces, a cycle (its nodes named).
 * O(V + E).
 */
int acs_lgraph_finalize(struct acs_lgraph *lg, struct acs_diag *d);

/*
 * Shape inference (layer_infer.c), in topological order: checks each node's
 * attributes and input shapes against its op's rules and sets the shapes,
 * data types and element sizes of its outputs; resolves auto_pad into pads.
 * Every dimension must be at least 1 and every tensor's bytes and every
 * node's work must fit in 64 bits at 16 bytes per element. Errors are
 * ACS_EPARSE (ACS_ERANGE for sizes) with "node 'NAME' (OP): ..." and the
 * file in d. O(V + E) times the rank.
 */
int acs_lgraph_infer(struct acs_lgraph *lg, struct acs_diag *d);

/*
 * Folds and fuses (needs an inferred graph), as ONNX runtimes do:
 * BatchNormalization into the Conv or ConvTranspose whose output only it
 * reads (its bias becomes the convolution's when that has none; scale, mean
 * and variance are folded into the weights and leave the graph), then an
 * activation (Relu, LeakyRelu, Clip, Sigmoid, HardSigmoid, HardSwish, Tanh)
 * into the Conv, ConvTranspose, Gemm, MatMul or Add/Sub/Mul/Div whose output
 * only it reads. The surviving node lists the ops in `fused` and produces
 * the last one's output tensor, so network outputs keep their names. A
 * tensor a network output is never fused away. Node and tensor ids change;
 * the graph is finalized and inferred again. O(V + E).
 */
int acs_lgraph_fuse(struct acs_lgraph *lg, struct acs_diag *d);

/* ---- queries on an inferred graph ---- */

/* Elements of a tensor (1 for a scalar). */
int64_t acs_ltensor_elems(const struct acs_ltensor *t);
/* The whole tensor as a box. */
void acs_ltensor_box(const struct acs_ltensor *t, struct acs_lbox *b);
/* Elements in a box (0 when empty). */
int64_t acs_lbox_elems(const struct acs_lbox *b);

/* The consumers of tensor t: *n of them. */
const struct acs_lref *acs_lgraph_consumers(const struct acs_lgraph *lg, int32_t t,
                                            int32_t *n);

/*
 * The region of input slot `slot` of node `node` that computing the box
 * `out` of its output 0 reads (every output of a node shares output 0's
 * box), or an empty box when that slot is not read (a Concat input outside
 * the box, an omitted input). Exact for every class but two: Resize reads a
 * conservative margin of ceil(in/out) + 2 elements at each end of a resized
 * dim (it covers every coordinate transformation mode), and Reshape and
 * Flatten read their whole input unless `out` is the whole output. Weights
 * and parameters are slots like the others (a Conv's weights for an output
 * channel range are those channels' filters). O(rank).
 */
int acs_lnode_input_box(const struct acs_lgraph *lg, int32_t node, int slot,
                        const struct acs_lbox *out, struct acs_lbox *in);

/*
 * The work of computing box `out` of node `node`'s output: multiply-
 * accumulates for the MAC ops (acs_lop_is_mac), elementary operations for
 * the others (README "ONNX models" > "Costs"). Additive over a partition of
 * the output. Returns ACS_ERANGE on overflow (never for a box of an inferred
 * graph). O(rank), O(rank * kernel) for ConvTranspose.
 */
int acs_lnode_work(const struct acs_lgraph *lg, int32_t node, const struct acs_lbox *out,
                   int64_t *work);

/* Whether the node moves no data: a view (Reshape, Flatten, Squeeze,
 * Unsqueeze, Identity, Dropout) or a Concat whose inputs are contiguous
 * slices of its output (every dim before the axis is 1). */
int acs_lnode_is_view(const struct acs_lgraph *lg, int32_t node);

/* Totals of the network at `elem_bytes` bytes per element (0: each tensor's
 * own element size). `macs` adds the work of the MAC ops, `ops` that of the
 * others. `params` counts the elements of the weights as the file has them,
 * the way frameworks count learnable parameters: a folded
 * BatchNormalization's scale and bias count, its running mean and variance
 * do not. `weight_bytes` is what the folded network loads. `naive_ws` is
 * the largest sum of the distinct data
 * inputs and the outputs of one node that is not a view (the naive working
 * set of running layer by layer), `naive_node` that node (-1 if none). */
struct acs_lgraph_totals {
  int64_t macs, ops, params, weight_bytes, naive_ws;
  int32_t naive_node;
};
int acs_lgraph_totals(const struct acs_lgraph *lg, int64_t elem_bytes,
                      struct acs_lgraph_totals *out);

/* Weight elements of a node (its ACS_LR_WEIGHT slots). */
int64_t acs_lnode_weight_elems(const struct acs_lgraph *lg, int32_t node);

/* "Conv", or "Conv+BatchNormalization+Relu" for a node with fused ops. */
void acs_lnode_op_text(const struct acs_lnode *n, char *buf, size_t size);
/* "1x3x224x224" ("scalar" for rank 0). */
void acs_ltensor_shape_text(const struct acs_ltensor *t, char *buf, size_t size);

/* Copies a name for a message: control bytes and DEL become '?', and a name
 * longer than 80 bytes is cut with "...". */
void acs_lname_mask(const char *s, char *buf, size_t size);

#endif
