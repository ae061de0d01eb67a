/*
 * ddrlink.c - the shared DDR link: its rates, and the check that a plan's
 * DDR transfers fit through it (see ddrlink.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "core/model/ddrlink.h"
#include "core/model/schedule.h"

void acs_ddrlink_from_platform(struct acs_ddrlink *l, const struct acs_platform *p)
{
  double mhz = acs_platform_get(p, ACS_P_FREQ_MHZ);

  l->link_bpc = acs_platform_ddr_gbps(p) * 1e9 / (mhz * 1e6);
  l->xfer_bpc = acs_platform_ddr_bytes_per_cycle(p);
  l->latency = (int64_t)acs_platform_get(p, ACS_P_DDR_LATENCY_CYCLES);
}

int64_t acs_ddrlink_lanes(const struct acs_platform *p)
{
  struct acs_ddrlink l;
  double lanes;

  acs_ddrlink_from_platform(&l, p);
  /* The small slack keeps an exact ratio (DDR = 2 x DMA) from rounding
   * down; more lanes than DMA channels could never be used. */
  lanes = floor(l.link_bpc / l.xfer_bpc + 1e-9);
  if (lanes > acs_platform_get(p, ACS_P_DMA_CHANNELS))
    lanes = acs_platform_get(p, ACS_P_DMA_CHANNELS);
  return lanes < 1 ? 1 : (int64_t)lanes;
}

int64_t acs_ddrlink_min_cycles(const struct acs_ddrlink *l, int64_t bytes)
{
  if (bytes <= 0 || l->xfer_bpc <= 0)
    return 0;
  return l->latency + (int64_t)ceil((double)bytes / l->xfer_bpc - 1e-9);
}

/* ---- the check: earliest deadline first over the fluid link ---- */

struct xfer {
  double rel, rem;   /* first cycle a byte may move; bytes left */
  int64_t dl;        /* planned end */
  int32_t op;
};

static int cmp_rel(const void *x, const void *y)
{
  const struct xfer *a = x, *b = y;

  if (a->rel != b->rel)
    return a->rel < b->rel ? -1 : 1;
  return (a->op > b->op) - (a->op < b->op);
}

/* A binary min-heap of transfer indices by deadline, ties by op. */
struct dlheap {
  const struct xfer *x;
  int32_t *v;
  size_t n;
};

static int dl_less(const struct dlheap *h, int32_t a, int32_t b)
{
  if (h->x[a].dl != h->x[b].dl)
    return h->x[a].dl < h->x[b].dl;
  return h->x[a].op < h->x[b].op;
}

static void dl_push(struct dlheap *h, int32_t i)
{
  size_t k = h->n++;

  while (k > 0 && dl_less(h, i, h->v[(k - 1) / 2])) {
    h->v[k] = h->v[(k - 1) / 2];
    k = (k - 1) / 2;
  }
  h->v[k] = i;
}

static void dl_pop(struct dlheap *h)
{
  int32_t last = h->v[--h->n];
  size_t k = 0;

  for (;;) {
    size_t c = 2 * k + 1;
    if (c >= h->n)
      break;
    if (c + 1 < h->n && dl_less(h, h->v[c + 1], h->v[c]))
      c++;
    if (!dl_less(h, h->v[c], last))
      break;
    h->v[k] = h->v[c];
    k = c;
  }
  if (h->n > 0)
    h->v[k] = last;
}

/* Rounding slack: durations are whole cycles rounded up from
 * bytes / rate, so an exact plan meets its deadlines to within float
 * error, which grows with the time values. */
static double slack(int64_t t)
{
  return 1e-6 * (1.0 + fabs((double)t));
}

/* The transfers of s with their windows; checks each one's own length. */
static int collect(const struct acs_schedule *s, struct xfer *x, size_t *n, struct acs_diag *d)
{
  const struct acs_ddrlink *l = &s->link;

  *n = 0;
  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    if (o->kind != ACS_OP_DMA || o->bytes <= 0 || !acs_ddrlink_crosses(o->src, o->dst))
      continue;
    int64_t need = acs_ddrlink_min_cycles(l, o->bytes);
    if (o->end - o->start < need)
      return acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0,
                          "DDR transfer '%s' of %lld bytes runs [%lld, %lld), %lld cycles, "
                          "but needs at least %lld (latency %lld + bytes at %.4g B/cycle)",
                          o->name, (long long)o->bytes, (long long)o->start,
                          (long long)o->end, (long long)(o->end - o->start), (long long)need,
                          (long long)l->latency, l->xfer_bpc);
    x[*n] = (struct xfer){ (double)(o->start + l->latency), (double)o->bytes, o->end, i };
    (*n)++;
  }
  return ACS_OK;
}

static int late(const struct acs_schedule *s, const struct xfer *x, double t, int64_t busy,
                struct acs_diag *d)
{
  const struct acs_sop *o = &s->ops[x->op];

  return acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0,
                      "DDR link over capacity: transfer '%s' (%lld bytes, planned [%lld, %lld)) "
                      "cannot end before cycle %.0f; from cycle %lld on, the link at %.4g "
                      "B/cycle carries more bytes than the plan leaves it time for",
                      o->name, (long long)o->bytes, (long long)o->start, (long long)o->end,
                      ceil(t - 1e-9), (long long)busy, s->link.link_bpc);
}

/* EDF over the fluid link: at every moment the released transfer with the
 * earliest deadline takes the whole link. Feasible iff none ends late. */
static int edf(const struct acs_schedule *s, struct xfer *x, size_t n, struct acs_diag *d)
{
  struct dlheap h = { x, malloc((n + 1) * sizeof(int32_t)), 0 };
  double bw = s->link.link_bpc, t = 0;
  int64_t busy = 0;  /* start of the current busy period, for the message */
  size_t next = 0;
  int err = ACS_OK;

  if (!h.v)
    return ACS_ENOMEM;
  while (err == ACS_OK && (next < n || h.n > 0)) {
    if (h.n == 0) {
      t = t > x[next].rel ? t : x[next].rel;
      busy = (int64_t)floor(t);
    }
    while (next < n && x[next].rel <= t)
      dl_push(&h, (int32_t)next++);
    struct xfer *j = &x[h.v[0]];
    double until = next < n ? x[next].rel : INFINITY, fin = t + j->rem / bw;
    if (fin <= until) {
      t = fin;
      if (t > (double)j->dl + slack(j->dl))
        err = late(s, j, t, busy, d);
      dl_pop(&h);
    } else {
      j->rem -= (until - t) * bw;
      t = until;
    }
  }
  free(h.v);
  return err;
}

int acs_ddrlink_check(const struct acs_schedule *s, struct acs_diag *d)
{
  struct xfer *x;
  size_t n;
  int err;

  if (s->link.link_bpc <= 0 || s->link.xfer_bpc <= 0)
    return ACS_OK;
  x = malloc(((size_t)s->nops + 1) * sizeof(*x));
  if (!x)
    return ACS_ENOMEM;
  err = collect(s, x, &n, d);
  if (err == ACS_OK && n > 0) {
    qsort(x, n, sizeof(*x), cmp_rel);
    err = edf(s, x, n, d);
  }
  free(x);
  return err;
}
