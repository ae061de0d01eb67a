/*
 * results_read.c - reading HDF5 results files, schema 1: the root
 * attributes, /platforms, /workloads and /runs into arrays, and one
 * /schedules/run_<id> group back into a struct acs_schedule that
 * acs_schedule_verify() can check again.
 *
 * Columns are matched by name (results_h5.c): a column this acsim knows and
 * the file lacks (an older file) reads as its default, an unknown column (a
 * newer file of the same schema) is ignored.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/results.h"
#include "report/results_h5_int.h"

/* Reads the whole table did into a new array of records of t->size bytes. */
static int read_dset(hid_t did, const struct acs__h5table *t, void **rows, size_t *n)
{
  hsize_t nr;
  size_t bytes;
  int rc = acs__h5_dset_rows(did, &nr);

  if (rc < 0 || (rc = acs__h5_rows_fit(nr, t->size, &bytes)) < 0)
    return rc;
  *rows = calloc(nr ? (size_t)nr : 1, t->size);
  if (!*rows)
    return ACS_ENOMEM;
  rc = acs__h5_read_dset(did, t, 0, nr, *rows);
  if (rc < 0) {
    free(*rows);
    *rows = NULL;
    return rc;
  }
  *n = (size_t)nr;
  return ACS_OK;
}

/* Reads table `name` of f whole (read_dset), opened once. */
static int read_all(hid_t f, const char *name, const struct acs__h5table *t,
                    void **rows, size_t *n)
{
  hid_t did;
  int rc;

  *rows = NULL;
  *n = 0;
  if (H5Lexists(f, name, H5P_DEFAULT) <= 0 || (did = H5Dopen2(f, name, H5P_DEFAULT)) < 0)
    return ACS_EFORMAT;
  rc = read_dset(did, t, rows, n);
  H5Dclose(did);
  return rc;
}

static int read_root_attrs(hid_t f, struct acs_results_data *out)
{
  struct {
    const char *name;
    char *buf;
    size_t size;
  } a[] = {
    {"acsim_version", out->acsim_version, sizeof out->acsim_version},
    {"created_utc", out->created_utc, sizeof out->created_utc},
    {"command_line", out->command_line, sizeof out->command_line},
  };
  size_t i;
  int rc;

  for (i = 0; i < sizeof a / sizeof a[0]; i++) {
    rc = acs__h5_attr_get_str(f, a[i].name, a[i].buf, a[i].size);
    if (rc == ACS_ENOTFOUND)
      a[i].buf[0] = '\0'; /* informative only: tolerate its absence */
    else if (rc < 0)
      return rc;
  }
  return ACS_OK;
}

int acs__results_read_file(hid_t f, const char *path, struct acs_results_data *out,
                           struct acs_diag *d)
{
  struct acs__h5table t;
  const char *what = "root attributes";
  int rc;

  memset(out, 0, sizeof *out);
  out->schema_version = ACS_SCHEMA_VERSION;
  rc = read_root_attrs(f, out);
  if (rc == ACS_OK) {
    what = "/platforms table";
    acs__tbl_platforms(&t);
    rc = read_all(f, "platforms", &t, (void **)&out->platforms, &out->nplatforms);
  }
  if (rc == ACS_OK) {
    what = "/workloads table";
    acs__tbl_workloads(&t);
    rc = read_all(f, "workloads", &t, (void **)&out->workloads, &out->nworkloads);
  }
  if (rc == ACS_OK) {
    what = "/runs table";
    acs__tbl_runs(&t);
    rc = read_all(f, "runs", &t, (void **)&out->runs, &out->nruns);
  }
  if (rc < 0) {
    acs_results_data_free(out);
    if (rc == ACS_ELIMIT)
      return acs__h5_fail(d, rc, path, "cannot read the %s: its rows take more than the "
                          "limit bytes=%lld (--max bytes=N raises it)", what,
                          (long long)acs_limit_get(ACS_LIMIT_BYTES));
    return acs__h5_fail(d, rc, path, "cannot read the %s: %s", what,
                        rc == ACS_EFORMAT ? "missing or malformed" : acs_strerror(rc));
  }
  return ACS_OK;
}

int acs_results_read(const char *path, struct acs_results_data *out,
                     struct acs_diag *d)
{
  hid_t f;
  int rc;

  memset(out, 0, sizeof *out);
  rc = acs__h5_open(path, path, H5F_ACC_RDONLY, &f, d);
  if (rc < 0)
    return rc;
  rc = acs__results_read_file(f, path, out, d);
  H5Fclose(f);
  return rc;
}

void acs_results_data_free(struct acs_results_data *data)
{
  if (!data)
    return;
  free(data->platforms);
  free(data->workloads);
  free(data->runs);
  memset(data, 0, sizeof *data);
}

/* ---- schedules ---- */

/* Where a malformed value was found, for messages. */
struct where {
  const char *path;
  struct acs_diag *d;
  int64_t run;
};

/* A table of a run's group, read whole: what read_all returns, its failure
 * said as the run's ("run_N: cannot read its NAME"). */
static int read_run_table(hid_t g, const char *name, const struct acs__h5table *t, void **rows,
                          size_t *n, const struct where *w)
{
  int rc = read_all(g, name, t, rows, n);

  if (rc < 0)
    return acs__h5_fail(w->d, rc, w->path, "run_%" PRId64 ": cannot read its %s", w->run, name);
  return rc;
}

static int bad(const struct where *w, const char *table, int64_t row, const char *what)
{
  return acs__h5_fail(w->d, ACS_EFORMAT, w->path, "run_%" PRId64 "/%s row %" PRId64 ": %s",
                      w->run, table, row, what);
}

/* A float64 column holding whole cycles or bytes back to int64. */
static int to_i64(double x, int64_t *out)
{
  if (!isfinite(x) || x != floor(x) || x < -9.2e18 || x > 9.2e18)
    return -1;
  *out = (int64_t)x;
  return 0;
}

/* The DDR link the plan was made for. A file without it (written before
 * plans were checked against the link) leaves it unknown: not checked. */
static int read_link(hid_t g, struct acs_schedule *s)
{
  double link = 0, xfer = 0;
  int64_t lat = 0;
  int rc = acs__h5_attr_get_f64(g, "ddr_link_bytes_per_cycle", &link);

  if (rc == ACS_ENOTFOUND)
    return ACS_OK;
  if (rc == ACS_OK)
    rc = acs__h5_attr_get_f64(g, "ddr_transfer_bytes_per_cycle", &xfer);
  if (rc == ACS_OK)
    rc = acs__h5_attr_get_i64(g, "ddr_latency_cycles", &lat);
  if (rc < 0)
    return rc == ACS_ENOTFOUND ? ACS_EFORMAT : rc;
  if (!(link >= 0 && link < 1e30) || !(xfer >= 0 && xfer < 1e30) || lat < 0 || lat > ACS_QTY_MAX)
    return ACS_EFORMAT;
  s->link.link_bpc = link;
  s->link.xfer_bpc = xfer;
  s->link.latency = lat;
  return ACS_OK;
}

/* Limits the writer stored on the group. Absent ones (a file written by
 * another tool) come from the run's platform row, see limits_from_platform. */
static int read_limits(hid_t g, struct acs_schedule *s, int *missing)
{
  int64_t v[5];
  const char *names[] = {"norig", "cmx_capacity", "cmx_align", "barriers", "barrier_slots"};
  int i, rc;

  *missing = 0;
  for (i = 0; i < 5; i++) {
    rc = acs__h5_attr_get_i64(g, names[i], &v[i]);
    if (rc == ACS_ENOTFOUND) {
      v[i] = -1;
      *missing = 1;
    } else if (rc < 0) {
      return rc;
    }
  }
  if (v[0] > INT32_MAX || v[3] > INT32_MAX || v[4] > INT32_MAX)
    return ACS_EFORMAT;
  s->norig = (int32_t)v[0]; /* -1: fixed up after the ops are read */
  s->cmx_capacity = v[1];
  s->cmx_align = v[2] > 0 ? v[2] : 1;
  s->barriers = v[3] > 0 ? (int32_t)v[3] : 0;
  s->barrier_slots = v[4] > 0 ? (int32_t)v[4] : 0;
  return read_link(g, s);
}

/* The platform row of run run_id, or ACS_ENOTFOUND. O(runs + platforms). */
static int run_platform(hid_t f, int64_t run_id, struct acs_platform *p)
{
  struct acs__h5table t;
  struct acs_run_row *runs = NULL;
  struct acs_platform_row *plats = NULL;
  size_t nr, np, i;
  int32_t pid = -1;
  int rc;

  acs__tbl_runs(&t);
  rc = read_all(f, "runs", &t, (void **)&runs, &nr);
  for (i = 0; rc == ACS_OK && i < nr; i++)
    if (runs[i].run_id == run_id)
      pid = runs[i].platform_id;
  free(runs);
  if (rc < 0)
    return rc;
  acs__tbl_platforms(&t);
  rc = read_all(f, "platforms", &t, (void **)&plats, &np);
  for (i = 0, rc = rc ? rc : ACS_ENOTFOUND; plats && i < np; i++)
    if (plats[i].platform_id == pid) {
      *p = plats[i].plat;
      rc = ACS_OK;
      break;
    }
  free(plats);
  return rc;
}

static void limits_from_platform(hid_t f, int64_t run_id, struct acs_schedule *s)
{
  struct acs_platform p;

  if (run_platform(f, run_id, &p) < 0)
    return; /* keep what the attributes gave */
  if (s->cmx_capacity < 0)
    s->cmx_capacity = acs_platform_cmx_bytes(&p);
  s->cmx_align = (int64_t)p.v[ACS_P_CMX_ALIGN_BYTES];
  if (s->barriers == 0)
    s->barriers = (int32_t)p.v[ACS_P_BARRIERS];
  if (s->barrier_slots == 0)
    s->barrier_slots = (int32_t)p.v[ACS_P_BARRIER_SLOTS];
}

static int read_resources(hid_t g, struct acs_schedule *s, const struct where *w)
{
  struct acs__h5table t;
  struct acs__resrec *rec;
  size_t n, i;
  int64_t cap;
  int rc;

  acs__tbl_resources(&t);
  if ((rc = read_run_table(g, "resources", &t, (void **)&rec, &n, w)) < 0)
    return rc;
  rc = ACS_OK;
  if (n > ACS_MAX_RES)
    rc = bad(w, "resources", (int64_t)n, "too many resources");
  s->res_pe = s->res_dma = s->res_cmx = s->res_ddr = -1;
  for (i = 0; rc == ACS_OK && i < n; i++) {
    if (to_i64(rec[i].capacity, &cap) < 0 || cap < 0) {
      rc = bad(w, "resources", (int64_t)i, "capacity is not a whole number >= 0");
      break;
    }
    s->res_name[i] = acs_arena_strdup(&s->arena, rec[i].name);
    if (!s->res_name[i]) {
      rc = ACS_ENOMEM;
      break;
    }
    s->res_cap[i] = cap;
    if (strcmp(rec[i].kind, "pe") == 0)
      s->res_pe = (int)i;
    else if (strcmp(rec[i].kind, "dma") == 0)
      s->res_dma = (int)i;
    else if (strcmp(rec[i].kind, "cmx") == 0)
      s->res_cmx = (int)i;
    else if (strcmp(rec[i].kind, "ddr") == 0)
      s->res_ddr = (int)i;
  }
  if (rc == ACS_OK)
    s->nres = (int32_t)n;
  free(rec);
  return rc;
}

/* One ops record back into an op; its demands are set by the caller. */
static int op_from_record(const struct acs__oprec *rec, struct acs_sop *op,
                          const struct where *w, int64_t i)
{
  int kind = acs_op_kind_parse(rec->kind);
  int src = rec->src[0] ? acs_mem_parse(rec->src) : ACS_MEM_NONE;
  int dst = rec->dst[0] ? acs_mem_parse(rec->dst) : ACS_MEM_NONE;

  memset(op, 0, sizeof *op);
  if (kind < 0)
    return bad(w, "ops", i, "unknown kind");
  if (src < 0 || dst < 0)
    return bad(w, "ops", i, "unknown memory in src or dst");
  if (to_i64(rec->start, &op->start) < 0 || to_i64(rec->end, &op->end) < 0)
    return bad(w, "ops", i, "start or end is not a whole number of cycles");
  op->name = rec->op;
  op->kind = (uint8_t)kind;
  op->src = (uint8_t)src;
  op->dst = (uint8_t)dst;
  op->unit = rec->unit;
  op->dur = rec->dur;
  if (op->dur < 0 && op->start >= 0 && op->end >= op->start)
    op->dur = op->end - op->start; /* a file without the dur column */
  op->bytes = rec->bytes;
  op->out_bytes = rec->out_bytes;
  op->slots = rec->slots;
  op->cmx_offset = rec->cmx_offset;
  op->cmx_bytes = rec->cmx_bytes;
  op->cmx_alloc = rec->cmx_alloc;
  op->cmx_free = rec->cmx_free;
  op->update_barrier = rec->update_barrier;
  op->sim_start = rec->sim_start;
  op->sim_end = rec->sim_end;
  return ACS_OK;
}

/*
 * Reads run table `name` (records described by t) and hands record i, of
 * t->size bytes, to add(s, rec, size, w, i) in row order, up to the first
 * error. O(records) besides what add costs.
 */
static int read_records(hid_t g, const char *name, const struct acs__h5table *t,
                        struct acs_schedule *s, const struct where *w,
                        int (*add)(struct acs_schedule *s, const char *rec, size_t size,
                                   const struct where *w, int32_t i))
{
  char *buf, what[32];
  size_t n;
  int rc;

  if ((rc = read_run_table(g, name, t, (void **)&buf, &n, w)) < 0)
    return rc;
  if (n > INT32_MAX) {
    snprintf(what, sizeof what, "too many %s", name);
    rc = bad(w, name, (int64_t)n, what);
  }
  for (size_t i = 0; rc == ACS_OK && i < n; i++)
    rc = add(s, buf + i * t->size, t->size, w, (int32_t)i);
  free(buf);
  return rc;
}

/* O(resources). */
static int add_op(struct acs_schedule *s, const char *data, size_t size, const struct where *w,
                  int32_t i)
{
  struct acs__oprec rec;
  struct acs_sop op;
  int64_t v;
  int k, rc;

  /* The record stops after the file's demand columns (acs__tbl_ops). */
  memset(&rec, 0, sizeof rec);
  memcpy(&rec, data, size);
  rc = op_from_record(&rec, &op, w, i);
  if (rc < 0)
    return rc;
  if (acs_schedule_add_op(s, &op) != i)
    return ACS_ENOMEM;
  for (k = 0; k < s->nres; k++) {
    if (to_i64(rec.demand[k], &v) < 0 || v < 0)
      return bad(w, "ops", i, "a demand is not a whole number >= 0");
    if (v != 0 && acs_schedule_set_demand(s, i, k, v) < 0)
      return ACS_ENOMEM;
  }
  return ACS_OK;
}

static int add_edge(struct acs_schedule *s, const char *data, size_t size, const struct where *w,
                    int32_t i)
{
  const struct acs__edgerec *rec = (const void *)data;
  int kind = strcmp(rec->kind, "control") == 0                 ? ACS_EDGE_CONTROL
             : strcmp(rec->kind, "data") == 0 || !rec->kind[0] ? ACS_EDGE_DATA
                                                               : -1;

  (void)size;
  if (kind < 0)
    return bad(w, "edges", i, "kind is neither data nor control");
  if (rec->src < 0 || rec->src >= s->nops || rec->dst < 0 || rec->dst >= s->nops)
    return bad(w, "edges", i, "src or dst is not an op row");
  return acs_schedule_add_edge(s, rec->src, rec->dst, kind) < 0 ? ACS_ENOMEM : ACS_OK;
}

static int add_wait(struct acs_schedule *s, const char *data, size_t size, const struct where *w,
                    int32_t i)
{
  const struct acs_wait *rec = (const void *)data;

  (void)size;
  if (rec->op < 0 || rec->op >= s->nops || rec->barrier < 0)
    return bad(w, "waits", i, "op is not an op row or barrier is negative");
  return acs_schedule_add_wait(s, rec->op, rec->barrier) < 0 ? ACS_ENOMEM : ACS_OK;
}

/* The ops, then the edges and waits between them. */
static int read_graph(hid_t g, struct acs_schedule *s, const struct where *w)
{
  struct acs__h5table t;
  int rc;

  acs__tbl_ops(&t, s->nres, s->res_name, s->res_cmx);
  rc = read_records(g, "ops", &t, s, w, add_op);
  acs__tbl_edges(&t);
  if (rc == ACS_OK)
    rc = read_records(g, "edges", &t, s, w, add_edge);
  acs__tbl_waits(&t);
  if (rc == ACS_OK)
    rc = read_records(g, "waits", &t, s, w, add_wait);
  return rc;
}

/* The family's own tables (core/model/rtab.h): every other dataset. */
static int read_rtabs(hid_t g, struct acs_schedule *s, const struct where *w)
{
  char bad[ACS_RTAB_NAME_MAX + 1];
  int rc = acs__rtab_read_all(g, s, bad, sizeof bad);

  if (rc == ACS_EFORMAT)
    return acs__h5_fail(w->d, rc, w->path, "run_%" PRId64 "/%s: not a result table acsim reads",
                        w->run, bad);
  return rc;
}

static int read_group(hid_t f, hid_t g, struct acs_schedule *s, const struct where *w)
{
  int missing, rc;

  rc = read_limits(g, s, &missing);
  if (rc < 0)
    return acs__h5_fail(w->d, rc, w->path, "run_%" PRId64 ": malformed limit attributes",
                        w->run);
  if (missing)
    limits_from_platform(f, w->run, s);
  rc = read_resources(g, s, w);
  if (rc == ACS_OK)
    rc = read_graph(g, s, w);
  if (rc == ACS_OK)
    rc = read_rtabs(g, s, w);
  if (rc == ACS_OK && (s->norig < 0 || s->norig > s->nops))
    s->norig = s->nops;
  if (rc == ACS_OK)
    acs_schedule_finish(s);
  return rc;
}

int acs__results_read_schedule_file(hid_t f, const char *path, int64_t run_id,
                                    struct acs_schedule *s, struct acs_diag *d)
{
  struct where w = {path, d, run_id};
  char name[48];
  hid_t g;
  int rc;

  acs_schedule_init(s);
  snprintf(name, sizeof name, "schedules/run_%" PRId64, run_id);
  if (H5Lexists(f, "schedules", H5P_DEFAULT) <= 0 || H5Lexists(f, name, H5P_DEFAULT) <= 0)
    return acs__h5_fail(d, ACS_ENOTFOUND, path, "run %" PRId64 " has no stored schedule",
                        run_id);
  g = H5Gopen2(f, name, H5P_DEFAULT);
  rc = g < 0 ? acs__h5_fail(d, ACS_EFORMAT, path, "cannot open /%s", name)
             : read_group(f, g, s, &w);
  if (g >= 0)
    H5Gclose(g);
  if (rc < 0) {
    /* Leave s empty (and safe to destroy again). */
    acs_schedule_destroy(s);
    acs_schedule_init(s);
    if (rc == ACS_ENOMEM)
      acs__h5_fail(d, rc, path, "out of memory reading run %" PRId64, run_id);
  }
  return rc;
}

int acs_results_read_schedule(const char *path, int64_t run_id,
                              struct acs_schedule *s, struct acs_diag *d)
{
  hid_t f;
  int rc;

  acs_schedule_init(s);
  rc = acs__h5_open(path, path, H5F_ACC_RDONLY, &f, d);
  if (rc < 0)
    return rc;
  rc = acs__results_read_schedule_file(f, path, run_id, s, d);
  H5Fclose(f);
  return rc;
}
