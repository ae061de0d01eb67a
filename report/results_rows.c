/*
 * results_rows.c - the rows of the results writer (results.h): status
 * names, run rows, the cached /platforms and /workloads tables with their
 * hash index (a row is stored once), /runs appended or replaced, and the
 * /schedules/run_<id> groups. The file itself (open, checkpoints, commit)
 * is results.c; both share results_int.h.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/results_int.h"

/* ---- status names and run rows ---- */

static const char *const status_names[] = {"ok", "infeasible", "timeout", "error"};

const char *acs_status_name(int st)
{
  if (st < ACS_ST_OK || st > ACS_ST_ERROR)
    return "error";
  return status_names[st];
}

int acs_status_parse(const char *s)
{
  int i;

  for (i = ACS_ST_OK; s && i <= ACS_ST_ERROR; i++)
    if (strcmp(s, status_names[i]) == 0)
      return i;
  return -1;
}

void acs_results_workload_row(const struct acs_workload *w, int64_t ops, int64_t edges,
                              struct acs_workload_row *row)
{
  int fixed = w->graph && w->kind != ACS_WL_DNN && !(w->model_ops && w->model_ops->build);

  memset(row, 0, sizeof(*row));
  row->workload_id = -1;
  snprintf(row->name, sizeof(row->name), "%s", w->name);
  snprintf(row->path, sizeof(row->path), "%s", w->path);
  snprintf(row->kind, sizeof(row->kind), "%s", acs_wl_kind_name(w->kind));
  snprintf(row->digest, sizeof(row->digest), "%s", w->digest);
  row->ops = fixed ? ops : -1;
  row->edges = fixed ? edges : -1;
}


void acs_run_row_init(struct acs_run_row *r)
{
  memset(r, 0, sizeof *r);
  r->run_id = -1;
  r->platform_id = -1;
  r->workload_id = -1;
  r->makespan_cycles = NAN;
  r->sim_makespan_cycles = NAN;
  r->lower_bound_cycles = NAN;
  r->network_bound_cycles = NAN;
  r->peak_cmx_bytes = -1;
  r->spill_bytes = -1;
  r->ddr_bytes = -1;
  r->barriers_used = -1;
  r->control_edges = -1;
  r->sched_seconds = NAN;
  r->sim_seconds = NAN;
  r->pe_utilization = NAN;
  r->dma_utilization = NAN;
  r->ii = NAN;
  r->mii = NAN;
  r->cycles_per_iter = NAN;
  r->ops = -1;
  r->edges = -1;
}

/* ---- a hash index of cached rows, for dedupe in O(1) expected ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
  const unsigned char *c = p;

  while (n--)
    h = (h ^ *c++) * 0x100000001b3ULL;
  return h;
}

#define FNV_BASIS 0xcbf29ce484222325ULL

static void idx_put(struct rowindex *ix, uint64_t h, size_t pos)
{
  size_t m = ix->cap - 1, i = (size_t)h & m;

  while (ix->slot[i])
    i = (i + 1) & m;
  ix->slot[i] = (uint32_t)(pos + 1);
}

/* Makes room for nrows + 1 rows (rehashing rows[0, nrows) when it grows). */
static int idx_reserve(struct rowindex *ix, size_t nrows, row_hash_fn hash,
                       const void *rows)
{
  struct rowindex nx;
  size_t i;

  if (nrows >= UINT32_MAX - 1)
    return ACS_ERANGE;
  if ((nrows + 1) * 2 <= ix->cap)
    return ACS_OK;
  nx.cap = ix->cap ? ix->cap : 16;
  while ((nrows + 1) * 2 > nx.cap)
    nx.cap *= 2;
  nx.slot = calloc(nx.cap, sizeof *nx.slot);
  if (!nx.slot)
    return ACS_ENOMEM;
  for (i = 0; i < nrows; i++)
    idx_put(&nx, hash(rows, i), i);
  free(ix->slot);
  *ix = nx;
  return ACS_OK;
}

static int idx_find(const struct rowindex *ix, uint64_t h, row_eq_fn eq,
                    const void *rows, const void *key, size_t *pos)
{
  size_t m, i;

  if (!ix->cap)
    return 0;
  m = ix->cap - 1;
  for (i = (size_t)h & m; ix->slot[i]; i = (i + 1) & m)
    if (eq(rows, ix->slot[i] - 1, key)) {
      *pos = ix->slot[i] - 1;
      return 1;
    }
  return 0;
}

static uint64_t hash_platform(const struct acs_platform *p)
{
  uint64_t h = fnv(FNV_BASIS, p->name, strlen(p->name));
  double x;
  int i;

  for (i = 0; i < ACS_PARAM_COUNT; i++) {
    x = p->v[i] == 0 ? 0.0 : p->v[i]; /* -0.0 == 0.0 must hash alike */
    h = fnv(h, &x, sizeof x);
  }
  return fnv(h, p->units, strlen(p->units));
}

static uint64_t hash_platform_row(const void *rows, size_t i)
{
  return hash_platform(&((const struct acs_platform_row *)rows)[i].plat);
}

static int same_platform(const void *rows, size_t i, const void *key)
{
  const struct acs_platform *a = &((const struct acs_platform_row *)rows)[i].plat;
  const struct acs_platform *b = key;
  int k;

  if (strcmp(a->name, b->name) != 0 || strcmp(a->units, b->units) != 0)
    return 0;
  for (k = 0; k < ACS_PARAM_COUNT; k++)
    if (!(a->v[k] == b->v[k]))
      return 0;
  return 1;
}

static uint64_t hash_workload(const struct acs_workload_row *w)
{
  uint64_t h = fnv(FNV_BASIS, w->name, strlen(w->name) + 1);

  h = fnv(h, w->path, strlen(w->path) + 1);
  h = fnv(h, w->kind, strlen(w->kind) + 1);
  return fnv(h, w->digest, strlen(w->digest));
}

static uint64_t hash_workload_row(const void *rows, size_t i)
{
  return hash_workload(&((const struct acs_workload_row *)rows)[i]);
}

static int same_workload(const void *rows, size_t i, const void *key)
{
  const struct acs_workload_row *a = &((const struct acs_workload_row *)rows)[i];
  const struct acs_workload_row *b = key;

  return strcmp(a->name, b->name) == 0 && strcmp(a->path, b->path) == 0 &&
         strcmp(a->kind, b->kind) == 0 && strcmp(a->digest, b->digest) == 0;
}


int acs__results_load_platforms(struct acs_results *r)
{
  hsize_t n;
  size_t i, bytes;
  int rc;


  rc = acs__h5_nrows(r->file, "platforms", &n);
  if (rc < 0 || n > UINT32_MAX / 4)
    return ACS_EFORMAT;
  if ((rc = acs__h5_rows_fit(n, sizeof *r->plats, &bytes)) < 0)
    return rc;
  if (acs_grow((void **)&r->plats, sizeof *r->plats, &r->cap_plats, (size_t)n + 1) < 0)
    return ACS_ENOMEM;
  rc = acs__h5_read(r->file, "platforms", &r->tplat, 0, n, r->plats);
  if (rc < 0)
    return rc;
  r->next_pid = 1;
  for (i = 0; i < (size_t)n; i++) {
    if (idx_reserve(&r->pidx, i, hash_platform_row, r->plats) < 0)
      return ACS_ENOMEM;
    idx_put(&r->pidx, hash_platform_row(r->plats, i), i);
    if (r->plats[i].platform_id >= r->next_pid && r->plats[i].platform_id < INT32_MAX)
      r->next_pid = r->plats[i].platform_id + 1;
  }
  r->nplats = (size_t)n;
  return ACS_OK;
}

int acs__results_load_workloads(struct acs_results *r)
{
  hsize_t n;
  size_t i, bytes;
  int rc;


  rc = acs__h5_nrows(r->file, "workloads", &n);
  if (rc < 0 || n > UINT32_MAX / 4)
    return ACS_EFORMAT;
  if ((rc = acs__h5_rows_fit(n, sizeof *r->wls, &bytes)) < 0)
    return rc;
  if (acs_grow((void **)&r->wls, sizeof *r->wls, &r->cap_wls, (size_t)n + 1) < 0)
    return ACS_ENOMEM;
  rc = acs__h5_read(r->file, "workloads", &r->twl, 0, n, r->wls);
  if (rc < 0)
    return rc;
  r->next_wid = 1;
  for (i = 0; i < (size_t)n; i++) {
    if (idx_reserve(&r->widx, i, hash_workload_row, r->wls) < 0)
      return ACS_ENOMEM;
    idx_put(&r->widx, hash_workload_row(r->wls, i), i);
    if (r->wls[i].workload_id >= r->next_wid && r->wls[i].workload_id < INT32_MAX)
      r->next_wid = r->wls[i].workload_id + 1;
  }
  r->nwls = (size_t)n;
  return ACS_OK;
}

/* The run ids in row order (kept to find a row to replace), and next_run =
 * max stored run_id + 1 (so appends continue the numbering). */
int acs__results_load_run_ids(struct acs_results *r)
{
  struct acs__h5table t;
  hsize_t n, i;
  size_t bytes;
  int rc;


  rc = acs__h5_nrows(r->file, "runs", &n);
  if (rc < 0 || n > SIZE_MAX / sizeof *r->ids)
    return ACS_EFORMAT;
  if ((rc = acs__h5_rows_fit(n, sizeof *r->ids, &bytes)) < 0)
    return rc;
  if (acs_grow((void **)&r->ids, sizeof *r->ids, &r->cap_ids, (size_t)n + 1) < 0)
    return ACS_ENOMEM;
  acs__tbl_runs_id(&t);
  rc = acs__h5_read(r->file, "runs", &t, 0, n, r->ids);
  r->next_run = 1;
  r->ids_sorted = 1;
  for (i = 0; rc == ACS_OK && i < n; i++) {
    if (i > 0 && r->ids[i] <= r->ids[i - 1])
      r->ids_sorted = 0;
    if (r->ids[i] >= r->next_run && r->ids[i] < INT64_MAX)
      r->next_run = r->ids[i] + 1;
  }
  r->nids = rc == ACS_OK ? (size_t)n : 0;
  return rc;
}

/* Checks and prepares an existing file opened as r->file. */

/* ---- adding rows ---- */

static int writable(const struct acs_results *r)
{
  return r && !r->broken && r->file >= 0;
}

int acs_results_add_platform(struct acs_results *r, const struct acs_platform *p,
                             int32_t *id)
{
  struct acs_platform_row row;
  size_t pos;
  int rc;

  if (!writable(r) || !p || !id)
    return r && r->broken ? ACS_EIO : ACS_EINVAL;
  memset(&row, 0, sizeof row);
  acs__strfill(row.plat.name, sizeof row.plat.name, p->name);
  memcpy(row.plat.v, p->v, sizeof row.plat.v);
  /* The unit counts of loop workloads are part of the variant. */
  acs__strfill(row.plat.units, sizeof row.plat.units, p->units);
  if (idx_find(&r->pidx, hash_platform(&row.plat), same_platform, r->plats, &row.plat, &pos)) {
    *id = r->plats[pos].platform_id;
    return ACS_OK;
  }
  if (r->next_pid == INT32_MAX)
    return ACS_ERANGE;
  if (acs_grow((void **)&r->plats, sizeof *r->plats, &r->cap_plats, r->nplats + 1) < 0 ||
      idx_reserve(&r->pidx, r->nplats, hash_platform_row, r->plats) < 0)
    return ACS_ENOMEM;
  row.platform_id = r->next_pid;
  rc = acs__h5_append(r->file, "platforms", &r->tplat, 1, &row);
  if (rc < 0)
    return rc;
  r->plats[r->nplats] = row;
  idx_put(&r->pidx, hash_platform(&row.plat), r->nplats++);
  r->next_pid++;
  r->dirty = 1;
  *id = row.platform_id;
  return ACS_OK;
}

int acs_results_add_workload(struct acs_results *r, const struct acs_workload_row *w,
                             int32_t *id)
{
  struct acs_workload_row row;
  size_t pos;
  int rc;

  if (!writable(r) || !w || !id)
    return r && r->broken ? ACS_EIO : ACS_EINVAL;
  memset(&row, 0, sizeof row);
  acs__strfill(row.name, sizeof row.name, w->name);
  acs__strfill(row.path, sizeof row.path, w->path);
  acs__strfill(row.kind, sizeof row.kind, w->kind);
  row.ops = w->ops;
  row.edges = w->edges;
  acs__strfill(row.digest, sizeof row.digest, w->digest);
  if (idx_find(&r->widx, hash_workload(&row), same_workload, r->wls, &row, &pos)) {
    *id = r->wls[pos].workload_id;
    return ACS_OK;
  }
  if (r->next_wid == INT32_MAX)
    return ACS_ERANGE;
  if (acs_grow((void **)&r->wls, sizeof *r->wls, &r->cap_wls, r->nwls + 1) < 0 ||
      idx_reserve(&r->widx, r->nwls, hash_workload_row, r->wls) < 0)
    return ACS_ENOMEM;
  row.workload_id = r->next_wid;
  rc = acs__h5_append(r->file, "workloads", &r->twl, 1, &row);
  if (rc < 0)
    return rc;
  r->wls[r->nwls] = row;
  idx_put(&r->widx, hash_workload(&row), r->nwls++);
  r->next_wid++;
  r->dirty = 1;
  *id = row.workload_id;
  return ACS_OK;
}

/* A zeroed copy of the caller's row (padding and string tails included, so
 * files are byte-for-byte deterministic) with run_id set. */
static void run_record(struct acs_run_row *rec, const struct acs_run_row *row, int64_t id)
{
  memset(rec, 0, sizeof *rec);
  rec->run_id = id;
  rec->platform_id = row->platform_id;
  rec->workload_id = row->workload_id;
  acs__strfill(rec->scheduler, sizeof rec->scheduler, row->scheduler);
  acs__strfill(rec->options, sizeof rec->options, row->options);
  acs__strfill(rec->status, sizeof rec->status, row->status);
  acs__strfill(rec->memory_model, sizeof rec->memory_model, row->memory_model);
  rec->makespan_cycles = row->makespan_cycles;
  rec->sim_makespan_cycles = row->sim_makespan_cycles;
  rec->lower_bound_cycles = row->lower_bound_cycles;
  rec->network_bound_cycles = row->network_bound_cycles;
  rec->peak_cmx_bytes = row->peak_cmx_bytes;
  rec->spill_bytes = row->spill_bytes;
  rec->ddr_bytes = row->ddr_bytes;
  rec->barriers_used = row->barriers_used;
  rec->control_edges = row->control_edges;
  rec->sched_seconds = row->sched_seconds;
  rec->sim_seconds = row->sim_seconds;
  rec->pe_utilization = row->pe_utilization;
  rec->dma_utilization = row->dma_utilization;
  rec->ii = row->ii;
  rec->mii = row->mii;
  rec->cycles_per_iter = row->cycles_per_iter;
  rec->ops = row->ops;
  rec->edges = row->edges;
  acs__strfill(rec->message, sizeof rec->message, row->message);
}

/* ---- schedules ---- */

static hsize_t chunk_for(int32_t n)
{
  return n <= 0 ? 1 : n < CHUNK_SCHED ? (hsize_t)n : CHUNK_SCHED;
}

static const char *res_kind_name(const struct acs_schedule *s, int i)
{
  if (i == s->res_pe)
    return "pe";
  if (i == s->res_dma)
    return "dma";
  if (i == s->res_cmx)
    return "cmx";
  if (i == s->res_ddr)
    return "ddr";
  return "named";
}

/* The schedule must be complete enough to write: counts, arrays, and
 * distinct resource names (they become column names). */
static int check_schedule(const struct acs_schedule *s)
{
  int i, j;

  if (s->nres < 0 || s->nres > ACS_MAX_RES || s->nops < 0 || s->nedges < 0 ||
      s->nwaits < 0 || (s->nops && !s->ops) || (s->nedges && !s->edges) ||
      (s->nwaits && !s->waits) || (s->nops && s->nres && !s->demand))
    return ACS_EINVAL;
  for (i = 0; i < s->nres; i++)
    for (j = 0; j < i; j++)
      if (strcmp(s->res_name[i] ? s->res_name[i] : "", s->res_name[j] ? s->res_name[j] : "") == 0)
        return ACS_EINVAL;
  return ACS_OK;
}

static int write_resources(hid_t g, const struct acs_schedule *s)
{
  struct acs__h5table t;
  struct acs__resrec rec[ACS_MAX_RES];
  int i;

  acs__tbl_resources(&t);
  memset(rec, 0, sizeof rec);
  for (i = 0; i < s->nres; i++) {
    acs__strfill(rec[i].name, sizeof rec[i].name, s->res_name[i]);
    acs__strfill(rec[i].kind, sizeof rec[i].kind, res_kind_name(s, i));
    rec[i].capacity = (double)s->res_cap[i];
  }
  return acs__h5_make(g, "resources", &t, (hsize_t)s->nres, rec, chunk_for(s->nres), 0);
}

static void op_record(struct acs__oprec *rec, const struct acs_schedule *s, int32_t i)
{
  const struct acs_sop *o = &s->ops[i];
  int k;

  memset(rec, 0, sizeof *rec);
  acs__strfill(rec->op, sizeof rec->op, o->name);
  acs__strfill(rec->kind, sizeof rec->kind,
               o->kind < ACS_OP__COUNT ? acs_op_kind_name(o->kind) : "unknown");
  rec->unit = o->unit;
  rec->start = (double)o->start;
  rec->end = (double)o->end;
  rec->sim_start = o->sim_start;
  rec->sim_end = o->sim_end;
  rec->cmx_offset = o->cmx_offset;
  rec->cmx_bytes = o->cmx_bytes;
  rec->cmx_alloc = o->cmx_alloc;
  rec->cmx_free = o->cmx_free;
  rec->update_barrier = o->update_barrier;
  rec->dur = o->dur;
  rec->bytes = o->bytes;
  acs__strfill(rec->src, sizeof rec->src, o->src < ACS_MEM__COUNT ? acs_mem_name(o->src) : "none");
  acs__strfill(rec->dst, sizeof rec->dst, o->dst < ACS_MEM__COUNT ? acs_mem_name(o->dst) : "none");
  rec->slots = o->slots;
  rec->out_bytes = o->out_bytes;
  for (k = 0; k < s->nres; k++)
    rec->demand[k] = (double)acs_schedule_demand(s, i, k);
}

/* The ops table, written with one call from a packed buffer. O(ops * res). */
static int write_ops(hid_t g, const struct acs_schedule *s)
{
  struct acs__h5table t;
  struct acs__oprec rec;
  size_t bytes;
  char *buf;
  int32_t i;
  int rc;

  acs__tbl_ops(&t, s->nres, s->res_name, s->res_cmx);
  if (acs_mul_size((size_t)s->nops, t.size, &bytes) < 0)
    return ACS_ENOMEM;
  buf = malloc(bytes ? bytes : 1);
  if (!buf)
    return ACS_ENOMEM;
  for (i = 0; i < s->nops; i++) {
    op_record(&rec, s, i);
    memcpy(buf + (size_t)i * t.size, &rec, t.size);
  }
  rc = acs__h5_make(g, "ops", &t, (hsize_t)s->nops, buf, chunk_for(s->nops), 1);
  free(buf);
  return rc;
}

static int write_edges(hid_t g, const struct acs_schedule *s)
{
  struct acs__h5table t;
  struct acs__edgerec *rec;
  int32_t i;
  int rc;

  acs__tbl_edges(&t);
  rec = calloc(s->nedges ? (size_t)s->nedges : 1, sizeof *rec);
  if (!rec)
    return ACS_ENOMEM;
  for (i = 0; i < s->nedges; i++) {
    rec[i].src = s->edges[i].src;
    rec[i].dst = s->edges[i].dst;
    acs__strfill(rec[i].kind, sizeof rec[i].kind, acs_edge_kind_name(s->edges[i].kind));
  }
  rc = acs__h5_make(g, "edges", &t, (hsize_t)s->nedges, rec, chunk_for(s->nedges), 1);
  free(rec);
  return rc;
}

static int write_waits(hid_t g, const struct acs_schedule *s)
{
  struct acs__h5table t;

  acs__tbl_waits(&t);
  return acs__h5_make(g, "waits", &t, (hsize_t)s->nwaits, s->waits, chunk_for(s->nwaits), 1);
}

static int write_limits(hid_t g, const struct acs_schedule *s)
{
  if (acs__h5_attr_set_i32(g, "norig", s->norig) < 0 ||
      acs__h5_attr_set_i64(g, "cmx_capacity", s->cmx_capacity) < 0 ||
      acs__h5_attr_set_i64(g, "cmx_align", s->cmx_align) < 0 ||
      acs__h5_attr_set_i32(g, "barriers", s->barriers) < 0 ||
      acs__h5_attr_set_i32(g, "barrier_slots", s->barrier_slots) < 0 ||
      acs__h5_attr_set_f64(g, "ddr_link_bytes_per_cycle", s->link.link_bpc) < 0 ||
      acs__h5_attr_set_f64(g, "ddr_transfer_bytes_per_cycle", s->link.xfer_bpc) < 0 ||
      acs__h5_attr_set_i64(g, "ddr_latency_cycles", s->link.latency) < 0)
    return ACS_EIO;
  return ACS_OK;
}

void acs__results_group_name(char *buf, size_t size, int64_t id)
{
  snprintf(buf, size, "run_%" PRId64, id);
}

/* Writes /schedules/run_<id>; on failure removes what it wrote (or marks r
 * broken when even that fails). */
static int write_schedule(struct acs_results *r, int64_t id, const struct acs_schedule *s)
{
  char name[40];
  hid_t sched, g;
  int rc;

  rc = check_schedule(s);
  if (rc < 0)
    return rc;
  acs__results_group_name(name, sizeof name, id);
  sched = H5Gopen2(r->file, "schedules", H5P_DEFAULT);
  if (sched < 0)
    return ACS_EIO;
  rc = ACS_EIO;
  g = H5Gcreate2(sched, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    goto out_with_sched;
  rc = write_limits(g, s);
  if (rc == ACS_OK)
    rc = write_resources(g, s);
  if (rc == ACS_OK)
    rc = write_ops(g, s);
  if (rc == ACS_OK)
    rc = write_edges(g, s);
  if (rc == ACS_OK)
    rc = write_waits(g, s);
  for (int32_t k = 0; rc == ACS_OK && k < s->ntables; k++)
    rc = acs__rtab_write(g, s->tables[k]);
  H5Gclose(g);
  if (rc < 0 && H5Ldelete(sched, name, H5P_DEFAULT) < 0)
    r->broken = 1;
out_with_sched:
  H5Gclose(sched);
  return rc;
}

static void drop_schedule(struct acs_results *r, int64_t id)
{
  char name[48];

  snprintf(name, sizeof name, "schedules/run_%" PRId64, id);
  if (H5Ldelete(r->file, name, H5P_DEFAULT) < 0)
    r->broken = 1;
}

int acs_results_add_run(struct acs_results *r, struct acs_run_row *row,
                        const struct acs_schedule *s)
{
  struct acs_run_row rec;
  int64_t id;
  int rc;

  if (!writable(r) || !row)
    return r && r->broken ? ACS_EIO : ACS_EINVAL;
  if (r->next_run == INT64_MAX)
    return ACS_ERANGE;
  id = r->next_run;
  /* Reserve first so nothing can fail after the rows are written. */
  if ((s && acs_grow((void **)&r->epoch, sizeof *r->epoch, &r->cap_epoch, r->nepoch + 1) < 0) ||
      acs_grow((void **)&r->ids, sizeof *r->ids, &r->cap_ids, r->nids + 1) < 0)
    return ACS_ENOMEM;
  run_record(&rec, row, id);
  if (s) {
    rc = write_schedule(r, id, s);
    if (rc < 0)
      return rc;
  }
  if (r->runs < 0)
    r->runs = H5Dopen2(r->file, "runs", H5P_DEFAULT);
  rc = r->runs < 0 ? ACS_EFORMAT : acs__h5_append_dset(r->runs, &r->truns, 1, &rec);
  if (rc < 0) {
    if (s)
      drop_schedule(r, id);
    return rc;
  }
  if (s)
    r->epoch[r->nepoch++] = id;
  if (r->nids > 0 && id <= r->ids[r->nids - 1])
    r->ids_sorted = 0;
  r->ids[r->nids++] = id;
  row->run_id = id;
  r->next_run++;
  r->dirty = 1;
  return ACS_OK;
}

/* The /runs row holding run id; 0 when found. O(log runs), or O(runs) in
 * a file whose ids do not increase. */
static int find_run_row(const struct acs_results *r, int64_t id, size_t *row)
{
  size_t lo = 0, hi = r->nids;

  if (!r->ids_sorted) {
    for (size_t i = 0; i < r->nids; i++)
      if (r->ids[i] == id)
        return *row = i, 0;
    return -1;
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == r->nids || r->ids[lo] != id)
    return -1;
  *row = lo;
  return 0;
}

int acs_results_replace_run(struct acs_results *r, const struct acs_run_row *row,
                            const struct acs_schedule *s)
{
  struct acs_run_row rec;
  char name[48];
  size_t at;
  int rc;

  if (!writable(r) || !row)
    return r && r->broken ? ACS_EIO : ACS_EINVAL;
  if (find_run_row(r, row->run_id, &at) < 0)
    return ACS_ENOTFOUND;
  if (s && (rc = check_schedule(s)) < 0)
    return rc;
  if (acs_grow((void **)&r->patched, sizeof *r->patched, &r->cap_patched, r->npatched + 1) < 0)
    return ACS_ENOMEM;
  run_record(&rec, row, row->run_id);
  if (r->runs < 0)
    r->runs = H5Dopen2(r->file, "runs", H5P_DEFAULT);
  rc = r->runs < 0 ? ACS_EFORMAT : acs__h5_write_dset(r->runs, &r->truns, (hsize_t)at, 1, &rec);
  if (rc < 0)
    return rc;
  /* From here the row is new: a failure leaves the work file inconsistent,
   * so it is marked broken and the target keeps its last checkpoint. */
  r->patched[r->npatched].id = row->run_id;
  r->patched[r->npatched++].row = (hsize_t)at;
  r->dirty = 1;
  snprintf(name, sizeof name, "schedules/run_%" PRId64, row->run_id);
  if (H5Lexists(r->file, name, H5P_DEFAULT) > 0 && H5Ldelete(r->file, name, H5P_DEFAULT) < 0)
    rc = ACS_EIO;
  if (rc == ACS_OK && s)
    rc = write_schedule(r, row->run_id, s);
  if (rc < 0)
    r->broken = 1;
  return rc;
}
