/*
 * lsched.c - list scheduling of one segment of a gang (seed 004, Algorithm
 * 2): every node fires its firings [from, to) in order on its PE or DMA
 * channel, starting when its inputs hold the tokens its next firing needs
 * and (with capacities) its outputs have room, highest level first.
 *
 * The state of every channel is a function of firing counts, so nothing is
 * simulated token by token: tokens arrived on an edge after the source's
 * firings before k are arrived(e, k); a destination firing k needs need(e,
 * k) of them and, once it ends, the edge holds nothing below release(e, k).
 * Space is reserved when a firing starts (eq. 3.9) and given back when the
 * consumer ends (eq. 3.10). The schedule records, for the retiming and
 * buffer phases, the idle time before each firing on its hardware (slack)
 * and how long a ready firing waited for output space (blocking buffers).
 *
 * The engine is event driven: every edge keeps its two verdicts (the
 * consumer lacks tokens, the producer lacks space) and every node the
 * number of each, updated at each start and end for the edges of the node
 * that started or ended only; the nodes a pass has to look at are a bit
 * set in priority order. O(F (deg + n / 64 + h)) for F firings in the
 * segment, n nodes and h PEs and DMA channels.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gsched.h"

/* ---- the token functions in closed form ---- */

/*
 * The engine evaluates the token functions above at every start and end.
 * For a transfer end and for an actor port with a one-entry rate they are
 * linear in the firing index; their coefficients, kept per edge, spare the
 * lookups through the gang node, the channel and the port, and the
 * sequence arithmetic. The rest (CSDF rates, indices below 0) goes to the
 * functions above; the values are the same either way.
 */
struct acs_gang_efn {
  /* arrived(k) = k * a_mul + a_add */
  int64_t a_mul, a_add;
  /* need(k) = min(n_max, (k + 1) * n_mul + n_add), k >= 0 */
  int64_t n_mul, n_add, n_max;
  /* release(k) = max(base, k >= r_last ? r_final : max(0, (k + 1) * r_mul - r_sub)), k >= 0 */
  int64_t r_mul, r_sub, r_last, r_final, base;
  char a_lin, n_lin, r_lin;
};

static void efn_init(const struct acs_gang_ctx *c, const struct acs_gang *gg,
                     const struct acs_gang_edge *e, struct acs_gang_efn *f)
{
  const struct acs_sdf_channel *ch = &c->g->channels[e->chan];

  memset(f, 0, sizeof(*f));
  f->base = e->base;
  if (e->src >= 0 && gg->nodes[e->src].kind != ACS_GANG_N_PROC) {
    f->a_lin = 1;
    f->a_mul = 1;
  } else if (e->src >= 0 && ch->src >= 0 && c->g->ports[ch->sport].rate.n == 1) {
    f->a_lin = 1;
    f->a_mul = c->g->ports[ch->sport].rate.sum;
    f->a_add = ch->d0;
  }
  if (e->dst < 0)
    return;
  if (gg->nodes[e->dst].kind != ACS_GANG_N_PROC) {
    f->n_lin = f->r_lin = 1;
    f->n_mul = f->r_mul = 1;
    f->n_max = f->r_last = INT64_MAX;
  } else if (ch->dst >= 0 && c->g->ports[ch->dport].rate.n == 1) {
    const struct acs_sdf_port *p = &c->g->ports[ch->dport];
    f->n_lin = f->r_lin = 1;
    f->n_mul = f->r_mul = p->rate.sum;
    f->n_add = f->r_sub = p->absorb;
    f->n_max = f->r_final = ch->consumed;
    f->r_last = c->g->actors[ch->dst].total - 1;
  }
}

static inline int64_t tf_arrived(const struct acs_gang_run *r, int32_t e, int64_t k)
{
  const struct acs_gang_efn *f = &r->fn[e];

  return f->a_lin ? k * f->a_mul + f->a_add : acs_gang_e_arrived(r->c, r->gg, &r->gg->edges[e], k);
}

static inline int64_t tf_need(const struct acs_gang_run *r, int32_t e, int64_t k)
{
  const struct acs_gang_efn *f = &r->fn[e];
  int64_t v;

  if (!f->n_lin || k < 0)
    return acs_gang_e_need(r->c, r->gg, &r->gg->edges[e], k);
  v = (k + 1) * f->n_mul + f->n_add;
  return v < f->n_max ? v : f->n_max;
}

static inline int64_t tf_release(const struct acs_gang_run *r, int32_t e, int64_t k)
{
  const struct acs_gang_efn *f = &r->fn[e];
  int64_t v;

  if (!f->r_lin || k < 0)
    return acs_gang_e_release(r->c, r->gg, &r->gg->edges[e], k);
  v = k >= f->r_last ? f->r_final : (k + 1) * f->r_mul - f->r_sub;
  if (v < 0)
    v = 0;
  return v > f->base ? v : f->base;
}

/* ---- the engine ---- */

/* One of the run's fixed-size arrays: where its pointer goes, its length
 * and its element size. */
struct part {
  void **p;
  size_t n, size;
};

/* The run's fixed-size arrays, zeroed, carved from one allocation (a run is
 * made for every gang the search schedules). */
static int alloc_arrays(struct acs_gang_run *r, size_t n, size_t nh, size_t ne, size_t nw)
{
  struct part parts[] = {
    { (void **)&r->from, n, sizeof(int64_t) },
    { (void **)&r->to, n, sizeof(int64_t) },
    { (void **)&r->off, n + 1, sizeof(int64_t) },
    { (void **)&r->node, n, sizeof(*r->node) },
    { (void **)&r->hw_busy, nh, 1 },
    { (void **)&r->runq, nh, sizeof(int32_t) },
    { (void **)&r->idle_since, nh, sizeof(int64_t) },
    { (void **)&r->hw_end, nh, sizeof(int64_t) },
    { (void **)&r->tok, ne, sizeof(*r->tok) },
    { (void **)&r->edge_block, ne, sizeof(int64_t) },
    { (void **)&r->edge_block_hw, ne, sizeof(int32_t) },
    { (void **)&r->act, nw, sizeof(uint64_t) },
    { (void **)&r->idle, nw, sizeof(uint64_t) },
    { (void **)&r->ddr_nodes, nw, sizeof(uint64_t) },
    { (void **)&r->hw_nodes, nw * nh, sizeof(uint64_t) },
    { (void **)&r->pos, n, sizeof(int32_t) },
    { (void **)&r->fn, ne, sizeof(*r->fn) },
    { (void **)&r->dur1, n, sizeof(int64_t) },
  };
  size_t total = 0, k = sizeof(parts) / sizeof(parts[0]);
  char *at;

  for (size_t i = 0; i < k; i++)
    total += (parts[i].n * parts[i].size + 15) / 16 * 16;   /* each 16-byte aligned */
  if (!(r->block = calloc(1, total)))
    return ACS_ENOMEM;
  at = r->block;
  for (size_t i = 0; i < k; i++) {
    *parts[i].p = at;
    at += (parts[i].n * parts[i].size + 15) / 16 * 16;
  }
  return ACS_OK;
}

int acs_gang_run_init(struct acs_gang_run *r, const struct acs_gang_ctx *c,
                      const struct acs_gang *gg)
{
  size_t n = (size_t)gg->nnodes + 1, nh = (size_t)(c->xp.npe + c->xp.ndma) + 1;
  size_t ne = (size_t)gg->nedges + 1, nw = (size_t)(gg->nnodes + 63) / 64 + 1;

  memset(r, 0, sizeof(*r));
  r->c = c;
  r->gg = gg;
  if (alloc_arrays(r, n, nh, ne, nw) < 0)
    return ACS_ENOMEM;
  r->nwords = (gg->nnodes + 63) / 64;
  for (int32_t e = 0; e < gg->nedges; e++)
    efn_init(c, gg, &gg->edges[e], &r->fn[e]);
  for (int32_t v = 0; v < gg->nnodes; v++) {
    const struct acs_gang_node *nd = &gg->nodes[v];
    const struct acs_sdf_seq *ex =
        nd->kind == ACS_GANG_N_PROC ? &c->g->actors[nd->actor].exec : NULL;
    r->node[v].hw = nd->kind == ACS_GANG_N_PROC ? nd->hw : c->xp.npe + nd->hw;
    r->dur1[v] = !ex ? nd->xtime : ex->n == 1 ? ex->v[0] : -1;
  }
  for (int32_t i = 0; i < gg->nnodes; i++) {
    int32_t v = gg->prio[i];
    r->pos[v] = i;
    r->hw_nodes[(size_t)r->node[v].hw * (size_t)r->nwords + (size_t)(i >> 6)] |=
        (uint64_t)1 << (i & 63);
    if (gg->nodes[v].ddr)
      r->ddr_nodes[i >> 6] |= (uint64_t)1 << (i & 63);
  }
  return ACS_OK;
}

void acs_gang_run_free(struct acs_gang_run *r)
{
  free(r->block);
  free(r->t_start);
  free(r->slack);
  memset(r, 0, sizeof(*r));
}

/* Whether node v can start its next firing now, from the token counts;
 * *out_block gets an output edge lacking space when only space is
 * missing. O(degree). The engine keeps the same verdict in counters; this
 * is for the deadlock report. */
static int ready(const struct acs_gang_run *r, int32_t v, int32_t *out_block)
{
  const struct acs_gang *gg = r->gg;

  *out_block = -1;
  for (int32_t i = gg->in_off[v]; i < gg->in_off[v + 1]; i++) {
    int32_t e = gg->in_e[i];
    if (gg->edges[e].src >= 0 && r->tok[e].arr < r->tok[e].need)
      return 0;
  }
  if (!r->caps)
    return 1;
  for (int32_t i = gg->out_off[v]; i < gg->out_off[v + 1]; i++) {
    int32_t e = gg->out_e[i];
    const struct acs_gang_edge *ed = &gg->edges[e];
    if (ed->dst < 0 || ed->cap == INT64_MAX)
      continue;
    if (r->tok[e].resv_next - r->tok[e].rel > ed->cap) {
      *out_block = e;
      return 0;
    }
  }
  return 1;
}

/* The first output edge of v lacking space (ready()'s out_block). */
static int32_t first_full(const struct acs_gang_run *r, int32_t v)
{
  const struct acs_gang *gg = r->gg;

  for (int32_t i = gg->out_off[v]; i < gg->out_off[v + 1]; i++)
    if (r->tok[gg->out_e[i]].full_out)
      return gg->out_e[i];
  return -1;
}

/* Node v in or out of the set a pass looks at. O(1). */
static inline void node_update(struct acs_gang_run *r, int32_t v)
{
  const struct acs_gang_nstate *s = &r->node[v];
  uint64_t bit = (uint64_t)1 << (r->pos[v] & 63);

  if (!s->running && s->nxt < r->to[v] && s->nshort == 0 && (s->nfull == 0 || s->blk_since < 0))
    r->act[r->pos[v] >> 6] |= bit;
  else
    r->act[r->pos[v] >> 6] &= ~bit;
}

/* Edge e's verdict for its consumer after arr or need changed (the
 * consumer's node_update follows). */
static inline void short_update(struct acs_gang_run *r, int32_t e)
{
  struct acs_gang_etok *tk = &r->tok[e];
  char s = tk->arr < tk->need;   /* a DDR source's arr: INT64_MAX */

  if (s != tk->short_in) {
    tk->short_in = s;
    r->node[r->gg->edges[e].dst].nshort += s ? 1 : -1;
  }
}

/* Edge e's verdict for its producer after resv_next or rel changed (the
 * producer's node_update follows). */
static inline void full_update(struct acs_gang_run *r, int32_t e)
{
  struct acs_gang_etok *tk = &r->tok[e];
  char f = tk->resv_next - tk->rel > tk->cap;   /* both counts >= 0: no overflow */

  if (f != tk->full_out) {
    tk->full_out = f;
    r->node[r->gg->edges[e].src].nfull += f ? 1 : -1;
  }
}

/* Edge state after node v's firing k starts (its inputs: the next need;
 * its outputs: what the following start would reserve). Only v's own
 * verdicts change. */
static void edges_started(struct acs_gang_run *r, int32_t v, int64_t k)
{
  const struct acs_gang *gg = r->gg;

  for (int32_t i = gg->in_off[v]; i < gg->in_off[v + 1]; i++) {
    int32_t e = gg->in_e[i];
    if (k + 1 < r->to[v]) {
      r->tok[e].need = tf_need(r, e, k + 1);
      short_update(r, e);
    }
  }
  for (int32_t i = gg->out_off[v]; i < gg->out_off[v + 1]; i++) {
    int32_t e = gg->out_e[i];
    r->tok[e].resv_next = tf_arrived(r, e, k + 2);
    full_update(r, e);
  }
}

/* Edge state after node v's firing k ends (its outputs arrive, its inputs
 * are released): its consumers' and producers' verdicts change. */
static void edges_ended(struct acs_gang_run *r, int32_t v, int64_t k)
{
  const struct acs_gang *gg = r->gg;

  for (int32_t i = gg->out_off[v]; i < gg->out_off[v + 1]; i++) {
    int32_t e = gg->out_e[i];
    r->tok[e].arr = tf_arrived(r, e, k + 1);
    if (gg->edges[e].dst >= 0) {
      short_update(r, e);
      node_update(r, gg->edges[e].dst);
    }
  }
  for (int32_t i = gg->in_off[v]; i < gg->in_off[v + 1]; i++) {
    int32_t e = gg->in_e[i];
    r->tok[e].rel = tf_release(r, e, k);
    if (gg->edges[e].src >= 0) {
      full_update(r, e);
      node_update(r, gg->edges[e].src);
    }
  }
}

/* Edge state at the start of a segment: every firing before `from` ended;
 * the verdicts and counters from scratch. */
static void edges_init(struct acs_gang_run *r)
{
  const struct acs_gang *gg = r->gg;

  for (int32_t v = 0; v < gg->nnodes; v++)
    r->node[v].nshort = r->node[v].nfull = 0;
  for (int32_t e = 0; e < gg->nedges; e++) {
    const struct acs_gang_edge *ed = &gg->edges[e];
    r->tok[e].short_in = r->tok[e].full_out = 0;
    /* Without capacities, or to DDR, or unbounded: never full. */
    r->tok[e].cap = r->caps && ed->dst >= 0 ? ed->cap : INT64_MAX;
    r->tok[e].arr = INT64_MAX;
    if (ed->src >= 0) {
      r->tok[e].arr = tf_arrived(r, e, r->from[ed->src]);
      r->tok[e].resv_next = tf_arrived(r, e, r->from[ed->src] + 1);
    }
    if (ed->dst >= 0) {
      r->tok[e].rel = tf_release(r, e, r->from[ed->dst] - 1);
      r->tok[e].need =
          r->from[ed->dst] < r->to[ed->dst] ? tf_need(r, e, r->from[ed->dst]) : 0;
      short_update(r, e);
    }
    if (ed->src >= 0)
      full_update(r, e);
  }
}

/* The producer whose last firing ended latest: where the tokens came from. */
static int32_t critical_pred(const struct acs_gang_run *r, int32_t v)
{
  const struct acs_gang *gg = r->gg;
  int32_t best = -1;

  for (int32_t i = gg->in_off[v]; i < gg->in_off[v + 1]; i++) {
    int32_t s = gg->edges[gg->in_e[i]].src;
    if (s >= 0 && (best < 0 || r->node[s].last_end > r->node[best].last_end))
      best = s;
  }
  return best;
}

static int push_slack(struct acs_gang_run *r, int32_t hw, int32_t v, int64_t gap, int32_t crit)
{
  int err = acs_grow((void **)&r->slack, sizeof(*r->slack), &r->cap_slack, r->nslack + 1);
  if (err < 0)
    return err;
  r->slack[r->nslack++] = (struct acs_gang_slack){ hw, v, gap, crit };
  return ACS_OK;
}

/* Hardware hw taken (busy = 1) or free: its nodes leave or join idle. */
static inline void hw_set(struct acs_gang_run *r, int32_t hw, int busy)
{
  const uint64_t *m = r->hw_nodes + (size_t)hw * (size_t)r->nwords;

  r->hw_busy[hw] = (char)busy;
  for (int32_t w = 0; w < r->nwords; w++)
    r->idle[w] = busy ? r->idle[w] & ~m[w] : r->idle[w] | m[w];
}

static int start_firing(struct acs_gang_run *r, int32_t v, int64_t t)
{
  const struct acs_gang_node *n = &r->gg->nodes[v];
  int32_t hw = r->node[v].hw;
  int64_t k = r->node[v].nxt;
  int err;

  /* Only the retiming phase, which runs without capacities, reads slack. */
  if (!r->caps && t > r->idle_since[hw] &&
      (err = push_slack(r, hw, v, t - r->idle_since[hw], critical_pred(r, v))) < 0)
    return err;
  if (r->node[v].blk_since >= 0) {
    int32_t e = r->node[v].blk_edge;
    if (t - r->node[v].blk_since > r->edge_block[e]) {
      r->edge_block[e] = t - r->node[v].blk_since;
      r->edge_block_hw[e] = hw;
    }
    r->node[v].blk_since = -1;
  }
  r->t_start[r->off[v] + (k - r->from[v])] = t;
  edges_started(r, v, k);
  r->node[v].running = 1;
  r->runq[r->nrun++] = v;
  r->node[v].run_end = t + (r->dur1[v] >= 0 ? r->dur1[v] : acs_gang_node_dur(r->c, n, k));
  hw_set(r, hw, 1);
  if (n->ddr)
    r->ddr_busy++;
  r->node[v].nxt++;
  node_update(r, v);
  return ACS_OK;
}

/* The nodes of word w that may act now: in act, their hardware free, and
 * the DDR link not full if they need it. */
static uint64_t eligible(const struct acs_gang_run *r, int32_t w)
{
  uint64_t b = r->act[w] & r->idle[w];

  return r->ddr_busy >= r->c->xp.lanes ? b & ~r->ddr_nodes[w] : b;
}

/* One pass at time t over the nodes that may act, in priority order; a
 * node outside act would do nothing here (running, done, lacking tokens,
 * or its wait for space already recorded). A start changes only its own
 * node's verdicts and takes its hardware (and maybe the DDR link's last
 * lane), so one pass in priority order, dropping the nodes a start made
 * ineligible, is Algorithm 2's. *started counts the firings begun.
 * O(n / 64 + the nodes looked at). */
static int pass(struct acs_gang_run *r, int64_t t, int *started)
{
  const int32_t *prio = r->gg->prio;
  int err;

  for (int32_t w = 0; w < r->nwords; w++) {
    uint64_t bits = eligible(r, w);
    while (bits) {
      int32_t v = prio[w * 64 + __builtin_ctzll(bits)];
      bits &= bits - 1;
      if (r->node[v].nfull > 0) {
        /* Inputs there, an output full: it starts waiting for space. */
        r->node[v].blk_since = t;
        r->node[v].blk_edge = first_full(r, v);
        node_update(r, v);
        continue;
      }
      if ((err = start_firing(r, v, t)) < 0)
        return err;
      (*started)++;
      bits &= eligible(r, w);
    }
  }
  return ACS_OK;
}

/* Ends every firing that ends at t. The order does not matter: each end
 * updates its own node, hardware and edges. O(running + degrees). */
static void complete(struct acs_gang_run *r, int64_t t)
{
  const struct acs_gang *gg = r->gg;

  for (int32_t i = 0; i < r->nrun;) {
    int32_t v = r->runq[i], hw;
    const struct acs_gang_node *n = &gg->nodes[v];
    if (r->node[v].run_end != t) {
      i++;
      continue;
    }
    r->runq[i] = r->runq[--r->nrun];
    hw = r->node[v].hw;
    r->node[v].running = 0;
    edges_ended(r, v, r->node[v].nxt - 1);
    node_update(r, v);
    r->node[v].last_end = t;
    hw_set(r, hw, 0);
    r->idle_since[hw] = t;
    if (t > r->hw_end[hw])
      r->hw_end[hw] = t;
    if (n->ddr)
      r->ddr_busy--;
  }
}

/* The blocking edge of a deadlock: a node whose hardware is free and whose
 * inputs are there but whose output is full. */
static int32_t deadlock_edge(const struct acs_gang_run *r)
{
  for (int32_t i = 0; i < r->gg->nnodes; i++) {
    int32_t v = r->gg->prio[i], blk;
    if (r->node[v].nxt < r->to[v] && !ready(r, v, &blk) && blk >= 0)
      return blk;
  }
  return -1;
}

/* Every node before its first firing, every hardware free. */
static void state_init(struct acs_gang_run *r)
{
  const struct acs_gang *gg = r->gg;
  int32_t nh = r->c->xp.npe + r->c->xp.ndma;
  int64_t total = 0;

  r->ok = 0;
  r->makespan = 0;
  r->nslack = 0;
  r->dead_edge = -1;
  r->ddr_busy = 0;
  r->nrun = 0;
  for (int32_t v = 0; v < gg->nnodes; v++) {
    r->off[v] = total;
    total += r->to[v] - r->from[v];
    r->node[v].nxt = r->from[v];
    r->node[v].running = 0;
    r->node[v].last_end = 0;
    r->node[v].blk_since = -1;
  }
  r->off[gg->nnodes] = total;
  for (int32_t w = 0; w < r->nwords; w++)
    r->idle[w] = r->act[w] = 0;
  for (int32_t h = 0; h < nh; h++) {
    hw_set(r, h, 0);
    r->idle_since[h] = 0;
    r->hw_end[h] = 0;
  }
  for (int32_t e = 0; e < gg->nedges; e++) {
    r->edge_block[e] = 0;
    r->edge_block_hw[e] = -1;
  }
}

int acs_gang_run_segment(struct acs_gang_run *r, int caps)
{
  const struct acs_gang *gg = r->gg;
  int32_t n = gg->nnodes;
  int64_t t = 0;
  int err;

  r->caps = caps;
  state_init(r);
  if ((err = acs_grow((void **)&r->t_start, sizeof(*r->t_start), &r->cap_start,
                      (size_t)r->off[n] + 1)) < 0)
    return err;
  edges_init(r);
  for (int32_t v = 0; v < n; v++)
    node_update(r, v);
  for (;;) {
    int started, zero;
    int64_t next = INT64_MAX;
    /* Start what can start; zero-length firings end at once and may
     * enable more at the same instant. */
    do {
      started = 0;
      zero = 0;
      if ((err = pass(r, t, &started)) < 0)
        return err;
      for (int32_t i = 0; started && i < r->nrun && !zero; i++)
        zero = r->node[r->runq[i]].run_end == t;
      if (zero)
        complete(r, t);
    } while (zero);
    for (int32_t i = 0; i < r->nrun; i++)
      if (r->node[r->runq[i]].run_end < next)
        next = r->node[r->runq[i]].run_end;
    if (next == INT64_MAX)
      break;
    t = next;
    complete(r, t);
    if (r->makespan < t)
      r->makespan = t;
  }
  for (int32_t v = 0; v < n; v++)
    if (r->node[v].nxt < r->to[v]) {
      r->dead_edge = deadlock_edge(r);
      return ACS_OK;
    }
  r->ok = 1;
  return ACS_OK;
}
