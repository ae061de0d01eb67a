/*
 * tiling.c - the tiling baseline (seed 004, section 6.4.1, after [4]):
 * data partitioned over the PEs. Every kernel runs as a pass of its own in
 * topological order; a pass splits the kernel's firings (the image's lines)
 * into one contiguous strip per PE, every PE runs the same kernel on its
 * strip, reading its input lines from DDR (a filter's strip also reads the
 * lines its window needs above and below: the ghost zone, read by both
 * neighbours) and writing its output lines to DDR. So every intermediate
 * goes through DDR, the kernel is loaded on every PE, and the only
 * parallelism is the data's.
 *
 * Each strip is pipelined like a gang node (its DDR reads, its firings and
 * its DDR writes overlap, list-scheduled with the shared DMA), using the
 * gang scheduler's machinery on a hand-built model. A strongly connected
 * component with more than one actor, or an actor ordered by a self-edge
 * (SDF3's non-reentrant actors), cannot be split into independent strips:
 * it runs as one gang mapped like the heuristic's.
 *
 * The thesis evaluates tiling by a formula (eq. 6.1) over a single-PE gang
 * partition and leaves ghost zones out; this is a schedule with every
 * transfer, verified and simulated like the others.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gsched.h"

int acs_gang_splittable(const struct acs_gang_ctx *c, int32_t a)
{
  const struct acs_sdf_graph *g = c->g;

  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++)
    if (g->channels[g->in_ch[i]].src == a)
      return 0;
  for (int32_t b = 0; b < g->nactors; b++)
    if (b != a && c->scc[b] == c->scc[a])
      return 0;
  return 1;
}

/* Strip s of S over T firings: [T s / S, T (s + 1) / S). */
static int64_t strip_lo(int64_t T, int32_t s, int32_t S)
{
  return T * s / S;
}

static int strip_inputs(struct acs_gang_builder *b, int32_t a, int32_t node, int32_t pe, int64_t lo,
                        int64_t hi)
{
  const struct acs_gang_ctx *c = b->c;
  const struct acs_sdf_graph *g = c->g;
  int err;

  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++) {
    int32_t ch = g->in_ch[i], x;
    int64_t t0 = acs_sdf_release(g, ch, lo - 1), t1 = acs_sdf_need(g, ch, hi - 1);
    struct acs_gang_node n;
    if (t1 <= t0)
      continue;
    n = acs_gang_xfer_node(c, ACS_GANG_N_XIN, ch, -1, pe, t0, t1 - t0);
    if ((x = acs_gang_add_node(b, &n)) < 0)
      return x;
    if ((err = acs_gang_add_edge(b, -1, x, ch, -1, 0)) < 0 ||
        (err = acs_gang_add_edge(b, x, node, ch, pe, t0)) < 0)
      return err;
  }
  return ACS_OK;
}

static int strip_outputs(struct acs_gang_builder *b, int32_t a, int32_t node, int32_t pe,
                         int64_t lo, int64_t hi)
{
  const struct acs_gang_ctx *c = b->c;
  const struct acs_sdf_graph *g = c->g;
  int err;

  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
    int32_t ch = g->out_ch[i], x;
    int64_t t0 = acs_sdf_avail(g, ch, lo), t1 = acs_sdf_avail(g, ch, hi);
    struct acs_gang_node n;
    if (t1 <= t0)
      continue;
    n = acs_gang_xfer_node(c, ACS_GANG_N_XOUT, ch, pe, -1, t0, t1 - t0);
    if ((x = acs_gang_add_node(b, &n)) < 0)
      return x;
    if ((err = acs_gang_add_edge(b, node, x, ch, pe, t0)) < 0 ||
        (err = acs_gang_add_edge(b, x, -1, ch, -1, 0)) < 0)
      return err;
  }
  return ACS_OK;
}

int acs_gang_tiling_pass(const struct acs_gang_ctx *c, int32_t a, struct acs_gang *gg)
{
  const struct acs_sdf_actor *ac = &c->g->actors[a];
  struct acs_gang_builder b = { c, gg, 0, 0 };
  int32_t S = c->xp.npe < ac->total ? c->xp.npe : (int32_t)ac->total;
  int err;

  if (S < 1)
    S = 1;
  gg->act = malloc(((size_t)S + 1) * sizeof(int32_t));
  gg->pe = malloc(((size_t)S + 1) * sizeof(int32_t));
  if (!gg->act || !gg->pe)
    return ACS_ENOMEM;
  gg->nact = S;
  for (int32_t s = 0; s < S; s++) {
    int64_t lo = strip_lo(ac->total, s, S), hi = strip_lo(ac->total, s + 1, S);
    struct acs_gang_node n;
    int32_t x;
    gg->act[s] = a;
    gg->pe[s] = s;
    memset(&n, 0, sizeof(n));
    n.kind = ACS_GANG_N_PROC;
    n.actor = a;
    n.chan = -1;
    n.hw = n.pe_from = n.pe_to = s;
    n.f0 = lo;
    n.T = hi - lo;
    n.lam = c->info[a].lam;
    n.lo = c->info[a].lo > lo ? c->info[a].lo : lo;
    n.hi = c->info[a].hi < hi ? c->info[a].hi : hi;
    if (n.hi < n.lo)
      n.hi = n.lo;
    if ((x = acs_gang_add_node(&b, &n)) < 0)
      return x;
    if ((err = strip_inputs(&b, a, x, s, lo, hi)) < 0 || (err = strip_outputs(&b, a, x, s, lo, hi)) < 0)
      return err;
  }
  return acs_gang_finish(c, gg);
}

/* A strongly connected component (or a self-ordered actor) as one gang. */
static int build_unit(const struct acs_gang_ctx *c, int32_t u, const struct acs_gang_opts *o,
                      struct acs_gang *gg, struct acs_diag *d)
{
  int32_t n = 0;
  int rc;

  gg->act = malloc(((size_t)c->g->nactors + 1) * sizeof(int32_t));
  gg->pe = malloc(((size_t)c->g->nactors + 1) * sizeof(int32_t));
  if (!gg->act || !gg->pe)
    return ACS_ENOMEM;
  for (int32_t a = 0; a < c->g->nactors; a++)
    if (c->scc[a] == u)
      gg->act[n++] = a;
  gg->nact = n;
  if ((rc = acs_gang_map(c, n, gg->act, gg->pe, o->map_budget, NULL)) < 0)
    return rc;
  if (rc == 0)
    return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                        "the kernels of the cycle through '%s' do not fit the program memory",
                        c->g->actors[gg->act[0]].name);
  return acs_gang_build(c, gg);
}

/* Units (strongly connected components) in topological order, each once. */
static int unit_order(const struct acs_gang_ctx *c, int32_t *order, int32_t *n)
{
  const struct acs_sdf_graph *g = c->g;
  int32_t *indeg = calloc((size_t)c->nscc + 1, sizeof(int32_t));

  if (!indeg)
    return ACS_ENOMEM;
  *n = 0;
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    if (cc->src >= 0 && cc->dst >= 0 && c->scc[cc->src] != c->scc[cc->dst])
      indeg[c->scc[cc->dst]]++;
  }
  for (;;) {
    int32_t pick = -1;
    for (int32_t a = 0; a < g->nactors && pick < 0; a++)
      if (indeg[c->scc[a]] == 0)
        pick = c->scc[a];
    if (pick < 0)
      break;
    indeg[pick] = -1;
    order[(*n)++] = pick;
    for (int32_t ch = 0; ch < g->nchannels; ch++) {
      const struct acs_sdf_channel *cc = &g->channels[ch];
      if (cc->src >= 0 && cc->dst >= 0 && c->scc[cc->src] == pick && c->scc[cc->dst] != pick)
        indeg[c->scc[cc->dst]]--;
    }
  }
  free(indeg);
  return ACS_OK;
}

int acs_gang_tiling(struct acs_gang_ctx *c, const struct acs_gang_opts *o, struct acs_gang_plan *pl,
                    struct acs_diag *d)
{
  int32_t *order = malloc(((size_t)c->nscc + 1) * sizeof(int32_t)), n = 0;
  int64_t t = 0;
  int err;

  if (!order)
    return ACS_ENOMEM;
  if ((err = acs_gang_kernels_fit(c, d)) < 0)
    goto out_with_order;
  if ((err = unit_order(c, order, &n)) < 0)
    goto out_with_order;
  for (int32_t i = 0; i < n; i++) {
    struct acs_gang gg;
    int32_t a = -1;
    if (c->interrupted && *c->interrupted) {
      err = ACS_EINTERRUPTED;
      break;
    }
    memset(&gg, 0, sizeof(gg));
    for (int32_t k = 0; k < c->g->nactors && a < 0; k++)
      if (c->scc[k] == order[i])
        a = k;
    err = acs_gang_splittable(c, a) ? acs_gang_tiling_pass(c, a, &gg)
                                    : build_unit(c, order[i], o, &gg, d);
    if (err == ACS_OK)
      err = acs_gang_schedule(c, &gg);
    if (err == ACS_OK && acs_gang_splittable(c, a))
      gg.mode = ACS_GANG_MODE_TILED;
    if (err == ACS_OK && !gg.ok)
      err = acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                         "tiling: a strip of '%s' needs more VMEM than a PE has (%lld bytes)",
                         c->g->actors[a].name, (long long)c->xp.vmem);
    if (err == ACS_OK)
      err = acs_gang_emit(c, &gg, i, t, pl, &t);
    acs_gang_free(&gg);
    if (err < 0)
      break;
  }
  pl->makespan = t;
out_with_order:
  free(order);
  return err;
}
