/*
 * gsched.c - the pipelined schedule of one gang (seed 004, section 5.3):
 * the loop repetition vector, retiming by preparations (eq. 5.3), the
 * iterative list-scheduling phases toward the eq. 5.1 period, buffer sizing
 * within each PE's VMEM (eqs. 3.9-3.13), and the emission of the loads,
 * preamble, L loop iterations and postamble as plan activities and buffers.
 *
 * Where this departs from the thesis, and why:
 *  - The loop body fires the *loop repetition vector* qL, derived from the
 *    rates inside each actor's loop region, not the graph's repetition
 *    vector: a histogram's output [0, ..., 0, 1] or a kernel that reads a
 *    lookup table once have rate 0 in the loop, and a node that fires once
 *    per run (the table itself) runs entirely in the preamble. With the
 *    graph's vector such gangs would have a loop body as long as the image.
 *  - A gang whose body cannot be made to repeat (inconsistent loop rates,
 *    a retiming that leaves no full iteration, or no buffer sizes within the
 *    VMEM) is list-scheduled as one preamble: always a valid schedule, so a
 *    partition never fails for want of a loop.
 *  - Components of a gang with different natural lengths (a full- and a
 *    half-resolution chain) get loop vectors scaled to the same number of
 *    iterations.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gsched.h"

/* ---- loop repetition vector ---- */

static int has_region(const struct acs_gang_node *n)
{
  return n->lam >= 1 && n->hi - n->lo >= 2 * n->lam;
}

/* Tokens per lam firings in the loop region: produced by the source, needed
 * by the destination (-1 when the end has no region). */
static void loop_rates(const struct acs_gang_ctx *c, const struct acs_gang *gg,
                       const struct acs_gang_edge *e, int64_t *rs, int64_t *rd)
{
  const struct acs_gang_node *s = &gg->nodes[e->src], *d = &gg->nodes[e->dst];

  *rs = has_region(s)
            ? acs_gang_e_arrived(c, gg, e, s->lo + s->lam) - acs_gang_e_arrived(c, gg, e, s->lo)
            : -1;
  *rd = has_region(d)
            ? acs_gang_e_need(c, gg, e, d->lo + d->lam - 1) - acs_gang_e_need(c, gg, e, d->lo - 1)
            : -1;
}

static void no_loop(struct acs_gang *gg)
{
  gg->has_loop = 0;
  for (int32_t v = 0; v < gg->nnodes; v++) {
    gg->nodes[v].qL = 0;
    gg->nodes[v].in_pre = 1;
  }
}

/* Cycles (qL / lam) per node by breadth-first propagation of
 * cyc(src) * rs = cyc(dst) * rd as fractions; returns 0 on inconsistency. */
static int solve_cycles(const struct acs_gang_ctx *c, struct acs_gang *gg, int64_t *num,
                        int64_t *den, int32_t *comp, int32_t *queue)
{
  int32_t n = gg->nnodes, ncomp = 0;

  for (int32_t v = 0; v < n; v++)
    comp[v] = -1;
  for (int32_t root = 0; root < n; root++) {
    int32_t head = 0, tail = 0;
    if (comp[root] >= 0 || !has_region(&gg->nodes[root]))
      continue;
    num[root] = den[root] = 1;
    comp[root] = ncomp;
    queue[tail++] = root;
    while (head < tail) {
      int32_t v = queue[head++];
      for (int side = 0; side < 2; side++) {
        const int32_t *off = side ? gg->out_off : gg->in_off, *es = side ? gg->out_e : gg->in_e;
        for (int32_t k = off[v]; k < off[v + 1]; k++) {
          const struct acs_gang_edge *e = &gg->edges[es[k]];
          int64_t rs, rd, nn, dd, g1;
          int32_t w = side ? e->dst : e->src;
          if (w < 0 || e->src < 0 || e->dst < 0)
            continue;
          loop_rates(c, gg, e, &rs, &rd);
          if (rs <= 0 || rd <= 0)
            continue;
          /* cyc(w) = cyc(v) * (side ? rs / rd : rd / rs) */
          if (acs_mul_i64(num[v], side ? rs : rd, &nn) || acs_mul_i64(den[v], side ? rd : rs, &dd))
            return 0;
          g1 = acs_gcd64(nn, dd);
          nn /= g1;
          dd /= g1;
          if (comp[w] < 0) {
            comp[w] = ncomp;
            num[w] = nn;
            den[w] = dd;
            queue[tail++] = w;
          } else if (num[w] != nn || den[w] != dd) {
            return 0;
          }
        }
      }
    }
    /* Smallest integer cycles of this component. */
    int64_t l = 1, g2 = 0;
    for (int32_t i = 0; i < tail; i++) {
      int64_t d = den[queue[i]];
      if (acs_mul_i64(l / acs_gcd64(l, d), d, &l) || l > ((int64_t)1 << 40))
        return 0;
    }
    for (int32_t i = 0; i < tail; i++) {
      int32_t v = queue[i];
      num[v] = num[v] * (l / den[v]);
      g2 = acs_gcd64(g2, num[v]);
    }
    for (int32_t i = 0; i < tail; i++)
      num[queue[i]] /= g2;
    ncomp++;
  }
  return ncomp + 1;
}

/* Scales each component so that all run about the same number of loop
 * iterations (the shortest component's). */
static void equalize(struct acs_gang *gg, const int64_t *cyc, const int32_t *comp, int32_t ncomp)
{
  int64_t *span = malloc(((size_t)ncomp + 1) * sizeof(*span)), lstar = INT64_MAX;

  if (!span) {
    for (int32_t v = 0; v < gg->nnodes; v++)
      if (comp[v] >= 0)
        gg->nodes[v].qL = cyc[v] * gg->nodes[v].lam;
    return;
  }
  for (int32_t k = 0; k < ncomp; k++)
    span[k] = INT64_MAX;
  for (int32_t v = 0; v < gg->nnodes; v++) {
    const struct acs_gang_node *n = &gg->nodes[v];
    int64_t q = cyc[v] * n->lam, it;
    if (comp[v] < 0)
      continue;
    it = (n->hi - n->lo) / q;
    if (it < span[comp[v]])
      span[comp[v]] = it;
  }
  for (int32_t k = 0; k < ncomp; k++)
    if (span[k] < lstar)
      lstar = span[k];
  for (int32_t v = 0; v < gg->nnodes; v++) {
    int64_t s;
    if (comp[v] < 0)
      continue;
    s = lstar > 0 ? span[comp[v]] / lstar : 1;
    gg->nodes[v].qL = cyc[v] * gg->nodes[v].lam * (s > 0 ? s : 1);
  }
  free(span);
}

/* Nodes outside the loop run in the preamble unless they read what loop
 * nodes (or postamble nodes) produce in the loop. */
static void place_outside(const struct acs_gang_ctx *c, struct acs_gang *gg)
{
  for (int32_t v = 0; v < gg->nnodes; v++)
    gg->nodes[v].in_pre = gg->nodes[v].qL == 0;
  for (int32_t pass = 0, changed = 1; changed && pass <= gg->nnodes; pass++) {
    changed = 0;
    for (int32_t e = 0; e < gg->nedges; e++) {
      const struct acs_gang_edge *ed = &gg->edges[e];
      const struct acs_gang_node *s;
      struct acs_gang_node *d;
      int64_t rs, rd;
      if (ed->src < 0 || ed->dst < 0)
        continue;
      d = &gg->nodes[ed->dst];
      if (d->qL > 0 || !d->in_pre)
        continue;
      loop_rates(c, gg, ed, &rs, &rd);
      s = &gg->nodes[ed->src];
      /* In the preamble only what the producer makes before its loop
       * region is there (a histogram's result comes after its last line). */
      if ((s->qL > 0 &&
           (rs > 0 || (d->T > 0 && acs_gang_e_arrived(c, gg, ed, s->lo) <
                                       acs_gang_e_need(c, gg, ed, d->f0 + d->T - 1)))) ||
          (s->qL == 0 && !s->in_pre)) {
        d->in_pre = 0;
        changed = 1;
      }
    }
  }
}

/* Whether every edge agrees with the placement: a loop node reading in the
 * loop from a node that is not in the loop must find everything there after
 * the preamble (reading only lowers what the buffer holds, so the first
 * iteration is the worst); both ends of an edge in the loop must both move
 * tokens. */
static int loop_consistent(const struct acs_gang_ctx *c, const struct acs_gang *gg)
{
  for (int32_t e = 0; e < gg->nedges; e++) {
    const struct acs_gang_edge *ed = &gg->edges[e];
    const struct acs_gang_node *s, *d;
    int64_t rs, rd;
    if (ed->src < 0 || ed->dst < 0)
      continue;
    s = &gg->nodes[ed->src];
    d = &gg->nodes[ed->dst];
    loop_rates(c, gg, ed, &rs, &rd);
    if (s->qL > 0 && d->qL > 0 && (rs > 0) != (rd > 0))
      return 0;
    if (d->qL > 0 && rd > 0 && s->qL == 0 && !s->in_pre)
      return 0;
    /* Tokens a loop node makes in the loop for a node outside it would pile
     * up over the iterations: the body would not repeat. */
    if (s->qL > 0 && rs > 0 && d->qL == 0)
      return 0;
  }
  return 1;
}

int acs_gang_loop_vector(const struct acs_gang_ctx *c, struct acs_gang *gg)
{
  int32_t n = gg->nnodes;
  int64_t *num = malloc(((size_t)n + 1) * sizeof(*num)), *den = malloc(((size_t)n + 1) * sizeof(*den));
  int32_t *comp = malloc(((size_t)n + 1) * sizeof(*comp)), *queue = malloc(((size_t)n + 1) * sizeof(*queue));
  int ncomp, err = ACS_OK;

  if (!num || !den || !comp || !queue) {
    err = ACS_ENOMEM;
    goto out_with_arrays;
  }
  for (int32_t v = 0; v < n; v++)
    gg->nodes[v].qL = 0;
  ncomp = solve_cycles(c, gg, num, den, comp, queue);
  if (ncomp <= 1) {   /* inconsistent, or no node with a loop region */
    no_loop(gg);
    goto out_with_arrays;
  }
  equalize(gg, num, comp, ncomp - 1);
  place_outside(c, gg);
  gg->has_loop = loop_consistent(c, gg);
  if (!gg->has_loop)
    no_loop(gg);
out_with_arrays:
  free(num);
  free(den);
  free(comp);
  free(queue);
  return err;
}

/* ---- retiming (eq. 5.3, generalised) ---- */

/* Fewest firings of s (from its f0) after which edge e holds `req` tokens.
 * When arrived(k) = d0 + k r (a transfer, or a one-entry rate), from the
 * closed form, O(1); else by binary search, O(log T) evaluations. */
static int64_t firings_for(const struct acs_gang_ctx *c, const struct acs_gang *gg,
                           const struct acs_gang_edge *e, int64_t req)
{
  const struct acs_gang_node *s = &gg->nodes[e->src];
  const struct acs_sdf_channel *ch = &c->g->channels[e->chan];
  int64_t lo = 0, hi = s->T;

  if (acs_gang_e_arrived(c, gg, e, s->f0 + s->T) < req)
    return s->T;
  if (acs_gang_e_arrived(c, gg, e, s->f0) >= req)
    return 0;
  /* Here arrived(f0) < req <= arrived(f0 + T): the rate is positive. */
  if (s->kind != ACS_GANG_N_PROC)
    return req - s->f0;   /* arrived(k) = k */
  if (ch->src >= 0 && c->g->ports[ch->sport].rate.n == 1) {
    int64_t r = c->g->ports[ch->sport].rate.sum;
    return (req - ch->d0 + r - 1) / r - s->f0;   /* least k with d0 + k r >= req, less f0 */
  }
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (acs_gang_e_arrived(c, gg, e, s->f0 + mid) >= req)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/*
 * Preamble firings r per node: every loop node starts in its loop region;
 * a producer fires often enough in the preamble that each consumer has the
 * tokens for its preamble firings plus its preparations (firings it must be
 * able to start when the loop body starts). Iterated to a fixpoint (cycles
 * in a gang raise it around the cycle; no fixpoint means no loop). Returns
 * the number of loop iterations L (0: none fits).
 */
static int64_t retime(const struct acs_gang_ctx *c, const struct acs_gang *gg, const int64_t *prep,
                      int64_t *r)
{
  int32_t n = gg->nnodes;
  int changed = 1;
  int64_t L = INT64_MAX;

  for (int32_t v = 0; v < n; v++) {
    const struct acs_gang_node *nd = &gg->nodes[v];
    r[v] = nd->qL > 0 ? (nd->lo > nd->f0 ? nd->lo - nd->f0 : 0) : nd->in_pre ? nd->T : 0;
  }
  for (int32_t pass = 0; changed && pass <= n + 1; pass++) {
    changed = 0;
    for (int32_t e = 0; e < gg->nedges; e++) {
      const struct acs_gang_edge *ed = &gg->edges[e];
      const struct acs_gang_node *s, *d;
      int64_t upto, m;
      if (ed->src < 0 || ed->dst < 0)
        continue;
      s = &gg->nodes[ed->src];
      d = &gg->nodes[ed->dst];
      if (s->qL == 0 && !s->in_pre)
        continue;
      upto = d->qL > 0 ? r[ed->dst] + prep[ed->dst] : d->in_pre ? d->T : 0;
      if (upto > d->T)
        upto = d->T;
      if (upto <= 0)
        continue;
      m = firings_for(c, gg, ed, acs_gang_e_need(c, gg, ed, d->f0 + upto - 1));
      if (m > r[ed->src]) {
        r[ed->src] = m;
        changed = 1;
      }
    }
  }
  if (changed)
    return 0;
  for (int32_t v = 0; v < n; v++) {
    const struct acs_gang_node *nd = &gg->nodes[v];
    int64_t it;
    if (nd->qL == 0)
      continue;
    it = (nd->hi - (nd->f0 + r[v])) / nd->qL;
    if (nd->hi < nd->f0 + r[v])
      it = 0;
    if (it < L)
      L = it;
  }
  return L == INT64_MAX || L < 1 ? 0 : L;
}

void acs_gang_set_body(const struct acs_gang *gg, const int64_t *r, struct acs_gang_run *run)
{
  for (int32_t v = 0; v < gg->nnodes; v++) {
    const struct acs_gang_node *n = &gg->nodes[v];
    run->from[v] = n->f0 + r[v];
    run->to[v] = run->from[v] + n->qL;
  }
}

void acs_gang_set_pre(const struct acs_gang *gg, const int64_t *r, struct acs_gang_run *run)
{
  for (int32_t v = 0; v < gg->nnodes; v++) {
    run->from[v] = gg->nodes[v].f0;
    run->to[v] = gg->nodes[v].f0 + r[v];
  }
}

void acs_gang_set_post(const struct acs_gang *gg, const int64_t *r, int64_t L,
                       struct acs_gang_run *run)
{
  for (int32_t v = 0; v < gg->nnodes; v++) {
    const struct acs_gang_node *n = &gg->nodes[v];
    run->from[v] = n->f0 + r[v] + L * n->qL;
    run->to[v] = n->f0 + n->T;
  }
}

/* The eq. 5.1 bound of the body: the busiest PE, DMA channel or the DDR
 * link over one iteration. */
static int64_t body_bound(const struct acs_gang_ctx *c, const struct acs_gang *gg, const int64_t *r)
{
  int32_t nh = c->xp.npe + c->xp.ndma;
  int64_t *busy = calloc((size_t)nh + 1, sizeof(*busy)), ddr = 0, best = 0;

  if (!busy)
    return 0;
  for (int32_t v = 0; v < gg->nnodes; v++) {
    const struct acs_gang_node *n = &gg->nodes[v];
    int32_t hw = n->kind == ACS_GANG_N_PROC ? n->hw : c->xp.npe + n->hw;
    for (int64_t i = 0; i < n->qL; i++) {
      int64_t d = acs_gang_node_dur(c, n, n->f0 + r[v] + i);
      busy[hw] += d;
      if (n->ddr)
        ddr += d;
    }
  }
  best = (ddr + c->xp.lanes - 1) / c->xp.lanes;   /* the DDR link */
  for (int32_t h = 0; h < nh; h++)
    if (busy[h] > best)
      best = busy[h];
  free(busy);
  return best;
}

/* The slack record to remove next: the longest idle gap on hardware whose
 * body exceeds the bound, traced back to a producer that idled longer
 * (section 5.3.2). Returns the node, or -1. */
static int32_t pick_preparation(const struct acs_gang_run *run, int64_t pstar)
{
  int64_t best_gap = 0;
  int32_t v = -1;

  for (size_t i = 0; i < run->nslack; i++) {
    const struct acs_gang_slack *s = &run->slack[i];
    if (run->hw_end[s->hw] > pstar && s->gap > best_gap) {
      best_gap = s->gap;
      v = s->node;
    }
  }
  for (int32_t depth = 0; v >= 0 && depth < run->gg->nnodes; depth++) {
    int32_t crit = -1, next = -1;
    int64_t g = 0;
    for (size_t i = 0; i < run->nslack; i++)
      if (run->slack[i].node == v && run->slack[i].gap == best_gap) {
        crit = run->slack[i].crit;
        break;
      }
    for (size_t i = 0; crit >= 0 && i < run->nslack; i++)
      if (run->slack[i].node == crit && run->slack[i].gap > g) {
        g = run->slack[i].gap;
        next = crit;
      }
    if (next < 0 || g <= best_gap)
      break;
    v = next;
    best_gap = g;
  }
  return v;
}

struct phase {
  int64_t *r, *prep, *best_r;
  int64_t best_L, best_P;
};

/* Phase one: preparations until the body meets its bound (unbounded
 * buffers). Leaves the best retiming in ph->best_r. */
static int retiming_phase(const struct acs_gang_ctx *c, struct acs_gang *gg,
                          struct acs_gang_run *run, struct phase *ph)
{
  int32_t n = gg->nnodes;
  int err;

  ph->best_L = 0;
  ph->best_P = INT64_MAX;
  for (int64_t it = 0; it < c->max_iter; it++) {
    int64_t L = retime(c, gg, ph->prep, ph->r), pstar;
    int32_t v;
    if (L < 1)
      break;
    acs_gang_set_body(gg, ph->r, run);
    if ((err = acs_gang_run_segment(run, 0)) < 0)
      return err;
    gg->iters_r = (int)it + 1;
    if (!run->ok)
      break;
    pstar = body_bound(c, gg, ph->r);
    if (run->makespan < ph->best_P) {
      ph->best_P = run->makespan;
      ph->best_L = L;
      memcpy(ph->best_r, ph->r, (size_t)n * sizeof(*ph->r));
    }
    if (run->makespan <= pstar || (v = pick_preparation(run, pstar)) < 0)
      break;
    ph->prep[v]++;
  }
  return ACS_OK;
}

/* ---- buffer phase ---- */

/* Bytes of VMEM the capacities take on each PE; 0 when within the VMEM. */
static int over_vmem(const struct acs_gang_ctx *c, const struct acs_gang *gg, int32_t pe)
{
  int64_t sum = 0;

  for (int32_t e = 0; e < gg->nedges; e++) {
    const struct acs_gang_edge *ed = &gg->edges[e];
    int64_t b;
    if (ed->pe != pe || ed->cap == INT64_MAX)
      continue;
    if (acs_mul_i64(ed->cap, ed->slot, &b) || acs_add_i64(sum, b, &sum))
      return 1;
  }
  return sum > c->xp.vmem;
}

/* Initial capacities: what the edge holds when the loop starts plus one
 * producing firing, and at least a consumer's window plus a producer's
 * output (section 5.3.2: deadlock minimum, absorbed tokens, preparations). */
static void init_caps(const struct acs_gang_ctx *c, struct acs_gang *gg, const int64_t *r,
                      int with_loop)
{
  for (int32_t e = 0; e < gg->nedges; e++) {
    struct acs_gang_edge *ed = &gg->edges[e];
    int64_t cap = ed->wmax + ed->pmax - 1;
    if (ed->pe < 0 || ed->src < 0 || ed->dst < 0) {
      ed->cap = INT64_MAX;
      continue;
    }
    if (with_loop) {
      const struct acs_gang_node *s = &gg->nodes[ed->src], *d = &gg->nodes[ed->dst];
      int64_t held = acs_gang_e_arrived(c, gg, ed, s->f0 + r[ed->src]) -
                     acs_gang_e_release(c, gg, ed, d->f0 + r[ed->dst] - 1);
      if (held + ed->pmax > cap)
        cap = held + ed->pmax;
    }
    /* Initial tokens sit in the buffer from the start. */
    if (ed->base == 0 && acs_gang_e_arrived(c, gg, ed, gg->nodes[ed->src].f0) + ed->pmax > cap)
      cap = acs_gang_e_arrived(c, gg, ed, gg->nodes[ed->src].f0) + ed->pmax;
    ed->cap = cap > 0 ? cap : 1;
  }
}

static int any_over_vmem(const struct acs_gang_ctx *c, const struct acs_gang *gg)
{
  for (int32_t p = 0; p < c->xp.npe; p++)
    if (over_vmem(c, gg, p))
      return 1;
  return 0;
}

/* Raises edge e by one producer firing; 0 when the VMEM has no room. */
static int grow(const struct acs_gang_ctx *c, struct acs_gang *gg, int32_t e)
{
  struct acs_gang_edge *ed = &gg->edges[e];

  if (e < 0 || ed->cap == INT64_MAX)
    return 0;
  ed->cap += ed->pmax;
  if (over_vmem(c, gg, ed->pe)) {
    ed->cap -= ed->pmax;
    return 0;
  }
  return 1;
}

/* The longest-blocked edge on hardware over the bound that can still grow. */
static int32_t pick_buffer(const struct acs_gang_ctx *c, struct acs_gang *gg,
                           const struct acs_gang_run *run, int64_t pstar)
{
  for (;;) {
    int32_t best = -1;
    for (int32_t e = 0; e < gg->nedges; e++) {
      int32_t hw = run->edge_block_hw[e];
      if (hw < 0 || run->edge_block[e] <= 0 || run->hw_end[hw] <= pstar || gg->edges[e].cap == INT64_MAX)
        continue;
      if (best < 0 || run->edge_block[e] > run->edge_block[best])
        best = e;
    }
    if (best < 0)
      return -1;
    if (grow(c, gg, best))
      return best;
    ((struct acs_gang_run *)run)->edge_block[best] = 0;   /* saturated: try the next */
  }
}

struct sized {
  int64_t pre, post, P, total;
};

/* How one segment's run ended (run_segment). */
enum { SEG_STUCK, SEG_DONE, SEG_GREW };

/* Runs the segment set up in `run`: SEG_DONE with its makespan in *span;
 * on a deadlock, SEG_GREW when the edge that blocked it could grow (every
 * segment must run again), else SEG_STUCK; or an error. */
static int run_segment(const struct acs_gang_ctx *c, struct acs_gang *gg,
                       struct acs_gang_run *run, int64_t *span)
{
  int err;

  if ((err = acs_gang_run_segment(run, 1)) < 0)
    return err;
  if (run->ok) {
    *span = run->makespan;
    return SEG_DONE;
  }
  return grow(c, gg, run->dead_edge) ? SEG_GREW : SEG_STUCK;
}

/* Runs preamble, postamble and body with capacities (the body last, so its
 * profile is what the caller reads; without a loop the preamble, which then
 * holds every firing), growing the edge that blocks a deadlock; fills
 * *out. Returns 1 when all three complete. */
static int run_all(const struct acs_gang_ctx *c, struct acs_gang *gg, struct acs_gang_run *run,
                   const int64_t *r, int64_t L, struct sized *out)
{
  for (int64_t guard = 0; guard < 64 * (int64_t)gg->nedges + 64; guard++) {
    int st = SEG_DONE;
    out->post = 0;
    out->P = 0;
    if (L == 0) {
      acs_gang_set_post(gg, r, L, run);
      st = run_segment(c, gg, run, &out->post);
    }
    if (st == SEG_DONE) {
      acs_gang_set_pre(gg, r, run);
      st = run_segment(c, gg, run, &out->pre);
    }
    if (st == SEG_DONE && L > 0) {
      acs_gang_set_post(gg, r, L, run);
      st = run_segment(c, gg, run, &out->post);
    }
    if (st == SEG_DONE && L > 0) {
      acs_gang_set_body(gg, r, run);
      st = run_segment(c, gg, run, &out->P);
    }
    if (st < 0 || st == SEG_STUCK)
      return st < 0 ? st : 0;
    if (st == SEG_DONE) {
      out->total = gg->t_load + out->pre + L * out->P + out->post;
      return 1;
    }
  }
  return 0;
}

/* Phase two for retiming r and L: capacities within the VMEM, grown behind
 * the longest blocking until the body meets its bound. Returns 1 with the
 * best capacities in gg when some configuration completes. */
static int buffer_phase(const struct acs_gang_ctx *c, struct acs_gang *gg, struct acs_gang_run *run,
                        const int64_t *r, int64_t L, int64_t unbounded_P, struct sized *best,
                        int64_t *best_cap)
{
  /* The target: the eq. 5.1 period, or what unbounded buffers reached with
   * this retiming (more buffer space cannot beat that). */
  int64_t pstar = L > 0 ? body_bound(c, gg, r) : 0;

  if (unbounded_P > pstar)
    pstar = unbounded_P;
  int found = 0;

  init_caps(c, gg, r, L > 0);
  if (any_over_vmem(c, gg))
    return 0;
  for (int64_t it = 0; it < c->max_iter; it++) {
    struct sized s;
    int ok = run_all(c, gg, run, r, L, &s);
    if (ok < 0)
      return ok;
    gg->iters_b = (int)it + 1;
    if (!ok)
      break;
    if (!found || s.total < best->total) {
      *best = s;
      for (int32_t e = 0; e < gg->nedges; e++)
        best_cap[e] = gg->edges[e].cap;
      found = 1;
    }
    /* Without a loop only a gang listed whole by choice grows its buffers
     * (behind the longest blocking, toward the gang's cost bound); the
     * fallback of a gang without a loop keeps its first sizes. */
    if ((L == 0 && (!gg->whole || s.total <= gg->bound)) || (L > 0 && s.P <= pstar) ||
        pick_buffer(c, gg, run, pstar) < 0)
      break;
  }
  if (found)
    for (int32_t e = 0; e < gg->nedges; e++)
      gg->edges[e].cap = best_cap[e];
  return found;
}

static void assign_offsets(const struct acs_gang_ctx *c, struct acs_gang *gg)
{
  int64_t *next = calloc((size_t)c->xp.npe + 1, sizeof(*next));

  if (!next)
    return;
  for (int32_t e = 0; e < gg->nedges; e++) {
    struct acs_gang_edge *ed = &gg->edges[e];
    if (ed->pe < 0 || ed->cap == INT64_MAX)
      continue;
    ed->offset = next[ed->pe];
    next[ed->pe] += ed->cap * ed->slot;
  }
  free(next);
}

static int64_t load_time(const struct acs_gang_ctx *c, const struct acs_gang *gg)
{
  int64_t t = 0;

  for (int32_t i = 0; i < gg->nact; i++)
    t += c->info[gg->act[i]].load;
  return t;
}

/* Tries a retiming (and its loop) through the buffer phase; keeps it in gg
 * when it completes. */
static int try_config(const struct acs_gang_ctx *c, struct acs_gang *gg, struct acs_gang_run *run,
                      const int64_t *r, int64_t L, int64_t unbounded_P, int64_t *cap_tmp)
{
  struct sized s = { 0, 0, 0, 0 };
  int ok = buffer_phase(c, gg, run, r, L, unbounded_P, &s, cap_tmp);

  if (ok <= 0)
    return ok;
  memcpy(gg->r, r, (size_t)gg->nnodes * sizeof(*r));
  gg->L = L;
  gg->P = s.P;
  gg->Pstar = L > 0 ? body_bound(c, gg, r) : 0;
  gg->t_pre = s.pre;
  gg->t_post = s.post;
  gg->total = s.total;
  gg->ok = 1;
  return 1;
}

int acs_gang_schedule(const struct acs_gang_ctx *c, struct acs_gang *gg)
{
  int32_t n = gg->nnodes;
  struct phase ph = { NULL, NULL, NULL, 0, 0 };
  struct acs_gang_run run;
  int64_t *cap_tmp = NULL, *zero = NULL;
  int err, ok = 0;

  gg->ok = 0;
  gg->t_load = load_time(c, gg);
  gg->bound = acs_gang_cost(c, gg->nact, gg->act, gg->pe, NULL);
  if ((err = acs_gang_run_init(&run, c, gg)) < 0)
    return err;
  ph.r = calloc((size_t)n + 1, sizeof(int64_t));
  ph.prep = calloc((size_t)n + 1, sizeof(int64_t));
  ph.best_r = calloc((size_t)n + 1, sizeof(int64_t));
  zero = calloc((size_t)n + 1, sizeof(int64_t));
  cap_tmp = calloc((size_t)gg->nedges + 1, sizeof(int64_t));
  if (!ph.r || !ph.prep || !ph.best_r || !zero || !cap_tmp) {
    err = ACS_ENOMEM;
    goto out_with_run;
  }
  if (gg->has_loop && !gg->whole) {
    if ((err = retiming_phase(c, gg, &run, &ph)) < 0)
      goto out_with_run;
    /* The best retiming, then the plain one (fewer buffers), then no loop. */
    if (ph.best_L > 0 &&
        (ok = try_config(c, gg, &run, ph.best_r, ph.best_L, ph.best_P, cap_tmp)) < 0) {
      err = ok;
      goto out_with_run;
    }
    if (!ok) {
      int64_t L = retime(c, gg, zero, ph.r);
      if (L > 0 && (ok = try_config(c, gg, &run, ph.r, L, 0, cap_tmp)) < 0) {
        err = ok;
        goto out_with_run;
      }
    }
  }
  /* While searching, a gang whose loop does not fit is a move to reject:
   * scheduling it without a loop is always possible but slow to find and
   * slow to run. */
  if (!ok && (!gg->has_loop || !c->searching || gg->whole)) {
    no_loop(gg);
    retime(c, gg, zero, ph.r);
    if ((ok = try_config(c, gg, &run, ph.r, 0, 0, cap_tmp)) < 0) {
      err = ok;
      goto out_with_run;
    }
  }
  if (ok)
    assign_offsets(c, gg);
  gg->mode = gg->L > 0 ? ACS_GANG_MODE_PIPELINED : ACS_GANG_MODE_WHOLE;
  err = ACS_OK;
out_with_run:
  acs_gang_run_free(&run);
  free(ph.r);
  free(ph.prep);
  free(ph.best_r);
  free(zero);
  free(cap_tmp);
  return err;
}
