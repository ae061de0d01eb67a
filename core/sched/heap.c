/*
 * heap.c - binary min-heap of (key, id) pairs, ordered by key then id.
 */
#include "config.h"

#include <stdlib.h>

#include "core/sched/heap.h"

static int item_less(struct acs_heap_item x, struct acs_heap_item y)
{
  return x.key < y.key || (x.key == y.key && x.id < y.id);
}

int acs_heap_init(struct acs_heap *h, size_t cap)
{
  h->a = NULL;
  h->n = 0;
  h->cap = 0;
  if (cap == 0)
    cap = 16;
  return acs_grow((void **)&h->a, sizeof(*h->a), &h->cap, cap);
}

void acs_heap_destroy(struct acs_heap *h)
{
  free(h->a);
  h->a = NULL;
  h->n = h->cap = 0;
}

/* O(log n): sift the new item up from the last leaf. */
int acs_heap_push(struct acs_heap *h, int64_t key, int32_t id)
{
  struct acs_heap_item it = { key, id };
  size_t i;
  int err;

  if (h->n == h->cap) {
    err = acs_grow((void **)&h->a, sizeof(*h->a), &h->cap, h->n + 1);
    if (err != ACS_OK)
      return err;
  }
  i = h->n++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!item_less(it, h->a[parent]))
      break;
    h->a[i] = h->a[parent];
    i = parent;
  }
  h->a[i] = it;
  return ACS_OK;
}

/* O(log n): move the last item to the root and sift it down. */
struct acs_heap_item acs_heap_pop(struct acs_heap *h)
{
  struct acs_heap_item top = h->a[0], last = h->a[--h->n];
  size_t i = 0, n = h->n;

  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && item_less(h->a[c + 1], h->a[c]))
      c++;
    if (!item_less(h->a[c], last))
      break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (n > 0)
    h->a[i] = last;
  return top;
}
