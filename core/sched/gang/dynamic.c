/*
 * dynamic.c - the dynamic gang: the partition and mapping the naive-list
 * baseline implies (the whole graph as one gang whose kernels are loaded
 * on demand, one per PE at a time, and whose firings go to whichever PE
 * holds the kernel), scheduled by that baseline's rules.
 *
 * Gangs as the thesis builds them cannot express that schedule: a gang's
 * kernels stay loaded for the whole gang and each actor fires on one PE.
 * On graphs whose actors fire a handful of times per run (SDF3's) the
 * dynamic schedule can be the shortest, so `gang` considers it as one more
 * candidate partition: it runs naive-list's engine with its own best
 * makespan as the limit, as a probe that records no buffers, and keeps the
 * dynamic gang (re-run with every buffer) only when it ends strictly
 * earlier. The engine stops as soon as its clock, or its DMA's unavoidable
 * remaining work added to it, reaches the limit (naive.c), so on graphs
 * where the gangs win by far the probe costs a fraction of a full run.
 * That is why `gang` is never behind naive-list, whatever the graph.
 *
 * Its control program lists every activity at its time (section
 * "dynamic"): the kernel loads where the schedule makes them, then
 * start_P/sync_P and start_T/sync_T as for any gang. It is not compact (no
 * loop), which is the price the pipelined gangs avoid; ties keep them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gang.h"

int acs_gang_dynamic_try(struct acs_gang_ctx *c, struct acs_gang_part *pt)
{
  struct acs_gang_plan *pl = malloc(sizeof(*pl));
  struct acs_diag scratch;
  int done = 0, err;

  if (!pl)
    return ACS_ENOMEM;
  acs_gang_plan_init(pl);
  acs_diag_init(&scratch);
  /* A probe first (no buffers recorded, stopped at the limit); the plan
   * itself only when it wins (the engine is deterministic). */
  err = acs_gang_naive_within(c, pt->makespan, 1, pl, &done, &scratch);
  if (err == ACS_OK && done && pl->makespan < pt->makespan) {
    acs_gang_plan_free(pl);
    err = acs_gang_naive_within(c, 0, 0, pl, &done, &scratch);
  }
  if (err == ACS_EINFEASIBLE)
    err = ACS_OK;   /* its rules cannot finish this graph: not a candidate */
  if (err < 0 || !done || pl->makespan >= pt->makespan) {
    acs_gang_plan_free(pl);
    free(pl);
    return err < 0 ? err : ACS_OK;
  }
  for (int32_t i = 0; i < pt->ngangs; i++)
    acs_gang_free(&pt->gangs[i]);
  free(pt->gangs);
  pt->gangs = NULL;
  pt->ngangs = 0;
  pt->dyn = pl;
  pt->makespan = pl->makespan;
  for (int32_t i = 0; i < pl->nacts; i++)
    pl->acts[i].gang = 0;
  return ACS_OK;
}

int acs_gang_dyn_emit(const struct acs_gang_plan *dyn, struct acs_gang_plan *pl)
{
  int err;

  for (int32_t i = 0; i < dyn->nacts; i++)
    if (acs_gang_plan_add_act(pl, &dyn->acts[i]) < 0)
      return ACS_ENOMEM;
  for (int32_t i = 0; i < dyn->nbufs; i++)
    if ((err = acs_gang_plan_add_buf(pl, &dyn->bufs[i])) < 0)
      return err;
  pl->makespan = dyn->makespan;
  return ACS_OK;
}

/* ---- the control program ---- */

/* An instruction: activity i of the plan, its start (sync = 0) or its end. */
struct dinstr {
  int32_t act;
  int sync;
  int64_t time;
};

static int cmp_dinstr(const void *x, const void *y)
{
  const struct dinstr *a = x, *b = y;

  if (a->time != b->time)
    return a->time < b->time ? -1 : 1;
  if (a->sync != b->sync)
    return a->sync ? -1 : 1;   /* syncs first: they free what the starts need */
  return (a->act > b->act) - (a->act < b->act);
}

/* Instructions of the plan in event order (eq. 3.7); a load has no sync. */
static int build(const struct acs_gang_plan *dyn, struct dinstr **out, size_t *n)
{
  struct dinstr *v = malloc(2 * ((size_t)dyn->nacts + 1) * sizeof(*v));

  if (!v)
    return ACS_ENOMEM;
  *n = 0;
  for (int32_t i = 0; i < dyn->nacts; i++) {
    v[(*n)++] = (struct dinstr){ i, 0, dyn->acts[i].start };
    if (dyn->acts[i].kind != ACS_GANG_LOAD)
      v[(*n)++] = (struct dinstr){ i, 1, dyn->acts[i].end };
  }
  qsort(v, *n, sizeof(*v), cmp_dinstr);
  *out = v;
  return ACS_OK;
}

static const char *instr_of(const struct acs_gang_act *a, int sync)
{
  if (a->kind == ACS_GANG_LOAD)
    return acs_gang_instr_name(ACS_GANG_I_LOAD);
  if (a->kind == ACS_GANG_FIRE)
    return acs_gang_instr_name(sync ? ACS_GANG_I_SYNC_P : ACS_GANG_I_START_P);
  return acs_gang_instr_name(sync ? ACS_GANG_I_SYNC_T : ACS_GANG_I_START_T);
}

/* Unit and operand as the gang programs name them (a load names its PE). */
static void names_of(const struct acs_gang_ctx *c, const struct acs_gang_act *a, char *unit,
                     size_t usz, char *op, size_t osz)
{
  const char *cn = a->chan >= 0 ? c->g->channels[a->chan].name : "";

  if (a->kind == ACS_GANG_FIRE) {
    snprintf(unit, usz, "pe%d", (int)a->unit);
    snprintf(op, osz, "%s", c->g->actors[a->actor].name);
    return;
  }
  snprintf(unit, usz, "dma%d", (int)a->unit);
  if (a->kind == ACS_GANG_LOAD)
    snprintf(op, osz, "%s>pe%d", c->g->actors[a->actor].name, (int)a->pe);
  else if (a->xk == ACS_GANG_X_LOCAL)
    snprintf(op, osz, "%s:pe%d>pe%d", cn, (int)a->pe_from, (int)a->pe);
  else if (a->xk == ACS_GANG_X_IN)
    snprintf(op, osz, "%s:ddr>pe%d", cn, (int)a->pe);
  else
    snprintf(op, osz, "%s:pe%d>ddr", cn, (int)a->pe_from);
}

int acs_gang_dyn_program_text(FILE *f, const struct acs_gang_ctx *c,
                              const struct acs_gang_plan *dyn)
{
  struct dinstr *v;
  size_t n;
  int err;

  if ((err = build(dyn, &v, &n)) < 0)
    return err;
  fprintf(f, "# acsim control program (seed 004): graph %s, the dynamic gang, makespan %lld "
             "cycles\n# one instruction per line: INSTRUCTION UNIT OPERAND[INDEX] @TIME\n",
          c->g->name, (long long)dyn->makespan);
  fprintf(f, "\nGANG 0  dynamic: kernels loaded on demand  %lld cycles\n#dynamic\n",
          (long long)dyn->makespan);
  for (size_t i = 0; i < n; i++) {
    const struct acs_gang_act *a = &dyn->acts[v[i].act];
    char unit[32], op[512];
    names_of(c, a, unit, sizeof(unit), op, sizeof(op));
    if (a->kind == ACS_GANG_LOAD)
      fprintf(f, "  LOAD      %-6s %s @%lld\n", unit, op, (long long)v[i].time);
    else
      fprintf(f, "  %-9s %-6s %s[%lld] @%lld\n", instr_of(a, v[i].sync), unit, op,
              (long long)a->k, (long long)v[i].time);
  }
  free(v);
  return ferror(f) ? ACS_EIO : ACS_OK;
}

/* ---- tables ---- */

/* Actors with the PEs they fired on ("a@pe0+pe2,b@pe1"); the busiest PE or
 * DMA channel (the dynamic gang's cost bound) and the load cycles. */
static void summary(const struct acs_gang_ctx *c, const struct acs_gang_plan *dyn, char *names,
                    size_t size, int64_t *busiest, int64_t *loads)
{
  int32_t npe = c->xp.npe, nh = npe + c->xp.ndma;
  int64_t busy[256] = { 0 };
  size_t used = 0;

  *loads = 0;
  names[0] = '\0';
  for (int32_t i = 0; i < dyn->nacts; i++) {
    const struct acs_gang_act *a = &dyn->acts[i];
    int32_t h = a->kind == ACS_GANG_FIRE ? a->unit : npe + a->unit;
    if (h >= 0 && h < nh && h < 256)
      busy[h] += a->end - a->start;
    if (a->kind == ACS_GANG_LOAD)
      *loads += a->end - a->start;
  }
  *busiest = 0;
  for (int32_t h = 0; h < nh && h < 256; h++)
    if (busy[h] > *busiest)
      *busiest = busy[h];
  for (int32_t x = 0; x < c->g->nactors && used < size - 1; x++) {
    uint64_t pes = 0;
    for (int32_t i = 0; i < dyn->nacts; i++)
      if (dyn->acts[i].kind == ACS_GANG_FIRE && dyn->acts[i].actor == x && dyn->acts[i].unit < 64)
        pes |= (uint64_t)1 << dyn->acts[i].unit;
    for (int32_t p = 0, first = 1; p < 64 && used < size - 1; p++)
      if (pes >> p & 1) {
        int w = snprintf(names + used, size - used, "%s%s%s%d", first && used ? "," : "",
                         first ? c->g->actors[x].name : "", first ? "@pe" : "+pe", (int)p);
        if (w < 0)
          return;
        used += (size_t)w;
        first = 0;
      }
  }
}

static int gangs_row(const struct acs_gang_ctx *c, const struct acs_gang_plan *dyn,
                     struct acs_schedule *s)
{
  struct acs_rtab *t;
  char names[1024];
  int64_t busiest, loads, row;
  int err;

  if ((err = acs_gang_rtab_add(s, ACS_GANG_RTAB_GANGS, &t)) < 0)
    return err;
  summary(c, dyn, names, sizeof(names), &busiest, &loads);
  if ((row = acs_rtab_add_row(t)) < 0)
    return (int)row;
  acs_rtab_set_i64(t, row, 0, 0);
  acs_rtab_set_str(t, row, 1, names);
  for (int32_t col = 2; col <= 4; col++)
    acs_rtab_set_i64(t, row, col, 0);
  acs_rtab_set_f64(t, row, 5, 0.0 / 0.0);
  acs_rtab_set_i64(t, row, 6, loads);
  acs_rtab_set_i64(t, row, 7, dyn->makespan);
  acs_rtab_set_i64(t, row, 8, 0);
  acs_rtab_set_i64(t, row, 9, dyn->makespan);
  acs_rtab_set_i64(t, row, 10, busiest);
  acs_rtab_set_i64(t, row, 11, 0);
  acs_rtab_set_i64(t, row, 12, 0);
  acs_rtab_set_str(t, row, 13, acs_gang_mode_name(ACS_GANG_MODE_DYNAMIC));
  acs_rtab_attr_i64(t, "gangs", 1);
  acs_rtab_attr_i64(t, "makespan", dyn->makespan);
  return ACS_OK;
}

/* One row per actor; pe -1: the kernel moves between PEs on demand. */
static int partition_rows(const struct acs_gang_ctx *c, struct acs_schedule *s)
{
  struct acs_rtab *t;
  int err;

  if ((err = acs_gang_rtab_add(s, ACS_GANG_RTAB_PARTITION, &t)) < 0)
    return err;
  for (int32_t a = 0; a < c->g->nactors; a++) {
    int64_t row = acs_rtab_add_row(t);
    if (row < 0)
      return (int)row;
    acs_rtab_set_str(t, row, 0, c->g->actors[a].name);
    acs_rtab_set_i64(t, row, 1, 0);
    acs_rtab_set_i64(t, row, 2, -1);
    acs_rtab_set_i64(t, row, 3, c->g->actors[a].kernel_bytes);
    acs_rtab_set_i64(t, row, 4, c->g->actors[a].total);
  }
  return ACS_OK;
}

static int program_rows(const struct acs_gang_ctx *c, const struct acs_gang_plan *dyn,
                        struct acs_schedule *s)
{
  struct acs_rtab *t;
  struct dinstr *v;
  size_t n;
  int err;

  if ((err = build(dyn, &v, &n)) < 0)
    return err;
  if ((err = acs_gang_rtab_add(s, ACS_GANG_RTAB_PROGRAM, &t)) < 0)
    goto out_with_program;
  for (size_t i = 0; i < n; i++) {
    const struct acs_gang_act *a = &dyn->acts[v[i].act];
    char unit[32], op[512];
    int64_t row = acs_rtab_add_row(t);
    if (row < 0) {
      err = (int)row;
      goto out_with_program;
    }
    names_of(c, a, unit, sizeof(unit), op, sizeof(op));
    acs_rtab_set_i64(t, row, 0, 0);
    acs_rtab_set_str(t, row, 1, "dynamic");
    acs_rtab_set_str(t, row, 2, unit);
    acs_rtab_set_str(t, row, 3, instr_of(a, v[i].sync));
    acs_rtab_set_str(t, row, 4, op);
    acs_rtab_set_i64(t, row, 5, a->kind == ACS_GANG_LOAD ? 0 : a->k);
    acs_rtab_set_i64(t, row, 6, 0);
    acs_rtab_set_i64(t, row, 7, v[i].time);
  }
  acs_rtab_attr_i64(t, "instructions", (int64_t)n);
out_with_program:
  free(v);
  return err;
}

int acs_gang_dyn_tables(const struct acs_gang_ctx *c, const struct acs_gang_plan *dyn,
                        struct acs_schedule *s)
{
  int err;

  if ((err = gangs_row(c, dyn, s)) < 0 || (err = partition_rows(c, s)) < 0)
    return err;
  return program_rows(c, dyn, s);
}

/*
 * The program against the plan: non-decreasing times, every activity of
 * the plan started once at its time, and every firing after a load of its
 * kernel onto its PE earlier in the program that is not evicted before the
 * firing ends (eq. 3.8). O(I log I + F) for I instructions.
 */
int acs_gang_dyn_program_verify(const struct acs_gang_ctx *c, const struct acs_gang_plan *dyn,
                                const struct acs_gang_plan *pl, struct acs_diag *d)
{
  struct dinstr *v;
  size_t n, starts = 0;
  int32_t *loaded = calloc(((size_t)c->g->nactors + 1) * ((size_t)c->xp.npe + 1), sizeof(int32_t));
  int err;

  if (!loaded)
    return ACS_ENOMEM;
  if ((err = build(dyn, &v, &n)) < 0) {
    free(loaded);
    return err;
  }
  for (size_t i = 0; i < n && err == ACS_OK; i++) {
    const struct acs_gang_act *a = &dyn->acts[v[i].act];
    if (i > 0 && v[i].time < v[i - 1].time)
      err = acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0, "control program: instruction %zu goes "
                         "back in time", i);
    else if (v[i].sync)
      continue;
    else if (v[i].act >= pl->nacts || pl->acts[v[i].act].start != v[i].time)
      err = acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0, "control program: activity %d does not "
                         "start at %lld in the schedule", (int)v[i].act, (long long)v[i].time);
    else if (a->kind == ACS_GANG_LOAD)
      loaded[a->actor * (c->xp.npe + 1) + a->pe] = v[i].act + 1;
    else if (a->kind == ACS_GANG_FIRE) {
      int32_t l = loaded[a->actor * (c->xp.npe + 1) + a->unit] - 1;
      if (l < 0 || dyn->acts[l].end > a->start || dyn->acts[l].evict < a->end)
        err = acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0, "control program: '%s' fires on pe%d at "
                           "%lld without its kernel loaded there (eq. 3.8)",
                           c->g->actors[a->actor].name, (int)a->unit, (long long)a->start);
    }
    starts += !v[i].sync;
  }
  if (err == ACS_OK && starts != (size_t)pl->nacts)
    err = acs_diag_set(d, ACS_EVERIFY, NULL, 0, 0, "control program: it starts %zu activities, "
                       "the schedule has %d", starts, (int)pl->nacts);
  free(v);
  free(loaded);
  return err;
}
