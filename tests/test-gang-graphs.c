/*
 * test-gang-graphs.c - the SDF scheduler family (seed 004): gang,
 * sequential, tiling, naive-list on the six benchmark graphs (every schedule
 * verified, gang never worse than a baseline and a third below tiling on
 * average), hand-derived bounds on small graphs, the partition constraints
 * (program memory, non-pipelineable kernels), infeasibility messages, the
 * control program, determinism and interruption.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/sched/gang/gang.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

#include "tests/gang_util.h"

/* ---- the six benchmark graphs ---- */

static const char *const variants[] = { "gang", "sequential", "tiling", "naive-list" };

/* All four verified (the family checker runs inside each variant too);
 * returns gang's makespan and tiling's. */
static void benchmark_graph(const char *name, int64_t *gang, int64_t *tiling)
{
  char rel[256];
  struct run r;
  int64_t ms[4];

  snprintf(rel, sizeof(rel), "workloads/sdf/%s.xml", name);
  open_run(&r, tu_path(rel), NULL);
  for (int v = 0; v < 4; v++) {
    struct acs_schedule s;
    ms[v] = sched_ok(variants[v], &r, NULL, &s);
    acs_schedule_destroy(&s);
  }
  for (int v = 1; v < 4; v++)
    cr_assert_leq(ms[0], ms[v], "%s: gang %lld is worse than %s %lld", name, (long long)ms[0],
                  variants[v], (long long)ms[v]);
  *gang = ms[0];
  *tiling = ms[2];
  close_run(&r);
}

/*
 * Every schedule of the family keeps its buffers apart in every execution
 * that respects its edges: after the barrier pass re-times gang, tiling
 * and naive-list on four graphs by their edges (4 barriers), the verifier
 * still finds every two buffers that share addresses apart in time.
 * Without the control edges of the buffers' packing (lower.c) the pass
 * moved a gang buffer's allocation before the last reader of the one it
 * replaces; without the cut of the slack a range keeps after its last
 * reader (barrier_retime.c), the baselines' buffers, freed later than their
 * last reader, overlapped the next ones.
 */
Test(gang, buffers_stay_apart_when_the_barrier_pass_retimes, .timeout = 600)
{
  static const char *const graphs[] = {"difference", "canny", "histeq", "verification"};
  static const char *const scheds[] = {"gang", "tiling", "naive-list"};

  for (size_t k = 0; k < sizeof(graphs) / sizeof(graphs[0]); k++) {
    char rel[256];
    struct run r;
    snprintf(rel, sizeof(rel), "workloads/sdf/%s.xml", graphs[k]);
    open_run(&r, tu_path(rel), NULL);
    for (size_t v = 0; v < sizeof(scheds) / sizeof(scheds[0]); v++) {
      struct acs_schedule s;
      struct acs_diag d;
      sched_ok(scheds[v], &r, NULL, &s);
      s.barriers = 4;
      acs_diag_init(&d);
      cr_assert_eq(acs_barrier_pass(NULL, &s, NULL, &d), ACS_OK, "%s %s: %s", graphs[k],
                   scheds[v], d.msg);
      acs_diag_init(&d);
      cr_assert_eq(acs_schedule_verify(&s, &d), ACS_OK, "%s %s: %s", graphs[k], scheds[v], d.msg);
      acs_schedule_destroy(&s);
    }
    close_run(&r);
  }
}

#define BENCH_TEST(g)                                   \
  Test(gang, benchmark_##g)                             \
  {                                                     \
    int64_t a, b;                                       \
    benchmark_graph(#g, &a, &b);                        \
    cr_assert_lt(a, b, "gang %lld tiling %lld", (long long)a, (long long)b); \
  }
BENCH_TEST(difference)
BENCH_TEST(canny)
BENCH_TEST(histeq)
BENCH_TEST(verification)
BENCH_TEST(hdr)

Test(gang, benchmark_hdr2_and_average_reduction, .timeout = 600)
{
  static const char *const graphs[] = { "difference", "canny", "histeq", "verification", "hdr", "hdr2" };
  double sum = 0;

  /* The issue's goal: on average at least 33% below tiling. */
  for (size_t i = 0; i < 6; i++) {
    char rel[256];
    struct run r;
    struct acs_schedule s;
    int64_t g, t;
    snprintf(rel, sizeof(rel), "workloads/sdf/%s.xml", graphs[i]);
    open_run(&r, tu_path(rel), NULL);
    g = sched_ok("gang", &r, NULL, &s);
    acs_schedule_destroy(&s);
    t = sched_ok("tiling", &r, NULL, &s);
    acs_schedule_destroy(&s);
    sum += 1.0 - (double)g / (double)t;
    close_run(&r);
  }
  cr_assert_geq(sum / 6, 0.33, "average reduction %.3f", sum / 6);
}

/* ---- small graphs with hand-derived answers ---- */

Test(gang, single_kernel_within_hand_bounds)
{
  /* One kernel between a DDR read and a DDR write of 1920-byte lines: on
   * isp4 a DDR line is 100 + 1920 / 0.4 = 4900 cycles, a load of 2048
   * bytes 100 + 5120 = 5220. The one DMA must do 2 x 64 line transfers
   * after the load, and the last write follows the last firing (300
   * cycles, during which at best one 4900-cycle write can run): the
   * optimum is 5220 + 128 x 4900 = 632420 (the firing hides behind a
   * write). A pipelined schedule may lose a period at each end. */
  int exec[1] = { 300 };
  struct run r;
  struct acs_schedule s;
  int64_t ms;

  open_run(&r, tu_write_tmp("one.xml", chain_xml(1, 64, 1920, exec, 2048, NULL)), NULL);
  ms = sched_ok("sequential", &r, NULL, &s);
  cr_assert_geq(ms, 632420);
  cr_assert_leq(ms, 632420 + 2 * 9800 + 300, "%lld", (long long)ms);
  /* The pipelined body is the eq. 5.1 period: one read and one write. */
  cr_assert_eq(acs_rtab_get(table(&s, "gangs"), 0, 3).i, 9800);
  cr_assert_eq(acs_rtab_get(table(&s, "gangs"), 0, 4).i, 9800);
  acs_schedule_destroy(&s);
  /* 64 lines are few enough to list every firing at once: no period is
   * lost at either end, and gang reaches the optimum. */
  ms = sched_ok("gang", &r, NULL, &s);
  cr_assert_eq(ms, 632420);
  cr_assert_str_eq(acs_rtab_get(table(&s, "gangs"), 0, 13).s, "whole");
  acs_schedule_destroy(&s);
  close_run(&r);
}

Test(gang, compute_bound_kernel_is_tiled)
{
  /* One kernel of 100000 cycles per line over 64 lines of 64 bytes: on one
   * PE 6.4 Mcycles; split into four strips of 16 lines, at least 1.6
   * Mcycles, which the tiling baseline's pass gets close to. gang takes
   * that realization for a gang of one such kernel. */
  int exec[1] = { 100000 };
  struct run r;
  struct acs_schedule s;
  int64_t gang, tiling;

  open_run(&r, tu_write_tmp("heavy.xml", chain_xml(1, 64, 64, exec, 2048, NULL)), NULL);
  tiling = sched_ok("tiling", &r, NULL, &s);
  acs_schedule_destroy(&s);
  gang = sched_ok("gang", &r, NULL, &s);
  cr_assert_leq(gang, tiling);
  cr_assert_geq(gang, 16 * 100000);
  cr_assert_lt(gang, 2 * 1600000, "%lld", (long long)gang);
  cr_assert_str_eq(acs_rtab_get(table(&s, "gangs"), 0, 13).s, "tiled");
  acs_schedule_destroy(&s);
  close_run(&r);
}

Test(gang, chain_that_fits_one_pe_is_one_gang)
{
  /* Four cheap kernels of 4 KiB: merging saves DDR round trips and all fit
   * one PE's 32 KiB of program memory, so one gang (eq. 5.1 falls from
   * 4 x 2 DDR lines per line to 2). */
  int exec[4] = { 200, 200, 200, 200 };
  struct run r;
  struct acs_schedule s, q;
  int64_t gang, seq;

  open_run(&r, tu_write_tmp("c4.xml", chain_xml(4, 32, 1920, exec, 4096, NULL)), NULL);
  gang = sched_ok("gang", &r, NULL, &s);
  seq = sched_ok("sequential", &r, NULL, &q);
  cr_assert_eq(attr_i64(table(&s, "gangs"), "gangs"), 1);
  cr_assert_eq(attr_i64(table(&q, "gangs"), "gangs"), 4);
  cr_assert_lt(gang * 3, seq, "gang %lld sequential %lld", (long long)gang, (long long)seq);
  acs_schedule_destroy(&s);
  acs_schedule_destroy(&q);
  close_run(&r);
}
Test(gang, program_memory_splits_gangs)
{
  /* Six kernels as large as a PE's program memory: at most four (one per
   * PE) share a gang, so the partition has two gangs. */
  int exec[6] = { 200, 200, 200, 200, 200, 200 };
  struct acs_platform p;
  struct acs_sdf_graph g;
  struct acs_gang_ctx c;
  struct acs_gang_part pt;

  partition_of(tu_write_tmp("c6.xml", chain_xml(6, 32, 1920, exec, 32768, NULL)), &p, &g, &c, &pt);
  cr_assert_eq(pt.ngangs, 2);
  for (int32_t i = 0; i < pt.ngangs; i++) {
    int pe[4] = { 0 };
    for (int32_t k = 0; k < pt.gangs[i].nact; k++)
      cr_assert_eq(pe[pt.gangs[i].pe[k]]++, 0, "two 32 KiB kernels on pe%d in gang %d",
                   (int)pt.gangs[i].pe[k], (int)i);
  }
  acs_gang_part_free(&pt);
  acs_gang_ctx_free(&c);
  acs_sdf_destroy(&g);
}

Test(gang, pipelining_classes)
{
  /* k1 pipelineable on its input only: k2 runs in a later gang; k3 not
   * pipelineable: alone. */
  int exec[5] = { 100, 100, 100, 100, 100 };
  static const char *const pipe[5] = { NULL, "input", NULL, "none", NULL };
  struct acs_platform p;
  struct acs_sdf_graph g;
  struct acs_gang_ctx c;
  struct acs_gang_part pt;
  struct run r;
  struct acs_schedule s;
  const char *path = tu_write_tmp("p5.xml", chain_xml(5, 16, 1920, exec, 2048, pipe));
  char names[2][8];

  partition_of(path, &p, &g, &c, &pt);
  cr_assert_lt(gang_in(&pt, &g, "k1"), gang_in(&pt, &g, "k2"));
  cr_assert_eq(gang_in(&pt, &g, "k0"), gang_in(&pt, &g, "k1"));
  cr_assert_neq(gang_in(&pt, &g, "k3"), gang_in(&pt, &g, "k2"));
  cr_assert_neq(gang_in(&pt, &g, "k3"), gang_in(&pt, &g, "k4"));
  acs_gang_part_free(&pt);
  acs_gang_ctx_free(&c);
  acs_sdf_destroy(&g);
  /* Whatever schedule gang keeps (16 lines fit the VMEMs: the dynamic
   * gang), k2 starts after k1's last line and k4 after k3's. */
  open_run(&r, path, NULL);
  sched_ok("gang", &r, NULL, &s);
  for (int x = 0; x < 2; x++) {
    int64_t last = -1, first = INT64_MAX;
    snprintf(names[0], sizeof(names[0]), "k%d#", 1 + 2 * x);
    snprintf(names[1], sizeof(names[1]), "k%d#", 2 + 2 * x);
    for (int32_t i = 0; i < s.norig; i++) {
      if (strncmp(s.ops[i].name, names[0], 3) == 0 && s.ops[i].end > last)
        last = s.ops[i].end;
      if (strncmp(s.ops[i].name, names[1], 3) == 0 && s.ops[i].start < first)
        first = s.ops[i].start;
    }
    cr_assert_geq(first, last, "%s starts at %lld, %s ends at %lld", names[1], (long long)first,
                  names[0], (long long)last);
  }
  acs_schedule_destroy(&s);
  close_run(&r);
}

Test(gang, infeasible_program_memory)
{
  int exec[2] = { 100, 100 };
  struct run r;
  struct acs_schedule s;
  struct acs_diag d;

  open_run(&r, tu_write_tmp("big.xml", chain_xml(2, 8, 1920, exec, 40000, NULL)), NULL);
  for (int v = 0; v < 4; v++) {
    int err = sched(variants[v], &r, NULL, NULL, &s, &d);
    cr_assert_eq(err, ACS_EINFEASIBLE, "%s: %s", variants[v], acs_strerror(err));
    cr_assert(strstr(d.msg, "40000 bytes") != NULL, "%s: %s", variants[v], d.msg);
    acs_schedule_destroy(&s);
  }
  close_run(&r);
}

Test(gang, infeasible_vector_memory)
{
  static const char *const sets[] = { "pe_vmem_kib=4", NULL };
  int exec[2] = { 100, 100 };
  struct run r;
  struct acs_schedule s;
  struct acs_diag d;

  /* 3000-byte lines, 4 KiB of VMEM: not even one input and one output. */
  open_run(&r, tu_write_tmp("vm.xml", chain_xml(2, 8, 3000, exec, 2048, NULL)), sets);
  cr_assert_eq(sched("gang", &r, NULL, NULL, &s, &d), ACS_EINFEASIBLE);
  cr_assert(strstr(d.msg, "vector memory") != NULL, "%s", d.msg);
  acs_schedule_destroy(&s);
  close_run(&r);
}

Test(gang, two_dma_channels_keep_the_ddr_link_exclusive)
{
  static const char *const sets[] = { "dma_channels=2", NULL };
  struct run r;
  struct acs_schedule s;

  open_run(&r, tu_path("workloads/sdf/verification.xml"), sets);
  for (int v = 0; v < 4; v++) {
    sched_ok(variants[v], &r, NULL, &s);
    acs_schedule_destroy(&s);
  }
  close_run(&r);
}

Test(gang, ddr_faster_than_a_dma_engine_carries_two_transfers)
{
  /* DDR at twice a DMA engine's 16 bytes per cycle: a 1920-byte line takes
   * 100 + 1920 / 16 = 220 cycles on its channel and the link carries two at
   * once (acs_ddrlink_lanes). One kernel reads and writes 64 lines: 128
   * transfers, at least 64 x 220 cycles on two channels; one transfer at a
   * time would need 128 x 220 = 28160 cycles after the 2048-byte load
   * (100 + 128 = 228). The plan is verified (the common verifier checks the
   * link too) and no slower than the per-channel bound allows. */
  static const char *const sets[] = { "dma_channels=2", "ddr_ratio=0.5", NULL };
  int exec[1] = { 100 };
  struct run r;
  struct acs_schedule s;
  int64_t ms;

  open_run(&r, tu_write_tmp("fast.xml", chain_xml(1, 64, 1920, exec, 2048, NULL)), sets);
  ms = sched_ok("sequential", &r, NULL, &s);
  cr_assert_geq(ms, 64 * 220);
  cr_assert_lt(ms, 228 + 128 * 220, "%lld: the link took one transfer at a time", (long long)ms);
  acs_schedule_destroy(&s);
  close_run(&r);
}

Test(gang, sdf3_graphs_schedule_or_say_why)
{
  static const char *const files[] = { "samplerate.xml", "modem.xml", "satellite.xml",
    "mp3decoder_granule_parallelism.xml", "csdf_simple_example.xml" };
  static const char *const sets[] = { "pe_vmem_kib=1024", NULL };

  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    char rel[256];
    struct run r;
    snprintf(rel, sizeof(rel), "tests/data/sdf/%s", files[i]);
    open_run(&r, tu_path(rel), sets);
    for (int v = 0; v < 4; v++) {
      struct acs_schedule s;
      struct acs_diag d;
      int err = sched(variants[v], &r, NULL, NULL, &s, &d);
      cr_assert(err == ACS_OK || err == ACS_EINFEASIBLE, "%s on %s: %s (%s)", variants[v],
                files[i], acs_strerror(err), d.msg);
      if (err == ACS_OK)
        tu_assert_verified(&s);
      else
        cr_assert(d.msg[0], "infeasible without a reason");
      acs_schedule_destroy(&s);
    }
    close_run(&r);
  }
}

Test(gang, mp3decoder_never_behind_naive_list)
{
  /* SDF3's MP3 decoder fires each actor once or twice: the dynamic gang
   * (naive-list's partition and schedule) is the shortest there, and gang
   * keeps it, with its control program checked against the plan. */
  struct run r;
  struct acs_schedule s;
  int64_t naive, gang;

  open_run(&r, tu_path("tests/data/sdf/mp3decoder_granule_parallelism.xml"), NULL);
  naive = sched_ok("naive-list", &r, NULL, &s);
  acs_schedule_destroy(&s);
  gang = sched_ok("gang", &r, NULL, &s);
  cr_assert_leq(gang, naive);
  cr_assert_str_eq(acs_rtab_get(table(&s, "gangs"), 0, 13).s, "dynamic");
  /* Its program starts every firing once and loads what the schedule loads. */
  {
    const struct acs_rtab *prog = table(&s, "program");
    int64_t starts = 0, loads = 0, want_loads = 0;
    for (int64_t row = 0; row < prog->nrows; row++) {
      starts += strcmp(acs_rtab_get(prog, row, 3).s, "start_P") == 0;
      loads += strcmp(acs_rtab_get(prog, row, 3).s, "load") == 0;
    }
    for (int32_t i = s.norig; i < s.nops; i++)
      want_loads += strncmp(s.ops[i].name, "load:", 5) == 0;
    cr_assert_eq(starts, s.norig);
    cr_assert_eq(loads, want_loads);
  }
  acs_schedule_destroy(&s);
  close_run(&r);
}

Test(gang, deterministic)
{
  struct run r;
  struct acs_schedule a, b;

  open_run(&r, tu_path("workloads/sdf/histeq.xml"), NULL);
  sched_ok("gang", &r, NULL, &a);
  sched_ok("gang", &r, NULL, &b);
  cr_assert_eq(a.nops, b.nops);
  for (int32_t i = 0; i < a.nops; i++)
    cr_assert(a.ops[i].start == b.ops[i].start && a.ops[i].unit == b.ops[i].unit, "op %d", i);
  acs_schedule_destroy(&a);
  acs_schedule_destroy(&b);
  close_run(&r);
}

Test(gang, interrupted)
{
  static volatile sig_atomic_t flag = 1;
  struct run r;
  struct acs_schedule s;
  struct acs_diag d;

  open_run(&r, tu_path("workloads/sdf/hdr.xml"), NULL);
  cr_assert_eq(sched("gang", &r, NULL, &flag, &s, &d), ACS_EINTERRUPTED);
  acs_schedule_destroy(&s);
  close_run(&r);
}

/* ---- the control program ---- */

Test(gang, control_program_is_compact_and_written)
{
  char path[400], line[512];
  const char *opts[2];
  struct run r;
  struct acs_schedule s;
  const struct acs_rtab *prog;
  FILE *f;
  int loops = 0;

  snprintf(path, sizeof(path), "%s/prog.txt", tu_tmpdir());
  snprintf(line, sizeof(line), "program=%s", path);
  opts[0] = line;
  opts[1] = NULL;
  open_run(&r, tu_path("workloads/sdf/canny.xml"), NULL);
  sched_ok("gang", &r, opts, &s);
  prog = table(&s, "program");
  /* 8640 firings and more transfers, a few hundred instructions. */
  cr_assert_lt(prog->nrows, 500, "%lld instructions", (long long)prog->nrows);
  f = fopen(path, "r");
  cr_assert_not_null(f);
  while (fgets(line, sizeof(line), f))
    loops += strncmp(line, "LOOP i 0 -> ", 12) == 0;
  fclose(f);
  cr_assert_eq(loops, attr_i64(table(&s, "gangs"), "gangs"));
  acs_schedule_destroy(&s);
  close_run(&r);
}

