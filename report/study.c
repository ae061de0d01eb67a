/*
 * study.c - a results file as a trade study: runs joined with their platform
 * and workload and placed on the report's axes, the one definition of
 * "best", and the schedulers against the best of each configuration (see
 * study_int.h). O(R (P + log R)) for R runs and P parameters.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/study_int.h"
#include "core/model/schedule.h"
#include "core/sched/sched.h"

/* A run's memory model: its column, or, in a file written before the
 * column existed, the variant's own (unknown variants: ""). The names are
 * the model's (core/model/schedule.h); sched.h only for the registry. */
static const char *memory_model(const struct acs_run_row *r)
{
  const struct acs_sched_ops *ops;

  if (r->memory_model[0])
    return r->memory_model;
  ops = acs_sched_find(r->scheduler);
  return ops ? acs_mem_model_name(ops->memory_model) : "";
}

int acs__natcmp(const char *a, const char *b)
{
  while (*a && *b) {
    if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
      const char *sa = a, *sb = b;
      size_t la, lb;
      int c;
      while (*sa == '0' && isdigit((unsigned char)sa[1]))
        sa++;
      while (*sb == '0' && isdigit((unsigned char)sb[1]))
        sb++;
      for (a = sa; isdigit((unsigned char)*a); a++)
        ;
      for (b = sb; isdigit((unsigned char)*b); b++)
        ;
      la = (size_t)(a - sa);
      lb = (size_t)(b - sb);
      if (la != lb)
        return la < lb ? -1 : 1;
      if ((c = strncmp(sa, sb, la)) != 0)
        return c;
      continue;
    }
    if (*a != *b)
      return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
    a++;
    b++;
  }
  return *a ? 1 : *b ? -1 : 0;
}

double acs__param(const struct acs__study *s, const struct acs__srun *r, int k)
{
  (void)s;
  return k < ACS_PARAM_COUNT ? r->p->v[k] : r->uval[k - ACS_PARAM_COUNT];
}

const char *acs__param_name(const struct acs__study *s, int k, char *buf, size_t size)
{
  if (k < 0 || k >= ACS_PARAM_COUNT + (int)s->nuclass)
    snprintf(buf, size, "?");
  else if (k < ACS_PARAM_COUNT)
    snprintf(buf, size, "%s", acs_param_table[k].name);
  else
    snprintf(buf, size, "units.%s", s->uclass[k - ACS_PARAM_COUNT]);
  return buf;
}

void acs__param_label(int param, double v, char *buf, size_t size)
{
  if (param >= ACS_PARAM_COUNT) {
    /* A unit class: 0 is "not overridden", -1 "unlimited" (platform.h). */
    if (v == 0)
      snprintf(buf, size, "as in the workload");
    else if (v < 0)
      snprintf(buf, size, "unlimited");
    else
      snprintf(buf, size, "%g", v);
  } else if (param == ACS_P_CMX_KIB || param == ACS_P_PE_VMEM_KIB || param == ACS_P_PE_PMEM_KIB) {
    if (v >= 1048576 && fmod(v, 1048576) == 0)
      snprintf(buf, size, "%g GiB", v / 1048576);
    else if (v >= 1024 && fmod(v, 1024) == 0)
      snprintf(buf, size, "%g MiB", v / 1024);
    else
      snprintf(buf, size, "%g KiB", v);
  } else if ((param == ACS_P_BARRIERS || param == ACS_P_BARRIER_SLOTS) && v == 0) {
    snprintf(buf, size, "no limit");
  } else if (param == ACS_P_DMA_GBPS || param == ACS_P_LOCAL_GBPS) {
    snprintf(buf, size, "%g GB/s", v);
  } else if (param == ACS_P_FREQ_MHZ) {
    snprintf(buf, size, "%g MHz", v);
  } else {
    snprintf(buf, size, "%g", v);
  }
}

const char *acs__param_title(const struct acs__study *s, int param)
{
  if (param >= ACS_PARAM_COUNT && param < ACS_PARAM_COUNT + (int)s->nuclass)
    return s->utitle[param - ACS_PARAM_COUNT];
  switch (param) {
  case ACS_P_CMX_KIB: return "CMX size";
  case ACS_P_BARRIERS: return "hardware barriers";
  case ACS_P_BARRIER_SLOTS: return "barrier slots";
  case ACS_P_PE_COUNT: return "processing elements";
  case ACS_P_DMA_CHANNELS: return "DMA channels";
  case ACS_P_DMA_GBPS: return "DMA bandwidth";
  case ACS_P_DDR_RATIO: return "DMA / DDR bandwidth ratio";
  case ACS_P_FREQ_MHZ: return "clock";
  case ACS_P_PE_VMEM_KIB: return "VMEM per PE";
  default: return param >= 0 && param < ACS_PARAM_COUNT ? acs_param_table[param].name : "";
  }
}

int acs__better(const struct acs__srun *a, const struct acs__srun *b)
{
  if (!b)
    return 1;
  if (a->mk != b->mk)
    return a->mk < b->mk;
  return a->r->run_id < b->r->run_id;
}

int acs__worse(const struct acs__srun *a, const struct acs__srun *b)
{
  if (!b)
    return 1;
  if (a->mk != b->mk)
    return a->mk > b->mk;
  return a->r->run_id < b->r->run_id;
}

size_t acs__study_loosest_y(const struct acs__study *s)
{
  if (s->yparam == ACS_P_BARRIERS || s->yparam == ACS_P_BARRIER_SLOTS)
    for (size_t i = 0; i < s->ny; i++)
      if (s->yv[i] == 0)
        return i;
  return s->ny ? s->ny - 1 : 0;
}

/* ---- the report's order (study_int.h) ---- */

/* A scheduler's or a family's place in the order: rank, then name, then
 * options ("" first). */
struct place {
  int rank;
  const char *name, *opts;
};

/* A scheduler ranks by its registry position (the registry's size for a
 * name it lacks: a file from another acsim). */
static struct place sched_place(const char *name, const char *opts)
{
  size_t n;
  const struct acs_sched_ops *const *all = acs_sched_list(&n);
  struct place p = {(int)n, name, opts};

  for (size_t i = 0; i < n; i++)
    if (strcmp(all[i]->name, name) == 0)
      p.rank = (int)i;
  return p;
}

static int cmp_place(const struct place *a, const struct place *b)
{
  int c;

  if (a->rank != b->rank)
    return a->rank < b->rank ? -1 : 1;
  if ((c = strcmp(a->name, b->name)) != 0)
    return c;
  return acs__natcmp(a->opts, b->opts);
}

struct run_place {
  const struct acs_run_row *r;
  struct place sp;
  size_t i;
};

static int cmp_i64(int64_t a, int64_t b)
{
  return (a > b) - (a < b);
}

static int cmp_run_place(const void *a, const void *b)
{
  const struct run_place *x = a, *y = b;
  int c;

  if ((c = cmp_i64(x->r->workload_id, y->r->workload_id)) != 0 ||
      (c = cmp_i64(x->r->platform_id, y->r->platform_id)) != 0 ||
      (c = cmp_place(&x->sp, &y->sp)) != 0)
    return c;
  return cmp_i64(x->r->run_id, y->r->run_id);
}

int acs__run_order(const struct acs_results_data *data, size_t **order)
{
  size_t n = data->nruns;
  struct run_place *pl = malloc((n ? n : 1) * sizeof(*pl));

  *order = malloc((n ? n : 1) * sizeof(**order));
  if (!pl || !*order) {
    free(pl);
    free(*order);
    *order = NULL;
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    pl[i].r = &data->runs[i];
    pl[i].sp = sched_place(data->runs[i].scheduler, data->runs[i].options);
    pl[i].i = i;
  }
  qsort(pl, n, sizeof(*pl), cmp_run_place);
  for (size_t i = 0; i < n; i++)
    (*order)[i] = pl[i].i;
  free(pl);
  return ACS_OK;
}

/* A list entry's place (a family ranks by the least platform_id of its
 * runs); `old` its index as interned. */
struct entry_place {
  struct place sp;
  int old;
};

static int cmp_entry_place(const void *a, const void *b)
{
  return cmp_place(&((const struct entry_place *)a)->sp,
                         &((const struct entry_place *)b)->sp);
}

/* Puts list[0..n) in the order of pl[] (one per entry) and renumbers the
 * runs' indices into it, *at(run). O(n log n + R). */
static int sort_list(struct acs__study *s, char (*list)[ACS__LABEL], struct entry_place *pl,
                     size_t n, int *(*at)(struct acs__srun *r))
{
  char (*copy)[ACS__LABEL] = malloc((n ? n : 1) * sizeof(*copy));
  int *to = malloc((n ? n : 1) * sizeof(*to));

  if (!copy || !to) {
    free(copy);
    free(to);
    return ACS_ENOMEM;
  }
  qsort(pl, n, sizeof(*pl), cmp_entry_place);
  for (size_t i = 0; i < n; i++) {
    to[pl[i].old] = (int)i;
    memcpy(copy[i], list[pl[i].old], sizeof(copy[i]));
  }
  memcpy(list, copy, n * sizeof(*copy));
  for (size_t i = 0; i < s->nruns; i++)
    *at(&s->runs[i]) = to[*at(&s->runs[i])];
  free(copy);
  free(to);
  return ACS_OK;
}

static int *sched_of(struct acs__srun *r)
{
  return &r->sched;
}

static int *fam_of(struct acs__srun *r)
{
  return &r->fam;
}

/* The schedulers in registry order, then by options. */
static int sort_schedulers(struct acs__study *s)
{
  struct entry_place *pl = calloc(s->nsched ? s->nsched : 1, sizeof(*pl));
  int err;

  if (!pl)
    return ACS_ENOMEM;
  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    pl[r->sched].sp = sched_place(r->r->scheduler, r->r->options);
    pl[r->sched].old = r->sched;
  }
  err = sort_list(s, s->sched, pl, s->nsched, sched_of);
  free(pl);
  return err;
}

/* The families by the least platform_id of their runs. */
static int sort_families(struct acs__study *s)
{
  struct entry_place *pl = calloc(s->nfam ? s->nfam : 1, sizeof(*pl));
  int err;

  if (!pl)
    return ACS_ENOMEM;
  for (size_t i = 0; i < s->nfam; i++)
    pl[i] = (struct entry_place){{INT_MAX, s->fam[i], ""}, (int)i};
  for (size_t i = 0; i < s->nruns; i++) {
    struct place *sp = &pl[s->runs[i].fam].sp;
    if (s->runs[i].r->platform_id < sp->rank)
      sp->rank = s->runs[i].r->platform_id;
  }
  err = sort_list(s, s->fam, pl, s->nfam, fam_of);
  free(pl);
  return err;
}

/* Index of name in list (appended when new). */
static int intern(char (*list)[ACS__LABEL], size_t *n, const char *name)
{
  for (size_t i = 0; i < *n; i++)
    if (strcmp(list[i], name) == 0)
      return (int)i;
  snprintf(list[*n], ACS__LABEL, "%s", name);
  return (int)(*n)++;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* Sorted distinct values of a parameter over the runs' platforms. */
static int axis_values(struct acs__study *s, int param, double **out, size_t *n)
{
  double *v = malloc((s->nruns ? s->nruns : 1) * sizeof(*v));
  size_t k = 0;

  if (!v)
    return ACS_ENOMEM;
  if (param < 0) {
    v[0] = 0;
    *out = v;
    *n = 1;
    return ACS_OK;
  }
  for (size_t i = 0; i < s->nruns; i++)
    v[i] = acs__param(s, &s->runs[i], param);
  qsort(v, s->nruns, sizeof(*v), cmp_double);
  for (size_t i = 0; i < s->nruns; i++)
    if (k == 0 || v[i] != v[k - 1])
      v[k++] = v[i];
  *out = v;
  *n = k;
  return ACS_OK;
}

static int value_index(const double *v, size_t n, double x)
{
  for (size_t i = 0; i < n; i++)
    if (v[i] == x)
      return (int)i;
  return 0;
}

/* Which parameters vary, and the axes. */
static void choose_axes(struct acs__study *s)
{
  int np = ACS_PARAM_COUNT + (int)s->nuclass;

  for (size_t i = 1; i < s->nruns; i++)
    for (int k = 0; k < np; k++)
      if (acs__param(s, &s->runs[i], k) != acs__param(s, &s->runs[0], k))
        s->varies[k] = 1;
  s->xparam = s->yparam = -1;
  if (s->varies[ACS_P_CMX_KIB])
    s->xparam = ACS_P_CMX_KIB;
  for (int k = 0; k < np && s->xparam < 0; k++)
    if (s->varies[k] && k != ACS_P_BARRIERS)
      s->xparam = k;
  if (s->xparam < 0 && s->varies[ACS_P_BARRIERS])
    s->xparam = ACS_P_BARRIERS;
  else if (s->varies[ACS_P_BARRIERS])
    s->yparam = ACS_P_BARRIERS;
  for (int k = 0; k < np && s->yparam < 0; k++)
    if (s->varies[k] && k != s->xparam)
      s->yparam = k;
}

/* "default" or "default (pe_count=8, ddr_ratio=8)": the base row's name and
 * the varying parameters that are on no axis. */
static void family_label(const struct acs__study *s, const struct acs__srun *r, char *buf,
                         size_t size)
{
  const char *br = strchr(r->p->name, '[');
  size_t off, len = br ? (size_t)(br - r->p->name) : strlen(r->p->name);
  int first = 1;
  char name[ACS_UNIT_CLASS_MAX + 8];

  off = (size_t)snprintf(buf, size, "%.*s", (int)len, r->p->name);
  for (int k = 0; k < ACS_PARAM_COUNT + (int)s->nuclass && off < size; k++) {
    if (!s->varies[k] || k == s->xparam || k == s->yparam)
      continue;
    off += (size_t)snprintf(buf + off, size - off, "%s%s=%g", first ? " (" : ", ",
                            acs__param_name(s, k, name, sizeof(name)), acs__param(s, r, k));
    first = 0;
  }
  if (!first && off < size)
    snprintf(buf + off, size - off, ")");
}

/*
 * The unit counts of a platform ("mem:2;mul:-1", the canonical list of
 * platform.h) into the study's classes, adding classes as they are seen,
 * and into uval[] unless it is NULL; a class left alone reads 0 ("as in
 * the workload").
 */
static void unit_values(struct acs__study *s, const char *p, double *uval)
{
  while (*p) {
    const char *colon = strchr(p, ':'), *end = strchr(p, ';');
    size_t len, c;
    if (!end)
      end = p + strlen(p);
    if (!colon || colon > end || colon == p)
      break;
    len = (size_t)(colon - p);
    for (c = 0; c < s->nuclass; c++)
      if (strlen(s->uclass[c]) == len && strncmp(s->uclass[c], p, len) == 0)
        break;
    if (c == s->nuclass && c < ACS__MAXUCLASS && len < ACS_UNIT_CLASS_MAX) {
      snprintf(s->uclass[c], sizeof(s->uclass[c]), "%.*s", (int)len, p);
      snprintf(s->utitle[c], sizeof(s->utitle[c]), "%.*s units", (int)len, p);
      s->nuclass++;
    }
    if (c < s->nuclass && uval)
      uval[c] = strtod(colon + 1, NULL);
    p = *end ? end + 1 : end;
  }
}

static const struct acs_workload_row *g_wsort; /* qsort has no context argument */

static int cmp_wl_name(const void *a, const void *b)
{
  const struct acs_workload_row *x = &g_wsort[*(const size_t *)a];
  const struct acs_workload_row *y = &g_wsort[*(const size_t *)b];
  int c = strcmp(x->name, y->name);

  return c ? c : strcmp(x->digest, y->digest);
}

/*
 * Marks the workload rows whose name another row shares with other content
 * (an edited file run again into the same study, two files of one name in
 * two folders): amb[i] is 1 for them. Their runs are labelled with the
 * digest too, so the report never draws different workloads as one. Rows
 * without a digest (older files) match by name alone, as run identity
 * does. O(W log W).
 */
static int ambiguous_names(const struct acs_results_data *data, unsigned char *amb)
{
  size_t n = data->nworkloads, *ix = malloc((n ? n : 1) * sizeof(*ix));

  if (!ix)
    return ACS_ENOMEM;
  for (size_t i = 0; i < n; i++)
    ix[i] = i;
  g_wsort = data->workloads;
  qsort(ix, n, sizeof(*ix), cmp_wl_name);
  for (size_t a = 0, b; a < n; a = b) {
    int differ = 0;
    for (b = a + 1; b < n && strcmp(data->workloads[ix[b]].name,
                                     data->workloads[ix[a]].name) == 0; b++)
      differ |= data->workloads[ix[b]].digest[0] && data->workloads[ix[a]].digest[0] &&
                strcmp(data->workloads[ix[b]].digest, data->workloads[ix[a]].digest) != 0;
    for (size_t k = a; k < b; k++)
      amb[ix[k]] = (unsigned char)differ;
  }
  free(ix);
  return ACS_OK;
}

static int cmp_platform_id(const void *a, const void *b)
{
  return cmp_i64((*(const struct acs_platform_row *const *)a)->platform_id,
                 (*(const struct acs_platform_row *const *)b)->platform_id);
}

/* The unit classes of the runs' platforms, by platform_id, then each run's
 * counts. O(P log P + R). */
static int unit_classes(struct acs__study *s)
{
  const struct acs_results_data *data = &s->data;
  const struct acs_platform_row **by_id = malloc((data->nplatforms + 1) * sizeof(*by_id));
  unsigned char *used = calloc(data->nplatforms + 1, 1);

  if (!by_id || !used) {
    free(by_id);
    free(used);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < s->nruns; i++)
    used[acs_results_platform_of(data, s->runs[i].r) - data->platforms] = 1;
  for (size_t i = 0; i < data->nplatforms; i++)
    by_id[i] = &data->platforms[i];
  qsort(by_id, data->nplatforms, sizeof(*by_id), cmp_platform_id);
  for (size_t i = 0; i < data->nplatforms; i++)
    if (used[by_id[i] - data->platforms])
      unit_values(s, by_id[i]->plat.units, NULL);
  for (size_t i = 0; i < s->nruns; i++)
    unit_values(s, s->runs[i].p->units, s->runs[i].uval);
  free(by_id);
  free(used);
  return ACS_OK;
}

static int join_runs(struct acs__study *s, struct acs_diag *d)
{
  struct acs_results_data *data = &s->data;
  unsigned char *amb = calloc(data->nworkloads + 1, 1);
  char label[ACS__LABEL];
  size_t *order = NULL;
  int err;

  if (!amb || ambiguous_names(data, amb) < 0 || acs__run_order(data, &order) < 0) {
    free(amb);
    return ACS_ENOMEM;
  }
  /* In the report's order, so that the workloads are interned by
   * workload_id and every walk over the runs meets them alike. */
  for (size_t i = 0; i < data->nruns; i++) {
    struct acs__srun *r = &s->runs[i];
    const struct acs_platform_row *p = acs_results_platform_of(data, &data->runs[order[i]]);
    r->r = &data->runs[order[i]];
    r->w = acs_results_workload_of(data, r->r);
    if (!p || !r->w) {
      free(amb);
      free(order);
      return acs_diag_set(d, ACS_EFORMAT, s->path, 0, 0,
                          "run %lld refers to a platform or workload the file does not have",
                          (long long)r->r->run_id);
    }
    r->p = &p->plat;
    if (amb[r->w - data->workloads])
      snprintf(label, sizeof(label), "%s (%.8s)", r->w->name, r->w->digest);
    else
      snprintf(label, sizeof(label), "%s", r->w->name);
    r->wl = intern(s->wl, &s->nwl, label);
    if (r->r->options[0])
      snprintf(label, sizeof(label), "%s[%s]", r->r->scheduler, r->r->options);
    else
      snprintf(label, sizeof(label), "%s", r->r->scheduler);
    r->sched = intern(s->sched, &s->nsched, label);
    r->mk = isnan(r->r->sim_makespan_cycles) ? r->r->makespan_cycles : r->r->sim_makespan_cycles;
    r->ok = strcmp(r->r->status, "ok") == 0 && !isnan(r->mk);
    r->mm = memory_model(r->r);
    r->resident = strcmp(r->mm, "resident") == 0;
    if (!r->ok)
      r->mk = NAN;
    if (!isnan(r->r->sim_makespan_cycles))
      s->simulated = 1;
  }
  free(amb);
  free(order);
  if ((err = unit_classes(s)) < 0)
    return err;
  return sort_schedulers(s);
}

/* The one definition of "best" (study_int.h): once every run is joined, the
 * workloads that have an ok resident run count only those. */
static void mark_eligible(struct acs__study *s)
{
  for (size_t i = 0; i < s->nruns; i++)
    if (s->runs[i].ok && s->runs[i].resident)
      s->wl_resident[s->runs[i].wl] = 1;
  for (size_t i = 0; i < s->nruns; i++) {
    struct acs__srun *r = &s->runs[i];
    r->eligible = r->ok && (r->resident || !s->wl_resident[r->wl]);
  }
}

/* The network bound of DNN runs (max of compute and DDR bounds, shared by
 * every family on a platform): NaN in files older than the column and for
 * other workloads, so the page shows the gap only where there is a bound. */
static void read_netbound(struct acs__study *s)
{
  for (size_t i = 0; i < s->nruns; i++) {
    double v = s->runs[i].r->network_bound_cycles;
    s->runs[i].netbound = v > 0 ? v : NAN;
    s->has_netbound |= !isnan(s->runs[i].netbound);
  }
}

int acs__study_load(const char *path, struct acs__study *s, struct acs_diag *d)
{
  size_t n;
  int err;

  memset(s, 0, sizeof(*s));
  s->path = path;
  if ((err = acs_results_read(path, &s->data, d)) < 0)
    return err;
  n = s->data.nruns ? s->data.nruns : 1;
  s->nruns = s->data.nruns;
  s->runs = calloc(n, sizeof(*s->runs));
  s->wl = calloc(n, sizeof(*s->wl));
  s->sched = calloc(n, sizeof(*s->sched));
  s->fam = calloc(n, sizeof(*s->fam));
  s->wl_resident = calloc(n, 1);
  if (!s->runs || !s->wl || !s->sched || !s->fam || !s->wl_resident) {
    err = ACS_ENOMEM;
    goto out_with_study;
  }
  if ((err = join_runs(s, d)) < 0)
    goto out_with_study;
  read_netbound(s);
  mark_eligible(s);
  choose_axes(s);
  for (size_t i = 1; i < s->nruns && !s->multi_base; i++)
    s->multi_base = strcspn(s->runs[i].p->name, "[") != strcspn(s->runs[0].p->name, "[") ||
                    strncmp(s->runs[i].p->name, s->runs[0].p->name,
                            strcspn(s->runs[0].p->name, "[")) != 0;
  if ((err = axis_values(s, s->xparam, &s->xv, &s->nx)) < 0 ||
      (err = axis_values(s, s->yparam, &s->yv, &s->ny)) < 0)
    goto out_with_study;
  for (size_t i = 0; i < s->nruns; i++) {
    struct acs__srun *r = &s->runs[i];
    char label[ACS__LABEL];
    family_label(s, r, label, sizeof(label));
    r->fam = intern(s->fam, &s->nfam, label);
    r->xi = s->xparam >= 0 ? value_index(s->xv, s->nx, acs__param(s, r, s->xparam)) : 0;
    r->yi = s->yparam >= 0 ? value_index(s->yv, s->ny, acs__param(s, r, s->yparam)) : 0;
  }
  if ((err = sort_families(s)) < 0)
    goto out_with_study;
  return ACS_OK;

out_with_study:
  acs__study_free(s);
  return err;
}

void acs__study_free(struct acs__study *s)
{
  acs_results_data_free(&s->data);
  free(s->runs);
  free(s->wl);
  free(s->sched);
  free(s->fam);
  free(s->wl_resident);
  free(s->xv);
  free(s->yv);
  memset(s, 0, sizeof(*s));
}

/* ---- schedulers against the best of each configuration ---- */

static int cmp_config(const void *a, const void *b)
{
  const struct acs__srun *x = *(const struct acs__srun *const *)a;
  const struct acs__srun *y = *(const struct acs__srun *const *)b;

  if (x->wl != y->wl)
    return x->wl < y->wl ? -1 : 1;
  if (x->r->platform_id != y->r->platform_id)
    return x->r->platform_id < y->r->platform_id ? -1 : 1;
  if (x->sched != y->sched)
    return x->sched < y->sched ? -1 : 1;
  /* The latest run of a repeated configuration first: it is the one
   * scored, as the plots draw it. */
  return x->r->run_id > y->r->run_id ? -1 : x->r->run_id < y->r->run_id;
}

/*
 * The best of a configuration is its best eligible run (study_int.h): a
 * transient variant's makespan is an optimistic bound (its memory model
 * cannot run at that CMX size), so it is compared with that best, may come
 * out below it (ratio < 1), and never wins.
 */
static void score_config(struct acs__cmp *c, const struct acs__srun *const *run, size_t n)
{
  const struct acs__srun *best = NULL;
  size_t nok = 0;

  for (size_t i = 0; i < n; i++) {
    if (i > 0 && run[i - 1]->sched == run[i]->sched)
      continue; /* a repeated run of one configuration counts once */
    nok += run[i]->ok;
    if (run[i]->eligible && acs__better(run[i], best))
      best = run[i];
  }
  if (nok < 2 || !best || !(best->mk > 0))
    return;
  c->configs++;
  for (size_t i = 0; i < n; i++) {
    double ratio;
    if (!run[i]->ok || (i > 0 && run[i - 1]->sched == run[i]->sched))
      continue;
    ratio = run[i]->mk / best->mk;
    for (size_t row = (size_t)run[i]->wl;; row = c->rows - 1) {
      struct acs__cmpcell *cell = acs__cmp_at(c, row, (size_t)run[i]->sched);
      cell->n++;
      cell->wins += run[i]->eligible && run[i]->mk == best->mk;
      cell->sumlog += log(ratio);
      cell->worst = cell->n == 1 ? ratio : fmax(cell->worst, ratio);
      if (row == c->rows - 1)
        break;
    }
  }
}

int acs__study_compare(const struct acs__study *s, struct acs__cmp *c)
{
  const struct acs__srun **v;
  size_t start = 0;

  memset(c, 0, sizeof(*c));
  c->rows = s->nwl + 1;
  c->cols = s->nsched;
  c->cell = calloc(c->rows * (c->cols ? c->cols : 1), sizeof(*c->cell));
  v = malloc((s->nruns ? s->nruns : 1) * sizeof(*v));
  if (!c->cell || !v) {
    free(v);
    acs__cmp_free(c);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < s->nruns; i++)
    v[i] = &s->runs[i];
  /* Runs of one configuration become adjacent: O(R log R). */
  qsort(v, s->nruns, sizeof(*v), cmp_config);
  for (size_t i = 1; i <= s->nruns; i++)
    if (i == s->nruns || v[i]->wl != v[start]->wl ||
        v[i]->r->platform_id != v[start]->r->platform_id) {
      score_config(c, v + start, i - start);
      start = i;
    }
  free(v);
  return ACS_OK;
}

void acs__cmp_free(struct acs__cmp *c)
{
  free(c->cell);
  memset(c, 0, sizeof(*c));
}
