/*
 * partition.c - the outer level of the gang heuristic (seed 004, section 5.2,
 * Algorithm 1): start from one gang per node (always schedulable), then move
 * single nodes toward a target gang by their expected gain (eq. 5.2 with the
 * optimal costs of eq. 5.1), commit a move when the real gain (both gangs
 * rescheduled) is not negative, keep the target while moves are committed,
 * and stop after a whole cycle of targets without a gain.
 *
 * Constraints (section 5.2.2): the program memory of each PE (the mapping),
 * gangs ordered along the data dependencies (the gang graph stays acyclic;
 * gangs then run in its topological order), consumers of a kernel that is
 * pipelineable on its input only in a later gang, and a non-pipelineable
 * kernel alone in its gang. A move moves a strongly connected component of
 * the actor graph: SDF graphs with cycles (SDF3's) keep each cycle in one
 * gang, which any acyclic gang order requires.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/partition.h"

/* ---- orders ---- */

/* Topological order of the actors over the SCC condensation (Kahn, smallest
 * actor first); level = unit-weight longest path to a sink. */
static int topo_and_levels(struct acs_gang_search *ps, int32_t *topo, int64_t *level)
{
  const struct acs_sdf_graph *g = ps->c->g;
  int32_t ns = ps->c->nscc, *indeg = calloc((size_t)ns + 1, sizeof(int32_t)), *sorder;
  int64_t *slevel;
  int32_t nt = 0, ntopo = 0;
  int err = ACS_OK;

  sorder = malloc(((size_t)ns + 1) * sizeof(int32_t));
  slevel = calloc((size_t)ns + 1, sizeof(int64_t));
  if (!indeg || !sorder || !slevel) {
    err = ACS_ENOMEM;
    goto out_with_arrays;
  }
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    if (cc->src >= 0 && cc->dst >= 0 && ps->c->scc[cc->src] != ps->c->scc[cc->dst])
      indeg[ps->c->scc[cc->dst]]++;
  }
  /* Kahn over SCCs, each time the ready SCC holding the smallest actor. */
  for (;;) {
    int32_t pick = -1;
    for (int32_t a = 0; a < g->nactors && pick < 0; a++)
      if (indeg[ps->c->scc[a]] == 0)
        pick = ps->c->scc[a];
    if (pick < 0)
      break;
    indeg[pick] = -1;
    sorder[nt++] = pick;
    for (int32_t k = ps->unit_off[pick]; k < ps->unit_off[pick + 1]; k++) {
      int32_t a = ps->unit_act[k];
      topo[ntopo++] = a;
      for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
        int32_t b = g->channels[g->out_ch[i]].dst;
        if (b >= 0 && ps->c->scc[b] != pick)
          indeg[ps->c->scc[b]]--;
      }
    }
  }
  for (int32_t i = nt - 1; i >= 0; i--) {
    int32_t s = sorder[i];
    for (int32_t k = ps->unit_off[s]; k < ps->unit_off[s + 1]; k++) {
      int32_t a = ps->unit_act[k];
      for (int32_t j = g->out_off[a]; j < g->out_off[a + 1]; j++) {
        int32_t b = g->channels[g->out_ch[j]].dst;
        if (b >= 0 && ps->c->scc[b] != s && slevel[ps->c->scc[b]] + 1 > slevel[s])
          slevel[s] = slevel[ps->c->scc[b]] + 1;
      }
    }
  }
  for (int32_t a = 0; a < g->nactors; a++)
    level[a] = slevel[ps->c->scc[a]];
out_with_arrays:
  free(indeg);
  free(sorder);
  free(slevel);
  return err;
}

enum { SORT_TOPO, SORT_LEVEL, SORT_EXEC, SORT_RTOPO, SORT_RLEVEL };

/* Stable insertion sort of the topological order by key, largest first. */
static void sort_by_key(int32_t *v, int32_t n, const int64_t *key)
{
  for (int32_t i = 1; i < n; i++) {
    int32_t x = v[i], j = i;
    while (j > 0 && key[v[j - 1]] < key[x]) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
}

static int make_order(struct acs_gang_search *ps)
{
  int32_t n = ps->na;
  int64_t *level = malloc(((size_t)n + 1) * sizeof(*level)), *work;
  int err;

  work = malloc(((size_t)n + 1) * sizeof(*work));
  if (!level || !work) {
    free(level);
    free(work);
    return ACS_ENOMEM;
  }
  if ((err = topo_and_levels(ps, ps->order, level)) < 0)
    goto out_with_keys;
  for (int32_t i = 0; i < n; i++) {
    ps->topo_pos[ps->order[i]] = i;
    work[i] = ps->c->info[i].work;
  }
  switch (ps->o->sort) {
  case SORT_LEVEL:
  case SORT_RLEVEL:
    sort_by_key(ps->order, n, level);
    break;
  case SORT_EXEC:
    sort_by_key(ps->order, n, work);
    break;
  default:
    break;
  }
  if (ps->o->sort == SORT_RTOPO || ps->o->sort == SORT_RLEVEL)
    for (int32_t i = 0; i < n / 2; i++) {
      int32_t t = ps->order[i];
      ps->order[i] = ps->order[n - 1 - i];
      ps->order[n - 1 - i] = t;
    }
out_with_keys:
  free(level);
  free(work);
  return err;
}

/* ---- gangs ---- */


/* Maps, builds and schedules a gang of the given actors (sorted), its
 * shortest realization (realize.c); pe gets the mapping. *ok = 0 when the
 * kernels do not fit the PMEM or the buffers the VMEM. */
static int make_gang(struct acs_gang_search *ps, int32_t nact, const int32_t *act, int32_t *pe,
                     struct acs_gang *gg, int64_t *opt, int *ok)
{
  int rc = acs_gang_realize(ps->c, ps->o->map_budget, nact, act, pe, gg, opt, ok);

  if (rc < 0)
    return rc;
  if ((rc = acs_gang_setcache_put(&ps->gc, nact, act, *ok ? gg->total : 0, *ok)) < 0 && *ok)
    acs_gang_free(gg);
  return rc;
}

/* The outcome of make_gang for a set scheduled before: -1 when it was not,
 * else ok (with *total). Scheduling is deterministic, so a repeated move is
 * decided without rebuilding its gangs. */
static int known_gang(const struct acs_gang_search *ps, int32_t n, const int32_t *act,
                      int64_t *total)
{
  if (n == 0) {
    *total = 0;
    return 1;
  }
  return acs_gang_setcache_get(&ps->gc, n, act, total);
}

/* Members of slot s with unit u added (add = 1) or removed (add = 0),
 * sorted, into buf; returns the count. */
static int32_t members_with(const struct acs_gang_search *ps, int32_t s, int32_t u, int add,
                            int32_t *buf)
{
  int32_t n = 0;

  for (int32_t i = 0; i < ps->slots[s].nact; i++)
    if (add || ps->c->scc[ps->slots[s].act[i]] != u)
      buf[n++] = ps->slots[s].act[i];
  if (add)
    for (int32_t k = ps->unit_off[u]; k < ps->unit_off[u + 1]; k++)
      buf[n++] = ps->unit_act[k];
  qsort(buf, (size_t)n, sizeof(*buf), acs_cmp_i32);
  return n;
}

/* ---- expected gains ---- */

struct cand {
  int32_t unit;
  int64_t gain;
};

/* The optimal cost of a member set (eq. 5.1 with the best mapping); 1 when
 * it can be mapped, 0 when its kernels do not fit the PMEM. */
static int optimal_cost(struct acs_gang_search *ps, int32_t n, const int32_t *act, int64_t *cost)
{
  int32_t *pe;
  int rc, err;

  if (n == 0) {
    *cost = 0;
    return 1;
  }
  if ((rc = acs_gang_setcache_get(&ps->oc, n, act, cost)) >= 0)
    return rc;
  if (!(pe = malloc((size_t)n * sizeof(*pe))))
    return ACS_ENOMEM;
  rc = acs_gang_map(ps->c, n, act, pe, ps->o->map_budget, cost);
  free(pe);
  if (rc < 0)
    return rc;
  if ((err = acs_gang_setcache_put(&ps->oc, n, act, rc > 0 ? *cost : 0, rc)) < 0)
    return err;
  return rc;
}

/*
 * The cost of slot s's members with unit u added (add = 1: each actor of u
 * placed on the PE where the cost, then the transfers, grow least within
 * the program memory) or removed (add = 0), the others keeping the PEs of
 * s's mapping. O(|PE| (members + channels)) per actor of u. 1 with *cost,
 * 0 when u does not fit, < 0 on error.
 */
static int incremental_cost(struct acs_gang_search *ps, int32_t s, int32_t u, int add,
                            int64_t *cost)
{
  const struct acs_gang_slot *sl = &ps->slots[s];
  int32_t n = 0, *act = ps->ic_act, *pe = ps->ic_pe;
  int64_t *pm = ps->ic_pm;
  int rc = 1;

  for (int32_t p = 0; p < ps->c->xp.npe; p++)
    pm[p] = 0;
  for (int32_t i = 0; i < sl->mn; i++)
    if (add || ps->c->scc[sl->mact[i]] != u) {
      act[n] = sl->mact[i];
      pe[n++] = sl->pe[i];
      pm[sl->pe[i]] += ps->c->g->actors[sl->mact[i]].kernel_bytes;
    }
  for (int32_t k = ps->unit_off[u]; add && k < ps->unit_off[u + 1] && rc == 1; k++) {
    int32_t a = ps->unit_act[k], at = n, bp = -1;
    int64_t bc = INT64_MAX, bx = INT64_MAX, ks = ps->c->g->actors[a].kernel_bytes;
    while (at > 0 && act[at - 1] > a) {   /* keep act sorted */
      act[at] = act[at - 1];
      pe[at] = pe[at - 1];
      at--;
    }
    act[at] = a;
    n++;
    for (int32_t p = 0; p < ps->c->xp.npe; p++) {
      int64_t c, x;
      if (pm[p] + ks > ps->c->xp.pmem)
        continue;
      pe[at] = p;
      c = acs_gang_cost(ps->c, n, act, pe, &x);
      if (c < bc || (c == bc && x < bx)) {
        bc = c;
        bx = x;
        bp = p;
      }
    }
    if (bp < 0)
      rc = 0;
    else {
      pe[at] = bp;
      pm[bp] += ks;
    }
  }
  if (rc == 1)
    *cost = n > 0 ? acs_gang_cost(ps->c, n, act, pe, NULL) : 0;
  return rc;
}

/* Expected gain (eq. 5.2) of moving unit u into slot t, plus the best
 * gain of up to depth - 1 further moves toward t. *valid = 0 when the move
 * breaks a constraint. With gain_map=incremental (and depth 1) the new
 * gangs' costs come from the current mappings (incremental_cost), else from
 * optimal mappings of the new member sets. */
static int expected_gain(struct acs_gang_search *ps, int32_t u, int32_t t, int64_t depth,
                         int64_t *gain, int *valid)
{
  int32_t s = ps->gang_of[ps->unit_act[ps->unit_off[u]]], ns, nt, *buf = ps->members;
  int64_t cs, ct;
  int rc;

  *valid = 0;
  if (s == t || !acs_gang_move_allowed(ps, u, t))
    return ACS_OK;
  if (ps->o->gain_map == 0 && depth <= 1) {
    if ((rc = incremental_cost(ps, s, u, 0, &cs)) <= 0 ||
        (rc = incremental_cost(ps, t, u, 1, &ct)) <= 0)
      return rc;
    *valid = 1;
    *gain = ps->slots[s].opt + ps->slots[t].opt - cs - ct;
    return 1;
  }
  ns = members_with(ps, s, u, 0, buf);
  if ((rc = optimal_cost(ps, ns, buf, &cs)) <= 0)
    return rc;
  nt = members_with(ps, t, u, 1, buf);
  if ((rc = optimal_cost(ps, nt, buf, &ct)) <= 0)
    return rc;
  *valid = 1;
  *gain = ps->slots[s].opt + ps->slots[t].opt - cs - ct;
  if (depth > 1) {
    /* Look ahead: apply the move on the side, take the best follow-up. */
    int32_t *saved_t = ps->slots[t].act, saved_tn = ps->slots[t].nact;
    int32_t *saved_s = ps->slots[s].act, saved_sn = ps->slots[s].nact;
    int64_t saved_to = ps->slots[t].opt, saved_so = ps->slots[s].opt, best = 0;
    int32_t *tb = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
    int32_t *sb = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
    if (!tb || !sb) {
      free(tb);
      free(sb);
      return ACS_ENOMEM;
    }
    ps->slots[t].nact = members_with(ps, t, u, 1, tb);
    ps->slots[s].nact = members_with(ps, s, u, 0, sb);
    ps->slots[t].act = tb;
    ps->slots[s].act = sb;
    ps->slots[t].opt = ct;
    ps->slots[s].opt = cs;
    for (int32_t k = ps->unit_off[u]; k < ps->unit_off[u + 1]; k++)
      ps->gang_of[ps->unit_act[k]] = t;
    acs_gang_moves_changed(ps);
    for (int32_t v = 0; v < ps->c->nscc && rc >= 0; v++) {
      int64_t g2;
      int ok2;
      if (v == u || ps->gang_of[ps->unit_act[ps->unit_off[v]]] == t)
        continue;
      rc = expected_gain(ps, v, t, depth - 1, &g2, &ok2);
      if (rc >= 0 && ok2 && g2 > best)
        best = g2;
    }
    for (int32_t k = ps->unit_off[u]; k < ps->unit_off[u + 1]; k++)
      ps->gang_of[ps->unit_act[k]] = s;
    acs_gang_moves_changed(ps);
    ps->slots[t].act = saved_t;
    ps->slots[t].nact = saved_tn;
    ps->slots[s].act = saved_s;
    ps->slots[s].nact = saved_sn;
    ps->slots[t].opt = saved_to;
    ps->slots[s].opt = saved_so;
    free(tb);
    free(sb);
    if (rc < 0)
      return rc;
    *gain += best;
  }
  return 1;
}

static int cmp_cand(const void *a, const void *b)
{
  const struct cand *x = a, *y = b;

  if (x->gain != y->gain)
    return x->gain > y->gain ? -1 : 1;
  return (x->unit > y->unit) - (x->unit < y->unit);
}

/* ---- committing ---- */

/* Slot s becomes the n actors of `act` mapped on `pe` and realized as gg
 * (the slot takes all three). */
static void set_slot(struct acs_gang_search *ps, int32_t s, int32_t n, int32_t *act, int32_t *pe,
                     struct acs_gang *gg, int64_t opt)
{
  struct acs_gang_slot *sl = &ps->slots[s];

  free(sl->act);
  free(sl->pe);
  acs_gang_free(&sl->gg);
  sl->act = sl->mact = act;
  sl->pe = pe;
  sl->nact = sl->mn = n;
  sl->gg = *gg;
  sl->opt = opt;
  sl->alive = n > 0;
}

/* Whether a move is rejected by what earlier attempts found: a set that
 * could not be scheduled, or gangs known to cost more than `old` together
 * (as much, without zero_gain). O(n) expected. */
static int move_rejected(const struct acs_gang_search *ps, int32_t ns, const int32_t *sa,
                         int32_t nt, const int32_t *ta, int64_t old)
{
  int64_t ts = 0, tt = 0;
  int ks = known_gang(ps, ns, sa, &ts), kt = known_gang(ps, nt, ta, &tt);

  if (ks == 0 || kt == 0)
    return 1;
  if (ks < 0 || kt < 0)
    return 0;
  return ts + tt > old || (ts + tt == old && !ps->o->zero_gain);
}

/* Whether the two new gangs cannot be as short as `old` together (shorter,
 * without zero_gain) whatever their mapping and schedule: then the move is
 * rejected without mapping or scheduling them. */
static int floor_rejects(const struct acs_gang_search *ps, int32_t ns, const int32_t *sa,
                         int32_t nt, const int32_t *ta, int64_t old)
{
  int64_t f = acs_gang_realize_floor(ps->c, ns, sa) + acs_gang_realize_floor(ps->c, nt, ta);

  return f > old || (f == old && !ps->o->zero_gain);
}

/* A new member set: its actors (sorted), their mapping, its realization. */
struct mset {
  int32_t n, *act, *pe;
  struct acs_gang gg;
  int64_t opt;
  int ok;
};

static void mset_free(struct mset *m)
{
  free(m->act);
  free(m->pe);
  acs_gang_free(&m->gg);
  memset(m, 0, sizeof(*m));
}

/* Slot s's members with unit u added or removed, realized (empty: ok). */
static int mset_make(struct acs_gang_search *ps, int32_t s, int32_t u, int add, struct mset *m)
{
  memset(m, 0, sizeof(*m));
  m->act = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  m->pe = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  if (!m->act || !m->pe)
    return ACS_ENOMEM;
  m->n = members_with(ps, s, u, add, m->act);
  m->ok = 1;
  return m->n > 0 ? make_gang(ps, m->n, m->act, m->pe, &m->gg, &m->opt, &m->ok) : ACS_OK;
}

/* Moves unit u from slot s to slot t, which become ms and mt. */
static void commit_move(struct acs_gang_search *ps, int32_t u, int32_t s, int32_t t,
                        struct mset *ms, struct mset *mt)
{
  for (int32_t k = ps->unit_off[u]; k < ps->unit_off[u + 1]; k++)
    ps->gang_of[ps->unit_act[k]] = t;
  acs_gang_moves_changed(ps);
  set_slot(ps, s, ms->n, ms->act, ms->pe, &ms->gg, ms->opt);
  set_slot(ps, t, mt->n, mt->act, mt->pe, &mt->gg, mt->opt);
  memset(ms, 0, sizeof(*ms));
  memset(mt, 0, sizeof(*mt));
}

/*
 * Tries the candidates toward slot t in order of expected gain; commits the
 * first whose real gain is acceptable. Returns 1 when one was committed
 * (*strict = 1 when it strictly improved), 0 when none, < 0 on error.
 */
static int try_moves(struct acs_gang_search *ps, int32_t t, struct cand *cands, int32_t nc,
                     int *strict)
{
  int32_t *sa = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  int32_t *ta = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  int rc = 0;

  *strict = 0;
  if (!sa || !ta) {
    rc = ACS_ENOMEM;
    goto out_with_bufs;
  }
  for (int32_t i = 0; i < nc && rc == 0; i++) {
    int32_t u = cands[i].unit, s = ps->gang_of[ps->unit_act[ps->unit_off[u]]], ns, nt;
    struct mset ms, mt;
    int64_t old, now;
    if (cands[i].gain < 0 || (cands[i].gain == 0 && !ps->o->zero_gain))
      break;
    ns = members_with(ps, s, u, 0, sa);
    nt = members_with(ps, t, u, 1, ta);
    old = ps->slots[s].gg.total + ps->slots[t].gg.total;
    if (move_rejected(ps, ns, sa, nt, ta, old) || floor_rejects(ps, ns, sa, nt, ta, old))
      continue;
    memset(&mt, 0, sizeof(mt));
    if ((rc = mset_make(ps, s, u, 0, &ms)) == ACS_OK && ms.ok)
      rc = mset_make(ps, t, u, 1, &mt);
    if (rc < 0 || !ms.ok || !mt.ok) {
      mset_free(&ms);
      mset_free(&mt);
      continue;   /* on an error rc ends the loop */
    }
    now = (ns > 0 ? ms.gg.total : 0) + mt.gg.total;
    if (now > old || (now == old && !ps->o->zero_gain)) {
      mset_free(&ms);
      mset_free(&mt);
      continue;
    }
    *strict = now < old;
    commit_move(ps, u, s, t, &ms, &mt);
    rc = 1;
  }
out_with_bufs:
  free(sa);
  free(ta);
  return rc;
}

static int collect_candidates(struct acs_gang_search *ps, int32_t t, struct cand *cands,
                              int32_t *nc)
{
  *nc = 0;
  for (int32_t u = 0; u < ps->c->nscc; u++) {
    int64_t gain;
    int valid, rc;
    if (ps->gang_of[ps->unit_act[ps->unit_off[u]]] == t)
      continue;
    if ((rc = expected_gain(ps, u, t, ps->o->depth, &gain, &valid)) < 0)
      return rc;
    if (valid)
      cands[(*nc)++] = (struct cand){ u, gain };
  }
  qsort(cands, (size_t)*nc, sizeof(*cands), cmp_cand);
  return ACS_OK;
}

/* ---- setup and result ---- */

static int init_state(struct acs_gang_search *ps)
{
  const struct acs_gang_ctx *c = ps->c;
  int32_t ns = c->nscc, *cur;

  ps->na = c->g->nactors;
  ps->nslots = ns;
  ps->gang_of = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  ps->order = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  ps->topo_pos = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  ps->unit_off = calloc((size_t)ns + 2, sizeof(int32_t));
  ps->unit_act = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  ps->slots = calloc((size_t)ns + 1, sizeof(*ps->slots));
  ps->qoff = calloc((size_t)ns + 2, sizeof(int32_t));
  ps->qfill = calloc((size_t)ns + 2, sizeof(int32_t));
  ps->qdst = malloc(((size_t)c->g->nchannels + 1) * sizeof(int32_t));
  /* The scratch of every expected gain, allocated once: a candidate list
   * asks for one per unit, and the improvement loop for a list per step. */
  ps->qindeg = malloc(((size_t)ns + 1) * sizeof(int32_t));
  ps->queue = malloc(((size_t)ns + 1) * sizeof(int32_t));
  ps->members = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  ps->ic_act = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  ps->ic_pe = malloc(((size_t)ps->na + 1) * sizeof(int32_t));
  ps->ic_pm = malloc(((size_t)c->xp.npe + 1) * sizeof(int64_t));
  if (!ps->qindeg || !ps->queue || !ps->members || !ps->ic_act || !ps->ic_pe || !ps->ic_pm ||
      !ps->qoff || !ps->qfill || !ps->qdst || !ps->gang_of || !ps->order || !ps->topo_pos || !ps->unit_off || !ps->unit_act || !ps->slots)
    return ACS_ENOMEM;
  for (int32_t a = 0; a < ps->na; a++)
    ps->unit_off[c->scc[a] + 2]++;
  for (int32_t u = 0; u < ns; u++)
    ps->unit_off[u + 2] += ps->unit_off[u + 1];
  cur = ps->unit_off + 1;
  for (int32_t a = 0; a < ps->na; a++)
    ps->unit_act[cur[c->scc[a]]++] = a;
  if (acs_gang_unit_graph(ps) < 0)
    return ACS_ENOMEM;
  return make_order(ps);
}

static void free_state(struct acs_gang_search *ps)
{
  for (int32_t s = 0; ps->slots && s < ps->nslots; s++) {
    free(ps->slots[s].act);
    free(ps->slots[s].pe);
    acs_gang_free(&ps->slots[s].gg);
  }
  free(ps->slots);
  free(ps->gang_of);
  free(ps->order);
  free(ps->topo_pos);
  free(ps->unit_off);
  free(ps->unit_act);
  free(ps->qoff);
  free(ps->qfill);
  free(ps->qdst);
  free(ps->qindeg);
  free(ps->queue);
  free(ps->members);
  free(ps->ic_act);
  free(ps->ic_pe);
  free(ps->ic_pm);
  acs_gang_unit_graph_free(ps);
  acs_gang_setcache_free(&ps->oc);
  acs_gang_setcache_free(&ps->gc);
}

/* Why a unit cannot run even alone. */
static int infeasible_unit(struct acs_gang_search *ps, int32_t u)
{
  const struct acs_sdf_graph *g = ps->c->g;

  for (int32_t k = ps->unit_off[u]; k < ps->unit_off[u + 1]; k++) {
    const struct acs_sdf_actor *a = &g->actors[ps->unit_act[k]];
    if (a->kernel_bytes > ps->c->xp.pmem)
      return acs_diag_set(ps->d, ACS_EINFEASIBLE, NULL, 0, 0,
                          "the kernel of actor '%s' takes %lld bytes but a PE's program memory "
                          "holds %lld", a->name, (long long)a->kernel_bytes,
                          (long long)ps->c->xp.pmem);
  }
  return acs_diag_set(ps->d, ACS_EINFEASIBLE, NULL, 0, 0,
                      "actor '%s' cannot run even in a gang of its own: its kernels or buffers "
                      "(at least one producing firing plus one consuming window per channel) "
                      "exceed a PE's program memory (%lld bytes) or vector memory (%lld bytes)",
                      g->actors[ps->unit_act[ps->unit_off[u]]].name, (long long)ps->c->xp.pmem,
                      (long long)ps->c->xp.vmem);
}

static int initial_partition(struct acs_gang_search *ps)
{
  for (int32_t u = 0; u < ps->c->nscc; u++) {
    struct acs_gang_slot *sl = &ps->slots[u];
    int32_t n = ps->unit_off[u + 1] - ps->unit_off[u];
    int ok, rc;
    sl->act = malloc(((size_t)n + 1) * sizeof(int32_t));
    if (!sl->act)
      return ACS_ENOMEM;
    memcpy(sl->act, ps->unit_act + ps->unit_off[u], (size_t)n * sizeof(int32_t));
    sl->nact = sl->mn = n;
    sl->mact = sl->act;
    for (int32_t i = 0; i < n; i++)
      ps->gang_of[sl->act[i]] = u;
    if (!(sl->pe = malloc(((size_t)n + 1) * sizeof(int32_t))))
      return ACS_ENOMEM;
    if ((rc = make_gang(ps, n, sl->act, sl->pe, &sl->gg, &sl->opt, &ok)) < 0)
      return rc;
    if (!ok)
      return infeasible_unit(ps, u);
    sl->alive = 1;
    if (acs_gang_interrupted(ps->c) && ps->c->interrupted && *ps->c->interrupted)
      return ACS_EINTERRUPTED;
  }
  return ACS_OK;
}

static int32_t alive_count(const struct acs_gang_search *ps)
{
  int32_t n = 0;
  for (int32_t s = 0; s < ps->nslots; s++)
    n += ps->slots[s].alive;
  return n;
}

/* Algorithm 1's loop. */
static int improve(struct acs_gang_search *ps)
{
  struct cand *cands = malloc(((size_t)ps->c->nscc + 1) * sizeof(*cands));
  int32_t idx = 0, t = ps->gang_of[ps->order[0]], nc, idle = 0;
  int rc = ACS_OK;

  if (!cands)
    return ACS_ENOMEM;
  for (int64_t guard = 0; guard < 64 * (int64_t)ps->na * ps->na + 64; guard++) {
    int strict;
    if (ps->c->interrupted && *ps->c->interrupted) {
      rc = ACS_EINTERRUPTED;
      break;
    }
    if (acs_gang_interrupted(ps->c))
      break;   /* the time limit: keep what is committed */
    if ((rc = collect_candidates(ps, t, cands, &nc)) < 0 ||
        (rc = try_moves(ps, t, cands, nc, &strict)) < 0)
      break;
    if (rc == 1) {
      if (strict)
        idle = 0;
      continue;   /* stay on this target: the move may enable others */
    }
    rc = ACS_OK;
    if (++idle > alive_count(ps))
      break;   /* a whole cycle of targets without a gain */
    /* Next node in the order that is not in the target gang. */
    for (int32_t k = 0; k < ps->na; k++) {
      idx = (idx + 1) % ps->na;
      if (ps->gang_of[ps->order[idx]] != t)
        break;
    }
    t = ps->gang_of[ps->order[idx]];
  }
  free(cands);
  return rc;
}

/* Gangs in the topological order of the gang graph, ties by the smallest
 * topological position of their actors. */
static int emit_partition(struct acs_gang_search *ps, struct acs_gang_part *out)
{
  const struct acs_sdf_graph *g = ps->c->g;
  int32_t n = alive_count(ps), *indeg = calloc((size_t)ps->nslots + 1, sizeof(int32_t));
  int32_t *first = malloc(((size_t)ps->nslots + 1) * sizeof(int32_t));
  int err = ACS_OK;

  memset(out, 0, sizeof(*out));
  out->gangs = calloc((size_t)n + 1, sizeof(*out->gangs));
  if (!indeg || !first || !out->gangs) {
    err = ACS_ENOMEM;
    goto out_with_arrays;
  }
  for (int32_t s = 0; s < ps->nslots; s++)
    first[s] = INT32_MAX;
  for (int32_t a = 0; a < ps->na; a++)
    if (ps->topo_pos[a] < first[ps->gang_of[a]])
      first[ps->gang_of[a]] = ps->topo_pos[a];
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    if (cc->src >= 0 && cc->dst >= 0 && ps->gang_of[cc->src] != ps->gang_of[cc->dst])
      indeg[ps->gang_of[cc->dst]]++;
  }
  for (int32_t k = 0; k < n; k++) {
    int32_t pick = -1;
    for (int32_t s = 0; s < ps->nslots; s++)
      if (ps->slots[s].alive && indeg[s] == 0 && (pick < 0 || first[s] < first[pick]))
        pick = s;
    if (pick < 0) {
      err = ACS_EINVAL;   /* a cycle between gangs: a bug of the move rules */
      goto out_with_arrays;
    }
    indeg[pick] = -1;
    for (int32_t ch = 0; ch < g->nchannels; ch++) {
      const struct acs_sdf_channel *cc = &g->channels[ch];
      if (cc->src >= 0 && cc->dst >= 0 && ps->gang_of[cc->src] == pick &&
          ps->gang_of[cc->dst] != pick)
        indeg[ps->gang_of[cc->dst]]--;
    }
    out->gangs[out->ngangs++] = ps->slots[pick].gg;
    memset(&ps->slots[pick].gg, 0, sizeof(ps->slots[pick].gg));
    out->makespan += out->gangs[out->ngangs - 1].total;
  }
out_with_arrays:
  free(indeg);
  free(first);
  if (err < 0)
    acs_gang_part_free(out);
  return err;
}

void acs_gang_part_free(struct acs_gang_part *pt)
{
  for (int32_t i = 0; pt->gangs && i < pt->ngangs; i++)
    acs_gang_free(&pt->gangs[i]);
  free(pt->gangs);
  if (pt->dyn)
    acs_gang_plan_free(pt->dyn);
  free(pt->dyn);
  memset(pt, 0, sizeof(*pt));
}

int acs_gang_partition(struct acs_gang_ctx *c, const struct acs_gang_opts *o, int singletons,
                       struct acs_gang_part *out, struct acs_diag *d)
{
  struct acs_gang_search ps;
  int err;

  memset(&ps, 0, sizeof(ps));
  ps.c = c;
  ps.o = o;
  ps.d = d;
  if ((err = init_state(&ps)) < 0 || (err = initial_partition(&ps)) < 0)
    goto out_with_state;
  c->searching = 1;
  err = singletons ? ACS_OK : improve(&ps);
  c->searching = 0;
  if (err < 0)
    goto out_with_state;
  err = emit_partition(&ps, out);
out_with_state:
  free_state(&ps);
  return err;
}

int acs_gang_part_emit(const struct acs_gang_ctx *c, const struct acs_gang_part *pt,
                       struct acs_gang_plan *pl)
{
  int64_t t = 0;
  int err;

  if (pt->dyn)
    return acs_gang_dyn_emit(pt->dyn, pl);
  for (int32_t i = 0; i < pt->ngangs; i++)
    if ((err = acs_gang_emit(c, &pt->gangs[i], i, t, pl, &t)) < 0)
      return err;
  pl->makespan = t;
  return ACS_OK;
}
