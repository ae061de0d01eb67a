/*
 * study_int.h - a results file seen as a trade study, for the HTML report
 * (internal to report/).
 *
 * Runs are joined with their platform and workload and placed on a grid:
 * the x axis is cmx_kib when it varies (else the first varying parameter),
 * the panel (y) axis is barriers when it varies (else the next one), and any
 * other varying parameter splits the study into families that are plotted
 * separately ("default", or "default (pe_count=8)"). A run's makespan is the
 * simulated one, or the planned one when the run was not simulated.
 *
 * The parameters are the platform's numeric ones (ACS_PARAM_*) followed by
 * one per functional-unit class whose count some run's platform overrides
 * (units.CLASS, for loops): acs__param() reads either kind, so a study that
 * varies units.mem has an axis like any other.
 *
 * "Best" has one definition, used by every table, heatmap and Gantt chart:
 * a run counts (is eligible) when it is ok and, if the workload has any ok
 * run of a scheduler whose memory model keeps tensors resident in CMX, when
 * it is one of those. A transient memory model holds a tensor in CMX only
 * while an op touches it, so its makespan is an optimistic bound that no
 * real CMX of that size delivers; it is shown, never called the best.
 */
#ifndef ACS_REPORT_STUDY_INT_H
#define ACS_REPORT_STUDY_INT_H

#include "report/report.h"

#define ACS__LABEL 400
/* Unit classes a study can vary (more are ignored by the axes). */
#define ACS__MAXUCLASS 16
#define ACS__NPARAM (ACS_PARAM_COUNT + ACS__MAXUCLASS)

struct acs__srun {
  const struct acs_run_row *r;
  const struct acs_platform *p;
  const struct acs_workload_row *w;
  int wl, sched, fam;        /* indices into the study's lists */
  int xi, yi;                /* value indices on the axes; 0 when an axis is absent */
  int ok;                    /* status ok with a makespan */
  int eligible;              /* ok and of the kind that counts for "best" (above) */
  const char *mm;            /* its memory model: "transient", "resident", "none", "" */
  int resident;              /* the scheduler's memory model is resident */
  double mk;                 /* makespan (simulated, else planned); NaN unless ok */
  double netbound;           /* network_bound_cycles when the file has it, else NaN */
  double uval[ACS__MAXUCLASS]; /* unit counts per study class; 0: the workload's own */
};

/*
 * The report's order, the same however the runs were stored (a sweep of -j
 * 2 stores them as they finish): workloads by workload_id (the file's
 * workloads table), schedulers in registry order (`acsim list`; names the
 * registry lacks after, by name) and a scheduler's option sets in natural
 * order after its defaults, platforms by platform_id. Runs go by workload,
 * platform, scheduler, options, then run_id.
 */
struct acs__study {
  const char *path;
  struct acs_results_data data;
  struct acs__srun *runs;    /* in the report's order */
  size_t nruns;
  char (*wl)[ACS__LABEL];    /* workload names, by workload_id */
  size_t nwl;
  unsigned char *wl_resident;/* per workload: some ok run has a resident memory model */
  char (*sched)[ACS__LABEL]; /* "list" or "list[rule=lpath]", in registry order */
  size_t nsched;
  char (*fam)[ACS__LABEL];   /* by their first platform_id */
  size_t nfam;
  char uclass[ACS__MAXUCLASS][ACS_UNIT_CLASS_MAX]; /* unit classes, by platform_id */
  char utitle[ACS__MAXUCLASS][ACS_UNIT_CLASS_MAX + 8]; /* "mem units" */
  size_t nuclass;
  int varies[ACS__NPARAM];
  int xparam, yparam;        /* parameter indices, -1 when absent */
  double *xv, *yv;           /* sorted distinct values (one 0 when absent) */
  size_t nx, ny;
  int simulated;             /* some run has a simulated makespan */
  int multi_base;            /* the runs' platforms come from several base rows */
  int has_netbound;          /* some run has a network bound */
};

int acs__study_load(const char *path, struct acs__study *s, struct acs_diag *d);

/* The runs of data in the report's order (above), as indices into
 * data->runs: *order is malloc'd, nruns entries. runs.csv and the study
 * share it. O(R log R). */
int acs__run_order(const struct acs_results_data *data, size_t **order);
void acs__study_free(struct acs__study *s);

/* The value of parameter k (ACS_P_* or a unit class) for run r. */
double acs__param(const struct acs__study *s, const struct acs__srun *r, int k);
/* Column name of parameter k ("cmx_kib", "units.mem"). */
const char *acs__param_name(const struct acs__study *s, int k, char *buf, size_t size);
/* Text of a parameter value for axes and tables ("512 KiB", "2 MiB", "no
 * limit" for a zero barrier count, "as in the workload" for a unit class
 * left alone). */
void acs__param_label(int param, double v, char *buf, size_t size);
/* Axis title of a parameter ("CMX size", "hardware barriers", "mem units"). */
const char *acs__param_title(const struct acs__study *s, int param);
/* The y value whose constraint is loosest (0 = no limit for barriers,
 * otherwise the largest): where the single-panel plots are drawn. */
size_t acs__study_loosest_y(const struct acs__study *s);

/* Whether a is better (worse) than b for "best" ("worst"): a lower (higher)
 * makespan, then the earlier run. Ties go to the run stored first, as
 * `acsim sweep` keeps the schedule of the first run to set a record, so
 * the Gantt charts find theirs. NULL b: a is. */
int acs__better(const struct acs__srun *a, const struct acs__srun *b);
int acs__worse(const struct acs__srun *a, const struct acs__srun *b);

/*
 * Schedulers against the best of each configuration (a platform variant and
 * a workload): per workload (rows 0..nwl-1) and over all of them (row nwl),
 * per scheduler, how many configurations it solved, how many it won (ties
 * count for each winner), the geometric mean and the maximum of its
 * makespan over the configuration's best. Only configurations with a best
 * (an eligible run) and at least two ok runs count. O(R log R).
 */
struct acs__cmpcell {
  size_t n, wins;
  double sumlog, worst;
};
struct acs__cmp {
  size_t rows, cols;         /* nwl + 1, nsched */
  struct acs__cmpcell *cell; /* rows * cols */
  size_t configs;            /* configurations scored */
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

/* ---- the sizing answers (answers.c) ----
 *
 * For one workload and one parameter P (cmx_kib, barriers or pe_count),
 * its eligible runs are grouped into slices that agree on every other
 * parameter (and platform row); in each slice, each value of P has its best
 * run. A slice's answer:
 *  - ACS__Q_CMX: the smallest CMX whose best is within 5% of the slice's
 *    best (the slice fixes the barrier count);
 *  - ACS__Q_BARRIERS: the fewest barriers (> 0) whose best is within 5% of
 *    the best without a barrier limit (barriers = 0) at that CMX size;
 *  - ACS__Q_PES: the best at each PE count, for the speedup from one count
 *    to the next.
 */
enum { ACS__Q_CMX, ACS__Q_BARRIERS, ACS__Q_PES, ACS__Q__N };
#define ACS__WITHIN 1.05

struct acs__point {
  double v;                  /* the value of P */
  const struct acs__srun *best;
};
struct acs__slice {
  const struct acs__srun *key;  /* a run of the slice: its other parameters */
  struct acs__point *pt;     /* by increasing v */
  size_t npt;
  const struct acs__point *answer; /* CMX, BARRIERS: the point answering; NULL: none */
  const struct acs__point *ref;    /* CMX: the slice's best; BARRIERS: barriers = 0 */
};
struct acs__answer {
  int q;                     /* ACS__Q_* */
  int param;                 /* the ACS_P_* asked about */
  struct acs__slice *slice;  /* in the order of their other parameters */
  size_t nslice;
  struct acs__point *pool;   /* storage of every slice's points */
  int why;                   /* ACS__WHY_*: why there is no answer */
};
enum { ACS__WHY_OK, ACS__WHY_FIXED, ACS__WHY_NORUN, ACS__WHY_NOREF };
int acs__answer_make(const struct acs__study *s, int wl, int q, struct acs__answer *a);
void acs__answer_free(struct acs__answer *a);
/* "8 barriers, 4 PEs": the parameters that vary in the study, other than
 * skip (-1: none), of run r's platform ("" when none varies); and of a
 * slice, other than the one asked about. */
void acs__config_label(const struct acs__study *s, const struct acs__srun *r, int skip,
                       char *buf, size_t size);
void acs__slice_label(const struct acs__study *s, const struct acs__answer *a,
                      const struct acs__slice *sl, char *buf, size_t size);

#endif
