/*
 * test-report.c - HDF5 results, schema 1: round trips of every table and
 * of schedules (which must still verify), appends, atomic writes (abort,
 * checkpoints), malformed files and a 10^5-op schedule.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "report/report.h"
#include "report/results.h"
#include "report/validation.h"
#include "report/study_int.h"
#include "tests/testutil.h"

/* ---- helpers ---- */

static char dir[256];
static char file[512];

static void setup(void)
{
  snprintf(dir, sizeof(dir), "%s", tu_tmpdir());
  snprintf(file, sizeof(file), "%s/results.h5", dir);
}

/* Removes the test's directory (files written there are all flat). */
static void teardown(void)
{
  DIR *dp = opendir(dir);
  struct dirent *e;
  char path[1024];

  if (!dp)
    return;
  while ((e = readdir(dp)))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(dp);
  rmdir(dir);
}

TestSuite(report, .init = setup, .fini = teardown);

static int same_double(double a, double b)
{
  return (isnan(a) && isnan(b)) || a == b;
}

static char *slurp(const char *path, size_t *n)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long len;

  cr_assert_not_null(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)len + 1);
  cr_assert_not_null(buf);
  cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return buf;
}

static void spit(const char *path, const char *buf, size_t n)
{
  FILE *f = fopen(path, "wb");

  cr_assert_not_null(f);
  cr_assert_eq(fwrite(buf, 1, n, f), n);
  fclose(f);
}

/* Number of entries in dir besides "." and ".."; the only one must be
 * `only` when given. */
static int dir_entries(const char *only)
{
  DIR *dp = opendir(dir);
  struct dirent *e;
  int n = 0;

  cr_assert_not_null(dp);
  while ((e = readdir(dp))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    n++;
    if (only)
      cr_assert_str_eq(e->d_name, only, "unexpected file %s left in the directory", e->d_name);
  }
  closedir(dp);
  return n;
}

static struct acs_results *open_ok(const char *cmd)
{
  struct acs_results *r = NULL;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(file, cmd, &r, &d), ACS_OK, "open: %s", d.msg);
  cr_assert_not_null(r);
  return r;
}

static void commit_ok(struct acs_results *r)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "commit: %s", d.msg);
}

static void read_ok(struct acs_results_data *data)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_read(file, data, &d), ACS_OK, "read: %s", d.msg);
}

static void platform(struct acs_platform *p, const char *name, double pe_count)
{
  acs_platform_init(p);
  snprintf(p->name, sizeof(p->name), "%s", name);
  p->v[ACS_P_PE_COUNT] = pe_count;
}

static void workload(struct acs_workload_row *w, const char *name, int64_t ops)
{
  memset(w, 0, sizeof(*w));
  snprintf(w->name, sizeof(w->name), "%s", name);
  snprintf(w->path, sizeof(w->path), "workloads/dnn/%s.csv", name);
  snprintf(w->kind, sizeof(w->kind), "dnn");
  w->ops = ops;
  w->edges = 2 * ops;
}

/* A run with a distinct value in every field; NaNs where `nan` says. */
static void run_row(struct acs_run_row *row, int32_t pid, int32_t wid, int variant)
{
  acs_run_row_init(row);
  row->platform_id = pid;
  row->workload_id = wid;
  snprintf(row->scheduler, sizeof(row->scheduler), variant ? "sequential" : "list");
  snprintf(row->status, sizeof(row->status), "%s",
           acs_status_name(variant ? ACS_ST_INFEASIBLE : ACS_ST_OK));
  snprintf(row->memory_model, sizeof(row->memory_model), "transient");
  row->makespan_cycles = variant ? NAN : 1234;
  row->sim_makespan_cycles = variant ? 999.5 : NAN;
  row->lower_bound_cycles = 1000 + variant;
  row->peak_cmx_bytes = 4096 + variant;
  row->spill_bytes = 17 + variant;
  row->ddr_bytes = 8192 + variant;
  row->barriers_used = 3 + variant;
  row->control_edges = 2 + variant;
  row->sched_seconds = 0.125 + variant;
  row->sim_seconds = variant ? 0.5 : NAN;
  row->pe_utilization = 0.75;
  row->dma_utilization = variant ? 0.25 : NAN;
  if (variant) {
    /* The longest message that fits, to catch off-by-one truncation. */
    memset(row->message, 'm', sizeof(row->message) - 1);
    row->message[sizeof(row->message) - 1] = '\0';
  } else {
    snprintf(row->message, sizeof(row->message), "fine");
  }
}

static void assert_run_eq(const struct acs_run_row *a, const struct acs_run_row *b)
{
  cr_assert_eq(a->run_id, b->run_id);
  cr_assert_eq(a->platform_id, b->platform_id);
  cr_assert_eq(a->workload_id, b->workload_id);
  cr_assert_str_eq(a->scheduler, b->scheduler);
  cr_assert_str_eq(a->status, b->status);
  cr_assert_str_eq(a->memory_model, b->memory_model);
  cr_assert(same_double(a->makespan_cycles, b->makespan_cycles));
  cr_assert(same_double(a->sim_makespan_cycles, b->sim_makespan_cycles));
  cr_assert(same_double(a->lower_bound_cycles, b->lower_bound_cycles));
  cr_assert_eq(a->peak_cmx_bytes, b->peak_cmx_bytes);
  cr_assert_eq(a->spill_bytes, b->spill_bytes);
  cr_assert_eq(a->ddr_bytes, b->ddr_bytes);
  cr_assert_eq(a->barriers_used, b->barriers_used);
  cr_assert_eq(a->control_edges, b->control_edges);
  cr_assert(same_double(a->sched_seconds, b->sched_seconds));
  cr_assert(same_double(a->sim_seconds, b->sim_seconds));
  cr_assert(same_double(a->pe_utilization, b->pe_utilization));
  cr_assert(same_double(a->dma_utilization, b->dma_utilization));
  cr_assert_str_eq(a->message, b->message);
}

/*
 * A hand-built schedule over two resources, "pe" (2 PEs) and "dma" (1
 * channel), that verifies:
 *   0 load  dma ddr->cmx [0,5)   ch0, CMX [0,4096) held [0,25), updates b0
 *   1 conv  dpu          [5,15)  PE0, CMX [4096,5120) held [5,25), updates b1,
 *                                waits b0, simulated [5.5,15.5)
 *   2 pool  shave        [15,25) PE1, updates b2, waits b1
 *   3 store dma cmx->ddr [25,28) ch0, added by the scheduler (norig = 3),
 *                                waits b1 and b2
 * Edges: 0->1, 1->2, 2->3 data; 1->3 control (added). The barrier program
 * is complete (every edge's source updates a barrier its destination waits
 * on), as the verifier requires of a schedule that has one.
 */
static void hand_schedule(struct acs_schedule *s)
{
  static const struct {
    const char *name;
    int kind, src, dst;
    int32_t unit;
    int64_t start, dur, bytes, out, off, size;
    double alloc, freed;
    int32_t upd;
    int64_t pe, dma;
  } o[] = {
    {"load", ACS_OP_DMA, ACS_MEM_DDR, ACS_MEM_CMX, 0, 0, 5, 4096, 4096, 0, 4096, 0, 25, 0, 0, 1},
    {"conv", ACS_OP_DPU, ACS_MEM_NONE, ACS_MEM_NONE, 0, 5, 10, 0, 1024, 4096, 1024, 5, 25, 1, 1, 0},
    {"pool", ACS_OP_SHAVE, ACS_MEM_NONE, ACS_MEM_NONE, 1, 15, 10, 0, 0, -1, -1, NAN, NAN, 2, 1, 0},
    {"store", ACS_OP_DMA, ACS_MEM_CMX, ACS_MEM_DDR, 0, 25, 3, 1024, 0, -1, -1, NAN, NAN, -1, 0, 1},
  };
  struct acs_sop op;

  acs_schedule_init(s);
  s->nres = 2;
  s->res_name[0] = "pe";
  s->res_cap[0] = 2;
  s->res_pe = 0;
  s->res_name[1] = "dma";
  s->res_cap[1] = 1;
  s->res_dma = 1;
  for (int i = 0; i < 4; i++) {
    memset(&op, 0, sizeof(op));
    op.name = o[i].name;
    op.kind = (uint8_t)o[i].kind;
    op.src = (uint8_t)o[i].src;
    op.dst = (uint8_t)o[i].dst;
    op.unit = o[i].unit;
    op.start = o[i].start;
    op.dur = o[i].dur;
    op.end = o[i].start + o[i].dur;
    op.bytes = o[i].bytes;
    op.out_bytes = o[i].out;
    op.slots = i + 1;
    op.cmx_offset = o[i].off;
    op.cmx_bytes = o[i].size;
    op.cmx_alloc = o[i].alloc;
    op.cmx_free = o[i].freed;
    op.update_barrier = o[i].upd;
    op.sim_start = i == 1 ? 5.5 : NAN;
    op.sim_end = i == 1 ? 15.5 : NAN;
    cr_assert_eq(acs_schedule_add_op(s, &op), i);
    cr_assert_eq(acs_schedule_set_demand(s, i, 0, o[i].pe), ACS_OK);
    cr_assert_eq(acs_schedule_set_demand(s, i, 1, o[i].dma), ACS_OK);
  }
  s->norig = 3;
  s->cmx_capacity = 8192;
  s->cmx_align = 64;
  s->barriers = 4;
  s->barrier_slots = 4;
  cr_assert_eq(acs_schedule_add_edge(s, 0, 1, ACS_EDGE_DATA), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(s, 1, 2, ACS_EDGE_DATA), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(s, 2, 3, ACS_EDGE_DATA), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(s, 1, 3, ACS_EDGE_CONTROL), ACS_OK);
  cr_assert_eq(acs_schedule_add_wait(s, 1, 0), ACS_OK);
  cr_assert_eq(acs_schedule_add_wait(s, 2, 1), ACS_OK);
  cr_assert_eq(acs_schedule_add_wait(s, 3, 1), ACS_OK);
  cr_assert_eq(acs_schedule_add_wait(s, 3, 2), ACS_OK);
  acs_schedule_finish(s);
  tu_assert_verified(s);
}

static void assert_schedule_eq(const struct acs_schedule *a, const struct acs_schedule *b)
{
  cr_assert_eq(a->norig, b->norig);
  cr_assert_eq(a->nops, b->nops);
  cr_assert_eq(a->nres, b->nres);
  for (int r = 0; r < a->nres; r++) {
    cr_assert_str_eq(a->res_name[r], b->res_name[r]);
    cr_assert_eq(a->res_cap[r], b->res_cap[r]);
  }
  cr_assert_eq(a->res_pe, b->res_pe);
  cr_assert_eq(a->res_dma, b->res_dma);
  cr_assert_eq(a->res_cmx, b->res_cmx);
  for (int32_t i = 0; i < a->nops; i++) {
    const struct acs_sop *x = &a->ops[i], *y = &b->ops[i];
    cr_assert_str_eq(x->name, y->name);
    cr_assert_eq(x->kind, y->kind, "op %d kind", i);
    cr_assert_eq(x->src, y->src);
    cr_assert_eq(x->dst, y->dst);
    cr_assert_eq(x->unit, y->unit);
    cr_assert_eq(x->start, y->start);
    cr_assert_eq(x->end, y->end);
    cr_assert_eq(x->dur, y->dur);
    cr_assert_eq(x->bytes, y->bytes);
    cr_assert_eq(x->out_bytes, y->out_bytes);
    cr_assert_eq(x->slots, y->slots);
    cr_assert_eq(x->cmx_offset, y->cmx_offset);
    cr_assert_eq(x->cmx_bytes, y->cmx_bytes);
    cr_assert(same_double(x->cmx_alloc, y->cmx_alloc), "op %d cmx_alloc", i);
    cr_assert(same_double(x->cmx_free, y->cmx_free), "op %d cmx_free", i);
    cr_assert_eq(x->update_barrier, y->update_barrier);
    cr_assert(same_double(x->sim_start, y->sim_start), "op %d sim_start", i);
    cr_assert(same_double(x->sim_end, y->sim_end), "op %d sim_end", i);
    for (int r = 0; r < a->nres; r++)
      cr_assert_eq(acs_schedule_demand(a, i, r), acs_schedule_demand(b, i, r));
  }
  cr_assert_eq(a->nedges, b->nedges);
  for (int32_t e = 0; e < a->nedges; e++) {
    cr_assert_eq(a->edges[e].src, b->edges[e].src);
    cr_assert_eq(a->edges[e].dst, b->edges[e].dst);
    cr_assert_eq(a->edges[e].kind, b->edges[e].kind);
  }
  cr_assert_eq(a->nwaits, b->nwaits);
  for (int32_t w = 0; w < a->nwaits; w++) {
    cr_assert_eq(a->waits[w].op, b->waits[w].op);
    cr_assert_eq(a->waits[w].barrier, b->waits[w].barrier);
  }
  cr_assert_eq(a->cmx_capacity, b->cmx_capacity);
  cr_assert_eq(a->cmx_align, b->cmx_align);
  cr_assert_eq(a->barriers, b->barriers);
  cr_assert_eq(a->barrier_slots, b->barrier_slots);
  cr_assert_eq(a->makespan, b->makespan);
}

/* Writes one run with the hand-built schedule into a new file; returns its id. */
static int64_t write_hand_file(void)
{
  struct acs_results *r = open_ok("acsim run -o results.h5");
  struct acs_schedule s;
  struct acs_run_row row;
  struct acs_platform p;
  int32_t pid;

  hand_schedule(&s);
  platform(&p, "default", 4);
  cr_assert_eq(acs_results_add_platform(r, &p, &pid), ACS_OK);
  run_row(&row, pid, -1, 0);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  commit_ok(r);
  acs_schedule_destroy(&s);
  return row.run_id;
}

static void expect_format_error(const char *path, const char *want)
{
  struct acs_results_data data;
  struct acs_diag d;
  char msg[2048];

  acs_diag_init(&d);
  cr_assert_eq(acs_results_read(path, &data, &d), ACS_EFORMAT);
  acs_diag_format(&d, msg, sizeof(msg));
  cr_assert(strstr(msg, path) != NULL, "message does not name the file: %s", msg);
  cr_assert(strstr(msg, want) != NULL, "message '%s' lacks '%s'", msg, want);
}

/* ---- status and rows ---- */

Test(report, status_names_parse_back)
{
  cr_assert_str_eq(acs_status_name(ACS_ST_OK), "ok");
  cr_assert_str_eq(acs_status_name(ACS_ST_INFEASIBLE), "infeasible");
  cr_assert_str_eq(acs_status_name(ACS_ST_TIMEOUT), "timeout");
  cr_assert_str_eq(acs_status_name(ACS_ST_ERROR), "error");
  for (int st = ACS_ST_OK; st <= ACS_ST_ERROR; st++)
    cr_assert_eq(acs_status_parse(acs_status_name(st)), st);
  cr_assert_lt(acs_status_parse("fine"), 0);
}

Test(report, run_row_init_sets_nothing_values)
{
  struct acs_run_row row;

  memset(&row, 0x5a, sizeof(row));
  acs_run_row_init(&row);
  cr_assert_eq(row.run_id, -1);
  cr_assert_eq(row.platform_id, -1);
  cr_assert(isnan(row.makespan_cycles) && isnan(row.sim_makespan_cycles));
  cr_assert(isnan(row.pe_utilization) && isnan(row.dma_utilization));
  cr_assert_eq(row.peak_cmx_bytes, -1);
  cr_assert_eq(row.barriers_used, -1);
  cr_assert_str_eq(row.scheduler, "");
  cr_assert_str_eq(row.message, "");
}

/* ---- round trips ---- */

Test(report, tables_round_trip_every_field)
{
  struct acs_results *r = open_ok("acsim run -w x.csv");
  struct acs_results_data data;
  struct acs_platform p[2];
  struct acs_workload_row w;
  struct acs_run_row row[2];
  int32_t pid[2], wid;

  platform(&p[0], "default", 4);
  platform(&p[1], "big", 8);
  p[1].v[ACS_P_DMA_GBPS] = 12.5;
  cr_assert_eq(acs_results_add_platform(r, &p[0], &pid[0]), ACS_OK);
  cr_assert_eq(acs_results_add_platform(r, &p[1], &pid[1]), ACS_OK);
  cr_assert_neq(pid[0], pid[1]);
  workload(&w, "resnet18", 123);
  cr_assert_eq(acs_results_add_workload(r, &w, &wid), ACS_OK);
  for (int i = 0; i < 2; i++) {
    run_row(&row[i], pid[i], wid, i);
    cr_assert_eq(acs_results_add_run(r, &row[i], NULL), ACS_OK);
  }
  cr_assert_eq(row[0].run_id, 1);
  cr_assert_eq(row[1].run_id, 2);
  commit_ok(r);
  dir_entries("results.h5");

  read_ok(&data);
  cr_assert_eq(data.schema_version, 1);
  cr_assert_str_eq(data.acsim_version, PACKAGE_VERSION);
  cr_assert_str_eq(data.command_line, "acsim run -w x.csv");
  /* ISO 8601 UTC, e.g. 2024-05-01T12:34:56Z. */
  cr_assert_eq(strlen(data.created_utc), 20, "created_utc '%s'", data.created_utc);
  cr_assert_eq(data.created_utc[10], 'T');
  cr_assert_eq(data.created_utc[19], 'Z');
  cr_assert_eq(data.nplatforms, 2);
  for (int i = 0; i < 2; i++) {
    cr_assert_eq(data.platforms[i].platform_id, pid[i]);
    cr_assert_str_eq(data.platforms[i].plat.name, p[i].name);
    for (int k = 0; k < ACS_PARAM_COUNT; k++)
      cr_assert(data.platforms[i].plat.v[k] == p[i].v[k], "platform %d %s", i,
                acs_param_table[k].name);
  }
  cr_assert_eq(data.nworkloads, 1);
  cr_assert_eq(data.workloads[0].workload_id, wid);
  cr_assert_str_eq(data.workloads[0].name, "resnet18");
  cr_assert_str_eq(data.workloads[0].path, "workloads/dnn/resnet18.csv");
  cr_assert_str_eq(data.workloads[0].kind, "dnn");
  cr_assert_eq(data.workloads[0].ops, 123);
  cr_assert_eq(data.workloads[0].edges, 246);
  cr_assert_eq(data.nruns, 2);
  for (int i = 0; i < 2; i++)
    assert_run_eq(&data.runs[i], &row[i]);
  cr_assert_eq(strlen(data.runs[1].message), ACS_STR_MSG - 1);
  acs_results_data_free(&data);
}

Test(report, schedule_round_trips_and_still_verifies)
{
  struct acs_schedule s, back;
  struct acs_diag d;
  int64_t id = write_hand_file();

  hand_schedule(&s);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read_schedule(file, id, &back, &d), ACS_OK, "%s", d.msg);
  assert_schedule_eq(&s, &back);
  tu_assert_verified(&back);
  acs_schedule_destroy(&back);
  acs_schedule_destroy(&s);
}

Test(report, result_tables_round_trip_with_types_units_and_attributes)
{
  struct acs_results *r = open_ok("x");
  struct acs_platform p;
  struct acs_workload_row w;
  struct acs_run_row row;
  struct acs_schedule s, back;
  struct acs_diag d;
  int32_t pid, wid;

  hand_schedule(&s);
  tu_sample_rtabs(&s);
  platform(&p, "p", 4);
  workload(&w, "w", 4);
  cr_assert_eq(acs_results_add_platform(r, &p, &pid), ACS_OK);
  cr_assert_eq(acs_results_add_workload(r, &w, &wid), ACS_OK);
  run_row(&row, pid, wid, 0);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  commit_ok(r);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read_schedule(file, row.run_id, &back, &d), ACS_OK, "%s", d.msg);
  assert_schedule_eq(&s, &back);
  tu_assert_rtabs_eq(&s, &back);
  acs_schedule_destroy(&back);
  acs_schedule_destroy(&s);
}

Test(report, run_without_schedule_is_not_found)
{
  struct acs_results *r = open_ok("x");
  struct acs_schedule s;
  struct acs_run_row row;
  struct acs_diag d;

  run_row(&row, -1, -1, 0);
  cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  commit_ok(r);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read_schedule(file, row.run_id, &s, &d), ACS_ENOTFOUND);
  cr_assert(strstr(d.msg, "no stored schedule") != NULL, "%s", d.msg);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read_schedule(file, 99, &s, &d), ACS_ENOTFOUND);
  acs_schedule_destroy(&s);
}

/* n compute ops in a chain on one PE, op i at [i, i + 1): more rows than
 * the writer puts in one call when n > 65,536. */
static void chain_schedule(struct acs_schedule *s, int32_t n)
{
  char name[32];
  struct acs_sop op;

  acs_schedule_init(s);
  s->nres = 1;
  s->res_name[0] = "pe";
  s->res_cap[0] = 1;
  s->res_pe = 0;
  s->res_dma = -1;
  for (int32_t i = 0; i < n; i++) {
    memset(&op, 0, sizeof(op));
    snprintf(name, sizeof(name), "op%d", (int)i);
    op.name = name;
    op.kind = ACS_OP_DPU;
    op.unit = 0;
    op.start = i;
    op.dur = 1;
    op.end = i + 1;
    op.cmx_offset = op.cmx_bytes = -1;
    op.cmx_alloc = op.cmx_free = op.sim_start = op.sim_end = NAN;
    op.update_barrier = -1;
    cr_assert_eq(acs_schedule_add_op(s, &op), i);
    cr_assert_eq(acs_schedule_set_demand(s, i, 0, 1), ACS_OK);
    if (i > 0)
      cr_assert_eq(acs_schedule_add_edge(s, i - 1, i, ACS_EDGE_DATA), ACS_OK);
  }
  s->norig = n;
  acs_schedule_finish(s);
  tu_assert_verified(s);
}

/* The writer stores large tables in slices: every row comes back, in
 * order, across the slice boundaries (65,536 and 131,072). */
Test(report, table_written_in_slices_reads_back_whole, .timeout = 120)
{
  struct acs_results *r = open_ok("x");
  struct acs_schedule s, back;
  struct acs_run_row row;
  struct acs_diag d;
  const int32_t n = 2 * 65536 + 3;

  chain_schedule(&s, n);
  run_row(&row, -1, -1, 0);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  commit_ok(r);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read_schedule(file, row.run_id, &back, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(back.nops, n);
  cr_assert_eq(back.nedges, n - 1);
  for (int32_t i = 0; i < n; i++) {
    char want[32];
    snprintf(want, sizeof(want), "op%d", (int)i);
    cr_assert_str_eq(back.ops[i].name, want);
    cr_assert_eq(back.ops[i].start, i);
    cr_assert_eq(back.ops[i].end, i + 1);
  }
  for (int32_t e = 0; e < n - 1; e++)
    cr_assert(back.edges[e].src == e && back.edges[e].dst == e + 1, "edge %d", (int)e);
  tu_assert_verified(&back);
  acs_schedule_destroy(&back);
  acs_schedule_destroy(&s);
}

/* Ctrl-C while a large schedule is being stored: the run is not added,
 * its half-written group is removed, and the runs stored before it are
 * committed intact. The flag is set before the call, so the writer sees
 * it at its first poll: no timing involved. */
Test(report, interrupt_while_storing_a_schedule_keeps_the_earlier_runs, .timeout = 120)
{
  static volatile sig_atomic_t flag;
  struct acs_results *r = open_ok("x");
  struct acs_schedule small, big, back;
  struct acs_results_data data;
  struct acs_run_row row, row2;
  struct acs_diag d;

  hand_schedule(&small);
  chain_schedule(&big, 65536 + 1);
  run_row(&row, -1, -1, 0);
  cr_assert_eq(acs_results_add_run(r, &row, &small), ACS_OK);
  flag = 1;
  acs_interrupt_flag_set(&flag);
  run_row(&row2, -1, -1, 1);
  cr_assert_eq(acs_results_add_run(r, &row2, &big), ACS_EINTERRUPTED);
  acs_interrupt_flag_set(NULL);
  commit_ok(r);
  read_ok(&data);
  cr_assert_eq(data.nruns, 1);
  cr_assert_eq(data.runs[0].run_id, row.run_id);
  acs_results_data_free(&data);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read_schedule(file, row.run_id + 1, &back, &d), ACS_ENOTFOUND);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read_schedule(file, row.run_id, &back, &d), ACS_OK, "%s", d.msg);
  assert_schedule_eq(&small, &back);
  acs_schedule_destroy(&back);
  acs_schedule_destroy(&big);
  acs_schedule_destroy(&small);
}

/* ---- memory models in the study's answers ---- */

/* One resident run (spill) and one transient run (list) per platform, with
 * the makespans given; an empty memory_model (a file older than the
 * column) is taken from the registry. */
static void mm_study(const double *spill, const double *list, int n, int blank)
{
  struct acs_results *r = open_ok("x");
  struct acs_workload_row w;
  int32_t wid;

  workload(&w, "net", 10);
  cr_assert_eq(acs_results_add_workload(r, &w, &wid), ACS_OK);
  for (int i = 0; i < n; i++) {
    struct acs_platform p;
    struct acs_run_row row;
    char name[32];
    int32_t pid;
    snprintf(name, sizeof(name), "p%d", i);
    platform(&p, name, 4);
    p.v[ACS_P_CMX_KIB] = 256 << i;
    cr_assert_eq(acs_results_add_platform(r, &p, &pid), ACS_OK);
    for (int k = 0; k < 2; k++) {
      acs_run_row_init(&row);
      row.platform_id = pid;
      row.workload_id = wid;
      snprintf(row.scheduler, sizeof(row.scheduler), "%s", k ? "list" : "spill");
      snprintf(row.memory_model, sizeof(row.memory_model), "%s",
               blank ? "" : k ? "transient" : "resident");
      snprintf(row.status, sizeof(row.status), "ok");
      row.makespan_cycles = k ? list[i] : spill[i];
      cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    }
  }
  commit_ok(r);
}

/* list (transient) is faster than spill (resident) on every platform, yet
 * spill is the best of every configuration: list's figure is an optimistic
 * bound (ratio below 1, no win), whether the model is stored or, in an
 * older file, looked up. Ratios by hand: list/spill = 90/100 and 160/200. */
Test(report, transient_runs_are_bounds_not_the_best)
{
  const double spill[] = {100, 200}, list[] = {90, 160};

  for (int blank = 0; blank < 2; blank++) {
    struct acs__study s;
    struct acs__cmp c;
    struct acs_diag d;
    size_t ks = 0, kl = 0;
    mm_study(spill, list, 2, blank);
    acs_diag_init(&d);
    cr_assert_eq(acs__study_load(file, &s, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(acs__study_compare(&s, &c), ACS_OK);
    for (size_t i = 0; i < s.nruns; i++) {
      int is_spill = strcmp(s.runs[i].r->scheduler, "spill") == 0;
      cr_assert_eq(s.runs[i].resident, is_spill);
      if (is_spill)
        ks = (size_t)s.runs[i].sched;
      else
        kl = (size_t)s.runs[i].sched;
    }
    cr_assert_eq(c.configs, 2);
    cr_assert_eq(acs__cmp_at(&c, c.rows - 1, ks)->wins, 2);
    cr_assert_eq(acs__cmp_at(&c, c.rows - 1, kl)->wins, 0);
    cr_assert_float_eq(acs__cmp_at(&c, c.rows - 1, kl)->sumlog, log(0.9) + log(0.8), 1e-12);
    cr_assert_float_eq(acs__cmp_at(&c, c.rows - 1, kl)->worst, 0.9, 1e-12);
    acs__cmp_free(&c);
    acs__study_free(&s);
    unlink(file);
  }
}

/* ---- appending ---- */

Test(report, append_continues_run_ids_and_dedupes)
{
  struct acs_results *r;
  struct acs_results_data data;
  struct acs_platform p, q;
  struct acs_workload_row w;
  struct acs_run_row row;
  int32_t pid, pid2, qid, wid, wid2;
  char created[64];

  r = open_ok("first");
  platform(&p, "default", 4);
  workload(&w, "alexnet", 10);
  cr_assert_eq(acs_results_add_platform(r, &p, &pid), ACS_OK);
  cr_assert_eq(acs_results_add_workload(r, &w, &wid), ACS_OK);
  for (int i = 0; i < 2; i++) {
    run_row(&row, pid, wid, 0);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  }
  /* Same platform again within one session: same id. */
  cr_assert_eq(acs_results_add_platform(r, &p, &pid2), ACS_OK);
  cr_assert_eq(pid2, pid);
  commit_ok(r);
  read_ok(&data);
  snprintf(created, sizeof(created), "%s", data.created_utc);
  acs_results_data_free(&data);

  r = open_ok("second");
  cr_assert_eq(acs_results_add_platform(r, &p, &pid2), ACS_OK);
  cr_assert_eq(pid2, pid, "an identical stored platform is reused");
  cr_assert_eq(acs_results_add_workload(r, &w, &wid2), ACS_OK);
  cr_assert_eq(wid2, wid);
  platform(&q, "default", 5); /* same name, one parameter differs */
  cr_assert_eq(acs_results_add_platform(r, &q, &qid), ACS_OK);
  cr_assert_eq(qid, pid + 1);
  run_row(&row, qid, wid, 1);
  cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  cr_assert_eq(row.run_id, 3);
  commit_ok(r);

  read_ok(&data);
  cr_assert_eq(data.nplatforms, 2);
  cr_assert_eq(data.nworkloads, 1);
  cr_assert_eq(data.nruns, 3);
  cr_assert_eq(data.runs[0].run_id, 1);
  cr_assert_eq(data.runs[1].run_id, 2);
  assert_run_eq(&data.runs[2], &row);
  cr_assert_str_eq(data.command_line, "second");
  cr_assert_str_eq(data.created_utc, created, "created_utc is kept from the first writer");
  acs_results_data_free(&data);
  dir_entries("results.h5");
}

/* ---- atomic writes ---- */

Test(report, abort_leaves_target_byte_identical)
{
  struct acs_results *r;
  struct acs_schedule s;
  struct acs_run_row row;
  size_t n0, n1;
  char *before, *after;

  write_hand_file();
  before = slurp(file, &n0);
  r = open_ok("doomed");
  hand_schedule(&s);
  run_row(&row, -1, -1, 1);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  cr_assert_eq(dir_entries(NULL), 3, "target, work copy and spare link while open");
  acs_results_abort(r);
  after = slurp(file, &n1);
  cr_assert_eq(n0, n1);
  cr_assert(memcmp(before, after, n0) == 0, "abort changed the target");
  cr_assert_eq(dir_entries("results.h5"), 1);
  free(before);
  free(after);
  acs_schedule_destroy(&s);
}

Test(report, abort_of_a_new_file_leaves_nothing)
{
  struct acs_results *r = open_ok("doomed");

  acs_results_abort(r);
  cr_assert_eq(dir_entries(NULL), 0);
}

/* Checkpoints keep what they cover; an abort drops only what came after. */
Test(report, checkpoints_keep_runs_and_schedules)
{
  struct acs_results *r = open_ok("sweep");
  struct acs_results_data data;
  struct acs_schedule s, back;
  struct acs_run_row row;
  struct acs_diag d;

  hand_schedule(&s);
  acs_diag_init(&d);
  /* Several checkpoints, each adding runs with and without schedules: the
   * second and later ones replay into the spare inode. */
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < 3; i++) {
      run_row(&row, -1, -1, i & 1);
      cr_assert_eq(acs_results_add_run(r, &row, i == 1 ? NULL : &s), ACS_OK);
    }
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
    read_ok(&data);
    cr_assert_eq(data.nruns, (size_t)(3 * (k + 1)), "checkpoint %d", k);
    acs_results_data_free(&data);
  }
  cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "a checkpoint with nothing new");
  run_row(&row, -1, -1, 0);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  acs_results_abort(r);
  cr_assert_eq(dir_entries("results.h5"), 1);

  read_ok(&data);
  cr_assert_eq(data.nruns, 12);
  for (size_t i = 0; i < data.nruns; i++) {
    cr_assert_eq(data.runs[i].run_id, (int64_t)i + 1);
    acs_diag_init(&d);
    int rc = acs_results_read_schedule(file, data.runs[i].run_id, &back, &d);
    if (i % 3 == 1) {
      cr_assert_eq(rc, ACS_ENOTFOUND);
    } else {
      cr_assert_eq(rc, ACS_OK, "run %zu: %s", i + 1, d.msg);
      assert_schedule_eq(&s, &back);
      tu_assert_verified(&back);
    }
    acs_schedule_destroy(&back);
  }
  acs_results_data_free(&data);
  acs_schedule_destroy(&s);
}

/*
 * The design that keeps checkpoints O(new data): two inodes take turns at
 * the target, the writer holding a second link to the one published last
 * (so the target has two links while the writer is open), instead of a new
 * full copy at each checkpoint.
 */
Test(report, checkpoints_alternate_two_inodes)
{
  struct acs_results *r = open_ok("sweep");
  struct acs_run_row row;
  struct acs_diag d;
  struct stat st;
  ino_t ino[5];

  acs_diag_init(&d);
  for (int k = 0; k < 5; k++) {
    run_row(&row, -1, -1, 0);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(stat(file, &st), 0);
    cr_assert_eq(st.st_nlink, 2, "the writer holds a spare link to the target");
    ino[k] = st.st_ino;
  }
  cr_assert_neq(ino[1], ino[2]);
  cr_assert_eq(ino[1], ino[3]);
  cr_assert_eq(ino[2], ino[4]);
  commit_ok(r);
  cr_assert_eq(stat(file, &st), 0);
  cr_assert_eq(st.st_nlink, 1);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

/*
 * The child of killed_writer_leaves_a_checkpoint: appends batches of 5 runs
 * with schedules, checkpointing after each and then writing one byte to
 * `tell`, until it is killed; with self_kill > 0 it kills itself after
 * self_kill - 1 more runs of the batch that follows checkpoint `at`.
 */
static void endless_writer(int tell, int at, int self_kill)
{
  struct acs_results *r = NULL;
  struct acs_schedule s;
  struct acs_run_row row;
  struct acs_diag d;

  acs_diag_init(&d);
  hand_schedule(&s);
  if (acs_results_open(file, "endless", &r, &d) < 0)
    _exit(1);
  for (int k = 1;; k++) {
    for (int i = 0; i < 5; i++) {
      if (self_kill > 0 && k == at + 1 && i == self_kill - 1)
        raise(SIGKILL);
      run_row(&row, -1, -1, i & 1);
      if (acs_results_add_run(r, &row, &s) < 0)
        _exit(1);
    }
    if (acs_results_checkpoint(r, &d) < 0 || write(tell, "c", 1) != 1)
      _exit(1);
  }
}

/* Waits for n checkpoints of the writer (its bytes on fd). */
static void wait_checkpoints(int fd, int n)
{
  char c;

  for (int i = 0; i < n; i++)
    cr_assert_eq(read(fd, &c, 1), 1, "the writer stopped after %d checkpoints", i);
}

/*
 * A writer killed (SIGKILL, no cleanup) leaves the target readable with
 * whole checkpoints only, and the next writer goes on from it, removing the
 * temporaries the killed ones left. Synchronized on events, not time: each
 * round waits until the writer has published m checkpoints (bytes on a
 * pipe), so the file holds at least 5m more runs. Even rounds kill it from
 * outside at whatever point it has reached (inside a batch or a
 * checkpoint); odd rounds have it kill itself at a chosen run of the next
 * batch, which must leave exactly the 5m runs.
 */
Test(report, killed_writer_leaves_a_checkpoint)
{
  struct acs_results_data data;
  struct acs_schedule back;
  struct acs_diag d;
  size_t last = 0;

  for (int k = 0; k < 12; k++) {
    int m = 1 + k % 3, self = k % 2 ? 1 + k / 2 % 5 : 0, fds[2], status;
    pid_t pid;

    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      endless_writer(fds[1], m, self);
    }
    close(fds[1]);
    wait_checkpoints(fds[0], m);
    if (!self)
      kill(pid, SIGKILL);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    close(fds[0]);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
              "the writer failed on its own (status %d)", status);
    read_ok(&data);
    cr_assert_eq(data.nruns % 5, 0, "a partial batch of %zu runs was published", data.nruns);
    cr_assert_geq(data.nruns, last + 5 * (size_t)m, "round %d: %zu runs after %zu", k,
                  data.nruns, last);
    if (self)
      cr_assert_eq(data.nruns, last + 5 * (size_t)m, "round %d: killed inside batch %d", k,
                   m + 1);
    last = data.nruns;
    acs_diag_init(&d);
    cr_assert_eq(acs_results_read_schedule(file, data.runs[data.nruns - 1].run_id, &back, &d),
                 ACS_OK, "%s", d.msg);
    tu_assert_verified(&back);
    acs_schedule_destroy(&back);
    acs_results_data_free(&data);
  }
  /* The next writer removes what killed ones left, and goes on. */
  struct acs_results *r = open_ok("after");
  commit_ok(r);
  cr_assert_eq(dir_entries("results.h5"), 1);
  read_ok(&data);
  cr_assert_eq(data.nruns, last);
  acs_results_data_free(&data);
}

/*
 * A reader (h5dump, a script, acsim report) that holds the published file
 * open while the writer goes on: the writer cannot reuse that inode for its
 * next work file (HDF5 refuses it the lock, and writing it would change the
 * file under the reader), so it copies instead, and every checkpoint still
 * lands. The reader is a child that opens the file and waits on a pipe.
 */
Test(report, reader_holding_a_checkpoint_does_not_stop_the_writer)
{
  struct acs_results *r = open_ok("writer");
  struct acs_results_data data;
  struct acs_run_row row;
  struct acs_diag d;
  int ready[2], release[2];
  pid_t pid;
  char c;

  acs_diag_init(&d);
  for (int k = 0; k < 2; k++) {
    run_row(&row, -1, -1, 0);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
  }
  cr_assert_eq(pipe(ready), 0);
  cr_assert_eq(pipe(release), 0);
  fflush(NULL);
  pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0 || write(ready[1], "r", 1) != 1)
      _exit(1);
    close(release[1]);
    while (read(release[0], &c, 1) > 0)
      ;
    H5Fclose(f);
    _exit(0);
  }
  close(ready[1]);
  close(release[0]);
  cr_assert_eq(read(ready[0], &c, 1), 1, "the reader could not open the file");
  for (int k = 0; k < 3; k++) {
    run_row(&row, -1, -1, 0);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "checkpoint %d: %s", k, d.msg);
  }
  close(release[1]);
  close(ready[0]);
  cr_assert_eq(waitpid(pid, NULL, 0), pid);
  commit_ok(r);
  read_ok(&data);
  cr_assert_eq(data.nruns, 5);
  acs_results_data_free(&data);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

/* Temporaries of a writer that no longer runs are removed at the next open;
 * those of a running one (here: this process) and other files are kept. */
Test(report, open_removes_only_dead_writers_temporaries)
{
  char host[72] = {0}, dead[600], live[600], other[600];
  struct acs_results *r;
  pid_t pid;

  cr_assert_eq(gethostname(host, sizeof(host) - 1), 0);
  fflush(NULL);
  pid = fork();
  if (pid == 0)
    _exit(0);
  cr_assert_eq(waitpid(pid, NULL, 0), pid);
  snprintf(dead, sizeof(dead), "%s/.results.h5.acsim-%s-%ld-0.tmp", dir, host, (long)pid);
  snprintf(live, sizeof(live), "%s/.results.h5.acsim-%s-%ld-0.tmp", dir, host, (long)getpid());
  snprintf(other, sizeof(other), "%s/.results.h5.other-%ld-0.tmp", dir, (long)pid);
  spit(dead, "x", 1);
  spit(live, "x", 1);
  spit(other, "x", 1);
  r = open_ok("sweeper");
  commit_ok(r);
  cr_assert_neq(access(dead, F_OK), 0, "a dead writer's temporary is removed");
  cr_assert_eq(access(live, F_OK), 0, "a running writer's temporary is kept");
  cr_assert_eq(access(other, F_OK), 0);
  cr_assert_eq(dir_entries(NULL), 3);
}

/* Appending to an existing file with checkpoints (the spare is the original). */
Test(report, checkpoint_on_an_existing_file_then_commit)
{
  struct acs_results *r;
  struct acs_results_data data;
  struct acs_run_row row;
  struct acs_diag d;

  write_hand_file();
  r = open_ok("more");
  acs_diag_init(&d);
  for (int k = 0; k < 3; k++) {
    run_row(&row, -1, -1, 0);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
  }
  run_row(&row, -1, -1, 1);
  cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  commit_ok(r);
  read_ok(&data);
  cr_assert_eq(data.nruns, 5);
  assert_run_eq(&data.runs[4], &row);
  cr_assert_eq(data.nplatforms, 1);
  cr_assert_str_eq(data.command_line, "more");
  acs_results_data_free(&data);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

/* Two writers on one file: the later commit must not silently drop the
 * earlier one's runs. */
Test(report, commit_refuses_to_overwrite_another_writer)
{
  struct acs_results *a, *b;
  struct acs_results_data data;
  struct acs_run_row row;
  struct acs_diag d;

  write_hand_file();
  a = open_ok("writer a");
  b = open_ok("writer b");
  run_row(&row, -1, -1, 0);
  cr_assert_eq(acs_results_add_run(b, &row, NULL), ACS_OK);
  commit_ok(b);
  run_row(&row, -1, -1, 1);
  cr_assert_eq(acs_results_add_run(a, &row, NULL), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_commit(a, &d), ACS_EIO);
  cr_assert(strstr(d.msg, "changed since it was opened") != NULL, "%s", d.msg);
  read_ok(&data);
  cr_assert_eq(data.nruns, 2);
  cr_assert_str_eq(data.command_line, "writer b");
  acs_results_data_free(&data);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

Test(report, open_in_a_missing_directory_is_an_io_error)
{
  struct acs_results *r = NULL;
  struct acs_diag d;
  char path[600];

  snprintf(path, sizeof(path), "%s/no/such/dir/r.h5", dir);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(path, "x", &r, &d), ACS_EIO);
  cr_assert_null(r);
  cr_assert_str_eq(d.file, path);
  cr_assert(strstr(d.msg, "temporary") != NULL, "%s", d.msg);
}

/* ---- malformed files ---- */

Test(report, truncated_file_is_a_format_error)
{
  struct acs_results *r = NULL;
  struct acs_diag d;
  char *buf;
  size_t n;

  write_hand_file();
  buf = slurp(file, &n);
  spit(file, buf, n / 2);
  expect_format_error(file, "not an HDF5 file or truncated");
  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(file, "x", &r, &d), ACS_EFORMAT);
  cr_assert_null(r);
  cr_assert_str_eq(d.file, file);
  cr_assert_eq(dir_entries("results.h5"), 1, "no temporary left after a failed open");
  free(buf);
}

Test(report, text_file_is_a_format_error)
{
  const char text[] = "run_id,makespan\n1,100\n";

  spit(file, text, sizeof(text) - 1);
  expect_format_error(file, "not an HDF5 file or truncated");
}

Test(report, missing_file_is_an_io_error)
{
  struct acs_results_data data;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_read(file, &data, &d), ACS_EIO);
  cr_assert_str_eq(d.file, file);
  cr_assert(strstr(d.msg, "cannot open") != NULL, "%s", d.msg);
}

Test(report, other_schema_version_is_rejected)
{
  struct acs_results *r = NULL;
  struct acs_diag d;
  hid_t f, a, sp;
  int v = 2;

  write_hand_file();
  f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
  cr_assert_geq(f, 0);
  cr_assert_geq(H5Adelete(f, "schema_version"), 0);
  sp = H5Screate(H5S_SCALAR);
  a = H5Acreate2(f, "schema_version", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
  cr_assert_geq(H5Awrite(a, H5T_NATIVE_INT, &v), 0);
  H5Aclose(a);
  H5Sclose(sp);
  H5Fclose(f);
  expect_format_error(file, "schema_version 2, this acsim reads 1");
  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(file, "x", &r, &d), ACS_EFORMAT);
  cr_assert(strstr(d.msg, "schema_version 2") != NULL, "%s", d.msg);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

Test(report, hdf5_file_without_schema_is_rejected)
{
  hid_t f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

  cr_assert_geq(f, 0);
  H5Fclose(f);
  expect_format_error(file, "not an acsim results file");
}

/* ---- replacing a run (a sweep retries stored error runs) ---- */

/* Run k of replace_* before and after: an error row, then ok values. */
static void error_row(struct acs_run_row *row, int32_t pid, int32_t wid, int k)
{
  acs_run_row_init(row);
  row->platform_id = pid;
  row->workload_id = wid;
  snprintf(row->scheduler, sizeof(row->scheduler), "list");
  snprintf(row->status, sizeof(row->status), "error");
  snprintf(row->message, sizeof(row->message), "worker %d died", k);
}

/*
 * Rows replaced in place keep their run_id and row, take every new value,
 * and their schedule group follows (written, or removed when the new row
 * has none), across checkpoints (the replayed path: the writer reuses the
 * previous checkpoint's inode) and a reopen. An unknown id is ENOTFOUND.
 */
Test(report, replaced_runs_keep_their_rows_across_checkpoints)
{
  struct acs_results *r = open_ok("first");
  struct acs_results_data data;
  struct acs_schedule s, back;
  struct acs_run_row row[6], fix;
  struct acs_platform p;
  struct acs_diag d;
  int32_t pid;

  acs_diag_init(&d);
  hand_schedule(&s);
  platform(&p, "default", 4);
  cr_assert_eq(acs_results_add_platform(r, &p, &pid), ACS_OK);
  for (int k = 0; k < 6; k++) {
    error_row(&row[k], pid, -1, k);
    /* Runs 1 and 4 (ids 2 and 5) have a schedule to lose. */
    cr_assert_eq(acs_results_add_run(r, &row[k], k % 3 == 1 ? &s : NULL), ACS_OK);
    if (k % 2)
      cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
  }
  commit_ok(r);

  /* Replace 2 (schedule removed) and 3 (schedule added) in one epoch, 5 in
   * the next, 6 twice, with checkpoints between, then 1 after a reopen. */
  r = open_ok("retry");
  int64_t order[] = {2, 3, 0, 5, 6, 0, 6, 0};
  for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
    if (order[i] == 0) {
      cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
      continue;
    }
    run_row(&fix, pid, -1, (int)order[i] % 2);
    fix.run_id = order[i];
    cr_assert_eq(acs_results_replace_run(r, &fix, order[i] % 2 ? &s : NULL), ACS_OK);
    row[order[i] - 1] = fix;
  }
  fix.run_id = 99;
  cr_assert_eq(acs_results_replace_run(r, &fix, NULL), ACS_ENOTFOUND);
  commit_ok(r);
  r = open_ok("again");
  run_row(&fix, pid, -1, 0);
  fix.run_id = 1;
  cr_assert_eq(acs_results_replace_run(r, &fix, NULL), ACS_OK);
  row[0] = fix;
  commit_ok(r);

  read_ok(&data);
  cr_assert_eq(data.nruns, 6, "replacing adds no row");
  for (int k = 0; k < 6; k++) {
    row[k].run_id = k + 1;
    assert_run_eq(&data.runs[k], &row[k]);
  }
  acs_results_data_free(&data);
  /* Schedules: ids 3 (odd, replaced with one) and 5 (added with one, then
   * replaced with one) have one; 2 (lost it) and the rest have none. */
  for (int64_t id = 1; id <= 6; id++) {
    int want = id == 3 || id == 5;
    int rc = acs_results_read_schedule(file, id, &back, &d);
    cr_assert_eq(rc, want ? ACS_OK : ACS_ENOTFOUND, "run %lld: %s", (long long)id, d.msg);
    if (want) {
      assert_schedule_eq(&back, &s);
      tu_assert_verified(&back);
    }
    acs_schedule_destroy(&back);
  }
  acs_schedule_destroy(&s);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

/* ---- the workload digest column ---- */

/* Workloads that differ only in their digest are two rows; equal ones
 * dedupe; the digest round-trips. */
Test(report, workload_digest_is_stored_and_tells_rows_apart)
{
  struct acs_results *r = open_ok("digest");
  struct acs_results_data data;
  struct acs_workload_row w[3];
  int32_t id[3];

  for (int i = 0; i < 3; i++) {
    workload(&w[i], "net", 10);
    memset(w[i].digest, i == 1 ? 'b' : 'a', ACS_DIGEST_HEX);
    cr_assert_eq(acs_results_add_workload(r, &w[i], &id[i]), ACS_OK);
  }
  cr_assert_neq(id[0], id[1]);
  cr_assert_eq(id[0], id[2]);
  commit_ok(r);
  read_ok(&data);
  cr_assert_eq(data.nworkloads, 2);
  cr_assert_str_eq(data.workloads[0].digest, w[0].digest);
  cr_assert_str_eq(data.workloads[1].digest, w[1].digest);
  acs_results_data_free(&data);
}

/* A /workloads table from before the digest column reads back with empty
 * digests, and a writer adds the column, keeping the old rows. */
Test(report, older_workloads_table_without_digest_upgrades)
{
  struct old {
    int32_t id;
    char name[ACS_STR_NAME], path[ACS_STR_PATH], kind[16];
    int64_t ops, edges;
  } old;
  const char *names[] = {"workload_id", "name", "path", "kind", "ops", "edges"};
  size_t offs[] = {offsetof(struct old, id), offsetof(struct old, name),
                   offsetof(struct old, path), offsetof(struct old, kind),
                   offsetof(struct old, ops), offsetof(struct old, edges)};
  hid_t types[6], f;
  struct acs_results *r;
  struct acs_results_data data;
  struct acs_workload_row w;
  int32_t wid;

  write_hand_file();
  memset(&old, 0, sizeof(old));
  old.id = 1;
  snprintf(old.name, sizeof(old.name), "net");
  snprintf(old.path, sizeof(old.path), "net.csv");
  snprintf(old.kind, sizeof(old.kind), "graph");
  old.ops = 4;
  old.edges = 3;
  types[0] = H5T_NATIVE_INT32;
  for (int i = 1; i < 4; i++) {
    types[i] = H5Tcopy(H5T_C_S1);
    H5Tset_size(types[i], i == 1 ? ACS_STR_NAME : i == 2 ? ACS_STR_PATH : 16);
  }
  types[4] = types[5] = H5T_NATIVE_INT64;
  f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
  cr_assert_geq(H5Ldelete(f, "workloads", H5P_DEFAULT), 0);
  cr_assert_geq(H5TBmake_table("workloads", f, "workloads", 6, 1, sizeof(old), names, offs,
                               types, 16, NULL, 0, &old), 0);
  H5Fclose(f);
  for (int i = 1; i < 4; i++)
    H5Tclose(types[i]);

  read_ok(&data);
  cr_assert_eq(data.nworkloads, 1);
  cr_assert_str_eq(data.workloads[0].digest, "");
  cr_assert_eq(acs_results_digested(&data), 1, "no run refers to the workload");
  acs_results_data_free(&data);

  r = open_ok("upgrade");
  workload(&w, "net", 4);
  snprintf(w.path, sizeof(w.path), "net.csv");
  snprintf(w.kind, sizeof(w.kind), "graph");
  w.edges = 3;
  memset(w.digest, 'c', ACS_DIGEST_HEX);
  cr_assert_eq(acs_results_add_workload(r, &w, &wid), ACS_OK);
  cr_assert_eq(wid, 2, "equal but for the digest is another workload");
  commit_ok(r);
  read_ok(&data);
  cr_assert_eq(data.nworkloads, 2);
  cr_assert_str_eq(data.workloads[0].digest, "");
  cr_assert_str_eq(data.workloads[0].name, "net");
  cr_assert_str_eq(data.workloads[1].digest, w.digest);
  acs_results_data_free(&data);
}

/* ---- schema evolution ---- */

/*
 * An older /platforms table lacking pe_pmem_kib and holding an unknown
 * column: reads give pe_pmem_kib its default; appending upgrades the table
 * so a new row keeps its pe_pmem_kib, and the unknown column survives.
 */
Test(report, older_platforms_table_reads_defaults_and_upgrades)
{
  enum { NF = 2 + ACS_PARAM_COUNT };
  struct rec {
    int32_t id;
    char name[ACS_PLATFORM_NAME_MAX];
    double v[ACS_PARAM_COUNT]; /* pe_pmem_kib's slot holds future_knob */
  } old;
  const char *names[NF];
  size_t offs[NF];
  hid_t types[NF], str, f;
  struct acs_results *r;
  struct acs_results_data data;
  struct acs_platform p;
  int32_t pid;
  double knob[2];

  write_hand_file(); /* platform 1 "default", 4 PEs */
  str = H5Tcopy(H5T_C_S1);
  H5Tset_size(str, ACS_PLATFORM_NAME_MAX);
  names[0] = "platform_id", offs[0] = offsetof(struct rec, id), types[0] = H5T_NATIVE_INT32;
  names[1] = "name", offs[1] = offsetof(struct rec, name), types[1] = str;
  for (int k = 0; k < ACS_PARAM_COUNT; k++) {
    names[2 + k] = k == ACS_P_PE_PMEM_KIB ? "future_knob" : acs_param_table[k].name;
    offs[2 + k] = offsetof(struct rec, v) + (size_t)k * sizeof(double);
    types[2 + k] = H5T_NATIVE_DOUBLE;
  }
  memset(&old, 0, sizeof(old));
  old.id = 1;
  snprintf(old.name, sizeof(old.name), "default");
  for (int k = 0; k < ACS_PARAM_COUNT; k++)
    old.v[k] = acs_param_table[k].def;
  old.v[ACS_P_PE_PMEM_KIB] = 42; /* future_knob */
  f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
  cr_assert_geq(H5Ldelete(f, "platforms", H5P_DEFAULT), 0);
  cr_assert_geq(H5TBmake_table("platforms", f, "platforms", NF, 1, sizeof(old), names, offs,
                               types, 16, NULL, 0, &old), 0);
  H5Fclose(f);
  H5Tclose(str);

  read_ok(&data);
  cr_assert_eq(data.nplatforms, 1);
  double pmem = data.platforms[0].plat.v[ACS_P_PE_PMEM_KIB];
  double def = acs_param_table[ACS_P_PE_PMEM_KIB].def;
  cr_assert_float_eq(pmem, def, 0);
  acs_results_data_free(&data);

  r = open_ok("upgrade");
  platform(&p, "isp", 4);
  p.v[ACS_P_PE_PMEM_KIB] = 7;
  cr_assert_eq(acs_results_add_platform(r, &p, &pid), ACS_OK);
  cr_assert_eq(pid, 2);
  commit_ok(r);

  read_ok(&data);
  cr_assert_eq(data.nplatforms, 2);
  cr_assert_str_eq(data.platforms[1].plat.name, "isp");
  pmem = data.platforms[1].plat.v[ACS_P_PE_PMEM_KIB];
  cr_assert_float_eq(pmem, 7, 0);
  pmem = data.platforms[0].plat.v[ACS_P_PE_PMEM_KIB];
  cr_assert_float_eq(pmem, def, 0);
  acs_results_data_free(&data);
  f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  cr_assert_geq(H5TBread_fields_name(f, "platforms", "future_knob", 0, 2, sizeof(double), NULL,
                                     (size_t[]){sizeof(double)}, knob), 0);
  H5Fclose(f);
  double k0 = knob[0];
  cr_assert_float_eq(k0, 42, 0, "the unknown column keeps its values");
}

/* ---- UTF-8 and units (issue 10) ---- */

/* The character set of string column `col` of dataset `path` in f. */
static H5T_cset_t column_cset(hid_t f, const char *path, const char *col)
{
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT), t, m;
  int idx;
  H5T_cset_t cs;

  cr_assert_geq(d, 0, "no %s", path);
  t = H5Dget_type(d);
  idx = H5Tget_member_index(t, col);
  cr_assert_geq(idx, 0, "%s has no column %s", path, col);
  m = H5Tget_member_type(t, (unsigned)idx);
  cr_assert_eq(H5Tget_class(m), H5T_STRING, "%s.%s is not a string", path, col);
  cs = H5Tget_cset(m);
  H5Tclose(m);
  H5Tclose(t);
  H5Dclose(d);
  return cs;
}

/* Every string column of the dataset is UTF-8; returns how many there are. */
static int assert_strings_utf8(hid_t f, const char *path)
{
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT), t;
  int n = 0;

  cr_assert_geq(d, 0, "no %s", path);
  t = H5Dget_type(d);
  for (int i = 0; i < H5Tget_nmembers(t); i++) {
    hid_t m = H5Tget_member_type(t, (unsigned)i);
    char *name = H5Tget_member_name(t, (unsigned)i);
    if (H5Tget_class(m) == H5T_STRING) {
      cr_assert_eq(H5Tget_cset(m), H5T_CSET_UTF8, "%s.%s is not tagged UTF-8", path, name);
      n++;
    }
    H5free_memory(name);
    H5Tclose(m);
  }
  H5Tclose(t);
  H5Dclose(d);
  return n;
}

/* The FIELD_<i>_UNITS attribute of column `col` of `path` ("" when none). */
static void column_unit(hid_t f, const char *path, const char *col, char *buf, size_t size)
{
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT), t, a, at;
  char attr[32];
  int idx;

  cr_assert_geq(d, 0, "no %s", path);
  t = H5Dget_type(d);
  idx = H5Tget_member_index(t, col);
  cr_assert_geq(idx, 0, "%s has no column %s", path, col);
  H5Tclose(t);
  snprintf(attr, sizeof(attr), "FIELD_%d_UNITS", idx);
  buf[0] = '\0';
  if (H5Aexists(d, attr) > 0) {
    a = H5Aopen(d, attr, H5P_DEFAULT);
    at = H5Aget_type(a);
    cr_assert_eq(H5Tget_cset(at), H5T_CSET_UTF8);
    cr_assert_lt(H5Tget_size(at), size);
    memset(buf, 0, size);
    cr_assert_geq(H5Aread(a, at, buf), 0);
    H5Tclose(at);
    H5Aclose(a);
  }
  H5Dclose(d);
}

/* What the README's HDF5 section promises, column by column; "" = no unit. */
static const struct {
  const char *table, *col, *unit;
} expected_units[] = {
  {"platforms", "platform_id", ""}, {"platforms", "name", ""},
  {"platforms", "freq_mhz", "MHz"}, {"platforms", "pe_count", "PEs"},
  {"platforms", "pe_macs_per_cycle", "MAC/cycle"}, {"platforms", "cmx_kib", "KiB"},
  {"platforms", "cmx_align_bytes", "bytes"}, {"platforms", "barriers", "barriers"},
  {"platforms", "barrier_slots", "slots"}, {"platforms", "dma_channels", "channels"},
  {"platforms", "dma_gbps", "GB/s"}, {"platforms", "ddr_ratio", "1"},
  {"platforms", "ddr_latency_cycles", "cycles"}, {"platforms", "local_gbps", "GB/s"},
  {"platforms", "bytes_per_elem", "bytes"}, {"platforms", "pe_vmem_kib", "KiB"},
  {"platforms", "pe_pmem_kib", "KiB"}, {"platforms", "loop_iterations", "iterations"},
  {"workloads", "ops", "ops"}, {"workloads", "edges", "edges"},
  {"runs", "run_id", ""}, {"runs", "status", ""},
  {"runs", "makespan_cycles", "cycles"}, {"runs", "sim_makespan_cycles", "cycles"},
  {"runs", "lower_bound_cycles", "cycles"}, {"runs", "peak_cmx_bytes", "bytes"},
  {"runs", "spill_bytes", "bytes"}, {"runs", "ddr_bytes", "bytes"},
  {"runs", "barriers_used", "barriers"}, {"runs", "control_edges", "edges"},
  {"runs", "sched_seconds", "seconds"}, {"runs", "sim_seconds", "seconds"},
  {"runs", "pe_utilization", "1"}, {"runs", "dma_utilization", "1"},
  {"runs", "ii", "cycles"}, {"runs", "mii", "cycles"}, {"runs", "cycles_per_iter", "cycles"},
  {"runs", "ops", "ops"}, {"runs", "edges", "edges"},
  {"schedules/run_1/ops", "unit", ""}, {"schedules/run_1/ops", "start", "cycles"},
  {"schedules/run_1/ops", "end", "cycles"}, {"schedules/run_1/ops", "sim_start", "cycles"},
  {"schedules/run_1/ops", "sim_end", "cycles"}, {"schedules/run_1/ops", "cmx_offset", "bytes"},
  {"schedules/run_1/ops", "cmx_bytes", "bytes"}, {"schedules/run_1/ops", "cmx_alloc", "cycles"},
  {"schedules/run_1/ops", "cmx_free", "cycles"}, {"schedules/run_1/ops", "update_barrier", ""},
  {"schedules/run_1/ops", "dur", "cycles"}, {"schedules/run_1/ops", "bytes", "bytes"},
  {"schedules/run_1/ops", "slots", ""}, {"schedules/run_1/ops", "out_bytes", "bytes"},
  {"schedules/run_1/ops", "demand_pe", ""}, {"schedules/run_1/ops", "demand_cmx", "bytes"},
  {"schedules/run_1/resources", "capacity", ""}, {"schedules/run_1/edges", "src", ""},
  {"schedules/run_1/waits", "barrier", ""},
  {"validation", "instances", ""}, {"validation", "avg_dev_pct", "%"},
  {"validation", "max_dev_pct", "%"}, {"validation", "time_limit", "seconds"},
  {"validation", "seconds", "seconds"},
};

static void assert_units(hid_t f)
{
  char unit[64];

  for (size_t i = 0; i < sizeof(expected_units) / sizeof(expected_units[0]); i++) {
    column_unit(f, expected_units[i].table, expected_units[i].col, unit, sizeof(unit));
    cr_assert_str_eq(unit, expected_units[i].unit, "/%s %s: unit '%s', want '%s'",
                     expected_units[i].table, expected_units[i].col, unit,
                     expected_units[i].unit);
  }
}

/* A schedule with a CMX resource (its demand column is in bytes) named in
 * UTF-8, with a UTF-8 op name. */
static void cmx_schedule(struct acs_schedule *s)
{
  struct acs_sop op;

  acs_schedule_init(s);
  s->nres = 2;
  s->res_name[0] = "pe";
  s->res_cap[0] = 1;
  s->res_pe = 0;
  s->res_name[1] = "cmx";
  s->res_cap[1] = 4096;
  s->res_cmx = 1;
  s->res_dma = -1;
  s->cmx_capacity = 4096;
  s->cmx_align = 64;
  memset(&op, 0, sizeof(op));
  op.name = "d\xc3\xa9" "bruitage";
  op.kind = ACS_OP_DPU;
  op.unit = 0;
  op.dur = op.end = 10;
  op.out_bytes = 1024;
  op.cmx_offset = 0;
  op.cmx_bytes = 1024;
  op.cmx_alloc = 0;
  op.cmx_free = 10;
  op.update_barrier = -1;
  op.slots = 1;
  op.sim_start = op.sim_end = NAN;
  cr_assert_eq(acs_schedule_add_op(s, &op), 0);
  cr_assert_eq(acs_schedule_set_demand(s, 0, 0, 1), ACS_OK);
  cr_assert_eq(acs_schedule_set_demand(s, 0, 1, 1024), ACS_OK);
  s->norig = 1;
  acs_schedule_finish(s);
  tu_assert_verified(s);
}

static void add_validation_row(struct acs_results *r)
{
  struct acs_validation_row v;
  struct acs_diag d;

  memset(&v, 0, sizeof(v));
  snprintf(v.set, sizeof(v.set), "psplib/j30");
  snprintf(v.path, sizeof(v.path), "tests/data/psplib");
  snprintf(v.scheduler, sizeof(v.scheduler), "list");
  v.instances = 1;
  v.avg_dev_pct = v.max_dev_pct = 0;
  v.time_limit = NAN;
  acs_diag_init(&d);
  cr_assert_eq(acs_validation_add(r, &v, 1, &d), ACS_OK, "%s", d.msg);
}

/*
 * Every string of every table is tagged UTF-8 and holds the bytes given;
 * every column that has a unit carries it (FIELD_<i>_UNITS, the list
 * above written from the README), and the others carry none.
 */
Test(report, strings_are_utf8_and_columns_carry_units)
{
  static const char *const tables[] = {"platforms", "workloads", "runs",
                                       "schedules/run_1/ops", "schedules/run_1/resources",
                                       "schedules/run_1/edges", "validation"};
  struct acs_results *r = open_ok("acsim run -w caf\xc3\xa9.csv");
  struct acs_results_data data;
  struct acs_schedule s, back;
  struct acs_workload_row w;
  struct acs_run_row row;
  struct acs_platform p;
  struct acs_diag d;
  hid_t f;

  cmx_schedule(&s);
  platform(&p, "npu-\xc3\xa9t\xc3\xa9", 1);
  workload(&w, "caf\xc3\xa9", 1);
  run_row(&row, -1, -1, 0);
  snprintf(row.message, sizeof(row.message), "note: \xe2\x89\xa4 bound");
  cr_assert_eq(acs_results_add_platform(r, &p, &row.platform_id), ACS_OK);
  cr_assert_eq(acs_results_add_workload(r, &w, &row.workload_id), ACS_OK);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  add_validation_row(r);
  commit_ok(r);

  f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  cr_assert_geq(f, 0);
  for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
    cr_assert_gt(assert_strings_utf8(f, tables[i]), 0, "/%s has no string column", tables[i]);
  assert_units(f);
  H5Fclose(f);

  read_ok(&data);
  cr_assert_str_eq(data.platforms[0].plat.name, "npu-\xc3\xa9t\xc3\xa9");
  cr_assert_str_eq(data.workloads[0].name, "caf\xc3\xa9");
  cr_assert_str_eq(data.runs[0].message, "note: \xe2\x89\xa4 bound");
  cr_assert_str_eq(data.command_line, "acsim run -w caf\xc3\xa9.csv");
  acs_results_data_free(&data);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read_schedule(file, 1, &back, &d), ACS_OK, "%s", d.msg);
  cr_assert_str_eq(back.ops[0].name, "d\xc3\xa9" "bruitage");
  tu_assert_verified(&back);
  acs_schedule_destroy(&back);
  acs_schedule_destroy(&s);
}

/*
 * A file written before strings were tagged UTF-8 and columns had units
 * (tests/data/report/ascii-v1.h5, see tests/data/README.md): it reads as
 * it is, UTF-8 bytes in ASCII-tagged columns included; appending to it
 * retags the tables it appends to as UTF-8 and adds their units, keeping
 * every old row; its old schedules still read and verify.
 */
Test(report, older_ascii_file_reads_and_upgrades_on_append)
{
  struct acs_validation_row *vrows;
  struct acs_results_data data;
  struct acs_schedule s;
  struct acs_results *r;
  struct acs_run_row row;
  struct acs_diag d;
  size_t n, nv;
  char *bytes = slurp(tu_path("tests/data/report/ascii-v1.h5"), &n);
  hid_t f;

  spit(file, bytes, n);
  free(bytes);
  f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  cr_assert_eq(column_cset(f, "runs", "scheduler"), H5T_CSET_ASCII, "not an old file");
  cr_assert_eq(column_cset(f, "validation", "set"), H5T_CSET_ASCII, "not an old file");
  H5Fclose(f);

  read_ok(&data);
  cr_assert_eq(data.nruns, 3);
  cr_assert_str_eq(data.workloads[0].name, "pipeline_\xc3\xa9");
  cr_assert_str_eq(data.runs[1].scheduler, "spill");
  acs_results_data_free(&data);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read_schedule(file, 1, &s, &d), ACS_OK, "%s", d.msg);
  cr_assert_str_eq(s.ops[2].name, "d\xc3\xa9" "bruitage");
  tu_assert_verified(&s);
  acs_schedule_destroy(&s);
  cr_assert_eq(acs_validation_read(file, &vrows, &nv, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(nv, 1);
  cr_assert_str_eq(vrows[0].set, "psplib/j30");
  free(vrows);

  /* Append a run with a schedule and a validation row. */
  r = open_ok("append");
  cmx_schedule(&s);
  run_row(&row, 1, 1, 0);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  add_validation_row(r);
  commit_ok(r);
  acs_schedule_destroy(&s);

  f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  assert_strings_utf8(f, "platforms");
  assert_strings_utf8(f, "workloads");
  assert_strings_utf8(f, "runs");
  assert_strings_utf8(f, "validation");
  assert_strings_utf8(f, "schedules/run_4/ops");
  cr_assert_eq(column_cset(f, "schedules/run_1/ops", "op"), H5T_CSET_ASCII,
               "a schedule group is written once and left as it is");
  {
    char unit[64];
    column_unit(f, "runs", "makespan_cycles", unit, sizeof(unit));
    cr_assert_str_eq(unit, "cycles");
    column_unit(f, "platforms", "cmx_kib", unit, sizeof(unit));
    cr_assert_str_eq(unit, "KiB");
    column_unit(f, "validation", "time_limit", unit, sizeof(unit));
    cr_assert_str_eq(unit, "seconds");
    column_unit(f, "schedules/run_4/ops", "demand_cmx", unit, sizeof(unit));
    cr_assert_str_eq(unit, "bytes");
    column_unit(f, "schedules/run_1/ops", "start", unit, sizeof(unit));
    cr_assert_str_eq(unit, "", "old schedule groups have no units");
  }
  H5Fclose(f);

  read_ok(&data);
  cr_assert_eq(data.nruns, 4);
  cr_assert_eq(data.runs[3].run_id, 4);
  cr_assert_str_eq(data.workloads[0].name, "pipeline_\xc3\xa9");
  cr_assert_str_eq(data.runs[0].scheduler, "list");
  cr_assert_str_eq(data.runs[1].scheduler, "spill");
  acs_results_data_free(&data);
  cr_assert_eq(acs_results_read_schedule(file, 2, &s, &d), ACS_OK, "%s", d.msg);
  tu_assert_verified(&s);
  acs_schedule_destroy(&s);
  cr_assert_eq(acs_results_read_schedule(file, 4, &s, &d), ACS_OK, "%s", d.msg);
  cr_assert_str_eq(s.ops[0].name, "d\xc3\xa9" "bruitage");
  acs_schedule_destroy(&s);
  cr_assert_eq(acs_validation_read(file, &vrows, &nv, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(nv, 2);
  cr_assert_eq(vrows[1].validation_id, 2);
  cr_assert_str_eq(vrows[0].set, "psplib/j30");
  free(vrows);
}

/*
 * A unit the file lacks (one a later acsim gives an existing column) is
 * added when a writer opens it and survives checkpoints, which publish the
 * two files of the writer in turn (the second one is brought up to date by
 * copying rows, and the units it lacks).
 */
Test(report, units_added_on_open_survive_checkpoints)
{
  struct acs_results *r;
  struct acs_run_row row;
  struct acs_diag d;
  char unit[64];
  hid_t f, ds;
  int idx;

  write_hand_file();
  f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
  ds = H5Dopen2(f, "runs", H5P_DEFAULT);
  {
    hid_t t = H5Dget_type(ds);
    char attr[32];
    idx = H5Tget_member_index(t, "lower_bound_cycles");
    H5Tclose(t);
    snprintf(attr, sizeof(attr), "FIELD_%d_UNITS", idx);
    cr_assert_geq(H5Adelete(ds, attr), 0);
  }
  H5Dclose(ds);
  column_unit(f, "runs", "lower_bound_cycles", unit, sizeof(unit));
  cr_assert_str_eq(unit, "");
  H5Fclose(f);

  r = open_ok("later acsim");
  acs_diag_init(&d);
  for (int k = 0; k < 3; k++) {
    run_row(&row, 1, -1, k & 1);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
    f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    column_unit(f, "runs", "lower_bound_cycles", unit, sizeof(unit));
    H5Fclose(f);
    cr_assert_str_eq(unit, "cycles", "checkpoint %d published a file without the unit", k + 1);
  }
  commit_ok(r);
  f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  column_unit(f, "runs", "lower_bound_cycles", unit, sizeof(unit));
  H5Fclose(f);
  cr_assert_str_eq(unit, "cycles");
}

/* ---- scale ---- */

Test(report, schedule_of_1e5_ops_round_trips)
{
  enum { N = 100000 };
  struct acs_results *r = open_ok("big");
  struct acs_schedule s, back;
  struct acs_run_row row;
  struct acs_sop op;
  struct acs_diag d;
  char name[32];
  double t0, t1;

  acs_schedule_init(&s);
  s.nres = 1;
  s.res_name[0] = "pe";
  s.res_cap[0] = 1;
  s.res_pe = 0;
  s.norig = N;
  for (int32_t i = 0; i < N; i++) {
    memset(&op, 0, sizeof(op));
    snprintf(name, sizeof(name), "op%d", i);
    op.name = name;
    op.kind = ACS_OP_DPU;
    op.unit = 0;
    op.start = 3 * (int64_t)i;
    op.dur = 3;
    op.end = op.start + 3;
    op.slots = 1;
    op.cmx_offset = op.cmx_bytes = -1;
    op.cmx_alloc = op.cmx_free = NAN;
    op.update_barrier = -1;
    op.sim_start = op.sim_end = NAN;
    cr_assert_eq(acs_schedule_add_op(&s, &op), i);
    acs_schedule_set_demand(&s, i, 0, 1);
    if (i > 0)
      acs_schedule_add_edge(&s, i - 1, i, ACS_EDGE_DATA);
  }
  acs_schedule_finish(&s);
  run_row(&row, -1, -1, 0);
  t0 = acs_now_seconds();
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  t1 = acs_now_seconds();
  commit_ok(r);
  cr_log_info("writing 1e5 ops took %.3f s (commit %.3f s)", t1 - t0, acs_now_seconds() - t1);

  acs_diag_init(&d);
  t0 = acs_now_seconds();
  cr_assert_eq(acs_results_read_schedule(file, row.run_id, &back, &d), ACS_OK, "%s", d.msg);
  cr_log_info("reading 1e5 ops took %.3f s", acs_now_seconds() - t0);
  cr_assert_eq(back.nops, N);
  cr_assert_eq(back.nedges, N - 1);
  cr_assert_eq(back.makespan, 3 * (int64_t)N);
  cr_assert_str_eq(back.ops[0].name, "op0");
  cr_assert_str_eq(back.ops[N - 1].name, "op99999");
  cr_assert_eq(back.ops[54321].start, 3 * 54321);
  cr_assert_eq(back.ops[54321].end, 3 * 54321 + 3);
  cr_assert_eq(acs_schedule_demand(&back, 77777, 0), 1);
  cr_assert_eq(back.edges[N - 2].src, N - 2);
  cr_assert_eq(back.edges[N - 2].dst, N - 1);
  tu_assert_verified(&back);
  acs_schedule_destroy(&back);
  acs_schedule_destroy(&s);
}
