/*
 * benchutil.c - shared helpers of the benchmarks.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/benchutil.h"

double bench_cpu_seconds(void)
{
  struct timespec ts;

  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return 0;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_peak_rss_mib(void)
{
  struct rusage ru;

  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return -1;
  return (double)ru.ru_maxrss / 1024.0; /* Linux reports KiB */
}

static int add_layer_op(struct acs_graph *g, struct acs_rng *r, int32_t i,
                        int64_t cmx_max)
{
  struct acs_op op;
  char name[32];
  int dma = acs_rng_below(r, 4) == 0;
  int32_t id;

  memset(&op, 0, sizeof(op));
  snprintf(name, sizeof(name), "op%d", i);
  op.name = name;
  op.kind = dma ? ACS_OP_DMA : ACS_OP_DPU;
  op.src = dma ? ACS_MEM_DDR : ACS_MEM_NONE;
  op.dst = dma ? ACS_MEM_CMX : ACS_MEM_NONE;
  op.cycles = dma ? 50 + (int64_t)acs_rng_below(r, 2000) : 100 + (int64_t)acs_rng_below(r, 5000);
  op.slots = 1;
  id = acs_graph_add_op(g, &op);
  if (id < 0)
    return id;
  acs_graph_set_demand(g, id, dma ? 1 : 0, 1);
  return acs_graph_set_demand(g, id, 2, 1 + (int64_t)acs_rng_below(r, (uint64_t)cmx_max));
}

int bench_layered_dag(struct acs_graph *g, uint64_t seed, int32_t n,
                      int64_t cmx_max, struct acs_diag *d)
{
  struct acs_rng r;
  int32_t lo = 0, hi = 0; /* previous layer [lo, hi) */
  int err;

  acs_rng_seed(&r, seed);
  err = acs_graph_init(g, "layered", "layered");
  if (err != ACS_OK)
    return err;
  if (acs_graph_add_resource(g, "pe", ACS_RES_PE, 0) < 0 ||
      acs_graph_add_resource(g, "dma", ACS_RES_DMA, 0) < 0 ||
      acs_graph_add_resource(g, "cmx", ACS_RES_CMX, 0) < 0)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < n;) {
    int32_t width = 16 + (int32_t)acs_rng_below(&r, 241), start = i;
    for (; i < n && i < start + width; i++) {
      err = add_layer_op(g, &r, i, cmx_max);
      for (int32_t k = 0, np = 1 + (int32_t)acs_rng_below(&r, 3); err == ACS_OK && hi > lo && k < np; k++)
        err = acs_graph_add_edge(g, lo + (int32_t)acs_rng_below(&r, (uint64_t)(hi - lo)), i,
                                 ACS_EDGE_DATA);
      if (err != ACS_OK)
        return err;
    }
    lo = start;
    hi = i;
  }
  return acs_graph_finalize(g, d);
}

int bench_run(const char *name, const struct acs_problem *pb,
              const char *const *sets, struct acs_schedule *out,
              double *seconds, struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find(name);
  struct acs_sched_ctx ctx = { 1, 0, NULL, NULL, 0 };
  void *opts;
  double t0;
  int err;

  if (!ops)
    return ACS_ENOTFOUND;
  opts = calloc(1, ops->opts_size + 1);
  if (!opts)
    return ACS_ENOMEM;
  err = acs_sched_opts_defaults(ops, opts);
  for (; err == ACS_OK && sets && *sets; sets++) {
    char key[64];
    const char *eq = strchr(*sets, '=');
    if (!eq || eq - *sets >= (long)sizeof(key)) {
      err = ACS_EINVAL;
      break;
    }
    snprintf(key, sizeof(key), "%.*s", (int)(eq - *sets), *sets);
    err = acs_sched_opts_set(ops, opts, key, eq + 1, d);
  }
  if (err == ACS_OK)
    err = acs_schedule_init_problem(out, pb);
  if (err == ACS_OK) {
    t0 = acs_now_seconds();
    err = ops->schedule(pb, opts, &ctx, out, d);
    *seconds = acs_now_seconds() - t0;
  }
  free(opts);
  return err;
}

static int optima_push(struct bench_optima *o, size_t *cap, int g, int i,
                       long long v1, long long v2)
{
  if (o->n == *cap) {
    size_t ncap = *cap ? 2 * *cap : 64;
    int32_t *ng = realloc(o->group, ncap * sizeof(*ng));
    if (ng)
      o->group = ng;
    int32_t *ni = realloc(o->inst, ncap * sizeof(*ni));
    if (ni)
      o->inst = ni;
    int64_t *n1 = realloc(o->v1, ncap * sizeof(*n1));
    if (n1)
      o->v1 = n1;
    int64_t *n2 = realloc(o->v2, ncap * sizeof(*n2));
    if (n2)
      o->v2 = n2;
    if (!ng || !ni || !n1 || !n2)
      return ACS_ENOMEM;
    *cap = ncap;
  }
  o->group[o->n] = g;
  o->inst[o->n] = i;
  o->v1[o->n] = v1;
  o->v2[o->n] = v2;
  o->n++;
  return ACS_OK;
}

int bench_optima_load(const char *path, struct bench_optima *o)
{
  char line[512];
  size_t cap = 0;
  int err = ACS_OK;
  FILE *f;

  memset(o, 0, sizeof(*o));
  f = fopen(path, "r");
  if (!f)
    return ACS_EIO;
  while (err == ACS_OK && fgets(line, sizeof(line), f)) {
    int g, i, k;
    long long v1, v2;
    char rest[8];
    k = sscanf(line, "%d %d %lld %lld", &g, &i, &v1, &v2);
    /* j30opt rows carry a decimal CPU time in the fourth column, which is
     * not a second value: only take v2 when it is followed by no '.'. */
    if (k == 4 && sscanf(line, "%*d %*d %*d %*d%1[.]", rest) == 1)
      k = 3;
    if (k >= 3)
      err = optima_push(o, &cap, g, i, v1, k == 4 ? v2 : -1);
  }
  fclose(f);
  return err;
}

void bench_optima_free(struct bench_optima *o)
{
  free(o->group);
  free(o->inst);
  free(o->v1);
  free(o->v2);
  memset(o, 0, sizeof(*o));
}

long bench_optima_find(const struct bench_optima *o, const char *smpath)
{
  const char *base = strrchr(smpath, '/');
  int jobs, group, inst;

  base = base ? base + 1 : smpath;
  /* j30<group>_<inst>.sm or j60<group>_<inst>.sm: the job count is two digits. */
  if (sscanf(base, "j%2d%d_%d.sm", &jobs, &group, &inst) != 3)
    return -1;
  for (size_t k = 0; k < o->n; k++)
    if (o->group[k] == group && o->inst[k] == inst)
      return (long)k;
  return -1;
}
