/*
 * plots_int.h - the report's plots: for each one a gnuplot script (.gp) and its
 * data (.dat) in DIR/plots, then the SVG gnuplot makes from them (internal
 * to report/).
 *
 * plots.c holds what every plot shares (files, styles, gnuplot) and the
 * order the plots are made in; plots_grid.c the plots over the study's
 * axes (makespan, heatmap, bytes, contention); plots_gantt.c the Gantt
 * charts; plots_family.c the figures of a scheduler family (the schedulers
 * side by side, loops, recurrence equations, SDF graphs, cascade fronts).
 */
#ifndef ACS_REPORT_PLOTS_INT_H
#define ACS_REPORT_PLOTS_INT_H

#include <stdio.h>

#include "report/study_int.h"

struct acs__plot {
  char name[200];            /* file stem in plots/ */
  char title[400];
  char caption[2048];        /* HTML, already escaped */
  int wl;                    /* workload index; -1 for study-wide plots */
  int fam;                   /* family index; -1 when it does not apply */
  int width;                 /* the SVG's width in pixels: the page shows it no wider */
  int ok;                    /* the SVG exists and is not empty */
  char error[512];           /* why not, when gnuplot ran */
};

struct acs__plots {
  char dir[2048];            /* DIR/plots */
  struct acs__plot *v;
  size_t n, cap;
  size_t gantts;
  /* Per workload (index nwl: study-wide), the plots left out and why, as
   * HTML sentences for the page. */
  char (*omitted)[2048];
  size_t nomitted;
};

/* Writes the scripts and data of every plot of the study into pl->dir. */
/* Black text on light cells, white on dark (the heatmap palette: its
 * luminance falls as t goes from 0 to 1). */
static inline long acs__plot_label_colour(double t)
{
  return t < 0.55 ? 0x222222 : 0xffffff;
}

int acs__plots_write(struct acs__plots *pl, const struct acs__study *s, struct acs_diag *d);
/* Runs gnuplot on every script; sets each plot's ok, and info's counts. */
void acs__plots_render(struct acs__plots *pl, const char *gnuplot, struct acs_report_info *info);
void acs__plots_free(struct acs__plots *pl);

/* HTML escaping (& < > " ') of s into buf; returns buf. */
const char *acs__html_esc(const char *s, char *buf, size_t size);
void acs__html_put(FILE *f, const char *s);

/* Value scaling for axes and tables: divides v by the unit that keeps the
 * largest value below 1000 ("cycles", "kcycles", "Mcycles", "Gcycles";
 * "B", "KiB", "MiB", "GiB"). */
struct acs__scale {
  double div;
  const char *unit;
};
struct acs__scale acs__scale_cycles(double max);
struct acs__scale acs__scale_bytes(double max);

/* ---- the page (html.c, html_answers.c, csv.c) ---- */

/* "5.797 Mcycles", "-" for NaN. */
void acs__fmt_cycles(double v, char *buf, size_t size);
/* A scheduler's name with its colour swatch, escaped. */
void acs__html_sched(FILE *f, const char *label);
/* The Answers section: per workload, the sizing answers (study_int.h). */
int acs__html_answers(FILE *f, const struct acs__study *s);
/* A workload's sizing tables, every slice of each question. */
int acs__html_sizing(FILE *f, const struct acs__study *s, int wl);

/* ---- shared by the plot files ---- */

/* A scheduler's colour ("#4e79a7"): fixed by its variant's place in the
 * registry, so one scheduler has one colour in every plot of every report;
 * the label's options ("list[rule=lpath]") change its marker and dashes. */
const char *acs__sched_colour(const char *label);

/* Opens NAME.gp and NAME.dat, writes the script's preamble (with one line
 * style per scheduler of the study, `ls k+1` for scheduler k) and adds the
 * plot to the list. */
int acs__gp_begin(struct acs__plots *pl, const struct acs__study *s, const char *name, int wl,
                  int fam, int w, int h, FILE **gp, FILE **dat, struct acs__plot **out);
int acs__gp_end(FILE *gp, FILE *dat);
/* A gnuplot single-quoted string; a .dat string field. */
void acs__gp_str(FILE *f, const char *s);
void acs__dat_str(FILE *f, const char *s);
/* Line width and point size of the i-th of n series drawn into one panel:
 * wider first, so a series that coincides with a later one still shows
 * around it. */
void acs__series_width(int i, int n, double *lw, double *ps);
void acs__caption(struct acs__plot *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* File stem safe on any file system: letters, digits, '-', '_'. */
void acs__stem(char *buf, size_t size, const char *kind, const struct acs__study *s, int wl,
               int fam);
/* A card without a plot: a remark about a workload. */
int acs__plots_note(struct acs__plots *pl, int wl, const char *title, const char *html);
/* Records a plot left out of workload wl's section (-1: study-wide) and
 * why, as a sentence the page shows in its place. */
void acs__plots_omit(struct acs__plots *pl, int wl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "simulated makespan" or "planned makespan". */
const char *acs__mk_word(const struct acs__study *s);
/* " on default (pe_count=8)" when the study has several families. */
const char *acs__family_suffix(const struct acs__study *s, int fam, char *buf, size_t size);
int acs__cmp_dbl(const void *a, const void *b);

/* The plots of each file, called by acs__plots_write. */
int acs__plots_grid(struct acs__plots *pl, const struct acs__study *s, int wl);
int acs__plot_gantt(struct acs__plots *pl, const struct acs__study *s, int wl);
int acs__plot_compare(struct acs__plots *pl, const struct acs__study *s);
int acs__plots_family(struct acs__plots *pl, const struct acs__study *s, int wl);

#endif
