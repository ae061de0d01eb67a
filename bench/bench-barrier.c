/*
 * bench-barrier.c - the barrier pass and the verifier on random layered
 * DNN-like DAGs of 10^3, 10^4, 2 * 10^4 and 10^5 ops.
 *
 * usage: bench-barrier [MAX_OPS] [SEED]
 *
 * For each size and barrier count (barrier_slots 0 = unlimited, and 8) it
 * schedules the graph with `list` (default options), then prints the time
 * of the barrier pass (acs_barrier_pass: preparation, sweeps, re-timing)
 * on one thread, in wall-clock and CPU seconds (on a shared machine the
 * second does not depend on the load), then its wall-clock and CPU seconds
 * with the threads it takes by default (up to the online CPUs; BENCH_THREADS=n
 * sets them) beside, the program checked to be the same,
 * the time of the verifier on the result (every check, barrier program and
 * Dilworth bound included), the edges the pass added, the barriers used and
 * the planned makespan before and after. With BENCH_STATS set in the
 * environment it also prints what the pass did (acs_barrier_stats) and the
 * producers and consumers per use of the program read back; BENCH_B=b
 * measures that barrier count only. The last column is a hash of the
 * program and times (starts, update barriers, waits, edges): two builds
 * chose the same program when it matches. Figures, not tests.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench/benchutil.h"
#include "core/model/bprog.h"
#include "core/sched/npu/barrier.h"

static int32_t barriers_used(const struct acs_schedule *s)
{
  struct acs_schedule_stats st;

  acs_schedule_stats(s, &st);
  return st.barriers_used;
}

static void print_stats(const struct acs_barrier_stats *st)
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

/* FNV-1a over the starts, update barriers, waits and edges of s. */
static uint64_t program_hash(const struct acs_schedule *s)
{
  uint64_t h = 1469598103934665603u;
  int64_t x[3];

  for (int32_t i = 0; i < s->nops + s->nwaits + s->nedges; i++) {
    if (i < s->nops) {
      x[0] = s->ops[i].start, x[1] = s->ops[i].update_barrier, x[2] = s->ops[i].unit;
    } else if (i < s->nops + s->nwaits) {
      const struct acs_wait *w = &s->waits[i - s->nops];
      x[0] = w->op, x[1] = w->barrier, x[2] = -2;
    } else {
      const struct acs_edge *e = &s->edges[i - s->nops - s->nwaits];
      x[0] = e->src, x[1] = e->dst, x[2] = e->kind;
    }
    for (int k = 0; k < 3; k++)
      for (int j = 0; j < 8; j++)
        h = (h ^ (uint8_t)((uint64_t)x[k] >> (8 * j))) * 1099511628211u;
  }
  return h;
}

/* Producers and consumers per use of the program, read back (bprog.h). */
static void print_uses(const struct acs_schedule *s)
{
  struct acs_bprog bp;
  int64_t sp = 0, sc = 0, mp = 0, mc = 0, pc = 0;

  if (acs_bprog_build(s, &bp) < 0)
    return;
  for (int32_t u = 0; u < bp.nuses; u++) {
    int64_t np = bp.prod_off[u + 1] - bp.prod_off[u], nc = bp.cons_off[u + 1] - bp.cons_off[u];
    sp += np, sc += nc, pc += np * nc;
    mp = np > mp ? np : mp;
    mc = nc > mc ? nc : mc;
  }
  printf("   uses %d: producers mean %.1f max %lld, consumers mean %.1f max %lld, "
         "producer-consumer pairs %lld\n", bp.nuses, (double)sp / (bp.nuses ? bp.nuses : 1),
         (long long)mp, (double)sc / (bp.nuses ? bp.nuses : 1), (long long)mc, (long long)pc);
  acs_bprog_destroy(&bp);
}

static int measure(const struct acs_problem *pb, int32_t b, int32_t p)
{
  struct acs_schedule s;
  struct acs_barrier_stats st;
  struct acs_diag d;
  struct acs_schedule s2;
  double t0, c0, pass, cpu, pass_n, cpu_n, verify;
  const char *env = getenv("BENCH_THREADS");
  int64_t m0;
  int32_t e0;
  int err, same;

  acs_diag_init(&d);
  if ((err = bench_run("list", pb, NULL, &s, &pass, &d)) < 0) {
    fprintf(stderr, "bench-barrier: list: %s %s\n", acs_strerror(err), d.msg);
    return 1;
  }
  m0 = s.makespan;
  e0 = s.nedges;
  s.barriers = b;
  s.barrier_slots = p;
  if (acs_schedule_copy(&s2, &s) < 0) {
    acs_schedule_destroy(&s);
    return 1;
  }
  t0 = acs_now_seconds();
  c0 = bench_cpu_seconds();
  err = acs__barrier_run(&s, &st, 1, NULL, &d);
  pass = acs_now_seconds() - t0;
  cpu = bench_cpu_seconds() - c0;
  t0 = acs_now_seconds();
  c0 = bench_cpu_seconds();
  if (err == ACS_OK)
    err = acs__barrier_run(&s2, NULL, env ? (int)strtol(env, NULL, 10) : 0, NULL, &d);
  pass_n = acs_now_seconds() - t0;
  cpu_n = bench_cpu_seconds() - c0;
  same = err == ACS_OK && program_hash(&s) == program_hash(&s2);
  acs_schedule_destroy(&s2);
  if (err < 0) {
    fprintf(stderr, "bench-barrier: pass: %s %s\n", acs_strerror(err), d.msg);
    acs_schedule_destroy(&s);
    return 1;
  }
  acs_diag_init(&d);
  t0 = acs_now_seconds();
  err = acs_schedule_verify(&s, &d);
  verify = acs_now_seconds() - t0;
  printf("%8d %4d %5d %9.3f %9.3f %9.3f %9.3f %9.3f %5s %9d %5d %12lld %12lld %6.3f %016llx\n",
         s.nops, b, p, pass, cpu, pass_n, cpu_n, verify,
         err == ACS_OK && same ? "ok" : "FAIL", s.nedges - e0, barriers_used(&s),
         (long long)m0, (long long)s.makespan, (double)s.makespan / (double)(m0 ? m0 : 1),
         (unsigned long long)program_hash(&s));
  if (err != ACS_OK)
    fprintf(stderr, "bench-barrier: verifier: %s\n", d.msg);
  if (!same)
    fprintf(stderr, "bench-barrier: %d ops, %d barriers: another program on more threads\n",
            s.nops, b);
  if (getenv("BENCH_STATS")) {
    print_stats(&st);
    print_uses(&s);
  }
  acs_schedule_destroy(&s);
  return err != ACS_OK;
}

int main(int argc, char **argv)
{
  static const int32_t sizes[] = {1000, 10000, 20000, 100000};
  static const int32_t counts[][2] = {{8, 0}, {32, 0}, {32, 256}, {256, 0}, {1024, 0}, {8, 8}};
  int32_t max = argc > 1 ? (int32_t)strtol(argv[1], NULL, 10) : 100000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  int32_t only_b = getenv("BENCH_B") ? (int32_t)strtol(getenv("BENCH_B"), NULL, 10) : 0;
  int fails = 0;

  printf("barrier pass (preparation, sweeps, re-timing) and verifier, random layered DAGs, "
         "list schedules on the default platform\n");
  printf("%8s %4s %5s %9s %9s %9s %9s %9s %5s %9s %5s %12s %12s %6s %16s\n", "ops", "b",
         "slots", "pass_s", "pass_cpu", "passN_s", "passN_cpu", "verify_s", "ok", "edges+", "used",
         "makespan0", "makespan", "ratio", "program");
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
      if (!only_b || only_b == counts[c][0])
        fails += measure(&pb, counts[c][0], counts[c][1]);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  return fails != 0;
}
