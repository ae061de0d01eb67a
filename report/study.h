/*
 * study.h - a results file seen as a trade study, for the HTML report
 * (internal to report/).
 *
 * Runs are joined with their platform and workload and placed on a grid:
 * the x axis is cmx_kib when it varies (else the first varying parameter),
 * the panel (y) axis is barriers when it varies (else the next one), and any
 * other varying parameter splits the study into families that are plotted
 * separately ("default", or "default (pe_count=8)"). A run's makespan is the
 * simulated one, or the planned one when the run was not simulated.
 */
#ifndef ACS_REPORT_STUDY_H
#define ACS_REPORT_STUDY_H

#include "report/report.h"

#define ACS__LABEL 400

struct acs__srun {
  const struct acs_run_row *r;
  const struct acs_platform *p;
  const struct acs_workload_row *w;
  int wl, sched, fam;        /* indices into the study's lists */
  int xi, yi;                /* value indices on the axes; 0 when an axis is absent */
  int ok;                    /* status ok with a makespan */
  const char *mm;            /* its memory model: "transient", "resident", "none", "" */
  int resident;              /* the scheduler's memory model is resident (README
                              * "Memory models"): its makespan answers CMX sizing */
  double mk;                 /* makespan (simulated, else planned); NaN unless ok */
};

struct acs__study {
  const char *path;
  struct acs_results_data data;
  struct acs__srun *runs;
  size_t nruns;
  char (*wl)[ACS__LABEL];    /* workload names, in order of first run */
  size_t nwl;
  char (*sched)[ACS__LABEL]; /* "list" or "list[rule=lpath]", in order of first run */
  size_t nsched;
  char (*fam)[ACS__LABEL];
  size_t nfam;
  int varies[ACS_PARAM_COUNT];
  int xparam, yparam;        /* ACS_P_*, -1 when absent */
  double *xv, *yv;           /* sorted distinct values (one 0 when absent) */
  size_t nx, ny;
  int simulated;             /* some run has a simulated makespan */
};

int acs__study_load(const char *path, struct acs__study *s, struct acs_diag *d);
void acs__study_free(struct acs__study *s);

/* Text of a parameter value for axes and tables ("512 KiB", "2 MiB", "no
 * limit" for a zero barrier count). */
void acs__param_label(int param, double v, char *buf, size_t size);
/* Axis title of a parameter ("CMX size", "hardware barriers", ...). */
const char *acs__param_title(int param);
/* The y value whose constraint is loosest (0 = no limit for barriers,
 * otherwise the largest): where the single-panel plots are drawn. */
size_t acs__study_loosest_y(const struct acs__study *s);

/*
 * Schedulers against the best of each configuration (a platform variant and
 * a workload): per workload (rows 0..nwl-1) and over all of them (row nwl),
 * per scheduler, how many configurations it solved, how many it won (ties
 * count for each winner), the geometric mean and the maximum of its
 * makespan over the configuration's best. O(R).
 */
struct acs__cmpcell {
  size_t n, wins;
  double sumlog, worst;
};
struct acs__cmp {
  size_t rows, cols;         /* nwl + 1, nsched */
  struct acs__cmpcell *cell; /* rows * cols */
  size_t configs;            /* configurations with at least two schedulers ok */
};
int acs__study_compare(const struct acs__study *s, struct acs__cmp *c);
void acs__cmp_free(struct acs__cmp *c);
static inline struct acs__cmpcell *acs__cmp_at(const struct acs__cmp *c, size_t row, size_t col)
{
  return &c->cell[row * c->cols + col];
}

/* Natural order of names: digit runs compare as numbers, so
 * "barriers=4" sorts before "barriers=16". */
int acs__natcmp(const char *a, const char *b);

#endif
