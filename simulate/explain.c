/*
 * explain.c - why a simulation stopped before every op finished, from the
 * op states and start times the simulation process reported.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simulate/sim_int.h"

static const char *dep_reason(const struct acs__sim_plan *pl, const struct acs__sim_dep *e,
                              char *buf, size_t size)
{
  const struct acs_sop *o = &pl->s->ops[e->dst];

  if (e->kind == ACS__DEP_DATA)
    return "data edge";
  if (e->kind == ACS__DEP_CONTROL)
    return "control edge";
  if (e->kind == ACS__DEP_BARRIER) {
    snprintf(buf, size, "barrier %d", (int)pl->s->ops[e->src].update_barrier);
    return buf;
  }
  if (e->kind == ACS__DEP_REUSE_END || e->kind == ACS__DEP_REUSE_START) {
    snprintf(buf, size, "to %s: barrier %d reused", e->kind == ACS__DEP_REUSE_END ? "end" : "start",
             (int)o->update_barrier);
    return buf;
  }
  snprintf(buf, size, "previous op on %s%d", o->kind == ACS_OP_DMA ? "dma" : "pe", o->unit);
  return buf;
}

/* Index in pl->dep of the first unfinished dependency of op u, or -1.
 * pred_off/pred index dep entries by destination. */
static int32_t first_unfinished(const struct acs__sim_plan *pl, const uint8_t *state,
                                const double *t, const int32_t *pred_off, const int32_t *pred,
                                int32_t u)
{
  for (int32_t k = pred_off[u]; k < pred_off[u + 1]; k++) {
    const struct acs__sim_dep *e = &pl->dep[pred[k]];
    if (e->kind == ACS__DEP_REUSE_START ? isnan(t[e->src]) : state[e->src] != ACS__ST_DONE)
      return pred[k];
  }
  return -1;
}

/* Appends one "'a' waits for 'b' (why)" hop to msg. */
static void append_hop(const struct acs__sim_plan *pl, int32_t e, int first, char *msg,
                       size_t size)
{
  const struct acs__sim_dep *dep = &pl->dep[e];
  size_t len = strlen(msg);
  char why[64];

  if (len + 1 >= size)
    return;
  snprintf(msg + len, size - len, "%s'%s' waits for '%s' (%s)", first ? "; " : ", ",
           pl->s->ops[dep->dst].name,
           pl->s->ops[dep->src].name, dep_reason(pl, dep, why, sizeof(why)));
}

/* Dependencies by destination: pred[pred_off[v] .. pred_off[v + 1]) are
 * indices into pl->dep. pos is scratch of n entries. O(V + E). */
static void pred_index(const struct acs__sim_plan *pl, int32_t *pred_off, int32_t *pred,
                       int32_t *pos)
{
  for (int32_t e = 0; e < pl->ndeps; e++)
    pred_off[pl->dep[e].dst + 1]++;
  for (int32_t v = 0; v < pl->n; v++)
    pred_off[v + 1] += pred_off[v];
  memcpy(pos, pred_off, (size_t)pl->n * sizeof(*pos));
  for (int32_t e = 0; e < pl->ndeps; e++)
    pred[pos[pl->dep[e].dst]++] = e;
}

/* Prints the hops of path, eliding the middle of a long chain. */
static void append_path(const struct acs__sim_plan *pl, const int32_t *path, int32_t len,
                        char *msg, size_t size)
{
  for (int32_t h = 0; h < len; h++) {
    if (len > 8 && h == 4) {
      size_t l = strlen(msg);
      snprintf(msg + l, size - l, ", ...");
      h = len - 4; /* the loop's increment makes it len - 3 */
      continue;
    }
    append_hop(pl, path[h], h == 0, msg, size);
  }
}

/*
 * Explains an incomplete run: starting from the first op (by id) that never
 * started, follows unfinished dependencies until an op repeats (a cycle) or
 * one has none left. O(V + E).
 */
void acs__explain(const struct acs__sim_plan *pl, const uint8_t *state, const double *t,
                  int32_t ndone, char *msg, size_t size)
{
  int32_t n = pl->n, u = -1, len = 0, nstart = 0;
  int32_t *pred_off = calloc((size_t)n + 1, sizeof(*pred_off));
  int32_t *pred = malloc(((size_t)pl->ndeps + 1) * sizeof(*pred));
  int32_t *pos = malloc(((size_t)n + 1) * sizeof(*pos));   /* hop at which an op waits */
  int32_t *path = malloc(((size_t)n + 1) * sizeof(*path)); /* dep index per hop */

  for (int32_t v = n - 1; v >= 0; v--)
    if (state[v] == ACS__ST_WAITING)
      u = v, nstart++;
  snprintf(msg, size, "simulation incomplete: %d of %d ops never finished (%d never started)",
           (int)(n - ndone), (int)n, (int)nstart);
  if (!pred_off || !pred || !pos || !path)
    goto out;
  pred_index(pl, pred_off, pred, pos);
  for (int32_t v = 0; v < n; v++)
    pos[v] = -1;
  while (u >= 0 && pos[u] < 0) {
    int32_t e = first_unfinished(pl, state, t, pred_off, pred, u);
    pos[u] = len;
    if (e < 0)
      break;
    path[len++] = e;
    u = pl->dep[e].src;
  }
  append_path(pl, path, len, msg, size);
  if (u >= 0 && pos[u] < len) {
    size_t l = strlen(msg);
    snprintf(msg + l, size - l, ", a cycle of %d ops", (int)(len - pos[u]));
  } else if (u >= 0 && len == 0) {
    size_t l = strlen(msg);
    snprintf(msg + l, size - l, "; '%s' never started though its dependencies finished",
             pl->s->ops[u].name);
  }
out:
  free(pred_off), free(pred), free(pos), free(path);
}
