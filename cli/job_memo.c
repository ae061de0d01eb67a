/*
 * job_memo.c - the verified schedules of the last few runs, before their
 * barrier programs (job_memo.h says why that is sound).
 *
 * A lookup compares at most MEMO_SLOTS keys of a few kilobytes; a hit
 * copies the schedule, O(its size), which is far less than scheduling and
 * verifying it again (cascade on ResNet-18: its lowering, checker and
 * verifier are about 40% of a run). The barrier pass's preparation of a
 * schedule (its transitive reduction and the rest of what no barrier
 * limit changes) is kept beside it once a run asks. At most MEMO_SLOTS
 * entries and memo_limit (256 MiB) of schedules and preparations are
 * held; a schedule larger than that is not kept.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli/job_memo.h"
#include "core/sched/npu/barrier.h"

#define MEMO_SLOTS 8

static size_t memo_limit = (size_t)256 << 20;

struct memo_key {
  char digest[ACS_DIGEST_HEX + 1];
  double v[ACS_PARAM_COUNT];           /* those read after scheduling: 0 */
  char units[ACS_PLATFORM_UNITS_MAX];
  const struct acs_sched_ops *ops;
  uint64_t seed;
  double time_limit;
};

struct memo {
  int used;
  uint64_t tick;
  struct memo_key key;
  unsigned char *opts;                 /* ops->opts_size bytes */
  char status[sizeof(((struct acs_run_row *)0)->status)];
  char message[ACS_STR_MSG];
  double sched_seconds;
  int verified;                        /* s holds the schedule */
  struct acs_schedule s;
  struct acs_barrier_prep *bprep;      /* made from s when a run first asks */
  size_t bytes;
};

static struct memo memo[MEMO_SLOTS];
static uint64_t memo_tick;
static size_t memo_bytes;

/* 0 when pb has no digest: nothing then says two workloads are the same. */
static int key_make(struct memo_key *k, const struct acs_problem *pb,
                    const struct acs_sched_sel *sel, const struct acs_sched_ctx *ctx)
{
  if (!pb->digest || !pb->digest[0])
    return 0;
  memset(k, 0, sizeof(*k));
  memcpy(k->digest, pb->digest, strnlen(pb->digest, ACS_DIGEST_HEX));
  for (int i = 0; i < ACS_PARAM_COUNT; i++)
    k->v[i] = acs_param_after_scheduling(i) ? 0 : pb->plat.v[i];
  memcpy(k->units, pb->plat.units, sizeof(k->units));
  k->ops = sel->ops;
  k->seed = ctx ? ctx->seed : 0;
  k->time_limit = ctx ? ctx->time_limit : 0;
  return 1;
}

static struct memo *lookup(const struct memo_key *k, const struct acs_sched_sel *sel)
{
  size_t n = sel->ops->opts_size;

  for (int i = 0; i < MEMO_SLOTS; i++)
    if (memo[i].used && memcmp(&memo[i].key, k, sizeof(*k)) == 0 &&
        (n == 0 || memcmp(memo[i].opts, sel->opts, n) == 0))
      return &memo[i];
  return NULL;
}

static void entry_free(struct memo *m)
{
  if (!m->used)
    return;
  if (m->verified)
    acs_schedule_destroy(&m->s);
  acs_barrier_prep_free(m->bprep);
  free(m->opts);
  memo_bytes -= m->bytes;
  memset(m, 0, sizeof(*m));
}

/* What s holds, roughly: its arrays and names. */
static size_t schedule_bytes(const struct acs_schedule *s)
{
  size_t b = (size_t)s->nops * (sizeof(*s->ops) + (size_t)s->nres * sizeof(*s->demand) + 32);

  b += (size_t)s->nedges * sizeof(*s->edges) + (size_t)s->nwaits * sizeof(*s->waits);
  for (int32_t k = 0; k < s->ntables; k++)
    b += (size_t)s->tables[k]->nrows * (size_t)s->tables[k]->ncols * 16;
  return b;
}

int acs_job_memo_find(const struct acs_problem *pb, const struct acs_sched_sel *sel,
                      const struct acs_sched_ctx *ctx, struct acs_schedule *s,
                      struct acs_run_row *row)
{
  struct memo_key k;
  struct memo *m;
  int32_t barriers = s->barriers, slots = s->barrier_slots;
  int err;

  if (!key_make(&k, pb, sel, ctx) || !(m = lookup(&k, sel)))
    return -1;
  m->tick = ++memo_tick;
  memcpy(row->status, m->status, sizeof(row->status));
  memcpy(row->message, m->message, sizeof(row->message));
  row->sched_seconds = m->sched_seconds;
  if (!m->verified)
    return 0;
  acs_schedule_destroy(s);
  if ((err = acs_schedule_copy(s, &m->s)) < 0)
    return err;
  s->barriers = barriers;
  s->barrier_slots = slots;
  return 1;
}

/* The slot to fill: a free one, else the least recently used. */
static struct memo *victim(void)
{
  struct memo *v = &memo[0];

  for (int i = 0; i < MEMO_SLOTS; i++) {
    if (!memo[i].used)
      return &memo[i];
    if (memo[i].tick < v->tick)
      v = &memo[i];
  }
  return v;
}

/* Same workload and platform: the schedules of one group of runs. */
static int same_problem(const struct memo *a, const struct memo *b)
{
  return memcmp(a->key.digest, b->key.digest, sizeof(a->key.digest)) == 0 &&
         memcmp(a->key.v, b->key.v, sizeof(a->key.v)) == 0 &&
         memcmp(a->key.units, b->key.units, sizeof(a->key.units)) == 0;
}

/* Frees least recently used entries until `need` more bytes fit, or none
 * is left to free; with `keep`, only entries of other problems than its
 * own (the other schedulers' schedules of its group serve the runs to
 * come). */
static void make_room(size_t need, const struct memo *keep)
{
  while (memo_bytes + need > memo_limit) {
    struct memo *v = NULL;
    for (int i = 0; i < MEMO_SLOTS; i++)
      if (memo[i].used && memo[i].bytes > 0 && (!keep || !same_problem(&memo[i], keep)) &&
          (!v || memo[i].tick < v->tick))
        v = &memo[i];
    if (!v)
      return;
    entry_free(v);
  }
}

void acs_job_memo_keep(const struct acs_problem *pb, const struct acs_sched_sel *sel,
                       const struct acs_sched_ctx *ctx, const struct acs_schedule *s,
                       int verified, const struct acs_run_row *row)
{
  size_t n = sel->ops->opts_size, bytes = verified ? schedule_bytes(s) : 0;
  struct memo_key k;
  struct memo *m;

  if (!key_make(&k, pb, sel, ctx) || bytes > memo_limit || lookup(&k, sel))
    return;
  make_room(bytes, NULL);
  m = victim();
  entry_free(m);
  if (n > 0 && !(m->opts = malloc(n)))
    return;
  if (n > 0)
    memcpy(m->opts, sel->opts, n);
  if (verified && acs_schedule_copy(&m->s, s) < 0) {
    free(m->opts);
    m->opts = NULL;
    return; /* not kept: the next run schedules again */
  }
  m->key = k;
  memcpy(m->status, row->status, sizeof(m->status));
  memcpy(m->message, row->message, sizeof(m->message));
  m->sched_seconds = row->sched_seconds;
  m->verified = verified;
  m->bytes = bytes;
  memo_bytes += bytes;
  m->tick = ++memo_tick;
  m->used = 1;
}

const struct acs_barrier_prep *acs_job_memo_barrier_prep(const struct acs_problem *pb,
                                                         const struct acs_sched_sel *sel,
                                                         const struct acs_sched_ctx *ctx)
{
  struct memo_key k;
  struct memo *m;
  size_t bytes;

  if (!key_make(&k, pb, sel, ctx) || !(m = lookup(&k, sel)) || !m->verified)
    return NULL;
  if (m->bprep || acs_barrier_prep_new(&m->s, &m->bprep) < 0)
    return m->bprep;
  /* The runs of a group come together (the sweep hands a worker whole
   * groups): schedules of earlier groups give way to this preparation,
   * never the group's own. Without room, the pass makes its own. */
  bytes = acs_barrier_prep_bytes(m->bprep);
  if (bytes <= memo_limit - m->bytes)
    make_room(bytes, m);
  if (bytes > memo_limit - memo_bytes) {
    acs_barrier_prep_free(m->bprep);
    m->bprep = NULL;
    return NULL;
  }
  m->bytes += bytes;
  memo_bytes += bytes;
  return m->bprep;
}

size_t acs_job_memo_bytes(void)
{
  return memo_bytes;
}

void acs_job_memo_set_limit(size_t bytes)
{
  acs_job_memo_clear();
  memo_limit = bytes ? bytes : (size_t)256 << 20;
}

void acs_job_memo_clear(void)
{
  for (int i = 0; i < MEMO_SLOTS; i++)
    entry_free(&memo[i]);
  memo_tick = 0;
}
