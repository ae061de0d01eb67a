/*
 * answers.c - the sizing questions a study answers first (study_int.h): the
 * smallest CMX within 5% of the best at each barrier count, the fewest
 * barriers within 5% of no limit at each CMX size, and what each step in
 * PE count buys. O(R log R) per question for a workload's R runs.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/study_int.h"

/* qsort has no context argument: the study and the parameter asked about,
 * set by acs__answer_make around its one qsort call. */
static const struct acs__study *g_study;
static int g_param;

static int base_cmp(const struct acs__srun *a, const struct acs__srun *b)
{
  size_t la = strcspn(a->p->name, "["), lb = strcspn(b->p->name, "[");
  int c = strncmp(a->p->name, b->p->name, la < lb ? la : lb);

  return c ? c : (la > lb) - (la < lb);
}

/* Slices first (the base row, then every parameter but the one asked
 * about), then that parameter's value, then the better run first. */
static int cmp_slice_runs(const void *pa, const void *pb)
{
  const struct acs__srun *a = *(const struct acs__srun *const *)pa;
  const struct acs__srun *b = *(const struct acs__srun *const *)pb;
  int np = ACS_PARAM_COUNT + (int)g_study->nuclass, c;
  double x, y;

  if ((c = base_cmp(a, b)) != 0)
    return c;
  for (int k = 0; k < np; k++) {
    if (k == g_param)
      continue;
    x = acs__param(g_study, a, k);
    y = acs__param(g_study, b, k);
    if (x != y)
      return x < y ? -1 : 1;
  }
  x = acs__param(g_study, a, g_param);
  y = acs__param(g_study, b, g_param);
  if (x != y)
    return x < y ? -1 : 1;
  return acs__better(a, b) ? -1 : acs__better(b, a) ? 1 : 0;
}

static int same_slice(const struct acs__study *s, int param, const struct acs__srun *a,
                      const struct acs__srun *b)
{
  if (base_cmp(a, b) != 0)
    return 0;
  for (int k = 0; k < ACS_PARAM_COUNT + (int)s->nuclass; k++)
    if (k != param && acs__param(s, a, k) != acs__param(s, b, k))
      return 0;
  return 1;
}

static int question_param(int q)
{
  return q == ACS__Q_CMX ? ACS_P_CMX_KIB : q == ACS__Q_BARRIERS ? ACS_P_BARRIERS : ACS_P_PE_COUNT;
}

/* The point whose best is the best of the slice. */
static const struct acs__point *slice_best(const struct acs__slice *sl)
{
  const struct acs__point *b = NULL;

  for (size_t i = 0; i < sl->npt; i++)
    if (!b || acs__better(sl->pt[i].best, b->best))
      b = &sl->pt[i];
  return b;
}

/* The first point (smallest value above `above`) within 5% of ref. */
static const struct acs__point *first_within(const struct acs__slice *sl,
                                             const struct acs__point *ref, double above)
{
  for (size_t i = 0; i < sl->npt; i++)
    if (sl->pt[i].v > above && sl->pt[i].best->mk <= ACS__WITHIN * ref->best->mk)
      return &sl->pt[i];
  return NULL;
}

static void answer_slice(int q, struct acs__slice *sl)
{
  if (q == ACS__Q_CMX) {
    sl->ref = slice_best(sl);
    sl->answer = first_within(sl, sl->ref, -INFINITY);
  } else if (q == ACS__Q_BARRIERS) {
    sl->ref = sl->npt > 0 && sl->pt[0].v == 0 ? &sl->pt[0] : NULL;
    sl->answer = sl->ref ? first_within(sl, sl->ref, 0) : NULL;
  }
}

/* Cuts the sorted runs into slices and points. */
static int build_slices(const struct acs__study *s, struct acs__answer *a,
                        const struct acs__srun **v, size_t n)
{
  size_t cap = 0;

  for (size_t i = 0; i < n; i++) {
    struct acs__slice *sl;
    if (i == 0 || !same_slice(s, a->param, v[i - 1], v[i])) {
      if (acs_grow((void **)&a->slice, sizeof(*a->slice), &cap, a->nslice + 1) < 0)
        return ACS_ENOMEM;
      sl = &a->slice[a->nslice++];
      memset(sl, 0, sizeof(*sl));
      sl->key = v[i];
      sl->pt = &a->pool[i];
    }
    sl = &a->slice[a->nslice - 1];
    /* The first run of a value is its best (the sort put it there). */
    if (sl->npt == 0 || sl->pt[sl->npt - 1].v != acs__param(s, v[i], a->param))
      sl->pt[sl->npt++] = (struct acs__point){acs__param(s, v[i], a->param), v[i]};
  }
  return ACS_OK;
}

int acs__answer_make(const struct acs__study *s, int wl, int q, struct acs__answer *a)
{
  const struct acs__srun **v;
  size_t n = 0, nref = 0;
  int err;

  memset(a, 0, sizeof(*a));
  a->q = q;
  a->param = question_param(q);
  if (!s->varies[a->param]) {
    a->why = ACS__WHY_FIXED;
    return ACS_OK;
  }
  v = malloc((s->nruns ? s->nruns : 1) * sizeof(*v));
  a->pool = malloc((s->nruns ? s->nruns : 1) * sizeof(*a->pool));
  if (!v || !a->pool) {
    free(v);
    acs__answer_free(a);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < s->nruns; i++)
    if (s->runs[i].wl == wl && s->runs[i].eligible)
      v[n++] = &s->runs[i];
  g_study = s;
  g_param = a->param;
  qsort(v, n, sizeof(*v), cmp_slice_runs);
  err = build_slices(s, a, v, n);
  free(v);
  if (err < 0) {
    acs__answer_free(a);
    return err;
  }
  for (size_t i = 0; i < a->nslice; i++) {
    answer_slice(q, &a->slice[i]);
    nref += a->slice[i].ref != NULL;
  }
  a->why = n == 0 ? ACS__WHY_NORUN : q == ACS__Q_BARRIERS && nref == 0 ? ACS__WHY_NOREF
                                                                       : ACS__WHY_OK;
  return ACS_OK;
}

void acs__answer_free(struct acs__answer *a)
{
  free(a->slice);
  free(a->pool);
  memset(a, 0, sizeof(*a));
}

/* A parameter value as a phrase: "512 KiB", "no barrier limit", "8
 * barriers", "4 PEs", "ddr_ratio=8". */
static int phrase(const struct acs__study *s, int k, double v, char *buf, size_t size)
{
  char name[ACS_UNIT_CLASS_MAX + 8];

  if (k == ACS_P_CMX_KIB) {
    acs__param_label(k, v, buf, size);
    return (int)strlen(buf);
  }
  if (k == ACS_P_BARRIERS)
    return v == 0 ? snprintf(buf, size, "no barrier limit")
                  : snprintf(buf, size, "%g barrier%s", v, v == 1 ? "" : "s");
  if (k == ACS_P_PE_COUNT)
    return snprintf(buf, size, "%g PE%s", v, v == 1 ? "" : "s");
  return snprintf(buf, size, "%s=%g", acs__param_name(s, k, name, sizeof(name)), v);
}

void acs__config_label(const struct acs__study *s, const struct acs__srun *r, int skip,
                       char *buf, size_t size)
{
  size_t off = 0;
  char item[ACS_PLATFORM_NAME_MAX + 64];

  buf[0] = '\0';
  if (s->multi_base)
    off += (size_t)snprintf(buf, size, "%.*s", (int)strcspn(r->p->name, "["), r->p->name);
  for (int k = 0; k < ACS_PARAM_COUNT + (int)s->nuclass && off < size; k++) {
    if (k == skip || !s->varies[k])
      continue;
    phrase(s, k, acs__param(s, r, k), item, sizeof(item));
    off += (size_t)snprintf(buf + off, size - off, "%s%s", off ? ", " : "", item);
  }
}

void acs__slice_label(const struct acs__study *s, const struct acs__answer *a,
                      const struct acs__slice *sl, char *buf, size_t size)
{
  acs__config_label(s, sl->key, a->param, buf, size);
}
