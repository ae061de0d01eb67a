/*
 * plots_gantt.c - Gantt charts of the best and the worst run of a workload
 * (plots_int.h). "Best" is the study's one definition (study_int.h), so the chart
 * shows the run the tables and the heatmap call best.
 *
 * Rows are PEs, then DMA channels, then the lanes of any other resource a
 * workload names (a loop's functional-unit classes, PSPLIB's renewable
 * resources): an op without a PE or DMA unit goes to the first such
 * resource it uses, on the first lane of it free at its start (interval
 * partitioning, so no two ops of a row overlap); work that names no
 * resource (a loop class with unlimited units) goes to rows named "other".
 * Latency waits (sync ops of a lowered loop) occupy nothing and are not
 * drawn.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plots_int.h"

enum { G_DPU, G_SHAVE, G_LOAD, G_STORE, G_DMA, G_ADDED, G_NAMED, G__N };
static const char *const gcat_name[G__N] = {
  "compute (dpu)", "compute (shave)", "DMA DDR to CMX", "DMA CMX to DDR", "DMA other",
  "added by the scheduler", "on a named resource"};
static const long gcat_rgb[G__N] = {0x4e79a7, 0x76b7b2, 0x59a14f, 0xf28e2b,
                                    0xedc948, 0xe15759, 0xb07aa1};

#define MAXLANES 4096

struct gpanel {
  const struct acs__srun *run;
  struct acs_schedule sc;
  int have, npe, ndma;
  int *row;                  /* per op: its row, -1 not drawn */
  int lanes[ACS_MAX_RES + 1];/* lanes of each named resource, then of "other" */
  int nrows;
  size_t hidden;             /* ops with no unit and no resource */
  unsigned cats;             /* categories present (1 << G_*) */
};

/* The resource an op without a unit runs on: the first one it demands
 * that is neither PE, DMA nor CMX; nres ("other") for work that demands
 * none (a loop op on a class of unlimited units); -1 for a latency wait
 * (a sync op), which occupies nothing. */
static int named_res(const struct acs_schedule *sc, int32_t i)
{
  for (int r = 0; r < sc->nres && sc->demand; r++)
    if (r != sc->res_pe && r != sc->res_dma && r != sc->res_cmx &&
        sc->demand[(size_t)i * (size_t)sc->nres + (size_t)r] > 0)
      return r;
  return sc->ops[i].kind == ACS_OP_SYNC ? -1 : sc->nres;
}

static int gcat(const struct acs_schedule *sc, int32_t i)
{
  const struct acs_sop *o = &sc->ops[i];

  if (i >= sc->norig)
    return G_ADDED;
  if (o->unit < 0)
    return G_NAMED;
  if (o->kind == ACS_OP_DMA)
    return o->src == ACS_MEM_DDR ? G_LOAD : o->dst == ACS_MEM_DDR ? G_STORE : G_DMA;
  return o->kind == ACS_OP_SHAVE ? G_SHAVE : G_DPU;
}

/* The times an op is drawn at: simulated when the run was, else planned. */
static void op_times(const struct acs_sop *o, double *a, double *b)
{
  int sim = !isnan(o->sim_start) && !isnan(o->sim_end);

  *a = sim ? o->sim_start : (double)o->start;
  *b = sim ? o->sim_end : (double)o->end;
}

struct lane_op {
  double a, b;
  int32_t op;
};

static int cmp_lane_op(const void *pa, const void *pb)
{
  const struct lane_op *x = pa, *y = pb;

  if (x->a != y->a)
    return x->a < y->a ? -1 : 1;
  return x->op < y->op ? -1 : x->op > y->op;
}

/* Lanes of named resource r: each op on the first lane free at its start.
 * lane[i] gets the op's lane; returns the lanes used. O(V L). */
static int assign_lanes(struct gpanel *gp, int r, struct lane_op *v, double *free_at, int *lane)
{
  size_t n = 0;
  int used = 0;

  for (int32_t i = 0; i < gp->sc.nops; i++)
    if (gp->sc.ops[i].unit < 0 && named_res(&gp->sc, i) == r) {
      op_times(&gp->sc.ops[i], &v[n].a, &v[n].b);
      v[n].op = i;
      if (v[n].b > v[n].a)
        n++;
    }
  qsort(v, n, sizeof(*v), cmp_lane_op);
  for (size_t k = 0; k < n; k++) {
    int l = 0;
    while (l < used && free_at[l] > v[k].a)
      l++;
    if (l == used && used < MAXLANES)
      used++;
    if (l == used)
      l = used - 1; /* past MAXLANES: share the last lane rather than fail */
    free_at[l] = v[k].b;
    lane[v[k].op] = l;
  }
  return used;
}

/* Every op's row: PEs, DMA channels, then each named resource's lanes. */
static int gpanel_rows(struct gpanel *gp)
{
  struct lane_op *v = malloc(((size_t)gp->sc.nops + 1) * sizeof(*v));
  double *free_at = malloc(MAXLANES * sizeof(*free_at));
  int *lane = malloc(((size_t)gp->sc.nops + 1) * sizeof(*lane));
  int base[ACS_MAX_RES + 1], next = gp->npe + gp->ndma;

  if (!v || !free_at || !lane || !(gp->row = malloc(((size_t)gp->sc.nops + 1) * sizeof(int)))) {
    free(v), free(free_at), free(lane);
    return ACS_ENOMEM;
  }
  for (int r = 0; r <= gp->sc.nres; r++) {
    base[r] = next;
    gp->lanes[r] = assign_lanes(gp, r, v, free_at, lane);
    next += gp->lanes[r];
  }
  gp->nrows = next;
  for (int32_t i = 0; i < gp->sc.nops; i++) {
    const struct acs_sop *o = &gp->sc.ops[i];
    int r = o->unit < 0 ? named_res(&gp->sc, i) : -1;
    double a, b;
    op_times(o, &a, &b);
    gp->row[i] = o->unit >= 0 ? (o->kind == ACS_OP_DMA ? gp->npe + o->unit : o->unit)
                 : r >= 0 && b > a ? base[r] + lane[i] : -1;
    gp->hidden += o->unit < 0 && r < 0 && b > a;
    if (gp->row[i] >= 0)
      gp->cats |= 1u << gcat(&gp->sc, i);
  }
  free(v), free(free_at), free(lane);
  return ACS_OK;
}

/* Reads the run's schedule; *why gets the reason when there is none. */
static int gpanel_load(const struct acs__study *s, const struct acs__srun *r, struct gpanel *gp,
                       char *why, size_t size)
{
  struct acs_diag d;

  memset(gp, 0, sizeof(*gp));
  gp->run = r;
  acs_diag_init(&d);
  if (acs_results_read_schedule(s->path, r->r->run_id, &gp->sc, &d) < 0) {
    snprintf(why, size, "%s", d.msg);
    return ACS_OK;
  }
  if (gp->sc.nops == 0) { /* the sweep kept only its result tables */
    acs_schedule_destroy(&gp->sc);
    snprintf(why, size, "only the result tables of run %lld were kept", (long long)r->r->run_id);
    return ACS_OK;
  }
  gp->have = 1;
  gp->npe = gp->sc.res_pe >= 0 ? (int)r->p->v[ACS_P_PE_COUNT] : 0;
  gp->ndma = gp->sc.res_dma >= 0 ? (int)r->p->v[ACS_P_DMA_CHANNELS] : 0;
  for (int32_t i = 0; i < gp->sc.nops; i++) {
    const struct acs_sop *o = &gp->sc.ops[i];
    if (o->kind == ACS_OP_DMA && o->unit >= gp->ndma)
      gp->ndma = o->unit + 1;
    else if (o->kind != ACS_OP_DMA && o->unit >= gp->npe)
      gp->npe = o->unit + 1;
  }
  return gpanel_rows(gp);
}

static void gpanel_free(struct gpanel *gp)
{
  if (gp->have)
    acs_schedule_destroy(&gp->sc);
  free(gp->row);
  gp->row = NULL;
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
    double a, b;
    op_times(&gp->sc.ops[i], &a, &b);
    if (b > a && gp->row[i] >= 0)
      v[n++] = (struct gbar){gp->row[i], a, b, i};
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
  char label[96];
  int row = p->npe + p->ndma, first = 1;

  fprintf(gp, "set yrange [%g:0.6]\nset ytics (", -(double)p->nrows + 0.4);
  for (int i = 0; i < p->npe; i++, first = 0)
    fprintf(gp, "%s'PE %d' %d", first ? "" : ", ", i, -i);
  for (int i = 0; i < p->ndma; i++, first = 0)
    fprintf(gp, "%s'DMA %d' %d", first ? "" : ", ", i, -(p->npe + i));
  for (int r = 0; r <= p->sc.nres; r++)
    for (int l = 0; l < p->lanes[r]; l++, first = 0) {
      snprintf(label, sizeof(label), "%.40s %d",
               r == p->sc.nres ? "other" : p->sc.res_name[r] ? p->sc.res_name[r] : "?", l);
      fprintf(gp, "%s", first ? "" : ", ");
      acs__gp_str(gp, label);
      fprintf(gp, " %d", -(row++));
    }
  fprintf(gp, ") scale 0\n");
}

static void gpanel_title(FILE *gp, const struct acs__study *s, const char *which,
                         const struct gpanel *p, struct acs__scale sc)
{
  char t[ACS__LABEL * 3];

  snprintf(t, sizeof(t), "%s: %s on %s, %.4g %s", which, s->sched[p->run->sched],
           p->run->p->name, p->run->mk / sc.div, sc.unit);
  fprintf(gp, "set title ");
  acs__gp_str(gp, t);
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
              "set lmargin at screen 0.11\nset rmargin at screen 0.80\n"
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

/* The best and the worst eligible run of workload wl over the study. */
static void extremes(const struct acs__study *s, int wl, const struct acs__srun **best,
                     const struct acs__srun **worst)
{
  *best = *worst = NULL;
  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    if (r->wl != wl || !r->eligible)
      continue;
    if (acs__better(r, *best))
      *best = r;
    if (acs__worse(r, *worst))
      *worst = r;
  }
}

/* The card that says why a Gantt chart is missing or incomplete. */
static void gantt_missing(char *html, size_t size, const char *which, const struct acs__srun *r,
                          const char *why)
{
  char b[ACS__LABEL * 2], w[1024];

  snprintf(html, size,
           "The %s run (<code>%s</code>) has no stored schedule (%s). <code>acsim sweep</code> "
           "keeps the schedules of the best and worst run of every workload by default "
           "(<code>--keep-schedules=extremes</code>); a study made with "
           "<code>--keep-schedules=none</code>, or merged from files that lack them, has none. "
           "Run the sweep again with <code>--keep-schedules</code> into a new file, or "
           "<code>acsim run</code> on that platform, to see it.",
           which, acs__html_esc(r->p->name, b, sizeof(b)), acs__html_esc(why, w, sizeof(w)));
}

static int gantt_plot(struct acs__plots *pl, const struct acs__study *s, int wl, struct gpanel *p,
                      const char *const *which, int np, double xmax)
{
  struct acs__scale sc = acs__scale_cycles(xmax);
  struct acs__plot *pp;
  char name[200];
  int h = 0, err;
  size_t hidden = 0;
  FILE *gp, *dat;

  for (int k = 0; k < np; k++) {
    h += 110 + 24 * p[k].nrows;
    hidden += p[k].hidden;
  }
  acs__stem(name, sizeof(name), "gantt", s, wl, -1);
  if ((err = acs__gp_begin(pl, s, name, wl, -1, 1100, h + 60, &gp, &dat, &pp)) < 0)
    return err;
  for (int k = 0; k < np && err == ACS_OK; k++)
    err = gpanel_data(dat, &p[k], sc.div);
  gantt_script(gp, name, s, p, which, np, sc, xmax * 1.01);
  snprintf(pp->title, sizeof(pp->title), "Gantt chart%s of the %s run", np == 2 ? "s" : "",
           np == 2 ? "best and worst" : which[0]);
  acs__caption(pp, "One row per PE, DMA channel and unit of any other resource the workload "
                   "names, %s times%s. Neighbouring ops alternate between two shades; the data "
                   "file names every op.", s->simulated ? "simulated" : "planned",
               np == 2 ? ", both runs on the same time axis: the difference in length is the "
                         "difference in makespan" : "");
  if (hidden)
    acs__caption(pp, " %zu latency wait%s (sync ops, which occupy no unit) %s not drawn; "
                     "work on units without a limit is on the rows named other.", hidden,
                 hidden == 1 ? "" : "s", hidden == 1 ? "is" : "are");
  pl->gantts++;
  return acs__gp_end(gp, dat) < 0 ? ACS_EIO : err;
}

int acs__plot_gantt(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  const struct acs__srun *run[2];
  const char *const label[2] = {"best", "worst"};
  const char *which[2];
  struct gpanel p[2], shown[2];
  int np = 0, err = ACS_OK;
  char html[2048] = "", why[1024];

  extremes(s, wl, &run[0], &run[1]);
  if (!run[0])
    return ACS_OK;
  for (int k = 0; k < (run[1] != run[0] ? 2 : 1) && err == ACS_OK; k++) {
    err = gpanel_load(s, run[k], &p[k], why, sizeof(why));
    if (err == ACS_OK && p[k].have) {
      shown[np] = p[k];
      which[np++] = label[k];
    } else {
      if (err == ACS_OK && !html[0])
        gantt_missing(html, sizeof(html), label[k], run[k], why);
      gpanel_free(&p[k]);
    }
  }
  if (err == ACS_OK && np > 0)
    err = gantt_plot(pl, s, wl, shown, which, np, fmax(run[0]->mk, run[1]->mk));
  if (err == ACS_OK && html[0]) {
    if (np > 0)
      acs__caption(&pl->v[pl->n - 1], " %s", html);
    else
      err = acs__plots_note(pl, wl, "Gantt charts of the best and worst run", html);
  }
  for (int k = 0; k < np; k++)
    gpanel_free(&shown[k]);
  return err;
}
