/*
 * html.c - `acsim report`: DIR/index.html, DIR/runs.csv and DIR/plots/.
 *
 * The page is one self-contained HTML file (inline CSS, no script, no
 * network) that references only the SVG plots that gnuplot actually made,
 * and the scripts and data next to them. It answers first (html_answers.c),
 * then shows the runs, the schedulers and each workload. It fits a 1366
 * pixel wide screen: the content is at most 1180 pixels wide and every
 * table cell may wrap. It is written under a temporary name and renamed,
 * so a failed report never leaves half a page.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/load/load.h"
#include "report/plots_int.h"

static const char css[] =
  "*{box-sizing:border-box}"
  "body{margin:0;background:#f4f5f7;color:#1f2328;font:15px/1.5 system-ui,-apple-system,'Segoe UI',"
  "Helvetica,Arial,sans-serif}"
  "header{background:#1f2d3d;color:#fff;padding:22px 0 16px}"
  "header h1{margin:0 0 4px;font-size:24px;font-weight:600;overflow-wrap:anywhere}"
  "header p{margin:2px 0;color:#c9d3de;overflow-wrap:anywhere}"
  "header code{color:#fff;background:rgba(255,255,255,.1)}"
  ".wrap{max-width:1180px;margin:0 auto;padding:0 24px}"
  "nav{background:#fff;border-bottom:1px solid #d8dde3;position:sticky;top:0;z-index:2}"
  "nav .wrap{display:flex;flex-wrap:wrap;gap:4px 18px;padding-top:8px;padding-bottom:8px}"
  "nav a{color:#0b5cad;text-decoration:none;font-size:14px}nav a:hover{text-decoration:underline}"
  "section{margin:22px 0}h2{font-size:21px;margin:0 0 10px;padding-top:6px}"
  "h2 small{font-weight:400;color:#59636e;font-size:14px;margin-left:8px;overflow-wrap:anywhere}"
  ".lead{margin:0 0 10px;color:#3d4650;font-size:14px}"
  ".card{background:#fff;border:1px solid #d8dde3;border-radius:8px;padding:18px 20px;"
  "margin:0 0 18px;box-shadow:0 1px 2px rgba(0,0,0,.04)}"
  ".card h3{margin:0 0 10px;font-size:17px}"
  ".card img{display:block;width:100%;height:auto;margin:6px 0 10px}"
  ".card p{margin:6px 0;color:#3d4650;max-width:900px}"
  ".files{font-size:13px;color:#59636e}.files a{color:#0b5cad}"
  ".stats{display:flex;flex-wrap:wrap;gap:10px;margin:4px 0 14px}"
  ".stat{background:#fff;border:1px solid #d8dde3;border-radius:8px;padding:8px 14px;min-width:110px}"
  ".stat b{display:block;font-size:20px;font-weight:600}.stat span{color:#59636e;font-size:13px}"
  ".ok b{color:#1a7f37}.inf b{color:#9a6700}.err b{color:#cf222e}"
  "table{border-collapse:collapse;width:100%;font-size:14px;background:#fff}"
  "th,td{padding:6px 10px;border-bottom:1px solid #e6e9ed;text-align:left;vertical-align:top;"
  "overflow-wrap:break-word}"
  "th{background:#f6f8fa;font-weight:600;color:#3d4650}"
  "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}td.n{white-space:nowrap}"
  "tr:hover td{background:#fafbfc}"
  ".tablecard{padding:0}.tablecard table{border-radius:8px}"
  "table.answers td:first-child{font-weight:600}"
  ".card .tablecard{border:1px solid #e6e9ed;border-radius:6px;margin:0 0 12px}"
  "code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eef1f4;"
  "padding:1px 5px;border-radius:4px;overflow-wrap:anywhere}"
  ".sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px}"
  ".warn{background:#fff8c5;border:1px solid #d4a72c;border-radius:8px;padding:12px 16px;margin:12px 0}"
  "details.card summary{margin:0 0 8px}summary{cursor:pointer}.bad{background:#ffebe9;border:1px solid #ff8182;border-radius:8px;"
  "padding:12px 16px;margin:8px 0;overflow-wrap:anywhere}"
  ".muted{color:#59636e}.small{font-size:12.5px;color:#59636e;overflow-wrap:anywhere}"
  ".omitted{font-size:13.5px;color:#59636e}"
  "footer{color:#59636e;font-size:13px;padding:20px 0 40px}";

struct page {
  FILE *f;
  const struct acs__study *s;
  const struct acs__plots *pl;
  const struct acs_report_info *info;
  struct acs__cmp cmp;
};

static void put(struct page *pg, const char *s)
{
  acs__html_put(pg->f, s);
}

static void header(struct page *pg)
{
  const struct acs_results_data *d = &pg->s->data;

  fprintf(pg->f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
                 "<title>acsim study: ");
  put(pg, pg->s->path);
  fprintf(pg->f, "</title>\n<style>%s</style></head><body>\n<header><div class=\"wrap\">"
                 "<h1>Trade study: ", css);
  put(pg, pg->s->path);
  fprintf(pg->f, "</h1><p>%zu runs &middot; written by acsim ", pg->s->nruns);
  put(pg, d->acsim_version);
  fprintf(pg->f, " &middot; created ");
  put(pg, d->created_utc);
  fprintf(pg->f, "</p><p>last command: <code>");
  put(pg, d->command_line);
  fprintf(pg->f, "</code></p></div></header>\n<nav><div class=\"wrap\"><a href=\"#answers\">"
                 "Answers</a><a href=\"#runs\">Runs</a><a href=\"#schedulers\">Schedulers</a>");
  for (size_t w = 0; w < pg->s->nwl; w++) {
    fprintf(pg->f, "<a href=\"#wl%zu\">", w);
    put(pg, pg->s->wl[w]);
    fprintf(pg->f, "</a>");
  }
  fprintf(pg->f, "<a href=\"#data\">Data</a></div></nav>\n<div class=\"wrap\">\n");
}

/* ---- runs ---- */

static void status_counts(const struct acs__study *s, int wl, size_t n[4])
{
  memset(n, 0, 4 * sizeof(*n));
  for (size_t i = 0; i < s->nruns; i++) {
    int st;
    if (wl >= 0 && s->runs[i].wl != wl)
      continue;
    st = acs_status_parse(s->runs[i].r->status);
    n[st >= 0 && st < 4 ? st : ACS_ST_ERROR]++;
  }
}

static void stat_box(struct page *pg, const char *cls, size_t v, const char *what)
{
  fprintf(pg->f, "<div class=\"stat %s\"><b>%zu</b><span>%s</span></div>", cls, v, what);
}

static void param_values(struct page *pg, int param)
{
  const struct acs__study *s = pg->s;
  const double *v = param == s->xparam ? s->xv : s->yv;
  size_t n = param == s->xparam ? s->nx : s->ny;
  char buf[64];

  for (size_t i = 0; i < n; i++) {
    acs__param_label(param, v[i], buf, sizeof(buf));
    fprintf(pg->f, "%s", i ? ", " : "");
    put(pg, buf);
  }
}

static void axis_line(struct page *pg, int param, const char *sep)
{
  char name[ACS_UNIT_CLASS_MAX + 8];

  fprintf(pg->f, "%s<b>%s</b> (<code>", sep, acs__param_title(pg->s, param));
  put(pg, acs__param_name(pg->s, param, name, sizeof(name)));
  fprintf(pg->f, "</code>): ");
  param_values(pg, param);
}

static void study_facts(struct page *pg)
{
  const struct acs__study *s = pg->s;
  size_t n[4];

  status_counts(s, -1, n);
  fprintf(pg->f, "<section id=\"runs\"><h2>Runs</h2><div class=\"stats\">");
  stat_box(pg, "", s->nruns, "runs");
  stat_box(pg, "ok", n[ACS_ST_OK], "ok");
  stat_box(pg, "inf", n[ACS_ST_INFEASIBLE], "infeasible");
  stat_box(pg, "inf", n[ACS_ST_TIMEOUT], "timeout");
  stat_box(pg, "err", n[ACS_ST_ERROR], "error");
  stat_box(pg, "", s->nwl, "workloads");
  stat_box(pg, "", s->nsched, "schedulers");
  stat_box(pg, "", s->data.nplatforms, "platform variants");
  fprintf(pg->f, "</div>\n<div class=\"card\"><p>");
  if (s->xparam >= 0)
    axis_line(pg, s->xparam, "");
  else
    fprintf(pg->f, "No platform parameter varies in this study.");
  if (s->yparam >= 0)
    axis_line(pg, s->yparam, "<br>");
  if (s->nfam > 1) {
    fprintf(pg->f, "<br><b>Platform families</b> (other parameters that vary; plotted apart): ");
    for (size_t i = 0; i < s->nfam; i++) {
      fprintf(pg->f, "%s", i ? "; " : "");
      put(pg, s->fam[i]);
    }
  }
  fprintf(pg->f, "</p><p class=\"muted\">Makespans are %s, in cycles of the platform clock. "
                 "Every schedule was checked by the verifier before it was %s.</p></div>\n",
          s->simulated ? "simulated by SimGrid (DMA transfers share the DDR link)"
                       : "the schedulers' plans (the study was not simulated)",
          s->simulated ? "simulated" : "stored");
}

/* The most frequent error messages, so a failure is seen at the top. */
static void error_list(struct page *pg)
{
  const struct acs__study *s = pg->s;
  size_t shown = 0, total = 0;

  for (size_t i = 0; i < s->nruns; i++)
    total += strcmp(s->runs[i].r->status, "error") == 0;
  if (total == 0)
    return;
  fprintf(pg->f, "<details class=\"bad\"><summary><b>%zu run%s ended in error</b> (a scheduler "
                 "failure, a schedule the verifier rejected, or a failed simulation): the first "
                 "ones</summary><ul>", total, total == 1 ? "" : "s");
  for (size_t i = 0; i < s->nruns && shown < 5; i++) {
    const struct acs__srun *r = &s->runs[i];
    if (strcmp(r->r->status, "error") != 0)
      continue;
    fprintf(pg->f, "<li><code>");
    put(pg, s->sched[r->sched]);
    fprintf(pg->f, "</code> on <code>");
    put(pg, r->p->name);
    fprintf(pg->f, "</code>, ");
    put(pg, s->wl[r->wl]);
    fprintf(pg->f, ": ");
    put(pg, r->r->message);
    fprintf(pg->f, "</li>");
    shown++;
  }
  fprintf(pg->f, "</ul>All of them are in <a href=\"runs.csv\">runs.csv</a> (column "
                 "<code>message</code>).</details>\n");
}

static void workload_row(struct page *pg, int wl)
{
  const struct acs__study *s = pg->s;
  const struct acs__srun *best = NULL, *worst = NULL;
  const struct acs_workload_row *w = NULL;
  int64_t omin = -1, omax = -1, ops;
  size_t n[4];
  char mk[64];

  status_counts(s, wl, n);
  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    if (r->wl != wl)
      continue;
    w = r->w;
    ops = r->r->ops >= 0 ? r->r->ops : r->w->ops;
    if (ops >= 0 && (omin < 0 || ops < omin))
      omin = ops;
    omax = ops > omax ? ops : omax;
    if (r->eligible && acs__better(r, best))
      best = r;
    if (r->eligible && acs__worse(r, worst))
      worst = r;
  }
  fprintf(pg->f, "<tr><td><a href=\"#wl%d\">", wl);
  put(pg, s->wl[wl]);
  fprintf(pg->f, "</a></td><td>");
  put(pg, w ? w->kind : "");
  if (omin == omax)
    fprintf(pg->f, "</td><td class=\"n\">%lld</td>", (long long)omin);
  else
    fprintf(pg->f, "</td><td class=\"n\">%lld&ndash;%lld</td>", (long long)omin,
            (long long)omax);
  /* The four statuses apart, as on the cards: a timeout is a search cut
   * short, not a platform on which no schedule exists. */
  fprintf(pg->f, "<td class=\"n\">%zu / %zu / %zu / %zu</td>", n[ACS_ST_OK],
          n[ACS_ST_INFEASIBLE], n[ACS_ST_TIMEOUT], n[ACS_ST_ERROR]);
  if (!worst) {
    fprintf(pg->f, "<td class=\"muted\">no feasible run</td></tr>\n");
    return;
  }
  acs__fmt_cycles(worst->mk, mk, sizeof(mk));
  fprintf(pg->f, "<td class=\"n\">%s <span class=\"muted\">&times;%.2f the best</span></td>"
                 "</tr>\n", mk, worst->mk / best->mk);
}

static void workload_table(struct page *pg)
{
  fprintf(pg->f, "<div class=\"card tablecard\"><table><tr><th>workload</th><th>kind</th>"
                 "<th class=\"n\">ops</th><th class=\"n\">runs: ok / infeasible / timeout / "
                 "error</th><th class=\"n\">worst run that counts</th></tr>\n");
  for (size_t w = 0; w < pg->s->nwl; w++)
    workload_row(pg, (int)w);
  fprintf(pg->f, "</table></div></section>\n");
}

/* ---- schedulers ---- */

/* A memory model for the table; "optimistic" only where a resident one
 * exists to be optimistic against. */
static const char *mm_text(const struct acs__study *s, int resident, const char *mm)
{
  int any = 0;

  for (size_t w = 0; w < s->nwl; w++)
    any |= s->wl_resident[w];
  return resident ? "resident"
         : strcmp(mm, "transient") == 0 ? (any ? "transient (optimistic)" : "transient")
         : *mm ? mm : "unknown";
}

static void scheduler_row(struct page *pg, size_t k)
{
  const struct acs__study *s = pg->s;
  const struct acs__cmpcell *c = pg->cmp.cell ? acs__cmp_at(&pg->cmp, pg->cmp.rows - 1, k) : NULL;
  size_t n[4] = {0, 0, 0, 0}, runs = 0;
  int resident = 0;
  const char *mm = "";

  for (size_t i = 0; i < s->nruns; i++) {
    int st;
    if ((size_t)s->runs[i].sched != k)
      continue;
    runs++;
    resident = s->runs[i].resident;
    mm = s->runs[i].mm;
    st = acs_status_parse(s->runs[i].r->status);
    n[st >= 0 && st < 4 ? st : ACS_ST_ERROR]++;
  }
  fprintf(pg->f, "<tr><td>");
  acs__html_sched(pg->f, s->sched[k]);
  fprintf(pg->f, "</td><td>%s</td><td class=\"n\">%zu</td><td class=\"n\">%zu / %zu / %zu / "
                 "%zu</td>", mm_text(s, resident, mm), runs, n[ACS_ST_OK], n[ACS_ST_INFEASIBLE],
          n[ACS_ST_TIMEOUT], n[ACS_ST_ERROR]);
  if (c && c->n)
    fprintf(pg->f, "<td class=\"n\">%zu of %zu</td><td class=\"n\">%+.1f%%</td>"
                   "<td class=\"n\">%+.1f%%</td></tr>\n", c->wins, c->n,
            100.0 * (exp(c->sumlog / (double)c->n) - 1.0), 100.0 * (c->worst - 1.0));
  else
    fprintf(pg->f, "<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td></tr>\n");
}

static void scheduler_table(struct page *pg)
{
  fprintf(pg->f, "<div class=\"card tablecard\"><table><tr><th>scheduler</th><th>memory model"
                 "</th><th class=\"n\">runs</th><th class=\"n\">ok / infeasible / timeout / "
                 "error</th><th class=\"n\">best of its configuration</th><th class=\"n\">above "
                 "the best (geometric mean)</th><th class=\"n\">worst</th></tr>\n");
  for (size_t k = 0; k < pg->s->nsched; k++)
    scheduler_row(pg, k);
  fprintf(pg->f, "</table><p class=\"small muted\" style=\"padding:0 10px\">The best of a "
                 "configuration is its fastest run of a scheduler with a resident memory model "
                 "when the workload has one; schedulers whose model is transient (a tensor holds "
                 "CMX only while an op touches it) show optimistic bounds: they may lie below "
                 "that best and never count as it. Every table, heatmap and Gantt chart of this "
                 "page uses this definition.</p></div>\n");
}

static void plot_card(struct page *pg, const struct acs__plot *p)
{
  fprintf(pg->f, "<div class=\"card\"><h3>");
  put(pg, p->title);
  fprintf(pg->f, "</h3>\n");
  if (p->ok) {
    /* Never wider than drawn: a small plot scaled up would have huge type. */
    fprintf(pg->f, "<img src=\"plots/%s.svg\" style=\"max-width:%dpx\" alt=\"", p->name,
            p->width);
    put(pg, p->title);
    fprintf(pg->f, "\">\n");
  } else if (p->name[0] && pg->info->gnuplot_missing) {
    fprintf(pg->f, "<div class=\"warn\">Not drawn: gnuplot was not found when this report was "
                   "made. Install it (Debian: <code>apt-get install gnuplot-nox</code>) and run "
                   "<code>acsim report</code> again, or run <code>gnuplot %s.gp</code> in "
                   "<code>plots/</code>.</div>\n", p->name);
  } else if (p->name[0]) {
    fprintf(pg->f, "<div class=\"bad\">gnuplot could not draw this plot: ");
    put(pg, p->error);
    fprintf(pg->f, "</div>\n");
  }
  fprintf(pg->f, "<p>%s</p>\n", p->caption);
  if (p->name[0])
    fprintf(pg->f, "<p class=\"files\">Data <a href=\"plots/%s.dat\">%s.dat</a> &middot; script "
                   "<a href=\"plots/%s.gp\">%s.gp</a></p>\n", p->name, p->name, p->name, p->name);
  fprintf(pg->f, "</div>\n");
}

/* The plots left out of a section, and why (HTML sentences). */
static void omitted(struct page *pg, size_t i)
{
  if (pg->pl->omitted && i < pg->pl->nomitted && pg->pl->omitted[i][0])
    fprintf(pg->f, "<p class=\"omitted\">Not drawn: %s</p>\n", pg->pl->omitted[i]);
}

static void schedulers_section(struct page *pg)
{
  fprintf(pg->f, "<section id=\"schedulers\"><h2>Schedulers</h2>\n");
  scheduler_table(pg);
  for (size_t i = 0; i < pg->pl->n; i++)
    if (pg->pl->v[i].wl < 0)
      plot_card(pg, &pg->pl->v[i]);
  omitted(pg, pg->s->nwl);
  fprintf(pg->f, "</section>\n");
}

/* ---- workloads ---- */

static int workload_section(struct page *pg, int wl)
{
  const struct acs__study *s = pg->s;
  const struct acs_workload_row *w = NULL;
  int any = 0, err;

  for (size_t i = 0; i < s->nruns && !w; i++)
    if (s->runs[i].wl == wl)
      w = s->runs[i].w;
  fprintf(pg->f, "<section id=\"wl%d\"><h2>", wl);
  put(pg, s->wl[wl]);
  if (w) {
    fprintf(pg->f, "<small>");
    put(pg, w->kind);
    fprintf(pg->f, " &middot; <code>");
    put(pg, w->path);
    fprintf(pg->f, "</code></small>");
  }
  fprintf(pg->f, "</h2>\n");
  if ((err = acs__html_sizing(pg->f, s, wl)) < 0)
    return err;
  for (size_t i = 0; i < pg->pl->n; i++)
    if (pg->pl->v[i].wl == wl) {
      plot_card(pg, &pg->pl->v[i]);
      any = 1;
    }
  if (!any)
    fprintf(pg->f, "<div class=\"card\"><p class=\"muted\">No run of this workload found a "
                   "schedule, so there is nothing to plot; its runs are in runs.csv.</p></div>\n");
  omitted(pg, (size_t)wl);
  fprintf(pg->f, "</section>\n");
  return ACS_OK;
}

static void data_section(struct page *pg)
{
  fprintf(pg->f, "<section id=\"data\"><h2>Data</h2><div class=\"card\"><p><a href=\"runs.csv\">"
                 "runs.csv</a>: every run, one row each, with its platform's parameters and unit "
                 "counts as columns (for spreadsheets and pandas: "
                 "<code>pandas.read_csv(\"runs.csv\")</code>). Empty fields are missing values."
                 "</p><p>Each plot is made by gnuplot from a script and a data file in "
                 "<code>plots/</code>; edit the script and run <code>gnuplot NAME.gp</code> there "
                 "to restyle it. The study file itself, <code>");
  put(pg, pg->s->path);
  fprintf(pg->f, "</code>, is plain HDF5 (<code>h5dump -d /runs</code>, h5py).</p>"
                 "<p>Compare it with another study: <code>acsim compare BASE.h5 ");
  put(pg, pg->s->path);
  fprintf(pg->f, "</code> (exit 1 on any regression).</p></div></section>\n");
}

static int page_body(struct page *pg)
{
  int err;

  header(pg);
  if ((err = acs__html_answers(pg->f, pg->s)) < 0)
    return err;
  study_facts(pg);
  error_list(pg);
  workload_table(pg);
  schedulers_section(pg);
  for (size_t w = 0; w < pg->s->nwl; w++)
    if ((err = workload_section(pg, (int)w)) < 0)
      return err;
  data_section(pg);
  fprintf(pg->f, "</div><footer><div class=\"wrap\">Made by <code>acsim report</code> from ");
  put(pg, pg->s->path);
  fprintf(pg->f, ". Plots: gnuplot (SVG).</div></footer></body></html>\n");
  return ACS_OK;
}

static int write_page(const char *path, struct page *pg, struct acs_diag *d)
{
  char tmp[4200];
  int err, bad, e;

  snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid());
  if (!(pg->f = fopen(tmp, "w")))
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
  if ((err = acs__study_compare(pg->s, &pg->cmp)) == ACS_OK) {
    err = page_body(pg);
    acs__cmp_free(&pg->cmp);
  }
  bad = ferror(pg->f);
  bad |= fclose(pg->f) != 0;
  if (err == ACS_OK && (bad || rename(tmp, path) != 0)) {
    e = errno;
    unlink(tmp);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(e));
  }
  if (err < 0)
    unlink(tmp);
  return err;
}

int acs_report_write(const char *study, const char *dir, const struct acs_report_opts *o,
                     struct acs_report_info *info, struct acs_diag *d)
{
  struct acs__study s;
  struct acs__plots pl;
  struct page pg;
  char path[2400];
  int err;

  memset(info, 0, sizeof(*info));
  memset(&pl, 0, sizeof(pl));
  if ((err = acs__study_load(study, &s, d)) < 0)
    return err;
  if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
    err = acs_diag_set(d, ACS_EIO, dir, 0, 0, "cannot create the directory: %s", strerror(errno));
    goto out_with_study;
  }
  snprintf(path, sizeof(path), "%s/runs.csv", dir);
  if ((err = acs_report_write_csv(&s.data, path, d)) < 0)
    goto out_with_study;
  snprintf(pl.dir, sizeof(pl.dir), "%s/plots", dir);
  if ((err = acs__plots_write(&pl, &s, d)) < 0)
    goto out_with_plots;
  acs__plots_render(&pl, o ? o->gnuplot : NULL, info);
  info->runs = s.nruns;
  info->workloads = s.nwl;
  info->gantts = pl.gantts;
  memset(&pg, 0, sizeof(pg));
  pg.s = &s;
  pg.pl = &pl;
  pg.info = info;
  snprintf(path, sizeof(path), "%s/index.html", dir);
  err = write_page(path, &pg, d);
out_with_plots:
  acs__plots_free(&pl);
out_with_study:
  acs__study_free(&s);
  return err;
}
