/*
 * arms.c - the seed's placement arms at one II: permute, fuse, retry with
 * a snapshot overlay, cost-based. Each is a complete attempt that never
 * undoes a placement (that is what IMS adds, ims.c); the driver tries them
 * in this order and the first that places every op wins. Orders are stable
 * sorts with the op index as the last key, so results are deterministic.
 *
 * Every arm costs O(V (deg + II occ)) at most: each op is seated once per
 * pass and a seat scans at most II starts.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/modulo/modulo_int.h"

/* ---- priority ---- */

struct prio_key {
  int64_t height;
  int32_t topo, op;
};

static int cmp_prio(const void *a, const void *b)
{
  const struct prio_key *x = a, *y = b;

  if (x->height != y->height)
    return x->height > y->height ? -1 : 1;
  if (x->topo != y->topo)
    return x->topo < y->topo ? -1 : 1;
  return (x->op > y->op) - (x->op < y->op);
}

int acs__msp_priority(const struct acs_msp *m, int64_t ii, int32_t *order, int64_t *height)
{
  struct prio_key *k = malloc(((size_t)m->n + 1) * sizeof(*k));
  int32_t *tpos = malloc(((size_t)m->n + 1) * sizeof(*tpos));
  int rc;

  if (!k || !tpos) {
    free(k), free(tpos);
    return ACS_ENOMEM;
  }
  rc = acs__msp_height(m, ii, height);
  if (rc != 0) {
    free(k), free(tpos);
    return rc < 0 ? rc : ACS_EINVAL; /* II below RecMII: a caller bug */
  }
  for (int32_t p = 0; p < m->n; p++)
    tpos[m->topo[p]] = p;
  for (int32_t i = 0; i < m->n; i++)
    k[i] = (struct prio_key){height[i], tpos[i], i};
  /* qsort is not stable, but the key ends with the unique op index. */
  qsort(k, (size_t)m->n, sizeof(*k), cmp_prio);
  for (int32_t i = 0; i < m->n; i++)
    order[i] = k[i].op;
  free(k), free(tpos);
  return ACS_OK;
}

/* ---- seats ---- */

/* Earliest start in [lo, min(hi, lo + II - 1)] with a free unit. */
static int seat_earliest(struct acs_mstate *s, const struct acs_msp *m, int32_t i, int64_t lo,
                         int64_t hi)
{
  int64_t last = hi - lo >= s->ii ? lo + s->ii - 1 : hi;

  for (int64_t t = lo; t <= last; t++)
    if (acs__mstate_seat(s, m, i, t))
      return 1;
  return 0;
}

/* Latest start in [max(lo, hi - II + 1), hi] with a free unit. */
static int seat_latest(struct acs_mstate *s, const struct acs_msp *m, int32_t i, int64_t lo,
                       int64_t hi)
{
  int64_t first = hi - lo >= s->ii ? hi - s->ii + 1 : lo;

  for (int64_t t = hi; t >= first; t--)
    if (acs__mstate_seat(s, m, i, t))
      return 1;
  return 0;
}

/* Which neighbours of i are placed: bit 0 a predecessor, bit 1 a successor. */
static int placed_sides(const struct acs_mstate *s, const struct acs_msp *m, int32_t i)
{
  int sides = 0;

  for (int32_t k = m->in_off[i]; k < m->in_off[i + 1] && !(sides & 1); k++)
    if (m->src[m->in[k]] != i && s->t[m->src[m->in[k]]] != ACS_MSP_NONE)
      sides |= 1;
  for (int32_t k = m->out_off[i]; k < m->out_off[i + 1] && !(sides & 2); k++)
    if (m->dst[m->out[k]] != i && s->t[m->dst[m->out[k]]] != ACS_MSP_NONE)
      sides |= 2;
  return sides;
}

/*
 * The seat rule of the fuse, retry and cost arms: as early as the placed
 * predecessors allow when there are any (results are used soon), as late
 * as the placed successors allow when only those are placed (operands are
 * not produced early), else at the op's ASAP estimate. Times may go below 0
 * here; the schedule is shifted at the end.
 */
static int seat_both(struct acs_mstate *s, const struct acs_msp *m, int32_t i, int64_t hint,
                     int64_t *lo_out, int64_t *hi_out)
{
  int sides = placed_sides(s, m, i);
  int64_t lo, hi;

  acs__mstate_window(s, m, i, &lo, &hi);
  if (!(sides & 1))
    lo = sides & 2 ? (hi == INT64_MAX ? hint : hi - 4 * s->ii) : hint;
  if (hi == INT64_MAX && !(sides & 2))
    hi = lo + s->ii - 1;
  *lo_out = lo;
  *hi_out = hi;
  if (hi < lo)
    return 0;
  if (sides == 2)
    return seat_latest(s, m, i, lo, hi);
  return seat_earliest(s, m, i, lo, hi);
}

/* ---- permute ---- */

int acs__arm_permute(struct acs_mstate *s, const struct acs_msp *m, const int32_t *order)
{
  acs__mstate_clear(s, m);
  for (int32_t k = 0; k < m->n; k++) {
    int32_t i = order[k];
    int64_t lo, hi;
    acs__mstate_window(s, m, i, &lo, &hi);
    if (hi < lo || !seat_earliest(s, m, i, lo, hi)) {
      acs__mstate_fail(s, m, i, lo, hi, k, "permute");
      return 0;
    }
  }
  return 1;
}

/* ---- fuse ---- */

/*
 * The fused order: the recurrences first (priority order), then the ops
 * around what is already ordered, predecessors before successors (the
 * swing order of Llosa et al.): every appended op queues its unordered
 * predecessors and successors, the predecessor queue is drained first, and
 * when both are empty the highest-priority unordered op starts the next
 * part. Each op is appended once and each edge queued at most twice:
 * O(V + E).
 */
static int fused_order(const struct acs_msp *m, const int32_t *order, int32_t *out)
{
  size_t n1 = (size_t)m->n + 1;
  char *done = calloc(n1, 1);
  int32_t *bq = malloc(((size_t)m->m + n1) * sizeof(*bq));
  int32_t *fq = malloc(((size_t)m->m + n1) * sizeof(*fq));
  int32_t nb = 0, hb = 0, nf = 0, hf = 0, n = 0, next = 0;

  if (!done || !bq || !fq) {
    free(done), free(bq), free(fq);
    return ACS_ENOMEM;
  }
#define APPEND(v)                                                          \
  do {                                                                     \
    int32_t v_ = (v);                                                      \
    done[v_] = 1;                                                          \
    out[n++] = v_;                                                         \
    for (int32_t k_ = m->in_off[v_]; k_ < m->in_off[v_ + 1]; k_++)          \
      if (!done[m->src[m->in[k_]]])                                        \
        bq[nb++] = m->src[m->in[k_]];                                      \
    for (int32_t k_ = m->out_off[v_]; k_ < m->out_off[v_ + 1]; k_++)        \
      if (!done[m->dst[m->out[k_]]])                                       \
        fq[nf++] = m->dst[m->out[k_]];                                     \
  } while (0)
  for (int32_t k = 0; k < m->n; k++)
    if (m->scc_cyclic[m->scc[order[k]]])
      APPEND(order[k]);
  while (n < m->n) {
    if (hb < nb) {
      int32_t v = bq[hb++];
      if (!done[v])
        APPEND(v);
    } else if (hf < nf) {
      int32_t v = fq[hf++];
      if (!done[v])
        APPEND(v);
    } else {
      while (done[order[next]])
        next++;
      APPEND(order[next]);
    }
  }
#undef APPEND
  free(done), free(bq), free(fq);
  return ACS_OK;
}

/*
 * Groups are the strongly connected components: a recurrence is a group,
 * every other op a group of its own. Groups with no dependence path between
 * them can be fused (placed as one) without violating an order; all the
 * recurrences, the tightest constraints, are fused into the first group,
 * and the other groups join it in the order above. Ops are seated from both
 * sides (seat_both): an op whose successors are placed goes as late as they
 * allow, so the ops feeding a recurrence fit under it.
 */
int acs__arm_fuse(struct acs_mstate *s, const struct acs_msp *m, const int32_t *order,
                  const int64_t *height)
{
  int32_t *fused = malloc(((size_t)m->n + 1) * sizeof(*fused));
  int64_t *asap = malloc(((size_t)m->n + 1) * sizeof(*asap));
  int rc = 1, err;

  (void)height;
  if (!fused || !asap) {
    free(fused), free(asap);
    return ACS_ENOMEM;
  }
  if ((err = fused_order(m, order, fused)) < 0) {
    free(fused), free(asap);
    return err;
  }
  if (acs__msp_asap(m, s->ii, asap) != 0)
    memset(asap, 0, (size_t)m->n * sizeof(*asap));
  acs__mstate_clear(s, m);
  for (int32_t k = 0; k < m->n && rc == 1; k++) {
    int64_t lo, hi;
    if (!seat_both(s, m, fused[k], asap[fused[k]], &lo, &hi)) {
      acs__mstate_fail(s, m, fused[k], lo, hi, k, "fuse");
      rc = 0;
    }
  }
  free(fused), free(asap);
  return rc;
}

/* ---- retry with a snapshot overlay ---- */

/*
 * The overlay marks ops dead instead of changing the canonical order. Pass
 * one seats ops in order and marks each op that finds no seat dead, going
 * on with the rest; the dead ops are then seated last, when their
 * neighbours are in place. If that fails, the overlay is rebuilt: pass two
 * seats the dead ops first (they are the hard ones) and the others after.
 */
int acs__arm_retry(struct acs_mstate *s, const struct acs_msp *m, const int32_t *order)
{
  char *dead = calloc((size_t)m->n + 1, 1);
  int64_t *asap = malloc(((size_t)m->n + 1) * sizeof(*asap));
  int rc = 0;

  if (!dead || !asap) {
    free(dead), free(asap);
    return ACS_ENOMEM;
  }
  if (acs__msp_asap(m, s->ii, asap) != 0)
    memset(asap, 0, (size_t)m->n * sizeof(*asap));
  for (int pass = 0; pass < 2 && rc == 0; pass++) {
    int ok = 1;
    acs__mstate_clear(s, m);
    for (int round = 0; round < 2 && ok; round++)
      for (int32_t k = 0; k < m->n && ok; k++) {
        int32_t i = order[k];
        int64_t lo, hi;
        /* pass 0: live ops, then dead ones; pass 1: dead ones, then live. */
        if ((dead[i] != 0) != ((pass == 0) == (round == 1)))
          continue;
        if (seat_both(s, m, i, asap[i], &lo, &hi))
          continue;
        if (pass == 0 && round == 0) {
          dead[i] = 1; /* into the overlay; the order itself is untouched */
          continue;
        }
        acs__mstate_fail(s, m, i, lo, hi, k, "retry");
        ok = 0;
      }
    rc = ok;
  }
  free(dead), free(asap);
  return rc;
}

/* ---- cost-based ---- */

/*
 * Every legal start in the window is ranked, lexicographically: the
 * pressure on the class (busy units in the fullest row the footprint would
 * use), then the distance from the window's start (longer lifetimes cost
 * registers), then the start itself. Legality is a hard gate. O(II occ
 * words) per op.
 */
int acs__arm_cost(struct acs_mstate *s, const struct acs_msp *m, const int32_t *order)
{
  int64_t *asap = malloc(((size_t)m->n + 1) * sizeof(*asap));

  if (!asap)
    return ACS_ENOMEM;
  if (acs__msp_asap(m, s->ii, asap) != 0)
    memset(asap, 0, (size_t)m->n * sizeof(*asap));
  acs__mstate_clear(s, m);
  for (int32_t k = 0; k < m->n; k++) {
    int32_t i = order[k], c = m->cls[i];
    int64_t lo, hi, best_t = ACS_MSP_NONE, best_p = INT64_MAX, last;
    int sides = placed_sides(s, m, i);
    acs__mstate_window(s, m, i, &lo, &hi);
    if (!(sides & 1))
      lo = sides & 2 && hi != INT64_MAX ? hi - s->ii + 1 : asap[i];
    last = hi - lo >= s->ii ? lo + s->ii - 1 : hi;
    for (int64_t t = lo; t <= last; t++) {
      int64_t p = 0;
      if (m->units[c] != ACS_LOOP_UNLIMITED) {
        if (acs__rrt_free_unit(&s->rrt, c, m->occ[i], t) < 0)
          continue;
        for (int64_t r = 0; r < m->occ[i]; r++) {
          int32_t load = acs__rrt_row_load(&s->rrt, c, t + r);
          if (load > p)
            p = load;
        }
      }
      /* (pressure, distance): the first start wins ties. */
      if (p < best_p) {
        best_p = p;
        best_t = t;
      }
      if (p == 0)
        break; /* nothing ranks better than an empty row at the earliest start */
    }
    if (best_t == ACS_MSP_NONE || !acs__mstate_seat(s, m, i, best_t)) {
      acs__mstate_fail(s, m, i, lo, hi, k, "cost");
      free(asap);
      return 0;
    }
  }
  free(asap);
  return 1;
}
