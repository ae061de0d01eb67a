/*
 * fuzz-results.c - the HDF5 results files `acsim report`, `compare` and
 * `merge` read, truncated or with a wrong schema.
 *
 * The input does not become HDF5 bytes (libhdf5's own parser of corrupt
 * bytes is not acsim's to harden); it drives a program that writes a file
 * through HDF5 from acsim's own table descriptors and column types: the
 * root attributes with any type, the /platforms, /workloads and /runs
 * tables and a schedule group, each table's columns mutated (dropped,
 * retyped, resized, renamed, duplicated) and its rows taken from the
 * input; then the file may be cut short. Or it cuts tests/data/report/ascii-v1.h5 (a file of an older
 * acsim, with schedules) short. Then every reader: acs_results_read, each
 * stored schedule (and the verifier on it), acs_compare_data of the file
 * with itself, runs.csv and acs_merge into a new file. The readers open
 * the file once for the results and the schedules, as acs_merge does its
 * inputs.
 *
 * Input: a mode byte (bit 0: write a file by the program, else take
 * ascii-v1.h5; bit 1: truncate at the next four bytes, modulo the size),
 * then the program, one byte per choice (missing bytes are 0).
 */
#include "config.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/model/schedule.h"
#include "report/report.h"
#include "report/results_h5_int.h"
#include "tests/fuzz/fuzz.h"

struct in {
  const uint8_t *p;
  size_t n;
};

static unsigned next(struct in *in, unsigned range)
{
  unsigned v = 0;

  if (in->n > 0) {
    v = *in->p++;
    in->n--;
  }
  return range ? v % range : v;
}

/* ---- the program ---- */

/* Names a mutated column may take: some of every table's, and strangers. */
static const char *const column_names[] = {
  "platform_id", "name", "workload_id", "run_id", "scheduler", "status", "makespan_cycles",
  "op", "kind", "unit", "start", "end", "src", "dst", "capacity", "barrier", "demand_pe",
  "digest", "path", "ops", "edges", "cmx_kib", "message", "x", "",
};

static size_t field_size(int kind, unsigned strlen_choice)
{
  return kind == ACS__H5_STR ? 1 + strlen_choice : kind == ACS__H5_I32 ? 4 : 8;
}

/* Packs the fields in order (offsets and the record size). */
static void repack(struct acs__h5table *t)
{
  size_t off = 0;

  for (size_t i = 0; i < t->nfields; i++) {
    t->f[i].off = off;
    off += t->f[i].size;
  }
  t->size = off ? off : 1;
}

static void mutate(struct in *in, struct acs__h5table *t)
{
  unsigned k = next(in, 5);

  for (unsigned m = 0; m < k && t->nfields > 0; m++) {
    unsigned op = next(in, 5);
    size_t i = next(in, (unsigned)t->nfields);
    if (op == 0) {            /* drop a column */
      memmove(&t->f[i], &t->f[i + 1], (t->nfields - i - 1) * sizeof(t->f[0]));
      t->nfields--;
    } else if (op == 1) {     /* another kind */
      t->f[i].kind = (int)next(in, 4);
      t->f[i].size = field_size(t->f[i].kind, next(in, 80));
    } else if (op == 2) {     /* another name */
      snprintf(t->f[i].name, sizeof(t->f[i].name), "%s",
               column_names[next(in, sizeof(column_names) / sizeof(column_names[0]))]);
    } else if (op == 3 && t->nfields < ACS__H5_MAXF) {   /* a second column of that name */
      t->f[t->nfields++] = t->f[i];
    } else if (t->f[i].kind == ACS__H5_STR) {            /* a string of another size */
      t->f[i].size = field_size(ACS__H5_STR, next(in, 300));
    }
  }
  repack(t);
}

/*
 * Table `name` under loc as acsim stores one (chunks of 4 rows, deflated
 * or not) but without the attributes acs__h5_make gives it (H5TB's layout
 * and the units): no reader reads the attributes of a common table, and
 * making them (some fifty for a /runs table) took a third of the time
 * the harness spent writing its file.
 */
static void make_plain(hid_t loc, const char *name, const struct acs__h5table *t, hsize_t rows,
                       const void *buf, int compress)
{
  hsize_t dims[1] = {rows}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {4};
  hid_t type = H5Tcreate(H5T_COMPOUND, t->size), space = -1, dcpl = -1, did = -1;

  for (size_t i = 0; type >= 0 && i < t->nfields; i++) {
    hid_t ft = acs__h5_field_type(&t->f[i]);
    herr_t ok = ft >= 0 ? H5Tinsert(type, t->f[i].name, t->f[i].off, ft) : -1;
    if (ft >= 0)
      H5Tclose(ft);
    if (ok < 0)
      goto out_with_ids;
  }
  if (type < 0 || (space = H5Screate_simple(1, dims, maxdims)) < 0 ||
      (dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0 || H5Pset_chunk(dcpl, 1, chunk) < 0 ||
      (compress && (H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, 1) < 0)))
    goto out_with_ids;
  did = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (did >= 0 && rows > 0)
    H5Dwrite(did, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
out_with_ids:
  if (did >= 0)
    H5Dclose(did);
  if (dcpl >= 0)
    H5Pclose(dcpl);
  if (space >= 0)
    H5Sclose(space);
  if (type >= 0)
    H5Tclose(type);
}

/* Table `name` under loc from descriptor t, mutated, with rows from the
 * input; with acsim's table code (acs__h5_make, attributes and all) when
 * `attrs`, for the tables whose attributes are read. */
static void write_table(struct in *in, hid_t loc, const char *name, struct acs__h5table t,
                        int attrs)
{
  unsigned rows = next(in, 5);
  uint8_t *buf;
  int compress;

  mutate(in, &t);
  if (t.nfields == 0 || !(buf = calloc(rows ? rows : 1, t.size)))
    return;
  for (size_t i = 0; i < (size_t)rows * t.size; i++)
    buf[i] = (uint8_t)next(in, 0);
  compress = (int)next(in, 2);
  if (attrs)
    (void)acs__h5_make(loc, name, &t, rows, buf, 4, compress);
  else
    make_plain(loc, name, &t, rows, buf, compress);
  free(buf);
}

/* An attribute of loc of a type and value the input picks, or none. */
static void write_attr(struct in *in, hid_t loc, const char *name)
{
  unsigned kind = next(in, 5);
  int64_t v = (int8_t)next(in, 0);

  if (kind == 1)
    acs__h5_attr_set_i64(loc, name, v);
  else if (kind == 2)
    acs__h5_attr_set_i32(loc, name, (int32_t)v);
  else if (kind == 3)
    acs__h5_attr_set_f64(loc, name, (double)v);
  else if (kind == 4)
    acs__h5_attr_set_str(loc, name, v & 1 ? "1" : "");
}

static void write_schedule(struct in *in, hid_t f)
{
  static const char *const limits[] = {"norig", "cmx_capacity", "cmx_align", "barriers",
                                       "barrier_slots", "ddr_link_bytes_per_cycle",
                                       "ddr_transfer_bytes_per_cycle", "ddr_latency_cycles"};
  static const char *const res_names[] = {"pe", "dma", "cmx", "ddr"};
  struct acs__h5table t;
  char name[32];
  hid_t top, g;

  snprintf(name, sizeof(name), "run_%u", next(in, 4));
  top = H5Gcreate2(f, "schedules", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  g = top >= 0 ? H5Gcreate2(top, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  if (g >= 0) {
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
      write_attr(in, g, limits[i]);
    acs__tbl_resources(&t);
    write_table(in, g, "resources", t, 0);
    acs__tbl_ops(&t, (int)next(in, 5), res_names, 2);
    write_table(in, g, "ops", t, 0);
    acs__tbl_edges(&t);
    write_table(in, g, "edges", t, 0);
    acs__tbl_waits(&t);
    write_table(in, g, "waits", t, 0);
    if (next(in, 2)) {        /* a table of a family's own (or a stranger) */
      acs__tbl_waits(&t);
      write_table(in, g, next(in, 2) ? "ii" : "plans", t, 1);
    }
    H5Gclose(g);
  }
  if (top >= 0)
    H5Gclose(top);
}

/* Writes the program's file at path: built in memory (HDF5's core driver)
 * and written out in one piece when closed. 0, or -1 when HDF5 cannot
 * create it. */
static int write_program(struct in *in, const char *path)
{
  struct acs__h5table t;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = -1;

  if (fapl >= 0 && H5Pset_fapl_core(fapl, 64 << 10, 1) >= 0)
    f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (fapl >= 0)
    H5Pclose(fapl);
  if (f < 0)
    return -1;
  write_attr(in, f, "schema_version");
  write_attr(in, f, "acsim_version");
  write_attr(in, f, "command_line");
  if (next(in, 4)) {
    acs__tbl_platforms(&t);
    write_table(in, f, "platforms", t, 0);
  }
  if (next(in, 4)) {
    acs__tbl_workloads(&t);
    write_table(in, f, "workloads", t, 0);
  }
  if (next(in, 4)) {
    acs__tbl_runs(&t);
    write_table(in, f, "runs", t, 0);
  }
  if (next(in, 2))
    write_schedule(in, f);
  return H5Fclose(f) < 0 ? -1 : 0;
}

/* ---- the base file and truncation ---- */

static void *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  void *buf = NULL;
  long n;

  if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if (f)
    fclose(f);
  *len = buf ? (size_t)n : 0;
  return buf;
}

static const char *ascii_v1_path(void)
{
  static char path[1024];

  if (!path[0])
    snprintf(path, sizeof(path), "%s/tests/data/report/ascii-v1.h5", acs_fuzz_srcdir());
  return path;
}

/* Its bytes, read once. */
static const void *ascii_v1(size_t *len)
{
  static void *buf;
  static size_t n;

  if (!buf && !(buf = slurp(ascii_v1_path(), &n)))
    acs_fuzz_fail("cannot read tests/data/report/ascii-v1.h5", NULL);
  *len = n;
  return buf;
}

/* ---- the readers ---- */

static void read_schedules(hid_t f, const char *path, const struct acs_results_data *data)
{
  for (size_t i = 0; i < data->nruns && i < 4; i++) {
    struct acs_schedule s;
    struct acs_diag d;
    int err;
    acs_diag_init(&d);
    err = acs__results_read_schedule_file(f, path, data->runs[i].run_id, &s, &d);
    acs_fuzz_check_refusal(err, &d);
    if (err == ACS_OK) {
      acs_diag_init(&d);
      acs_fuzz_check_refusal(acs_schedule_verify(&s, &d), &d);
    }
    acs_schedule_destroy(&s);
  }
}

/* What acs_results_read, the first four acs_results_read_schedule, compare
 * and `acsim report`'s runs.csv do with the file at path, opened once
 * (acs__h5_open and the code of both readers on the open file, as
 * acs_merge reads its inputs); then acs_merge of it into a new file. */
static void read_everything(const char *path)
{
  struct acs_compare_opts o = {NULL, 0.01, ACS_KEY_NAME};
  struct acs_compare_result r;
  struct acs_results_data data;
  struct acs_merge_stats st;
  const char *inputs[1] = {path};
  char out[1024];
  struct acs_diag d;
  hid_t f;
  int err;

  acs_diag_init(&d);
  err = acs__h5_open(path, path, H5F_ACC_RDONLY, &f, &d);
  if (err == ACS_OK) {
    err = acs__results_read_file(f, path, &data, &d);
    if (err == ACS_OK)
      read_schedules(f, path, &data);
    H5Fclose(f);
  }
  acs_fuzz_check_refusal(err, &d);
  if (err == ACS_OK) {
    acs_diag_init(&d);
    err = acs_compare_data(&data, &data, &o, &r, &d);
    acs_fuzz_check_refusal(err, &d);
    if (err == ACS_OK)
      acs_compare_free(&r);
    snprintf(out, sizeof(out), "%s/runs.csv", acs_fuzz_dir());
    acs_diag_init(&d);
    acs_fuzz_check_refusal(acs_report_write_csv(&data, out, &d), &d);
    acs_results_data_free(&data);
  }
  snprintf(out, sizeof(out), "%s/merged.h5", acs_fuzz_dir());
  unlink(out);
  acs_diag_init(&d);
  acs_fuzz_check_refusal(acs_merge(inputs, 1, out, "fuzz", &st, &d), &d);
}

/* The next four bytes, for a cut. */
static uint32_t next_u32(struct in *in)
{
  uint32_t v = 0;

  for (int i = 0; i < 4; i++)
    v |= (uint32_t)next(in, 0) << (8 * i);
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct in in = {data, size};
  unsigned mode = next(&in, 4);
  const char *path;
  char written[1024];
  struct stat st;
  size_t len;

  acs_fuzz_init();
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  /* HDF5 keeps the blocks it frees on free lists of its own, up to a
   * limit per list; its file structures (the metadata cache of every open
   * file, over a megabyte) pass that limit, so each of the several opens
   * an input makes would map, zero and unmap them again: most of the time
   * of a run. Without limits HDF5 reuses them; what it holds is what one
   * run had in use at once. acsim's own allocations are unaffected. */
  static int free_lists;
  if (!free_lists++)
    H5set_free_list_limits(-1, -1, -1, -1, -1, -1);
  if (mode & 1) {
    snprintf(written, sizeof(written), "%s/in.h5", acs_fuzz_dir());
    if (write_program(&in, written) < 0)
      return 0;
    path = written;
    /* Cut short at an offset the input picks. */
    if (mode & 2 && stat(path, &st) == 0 &&
        truncate(path, st.st_size ? (off_t)(next_u32(&in) % (uint64_t)st.st_size) : 0) < 0)
      acs_fuzz_fail("cannot truncate the written file", NULL);
  } else if (mode & 2) {
    const void *base = ascii_v1(&len);
    path = acs_fuzz_file("in.h5", base, len ? next_u32(&in) % len : 0);
  } else {
    path = ascii_v1_path(); /* read where it is */
  }
  read_everything(path);
  return 0;
}
