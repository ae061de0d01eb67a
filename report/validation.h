/*
 * validation.h - the /validation table of a results file: one row per
 * (benchmark set, scheduler, options) of an `acsim validate` run, with the
 * deviation from the set's known optima (README "acsim validate").
 *
 * Rows are written through an open results writer (acs_results_open), so
 * they land atomically with the runs of the same command.
 */
#ifndef ACS_REPORT_VALIDATION_H
#define ACS_REPORT_VALIDATION_H

#include "report/results.h"

struct acs_validation_row {
  int64_t validation_id;          /* assigned by acs_validation_add */
  char set[ACS_STR_NAME];         /* "psplib/j30", "stg/50 p=4" */
  char path[ACS_STR_PATH];        /* the set's directory as given */
  char scheduler[ACS_STR_NAME];
  char options[ACS_STR_MSG];      /* -O settings that differ from the defaults */
  int64_t instances;              /* runs compared with a reference value */
  int64_t bounds_only;            /* of them, references that are bounds, not optima */
  double avg_dev_pct, max_dev_pct;/* (makespan - reference) / reference, % */
  int64_t at_reference;           /* makespan equal to the reference */
  int64_t proven;                 /* optimality proven by the run itself */
  int64_t below;                  /* below a proven optimum or lower bound: a bug */
  int64_t timeouts, errors;       /* runs with those statuses (errors have no makespan) */
  double time_limit;              /* seconds per run, NaN when none */
  double seconds;                 /* scheduler time over all runs */
  char created_utc[32];
};

/* Appends rows (their ids are set, continuing the stored ones) to the
 * writer's /validation table, creating it when missing. */
int acs_validation_add(struct acs_results *r, struct acs_validation_row *rows, size_t n,
                       struct acs_diag *d);
/* Reads every row; *rows is malloc'd (NULL and 0 when the file has none). */
int acs_validation_read(const char *path, struct acs_validation_row **rows, size_t *n,
                        struct acs_diag *d);

#endif
