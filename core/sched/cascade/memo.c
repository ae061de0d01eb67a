/*
 * memo.c - the proposals of the last few problems this process planned.
 *
 * A sweep varies platform parameters the planner never reads (the barrier
 * count and slots: only the barrier pass after scheduling sees them), so
 * the same network and CMX come back once per barrier value; the default
 * study plans each five times. Steps 1-3 are a pure function of the
 * workload's content, the platform's other parameters and the options, so
 * their result is kept, keyed by exactly those, and reused; the lowering
 * and the checks run again for every run. Process-local (sweep workers are
 * processes; nothing here is shared between threads), at most MEMO_SLOTS
 * results, least recently used first out. Deterministic: a hit returns what
 * the planner would compute.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/cascade.h"

#define MEMO_SLOTS 8

struct memo {
  int used;
  uint64_t tick;
  struct acs_cas_memo_key key;
  struct acs_cas_result r;
};

static struct memo memo[MEMO_SLOTS];
static uint64_t memo_tick;

int acs_cas_memo_key(struct acs_cas_memo_key *k, const char *digest,
                     const struct acs_platform *p, const struct acs_cas_opts *o, int64_t budget)
{
  if (!digest || !digest[0])
    return 0;
  memset(k, 0, sizeof(*k));
  memcpy(k->digest, digest, strnlen(digest, ACS_DIGEST_HEX));
  for (int i = 0; i < ACS_PARAM_COUNT; i++)
    k->v[i] = acs_param_after_scheduling(i) ? 0 : p->v[i];
  k->o = *o;
  k->budget = budget;
  return 1;
}

static int key_eq(const struct acs_cas_memo_key *a, const struct acs_cas_memo_key *b)
{
  if (strcmp(a->digest, b->digest) != 0 || a->budget != b->budget ||
      memcmp(&a->o, &b->o, sizeof(a->o)) != 0)
    return 0;
  for (int i = 0; i < ACS_PARAM_COUNT; i++)
    if (a->v[i] != b->v[i])
      return 0;
  return 1;
}

static void *dup(const void *src, size_t n, size_t size)
{
  void *p = malloc(n * size + 1);

  if (p && n)
    memcpy(p, src, n * size);
  return p;
}

/* A deep copy of r (its arrays owned by the copy). */
static int result_copy(struct acs_cas_result *dst, const struct acs_cas_result *src)
{
  size_t total = (size_t)src->all_off[src->nfront];

  *dst = *src;
  dst->plans = dup(src->plans, (size_t)src->nplans, sizeof(*src->plans));
  dst->front = dup(src->front, (size_t)src->nfront, sizeof(*src->front));
  dst->all_off = dup(src->all_off, (size_t)src->nfront + 1, sizeof(*src->all_off));
  dst->all_plans = dup(src->all_plans, total, sizeof(*src->all_plans));
  if (!dst->plans || !dst->front || !dst->all_off || !dst->all_plans) {
    acs_cas_result_free(dst);
    return ACS_ENOMEM;
  }
  return ACS_OK;
}

int acs_cas_memo_get(const struct acs_cas_memo_key *k, struct acs_cas_result *r)
{
  for (int i = 0; i < MEMO_SLOTS; i++)
    if (memo[i].used && key_eq(&memo[i].key, k)) {
      memo[i].tick = ++memo_tick;
      return result_copy(r, &memo[i].r) == ACS_OK;
    }
  return 0;
}

void acs_cas_memo_put(const struct acs_cas_memo_key *k, const struct acs_cas_result *r)
{
  int v = 0;

  for (int i = 0; i < MEMO_SLOTS; i++) {
    if (!memo[i].used) {
      v = i;
      break;
    }
    if (memo[i].tick < memo[v].tick)
      v = i;
  }
  if (memo[v].used)
    acs_cas_result_free(&memo[v].r);
  memo[v].used = 0;
  if (result_copy(&memo[v].r, r) != ACS_OK)
    return; /* not kept: the next run plans again */
  memo[v].key = *k;
  memo[v].tick = ++memo_tick;
  memo[v].used = 1;
}

void acs_cas_memo_clear(void)
{
  for (int i = 0; i < MEMO_SLOTS; i++)
    if (memo[i].used)
      acs_cas_result_free(&memo[i].r);
  memset(memo, 0, sizeof(memo));
  memo_tick = 0;
}
