/*
 * link.c - the shared DDR link as a walk times it (see walk.h).
 *
 * Every DMA channel reaches DDR through one link (core/model/ddrlink.h). The
 * walk keeps the bandwidth its transfers use as a step function of time
 * and gives each new transfer, from its issue time plus the latency, the
 * bandwidth left by the transfers planned before it, at most one transfer's
 * rate: latencies overlap, and a transfer that finds the link busy moves
 * slower (or waits) instead of running beside it at full rate. The
 * transfers therefore never exceed the link's bandwidth, each takes at
 * least its latency plus its bytes at one transfer's rate, and
 * acs_ddrlink_check accepts them.
 *
 * Steps are kept from the earliest time a later transfer can still move
 * data (the first free DMA channel plus the latency; the caller says when),
 * so the profile holds about as many steps as transfers overlap. A transfer
 * costs O(steps it spans + steps kept) for the scan and the insertions.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/ddrlink.h"
#include "core/sched/cascade/walk.h"

void acs__cw_link_init(struct acs_cw_link *l, const struct acs_platform *p)
{
  struct acs_ddrlink d;

  memset(l, 0, sizeof(*l));
  acs_ddrlink_from_platform(&d, p);
  l->bw = d.link_bpc;
  l->rate = d.xfer_bpc;
  l->lat = d.latency;
  l->min = d;
}

void acs__cw_link_free(struct acs_cw_link *l)
{
  free(l->t);
  free(l->u);
  memset(l, 0, sizeof(*l));
}

/* Index of the step holding time x, after splitting a step at x so one
 * starts there; -1 out of memory. Steps before l->head are forgotten: x is
 * never before them. */
static ptrdiff_t split_at(struct acs_cw_link *l, int64_t x)
{
  size_t i = l->head;

  while (i < l->n && l->t[i] < x)
    i++;
  if (i < l->n && l->t[i] == x)
    return (ptrdiff_t)i;
  if (acs_grow((void **)&l->t, sizeof(*l->t), &l->cap_t, l->n + 1) < 0 ||
      acs_grow((void **)&l->u, sizeof(*l->u), &l->cap_u, l->n + 1) < 0)
    return -1;
  memmove(l->t + i + 1, l->t + i, (l->n - i) * sizeof(*l->t));
  memmove(l->u + i + 1, l->u + i, (l->n - i) * sizeof(*l->u));
  l->t[i] = x;
  /* The use of the step it splits; none before the first step (nothing was
   * reserved there). */
  l->u[i] = i > l->head ? l->u[i - 1] : 0;
  l->n++;
  return (ptrdiff_t)i;
}

static double avail(const struct acs_cw_link *l, size_t i)
{
  double a = l->bw - l->u[i];

  return a < l->rate ? (a > 0 ? a : 0) : l->rate;
}

int64_t acs__cw_link_xfer(struct acs_cw_link *l, int64_t start, int64_t bytes)
{
  int64_t t0 = start + l->lat, e, stop, least = acs_ddrlink_min_cycles(&l->min, bytes);
  double rem = (double)bytes, finish;
  ptrdiff_t first;
  size_t i;

  if (bytes <= 0)
    return start;
  if (l->bw <= 0 || l->rate <= 0 || (first = split_at(l, t0)) < 0)
    return -1;
  /* Where the bytes end, step by step at what each leaves (the last step
   * is idle to infinity, so the scan ends). */
  for (i = (size_t)first;; i++) {
    double a = avail(l, i), end = i + 1 < l->n ? (double)l->t[i + 1] : INFINITY;
    if (a > 0 && (double)l->t[i] + rem / a <= end)
      break;
    if (a > 0)
      rem -= (end - (double)l->t[i]) * a;
  }
  finish = (double)l->t[i] + rem / avail(l, i);
  e = (int64_t)ceil(finish - 1e-7);
  if (e < start + least)
    e = start + least;
  /* Take the bandwidth: whole steps before step i at what they leave, the
   * rest spread over step i up to the end (the step is split there first,
   * so what follows keeps its use). */
  stop = i + 1 < l->n && l->t[i + 1] < e ? l->t[i + 1] : e;
  if (stop == e && split_at(l, e) < 0)
    return -1;
  for (size_t k = (size_t)first; k < i; k++)
    l->u[k] += avail(l, k);
  if (stop > l->t[i])
    l->u[i] += rem / (double)(stop - l->t[i]);
  return e;
}

void acs__cw_link_forget(struct acs_cw_link *l, int64_t before)
{
  while (l->head + 1 < l->n && l->t[l->head + 1] <= before)
    l->head++;
  if (l->head > 64 && l->head * 2 > l->n) {
    memmove(l->t, l->t + l->head, (l->n - l->head) * sizeof(*l->t));
    memmove(l->u, l->u + l->head, (l->n - l->head) * sizeof(*l->u));
    l->n -= l->head;
    l->head = 0;
  }
}
