/*
 * optima.h - tables of known optima (or bounds) of benchmark sets, for
 * `acsim validate`: PSPLIB result tables (j30opt.sm, j60lb.sm, j60hrs.sm)
 * and the STG optimal-length CSVs (Case50_4_OPT.csv, ...).
 *
 * Every entry has a lower and an upper value: equal when the optimum is
 * proven, lower < upper when only bounds are known, lower = -1 when only a
 * best known (heuristic) upper value is. Errors are located
 * (file:line:column) like every reader's.
 */
#ifndef ACS_LOAD_OPTIMA_H
#define ACS_LOAD_OPTIMA_H

#include "core/acs.h"

struct acs_optimum {
  int32_t group, inst;   /* PSPLIB parameter group and instance; -1 for STG */
  const char *key;       /* STG: the instance as written, "50/rand0000.stg"; NULL for PSPLIB */
  int32_t procs;         /* STG: processors; -1 for PSPLIB */
  int64_t lower, upper;  /* lower = upper: proven optimum; lower = -1: unknown */
  int32_t line;          /* where the row is */
};

struct acs_optima {
  struct acs_arena arena;
  size_t n, cap;
  struct acs_optimum *v;
};

void acs_optima_init(struct acs_optima *o);
void acs_optima_free(struct acs_optima *o);

/*
 * A PSPLIB result table, appended to o. The header row (its first word
 * starts with "Par": "Paramter Instance Makespan CPU-Time[sec.]",
 * "Par Inst UB LB ...", "Par Inst Makespan Date Author") tells the columns:
 * UB and LB give bounds; Makespan with a CPU-Time column is a proven optimum
 * (j30opt.sm); Makespan otherwise a best known upper value (j60hrs.sm).
 * Rows are the lines after it whose first word is a number; other lines
 * (rules, notes, blank) are skipped. A bad number, a short row, a repeated
 * instance, LB > UB and a missing header are errors.
 */
int acs_optima_load_psplib(const char *path, struct acs_optima *o, struct acs_diag *d);

/*
 * An STG optimal-length CSV, appended to o: rows "50/rand0000.stg,<p>,<opt>"
 * or "...,<p>,<lower>,<upper>". Errors: a field count other than 3 or 4, a
 * bad number, lower > upper, a repeated (instance, p).
 */
int acs_optima_load_stg(const char *path, struct acs_optima *o, struct acs_diag *d);

/* Lookups; NULL when absent. O(n). */
const struct acs_optimum *acs_optima_find_psplib(const struct acs_optima *o, int32_t group,
                                                 int32_t inst);
/* key: the last two components of the instance path ("50/rand0000.stg"). */
const struct acs_optimum *acs_optima_find_stg(const struct acs_optima *o, const char *key,
                                              int32_t procs);

/* Parses a PSPLIB instance file name "<set><group>_<inst>.sm" in any
 * directory, where set is the set's name ("j30" for j301_1.sm, j3010_2.sm).
 * Returns 0, or -1 when the name does not have that form. */
int acs_optima_psplib_name(const char *path, const char *set, int32_t *group, int32_t *inst);

#endif
