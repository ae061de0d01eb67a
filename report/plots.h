/*
 * plots.h - the report's plots: for each one a gnuplot script (.gp) and its
 * data (.dat) in DIR/plots, then the SVG gnuplot makes from them (internal
 * to report/).
 */
#ifndef ACS_REPORT_PLOTS_H
#define ACS_REPORT_PLOTS_H

#include <stdio.h>

#include "report/study.h"

struct acs__plot {
  char name[200];            /* file stem in plots/ */
  char title[400];
  char caption[2048];        /* HTML, already escaped */
  int wl;                    /* workload index; -1 for study-wide plots */
  int fam;                   /* family index; -1 when it does not apply */
  int ok;                    /* the SVG exists and is not empty */
  char error[512];           /* why not, when gnuplot ran */
};

struct acs__plots {
  char dir[2048];            /* DIR/plots */
  struct acs__plot *v;
  size_t n, cap;
  size_t gantts;
  char notes[4][1024];       /* per-study remarks for the page (HTML) */
  size_t nnotes;
};

/* Writes the scripts and data of every plot of the study into pl->dir. */
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

#endif
