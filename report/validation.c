/*
 * validation.c - the /validation table (see validation.h). Same conventions
 * as results.c: an H5TB compound table, columns matched by name, ids from 1
 * continuing across appends, strings fixed-length.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/results_h5_int.h"
#include "report/validation.h"

#define FIELD(t, member, kind_, dflt_)                                                  \
  do {                                                                                \
    struct acs__h5field *f_ = &(t)->f[(t)->nfields++];                                \
    snprintf(f_->name, sizeof f_->name, "%s", #member);                               \
    f_->off = offsetof(struct acs_validation_row, member);                            \
    f_->size = sizeof(((struct acs_validation_row *)0)->member);                      \
    f_->kind = (kind_);                                                               \
    f_->dflt = (dflt_);                                                               \
  } while (0)

static void tbl_validation(struct acs__h5table *t)
{
  memset(t, 0, sizeof *t);
  t->size = sizeof(struct acs_validation_row);
  FIELD(t, validation_id, ACS__H5_I64, -1);
  FIELD(t, set, ACS__H5_STR, 0);
  FIELD(t, path, ACS__H5_STR, 0);
  FIELD(t, scheduler, ACS__H5_STR, 0);
  FIELD(t, options, ACS__H5_STR, 0);
  FIELD(t, instances, ACS__H5_I64, -1);
  FIELD(t, bounds_only, ACS__H5_I64, -1);
  FIELD(t, avg_dev_pct, ACS__H5_F64, NAN);
  FIELD(t, max_dev_pct, ACS__H5_F64, NAN);
  FIELD(t, at_reference, ACS__H5_I64, -1);
  FIELD(t, proven, ACS__H5_I64, -1);
  FIELD(t, below, ACS__H5_I64, -1);
  FIELD(t, timeouts, ACS__H5_I64, -1);
  FIELD(t, errors, ACS__H5_I64, -1);
  FIELD(t, time_limit, ACS__H5_F64, NAN);
  FIELD(t, seconds, ACS__H5_F64, NAN);
  FIELD(t, created_utc, ACS__H5_STR, 0);
  /* Units follow the names (avg_dev_pct: %, seconds); this one does not say. */
  acs__h5_set_unit(t, "time_limit", "seconds");
}

/* The largest stored id, 0 when the table is empty. */
static int last_id(hid_t f, const struct acs__h5table *t, int64_t *id)
{
  struct acs_validation_row row;
  hsize_t n;

  *id = 0;
  if (acs__h5_nrows(f, "validation", &n) < 0)
    return ACS_EIO;
  for (hsize_t i = 0; i < n; i++) {
    if (acs__h5_read(f, "validation", t, i, 1, &row) < 0)
      return ACS_EIO;
    if (row.validation_id > *id)
      *id = row.validation_id;
  }
  return ACS_OK;
}

int acs_validation_add(struct acs_results *r, struct acs_validation_row *rows, size_t n,
                       struct acs_diag *d)
{
  struct acs__h5table t;
  hid_t f = acs__results_file(r);
  int64_t id = 0;
  int exists, changed;
  char now[32];
  time_t tt = time(NULL);
  struct tm tmv;

  if (f < 0)
    return acs__h5_fail(d, ACS_EIO, "results", "the results file is not writable");
  tbl_validation(&t);
  gmtime_r(&tt, &tmv);
  strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  exists = H5Lexists(f, "validation", H5P_DEFAULT) > 0;
  /* An older table gets the columns it lacks, UTF-8 strings and units. */
  if (exists && (acs__h5_upgrade(f, "validation", &t, 16, &changed) < 0 ||
                 last_id(f, &t, &id) < 0))
    return acs__h5_fail(d, ACS_EIO, "results", "cannot read the /validation table");
  for (size_t i = 0; i < n; i++) {
    rows[i].validation_id = ++id;
    acs__strfill(rows[i].created_utc, sizeof rows[i].created_utc, now);
  }
  if (!exists ? acs__h5_make(f, "validation", &t, n, rows, 16, 1) < 0
              : acs__h5_append(f, "validation", &t, n, rows) < 0)
    return acs__h5_fail(d, ACS_EIO, "results", "cannot write the /validation table");
  return ACS_OK;
}

int acs_validation_read(const char *path, struct acs_validation_row **rows, size_t *n,
                        struct acs_diag *d)
{
  struct acs__h5table t;
  hsize_t nr = 0;
  hid_t f;
  int err;

  *rows = NULL;
  *n = 0;
  acs__h5_quiet();
  if ((err = acs__h5_open(path, path, H5F_ACC_RDONLY, &f, d)) < 0)
    return err;
  tbl_validation(&t);
  err = ACS_OK;
  if (H5Lexists(f, "validation", H5P_DEFAULT) > 0) {
    if (acs__h5_nrows(f, "validation", &nr) < 0 ||
        !(*rows = calloc((size_t)nr + 1, sizeof(**rows))) ||
        acs__h5_read(f, "validation", &t, 0, nr, *rows) < 0) {
      free(*rows);
      *rows = NULL;
      err = acs__h5_fail(d, ACS_EIO, path, "cannot read the /validation table");
    } else {
      *n = (size_t)nr;
    }
  }
  H5Fclose(f);
  return err;
}
