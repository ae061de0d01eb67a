/*
 * workload.c - choosing the reader for a workload file, and building a
 * workload's graph for a platform.
 *
 * The format follows from the extension: .sare is a system of affine
 * recurrence equations (with optional parameter values after the name,
 * "matmul.sare:N=64"), .sm is PSPLIB, .stg is STG,
 * .graphml a HatScheT loop, .csv is a SCALE-Sim topology table when its
 * first row starts with "Layer name", a loop when its header has a `class`
 * column, and the generic op-graph CSV otherwise. DNN tables are kept as layers, since
 * their ops depend on the platform (tiling to its CMX, bytes per element);
 * the other formats are parsed into a finalized graph once and cloned per
 * build. Every file read is noted with its SHA-256 (digest.c), which gives
 * the workload its content digest.
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/load/loop_load_int.h"
#include "core/model/layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *const wl_kind_names[ACS_WL__COUNT] = {
  "dnn", "graph", "psplib", "stg", "loop", "sdf", "affine",
};

const char *acs_wl_kind_name(int kind)
{
  if (kind < 0 || kind >= ACS_WL__COUNT)
    return "unknown";
  return wl_kind_names[kind];
}

void acs__path_stem(const char *path, char *buf, size_t size)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
  if (size == 0)
    return;
  if (len >= size)
    len = size - 1;
  memcpy(buf, base, len);
  buf[len] = '\0';
}

static const char *extension(const char *path)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  return dot && dot != base ? dot : "";
}

/*
 * Whether the first line that is not blank or a comment starts with
 * "Layer name" (after a byte-order mark, blanks and an opening quote).
 */
static void starts_layer_name(const char *s, void *arg)
{
  int *is_dnn = arg;

  if (*s == '"')
    s++;
  *is_dnn = strncasecmp(s, "Layer name", 10) == 0;
}

static int is_scalesim_table(const char *path, struct acs_diag *d, int *is_dnn)
{
  *is_dnn = 0;
  return acs__lines_first_content(path, starts_layer_name, is_dnn, d);
}

static int load_graph(const char *path, struct acs_workload *w, int kind,
                      struct acs_diag *d)
{
  w->graph = malloc(sizeof(*w->graph));
  if (!w->graph)
    return ACS_ENOMEM;
  int rc = kind == ACS_WL_GRAPH ? acs_graphcsv_load(path, w->graph, d)
         : kind == ACS_WL_PSPLIB ? acs_psplib_load(path, w->graph, d)
         : acs_stg_load(path, w->graph, d);
  if (rc != 0) {
    free(w->graph); /* the reader destroyed it */
    w->graph = NULL;
    return rc;
  }
  w->kind = kind;
  return ACS_OK;
}

/* The file given is noted (hashed) first, once its format is known and
 * before the reader runs, so it leads the workload's file list. */
static int load_by_format(const char *path, struct acs_workload *w,
                          struct acs_diag *d)
{
  static const char *const known[] = {".csv", ".sm", ".stg", ".onnx", ".graphml", ".xml",
                                      NULL};
  const char *ext = extension(path);
  int is_dnn, is_loop = 0, rc, ok = 0;
  struct stat st;

  if (acs_sare_spec_suffix(path))
    return acs_sare_load(path, w, d);
  /* A folder of workloads is a natural thing to try; say what to give. */
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return acs_diag_set(d, ACS_EINVAL, path, 0, 0,
                        "is a directory; give a workload file (.onnx, .csv, .sm, .stg, "
                        ".graphml, .xml or .sare) or a suite (.txt) listing several");
  if (*ext == '\0')
    return acs_diag_set(d, ACS_EFORMAT, path, 0, 0,
                        "no file extension to tell the workload format (expected "
                        ".csv, .sm, .stg, .onnx, .graphml, .xml or .sare)");
  for (const char *const *k = known; *k; k++)
    ok |= strcasecmp(ext, *k) == 0;
  if (!ok)
    return acs_diag_set(d, ACS_EFORMAT, path, 0, 0,
                        "unknown workload format '%s' (expected .csv, .sm, .stg, .onnx, "
                        ".graphml, .xml or .sare)", ext);
  if ((rc = acs__workload_note_file(w, path, d)) != 0)
    return rc;
  if (strcasecmp(ext, ".sm") == 0)
    return load_graph(path, w, ACS_WL_PSPLIB, d);
  if (strcasecmp(ext, ".stg") == 0)
    return load_graph(path, w, ACS_WL_STG, d);
  if (strcasecmp(ext, ".xml") == 0)
    return acs_sdf_load(path, w, d);
  if (strcasecmp(ext, ".onnx") == 0)
    return acs_onnx_load(path, w, d);
  if (strcasecmp(ext, ".graphml") == 0)
    return acs_loop_load(path, w, d);
  rc = is_scalesim_table(path, d, &is_dnn);
  if (rc == 0 && !is_dnn)
    rc = acs__loop_csv_sniff(path, &is_loop, d);
  if (rc != 0)
    return rc;
  if (is_dnn)
    return acs_dnn_load(path, w, d);
  return is_loop ? acs_loop_load(path, w, d) : load_graph(path, w, ACS_WL_GRAPH, d);
}

int acs_workload_load(const char *path, struct acs_workload **out,
                      struct acs_diag *d)
{
  char stem[ACS_NAME_MAX];
  struct acs_workload *w = calloc(1, sizeof(*w));
  int rc;

  *out = NULL;
  if (!w)
    return ACS_ENOMEM;
  acs_arena_init(&w->arena);
  acs__path_stem(path, stem, sizeof(stem));
  w->name = acs_arena_strdup(&w->arena, stem);
  w->path = acs_arena_strdup(&w->arena, path);
  rc = !w->name || !w->path ? ACS_ENOMEM : load_by_format(path, w, d);
  if (rc != 0) {
    acs_workload_free(w);
    return rc;
  }
  acs__workload_seal_digest(w);
  *out = w;
  return ACS_OK;
}

void acs_workload_free(struct acs_workload *w)
{
  if (!w)
    return;
  if (w->graph) {
    acs_graph_destroy(w->graph);
    free(w->graph);
  }
  if (w->model && w->model_ops && w->model_ops->free)
    w->model_ops->free(w->model);
  acs_arena_destroy(&w->arena);
  free(w);
}

ACS__WL_MODEL_OPS(lgraph_model_ops, acs_lgraph_build, acs_lgraph_destroy);

const struct acs_lgraph *acs_workload_lgraph(const struct acs_workload *w)
{
  return w && w->model_ops == &lgraph_model_ops ? w->model : NULL;
}

void acs_workload_set_lgraph(struct acs_workload *w, struct acs_lgraph *lg)
{
  w->kind = ACS_WL_DNN;
  w->model = lg;
  w->model_ops = &lgraph_model_ops;
}

void acs_workload_bind(const struct acs_workload *w, struct acs_problem *pb)
{
  pb->wl = w;
  pb->kind = w ? w->kind : -1;
  pb->digest = w ? w->digest : NULL;
  pb->model = !w ? NULL : w->kind == ACS_WL_DNN ? (const void *)acs_workload_lgraph(w) : w->model;
}

int acs_workload_build(const struct acs_workload *w, const struct acs_platform *p,
                       struct acs_graph *g, struct acs_diag *d)
{
  if (w->model_ops && w->model_ops->build)
    return w->model_ops->build(w, p, g, d);
  if (!w->graph)
    return ACS_EINVAL;
  return acs_graph_clone(w->graph, g);
}
