/*
 * plots.c - the report's plots as gnuplot scripts and data (see plots.h).
 *
 * Every plot is a pair NAME.gp / NAME.dat in DIR/plots; the script reads the
 * data by its plain name and writes NAME.svg, so `cd DIR/plots && gnuplot
 * NAME.gp` redraws it after a user restyles it. Schedulers keep one colour
 * and marker across all plots (their order of first appearance in the
 * study). gnuplot runs as a child process with its output in NAME.log; it is
 * never given anything but the script's name.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report/plots.h"

/* Tableau 10: distinguishable, and readable by most colour-blind people
 * thanks to the markers that go with them. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
static const int markers[] = {7, 5, 9, 11, 13, 15, 4, 6, 8, 10};
#define NSTYLE 10

/* ---- small helpers ---- */

const char *acs__html_esc(const char *s, char *buf, size_t size)
{
  size_t o = 0;

  for (; *s && o + 7 < size; s++) {
    const char *e = NULL;
    switch (*s) {
    case '&': e = "&amp;"; break;
    case '<': e = "&lt;"; break;
    case '>': e = "&gt;"; break;
    case '"': e = "&quot;"; break;
    case '\'': e = "&#39;"; break;
    default: buf[o++] = *s; continue;
    }
    o += (size_t)snprintf(buf + o, size - o, "%s", e);
  }
  buf[o < size ? o : size - 1] = '\0';
  return buf;
}

void acs__html_put(FILE *f, const char *s)
{
  char buf[4096];

  acs__html_esc(s, buf, sizeof(buf));
  fputs(buf, f);
}

struct acs__scale acs__scale_cycles(double max)
{
  struct acs__scale sc = {1, "cycles"};

  if (max >= 1e9)
    sc = (struct acs__scale){1e9, "Gcycles"};
  else if (max >= 1e6)
    sc = (struct acs__scale){1e6, "Mcycles"};
  else if (max >= 1e4)
    sc = (struct acs__scale){1e3, "kcycles"};
  return sc;
}

struct acs__scale acs__scale_bytes(double max)
{
  struct acs__scale sc = {1, "B"};

  if (max >= 1073741824.0)
    sc = (struct acs__scale){1073741824.0, "GiB"};
  else if (max >= 1048576.0)
    sc = (struct acs__scale){1048576.0, "MiB"};
  else if (max >= 1024.0)
    sc = (struct acs__scale){1024.0, "KiB"};
  return sc;
}

/* A gnuplot single-quoted string ('' stands for a quote). */
static void gp_str(FILE *f, const char *s)
{
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputc('\'', f);
    if (*s != '\n')
      fputc(*s, f);
  }
  fputc('\'', f);
}

/* A string field of a .dat file: double-quoted, quotes replaced. */
static void dat_str(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++)
    fputc(*s == '"' || *s == '\n' ? '\'' : *s, f);
  fputc('"', f);
}

static void caption(struct acs__plot *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void caption(struct acs__plot *p, const char *fmt, ...)
{
  size_t off = strlen(p->caption);
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(p->caption + off, sizeof(p->caption) - off, fmt, ap);
  va_end(ap);
}

/* File stem safe on any file system: letters, digits, '-', '_'. */
static void stem(char *buf, size_t size, const char *kind, const struct acs__study *s, int wl,
                 int fam)
{
  size_t o = (size_t)snprintf(buf, size, "%s", kind);

  if (wl >= 0) {
    o += (size_t)snprintf(buf + o, size - o, "_");
    for (const char *c = s->wl[wl]; *c && o + 1 < size; c++)
      buf[o++] = (char)((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                                (*c >= '0' && *c <= '9') || *c == '-' ? *c : '_');
    buf[o] = '\0';
  }
  if (fam > 0 && o < size)
    snprintf(buf + o, size - o, "_f%d", fam);
}

/* Opens NAME.gp and NAME.dat and writes the script's preamble; adds the
 * plot to the list. */
static int gp_begin(struct acs__plots *pl, const char *name, int wl, int fam, int w, int h,
                    FILE **gp, FILE **dat, struct acs__plot **out)
{
  char path[2400];
  struct acs__plot *p;
  int err;

  if ((err = acs_grow((void **)&pl->v, sizeof(*pl->v), &pl->cap, pl->n + 1)) < 0)
    return err;
  p = &pl->v[pl->n];
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "%s", name);
  p->wl = wl;
  p->fam = fam;
  snprintf(path, sizeof(path), "%s/%s.dat", pl->dir, name);
  if (!(*dat = fopen(path, "w")))
    return ACS_EIO;
  snprintf(path, sizeof(path), "%s/%s.gp", pl->dir, name);
  if (!(*gp = fopen(path, "w"))) {
    fclose(*dat);
    return ACS_EIO;
  }
  pl->n++;
  fprintf(*gp, "# acsim report plot. Data: %s.dat. Redraw after editing: gnuplot %s.gp\n", name,
          name);
  fprintf(*gp, "set terminal svg size %d,%d dynamic noenhanced font 'Helvetica,13' "
               "background rgb '#ffffff'\n", w, h);
  fprintf(*gp, "set output '%s.svg'\nset encoding utf8\n", name);
  fprintf(*gp, "set border 3 lw 1 lc rgb '#888888'\nset tics nomirror out scale 0.5 "
               "textcolor rgb '#333333'\nset grid back lw 1 lc rgb '#e6e6e6'\n"
               "set key noenhanced textcolor rgb '#333333'\nset datafile missing 'NaN'\n");
  for (int i = 0; i < NSTYLE; i++)
    fprintf(*gp, "set style line %d lw 2 pt %d ps 0.8 lc rgb '%s'\n", i + 1, markers[i],
            palette[i]);
  *out = p;
  return ACS_OK;
}

static int gp_end(FILE *gp, FILE *dat)
{
  int bad = ferror(gp) | ferror(dat);

  bad |= fclose(gp) != 0;
  bad |= fclose(dat) != 0;
  return bad ? ACS_EIO : ACS_OK;
}

/* ---- the grid of one (workload, family) ---- */

struct grid {
  const struct acs__study *s;
  int wl, fam;
  int *cell;                 /* (yi * nx + xi) * nsched + k -> run index, -1 */
  size_t nruns, nok;
  double lo, hi;             /* makespan range over ok runs */
};

static int *cell_at(struct grid *g, size_t xi, size_t yi, size_t k)
{
  return &g->cell[(yi * g->s->nx + xi) * g->s->nsched + k];
}

static const struct acs__srun *grun(struct grid *g, size_t xi, size_t yi, size_t k)
{
  int i = *cell_at(g, xi, yi, k);

  return i >= 0 ? &g->s->runs[i] : NULL;
}

/* The latest run of each cell (a file appended to twice may repeat one). */
static int grid_build(struct grid *g, const struct acs__study *s, int wl, int fam)
{
  size_t n = s->nx * s->ny * s->nsched;

  memset(g, 0, sizeof(*g));
  g->s = s;
  g->wl = wl;
  g->fam = fam;
  g->lo = INFINITY;
  g->hi = -INFINITY;
  if (!(g->cell = malloc((n ? n : 1) * sizeof(*g->cell))))
    return ACS_ENOMEM;
  for (size_t i = 0; i < n; i++)
    g->cell[i] = -1;
  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    int *c;
    if (r->wl != wl || r->fam != fam)
      continue;
    c = cell_at(g, (size_t)r->xi, (size_t)r->yi, (size_t)r->sched);
    if (*c >= 0 && s->runs[*c].r->run_id > r->r->run_id)
      continue;
    *c = (int)i;
  }
  for (size_t i = 0; i < n; i++) {
    const struct acs__srun *r = g->cell[i] >= 0 ? &s->runs[g->cell[i]] : NULL;
    if (!r)
      continue;
    g->nruns++;
    if (!r->ok)
      continue;
    g->nok++;
    g->lo = fmin(g->lo, r->mk);
    g->hi = fmax(g->hi, r->mk);
  }
  return ACS_OK;
}

static const char *family_suffix(const struct acs__study *s, int fam, char *buf, size_t size)
{
  if (s->nfam > 1)
    snprintf(buf, size, " on %s", s->fam[fam]);
  else
    buf[0] = '\0';
  return buf;
}

static const char *mk_word(const struct acs__study *s)
{
  return s->simulated ? "simulated makespan" : "planned makespan";
}

/* X axis of the parameter plots: numeric tics at the values, log2 when the
 * values span a factor of 8 or more. */
static void gp_xaxis(FILE *gp, const struct acs__study *s)
{
  int log = s->xv[0] > 0 && s->xv[s->nx - 1] / s->xv[0] >= 8;

  fprintf(gp, "set xlabel '%s%s'\n", acs__param_title(s->xparam),
          s->xparam == ACS_P_CMX_KIB ? " (KiB)" : "");
  if (log)
    fprintf(gp, "set logscale x 2\nset xrange [%.17g:%.17g]\n", s->xv[0] / 1.15,
            s->xv[s->nx - 1] * 1.15);
  else {
    double span = s->xv[s->nx - 1] - s->xv[0];
    fprintf(gp, "set xrange [%.17g:%.17g]\n", s->xv[0] - 0.05 * span, s->xv[s->nx - 1] + 0.05 * span);
  }
  fprintf(gp, "set xtics (");
  for (size_t i = 0; i < s->nx; i++)
    fprintf(gp, "%s'%g' %.17g", i ? ", " : "", s->xv[i], s->xv[i]);
  fprintf(gp, ")\n");
}

static void y_title(const struct acs__study *s, size_t yi, char *buf, size_t size)
{
  char v[64];

  if (s->yparam < 0) {
    buf[0] = '\0';
    return;
  }
  acs__param_label(s->yparam, s->yv[yi], v, sizeof(v));
  snprintf(buf, size, "%s: %s", acs__param_title(s->yparam), v);
}

/* A legend alone in the last cell of a multiplot. */
static void gp_legend_cell(FILE *gp, const struct acs__study *s, const int *used)
{
  int first = 1;

  fprintf(gp, "unset border\nunset tics\nunset xlabel\nunset ylabel\nunset title\nunset grid\n"
              "unset logscale\nset xrange [0:1]\nset yrange [0:1]\n"
              "set key center center vertical Left reverse samplen 2 spacing 1.4 font ',14'\n"
              "plot ");
  for (size_t k = 0; k < s->nsched; k++) {
    if (!used[k])
      continue;
    fprintf(gp, "%sNaN with linespoints ls %zu title ", first ? "" : ", ", k % NSTYLE + 1);
    gp_str(gp, s->sched[k]);
    first = 0;
  }
  if (first)
    fprintf(gp, "NaN notitle");
  fprintf(gp, "\n");
}

/* ---- makespan against x, a panel per y ---- */

/* Writes the series of one panel (value v(run) against x) as .dat blocks
 * and its plot command; *block counts the blocks written so far. */
static void series_panel(FILE *gp, FILE *dat, const char *name, struct grid *g, size_t yi,
                         int *block, double (*v)(const struct acs__srun *), double div, int *used,
                         int key)
{
  const struct acs__study *s = g->s;
  int first = 1;

  for (size_t k = 0; k < s->nsched; k++) {
    int pts = 0;
    for (size_t xi = 0; xi < s->nx; xi++) {
      const struct acs__srun *r = grun(g, xi, yi, k);
      double y = r ? v(r) : NAN;
      if (isnan(y))
        continue;
      if (!pts)
        fprintf(dat, "# %s, panel %zu\n", s->sched[k], yi);
      fprintf(dat, "%.17g %.10g\n", s->xv[xi], y / div);
      pts++;
    }
    if (!pts)
      continue;
    fprintf(dat, "\n\n");
    used[k] = 1;
    fprintf(gp, "%s'%s.dat' index %d using 1:2 with linespoints ls %zu ", first ? "plot " : ", ",
            name, (*block)++, k % NSTYLE + 1);
    if (key) {
      fputs("title ", gp);
      gp_str(gp, s->sched[k]);
    } else {
      fputs("notitle", gp);
    }
    first = 0;
  }
  if (first)
    fprintf(gp, "plot NaN notitle");
  fprintf(gp, "\n");
}

static double v_mk(const struct acs__srun *r)
{
  return r->mk;
}

static void layout(size_t cells, int *rows, int *cols)
{
  *cols = cells >= 3 ? 3 : (int)cells;
  *rows = (int)((cells + (size_t)*cols - 1) / (size_t)*cols);
}

static int plot_makespan(struct acs__plots *pl, struct grid *g)
{
  const struct acs__study *s = g->s;
  struct acs__scale sc = acs__scale_cycles(g->hi);
  char name[200], fs[ACS__LABEL + 8], yt[128];
  int rows, cols, block = 0, *used, err, multi = s->ny > 1;
  struct acs__plot *p;
  FILE *gp, *dat;

  layout(s->ny + 1, &rows, &cols);
  stem(name, sizeof(name), "makespan", s, g->wl, g->fam);
  if (!(used = calloc(s->nsched, sizeof(*used))))
    return ACS_ENOMEM;
  if ((err = gp_begin(pl, name, g->wl, g->fam, multi ? 1100 : 820, multi ? 330 * rows : 440, &gp,
                      &dat, &p)) < 0) {
    free(used);
    return err;
  }
  snprintf(p->title, sizeof(p->title), "Makespan against %s%s", acs__param_title(s->xparam),
           family_suffix(s, g->fam, fs, sizeof(fs)));
  gp_xaxis(gp, s);
  fprintf(gp, "set ylabel '%s (%s)'\nset yrange [%.10g:%.10g]\n", mk_word(s), sc.unit,
          g->lo / sc.div * 0.95, g->hi / sc.div * 1.04);
  if (multi)
    fprintf(gp, "set multiplot layout %d,%d\nset key off\n", rows, cols);
  else
    fprintf(gp, "set key outside right top\n");
  for (size_t yi = 0; yi < s->ny; yi++) {
    y_title(s, yi, yt, sizeof(yt));
    fprintf(gp, "set title ");
    gp_str(gp, yt);
    fprintf(gp, "\n");
    series_panel(gp, dat, name, g, yi, &block, v_mk, sc.div, used, !multi);
  }
  if (multi) {
    gp_legend_cell(gp, s, used);
    fprintf(gp, "unset multiplot\n");
  }
  free(used);
  caption(p, "One line per scheduler; lower is better.");
  if (multi)
    caption(p, " One panel per value of %s (the last cell is the legend), all on the same "
               "y axis.", acs__param_title(s->yparam));
  caption(p, " A missing point is a run that was infeasible or failed on that platform.");
  return gp_end(gp, dat);
}

/* ---- heatmap over x and y: the best scheduler of each cell ---- */

/* Black text on light cells, white on dark: the palette's luminance falls
 * from 0 to 1. */
static long label_colour(double t)
{
  return t < 0.55 ? 0x222222 : 0xffffff;
}

/* The best run of a cell; *any tells whether the cell has runs at all. */
static const struct acs__srun *cell_best(struct grid *g, size_t xi, size_t yi, int *any)
{
  const struct acs__srun *best = NULL;

  *any = 0;
  for (size_t k = 0; k < g->s->nsched; k++) {
    const struct acs__srun *r = grun(g, xi, yi, k);
    *any |= r != NULL;
    if (r && r->ok && (!best || r->mk < best->mk))
      best = r;
  }
  return best;
}

/* The colour scale spans the cells' values, not every run's, so the map
 * uses its whole range. */
static void heat_range(struct grid *g, double *lo, double *hi)
{
  *lo = INFINITY;
  *hi = -INFINITY;
  for (size_t yi = 0; yi < g->s->ny; yi++)
    for (size_t xi = 0; xi < g->s->nx; xi++) {
      int any;
      const struct acs__srun *b = cell_best(g, xi, yi, &any);
      if (b) {
        *lo = fmin(*lo, b->mk);
        *hi = fmax(*hi, b->mk);
      }
    }
}

static void heat_cell(FILE *dat, struct grid *g, size_t xi, size_t yi, double div, double lo,
                      double hi)
{
  const struct acs__study *s = g->s;
  int any;
  const struct acs__srun *best = cell_best(g, xi, yi, &any);

  if (!best) {
    fprintf(dat, "%zu %zu NaN \"%s\" \"\" %ld\n", xi, yi, any ? "infeasible" : "not run", 0x555555L);
    return;
  }
  fprintf(dat, "%zu %zu %.10g \"%.*f\" ", xi, yi, best->mk / div,
          best->mk / div < 10 ? 2 : best->mk / div < 100 ? 1 : 0, best->mk / div);
  dat_str(dat, s->sched[best->sched]);
  fprintf(dat, " %ld\n", label_colour(hi > lo ? (best->mk - lo) / (hi - lo) : 0));
}

static void heat_axes(FILE *gp, const struct acs__study *s)
{
  char v[64];

  fprintf(gp, "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\nset xtics (", s->nx - 1, s->ny - 1);
  for (size_t i = 0; i < s->nx; i++)
    fprintf(gp, "%s'%g' %zu", i ? ", " : "", s->xv[i], i);
  fprintf(gp, ") scale 0\nset ytics (");
  for (size_t i = 0; i < s->ny; i++) {
    acs__param_label(s->yparam, s->yv[i], v, sizeof(v));
    fprintf(gp, "%s", i ? ", " : "");
    gp_str(gp, v);
    fprintf(gp, " %zu", i);
  }
  fprintf(gp, ") scale 0\nset xlabel '%s%s'\nset ylabel '%s'\n", acs__param_title(s->xparam),
          s->xparam == ACS_P_CMX_KIB ? " (KiB)" : "", acs__param_title(s->yparam));
}

static int plot_heatmap(struct acs__plots *pl, struct grid *g)
{
  const struct acs__study *s = g->s;
  struct acs__scale sc = acs__scale_cycles(g->hi);
  char name[200], fs[ACS__LABEL + 8];
  struct acs__plot *p;
  FILE *gp, *dat;
  int err, w = 300 + 110 * (int)s->nx, h = 140 + 62 * (int)s->ny;
  double lo, hi;

  stem(name, sizeof(name), "heatmap", s, g->wl, g->fam);
  if ((err = gp_begin(pl, name, g->wl, g->fam, w < 640 ? 640 : w, h < 360 ? 360 : h, &gp, &dat,
                      &p)) < 0)
    return err;
  snprintf(p->title, sizeof(p->title), "Best %s over %s and %s%s", mk_word(s),
           acs__param_title(s->xparam), acs__param_title(s->yparam),
           family_suffix(s, g->fam, fs, sizeof(fs)));
  fprintf(dat, "# xi yi makespan_%s label best_scheduler label_colour\n", sc.unit);
  heat_range(g, &lo, &hi);
  for (size_t yi = 0; yi < s->ny; yi++)
    for (size_t xi = 0; xi < s->nx; xi++)
      heat_cell(dat, g, xi, yi, sc.div, lo, hi);
  heat_axes(gp, s);
  fprintf(gp, "unset grid\nset border 0\nset rmargin 16\nset cblabel '%s (%s)'\n"
              "set cbrange [%.10g:%.10g]\n"
              "set palette defined (0 '#fff7bc', 0.3 '#fec44f', 0.6 '#ec7014', 1 '#7f2704')\n"
              "set colorbox user origin graph 1.03,0 size character 2, graph 1\n"
              "set object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb '#d9d9d9' "
              "fs solid noborder\n",
          mk_word(s), sc.unit, lo / sc.div, hi > lo ? hi / sc.div : lo / sc.div + 1);
  fprintf(gp, "plot '%s.dat' using 1:2:3 with image pixels notitle, \\\n"
              "  '' using 1:($2+0.13):4:6 with labels tc rgb variable font ',13' notitle, \\\n"
              "  '' using 1:($2-0.2):5:6 with labels tc rgb variable font ',10' notitle\n", name);
  caption(p, "Each cell is the lowest makespan any scheduler reached on that platform (in %s), "
             "with the scheduler that reached it. Light is fast, dark is slow; a gray cell had no "
             "feasible schedule.", sc.unit);
  return gp_end(gp, dat);
}

/* ---- bytes moved against x ---- */

static double v_spill(const struct acs__srun *r)
{
  return r->ok && r->r->spill_bytes >= 0 ? (double)r->r->spill_bytes : NAN;
}

static double v_ddr(const struct acs__srun *r)
{
  return r->ok && r->r->ddr_bytes >= 0 ? (double)r->r->ddr_bytes : NAN;
}

static double max_of(struct grid *g, size_t yi, double (*v)(const struct acs__srun *))
{
  double m = 0;

  for (size_t xi = 0; xi < g->s->nx; xi++)
    for (size_t k = 0; k < g->s->nsched; k++) {
      const struct acs__srun *r = grun(g, xi, yi, k);
      if (r && !isnan(v(r)))
        m = fmax(m, v(r));
    }
  return m;
}

static int plot_bytes(struct acs__plots *pl, struct grid *g)
{
  const struct acs__study *s = g->s;
  size_t yi = acs__study_loosest_y(s);
  double mspill = max_of(g, yi, v_spill), mddr = max_of(g, yi, v_ddr);
  struct acs__scale ss = acs__scale_bytes(mspill), sd = acs__scale_bytes(mddr);
  char name[200], fs[ACS__LABEL + 8], yt[128];
  int block = 0, *used, err;
  struct acs__plot *p;
  FILE *gp, *dat;

  stem(name, sizeof(name), "bytes", s, g->wl, g->fam);
  if (!(used = calloc(s->nsched, sizeof(*used))))
    return ACS_ENOMEM;
  if ((err = gp_begin(pl, name, g->wl, g->fam, 1100, 400, &gp, &dat, &p)) < 0) {
    free(used);
    return err;
  }
  y_title(s, yi, yt, sizeof(yt));
  snprintf(p->title, sizeof(p->title), "Spilled and DDR bytes against %s%s",
           acs__param_title(s->xparam), family_suffix(s, g->fam, fs, sizeof(fs)));
  gp_xaxis(gp, s);
  fprintf(gp, "set multiplot layout 1,2\nset key top right\nset yrange [0:*]\n"
              "set title 'spilled from CMX to DDR'\nset ylabel 'spilled (%s)'\n", ss.unit);
  if (mspill == 0)
    fprintf(gp, "set yrange [0:1]\n");
  series_panel(gp, dat, name, g, yi, &block, v_spill, ss.div, used, 1);
  fprintf(gp, "set title 'all DDR traffic (loads, stores, spills)'\nset ylabel 'DDR traffic (%s)'\n"
              "set yrange [0:*]\nset key off\n", sd.unit);
  series_panel(gp, dat, name, g, yi, &block, v_ddr, sd.div, used, 0);
  fprintf(gp, "unset multiplot\n");
  free(used);
  caption(p, "Left: bytes the scheduler spilled from CMX to DDR to make room. Right: every byte "
             "moved between DDR and CMX. A smaller CMX means more tiles and more traffic over the "
             "shared DDR link.");
  if (s->yparam >= 0)
    caption(p, " Drawn at %s.", yt);
  if (mspill == 0)
    caption(p, " No run of this workload recorded spilled bytes.");
  return gp_end(gp, dat);
}

/* ---- the cost of contention ---- */

static double v_slow(const struct acs__srun *r)
{
  if (!r->ok || isnan(r->r->sim_makespan_cycles) || !(r->r->makespan_cycles > 0))
    return NAN;
  return 100.0 * (r->r->sim_makespan_cycles - r->r->makespan_cycles) / r->r->makespan_cycles;
}

static int cmp_dbl(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* Median and maximum slowdown of the grid's runs, for the caption. */
static void slow_stats(struct grid *g, struct acs__plot *p)
{
  const struct acs__study *s = g->s;
  size_t n = s->nx * s->ny * s->nsched, m = 0;
  const struct acs__srun *worst = NULL;
  double *v = malloc((n ? n : 1) * sizeof(*v));

  if (!v)
    return;
  for (size_t i = 0; i < n; i++) {
    const struct acs__srun *r = g->cell[i] >= 0 ? &s->runs[g->cell[i]] : NULL;
    if (!r || isnan(v_slow(r)))
      continue;
    v[m++] = v_slow(r);
    if (!worst || v_slow(r) > v_slow(worst))
      worst = r;
  }
  if (m > 0) {
    char b1[ACS__LABEL * 2], b2[ACS__LABEL * 2];
    qsort(v, m, sizeof(*v), cmp_dbl);
    caption(p, " Over %zu simulated runs the median slowdown is %.2f%%; the largest, %.2f%%, is "
               "%s on %s.", m, v[m / 2], v[m - 1],
            acs__html_esc(s->sched[worst->sched], b1, sizeof(b1)),
            acs__html_esc(worst->p->name, b2, sizeof(b2)));
  }
  free(v);
}

static void scatter(FILE *gp, FILE *dat, const char *name, struct grid *g, double div, int *block)
{
  const struct acs__study *s = g->s;
  int first = 1;

  for (size_t k = 0; k < s->nsched; k++) {
    int pts = 0;
    for (size_t yi = 0; yi < s->ny; yi++)
      for (size_t xi = 0; xi < s->nx; xi++) {
        const struct acs__srun *r = grun(g, xi, yi, k);
        if (!r || isnan(v_slow(r)))
          continue;
        fprintf(dat, "%.10g %.10g\n", r->r->makespan_cycles / div, r->r->sim_makespan_cycles / div);
        pts++;
      }
    if (!pts)
      continue;
    fprintf(dat, "\n\n");
    fprintf(gp, "%s'%s.dat' index %d using 1:2 with points ls %zu title ", first ? "" : ", ", name,
            (*block)++, k % NSTYLE + 1);
    gp_str(gp, s->sched[k]);
    first = 0;
  }
  fprintf(gp, "%sx with lines lw 1 dt 2 lc rgb '#777777' title 'as planned'\n", first ? "" : ", ");
}

static int plot_contention(struct acs__plots *pl, struct grid *g)
{
  const struct acs__study *s = g->s;
  struct acs__scale sc = acs__scale_cycles(g->hi);
  size_t yi = acs__study_loosest_y(s);
  char name[200], fs[ACS__LABEL + 8], yt[128];
  int block = 0, *used, err, withx = s->xparam >= 0 && s->nx > 1;
  struct acs__plot *p;
  FILE *gp, *dat;

  stem(name, sizeof(name), "contention", s, g->wl, g->fam);
  if (!(used = calloc(s->nsched, sizeof(*used))))
    return ACS_ENOMEM;
  if ((err = gp_begin(pl, name, g->wl, g->fam, withx ? 1100 : 620, 420, &gp, &dat, &p)) < 0) {
    free(used);
    return err;
  }
  snprintf(p->title, sizeof(p->title), "Planned against simulated makespan: the cost of "
           "contention%s", family_suffix(s, g->fam, fs, sizeof(fs)));
  if (withx)
    fprintf(gp, "set multiplot layout 1,2\n");
  fprintf(gp, "set title 'every run'\nset xlabel 'planned makespan (%s)'\n"
              "set ylabel 'simulated makespan (%s)'\nset key top left\nset size ratio -1\n"
              "set xrange [%.10g:%.10g]\nset yrange [%.10g:%.10g]\nplot ",
          sc.unit, sc.unit, g->lo / sc.div * 0.9, g->hi / sc.div * 1.05, g->lo / sc.div * 0.9,
          g->hi / sc.div * 1.05);
  scatter(gp, dat, name, g, sc.div, &block);
  if (withx) {
    y_title(s, yi, yt, sizeof(yt));
    fprintf(gp, "set size noratio\nset key off\nset title 'slowdown against %s%s%s'\n"
                "set ylabel 'simulated / planned - 1 (%%)'\nset yrange [*:*]\n",
            acs__param_title(s->xparam), s->yparam >= 0 ? ", " : "", yt);
    gp_xaxis(gp, s);
    series_panel(gp, dat, name, g, yi, &block, v_slow, 1.0, used, 0);
    fprintf(gp, "unset multiplot\n");
  }
  free(used);
  caption(p, "The planner assumes every transfer runs alone; SimGrid replays the plan with DMA "
             "transfers sharing the DDR link. Points above the dashed line ran slower than "
             "planned.");
  slow_stats(g, p);
  return gp_end(gp, dat);
}

/* ---- Gantt charts of the best and worst run of a workload ---- */

enum { G_DPU, G_SHAVE, G_LOAD, G_STORE, G_DMA, G_ADDED, G_OTHER, G__N };
static const char *const gcat_name[G__N] = {"compute (dpu)", "compute (shave)", "DMA DDR to CMX",
                                            "DMA CMX to DDR", "DMA other", "added by the scheduler",
                                            "no unit"};
static const long gcat_rgb[G__N] = {0x4e79a7, 0x76b7b2, 0x59a14f, 0xf28e2b,
                                    0xedc948, 0xe15759, 0xbab0ac};

static int gcat(const struct acs_schedule *sc, int32_t i)
{
  const struct acs_sop *o = &sc->ops[i];

  if (i >= sc->norig)
    return G_ADDED;
  if (o->unit < 0)
    return G_OTHER;
  if (o->kind == ACS_OP_DMA)
    return o->src == ACS_MEM_DDR ? G_LOAD : o->dst == ACS_MEM_DDR ? G_STORE : G_DMA;
  return o->kind == ACS_OP_SHAVE ? G_SHAVE : G_DPU;
}

/* Row of an op: PEs from the top, then DMA channels, then "no unit". */
static int grow_of(const struct acs_schedule *sc, int32_t i, int npe, int ndma)
{
  const struct acs_sop *o = &sc->ops[i];

  if (o->unit < 0)
    return npe + ndma;
  return o->kind == ACS_OP_DMA ? npe + o->unit : o->unit;
}

struct gpanel {
  const struct acs__srun *run;
  struct acs_schedule sc;
  int have, npe, ndma, other;
  unsigned cats;             /* categories present (1 << G_*) */
  char why[1024];
};

static void gpanel_load(const struct acs__study *s, const struct acs__srun *r, struct gpanel *gp)
{
  struct acs_diag d;

  memset(gp, 0, sizeof(*gp));
  gp->run = r;
  acs_diag_init(&d);
  if (acs_results_read_schedule(s->path, r->r->run_id, &gp->sc, &d) < 0) {
    snprintf(gp->why, sizeof(gp->why), "%s", d.msg);
    return;
  }
  if (gp->sc.nops == 0) { /* the sweep kept only its result tables */
    acs_schedule_destroy(&gp->sc);
    snprintf(gp->why, sizeof(gp->why), "only the result tables of run %lld were kept",
             (long long)r->r->run_id);
    return;
  }
  gp->have = 1;
  gp->npe = (int)r->p->v[ACS_P_PE_COUNT];
  gp->ndma = (int)r->p->v[ACS_P_DMA_CHANNELS];
  for (int32_t i = 0; i < gp->sc.nops; i++) {
    const struct acs_sop *o = &gp->sc.ops[i];
    if (o->kind == ACS_OP_DMA && o->unit >= gp->ndma)
      gp->ndma = o->unit + 1;
    else if (o->kind != ACS_OP_DMA && o->unit >= gp->npe)
      gp->npe = o->unit + 1;
    gp->other |= o->unit < 0 && o->end > o->start;
    if (o->end > o->start)
      gp->cats |= 1u << gcat(&gp->sc, i);
  }
}

struct gbar {
  int row;
  double a, b;
  int32_t op;
};

static int cmp_gbar(const void *pa, const void *pb)
{
  const struct gbar *x = pa, *y = pb;

  if (x->row != y->row)
    return x->row < y->row ? -1 : 1;
  if (x->a != y->a)
    return x->a < y->a ? -1 : 1;
  return x->op < y->op ? -1 : x->op > y->op;
}

/* Lighter shade of a colour, for every other op of a row: neighbours stay
 * apart without a border that would hide ops narrower than a pixel. */
static long lighten(long rgb)
{
  long r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;

  r += (255 - r) * 35 / 100;
  g += (255 - g) * 35 / 100;
  b += (255 - b) * 35 / 100;
  return (r << 16) | (g << 8) | b;
}

/* One block of bars: centre, row, half width, half height, colour; sorted by
 * row and start so shades alternate along each row. O(V log V). */
static int gpanel_data(FILE *dat, const struct gpanel *gp, double div)
{
  struct gbar *v = malloc(((size_t)gp->sc.nops + 1) * sizeof(*v));
  size_t n = 0;

  if (!v)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < gp->sc.nops; i++) {
    const struct acs_sop *o = &gp->sc.ops[i];
    int sim = !isnan(o->sim_start) && !isnan(o->sim_end);
    double a = sim ? o->sim_start : (double)o->start, b = sim ? o->sim_end : (double)o->end;
    if (b > a)
      v[n++] = (struct gbar){grow_of(&gp->sc, i, gp->npe, gp->ndma), a, b, i};
  }
  qsort(v, n, sizeof(*v), cmp_gbar);
  for (size_t k = 0, alt = 0; k < n; k++) {
    long c = gcat_rgb[gcat(&gp->sc, v[k].op)];
    alt = k > 0 && v[k - 1].row == v[k].row ? alt ^ 1 : 0;
    fprintf(dat, "%.10g %d %.10g 0.38 %ld # %s\n", (v[k].a + v[k].b) / 2 / div, -v[k].row,
            (v[k].b - v[k].a) / 2 / div, alt ? lighten(c) : c, gp->sc.ops[v[k].op].name);
  }
  fprintf(dat, "\n\n");
  free(v);
  return ACS_OK;
}

static void gpanel_axes(FILE *gp, const struct gpanel *p)
{
  int rows = p->npe + p->ndma + p->other;

  fprintf(gp, "set yrange [%g:0.6]\nset ytics (", -(double)rows + 0.4);
  for (int i = 0; i < p->npe; i++)
    fprintf(gp, "%s'PE %d' %d", i ? ", " : "", i, -i);
  for (int i = 0; i < p->ndma; i++)
    fprintf(gp, ", 'DMA %d' %d", i, -(p->npe + i));
  if (p->other)
    fprintf(gp, ", 'no unit' %d", -(p->npe + p->ndma));
  fprintf(gp, ") scale 0\n");
}

static void gpanel_title(FILE *gp, const struct acs__study *s, const char *which,
                         const struct gpanel *p, struct acs__scale sc)
{
  char t[ACS__LABEL * 3];

  snprintf(t, sizeof(t), "%s: %s on %s, %.4g %s", which, s->sched[p->run->sched], p->run->p->name,
           p->run->mk / sc.div, sc.unit);
  fprintf(gp, "set title ");
  gp_str(gp, t);
  fprintf(gp, " font ',13'\n");
}

static void gantt_script(FILE *gp, const char *name, const struct acs__study *s,
                         const struct gpanel *p, const char *const *which, int np,
                         struct acs__scale sc, double xmax)
{
  /* Both panels share the x axis and the margins, so equal lengths of time
   * are equal lengths on the page; the key sits right of the top panel. */
  fprintf(gp, "set xrange [0:%.10g]\nunset grid\nset grid xtics lc rgb '#eeeeee'\n"
              "set style fill solid 1.0 noborder\n"
              "set lmargin at screen 0.09\nset rmargin at screen 0.80\n"
              "set key outside right top vertical Left reverse samplen 1.5 font ',11'\n",
          xmax / sc.div);
  if (np == 2)
    fprintf(gp, "set multiplot layout 2,1\n");
  for (int k = 0; k < np; k++) {
    gpanel_title(gp, s, which[k], &p[k], sc);
    gpanel_axes(gp, &p[k]);
    if (k == np - 1)
      fprintf(gp, "set xlabel 'time (%s, %s)'\n", sc.unit, s->simulated ? "simulated" : "planned");
    fprintf(gp, "plot '%s.dat' index %d using 1:2:3:4:5 with boxxyerror lc rgb variable notitle",
            name, k);
    if (k == 0)
      for (int c = 0; c < G__N; c++)
        if ((p[0].cats | (np == 2 ? p[1].cats : 0)) & (1u << c))
          fprintf(gp, ", NaN with boxes lc rgb '#%06lx' title '%s'", gcat_rgb[c], gcat_name[c]);
    fprintf(gp, "\n");
  }
  if (np == 2)
    fprintf(gp, "unset multiplot\n");
}

/* Best and worst ok run of workload wl over the whole study. */
static void extremes(const struct acs__study *s, int wl, const struct acs__srun **best,
                     const struct acs__srun **worst)
{
  *best = *worst = NULL;
  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    if (r->wl != wl || !r->ok)
      continue;
    if (!*best || r->mk < (*best)->mk)
      *best = r;
    if (!*worst || r->mk > (*worst)->mk)
      *worst = r;
  }
}

/* A card without a plot: a remark about a workload. */
static int note(struct acs__plots *pl, int wl, const char *title, const char *html)
{
  int err = acs_grow((void **)&pl->v, sizeof(*pl->v), &pl->cap, pl->n + 1);
  struct acs__plot *p;

  if (err < 0)
    return err;
  p = &pl->v[pl->n++];
  memset(p, 0, sizeof(*p));
  p->wl = wl;
  p->fam = -1;
  snprintf(p->title, sizeof(p->title), "%s", title);
  snprintf(p->caption, sizeof(p->caption), "%s", html);
  return ACS_OK;
}

/* The card that says why a Gantt chart is missing or incomplete. */
static void gantt_missing(char *html, size_t size, const char *which, const struct acs__srun *r)
{
  char b[ACS__LABEL * 2];

  snprintf(html, size,
           "The %s run (<code>%s</code>) has no stored schedule. <code>acsim sweep</code> keeps "
           "the schedules of the best and worst run of every workload by default "
           "(<code>--keep-schedules=extremes</code>); a study made with "
           "<code>--keep-schedules=none</code>, or merged from files that lack them, has none. "
           "Run the sweep again with <code>--keep-schedules</code> into a new file, or "
           "<code>acsim run</code> on that platform, to see it.",
           which, acs__html_esc(r->p->name, b, sizeof(b)));
}

static int gantt_plot(struct acs__plots *pl, const struct acs__study *s, int wl, struct gpanel *p,
                      const char *const *which, int np, double xmax)
{
  struct acs__scale sc = acs__scale_cycles(xmax);
  struct acs__plot *pp;
  char name[200];
  int h = 0, err;
  FILE *gp, *dat;

  for (int k = 0; k < np; k++)
    h += 110 + 24 * (p[k].npe + p[k].ndma + p[k].other);
  stem(name, sizeof(name), "gantt", s, wl, -1);
  if ((err = gp_begin(pl, name, wl, -1, 1100, h + 60, &gp, &dat, &pp)) < 0)
    return err;
  for (int k = 0; k < np && err == ACS_OK; k++)
    err = gpanel_data(dat, &p[k], sc.div);
  gantt_script(gp, name, s, p, which, np, sc, xmax * 1.01);
  snprintf(pp->title, sizeof(pp->title), "Gantt chart%s of the %s run", np == 2 ? "s" : "",
           np == 2 ? "best and worst" : which[0]);
  caption(pp, "One row per PE and DMA channel, %s times%s. Neighbouring ops alternate between "
              "two shades; the data file names every op.", s->simulated ? "simulated" : "planned",
          np == 2 ? ", both runs on the same time axis: the difference in length is the "
                    "difference in makespan" : "");
  pl->gantts++;
  return gp_end(gp, dat) < 0 ? ACS_EIO : err;
}

static int plot_gantt(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  const struct acs__srun *run[2];
  const char *const label[2] = {"best", "worst"};
  const char *which[2];
  struct gpanel p[2], shown[2];
  int np = 0, err = ACS_OK;
  char html[1024] = "";

  extremes(s, wl, &run[0], &run[1]);
  if (!run[0])
    return ACS_OK;
  for (int k = 0; k < (run[1] != run[0] ? 2 : 1); k++) {
    gpanel_load(s, run[k], &p[k]);
    if (p[k].have) {
      shown[np] = p[k];
      which[np++] = label[k];
    } else if (!html[0]) {
      gantt_missing(html, sizeof(html), label[k], run[k]);
    }
  }
  if (np > 0)
    err = gantt_plot(pl, s, wl, shown, which, np, fmax(run[0]->mk, run[1]->mk));
  if (err == ACS_OK && html[0]) {
    if (np > 0)
      caption(&pl->v[pl->n - 1], " %s", html);
    else
      err = note(pl, wl, "Gantt charts of the best and worst run", html);
  }
  for (int k = 0; k < np; k++)
    acs_schedule_destroy(&shown[k].sc);
  return err;
}

/* ---- schedulers normalized to the best of each configuration ---- */

static double cmp_ymax(const struct acs__cmp *c)
{
  double m = 0;

  for (size_t i = 0; i < c->rows * c->cols; i++)
    if (c->cell[i].n)
      m = fmax(m, 100.0 * (exp(c->cell[i].sumlog / (double)c->cell[i].n) - 1.0));
  return m;
}

static int plot_compare(struct acs__plots *pl, const struct acs__study *s)
{
  struct acs__cmp c;
  struct acs__plot *p;
  FILE *gp, *dat;
  int err, first = 1;

  if ((err = acs__study_compare(s, &c)) < 0)
    return err;
  if (c.configs == 0) {
    acs__cmp_free(&c);
    return ACS_OK;
  }
  if ((err = gp_begin(pl, "schedulers", -1, -1, 1100, 440, &gp, &dat, &p)) < 0) {
    acs__cmp_free(&c);
    return err;
  }
  snprintf(p->title, sizeof(p->title), "Schedulers against the best of each configuration");
  fprintf(dat, "# workload, then per scheduler: geometric mean of makespan / best - 1, in %%\n");
  for (size_t row = 0; row < c.rows; row++) {
    dat_str(dat, row < s->nwl ? s->wl[row] : "all workloads");
    for (size_t k = 0; k < c.cols; k++) {
      const struct acs__cmpcell *cell = acs__cmp_at(&c, row, k);
      if (cell->n)
        fprintf(dat, " %.6g", 100.0 * (exp(cell->sumlog / (double)cell->n) - 1.0));
      else
        fprintf(dat, " NaN");
    }
    fprintf(dat, "\n");
  }
  fprintf(gp, "set style data histograms\nset style histogram clustered gap 1.5\n"
              "set style fill solid 0.9 noborder\nset boxwidth 0.9\nset yrange [0:%.6g]\n"
              "set ylabel 'makespan above the best scheduler (%%, geometric mean)'\n"
              "set xtics scale 0\nset grid noxtics ytics\nset key top left\n"
              "# label positions: cluster i centred at x = i, bar k of n at\n"
              "# i + (k - (n - 1) / 2) / (n + gap)\nn = %zu\ngap = 1.5\nplot ",
          cmp_ymax(&c) * 1.15 + 0.5, c.cols);
  for (size_t k = 0; k < c.cols; k++) {
    fprintf(gp, "%s'schedulers.dat' using %zu%s lc rgb '%s' title ", first ? "" : ", ", k + 2,
            first ? ":xtic(1)" : "", palette[k % NSTYLE]);
    gp_str(gp, s->sched[k]);
    first = 0;
  }
  fprintf(gp, ", \\\n  for [k=0:n-1] '' using ($0 + (k - (n - 1) / 2.0) / (n + gap)):(column(k + 2)):"
              "(sprintf('%%.1f%%%%', column(k + 2))) with labels offset 0,0.6 font ',10' notitle\n");
  caption(p, "For each configuration (a platform variant and a workload) where at least two "
             "schedulers found a schedule, each scheduler's makespan is divided by the best one; "
             "the bar is the geometric mean of that ratio minus one, over %zu configurations. "
             "0%% means always the best. The summary table above counts the wins. Schedulers "
             "model memory differently: list and sequential hold an op's CMX only while it "
             "runs (the seed's simple resource model), so their makespans are optimistic about "
             "memory; spill keeps every tensor resident until its last consumer and pays for "
             "the spills.", c.configs);
  acs__cmp_free(&c);
  return gp_end(gp, dat);
}

/* ---- all plots ---- */

/* ---- SDF graphs (seed 004): the variants side by side, PE x VMEM ---- */

/* Whether the workload's runs are of the SDF kind. */
static int is_sdf_workload(const struct acs__study *s, int wl)
{
  for (size_t i = 0; i < s->nruns; i++)
    if (s->runs[i].wl == wl)
      return strcmp(s->runs[i].w->kind, "sdf") == 0;
  return 0;
}

/* Platform variants of a workload in run order (at most max), as indices of
 * a representative run each; schedulers that ran on it in *used. */
static size_t sdf_configs(const struct acs__study *s, int wl, const struct acs__srun **cfg,
                          size_t max, int *used)
{
  size_t n = 0;

  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    size_t k;
    if (r->wl != wl)
      continue;
    used[r->sched] = 1;
    for (k = 0; k < n && strcmp(cfg[k]->p->name, r->p->name) != 0; k++)
      ;
    if (k == n && n < max)
      cfg[n++] = r;
  }
  return n;
}

/* The latest ok makespan of scheduler k on the platform named pname, NaN. */
static double sdf_mk(const struct acs__study *s, int wl, size_t k, const char *pname)
{
  const struct acs__srun *best = NULL;

  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    if (r->wl == wl && (size_t)r->sched == k && strcmp(r->p->name, pname) == 0 &&
        (!best || r->r->run_id > best->r->run_id))
      best = r;
  }
  return best && best->ok ? best->mk : NAN;
}

/* Grouped bars: one group per platform variant (the first twelve), one bar
 * per scheduler, so gang, tiling, naive-list and sequential stand side by
 * side. */
static int plot_sdf_variants(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  const struct acs__srun *cfg[12];
  int *used = calloc(s->nsched + 1, sizeof(int)), err, nbars = 0;
  char name[200];
  struct acs__plot *p;
  struct acs__scale sc;
  double hi = 0;
  FILE *gp, *dat;
  size_t n;

  if (!used)
    return ACS_ENOMEM;
  n = sdf_configs(s, wl, cfg, 12, used);
  for (size_t k = 0; k < s->nsched; k++)
    for (size_t c = 0; c < n && used[k]; c++) {
      double v = sdf_mk(s, wl, k, cfg[c]->p->name);
      if (v > hi)
        hi = v;
    }
  if (n == 0 || hi <= 0) {
    free(used);
    return ACS_OK;
  }
  sc = acs__scale_cycles(hi);
  stem(name, sizeof(name), "sdfvariants", s, wl, 0);
  if ((err = gp_begin(pl, name, wl, -1, 300 + 90 * (int)n, 440, &gp, &dat, &p)) < 0) {
    free(used);
    return err;
  }
  snprintf(p->title, sizeof(p->title), "Schedulers side by side");
  fprintf(dat, "# platform");
  for (size_t k = 0; k < s->nsched; k++)
    if (used[k]) {
      fprintf(dat, " ");
      dat_str(dat, s->sched[k]);
      nbars++;
    }
  fprintf(dat, "\n");
  for (size_t c = 0; c < n; c++) {
    /* "isp4[pe_count=2]" shows as "pe_count=2": the variant is what differs. */
    const char *nm = cfg[c]->p->name, *br = strchr(nm, '[');
    char label[ACS_PLATFORM_NAME_MAX];
    snprintf(label, sizeof(label), "%s", br && n > 1 ? br + 1 : nm);
    if (br && n > 1 && label[0] && label[strlen(label) - 1] == ']')
      label[strlen(label) - 1] = '\0';
    dat_str(dat, label);
    for (size_t k = 0; k < s->nsched; k++)
      if (used[k])
        fprintf(dat, " %.10g", sdf_mk(s, wl, k, cfg[c]->p->name) / sc.div);
    fprintf(dat, "\n");
  }
  fprintf(gp, "set style data histograms\nset style histogram clustered gap 1\n"
              "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset key outside right top\n"
              "set xtics rotate by -30 noenhanced\nset yrange [0:*]\nset ylabel '%s (%s)'\n",
          mk_word(s), sc.unit);
  fprintf(gp, "plot ");
  for (size_t k = 0, col = 2; k < s->nsched; k++)
    if (used[k]) {
      fprintf(gp, "%s'%s.dat' using %zu:xtic(1) title ", col > 2 ? ", \\\n  " : "", name, col);
      gp_str(gp, s->sched[k]);
      fprintf(gp, " lc rgb '%s'", palette[k % NSTYLE]);
      col++;
    }
  fprintf(gp, "\n");
  caption(p, "The %s of every scheduler on each platform variant (the first twelve), lower is "
             "better: gang is the thesis's heuristic, tiling splits every kernel's lines over the "
             "PEs with all data through DDR, naive-list loads kernels on demand, sequential runs "
             "one kernel per gang. A missing bar is an infeasible or failed run.", mk_word(s));
  free(used);
  return gp_end(gp, dat);
}

/* gang's makespan over PE count x VMEM when the study varies both, each
 * cell labelled with its ratio to tiling's on the same platform (the other
 * parameters at the first platform's values). */
static int plot_sdf_pe_vmem(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  double pes[64], vms[64], lo = INFINITY, hi = -INFINITY;
  size_t npe = 0, nvm = 0, gk = s->nsched, tk = s->nsched;
  const struct acs_platform *base = NULL;
  char name[200];
  struct acs__plot *p;
  struct acs__scale sc;
  FILE *gp, *dat;
  int err;

  if (!s->varies[ACS_P_PE_COUNT] || !s->varies[ACS_P_PE_VMEM_KIB])
    return ACS_OK;
  for (size_t k = 0; k < s->nsched; k++) {
    if (strcmp(s->sched[k], "gang") == 0)
      gk = k;
    if (strcmp(s->sched[k], "tiling") == 0)
      tk = k;
  }
  if (gk == s->nsched)
    return ACS_OK;
  /* The axes' values among this workload's gang runs that agree with the
   * first one on every other parameter. */
  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    int other = 0;
    if (r->wl != wl || (size_t)r->sched != gk)
      continue;
    if (!base)
      base = r->p;
    for (int q = 0; q < ACS_PARAM_COUNT; q++)
      other |= q != ACS_P_PE_COUNT && q != ACS_P_PE_VMEM_KIB && r->p->v[q] != base->v[q];
    if (other)
      continue;
    size_t a, b;
    for (a = 0; a < npe && pes[a] != r->p->v[ACS_P_PE_COUNT]; a++)
      ;
    if (a == npe && npe < 64)
      pes[npe++] = r->p->v[ACS_P_PE_COUNT];
    for (b = 0; b < nvm && vms[b] != r->p->v[ACS_P_PE_VMEM_KIB]; b++)
      ;
    if (b == nvm && nvm < 64)
      vms[nvm++] = r->p->v[ACS_P_PE_VMEM_KIB];
    if (r->ok) {
      lo = fmin(lo, r->mk);
      hi = fmax(hi, r->mk);
    }
  }
  if (npe < 2 || nvm < 2 || !(hi > 0))
    return ACS_OK;
  qsort(pes, npe, sizeof(double), cmp_dbl);
  qsort(vms, nvm, sizeof(double), cmp_dbl);
  sc = acs__scale_cycles(hi);
  stem(name, sizeof(name), "sdfpevmem", s, wl, 0);
  if ((err = gp_begin(pl, name, wl, -1, 300 + 120 * (int)npe, 160 + 60 * (int)nvm, &gp, &dat, &p)) < 0)
    return err;
  snprintf(p->title, sizeof(p->title), "gang over processing elements and vector memory");
  fprintf(dat, "# pe_index vmem_index makespan_%s label ratio_to_tiling label_colour\n", sc.unit);
  for (size_t b = 0; b < nvm; b++)
    for (size_t a = 0; a < npe; a++) {
      double g = NAN, t = NAN;
      for (size_t i = 0; i < s->nruns; i++) {
        const struct acs__srun *r = &s->runs[i];
        int other = 0;
        if (r->wl != wl || r->p->v[ACS_P_PE_COUNT] != pes[a] || r->p->v[ACS_P_PE_VMEM_KIB] != vms[b])
          continue;
        for (int q = 0; q < ACS_PARAM_COUNT; q++)
          other |= q != ACS_P_PE_COUNT && q != ACS_P_PE_VMEM_KIB && r->p->v[q] != base->v[q];
        if (other || !r->ok)
          continue;
        if ((size_t)r->sched == gk)
          g = r->mk;
        else if ((size_t)r->sched == tk)
          t = r->mk;
      }
      long colour = label_colour(hi > lo && !isnan(g) ? (g - lo) / (hi - lo) : 0);
      fprintf(dat, "%zu %zu %.10g ", a, b, g / sc.div);
      if (isnan(g))
        fprintf(dat, "\"-\" \"\" %ld\n", colour);
      else if (isnan(t))
        fprintf(dat, "\"%.3g\" \"\" %ld\n", g / sc.div, colour);
      else
        fprintf(dat, "\"%.3g\" \"%.2fx tiling\" %ld\n", g / sc.div, g / t, colour);
    }
  fprintf(gp, "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\nset xtics (", npe - 1, nvm - 1);
  for (size_t a = 0; a < npe; a++)
    fprintf(gp, "%s'%g' %zu", a ? ", " : "", pes[a], a);
  fprintf(gp, ") scale 0\nset ytics (");
  for (size_t b = 0; b < nvm; b++) {
    char v[64];
    acs__param_label(ACS_P_PE_VMEM_KIB, vms[b], v, sizeof(v));
    fprintf(gp, "%s'%s' %zu", b ? ", " : "", v, b);
  }
  fprintf(gp, ") scale 0\nset xlabel 'processing elements'\nset ylabel 'VMEM per PE'\n"
              "unset grid\nset border 0\nset rmargin 16\nset cblabel 'gang %s (%s)'\n"
              "set cbrange [%.10g:%.10g]\n"
              "set palette defined (0 '#fff7bc', 0.3 '#fec44f', 0.6 '#ec7014', 1 '#7f2704')\n"
              "set object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb '#d9d9d9' "
              "fs solid noborder\n",
          mk_word(s), sc.unit, lo / sc.div, hi > lo ? hi / sc.div : lo / sc.div + 1);
  fprintf(gp, "plot '%s.dat' using 1:2:3 with image pixels notitle, \\\n"
              "  '' using 1:($2+0.12):4:6 with labels tc rgb variable font ',12' notitle, \\\n"
              "  '' using 1:($2-0.18):5:6 with labels tc rgb variable font ',10' notitle\n", name);
  caption(p, "The co-design question of seed 004: how many PEs and how much vector memory for "
             "this image pipeline. Each cell is gang's %s (in %s) on that platform, with its "
             "ratio to tiling's; a gray cell had no feasible schedule (the buffers did not fit).",
          mk_word(s), sc.unit);
  return gp_end(gp, dat);
}

static int sdf_plots(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  int err;

  if (!is_sdf_workload(s, wl))
    return ACS_OK;
  if ((err = plot_sdf_variants(pl, s, wl)) < 0)
    return err;
  return plot_sdf_pe_vmem(pl, s, wl);
}

/* ---- the cascading scheduler's Pareto fronts ---- */

/* The cascade_front table of run r (rows: memory, cycles, chosen; the
 * budget as an attribute), or NULL with nothing to free. */
static const struct acs_rtab *front_of(const struct acs__study *s, const struct acs__srun *r,
                                       struct acs_schedule *sc, int64_t *budget)
{
  const struct acs_rtab_attr *a;
  const struct acs_rtab *t;
  struct acs_diag d;

  acs_diag_init(&d);
  if (acs_results_read_schedule(s->path, r->r->run_id, sc, &d) < 0)
    return NULL;
  t = acs_schedule_find_rtab(sc, "cascade_front");
  if (!t || t->ncols < 3 || t->nrows == 0 || !(a = acs_rtab_attr_find(t, "budget_bytes")) ||
      a->type != ACS_RTAB_I64) {
    acs_schedule_destroy(sc);
    return NULL;
  }
  *budget = a->v.i;
  return t;
}

/* Up to 32 runs' chosen points and budgets beside the front of the run
 * with the largest budget (the least thinned near the fast end). */
#define FRONT_RUNS 32

static int plot_cascade_front(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  struct acs_schedule sc[FRONT_RUNS];
  const struct acs_rtab *t[FRONT_RUNS];
  int64_t budget[FRONT_RUNS];
  size_t n = 0, src = 0;
  double mmax = 0, cmax = 0, mmin = INFINITY;
  struct acs__scale sb, scy;
  struct acs__plot *p;
  char name[200];
  FILE *gp, *dat;
  int err;

  for (size_t i = 0; i < s->nruns && n < FRONT_RUNS; i++) {
    const struct acs__srun *r = &s->runs[i];
    if (r->wl != wl || strncmp(s->sched[r->sched], "cascade", 7) != 0 ||
        !(t[n] = front_of(s, r, &sc[n], &budget[n])))
      continue;
    if (budget[n] > budget[src])
      src = n;
    for (int64_t k = 0; k < t[n]->nrows; k++) {
      mmin = fmin(mmin, (double)acs_rtab_get(t[n], k, 0).i);
      mmax = fmax(mmax, (double)acs_rtab_get(t[n], k, 0).i);
      cmax = fmax(cmax, (double)acs_rtab_get(t[n], k, 1).i);
    }
    mmax = fmax(mmax, (double)budget[n]);
    n++;
  }
  if (n == 0)
    return ACS_OK;
  sb = acs__scale_bytes(mmax);
  scy = acs__scale_cycles(cmax);
  stem(name, sizeof(name), "cascadefront", s, wl, 0);
  err = gp_begin(pl, name, wl, -1, 900, 420, &gp, &dat, &p);
  if (err == ACS_OK) {
    snprintf(p->title, sizeof(p->title), "cascade: Pareto front of proposals (CMX against %s)",
             mk_word(s));
    fprintf(dat, "# front of the run with the largest budget: cmx_%s cycles_%s\n", sb.unit,
            scy.unit);
    for (int64_t k = 0; k < t[src]->nrows; k++)
      fprintf(dat, "%.10g %.10g\n", (double)acs_rtab_get(t[src], k, 0).i / sb.div,
              (double)acs_rtab_get(t[src], k, 1).i / scy.div);
    fprintf(dat, "\n\n# chosen proposal of each run: cmx cycles budget\n");
    for (size_t j = 0; j < n; j++)
      for (int64_t k = 0; k < t[j]->nrows; k++)
        if (acs_rtab_get(t[j], k, 2).i)
          fprintf(dat, "%.10g %.10g %.10g\n", (double)acs_rtab_get(t[j], k, 0).i / sb.div,
                  (double)acs_rtab_get(t[j], k, 1).i / scy.div, (double)budget[j] / sb.div);
    for (size_t j = 0; j < n; j++)
      fprintf(gp, "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 lc rgb '#bbbbbb'\n",
              (double)budget[j] / sb.div, (double)budget[j] / sb.div);
    /* Every budget in view, also those beyond the largest proposal. */
    fprintf(gp, "set xrange [%.10g:%.10g]\n", mmin / sb.div / 1.2, mmax / sb.div * 1.2);
    fprintf(gp, "set logscale x 2\nset xlabel 'CMX the proposal needs (%s)'\n"
                "set ylabel 'planned cycles (%s)'\nset yrange [0:*]\nset key top right\n"
                "plot '%s.dat' index 0 using 1:2 with steps ls 1 title 'Pareto front', \\\n"
                "  '' index 0 using 1:2 with points ls 1 notitle, \\\n"
                "  '' index 1 using 1:2 with points pt 7 ps 1.4 lc rgb '#e15759' "
                "title 'chosen within the budget'\n", sb.unit, scy.unit, name);
    caption(p, "Each point is a proposal of the cascading scheduler (seed 002): the CMX it needs "
               "and its planned cycles; no proposal is better in both. Dashed lines mark the "
               "budgets of the runs (cmx_kib or budget_kib); the red points are the proposals "
               "chosen within them, the fastest that fits. Left of the front no grouping fits; "
               "moving right along it shows what each kilobyte more buys.");
    err = gp_end(gp, dat);
  }
  for (size_t j = 0; j < n; j++)
    acs_schedule_destroy(&sc[j]);
  return err;
}

static int workload_plots(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  int err = ACS_OK;

  for (size_t fam = 0; fam < s->nfam && err == ACS_OK; fam++) {
    struct grid g;
    if ((err = grid_build(&g, s, wl, (int)fam)) < 0)
      return err;
    if (g.nok > 0 && s->xparam >= 0 && s->nx > 1) {
      err = plot_makespan(pl, &g);
      if (err == ACS_OK && s->yparam >= 0 && s->ny > 1)
        err = plot_heatmap(pl, &g);
      if (err == ACS_OK)
        err = plot_bytes(pl, &g);
    }
    if (err == ACS_OK && g.nok > 0 && s->simulated)
      err = plot_contention(pl, &g);
    free(g.cell);
  }
  if (err == ACS_OK)
    err = plot_gantt(pl, s, wl);
  if (err == ACS_OK)
    err = sdf_plots(pl, s, wl);
  if (err == ACS_OK)
    err = plot_cascade_front(pl, s, wl);
  return err;
}

int acs__plots_write(struct acs__plots *pl, const struct acs__study *s, struct acs_diag *d)
{
  int err;

  if (mkdir(pl->dir, 0777) < 0 && errno != EEXIST)
    return acs_diag_set(d, ACS_EIO, pl->dir, 0, 0, "cannot create the directory: %s",
                        strerror(errno));
  err = plot_compare(pl, s);
  for (size_t wl = 0; wl < s->nwl && err == ACS_OK; wl++)
    err = workload_plots(pl, s, (int)wl);
  if (err == ACS_EIO)
    return acs_diag_set(d, err, pl->dir, 0, 0, "cannot write the plot files: %s", strerror(errno));
  return err;
}

void acs__plots_free(struct acs__plots *pl)
{
  free(pl->v);
  pl->v = NULL;
  pl->n = pl->cap = 0;
}

/* ---- running gnuplot ---- */

/* Runs `gnuplot NAME.gp` in the plots directory with its output in
 * NAME.log. Returns the wait status, or -1 when it could not fork. */
static int run_gnuplot(const char *dir, const char *prog, const char *name)
{
  char gpfile[256], logfile[256];
  int status;
  pid_t pid;

  snprintf(gpfile, sizeof(gpfile), "%s.gp", name);
  snprintf(logfile, sizeof(logfile), "%s.log", name);
  fflush(NULL);
  if ((pid = fork()) < 0)
    return -1;
  if (pid == 0) {
    int fd, in = open("/dev/null", O_RDONLY);
    if (chdir(dir) < 0 || (fd = open(logfile, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
      _exit(126);
    if (in >= 0)
      dup2(in, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    execlp(prog, prog, gpfile, (char *)NULL);
    dprintf(fd, "cannot run %s: %s\n", prog, strerror(errno));
    _exit(127);
  }
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return status;
}

/* The first line of NAME.log that says something, for messages. */
static void log_excerpt(const char *dir, const char *name, char *buf, size_t size)
{
  char path[2400], line[300];
  FILE *f;

  snprintf(buf, size, "see %s.log", name);
  snprintf(path, sizeof(path), "%s/%s.log", dir, name);
  if (!(f = fopen(path, "r")))
    return;
  /* gnuplot echoes the offending command, then a caret, then the message
   * ("NAME.gp" line N: ...): the last line that says something. */
  while (fgets(line, sizeof(line), f)) {
    line[strcspn(line, "\n")] = '\0';
    if (strspn(line, " \t^") < strlen(line))
      snprintf(buf, size, "%s", line);
  }
  fclose(f);
}

void acs__plots_render(struct acs__plots *pl, const char *gnuplot, struct acs_report_info *info)
{
  const char *prog = gnuplot ? gnuplot : "gnuplot";

  for (size_t i = 0; i < pl->n; i++) {
    struct acs__plot *p = &pl->v[i];
    char path[2400];
    struct stat st;
    int status;
    if (!p->name[0])
      continue;
    info->plots++;
    if (info->gnuplot_missing) {
      info->plot_failures++;
      continue;
    }
    status = run_gnuplot(pl->dir, prog, p->name);
    snprintf(path, sizeof(path), "%s/%s.svg", pl->dir, p->name);
    if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
      info->gnuplot_missing = 1;
      info->plot_failures++;
      log_excerpt(pl->dir, p->name, info->gnuplot_error, sizeof(info->gnuplot_error));
      continue;
    }
    p->ok = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
            stat(path, &st) == 0 && st.st_size > 0;
    if (!p->ok) {
      log_excerpt(pl->dir, p->name, p->error, sizeof(p->error));
      if (!info->plot_failures)
        snprintf(info->gnuplot_error, sizeof(info->gnuplot_error), "%s", p->error);
      info->plot_failures++;
      unlink(path); /* a half-written SVG must not be shown */
    }
  }
}
