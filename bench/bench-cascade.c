/*
 * bench-cascade.c - figures of the cascading scheduler, seed 002 (not
 * tests).
 *
 * usage: bench-cascade [SRCDIR [SECTION...]] (see main)
 *
 *  1. Planning time on one core (the planner is single-threaded; CPU time
 *     of the process, so other load on the machine counts less), default
 *     options, best of 2: Parts N, (group, context) pairs costed, Pareto
 *     plans kept, the CPU time of steps 1-3 (CascaderGraph, plans,
 *     proposals) beside the same measured before the walk timed a block
 *     as one gang (BEFORE below), and the goals; then the whole variant
 *     (with the lowering and its checker).
 *  2. Peak CMX: the naive working set (layer by layer, the largest inputs
 *     plus output of one layer) against the smallest proposal on the
 *     front and the schedule chosen within 300 kB (budget_kib=292), whose
 *     peak is measured on the lowered schedule, beside the memory the
 *     planner predicted for it (an upper bound). The seed's reference:
 *     MobileNetV1, 1.2 MB naive, about 300 kB cascaded.
 *  3. Against `spill` at every CMX size of the grid below a network's
 *     naive working set: DDR bytes and planned makespans side by side.
 *  4. Random networks (tests/netgen.h) at three budgets: how many runs are
 *     ok, infeasible, or errors (none expected), and the first errors.
 *  5. Planned against simulated makespans and the network bound on the
 *     shipped networks at 256 KiB, 2 MiB and pe_count=16, beside the
 *     figures of the walk that timed each DMA at the full DDR rate on its
 *     own channel (BEFORE).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/benchutil.h"
#include "core/load/load.h"
#include "core/model/layer.h"
#include "core/model/netbound.h"
#include "core/sched/cascade/cascade.h"
#include "simulate/sim.h"
#include "tests/netgen.h"

#define REPS 2

static const char *const NETS[] = {"mobilenet_v1", "mobilenet_v2", "resnet18", "resnet50",
                                   "alexnet",      "squeezenet1_1", "tiny_yolov2", "unet"};

struct net {
  struct acs_workload *w;
  struct acs_platform plat;
  struct acs_graph g;
  struct acs_problem pb;
};

static int net_open_pe(struct net *n, const char *srcdir, const char *name, int64_t cmx_kib,
                       int64_t pes)
{
  char path[1024], kv[64], kp[64];
  struct acs_diag d;

  acs_diag_init(&d);
  snprintf(path, sizeof(path), "%s/workloads/onnx/%s.onnx", srcdir, name);
  snprintf(kv, sizeof(kv), "cmx_kib=%lld", (long long)cmx_kib);
  snprintf(kp, sizeof(kp), "pe_count=%lld", (long long)pes);
  acs_platform_init(&n->plat);
  if (acs_workload_load(path, &n->w, &d) != ACS_OK ||
      acs_platform_set_kv(&n->plat, kv, &d) != ACS_OK ||
      acs_platform_set_kv(&n->plat, kp, &d) != ACS_OK ||
      acs_workload_build(n->w, &n->plat, &n->g, &d) != ACS_OK ||
      acs_problem_init(&n->pb, &n->g, &n->plat, &d) != ACS_OK) {
    fprintf(stderr, "bench-cascade: %s: %s\n", name, d.msg);
    return -1;
  }
  acs_workload_bind(n->w, &n->pb);
  return 0;
}

static int net_open(struct net *n, const char *srcdir, const char *name, int64_t cmx_kib)
{
  return net_open_pe(n, srcdir, name, cmx_kib, 4);
}

/* CPU seconds of this process: the planner runs on one core. */
static double cpu_seconds(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void net_close(struct net *n)
{
  acs_problem_destroy(&n->pb);
  acs_graph_destroy(&n->g);
  acs_workload_free(n->w);
}

/* Steps 1-3 alone, with the default options: seconds, and the result. */
static double plan_seconds(const struct net *n, struct acs_cas_result *r, int32_t *nparts)
{
  const struct acs_sched_ops *ops = acs_sched_find("cascade");
  struct acs_cas_opts o;
  struct acs_cgraph cg;
  struct acs_cas_env env;
  struct acs_diag d;
  double t0 = cpu_seconds(), t;

  acs_diag_init(&d);
  acs_sched_opts_defaults(ops, &o);
  if (acs_cgraph_build(acs_workload_lgraph(n->w),
                       (int64_t)acs_platform_get(&n->plat, ACS_P_BYTES_PER_ELEM), &cg) != ACS_OK)
    return -1;
  *nparts = cg.nparts;
  if (acs_cas_env_init(&env, &cg, &n->plat, o.split, -1, -1) != ACS_OK ||
      acs_cas_propose(&env, &o, acs_platform_cmx_bytes(&n->plat), NULL, r, &d) != ACS_OK) {
    acs_cgraph_free(&cg);
    return -1;
  }
  t = cpu_seconds() - t0;
  acs_cgraph_free(&cg);
  return t;
}

/* A right-aligned figure, or `none` when the run was not ok. */
static void cell(int width, int ok, int64_t v, const char *none)
{
  if (ok)
    printf("%*lld ", width, (long long)v);
  else
    printf("%*s ", width, none);
}

/* Section 1's rows: network, PEs, CMX, the CPU seconds of steps 1-3
 * before the walk timed a block as one gang and DMAs on the shared link
 * (measured back to back with this code's build of that commit on the
 * same machine, load average 11-14), and the goal (0: none). */
static const struct {
  const char *net;
  int64_t pes, cmx_kib;
  double before, goal;
} TIMED[] = {
  {"mobilenet_v1", 4, 256, 1.599, 1.5},   {"mobilenet_v1", 16, 256, 4.910, 1.5},
  {"mobilenet_v1", 64, 256, 29.121, 1.5}, {"mobilenet_v1", 16, 2048, 5.426, 1.5},
  {"mobilenet_v2", 4, 256, 3.448, 0}, {"resnet18", 4, 256, 1.593, 0},
  {"resnet18", 16, 2048, 5.581, 0},        {"resnet50", 4, 256, 4.251, 2},
  {"resnet50", 4, 2048, 4.087, 2},         {"googlenet", 4, 256, 6.530, 3},
  {"googlenet", 4, 2048, 6.729, 3},        {"alexnet", 4, 256, 0.482, 0},
  {"squeezenet1_1", 4, 256, 2.172, 0}, {"tiny_yolov2", 4, 256, 0.789, 0},
  {"unet", 4, 256, 2.374, 0},
};

/* The whole variant (steps 1-4, the lowering and its checker): CPU
 * seconds, -1 when it fails. */
static double variant_seconds(struct net *n)
{
  struct acs_schedule s;
  struct acs_diag d;
  double sec, t0 = cpu_seconds(), t;

  acs_diag_init(&d);
  acs_schedule_init(&s);
  t = bench_run("cascade", &n->pb, NULL, &s, &sec, &d) == ACS_OK ? cpu_seconds() - t0 : -1;
  acs_schedule_destroy(&s);
  return t;
}

static void bench_time(const char *srcdir)
{
  printf("1. Planning time (steps 1-3), CPU seconds of one core, default options, best of %d\n",
         REPS);
  printf("  %-14s %4s %5s %6s %7s %7s %9s %9s %7s %10s\n", "network", "pes", "cmx", "parts",
         "pairs", "plans", "plan s", "before s", "goal s", "variant s");
  for (size_t i = 0; i < sizeof(TIMED) / sizeof(TIMED[0]); i++) {
    double best = 1e30, whole;
    int64_t pairs = 0, plans = 0;
    int32_t nparts = 0;
    char goal[16] = "-";
    struct net n;
    if (net_open_pe(&n, srcdir, TIMED[i].net, TIMED[i].cmx_kib, TIMED[i].pes) < 0)
      continue;
    for (int rep = 0; rep < REPS; rep++) {
      struct acs_cas_result r;
      double t = plan_seconds(&n, &r, &nparts);
      if (t >= 0) {
        best = t < best ? t : best;
        pairs = r.groups_tried;
        plans = r.plans_costed;
        acs_cas_result_free(&r);
      }
    }
    whole = variant_seconds(&n);
    if (TIMED[i].goal > 0)
      snprintf(goal, sizeof(goal), "%.1f", TIMED[i].goal);
    printf("  %-14s %4lld %5lld %6d %7lld %7lld %9.3f %9.3f %7s %10.3f\n", TIMED[i].net,
           (long long)TIMED[i].pes, (long long)TIMED[i].cmx_kib, (int)nparts, (long long)pairs,
           (long long)plans, best, TIMED[i].before, goal, whole);
    net_close(&n);
  }
}

/* The lowered schedule's stats, or -1 in st->makespan when not ok; a
 * cascade's predicted memory (its chosen front point) in *predicted. */
static void run_stats(const char *sched, const struct net *n, const char *const *opts,
                      struct acs_schedule_stats *st, int64_t *predicted)
{
  const struct acs_rtab *t;
  struct acs_schedule s;
  struct acs_diag d;
  double sec;

  acs_diag_init(&d);
  acs_schedule_init(&s);
  memset(st, 0, sizeof(*st));
  st->makespan = -1;
  if (bench_run(sched, &n->pb, opts, &s, &sec, &d) == ACS_OK && acs_schedule_verify(&s, &d) == 0)
    acs_schedule_stats(&s, st);
  if (predicted && (t = acs_schedule_find_rtab(&s, "cascade_front")))
    for (int64_t k = 0; k < t->nrows; k++)
      if (acs_rtab_get(t, k, 2).i)
        *predicted = acs_rtab_get(t, k, 0).i;
  acs_schedule_destroy(&s);
}

static void bench_memory(const char *srcdir)
{
  static const char *const within[] = {"budget_kib=292", NULL};

  printf("\n2. Peak CMX: layer by layer against cascaded (bytes)\n");
  printf("  %-14s %12s %14s %8s %16s %12s %12s\n", "network", "naive", "smallest plan", "cut",
         "peak <= 300 kB", "predicted", "cycles");
  for (size_t i = 0; i < sizeof(NETS) / sizeof(NETS[0]); i++) {
    struct acs_lgraph_totals tot;
    struct acs_schedule_stats st;
    struct acs_cas_result r;
    int64_t predicted = -1;
    int32_t nparts;
    struct net n;
    if (net_open(&n, srcdir, NETS[i], 4096) < 0)
      continue;
    if (acs_lgraph_totals(acs_workload_lgraph(n.w), 1, &tot) != ACS_OK ||
        plan_seconds(&n, &r, &nparts) < 0) {
      net_close(&n);
      continue;
    }
    run_stats("cascade", &n, within, &st, &predicted);
    printf("  %-14s %12lld %14lld %7.1fx ", NETS[i], (long long)tot.naive_ws,
           (long long)r.front[0].mem, (double)tot.naive_ws / (double)r.front[0].mem);
    cell(16, st.makespan >= 0, st.peak_cmx_bytes, "infeasible");
    cell(12, st.makespan >= 0, predicted, "-");
    cell(12, st.makespan >= 0, st.makespan, "-");
    printf("\n");
    acs_cas_result_free(&r);
    net_close(&n);
  }
}

static void bench_spill(const char *srcdir)
{
  static const int64_t grid[] = {64, 128, 256, 512, 1024, 2048};

  printf("\n3. cascade against spill below the naive working set (planned schedules)\n");
  printf("  %-14s %8s %14s %14s %12s %12s %6s\n", "network", "cmx_kib", "ddr cascade",
         "ddr spill", "mk cascade", "mk spill", "fewer");
  for (size_t i = 0; i < 4; i++) {
    struct acs_lgraph_totals tot;
    struct net n0;
    if (net_open(&n0, srcdir, NETS[i], 256) < 0)
      continue;
    acs_lgraph_totals(acs_workload_lgraph(n0.w), 1, &tot);
    net_close(&n0);
    for (size_t k = 0; k < sizeof(grid) / sizeof(grid[0]); k++) {
      struct acs_schedule_stats c, s;
      struct net n;
      if (grid[k] * 1024 >= tot.naive_ws || net_open(&n, srcdir, NETS[i], grid[k]) < 0)
        continue;
      run_stats("cascade", &n, NULL, &c, NULL);
      run_stats("spill", &n, NULL, &s, NULL);
      printf("  %-14s %8lld ", NETS[i], (long long)grid[k]);
      cell(14, c.makespan >= 0, c.ddr_bytes, "infeasible");
      cell(14, s.makespan >= 0, s.ddr_bytes, "infeasible");
      cell(12, c.makespan >= 0, c.makespan, "-");
      cell(12, s.makespan >= 0, s.makespan, "-");
      printf("%6s\n",
             c.makespan < 0 ? "-" : s.makespan < 0 || c.ddr_bytes < s.ddr_bytes ? "yes" : "NO");
      net_close(&n);
    }
  }
}

/* Large random networks (7-333 pixels, up to 512 channels, up to 8
 * blocks) at three budgets, the PE count varying with the seed. */
static const struct acs_netgen_opts LARGE = {7, 333, 512, 8};

static void bench_nets(long nets, long first)
{
  static const char *const budgets[] = {"cmx_kib=64", "cmx_kib=512", "cmx_kib=4096"};
  static const char *const pes[] = {"pe_count=4", "pe_count=1", "pe_count=16"};
  long count[3] = {0, 0, 0}, shown = 0;
  double t0 = acs_now_seconds();

  printf("\n4. Random networks (tests/netgen.h: 7-333 pixels, 1-512 channels, up to 8 "
         "blocks), seeds %ld-%ld, 3 budgets each, simulated\n", first, first + nets - 1);
  for (long i = 0; i < nets; i++) {
    uint64_t seed = (uint64_t)(first + i);
    struct acs_lgraph lg;
    char desc[512];
    if (acs_netgen_make(seed, &LARGE, &lg, desc, sizeof(desc)) != ACS_OK) {
      printf("  net %llu: not generated: %s\n", (unsigned long long)seed, desc);
      count[ACS_NETGEN_ERROR] += 3;
      continue;
    }
    for (int b = 0; b < 3; b++) {
      const char *sets[] = {budgets[b], pes[seed % 3], NULL};
      struct acs_netgen_run r;
      if (acs_netgen_cascade(&lg, sets, NULL, 1, &r) != ACS_OK) {
        r.status = ACS_NETGEN_ERROR;
        snprintf(r.msg, sizeof(r.msg), "the rig failed");
      }
      count[r.status]++;
      if (r.status == ACS_NETGEN_ERROR && shown++ < 20)
        printf("  error: net %llu (%s) at %s, %s: %s\n", (unsigned long long)seed, desc,
               sets[0], sets[1], r.msg);
    }
    acs_lgraph_destroy(&lg);
    /* A tally every 100 networks: a long run stopped early still tells. */
    if ((i + 1) % 100 == 0 && i + 1 < nets) {
      printf("  after %ld networks: %ld ok, %ld infeasible, %ld error (%.0f s)\n", i + 1,
             count[ACS_NETGEN_OK], count[ACS_NETGEN_INFEASIBLE], count[ACS_NETGEN_ERROR],
             acs_now_seconds() - t0);
      fflush(stdout);
    }
  }
  printf("  %ld runs: %ld ok, %ld infeasible, %ld error (%.0f s)\n", 3 * nets,
         count[ACS_NETGEN_OK], count[ACS_NETGEN_INFEASIBLE], count[ACS_NETGEN_ERROR],
         acs_now_seconds() - t0);
}

static int wants(int argc, char **argv, const char *what, long *arg)
{
  size_t n = strlen(what);

  if (argc <= 2)
    return 1;
  for (int i = 2; i < argc; i++)
    if (strncmp(argv[i], what, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) {
      if (arg && argv[i][n] == '=')
        *arg = strtol(argv[i] + n + 1, NULL, 10);
      return 1;
    }
  return 0;
}

/* Section 5's rows and their figures before: planned and simulated
 * makespans of `acsim run -s cascade` (default options) when the walk timed
 * every DMA at the full DDR rate on its own channel. */
static const struct {
  const char *net;
  int64_t pes, cmx_kib, planned, simulated;
} LINKED[] = {
  {"mobilenet_v1", 4, 256, 647915, 732658},
  {"mobilenet_v1", 4, 2048, 641535, 721502},
  {"mobilenet_v1", 16, 2048, 286993, 426673},
  {"mobilenet_v1", 16, 256, 314499, 471978},
  {"mobilenet_v2", 4, 256, 464681, 511289},
  {"mobilenet_v2", 4, 2048, 426222, 498578},
  {"mobilenet_v2", 16, 2048, 250763, 354528},
  {"mobilenet_v2", 16, 256, 298745, 389089},
  {"resnet18", 4, 256, 2031262, 2238728},
  {"resnet18", 4, 2048, 2011945, 2190028},
  {"resnet18", 16, 2048, 875282, 1256878},
  {"resnet18", 16, 256, 937238, 1345409},
  {"resnet50", 4, 256, 5022623, 5583330},
  {"resnet50", 4, 2048, 4517485, 4831084},
  {"resnet50", 16, 2048, 1944185, 2689800},
  {"resnet50", 16, 256, 2939714, 4055678},
  {"squeezenet1_1", 4, 256, 360433, 370237},
  {"squeezenet1_1", 4, 2048, 349747, 353783},
  {"squeezenet1_1", 16, 2048, 125746, 159933},
  {"squeezenet1_1", 16, 256, 151676, 195328},
  {"alexnet", 4, 256, 3476114, 5834172},
  {"alexnet", 4, 2048, 3425874, 5797358},
  {"alexnet", 16, 2048, 2969468, 5414331},
  {"alexnet", 16, 256, 3070797, 5470117},
  {"tiny_yolov2", 4, 256, 4289253, 4325480},
  {"tiny_yolov2", 4, 2048, 3423234, 3434457},
  {"tiny_yolov2", 16, 2048, 1235914, 1604724},
  {"tiny_yolov2", 16, 256, 2391023, 2486277},
  {"unet", 4, 256, 580639, 590340},
  {"unet", 4, 2048, 573101, 579284},
  {"unet", 16, 2048, 150969, 163099},
  {"unet", 16, 256, 185757, 217278},
  {"googlenet", 4, 256, 1753038, 1886702},
  {"googlenet", 4, 2048, 1642435, 1716951},
  {"googlenet", 16, 2048, 655858, 840676},
  {"googlenet", 16, 256, 897442, 1164085}
};

/* Planned, simulated, the network bound: one run as acsim runs it. */
static int linked_run(struct net *n, int64_t *planned, double *sim, int64_t *bound)
{
  struct acs_schedule s;
  struct acs_schedule_stats st;
  struct acs_sim_result r;
  struct acs_netbound nb;
  struct acs_diag d;
  double sec;
  int err;

  acs_diag_init(&d);
  acs_schedule_init(&s);
  if ((err = bench_run("cascade", &n->pb, NULL, &s, &sec, &d)) == ACS_OK &&
      (err = acs_schedule_verify(&s, &d)) == ACS_OK &&
      (err = acs_sim_run(&n->plat, &s, NULL, &r, &d)) == ACS_OK &&
      (err = acs_netbound_compute(acs_workload_lgraph(n->w), &n->plat, &nb)) == ACS_OK) {
    acs_schedule_stats(&s, &st);
    *planned = st.makespan;
    *sim = r.makespan_cycles;
    *bound = nb.cycles;
  }
  if (err != ACS_OK)
    fprintf(stderr, "bench-cascade: %s: %s\n", n->w->name, d.msg);
  acs_schedule_destroy(&s);
  return err;
}

static void bench_linked(const char *srcdir)
{
  printf("\n5. Planned against simulated (SimGrid) makespans and the network bound, cycles; "
         "before: DMAs at the full DDR rate, each on its own channel\n");
  printf("  %-14s %4s %5s %10s %10s %7s %10s %8s | %10s %10s %7s %8s\n", "network", "pes", "cmx",
         "planned", "simulated", "diff%", "bound", "sim/bnd", "before pl", "before sim",
         "diff%", "sim/bnd");
  for (size_t i = 0; i < sizeof(LINKED) / sizeof(LINKED[0]); i++) {
    int64_t planned = 0, bound = 0;
    double sim = NAN;
    struct net n;
    if (net_open_pe(&n, srcdir, LINKED[i].net, LINKED[i].cmx_kib, LINKED[i].pes) < 0)
      continue;
    if (linked_run(&n, &planned, &sim, &bound) == ACS_OK)
      printf("  %-14s %4lld %5lld %10lld %10.0f %+7.1f %10lld %8.3f | %10lld %10lld %+7.1f "
             "%8.3f\n", LINKED[i].net, (long long)LINKED[i].pes, (long long)LINKED[i].cmx_kib,
             (long long)planned, sim, 100.0 * ((double)planned - sim) / sim, (long long)bound,
             sim / (double)bound, (long long)LINKED[i].planned, (long long)LINKED[i].simulated,
             100.0 * (double)(LINKED[i].planned - LINKED[i].simulated) /
               (double)LINKED[i].simulated,
             (double)LINKED[i].simulated / (double)bound);
    net_close(&n);
  }
}

/* usage: bench-cascade [SRCDIR [SECTION...]]; sections time, memory,
 * spill, nets[=N] (N random networks, 2000 by default), first=K (the
 * first seed), linked; none: all. */
int main(int argc, char **argv)
{
  const char *srcdir = argc > 1 ? argv[1] : ".";
  long nets = 2000, first = 0;

  if (wants(argc, argv, "time", NULL))
    bench_time(srcdir);
  if (wants(argc, argv, "memory", NULL))
    bench_memory(srcdir);
  if (wants(argc, argv, "spill", NULL))
    bench_spill(srcdir);
  wants(argc, argv, "first", &first);
  if (wants(argc, argv, "linked", NULL))
    bench_linked(srcdir);
  if (wants(argc, argv, "nets", &nets) && nets > 0)
    bench_nets(nets, first);
  return 0;
}
