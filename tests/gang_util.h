/*
 * gang_util.h - helpers shared by the test-gang-* programs: the isp4
 * platform, running the SDF variants, SDF3 graphs written on the fly,
 * result tables and the gang context of a graph.
 */
#ifndef ACS_TESTS_GANG_UTIL_H
#define ACS_TESTS_GANG_UTIL_H

#include <stdint.h>

#include "core/load/load.h"
#include "core/sched/gang/gang.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

/* ---- helpers ---- */

struct run {
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
};

void platform_isp4(struct acs_platform *p, const char *const *sets);

void open_run(struct run *r, const char *where, const char *const *sets);

void close_run(struct run *r);

int sched(const char *name, struct run *r, const char *const *opts,
                 const volatile sig_atomic_t *intr, struct acs_schedule *s, struct acs_diag *d);

/* Runs and requires success and a verified schedule; returns the makespan. */
int64_t sched_ok(const char *name, struct run *r, const char *const *opts,
                        struct acs_schedule *s);

/*
 * A chain of k line kernels k0 -> k1 -> ... over `lines` lines of `bytes`
 * each: input from DDR into k0, output of the last to DDR. Kernel i takes
 * exec[i] cycles and ksize bytes of program memory; pipe[i] (or NULL) its
 * pipeline class.
 */
const char *chain_xml(int k, int lines, int bytes, const int *exec, int ksize,
                             const char *const *pipe);

const struct acs_rtab *table(const struct acs_schedule *s, const char *name);

int64_t attr_i64(const struct acs_rtab *t, const char *name);

/* An SDF3 file read and the family's context on platform p. */
void open_ctx(struct acs_gang_ctx *c, struct acs_sdf_graph *g, const char *path,
                     struct acs_platform *p);


/* The heuristic's partition of an SDF3 file on isp4 (gang's realizations). */
void partition_of(const char *path, struct acs_platform *p, struct acs_sdf_graph *g,
                         struct acs_gang_ctx *c, struct acs_gang_part *pt);

/* The gang of actor `name` in a partition. */
int32_t gang_in(const struct acs_gang_part *pt, const struct acs_sdf_graph *g, const char *name);

#endif
