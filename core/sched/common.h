/*
 * common.h - internal helpers shared by the scheduler variants of this
 * folder (not part of the library's interface).
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

/*
 * Serial schedule generation against a resource profile (justify.c).
 *
 * acs__serial_sgs: serial SGS, taking at each step the eligible op (all
 * predecessors placed) of smallest rank[] and placing it at its earliest
 * precedence- and resource-feasible start.
 *
 * acs__justify: forward-backward improvement of a feasible schedule in
 * start[] for up to `rounds` rounds, keeping the best schedule found (never
 * worse than the input). Rounds stop at the first that does not improve, when
 * the makespan reaches the lower bound `bound`, or when `stop` says so (NULL:
 * never). Returns the number of rounds that improved, or a negative error
 * (ACS_EINTERRUPTED when interrupted).
 *
 * Both place each op with a scan of a profile of B <= 2V breakpoints, so a
 * pass is O(V B R) = O(V^2 R) in the worst case.
 */
int acs__serial_sgs(const struct acs_problem *pb, const int32_t *rank,
                    int64_t *start);
int acs__justify(const struct acs_problem *pb, int64_t *start, int rounds,
                 int64_t bound, const struct acs__stop *stop);

/*
 * The list scheduler's default pass (rule lft, parallel generation, two
 * justification rounds) followed by `iterations` randomized samples seeded
 * by `seed` (list.c, option `iterations`), the best kept in start[]. Used as
 * the incumbent and horizon of the exact variants. Stops at the lower bound
 * or when `stop` says so; ACS_EINTERRUPTED when interrupted. The caller runs
 * the precheck.
 */
/* An op's ranking key; sorting by (key, id) keeps every order deterministic. */
struct acs__rank_key {
  int64_t key;
  int32_t id;
};
/* qsort comparator: smaller key first, ties by op id. */
int acs__rank_key_cmp(const void *a, const void *b);

int acs__list_heuristic(const struct acs_problem *pb, int64_t iterations,
                        uint64_t seed, const struct acs__stop *stop, int64_t *start,
                        struct acs_diag *d);

/* malloc of an array of (n + 1) elements of `elem` bytes (one spare so that
 * n = 0 still gets a valid pointer), with the multiplication checked; NULL on
 * overflow or when memory runs out. */
void *acs__sched_array(size_t n, size_t elem);

/* max(start + dur) over the graph's ops. */
int64_t acs__sched_makespan(const struct acs_problem *pb, const int64_t *start);

#endif
