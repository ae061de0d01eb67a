/*
 * simdag.c - the benchmarks' random DAG and its greedy schedule.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/simdag.h"

static int add_op(struct acs_graph *g, struct acs_rng *r, int32_t i)
{
  struct acs_op op;
  char name[32];
  int32_t id;

  memset(&op, 0, sizeof(op));
  snprintf(name, sizeof(name), "op%d", (int)i);
  op.name = name;
  op.slots = 1;
  if (acs_rng_below(r, 4) == 0) {
    int up = acs_rng_below(r, 2) == 0;
    op.kind = ACS_OP_DMA;
    op.cycles = -1;
    op.bytes = 1024 + (int64_t)acs_rng_below(r, 63 * 1024);
    op.src = up ? ACS_MEM_CMX : ACS_MEM_DDR;
    op.dst = up ? ACS_MEM_DDR : ACS_MEM_CMX;
  } else {
    op.kind = ACS_OP_DPU;
    op.cycles = 1 + (int64_t)acs_rng_below(r, 100);
  }
  if ((id = acs_graph_add_op(g, &op)) < 0)
    return id;
  return acs_graph_set_demand(g, id, op.kind == ACS_OP_DMA ? 1 : 0, 1);
}

static int make_graph(struct acs_graph *g, int32_t n, uint64_t seed)
{
  struct acs_rng r;
  struct acs_diag d;
  int32_t width;
  int err;

  acs_rng_seed(&r, seed);
  if ((err = acs_graph_init(g, "bench", "bench")) < 0)
    return err;
  if ((err = acs_graph_add_resource(g, "pe", ACS_RES_PE, 0)) < 0 ||
      (err = acs_graph_add_resource(g, "dma", ACS_RES_DMA, 0)) < 0)
    return err;
  width = 1 + (int32_t)acs_rng_below(&r, 8);
  for (int32_t i = 0; i < n; i++) {
    int32_t layer = i / width, lo = (layer - 1) * width;
    if ((err = add_op(g, &r, i)) < 0)
      return err;
    if (layer == 0)
      continue;
    for (int32_t k = 1 + (int32_t)acs_rng_below(&r, 3); k > 0; k--) {
      int32_t p = lo + (int32_t)acs_rng_below(&r, (uint64_t)width);
      if ((err = acs_graph_add_edge(g, p, i, ACS_EDGE_DATA)) < 0)
        return err;
    }
  }
  acs_diag_init(&d);
  return acs_graph_finalize(g, &d);
}

/* Topological order, each op on the unit of its class that frees first. */
static int greedy(struct acs_schedule *s, const struct acs_graph *g, int npe, int ndma)
{
  int64_t *fin = calloc((size_t)(npe + ndma), sizeof(*fin));
  int64_t *ready = calloc((size_t)s->nops + 1, sizeof(*ready));

  if (!fin || !ready) {
    free(fin), free(ready);
    return ACS_ENOMEM;
  }
  for (int32_t k = 0; k < g->nops; k++) {
    int32_t v = g->topo[k];
    struct acs_sop *o = &s->ops[v];
    int dma = o->kind == ACS_OP_DMA, lo = dma ? npe : 0, hi = dma ? npe + ndma : npe;
    int best = lo;
    for (int u = lo; u < hi; u++)
      if (fin[u] < fin[best])
        best = u;
    o->start = ready[v] > fin[best] ? ready[v] : fin[best];
    o->end = o->start + o->dur;
    o->unit = best - lo;
    fin[best] = o->end;
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      if (ready[g->succ[e]] < o->end)
        ready[g->succ[e]] = o->end;
  }
  free(fin), free(ready);
  acs_schedule_finish(s);
  return ACS_OK;
}

int simdag_build(struct simdag *b, int32_t n, uint64_t seed)
{
  struct acs_platform p;
  struct acs_diag d;
  int err;

  memset(b, 0, sizeof(*b));
  acs_platform_init(&p);
  acs_diag_init(&d);
  if ((err = make_graph(&b->g, n, seed)) < 0 ||
      (err = acs_problem_init(&b->pb, &b->g, &p, &d)) < 0 ||
      (err = acs_schedule_init_problem(&b->s, &b->pb)) < 0)
    return err;
  return greedy(&b->s, &b->g, (int)acs_platform_get(&p, ACS_P_PE_COUNT),
                (int)acs_platform_get(&p, ACS_P_DMA_CHANNELS));
}

void simdag_destroy(struct simdag *b)
{
  acs_schedule_destroy(&b->s);
  acs_problem_destroy(&b->pb);
  acs_graph_destroy(&b->g);
}
