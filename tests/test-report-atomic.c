/*
 * test-report-atomic.c - HDF5 results: atomic writes (abort, checkpoints,
 * killed writers, readers holding a checkpoint, other writers' temporaries).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "report/report.h"
#include "report/results.h"
#include "report/validation.h"
#include "report/study_int.h"
#include "tests/testutil.h"

#include "tests/report_util.h"

TestSuite(report, .init = setup, .fini = teardown);

/* ---- atomic writes ---- */

Test(report, abort_leaves_target_byte_identical)
{
  struct acs_results *r;
  struct acs_schedule s;
  struct acs_run_row row;
  size_t n0, n1;
  char *before, *after;

  write_hand_file();
  before = slurp(file, &n0);
  r = open_ok("doomed");
  hand_schedule(&s);
  run_row(&row, -1, -1, 1);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  cr_assert_eq(dir_entries(NULL), 3, "target, work copy and spare link while open");
  acs_results_abort(r);
  after = slurp(file, &n1);
  cr_assert_eq(n0, n1);
  cr_assert(memcmp(before, after, n0) == 0, "abort changed the target");
  cr_assert_eq(dir_entries("results.h5"), 1);
  free(before);
  free(after);
  acs_schedule_destroy(&s);
}

Test(report, abort_of_a_new_file_leaves_nothing)
{
  struct acs_results *r = open_ok("doomed");

  acs_results_abort(r);
  cr_assert_eq(dir_entries(NULL), 0);
}

/* Checkpoints keep what they cover; an abort drops only what came after. */
Test(report, checkpoints_keep_runs_and_schedules)
{
  struct acs_results *r = open_ok("sweep");
  struct acs_results_data data;
  struct acs_schedule s, back;
  struct acs_run_row row;
  struct acs_diag d;

  hand_schedule(&s);
  acs_diag_init(&d);
  /* Several checkpoints, each adding runs with and without schedules: the
   * second and later ones replay into the spare inode. */
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < 3; i++) {
      run_row(&row, -1, -1, i & 1);
      cr_assert_eq(acs_results_add_run(r, &row, i == 1 ? NULL : &s), ACS_OK);
    }
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
    results_read_ok(&data);
    cr_assert_eq(data.nruns, (size_t)(3 * (k + 1)), "checkpoint %d", k);
    acs_results_data_free(&data);
  }
  cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "a checkpoint with nothing new");
  run_row(&row, -1, -1, 0);
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  acs_results_abort(r);
  cr_assert_eq(dir_entries("results.h5"), 1);

  results_read_ok(&data);
  cr_assert_eq(data.nruns, 12);
  for (size_t i = 0; i < data.nruns; i++) {
    cr_assert_eq(data.runs[i].run_id, (int64_t)i + 1);
    acs_diag_init(&d);
    int rc = acs_results_read_schedule(file, data.runs[i].run_id, &back, &d);
    if (i % 3 == 1) {
      cr_assert_eq(rc, ACS_ENOTFOUND);
    } else {
      cr_assert_eq(rc, ACS_OK, "run %zu: %s", i + 1, d.msg);
      assert_schedule_eq(&s, &back);
      tu_assert_verified(&back);
    }
    acs_schedule_destroy(&back);
  }
  acs_results_data_free(&data);
  acs_schedule_destroy(&s);
}

/*
 * The design that keeps checkpoints O(new data): two inodes take turns at
 * the target, the writer holding a second link to the one published last
 * (so the target has two links while the writer is open), instead of a new
 * full copy at each checkpoint.
 */
Test(report, checkpoints_alternate_two_inodes)
{
  struct acs_results *r = open_ok("sweep");
  struct acs_run_row row;
  struct acs_diag d;
  struct stat st;
  ino_t ino[5];

  acs_diag_init(&d);
  for (int k = 0; k < 5; k++) {
    run_row(&row, -1, -1, 0);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(stat(file, &st), 0);
    cr_assert_eq(st.st_nlink, 2, "the writer holds a spare link to the target");
    ino[k] = st.st_ino;
  }
  cr_assert_neq(ino[1], ino[2]);
  cr_assert_eq(ino[1], ino[3]);
  cr_assert_eq(ino[2], ino[4]);
  commit_ok(r);
  cr_assert_eq(stat(file, &st), 0);
  cr_assert_eq(st.st_nlink, 1);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

/*
 * The child of killed_writer_leaves_a_checkpoint: appends batches of 5 runs
 * with schedules, checkpointing after each and then writing one byte to
 * `tell`, until it is killed; with self_kill > 0 it kills itself after
 * self_kill - 1 more runs of the batch that follows checkpoint `at`.
 */
static void endless_writer(int tell, int at, int self_kill)
{
  struct acs_results *r = NULL;
  struct acs_schedule s;
  struct acs_run_row row;
  struct acs_diag d;

  acs_diag_init(&d);
  hand_schedule(&s);
  if (acs_results_open(file, "endless", &r, &d) < 0)
    _exit(1);
  for (int k = 1;; k++) {
    for (int i = 0; i < 5; i++) {
      if (self_kill > 0 && k == at + 1 && i == self_kill - 1)
        raise(SIGKILL);
      run_row(&row, -1, -1, i & 1);
      if (acs_results_add_run(r, &row, &s) < 0)
        _exit(1);
    }
    if (acs_results_checkpoint(r, &d) < 0 || write(tell, "c", 1) != 1)
      _exit(1);
  }
}

/* Waits for n checkpoints of the writer (its bytes on fd). */
static void wait_checkpoints(int fd, int n)
{
  char c;

  for (int i = 0; i < n; i++)
    cr_assert_eq(read(fd, &c, 1), 1, "the writer stopped after %d checkpoints", i);
}

/*
 * A writer killed (SIGKILL, no cleanup) leaves the target readable with
 * whole checkpoints only, and the next writer goes on from it, removing the
 * temporaries the killed ones left. Synchronized on events, not time: each
 * round waits until the writer has published m checkpoints (bytes on a
 * pipe), so the file holds at least 5m more runs. Even rounds kill it from
 * outside at whatever point it has reached (inside a batch or a
 * checkpoint); odd rounds have it kill itself at a chosen run of the next
 * batch, which must leave exactly the 5m runs.
 */
Test(report, killed_writer_leaves_a_checkpoint)
{
  struct acs_results_data data;
  struct acs_schedule back;
  struct acs_diag d;
  size_t last = 0;

  for (int k = 0; k < 12; k++) {
    int m = 1 + k % 3, self = k % 2 ? 1 + k / 2 % 5 : 0, fds[2], status;
    pid_t pid;

    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      endless_writer(fds[1], m, self);
    }
    close(fds[1]);
    wait_checkpoints(fds[0], m);
    if (!self)
      kill(pid, SIGKILL);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    close(fds[0]);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
              "the writer failed on its own (status %d)", status);
    results_read_ok(&data);
    cr_assert_eq(data.nruns % 5, 0, "a partial batch of %zu runs was published", data.nruns);
    cr_assert_geq(data.nruns, last + 5 * (size_t)m, "round %d: %zu runs after %zu", k,
                  data.nruns, last);
    if (self)
      cr_assert_eq(data.nruns, last + 5 * (size_t)m, "round %d: killed inside batch %d", k,
                   m + 1);
    last = data.nruns;
    acs_diag_init(&d);
    cr_assert_eq(acs_results_read_schedule(file, data.runs[data.nruns - 1].run_id, &back, &d),
                 ACS_OK, "%s", d.msg);
    tu_assert_verified(&back);
    acs_schedule_destroy(&back);
    acs_results_data_free(&data);
  }
  /* The next writer removes what killed ones left, and goes on. */
  struct acs_results *r = open_ok("after");
  commit_ok(r);
  cr_assert_eq(dir_entries("results.h5"), 1);
  results_read_ok(&data);
  cr_assert_eq(data.nruns, last);
  acs_results_data_free(&data);
}

/*
 * A reader (h5dump, a script, acsim report) that holds the published file
 * open while the writer goes on: the writer cannot reuse that inode for its
 * next work file (HDF5 refuses it the lock, and writing it would change the
 * file under the reader), so it copies instead, and every checkpoint still
 * lands. The reader is a child that opens the file and waits on a pipe.
 */
Test(report, reader_holding_a_checkpoint_does_not_stop_the_writer)
{
  struct acs_results *r = open_ok("writer");
  struct acs_results_data data;
  struct acs_run_row row;
  struct acs_diag d;
  int ready[2], release[2];
  pid_t pid;
  char c;

  acs_diag_init(&d);
  for (int k = 0; k < 2; k++) {
    run_row(&row, -1, -1, 0);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
  }
  cr_assert_eq(pipe(ready), 0);
  cr_assert_eq(pipe(release), 0);
  fflush(NULL);
  pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0 || write(ready[1], "r", 1) != 1)
      _exit(1);
    close(release[1]);
    while (read(release[0], &c, 1) > 0)
      ;
    H5Fclose(f);
    _exit(0);
  }
  close(ready[1]);
  close(release[0]);
  cr_assert_eq(read(ready[0], &c, 1), 1, "the reader could not open the file");
  for (int k = 0; k < 3; k++) {
    run_row(&row, -1, -1, 0);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "checkpoint %d: %s", k, d.msg);
  }
  close(release[1]);
  close(ready[0]);
  cr_assert_eq(waitpid(pid, NULL, 0), pid);
  commit_ok(r);
  results_read_ok(&data);
  cr_assert_eq(data.nruns, 5);
  acs_results_data_free(&data);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

/* Temporaries of a writer that no longer runs are removed at the next open;
 * those of a running one (here: this process) and other files are kept. */
Test(report, open_removes_only_dead_writers_temporaries)
{
  char host[72] = {0}, dead[600], live[600], other[600];
  struct acs_results *r;
  pid_t pid;

  cr_assert_eq(gethostname(host, sizeof(host) - 1), 0);
  fflush(NULL);
  pid = fork();
  if (pid == 0)
    _exit(0);
  cr_assert_eq(waitpid(pid, NULL, 0), pid);
  snprintf(dead, sizeof(dead), "%s/.results.h5.acsim-%s-%ld-0.tmp", dir, host, (long)pid);
  snprintf(live, sizeof(live), "%s/.results.h5.acsim-%s-%ld-0.tmp", dir, host, (long)getpid());
  snprintf(other, sizeof(other), "%s/.results.h5.other-%ld-0.tmp", dir, (long)pid);
  spit(dead, "x", 1);
  spit(live, "x", 1);
  spit(other, "x", 1);
  r = open_ok("sweeper");
  commit_ok(r);
  cr_assert_neq(access(dead, F_OK), 0, "a dead writer's temporary is removed");
  cr_assert_eq(access(live, F_OK), 0, "a running writer's temporary is kept");
  cr_assert_eq(access(other, F_OK), 0);
  cr_assert_eq(dir_entries(NULL), 3);
}

/* Appending to an existing file with checkpoints (the spare is the original). */
Test(report, checkpoint_on_an_existing_file_then_commit)
{
  struct acs_results *r;
  struct acs_results_data data;
  struct acs_run_row row;
  struct acs_diag d;

  write_hand_file();
  r = open_ok("more");
  acs_diag_init(&d);
  for (int k = 0; k < 3; k++) {
    run_row(&row, -1, -1, 0);
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
    cr_assert_eq(acs_results_checkpoint(r, &d), ACS_OK, "%s", d.msg);
  }
  run_row(&row, -1, -1, 1);
  cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  commit_ok(r);
  results_read_ok(&data);
  cr_assert_eq(data.nruns, 5);
  assert_run_eq(&data.runs[4], &row);
  cr_assert_eq(data.nplatforms, 1);
  cr_assert_str_eq(data.command_line, "more");
  acs_results_data_free(&data);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

/* Two writers on one file: the later commit must not silently drop the
 * earlier one's runs. */
Test(report, commit_refuses_to_overwrite_another_writer)
{
  struct acs_results *a, *b;
  struct acs_results_data data;
  struct acs_run_row row;
  struct acs_diag d;

  write_hand_file();
  a = open_ok("writer a");
  b = open_ok("writer b");
  run_row(&row, -1, -1, 0);
  cr_assert_eq(acs_results_add_run(b, &row, NULL), ACS_OK);
  commit_ok(b);
  run_row(&row, -1, -1, 1);
  cr_assert_eq(acs_results_add_run(a, &row, NULL), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_commit(a, &d), ACS_EIO);
  cr_assert(strstr(d.msg, "changed since it was opened") != NULL, "%s", d.msg);
  results_read_ok(&data);
  cr_assert_eq(data.nruns, 2);
  cr_assert_str_eq(data.command_line, "writer b");
  acs_results_data_free(&data);
  cr_assert_eq(dir_entries("results.h5"), 1);
}

Test(report, open_in_a_missing_directory_is_an_io_error)
{
  struct acs_results *r = NULL;
  struct acs_diag d;
  char path[600];

  snprintf(path, sizeof(path), "%s/no/such/dir/r.h5", dir);
  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(path, "x", &r, &d), ACS_EIO);
  cr_assert_null(r);
  cr_assert_str_eq(d.file, path);
  cr_assert(strstr(d.msg, "temporary") != NULL, "%s", d.msg);
}

