/*
 * results_h5_int.h - HDF5 helpers shared by the results writer (results.c) and
 * reader (results_read.c). Internal to report/; not installed.
 *
 * A table is described by a struct acs__h5table: one field per column with
 * its name, its offset and size in a C record, its kind and the value a
 * reader uses when a file lacks the column. Writers create tables with
 * H5TBmake_table from a packed buffer of such records; appends and reads
 * match columns BY NAME, so a file with fewer columns (an older acsim) or
 * more columns (a newer one) of the same schema is still read and appended
 * correctly (DESIGN.md: adding columns keeps schema 1).
 */
#ifndef ACS_REPORT_RESULTS_H5_INT_H
#define ACS_REPORT_RESULTS_H5_INT_H

#include <hdf5.h>

#include "report/results.h"

#define ACS__H5_MAXF 160         /* columns of one table (ops: 20 + ACS_MAX_RES) */
#define ACS__H5_FNAME (ACS_NAME_MAX + 16) /* "demand_" + a resource name */
#define ACS__KIND_LEN 16         /* op, resource and edge kinds, status */
#define ACS__MEM_LEN 8           /* "none", "ddr", "cmx" */

enum acs__h5kind { ACS__H5_I32, ACS__H5_I64, ACS__H5_F64, ACS__H5_STR };

struct acs__h5field {
  char name[ACS__H5_FNAME];
  size_t off, size;
  int kind;                      /* enum acs__h5kind */
  double dflt;                   /* for a missing column; strings become "" */
  /* The column's unit, stored as the table attribute FIELD_<i>_UNITS; NULL:
   * derived from the name (acs__h5_unit_of_name), "": none. */
  const char *unit;
};

struct acs__h5table {
  size_t nfields;
  size_t size;                   /* bytes of one record (the buffer stride) */
  struct acs__h5field f[ACS__H5_MAXF];
};

/* One row of /schedules/run_<id>/ops; only nres demand columns are used, and
 * the record size is cut after them (acs__tbl_ops). */
struct acs__oprec {
  char op[ACS_NAME_MAX];
  char kind[ACS__KIND_LEN];
  int32_t unit;
  double start, end, sim_start, sim_end;
  int64_t cmx_offset, cmx_bytes;
  double cmx_alloc, cmx_free;
  int32_t update_barrier;
  int64_t dur, bytes;
  char src[ACS__MEM_LEN], dst[ACS__MEM_LEN];
  int32_t slots;
  int64_t out_bytes;
  double demand[ACS_MAX_RES];
};

struct acs__resrec {
  char name[ACS_NAME_MAX];
  char kind[ACS__KIND_LEN];      /* "pe", "dma", "cmx", "named" */
  double capacity;
};

struct acs__edgerec {
  int32_t src, dst;
  char kind[ACS__KIND_LEN];      /* "data", "control" */
};

/*
 * The unit a column name states by its last word ("_cycles", "_bytes",
 * "_seconds", "_kib", "_mhz", "_gbps", "_pct", "_ratio", "_utilization", or
 * the whole name being one of them): "cycles", "bytes", "seconds", "KiB",
 * "MHz", "GB/s", "%", "1" (ratios). NULL when the name states none (counts,
 * ids, names). A new column named after its unit gets it with no more work.
 */
const char *acs__h5_unit_of_name(const char *name);
/* The unit of field f: f->unit, else the one its name states; NULL: none. */
const char *acs__h5_field_unit(const struct acs__h5field *f);
/* Sets the unit of t's column `name` ("" for none). */
void acs__h5_set_unit(struct acs__h5table *t, const char *name, const char *unit);
/*
 * Writes, on the table dataset did, a string attribute FIELD_<i>_UNITS for
 * each member i (in the dataset's own column order, the order of H5TB's
 * FIELD_<i>_NAME) that t gives a unit; other attributes are left alone.
 */
int acs__h5_write_units(hid_t did, const struct acs__h5table *t);

/* Table descriptors. */
void acs__tbl_platforms(struct acs__h5table *t);
void acs__tbl_workloads(struct acs__h5table *t);
void acs__tbl_runs(struct acs__h5table *t);
void acs__tbl_runs_id(struct acs__h5table *t);    /* run_id alone, int64 records */
/* res_cmx: the index of the CMX resource (its demand column is in bytes), -1 none. */
void acs__tbl_ops(struct acs__h5table *t, int nres, const char *const *res_names, int res_cmx);
void acs__tbl_resources(struct acs__h5table *t);
void acs__tbl_edges(struct acs__h5table *t);
void acs__tbl_waits(struct acs__h5table *t);

/* Silences HDF5's own error printing (we report through struct acs_diag). */
void acs__h5_quiet(void);

/*
 * Sets d (when not NULL) to err with a message about `path`; returns err.
 * The message is printf-formatted.
 */
int acs__h5_fail(struct acs_diag *d, int err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Opens an existing results file (H5F_ACC_RDONLY or H5F_ACC_RDWR) and checks
 * schema_version. diag_path names the file in messages (the target, when
 * `path` is a temporary copy). Errors: ACS_EIO (cannot open), ACS_EFORMAT
 * (not HDF5, truncated, no or another schema_version).
 */
int acs__h5_open(const char *path, const char *diag_path, unsigned flags,
                 hid_t *file, struct acs_diag *d);
/* A file access property list that closes every object with the file. */
hid_t acs__h5_fapl(void);

/* The HDF5 type of one column in memory and in files (the caller closes
 * it): native integers and doubles, strings fixed-size, NUL-terminated,
 * UTF-8. */
hid_t acs__h5_field_type(const struct acs__h5field *f);
/* Creates table `name` under loc with n records from buf (may be NULL when
 * n == 0). chunk is in records; compress turns on deflate. */
int acs__h5_make(hid_t loc, const char *name, const struct acs__h5table *t,
                 hsize_t n, const void *buf, hsize_t chunk, int compress);
/* Appends n records (columns matched by name; ones the file lacks are
 * dropped, ones it has beyond t get its fill value). On failure the table
 * keeps its former length. */
int acs__h5_append(hid_t loc, const char *name, const struct acs__h5table *t,
                   hsize_t n, const void *buf);
/* The same on an open dataset (kept open by the writer so a compressed
 * table's last chunk stays in HDF5's chunk cache between appends). */
int acs__h5_append_dset(hid_t did, const struct acs__h5table *t, hsize_t n,
                        const void *buf);
/* Overwrites records [start, start + n) of an existing table (columns
 * matched by name; ones t lacks keep their values). ACS_EFORMAT when the
 * rows are not all there. */
int acs__h5_write_dset(hid_t did, const struct acs__h5table *t, hsize_t start, hsize_t n,
                       const void *buf);
/*
 * Whether n records of `size` bytes may be read into memory: *bytes is
 * their size, ACS_ELIMIT when that passes the bytes limit (core/acs.h), so
 * a file that declares more rows than it holds (HDF5 extents cost nothing
 * on disk) cannot make a reader allocate without bound.
 */
int acs__h5_rows_fit(hsize_t n, size_t size, size_t *bytes);
/* Number of records of a table, and of an open one. */
int acs__h5_nrows(hid_t loc, const char *name, hsize_t *n);
int acs__h5_dset_rows(hid_t did, hsize_t *n);
/*
 * Reads records [start, start + n) into buf (n records of t->size bytes).
 * Columns are matched by name: a column t has and the file lacks gets its
 * default, a column the file has beyond t is ignored. Strings are always
 * NUL-terminated. ACS_EFORMAT when a column has an incompatible type.
 */
int acs__h5_read(hid_t loc, const char *name, const struct acs__h5table *t,
                 hsize_t start, hsize_t n, void *buf);
/* The same on an open dataset. */
int acs__h5_read_dset(hid_t did, const struct acs__h5table *t, hsize_t start, hsize_t n,
                      void *buf);
/*
 * When table `name` lacks columns of t, or tags strings ASCII (files of an
 * older acsim), rewrites it with the columns added (after the existing
 * ones, which are kept, unknown ones included) holding their defaults and
 * every string tagged UTF-8 (the bytes are unchanged), so later appends lose
 * nothing. Then writes the units of t's columns (acs__h5_write_units).
 * *changed tells whether it rewrote. O(rows).
 */
int acs__h5_upgrade(hid_t loc, const char *name, const struct acs__h5table *t,
                    hsize_t chunk, int *changed);

/* Copies rows [from, to) of dataset yd into dataset xd (same type), growing
 * xd to `to` rows when it is shorter. O(rows) in batches of
 * ACS__H5_COPY_BYTES. */
#define ACS__H5_COPY_BYTES ((size_t)4 << 20)
int acs__h5_copy_rows(hid_t xd, hid_t yd, hsize_t from, hsize_t to);
/* Makes table `name` of file x equal to that of file y, given that x's is an
 * older state of y's (a prefix): appends the missing rows (and copies y's
 * FIELD_<i>_UNITS attributes), or copies the whole table when x lacks it or
 * has another layout. O(new rows). */
int acs__h5_sync_table(hid_t x, hid_t y, const char *name);

/* Attributes. Strings are fixed-length and tagged UTF-8 (ASCII ones of
 * older files read too); reading truncates to size - 1 at a character. */
int acs__h5_attr_set_str(hid_t loc, const char *name, const char *value);
int acs__h5_attr_get_str(hid_t loc, const char *name, char *buf, size_t size);
int acs__h5_attr_set_i64(hid_t loc, const char *name, int64_t value);
int acs__h5_attr_set_i32(hid_t loc, const char *name, int32_t value);
/* ACS_ENOTFOUND when absent, ACS_EFORMAT when not an integer. */
int acs__h5_attr_get_i64(hid_t loc, const char *name, int64_t *value);
int acs__h5_attr_set_f64(hid_t loc, const char *name, double value);
/* ACS_ENOTFOUND when absent, ACS_EFORMAT when not a number. */
int acs__h5_attr_get_f64(hid_t loc, const char *name, double *value);

/* The work file of an open writer, for report/ modules that add tables of
 * their own (validation.c); -1 when the writer is broken. Marks the writer
 * dirty. Such tables are carried over checkpoints when named in replay(). */
hid_t acs__results_file(struct acs_results *r);

/* Family result tables (results_rtab.c): writes one as the dataset
 * <g>/<name>; reads every dataset of a run's group that is not a common
 * table into s (the offending dataset's name in bad on error). */
int acs__rtab_write(hid_t g, const struct acs_rtab *t);
int acs__rtab_read_all(hid_t g, struct acs_schedule *s, char *bad, size_t bad_size);

/* Copies src into a fixed-size field of `size` bytes, zero-padded. */
void acs__strfill(char *dst, size_t size, const char *src);

/* acs_results_read and acs_results_read_schedule (results_read.c) on a
 * file already open and of this schema (as acs__h5_open leaves it; path
 * names it in messages), so a caller holding the file in memory, such as
 * the results fuzz harness, reads it through the same code once. */
int acs__results_read_file(hid_t f, const char *path, struct acs_results_data *out,
                           struct acs_diag *d);
int acs__results_read_schedule_file(hid_t f, const char *path, int64_t run_id,
                                    struct acs_schedule *s, struct acs_diag *d);

#endif
