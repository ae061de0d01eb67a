/*
 * sched.c - an affine schedule: evaluation and isl notation.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/affine/affine.h"

int acs_affine_sched_init(struct acs_affine_sched *s, const struct acs_sare *m)
{
  int32_t off = 0;

  memset(s, 0, sizeof(*s));
  s->nparams = m->nparams;
  s->nvars = m->nvars;
  s->off = malloc(((size_t)m->nvars + 1) * sizeof(*s->off));
  if (!s->off)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < m->nvars; v++) {
    s->off[v] = acs_sare_computed(m, v) ? off : -1;
    off += acs_sare_computed(m, v) ? m->nparams + m->vars[v].ndims + 1 : 0;
  }
  s->coef = calloc((size_t)off + 1, sizeof(*s->coef));
  if (!s->coef) {
    acs_affine_sched_free(s);
    return ACS_ENOMEM;
  }
  return ACS_OK;
}

int acs_affine_eval(const struct acs_affine_sched *s, const struct acs_sare *m, int32_t v,
                    const int64_t *x, const int64_t *values, int64_t *out)
{
  const int64_t *c = s->coef + (s->off[v] < 0 ? 0 : s->off[v]);
  int32_t np = m->nparams, nx = m->vars[v].ndims;
  int64_t acc, t;

  if (s->off[v] < 0) {
    *out = 0;
    return 0;
  }
  acc = c[np + nx];
  for (int32_t p = 0; p < np; p++)
    if (acs_mul_i64(c[p], values[p], &t) || acs_add_i64(acc, t, &acc))
      return -1;
  for (int32_t k = 0; k < nx; k++)
    if (acs_mul_i64(c[np + k], x[k], &t) || acs_add_i64(acc, t, &acc))
      return -1;
  *out = acc;
  return 0;
}

int acs_affine_latency(const struct acs_affine_sched *s, const int64_t *values, int64_t *out)
{
  int64_t acc = s->phi[s->nparams], t;

  for (int32_t p = 0; p < s->nparams; p++)
    if (acs_mul_i64(s->phi[p], values[p], &t) || acs_add_i64(acc, t, &acc))
      return -1;
  *out = acc;
  return 0;
}

/* Appends "coef name" to an expression in isl's style: "i + 2j - N - 3". */
static void term(char *buf, size_t size, size_t *used, int64_t coef, const char *name)
{
  int first = *used == 0;
  int64_t a = coef < 0 ? -coef : coef;

  if (coef == 0 || *used >= size)
    return;
  if (first)
    *used += (size_t)snprintf(buf + *used, size - *used, "%s", coef < 0 ? "-" : "");
  else
    *used += (size_t)snprintf(buf + *used, size - *used, " %c ", coef < 0 ? '-' : '+');
  if (*used >= size)
    return;
  if (!name)
    *used += (size_t)snprintf(buf + *used, size - *used, "%" PRId64, a);
  else if (a == 1)
    *used += (size_t)snprintf(buf + *used, size - *used, "%s", name);
  else
    *used += (size_t)snprintf(buf + *used, size - *used, "%" PRId64 "%s", a, name);
}

/* "[N, K] -> " or "" */
static size_t params_prefix(const struct acs_sare *m, char *buf, size_t size)
{
  size_t used = 0;

  if (m->nparams == 0 || size == 0) {
    if (size)
      buf[0] = '\0';
    return 0;
  }
  used += (size_t)snprintf(buf, size, "[");
  for (int32_t p = 0; p < m->nparams && used < size; p++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", p ? ", " : "", m->param[p]);
  if (used < size)
    used += (size_t)snprintf(buf + used, size - used, "] -> ");
  return used < size ? used : size - 1;
}

/* "(i + j - 1)" for variable v in row s. */
static void row_expr(const struct acs_affine_sched *s, const struct acs_sare *m, int32_t v,
                     int with_alpha, char *expr, size_t size)
{
  const struct acs_sare_var *var = &m->vars[v];
  static const int64_t none[ACS_SARE_MAX_DIMS + ACS_SARE_MAX_PARAMS + 1];
  const int64_t *c = s->off[v] < 0 ? none : s->coef + s->off[v];
  char inner[480];
  size_t e = 0;

  for (int32_t k = 0; k < var->ndims; k++)
    term(inner, sizeof(inner), &e, c[m->nparams + k], var->dim[k]);
  for (int32_t p = 0; p < m->nparams; p++)
    term(inner, sizeof(inner), &e, c[p], m->param[p]);
  if (with_alpha)
    term(inner, sizeof(inner), &e, c[m->nparams + var->ndims], NULL);
  if (e == 0)
    snprintf(inner, sizeof(inner), "0");
  snprintf(expr, size, "(%s)", inner);
}

/* "[N] -> { C[i,j,k] -> [" */
static size_t tuple_prefix(const struct acs_sare *m, int32_t v, char *buf, size_t size)
{
  size_t used = params_prefix(m, buf, size);

  used += (size_t)snprintf(buf + used, size - used, "{ %s[", m->vars[v].name);
  for (int32_t k = 0; k < m->vars[v].ndims && used < size; k++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? "," : "", m->vars[v].dim[k]);
  if (used < size)
    used += (size_t)snprintf(buf + used, size - used, "] -> [");
  return used < size ? used : size - 1;
}

void acs_affine_text_var(const struct acs_affine_sched *s, const struct acs_sare *m, int32_t v,
                         int with_alpha, char *buf, size_t size)
{
  char expr[512];
  size_t used = tuple_prefix(m, v, buf, size);

  row_expr(s, m, v, with_alpha, expr, sizeof(expr));
  snprintf(buf + used, size - used, "%s] }", expr);
}

void acs_affine_text_multi(const struct acs_affine_msched *ms, const struct acs_sare *m,
                           int32_t v, int with_alpha, char *buf, size_t size)
{
  char expr[512];
  size_t used = tuple_prefix(m, v, buf, size);

  for (int32_t k = 0; k < ms->ndims && used < size; k++) {
    row_expr(&ms->row[k], m, v, with_alpha, expr, sizeof(expr));
    used += (size_t)snprintf(buf + used, size - used, "%s%s", k ? ", " : "", expr);
  }
  if (used < size)
    snprintf(buf + used, size - used, "] }");
}

void acs_affine_text_latency(const struct acs_affine_sched *s, const struct acs_sare *m,
                             char *buf, size_t size)
{
  char expr[512];
  size_t used = params_prefix(m, buf, size), e = 0;

  for (int32_t p = 0; p < m->nparams; p++)
    term(expr, sizeof(expr), &e, s->phi[p], m->param[p]);
  term(expr, sizeof(expr), &e, s->phi[m->nparams], NULL);
  if (e == 0)
    snprintf(expr, sizeof(expr), "0");
  if (used < size)
    snprintf(buf + used, size - used, "{ [(%s)] }", expr);
}
