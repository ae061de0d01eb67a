/*
 * test-report-files.c - HDF5 results: malformed and foreign files, replaced
 * runs across checkpoints, the workload digest column, older tables read and
 * upgraded (schema evolution).
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
  report_platform(&p, "default", 4);
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

  results_read_ok(&data);
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
  results_read_ok(&data);
  cr_assert_eq(data.nworkloads, 2);
  cr_assert_str_eq(data.workloads[0].digest, w[0].digest);
  cr_assert_str_eq(data.workloads[1].digest, w[1].digest);
  acs_results_data_free(&data);
}

/* Tables are laid out as H5TB lays out a table (PyTables and H5TB read
 * them as theirs), and compressed: shuffled, then deflated. */
Test(report, tables_have_the_h5tb_layout_and_are_compressed)
{
  struct acs_results *r = open_ok("layout");
  struct acs_workload_row w;
  char cls[16] = "", field[64] = "";
  hsize_t nfields = 0, nrecords = 0;
  int32_t id;
  hid_t f, d, dcpl;

  workload(&w, "net", 10);
  cr_assert_eq(acs_results_add_workload(r, &w, &id), ACS_OK);
  commit_ok(r);
  cr_assert_geq(f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT), 0);
  cr_assert_geq(H5TBget_table_info(f, "workloads", &nfields, &nrecords), 0);
  cr_assert_eq(nrecords, 1);
  cr_assert_geq(H5LTget_attribute_string(f, "workloads", "CLASS", cls), 0);
  cr_assert_str_eq(cls, "TABLE");
  cr_assert_geq(H5LTget_attribute_string(f, "workloads", "FIELD_0_NAME", field), 0);
  cr_assert_str_eq(field, "workload_id");
  cr_assert_geq(d = H5Dopen2(f, "workloads", H5P_DEFAULT), 0);
  cr_assert_geq(dcpl = H5Dget_create_plist(d), 0);
  cr_assert_eq(H5Pget_nfilters(dcpl), 2);
  cr_assert_eq(H5Pget_filter2(dcpl, 0, NULL, NULL, NULL, 0, NULL, NULL), H5Z_FILTER_SHUFFLE);
  cr_assert_eq(H5Pget_filter2(dcpl, 1, NULL, NULL, NULL, 0, NULL, NULL), H5Z_FILTER_DEFLATE);
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Fclose(f);
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

  results_read_ok(&data);
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
  results_read_ok(&data);
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

  results_read_ok(&data);
  cr_assert_eq(data.nplatforms, 1);
  double pmem = data.platforms[0].plat.v[ACS_P_PE_PMEM_KIB];
  double def = acs_param_table[ACS_P_PE_PMEM_KIB].def;
  cr_assert_float_eq(pmem, def, 0);
  acs_results_data_free(&data);

  r = open_ok("upgrade");
  report_platform(&p, "isp", 4);
  p.v[ACS_P_PE_PMEM_KIB] = 7;
  cr_assert_eq(acs_results_add_platform(r, &p, &pid), ACS_OK);
  cr_assert_eq(pid, 2);
  commit_ok(r);

  results_read_ok(&data);
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

