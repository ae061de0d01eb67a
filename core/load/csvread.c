/*
 * csvread.c - line-oriented CSV reading with located fields, the line reader
 * of the whitespace-separated formats, and strict number parsing.
 *
 * libcsv does the quoting (strict mode: a quote inside an unquoted field or
 * text after a closing quote is an error, and so is a quote still open at the
 * end of the file). It tracks no positions, so the file is fed to it one line
 * at a time while a small scanner follows the same quoting rules to learn
 * where each field starts; the k-th field libcsv reports in a record is the
 * k-th start the scanner saw. Comment lines ('#') and blank lines are
 * dropped before libcsv sees them, unless they sit inside a quoted field.
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a field starts and where its text lives in the record buffer. */
struct field_pos {
  size_t off;
  int line, col;
};

/* The scanner's states; they mirror libcsv's handling of quotes. */
enum scan_state { SC_ROW_START, SC_FIELD_START, SC_UNQUOTED, SC_QUOTED, SC_AFTER_QUOTE };

struct reader {
  const char *path;
  struct acs_diag *d;
  acs_csv_record_fn fn;
  void *ctx;

  /* scanner */
  enum scan_state st;
  int quote_line, quote_col;   /* the opening quote of the current field */
  struct field_pos *starts;    /* field starts of the current record */
  size_t nstarts, cap_starts;

  /* fields libcsv reported for the current record */
  size_t nfields;
  char *text;                  /* field texts, NUL-separated */
  size_t text_len, text_cap;
  struct acs_csv_field *rec;
  size_t cap_rec;

  int rc;                      /* first error; stops the read */
};

static int is_blank(int c)
{
  return c == ' ' || c == '\t';
}

static int is_eol(int c)
{
  return c == '\n' || c == '\r';
}

static int push_start(struct reader *r, int line, int col)
{
  if (acs_grow((void **)&r->starts, sizeof(*r->starts), &r->cap_starts,
               r->nstarts + 1) != 0)
    return ACS_ENOMEM;
  r->starts[r->nstarts].off = 0;
  r->starts[r->nstarts].line = line;
  r->starts[r->nstarts].col = col;
  r->nstarts++;
  return ACS_OK;
}

/*
 * Advances the scanner over one line (O(length)), recording the start of
 * every field it opens. Columns are 1-based byte offsets.
 */
static int scan_line(struct reader *r, const char *s, size_t len, int line)
{
  for (size_t i = 0; i < len; i++) {
    int c = (unsigned char)s[i];
    int col = (int)i + 1;
    switch (r->st) {
    case SC_ROW_START:
    case SC_FIELD_START:
      if (is_blank(c))
        break;
      if (is_eol(c)) {
        if (r->st == SC_FIELD_START && push_start(r, line, col) != 0)
          return ACS_ENOMEM;
        r->st = SC_ROW_START;
        break;
      }
      /* A quoted field starts after its quote, where its text does. */
      if (push_start(r, line, c == '"' ? col + 1 : col) != 0)
        return ACS_ENOMEM;
      if (c == '"') {
        r->quote_line = line;
        r->quote_col = col;
        r->st = SC_QUOTED;
      } else if (c == ',') {
        r->st = SC_FIELD_START;
      } else {
        r->st = SC_UNQUOTED;
      }
      break;
    case SC_UNQUOTED:
      if (c == ',')
        r->st = SC_FIELD_START;
      else if (is_eol(c))
        r->st = SC_ROW_START;
      break;
    case SC_QUOTED:
      if (c == '"') {
        if (i + 1 < len && s[i + 1] == '"')
          i++;
        else
          r->st = SC_AFTER_QUOTE;
      }
      break;
    case SC_AFTER_QUOTE:
      if (c == ',')
        r->st = SC_FIELD_START;
      else if (is_eol(c))
        r->st = SC_ROW_START;
      break;
    }
  }
  return ACS_OK;
}

/* libcsv field callback: copies the text (libcsv reuses its buffer). */
static void on_field(void *s, size_t len, void *data)
{
  struct reader *r = data;
  if (r->rc != 0)
    return;
  const char *src = s ? s : "";
  while (len > 0 && is_blank((unsigned char)src[len - 1]))
    len--;
  while (len > 0 && is_blank((unsigned char)*src)) {
    src++;
    len--;
  }
  size_t need = r->text_len + len + 1;
  if (need < len || acs_grow((void **)&r->text, 1, &r->text_cap, need) != 0) {
    r->rc = ACS_ENOMEM;
    return;
  }
  memcpy(r->text + r->text_len, src, len);
  r->text[r->text_len + len] = '\0';
  if (r->nfields >= r->nstarts && push_start(r, 0, 0) != 0) {
    r->rc = ACS_ENOMEM;
    return;
  }
  r->starts[r->nfields].off = r->text_len;
  r->text_len += len + 1;
  r->nfields++;
}

/*
 * After a record: its texts and its fields' starts are used up. The
 * scanner has seen the whole line already, and libcsv also ends a record
 * at a lone '\r', so the starts of the records after it on the line stay,
 * first. (Dropping them all gave those records' fields line 0, and a
 * header on line 0 is no header: the next record was read as the header
 * again.)
 */
static void reset_record(struct reader *r)
{
  size_t used = r->nfields < r->nstarts ? r->nfields : r->nstarts;

  memmove(r->starts, r->starts + used, (r->nstarts - used) * sizeof(*r->starts));
  r->nstarts -= used;
  r->nfields = 0;
  r->text_len = 0;
}

/* libcsv record callback: hands non-empty records to the reader's callback. */
static void on_record(int c, void *data)
{
  struct reader *r = data;
  (void)c;
  if (r->rc != 0 || r->nfields == 0) {
    reset_record(r);
    return;
  }
  int any = 0;
  for (size_t i = 0; i < r->nfields; i++)
    if (r->text[r->starts[i].off] != '\0')
      any = 1;
  if (!any) { /* a ",,," row: all fields empty */
    reset_record(r);
    return;
  }
  if (acs_grow((void **)&r->rec, sizeof(*r->rec), &r->cap_rec, r->nfields) != 0) {
    r->rc = ACS_ENOMEM;
    return;
  }
  for (size_t i = 0; i < r->nfields; i++) {
    r->rec[i].text = r->text + r->starts[i].off;
    r->rec[i].line = r->starts[i].line;
    r->rec[i].col = r->starts[i].col;
  }
  int rc = r->fn(r->ctx, r->rec, r->nfields, r->rec[0].line, r->d);
  if (rc != 0)
    r->rc = rc;
  reset_record(r);
}

/* A line libcsv should not see: blank, or a comment outside any quotes. */
static int skip_line(const struct reader *r, const char *s, size_t len)
{
  if (r->st != SC_ROW_START)
    return 0;
  size_t i = 0;
  while (i < len && is_blank((unsigned char)s[i]))
    i++;
  return i == len || is_eol((unsigned char)s[i]) || s[i] == '#';
}

/* Reports libcsv's strict-mode error at the byte it stopped on. */
static int quote_error(struct reader *r, const char *s, size_t len, size_t pos,
                       int line)
{
  if (pos >= len)
    pos = len ? len - 1 : 0;
  if (len > 0 && s[pos] == '"')
    return acs_diag_set(r->d, ACS_EPARSE, r->path, line, (int)pos + 1,
                        "misplaced quote (a field that contains quotes must be "
                        "quoted whole, with quotes doubled)");
  return acs_diag_set(r->d, ACS_EPARSE, r->path, line, (int)pos + 1,
                      "unexpected character '%c' after a closing quote", s[pos]);
}

static int feed_line(struct reader *r, struct csv_parser *p, const char *s,
                     size_t len, int line)
{
  int rc = scan_line(r, s, len, line);
  if (rc != 0)
    return rc;
  size_t done = csv_parse(p, s, len, on_field, on_record, r);
  if (r->rc != 0)
    return r->rc;
  if (done != len) {
    if (csv_error(p) == CSV_ENOMEM)
      return ACS_ENOMEM;
    return quote_error(r, s, len, done, line);
  }
  return ACS_OK;
}

static int read_lines(struct reader *r, struct csv_parser *p, FILE *f)
{
  char *buf = NULL;
  size_t cap = 0;
  ssize_t n;
  int line = 0, last_len = 0, rc = ACS_OK;
  while ((n = getline(&buf, &cap, f)) >= 0) {
    const char *s = buf;
    size_t len = (size_t)n;
    line++;
    if (line == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
      s += 3; /* a UTF-8 byte-order mark; columns count from after it */
      len -= 3;
    }
    if (skip_line(r, s, len))
      continue;
    rc = feed_line(r, p, s, len, line);
    if (rc != 0)
      goto out_with_buf;
    last_len = (int)len;
  }
  if (ferror(f)) {
    rc = acs_diag_set(r->d, ACS_EIO, r->path, line, 0, "read error: %s",
                      strerror(errno));
    goto out_with_buf;
  }
  /* A last line without a newline that ends in a comma has one more
   * (empty) field, which libcsv submits only now. */
  if (r->st == SC_FIELD_START && push_start(r, line, last_len + 1) != 0) {
    rc = ACS_ENOMEM;
    goto out_with_buf;
  }
  if (csv_fini(p, on_field, on_record, r) != 0) {
    rc = acs_diag_set(r->d, ACS_EPARSE, r->path, r->quote_line, r->quote_col,
                      "unterminated quoted field");
    goto out_with_buf;
  }
  rc = r->rc;
out_with_buf:
  free(buf);
  return rc;
}

int acs_csv_read(const char *path, acs_csv_record_fn fn, void *ctx,
                 struct acs_diag *d)
{
  struct reader r;
  struct csv_parser p;
  int rc;

  memset(&r, 0, sizeof(r));
  r.path = path;
  r.d = d;
  r.fn = fn;
  r.ctx = ctx;
  r.st = SC_ROW_START;

  FILE *f = fopen(path, "rb");
  if (!f)
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
    rc = ACS_ENOMEM;
    goto out_with_file;
  }
  rc = read_lines(&r, &p, f);
  csv_free(&p);
out_with_file:
  fclose(f);
  free(r.starts);
  free(r.text);
  free(r.rec);
  return rc;
}

/* ---- tables: a header row, then data rows ---- */

static int table_record(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                        struct acs_diag *d)
{
  struct acs__csv_table *t = ctx;
  int rc;

  if (t->header_line == 0) {
    if ((rc = t->header(t->ctx, f, n, line, d)) == 0)
      t->header_line = line;
    return rc;
  }
  if ((rc = t->row(t->ctx, f, n, line, d)) == 0)
    t->nrows++;
  return rc;
}

int acs__csv_table_read(const char *path, struct acs__csv_table *t, struct acs_diag *d)
{
  int rc;

  t->header_line = 0;
  t->nrows = 0;
  if ((rc = acs_csv_read(path, table_record, t, d)) != 0)
    return rc;
  if (t->header_line == 0)
    return acs_diag_set(d, ACS_EPARSE, path, 1, 1, "empty file: no header row");
  if (t->nrows == 0)
    return acs_diag_set(d, ACS_EPARSE, path, t->header_line, 1, "no %s after the header",
                        t->rows);
  return ACS_OK;
}

int acs__csv_columns(const char *path, const struct acs_csv_field *f, size_t n, size_t size,
                     void **cols, int (*column)(void *ctx, const struct acs_csv_field *f, size_t i,
                                                struct acs_diag *d),
                     void *ctx, struct acs_diag *d)
{
  if (!(*cols = calloc(n ? n : 1, size)))
    return ACS_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    int rc;
    /* A blank name is a mistake, unless nothing but blanks follows: the
     * trailing commas a spreadsheet leaves. */
    for (size_t j = i + 1; f[i].text[0] == '\0' && j < n; j++)
      if (f[j].text[0] != '\0')
        return acs_diag_set(d, ACS_EPARSE, path, f[i].line, f[i].col, "empty column name");
    if ((rc = column(ctx, f, i, d)) != 0)
      return rc;
  }
  return ACS_OK;
}

/* ---- whitespace-separated formats ---- */

int acs__lines_read_graph(const char *path, struct acs_graph *g, struct acs__lines *lr,
                          int (*read)(void *arg, struct acs_diag *d), void *arg,
                          struct acs_diag *d)
{
  char stem[ACS_NAME_MAX];
  int rc;

  acs__path_stem(path, stem, sizeof(stem));
  if ((rc = acs_graph_init(g, stem, path)) != 0)
    return rc;
  if ((rc = acs__lines_open(lr, path, d)) == 0) {
    if ((rc = read(arg, d)) == 0)
      rc = acs_graph_finalize(g, d);
    acs__lines_close(lr);
  }
  if (rc != 0)
    acs_graph_destroy(g);
  return rc;
}

int acs__lines_open(struct acs__lines *lr, const char *path, struct acs_diag *d)
{
  memset(lr, 0, sizeof(*lr));
  lr->path = path;
  lr->f = fopen(path, "rb");
  if (!lr->f)
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
  return ACS_OK;
}

int acs__lines_next(struct acs__lines *lr, struct acs_diag *d)
{
  ssize_t n = getline(&lr->buf, &lr->cap, (FILE *)lr->f);
  if (n < 0) {
    if (ferror((FILE *)lr->f))
      return acs_diag_set(d, ACS_EIO, lr->path, lr->line, 0, "read error: %s",
                          strerror(errno));
    return 0;
  }
  lr->line++;
  size_t len = (size_t)n;
  while (len > 0 && is_eol((unsigned char)lr->buf[len - 1]))
    lr->buf[--len] = '\0';
  if (lr->line == 1 && len >= 3 && memcmp(lr->buf, "\xEF\xBB\xBF", 3) == 0) {
    memmove(lr->buf, lr->buf + 3, len - 2); /* includes the NUL */
    len -= 3;
  }
  if (strlen(lr->buf) != len)
    return acs_diag_set(d, ACS_EPARSE, lr->path, lr->line,
                        (int)strlen(lr->buf) + 1, "NUL byte in a text file");
  return 1;
}

void acs__lines_close(struct acs__lines *lr)
{
  if (lr->f)
    fclose((FILE *)lr->f);
  free(lr->buf);
  free(lr->tok);
  memset(lr, 0, sizeof(*lr));
}

int acs__lines_split(struct acs__lines *lr)
{
  return acs__tokens(lr->buf, &lr->tok, &lr->cap_tok, &lr->ntok);
}

int acs__lines_expect(const struct acs__lines *lr, size_t n, const char *layout,
                      struct acs_diag *d)
{
  const struct acs__tok *last = lr->ntok > 0 ? &lr->tok[lr->ntok - 1] : NULL;
  int col;

  if (lr->ntok == n)
    return ACS_OK;
  /* too many: at the first extra field; too few: just after the last one */
  col = lr->ntok > n ? lr->tok[n].col : last ? last->col + (int)strlen(last->s) : 1;
  return acs_diag_set(d, ACS_EPARSE, lr->path, lr->line, col, "expected %zu fields (%s), got %zu",
                      n, layout, lr->ntok);
}

int acs__lines_first_content(const char *path, void (*look)(const char *s, void *arg), void *arg,
                             struct acs_diag *d)
{
  struct acs__lines lr;
  int rc = acs__lines_open(&lr, path, d);

  if (rc != 0)
    return rc;
  while ((rc = acs__lines_next(&lr, d)) > 0) {
    const char *s = lr.buf + strspn(lr.buf, " \t");
    if (*s == '\0' || *s == '#' || strspn(s, ", \t") == strlen(s))
      continue;
    look(s, arg);
    break;
  }
  acs__lines_close(&lr);
  return rc < 0 ? rc : ACS_OK;
}

int32_t acs__lines_add_task(const struct acs__lines *lr, struct acs_graph *g, char prefix,
                            int64_t number, int kind, int64_t cycles)
{
  char name[32];
  struct acs_op op;

  memset(&op, 0, sizeof(op));
  snprintf(name, sizeof(name), "%c%lld", prefix, (long long)number);
  op.name = name;
  op.kind = (uint8_t)kind;
  op.cycles = cycles;
  op.slots = 1;
  op.line = lr->line;
  return acs_graph_add_op(g, &op);
}

int acs__tokens(char *line, struct acs__tok **toks, size_t *cap, size_t *n)
{
  size_t k = 0;
  char *s = line;
  for (;;) {
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
      s++;
    if (!*s)
      break;
    if (acs_grow((void **)toks, sizeof(**toks), cap, k + 1) != 0)
      return ACS_ENOMEM;
    (*toks)[k].s = s;
    (*toks)[k].col = (int)(s - line) + 1;
    k++;
    while (*s && !(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f'))
      s++;
    if (*s)
      *s++ = '\0';
  }
  *n = k;
  return ACS_OK;
}

/* ---- name index ---- */

/* Slot of key, or of the empty slot where it would go (cap is a power of 2). */
static size_t names_slot(const struct acs__names *m, const char *key)
{
  size_t i = (size_t)acs_str_hash(key) & (m->cap - 1);
  while (m->key[i] && strcmp(m->key[i], key) != 0)
    i = (i + 1) & (m->cap - 1);
  return i;
}

/* Doubles the table, keeping the load factor at most 1/2. O(n). */
static int names_rehash(struct acs__names *m)
{
  struct acs__names big = { 0, m->n, NULL, NULL };
  big.cap = m->cap ? m->cap * 2 : 64;
  big.key = calloc(big.cap, sizeof(*big.key));
  big.val = calloc(big.cap, sizeof(*big.val));
  if (!big.key || !big.val || big.cap < m->cap) {
    free(big.key);
    free(big.val);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->key[i])
      continue;
    size_t j = names_slot(&big, m->key[i]);
    big.key[j] = m->key[i];
    big.val[j] = m->val[i];
  }
  free(m->key);
  free(m->val);
  *m = big;
  return ACS_OK;
}

int acs__names_put(struct acs__names *m, const char *key, int32_t val, int32_t *old)
{
  if ((m->n + 1) * 2 > m->cap && names_rehash(m) != 0)
    return ACS_ENOMEM;
  size_t i = names_slot(m, key);
  if (m->key[i]) {
    if (old)
      *old = m->val[i];
    return 1;
  }
  m->key[i] = key;
  m->val[i] = val;
  m->n++;
  return 0;
}

int32_t acs__names_get(const struct acs__names *m, const char *key)
{
  if (m->cap == 0)
    return -1;
  size_t i = names_slot(m, key);
  return m->key[i] ? m->val[i] : -1;
}

void acs__names_free(struct acs__names *m)
{
  free(m->key);
  free(m->val);
  memset(m, 0, sizeof(*m));
}

int acs__parse_int(const char *path, int line, int col, const char *text, const char *what,
                   int64_t min, int64_t max, int64_t *out, struct acs_diag *d)
{
  int64_t v = 0;
  int err = acs_parse_i64(text, &v);

  /* *out is left alone on an error: a caller cannot compute with a value
   * it refused. */
  if (err == ACS_EPARSE)
    return acs_diag_set(d, ACS_EPARSE, path, line, col, "bad number '%s' for %s", text, what);
  if (err == ACS_ERANGE || v > max)
    return acs_diag_set(d, ACS_ERANGE, path, line, col, "'%s' is out of range for %s (max %lld)",
                        text, what, (long long)max);
  if (v < min)
    return acs_diag_set(d, ACS_EPARSE, path, line, col, "%s must be at least %lld, got %lld",
                        what, (long long)min, (long long)v);
  *out = v;
  return ACS_OK;
}

int acs__tok_int(const char *path, int line, const struct acs__tok *t, const char *what,
                 int64_t min, int64_t max, int64_t *out, struct acs_diag *d)
{
  return acs__parse_int(path, line, t->col, t->s, what, min, max, out, d);
}
