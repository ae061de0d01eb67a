/*
 * bare-sim.c - the reference: the benchmark DAG run with the bare minimal
 * SimGrid actor pattern and nothing of acsim's simulate library (no fork,
 * no plan, no result pipe, no checks). acsim's DAG generator builds the
 * input; everything from the platform file on is plain SimGrid.
 *
 * The dependencies are the same as acsim's replay (edges plus the planned
 * order on each unit) and an op never starts before its planned start, so
 * both programs simulate the same thing and must agree on the makespan.
 *
 * Usage: bare-sim N [SEED]; prints one line
 * "seconds=S cpu=C makespan=M rss_kib=K" (wall and CPU time of the phase).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <xbt/config.h>
#include <xbt/log.h>

#include "bench/simdag.h"

enum { K_EXEC, K_FROM_DDR, K_TO_DDR, K_NONE };

static struct {
  int32_t n;
  double *release, *amount;
  int *kind, *host;
  int32_t *npred, *succ_off, *succ;
  sg_host_t hosts[8]; /* pe0..3, dma0..1, ddr */
} G;

static void start(int32_t i);

static void op_actor(int argc, char **argv)
{
  int32_t i = (int32_t)(intptr_t)sg_actor_self_get_data();

  if (simgrid_get_clock() < G.release[i])
    sg_actor_sleep_until(G.release[i]);
  if (G.kind[i] == K_EXEC)
    sg_actor_execute(G.amount[i]);
  else if (G.kind[i] == K_FROM_DDR)
    sg_host_sendto(G.hosts[6], G.hosts[G.host[i]], G.amount[i]);
  else if (G.kind[i] == K_TO_DDR)
    sg_host_sendto(G.hosts[G.host[i]], G.hosts[6], G.amount[i]);
  for (int32_t k = G.succ_off[i]; k < G.succ_off[i + 1]; k++)
    if (--G.npred[G.succ[k]] == 0)
      start(G.succ[k]);
}

static void start(int32_t i)
{
  sg_actor_t a = sg_actor_init("op", G.hosts[G.host[i]]);

  sg_actor_set_data(a, (void *)(intptr_t)i);
  sg_actor_start(a, op_actor, 0, NULL);
}

struct key {
  int unit;
  int32_t id;
  int64_t start;
};

static int cmp_key(const void *a, const void *b)
{
  const struct key *x = a, *y = b;

  if (x->unit != y->unit)
    return x->unit - y->unit;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->id - y->id;
}

/* Dependencies: edges, then consecutive ops on each unit. */
static void build(const struct acs_schedule *s)
{
  int32_t n = s->nops, nd = 0, *src = malloc(((size_t)s->nedges + (size_t)n) * 8);
  int32_t *dst = src + s->nedges + n;
  struct key *key = malloc((size_t)n * sizeof(*key));

  G.n = n;
  G.release = malloc((size_t)n * sizeof(double));
  G.amount = malloc((size_t)n * sizeof(double));
  G.kind = malloc((size_t)n * sizeof(int));
  G.host = malloc((size_t)n * sizeof(int));
  G.npred = calloc((size_t)n, sizeof(int32_t));
  G.succ_off = calloc((size_t)n + 1, sizeof(int32_t));
  for (int32_t i = 0; i < n; i++) {
    const struct acs_sop *o = &s->ops[i];
    int dma = o->kind == ACS_OP_DMA;
    G.release[i] = (double)o->start / 700e6;
    G.host[i] = dma ? 4 + o->unit : o->unit;
    G.kind[i] = o->dur == 0 ? K_NONE : !dma ? K_EXEC : o->src == ACS_MEM_DDR ? K_FROM_DDR : K_TO_DDR;
    G.amount[i] = dma ? (double)o->bytes : (double)o->dur;
    key[i] = (struct key){G.host[i], i, o->start};
  }
  for (int32_t e = 0; e < s->nedges; e++, nd++)
    src[nd] = s->edges[e].src, dst[nd] = s->edges[e].dst;
  qsort(key, (size_t)n, sizeof(*key), cmp_key);
  for (int32_t k = 1; k < n; k++)
    if (key[k].unit == key[k - 1].unit)
      src[nd] = key[k - 1].id, dst[nd++] = key[k].id;
  G.succ = malloc((size_t)nd * sizeof(int32_t));
  for (int32_t e = 0; e < nd; e++)
    G.succ_off[src[e] + 1]++, G.npred[dst[e]]++;
  for (int32_t i = 0; i < n; i++)
    G.succ_off[i + 1] += G.succ_off[i];
  for (int32_t i = 0; i < n; i++)
    key[i].id = G.succ_off[i]; /* reuse as fill cursors */
  for (int32_t e = 0; e < nd; e++)
    G.succ[key[src[e]].id++] = dst[e];
  free(src);
  free(key);
}

/* The default platform with only the routes this DAG uses. */
static void write_platform(const char *path)
{
  FILE *f = fopen(path, "w");

  fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
             "<platform version=\"4.1\"><config>\n"
             "<prop id=\"network/model\" value=\"CM02\"/><prop id=\"network/crosstraffic\" value=\"0\"/>\n"
             "<prop id=\"network/TCP-gamma\" value=\"0\"/><prop id=\"network/latency-factor\" value=\"1\"/>\n"
             "<prop id=\"network/bandwidth-factor\" value=\"1\"/><prop id=\"network/weight-S\" value=\"0\"/>\n"
             "<prop id=\"surf/precision\" value=\"%.17g\"/></config>\n"
             "<zone id=\"z\" routing=\"Full\">\n", 1e-9 / 700e6);
  for (int i = 0; i < 4; i++)
    fprintf(f, "<host id=\"pe%d\" speed=\"700000000f\"/>\n", i);
  for (int k = 0; k < 2; k++)
    fprintf(f, "<host id=\"dma%d\" speed=\"700000000f\"/><link id=\"l_dma%d\" bandwidth=\"32e9Bps\" latency=\"0s\"/>\n",
            k, k);
  fprintf(f, "<host id=\"ddr\" speed=\"700000000f\"/>\n"
             "<link id=\"ddr\" bandwidth=\"8e9Bps\" latency=\"%.17gs\"/>\n", 100 / 700e6);
  for (int k = 0; k < 2; k++)
    fprintf(f, "<route src=\"ddr\" dst=\"dma%d\"><link_ctn id=\"l_dma%d\"/><link_ctn id=\"ddr\"/></route>\n",
            k, k);
  fprintf(f, "</zone></platform>\n");
  fclose(f);
}

int main(int argc, char **argv)
{
  static const char *names[] = {"pe0", "pe1", "pe2", "pe3", "dma0", "dma1", "ddr"};
  struct simdag b;
  struct rusage ru;
  char path[] = "/tmp/bare-sim-XXXXXX";
  int32_t n = argc > 1 ? atoi(argv[1]) : 20000;
  double t0, c0, makespan;
  int fd;

  if (n <= 0 || simdag_build(&b, n, argc > 2 ? strtoull(argv[2], NULL, 10) : 1) < 0) {
    fprintf(stderr, "usage: bare-sim N [SEED]\n");
    return 2;
  }
  t0 = acs_now_seconds();
  getrusage(RUSAGE_SELF, &ru);
  c0 = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
       (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
  build(&b.s);
  if ((fd = mkstemp(path)) < 0)
    return 1;
  close(fd);
  write_platform(path);
  simgrid_init(&argc, argv);
  xbt_log_control_set("root.thres:critical");
  sg_cfg_set_int("contexts/stack-size", 128); /* as acsim does */
  simgrid_load_platform(path);
  unlink(path);
  for (int h = 0; h < 7; h++)
    G.hosts[h] = sg_host_by_name(names[h]);
  for (int32_t i = 0; i < G.n; i++)
    if (G.npred[i] == 0)
      start(i);
  simgrid_run();
  makespan = simgrid_get_clock() * 700e6;
  getrusage(RUSAGE_SELF, &ru);
  printf("seconds=%.4f cpu=%.4f makespan=%.6f rss_kib=%ld\n", acs_now_seconds() - t0,
         (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
             (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec - c0,
         makespan, ru.ru_maxrss);
  fflush(stdout);
  _exit(0);
}
