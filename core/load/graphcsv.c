/*
 * graphcsv.c - the generic op-graph CSV (format in the README, "Generic op-graph CSV").
 *
 * One row per op after a header row naming the columns. Ops name their data
 * inputs and control predecessors by name, so branches and joins are just
 * lists; names may refer to rows further down. Named resources are columns
 * `res:NAME=CAPACITY`, so a file is self-contained. Two passes: rows become
 * ops as they are read (O(1) each); then the name lists become edges and the
 * default CMX demands are computed from the inputs (O(V + E)).
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum gcol {
  C_NAME, C_KIND, C_CYCLES, C_MACS, C_BYTES, C_SRC, C_DST, C_OUT_BYTES,
  C_INPUTS, C_AFTER, C_SLOTS, C_PE, C_DMA, C_CMX, C__FIXED,
  C_RES = C__FIXED,  /* res:NAME=CAPACITY columns */
  C_IGNORED          /* an empty trailing header field */
};

static const char *const gcol_name[C__FIXED] = {
  "name", "kind", "cycles", "macs", "bytes", "src", "dst", "out_bytes",
  "inputs", "after", "slots", "pe", "dma", "cmx",
};

#define KNOWN_COLUMNS                                                     \
  "name, kind, cycles, macs, bytes, src, dst, out_bytes, inputs, after, " \
  "slots, pe, dma, cmx, res:NAME=CAPACITY"

/* What pass 2 needs of a row. */
struct grow {
  const char *inputs, *after;   /* in the graph arena, or NULL */
  int in_line, in_col, after_line, after_col;
  int has_cmx;
};

/* What a header column is. */
struct gcolumn {
  int col;                      /* enum gcol */
  int res;                      /* resource index of C_RES/C_PE/C_DMA/C_CMX columns, else -1 */
};

struct gcsv {
  const char *path;
  struct acs_graph *g;
  size_t ncols;
  struct gcolumn *cols;
  int res_pe, res_dma, res_cmx;
  struct grow *rows;            /* one per op */
  size_t cap_rows;
};

/* ---- header ---- */

static int parse_res_column(struct gcsv *r, const struct acs_csv_field *f,
                            int *res, struct acs_diag *d)
{
  char name[ACS_NAME_MAX];
  const char *spec = f->text + 4, *eq = strchr(spec, '=');
  int64_t cap;
  int err;

  if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(name))
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "resource column '%s' must be res:NAME=CAPACITY", f->text);
  memcpy(name, spec, (size_t)(eq - spec));
  name[eq - spec] = '\0';
  err = acs_parse_i64(eq + 1, &cap);
  if (err == ACS_EPARSE || (err == ACS_OK && cap <= 0) || (err == ACS_ERANGE && eq[1] == '-'))
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "resource '%s': capacity '%s' is not a positive integer",
                        name, eq + 1);
  if (err == ACS_ERANGE || cap > ACS_QTY_MAX)
    return acs_diag_set(d, ACS_ERANGE, r->path, f->line, f->col,
                        "resource '%s': capacity '%s' is out of range (max %lld)", name,
                        eq + 1, (long long)ACS_QTY_MAX);
  if (acs_graph_find_resource(r->g, name) >= 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "duplicate resource '%s'", name);
  if (r->g->nres >= ACS_MAX_RES)
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "too many resources (at most %d with pe, dma and cmx)",
                        ACS_MAX_RES);
  *res = acs_graph_add_resource(r->g, name, ACS_RES_NAMED, cap);
  return *res < 0 ? *res : ACS_OK;
}

static int header_column(void *ctx, const struct acs_csv_field *f, size_t i,
                         struct acs_diag *d)
{
  struct gcsv *r = ctx;
  const char *t = f[i].text;
  r->cols[i].res = -1;
  if (*t == '\0') {
    r->cols[i].col = C_IGNORED; /* trailing comma(s) */
    return ACS_OK;
  }
  if (strncmp(t, "res:", 4) == 0) {
    r->cols[i].col = C_RES;
    return parse_res_column(r, &f[i], &r->cols[i].res, d);
  }
  int c = 0;
  while (c < C__FIXED && strcmp(gcol_name[c], t) != 0)
    c++;
  if (c == C__FIXED)
    return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                        "unknown column '%s' (known: " KNOWN_COLUMNS ")", t);
  for (size_t j = 0; j < i; j++)
    if (r->cols[j].col == c)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "duplicate column '%s' (also at column %d)", t, f[j].col);
  r->cols[i].col = c;
  r->cols[i].res = c == C_PE ? r->res_pe : c == C_DMA ? r->res_dma
                 : c == C_CMX ? r->res_cmx : -1;
  return ACS_OK;
}

static int read_header(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                       struct acs_diag *d)
{
  struct gcsv *r = ctx;
  int rc;

  r->ncols = n;
  if ((rc = acs__csv_columns(r->path, f, n, sizeof(*r->cols), (void **)&r->cols, header_column,
                             r, d)) != 0)
    return rc;
  for (size_t i = 0; i < n; i++)
    if (r->cols[i].col == C_NAME)
      return ACS_OK;
  return acs_diag_set(d, ACS_EPARSE, r->path, line, 1, "missing column 'name'");
}

/* ---- rows ---- */

/* The fields of one row by column, plus the parsed numbers. */
struct rowv {
  const struct acs_csv_field *f[C__FIXED];
  int64_t num[C__FIXED];
};

static int is_number_col(int c)
{
  return c == C_CYCLES || c == C_MACS || c == C_BYTES || c == C_OUT_BYTES ||
         c == C_SLOTS || c == C_PE || c == C_DMA || c == C_CMX;
}

/* A count of column `col`: at least min, at most ACS_QTY_MAX (op slots at
 * most INT32_MAX, the width of the field). Out-of-range values are located
 * errors, never wrapped or rounded. */
static int parse_count(struct gcsv *r, const struct acs_csv_field *f,
                       const char *col, int64_t min, int64_t max, int64_t *out,
                       struct acs_diag *d)
{
  char what[ACS_NAME_MAX + 16];
  int64_t v;

  if (acs_parse_i64(f->text, &v) == ACS_EPARSE)
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "bad number '%s' in column '%s'", f->text, col);
  snprintf(what, sizeof(what), "column '%s'", col);
  return acs__parse_int(r->path, f->line, f->col, f->text, what, min, max, out, d);
}

/* Sorts the row's fields by column and parses the numbers. */
static int split_row(struct gcsv *r, const struct acs_csv_field *f, size_t n,
                     struct rowv *v, struct acs_diag *d)
{
  memset(v, 0, sizeof(*v));
  for (size_t i = 0; i < n; i++) {
    if (f[i].text[0] == '\0')
      continue;
    if (i >= r->ncols || r->cols[i].col == C_IGNORED)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "more fields than the header names (%zu columns)",
                          r->ncols);
    int c = r->cols[i].col;
    if (c == C_RES)
      continue;
    v->f[c] = &f[i];
    if (is_number_col(c)) {
      int rc = parse_count(r, &f[i], gcol_name[c], c == C_SLOTS ? 1 : 0,
                           c == C_SLOTS ? INT32_MAX : ACS_QTY_MAX, &v->num[c], d);
      if (rc != 0)
        return rc;
    }
  }
  return ACS_OK;
}

static int check_name(struct gcsv *r, const struct rowv *v, int line,
                      struct acs_diag *d)
{
  const struct acs_csv_field *f = v->f[C_NAME];
  if (!f)
    return acs_diag_set(d, ACS_EPARSE, r->path, line, 1, "op without a name");
  if (strlen(f->text) >= ACS_NAME_MAX)
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "op name longer than %d bytes", ACS_NAME_MAX - 1);
  if (strpbrk(f->text, "; \t\r\n"))
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "op name '%s' contains a blank or ';' (they separate "
                        "names in lists)", f->text);
  int32_t id = acs_graph_find_op(r->g, f->text);
  if (id >= 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "duplicate op name '%s' (first at line %d)", f->text,
                        (int)r->g->ops[id].line);
  return ACS_OK;
}

/* A column that makes no sense for the op's kind is an error, not ignored. */
static int check_kind_columns(struct gcsv *r, const struct rowv *v, int kind,
                              struct acs_diag *d)
{
  static const int dma_only[] = { C_BYTES, C_SRC, C_DST };
  const char *kname = acs_op_kind_name(kind);
  for (size_t i = 0; i < sizeof(dma_only) / sizeof(dma_only[0]); i++) {
    const struct acs_csv_field *f = v->f[dma_only[i]];
    if (f && kind != ACS_OP_DMA)
      return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                          "'%s' applies to dma ops only, not to %s op '%s'",
                          gcol_name[dma_only[i]], kname, v->f[C_NAME]->text);
  }
  const struct acs_csv_field *m = v->f[C_MACS];
  if (m && (kind == ACS_OP_DMA || kind == ACS_OP_SYNC))
    return acs_diag_set(d, ACS_EPARSE, r->path, m->line, m->col,
                        "'macs' applies to dpu and shave ops, not to %s op '%s'",
                        kname, v->f[C_NAME]->text);
  const struct acs_csv_field *nm = v->f[C_NAME];
  if (kind == ACS_OP_DMA && !v->f[C_BYTES] && !v->f[C_CYCLES])
    return acs_diag_set(d, ACS_EPARSE, r->path, nm->line, nm->col,
                        "dma op '%s' needs 'bytes' or 'cycles'", nm->text);
  if ((kind == ACS_OP_DPU || kind == ACS_OP_SHAVE) && !m && !v->f[C_CYCLES])
    return acs_diag_set(d, ACS_EPARSE, r->path, nm->line, nm->col,
                        "%s op '%s' needs 'cycles' or 'macs'", kname, nm->text);
  return ACS_OK;
}

static int parse_mem(struct gcsv *r, const struct acs_csv_field *f, int def,
                     uint8_t *out, struct acs_diag *d)
{
  int m = f ? acs_mem_parse(f->text) : def;
  if (m != ACS_MEM_DDR && m != ACS_MEM_CMX)
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "unknown memory '%s' (known: ddr, cmx)", f->text);
  *out = (uint8_t)m;
  return ACS_OK;
}

/* Fills op from the row's values and the defaults of its kind. */
static int make_op(struct gcsv *r, const struct rowv *v, int line,
                   struct acs_op *op, struct acs_diag *d)
{
  memset(op, 0, sizeof(*op));
  op->name = v->f[C_NAME]->text;
  op->line = line;
  int kind = ACS_OP_DPU;
  if (v->f[C_KIND]) {
    kind = acs_op_kind_parse(v->f[C_KIND]->text);
    if (kind < 0)
      return acs_diag_set(d, ACS_EPARSE, r->path, v->f[C_KIND]->line,
                          v->f[C_KIND]->col,
                          "unknown kind '%s' (known: dpu, dma, shave, sync)",
                          v->f[C_KIND]->text);
  }
  op->kind = (uint8_t)kind;
  int rc = check_kind_columns(r, v, kind, d);
  if (rc == 0 && kind == ACS_OP_DMA)
    rc = parse_mem(r, v->f[C_SRC], ACS_MEM_DDR, &op->src, d);
  if (rc == 0 && kind == ACS_OP_DMA)
    rc = parse_mem(r, v->f[C_DST], ACS_MEM_CMX, &op->dst, d);
  if (rc != 0)
    return rc;
  op->cycles = v->f[C_CYCLES] ? v->num[C_CYCLES] : kind == ACS_OP_SYNC ? 0 : -1;
  op->macs = v->num[C_MACS];
  op->bytes = v->num[C_BYTES];
  op->out_bytes = v->f[C_OUT_BYTES] ? v->num[C_OUT_BYTES]
                : kind == ACS_OP_DMA && op->dst == ACS_MEM_CMX ? op->bytes : 0;
  op->slots = v->f[C_SLOTS] ? (int32_t)v->num[C_SLOTS] : 1;
  return ACS_OK;
}

/* Demands given in the row, and the kind's defaults for pe and dma. */
static int set_demands(struct gcsv *r, int32_t id, const struct acs_csv_field *f,
                       size_t n, const struct rowv *v, struct acs_diag *d)
{
  int kind = r->g->ops[id].kind;
  int64_t pe = kind == ACS_OP_DPU || kind == ACS_OP_SHAVE;
  int64_t dma = kind == ACS_OP_DMA;
  int rc = acs_graph_set_demand(r->g, id, r->res_pe, v->f[C_PE] ? v->num[C_PE] : pe);
  if (rc == 0)
    rc = acs_graph_set_demand(r->g, id, r->res_dma, v->f[C_DMA] ? v->num[C_DMA] : dma);
  if (rc == 0 && v->f[C_CMX])
    rc = acs_graph_set_demand(r->g, id, r->res_cmx, v->num[C_CMX]);
  for (size_t i = 0; i < n && i < r->ncols && rc == 0; i++) {
    int64_t amount;
    if (r->cols[i].col != C_RES || f[i].text[0] == '\0')
      continue;
    rc = parse_count(r, &f[i], r->g->res[r->cols[i].res].name, 0, ACS_QTY_MAX, &amount, d);
    if (rc == 0)
      rc = acs_graph_set_demand(r->g, id, r->cols[i].res, amount);
  }
  return rc;
}

static int keep_list(struct gcsv *r, const struct acs_csv_field *f,
                     const char **text, int *line, int *col)
{
  if (!f)
    return ACS_OK;
  *text = acs_arena_strdup(&r->g->arena, f->text);
  *line = f->line;
  *col = f->col;
  return *text ? ACS_OK : ACS_ENOMEM;
}

static int read_row(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                    struct acs_diag *d)
{
  struct gcsv *r = ctx;
  struct rowv v;
  struct acs_op op;
  int rc = split_row(r, f, n, &v, d);
  if (rc == 0)
    rc = check_name(r, &v, line, d);
  if (rc == 0)
    rc = make_op(r, &v, line, &op, d);
  if (rc == 0)
    rc = acs_graph_check_cost((int64_t)r->g->nops + 1, r->g->nedges, r->g->nres, d, r->path,
                              line, 1, "the ops so far");
  if (rc != 0)
    return rc;
  int32_t id = acs_graph_add_op(r->g, &op);
  if (id < 0)
    return id;
  rc = set_demands(r, id, f, n, &v, d);
  if (rc != 0)
    return rc;
  if (acs_grow((void **)&r->rows, sizeof(*r->rows), &r->cap_rows, (size_t)id + 1) != 0)
    return ACS_ENOMEM;
  struct grow *gr = &r->rows[id];
  memset(gr, 0, sizeof(*gr));
  gr->has_cmx = v.f[C_CMX] != NULL;
  rc = keep_list(r, v.f[C_INPUTS], &gr->inputs, &gr->in_line, &gr->in_col);
  if (rc == 0)
    rc = keep_list(r, v.f[C_AFTER], &gr->after, &gr->after_line, &gr->after_col);
  return rc;
}

static int add_std_resources(struct gcsv *r)
{
  r->res_pe = acs_graph_add_resource(r->g, "pe", ACS_RES_PE, 0);
  r->res_dma = acs_graph_add_resource(r->g, "dma", ACS_RES_DMA, 0);
  r->res_cmx = acs_graph_add_resource(r->g, "cmx", ACS_RES_CMX, 0);
  if (r->res_pe < 0 || r->res_dma < 0 || r->res_cmx < 0)
    return ACS_ENOMEM;
  return ACS_OK;
}

/* ---- pass 2: edges and default CMX demands ---- */

/*
 * Adds an edge from every op named in `list` (names separated by ';' or
 * blanks) to op `dst`; *in_bytes accumulates the producers' out_bytes.
 */
static int link_list(struct gcsv *r, int32_t dst, const char *list, int line,
                     int col, int kind, const char *colname, int64_t *in_bytes,
                     struct acs_diag *d)
{
  char name[ACS_NAME_MAX];
  const char *s = list;
  while (*s) {
    size_t len = strcspn(s, "; \t");
    if (len == 0) {
      s++;
      continue;
    }
    int at = col + (int)(s - list);
    if (len >= sizeof(name))
      return acs_diag_set(d, ACS_EPARSE, r->path, line, at,
                          "op name in '%s' longer than %d bytes", colname,
                          ACS_NAME_MAX - 1);
    memcpy(name, s, len);
    name[len] = '\0';
    int32_t src = acs_graph_find_op(r->g, name);
    if (src < 0)
      return acs_diag_set(d, ACS_EPARSE, r->path, line, at,
                          "unknown op '%s' in '%s' of op '%s'", name, colname,
                          r->g->ops[dst].name);
    int rc = acs_graph_check_cost(r->g->nops, (int64_t)r->g->nedges + 1, r->g->nres, d,
                                  r->path, line, at, "the edges so far");
    if (rc == 0)
      rc = acs_graph_add_edge(r->g, src, dst, kind);
    if (rc != 0)
      return rc;
    if (in_bytes && (acs_add_i64(*in_bytes, r->g->ops[src].out_bytes, in_bytes) != 0 ||
                     *in_bytes > ACS_QTY_MAX))
      return acs_diag_set(d, ACS_ERANGE, r->path, line, at,
                          "the inputs of op '%s' add up to more than %lld bytes",
                          r->g->ops[dst].name, (long long)ACS_QTY_MAX);
    s += len;
  }
  return ACS_OK;
}

static int link_all(struct gcsv *r, struct acs_diag *d)
{
  for (int32_t id = 0; id < r->g->nops; id++) {
    const struct grow *gr = &r->rows[id];
    int64_t cmx = 0;
    int rc = ACS_OK;
    if (gr->inputs)
      rc = link_list(r, id, gr->inputs, gr->in_line, gr->in_col, ACS_EDGE_DATA,
                     "inputs", &cmx, d);
    if (rc == 0 && gr->after)
      rc = link_list(r, id, gr->after, gr->after_line, gr->after_col,
                     ACS_EDGE_CONTROL, "after", NULL, d);
    if (rc != 0)
      return rc;
    if (gr->has_cmx)
      continue;
    if (acs_add_i64(cmx, r->g->ops[id].out_bytes, &cmx) != 0 || cmx > ACS_QTY_MAX)
      return acs_diag_set(d, ACS_ERANGE, r->path, r->g->ops[id].line, 0,
                          "the cmx demand of op '%s' (its inputs and output) is more than "
                          "%lld bytes", r->g->ops[id].name, (long long)ACS_QTY_MAX);
    rc = acs_graph_set_demand(r->g, id, r->res_cmx, cmx);
    if (rc != 0)
      return rc;
  }
  return ACS_OK;
}

int acs_graphcsv_load(const char *path, struct acs_graph *g, struct acs_diag *d)
{
  struct gcsv r;
  struct acs__csv_table t = {read_header, read_row, &r, "ops", 0, 0};
  char stem[ACS_NAME_MAX];
  int rc;

  acs__path_stem(path, stem, sizeof(stem));
  rc = acs_graph_init(g, stem, path);
  if (rc != 0)
    return rc;
  memset(&r, 0, sizeof(r));
  r.path = path;
  r.g = g;
  rc = add_std_resources(&r);
  if (rc == 0)
    rc = acs__csv_table_read(path, &t, d);
  if (rc == 0)
    rc = link_all(&r, d);
  if (rc == 0)
    rc = acs_graph_finalize(g, d);
  if (rc != 0)
    goto out_with_graph;
  goto out_with_reader;
out_with_graph:
  acs_graph_destroy(g);
out_with_reader:
  free(r.rows);
  free(r.cols);
  return rc;
}
