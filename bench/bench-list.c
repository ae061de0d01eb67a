/*
 * bench-list.c - `list` on random layered DNN-like DAGs of 10^3 to 10^6 ops.
 *
 * usage: bench-list [MAX_OPS] [SEED]
 *
 * For each size and each priority rule (other options at their defaults) it
 * prints the time to build the graph, the time to schedule, ops per second
 * and the peak resident memory. Every measurement runs in its own forked
 * process so that ru_maxrss, which only ever grows, is the peak of that one
 * graph and schedule. The schedules are verified (outside the timed part).
 * These are figures, not tests: the target is 10^6 ops in under 5 s with the
 * default rule.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/benchutil.h"

/* The default configuration first, then each other rule, then the default
 * rule without forward-backward improvement (which only runs on graphs of
 * at most 20000 ops) to show what the improvement costs. */
static const char *const configs[][3] = {
  { "rule=lft", NULL }, { "rule=lpath", NULL }, { "rule=topo", NULL },
  { "rule=mts", NULL }, { "rule=lft", "justify=0", NULL },
};

static int measure(int32_t n, uint64_t seed, const char *const *sets)
{
  char rule[32];
  struct acs_graph g;
  struct acs_platform plat;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  double t0, build, sched = 0, rss_graph, verify;
  int err;

  snprintf(rule, sizeof(rule), "%s%s", sets[0] + 5, sets[1] ? ",j=0" : "");
  acs_diag_init(&d);
  acs_platform_init(&plat);
  t0 = acs_now_seconds();
  err = bench_layered_dag(&g, seed, n, acs_platform_cmx_bytes(&plat) / 3, &d);
  if (err == ACS_OK)
    err = acs_problem_init(&pb, &g, &plat, &d);
  build = acs_now_seconds() - t0;
  rss_graph = bench_peak_rss_mib();
  if (err != ACS_OK) {
    fprintf(stderr, "bench-list: building %d ops: %s\n", n, d.msg);
    return 1;
  }
  err = bench_run("list", &pb, sets, &s, &sched, &d);
  if (err != ACS_OK) {
    fprintf(stderr, "bench-list: %d ops, %s: %s %s\n", n, rule, acs_strerror(err), d.msg);
    return 1;
  }
  t0 = acs_now_seconds();
  err = acs_schedule_verify(&s, &d);
  verify = acs_now_seconds() - t0;
  printf("%9d %8lld %-7s %8.3f %8.3f %12.0f %10lld %10lld %9.1f %9.1f %8.3f %s\n",
         n, (long long)g.nedges, rule, build, sched, (double)n / (sched > 0 ? sched : 1e-9),
         (long long)s.makespan, (long long)acs_bound_best(&pb), rss_graph,
         bench_peak_rss_mib(), verify, err == ACS_OK ? "ok" : d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  return err == ACS_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
  long max = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  int failed = 0;

  printf("# list scheduler on random layered DAGs (default platform: 4 PEs, 2 DMA, 2 MiB CMX)\n");
  printf("# rss_graph: peak MiB after building the graph; rss_peak: after scheduling too\n");
  printf("%9s %8s %-7s %8s %8s %12s %10s %10s %9s %9s %8s %s\n", "ops", "edges", "rule",
         "build_s", "sched_s", "ops_per_s", "makespan", "bound", "rss_graph", "rss_peak",
         "verify_s", "verified");
  fflush(stdout);
  for (long n = 1000; n <= max; n *= 10)
    for (size_t r = 0; r < sizeof(configs) / sizeof(configs[0]); r++) {
      pid_t pid = fork();
      int status;
      if (pid < 0) {
        perror("fork");
        return 1;
      }
      if (pid == 0) {
        int rc = measure((int32_t)n, seed, configs[r]);
        fflush(stdout);
        _exit(rc);
      }
      if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        failed = 1;
    }
  return failed;
}
