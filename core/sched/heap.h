/*
 * heap.h - a binary min-heap of (key, id) pairs, shared by the schedulers.
 *
 * Items are ordered by key, then by id, so that equal keys pop in a stable,
 * deterministic order (the project's tie rule: smallest id first). The list
 * scheduler keeps its active ops here keyed by completion time; free PEs and
 * DMA channels are kept keyed by their index so the lowest free one is at
 * the top. Push and pop are O(log n), peek O(1).
 */
#ifndef ACS_SCHED_HEAP_H
#define ACS_SCHED_HEAP_H

#include "core/acs.h"

struct acs_heap_item {
  int64_t key;
  int32_t id;
};

struct acs_heap {
  struct acs_heap_item *a;
  size_t n, cap;
};

/* Reserves room for `cap` items (more are grown on demand). */
int acs_heap_init(struct acs_heap *h, size_t cap);
void acs_heap_destroy(struct acs_heap *h);
int acs_heap_push(struct acs_heap *h, int64_t key, int32_t id);
/* Removes and returns the smallest item; the heap must not be empty. */
struct acs_heap_item acs_heap_pop(struct acs_heap *h);

static inline int acs_heap_empty(const struct acs_heap *h)
{
  return h->n == 0;
}

/* The smallest item without removing it; the heap must not be empty. */
static inline struct acs_heap_item acs_heap_peek(const struct acs_heap *h)
{
  return h->a[0];
}

#endif
