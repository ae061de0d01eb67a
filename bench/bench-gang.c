/*
 * bench-gang.c - the SDF family (seed 004) on platforms/isp4.csv:
 *
 *  1. the six benchmark graphs of the thesis (workloads/sdf/): the gang
 *     heuristic's time side by side with the thesis's (at most 54 ms) and
 *     with the code before gang took the baselines' partitions into account
 *     ("was"), and the simulated makespans of gang, tiling, naive-list and
 *     sequential, gang's reduction against tiling (the thesis: 33% on
 *     average), the gap of each gang's period to its eq. 5.1 bound and the
 *     gap to the exact partition ILP's lower bound where it solves;
 *  2. the SDF3 testbench graphs (tests/data/sdf/): the same, against the
 *     best baseline;
 *  3. planned against simulated makespans of every variant on every shipped
 *     graph, on isp4 and on two platforms whose DMA channels share the DDR
 *     link (SimGrid shares its bandwidth among overlapping transfers; the
 *     plans keep it exclusive);
 *  4. a sweep over random SDF/CSDF graphs (tests/sdfgen.c) on five platform
 *     variants: results by status, gang against the best baseline, which
 *     realization gang kept, and the spread of gang's scheduling time.
 *
 * "heur ms" is the CPU time of the heuristic itself: context, partition
 * search with every realization, the dynamic gang's probe, the control
 * program tables (the thesis's scheduler), the minimum over REPS runs,
 * every graph timed before any variant runs. "run s" is the whole variant
 * as `acsim run` calls it: also every firing, transfer and buffer of the
 * run, the checks and the lowering.
 *
 * Usage: bench-gang [--no-sim] [--reps N] [--ilp SEC] [--sweep N] [SRCDIR]
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/load/load.h"
#include "core/sched/gang/gang.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "tests/sdfgen.h"

enum { NVAR = 4 };
static const char *const variants[NVAR] = { "gang", "tiling", "naive-list", "sequential" };

/* The reference ("was"): the thesis's heuristic alone, as of commit
 * a609a8a: gang's planned makespan (deterministic) and its heuristic time
 * as docs/gang.md recorded it then on this 2-core VM at a load average of
 * about 1. SDF3 graphs: -1 when infeasible. */
struct ref {
  const char *name;
  int64_t gang;
  double heur_ms;
};
static const struct ref thesis[] = {
  { "histeq", 63150540, 0.29 }, { "difference", 21215540, 0.24 }, { "canny", 21041080, 0.30 },
  { "hdr", 50857870, 3.62 }, { "verification", 32783050, 0.27 }, { "hdr2", 112664720, 9.43 },
};
static const struct ref sdf3[] = {
  { "mp3decoder_granule_parallelism", 6300745, -1 }, { "samplerate", 1024, -1 },
  { "satellite", 2724, -1 }, { "modem", 41, -1 }, { "csdf_simple_example", 25, -1 },
  { "h263decoder", -1, -1 },
};
#define NREF(a) (sizeof(a) / sizeof((a)[0]))

struct bench {
  const char *src;
  int sim, reps, sweep;
  double ilp_limit;
  struct acs_platform isp4;
};

static double cpu_seconds(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static _Noreturn void die(const char *what, const struct acs_diag *d)
{
  fprintf(stderr, "bench-gang: %s: %s\n", what, d ? d->msg : "");
  exit(1);
}

/* The heuristic alone, as `gang` runs it; the worst period gap of its gangs. */
static double heuristic_ms(const struct acs_sdf_graph *g, const struct acs_platform *p, int reps,
                           double *worst_gap)
{
  double best = HUGE_VAL;

  for (int r = 0; r < reps; r++) {
    struct acs_gang_opts o;
    struct acs_gang_ctx c;
    struct acs_gang_part pt;
    struct acs_schedule s;
    struct acs_diag d;
    double t0 = cpu_seconds(), t;
    int err;
    acs_sched_opts_defaults(&acs_sched_gang, &o);
    acs_diag_init(&d);
    acs_schedule_init(&s);
    if (acs_gang_ctx_init(&c, g, p, &d) < 0)
      die(g->name, &d);
    c.modes = 1;
    c.max_iter = o.max_iter;
    if ((err = acs_gang_partition(&c, &o, 0, &pt, &d)) < 0 ||
        (err = acs_gang_dynamic_try(&c, &pt)) < 0 || (err = acs_gang_part_tables(&c, &pt, &s)) < 0)
      die(g->name, &d);
    t = cpu_seconds() - t0;
    if (t < best)
      best = t;
    *worst_gap = 0;
    for (int32_t i = 0; i < pt.ngangs; i++) {
      const struct acs_gang *gg = &pt.gangs[i];
      double gap = gg->L > 0 && gg->Pstar > 0 ? 100.0 * (double)(gg->P - gg->Pstar) / (double)gg->Pstar : 0;
      if (gap > *worst_gap)
        *worst_gap = gap;
    }
    acs_gang_part_free(&pt);
    acs_gang_ctx_free(&c);
    acs_schedule_destroy(&s);
  }
  return 1e3 * best;
}

/* One variant end to end: planned and (unless --no-sim) simulated
 * makespans, -1 when it is not ok; gang's first gang's schedule mode. */
static void run_variant(const char *name, struct acs_problem *pb, int sim, double *run_s,
                        int64_t *planned, double *simulated, char *mode, size_t msz)
{
  const struct acs_sched_ops *ops = acs_sched_find(name);
  struct acs_sched_ctx ctx = { 1, 0, NULL, NULL, 0 };
  struct acs_schedule s;
  struct acs_diag d;
  char opts[4096];
  double t0;
  int err;

  acs_diag_init(&d);
  if (!ops || ops->opts_size > sizeof(opts) || acs_sched_opts_defaults(ops, opts) < 0 ||
      acs_schedule_init_problem(&s, pb) < 0)
    die(name, NULL);
  t0 = cpu_seconds();
  err = ops->schedule(pb, opts, &ctx, &s, &d);
  *run_s = cpu_seconds() - t0;
  *planned = -1;
  *simulated = NAN;
  if (err == ACS_EINFEASIBLE) {
    acs_schedule_destroy(&s);
    return;
  }
  if (err < 0 || acs_schedule_verify(&s, &d) < 0)
    die(name, &d);
  *planned = s.makespan;
  if (mode) {
    const struct acs_rtab *t = acs_schedule_find_rtab(&s, "gangs");
    snprintf(mode, msz, "%s", t && t->nrows > 0 ? acs_rtab_get(t, 0, 13).s : "-");
  }
  if (sim) {
    struct acs_sim_result r;
    if (acs_sim_run(&pb->plat, &s, NULL, &r, &d) < 0)
      die(name, &d);
    *simulated = r.makespan_cycles;
  }
  acs_schedule_destroy(&s);
}

/* The ILP's lower bound (-1: not proven within the limit). */
static int64_t ilp_bound(const struct acs_sdf_graph *g, const struct acs_platform *p, double limit)
{
  struct acs_gang_opts o;
  struct acs_gang_ctx c;
  struct acs_gang_part pt;
  struct acs_diag d;
  int64_t lower = -1;

  if (g->nactors > 9 || limit <= 0)
    return -1;
  acs_sched_opts_defaults(&acs_sched_gang, &o);
  acs_diag_init(&d);
  if (acs_gang_ctx_init(&c, g, p, &d) < 0)
    return -1;
  if (acs_gang_partition_ilp(&c, &o, limit, &pt, &lower, &d) == ACS_OK)
    acs_gang_part_free(&pt);
  acs_gang_ctx_free(&c);
  return lower;
}

/* A graph loaded and bound to platform p. */
struct loaded {
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
};

static void load(const char *path, const struct acs_platform *p, struct loaded *l)
{
  struct acs_diag d;

  acs_diag_init(&d);
  if (acs_workload_load(path, &l->w, &d) < 0 || acs_workload_build(l->w, p, &l->g, &d) < 0 ||
      acs_problem_init(&l->pb, &l->g, p, &d) < 0)
    die(path, &d);
  acs_workload_bind(l->w, &l->pb);
}

static void unload(struct loaded *l)
{
  acs_problem_destroy(&l->pb);
  acs_graph_destroy(&l->g);
  acs_workload_free(l->w);
}

static double graph_heuristic(const struct bench *b, const char *path, double *gap)
{
  struct acs_workload *w;
  struct acs_diag d;
  double ms;

  acs_diag_init(&d);
  if (acs_workload_load(path, &w, &d) < 0)
    die(path, &d);
  ms = heuristic_ms(w->model, &b->isp4, b->reps, gap);
  acs_workload_free(w);
  return ms;
}

/* ---- 1. the thesis's graphs ---- */

static void thesis_graphs(const struct bench *b)
{
  double heur[NREF(thesis)], gap[NREF(thesis)], sum = 0, worst = HUGE_VAL;
  char path[4096];

  for (size_t i = 0; i < NREF(thesis); i++) {
    snprintf(path, sizeof(path), "%s/workloads/sdf/%s.xml", b->src, thesis[i].name);
    heur[i] = graph_heuristic(b, path, &gap[i]);
  }
  printf("1. seed 004 benchmark graphs on %s (%s makespans, cycles; was: the thesis's heuristic alone)\n",
         b->isp4.name, b->sim ? "SimGrid-simulated" : "planned");
  printf("%-13s %8s %8s %6s %11s %11s %11s %11s %11s %7s %8s %9s\n", "graph", "heur ms",
         "was ms", "run s", "gang", "gang was", "tiling", "naive-list", "sequential", "vs til",
         "per.gap", "ILP gap");
  for (size_t i = 0; i < NREF(thesis); i++) {
    struct loaded l;
    double ms[NVAR], run_s[NVAR], red;
    int64_t planned[NVAR], lower;
    snprintf(path, sizeof(path), "%s/workloads/sdf/%s.xml", b->src, thesis[i].name);
    load(path, &b->isp4, &l);
    for (int v = 0; v < NVAR; v++) {
      run_variant(variants[v], &l.pb, b->sim, &run_s[v], &planned[v], &ms[v], NULL, 0);
      if (!b->sim)
        ms[v] = (double)planned[v];
    }
    lower = ilp_bound(l.w->model, &b->isp4, b->ilp_limit);
    red = 1.0 - ms[0] / ms[1];
    sum += red;
    worst = red < worst ? red : worst;
    printf("%-13s %8.2f %8.2f %6.2f %11.0f %11lld %11.0f %11.0f %11.0f %6.1f%% %7.2f%%", thesis[i].name,
           heur[i], thesis[i].heur_ms, run_s[0], ms[0], (long long)thesis[i].gang, ms[1], ms[2],
           ms[3], 100.0 * red, gap[i]);
    if (lower > 0)
      printf(" %8.3f%%\n", 100.0 * ((double)planned[0] - (double)lower) / (double)lower);
    else
      printf(" %9s\n", "-");
    unload(&l);
  }
  printf("gang below tiling: %.1f%% on average, %.1f%% at least (thesis: 33%% on average)\n\n",
         100.0 * sum / (double)NREF(thesis), 100.0 * worst);
}

/* ---- 2. SDF3 testbench graphs ---- */

static void sdf3_graphs(const struct bench *b)
{
  char path[4096];

  printf("2. SDF3 testbench graphs on %s (planned makespans, cycles; \"-\" infeasible)\n",
         b->isp4.name);
  printf("%-32s %8s %11s %11s %11s %11s %11s %-9s\n", "graph", "heur ms", "gang", "gang was",
         "tiling", "naive-list", "sequential", "kept");
  for (size_t i = 0; i < NREF(sdf3); i++) {
    struct loaded l;
    double sim, run_s, gap = 0, heur = -1;
    int64_t planned[NVAR];
    char mode[16] = "-";
    snprintf(path, sizeof(path), "%s/tests/data/sdf/%s.xml", b->src, sdf3[i].name);
    load(path, &b->isp4, &l);
    for (int v = 0; v < NVAR; v++)
      run_variant(variants[v], &l.pb, 0, &run_s, &planned[v], &sim, v == 0 ? mode : NULL,
                  sizeof(mode));
    if (planned[0] >= 0)
      heur = graph_heuristic(b, path, &gap);
    printf("%-32s %8.2f", sdf3[i].name, heur);
    for (int v = 0; v < NVAR; v++) {
      printf(" %11lld", (long long)planned[v]);
      if (v == 0)
        printf(" %11lld", (long long)sdf3[i].gang);
    }
    printf(" %-9s\n", planned[0] >= 0 ? mode : "-");
    unload(&l);
  }
  printf("\n");
}

/* ---- 3. planned against simulated ---- */

static void plan_vs_sim(const struct bench *b)
{
  static const char *const sets[3][3] = {
    { NULL }, { "dma_channels=2", NULL }, { "dma_channels=3", "ddr_ratio=4", NULL },
  };
  static const char *const names[3] = { "isp4", "isp4, 2 DMA channels", "isp4, 3 DMA, ddr_ratio 4" };
  char path[4096];

  if (!b->sim)
    return;
  printf("3. simulated / planned - 1 over every shipped graph (the worst; all variants verified)\n");
  printf("%-26s %12s %12s %12s %12s\n", "platform", variants[0], variants[1], variants[2],
         variants[3]);
  for (int k = 0; k < 3; k++) {
    struct acs_platform p = b->isp4;
    struct acs_diag d;
    double worst[NVAR] = { 0 };
    acs_diag_init(&d);
    for (const char *const *kv = sets[k]; *kv; kv++)
      if (acs_platform_set_kv(&p, *kv, &d) < 0)
        die(*kv, &d);
    for (size_t i = 0; i < NREF(thesis) + NREF(sdf3); i++) {
      struct loaded l;
      if (i < NREF(thesis))
        snprintf(path, sizeof(path), "%s/workloads/sdf/%s.xml", b->src, thesis[i].name);
      else
        snprintf(path, sizeof(path), "%s/tests/data/sdf/%s.xml", b->src, sdf3[i - NREF(thesis)].name);
      load(path, &p, &l);
      for (int v = 0; v < NVAR; v++) {
        double sim, run_s, dev;
        int64_t planned;
        run_variant(variants[v], &l.pb, 1, &run_s, &planned, &sim, NULL, 0);
        dev = planned > 0 ? fabs(sim / (double)planned - 1.0) : 0;
        if (dev > worst[v])
          worst[v] = dev;
      }
      unload(&l);
    }
    printf("%-26s", names[k]);
    for (int v = 0; v < NVAR; v++)
      printf(" %11.3f%%", 100.0 * worst[v]);
    printf("\n");
  }
  printf("\n");
}

/* ---- 4. random graphs ---- */

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void random_sweep(const struct bench *b)
{
  static const char *const sets[5][3] = {
    { NULL }, { "dma_channels=2", NULL }, { "pe_count=2", NULL },
    { "pe_vmem_kib=32", NULL }, { "dma_channels=3", "ddr_ratio=4", NULL },
  };
  static const char *const modes[] = { "pipelined", "whole", "tiled", "dynamic" };
  static char xml[65536];
  char path[4096];
  int ok[NVAR] = { 0 }, infeasible[NVAR] = { 0 }, errors[NVAR] = { 0 }, behind = 0, compared = 0;
  int below = 0, kept[4] = { 0 };
  double logsum = 0, worst = 1, *secs = calloc((size_t)b->sweep + 1, sizeof(double));

  if (!secs || b->sweep <= 0) {
    free(secs);
    return;
  }
  snprintf(path, sizeof(path), "/tmp/bench-gang-%ld.xml", (long)getpid());
  for (int n = 1; n <= b->sweep; n++) {
    struct acs_platform p = b->isp4;
    struct sdfgen_outcome o;
    struct acs_diag d;
    int64_t best;
    FILE *f;
    acs_diag_init(&d);
    for (const char *const *kv = sets[n % 5]; *kv; kv++)
      acs_platform_set_kv(&p, *kv, &d);
    if (sdfgen_xml((uint64_t)n + 100000, 1500, xml, sizeof(xml)) < 0 || !(f = fopen(path, "w")))
      die("writing a random graph", NULL);
    fputs(xml, f);
    fclose(f);
    if (sdfgen_run(path, &p, &o) < 0)
      die(path, &o.load);
    for (int v = 0; v < NVAR; v++) {
      ok[v] += o.err[v] == ACS_OK;
      infeasible[v] += o.err[v] == ACS_EINFEASIBLE;
      errors[v] += o.err[v] != ACS_OK && o.err[v] != ACS_EINFEASIBLE;
    }
    secs[n - 1] = o.seconds[0];
    if ((best = sdfgen_best_baseline(&o)) < 0)
      continue;
    compared++;
    if (o.err[0] != ACS_OK || o.makespan[0] > best) {
      behind++;
      continue;
    }
    below += o.makespan[0] < best;
    logsum += log((double)o.makespan[0] / (double)best);
    if ((double)o.makespan[0] / (double)best < worst)
      worst = (double)o.makespan[0] / (double)best;
    for (int m = 0; m < 4; m++)
      kept[m] += strcmp(o.gang_mode, modes[m]) == 0;
  }
  remove(path);
  qsort(secs, (size_t)b->sweep, sizeof(double), cmp_double);
  printf("4. %d random SDF/CSDF graphs (tests/sdfgen.c, seeds 100001..) on isp4 and 4 variations\n",
         b->sweep);
  printf("%-12s %6s %10s %6s\n", "variant", "ok", "infeasible", "error");
  for (int v = 0; v < NVAR; v++)
    printf("%-12s %6d %10d %6d\n", sdfgen_variants[v], ok[v], infeasible[v], errors[v]);
  printf("gang behind the best baseline: %d of %d graphs with a baseline plan; strictly below on %d;\n"
         "gang / best baseline: geometric mean %.3f, best %.3f\n", behind, compared, below,
         compared > behind ? exp(logsum / (compared - behind)) : 1.0, worst);
  printf("gang kept (its first gang): pipelined %d, whole %d, tiled %d, dynamic %d\n", kept[0],
         kept[1], kept[2], kept[3]);
  printf("gang's whole variant (heuristic, plan, checks, lowering), CPU ms: median %.2f, "
         "99th percentile %.2f, max %.2f\n\n", 1e3 * secs[b->sweep / 2],
         1e3 * secs[(b->sweep * 99) / 100], 1e3 * secs[b->sweep - 1]);
  free(secs);
}

int main(int argc, char **argv)
{
  struct bench b;
  struct acs_platform *rows;
  size_t n;
  struct acs_diag d;
  char path[4096];

  memset(&b, 0, sizeof(b));
  b.src = ACS_SRCDIR;
  b.sim = 1;
  b.reps = 20;
  b.sweep = 2000;
  b.ilp_limit = 30.0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--no-sim") == 0)
      b.sim = 0;
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      b.reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--ilp") == 0 && i + 1 < argc)
      b.ilp_limit = atof(argv[++i]);
    else if (strcmp(argv[i], "--sweep") == 0 && i + 1 < argc)
      b.sweep = atoi(argv[++i]);
    else
      b.src = argv[i];
  }
  if (b.reps < 1)
    b.reps = 1;
  snprintf(path, sizeof(path), "%s/platforms/isp4.csv", b.src);
  acs_diag_init(&d);
  if (acs_platform_load(path, &rows, &n, &d) < 0)
    die(path, &d);
  b.isp4 = rows[0];
  free(rows);
  thesis_graphs(&b);
  sdf3_graphs(&b);
  plan_vs_sim(&b);
  random_sweep(&b);
  printf("heur ms: the heuristic's CPU time, best of %d, measured before any variant runs "
         "(thesis: at most 54 ms);\nrun s: the whole variant incl. every firing, transfer and "
         "buffer of the run, the checks and the lowering.\nper.gap: the worst gap of a gang's "
         "period to its eq. 5.1 bound; ILP gap: gang's planned\nmakespan above the partition "
         "ILP's proven lower bound (graphs of at most 9 actors).\n", b.reps);
  return 0;
}
