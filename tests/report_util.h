/*
 * report_util.h - helpers shared by the test-report-* programs: a scratch results file per
 * test, hand-made rows and schedules, their comparisons.
 */
#ifndef ACS_TESTS_REPORT_UTIL_H
#define ACS_TESTS_REPORT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "report/results.h"
#include "report/validation.h"
#include "report/study_int.h"
#include "tests/testutil.h"

/* ---- helpers ---- */

extern char dir[256];
extern char file[512];

void setup(void);

/* Removes the test's directory (files written there are all flat). */
void teardown(void);


int same_double(double a, double b);

char *slurp(const char *path, size_t *n);

void spit(const char *path, const char *buf, size_t n);

/* Number of entries in dir besides "." and ".."; the only one must be
 * `only` when given. */
int dir_entries(const char *only);

struct acs_results *open_ok(const char *cmd);

void commit_ok(struct acs_results *r);

void results_read_ok(struct acs_results_data *data);

void report_platform(struct acs_platform *p, const char *name, double pe_count);

void workload(struct acs_workload_row *w, const char *name, int64_t ops);

/* A run with a distinct value in every field; NaNs where `nan` says. */
void run_row(struct acs_run_row *row, int32_t pid, int32_t wid, int variant);

void assert_run_eq(const struct acs_run_row *a, const struct acs_run_row *b);

/*
 * A hand-built schedule over two resources, "pe" (2 PEs) and "dma" (1
 * channel), that verifies:
 *   0 load  dma ddr->cmx [0,5)   ch0, CMX [0,4096) held [0,25), updates b0
 *   1 conv  dpu          [5,15)  PE0, CMX [4096,5120) held [5,25), updates b1,
 *                                waits b0, simulated [5.5,15.5)
 *   2 pool  shave        [15,25) PE1, updates b2, waits b1
 *   3 store dma cmx->ddr [25,28) ch0, added by the scheduler (norig = 3),
 *                                waits b1 and b2
 * Edges: 0->1, 1->2, 2->3 data; 1->3 control (added). The barrier program
 * is complete (every edge's source updates a barrier its destination waits
 * on), as the verifier requires of a schedule that has one.
 */
void hand_schedule(struct acs_schedule *s);

void assert_schedule_eq(const struct acs_schedule *a, const struct acs_schedule *b);

/* Writes one run with the hand-built schedule into a new file; returns its id. */
int64_t write_hand_file(void);

void expect_format_error(const char *path, const char *want);

#endif
