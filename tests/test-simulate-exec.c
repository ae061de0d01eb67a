/*
 * test-simulate-exec.c - self-timed execution: planned times replayed
 * exactly, the contention slip derived by hand, release times; traces.
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

/* ---- execution ---- */

/* a(10) -> b(20), a -> c(30), b -> d(5), c -> d on two PEs: planned
 * a [0,10) pe0, b [10,30) pe0, c [10,40) pe1, d [40,45) pe0. */
Test(simulate, compute_only_schedule_simulates_to_its_planned_times)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b, c, d;

  tu_graph_npu(&f.g, "diamond");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  b = tu_op(&f.g, "b", ACS_OP_DPU, 20);
  c = tu_op(&f.g, "c", ACS_OP_SHAVE, 30);
  d = tu_op(&f.g, "d", ACS_OP_DPU, 5);
  tu_edge(&f.g, a, b);
  tu_edge(&f.g, a, c);
  tu_edge(&f.g, b, d);
  tu_edge(&f.g, c, d);
  fix_bind(&f, NULL);
  place(&f, a, 0, 0);
  place(&f, b, 0, 10);
  place(&f, c, 1, 10);
  place(&f, d, 0, 40);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  for (int32_t i = 0; i < f.s.nops; i++) {
    assert_near(f.s.ops[i].sim_start, (double)f.s.ops[i].start, f.s.ops[i].name);
    assert_near(f.s.ops[i].sim_end, (double)f.s.ops[i].end, f.s.ops[i].name);
  }
  assert_near(r.makespan_cycles, 45.0, "makespan");
  assert_near(r.slowdown, 1.0, "slowdown");
  /* 65 busy cycles on 4 PEs over 45 cycles. */
  assert_near(r.pe_utilization, 65.0 / (4 * 45.0), "pe utilization");
  assert_near(r.dma_utilization, 0.0, "dma utilization");
  fix_destroy(&f);
}

/*
 * A greedy list schedule (topological order, earliest free unit) of a
 * random DAG, for the replay tests: valid by construction.
 */
static void greedy(struct acs_schedule *s, const struct acs_graph *g, int npe, int ndma)
{
  int64_t fin[64] = {0};
  int64_t *ready = calloc((size_t)s->nops, sizeof(*ready));

  cr_assert_not_null(ready);
  for (int32_t k = 0; k < g->nops; k++) {
    int32_t v = g->topo[k];
    struct acs_sop *o = &s->ops[v];
    int dma = o->kind == ACS_OP_DMA, lo = dma ? npe : 0, hi = dma ? npe + ndma : npe, best = lo;
    for (int u = lo; u < hi; u++)
      if (fin[u] < fin[best])
        best = u;
    o->start = ready[v] > fin[best] ? ready[v] : fin[best];
    o->end = o->start + o->dur;
    o->unit = best - lo;
    fin[best] = o->end;
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      if (ready[g->succ[e]] < o->end)
        ready[g->succ[e]] = o->end;
  }
  free(ready);
  acs_schedule_finish(s);
}

/* The last PE and channel of a wide platform are reached (only busy units
 * get an actor; every host is in the platform). */
Test(simulate, wide_platform_runs_ops_on_its_last_pe_and_channel, .timeout = 120)
{
  static const char *const sets[] = {"pe_count=4096", "dma_channels=256", NULL};
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b;

  tu_graph_npu(&f.g, "wide");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  b = dma_op(&f.g, "load", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  tu_edge(&f.g, a, b);
  fix_bind(&f, sets);
  place(&f, a, 4095, 0);
  place(&f, b, 255, 10);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 10, "a");
  assert_near(f.s.ops[b].sim_end, 10 + 100 + 91750.4, "load");
  fix_destroy(&f);
}

Test(simulate, random_compute_schedule_replays_exactly, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;

  tu_random_dag(&f.g, 7, 2000, 64);
  tu_problem(&f.pb, &f.g, NULL);
  cr_assert_eq(acs_schedule_init_problem(&f.s, &f.pb), ACS_OK);
  greedy(&f.s, &f.g, 4, 2);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  /* Fixed-duration transfers move no bytes, so nothing is contended. */
  for (int32_t i = 0; i < f.s.nops; i++) {
    assert_near(f.s.ops[i].sim_start, (double)f.s.ops[i].start, f.s.ops[i].name);
    assert_near(f.s.ops[i].sim_end, (double)f.s.ops[i].end, f.s.ops[i].name);
  }
  assert_near(r.makespan_cycles, (double)f.s.makespan, "makespan");
  fix_destroy(&f);
}

/*
 * Two 1 MiB DDR loads planned as if alone: a at 0 on dma0, b at 45000 on
 * dma1 (each planned 91851 cycles), then c (1000 cycles, pe0) after both,
 * planned at 136851. Derivation at 80/7 B/cycle on the DDR link:
 *  - a: latency until 100, then alone until b's latency ends at 45100,
 *    having sent 45000 * 80/7 = 514285.714 B; 534290.286 B are left;
 *  - from 45100 a and b share, 40/7 B/cycle each: a finishes after
 *    534290.286 * 7/40 = 93500.8 cycles, at 138600.8 (planned 91851);
 *  - b has then sent 534290.286 B too; the other 514285.714 B at the full
 *    80/7 take 45000 cycles: b ends at 183600.8 (planned 136851);
 *  - c runs [183600.8, 184600.8): 46749.8 cycles later than planned.
 */
Test(simulate, overlapping_ddr_transfers_slow_the_plan_by_the_derived_amount)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b, c;

  tu_graph_npu(&f.g, "overlap");
  a = dma_op(&f.g, "a", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  b = dma_op(&f.g, "b", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  c = tu_op(&f.g, "c", ACS_OP_DPU, 1000);
  tu_edge(&f.g, a, c);
  tu_edge(&f.g, b, c);
  fix_bind(&f, NULL);
  place(&f, a, 0, 0);
  place(&f, b, 1, 45000);
  place(&f, c, 0, 136851);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 138600.8, "a end");
  assert_near(f.s.ops[b].sim_start, 45000.0, "b start");
  assert_near(f.s.ops[b].sim_end, 183600.8, "b end");
  assert_near(f.s.ops[c].sim_start, 183600.8, "c start");
  assert_near(r.makespan_cycles, 184600.8, "makespan");
  assert_near(r.makespan_cycles - (double)f.s.makespan, 46749.8, "slip");
  fix_destroy(&f);
}

/* A contended run still respects every edge, every unit's order and every
 * release time. */
Test(simulate, contended_replay_respects_edges_units_and_release_times, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_rng rng;

  tu_random_dag(&f.g, 11, 1500, 64);
  /* Give the transfers bytes (up to 256 KiB) so they contend. */
  acs_rng_seed(&rng, 3);
  for (int32_t i = 0; i < f.g.nops; i++)
    if (f.g.ops[i].kind == ACS_OP_DMA) {
      f.g.ops[i].cycles = -1;
      f.g.ops[i].bytes = 1 + (int64_t)acs_rng_below(&rng, 256 * 1024);
    }
  tu_problem(&f.pb, &f.g, NULL);
  cr_assert_eq(acs_schedule_init_problem(&f.s, &f.pb), ACS_OK);
  greedy(&f.s, &f.g, 4, 2);
  sim_ok(&f, &r);
  for (int32_t e = 0; e < f.s.nedges; e++) {
    const struct acs_sop *x = &f.s.ops[f.s.edges[e].src], *y = &f.s.ops[f.s.edges[e].dst];
    cr_assert_geq(y->sim_start, x->sim_end, "edge %s -> %s", x->name, y->name);
  }
  for (int32_t i = 0; i < f.s.nops; i++) {
    const struct acs_sop *o = &f.s.ops[i];
    cr_assert_geq(o->sim_start, (double)o->start, "%s starts before its release", o->name);
    cr_assert_geq(o->sim_end - o->sim_start, o->kind == ACS_OP_DMA ? 0.0 : (double)o->dur - EPS);
    for (int32_t j = 0; j < f.s.nops; j++) {
      const struct acs_sop *q = &f.s.ops[j];
      if (j == i || q->unit != o->unit || (q->kind == ACS_OP_DMA) != (o->kind == ACS_OP_DMA))
        continue;
      if (q->start > o->start || (q->start == o->start && j > i))
        cr_assert_geq(q->sim_start, o->sim_end, "%s and %s overlap on a unit", o->name, q->name);
    }
  }
  cr_assert_geq(r.makespan_cycles, (double)f.s.makespan - EPS);
  cr_assert_gt(r.ddr_bytes, 0);
  cr_assert(r.dma_utilization > 0 && r.dma_utilization <= 1, "%g", r.dma_utilization);
  cr_assert(r.pe_utilization > 0 && r.pe_utilization <= 1, "%g", r.pe_utilization);
  fix_destroy(&f);
}

/* Ops without work complete inline; 100,000 of them send 1.6 MB of times
 * back, more than a pipe holds, so the parent must read while the child
 * writes. */
Test(simulate, large_results_come_back_through_the_pipe, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  char name[32];
  int32_t n = 100000;

  tu_graph_npu(&f.g, "many");
  for (int32_t i = 0; i < n; i++) {
    snprintf(name, sizeof(name), "s%d", i);
    tu_op(&f.g, name, ACS_OP_SYNC, 0);
  }
  fix_bind(&f, NULL);
  for (int32_t i = 0; i < n; i++)
    place(&f, i, -1, i % 7);
  sim_ok(&f, &r);
  cr_assert_eq(r.ops_completed, n);
  for (int32_t i = 0; i < n; i++)
    assert_near(f.s.ops[i].sim_end, (double)(i % 7), "sync op");
  fix_destroy(&f);
}

Test(simulate, ops_without_a_unit_wait_their_duration)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b;

  tu_graph_npu(&f.g, "jobs");
  a = tu_op(&f.g, "job1", ACS_OP_SHAVE, 7);
  b = tu_op(&f.g, "job2", ACS_OP_SHAVE, 9);
  tu_edge(&f.g, a, b);
  fix_bind(&f, NULL);
  place(&f, a, -1, 3);
  place(&f, b, -1, 10);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_start, 3.0, "job1 start");
  assert_near(f.s.ops[b].sim_end, 19.0, "job2 end");
  fix_destroy(&f);
}

/* z (no work) sits on pe0 at 10, the start of b, and must precede b (edge
 * z -> b) although its id is larger: ordering a unit's ops by (start, id)
 * alone would put b first and deadlock this valid plan. */
Test(simulate, zero_duration_op_at_another_ops_start_does_not_deadlock, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b, z;

  tu_graph_npu(&f.g, "marker");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  b = tu_op(&f.g, "b", ACS_OP_DPU, 5);
  z = tu_op(&f.g, "z", ACS_OP_DPU, 0);
  tu_edge(&f.g, a, z);
  tu_edge(&f.g, z, b);
  fix_bind(&f, NULL);
  place(&f, a, 0, 0);
  place(&f, b, 0, 10);
  place(&f, z, 0, 10);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  assert_near(f.s.ops[z].sim_end, 10.0, "z");
  assert_near(f.s.ops[b].sim_end, 15.0, "b");
  fix_destroy(&f);
}

/* At 1e12 cycles (1429 s) a double's resolution is 1.6e-4 cycle, far
 * coarser than the 1e-9-cycle timing precision: the engine must still
 * advance (no endless zero-length steps) and land on the expected times
 * within that resolution. */
Test(simulate, late_release_times_keep_their_precision, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b, c;
  int64_t t0 = 1000000000000;

  tu_graph_npu(&f.g, "late");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 1);
  b = dma_op(&f.g, "b", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  c = tu_op(&f.g, "c", ACS_OP_DPU, 3);
  tu_edge(&f.g, a, b);
  tu_edge(&f.g, b, c);
  fix_bind(&f, NULL);
  place(&f, a, 0, t0);
  place(&f, b, 0, t0 + 1);
  place(&f, c, 1, t0 + 1 + 91851);
  sim_ok(&f, &r);
  cr_assert_lt(fabs(f.s.ops[a].sim_start - (double)t0), 1e-3, "%.6f", f.s.ops[a].sim_start);
  cr_assert_lt(fabs(f.s.ops[b].sim_end - ((double)t0 + 1 + 91850.4)), 1e-3, "%.6f",
               f.s.ops[b].sim_end);
  cr_assert_lt(fabs(f.s.ops[c].sim_end - ((double)t0 + 1 + 91851 + 3)), 1e-3, "%.6f",
               f.s.ops[c].sim_end);
  fix_destroy(&f);
}

/* ---- traces ---- */

/* The check is Python's own JSON parser, plus the structure we promise. */
static const char *const checker =
    "import json, sys\n"
    "t = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "ev = t['traceEvents']\n"
    "x = [e for e in ev if e['ph'] == 'X']\n"
    "for pid in (1, 2):\n"
    "    n = len([e for e in x if e['pid'] == pid])\n"
    "    assert n == int(sys.argv[2]), (pid, n)\n"
    "names = {e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'process_name'}\n"
    "assert names == {'list on default', 'list on default (planned)'}, names\n"
    "threads = {e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}\n"
    "assert {'pe0', 'pe3', 'dma0', 'dma1'} <= threads, threads\n"
    "q = [e for e in x if e['args']['kind'] == 'dma' and e['pid'] == 1]\n"
    "assert q[0]['args']['bytes'] == 1048576 and q[0]['args']['cmx'] == '[0, 1048576)', q[0]\n"
    "assert q[0]['args']['update_barrier'] == 2 and q[0]['args']['waits'] == [5, 6], q[0]\n"
    "assert abs(q[0]['dur'] - 91850.4) < 1e-6, q[0]\n"
    "assert any(e['name'] == 'we\"ird\\\\na\\nme' + '\\ufffd' * 4 + '\\u00e9' for e in x), \\\n"
    "    [e['name'] for e in x]\n"
    "c = [e['args']['transfers'] for e in ev if e['ph'] == 'C' and e['pid'] == 1]\n"
    "assert c == [1, 0], c\n";

Test(simulate, trace_is_valid_json_with_one_event_per_op, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_trace *t;
  struct acs_diag d;
  char path[512], py[600], cmd[2048];
  int32_t a, b;
  FILE *pf;
  struct stat st;

  tu_graph_npu(&f.g, "traced");
  a = dma_op(&f.g, "load", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  b = tu_op(&f.g, "we\"ird\\na\nme\xff\xed\xa0\x80\xc3\xa9", ACS_OP_DPU, 50);
  tu_edge(&f.g, a, b);
  fix_bind(&f, NULL);
  place(&f, a, 1, 0);
  place(&f, b, 3, 91851);
  f.s.ops[a].cmx_offset = 0;
  f.s.ops[a].cmx_bytes = MIB;
  f.s.ops[a].update_barrier = 2;
  cr_assert_eq(acs_schedule_add_wait(&f.s, a, 5), ACS_OK);
  cr_assert_eq(acs_schedule_add_wait(&f.s, a, 6), ACS_OK);
  sim_ok(&f, &r);

  snprintf(path, sizeof(path), "%s/trace.json", tu_tmpdir());
  acs_diag_init(&d);
  cr_assert_eq(acs_sim_trace_open(path, &t, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(stat(path, &st), -1, "the trace appears only when complete");
  cr_assert_eq(acs_sim_trace_add(t, "list on default", &f.pb.plat, &f.s, ACS_SIM_TIMES_SIMULATED),
               ACS_OK);
  cr_assert_eq(acs_sim_trace_add(t, "list on default (planned)", &f.pb.plat, &f.s,
                                 ACS_SIM_TIMES_PLANNED), ACS_OK);
  cr_assert_eq(acs_sim_trace_close(t, &d), ACS_OK, "%s", d.msg);

  snprintf(py, sizeof(py), "%s.py", path);
  pf = fopen(py, "w");
  cr_assert_not_null(pf);
  fputs(checker, pf);
  fclose(pf);
  snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' %d", py, path, (int)f.s.nops);
  cr_assert_eq(system(cmd), 0, "the trace does not parse or lacks events: %s", path);
  fix_destroy(&f);
}

