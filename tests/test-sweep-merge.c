/*
 * test-sweep-merge.c - run identities and `acsim merge` on hand-built files
 * (report/runkey.c, report/merge.c).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
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

TestSuite(merge, .init = tu_scratch_init);

Test(merge, run_key_tells_options_and_parameters_apart)
{
  struct acs_platform p, q;
  char a[ACS_RUN_KEY_MAX], b[ACS_RUN_KEY_MAX];

  acs_platform_init(&p);
  q = p;
  acs_run_key(&p, "net", "dnn", NULL, "list", "", ACS_KEY_NAME | ACS_KEY_PARAMS, a);
  acs_run_key(&q, "net", "dnn", NULL, "list", "", ACS_KEY_NAME | ACS_KEY_PARAMS, b);
  cr_assert_str_eq(a, b);
  acs_run_key(&q, "net", "dnn", NULL, "list", "rule=lpath", ACS_KEY_NAME | ACS_KEY_PARAMS, b);
  cr_assert_str_neq(a, b);
  q.v[ACS_P_DDR_RATIO] = nextafter(4.0, 5.0); /* one ulp apart is another platform */
  acs_run_key(&q, "net", "dnn", NULL, "list", "", ACS_KEY_NAME | ACS_KEY_PARAMS, b);
  cr_assert_str_neq(a, b);
  /* By name only, the parameters do not matter. */
  acs_run_key(&p, "net", "dnn", NULL, "list", "", ACS_KEY_NAME, a);
  acs_run_key(&q, "net", "dnn", NULL, "list", "", ACS_KEY_NAME, b);
  cr_assert_str_eq(a, b);
}

/* A run's platform and workload by id, whatever id a file holds: the
 * lowest int32 is no index (taking 1 from it overflowed). */
Test(merge, platform_and_workload_of_any_id)
{
  struct acs_platform_row plats[2] = {{.platform_id = 1}, {.platform_id = INT32_MIN}};
  struct acs_workload_row wls[1] = {{.workload_id = 1}};
  struct acs_results_data data = {.platforms = plats, .nplatforms = 2, .workloads = wls,
                                  .nworkloads = 1};
  struct acs_run_row r = {.platform_id = INT32_MIN, .workload_id = INT32_MIN};

  cr_assert_eq(acs_results_platform_of(&data, &r), &plats[1]);
  cr_assert_null(acs_results_workload_of(&data, &r));
  r.platform_id = 1;
  r.workload_id = 1;
  cr_assert_eq(acs_results_platform_of(&data, &r), &plats[0]);
  cr_assert_eq(acs_results_workload_of(&data, &r), &wls[0]);
}

Test(merge, keyset_adds_finds_and_grows)
{
  struct acs_keyset *ks = acs_keyset_new();
  char key[32];
  int64_t v;

  cr_assert_not_null(ks);
  for (int i = 0; i < 1000; i++) {
    snprintf(key, sizeof(key), "k%d", i);
    cr_assert_eq(acs_keyset_add(ks, key, i, NULL), 0);
  }
  cr_assert_eq(acs_keyset_add(ks, "k17", 99, &v), 1);
  cr_assert_eq(v, 17);
  cr_assert_eq(acs_keyset_get(ks, "k999", &v), 1);
  cr_assert_eq(v, 999);
  cr_assert_eq(acs_keyset_get(ks, "k1000", NULL), 0);
  cr_assert_eq(acs_keyset_size(ks), 1000);
  acs_keyset_free(ks);
}

Test(merge, shards_join_into_one_table)
{
  const int a[] = {128, 512}, b[] = {256, 1024};
  const char *in[2];
  struct acs_merge_stats st;
  struct acs_results_data data;
  struct acs_diag d;

  write_study(tu_at("a.h5"), a, 2, "list", 1000);
  write_study(tu_at("b.h5"), b, 2, "list", 1000);
  in[0] = tu_at("a.h5");
  in[1] = tu_at("b.h5");
  acs_diag_init(&d);
  cr_assert_eq(acs_merge(in, 2, tu_at("all.h5"), "merge", &st, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(st.runs, 4);
  cr_assert_eq(st.inputs, 2);
  results_file_read_ok(tu_at("all.h5"), &data);
  cr_assert_eq(data.nruns, 4);
  cr_assert_eq(data.nplatforms, 4);
  cr_assert_eq(data.nworkloads, 1); /* the same workload row is stored once */
  for (size_t i = 0; i < 4; i++) {
    const struct acs_platform_row *p = acs_results_platform_of(&data, &data.runs[i]);
    double want = 1000 + p->plat.v[ACS_P_CMX_KIB] + 0.5, got = data.runs[i].sim_makespan_cycles;
    cr_assert_float_eq(got, want, 0, "run %zu", i);
  }
  acs_results_data_free(&data);
}

Test(merge, duplicated_run_is_refused_and_nothing_written)
{
  const int a[] = {128, 512}, b[] = {256, 512};
  const char *in[2];
  struct acs_merge_stats st;
  struct acs_diag d;

  write_study(tu_at("a.h5"), a, 2, "list", 1000);
  write_study(tu_at("b.h5"), b, 2, "list", 1000);
  in[0] = tu_at("a.h5");
  in[1] = tu_at("b.h5");
  acs_diag_init(&d);
  cr_assert_eq(acs_merge(in, 2, tu_at("all.h5"), "merge", &st, &d), ACS_EINVAL);
  cr_assert(strstr(d.msg, "run 2 (list on default[cmx_kib=512], workload net) duplicates run 2 of"),
            "%s", d.msg);
  cr_assert_eq(file_size(tu_at("all.h5")), -1);
  /* Into an existing file: a run it holds counts as a duplicate too, and the
   * file stays byte for byte as it was. */
  write_study(tu_at("all.h5"), b, 2, "list", 1000);
  {
    long before = file_size(tu_at("all.h5"));
    cr_assert_eq(acs_merge(in + 1, 1, tu_at("all.h5"), "merge", &st, &d), ACS_EINVAL);
    cr_assert_eq(file_size(tu_at("all.h5")), before);
  }
  /* Another scheduler is another run. */
  write_study(tu_at("c.h5"), a, 2, "sequential", 1000);
  in[0] = tu_at("c.h5");
  cr_assert_eq(acs_merge(in, 1, tu_at("all.h5"), "merge", &st, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(st.existing, 2);
}

Test(merge, other_schema_is_refused)
{
  const int a[] = {128};
  const char *in[2];
  struct acs_merge_stats st;
  struct acs_diag d;
  hid_t f, att, sp;
  int v = 2;

  write_study(tu_at("a.h5"), a, 1, "list", 1000);
  write_study(tu_at("b.h5"), a, 1, "sequential", 1000);
  f = H5Fopen(tu_at("b.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
  cr_assert_geq(f, 0);
  cr_assert_geq(H5Adelete(f, "schema_version"), 0);
  sp = H5Screate(H5S_SCALAR);
  att = H5Acreate2(f, "schema_version", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
  cr_assert_geq(H5Awrite(att, H5T_NATIVE_INT, &v), 0);
  H5Aclose(att);
  H5Sclose(sp);
  H5Fclose(f);
  in[0] = tu_at("a.h5");
  in[1] = tu_at("b.h5");
  acs_diag_init(&d);
  cr_assert_eq(acs_merge(in, 2, tu_at("all.h5"), "merge", &st, &d), ACS_EFORMAT);
  cr_assert(strstr(d.msg, "schema_version 2"), "%s", d.msg);
  cr_assert_eq(file_size(tu_at("all.h5")), -1);
}

Test(merge, input_that_is_the_output_is_refused)
{
  const int a[] = {128};
  const char *in[1];
  struct acs_merge_stats st;
  struct acs_diag d;

  write_study(tu_at("a.h5"), a, 1, "list", 1000);
  in[0] = tu_at("a.h5");
  acs_diag_init(&d);
  cr_assert_eq(acs_merge(in, 1, tu_at("a.h5"), "merge", &st, &d), ACS_EINVAL);
  cr_assert(strstr(d.msg, "is the output"), "%s", d.msg);
}

Test(merge, schedules_come_along)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s, back;
  struct acs_results *r;
  struct acs_run_row row;
  struct acs_workload_row w;
  struct acs_merge_stats st;
  struct acs_results_data data;
  struct acs_diag d;
  const char *in[1];

  schedule_of(&g, &pb, &s);
  s.nwaits = 0; /* the wait above refers to no barrier anyone updates */
  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(tu_at("a.h5"), "t", &r, &d), ACS_OK);
  memset(&w, 0, sizeof(w));
  snprintf(w.name, sizeof(w.name), "w");
  snprintf(w.kind, sizeof(w.kind), "graph");
  acs_run_row_init(&row);
  cr_assert_eq(acs_results_add_platform(r, &pb.plat, &row.platform_id), ACS_OK);
  cr_assert_eq(acs_results_add_workload(r, &w, &row.workload_id), ACS_OK);
  snprintf(row.scheduler, sizeof(row.scheduler), "list");
  snprintf(row.status, sizeof(row.status), "ok");
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK);
  in[0] = tu_at("a.h5");
  cr_assert_eq(acs_merge(in, 1, tu_at("all.h5"), "merge", &st, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(st.schedules, 1);
  results_file_read_ok(tu_at("all.h5"), &data);
  cr_assert_eq(acs_results_read_schedule(tu_at("all.h5"), data.runs[0].run_id, &back, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(back.nops, s.nops);
  cr_assert_eq(back.makespan, s.makespan);
  tu_assert_verified(&back);
  acs_schedule_destroy(&back);
  acs_results_data_free(&data);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

