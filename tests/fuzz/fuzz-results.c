/*
 * fuzz-results.c - the HDF5 results files `acsim report`, `compare` and
 * `merge` read, truncated or with a wrong schema.
 *
 * The input does not become HDF5 bytes (libhdf5's own parser of corrupt
 * bytes is not acsim's to harden); it drives a program that writes a file
 * through HDF5 with acsim's own table code: the root attributes with any
 * type, the /platforms, /workloads and /runs tables and a schedule group,
 * each table's columns mutated (dropped, retyped, resized, renamed,
 * duplicated) and its rows taken from the input; then the file may be cut
 * short. Or it cuts tests/data/report/ascii-v1.h5 (a file of an older
 * acsim, with schedules) short. Then every reader: acs_results_read, each
 * stored schedule (and the verifier on it), acs_compare_data of the file
 * with itself, runs.csv and acs_merge into a new file. The file is made
 * and read in memory (HDF5's core driver, a file image opened once for
 * the results and the schedules); acs_merge reads it from a file.
 *
 * Input: a mode byte (bit 0: write a file by the program, else take
 * ascii-v1.h5; bit 1: truncate at the next four bytes, modulo the size),
 * then the program, one byte per choice (missing bytes are 0).
 */
#include "config.h"

#include <hdf5.h>
#include <hdf5_hl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Table `name` under loc from descriptor t, mutated, with rows from the input. */
static void write_table(struct in *in, hid_t loc, const char *name, struct acs__h5table t)
{
  unsigned rows = next(in, 5);
  uint8_t *buf;

  mutate(in, &t);
  if (t.nfields == 0 || !(buf = calloc(rows ? rows : 1, t.size)))
    return;
  for (size_t i = 0; i < (size_t)rows * t.size; i++)
    buf[i] = (uint8_t)next(in, 0);
  (void)acs__h5_make(loc, name, &t, rows, buf, 4, (int)next(in, 2));
  free(buf);
}

/* An attribute of a type and value the input picks, or none. */
static void write_attr(struct in *in, hid_t loc, const char *obj, const char *name)
{
  unsigned kind = next(in, 5);
  int64_t v = (int8_t)next(in, 0);
  double x = (double)v;
  int i = (int)v;

  if (kind == 1)
    H5LTset_attribute_long_long(loc, obj, name, (const long long *)&v, 1);
  else if (kind == 2)
    H5LTset_attribute_int(loc, obj, name, &i, 1);
  else if (kind == 3)
    H5LTset_attribute_double(loc, obj, name, &x, 1);
  else if (kind == 4)
    H5LTset_attribute_string(loc, obj, name, v & 1 ? "1" : "");
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
      write_attr(in, g, ".", limits[i]);
    acs__tbl_resources(&t);
    write_table(in, g, "resources", t);
    acs__tbl_ops(&t, (int)next(in, 5), res_names, 2);
    write_table(in, g, "ops", t);
    acs__tbl_edges(&t);
    write_table(in, g, "edges", t);
    acs__tbl_waits(&t);
    write_table(in, g, "waits", t);
    if (next(in, 2)) {        /* a table of a family's own (or a stranger) */
      acs__tbl_waits(&t);
      write_table(in, g, next(in, 2) ? "ii" : "plans", t);
    }
    H5Gclose(g);
  }
  if (top >= 0)
    H5Gclose(top);
}

/* Writes the program's file in memory (HDF5's core driver, no backing
 * store: nothing touches the disk) and returns its image (malloc'd, *len
 * bytes), or NULL. */
static void *write_program(struct in *in, size_t *len)
{
  struct acs__h5table t;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = -1;
  void *image = NULL;
  ssize_t n;

  *len = 0;
  if (fapl >= 0 && H5Pset_fapl_core(fapl, 64 << 10, 0) >= 0)
    f = H5Fcreate("written.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (fapl >= 0)
    H5Pclose(fapl);
  if (f < 0)
    return NULL;
  write_attr(in, f, ".", "schema_version");
  write_attr(in, f, ".", "acsim_version");
  write_attr(in, f, ".", "command_line");
  if (next(in, 4)) {
    acs__tbl_platforms(&t);
    write_table(in, f, "platforms", t);
  }
  if (next(in, 4)) {
    acs__tbl_workloads(&t);
    write_table(in, f, "workloads", t);
  }
  if (next(in, 4)) {
    acs__tbl_runs(&t);
    write_table(in, f, "runs", t);
  }
  if (next(in, 2))
    write_schedule(in, f);
  /* The image of the file as closing it would leave it (it is flushed). */
  n = H5Fget_file_image(f, NULL, 0);
  if (n > 0 && (image = malloc((size_t)n)) != NULL &&
      H5Fget_file_image(f, image, (size_t)n) != n) {
    free(image);
    image = NULL;
  }
  if (H5Fclose(f) < 0) {
    free(image);
    image = NULL;
  }
  *len = image ? (size_t)n : 0;
  return image;
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

static const void *ascii_v1(size_t *len)
{
  static void *buf;
  static size_t n;
  char path[1024];

  if (!buf) {
    snprintf(path, sizeof(path), "%s/tests/data/report/ascii-v1.h5", acs_fuzz_srcdir());
    if (!(buf = slurp(path, &n)))
      acs_fuzz_fail("cannot read tests/data/report/ascii-v1.h5", NULL);
  }
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

/* The bytes as a read-only file on HDF5's core driver. Not through
 * H5LTopen_file_image: HDF5 1.10.8's high-level call loses its callback
 * state (72 bytes) whenever the open fails, which LeakSanitizer reports
 * on every truncated image. The fapl copies the image once. */
static hid_t open_image(void *image, size_t len)
{
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f = -1;

  if (fapl < 0)
    return -1;
  if (H5Pset_fapl_core(fapl, 65536, 0) >= 0 && H5Pset_file_image(fapl, image, len) >= 0)
    f = H5Fopen("image.h5", H5F_ACC_RDONLY, fapl);
  H5Pclose(fapl);
  return f;
}

/*
 * The file's bytes, opened once in memory (a file image) for
 * acs_results_read's and acs_results_read_schedule's code, through their
 * entry points on an open file; when HDF5 cannot open the image or the
 * file is not of this schema, those readers would refuse it at
 * acs__h5_open, which acs_merge's reading of the same bytes from `path`
 * (each open of a file costs HDF5 as much as reading a small one: it
 * sets up the file's metadata cache) still tests.
 */
static void read_everything(void *image, size_t len, const char *path)
{
  struct acs_compare_opts o = {NULL, 0.01, ACS_KEY_NAME};
  struct acs_compare_result r;
  struct acs_results_data data;
  struct acs_merge_stats st;
  const char *inputs[1] = {path};
  char out[1024];
  struct acs_diag d;
  int64_t version;
  hid_t f = len ? open_image(image, len) : -1;
  int err;

  if (f >= 0 && acs__h5_attr_get_i64(f, "schema_version", &version) == ACS_OK &&
      version == ACS_SCHEMA_VERSION) {
    acs_diag_init(&d);
    err = acs__results_read_file(f, path, &data, &d);
    acs_fuzz_check_refusal(err, &d);
    if (err == ACS_OK) {
      read_schedules(f, path, &data);
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
  }
  if (f >= 0)
    H5Fclose(f);
  snprintf(out, sizeof(out), "%s/merged.h5", acs_fuzz_dir());
  unlink(out);
  acs_diag_init(&d);
  acs_fuzz_check_refusal(acs_merge(inputs, 1, out, "fuzz", &st, &d), &d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct in in = {data, size};
  unsigned mode = next(&in, 4);
  void *buf;
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
    if (!(buf = write_program(&in, &len)))
      return 0;
  } else {
    const void *base = ascii_v1(&len);
    if (!(buf = malloc(len)))
      return 0;
    memcpy(buf, base, len);
  }
  if (mode & 2) {
    /* Cut short at an offset the input picks. */
    uint32_t cut = next(&in, 0) | next(&in, 0) << 8 | next(&in, 0) << 16 | next(&in, 0) << 24;
    len = len ? cut % len : 0;
  }
  read_everything(buf, len, acs_fuzz_file("in.h5", buf, len));
  free(buf);
  return 0;
}
