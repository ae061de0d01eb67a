/*
 * mapping.c - mapping a gang's actors onto PEs (seed 004, section 5.2.3).
 *
 * The thesis enumerates all |PE|^n assignments. Here:
 *  1. PEs are identical, so assignments that differ by renaming PEs are one:
 *     actor i (in order of decreasing work) may open at most the next unused
 *     PE. That alone divides the space by up to |PE|!.
 *  2. Branch and bound on the gang's optimal cost (eq. 5.1: the busiest PE,
 *     DMA channel or the DDR link) and then its local transfer time: a
 *     partial assignment whose bound (its heaviest PE, the total work over
 *     the PEs, the transfers it already cuts) cannot beat the incumbent is
 *     dropped, as is one whose program memory overflows.
 *  3. The incumbent starts from a greedy assignment (each actor where the
 *     partial cost grows least) improved by single-actor moves, O(n^2 |PE|)
 *     per pass, so even a search cut short by its node budget returns a
 *     good mapping; within the budget the result is optimal.
 * On the benchmark graphs gangs of up to 8 actors map in a few hundred
 * search nodes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gang.h"

struct pair {
  int32_t i, j;          /* positions in the search order */
  int64_t t;             /* local transfer time when i and j are apart */
};

struct nb {
  int32_t other;         /* a position */
  int64_t t;             /* local transfer time when apart */
};

struct mstate {
  int32_t n, npe, ndma;
  int64_t pmem, fixed_ddr, total_work;
  int64_t lanes;         /* DDR transfers the link carries at once */
  int64_t *work, *ksize;
  int32_t *pos_actor;    /* search order -> index into act[] */
  struct pair *pairs;
  int32_t npairs;
  /* per position i: the pairs whose other end comes earlier, as that end
   * and the pair's time (nb[adj_off[i] .. adj_off[i + 1])), and their sum */
  int32_t *adj_off;
  struct nb *nb;
  int64_t *adj_all;
  int32_t *fadj_off;     /* per position: all its pairs, nb-like in fnb */
  struct nb *fnb;
  int32_t *pe;           /* by search position */
  int64_t *load, *pm;
  int64_t cut, budget, visited;
  int64_t avg_work;      /* ceil(total_work / PEs) */
  int64_t lb0;           /* max(ceil(fixed_ddr / lanes), avg_work): the bound's fixed terms */
  int64_t mul_lim;       /* INT64_MAX / ndma: products with ndma below it do not overflow */
  int64_t floor;         /* no mapping costs less: max(DDR, work / PEs, largest work) */
  int64_t best_cost, best_cut;
  int32_t *best_pe;
  int64_t *dcut;         /* n x npe: cut_deltas of each search depth */
};

/* The cost (eq. 5.1) of loads and cut so far. */
static int64_t partial_cost(const struct mstate *m)
{
  int64_t c = acs_ceil_div_i64(m->fixed_ddr, m->lanes);
  int64_t dma = acs_ceil_div_i64(m->fixed_ddr + m->cut, m->ndma);

  if (dma > c)
    c = dma;
  for (int32_t p = 0; p < m->npe; p++)
    if (m->load[p] > c)
      c = m->load[p];
  return c;
}

/* Transfer time added when position i goes to PE p (positions below i are
 * placed). */
static int64_t cut_delta(const struct mstate *m, int32_t i, int32_t p)
{
  int64_t d = 0;

  for (int32_t k = m->adj_off[i]; k < m->adj_off[i + 1]; k++)
    if (m->pe[m->nb[k].other] != p)
      d += m->nb[k].t;
  return d;
}

/* cut_delta for every PE at once: all of i's pairs to earlier positions
 * minus those whose other end is on p. O(degree + |PE|) where one
 * cut_delta per PE takes O(degree |PE|). */
static void cut_deltas(const struct mstate *m, int32_t i, int64_t *d)
{
  for (int32_t p = 0; p < m->npe; p++)
    d[p] = 0;
  for (int32_t k = m->adj_off[i]; k < m->adj_off[i + 1]; k++)
    d[m->pe[m->nb[k].other]] += m->nb[k].t;
  for (int32_t p = 0; p < m->npe; p++)
    d[p] = m->adj_all[i] - d[p];
}

/* For each position, the pairs whose other end is an earlier position. */
static int build_adjacency(struct mstate *m)
{
  m->adj_off = calloc((size_t)m->n + 2, sizeof(int32_t));
  m->nb = malloc(((size_t)m->npairs + 1) * sizeof(*m->nb));
  m->adj_all = calloc((size_t)m->n + 1, sizeof(int64_t));
  if (!m->adj_off || !m->nb || !m->adj_all)
    return ACS_ENOMEM;
  for (int32_t k = 0; k < m->npairs; k++) {
    int32_t late = m->pairs[k].i > m->pairs[k].j ? m->pairs[k].i : m->pairs[k].j;
    m->adj_off[late + 2]++;
  }
  for (int32_t i = 0; i < m->n; i++)
    m->adj_off[i + 2] += m->adj_off[i + 1];
  for (int32_t k = 0; k < m->npairs; k++) {
    const struct pair *q = &m->pairs[k];
    int32_t late = q->i > q->j ? q->i : q->j;
    m->nb[m->adj_off[late + 1]++] = (struct nb){ q->i > q->j ? q->j : q->i, q->t };
    m->adj_all[late] += q->t;
  }
  /* Both ends, for local_search. */
  m->fadj_off = calloc((size_t)m->n + 2, sizeof(int32_t));
  m->fnb = malloc((2 * (size_t)m->npairs + 1) * sizeof(*m->fnb));
  if (!m->fadj_off || !m->fnb)
    return ACS_ENOMEM;
  for (int32_t k = 0; k < m->npairs; k++) {
    m->fadj_off[m->pairs[k].i + 2]++;
    m->fadj_off[m->pairs[k].j + 2]++;
  }
  for (int32_t i = 0; i < m->n; i++)
    m->fadj_off[i + 2] += m->fadj_off[i + 1];
  for (int32_t k = 0; k < m->npairs; k++) {
    const struct pair *q = &m->pairs[k];
    m->fnb[m->fadj_off[q->i + 1]++] = (struct nb){ q->j, q->t };
    m->fnb[m->fadj_off[q->j + 1]++] = (struct nb){ q->i, q->t };
  }
  return ACS_OK;
}

static int better(int64_t cost, int64_t cut, int64_t bcost, int64_t bcut)
{
  return cost < bcost || (cost == bcost && cut < bcut);
}

static void keep_best(struct mstate *m)
{
  int64_t c = partial_cost(m);

  if (better(c, m->cut, m->best_cost, m->best_cut)) {
    m->best_cost = c;
    m->best_cut = m->cut;
    memcpy(m->best_pe, m->pe, (size_t)m->n * sizeof(*m->pe));
  }
}

/* better(max(lb, ceil(x / ndma)), cut, incumbent) for the DMA channels'
 * share x = fixed_ddr + cut of the DDR and cut transfers, comparing x
 * with multiples of ndma instead of dividing (a division costs more than
 * the rest of a search node): ceil(x / n) <= y iff x <= y n. */
static int bound_beats(const struct mstate *m, int64_t lb)
{
  int64_t x = m->fixed_ddr + m->cut, bc = m->best_cost, n = m->ndma;

  if (lb >= m->mul_lim || bc >= m->mul_lim || bc < 1) {
    int64_t d = acs_ceil_div_i64(x, n);           /* products could overflow: divide */
    return better(d > lb ? d : lb, m->cut, bc, m->best_cut);
  }
  if (x <= lb * n)
    return better(lb, m->cut, bc, m->best_cut);   /* the DMA term is not above lb */
  if (x <= (bc - 1) * n)
    return 1;                                     /* it is, and below the incumbent */
  return x <= bc * n && m->cut < m->best_cut;     /* equal to it: the cut decides */
}

static void search(struct mstate *m, int32_t i, int32_t used);

/* search's loop over the PEs p < lim position i may take: place, bound
 * (partial_cost from the loads' maximum top before this placement, the
 * total work spread evenly, and the least load the next actor lands on:
 * m1, or min(m2, m1 + work) on q1 which holds m1), recurse, undo. The
 * fixed terms are read once (they do not change below). */
static void place_children(struct mstate *m, int32_t i, int32_t used, int32_t lim, int64_t top,
                           int64_t m1, int64_t m2, int32_t q1, const int64_t *dcut)
{
  const int64_t wi = m->work[i], ki = m->ksize[i], pmem = m->pmem;
  const int has_next = i + 1 < m->n;
  const int64_t wnext = has_next ? m->work[i + 1] : 0, on_q1 = m2 < m1 + wi ? m2 : m1 + wi;
  const int64_t base = top > m->lb0 ? top : m->lb0;
  int64_t *load = m->load, *pm = m->pm;

  for (int32_t p = 0; p < lim; p++) {
    int64_t lb = base;
    if (pm[p] + ki > pmem)
      continue;
    m->pe[i] = p;
    load[p] += wi;
    pm[p] += ki;
    m->cut += dcut[p];
    if (load[p] > lb)
      lb = load[p];
    /* Actors come heaviest first: the next one lands on some PE. */
    if (has_next && (p != q1 ? m1 : on_q1) + wnext > lb)
      lb = (p != q1 ? m1 : on_q1) + wnext;
    if (bound_beats(m, lb))
      search(m, i + 1, p == used ? used + 1 : used);
    m->cut -= dcut[p];
    load[p] -= wi;
    pm[p] -= ki;
  }
}

/* Places position i on each PE it may take, in order, and recurses while
 * the bound can beat the incumbent. O(|PE| + degree) per search node. */
static void search(struct mstate *m, int32_t i, int32_t used)
{
  int32_t lim = used < m->npe ? used + 1 : m->npe, q1 = 0;
  int64_t m1 = INT64_MAX, m2 = INT64_MAX, top = 0, *dcut;

  /* Out of budget, or the incumbent is optimal on both criteria. */
  if (m->visited++ >= m->budget || (m->best_cost <= m->floor && m->best_cut == 0))
    return;
  if (i == m->n) {
    keep_best(m);
    return;
  }
  /* The least and second least loads: the least load once actor i is
   * placed on p is m1, or min(m2, m1 + work) when p holds m1. O(|PE|). */
  for (int32_t q = 0; q < m->npe; q++) {
    if (m->load[q] > top)
      top = m->load[q];
    if (m->load[q] < m1) {
      m2 = m1;
      m1 = m->load[q];
      q1 = q;
    } else if (m->load[q] < m2) {
      m2 = m->load[q];
    }
  }
  dcut = m->dcut + (size_t)i * (size_t)m->npe;
  cut_deltas(m, i, dcut);
  place_children(m, i, used, lim, top, m1, m2, q1, dcut);
}

/* (cost, cut, sum of squared loads) of the loads and cut in m. */
static void measure(const struct mstate *m, int64_t *cost, int64_t *cut, double *spread)
{
  *cost = partial_cost(m);
  *cut = m->cut;
  *spread = 0;
  for (int32_t p = 0; p < m->npe; p++)
    *spread += (double)m->load[p] * (double)m->load[p];
}

/* Loads, program memory and cut of the assignment in m->pe; returns
 * (cost, cut, sum of squared loads) through the pointers; 0 when the
 * program memory overflows. */
static int evaluate(struct mstate *m, int64_t *cost, int64_t *cut, double *spread)
{
  for (int32_t p = 0; p < m->npe; p++)
    m->load[p] = m->pm[p] = 0;
  for (int32_t i = 0; i < m->n; i++) {
    m->load[m->pe[i]] += m->work[i];
    if ((m->pm[m->pe[i]] += m->ksize[i]) > m->pmem)
      return 0;
  }
  m->cut = 0;
  for (int32_t k = 0; k < m->npairs; k++)
    if (m->pe[m->pairs[k].i] != m->pe[m->pairs[k].j])
      m->cut += m->pairs[k].t;
  measure(m, cost, cut, spread);
  return 1;
}

/* The change of the cut when position i goes from PE a to PE b, the
 * others staying (position skip left out: it swaps with i). O(degree). */
static int64_t cut_move(const struct mstate *m, int32_t i, int32_t a, int32_t b, int32_t skip)
{
  int64_t d = 0;

  for (int32_t k = m->fadj_off[i]; k < m->fadj_off[i + 1]; k++) {
    int32_t q = m->pe[m->fnb[k].other];
    if (m->fnb[k].other != skip)
      d += m->fnb[k].t * ((b != q) - (a != q));
  }
  return d;
}

/* The loads change by dl on PE a and by -dl on PE b and the cut by dc;
 * (cost, cut, spread) as evaluate gives them. */
static void shift(struct mstate *m, int32_t a, int32_t b, int64_t dl, int64_t dc)
{
  m->load[a] += dl;
  m->load[b] -= dl;
  m->cut += dc;
}

/* (cost, cut, spread) lexicographically: the spread of the loads breaks ties
 * of the maximum, so moves that even out two equally loaded PEs count. */
static int improves(int64_t c, int64_t x, double s, int64_t c0, int64_t x0, double s0)
{
  return c < c0 || (c == c0 && (x < x0 || (x == x0 && s < s0)));
}

/* Moves position i to PE p when that keeps the program memory and
 * improves (c0, x0, s0). O(degree + |PE|): the loads, program memory and
 * cut of the current assignment (feasible) are kept, and a trial changes
 * only those of i's PEs and pairs, with the values evaluate would give. */
static int try_move(struct mstate *m, int32_t i, int32_t p, int64_t *c0, int64_t *x0, double *s0)
{
  int32_t old = m->pe[i];
  int64_t c, x, dc;
  double s1;

  if (m->pm[p] + m->ksize[i] > m->pmem)
    return 0;
  dc = cut_move(m, i, old, p, -1);
  shift(m, p, old, m->work[i], dc);
  measure(m, &c, &x, &s1);
  if (!improves(c, x, s1, *c0, *x0, *s0)) {
    shift(m, p, old, -m->work[i], -dc);
    return 0;
  }
  m->pe[i] = p;
  m->pm[p] += m->ksize[i];
  m->pm[old] -= m->ksize[i];
  *c0 = c, *x0 = x, *s0 = s1;
  return 1;
}

/* Swaps the PEs of positions i and j (apart) under the same rules. */
static int try_swap(struct mstate *m, int32_t i, int32_t j, int64_t *c0, int64_t *x0, double *s0)
{
  int32_t pi = m->pe[i], pj = m->pe[j];
  int64_t c, x, dc, dk = m->ksize[j] - m->ksize[i];
  double s1;

  if (m->pm[pi] + dk > m->pmem || m->pm[pj] - dk > m->pmem)
    return 0;
  /* Pairs between i and j stay apart. */
  dc = cut_move(m, i, pi, pj, j) + cut_move(m, j, pj, pi, i);
  shift(m, pi, pj, m->work[j] - m->work[i], dc);
  measure(m, &c, &x, &s1);
  if (!improves(c, x, s1, *c0, *x0, *s0)) {
    shift(m, pi, pj, m->work[i] - m->work[j], -dc);
    return 0;
  }
  m->pe[i] = pj;
  m->pe[j] = pi;
  m->pm[pi] += dk;
  m->pm[pj] -= dk;
  *c0 = c, *x0 = x, *s0 = s1;
  return 1;
}

/* Single-actor moves and pairwise swaps while they improve.
 * O(n (n + |PE|) (degree + |PE|)) per pass. */
static void local_search(struct mstate *m)
{
  int64_t c0, x0;
  double s0;
  int improved = 1;

  if (!evaluate(m, &c0, &x0, &s0))
    return;
  for (int pass = 0; improved && pass < 64; pass++) {
    improved = 0;
    for (int32_t i = 0; i < m->n; i++) {
      for (int32_t p = 0; p < m->npe; p++)
        if (p != m->pe[i] && try_move(m, i, p, &c0, &x0, &s0))
          improved = 1;
      for (int32_t j = i + 1; j < m->n; j++)
        if (m->pe[i] != m->pe[j] && try_swap(m, i, j, &c0, &x0, &s0))
          improved = 1;
    }
  }
  evaluate(m, &c0, &x0, &s0);
}

/* Greedy placement in search order, then moves and swaps while they
 * improve. Leaves the result as the incumbent when feasible. */
static void greedy(struct mstate *m)
{
  for (int32_t i = 0; i < m->n; i++) {
    int32_t bp = -1;
    int64_t bc = INT64_MAX, bcut = INT64_MAX;
    for (int32_t p = 0; p < m->npe; p++) {
      int64_t dc, c;
      if (m->pm[p] + m->ksize[i] > m->pmem)
        continue;
      dc = cut_delta(m, i, p);
      m->load[p] += m->work[i];
      m->cut += dc;
      c = partial_cost(m);
      if (better(c, m->cut, bc, bcut)) {
        bc = c;
        bcut = m->cut;
        bp = p;
      }
      m->load[p] -= m->work[i];
      m->cut -= dc;
    }
    if (bp < 0)
      goto out_with_partial;
    m->pe[i] = bp;
    m->load[bp] += m->work[i];
    m->pm[bp] += m->ksize[i];
    m->cut += cut_delta(m, i, bp);
  }
  local_search(m);
  keep_best(m);
out_with_partial:
  for (int32_t p = 0; p < m->npe; p++)
    m->load[p] = m->pm[p] = 0;
  m->cut = 0;
}

/* Sort of positions by work, highest first, ties by actor index (stable and
 * deterministic without qsort_r). */
static void order_by_work(int32_t n, const int64_t *work, int32_t *idx)
{
  for (int32_t i = 0; i < n; i++)
    idx[i] = i;
  for (int32_t i = 1; i < n; i++) {
    int32_t v = idx[i], j = i;
    while (j > 0 && work[idx[j - 1]] < work[v]) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = v;
  }
}

/* The channels' DDR transfers into the fixed DDR time and the pairs of
 * members a channel joins. O(A + C) (where[a]: a's index in act, or -1). */
static int build_pairs(const struct acs_gang_ctx *c, int32_t nact, const int32_t *act,
                       const int32_t *pos_of, struct mstate *m)
{
  const struct acs_sdf_graph *g = c->g;
  int32_t cap = 0, *where = malloc(((size_t)g->nactors + 1) * sizeof(*where));

  if (!where)
    return ACS_ENOMEM;
  for (int32_t a = 0; a < g->nactors; a++)
    where[a] = -1;
  for (int32_t i = 0; i < nact; i++)
    where[act[i]] = i;
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    int32_t s = cc->src >= 0 ? where[cc->src] : -1, t = cc->dst >= 0 ? where[cc->dst] : -1;
    if (s < 0 || t < 0) {
      if (s >= 0)
        m->fixed_ddr += cc->produced * c->ccost[ch].ddr_token;
      else if (t >= 0)
        m->fixed_ddr += cc->consumed * c->ccost[ch].ddr_token;
      continue;
    }
    if (s == t || cc->produced == 0)
      continue;
    if (m->npairs == cap) {
      struct pair *np;
      cap = cap ? 2 * cap : 16;
      if (!(np = realloc(m->pairs, (size_t)cap * sizeof(*np)))) {
        free(where);
        return ACS_ENOMEM;
      }
      m->pairs = np;
    }
    m->pairs[m->npairs++] =
        (struct pair){ pos_of[s], pos_of[t], cc->produced * c->ccost[ch].cmx_token };
  }
  free(where);
  return ACS_OK;
}

int acs_gang_map(const struct acs_gang_ctx *c, int32_t nact, const int32_t *act, int32_t *pe,
                 int64_t budget, int64_t *cost)
{
  struct mstate m;
  int32_t *idx = NULL, *pos_of = NULL;
  int64_t *w = NULL;
  int rc = 0;

  memset(&m, 0, sizeof(m));
  m.n = nact;
  m.npe = c->xp.npe;
  m.ndma = c->xp.ndma;
  m.lanes = c->xp.lanes;
  m.pmem = c->xp.pmem;
  m.budget = budget;
  m.best_cost = m.best_cut = INT64_MAX;
  w = malloc(((size_t)nact + 1) * sizeof(*w));
  idx = malloc(((size_t)nact + 1) * sizeof(*idx));
  pos_of = malloc(((size_t)nact + 1) * sizeof(*pos_of));
  m.work = malloc(((size_t)nact + 1) * sizeof(int64_t));
  m.ksize = malloc(((size_t)nact + 1) * sizeof(int64_t));
  m.pe = calloc((size_t)nact + 1, sizeof(int32_t));
  m.best_pe = calloc((size_t)nact + 1, sizeof(int32_t));
  m.load = calloc((size_t)m.npe + 1, sizeof(int64_t));
  m.pm = calloc((size_t)m.npe + 1, sizeof(int64_t));
  m.dcut = malloc(((size_t)nact + 1) * ((size_t)m.npe + 1) * sizeof(int64_t));
  if (!w || !idx || !pos_of || !m.work || !m.ksize || !m.pe || !m.best_pe || !m.load || !m.pm ||
      !m.dcut) {
    rc = ACS_ENOMEM;
    goto out_with_state;
  }
  for (int32_t i = 0; i < nact; i++)
    w[i] = c->info[act[i]].work;
  order_by_work(nact, w, idx);
  for (int32_t k = 0; k < nact; k++) {
    pos_of[idx[k]] = k;
    m.work[k] = w[idx[k]];
    m.ksize[k] = c->g->actors[act[idx[k]]].kernel_bytes;
    m.total_work += m.work[k];
    m.fixed_ddr += c->info[act[idx[k]]].load;   /* its kernel's load */
    if (m.ksize[k] > m.pmem)
      goto out_with_state;   /* rc = 0: cannot fit */
  }
  if ((rc = build_pairs(c, nact, act, pos_of, &m)) < 0 || (rc = build_adjacency(&m)) < 0)
    goto out_with_state;
  m.avg_work = acs_ceil_div_i64(m.total_work, m.npe);
  m.mul_lim = INT64_MAX / m.ndma;
  m.lb0 = acs_ceil_div_i64(m.fixed_ddr, m.lanes);
  if (m.avg_work > m.lb0)
    m.lb0 = m.avg_work;
  m.floor = acs_ceil_div_i64(m.fixed_ddr, m.lanes);
  if (m.avg_work > m.floor)
    m.floor = m.avg_work;
  if (acs_ceil_div_i64(m.fixed_ddr, m.ndma) > m.floor)
    m.floor = acs_ceil_div_i64(m.fixed_ddr, m.ndma);
  if (nact > 0 && m.work[0] > m.floor)
    m.floor = m.work[0];
  greedy(&m);
  search(&m, 0, 0);
  if (m.best_cost == INT64_MAX) {
    rc = 0;
    goto out_with_state;
  }
  for (int32_t k = 0; k < nact; k++)
    pe[idx[k]] = m.best_pe[k];
  if (cost)
    *cost = m.best_cost;
  rc = 1;
out_with_state:
  free(w);
  free(idx);
  free(pos_of);
  free(m.work);
  free(m.ksize);
  free(m.pe);
  free(m.best_pe);
  free(m.load);
  free(m.pm);
  free(m.dcut);
  free(m.pairs);
  free(m.adj_off);
  free(m.nb);
  free(m.adj_all);
  free(m.fadj_off);
  free(m.fnb);
  return rc;
}
