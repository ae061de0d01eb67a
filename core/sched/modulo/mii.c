/*
 * mii.c - lower bounds on the initiation interval (seed 001: resource,
 * recurrence, fine-density and dependency MII), and the longest paths the
 * schedulers use (ASAP starts, Rau's HeightR) with the work queue of their
 * Bellman-Ford, which rrt.c's compaction shares.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/modulo/modulo_int.h"

/* Edge slack weight at II: t[dst] - t[src] >= w - d II. */
static inline int64_t cost(const struct acs_msp *m, int32_t e, int64_t ii)
{
  return m->w[e] - m->dist[e] * ii;
}

/*
 * Longest paths by a queue-based Bellman-Ford over the edges (only those
 * inside a cyclic component when scc_only), forward (val[dst] >= val[src] +
 * c) or backward (val[src] >= val[dst] + c), from the values val[] holds.
 * pred[] gets the edge that last raised each op. Returns 0, or 1 when some
 * op was raised n times: a positive cycle exists, and *hit is an op whose
 * chain of pred edges leads into it. O(V E) worst case.
 */
int acs__mqueue_init(struct acs__mqueue *q, int32_t n)
{
  size_t len = (size_t)n + 1;

  memset(q, 0, sizeof(*q));
  q->ring = malloc(len * sizeof(*q->ring));
  q->count = calloc(len, sizeof(*q->count));
  q->queued = calloc(len, 1);
  if (!q->ring || !q->count || !q->queued) {
    acs__mqueue_destroy(q);
    return ACS_ENOMEM;
  }
  q->cap = n > 0 ? n : 1; /* a ring: each op waits once at most */
  for (int32_t i = 0; i < n; i++) {
    q->ring[q->size++] = i;
    q->queued[i] = 1;
  }
  return ACS_OK;
}

void acs__mqueue_destroy(struct acs__mqueue *q)
{
  free(q->ring), free(q->count), free(q->queued);
  memset(q, 0, sizeof(*q));
}

int32_t acs__mqueue_pop(struct acs__mqueue *q)
{
  int32_t v;

  if (q->size == 0)
    return -1;
  v = q->ring[q->head];
  q->head = (q->head + 1) % q->cap;
  q->size--;
  q->queued[v] = 0;
  return v;
}

int32_t acs__mqueue_raise(struct acs__mqueue *q, int32_t u)
{
  if (!q->queued[u]) {
    q->ring[(q->head + q->size) % q->cap] = u;
    q->size++;
    q->queued[u] = 1;
  }
  return ++q->count[u];
}

static int spfa(const struct acs_msp *m, int64_t ii, int reverse, int scc_only, int64_t *val,
                int32_t *pred, int32_t *hit)
{
  const int32_t *off = reverse ? m->in_off : m->out_off, *ids = reverse ? m->in : m->out;
  struct acs__mqueue q;
  int32_t v;
  int rc = 0;

  if (acs__mqueue_init(&q, m->n) < 0)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < m->n; i++)
    pred[i] = -1;
  while (rc == 0 && (v = acs__mqueue_pop(&q)) >= 0) {
    for (int32_t k = off[v]; k < off[v + 1]; k++) {
      int32_t e = ids[k], u = reverse ? m->src[e] : m->dst[e];
      int64_t cand = val[v] + cost(m, e, ii);
      if (scc_only && (m->scc[u] != m->scc[v] || !m->scc_cyclic[m->scc[v]]))
        continue;
      if (cand <= val[u])
        continue;
      val[u] = cand;
      pred[u] = e;
      if (acs__mqueue_raise(&q, u) >= m->n + 1) {
        *hit = u;
        rc = 1;
        break;
      }
    }
  }
  acs__mqueue_destroy(&q);
  return rc;
}

int acs__msp_asap(const struct acs_msp *m, int64_t ii, int64_t *asap)
{
  int32_t *pred = malloc(((size_t)m->n + 1) * sizeof(*pred)), hit;
  int rc;

  if (!pred)
    return ACS_ENOMEM;
  memset(asap, 0, (size_t)m->n * sizeof(*asap));
  rc = spfa(m, ii, 0, 0, asap, pred, &hit);
  free(pred);
  return rc;
}

int acs__msp_height(const struct acs_msp *m, int64_t ii, int64_t *height)
{
  int32_t *pred = malloc(((size_t)m->n + 1) * sizeof(*pred)), hit;
  int rc;

  if (!pred)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < m->n; i++)
    height[i] = m->lat[i];
  rc = spfa(m, ii, 1, 0, height, pred, &hit);
  free(pred);
  return rc;
}

/*
 * The cycle reached from op `hit` through pred edges: walk n steps (into
 * the cycle), then around it summing weights and distances.
 */
static void cycle_sums(const struct acs_msp *m, const int32_t *pred, int32_t hit, int64_t *sw,
                       int64_t *sd)
{
  int32_t v = hit, start;

  for (int32_t k = 0; k < m->n && pred[v] >= 0; k++)
    v = m->src[pred[v]];
  start = v;
  *sw = *sd = 0;
  do {
    int32_t e = pred[v];
    if (e < 0)
      break;
    *sw += m->w[e];
    *sd += m->dist[e];
    v = m->src[e];
  } while (v != start);
}

static int rec_mii(const struct acs_msp *m, int64_t *out, const volatile sig_atomic_t *intr)
{
  size_t n = (size_t)m->n + 1;
  int64_t *val = malloc(n * sizeof(*val)), ii = 1;
  int32_t *pred = malloc(n * sizeof(*pred));
  int err = ACS_OK;

  if (!val || !pred) {
    free(val), free(pred);
    return ACS_ENOMEM;
  }
  for (;;) {
    int32_t hit;
    int64_t sw, sd, next;
    int rc;
    if (acs__msp_stop(intr)) {
      err = ACS_EINTERRUPTED;
      break;
    }
    memset(val, 0, n * sizeof(*val));
    rc = spfa(m, ii, 0, 1, val, pred, &hit);
    if (rc < 0) {
      err = rc;
      break;
    }
    if (rc == 0)
      break;
    cycle_sums(m, pred, hit, &sw, &sd);
    /* A positive cycle at II has sw > ii sd; with sd >= 1 (the loader
     * refuses distance-0 cycles) its own bound ceil(sw / sd) exceeds ii.
     * Anything else would be a bug; step by one rather than loop. */
    next = sd > 0 ? (sw + sd - 1) / sd : ii + 1;
    ii = next > ii ? next : ii + 1;
  }
  *out = ii;
  free(val), free(pred);
  return err;
}

/* Longest distance-0 path, latencies and delays included, as the last
 * start of a schedule must be at least this. O(V + E) in topological order. */
static int64_t depth0(const struct acs_msp *m)
{
  int64_t *t = calloc((size_t)m->n + 1, sizeof(*t)), best = 0;

  if (!t)
    return 0;
  for (int32_t k = 0; k < m->n; k++) {
    int32_t v = m->topo[k];
    if (t[v] > best)
      best = t[v];
    for (int32_t j = m->out_off[v]; j < m->out_off[v + 1]; j++) {
      int32_t e = m->out[j];
      if (m->dist[e] == 0 && t[v] + m->w[e] > t[m->dst[e]])
        t[m->dst[e]] = t[v] + m->w[e];
    }
  }
  free(t);
  return best;
}

int acs__msp_mii(const struct acs_msp *m, struct acs_mii *out, const volatile sig_atomic_t *intr)
{
  int64_t *nops = calloc((size_t)m->nclasses + 1, sizeof(*nops));
  int err;

  memset(out, 0, sizeof(*out));
  out->res = out->fine = out->rec = out->dep = 1;
  out->res_class = out->fine_class = -1;
  if (!nops)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < m->n; i++)
    nops[m->cls[i]]++;
  for (int32_t c = 0; c < m->nclasses; c++) {
    int64_t u = m->units[c], occ = acs_loop_blocking(m->loop, c, u), res, fine;
    if (occ == 0 || nops[c] == 0)
      continue; /* unlimited, or no op */
    res = (nops[c] * occ + u - 1) / u;
    fine = occ * ((nops[c] + u - 1) / u);
    if (res > out->res) {
      out->res = res;
      out->res_class = c;
    }
    if (fine > out->fine) {
      out->fine = fine;
      out->fine_class = c;
    }
  }
  free(nops);
  if ((err = rec_mii(m, &out->rec, intr)) < 0)
    return err;
  if (m->max_stages > 0) {
    int64_t dep = (depth0(m) + m->max_stages) / m->max_stages;
    out->dep = dep > 1 ? dep : 1;
  }
  out->mii = out->res;
  if (out->rec > out->mii)
    out->mii = out->rec;
  if (out->fine > out->mii)
    out->mii = out->fine;
  if (out->dep > out->mii)
    out->mii = out->dep;
  return ACS_OK;
}
