/*
 * bench-spill.c - figures of the `spill` variant (not tests).
 *
 * usage: bench-spill [OPS [SEED [key=value...]]] (options of the scale run)
 *
 *  1. Scale: a random layered DAG of OPS ops (default 10^5) with tensors,
 *     on a CMX small enough to force spills; prints the time to schedule
 *     (target: under 2 s for 10^5 ops), the spill traffic and the control
 *     edges (and the time to verify, outside the timed part).
 *  2. Spill bytes, DDR bytes, planned and simulated makespan against the CMX
 *     size for mobilenet_v1 and resnet18 (default platform otherwise).
 *  3. Placement: first fit against best fit (fragmentation, refusals for
 *     contiguity, spill traffic, makespan) over the DNN suite and CMX sizes.
 *  4. Policies: evict=lru/belady, clean=drop/write, lookahead, on the same.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "core/load/load.h"
#include "core/sched/npu/spill.h"
#include "simulate/sim.h"

static int run(const struct acs_problem *pb, const char *const *sets,
               struct acs_schedule *out, struct acs_spill_stats *st, double *sec,
               struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find("spill");
  void *opts = calloc(1, ops->opts_size + 1);
  double t0;
  int err;

  if (!opts)
    return ACS_ENOMEM;
  err = acs_sched_opts_defaults(ops, opts);
  for (; err == ACS_OK && sets && *sets; sets++) {
    char key[64];
    const char *eq = strchr(*sets, '=');
    snprintf(key, sizeof(key), "%.*s", eq ? (int)(eq - *sets) : 0, *sets);
    err = eq ? acs_sched_opts_set(ops, opts, key, eq + 1, d) : ACS_EINVAL;
  }
  if (err == ACS_OK)
    err = acs_schedule_init_problem(out, pb);
  if (err == ACS_OK) {
    t0 = acs_now_seconds();
    err = acs__spill_run(pb, opts, out, st, d);
    *sec = acs_now_seconds() - t0;
  }
  free(opts);
  return err;
}

/* ---- 1. scale ------------------------------------------------------------ */

/*
 * Layers of 16 to 256 ops. A quarter are weight-like loads (DDR to CMX, 1 to
 * 64 KiB, no predecessors); the others compute for 100 to 2000 cycles, read
 * 1 to 3 tensors of the previous layer and, one in eight, a tensor from up
 * to four layers back (long-lived tensors that have to be spilled), and
 * produce 1 to 64 KiB.
 */
static int scale_dag(struct acs_graph *g, uint64_t seed, int32_t n, struct acs_diag *d)
{
  struct acs_rng r;
  int32_t lo[5] = { 0 }, hi[5] = { 0 };
  char name[32];
  int err = acs_graph_init(g, "scale", "scale");

  acs_rng_seed(&r, seed);
  if (err == ACS_OK && (acs_graph_add_resource(g, "pe", ACS_RES_PE, 0) < 0 ||
                        acs_graph_add_resource(g, "dma", ACS_RES_DMA, 0) < 0 ||
                        acs_graph_add_resource(g, "cmx", ACS_RES_CMX, 0) < 0))
    err = ACS_ENOMEM;
  for (int32_t i = 0; err == ACS_OK && i < n;) {
    int32_t width = 16 + (int32_t)acs_rng_below(&r, 241), start = i;
    for (; err == ACS_OK && i < n && i < start + width; i++) {
      struct acs_op op;
      int load = hi[0] == 0 || acs_rng_below(&r, 4) == 0;
      int32_t id;
      memset(&op, 0, sizeof(op));
      snprintf(name, sizeof(name), "op%d", i);
      op.name = name;
      op.slots = 1;
      op.out_bytes = 1024 * (1 + (int64_t)acs_rng_below(&r, 64));
      op.kind = load ? ACS_OP_DMA : ACS_OP_DPU;
      op.cycles = load ? -1 : 100 + (int64_t)acs_rng_below(&r, 1901);
      op.bytes = load ? op.out_bytes : 0;
      op.src = load ? ACS_MEM_DDR : 0;
      op.dst = load ? ACS_MEM_CMX : 0;
      if ((id = acs_graph_add_op(g, &op)) < 0 ||
          acs_graph_set_demand(g, id, load ? 1 : 0, 1) < 0) {
        err = ACS_ENOMEM;
        break;
      }
      for (int32_t k = 0, np = load ? 0 : 1 + (int32_t)acs_rng_below(&r, 3); err == ACS_OK && k < np; k++)
        err = acs_graph_add_edge(g, lo[0] + (int32_t)acs_rng_below(&r, (uint64_t)(hi[0] - lo[0])), id,
                                 ACS_EDGE_DATA);
      if (err == ACS_OK && !load && hi[4] > lo[4] && acs_rng_below(&r, 8) == 0)
        err = acs_graph_add_edge(g, lo[4] + (int32_t)acs_rng_below(&r, (uint64_t)(hi[4] - lo[4])), id,
                                 ACS_EDGE_DATA);
    }
    memmove(lo + 1, lo, 4 * sizeof(*lo));
    memmove(hi + 1, hi, 4 * sizeof(*hi));
    lo[0] = start;
    hi[0] = i;
  }
  return err == ACS_OK ? acs_graph_finalize(g, d) : err;
}

static int bench_scale(int32_t n, uint64_t seed, const char *const *sets)
{
  struct acs_platform p;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_schedule_stats st;
  struct acs_spill_stats ss;
  struct acs_diag d;
  double sec = 0, t0;
  int err;

  acs_platform_init(&p);
  acs_diag_init(&d);
  acs_platform_set_kv(&p, "cmx_kib=512", &d);
  t0 = acs_now_seconds();
  if ((err = scale_dag(&g, seed, n, &d)) != ACS_OK || (err = acs_problem_init(&pb, &g, &p, &d)) != ACS_OK) {
    fprintf(stderr, "bench-spill: building: %s %s\n", acs_strerror(err), d.msg);
    return 1;
  }
  printf("== scale: %d ops, %d edges, 512 KiB CMX, default platform (built in %.3f s)\n",
         g.nops, g.nedges, acs_now_seconds() - t0);
  err = run(&pb, sets, &s, &ss, &sec, &d);
  if (err != ACS_OK) {
    fprintf(stderr, "bench-spill: %s %s\n", acs_strerror(err), d.msg);
    return 1;
  }
  acs_schedule_stats(&s, &st);
  printf("schedule %.3f s (control edges %.3f s of it), peak RSS %.0f MiB\n", sec,
         ss.ctrl_seconds, bench_peak_rss_mib());
  printf("spill ops %lld writes + %lld reads (%lld drops), spilled %.1f MiB, DDR %.1f MiB, "
         "makespan %lld\n", (long long)ss.writes, (long long)ss.reads, (long long)ss.drops,
         (double)st.spill_bytes / 1048576.0, (double)st.ddr_bytes / 1048576.0,
         (long long)st.makespan);
  printf("fragmentation %.4f (time-weighted 1 - largest gap / free), placements refused %lld, "
         "%lld of them with enough free bytes\n", ss.frag, (long long)ss.alloc_refused,
         (long long)ss.contig_refused);
  printf("control edges: %lld ranges, %lld pairs, %lld candidates, %lld implied (dropped), "
         "%lld added, %lld budget hits, %lld nodes visited\n", (long long)ss.ctrl.rects,
         (long long)ss.ctrl.pairs, (long long)ss.ctrl.candidates, (long long)ss.ctrl.implied,
         (long long)ss.ctrl.added, (long long)ss.ctrl.unknown, (long long)ss.ctrl.visited);
  t0 = acs_now_seconds();
  err = acs_schedule_verify(&s, &d);
  printf("verify %.3f s: %s\n\n", acs_now_seconds() - t0, err == ACS_OK ? "ok" : d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  return err == ACS_OK ? 0 : 1;
}

/* ---- DNN helpers ----------------------------------------------------------- */

struct outcome {
  int err;
  int64_t makespan, spill, ddr, added, ctrl;
  double sim, frag, sec;
  int64_t refused, contig;
  char msg[1100];
};

static void dnn_run(const struct acs_workload *w, int64_t kib, const char *const *sets, int sim,
                    struct outcome *o)
{
  struct acs_platform p;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_schedule_stats st;
  struct acs_spill_stats ss;
  struct acs_diag d;
  char set[40];
  double sec;

  memset(o, 0, sizeof(*o));
  o->sim = NAN;
  acs_platform_init(&p);
  acs_diag_init(&d);
  snprintf(set, sizeof(set), "cmx_kib=%lld", (long long)kib);
  acs_platform_set_kv(&p, set, &d);
  if ((o->err = acs_workload_build(w, &p, &g, &d)) != ACS_OK) {
    snprintf(o->msg, sizeof(o->msg), "%s", d.msg);
    return;
  }
  acs_problem_init(&pb, &g, &p, &d);
  o->err = run(&pb, sets, &s, &ss, &sec, &d);
  o->sec = sec;
  snprintf(o->msg, sizeof(o->msg), "%s", d.msg);
  if (o->err == ACS_OK && acs_schedule_verify(&s, &d) != ACS_OK) {
    o->err = ACS_EVERIFY;
    snprintf(o->msg, sizeof(o->msg), "verifier: %s", d.msg);
  }
  if (o->err == ACS_OK) {
    acs_schedule_stats(&s, &st);
    o->makespan = st.makespan;
    o->spill = st.spill_bytes;
    o->ddr = st.ddr_bytes;
    o->added = s.nops - s.norig;
    o->ctrl = st.control_edges;
    o->frag = ss.frag;
    o->refused = ss.alloc_refused;
    o->contig = ss.contig_refused;
    if (sim) {
      struct acs_sim_opts so;
      struct acs_sim_result sr;
      acs_sim_opts_init(&so);
      if (acs_sim_run(&p, &s, &so, &sr, &d) == ACS_OK)
        o->sim = sr.makespan_cycles;
    }
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

static struct acs_workload *load_net(const char *name)
{
  char path[512];
  struct acs_workload *w = NULL;
  struct acs_diag d;

  snprintf(path, sizeof(path), "%s/workloads/dnn/%s.csv", ACS_SRCDIR, name);
  acs_diag_init(&d);
  if (acs_workload_load(path, &w, &d) != ACS_OK) {
    fprintf(stderr, "bench-spill: %s: %s\n", path, d.msg);
    return NULL;
  }
  return w;
}

static const int64_t sizes[] = { 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* ---- 2. spill traffic against CMX size ------------------------------------ */

static int bench_sizes(const char *net, const char *const *sets)
{
  struct acs_workload *w = load_net(net);

  if (!w)
    return 1;
  printf("== %s, options:", net);
  for (const char *const *s = sets; s && *s; s++)
    printf(" %s", *s);
  printf("%s\n", sets && *sets ? "" : " defaults");
  printf("%8s %9s %12s %12s %6s %6s %12s %12s %6s\n", "cmx_kib", "status", "spill_B", "ddr_B",
         "added", "ctrl", "makespan", "simulated", "slow%");
  for (size_t k = 0; k < NSIZES; k++) {
    struct outcome o;
    dnn_run(w, sizes[k], sets, 1, &o);
    if (o.err != ACS_OK) {
      printf("%8lld %9s  %s\n", (long long)sizes[k], acs_err_name(o.err), o.msg);
      continue;
    }
    printf("%8lld %9s %12lld %12lld %6lld %6lld %12lld %12.0f %6.1f\n", (long long)sizes[k], "ok",
           (long long)o.spill, (long long)o.ddr, (long long)o.added, (long long)o.ctrl,
           (long long)o.makespan, o.sim, 100.0 * (o.sim / (double)o.makespan - 1.0));
  }
  printf("\n");
  acs_workload_free(w);
  return 0;
}

/* ---- 3 and 4. configurations over the suite -------------------------------- */

static const char *const nets[] = { "alexnet", "resnet18", "resnet50", "mobilenet_v1", "vgg16",
                                    "yolo" };
#define NNETS (sizeof(nets) / sizeof(nets[0]))

/* Sums over every (network, size) that schedules under every configuration,
 * so that the configurations are compared on the same runs. */
static int bench_configs(const char *title, const char *const configs[][4], int nconf)
{
  struct acs_workload *w[NNETS];
  double mk[10] = { 0 }, frag[10] = { 0 }, spill[10] = { 0 }, ddr[10] = { 0 }, sec[10] = { 0 };
  int64_t refused[10] = { 0 }, contig[10] = { 0 };
  int runs = 0;

  for (size_t n = 0; n < NNETS; n++)
    if (!(w[n] = load_net(nets[n])))
      return 1;
  for (size_t n = 0; n < NNETS; n++)
    for (size_t k = 0; k < NSIZES; k++) {
      struct outcome o[10];
      int ok = 1;
      for (int c = 0; c < nconf; c++) {
        dnn_run(w[n], sizes[k], configs[c], 0, &o[c]);
        ok &= o[c].err == ACS_OK;
      }
      if (!ok)
        continue;
      runs++;
      for (int c = 0; c < nconf; c++) {
        /* Makespans relative to the first configuration, so that large
         * networks do not dominate the average. */
        mk[c] += (double)o[c].makespan / (double)o[0].makespan;
        frag[c] += o[c].frag;
        spill[c] += (double)o[c].spill;
        ddr[c] += (double)o[c].ddr;
        refused[c] += o[c].refused;
        sec[c] += o[c].sec;
        contig[c] += o[c].contig;
      }
    }
  printf("== %s (%d runs: 6 networks x CMX 32 KiB..8 MiB, those all configurations schedule)\n",
         title, runs);
  printf("%-36s %9s %9s %12s %12s %10s %10s %8s\n", "configuration", "makespan", "frag",
         "spill_MiB", "ddr_MiB", "refused", "contig", "sched_s");
  for (int c = 0; c < nconf; c++) {
    char name[128] = "";
    for (int j = 0; configs[c][j]; j++)
      snprintf(name + strlen(name), sizeof(name) - strlen(name), "%s%s", j ? " " : "", configs[c][j]);
    printf("%-36s %9.4f %9.4f %12.1f %12.1f %10lld %10lld %8.3f\n", name[0] ? name : "defaults",
           mk[c] / runs, frag[c] / runs, spill[c] / 1048576.0, ddr[c] / 1048576.0,
           (long long)refused[c], (long long)contig[c], sec[c]);
  }
  printf("(makespan: mean ratio to the first row; frag: mean time-weighted 1 - largest gap / free)\n\n");
  for (size_t n = 0; n < NNETS; n++)
    acs_workload_free(w[n]);
  return 0;
}

/* usage: bench-spill [OPS [SEED [key=value...]]]: the options apply to the
 * scale run only. */
int main(int argc, char **argv)
{
  int32_t n = argc > 1 ? (int32_t)atol(argv[1]) : 100000;
  uint64_t seed = argc > 2 ? (uint64_t)atoll(argv[2]) : 1;
  static const char *const placement[][4] = {
    { "placement=first", NULL }, { "placement=best", NULL },
  };
  static const char *const policies[][4] = {
    { NULL }, { "evict=belady", NULL }, { "clean=write", NULL },
    { "evict=belady", "clean=write", NULL }, { "lookahead=8", NULL },
    { "lookahead=16", NULL }, { "lookahead=128", NULL }, { "lookahead=512", NULL },
    { "lookahead=0", NULL },
  };
  static const char *const seedlike[] = { "clean=write", NULL };
  int rc = 0;

  rc |= bench_scale(n, seed, argc > 3 ? (const char *const *)argv + 3 : NULL);
  rc |= bench_sizes("mobilenet_v1", NULL);
  rc |= bench_sizes("resnet18", NULL);
  rc |= bench_sizes("mobilenet_v1", seedlike);
  rc |= bench_sizes("resnet18", seedlike);
  rc |= bench_configs("placement", placement, 2);
  rc |= bench_configs("policies", policies, 9);
  return rc;
}
