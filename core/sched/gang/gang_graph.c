/*
 * gang_graph.c - the family context (platform, per-actor loop regions, strongly
 * connected components) and the CUKG-to-CAKG transformation of one gang
 * (seed 004, section 3.1.4): processing nodes, transfer nodes, their edges
 * with VMEM placement and token bases, the loop region and loop repetition
 * vector of every node, and list-scheduling priorities.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gang.h"

/* ---- platform ---- */

int acs_gang_plat_init(struct acs_gang_plat *xp, const struct acs_platform *p, struct acs_diag *d)
{
  int64_t align = (int64_t)acs_platform_get(p, ACS_P_CMX_ALIGN_BYTES);

  memset(xp, 0, sizeof(*xp));
  xp->p = p;
  xp->npe = (int32_t)acs_platform_get(p, ACS_P_PE_COUNT);
  xp->ndma = (int32_t)acs_platform_get(p, ACS_P_DMA_CHANNELS);
  xp->lanes = acs_ddrlink_lanes(p);
  xp->align = align > 0 ? align : 1;
  xp->vmem = (int64_t)acs_platform_get(p, ACS_P_PE_VMEM_KIB) * 1024;
  xp->vmem -= xp->vmem % xp->align;
  xp->pmem = (int64_t)acs_platform_get(p, ACS_P_PE_PMEM_KIB) * 1024;
  if (xp->vmem <= 0 || xp->pmem <= 0)
    return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                        "platform '%s' has no %s (pe_vmem_kib and pe_pmem_kib give the ISP's "
                        "local memories; see platforms/isp4.csv)",
                        p->name, xp->vmem <= 0 ? "per-PE vector memory" : "per-PE program memory");
  return ACS_OK;
}

int64_t acs_gang_slot_bytes(const struct acs_gang_plat *xp, int64_t token_bytes)
{
  return (token_bytes + xp->align - 1) / xp->align * xp->align;
}

/* ---- per-actor loop regions ---- */

/*
 * Everything a firing touches, as one row per firing: its time, and per
 * port the tokens it needs more, releases more or produces than the firing
 * before. Rows k and k + lam are compared to find where the actor repeats.
 */
static int64_t *firing_rows(const struct acs_sdf_graph *g, int32_t a, int64_t *width)
{
  int64_t T = g->actors[a].total, w = 1, *rows;
  int32_t nin = g->in_off[a + 1] - g->in_off[a], nout = g->out_off[a + 1] - g->out_off[a];
  size_t cells;

  w += 2 * (int64_t)nin + nout;
  *width = w;
  if (acs_mul_size((size_t)T, (size_t)w, &cells) || !(rows = malloc((cells + 1) * sizeof(*rows))))
    return NULL;
  for (int64_t k = 0; k < T; k++)
    rows[k * w] = acs_sdf_exec(g, a, k);
  for (int32_t i = 0; i < nin; i++) {
    int32_t c = g->in_ch[g->in_off[a] + i];
    int64_t pn = 0, pr = 0;
    for (int64_t k = 0; k < T; k++) {
      int64_t n = acs_sdf_need(g, c, k), r = acs_sdf_release(g, c, k);
      rows[k * w + 1 + 2 * i] = n - pn;
      rows[k * w + 2 + 2 * i] = r - pr;
      pn = n;
      pr = r;
    }
  }
  for (int32_t i = 0; i < nout; i++) {
    int32_t c = g->out_ch[g->out_off[a] + i];
    int64_t pp = 0;
    for (int64_t k = 0; k < T; k++) {
      int64_t p = acs_sdf_prod(g, c, k);
      rows[k * w + 1 + 2 * nin + i] = p - pp;
      pp = p;
    }
  }
  return rows;
}

/* Whether every firing of actor a looks the same: one execution time, one
 * rate per port, no absorbed tokens. */
static int steady(const struct acs_sdf_graph *g, int32_t a)
{
  if (g->actors[a].exec.n != 1)
    return 0;
  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++) {
    const struct acs_sdf_port *p = &g->ports[g->channels[g->in_ch[i]].dport];
    if (p->rate.n != 1 || p->absorb != 0)
      return 0;
  }
  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++)
    if (g->channels[g->out_ch[i]].sport >= 0 &&
        g->ports[g->channels[g->out_ch[i]].sport].rate.n != 1)
      return 0;
  return 1;
}

/*
 * The loop region of an actor: the longest range of firings in which
 * everything repeats with period lam, lam the lcm of the lengths of its
 * sequences that repeat within the run (a sequence as long as the run, such
 * as a filter's [2, 1, ..., 1, 0], contributes its constant middle). A loop
 * body running a multiple of lam firings from anywhere in the region sees
 * the same token increments in every iteration. O(T (ports)) per actor.
 */
static int loop_region(const struct acs_sdf_graph *g, int32_t a, struct acs_gang_actor_info *inf)
{
  const struct acs_sdf_actor *ac = &g->actors[a];
  int64_t T = ac->total, lam = 1, best_s = 0, best_len = 0, s = 0, w, *rows;

  if (ac->exec.n < T)
    lam = ac->exec.n;
  for (int32_t i = 0; i < g->nports; i++)
    if (g->ports[i].actor == a && g->ports[i].rate.n < T) {
      int64_t n = g->ports[i].rate.n, x = lam, y = n;
      while (y) {
        int64_t t = x % y;
        x = y;
        y = t;
      }
      lam = lam / x * n;
    }
  inf->lam = lam;
  inf->lo = inf->hi = 0;
  if (2 * lam > T)
    return ACS_OK;
  if (steady(g, a)) {
    /* Every row is the same: the whole run repeats (what the comparison
     * below finds, without building T rows). */
    inf->hi = T;
    return ACS_OK;
  }
  if (!(rows = firing_rows(g, a, &w)))
    return ACS_ENOMEM;
  for (int64_t k = 0; k + lam <= T; k++) {
    int bad = k + lam == T || memcmp(rows + k * w, rows + (k + lam) * w, (size_t)w * sizeof(*rows));
    if (bad) {
      if (k - s > best_len) {
        best_len = k - s;
        best_s = s;
      }
      s = k + 1;
    }
  }
  free(rows);
  /* Firings [best_s, best_s + best_len) match their successors lam later,
   * so the region reaches lam beyond. */
  if (best_len >= lam) {
    inf->lo = best_s;
    inf->hi = best_s + best_len + lam;
  }
  return ACS_OK;
}

static int64_t actor_work(const struct acs_sdf_graph *g, int32_t a)
{
  const struct acs_sdf_seq *s = &g->actors[a].exec;
  int64_t T = g->actors[a].total;

  return (T / s->n) * s->sum + s->pre[T % s->n];
}

static int64_t window_max(const struct acs_sdf_graph *g, int32_t ch);

/* ---- strongly connected components (Tarjan, iterative) ---- */

struct tarjan {
  const struct acs_sdf_graph *g;
  int32_t *index, *low, *stack, *scc, *it, *call;
  char *on;
  int32_t next, top, nscc;
};

static void tarjan_visit(struct tarjan *t, int32_t root)
{
  const struct acs_sdf_graph *g = t->g;
  int32_t depth = 0;

  t->call[depth++] = root;
  t->index[root] = t->low[root] = t->next++;
  t->stack[t->top++] = root;
  t->on[root] = 1;
  t->it[root] = g->out_off[root];
  while (depth > 0) {
    int32_t v = t->call[depth - 1];
    if (t->it[v] < g->out_off[v + 1]) {
      int32_t w = g->channels[g->out_ch[t->it[v]++]].dst;
      if (w < 0)
        continue;
      if (t->index[w] < 0) {
        t->index[w] = t->low[w] = t->next++;
        t->stack[t->top++] = w;
        t->on[w] = 1;
        t->it[w] = g->out_off[w];
        t->call[depth++] = w;
      } else if (t->on[w] && t->index[w] < t->low[v]) {
        t->low[v] = t->index[w];
      }
      continue;
    }
    depth--;
    if (depth > 0 && t->low[v] < t->low[t->call[depth - 1]])
      t->low[t->call[depth - 1]] = t->low[v];
    if (t->low[v] == t->index[v]) {
      int32_t w;
      do {
        w = t->stack[--t->top];
        t->on[w] = 0;
        t->scc[w] = t->nscc;
      } while (w != v);
      t->nscc++;
    }
  }
}

static int compute_sccs(struct acs_gang_ctx *c)
{
  int32_t n = c->g->nactors;
  struct tarjan t = { c->g, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0 };
  int err = ACS_OK;

  t.index = malloc(((size_t)n + 1) * sizeof(int32_t));
  t.low = malloc(((size_t)n + 1) * sizeof(int32_t));
  t.stack = malloc(((size_t)n + 1) * sizeof(int32_t));
  t.it = malloc(((size_t)n + 1) * sizeof(int32_t));
  t.call = malloc(((size_t)n + 1) * sizeof(int32_t));
  t.on = calloc((size_t)n + 1, 1);
  c->scc = malloc(((size_t)n + 1) * sizeof(int32_t));
  if (!t.index || !t.low || !t.stack || !t.it || !t.call || !t.on || !c->scc) {
    err = ACS_ENOMEM;
    goto out_with_state;
  }
  t.scc = c->scc;
  for (int32_t v = 0; v < n; v++)
    t.index[v] = -1;
  for (int32_t v = 0; v < n; v++)
    if (t.index[v] < 0)
      tarjan_visit(&t, v);
  c->nscc = t.nscc;
out_with_state:
  free(t.index);
  free(t.low);
  free(t.stack);
  free(t.it);
  free(t.call);
  free(t.on);
  return err;
}

/* Each channel's terms of acs_gang_cost, computed once: the cost is
 * evaluated for every PE an actor may take while expected gains are
 * collected. */
static int chan_costs(struct acs_gang_ctx *c)
{
  const struct acs_sdf_graph *g = c->g;
  const struct acs_platform *p = c->xp.p;

  if (!(c->ccost = calloc((size_t)g->nchannels + 1, sizeof(*c->ccost))))
    return ACS_ENOMEM;
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    int64_t ddr = acs_platform_ddr_cycles(p, cc->token_bytes);
    int64_t cmx = acs_platform_cmx_cycles(p, cc->token_bytes);
    c->ccost[ch].ddr_token = ddr;
    c->ccost[ch].cmx_token = cmx;
    c->ccost[ch].to_ddr = acs_sat_mul_i64(cc->produced, ddr);
    c->ccost[ch].from_ddr = acs_sat_mul_i64(cc->consumed, ddr);
    c->ccost[ch].local = acs_sat_mul_i64(cc->produced, cmx);
  }
  return ACS_OK;
}

int acs_gang_ctx_init(struct acs_gang_ctx *c, const struct acs_sdf_graph *g,
                      const struct acs_platform *p, struct acs_diag *d)
{
  int err;

  memset(c, 0, sizeof(*c));
  c->g = g;
  c->max_iter = 32;
  if ((err = acs_gang_plat_init(&c->xp, p, d)) < 0)
    return err;
  c->info = calloc((size_t)g->nactors + 1, sizeof(*c->info));
  if (!c->info)
    return ACS_ENOMEM;
  for (int32_t a = 0; a < g->nactors; a++) {
    if ((err = loop_region(g, a, &c->info[a])) < 0) {
      acs_gang_ctx_free(c);
      return err;
    }
    c->info[a].work = actor_work(g, a);
    c->info[a].load = acs_platform_ddr_cycles(c->xp.p, g->actors[a].kernel_bytes);
  }
  if (!(c->wmax = calloc((size_t)g->nchannels + 1, sizeof(int64_t)))) {
    acs_gang_ctx_free(c);
    return ACS_ENOMEM;
  }
  for (int32_t ch = 0; ch < g->nchannels; ch++)
    if (g->channels[ch].dst >= 0)
      c->wmax[ch] = window_max(g, ch);
  if ((err = chan_costs(c)) < 0) {
    acs_gang_ctx_free(c);
    return err;
  }
  if ((err = compute_sccs(c)) < 0) {
    acs_gang_ctx_free(c);
    return err;
  }
  return ACS_OK;
}

void acs_gang_ctx_free(struct acs_gang_ctx *c)
{
  free(c->info);
  free(c->scc);
  free(c->wmax);
  free(c->ccost);
  c->ccost = NULL;
  c->info = NULL;
  c->scc = NULL;
  c->wmax = NULL;
}

int acs_gang_interrupted(const struct acs_gang_ctx *c)
{
  return (c->interrupted && *c->interrupted) ||
         (c->deadline > 0 && acs_now_seconds() > c->deadline);
}

/* ---- costs ---- */

int64_t acs_gang_cost(const struct acs_gang_ctx *c, int32_t nact, const int32_t *act,
                      const int32_t *pe, int64_t *xfer_time)
{
  const struct acs_sdf_graph *g = c->g;
  int64_t load[64] = { 0 }, *pl = load, dma = 0, ddr = 0, local = 0, best;
  int32_t npe = c->xp.npe, where_buf[256], *where = where_buf;

  /* where[a]: actor a's index in act, or -1; O(actors + channels) in all. */
  if (g->nactors > 256 && !(where = malloc((size_t)g->nactors * sizeof(*where))))
    return INT64_MAX;
  if (npe > 64 && !(pl = calloc((size_t)npe, sizeof(*pl)))) {
    if (where != where_buf)
      free(where);
    return INT64_MAX;
  }
  for (int32_t a = 0; a < g->nactors; a++)
    where[a] = -1;
  for (int32_t i = 0; i < nact; i++)
    where[act[i]] = i;
  for (int32_t i = 0; i < nact; i++) {
    pl[pe[i]] = acs_sat_add_i64(pl[pe[i]], c->info[act[i]].work);
    ddr = acs_sat_add_i64(ddr, c->info[act[i]].load);
  }
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    int32_t s = cc->src >= 0 ? where[cc->src] : -1;
    int32_t t = cc->dst >= 0 ? where[cc->dst] : -1;
    if (s < 0 && t < 0)
      continue;
    if (s >= 0 && t >= 0) {
      if (pe[s] != pe[t])
        local = acs_sat_add_i64(local, c->ccost[ch].local);
    } else if (s >= 0) {
      ddr = acs_sat_add_i64(ddr, c->ccost[ch].to_ddr);
    } else {
      ddr = acs_sat_add_i64(ddr, c->ccost[ch].from_ddr);
    }
  }
  dma = acs_sat_add_i64(ddr, local);
  best = (ddr + c->xp.lanes - 1) / c->xp.lanes;   /* the DDR link */
  if ((dma + c->xp.ndma - 1) / c->xp.ndma > best)
    best = (dma + c->xp.ndma - 1) / c->xp.ndma;
  for (int32_t q = 0; q < npe; q++)
    if (pl[q] > best)
      best = pl[q];
  if (pl != load)
    free(pl);
  if (where != where_buf)
    free(where);
  if (xfer_time)
    *xfer_time = local;
  return best;
}

/* ---- building a gang's model ---- */

void acs_gang_free(struct acs_gang *gg)
{
  free(gg->act);
  free(gg->pe);
  free(gg->nodes);
  free(gg->edges);
  free(gg->in_off);
  free(gg->in_e);
  free(gg->out_off);
  free(gg->out_e);
  free(gg->prio);
  free(gg->r);
  memset(gg, 0, sizeof(*gg));
}

int32_t acs_gang_add_node(struct acs_gang_builder *b, const struct acs_gang_node *n)
{
  struct acs_gang *gg = b->gg;
  int err =
      acs_grow((void **)&gg->nodes, sizeof(*gg->nodes), &b->cap_nodes, (size_t)gg->nnodes + 1);
  if (err < 0)
    return err;
  gg->nodes[gg->nnodes] = *n;
  return gg->nnodes++;
}

int acs_gang_add_edge(struct acs_gang_builder *b, int32_t src, int32_t dst, int32_t chan,
                      int32_t pe, int64_t base)
{
  struct acs_gang *gg = b->gg;
  const struct acs_sdf_graph *g = b->c->g;
  struct acs_gang_edge *e;
  int err =
      acs_grow((void **)&gg->edges, sizeof(*gg->edges), &b->cap_edges, (size_t)gg->nedges + 1);
  if (err < 0)
    return err;
  e = &gg->edges[gg->nedges++];
  memset(e, 0, sizeof(*e));
  e->src = src;
  e->dst = dst;
  e->chan = chan;
  e->pe = pe;
  e->base = base;
  e->slot = acs_gang_slot_bytes(&b->c->xp, g->channels[chan].token_bytes);
  e->cap = INT64_MAX;
  e->pmax = src >= 0 && gg->nodes[src].kind == ACS_GANG_N_PROC
                ? g->ports[g->channels[chan].sport].rate.max
                : 1;
  e->wmax = 1;
  return ACS_OK;
}

struct acs_gang_node acs_gang_xfer_node(const struct acs_gang_ctx *c, int kind, int32_t ch,
                                        int32_t from, int32_t to, int64_t f0, int64_t T)
{
  const struct acs_sdf_channel *cc = &c->g->channels[ch];
  struct acs_gang_node n;

  memset(&n, 0, sizeof(n));
  n.kind = (uint8_t)kind;
  n.actor = -1;
  n.chan = ch;
  n.pe_from = from;
  n.pe_to = to;
  n.ddr = kind != ACS_GANG_N_XLOCAL;
  n.bytes = cc->token_bytes;
  n.xtime = n.ddr ? c->ccost[ch].ddr_token : c->ccost[ch].cmx_token;
  n.f0 = f0;
  n.T = T;
  n.lo = f0;
  n.hi = f0 + T;
  n.lam = 1;
  return n;
}

/* The nodes and edges of one channel touching the gang (section 3.1.4). */
static int add_channel(struct acs_gang_builder *b, int32_t ch, const int32_t *node_of)
{
  const struct acs_gang_ctx *c = b->c;
  const struct acs_sdf_channel *cc = &c->g->channels[ch];
  int32_t s = cc->src >= 0 ? node_of[cc->src] : -1, t = cc->dst >= 0 ? node_of[cc->dst] : -1;
  struct acs_gang *gg = b->gg;
  int32_t x;
  int err;

  if (s >= 0 && t >= 0) {
    int32_t ps = gg->nodes[s].hw, pt = gg->nodes[t].hw;
    if (ps == pt)
      return acs_gang_add_edge(b, s, t, ch, ps, 0);
    if (cc->produced == 0)
      return ACS_OK;
    if ((x = acs_gang_add_node(b, &(struct acs_gang_node){ 0 })) < 0)
      return x;
    gg->nodes[x] = acs_gang_xfer_node(c, ACS_GANG_N_XLOCAL, ch, ps, pt, cc->d0, cc->produced);
    if ((err = acs_gang_add_edge(b, s, x, ch, ps, cc->d0)) < 0)
      return err;
    return acs_gang_add_edge(b, x, t, ch, pt, 0);
  }
  if (s >= 0) {
    if (cc->produced == 0)
      return ACS_OK;
    if ((x = acs_gang_add_node(b, &(struct acs_gang_node){ 0 })) < 0)
      return x;
    gg->nodes[x] =
        acs_gang_xfer_node(c, ACS_GANG_N_XOUT, ch, gg->nodes[s].hw, -1, cc->d0, cc->produced);
    if ((err = acs_gang_add_edge(b, s, x, ch, gg->nodes[s].hw, cc->d0)) < 0)
      return err;
    return acs_gang_add_edge(b, x, -1, ch, -1, 0);
  }
  if (t >= 0) {
    if (cc->consumed == 0)
      return ACS_OK;
    if ((x = acs_gang_add_node(b, &(struct acs_gang_node){ 0 })) < 0)
      return x;
    gg->nodes[x] = acs_gang_xfer_node(c, ACS_GANG_N_XIN, ch, -1, gg->nodes[t].hw, 0, cc->consumed);
    if ((err = acs_gang_add_edge(b, -1, x, ch, -1, 0)) < 0)
      return err;
    return acs_gang_add_edge(b, x, t, ch, gg->nodes[t].hw, 0);
  }
  return ACS_OK;
}

/* Transfers on DMA channels by longest processing time first (ties by node). */
static void assign_dma(struct acs_gang *gg, int32_t ndma)
{
  int64_t busy[64] = { 0 };

  if (ndma > 64)
    ndma = 64;
  for (;;) {
    int32_t best = -1;
    int64_t bw = -1;
    for (int32_t i = 0; i < gg->nnodes; i++) {
      struct acs_gang_node *n = &gg->nodes[i];
      int64_t w = n->T * n->xtime;
      if (n->kind != ACS_GANG_N_PROC && n->hw < 0 && w > bw) {
        bw = w;
        best = i;
      }
    }
    if (best < 0)
      return;
    int32_t ch = 0;
    for (int32_t k = 1; k < ndma; k++)
      if (busy[k] < busy[ch])
        ch = k;
    gg->nodes[best].hw = ch;
    busy[ch] += bw;
  }
}

static int build_csr(struct acs_gang *gg)
{
  int32_t n = gg->nnodes;

  gg->in_off = calloc((size_t)n + 2, sizeof(int32_t));
  gg->out_off = calloc((size_t)n + 2, sizeof(int32_t));
  gg->in_e = malloc(((size_t)gg->nedges + 1) * sizeof(int32_t));
  gg->out_e = malloc(((size_t)gg->nedges + 1) * sizeof(int32_t));
  if (!gg->in_off || !gg->out_off || !gg->in_e || !gg->out_e)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < gg->nedges; e++) {
    if (gg->edges[e].dst >= 0)
      gg->in_off[gg->edges[e].dst + 2]++;
    if (gg->edges[e].src >= 0)
      gg->out_off[gg->edges[e].src + 2]++;
  }
  for (int32_t v = 0; v < n; v++) {
    gg->in_off[v + 2] += gg->in_off[v + 1];
    gg->out_off[v + 2] += gg->out_off[v + 1];
  }
  for (int32_t e = 0; e < gg->nedges; e++) {
    if (gg->edges[e].dst >= 0)
      gg->in_e[gg->in_off[gg->edges[e].dst + 1]++] = e;
    if (gg->edges[e].src >= 0)
      gg->out_e[gg->out_off[gg->edges[e].src + 1]++] = e;
  }
  return ACS_OK;
}

/* Largest window [release(k - 1), need(k)) a destination firing holds. */
static int64_t window_max(const struct acs_sdf_graph *g, int32_t ch)
{
  const struct acs_sdf_port *p = &g->ports[g->channels[ch].dport];
  int64_t T = g->actors[g->channels[ch].dst].total, w = 0;

  /* Without absorbed tokens firing k's window is its rate. */
  if (p->absorb == 0 && T >= p->rate.n)
    return p->rate.max;
  for (int64_t k = 0; k < T; k++) {
    int64_t x = acs_sdf_need(g, ch, k) - acs_sdf_release(g, ch, k - 1);
    if (x > w)
      w = x;
  }
  return w;
}

/* Longest path to a sink (per-firing times), over the nodes in reverse
 * discovery order; edges closing a cycle are ignored. O(V + E). */
static int priorities(struct acs_gang *gg, const struct acs_gang_ctx *c)
{
  int32_t n = gg->nnodes, *order = malloc(((size_t)n + 1) * sizeof(*order));
  int32_t *stack = malloc(((size_t)n + 1) * sizeof(*stack)),
          *it = malloc(((size_t)n + 1) * sizeof(*it));
  char *state = calloc((size_t)n + 1, 1);
  int32_t no = 0;
  int err = ACS_OK;

  gg->prio = malloc(((size_t)n + 1) * sizeof(*gg->prio));
  if (!order || !stack || !it || !state || !gg->prio) {
    err = ACS_ENOMEM;
    goto out_with_state;
  }
  /* Post-order DFS: a node is finished after its successors. */
  for (int32_t r = 0; r < n; r++) {
    int32_t top = 0;
    if (state[r])
      continue;
    stack[top++] = r;
    state[r] = 1;
    it[r] = gg->out_off[r];
    while (top > 0) {
      int32_t v = stack[top - 1];
      if (it[v] < gg->out_off[v + 1]) {
        int32_t w = gg->edges[gg->out_e[it[v]++]].dst;
        if (w >= 0 && !state[w]) {
          state[w] = 1;
          it[w] = gg->out_off[w];
          stack[top++] = w;
        }
        continue;
      }
      state[v] = 2;
      order[no++] = v;
      top--;
    }
  }
  for (int32_t i = 0; i < no; i++) {
    int32_t v = order[i];
    struct acs_gang_node *nd = &gg->nodes[v];
    int64_t own = nd->kind == ACS_GANG_N_PROC ? (nd->T > 0 ? c->info[nd->actor].work / nd->T : 0)
                                              : nd->xtime,
            best = 0;
    for (int32_t k = gg->out_off[v]; k < gg->out_off[v + 1]; k++) {
      int32_t w = gg->edges[gg->out_e[k]].dst;
      if (w >= 0 && state[w] == 3 && gg->nodes[w].level > best)
        best = gg->nodes[w].level;
    }
    nd->level = own + best;
    state[v] = 3;
  }
  for (int32_t i = 0; i < n; i++)
    gg->prio[i] = i;
  /* Insertion sort by level, highest first, ties by node id (gangs are small). */
  for (int32_t i = 1; i < n; i++) {
    int32_t v = gg->prio[i], j = i;
    while (j > 0 &&
           (gg->nodes[gg->prio[j - 1]].level < gg->nodes[v].level ||
            (gg->nodes[gg->prio[j - 1]].level == gg->nodes[v].level && gg->prio[j - 1] > v))) {
      gg->prio[j] = gg->prio[j - 1];
      j--;
    }
    gg->prio[j] = v;
  }
out_with_state:
  free(order);
  free(stack);
  free(it);
  free(state);
  return err;
}

/* Everything after the nodes and edges: transfers on DMA channels,
 * consumer windows, adjacency, priorities, the loop vector. */
int acs_gang_finish(const struct acs_gang_ctx *c, struct acs_gang *gg)
{
  int err;

  for (int32_t i = 0; i < gg->nnodes; i++)
    if (gg->nodes[i].kind != ACS_GANG_N_PROC)
      gg->nodes[i].hw = -1;
  assign_dma(gg, c->xp.ndma);
  for (int32_t e = 0; e < gg->nedges; e++) {
    struct acs_gang_edge *ed = &gg->edges[e];
    if (ed->dst >= 0 && gg->nodes[ed->dst].kind == ACS_GANG_N_PROC)
      ed->wmax = c->wmax[ed->chan];
  }
  if ((err = build_csr(gg)) < 0 || (err = priorities(gg, c)) < 0 ||
      (err = acs_gang_loop_vector(c, gg)) < 0)
    return err;
  gg->r = calloc((size_t)gg->nnodes + 1, sizeof(*gg->r));
  return gg->r ? ACS_OK : ACS_ENOMEM;
}

int acs_gang_build(const struct acs_gang_ctx *c, struct acs_gang *gg)
{
  const struct acs_sdf_graph *g = c->g;
  struct acs_gang_builder b = { c, gg, 0, 0 };
  int32_t *node_of = malloc(((size_t)g->nactors + 1) * sizeof(*node_of));
  int err = ACS_OK;

  if (!node_of)
    return ACS_ENOMEM;
  for (int32_t a = 0; a < g->nactors; a++)
    node_of[a] = -1;
  for (int32_t i = 0; i < gg->nact; i++) {
    int32_t a = gg->act[i], x;
    struct acs_gang_node n;
    memset(&n, 0, sizeof(n));
    n.kind = ACS_GANG_N_PROC;
    n.actor = a;
    n.chan = -1;
    n.hw = gg->pe[i];
    n.pe_from = n.pe_to = gg->pe[i];
    n.T = g->actors[a].total;
    n.lo = c->info[a].lo;
    n.hi = c->info[a].hi;
    n.lam = c->info[a].lam;
    if ((x = acs_gang_add_node(&b, &n)) < 0) {
      err = x;
      goto out_with_map;
    }
    node_of[a] = x;
  }
  for (int32_t ch = 0; ch < g->nchannels && err == ACS_OK; ch++)
    err = add_channel(&b, ch, node_of);
  if (err == ACS_OK)
    err = acs_gang_finish(c, gg);
out_with_map:
  free(node_of);
  return err;
}

int acs_gang_kernels_fit(const struct acs_gang_ctx *c, struct acs_diag *d)
{
  for (int32_t a = 0; a < c->g->nactors; a++)
    if (c->g->actors[a].kernel_bytes > c->xp.pmem)
      return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                          "the kernel of actor '%s' takes %lld bytes but a PE's program memory "
                          "holds %lld", c->g->actors[a].name,
                          (long long)c->g->actors[a].kernel_bytes, (long long)c->xp.pmem);
  return ACS_OK;
}
