/*
 * search.c - the II search of seed 001, with IMS and the exact mode.
 *
 * From the lower bound MII upward (linear), or by galloping (MII, MII+1,
 * MII+3, MII+7, ...) until a success and then bisecting between the last
 * failure and it, every candidate II is tried by the seed's arms in their
 * order (permute, fuse, retry, cost), then by Rau's IMS with HeightR
 * priorities, then by IMS restarts with perturbed priorities, then the same
 * IMS passes on the edges inside components alone; a schedule found is
 * compacted (residues kept, each op as early as its predecessors allow).
 * The search
 * never fails: at II_cap, the sum over ops of their latency (plus their
 * largest out-delay) or blocking time, the ops placed one after the other
 * form a valid schedule (every edge forward within one iteration, no two
 * ops overlapping anywhere in [0, II)). With opts->exact, every II between
 * MII and the heuristic's is then decided by the integer program, from the
 * bottom: a proof of infeasibility makes the next II the lower bound, a
 * feasible one is the minimum.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/modulo/modulo_int.h"

void acs__mresult_free(struct acs_mresult *r)
{
  free(r->t);
  free(r->unit);
  free(r->tries);
  memset(r, 0, sizeof(*r));
}

static int add_try(struct acs_mresult *r, int64_t ii, int ok, const char *how,
                   const struct acs_mfail *f)
{
  struct acs_mtry *x;

  if (acs_grow((void **)&r->tries, sizeof(*r->tries), &r->cap_tries, r->ntries + 1) < 0)
    return ACS_ENOMEM;
  x = &r->tries[r->ntries++];
  memset(x, 0, sizeof(*x));
  x->ii = ii;
  x->ok = ok;
  snprintf(x->how, sizeof(x->how), "%s", how);
  if (f)
    x->fail = *f;
  return ACS_OK;
}

/* The II at which ops placed one after another always fit (see top). */
static int64_t ii_cap(const struct acs_msp *m)
{
  int64_t total = 0;

  for (int32_t i = 0; i < m->n; i++) {
    int64_t span = m->lat[i], dmax = 0;
    for (int32_t k = m->out_off[i]; k < m->out_off[i + 1]; k++)
      if (m->w[m->out[k]] - m->lat[i] > dmax)
        dmax = m->w[m->out[k]] - m->lat[i];
    span += dmax;
    if (m->occ[i] > span)
      span = m->occ[i];
    total += span > 0 ? span : 1;
  }
  return total > 0 ? total : 1;
}

/* That flat schedule, at II = ii_cap: ops in topological order of the
 * distance-0 edges, each after the previous one's span. */
static void flat_schedule(const struct acs_msp *m, struct acs_mstate *s)
{
  int64_t t = 0;

  acs__mstate_clear(s, m);
  for (int32_t k = 0; k < m->n; k++) {
    int32_t i = m->topo[k];
    int64_t span = m->lat[i], dmax = 0;
    for (int32_t j = m->out_off[i]; j < m->out_off[i + 1]; j++)
      if (m->w[m->out[j]] - m->lat[i] > dmax)
        dmax = m->w[m->out[j]] - m->lat[i];
    span += dmax;
    if (m->occ[i] > span)
      span = m->occ[i];
    /* Every unit is free for the whole [t, t + occ): nothing else overlaps. */
    acs__mstate_seat(s, m, i, t);
    t += span > 0 ? span : 1;
  }
}

/* Stage count: floor(max start / II) + 1 on a normalized schedule. */
static int64_t stage_count(const struct acs_msp *m, const int64_t *t, int64_t ii)
{
  int64_t hi = 0;

  for (int32_t i = 0; i < m->n; i++)
    if (t[i] > hi)
      hi = t[i];
  return hi / ii + 1;
}

struct attempt {
  const struct acs_msp *m;
  const struct acs_mopts *o;
  int32_t *order;
  int64_t *height, *rank;
  char *core;            /* per edge: inside a cyclic component */
  struct acs_rng rng;
};

/* Ranks from a perturbed HeightR: noise below `spread` breaks ties and
 * reorders ops of similar height, deterministically for (seed, II, k). */
static void perturbed_rank(struct attempt *a, int64_t ii, int64_t k)
{
  const struct acs_msp *m = a->m;
  int64_t spread = ii * (k + 1);
  int64_t *key = a->rank;

  acs_rng_seed(&a->rng, a->o->seed * 1000003u + (uint64_t)ii * 7919u + (uint64_t)k);
  for (int32_t i = 0; i < m->n; i++)
    key[i] = -(a->height[i] + (int64_t)acs_rng_below(&a->rng, (uint64_t)spread));
  /* key is lower-first already (negated height); ties fall to the op index. */
}

/* Tries one II; 1 when s holds a complete schedule within the stage cap. */
static int try_ii(struct attempt *a, struct acs_mstate *s, int64_t ii, char *how, size_t how_size)
{
  const struct acs_msp *m = a->m;
  const struct acs_mopts *o = a->o;
  int rc;

  if ((rc = acs__msp_priority(m, ii, a->order, a->height)) < 0)
    return rc;
  if (o->arms) {
    static const char *const names[] = {"permute", "fuse", "retry", "cost"};
    for (int k = 0; k < 4; k++) {
      rc = k == 0   ? acs__arm_permute(s, m, a->order)
           : k == 1 ? acs__arm_fuse(s, m, a->order, a->height)
           : k == 2 ? acs__arm_retry(s, m, a->order)
                    : acs__arm_cost(s, m, a->order);
      if (rc < 0)
        return rc;
      if (rc == 1) {
        snprintf(how, how_size, "%s", names[k]);
        goto placed;
      }
    }
  }
  /* IMS on every edge, then on the recurrences alone (edges between
   * components are restored by acs__mstate_compact, which shifts ops by
   * multiples of II: see exact.c for why that always works without a stage
   * cap), each with the HeightR order and then perturbed ones. */
  for (int core = 0; core < (o->max_stages > 0 ? 1 : 2); core++)
    for (int64_t k = 0; k <= o->restarts; k++) {
      if (k == 0)
        for (int32_t p = 0; p < m->n; p++)
          a->rank[a->order[p]] = p;
      else
        perturbed_rank(a, ii, k - 1);
      rc = acs__ims(s, m, a->rank, o->budget * (int64_t)(m->n > 0 ? m->n : 1),
                    core ? a->core : NULL, o->interrupted);
      if (rc < 0)
        return rc;
      if (rc == 1) {
        if (k == 0)
          snprintf(how, how_size, core ? "ims-core" : "ims");
        else
          snprintf(how, how_size, core ? "ims-core+%lld" : "ims+%lld", (long long)k);
        goto placed;
      }
    }
  return 0;
placed:
  /* As shallow as the residues allow (and, after ims-core, complete). */
  if ((rc = acs__mstate_compact(s, m)) != 0)
    return rc < 0 ? rc : 0;
  acs__mstate_normalize(s, m);
  if (o->max_stages > 0 && stage_count(m, s->t, ii) > o->max_stages) {
    memset(&s->fail, 0, sizeof(s->fail));
    s->fail.set = 1;
    s->fail.ii = ii;
    s->fail.op = -1;
    snprintf(s->fail.arm, sizeof(s->fail.arm), "stages");
    return 0;
  }
  return 1;
}

static int keep(struct acs_mresult *r, const struct acs_msp *m, const struct acs_mstate *s,
                int64_t ii, const char *how)
{
  r->ii = ii;
  memcpy(r->t, s->t, (size_t)m->n * sizeof(*r->t));
  memcpy(r->unit, s->unit, (size_t)m->n * sizeof(*r->unit));
  snprintf(r->how, sizeof(r->how), "%s", how);
  return ACS_OK;
}

/* Attempts II ii (fresh state) and records the try; 1 success. */
static int attempt_ii(struct attempt *a, struct acs_mresult *r, int64_t ii, int64_t cap)
{
  const struct acs_msp *m = a->m;
  struct acs_mstate s;
  char how[16] = "";
  int rc;

  if (acs__msp_stop(a->o->interrupted))
    return ACS_EINTERRUPTED;
  if ((rc = acs__mstate_init(&s, m, ii)) < 0)
    return rc;
  if (ii >= cap) {
    flat_schedule(m, &s);
    snprintf(how, sizeof(how), "flat");
    rc = 1;
  } else {
    rc = try_ii(a, &s, ii, how, sizeof(how));
  }
  if (rc == 1 && (r->ii == 0 || ii < r->ii))
    keep(r, m, &s, ii, how);
  if (rc >= 0 && add_try(r, ii, rc, rc == 1 ? how : s.fail.arm, rc == 1 ? NULL : &s.fail) < 0)
    rc = ACS_ENOMEM;
  acs__mstate_destroy(&s);
  return rc;
}

static int search_linear(struct attempt *a, struct acs_mresult *r, int64_t lo, int64_t cap)
{
  for (int64_t ii = lo; ii <= cap; ii++) {
    int rc = attempt_ii(a, r, ii, cap);
    if (rc != 0)
      return rc < 0 ? rc : ACS_OK;
  }
  return ACS_EINFEASIBLE;
}

/* Galloping, then bisection between the last failure and the success.
 * The heuristic's success is not monotone in II, so this finds a small II,
 * not always the least the linear search would. */
static int search_gallop(struct attempt *a, struct acs_mresult *r, int64_t lo, int64_t cap)
{
  int64_t fail = lo - 1, ok = -1, step = 1, ii = lo;
  int rc;

  while (ok < 0) {
    if ((rc = attempt_ii(a, r, ii, cap)) < 0)
      return rc;
    if (rc == 1)
      ok = ii;
    else if (ii >= cap)
      return ACS_EINFEASIBLE;
    else {
      fail = ii;
      ii = ii + step > cap ? cap : ii + step;
      step *= 2;
    }
  }
  while (ok - fail > 1) {
    int64_t mid = fail + (ok - fail) / 2;
    if ((rc = attempt_ii(a, r, mid, cap)) < 0)
      return rc;
    if (rc == 1)
      ok = mid;
    else
      fail = mid;
  }
  return ACS_OK;
}

/* The exact mode: decide every II in [MII, r->ii) from the bottom, by the
 * time limit counted from t0 (the start of the whole search). */
static int prove(const struct acs_msp *m, const struct acs_mopts *o, struct acs_mresult *r,
                 double t0)
{
  double deadline = o->time_limit > 0 ? t0 + o->time_limit : 0;
  int64_t *t = malloc(((size_t)m->n + 1) * sizeof(*t));
  int32_t *u = malloc(((size_t)m->n + 1) * sizeof(*u));
  int err = ACS_OK;

  if (!t || !u) {
    free(t), free(u);
    return ACS_ENOMEM;
  }
  r->exact_status = ACS_OK;
  for (int64_t ii = r->mii.mii; ii < r->ii; ii++) {
    int rc = acs__exact_feasible(m, ii, deadline, o->interrupted, t, u);
    if (rc == ACS_ETIMEOUT) {
      r->exact_status = ACS_ETIMEOUT;
      snprintf(r->note, sizeof(r->note),
               "II %lld not proven minimal: the integer program ran out of time at II %lld "
               "(II %lld..%lld proven infeasible)",
               (long long)r->ii, (long long)ii, (long long)r->mii.mii, (long long)ii - 1);
      break;
    }
    if (rc < 0) {
      err = rc;
      break;
    }
    if ((err = add_try(r, ii, rc == 1 ? 1 : -1, "exact", NULL)) < 0)
      break;
    if (rc == 1) {
      int64_t lo = INT64_MAX;
      for (int32_t i = 0; i < m->n; i++)
        lo = t[i] < lo ? t[i] : lo;
      for (int32_t i = 0; i < m->n; i++)
        t[i] -= lo; /* normalized, as the heuristic's */
      r->ii = ii;
      memcpy(r->t, t, (size_t)m->n * sizeof(*t));
      memcpy(r->unit, u, (size_t)m->n * sizeof(*u));
      snprintf(r->how, sizeof(r->how), "exact");
      break;
    }
  }
  if (err == ACS_OK && r->exact_status == ACS_OK) {
    r->proven = 1;
    if (r->ii > r->mii.mii + 1)
      snprintf(r->note, sizeof(r->note),
               "II %lld proven minimal: II %lld..%lld proven infeasible by integer programming",
               (long long)r->ii, (long long)r->mii.mii, (long long)r->ii - 1);
    else if (r->ii > r->mii.mii)
      snprintf(r->note, sizeof(r->note),
               "II %lld proven minimal: II %lld (= MII) proven infeasible by integer programming",
               (long long)r->ii, (long long)r->mii.mii);
  }
  free(t), free(u);
  return err;
}

int acs__modulo_search(const struct acs_msp *m, const struct acs_mopts *o, struct acs_mresult *r,
                       struct acs_diag *d)
{
  struct attempt a;
  size_t n = (size_t)m->n + 1;
  double t0 = acs_now_seconds();
  int64_t cap;
  int err;

  memset(r, 0, sizeof(*r));
  memset(&a, 0, sizeof(a));
  a.m = m;
  a.o = o;
  r->t = malloc(n * sizeof(*r->t));
  r->unit = malloc(n * sizeof(*r->unit));
  a.order = malloc(n * sizeof(*a.order));
  a.height = malloc(n * sizeof(*a.height));
  a.rank = malloc(n * sizeof(*a.rank));
  a.core = malloc((size_t)m->m + 1);
  if (!r->t || !r->unit || !a.order || !a.height || !a.rank || !a.core) {
    err = ACS_ENOMEM;
    goto out;
  }
  for (int32_t e = 0; e < m->m; e++)
    a.core[e] = m->scc[m->src[e]] == m->scc[m->dst[e]];
  if ((err = acs__msp_mii(m, &r->mii, o->interrupted)) < 0)
    goto out;
  cap = o->ii_max > 0 ? o->ii_max : ii_cap(m);
  if (cap < r->mii.mii) {
    err = acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                       "ii_max %lld is below the lower bound MII %lld", (long long)cap,
                       (long long)r->mii.mii);
    goto out;
  }
  err = o->search == ACS_MSP_SEARCH_GALLOP ? search_gallop(&a, r, r->mii.mii, cap)
                                           : search_linear(&a, r, r->mii.mii, cap);
  if (err == ACS_EINFEASIBLE) {
    err = acs_diag_set(d, ACS_EINFEASIBLE, NULL, 0, 0,
                       "no schedule within %lld stages up to II %lld", (long long)o->max_stages,
                       (long long)cap);
    goto out;
  }
  if (err < 0)
    goto out;
  r->proven = r->ii == r->mii.mii;
  if (o->exact && !r->proven && (err = prove(m, o, r, t0)) < 0)
    goto out;
  if (r->proven && r->ii == r->mii.mii)
    snprintf(r->note, sizeof(r->note), "II = MII %lld: minimal", (long long)r->ii);
  r->stages = stage_count(m, r->t, r->ii);
  r->depth = 0;
  for (int32_t i = 0; i < m->n; i++)
    if (r->t[i] + m->lat[i] > r->depth)
      r->depth = r->t[i] + m->lat[i];
out:
  r->seconds = acs_now_seconds() - t0;
  free(a.order), free(a.height), free(a.rank), free(a.core);
  return err;
}
