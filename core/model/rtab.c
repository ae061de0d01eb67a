/*
 * rtab.c - family result tables (see rtab.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/rtab_int.h"
#include "core/model/schedule.h"

static const char *const common_tables[] = {"ops", "resources", "edges", "waits", NULL};

int acs_rtab_name_ok(const char *name)
{
  size_t n = name ? strlen(name) : 0;

  if (n == 0 || n > ACS_RTAB_NAME_MAX)
    return 0;
  for (size_t k = 0; k < n; k++) {
    char c = name[k];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '_'))
      return 0;
  }
  return 1;
}

/* Names the HDF5 layout uses itself (results_rtab.c). */
static int reserved_attr(const char *name)
{
  return strncmp(name, "FIELD_", 6) == 0 || strcmp(name, "acsim_show") == 0;
}

struct acs_rtab *acs_schedule_find_rtab(const struct acs_schedule *s, const char *name)
{
  for (int32_t k = 0; k < s->ntables; k++)
    if (strcmp(s->tables[k]->name, name) == 0)
      return s->tables[k];
  return NULL;
}

static int cols_ok(const struct acs_rtab_col *cols, int32_t ncols)
{
  if (ncols <= 0 || ncols > ACS_RTAB_MAX_COLS)
    return 0;
  for (int32_t c = 0; c < ncols; c++) {
    if (!acs_rtab_name_ok(cols[c].name) || cols[c].type < ACS_RTAB_I64 ||
        cols[c].type > ACS_RTAB_STR)
      return 0;
    for (int32_t k = 0; k < c; k++)
      if (strcmp(cols[k].name, cols[c].name) == 0)
        return 0;
  }
  return 1;
}

static int table_name_ok(const struct acs_schedule *s, const char *name)
{
  if (!acs_rtab_name_ok(name) || acs_schedule_find_rtab(s, name))
    return 0;
  for (const char *const *c = common_tables; *c; c++)
    if (strcmp(*c, name) == 0)
      return 0;
  return 1;
}

int acs_schedule_add_rtab(struct acs_schedule *s, const char *name,
                          const struct acs_rtab_col *cols, int32_t ncols,
                          struct acs_rtab **out)
{
  struct acs_rtab *t;
  int err;

  *out = NULL;
  if (!table_name_ok(s, name) || !cols_ok(cols, ncols))
    return ACS_EINVAL;
  if ((err = acs_grow((void **)&s->tables, sizeof(*s->tables), &s->cap_tables,
                      (size_t)s->ntables + 1)) < 0)
    return err;
  if (!(t = acs_arena_calloc(&s->arena, 1, sizeof(*t))))
    return ACS_ENOMEM;
  t->arena = &s->arena;
  if (!(t->name = acs_arena_strdup(&s->arena, name)))
    return ACS_ENOMEM;
  for (int32_t c = 0; c < ncols; c++) {
    t->cols[c].type = cols[c].type;
    t->cols[c].name = acs_arena_strdup(&s->arena, cols[c].name);
    t->cols[c].units = acs_arena_strdup(&s->arena, cols[c].units ? cols[c].units : "");
    if (!t->cols[c].name || !t->cols[c].units)
      return ACS_ENOMEM;
  }
  t->ncols = ncols;
  s->tables[s->ntables++] = t;
  *out = t;
  return ACS_OK;
}

int64_t acs_rtab_add_row(struct acs_rtab *t)
{
  size_t need;
  int err;

  if (t->nrows == INT64_MAX ||
      acs_mul_size((size_t)t->nrows + 1, (size_t)t->ncols, &need))
    return ACS_ENOMEM;
  if ((err = acs_grow((void **)&t->cells, sizeof(*t->cells), &t->cap_cells, need)) < 0)
    return err;
  for (int32_t c = 0; c < t->ncols; c++) {
    union acs_rtab_val *v = &t->cells[t->nrows * t->ncols + c];
    if (t->cols[c].type == ACS_RTAB_I64)
      v->i = 0;
    else if (t->cols[c].type == ACS_RTAB_F64)
      v->f = NAN;
    else
      v->s = "";
  }
  return t->nrows++;
}

int32_t acs_rtab_col_find(const struct acs_rtab *t, const char *name)
{
  for (int32_t c = 0; c < t->ncols; c++)
    if (strcmp(t->cols[c].name, name) == 0)
      return c;
  return -1;
}

static union acs_rtab_val *cell(struct acs_rtab *t, int64_t row, int32_t col, int type)
{
  if (row < 0 || row >= t->nrows || col < 0 || col >= t->ncols || t->cols[col].type != type)
    return NULL;
  return &t->cells[row * t->ncols + col];
}

/* Stores v in a cell of a column of `type`: the one check of the number setters. */
static int set_number(struct acs_rtab *t, int64_t row, int32_t col, int type, union acs_rtab_val v)
{
  union acs_rtab_val *c = cell(t, row, col, type);

  if (!c)
    return ACS_EINVAL;
  *c = v;
  return ACS_OK;
}

int acs_rtab_set_i64(struct acs_rtab *t, int64_t row, int32_t col, int64_t v)
{
  return set_number(t, row, col, ACS_RTAB_I64, (union acs_rtab_val){ .i = v });
}

int acs_rtab_set_f64(struct acs_rtab *t, int64_t row, int32_t col, double v)
{
  return set_number(t, row, col, ACS_RTAB_F64, (union acs_rtab_val){ .f = v });
}

int acs_rtab_set_str(struct acs_rtab *t, int64_t row, int32_t col, const char *v)
{
  union acs_rtab_val *c = cell(t, row, col, ACS_RTAB_STR);
  const char *copy;

  if (!c)
    return ACS_EINVAL;
  if (!(copy = acs_arena_strdup(t->arena, v ? v : "")))
    return ACS_ENOMEM;
  c->s = copy;
  return ACS_OK;
}

const char *acs_rtab_own_str(struct acs_rtab *t, const char *v)
{
  return acs_arena_strdup(t->arena, v ? v : "");
}

int acs_rtab_set_str_owned(struct acs_rtab *t, int64_t row, int32_t col, const char *v)
{
  union acs_rtab_val *c = cell(t, row, col, ACS_RTAB_STR);

  if (!c || !v)
    return ACS_EINVAL;
  c->s = v;
  return ACS_OK;
}

const struct acs_rtab_attr *acs_rtab_attr_find(const struct acs_rtab *t, const char *name)
{
  for (int32_t k = 0; k < t->nattrs; k++)
    if (strcmp(t->attrs[k].name, name) == 0)
      return &t->attrs[k];
  return NULL;
}

/* The attribute slot for name: the existing one, or a new one. */
static struct acs_rtab_attr *attr_slot(struct acs_rtab *t, const char *name)
{
  struct acs_rtab_attr *a = (struct acs_rtab_attr *)acs_rtab_attr_find(t, name);

  if (a)
    return a;
  if (!acs_rtab_name_ok(name) || reserved_attr(name))
    return NULL;
  if (acs_grow((void **)&t->attrs, sizeof(*t->attrs), &t->cap_attrs, (size_t)t->nattrs + 1) < 0)
    return NULL;
  a = &t->attrs[t->nattrs];
  if (!(a->name = acs_arena_strdup(t->arena, name)))
    return NULL;
  t->nattrs++;
  return a;
}

/* Sets attribute `name` to the typed value of `val` (its name unused). */
static int attr_set(struct acs_rtab *t, const char *name, const struct acs_rtab_attr *val)
{
  struct acs_rtab_attr *a = attr_slot(t, name);

  if (!a)
    return ACS_EINVAL;
  a->type = val->type;
  a->v = val->v;
  return ACS_OK;
}

int acs_rtab_attr_i64(struct acs_rtab *t, const char *name, int64_t v)
{
  return attr_set(t, name, &(struct acs_rtab_attr){ .type = ACS_RTAB_I64, .v.i = v });
}

int acs_rtab_attr_f64(struct acs_rtab *t, const char *name, double v)
{
  return attr_set(t, name, &(struct acs_rtab_attr){ .type = ACS_RTAB_F64, .v.f = v });
}

int acs_rtab_attr_str(struct acs_rtab *t, const char *name, const char *v)
{
  struct acs_rtab_attr *a = attr_slot(t, name);
  const char *copy;

  if (!a || !(copy = acs_arena_strdup(t->arena, v ? v : "")))
    return a ? ACS_ENOMEM : ACS_EINVAL;
  a->type = ACS_RTAB_STR;
  a->v.s = copy;
  return ACS_OK;
}

/* One attribute of a table copied onto another. */
static int attr_copy(struct acs_rtab *t, const struct acs_rtab_attr *a)
{
  return a->type == ACS_RTAB_STR ? acs_rtab_attr_str(t, a->name, a->v.s) : attr_set(t, a->name, a);
}

int acs__rtab_copy(struct acs_schedule *s, const struct acs_rtab *src)
{
  struct acs_rtab *t;
  size_t cells;
  int err;

  if ((err = acs_schedule_add_rtab(s, src->name, src->cols, src->ncols, &t)) < 0)
    return err;
  t->show = src->show;
  for (int64_t r = 0; r < src->nrows; r++)
    if (acs_rtab_add_row(t) < 0)
      return ACS_ENOMEM;
  cells = (size_t)src->nrows * (size_t)src->ncols;
  for (size_t k = 0; k < cells; k++) {
    t->cells[k] = src->cells[k];
    /* Text lives in the source schedule's arena: copied into ours. */
    if (t->cols[k % (size_t)t->ncols].type == ACS_RTAB_STR &&
        !(t->cells[k].s = acs_arena_strdup(t->arena, src->cells[k].s)))
      return ACS_ENOMEM;
  }
  for (int32_t a = 0; a < src->nattrs; a++)
    if ((err = attr_copy(t, &src->attrs[a])) < 0)
      return err;
  return ACS_OK;
}

void acs__rtab_free(struct acs_rtab *t)
{
  free(t->cells);
  free(t->attrs);
  t->cells = NULL;
  t->attrs = NULL;
}
