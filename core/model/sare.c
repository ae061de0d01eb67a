/*
 * sare.c - the model of systems of affine recurrence equations: lookups,
 * polyhedra evaluation and the enumeration of instances for bound
 * parameters (what the instance DAG, the lowering and the checker share).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/ilp.h>
#include <isl/mat.h>
#include <isl/set.h>
#include <isl/val.h>

#include "core/model/sare.h"

/* A box of more cells than this is refused (the rank table is 4 bytes a cell). */
#define MAX_BOX (INT64_C(1) << 26)

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

/* ---- instances ---- */

void acs_sare_inst_free(struct acs_sare_inst *in)
{
  for (int32_t v = 0; in->var && v < in->nvars; v++) {
    free(in->var[v].rank);
    free(in->var[v].pt);
  }
  free(in->var);
  free(in->op_var);
  memset(in, 0, sizeof(*in));
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

/* The bounding box of variable v's domain with the parameters fixed.
 * Returns 0 with box == 0 when the domain is empty. */
static int var_box(const struct acs_sare *m, int32_t v, const int64_t *values,
                   struct acs_sare_vinst *vi, struct acs_diag *d)
{
  const struct acs_sare_var *var = &m->vars[v];
  isl_set *s = isl_set_copy(var->domain);
  isl_bool empty;

  for (int32_t p = 0; p < m->nparams && s; p++)
    s = isl_set_fix_si(s, isl_dim_param, (unsigned)p, (int)values[p]);
  empty = s ? isl_set_is_empty(s) : isl_bool_error;
  vi->box = 0;
  if (empty == isl_bool_true || empty == isl_bool_error) {
    isl_set_free(s);
    return empty == isl_bool_error ? ACS_ENOMEM : ACS_OK;
  }
  vi->box = 1;
  for (int32_t k = 0; k < var->ndims; k++) {
    if (acs__sare_val_i64(isl_set_dim_min_val(isl_set_copy(s), k), &vi->lo[k]) < 0 ||
        acs__sare_val_i64(isl_set_dim_max_val(isl_set_copy(s), k), &vi->hi[k]) < 0 ||
        vi->hi[k] - vi->lo[k] >= MAX_BOX ||
        acs_mul_i64(vi->box, vi->hi[k] - vi->lo[k] + 1, &vi->box) || vi->box > MAX_BOX) {
      isl_set_free(s);
      return acs_diag_set(d, ACS_ERANGE, m->path, var->line, var->col,
                          "the domain of '%s' spans more than %" PRId64
                          " cells for these parameter values", var->name, MAX_BOX);
    }
  }
  isl_set_free(s);
  return ACS_OK;
}

/* Next cell of the box in lexicographic order; 0 after the last. */
static int box_next(int32_t n, const int64_t *lo, const int64_t *hi, int64_t *x)
{
  for (int32_t k = n - 1; k >= 0; k--) {
    if (x[k] < hi[k]) {
      x[k]++;
      return 1;
    }
    x[k] = lo[k];
  }
  return 0;
}

/* Enumerates the points of variable v: O(box x constraints). */
static int var_points(const struct acs_sare *m, int32_t v, const int64_t *values,
                      struct acs_sare_vinst *vi, struct acs_diag *d)
{
  const struct acs_sare_var *var = &m->vars[v];
  int32_t n = var->ndims;
  int64_t z[ACS_SARE_MAX_DIMS + ACS_SARE_MAX_PARAMS], cell = 0;
  size_t cap = 0;
  int err;

  if ((err = var_box(m, v, values, vi, d)) < 0 || vi->box == 0)
    return err;
  vi->rank = malloc((size_t)vi->box * sizeof(*vi->rank));
  if (!vi->rank)
    return ACS_ENOMEM;
  memcpy(z, vi->lo, (size_t)n * sizeof(*z));
  memcpy(z + n, values, (size_t)m->nparams * sizeof(*z));
  do {
    if (!acs_sare_union_contains(&var->pieces, z)) {
      vi->rank[cell++] = -1;
      continue;
    }
    if (vi->count >= ACS_SARE_MAX_INSTANCES)
      return acs_diag_set(d, ACS_ERANGE, m->path, var->line, var->col,
                          "'%s' has more than %" PRId64 " instances for these parameter values",
                          var->name, ACS_SARE_MAX_INSTANCES);
    if ((err = acs_grow((void **)&vi->pt, (size_t)(n ? n : 1) * sizeof(*vi->pt), &cap,
                        (size_t)vi->count + 1)) < 0)
      return err;
    for (int32_t k = 0; k < n; k++) {
      if (z[k] < INT32_MIN || z[k] > INT32_MAX)
        return acs_diag_set(d, ACS_ERANGE, m->path, var->line, var->col,
                            "an index of '%s' exceeds 32 bits", var->name);
      vi->pt[(size_t)vi->count * (size_t)n + (size_t)k] = (int32_t)z[k];
    }
    vi->rank[cell++] = (int32_t)vi->count++;
  } while (box_next(n, vi->lo, vi->hi, z));
  return ACS_OK;
}

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
  int64_t nops = 0;
  int err;

  memset(out, 0, sizeof(*out));
  for (int32_t p = 0; !values && p < m->nparams; p++)
    if (!m->has_value[p])
      return acs_diag_set(d, ACS_EINVAL, m->path, 0, 0,
                          "parameter %s has no value: bind it in the file ('bind %s = 8') "
                          "or after the path ('%s:%s=8')", m->param[p], m->param[p],
                          m->path, m->param[p]);
  out->nparams = m->nparams;
  memcpy(out->value, values ? values : m->value, (size_t)m->nparams * sizeof(*values));
  if ((err = check_values(m, out->value, d)) < 0)
    return err;
  out->nvars = m->nvars;
  out->var = calloc((size_t)m->nvars + 1, sizeof(*out->var));
  if (!out->var)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < m->nvars; v++) {
    out->var[v].first_op = -1;
    if ((err = var_points(m, v, out->value, &out->var[v], d)) < 0)
      goto out_with_inst;
    if (!acs_sare_computed(m, v))
      continue;
    out->var[v].first_op = (int32_t)nops;
    nops += out->var[v].count;
    if (nops > ACS_SARE_MAX_INSTANCES) {
      err = acs_diag_set(d, ACS_ERANGE, m->path, m->vars[v].line, m->vars[v].col,
                         "more than %" PRId64 " computed instances for these parameter values",
                         ACS_SARE_MAX_INSTANCES);
      goto out_with_inst;
    }
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
  return ACS_OK;

out_with_inst:
  acs_sare_inst_free(out);
  return err;
}

int64_t acs_sare_inst_rank(const struct acs_sare_inst *in, const struct acs_sare *m,
                           int32_t v, const int64_t *x)
{
  const struct acs_sare_vinst *vi = &in->var[v];
  int64_t cell = 0;

  if (vi->count == 0)
    return -1;
  for (int32_t k = 0; k < m->vars[v].ndims; k++) {
    if (x[k] < vi->lo[k] || x[k] > vi->hi[k])
      return -1;
    cell = cell * (vi->hi[k] - vi->lo[k] + 1) + (x[k] - vi->lo[k]);
  }
  return vi->rank[cell];
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
