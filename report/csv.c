/*
 * csv.c - DIR/runs.csv of `acsim report`: every run, one row each, with its
 * figures, its platform's parameters and unit counts as columns, for
 * spreadsheets and pandas. Empty fields are missing values. The rows are in
 * the report's order (study_int.h), not the order the runs were stored in.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/load/load.h"
#include "report/plots_int.h"

/* A CSV field (RFC 4180): quoted when it holds a comma, quote or newline. */
static void csv_str(FILE *f, const char *s)
{
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The shortest text that reads back to the same double. */
static void csv_f64(FILE *f, double v)
{
  char buf[64];

  if (isnan(v))
    return;
  acs_vary_format_value(v, buf, sizeof(buf));
  fputs(buf, f);
}

static void csv_i64(FILE *f, int64_t v)
{
  if (v >= 0)
    fprintf(f, "%lld", (long long)v);
}

/* The unit classes any platform of the file overrides, in order seen. */
struct classes {
  char name[32][ACS_UNIT_CLASS_MAX];
  size_t n;
};

static void collect_classes(const struct acs_results_data *data, struct classes *c)
{
  c->n = 0;
  for (size_t i = 0; i < data->nplatforms; i++) {
    const char *p = data->platforms[i].plat.units;
    while (*p) {
      size_t len = strcspn(p, ":;"), k;
      for (k = 0; k < c->n; k++)
        if (strlen(c->name[k]) == len && strncmp(c->name[k], p, len) == 0)
          break;
      if (k == c->n && c->n < 32 && len > 0 && len < ACS_UNIT_CLASS_MAX)
        snprintf(c->name[c->n++], ACS_UNIT_CLASS_MAX, "%.*s", (int)len, p);
      p += strcspn(p, ";");
      p += *p == ';';
    }
  }
}

/* The count of class cls in a platform's units list; NaN when not set. */
static double unit_count(const struct acs_platform *p, const char *cls)
{
  int64_t n;

  return acs_platform_units_get(p, cls, &n) ? (double)n : NAN;
}

static void csv_header(FILE *f, const struct classes *c)
{
  fputs("run_id,platform,workload,workload_kind,workload_path,ops,edges,scheduler,options,status,"
        "memory_model,makespan_cycles,sim_makespan_cycles,lower_bound_cycles,"
        "network_bound_cycles,", f);
  fputs("peak_cmx_bytes,spill_bytes,ddr_bytes,barriers_used,control_edges,sched_seconds,"
        "sim_seconds,pe_utilization,dma_utilization,ii,mii,cycles_per_iter", f);
  for (int k = 0; k < ACS_PARAM_COUNT; k++)
    fprintf(f, ",%s", acs_param_table[k].name);
  fputs(",units", f);
  for (size_t k = 0; k < c->n; k++)
    fprintf(f, ",units.%s", c->name[k]);
  fputs(",message\n", f);
}

static void csv_row(FILE *f, const struct acs_results_data *data, const struct acs_run_row *r,
                    const struct classes *c)
{
  const struct acs_platform_row *p = acs_results_platform_of(data, r);
  const struct acs_workload_row *w = acs_results_workload_of(data, r);

  fprintf(f, "%lld,", (long long)r->run_id);
  csv_str(f, p ? p->plat.name : "");
  fputc(',', f);
  csv_str(f, w ? w->name : "");
  fputc(',', f);
  csv_str(f, w ? w->kind : "");
  fputc(',', f);
  csv_str(f, w ? w->path : "");
  fputc(',', f);
  /* The run's own graph size; older files kept it in the workload row. */
  csv_i64(f, r->ops >= 0 ? r->ops : w ? w->ops : -1);
  fputc(',', f);
  csv_i64(f, r->ops >= 0 ? r->edges : w ? w->edges : -1);
  fputc(',', f);
  csv_str(f, r->scheduler);
  fputc(',', f);
  csv_str(f, r->options);
  fprintf(f, ",%s,%s,", r->status, r->memory_model);
  csv_f64(f, r->makespan_cycles), fputc(',', f);
  csv_f64(f, r->sim_makespan_cycles), fputc(',', f);
  csv_f64(f, r->lower_bound_cycles), fputc(',', f);
  csv_f64(f, r->network_bound_cycles), fputc(',', f);
  csv_i64(f, r->peak_cmx_bytes), fputc(',', f);
  csv_i64(f, r->spill_bytes), fputc(',', f);
  csv_i64(f, r->ddr_bytes), fputc(',', f);
  csv_i64(f, r->barriers_used), fputc(',', f);
  csv_i64(f, r->control_edges), fputc(',', f);
  csv_f64(f, r->sched_seconds), fputc(',', f);
  csv_f64(f, r->sim_seconds), fputc(',', f);
  csv_f64(f, r->pe_utilization), fputc(',', f);
  csv_f64(f, r->dma_utilization), fputc(',', f);
  csv_f64(f, r->ii), fputc(',', f);
  csv_f64(f, r->mii), fputc(',', f);
  csv_f64(f, r->cycles_per_iter);
  for (int k = 0; k < ACS_PARAM_COUNT; k++) {
    fputc(',', f);
    if (p)
      csv_f64(f, p->plat.v[k]);
  }
  fputc(',', f);
  csv_str(f, p ? p->plat.units : "");
  for (size_t k = 0; k < c->n; k++) {
    fputc(',', f);
    if (p)
      csv_f64(f, unit_count(&p->plat, c->name[k]));
  }
  fputc(',', f);
  csv_str(f, r->message);
  fputc('\n', f);
}

/* Writes runs.csv. Atomic: a temporary sibling renamed. */
int acs_report_write_csv(const struct acs_results_data *data, const char *path,
                         struct acs_diag *d)
{
  char tmp[4200];
  struct classes *c = malloc(sizeof(*c));
  size_t *order = NULL;
  FILE *f;
  int bad, e;

  if (!c || acs__run_order(data, &order) < 0) {
    free(c);
    return ACS_ENOMEM;
  }
  snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
  if (!(f = fopen(tmp, "w"))) {
    e = errno;
    free(c);
    free(order);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(e));
  }
  collect_classes(data, c);
  csv_header(f, c);
  for (size_t i = 0; i < data->nruns; i++)
    csv_row(f, data, &data->runs[order[i]], c);
  free(c);
  free(order);
  bad = ferror(f);
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    e = errno;
    unlink(tmp);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(e));
  }
  return ACS_OK;
}
