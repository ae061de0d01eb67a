/*
 * test-ilp.c - the exact and near-optimal schedulers: `ilp` (time-indexed
 * ILP, time steps, contiguous CMX), `strip` (2D strip packing), `list`
 * with randomized iterations; the optima tables read by `acsim validate`
 * and the /validation HDF5 table.
 *
 * Optima of the hand-made instances come from a brute-force enumerator
 * written here: every precedence-feasible activity list scheduled by a
 * serial schedule generation scheme (placing each op at its earliest
 * feasible start). The schedules this produces over all lists include an
 * optimal one (Kolisch 1996: the serial scheme generates every active
 * schedule, and some optimal schedule is active), so their minimum is the
 * optimum. PSPLIB optima are read from the published tables. Every
 * schedule produced goes through the verifier.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/load/optima.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "report/validation.h"
#include "tests/testutil.h"

/* ---- helpers ---------------------------------------------------------- */

/* Runs variant `name` with "key=value" settings (NULL-ended), a time limit
 * and a seed; out is initialised here. */
static int run_ctx(const char *name, const struct acs_problem *pb, const char *const *sets,
                   const struct acs_sched_ctx *ctx, struct acs_schedule *out, struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find(name);
  void *opts;
  int err;

  cr_assert_not_null(ops, "no scheduler '%s'", name);
  opts = calloc(1, ops->opts_size + 1);
  cr_assert_not_null(opts);
  cr_assert_eq(acs_sched_opts_defaults(ops, opts), ACS_OK);
  for (; sets && *sets; sets++) {
    char key[64];
    const char *eq = strchr(*sets, '=');
    cr_assert_not_null(eq);
    snprintf(key, sizeof(key), "%.*s", (int)(eq - *sets), *sets);
    err = acs_sched_opts_set(ops, opts, key, eq + 1, d);
    cr_assert_eq(err, ACS_OK, "option %s: %s", *sets, d->msg);
  }
  cr_assert_eq(acs_schedule_init_problem(out, pb), ACS_OK);
  acs_diag_init(d);
  err = ops->schedule(pb, opts, ctx, out, d);
  free(opts);
  return err;
}

static int run_sched(const char *name, const struct acs_problem *pb, const char *const *sets,
                     double limit, uint64_t seed, struct acs_schedule *out, struct acs_diag *d)
{
  struct acs_sched_ctx ctx = { seed, limit, 0 };

  return run_ctx(name, pb, sets, &ctx, out, d);
}

/* A graph with two named resources of the given capacities. */
static void named2(struct acs_graph *g, int64_t c1, int64_t c2)
{
  cr_assert_eq(acs_graph_init(g, "tiny", "tiny"), ACS_OK);
  cr_assert_eq(acs_graph_add_resource(g, "R1", ACS_RES_NAMED, c1), 0);
  cr_assert_eq(acs_graph_add_resource(g, "R2", ACS_RES_NAMED, c2), 1);
}

static int32_t named_op(struct acs_graph *g, const char *name, int64_t dur, int64_t r1,
                        int64_t r2)
{
  int32_t id = tu_op(g, name, ACS_OP_SHAVE, dur);
  acs_graph_set_demand(g, id, 0, r1);
  acs_graph_set_demand(g, id, 1, r2);
  return id;
}

/* ---- the brute-force enumerator ---------------------------------------- */

struct brute {
  const struct acs_problem *pb;
  int32_t n, *list, *waiting;
  int64_t *start, best;
};

/* Whether v fits at [t, t + d) against the ops list[0..k) placed. Usage
 * changes only at starts, so checking t and every start inside suffices. */
static int fits(const struct brute *b, int32_t k, int32_t v, int64_t t)
{
  const struct acs_problem *pb = b->pb;
  int64_t d = pb->dur[v];

  if (d == 0)
    return 1;
  for (int32_t q = -1; q < k; q++) {
    int64_t at = q < 0 ? t : b->start[b->list[q]];
    if (at < t || at >= t + d)
      continue;
    for (int r = 0; r < pb->nres; r++) {
      int64_t use = acs_problem_demand(pb, v, r);
      for (int32_t i = 0; i < k; i++) {
        int32_t u = b->list[i];
        if (pb->dur[u] > 0 && b->start[u] <= at && at < b->start[u] + pb->dur[u])
          use += acs_problem_demand(pb, u, r);
      }
      if (use > pb->cap[r])
        return 0;
    }
  }
  return 1;
}

/* Serial SGS of list[0..n): earliest start among est and the ends of the
 * placed ops. Returns the makespan. */
static int64_t serial(struct brute *b)
{
  const struct acs_graph *g = b->pb->g;
  int64_t mk = 0;

  for (int32_t k = 0; k < b->n; k++) {
    int32_t v = b->list[k];
    int64_t est = 0, t = -1;
    for (int32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++)
      if (b->start[g->pred[e]] + b->pb->dur[g->pred[e]] > est)
        est = b->start[g->pred[e]] + b->pb->dur[g->pred[e]];
    if (fits(b, k, v, est))
      t = est;
    for (int32_t i = 0; i < k; i++) {
      int64_t c = b->start[b->list[i]] + b->pb->dur[b->list[i]];
      if (c >= est && (t < 0 || c < t) && fits(b, k, v, c))
        t = c;
    }
    b->start[v] = t;
    if (t + b->pb->dur[v] > mk)
      mk = t + b->pb->dur[v];
  }
  return mk;
}

/* Every precedence-feasible list, depth first. O(n! n^3). */
static void enumerate(struct brute *b, int32_t k)
{
  const struct acs_graph *g = b->pb->g;

  if (k == b->n) {
    int64_t mk = serial(b);
    if (b->best < 0 || mk < b->best)
      b->best = mk;
    return;
  }
  for (int32_t v = 0; v < b->n; v++) {
    if (b->waiting[v] != 0)
      continue;
    b->waiting[v] = -1;
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      b->waiting[g->succ[e]]--;
    b->list[k] = v;
    enumerate(b, k + 1);
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      b->waiting[g->succ[e]]++;
    b->waiting[v] = 0;
  }
}

static int64_t brute_optimum(const struct acs_problem *pb)
{
  struct brute b = { pb, pb->nops, NULL, NULL, NULL, -1 };

  cr_assert_leq(pb->nops, 8, "the enumerator is for tiny instances");
  b.list = calloc((size_t)b.n + 1, sizeof(int32_t));
  b.waiting = calloc((size_t)b.n + 1, sizeof(int32_t));
  b.start = calloc((size_t)b.n + 1, sizeof(int64_t));
  cr_assert(b.list && b.waiting && b.start);
  for (int32_t v = 0; v < b.n; v++)
    b.waiting[v] = pb->g->pred_off[v + 1] - pb->g->pred_off[v];
  enumerate(&b, 0);
  free(b.list);
  free(b.waiting);
  free(b.start);
  return b.best;
}

/* A random tiny instance: n ops, durations scaled by `scale`, two tight
 * named resources, edges i -> j (i < j) with probability 1/4. */
static void tiny_instance(struct acs_graph *g, uint64_t seed, int32_t n, int64_t scale)
{
  struct acs_rng r;
  char name[16];

  acs_rng_seed(&r, seed);
  named2(g, 3 + (int64_t)acs_rng_below(&r, 2), 3 + (int64_t)acs_rng_below(&r, 2));
  for (int32_t i = 0; i < n; i++) {
    snprintf(name, sizeof(name), "op%d", i);
    named_op(g, name, scale * (1 + (int64_t)acs_rng_below(&r, 5)) + (int64_t)acs_rng_below(&r, (uint64_t)scale),
             (int64_t)acs_rng_below(&r, 4), (int64_t)acs_rng_below(&r, 4));
  }
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = i + 1; j < n; j++)
      if (acs_rng_below(&r, 4) == 0)
        tu_edge(g, i, j);
  tu_finalize(g);
}

/* ---- ilp ------------------------------------------------------------------ */

Test(brute, enumerator_finds_a_hand_computed_optimum)
{
  /* Three ops of demand 2 on a capacity of 3 must run one at a time on R1,
   * a fourth (demand 1) fits beside any of them: 2 + 3 + 4 = 9. */
  struct acs_graph g;
  struct acs_problem pb;
  int64_t opt;

  named2(&g, 3, 3);
  named_op(&g, "a", 2, 2, 0);
  named_op(&g, "b", 3, 2, 0);
  named_op(&g, "c", 4, 2, 0);
  named_op(&g, "d", 5, 1, 0);
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  opt = brute_optimum(&pb);
  cr_assert_eq(opt, 9);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* The timeout is a watchdog against a hang, far above the 25 s a sanitizer
 * build took on a loaded two-core machine. */
Test(ilp, finds_and_proves_enumerated_optima, .timeout = 1200)
{
  int nontrivial = 0;

  for (uint64_t seed = 1; seed <= 16; seed++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_diag d;
    int64_t opt;
    int err;

    tiny_instance(&g, seed, 7, 1);
    tu_problem(&pb, &g, NULL);
    opt = brute_optimum(&pb);
    nontrivial += acs_bound_best(&pb) < opt;
    err = run_sched("ilp", &pb, NULL, 60, 1, &s, &d);
    cr_assert_eq(err, ACS_OK, "seed %llu: %s (%s)", (unsigned long long)seed,
                 acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    cr_assert_eq(s.makespan, opt, "seed %llu: ilp %lld, enumeration %lld (%s)",
                 (unsigned long long)seed, (long long)s.makespan, (long long)opt, d.msg);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  /* Instances whose optimum is above the lower bound need the model. */
  cr_assert_geq(nontrivial, 4, "only %d instances exercised the model", nontrivial);
}

Test(ilp, proves_optimum_above_the_bound_by_the_model)
{
  /* The enumerator's example: the bound is max(critical path 5, R1 work
   * ceil(23 / 3) = 8) = 8 but the optimum is 9; only the model proves it. */
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  named2(&g, 3, 3);
  named_op(&g, "a", 2, 2, 0);
  named_op(&g, "b", 3, 2, 0);
  named_op(&g, "c", 4, 2, 0);
  named_op(&g, "d", 5, 1, 0);
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  cr_assert_eq(acs_bound_best(&pb), 8);
  err = run_sched("ilp", &pb, NULL, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s);
  cr_assert_eq(s.makespan, 9);
  cr_assert(strstr(d.msg, "optimal") != NULL, "message: %s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* Reads the number after `key` in msg into *v; 0 when found. */
static int msg_number(const char *msg, const char *key, long long *v)
{
  const char *p = strstr(msg, key);
  return p && sscanf(p + strlen(key), "%lld", v) == 1 ? 0 : -1;
}

Test(ilp, time_step_reports_bounds_in_cycles, .timeout = 120)
{
  /* Durations of 1000 to 5999 cycles on steps of 1000: the step model's
   * optimum is an upper bound in cycles, the reported lower bound is below
   * the true optimum (enumerated in cycles), and the schedule is valid. */
  int checked = 0;

  for (uint64_t seed = 1; seed <= 6; seed++) {
    static const char *const sets[] = { "time_step=1000", NULL };
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_diag d;
    long long step, upper, lower;
    int64_t opt;
    int err;

    tiny_instance(&g, 100 + seed, 6, 1000);
    tu_problem(&pb, &g, NULL);
    opt = brute_optimum(&pb);
    err = run_sched("ilp", &pb, sets, 60, 1, &s, &d);
    cr_assert(err == ACS_OK || err == ACS_ETIMEOUT, "%s (%s)", acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    cr_assert_geq(s.makespan, opt, "below the enumerated optimum: %s", d.msg);
    if (err == ACS_OK) {
      /* Proven only when the schedule meets a bound in cycles. */
      cr_assert_eq(s.makespan, opt, "%s", d.msg);
    } else if (strstr(d.msg, "time step")) {
      cr_assert_eq(msg_number(d.msg, "time step ", &step), 0, "%s", d.msg);
      cr_assert_eq(step, 1000);
      cr_assert_eq(msg_number(d.msg, "steps = ", &upper), 0, "%s", d.msg);
      cr_assert_eq(msg_number(d.msg, "lower bound ", &lower), 0, "%s", d.msg);
      cr_assert_geq(upper, opt, "the step model's optimum %lld is not an upper bound (%lld): %s",
                    upper, (long long)opt, d.msg);
      cr_assert_leq(lower, opt, "lower bound %lld above the optimum %lld: %s", lower,
                    (long long)opt, d.msg);
      cr_assert_leq(s.makespan, upper, "%s", d.msg);
      checked++;
    }
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  cr_assert_geq(checked, 2, "only %d instances went through the step model", checked);
}

/* n ops on the NPU graph, each one PE, the given CMX bytes and duration. */
static void cmx_graph(struct acs_graph *g, const int64_t *dur, const int64_t *bytes, int n)
{
  char name[16];

  tu_graph_npu(g, "cmx");
  for (int i = 0; i < n; i++) {
    int32_t id;
    snprintf(name, sizeof(name), "r%d", i);
    id = tu_op(g, name, ACS_OP_DPU, dur[i]);
    acs_graph_set_demand(g, id, TU_CMX, bytes[i]);
  }
}

Test(ilp, contiguous_assigns_disjoint_ranges)
{
  /* 1 KiB of CMX in cells of 256 bytes; three ops of 512 bytes: two at a
   * time, so 2 + 2 = 4 at best (enumerated below without contiguity; here
   * contiguity costs nothing and the model must find it). */
  static const int64_t dur[] = { 2, 2, 2 }, bytes[] = { 512, 512, 512 };
  static const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=256", NULL };
  static const char *const sets[] = { "contiguous=1", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  cmx_graph(&g, dur, bytes, 3);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  cr_assert_eq(brute_optimum(&pb), 4);
  err = run_sched("ilp", &pb, sets, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s); /* ranges inside the CMX, aligned, disjoint while held */
  cr_assert_eq(s.makespan, 4);
  for (int i = 0; i < 3; i++) {
    cr_assert_geq(s.ops[i].cmx_offset, 0, "op %d has no range", i);
    cr_assert_eq(s.ops[i].cmx_bytes, 512);
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(ilp, contiguous_model_over_the_size_limit_is_an_error)
{
  static const int64_t dur[] = { 20, 30, 40, 50 }, bytes[] = { 512, 768, 256, 512 };
  static const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=64", NULL };
  static const char *const sets[] = { "contiguous=1", "max_vars=100", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  cmx_graph(&g, dur, bytes, 4);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  err = run_sched("ilp", &pb, sets, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_ERANGE, "%s (%s)", acs_strerror(err), d.msg);
  cr_assert(strstr(d.msg, "max_vars=100") != NULL, "message: %s", d.msg);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- strip ----------------------------------------------------------------- */

Test(strip, packs_the_seed_example_to_height_9)
{
  /* The seed's reference example: rectangles (w, h) = (2, 2), (8, 8), (7, 7)
   * in a strip of width 15. With 68-byte alignment units, 1 KiB of CMX is 15
   * units (1020 bytes); each op's bytes are its width in units. 8 and 7 fit
   * side by side, the 2-wide one cannot join them (17 > 15) and goes on top
   * of the 7: height 9, while the lower bound is only 8. */
  static const int64_t dur[] = { 2, 8, 7 }, bytes[] = { 2 * 68, 8 * 68, 7 * 68 };
  static const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=68", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  cmx_graph(&g, dur, bytes, 3);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  cr_assert_eq(acs_bound_best(&pb), 8);
  err = run_sched("strip", &pb, NULL, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s);
  cr_assert_eq(s.makespan, 9, "height %lld (%s)", (long long)s.makespan, d.msg);
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(s.ops[i].cmx_offset % 68, 0);
    cr_assert_leq(s.ops[i].cmx_offset + s.ops[i].cmx_bytes, 1024);
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(strip, respects_the_pe_count)
{
  /* Three 5-cycle ops with room in CMX for all: strip packing alone would
   * run them together; 2 PEs allow two at a time (10), 1 PE one (15). */
  static const int64_t dur[] = { 5, 5, 5 }, bytes[] = { 64, 64, 64 };
  static const char *const two[] = { "pe_count=2", NULL }, *const one[] = { "pe_count=1", NULL };
  const char *const *plats[] = { two, one };
  static const int64_t want[] = { 10, 15 };

  for (int k = 0; k < 2; k++) {
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    struct acs_diag d;
    int err;
    cmx_graph(&g, dur, bytes, 3);
    tu_finalize(&g);
    tu_problem(&pb, &g, plats[k]);
    err = run_sched("strip", &pb, NULL, 30, 1, &s, &d);
    cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    cr_assert_eq(s.makespan, want[k]);
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
}

Test(strip, keeps_precedence_and_packs_beside_it)
{
  /* a -> b (each 600 of 1024 bytes, so never together anyway) and c (400
   * bytes) beside either: c fits next to a or b, makespan 3 + 4 = 7. */
  static const int64_t dur[] = { 3, 4, 6 }, bytes[] = { 600, 600, 400 };
  static const char *const plat[] = { "cmx_kib=1", "cmx_align_bytes=8", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  cmx_graph(&g, dur, bytes, 3);
  tu_edge(&g, 0, 1);
  tu_finalize(&g);
  tu_problem(&pb, &g, plat);
  err = run_sched("strip", &pb, NULL, 30, 1, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s);
  cr_assert_eq(s.makespan, 7);
  cr_assert_geq(s.ops[1].start, s.ops[0].end);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- PSPLIB ------------------------------------------------------------------- */

/* The optimum of a copied or shared j30 instance from its table. */
static int64_t j30_optimum(const struct acs_optima *o, const char *path)
{
  const struct acs_optimum *e;
  int32_t grp, inst;

  cr_assert_eq(acs_optima_psplib_name(path, "j30", &grp, &inst), 0, "%s", path);
  e = acs_optima_find_psplib(o, grp, inst);
  cr_assert_not_null(e, "no optimum for %s", path);
  cr_assert_eq(e->lower, e->upper);
  return e->lower;
}

static int is_sm(const struct dirent *e)
{
  size_t n = strlen(e->d_name);
  return n > 3 && strcmp(e->d_name + n - 3, ".sm") == 0 && strstr(e->d_name, "opt") == NULL;
}

/* Runs `name` with sets on every instance of dir; never below the optimum,
 * ok only at it when the variant proves. Returns the instances run. */
static int psplib_dir(const char *dir, const char *optfile, const char *name,
                      const char *const *sets, double limit, int64_t *at_opt)
{
  struct acs_optima o;
  struct acs_diag d;
  struct dirent **ents;
  int n;

  acs_optima_init(&o);
  acs_diag_init(&d);
  cr_assert_eq(acs_optima_load_psplib(optfile, &o, &d), ACS_OK, "%s", d.msg);
  n = scandir(dir, &ents, is_sm, alphasort);
  cr_assert_gt(n, 0, "no instances in %s", dir);
  *at_opt = 0;
  for (int i = 0; i < n; i++) {
    char path[2048];
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    int64_t opt;
    int err;
    snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
    free(ents[i]);
    cr_assert_eq(acs_psplib_load(path, &g, &d), ACS_OK, "%s", d.msg);
    tu_problem(&pb, &g, NULL);
    opt = j30_optimum(&o, path);
    err = run_sched(name, &pb, sets, limit, 1, &s, &d);
    cr_assert(err == ACS_OK || err == ACS_ETIMEOUT, "%s: %s (%s)", path, acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    cr_assert_geq(s.makespan, opt, "%s: %s makespan %lld below the optimum %lld", path, name,
                  (long long)s.makespan, (long long)opt);
    if (err == ACS_OK && acs_sched_find(name)->proves)
      cr_assert_eq(s.makespan, opt, "%s: claims optimal at %lld, optimum %lld", path,
                   (long long)s.makespan, (long long)opt);
    *at_opt += s.makespan == opt;
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  free(ents);
  acs_optima_free(&o);
  return n;
}

Test(psplib, ilp_is_ok_only_at_the_optimum_on_copied_j30, .timeout = 120)
{
  int64_t at;
  static const char *const sets[] = { "iterations=200", NULL };

  char dir[2048], opt[2048];

  snprintf(dir, sizeof(dir), "%s", tu_path("tests/data/psplib"));
  snprintf(opt, sizeof(opt), "%s", tu_path("tests/data/psplib/j30opt.sm"));
  psplib_dir(dir, opt, "ilp", sets, 0.5, &at);
}

Test(psplib, list_iterations_never_beat_the_optimum, .timeout = 120)
{
  static const char *const one[] = { "iterations=0", NULL }, *const many[] = { "iterations=300", NULL };
  int64_t at1, at2;

  char dir[2048], opt[2048];

  snprintf(dir, sizeof(dir), "%s", tu_path("tests/data/psplib"));
  snprintf(opt, sizeof(opt), "%s", tu_path("tests/data/psplib/j30opt.sm"));
  psplib_dir(dir, opt, "list", one, 0, &at1);
  psplib_dir(dir, opt, "list", many, 0, &at2);
  /* Sampling keeps the rule's own pass, so it never loses an optimum. */
  cr_assert_geq(at2, at1);
}

Test(psplib, shared_j30_list_iterations_never_beat_the_optimum, .timeout = 120)
{
  static const char *const sets[] = { "iterations=100", NULL };
  char dir[2048], opt[2048];
  DIR *probe;
  int64_t at;

  snprintf(dir, sizeof(dir), "%s", tu_path("../shared/data/psplib/j30"));
  snprintf(opt, sizeof(opt), "%s", tu_path("../shared/data/psplib/optima/j30opt.sm"));
  probe = opendir(dir);
  if (!probe)
    cr_skip_test("%s is absent", dir);
  closedir(probe);
  cr_assert_eq(psplib_dir(dir, opt, "list", sets, 0, &at), 96);
}

Test(list, iterations_are_deterministic_for_a_seed)
{
  static const char *const sets[] = { "iterations=50", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule a, b;
  struct acs_diag d;

  cr_assert_eq(acs_psplib_load(tu_path("tests/data/psplib/j3013_1.sm"), &g, &d), ACS_OK);
  tu_problem(&pb, &g, NULL);
  cr_assert_eq(run_sched("list", &pb, sets, 0, 7, &a, &d), ACS_OK);
  cr_assert_eq(run_sched("list", &pb, sets, 0, 7, &b, &d), ACS_OK);
  tu_assert_verified(&a);
  for (int32_t i = 0; i < a.nops; i++)
    cr_assert_eq(a.ops[i].start, b.ops[i].start, "op %d differs between two runs", i);
  acs_schedule_destroy(&a);
  acs_schedule_destroy(&b);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- optima tables -------------------------------------------------------------- */

/* Writes text to a new file in the test's directory; the path is malloc'd. */
static char *write_tmp(const char *name, const char *text)
{
  char *path = malloc(1024);
  FILE *f;

  cr_assert_not_null(path);
  snprintf(path, 1024, "%s/%s", tu_tmpdir(), name);
  f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

Test(optima, reads_the_j30_table)
{
  struct acs_optima o;
  struct acs_diag d;
  const struct acs_optimum *e;

  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(tu_path("tests/data/psplib/j30opt.sm"), &o, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(o.n, 12);
  e = acs_optima_find_psplib(&o, 1, 1);
  cr_assert_not_null(e);
  cr_assert_eq(e->lower, 43);
  cr_assert_eq(e->upper, 43);
  cr_assert_null(acs_optima_find_psplib(&o, 2, 1));
  acs_optima_free(&o);
}

Test(optima, reads_bounds_and_best_known_tables)
{
  struct acs_optima o;
  struct acs_diag d;
  char *lb = write_tmp("j60lb.sm",
                             "notes\n===\nPar  Inst    UB   LB         Author LB\n===\n"
                             "  1   1    77    77    *\n  5   3    90    85    Someone\n");
  char *hrs = write_tmp("j60hrs.sm", "Par\tInst\tMakespan\tDate\tAuthor\n===\n"
                                           "1\t1\t77\t\tTue Apr  2 1996  X\n");
  const struct acs_optimum *e;

  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(lb, &o, &d), ACS_OK, "%s", d.msg);
  e = acs_optima_find_psplib(&o, 5, 3);
  cr_assert_not_null(e);
  cr_assert_eq(e->lower, 85);
  cr_assert_eq(e->upper, 90);
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(hrs, &o, &d), ACS_OK, "%s", d.msg);
  e = acs_optima_find_psplib(&o, 1, 1);
  cr_assert_not_null(e);
  cr_assert_eq(e->lower, -1);
  cr_assert_eq(e->upper, 77);
  acs_optima_free(&o);
  free(lb);
  free(hrs);
}

Test(optima, bad_rows_are_located)
{
  struct acs_optima o;
  struct acs_diag d;
  char *bad = write_tmp("bad.sm", "Paramter Instance Makespan CPU-Time[sec.]\n"
                                        "1 1 43 0.30\n1 2 4x7 0.11\n");
  char *dup = write_tmp("dup.sm", "Par Inst UB LB\n1 1 43 40\n1 1 44 41\n");
  char *inv = write_tmp("inv.sm", "Par Inst UB LB\n1 1 40 43\n");
  char *none = write_tmp("none.sm", "1 1 43 0.30\n");

  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(bad, &o, &d), ACS_EPARSE);
  cr_assert_eq(d.line, 3);
  cr_assert_eq(d.col, 5);
  cr_assert(strstr(d.msg, "4x7") != NULL, "%s", d.msg);
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(dup, &o, &d), ACS_EPARSE);
  cr_assert_eq(d.line, 3);
  cr_assert(strstr(d.msg, "line 2") != NULL, "%s", d.msg);
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(inv, &o, &d), ACS_EPARSE);
  cr_assert_eq(d.line, 2);
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(none, &o, &d), ACS_EPARSE);
  cr_assert(strstr(d.msg, "header") != NULL, "%s", d.msg);
  acs_optima_free(&o);
  free(bad);
  free(dup);
  free(inv);
  free(none);
}

Test(optima, reads_stg_optima_and_bounds)
{
  struct acs_optima o;
  struct acs_diag d;
  char *ok = write_tmp("Case50_4_OPT.csv", "50/rand0000.stg,4,66\n50/rand0009.stg,4,132,134\n");
  char *bad = write_tmp("bad.csv", "50/rand0000.stg,4,66\n50/rand0001.stg,4\n");
  const struct acs_optimum *e;

  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_stg(ok, &o, &d), ACS_OK, "%s", d.msg);
  e = acs_optima_find_stg(&o, "50/rand0009.stg", 4);
  cr_assert_not_null(e);
  cr_assert_eq(e->lower, 132);
  cr_assert_eq(e->upper, 134);
  cr_assert_null(acs_optima_find_stg(&o, "50/rand0009.stg", 8));
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_stg(bad, &o, &d), ACS_EPARSE);
  cr_assert_eq(d.line, 2);
  acs_optima_free(&o);
  free(ok);
  free(bad);
}

Test(optima, parses_psplib_file_names)
{
  int32_t g, i;

  cr_assert_eq(acs_optima_psplib_name("x/j3010_2.sm", "j30", &g, &i), 0);
  cr_assert_eq(g, 10);
  cr_assert_eq(i, 2);
  cr_assert_eq(acs_optima_psplib_name("j301_1.sm", "j30", &g, &i), 0);
  cr_assert_eq(g, 1);
  cr_assert_eq(acs_optima_psplib_name("j30opt.sm", "j30", &g, &i), -1);
  cr_assert_eq(acs_optima_psplib_name("j601_1.sm", "j30", &g, &i), -1);
}

/* ---- /validation --------------------------------------------------------------- */

Test(validation, rows_round_trip_and_ids_continue)
{
  char path[1024];
  struct acs_results *r;
  struct acs_diag d;
  struct acs_validation_row row, *back;
  size_t n;

  snprintf(path, sizeof(path), "%s/v.h5", tu_tmpdir());
  for (int pass = 0; pass < 2; pass++) {
    memset(&row, 0, sizeof(row));
    snprintf(row.set, sizeof(row.set), "psplib/j30");
    snprintf(row.scheduler, sizeof(row.scheduler), "ilp");
    row.instances = 96;
    row.avg_dev_pct = 0.25;
    row.proven = 69 + pass;
    cr_assert_eq(acs_results_open(path, "test", &r, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(acs_validation_add(r, &row, 1, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "%s", d.msg);
  }
  cr_assert_eq(acs_validation_read(path, &back, &n, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 2);
  cr_assert_eq(back[0].validation_id, 1);
  cr_assert_eq(back[1].validation_id, 2);
  cr_assert_str_eq(back[1].set, "psplib/j30");
  cr_assert_eq(back[1].proven, 70);
  double avg = back[1].avg_dev_pct;
  cr_assert_float_eq(avg, 0.25, 1e-12);
  free(back);
}

/* ---- interrupts ------------------------------------------------------- */

/*
 * Every variant that searches polls acs_sched_ctx.interrupted: with the
 * flag set (as a SIGINT handler would) each returns ACS_EINTERRUPTED rather
 * than a result; without it the same runs succeed. No timing involved: the
 * flag is set before the run, so the first poll sees it.
 */
Test(interrupt, searching_variants_stop_with_einterrupted)
{
  static const char *const iter[] = { "iterations=1000", NULL };
  static const struct { const char *name; const char *const *sets; } v[] = {
    { "list", iter }, { "ilp", NULL }, { "strip", NULL }, { "spill", NULL },
  };
  volatile sig_atomic_t flag = 1, calm = 0;
  struct acs_sched_ctx stop = { 1, 30, &flag }, go = { 1, 1, &calm };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  tu_random_dag(&g, 11, 60, 200000);
  tu_problem(&pb, &g, NULL);
  for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
    err = run_ctx(v[i].name, &pb, v[i].sets, &stop, &s, &d);
    cr_assert_eq(err, ACS_EINTERRUPTED, "%s: %s (%s)", v[i].name, acs_strerror(err), d.msg);
    acs_schedule_destroy(&s);
    err = run_ctx(v[i].name, &pb, v[i].sets, &go, &s, &d);
    cr_assert(err == ACS_OK || err == ACS_ETIMEOUT, "%s: %s (%s)", v[i].name,
              acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    acs_schedule_destroy(&s);
  }
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* The barrier pass polls the flag at every op and leaves the schedule as
 * it was when interrupted. */
Test(interrupt, barrier_pass_stops_and_leaves_the_schedule)
{
  static const char *const sets[] = { "barriers=2", NULL };
  volatile sig_atomic_t flag = 1;
  struct acs_sched_ctx stop = { 1, 0, &flag };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int64_t makespan;
  int32_t nedges;

  tu_random_dag(&g, 5, 80, 1000);
  tu_problem(&pb, &g, sets);
  cr_assert_eq(run_sched("list", &pb, NULL, 0, 1, &s, &d), ACS_OK, "%s", d.msg);
  makespan = s.makespan;
  nedges = s.nedges;
  acs_diag_init(&d);
  cr_assert_eq(acs_barrier_pass(&pb, &s, &stop, &d), ACS_EINTERRUPTED, "%s", d.msg);
  cr_assert_eq(s.makespan, makespan);
  cr_assert_eq(s.nedges, nedges);
  cr_assert_eq(s.nwaits, 0);
  tu_assert_verified(&s);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/*
 * Watching a flag, GLPK solves in a forked child the caller can kill. The
 * child must give the same answers: the enumerator's example needs the
 * model to prove its optimum 9 (the bound is 8), so at least one solve goes
 * through the child.
 */
Test(interrupt, glpk_in_a_child_proves_the_same_optimum)
{
  volatile sig_atomic_t calm = 0;
  struct acs_sched_ctx ctx = { 1, 30, &calm };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err;

  named2(&g, 3, 3);
  named_op(&g, "a", 2, 2, 0);
  named_op(&g, "b", 3, 2, 0);
  named_op(&g, "c", 4, 2, 0);
  named_op(&g, "d", 5, 1, 0);
  tu_finalize(&g);
  tu_problem(&pb, &g, NULL);
  err = run_ctx("ilp", &pb, NULL, &ctx, &s, &d);
  cr_assert_eq(err, ACS_OK, "%s (%s)", acs_strerror(err), d.msg);
  tu_assert_verified(&s);
  cr_assert_eq(s.makespan, 9);
  {
    long long models = 0;
    cr_assert_eq(msg_number(d.msg, "lower bound (", &models), 0, "message: %s", d.msg);
    cr_assert_geq(models, 1, "message: %s", d.msg);
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}
