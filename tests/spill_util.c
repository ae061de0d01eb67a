/*
 * spill_util.c - helpers shared by the test-spill-* programs: running
 * `spill`, building ops by hand, finding ops and edges in a schedule.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/sched/ctrledge.h"
#include "core/sched/interval.h"
#include "core/sched/npu/spill.h"
#include "tests/testutil.h"

#include "tests/spill_util.h"

/* ---- helpers ---------------------------------------------------------- */

/* Runs `spill` with "key=value" options (NULL-ended) on pb into out
 * (initialised here); st may be NULL. */
int run_spill(const struct acs_problem *pb, const char *const *sets,
                     struct acs_schedule *out, struct acs_spill_stats *st,
                     struct acs_diag *d)
{
  void *opts = tu_sched_opts("spill", sets, d);
  int err;

  cr_assert_eq(acs_schedule_init_problem(out, pb), ACS_OK);
  acs_diag_init(d);
  err = acs__spill_run(pb, opts, out, st, d);
  free(opts);
  return err;
}

void run_ok(const struct acs_problem *pb, const char *const *sets,
                   struct acs_schedule *out, struct acs_spill_stats *st)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = run_spill(pb, sets, out, st, &d);
  cr_assert_eq(err, ACS_OK, "spill: %s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(out);
}

/* An op with a tensor of out_bytes (a dma loads it from DDR). */
int32_t top(struct acs_graph *g, const char *name, int kind, int64_t cycles,
                   int64_t out_bytes)
{
  int32_t id = tu_op(g, name, kind, cycles);

  g->ops[id].out_bytes = out_bytes;
  if (kind == ACS_OP_DMA)
    g->ops[id].bytes = out_bytes;
  return id;
}

int32_t find_op(const struct acs_schedule *s, const char *name)
{
  for (int32_t i = 0; i < s->nops; i++)
    if (strcmp(s->ops[i].name, name) == 0)
      return i;
  cr_assert_fail("no op '%s' in the schedule", name);
  return -1;
}

int sched_has_edge(const struct acs_schedule *s, int32_t a, int32_t b, int kind)
{
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].src == a && s->edges[e].dst == b && s->edges[e].kind == kind)
      return 1;
  return 0;
}

int64_t count_edges_of_kind(const struct acs_schedule *s, int kind)
{
  int64_t n = 0;

  for (int32_t e = 0; e < s->nedges; e++)
    n += s->edges[e].kind == kind;
  return n;
}

