/*
 * test-compare.c - `acsim compare` (report/compare.c) and `acsim report`
 * (report/html.c, plots.c) on hand-built results files: every expected
 * classification and percentage is worked out from the values written here.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sched/sched.h"
#include "report/report.h"
#include "tests/testutil.h"

/* One run of a hand-built file. */
struct spec {
  const char *platform;   /* variant name */
  double cmx, barriers;   /* its parameters */
  const char *workload, *sched, *status;
  double sim;             /* sim_makespan_cycles (NaN: not simulated) */
  double pe_util;
};

static void write_file(const char *path, const struct spec *sp, size_t n)
{
  struct acs_results *r;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(path, "test", &r, &d), ACS_OK, "%s", d.msg);
  for (size_t i = 0; i < n; i++) {
    struct acs_platform p;
    struct acs_workload_row w;
    struct acs_run_row row;
    acs_platform_init(&p);
    snprintf(p.name, sizeof(p.name), "%s", sp[i].platform);
    p.v[ACS_P_CMX_KIB] = sp[i].cmx;
    p.v[ACS_P_BARRIERS] = sp[i].barriers;
    memset(&w, 0, sizeof(w));
    snprintf(w.name, sizeof(w.name), "%s", sp[i].workload);
    snprintf(w.path, sizeof(w.path), "%s.csv", sp[i].workload);
    snprintf(w.kind, sizeof(w.kind), "dnn");
    w.ops = 10;
    w.edges = 9;
    acs_run_row_init(&row);
    cr_assert_eq(acs_results_add_platform(r, &p, &row.platform_id), ACS_OK);
    cr_assert_eq(acs_results_add_workload(r, &w, &row.workload_id), ACS_OK);
    snprintf(row.scheduler, sizeof(row.scheduler), "%s", sp[i].sched);
    snprintf(row.status, sizeof(row.status), "%s", sp[i].status);
    if (strcmp(sp[i].status, "ok") == 0) {
      row.makespan_cycles = sp[i].sim > 0 ? floor(sp[i].sim * 0.99) : 1000;
      row.sim_makespan_cycles = sp[i].sim;
      row.lower_bound_cycles = 500;
      row.pe_utilization = sp[i].pe_util;
      row.ddr_bytes = 1 << 20;
      row.spill_bytes = 0;
    } else {
      snprintf(row.message, sizeof(row.message), "it broke");
    }
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  }
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "%s", d.msg);
}

static void compare(const struct spec *base, size_t nb, const struct spec *head, size_t nh,
                    const struct acs_compare_opts *o, struct acs_compare_result *res)
{
  struct acs_results_data b, h;
  struct acs_diag d;

  write_file(tu_at("base.h5"), base, nb);
  write_file(tu_at("head.h5"), head, nh);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read(tu_at("base.h5"), &b, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_results_read(tu_at("head.h5"), &h, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_compare_data(&b, &h, o, res, &d), ACS_OK, "%s", d.msg);
  acs_results_data_free(&b);
  acs_results_data_free(&h);
}

static const struct acs_compare_opts defaults = {NULL, 0.01, ACS_KEY_NAME};

#define P128 "p[cmx_kib=128]", 128, 0
#define P256 "p[cmx_kib=256]", 256, 0

TestSuite(compare, .init = tu_scratch_init);

Test(compare, identical_files_have_nothing_to_report)
{
  const struct spec s[] = {{P128, "net", "list", "ok", 1000, 0.5},
                           {P256, "net", "list", "infeasible", NAN, NAN}};
  struct acs_compare_result r;

  compare(s, 2, s, 2, &defaults, &r);
  cr_assert_eq(r.matched, 2);
  cr_assert_eq(r.count[ACS_CMP_SAME], 2);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION] + r.count[ACS_CMP_IMPROVEMENT] +
                   r.count[ACS_CMP_CHANGE] + r.count[ACS_CMP_MISSING] + r.count[ACS_CMP_NEW], 0);
  acs_compare_free(&r);
}

Test(compare, five_percent_slower_is_a_regression)
{
  const struct spec b[] = {{P128, "net", "list", "ok", 2000, 0.5}};
  const struct spec h[] = {{P128, "net", "list", "ok", 2100, 0.5}};
  struct acs_compare_result r;

  compare(b, 1, h, 1, &defaults, &r);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 1);
  cr_assert_eq(r.items[0].kind, ACS_CMP_REGRESSION);
  {
    double change = r.items[0].change; /* (2100 - 2000) / 2000 */
    cr_assert_float_eq(change, 0.05, 1e-12);
  }
  cr_assert_str_eq(r.items[0].platform, "p[cmx_kib=128]");
  acs_compare_free(&r);
}

Test(compare, half_a_percent_is_within_one_percent)
{
  const struct spec b[] = {{P128, "net", "list", "ok", 2000, 0.5},
                           {P256, "net", "list", "ok", 2000, 0.5}};
  const struct spec h[] = {{P128, "net", "list", "ok", 2010, 0.5},
                           {P256, "net", "list", "ok", 1990, 0.5}};
  struct acs_compare_result r;

  compare(b, 2, h, 2, &defaults, &r);
  cr_assert_eq(r.count[ACS_CMP_SAME], 2);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 0);
  cr_assert_eq(r.count[ACS_CMP_IMPROVEMENT], 0);
  acs_compare_free(&r);
  /* The same 0.5% under a 0.25% tolerance is one of each. */
  {
    struct acs_compare_opts o = {NULL, 0.0025, ACS_KEY_NAME};
    compare(b, 2, h, 2, &o, &r);
    cr_assert_eq(r.count[ACS_CMP_REGRESSION], 1);
    cr_assert_eq(r.count[ACS_CMP_IMPROVEMENT], 1);
    acs_compare_free(&r);
  }
}

Test(compare, a_run_that_became_error_is_a_regression)
{
  const struct spec b[] = {{P128, "net", "list", "ok", 2000, 0.5},
                           {P256, "net", "list", "infeasible", NAN, NAN}};
  const struct spec h[] = {{P128, "net", "list", "error", NAN, NAN},
                           {P256, "net", "list", "error", NAN, NAN}};
  struct acs_compare_result r;

  compare(b, 2, h, 2, &defaults, &r);
  /* ok -> error and infeasible -> error both regress. */
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 2);
  for (int i = 0; i < 2; i++) {
    cr_assert(r.items[i].status_changed);
    cr_assert_str_eq(r.items[i].head_status, "error");
    cr_assert_str_eq(r.items[i].message, "it broke");
  }
  acs_compare_free(&r);
}

Test(compare, status_changes_other_than_to_error)
{
  const struct spec b[] = {{P128, "net", "list", "ok", 2000, 0.5},
                           {P256, "net", "list", "infeasible", NAN, NAN},
                           {P256, "net", "seq", "timeout", NAN, NAN}};
  const struct spec h[] = {{P128, "net", "list", "infeasible", NAN, NAN},
                           {P256, "net", "list", "ok", 3000, 0.5},
                           {P256, "net", "seq", "infeasible", NAN, NAN}};
  struct acs_compare_result r;

  compare(b, 3, h, 3, &defaults, &r);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 1);  /* ok -> infeasible */
  cr_assert_eq(r.count[ACS_CMP_IMPROVEMENT], 1); /* infeasible -> ok */
  cr_assert_eq(r.count[ACS_CMP_CHANGE], 1);      /* timeout -> infeasible */
  cr_assert_str_eq(r.items[0].base_status, "ok");
  cr_assert_str_eq(r.items[0].head_status, "infeasible");
  acs_compare_free(&r);
}

Test(compare, worst_regressions_come_first)
{
  const struct spec b[] = {{P128, "a", "list", "ok", 1000, 0.5},
                           {P128, "b", "list", "ok", 1000, 0.5},
                           {P128, "c", "list", "ok", 1000, 0.5},
                           {P128, "d", "list", "ok", 1000, 0.5}};
  const struct spec h[] = {{P128, "a", "list", "ok", 1050, 0.5},
                           {P128, "b", "list", "ok", 1300, 0.5},
                           {P128, "c", "list", "error", NAN, NAN},
                           {P128, "d", "list", "ok", 1100, 0.5}};
  struct acs_compare_result r;
  const char *order[] = {"c", "b", "d", "a"};

  compare(b, 4, h, 4, &defaults, &r);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 4);
  for (int i = 0; i < 4; i++)
    cr_assert_str_eq(r.items[i].workload, order[i], "position %d", i);
  acs_compare_free(&r);
}

Test(compare, missing_and_new_runs_are_listed_not_regressions)
{
  const struct spec b[] = {{P128, "net", "list", "ok", 1000, 0.5},
                           {P128, "net", "seq", "ok", 1000, 0.5}};
  const struct spec h[] = {{P128, "net", "list", "ok", 1000, 0.5},
                           {P128, "net", "spill", "ok", 900, 0.5}};
  struct acs_compare_result r;

  compare(b, 2, h, 2, &defaults, &r);
  cr_assert_eq(r.count[ACS_CMP_MISSING], 1);
  cr_assert_eq(r.count[ACS_CMP_NEW], 1);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 0);
  cr_assert_eq(r.matched, 1);
  acs_compare_free(&r);
}

Test(compare, utilization_is_better_higher)
{
  const struct spec b[] = {{P128, "net", "list", "ok", 1000, 0.50}};
  const struct spec h[] = {{P128, "net", "list", "ok", 1000, 0.45}};
  struct acs_compare_opts o = {"pe_utilization", 0.01, ACS_KEY_NAME};
  struct acs_compare_result r;

  compare(b, 1, h, 1, &o, &r);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 1);
  {
    double change = r.items[0].change; /* (0.45 - 0.5) / 0.5 */
    cr_assert_float_eq(change, -0.1, 1e-12);
  }
  acs_compare_free(&r);
}

Test(compare, match_by_params_ignores_platform_names)
{
  const struct spec b[] = {{"old-name", 128, 0, "net", "list", "ok", 1000, 0.5}};
  const struct spec h[] = {{"new-name", 128, 0, "net", "list", "ok", 1200, 0.5}};
  struct acs_compare_opts o = {NULL, 0.01, ACS_KEY_PARAMS};
  struct acs_compare_result r;

  compare(b, 1, h, 1, &defaults, &r);
  cr_assert_eq(r.matched, 0);
  cr_assert_eq(r.count[ACS_CMP_MISSING], 1);
  cr_assert_eq(r.count[ACS_CMP_NEW], 1);
  acs_compare_free(&r);
  compare(b, 1, h, 1, &o, &r);
  cr_assert_eq(r.matched, 1);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 1);
  acs_compare_free(&r);
}

Test(compare, appended_repeats_compare_the_latest)
{
  const struct spec b[] = {{P128, "net", "list", "ok", 1000, 0.5},
                           {P128, "net", "list", "ok", 2000, 0.5}};
  const struct spec h[] = {{P128, "net", "list", "ok", 2000, 0.5}};
  struct acs_compare_result r;

  compare(b, 2, h, 1, &defaults, &r);
  cr_assert_eq(r.base_dups, 1);
  cr_assert_eq(r.count[ACS_CMP_SAME], 1);
  acs_compare_free(&r);
}

Test(compare, unknown_metric_lists_the_valid_ones)
{
  struct acs_results_data empty;
  struct acs_compare_opts o = {"speed", 0.01, ACS_KEY_NAME};
  struct acs_compare_result r;
  struct acs_diag d;

  memset(&empty, 0, sizeof(empty));
  acs_diag_init(&d);
  cr_assert_eq(acs_compare_data(&empty, &empty, &o, &r, &d), ACS_EINVAL);
  cr_assert(strstr(d.msg, "unknown metric 'speed'"), "%s", d.msg);
  cr_assert(strstr(d.msg, "sim_makespan_cycles") && strstr(d.msg, "dma_utilization"), "%s", d.msg);
}

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;

  cr_assert_not_null(f, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = calloc(1, (size_t)n + 1);
  cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  return buf;
}

Test(compare, text_markdown_and_junit_outputs)
{
  const struct spec b[] = {{P128, "net", "list", "ok", 2000, 0.5},
                           {P256, "net", "list", "ok", 2000, 0.5}};
  const struct spec h[] = {{P128, "net", "list", "ok", 2100, 0.5},
                           {P256, "net", "list", "ok", 2000, 0.5}};
  struct acs_compare_result r;
  struct acs_diag d;
  char *text;
  FILE *f;

  compare(b, 2, h, 2, &defaults, &r);
  f = fopen(tu_at("out.txt"), "w");
  cr_assert_eq(acs_compare_write(f, &r, ACS_CMP_TEXT, "base.h5", "head.h5", 0), ACS_OK);
  cr_assert_eq(acs_compare_write(f, &r, ACS_CMP_MARKDOWN, "base.h5", "head.h5", 0), ACS_OK);
  fclose(f);
  text = slurp(tu_at("out.txt"));
  cr_assert(strstr(text, "Regressions (1)"), "%s", text);
  cr_assert(strstr(text, "+5.00%"), "%s", text);
  cr_assert(strstr(text, "| +5.00% | 2000 | 2100 | net | list | `p[cmx_kib=128]` |"), "%s", text);
  cr_assert(strstr(text, "2 matched: 1 regression, 0 improvements"), "%s", text);
  free(text);
  acs_diag_init(&d);
  cr_assert_eq(acs_compare_write_junit(tu_at("j.xml"), &r, "base.h5", "head.h5", &d), ACS_OK);
  text = slurp(tu_at("j.xml"));
  cr_assert(strstr(text, "tests=\"2\" failures=\"1\""), "%s", text);
  cr_assert(strstr(text, "<failure type=\"regression\""), "%s", text);
  free(text);
  acs_compare_free(&r);
}

/* ---- the report ---- */

TestSuite(report_html, .init = tu_scratch_init);

/* A small study: two workloads, CMX x barriers grid, two schedulers, one
 * infeasible corner, one stored schedule (the best of "net"). */
static size_t write_study(const char *path, int with_schedule)
{
  struct acs_results *r;
  struct acs_diag d;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  const int cmx[] = {128, 256, 512};
  const int bar[] = {0, 8};
  const char *wl[] = {"net", "other"};
  size_t n = 0;

  tu_graph_npu(&g, "net");
  {
    int32_t a = tu_op(&g, "load", ACS_OP_DMA, 50), b = tu_op(&g, "conv", ACS_OP_DPU, 100);
    tu_edge(&g, a, b);
  }
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  cr_assert_eq(acs_schedule_init_problem(&s, &pb), ACS_OK);
  {
    const struct acs_sched_ops *ops = acs_sched_find("list");
    struct acs_sched_ctx ctx = {1, 0, NULL, NULL, 0};
    void *opts = calloc(1, ops->opts_size + 1);
    acs_sched_opts_defaults(ops, opts);
    acs_diag_init(&d);
    cr_assert_eq(ops->schedule(&pb, opts, &ctx, &s, &d), ACS_OK);
    free(opts);
  }
  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(path, "acsim sweep test", &r, &d), ACS_OK, "%s", d.msg);
  for (int w = 0; w < 2; w++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 2; j++)
        for (int k = 0; k < 2; k++) {
          struct acs_platform p;
          struct acs_workload_row wr;
          struct acs_run_row row;
          int best = w == 0 && i == 2 && j == 0 && k == 1;
          acs_platform_init(&p);
          snprintf(p.name, sizeof(p.name), "default[cmx_kib=%d,barriers=%d]", cmx[i], bar[j]);
          p.v[ACS_P_CMX_KIB] = cmx[i];
          p.v[ACS_P_BARRIERS] = bar[j];
          memset(&wr, 0, sizeof(wr));
          snprintf(wr.name, sizeof(wr.name), "%s", wl[w]);
          snprintf(wr.kind, sizeof(wr.kind), "graph");
          wr.ops = 2;
          acs_run_row_init(&row);
          cr_assert_eq(acs_results_add_platform(r, &p, &row.platform_id), ACS_OK);
          cr_assert_eq(acs_results_add_workload(r, &wr, &row.workload_id), ACS_OK);
          snprintf(row.scheduler, sizeof(row.scheduler), "%s", k ? "list" : "sequential");
          if (w == 1 && i == 0) {
            snprintf(row.status, sizeof(row.status), "infeasible");
          } else {
            snprintf(row.status, sizeof(row.status), "ok");
            row.makespan_cycles = 1e6 * (4 - i) + 1e5 * (1 - k) + 1e4 * j;
            row.sim_makespan_cycles = row.makespan_cycles * 1.01;
            row.spill_bytes = 0;
            row.ddr_bytes = 1000000 * (4 - i);
          }
          cr_assert_eq(acs_results_add_run(r, &row, best && with_schedule ? &s : NULL), ACS_OK);
          n++;
        }
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "%s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  return n;
}

static int lines_of(const char *path)
{
  char *text = slurp(path);
  int n = 0;

  for (char *c = text; *c; c++)
    n += *c == '\n';
  free(text);
  return n;
}

/* Every src="..." and href="..." that is not a fragment names a file that
 * exists; returns how many SVGs are referenced. */
static int check_references(const char *out)
{
  char path[1024], *html, *p;
  int svgs = 0;

  snprintf(path, sizeof(path), "%s/index.html", out);
  html = slurp(path);
  for (p = html; (p = strstr(p, "=\"")) != NULL; p += 2) {
    char ref[512];
    size_t len;
    struct stat st;
    if (strncmp(p - 3, "src", 3) != 0 && strncmp(p - 4, "href", 4) != 0)
      continue;
    len = strcspn(p + 2, "\"");
    if (len == 0 || p[2] == '#' || len >= sizeof(ref))
      continue;
    memcpy(ref, p + 2, len);
    ref[len] = '\0';
    snprintf(path, sizeof(path), "%s/%s", out, ref);
    cr_assert_eq(stat(path, &st), 0, "index.html references %s, which does not exist", ref);
    cr_assert_gt(st.st_size, 0, "%s is empty", ref);
    svgs += strstr(ref, ".svg") != NULL;
  }
  free(html);
  return svgs;
}

Test(report_html, every_plot_exists_and_every_reference_resolves)
{
  struct acs_report_info info;
  struct acs_report_opts o = {NULL};
  struct acs_diag d;
  char out[512];
  size_t n = write_study(tu_at("study.h5"), 1);
  int svgs;

  snprintf(out, sizeof(out), "%s", tu_at("rep"));
  acs_diag_init(&d);
  cr_assert_eq(acs_report_write(tu_at("study.h5"), out, &o, &info, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(info.runs, n);
  cr_assert_eq(info.workloads, 2);
  /* runs.csv: a header and one line per run. */
  snprintf(out, sizeof(out), "%s/runs.csv", tu_at("rep"));
  cr_assert_eq(lines_of(out), (int)n + 1);
  /* The comparison, then per workload: makespan, heatmap, bytes,
   * contention; a Gantt chart for "net" (its best run has a schedule). */
  cr_assert_eq(info.plots, 1 + 2 * 4 + 1, "plots %zu", info.plots);
  cr_assert_eq(info.gantts, 1);
  snprintf(out, sizeof(out), "%s", tu_at("rep"));
  svgs = check_references(out);
  if (info.gnuplot_missing) {
    cr_log_warn("gnuplot is not installed: the plots were not drawn");
    cr_assert_eq(svgs, 0);
  } else {
    cr_assert_eq(info.plot_failures, 0, "%s", info.gnuplot_error);
    cr_assert_eq(svgs, (int)info.plots);
  }
}

Test(report_html, without_gnuplot_the_data_is_still_written)
{
  struct acs_report_info info;
  struct acs_report_opts o = {"/nonexistent/gnuplot"};
  struct acs_diag d;
  char out[512], path[1024];
  struct stat st;
  size_t n = write_study(tu_at("study.h5"), 0);

  snprintf(out, sizeof(out), "%s", tu_at("rep"));
  acs_diag_init(&d);
  cr_assert_eq(acs_report_write(tu_at("study.h5"), out, &o, &info, &d), ACS_OK, "%s", d.msg);
  cr_assert(info.gnuplot_missing);
  cr_assert(strstr(info.gnuplot_error, "/nonexistent/gnuplot"), "%s", info.gnuplot_error);
  cr_assert_eq(check_references(out), 0);
  snprintf(path, sizeof(path), "%s/runs.csv", out);
  cr_assert_eq(lines_of(path), (int)n + 1);
  snprintf(path, sizeof(path), "%s/plots/schedulers.gp", out);
  cr_assert_eq(stat(path, &st), 0);
  snprintf(path, sizeof(path), "%s/plots/makespan_net.dat", out);
  cr_assert_eq(stat(path, &st), 0);
  cr_assert_gt(st.st_size, 0);
  /* No stored schedule: the page says how to get the Gantt charts. */
  snprintf(path, sizeof(path), "%s/index.html", out);
  {
    char *html = slurp(path);
    cr_assert(strstr(html, "has no stored schedule"));
    cr_assert(strstr(html, "apt-get install gnuplot-nox"));
    free(html);
  }
}

Test(report_html, runs_csv_quotes_and_leaves_missing_values_empty)
{
  const struct spec s[] = {{"odd, \"name\"", 128, 0, "net", "list", "infeasible", NAN, NAN}};
  struct acs_results_data data;
  struct acs_diag d;
  char *text;

  write_file(tu_at("s.h5"), s, 1);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read(tu_at("s.h5"), &data, &d), ACS_OK);
  cr_assert_eq(acs_report_write_csv(&data, tu_at("runs.csv"), &d), ACS_OK, "%s", d.msg);
  text = slurp(tu_at("runs.csv"));
  /* run 1, the quoted name, workload, kind, path, ops, edges, scheduler,
   * no options, status, then NaN makespans as empty fields. */
  cr_assert(strstr(text, "\n1,\"odd, \"\"name\"\"\",net,dnn,net.csv,10,9,list,,infeasible,,,"),
            "%s", text);
  cr_assert(strstr(text, ",it broke\n"), "%s", text);
  free(text);
  acs_results_data_free(&data);
}

/* The scheduler and workload tables keep the four statuses apart, as the
 * summary cards do: one run of each status gives 1 in each column (a
 * timeout counted as infeasible would show 2 infeasible and no timeout). */
Test(report_html, tables_count_timeouts_apart_from_infeasible)
{
  const struct spec s[] = {{P128, "net", "list", "ok", 1000, 0.5},
                           {P256, "net", "list", "infeasible", NAN, NAN},
                           {"p[cmx_kib=512]", 512, 0, "net", "list", "timeout", NAN, NAN},
                           {"p[cmx_kib=1024]", 1024, 0, "net", "list", "error", NAN, NAN}};
  struct acs_report_info info;
  struct acs_report_opts o = {"/nonexistent/gnuplot"};
  struct acs_diag d;
  char out[512], path[1024], *html;

  write_file(tu_at("st.h5"), s, 4);
  snprintf(out, sizeof(out), "%s", tu_at("rep"));
  acs_diag_init(&d);
  cr_assert_eq(acs_report_write(tu_at("st.h5"), out, &o, &info, &d), ACS_OK, "%s", d.msg);
  snprintf(path, sizeof(path), "%s/index.html", out);
  html = slurp(path);
  /* Summary cards. */
  cr_assert(strstr(html, "<b>1</b><span>infeasible</span>"), "%s", html);
  cr_assert(strstr(html, "<b>1</b><span>timeout</span>"), "%s", html);
  /* Scheduler table: runs, then ok / infeasible / timeout / error. The
   * rows leave memory_model empty, as in files older than the column: the
   * model comes from the registry ("optimistic" only beside a resident
   * scheduler, and there is none here). */
  cr_assert(strstr(html, "<th class=\"n\">runs</th><th class=\"n\">ok / infeasible / timeout / "
                         "error</th>"), "%s", html);
  cr_assert(strstr(html, "<code>list</code></td><td>transient</td><td class=\"n\">4</td>"
                         "<td class=\"n\">1 / 1 / 1 / 1</td>"), "%s", html);
  /* Workload table: ok / infeasible / timeout / error. */
  cr_assert(strstr(html, "runs: ok / infeasible / timeout / error"), "%s", html);
  cr_assert(strstr(html, "<td>dnn</td><td class=\"n\">10</td><td class=\"n\">1 / 1 / 1 / 1</td>"),
            "%s", html);
  free(html);
}
