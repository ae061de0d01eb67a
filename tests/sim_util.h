/*
 * sim_util.h - helpers shared by the test-simulate-* programs: a graph,
 * its binding and a schedule filled by hand, simulated.
 */
#ifndef ACS_TESTS_SIM_UTIL_H
#define ACS_TESTS_SIM_UTIL_H

#include <stdint.h>

#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "tests/testutil.h"


#define MIB 1048576
#define EPS 1e-6

/* A graph, its binding to a platform and a schedule to fill by hand. */
struct fix {
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
};

int32_t dma_op(struct acs_graph *g, const char *name, int64_t bytes, int src, int dst);

void fix_bind(struct fix *f, const char *const *sets);

void place(struct fix *f, int32_t op, int unit, int64_t start);

void fix_destroy(struct fix *f);

/* Runs the simulation, failing the test with its message on error. */
void sim_ok(struct fix *f, struct acs_sim_result *r);

void assert_near(double got, double want, const char *what);

#endif
