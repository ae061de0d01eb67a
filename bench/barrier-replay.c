/*
 * barrier-replay.c - the barrier pass on real schedules: every schedule
 * stored in a results file (runs without a barrier limit, e.g. from
 * `acsim run -w W -s S --no-sim -o F.h5`), under each barrier count given.
 *
 * usage: barrier-replay FILE.h5 SLOTS B1 [B2 ...]
 *
 * For each stored run and each barrier count B it runs the pass with
 * barrier_slots = SLOTS (0 = unlimited), verifies the result, and prints
 * the planned makespan against the run's own (the ratio the trade study
 * sees), the pass time (wall-clock and CPU seconds) and the verifier's, the edges added and the barriers
 * used. With BENCH_STATS set it also prints what the pass did. Figures,
 * not tests.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "core/sched/npu/barrier.h"
#include "report/results.h"

static void stats(const struct acs_barrier_stats *st)
{
  printf("   edges %lld reduced %lld classes %d uses %d joins %d shares %d refused %d "
         "reuses %d steals %d waited %d attempts %lld blocked %lld starved %lld "
         "reuse+ %lld coprod+ %lld marker+ %lld retimed %d released %d policy %d sweeps %d\n",
         (long long)st->edges, (long long)st->reduced, st->classes, st->uses, st->joins,
         st->shares, st->refused_joins, st->reuses, st->steals, st->waited,
         (long long)st->attempts, (long long)st->blocked, (long long)st->starved,
         (long long)st->reuse_edges, (long long)st->coproducer_edges,
         (long long)st->marker_edges, st->retimed, st->released, st->policy, st->sweeps);
}

static int replay(const char *path, const struct acs_run_row *run, int32_t slots, int32_t b)
{
  struct acs_schedule s;
  struct acs_barrier_stats st;
  struct acs_schedule_stats ss;
  struct acs_diag d;
  double t0, c0, pass, cpu, verify;
  int64_t m0;
  int32_t e0;
  int err;

  acs_diag_init(&d);
  if ((err = acs_results_read_schedule(path, run->run_id, &s, &d)) < 0)
    return err == ACS_ENOTFOUND ? 0 : (fprintf(stderr, "%s\n", d.msg), 1);
  m0 = s.makespan;
  e0 = s.nedges;
  s.barriers = b;
  s.barrier_slots = slots;
  t0 = acs_now_seconds();
  c0 = bench_cpu_seconds();
  err = acs__barrier_run(&s, &st, 0, NULL, &d);
  pass = acs_now_seconds() - t0;
  cpu = bench_cpu_seconds() - c0;
  if (err < 0) {
    printf("%-24s %-10s %6d %5d %5d  %s: %s\n", run->scheduler, "", s.nops, b, slots,
           acs_strerror(err), d.msg);
    acs_schedule_destroy(&s);
    return err != ACS_EINFEASIBLE;
  }
  acs_diag_init(&d);
  t0 = acs_now_seconds();
  err = acs_schedule_verify(&s, &d);
  verify = acs_now_seconds() - t0;
  acs_schedule_stats(&s, &ss);
  printf("%-10s %6d %5d %5d %8.3f %8.3f %8.3f %5s %8d %5d %12lld %12lld %7.4f\n",
         run->scheduler, s.nops, b, slots, pass, cpu, verify, err == ACS_OK ? "ok" : "FAIL", s.nedges - e0,
         ss.barriers_used, (long long)m0, (long long)s.makespan,
         (double)s.makespan / (double)(m0 ? m0 : 1));
  if (err != ACS_OK)
    fprintf(stderr, "barrier-replay: verifier: %s\n", d.msg);
  if (getenv("BENCH_STATS"))
    stats(&st);
  acs_schedule_destroy(&s);
  return err != ACS_OK;
}

int main(int argc, char **argv)
{
  struct acs_results_data data;
  struct acs_diag d;
  int32_t slots;
  int fails = 0;

  if (argc < 4) {
    fprintf(stderr, "usage: barrier-replay FILE.h5 SLOTS B1 [B2 ...]\n");
    return 2;
  }
  slots = (int32_t)strtol(argv[2], NULL, 10);
  acs_diag_init(&d);
  if (acs_results_read(argv[1], &data, &d) < 0) {
    fprintf(stderr, "barrier-replay: %s\n", d.msg);
    return 2;
  }
  printf("%-10s %6s %5s %5s %8s %8s %8s %5s %8s %5s %12s %12s %7s\n", "scheduler", "ops",
         "b", "slots", "pass_s", "pass_cpu", "verify_s", "ok", "edges+", "used", "makespan0", "makespan",
         "ratio");
  for (size_t r = 0; r < data.nruns; r++) {
    const struct acs_workload_row *w = NULL;
    for (size_t k = 0; k < data.nworkloads; k++)
      if (data.workloads[k].workload_id == data.runs[r].workload_id)
        w = &data.workloads[k];
    printf("# run %lld: %s\n", (long long)data.runs[r].run_id, w ? w->name : "?");
    for (int i = 3; i < argc; i++)
      fails += replay(argv[1], &data.runs[r], slots, (int32_t)strtol(argv[i], NULL, 10));
  }
  acs_results_data_free(&data);
  return fails != 0;
}
