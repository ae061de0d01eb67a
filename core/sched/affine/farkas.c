/*
 * farkas.c - the linear program of seed 003, built the seed's way.
 *
 * Every constraint on the schedule says that an affine form phi(z), whose
 * coefficients are linear in the unknowns u, is non-negative on a
 * polyhedron P = { z : A z + b >= 0, E z + e = 0 }. By the affine form of
 * Farkas' lemma that holds iff phi = lambda_0 + Lambda (A z + b) + Nu (E z
 * + e) with lambda_0, Lambda >= 0 (Nu free, written as two non-negative
 * halves). Identifying the coefficients of z and the constant gives one
 * equality per dimension plus one, over the unknowns and the multipliers:
 *
 *   D c_j(u) - sum_r lambda_r A_rj = 0          for each dimension j of z
 *   D c_0(u) - sum_r lambda_r b_r - lambda_0 = 0
 *
 * The seed states it with D = 1 and rational multipliers. The solver
 * (solve.c) works over the integers, so the multipliers here are D times
 * the rational ones: any rational certificate that exists has a basic one
 * whose denominators divide a minor of the matrix [A b]^T, so with D the
 * lcm of those minors integer multipliers lose nothing.
 *
 * The three families (README "affine"): positivity T_A >= 0 on A's domain
 * (inputs included), dependence T_A(x) - T_B(F(x)) - delay_B >= 0 on the
 * dependence's sub-domain, objective f(N) - T_A(x) - delay_A >= 0 on A's
 * domain for every variable (the seed bounds outputs only; bounding every
 * variable keeps the lexicographic minimum finite for variables off the
 * critical path and makes f the end of the whole computation). Domains
 * enter as their convex hulls, context constraints included (the seed's
 * addAllParameterDomain and convexisation).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/affine/affine.h"

/* Minors examined per polyhedron before giving up on D (then exact = 0). */
#define MINOR_LIMIT (INT64_C(1) << 16)

void acs_affine_lp_free(struct acs_affine_lp *lp)
{
  free(lp->var_col);
  free(lp->col_kind);
  free(lp->rows);
  free(lp->farkas);
  memset(lp, 0, sizeof(*lp));
}

/* ---- minors ---- */

/* Determinant of an r x r matrix by fraction-free (Bareiss) elimination;
 * -1 on overflow. O(r^3). */
static int det_bareiss(int64_t *a, int32_t r, int64_t *out)
{
  int64_t prev = 1;
  int sign = 1;

  for (int32_t k = 0; k < r; k++) {
    int32_t p = k;
    while (p < r && a[p * r + k] == 0)
      p++;
    if (p == r) {
      *out = 0;
      return 0;
    }
    if (p != k) {
      for (int32_t j = 0; j < r; j++) {
        int64_t t = a[k * r + j];
        a[k * r + j] = a[p * r + j];
        a[p * r + j] = t;
      }
      sign = -sign;
    }
    for (int32_t i = k + 1; i < r; i++)
      for (int32_t j = k + 1; j < r; j++) {
        __int128 v = (__int128)a[i * r + j] * a[k * r + k] - (__int128)a[i * r + k] * a[k * r + j];
        v /= prev; /* exact by Sylvester's identity */
        if (v > INT64_MAX || v < INT64_MIN)
          return -1;
        a[i * r + j] = (int64_t)v;
      }
    prev = a[k * r + k];
  }
  *out = sign * a[(r - 1) * r + (r - 1)];
  return 0;
}

static int64_t gcd64(int64_t a, int64_t b)
{
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static int64_t binom_capped(int32_t n, int32_t k, int64_t cap)
{
  int64_t c = 1;

  for (int32_t i = 1; i <= k; i++) {
    c = c * (n - k + i) / i;
    if (c > cap)
      return cap + 1;
  }
  return c;
}

/* Next k-subset of {0..n-1} in lexicographic order; 0 after the last. */
static int next_subset(int32_t *idx, int32_t k, int32_t n)
{
  int32_t i = k - 1;

  while (i >= 0 && idx[i] == n - k + i)
    i--;
  if (i < 0)
    return 0;
  idx[i]++;
  for (int32_t j = i + 1; j < k; j++)
    idx[j] = idx[j - 1] + 1;
  return 1;
}

int64_t acs_affine_minors_lcm(const int64_t *a, int32_t k, int32_t n, int64_t limit)
{
  int32_t rmax = k < n ? k : n, ri[64], ci[64];
  int64_t total = 0, lcm = 1, sub[64 * 64];

  if (rmax > 64)
    return 0;
  for (int32_t r = 1; r <= rmax; r++) {
    total += binom_capped(k, r, limit) * binom_capped(n, r, limit);
    if (total > limit)
      return 0;
  }
  for (int32_t r = 1; r <= rmax; r++) {
    for (int32_t i = 0; i < r; i++)
      ri[i] = i;
    do {
      for (int32_t j = 0; j < r; j++)
        ci[j] = j;
      do {
        int64_t det;
        for (int32_t i = 0; i < r; i++)
          for (int32_t j = 0; j < r; j++)
            sub[i * r + j] = a[(size_t)ri[i] * (size_t)n + (size_t)ci[j]];
        if (det_bareiss(sub, r, &det) < 0)
          return -1;
        if (det != 0) {
          int64_t g = gcd64(lcm, det), q = (det < 0 ? -det : det) / g;
          if (__builtin_mul_overflow(lcm, q, &lcm) || lcm > (INT64_C(1) << 31))
            return -1;
        }
      } while (next_subset(ci, r, n));
    } while (next_subset(ri, r, k));
  }
  return lcm;
}

/* ---- building ---- */

struct builder {
  const struct acs_sare *m;
  struct acs_affine_lp *lp;
  int64_t **rows;          /* rows as made: each as wide as the columns then */
  int32_t *width;
  size_t cap_rows, cap_width, cap_farkas;
  int32_t nunk;
  int64_t *form;           /* (nz + 1) x (nunk + 1): c_j(u) as coefficients + constant */
  int32_t nz;
};

static int64_t *form_row(struct builder *b, int32_t j)
{
  return b->form + (size_t)j * (size_t)(b->nunk + 1);
}

/* c_j += coef * u[col] (col < 0: the constant). */
static int form_add(struct builder *b, int32_t j, int32_t col, int64_t coef)
{
  int64_t *slot = &form_row(b, j)[col < 0 ? b->nunk : col];
  return acs_add_i64(*slot, coef, slot) ? ACS_ERANGE : ACS_OK;
}

static void form_clear(struct builder *b, int32_t nz)
{
  b->nz = nz;
  memset(b->form, 0, (size_t)(nz + 1) * (size_t)(b->nunk + 1) * sizeof(*b->form));
}

/*
 * The scale D of polyhedron p: the lcm of the minors of the k x (nz + 1)
 * matrix whose rows are the constraints (equalities once: their negation
 * has the same minors). 1 with exact = 0 when there are too many.
 */
static int poly_scale(const struct acs_sare_poly *p, int64_t *scale, int *exact)
{
  int32_t k = p->nineq + p->neq, n = p->ncols;
  int64_t *a = malloc(((size_t)k * (size_t)n + 1) * sizeof(*a)), lcm;

  if (!a)
    return ACS_ENOMEM;
  memcpy(a, p->ineq, (size_t)p->nineq * (size_t)n * sizeof(*a));
  memcpy(a + (size_t)p->nineq * (size_t)n, p->eq, (size_t)p->neq * (size_t)n * sizeof(*a));
  lcm = acs_affine_minors_lcm(a, k, n, MINOR_LIMIT);
  free(a);
  *exact = lcm > 0;
  *scale = lcm > 0 ? lcm : 1;
  return ACS_OK;
}

/* Adds the multipliers and rows of one Farkas use of the current form on p. */
static int emit_farkas(struct builder *b, int kind, int32_t index, const struct acs_sare_poly *p)
{
  struct acs_affine_lp *lp = b->lp;
  int32_t k = p->nineq + 2 * p->neq, nz = b->nz, first_mult = lp->ncols, ncols;
  struct acs_affine_farkas *fk;
  int64_t scale;
  int exact, err;

  if (p->ncols != nz + 1)
    return ACS_EINVAL;
  if ((err = poly_scale(p, &scale, &exact)) < 0)
    return err;
  if ((err = acs_grow((void **)&lp->farkas, sizeof(*lp->farkas), &b->cap_farkas,
                      (size_t)lp->nfarkas + 1)) < 0)
    return err;
  fk = &lp->farkas[lp->nfarkas++];
  *fk = (struct acs_affine_farkas){kind, index, first_mult, k + 1, lp->nrows, nz + 1, scale, exact};
  lp->ncols += k + 1;
  ncols = lp->ncols;
  /* Rows are dense over every column; earlier rows are widened below. */
  for (int32_t j = 0; j <= nz; j++) {
    int64_t *row;
    if ((err = acs_grow((void **)&b->rows, sizeof(*b->rows), &b->cap_rows,
                        (size_t)lp->nrows + 1)) < 0 ||
        (err = acs_grow((void **)&b->width, sizeof(*b->width), &b->cap_width,
                        (size_t)lp->nrows + 1)) < 0)
      return err;
    row = calloc((size_t)ncols + 1, sizeof(*row));
    if (!row)
      return ACS_ENOMEM;
    b->width[lp->nrows] = ncols;
    b->rows[lp->nrows++] = row;
    const int64_t *c = form_row(b, j);
    for (int32_t col = 0; col < b->nunk; col++)
      if (c[col] && acs_mul_i64(c[col], scale, &row[col]))
        return ACS_ERANGE;
    if (acs_mul_i64(c[b->nunk], scale, &row[ncols]))
      return ACS_ERANGE;
    for (int32_t r = 0; r < p->nineq; r++)
      row[first_mult + 1 + r] = -p->ineq[(size_t)r * (size_t)p->ncols + (size_t)j];
    for (int32_t r = 0; r < p->neq; r++) {
      int64_t a = p->eq[(size_t)r * (size_t)p->ncols + (size_t)j];
      row[first_mult + 1 + p->nineq + 2 * r] = -a;
      row[first_mult + 2 + p->nineq + 2 * r] = a;
    }
    if (j == nz)
      row[first_mult] = -1; /* lambda_0 */
  }
  return ACS_OK;
}

/* Starts a form over v's hull (its indices, the parameters, the constant):
 * cleared, with `sign` times v's index coefficients. Positivity and the
 * objective differ from there on. */
static int form_indices(struct builder *b, int32_t v, int sign)
{
  int32_t nx = b->m->vars[v].ndims;
  int err = ACS_OK;

  form_clear(b, nx + b->m->nparams);
  for (int32_t k = 0; k < nx && !err; k++)
    err = form_add(b, k, acs_affine_col_idx(b->lp, v, k), sign);
  return err;
}

static int positivity(struct builder *b, int32_t v)
{
  const struct acs_sare *m = b->m;
  const struct acs_affine_lp *lp = b->lp;
  int32_t nx = m->vars[v].ndims, np = m->nparams;
  int err = form_indices(b, v, 1);

  for (int32_t p = 0; p < np && !err; p++)
    err = form_add(b, nx + p, acs_affine_col_par(lp, v, p), 1);
  if (!err)
    err = form_add(b, nx + np, lp->var_col[v] + np + nx, 1);
  return err ? err : emit_farkas(b, ACS_AFFINE_FK_POSITIVITY, v, &m->vars[v].hull);
}

static int objective(struct builder *b, int32_t v)
{
  const struct acs_sare *m = b->m;
  const struct acs_affine_lp *lp = b->lp;
  int32_t nx = m->vars[v].ndims, np = m->nparams;
  int err = form_indices(b, v, -1);

  for (int32_t p = 0; p < np && !err; p++)
    if (!(err = form_add(b, nx + p, p, 1)))
      err = form_add(b, nx + p, acs_affine_col_par(lp, v, p), -1);
  if (!err && !(err = form_add(b, nx + np, np, 1)) &&
      !(err = form_add(b, nx + np, lp->var_col[v] + np + nx, -1)))
    err = form_add(b, nx + np, -1, -m->vars[v].delay);
  return err ? err : emit_farkas(b, ACS_AFFINE_FK_OBJECTIVE, v, &m->vars[v].hull);
}

/* T_A(x) - T_B(F(x)) - delay_B (times strong) on the dependence's hull. */
static int dependence(struct builder *b, int32_t e, int strong)
{
  const struct acs_sare *m = b->m;
  const struct acs_sare_dep *dep = &m->deps[e];
  const struct acs_affine_lp *lp = b->lp;
  int32_t A = dep->dst, B = dep->src, nx = m->vars[A].ndims, ny = m->vars[B].ndims;
  int32_t np = m->nparams, w = nx + np + 1;
  int err = ACS_OK;

  form_clear(b, nx + np);
  for (int32_t k = 0; k < nx && !err; k++)
    err = form_add(b, k, acs_affine_col_idx(lp, A, k), 1);
  for (int32_t p = 0; p < np && !err; p++)
    if (!(err = form_add(b, nx + p, acs_affine_col_par(lp, A, p), 1)))
      err = form_add(b, nx + p, acs_affine_col_par(lp, B, p), -1);
  if (!err && !(err = form_add(b, nx + np, lp->var_col[A] + np + nx, 1)) &&
      !(err = form_add(b, nx + np, lp->var_col[B] + np + ny, -1)))
    err = form_add(b, nx + np, -1, strong ? -m->vars[B].delay : 0);
  /* - sum_i tau_B,i * F_i(x, N): F_i's coefficient of each z_j and constant */
  for (int32_t i = 0; i < ny && !err; i++)
    for (int32_t j = 0; j < w && !err; j++) {
      int64_t f = dep->fn[(size_t)i * (size_t)w + (size_t)j];
      if (f != 0)
        err = form_add(b, j, acs_affine_col_idx(lp, B, i), -f);
    }
  return err ? err : emit_farkas(b, ACS_AFFINE_FK_DEPENDENCE, e, &dep->hull);
}

/* Unknown columns: phi first, then each variable's block. */
static int layout(struct builder *b, int inputs)
{
  const struct acs_sare *m = b->m;
  struct acs_affine_lp *lp = b->lp;
  int32_t col = m->nparams + 1, maxz = 0;

  lp->nparams = m->nparams;
  lp->nvars = m->nvars;
  lp->var_col = malloc(((size_t)m->nvars + 1) * sizeof(*lp->var_col));
  if (!lp->var_col)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < m->nvars; v++) {
    lp->var_col[v] = -1;
    if (!inputs && !acs_sare_computed(m, v))
      continue;
    lp->var_col[v] = col;
    col += m->nparams + m->vars[v].ndims + 1;
    maxz = m->vars[v].ndims > maxz ? m->vars[v].ndims : maxz;
  }
  lp->nunk = lp->ncols = b->nunk = col;
  b->form = calloc((size_t)(maxz + m->nparams + 1) * (size_t)(col + 1), sizeof(*b->form));
  return b->form ? ACS_OK : ACS_ENOMEM;
}

/* The rows were allocated one by one as columns grew: make them one dense
 * nrows x (ncols + 1) matrix, the constant last. */
static int pack_rows(struct builder *b)
{
  struct acs_affine_lp *lp = b->lp;
  int32_t w = lp->ncols + 1;
  int64_t *dense = calloc((size_t)lp->nrows * (size_t)w + 1, sizeof(*dense));

  for (int32_t r = 0; r < lp->nrows; r++) {
    /* a row knows only the columns that existed when it was made */
    int32_t known = b->width[r];
    if (dense) {
      memcpy(dense + (size_t)r * (size_t)w, b->rows[r], (size_t)known * sizeof(*dense));
      dense[(size_t)r * (size_t)w + (size_t)lp->ncols] = b->rows[r][known];
    }
    free(b->rows[r]);
  }
  free(b->rows);
  free(b->width);
  b->rows = NULL;
  b->width = NULL;
  lp->rows = dense;
  return dense ? ACS_OK : ACS_ENOMEM;
}

static int set_kinds(struct acs_affine_lp *lp)
{
  lp->col_kind = malloc((size_t)lp->ncols + 1);
  if (!lp->col_kind)
    return ACS_ENOMEM;
  memset(lp->col_kind, ACS_AFFINE_COL_NONNEG, (size_t)lp->ncols);
  /* the latency may not decrease with a parameter (see solve.c); its
   * constant, taus and alphas are free */
  for (int32_t c = lp->nparams; c < lp->nunk; c++)
    lp->col_kind[c] = ACS_AFFINE_COL_FREE;
  return ACS_OK;
}

int acs_affine_lp_build(const struct acs_sare *m, const struct acs_affine_lp_sel *sel,
                        struct acs_affine_lp *lp, struct acs_diag *d)
{
  struct builder b;
  int err;

  memset(lp, 0, sizeof(*lp));
  memset(&b, 0, sizeof(b));
  b.m = m;
  b.lp = lp;
  err = layout(&b, sel && sel->inputs);
  for (int32_t v = 0; v < m->nvars && err == ACS_OK; v++)
    if (lp->var_col[v] >= 0)
      err = positivity(&b, v);
  for (int32_t e = 0; e < m->ndeps && err == ACS_OK; e++)
    if ((!sel || !sel->use_dep || sel->use_dep[e]) && lp->var_col[m->deps[e].src] >= 0)
      err = dependence(&b, e, !sel || !sel->strong || sel->strong[e]);
  for (int32_t v = 0; v < m->nvars && err == ACS_OK && (!sel || sel->objective); v++)
    if (lp->var_col[v] >= 0)
      err = objective(&b, v);
  free(b.form);
  if (pack_rows(&b) < 0 && err == ACS_OK)
    err = ACS_ENOMEM;
  if (err == ACS_OK)
    err = set_kinds(lp);
  if (err == ACS_ERANGE)
    acs_diag_set(d, err, m->path, 0, 0, "a coefficient of the linear program overflows 64 bits");
  if (err < 0)
    acs_affine_lp_free(lp);
  return err;
}
