/*
 * bprog_width.c - how many barrier uses can be live at once: the width of
 * the order of uses, by Dilworth's theorem, for programs of any size.
 *
 * The order. Use X precedes use Y when every member of X's end (its
 * consumers, or its producers when it has none) is or reaches every
 * producer of Y: X is then complete before Y starts in every execution.
 * The largest antichain of this order is the most uses live at once.
 *
 * The chains. bprog_check.c has checked, before this runs, that producers
 * reach their consumers and that each use's end reaches the producers of
 * the next use of its barrier. So the uses of one physical barrier form a
 * chain of the order, and the k barriers in use cover the uses with k
 * chains: by Dilworth's theorem (an antichain meets a chain at most once)
 * the width is at most k, and k <= `barriers` because every barrier id is
 * below it (verify.c). That proves the bound in O(U).
 *
 * The exact width, a second, independent computation: a minimum chain
 * cover is U - |M| for a maximum matching M of the bipartite graph with an
 * edge (X, Y') for X < Y (Fulkerson). The k chains give the adjacency
 * implicitly: for X and chain c, the uses of c that X precedes are a suffix
 * of c (if X precedes c_j, it precedes c_j's end and so c_{j+1}), from
 * first[X][c]. To find it, every op e gets per chain c the first index
 * a(e, c) of a use one of whose producers e is or reaches, and which of
 * that use's producers it reaches (a bit mask): both propagate backwards,
 * a minimum and a union, over the program's steps (an op to the use it
 * updates, a use to its consumers) rather than over the edges. The two
 * reach the same ops once bprog_check.c has shown that every edge is kept
 * by the barriers and every barrier order by the edges, and a program has
 * one step per op and per wait where a schedule has tens of edges per op
 * (cascade's memory edges). e precedes
 * c_a when it reaches all of its producers, and always precedes c_{a+1}
 * (a producer of c_a reaches c_a's end, which reaches c_{a+1}'s
 * producers); first[X][c] is the latest of these over X's end. Matching
 * starts from the k chains (U - k pairs), joined greedily where one ends
 * before another begins, and augments in rounds: one
 * alternating search from every free left vertex at once over the implicit
 * adjacency, each right vertex found once through a next-unvisited pointer
 * per chain, then every path of the search forest to a free right vertex
 * that shares no vertex with one taken before is flipped. A largest
 * antichain is read off the last search (Konig).
 *
 * Costs: O((V + U + W) * sum_c w_c) word operations for the labels (w_c
 * words of producer mask on chain c, W waits), O(U k) memory for
 * first[][], O(k^2) to join chains first (join_chains), and O(U k alpha)
 * per round, with few rounds in practice since the joined chains start
 * near a maximum matching. Exact widths are computed when U k <=
 * WIDTH_EXACT_MAX and the labels' work is within LABEL_WORK_MAX; the bound
 * above needs neither.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/bprog.h"
#include "core/model/bprog_int.h"
#include "core/model/reach.h"

#define FAIL(d, ...) acs_diag_set((d), ACS_EVERIFY, NULL, 0, 0, __VA_ARGS__)

/* Entries of first[][] (uses x chains) the exact width may allocate. */
#define WIDTH_EXACT_MAX ((int64_t)1 << 24)
/* Words of labels ((ops + uses) x (1 + mask words)) per batch of chains. */
#define LABEL_WORDS_MAX ((int64_t)1 << 22)
/* Word operations the labels may take in all: (ops + uses + waits) x
 * (1 + mask words) summed over the chains. */
#define LABEL_WORK_MAX ((int64_t)1 << 29)

struct chains {
  int32_t k;
  int32_t *off, *use;   /* uses of chain c in order: use[off[c] .. off[c + 1]) */
  int32_t *ch, *idx;    /* per use: its chain, its index in it */
  int32_t *words;       /* per chain: mask words (largest producer count / 64) */
  int32_t *rank;        /* per op: its index among its use's producers */
};

static void chains_free(struct chains *c)
{
  free(c->off), free(c->use), free(c->ch), free(c->idx), free(c->words), free(c->rank);
  memset(c, 0, sizeof(*c));
}

/* Chains of uses by barrier, in use order (a use's previous use of its
 * barrier was created before it, so ids increase along a chain). */
static int chains_build(const struct acs_bprog *bp, struct chains *c)
{
  int32_t nu = bp->nuses, nb = 0, *cid;

  memset(c, 0, sizeof(*c));
  for (int32_t u = 0; u < nu; u++)
    nb = bp->barrier[u] + 1 > nb ? bp->barrier[u] + 1 : nb;
  cid = malloc(((size_t)nb + 1) * sizeof(int32_t));
  c->off = calloc((size_t)nu + 2, sizeof(int32_t));
  c->use = malloc(((size_t)nu + 1) * sizeof(int32_t));
  c->ch = malloc(((size_t)nu + 1) * sizeof(int32_t));
  c->idx = malloc(((size_t)nu + 1) * sizeof(int32_t));
  c->words = calloc((size_t)nu + 1, sizeof(int32_t));
  c->rank = malloc(((size_t)bp->nops + 1) * sizeof(int32_t));
  if (!cid || !c->off || !c->use || !c->ch || !c->idx || !c->words || !c->rank) {
    free(cid);
    chains_free(c);
    return ACS_ENOMEM;
  }
  for (int32_t b = 0; b < nb; b++)
    cid[b] = -1;
  for (int32_t u = 0; u < nu; u++) {
    int32_t b = bp->barrier[u], np = bp->prod_off[u + 1] - bp->prod_off[u];
    if (cid[b] < 0)
      cid[b] = c->k++;
    c->ch[u] = cid[b];
    c->off[cid[b] + 1]++;
    if ((np + 63) / 64 > c->words[cid[b]])
      c->words[cid[b]] = (np + 63) / 64;
    for (int32_t j = bp->prod_off[u]; j < bp->prod_off[u + 1]; j++)
      c->rank[bp->prod[j]] = j - bp->prod_off[u];
  }
  for (int32_t h = 0; h < c->k; h++)
    c->off[h + 1] += c->off[h];
  for (int32_t h = 0; h < c->k; h++)
    cid[h] = c->off[h];
  for (int32_t u = 0; u < nu; u++) {
    c->idx[u] = cid[c->ch[u]] - c->off[c->ch[u]];
    c->use[cid[c->ch[u]]++] = u;
  }
  free(cid);
  return ACS_OK;
}

/* ---- first[X][c] ---- */

/*
 * Labels of ops and of uses, per chain of the batch: the first index
 * reached (INT32_MAX none) and the mask of that use's producers reached.
 * An op's label is its own (it is a producer of its use) joined with its
 * use's, and a use's is the join of its consumers' labels: the program's
 * steps, producer -> use -> consumer, in reverse topological order.
 */
struct labels {
  const struct acs_bprog *bp;
  const struct chains *ch;
  int32_t c0, c1;            /* the batch of chains */
  int32_t *moff;             /* per chain of the batch: offset of its mask words */
  int32_t width;             /* mask words per label: those of the batch */
  int32_t *a, *ua;           /* ops (uses) x (c1 - c0): first index reached */
  uint64_t *mask, *umask;    /* ops (uses) x width */
  uint8_t *udone;            /* per use: its label is made */
};

/* Joins label (as, ms) into (ae, me): the earlier first index wins, equal
 * ones unite their masks. */
static void label_join(const struct labels *l, int32_t *ae, uint64_t *me, const int32_t *as,
                       const uint64_t *ms)
{
  for (int32_t i = 0; i < l->c1 - l->c0; i++) {
    int32_t w = l->ch->words[l->c0 + i];
    if (as[i] < ae[i]) {
      ae[i] = as[i];
      memcpy(me + l->moff[i], ms + l->moff[i], (size_t)w * sizeof(uint64_t));
    } else if (as[i] == ae[i] && as[i] != INT32_MAX) {
      for (int32_t j = 0; j < w; j++)
        me[l->moff[i] + j] |= ms[l->moff[i] + j];
    }
  }
}

static int32_t *op_a(const struct labels *l, int32_t e)
{
  return l->a + (size_t)e * (size_t)(l->c1 - l->c0);
}

static uint64_t *op_mask(const struct labels *l, int32_t e)
{
  return l->mask + (size_t)e * (size_t)l->width;
}

/* Use u's label from its consumers' (made before: each comes after every
 * producer of u in the order, bprog_check.c's check_orders). */
static void label_use(struct labels *l, int32_t u)
{
  int32_t *au = l->ua + (size_t)u * (size_t)(l->c1 - l->c0);
  uint64_t *mu = l->umask + (size_t)u * (size_t)l->width;

  for (int32_t k = l->bp->cons_off[u]; k < l->bp->cons_off[u + 1]; k++)
    label_join(l, au, mu, op_a(l, l->bp->cons[k]), op_mask(l, l->bp->cons[k]));
  l->udone[u] = 1;
}

/* Op e's label: itself, then what its use's consumers reach. */
static void label_op(struct labels *l, int32_t e)
{
  int32_t u = l->bp->use_of[e];
  int32_t *ae = op_a(l, e);
  uint64_t *me = op_mask(l, e);

  if (u < 0)
    return;
  if (l->ch->ch[u] >= l->c0 && l->ch->ch[u] < l->c1) {
    int32_t i = l->ch->ch[u] - l->c0, r = l->ch->rank[e];
    ae[i] = l->ch->idx[u];
    me[l->moff[i] + r / 64] |= (uint64_t)1 << (r % 64);
  }
  if (!l->udone[u])
    label_use(l, u);
  label_join(l, ae, me, l->ua + (size_t)u * (size_t)(l->c1 - l->c0),
             l->umask + (size_t)u * (size_t)l->width);
}

/* The first index of chain c (batch slot i) that op e precedes. */
static int32_t first_of_op(const struct labels *l, int32_t e, int32_t i)
{
  int32_t nc = l->c1 - l->c0, a = l->a[(size_t)e * (size_t)nc + (size_t)i];
  const uint64_t *me = l->mask + (size_t)e * (size_t)l->width + l->moff[i];
  int32_t u, np;

  if (a == INT32_MAX)
    return INT32_MAX;
  u = l->ch->use[l->ch->off[l->c0 + i] + a];
  np = l->bp->prod_off[u + 1] - l->bp->prod_off[u];
  for (int32_t j = 0; j < np / 64; j++)
    if (me[j] != ~(uint64_t)0)
      return a + 1;
  if (np % 64 && me[np / 64] != ((uint64_t)1 << (np % 64)) - 1)
    return a + 1;
  return a;
}

/* first[x * k + c] for the chains of the batch. */
static void firsts(const struct labels *l, int32_t *first)
{
  const struct acs_bprog *bp = l->bp;
  int32_t k = l->ch->k;

  for (int32_t x = 0; x < bp->nuses; x++) {
    int32_t lo = bp->cons_off[x + 1] > bp->cons_off[x];
    const int32_t *m = lo ? bp->cons + bp->cons_off[x] : bp->prod + bp->prod_off[x];
    int32_t nm = lo ? bp->cons_off[x + 1] - bp->cons_off[x] : bp->prod_off[x + 1] - bp->prod_off[x];
    for (int32_t i = 0; i < l->c1 - l->c0; i++) {
      int32_t f = 0, len = l->ch->off[l->c0 + i + 1] - l->ch->off[l->c0 + i];
      for (int32_t j = 0; j < nm && f != INT32_MAX; j++) {
        int32_t fo = first_of_op(l, m[j], i);
        f = fo > f ? fo : f;
      }
      if (l->ch->ch[x] == l->c0 + i && f <= l->ch->idx[x])
        f = l->ch->idx[x] + 1; /* no use precedes itself */
      first[(size_t)x * (size_t)k + (size_t)(l->c0 + i)] = f > len ? len : f;
    }
  }
}

/* The chains from c0 whose labels fit LABEL_WORDS_MAX (at least one). */
static int32_t batch_end(const struct chains *ch, int32_t nlabels, int32_t c0)
{
  int64_t words = 0;
  int32_t c1 = c0;

  while (c1 < ch->k && (c1 == c0 || (words + 1 + ch->words[c1]) * nlabels <= LABEL_WORDS_MAX))
    words += 1 + ch->words[c1++];
  return c1;
}

static void labels_free(struct labels *l)
{
  free(l->moff), free(l->a), free(l->ua), free(l->mask), free(l->umask), free(l->udone);
  l->moff = l->a = l->ua = NULL;
  l->mask = l->umask = NULL;
  l->udone = NULL;
}

/* Room for the labels of the batch [c0, c1), all empty. */
static int labels_alloc(struct labels *l)
{
  size_t nc = (size_t)(l->c1 - l->c0), nops = (size_t)l->bp->nops, nu = (size_t)l->bp->nuses;

  labels_free(l);
  l->width = 0;
  if (!(l->moff = malloc((nc + 1) * sizeof(int32_t))))
    return ACS_ENOMEM;
  for (size_t i = 0; i < nc; i++) {
    l->moff[i] = l->width;
    l->width += l->ch->words[l->c0 + (int32_t)i];
  }
  l->a = malloc((nops * nc + 1) * sizeof(int32_t));
  l->ua = malloc((nu * nc + 1) * sizeof(int32_t));
  l->mask = calloc(nops * (size_t)l->width + 1, sizeof(uint64_t));
  l->umask = calloc(nu * (size_t)l->width + 1, sizeof(uint64_t));
  l->udone = calloc(nu + 1, 1);
  if (!l->a || !l->ua || !l->mask || !l->umask || !l->udone)
    return ACS_ENOMEM;
  for (size_t i = 0; i < nops * nc; i++)
    l->a[i] = INT32_MAX;
  for (size_t i = 0; i < nu * nc; i++)
    l->ua[i] = INT32_MAX;
  return ACS_OK;
}

/* first[][] from labels over the program, batch by batch of chains; topo
 * is a topological order of the edges (their reach is the program's). */
static int compute_firsts(const struct acs_bprog *bp, const struct chains *ch,
                          const int32_t *topo, int32_t *first)
{
  struct labels l = {bp, ch, 0, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL};
  int err = ACS_OK;

  for (l.c0 = 0; l.c0 < ch->k && err == ACS_OK; l.c0 = l.c1) {
    l.c1 = batch_end(ch, bp->nops + bp->nuses, l.c0);
    if ((err = labels_alloc(&l)) < 0)
      break;
    for (int32_t p = bp->nops - 1; p >= 0; p--)
      label_op(&l, topo[p]);
    firsts(&l, first);
    if (acs_interrupt_pending())
      err = ACS_EINTERRUPTED;
  }
  labels_free(&l);
  return err;
}

/* ---- matching over the implicit order ---- */

struct match {
  const struct chains *ch;
  const int32_t *first;
  int32_t nu;
  int32_t *ml, *mr;       /* partners, -1 none */
  int32_t *parent;        /* per right vertex: the left vertex that reached it */
  int32_t *queue, *freed; /* free right vertices reached */
  int32_t *skip;          /* per chain position: next unvisited position (union-find) */
  uint8_t *seen_l, *seen_r, *used;
};

/* Next unvisited position >= p before end (path halving). */
static int32_t next_free(int32_t *skip, int32_t p, int32_t end)
{
  while (p < end && skip[p] != p) {
    skip[p] = skip[skip[p]] < end ? skip[skip[p]] : end;
    p = skip[p];
  }
  return p;
}

/* An alternating search from every free left vertex at once; each right
 * vertex is reached once (skip), so O(U k alpha). Returns how many free
 * right vertices it reached (in freed). */
static int32_t search(struct match *m)
{
  const struct chains *ch = m->ch;
  int32_t qh = 0, qt = 0, nf = 0, k = ch->k;

  for (int32_t p = 0; p <= m->nu; p++)
    m->skip[p] = p;
  memset(m->seen_l, 0, (size_t)m->nu + 1);
  memset(m->seen_r, 0, (size_t)m->nu + 1);
  for (int32_t x = 0; x < m->nu; x++)
    if (m->ml[x] < 0) {
      m->seen_l[x] = 1;
      m->queue[qt++] = x;
    }
  while (qh < qt) {
    int32_t x = m->queue[qh++];
    for (int32_t c = 0; c < k; c++) {
      int32_t end = ch->off[c + 1];
      for (int32_t p = next_free(m->skip, ch->off[c] + m->first[(size_t)x * k + c], end);
           p < end; p = next_free(m->skip, p, end)) {
        int32_t y = ch->use[p], z = m->mr[y];
        m->skip[p] = p + 1;
        m->seen_r[y] = 1;
        m->parent[y] = x;
        if (z < 0)
          m->freed[nf++] = y;
        else if (!m->seen_l[z]) {
          m->seen_l[z] = 1;
          m->queue[qt++] = z;
        }
      }
    }
  }
  return nf;
}

/* Flips the search's paths to the free right vertices, those that share
 * no left vertex with a path flipped before; returns how many. */
static int32_t augment(struct match *m, int32_t nf)
{
  int32_t grown = 0;

  memset(m->used, 0, (size_t)m->nu + 1);
  for (int32_t i = 0; i < nf; i++) {
    int ok = 1;
    for (int32_t y = m->freed[i], x; y >= 0 && ok; y = m->ml[x]) {
      x = m->parent[y];
      ok = !m->used[x];
    }
    if (!ok)
      continue;
    for (int32_t y = m->freed[i]; y >= 0;) {
      int32_t x = m->parent[y], prev = m->ml[x];
      m->used[x] = 1;
      m->ml[x] = y;
      m->mr[y] = x;
      y = prev;
    }
    grown++;
  }
  return grown;
}

/* Augments until no path is left (at least one per round). */
static int match_run(struct match *m)
{
  int32_t nf;

  while ((nf = search(m)) > 0) {
    if (augment(m, nf) == 0)
      return ACS_EINVAL; /* a reached free vertex always has a path */
    if (acs_interrupt_pending())
      return ACS_EINTERRUPTED;
  }
  return ACS_OK;
}

/* Konig: left copies reached by the last search whose right copy was not
 * reached form a largest antichain. */
static int32_t antichain(const struct match *m, int32_t *members)
{
  int32_t n = 0;

  for (int32_t x = 0; x < m->nu; x++)
    if (m->seen_l[x] && !m->seen_r[x])
      members[n++] = x;
  return n;
}

/*
 * Joins chains before the first search: the head of chain c (in the order
 * the chains began) after the latest free chain end that precedes it.
 * Each join is an augmenting path of one edge, so the matching stays a
 * matching and the rounds still end at a maximum one (the same width);
 * they only start closer to it. Programs on many barriers reuse few of
 * them at a time, and a search per join (O(U k) each) is what made the
 * exact width slow there (21 s on a 23,000-op program on 1,024 barriers).
 * O(k^2), and k^2 <= U k.
 */
static void join_chains(struct match *m)
{
  const struct chains *ch = m->ch;
  int32_t k = ch->k;

  for (int32_t c = 0; c < k; c++) {
    int32_t y = ch->use[ch->off[c]], best = -1;
    for (int32_t h = 0; h < k; h++) {
      int32_t x = ch->use[ch->off[h + 1] - 1];
      if (h != c && m->ml[x] < 0 && m->first[(size_t)x * k + c] == 0 && x > best)
        best = x;
    }
    if (best >= 0) {
      m->ml[best] = y;
      m->mr[y] = best;
    }
  }
}

static int exact_width(const struct acs_bprog *bp, const struct chains *ch, const int32_t *first,
                       int32_t *width, int32_t *members)
{
  struct match m;
  size_t n = (size_t)bp->nuses + 1;
  int32_t matched = 0;
  int err = ACS_ENOMEM;

  memset(&m, 0, sizeof(m));
  m.ch = ch;
  m.first = first;
  m.nu = bp->nuses;
  m.ml = malloc(n * sizeof(int32_t)), m.mr = malloc(n * sizeof(int32_t));
  m.parent = malloc(n * sizeof(int32_t)), m.queue = malloc(n * sizeof(int32_t));
  m.freed = malloc(n * sizeof(int32_t)), m.skip = malloc((n + 1) * sizeof(int32_t));
  m.seen_l = malloc(n), m.seen_r = malloc(n), m.used = malloc(n);
  if (m.ml && m.mr && m.parent && m.queue && m.freed && m.skip && m.seen_l && m.seen_r &&
      m.used) {
    for (int32_t u = 0; u < m.nu; u++)
      m.ml[u] = m.mr[u] = -1;
    for (int32_t c = 0; c < ch->k; c++) /* the chains: U - k pairs */
      for (int32_t p = ch->off[c]; p + 1 < ch->off[c + 1]; p++) {
        m.ml[ch->use[p]] = ch->use[p + 1];
        m.mr[ch->use[p + 1]] = ch->use[p];
      }
    join_chains(&m);
    if ((err = match_run(&m)) == ACS_OK) {
      for (int32_t u = 0; u < m.nu; u++)
        matched += m.ml[u] >= 0;
      *width = m.nu - matched;
      if (members && antichain(&m, members) != *width)
        err = ACS_EINVAL; /* Konig's theorem says it cannot */
    }
  }
  free(m.ml), free(m.mr), free(m.parent), free(m.queue), free(m.freed), free(m.skip);
  free(m.seen_l), free(m.seen_r), free(m.used);
  return err;
}

/*
 * The exact width of bp's use order and a largest antichain in members
 * (room for nuses; may be NULL), given that bprog_check.c's order checks
 * hold. ACS_ERANGE when first[][] would exceed WIDTH_EXACT_MAX entries.
 */
static int width_of(const struct acs_bprog *bp, const struct acs_dag *all, int32_t *width,
                    int32_t *members, int32_t *nchains)
{
  struct chains ch;
  int32_t *first = NULL;
  int64_t words = 0;
  int err;

  *width = 0;
  if ((err = chains_build(bp, &ch)) < 0)
    return err;
  *nchains = ch.k;
  for (int32_t c = 0; c < ch.k; c++)
    words += 1 + ch.words[c];
  if ((int64_t)bp->nuses * ch.k > WIDTH_EXACT_MAX ||
      (bp->nops + bp->nuses + (int64_t)bp->cons_off[bp->nuses]) * words > LABEL_WORK_MAX) {
    chains_free(&ch);
    return ACS_ERANGE;
  }
  first = malloc(((size_t)bp->nuses * (size_t)ch.k + 1) * sizeof(int32_t));
  err = !first ? ACS_ENOMEM : compute_firsts(bp, &ch, all->topo, first);
  if (err == ACS_OK)
    err = exact_width(bp, &ch, first, width, members);
  free(first);
  chains_free(&ch);
  return err;
}

int acs__bprog_check_width(const struct acs_schedule *s, const struct acs_bprog *bp,
                           const struct acs_dag *g, struct acs_diag *d)
{
  int32_t width = 0, k = 0, *members = malloc(((size_t)bp->nuses + 1) * sizeof(int32_t));
  char list[256] = "";
  size_t len = 0;
  int err;

  if (!members)
    return ACS_ENOMEM;
  err = width_of(bp, g, &width, members, &k);
  if (err == ACS_ERANGE) /* too large to match: the chain cover bounds it */
    err = k > s->barriers ? FAIL(d, "%d barriers carry uses, more than the %d barriers", k,
                                 s->barriers)
                          : ACS_OK;
  else if (err == ACS_OK && (width > s->barriers || width > k)) {
    for (int32_t j = 0; j < width && j < 6 && len < sizeof(list); j++)
      len += (size_t)snprintf(list + len, sizeof(list) - len, "%s'%s'", j ? ", " : "",
                              s->ops[bp->prod[bp->prod_off[members[j]]]].name);
    err = FAIL(d, "%d barrier uses can be live at once in some execution, more than the %d "
                  "barriers (largest antichain by Dilworth's theorem: the uses updated by "
                  "%s%s)", width, width > s->barriers ? s->barriers : k, list,
               width > 6 ? ", ..." : "");
  }
  free(members);
  return err;
}

int acs_bprog_use_width(const struct acs_schedule *s, int32_t *width)
{
  struct acs_bprog bp;
  struct acs_dag g;
  int32_t k;
  int err;

  if ((err = acs_bprog_build(s, &bp)) < 0)
    return err;
  if ((err = acs__bprog_edge_dag(s, &bp, &g)) == ACS_OK) {
    err = width_of(&bp, &g, width, NULL, &k);
    acs_dag_destroy(&g);
  }
  acs_bprog_destroy(&bp);
  return err;
}
