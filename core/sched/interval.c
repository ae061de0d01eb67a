/*
 * interval.c - the disjoint interval set (see interval.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/interval.h"

void acs__ivset_init(struct acs_ivset *s)
{
  memset(s, 0, sizeof(*s));
}

void acs__ivset_destroy(struct acs_ivset *s)
{
  free(s->v);
  memset(s, 0, sizeof(*s));
}

size_t acs__ivset_lower(const struct acs_ivset *s, int64_t x)
{
  size_t lo = 0, hi = s->n;

  /* Intervals are disjoint and sorted, so their ends are sorted too. */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->v[mid].hi <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Opens a slot at index k (one more interval). */
static int open_slot(struct acs_ivset *s, size_t k)
{
  int err = acs_grow((void **)&s->v, sizeof(*s->v), &s->cap, s->n + 1);

  if (err < 0)
    return err;
  memmove(s->v + k + 1, s->v + k, (s->n - k) * sizeof(*s->v));
  s->n++;
  return ACS_OK;
}

int acs__ivset_insert(struct acs_ivset *s, int64_t lo, int64_t hi, int32_t val)
{
  size_t k;
  int err;

  if (lo >= hi)
    return ACS_EINVAL;
  k = acs__ivset_lower(s, lo);
  if (k < s->n && s->v[k].lo < hi)
    return ACS_EINVAL; /* overlaps the first interval ending after lo */
  if ((err = open_slot(s, k)) < 0)
    return err;
  s->v[k] = (struct acs_ival){ lo, hi, val };
  return ACS_OK;
}

int acs__ivset_erase_at(struct acs_ivset *s, int64_t lo)
{
  size_t k = acs__ivset_lower(s, lo);

  if (k >= s->n || s->v[k].lo != lo)
    return ACS_ENOTFOUND;
  memmove(s->v + k, s->v + k + 1, (s->n - k - 1) * sizeof(*s->v));
  s->n--;
  return ACS_OK;
}

/*
 * The overlapped intervals are v[k .. e): at most the first is cut on the
 * left and at most the last on the right; everything between goes. When a
 * single interval sticks out on both sides it is split (one more slot).
 */
int acs__ivset_subtract(struct acs_ivset *s, int64_t lo, int64_t hi,
                        void (*seen)(void *ctx, const struct acs_ival *part),
                        void *ctx)
{
  size_t k, e, keep_lo, keep_hi;
  struct acs_ival first, last;
  int err;

  if (lo >= hi)
    return 0;
  k = acs__ivset_lower(s, lo);
  for (e = k; e < s->n && s->v[e].lo < hi; e++)
    if (seen) {
      struct acs_ival part = s->v[e];
      part.lo = part.lo > lo ? part.lo : lo;
      part.hi = part.hi < hi ? part.hi : hi;
      seen(ctx, &part);
    }
  if (e == k)
    return 0;
  first = s->v[k];
  last = s->v[e - 1];
  keep_lo = first.lo < lo;   /* a left piece [first.lo, lo) survives */
  keep_hi = last.hi > hi;    /* a right piece [hi, last.hi) survives */
  if (e - k == 1 && keep_lo && keep_hi) {
    if ((err = open_slot(s, k + 1)) < 0)
      return err;
    s->v[k].hi = lo;
    s->v[k + 1] = (struct acs_ival){ hi, last.hi, last.val };
    return 1;
  }
  {
    size_t n_over = e - k, w = k;
    if (keep_lo)
      s->v[w++] = (struct acs_ival){ first.lo, lo, first.val };
    if (keep_hi)
      s->v[w++] = (struct acs_ival){ hi, last.hi, last.val };
    memmove(s->v + w, s->v + e, (s->n - e) * sizeof(*s->v));
    s->n -= e - w;
    return (int)n_over;
  }
}

int acs__ivset_assign(struct acs_ivset *s, int64_t lo, int64_t hi, int32_t val,
                      void (*seen)(void *ctx, const struct acs_ival *part),
                      void *ctx)
{
  int over, err;

  if (lo >= hi)
    return ACS_EINVAL;
  over = acs__ivset_subtract(s, lo, hi, seen, ctx);
  if (over < 0)
    return over;
  err = acs__ivset_insert(s, lo, hi, val);
  return err < 0 ? err : over;
}

int acs__ivset_valid(const struct acs_ivset *s)
{
  for (size_t k = 0; k < s->n; k++) {
    if (s->v[k].lo >= s->v[k].hi)
      return 0;
    if (k > 0 && s->v[k - 1].hi > s->v[k].lo)
      return 0;
  }
  return 1;
}

static int64_t align_up(int64_t x, int64_t align)
{
  return align > 1 ? (x + align - 1) / align * align : x;
}

/* Gaps are [prev end, next start); the last one ends at limit. */
int64_t acs__ivset_find_gap(const struct acs_ivset *s, int64_t limit, int64_t len,
                            int64_t align, int fit)
{
  int64_t best = -1, best_size = INT64_MAX, at = 0;

  for (size_t k = 0; k <= s->n; k++) {
    int64_t end = k < s->n ? s->v[k].lo : limit;
    int64_t start = align_up(at, align);
    if (end > limit)
      end = limit;
    if (start + len <= end) {
      if (fit == ACS_FIT_FIRST)
        return start;
      if (end - start < best_size) {
        best_size = end - start;
        best = start;
      }
    }
    if (k < s->n)
      at = s->v[k].hi;
    if (at >= limit)
      break;
  }
  return best;
}

void acs__ivset_gaps(const struct acs_ivset *s, int64_t limit, int64_t align,
                     int64_t *largest, int64_t *total)
{
  int64_t at = 0;

  *largest = *total = 0;
  for (size_t k = 0; k <= s->n; k++) {
    int64_t end = k < s->n ? s->v[k].lo : limit;
    int64_t start = align_up(at, align);
    if (end > limit)
      end = limit;
    if (end > at)
      *total += end - at;
    if (end - start > *largest)
      *largest = end - start;
    if (k < s->n)
      at = s->v[k].hi;
    if (at >= limit)
      break;
  }
}
