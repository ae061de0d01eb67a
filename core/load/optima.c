/*
 * optima.c - known optima and bounds of benchmark sets (PSPLIB result
 * tables, STG optimal-length CSVs), with located errors. O(file) to read,
 * O(n) per lookup.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/load/optima.h"

void acs_optima_init(struct acs_optima *o)
{
  memset(o, 0, sizeof(*o));
  acs_arena_init(&o->arena);
}

void acs_optima_free(struct acs_optima *o)
{
  free(o->v);
  acs_arena_destroy(&o->arena);
  memset(o, 0, sizeof(*o));
}

static int push(struct acs_optima *o, const struct acs_optimum *e)
{
  if (acs_grow((void **)&o->v, sizeof(*o->v), &o->cap, o->n + 1) < 0)
    return ACS_ENOMEM;
  o->v[o->n++] = *e;
  return ACS_OK;
}

const struct acs_optimum *acs_optima_find_psplib(const struct acs_optima *o, int32_t group,
                                                 int32_t inst)
{
  for (size_t i = 0; i < o->n; i++)
    if (!o->v[i].key && o->v[i].group == group && o->v[i].inst == inst)
      return &o->v[i];
  return NULL;
}

const struct acs_optimum *acs_optima_find_stg(const struct acs_optima *o, const char *key,
                                              int32_t procs)
{
  for (size_t i = 0; i < o->n; i++)
    if (o->v[i].key && o->v[i].procs == procs && strcmp(o->v[i].key, key) == 0)
      return &o->v[i];
  return NULL;
}

int acs_optima_psplib_name(const char *path, const char *set, int32_t *group, int32_t *inst)
{
  const char *base = strrchr(path, '/'), *p;
  size_t n = strlen(set);
  long g, i;
  char *end;

  base = base ? base + 1 : path;
  if (strncmp(base, set, n) != 0 || !isdigit((unsigned char)base[n]))
    return -1;
  p = base + n;
  g = strtol(p, &end, 10);
  if (*end != '_' || !isdigit((unsigned char)end[1]))
    return -1;
  i = strtol(end + 1, &end, 10);
  if (strcmp(end, ".sm") != 0 || g < 0 || i < 0 || g > INT32_MAX || i > INT32_MAX)
    return -1;
  *group = (int32_t)g;
  *inst = (int32_t)i;
  return 0;
}

/* ---- PSPLIB tables ------------------------------------------------------- */

enum { COLS_EXACT, COLS_BOUNDS, COLS_UPPER };

struct sm_table {
  const char *path;
  struct acs__lines lr;
  int kind;                 /* COLS_* */
  size_t c_value, c_lb;     /* Makespan or UB column; LB column */
};

/* Reads the header row's column names; 1 when this line is the header. */
static int sm_header(struct sm_table *t, struct acs_diag *d)
{
  int have_cpu = 0;
  size_t c_mk = 0, c_ub = 0, c_lb = 0;

  if (t->lr.ntok == 0 || strncasecmp(t->lr.tok[0].s, "par", 3) != 0)
    return 0;
  for (size_t k = 1; k < t->lr.ntok; k++) {
    const char *s = t->lr.tok[k].s;
    if (strcasecmp(s, "makespan") == 0 && !c_mk)
      c_mk = k;
    else if (strcasecmp(s, "ub") == 0 && !c_ub)
      c_ub = k;
    else if (strcasecmp(s, "lb") == 0 && !c_lb)
      c_lb = k;
    else if (strncasecmp(s, "cpu", 3) == 0)
      have_cpu = 1;
  }
  if (c_ub && c_lb) {
    t->kind = COLS_BOUNDS;
    t->c_value = c_ub;
    t->c_lb = c_lb;
  } else if (c_mk) {
    t->kind = have_cpu ? COLS_EXACT : COLS_UPPER;
    t->c_value = c_mk;
  } else {
    return acs_diag_set(d, ACS_EPARSE, t->path, t->lr.line, t->lr.tok[0].col,
                        "optima table header names neither Makespan nor UB and LB columns");
  }
  return 1;
}

static int sm_int(struct sm_table *t, size_t k, const char *what, int64_t *out,
                  struct acs_diag *d)
{
  if (k >= t->lr.ntok) {
    const struct acs__tok *last = &t->lr.tok[t->lr.ntok - 1];
    return acs_diag_set(d, ACS_EPARSE, t->path, t->lr.line,
                        last->col + (int)strlen(last->s), "missing %s", what);
  }
  return acs__tok_int(t->path, t->lr.line, &t->lr.tok[k], what, 0, ACS_QTY_MAX, out, d);
}

static int sm_row(struct sm_table *t, struct acs_optima *o, struct acs_diag *d)
{
  struct acs_optimum e = { -1, -1, NULL, -1, -1, -1, t->lr.line };
  const struct acs_optimum *dup;
  int64_t g, i, v, lb = -1;
  int err;

  if ((err = sm_int(t, 0, "the parameter group", &g, d)) < 0 ||
      (err = sm_int(t, 1, "the instance", &i, d)) < 0 ||
      (err = sm_int(t, t->c_value, t->kind == COLS_BOUNDS ? "UB" : "the makespan", &v, d)) < 0)
    return err;
  if (t->kind == COLS_BOUNDS && (err = sm_int(t, t->c_lb, "LB", &lb, d)) < 0)
    return err;
  if (g > INT32_MAX || i > INT32_MAX)
    return acs_diag_set(d, ACS_EPARSE, t->path, t->lr.line, t->lr.tok[0].col,
                        "instance number out of range");
  if (t->kind == COLS_BOUNDS && lb > v)
    return acs_diag_set(d, ACS_EPARSE, t->path, t->lr.line, t->lr.tok[t->c_lb].col,
                        "LB %lld is above UB %lld", (long long)lb, (long long)v);
  dup = acs_optima_find_psplib(o, (int32_t)g, (int32_t)i);
  if (dup)
    return acs_diag_set(d, ACS_EPARSE, t->path, t->lr.line, t->lr.tok[0].col,
                        "instance %lld %lld is listed twice (first at line %d)",
                        (long long)g, (long long)i, dup->line);
  e.group = (int32_t)g;
  e.inst = (int32_t)i;
  e.upper = v;
  e.lower = t->kind == COLS_EXACT ? v : lb;
  return push(o, &e);
}

int acs_optima_load_psplib(const char *path, struct acs_optima *o, struct acs_diag *d)
{
  struct sm_table t;
  int rc, header = 0;

  memset(&t, 0, sizeof(t));
  t.path = path;
  if ((rc = acs__lines_open(&t.lr, path, d)) < 0)
    return rc;
  while ((rc = acs__lines_next(&t.lr, d)) > 0) {
    rc = acs__lines_split(&t.lr);
    if (rc < 0 || t.lr.ntok == 0)
      continue;
    if (!header) {
      rc = sm_header(&t, d);
      if (rc < 0)
        break;
      header = rc;
      continue;
    }
    if (!isdigit((unsigned char)t.lr.tok[0].s[0]))
      continue;
    if ((rc = sm_row(&t, o, d)) < 0)
      break;
  }
  if (rc == 0 && !header)
    rc = acs_diag_set(d, ACS_EPARSE, path, 0, 0,
                      "no header row (\"Par Inst Makespan ...\" or \"Par Inst UB LB\")");
  acs__lines_close(&t.lr);
  return rc < 0 ? rc : ACS_OK;
}

/* ---- STG CSVs --------------------------------------------------------------- */

struct stg_ctx {
  const char *path;
  struct acs_optima *o;
};

static int csv_int(const char *path, const struct acs_csv_field *f, const char *what,
                   int64_t min, int64_t *out, struct acs_diag *d)
{
  return acs__parse_int(path, f->line, f->col, f->text, what, min, ACS_QTY_MAX, out, d);
}

static int stg_record(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                      struct acs_diag *d)
{
  struct stg_ctx *c = ctx;
  struct acs_optimum e = { -1, -1, NULL, -1, -1, -1, line };
  const struct acs_optimum *dup;
  int64_t p, lo, hi;
  int err;

  if (n != 3 && n != 4)
    return acs_diag_set(d, ACS_EPARSE, c->path, line, n > 4 ? f[4].col : 1,
                        "expected 3 fields (instance, processors, optimum) or 4 "
                        "(instance, processors, lower, upper), got %zu", n);
  if (f[0].text[0] == '\0')
    return acs_diag_set(d, ACS_EPARSE, c->path, line, f[0].col, "empty instance name");
  if ((err = csv_int(c->path, &f[1], "the processors", 1, &p, d)) < 0 ||
      (err = csv_int(c->path, &f[2], n == 3 ? "the optimum" : "the lower bound", 0, &lo, d)) < 0)
    return err;
  hi = lo;
  if (n == 4 && (err = csv_int(c->path, &f[3], "the upper bound", 0, &hi, d)) < 0)
    return err;
  if (hi < lo)
    return acs_diag_set(d, ACS_EPARSE, c->path, line, f[3].col,
                        "upper bound %lld is below the lower bound %lld", (long long)hi,
                        (long long)lo);
  if (p > INT32_MAX)
    return acs_diag_set(d, ACS_EPARSE, c->path, line, f[1].col, "processors out of range");
  dup = acs_optima_find_stg(c->o, f[0].text, (int32_t)p);
  if (dup)
    return acs_diag_set(d, ACS_EPARSE, c->path, line, f[0].col,
                        "'%s' on %lld processors is listed twice (first at line %d)",
                        f[0].text, (long long)p, dup->line);
  e.key = acs_arena_strdup(&c->o->arena, f[0].text);
  if (!e.key)
    return ACS_ENOMEM;
  e.procs = (int32_t)p;
  e.lower = lo;
  e.upper = hi;
  return push(c->o, &e);
}

int acs_optima_load_stg(const char *path, struct acs_optima *o, struct acs_diag *d)
{
  struct stg_ctx c = { path, o };

  return acs_csv_read(path, stg_record, &c, d);
}
