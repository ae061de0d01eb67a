/*
 * antichain.c - width of a partial order by Dilworth's theorem: maximum
 * bipartite matching (Hopcroft-Karp on bitset rows) and Konig's minimum
 * vertex cover. See antichain.h for the costs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/antichain.h"

void acs_dag_descendants(int32_t n, const int32_t *succ_off, const int32_t *succ,
                         const int32_t *topo, uint64_t *rows)
{
  size_t words = acs_bits_words(n);

  for (int32_t k = n - 1; k >= 0; k--) {
    int32_t u = topo[k];
    uint64_t *ru = rows + (size_t)u * words;
    for (int32_t e = succ_off[u]; e < succ_off[u + 1]; e++) {
      const uint64_t *rv = rows + (size_t)succ[e] * words;
      for (size_t w = 0; w < words; w++)
        ru[w] |= rv[w];
      acs_bit_set(ru, succ[e]);
    }
  }
}

#define HK_INF INT32_MAX

struct hk {
  int32_t n;
  size_t words;
  const uint64_t *rows;
  int32_t *match_l, *match_r; /* partner or -1 */
  int32_t *dist;              /* BFS layer of each left vertex */
  int32_t *cur;               /* next right vertex to try, per left vertex */
  int32_t *queue, *stack, *via;
  uint64_t *seen;             /* right vertices reached in this BFS */
};

/* First set bit j >= from of row & ~mask (mask may be NULL), or -1. */
static int32_t next_bit(const uint64_t *row, const uint64_t *mask, size_t words, int32_t from)
{
  size_t w = (size_t)from >> 6;

  if (w >= words)
    return -1;
  uint64_t x = row[w] & (mask ? ~mask[w] : ~(uint64_t)0);
  x &= ~(uint64_t)0 << (from & 63);
  for (;;) {
    if (x)
      return (int32_t)(w * 64 + (size_t)__builtin_ctzll(x));
    if (++w >= words)
      return -1;
    x = row[w] & (mask ? ~mask[w] : ~(uint64_t)0);
  }
}

/* Layers from the free left vertices; returns the layer at which a free
 * right vertex is first reached, or HK_INF when none is (the matching is
 * maximum). Each left row is scanned once against the `seen` mask. */
static int32_t hk_bfs(struct hk *h)
{
  size_t qh = 0, qt = 0;
  int32_t limit = HK_INF;

  memset(h->seen, 0, h->words * sizeof(*h->seen));
  for (int32_t u = 0; u < h->n; u++) {
    h->dist[u] = h->match_l[u] < 0 ? 0 : HK_INF;
    if (h->match_l[u] < 0)
      h->queue[qt++] = u;
  }
  while (qh < qt) {
    int32_t u = h->queue[qh++];
    const uint64_t *row = h->rows + (size_t)u * h->words;
    if (h->dist[u] >= limit)
      break;
    for (int32_t j = next_bit(row, h->seen, h->words, 0); j >= 0;
         j = next_bit(row, h->seen, h->words, j + 1)) {
      int32_t v = h->match_r[j];
      acs_bit_set(h->seen, j);
      if (v < 0) {
        if (limit == HK_INF)
          limit = h->dist[u];
      } else if (h->dist[v] == HK_INF) {
        h->dist[v] = h->dist[u] + 1;
        h->queue[qt++] = v;
      }
    }
  }
  return limit;
}

/* One augmenting path from the free left vertex root along the layers, by
 * an explicit stack (paths can be n long). A left vertex whose edges are
 * exhausted is dead for the rest of the phase (dist = HK_INF); cur[] makes
 * every edge tried at most once per phase. */
static int hk_augment(struct hk *h, int32_t root, int32_t limit)
{
  int32_t sp = 0;

  h->stack[sp++] = root;
  while (sp > 0) {
    int32_t u = h->stack[sp - 1];
    int32_t j = next_bit(h->rows + (size_t)u * h->words, NULL, h->words, h->cur[u]);
    if (j < 0) {
      h->dist[u] = HK_INF;
      sp--;
      continue;
    }
    h->cur[u] = j + 1;
    int32_t v = h->match_r[j];
    if (v < 0 && h->dist[u] == limit) {
      h->via[sp - 1] = j;
      for (int32_t k = 0; k < sp; k++) {
        h->match_l[h->stack[k]] = h->via[k];
        h->match_r[h->via[k]] = h->stack[k];
      }
      return 1;
    }
    if (v >= 0 && h->dist[v] != HK_INF && h->dist[v] == h->dist[u] + 1) {
      h->via[sp - 1] = j;
      h->stack[sp++] = v;
    }
  }
  return 0;
}

/* Greedy start: each left vertex takes its first free right vertex. It is
 * usually most of the maximum matching, which leaves few phases. */
static int32_t hk_greedy(struct hk *h)
{
  int32_t size = 0;

  memset(h->seen, 0, h->words * sizeof(*h->seen)); /* here: right vertices taken */
  for (int32_t u = 0; u < h->n; u++) {
    int32_t j = next_bit(h->rows + (size_t)u * h->words, h->seen, h->words, 0);
    if (j >= 0) {
      acs_bit_set(h->seen, j);
      h->match_l[u] = j;
      h->match_r[j] = u;
      size++;
    }
  }
  return size;
}

static int32_t hk_run(struct hk *h)
{
  int32_t size = hk_greedy(h), limit;

  while ((limit = hk_bfs(h)) != HK_INF) {
    for (int32_t u = 0; u < h->n; u++)
      h->cur[u] = 0;
    for (int32_t u = 0; u < h->n; u++)
      if (h->match_l[u] < 0 && h->dist[u] == 0)
        size += hk_augment(h, u, limit);
  }
  return size;
}

/*
 * Konig: from every free left vertex, follow any edge to the right and the
 * matching edge back to the left. A largest antichain is every element whose
 * left copy is reached and whose right copy is not. O(n * W).
 */
static int32_t konig_antichain(struct hk *h, int32_t *members)
{
  size_t qh = 0, qt = 0;
  int32_t count = 0;
  char *left = calloc((size_t)h->n + 1, 1);

  if (!left)
    return -1;
  memset(h->seen, 0, h->words * sizeof(*h->seen));
  for (int32_t u = 0; u < h->n; u++)
    if (h->match_l[u] < 0) {
      left[u] = 1;
      h->queue[qt++] = u;
    }
  while (qh < qt) {
    int32_t u = h->queue[qh++];
    const uint64_t *row = h->rows + (size_t)u * h->words;
    for (int32_t j = next_bit(row, h->seen, h->words, 0); j >= 0;
         j = next_bit(row, h->seen, h->words, j + 1)) {
      int32_t v = h->match_r[j];
      acs_bit_set(h->seen, j);
      if (v >= 0 && !left[v]) {
        left[v] = 1;
        h->queue[qt++] = v;
      }
    }
  }
  for (int32_t x = 0; x < h->n; x++)
    if (left[x] && !acs_bit_get(h->seen, x))
      members[count++] = x;
  free(left);
  return count;
}

int acs_poset_width(int32_t n, const uint64_t *rows, size_t words, int32_t *width,
                    int32_t *members)
{
  struct hk h;
  size_t m = (size_t)n + 1;
  int err = ACS_OK;

  memset(&h, 0, sizeof(h));
  h.n = n;
  h.words = words;
  h.rows = rows;
  h.match_l = malloc(m * sizeof(int32_t));
  h.match_r = malloc(m * sizeof(int32_t));
  h.dist = malloc(m * sizeof(int32_t));
  h.cur = malloc(m * sizeof(int32_t));
  h.queue = malloc(m * sizeof(int32_t));
  h.stack = malloc(m * sizeof(int32_t));
  h.via = malloc(m * sizeof(int32_t));
  h.seen = calloc(words + 1, sizeof(uint64_t));
  if (!h.match_l || !h.match_r || !h.dist || !h.cur || !h.queue || !h.stack || !h.via ||
      !h.seen) {
    err = ACS_ENOMEM;
    goto out_with_arrays;
  }
  for (int32_t i = 0; i < n; i++)
    h.match_l[i] = h.match_r[i] = -1;
  *width = n - hk_run(&h);
  if (members && konig_antichain(&h, members) < 0)
    err = ACS_ENOMEM;
out_with_arrays:
  free(h.match_l), free(h.match_r), free(h.dist), free(h.cur);
  free(h.queue), free(h.stack), free(h.via), free(h.seen);
  return err;
}
