/*
 * check.c - the affine family's own checker: a schedule of a system is
 * checked by enumerating the instances for concrete parameter values and
 * evaluating the affine functions, independently of the program that
 * produced it (no Farkas, no isl: the reader's polyhedra and index
 * functions, and arithmetic).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/sched/affine/affine.h"

/* A walk over the instances of a system: what the point and dependence
 * checks of both kinds of schedule read (s one-dimensional, or ms with
 * its rows; the other NULL) and the counts they write. */
struct walk {
  const struct acs_sare *m;
  const struct acs_affine_sched *s;
  const struct acs_affine_msched *ms;
  const struct acs_sare_inst *in;
  struct acs_affine_check *r;
  struct acs_diag *d;
};

static int overflow(struct walk *w)
{
  return acs_diag_set(w->d, ACS_EVERIFY, w->m->path, 0, 0, "a schedule value overflows 64 bits");
}

static int check_dep(void *user, int32_t e, int64_t xr, const int64_t *x, int64_t yr,
                     const int64_t *y)
{
  struct walk *w = user;
  const struct acs_sare *m = w->m;
  const struct acs_sare_dep *dep = &m->deps[e];
  char a[ACS_NAME_MAX], b[ACS_NAME_MAX];
  int64_t tx, ty, need;

  (void)xr;
  w->r->dep_instances++;
  acs_sare_point_name(m, dep->dst, x, a, sizeof(a));
  acs_sare_point_name(m, dep->src, y, b, sizeof(b));
  if (yr < 0)
    return acs_diag_set(w->d, ACS_EVERIFY, m->path, dep->line, dep->col,
                        "%s reads %s, outside the domain of '%s'", a, b, m->vars[dep->src].name);
  if (acs_affine_eval(w->s, m, dep->dst, x, w->in->value, &tx) < 0 ||
      acs_affine_eval(w->s, m, dep->src, y, w->in->value, &ty) < 0 ||
      acs_add_i64(ty, m->vars[dep->src].delay, &need))
    return overflow(w);
  if (tx < need)
    return acs_diag_set(w->d, ACS_EVERIFY, m->path, dep->line, dep->col,
                        "%s starts at %" PRId64 " but reads %s, which starts at %" PRId64
                        " and takes %" PRId64 " cycles", a, tx, b, ty, m->vars[dep->src].delay);
  return 0;
}

/* Positivity on every point and the latest end of a computed instance. */
static int check_points(struct walk *w)
{
  const struct acs_sare *m = w->m;
  int64_t x[ACS_SARE_MAX_DIMS], t, end;
  char a[ACS_NAME_MAX];

  w->r->latency = 0;
  for (int32_t v = 0; v < m->nvars; v++) {
    const struct acs_sare_vinst *vi = &w->in->var[v];
    for (int64_t k = 0; k < vi->count; k++) {
      for (int32_t j = 0; j < m->vars[v].ndims; j++)
        x[j] = vi->pt[(size_t)k * (size_t)m->vars[v].ndims + (size_t)j];
      w->r->instances++;
      if (acs_affine_eval(w->s, m, v, x, w->in->value, &t) < 0 ||
          acs_add_i64(t, m->vars[v].delay, &end))
        return overflow(w);
      if (t < 0) {
        acs_sare_point_name(m, v, x, a, sizeof(a));
        return acs_diag_set(w->d, ACS_EVERIFY, m->path, m->vars[v].line, m->vars[v].col,
                            "%s is scheduled at %" PRId64 ", before time 0", a, t);
      }
      if (acs_sare_computed(m, v) && end > w->r->latency)
        w->r->latency = end;
    }
  }
  return ACS_OK;
}

int acs_affine_check_values(const struct acs_sare *m, const struct acs_affine_sched *s,
                            const int64_t *values, int with_bound, struct acs_affine_check *r,
                            struct acs_diag *d)
{
  struct acs_sare_inst in;
  struct walk w = {m, s, NULL, &in, r, d};
  int err;

  memset(r, 0, sizeof(*r));
  if ((err = acs_sare_inst_build(m, values, &in, d)) < 0)
    return err;
  if ((err = check_points(&w)) == ACS_OK)
    err = acs_sare_foreach_dep_instance(m, &in, check_dep, &w);
  if (err == ACS_OK && with_bound && acs_affine_latency(s, in.value, &r->bound) < 0)
    err = overflow(&w);
  if (err == ACS_OK && with_bound && r->bound != r->latency)
    err = acs_diag_set(d, ACS_EVERIFY, m->path, 0, 0,
                       "the latency bound gives %" PRId64 " cycles but the last instance ends "
                       "at %" PRId64, r->bound, r->latency);
  acs_sare_inst_free(&in);
  return err;
}

/* ---- multidimensional schedules ---- */

static int check_dep_multi(void *user, int32_t e, int64_t xr, const int64_t *x, int64_t yr,
                           const int64_t *y)
{
  struct walk *w = user;
  const struct acs_sare *m = w->m;
  const struct acs_sare_dep *dep = &m->deps[e];
  char a[ACS_NAME_MAX], b[ACS_NAME_MAX];

  (void)xr;
  w->r->dep_instances++;
  if (yr < 0 || !acs_sare_computed(m, dep->src))
    return yr < 0 ? acs_diag_set(w->d, ACS_EVERIFY, m->path, dep->line, dep->col,
                                 "a read reaches outside the domain of '%s'",
                                 m->vars[dep->src].name) : 0;
  for (int32_t k = 0; k < w->ms->ndims; k++) {
    int64_t tx, ty;
    if (acs_affine_eval(&w->ms->row[k], m, dep->dst, x, w->in->value, &tx) < 0 ||
        acs_affine_eval(&w->ms->row[k], m, dep->src, y, w->in->value, &ty) < 0)
      return acs_diag_set(w->d, ACS_EVERIFY, m->path, 0, 0, "a schedule value overflows");
    if (tx > ty)
      return 0;
    if (tx < ty)
      break;
  }
  acs_sare_point_name(m, dep->dst, x, a, sizeof(a));
  acs_sare_point_name(m, dep->src, y, b, sizeof(b));
  return acs_diag_set(w->d, ACS_EVERIFY, m->path, dep->line, dep->col,
                      "%s reads %s but does not come after it in the order of the %d rows", a,
                      b, (int)w->ms->ndims);
}

int acs_affine_check_multi(const struct acs_sare *m, const struct acs_affine_msched *ms,
                           const int64_t *values, struct acs_affine_check *r,
                           struct acs_diag *d)
{
  struct acs_sare_inst in;
  struct walk w = {m, NULL, ms, &in, r, d};
  int err;

  memset(r, 0, sizeof(*r));
  if ((err = acs_sare_inst_build(m, values, &in, d)) < 0)
    return err;
  for (int32_t k = 0; k < ms->ndims && err == ACS_OK; k++) {
    struct acs_affine_check rk;
    struct walk pw = {m, &ms->row[k], NULL, &in, &rk, d};
    memset(&rk, 0, sizeof(rk));
    err = check_points(&pw);
    r->instances = rk.instances;
  }
  if (err == ACS_OK)
    err = acs_sare_foreach_dep_instance(m, &in, check_dep_multi, &w);
  acs_sare_inst_free(&in);
  return err;
}
