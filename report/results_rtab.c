/*
 * results_rtab.c - family result tables (core/model/rtab.h) in HDF5.
 *
 * A table is the dataset /schedules/run_<id>/<name>: one compound record per
 * row whose fields are the columns (int64, float64, or UTF-8 text of the
 * column's longest value), an attribute `FIELD_<i>_UNITS` for every column
 * i (from 0) with a unit, as on the common tables (results_h5.c), and one
 * scalar attribute per table attribute. Reading takes
 * every dataset of a run's group that is not a common table (ops,
 * resources, edges, waits) as a result table, so a reader needs no
 * knowledge of the family that wrote it. O(rows x columns) each way.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/results_h5_int.h"

/* One column's place in a packed record. */
struct colpos {
  size_t off, size;
  H5T_cset_t cset;   /* text: acsim writes UTF-8; a reader takes the file's */
};

static hid_t str_type(size_t size, H5T_cset_t cset)
{
  hid_t t = H5Tcopy(H5T_C_S1);

  if (t >= 0 && (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
                 H5Tset_cset(t, cset) < 0)) {
    H5Tclose(t);
    return -1;
  }
  return t;
}

/* Packed layout: text columns as wide as their longest value plus its NUL. */
static size_t layout(const struct acs_rtab *t, struct colpos *pos)
{
  size_t off = 0;

  for (int32_t c = 0; c < t->ncols; c++) {
    size_t size = 8;
    if (t->cols[c].type == ACS_RTAB_STR) {
      size = 2;
      for (int64_t r = 0; r < t->nrows; r++) {
        size_t len = strlen(acs_rtab_get(t, r, c).s) + 1;
        size = len > size ? len : size;
      }
    }
    pos[c] = (struct colpos){off, size, H5T_CSET_UTF8};
    off += size;
  }
  return off;
}

static hid_t compound(const struct acs_rtab *t, const struct colpos *pos, size_t size)
{
  hid_t ct = H5Tcreate(H5T_COMPOUND, size);

  for (int32_t c = 0; ct >= 0 && c < t->ncols; c++) {
    hid_t ft = t->cols[c].type == ACS_RTAB_I64   ? H5Tcopy(H5T_NATIVE_INT64)
               : t->cols[c].type == ACS_RTAB_F64 ? H5Tcopy(H5T_NATIVE_DOUBLE)
                                                 : str_type(pos[c].size, pos[c].cset);
    int bad = ft < 0 || H5Tinsert(ct, t->cols[c].name, pos[c].off, ft) < 0;
    if (ft >= 0)
      H5Tclose(ft);
    if (bad) {
      H5Tclose(ct);
      return -1;
    }
  }
  return ct;
}

static unsigned char *pack(const struct acs_rtab *t, const struct colpos *pos, size_t size)
{
  size_t bytes;
  unsigned char *buf;

  if (acs_mul_size((size_t)t->nrows, size, &bytes) || !(buf = calloc(1, bytes + 1)))
    return NULL;
  for (int64_t r = 0; r < t->nrows; r++)
    for (int32_t c = 0; c < t->ncols; c++) {
      unsigned char *at = buf + (size_t)r * size + pos[c].off;
      union acs_rtab_val v = acs_rtab_get(t, r, c);
      if (t->cols[c].type == ACS_RTAB_I64)
        memcpy(at, &v.i, 8);
      else if (t->cols[c].type == ACS_RTAB_F64)
        memcpy(at, &v.f, 8);
      else
        memcpy(at, v.s, strlen(v.s));
    }
  return buf;
}

static int attr_write(hid_t loc, const char *name, hid_t type, const void *value)
{
  hid_t space = H5Screate(H5S_SCALAR), attr;
  int rc = ACS_EIO;

  if (space < 0)
    return ACS_EIO;
  attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr >= 0) {
    rc = H5Awrite(attr, type, value) >= 0 ? ACS_OK : ACS_EIO;
    H5Aclose(attr);
  }
  H5Sclose(space);
  return rc;
}

static int attr_write_str(hid_t loc, const char *name, const char *value)
{
  hid_t type = str_type(strlen(value) + 1, H5T_CSET_UTF8);
  int rc;

  if (type < 0)
    return ACS_EIO;
  rc = attr_write(loc, name, type, value);
  H5Tclose(type);
  return rc;
}

static int write_attrs(hid_t ds, const struct acs_rtab *t)
{
  char name[ACS_RTAB_NAME_MAX + 8];
  int rc = ACS_OK;

  for (int32_t c = 0; rc == ACS_OK && c < t->ncols; c++)
    if (t->cols[c].units[0]) {
      snprintf(name, sizeof(name), "FIELD_%d_UNITS", (int)c);
      rc = attr_write_str(ds, name, t->cols[c].units);
    }
  for (int32_t k = 0; rc == ACS_OK && k < t->nattrs; k++) {
    const struct acs_rtab_attr *a = &t->attrs[k];
    if (a->type == ACS_RTAB_I64)
      rc = attr_write(ds, a->name, H5T_NATIVE_INT64, &a->v.i);
    else if (a->type == ACS_RTAB_F64)
      rc = attr_write(ds, a->name, H5T_NATIVE_DOUBLE, &a->v.f);
    else
      rc = attr_write_str(ds, a->name, a->v.s);
  }
  if (rc == ACS_OK && t->show)
    rc = attr_write(ds, "acsim_show", H5T_NATIVE_INT32, &(int32_t){1});
  return rc;
}

static hid_t make_dataset(hid_t g, const struct acs_rtab *t, hid_t ct)
{
  hsize_t dims[1] = {(hsize_t)t->nrows}, maxd[1] = {H5S_UNLIMITED};
  hsize_t chunk[1] = {t->nrows > 1024 ? 1024 : t->nrows > 0 ? (hsize_t)t->nrows : 1};
  hid_t space = H5Screate_simple(1, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE), ds = -1;

  if (space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, chunk) >= 0 &&
      H5Pset_deflate(dcpl, 1) >= 0)
    ds = H5Dcreate2(g, t->name, ct, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (space >= 0)
    H5Sclose(space);
  return ds;
}

int acs__rtab_write(hid_t g, const struct acs_rtab *t)
{
  struct colpos pos[ACS_RTAB_MAX_COLS];
  size_t size = layout(t, pos);
  unsigned char *buf = pack(t, pos, size);
  hid_t ct, ds;
  int rc = ACS_EIO;

  if (!buf)
    return ACS_ENOMEM;
  if ((ct = compound(t, pos, size)) < 0)
    goto out_with_buf;
  if ((ds = make_dataset(g, t, ct)) >= 0) {
    if (t->nrows == 0 || H5Dwrite(ds, ct, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
      rc = write_attrs(ds, t);
    H5Dclose(ds);
  }
  H5Tclose(ct);
out_with_buf:
  free(buf);
  return rc;
}

/* ---- reading ---- */

static int col_from_member(hid_t ft, int m, struct acs_rtab_col *col, struct colpos *pos,
                           char *name, size_t name_size)
{
  hid_t mt = H5Tget_member_type(ft, (unsigned)m);
  char *mname = H5Tget_member_name(ft, (unsigned)m);
  H5T_class_t cls = mt >= 0 ? H5Tget_class(mt) : H5T_NO_CLASS;
  int rc = ACS_EFORMAT;

  if (mname && acs_rtab_name_ok(mname)) {
    snprintf(name, name_size, "%s", mname);
    col->name = name;
    pos->size = cls == H5T_STRING ? H5Tget_size(mt) : 8;
    pos->cset = cls == H5T_STRING ? H5Tget_cset(mt) : H5T_CSET_UTF8;
    if (cls == H5T_INTEGER || cls == H5T_FLOAT || (cls == H5T_STRING && pos->size > 0)) {
      col->type = cls == H5T_INTEGER ? ACS_RTAB_I64 : cls == H5T_FLOAT ? ACS_RTAB_F64
                                                                      : ACS_RTAB_STR;
      rc = ACS_OK;
    }
  }
  if (mname)
    H5free_memory(mname);
  if (mt >= 0)
    H5Tclose(mt);
  return rc;
}

/* The columns of a dataset's compound type, and the packed memory layout
 * in which it is read (native integers and doubles, fixed-length text). */
static int read_columns(hid_t ds, struct acs_rtab_col *cols, struct colpos *pos,
                        char (*names)[ACS_RTAB_NAME_MAX + 1], int32_t *ncols, size_t *size)
{
  hid_t ft = H5Dget_type(ds);
  int n = ft >= 0 && H5Tget_class(ft) == H5T_COMPOUND ? H5Tget_nmembers(ft) : -1;
  int rc = n > 0 && n <= ACS_RTAB_MAX_COLS ? ACS_OK : ACS_EFORMAT;

  *size = 0;
  for (int m = 0; rc == ACS_OK && m < n; m++) {
    rc = col_from_member(ft, m, &cols[m], &pos[m], names[m], sizeof(names[m]));
    pos[m].off = *size;
    *size += pos[m].size;
    cols[m].units = NULL;
  }
  if (ft >= 0)
    H5Tclose(ft);
  *ncols = n;
  return rc;
}

static int unpack_row(struct acs_rtab *t, const unsigned char *rec, const struct colpos *pos)
{
  int64_t r = acs_rtab_add_row(t);
  int rc = r < 0 ? (int)r : ACS_OK;

  for (int32_t c = 0; rc == ACS_OK && c < t->ncols; c++) {
    const unsigned char *at = rec + pos[c].off;
    if (t->cols[c].type == ACS_RTAB_I64) {
      int64_t v;
      memcpy(&v, at, 8);
      rc = acs_rtab_set_i64(t, r, c, v);
    } else if (t->cols[c].type == ACS_RTAB_F64) {
      double v;
      memcpy(&v, at, 8);
      rc = acs_rtab_set_f64(t, r, c, v);
    } else {
      char *s = malloc(pos[c].size + 1);
      if (!s)
        return ACS_ENOMEM;
      memcpy(s, at, pos[c].size);
      s[pos[c].size] = '\0';
      rc = acs_rtab_set_str(t, r, c, s);
      free(s);
    }
  }
  return rc;
}

static int read_rows(hid_t ds, struct acs_rtab *t, const struct colpos *pos, size_t size)
{
  hid_t space = H5Dget_space(ds), mt = compound(t, pos, size);
  hssize_t n = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
  unsigned char *buf = NULL;
  size_t bytes;
  int rc = ACS_EFORMAT;

  if (n < 0 || mt < 0)
    goto out;
  if ((rc = acs__h5_rows_fit((hsize_t)n, size, &bytes)) < 0)
    goto out;
  rc = ACS_ENOMEM;
  if (!(buf = malloc(bytes + 1)))
    goto out;
  rc = ACS_EFORMAT;
  if (n > 0 && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
    goto out;
  rc = ACS_OK;
  for (hssize_t r = 0; rc == ACS_OK && r < n; r++)
    rc = unpack_row(t, buf + (size_t)r * size, pos);
out:
  free(buf);
  if (mt >= 0)
    H5Tclose(mt);
  if (space >= 0)
    H5Sclose(space);
  return rc;
}

/* One scalar attribute into the table: units, the shown flag, or a value. */
static herr_t read_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
  struct acs_rtab *t = data;
  hid_t a = H5Aopen(loc, name, H5P_DEFAULT), type = a >= 0 ? H5Aget_type(a) : -1;
  H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
  char text[1024];
  int rc = ACS_OK;

  (void)info;
  if (cls == H5T_INTEGER) {
    int64_t v;
    if (H5Aread(a, H5T_NATIVE_INT64, &v) < 0)
      rc = ACS_EFORMAT;
    else if (strcmp(name, "acsim_show") == 0)
      t->show = v != 0;
    else
      rc = acs_rtab_attr_i64(t, name, v);
  } else if (cls == H5T_FLOAT) {
    double v;
    rc = H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0 ? ACS_EFORMAT : acs_rtab_attr_f64(t, name, v);
  } else if (cls == H5T_STRING && acs__h5_attr_get_str(loc, name, text, sizeof(text)) == 0) {
    int c;
    char tail;
    if (sscanf(name, "FIELD_%d_UNIT%c", &c, &tail) == 2 && tail == 'S') {
      const char *u = acs_arena_strdup(t->arena, text);
      if (c >= 0 && c < t->ncols && u)
        t->cols[c].units = u;
      rc = u ? ACS_OK : ACS_ENOMEM;
    } else {
      rc = acs_rtab_attr_str(t, name, text);
    }
  }
  if (type >= 0)
    H5Tclose(type);
  if (a >= 0)
    H5Aclose(a);
  /* Attributes acsim cannot represent (arrays, odd names) are skipped. */
  return rc == ACS_ENOMEM ? -1 : 0;
}

static int read_table(hid_t g, const char *name, struct acs_schedule *s)
{
  struct acs_rtab_col cols[ACS_RTAB_MAX_COLS];
  struct colpos pos[ACS_RTAB_MAX_COLS];
  char names[ACS_RTAB_MAX_COLS][ACS_RTAB_NAME_MAX + 1];
  struct acs_rtab *t;
  int32_t ncols = 0;
  size_t size;
  hid_t ds = H5Dopen2(g, name, H5P_DEFAULT);
  int rc;

  if (ds < 0)
    return ACS_EFORMAT;
  rc = read_columns(ds, cols, pos, names, &ncols, &size);
  if (rc == ACS_OK)
    rc = acs_schedule_add_rtab(s, name, cols, ncols, &t);
  if (rc == ACS_EINVAL)
    rc = ACS_EFORMAT;
  if (rc == ACS_OK)
    rc = read_rows(ds, t, pos, size);
  if (rc == ACS_OK && H5Aiterate2(ds, H5_INDEX_NAME, H5_ITER_INC, NULL, read_attr, t) < 0)
    rc = ACS_ENOMEM;
  H5Dclose(ds);
  return rc;
}

struct iter {
  struct acs_schedule *s;
  int rc;
  char bad[ACS_RTAB_NAME_MAX + 1];
};

static herr_t visit(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
  static const char *const common[] = {"ops", "resources", "edges", "waits", NULL};
  struct iter *it = data;
  hid_t o;
  int is_dataset;

  (void)info;
  for (const char *const *c = common; *c; c++)
    if (strcmp(*c, name) == 0)
      return 0;
  if ((o = H5Oopen(g, name, H5P_DEFAULT)) < 0)
    return 0;
  is_dataset = H5Iget_type(o) == H5I_DATASET;
  H5Oclose(o);
  if (!is_dataset)
    return 0;
  if ((it->rc = read_table(g, name, it->s)) < 0) {
    snprintf(it->bad, sizeof(it->bad), "%s", name);
    return -1;
  }
  return 0;
}

int acs__rtab_read_all(hid_t g, struct acs_schedule *s, char *bad, size_t bad_size)
{
  struct iter it = {s, ACS_OK, ""};

  if (H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, visit, &it) < 0 && it.rc == ACS_OK)
    it.rc = ACS_EFORMAT;
  snprintf(bad, bad_size, "%s", it.bad);
  return it.rc;
}
