/*
 * sweep_util.h - helpers shared by the test-sweep-* programs: results files
 * of hand-built runs, read back.
 */
#ifndef ACS_TESTS_SWEEP_UTIL_H
#define ACS_TESTS_SWEEP_UTIL_H

#include <stddef.h>

#include "core/sched/sched.h"
#include "report/report.h"
#include "tests/testutil.h"

void schedule_of(struct acs_graph *g, struct acs_problem *pb, struct acs_schedule *s);

/* A file of runs of workload "net" (with content digest `digest`, NULL for
 * none, as acsim wrote before the column) on platform variants named after
 * cmx sizes, one run per (cmx, scheduler) given. */
void write_study_of(const char *path, const int *cmx, size_t n, const char *sched,
                           double makespan, const char *digest);

void write_study(const char *path, const int *cmx, size_t n, const char *sched,
                        double makespan);

void results_file_read_ok(const char *path, struct acs_results_data *data);

long file_size(const char *path);

#endif
