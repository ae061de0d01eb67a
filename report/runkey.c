/*
 * runkey.c - the identity of a run, a hash set of identities, and the table
 * of numeric /runs columns (see report.h).
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

/* Fields are separated by a control character no name contains; parameters
 * are printed with %a, which is exact, so two platforms have the same key
 * exactly when their parameters are equal as doubles. */
#define SEP '\x1f'

void acs_run_key(const struct acs_platform *p, const char *wl_name, const char *wl_kind,
                 const char *wl_digest, const char *scheduler, const char *options, int flags,
                 char *buf)
{
  size_t off = 0, size = ACS_RUN_KEY_MAX;

  if (flags & ACS_KEY_NAME)
    off += (size_t)snprintf(buf + off, size - off, "%s%c", p->name, SEP);
  if (flags & ACS_KEY_PARAMS) {
    for (int i = 0; i < ACS_PARAM_COUNT && off < size; i++)
      off += (size_t)snprintf(buf + off, size - off, "%a%c", p->v[i], SEP);
    if (off < size)
      off += (size_t)snprintf(buf + off, size - off, "%s%c", p->units, SEP);
  }
  /* "d:" and "n:" keep a digest and a name apart even if a name looked
   * like a digest. */
  if (off < size && (flags & ACS_KEY_DIGEST) && wl_digest && wl_digest[0])
    off += (size_t)snprintf(buf + off, size - off, "d:%s%c", wl_digest, SEP);
  else if (off < size)
    off += (size_t)snprintf(buf + off, size - off, "n:%s%c", wl_name, SEP);
  if (off < size)
    snprintf(buf + off, size - off, "%s%c%s%c%s", wl_kind, SEP, scheduler, SEP,
             options ? options : "");
}

const struct acs_platform_row *acs_results_platform_of(const struct acs_results_data *data,
                                                       const struct acs_run_row *r)
{
  /* Ids are dense and ordered in files acsim writes; fall back to a scan.
   * An id is anything a file holds: no arithmetic on one below 1. */
  size_t i = r->platform_id >= 1 ? (size_t)r->platform_id - 1 : SIZE_MAX;

  if (i < data->nplatforms && data->platforms[i].platform_id == r->platform_id)
    return &data->platforms[i];
  for (i = 0; i < data->nplatforms; i++)
    if (data->platforms[i].platform_id == r->platform_id)
      return &data->platforms[i];
  return NULL;
}

const struct acs_workload_row *acs_results_workload_of(const struct acs_results_data *data,
                                                       const struct acs_run_row *r)
{
  size_t i = r->workload_id >= 1 ? (size_t)r->workload_id - 1 : SIZE_MAX;

  if (i < data->nworkloads && data->workloads[i].workload_id == r->workload_id)
    return &data->workloads[i];
  for (i = 0; i < data->nworkloads; i++)
    if (data->workloads[i].workload_id == r->workload_id)
      return &data->workloads[i];
  return NULL;
}

int acs_run_key_of(const struct acs_results_data *data, const struct acs_run_row *r, int flags,
                   char *buf)
{
  const struct acs_platform_row *p = acs_results_platform_of(data, r);
  const struct acs_workload_row *w = acs_results_workload_of(data, r);

  if (!p || !w)
    return ACS_EFORMAT;
  acs_run_key(&p->plat, w->name, w->kind, w->digest, r->scheduler, r->options, flags, buf);
  return ACS_OK;
}

int acs_results_digested(const struct acs_results_data *data)
{
  for (size_t i = 0; i < data->nruns; i++) {
    const struct acs_workload_row *w = acs_results_workload_of(data, &data->runs[i]);
    if (w && !w->digest[0])
      return 0;
  }
  return 1;
}

/* ---- keyset ---- */

struct acs_keyset {
  size_t cap, n;             /* cap is a power of two, load <= 1/2 */
  char **key;
  int64_t *val;
};

struct acs_keyset *acs_keyset_new(void)
{
  struct acs_keyset *ks = calloc(1, sizeof(*ks));

  if (!ks)
    return NULL;
  ks->cap = 64;
  ks->key = calloc(ks->cap, sizeof(*ks->key));
  ks->val = calloc(ks->cap, sizeof(*ks->val));
  if (!ks->key || !ks->val) {
    acs_keyset_free(ks);
    return NULL;
  }
  return ks;
}

void acs_keyset_free(struct acs_keyset *ks)
{
  if (!ks)
    return;
  for (size_t i = 0; ks->key && i < ks->cap; i++)
    free(ks->key[i]);
  free(ks->key);
  free(ks->val);
  free(ks);
}

static size_t slot_of(const struct acs_keyset *ks, const char *key)
{
  size_t i = (size_t)acs_str_hash(key) & (ks->cap - 1);

  while (ks->key[i] && strcmp(ks->key[i], key) != 0)
    i = (i + 1) & (ks->cap - 1);
  return i;
}

static int grow(struct acs_keyset *ks)
{
  struct acs_keyset bigger = {0};
  size_t cap;

  if (acs_mul_size(ks->cap, 2, &cap))
    return ACS_ENOMEM;
  bigger.cap = cap;
  bigger.key = calloc(cap, sizeof(*bigger.key));
  bigger.val = calloc(cap, sizeof(*bigger.val));
  if (!bigger.key || !bigger.val) {
    free(bigger.key);
    free(bigger.val);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < ks->cap; i++)
    if (ks->key[i]) {
      size_t j = slot_of(&bigger, ks->key[i]);
      bigger.key[j] = ks->key[i];
      bigger.val[j] = ks->val[i];
    }
  free(ks->key);
  free(ks->val);
  ks->key = bigger.key;
  ks->val = bigger.val;
  ks->cap = cap;
  return ACS_OK;
}

int acs_keyset_add(struct acs_keyset *ks, const char *key, int64_t value, int64_t *old)
{
  size_t i;

  if (2 * (ks->n + 1) > ks->cap && grow(ks) < 0)
    return ACS_ENOMEM;
  i = slot_of(ks, key);
  if (ks->key[i]) {
    if (old)
      *old = ks->val[i];
    return 1;
  }
  if (!(ks->key[i] = strdup(key)))
    return ACS_ENOMEM;
  ks->val[i] = value;
  ks->n++;
  return 0;
}

int acs_keyset_put(struct acs_keyset *ks, const char *key, int64_t value)
{
  int rc = acs_keyset_add(ks, key, value, NULL);

  if (rc == 1)
    ks->val[slot_of(ks, key)] = value;
  return rc < 0 ? rc : ACS_OK;
}

int acs_keyset_get(const struct acs_keyset *ks, const char *key, int64_t *value)
{
  size_t i = slot_of(ks, key);

  if (!ks->key[i])
    return 0;
  if (value)
    *value = ks->val[i];
  return 1;
}

size_t acs_keyset_size(const struct acs_keyset *ks)
{
  return ks->n;
}

/* ---- metrics ---- */

enum { M_F64, M_I64, M_I32 };

static const struct {
  struct acs_metric m;
  size_t off;
  int type;
} metrics[] = {
#define M(col, hib, unit, type, doc) {{#col, hib, unit, doc}, offsetof(struct acs_run_row, col), type}
  M(sim_makespan_cycles, 0, "cycles", M_F64, "simulated makespan (SimGrid, with DDR contention)"),
  M(makespan_cycles, 0, "cycles", M_F64, "makespan of the scheduler's plan"),
  M(lower_bound_cycles, 0, "cycles", M_F64, "best lower bound"),
  M(network_bound_cycles, 0, "cycles", M_F64,
    "network bound: MACs over the PEs, or weights and I/O over DDR"),
  M(peak_cmx_bytes, 0, "bytes", M_I64, "highest CMX use"),
  M(spill_bytes, 0, "bytes", M_I64, "bytes spilled from CMX to DDR"),
  M(ddr_bytes, 0, "bytes", M_I64, "bytes moved to or from DDR"),
  M(barriers_used, 0, "", M_I32, "distinct hardware barriers updated"),
  M(control_edges, 0, "", M_I64, "control edges in the schedule"),
  M(sched_seconds, 0, "s", M_F64, "wall-clock time of the scheduler"),
  M(sim_seconds, 0, "s", M_F64, "wall-clock time of the simulation"),
  M(pe_utilization, 1, "fraction", M_F64, "simulated PE busy fraction"),
  M(dma_utilization, 1, "fraction", M_F64, "simulated DMA busy fraction"),
  M(ii, 0, "cycles", M_F64, "initiation interval of a modulo schedule"),
  M(mii, 0, "cycles", M_F64, "lower bound on the initiation interval"),
  M(cycles_per_iter, 0, "cycles", M_F64, "simulated makespan of a loop's N iterations over N"),
#undef M
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))
static struct acs_metric metric_table[NMETRICS];

const struct acs_metric *acs_metric_list(size_t *n)
{
  /* A plain array of the public part, filled once (the entries are
   * constants, so a repeated fill from two threads writes equal values). */
  for (size_t i = 0; i < NMETRICS; i++)
    metric_table[i] = metrics[i].m;
  *n = NMETRICS;
  return metric_table;
}

const struct acs_metric *acs_metric_find(const char *name)
{
  size_t n;
  const struct acs_metric *list = acs_metric_list(&n);

  for (size_t i = 0; name && i < n; i++)
    if (strcmp(list[i].name, name) == 0)
      return &list[i];
  return NULL;
}

double acs_metric_value(const struct acs_metric *m, const struct acs_run_row *r)
{
  size_t n, i;
  const struct acs_metric *list = acs_metric_list(&n);
  const char *p;

  i = (size_t)(m - list);
  if (i >= n)
    return NAN;
  p = (const char *)r + metrics[i].off;
  if (metrics[i].type == M_F64) {
    double v;
    memcpy(&v, p, sizeof(v));
    return v;
  }
  if (metrics[i].type == M_I64) {
    int64_t v;
    memcpy(&v, p, sizeof(v));
    return v < 0 ? NAN : (double)v;
  }
  {
    int32_t v;
    memcpy(&v, p, sizeof(v));
    return v < 0 ? NAN : (double)v;
  }
}

void acs_metric_names(char *buf, size_t size)
{
  size_t off = 0;

  buf[0] = '\0';
  for (size_t i = 0; i < NMETRICS && off < size; i++)
    off += (size_t)snprintf(buf + off, size - off, "%s%s", i ? ", " : "", metrics[i].m.name);
}
