/*
 * modulo_problem.c - a loop bound to unit counts, as the modulo scheduler sees it:
 * per-op latency and occupancy, weighted edges in both directions,
 * strongly connected components (the recurrences) and a topological order
 * of the distance-0 edges.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/reach.h"
#include "core/sched/modulo/modulo_int.h"

void acs__msp_destroy(struct acs_msp *m)
{
  free(m->cls);
  free(m->lat);
  free(m->occ);
  free(m->units);
  free(m->src);
  free(m->dst);
  free(m->w);
  free(m->dist);
  free(m->out_off);
  free(m->out);
  free(m->in_off);
  free(m->in);
  free(m->scc);
  free(m->scc_cyclic);
  free(m->topo);
  memset(m, 0, sizeof(*m));
}

/* CSR of edge ids keyed by one end (acs_csr_fill). O(V + E). */
static int csr(int32_t n, int32_t e, const int32_t *key, int32_t **off, int32_t **ids)
{
  int32_t *o = calloc((size_t)n + 2, sizeof(*o)), *v = malloc(((size_t)e + 1) * sizeof(*v));

  if (!o || !v) {
    free(o);
    free(v);
    return ACS_ENOMEM;
  }
  acs_csr_fill(n, e, key, NULL, o, v, NULL);
  *off = o;
  *ids = v;
  return ACS_OK;
}

/*
 * Tarjan's strongly connected components, iteratively (loops of thousands
 * of ops would otherwise recurse that deep). O(V + E).
 */
static int tarjan(struct acs_msp *m)
{
  size_t n = (size_t)m->n + 1;
  int32_t *index = malloc(n * sizeof(int32_t)), *low = malloc(n * sizeof(int32_t));
  int32_t *stack = malloc(n * sizeof(int32_t)), *call = malloc(n * sizeof(int32_t));
  int32_t *pos = malloc(n * sizeof(int32_t));
  char *on = calloc(n, 1);
  int32_t next = 0, sp = 0, cp = 0;
  int err = ACS_ENOMEM;

  m->scc = malloc(n * sizeof(int32_t));
  m->scc_cyclic = calloc(n, sizeof(int32_t));
  if (!index || !low || !stack || !call || !pos || !on || !m->scc || !m->scc_cyclic)
    goto out;
  for (int32_t i = 0; i < m->n; i++)
    index[i] = -1;
  m->nscc = 0;
  for (int32_t r = 0; r < m->n; r++) {
    if (index[r] >= 0)
      continue;
    call[cp++] = r;
    index[r] = low[r] = next++;
    pos[r] = m->out_off[r];
    stack[sp++] = r;
    on[r] = 1;
    while (cp > 0) {
      int32_t v = call[cp - 1];
      if (pos[v] < m->out_off[v + 1]) {
        int32_t w = m->dst[m->out[pos[v]++]];
        if (index[w] < 0) {
          index[w] = low[w] = next++;
          pos[w] = m->out_off[w];
          stack[sp++] = w;
          on[w] = 1;
          call[cp++] = w;
        } else if (on[w] && index[w] < low[v]) {
          low[v] = index[w];
        }
        continue;
      }
      cp--;
      if (cp > 0 && low[v] < low[call[cp - 1]])
        low[call[cp - 1]] = low[v];
      if (low[v] == index[v]) {
        int32_t w, size = 0;
        do {
          w = stack[--sp];
          on[w] = 0;
          m->scc[w] = m->nscc;
          size++;
        } while (w != v);
        m->scc_cyclic[m->nscc] = size > 1;
        m->nscc++;
      }
    }
  }
  /* A component of one op is cyclic when it has a self-loop. */
  for (int32_t e = 0; e < m->m; e++)
    if (m->src[e] == m->dst[e])
      m->scc_cyclic[m->scc[m->src[e]]] = 1;
  err = ACS_OK;
out:
  free(index), free(low), free(stack), free(call), free(pos), free(on);
  return err;
}

/* Kahn's algorithm on distance-0 edges, FIFO in op order. O(V + E). */
static int topo(struct acs_msp *m)
{
  int32_t *deg = calloc((size_t)m->n + 1, sizeof(*deg)), head = 0, tail = 0;

  m->topo = malloc(((size_t)m->n + 1) * sizeof(*m->topo));
  if (!deg || !m->topo) {
    free(deg);
    return ACS_ENOMEM;
  }
  for (int32_t e = 0; e < m->m; e++)
    if (m->dist[e] == 0)
      deg[m->dst[e]]++;
  for (int32_t i = 0; i < m->n; i++)
    if (deg[i] == 0)
      m->topo[tail++] = i;
  while (head < tail) {
    int32_t v = m->topo[head++];
    for (int32_t k = m->out_off[v]; k < m->out_off[v + 1]; k++) {
      int32_t e = m->out[k];
      if (m->dist[e] == 0 && --deg[m->dst[e]] == 0)
        m->topo[tail++] = m->dst[e];
    }
  }
  free(deg);
  /* acs_loop_check rejected distance-0 cycles, so every op is ordered. */
  return tail == m->n ? ACS_OK : ACS_ECYCLE;
}

int acs__msp_init(struct acs_msp *m, const struct acs_loop *l, const int64_t *units)
{
  size_t n = (size_t)l->nops + 1, e = (size_t)l->nedges + 1, c = (size_t)l->nclasses + 1;
  int err;

  memset(m, 0, sizeof(*m));
  m->n = l->nops;
  m->m = l->nedges;
  m->nclasses = l->nclasses;
  m->loop = l;
  m->cls = malloc(n * sizeof(*m->cls));
  m->lat = malloc(n * sizeof(*m->lat));
  m->occ = malloc(n * sizeof(*m->occ));
  m->units = malloc(c * sizeof(*m->units));
  m->src = malloc(e * sizeof(*m->src));
  m->dst = malloc(e * sizeof(*m->dst));
  m->w = malloc(e * sizeof(*m->w));
  m->dist = malloc(e * sizeof(*m->dist));
  if (!m->cls || !m->lat || !m->occ || !m->units || !m->src || !m->dst || !m->w || !m->dist) {
    acs__msp_destroy(m);
    return ACS_ENOMEM;
  }
  memcpy(m->units, units, (size_t)l->nclasses * sizeof(*units));
  for (int32_t i = 0; i < l->nops; i++) {
    int32_t k = l->ops[i].cls;
    m->cls[i] = k;
    m->lat[i] = l->classes[k].latency;
    m->occ[i] = acs_loop_blocking(l, k, units[k]);
  }
  for (int32_t k = 0; k < l->nedges; k++) {
    const struct acs_loop_edge *x = &l->edges[k];
    m->src[k] = x->src;
    m->dst[k] = x->dst;
    m->w[k] = m->lat[x->src] + x->delay;
    m->dist[k] = x->distance;
  }
  if ((err = csr(m->n, m->m, m->src, &m->out_off, &m->out)) < 0 ||
      (err = csr(m->n, m->m, m->dst, &m->in_off, &m->in)) < 0 || (err = tarjan(m)) < 0 ||
      (err = topo(m)) < 0) {
    acs__msp_destroy(m);
    return err;
  }
  return ACS_OK;
}
