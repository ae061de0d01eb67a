/*
 * test-report-units.c - HDF5 results: UTF-8 strings and the units of every
 * column; a file of an older acsim (ASCII, no units) read and upgraded on
 * append; units added on open survive checkpoints.
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
  report_platform(&p, "npu-\xc3\xa9t\xc3\xa9", 1);
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

  results_read_ok(&data);
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

  results_read_ok(&data);
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

  results_read_ok(&data);
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

