/*
 * results_h5.c - HDF5 helpers for the results writer and reader (see
 * results_h5.h): the table descriptors, opening files, errors, and
 * attributes. The tables themselves (make, append, read by column name,
 * copy, upgrade) and their units are results_h5_table.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5_hl.h>

#include "report/results_h5_int.h"

/* ---- descriptors ---- */

static void add_field(struct acs__h5table *t, const char *name, size_t off,
                      size_t size, int kind, double dflt)
{
  struct acs__h5field *f;

  if (t->nfields >= ACS__H5_MAXF)
    return; /* descriptors are fixed by this file; the caps are checked below */
  f = &t->f[t->nfields++];
  snprintf(f->name, sizeof f->name, "%s", name);
  f->off = off;
  f->size = size;
  f->kind = kind;
  f->dflt = dflt;
  f->unit = NULL;
}

const char *acs__h5_unit_of_name(const char *name)
{
  static const struct {
    const char *word, *unit;
  } words[] = {
    {"cycles", "cycles"}, {"bytes", "bytes"}, {"seconds", "seconds"}, {"kib", "KiB"},
    {"mhz", "MHz"}, {"gbps", "GB/s"}, {"pct", "%"}, {"ratio", "1"}, {"utilization", "1"},
  };
  const char *last = strrchr(name, '_');

  last = last ? last + 1 : name;
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strcmp(last, words[i].word) == 0)
      return words[i].unit;
  return NULL;
}

const char *acs__h5_field_unit(const struct acs__h5field *f)
{
  const char *u = f->unit ? f->unit : acs__h5_unit_of_name(f->name);

  return u && *u ? u : NULL;
}

void acs__h5_set_unit(struct acs__h5table *t, const char *name, const char *unit)
{
  for (size_t i = 0; i < t->nfields; i++)
    if (strcmp(t->f[i].name, name) == 0)
      t->f[i].unit = unit;
}

/* A column that is a member of the record's struct; unit as in struct
 * acs__h5field (NULL: from the name). */
struct fdesc {
  const char *name;
  size_t off, size;
  int kind;
  double dflt;
  const char *unit;
};

#define FIELD(type, member, kind, dflt, unit) \
  {#member, offsetof(type, member), sizeof(((type *)0)->member), (kind), (dflt), (unit)}

/* Starts t as a table of `size`-byte records whose first columns are
 * fd[0..n). */
static void table_start(struct acs__h5table *t, size_t size, const struct fdesc *fd, size_t n)
{
  memset(t, 0, sizeof *t);
  t->size = size;
  for (size_t i = 0; i < n; i++) {
    add_field(t, fd[i].name, fd[i].off, fd[i].size, fd[i].kind, fd[i].dflt);
    t->f[t->nfields - 1].unit = fd[i].unit;
  }
}

#define TABLE_START(t, type, fd) table_start((t), sizeof(type), (fd), sizeof(fd) / sizeof((fd)[0]))

_Static_assert(3 + ACS_PARAM_COUNT <= ACS__H5_MAXF, "too many platform columns");
_Static_assert(20 + ACS_MAX_RES <= ACS__H5_MAXF, "too many ops columns");

void acs__tbl_platforms(struct acs__h5table *t)
{
  static const struct fdesc fd[] = {
    FIELD(struct acs_platform_row, platform_id, ACS__H5_I32, -1, NULL),
  };
  size_t base = offsetof(struct acs_platform_row, plat.v);
  int i;

  TABLE_START(t, struct acs_platform_row, fd);
  add_field(t, "name", offsetof(struct acs_platform_row, plat.name),
            ACS_PLATFORM_NAME_MAX, ACS__H5_STR, 0);
  /* One float64 column per parameter, named as in ACS_PARAM_MAP, so adding a
   * parameter adds a column and older files read back with its default. */
  for (i = 0; i < ACS_PARAM_COUNT; i++)
    add_field(t, acs_param_table[i].name, base + (size_t)i * sizeof(double),
              sizeof(double), ACS__H5_F64, acs_param_table[i].def);
  /* Parameters name their unit (freq_mhz, cmx_kib, dma_gbps, ...); these
   * two do not say it in their last word. */
  acs__h5_set_unit(t, "pe_macs_per_cycle", "MAC/cycle");
  acs__h5_set_unit(t, "bytes_per_elem", "bytes");
  acs__h5_set_unit(t, "pe_count", "PEs");
  acs__h5_set_unit(t, "barriers", "barriers");
  acs__h5_set_unit(t, "barrier_slots", "slots");
  acs__h5_set_unit(t, "dma_channels", "channels");
  acs__h5_set_unit(t, "loop_iterations", "iterations");
  /* The unit-count overrides of loop workloads ("" in older files). */
  add_field(t, "units", offsetof(struct acs_platform_row, plat.units), ACS_PLATFORM_UNITS_MAX,
            ACS__H5_STR, 0);
}

void acs__tbl_workloads(struct acs__h5table *t)
{
  static const struct fdesc fd[] = {
    FIELD(struct acs_workload_row, workload_id, ACS__H5_I32, -1, NULL),
    FIELD(struct acs_workload_row, name, ACS__H5_STR, 0, NULL),
    FIELD(struct acs_workload_row, path, ACS__H5_STR, 0, NULL),
    FIELD(struct acs_workload_row, kind, ACS__H5_STR, 0, NULL),
    FIELD(struct acs_workload_row, ops, ACS__H5_I64, -1, "ops"),
    FIELD(struct acs_workload_row, edges, ACS__H5_I64, -1, "edges"),
    FIELD(struct acs_workload_row, digest, ACS__H5_STR, 0, NULL),
  };

  TABLE_START(t, struct acs_workload_row, fd);
}

/* Counts say what they count; the loop figures are in cycles. */
void acs__tbl_runs(struct acs__h5table *t)
{
  static const struct fdesc fd[] = {
    FIELD(struct acs_run_row, run_id, ACS__H5_I64, -1, NULL),
    FIELD(struct acs_run_row, platform_id, ACS__H5_I32, -1, NULL),
    FIELD(struct acs_run_row, workload_id, ACS__H5_I32, -1, NULL),
    FIELD(struct acs_run_row, scheduler, ACS__H5_STR, 0, NULL),
    FIELD(struct acs_run_row, options, ACS__H5_STR, 0, NULL),
    FIELD(struct acs_run_row, status, ACS__H5_STR, 0, NULL),
    FIELD(struct acs_run_row, memory_model, ACS__H5_STR, 0, NULL),
    FIELD(struct acs_run_row, makespan_cycles, ACS__H5_F64, NAN, NULL),
    FIELD(struct acs_run_row, sim_makespan_cycles, ACS__H5_F64, NAN, NULL),
    FIELD(struct acs_run_row, lower_bound_cycles, ACS__H5_F64, NAN, NULL),
    FIELD(struct acs_run_row, network_bound_cycles, ACS__H5_F64, NAN, NULL),
    FIELD(struct acs_run_row, peak_cmx_bytes, ACS__H5_I64, -1, NULL),
    FIELD(struct acs_run_row, spill_bytes, ACS__H5_I64, -1, NULL),
    FIELD(struct acs_run_row, ddr_bytes, ACS__H5_I64, -1, NULL),
    FIELD(struct acs_run_row, barriers_used, ACS__H5_I32, -1, "barriers"),
    FIELD(struct acs_run_row, control_edges, ACS__H5_I64, -1, "edges"),
    FIELD(struct acs_run_row, sched_seconds, ACS__H5_F64, NAN, NULL),
    FIELD(struct acs_run_row, sim_seconds, ACS__H5_F64, NAN, NULL),
    FIELD(struct acs_run_row, pe_utilization, ACS__H5_F64, NAN, NULL),
    FIELD(struct acs_run_row, dma_utilization, ACS__H5_F64, NAN, NULL),
    FIELD(struct acs_run_row, ii, ACS__H5_F64, NAN, "cycles"),
    FIELD(struct acs_run_row, mii, ACS__H5_F64, NAN, "cycles"),
    FIELD(struct acs_run_row, cycles_per_iter, ACS__H5_F64, NAN, "cycles"),
    FIELD(struct acs_run_row, ops, ACS__H5_I64, -1, "ops"),
    FIELD(struct acs_run_row, edges, ACS__H5_I64, -1, "edges"),
    FIELD(struct acs_run_row, message, ACS__H5_STR, 0, NULL),
  };

  TABLE_START(t, struct acs_run_row, fd);
}

void acs__tbl_runs_id(struct acs__h5table *t)
{
  memset(t, 0, sizeof *t);
  t->size = sizeof(int64_t);
  add_field(t, "run_id", 0, sizeof(int64_t), ACS__H5_I64, -1);
}

void acs__tbl_ops(struct acs__h5table *t, int nres, const char *const *res_names, int res_cmx)
{
  static const struct fdesc fd[] = {
    FIELD(struct acs__oprec, op, ACS__H5_STR, 0, NULL),
    FIELD(struct acs__oprec, kind, ACS__H5_STR, 0, NULL),
    FIELD(struct acs__oprec, unit, ACS__H5_I32, -1, NULL),
    FIELD(struct acs__oprec, start, ACS__H5_F64, -1, "cycles"),
    FIELD(struct acs__oprec, end, ACS__H5_F64, -1, "cycles"),
    FIELD(struct acs__oprec, sim_start, ACS__H5_F64, NAN, "cycles"),
    FIELD(struct acs__oprec, sim_end, ACS__H5_F64, NAN, "cycles"),
    FIELD(struct acs__oprec, cmx_offset, ACS__H5_I64, -1, "bytes"),
    FIELD(struct acs__oprec, cmx_bytes, ACS__H5_I64, -1, NULL),
    FIELD(struct acs__oprec, cmx_alloc, ACS__H5_F64, NAN, "cycles"),
    FIELD(struct acs__oprec, cmx_free, ACS__H5_F64, NAN, "cycles"),
    FIELD(struct acs__oprec, update_barrier, ACS__H5_I32, -1, NULL),
    FIELD(struct acs__oprec, dur, ACS__H5_I64, -1, "cycles"),
    FIELD(struct acs__oprec, bytes, ACS__H5_I64, 0, NULL),
    FIELD(struct acs__oprec, src, ACS__H5_STR, 0, NULL),
    FIELD(struct acs__oprec, dst, ACS__H5_STR, 0, NULL),
    FIELD(struct acs__oprec, slots, ACS__H5_I32, 1, NULL),
    FIELD(struct acs__oprec, out_bytes, ACS__H5_I64, 0, NULL),
  };
  char name[ACS__H5_FNAME];
  int i;

  /* The record ends after the last used demand column, so a file stores no
   * unused padding; the offset of demand[] is a multiple of 8, hence so is
   * the stride. */
  if (nres < 0)
    nres = 0;
  if (nres > ACS_MAX_RES)
    nres = ACS_MAX_RES;
  table_start(t, offsetof(struct acs__oprec, demand) + (size_t)nres * sizeof(double), fd,
              sizeof fd / sizeof fd[0]);
  for (i = 0; i < nres; i++) {
    snprintf(name, sizeof name, "demand_%s", res_names[i] ? res_names[i] : "");
    add_field(t, name, offsetof(struct acs__oprec, demand) + (size_t)i * sizeof(double),
              sizeof(double), ACS__H5_F64, 0);
    /* CMX demand is bytes; other resources count units of their own. */
    t->f[t->nfields - 1].unit = i == res_cmx ? "bytes" : "";
  }
}

void acs__tbl_resources(struct acs__h5table *t)
{
  static const struct fdesc fd[] = {
    FIELD(struct acs__resrec, name, ACS__H5_STR, 0, NULL),
    FIELD(struct acs__resrec, kind, ACS__H5_STR, 0, NULL),
    FIELD(struct acs__resrec, capacity, ACS__H5_F64, 0, NULL),
  };

  TABLE_START(t, struct acs__resrec, fd);
}

void acs__tbl_edges(struct acs__h5table *t)
{
  static const struct fdesc fd[] = {
    FIELD(struct acs__edgerec, src, ACS__H5_I32, -1, NULL),
    FIELD(struct acs__edgerec, dst, ACS__H5_I32, -1, NULL),
    FIELD(struct acs__edgerec, kind, ACS__H5_STR, 0, NULL),
  };

  TABLE_START(t, struct acs__edgerec, fd);
}

void acs__tbl_waits(struct acs__h5table *t)
{
  static const struct fdesc fd[] = {
    FIELD(struct acs_wait, op, ACS__H5_I32, -1, NULL),
    FIELD(struct acs_wait, barrier, ACS__H5_I32, -1, NULL),
  };

  TABLE_START(t, struct acs_wait, fd);
}

/* ---- general ---- */

void acs__h5_quiet(void)
{
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

int acs__h5_fail(struct acs_diag *d, int err, const char *path, const char *fmt, ...)
{
  char msg[sizeof d->msg];
  va_list ap;

  if (!d)
    return err;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return acs_diag_set(d, err, path, 0, 0, "%s", msg);
}

void acs__strfill(char *dst, size_t size, const char *src)
{
  size_t n;

  memset(dst, 0, size);
  if (!src || size == 0)
    return;
  n = strnlen(src, size);
  if (n == size) {
    /* Truncate without splitting a UTF-8 sequence. */
    n = size - 1;
    while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
      n--;
  }
  memcpy(dst, src, n);
}

hid_t acs__h5_fapl(void)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);

  /* STRONG: H5Fclose closes every object still open, so the file is really
   * closed (and complete on disk) before we fsync and rename it. */
  if (fapl >= 0 && H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0) {
    H5Pclose(fapl);
    return -1;
  }
#if H5_VERSION_GE(1, 12, 1) || (H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 && H5_VERS_RELEASE >= 7)
  /* Lock where the file system can, but do not fail where it cannot (some
   * network file systems): only acsim's own private temporaries are opened
   * for writing. */
  if (fapl >= 0)
    H5Pset_file_locking(fapl, 1, 1);
#endif
  return fapl;
}

int acs__h5_open(const char *path, const char *diag_path, unsigned flags,
                 hid_t *file, struct acs_diag *d)
{
  hid_t fapl, f;
  int64_t v;
  int fd, rc;

  acs__h5_quiet();
  *file = -1;
  /* Tell "cannot open" apart from "not HDF5" before HDF5 hides errno. */
  fd = open(path, O_RDONLY);
  if (fd < 0)
    return acs__h5_fail(d, ACS_EIO, diag_path, "cannot open: %s", strerror(errno));
  close(fd);
  fapl = acs__h5_fapl();
  if (fapl < 0)
    return acs__h5_fail(d, ACS_EIO, diag_path, "HDF5 initialisation failed");
  f = H5Fopen(path, flags, fapl);
  H5Pclose(fapl);
  if (f < 0)
    return acs__h5_fail(d, ACS_EFORMAT, diag_path, "not an HDF5 file or truncated");
  rc = acs__h5_attr_get_i64(f, "schema_version", &v);
  if (rc == ACS_ENOTFOUND) {
    acs__h5_fail(d, ACS_EFORMAT, diag_path,
                 "not an acsim results file (no schema_version attribute)");
    goto out_with_file;
  }
  if (rc < 0) {
    acs__h5_fail(d, ACS_EFORMAT, diag_path, "schema_version is not an integer");
    goto out_with_file;
  }
  if (v != ACS_SCHEMA_VERSION) {
    acs__h5_fail(d, ACS_EFORMAT, diag_path, "schema_version %lld, this acsim reads %d",
                 (long long)v, ACS_SCHEMA_VERSION);
    goto out_with_file;
  }
  *file = f;
  return ACS_OK;

out_with_file:
  H5Fclose(f);
  return ACS_EFORMAT;
}

/* ---- attributes ---- */

/* Writes the scalar attribute `name` of loc (replacing one there). */
static int attr_set_scalar(hid_t loc, const char *name, hid_t type, const void *value)
{
  hid_t space, attr;
  int rc = ACS_EIO;

  if (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0)
    return ACS_EIO;
  space = H5Screate(H5S_SCALAR);
  if (space < 0)
    return ACS_EIO;
  attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr >= 0) {
    if (H5Awrite(attr, type, value) >= 0)
      rc = ACS_OK;
    H5Aclose(attr);
  }
  H5Sclose(space);
  return rc;
}

int acs__h5_attr_set_str(hid_t loc, const char *name, const char *value)
{
  hid_t type;
  size_t len = strlen(value);
  int rc = ACS_EIO;

  if (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0)
    return ACS_EIO;
  type = H5Tcopy(H5T_C_S1);
  if (type < 0)
    return ACS_EIO;
  if (H5Tset_size(type, len + 1) >= 0 && H5Tset_strpad(type, H5T_STR_NULLTERM) >= 0 &&
      H5Tset_cset(type, H5T_CSET_UTF8) >= 0)
    rc = attr_set_scalar(loc, name, type, value);
  H5Tclose(type);
  return rc;
}

/* Attributes are read in their own character set: HDF5 does not convert
 * between ASCII and UTF-8. */
static int read_vlen_str(hid_t attr, H5T_cset_t cset, char *buf, size_t size)
{
  hid_t mt = H5Tcopy(H5T_C_S1);
  char *p = NULL;
  int rc = ACS_EFORMAT;

  if (mt < 0)
    return ACS_EIO;
  if (H5Tset_size(mt, H5T_VARIABLE) >= 0 && H5Tset_cset(mt, cset) >= 0 &&
      H5Aread(attr, mt, &p) >= 0) {
    acs__strfill(buf, size, p ? p : "");
    H5free_memory(p);
    rc = ACS_OK;
  }
  H5Tclose(mt);
  return rc;
}

static int read_fixed_str(hid_t attr, H5T_cset_t cset, size_t len, char *buf, size_t size)
{
  hid_t mt = H5Tcopy(H5T_C_S1);
  char *tmp;
  int rc = ACS_EFORMAT;

  if (mt < 0)
    return ACS_EIO;
  tmp = calloc(1, len + 1);
  if (!tmp) {
    H5Tclose(mt);
    return ACS_ENOMEM;
  }
  if (H5Tset_size(mt, len) >= 0 && H5Tset_cset(mt, cset) >= 0 && H5Aread(attr, mt, tmp) >= 0) {
    acs__strfill(buf, size, tmp);
    rc = ACS_OK;
  }
  free(tmp);
  H5Tclose(mt);
  return rc;
}

/* Opens the attribute `name` of loc when it is one value of class cls (or
 * also): ACS_OK with *attr and *type open (close both), ACS_ENOTFOUND, or
 * ACS_EFORMAT. */
static int attr_open_scalar(hid_t loc, const char *name, int cls, int also, hid_t *attr,
                            hid_t *type)
{
  hid_t space;
  int ok;

  if (H5Aexists(loc, name) <= 0)
    return ACS_ENOTFOUND;
  *attr = H5Aopen(loc, name, H5P_DEFAULT);
  if (*attr < 0)
    return ACS_EFORMAT;
  *type = H5Aget_type(*attr);
  space = H5Aget_space(*attr);
  ok = *type >= 0 && space >= 0 &&
       ((int)H5Tget_class(*type) == cls || (int)H5Tget_class(*type) == also) &&
       H5Sget_simple_extent_npoints(space) == 1;
  if (space >= 0)
    H5Sclose(space);
  if (ok)
    return ACS_OK;
  if (*type >= 0)
    H5Tclose(*type);
  H5Aclose(*attr);
  return ACS_EFORMAT;
}

int acs__h5_attr_get_str(hid_t loc, const char *name, char *buf, size_t size)
{
  hid_t attr, type;
  int rc = attr_open_scalar(loc, name, H5T_STRING, H5T_STRING, &attr, &type);

  if (rc < 0)
    return rc;
  rc = ACS_EFORMAT;
  if (H5Tget_cset(type) != H5T_CSET_ERROR)
    rc = H5Tis_variable_str(type) > 0
           ? read_vlen_str(attr, H5Tget_cset(type), buf, size)
           : read_fixed_str(attr, H5Tget_cset(type), H5Tget_size(type), buf, size);
  H5Tclose(type);
  H5Aclose(attr);
  return rc;
}

int acs__h5_attr_set_i64(hid_t loc, const char *name, int64_t value)
{
  return attr_set_scalar(loc, name, H5T_NATIVE_INT64, &value);
}

int acs__h5_attr_set_i32(hid_t loc, const char *name, int32_t value)
{
  return attr_set_scalar(loc, name, H5T_NATIVE_INT32, &value);
}

int acs__h5_attr_set_f64(hid_t loc, const char *name, double value)
{
  return attr_set_scalar(loc, name, H5T_NATIVE_DOUBLE, &value);
}

/* Reads the scalar attribute `name` of loc as mem, when its class is
 * class_ok or class_also. */
static int attr_get_scalar(hid_t loc, const char *name, hid_t mem, int class_ok, int class_also,
                           void *value)
{
  hid_t attr, type;
  int rc = attr_open_scalar(loc, name, class_ok, class_also, &attr, &type);

  if (rc < 0)
    return rc;
  rc = H5Aread(attr, mem, value) >= 0 ? ACS_OK : ACS_EFORMAT;
  H5Tclose(type);
  H5Aclose(attr);
  return rc;
}

int acs__h5_attr_get_f64(hid_t loc, const char *name, double *value)
{
  return attr_get_scalar(loc, name, H5T_NATIVE_DOUBLE, H5T_FLOAT, H5T_INTEGER, value);
}

int acs__h5_attr_get_i64(hid_t loc, const char *name, int64_t *value)
{
  return attr_get_scalar(loc, name, H5T_NATIVE_INT64, H5T_INTEGER, H5T_INTEGER, value);
}
