/*
 * barrier_pass.c - the barrier pass proper (barrier.h): checks the limits,
 * prepares what the sweeps share (barrier_prep.c), sweeps the schedule in
 * time with the barrier allocator (barrier.c, barrier_retime.c) and writes
 * the program kept.
 *
 * The first sweep keeps every op at or after its planned start (release
 * times), so a plan that the barriers never hold back comes out unchanged,
 * edge for edge, after that one sweep. When the barriers did delay it,
 * more sweeps (variants below: without release times, other policies, the
 * other pricing) are tried and the shortest plan is kept (ties: the
 * first in the table, whatever order they run in), the first going on
 * from where it stopped: at most fourteen, four on schedules above 5,000
 * ops, three above 20,000, on up to four threads (struct race). A sweep
 * stops as soon as its plan cannot come out shorter than the best so far
 * (barrier_int.h), which changes nothing but the time. Either way the
 * program is built for the times it will run at. The preparation reads no
 * barrier limit, so a caller that runs the pass on one schedule under
 * several limits makes it once (acs_barrier_prep_new) and hands it to
 * each run.
 *
 * Cost: the preparation (barrier_prep.c: O((V + E) log V) plus the
 * transitive reduction, reach.h), then per sweep O((V + E + A) log V) for
 * the A edges added plus the allocator's work per request, which is
 * bounded by constants (barrier.c) and not by the barrier count; memory
 * O(V + E + A + min(b, V)) per sweep running at once (one per thread,
 * the best and the first).
 */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/bprog.h"
#include "core/sched/npu/barrier_int.h"

/* A program exists for any DAG once every op fits a barrier's slots (one
 * barrier can serialize all ops); what remains is what the model numbers. */
static int check_limits(const struct acs_schedule *s, struct acs_diag *d)
{
  if (s->barriers <= 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "barrier pass: no barrier limit");
  if (s->barriers > ACS_BARRIERS_MAX)
    return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                        "%d barriers: the barrier model numbers at most %d", s->barriers,
                        ACS_BARRIERS_MAX);
  if (s->barrier_slots < 0 || s->barrier_slots > ACS_BARRIER_SLOTS_MAX)
    return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                        "%d barrier slots: the barrier model counts 0 (no limit) to %d "
                        "producer slots", s->barrier_slots, ACS_BARRIER_SLOTS_MAX);
  for (int32_t i = 0; s->barrier_slots > 0 && i < s->nops; i++)
    if (acs_barrier_slot_demand(&s->ops[i]) > s->barrier_slots)
      return acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                          "op '%s' needs %lld barrier producer slots but a barrier has %d "
                          "(barrier_slots)", s->ops[i].name,
                          (long long)acs_barrier_slot_demand(&s->ops[i]), s->barrier_slots);
  for (int32_t i = 0; i < s->nops; i++)
    if (s->ops[i].start < 0)
      return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "barrier pass: op '%s' is not scheduled",
                          s->ops[i].name);
  return ACS_OK;
}

/* The sweeps tried, in order, while the barriers delay the plan: the
 * allocator's policies (barrier_int.h) with release times and without,
 * pricing waiters by when they can start or by planned starts, keeping a
 * consumer class together or not (the cost policy keeps it on schedules
 * of any size; without, it does better on some small ones with very few
 * barriers, where splitting a class can cost less than waiting). Each is
 * tried on schedules of up to max_ops ops: the greedy policies differ most
 * on small, tight programs, and each sweep costs a full pass over the
 * schedule. The table's order decides ties (beats). */
static const struct {
  int policy, release;
  int32_t max_ops;
} variants[] = {
    {ACS__BP_COST | ACS__BP_KEEP_CLASS, 1, INT32_MAX},
    {ACS__BP_COST | ACS__BP_BY_PLAN, 0, INT32_MAX},
    {ACS__BP_COST | ACS__BP_KEEP_CLASS, 0, INT32_MAX},
    {ACS__BP_COST | ACS__BP_BY_PLAN, 1, 20000},
    {ACS__BP_COST, 1, 5000},      {ACS__BP_COST, 0, 5000},
    {ACS__BP_SHARE, 1, 5000},     {ACS__BP_SHARE, 0, 2000},
    {ACS__BP_TAKE, 1, 2000},      {ACS__BP_TAKE, 0, 2000},
    {ACS__BP_SHARE | ACS__BP_BY_PLAN, 1, 5000}, {ACS__BP_SHARE | ACS__BP_BY_PLAN, 0, 2000},
    {ACS__BP_TAKE | ACS__BP_BY_PLAN, 1, 2000},  {ACS__BP_TAKE | ACS__BP_BY_PLAN, 0, 2000},
};
#define NVARIANTS (int)(sizeof(variants) / sizeof(variants[0]))

/* The order the variants run in once the first has been cut. It decides
 * nothing but how soon a sweep that cannot win is stopped (cutoff_for):
 * the sweep that most often gives the shortest plan on wide graphs (by
 * planned starts, without release times) runs first, then the one that
 * most often beats it where barriers are many (with them), then the one
 * that most often wins on networks' tiled schedules (keeping classes),
 * and the first, which has already run part of the way, last. Measured on
 * random layered DAGs and the shipped networks (docs/barriers.md), this
 * order made fewer ops' worth of sweeping than any other tried on both. */
static const int run_order[] = {1, 3, 2, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
_Static_assert(sizeof(run_order) / sizeof(run_order[0]) == NVARIANTS,
               "run_order names every variant once");

int acs__barrier_variant(int k, int *policy, int *release, int32_t *max_ops)
{
  if (k < 0 || k >= NVARIANTS)
    return ACS_EINVAL;
  *policy = variants[k].policy;
  *release = variants[k].release;
  *max_ops = variants[k].max_ops;
  return ACS_OK;
}

/* A sweep and its allocator. On the heap, and moved by pointer: the
 * allocator and the re-timing keep pointers into it (st, hk). */
struct sweep {
  struct acs__balloc *alloc;
  struct acs__sgs *g;       /* while it may go on after a cut */
  struct acs__sgs_hooks hk;
  const struct acs__bprep *p;
  int64_t *start;
  int64_t makespan;
  int k;                    /* its variant */
  struct acs_barrier_stats st;
};

static void sweep_free(struct sweep *w)
{
  if (!w)
    return;
  acs__sgs_free(w->g);
  acs__balloc_destroy(w->alloc);
  free(w->start);
  free(w);
}

/* A sweep of variant k set up, not yet run, in *out. */
static int sweep_new(struct sweep **out, const struct acs_schedule *s,
                     const struct acs__bprep *p, int k,
                     const volatile sig_atomic_t *interrupted)
{
  struct sweep *w = calloc(1, sizeof(*w));
  int err = ACS_ENOMEM;

  *out = w;
  if (!w || !(w->start = malloc(((size_t)s->nops + 1) * sizeof(int64_t))))
    return ACS_ENOMEM;
  if ((err = acs__balloc_init(&w->alloc, s, p, variants[k].policy, &w->st)) < 0)
    return err;
  acs__balloc_hooks(w->alloc, &w->hk);
  w->hk.interrupted = interrupted;
  w->hk.plan_rank = p->rank;
  w->hk.reduced = p;
  w->p = p;
  w->st.released = variants[k].release;
  w->st.policy = variants[k].policy;
  w->k = k;
  return acs__sgs_new(&w->g, s, variants[k].release, &w->hk, w->start);
}

/* Runs w on, to its end or ACS__SGS_CUT when it cannot end before its
 * cutoff (w->hk.cutoff, which may be lowered while it runs; it may go on
 * after a cut with a later one). */
static int sweep_go(struct sweep *w, const struct acs_schedule *s, struct acs_diag *d)
{
  int err;

  if ((err = acs__sgs_go(w->g, d)) != ACS_OK)
    return err;
  acs__sgs_free(w->g);
  w->g = NULL;
  w->makespan = acs__sgs_makespan(s, w->start);
  return ACS_OK;
}

/* Writes the kept sweep into s. */
static int apply(struct acs_schedule *s, struct sweep *w, const struct acs__bprep *p,
                 struct acs_barrier_stats *st)
{
  int moved = 0, err;

  for (int32_t i = 0; i < s->nops && !moved; i++)
    moved = w->start[i] != s->ops[i].start || acs__sgs_dur(s, i) != s->ops[i].dur;
  if (moved && (err = acs__sgs_apply(s, w->start)) < 0)
    return err;
  if ((err = acs__balloc_emit(w->alloc, s)) < 0)
    return err;
  w->st.retimed = moved;
  w->st.edges = p->edges;
  w->st.reduced = p->reduced;
  w->st.classes = p->ncls;
  if (st)
    *st = w->st;
  return ACS_OK;
}


struct acs_barrier_prep {
  struct acs__bprep p;
  uint64_t digest;          /* of the schedule it was made from (schedule_digest) */
  size_t bytes;
};

/* One 64-bit word into h (FNV-1a's step on whole words). */
static uint64_t mix(uint64_t h, int64_t x)
{
  return (h ^ (uint64_t)x) * 1099511628211u;
}

/* A digest of what the preparation reads: the op times and sizes (a
 * transfer's duration on the link, acs__sgs_dur) and the edges. It tells a
 * preparation from one of another schedule, not an adversary's. O(V + E). */
static uint64_t schedule_digest(const struct acs_schedule *s)
{
  uint64_t h = mix(mix(mix(1469598103934665603u, s->nops), s->nedges), s->makespan);

  for (int32_t i = 0; i < s->nops; i++)
    h = mix(mix(mix(h, s->ops[i].start), s->ops[i].dur), s->ops[i].bytes);
  for (int32_t e = 0; e < s->nedges; e++)
    h = mix(h, ((int64_t)s->edges[e].src << 32) | (uint32_t)s->edges[e].dst);
  return h;
}

int acs_barrier_prep_new(const struct acs_schedule *s, struct acs_barrier_prep **out)
{
  struct acs_barrier_prep *bp = calloc(1, sizeof(*bp));
  int err;

  *out = NULL;
  if (!bp)
    return ACS_ENOMEM;
  if ((err = acs__bprep_init(&bp->p, s)) < 0) {
    free(bp);
    return err == ACS_ECYCLE ? ACS_EINVAL : err;
  }
  bp->digest = schedule_digest(s);
  bp->bytes = sizeof(*bp) + (size_t)bp->p.n * 64 + (size_t)bp->p.reduced * 12;
  *out = bp;
  return ACS_OK;
}

void acs_barrier_prep_free(struct acs_barrier_prep *bp)
{
  if (!bp)
    return;
  acs__bprep_destroy(&bp->p);
  free(bp);
}

size_t acs_barrier_prep_bytes(const struct acs_barrier_prep *bp)
{
  return bp ? bp->bytes : 0;
}

/* Does sweep w (ended) win over best (may be NULL)? The shorter plan wins,
 * ties go to the variant first in the table, and the first variant wins
 * whenever it keeps the planned makespan (it keeps the plan edge for edge
 * where the barriers allow). So the sweep kept does not depend on the order
 * the variants run in. */
static int beats(const struct acs_schedule *s, const struct sweep *w, const struct sweep *best)
{
  if (w->k == 0 && w->makespan <= s->makespan)
    return 1;
  return !best || w->makespan < best->makespan ||
         (w->makespan == best->makespan && w->k < best->k);
}

/* Below what makespan variant k must end to beat best (beats): it is cut
 * as soon as it cannot. */
static int64_t cutoff_for(const struct acs_schedule *s, const struct sweep *best, int k)
{
  int64_t c;

  if (!best)
    return INT64_MAX;
  c = best->makespan + (k < best->k);
  return k == 0 && s->makespan + 1 > c ? s->makespan + 1 : c;
}

/* Most workers the sweeps after the first run on (race_workers). */
#define WORKERS_MAX 4
/* Below this many ops the pass stays on the caller's thread: its sweeps
 * take milliseconds, and a study runs thousands of such passes. */
#define THREAD_MIN_OPS 1000

/*
 * The sweeps after the first was cut, on one to WORKERS_MAX workers (the
 * caller's thread and helpers), each taking the next variant in run_order.
 * A sweep that ends with the best plan so far lowers the cutoff of those
 * still running (atomically: they read it at every decision time). The
 * sweep kept does not depend on which ends first (beats and cutoff_for: a
 * cut stops only a sweep that cannot be kept), so the program is the same
 * with any number of workers and any timing; only which losing sweeps are
 * cut, and where, varies. On one worker the sweeps run one after another
 * in run_order, each cut against the best before it. An error stops the
 * sweeps after it in run_order; the pass fails with the error of the
 * earliest that failed. Memory: one sweep per worker besides the best and
 * the first.
 */
struct race {
  pthread_mutex_t mu;
  const struct acs_schedule *s;
  const struct acs__bprep *p;
  const volatile sig_atomic_t *interrupted;
  int order[NVARIANTS], n;  /* the variants to run, by run_order */
  int next, end;            /* the next position to start; none from end on */
  struct sweep *first;      /* the first variant, cut, until a worker resumes it */
  struct sweep *best;
  struct sweep *running[WORKERS_MAX];
  int pos[WORKERS_MAX];     /* running[i]'s position */
  int err;                  /* of the earliest position that failed */
  struct acs_diag d, *caller_d;  /* its message; the caller's diagnostics */
};

/* The cutoff for the sweep at position i, of variant k: below the best so
 * far, or at once (INT64_MIN) when it is no longer to run. Under r->mu. */
static int64_t race_cutoff(const struct race *r, int i, int k)
{
  return i >= r->end ? INT64_MIN : cutoff_for(r->s, r->best, k);
}

/* The sweep at position i ended (err) or was cut: kept, or freed, and the
 * cutoffs of those still running brought up to date. Under r->mu. */
static void race_done(struct race *r, int i, struct sweep *w, int err, const struct acs_diag *d)
{
  if (err < 0 && i < r->end) {
    r->end = i;
    r->err = err;
    if (d)
      r->d = *d;
  } else if (err == ACS_OK && i < r->end && beats(r->s, w, r->best)) {
    sweep_free(r->best);
    r->best = w;
    w = NULL;
  }
  sweep_free(w);
  for (int j = 0; j < WORKERS_MAX; j++)
    if (r->running[j])
      r->running[j]->hk.cutoff = race_cutoff(r, r->pos[j], r->running[j]->k);
}

/* A worker: sweeps the next variant until none is left. */
static void race_work(struct race *r, int me)
{
  pthread_mutex_lock(&r->mu);
  while (r->next < r->end) {
    int i = r->next++, k = r->order[i], err = ACS_OK;
    struct sweep *w = k == 0 ? r->first : NULL;
    struct acs_diag d, *dp = r->caller_d ? &d : NULL;

    if (dp)
      d = *r->caller_d;
    if (k == 0)
      r->first = NULL;
    pthread_mutex_unlock(&r->mu);
    if (!w)
      err = sweep_new(&w, r->s, r->p, k, r->interrupted);
    pthread_mutex_lock(&r->mu);
    if (err == ACS_OK) {
      r->running[me] = w;
      r->pos[me] = i;
      w->hk.p = w->p; /* the bound is kept from the start: it may be cut later */
      w->hk.cutoff = race_cutoff(r, i, k);
      pthread_mutex_unlock(&r->mu);
      err = sweep_go(w, r->s, dp);
      pthread_mutex_lock(&r->mu);
      r->running[me] = NULL;
    }
    race_done(r, i, w, err, dp);
  }
  pthread_mutex_unlock(&r->mu);
}

struct helper {
  struct race *r;
  int me;
  pthread_t tid;
};

static void *race_thread(void *arg)
{
  struct helper *h = arg;

  race_work(h->r, h->me);
  return NULL;
}

/* How many workers: `threads` (0: the online CPUs), at most WORKERS_MAX
 * and one per variant to run; one on small schedules. */
static int race_workers(const struct acs_schedule *s, int threads, int n)
{
  threads = threads <= 0 ? acs_cpus_online(WORKERS_MAX)
                         : threads > WORKERS_MAX ? WORKERS_MAX : threads;
  threads = threads > n ? n : threads;
  return s->nops < THREAD_MIN_OPS ? 1 : threads;
}

/* Runs r on `workers` workers, the caller one of them. The helpers block
 * every signal: the caller's thread takes them (its flag stops them all).
 * A helper that cannot be started leaves its share to the others. */
static void race_run(struct race *r, int workers)
{
  struct helper h[WORKERS_MAX];
  sigset_t all, old;
  int started = 1;

  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  for (; started < workers; started++) {
    h[started] = (struct helper){r, started, 0};
    if (pthread_create(&h[started].tid, NULL, race_thread, &h[started]) != 0)
      break;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  race_work(r, 0);
  for (int j = 1; j < started; j++)
    pthread_join(h[j].tid, NULL);
}

/* The sweeps over p's schedule s, and the program kept written into s. */
static int run_prepared(struct acs_schedule *s, const struct acs__bprep *p,
                        struct acs_barrier_stats *st, int threads,
                        const volatile sig_atomic_t *interrupted, struct acs_diag *d)
{
  struct race r = {.s = s, .p = p, .interrupted = interrupted, .caller_d = d};
  int err, sweeps = 1;

  /*
   * The first variant decides alone when it keeps the plan: no sweep can
   * do better by much, and it keeps the plan edge for edge. So it goes
   * first, stopped as soon as it cannot keep the plan: when the barriers
   * never hold the plan back (a sequential schedule, or barriers enough)
   * that is the only sweep. Otherwise every variant runs (race_work), the
   * first going on from where it stopped (a cut changes nothing but where
   * a sweep stops), and the sweep that beats the others is kept.
   */
  if ((err = sweep_new(&r.first, s, p, 0, interrupted)) < 0)
    goto out;
  r.first->hk.p = p;
  r.first->hk.cutoff = s->makespan + 1;
  if ((err = sweep_go(r.first, s, d)) < 0)
    goto out;
  if (err != ACS__SGS_CUT) {
    r.best = r.first;
    r.first = NULL;
    goto out_apply;
  }
  for (int i = 0; i < NVARIANTS; i++)
    if (s->nops <= variants[run_order[i]].max_ops)
      r.order[r.n++] = run_order[i];
  r.end = r.n;
  if ((err = pthread_mutex_init(&r.mu, NULL)) != 0) {
    err = ACS_ENOMEM;
    goto out;
  }
  race_run(&r, race_workers(s, threads, r.n));
  pthread_mutex_destroy(&r.mu);
  if (r.err < 0) {
    err = r.err;
    if (d)
      *d = r.d;
    goto out;
  }
  if (!r.best) { /* the sweep at the first position always runs to its end */
    err = ACS_EINVAL;
    goto out;
  }
  for (int i = 0; i < r.n; i++)
    sweeps += r.order[i] != 0; /* the first was counted when it began */
out_apply:
  r.best->st.sweeps = sweeps;
  err = apply(s, r.best, p, st);
out:
  sweep_free(r.first);
  sweep_free(r.best);
  return err;
}

int acs__barrier_run(struct acs_schedule *s, struct acs_barrier_stats *st, int threads,
                     const volatile sig_atomic_t *interrupted, struct acs_diag *d)
{
  struct acs__bprep p;
  int err;

  if ((err = check_limits(s, d)) < 0)
    return err;
  if ((err = acs__bprep_init(&p, s)) < 0)
    return err == ACS_ECYCLE
               ? acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "barrier pass: the edges have a cycle")
               : err;
  err = run_prepared(s, &p, st, threads, interrupted, d);
  acs__bprep_destroy(&p);
  return err;
}

int acs_barrier_pass_prepared(const struct acs_problem *pb, struct acs_schedule *s,
                              const struct acs_barrier_prep *bp,
                              const struct acs_sched_ctx *ctx, struct acs_diag *d)
{
  const volatile sig_atomic_t *interrupted = ctx ? ctx->interrupted : NULL;
  int threads = ctx ? ctx->threads : 0, err;

  (void)pb; /* the limits were copied into s from pb's platform */
  if (!bp)
    return acs__barrier_run(s, NULL, threads, interrupted, d);
  if ((err = check_limits(s, d)) < 0)
    return err;
  if (bp->p.n != s->nops || bp->digest != schedule_digest(s))
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                        "barrier pass: the preparation was made from another schedule");
  return run_prepared(s, &bp->p, NULL, threads, interrupted, d);
}

int acs_barrier_pass(const struct acs_problem *pb, struct acs_schedule *s,
                     const struct acs_sched_ctx *ctx, struct acs_diag *d)
{
  return acs_barrier_pass_prepared(pb, s, NULL, ctx, d);
}
