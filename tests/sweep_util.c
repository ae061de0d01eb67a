/*
 * sweep_util.c - helpers shared by the test-sweep-* programs: results files
 * of hand-built runs, read back.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep/wire.h"
#include "core/load/load.h"
#include "core/sched/sched.h"
#include "report/report.h"
#include "tests/testutil.h"

#include "tests/sweep_util.h"

void schedule_of(struct acs_graph *g, struct acs_problem *pb, struct acs_schedule *s)
{
  const struct acs_sched_ops *ops = acs_sched_find("list");
  struct acs_sched_ctx ctx = {1, 0, NULL, NULL, 0};
  void *opts;
  struct acs_diag d;

  tu_graph_npu(g, "w");
  int32_t a = tu_op(g, "load", ACS_OP_DMA, 50);
  int32_t b = tu_op(g, "conv", ACS_OP_DPU, 100);
  int32_t c = tu_op(g, "pool", ACS_OP_DPU, 30);
  int32_t e = tu_op(g, "store", ACS_OP_DMA, 40);
  tu_edge(g, a, b);
  tu_edge(g, a, c);
  tu_edge(g, b, e);
  tu_edge(g, c, e);
  tu_finalize(g);
  tu_problem(pb, g, NULL);
  cr_assert_eq(acs_schedule_init_problem(s, pb), ACS_OK);
  opts = calloc(1, ops->opts_size + 1);
  acs_sched_opts_defaults(ops, opts);
  acs_diag_init(&d);
  cr_assert_eq(ops->schedule(pb, opts, &ctx, s, &d), ACS_OK, "%s", d.msg);
  free(opts);
  /* Things a scheduler may add: a control edge (a ends before e starts
   * anyway), a wait, simulated times. */
  cr_assert_eq(acs_schedule_add_edge(s, a, e, ACS_EDGE_CONTROL), ACS_OK);
  cr_assert_eq(acs_schedule_add_wait(s, e, 3), ACS_OK);
  s->ops[1].sim_start = 0.5;
  s->ops[1].sim_end = 101.25;
  tu_sample_rtabs(s);
}

/* A file of runs of workload "net" (with content digest `digest`, NULL for
 * none, as acsim wrote before the column) on platform variants named after
 * cmx sizes, one run per (cmx, scheduler) given. */
void write_study_of(const char *path, const int *cmx, size_t n, const char *sched,
                           double makespan, const char *digest)
{
  struct acs_results *r;
  struct acs_workload_row w;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(path, "test", &r, &d), ACS_OK, "%s", d.msg);
  memset(&w, 0, sizeof(w));
  snprintf(w.name, sizeof(w.name), "net");
  snprintf(w.path, sizeof(w.path), "net.csv");
  snprintf(w.kind, sizeof(w.kind), "graph");
  w.ops = 4;
  w.edges = 4;
  snprintf(w.digest, sizeof(w.digest), "%s", digest ? digest : "");
  for (size_t i = 0; i < n; i++) {
    struct acs_platform p;
    struct acs_run_row row;
    acs_platform_init(&p);
    p.v[ACS_P_CMX_KIB] = cmx[i];
    snprintf(p.name, sizeof(p.name), "default[cmx_kib=%d]", cmx[i]);
    acs_run_row_init(&row);
    cr_assert_eq(acs_results_add_platform(r, &p, &row.platform_id), ACS_OK);
    cr_assert_eq(acs_results_add_workload(r, &w, &row.workload_id), ACS_OK);
    snprintf(row.scheduler, sizeof(row.scheduler), "%s", sched);
    snprintf(row.status, sizeof(row.status), "ok");
    row.makespan_cycles = makespan + cmx[i];
    row.sim_makespan_cycles = makespan + cmx[i] + 0.5;
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  }
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "%s", d.msg);
}

void write_study(const char *path, const int *cmx, size_t n, const char *sched,
                        double makespan)
{
  write_study_of(path, cmx, n, sched, makespan, NULL);
}

void results_file_read_ok(const char *path, struct acs_results_data *data)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_read(path, data, &d), ACS_OK, "%s", d.msg);
}

long file_size(const char *path)
{
  struct stat st;

  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

