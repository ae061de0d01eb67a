/*
 * realize.c - the shortest schedule of one gang's member set.
 *
 * The thesis schedules every gang as a software pipeline: a preamble, the
 * loop body repeated L times at a strict period, a postamble, each a list
 * schedule that starts when the previous one has ended everywhere. That
 * is what makes a schedule of 1080 lines cost one loop body, and it is the
 * best use of the PEs when L is large. When L is small (SDF3-style graphs
 * that fire each actor a handful of times per run) the barriers between
 * the sections and the period rounding cost more than the pipelining
 * gains, and a gang of one compute-heavy kernel leaves every PE but one
 * idle where the data could be split.
 *
 * So `gang` (ctx->modes) realizes a member set in up to three ways, each a
 * schedule of the family's plan model, built and list-scheduled by the same
 * machinery, checked by the same checker, and keeps the shortest:
 *
 *  - pipelined: the thesis's (always tried first; ties keep it, for its
 *    compact control program);
 *  - whole: the same mapping, every firing list-scheduled at once
 *    (Algorithm 2 over the whole run, no loop), buffers grown behind the
 *    longest blocking. Tried only when that costs at most WHOLE_FACTOR
 *    times the firings the pipelined schedule already list-scheduled
 *    (preamble, one body, postamble), or at most WHOLE_SMALL firings: a
 *    node limit, so the search stays linear in what it did before, and
 *    only when the pipelined gang is above its lower bound;
 *  - tiled: a single splittable actor (no self-edge, no cycle) as the
 *    tiling baseline's pass, one strip of its firings per PE, scheduled
 *    only when its lower bound (model_bound) is below what is there.
 *
 * Why the result is never behind `sequential` and `tiling`: the partition
 * search starts from one gang per strongly connected component, each
 * realized here, so its first makespan is the sum over components of the
 * minimum of that component's sequential gang (the pipelined realization,
 * mapped by the same acs_gang_map with the same budget) and its tiling pass (the
 * tiled realization, or tiling's own gang for a cycle, again the pipelined
 * one). Both baselines are sums of exactly those gangs, run back to back.
 * The search then commits only moves that do not lengthen the schedule.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gsched.h"

enum { WHOLE_FACTOR = 4, WHOLE_SMALL = 512 };

static const char *const mode_names[] = { "pipelined", "whole", "tiled", "dynamic" };

const char *acs_gang_mode_name(int mode)
{
  return mode >= 0 && mode <= ACS_GANG_MODE_DYNAMIC ? mode_names[mode] : "?";
}

/* A gang of the given actors on the given PEs, built and scheduled
 * (whole: without a loop). gg->ok tells whether it fits. */
static int schedule_mapped(const struct acs_gang_ctx *c, int32_t nact, const int32_t *act,
                           const int32_t *pe, int whole, struct acs_gang *gg)
{
  int err;

  memset(gg, 0, sizeof(*gg));
  gg->nact = nact;
  gg->act = malloc(((size_t)nact + 1) * sizeof(int32_t));
  gg->pe = malloc(((size_t)nact + 1) * sizeof(int32_t));
  if (!gg->act || !gg->pe) {
    acs_gang_free(gg);
    return ACS_ENOMEM;
  }
  memcpy(gg->act, act, (size_t)nact * sizeof(int32_t));
  memcpy(gg->pe, pe, (size_t)nact * sizeof(int32_t));
  gg->whole = whole;
  if ((err = acs_gang_build(c, gg)) < 0 || (err = acs_gang_schedule(c, gg)) < 0)
    acs_gang_free(gg);
  return err;
}

/* Firings (transfers included) the gang's run fires, and those the
 * pipelined schedule list-scheduled: preamble, one body, postamble. */
static void firing_counts(const struct acs_gang *gg, int64_t *all, int64_t *listed)
{
  *all = *listed = 0;
  for (int32_t v = 0; v < gg->nnodes; v++) {
    const struct acs_gang_node *n = &gg->nodes[v];
    *all += n->T;
    *listed += gg->ok && gg->L > 0 ? n->T - (gg->L - 1) * n->qL : n->T;
  }
}

/* Whether listing every firing at once is within the node limit. */
static int whole_worth(const struct acs_gang *gg)
{
  int64_t all, listed;

  if (gg->ok && gg->L == 0)
    return 0;   /* already scheduled whole */
  firing_counts(gg, &all, &listed);
  return all <= WHOLE_SMALL || (gg->ok && all <= WHOLE_FACTOR * listed);
}

/* Keeps `alt` in *best when it is scheduled and strictly shorter. */
static void keep_shorter(struct acs_gang *best, struct acs_gang *alt)
{
  if (alt->ok && (!best->ok || alt->total < best->total)) {
    acs_gang_free(best);
    *best = *alt;
  } else {
    acs_gang_free(alt);
  }
}

/* A lower bound of any schedule of a built gang: the busiest PE, DMA
 * channel or the DDR link, kernel loads included (they take DMA channel 0
 * and the link). O(nodes + members). */
static int64_t model_bound(const struct acs_gang_ctx *c, const struct acs_gang *gg)
{
  int32_t nh = c->xp.npe + c->xp.ndma;
  int64_t *busy = calloc((size_t)nh + 1, sizeof(int64_t)), ddr = 0, best = 0;

  if (!busy)
    return 0;
  for (int32_t v = 0; v < gg->nnodes; v++) {
    const struct acs_gang_node *n = &gg->nodes[v];
    if (n->kind == ACS_GANG_N_PROC) {
      const struct acs_sdf_seq *ex = &c->g->actors[n->actor].exec;
      busy[n->hw] += acs_sdf_seq_cum(ex, n->f0 + n->T) - acs_sdf_seq_cum(ex, n->f0);
      continue;
    }
    busy[c->xp.npe + n->hw] += n->T * n->xtime;
    if (n->ddr)
      ddr += n->T * n->xtime;
  }
  for (int32_t v = 0; v < gg->nnodes; v++)
    if (gg->nodes[v].kind == ACS_GANG_N_PROC) {
      int64_t l = c->info[gg->nodes[v].actor].load;
      busy[c->xp.npe] += l;
      ddr += l;
    }
  best = (ddr + c->xp.lanes - 1) / c->xp.lanes;
  for (int32_t h = 0; h < nh; h++)
    if (busy[h] > best)
      best = busy[h];
  free(busy);
  return best;
}

/* The tiled realization of a single splittable actor, scheduled only when
 * its bound is below `beat` (0: always). */
static int tiled(const struct acs_gang_ctx *c, int32_t a, int64_t beat, struct acs_gang *gg)
{
  int err;

  memset(gg, 0, sizeof(*gg));
  if ((err = acs_gang_tiling_pass(c, a, gg)) < 0)
    goto out_with_gang;
  if (beat > 0 && model_bound(c, gg) >= beat) {
    acs_gang_free(gg);   /* it cannot be shorter: not scheduled */
    return ACS_OK;
  }
  if ((err = acs_gang_schedule(c, gg)) < 0)
    goto out_with_gang;
  gg->mode = ACS_GANG_MODE_TILED;
  return ACS_OK;
out_with_gang:
  acs_gang_free(gg);
  return err;
}

/* The DDR link's busy time of any realization of the set: kernel loads
 * and the tokens of every channel that enters or leaves it. (A tiled pass
 * loads more and reads ghost lines too.) O(actors + channels). */
static int64_t ddr_time(const struct acs_gang_ctx *c, int32_t nact, const int32_t *act)
{
  const struct acs_sdf_graph *g = c->g;
  char *in = calloc((size_t)g->nactors + 1, 1);
  int64_t t = 0;

  if (!in)
    return 0;
  for (int32_t i = 0; i < nact; i++) {
    in[act[i]] = 1;
    t += c->info[act[i]].load;
  }
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    int s = cc->src >= 0 && in[cc->src], d = cc->dst >= 0 && in[cc->dst];
    if (s && !d)
      t += cc->produced * c->ccost[ch].ddr_token;
    else if (d && !s)
      t += cc->consumed * c->ccost[ch].ddr_token;
  }
  free(in);
  return t;
}

int64_t acs_gang_realize_floor(const struct acs_gang_ctx *c, int32_t nact, const int32_t *act)
{
  int64_t ddr, work = 0, top = 0, best;
  int32_t npe = c->xp.npe;

  if (nact == 0)
    return 0;
  /* The link's lanes (never more than the DMA channels) carry it all. */
  ddr = (ddr_time(c, nact, act) + c->xp.lanes - 1) / c->xp.lanes;
  for (int32_t i = 0; i < nact; i++) {
    work += c->info[act[i]].work;
    if (c->info[act[i]].work > top)
      top = c->info[act[i]].work;
  }
  best = ddr > (work + npe - 1) / npe ? ddr : (work + npe - 1) / npe;
  /* One actor fires on one PE, unless a tiled pass splits it. */
  if (!(c->modes && nact == 1 && acs_gang_splittable(c, act[0])) && top > best)
    best = top;
  return best;
}

int acs_gang_realize(const struct acs_gang_ctx *c, int64_t map_budget, int32_t nact,
                     const int32_t *act, int32_t *pe, struct acs_gang *gg, int64_t *opt, int *ok)
{
  struct acs_gang alt;
  int rc, err;

  memset(gg, 0, sizeof(*gg));
  *ok = 0;
  if ((rc = acs_gang_map(c, nact, act, pe, map_budget, opt)) <= 0)
    return rc;
  if ((err = schedule_mapped(c, nact, act, pe, 0, gg)) < 0)
    return err;
  if (c->modes && whole_worth(gg) && !(gg->ok && gg->total <= model_bound(c, gg))) {
    if ((err = schedule_mapped(c, nact, act, pe, 1, &alt)) < 0) {
      acs_gang_free(gg);
      return err;
    }
    keep_shorter(gg, &alt);
  }
  if (c->modes && nact == 1 && acs_gang_splittable(c, act[0])) {
    if ((err = tiled(c, act[0], gg->ok ? gg->total : 0, &alt)) < 0) {
      acs_gang_free(gg);
      return err;
    }
    keep_shorter(gg, &alt);
  }
  *ok = gg->ok;
  if (!gg->ok)
    acs_gang_free(gg);
  return ACS_OK;
}
