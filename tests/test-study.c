/*
 * test-study.c - the report's reading of a study (report/study.c,
 * answers.c) and what the page and plots make of it (html*.c, plots*.c,
 * csv.c), on hand-built results files: every expected answer is worked out
 * in the comments from the makespans written here.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sched/sched.h"
#include "report/plots_int.h"
#include "tests/testutil.h"

/* One run: its platform (cmx_kib, barriers, pe_count), workload and
 * scheduler ("list", or "list[rule=lpath]" with options) with its memory
 * model, and its simulated makespan (0: not ok). */
struct run {
  double cmx, barriers, pes;
  const char *workload, *sched, *mm;
  double mk;
  int64_t spill, ddr;
  double slow;            /* simulated = planned x (1 + slow) */
};

/* Run v's platform, workload and row; the row's ids are the caller's. */
static void make_run(const struct run *v, struct acs_platform *p, struct acs_workload_row *w,
                     struct acs_run_row *row)
{
  const char *br = strchr(v->sched, '[');

  acs_platform_init(p);
  p->v[ACS_P_CMX_KIB] = v->cmx;
  p->v[ACS_P_BARRIERS] = v->barriers;
  p->v[ACS_P_PE_COUNT] = v->pes;
  snprintf(p->name, sizeof(p->name), "p[cmx_kib=%g,barriers=%g,pe_count=%g]", v->cmx,
           v->barriers, v->pes);
  memset(w, 0, sizeof(*w));
  snprintf(w->name, sizeof(w->name), "%s", v->workload);
  snprintf(w->path, sizeof(w->path), "%s.csv", v->workload);
  snprintf(w->kind, sizeof(w->kind), "dnn");
  w->ops = w->edges = 4;
  acs_run_row_init(row);
  snprintf(row->scheduler, sizeof(row->scheduler), "%.*s",
           (int)(br ? (size_t)(br - v->sched) : strlen(v->sched)), v->sched);
  if (br)
    snprintf(row->options, sizeof(row->options), "%.*s", (int)strlen(br + 1) - 1, br + 1);
  snprintf(row->memory_model, sizeof(row->memory_model), "%s", v->mm);
  snprintf(row->status, sizeof(row->status), "%s", v->mk > 0 ? "ok" : "infeasible");
  if (v->mk > 0) {
    row->makespan_cycles = v->mk;
    row->sim_makespan_cycles = v->mk * (1 + v->slow);
    row->spill_bytes = v->spill;
    row->ddr_bytes = v->ddr;
  }
}

/* The platforms and workloads of v[0..n) in v's order (their ids), then
 * the runs in the order perm[] gives (NULL: v's). */
static void write_study_in(const char *path, const struct run *v, size_t n, const size_t *perm)
{
  struct acs_platform p;
  struct acs_workload_row w;
  struct acs_run_row row;
  struct acs_results *r;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(path, "test", &r, &d), ACS_OK, "%s", d.msg);
  for (size_t i = 0; i < n; i++) {
    make_run(&v[i], &p, &w, &row);
    cr_assert_eq(acs_results_add_platform(r, &p, &row.platform_id), ACS_OK);
    cr_assert_eq(acs_results_add_workload(r, &w, &row.workload_id), ACS_OK);
  }
  for (size_t i = 0; i < n; i++) {
    make_run(&v[perm ? perm[i] : i], &p, &w, &row);
    cr_assert_eq(acs_results_add_platform(r, &p, &row.platform_id), ACS_OK);
    cr_assert_eq(acs_results_add_workload(r, &w, &row.workload_id), ACS_OK);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  }
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "%s", d.msg);
}

static void write_study(const char *path, const struct run *v, size_t n)
{
  write_study_in(path, v, n, NULL);
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
  buf = malloc((size_t)n + 1);
  cr_assert_not_null(buf);
  cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* The report without gnuplot (scripts, data and page only: fast, and the
 * same files gnuplot would read). */
static char *report(const char *study, const char *out)
{
  struct acs_report_info info;
  struct acs_report_opts o = {"/nonexistent/gnuplot"};
  struct acs_diag d;
  char path[1024];

  acs_diag_init(&d);
  cr_assert_eq(acs_report_write(study, out, &o, &info, &d), ACS_OK, "%s", d.msg);
  snprintf(path, sizeof(path), "%s/index.html", out);
  return slurp(path);
}

static int exists(const char *path)
{
  struct stat st;

  return stat(path, &st) == 0;
}

/* ---- the answers ---- */

#define R(c, b, sched, mm, mk) {c, b, 4, "net", sched, mm, mk, 0, 1000, 0}

/*
 * Without a barrier limit the resident spill is best at 512 KiB (1000);
 * 1.05 x 1000 = 1050 admits 256 KiB (1040) but not 128 KiB (1100). With 8
 * barriers the best is 1200 at 512 KiB and 1260 admits 256 KiB (1250). The
 * transient list at 128 KiB (900, below every spill run) does not count:
 * counting it would make 128 KiB the answer without a limit.
 */
static const struct run cmx_study[] = {
  R(128, 0, "spill", "resident", 1100), R(256, 0, "spill", "resident", 1040),
  R(512, 0, "spill", "resident", 1000), R(128, 0, "list", "transient", 900),
  R(128, 8, "spill", "resident", 1300), R(256, 8, "spill", "resident", 1250),
  R(512, 8, "spill", "resident", 1200),
};

TestSuite(answers, .init = tu_scratch_init);

Test(answers, smallest_cmx_within_5pct_at_each_barrier_count)
{
  struct acs__study s;
  struct acs__answer a;
  struct acs_diag d;

  write_study(tu_at("cmx.h5"), cmx_study, sizeof(cmx_study) / sizeof(cmx_study[0]));
  acs_diag_init(&d);
  cr_assert_eq(acs__study_load(tu_at("cmx.h5"), &s, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs__answer_make(&s, 0, ACS__Q_CMX, &a), ACS_OK);
  cr_assert_eq(a.why, ACS__WHY_OK);
  cr_assert_eq(a.nslice, 2);
  for (size_t i = 0; i < 2; i++) {
    double b = acs__param(&s, a.slice[i].key, ACS_P_BARRIERS);
    cr_assert_float_eq(a.slice[i].ref->v, 512, 0);
    cr_assert_float_eq(a.slice[i].answer->v, 256, 0, "barriers %g", b);
    cr_assert_float_eq(a.slice[i].answer->best->mk, b == 0 ? 1040 : 1250, 0);
  }
  acs__answer_free(&a);
  acs__study_free(&s);
}

/*
 * At 512 KiB: 1000 without a limit, so 1050 admits 8 barriers (1040) and
 * not 4 (1100). At 256 KiB: 1040 without a limit admits 4 barriers (1060 <=
 * 1092). At 128 KiB: 1100 without a limit, 1155 admits none of 1300, 1250,
 * 1200.
 */
static const struct run bar_study[] = {
  R(512, 0, "spill", "resident", 1000), R(512, 4, "spill", "resident", 1100),
  R(512, 8, "spill", "resident", 1040), R(512, 16, "spill", "resident", 1000),
  R(256, 0, "spill", "resident", 1040), R(256, 4, "spill", "resident", 1060),
  R(128, 0, "spill", "resident", 1100), R(128, 4, "spill", "resident", 1300),
  R(128, 8, "spill", "resident", 1250), R(128, 16, "spill", "resident", 1200),
};

Test(answers, fewest_barriers_within_5pct_of_no_limit_at_each_cmx)
{
  struct acs__study s;
  struct acs__answer a;
  struct acs_diag d;
  int seen = 0;

  write_study(tu_at("bar.h5"), bar_study, sizeof(bar_study) / sizeof(bar_study[0]));
  acs_diag_init(&d);
  cr_assert_eq(acs__study_load(tu_at("bar.h5"), &s, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs__answer_make(&s, 0, ACS__Q_BARRIERS, &a), ACS_OK);
  cr_assert_eq(a.nslice, 3);
  for (size_t i = 0; i < a.nslice; i++) {
    double c = acs__param(&s, a.slice[i].key, ACS_P_CMX_KIB);
    cr_assert_float_eq(a.slice[i].ref->v, 0, 0);
    double want = c == 512 ? 8 : c == 256 ? 4 : -1;
    seen++;
    if (want < 0) {
      cr_assert_null(a.slice[i].answer, "128 KiB: no count within 5%%");
    } else {
      cr_assert_not_null(a.slice[i].answer, "%g KiB", c);
      cr_assert_float_eq(a.slice[i].answer->v, want, 0, "%g KiB", c);
    }
  }
  cr_assert_eq(seen, 3);
  acs__answer_free(&a);
  /* The sizing table names the closest count at 128 KiB: 16 barriers,
   * 1200 / 1100 - 1 = +9.1%. */
  {
    char *html = report(tu_at("bar.h5"), tu_at("bar"));
    cr_assert(strstr(html, "<b>none</b> of the barrier counts swept<br><span class=\"small\">"
                           "closest: 16 barriers, +9.1%</span>"), "%s", html);
    free(html);
  }
  /* The study varies no PE count: that question has no answer, and says so. */
  cr_assert_eq(acs__answer_make(&s, 0, ACS__Q_PES, &a), ACS_OK);
  cr_assert_eq(a.why, ACS__WHY_FIXED);
  acs__answer_free(&a);
  acs__study_free(&s);
}

Test(answers, page_quotes_the_pe_speedup_at_the_loosest_configuration)
{
  /* 8 PEs over 4: 2000 / 1250 = x1.60 at 512 KiB (the largest CMX), and
   * 2400 / 2000 = x1.20 at 256 KiB: the range is x1.20-1.60. */
  const struct run v[] = {
    {512, 0, 4, "net", "spill", "resident", 2000, 0, 1000, 0},
    {512, 0, 8, "net", "spill", "resident", 1250, 0, 1000, 0},
    {256, 0, 4, "net", "spill", "resident", 2400, 0, 1000, 0},
    {256, 0, 8, "net", "spill", "resident", 2000, 0, 1000, 0},
  };
  char *html;

  write_study(tu_at("pe.h5"), v, 4);
  html = report(tu_at("pe.h5"), tu_at("pe"));
  cr_assert(strstr(html, "4 &rarr; 8 PEs: speedup <b>&times;1.60</b> <span class=\"small\">"
                         "(&times;1.20&ndash;1.60 over 2 configurations)</span>"), "%s", html);
  cr_assert(strstr(html, "<br><span class=\"small\">at 512 KiB</span>"), "%s", html);
  cr_assert(strstr(html, "does not vary <code>barriers</code>"));
  free(html);
}

Test(answers, answers_come_first_on_the_page)
{
  char *html, *answers, *runs, *sched;

  write_study(tu_at("cmx.h5"), cmx_study, sizeof(cmx_study) / sizeof(cmx_study[0]));
  html = report(tu_at("cmx.h5"), tu_at("cmx"));
  answers = strstr(html, "<section id=\"answers\">");
  runs = strstr(html, "<section id=\"runs\">");
  sched = strstr(html, "<section id=\"schedulers\">");
  cr_assert(answers && runs && sched && answers < runs && runs < sched);
  /* The two barrier counts give one answer, 256 KiB, on one line. */
  cr_assert(strstr(answers, "<b>256 KiB</b> <span class=\"small\">at no limit and 8 "
                            "barriers</span>"), "%s", answers);
  free(html);
}

Test(answers, the_row_answers_at_the_loosest_other_parameters)
{
  /* With 8 PEs the best is 1000 at 512 KiB and 256 KiB (1040) is within
   * 5%; with 4 PEs 128 KiB is best (2000). The row answers for 8 PEs, the
   * largest swept, and says so; the sizing table has both. */
  const struct run v[] = {
    {128, 0, 8, "net", "spill", "resident", 1100, 0, 1000, 0},
    {256, 0, 8, "net", "spill", "resident", 1040, 0, 1000, 0},
    {512, 0, 8, "net", "spill", "resident", 1000, 0, 1000, 0},
    {128, 0, 4, "net", "spill", "resident", 2000, 0, 1000, 0},
    {256, 0, 4, "net", "spill", "resident", 2100, 0, 1000, 0},
    {512, 0, 4, "net", "spill", "resident", 2050, 0, 1000, 0},
    {512, 8, 8, "net", "spill", "resident", 1200, 0, 1000, 0},
  };
  char *html, *answers, *runs;

  write_study(tu_at("ref.h5"), v, 7);
  html = report(tu_at("ref.h5"), tu_at("ref"));
  answers = strstr(html, "<section id=\"answers\">");
  runs = strstr(html, "<section id=\"runs\">");
  cr_assert(answers && runs);
  *runs = '\0';
  cr_assert(strstr(answers, "<td><b>256 KiB</b> <span class=\"small\">at no limit</span>"),
            "%s", answers);
  cr_assert(!strstr(answers, "<b>128 KiB</b>"), "the 4-PE answer is not the row's");
  cr_assert(strstr(answers, "<code>pe_count</code> = 8"), "%s", answers);
  *runs = '<';
  /* The sizing table: 4 PEs, no limit: 128 KiB, the slice's best. */
  cr_assert(strstr(runs, "<tr><td>4 PEs, no barrier limit</td><td><b>128 KiB</b> 2000 cycles"),
            "%s", runs);
  free(html);
}

/* ---- one definition of "best" ---- */

TestSuite(best, .init = tu_scratch_init);

/*
 * list (transient) is faster than spill (resident) everywhere: 900 against
 * 1000 at 512 KiB. The best run is spill's in the answers, the scheduler
 * table (spill wins every configuration, list none), the heatmap's cells
 * and the Gantt chart's "best"; list's bar in the comparison goes below 0.
 */
Test(best, tables_heatmap_and_gantt_name_the_same_run)
{
  const struct run v[] = {
    R(256, 0, "spill", "resident", 1040), R(256, 0, "list", "transient", 936),
    R(512, 0, "spill", "resident", 1000), R(512, 0, "list", "transient", 900),
    R(256, 8, "spill", "resident", 1100), R(256, 8, "list", "transient", 990),
    R(512, 8, "spill", "resident", 1050), R(512, 8, "list", "transient", 945),
  };
  char *html, *heat, *gp, path[1024];

  write_study(tu_at("b.h5"), v, 8);
  html = report(tu_at("b.h5"), tu_at("b"));
  cr_assert(strstr(html, "<td><b>1000 cycles</b><br><span class=\"small\">"
                         "<span class=\"sw\" style=\"background:"), "%s", html);
  cr_assert(strstr(html, "<code>spill</code> at 512 KiB, no barrier limit<br>"), "%s", html);
  cr_assert(strstr(html, "optimistic bound 900 cycles (list, transient)"));
  /* Scheduler table: spill best of all 4 configurations, list of none;
   * list is 10% below (ratio 0.9 everywhere), spill 0%. */
  cr_assert(strstr(html, "<code>spill</code></td><td>resident</td><td class=\"n\">4</td>"
                         "<td class=\"n\">4 / 0 / 0 / 0</td><td class=\"n\">4 of 4</td>"
                         "<td class=\"n\">+0.0%</td>"), "%s", html);
  cr_assert(strstr(html, "<code>list</code></td><td>transient (optimistic)</td><td class=\"n\">"
                         "4</td><td class=\"n\">4 / 0 / 0 / 0</td><td class=\"n\">0 of 4</td>"
                         "<td class=\"n\">-10.0%</td>"), "%s", html);
  /* Heatmap: every cell's scheduler is spill. */
  snprintf(path, sizeof(path), "%s/plots/heatmap_net.dat", tu_at("b"));
  heat = slurp(path);
  cr_assert(!strstr(heat, "\"list\""), "%s", heat);
  cr_assert(strstr(heat, "0 0 1040 \"1040\" \"spill\""), "%s", heat);
  free(heat);
  /* The comparison's y range goes below 0 for list's -10% bar. */
  snprintf(path, sizeof(path), "%s/plots/schedulers.gp", tu_at("b"));
  gp = slurp(path);
  cr_assert(strstr(gp, "set yrange [-"), "%s", gp);
  free(gp);
  /* No schedule is stored: the Gantt card names the best run, spill's. */
  cr_assert(strstr(html, "The best run (<code>p[cmx_kib=512,barriers=0,pe_count=4]</code>)"),
            "%s", html);
  free(html);
}

/* ---- plots left out, and colours ---- */

TestSuite(plots, .init = tu_scratch_init);

Test(plots, a_plot_without_data_is_left_out_with_a_sentence)
{
  /* No bytes moved (spill 0, DDR 0), and simulations off their plans by
   * a rounding error (1e-12: a slowdown axis would read 1e-10 %). */
  const struct run v[] = {
    {256, 0, 4, "net", "list", "transient", 1000, 0, 0, 1e-12},
    {512, 0, 4, "net", "list", "transient", 900, 0, 0, -1e-12},
  };
  char *html, path[1024];

  write_study(tu_at("e.h5"), v, 2);
  html = report(tu_at("e.h5"), tu_at("e"));
  snprintf(path, sizeof(path), "%s/plots/bytes_net.gp", tu_at("e"));
  cr_assert(!exists(path), "a bytes plot without bytes");
  snprintf(path, sizeof(path), "%s/plots/contention_net.gp", tu_at("e"));
  cr_assert(!exists(path), "a contention plot without contention");
  snprintf(path, sizeof(path), "%s/plots/makespan_net.gp", tu_at("e"));
  cr_assert(exists(path));
  cr_assert(strstr(html, "Not drawn: No run moved bytes between CMX and DDR"), "%s", html);
  cr_assert(strstr(html, "contention costs nothing here"), "%s", html);
  cr_assert(strstr(html, "there is no heatmap over two parameters"), "%s", html);
  free(html);
}

Test(plots, a_real_slowdown_is_plotted_and_rounding_is_zero)
{
  /* 2% and 1e-12 slower: the plot exists; its slowdown series reads 2 and
   * 0, never 1e-10. */
  const struct run v[] = {
    {256, 0, 4, "net", "list", "transient", 1000, 0, 0, 0.02},
    {512, 0, 4, "net", "list", "transient", 900, 0, 0, 1e-12},
  };
  char path[1024], *dat;

  write_study(tu_at("c.h5"), v, 2);
  free(report(tu_at("c.h5"), tu_at("c")));
  snprintf(path, sizeof(path), "%s/plots/contention_net.dat", tu_at("c"));
  dat = slurp(path);
  cr_assert(strstr(dat, "\n256 2\n512 0\n"), "%s", dat);
  cr_assert(!strstr(dat, "e-"), "%s", dat);
  free(dat);
}

Test(plots, every_scheduler_keeps_one_colour_in_every_study)
{
  size_t n;
  const struct acs_sched_ops *const *all = acs_sched_list(&n);
  const struct run a[] = {R(256, 0, "spill", "resident", 1000), R(512, 0, "affine", "none", 900)};
  const struct run b[] = {R(256, 0, "sequential", "transient", 1000),
                          R(512, 0, "spill", "resident", 900)};
  char path[1024], *ga, *gb, spill[64];

  /* Every registered variant its own colour: sequential and affine too. */
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      cr_assert_str_neq(acs__sched_colour(all[i]->name), acs__sched_colour(all[j]->name),
                        "%s and %s share a colour", all[i]->name, all[j]->name);
  cr_assert_str_eq(acs__sched_colour("list[rule=lpath]"), acs__sched_colour("list"));
  /* spill is the first scheduler of one study and the second of another:
   * its line style has the same colour in both. */
  write_study(tu_at("ca.h5"), a, 2);
  write_study(tu_at("cb.h5"), b, 2);
  free(report(tu_at("ca.h5"), tu_at("ca")));
  free(report(tu_at("cb.h5"), tu_at("cb")));
  snprintf(path, sizeof(path), "%s/plots/makespan_net.gp", tu_at("ca"));
  ga = slurp(path);
  snprintf(path, sizeof(path), "%s/plots/makespan_net.gp", tu_at("cb"));
  gb = slurp(path);
  snprintf(spill, sizeof(spill), "lc rgb '%s'", acs__sched_colour("spill"));
  cr_assert(strstr(ga, "set style line 1 ") && strstr(strstr(ga, "set style line 1 "), spill));
  cr_assert(strstr(gb, "set style line 2 ") && strstr(strstr(gb, "set style line 2 "), spill));
  free(ga);
  free(gb);
}

/* ---- the network bound of DNN runs ---- */

TestSuite(netbound, .init = tu_scratch_init);

/* The same study with every run's network bound NaN (files older than the
 * column, or workloads without a layer graph) or 800 cycles. */
static void write_bound(const char *path, double bound)
{
  const struct run v[] = {R(256, 0, "spill", "resident", 1040), R(512, 0, "spill", "resident", 1000)};
  struct acs_results_data data;
  struct acs_results *r;
  struct acs_diag d;

  write_study(tu_at("nb0.h5"), v, 2);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_read(tu_at("nb0.h5"), &data, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_results_open(path, "test", &r, &d), ACS_OK, "%s", d.msg);
  for (size_t i = 0; i < data.nruns; i++) {
    struct acs_run_row row = data.runs[i];
    row.network_bound_cycles = bound;
    cr_assert_eq(acs_results_add_platform(r, &acs_results_platform_of(&data, &row)->plat,
                                          &row.platform_id), ACS_OK);
    cr_assert_eq(acs_results_add_workload(r, acs_results_workload_of(&data, &data.runs[i]),
                                          &row.workload_id), ACS_OK);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  }
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "%s", d.msg);
  acs_results_data_free(&data);
}

Test(netbound, the_gap_is_shown_where_runs_have_a_bound)
{
  char *html, *csv, path[1024];

  write_bound(tu_at("n0.h5"), NAN);
  html = report(tu_at("n0.h5"), tu_at("n0"));
  cr_assert(!strstr(html, "network bound"), "no bound, no gap");
  free(html);
  write_bound(tu_at("n1.h5"), 800);
  html = report(tu_at("n1.h5"), tu_at("n1"));
  /* The best run, 1000 cycles, is 25% above the bound of 800. */
  cr_assert(strstr(html, "<th class=\"n\">best vs the network bound</th>"), "%s", html);
  cr_assert(strstr(html, "<td class=\"n\"><b>+25.0%</b><br><span class=\"small\">bound 800 "
                         "cycles</span></td>"), "%s", html);
  snprintf(path, sizeof(path), "%s/runs.csv", tu_at("n1"));
  csv = slurp(path);
  cr_assert(strstr(csv, ",lower_bound_cycles,network_bound_cycles,"), "%s", csv);
  cr_assert(strstr(csv, ",800,"), "%s", csv);
  free(csv);
  free(html);
}

/* ---- the report's order ---- */

TestSuite(order, .init = tu_scratch_init);

/* Two workloads on four platform variants, each with five schedulers (an
 * option set and a name the registry lacks among them), every makespan
 * its own so that no tie picks a run by where it was stored. */
#define ORDER_RUNS 40
static void order_study(struct run *v)
{
  static const char *const wl[] = {"net", "cnn"};
  static const char *const sched[] = {"zeta", "spill", "list[rule=lpath]", "list", "sequential"};
  static const char *const mm[] = {"transient", "resident", "transient", "transient", "transient"};

  for (size_t i = 0; i < ORDER_RUNS; i++) {
    size_t k = i % 5, pl = (i / 5) % 4;
    v[i] = (struct run){pl % 2 ? 512 : 256, pl / 2 ? 8 : 0, 4, wl[i / 20], sched[k], mm[k],
                        i == 7 ? 0 : 1000 + 37.0 * (double)((i * 13) % ORDER_RUNS), 0,
                        1000 + 10 * (int64_t)i, 0.01 * (double)(i % 3)};
  }
}

/* The file's text with every "run N" as "run #": a run's id is the order
 * it was stored in; and "created <time>" as "created #": the two files of
 * a test are written a few hundred milliseconds apart, sometimes in two
 * seconds. */
static char *text_of(const char *path)
{
  char *t = slurp(path), *o = t;

  for (const char *s = t; *s;) {
    if (strncmp(s, "run ", 4) == 0 && s[4] >= '0' && s[4] <= '9') {
      for (s += 4; *s >= '0' && *s <= '9'; s++)
        ;
      memcpy(o, "run #", 5); /* never past s: "run " and a digit are behind it */
      o += 5;
    } else if (strncmp(s, "created ", 8) == 0 && s[8] >= '0' && s[8] <= '9') {
      for (s += 8; *s && *s != '<' && *s != ' '; s++)
        ;
      memcpy(o, "created #", 9); /* as above: 8 bytes and a digit behind */
      o += 9;
    } else {
      *o++ = *s++;
    }
  }
  *o = '\0';
  return t;
}

static void assert_same_file(const char *a, const char *b)
{
  char *ta = text_of(a), *tb = text_of(b);

  cr_assert_str_eq(ta, tb, "%s and %s differ", a, b);
  free(ta);
  free(tb);
}

/* runs.csv without its run_id column: the ids are the order of storage. */
static char *csv_without_ids(const char *path)
{
  char *t = slurp(path), *out = malloc(strlen(t) + 1), *o = out;

  cr_assert_not_null(out);
  for (const char *line = t; *line;) {
    const char *comma = strchr(line, ','), *nl = strchr(line, '\n');
    const char *end = nl ? nl + 1 : line + strlen(line);
    const char *from = comma && comma < end ? comma : line;
    memcpy(o, from, (size_t)(end - from));
    o += end - from;
    line = end;
  }
  *o = '\0';
  free(t);
  return out;
}

Test(order, runs_stored_in_any_order_give_the_same_tables)
{
  struct run v[ORDER_RUNS];
  size_t perm[ORDER_RUNS], n = 0;
  char a[1024], b[1024], *ca, *cb;
  struct dirent *e;
  DIR *dir;

  order_study(v);
  for (size_t i = 0; i < ORDER_RUNS; i++)
    perm[i] = (i * 17 + 5) % ORDER_RUNS; /* 17 is prime to 40: a shuffle */
  /* One path for both, which the page names. */
  write_study_in(tu_at("study.h5"), v, ORDER_RUNS, NULL);
  free(report(tu_at("study.h5"), tu_at("ra")));
  cr_assert_eq(unlink(tu_at("study.h5")), 0);
  write_study_in(tu_at("study.h5"), v, ORDER_RUNS, perm);
  free(report(tu_at("study.h5"), tu_at("rb")));
  snprintf(a, sizeof(a), "%s/index.html", tu_at("ra"));
  snprintf(b, sizeof(b), "%s/index.html", tu_at("rb"));
  assert_same_file(a, b);
  snprintf(a, sizeof(a), "%s/runs.csv", tu_at("ra"));
  snprintf(b, sizeof(b), "%s/runs.csv", tu_at("rb"));
  ca = csv_without_ids(a);
  cb = csv_without_ids(b);
  cr_assert_str_eq(ca, cb);
  free(ca);
  free(cb);
  /* Every plot's script and data. */
  snprintf(a, sizeof(a), "%s/plots", tu_at("ra"));
  cr_assert_not_null(dir = opendir(a));
  while ((e = readdir(dir)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(a, sizeof(a), "%s/plots/%s", tu_at("ra"), e->d_name);
    snprintf(b, sizeof(b), "%s/plots/%s", tu_at("rb"), e->d_name);
    assert_same_file(a, b);
    n++;
  }
  closedir(dir);
  cr_assert_gt(n, 10, "only %zu plot files", n);
}

/* Schedulers in registry order (an unknown name after them, a variant's
 * option sets after its defaults), workloads by workload_id, platforms by
 * platform_id: in the scheduler table and in runs.csv. */
Test(order, schedulers_by_registry_workloads_and_platforms_by_id)
{
  struct run v[ORDER_RUNS];
  const char *want[] = {"<code>sequential</code>", "<code>list</code>",
                        "<code>list[rule=lpath]</code>", "<code>spill</code>",
                        "<code>zeta</code>"};
  char path[1024], *html, *csv, *at;

  order_study(v);
  write_study_in(tu_at("o.h5"), v, ORDER_RUNS, NULL);
  html = report(tu_at("o.h5"), tu_at("o"));
  at = strstr(html, "id=\"schedulers\"");
  cr_assert_not_null(at);
  for (size_t k = 0; k < 5; k++) {
    char *next = strstr(at, want[k]);
    cr_assert_not_null(next, "%s not after %s", want[k], k ? want[k - 1] : "the heading");
    at = next + 1;
  }
  snprintf(path, sizeof(path), "%s/runs.csv", tu_at("o"));
  csv = slurp(path);
  /* net (workload 1) before cnn (2); in net, 256 KiB without a limit
   * (platform 1) first, its schedulers in registry order. */
  at = strchr(csv, '\n') + 1;
  cr_assert(strstr(at, ",\"p[cmx_kib=256,barriers=0,pe_count=4]\",net,") == strchr(at, ','),
            "%s", csv);
  cr_assert(strstr(at, ",sequential,,") < strstr(at, ",list,,") &&
            strstr(at, ",list,,") < strstr(at, ",list,rule=lpath,") &&
            strstr(at, ",list,rule=lpath,") < strstr(at, ",spill,,") &&
            strstr(at, ",spill,,") < strstr(at, ",zeta,,") &&
            strstr(at, ",zeta,,") < strstr(at, ",\"p[cmx_kib=512,barriers=0,pe_count=4]\",net,") &&
            strstr(at, ",\"p[cmx_kib=512,barriers=8,pe_count=4]\",net,") < strstr(at, ",cnn,"),
            "%s", csv);
  free(csv);
  free(html);
}
