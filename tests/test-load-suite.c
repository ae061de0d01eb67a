/*
 * test-load-suite.c - suites and format dispatch.
 *
 * Expected numbers are worked out by hand in the comments; bad inputs check
 * the exact message and its line:column. Test files are in tests/data/load/
 * (provenance in tests/data/README.md).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "tests/testutil.h"

#include "tests/load_util.h"

/* ---- suites and dispatch ---- */

Test(suite, entries_resolve_against_the_suite_directory)
{
  struct acs_diag d;
  char **paths;
  size_t n;
  char want[4096];

  acs_diag_init(&d);
  cr_assert_eq(acs_suite_load(tu_path(LD("suite_good.txt")), &paths, &n, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(n, 2);
  snprintf(want, sizeof(want), "%s", tu_path(LD("dnn_two_layers.csv")));
  cr_assert_str_eq(paths[0], want);
  snprintf(want, sizeof(want), "%s", tu_path(LD("graph_good.csv")));
  cr_assert_str_eq(paths[1], want);
  acs_suite_free(paths, n);
}

Test(suite, missing_entry_is_located_at_its_line)
{
  struct acs_diag d;
  char **paths;
  size_t n;
  acs_diag_init(&d);
  int rc = acs_suite_load(tu_path(LD("suite_missing.txt")), &paths, &n, &d);
  cr_assert_eq(rc, ACS_ENOTFOUND);
  cr_assert_null(paths);
  /* `  no_such.csv` on line 3: the entry starts at column 3 */
  cr_assert_eq(d.line, 3);
  cr_assert_eq(d.col, 3);
  char want[4096];
  snprintf(want, sizeof(want), "no such workload 'no_such.csv' (looked for "
           "'%s': No such file or directory)", tu_path(LD("no_such.csv")));
  cr_assert_str_eq(d.msg, want);
}

Test(suite, parent_steps_stop_at_relative_roots)
{
  /* A suite given as a bare relative path keeps its "../" (nothing to
   * cancel), and "./" or ".." directory parts are never cancelled. */
  const char *dir = tu_tmpdir();
  char sub[512], suite[600], wl[600], want[700];
  struct acs_diag d;
  char **paths;
  size_t n;
  FILE *f;
  snprintf(sub, sizeof(sub), "%s/a", dir);
  cr_assert_eq(mkdir(sub, 0700), 0);
  snprintf(wl, sizeof(wl), "%s/x.stg", dir);
  f = fopen(wl, "w");
  cr_assert_not_null(f);
  fputs("1\n0 0 0\n1 5 1 0\n2 0 1 1\n", f);
  fclose(f);
  snprintf(suite, sizeof(suite), "%s/a/../a/s.txt", dir);
  f = fopen(suite, "w");
  cr_assert_not_null(f);
  fputs("../x.stg\n", f);
  fclose(f);
  acs_diag_init(&d);
  cr_assert_eq(acs_suite_load(suite, &paths, &n, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 1);
  snprintf(want, sizeof(want), "%s/a/../x.stg", dir);
  cr_assert_str_eq(paths[0], want);
  acs_suite_free(paths, n);
}

Test(suite, suite_without_entries_is_an_error)
{
  struct acs_diag d;
  char **paths;
  size_t n;
  acs_diag_init(&d);
  int rc = acs_suite_load(tu_path(LD("suite_empty.txt")), &paths, &n, &d);
  expect_diag(rc, ACS_EPARSE, &d, LD("suite_empty.txt"), 1, 1,
              "suite lists no workloads");
}

Test(suite, default_suite_loads_and_builds)
{
  struct acs_diag d;
  char **paths;
  size_t n;
  acs_diag_init(&d);
  cr_assert_eq(acs_suite_load(tu_path("workloads/suites/default.txt"), &paths, &n, &d),
               ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 4);
  /* "../onnx/alexnet.onnx" in workloads/suites/ collapses to workloads/onnx/. */
  cr_assert_str_eq(paths[0], tu_path("workloads/onnx/alexnet.onnx"));
  cr_assert_str_eq(paths[3], tu_path("workloads/graphs/resnet_block_chain.csv"));
  for (size_t i = 0; i < n; i++) {
    struct acs_workload *wl;
    struct acs_graph g;
    struct acs_platform p;
    acs_diag_init(&d);
    cr_assert_eq(acs_workload_load(paths[i], &wl, &d), ACS_OK, "%s: %s", paths[i], d.msg);
    cr_assert_eq(d.nwarn, 0, "%s warns (the default suite must not)", paths[i]);
    platform(&p, NULL);
    cr_assert_eq(acs_workload_build(wl, &p, &g, &d), ACS_OK, "%s: %s", paths[i], d.msg);
    acs_graph_destroy(&g);
    acs_workload_free(wl);
  }
  acs_suite_free(paths, n);
}

Test(workload, format_follows_extension_and_header)
{
  static const struct { const char *rel; int kind; const char *name; } cases[] = {
    { LD("dnn_two_layers.csv"), ACS_WL_DNN, "dnn_two_layers" },
    { LD("dnn_quirks.csv"), ACS_WL_DNN, "dnn_quirks" },     /* BOM before header */
    { LD("graph_good.csv"), ACS_WL_GRAPH, "graph_good" },
    { LD("j301_1.sm"), ACS_WL_PSPLIB, "j301_1" },
    { LD("stg_small.stg"), ACS_WL_STG, "stg_small" },
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
    struct warns w;
    struct acs_workload *wl = load_ok(cases[k].rel, &w);
    cr_assert_eq(wl->kind, cases[k].kind, "%s", cases[k].rel);
    cr_assert_str_eq(wl->name, cases[k].name);
    acs_workload_free(wl);
  }
  cr_assert_str_eq(acs_wl_kind_name(ACS_WL_DNN), "dnn");
  cr_assert_str_eq(acs_wl_kind_name(ACS_WL_GRAPH), "graph");
  cr_assert_str_eq(acs_wl_kind_name(ACS_WL_PSPLIB), "psplib");
  cr_assert_str_eq(acs_wl_kind_name(ACS_WL_STG), "stg");
}

Test(workload, unknown_extension_is_an_error)
{
  workload_fails(LD("graph_bad_ext.txt"), ACS_EFORMAT, 0, 0,
                 "unknown workload format '.txt' (expected .csv, .sm, .stg, .onnx, "
                 ".graphml, .xml or .sare)");
}

Test(workload, a_directory_says_what_to_give_instead)
{
  /* tests/data/onnx is a folder whose name alone says nothing wrong; with
   * an extension the message would otherwise blame the format. */
  workload_fails("tests/data/onnx", ACS_EINVAL, 0, 0,
                 "is a directory; give a workload file (.onnx, .csv, .sm, .stg, .graphml, "
                 ".xml or .sare) or a suite (.txt) listing several");
}

Test(workload, missing_file_is_an_io_error)
{
  struct acs_diag d;
  struct acs_workload *wl;
  acs_diag_init(&d);
  int rc = acs_workload_load(tu_path(LD("no_such.sm")), &wl, &d);
  cr_assert_eq(rc, ACS_EIO);
  cr_assert_str_eq(d.msg, "cannot open: No such file or directory");
}

Test(workload, built_graphs_are_independent_copies)
{
  struct warns w;
  struct acs_graph a, b;
  struct acs_workload *wl = load_ok(LD("stg_small.stg"), &w);

  build_ok(wl, NULL, &a);
  build_ok(wl, NULL, &b);
  acs_graph_destroy(&a);
  cr_assert_eq(b.nops, 5);
  cr_assert_str_eq(b.ops[op(&b, "t3")].name, "t3");
  acs_graph_destroy(&b);
  acs_workload_free(wl);
}

