/*
 * platform_csv.c - platform descriptions: one CSV row per platform variant.
 *
 * The header row names the columns: `name` (optional; a row without one is
 * called "row<N>", N counting data rows from 1) and any parameter of
 * ACS_PARAM_MAP. Missing columns and empty fields take the parameter's
 * default; acs_platform_set() checks each value (number, integer-ness,
 * minimum and maximum, so zero, negative or absurd capacities are refused)
 * and the error is located at the field. Unknown or repeated columns are
 * errors at the header.
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COL_NAME (-2)    /* the `name` column */
#define COL_IGNORED (-3) /* an empty trailing header field */
#define COL_KEY (-4)     /* `units` or `units.CLASS`: set by acs_platform_set_key */

/* What a header column is. */
struct pcol {
  int param;             /* parameter index or COL_* */
  char *key;             /* the header text of a COL_KEY column, else NULL */
};

struct plat_reader {
  const char *path;
  size_t ncols;
  struct pcol *cols;
  struct acs_platform *rows;
  int32_t *row_line;     /* line of each row, for duplicate names */
  size_t nrows, cap_rows, cap_lines;
  /* Every row's name -> its index: a file of 10^5 rows is checked for
   * duplicates in O(rows), not O(rows^2). Keys live in the arena (the rows
   * array moves as it grows). */
  struct acs__names names;
  struct acs_arena name_arena;
};

/* "name, freq_mhz, ..." for the unknown-column message. */
static void known_columns(char *buf, size_t size)
{
  size_t len = 0;
  int w = snprintf(buf, size, "name");
  if (w < 0)
    return;
  len = (size_t)w;
  for (int i = 0; i < ACS_PARAM_COUNT && len < size; i++) {
    w = snprintf(buf + len, size - len, ", %s", acs_param_table[i].name);
    if (w < 0)
      return;
    len += (size_t)w;
  }
  if (len < size)
    snprintf(buf + len, size - len, ", units, units.CLASS");
}

static int header_column(void *ctx, const struct acs_csv_field *f, size_t i,
                         struct acs_diag *d)
{
  struct plat_reader *r = ctx;
  const char *t = f[i].text;
  if (*t == '\0') {
    r->cols[i].param = COL_IGNORED; /* trailing comma(s) */
    return ACS_OK;
  }
  int param = strcmp(t, "name") == 0 ? COL_NAME : acs_param_find(t);
  if (param == -1 && (strcmp(t, "units") == 0 || acs_platform_units_key(t))) {
    for (size_t j = 0; j < i; j++)
      if (r->cols[j].key && strcmp(r->cols[j].key, t) == 0)
        return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                            "duplicate column '%s' (also at column %d)", t, f[j].col);
    if (!(r->cols[i].key = strdup(t)))
      return ACS_ENOMEM;
    r->cols[i].param = COL_KEY;
    return ACS_OK;
  }
  if (param == -1) {
    char known[1024];
    known_columns(known, sizeof(known));
    char hint[128];
    return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                        "unknown column '%s'%s (known: %s)", t,
                        acs_param_suggest(t, hint, sizeof(hint)), known);
  }
  for (size_t j = 0; j < i; j++)
    if (r->cols[j].param == param)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "duplicate column '%s' (also at column %d)", t,
                          f[j].col);
  r->cols[i].param = param;
  return ACS_OK;
}

static int read_header(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                       struct acs_diag *d)
{
  struct plat_reader *r = ctx;

  (void)line;
  r->ncols = n;
  return acs__csv_columns(r->path, f, n, sizeof(*r->cols), (void **)&r->cols, header_column, r,
                          d);
}

/* Sets the row's name; names must be unique within the file (O(1)
 * expected, through the index of the rows so far). */
static int set_name(struct plat_reader *r, struct acs_platform *p,
                    const struct acs_csv_field *f, struct acs_diag *d)
{
  int32_t j;

  if (strlen(f->text) >= sizeof(p->name))
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "platform name longer than %d bytes",
                        (int)sizeof(p->name) - 1);
  if ((j = acs__names_get(&r->names, f->text)) >= 0)
    return acs_diag_set(d, ACS_EPARSE, r->path, f->line, f->col,
                        "duplicate platform name '%s' (first at line %d)",
                        f->text, (int)r->row_line[j]);
  memcpy(p->name, f->text, strlen(f->text) + 1);
  return ACS_OK;
}

/* Indexes row i's name (the first row of a name keeps it). */
static int index_name(struct plat_reader *r, size_t i)
{
  const char *key = acs_arena_strdup(&r->name_arena, r->rows[i].name);
  int32_t old;

  if (!key || i > INT32_MAX)
    return ACS_ENOMEM;
  return acs__names_put(&r->names, key, (int32_t)i, &old) < 0 ? ACS_ENOMEM : ACS_OK;
}

static int read_row(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                    struct acs_diag *d)
{
  struct plat_reader *r = ctx;
  struct acs_platform p;
  int rc;

  acs_platform_init(&p);
  snprintf(p.name, sizeof(p.name), "row%zu", r->nrows + 1);
  for (size_t i = 0; i < n; i++) {
    if (i >= r->ncols || r->cols[i].param == COL_IGNORED) {
      if (f[i].text[0] == '\0')
        continue;
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "more fields than the header names (%zu columns)",
                          r->ncols);
    }
    if (f[i].text[0] == '\0')
      continue; /* empty field: the default */
    if (r->cols[i].param == COL_NAME)
      rc = set_name(r, &p, &f[i], d);
    else if (r->cols[i].param == COL_KEY)
      rc = acs_platform_set_key(&p, r->cols[i].key, f[i].text, d, r->path, f[i].line, f[i].col);
    else
      rc = acs_platform_set(&p, r->cols[i].param, f[i].text, d, r->path,
                            f[i].line, f[i].col);
    if (rc != 0)
      return rc;
  }
  rc = acs_platform_validate(&p, d);
  if (rc != 0) {
    if (d->line == 0) { /* locate cross-parameter errors at the row */
      snprintf(d->file, sizeof(d->file), "%s", r->path);
      d->line = line;
    }
    return rc;
  }
  if (acs_grow((void **)&r->rows, sizeof(*r->rows), &r->cap_rows, r->nrows + 1) != 0 ||
      acs_grow((void **)&r->row_line, sizeof(*r->row_line), &r->cap_lines,
               r->nrows + 1) != 0)
    return ACS_ENOMEM;
  r->rows[r->nrows] = p;
  r->row_line[r->nrows] = line;
  r->nrows++;
  return index_name(r, r->nrows - 1);
}

int acs_platform_load(const char *path, struct acs_platform **out, size_t *n,
                      struct acs_diag *d)
{
  struct plat_reader r;
  struct acs__csv_table t = {read_header, read_row, &r, "platform rows", 0, 0};
  int rc;

  memset(&r, 0, sizeof(r));
  r.path = path;
  acs_arena_init(&r.name_arena);
  *out = NULL;
  *n = 0;
  if ((rc = acs__csv_table_read(path, &t, d)) == 0) {
    *out = r.rows;
    *n = r.nrows;
    r.rows = NULL;
  }
  free(r.rows);
  free(r.row_line);
  for (size_t i = 0; r.cols && i < r.ncols; i++)
    free(r.cols[i].key);
  free(r.cols);
  acs__names_free(&r.names);
  acs_arena_destroy(&r.name_arena);
  return rc;
}
