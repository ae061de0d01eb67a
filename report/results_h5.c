/*
 * results_h5.c - table descriptors and by-name table I/O over HDF5 for the
 * results writer and reader (see results_h5_int.h).
 */
#include "config.h"

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

#define FIELD(t, type, member, kind, dflt)                                   \
  add_field((t), #member, offsetof(type, member), sizeof(((type *)0)->member), \
            (kind), (dflt))

_Static_assert(3 + ACS_PARAM_COUNT <= ACS__H5_MAXF, "too many platform columns");
_Static_assert(20 + ACS_MAX_RES <= ACS__H5_MAXF, "too many ops columns");

void acs__tbl_platforms(struct acs__h5table *t)
{
  size_t base = offsetof(struct acs_platform_row, plat.v);
  int i;

  memset(t, 0, sizeof *t);
  t->size = sizeof(struct acs_platform_row);
  FIELD(t, struct acs_platform_row, platform_id, ACS__H5_I32, -1);
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
  memset(t, 0, sizeof *t);
  t->size = sizeof(struct acs_workload_row);
  FIELD(t, struct acs_workload_row, workload_id, ACS__H5_I32, -1);
  FIELD(t, struct acs_workload_row, name, ACS__H5_STR, 0);
  FIELD(t, struct acs_workload_row, path, ACS__H5_STR, 0);
  FIELD(t, struct acs_workload_row, kind, ACS__H5_STR, 0);
  FIELD(t, struct acs_workload_row, ops, ACS__H5_I64, -1);
  FIELD(t, struct acs_workload_row, edges, ACS__H5_I64, -1);
  FIELD(t, struct acs_workload_row, digest, ACS__H5_STR, 0);
  acs__h5_set_unit(t, "ops", "ops");
  acs__h5_set_unit(t, "edges", "edges");
}

void acs__tbl_runs(struct acs__h5table *t)
{
  memset(t, 0, sizeof *t);
  t->size = sizeof(struct acs_run_row);
  FIELD(t, struct acs_run_row, run_id, ACS__H5_I64, -1);
  FIELD(t, struct acs_run_row, platform_id, ACS__H5_I32, -1);
  FIELD(t, struct acs_run_row, workload_id, ACS__H5_I32, -1);
  FIELD(t, struct acs_run_row, scheduler, ACS__H5_STR, 0);
  FIELD(t, struct acs_run_row, options, ACS__H5_STR, 0);
  FIELD(t, struct acs_run_row, status, ACS__H5_STR, 0);
  FIELD(t, struct acs_run_row, memory_model, ACS__H5_STR, 0);
  FIELD(t, struct acs_run_row, makespan_cycles, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, sim_makespan_cycles, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, lower_bound_cycles, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, network_bound_cycles, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, peak_cmx_bytes, ACS__H5_I64, -1);
  FIELD(t, struct acs_run_row, spill_bytes, ACS__H5_I64, -1);
  FIELD(t, struct acs_run_row, ddr_bytes, ACS__H5_I64, -1);
  FIELD(t, struct acs_run_row, barriers_used, ACS__H5_I32, -1);
  FIELD(t, struct acs_run_row, control_edges, ACS__H5_I64, -1);
  FIELD(t, struct acs_run_row, sched_seconds, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, sim_seconds, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, pe_utilization, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, dma_utilization, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, ii, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, mii, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, cycles_per_iter, ACS__H5_F64, NAN);
  FIELD(t, struct acs_run_row, ops, ACS__H5_I64, -1);
  FIELD(t, struct acs_run_row, edges, ACS__H5_I64, -1);
  FIELD(t, struct acs_run_row, message, ACS__H5_STR, 0);
  /* Counts say what they count; the loop figures are in cycles. */
  acs__h5_set_unit(t, "barriers_used", "barriers");
  acs__h5_set_unit(t, "control_edges", "edges");
  acs__h5_set_unit(t, "ii", "cycles");
  acs__h5_set_unit(t, "mii", "cycles");
  acs__h5_set_unit(t, "cycles_per_iter", "cycles");
  acs__h5_set_unit(t, "ops", "ops");
  acs__h5_set_unit(t, "edges", "edges");
}

void acs__tbl_runs_id(struct acs__h5table *t)
{
  memset(t, 0, sizeof *t);
  t->size = sizeof(int64_t);
  add_field(t, "run_id", 0, sizeof(int64_t), ACS__H5_I64, -1);
}

void acs__tbl_ops(struct acs__h5table *t, int nres, const char *const *res_names, int res_cmx)
{
  static const char *const in_cycles[] = {"start", "end", "sim_start", "sim_end",
                                          "cmx_alloc", "cmx_free", "dur"};
  char name[ACS__H5_FNAME];
  int i;

  memset(t, 0, sizeof *t);
  FIELD(t, struct acs__oprec, op, ACS__H5_STR, 0);
  FIELD(t, struct acs__oprec, kind, ACS__H5_STR, 0);
  FIELD(t, struct acs__oprec, unit, ACS__H5_I32, -1);
  FIELD(t, struct acs__oprec, start, ACS__H5_F64, -1);
  FIELD(t, struct acs__oprec, end, ACS__H5_F64, -1);
  FIELD(t, struct acs__oprec, sim_start, ACS__H5_F64, NAN);
  FIELD(t, struct acs__oprec, sim_end, ACS__H5_F64, NAN);
  FIELD(t, struct acs__oprec, cmx_offset, ACS__H5_I64, -1);
  FIELD(t, struct acs__oprec, cmx_bytes, ACS__H5_I64, -1);
  FIELD(t, struct acs__oprec, cmx_alloc, ACS__H5_F64, NAN);
  FIELD(t, struct acs__oprec, cmx_free, ACS__H5_F64, NAN);
  FIELD(t, struct acs__oprec, update_barrier, ACS__H5_I32, -1);
  FIELD(t, struct acs__oprec, dur, ACS__H5_I64, -1);
  FIELD(t, struct acs__oprec, bytes, ACS__H5_I64, 0);
  FIELD(t, struct acs__oprec, src, ACS__H5_STR, 0);
  FIELD(t, struct acs__oprec, dst, ACS__H5_STR, 0);
  FIELD(t, struct acs__oprec, slots, ACS__H5_I32, 1);
  FIELD(t, struct acs__oprec, out_bytes, ACS__H5_I64, 0);
  if (nres < 0)
    nres = 0;
  if (nres > ACS_MAX_RES)
    nres = ACS_MAX_RES;
  for (i = 0; i < nres; i++) {
    snprintf(name, sizeof name, "demand_%s", res_names[i] ? res_names[i] : "");
    add_field(t, name, offsetof(struct acs__oprec, demand) + (size_t)i * sizeof(double),
              sizeof(double), ACS__H5_F64, 0);
    /* CMX demand is bytes; other resources count units of their own. */
    t->f[t->nfields - 1].unit = i == res_cmx ? "bytes" : "";
  }
  for (size_t k = 0; k < sizeof in_cycles / sizeof in_cycles[0]; k++)
    acs__h5_set_unit(t, in_cycles[k], "cycles");
  acs__h5_set_unit(t, "cmx_offset", "bytes");
  /* The record ends after the last used demand column, so a file stores no
   * unused padding; the offset of demand[] is a multiple of 8, hence so is
   * the stride. */
  t->size = offsetof(struct acs__oprec, demand) + (size_t)nres * sizeof(double);
}

void acs__tbl_resources(struct acs__h5table *t)
{
  memset(t, 0, sizeof *t);
  t->size = sizeof(struct acs__resrec);
  FIELD(t, struct acs__resrec, name, ACS__H5_STR, 0);
  FIELD(t, struct acs__resrec, kind, ACS__H5_STR, 0);
  FIELD(t, struct acs__resrec, capacity, ACS__H5_F64, 0);
}

void acs__tbl_edges(struct acs__h5table *t)
{
  memset(t, 0, sizeof *t);
  t->size = sizeof(struct acs__edgerec);
  FIELD(t, struct acs__edgerec, src, ACS__H5_I32, -1);
  FIELD(t, struct acs__edgerec, dst, ACS__H5_I32, -1);
  FIELD(t, struct acs__edgerec, kind, ACS__H5_STR, 0);
}

void acs__tbl_waits(struct acs__h5table *t)
{
  memset(t, 0, sizeof *t);
  t->size = sizeof(struct acs_wait);
  FIELD(t, struct acs_wait, op, ACS__H5_I32, -1);
  FIELD(t, struct acs_wait, barrier, ACS__H5_I32, -1);
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

/* ---- units ---- */

/* Sets string attribute `name` of loc to value unless it already holds it. */
static int attr_put_str(hid_t loc, const char *name, const char *value)
{
  char cur[64];

  if (acs__h5_attr_get_str(loc, name, cur, sizeof cur) == ACS_OK && strcmp(cur, value) == 0)
    return ACS_OK;
  return acs__h5_attr_set_str(loc, name, value);
}

int acs__h5_write_units(hid_t did, const struct acs__h5table *t)
{
  hid_t ftype = H5Dget_type(did);
  int nm = ftype >= 0 ? H5Tget_nmembers(ftype) : -1;
  int rc = nm < 0 ? ACS_EFORMAT : ACS_OK;

  for (int i = 0; rc == ACS_OK && i < nm; i++) {
    char *name = H5Tget_member_name(ftype, (unsigned)i), attr[32];
    const char *unit = NULL;
    if (!name) {
      rc = ACS_EFORMAT;
      break;
    }
    for (size_t k = 0; k < t->nfields && !unit; k++)
      if (strcmp(t->f[k].name, name) == 0)
        unit = acs__h5_field_unit(&t->f[k]);
    H5free_memory(name);
    snprintf(attr, sizeof attr, "FIELD_%d_UNITS", i);
    if (unit && attr_put_str(did, attr, unit) < 0)
      rc = ACS_EIO;
  }
  if (ftype >= 0)
    H5Tclose(ftype);
  return rc;
}

/* Copies the FIELD_<i>_UNITS attributes of yd to xd (same column order),
 * for columns [0, n). */
static int copy_units(hid_t xd, hid_t yd, int n)
{
  char attr[32], unit[64];

  for (int i = 0; i < n; i++) {
    snprintf(attr, sizeof attr, "FIELD_%d_UNITS", i);
    if (acs__h5_attr_get_str(yd, attr, unit, sizeof unit) == ACS_OK &&
        attr_put_str(xd, attr, unit) < 0)
      return ACS_EIO;
  }
  return ACS_OK;
}

/* Number of attributes of object oid, -1 on error. */
static int num_attrs(hid_t oid)
{
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;

  return H5Oget_info3(oid, &info, H5O_INFO_NUM_ATTRS) < 0 ? -1 : (int)info.num_attrs;
#else
  H5O_info_t info;

  return H5Oget_info2(oid, &info, H5O_INFO_NUM_ATTRS) < 0 ? -1 : (int)info.num_attrs;
#endif
}

static int nmembers(hid_t did)
{
  hid_t type = H5Dget_type(did);
  int n = type >= 0 ? H5Tget_nmembers(type) : -1;

  if (type >= 0)
    H5Tclose(type);
  return n;
}

/* ---- tables ---- */

/* A new HDF5 type for one field (the caller closes it). */
static hid_t field_type(const struct acs__h5field *f)
{
  hid_t t;

  switch (f->kind) {
  case ACS__H5_I32: return H5Tcopy(H5T_NATIVE_INT32);
  case ACS__H5_I64: return H5Tcopy(H5T_NATIVE_INT64);
  case ACS__H5_F64: return H5Tcopy(H5T_NATIVE_DOUBLE);
  default:
    /* Names, paths and messages are UTF-8 (ASCII is a subset of it). */
    t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, f->size) < 0 ||
                   H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
                   H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
      H5Tclose(t);
      return -1;
    }
    return t;
  }
}

/*
 * Rows written per call: a table of 10^6 rows (a large schedule's ops) took
 * about 2 s to compress and write in one call, during which Ctrl-C waited.
 * Written in slices of this many rows, with the interrupt flag polled
 * between them, it stops within about 0.1 s; the file is the same (the
 * chunks do not depend on how the rows arrive).
 */
#define MAKE_SLICE ((hsize_t)65536)

/* Appends rows [done, n) of buf to the new table in slices; the interrupt
 * flag is polled before each. */
static int append_slices(hid_t loc, const char *name, const struct acs__h5table *t,
                         hsize_t done, hsize_t n, const void *buf, const hid_t *types)
{
  size_t sizes[ACS__H5_MAXF], offs[ACS__H5_MAXF];

  for (size_t i = 0; i < t->nfields; i++) {
    sizes[i] = H5Tget_size(types[i]);
    offs[i] = t->f[i].off;
  }
  while (done < n) {
    hsize_t k = n - done < MAKE_SLICE ? n - done : MAKE_SLICE;
    if (acs_interrupt_pending())
      return ACS_EINTERRUPTED;
    if (H5TBappend_records(loc, name, k, t->size, offs, sizes,
                           (const char *)buf + done * t->size) < 0)
      return ACS_EIO;
    done += k;
  }
  return ACS_OK;
}

int acs__h5_make(hid_t loc, const char *name, const struct acs__h5table *t,
                 hsize_t n, const void *buf, hsize_t chunk, int compress)
{
  const char *names[ACS__H5_MAXF];
  size_t offs[ACS__H5_MAXF];
  hid_t types[ACS__H5_MAXF];
  hsize_t first = n < MAKE_SLICE ? n : MAKE_SLICE;
  size_t i, made = 0;
  int rc = ACS_EIO;

  for (i = 0; i < t->nfields; i++) {
    names[i] = t->f[i].name;
    offs[i] = t->f[i].off;
    types[i] = field_type(&t->f[i]);
    if (types[i] < 0)
      goto out_with_types;
    made++;
  }
  if (chunk == 0)
    chunk = 1;
  if (H5TBmake_table(name, loc, name, t->nfields, first, t->size, names, offs, types,
                     chunk, NULL, compress, first ? buf : NULL) >= 0) {
    hid_t did = H5Dopen2(loc, name, H5P_DEFAULT);
    if (did >= 0) {
      rc = acs__h5_write_units(did, t);
      H5Dclose(did);
    }
    if (rc == ACS_OK)
      rc = append_slices(loc, name, t, first, n, buf, types);
  }
out_with_types:
  for (i = 0; i < made; i++)
    H5Tclose(types[i]);
  return rc;
}

static int kinds_compatible(int kind, H5T_class_t cls)
{
  if (kind == ACS__H5_STR)
    return cls == H5T_STRING;
  return cls == H5T_INTEGER || cls == H5T_FLOAT;
}

/* Gives the string type st the character set of member idx of ftype. */
static int same_cset(hid_t ftype, unsigned idx, hid_t st)
{
  hid_t mt = H5Tget_member_type(ftype, idx);
  H5T_cset_t cs = mt >= 0 ? H5Tget_cset(mt) : H5T_CSET_ERROR;

  if (mt >= 0)
    H5Tclose(mt);
  return cs == H5T_CSET_ERROR || H5Tset_cset(st, cs) < 0 ? ACS_EFORMAT : ACS_OK;
}

/*
 * The memory type of the columns of t that the file type ftype has (matched
 * by name); present[i] tells which. HDF5 converts compound types member by
 * member by name, so this reads or writes exactly the shared columns.
 */
static int memtype_by_name(hid_t ftype, const struct acs__h5table *t, hid_t *out,
                           int *present, size_t *npresent)
{
  hid_t mt, ft;
  size_t i;
  int idx;

  *npresent = 0;
  mt = H5Tcreate(H5T_COMPOUND, t->size);
  if (mt < 0)
    return ACS_EIO;
  for (i = 0; i < t->nfields; i++) {
    present[i] = 0;
    idx = H5Tget_member_index(ftype, t->f[i].name);
    if (idx < 0)
      continue;
    if (!kinds_compatible(t->f[i].kind, H5Tget_member_class(ftype, (unsigned)idx)))
      goto out_with_type;
    ft = field_type(&t->f[i]);
    /* HDF5 does not convert between ASCII and UTF-8 strings: read and
     * append in the file's own character set (older files say ASCII). */
    if (ft >= 0 && t->f[i].kind == ACS__H5_STR && same_cset(ftype, (unsigned)idx, ft) < 0) {
      H5Tclose(ft);
      goto out_with_type;
    }
    if (ft < 0 || H5Tinsert(mt, t->f[i].name, t->f[i].off, ft) < 0) {
      if (ft >= 0)
        H5Tclose(ft);
      goto out_with_type;
    }
    H5Tclose(ft);
    present[i] = 1;
    (*npresent)++;
  }
  *out = mt;
  return ACS_OK;

out_with_type:
  H5Tclose(mt);
  return ACS_EFORMAT;
}

static int dset_rows(hid_t did, hsize_t *n)
{
  hid_t sp = H5Dget_space(did);
  hsize_t dims[1];
  int ok;

  if (sp < 0)
    return ACS_EFORMAT;
  ok = H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, dims, NULL) == 1;
  H5Sclose(sp);
  if (!ok)
    return ACS_EFORMAT;
  *n = dims[0];
  return ACS_OK;
}

int acs__h5_rows_fit(hsize_t n, size_t size, size_t *bytes)
{
  if (n > SIZE_MAX || acs_mul_size((size_t)n, size, bytes) < 0 || *bytes > (size_t)INT64_MAX ||
      (int64_t)*bytes > acs_limit_get(ACS_LIMIT_BYTES))
    return ACS_ELIMIT;
  return ACS_OK;
}

int acs__h5_nrows(hid_t loc, const char *name, hsize_t *n)
{
  hid_t did = H5Dopen2(loc, name, H5P_DEFAULT);
  int rc;

  if (did < 0)
    return ACS_EFORMAT;
  rc = dset_rows(did, n);
  H5Dclose(did);
  return rc;
}

/* Writes n records of memory type mt at rows [start, start + n) of did. */
static int write_rows(hid_t did, hid_t mt, hsize_t start, hsize_t n, const void *buf)
{
  hid_t fsp, msp;
  int rc = ACS_EIO;

  fsp = H5Dget_space(did);
  if (fsp < 0)
    return ACS_EIO;
  msp = H5Screate_simple(1, &n, NULL);
  if (msp < 0)
    goto out_with_fspace;
  if (H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &start, NULL, &n, NULL) >= 0 &&
      H5Dwrite(did, mt, msp, fsp, H5P_DEFAULT, buf) >= 0)
    rc = ACS_OK;
  H5Sclose(msp);
out_with_fspace:
  H5Sclose(fsp);
  return rc;
}

static int read_rows(hid_t did, hid_t mt, hsize_t start, hsize_t n, void *buf)
{
  hid_t fsp, msp;
  int rc = ACS_EFORMAT;

  fsp = H5Dget_space(did);
  if (fsp < 0)
    return ACS_EFORMAT;
  msp = H5Screate_simple(1, &n, NULL);
  if (msp < 0)
    goto out_with_fspace;
  if (H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &start, NULL, &n, NULL) >= 0 &&
      H5Dread(did, mt, msp, fsp, H5P_DEFAULT, buf) >= 0)
    rc = ACS_OK;
  H5Sclose(msp);
out_with_fspace:
  H5Sclose(fsp);
  return rc;
}

int acs__h5_append_dset(hid_t did, const struct acs__h5table *t, hsize_t n,
                        const void *buf)
{
  int present[ACS__H5_MAXF];
  size_t npresent;
  hid_t ftype, mt;
  hsize_t old, grown;
  int rc;

  if (n == 0)
    return ACS_OK;
  ftype = H5Dget_type(did);
  if (ftype < 0)
    return ACS_EFORMAT;
  rc = memtype_by_name(ftype, t, &mt, present, &npresent);
  if (rc < 0)
    goto out_with_ftype;
  rc = ACS_EFORMAT;
  if (npresent == 0 || dset_rows(did, &old) < 0)
    goto out_with_mtype;
  rc = ACS_EIO;
  grown = old + n;
  if (H5Dset_extent(did, &grown) < 0)
    goto out_with_mtype;
  rc = write_rows(did, mt, old, n, buf);
  if (rc < 0)
    H5Dset_extent(did, &old); /* keep the table as it was */
out_with_mtype:
  H5Tclose(mt);
out_with_ftype:
  H5Tclose(ftype);
  return rc;
}

int acs__h5_write_dset(hid_t did, const struct acs__h5table *t, hsize_t start, hsize_t n,
                       const void *buf)
{
  int present[ACS__H5_MAXF];
  size_t npresent;
  hid_t ftype, mt;
  hsize_t rows;
  int rc;

  if (n == 0)
    return ACS_OK;
  ftype = H5Dget_type(did);
  if (ftype < 0)
    return ACS_EFORMAT;
  rc = memtype_by_name(ftype, t, &mt, present, &npresent);
  if (rc < 0)
    goto out_with_ftype;
  rc = ACS_EFORMAT;
  if (npresent > 0 && dset_rows(did, &rows) == ACS_OK && start <= rows && n <= rows - start)
    rc = write_rows(did, mt, start, n, buf);
  H5Tclose(mt);
out_with_ftype:
  H5Tclose(ftype);
  return rc;
}

int acs__h5_append(hid_t loc, const char *name, const struct acs__h5table *t,
                   hsize_t n, const void *buf)
{
  hid_t did;
  int rc;

  if (n == 0)
    return ACS_OK;
  did = H5Dopen2(loc, name, H5P_DEFAULT);
  if (did < 0)
    return ACS_EFORMAT;
  rc = acs__h5_append_dset(did, t, n, buf);
  H5Dclose(did);
  return rc;
}

int acs__h5_copy_rows(hid_t xd, hid_t yd, hsize_t from, hsize_t to)
{
  hid_t type;
  size_t tsize;
  hsize_t batch, at, n, have;
  char *buf;
  int rc = ACS_EIO;

  if (to <= from)
    return ACS_OK;
  type = H5Dget_type(yd);
  if (type < 0)
    return ACS_EIO;
  tsize = H5Tget_size(type);
  batch = tsize ? (hsize_t)(ACS__H5_COPY_BYTES / tsize) : 1;
  if (batch == 0)
    batch = 1;
  if (batch > to - from)
    batch = to - from;
  buf = malloc((size_t)batch * tsize);
  if (!buf) {
    rc = ACS_ENOMEM;
    goto out_with_type;
  }
  /* Grow only: rows past `to` (a row patched in the middle) stay. */
  if (dset_rows(xd, &have) < 0 || (have < to && H5Dset_extent(xd, &to) < 0))
    goto out_with_buf;
  /* The dataset's own file type serves as the memory type on both sides,
   * so rows move as raw bytes without conversion. */
  for (at = from; at < to; at += n) {
    n = to - at < batch ? to - at : batch;
    if (read_rows(yd, type, at, n, buf) < 0 || write_rows(xd, type, at, n, buf) < 0)
      goto out_with_buf;
  }
  rc = ACS_OK;
out_with_buf:
  free(buf);
out_with_type:
  H5Tclose(type);
  return rc;
}

int acs__h5_sync_table(hid_t x, hid_t y, const char *name)
{
  hid_t yd, xd = -1, yt, xt;
  hsize_t nx, ny;
  int rc = ACS_EIO;

  yd = H5Dopen2(y, name, H5P_DEFAULT);
  if (yd < 0)
    return ACS_EIO;
  yt = H5Dget_type(yd);
  if (yt < 0)
    goto out_with_y;
  if (H5Lexists(x, name, H5P_DEFAULT) > 0) {
    xd = H5Dopen2(x, name, H5P_DEFAULT);
    xt = xd >= 0 ? H5Dget_type(xd) : -1;
    if (xt < 0 || H5Tequal(xt, yt) <= 0) {
      /* Another layout (an upgraded table): replace it whole. */
      if (xd >= 0)
        H5Dclose(xd);
      xd = -1;
      if (H5Ldelete(x, name, H5P_DEFAULT) < 0)
        goto out_with_ytype;
    }
    if (xt >= 0)
      H5Tclose(xt);
  }
  if (xd < 0) {
    if (H5Ocopy(y, name, x, name, H5P_DEFAULT, H5P_DEFAULT) >= 0)
      rc = ACS_OK;
    goto out_with_ytype;
  }
  /* Tables only grow, so x's rows are a prefix of y's. */
  if (dset_rows(xd, &nx) == ACS_OK && dset_rows(yd, &ny) == ACS_OK && ny >= nx)
    rc = acs__h5_copy_rows(xd, yd, nx, ny);
  /* The units y's writer gave the columns when x lacks some (units are
   * only ever added, so equal attribute counts mean x has them all; the
   * count keeps a checkpoint from reading every attribute). */
  if (rc == ACS_OK && num_attrs(xd) != num_attrs(yd))
    rc = copy_units(xd, yd, nmembers(yd));
  H5Dclose(xd);
out_with_ytype:
  H5Tclose(yt);
out_with_y:
  H5Dclose(yd);
  return rc;
}

/* Stores the default of field f at p (a string default is ""). */
static void put_default(char *p, const struct acs__h5field *f)
{
  int32_t i32;
  int64_t i64;

  switch (f->kind) {
  case ACS__H5_STR:
    memset(p, 0, f->size);
    break;
  case ACS__H5_I32:
    i32 = (int32_t)f->dflt;
    memcpy(p, &i32, sizeof i32);
    break;
  case ACS__H5_I64:
    i64 = (int64_t)f->dflt;
    memcpy(p, &i64, sizeof i64);
    break;
  default:
    memcpy(p, &f->dflt, sizeof(double));
  }
}

/* Gives columns the file lacks their defaults and terminates strings. */
static void fix_records(const struct acs__h5table *t, const int *present,
                        hsize_t n, char *buf)
{
  const struct acs__h5field *f;
  hsize_t r;
  size_t i;

  for (i = 0; i < t->nfields; i++) {
    f = &t->f[i];
    for (r = 0; r < n; r++) {
      char *p = buf + r * t->size + f->off;

      if (!present[i])
        put_default(p, f);
      else if (f->kind == ACS__H5_STR)
        p[f->size - 1] = '\0';
    }
  }
}

int acs__h5_read(hid_t loc, const char *name, const struct acs__h5table *t,
                 hsize_t start, hsize_t n, void *buf)
{
  int present[ACS__H5_MAXF];
  size_t npresent;
  hid_t did, ftype, mt;
  int rc;

  did = H5Dopen2(loc, name, H5P_DEFAULT);
  if (did < 0)
    return ACS_EFORMAT;
  rc = ACS_EFORMAT;
  ftype = H5Dget_type(did);
  if (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND)
    goto out_with_ftype;
  rc = memtype_by_name(ftype, t, &mt, present, &npresent);
  if (rc < 0)
    goto out_with_ftype;
  if (n > 0 && npresent > 0)
    rc = read_rows(did, mt, start, n, buf);
  if (rc == ACS_OK)
    fix_records(t, present, n, buf);
  H5Tclose(mt);
out_with_ftype:
  if (ftype >= 0)
    H5Tclose(ftype);
  H5Dclose(did);
  return rc;
}

/* ---- upgrade: add missing columns to an older table ---- */

struct layout {
  size_t n;
  char **names;            /* H5Tget_member_name results, or t's names */
  int *owned;              /* names[i] must be H5free_memory'd */
  size_t *offs;
  hid_t *types;
};

static void layout_free(struct layout *l)
{
  size_t i;

  for (i = 0; i < l->n; i++) {
    if (l->owned[i])
      H5free_memory(l->names[i]);
    if (l->types[i] >= 0)
      H5Tclose(l->types[i]);
  }
  free(l->names);
  free(l->owned);
  free(l->offs);
  free(l->types);
}

static size_t round8(size_t x)
{
  return (x + 7) & ~(size_t)7;
}

/*
 * The upgraded layout: every member of ftype at its offset (bytes copied as
 * they are), then each missing column of t at the next multiple of 8.
 */
static int build_layout(hid_t ftype, const struct acs__h5table *t, const int *missing,
                        size_t nmissing, struct layout *l, size_t *size)
{
  int nm = H5Tget_nmembers(ftype);
  size_t i, k, cap, off;

  memset(l, 0, sizeof *l);
  if (nm < 0)
    return ACS_EFORMAT;
  cap = (size_t)nm + nmissing;
  l->names = calloc(cap, sizeof *l->names);
  l->owned = calloc(cap, sizeof *l->owned);
  l->offs = calloc(cap, sizeof *l->offs);
  l->types = malloc(cap * sizeof *l->types);
  if (!l->names || !l->owned || !l->offs || !l->types) {
    layout_free(l);
    return ACS_ENOMEM;
  }
  for (i = 0; i < cap; i++)
    l->types[i] = -1;
  for (i = 0; i < (size_t)nm; i++, l->n++) {
    l->names[i] = H5Tget_member_name(ftype, (unsigned)i);
    l->owned[i] = l->names[i] != NULL;
    l->offs[i] = H5Tget_member_offset(ftype, (unsigned)i);
    l->types[i] = H5Tget_member_type(ftype, (unsigned)i);
    /* Variable-length members hold pointers; their bytes cannot be moved. */
    if (!l->names[i] || l->types[i] < 0 || H5Tdetect_class(l->types[i], H5T_VLEN) ||
        H5Tis_variable_str(l->types[i]) > 0) {
      l->n++;
      layout_free(l);
      return ACS_EFORMAT;
    }
    /* Strings acsim wrote are UTF-8 whatever an older file's tag says; the
     * tag changes, the bytes do not. */
    if (H5Tget_class(l->types[i]) == H5T_STRING &&
        H5Tset_cset(l->types[i], H5T_CSET_UTF8) < 0) {
      l->n++;
      layout_free(l);
      return ACS_EIO;
    }
  }
  off = round8(H5Tget_size(ftype));
  for (k = 0; k < t->nfields; k++) {
    if (!missing[k])
      continue;
    l->names[l->n] = (char *)t->f[k].name;
    l->offs[l->n] = off;
    l->types[l->n] = field_type(&t->f[k]);
    l->n++;
    if (l->types[l->n - 1] < 0) {
      layout_free(l);
      return ACS_EIO;
    }
    off += round8(t->f[k].size);
  }
  *size = off;
  return ACS_OK;
}

static int rewrite_table(hid_t loc, const char *name, hid_t did, hid_t ftype,
                         const struct acs__h5table *t, const int *missing,
                         size_t nmissing, hsize_t chunk)
{
  const char tmpname[] = ".acsim-upgrade";
  struct layout l;
  size_t osize, nsize, k, j;
  hsize_t n, r;
  char *obuf = NULL, *nbuf = NULL;
  int rc;

  rc = build_layout(ftype, t, missing, nmissing, &l, &nsize);
  if (rc < 0)
    return rc;
  osize = H5Tget_size(ftype);
  rc = dset_rows(did, &n);
  if (rc < 0)
    goto out_with_layout;
  rc = ACS_ENOMEM;
  obuf = calloc(n ? (size_t)n : 1, osize);
  nbuf = calloc(n ? (size_t)n : 1, nsize);
  if (!obuf || !nbuf)
    goto out_with_bufs;
  rc = ACS_EFORMAT;
  if (n > 0 && H5Dread(did, ftype, H5S_ALL, H5S_ALL, H5P_DEFAULT, obuf) < 0)
    goto out_with_bufs;
  for (r = 0; r < n; r++) {
    memcpy(nbuf + r * nsize, obuf + r * osize, osize);
    for (k = 0, j = l.n - nmissing; k < t->nfields; k++)
      if (missing[k])
        put_default(nbuf + r * nsize + l.offs[j++], &t->f[k]);
  }
  rc = ACS_EIO;
  if (H5Lmove(loc, name, loc, tmpname, H5P_DEFAULT, H5P_DEFAULT) < 0)
    goto out_with_bufs;
  if (H5TBmake_table(name, loc, name, l.n, n, nsize, (const char **)l.names, l.offs,
                     l.types, chunk ? chunk : 1, NULL, 1, n ? nbuf : NULL) < 0) {
    H5Lmove(loc, tmpname, loc, name, H5P_DEFAULT, H5P_DEFAULT);
    goto out_with_bufs;
  }
  H5Ldelete(loc, tmpname, H5P_DEFAULT);
  /* The kept columns keep their place, hence their units attributes. */
  {
    hid_t nd = H5Dopen2(loc, name, H5P_DEFAULT);
    rc = nd >= 0 ? copy_units(nd, did, (int)(l.n - nmissing)) : ACS_EIO;
    if (nd >= 0)
      H5Dclose(nd);
  }
out_with_bufs:
  free(obuf);
  free(nbuf);
out_with_layout:
  layout_free(&l);
  return rc;
}

/* Whether a string member of the compound ftype is tagged ASCII. */
static int has_ascii_strings(hid_t ftype)
{
  int nm = H5Tget_nmembers(ftype), ascii = 0;

  for (int i = 0; i < nm && !ascii; i++) {
    hid_t mt = H5Tget_member_type(ftype, (unsigned)i);
    if (mt < 0)
      continue;
    ascii = H5Tget_class(mt) == H5T_STRING && H5Tget_cset(mt) == H5T_CSET_ASCII;
    H5Tclose(mt);
  }
  return ascii;
}

int acs__h5_upgrade(hid_t loc, const char *name, const struct acs__h5table *t,
                    hsize_t chunk, int *changed)
{
  int missing[ACS__H5_MAXF];
  size_t i, nmissing = 0;
  hid_t did, ftype;
  int rc = ACS_EFORMAT;

  *changed = 0;
  did = H5Dopen2(loc, name, H5P_DEFAULT);
  if (did < 0)
    return ACS_EFORMAT;
  ftype = H5Dget_type(did);
  if (ftype < 0 || H5Tget_class(ftype) != H5T_COMPOUND)
    goto out_with_dset;
  for (i = 0; i < t->nfields; i++) {
    missing[i] = H5Tget_member_index(ftype, t->f[i].name) < 0;
    nmissing += (size_t)missing[i];
  }
  rc = ACS_OK;
  if (nmissing > 0 || has_ascii_strings(ftype)) {
    rc = rewrite_table(loc, name, did, ftype, t, missing, nmissing, chunk);
    *changed = rc == ACS_OK;
  }
out_with_dset:
  if (ftype >= 0)
    H5Tclose(ftype);
  H5Dclose(did);
  if (rc == ACS_OK) {
    did = H5Dopen2(loc, name, H5P_DEFAULT);
    rc = did >= 0 ? acs__h5_write_units(did, t) : ACS_EFORMAT;
    if (did >= 0)
      H5Dclose(did);
  }
  return rc;
}

/* ---- attributes ---- */

int acs__h5_attr_set_str(hid_t loc, const char *name, const char *value)
{
  hid_t type, space, attr;
  size_t len = strlen(value);
  int rc = ACS_EIO;

  if (H5Aexists(loc, name) > 0 && H5Adelete(loc, name) < 0)
    return ACS_EIO;
  type = H5Tcopy(H5T_C_S1);
  if (type < 0)
    return ACS_EIO;
  if (H5Tset_size(type, len + 1) < 0 || H5Tset_strpad(type, H5T_STR_NULLTERM) < 0 ||
      H5Tset_cset(type, H5T_CSET_UTF8) < 0)
    goto out_with_type;
  space = H5Screate(H5S_SCALAR);
  if (space < 0)
    goto out_with_type;
  attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr >= 0) {
    if (H5Awrite(attr, type, value) >= 0)
      rc = ACS_OK;
    H5Aclose(attr);
  }
  H5Sclose(space);
out_with_type:
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

int acs__h5_attr_get_str(hid_t loc, const char *name, char *buf, size_t size)
{
  hid_t attr, type, space;
  int rc = ACS_EFORMAT;

  if (H5Aexists(loc, name) <= 0)
    return ACS_ENOTFOUND;
  attr = H5Aopen(loc, name, H5P_DEFAULT);
  if (attr < 0)
    return ACS_EFORMAT;
  type = H5Aget_type(attr);
  space = H5Aget_space(attr);
  if (type < 0 || space < 0 || H5Tget_class(type) != H5T_STRING ||
      H5Sget_simple_extent_npoints(space) != 1)
    goto out_with_attr;
  if (H5Tget_cset(type) == H5T_CSET_ERROR)
    goto out_with_attr;
  if (H5Tis_variable_str(type) > 0)
    rc = read_vlen_str(attr, H5Tget_cset(type), buf, size);
  else
    rc = read_fixed_str(attr, H5Tget_cset(type), H5Tget_size(type), buf, size);
out_with_attr:
  if (space >= 0)
    H5Sclose(space);
  if (type >= 0)
    H5Tclose(type);
  H5Aclose(attr);
  return rc;
}

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

int acs__h5_attr_get_f64(hid_t loc, const char *name, double *value)
{
  hid_t attr, type, space;
  int rc = ACS_EFORMAT;

  if (H5Aexists(loc, name) <= 0)
    return ACS_ENOTFOUND;
  attr = H5Aopen(loc, name, H5P_DEFAULT);
  if (attr < 0)
    return ACS_EFORMAT;
  type = H5Aget_type(attr);
  space = H5Aget_space(attr);
  if (type >= 0 && space >= 0 &&
      (H5Tget_class(type) == H5T_FLOAT || H5Tget_class(type) == H5T_INTEGER) &&
      H5Sget_simple_extent_npoints(space) == 1 &&
      H5Aread(attr, H5T_NATIVE_DOUBLE, value) >= 0)
    rc = ACS_OK;
  if (space >= 0)
    H5Sclose(space);
  if (type >= 0)
    H5Tclose(type);
  H5Aclose(attr);
  return rc;
}

int acs__h5_attr_get_i64(hid_t loc, const char *name, int64_t *value)
{
  hid_t attr, type, space;
  int rc = ACS_EFORMAT;

  if (H5Aexists(loc, name) <= 0)
    return ACS_ENOTFOUND;
  attr = H5Aopen(loc, name, H5P_DEFAULT);
  if (attr < 0)
    return ACS_EFORMAT;
  type = H5Aget_type(attr);
  space = H5Aget_space(attr);
  if (type >= 0 && space >= 0 && H5Tget_class(type) == H5T_INTEGER &&
      H5Sget_simple_extent_npoints(space) == 1 &&
      H5Aread(attr, H5T_NATIVE_INT64, value) >= 0)
    rc = ACS_OK;
  if (space >= 0)
    H5Sclose(space);
  if (type >= 0)
    H5Tclose(type);
  H5Aclose(attr);
  return rc;
}
