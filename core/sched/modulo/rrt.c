/*
 * rrt.c - the resource reservation table of seed 001 and the placement
 * state built on it.
 *
 * The seed's table has one row per cycle modulo II, each a bitset of
 * resources; an op's footprint has one row per occupied cycle. Here the
 * bitsets are per class (a unit is one bit), and a footprint is `occ`
 * consecutive rows of one unit: probing it costs O(occ), finding a free
 * unit O(occ * words). Probe before commit is mandatory (the seed: a
 * partially committed footprint makes retries nondeterministic), and the
 * table enforces it: a commit that would overlap is refused whole.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/modulo/modulo_int.h"

void acs__rrt_destroy(struct acs_rrt *t)
{
  free(t->words);
  free(t->base);
  free(t->rows);
  memset(t, 0, sizeof(*t));
}

int acs__rrt_init(struct acs_rrt *t, const struct acs_msp *m, int64_t ii)
{
  size_t total = 0;

  memset(t, 0, sizeof(*t));
  if (ii < 1)
    return ACS_EINVAL;
  t->ii = ii;
  t->nclasses = m->nclasses;
  t->units = m->units;
  t->words = calloc((size_t)m->nclasses + 1, sizeof(*t->words));
  t->base = calloc((size_t)m->nclasses + 1, sizeof(*t->base));
  if (!t->words || !t->base) {
    acs__rrt_destroy(t);
    return ACS_ENOMEM;
  }
  for (int32_t c = 0; c < m->nclasses; c++) {
    size_t cells;
    t->base[c] = total;
    if (m->units[c] == ACS_LOOP_UNLIMITED)
      continue;
    t->words[c] = (int32_t)((m->units[c] + 63) / 64);
    if (acs_mul_size((size_t)ii, (size_t)t->words[c], &cells) || total + cells < total) {
      acs__rrt_destroy(t);
      return ACS_ENOMEM;
    }
    total += cells;
  }
  t->nwords = total;
  t->rows = calloc(total + 1, sizeof(*t->rows));
  if (!t->rows) {
    acs__rrt_destroy(t);
    return ACS_ENOMEM;
  }
  return ACS_OK;
}

void acs__rrt_clear(struct acs_rrt *t)
{
  memset(t->rows, 0, t->nwords * sizeof(*t->rows));
}

static inline uint64_t *row_of(const struct acs_rrt *t, int32_t cls, int64_t r)
{
  return t->rows + t->base[cls] + (size_t)r * (size_t)t->words[cls];
}

int acs__rrt_probe(const struct acs_rrt *t, int32_t cls, int32_t unit, int64_t occ,
                   int64_t start)
{
  uint64_t bit;
  int32_t w;

  if (t->words[cls] == 0 || occ <= 0)
    return 1; /* an unlimited class, or a footprint of no rows */
  if (occ > t->ii || unit < 0 || unit >= t->units[cls])
    return 0;
  w = unit / 64;
  bit = UINT64_C(1) << (unit % 64);
  for (int64_t k = 0, r = acs_mod_i64(start, t->ii); k < occ; k++, r = r + 1 == t->ii ? 0 : r + 1)
    if (row_of(t, cls, r)[w] & bit)
      return 0;
  return 1;
}

int acs__rrt_commit(struct acs_rrt *t, int32_t cls, int32_t unit, int64_t occ, int64_t start)
{
  uint64_t bit;
  int32_t w;

  if (t->words[cls] == 0 || occ <= 0)
    return ACS_OK;
  if (!acs__rrt_probe(t, cls, unit, occ, start))
    return ACS_EINVAL;
  w = unit / 64;
  bit = UINT64_C(1) << (unit % 64);
  for (int64_t k = 0, r = acs_mod_i64(start, t->ii); k < occ; k++, r = r + 1 == t->ii ? 0 : r + 1)
    row_of(t, cls, r)[w] |= bit;
  return ACS_OK;
}

void acs__rrt_release(struct acs_rrt *t, int32_t cls, int32_t unit, int64_t occ, int64_t start)
{
  uint64_t bit;
  int32_t w;

  if (t->words[cls] == 0 || occ <= 0 || unit < 0)
    return;
  w = unit / 64;
  bit = UINT64_C(1) << (unit % 64);
  for (int64_t k = 0, r = acs_mod_i64(start, t->ii); k < occ && k < t->ii;
       k++, r = r + 1 == t->ii ? 0 : r + 1)
    row_of(t, cls, r)[w] &= ~bit;
}

int32_t acs__rrt_free_unit(const struct acs_rrt *t, int32_t cls, int64_t occ, int64_t start)
{
  int32_t words = t->words[cls];

  if (words == 0 || occ <= 0)
    return -1;
  if (occ > t->ii)
    return -1;
  for (int32_t w = 0; w < words; w++) {
    /* Units free in every row of the footprint: AND of the complements. */
    uint64_t freebits = ~UINT64_C(0);
    int64_t left = t->units[cls] - (int64_t)w * 64;
    if (left < 64)
      freebits = (UINT64_C(1) << left) - 1;
    for (int64_t k = 0, r = acs_mod_i64(start, t->ii); k < occ && freebits;
         k++, r = r + 1 == t->ii ? 0 : r + 1)
      freebits &= ~row_of(t, cls, r)[w];
    if (freebits)
      return w * 64 + __builtin_ctzll(freebits);
  }
  return -1;
}

int32_t acs__rrt_row_load(const struct acs_rrt *t, int32_t cls, int64_t r)
{
  int32_t n = 0;

  if (t->words[cls] == 0)
    return 0;
  r = acs_mod_i64(r, t->ii);
  for (int32_t w = 0; w < t->words[cls]; w++)
    n += __builtin_popcountll(row_of(t, cls, r)[w]);
  return n;
}

/* ---- placement state ---- */

int acs__mstate_init(struct acs_mstate *s, const struct acs_msp *m, int64_t ii)
{
  int err;

  memset(s, 0, sizeof(*s));
  s->ii = ii;
  s->t = malloc(((size_t)m->n + 1) * sizeof(*s->t));
  s->unit = malloc(((size_t)m->n + 1) * sizeof(*s->unit));
  if (!s->t || !s->unit) {
    acs__mstate_destroy(s);
    return ACS_ENOMEM;
  }
  if ((err = acs__rrt_init(&s->rrt, m, ii)) < 0) {
    acs__mstate_destroy(s);
    return err;
  }
  for (int32_t i = 0; i < m->n; i++) {
    s->t[i] = ACS_MSP_NONE;
    s->unit[i] = -1;
  }
  return ACS_OK;
}

void acs__mstate_destroy(struct acs_mstate *s)
{
  free(s->t);
  free(s->unit);
  acs__rrt_destroy(&s->rrt);
  memset(s, 0, sizeof(*s));
}

void acs__mstate_clear(struct acs_mstate *s, const struct acs_msp *m)
{
  for (int32_t i = 0; i < m->n; i++) {
    s->t[i] = ACS_MSP_NONE;
    s->unit[i] = -1;
  }
  acs__rrt_clear(&s->rrt);
  memset(&s->fail, 0, sizeof(s->fail));
}

int acs__mstate_seat(struct acs_mstate *s, const struct acs_msp *m, int32_t i, int64_t t)
{
  int32_t c = m->cls[i], u = -1;

  if (m->units[c] != ACS_LOOP_UNLIMITED) {
    u = acs__rrt_free_unit(&s->rrt, c, m->occ[i], t);
    if (u < 0 || acs__rrt_commit(&s->rrt, c, u, m->occ[i], t) < 0)
      return 0;
  }
  s->t[i] = t;
  s->unit[i] = u;
  return 1;
}

void acs__mstate_unseat(struct acs_mstate *s, const struct acs_msp *m, int32_t i)
{
  if (s->t[i] == ACS_MSP_NONE)
    return;
  if (s->unit[i] >= 0)
    acs__rrt_release(&s->rrt, m->cls[i], s->unit[i], m->occ[i], s->t[i]);
  s->t[i] = ACS_MSP_NONE;
  s->unit[i] = -1;
}

void acs__mstate_window(const struct acs_mstate *s, const struct acs_msp *m, int32_t i,
                        int64_t *lo, int64_t *hi)
{
  int64_t a = 0, b = INT64_MAX;

  for (int32_t k = m->in_off[i]; k < m->in_off[i + 1]; k++) {
    int32_t e = m->in[k], p = m->src[e];
    if (p != i && s->t[p] != ACS_MSP_NONE && s->t[p] + m->w[e] - m->dist[e] * s->ii > a)
      a = s->t[p] + m->w[e] - m->dist[e] * s->ii;
  }
  for (int32_t k = m->out_off[i]; k < m->out_off[i + 1]; k++) {
    int32_t e = m->out[k], q = m->dst[e];
    if (q != i && s->t[q] != ACS_MSP_NONE && s->t[q] - m->w[e] + m->dist[e] * s->ii < b)
      b = s->t[q] - m->w[e] + m->dist[e] * s->ii;
  }
  *lo = a;
  *hi = b;
}

void acs__mstate_fail(struct acs_mstate *s, const struct acs_msp *m, int32_t i, int64_t lo,
                      int64_t hi, int32_t order, const char *arm)
{
  struct acs_mfail *f = &s->fail;
  int32_t c = m->cls[i];

  memset(f, 0, sizeof(*f));
  f->set = 1;
  f->ii = s->ii;
  f->op = i;
  f->occ = m->occ[i];
  f->lo = lo;
  f->hi = hi;
  f->pool = -1;
  f->group = m->scc[i];
  f->order = order;
  f->stage = lo / s->ii;
  snprintf(f->arm, sizeof(f->arm), "%s", arm);
  f->row_lo = acs_mod_i64(lo, s->ii);
  f->row_hi = f->row_lo;
  if (hi >= lo && m->units[c] != ACS_LOOP_UNLIMITED) {
    /* The window was not empty, so the class's rows refused every start in
     * it: report the rows the first II starts would use, and the fullest. */
    int64_t span = hi - lo + 1 < s->ii ? hi - lo + 1 : s->ii;
    f->pool = c;
    f->row_hi = (f->row_lo + span - 1 + m->occ[i] - 1) % s->ii;
    for (int64_t r = 0; r < span + m->occ[i] - 1 && r < s->ii; r++) {
      int32_t load = acs__rrt_row_load(&s->rrt, c, f->row_lo + r);
      if (load > f->load)
        f->load = load;
    }
  }
}

void acs__mstate_normalize(struct acs_mstate *s, const struct acs_msp *m)
{
  int64_t lo = INT64_MAX;

  for (int32_t i = 0; i < m->n; i++)
    if (s->t[i] != ACS_MSP_NONE && s->t[i] < lo)
      lo = s->t[i];
  if (lo == INT64_MAX || lo == 0)
    return;
  for (int32_t i = 0; i < m->n; i++)
    if (s->t[i] != ACS_MSP_NONE)
      s->t[i] -= lo;
}

/* The least start >= v in residue r (mod ii). */
static inline int64_t round_to(int64_t v, int64_t r, int64_t ii)
{
  return v + acs_mod_i64(r - v, ii);
}

int acs__mstate_compact(struct acs_mstate *s, const struct acs_msp *m)
{
  size_t n = (size_t)m->n + 1;
  struct acs__mqueue q;
  int64_t *val, *res;
  int32_t v;
  int rc;

  if ((rc = acs__mqueue_init(&q, m->n)) < 0)
    return rc;
  val = malloc(n * sizeof(*val));
  res = malloc(n * sizeof(*res));
  if (!val || !res) {
    rc = ACS_ENOMEM;
    goto out;
  }
  for (int32_t i = 0; i < m->n; i++) {
    int lim = s->unit[i] >= 0;
    res[i] = lim ? acs_mod_i64(s->t[i], s->ii) : -1;
    val[i] = lim ? res[i] : 0;
  }
  /* Queue-based relaxation; an op raised more than n times means the
   * residues admit no schedule. */
  while (rc == 0 && (v = acs__mqueue_pop(&q)) >= 0) {
    for (int32_t k = m->out_off[v]; k < m->out_off[v + 1]; k++) {
      int32_t e = m->out[k], u = m->dst[e];
      int64_t need = val[v] + m->w[e] - m->dist[e] * s->ii;
      if (res[u] >= 0)
        need = round_to(need, res[u], s->ii);
      if (need <= val[u])
        continue;
      val[u] = need;
      if (acs__mqueue_raise(&q, u) > m->n + 1) {
        rc = 1;
        break;
      }
    }
  }
  if (rc == 0)
    memcpy(s->t, val, (size_t)m->n * sizeof(*val));
out:
  free(val), free(res);
  acs__mqueue_destroy(&q);
  return rc;
}
