/*
 * bench-gang.c - the SDF family on the six benchmark graphs of seed 004
 * (workloads/sdf/) on platforms/isp4.csv: scheduling time of the gang
 * heuristic side by side with the thesis's (at most 54 ms on a 2015 laptop
 * CPU), and the simulated makespans of gang, tiling, naive-list and
 * sequential side by side, with the reduction against tiling (the thesis:
 * 33% on average), the gap of each gang's period to its eq. 5.1 bound, and
 * the gap to the exact partition ILP's lower bound where it solves.
 *
 * "heur ms" is the CPU time of the heuristic itself: partition search,
 * mapping, per-gang retiming and buffer sizing, the control program (the
 * thesis's scheduler), the minimum over REPS runs. "run s" is the whole
 * variant as `acsim run` calls it: the heuristic plus materialising every
 * firing, transfer and buffer of the run (tens of thousands), the family's
 * checker, the control program check, and the lowering to the common
 * schedule. Makespans are simulated by SimGrid (--no-sim: planned only).
 * The heuristic is timed for every graph first, before any variant runs.
 *
 * Usage: bench-gang [--no-sim] [--reps N] [--ilp SEC] [SRCDIR]
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/load/load.h"
#include "core/sched/gang/gang.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"

static const char *const graphs[] = { "histeq", "difference", "canny", "hdr", "verification", "hdr2" };
static const char *const variants[] = { "gang", "tiling", "naive-list", "sequential" };

static double cpu_seconds(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct bench {
  const char *src;
  int sim, reps;
  double ilp_limit;
};

/* The heuristic alone: context, partition, control program tables. */
static double heuristic_ms(const struct acs_sdf_graph *g, const struct acs_platform *p, int reps,
                           int *ngangs, double *worst_gap)
{
  double best = HUGE_VAL;

  for (int r = 0; r < reps; r++) {
    struct gx_gang_opts o;
    struct gx_ctx c;
    struct gx_part pt;
    struct acs_schedule s;
    struct acs_diag d;
    double t0 = cpu_seconds(), t;
    acs_sched_opts_defaults(&acs_sched_gang, &o);
    acs_diag_init(&d);
    acs_schedule_init(&s);
    if (gx_ctx_init(&c, g, p, &d) < 0 || gx_partition(&c, &o, 0, &pt, &d) < 0 ||
        gx_part_tables(&c, &pt, &s) < 0) {
      fprintf(stderr, "bench-gang: %s: %s\n", g->name, d.msg);
      exit(1);
    }
    t = cpu_seconds() - t0;
    if (t < best)
      best = t;
    *ngangs = pt.ngangs;
    *worst_gap = 0;
    for (int32_t i = 0; i < pt.ngangs; i++) {
      const struct gx_gang *gg = &pt.gangs[i];
      double gap = gg->L > 0 && gg->Pstar > 0 ? 100.0 * (double)(gg->P - gg->Pstar) / (double)gg->Pstar : 0;
      if (gap > *worst_gap)
        *worst_gap = gap;
    }
    gx_part_free(&pt);
    gx_ctx_free(&c);
    acs_schedule_destroy(&s);
  }
  return 1e3 * best;
}

/* One variant end to end; the simulated (or planned) makespan. */
static double run_variant(const char *name, struct acs_problem *pb, const struct bench *b,
                          double *run_s, int64_t *planned)
{
  const struct acs_sched_ops *ops = acs_sched_find(name);
  struct acs_sched_ctx ctx = { 1, 0, NULL };
  struct acs_schedule s;
  struct acs_diag d;
  char opts[4096];
  double t0, ms;
  int err;

  acs_diag_init(&d);
  if (!ops || ops->opts_size > sizeof(opts) || acs_sched_opts_defaults(ops, opts) < 0 ||
      acs_schedule_init_problem(&s, pb) < 0) {
    fprintf(stderr, "bench-gang: cannot set up %s\n", name);
    exit(1);
  }
  t0 = cpu_seconds();
  err = ops->schedule(pb, opts, &ctx, &s, &d);
  *run_s = cpu_seconds() - t0;
  if (err < 0 || acs_schedule_verify(&s, &d) < 0) {
    fprintf(stderr, "bench-gang: %s: %s: %s\n", name, acs_strerror(err), d.msg);
    exit(1);
  }
  *planned = s.makespan;
  ms = (double)s.makespan;
  if (b->sim) {
    struct acs_sim_result r;
    if (acs_sim_run(&pb->plat, &s, NULL, &r, &d) < 0) {
      fprintf(stderr, "bench-gang: simulating %s: %s\n", name, d.msg);
      exit(1);
    }
    ms = r.makespan_cycles;
  }
  acs_schedule_destroy(&s);
  return ms;
}

/* The ILP's lower bound (-1: not proven within the limit). */
static int64_t ilp_bound(const struct acs_sdf_graph *g, const struct acs_platform *p, double limit)
{
  struct gx_gang_opts o;
  struct gx_ctx c;
  struct gx_part pt;
  struct acs_diag d;
  int64_t lower = -1;

  if (g->nactors > 9 || limit <= 0)
    return -1;
  acs_sched_opts_defaults(&acs_sched_gang, &o);
  acs_diag_init(&d);
  if (gx_ctx_init(&c, g, p, &d) < 0)
    return -1;
  if (gx_partition_ilp(&c, &o, limit, &pt, &lower, &d) == ACS_OK)
    gx_part_free(&pt);
  gx_ctx_free(&c);
  return lower;
}

/* The heuristic's time on graph `name`, measured before any variant runs:
 * SimGrid's processes and the heap of tens of thousands of ops would
 * otherwise weigh on it. */
static double graph_heuristic_ms(const struct bench *b, const struct acs_platform *p,
                                 const char *name, int *ngangs, double *gap)
{
  char path[4096];
  struct acs_workload *w;
  struct acs_diag d;
  double ms;

  snprintf(path, sizeof(path), "%s/workloads/sdf/%s.xml", b->src, name);
  acs_diag_init(&d);
  if (acs_workload_load(path, &w, &d) < 0) {
    fprintf(stderr, "bench-gang: %s: %s\n", path, d.msg);
    exit(1);
  }
  ms = heuristic_ms(w->model, p, b->reps, ngangs, gap);
  acs_workload_free(w);
  return ms;
}

static void one_graph(const struct bench *b, const struct acs_platform *p, const char *name,
                      double heur, int ngangs, double gap, double *reduction)
{
  char path[4096];
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_diag d;
  double ms[4], run_s[4];
  int64_t planned[4], lower;

  snprintf(path, sizeof(path), "%s/workloads/sdf/%s.xml", b->src, name);
  acs_diag_init(&d);
  if (acs_workload_load(path, &w, &d) < 0 || acs_workload_build(w, p, &g, &d) < 0 ||
      acs_problem_init(&pb, &g, p, &d) < 0) {
    fprintf(stderr, "bench-gang: %s: %s\n", path, d.msg);
    exit(1);
  }
  pb.wl = w;
  for (int v = 0; v < 4; v++)
    ms[v] = run_variant(variants[v], &pb, b, &run_s[v], &planned[v]);
  lower = ilp_bound(w->model, p, b->ilp_limit);
  *reduction = 1.0 - ms[0] / ms[1];
  printf("%-13s %4d %6lld %5d %8.2f %6.2f %11.0f %11.0f %11.0f %11.0f %6.1f%% %7.2f%%",
         name, (int)((const struct acs_sdf_graph *)w->model)->nactors,
         (long long)((const struct acs_sdf_graph *)w->model)->total_firings, ngangs, heur,
         run_s[0], ms[0], ms[1], ms[2], ms[3], 100.0 * *reduction, gap);
  if (lower > 0)
    printf(" %8.3f%%\n", 100.0 * ((double)planned[0] - (double)lower) / (double)lower);
  else
    printf(" %9s\n", "-");
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

int main(int argc, char **argv)
{
  struct bench b = { ACS_SRCDIR, 1, 20, 30.0 };
  struct acs_platform *rows;
  size_t n;
  struct acs_diag d;
  char path[4096];
  double sum = 0, worst = HUGE_VAL, heur[sizeof(graphs) / sizeof(graphs[0])];
  double gap[sizeof(graphs) / sizeof(graphs[0])];
  int ngangs[sizeof(graphs) / sizeof(graphs[0])];

  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--no-sim") == 0)
      b.sim = 0;
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      b.reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--ilp") == 0 && i + 1 < argc)
      b.ilp_limit = atof(argv[++i]);
    else
      b.src = argv[i];
  }
  if (b.reps < 1)
    b.reps = 1;
  snprintf(path, sizeof(path), "%s/platforms/isp4.csv", b.src);
  acs_diag_init(&d);
  if (acs_platform_load(path, &rows, &n, &d) < 0) {
    fprintf(stderr, "bench-gang: %s: %s\n", path, d.msg);
    return 1;
  }
  for (size_t i = 0; i < sizeof(graphs) / sizeof(graphs[0]); i++)
    heur[i] = graph_heuristic_ms(&b, &rows[0], graphs[i], &ngangs[i], &gap[i]);
  printf("bench-gang: seed 004 benchmark graphs on %s (%s makespans, cycles)\n", rows[0].name,
         b.sim ? "SimGrid-simulated" : "planned");
  printf("%-13s %4s %6s %5s %8s %6s %11s %11s %11s %11s %7s %8s %9s\n", "graph", "act", "fire",
         "gangs", "heur ms", "run s", "gang", "tiling", "naive-list", "sequential", "vs til",
         "per.gap", "ILP gap");
  for (size_t i = 0; i < sizeof(graphs) / sizeof(graphs[0]); i++) {
    double red;
    one_graph(&b, &rows[0], graphs[i], heur[i], ngangs[i], gap[i], &red);
    sum += red;
    if (red < worst)
      worst = red;
  }
  printf("gang below tiling: %.1f%% on average, %.1f%% at least (thesis: 33%% on average)\n",
         100.0 * sum / 6, 100.0 * worst);
  printf("heur ms: the heuristic's CPU time, best of %d, measured first (thesis: at most 54 ms);\n"
         "run s: the whole "
         "variant incl. every firing, transfer and buffer of the run, the checks and the lowering.\n"
         "per.gap: the worst gap of a gang's period to its eq. 5.1 bound; ILP gap: gang's planned\n"
         "makespan above the partition ILP's proven lower bound (graphs of at most 9 actors).\n",
         b.reps);
  free(rows);
  return 0;
}
