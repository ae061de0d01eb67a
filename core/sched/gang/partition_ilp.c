/*
 * partition_ilp.c - the exact reference: partition and mapping by an integer program
 * over optimal costs.
 *
 * The thesis (Appendix A) formulates partition, mapping and scheduling for
 * an SMT solver and never ran the final version; its own partitioning
 * subproblem (A.3.2) with optimal gang costs took 3 hours on 15 nodes. This
 * is that subproblem as a 0-1 program for GLPK (core/sched/ilpmodel.h):
 *
 *   x[a][g][p]  actor a in gang g on PE p        sum over g, p = 1
 *   y[a][g]     = sum_p x[a][g][p]
 *   z[c][g]     <= y[src][g], y[dst][g]           channel c inside gang g
 *   w[c][g][p]  <= x[src][g][p], x[dst][g][p]     c inside g on one PE
 *   C[g]        >= sum_a work(a) x[a][g][p]       every PE p      (eq. 5.1)
 *   C[g]        >= DDR(g) = loads + DDR reads and writes of g
 *   C[g]        >= (DDR(g) + LOCAL(g)) / DMA channels
 *   sum_g g y[src][g] (+1 if src is pipelineable on its input only)
 *                <= sum_g g y[dst][g]                        (gang order)
 *   PMEM: sum_a kernel(a) x[a][g][p] <= pmem; a non-pipelineable actor alone
 *   in its gang; the actors of a cycle in one gang.
 *   minimise sum_g C[g]
 *
 * z and w only lower costs, so the minimisation sets them to the products
 * they bound. The optimum is a lower bound on the makespan of every gang
 * schedule (each gang runs at least as long as its busiest hardware is
 * busy), so it bounds the heuristic's result from below; the partition it
 * finds is then scheduled like the heuristic's. O(A^2 P + C A P) columns:
 * for graphs of about ten actors.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gang.h"
#include "core/sched/ilpmodel.h"

struct pm {
  const struct acs_gang_ctx *c;
  struct acs__mip m;
  int32_t A, G, P;
  int32_t *x;            /* A * G * P */
  int32_t *z;            /* C * G (channels between two actors) */
  int32_t *w;            /* C * G * P */
  int32_t *cg;           /* G */
  int32_t *chs, nch;     /* channels between two different actors */
};

#define X(a, g, p) (pm->x[((size_t)(a) * pm->G + (g)) * pm->P + (p)])
#define Z(k, g) (pm->z[(size_t)(k) * pm->G + (g)])
#define W(k, g, p) (pm->w[((size_t)(k) * pm->G + (g)) * pm->P + (p)])

static int columns(struct pm *pm)
{
  size_t nx = (size_t)pm->A * pm->G * pm->P, nz = (size_t)pm->nch * pm->G;

  pm->x = malloc((nx + 1) * sizeof(int32_t));
  pm->z = malloc((nz + 1) * sizeof(int32_t));
  pm->w = malloc((nz * pm->P + 1) * sizeof(int32_t));
  pm->cg = malloc(((size_t)pm->G + 1) * sizeof(int32_t));
  if (!pm->x || !pm->z || !pm->w || !pm->cg)
    return ACS_ENOMEM;
  /* PEs are identical: relabelling the PEs of a gang in the order their
   * lowest-numbered actor uses them puts actor a on a PE <= a. */
  for (size_t i = 0; i < nx; i++) {
    int32_t a = (int32_t)(i / ((size_t)pm->G * pm->P)), p = (int32_t)(i % pm->P);
    if ((pm->x[i] = acs__mip_col(&pm->m, 0, p <= a ? 1 : 0, 0, 1)) < 0)
      return ACS_ENOMEM;
  }
  for (size_t i = 0; i < nz; i++)
    if ((pm->z[i] = acs__mip_col(&pm->m, 0, 1, 0, 0)) < 0)
      return ACS_ENOMEM;
  for (size_t i = 0; i < nz * pm->P; i++)
    if ((pm->w[i] = acs__mip_col(&pm->m, 0, 1, 0, 0)) < 0)
      return ACS_ENOMEM;
  for (int32_t g = 0; g < pm->G; g++)
    if ((pm->cg[g] = acs__mip_col(&pm->m, 0, HUGE_VAL, 1, 0)) < 0)
      return ACS_ENOMEM;
  return ACS_OK;
}

/* Adds coefficient v on y[a][g] (the sum of x over PEs). */
static int coef_y(struct pm *pm, int32_t a, int32_t g, double v)
{
  for (int32_t p = 0; p < pm->P; p++)
    if (acs__mip_coef(&pm->m, X(a, g, p), v) < 0)
      return ACS_ENOMEM;
  return ACS_OK;
}

#define ROW(lo, hi)                                                                                \
  do {                                                                                             \
    if (acs__mip_row(&pm->m, (lo), (hi)) < 0)                                                      \
      return ACS_ENOMEM;                                                                           \
  } while (0)
#define COEF(col, v)                                                                               \
  do {                                                                                             \
    if (acs__mip_coef(&pm->m, (col), (v)) < 0)                                                     \
      return ACS_ENOMEM;                                                                           \
  } while (0)
#define COEFY(a, g, v)                                                                             \
  do {                                                                                             \
    if (coef_y(pm, (a), (g), (v)) < 0)                                                             \
      return ACS_ENOMEM;                                                                           \
  } while (0)

static int assignment_rows(struct pm *pm)
{
  const struct acs_sdf_graph *g = pm->c->g;

  for (int32_t a = 0; a < pm->A; a++) {
    ROW(1, 1);
    for (int32_t gg = 0; gg < pm->G; gg++)
      COEFY(a, gg, 1);
  }
  /* The actors of a strongly connected component share their gang. */
  for (int32_t a = 1; a < pm->A; a++)
    for (int32_t b = 0; b < a; b++)
      if (pm->c->scc[a] == pm->c->scc[b]) {
        for (int32_t gg = 0; gg < pm->G; gg++) {
          ROW(0, 0);
          COEFY(a, gg, 1);
          COEFY(b, gg, -1);
        }
        break;
      }
  /* Empty gangs come last (an empty gang between two others changes
   * nothing): y[a][g+1] <= sum_b y[b][g]. */
  for (int32_t gg = 0; gg + 1 < pm->G; gg++)
    for (int32_t a = 0; a < pm->A; a++) {
      ROW(-HUGE_VAL, 0);
      COEFY(a, gg + 1, 1);
      for (int32_t b = 0; b < pm->A; b++)
        COEFY(b, gg, -1);
    }
  /* A non-pipelineable actor is alone in its gang. */
  for (int32_t a = 0; a < pm->A; a++) {
    if (g->actors[a].pipe != ACS_SDF_PIPE_NONE)
      continue;
    for (int32_t gg = 0; gg < pm->G; gg++) {
      ROW(-HUGE_VAL, pm->A);
      COEFY(a, gg, pm->A);
      for (int32_t b = 0; b < pm->A; b++)
        if (b != a)
          COEFY(b, gg, 1);
    }
  }
  /* Program memory of each PE in each gang. */
  for (int32_t gg = 0; gg < pm->G; gg++)
    for (int32_t p = 0; p < pm->P; p++) {
      ROW(-HUGE_VAL, (double)pm->c->xp.pmem);
      for (int32_t a = 0; a < pm->A; a++)
        COEF(X(a, gg, p), (double)g->actors[a].kernel_bytes);
    }
  return ACS_OK;
}

static int channel_rows(struct pm *pm)
{
  const struct acs_sdf_graph *g = pm->c->g;

  for (int32_t k = 0; k < pm->nch; k++) {
    const struct acs_sdf_channel *cc = &g->channels[pm->chs[k]];
    /* Gang order (and strictly later after an input-only pipelined kernel). */
    if (pm->c->scc[cc->src] != pm->c->scc[cc->dst]) {
      ROW(g->actors[cc->src].pipe != ACS_SDF_PIPE_FULL ? 1 : 0, HUGE_VAL);
      for (int32_t gg = 0; gg < pm->G; gg++) {
        COEFY(cc->dst, gg, gg);
        COEFY(cc->src, gg, -gg);
      }
    }
    for (int32_t gg = 0; gg < pm->G; gg++) {
      ROW(-HUGE_VAL, 0);
      COEF(Z(k, gg), 1);
      COEFY(cc->src, gg, -1);
      ROW(-HUGE_VAL, 0);
      COEF(Z(k, gg), 1);
      COEFY(cc->dst, gg, -1);
      for (int32_t p = 0; p < pm->P; p++) {
        ROW(-HUGE_VAL, 0);
        COEF(W(k, gg, p), 1);
        COEF(X(cc->src, gg, p), -1);
        ROW(-HUGE_VAL, 0);
        COEF(W(k, gg, p), 1);
        COEF(X(cc->dst, gg, p), -1);
      }
    }
  }
  return ACS_OK;
}

/* C[g] - DDR(g) * f - LOCAL(g) * l >= 0 (f = 1 / lanes, l = 0: the DDR
 * link; f = l = 1 / channels: the DMA). The coefficient of each y[a][g] is summed first:
 * a row names every column once. */
static int ddr_row(struct pm *pm, int32_t gg, double f, double l, double *ycoef)
{
  const struct acs_sdf_graph *g = pm->c->g;
  const struct acs_platform *p = pm->c->xp.p;

  for (int32_t a = 0; a < pm->A; a++)
    ycoef[a] = -f * (double)acs_platform_ddr_cycles(p, g->actors[a].kernel_bytes);
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    double out = (double)cc->produced * (double)acs_platform_ddr_cycles(p, cc->token_bytes);
    double in = (double)cc->consumed * (double)acs_platform_ddr_cycles(p, cc->token_bytes);
    if (cc->src >= 0 && (cc->dst < 0 || cc->dst != cc->src))
      ycoef[cc->src] -= f * out;
    if (cc->dst >= 0 && (cc->src < 0 || cc->dst != cc->src))
      ycoef[cc->dst] -= f * in;
  }
  ROW(0, HUGE_VAL);
  COEF(pm->cg[gg], 1);
  for (int32_t a = 0; a < pm->A; a++)
    COEFY(a, gg, ycoef[a]);
  for (int32_t k = 0; k < pm->nch; k++) {
    const struct acs_sdf_channel *cc = &g->channels[pm->chs[k]];
    double out = (double)cc->produced * (double)acs_platform_ddr_cycles(p, cc->token_bytes);
    double in = (double)cc->consumed * (double)acs_platform_ddr_cycles(p, cc->token_bytes);
    double loc = (double)cc->produced * (double)acs_platform_cmx_cycles(p, cc->token_bytes);
    /* out (y_src - z) + in (y_dst - z) + loc (z - sum_p w): the y terms are
     * in ycoef */
    COEF(Z(k, gg), f * (out + in) - l * loc);
    for (int32_t q = 0; q < pm->P && l > 0; q++)
      COEF(W(k, gg, q), l * loc);
  }
  return ACS_OK;
}

static int cost_rows(struct pm *pm)
{
  double *ycoef = malloc(((size_t)pm->A + 1) * sizeof(double));
  int err = ACS_OK;

  if (!ycoef)
    return ACS_ENOMEM;
  for (int32_t gg = 0; gg < pm->G && err == ACS_OK; gg++) {
    for (int32_t p = 0; p < pm->P && err == ACS_OK; p++) {
      if (acs__mip_row(&pm->m, 0, HUGE_VAL) < 0 || acs__mip_coef(&pm->m, pm->cg[gg], 1) < 0)
        err = ACS_ENOMEM;
      for (int32_t a = 0; a < pm->A && err == ACS_OK; a++)
        if (acs__mip_coef(&pm->m, X(a, gg, p), -(double)pm->c->info[a].work) < 0)
          err = ACS_ENOMEM;
    }
    if (err == ACS_OK && (err = ddr_row(pm, gg, 1.0 / (double)pm->c->xp.lanes, 0, ycoef)) == ACS_OK)
      err = ddr_row(pm, gg, 1.0 / pm->c->xp.ndma, 1.0 / pm->c->xp.ndma, ycoef);
  }
  free(ycoef);
  return err;
}

/* Gangs of the solution, in index order, as member lists and PEs. */
static int read_solution(struct pm *pm, const double *x, struct acs_gang_part *out)
{
  struct acs_gang_ctx *c = (struct acs_gang_ctx *)pm->c;
  int err = ACS_OK;

  memset(out, 0, sizeof(*out));
  out->gangs = calloc((size_t)pm->G + 1, sizeof(*out->gangs));
  if (!out->gangs)
    return ACS_ENOMEM;
  for (int32_t gg = 0; gg < pm->G && err == ACS_OK; gg++) {
    struct acs_gang *gang = &out->gangs[out->ngangs];
    int32_t n = 0;
    gang->act = malloc(((size_t)pm->A + 1) * sizeof(int32_t));
    gang->pe = malloc(((size_t)pm->A + 1) * sizeof(int32_t));
    if (!gang->act || !gang->pe) {
      err = ACS_ENOMEM;
      break;
    }
    for (int32_t a = 0; a < pm->A; a++)
      for (int32_t p = 0; p < pm->P; p++)
        if (x[X(a, gg, p)] > 0.5) {
          gang->act[n] = a;
          gang->pe[n++] = p;
        }
    if (n == 0) {
      acs_gang_free(gang);
      continue;
    }
    gang->nact = n;
    out->ngangs++;
    if ((err = acs_gang_build(c, gang)) < 0 || (err = acs_gang_schedule(c, gang)) < 0)
      break;
    if (!gang->ok)
      err = ACS_EINFEASIBLE;
    out->makespan += gang->total;
  }
  if (err < 0)
    acs_gang_part_free(out);
  return err;
}

int acs_gang_partition_ilp(struct acs_gang_ctx *c, const struct acs_gang_opts *o, double time_limit,
                           struct acs_gang_part *out, int64_t *lower, struct acs_diag *d)
{
  const struct acs_sdf_graph *g = c->g;
  struct pm pm;
  struct acs__mip_params prm;
  struct acs__mip_result res;
  int err;

  (void)o;
  memset(&pm, 0, sizeof(pm));
  memset(&res, 0, sizeof(res));
  pm.c = c;
  pm.A = g->nactors;
  pm.G = c->nscc;
  pm.P = c->xp.npe;
  *lower = -1;
  acs__mip_init(&pm.m);
  pm.chs = malloc(((size_t)g->nchannels + 1) * sizeof(int32_t));
  if (!pm.chs) {
    err = ACS_ENOMEM;
    goto out_with_model;
  }
  for (int32_t ch = 0; ch < g->nchannels; ch++)
    if (g->channels[ch].src >= 0 && g->channels[ch].dst >= 0 &&
        g->channels[ch].src != g->channels[ch].dst)
      pm.chs[pm.nch++] = ch;
  if ((err = columns(&pm)) < 0 || (err = assignment_rows(&pm)) < 0 ||
      (err = channel_rows(&pm)) < 0 || (err = cost_rows(&pm)) < 0)
    goto out_with_model;
  acs__mip_params_init(&prm);
  prm.time_limit = time_limit > 0 ? time_limit : 10.0;
  if ((err = acs__mip_solve(&pm.m, &prm, &res, d)) < 0)
    goto out_with_model;
  if (res.status == ACS__MIP_INFEASIBLE || res.status == ACS__MIP_UNKNOWN || !res.x) {
    err = acs_diag_set(
        d, res.status == ACS__MIP_INFEASIBLE ? ACS_EINFEASIBLE : ACS_ETIMEOUT, NULL, 0, 0,
        res.status == ACS__MIP_INFEASIBLE ? "no partition fits the program memory"
                                          : "the partition ILP found no solution within %.0f s",
        prm.time_limit);
    goto out_with_model;
  }
  if (res.status == ACS__MIP_OPTIMAL)
    *lower = (int64_t)ceil(res.obj - 1e-6);
  err = read_solution(&pm, res.x, out);
  if (err == ACS_EINFEASIBLE)
    acs_diag_set(d, err, NULL, 0, 0, "a gang of the ILP's partition does not fit the VMEM");
  else if (err == ACS_OK && res.status != ACS__MIP_OPTIMAL)
    acs_diag_set(d, ACS_OK, NULL, 0, 0,
                 "partition ILP stopped at its time limit: best %.0f, proven >= %.0f", res.obj,
                 res.bound);
out_with_model:
  free(res.x);
  free(pm.chs);
  free(pm.x);
  free(pm.z);
  free(pm.w);
  free(pm.cg);
  acs__mip_destroy(&pm.m);
  return err;
}
