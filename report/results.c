/*
 * results.c - the HDF5 results writer, schema 1 (DESIGN.md "HDF5 results"):
 * the file, its atomic writes and checkpoints. The rows it holds (platforms,
 * workloads, runs, schedules) are results_rows.c.
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

#include "report/results_int.h"

/* ---- the writer ---- */

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
  rc = acs__results_load_platforms(r);
  if (rc == ACS_OK)
    rc = acs__results_load_workloads(r);
  if (rc == ACS_OK)
    rc = acs__results_load_run_ids(r);
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
    acs__results_group_name(name, sizeof name, r->patched[i].id);
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
    acs__results_group_name(name, sizeof name, r->epoch[i]);
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
