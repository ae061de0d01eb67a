/*
 * test-gang-checker.c - the independent checker of gang plans against plans
 * broken on purpose, and lowered schedules.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/sched/gang/gang.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

#include "tests/gang_util.h"

/* ---- the checker catches broken plans ---- */

struct fixture {
  struct acs_platform plat;   /* the context points at it */
  struct acs_sdf_graph g;
  struct acs_gang_ctx c;
  struct acs_gang_part pt;
  struct acs_gang_plan pl;
};

/* The heuristic's plan of the verification graph, checked. */
static void fixture_open(struct fixture *f, const char *const *sets)
{
  struct acs_gang_opts o;
  struct acs_diag d;

  platform_isp4(&f->plat, sets);
  open_ctx(&f->c, &f->g, tu_path("workloads/sdf/verification.xml"), &f->plat);
  memset(&o, 0, sizeof(o));
  o.map_budget = 20000;
  o.max_iter = 32;
  acs_diag_init(&d);
  cr_assert_eq(acs_gang_partition(&f->c, &o, 0, &f->pt, &d), ACS_OK, "%s", d.msg);
  acs_gang_plan_init(&f->pl);
  cr_assert_eq(acs_gang_part_emit(&f->c, &f->pt, &f->pl), ACS_OK);
  cr_assert_eq(acs_gang_check_plan(&f->g, &f->c.xp, &f->pl, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_gang_program_verify(&f->c, &f->pt, &f->pl, &d), ACS_OK, "%s", d.msg);
}

static void fixture_close(struct fixture *f)
{
  acs_gang_plan_free(&f->pl);
  acs_gang_part_free(&f->pt);
  acs_gang_ctx_free(&f->c);
  acs_sdf_destroy(&f->g);
}

static void expect_violation(struct fixture *f, const char *what)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = acs_gang_check_plan(&f->g, &f->c.xp, &f->pl, &d);
  cr_assert_eq(err, ACS_EVERIFY, "not caught: %s", what);
  cr_assert(d.msg[0], "%s: no message", what);
}

static int32_t find_act(const struct acs_gang_plan *pl, int kind, int32_t nth)
{
  for (int32_t i = 0; i < pl->nacts; i++)
    if (pl->acts[i].kind == kind && nth-- == 0)
      return i;
  cr_assert_fail("no act of kind %d", kind);
  return -1;
}

/* Each mutation on a fresh plan; f is heap-allocated (it is large). */
#define MUTATION(name, sets, ...)                       \
  Test(checker, name)                                   \
  {                                                     \
    struct fixture *fp = calloc(1, sizeof(*fp));        \
    cr_assert_not_null(fp);                             \
    fixture_open(fp, sets);                             \
    struct fixture *const fx = fp;                      \
    __VA_ARGS__                                         \
    fixture_close(fx);                                  \
    free(fp);                                           \
  }

MUTATION(firing_before_its_input, NULL, {
  /* A firing of K1 (two inputs from transfers) moved to the start. */
  for (int32_t i = 0; i < fx->pl.nacts; i++)
    if (fx->pl.acts[i].kind == ACS_GANG_FIRE && strcmp(fx->g.actors[fx->pl.acts[i].actor].name, "K1") == 0) {
      int64_t d = fx->pl.acts[i].end - fx->pl.acts[i].start;
      fx->pl.acts[i].start = 0;
      fx->pl.acts[i].end = d;
      break;
    }
  expect_violation(fx, "a firing before its tokens");
})

MUTATION(overlap_on_a_pe, NULL, {
  int32_t a = find_act(&fx->pl, ACS_GANG_FIRE, 0), b = find_act(&fx->pl, ACS_GANG_FIRE, 1);
  int64_t d = fx->pl.acts[b].end - fx->pl.acts[b].start;
  fx->pl.acts[b].unit = fx->pl.acts[a].unit;
  fx->pl.acts[b].start = fx->pl.acts[a].start;
  fx->pl.acts[b].end = fx->pl.acts[a].start + d;
  expect_violation(fx, "two firings at once on one PE");
})

MUTATION(overlap_on_the_dma, NULL, {
  int32_t a = find_act(&fx->pl, ACS_GANG_XFER, 0), b = find_act(&fx->pl, ACS_GANG_XFER, 1);
  int64_t d = fx->pl.acts[b].end - fx->pl.acts[b].start;
  fx->pl.acts[b].start = fx->pl.acts[a].start;
  fx->pl.acts[b].end = fx->pl.acts[a].start + d;
  expect_violation(fx, "two transfers at once on the DMA");
})

MUTATION(duration_shortened, NULL, {
  fx->pl.acts[find_act(&fx->pl, ACS_GANG_XFER, 3)].end -= 1;
  expect_violation(fx, "a transfer faster than the DDR allows");
})

MUTATION(firing_twice, NULL, {
  struct acs_gang_act a = fx->pl.acts[find_act(&fx->pl, ACS_GANG_FIRE, 5)];
  acs_gang_plan_add_act(&fx->pl, &a);
  expect_violation(fx, "a firing scheduled twice");
})

MUTATION(firing_missing, NULL, {
  int32_t i = find_act(&fx->pl, ACS_GANG_FIRE, 7);
  fx->pl.acts[i].kind = ACS_GANG_LOAD;
  fx->pl.acts[i].pe = fx->pl.acts[i].unit;
  expect_violation(fx, "a firing never scheduled");
})

MUTATION(buffer_dropped, NULL, {
  fx->pl.bufs[fx->pl.nbufs / 2] = fx->pl.bufs[fx->pl.nbufs - 1];
  fx->pl.nbufs--;
  expect_violation(fx, "a token nowhere");
})

MUTATION(buffer_outside_vmem, NULL, {
  fx->pl.bufs[3].offset = fx->c.xp.vmem - fx->pl.bufs[3].bytes / 2;
  expect_violation(fx, "a buffer past the end of the VMEM");
})

MUTATION(vmem_overfull, NULL, {
  /* Every buffer of PE 0 four times as large: more than the VMEM at once. */
  for (int32_t i = 0; i < fx->pl.nbufs; i++)
    if (fx->pl.bufs[i].pe == 0) {
      fx->pl.bufs[i].bytes *= 40;
      fx->pl.bufs[i].offset = 0;
    }
  expect_violation(fx, "more buffers than VMEM");
})

MUTATION(kernel_not_loaded, NULL, {
  int32_t l = find_act(&fx->pl, ACS_GANG_LOAD, 0);
  fx->pl.acts[l].pe = (fx->pl.acts[l].pe + 1) % fx->c.xp.npe;
  expect_violation(fx, "a firing without its kernel");
})

MUTATION(pmem_overfull, NULL, {
  /* A second 32 KiB kernel kept on a PE that already has one. */
  int32_t l0 = find_act(&fx->pl, ACS_GANG_LOAD, 0), l1 = find_act(&fx->pl, ACS_GANG_LOAD, 1);
  fx->pl.acts[l1].pe = fx->pl.acts[l0].pe;
  fx->pl.acts[l1].evict = fx->pl.acts[l0].evict;
  expect_violation(fx, "two kernels beyond the program memory");
})

static const char *const two_dma[] = { "dma_channels=2", NULL };
MUTATION(ddr_link_shared, two_dma, {
  /* Two DDR transfers at once on two channels share one DDR link. */
  int32_t a = -1, b = -1;
  for (int32_t i = 0; i < fx->pl.nacts && b < 0; i++)
    if (fx->pl.acts[i].kind == ACS_GANG_XFER && fx->pl.acts[i].xk != ACS_GANG_X_LOCAL) {
      if (a < 0)
        a = i;
      else
        b = i;
    }
  int64_t d = fx->pl.acts[b].end - fx->pl.acts[b].start;
  fx->pl.acts[b].unit = 1 - fx->pl.acts[a].unit;
  fx->pl.acts[b].start = fx->pl.acts[a].start;
  fx->pl.acts[b].end = fx->pl.acts[a].start + d;
  expect_violation(fx, "two DDR transfers at once");
})

Test(checker, pipelining_through_an_input_class_kernel)
{
  /* A plan that pipelines k1 -> k2 in one gang is valid while k1 is a
   * line kernel, and caught once k1 is pipelineable on its input only
   * (its output is complete only after its last line). */
  int exec[3] = { 100, 100, 100 };
  static const char *const pipe[3] = { NULL, "input", NULL };
  char full[512];
  struct acs_platform p;
  struct acs_sdf_graph g, gi;
  struct acs_gang_ctx c;
  struct acs_gang_part pt;
  struct acs_gang_plan pl;
  struct acs_diag d;

  snprintf(full, sizeof(full), "%s", tu_write_tmp("f3.xml", chain_xml(3, 16, 1920, exec, 2048, NULL)));
  partition_of(full, &p, &g, &c, &pt);
  cr_assert_eq(gang_in(&pt, &g, "k1"), gang_in(&pt, &g, "k2"));
  acs_gang_plan_init(&pl);
  cr_assert_eq(acs_gang_part_emit(&c, &pt, &pl), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(acs_gang_check_plan(&g, &c.xp, &pl, &d), ACS_OK, "%s", d.msg);
  acs_diag_init(&d);
  cr_assert_eq(acs_sdf3_read(tu_write_tmp("i3.xml", chain_xml(3, 16, 1920, exec, 2048, pipe)), &gi, &d),
               ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_gang_check_plan(&gi, &c.xp, &pl, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "pipeline=input") != NULL, "%s", d.msg);
  acs_gang_plan_free(&pl);
  acs_gang_part_free(&pt);
  acs_gang_ctx_free(&c);
  acs_sdf_destroy(&gi);
  acs_sdf_destroy(&g);
}

Test(checker, lowered_schedule_keeps_buffers_apart)
{
  /* The common verifier sees VMEM as CMX ranges: two buffers moved onto one
   * address while both are held are caught there too. */
  struct run r;
  struct acs_schedule s;
  struct acs_diag d;
  int32_t a = -1, b = -1;

  open_run(&r, tu_path("workloads/sdf/verification.xml"), NULL);
  sched_ok("gang", &r, NULL, &s);
  for (int32_t i = s.norig; i < s.nops && b < 0; i++)
    if (s.ops[i].cmx_offset >= 0) {
      if (a < 0)
        a = i;
      else if (s.ops[i].cmx_alloc < s.ops[a].cmx_free && s.ops[a].cmx_alloc < s.ops[i].cmx_free &&
               s.ops[i].cmx_offset != s.ops[a].cmx_offset)
        b = i;
    }
  cr_assert_geq(b, 0);
  s.ops[b].cmx_offset = s.ops[a].cmx_offset;
  acs_diag_init(&d);
  cr_assert_eq(acs_schedule_verify(&s, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "overlap") != NULL, "%s", d.msg);
  acs_schedule_destroy(&s);
  close_run(&r);
}

