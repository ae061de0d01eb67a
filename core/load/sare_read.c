/*
 * sare_read.c - the reader of systems of affine recurrence equations (.sare).
 *
 * One statement per line; a statement whose braces are still open at the
 * end of a line goes on over the next lines. '#' starts a comment.
 *
 *   params [N, K] -> { : N >= 1 and K >= 1 }   parameters and their context
 *   bind N = 8, K = 3                          default values for runs
 *   input  { A[i, k] : 0 <= i, k < N }         a variable read, never computed
 *   local  { S[i, k] : ... } delay 2           computed; each instance takes
 *   output { Y[i] : 0 <= i < N } delay 1       `delay` cycles (default 1)
 *   read   { S[i, k] -> S[i, k - 1] : k >= 1 } S[i,k] needs S[i,k-1] when k >= 1
 *
 * Sets and maps are isl notation; the "[N] ->" prefix may be left out (the
 * system's parameters are then implied). A path may carry parameter values:
 * "matmul.sare:N=64:K=3" overrides the file's bind line. Every error is
 * reported once, located at file:line:column. O(file) plus isl's work on
 * each set (small polyhedra).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/aff.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "core/load/isltext_int.h"
#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/model/sare_int.h"

/* The whole file, lines joined by '\n', with where each line starts. */
struct text {
  char *buf;
  size_t len, cap;
  int *line_off;           /* offset of line k + 1 (1-based lines) */
  size_t nlines, cap_lines;
};

struct reader {
  const char *path;        /* the file (without a parameter suffix) */
  struct text t;
  struct acs_sare *m;
  size_t cap_vars, cap_deps;
  int seen_params, seen_decl;
  int stmt_off;            /* where the statement being read starts */
  struct acs_diag *d;
};

/* ---- the file ---- */

/*
 * Reads the file into r->t. The one place a .sare reader opens a file, so
 * whatever must know which files a workload read (digests) has one call to
 * follow.
 */
static int read_file(struct reader *r)
{
  struct acs__lines lr;
  int rc = acs__lines_open(&lr, r->path, r->d);

  if (rc < 0)
    return rc;
  while ((rc = acs__lines_next(&lr, r->d)) > 0) {
    size_t n = strlen(lr.buf);
    if ((rc = acs_grow((void **)&r->t.line_off, sizeof(int), &r->t.cap_lines,
                       r->t.nlines + 1)) < 0 ||
        (rc = acs_grow((void **)&r->t.buf, 1, &r->t.cap, r->t.len + n + 2)) < 0)
      break;
    if (r->t.len + n + 2 > (size_t)INT32_MAX) {
      rc = acs_diag_set(r->d, ACS_ERANGE, r->path, lr.line, 0, "file larger than 2 GB");
      break;
    }
    r->t.line_off[r->t.nlines++] = (int)r->t.len;
    memcpy(r->t.buf + r->t.len, lr.buf, n);
    r->t.len += n;
    r->t.buf[r->t.len++] = '\n';
    r->t.buf[r->t.len] = '\0';
  }
  acs__lines_close(&lr);
  if (rc == 0 && !r->t.buf)
    return acs_diag_set(r->d, ACS_EPARSE, r->path, 0, 0, "empty file: no statement");
  return rc;
}

/* Line and column (1-based) of a buffer offset. O(log lines). */
static void locate(const struct reader *r, int off, int *line, int *col)
{
  size_t lo = 0, hi = r->t.nlines;

  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (r->t.line_off[mid] <= off)
      lo = mid;
    else
      hi = mid;
  }
  *line = (int)lo + 1;
  *col = off - r->t.line_off[lo] + 1;
}

/* An err_at or warn_at message: the text, and where byte `off` is. */
struct located {
  char msg[1024];
  int line, col;
};

static void vlocated(const struct reader *r, int off, const char *fmt, va_list ap,
                     struct located *at)
{
  vsnprintf(at->msg, sizeof(at->msg), fmt, ap);
  locate(r, off, &at->line, &at->col);
}

static int err_at(struct reader *r, int err, int off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int err_at(struct reader *r, int err, int off, const char *fmt, ...)
{
  struct located at;
  va_list ap;

  va_start(ap, fmt);
  vlocated(r, off, fmt, ap, &at);
  va_end(ap);
  return acs_diag_set(r->d, err, r->path, at.line, at.col, "%s", at.msg);
}

static void warn_at(struct reader *r, int off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn_at(struct reader *r, int off, const char *fmt, ...)
{
  struct located at;
  va_list ap;

  va_start(ap, fmt);
  vlocated(r, off, fmt, ap, &at);
  va_end(ap);
  acs_diag_warn(r->d, r->path, at.line, at.col, "%s", at.msg);
}

/* ---- statements ---- */

/* Offset of the first character that is neither a blank nor in a comment,
 * from off. */
static int skip_blank(const struct reader *r, int off, int end)
{
  return acs__isltext_skip_blank(r->t.buf, off, end);
}

/*
 * The end of the statement starting at `start`: the end of its line, or of
 * the line where its last open brace closes. Comments do not count.
 */
static int statement_end(struct reader *r, int start, int *end)
{
  int depth = 0, open_off = -1, off = start;

  for (;;) {
    char c = off < (int)r->t.len ? r->t.buf[off] : '\0';
    if (c == '\0') {
      if (depth > 0)
        return err_at(r, ACS_EPARSE, open_off, "'{' is never closed");
      *end = off;
      return ACS_OK;
    }
    if (c == '#') {
      while (off < (int)r->t.len && r->t.buf[off] != '\n')
        off++;
      continue;
    }
    if (c == '{' && depth++ == 0)
      open_off = off;
    if (c == '}' && --depth < 0)
      return err_at(r, ACS_EPARSE, off, "'}' without a matching '{'");
    if (c == '\n' && depth == 0) {
      *end = off;
      return ACS_OK;
    }
    off++;
  }
}

/* The first len bytes of s as a string in the model's arena. */
static const char *arena_slice(struct acs_sare *m, const char *s, int len)
{
  char *out = acs_arena_alloc(&m->arena, (size_t)len + 1);

  if (out) {
    memcpy(out, s, (size_t)len);
    out[len] = '\0';
  }
  return out;
}

/* Copies [off, end) into a NUL-terminated buffer (malloc'd). */
static char *slice(const struct reader *r, int off, int end)
{
  char *s = malloc((size_t)(end - off) + 1);

  if (s) {
    memcpy(s, r->t.buf + off, (size_t)(end - off));
    s[end - off] = '\0';
  }
  return s;
}

/* ---- isl text ---- */

/*
 * Checks the isl text at [off, end) as `kind` and parses it with isl
 * (prefixing the system's parameters when the text has no parameter list).
 * *used is the offset just past the closing brace. *obj is an isl_set or
 * isl_map aligned to the system's parameters.
 */
static int parse_isl(struct reader *r, int off, int end, int kind, struct acs__isltext *info,
                     void **obj, int *used)
{
  struct acs_sare *m = r->m;
  char msg[512], prefix[ACS_SARE_MAX_PARAMS * ACS_SARE_NAME_MAX + 16];
  char *text = slice(r, off, end), *full;
  int err_off, err = ACS_OK;
  size_t plen = 0;

  *obj = NULL;
  if (!text)
    return ACS_ENOMEM;
  if (acs__isltext_check(text, kind, kind == ACS__ISLTEXT_CONTEXT ? NULL : m->param,
                         m->nparams, info, &err_off, msg, sizeof(msg)) < 0) {
    free(text);
    return err_at(r, ACS_EPARSE, off + err_off, "%s", msg);
  }
  text[info->end] = '\0';
  *used = off + info->end;
  prefix[0] = '\0';
  if (!info->has_params && m->nparams > 0) {
    plen = (size_t)snprintf(prefix, sizeof(prefix), "[");
    for (int32_t p = 0; p < m->nparams; p++)
      plen += (size_t)snprintf(prefix + plen, sizeof(prefix) - plen, "%s%s", p ? ", " : "",
                               m->param[p]);
    plen += (size_t)snprintf(prefix + plen, sizeof(prefix) - plen, "] -> ");
  }
  full = malloc(plen + strlen(text) + 1);
  if (!full) {
    free(text);
    return ACS_ENOMEM;
  }
  memcpy(full, prefix, plen);
  strcpy(full + plen, text);
  free(text);
  isl_ctx_reset_error(m->ctx);
  if (kind == ACS__ISLTEXT_MAP)
    *obj = isl_map_read_from_str(m->ctx, full);
  else
    *obj = isl_set_read_from_str(m->ctx, full);
  free(full);
  if (!*obj) {
    const char *why = isl_ctx_last_error_msg(m->ctx);
    return err_at(r, isl_ctx_last_error(m->ctx) == isl_error_alloc ? ACS_ENOMEM : ACS_EPARSE,
                  off, "isl cannot read this %s: %s", kind == ACS__ISLTEXT_MAP ? "map" : "set",
                  why ? why : "unknown error");
  }
  if (kind != ACS__ISLTEXT_CONTEXT) {
    isl_space *sp = isl_set_get_space(m->context);
    if (kind == ACS__ISLTEXT_MAP)
      *obj = isl_map_align_params(*obj, sp);
    else
      *obj = isl_set_align_params(*obj, sp);
    if (!*obj)
      err = ACS_ENOMEM;
  }
  return err;
}

/* ---- params and bind ---- */

static int stmt_params(struct reader *r, int kw_off, int off, int end)
{
  struct acs_sare *m = r->m;
  struct acs__isltext info;
  void *obj;
  int used, err;

  if (r->seen_params)
    return err_at(r, ACS_EPARSE, kw_off, "a second 'params' statement");
  if (r->seen_decl)
    return err_at(r, ACS_EPARSE, kw_off, "'params' must come before the variables");
  r->seen_params = 1;
  if ((err = parse_isl(r, off, end, ACS__ISLTEXT_CONTEXT, &info, &obj, &used)) < 0)
    return err;
  isl_set_free(m->context);
  m->context = obj;
  m->nparams = info.nparams;
  for (int32_t p = 0; p < info.nparams; p++)
    if (!(m->param[p] = acs_arena_strdup(&m->arena, info.param[p])))
      return ACS_ENOMEM;
  if (skip_blank(r, used, end) != end)
    return err_at(r, ACS_EPARSE, skip_blank(r, used, end), "unexpected text after the context");
  if (isl_set_is_empty(m->context) == isl_bool_true)
    return err_at(r, ACS_EPARSE, off, "the context allows no parameter value");
  return ACS_OK;
}

/* A decimal integer at off (optional sign); *next is the offset after it. */
static int read_int(struct reader *r, int off, int end, const char *what, int64_t *out,
                    int *next)
{
  char buf[32];
  int k = off;

  if (k < end && (r->t.buf[k] == '-' || r->t.buf[k] == '+'))
    k++;
  while (k < end && isdigit((unsigned char)r->t.buf[k]))
    k++;
  if (k == off || k - off >= (int)sizeof(buf) ||
      !isdigit((unsigned char)r->t.buf[k - 1]))
    return err_at(r, ACS_EPARSE, off, "expected an integer for %s", what);
  memcpy(buf, r->t.buf + off, (size_t)(k - off));
  buf[k - off] = '\0';
  if (acs_parse_i64(buf, out) < 0)
    return err_at(r, ACS_ERANGE, off, "%s '%s' does not fit in 64 bits", what, buf);
  *next = k;
  return ACS_OK;
}

static int ident_end(const struct reader *r, int off, int end)
{
  while (off < end && (isalnum((unsigned char)r->t.buf[off]) || r->t.buf[off] == '_'))
    off++;
  return off;
}

/* "bind N = 8, K = 3". */
static int stmt_bind(struct reader *r, int kw_off, int off, int end)
{
  struct acs_sare *m = r->m;

  locate(r, kw_off, &m->bind_line, &m->bind_col);

  for (;;) {
    char name[ACS_SARE_NAME_MAX];
    int name_off = skip_blank(r, off, end), e = ident_end(r, name_off, end);
    int64_t v;
    int32_t p;
    if (e == name_off || e - name_off >= ACS_SARE_NAME_MAX)
      return err_at(r, ACS_EPARSE, name_off, "expected a parameter name");
    memcpy(name, r->t.buf + name_off, (size_t)(e - name_off));
    name[e - name_off] = '\0';
    if ((p = acs_sare_find_param(m, name)) < 0)
      return err_at(r, ACS_EPARSE, name_off, "'%s' is not a parameter of the system", name);
    off = skip_blank(r, e, end);
    if (off >= end || r->t.buf[off] != '=')
      return err_at(r, ACS_EPARSE, off, "expected '=' after %s", name);
    off = skip_blank(r, off + 1, end);
    int val_off = off;
    int err = read_int(r, off, end, name, &v, &off);
    if (err < 0)
      return err;
    if (v < -ACS_SARE_MAX_VALUE || v > ACS_SARE_MAX_VALUE)
      return err_at(r, ACS_ERANGE, val_off, "%s = %" PRId64 " is out of range [-%" PRId64
                    ", %" PRId64 "]", name, v, ACS_SARE_MAX_VALUE, ACS_SARE_MAX_VALUE);
    if (m->has_value[p])
      return err_at(r, ACS_EPARSE, name_off, "%s is bound twice", name);
    m->has_value[p] = 1;
    m->value[p] = v;
    off = skip_blank(r, off, end);
    if (off >= end)
      return ACS_OK;
    if (r->t.buf[off] != ',')
      return err_at(r, ACS_EPARSE, off, "expected ',' or the end of the line");
    off++;
  }
}

/* ---- declarations ---- */

static int check_domain(struct reader *r, struct acs_sare_var *v, int off)
{
  isl_bool b = isl_set_is_empty(v->domain);
  isl_basic_set *aff;

  if (b == isl_bool_true)
    return err_at(r, ACS_EPARSE, off, "the domain of '%s' is empty for every parameter value",
                  v->name);
  if ((b = isl_set_is_bounded(v->domain)) != isl_bool_true)
    return b < 0 ? ACS_ENOMEM
                 : err_at(r, ACS_EPARSE, off, "the domain of '%s' is unbounded: every index "
                          "needs a lower and an upper bound", v->name);
  /* An equality between indices leaves a schedule coefficient free (any
   * multiple of it can be traded against the others), so the lexicographic
   * minimum would run off to minus infinity. */
  aff = isl_set_affine_hull(isl_set_copy(v->domain));
  if (!aff)
    return ACS_ENOMEM;
  isl_mat *eq = isl_basic_set_equalities_matrix(aff, isl_dim_set, isl_dim_param, isl_dim_cst,
                                                isl_dim_div);
  isl_basic_set_free(aff);
  if (!eq)
    return ACS_ENOMEM;
  for (int i = 0; i < isl_mat_rows(eq); i++)
    for (int j = 0; j < v->ndims; j++) {
      isl_val *c = isl_mat_get_element_val(eq, i, j);
      int zero = c && isl_val_is_zero(c) == isl_bool_true;
      isl_val_free(c);
      if (!zero) {
        isl_mat_free(eq);
        return err_at(r, ACS_EPARSE, off, "the domain of '%s' is flat (an equality ties index "
                      "'%s' to the others): declare '%s' with fewer indices", v->name,
                      v->dim[j], v->name);
      }
    }
  isl_mat_free(eq);
  return ACS_OK;
}

/* The polyhedra of a set, with a located message when isl left integer
 * divisions in it. */
static int set_polys(struct reader *r, isl_set *s, int32_t nx, struct acs_sare_union *u,
                     struct acs_sare_poly *hull, int off)
{
  int err = acs__sare_union_from_set(s, nx, r->m->nparams, u);

  if (err == ACS_OK)
    err = acs__sare_hull_from_set(s, nx, r->m->nparams, hull);
  if (err == ACS_EINVAL)
    return err_at(r, ACS_EPARSE, off, "this set needs integer divisions (a stride or "
                  "existential): not supported");
  if (err == ACS_ERANGE)
    return err_at(r, ACS_ERANGE, off, "a coefficient of this set exceeds 2^31");
  return err;
}

static int stmt_var(struct reader *r, int kind, int kw_off, int off, int end)
{
  struct acs_sare *m = r->m;
  struct acs__isltext info;
  struct acs_sare_var *v;
  void *obj;
  int used, err, name_off;

  r->seen_decl = 1;
  if ((err = parse_isl(r, off, end, ACS__ISLTEXT_SET, &info, &obj, &used)) < 0)
    return err;
  name_off = off + info.in.off;
  if (acs_sare_find_param(m, info.in.name) >= 0)
    err = err_at(r, ACS_EPARSE, name_off, "'%s' is a parameter, not a variable", info.in.name);
  else if (acs_sare_find_var(m, info.in.name) >= 0)
    err = err_at(r, ACS_EPARSE, name_off, "variable '%s' is declared twice", info.in.name);
  else
    err = acs_grow((void **)&m->vars, sizeof(*m->vars), &r->cap_vars, (size_t)m->nvars + 1);
  if (err < 0) {
    isl_set_free(obj);
    return err;
  }
  v = &m->vars[m->nvars];
  memset(v, 0, sizeof(*v));
  v->domain = obj;
  v->name = "";
  m->nvars++;
  v->name = acs_arena_strdup(&m->arena, info.in.name);
  v->text = arena_slice(m, r->t.buf + off, info.end);
  if (!v->name || !v->text)
    return ACS_ENOMEM;
  v->kind = kind;
  v->ndims = info.in.n;
  locate(r, kw_off, &v->line, &v->col);
  for (int32_t k = 0; k < v->ndims; k++)
    if (!(v->dim[k] = acs_arena_strdup(&m->arena, info.in.dim[k])))
      return ACS_ENOMEM;
  v->domain = isl_set_intersect_params(v->domain, isl_set_copy(m->context));
  if (!v->domain)
    return ACS_ENOMEM;
  v->domain = isl_set_coalesce(v->domain);
  if ((err = check_domain(r, v, name_off)) < 0 ||
      (err = set_polys(r, v->domain, v->ndims, &v->pieces, &v->hull, off)) < 0)
    return err;
  v->delay = kind == ACS_SARE_INPUT ? 0 : 1;
  off = skip_blank(r, used, end);
  if (off < end) {
    int e = ident_end(r, off, end);
    if (e - off != 5 || strncmp(r->t.buf + off, "delay", 5) != 0)
      return err_at(r, ACS_EPARSE, off, "unexpected text after the domain (expected 'delay N' "
                    "or the end of the line)");
    if (kind == ACS_SARE_INPUT)
      return err_at(r, ACS_EPARSE, off, "an input is not computed: it has no delay");
    off = skip_blank(r, e, end);
    int val_off = off;
    if ((err = read_int(r, off, end, "the delay", &v->delay, &off)) < 0)
      return err;
    if (v->delay < 1 || v->delay > ACS_SARE_MAX_DELAY)
      return err_at(r, ACS_ERANGE, val_off, "delay %" PRId64 " is out of range [1, %" PRId64
                    "] cycles", v->delay, ACS_SARE_MAX_DELAY);
    if ((off = skip_blank(r, off, end)) != end)
      return err_at(r, ACS_EPARSE, off, "unexpected text after the delay");
  }
  return ACS_OK;
}

/* ---- reads ---- */

/* One piece of a read's index function: a dependence. */
struct piece_ctx {
  struct reader *r;
  int32_t dst, src;
  int off, line, col;
  const char *text;
  isl_map *map;
  int err;
};

static int aff_row(struct piece_ctx *pc, isl_aff *aff, int64_t *row, int32_t nx, int32_t np)
{
  isl_val *den = isl_aff_get_denominator_val(aff);
  int64_t dv;

  if (acs__sare_val_i64(den, &dv) < 0 || dv != 1 || isl_aff_dim(aff, isl_dim_div) != 0)
    return err_at(pc->r, ACS_EPARSE, pc->off, "the index function of this read is not affine "
                  "with integer coefficients");
  for (int32_t k = 0; k < nx; k++)
    if (acs__sare_val_i64(isl_aff_get_coefficient_val(aff, isl_dim_in, k), &row[k]) < 0)
      return ACS_ERANGE;
  for (int32_t k = 0; k < np; k++)
    if (acs__sare_val_i64(isl_aff_get_coefficient_val(aff, isl_dim_param, k), &row[nx + k]) < 0)
      return ACS_ERANGE;
  if (acs__sare_val_i64(isl_aff_get_constant_val(aff), &row[nx + np]) < 0)
    return ACS_ERANGE;
  for (int32_t k = 0; k <= nx + np; k++)
    if (row[k] > (INT64_C(1) << 31) || row[k] < -(INT64_C(1) << 31))
      return err_at(pc->r, ACS_ERANGE, pc->off, "a coefficient of this read exceeds 2^31");
  return ACS_OK;
}

static isl_stat add_dep_piece(isl_set *set, isl_multi_aff *ma, void *user)
{
  struct piece_ctx *pc = user;
  struct reader *r = pc->r;
  struct acs_sare *m = r->m;
  int32_t nx = m->vars[pc->dst].ndims, ny = m->vars[pc->src].ndims, np = m->nparams;
  struct acs_sare_dep *e;
  int err;

  err = acs_grow((void **)&m->deps, sizeof(*m->deps), &r->cap_deps, (size_t)m->ndeps + 1);
  if (err == ACS_OK) {
    e = &m->deps[m->ndeps++];
    memset(e, 0, sizeof(*e));
    e->dst = pc->dst;
    e->src = pc->src;
    e->line = pc->line;
    e->col = pc->col;
    e->text = pc->text;
    e->map = isl_map_intersect_domain(isl_map_copy(pc->map), isl_set_copy(set));
    e->fn = calloc((size_t)ny * (size_t)(nx + np + 1) + 1, sizeof(*e->fn));
    err = !e->map || !e->fn ? ACS_ENOMEM : ACS_OK;
    for (int32_t k = 0; k < ny && err == ACS_OK; k++) {
      isl_aff *aff = isl_multi_aff_get_aff(ma, k);
      err = aff ? aff_row(pc, aff, e->fn + (size_t)k * (size_t)(nx + np + 1), nx, np)
                : ACS_ENOMEM;
      isl_aff_free(aff);
    }
    if (err == ACS_OK)
      err = set_polys(r, set, nx, &e->pieces, &e->hull, pc->off);
  }
  isl_set_free(set);
  isl_multi_aff_free(ma);
  pc->err = err;
  return err == ACS_OK ? isl_stat_ok : isl_stat_error;
}

/* Reports a consumer instance that reads outside the producer's domain. */
static int read_outside(struct reader *r, isl_map *map, const struct acs_sare_var *src, int off)
{
  isl_map *bad = isl_map_subtract_range(isl_map_copy(map), isl_set_copy(src->domain));
  isl_set *where = isl_map_domain(bad);
  isl_point *pt = isl_set_sample_point(isl_set_copy(where));
  char *s = pt ? isl_point_to_str(pt) : NULL;
  int err = err_at(r, ACS_EPARSE, off, "this read reaches outside the domain of '%s', e.g. "
                   "from %s", src->name, s ? s : "some instance");

  free(s);
  isl_point_free(pt);
  isl_set_free(where);
  return err;
}

static int arity(struct reader *r, int off, const struct acs_sare_var *v, int32_t n)
{
  return err_at(r, ACS_EPARSE, off, "'%s' is declared with %d %s; this tuple has %d", v->name,
                (int)v->ndims, v->ndims == 1 ? "index" : "indices", (int)n);
}

static int stmt_read(struct reader *r, int kw_off, int off, int end)
{
  struct acs_sare *m = r->m;
  struct acs__isltext info;
  struct piece_ctx pc;
  void *obj;
  isl_map *map;
  isl_pw_multi_aff *pma;
  int used, err;
  isl_bool b;

  if ((err = parse_isl(r, off, end, ACS__ISLTEXT_MAP, &info, &obj, &used)) < 0)
    return err;
  map = obj;
  memset(&pc, 0, sizeof(pc));
  pc.r = r;
  pc.off = off;
  locate(r, kw_off, &pc.line, &pc.col);
  pc.dst = acs_sare_find_var(m, info.in.name);
  pc.src = acs_sare_find_var(m, info.out.name);
  err = ACS_OK;
  if (skip_blank(r, used, end) != end)
    err = err_at(r, ACS_EPARSE, skip_blank(r, used, end), "unexpected text after the map");
  else if (pc.dst < 0)
    err = err_at(r, ACS_EPARSE, off + info.in.off, "unknown variable '%s'", info.in.name);
  else if (pc.src < 0)
    err = err_at(r, ACS_EPARSE, off + info.out.off, "unknown variable '%s'", info.out.name);
  else if (!acs_sare_computed(m, pc.dst))
    err = err_at(r, ACS_EPARSE, off + info.in.off, "'%s' is an input: it is not computed, so it "
                 "reads nothing", info.in.name);
  else if (info.in.n != m->vars[pc.dst].ndims)
    err = arity(r, off + info.in.off, &m->vars[pc.dst], info.in.n);
  else if (info.out.n != m->vars[pc.src].ndims)
    err = arity(r, off + info.out.off, &m->vars[pc.src], info.out.n);
  if (err < 0)
    goto out_with_map;
  pc.text = arena_slice(m, r->t.buf + off, info.end);
  if (!pc.text) {
    err = ACS_ENOMEM;
    goto out_with_map;
  }
  map = isl_map_intersect_domain(map, isl_set_copy(m->vars[pc.dst].domain));
  if (!map)
    return ACS_ENOMEM;
  if ((b = isl_map_is_empty(map)) == isl_bool_true) {
    warn_at(r, off, "this read never happens: its sub-domain misses the domain of '%s'",
            m->vars[pc.dst].name);
    goto out_with_map;
  }
  if ((b = isl_map_is_single_valued(map)) != isl_bool_true) {
    err = b < 0 ? ACS_ENOMEM
                : err_at(r, ACS_EPARSE, off, "one instance of '%s' reads several instances of "
                         "'%s': a read must be a function", m->vars[pc.dst].name,
                         m->vars[pc.src].name);
    goto out_with_map;
  }
  {
    isl_set *range = isl_map_range(isl_map_copy(map));
    b = isl_set_is_subset(range, m->vars[pc.src].domain);
    isl_set_free(range);
    if (b != isl_bool_true) {
      err = b < 0 ? ACS_ENOMEM : read_outside(r, map, &m->vars[pc.src], off);
      goto out_with_map;
    }
  }
  pc.map = map;
  pma = isl_pw_multi_aff_from_map(isl_map_copy(map));
  if (!pma || (isl_pw_multi_aff_foreach_piece(pma, add_dep_piece, &pc) < 0 && pc.err == ACS_OK))
    pc.err = ACS_ENOMEM;
  isl_pw_multi_aff_free(pma);
  err = pc.err;

out_with_map:
  isl_map_free(map);
  return err;
}

/* ---- the file, statement by statement ---- */

static int statement(struct reader *r, int start, int end)
{
  static const char *const kws[] = {"params", "bind", "input", "local", "output", "read", NULL};
  int e = ident_end(r, start, end), k;
  int rest = skip_blank(r, e, end);

  for (k = 0; kws[k]; k++)
    if ((size_t)(e - start) == strlen(kws[k]) && strncmp(r->t.buf + start, kws[k], (size_t)(e - start)) == 0)
      break;
  if (!kws[k])
    return err_at(r, ACS_EPARSE, start, "unknown statement '%.*s' (expected params, bind, input, "
                  "local, output or read)", e > start ? e - start : 1, r->t.buf + start);
  if (rest >= end && k != 0)
    return err_at(r, ACS_EPARSE, e, "'%s' needs %s", kws[k], k == 1 ? "N = value" : "a set or map");
  switch (k) {
  case 0: return stmt_params(r, start, rest, end);
  case 1: return stmt_bind(r, start, rest, end);
  case 2: return stmt_var(r, ACS_SARE_INPUT, start, rest, end);
  case 3: return stmt_var(r, ACS_SARE_LOCAL, start, rest, end);
  case 4: return stmt_var(r, ACS_SARE_OUTPUT, start, rest, end);
  default: return stmt_read(r, start, rest, end);
  }
}

static int parse_statements(struct reader *r)
{
  int off = 0, err;

  while (off < (int)r->t.len) {
    int start = skip_blank(r, off, (int)r->t.len), end = 0;
    if (start >= (int)r->t.len)
      break;
    if (r->t.buf[start] == '#') {
      while (start < (int)r->t.len && r->t.buf[start] != '\n')
        start++;
      off = start;
      continue;
    }
    r->stmt_off = start;
    if ((err = statement_end(r, start, &end)) < 0 || (err = statement(r, start, end)) < 0)
      return err;
    off = end;
  }
  return ACS_OK;
}

/* Warnings about the system as a whole; errors when nothing is computed. */
static int check_system(struct reader *r)
{
  struct acs_sare *m = r->m;
  int any = 0;

  for (int32_t v = 0; v < m->nvars; v++) {
    int read = 0;
    any |= m->vars[v].kind == ACS_SARE_OUTPUT;
    for (int32_t e = 0; e < m->ndeps && !read; e++)
      read = m->deps[e].src == v;
    if (!read && m->vars[v].kind != ACS_SARE_OUTPUT) {
      int line = m->vars[v].line, col = m->vars[v].col;
      acs_diag_warn(r->d, r->path, line, col, "%s '%s' is never read", acs_sare_kind_name(m->vars[v].kind),
                    m->vars[v].name);
    }
  }
  if (!any)
    return acs_diag_set(r->d, ACS_EPARSE, r->path, 0, 0, "the system has no output variable");
  return ACS_OK;
}

/* "file.sare:N=64:K=3": the file and the overrides (each value an integer). */
static int apply_suffix(struct acs_sare *m, const char *suffix, const char *spec,
                        struct acs_diag *d)
{
  const char *s = suffix;

  while (*s == ':') {
    char name[ACS_SARE_NAME_MAX];
    const char *eq = strchr(s + 1, '='), *endv;
    char *end;
    long long v;
    int32_t p;
    int col = (int)(s - spec) + 2;
    if (!eq || eq == s + 1 || (size_t)(eq - s - 1) >= sizeof(name))
      return acs_diag_set(d, ACS_EPARSE, spec, 0, col, "expected NAME=VALUE after ':'");
    memcpy(name, s + 1, (size_t)(eq - s - 1));
    name[eq - s - 1] = '\0';
    if ((p = acs_sare_find_param(m, name)) < 0)
      return acs_diag_set(d, ACS_EPARSE, spec, 0, col, "'%s' is not a parameter of the system",
                          name);
    endv = strchr(eq + 1, ':');
    endv = endv ? endv : eq + 1 + strlen(eq + 1);
    errno = 0;
    v = strtoll(eq + 1, &end, 10);
    if (end != endv || end == eq + 1 || errno == ERANGE)
      return acs_diag_set(d, ACS_EPARSE, spec, 0, (int)(eq - spec) + 2,
                          "%s: '%.*s' is not an integer", name, (int)(endv - eq - 1), eq + 1);
    if (v < -ACS_SARE_MAX_VALUE || v > ACS_SARE_MAX_VALUE)
      return acs_diag_set(d, ACS_ERANGE, spec, 0, (int)(eq - spec) + 2,
                          "%s = %lld is out of range [-%" PRId64 ", %" PRId64 "]", name, v,
                          ACS_SARE_MAX_VALUE, ACS_SARE_MAX_VALUE);
    m->has_value[p] = 1;
    m->value[p] = v;
    m->bind_line = m->bind_col = 0;
    s = endv;
  }
  if (*s)
    return acs_diag_set(d, ACS_EPARSE, spec, 0, (int)(s - spec) + 1, "unexpected '%s'", s);
  return ACS_OK;
}

int acs_sare_read(const char *spec, struct acs_sare **out, struct acs_diag *d)
{
  struct reader r;
  const char *suffix = acs_sare_spec_suffix(spec);
  char *path;
  int err;

  *out = NULL;
  memset(&r, 0, sizeof(r));
  r.d = d;
  path = suffix ? strndup(spec, (size_t)(suffix - spec)) : strdup(spec);
  r.m = calloc(1, sizeof(*r.m));
  if (!path || !r.m) {
    free(path);
    free(r.m);
    return ACS_ENOMEM;
  }
  r.path = path;
  acs_arena_init(&r.m->arena);
  r.m->path = acs_arena_strdup(&r.m->arena, path);
  r.m->ctx = isl_ctx_alloc();
  if (!r.m->path || !r.m->ctx) {
    err = ACS_ENOMEM;
    goto out_with_model;
  }
  /* isl must never print or abort: errors come back as NULL results and
   * the reader turns them into located messages. */
  isl_options_set_on_error(r.m->ctx, ISL_ON_ERROR_CONTINUE);
  acs__sare_isl_budget(r.m->ctx);
  r.m->context = isl_set_universe(isl_space_params_alloc(r.m->ctx, 0));
  if (!r.m->context) {
    err = ACS_ENOMEM;
    goto out_with_model;
  }
  if ((err = read_file(&r)) < 0 || (err = parse_statements(&r)) < 0)
    goto out_with_model;
  if (r.m->nvars == 0) {
    err = acs_diag_set(d, ACS_EPARSE, path, 0, 0, "no variable declared");
    goto out_with_model;
  }
  if ((err = check_system(&r)) < 0 ||
      (err = acs__sare_hull_from_set(r.m->context, 0, r.m->nparams, &r.m->context_poly)) < 0 ||
      (suffix && (err = apply_suffix(r.m, suffix, spec, d)) < 0))
    goto out_with_model;
  acs__sare_isl_unbounded(r.m->ctx);
  *out = r.m;
  r.m = NULL;

out_with_model:
  /* Whatever isl said last, a failure after the budget ran out is the
   * limit's, located at the statement being read. */
  if (err < 0 && r.m && r.m->ctx && acs__sare_isl_over(r.m->ctx))
    err = err_at(&r, ACS_ELIMIT, r.stmt_off,
                 "reading the system takes more than the limit isl_ops=%lld operations of "
                 "isl (--max isl_ops=N raises it)",
                 (long long)acs_limit_get(ACS_LIMIT_ISL_OPS));
  acs_sare_free(r.m);
  free(r.t.buf);
  free(r.t.line_off);
  free(path);
  return err;
}
