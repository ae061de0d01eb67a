/*
 * ims.c - Rau's iterative modulo scheduling ("Iterative Modulo Scheduling:
 * An Algorithm for Software Pipelining Loops", MICRO-27, 1994), the
 * eviction the seed's arms lack.
 *
 * At a fixed II and with a budget of placements, the unscheduled op of
 * highest priority is placed at the first start in [Estart, Estart + II - 1]
 * where a unit of its class is free for its whole footprint (Estart from
 * its placed predecessors). When none is free, it is forced: at Estart, or
 * one past where it was last placed (so a forced op never cycles through
 * the same slot), on the unit whose rows hold the fewest ops; those ops are
 * evicted, as are placed successors whose dependence the new start
 * violates. Evicted ops go back to the queue. Success when every op is
 * placed before the budget is spent.
 *
 * Cost: O(budget (deg + II occ words + log V)); each placement scans at
 * most II starts and evicts what it displaces.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/modulo/modulo_int.h"

struct ims {
  struct acs_mstate *s;
  const struct acs_msp *m;
  const char *edge_on;       /* NULL: every edge; else the edges that count */
  const int64_t *rank;       /* lower first */
  int32_t *heap, nheap;      /* unscheduled ops, min-heap on (rank, op) */
  int32_t *hpos;             /* position in the heap, -1 when absent */
  int64_t *prev;             /* last start of each op, ACS_MSP_NONE never */
  int32_t *owner;            /* per class row and unit: the op holding it, -1 */
  size_t *obase;             /* per class: first owner cell */
};

static int less(const struct ims *q, int32_t a, int32_t b)
{
  if (q->rank[a] != q->rank[b])
    return q->rank[a] < q->rank[b];
  return a < b;
}

static void heap_swap(struct ims *q, int32_t i, int32_t j)
{
  int32_t a = q->heap[i], b = q->heap[j];
  q->heap[i] = b;
  q->heap[j] = a;
  q->hpos[b] = i;
  q->hpos[a] = j;
}

static void heap_up(struct ims *q, int32_t i)
{
  while (i > 0 && less(q, q->heap[i], q->heap[(i - 1) / 2])) {
    heap_swap(q, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}

static void heap_down(struct ims *q, int32_t i)
{
  for (;;) {
    int32_t l = 2 * i + 1, r = l + 1, b = i;
    if (l < q->nheap && less(q, q->heap[l], q->heap[b]))
      b = l;
    if (r < q->nheap && less(q, q->heap[r], q->heap[b]))
      b = r;
    if (b == i)
      return;
    heap_swap(q, i, b);
    i = b;
  }
}

static void push(struct ims *q, int32_t v)
{
  if (q->hpos[v] >= 0)
    return;
  q->heap[q->nheap] = v;
  q->hpos[v] = q->nheap++;
  heap_up(q, q->nheap - 1);
}

static int32_t pop(struct ims *q)
{
  int32_t v = q->heap[0];
  q->hpos[v] = -1;
  if (--q->nheap > 0) {
    q->heap[0] = q->heap[q->nheap];
    q->hpos[q->heap[0]] = 0;
    heap_down(q, 0);
  }
  return v;
}

static int32_t *owner_cell(const struct ims *q, int32_t c, int64_t row, int32_t u)
{
  return q->owner + q->obase[c] + (size_t)acs_mod_i64(row, q->s->ii) * (size_t)q->m->units[c] + (size_t)u;
}

static void set_owner(struct ims *q, int32_t i, int32_t who)
{
  int32_t c = q->m->cls[i];

  if (q->s->unit[i] < 0)
    return;
  for (int64_t k = 0; k < q->m->occ[i] && k < q->s->ii; k++)
    *owner_cell(q, c, q->s->t[i] + k, q->s->unit[i]) = who;
}

static void evict(struct ims *q, int32_t i)
{
  set_owner(q, i, -1);
  acs__mstate_unseat(q->s, q->m, i);
  push(q, i);
}

static void place(struct ims *q, int32_t i, int64_t t, int32_t u)
{
  struct acs_mstate *s = q->s;
  const struct acs_msp *m = q->m;
  int32_t c = m->cls[i];

  if (u >= 0) {
    acs__rrt_commit(&s->rrt, c, u, m->occ[i], t); /* the caller freed the rows */
    s->unit[i] = u;
  } else {
    s->unit[i] = -1;
  }
  s->t[i] = t;
  set_owner(q, i, i);
}

/* Estart: the earliest start its placed predecessors allow (0 at least). */
static int64_t estart(const struct ims *q, int32_t i)
{
  const struct acs_msp *m = q->m;
  int64_t a = 0;

  for (int32_t k = m->in_off[i]; k < m->in_off[i + 1]; k++) {
    int32_t e = m->in[k], p = m->src[e];
    if (q->edge_on && !q->edge_on[e])
      continue;
    if (p != i && q->s->t[p] != ACS_MSP_NONE && q->s->t[p] + m->w[e] - m->dist[e] * q->s->ii > a)
      a = q->s->t[p] + m->w[e] - m->dist[e] * q->s->ii;
  }
  return a;
}

/* The unit of class c whose rows [t, t + occ) hold the fewest distinct ops. */
static int32_t cheapest_unit(const struct ims *q, int32_t c, int64_t occ, int64_t t)
{
  int32_t best = 0, best_n = INT32_MAX;

  for (int32_t u = 0; u < q->m->units[c]; u++) {
    int32_t n = 0, last = -1;
    for (int64_t k = 0; k < occ && k < q->s->ii; k++) {
      int32_t who = *owner_cell(q, c, t + k, u);
      if (who >= 0 && who != last) {
        n++;
        last = who;
      }
    }
    if (n < best_n) {
      best_n = n;
      best = u;
      if (n == 0)
        break;
    }
  }
  return best;
}

/* Places op i, forcing when needed (see the top of the file). */
static void schedule_op(struct ims *q, int32_t i)
{
  struct acs_mstate *s = q->s;
  const struct acs_msp *m = q->m;
  int32_t c = m->cls[i], u = -1;
  int64_t lo = estart(q, i), t = ACS_MSP_NONE;
  int limited = m->units[c] != ACS_LOOP_UNLIMITED;

  if (!limited) {
    t = lo;
  } else {
    for (int64_t x = lo; x < lo + s->ii && t == ACS_MSP_NONE; x++)
      if ((u = acs__rrt_free_unit(&s->rrt, c, m->occ[i], x)) >= 0)
        t = x;
    if (t == ACS_MSP_NONE) {
      t = q->prev[i] == ACS_MSP_NONE || lo > q->prev[i] ? lo : q->prev[i] + 1;
      u = cheapest_unit(q, c, m->occ[i], t);
      /* Evict whatever holds those rows of unit u. */
      for (int64_t k = 0; k < m->occ[i] && k < s->ii; k++) {
        int32_t who = *owner_cell(q, c, t + k, u);
        if (who >= 0)
          evict(q, who);
      }
    }
  }
  place(q, i, t, u);
  q->prev[i] = t;
  /* Successors (and ops reached by back edges) whose constraint broke. */
  for (int32_t k = m->out_off[i]; k < m->out_off[i + 1]; k++) {
    int32_t e = m->out[k], v = m->dst[e];
    if (q->edge_on && !q->edge_on[e])
      continue;
    if (v != i && s->t[v] != ACS_MSP_NONE && s->t[v] < t + m->w[e] - m->dist[e] * s->ii)
      evict(q, v);
  }
  /* Edges into i hold: t >= Estart, which counts every placed source. */
}

int acs__ims(struct acs_mstate *s, const struct acs_msp *m, const int64_t *rank, int64_t budget,
             const char *edge_on, const volatile sig_atomic_t *intr)
{
  struct ims q;
  size_t n = (size_t)m->n + 1, cells = 0;
  int rc = 0;

  memset(&q, 0, sizeof(q));
  q.s = s;
  q.m = m;
  q.edge_on = edge_on;
  q.rank = rank;
  q.heap = malloc(n * sizeof(*q.heap));
  q.hpos = malloc(n * sizeof(*q.hpos));
  q.prev = malloc(n * sizeof(*q.prev));
  q.obase = calloc((size_t)m->nclasses + 1, sizeof(*q.obase));
  if (!q.heap || !q.hpos || !q.prev || !q.obase) {
    rc = ACS_ENOMEM;
    goto out;
  }
  for (int32_t c = 0; c < m->nclasses; c++) {
    q.obase[c] = cells;
    if (m->units[c] != ACS_LOOP_UNLIMITED)
      cells += (size_t)s->ii * (size_t)m->units[c];
  }
  q.owner = malloc((cells + 1) * sizeof(*q.owner));
  if (!q.owner) {
    rc = ACS_ENOMEM;
    goto out;
  }
  for (size_t k = 0; k < cells; k++)
    q.owner[k] = -1;
  acs__mstate_clear(s, m);
  for (int32_t i = 0; i < m->n; i++) {
    q.hpos[i] = -1;
    q.prev[i] = ACS_MSP_NONE;
  }
  for (int32_t i = 0; i < m->n; i++)
    push(&q, i);
  while (q.nheap > 0 && budget-- > 0) {
    if ((budget & 1023) == 0 && acs__msp_stop(intr)) {
      rc = ACS_EINTERRUPTED;
      goto out;
    }
    schedule_op(&q, pop(&q));
  }
  rc = q.nheap == 0;
  if (!rc) {
    /* Out of budget: report the op at the head of the queue. */
    int32_t i = q.heap[0];
    int64_t lo, hi;
    acs__mstate_window(s, m, i, &lo, &hi);
    acs__mstate_fail(s, m, i, lo, hi, -1, "ims"); /* IMS has no fixed order */
  }
out:
  free(q.heap), free(q.hpos), free(q.prev), free(q.owner), free(q.obase);
  return rc;
}
