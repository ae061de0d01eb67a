/*
 * plots_grid.c - the plots over the study's axes, per workload and
 * platform family: makespan against x (a panel per y), the heatmap of the
 * best run over x and y, the bytes moved through DDR, and the cost of
 * contention (see plots.h). A plot with nothing to show is left out and
 * the page says why.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plots_int.h"

/* Slowdowns smaller than this (in %) are the rounding of a simulation, not
 * contention: they print as 0 and do not make a plot worth drawing. */
#define SLOW_EPS 0.01

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

/* X axis of the parameter plots: numeric tics at the values, log2 when the
 * values span a factor of 8 or more. */
static void gp_xaxis(FILE *gp, const struct acs__study *s)
{
  int log = s->xv[0] > 0 && s->xv[s->nx - 1] / s->xv[0] >= 8;

  fprintf(gp, "set xlabel '%s%s'\n", acs__param_title(s, s->xparam),
          s->xparam == ACS_P_CMX_KIB ? " (KiB)" : "");
  if (log) {
    fprintf(gp, "set logscale x 2\nset xrange [%.17g:%.17g]\n", s->xv[0] / 1.15,
            s->xv[s->nx - 1] * 1.15);
  } else {
    double span = s->xv[s->nx - 1] - s->xv[0];
    fprintf(gp, "set xrange [%.17g:%.17g]\n", s->xv[0] - 0.05 * span,
            s->xv[s->nx - 1] + 0.05 * span);
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
  snprintf(buf, size, "%s: %s", acs__param_title(s, s->yparam), v);
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
    fprintf(gp, "%sNaN with linespoints ls %zu title ", first ? "" : ", ", k + 1);
    acs__gp_str(gp, s->sched[k]);
    first = 0;
  }
  if (first)
    fprintf(gp, "NaN notitle");
  fprintf(gp, "\n");
}

/* ---- makespan against x, a panel per y ---- */

/* Whether scheduler k has a value at some x of panel yi. */
static int has_series(struct grid *g, size_t yi, size_t k, double (*v)(const struct acs__srun *))
{
  for (size_t xi = 0; xi < g->s->nx; xi++) {
    const struct acs__srun *r = grun(g, xi, yi, k);
    if (r && !isnan(v(r)))
      return 1;
  }
  return 0;
}

/* Writes the series of one panel (value v(run) against x) as .dat blocks
 * and its plot command; *block counts the blocks written so far. Series
 * are drawn widest first (acs__series_width), so one that coincides with a
 * later one shows around it. */
static void series_panel(FILE *gp, FILE *dat, const char *name, struct grid *g, size_t yi,
                         int *block, double (*v)(const struct acs__srun *), double div, int *used,
                         int key)
{
  const struct acs__study *s = g->s;
  int n = 0, i = 0;
  double lw, ps;

  for (size_t k = 0; k < s->nsched; k++)
    n += has_series(g, yi, k, v);
  for (size_t k = 0; k < s->nsched; k++) {
    if (!has_series(g, yi, k, v))
      continue;
    fprintf(dat, "# %s, panel %zu\n", s->sched[k], yi);
    for (size_t xi = 0; xi < s->nx; xi++) {
      const struct acs__srun *r = grun(g, xi, yi, k);
      double y = r ? v(r) : NAN;
      if (!isnan(y))
        fprintf(dat, "%.17g %.10g\n", s->xv[xi], y / div);
    }
    fprintf(dat, "\n\n");
    used[k] = 1;
    acs__series_width(i, n, &lw, &ps);
    fprintf(gp, "%s'%s.dat' index %d using 1:2 with linespoints ls %zu lw %.2f ps %.2f ",
            i ? ", " : "plot ", name, (*block)++, k + 1, lw, ps);
    if (key) {
      fputs("title ", gp);
      acs__gp_str(gp, s->sched[k]);
    } else {
      fputs("notitle", gp);
    }
    i++;
  }
  if (i == 0)
    fprintf(gp, "plot NaN notitle");
  fprintf(gp, "\n");
}

static double v_mk(const struct acs__srun *r)
{
  return r->mk;
}

/* Schedulers whose makespans are equal at every x of every panel, named in
 * the caption: drawn on top of each other, one would seem to be missing. */
static void note_coinciding(struct grid *g, struct acs__plot *p)
{
  const struct acs__study *s = g->s;
  char b1[ACS__LABEL * 2], b2[ACS__LABEL * 2];

  for (size_t a = 0; a < s->nsched; a++)
    for (size_t b = a + 1; b < s->nsched; b++) {
      int both = 0, same = 1;
      for (size_t yi = 0; yi < s->ny && same; yi++)
        for (size_t xi = 0; xi < s->nx && same; xi++) {
          const struct acs__srun *x = grun(g, xi, yi, a), *y = grun(g, xi, yi, b);
          int hx = x && x->ok, hy = y && y->ok;
          same = hx == hy && (!hx || x->mk == y->mk);
          both += hx && hy;
        }
      if (same && both > 0)
        acs__caption(p, " <code>%s</code> and <code>%s</code> reach the same makespans: their "
                        "lines coincide (the wider one is drawn underneath).",
                     acs__html_esc(s->sched[a], b1, sizeof(b1)),
                     acs__html_esc(s->sched[b], b2, sizeof(b2)));
    }
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
  acs__stem(name, sizeof(name), "makespan", s, g->wl, g->fam);
  if (!(used = calloc(s->nsched + 1, sizeof(*used))))
    return ACS_ENOMEM;
  if ((err = acs__gp_begin(pl, s, name, g->wl, g->fam, multi ? 1100 : 820,
                           multi ? 330 * rows : 440, &gp, &dat, &p)) < 0) {
    free(used);
    return err;
  }
  snprintf(p->title, sizeof(p->title), "Makespan against %s%s", acs__param_title(s, s->xparam),
           acs__family_suffix(s, g->fam, fs, sizeof(fs)));
  gp_xaxis(gp, s);
  fprintf(gp, "set ylabel '%s (%s)'\nset yrange [%.10g:%.10g]\n", acs__mk_word(s), sc.unit,
          g->lo / sc.div * 0.95, g->hi / sc.div * 1.04);
  if (multi)
    fprintf(gp, "set multiplot layout %d,%d\nset key off\n", rows, cols);
  else
    fprintf(gp, "set key outside right top\n");
  for (size_t yi = 0; yi < s->ny; yi++) {
    y_title(s, yi, yt, sizeof(yt));
    fprintf(gp, "set title ");
    acs__gp_str(gp, yt);
    fprintf(gp, "\n");
    series_panel(gp, dat, name, g, yi, &block, v_mk, sc.div, used, !multi);
  }
  if (multi) {
    gp_legend_cell(gp, s, used);
    fprintf(gp, "unset multiplot\n");
  }
  free(used);
  acs__caption(p, "One line per scheduler; lower is better.");
  if (multi)
    acs__caption(p, " One panel per value of %s (the last cell is the legend), all on the same "
                    "y axis.", acs__param_title(s, s->yparam));
  acs__caption(p, " A missing point is a run that was infeasible or failed on that platform.");
  note_coinciding(g, p);
  return acs__gp_end(gp, dat);
}

/* ---- heatmap over x and y: the best run of each cell ---- */

/* The best run of a cell (study.h: eligible runs only); *any tells whether
 * the cell has runs at all. */
static const struct acs__srun *cell_best(struct grid *g, size_t xi, size_t yi, int *any)
{
  const struct acs__srun *best = NULL;

  *any = 0;
  for (size_t k = 0; k < g->s->nsched; k++) {
    const struct acs__srun *r = grun(g, xi, yi, k);
    *any |= r != NULL;
    if (r && r->eligible && acs__better(r, best))
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
    fprintf(dat, "%zu %zu NaN \"%s\" \"\" %ld\n", xi, yi, any ? "infeasible" : "not run",
            0x555555L);
    return;
  }
  fprintf(dat, "%zu %zu %.10g \"%.*f\" ", xi, yi, best->mk / div,
          best->mk / div < 10 ? 2 : best->mk / div < 100 ? 1 : 0, best->mk / div);
  acs__dat_str(dat, s->sched[best->sched]);
  fprintf(dat, " %ld\n", acs__plot_label_colour(hi > lo ? (best->mk - lo) / (hi - lo) : 0));
}

static void heat_axes(FILE *gp, const struct acs__study *s)
{
  char v[64];

  fprintf(gp, "set xrange [-0.5:%zu.5]\nset yrange [-0.5:%zu.5]\nset xtics (", s->nx - 1,
          s->ny - 1);
  for (size_t i = 0; i < s->nx; i++)
    fprintf(gp, "%s'%g' %zu", i ? ", " : "", s->xv[i], i);
  fprintf(gp, ") scale 0\nset ytics (");
  for (size_t i = 0; i < s->ny; i++) {
    acs__param_label(s->yparam, s->yv[i], v, sizeof(v));
    fprintf(gp, "%s", i ? ", " : "");
    acs__gp_str(gp, v);
    fprintf(gp, " %zu", i);
  }
  fprintf(gp, ") scale 0\nset xlabel '%s%s'\nset ylabel '%s'\n", acs__param_title(s, s->xparam),
          s->xparam == ACS_P_CMX_KIB ? " (KiB)" : "", acs__param_title(s, s->yparam));
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

  acs__stem(name, sizeof(name), "heatmap", s, g->wl, g->fam);
  if ((err = acs__gp_begin(pl, s, name, g->wl, g->fam, w < 640 ? 640 : w, h < 360 ? 360 : h, &gp,
                           &dat, &p)) < 0)
    return err;
  snprintf(p->title, sizeof(p->title), "Best %s over %s and %s%s", acs__mk_word(s),
           acs__param_title(s, s->xparam), acs__param_title(s, s->yparam),
           acs__family_suffix(s, g->fam, fs, sizeof(fs)));
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
          acs__mk_word(s), sc.unit, lo / sc.div, hi > lo ? hi / sc.div : lo / sc.div + 1);
  fprintf(gp, "plot '%s.dat' using 1:2:3 with image pixels notitle, \\\n"
              "  '' using 1:($2+0.13):4:6 with labels tc rgb variable font ',13' notitle, \\\n"
              "  '' using 1:($2-0.2):5:6 with labels tc rgb variable font ',10' notitle\n", name);
  acs__caption(p, "Each cell is the best run on that platform (in %s) and its scheduler: the "
                  "fastest run %s. Light is fast, dark is slow; a gray cell had no such run.",
               sc.unit, s->wl_resident[g->wl]
                   ? "of a scheduler that keeps tensors resident in CMX (transient schedulers' "
                     "figures are optimistic bounds and do not count)"
                   : "of any scheduler");
  return acs__gp_end(gp, dat);
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

/* One panel of the bytes plot. */
static void bytes_panel(FILE *gp, FILE *dat, const char *name, struct grid *g, size_t yi,
                        int *block, double (*v)(const struct acs__srun *), const char *title,
                        const char *axis, int *used, int key)
{
  struct acs__scale sc = acs__scale_bytes(max_of(g, yi, v));

  fprintf(gp, "set title '%s'\nset ylabel '%s (%s)'\nset yrange [0:*]\nset key %s\n", title,
          axis, sc.unit, key ? "top right" : "off");
  series_panel(gp, dat, name, g, yi, block, v, sc.div, used, key);
}

static int plot_bytes(struct acs__plots *pl, struct grid *g)
{
  const struct acs__study *s = g->s;
  size_t yi = acs__study_loosest_y(s);
  int spill = max_of(g, yi, v_spill) > 0, ddr = max_of(g, yi, v_ddr) > 0;
  char name[200], fs[ACS__LABEL + 8], yt[128];
  int block = 0, *used, err;
  struct acs__plot *p;
  FILE *gp, *dat;

  if (!spill && !ddr) {
    acs__plots_omit(pl, g->wl, "No run moved bytes between CMX and DDR%s, so there is no "
                               "plot of spilled or DDR bytes.",
                    acs__family_suffix(s, g->fam, fs, sizeof(fs)));
    return ACS_OK;
  }
  acs__stem(name, sizeof(name), "bytes", s, g->wl, g->fam);
  if (!(used = calloc(s->nsched + 1, sizeof(*used))))
    return ACS_ENOMEM;
  if ((err = acs__gp_begin(pl, s, name, g->wl, g->fam, spill ? 1100 : 820, 400, &gp, &dat,
                           &p)) < 0) {
    free(used);
    return err;
  }
  y_title(s, yi, yt, sizeof(yt));
  snprintf(p->title, sizeof(p->title), "%s against %s%s",
           spill ? "Spilled and DDR bytes" : "DDR bytes", acs__param_title(s, s->xparam),
           acs__family_suffix(s, g->fam, fs, sizeof(fs)));
  gp_xaxis(gp, s);
  if (spill) {
    fprintf(gp, "set multiplot layout 1,2\n");
    bytes_panel(gp, dat, name, g, yi, &block, v_spill, "spilled from CMX to DDR", "spilled",
                used, 1);
  }
  bytes_panel(gp, dat, name, g, yi, &block, v_ddr, "all DDR traffic (loads, stores, spills)",
              "DDR traffic", used, !spill);
  if (spill)
    fprintf(gp, "unset multiplot\n");
  free(used);
  acs__caption(p, "%s moved between DDR and CMX. A smaller CMX means more tiles and more "
                  "traffic over the shared DDR link.",
               spill ? "Left: bytes the scheduler spilled from CMX to DDR to make room. Right: "
                       "every byte"
                     : "Every byte");
  if (s->yparam >= 0)
    acs__caption(p, " Drawn at %s.", yt);
  if (!spill)
    acs__caption(p, " No run of this workload spilled, so the spill panel is left out.");
  return acs__gp_end(gp, dat);
}

/* ---- the cost of contention ---- */

/* Simulated over planned makespan - 1, in %; a difference below SLOW_EPS
 * is 0 (a fraction of a cycle over millions is rounding, not contention,
 * and would make the axis read 1e-10 %). */
static double v_slow(const struct acs__srun *r)
{
  double v;

  if (!r->ok || isnan(r->r->sim_makespan_cycles) || !(r->r->makespan_cycles > 0))
    return NAN;
  v = 100.0 * (r->r->sim_makespan_cycles - r->r->makespan_cycles) / r->r->makespan_cycles;
  return fabs(v) < SLOW_EPS ? 0 : v;
}

/* Median and maximum slowdown of the grid's runs, for the caption; returns
 * the number of simulated runs and sets *any when one is not 0. */
static size_t slow_stats(struct grid *g, struct acs__plot *p, int *any)
{
  const struct acs__study *s = g->s;
  size_t n = s->nx * s->ny * s->nsched, m = 0;
  const struct acs__srun *worst = NULL;
  double *v = malloc((n ? n : 1) * sizeof(*v));

  *any = 0;
  if (!v)
    return 0;
  for (size_t i = 0; i < n; i++) {
    const struct acs__srun *r = g->cell[i] >= 0 ? &s->runs[g->cell[i]] : NULL;
    if (!r || isnan(v_slow(r)))
      continue;
    v[m++] = v_slow(r);
    *any |= v_slow(r) != 0;
    if (!worst || v_slow(r) > v_slow(worst))
      worst = r;
  }
  if (m > 0 && p) {
    char b1[ACS__LABEL * 2], b2[ACS__LABEL * 2];
    qsort(v, m, sizeof(*v), acs__cmp_dbl);
    acs__caption(p, " Over %zu simulated runs the median slowdown is %.2f%%; the largest, "
                    "%.2f%%, is %s on %s.", m, v[m / 2], v[m - 1],
                 acs__html_esc(s->sched[worst->sched], b1, sizeof(b1)),
                 acs__html_esc(worst->p->name, b2, sizeof(b2)));
  }
  free(v);
  return m;
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
        fprintf(dat, "%.10g %.10g\n", r->r->makespan_cycles / div,
                r->r->sim_makespan_cycles / div);
        pts++;
      }
    if (!pts)
      continue;
    fprintf(dat, "\n\n");
    fprintf(gp, "%s'%s.dat' index %d using 1:2 with points ls %zu title ", first ? "" : ", ",
            name, (*block)++, k + 1);
    acs__gp_str(gp, s->sched[k]);
    first = 0;
  }
  fprintf(gp, "%sx with lines lw 1 dt 2 lc rgb '#777777' title 'as planned'\n",
          first ? "" : ", ");
}

static int plot_contention(struct acs__plots *pl, struct grid *g)
{
  const struct acs__study *s = g->s;
  struct acs__scale sc = acs__scale_cycles(g->hi);
  size_t yi = acs__study_loosest_y(s);
  char name[200], fs[ACS__LABEL + 8], yt[128];
  int block = 0, *used, err, withx = s->xparam >= 0 && s->nx > 1, any;
  struct acs__plot *p;
  FILE *gp, *dat;

  if (slow_stats(g, NULL, &any) > 0 && !any) {
    acs__plots_omit(pl, g->wl, "Every simulated run%s took its planned time (within %g%%): "
                               "contention costs nothing here, so there is no contention plot.",
                    acs__family_suffix(s, g->fam, fs, sizeof(fs)), SLOW_EPS);
    return ACS_OK;
  }
  acs__stem(name, sizeof(name), "contention", s, g->wl, g->fam);
  if (!(used = calloc(s->nsched + 1, sizeof(*used))))
    return ACS_ENOMEM;
  if ((err = acs__gp_begin(pl, s, name, g->wl, g->fam, withx ? 1100 : 620, 420, &gp, &dat,
                           &p)) < 0) {
    free(used);
    return err;
  }
  snprintf(p->title, sizeof(p->title), "Planned against simulated makespan: the cost of "
           "contention%s", acs__family_suffix(s, g->fam, fs, sizeof(fs)));
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
                "set ylabel 'simulated / planned - 1 (%%)'\nset yrange [*:*]\n"
                "set format y '%%.1f'\n",
            acs__param_title(s, s->xparam), s->yparam >= 0 ? ", " : "", yt);
    gp_xaxis(gp, s);
    series_panel(gp, dat, name, g, yi, &block, v_slow, 1.0, used, 0);
    fprintf(gp, "unset multiplot\n");
  }
  free(used);
  acs__caption(p, "The planner assumes every transfer runs alone; SimGrid replays the plan with "
                  "DMA transfers sharing the DDR link. Points above the dashed line ran slower "
                  "than planned.");
  slow_stats(g, p, &any);
  return acs__gp_end(gp, dat);
}

/* ---- one workload ---- */

/* Why the axis plots are left out, when they are. */
static void omit_axes(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  char name[ACS_UNIT_CLASS_MAX + 8];

  if (s->xparam < 0)
    acs__plots_omit(pl, wl, "No platform parameter varies in this study, so there is no "
                            "makespan plot against one (give <code>acsim sweep --vary</code>).");
  else if (s->nx > 1 && (s->yparam < 0 || s->ny < 2))
    acs__plots_omit(pl, wl, "Only <code>%s</code> varies on the plots' axes, so there is no "
                            "heatmap over two parameters.",
                    acs__param_name(s, s->xparam, name, sizeof(name)));
}

int acs__plots_grid(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  int err = ACS_OK, any_ok = 0;

  for (size_t fam = 0; fam < s->nfam && err == ACS_OK; fam++) {
    struct grid g;
    if ((err = grid_build(&g, s, wl, (int)fam)) < 0)
      return err;
    any_ok |= g.nok > 0;
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
  if (any_ok)
    omit_axes(pl, s, wl);
  if (any_ok && !s->simulated)
    acs__plots_omit(pl, wl, "The study was not simulated (<code>--no-sim</code>), so there is "
                            "no plot of the cost of contention.");
  return err;
}
