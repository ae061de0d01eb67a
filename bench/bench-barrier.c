/*
 * bench-barrier.c - the barrier pass and the verifier on random layered
 * DNN-like DAGs of 10^3, 10^4, 2 * 10^4 and 10^5 ops.
 *
 * usage: bench-barrier [MAX_OPS] [SEED]
 *
 * For each size and barrier count (barrier_slots 0 = unlimited, and 8) it
 * schedules the graph with `list` (default options), then prints the time
 * of the barrier pass (acs_barrier_pass: every candidate construction and
 * the re-timing), the time of the verifier on the result (every check,
 * barrier program included), whether the antichain bound was checked (the
 * verifier does it up to ACS_BARRIER_CHECK_MAX_OPS ops, linear checks
 * only above), the edges the pass added, the barriers used and the planned
 * makespan before and after. With BENCH_STATS set in the environment it
 * also prints the kept construction (limit, order) and its edge counts.
 * Figures, not tests.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench/benchutil.h"
#include "core/model/bprog.h"
#include "core/sched/barrier.h"

static void note(void *ctx, const char *file, int line, int col, const char *msg)
{
  (void)file, (void)line, (void)col, (void)msg;
  *(int *)ctx = 1;
}

static int32_t barriers_used(const struct acs_schedule *s)
{
  struct acs_schedule_stats st;

  acs_schedule_stats(s, &st);
  return st.barriers_used;
}

static int measure(const struct acs_problem *pb, int32_t b, int32_t p)
{
  struct acs_schedule s;
  struct acs_barrier_stats st;
  struct acs_diag d;
  double t0, pass, verify;
  int64_t m0;
  int32_t e0;
  int err, unchecked = 0;

  acs_diag_init(&d);
  if ((err = bench_run("list", pb, NULL, &s, &pass, &d)) < 0) {
    fprintf(stderr, "bench-barrier: list: %s %s\n", acs_strerror(err), d.msg);
    return 1;
  }
  m0 = s.makespan;
  e0 = s.nedges;
  s.barriers = b;
  s.barrier_slots = p;
  t0 = acs_now_seconds();
  err = acs__barrier_search(&s, &st, NULL, &d);
  pass = acs_now_seconds() - t0;
  if (err < 0) {
    fprintf(stderr, "bench-barrier: pass: %s %s\n", acs_strerror(err), d.msg);
    acs_schedule_destroy(&s);
    return 1;
  }
  acs_diag_init(&d);
  d.warn = note;
  d.warn_ctx = &unchecked;
  t0 = acs_now_seconds();
  err = acs_schedule_verify(&s, &d);
  verify = acs_now_seconds() - t0;
  printf("%8d %4d %5d %9.3f %9.3f %-9s %5s %9d %5d %12lld %12lld\n", s.nops, b, p, pass, verify,
         unchecked ? "linear" : "dilworth", err == ACS_OK ? "ok" : "FAIL",
         s.nedges - e0, barriers_used(&s), (long long)m0, (long long)s.makespan);
  if (err != ACS_OK)
    fprintf(stderr, "bench-barrier: verifier: %s\n", d.msg);
  if (getenv("BENCH_STATS"))
    printf("   limit %d mode %d uses %d joins %d reuse %lld coprod %lld retimed %d\n",
           st.limit, st.mode, st.uses, st.joins, (long long)st.reuse_edges,
           (long long)st.coproducer_edges, st.retimed);
  acs_schedule_destroy(&s);
  return err != ACS_OK;
}

int main(int argc, char **argv)
{
  static const int32_t sizes[] = {1000, 10000, 20000, 100000};
  static const int32_t counts[][2] = {{2, 0}, {8, 0}, {32, 0}, {8, 8}};
  int32_t max = argc > 1 ? (int32_t)strtol(argv[1], NULL, 10) : 100000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  int fails = 0;

  printf("barrier pass (every candidate, re-timing) and verifier, random layered DAGs, "
         "list schedules on the default platform\n");
  printf("%8s %4s %5s %9s %9s %-9s %5s %9s %5s %12s %12s\n", "ops", "b", "slots", "pass_s",
         "verify_s", "antichain", "ok", "edges+", "used", "makespan0", "makespan");
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && sizes[k] <= max; k++) {
    struct acs_graph g;
    struct acs_platform plat;
    struct acs_problem pb;
    struct acs_diag d;

    acs_diag_init(&d);
    acs_platform_init(&plat);
    if (bench_layered_dag(&g, seed, sizes[k], acs_platform_cmx_bytes(&plat) / 3, &d) < 0 ||
        acs_problem_init(&pb, &g, &plat, &d) < 0) {
      fprintf(stderr, "bench-barrier: building %d ops: %s\n", sizes[k], d.msg);
      return 1;
    }
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
      fails += measure(&pb, counts[c][0], counts[c][1]);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  return fails != 0;
}
