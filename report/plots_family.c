/*
 * plots_family.c - the figures that answer a scheduler family's own
 * question (plots_int.h): the schedulers against the best of each
 * configuration; for loops, II against MII per unit count; for recurrence
 * equations, latency against the parameter; for SDF graphs, the schedulers
 * side by side and gang over PEs x VMEM; for cascade runs, the Pareto front
 * of proposals. A figure without data is left out with a sentence.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/rtab.h"
#include "report/plots_int.h"

/* ---- schedulers normalized to the best of each configuration ---- */

/* The range of the bars: every geometric mean, 0 included (a transient
 * scheduler's optimistic figures lie below the best, so bars go down too). */
static void cmp_range(const struct acs__cmp *c, double *lo, double *hi)
{
  *lo = *hi = 0;
  for (size_t i = 0; i < c->rows * c->cols; i++)
    if (c->cell[i].n) {
      double v = 100.0 * (exp(c->cell[i].sumlog / (double)c->cell[i].n) - 1.0);
      *lo = fmin(*lo, v);
      *hi = fmax(*hi, v);
    }
}

int acs__plot_compare(struct acs__plots *pl, const struct acs__study *s)
{
  struct acs__cmp c;
  struct acs__plot *p;
  FILE *gp, *dat;
  int err, first = 1;
  double lo, hi, pad;

  if ((err = acs__study_compare(s, &c)) < 0)
    return err;
  if (c.configs == 0) {
    acs__cmp_free(&c);
    acs__plots_omit(pl, -1, "No platform variant of any workload had two schedulers finish with "
                            "a best run to compare against, so there is no scheduler "
                            "comparison plot.");
    return ACS_OK;
  }
  cmp_range(&c, &lo, &hi);
  pad = 0.12 * (hi - lo) + 0.5;
  if ((err = acs__gp_begin(pl, s, "schedulers", -1, -1, 1100, 440, &gp, &dat, &p)) < 0) {
    acs__cmp_free(&c);
    return err;
  }
  snprintf(p->title, sizeof(p->title), "Schedulers against the best of each configuration");
  fprintf(dat, "# workload, then per scheduler: geometric mean of makespan / best - 1, in %%\n");
  for (size_t row = 0; row < c.rows; row++) {
    acs__dat_str(dat, row < s->nwl ? s->wl[row] : "all workloads");
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
              "set style fill solid 0.9 noborder\nset boxwidth 0.9\nset yrange [%.6g:%.6g]\n"
              "set ylabel 'makespan above the best run (%%, geometric mean)'\n"
              "set xtics scale 0\nset grid noxtics ytics\nset key outside right top\n"
              "set xzeroaxis lt -1 lw 1\n"
              "# label positions: cluster i centred at x = i, bar k of n at\n"
              "# i + (k - (n - 1) / 2) / (n + gap), above a bar or below a negative one\n"
              "n = %zu\ngap = 1.5\nd = %.6g\nplot ",
          lo < 0 ? lo - pad : 0, hi + pad, c.cols, pad / 3);
  for (size_t k = 0; k < c.cols; k++) {
    fprintf(gp, "%s'schedulers.dat' using %zu%s lc rgb '%s' title ", first ? "" : ", ", k + 2,
            first ? ":xtic(1)" : "", acs__sched_colour(s->sched[k]));
    acs__gp_str(gp, s->sched[k]);
    first = 0;
  }
  fprintf(gp, ", \\\n  for [k=0:n-1] '' using ($0 + (k - (n - 1) / 2.0) / (n + gap)):"
              "(column(k + 2) + (column(k + 2) < 0 ? -d : d)):"
              "(sprintf('%%+.1f%%%%', column(k + 2))) with labels font ',10' notitle\n");
  acs__caption(p, "For each configuration (a platform variant and a workload) with a best run "
                  "and at least two schedulers that found a schedule, each scheduler's makespan "
                  "is divided by the best run's; the bar is the geometric mean of that ratio "
                  "minus one, over %zu configurations. 0%% means always the best; the table "
                  "above counts the wins.", c.configs);
  for (size_t w = 0; w < s->nwl; w++)
    if (s->wl_resident[w]) {
      acs__caption(p, " The best run is the fastest of the schedulers that keep tensors "
                      "resident in CMX when the workload has one: transient schedulers hold an "
                      "op's CMX only while it runs, so their makespans are optimistic bounds, "
                      "may go below 0%% and never count as the best.");
      break;
    }
  acs__cmp_free(&c);
  return acs__gp_end(gp, dat);
}

/* ---- SDF graphs (seed 004): the variants side by side, PE x VMEM ---- */

/*
 * The platform variants of a workload's runs (at most max), as a
 * representative run each: in run order, or in natural order of name when
 * `natural` is set. Schedulers that ran on the workload in used[] (unless
 * NULL).
 */
static size_t platform_variants(const struct acs__study *s, int wl, const struct acs__srun **v,
                                size_t max, int natural, int *used)
{
  size_t n = 0;

  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    size_t k;
    if (r->wl != wl)
      continue;
    if (used)
      used[r->sched] = 1;
    for (k = 0; k < n && strcmp(v[k]->p->name, r->p->name) != 0; k++)
      ;
    if (k < n || n == max)
      continue;
    for (k = n++; natural && k > 0 && acs__natcmp(v[k - 1]->p->name, r->p->name) > 0; k--)
      v[k] = v[k - 1];
    v[k] = r;
  }
  return n;
}

/* The latest ok run of scheduler k on the platform named pname, or NULL. */
static const struct acs__srun *latest_ok(const struct acs__study *s, int wl, size_t k,
                                         const char *pname)
{
  const struct acs__srun *best = NULL;

  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    if (r->wl == wl && (size_t)r->sched == k && strcmp(r->p->name, pname) == 0 &&
        (!best || r->r->run_id > best->r->run_id))
      best = r;
  }
  return best && best->ok ? best : NULL;
}

/* The latest ok makespan of scheduler k on the platform named pname, NaN. */
static double sdf_mk(const struct acs__study *s, int wl, size_t k, const char *pname)
{
  const struct acs__srun *r = latest_ok(s, wl, k, pname);

  return r ? r->mk : NAN;
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
  n = platform_variants(s, wl, cfg, 12, 0, used);
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
  acs__stem(name, sizeof(name), "sdfvariants", s, wl, 0);
  if ((err = acs__gp_begin(pl, s, name, wl, -1, 300 + 90 * (int)n, 440, &gp, &dat, &p)) < 0) {
    free(used);
    return err;
  }
  snprintf(p->title, sizeof(p->title), "Schedulers side by side");
  fprintf(dat, "# platform");
  for (size_t k = 0; k < s->nsched; k++)
    if (used[k]) {
      fprintf(dat, " ");
      acs__dat_str(dat, s->sched[k]);
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
    acs__dat_str(dat, label);
    for (size_t k = 0; k < s->nsched; k++)
      if (used[k])
        fprintf(dat, " %.10g", sdf_mk(s, wl, k, cfg[c]->p->name) / sc.div);
    fprintf(dat, "\n");
  }
  fprintf(gp, "set style data histograms\nset style histogram clustered gap 1\n"
              "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset key outside right top\n"
              "set xtics rotate by -30 noenhanced\nset yrange [0:*]\nset ylabel '%s (%s)'\n",
          acs__mk_word(s), sc.unit);
  fprintf(gp, "plot ");
  for (size_t k = 0, col = 2; k < s->nsched; k++)
    if (used[k]) {
      fprintf(gp, "%s'%s.dat' using %zu:xtic(1) title ", col > 2 ? ", \\\n  " : "", name, col);
      acs__gp_str(gp, s->sched[k]);
      fprintf(gp, " lc rgb '%s'", acs__sched_colour(s->sched[k]));
      col++;
    }
  fprintf(gp, "\n");
  acs__caption(p, "The %s of every scheduler on each platform variant (the first twelve), lower is "
             "better: gang is the thesis's heuristic, tiling splits every kernel's lines over the "
             "PEs with all data through DDR, naive-list loads kernels on demand, sequential runs "
             "one kernel per gang. A missing bar is an infeasible or failed run.", acs__mk_word(s));
  free(used);
  return acs__gp_end(gp, dat);
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

  if (!s->varies[ACS_P_PE_COUNT] || !s->varies[ACS_P_PE_VMEM_KIB]) {
    acs__plots_omit(pl, wl, "The map of gang over PEs and vector memory needs both to vary "
                            "(<code>--vary pe_count=1,2,4 --vary pe_vmem_kib=32,128</code>); "
                            "this study does not vary %s.",
                    s->varies[ACS_P_PE_COUNT] ? "pe_vmem_kib"
                    : s->varies[ACS_P_PE_VMEM_KIB] ? "pe_count" : "either");
    return ACS_OK;
  }
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
  qsort(pes, npe, sizeof(double), acs__cmp_dbl);
  qsort(vms, nvm, sizeof(double), acs__cmp_dbl);
  sc = acs__scale_cycles(hi);
  acs__stem(name, sizeof(name), "sdfpevmem", s, wl, 0);
  if ((err = acs__gp_begin(pl, s, name, wl, -1, npe < 4 ? 780 : 300 + 120 * (int)npe,
                           nvm < 4 ? 400 : 160 + 60 * (int)nvm, &gp, &dat, &p)) < 0)
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
      long colour = acs__plot_label_colour(hi > lo && !isnan(g) ? (g - lo) / (hi - lo) : 0);
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
          acs__mk_word(s), sc.unit, lo / sc.div, hi > lo ? hi / sc.div : lo / sc.div + 1);
  fprintf(gp, "plot '%s.dat' using 1:2:3 with image pixels notitle, \\\n"
              "  '' using 1:($2+0.12):4:6 with labels tc rgb variable font ',12' notitle, \\\n"
              "  '' using 1:($2-0.18):5:6 with labels tc rgb variable font ',10' notitle\n", name);
  acs__caption(p, "The co-design question of seed 004: how many PEs and how much vector memory for "
             "this image pipeline. Each cell is gang's %s (in %s) on that platform, with its "
             "ratio to tiling's; a gray cell had no feasible schedule (the buffers did not fit).",
          acs__mk_word(s), sc.unit);
  return acs__gp_end(gp, dat);
}

static int sdf_plots(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  int err;

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
  acs__stem(name, sizeof(name), "cascadefront", s, wl, 0);
  err = acs__gp_begin(pl, s, name, wl, -1, 900, 420, &gp, &dat, &p);
  if (err == ACS_OK) {
    /* The proposals' cycles are the cascader's plan (its own time model),
     * never simulated: the axis and the title say so. */
    snprintf(p->title, sizeof(p->title), "cascade: Pareto front of proposals (CMX against "
             "planned cycles)");
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
                "plot '%s.dat' index 0 using 1:2 with steps lw 2 lc rgb '%s' title 'Pareto front', \\\n"
                "  '' index 0 using 1:2 with points pt 7 ps 0.8 lc rgb '%s' notitle, \\\n"
                "  '' index 1 using 1:2 with points pt 6 ps 1.8 lw 2 lc rgb '#111111' "
                "title 'chosen within the budget'\n", sb.unit, scy.unit, name,
                acs__sched_colour("cascade"), acs__sched_colour("cascade"));
    acs__caption(p, "Each point is a proposal of the cascading scheduler (seed 002): the CMX it needs "
               "and its planned cycles; no proposal is better in both. Dashed lines mark the "
               "budgets of the runs (cmx_kib or budget_kib); the circled points are the proposals "
               "chosen within them, the fastest that fits. Left of the front no grouping fits; "
               "moving right along it shows what each kilobyte more buys.");
    err = acs__gp_end(gp, dat);
  }
  for (size_t j = 0; j < n; j++)
    acs_schedule_destroy(&sc[j]);
  return err;
}


/* ---- loops (seed 001): II against MII per loop and unit count ---- */

#define LOOP_VARIANTS 16

/* "units.mem=2" for "default[units.mem=2]": what differs between variants. */
static void variant_label(const char *name, int several, char *buf, size_t size)
{
  const char *br = strchr(name, '[');
  size_t len;

  snprintf(buf, size, "%s", br && several ? br + 1 : name);
  len = strlen(buf);
  if (br && several && len > 0 && buf[len - 1] == ']')
    buf[len - 1] = '\0';
}

/* Column of .dat: 2 + 2k is scheduler k's II, 3 + 2k its cycles/iteration;
 * the last column is the MII. */
static void loop_data(FILE *dat, const struct acs__study *s, int wl, const struct acs__srun **v,
                      size_t n, int *has_ii, int *has_cpi)
{
  char label[ACS_PLATFORM_NAME_MAX];

  fprintf(dat, "# variant, then per scheduler: II, cycles per iteration; then MII\n");
  for (size_t c = 0; c < n; c++) {
    double mii = NAN;
    variant_label(v[c]->p->name, n > 1, label, sizeof(label));
    acs__dat_str(dat, label);
    for (size_t k = 0; k < s->nsched; k++) {
      const struct acs__srun *r = latest_ok(s, wl, k, v[c]->p->name);
      double ii = r ? r->r->ii : NAN, cpi = r ? r->r->cycles_per_iter : NAN;
      fprintf(dat, " %.10g %.10g", ii, cpi);
      has_ii[k] |= !isnan(ii);
      has_cpi[k] |= !isnan(cpi);
      if (r && !isnan(r->r->mii))
        mii = r->r->mii;
    }
    fprintf(dat, " %.10g\n", mii);
  }
}

static void loop_script(FILE *gp, const struct acs__study *s, const char *name, size_t n,
                        const int *has_ii, const int *has_cpi, int has_mii)
{
  const char *sep = "plot ";

  fprintf(gp, "set xrange [-0.5:%zu.5]\nset yrange [0:*]\nset xtics rotate by -30 noenhanced\n"
              "set ylabel 'cycles per iteration'\nset key outside right top\n", n - 1);
  if (has_mii) {
    fprintf(gp, "%s'%s.dat' using 0:%zu:xtic(1) with linespoints lw 2 dt 2 pt 1 ps 1.2 "
                "lc rgb '#000000' title 'MII (lower bound)'", sep, name, 2 + 2 * s->nsched);
    sep = ", \\\n  ";
  }
  for (size_t k = 0; k < s->nsched; k++) {
    if (has_ii[k]) {
      fprintf(gp, "%s'' using 0:%zu:xtic(1) with linespoints ls %zu title ", sep, 2 + 2 * k,
              k + 1);
      fprintf(gp, "'%s II'", s->sched[k]);
      sep = ", \\\n  ";
    }
    if (has_cpi[k]) {
      fprintf(gp, "%s'%s.dat' using 0:%zu:xtic(1) with linespoints ls %zu dt 3 title ", sep,
              name, 3 + 2 * k, k + 1);
      fprintf(gp, "'%s, simulated'", s->sched[k]);
      sep = ", \\\n  ";
    }
  }
  fprintf(gp, "\n");
}

static int plot_loop(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  const struct acs__srun *v[LOOP_VARIANTS];
  int *has_ii = calloc(s->nsched + 1, sizeof(int)), *has_cpi = calloc(s->nsched + 1, sizeof(int));
  int err = ACS_OK, any = 0, has_mii = 0;
  struct acs__plot *p;
  char name[200];
  FILE *gp, *dat;
  size_t n = platform_variants(s, wl, v, LOOP_VARIANTS, 1, NULL);

  if (!has_ii || !has_cpi) {
    free(has_ii), free(has_cpi);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < s->nruns; i++)
    if (s->runs[i].wl == wl && s->runs[i].ok) {
      any |= !isnan(s->runs[i].r->ii) || !isnan(s->runs[i].r->cycles_per_iter);
      has_mii |= !isnan(s->runs[i].r->mii);
    }
  if (!any || n == 0) {
    acs__plots_omit(pl, wl, "No run of this loop has an initiation interval or a simulated "
                            "time per iteration (run <code>modulo</code>, and simulate), so "
                            "there is no II plot.");
    goto out;
  }
  acs__stem(name, sizeof(name), "loop", s, wl, -1);
  if ((err = acs__gp_begin(pl, s, name, wl, -1, 960, 420, &gp, &dat, &p)) < 0)
    goto out;
  snprintf(p->title, sizeof(p->title), "II against MII%s",
           s->nuclass > 0 && n > 1 ? " per unit count" : n > 1 ? " per platform variant" : "");
  loop_data(dat, s, wl, v, n, has_ii, has_cpi);
  loop_script(gp, s, name, n, has_ii, has_cpi, has_mii);
  acs__caption(p, "A pipelined loop starts an iteration every II cycles. MII (dashed) is the "
                  "lower bound from the units and the recurrences; a modulo schedule's II "
                  "(solid) meets it when the bound is reached. Dotted: each scheduler's "
                  "simulated makespan of the unrolled iterations over their number, the "
                  "interval it achieves in practice (list and sequential included).");
  err = acs__gp_end(gp, dat);
out:
  free(has_ii);
  free(has_cpi);
  return err;
}

/* ---- recurrence equations (seed 003): latency against the parameter ---- */

/* The file part of an affine workload's path ("workloads/affine/matmul.sare"
 * of ".../matmul.sare:N=8") and its parameter text ("N=8"; "" when none). */
static size_t spec_file_len(const char *path)
{
  const char *sare = strstr(path, ".sare:");

  return sare ? (size_t)(sare - path) + 5 : strlen(path);
}

/* The value of parameter `param` (the text before '=') in spec, or NAN. */
static double spec_value(const char *path, const char *param)
{
  const char *p = path + spec_file_len(path);
  size_t len = strlen(param);

  while (*p == ':') {
    p++;
    if (strncmp(p, param, len) == 0 && p[len] == '=')
      return strtod(p + len + 1, NULL);
    p += strcspn(p, ":");
  }
  return NAN;
}

/* The first parameter of workload w's spec whose value differs in another
 * workload of the group, into buf; 0 when none does. */
static int varying_param(const struct acs__study *s, const int *member, size_t nm, char *buf,
                         size_t size)
{
  const char *path = s->runs[member[0]].w->path, *p = path + spec_file_len(path);

  while (*p == ':') {
    size_t len = strcspn(++p, "=:");
    snprintf(buf, size, "%.*s", (int)len, p);
    for (size_t j = 1; j < nm; j++)
      if (spec_value(s->runs[member[j]].w->path, buf) != spec_value(path, buf))
        return 1;
    p += strcspn(p, ":");
  }
  return 0;
}

/* Members of wl's group: one representative run index per workload whose
 * file part is the same, in workload order. Returns the count; *first is
 * whether wl is the group's first workload (the one that shows the plot). */
static size_t group_members(const struct acs__study *s, int wl, int *member, int *first)
{
  const struct acs__srun *me = NULL;
  size_t n = 0;

  for (size_t i = 0; i < s->nruns && !me; i++)
    if (s->runs[i].wl == wl)
      me = &s->runs[i];
  *first = 0;
  if (!me || strcmp(me->w->kind, "affine") != 0)
    return 0;
  for (int w = 0; w < (int)s->nwl; w++)
    for (size_t i = 0; i < s->nruns; i++) {
      const struct acs__srun *r = &s->runs[i];
      if (r->wl != w)
        continue;
      if (spec_file_len(r->w->path) == spec_file_len(me->w->path) &&
          strncmp(r->w->path, me->w->path, spec_file_len(me->w->path)) == 0) {
        if (n == 0)
          *first = w == wl;
        member[n++] = (int)i;
      }
      break;
    }
  return n;
}

/* Latency of scheduler k on workload w at the group's platform: its latest
 * ok run there. */
static double affine_latency(const struct acs__study *s, int w, size_t k, int32_t platform)
{
  const struct acs__srun *best = NULL;

  for (size_t i = 0; i < s->nruns; i++) {
    const struct acs__srun *r = &s->runs[i];
    if (r->wl == w && (size_t)r->sched == k && r->r->platform_id == platform &&
        (!best || r->r->run_id > best->r->run_id))
      best = r;
  }
  return best && best->ok ? best->mk : NAN;
}

static void affine_series(FILE *gp, FILE *dat, const struct acs__study *s, const char *name,
                          const int *member, size_t nm, const char *param, int32_t platform)
{
  int i = 0, n = 0, block = 0;
  double lw, ps;

  for (size_t k = 0; k < s->nsched; k++)
    for (size_t j = 0; j < nm; j++)
      if (!isnan(affine_latency(s, s->runs[member[j]].wl, k, platform))) {
        n++;
        break;
      }
  for (size_t k = 0; k < s->nsched; k++) {
    int pts = 0;
    for (size_t j = 0; j < nm; j++) {
      double y = affine_latency(s, s->runs[member[j]].wl, k, platform);
      if (isnan(y))
        continue;
      if (!pts++)
        fprintf(dat, "# %s: %s, latency (cycles)\n", s->sched[k], param);
      fprintf(dat, "%.10g %.10g\n", spec_value(s->runs[member[j]].w->path, param), y);
    }
    if (!pts)
      continue;
    fprintf(dat, "\n\n");
    acs__series_width(i++, n, &lw, &ps);
    fprintf(gp, "%s'%s.dat' index %d using 1:2 with linespoints ls %zu lw %.2f ps %.2f title ",
            block ? ", \\\n  " : "plot ", name, block, k + 1, lw, ps);
    acs__gp_str(gp, s->sched[k]);
    block++;
  }
  fprintf(gp, "\n");
}

/* Schedulers with equal latencies at every value, named in the caption:
 * their lines lie on each other (the wider underneath). */
static void affine_coinciding(const struct acs__study *s, const int *member, size_t nm,
                              int32_t platform, struct acs__plot *p)
{
  char b1[ACS__LABEL * 2], b2[ACS__LABEL * 2];

  for (size_t a = 0; a < s->nsched; a++)
    for (size_t b = a + 1; b < s->nsched; b++) {
      int same = 1, both = 0;
      for (size_t j = 0; j < nm && same; j++) {
        double x = affine_latency(s, s->runs[member[j]].wl, a, platform);
        double y = affine_latency(s, s->runs[member[j]].wl, b, platform);
        same = isnan(x) == isnan(y) && (isnan(x) || x == y);
        both += !isnan(x) && !isnan(y);
      }
      if (same && both > 0)
        acs__caption(p, " <code>%s</code> and <code>%s</code> reach the same latency at every "
                        "value: their lines coincide (the wider one is drawn underneath).",
                     acs__html_esc(s->sched[a], b1, sizeof(b1)),
                     acs__html_esc(s->sched[b], b2, sizeof(b2)));
    }
}

static int plot_affine(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  int *member = malloc((s->nwl + 1) * sizeof(int)), first, err = ACS_OK;
  char param[64], name[200], file[ACS_STR_PATH], b[ACS_STR_PATH * 2];
  size_t nm = group_members(s, wl, member, &first);
  double lo = INFINITY, hi = 0;
  struct acs__plot *p;
  FILE *gp, *dat;

  if (!member)
    return ACS_ENOMEM;
  if (nm == 0 || !first)
    goto out;
  snprintf(file, sizeof(file), "%.*s", (int)spec_file_len(s->runs[member[0]].w->path),
           s->runs[member[0]].w->path);
  if (nm < 2 || !varying_param(s, member, nm, param, sizeof(param))) {
    acs__plots_omit(pl, wl, "The latency of <code>%s</code> against its parameter needs "
                            "several values of it (<code>-w '%s:N=8..64*2'</code>).",
                    acs__html_esc(file, b, sizeof(b)), acs__html_esc(file, b, sizeof(b)));
    goto out;
  }
  for (size_t j = 0; j < nm; j++) {
    double v = spec_value(s->runs[member[j]].w->path, param);
    lo = fmin(lo, v);
    hi = fmax(hi, v);
  }
  acs__stem(name, sizeof(name), "latency", s, wl, -1);
  if ((err = acs__gp_begin(pl, s, name, wl, -1, 900, 420, &gp, &dat, &p)) < 0)
    goto out;
  snprintf(p->title, sizeof(p->title), "%.200s: latency against %s", strrchr(file, '/') ?
           strrchr(file, '/') + 1 : file, param);
  fprintf(gp, "set xlabel ");
  acs__gp_str(gp, param);
  fprintf(gp, "\nset ylabel 'latency (cycles)'\nset key top left\n%s",
          lo > 0 && hi / lo >= 8 ? "set logscale xy 2\n" : "set yrange [0:*]\n");
  fprintf(gp, "set xrange [%.10g:%.10g]\n", lo > 0 && hi / lo >= 8 ? lo / 1.2 : lo - 0.05 * (hi - lo),
          lo > 0 && hi / lo >= 8 ? hi * 1.2 : hi + 0.05 * (hi - lo));
  affine_series(gp, dat, s, name, member, nm, param, s->runs[member[0]].r->platform_id);
  acs__caption(p, "The latency (makespan) of each scheduler on the system at each value of %s, "
                  "on platform %s; one point per workload of the study from <code>%s</code>. "
                  "An affine schedule's latency grows with the parameter as its schedule vector "
                  "says; list schedules the same instances greedily.", param,
               acs__html_esc(s->runs[member[0]].p->name, name, sizeof(name)),
               acs__html_esc(file, b, sizeof(b)));
  affine_coinciding(s, member, nm, s->runs[member[0]].r->platform_id, p);
  err = acs__gp_end(gp, dat);
out:
  free(member);
  return err;
}

/* ---- a workload's family figure ---- */

int acs__plots_family(struct acs__plots *pl, const struct acs__study *s, int wl)
{
  const char *kind = "";
  int err;

  for (size_t i = 0; i < s->nruns; i++)
    if (s->runs[i].wl == wl) {
      kind = s->runs[i].w->kind;
      break;
    }
  if (strcmp(kind, "loop") == 0)
    return plot_loop(pl, s, wl);
  if (strcmp(kind, "affine") == 0)
    return plot_affine(pl, s, wl);
  if (strcmp(kind, "sdf") == 0)
    return sdf_plots(pl, s, wl);
  if (strcmp(kind, "dnn") == 0 && (err = plot_cascade_front(pl, s, wl)) < 0)
    return err;
  return ACS_OK;
}
