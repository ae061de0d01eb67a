/*
 * box.h - set operations on boxes (struct acs_lbox: a region of a tensor,
 * [lo, hi) per axis), inline because the walk and the lowering call them
 * for every op; internal to core/sched/cascade.
 */
#ifndef ACS_SCHED_CASCADE_BOX_H
#define ACS_SCHED_CASCADE_BOX_H

#include "core/model/layer.h"

static inline int acs_lbox_empty(const struct acs_lbox *b)
{
  for (int i = 0; i < b->rank; i++)
    if (b->hi[i] <= b->lo[i])
      return 1;
  return 0;
}

static inline void acs_lbox_clear(struct acs_lbox *b, int rank)
{
  b->rank = rank;
  for (int i = 0; i < rank; i++)
    b->lo[i] = 0, b->hi[i] = 0;
}

static inline int acs_lbox_meets(const struct acs_lbox *a, const struct acs_lbox *b)
{
  for (int i = 0; i < a->rank; i++)
    if (a->hi[i] <= b->lo[i] || b->hi[i] <= a->lo[i] || a->hi[i] <= a->lo[i])
      return 0;
  return 1;
}

static inline int acs_lbox_eq(const struct acs_lbox *a, const struct acs_lbox *b)
{
  if (a->rank != b->rank)
    return 0;
  for (int i = 0; i < a->rank; i++)
    if (a->lo[i] != b->lo[i] || a->hi[i] != b->hi[i])
      return 0;
  return 1;
}

/* a = the bounding box of a and b (a may be empty). */
static inline void acs_lbox_hull(struct acs_lbox *a, const struct acs_lbox *b)
{
  if (acs_lbox_empty(b))
    return;
  if (acs_lbox_empty(a)) {
    *a = *b;
    return;
  }
  for (int i = 0; i < a->rank; i++) {
    if (b->lo[i] < a->lo[i])
      a->lo[i] = b->lo[i];
    if (b->hi[i] > a->hi[i])
      a->hi[i] = b->hi[i];
  }
}

#endif
