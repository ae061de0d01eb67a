/*
 * plans.c - Part groups and their plans (seed 002, step 2; see cascade.h).
 *
 * For a group, the option grid is: stripe heights (the whole H axis, then
 * powers of two below it, at most `heights` of them), widths likewise
 * (`widths`; 1: whole rows), channel stripes for
 * a group of one Part whose reads shrink with them (weights, or inputs
 * whose channels follow the output's) (C, C/2, ... `chan_splits` halvings;
 * every halving down to one channel for a fully connected layer, whose
 * weights only channels can stripe; none for other Parts without an H
 * axis, which have nothing to save), and
 * at most max_stripes stripes where there is an H axis to trade against,
 * which stripe axis is outermost when both are cut, one or two buffers,
 * the output's home, and a buffering mode per tensor the group makes
 * (rolled or recomputed; `modes` narrows this). Every point is walked dry
 * (walk.c) for its memory and cycles. Step 2 is O(P G W N) for N Parts,
 * groups of at most P Parts, G grid points and W the cost of a walk.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/cascade.h"
#include "core/sched/cascade/walk.h"

int acs_cas_env_init(struct acs_cas_env *env, const struct acs_cgraph *cg,
                     const struct acs_platform *plat, int64_t split, int res_pe, int res_dma)
{
  int64_t pes = (int64_t)acs_platform_get(plat, ACS_P_PE_COUNT);

  memset(env, 0, sizeof(*env));
  env->cg = cg;
  env->plat = plat;
  env->align = (int64_t)acs_platform_get(plat, ACS_P_CMX_ALIGN_BYTES);
  env->elem_bytes = (int64_t)acs_platform_get(plat, ACS_P_BYTES_PER_ELEM);
  env->pes = (int32_t)pes;
  /* A block is cut in at most 64 channel slices: beyond that the ops and
   * edges of a stripe grow faster than the parallelism they expose. */
  env->split = (int32_t)(split > 0 && split < pes ? split : pes);
  if (env->split > 64)
    env->split = 64;
  env->dma = (int32_t)acs_platform_get(plat, ACS_P_DMA_CHANNELS);
  env->macs_per_cycle = (int64_t)acs_platform_get(plat, ACS_P_PE_MACS_PER_CYCLE);
  env->res_pe = res_pe;
  env->res_dma = res_dma;
  return env->pes > 0 && env->dma > 0 && env->macs_per_cycle > 0 ? ACS_OK : ACS_EINVAL;
}

static int is_net_output(const struct acs_cgraph *cg, int32_t t)
{
  return cg->lg->t[cg->tensors[t].lt].is_output;
}

/* Adds activation tensor t entering the group, kept sorted by id. */
static int ext_add(struct acs_cas_group *g, const struct acs_cgraph *cg, int32_t t)
{
  int32_t i = 0;

  while (i < g->nin && g->in[i] < t)
    i++;
  if (i < g->nin && g->in[i] == t)
    return 1;
  if (g->nin == ACS_CAS_MAX_EXT)
    return 0;
  memmove(g->in + i + 1, g->in + i, (size_t)(g->nin - i) * sizeof(*g->in));
  memmove(g->in_net + i + 1, g->in_net + i, (size_t)(g->nin - i) * sizeof(*g->in_net));
  g->in[i] = t;
  g->in_net[i] = cg->tensors[t].producer < 0;
  g->nin++;
  return 1;
}

int acs_cas_group_of(const struct acs_cgraph *cg, int32_t first, int32_t nparts,
                     struct acs_cas_group *g)
{
  int32_t last = first + nparts - 1, nweights = 0;
  const struct acs_ctensor *ot;

  memset(g, 0, sizeof(*g));
  if (first < 0 || nparts < 1 || nparts > ACS_CAS_MAX_PARTS || last >= cg->nparts)
    return 0;
  g->first = first;
  g->nparts = nparts;
  g->next = first + nparts;
  /* Inner outputs are read, and only inside. */
  for (int32_t k = first; k < last; k++) {
    const struct acs_ctensor *t = &cg->tensors[cg->parts[k].out];
    if (t->ncons == 0 || is_net_output(cg, cg->parts[k].out))
      return 0;
    for (int32_t c = 0; c < t->ncons; c++)
      if (cg->cons[t->cons_off + c].part > last)
        return 0;
  }
  for (int32_t k = first; k <= last; k++) {
    const struct acs_cpart *pt = &cg->parts[k];
    for (int s = 0; s < pt->nin; s++) {
      int32_t t = pt->in[s];
      if (t >= 0 && cg->tensors[t].weight)
        nweights++;
      if (t < 0 || cg->tensors[t].weight || cg->tensors[t].producer >= first)
        continue;
      if (!ext_add(g, cg, t))
        return 0;
    }
  }
  if (nparts + g->nin + nweights > ACS_CAS_MAX_BUFS)
    return 0; /* more buffers than a walk tracks: smaller groups cover these Parts */
  ot = &cg->tensors[cg->parts[last].out];
  g->out_is_net = is_net_output(cg, cg->parts[last].out);
  g->next_last = -1;
  for (int32_t c = 0; c < ot->ncons; c++)
    if (cg->cons[ot->cons_off + c].part > g->next_last)
      g->next_last = cg->cons[ot->cons_off + c].part;
  g->next_reads = g->next_last >= 0 || g->out_is_net;
  return 1;
}

/* ---- the grid ---- */

/* A stripe shape of the grid. */
struct shape {
  int64_t h, w, c, steps;
  uint8_t spatial, chan;     /* cut along H or W; along the channels */
};

#define MAX_SHAPES 4096

struct grid {
  struct shape sh[MAX_SHAPES];
  int nsh;
  uint32_t masks[2 + (1u << 10)];
  int nmasks;
};

static int has_weights(const struct acs_cgraph *cg, int32_t k)
{
  const struct acs_cpart *pt = &cg->parts[k];

  for (int s = 0; s < pt->nin; s++)
    if (pt->in[s] >= 0 && cg->tensors[pt->in[s]].weight && cg->tensors[pt->in[s]].bytes > 0)
      return 1;
  return 0;
}

static int chan_stripes_help(const struct acs_cgraph *cg, int32_t k)
{
  const struct acs_cpart *pt = &cg->parts[k];
  int ca = acs_cas_c_axis(cg->lg->t[cg->tensors[pt->out].lt].rank);

  for (int s = 0; s < pt->nin; s++) {
    const struct acs_iprop *ip = &pt->iprop[s];
    if (pt->in[s] < 0)
      continue;
    if (cg->tensors[pt->in[s]].weight && cg->tensors[pt->in[s]].bytes > 0)
      return 1;
    for (int i = 0; ip->ok && i < ip->rin; i++)
      for (int t = 0; t < ip->nt[i]; t++)
        if (ip->j[i][t] == ca)
          return 1;
  }
  return 0;
}

/* Sizes along an axis of length D: D, then the powers of two below it,
 * at most `most` of them. */
static int axis_sizes(int64_t D, int64_t most, int64_t *out)
{
  int64_t v = 1;
  int n = 0;

  out[n++] = D;
  while (v * 2 < D)
    v *= 2;
  for (; v >= 1 && n < most && n < 64; v /= 2)
    if (v < D)
      out[n++] = v;
  return n;
}

/* Channel stripe sizes: C, then halvings. Without an H axis (a fully
 * connected layer) channels are the only way to stripe the weights: every
 * halving, down to one channel; none for other Parts without an H axis. */
static int chan_sizes(const struct acs_cgraph *cg, const struct acs_cas_opts *o,
                      const struct acs_cas_group *g, int64_t C, int ha, int64_t *out)
{
  int32_t last = g->first + g->nparts - 1;
  int64_t splits = ha < 0 ? (has_weights(cg, last) ? 63 : 0) : o->chan_splits, c = C;
  int n = 0;

  out[n++] = C;
  for (int k = 0; g->nparts == 1 && chan_stripes_help(cg, last) && k < splits && n < 64; k++) {
    int64_t nx = (c + 1) / 2;
    if (nx >= c)
      break;
    out[n++] = c = nx;
  }
  return n;
}

static void grid_make(const struct acs_cas_env *env, const struct acs_cas_opts *o,
                      const struct acs_cas_group *g, struct grid *gr)
{
  const struct acs_cgraph *cg = env->cg;
  int32_t last = g->first + g->nparts - 1;
  const struct acs_ltensor *t = &cg->lg->t[cg->tensors[cg->parts[last].out].lt];
  int ha = acs_cas_h_axis(t->rank), wa = acs_cas_w_axis(t->rank), ca = acs_cas_c_axis(t->rank);
  int64_t hs[64], ws[64], cs[64];
  int nh = ha < 0 ? (hs[0] = 1, 1) : axis_sizes(t->dims[ha], o->heights, hs);
  int nw = wa < 0 ? (ws[0] = 0, 1) : axis_sizes(t->dims[wa], o->widths, ws);
  int nc = ca < 0 ? (cs[0] = 1, 1) : chan_sizes(cg, o, g, t->dims[ca], ha, cs);
  uint32_t all = (1u << (g->nparts + 1)) - 1;

  gr->nsh = gr->nmasks = 0;
  for (int i = 0; i < nh; i++)
    for (int j = 0; j < nw; j++)
      for (int k = 0; k < nc && gr->nsh < MAX_SHAPES; k++) {
        struct shape *x = &gr->sh[gr->nsh];
        x->h = hs[i];
        x->w = j == 0 ? 0 : ws[j]; /* 0: whole rows */
        x->c = cs[k];
        x->steps = (ha < 0 ? 1 : (t->dims[ha] + x->h - 1) / x->h) *
                   (x->w <= 0 ? 1 : (t->dims[wa] + x->w - 1) / x->w) *
                   (ca < 0 ? 1 : (t->dims[ca] + x->c - 1) / x->c);
        x->spatial = i > 0 || j > 0;
        x->chan = k > 0;
        /* max_stripes bounds the plans where an H axis trades memory
         * against stripes; a fully connected layer has only channels. */
        if (x->steps <= o->max_stripes || ha < 0)
          gr->nsh++;
      }
  if (o->modes == 0 && g->nparts <= 10) {
    for (uint32_t m = 0; m <= all; m++)
      gr->masks[gr->nmasks++] = m;
  } else {
    if (o->modes != 3)
      gr->masks[gr->nmasks++] = 0;
    if (o->modes != 2)
      gr->masks[gr->nmasks++] = all;
  }
}

static int plan_push(struct acs_cas_plan **v, int32_t *n, size_t *cap, const struct acs_cas_plan *p)
{
  if (acs_grow((void **)v, sizeof(**v), cap, (size_t)*n + 1) < 0)
    return ACS_ENOMEM;
  (*v)[(*n)++] = *p;
  return ACS_OK;
}

static int cmp_plan(const void *x, const void *y)
{
  const struct acs_cas_plan *a = x, *b = y;
#define CMP(f)                                                                                     \
  if (a->f != b->f)                                                                                \
    return a->f < b->f ? -1 : 1;
  CMP(out_home) CMP(mem) CMP(cycles) CMP(ddr_bytes) CMP(h) CMP(w) CMP(c) CMP(chan_major) CMP(nbuf)
  CMP(rolling)
#undef CMP
  return 0;
}

int32_t acs_cas_pareto(struct acs_cas_plan *p, int32_t n)
{
  int32_t k = 0;

  if (n < 2)
    return n;
  qsort(p, (size_t)n, sizeof(*p), cmp_plan);
  for (int32_t i = 0; i < n; i++)
    if (k == 0 || p[i].out_home != p[k - 1].out_home || p[i].cycles < p[k - 1].cycles)
      p[k++] = p[i];
  return k;
}

int acs_cas_plans(const struct acs_cas_env *env, const struct acs_cas_opts *o,
                  const struct acs_cas_group *g, uint32_t in_cmx, int cull,
                  const volatile sig_atomic_t *interrupted,
                  struct acs_cas_plan **out, int32_t *n)
{
  struct grid *gr = malloc(sizeof(*gr));
  struct acs_cas_plan *v = NULL, p;
  struct acs_cas_regions rc = {0};
  size_t cap = 0;
  int err = ACS_OK;

  *n = 0;
  if (!gr)
    return ACS_ENOMEM;
  grid_make(env, o, g, gr);
  memset(&p, 0, sizeof(p));
  p.first = g->first;
  p.nparts = g->nparts;
  p.in_cmx = in_cmx;
  /* Buffering and output home innermost: their plans share pass 1 (rc). */
  for (int k = 0; k < gr->nsh && err == ACS_OK; k++)
    for (int cm = 0; cm < 2 && err == ACS_OK; cm++)
      for (int m = 0; m < gr->nmasks && err == ACS_OK; m++)
        for (int nb = 1; nb <= 2 && err == ACS_OK; nb++)
          for (int home = 0; home < 2 && err == ACS_OK; home++) {
            const struct shape *x = &gr->sh[k];
            if (interrupted && *interrupted) {
              err = ACS_EINTERRUPTED;
              break;
            }
            if ((cm && !(x->spatial && x->chan)) ||
                (home == ACS_CAS_HOME_CMX && (g->out_is_net || g->next_last < 0)) ||
                (x->steps == 1 && (nb == 2 || gr->masks[m] != 0)))
              continue; /* the same plan as another, or one stripe: buffering changes nothing */
            p.h = x->h;
            p.w = x->w;
            p.c = x->c;
            p.chan_major = (uint8_t)cm;
            p.nbuf = (uint8_t)nb;
            p.out_home = (uint8_t)home;
            p.rolling = gr->masks[m];
            /* Culled: a plan dominated by one already walked is dropped
             * as soon as that is sure (acs_cas_walk_known). */
            if ((err = acs_cas_walk_known(env, g, &p, v, cull ? *n : 0, &rc)) == ACS_OK)
              err = plan_push(&v, n, &cap, &p);
            else if (err == ACS_CAS_OVER)
              err = ACS_OK;
          }
  free(gr);
  acs_cas_regions_free(&rc);
  if (err < 0) {
    free(v);
    *n = 0;
    return err;
  }
  if (cull)
    *n = acs_cas_pareto(v, *n);
  *out = v;
  return ACS_OK;
}
