/*
 * loop_csv.c - acsim's own loop format (README "Loop CSV"): one CSV file
 * with a header row and two kinds of rows, told apart by the `kind` column:
 *
 *   kind,name,class,latency,blocking,limit,inputs
 *   class,mem,,2,1,2,
 *   class,alu,,1,1,-1,
 *   op,ld,mem,,,,
 *   op,acc,alu,,,,ld;acc@1
 *
 * A class row defines a resource class (latency, blocking time default 1,
 * limit default -1 = unlimited); an op row an op of a class and its inputs:
 * names separated by ';' or blanks, each `NAME[@DISTANCE][+DELAY]` (an edge
 * NAME -> op of that iteration distance and extra delay, both default 0).
 * Rows may refer to classes and ops further down. Two passes: rows are
 * stored as read (O(1) each), then classes, ops and edges are resolved by
 * name (O(V + E) expected).
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/load/loop_load_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum lcol { L_KIND, L_NAME, L_CLASS, L_LATENCY, L_BLOCKING, L_LIMIT, L_INPUTS, L__COUNT,
            L_IGNORED = L__COUNT };

static const char *const lcol_name[L__COUNT] = {
  "kind", "name", "class", "latency", "blocking", "limit", "inputs",
};

#define KNOWN_COLUMNS "kind, name, class, latency, blocking, limit, inputs"

/* A field kept for pass 2: its text (in the loop's arena) and place. */
struct lfield {
  const char *text;
  int line, col;
};

struct lrow {
  int is_class;
  int line;
  struct lfield f[L__COUNT];
};

struct lcsv {
  const char *path;
  struct acs_loop *l;
  size_t ncols;
  int col[64 + L__COUNT];       /* enum lcol per header column */
  struct lrow *rows;
  size_t nrows, cap_rows;
};

static int header(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                  struct acs_diag *d)
{
  struct lcsv *r = ctx;
  int seen[L__COUNT] = {0};

  if (n > sizeof(r->col) / sizeof(r->col[0]))
    return acs_diag_set(d, ACS_EPARSE, r->path, line, 0, "more than %zu columns",
                        sizeof(r->col) / sizeof(r->col[0]));
  for (size_t i = 0; i < n; i++) {
    int c = -1;
    if (f[i].text[0] == '\0') {
      r->col[i] = L_IGNORED;
      continue;
    }
    for (int k = 0; k < L__COUNT; k++)
      if (strcmp(f[i].text, lcol_name[k]) == 0)
        c = k;
    if (c < 0)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "unknown column '%s' (known: " KNOWN_COLUMNS ")", f[i].text);
    if (seen[c])
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "duplicate column '%s'", f[i].text);
    seen[c] = 1;
    r->col[i] = c;
  }
  if (!seen[L_KIND] || !seen[L_NAME])
    return acs_diag_set(d, ACS_EPARSE, r->path, line, 1,
                        "a loop CSV needs the columns 'kind' and 'name' (has %s%s)",
                        seen[L_KIND] ? "kind" : "", seen[L_NAME] ? "name" : "");
  r->ncols = n;
  return ACS_OK;
}

/* Which columns each kind of row may fill. */
static int allowed(int is_class, int c)
{
  if (c == L_KIND || c == L_NAME)
    return 1;
  return is_class ? (c == L_LATENCY || c == L_BLOCKING || c == L_LIMIT)
                  : (c == L_CLASS || c == L_INPUTS);
}

static int row(void *ctx, const struct acs_csv_field *f, size_t n, int line,
               struct acs_diag *d)
{
  struct lcsv *r = ctx;
  struct lrow w;
  int kind_col = -1;

  memset(&w, 0, sizeof(w));
  w.line = line;
  for (size_t i = 0; i < n; i++)
    if (i < r->ncols && r->col[i] == L_KIND)
      kind_col = (int)i;
  if (kind_col < 0 || (size_t)kind_col >= n || f[kind_col].text[0] == '\0')
    return acs_diag_set(d, ACS_EPARSE, r->path, line, 1, "row without a kind (class or op)");
  if (strcmp(f[kind_col].text, "class") == 0)
    w.is_class = 1;
  else if (strcmp(f[kind_col].text, "op") != 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, line, f[kind_col].col,
                        "unknown kind '%s' (class or op)", f[kind_col].text);
  for (size_t i = 0; i < n; i++) {
    int c;
    if (i >= r->ncols || r->col[i] == L_IGNORED) {
      if (f[i].text[0] == '\0')
        continue;
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "more fields than the header names (%zu columns)", r->ncols);
    }
    c = r->col[i];
    if (f[i].text[0] == '\0')
      continue;
    if (!allowed(w.is_class, c))
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "'%s' is not a field of %s rows", lcol_name[c],
                          w.is_class ? "class" : "op");
    w.f[c].text = acs_arena_strdup(&r->l->arena, f[i].text);
    if (!w.f[c].text)
      return ACS_ENOMEM;
    w.f[c].line = f[i].line;
    w.f[c].col = f[i].col;
  }
  if (!w.f[L_NAME].text)
    return acs_diag_set(d, ACS_EPARSE, r->path, line, 1, "%s row without a name",
                        w.is_class ? "class" : "op");
  if (strpbrk(w.f[L_NAME].text, ";@+ \t"))
    return acs_diag_set(d, ACS_EPARSE, r->path, w.f[L_NAME].line, w.f[L_NAME].col,
                        "name '%s' holds one of ';@+' or a blank", w.f[L_NAME].text);
  if (w.is_class && !w.f[L_LATENCY].text)
    return acs_diag_set(d, ACS_EPARSE, r->path, line, 1, "class '%s' without a latency",
                        w.f[L_NAME].text);
  if (!w.is_class && !w.f[L_CLASS].text)
    return acs_diag_set(d, ACS_EPARSE, r->path, line, 1, "op '%s' without a class",
                        w.f[L_NAME].text);
  if (acs_grow((void **)&r->rows, sizeof(*r->rows), &r->cap_rows, r->nrows + 1) < 0)
    return ACS_ENOMEM;
  r->rows[r->nrows++] = w;
  return ACS_OK;
}

/* An integer field in [lo, ACS_LOOP_VALUE_MAX] (or -1 when allow_unlimited). */
static int int_field(const struct lcsv *r, const struct lfield *f, const char *what, int64_t lo,
                     int allow_unlimited, int64_t dflt, int64_t *out, struct acs_diag *d)
{
  if (!f->text) {
    *out = dflt;
    return ACS_OK;
  }
  if (acs_parse_i64(f->text, out) < 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col, "%s: '%s' is not an integer",
                        what, f->text);
  if ((*out < lo && !(allow_unlimited && *out == -1)) || *out > ACS_LOOP_VALUE_MAX)
    return acs_diag_set(d, ACS_ERANGE, r->path, f->line, f->col, "%s: %lld outside [%lld, %d]%s",
                        what, (long long)*out, (long long)lo, ACS_LOOP_VALUE_MAX,
                        allow_unlimited ? " (or -1: unlimited)" : "");
  return ACS_OK;
}

static int add_classes(struct lcsv *r, struct acs__names *names, struct acs_diag *d)
{
  for (size_t k = 0; k < r->nrows; k++) {
    const struct lrow *w = &r->rows[k];
    int64_t lat, bt, lim;
    int32_t id, old;
    int err;
    if (!w->is_class)
      continue;
    if ((err = int_field(r, &w->f[L_LATENCY], "latency", 0, 0, 0, &lat, d)) < 0 ||
        (err = int_field(r, &w->f[L_BLOCKING], "blocking", 0, 0, 1, &bt, d)) < 0 ||
        (err = int_field(r, &w->f[L_LIMIT], "limit", 1, 1, -1, &lim, d)) < 0)
      return err;
    if ((id = acs_loop_add_class(r->l, w->f[L_NAME].text, lat, bt, lim, w->line)) < 0)
      return id;
    if ((err = acs__names_put(names, r->l->classes[id].name, id, &old)) == 1)
      return acs_diag_set(d, ACS_EPARSE, r->path, w->f[L_NAME].line, w->f[L_NAME].col,
                          "duplicate class '%s' (first at line %d)", w->f[L_NAME].text,
                          (int)r->l->classes[old].line);
    if (err < 0)
      return err;
  }
  return ACS_OK;
}

static int add_ops(struct lcsv *r, struct acs__names *classes, struct acs__names *ops,
                   struct acs_diag *d)
{
  for (size_t k = 0; k < r->nrows; k++) {
    const struct lrow *w = &r->rows[k];
    int32_t cls, id, old;
    int err;
    if (w->is_class)
      continue;
    if ((cls = acs__names_get(classes, w->f[L_CLASS].text)) < 0)
      return acs_diag_set(d, ACS_EPARSE, r->path, w->f[L_CLASS].line, w->f[L_CLASS].col,
                          "op '%s': unknown class '%s'", w->f[L_NAME].text, w->f[L_CLASS].text);
    if ((id = acs_loop_add_op(r->l, w->f[L_NAME].text, cls, w->line)) < 0)
      return id;
    if ((err = acs__names_put(ops, r->l->ops[id].name, id, &old)) == 1)
      return acs_diag_set(d, ACS_EPARSE, r->path, w->f[L_NAME].line, w->f[L_NAME].col,
                          "duplicate op '%s' (first at line %d)", w->f[L_NAME].text,
                          (int)r->l->ops[old].line);
    if (err < 0)
      return err;
  }
  return ACS_OK;
}

/* One input item NAME[@DIST][+DELAY] of op `dst`, at column col. */
static int add_input(struct lcsv *r, struct acs__names *ops, int32_t dst, char *item, int line,
                     int col, struct acs_diag *d)
{
  char *plus = strchr(item, '+'), *at = strchr(item, '@');
  int64_t dist = 0, delay = 0;
  int32_t src;

  if (plus) {
    *plus = '\0';
    if (acs_parse_i64(plus + 1, &delay) < 0 || delay < 0 || delay > ACS_LOOP_VALUE_MAX)
      return acs_diag_set(d, ACS_EPARSE, r->path, line, col + (int)(plus - item) + 1,
                          "input '%s': delay '%s' is not an integer in [0, %d]", item, plus + 1,
                          ACS_LOOP_VALUE_MAX);
  }
  if (at) {
    if (plus && at > plus)
      return acs_diag_set(d, ACS_EPARSE, r->path, line, col,
                          "input '%s': write NAME@DISTANCE+DELAY", item);
    *at = '\0';
    if (acs_parse_i64(at + 1, &dist) < 0 || dist < 0 || dist > ACS_LOOP_VALUE_MAX)
      return acs_diag_set(d, ACS_EPARSE, r->path, line, col + (int)(at - item) + 1,
                          "input '%s': distance '%s' is not an integer in [0, %d]", item, at + 1,
                          ACS_LOOP_VALUE_MAX);
  }
  if ((src = acs__names_get(ops, item)) < 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, line, col, "op '%s': unknown input '%s'",
                        r->l->ops[dst].name, item);
  return acs_loop_add_edge(r->l, src, dst, delay, dist, line);
}

static int add_edges(struct lcsv *r, struct acs__names *ops, struct acs_diag *d)
{
  int32_t id = 0;

  for (size_t k = 0; k < r->nrows; k++) {
    const struct lrow *w = &r->rows[k];
    const struct lfield *in = &w->f[L_INPUTS];
    char buf[4096], *s;
    int err;
    if (w->is_class)
      continue;
    id++;
    if (!in->text)
      continue;
    if (strlen(in->text) >= sizeof(buf))
      return acs_diag_set(d, ACS_ERANGE, r->path, in->line, in->col, "inputs longer than %zu bytes",
                          sizeof(buf) - 1);
    strcpy(buf, in->text);
    for (s = buf; *s;) {
      size_t skip = strspn(s, "; \t"), len;
      s += skip;
      if (!*s)
        break;
      len = strcspn(s, "; \t");
      char save = s[len];
      s[len] = '\0';
      if ((err = add_input(r, ops, id - 1, s, in->line, in->col + (int)(s - buf), d)) < 0)
        return err;
      s[len] = save;
      s += len;
    }
  }
  return ACS_OK;
}

int acs__loop_load_csv(const char *path, struct acs_loop *l, struct acs_diag *d)
{
  struct acs__names classes, ops;
  struct lcsv r;
  struct acs__csv_table t = {header, row, &r, "rows", 0, 0};
  int err;

  memset(&r, 0, sizeof(r));
  memset(&classes, 0, sizeof(classes));
  memset(&ops, 0, sizeof(ops));
  r.path = path;
  r.l = l;
  err = acs__csv_table_read(path, &t, d);
  if (err == ACS_OK)
    err = add_classes(&r, &classes, d);
  if (err == ACS_OK)
    err = add_ops(&r, &classes, &ops, d);
  if (err == ACS_OK && l->nops == 0)
    err = acs_diag_set(d, ACS_EPARSE, path, t.header_line, 1, "the loop has no op rows");
  if (err == ACS_OK)
    err = add_edges(&r, &ops, d);
  acs__names_free(&classes);
  acs__names_free(&ops);
  free(r.rows);
  return err;
}
