/*
 * test-report-tables.c - HDF5 results, schema 1: status names and rows,
 * round trips of every table and of schedules (which must still verify),
 * memory models in the study's answers, appends, a 10^5-op schedule.
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

TestSuite(report, .init = setup, .fini = teardown);

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

  report_platform(&p[0], "default", 4);
  report_platform(&p[1], "big", 8);
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

  results_read_ok(&data);
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
  report_platform(&p, "p", 4);
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
  results_read_ok(&data);
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
    report_platform(&p, name, 4);
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
  report_platform(&p, "default", 4);
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
  results_read_ok(&data);
  snprintf(created, sizeof(created), "%s", data.created_utc);
  acs_results_data_free(&data);

  r = open_ok("second");
  cr_assert_eq(acs_results_add_platform(r, &p, &pid2), ACS_OK);
  cr_assert_eq(pid2, pid, "an identical stored platform is reused");
  cr_assert_eq(acs_results_add_workload(r, &w, &wid2), ACS_OK);
  cr_assert_eq(wid2, wid);
  report_platform(&q, "default", 5); /* same name, one parameter differs */
  cr_assert_eq(acs_results_add_platform(r, &q, &qid), ACS_OK);
  cr_assert_eq(qid, pid + 1);
  run_row(&row, qid, wid, 1);
  cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  cr_assert_eq(row.run_id, 3);
  commit_ok(r);

  results_read_ok(&data);
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
