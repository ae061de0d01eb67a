/*
 * sare_inst.c - the instances of a system with its parameters bound: the
 * points of every variable's domain in lexicographic order, and the
 * dependence instances between them (see acs_sare_inst_build in sare.h).
 *
 * A domain is scanned level by level: for each piece of the domain and
 * each index k, the rational projection of the piece onto x_0..x_k (from
 * isl, once per build) bounds x_k given x_0..x_(k-1), so the scan visits
 * the points and the prefixes that lead to them, not the bounding box: a
 * two-wide band across an 8192 x 8192 box costs 16 K points, not a table
 * of 64 M cells. A prefix whose projection holds no integer completion is
 * a dead end, and counted.
 *
 * Cost, bounded as it is spent: the points of all variables together stop
 * at the ops limit (acs.h), the scan's steps (one per constraint row
 * evaluated or candidate visited) at SCAN_STEPS_PER_OP times that limit,
 * and isl's work (the projections, per variable) at the isl_ops limit,
 * each refused with ACS_ELIMIT; points are stored as they are found, so
 * memory follows the points.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/ilp.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/val.h>

#include "core/model/sare.h"
#include "core/model/sare_int.h"

/* Steps a scan may take per instance the ops limit allows: a few dozen
 * rows per level of a few levels, with room for dead ends. */
#define SCAN_STEPS_PER_OP 256
/* Interrupts are polled every this many steps. */
#define POLL_STEPS 65536

void acs_sare_inst_free(struct acs_sare_inst *in)
{
  for (int32_t v = 0; in->var && v < in->nvars; v++)
    free(in->var[v].pt);
  free(in->var);
  free(in->op_var);
  memset(in, 0, sizeof(*in));
}

/* ---- preparing a domain ---- */

/* Piece of a domain for the scan: at level k, the rows r of its projection
 * onto x_0..x_k with r[k] != 0 and the parameters substituted, k + 2
 * integers each (x_0..x_k, constant), meaning r . (x, 1) >= 0. */
struct scan_piece {
  int32_t nrows[ACS_SARE_MAX_DIMS];
  int64_t *rows[ACS_SARE_MAX_DIMS];
};

struct scan {
  const struct acs_sare *m;
  int32_t v, n, np;              /* the variable, its indices, the parameters */
  const int64_t *values;
  int32_t npieces;
  size_t cap_pieces;
  struct scan_piece *piece;
  int64_t *lo, *hi;              /* per level, npieces bounds */
  int32_t *live;                 /* per level, npieces: the pieces still possible */
  int32_t nlive[ACS_SARE_MAX_DIMS + 1];
  int64_t x[ACS_SARE_MAX_DIMS];
  struct acs_sare_vinst *vi;
  size_t cap_pt;
  int64_t *points;               /* points of every variable so far */
  int64_t steps;
  struct acs_diag *d;
};

static void scan_free(struct scan *s)
{
  for (int32_t i = 0; i < s->npieces; i++)
    for (int32_t k = 0; k < s->n; k++)
      free(s->piece[i].rows[k]);
  free(s->piece);
  free(s->lo);
  free(s->hi);
  free(s->live);
}

/* Appends the rows of poly p (over x_0..x_k, the parameters, 1) that
 * involve x_k, with the parameters substituted; an equality gives two.
 * Returns 1 when a row without x_k is violated (the piece is empty). */
static int take_rows(const struct scan *s, const struct acs_sare_poly *p, int32_t k,
                     struct scan_piece *sp)
{
  int32_t w = k + 2, ncols = p->ncols;
  int64_t *rows = malloc(((size_t)2 * (size_t)(p->nineq + p->neq) + 1) * (size_t)w *
                         sizeof(*rows));
  int32_t n = 0, empty = 0;

  if (!rows)
    return ACS_ENOMEM;
  for (int32_t r = 0; r < p->nineq + p->neq; r++) {
    const int64_t *src = r < p->nineq ? p->ineq + (size_t)r * (size_t)ncols
                                      : p->eq + (size_t)(r - p->nineq) * (size_t)ncols;
    int64_t c = src[ncols - 1];
    for (int32_t q = 0; q < s->np; q++) {
      int64_t t;
      if (acs_mul_i64(src[k + 1 + q], s->values[q], &t) || acs_add_i64(c, t, &c)) {
        free(rows);
        return ACS_ERANGE;
      }
    }
    for (int sign = 1; sign >= (r < p->nineq ? 1 : -1); sign -= 2) {
      if (src[k] == 0) {
        /* Implied by the levels above, except at level 0 (constants). */
        empty |= k == 0 && sign * c < 0;
        continue;
      }
      for (int32_t j = 0; j <= k; j++)
        rows[(size_t)n * (size_t)w + (size_t)j] = sign * src[j];
      rows[(size_t)n * (size_t)w + (size_t)k + 1] = sign * c;
      n++;
    }
  }
  sp->rows[k] = rows;
  sp->nrows[k] = n;
  return empty;
}

/* One basic set of the domain (parameters fixed): its projections. */
static isl_stat add_piece(isl_basic_set *bset, void *user)
{
  struct scan *s = user;
  struct scan_piece *sp;
  int err = acs_grow((void **)&s->piece, sizeof(*s->piece), &s->cap_pieces,
                     (size_t)s->npieces + 1);
  int empty = 0;

  if (err < 0) {
    isl_basic_set_free(bset);
    return isl_stat_error;
  }
  sp = &s->piece[s->npieces++];
  memset(sp, 0, sizeof(*sp));
  for (int32_t k = 0; k < s->n && err >= 0; k++) {
    isl_basic_set *b = isl_basic_set_copy(bset);
    struct acs_sare_poly p;
    if (k + 1 < s->n)
      b = isl_basic_set_remove_divs(
          isl_basic_set_project_out(b, isl_dim_set, (unsigned)k + 1, (unsigned)(s->n - k - 1)));
    err = b ? acs__sare_poly_from_bset(b, k + 1, s->np, &p) : ACS_ENOMEM;
    isl_basic_set_free(b);
    if (err == ACS_OK) {
      err = take_rows(s, &p, k, sp);
      acs_sare_poly_free(&p);
      empty |= err == 1;
    }
  }
  isl_basic_set_free(bset);
  if (err == ACS_OK || err == 1) {
    s->npieces -= empty;   /* an empty piece is dropped (its rows too) */
    if (empty)
      for (int32_t k = 0; k < s->n; k++)
        free(sp->rows[k]);
    return isl_stat_ok;
  }
  return isl_stat_error;
}

/* The domain of variable v with the parameters fixed, as pieces to scan,
 * and its bounding box (exact per index, from isl). *empty when it holds
 * no point. */
static int scan_prepare(struct scan *s, struct acs_diag *d, int *empty)
{
  const struct acs_sare_var *var = &s->m->vars[s->v];
  isl_set *set = isl_set_copy(var->domain);
  isl_bool is_empty;
  int err = ACS_OK;

  for (int32_t p = 0; p < s->np && set; p++)
    set = isl_set_fix_si(set, isl_dim_param, (unsigned)p, (int)s->values[p]);
  is_empty = set ? isl_set_is_empty(set) : isl_bool_error;
  *empty = is_empty == isl_bool_true;
  for (int32_t k = 0; k < s->n && is_empty == isl_bool_false && err == ACS_OK; k++)
    if (acs__sare_val_i64(isl_set_dim_min_val(isl_set_copy(set), k), &s->vi->lo[k]) < 0 ||
        acs__sare_val_i64(isl_set_dim_max_val(isl_set_copy(set), k), &s->vi->hi[k]) < 0 ||
        s->vi->lo[k] < INT32_MIN || s->vi->hi[k] > INT32_MAX)
      err = acs_diag_set(d, ACS_ERANGE, s->m->path, var->line, var->col,
                         "an index of '%s' is unbounded or exceeds 32 bits for these "
                         "parameter values", var->name);
  if (is_empty == isl_bool_false && err == ACS_OK &&
      isl_set_foreach_basic_set(set, add_piece, s) < 0)
    err = ACS_ENOMEM;
  isl_set_free(set);
  if (is_empty == isl_bool_error)
    return ACS_ENOMEM;
  return err;
}

/* ---- the scan ---- */

static int over_budget(struct scan *s, int64_t cost)
{
  const struct acs_sare_var *var = &s->m->vars[s->v];
  int64_t budget = acs_limit_get(ACS_LIMIT_OPS) * SCAN_STEPS_PER_OP;

  if ((s->steps += cost) <= budget) {
    if (s->steps / POLL_STEPS != (s->steps - cost) / POLL_STEPS && acs_interrupt_pending())
      return ACS_EINTERRUPTED;
    return ACS_OK;
  }
  return acs_diag_set(s->d, ACS_ELIMIT, s->m->path, var->line, var->col,
                      "enumerating the instances of '%s' takes more than %" PRId64
                      " steps (%d per op of the limit ops=%" PRId64 "; --max ops=N raises it)",
                      var->name, budget, SCAN_STEPS_PER_OP, acs_limit_get(ACS_LIMIT_OPS));
}

/* Bounds of x_k in piece i given x_0..x_(k-1), within the box. */
static int piece_bounds(struct scan *s, int32_t i, int32_t k, int64_t *lo, int64_t *hi)
{
  const struct scan_piece *sp = &s->piece[i];
  int32_t w = k + 2;

  *lo = s->vi->lo[k];
  *hi = s->vi->hi[k];
  for (int32_t r = 0; r < sp->nrows[k] && *lo <= *hi; r++) {
    const int64_t *row = sp->rows[k] + (size_t)r * (size_t)w;
    int64_t rest = row[k + 1], t, a = row[k];
    for (int32_t j = 0; j < k; j++)
      if (acs_mul_i64(row[j], s->x[j], &t) || acs_add_i64(rest, t, &rest))
        return acs_diag_set(s->d, ACS_ERANGE, s->m->path, s->m->vars[s->v].line,
                            s->m->vars[s->v].col, "a constraint of '%s' overflows 64 bits",
                            s->m->vars[s->v].name);
    /* a x_k + rest >= 0, |a| <= 2^31 (acs__sare_poly_from_bset) */
    if (a > 0) {
      t = rest == INT64_MIN ? INT64_MAX : acs_ceil_div_i64(-rest, a);
      *lo = t > *lo ? t : *lo;
    } else {
      t = acs_floor_div_i64(rest, -a);
      *hi = t < *hi ? t : *hi;
    }
  }
  return over_budget(s, sp->nrows[k] + 1);
}

static int emit_point(struct scan *s)
{
  const struct acs_sare_var *var = &s->m->vars[s->v];
  struct acs_sare_vinst *vi = s->vi;
  size_t n = (size_t)(s->n ? s->n : 1);
  int err;

  if (*s->points >= acs_limit_get(ACS_LIMIT_OPS))
    return acs_diag_set(s->d, ACS_ELIMIT, s->m->path, var->line, var->col,
                        "the domains of the system hold more than %" PRId64 " instances "
                        "for these parameter values, more than the limit ops=%" PRId64
                        " (--max ops=N raises it)", *s->points, acs_limit_get(ACS_LIMIT_OPS));
  if ((err = acs_grow((void **)&vi->pt, n * sizeof(*vi->pt), &s->cap_pt,
                      (size_t)vi->count + 1)) < 0)
    return err;
  for (int32_t k = 0; k < s->n; k++)
    vi->pt[(size_t)vi->count * (size_t)s->n + (size_t)k] = (int32_t)s->x[k];
  vi->count++;
  (*s->points)++;
  return ACS_OK;
}

/* Every point with the prefix x_0..x_(k-1), in lexicographic order. */
static int scan_level(struct scan *s, int32_t k)
{
  int32_t np = s->npieces, m = 0, *live = s->live + (size_t)k * (size_t)np;
  int32_t *next = s->live + (size_t)(k + 1) * (size_t)np;
  int64_t *lo = s->lo + (size_t)k * (size_t)np, *hi = s->hi + (size_t)k * (size_t)np, v;
  int err;

  if (k == s->n)
    return emit_point(s);
  for (int32_t i = 0; i < s->nlive[k]; i++) {
    if ((err = piece_bounds(s, live[i], k, &lo[m], &hi[m])) < 0)
      return err;
    if (lo[m] <= hi[m])
      live[m++] = live[i];
  }
  for (v = INT64_MAX;;) {
    /* The next value at or after v in some piece's range. */
    int64_t best = INT64_MAX;
    for (int32_t i = 0; i < m; i++) {
      int64_t c = v == INT64_MAX ? lo[i] : lo[i] > v ? lo[i] : v;
      if (hi[i] >= c && c < best)
        best = c;
    }
    if (best == INT64_MAX || (err = over_budget(s, m)) < 0)
      return best == INT64_MAX ? ACS_OK : err;
    s->x[k] = v = best;
    s->nlive[k + 1] = 0;
    for (int32_t i = 0; i < m; i++)
      if (lo[i] <= v && v <= hi[i])
        next[s->nlive[k + 1]++] = live[i];
    if ((err = scan_level(s, k + 1)) < 0 || v == s->vi->hi[k])
      return err;
    v++;
  }
}

/* Enumerates the points of variable v; *points counts those of every
 * variable so far. */
static int var_points(const struct acs_sare *m, int32_t v, const int64_t *values,
                      struct acs_sare_vinst *vi, int64_t *points, struct acs_diag *d)
{
  struct scan s;
  size_t cells;
  int empty, err;

  memset(&s, 0, sizeof(s));
  s.m = m;
  s.v = v;
  s.n = m->vars[v].ndims;
  s.np = m->nparams;
  s.values = values;
  s.vi = vi;
  s.points = points;
  s.d = d;
  if ((err = scan_prepare(&s, d, &empty)) < 0 || empty || s.npieces == 0)
    goto out_with_scan;
  cells = ((size_t)s.n + 1) * (size_t)s.npieces;
  s.lo = malloc(cells * sizeof(*s.lo));
  s.hi = malloc(cells * sizeof(*s.hi));
  s.live = malloc(cells * sizeof(*s.live));
  if (!s.lo || !s.hi || !s.live) {
    err = ACS_ENOMEM;
    goto out_with_scan;
  }
  for (int32_t i = 0; i < s.npieces; i++)
    s.live[i] = i;
  s.nlive[0] = s.npieces;
  err = scan_level(&s, 0);
out_with_scan:
  scan_free(&s);
  return err;
}

/* ---- the instances ---- */

/* Every parameter value inside the context. */
static int check_values(const struct acs_sare *m, const int64_t *values, struct acs_diag *d)
{
  char buf[256];
  size_t used = 0;

  for (int32_t p = 0; p < m->nparams; p++)
    if (values[p] < -ACS_SARE_MAX_VALUE || values[p] > ACS_SARE_MAX_VALUE)
      return acs_diag_set(d, ACS_ERANGE, m->path, 0, 0,
                          "parameter %s = %" PRId64 " is out of range [-%" PRId64 ", %" PRId64 "]",
                          m->param[p], values[p], ACS_SARE_MAX_VALUE, ACS_SARE_MAX_VALUE);
  if (acs_sare_poly_contains(&m->context_poly, values))
    return ACS_OK;
  buf[0] = '\0';
  for (int32_t p = 0; p < m->nparams && used < sizeof(buf); p++)
    used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s = %" PRId64, p ? ", " : "",
                             m->param[p], values[p]);
  return acs_diag_set(d, ACS_ERANGE, m->path, m->bind_line, m->bind_col,
                      "the parameter values %s lie outside the context of the system", buf);
}

int acs_sare_inst_build(const struct acs_sare *m, const int64_t *values,
                        struct acs_sare_inst *out, struct acs_diag *d)
{
  int64_t nops = 0, points = 0;
  int err;

  memset(out, 0, sizeof(*out));
  for (int32_t p = 0; !values && p < m->nparams; p++)
    if (!m->has_value[p])
      return acs_diag_set(d, ACS_EINVAL, m->path, 0, 0,
                          "parameter %s has no value: bind it in the file ('bind %s = 8') "
                          "or after the path ('%s:%s=8')", m->param[p], m->param[p],
                          m->path, m->param[p]);
  out->nparams = m->nparams;
  memcpy(out->value, values ? values : m->value, (size_t)m->nparams * sizeof(*out->value));
  if ((err = check_values(m, out->value, d)) < 0)
    return err;
  out->nvars = m->nvars;
  out->var = calloc((size_t)m->nvars + 1, sizeof(*out->var));
  if (!out->var)
    return ACS_ENOMEM;
  acs__sare_isl_budget(m->ctx);
  for (int32_t v = 0; v < m->nvars; v++) {
    out->var[v].first_op = -1;
    if ((err = var_points(m, v, out->value, &out->var[v], &points, d)) < 0) {
      if (acs__sare_isl_over(m->ctx))
        err = acs_diag_set(d, ACS_ELIMIT, m->path, m->vars[v].line, m->vars[v].col,
                           "enumerating the instances of '%s' takes more than the limit "
                           "isl_ops=%" PRId64 " operations of isl (--max isl_ops=N raises it)",
                           m->vars[v].name, acs_limit_get(ACS_LIMIT_ISL_OPS));
      goto out_with_inst;
    }
    if (!acs_sare_computed(m, v))
      continue;
    out->var[v].first_op = (int32_t)nops;
    nops += out->var[v].count;
  }
  out->nops = (int32_t)nops;
  out->op_var = malloc(((size_t)nops + 1) * sizeof(*out->op_var));
  if (!out->op_var) {
    err = ACS_ENOMEM;
    goto out_with_inst;
  }
  for (int32_t v = 0; v < m->nvars; v++)
    for (int64_t k = 0; out->var[v].first_op >= 0 && k < out->var[v].count; k++)
      out->op_var[out->var[v].first_op + k] = v;
  acs__sare_isl_unbounded(m->ctx);
  return ACS_OK;

out_with_inst:
  acs__sare_isl_unbounded(m->ctx);
  acs_sare_inst_free(out);
  return err;
}

/* Points are stored in lexicographic order: a binary search finds x. */
static int cmp_point(const int32_t *p, const int64_t *x, int32_t n)
{
  for (int32_t k = 0; k < n; k++)
    if (p[k] != x[k])
      return p[k] < x[k] ? -1 : 1;
  return 0;
}

int64_t acs_sare_inst_rank(const struct acs_sare_inst *in, const struct acs_sare *m,
                           int32_t v, const int64_t *x)
{
  const struct acs_sare_vinst *vi = &in->var[v];
  int32_t n = m->vars[v].ndims;
  int64_t lo = 0, hi = vi->count;

  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    int c = cmp_point(vi->pt + (size_t)mid * (size_t)n, x, n);
    if (c == 0)
      return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

int acs_sare_foreach_dep_instance(const struct acs_sare *m, const struct acs_sare_inst *in,
                                  acs_sare_dep_fn fn, void *user)
{
  int64_t z[ACS_SARE_MAX_DIMS + ACS_SARE_MAX_PARAMS], y[ACS_SARE_MAX_DIMS];

  for (int32_t e = 0; e < m->ndeps; e++) {
    const struct acs_sare_dep *dep = &m->deps[e];
    const struct acs_sare_vinst *vi = &in->var[dep->dst];
    int32_t nx = m->vars[dep->dst].ndims;
    memcpy(z + nx, in->value, (size_t)m->nparams * sizeof(*z));
    for (int64_t k = 0; k < vi->count; k++) {
      int rc;
      if (k % POLL_STEPS == 0 && acs_interrupt_pending())
        return ACS_EINTERRUPTED;
      for (int32_t j = 0; j < nx; j++)
        z[j] = vi->pt[(size_t)k * (size_t)nx + (size_t)j];
      if (!acs_sare_union_contains(&dep->pieces, z))
        continue;
      if (acs_sare_dep_apply(m, dep, z, in->value, y) < 0)
        return ACS_ERANGE;
      if ((rc = fn(user, e, k, z, acs_sare_inst_rank(in, m, dep->src, y), y)) != 0)
        return rc;
    }
  }
  return ACS_OK;
}
