/*
 * report_util.c - helpers shared by the test-report-* programs: a scratch results file per
 * test, hand-made rows and schedules, their comparisons.
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

#include "tests/report_util.h"

/* ---- helpers ---- */

char dir[256];
char file[512];

void setup(void)
{
  snprintf(dir, sizeof(dir), "%s", tu_tmpdir());
  snprintf(file, sizeof(file), "%s/results.h5", dir);
}

/* Removes the test's directory (files written there are all flat). */
void teardown(void)
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

int same_double(double a, double b)
{
  return (isnan(a) && isnan(b)) || a == b;
}

char *slurp(const char *path, size_t *n)
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

void spit(const char *path, const char *buf, size_t n)
{
  FILE *f = fopen(path, "wb");

  cr_assert_not_null(f);
  cr_assert_eq(fwrite(buf, 1, n, f), n);
  fclose(f);
}

/* Number of entries in dir besides "." and ".."; the only one must be
 * `only` when given. */
int dir_entries(const char *only)
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

struct acs_results *open_ok(const char *cmd)
{
  struct acs_results *r = NULL;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(file, cmd, &r, &d), ACS_OK, "open: %s", d.msg);
  cr_assert_not_null(r);
  return r;
}

void commit_ok(struct acs_results *r)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "commit: %s", d.msg);
}

void results_read_ok(struct acs_results_data *data)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_read(file, data, &d), ACS_OK, "read: %s", d.msg);
}

void report_platform(struct acs_platform *p, const char *name, double pe_count)
{
  acs_platform_init(p);
  snprintf(p->name, sizeof(p->name), "%s", name);
  p->v[ACS_P_PE_COUNT] = pe_count;
}

void workload(struct acs_workload_row *w, const char *name, int64_t ops)
{
  memset(w, 0, sizeof(*w));
  snprintf(w->name, sizeof(w->name), "%s", name);
  snprintf(w->path, sizeof(w->path), "workloads/dnn/%s.csv", name);
  snprintf(w->kind, sizeof(w->kind), "dnn");
  w->ops = ops;
  w->edges = 2 * ops;
}

/* A run with a distinct value in every field; NaNs where `nan` says. */
void run_row(struct acs_run_row *row, int32_t pid, int32_t wid, int variant)
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

void assert_run_eq(const struct acs_run_row *a, const struct acs_run_row *b)
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
void hand_schedule(struct acs_schedule *s)
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

void assert_schedule_eq(const struct acs_schedule *a, const struct acs_schedule *b)
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
int64_t write_hand_file(void)
{
  struct acs_results *r = open_ok("acsim run -o results.h5");
  struct acs_schedule s;
  struct acs_run_row row;
  struct acs_platform p;
  int32_t pid;

  hand_schedule(&s);
  report_platform(&p, "default", 4);
  cr_assert_eq(acs_results_add_platform(r, &p, &pid), ACS_OK);
  run_row(&row, pid, -1, 0);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  commit_ok(r);
  acs_schedule_destroy(&s);
  return row.run_id;
}

void expect_format_error(const char *path, const char *want)
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

