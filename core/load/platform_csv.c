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

struct plat_reader {
  const char *path;
  int have_header;
  int header_line;
  size_t ncols;
  int *col_param;        /* per column: parameter index or COL_* */
  char **col_key;        /* per column: the header text of COL_KEY columns, else NULL */
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

static int header_column(struct plat_reader *r, const struct acs_csv_field *f,
                         size_t i, size_t nfields, struct acs_diag *d)
{
  const char *t = f[i].text;
  if (*t == '\0') {
    for (size_t j = i + 1; j < nfields; j++)
      if (f[j].text[0] != '\0')
        return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                            "empty column name");
    r->col_param[i] = COL_IGNORED; /* trailing comma(s) */
    return ACS_OK;
  }
  int param = strcmp(t, "name") == 0 ? COL_NAME : acs_param_find(t);
  if (param == -1 && (strcmp(t, "units") == 0 || acs_platform_units_key(t))) {
    for (size_t j = 0; j < i; j++)
      if (r->col_key[j] && strcmp(r->col_key[j], t) == 0)
        return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                            "duplicate column '%s' (also at column %d)", t, f[j].col);
    if (!(r->col_key[i] = strdup(t)))
      return ACS_ENOMEM;
    r->col_param[i] = COL_KEY;
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
    if (r->col_param[j] == param)
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "duplicate column '%s' (also at column %d)", t,
                          f[j].col);
  r->col_param[i] = param;
  return ACS_OK;
}

static int read_header(struct plat_reader *r, const struct acs_csv_field *f,
                       size_t n, int line, struct acs_diag *d)
{
  r->col_param = calloc(n, sizeof(*r->col_param));
  r->col_key = calloc(n, sizeof(*r->col_key));
  if (!r->col_param || !r->col_key)
    return ACS_ENOMEM;
  r->ncols = n;
  r->have_header = 1;
  r->header_line = line;
  for (size_t i = 0; i < n; i++) {
    int rc = header_column(r, f, i, n, d);
    if (rc != 0)
      return rc;
  }
  return ACS_OK;
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

static int read_row(struct plat_reader *r, const struct acs_csv_field *f,
                    size_t n, int line, struct acs_diag *d)
{
  struct acs_platform p;
  int rc;

  acs_platform_init(&p);
  snprintf(p.name, sizeof(p.name), "row%zu", r->nrows + 1);
  for (size_t i = 0; i < n; i++) {
    if (i >= r->ncols || r->col_param[i] == COL_IGNORED) {
      if (f[i].text[0] == '\0')
        continue;
      return acs_diag_set(d, ACS_EPARSE, r->path, f[i].line, f[i].col,
                          "more fields than the header names (%zu columns)",
                          r->ncols);
    }
    if (f[i].text[0] == '\0')
      continue; /* empty field: the default */
    if (r->col_param[i] == COL_NAME)
      rc = set_name(r, &p, &f[i], d);
    else if (r->col_param[i] == COL_KEY)
      rc = acs_platform_set_key(&p, r->col_key[i], f[i].text, d, r->path, f[i].line, f[i].col);
    else
      rc = acs_platform_set(&p, r->col_param[i], f[i].text, d, r->path,
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

static int on_record(void *ctx, const struct acs_csv_field *f, size_t n,
                     int line, struct acs_diag *d)
{
  struct plat_reader *r = ctx;
  if (!r->have_header)
    return read_header(r, f, n, line, d);
  return read_row(r, f, n, line, d);
}

int acs_platform_load(const char *path, struct acs_platform **out, size_t *n,
                      struct acs_diag *d)
{
  struct plat_reader r;
  memset(&r, 0, sizeof(r));
  r.path = path;
  acs_arena_init(&r.name_arena);
  *out = NULL;
  *n = 0;

  int rc = acs_csv_read(path, on_record, &r, d);
  if (rc != 0)
    goto out_with_rows;
  if (!r.have_header) {
    rc = acs_diag_set(d, ACS_EPARSE, path, 1, 1, "empty file: no header row");
    goto out_with_rows;
  }
  if (r.nrows == 0) {
    rc = acs_diag_set(d, ACS_EPARSE, path, r.header_line, 1,
                      "no platform rows after the header");
    goto out_with_rows;
  }
  *out = r.rows;
  *n = r.nrows;
  r.rows = NULL;
out_with_rows:
  free(r.rows);
  free(r.row_line);
  for (size_t i = 0; r.col_key && i < r.ncols; i++)
    free(r.col_key[i]);
  free(r.col_key);
  free(r.col_param);
  acs__names_free(&r.names);
  acs_arena_destroy(&r.name_arena);
  return rc;
}
