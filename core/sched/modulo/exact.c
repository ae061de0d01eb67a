/*
 * exact.c - does a modulo schedule exist at II? An integer program with II
 * fixed (in the spirit of Eichenberger's structured formulation and of
 * Oppermann's Moovac, which also fixes II per candidate):
 *
 *   y[i][r] in {0,1}  op i of a limited class starts in residue r (mod II)
 *                     (y[i][r][u] when its class has several units and
 *                     blocking times above 1: the unit is then chosen too)
 *   k[i] >= 0 integer its stage;  t_i = II k[i] + sum_r r y[i][r]
 *   t_i integer       for an op of an unlimited class
 *
 *   sum_r y[i][r] = 1                                  one residue each
 *   sum over ops i of class c and starts s with
 *     (rho - s) mod II < occ_i of y[i][s] <= units_c   per class and residue
 *     (<= 1 per unit and residue with unit variables)
 *   t_j - t_i >= w_e - d_e II                          every edge
 *
 * No objective: any solution proves II feasible. Bounds keep the search
 * finite and tight: t_i >= ASAP_i (longest path at II from t >= 0), and
 * t_i <= M - tail_i, where M = II - 1 + sum_i (max(0, max out-weight at II)
 * + II - 1). M is safe: if any schedule exists, the least one with the
 * same residues and units is feasible too, and each of its starts is
 * reached by a simple chain of tight edges, each adding at most its weight
 * plus II - 1 for rounding up to a residue. tail_i is the longest path from
 * i at II, since every successor's start is at most M too.
 *
 * Size: sum over limited ops of II (times units for unit variables)
 * binaries, V integers, II * (classes or units) + E + V rows.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/ilpmodel.h"
#include "core/sched/modulo/msp.h"

/* Longest paths from each op to the ops after it at II, base 0. */
static int tails(const struct acs_msp *m, int64_t ii, int64_t *tail)
{
  int rc = acs__msp_height(m, ii, tail); /* base: latency */

  if (rc != 0)
    return rc;
  for (int32_t i = 0; i < m->n; i++) {
    /* HeightR counts the op's latency as a path's end; the bound needs the
     * path to the last start instead: the largest edge-chain length. */
    int64_t best = 0;
    for (int32_t k = m->out_off[i]; k < m->out_off[i + 1]; k++) {
      int32_t e = m->out[k], j = m->dst[e];
      int64_t v = m->w[e] - m->dist[e] * ii + (tail[j] - m->lat[j]);
      if (j != i && v > best)
        best = v;
    }
    tail[i] = best;
  }
  return 0;
}

struct model {
  struct acs__mip mip;
  int32_t *col_k;       /* per op: stage column (limited) or start column (unlimited) */
  int32_t *col_y;       /* per op: first residue column, -1 none */
  int32_t *ny;          /* per op: unit choices (1 without unit variables) */
};

/* Whether class c needs unit variables: several units and footprints of
 * several rows (with one-row footprints, counts per residue imply units). */
static int unit_vars(const struct acs_msp *m, int32_t c, int64_t occ)
{
  return m->units[c] > 1 && occ > 1;
}

/* Adds sum coefficient * t_i to the open row. */
static int add_t(struct model *x, const struct acs_msp *m, int32_t i, int64_t ii, double sign)
{
  int err = acs__mip_coef(&x->mip, x->col_k[i], sign * (x->col_y[i] >= 0 ? (double)ii : 1.0));

  if (x->col_y[i] < 0 || err < 0)
    return err;
  for (int32_t r = 1; r < ii; r++)
    for (int32_t u = 0; u < x->ny[i]; u++)
      if ((err = acs__mip_coef(&x->mip, x->col_y[i] + r * x->ny[i] + u, sign * (double)r)) < 0)
        return err;
  return ACS_OK;
}

static int build(struct model *x, const struct acs_msp *m, int64_t ii, const int64_t *asap,
                 const int64_t *tail, int64_t big)
{
  struct acs__mip *p = &x->mip;
  int err = ACS_OK;

  for (int32_t i = 0; i < m->n && err == ACS_OK; i++) {
    int32_t c = m->cls[i];
    int64_t lo = asap[i], hi = big - tail[i];
    if (hi < lo)
      return 0; /* no start fits: infeasible at this II */
    if (m->units[c] == ACS_LOOP_UNLIMITED) {
      x->col_y[i] = -1;
      x->ny[i] = 0;
      x->col_k[i] = acs__mip_col(p, (double)lo, (double)hi, 0, 1);
      err = x->col_k[i] < 0 ? x->col_k[i] : ACS_OK;
      continue;
    }
    x->col_k[i] = acs__mip_col(p, (double)(lo / ii), (double)(hi / ii), 0, 1);
    x->ny[i] = unit_vars(m, c, m->occ[i]) ? (int32_t)m->units[c] : 1;
    x->col_y[i] = p->ncols;
    for (int64_t r = 0; r < ii && err == ACS_OK; r++)
      for (int32_t u = 0; u < x->ny[i] && err == ACS_OK; u++)
        if (acs__mip_col(p, 0, 1, 0, 1) < 0)
          err = ACS_ENOMEM;
    if (err == ACS_OK && x->col_k[i] < 0)
      err = x->col_k[i];
    /* One residue (and unit). */
    if (err == ACS_OK && (err = acs__mip_row(p, 1, 1)) >= 0) {
      err = ACS_OK;
      for (int64_t r = 0; r < ii * x->ny[i] && err == ACS_OK; r++)
        err = acs__mip_coef(p, x->col_y[i] + (int32_t)r, 1);
    }
    /* lo <= t_i <= hi, with the residue part. */
    if (err == ACS_OK && (err = acs__mip_row(p, (double)lo, (double)hi)) >= 0)
      err = add_t(x, m, i, ii, 1);
  }
  /* Resources: per class (or unit) and residue. */
  for (int32_t c = 0; c < m->nclasses && err == ACS_OK; c++) {
    int64_t occ, units = m->units[c];
    int uv;
    if (units == ACS_LOOP_UNLIMITED)
      continue;
    occ = m->loop->classes[c].blocking > 0 ? m->loop->classes[c].blocking : 1;
    uv = unit_vars(m, c, occ);
    for (int64_t u = 0; u < (uv ? units : 1) && err == ACS_OK; u++)
      for (int64_t rho = 0; rho < ii && err == ACS_OK; rho++) {
        int32_t row = acs__mip_row(p, -HUGE_VAL, uv ? 1.0 : (double)units);
        if (row < 0) {
          err = row;
          break;
        }
        for (int32_t i = 0; i < m->n && err == ACS_OK; i++) {
          if (m->cls[i] != c)
            continue;
          for (int64_t k = 0; k < occ && err == ACS_OK; k++) {
            int64_t s = ((rho - k) % ii + ii) % ii;
            err = acs__mip_coef(p, x->col_y[i] + (int32_t)(s * x->ny[i] + (uv ? u : 0)), 1);
          }
        }
      }
  }
  /* Edges. */
  for (int32_t e = 0; e < m->m && err == ACS_OK; e++) {
    int32_t i = m->src[e], j = m->dst[e];
    if (i == j)
      continue; /* d II >= w holds: II >= RecMII */
    if ((err = acs__mip_row(p, (double)(m->w[e] - m->dist[e] * ii), HUGE_VAL)) < 0)
      break;
    if ((err = add_t(x, m, j, ii, 1)) == ACS_OK)
      err = add_t(x, m, i, ii, -1);
  }
  return err < 0 ? err : 1;
}

/* t and unit from a solution. */
static void extract(const struct model *x, const struct acs_msp *m, int64_t ii, const double *v,
                    int64_t *t, int32_t *unit)
{
  for (int32_t i = 0; i < m->n; i++) {
    int64_t k = (int64_t)llround(v[x->col_k[i]]);
    unit[i] = -1;
    if (x->col_y[i] < 0) {
      t[i] = k;
      continue;
    }
    t[i] = k * ii;
    for (int32_t r = 0; r < ii; r++)
      for (int32_t u = 0; u < x->ny[i]; u++)
        if (v[x->col_y[i] + r * x->ny[i] + u] > 0.5) {
          t[i] += r;
          unit[i] = x->ny[i] > 1 ? u : -2; /* -2: bound below by residue */
        }
  }
  /* Units for classes without unit variables: per residue, in op order. */
  for (int32_t c = 0; c < m->nclasses; c++) {
    if (m->units[c] == ACS_LOOP_UNLIMITED)
      continue;
    for (int32_t i = 0; i < m->n; i++) {
      int32_t next = 0;
      if (m->cls[i] != c || unit[i] != -2)
        continue;
      /* occ is 1 or the class has one unit: the lowest unit not taken by an
       * earlier op of its residue. */
      for (int32_t j = 0; j < i; j++)
        if (m->cls[j] == c && unit[j] >= 0 && ((t[j] - t[i]) % ii + ii) % ii < m->occ[j])
          next = unit[j] + 1 > next ? unit[j] + 1 : next;
      unit[i] = next;
    }
  }
}

int acs__exact_feasible(const struct acs_msp *m, int64_t ii, double deadline,
                        const volatile sig_atomic_t *intr, int64_t *t, int32_t *unit)
{
  size_t n = (size_t)m->n + 1;
  int64_t *asap = malloc(n * sizeof(*asap)), *tail = malloc(n * sizeof(*tail)), big = ii - 1;
  struct acs__mip_params prm;
  struct acs__mip_result res;
  struct acs_diag d;
  struct model x;
  int rc;

  memset(&x, 0, sizeof(x));
  memset(&res, 0, sizeof(res));
  acs__mip_init(&x.mip);
  x.col_k = malloc(n * sizeof(*x.col_k));
  x.col_y = malloc(n * sizeof(*x.col_y));
  x.ny = malloc(n * sizeof(*x.ny));
  if (!asap || !tail || !x.col_k || !x.col_y || !x.ny) {
    rc = ACS_ENOMEM;
    goto out;
  }
  if (acs__msp_asap(m, ii, asap) != 0 || tails(m, ii, tail) != 0) {
    rc = 0; /* a positive cycle: below RecMII */
    goto out;
  }
  for (int32_t i = 0; i < m->n; i++) {
    int64_t wmax = 0;
    for (int32_t k = m->out_off[i]; k < m->out_off[i + 1]; k++)
      if (m->w[m->out[k]] - m->dist[m->out[k]] * ii > wmax)
        wmax = m->w[m->out[k]] - m->dist[m->out[k]] * ii;
    big += wmax + ii - 1;
  }
  if ((rc = build(&x, m, ii, asap, tail, big)) <= 0)
    goto out;
  acs__mip_params_init(&prm);
  prm.first_solution = 1;
  prm.interrupted = intr;
  if (deadline > 0) {
    prm.time_limit = deadline - acs_now_seconds();
    if (prm.time_limit <= 0) {
      rc = ACS_ETIMEOUT;
      goto out;
    }
  }
  acs_diag_init(&d);
  if ((rc = acs__mip_solve(&x.mip, &prm, &res, &d)) < 0)
    goto out;
  if (intr && *intr)
    rc = ACS_EINTERRUPTED;
  else if (res.status == ACS__MIP_OPTIMAL || res.status == ACS__MIP_FEASIBLE) {
    extract(&x, m, ii, res.x, t, unit);
    rc = 1;
  } else if (res.status == ACS__MIP_INFEASIBLE) {
    rc = 0;
  } else {
    rc = ACS_ETIMEOUT;
  }
out:
  free(res.x);
  acs__mip_destroy(&x.mip);
  free(x.col_k), free(x.col_y), free(x.ny), free(asap), free(tail);
  return rc;
}
