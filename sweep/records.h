/*
 * records.h - the best and worst run of each workload in a sweep, and the
 * schedules that go with them (sweep.c, ACS_SWEEP_KEEP_EXTREMES).
 *
 * The report draws the schedules of each workload's best and worst run
 * (over all its ok runs, and over those of a resident memory model:
 * report/study.h). A run that sets a record usually loses it again later
 * in the sweep, so its schedule is held in memory (the wire blob, as the
 * worker sent it) and written only if it still holds a record when the
 * sweep ends. Writing each record-setter at once wrote and compressed
 * about a quarter of all schedules (234 of the default study's 900 runs,
 * a third of its parent's time and most of a 67 MB file) for 8 Gantt
 * charts. The memory held is capped (RECORDS_HELD_MAX): past it the held
 * schedules are written at once, as before.
 */
#ifndef ACS_SWEEP_RECORDS_H
#define ACS_SWEEP_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "report/results.h"

struct acs__held;              /* a run's row and schedule blob, shared by its records */

enum { ACS__REC_BEST, ACS__REC_WORST, ACS__REC_BEST_RES, ACS__REC_WORST_RES, ACS__REC_N };

struct acs__records {
  struct acs__rec {
    double v[ACS__REC_N];      /* NaN until the first ok run (resident run) */
    struct acs__held *held[ACS__REC_N];
  } *w;                        /* per workload */
  size_t nw;
  size_t bytes;                /* blob bytes held */
};

int acs__records_init(struct acs__records *r, size_t nwls);
void acs__records_free(struct acs__records *r);
/* A run stored before this sweep: updates the records, holds nothing (its
 * schedule is in the file when it was a record then). */
void acs__records_note(struct acs__records *r, size_t wl, const struct acs_run_row *row);
/* A run just stored (row->run_id set) with its schedule blob (len > 0):
 * holds a copy when it sets a record. ACS_OK or ACS_ENOMEM. */
int acs__records_offer(struct acs__records *r, size_t wl, const struct acs_run_row *row,
                       const void *blob, size_t len);
/* Whether the held schedules passed the memory cap (then flush). */
int acs__records_full(const struct acs__records *r);
/* Writes every held schedule not written yet (acs_results_replace_run:
 * the same row, with the schedule); *nstored counts them. */
int acs__records_flush(struct acs__records *r, struct acs_results *res, size_t *nstored);

#endif
