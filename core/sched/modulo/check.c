/*
 * check.c - the modulo scheduler's own verifier. It reads the loop itself
 * (classes, ops, edges as the file gave them, through struct acs_loop) and
 * the unit counts, not the scheduler's derived arrays or its reservation
 * table, and recomputes every invariant of a modulo schedule:
 *  - starts are >= 0;
 *  - every edge i -> j: t_j + distance * II >= t_i + latency(i) + delay;
 *  - an op of a limited class runs on a unit in [0, units); one of an
 *    unlimited class on none (-1);
 *  - per class and residue r (mod II), the ops occupying r, counting each
 *    cycle of each blocking time with its multiplicity, are at most the
 *    class's units; and no two occupy one unit in one residue.
 * O(V + E + sum of blocking times + II * sum of units).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/modulo/modulo_int.h"

#define FAIL(d, ...) acs_diag_set((d), ACS_EVERIFY, NULL, 0, 0, __VA_ARGS__)

static int check_edges(const struct acs_loop *l, int64_t ii, const int64_t *t, struct acs_diag *d)
{
  for (int32_t e = 0; e < l->nedges; e++) {
    const struct acs_loop_edge *x = &l->edges[e];
    int64_t need = t[x->src] + l->classes[l->ops[x->src].cls].latency + x->delay;
    if (t[x->dst] + x->distance * ii < need)
      return FAIL(d,
                  "modulo: edge '%s' -> '%s' (delay %lld, distance %lld) violated at II %lld: "
                  "%lld + %lld * %lld < %lld + %lld + %lld",
                  l->ops[x->src].name, l->ops[x->dst].name, (long long)x->delay,
                  (long long)x->distance, (long long)ii, (long long)t[x->dst],
                  (long long)x->distance, (long long)ii, (long long)t[x->src],
                  (long long)l->classes[l->ops[x->src].cls].latency, (long long)x->delay);
  }
  return ACS_OK;
}

/* Occupancy of one class: count[r] and the op holding (r, unit). */
static int check_class(const struct acs_loop *l, const int64_t *units, int32_t c, int64_t ii,
                       const int64_t *t, const int32_t *unit, int64_t *count, int32_t *holder,
                       struct acs_diag *d)
{
  int64_t occ = acs_loop_blocking(l, c, units[c]), u = units[c];

  memset(count, 0, (size_t)ii * sizeof(*count));
  for (size_t k = 0; k < (size_t)ii * (size_t)u; k++)
    holder[k] = -1;
  for (int32_t i = 0; i < l->nops; i++) {
    if (l->ops[i].cls != c)
      continue;
    if (unit[i] < 0 || unit[i] >= u)
      return FAIL(d, "modulo: op '%s' of class '%s' on unit %d, outside [0, %lld)",
                  l->ops[i].name, l->classes[c].name, (int)unit[i], (long long)u);
    for (int64_t k = 0; k < occ; k++) {
      int64_t r = (t[i] + k) % ii;
      int32_t *h = &holder[(size_t)r * (size_t)u + (size_t)unit[i]];
      if (++count[r] > u)
        return FAIL(d, "modulo: class '%s' over capacity in residue %lld (mod II %lld): "
                       "%lld ops > %lld units ('%s' among them)",
                    l->classes[c].name, (long long)r, (long long)ii, (long long)count[r],
                    (long long)u, l->ops[i].name);
      if (*h >= 0)
        return FAIL(d, "modulo: ops '%s' and '%s' occupy unit %d of class '%s' in residue %lld "
                       "(mod II %lld)",
                    l->ops[*h].name, l->ops[i].name, (int)unit[i], l->classes[c].name,
                    (long long)r, (long long)ii);
      *h = i;
    }
  }
  return ACS_OK;
}

int acs__modulo_check(const struct acs_msp *m, int64_t ii, const int64_t *t, const int32_t *unit,
                      struct acs_diag *d)
{
  const struct acs_loop *l = m->loop;
  int64_t *count = NULL;
  int32_t *holder = NULL;
  int64_t umax = 0;
  int err;

  if (ii < 1)
    return FAIL(d, "modulo: II %lld is not positive", (long long)ii);
  for (int32_t i = 0; i < l->nops; i++) {
    int64_t u = m->units[l->ops[i].cls];
    if (t[i] < 0)
      return FAIL(d, "modulo: op '%s' starts at %lld < 0", l->ops[i].name, (long long)t[i]);
    if (u == ACS_LOOP_UNLIMITED && unit[i] != -1)
      return FAIL(d, "modulo: op '%s' of unlimited class '%s' is bound to unit %d",
                  l->ops[i].name, l->classes[l->ops[i].cls].name, (int)unit[i]);
  }
  if ((err = check_edges(l, ii, t, d)) < 0)
    return err;
  for (int32_t c = 0; c < l->nclasses; c++)
    if (m->units[c] != ACS_LOOP_UNLIMITED && m->units[c] > umax)
      umax = m->units[c];
  if (umax == 0)
    return ACS_OK;
  {
    size_t cells;
    if (acs_mul_size((size_t)ii, (size_t)umax, &cells))
      return ACS_ENOMEM;
    count = malloc((size_t)ii * sizeof(*count));
    holder = malloc((cells + 1) * sizeof(*holder));
  }
  if (!count || !holder) {
    free(count), free(holder);
    return ACS_ENOMEM;
  }
  for (int32_t c = 0; c < l->nclasses && err == ACS_OK; c++)
    if (m->units[c] != ACS_LOOP_UNLIMITED)
      err = check_class(l, m->units, c, ii, t, unit, count, holder, d);
  free(count), free(holder);
  return err;
}
