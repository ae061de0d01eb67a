/*
 * interval.h - a disjoint interval set: half-open integer intervals
 * [lo, hi) that never overlap, each carrying a value (an op or tensor id),
 * kept sorted by lo (internal to the schedulers of this folder).
 *
 * Two users: the `spill` scheduler keeps the CMX ranges in use here (the
 * holes between them are the free space; acs__ivset_find_gap places a
 * buffer first fit or best fit), and the control-edge generator
 * (ctrledge.c) keeps, for every address, the rectangle of the packing that
 * last occupied it (acs__ivset_assign: subtract, then insert).
 *
 * The invariant "intervals are pairwise disjoint" is kept by every
 * operation: insert refuses an overlapping interval (ACS_EINVAL), subtract
 * trims or splits every interval it overlaps, and assign is subtract then
 * insert, so it always succeeds. The seed's update (section "An Algorithm
 * for Control Edge Generation") inserts pieces of the current interval once
 * per overlapped interval, which breaks the invariant when the current
 * interval overlaps several stored ones (its review comment 11); assign is
 * the reviewer's "subtract then insert".
 *
 * Storage is a sorted array: lookups are O(log n), an insert or a subtract
 * of k intervals O(log n + k + n) (a memmove). The sets here stay small
 * (the buffers resident in CMX, the pieces of the address space at one
 * instant of a sweep), where an array beats a balanced tree.
 */
#ifndef ACS_SCHED_INTERVAL_H
#define ACS_SCHED_INTERVAL_H

#include "core/acs.h"

struct acs_ival {
  int64_t lo, hi;   /* [lo, hi), lo < hi */
  int32_t val;
};

struct acs_ivset {
  struct acs_ival *v;
  size_t n, cap;
};

void acs__ivset_init(struct acs_ivset *s);
void acs__ivset_destroy(struct acs_ivset *s);

/* Index of the first interval with hi > x (n when none). O(log n). */
size_t acs__ivset_lower(const struct acs_ivset *s, int64_t x);

/* Adds [lo, hi) -> val. ACS_EINVAL when lo >= hi or when it overlaps a
 * stored interval (the set is left unchanged); ACS_ENOMEM. */
int acs__ivset_insert(struct acs_ivset *s, int64_t lo, int64_t hi, int32_t val);

/* Removes the interval that starts at lo; ACS_ENOTFOUND when there is none. */
int acs__ivset_erase_at(struct acs_ivset *s, int64_t lo);

/*
 * Removes [lo, hi) from the set: every stored interval overlapping it is
 * trimmed, split in two, or removed. When `seen` is not NULL it is called,
 * in address order, with each overlapped part (the intersection, with the
 * stored value) before the set changes; a nonzero return from it stops
 * nothing, it is only counted. Returns the number of overlapped intervals,
 * or ACS_ENOMEM (a split needs one more slot).
 */
int acs__ivset_subtract(struct acs_ivset *s, int64_t lo, int64_t hi,
                        void (*seen)(void *ctx, const struct acs_ival *part),
                        void *ctx);

/* Maps every address of [lo, hi) to val: subtract, then insert (which then
 * cannot overlap). `seen` as for subtract. Returns the overlapped count or
 * ACS_ENOMEM / ACS_EINVAL (lo >= hi). */
int acs__ivset_assign(struct acs_ivset *s, int64_t lo, int64_t hi, int32_t val,
                      void (*seen)(void *ctx, const struct acs_ival *part),
                      void *ctx);

/* 1 when the stored intervals are sorted and pairwise disjoint (tests). */
int acs__ivset_valid(const struct acs_ivset *s);

enum { ACS_FIT_FIRST, ACS_FIT_BEST };

/*
 * A free gap of the address range [0, limit) not covered by the set, for a
 * buffer of `len` bytes at an offset that is a multiple of `align`: the
 * lowest such offset (first fit) or the one in the smallest gap that holds
 * it, ties to the lowest offset (best fit). Returns the offset or -1 when no
 * gap holds it. O(n).
 */
int64_t acs__ivset_find_gap(const struct acs_ivset *s, int64_t limit, int64_t len,
                            int64_t align, int fit);

/* Largest gap of [0, limit) (aligned start) and total uncovered bytes. O(n). */
void acs__ivset_gaps(const struct acs_ivset *s, int64_t limit, int64_t align,
                     int64_t *largest, int64_t *total);

#endif
