/*
 * sim_util.c - helpers shared by the test-simulate-* programs: a graph,
 * its binding and a schedule filled by hand, simulated.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <xbt/log.h>

#include "core/load/load.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "simulate/sim_int.h"
#include "tests/testutil.h"
#include "tests/sim_util.h"

int32_t dma_op(struct acs_graph *g, const char *name, int64_t bytes, int src, int dst)
{
  struct acs_op op;
  int32_t id;

  memset(&op, 0, sizeof(op));
  op.name = name;
  op.kind = ACS_OP_DMA;
  op.cycles = -1; /* derived from the bytes by the platform */
  op.bytes = bytes;
  op.src = (uint8_t)src;
  op.dst = (uint8_t)dst;
  op.slots = 1;
  id = acs_graph_add_op(g, &op);
  cr_assert_geq(id, 0);
  acs_graph_set_demand(g, id, TU_DMA, 1);
  return id;
}

void fix_bind(struct fix *f, const char *const *sets)
{
  tu_finalize(&f->g);
  tu_problem(&f->pb, &f->g, sets);
  cr_assert_eq(acs_schedule_init_problem(&f->s, &f->pb), ACS_OK);
}

void place(struct fix *f, int32_t op, int unit, int64_t start)
{
  struct acs_sop *o = &f->s.ops[op];

  o->unit = unit;
  o->start = start;
  o->end = start + o->dur;
}

void fix_destroy(struct fix *f)
{
  acs_schedule_destroy(&f->s);
  acs_problem_destroy(&f->pb);
  acs_graph_destroy(&f->g);
}

/* Runs the simulation, failing the test with its message on error. */
void sim_ok(struct fix *f, struct acs_sim_result *r)
{
  struct acs_diag d;
  int err;

  acs_schedule_finish(&f->s);
  acs_diag_init(&d);
  err = acs_sim_run(&f->pb.plat, &f->s, NULL, r, &d);
  cr_assert_eq(err, ACS_OK, "acs_sim_run: %s: %s", acs_strerror(err), d.msg);
}

void assert_near(double got, double want, const char *what)
{
  double diff = fabs(got - want);

  cr_assert_lt(diff, EPS, "%s: got %.9f, want %.9f", what, got, want);
}

