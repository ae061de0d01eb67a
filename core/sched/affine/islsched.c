/*
 * islsched.c - isl's own scheduler in Feautrier mode on the same system,
 * as an independent second opinion on the latency.
 *
 * isl schedules statements under validity dependences of distance at least
 * one (Feautrier's algorithm, part I and II: each dimension carries as many
 * dependences as it can). acsim's dependences carry the producer's delay,
 * so a variable of delay d becomes d statements on its domain: the
 * variable, then d - 1 copies, each depending on the previous one, and the
 * consumers read the last copy. A schedule that carries every dependence
 * in its first dimension then satisfies every delay, and that first
 * dimension is a one-dimensional schedule of the system.
 *
 * isl runs in a context of its own (its options are global to a context),
 * on sets re-read from the model's text. Inputs are preloaded (T = 0).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/options.h>
#include <isl/schedule.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "core/model/sare_int.h"
#include "core/sched/affine/affine.h"

/* Name of copy k (1-based) of variable v's computation: "v__k" with as many
 * underscores as needed to be no variable's name. */
static void copy_name(const struct acs_sare *m, int32_t v, int64_t k, char *buf, size_t size)
{
  char sep[ACS_SARE_NAME_MAX] = "__";

  for (;;) {
    int clash = 0;
    snprintf(buf, size, "%s%s%lld", m->vars[v].name, sep, (long long)k);
    for (int32_t w = 0; w < m->nvars && !clash; w++)
      clash = strncmp(m->vars[w].name, buf, size) == 0;
    if (!clash || strlen(sep) + 2 >= sizeof(sep))
      return;
    strcat(sep, "_");
  }
}

/* Variable v's domain in ctx, its tuple renamed. */
static isl_set *domain_as(isl_ctx *ctx, const struct acs_sare *m, int32_t v, const char *name)
{
  char *text = isl_set_to_str(m->vars[v].domain);
  isl_set *s = text ? isl_set_read_from_str(ctx, text) : NULL;

  free(text);
  return s ? isl_set_set_tuple_name(s, name) : NULL;
}

/* The last statement of v's computation chain: v itself when delay 1. */
static void last_name(const struct acs_sare *m, int32_t v, char *buf, size_t size)
{
  if (m->vars[v].delay <= 1)
    snprintf(buf, size, "%s", m->vars[v].name);
  else
    copy_name(m, v, m->vars[v].delay - 1, buf, size);
}

/* Statements (computed variables and their delay copies) and validity. */
static int build(isl_ctx *ctx, const struct acs_sare *m, isl_union_set **dom,
                 isl_union_map **val)
{
  char a[ACS_SARE_NAME_MAX * 2], b[ACS_SARE_NAME_MAX * 2];

  *dom = isl_union_set_empty(isl_space_params_alloc(ctx, 0));
  *val = isl_union_map_empty(isl_space_params_alloc(ctx, 0));
  for (int32_t v = 0; v < m->nvars && *dom && *val; v++) {
    if (!acs_sare_computed(m, v))
      continue;
    snprintf(a, sizeof(a), "%s", m->vars[v].name);
    for (int64_t k = 0; k < m->vars[v].delay && *dom && *val; k++) {
      isl_set *s;
      if (k > 0)
        copy_name(m, v, k, a, sizeof(a));
      s = domain_as(ctx, m, v, a);
      if (k > 0) {
        /* copy k waits for copy k - 1 (or the variable itself) */
        isl_map *id = isl_map_identity(isl_space_map_from_set(isl_set_get_space(s)));
        id = isl_map_intersect_domain(id, isl_set_copy(s));
        id = isl_map_set_tuple_name(id, isl_dim_in, b);
        *val = isl_union_map_add_map(*val, id);
      }
      *dom = isl_union_set_add_set(*dom, s);
      snprintf(b, sizeof(b), "%s", a);
    }
  }
  for (int32_t e = 0; e < m->ndeps && *dom && *val; e++) {
    const struct acs_sare_dep *dep = &m->deps[e];
    char *text;
    isl_map *read;
    if (!acs_sare_computed(m, dep->src))
      continue;
    text = isl_map_to_str(dep->map);
    read = text ? isl_map_read_from_str(ctx, text) : NULL;
    free(text);
    last_name(m, dep->src, b, sizeof(b));
    read = isl_map_set_tuple_name(read, isl_dim_out, b);
    *val = isl_union_map_add_map(*val, isl_map_reverse(read));
  }
  return *dom && *val ? ACS_OK : ACS_ENOMEM;
}

/* The first output of the schedule map of one statement, as coefficients. */
struct extract {
  const struct acs_sare *m;
  struct acs_affine_sched *s;
  int err;
};

static int aff_coefs(const struct acs_sare *m, int32_t v, isl_aff *aff, int64_t *c)
{
  int32_t np = m->nparams, nx = m->vars[v].ndims;
  isl_val *den = isl_aff_get_denominator_val(aff);
  int64_t dv;

  if (acs__sare_val_i64(den, &dv) < 0 || dv != 1 || isl_aff_dim(aff, isl_dim_div) != 0)
    return ACS_ERANGE;
  for (int32_t p = 0; p < np; p++) {
    int pos = isl_aff_find_dim_by_name(aff, isl_dim_param, m->param[p]);
    c[p] = 0;
    if (pos >= 0 && acs__sare_val_i64(isl_aff_get_coefficient_val(aff, isl_dim_param, pos),
                                      &c[p]) < 0)
      return ACS_ERANGE;
  }
  for (int32_t k = 0; k < nx; k++)
    if (acs__sare_val_i64(isl_aff_get_coefficient_val(aff, isl_dim_in, k), &c[np + k]) < 0)
      return ACS_ERANGE;
  return acs__sare_val_i64(isl_aff_get_constant_val(aff), &c[np + nx]) < 0 ? ACS_ERANGE : ACS_OK;
}

static isl_stat first_piece(isl_set *set, isl_aff *aff, void *user)
{
  isl_aff **out = user;

  isl_set_free(set);
  if (*out) {
    /* a piecewise schedule is not one affine function */
    isl_aff_free(aff);
    return isl_stat_error;
  }
  *out = aff;
  return isl_stat_ok;
}

static isl_stat extract_map(isl_map *map, void *user)
{
  struct extract *x = user;
  const char *name = isl_map_get_tuple_name(map, isl_dim_in);
  int32_t v = name ? acs_sare_find_var(x->m, name) : -1;
  isl_pw_multi_aff *pma;
  isl_pw_aff *pa;
  isl_aff *aff = NULL;
  isl_size n = isl_map_dim(map, isl_dim_out);

  if (v < 0 || n < 1) {    /* a delay copy, or an empty schedule */
    isl_map_free(map);
    return isl_stat_ok;
  }
  map = isl_map_project_out(map, isl_dim_out, 1, (unsigned)(n - 1));
  pma = isl_pw_multi_aff_from_map(map);
  pa = pma ? isl_pw_multi_aff_get_pw_aff(pma, 0) : NULL;
  isl_pw_multi_aff_free(pma);
  if (!pa || isl_pw_aff_foreach_piece(pa, first_piece, &aff) < 0 || !aff)
    x->err = ACS_ERANGE;
  else
    x->err = aff_coefs(x->m, v, aff, x->s->coef + x->s->off[v]);
  isl_aff_free(aff);
  isl_pw_aff_free(pa);
  return x->err == ACS_OK ? isl_stat_ok : isl_stat_error;
}

int acs_affine_isl_feautrier(const struct acs_sare *m, struct acs_affine_sched *s,
                             struct acs_diag *d)
{
  isl_ctx *ctx = isl_ctx_alloc();
  isl_union_set *dom;
  isl_union_map *val, *map;
  isl_schedule *sched;
  struct extract x = {m, s, ACS_OK};
  int err;

  if (!ctx)
    return ACS_ENOMEM;
  isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
  isl_options_set_schedule_algorithm(ctx, ISL_SCHEDULE_ALGORITHM_FEAUTRIER);
  if ((err = acs_affine_sched_init(s, m)) < 0 || (err = build(ctx, m, &dom, &val)) < 0) {
    isl_ctx_free(ctx);
    return err;
  }
  isl_schedule_constraints *sc = isl_schedule_constraints_on_domain(dom);
  sc = isl_schedule_constraints_set_validity(sc, val);
  sched = isl_schedule_constraints_compute_schedule(sc);
  map = sched ? isl_schedule_get_map(sched) : NULL;
  if (!map)
    err = acs_diag_set(d, ACS_EINFEASIBLE, m->path, 0, 0, "isl's scheduler failed: %s",
                       isl_ctx_last_error_msg(ctx) ? isl_ctx_last_error_msg(ctx) : "no schedule");
  else if (isl_union_map_foreach_map(map, extract_map, &x) < 0 || x.err < 0)
    err = acs_diag_set(d, ACS_EINFEASIBLE, m->path, 0, 0, "the first dimension of isl's "
                       "schedule is not one affine function per variable");
  isl_union_map_free(map);
  isl_schedule_free(sched);
  isl_ctx_free(ctx);
  if (err < 0)
    acs_affine_sched_free(s);
  return err;
}

/* Shifts every computed variable of s by -(its earliest start) at the
 * values, so the schedule starts at 0 (isl may start below 0). */
static int shift_to_zero(const struct acs_sare *m, struct acs_affine_sched *s,
                         const struct acs_sare_inst *in)
{
  int64_t lo = INT64_MAX, x[ACS_SARE_MAX_DIMS], t;

  for (int32_t v = 0; v < m->nvars; v++)
    for (int64_t k = 0; s->off[v] >= 0 && k < in->var[v].count; k++) {
      for (int32_t j = 0; j < m->vars[v].ndims; j++)
        x[j] = in->var[v].pt[(size_t)k * (size_t)m->vars[v].ndims + (size_t)j];
      if (acs_affine_eval(s, m, v, x, in->value, &t) < 0)
        return ACS_ERANGE;
      lo = t < lo ? t : lo;
    }
  for (int32_t v = 0; v < m->nvars && lo != INT64_MAX; v++)
    if (s->off[v] >= 0 &&
        __builtin_sub_overflow(s->coef[s->off[v] + m->nparams + m->vars[v].ndims], lo,
                               &s->coef[s->off[v] + m->nparams + m->vars[v].ndims]))
      return ACS_ERANGE;
  return ACS_OK;
}

int acs_affine_isl_latency(const struct acs_sare *m, const int64_t *values, int64_t *latency,
                           struct acs_diag *d)
{
  struct acs_affine_sched is;
  struct acs_affine_check c;
  struct acs_sare_inst in;
  int err;

  *latency = -1;
  if ((err = acs_affine_isl_feautrier(m, &is, d)) < 0)
    return err;
  if ((err = acs_sare_inst_build(m, values, &in, d)) == ACS_OK) {
    err = shift_to_zero(m, &is, &in);
    acs_sare_inst_free(&in);
  }
  if (err == ACS_OK && (err = acs_affine_check_values(m, &is, values, 0, &c, d)) == ACS_OK)
    *latency = c.latency;
  else if (err == ACS_EVERIFY)
    err = acs_diag_msg_prefix(d, ACS_EINFEASIBLE, m->path, 0, 0, "isl's first dimension is no "
                              "one-dimensional schedule: ");
  acs_affine_sched_free(&is);
  return err;
}
