/*
 * naive.c - the naive list-scheduling baseline (seed 004, section 6.4.2):
 * kernels are loaded and replaced dynamically, one per PE at a time, and a
 * node's firings may run on different PEs over the run. A PE fires its
 * kernel as soon as its input buffers hold the next firing's window and
 * its output buffers have room. The DMA, whenever free, does the first of:
 *
 *  1. deliver an input token of the lowest-level loaded node (from another
 *     PE's output buffer, or from DDR) when its input buffer has room; a
 *     graph output waiting in an output buffer goes to DDR here too;
 *  2. load the kernel of the lowest-level node whose next firing's input
 *     exists somewhere onto a PE without a kernel;
 *  3. when every PE has a kernel, take an idle PE (it cannot fire and rule
 *     1 cannot feed it) whose kernel another waiting node could replace:
 *     write its output buffers to DDR first, then replace it once its
 *     buffers are empty;
 *  4. otherwise write such a PE's input tokens to DDR (a token that came
 *     from DDR is simply dropped, DDR still has it), so it can be replaced.
 *
 * Levels are unit-weight longest paths to a sink (lowest first: data
 * drains toward the outputs). Buffers (section 6.4.2): triple input
 * buffering, i.e. three times the largest consumption of a firing plus the
 * tokens a filter absorbs per input; the rest of the VMEM is shared evenly
 * by the output channels. A node is loaded on at most one PE at a time
 * (its firings keep their order and a filter its lines); SDF3 self-edges
 * keep their tokens in the PE's input buffer. O(E (A + C)) for E events.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gang.h"

struct tok {
  int32_t out_pe, in_pe;     /* PE whose output / input buffer holds it, -1 */
  int32_t out_buf, in_buf;   /* their plan buffers */
  int8_t in_ddr;
  int8_t owed;               /* the least DMA work it still needs (enum owe) */
};

struct nch {
  struct tok *t;             /* tokens 0 .. ntok-1, written on first use (tok_at) */
  int64_t ntok, filled;      /* filled: records 0 .. filled-1 are written */
  int64_t deliver;           /* next token for the consumer's input buffer */
  int inflight;              /* token deliver - 1 is still on its way */
  int64_t in_lo;             /* consumer's release point */
  int64_t out_lo, out_hi;    /* producer's output buffer range */
  int32_t out_pe;            /* the producer's PE while its output buffer is used */
  int64_t in_cap, out_cap, in_off, out_off, slot;
  int64_t t_ddr, t_cmx;      /* cycles of one token through DDR, PE to PE */
  /* At the firing counts so far: what the consumer's next firing needs,
   * what the producer has made, what its next firing adds. */
  int64_t need, avail, add;
};

struct npe {
  int32_t actor;             /* loaded kernel, -1 none */
  int loading, busy;
  int evicting;              /* being emptied for a replacement */
  int64_t until;             /* end of the current firing or load */
  int32_t act;               /* its firing, or its load act */
  int32_t load_act;          /* the act of the kernel's load */
};

struct nv {
  struct acs_gang_ctx *c;
  struct acs_gang_plan *pl;
  struct acs_diag *d;
  struct nch *ch;
  struct npe *pe;
  int64_t *fired, *level;
  int32_t *on;               /* actor -> PE or -1 */
  int32_t *by_level;         /* actors, lowest level first */
  int dma_spill;             /* the running DMA act writes an input token out */
  int64_t now;
  int64_t dma_until, ddr_until;
  int32_t dma_act;           /* the running DMA act, -1 */
  int64_t remaining;         /* firings left */
  /* DMA cycles these rules can no longer avoid: what every token still
   * owes (see enum owe) and every kernel that must still be loaded. */
  int64_t mand;
  char *load_owed;
  int probe;                 /* buffers not recorded: only the makespan counts */
  /* A probe's finished activities, whose slots in the plan the next ones
   * take: nothing reads them again, and the plan of a probe stays a few
   * activities long instead of one per firing and transfer. */
  int32_t *spare;
  size_t nspare, cap_spare;
  char *gate;                /* 1: a pipeline class may hold the actor back (pipe_ready) */
  int32_t *rank;             /* actor -> its position in by_level */
  int32_t *loaded;           /* scratch: the loaded actors */
};

/* What a token still needs from the DMA at least: nothing; one transfer
 * PE to PE (it is, or will be, in its producer's output buffer); one DDR
 * transfer (it is only in DDR, or it is a graph output to write). */
enum owe { OWE_NONE, OWE_CMX, OWE_DDR };

static int64_t owe_cost(const struct nch *n, int owed)
{
  return owed == OWE_DDR ? n->t_ddr : owed == OWE_CMX ? n->t_cmx : 0;
}

/* What token j of channel c owes before anything runs. */
static int owed_at_start(const struct acs_sdf_channel *cc, int64_t j)
{
  if (cc->dst < 0)
    return j >= cc->d0 ? OWE_DDR : OWE_NONE;   /* to be written */
  if (j >= cc->consumed)
    return OWE_NONE;                           /* nobody reads it */
  if (cc->src < 0 || j < cc->d0)
    return OWE_DDR;                            /* in DDR */
  return cc->src == cc->dst ? OWE_NONE : OWE_CMX;
}

/* The sum of owe_cost(owed_at_start) over the channel's tokens, counted by
 * kind. O(1). */
static int64_t owed_total(const struct acs_sdf_channel *cc, const struct nch *n)
{
  int64_t ddr = 0, cmx = 0, lim, d;

  if (cc->dst < 0) {
    ddr = n->ntok > cc->d0 ? n->ntok - cc->d0 : 0;
  } else {
    lim = cc->consumed < n->ntok ? cc->consumed : n->ntok;
    d = cc->src < 0 ? lim : cc->d0 < lim ? cc->d0 : lim;
    ddr = d;
    cmx = cc->src != cc->dst ? lim - d : 0;
  }
  return ddr * n->t_ddr + cmx * n->t_cmx;
}

/* Token j of channel c. Its record is written at its first use, with
 * what it holds before anything runs: a probe stops long before a long
 * run ends, and the records (and pages) of the tokens it never reaches
 * are never touched. O(1) amortized. */
static struct tok *tok_at(struct nv *v, int32_t c, int64_t j)
{
  struct nch *n = &v->ch[c];

  if (j >= n->filled) {
    const struct acs_sdf_channel *cc = &v->c->g->channels[c];
    for (int64_t i = n->filled; i <= j; i++)
      n->t[i] = (struct tok){ -1, -1, -1, -1, (int8_t)(cc->src < 0 || i < cc->d0),
                              (int8_t)owed_at_start(cc, i) };
    n->filled = j + 1;
  }
  return &n->t[j];
}

/* Token j of channel c now owes `owed`. */
static void owe(struct nv *v, int32_t c, int64_t j, int owed)
{
  struct nch *n = &v->ch[c];
  struct tok *tk = tok_at(v, c, j);

  v->mand += owe_cost(n, owed) - owe_cost(n, tk->owed);
  tk->owed = (int8_t)owed;
}

/* ---- activities ---- */

/* Records activity x in the plan (a probe reuses a finished one's slot);
 * returns its index. */
static int32_t act_add(struct nv *v, const struct acs_gang_act *x)
{
  if (v->probe && v->nspare > 0) {
    int32_t id = v->spare[--v->nspare];
    v->pl->acts[id] = *x;
    return id;
  }
  return acs_gang_plan_add_act(v->pl, x);
}

/* Activity id is finished and nothing refers to it any more. */
static int act_done(struct nv *v, int32_t id)
{
  int err;

  if (!v->probe)
    return ACS_OK;
  if ((err = acs_grow((void **)&v->spare, sizeof(*v->spare), &v->cap_spare, v->nspare + 1)) < 0)
    return err;
  v->spare[v->nspare++] = id;
  return ACS_OK;
}

/* ---- buffers ---- */

static int buf_open(struct nv *v, int32_t ch, int64_t j, int32_t pe, int64_t off, int64_t alloc,
                    int64_t ready, int32_t writer, int32_t *idx)
{
  struct acs_gang_buf b;
  int err;

  if (v->probe) {
    *idx = -1;
    return ACS_OK;
  }
  memset(&b, 0, sizeof(b));
  b.chan = ch;
  b.j = j;
  b.pe = pe;
  b.bytes = v->ch[ch].slot;
  b.offset = off;
  b.alloc = alloc;
  b.ready = ready;
  b.free = -1;
  b.writer = writer;
  if ((err = acs_gang_plan_add_buf(v->pl, &b)) < 0)
    return err;
  *idx = v->pl->nbufs - 1;
  return ACS_OK;
}

static void buf_close(struct nv *v, int32_t idx, int64_t t)
{
  if (idx >= 0)
    v->pl->bufs[idx].free = t;
}

/* ---- layout of a node's buffers on a PE ---- */

/* Input buffers: three firings' worth plus the absorbed tokens; the rest
 * shared by the outputs. 0 when the node does not fit. */
static int layout(struct nv *v, int32_t a)
{
  const struct acs_sdf_graph *g = v->c->g;
  int64_t used = 0, nout = 0, share;

  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++) {
    int32_t c = g->in_ch[i];
    const struct acs_sdf_port *p = &g->ports[g->channels[c].dport];
    struct nch *n = &v->ch[c];
    int64_t r = p->rate.max > 0 ? p->rate.max : 1;
    n->in_cap = 3 * r + p->absorb;
    if (g->channels[c].src == a)   /* a self-edge keeps its tokens here */
      n->in_cap += g->channels[c].d0 + g->ports[g->channels[c].sport].rate.max;
    n->in_off = used;
    used += n->in_cap * n->slot;
  }
  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++)
    if (g->channels[g->out_ch[i]].dst != a)
      nout++;
  if (used > v->c->xp.vmem)
    return 0;
  share = nout > 0 ? (v->c->xp.vmem - used) / nout : 0;
  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
    int32_t c = g->out_ch[i];
    struct nch *n = &v->ch[c];
    if (g->channels[c].dst == a)
      continue;
    n->out_cap = share / n->slot;
    n->out_off = used;
    used += n->out_cap * n->slot;
    if (n->out_cap < g->ports[g->channels[c].sport].rate.max)
      return 0;
  }
  return 1;
}

/* ---- what can happen ---- */

/* Pipeline classes (seed 004, section 5.2.2): the output of an input- or
 * none-class kernel is complete only after its last firing, and a
 * none-class kernel reads complete inputs only. So b fires only once every
 * such producer has ended its last firing (a channel inside a cycle
 * excepted: the gangs keep a cycle together too). */
static int pipe_ready(const struct nv *v, int32_t b)
{
  const struct acs_sdf_graph *g = v->c->g;

  if (!v->gate[b])
    return 1;
  for (int32_t i = g->in_off[b]; i < g->in_off[b + 1]; i++) {
    int32_t a = g->channels[g->in_ch[i]].src;
    if (a < 0 || v->c->scc[a] == v->c->scc[b])
      continue;
    if ((g->actors[a].pipe != ACS_SDF_PIPE_FULL || g->actors[b].pipe == ACS_SDF_PIPE_NONE) &&
        v->fired[a] < g->actors[a].total)
      return 0;
  }
  return 1;
}

/* The per-channel counts of struct nch around actor a, after its firing
 * count changed. */
static void counts_changed(struct nv *v, int32_t a)
{
  const struct acs_sdf_graph *g = v->c->g;
  int64_t k = v->fired[a];

  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++)
    v->ch[g->in_ch[i]].need = acs_sdf_need(g, g->in_ch[i], k);
  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
    struct nch *n = &v->ch[g->out_ch[i]];
    n->avail = acs_sdf_avail(g, g->out_ch[i], k);
    n->add = acs_sdf_prod(g, g->out_ch[i], k) - acs_sdf_prod(g, g->out_ch[i], k - 1);
  }
}

/* The window of a's next firing exists (produced, or initial, or input). */
static int input_exists(const struct nv *v, int32_t a)
{
  const struct acs_sdf_graph *g = v->c->g;

  if (!pipe_ready(v, a))
    return 0;
  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++) {
    int32_t c = g->in_ch[i], src = g->channels[c].src;
    if (src >= 0 && src != a && v->ch[c].avail < v->ch[c].need)
      return 0;
  }
  return 1;
}

static int can_fire(const struct nv *v, int32_t p)
{
  const struct acs_sdf_graph *g = v->c->g;
  const struct npe *pe = &v->pe[p];
  int32_t a = pe->actor;

  if (a < 0 || pe->loading || pe->busy || pe->evicting || v->fired[a] >= g->actors[a].total ||
      !pipe_ready(v, a))
    return 0;
  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++) {
    int32_t c = g->in_ch[i];
    if (v->ch[c].deliver - v->ch[c].inflight < v->ch[c].need)
      return 0;
  }
  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
    int32_t c = g->out_ch[i];
    const struct nch *n = &v->ch[c];
    int64_t add = n->add;
    if (g->channels[c].dst == a) {
      if (n->deliver + add - n->in_lo > n->in_cap)
        return 0;
    } else if (n->out_hi - n->out_lo + add > n->out_cap) {
      return 0;
    }
  }
  return 1;
}

static int fire(struct nv *v, int32_t p)
{
  const struct acs_sdf_graph *g = v->c->g;
  struct npe *pe = &v->pe[p];
  int32_t a = pe->actor;
  struct acs_gang_act x;
  int32_t id;

  memset(&x, 0, sizeof(x));
  x.kind = ACS_GANG_FIRE;
  x.actor = a;
  x.chan = -1;
  x.k = v->fired[a];
  x.unit = x.pe = x.pe_from = p;
  x.start = v->now;
  x.end = v->now + acs_sdf_exec(g, a, x.k);
  x.evict = -1;
  x.gang = -1;
  if ((id = act_add(v, &x)) < 0)
    return id;
  pe->busy = 1;
  pe->until = x.end;
  pe->act = id;
  return ACS_OK;
}

/* A firing ends: it releases its inputs and writes its outputs. */
static int fire_done(struct nv *v, int32_t p)
{
  const struct acs_sdf_graph *g = v->c->g;
  struct npe *pe = &v->pe[p];
  const struct acs_gang_act *x = &v->pl->acts[pe->act];
  int32_t a = pe->actor;
  int64_t k = x->k, t0 = x->start;
  int err;

  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++) {
    int32_t c = g->in_ch[i];
    struct nch *n = &v->ch[c];
    int64_t rel = acs_sdf_release(g, c, k);
    for (int64_t j = n->in_lo; j < rel; j++) {
      struct tok *tk = tok_at(v, c, j);
      buf_close(v, tk->in_buf, v->now);
      tk->in_buf = -1;
      tk->in_pe = -1;
    }
    if (rel > n->in_lo)
      n->in_lo = rel;
  }
  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
    int32_t c = g->out_ch[i];
    struct nch *n = &v->ch[c];
    int self = g->channels[c].dst == a;
    for (int64_t j = acs_sdf_avail(g, c, k); j < acs_sdf_avail(g, c, k + 1); j++) {
      struct tok *tk = tok_at(v, c, j);
      int64_t slot = self ? n->in_off + (j % n->in_cap) * n->slot : n->out_off + (j % n->out_cap) * n->slot;
      int32_t *bi = self ? &tk->in_buf : &tk->out_buf;
      if ((err = buf_open(v, c, j, p, slot, t0, v->now, pe->act, bi)) < 0)
        return err;
      if (self) {
        tk->in_pe = p;
        n->deliver = j + 1;
      } else {
        tk->out_pe = p;
        n->out_hi = j + 1;
        n->out_pe = p;
      }
    }
  }
  v->fired[a]++;
  v->remaining--;
  pe->busy = 0;
  counts_changed(v, a);
  return act_done(v, pe->act);
}

/* ---- DMA actions ---- */

static int dma_act(struct nv *v, int kind, int xk, int32_t c, int64_t j, int32_t from,
                   int32_t to, int32_t actor)
{
  const struct acs_sdf_graph *g = v->c->g;
  const struct acs_platform *p = v->c->xp.p;
  struct acs_gang_act x;
  int32_t id;

  memset(&x, 0, sizeof(x));
  x.kind = (uint8_t)kind;
  x.xk = (uint8_t)xk;
  x.chan = c;
  x.actor = actor;
  x.k = j;
  x.unit = 0;
  x.pe = to;
  x.pe_from = from;
  x.start = v->now;
  x.gang = -1;
  x.evict = -1;
  if (kind == ACS_GANG_LOAD) {
    x.bytes = g->actors[actor].kernel_bytes;
    x.end = v->now + acs_platform_ddr_cycles(p, x.bytes);
  } else {
    x.bytes = g->channels[c].token_bytes;
    x.end = v->now + (xk == ACS_GANG_X_LOCAL ? v->ch[c].t_cmx : v->ch[c].t_ddr);
  }
  if ((id = act_add(v, &x)) < 0)
    return id;
  v->dma_act = id;
  v->dma_until = x.end;
  return id;
}

/* Rule 1 for channel c into the loaded node on PE q: the next token, when
 * there is room and it exists in another PE's output buffer or in DDR. */
static int deliver(struct nv *v, int32_t c, int32_t q)
{
  struct nch *n = &v->ch[c];
  struct tok *tk;
  int32_t id;
  int err;

  if (n->deliver >= v->c->g->channels[c].consumed || n->deliver - n->in_lo >= n->in_cap)
    return 0;
  tk = tok_at(v, c, n->deliver);
  v->dma_spill = 0;
  if (tk->out_pe >= 0 && tk->out_pe != q)
    id = dma_act(v, ACS_GANG_XFER, ACS_GANG_X_LOCAL, c, n->deliver, tk->out_pe, q, -1);
  else if (tk->in_ddr)
    id = dma_act(v, ACS_GANG_XFER, ACS_GANG_X_IN, c, n->deliver, -1, q, -1);
  else
    return 0;
  if (id < 0)
    return id;
  if ((err = buf_open(v, c, n->deliver, q, n->in_off + (n->deliver % n->in_cap) * n->slot,
                      v->now, v->dma_until, id, &tk->in_buf)) < 0)
    return err;
  tk->in_pe = q;
  owe(v, c, n->deliver, OWE_NONE);
  n->deliver++;
  n->inflight = 1;
  return 1;
}

/* Writes the oldest token of c's output buffer to DDR. */
static int write_out(struct nv *v, int32_t c)
{
  struct nch *n = &v->ch[c];
  int32_t id = dma_act(v, ACS_GANG_XFER, ACS_GANG_X_OUT, c, n->out_lo, n->out_pe, -1, -1);

  if (id < 0)
    return id;
  v->dma_spill = 0;
  /* A graph output is done; any other token leaving an output buffer for
   * DDR must come back from there. */
  if (v->c->g->channels[c].dst < 0)
    owe(v, c, n->out_lo, OWE_NONE);
  else if (tok_at(v, c, n->out_lo)->owed == OWE_CMX)
    owe(v, c, n->out_lo, OWE_DDR);
  return 1;
}

/* The loaded actors in the order of by_level (at most one per PE). */
static int32_t loaded_by_level(const struct nv *v, int32_t *out)
{
  int32_t n = 0;

  for (int32_t p = 0; p < v->c->xp.npe; p++) {
    int32_t a = v->pe[p].actor, j = n;
    if (a < 0)
      continue;
    while (j > 0 && v->rank[out[j - 1]] > v->rank[a]) {
      out[j] = out[j - 1];
      j--;
    }
    out[j] = a;
    n++;
  }
  return n;
}

static int rule1(struct nv *v)
{
  const struct acs_sdf_graph *g = v->c->g;
  int32_t n = loaded_by_level(v, v->loaded);
  int rc;

  for (int32_t i = 0; i < n; i++) {
    int32_t a = v->loaded[i], q = v->on[a];
    if (q < 0 || v->pe[q].loading || v->pe[q].evicting)
      continue;
    for (int32_t k = g->in_off[a]; k < g->in_off[a + 1]; k++)
      if ((rc = deliver(v, g->in_ch[k], q)) != 0)
        return rc;
    /* Graph outputs in its output buffers go to DDR. */
    for (int32_t k = g->out_off[a]; k < g->out_off[a + 1]; k++) {
      int32_t c = g->out_ch[k];
      if (g->channels[c].dst < 0 && v->ch[c].out_hi > v->ch[c].out_lo)
        return write_out(v, c);
    }
  }
  return 0;
}

static int rule2(struct nv *v)
{
  const struct acs_sdf_graph *g = v->c->g;
  int32_t p = -1;

  for (int32_t q = 0; q < v->c->xp.npe && p < 0; q++)
    if (v->pe[q].actor < 0)
      p = q;
  if (p < 0)
    return 0;
  for (int32_t i = 0; i < g->nactors; i++) {
    int32_t a = v->by_level[i], id;
    if (v->on[a] >= 0 || v->fired[a] >= g->actors[a].total || !input_exists(v, a))
      continue;
    if (!layout(v, a))
      return acs_diag_set(v->d, ACS_EINFEASIBLE, NULL, 0, 0,
                          "naive-list: the buffers of '%s' (triple input buffering, one firing's "
                          "output) exceed a PE's %lld bytes of VMEM", g->actors[a].name,
                          (long long)v->c->xp.vmem);
    if ((id = dma_act(v, ACS_GANG_LOAD, 0, -1, 0, -1, p, a)) < 0)
      return id;
    if (v->load_owed[a]) {
      v->load_owed[a] = 0;
      v->mand -= acs_platform_ddr_cycles(v->c->xp.p, g->actors[a].kernel_bytes);
    }
    v->pe[p].actor = a;
    v->pe[p].loading = 1;
    v->pe[p].until = v->dma_until;
    v->pe[p].load_act = id;
    v->on[a] = p;
    return 1;
  }
  return 0;
}

/* A node nobody can feed now: it cannot fire and rule 1 has nothing for it. */
static int stuck(const struct nv *v, int32_t p)
{
  const struct npe *pe = &v->pe[p];

  return pe->actor >= 0 && !pe->loading && !pe->busy && !can_fire(v, p);
}

/* Another node would take a freed PE. */
static int someone_waits(const struct nv *v)
{
  const struct acs_sdf_graph *g = v->c->g;

  for (int32_t a = 0; a < g->nactors; a++)
    if (v->on[a] < 0 && v->fired[a] < g->actors[a].total && input_exists(v, a))
      return 1;
  return 0;
}

/* Tokens of c that nobody will ever read (beyond what the consumer
 * consumes in the run, e.g. the last token on a self-edge). */
static int64_t wanted(const struct nv *v, int32_t c)
{
  const struct acs_sdf_channel *cc = &v->c->g->channels[c];

  return cc->dst < 0 ? cc->d0 + cc->produced : cc->consumed;
}

/* Whether p's output buffers hold nothing anyone still wants. */
static int outputs_drained(const struct nv *v, int32_t p)
{
  const struct acs_sdf_graph *g = v->c->g;
  int32_t a = v->pe[p].actor;

  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
    const struct nch *n = &v->ch[g->out_ch[i]];
    if (n->out_lo < n->out_hi && n->out_lo < wanted(v, g->out_ch[i]))
      return 0;
  }
  return 1;
}

/* A kernel leaves its PE; what is left in its buffers nobody reads. */
static int unload(struct nv *v, int32_t p)
{
  const struct acs_sdf_graph *g = v->c->g;
  struct npe *pe = &v->pe[p];
  int32_t a = pe->actor;

  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++) {
    struct nch *n = &v->ch[g->in_ch[i]];
    for (int64_t j = n->in_lo; j < n->deliver; j++) {
      struct tok *tk = tok_at(v, g->in_ch[i], j);
      if (tk->in_pe == p) {
        buf_close(v, tk->in_buf, v->now);
        tk->in_buf = -1;
        tk->in_pe = -1;
      }
    }
  }
  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
    struct nch *n = &v->ch[g->out_ch[i]];
    for (int64_t j = n->out_lo; j < n->out_hi; j++) {
      struct tok *tk = tok_at(v, g->out_ch[i], j);
      if (tk->out_pe == p) {
        buf_close(v, tk->out_buf, v->now);
        tk->out_buf = -1;
        tk->out_pe = -1;
      }
    }
  }
  v->pl->acts[pe->load_act].evict = v->now;
  if (v->fired[a] < g->actors[a].total && !v->load_owed[a]) {
    v->load_owed[a] = 1;   /* it will have to be loaded again */
    v->mand += acs_platform_ddr_cycles(v->c->xp.p, g->actors[a].kernel_bytes);
  }
  v->on[pe->actor] = -1;
  pe->actor = -1;
  pe->evicting = 0;
  return act_done(v, pe->load_act);
}

/* Empties PE p's buffers one token per call (outputs first); 0 when empty. */
static int empty_one(struct nv *v, int32_t p)
{
  const struct acs_sdf_graph *g = v->c->g;
  int32_t a = v->pe[p].actor;

  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
    int32_t c = g->out_ch[i];
    if (g->channels[c].dst != a && v->ch[c].out_hi > v->ch[c].out_lo && v->ch[c].out_pe == p)
      return write_out(v, c);
  }
  for (int32_t i = g->in_off[a]; i < g->in_off[a + 1]; i++) {
    int32_t c = g->in_ch[i];
    struct nch *n = &v->ch[c];
    if (n->deliver > n->in_lo) {
      int64_t j = n->deliver - 1;   /* the newest: the rest stays in order */
      struct tok *tk = tok_at(v, c, j);
      owe(v, c, j, OWE_DDR);   /* it will have to come back */
      if (tk->in_ddr) {
        buf_close(v, tk->in_buf, v->now);
        tk->in_buf = -1;
        tk->in_pe = -1;
        n->deliver--;
        return 2;   /* dropped without a transfer */
      }
      if (dma_act(v, ACS_GANG_XFER, ACS_GANG_X_OUT, c, j, p, -1, -1) < 0)
        return ACS_ENOMEM;
      v->dma_spill = 1;
      return 1;
    }
  }
  return 0;
}

static int rule34(struct nv *v)
{
  int32_t best = -1;
  int rc;

  for (int32_t p = 0; p < v->c->xp.npe && best < 0; p++)
    if (v->pe[p].evicting && v->pe[p].actor >= 0)
      best = p;   /* finish emptying the PE chosen before */
  if (best < 0) {
    for (int32_t p = 0; p < v->c->xp.npe; p++)
      if (v->pe[p].actor < 0)
        return 0;   /* rule 2 had nothing to load: nothing to replace for */
    if (!someone_waits(v))
      return 0;
    for (int32_t p = 0; p < v->c->xp.npe; p++)
      if (stuck(v, p) && (best < 0 || v->level[v->pe[p].actor] > v->level[v->pe[best].actor]))
        best = p;
    if (best < 0)
      return 0;
    v->pe[best].evicting = 1;
  }
  while ((rc = empty_one(v, best)) == 2)
    ;
  if (rc != 0)
    return rc;
  if ((rc = unload(v, best)) < 0)
    return rc;
  v->pe[best].evicting = 0;
  return 3;   /* a PE became free: rule 2 may act now */
}

/* A DMA action ends (a kernel load's act lives on until the kernel
 * leaves). */
static int dma_done(struct nv *v)
{
  const struct acs_gang_act *x = &v->pl->acts[v->dma_act];
  int32_t id = v->dma_act;

  if (x->kind != ACS_GANG_LOAD && x->xk != ACS_GANG_X_OUT)
    v->ch[x->chan].inflight = 0;
  if (x->kind == ACS_GANG_LOAD) {
    v->pe[x->pe].loading = 0;
  } else if (x->xk == ACS_GANG_X_OUT && v->dma_spill) {
    /* An input token written out to make room: it leaves the buffer. */
    struct nch *n = &v->ch[x->chan];
    struct tok *tk = tok_at(v, x->chan, x->k);
    buf_close(v, tk->in_buf, v->now);
    tk->in_buf = -1;
    tk->in_pe = -1;
    tk->in_ddr = 1;
    n->deliver--;
  } else if (x->xk != ACS_GANG_X_IN) {
    /* A token leaves an output buffer (to a PE or to DDR). */
    struct nch *n = &v->ch[x->chan];
    struct tok *tk = tok_at(v, x->chan, x->k);
    buf_close(v, tk->out_buf, v->now);
    tk->out_buf = -1;
    tk->out_pe = -1;
    if (x->xk == ACS_GANG_X_OUT)
      tk->in_ddr = 1;
    while (n->out_lo < n->out_hi && tok_at(v, x->chan, n->out_lo)->out_pe < 0)
      n->out_lo++;
  }
  v->dma_act = -1;
  return x->kind == ACS_GANG_LOAD ? ACS_OK : act_done(v, id);
}

/* ---- the event loop ---- */

static int decide(struct nv *v)
{
  int rc;

  for (int32_t p = 0; p < v->c->xp.npe; p++) {
    int32_t a = v->pe[p].actor;
    if (can_fire(v, p) && (rc = fire(v, p)) < 0)
      return rc;
    /* A finished node with empty buffers leaves its PE. */
    if (a >= 0 && !v->pe[p].busy && !v->pe[p].loading && v->fired[a] >= v->c->g->actors[a].total &&
        outputs_drained(v, p) && (rc = unload(v, p)) < 0)
      return rc;
  }
  while (v->dma_act < 0) {
    if ((rc = rule1(v)) != 0 || (rc = rule2(v)) != 0)
      return rc < 0 ? rc : ACS_OK;
    if ((rc = rule34(v)) < 0)
      return rc;
    if (rc != 3)
      break;
  }
  return ACS_OK;
}

static int init(struct nv *v)
{
  const struct acs_sdf_graph *g = v->c->g;
  int32_t na = g->nactors;

  v->ch = calloc((size_t)g->nchannels + 1, sizeof(*v->ch));
  v->pe = calloc((size_t)v->c->xp.npe + 1, sizeof(*v->pe));
  v->fired = calloc((size_t)na + 1, sizeof(int64_t));
  v->level = calloc((size_t)na + 1, sizeof(int64_t));
  v->on = malloc(((size_t)na + 1) * sizeof(int32_t));
  v->by_level = malloc(((size_t)na + 1) * sizeof(int32_t));
  v->load_owed = calloc((size_t)na + 1, 1);
  v->gate = calloc((size_t)na + 1, 1);
  v->rank = malloc(((size_t)na + 1) * sizeof(int32_t));
  v->loaded = malloc(((size_t)v->c->xp.npe + 1) * sizeof(int32_t));
  if (!v->ch || !v->pe || !v->fired || !v->level || !v->on || !v->by_level || !v->load_owed ||
      !v->gate || !v->rank || !v->loaded)
    return ACS_ENOMEM;
  for (int32_t a = 0; a < na; a++) {
    v->on[a] = -1;
    v->by_level[a] = a;
    v->remaining += g->actors[a].total;
  }
  for (int32_t p = 0; p < v->c->xp.npe; p++)
    v->pe[p].actor = -1;
  for (int32_t c = 0; c < g->nchannels; c++) {
    const struct acs_sdf_channel *cc = &g->channels[c];
    struct nch *n = &v->ch[c];
    n->ntok = cc->d0 + (cc->src >= 0 ? cc->produced : cc->consumed);
    n->slot = acs_gang_slot_bytes(&v->c->xp, cc->token_bytes);
    n->out_pe = -1;
    if (!(n->t = malloc(((size_t)n->ntok + 1) * sizeof(*n->t))))
      return ACS_ENOMEM;
    n->out_lo = n->out_hi = cc->d0;
    n->t_ddr = acs_platform_ddr_cycles(v->c->xp.p, cc->token_bytes);
    n->t_cmx = acs_platform_cmx_cycles(v->c->xp.p, cc->token_bytes);
    v->mand += owed_total(cc, n);
  }
  for (int32_t a = 0; a < na; a++) {
    v->load_owed[a] = 1;
    v->mand += acs_platform_ddr_cycles(v->c->xp.p, g->actors[a].kernel_bytes);
  }
  /* Unit-weight levels (longest path to a sink), by relaxation. */
  for (int32_t pass = 0; pass < na; pass++)
    for (int32_t c = 0; c < g->nchannels; c++) {
      const struct acs_sdf_channel *cc = &g->channels[c];
      if (cc->src >= 0 && cc->dst >= 0 && v->c->scc[cc->src] != v->c->scc[cc->dst] &&
          v->level[cc->dst] + 1 > v->level[cc->src])
        v->level[cc->src] = v->level[cc->dst] + 1;
    }
  for (int32_t i = 1; i < na; i++) {
    int32_t x = v->by_level[i], j = i;
    while (j > 0 && v->level[v->by_level[j - 1]] > v->level[x]) {
      v->by_level[j] = v->by_level[j - 1];
      j--;
    }
    v->by_level[j] = x;
  }
  for (int32_t i = 0; i < na; i++)
    v->rank[v->by_level[i]] = i;
  for (int32_t b = 0; b < na; b++) {
    v->gate[b] = 0;
    for (int32_t i = g->in_off[b]; i < g->in_off[b + 1]; i++) {
      int32_t a = g->channels[g->in_ch[i]].src;
      if (a >= 0 && v->c->scc[a] != v->c->scc[b] &&
          (g->actors[a].pipe != ACS_SDF_PIPE_FULL || g->actors[b].pipe == ACS_SDF_PIPE_NONE))
        v->gate[b] = 1;
    }
    counts_changed(v, b);
  }
  return ACS_OK;
}

static void fini(struct nv *v)
{
  for (int32_t c = 0; v->ch && c < v->c->g->nchannels; c++)
    free(v->ch[c].t);
  free(v->ch);
  free(v->pe);
  free(v->fired);
  free(v->level);
  free(v->on);
  free(v->by_level);
  free(v->load_owed);
  free(v->gate);
  free(v->rank);
  free(v->loaded);
  free(v->spare);
}

static int64_t next_event(const struct nv *v)
{
  int64_t t = v->dma_act >= 0 ? v->dma_until : INT64_MAX;

  for (int32_t p = 0; p < v->c->xp.npe; p++)
    if ((v->pe[p].busy || v->pe[p].loading) && v->pe[p].until < t)
      t = v->pe[p].until;
  return t;
}

int acs_gang_naive(struct acs_gang_ctx *c, struct acs_gang_plan *pl, struct acs_diag *d)
{
  int done;

  return acs_gang_naive_within(c, 0, 0, pl, &done, d);
}

int acs_gang_naive_within(struct acs_gang_ctx *c, int64_t limit, int probe,
                          struct acs_gang_plan *pl, int *done, struct acs_diag *d)
{
  struct nv v;
  int err;

  *done = 0;
  memset(&v, 0, sizeof(v));
  v.c = c;
  v.pl = pl;
  v.d = d;
  v.dma_act = -1;
  v.probe = probe;
  if ((err = init(&v)) < 0)
    goto out_with_state;
  if ((err = acs_gang_kernels_fit(c, d)) < 0)
    goto out_with_state;
  while (v.remaining > 0) {
    int64_t t;
    if ((err = decide(&v)) < 0)
      goto out_with_state;
    if ((t = next_event(&v)) == INT64_MAX) {
      err = acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                         "naive-list: no PE can fire and no DMA rule applies with %lld firings "
                         "left (the buffers are too small for this graph)", (long long)v.remaining);
      goto out_with_state;
    }
    if (c->interrupted && *c->interrupted) {
      err = ACS_EINTERRUPTED;
      goto out_with_state;
    }
    /* It ends at t or later, and its DMA still has the unavoidable rest to
     * do after what it is doing: past the limit, it cannot win. */
    if (limit > 0 && (t >= limit || (v.dma_act >= 0 ? v.dma_until : t) + v.mand >= limit))
      goto out_with_state;
    v.now = t;
    if (v.dma_act >= 0 && v.dma_until == t && (err = dma_done(&v)) < 0)
      goto out_with_state;
    for (int32_t p = 0; p < c->xp.npe; p++) {
      if (v.pe[p].busy && v.pe[p].until == t && (err = fire_done(&v, p)) < 0)
        goto out_with_state;
    }
  }
  /* Drain: graph outputs and tokens still in output buffers. */
  for (;;) {
    int64_t t;
    if ((err = decide(&v)) < 0)
      goto out_with_state;
    if ((t = next_event(&v)) == INT64_MAX)
      break;
    if (limit > 0 && t >= limit)
      goto out_with_state;
    v.now = t;
    if (v.dma_act >= 0 && v.dma_until == t && (err = dma_done(&v)) < 0)
      goto out_with_state;
  }
  for (int32_t i = 0; i < pl->nbufs; i++)
    if (pl->bufs[i].free < 0)
      pl->bufs[i].free = v.now > pl->bufs[i].ready ? v.now : pl->bufs[i].ready;
  for (int32_t i = 0; i < pl->nacts; i++)
    if (pl->acts[i].kind == ACS_GANG_LOAD && pl->acts[i].evict < 0)
      pl->acts[i].evict = v.now > pl->acts[i].end ? v.now : pl->acts[i].end;
  pl->makespan = v.now;
  *done = 1;
out_with_state:
  fini(&v);
  return err;
}
