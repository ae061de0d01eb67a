/*
 * load_int.h - internal to core/load, shared by the readers (not for other
 * modules): what a load notes for the workload's digest, the line reader
 * and tokens of the whitespace-separated formats, number parsing at a
 * location, the name index, and the DNN tables' layer graph.
 */
#ifndef ACS_LOAD_LOAD_INT_H
#define ACS_LOAD_LOAD_INT_H

#include "core/load/load.h"

/*
 * Model ops of a workload kind whose reader malloc's its model:
 * ACS__WL_MODEL_FREE defines `fn`, the model's destroy then free;
 * ACS__WL_MODEL_OPS defines the table `ops` from the model's
 * build_graph(model, p, g, d) and destroy, with its two adapters from the
 * workload's untyped model (ops_build, ops_free).
 */
#define ACS__WL_MODEL_FREE(fn, destroy) \
  static void fn(void *model)           \
  {                                     \
    destroy(model);                     \
    free(model);                        \
  }
#define ACS__WL_MODEL_OPS(ops, build_graph, destroy)                                   \
  static int ops##_build(const struct acs_workload *w, const struct acs_platform *p,   \
                         struct acs_graph *g, struct acs_diag *d)                      \
  {                                                                                    \
    return build_graph(w->model, p, g, d);                                             \
  }                                                                                    \
  ACS__WL_MODEL_FREE(ops##_free, destroy)                                              \
  static const struct acs_wl_model_ops ops = { ops##_build, ops##_free }

/* The layer graph of SCALE-Sim rows L[0..n) (dnn_graph.c, the linking
 * rules) into *lg. */
int acs__dnn_graph(const char *path, const char *name, const struct acs_dnn_layer *L, size_t n,
                   struct acs_lgraph *lg, struct acs_diag *d);

/*
 * Records that the workload's load read `path`: hashes its content (a
 * second read; O(size)) into w->files. acs_workload_load notes the file it
 * is given; a reader that opens further files (a graph that includes
 * others, a loop's resource model) notes each of them as it reads it.
 */
int acs__workload_note_file(struct acs_workload *w, const char *path, struct acs_diag *d);
/* Notes what a workload depends on besides its files (the parameter values
 * bound after a .sare path) as an entry of w->files named label whose
 * digest is that of text: matmul.sare:N=8 and :N=64 are two workloads. */
int acs__workload_note_text(struct acs_workload *w, const char *label, const char *text);
/* Sets w->digest from w->files (acs_workload_load, after the reader). */
void acs__workload_seal_digest(struct acs_workload *w);

/*
 * A CSV table: a header row naming the columns, then one record per data
 * row. acs__csv_table_read hands the first record to header(ctx, ...) and
 * every later one to row(ctx, ...), then refuses a file without a header
 * ("empty file: no header row", at 1:1) or without data rows ("no <rows>
 * after the header", at the header's line). The readers differ in their
 * columns and rows only; these errors read the same in all of them.
 */
struct acs__csv_table {
  acs_csv_record_fn header, row;
  void *ctx;
  const char *rows;      /* what the data rows are, for the error: "layer rows" */
  int header_line;       /* set when the header is read, 0 before */
  size_t nrows;          /* data rows read */
};
int acs__csv_table_read(const char *path, struct acs__csv_table *t, struct acs_diag *d);
/*
 * The columns of header row f[0..n): *cols gets n zeroed entries of `size`
 * bytes (the caller frees it, also on error), then column(ctx, f, i, d)
 * reads field i into entry i, in order. A blank name is an error ("empty
 * column name"), unless only blanks follow it (trailing commas): column()
 * gets those to mark as ignored.
 */
int acs__csv_columns(const char *path, const struct acs_csv_field *f, size_t n, size_t size,
                     void **cols, int (*column)(void *ctx, const struct acs_csv_field *f, size_t i,
                                                struct acs_diag *d),
                     void *ctx, struct acs_diag *d);

/* Writes the file name of `path` without directory and extension into buf. */
void acs__path_stem(const char *path, char *buf, size_t size);

/* A whitespace-separated token of a line, with its 1-based column. */
struct acs__tok {
  const char *s;         /* NUL-terminated inside the line buffer */
  int col;
};

/*
 * Line reader for the whitespace-separated formats (PSPLIB, STG): strips the
 * newline, a CR before it and a UTF-8 byte-order mark, and counts lines.
 * It keeps the tokens of the current line too, so that the readers share
 * their buffer and the errors located at them.
 */
struct acs__lines {
  void *f;               /* FILE * */
  const char *path;
  char *buf;
  size_t cap;
  int line;              /* number of the line last returned, 1-based */
  struct acs__tok *tok;  /* the line's tokens, after acs__lines_split */
  size_t cap_tok, ntok;
};
int acs__lines_open(struct acs__lines *lr, const char *path, struct acs_diag *d);
/* Returns 1 with lr->buf holding the next line, 0 at end of file, or a
 * negative error (filled into d). */
int acs__lines_next(struct acs__lines *lr, struct acs_diag *d);
void acs__lines_close(struct acs__lines *lr);
/* Splits the current line in place into lr->tok[0 .. lr->ntok) (acs__tokens). */
int acs__lines_split(struct acs__lines *lr);
/* ACS_OK when the current line has n tokens; else "expected n fields
 * (layout), got m" at the first token too many, or just after the last. */
int acs__lines_expect(const struct acs__lines *lr, size_t n, const char *layout,
                      struct acs_diag *d);
/*
 * For telling a CSV's kind by its header: gives look(s, arg) the first line
 * of path that holds anything (not blank, a # comment or commas alone), s
 * past its leading blanks; look is not called when there is none. ACS_OK or
 * a negative error (filled into d).
 */
int acs__lines_first_content(const char *path, void (*look)(const char *s, void *arg), void *arg,
                             struct acs_diag *d);
/*
 * The frame of a reader of a graph in a whitespace-separated format: g
 * initialised and named after the file's stem, lr open on path while
 * read(arg, d) fills g, then acs_graph_finalize. On failure g is destroyed.
 */
int acs__lines_read_graph(const char *path, struct acs_graph *g, struct acs__lines *lr,
                          int (*read)(void *arg, struct acs_diag *d), void *arg,
                          struct acs_diag *d);
/* Splits `line` in place at blanks into *toks (grown with acs_grow); sets *n. */
int acs__tokens(char *line, struct acs__tok **toks, size_t *cap, size_t *n);
/*
 * `text` as an integer in [min, max] (max at most ACS_QTY_MAX for workload
 * quantities); errors name `what` at path:line:col: "bad number 'x' for
 * what", "'x' is out of range for what (max N)" (also for numbers beyond
 * int64_t), "what must be at least N, got M".
 */
int acs__parse_int(const char *path, int line, int col, const char *text, const char *what,
                   int64_t min, int64_t max, int64_t *out, struct acs_diag *d);
/* Adds the op of a task-graph file's task (PSPLIB, STG), named prefix and
 * number ("j12", "t7"), of kind and cycles, one slot, at the reader's
 * line. Its id, or a negative code. */
int32_t acs__lines_add_task(const struct acs__lines *lr, struct acs_graph *g, char prefix,
                            int64_t number, int kind, int64_t cycles);
/* Token t as acs__parse_int does, located at the token's column. */
int acs__tok_int(const char *path, int line, const struct acs__tok *t, const char *what,
                 int64_t min, int64_t max, int64_t *out, struct acs_diag *d);
/* Token k of a line reader r (a struct with path and lr, as the PSPLIB and
 * STG readers have) as a quantity, at most ACS_QTY_MAX. */
#define ACS__RTOK_INT(r, k, what, min, out, d) \
  acs__tok_int((r)->path, (r)->lr.line, &(r)->lr.tok[k], what, min, ACS_QTY_MAX, out, d)

/*
 * A name -> id index (open addressing, FNV-1a): O(1) expected per call.
 * Keys are not copied; they must outlive the index.
 */
struct acs__names {
  size_t cap, n;
  const char **key;
  int32_t *val;
};
/* Inserts key -> val. Returns 0 when inserted, 1 when the key was present
 * (*old gets its id and nothing changes), or ACS_ENOMEM. */
int acs__names_put(struct acs__names *m, const char *key, int32_t val, int32_t *old);
int32_t acs__names_get(const struct acs__names *m, const char *key); /* -1 if absent */
void acs__names_free(struct acs__names *m);

/* A libxml2 error message for a diagnostic, into buf: without the newline
 * and blanks libxml2 ends it with, "malformed XML" when there is none. */
void acs__xml_message(const char *message, char *buf, size_t size);
/* A libxml2 generic error handler that drops the text: libxml2's encoding
 * layer reports through the generic handler, which would print; the XML
 * readers' structured handler has the error already. */
void acs__xml_drop_generic(void *ctx, const char *msg, ...);

#endif
