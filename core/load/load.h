/*
 * load.h - readers: platform CSV and workload formats.
 *
 * Every reader reports errors as file:line:column in a struct acs_diag and
 * warnings through its warn callback. A workload is parsed once; building
 * its graph for a platform is a separate step because DNN layer tables
 * become ops whose tiling and cycle counts depend on the platform.
 */
#ifndef ACS_LOAD_LOAD_H
#define ACS_LOAD_LOAD_H

#include "core/model/graph.h"
#include "core/model/platform.h"
#include "core/model/problem.h"

/* Platform CSV: one row per variant. Fills *out (malloc'd) with *n rows. */
int acs_platform_load(const char *path, struct acs_platform **out, size_t *n,
                      struct acs_diag *d);

/* The name of a workload kind (enum acs_wl_kind, core/model/problem.h):
 * "dnn", "graph", "psplib", "stg", "loop", "sdf", "affine" */
const char *acs_wl_kind_name(int kind);

struct acs_workload;

/*
 * A family's model (a loop body, an SDF graph, a system of recurrence
 * equations, a layer graph) as its reader leaves it in w->model, with the
 * functions that give it meaning elsewhere: `build` makes the op DAG that
 * the DAG schedulers (list, ...) see on platform p, and that the family's
 * own scheduler is compared against; `free` releases the model.
 */
struct acs_wl_model_ops {
  int (*build)(const struct acs_workload *w, const struct acs_platform *p,
               struct acs_graph *g, struct acs_diag *d);
  void (*free)(void *model);
};

/* One SCALE-Sim topology row. */
struct acs_dnn_layer {
  const char *name;
  int64_t ifmap_h, ifmap_w, filt_h, filt_w, channels, num_filt, stride;
  int32_t line;
};

/*
 * SHA-256 (digest.c), for the content digest of workloads. Streaming:
 * init, update any number of times, final. O(bytes).
 */
#define ACS_SHA256_BYTES 32
/* ACS_DIGEST_HEX (core/model/problem.h): hex digits of a digest. */
struct acs_sha256 {
  uint32_t h[8];
  uint64_t len;                    /* bytes hashed so far */
  unsigned char buf[64];
  size_t nbuf;
};
void acs_sha256_init(struct acs_sha256 *s);
void acs_sha256_update(struct acs_sha256 *s, const void *data, size_t n);
void acs_sha256_final(struct acs_sha256 *s, unsigned char out[ACS_SHA256_BYTES]);
/* Lower-case hex, NUL-terminated. */
void acs_sha256_hex(const unsigned char d[ACS_SHA256_BYTES], char hex[ACS_DIGEST_HEX + 1]);

/* A file a workload was read from, with the SHA-256 of its content. */
struct acs_workload_file {
  const char *path;
  char sha256[ACS_DIGEST_HEX + 1];
};

struct acs_workload {
  struct acs_arena arena;
  int kind;                  /* enum acs_wl_kind */
  const char *name;          /* file name without directory and extension */
  const char *path;
  /*
   * Every file the load read, the one given first, then the ones it
   * referred to in the order read, and the workload's content digest over
   * them (hex SHA-256): of the file itself for a one-file workload, else of
   * the files' hex digests one per line. The content, not the names: the
   * same file reached by two paths has one digest, an edited file another.
   * A run's identity includes it (report.h).
   */
  size_t nfiles, capfiles;
  struct acs_workload_file *files;
  char digest[ACS_DIGEST_HEX + 1];
  /* ACS_WL_DNN */
  size_t nlayers;
  struct acs_dnn_layer *layers;
  /* other kinds: the parsed, finalized graph (cloned by acs_workload_build) */
  struct acs_graph *graph;
  /* kinds with a model of their own: the model and its functions (when set,
   * acs_workload_build and acs_workload_free go through them) */
  void *model;
  const struct acs_wl_model_ops *model_ops;
};

/*
 * Reads a workload, choosing the format by extension: .csv is a SCALE-Sim
 * topology table when its header starts with "Layer name", else the generic
 * op-graph CSV; .sm is PSPLIB; .stg is STG; .onnx is an ONNX model.
 *
 * Loading and building refuse what passes a limit (core/acs.h,
 * ACS_LIMIT_MAP) with ACS_ELIMIT and a located message naming it, before
 * the expansion is allocated; those that expand a model (SDF firings,
 * affine instances, unrolled loops) poll acs_interrupt_pending() and
 * return ACS_EINTERRUPTED. docs/fuzzing.md lists what each reader counts.
 */
int acs_workload_load(const char *path, struct acs_workload **out,
                      struct acs_diag *d);
void acs_workload_free(struct acs_workload *w);

/*
 * Binds pb (acs_problem_init done) to the workload its graph was built from:
 * pb->wl, pb->kind, pb->digest and pb->model, the family model the typed
 * getters of core/model/problem.h return (for ACS_WL_DNN the layer graph,
 * acs_workload_lgraph). w NULL leaves them unknown. O(1).
 */
void acs_workload_bind(const struct acs_workload *w, struct acs_problem *pb);

/* Builds the finalized op graph of w for platform p into *g (initialised here). */
int acs_workload_build(const struct acs_workload *w, const struct acs_platform *p,
                       struct acs_graph *g, struct acs_diag *d);

/* Individual readers (acs_workload_load dispatches to these). */
struct acs_lgraph;
/* SCALE-Sim tables (dnn.c): the rows in w->layers and, built from them
 * (dnn_graph.c, the linking rules), a layer graph as the workload's model. */
int acs_dnn_load(const char *path, struct acs_workload *w, struct acs_diag *d);
int acs_graphcsv_load(const char *path, struct acs_graph *g, struct acs_diag *d);

/*
 * ONNX models (onnx.c): the file becomes a layer graph (core/model/layer.h),
 * inferred, folded and fused, kept as the workload's model (kind
 * ACS_WL_DNN); its op DAG is built per platform by acs_lgraph_build.
 * acs_onnx_read_buffer reads a model already in memory (`path` is only for
 * the messages) into *lg, which it initialises; on error *lg is destroyed.
 */
struct acs_lgraph;
int acs_onnx_load(const char *path, struct acs_workload *w, struct acs_diag *d);
int acs_onnx_read_buffer(const void *buf, size_t len, const char *name, const char *path,
                         struct acs_lgraph *lg, struct acs_diag *d);
/* The layer graph of a workload read from a layer-graph format, or NULL. */
const struct acs_lgraph *acs_workload_lgraph(const struct acs_workload *w);
/* Makes lg (malloc'd, inferred) the workload's model, kind ACS_WL_DNN; the
 * workload frees it. */
void acs_workload_set_lgraph(struct acs_workload *w, struct acs_lgraph *lg);
/*
 * The op DAG of a layer graph on platform p (layer_build.c; README "ONNX
 * models" > "From layers to ops"): weight DMAs, compute ops tiled to fit the
 * CMX, links through CMX or through DDR, network inputs and outputs.
 */
int acs_lgraph_build(const struct acs_lgraph *lg, const struct acs_platform *p,
                     struct acs_graph *g, struct acs_diag *d);
int acs_psplib_load(const char *path, struct acs_graph *g, struct acs_diag *d);
int acs_stg_load(const char *path, struct acs_graph *g, struct acs_diag *d);
/* SDF3 XML (sdf3.c): the workload's model is a finalized struct acs_sdf_graph
 * (core/model/sdf.h); acs_sdf3_read fills one directly (initialised there;
 * destroyed on error). */
struct acs_sdf_graph;
int acs_sdf_load(const char *path, struct acs_workload *w, struct acs_diag *d);
int acs_sdf3_read(const char *path, struct acs_sdf_graph *g, struct acs_diag *d);

/* Loop workloads (core/model/loop.h): a HatScheT .graphml with its resource
 * model beside it, or a loop CSV; sets w->kind, w->model and w->model_ops. */
int acs_loop_load(const char *path, struct acs_workload *w, struct acs_diag *d);

/*
 * Systems of affine recurrence equations (.sare; core/load/sare_read.c, the
 * format in README "Input formats"). spec is a path, optionally followed by
 * parameter values ("matmul.sare:N=64:K=3"). acs_sare_read parses it into a
 * model (core/model/sare.h); acs_sare_load makes it a workload of kind
 * affine whose graph is the instance DAG for the bound parameters.
 */
struct acs_sare;
struct acs_sare_inst;
int acs_sare_read(const char *spec, struct acs_sare **out, struct acs_diag *d);
int acs_sare_load(const char *spec, struct acs_workload *w, struct acs_diag *d);
/* Where the parameter values start in spec (":N=64..."), "" when it ends
 * in ".sare", NULL when spec names no .sare file (this and
 * acs_sare_spec_expand: core/load/sare_spec.c). */
const char *acs_sare_spec_suffix(const char *spec);
/*
 * Expands the parameter values of a spec into one spec per combination:
 * "matmul.sare:N=8..64*2:K=1,3" gives matmul.sare:N=8:K=1, ..:N=8:K=3, ...
 * (the first parameter outermost). Values are integers, lists of them or
 * ranges as in --vary: a..b (step 1), a..b+step, a..b*factor. At most
 * 10000 combinations. *out is malloc'd strings (free with acs_suite_free).
 * ACS_EINVAL when spec names no .sare file.
 */
int acs_sare_spec_expand(const char *spec, char ***out, size_t *n, struct acs_diag *d);
/* The instance DAG of the bound instances `in` (core/load/sare_wl.c). */
int acs_sare_build_graph(const struct acs_sare *m, const struct acs_sare_inst *in,
                         int64_t elem_bytes, const char *name, const char *path,
                         struct acs_graph *g, struct acs_diag *d);

/* A suite file: one workload path per line, '#' comments, paths relative to
 * the suite file's directory unless absolute. *paths is malloc'd strings. */
int acs_suite_load(const char *path, char ***paths, size_t *n, struct acs_diag *d);
void acs_suite_free(char **paths, size_t n);

/*
 * Line-oriented CSV reading shared by the readers (csvread.c): wraps libcsv
 * with strict quoting, feeds it one line at a time so every field knows its
 * line and column, strips a UTF-8 byte-order mark and surrounding spaces.
 * The callback gets one record; returning non-zero stops the read with that
 * code.
 */
struct acs_csv_field {
  const char *text;
  int line, col;
};
typedef int (*acs_csv_record_fn)(void *ctx, const struct acs_csv_field *fields,
                                 size_t nfields, int line, struct acs_diag *d);
int acs_csv_read(const char *path, acs_csv_record_fn fn, void *ctx,
                 struct acs_diag *d);

/*
 * --vary for trade studies (vary.c). One argument "key=item,item,..." where an
 * item is a number, a linear range "a..b+step" ("a..b" steps by 1) or a
 * geometric range "a..b*factor" (values of an integer parameter rounded to
 * the nearest integer). Errors are located "--vary:INDEX:COL" (INDEX counts
 * the --vary arguments from 1, COL is the byte column in the argument).
 */
#define ACS_VARY_MAX_VALUES 10000     /* values of one --vary */
#define ACS_VARY_MAX_VARIANTS 100000  /* platform variants of a product */
#define ACS_VARY_UNITS (-2)  /* param of a `units.CLASS` key */
struct acs_vary {
  int param;                 /* ACS_P_*, or ACS_VARY_UNITS */
  char unit_class[ACS_UNIT_CLASS_MAX]; /* ACS_VARY_UNITS: the class */
  size_t n;
  double *values;            /* in the order given, no repeats */
};
int acs_vary_parse(const char *arg, int index, struct acs_vary *v, struct acs_diag *d);
/* The key of v as written: a parameter name, or "units.CLASS" (in buf). */
const char *acs_vary_key(const struct acs_vary *v, char *buf, size_t size);
void acs_vary_free(struct acs_vary *v);
/*
 * The cartesian product: for each base row in order, every combination of
 * the values (the first --vary outermost, the last changing fastest), each
 * named "<base>[k1=v1,k2=v2]" (with nv == 0 the rows are copied unchanged).
 * *out is malloc'd. A key varied twice, more than ACS_VARY_MAX_VARIANTS
 * variants, a name over ACS_PLATFORM_NAME_MAX - 1 bytes or a variant that
 * fails acs_platform_validate is an error. O(variants * nv).
 */
int acs_vary_expand(const struct acs_platform *base, size_t nbase, const struct acs_vary *v,
                    size_t nv, struct acs_platform **out, size_t *nout, struct acs_diag *d);
/* The canonical text of a value in variant names: integers in decimal, other
 * values in the shortest %g form that reads back exactly. */
void acs_vary_format_value(double x, char *buf, size_t size);

/* Number parsing: acs_parse_i64 and acs_parse_double in core/acs.h. */

/*
 * The graph readers (acs_graphcsv_load, acs_psplib_load, acs_stg_load)
 * initialise *g themselves, name it after the file's stem and return it
 * finalized; on error *g is left destroyed.
 */

#endif
