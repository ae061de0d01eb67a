/*
 * moves.c - whether a unit of the actor graph (a strongly connected
 * component) may move into another gang of the partition search
 * (partition.c; seed 004, section 5.2.2): the pipelining rules and an
 * acyclic gang graph after the move.
 *
 * The full check is Kahn's algorithm over the gang graph the move would
 * give, O(E_u + G) for E_u edges of the unit graph and G gangs; it runs
 * for every unit and target while candidates are collected. Most moves
 * are decided from the current gang graph instead (move_quick), in time
 * proportional to the edges of the units involved and the part of the
 * graph between them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/partition.h"

static int32_t unit_gang(const struct acs_gang_search *ps, int32_t x)
{
  return ps->gang_of[ps->unit_act[ps->unit_off[x]]];
}

/* Kahn's algorithm over the gang graph after moving unit u into slot t
 * (u = -1: the graph as it is), from the unit graph's edges, each listed
 * once (a gang edge may appear more than once, which Kahn's in-degrees
 * count alike), by source (CSR in ps->qoff/qdst); pos, when given, gets
 * each gang's position. Returns whether every live gang is ordered (no
 * cycle); 0 also when the move would join across a channel from a kernel
 * that is not fully pipelineable. O(E_u + G) for E_u unit edges and G
 * gangs. */
static int gang_kahn(struct acs_gang_search *ps, int32_t u, int32_t t, int32_t *pos)
{
  int32_t *indeg = ps->qindeg, *queue = ps->queue;
  int32_t head = 0, tail = 0, seen = 0, alive = 0;
  int32_t src_slot = u >= 0 ? unit_gang(ps, u) : -1;
  int32_t usize = u >= 0 ? ps->unit_off[u + 1] - ps->unit_off[u] : 0;

  for (int32_t s = 0; s <= ps->nslots; s++)
    ps->qoff[s] = 0;
  for (int32_t k = 0; k < ps->nuedge; k++) {
    const struct acs_gang_uedge *ue = &ps->uedge[k];
    int32_t gs = ue->su == u ? t : unit_gang(ps, ue->su);
    int32_t gd = ue->du == u ? t : unit_gang(ps, ue->du);
    if (gs == gd) {
      if (ue->nonfull)
        return 0;
      continue;
    }
    ps->qoff[gs + 1]++;
  }
  for (int32_t s = 0; s < ps->nslots; s++)
    ps->qoff[s + 1] += ps->qoff[s];
  for (int32_t s = 0; s < ps->nslots; s++) {
    indeg[s] = 0;
    ps->qfill[s] = ps->qoff[s];
  }
  for (int32_t k = 0; k < ps->nuedge; k++) {
    const struct acs_gang_uedge *ue = &ps->uedge[k];
    int32_t gs = ue->su == u ? t : unit_gang(ps, ue->su);
    int32_t gd = ue->du == u ? t : unit_gang(ps, ue->du);
    if (gs != gd) {
      ps->qdst[ps->qfill[gs]++] = gd;
      indeg[gd]++;
    }
  }
  for (int32_t s = 0; s < ps->nslots; s++) {
    int live = ps->slots[s].alive && (s != src_slot || ps->slots[s].nact > usize || s == t);
    if (!live) {
      indeg[s] = -1;
      continue;
    }
    alive++;
    if (indeg[s] == 0)
      queue[tail++] = s;
  }
  while (head < tail) {
    int32_t s = queue[head++];
    if (pos)
      pos[s] = seen;
    seen++;
    for (int32_t k = ps->qoff[s]; k < ps->qoff[s + 1]; k++)
      if (--indeg[ps->qdst[k]] == 0)
        queue[tail++] = ps->qdst[k];
  }
  return seen == alive;
}

/* The edges of unit x in one direction, for move_quick: the other end's
 * gang after moving u into t, whether that is t itself (the edge becomes
 * internal) and whether the channel may not be. Visits each edge once;
 * the successors of t go into gbfs (*nout of them) and are marked, the
 * predecessors marked in gin. */
static int unit_side(struct acs_gang_search *ps, int32_t x, int out, int32_t u, int32_t t,
                     int32_t *lo, int32_t *hi, int32_t *nout)
{
  int32_t a = out ? ps->uout_off[x] : ps->uin_off[x];
  int32_t b = out ? ps->uout_off[x + 1] : ps->uin_off[x + 1];

  for (int32_t k = a; k < b; k++) {
    const struct acs_gang_uedge *ue = &ps->uedge[out ? k : ps->uin[k]];
    int32_t z = out ? ue->du : ue->su, gz = z == u ? t : unit_gang(ps, z);
    if (gz == t) {
      if (ue->nonfull)
        return 0;   /* joined in one gang across such a channel */
      continue;
    }
    if (out) {
      if (ps->gmark[gz] != ps->gstamp)
        ps->gbfs[(*nout)++] = gz;
      ps->gmark[gz] = ps->gstamp;
      if (ps->gpos[gz] < *lo)
        *lo = ps->gpos[gz];
    } else {
      if (ps->gmark[gz] == ps->gstamp)
        return 0;   /* t -> gz -> t */
      ps->gin[gz] = ps->gstamp;
      if (ps->gpos[gz] > *hi)
        *hi = ps->gpos[gz];
    }
  }
  return 1;
}

/* The current gang graph's order and edges, for move_quick. O(E_u + G). */
static int gang_order(struct acs_gang_search *ps)
{
  if (!gang_kahn(ps, -1, -1, ps->gpos))
    return 0;
  memcpy(ps->gq_off, ps->qoff, ((size_t)ps->nslots + 1) * sizeof(int32_t));
  memcpy(ps->gq_dst, ps->qdst, (size_t)ps->qoff[ps->nslots] * sizeof(int32_t));
  return 1;
}

/* Whether a predecessor of t (marked in gin) is reachable in the current
 * graph from the successors of t, gbfs[0 .. nout), through gangs other
 * than skip (-1: none) and no later than hi in the order (a later one
 * reaches no predecessor). O(the edges searched). */
static int reaches(struct acs_gang_search *ps, int32_t nout, int32_t hi, int32_t skip)
{
  int32_t *q = ps->gbfs + nout, tail = 0;

  ps->gvstamp++;
  for (int32_t i = 0; i < nout; i++)
    if (ps->gbfs[i] != skip) {
      q[tail++] = ps->gbfs[i];
      ps->gvis[ps->gbfs[i]] = ps->gvstamp;
    }
  for (int32_t head = 0; head < tail;) {
    int32_t g = q[head++];
    for (int32_t k = ps->gq_off[g]; k < ps->gq_off[g + 1]; k++) {
      int32_t w = ps->gq_dst[k];
      if (w == skip || ps->gvis[w] == ps->gvstamp || ps->gpos[w] > hi)
        continue;
      if (ps->gin[w] == ps->gstamp)
        return 1;
      ps->gvis[w] = ps->gvstamp;
      q[tail++] = w;
    }
  }
  return 0;
}

/*
 * move_allowed's shortcut from the current gang graph, which is acyclic
 * and whose internal channels all may be (every committed move was
 * checked): after moving u into t, every edge between two other gangs is
 * an edge of the current graph, so a new cycle has to pass through t,
 * from a successor y of t along current edges to a predecessor x of t.
 * Returns 0 (not allowed: a channel joined that may not be, t -> y -> t,
 * or a path y -> x avoiding u's gang s, whose edges all stay), 1
 * (allowed: every successor after every predecessor in the topological
 * order, or none reaching one in the current graph) or -1 (only paths
 * through s: the full check decides, as they may use an edge the move
 * removes). O(degree of u and of t's units, plus the part of the graph
 * between them in the order).
 */
static int move_quick(struct acs_gang_search *ps, int32_t u, int32_t t)
{
  int32_t lo = INT32_MAX, hi = -1, nout = 0;

  if (ps->gpos_ok < 0)
    ps->gpos_ok = gang_order(ps);
  if (ps->gpos_ok != 1)
    return -1;
  ps->gstamp++;
  for (int out = 1; out >= 0; out--) {
    if (!unit_side(ps, u, out, u, t, &lo, &hi, &nout))
      return 0;
    for (int32_t i = 0; i < ps->slots[t].nact; i++) {
      int32_t a = ps->slots[t].act[i], x = ps->c->scc[a];
      if (ps->unit_act[ps->unit_off[x]] == a && !unit_side(ps, x, out, u, t, &lo, &hi, &nout))
        return 0;   /* each unit of t once: at its first actor */
    }
  }
  if (lo > hi || !reaches(ps, nout, hi, -1))
    return 1;
  return reaches(ps, nout, hi, unit_gang(ps, u)) ? 0 : -1;
}

/* Pipelining constraints and an acyclic gang graph after moving unit u
 * into slot t: the shortcut when it decides, else Kahn's algorithm. */
int acs_gang_move_allowed(struct acs_gang_search *ps, int32_t u, int32_t t)
{
  const struct acs_sdf_graph *g = ps->c->g;
  int rc;

  for (int32_t k = ps->unit_off[u]; k < ps->unit_off[u + 1]; k++)
    if (g->actors[ps->unit_act[k]].pipe == ACS_SDF_PIPE_NONE)
      return 0;
  for (int32_t i = 0; i < ps->slots[t].nact; i++)
    if (g->actors[ps->slots[t].act[i]].pipe == ACS_SDF_PIPE_NONE)
      return 0;
  if ((rc = move_quick(ps, u, t)) >= 0)
    return rc;
  return gang_kahn(ps, u, t, NULL);
}

static int cmp_uedge(const void *a, const void *b)
{
  const struct acs_gang_uedge *x = a, *y = b;

  if (x->su != y->su)
    return (x->su > y->su) - (x->su < y->su);
  return (x->du > y->du) - (x->du < y->du);
}

/* Each unit's edges out (a range of the sorted uedge) and in (an index
 * list), and the scratch of move_quick. O(E_u + U + G). */
static int unit_adjacency(struct acs_gang_search *ps)
{
  int32_t nu = ps->c->nscc, *fill;

  ps->uout_off = calloc((size_t)nu + 2, sizeof(int32_t));
  ps->uin_off = calloc((size_t)nu + 2, sizeof(int32_t));
  ps->uin = malloc(((size_t)ps->nuedge + 1) * sizeof(int32_t));
  ps->gpos = calloc((size_t)ps->nslots + 1, sizeof(int32_t));
  ps->gq_off = calloc((size_t)ps->nslots + 2, sizeof(int32_t));
  ps->gq_dst = calloc((size_t)ps->nuedge + 1, sizeof(int32_t));
  ps->gmark = calloc((size_t)ps->nslots + 1, sizeof(int32_t));
  ps->gin = calloc((size_t)ps->nslots + 1, sizeof(int32_t));
  ps->gbfs = calloc(2 * (size_t)ps->nslots + 1, sizeof(int32_t));
  ps->gvis = calloc((size_t)ps->nslots + 1, sizeof(int32_t));
  fill = calloc((size_t)nu + 1, sizeof(int32_t));
  if (!ps->uout_off || !ps->uin_off || !ps->uin || !ps->gpos || !ps->gq_off || !ps->gq_dst ||
      !ps->gmark || !ps->gin || !ps->gbfs || !ps->gvis || !fill) {
    free(fill);
    return ACS_ENOMEM;
  }
  for (int32_t k = 0; k < ps->nuedge; k++) {
    ps->uout_off[ps->uedge[k].su + 1]++;
    ps->uin_off[ps->uedge[k].du + 1]++;
  }
  for (int32_t x = 0; x < nu; x++) {
    ps->uout_off[x + 1] += ps->uout_off[x];
    ps->uin_off[x + 1] += ps->uin_off[x];
  }
  for (int32_t k = 0; k < ps->nuedge; k++) {
    int32_t x = ps->uedge[k].du;
    ps->uin[ps->uin_off[x] + fill[x]++] = k;
  }
  free(fill);
  ps->gpos_ok = -1;
  return ACS_OK;
}

/* The unit graph's edges from the channels between units, duplicates
 * merged, and each unit's adjacency. O(C log C). */
int acs_gang_unit_graph(struct acs_gang_search *ps)
{
  const struct acs_sdf_graph *g = ps->c->g;
  int32_t n = 0;

  if (!(ps->uedge = malloc(((size_t)g->nchannels + 1) * sizeof(*ps->uedge))))
    return ACS_ENOMEM;
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    if (cc->src < 0 || cc->dst < 0 || ps->c->scc[cc->src] == ps->c->scc[cc->dst])
      continue;
    ps->uedge[n++] = (struct acs_gang_uedge){ ps->c->scc[cc->src], ps->c->scc[cc->dst],
                                     g->actors[cc->src].pipe != ACS_SDF_PIPE_FULL };
  }
  qsort(ps->uedge, (size_t)n, sizeof(*ps->uedge), cmp_uedge);
  ps->nuedge = 0;
  for (int32_t k = 0; k < n; k++) {
    struct acs_gang_uedge *last = ps->nuedge > 0 ? &ps->uedge[ps->nuedge - 1] : NULL;
    if (last && last->su == ps->uedge[k].su && last->du == ps->uedge[k].du)
      last->nonfull |= ps->uedge[k].nonfull;
    else
      ps->uedge[ps->nuedge++] = ps->uedge[k];
  }
  return unit_adjacency(ps);
}

void acs_gang_unit_graph_free(struct acs_gang_search *ps)
{
  free(ps->uedge);
  free(ps->uout_off);
  free(ps->uin_off);
  free(ps->uin);
  free(ps->gpos);
  free(ps->gq_off);
  free(ps->gq_dst);
  free(ps->gmark);
  free(ps->gin);
  free(ps->gbfs);
  free(ps->gvis);
}
