/*
 * lower.c - a modulo schedule as N iterations of the pipelined loop in the
 * common schedule, and the family's result tables.
 *
 * Iteration k of loop op i starts at t_i + k II: the first iterations fill
 * the pipeline (prologue), the middle ones overlap stages-deep (kernel),
 * the last ones drain it (epilogue). Each graph op of the unrolled loop
 * (core/model/loop.h) gets its start from its loop op: the issue at
 * t_i + k II, the latency tail or blocking hold right after the issue, the
 * delay chain from the moment the result is ready. O(N (V + E)).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/modulo/modulo_int.h"

int acs__modulo_lower(const struct acs_loop *l, const struct acs_loop_layout *lay,
                      const struct acs_mresult *r, struct acs_schedule *out, struct acs_diag *d)
{
  int64_t total;
  char want[ACS_NAME_MAX + 32];

  if (acs_mul_i64(lay->per_iter, lay->iterations, &total) || total != out->norig)
    return acs_diag_set(d, ACS_EINVAL, l->path, 0, 0,
                        "modulo: the problem's graph has %d ops, not the %lld of %d iterations "
                        "of loop '%s'", (int)out->norig, (long long)total, (int)lay->iterations,
                        l->name);
  /* The graph must be this loop's unrolling: check the first op's name. */
  if (l->nops > 0) {
    snprintf(want, sizeof(want), "%s@0", l->ops[0].name);
    if (strcmp(out->ops[lay->first[0]].name, want) != 0)
      return acs_diag_set(d, ACS_EINVAL, l->path, 0, 0,
                          "modulo: graph op '%s' is not '%s': not this loop's unrolling",
                          out->ops[lay->first[0]].name, want);
  }
  for (int32_t k = 0; k < lay->iterations; k++)
    for (int32_t i = 0; i < l->nops; i++) {
      int32_t base = k * lay->per_iter + lay->first[i];
      int32_t nd = lay->delay_off[i + 1] - lay->delay_off[i];
      int32_t parts = lay->first[i + 1] - lay->first[i] - nd;
      int32_t ready_op = k * lay->per_iter + acs_loop_layout_source(lay, l, i, 0);
      int64_t start = r->t[i] + (int64_t)k * r->ii, at;
      struct acs_sop *o = &out->ops[base];
      o->start = start;
      o->end = start + o->dur;
      if (parts == 2) {
        o[1].start = o->end;
        o[1].end = o[1].start + o[1].dur;
      }
      at = out->ops[ready_op].end;
      for (int32_t q = 0; q < nd; q++) {
        struct acs_sop *w = &out->ops[base + parts + q];
        w->start = at;
        w->end = at + w->dur;
        at = w->end;
      }
    }
  acs_schedule_finish(out);
  return ACS_OK;
}

/* ---- tables ---- */

static int attr_i(struct acs_rtab *t, const char *name, int64_t v)
{
  return acs_rtab_attr_i64(t, name, v);
}

/* `modulo`: one row per loop op. */
static int op_table(const struct acs_msp *m, const struct acs_mresult *r,
                    const struct acs_loop_layout *lay, struct acs_schedule *out)
{
  static const struct acs_rtab_col cols[] = {
    {"op", ACS_RTAB_STR, NULL},       {"class", ACS_RTAB_STR, NULL},
    {"start", ACS_RTAB_I64, "cycles"}, {"stage", ACS_RTAB_I64, NULL},
    {"slot", ACS_RTAB_I64, "cycles"},  {"unit", ACS_RTAB_I64, NULL},
  };
  const struct acs_loop *l = m->loop;
  struct acs_rtab *t;
  int err;

  if ((err = acs_schedule_add_rtab(out, "modulo", cols, 6, &t)) < 0)
    return err;
  t->show = 1;
  for (int32_t i = 0; i < m->n && err == ACS_OK; i++) {
    int64_t row = acs_rtab_add_row(t);
    if (row < 0)
      return (int)row;
    err = acs_rtab_set_str(t, row, 0, l->ops[i].name);
    if (err == ACS_OK)
      err = acs_rtab_set_str(t, row, 1, l->classes[m->cls[i]].name);
    if (err == ACS_OK)
      err = acs_rtab_set_i64(t, row, 2, r->t[i]);
    if (err == ACS_OK)
      err = acs_rtab_set_i64(t, row, 3, r->t[i] / r->ii);
    if (err == ACS_OK)
      err = acs_rtab_set_i64(t, row, 4, r->t[i] % r->ii);
    if (err == ACS_OK)
      err = acs_rtab_set_i64(t, row, 5, r->unit[i]);
  }
  if (err == ACS_OK)
    err = attr_i(t, "ii", r->ii);
  if (err == ACS_OK)
    err = attr_i(t, "mii", r->mii.mii);
  if (err == ACS_OK)
    err = attr_i(t, "res_mii", r->mii.res);
  if (err == ACS_OK)
    err = attr_i(t, "rec_mii", r->mii.rec);
  if (err == ACS_OK)
    err = attr_i(t, "fine_mii", r->mii.fine);
  if (err == ACS_OK)
    err = attr_i(t, "dep_mii", r->mii.dep);
  if (err == ACS_OK)
    err = attr_i(t, "stages", r->stages);
  if (err == ACS_OK)
    err = attr_i(t, "depth", r->depth);
  if (err == ACS_OK)
    err = attr_i(t, "proven", r->proven);
  if (err == ACS_OK)
    err = attr_i(t, "iterations", lay->iterations);
  if (err == ACS_OK)
    err = acs_rtab_attr_str(t, "method", r->how);
  return err;
}

/* `modulo_units`: per limited class, what the schedule uses of it. */
static int unit_table(const struct acs_msp *m, const struct acs_mresult *r, struct acs_schedule *out)
{
  static const struct acs_rtab_col cols[] = {
    {"class", ACS_RTAB_STR, NULL}, {"units", ACS_RTAB_I64, NULL},
    {"ops", ACS_RTAB_I64, NULL},   {"blocking", ACS_RTAB_I64, "cycles"},
    {"busiest", ACS_RTAB_I64, NULL}, {"bound", ACS_RTAB_I64, NULL},
  };
  const struct acs_loop *l = m->loop;
  int64_t *count = calloc((size_t)r->ii + 1, sizeof(*count));
  struct acs_rtab *t;
  int err;

  if (!count)
    return ACS_ENOMEM;
  err = acs_schedule_add_rtab(out, "modulo_units", cols, 6, &t);
  if (err == ACS_OK)
    t->show = 1;
  for (int32_t c = 0; c < m->nclasses && err == ACS_OK; c++) {
    int64_t n = 0, occ = 0, busiest = 0, row;
    for (int32_t i = 0; i < m->n; i++)
      if (m->cls[i] == c)
        n++;
    if (n == 0)
      continue;
    memset(count, 0, (size_t)r->ii * sizeof(*count));
    occ = acs_loop_blocking(l, c, m->units[c]);
    for (int32_t i = 0; i < m->n; i++)
      if (m->cls[i] == c)
        for (int64_t k = 0; k < (occ ? occ : 1); k++)
          count[(r->t[i] + k) % r->ii]++;
    for (int64_t x = 0; x < r->ii; x++)
      if (count[x] > busiest)
        busiest = count[x];
    if ((row = acs_rtab_add_row(t)) < 0) {
      err = (int)row;
      break;
    }
    err = acs_rtab_set_str(t, row, 0, l->classes[c].name);
    if (err == ACS_OK)
      err = acs_rtab_set_i64(t, row, 1, m->units[c]);
    if (err == ACS_OK)
      err = acs_rtab_set_i64(t, row, 2, n);
    if (err == ACS_OK)
      err = acs_rtab_set_i64(t, row, 3, occ);
    if (err == ACS_OK)
      err = acs_rtab_set_i64(t, row, 4, busiest);
    /* The fewest units any schedule at this II needs: ceil(n occ / II),
     * and at least ceil(n / floor(II / occ)) with units kept per op. */
    if (err == ACS_OK) {
      int64_t need = 0;
      if (occ > 0) {
        int64_t per = r->ii / occ;
        need = (n * occ + r->ii - 1) / r->ii;
        if (per > 0 && (n + per - 1) / per > need)
          need = (n + per - 1) / per;
      }
      err = acs_rtab_set_i64(t, row, 5, need);
    }
  }
  free(count);
  return err;
}

/* `modulo_tries`: every II tried, and for failures the seed's diagnostics. */
static int try_table(const struct acs_msp *m, const struct acs_mresult *r, int show,
                     struct acs_schedule *out)
{
  static const struct acs_rtab_col cols[] = {
    {"ii", ACS_RTAB_I64, "cycles"}, {"result", ACS_RTAB_STR, NULL},
    {"by", ACS_RTAB_STR, NULL},     {"op", ACS_RTAB_STR, NULL},
    {"footprint", ACS_RTAB_I64, "cycles"}, {"window", ACS_RTAB_STR, "cycles"},
    {"pool", ACS_RTAB_STR, NULL},   {"rows", ACS_RTAB_STR, NULL},
    {"busy", ACS_RTAB_I64, NULL},   {"group", ACS_RTAB_I64, NULL},
    {"stage", ACS_RTAB_I64, NULL},  {"order", ACS_RTAB_I64, NULL},
  };
  const struct acs_loop *l = m->loop;
  struct acs_rtab *t;
  int err = acs_schedule_add_rtab(out, "modulo_tries", cols, 12, &t);

  if (err < 0)
    return err;
  t->show = show;
  for (size_t k = 0; k < r->ntries && err == ACS_OK; k++) {
    const struct acs_mtry *x = &r->tries[k];
    const struct acs_mfail *f = &x->fail;
    char buf[64];
    int64_t row = acs_rtab_add_row(t);
    if (row < 0)
      return (int)row;
    err = acs_rtab_set_i64(t, row, 0, x->ii);
    if (err == ACS_OK)
      err = acs_rtab_set_str(t, row, 1, x->ok > 0 ? "ok" : x->ok < 0 ? "infeasible" : "failed");
    if (err == ACS_OK)
      err = acs_rtab_set_str(t, row, 2, x->how);
    /* Numbers that do not apply (no failure, or no op to blame) are -1. */
    for (int32_t c = 4; c < 12 && err == ACS_OK; c++)
      if (cols[c].type == ACS_RTAB_I64)
        err = acs_rtab_set_i64(t, row, c, -1);
    if (err == ACS_OK && x->ok == 0 && f->set && f->op >= 0) {
      err = acs_rtab_set_str(t, row, 3, l->ops[f->op].name);
      if (err == ACS_OK)
        err = acs_rtab_set_i64(t, row, 4, f->occ);
      if (err == ACS_OK) {
        if (f->hi == INT64_MAX)
          snprintf(buf, sizeof(buf), "[%lld, inf)", (long long)f->lo);
        else
          snprintf(buf, sizeof(buf), "[%lld, %lld]", (long long)f->lo, (long long)f->hi);
        err = acs_rtab_set_str(t, row, 5, f->hi < f->lo ? "empty" : buf);
      }
      if (err == ACS_OK && f->pool >= 0) {
        err = acs_rtab_set_str(t, row, 6, l->classes[f->pool].name);
        snprintf(buf, sizeof(buf), "%lld..%lld", (long long)f->row_lo, (long long)f->row_hi);
        if (err == ACS_OK)
          err = acs_rtab_set_str(t, row, 7, buf);
        if (err == ACS_OK)
          err = acs_rtab_set_i64(t, row, 8, f->load);
      }
      if (err == ACS_OK)
        err = acs_rtab_set_i64(t, row, 9, f->group);
      if (err == ACS_OK)
        err = acs_rtab_set_i64(t, row, 10, f->stage);
      if (err == ACS_OK)
        err = acs_rtab_set_i64(t, row, 11, f->order);
    }
  }
  return err;
}

int acs__modulo_tables(const struct acs_msp *m, const struct acs_mresult *r,
                       const struct acs_loop_layout *lay, int verbose, struct acs_schedule *out)
{
  int err = op_table(m, r, lay, out);

  if (err == ACS_OK)
    err = unit_table(m, r, out);
  if (err == ACS_OK)
    err = try_table(m, r, verbose || r->ii > r->mii.mii, out);
  return err;
}
