/*
 * html.c - `acsim report`: DIR/index.html, DIR/runs.csv and DIR/plots/.
 *
 * The page is one self-contained HTML file (inline CSS, no script, no
 * network) that references only the SVG plots that gnuplot actually made,
 * and the scripts and data next to them. It is written under a temporary
 * name and renamed, so a failed report never leaves half a page.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/load/load.h"
#include "report/plots.h"

/* ---- runs.csv ---- */

/* A CSV field (RFC 4180): quoted when it holds a comma, quote or newline. */
static void csv_str(FILE *f, const char *s)
{
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The shortest text that reads back to the same double. */
static void csv_f64(FILE *f, double v)
{
  char buf[64];

  if (isnan(v))
    return;
  acs_vary_format_value(v, buf, sizeof(buf));
  fputs(buf, f);
}

static void csv_i64(FILE *f, int64_t v)
{
  if (v >= 0)
    fprintf(f, "%lld", (long long)v);
}

static void csv_row(FILE *f, const struct acs_results_data *data, const struct acs_run_row *r)
{
  const struct acs_platform_row *p = acs_results_platform_of(data, r);
  const struct acs_workload_row *w = acs_results_workload_of(data, r);

  fprintf(f, "%lld,", (long long)r->run_id);
  csv_str(f, p ? p->plat.name : "");
  fputc(',', f);
  csv_str(f, w ? w->name : "");
  fputc(',', f);
  csv_str(f, w ? w->kind : "");
  fputc(',', f);
  csv_str(f, w ? w->path : "");
  fputc(',', f);
  /* The run's own graph size; older files kept it in the workload row. */
  csv_i64(f, r->ops >= 0 ? r->ops : w ? w->ops : -1);
  fputc(',', f);
  csv_i64(f, r->ops >= 0 ? r->edges : w ? w->edges : -1);
  fputc(',', f);
  csv_str(f, r->scheduler);
  fputc(',', f);
  csv_str(f, r->options);
  fprintf(f, ",%s,%s,", r->status, r->memory_model);
  csv_f64(f, r->makespan_cycles), fputc(',', f);
  csv_f64(f, r->sim_makespan_cycles), fputc(',', f);
  csv_f64(f, r->lower_bound_cycles), fputc(',', f);
  csv_i64(f, r->peak_cmx_bytes), fputc(',', f);
  csv_i64(f, r->spill_bytes), fputc(',', f);
  csv_i64(f, r->ddr_bytes), fputc(',', f);
  csv_i64(f, r->barriers_used), fputc(',', f);
  csv_i64(f, r->control_edges), fputc(',', f);
  csv_f64(f, r->sched_seconds), fputc(',', f);
  csv_f64(f, r->sim_seconds), fputc(',', f);
  csv_f64(f, r->pe_utilization), fputc(',', f);
  csv_f64(f, r->dma_utilization);
  for (int k = 0; k < ACS_PARAM_COUNT; k++) {
    fputc(',', f);
    if (p)
      csv_f64(f, p->plat.v[k]);
  }
  fputc(',', f);
  csv_str(f, r->message);
  fputc('\n', f);
}

/* Opens path's temporary sibling for writing. */
static FILE *open_tmp(const char *path, char *tmp, size_t size)
{
  snprintf(tmp, size, "%s.tmp%ld", path, (long)getpid());
  return fopen(tmp, "w");
}

static int close_tmp(FILE *f, const char *tmp, const char *path, struct acs_diag *d)
{
  int bad = ferror(f);

  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(e));
  }
  return ACS_OK;
}

int acs_report_write_csv(const struct acs_results_data *data, const char *path,
                         struct acs_diag *d)
{
  char tmp[4200];
  FILE *f = open_tmp(path, tmp, sizeof(tmp));

  if (!f)
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
  fputs("run_id,platform,workload,workload_kind,workload_path,ops,edges,scheduler,options,status,"
        "memory_model,makespan_cycles,sim_makespan_cycles,lower_bound_cycles,peak_cmx_bytes,spill_bytes,"
        "ddr_bytes,barriers_used,control_edges,sched_seconds,sim_seconds,pe_utilization,"
        "dma_utilization", f);
  for (int k = 0; k < ACS_PARAM_COUNT; k++)
    fprintf(f, ",%s", acs_param_table[k].name);
  fputs(",message\n", f);
  for (size_t i = 0; i < data->nruns; i++)
    csv_row(f, data, &data->runs[i]);
  return close_tmp(f, tmp, path, d);
}

/* ---- the page ---- */

static const char css[] =
  "*{box-sizing:border-box}"
  "body{margin:0;background:#f4f5f7;color:#1f2328;font:15px/1.5 system-ui,-apple-system,'Segoe UI',"
  "Helvetica,Arial,sans-serif}"
  "header{background:#1f2d3d;color:#fff;padding:28px 0 22px}"
  "header h1{margin:0 0 4px;font-size:26px;font-weight:600}"
  "header p{margin:2px 0;color:#c9d3de}header code{color:#fff;background:rgba(255,255,255,.1)}"
  ".wrap{max-width:1180px;margin:0 auto;padding:0 24px}"
  "nav{background:#fff;border-bottom:1px solid #d8dde3;position:sticky;top:0;z-index:2}"
  "nav .wrap{display:flex;flex-wrap:wrap;gap:4px 18px;padding-top:9px;padding-bottom:9px}"
  "nav a{color:#0b5cad;text-decoration:none;font-size:14px}nav a:hover{text-decoration:underline}"
  "section{margin:28px 0}h2{font-size:21px;margin:0 0 12px;padding-top:6px}"
  "h2 small{font-weight:400;color:#59636e;font-size:14px;margin-left:8px}"
  ".card{background:#fff;border:1px solid #d8dde3;border-radius:8px;padding:18px 20px;"
  "margin:0 0 18px;box-shadow:0 1px 2px rgba(0,0,0,.04)}"
  ".card h3{margin:0 0 10px;font-size:17px}"
  ".card img{display:block;width:100%;height:auto;margin:6px 0 10px}"
  ".card p{margin:6px 0;color:#3d4650;max-width:900px}"
  ".files{font-size:13px;color:#59636e}.files a{color:#0b5cad}"
  ".stats{display:flex;flex-wrap:wrap;gap:12px;margin:4px 0 18px}"
  ".stat{background:#fff;border:1px solid #d8dde3;border-radius:8px;padding:10px 16px;min-width:120px}"
  ".stat b{display:block;font-size:22px;font-weight:600}.stat span{color:#59636e;font-size:13px}"
  ".ok b{color:#1a7f37}.inf b{color:#9a6700}.err b{color:#cf222e}"
  "table{border-collapse:collapse;width:100%;font-size:14px;background:#fff}"
  "th,td{padding:6px 10px;border-bottom:1px solid #e6e9ed;text-align:left;vertical-align:top}"
  "th{background:#f6f8fa;font-weight:600;color:#3d4650;white-space:nowrap}"
  "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
  "tr:hover td{background:#fafbfc}"
  ".tablecard{padding:0;overflow-x:auto}.tablecard table{border-radius:8px}"
  "code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eef1f4;"
  "padding:1px 5px;border-radius:4px}"
  ".warn{background:#fff8c5;border:1px solid #d4a72c;border-radius:8px;padding:12px 16px;margin:12px 0}"
  "summary{cursor:pointer}.bad{background:#ffebe9;border:1px solid #ff8182;border-radius:8px;padding:12px 16px;margin:8px 0}"
  ".muted{color:#59636e}.small{font-size:12.5px;color:#59636e}"
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

static void fmt_mk(double v, char *buf, size_t size)
{
  struct acs__scale sc = acs__scale_cycles(v);

  if (isnan(v))
    snprintf(buf, size, "-");
  else
    snprintf(buf, size, "%.4g %s", v / sc.div, sc.unit);
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
  fprintf(pg->f, "</code></p></div></header>\n<nav><div class=\"wrap\"><a href=\"#summary\">"
                 "Summary</a><a href=\"#schedulers\">Schedulers</a>");
  for (size_t w = 0; w < pg->s->nwl; w++) {
    fprintf(pg->f, "<a href=\"#wl%zu\">", w);
    put(pg, pg->s->wl[w]);
    fprintf(pg->f, "</a>");
  }
  fprintf(pg->f, "<a href=\"#data\">Data</a></div></nav>\n<div class=\"wrap\">\n");
}

static void status_counts(const struct acs__study *s, size_t n[4])
{
  memset(n, 0, 4 * sizeof(*n));
  for (size_t i = 0; i < s->nruns; i++) {
    int st = acs_status_parse(s->runs[i].r->status);
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

static void study_facts(struct page *pg)
{
  const struct acs__study *s = pg->s;
  size_t n[4];

  status_counts(s, n);
  fprintf(pg->f, "<section id=\"summary\"><h2>Summary</h2><div class=\"stats\">");
  stat_box(pg, "", s->nruns, "runs");
  stat_box(pg, "ok", n[ACS_ST_OK], "ok");
  stat_box(pg, "inf", n[ACS_ST_INFEASIBLE], "infeasible");
  stat_box(pg, "inf", n[ACS_ST_TIMEOUT], "timeout");
  stat_box(pg, "err", n[ACS_ST_ERROR], "error");
  stat_box(pg, "", s->nwl, "workloads");
  stat_box(pg, "", s->nsched, "schedulers");
  stat_box(pg, "", s->data.nplatforms, "platform variants");
  fprintf(pg->f, "</div>\n<div class=\"card\"><p>");
  if (s->xparam >= 0) {
    fprintf(pg->f, "<b>%s</b> (<code>%s</code>): ", acs__param_title(s->xparam),
            acs_param_table[s->xparam].name);
    param_values(pg, s->xparam);
  } else {
    fprintf(pg->f, "No platform parameter varies in this study.");
  }
  if (s->yparam >= 0) {
    fprintf(pg->f, "<br><b>%s</b> (<code>%s</code>): ", acs__param_title(s->yparam),
            acs_param_table[s->yparam].name);
    param_values(pg, s->yparam);
  }
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
  for (size_t i = 0; i < pg->pl->nnotes; i++)
    fprintf(pg->f, "<div class=\"warn\">%s</div>\n", pg->pl->notes[i]);
}

/* The smallest x at which some scheduler is within 5% of the workload's
 * best; with resident set, among resident runs only (README "Memory
 * models": a transient run at a small CMX is not a realizable answer). */
static const struct acs__srun *near_best(const struct acs__study *s, int wl, double best,
                                         int resident)
{
  const struct acs__srun *pick = NULL;

  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    if (r->wl != wl || !r->ok || r->mk > best * 1.05 || (resident && !r->resident))
      continue;
    if (!pick || r->xi < pick->xi || (r->xi == pick->xi && r->mk < pick->mk))
      pick = r;
  }
  return pick;
}

static void workload_row(struct page *pg, int wl)
{
  const struct acs__study *s = pg->s;
  const struct acs__srun *best = NULL, *worst = NULL, *near, *bound = NULL;
  size_t n[4] = {0, 0, 0, 0}, runs = 0;
  int64_t omin = -1, omax = -1, ops;
  char a[64], b[64];

  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    int st;
    if (r->wl != wl)
      continue;
    runs++;
    st = acs_status_parse(r->r->status);
    n[st >= 0 && st < 4 ? st : ACS_ST_ERROR]++;
    ops = r->r->ops >= 0 ? r->r->ops : r->w->ops;
    if (ops >= 0 && (omin < 0 || ops < omin))
      omin = ops;
    omax = ops > omax ? ops : omax;
    if (r->ok && r->resident && (!best || r->mk < best->mk))
      best = r;
    if (r->ok && !r->resident && (!bound || r->mk < bound->mk))
      bound = r;
    if (r->ok && (!worst || r->mk > worst->mk))
      worst = r;
  }
  /* The answers come from resident runs; without any, from all, and the
   * best transient run below them is shown as an optimistic bound. */
  if (!best) {
    best = bound;
    bound = NULL;
  }
  fprintf(pg->f, "<tr><td><a href=\"#wl%d\">", wl);
  put(pg, s->wl[wl]);
  if (omin == omax)
    fprintf(pg->f, "</a></td><td class=\"n\">%lld</td>", (long long)omin);
  else
    fprintf(pg->f, "</a></td><td class=\"n\">%lld&ndash;%lld</td>", (long long)omin,
            (long long)omax);
  (void)runs;
  /* The four statuses apart, as on the summary cards: a timeout is a search
   * cut short, not a platform on which no schedule exists. */
  fprintf(pg->f, "<td class=\"n\">%zu <span class=\"muted\">/</span> "
                 "%zu <span class=\"muted\">/</span> %zu <span class=\"muted\">/</span> "
                 "%zu</td>", n[ACS_ST_OK], n[ACS_ST_INFEASIBLE], n[ACS_ST_TIMEOUT],
          n[ACS_ST_ERROR]);
  if (!best) {
    fprintf(pg->f, "<td colspan=\"4\" class=\"muted\">no feasible run</td></tr>\n");
    return;
  }
  fmt_mk(best->mk, a, sizeof(a));
  fmt_mk(worst->mk, b, sizeof(b));
  fprintf(pg->f, "<td class=\"n\"><b>%s</b></td><td><code>", a);
  put(pg, s->sched[best->sched]);
  fprintf(pg->f, "</code><br><span class=\"small\">");
  put(pg, best->p->name);
  if (!best->resident) {
    fprintf(pg->f, "<br>no resident-model run; memory model ");
    put(pg, *best->mm ? best->mm : "unknown");
  }
  if (bound && bound->mk < best->mk) {
    fmt_mk(bound->mk, a, sizeof(a));
    fprintf(pg->f, "<br>optimistic bound %s (<code>", a);
    put(pg, s->sched[bound->sched]);
    fprintf(pg->f, "</code>, transient)");
  }
  fprintf(pg->f, "</span></td><td class=\"n\">%s<br><span class=\"muted\">&times;%.2f the best"
                 "</span></td><td>", b, worst->mk / best->mk);
  near = s->xparam >= 0 ? near_best(s, wl, best->mk, best->resident) : NULL;
  if (near) {
    acs__param_label(s->xparam, near->p->v[s->xparam], a, sizeof(a));
    fprintf(pg->f, "<b>");
    put(pg, a);
    fprintf(pg->f, "</b><br><span class=\"small\">");
    put(pg, s->sched[near->sched]);
    fprintf(pg->f, ", %.1f%% above</span>", 100.0 * (near->mk / best->mk - 1.0));
  }
  fprintf(pg->f, "</td></tr>\n");
}

static void workload_table(struct page *pg)
{
  const struct acs__study *s = pg->s;

  fprintf(pg->f, "<div class=\"card tablecard\"><table><tr><th>workload</th><th class=\"n\">ops"
                 "</th><th class=\"n\">runs: ok / infeasible / timeout / error</th>"
                 "<th class=\"n\">best makespan</th><th>best run</th><th class=\"n\">worst ok run"
                 "</th><th>");
  if (s->xparam >= 0)
    fprintf(pg->f, "smallest %s<br>within 5%% of best<br><span class=\"small\">(resident "
                   "memory models)</span>", acs__param_title(s->xparam));
  fprintf(pg->f, "</th></tr>\n");
  for (size_t w = 0; w < s->nwl; w++)
    workload_row(pg, (int)w);
  fprintf(pg->f, "</table></div>\n");
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

static void scheduler_table(struct page *pg)
{
  const struct acs__study *s = pg->s;
  const size_t all = pg->cmp.rows - 1;

  fprintf(pg->f, "<div class=\"card tablecard\"><table><tr><th>scheduler</th><th>memory model"
                 "</th><th class=\"n\">runs"
                 "</th><th class=\"n\">ok</th><th class=\"n\">infeasible</th><th class=\"n\">timeout"
                 "</th><th class=\"n\">error</th><th class=\"n\">best of its configuration</th><th class=\"n\">above the best"
                 " (geometric mean)</th><th class=\"n\">worst</th></tr>\n");
  for (size_t k = 0; k < s->nsched; k++) {
    size_t n[4] = {0, 0, 0, 0}, runs = 0;
    const struct acs__cmpcell *c = pg->cmp.cell ? acs__cmp_at(&pg->cmp, all, k) : NULL;
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
    fprintf(pg->f, "<tr><td><code>");
    put(pg, s->sched[k]);
    /* Transient figures are optimistic bounds: compared with the best
     * resident run, they may lie below it and never count as the best. */
    fprintf(pg->f, "</code></td><td>%s</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>"
                   "<td class=\"n\">%zu</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td>",
            resident                        ? "resident"
            : strcmp(mm, "transient") == 0 ? "transient (optimistic)"
            : *mm                          ? mm
                                           : "unknown",
            runs,
            n[ACS_ST_OK], n[ACS_ST_INFEASIBLE], n[ACS_ST_TIMEOUT], n[ACS_ST_ERROR]);
    if (c && c->n)
      fprintf(pg->f, "<td class=\"n\">%zu of %zu</td><td class=\"n\">%+.1f%%</td>"
                     "<td class=\"n\">%+.1f%%</td></tr>\n", c->wins, c->n,
              100.0 * (exp(c->sumlog / (double)c->n) - 1.0), 100.0 * (c->worst - 1.0));
    else
      fprintf(pg->f, "<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td></tr>\n");
  }
  fprintf(pg->f, "</table><p class=\"small muted\">The best of a configuration is its best run "
                 "of a scheduler with a resident memory model when there is one; schedulers "
                 "whose model is transient (a tensor holds CMX only while an op touches it) "
                 "show optimistic bounds: they may lie below that best and never count as "
                 "it.</p></div>\n");
}

static void plot_card(struct page *pg, const struct acs__plot *p)
{
  fprintf(pg->f, "<div class=\"card\"><h3>");
  put(pg, p->title);
  fprintf(pg->f, "</h3>\n");
  if (p->ok) {
    fprintf(pg->f, "<img src=\"plots/%s.svg\" alt=\"", p->name);
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

static void workload_section(struct page *pg, int wl)
{
  const struct acs__study *s = pg->s;
  const struct acs_workload_row *w = NULL;
  int any = 0;

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
  for (size_t i = 0; i < pg->pl->n; i++)
    if (pg->pl->v[i].wl == wl) {
      plot_card(pg, &pg->pl->v[i]);
      any = 1;
    }
  if (!any)
    fprintf(pg->f, "<div class=\"card\"><p class=\"muted\">No run of this workload found a "
                   "schedule, so there is nothing to plot; its runs are in runs.csv.</p></div>\n");
  fprintf(pg->f, "</section>\n");
}

static void data_section(struct page *pg)
{
  fprintf(pg->f, "<section id=\"data\"><h2>Data</h2><div class=\"card\"><p><a href=\"runs.csv\">"
                 "runs.csv</a>: every run, one row each, with its platform's parameters as columns "
                 "(for spreadsheets and pandas: <code>pandas.read_csv(\"runs.csv\")</code>). Empty "
                 "fields are missing values.</p><p>Each plot is made by gnuplot from a script and a "
                 "data file in <code>plots/</code>; edit the script and run <code>gnuplot "
                 "NAME.gp</code> there to restyle it. The study file itself, <code>");
  put(pg, pg->s->path);
  fprintf(pg->f, "</code>, is plain HDF5 (<code>h5dump -d /runs</code>, h5py).</p>"
                 "<p>Compare it with another study: <code>acsim compare BASE.h5 ");
  put(pg, pg->s->path);
  fprintf(pg->f, "</code> (exit 1 on any regression).</p></div></section>\n");
}

static int write_page(const char *path, struct page *pg, struct acs_diag *d)
{
  char tmp[4200];
  int err;

  if (!(pg->f = open_tmp(path, tmp, sizeof(tmp))))
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
  if ((err = acs__study_compare(pg->s, &pg->cmp)) < 0) {
    fclose(pg->f);
    unlink(tmp);
    return err;
  }
  header(pg);
  study_facts(pg);
  error_list(pg);
  workload_table(pg);
  fprintf(pg->f, "</section>\n<section id=\"schedulers\"><h2>Schedulers</h2>\n");
  scheduler_table(pg);
  for (size_t i = 0; i < pg->pl->n; i++)
    if (pg->pl->v[i].wl < 0)
      plot_card(pg, &pg->pl->v[i]);
  fprintf(pg->f, "</section>\n");
  for (size_t w = 0; w < pg->s->nwl; w++)
    workload_section(pg, (int)w);
  data_section(pg);
  fprintf(pg->f, "</div><footer><div class=\"wrap\">Made by <code>acsim report</code> from ");
  put(pg, pg->s->path);
  fprintf(pg->f, ". Plots: gnuplot (SVG).</div></footer></body></html>\n");
  acs__cmp_free(&pg->cmp);
  return close_tmp(pg->f, tmp, path, d);
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
