/*
 * results.c - the HDF5 results writer, schema 1 (DESIGN.md "HDF5 results").
 *
 * Atomic writes
 * -------------
 * The target T is never written in place. acs_results_open() copies T (when
 * it exists) to a private temporary W in T's directory and writes W. A
 * checkpoint closes W, fsyncs it, renames it over T and fsyncs the
 * directory: rename() is atomic, so at every instant T names either the old
 * file or the complete new one, and a crash leaves T as of the last
 * checkpoint (or as it was). The temporaries are named
 * ".<name>.acsim-<host>-<pid>-<n>.tmp"; abort and commit remove them. Only
 * a killed writer leaves some behind (T is intact then); the next open of T
 * on that host removes those whose process is gone.
 *
 * Continuing after a checkpoint without quadratic cost
 * ----------------------------------------------------
 * After W has been renamed over T, writing on must not touch that inode, so
 * the next W needs a second inode holding the same content. Copying T every
 * checkpoint would cost O(file size) each time, O(k * size) for k
 * checkpoints. Instead two inodes take turns:
 *  - we always hold a hard link ("spare") to the inode currently at T, made
 *    when it got there (at open for the original file);
 *  - at checkpoint k, W_k (state S_k) goes to T; the spare inode holds
 *    S_{k-1}, the previous checkpoint, and nobody else can see it any more;
 *  - it becomes the next W after *replaying* the delta S_k - S_{k-1} into
 *    it: rows of /platforms, /workloads and /runs past its row counts
 *    (tables only grow), the /runs rows replaced in place since (a retried
 *    run, acs_results_replace_run; we keep their row numbers), and the
 *    /schedules/run_<id> groups added or replaced since the last checkpoint
 *    (we keep their ids), copied from T with H5Ocopy;
 *  - a new spare link is made to the inode now at T.
 * Each checkpoint thus costs O(what was added since the previous one); the
 * whole file is copied only once, at open (or at the first checkpoint of a
 * new file, which has no previous inode yet). Where hard links are
 * unavailable (link() fails) the next W is a full copy of T instead: still
 * correct, just O(size). A spare is only a second name of an inode we own;
 * dropping it never changes T. It also lets a publish notice that another
 * process replaced T meanwhile, and refuse to overwrite its runs.
 */
/* realpath() is an X/Open interface. */
#define _XOPEN_SOURCE 700
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report/results.h"
#include "report/results_h5_int.h"

/*
 * Chunk sizes, in records. Tables are deflated: their fixed-length strings
 * are mostly padding (a /runs row shrinks from about 800 to 20 bytes). Each
 * close recompresses the last, partial chunk, so the appended tables use
 * small chunks (8-25 KiB) to keep a checkpoint cheap (about 1 ms here);
 * schedule tables are written once, in chunks of up to 1024 rows.
 */
#define CHUNK_SMALL 32
#define CHUNK_RUNS 32
#define CHUNK_SCHED 1024

/* ---- status names and run rows ---- */

static const char *const status_names[] = {"ok", "infeasible", "timeout", "error"};

const char *acs_status_name(int st)
{
  if (st < ACS_ST_OK || st > ACS_ST_ERROR)
    return "error";
  return status_names[st];
}

int acs_status_parse(const char *s)
{
  int i;

  for (i = ACS_ST_OK; s && i <= ACS_ST_ERROR; i++)
    if (strcmp(s, status_names[i]) == 0)
      return i;
  return -1;
}

void acs_run_row_init(struct acs_run_row *r)
{
  memset(r, 0, sizeof *r);
  r->run_id = -1;
  r->platform_id = -1;
  r->workload_id = -1;
  r->makespan_cycles = NAN;
  r->sim_makespan_cycles = NAN;
  r->lower_bound_cycles = NAN;
  r->network_bound_cycles = NAN;
  r->peak_cmx_bytes = -1;
  r->spill_bytes = -1;
  r->ddr_bytes = -1;
  r->barriers_used = -1;
  r->control_edges = -1;
  r->sched_seconds = NAN;
  r->sim_seconds = NAN;
  r->pe_utilization = NAN;
  r->dma_utilization = NAN;
  r->ii = NAN;
  r->mii = NAN;
  r->cycles_per_iter = NAN;
  r->ops = -1;
  r->edges = -1;
}

/* ---- a hash index of cached rows, for dedupe in O(1) expected ---- */

struct rowindex {
  uint32_t *slot;          /* row position + 1; 0 is empty */
  size_t cap;              /* a power of two, at least twice the rows */
};

typedef uint64_t (*row_hash_fn)(const void *rows, size_t i);
typedef int (*row_eq_fn)(const void *rows, size_t i, const void *key);

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
  const unsigned char *c = p;

  while (n--)
    h = (h ^ *c++) * 0x100000001b3ULL;
  return h;
}

#define FNV_BASIS 0xcbf29ce484222325ULL

static void idx_put(struct rowindex *ix, uint64_t h, size_t pos)
{
  size_t m = ix->cap - 1, i = (size_t)h & m;

  while (ix->slot[i])
    i = (i + 1) & m;
  ix->slot[i] = (uint32_t)(pos + 1);
}

/* Makes room for nrows + 1 rows (rehashing rows[0, nrows) when it grows). */
static int idx_reserve(struct rowindex *ix, size_t nrows, row_hash_fn hash,
                       const void *rows)
{
  struct rowindex nx;
  size_t i;

  if (nrows >= UINT32_MAX - 1)
    return ACS_ERANGE;
  if ((nrows + 1) * 2 <= ix->cap)
    return ACS_OK;
  nx.cap = ix->cap ? ix->cap : 16;
  while ((nrows + 1) * 2 > nx.cap)
    nx.cap *= 2;
  nx.slot = calloc(nx.cap, sizeof *nx.slot);
  if (!nx.slot)
    return ACS_ENOMEM;
  for (i = 0; i < nrows; i++)
    idx_put(&nx, hash(rows, i), i);
  free(ix->slot);
  *ix = nx;
  return ACS_OK;
}

static int idx_find(const struct rowindex *ix, uint64_t h, row_eq_fn eq,
                    const void *rows, const void *key, size_t *pos)
{
  size_t m, i;

  if (!ix->cap)
    return 0;
  m = ix->cap - 1;
  for (i = (size_t)h & m; ix->slot[i]; i = (i + 1) & m)
    if (eq(rows, ix->slot[i] - 1, key)) {
      *pos = ix->slot[i] - 1;
      return 1;
    }
  return 0;
}

static uint64_t hash_platform(const struct acs_platform *p)
{
  uint64_t h = fnv(FNV_BASIS, p->name, strlen(p->name));
  double x;
  int i;

  for (i = 0; i < ACS_PARAM_COUNT; i++) {
    x = p->v[i] == 0 ? 0.0 : p->v[i]; /* -0.0 == 0.0 must hash alike */
    h = fnv(h, &x, sizeof x);
  }
  return fnv(h, p->units, strlen(p->units));
}

static uint64_t hash_platform_row(const void *rows, size_t i)
{
  return hash_platform(&((const struct acs_platform_row *)rows)[i].plat);
}

static int same_platform(const void *rows, size_t i, const void *key)
{
  const struct acs_platform *a = &((const struct acs_platform_row *)rows)[i].plat;
  const struct acs_platform *b = key;
  int k;

  if (strcmp(a->name, b->name) != 0 || strcmp(a->units, b->units) != 0)
    return 0;
  for (k = 0; k < ACS_PARAM_COUNT; k++)
    if (!(a->v[k] == b->v[k]))
      return 0;
  return 1;
}

static uint64_t hash_workload(const struct acs_workload_row *w)
{
  uint64_t h = fnv(FNV_BASIS, w->name, strlen(w->name) + 1);

  h = fnv(h, w->path, strlen(w->path) + 1);
  h = fnv(h, w->kind, strlen(w->kind) + 1);
  return fnv(h, w->digest, strlen(w->digest));
}

static uint64_t hash_workload_row(const void *rows, size_t i)
{
  return hash_workload(&((const struct acs_workload_row *)rows)[i]);
}

static int same_workload(const void *rows, size_t i, const void *key)
{
  const struct acs_workload_row *a = &((const struct acs_workload_row *)rows)[i];
  const struct acs_workload_row *b = key;

  return strcmp(a->name, b->name) == 0 && strcmp(a->path, b->path) == 0 &&
         strcmp(a->kind, b->kind) == 0 && strcmp(a->digest, b->digest) == 0;
}

/* ---- the writer ---- */

struct acs_results {
  char *target;            /* the file renamed over (symlinks resolved) */
  char *shown;             /* the path as the caller gave it, for messages */
  char *dir;               /* target's directory, for temporaries and fsync */
  char *base;              /* target's file name */
  char *work;              /* the temporary being written, or NULL */
  char *spare;             /* a hard link to the inode at target, or NULL */
  char *freed;             /* the old work name after a publish (no file) */
  char *cmdline;
  char host[72];           /* gethostname(), part of temporary names */
  unsigned seq;            /* temporary name counter */
  hid_t file;              /* work, open read-write; -1 when closed */
  hid_t runs;              /* its /runs dataset, opened on first use; -1 */
  int dirty;               /* something not yet published */
  int had_target;          /* the target existed at open, or we published */
  int broken;              /* an error left work in an unknown state */

  struct acs__h5table tplat, twl, truns;

  struct acs_platform_row *plats;
  size_t nplats, cap_plats;
  struct rowindex pidx;
  int32_t next_pid;

  struct acs_workload_row *wls;
  size_t nwls, cap_wls;
  struct rowindex widx;
  int32_t next_wid;

  int64_t next_run;
  int64_t *epoch;          /* runs with schedules added since the last publish */
  size_t nepoch, cap_epoch;

  /* run_id of each /runs row, in row order (to find a row to replace), and
   * whether they increase (they do in files acsim writes: binary search). */
  int64_t *ids;
  size_t nids, cap_ids;
  int ids_sorted;
  /* Rows replaced since the last publish, for replay(). */
  struct patch {
    int64_t id;
    hsize_t row;
  } *patched;
  size_t npatched, cap_patched;
};

static char *dupstr(const char *s)
{
  size_t n = strlen(s) + 1;
  char *p = malloc(n);

  if (p)
    memcpy(p, s, n);
  return p;
}

/* Splits r->target into dir and base. */
static int split_target(struct acs_results *r)
{
  const char *slash = strrchr(r->target, '/');

  if (!slash) {
    r->dir = dupstr(".");
    r->base = dupstr(r->target);
  } else {
    size_t n = (size_t)(slash - r->target);

    r->dir = n ? malloc(n + 1) : dupstr("/");
    if (r->dir && n) {
      memcpy(r->dir, r->target, n);
      r->dir[n] = '\0';
    }
    r->base = dupstr(slash + 1);
  }
  return r->dir && r->base ? ACS_OK : ACS_ENOMEM;
}

/* The next temporary name "<dir>/.<base>.acsim-<host>-<pid>-<n>.tmp". */
static char *tmp_name(struct acs_results *r)
{
  size_t n = strlen(r->dir) + strlen(r->base) + strlen(r->host) + 64;
  char *p = malloc(n);

  if (p)
    snprintf(p, n, "%s/.%s.acsim-%s-%ld-%u.tmp", r->dir, r->base, r->host, (long)getpid(),
             r->seq++);
  return p;
}

/* The pid in a temporary's name when it is one of ours on this host, else 0. */
static long tmp_owner(const struct acs_results *r, const char *name)
{
  size_t nb = strlen(r->base), nh = strlen(r->host);
  const char *p = name;
  char *end;
  long pid;

  if (p[0] != '.' || strncmp(p + 1, r->base, nb) != 0 || strncmp(p + 1 + nb, ".acsim-", 7) != 0)
    return 0;
  p += 1 + nb + 7;
  if (strncmp(p, r->host, nh) != 0 || p[nh] != '-')
    return 0;
  pid = strtol(p + nh + 1, &end, 10);
  if (pid <= 0 || *end != '-')
    return 0;
  strtoul(end + 1, &end, 10);
  return strcmp(end, ".tmp") == 0 ? pid : 0;
}

/*
 * Removes temporaries of this target that writers on this host left when
 * they were killed (SIGKILL, a crash): those whose pid no longer runs. A
 * running writer's files are never touched. O(directory entries).
 */
static void sweep_stale(struct acs_results *r)
{
  DIR *dp = opendir(r->dir);
  struct dirent *e;
  char *path;
  size_t n;
  long pid;

  if (!dp)
    return;
  while ((e = readdir(dp))) {
    pid = tmp_owner(r, e->d_name);
    if (pid == 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue;
    n = strlen(r->dir) + strlen(e->d_name) + 2;
    path = malloc(n);
    if (!path)
      break;
    snprintf(path, n, "%s/%s", r->dir, e->d_name);
    unlink(path);
    free(path);
  }
  closedir(dp);
}

/* Creates a new temporary file; *fd is open read-write. */
static int create_tmp(struct acs_results *r, mode_t mode, char **name, int *fd)
{
  int tries;

  for (tries = 0; tries < 1000; tries++) {
    *name = tmp_name(r);
    if (!*name)
      return ACS_ENOMEM;
    *fd = open(*name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (*fd >= 0)
      return ACS_OK;
    free(*name);
    *name = NULL;
    if (errno != EEXIST)
      break;
  }
  return ACS_EIO;
}

/* Makes a new temporary name for the inode at src (a hard link). */
static int link_tmp(struct acs_results *r, const char *src, char **name)
{
  int tries;

  for (tries = 0; tries < 1000; tries++) {
    *name = tmp_name(r);
    if (!*name)
      return ACS_ENOMEM;
    if (link(src, *name) == 0)
      return ACS_OK;
    free(*name);
    *name = NULL;
    if (errno != EEXIST)
      break;
  }
  return ACS_EIO;
}

static int copy_fd(int in, int out)
{
  size_t cap = (size_t)1 << 20;
  char *buf = malloc(cap);
  ssize_t n, w;
  size_t off;
  int rc = ACS_OK;

  if (!buf)
    return ACS_ENOMEM;
  for (;;) {
    n = read(in, buf, cap);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      rc = n < 0 ? ACS_EIO : ACS_OK;
      break;
    }
    for (off = 0; off < (size_t)n; off += (size_t)w) {
      w = write(out, buf + off, (size_t)n - off);
      if (w < 0 && errno == EINTR)
        w = 0;
      else if (w < 0)
        goto out_with_buf;
    }
  }
  free(buf);
  return rc;
out_with_buf:
  free(buf);
  return ACS_EIO;
}

/* Copies the file at src into a new temporary (mode of src); sets r->work. */
static int copy_to_work(struct acs_results *r, const char *src, struct acs_diag *d)
{
  struct stat st;
  int in, out, rc;

  in = open(src, O_RDONLY | O_CLOEXEC);
  if (in < 0 || fstat(in, &st) < 0) {
    rc = acs__h5_fail(d, ACS_EIO, r->shown, "cannot read: %s", strerror(errno));
    goto out_with_in;
  }
  rc = create_tmp(r, 0600, &r->work, &out);
  if (rc < 0) {
    acs__h5_fail(d, rc, r->shown, "cannot create a temporary file in %s: %s", r->dir,
                 strerror(errno));
    goto out_with_in;
  }
  rc = copy_fd(in, out);
  if (rc == ACS_OK && fchmod(out, st.st_mode & 07777) < 0)
    rc = ACS_EIO;
  if (close(out) < 0 && rc == ACS_OK)
    rc = ACS_EIO;
  if (rc < 0)
    acs__h5_fail(d, rc, r->shown, "cannot copy to %s: %s", r->work, strerror(errno));
out_with_in:
  if (in >= 0)
    close(in);
  return rc;
}

static int fsync_path(const char *path, int dir)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
  int rc = 0;

  if (fd < 0)
    return -1;
  /* Some file systems cannot sync a directory; nothing better exists there. */
  if (fsync(fd) < 0 && !(dir && (errno == EINVAL || errno == ENOTSUP)))
    rc = -1;
  close(fd);
  return rc;
}

static void iso8601_now(char *buf, size_t size)
{
  time_t t = time(NULL);
  struct tm tm;

  if (gmtime_r(&t, &tm))
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
  else
    snprintf(buf, size, "unknown");
}

static int make_tables(hid_t f, struct acs_results *r)
{
  hid_t g;

  if (acs__h5_make(f, "platforms", &r->tplat, 0, NULL, CHUNK_SMALL, 1) < 0 ||
      acs__h5_make(f, "workloads", &r->twl, 0, NULL, CHUNK_SMALL, 1) < 0 ||
      acs__h5_make(f, "runs", &r->truns, 0, NULL, CHUNK_RUNS, 1) < 0)
    return ACS_EIO;
  g = H5Gcreate2(f, "schedules", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    return ACS_EIO;
  H5Gclose(g);
  return ACS_OK;
}

/* A new, empty results file as r->work. */
static int open_new(struct acs_results *r, struct acs_diag *d)
{
  char now[64];
  hid_t fapl;
  int fd, rc;

  rc = create_tmp(r, 0666, &r->work, &fd);
  if (rc < 0)
    return acs__h5_fail(d, rc, r->shown, "cannot create a temporary file in %s: %s",
                        r->dir, strerror(errno));
  close(fd);
  fapl = acs__h5_fapl();
  r->file = fapl < 0 ? -1 : H5Fcreate(r->work, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (fapl >= 0)
    H5Pclose(fapl);
  if (r->file < 0)
    return acs__h5_fail(d, ACS_EIO, r->shown, "cannot create an HDF5 file in %s", r->dir);
  iso8601_now(now, sizeof now);
  if (acs__h5_attr_set_i32(r->file, "schema_version", ACS_SCHEMA_VERSION) < 0 ||
      acs__h5_attr_set_str(r->file, "created_utc", now) < 0 || make_tables(r->file, r) < 0)
    return acs__h5_fail(d, ACS_EIO, r->shown, "cannot write the results tables");
  r->next_pid = 1;
  r->next_wid = 1;
  r->next_run = 1;
  r->ids_sorted = 1;
  return ACS_OK;
}

static int load_platforms(struct acs_results *r)
{
  hsize_t n;
  size_t i, bytes;
  int rc;


  rc = acs__h5_nrows(r->file, "platforms", &n);
  if (rc < 0 || n > UINT32_MAX / 4)
    return ACS_EFORMAT;
  if ((rc = acs__h5_rows_fit(n, sizeof *r->plats, &bytes)) < 0)
    return rc;
  if (acs_grow((void **)&r->plats, sizeof *r->plats, &r->cap_plats, (size_t)n + 1) < 0)
    return ACS_ENOMEM;
  rc = acs__h5_read(r->file, "platforms", &r->tplat, 0, n, r->plats);
  if (rc < 0)
    return rc;
  r->next_pid = 1;
  for (i = 0; i < (size_t)n; i++) {
    if (idx_reserve(&r->pidx, i, hash_platform_row, r->plats) < 0)
      return ACS_ENOMEM;
    idx_put(&r->pidx, hash_platform_row(r->plats, i), i);
    if (r->plats[i].platform_id >= r->next_pid && r->plats[i].platform_id < INT32_MAX)
      r->next_pid = r->plats[i].platform_id + 1;
  }
  r->nplats = (size_t)n;
  return ACS_OK;
}

static int load_workloads(struct acs_results *r)
{
  hsize_t n;
  size_t i, bytes;
  int rc;


  rc = acs__h5_nrows(r->file, "workloads", &n);
  if (rc < 0 || n > UINT32_MAX / 4)
    return ACS_EFORMAT;
  if ((rc = acs__h5_rows_fit(n, sizeof *r->wls, &bytes)) < 0)
    return rc;
  if (acs_grow((void **)&r->wls, sizeof *r->wls, &r->cap_wls, (size_t)n + 1) < 0)
    return ACS_ENOMEM;
  rc = acs__h5_read(r->file, "workloads", &r->twl, 0, n, r->wls);
  if (rc < 0)
    return rc;
  r->next_wid = 1;
  for (i = 0; i < (size_t)n; i++) {
    if (idx_reserve(&r->widx, i, hash_workload_row, r->wls) < 0)
      return ACS_ENOMEM;
    idx_put(&r->widx, hash_workload_row(r->wls, i), i);
    if (r->wls[i].workload_id >= r->next_wid && r->wls[i].workload_id < INT32_MAX)
      r->next_wid = r->wls[i].workload_id + 1;
  }
  r->nwls = (size_t)n;
  return ACS_OK;
}

/* The run ids in row order (kept to find a row to replace), and next_run =
 * max stored run_id + 1 (so appends continue the numbering). */
static int load_run_ids(struct acs_results *r)
{
  struct acs__h5table t;
  hsize_t n, i;
  size_t bytes;
  int rc;


  rc = acs__h5_nrows(r->file, "runs", &n);
  if (rc < 0 || n > SIZE_MAX / sizeof *r->ids)
    return ACS_EFORMAT;
  if ((rc = acs__h5_rows_fit(n, sizeof *r->ids, &bytes)) < 0)
    return rc;
  if (acs_grow((void **)&r->ids, sizeof *r->ids, &r->cap_ids, (size_t)n + 1) < 0)
    return ACS_ENOMEM;
  acs__tbl_runs_id(&t);
  rc = acs__h5_read(r->file, "runs", &t, 0, n, r->ids);
  r->next_run = 1;
  r->ids_sorted = 1;
  for (i = 0; rc == ACS_OK && i < n; i++) {
    if (i > 0 && r->ids[i] <= r->ids[i - 1])
      r->ids_sorted = 0;
    if (r->ids[i] >= r->next_run && r->ids[i] < INT64_MAX)
      r->next_run = r->ids[i] + 1;
  }
  r->nids = rc == ACS_OK ? (size_t)n : 0;
  return rc;
}

/* Checks and prepares an existing file opened as r->file. */
static int prepare_existing(struct acs_results *r, struct acs_diag *d)
{
  static const char *const tables[] = {"platforms", "workloads", "runs"};
  const struct acs__h5table *desc[] = {&r->tplat, &r->twl, &r->truns};
  const hsize_t chunk[] = {CHUNK_SMALL, CHUNK_SMALL, CHUNK_RUNS};
  hid_t g;
  int i, changed, rc;

  for (i = 0; i < 3; i++) {
    if (H5Lexists(r->file, tables[i], H5P_DEFAULT) <= 0)
      return acs__h5_fail(d, ACS_EFORMAT, r->shown, "no /%s table", tables[i]);
    /* An older file lacking columns gets them (with defaults) so the rows we
     * add keep every value. */
    rc = acs__h5_upgrade(r->file, tables[i], desc[i], chunk[i], &changed);
    if (rc < 0)
      return acs__h5_fail(d, rc, r->shown, "cannot read the /%s table", tables[i]);
  }
  if (H5Lexists(r->file, "schedules", H5P_DEFAULT) <= 0) {
    g = H5Gcreate2(r->file, "schedules", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
      return acs__h5_fail(d, ACS_EIO, r->shown, "cannot create /schedules");
    H5Gclose(g);
  }
  rc = load_platforms(r);
  if (rc == ACS_OK)
    rc = load_workloads(r);
  if (rc == ACS_OK)
    rc = load_run_ids(r);
  if (rc < 0)
    return acs__h5_fail(d, rc, r->shown, "cannot read the stored platforms, workloads or runs");
  return ACS_OK;
}

/* A copy of the existing target as r->work, and a spare link to it. */
static int open_existing(struct acs_results *r, struct acs_diag *d)
{
  struct stat a, b;
  int rc;

  /* Link first, then copy, then check that both saw the same inode: the
   * spare must hold exactly the state the work file starts from. */
  if (stat(r->target, &a) == 0 && link_tmp(r, r->target, &r->spare) == ACS_OK) {
    if (stat(r->spare, &b) < 0 || a.st_ino != b.st_ino || a.st_dev != b.st_dev) {
      unlink(r->spare);
      free(r->spare);
      r->spare = NULL;
    }
  }
  rc = copy_to_work(r, r->spare ? r->spare : r->target, d);
  if (rc < 0)
    return rc;
  rc = acs__h5_open(r->work, r->shown, H5F_ACC_RDWR, &r->file, d);
  if (rc < 0)
    return rc;
  return prepare_existing(r, d);
}

static void free_results(struct acs_results *r)
{
  free(r->target);
  free(r->shown);
  free(r->dir);
  free(r->base);
  free(r->work);
  free(r->spare);
  free(r->freed);
  free(r->cmdline);
  free(r->plats);
  free(r->pidx.slot);
  free(r->wls);
  free(r->widx.slot);
  free(r->epoch);
  free(r->ids);
  free(r->patched);
  free(r);
}

/* Closes and removes the temporaries, frees r. */
static void discard(struct acs_results *r)
{
  if (r->runs >= 0)
    H5Dclose(r->runs);
  if (r->file >= 0)
    H5Fclose(r->file);
  if (r->work)
    unlink(r->work);
  if (r->spare)
    unlink(r->spare); /* only a second name: the file at target stays */
  free_results(r);
}

static int set_target(struct acs_results *r, const char *path, int exists)
{
  if (gethostname(r->host, sizeof r->host - 1) < 0 || !r->host[0])
    snprintf(r->host, sizeof r->host, "localhost");
  for (char *c = r->host; *c; c++)
    if (*c == '/')
      *c = '_';
  r->shown = dupstr(path);
  /* Rename over the file a symlink points to, not over the symlink. */
  r->target = exists ? realpath(path, NULL) : dupstr(path);
  if (!r->shown || !r->target)
    return ACS_ENOMEM;
  return split_target(r);
}

int acs_results_open(const char *path, const char *command_line,
                     struct acs_results **out, struct acs_diag *d)
{
  struct acs_results *r;
  struct stat st;
  int exists, rc;

  *out = NULL;
  acs__h5_quiet();
  if (stat(path, &st) == 0)
    exists = 1;
  else if (errno == ENOENT)
    exists = 0;
  else
    return acs__h5_fail(d, ACS_EIO, path, "cannot open: %s", strerror(errno));
  if (exists && !S_ISREG(st.st_mode))
    return acs__h5_fail(d, ACS_EIO, path, "not a regular file");
  r = calloc(1, sizeof *r);
  if (!r)
    return acs__h5_fail(d, ACS_ENOMEM, path, "out of memory");
  r->file = -1;
  r->runs = -1;
  acs__tbl_platforms(&r->tplat);
  acs__tbl_workloads(&r->twl);
  acs__tbl_runs(&r->truns);
  rc = set_target(r, path, exists);
  if (rc == ACS_OK) {
    r->cmdline = dupstr(command_line ? command_line : "");
    rc = r->cmdline ? ACS_OK : ACS_ENOMEM;
  }
  if (rc < 0) {
    acs__h5_fail(d, rc, path, "out of memory");
    goto out_with_results;
  }
  sweep_stale(r);
  r->had_target = exists;
  rc = exists ? open_existing(r, d) : open_new(r, d);
  if (rc < 0)
    goto out_with_results;
  if (acs__h5_attr_set_str(r->file, "acsim_version", PACKAGE_VERSION) < 0 ||
      acs__h5_attr_set_str(r->file, "command_line", r->cmdline) < 0) {
    rc = acs__h5_fail(d, ACS_EIO, path, "cannot write the root attributes");
    goto out_with_results;
  }
  r->dirty = 1;
  *out = r;
  return ACS_OK;

out_with_results:
  discard(r);
  return rc;
}

/* ---- adding rows ---- */

static int writable(const struct acs_results *r)
{
  return r && !r->broken && r->file >= 0;
}

int acs_results_add_platform(struct acs_results *r, const struct acs_platform *p,
                             int32_t *id)
{
  struct acs_platform_row row;
  size_t pos;
  int rc;

  if (!writable(r) || !p || !id)
    return r && r->broken ? ACS_EIO : ACS_EINVAL;
  memset(&row, 0, sizeof row);
  acs__strfill(row.plat.name, sizeof row.plat.name, p->name);
  memcpy(row.plat.v, p->v, sizeof row.plat.v);
  /* The unit counts of loop workloads are part of the variant. */
  acs__strfill(row.plat.units, sizeof row.plat.units, p->units);
  if (idx_find(&r->pidx, hash_platform(&row.plat), same_platform, r->plats, &row.plat, &pos)) {
    *id = r->plats[pos].platform_id;
    return ACS_OK;
  }
  if (r->next_pid == INT32_MAX)
    return ACS_ERANGE;
  if (acs_grow((void **)&r->plats, sizeof *r->plats, &r->cap_plats, r->nplats + 1) < 0 ||
      idx_reserve(&r->pidx, r->nplats, hash_platform_row, r->plats) < 0)
    return ACS_ENOMEM;
  row.platform_id = r->next_pid;
  rc = acs__h5_append(r->file, "platforms", &r->tplat, 1, &row);
  if (rc < 0)
    return rc;
  r->plats[r->nplats] = row;
  idx_put(&r->pidx, hash_platform(&row.plat), r->nplats++);
  r->next_pid++;
  r->dirty = 1;
  *id = row.platform_id;
  return ACS_OK;
}

int acs_results_add_workload(struct acs_results *r, const struct acs_workload_row *w,
                             int32_t *id)
{
  struct acs_workload_row row;
  size_t pos;
  int rc;

  if (!writable(r) || !w || !id)
    return r && r->broken ? ACS_EIO : ACS_EINVAL;
  memset(&row, 0, sizeof row);
  acs__strfill(row.name, sizeof row.name, w->name);
  acs__strfill(row.path, sizeof row.path, w->path);
  acs__strfill(row.kind, sizeof row.kind, w->kind);
  row.ops = w->ops;
  row.edges = w->edges;
  acs__strfill(row.digest, sizeof row.digest, w->digest);
  if (idx_find(&r->widx, hash_workload(&row), same_workload, r->wls, &row, &pos)) {
    *id = r->wls[pos].workload_id;
    return ACS_OK;
  }
  if (r->next_wid == INT32_MAX)
    return ACS_ERANGE;
  if (acs_grow((void **)&r->wls, sizeof *r->wls, &r->cap_wls, r->nwls + 1) < 0 ||
      idx_reserve(&r->widx, r->nwls, hash_workload_row, r->wls) < 0)
    return ACS_ENOMEM;
  row.workload_id = r->next_wid;
  rc = acs__h5_append(r->file, "workloads", &r->twl, 1, &row);
  if (rc < 0)
    return rc;
  r->wls[r->nwls] = row;
  idx_put(&r->widx, hash_workload(&row), r->nwls++);
  r->next_wid++;
  r->dirty = 1;
  *id = row.workload_id;
  return ACS_OK;
}

/* A zeroed copy of the caller's row (padding and string tails included, so
 * files are byte-for-byte deterministic) with run_id set. */
static void run_record(struct acs_run_row *rec, const struct acs_run_row *row, int64_t id)
{
  memset(rec, 0, sizeof *rec);
  rec->run_id = id;
  rec->platform_id = row->platform_id;
  rec->workload_id = row->workload_id;
  acs__strfill(rec->scheduler, sizeof rec->scheduler, row->scheduler);
  acs__strfill(rec->options, sizeof rec->options, row->options);
  acs__strfill(rec->status, sizeof rec->status, row->status);
  acs__strfill(rec->memory_model, sizeof rec->memory_model, row->memory_model);
  rec->makespan_cycles = row->makespan_cycles;
  rec->sim_makespan_cycles = row->sim_makespan_cycles;
  rec->lower_bound_cycles = row->lower_bound_cycles;
  rec->network_bound_cycles = row->network_bound_cycles;
  rec->peak_cmx_bytes = row->peak_cmx_bytes;
  rec->spill_bytes = row->spill_bytes;
  rec->ddr_bytes = row->ddr_bytes;
  rec->barriers_used = row->barriers_used;
  rec->control_edges = row->control_edges;
  rec->sched_seconds = row->sched_seconds;
  rec->sim_seconds = row->sim_seconds;
  rec->pe_utilization = row->pe_utilization;
  rec->dma_utilization = row->dma_utilization;
  rec->ii = row->ii;
  rec->mii = row->mii;
  rec->cycles_per_iter = row->cycles_per_iter;
  rec->ops = row->ops;
  rec->edges = row->edges;
  acs__strfill(rec->message, sizeof rec->message, row->message);
}

/* ---- schedules ---- */

static hsize_t chunk_for(int32_t n)
{
  return n <= 0 ? 1 : n < CHUNK_SCHED ? (hsize_t)n : CHUNK_SCHED;
}

static const char *res_kind_name(const struct acs_schedule *s, int i)
{
  if (i == s->res_pe)
    return "pe";
  if (i == s->res_dma)
    return "dma";
  if (i == s->res_cmx)
    return "cmx";
  if (i == s->res_ddr)
    return "ddr";
  return "named";
}

/* The schedule must be complete enough to write: counts, arrays, and
 * distinct resource names (they become column names). */
static int check_schedule(const struct acs_schedule *s)
{
  int i, j;

  if (s->nres < 0 || s->nres > ACS_MAX_RES || s->nops < 0 || s->nedges < 0 ||
      s->nwaits < 0 || (s->nops && !s->ops) || (s->nedges && !s->edges) ||
      (s->nwaits && !s->waits) || (s->nops && s->nres && !s->demand))
    return ACS_EINVAL;
  for (i = 0; i < s->nres; i++)
    for (j = 0; j < i; j++)
      if (strcmp(s->res_name[i] ? s->res_name[i] : "", s->res_name[j] ? s->res_name[j] : "") == 0)
        return ACS_EINVAL;
  return ACS_OK;
}

static int write_resources(hid_t g, const struct acs_schedule *s)
{
  struct acs__h5table t;
  struct acs__resrec rec[ACS_MAX_RES];
  int i;

  acs__tbl_resources(&t);
  memset(rec, 0, sizeof rec);
  for (i = 0; i < s->nres; i++) {
    acs__strfill(rec[i].name, sizeof rec[i].name, s->res_name[i]);
    acs__strfill(rec[i].kind, sizeof rec[i].kind, res_kind_name(s, i));
    rec[i].capacity = (double)s->res_cap[i];
  }
  return acs__h5_make(g, "resources", &t, (hsize_t)s->nres, rec, chunk_for(s->nres), 0);
}

static void op_record(struct acs__oprec *rec, const struct acs_schedule *s, int32_t i)
{
  const struct acs_sop *o = &s->ops[i];
  int k;

  memset(rec, 0, sizeof *rec);
  acs__strfill(rec->op, sizeof rec->op, o->name);
  acs__strfill(rec->kind, sizeof rec->kind,
               o->kind < ACS_OP__COUNT ? acs_op_kind_name(o->kind) : "unknown");
  rec->unit = o->unit;
  rec->start = (double)o->start;
  rec->end = (double)o->end;
  rec->sim_start = o->sim_start;
  rec->sim_end = o->sim_end;
  rec->cmx_offset = o->cmx_offset;
  rec->cmx_bytes = o->cmx_bytes;
  rec->cmx_alloc = o->cmx_alloc;
  rec->cmx_free = o->cmx_free;
  rec->update_barrier = o->update_barrier;
  rec->dur = o->dur;
  rec->bytes = o->bytes;
  acs__strfill(rec->src, sizeof rec->src, o->src < ACS_MEM__COUNT ? acs_mem_name(o->src) : "none");
  acs__strfill(rec->dst, sizeof rec->dst, o->dst < ACS_MEM__COUNT ? acs_mem_name(o->dst) : "none");
  rec->slots = o->slots;
  rec->out_bytes = o->out_bytes;
  for (k = 0; k < s->nres; k++)
    rec->demand[k] = (double)acs_schedule_demand(s, i, k);
}

/* The ops table, written with one call from a packed buffer. O(ops * res). */
static int write_ops(hid_t g, const struct acs_schedule *s)
{
  struct acs__h5table t;
  struct acs__oprec rec;
  size_t bytes;
  char *buf;
  int32_t i;
  int rc;

  acs__tbl_ops(&t, s->nres, s->res_name, s->res_cmx);
  if (acs_mul_size((size_t)s->nops, t.size, &bytes) < 0)
    return ACS_ENOMEM;
  buf = malloc(bytes ? bytes : 1);
  if (!buf)
    return ACS_ENOMEM;
  for (i = 0; i < s->nops; i++) {
    op_record(&rec, s, i);
    memcpy(buf + (size_t)i * t.size, &rec, t.size);
  }
  rc = acs__h5_make(g, "ops", &t, (hsize_t)s->nops, buf, chunk_for(s->nops), 1);
  free(buf);
  return rc;
}

static int write_edges(hid_t g, const struct acs_schedule *s)
{
  struct acs__h5table t;
  struct acs__edgerec *rec;
  int32_t i;
  int rc;

  acs__tbl_edges(&t);
  rec = calloc(s->nedges ? (size_t)s->nedges : 1, sizeof *rec);
  if (!rec)
    return ACS_ENOMEM;
  for (i = 0; i < s->nedges; i++) {
    rec[i].src = s->edges[i].src;
    rec[i].dst = s->edges[i].dst;
    acs__strfill(rec[i].kind, sizeof rec[i].kind, acs_edge_kind_name(s->edges[i].kind));
  }
  rc = acs__h5_make(g, "edges", &t, (hsize_t)s->nedges, rec, chunk_for(s->nedges), 1);
  free(rec);
  return rc;
}

static int write_waits(hid_t g, const struct acs_schedule *s)
{
  struct acs__h5table t;

  acs__tbl_waits(&t);
  return acs__h5_make(g, "waits", &t, (hsize_t)s->nwaits, s->waits, chunk_for(s->nwaits), 1);
}

static int write_limits(hid_t g, const struct acs_schedule *s)
{
  if (acs__h5_attr_set_i32(g, "norig", s->norig) < 0 ||
      acs__h5_attr_set_i64(g, "cmx_capacity", s->cmx_capacity) < 0 ||
      acs__h5_attr_set_i64(g, "cmx_align", s->cmx_align) < 0 ||
      acs__h5_attr_set_i32(g, "barriers", s->barriers) < 0 ||
      acs__h5_attr_set_i32(g, "barrier_slots", s->barrier_slots) < 0 ||
      acs__h5_attr_set_f64(g, "ddr_link_bytes_per_cycle", s->link.link_bpc) < 0 ||
      acs__h5_attr_set_f64(g, "ddr_transfer_bytes_per_cycle", s->link.xfer_bpc) < 0 ||
      acs__h5_attr_set_i64(g, "ddr_latency_cycles", s->link.latency) < 0)
    return ACS_EIO;
  return ACS_OK;
}

static void group_name(char *buf, size_t size, int64_t id)
{
  snprintf(buf, size, "run_%" PRId64, id);
}

/* Writes /schedules/run_<id>; on failure removes what it wrote (or marks r
 * broken when even that fails). */
static int write_schedule(struct acs_results *r, int64_t id, const struct acs_schedule *s)
{
  char name[40];
  hid_t sched, g;
  int rc;

  rc = check_schedule(s);
  if (rc < 0)
    return rc;
  group_name(name, sizeof name, id);
  sched = H5Gopen2(r->file, "schedules", H5P_DEFAULT);
  if (sched < 0)
    return ACS_EIO;
  rc = ACS_EIO;
  g = H5Gcreate2(sched, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0)
    goto out_with_sched;
  rc = write_limits(g, s);
  if (rc == ACS_OK)
    rc = write_resources(g, s);
  if (rc == ACS_OK)
    rc = write_ops(g, s);
  if (rc == ACS_OK)
    rc = write_edges(g, s);
  if (rc == ACS_OK)
    rc = write_waits(g, s);
  for (int32_t k = 0; rc == ACS_OK && k < s->ntables; k++)
    rc = acs__rtab_write(g, s->tables[k]);
  H5Gclose(g);
  if (rc < 0 && H5Ldelete(sched, name, H5P_DEFAULT) < 0)
    r->broken = 1;
out_with_sched:
  H5Gclose(sched);
  return rc;
}

static void drop_schedule(struct acs_results *r, int64_t id)
{
  char name[48];

  snprintf(name, sizeof name, "schedules/run_%" PRId64, id);
  if (H5Ldelete(r->file, name, H5P_DEFAULT) < 0)
    r->broken = 1;
}

int acs_results_add_run(struct acs_results *r, struct acs_run_row *row,
                        const struct acs_schedule *s)
{
  struct acs_run_row rec;
  int64_t id;
  int rc;

  if (!writable(r) || !row)
    return r && r->broken ? ACS_EIO : ACS_EINVAL;
  if (r->next_run == INT64_MAX)
    return ACS_ERANGE;
  id = r->next_run;
  /* Reserve first so nothing can fail after the rows are written. */
  if ((s && acs_grow((void **)&r->epoch, sizeof *r->epoch, &r->cap_epoch, r->nepoch + 1) < 0) ||
      acs_grow((void **)&r->ids, sizeof *r->ids, &r->cap_ids, r->nids + 1) < 0)
    return ACS_ENOMEM;
  run_record(&rec, row, id);
  if (s) {
    rc = write_schedule(r, id, s);
    if (rc < 0)
      return rc;
  }
  if (r->runs < 0)
    r->runs = H5Dopen2(r->file, "runs", H5P_DEFAULT);
  rc = r->runs < 0 ? ACS_EFORMAT : acs__h5_append_dset(r->runs, &r->truns, 1, &rec);
  if (rc < 0) {
    if (s)
      drop_schedule(r, id);
    return rc;
  }
  if (s)
    r->epoch[r->nepoch++] = id;
  if (r->nids > 0 && id <= r->ids[r->nids - 1])
    r->ids_sorted = 0;
  r->ids[r->nids++] = id;
  row->run_id = id;
  r->next_run++;
  r->dirty = 1;
  return ACS_OK;
}

/* The /runs row holding run id; 0 when found. O(log runs), or O(runs) in
 * a file whose ids do not increase. */
static int find_run_row(const struct acs_results *r, int64_t id, size_t *row)
{
  size_t lo = 0, hi = r->nids;

  if (!r->ids_sorted) {
    for (size_t i = 0; i < r->nids; i++)
      if (r->ids[i] == id)
        return *row = i, 0;
    return -1;
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == r->nids || r->ids[lo] != id)
    return -1;
  *row = lo;
  return 0;
}

int acs_results_replace_run(struct acs_results *r, const struct acs_run_row *row,
                            const struct acs_schedule *s)
{
  struct acs_run_row rec;
  char name[48];
  size_t at;
  int rc;

  if (!writable(r) || !row)
    return r && r->broken ? ACS_EIO : ACS_EINVAL;
  if (find_run_row(r, row->run_id, &at) < 0)
    return ACS_ENOTFOUND;
  if (s && (rc = check_schedule(s)) < 0)
    return rc;
  if (acs_grow((void **)&r->patched, sizeof *r->patched, &r->cap_patched, r->npatched + 1) < 0)
    return ACS_ENOMEM;
  run_record(&rec, row, row->run_id);
  if (r->runs < 0)
    r->runs = H5Dopen2(r->file, "runs", H5P_DEFAULT);
  rc = r->runs < 0 ? ACS_EFORMAT : acs__h5_write_dset(r->runs, &r->truns, (hsize_t)at, 1, &rec);
  if (rc < 0)
    return rc;
  /* From here the row is new: a failure leaves the work file inconsistent,
   * so it is marked broken and the target keeps its last checkpoint. */
  r->patched[r->npatched].id = row->run_id;
  r->patched[r->npatched++].row = (hsize_t)at;
  r->dirty = 1;
  snprintf(name, sizeof name, "schedules/run_%" PRId64, row->run_id);
  if (H5Lexists(r->file, name, H5P_DEFAULT) > 0 && H5Ldelete(r->file, name, H5P_DEFAULT) < 0)
    rc = ACS_EIO;
  if (rc == ACS_OK && s)
    rc = write_schedule(r, row->run_id, s);
  if (rc < 0)
    r->broken = 1;
  return rc;
}

/* ---- checkpoints ---- */

static int broken_error(struct acs_results *r, struct acs_diag *d)
{
  return acs__h5_fail(d, ACS_EIO, r->shown,
                      "an earlier write failed; the file keeps its last checkpoint");
}

/* Makes work the target: close, fsync, rename, fsync the directory. After
 * it the work name is free (kept in r->freed). */
/*
 * Another writer replaced the target since we opened it (or last published)
 * when the inode there is no longer the one our spare names, or when a file
 * appeared where there was none. Renaming over it would silently drop its
 * runs, so publish refuses. Without hard links this cannot be seen.
 */
static int replaced_by_another(const struct acs_results *r)
{
  struct stat a, b;

  if (!r->spare)
    return !r->had_target && stat(r->target, &a) == 0;
  if (stat(r->target, &a) < 0 || stat(r->spare, &b) < 0)
    return 1;
  return a.st_ino != b.st_ino || a.st_dev != b.st_dev;
}

static int publish(struct acs_results *r, struct acs_diag *d)
{
  herr_t closed;

  if (replaced_by_another(r))
    return acs__h5_fail(d, ACS_EIO, r->shown,
                        "the file changed since it was opened (another writer?); "
                        "not overwriting it");
  if (r->runs >= 0)
    H5Dclose(r->runs);
  r->runs = -1;
  closed = H5Fclose(r->file);
  r->file = -1;
  r->broken = 1; /* until work is reopened */
  if (closed < 0)
    return acs__h5_fail(d, ACS_EIO, r->shown, "cannot finish writing %s", r->work);
  if (fsync_path(r->work, 0) < 0)
    return acs__h5_fail(d, ACS_EIO, r->shown, "cannot sync %s: %s", r->work, strerror(errno));
  if (rename(r->work, r->target) < 0)
    return acs__h5_fail(d, ACS_EIO, r->shown, "cannot rename %s: %s", r->work,
                        strerror(errno));
  free(r->freed);
  r->freed = r->work;
  r->work = NULL;
  r->dirty = 0;
  r->had_target = 1;
  if (fsync_path(r->dir, 1) < 0)
    return acs__h5_fail(d, ACS_EIO, r->shown, "cannot sync directory %s: %s", r->dir,
                        strerror(errno));
  return ACS_OK;
}

/* Makes group `name` of xs what it is in ys: absent, or a copy. */
static int sync_group(hid_t xs, hid_t ys, const char *name)
{
  htri_t in_y = H5Lexists(ys, name, H5P_DEFAULT);

  if (in_y < 0)
    return ACS_EIO;
  if (H5Lexists(xs, name, H5P_DEFAULT) > 0 && H5Ldelete(xs, name, H5P_DEFAULT) < 0)
    return ACS_EIO;
  if (in_y > 0 && H5Ocopy(ys, name, xs, name, H5P_DEFAULT, H5P_DEFAULT) < 0)
    return ACS_EIO;
  return ACS_OK;
}

/* Rows replaced since the previous checkpoint (acs_results_replace_run):
 * the row and its schedule group, copied from y. */
static int replay_patches(struct acs_results *r, hid_t y, hid_t xs, hid_t ys)
{
  char name[40];
  hid_t xd, yd;
  int rc = ACS_OK;

  if (r->npatched == 0)
    return ACS_OK;
  xd = H5Dopen2(r->file, "runs", H5P_DEFAULT);
  yd = H5Dopen2(y, "runs", H5P_DEFAULT);
  if (xd < 0 || yd < 0)
    rc = ACS_EIO;
  for (size_t i = 0; rc == ACS_OK && i < r->npatched; i++) {
    rc = acs__h5_copy_rows(xd, yd, r->patched[i].row, r->patched[i].row + 1);
    group_name(name, sizeof name, r->patched[i].id);
    if (rc == ACS_OK)
      rc = sync_group(xs, ys, name);
  }
  if (xd >= 0)
    H5Dclose(xd);
  if (yd >= 0)
    H5Dclose(yd);
  return rc;
}

/* Brings the old spare (the previous checkpoint) up to the target's state by
 * replaying what was added (or replaced) since (see the comment at the top). */
static int replay(struct acs_results *r, const char *from)
{
  static const char *const tables[] = {"platforms", "workloads", "runs"};
  char name[40];
  hid_t fapl, y, ys, xs;
  size_t i;
  int rc = ACS_EIO;

  fapl = acs__h5_fapl();
  y = fapl < 0 ? -1 : H5Fopen(from, H5F_ACC_RDONLY, fapl);
  if (fapl >= 0)
    H5Pclose(fapl);
  if (y < 0)
    return ACS_EIO;
  if (acs__h5_attr_set_str(r->file, "acsim_version", PACKAGE_VERSION) < 0 ||
      acs__h5_attr_set_str(r->file, "command_line", r->cmdline) < 0)
    goto out_with_y;
  for (i = 0; i < 3; i++)
    if (acs__h5_sync_table(r->file, y, tables[i]) < 0)
      goto out_with_y;
  /* Tables other modules add through acs__results_file (report/validation.c). */
  if (H5Lexists(y, "validation", H5P_DEFAULT) > 0 &&
      acs__h5_sync_table(r->file, y, "validation") < 0)
    goto out_with_y;
  ys = H5Gopen2(y, "schedules", H5P_DEFAULT);
  xs = H5Gopen2(r->file, "schedules", H5P_DEFAULT);
  if (xs < 0)
    xs = H5Gcreate2(r->file, "schedules", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  rc = ys >= 0 && xs >= 0 ? ACS_OK : ACS_EIO;
  for (i = 0; rc == ACS_OK && i < r->nepoch; i++) {
    group_name(name, sizeof name, r->epoch[i]);
    rc = sync_group(xs, ys, name);
  }
  if (rc == ACS_OK)
    rc = replay_patches(r, y, xs, ys);
  if (xs >= 0)
    H5Gclose(xs);
  if (ys >= 0)
    H5Gclose(ys);
out_with_y:
  H5Fclose(y);
  return rc;
}

static int open_work(struct acs_results *r)
{
  hid_t fapl = acs__h5_fapl();

  if (fapl < 0)
    return ACS_EIO;
  r->file = H5Fopen(r->work, H5F_ACC_RDWR, fapl);
  H5Pclose(fapl);
  return r->file < 0 ? ACS_EIO : ACS_OK;
}

/* After a publish: a new work file with the target's content. */
static int resume(struct acs_results *r, struct acs_diag *d)
{
  char *prev = r->spare; /* the previous checkpoint's inode, if we hold it */
  int rc;

  r->spare = NULL;
  /* The inode now at target gets the freed name as its spare link. */
  if (r->freed && link(r->target, r->freed) == 0) {
    r->spare = r->freed;
    r->freed = NULL;
  }
  rc = ACS_EIO;
  if (prev) {
    r->work = prev;
    rc = open_work(r);
    if (rc == ACS_OK)
      rc = replay(r, r->spare ? r->spare : r->target);
    if (rc < 0) {
      /* Most likely a reader (h5dump, a script, acsim report) still has the
       * previous checkpoint open: HDF5 then refuses us its write lock, and
       * rightly, since writing that inode would change the file under the
       * reader. Leave it to the reader (unlinked, it goes when they close
       * it) and copy the target instead, as when there is no spare. */
      if (r->file >= 0)
        H5Fclose(r->file);
      r->file = -1;
      unlink(r->work);
      free(r->work);
      r->work = NULL;
    }
  }
  if (rc < 0) {
    rc = copy_to_work(r, r->spare ? r->spare : r->target, d);
    if (rc == ACS_OK)
      rc = open_work(r);
  }
  if (rc < 0)
    return acs__h5_fail(d, rc, r->shown,
                        "checkpoint written, but cannot go on writing: %s", acs_strerror(rc));
  r->nepoch = 0;
  r->npatched = 0;
  r->broken = 0;
  return ACS_OK;
}

hid_t acs__results_file(struct acs_results *r)
{
  if (!r || r->broken || r->file < 0)
    return -1;
  r->dirty = 1;
  return r->file;
}

int acs_results_checkpoint(struct acs_results *r, struct acs_diag *d)
{
  int rc;

  if (!r)
    return ACS_EINVAL;
  if (r->broken || r->file < 0)
    return broken_error(r, d);
  if (!r->dirty)
    return ACS_OK;
  rc = publish(r, d);
  if (rc < 0)
    return rc;
  return resume(r, d);
}

int acs_results_commit(struct acs_results *r, struct acs_diag *d)
{
  int rc = ACS_OK;

  if (!r)
    return ACS_EINVAL;
  if (r->broken || r->file < 0)
    rc = broken_error(r, d);
  else if (r->dirty)
    rc = publish(r, d);
  discard(r);
  return rc;
}

void acs_results_abort(struct acs_results *r)
{
  if (r)
    discard(r);
}
