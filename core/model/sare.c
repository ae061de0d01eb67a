/*
 * sare.c - the model of systems of affine recurrence equations: lookups,
 * polyhedra evaluation and the enumeration of instances for bound
 * parameters (what the instance DAG, the lowering and the checker share).
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/mat.h>
#include <isl/set.h>
#include <isl/val.h>

#include "core/model/sare.h"
#include "core/model/sare_int.h"

static const char *const kind_names[] = {"input", "local", "output"};

const char *acs_sare_kind_name(int kind)
{
  return kind >= 0 && kind <= ACS_SARE_OUTPUT ? kind_names[kind] : "unknown";
}

void acs_sare_poly_free(struct acs_sare_poly *p)
{
  free(p->ineq);
  free(p->eq);
  memset(p, 0, sizeof(*p));
}

void acs_sare_union_free(struct acs_sare_union *u)
{
  for (int32_t k = 0; k < u->n; k++)
    acs_sare_poly_free(&u->piece[k]);
  free(u->piece);
  memset(u, 0, sizeof(*u));
}

void acs_sare_free(struct acs_sare *m)
{
  if (!m)
    return;
  for (int32_t v = 0; v < m->nvars; v++) {
    isl_set_free(m->vars[v].domain);
    acs_sare_union_free(&m->vars[v].pieces);
    acs_sare_poly_free(&m->vars[v].hull);
  }
  for (int32_t e = 0; e < m->ndeps; e++) {
    isl_map_free(m->deps[e].map);
    free(m->deps[e].fn);
    acs_sare_union_free(&m->deps[e].pieces);
    acs_sare_poly_free(&m->deps[e].hull);
  }
  free(m->vars);
  free(m->deps);
  isl_set_free(m->context);
  acs_sare_poly_free(&m->context_poly);
  if (m->ctx)
    isl_ctx_free(m->ctx);
  acs_arena_destroy(&m->arena);
  free(m);
}

void acs__sare_isl_budget(isl_ctx *ctx)
{
  int64_t ops = acs_limit_get(ACS_LIMIT_ISL_OPS);

  isl_ctx_reset_error(ctx);
  isl_ctx_reset_operations(ctx);
  isl_ctx_set_max_operations(ctx, ops > 0 && (uint64_t)ops < ULONG_MAX ? (unsigned long)ops
                                                                       : ULONG_MAX);
}

void acs__sare_isl_unbounded(isl_ctx *ctx)
{
  isl_ctx_set_max_operations(ctx, 0);
  isl_ctx_reset_operations(ctx);
}

int acs__sare_isl_over(isl_ctx *ctx)
{
  isl_set *probe;
  int over;

  if (isl_ctx_get_max_operations(ctx) == 0)
    return 0;
  if (isl_ctx_last_error(ctx) == isl_error_quota)
    return 1;
  /* Past the budget every isl call fails with isl_error_quota, whatever
   * error the failing one left behind (its parser reports its own): a
   * probe tells. */
  isl_ctx_reset_error(ctx);
  probe = isl_set_read_from_str(ctx, "{ : }");
  over = !probe && isl_ctx_last_error(ctx) == isl_error_quota;
  isl_set_free(probe);
  return over;
}

int32_t acs_sare_find_var(const struct acs_sare *m, const char *name)
{
  for (int32_t v = 0; v < m->nvars; v++)
    if (strcmp(m->vars[v].name, name) == 0)
      return v;
  return -1;
}

int32_t acs_sare_find_param(const struct acs_sare *m, const char *name)
{
  for (int32_t p = 0; p < m->nparams; p++)
    if (strcmp(m->param[p], name) == 0)
      return p;
  return -1;
}

int acs_sare_row_eval(const int64_t *row, int32_t n, const int64_t *z, int64_t *out)
{
  int64_t acc = row[n];

  for (int32_t k = 0; k < n; k++) {
    int64_t t;
    if (row[k] == 0)
      continue;
    if (acs_mul_i64(row[k], z[k], &t) || acs_add_i64(acc, t, &acc))
      return -1;
  }
  *out = acc;
  return 0;
}

int acs_sare_poly_contains(const struct acs_sare_poly *p, const int64_t *z)
{
  int32_t n = p->ncols - 1;
  int64_t v;

  for (int32_t r = 0; r < p->nineq; r++)
    if (acs_sare_row_eval(p->ineq + (size_t)r * (size_t)p->ncols, n, z, &v) < 0 || v < 0)
      return 0;
  for (int32_t r = 0; r < p->neq; r++)
    if (acs_sare_row_eval(p->eq + (size_t)r * (size_t)p->ncols, n, z, &v) < 0 || v != 0)
      return 0;
  return 1;
}

int acs_sare_union_contains(const struct acs_sare_union *u, const int64_t *z)
{
  for (int32_t k = 0; k < u->n; k++)
    if (acs_sare_poly_contains(&u->piece[k], z))
      return 1;
  return 0;
}

int acs_sare_dep_apply(const struct acs_sare *m, const struct acs_sare_dep *e,
                       const int64_t *x, const int64_t *values, int64_t *y)
{
  int32_t nx = m->vars[e->dst].ndims, ny = m->vars[e->src].ndims;
  int32_t n = nx + m->nparams;
  int64_t z[ACS_SARE_MAX_DIMS + ACS_SARE_MAX_PARAMS];

  memcpy(z, x, (size_t)nx * sizeof(*z));
  memcpy(z + nx, values, (size_t)m->nparams * sizeof(*z));
  for (int32_t k = 0; k < ny; k++)
    if (acs_sare_row_eval(e->fn + (size_t)k * (size_t)(n + 1), n, z, &y[k]) < 0)
      return -1;
  return 0;
}

/* Decimal digits of x into buf (no NUL); returns the count. */
static size_t put_i64(char *buf, int64_t x)
{
  char tmp[24];
  uint64_t u = x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
  size_t n = 0, k = 0;

  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (x < 0)
    buf[k++] = '-';
  while (n)
    buf[k++] = tmp[--n];
  return k;
}

/* Called once per instance when the DAG is built (a quarter of a million
 * times for matmul at N = 64), so it formats digits by hand. */
void acs_sare_point_name(const struct acs_sare *m, int32_t v, const int64_t *x,
                         char *buf, size_t size)
{
  const char *name = m->vars[v].name;
  size_t len = strlen(name), need = len + 2 + (size_t)m->vars[v].ndims * 21, used;

  if (need >= size) {
    snprintf(buf, size, "%s[...]", name);
    return;
  }
  memcpy(buf, name, len);
  used = len;
  buf[used++] = '[';
  for (int32_t k = 0; k < m->vars[v].ndims; k++) {
    if (k)
      buf[used++] = ',';
    used += put_i64(buf + used, x[k]);
  }
  buf[used++] = ']';
  buf[used] = '\0';
}

/* ---- from isl ---- */

/* Largest coefficient magnitude accepted from isl: keeps every product the
 * Farkas system forms far from int64 overflow. */
#define MAX_COEF (INT64_C(1) << 31)

static int mat_rows(isl_mat *mat, int32_t ncols, int64_t **out, int32_t *nrows)
{
  isl_size r = isl_mat_rows(mat), c = isl_mat_cols(mat);
  int64_t *rows;

  *out = NULL;
  *nrows = 0;
  if (r < 0 || c < 0 || c < ncols)
    return ACS_ENOMEM;
  rows = malloc(((size_t)r * (size_t)ncols + 1) * sizeof(*rows));
  if (!rows)
    return ACS_ENOMEM;
  for (int i = 0; i < r; i++)
    for (int j = 0; j < ncols; j++) {
      int64_t x;
      if (acs__sare_val_i64(isl_mat_get_element_val(mat, i, j), &x) < 0 || x > MAX_COEF ||
          x < -MAX_COEF) {
        free(rows);
        return ACS_ERANGE;
      }
      rows[(size_t)i * (size_t)ncols + (size_t)j] = x;
    }
  *out = rows;
  *nrows = r;
  return ACS_OK;
}

int acs__sare_poly_from_bset(isl_basic_set *bset, int32_t nx, int32_t np,
                             struct acs_sare_poly *p)
{
  isl_mat *eq, *ineq;
  int err;

  memset(p, 0, sizeof(*p));
  p->ncols = nx + np + 1;
  if (isl_basic_set_dim(bset, isl_dim_div) != 0)
    return ACS_EINVAL;
  eq = isl_basic_set_equalities_matrix(bset, isl_dim_set, isl_dim_param, isl_dim_cst,
                                       isl_dim_div);
  ineq = isl_basic_set_inequalities_matrix(bset, isl_dim_set, isl_dim_param, isl_dim_cst,
                                           isl_dim_div);
  err = !eq || !ineq ? ACS_ENOMEM : mat_rows(eq, p->ncols, &p->eq, &p->neq);
  if (err == ACS_OK)
    err = mat_rows(ineq, p->ncols, &p->ineq, &p->nineq);
  isl_mat_free(eq);
  isl_mat_free(ineq);
  if (err < 0)
    acs_sare_poly_free(p);
  return err;
}

struct union_build {
  struct acs_sare_union *u;
  size_t cap;
  int32_t nx, np;
  int err;
};

static isl_stat add_piece(isl_basic_set *bset, void *user)
{
  struct union_build *b = user;

  b->err = acs_grow((void **)&b->u->piece, sizeof(*b->u->piece), &b->cap, (size_t)b->u->n + 1);
  if (b->err == ACS_OK)
    b->err = acs__sare_poly_from_bset(bset, b->nx, b->np, &b->u->piece[b->u->n]);
  if (b->err == ACS_OK)
    b->u->n++;
  isl_basic_set_free(bset);
  return b->err == ACS_OK ? isl_stat_ok : isl_stat_error;
}

int acs__sare_union_from_set(isl_set *set, int32_t nx, int32_t np, struct acs_sare_union *u)
{
  struct union_build b = {u, 0, nx, np, ACS_OK};

  memset(u, 0, sizeof(*u));
  if (isl_set_foreach_basic_set(set, add_piece, &b) < 0 && b.err == ACS_OK)
    b.err = ACS_ENOMEM;
  if (b.err < 0)
    acs_sare_union_free(u);
  return b.err;
}

int acs__sare_hull_from_set(isl_set *set, int32_t nx, int32_t np, struct acs_sare_poly *p)
{
  isl_basic_set *hull = isl_set_convex_hull(isl_set_copy(set));
  int err;

  memset(p, 0, sizeof(*p));
  if (!hull)
    return ACS_ENOMEM;
  hull = isl_basic_set_remove_redundancies(hull);
  err = hull ? acs__sare_poly_from_bset(hull, nx, np, p) : ACS_ENOMEM;
  isl_basic_set_free(hull);
  return err;
}

int acs__sare_val_i64(isl_val *v, int64_t *out)
{
  int ok = v && isl_val_is_int(v) == isl_bool_true && isl_val_is_infty(v) != isl_bool_true &&
           isl_val_is_neginfty(v) != isl_bool_true && isl_val_is_nan(v) != isl_bool_true;
  if (ok) {
    long n = isl_val_get_num_si(v);
    /* get_num_si saturates silently; compare back to detect it */
    isl_val *back = isl_val_int_from_si(isl_val_get_ctx(v), n);
    ok = back && isl_val_eq(back, v) == isl_bool_true;
    isl_val_free(back);
    *out = n;
  }
  isl_val_free(v);
  return ok ? 0 : -1;
}
