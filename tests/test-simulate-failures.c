/*
 * test-simulate-failures.c - simulations that fail: deadlocks named,
 * crashes, runaway (CPU time) and blocked (wall clock) children, zygotes
 * shared, replaced and not inherited, interrupts, bad units.
 *
 * Figures used below, for the default platform (700 MHz, dma_gbps 32,
 * ddr_ratio 4, ddr_latency_cycles 100, local_gbps 64):
 *   DDR link   8e9 B/s  = 80/7 B/cycle, so 1 MiB takes 1048576 * 7 / 80 = 91750.4 cycles;
 *   DMA link  32e9 B/s = 320/7 B/cycle: 1 MiB in 1048576 * 7 / 320 = 22937.6 cycles;
 *   PE link   64e9 B/s = 640/7 B/cycle: 1 MiB in 1048576 * 7 / 640 = 11468.8 cycles.
 * The planned duration of a 1 MiB DDR transfer is 100 + ceil(91750.4) = 91851.
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

/* ---- failures ---- */

static int sim_fail(struct fix *f, const struct acs_sim_opts *o, struct acs_sim_result *r,
                    struct acs_diag *d)
{
  acs_schedule_finish(&f->s);
  acs_diag_init(d);
  return acs_sim_run(&f->pb.plat, &f->s, o, r, d);
}

Test(simulate, control_edge_cycle_is_an_error_with_a_message, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int32_t a, b, c;
  int err;

  tu_graph_npu(&f.g, "cycle");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  b = tu_op(&f.g, "b", ACS_OP_DPU, 10);
  c = tu_op(&f.g, "c", ACS_OP_DPU, 10);
  tu_edge(&f.g, a, b);
  fix_bind(&f, NULL);
  cr_assert_eq(acs_schedule_add_edge(&f.s, b, a, ACS_EDGE_CONTROL), ACS_OK);
  place(&f, a, 0, 0);
  place(&f, b, 1, 10);
  place(&f, c, 2, 0);
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_ESIM, "%s", acs_strerror(err));
  cr_assert_not_null(strstr(d.msg, "2 of 3 ops never finished"), "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "'a' waits for 'b' (control edge)"), "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "'b' waits for 'a' (data edge), a cycle of 2 ops"), "%s",
                     d.msg);
  cr_assert_eq(r.ops_completed, 1);
  assert_near(f.s.ops[c].sim_end, 10.0, "c, which could run");
  cr_assert(isnan(f.s.ops[a].sim_start));
  cr_assert(isnan(r.makespan_cycles));
  /* Found as a deadlock when the simulation ran dry, not by the timeout
   * (a wall-clock bound here would fail on a loaded machine). */
  cr_assert_null(strstr(d.msg, "did not finish within"), "%s", d.msg);
  fix_destroy(&f);
}

/* The plan puts x before y on pe0 but y -> x is an edge: x can never start,
 * and neither can w, which needs x. */
Test(simulate, op_that_can_never_start_is_an_error_naming_it, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int32_t x, y, w;
  int err;

  tu_graph_npu(&f.g, "stuck");
  x = tu_op(&f.g, "x", ACS_OP_DPU, 10);
  y = tu_op(&f.g, "y", ACS_OP_DPU, 10);
  w = tu_op(&f.g, "w", ACS_OP_DPU, 10);
  tu_edge(&f.g, y, x);
  tu_edge(&f.g, x, w);
  fix_bind(&f, NULL);
  place(&f, x, 0, 0);
  place(&f, y, 0, 10);
  place(&f, w, 1, 20);
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "3 of 3 ops never finished (3 never started)"), "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "'x' waits for 'y' (data edge)"), "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "'y' waits for 'x' (previous op on pe0)"), "%s", d.msg);
  /* Found as a deadlock when the simulation ran dry, not by the timeout
   * (a wall-clock bound here would fail on a loaded machine). */
  cr_assert_null(strstr(d.msg, "did not finish within"), "%s", d.msg);
  fix_destroy(&f);
}

/* 'end' waits on a chain of 11 ops that ends in the cycle c0 <-> cx: the
 * message shows the first hops and the cycle, not all 13 hops. */
Test(simulate, long_wait_chain_is_elided_in_the_message, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int32_t end, prev = -1, cx, c0 = -1;
  char name[16];
  int err;

  tu_graph_npu(&f.g, "chain");
  end = tu_op(&f.g, "end", ACS_OP_DPU, 1);
  for (int k = 0; k <= 10; k++) {
    int32_t c;
    snprintf(name, sizeof(name), "c%d", k);
    c = tu_op(&f.g, name, ACS_OP_DPU, 1);
    if (prev >= 0)
      tu_edge(&f.g, prev, c);
    else
      c0 = c;
    prev = c;
  }
  cx = tu_op(&f.g, "cx", ACS_OP_DPU, 1);
  tu_edge(&f.g, prev, end);
  tu_edge(&f.g, c0, cx);
  fix_bind(&f, NULL);
  cr_assert_eq(acs_schedule_add_edge(&f.s, cx, c0, ACS_EDGE_CONTROL), ACS_OK);
  for (int32_t i = 0; i < f.s.nops; i++)
    place(&f, i, -1, 0);
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "; 'end' waits for 'c10' (data edge), 'c10' waits for 'c9' "
                                   "(data edge), 'c9' waits for 'c8' (data edge), 'c8' waits for "
                                   "'c7' (data edge), ..., 'c1' waits for 'c0' (data edge), 'c0' "
                                   "waits for 'cx' (control edge), 'cx' waits for 'c0' (data edge), "
                                   "a cycle of 2 ops"), "%s", d.msg);
  fix_destroy(&f);
}

static void one_op(struct fix *f)
{
  int32_t a;

  tu_graph_npu(&f->g, "one");
  a = tu_op(&f->g, "a", ACS_OP_DPU, 10);
  fix_bind(f, NULL);
  place(f, a, 0, 0);
}

/* A simulation costs what its schedule uses: the most PEs a platform may
 * have (2^20), one of them busy, make a platform file of one PE. */
Test(simulate, huge_platform_simulates_only_the_units_it_uses, .timeout = 60)
{
  static const char *const sets[] = {"pe_count=1048576", NULL};
  struct fix f;
  struct acs_sim_result r;
  int32_t a;

  tu_graph_npu(&f.g, "huge");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  fix_bind(&f, sets);
  place(&f, a, 1048575, 0);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 10, "a");
  assert_near(r.pe_utilization, 1.0 / 1048576, "pe utilization");
  fix_destroy(&f);
}

/* Beyond what an int32_t numbers with room to spare, a simulation (and the
 * platform file) refuses before anything is written. Parsing stops such a
 * platform far earlier (pe_count <= 2^20); a library caller can still fill
 * the struct directly, which this guard is for. */
Test(simulate, platform_too_wide_to_number_is_rejected)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  FILE *tmp;

  one_op(&f);
  f.pb.plat.v[ACS_P_PE_COUNT] = 1e12;
  cr_assert_eq(sim_fail(&f, NULL, &r, &d), ACS_EINVAL);
  cr_assert_str_eq(d.msg, "platform 'default' has more PEs and DMA channels than a simulation "
                          "can number (536870911)");
  cr_assert_not_null(tmp = tmpfile());
  cr_assert_eq(acs_sim_xml_write(tmp, &f.pb.plat), ACS_ERANGE);
  fclose(tmp);
  fix_destroy(&f);
}

Test(simulate, crash_in_the_child_is_an_error, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_ABORT;
  err = sim_fail(&f, &o, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "simulation crashed (signal 6"), "%s", d.msg);
  cr_assert(isnan(f.s.ops[0].sim_end));
  fix_destroy(&f);
}

Test(simulate, child_exiting_without_a_result_is_an_error, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_EXIT;
  err = sim_fail(&f, &o, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "exited with status 3"), "%s", d.msg);
  fix_destroy(&f);
}

/* A process that blocks uses no CPU time: the wall-clock backstop ends it. */
Test(simulate, blocked_simulation_is_killed_at_the_wall_clock_backstop, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_HANG;
  o.wall_timeout = 0.5;
  err = sim_fail(&f, &o, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "did not finish within 0.5 s"), "%s", d.msg);
  cr_assert_geq(r.sim_seconds, 0.5);
  fix_destroy(&f);
}

/* A runaway process is ended by its CPU time, however loaded the machine:
 * the limit counts what it consumed, not how long it took. */
Test(simulate, runaway_simulation_is_killed_at_its_cpu_time_limit, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_SPIN;
  o.timeout = 0.3;
  err = sim_fail(&f, &o, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  /* (Under ASan the process may add what it printed.) */
  cr_assert(strncmp(d.msg, "simulation used its CPU-time limit of 0.3 s and was killed", 58) == 0,
            "%s", d.msg);
  fix_destroy(&f);
}

/* A zygote that cannot start reports why, as the run's error. */
Test(simulate, zygote_that_cannot_start_is_an_error_with_its_reason, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;

  one_op(&f);
  cr_assert_eq(setenv("TMPDIR", "/nonexistent-acsim-dir", 1), 0);
  cr_assert_eq(sim_fail(&f, NULL, &r, &d), ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "simulation exited with status 8 without a result; it printed: "
                                   "acsim: cannot create a temporary file in "
                                   "/nonexistent-acsim-dir"), "%s", d.msg);
  cr_assert_eq(acs__sim_zygote_pid(&f.pb.plat, &f.s), 0);
  fix_destroy(&f);
}

/* INFINITY means no limit: a normal run still completes. */
Test(simulate, no_limit_runs_to_completion)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.timeout = INFINITY;
  acs_schedule_finish(&f.s);
  acs_diag_init(&d);
  cr_assert_eq(acs_sim_run(&f.pb.plat, &f.s, &o, &r, &d), ACS_OK, "%s", d.msg);
  assert_near(r.makespan_cycles, 10, "makespan");
  fix_destroy(&f);
}

/* Platform variants SimGrid cannot tell apart share one zygote (here: CMX
 * size and barriers; on platforms of over 256 units, also PEs the
 * schedules do not use); another SimGrid platform (a slower DDR link, more
 * PEs on a small platform) gets its own. */
Test(simulate, variants_of_one_simgrid_platform_share_a_zygote, .timeout = 60)
{
  static const char *const small[] = {"cmx_kib=512", "barriers=4", NULL};
  static const char *const slow[] = {"ddr_ratio=8", NULL};
  static const char *const more[] = {"pe_count=8", NULL};
  static const char *const wide[] = {"pe_count=300", NULL};
  static const char *const wider[] = {"pe_count=400", NULL};
  const char *const *sets[] = {NULL, small, slow, more, wide, wider};
  unsigned long before = acs__sim_zygote_starts();

  for (int k = 0; k < 6; k++) {
    struct fix f;
    struct acs_sim_result r;
    tu_graph_npu(&f.g, "one");
    tu_op(&f.g, "a", ACS_OP_DPU, 10);
    fix_bind(&f, sets[k]);
    place(&f, 0, 0, 0);
    sim_ok(&f, &r);
    assert_near(r.makespan_cycles, 10, "makespan");
    fix_destroy(&f);
  }
  cr_assert_eq(acs__sim_zygote_starts() - before, 4);
}

/* A zygote that died between runs is replaced; one whose simulation
 * crashed goes on serving. */
Test(simulate, runs_survive_a_lost_zygote_and_a_crashed_simulation, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  pid_t z;

  one_op(&f);
  sim_ok(&f, &r);
  cr_assert_gt(z = acs__sim_zygote_pid(&f.pb.plat, &f.s), 0);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_ABORT;
  cr_assert_eq(sim_fail(&f, &o, &r, &d), ACS_ESIM);
  cr_assert_eq(acs__sim_zygote_pid(&f.pb.plat, &f.s), z, "the zygote outlives a crashed run");
  sim_ok(&f, &r);
  assert_near(r.makespan_cycles, 10, "after a crash");
  cr_assert_eq(kill(z, SIGKILL), 0);
  while (waitpid(z, NULL, 0) < 0 && errno == EINTR)
    ;
  /* The dead zygote fails this run or the next; then a new one serves. */
  for (int k = 0; k < 2; k++) {
    acs_diag_init(&d);
    if (acs_sim_run(&f.pb.plat, &f.s, NULL, &r, &d) == ACS_OK)
      break;
    cr_assert_not_null(strstr(d.msg, "zygote"), "%s", d.msg);
  }
  sim_ok(&f, &r);
  cr_assert_neq(acs__sim_zygote_pid(&f.pb.plat, &f.s), z);
  fix_destroy(&f);
}

/* A forked process does not use the zygotes it inherited (they answer its
 * parent): it starts its own, and the parent's keep working. */
Test(simulate, forked_process_starts_its_own_zygote, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  pid_t pid, z;
  int st;

  one_op(&f);
  sim_ok(&f, &r);
  z = acs__sim_zygote_pid(&f.pb.plat, &f.s);
  fflush(NULL);
  if ((pid = fork()) == 0) {
    struct acs_diag d;
    acs_diag_init(&d);
    _exit(acs_sim_run(&f.pb.plat, &f.s, NULL, &r, &d) == ACS_OK && r.makespan_cycles == 10 &&
          acs__sim_zygote_pid(&f.pb.plat, &f.s) != z ? 0 : 1);
  }
  cr_assert_gt(pid, 0);
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the forked process's run failed");
  sim_ok(&f, &r);
  cr_assert_eq(acs__sim_zygote_pid(&f.pb.plat, &f.s), z);
  fix_destroy(&f);
}

Test(simulate, interrupt_request_kills_the_child, .timeout = 30)
{
  static volatile int flag = 1;
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_HANG;
  o.interrupted = &flag;
  err = sim_fail(&f, &o, &r, &d);
  /* Interrupted, not ended by the default timeout: no wall-clock bound. */
  cr_assert_eq(err, ACS_EINTERRUPTED, "%s", d.msg);
  fix_destroy(&f);
}

Test(simulate, unit_outside_the_platform_is_rejected_before_forking)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int err;

  one_op(&f);
  f.s.ops[0].unit = 4; /* the default platform has PEs 0..3 */
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_EINVAL);
  cr_assert_str_eq(d.msg, "op 'a' runs on PE 4 but platform 'default' has 4");
  fix_destroy(&f);
}

Test(simulate, unscheduled_op_is_rejected)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int err;

  one_op(&f);
  f.s.ops[0].start = -1;
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_EINVAL);
  cr_assert_str_eq(d.msg, "op 'a' is not scheduled");
  fix_destroy(&f);
}

