/*
 * results_h5_table.c - by-name table I/O over HDF5 for the results writer
 * and reader (see results_h5.h): column units, making and appending tables,
 * reading them by column name, copying rows between files, and upgrading an
 * older table with the columns it lacks.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5_hl.h>

#include "report/results_h5_int.h"

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

/* HDF5's native type of a number column of this kind. */
static hid_t native_type(int kind)
{
  return kind == ACS__H5_I32 ? H5T_NATIVE_INT32 : kind == ACS__H5_I64 ? H5T_NATIVE_INT64
                                                                     : H5T_NATIVE_DOUBLE;
}

/* A new HDF5 type for one field (results_h5_int.h). */
hid_t acs__h5_field_type(const struct acs__h5field *f)
{
  hid_t t;

  switch (f->kind) {
  case ACS__H5_I32:
  case ACS__H5_I64:
  case ACS__H5_F64: return H5Tcopy(native_type(f->kind));
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
 * The string attributes a new table gets (H5TB's layout, units): none
 * exists yet, so each is created without a look-up, and all share one
 * scalar dataspace and one string type, resized per value: four HDF5
 * calls an attribute. Through H5LTset_attribute_string (and
 * acs__h5_attr_set_str for units) each took twelve, one of them opening
 * the table by name and one copying every attribute already there to look
 * for the name, quadratic in the columns (a /runs table has 26 and, with
 * their units, some 50 attributes).
 */
struct strattrs {
  hid_t obj, type, space;
  H5T_cset_t cset;
};

static int strattrs_open(struct strattrs *a, hid_t obj)
{
  a->obj = obj;
  a->cset = H5T_CSET_ASCII;
  a->type = H5Tcopy(H5T_C_S1);
  a->space = H5Screate(H5S_SCALAR);
  if (a->type >= 0 && a->space >= 0 && H5Tset_strpad(a->type, H5T_STR_NULLTERM) >= 0 &&
      H5Tset_cset(a->type, a->cset) >= 0)
    return ACS_OK;
  if (a->type >= 0)
    H5Tclose(a->type);
  if (a->space >= 0)
    H5Sclose(a->space);
  return ACS_EIO;
}

static void strattrs_close(struct strattrs *a)
{
  H5Tclose(a->type);
  H5Sclose(a->space);
}

/* Attribute `name` = value, fixed-length, NUL-terminated, in cset; the
 * object must have none of that name. */
static int strattrs_put(struct strattrs *a, const char *name, const char *value, H5T_cset_t cset)
{
  hid_t attr;
  int rc;

  if (cset != a->cset && H5Tset_cset(a->type, cset) < 0)
    return ACS_EIO;
  a->cset = cset;
  if (H5Tset_size(a->type, strlen(value) + 1) < 0)
    return ACS_EIO;
  attr = H5Acreate2(a->obj, name, a->type, a->space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr < 0)
    return ACS_EIO;
  rc = H5Awrite(attr, a->type, value) < 0 ? ACS_EIO : ACS_OK;
  H5Aclose(attr);
  return rc;
}

/* H5TB's attributes of a table (CLASS, VERSION, TITLE, FIELD_<i>_NAME,
 * ASCII as H5TB writes them) on the dataset did just created. */
static int layout_attrs(hid_t did, const char *name, size_t nfields, const char *const *names)
{
  struct strattrs a;
  char attr[40]; /* "FIELD_" + 20 digits + "_NAME" */
  int rc = strattrs_open(&a, did);

  if (rc < 0)
    return rc;
  if (strattrs_put(&a, "CLASS", "TABLE", H5T_CSET_ASCII) < 0 ||
      strattrs_put(&a, "VERSION", "3.0", H5T_CSET_ASCII) < 0 ||
      strattrs_put(&a, "TITLE", name, H5T_CSET_ASCII) < 0)
    rc = ACS_EIO;
  for (size_t i = 0; rc == ACS_OK && i < nfields; i++) {
    snprintf(attr, sizeof attr, "FIELD_%zu_NAME", i);
    rc = strattrs_put(&a, attr, names[i], H5T_CSET_ASCII);
  }
  strattrs_close(&a);
  return rc;
}

/* The units of a table just made from t (its columns, in order, have no
 * units attributes yet): what acs__h5_write_units writes (UTF-8), without
 * its look-ups. */
static int new_units(hid_t did, const struct acs__h5table *t)
{
  struct strattrs a;
  char attr[40]; /* "FIELD_" + 20 digits + "_UNITS" */
  int rc = strattrs_open(&a, did);

  if (rc < 0)
    return rc;
  for (size_t i = 0; rc == ACS_OK && i < t->nfields; i++) {
    const char *unit = acs__h5_field_unit(&t->f[i]);
    snprintf(attr, sizeof attr, "FIELD_%zu_UNITS", i);
    if (unit)
      rc = strattrs_put(&a, attr, unit, H5T_CSET_UTF8);
  }
  strattrs_close(&a);
  return rc;
}

/*
 * Creates the extendible, chunked compound dataset `name` of n rows from
 * buf (none when n is 0), with the attributes H5TB gives a table, so H5TB
 * and PyTables read it as theirs; returns it open, or -1.
 * Compressed tables are shuffled then deflated at level 1 rather than
 * H5TB's fixed level 6: h5repack of the default study's file took 1.23 s
 * of CPU instead of 1.88 s and made it 4.7 MB instead of 6.7 MB, since the
 * bytes of a column of integers or doubles compress better side by side.
 */
static hid_t make_table(hid_t loc, const char *name, size_t nfields, const char *const *names,
                        const size_t *offs, const hid_t *types, size_t size, hsize_t n,
                        const void *buf, hsize_t chunk, int compress)
{
  hsize_t dims[1] = {n}, maxdims[1] = {H5S_UNLIMITED}, chunks[1] = {chunk};
  hid_t type = H5Tcreate(H5T_COMPOUND, size), space = -1, dcpl = -1, did = -1;

  for (size_t i = 0; type >= 0 && i < nfields; i++)
    if (H5Tinsert(type, names[i], offs[i], types[i]) < 0)
      goto out_with_ids;
  if (type < 0 || (space = H5Screate_simple(1, dims, maxdims)) < 0 ||
      (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_chunk(dcpl, 1, chunks) < 0 ||
      (compress && (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 1) < 0)))
    goto out_with_ids;
  did = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (did >= 0 && ((n > 0 && H5Dwrite(did, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) ||
                   layout_attrs(did, name, nfields, names) < 0)) {
    H5Dclose(did);
    did = -1;
  }
out_with_ids:
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (space >= 0)
    H5Sclose(space);
  if (type >= 0)
    H5Tclose(type);
  return did;
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
  const char *names[ACS__H5_MAXF] = {0};
  size_t offs[ACS__H5_MAXF] = {0};
  hid_t types[ACS__H5_MAXF] = {0};
  hsize_t first = n < MAKE_SLICE ? n : MAKE_SLICE;
  size_t i, made = 0;
  hid_t did;
  int rc = ACS_EIO;

  for (i = 0; i < t->nfields; i++) {
    names[i] = t->f[i].name;
    offs[i] = t->f[i].off;
    types[i] = acs__h5_field_type(&t->f[i]);
    if (types[i] < 0)
      goto out_with_types;
    made++;
  }
  if (chunk == 0)
    chunk = 1;
  did = make_table(loc, name, t->nfields, names, offs, types, t->size, first, buf, chunk,
                   compress);
  if (did >= 0) {
    rc = new_units(did, t);
    H5Dclose(did);
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
    if (t->f[i].kind != ACS__H5_STR) {
      /* A number: HDF5's own native type (H5Tinsert copies it). */
      if (H5Tinsert(mt, t->f[i].name, t->f[i].off, native_type(t->f[i].kind)) < 0)
        goto out_with_type;
      present[i] = 1;
      (*npresent)++;
      continue;
    }
    ft = acs__h5_field_type(&t->f[i]);
    /* HDF5 does not convert between ASCII and UTF-8 strings: read and
     * append in the file's own character set (older files say ASCII). */
    if (ft < 0 || same_cset(ftype, (unsigned)idx, ft) < 0 ||
        H5Tinsert(mt, t->f[i].name, t->f[i].off, ft) < 0) {
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

int acs__h5_dset_rows(hid_t did, hsize_t *n)
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
  rc = acs__h5_dset_rows(did, n);
  H5Dclose(did);
  return rc;
}

/* Writes (`write`) or reads n records of memory type mt at rows [start,
 * start + n) of did. A failure is ACS_EIO writing, ACS_EFORMAT reading. */
static int transfer_rows(hid_t did, hid_t mt, hsize_t start, hsize_t n, void *buf, int write)
{
  hid_t fsp, msp;
  int fail = write ? ACS_EIO : ACS_EFORMAT, rc = fail;

  fsp = H5Dget_space(did);
  if (fsp < 0)
    return fail;
  msp = H5Screate_simple(1, &n, NULL);
  if (msp < 0)
    goto out_with_fspace;
  if (H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &start, NULL, &n, NULL) >= 0 &&
      (write ? H5Dwrite(did, mt, msp, fsp, H5P_DEFAULT, buf)
             : H5Dread(did, mt, msp, fsp, H5P_DEFAULT, buf)) >= 0)
    rc = ACS_OK;
  H5Sclose(msp);
out_with_fspace:
  H5Sclose(fsp);
  return rc;
}

static int write_rows(hid_t did, hid_t mt, hsize_t start, hsize_t n, const void *buf)
{
  /* H5Dwrite takes a const buffer; transfer_rows only writes from it. */
  return transfer_rows(did, mt, start, n, (void *)(uintptr_t)buf, 1);
}

static int read_rows(hid_t did, hid_t mt, hsize_t start, hsize_t n, void *buf)
{
  return transfer_rows(did, mt, start, n, buf, 0);
}

/* The file type of did and the memory type of t over its columns, matched
 * by name (close both); ACS_EFORMAT when no column matches. */
static int dset_types(hid_t did, const struct acs__h5table *t, hid_t *ftype, hid_t *mt)
{
  int present[ACS__H5_MAXF];
  size_t npresent;
  int rc;

  *ftype = H5Dget_type(did);
  if (*ftype < 0)
    return ACS_EFORMAT;
  rc = memtype_by_name(*ftype, t, mt, present, &npresent);
  if (rc >= 0 && npresent == 0) {
    H5Tclose(*mt);
    rc = ACS_EFORMAT;
  }
  if (rc < 0)
    H5Tclose(*ftype);
  return rc;
}

/*
 * Writes n records of t at rows [start, start + n) of did, which must hold
 * them; with `append`, at its end instead (start is ignored), the table
 * grown by n first and shrunk back when the write fails. One body for
 * appending and overwriting, so that both match columns by name and fail
 * alike: ACS_EFORMAT when the types or rows do not fit, ACS_EIO writing.
 */
static int put_rows(hid_t did, const struct acs__h5table *t, hsize_t start, hsize_t n,
                    const void *buf, int append)
{
  hid_t ftype, mt;
  hsize_t rows, grown;
  int rc;

  if (n == 0)
    return ACS_OK;
  if ((rc = dset_types(did, t, &ftype, &mt)) < 0)
    return rc;
  rc = ACS_EFORMAT;
  if (acs__h5_dset_rows(did, &rows) < 0)
    goto out_with_types;
  if (append) {
    rc = ACS_EIO;
    start = rows;
    grown = rows + n;
    if (H5Dset_extent(did, &grown) < 0)
      goto out_with_types;
    rows = grown;
  }
  rc = ACS_EFORMAT;
  if (start <= rows && n <= rows - start)
    rc = write_rows(did, mt, start, n, buf);
  if (rc < 0 && append)
    H5Dset_extent(did, &start); /* keep the table as it was */
out_with_types:
  H5Tclose(mt);
  H5Tclose(ftype);
  return rc;
}

int acs__h5_append_dset(hid_t did, const struct acs__h5table *t, hsize_t n,
                        const void *buf)
{
  return put_rows(did, t, 0, n, buf, 1);
}

int acs__h5_write_dset(hid_t did, const struct acs__h5table *t, hsize_t start, hsize_t n,
                       const void *buf)
{
  return put_rows(did, t, start, n, buf, 0);
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
  if (acs__h5_dset_rows(xd, &have) < 0 || (have < to && H5Dset_extent(xd, &to) < 0))
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
  if (acs__h5_dset_rows(xd, &nx) == ACS_OK && acs__h5_dset_rows(yd, &ny) == ACS_OK && ny >= nx)
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

/* Opens table `name` under loc and its file type, compound as every
 * table's is; ACS_EFORMAT, with nothing left open, when either fails. The
 * start of reading a table and of upgrading it. */
static int open_table(hid_t loc, const char *name, hid_t *did, hid_t *ftype)
{
  *did = H5Dopen2(loc, name, H5P_DEFAULT);
  if (*did < 0)
    return ACS_EFORMAT;
  *ftype = H5Dget_type(*did);
  if (*ftype >= 0 && H5Tget_class(*ftype) == H5T_COMPOUND)
    return ACS_OK;
  if (*ftype >= 0)
    H5Tclose(*ftype);
  H5Dclose(*did);
  return ACS_EFORMAT;
}

int acs__h5_read(hid_t loc, const char *name, const struct acs__h5table *t,
                 hsize_t start, hsize_t n, void *buf)
{
  hid_t did = H5Dopen2(loc, name, H5P_DEFAULT);
  int rc;

  if (did < 0)
    return ACS_EFORMAT;
  rc = acs__h5_read_dset(did, t, start, n, buf);
  H5Dclose(did);
  return rc;
}

int acs__h5_read_dset(hid_t did, const struct acs__h5table *t, hsize_t start, hsize_t n,
                      void *buf)
{
  int present[ACS__H5_MAXF];
  size_t npresent;
  hid_t ftype, mt;
  int rc = ACS_EFORMAT;

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
    l->types[l->n] = acs__h5_field_type(&t->f[k]);
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
  hid_t nd;
  int rc;

  rc = build_layout(ftype, t, missing, nmissing, &l, &nsize);
  if (rc < 0)
    return rc;
  osize = H5Tget_size(ftype);
  rc = acs__h5_dset_rows(did, &n);
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
  nd = make_table(loc, name, l.n, (const char *const *)l.names, l.offs, l.types, nsize, n, nbuf,
                  chunk ? chunk : 1, 1);
  if (nd < 0) {
    H5Lmove(loc, tmpname, loc, name, H5P_DEFAULT, H5P_DEFAULT);
    goto out_with_bufs;
  }
  H5Ldelete(loc, tmpname, H5P_DEFAULT);
  /* The kept columns keep their place, hence their units attributes. */
  rc = copy_units(nd, did, (int)(l.n - nmissing));
  H5Dclose(nd);
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
  int rc;

  *changed = 0;
  if ((rc = open_table(loc, name, &did, &ftype)) < 0)
    return rc;
  for (i = 0; i < t->nfields; i++) {
    missing[i] = H5Tget_member_index(ftype, t->f[i].name) < 0;
    nmissing += (size_t)missing[i];
  }
  rc = ACS_OK;
  if (nmissing > 0 || has_ascii_strings(ftype)) {
    rc = rewrite_table(loc, name, did, ftype, t, missing, nmissing, chunk);
    *changed = rc == ACS_OK;
  }
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
