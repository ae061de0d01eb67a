/*
 * rtab.h - family result tables.
 *
 * Every scheduler family lowers its result to the common schedule, but each
 * also has a compact result of its own that users want to read: the II and
 * stage of every loop op (modulo), the chosen plans and the Pareto front
 * (cascade), the gangs and the control program (gang), the schedule vectors
 * (affine). A family keeps it in one or more result tables attached to the
 * schedule: typed columns (64-bit integers, doubles, text) with units, rows,
 * and typed attributes. The tables travel with the schedule through every
 * path a schedule takes (sweep workers, HDF5 /schedules/run_<id>/<name>,
 * reading back), so no family needs code of its own in report/ or cli/;
 * `acsim run` prints the tables a family marks as shown.
 *
 * Tables, columns and attribute names are owned by the schedule (strings in
 * its arena); acs_schedule_destroy frees them.
 */
#ifndef ACS_MODEL_RTAB_H
#define ACS_MODEL_RTAB_H

#include "core/acs.h"

enum acs_rtab_type { ACS_RTAB_I64, ACS_RTAB_F64, ACS_RTAB_STR };

/* Longest table, column or attribute name; HDF5 and the printer rely on it. */
#define ACS_RTAB_NAME_MAX 63
/* Most columns in one table. */
#define ACS_RTAB_MAX_COLS 64

struct acs_rtab_col {
  const char *name;
  int type;              /* enum acs_rtab_type */
  const char *units;     /* "cycles", "bytes", ...; NULL or "" when none */
};

union acs_rtab_val {
  int64_t i;
  double f;
  const char *s;         /* never NULL in a table: "" when unset */
};

struct acs_rtab_attr {
  const char *name;
  int type;              /* enum acs_rtab_type */
  union acs_rtab_val v;
};

struct acs_rtab {
  const char *name;      /* a dataset name: [A-Za-z0-9_], not a common table's */
  int show;              /* `acsim run` prints this table */
  int32_t ncols;
  struct acs_rtab_col cols[ACS_RTAB_MAX_COLS];
  int64_t nrows;
  size_t cap_cells;
  union acs_rtab_val *cells;   /* nrows x ncols, row-major */
  int32_t nattrs;
  size_t cap_attrs;
  struct acs_rtab_attr *attrs;
  struct acs_arena *arena;     /* the owning schedule's, for strings */
};

struct acs_schedule;

/*
 * Adds an empty table to s (the column descriptors and names are copied).
 * ACS_EINVAL for a name that is not [A-Za-z0-9_]{1,63}, that a table of s
 * already has, or that is one of the common tables (ops, resources, edges,
 * waits); for no columns, too many, a bad column name or type, or two
 * columns of one name. *out stays valid until s is destroyed.
 */
int acs_schedule_add_rtab(struct acs_schedule *s, const char *name,
                          const struct acs_rtab_col *cols, int32_t ncols,
                          struct acs_rtab **out);
/* The table of that name, or NULL. */
struct acs_rtab *acs_schedule_find_rtab(const struct acs_schedule *s, const char *name);

/* Appends a row (integers 0, doubles NaN, text ""); returns its index or a
 * negative error. Amortized O(columns). */
int64_t acs_rtab_add_row(struct acs_rtab *t);
/* Index of a column by name, or -1. */
int32_t acs_rtab_col_find(const struct acs_rtab *t, const char *name);
/* Setters check the row, the column and its type (ACS_EINVAL otherwise);
 * text is copied. */
int acs_rtab_set_i64(struct acs_rtab *t, int64_t row, int32_t col, int64_t v);
int acs_rtab_set_f64(struct acs_rtab *t, int64_t row, int32_t col, double v);
int acs_rtab_set_str(struct acs_rtab *t, int64_t row, int32_t col, const char *v);
/* Text that many cells repeat (a family's program lists the same operand
 * on thousands of rows): acs_rtab_own_str copies v into the table's arena
 * once (NULL when out of memory), and acs_rtab_set_str_owned sets a cell to
 * such a copy, or to the text of any cell of the table, without copying
 * it again. Checks as acs_rtab_set_str. */
const char *acs_rtab_own_str(struct acs_rtab *t, const char *v);
int acs_rtab_set_str_owned(struct acs_rtab *t, int64_t row, int32_t col, const char *v);
static inline union acs_rtab_val acs_rtab_get(const struct acs_rtab *t, int64_t row,
                                              int32_t col)
{
  return t->cells[row * t->ncols + col];
}

/* Attributes: set (replacing one of the same name) and find. Names follow
 * the column rule; names starting with "FIELD_" (the HDF5 column units) and
 * "acsim_show" are reserved. */
int acs_rtab_attr_i64(struct acs_rtab *t, const char *name, int64_t v);
int acs_rtab_attr_f64(struct acs_rtab *t, const char *name, double v);
int acs_rtab_attr_str(struct acs_rtab *t, const char *name, const char *v);
const struct acs_rtab_attr *acs_rtab_attr_find(const struct acs_rtab *t, const char *name);

/* Whether name is a legal table, column or attribute name. */
int acs_rtab_name_ok(const char *name);

#endif
