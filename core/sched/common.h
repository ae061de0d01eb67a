/*
 * common.h - internal helpers shared by the scheduler variants of every
 * family (not part of the library's interface).
 */
#ifndef ACS_SCHED_COMMON_H
#define ACS_SCHED_COMMON_H

#include "core/sched/sched.h"

/*
 * Checks what every scheduler needs before it starts: no op alone demands
 * more than a capacity (acs_problem_check_demands, ACS_EINFEASIBLE naming the
 * op), and the sum of all durations fits int64_t, so that no start or path
 * length computed afterwards can overflow (ACS_ERANGE). O(V R).
 */
int acs__sched_precheck(const struct acs_problem *pb, struct acs_diag *d);

/*
 * Writes start/end of the graph's ops from start[] and assigns units: a
 * non-dma op that demands the PE resource gets the lowest-index PE free at
 * its start; a dma op that demands the DMA resource the lowest free channel;
 * others -1 (the verifier reads units the same way).
 * Ops are swept in order of (start, op id), releasing ops that end at or
 * before that start first. Capacities hold at every instant and every demand
 * is at least 1, so a unit is always free for an op of positive duration.
 * Ops of zero duration hold nothing: they get the lowest unit free at their
 * start, or unit 0 when all are busy. Then acs_schedule_finish.
 * O(V log V). Returns ACS_OK or ACS_ENOMEM.
 */
int acs__sched_emit(const struct acs_problem *pb, const int64_t *start,
                    struct acs_schedule *out);

/*
 * The frame of a variant that computes one start time per op: the
 * precheck, an array of starts that fill() writes (returning ACS_OK or an
 * error, which is returned as is, with nothing emitted), then
 * acs__sched_emit.
 */
int acs__sched_by_starts(const struct acs_problem *pb,
                         int (*fill)(const struct acs_problem *pb, void *arg, int64_t *start,
                                     struct acs_diag *d),
                         void *arg, struct acs_schedule *out, struct acs_diag *d);

/*
 * The first step of a variant that takes one kind of model: `model` is what
 * acs_problem_loop/sdf/sare/lgraph returned, NULL when the workload is of
 * another kind, which is the error `err` with the variant's message.
 */
int acs__sched_model_need(const void *model, int err, struct acs_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * When a search stops: at the wall-clock `deadline` (acs_now_seconds(); 0 =
 * none), or as soon as *interrupted is nonzero (NULL = never). The deadline
 * ends a search with its best result; an interrupt ends the run with
 * ACS_EINTERRUPTED. Callers poll between units of work of well under 0.1 s.
 */
struct acs__stop {
  double deadline;
  const volatile sig_atomic_t *interrupted;
};

/* The stop of a run: deadline `limit` seconds from now (<= 0: none) and the
 * context's interrupt flag. */
struct acs__stop acs__stop_make(const struct acs_sched_ctx *ctx, double limit);

/*
 * The stops of an exact search that starts from a heuristic incumbent (ilp,
 * strip): the search ends `limit` seconds from now (--time-limit, else the
 * variant's default) at `deadline`; the incumbent gets a tenth of that at
 * most, so that the search proper keeps most of the time.
 */
struct acs__exact_stops {
  double deadline;
  struct acs__stop incumbent;
};
struct acs__exact_stops acs__exact_stops_make(const struct acs_sched_ctx *ctx,
                                              double default_limit);

static inline int acs__stop_interrupted(const struct acs__stop *st)
{
  return st && st->interrupted && *st->interrupted;
}

/* 1 when the search must end now: interrupted, or past the deadline. */
static inline int acs__stop_now(const struct acs__stop *st)
{
  return acs__stop_interrupted(st) ||
         (st && st->deadline > 0 && acs_now_seconds() > st->deadline);
}

/* An op's ranking key; sorting by (key, id) keeps every order deterministic. */
struct acs__rank_key {
  int64_t key;
  int32_t id;
};
/* qsort comparator: smaller key first, ties by op id. */
int acs__rank_key_cmp(const void *a, const void *b);

/* malloc of an array of (n + 1) elements of `elem` bytes (one spare so that
 * n = 0 still gets a valid pointer), with the multiplication checked; NULL on
 * overflow or when memory runs out. */
void *acs__sched_array(size_t n, size_t elem);

/* max(start + dur) over the graph's ops. */
int64_t acs__sched_makespan(const struct acs_problem *pb, const int64_t *start);

#endif
