/*
 * bench-affine.c - figures of the affine family (seed 003; not tests).
 *
 * usage: bench-affine SRCDIR [N]
 *
 *  1. The program per shipped example: its size, the time to build and
 *     solve it (target: under 50 ms each), side by side with the time of
 *     isl's own scheduler in Feautrier mode on the same system, and both
 *     latencies at the file's parameter values. Best of 5, CPU time of
 *     this process (the machine is shared; CPU time is steadier than wall
 *     time).
 *  2. matmul at N (default 64, N^3 = 262,144 instances): build the instance
 *     DAG, schedule (program, checker, lowering), verify, simulate (target:
 *     lowering and simulation under 10 s), with `list` on the same DAG as the
 *     reference; wall and CPU time of each phase.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/benchutil.h"
#include "core/load/load.h"
#include "core/sched/affine/affine.h"
#include "simulate/sim.h"

static double cpu_seconds(void)
{
  struct timespec t;

  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- 1. the program ---- */

static int one_example(const char *src, const char *name)
{
  char path[1024];
  struct acs_sare *m;
  struct acs_diag d;
  double best_lp = 1e9, best_isl = 1e9;
  int64_t ours = -1, theirs = -1;
  int32_t cols = 0, rows = 0;
  int err;

  snprintf(path, sizeof(path), "%s/workloads/affine/%s.sare", src, name);
  acs_diag_init(&d);
  if ((err = acs_sare_read(path, &m, &d)) < 0) {
    fprintf(stderr, "%s: %s\n", path, d.msg);
    return err;
  }
  for (int rep = 0; rep < 5; rep++) {
    struct acs_affine_lp lp;
    struct acs_affine_sched s;
    double t0 = cpu_seconds();
    err = acs_affine_lp_build(m, NULL, &lp, &d);
    if (err == ACS_OK)
      err = acs_affine_solve(m->ctx, &lp, NULL, &s, &d);
    double t1 = cpu_seconds();
    if (err == ACS_OK) {
      acs_affine_latency(&s, m->value, &ours);
      acs_affine_sched_free(&s);
    }
    if (lp.rows) {
      cols = lp.ncols;
      rows = lp.nrows;
      acs_affine_lp_free(&lp);
    }
    double t2 = cpu_seconds();
    if (acs_affine_isl_feautrier(m, &s, &d) == ACS_OK)
      acs_affine_sched_free(&s);
    double t3 = cpu_seconds();
    acs_affine_isl_latency(m, NULL, &theirs, &d);
    best_lp = t1 - t0 < best_lp ? t1 - t0 : best_lp;
    best_isl = t3 - t2 < best_isl ? t3 - t2 : best_isl;
  }
  printf("%-16s %5d %5d %10.2f %12.2f %8.2f %9s %9s\n", name, cols, rows, best_lp * 1e3,
         best_isl * 1e3, best_isl > 0 ? best_lp / best_isl : 0.0,
         err == ACS_EINFEASIBLE ? "none" : (snprintf(path, sizeof(path), "%" PRId64, ours), path),
         theirs >= 0 ? (snprintf(path + 512, 512, "%" PRId64, theirs), path + 512) : "none");
  acs_sare_free(m);
  return ACS_OK;
}

static void programs(const char *src)
{
  static const char *const ex[] = {"matmul", "matvec", "matmul_systolic", "fir", "conv1d",
                                   "conv2d", "editdist", "prefix", "flatten"};

  printf("1. The Farkas program per example (best of 5, CPU ms; latency at the file's values)\n");
  printf("%-16s %5s %5s %10s %12s %8s %9s %9s\n", "example", "cols", "rows", "lp_ms",
         "isl_fea_ms", "lp/isl", "latency", "isl_lat");
  for (size_t k = 0; k < sizeof(ex) / sizeof(ex[0]); k++)
    one_example(src, ex[k]);
}

/* ---- 2. matmul at scale ---- */

struct clock2 {
  double wall, cpu;
};

static struct clock2 now2(void)
{
  return (struct clock2){acs_now_seconds(), cpu_seconds()};
}

static void phase(const char *what, struct clock2 a, struct clock2 b)
{
  printf("  %-34s %8.3f s wall %8.3f s cpu\n", what, b.wall - a.wall, b.cpu - a.cpu);
}

static int scale(const char *src, int64_t n)
{
  char spec[1024];
  struct acs_workload *w;
  struct acs_platform p;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s, ls;
  struct acs_sim_result r;
  struct acs_diag d;
  double sec;
  int err;

  snprintf(spec, sizeof(spec), "%s/workloads/affine/matmul.sare:N=%" PRId64, src, n);
  acs_diag_init(&d);
  acs_platform_init(&p);
  printf("\n2. matmul at N = %" PRId64 " on the default platform (%d PEs)\n", n,
         (int)acs_platform_get(&p, ACS_P_PE_COUNT));
  struct clock2 t0 = now2();
  if ((err = acs_workload_load(spec, &w, &d)) < 0 || (err = acs_workload_build(w, &p, &g, &d)) < 0 ||
      (err = acs_problem_init(&pb, &g, &p, &d)) < 0) {
    fprintf(stderr, "%s: %s\n", spec, d.msg);
    return err;
  }
  acs_workload_bind(w, &pb);
  struct clock2 t1 = now2();
  phase("instance DAG (read, enumerate, build)", t0, t1);
  printf("  %" PRId32 " ops, %" PRId32 " edges, peak RSS %.0f MiB\n", g.nops, g.nedges,
         bench_peak_rss_mib());
  const char *none[] = {NULL};
  struct clock2 t2 = now2();
  if ((err = bench_run("affine", &pb, none, &s, &sec, &d)) < 0) {
    fprintf(stderr, "affine: %s\n", d.msg);
    return err;
  }
  struct clock2 t3 = now2();
  phase("affine (program, check, lowering)", t2, t3);
  if ((err = acs_schedule_verify(&s, &d)) < 0)
    fprintf(stderr, "verify: %s\n", d.msg);
  struct clock2 t4 = now2();
  phase("verifier", t3, t4);
  if ((err = acs_sim_run(&p, &s, NULL, &r, &d)) < 0)
    fprintf(stderr, "simulate: %s\n", d.msg);
  struct clock2 t5 = now2();
  phase("simulation (SimGrid, child process)", t4, t5);
  printf("  lowering + simulation: %.3f s wall (target < 10 s); makespan %" PRId64
         ", simulated %.1f, %d ops simulated\n", (t3.wall - t2.wall) + (t5.wall - t4.wall),
         s.makespan, r.makespan_cycles, (int)r.ops_total);
  struct clock2 t6 = now2();
  if ((err = bench_run("list", &pb, none, &ls, &sec, &d)) < 0)
    fprintf(stderr, "list: %s\n", d.msg);
  struct clock2 t7 = now2();
  phase("reference: list on the same DAG", t6, t7);
  acs_schedule_finish(&ls);
  printf("  list makespan %" PRId64 " (affine %" PRId64 "); peak RSS %.0f MiB\n", ls.makespan,
         s.makespan, bench_peak_rss_mib());
  acs_schedule_destroy(&ls);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
  return ACS_OK;
}

int main(int argc, char **argv)
{
  const char *src = argc > 1 ? argv[1] : ".";
  int64_t n = argc > 2 ? strtoll(argv[2], NULL, 10) : 64;

  programs(src);
  return scale(src, n > 0 ? n : 64) < 0 ? 1 : 0;
}
