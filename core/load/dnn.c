/*
 * dnn.c - reading SCALE-Sim topology tables.
 *
 * A table is a header row naming the columns Layer name, IFMAP Height,
 * IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides
 * (in that order; case, blanks and underscores aside; columns after Strides
 * are ignored, as SCALE-Sim ignores them) and one row per layer. Each row
 * is checked in itself (every number a positive integer, the filter no
 * larger than the IFMAP) with errors at file:line:column naming the
 * column. The rows are kept in w->layers; dnn_graph.c links them into the
 * layer graph every DNN family schedules.
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/model/layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { F_NAME, F_IH, F_IW, F_FH, F_FW, F_C, F_NF, F_S, F__COUNT };

static const char *const dnn_col_name[F__COUNT] = {
  "Layer name", "IFMAP Height", "IFMAP Width", "Filter Height",
  "Filter Width", "Channels", "Num Filter", "Strides",
};

/* Longest layer name: leaves room for suffixes such as ".t1234567". */
#define LAYER_NAME_MAX (ACS_NAME_MAX - 32)

struct dnn_reader {
  struct acs_workload *w;
  const char *path;
  struct acs_dnn_layer *layers;
  size_t n, cap;
  struct acs__names names;
};

/* ---- reading ---- */

/* A column name without case, blanks or underscores. */
static void norm(const char *s, char *out, size_t size)
{
  size_t n = 0;
  for (; *s && n + 1 < size; s++)
    if (*s != ' ' && *s != '\t' && *s != '_')
      out[n++] = (char)((*s >= 'A' && *s <= 'Z') ? *s - 'A' + 'a' : *s);
  out[n] = '\0';
}

static int read_header(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                       struct acs_diag *d)
{
  struct dnn_reader *r = ctx;
  char want[64], got[64];

  (void)line;
  if (strcasecmp(f[0].text, "Layer name") != 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, f[0].line, f[0].col,
                        "not a SCALE-Sim topology table: the header must start "
                        "with 'Layer name', found '%s'", f[0].text);
  for (size_t i = 1; i < F__COUNT; i++) {
    if (i >= n || f[i].text[0] == '\0') {
      const struct acs_csv_field *at = i < n ? &f[i] : &f[n - 1];
      return acs_diag_set(d, ACS_EPARSE, r->path, at->line,
                          at->col + (i < n ? 0 : (int)strlen(at->text)),
                          "the header has no '%s' column (a SCALE-Sim table has Layer name, "
                          "IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, "
                          "Num Filter, Strides)", dnn_col_name[i]);
    }
    norm(dnn_col_name[i], want, sizeof(want));
    norm(f[i].text, got, sizeof(got));
    if (strcmp(want, got) != 0)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "column %zu of the header is '%s'; a SCALE-Sim table has '%s' there",
                          i + 1, f[i].text, dnn_col_name[i]);
  }
  return ACS_OK;
}

static int parse_numbers(struct dnn_reader *r, const struct acs_csv_field *f,
                         int64_t v[F__COUNT], struct acs_diag *d)
{
  for (int i = F_IH; i < F__COUNT; i++) {
    if (f[i].text[0] == '\0')
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "missing value for %s", dnn_col_name[i]);
    int err = acs_parse_i64(f[i].text, &v[i]);
    if (err == ACS_EPARSE)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "bad number '%s' for %s (expected a positive integer)",
                          f[i].text, dnn_col_name[i]);
    if ((err == ACS_ERANGE && f[i].text[0] != '-') || (err == ACS_OK && v[i] > ACS_QTY_MAX))
      return acs_diag_set(d, ACS_ERANGE, r->path, f[i].line, f[i].col,
                          "'%s' is out of range for %s (max %lld)", f[i].text,
                          dnn_col_name[i], (long long)ACS_QTY_MAX);
    if (err != ACS_OK || v[i] <= 0)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "%s must be positive, got %s", dnn_col_name[i], f[i].text);
  }
  if (v[F_FH] > v[F_IH] || v[F_FW] > v[F_IW]) {
    int k = v[F_FH] > v[F_IH] ? F_FH : F_FW;
    return acs_diag_set(d, ACS_EPARSE, r->path, f[k].line, f[k].col,
                        "filter %lldx%lld is larger than the %lldx%lld ifmap",
                        (long long)v[F_FH], (long long)v[F_FW],
                        (long long)v[F_IH], (long long)v[F_IW]);
  }
  return ACS_OK;
}

/*
 * Names the layer. SCALE-Sim does not care about names, so an empty or
 * repeated one is a warning and gets a unique replacement.
 */
static int name_layer(struct dnn_reader *r, const struct acs_csv_field *f,
                      int line, struct acs_dnn_layer *L, struct acs_diag *d)
{
  char buf[ACS_NAME_MAX];
  const char *name = f[F_NAME].text;
  int32_t old;

  if (strlen(name) > LAYER_NAME_MAX)
    return acs_diag_set(d, ACS_EPARSE, r->path, f[F_NAME].line, f[F_NAME].col,
                        "layer name longer than %d bytes", LAYER_NAME_MAX);
  if (*name == '\0') {
    snprintf(buf, sizeof(buf), "row%d", line);
    acs_diag_warn(d, r->path, line, f[F_NAME].col,
                  "layer without a name; calling it '%s'", buf);
    name = buf;
  } else if ((old = acs__names_get(&r->names, name)) >= 0) {
    snprintf(buf, sizeof(buf), "%s@%d", name, line);
    acs_diag_warn(d, r->path, line, f[F_NAME].col,
                  "duplicate layer name '%s' (first at line %d); calling it '%s'",
                  name, (int)r->layers[old].line, buf);
    name = buf;
  }
  L->name = acs_arena_strdup(&r->w->arena, name);
  if (!L->name)
    return ACS_ENOMEM;
  int rc = acs__names_put(&r->names, L->name, (int32_t)r->n, &old);
  return rc < 0 ? rc : ACS_OK;
}

/* The product of f[0..n), or -1 beyond ACS_QTY_MAX. */
static int64_t product(int n, const int64_t *f)
{
  int64_t p = 1;
  for (int i = 0; i < n; i++)
    if (acs_mul_i64(p, f[i], &p) != 0 || p > ACS_QTY_MAX)
      return -1;
  return p;
}

/*
 * The row's tensors and work, each at most ACS_QTY_MAX elements (2^53), so
 * that no count derived from them later can overflow; the error is at the
 * row's IFMAP Height.
 */
static int check_sizes(struct dnn_reader *r, const struct acs_csv_field *f, const int64_t *v,
                       const char *name, struct acs_diag *d)
{
  int64_t oh = (v[F_IH] - v[F_FH]) / v[F_S] + 1, ow = (v[F_IW] - v[F_FW]) / v[F_S] + 1;
  const int64_t in[] = { v[F_IH], v[F_IW], v[F_C] };
  const int64_t wt[] = { v[F_FH], v[F_FW], v[F_C], v[F_NF] };
  const int64_t out[] = { oh, ow, v[F_NF] > 1 ? v[F_NF] : v[F_C] };
  const int64_t work[] = { oh, ow, v[F_FH], v[F_FW], v[F_C], v[F_NF] };
  const char *what = product(3, in) < 0 ? "its input tensor has more than %lld elements"
                   : product(4, wt) < 0 ? "its weights have more than %lld elements"
                   : product(3, out) < 0 ? "its output tensor has more than %lld elements"
                   : product(6, work) < 0 ? "it computes more than %lld MACs" : NULL;
  char msg[160];

  if (!what)
    return ACS_OK;
  snprintf(msg, sizeof(msg), what, (long long)ACS_QTY_MAX);
  return acs_diag_set(d, ACS_ERANGE, r->path, f[F_IH].line, f[F_IH].col, "layer '%s': %s", name,
                      msg);
}

static int read_layer(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                      struct acs_diag *d)
{
  struct dnn_reader *r = ctx;
  int64_t v[F__COUNT];
  struct acs_dnn_layer L;
  int rc;

  if (n < F__COUNT) {
    const struct acs_csv_field *last = &f[n - 1];
    return acs_diag_set(d, ACS_EPARSE, r->path, last->line,
                        last->col + (int)strlen(last->text),
                        "layer row has %zu fields; expected 8 (name, IFMAP "
                        "Height, IFMAP Width, Filter Height, Filter Width, "
                        "Channels, Num Filter, Strides)", n);
  }
  rc = parse_numbers(r, f, v, d);
  if (rc == 0)
    rc = check_sizes(r, f, v, f[F_NAME].text, d);
  if (rc != 0)
    return rc;
  memset(&L, 0, sizeof(L));
  L.ifmap_h = v[F_IH];
  L.ifmap_w = v[F_IW];
  L.filt_h = v[F_FH];
  L.filt_w = v[F_FW];
  L.channels = v[F_C];
  L.num_filt = v[F_NF];
  L.stride = v[F_S];
  L.line = line;
  rc = name_layer(r, f, line, &L, d);
  if (rc != 0)
    return rc;
  if (acs_grow((void **)&r->layers, sizeof(*r->layers), &r->cap, r->n + 1) != 0)
    return ACS_ENOMEM;
  r->layers[r->n++] = L;
  return ACS_OK;
}

int acs_dnn_load(const char *path, struct acs_workload *w, struct acs_diag *d)
{
  struct dnn_reader r;
  struct acs__csv_table t = {read_header, read_layer, &r, "layer rows", 0, 0};
  struct acs_lgraph *lg;
  int rc;

  memset(&r, 0, sizeof(r));
  r.w = w;
  r.path = path;
  if ((rc = acs__csv_table_read(path, &t, d)) != 0)
    goto out_with_layers;
  w->layers = acs_arena_calloc(&w->arena, r.n, sizeof(*w->layers));
  if (!w->layers) {
    rc = ACS_ENOMEM;
    goto out_with_layers;
  }
  memcpy(w->layers, r.layers, r.n * sizeof(*w->layers));
  w->nlayers = r.n;
  if (!(lg = malloc(sizeof(*lg)))) {
    rc = ACS_ENOMEM;
    goto out_with_layers;
  }
  if ((rc = acs__dnn_graph(path, w->name, w->layers, w->nlayers, lg, d)) != 0) {
    free(lg);
    goto out_with_layers;
  }
  acs_workload_set_lgraph(w, lg);
out_with_layers:
  free(r.layers);
  acs__names_free(&r.names);
  return rc;
}

