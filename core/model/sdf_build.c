/*
 * sdf_build.c - the firing DAG of an SDF run (see acs_sdf_build_dag in sdf.h).
 *
 * Rates may be up to 2^40 tokens a firing, so the edges of a firing are
 * found by jumping from producer to producer (the first token of the next
 * producing firing is known in O(1)), never token by token: the work is
 * the edges, not the tokens.
 */
#include "config.h"

#include <stdio.h>

#include "core/model/graph.h"
#include "core/model/sdf.h"

/* Interrupts are polled every this many ops or edges. */
#define POLL_EVERY 4096

static int add_firings(const struct acs_sdf_graph *g, struct acs_graph *out, int pe)
{
  for (int32_t a = 0; a < g->nactors; a++) {
    const struct acs_sdf_actor *ac = &g->actors[a];
    for (int64_t k = 0; k < ac->total; k++) {
      char name[ACS_NAME_MAX];
      if (k % POLL_EVERY == 0 && acs_interrupt_pending())
        return ACS_EINTERRUPTED;
      struct acs_op op = { 0 };
      int32_t id;
      snprintf(name, sizeof(name), "%s#%lld", ac->name, (long long)k);
      op.name = name;
      op.kind = ACS_OP_SHAVE;
      op.cycles = acs_sdf_exec(g, a, k);
      op.slots = 1;
      op.line = ac->line;
      if ((id = acs_graph_add_op(out, &op)) < 0)
        return id;
      if (acs_graph_set_demand(out, id, pe, 1) < 0)
        return ACS_ENOMEM;
    }
  }
  return ACS_OK;
}

/* One edge from each distinct source firing of the tokens firing k of the
 * destination reads. Producers of consecutive tokens are non-decreasing;
 * after producer f the next candidate token is the first one f + 1 makes. */
static int add_channel_edges(const struct acs_sdf_graph *g, int32_t c, struct acs_graph *out)
{
  const struct acs_sdf_channel *ch = &g->channels[c];
  int64_t nd = g->actors[ch->dst].total;
  int err;

  for (int64_t k = 0; k < nd; k++) {
    int64_t lo = acs_sdf_release(g, c, k - 1), hi = acs_sdf_need(g, c, k);
    for (int64_t j = lo > ch->d0 ? lo : ch->d0; j < hi;) {
      int64_t f = acs_sdf_producer(g, c, j);
      if (f < 0)
        break;   /* the source produces nothing on this channel */
      if (out->nedges % POLL_EVERY == 0 && acs_interrupt_pending())
        return ACS_EINTERRUPTED;
      err = acs_graph_add_edge(out, (int32_t)(g->base[ch->src] + f),
                               (int32_t)(g->base[ch->dst] + k), ACS_EDGE_DATA);
      if (err < 0)
        return err;
      j = ch->d0 + acs_sdf_prod(g, c, f);
    }
  }
  return ACS_OK;
}

int acs_sdf_build_dag(const struct acs_sdf_graph *g, struct acs_graph *out, struct acs_diag *d)
{
  int64_t ops, edges;
  int pe, err;

  if (!g->finalized)
    return ACS_EINVAL;
  /* Finalize checked the same cost against the limits in force then. */
  acs_sdf_cost(g, &ops, &edges);
  if ((err = acs_graph_check_cost(ops, edges, 2, d, g->path, 0, 0, "the firing DAG")) < 0)
    return err;
  if (g->total_firings > INT32_MAX)
    return acs_diag_set(d, ACS_ERANGE, g->path, 0, 0, "too many firings (%lld)",
                        (long long)g->total_firings);
  if ((err = acs_graph_init(out, g->name, g->path)) < 0)
    return err;
  if ((pe = acs_graph_add_resource(out, "pe", ACS_RES_PE, 0)) < 0 ||
      acs_graph_add_resource(out, "dma", ACS_RES_DMA, 0) < 0) {
    err = pe < 0 ? pe : ACS_ENOMEM;
    goto out_with_graph;
  }
  if ((err = add_firings(g, out, pe)) < 0)
    goto out_with_graph;
  for (int32_t c = 0; c < g->nchannels; c++)
    if (g->channels[c].src >= 0 && g->channels[c].dst >= 0 &&
        (err = add_channel_edges(g, c, out)) < 0)
      goto out_with_graph;
  if ((err = acs_graph_finalize(out, d)) < 0)
    goto out_with_graph;
  return ACS_OK;

out_with_graph:
  acs_graph_destroy(out);
  return err;
}
