/*
 * common.c - checks and output shared by the scheduler variants.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/sched/common.h"
#include "core/sched/heap.h"

int acs__sched_precheck(const struct acs_problem *pb, struct acs_diag *d)
{
  int64_t total = 0;
  int err;

  /* An op that alone exceeds a capacity can never start; a list scheduler
   * that did not check this first would wait forever for resources that no
   * completion can free (the seed's FSG loops with an empty heap). */
  err = acs_problem_check_demands(pb, d);
  if (err != ACS_OK)
    return err;
  for (int32_t v = 0; v < pb->nops; v++) {
    if (pb->dur[v] < 0)
      return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                          "op '%s' has a negative duration %lld",
                          pb->g->ops[v].name, (long long)pb->dur[v]);
    if (acs_add_i64(total, pb->dur[v], &total) != 0)
      return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0,
                          "the durations of the ops add up to more than 2^63 cycles");
  }
  return ACS_OK;
}

int acs__sched_model_need(const void *model, int err, struct acs_diag *d, const char *fmt, ...)
{
  char msg[sizeof(d->msg)];
  va_list ap;

  if (model)
    return ACS_OK;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return acs_diag_set(d, err, NULL, 0, 0, "%s", msg);
}

struct acs__stop acs__stop_make(const struct acs_sched_ctx *ctx, double limit)
{
  struct acs__stop st = { 0, NULL };

  if (limit > 0)
    st.deadline = acs_now_seconds() + limit;
  if (ctx)
    st.interrupted = ctx->interrupted;
  return st;
}

struct acs__exact_stops acs__exact_stops_make(const struct acs_sched_ctx *ctx,
                                              double default_limit)
{
  double limit = ctx && ctx->time_limit > 0 ? ctx->time_limit : default_limit;
  struct acs__exact_stops st;

  st.deadline = acs_now_seconds() + limit;
  st.incumbent = acs__stop_make(ctx, limit / 10);
  return st;
}

void *acs__sched_array(size_t n, size_t elem)
{
  size_t bytes;

  if (n == SIZE_MAX || acs_mul_size(n + 1, elem, &bytes) != 0)
    return NULL;
  return malloc(bytes);
}

int64_t acs__sched_makespan(const struct acs_problem *pb, const int64_t *start)
{
  int64_t m = 0;

  for (int32_t v = 0; v < pb->nops; v++)
    if (start[v] + pb->dur[v] > m)
      m = start[v] + pb->dur[v];
  return m;
}

/* Which unit resource an op occupies, as the verifier reads it: transfers
 * run on DMA channels, everything else on PEs; -1 when the op demands
 * neither. */
static int unit_resource(const struct acs_problem *pb, int32_t v)
{
  int r = pb->g->ops[v].kind == ACS_OP_DMA ? pb->res_dma : pb->res_pe;

  if (r < 0 || acs_problem_demand(pb, v, r) <= 0)
    return -1;
  return r;
}

struct start_key {
  int64_t start;
  int32_t id;
};

static int cmp_start_key(const void *a, const void *b)
{
  const struct start_key *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* Free units of one resource, lowest index on top; never more than V units
 * are needed at once, so huge capacities cost nothing. */
static int pool_init(struct acs_heap *h, const struct acs_problem *pb, int res)
{
  int64_t units = res >= 0 ? pb->cap[res] : 0;
  int err;

  if (units > pb->nops)
    units = pb->nops;
  err = acs_heap_init(h, (size_t)units + 1);
  for (int64_t u = 0; err == ACS_OK && u < units; u++)
    err = acs_heap_push(h, u, (int32_t)u);
  return err;
}

struct unit_state {
  struct acs_heap running;   /* (end, op) of ops holding a unit */
  struct acs_heap pool[2];   /* free PEs (0) and free DMA channels (1) */
};

static int pool_of(const struct acs_problem *pb, int res)
{
  return res == pb->res_pe ? 0 : 1;
}

/* Returns to their pools the units of ops that end at or before t. */
static int release_until(struct unit_state *us, const struct acs_problem *pb,
                         const struct acs_schedule *out, int64_t t)
{
  int err = ACS_OK;

  while (err == ACS_OK && !acs_heap_empty(&us->running) &&
         acs_heap_peek(&us->running).key <= t) {
    int32_t v = acs_heap_pop(&us->running).id;
    int32_t u = out->ops[v].unit;
    err = acs_heap_push(&us->pool[pool_of(pb, unit_resource(pb, v))], u, u);
  }
  return err;
}

static int take_unit(struct unit_state *us, const struct acs_problem *pb,
                     struct acs_schedule *out, int32_t v)
{
  int res = unit_resource(pb, v);
  struct acs_heap *pool;

  out->ops[v].unit = -1;
  if (res < 0)
    return ACS_OK;
  pool = &us->pool[pool_of(pb, res)];
  if (pb->dur[v] == 0) {
    out->ops[v].unit = acs_heap_empty(pool) ? 0 : (int32_t)acs_heap_peek(pool).key;
    return ACS_OK;
  }
  if (acs_heap_empty(pool))
    return ACS_EINVAL; /* capacities were violated: a bug of the caller */
  out->ops[v].unit = (int32_t)acs_heap_pop(pool).key;
  return acs_heap_push(&us->running, out->ops[v].end, v);
}

int acs__sched_emit(const struct acs_problem *pb, const int64_t *start,
                    struct acs_schedule *out)
{
  struct unit_state us;
  struct start_key *keys;
  int32_t n = pb->nops;
  int err;

  keys = acs__sched_array((size_t)n, sizeof(*keys));
  if (!keys)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < n; v++) {
    out->ops[v].start = start[v];
    out->ops[v].end = start[v] + pb->dur[v];
    keys[v].start = start[v];
    keys[v].id = v;
  }
  qsort(keys, (size_t)n, sizeof(*keys), cmp_start_key);
  err = acs_heap_init(&us.running, 64);
  if (err != ACS_OK)
    goto out_with_keys;
  err = pool_init(&us.pool[0], pb, pb->res_pe);
  if (err != ACS_OK)
    goto out_with_running;
  err = pool_init(&us.pool[1], pb, pb->res_dma);
  if (err != ACS_OK)
    goto out_with_pe;
  for (int32_t i = 0; err == ACS_OK && i < n; i++) {
    err = release_until(&us, pb, out, keys[i].start);
    if (err == ACS_OK)
      err = take_unit(&us, pb, out, keys[i].id);
  }
  if (err == ACS_OK)
    acs_schedule_finish(out);
  acs_heap_destroy(&us.pool[1]);
out_with_pe:
  acs_heap_destroy(&us.pool[0]);
out_with_running:
  acs_heap_destroy(&us.running);
out_with_keys:
  free(keys);
  return err;
}

int acs__rank_key_cmp(const void *a, const void *b)
{
  const struct acs__rank_key *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

int acs__sched_by_starts(const struct acs_problem *pb,
                         int (*fill)(const struct acs_problem *pb, void *arg, int64_t *start,
                                     struct acs_diag *d),
                         void *arg, struct acs_schedule *out, struct acs_diag *d)
{
  int64_t *start;
  int err;

  if ((err = acs__sched_precheck(pb, d)) != ACS_OK)
    return err;
  if (!(start = acs__sched_array((size_t)pb->nops, sizeof(*start))))
    return ACS_ENOMEM;
  if ((err = fill(pb, arg, start, d)) == ACS_OK)
    err = acs__sched_emit(pb, start, out);
  free(start);
  return err;
}
