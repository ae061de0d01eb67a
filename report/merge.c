/*
 * merge.c - `acsim merge`: joins results files (e.g. the shards of a sweep)
 * into one, refusing a run identity present twice.
 *
 * Every input is read and checked in full before anything is written: a
 * file of another schema fails in acs_results_read, and duplicates are found
 * with a hash set of run identities (report.h). Only then are the runs
 * appended through the atomic writer, so the output is either left as it was
 * or holds every input. Ids are renumbered by the writer; platforms and
 * workloads are stored once as usual. O(total runs + stored schedule rows).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "report/results_h5_int.h"

/* Where an identity was first seen, for the duplicate message. */
struct origin {
  const char *file;
  int64_t run_id;
};

struct merge_state {
  struct acs_keyset *seen;
  struct origin *origins;
  size_t norigins, cap;
  struct acs_results_data *data; /* one per input */
  struct acs_results_data existing; /* the output's runs, when it exists */
  int has_existing;
  int flags;                     /* identity: ACS_KEY_*, DIGEST when all have one */
};

static int remember(struct merge_state *m, const char *file, int64_t run_id, int64_t *index)
{
  int err = acs_grow((void **)&m->origins, sizeof(*m->origins), &m->cap, m->norigins + 1);

  if (err < 0)
    return err;
  m->origins[m->norigins].file = file;
  m->origins[m->norigins].run_id = run_id;
  *index = (int64_t)m->norigins++;
  return ACS_OK;
}

static int check_runs(struct merge_state *m, const struct acs_results_data *data, const char *file,
                      struct acs_diag *d)
{
  char key[ACS_RUN_KEY_MAX];

  for (size_t i = 0; i < data->nruns; i++) {
    const struct acs_run_row *r = &data->runs[i];
    int64_t idx, old;
    int rc;
    if (acs_run_key_of(data, r, m->flags, key) < 0)
      return acs_diag_set(d, ACS_EFORMAT, file, 0, 0,
                          "run %lld refers to a platform or workload the file does not have",
                          (long long)r->run_id);
    if ((rc = remember(m, file, r->run_id, &idx)) < 0)
      return rc;
    if ((rc = acs_keyset_add(m->seen, key, idx, &old)) < 0)
      return rc;
    if (rc == 1) {
      const struct acs_platform_row *p = acs_results_platform_of(data, r);
      const struct acs_workload_row *w = acs_results_workload_of(data, r);
      return acs_diag_set(d, ACS_EINVAL, file, 0, 0,
                          "run %lld (%s%s%s on %s, workload %s) duplicates run %lld of %s; "
                          "a merge takes each run once (shards of one sweep never overlap)",
                          (long long)r->run_id, r->scheduler, r->options[0] ? " " : "",
                          r->options, p->plat.name, w->name,
                          (long long)m->origins[old].run_id, m->origins[old].file);
    }
  }
  return ACS_OK;
}

static int same_file(const char *a, const char *b)
{
  struct stat sa, sb;

  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* Reads everything, then checks identities (by digest only when every file
 * has them: that is known once all are read); m->data[i] filled. */
static int read_all(struct merge_state *m, const char *const *inputs, size_t n,
                    const char *output, struct acs_merge_stats *st, struct acs_diag *d)
{
  int err, digested = 1;

  if (access(output, F_OK) == 0) {
    if ((err = acs_results_read(output, &m->existing, d)) < 0)
      return err;
    m->has_existing = 1;
    st->existing = m->existing.nruns;
    digested = acs_results_digested(&m->existing);
  }
  for (size_t i = 0; i < n; i++) {
    if (same_file(inputs[i], output))
      return acs_diag_set(d, ACS_EINVAL, inputs[i], 0, 0,
                          "is the output; merge appends the other inputs to it, so leave it "
                          "out of the inputs");
    if ((err = acs_results_read(inputs[i], &m->data[i], d)) < 0)
      return err;
    digested &= acs_results_digested(&m->data[i]);
  }
  m->flags = ACS_KEY_NAME | ACS_KEY_PARAMS | (digested ? ACS_KEY_DIGEST : 0);
  /* The origins point at the file names, which the caller keeps alive. */
  if (m->has_existing && (err = check_runs(m, &m->existing, output, d)) < 0)
    return err;
  for (size_t i = 0; i < n; i++)
    if ((err = check_runs(m, &m->data[i], inputs[i], d)) < 0)
      return err;
  return ACS_OK;
}

/* Copies run r of input `file`, open as f, with its stored schedule. */
static int copy_run(struct acs_results *w, hid_t f, const char *file,
                    const struct acs_results_data *data, const struct acs_run_row *r,
                    struct acs_merge_stats *st, struct acs_diag *d)
{
  const struct acs_platform_row *p = acs_results_platform_of(data, r);
  const struct acs_workload_row *wl = acs_results_workload_of(data, r);
  struct acs_workload_row wrow = *wl;
  struct acs_run_row row = *r;
  struct acs_schedule s;
  int err, have;

  /* A file written before runs had their own graph size kept it in the
   * workload row, one row per size; the merged file has one per workload. */
  if (row.ops < 0)
    row.ops = wl->ops, row.edges = wl->edges;

  if ((err = acs_results_add_platform(w, &p->plat, &row.platform_id)) < 0 ||
      (err = acs_results_add_workload(w, &wrow, &row.workload_id)) < 0)
    return acs_diag_set(d, err, file, 0, 0, "cannot copy run %lld: %s", (long long)r->run_id,
                        acs_strerror(err));
  err = acs__results_read_schedule_file(f, file, r->run_id, &s, d);
  if (err < 0 && err != ACS_ENOTFOUND)
    return err;
  have = err == ACS_OK;
  err = acs_results_add_run(w, &row, have ? &s : NULL);
  acs_schedule_destroy(&s);
  if (err < 0)
    return acs_diag_set(d, err, file, 0, 0, "cannot copy run %lld: %s", (long long)r->run_id,
                        acs_strerror(err));
  st->runs++;
  st->schedules += (size_t)have;
  return ACS_OK;
}

/*
 * Copies every run of input `file` (read into data). The file is opened
 * once for all their schedules rather than once per run
 * (acs_results_read_schedule): each open sets up a metadata cache of
 * HDF5's, a tenth of the time of merging a file of 94 small schedules.
 */
static int copy_input(struct acs_results *w, const char *file,
                      const struct acs_results_data *data, struct acs_merge_stats *st,
                      struct acs_diag *d)
{
  hid_t f;
  int err;

  if (data->nruns == 0)
    return ACS_OK;
  if ((err = acs__h5_open(file, file, H5F_ACC_RDONLY, &f, d)) < 0)
    return err;
  for (size_t k = 0; err == ACS_OK && k < data->nruns; k++)
    err = copy_run(w, f, file, data, &data->runs[k], st, d);
  H5Fclose(f);
  return err;
}

int acs_merge(const char *const *inputs, size_t n, const char *output, const char *command_line,
              struct acs_merge_stats *st, struct acs_diag *d)
{
  struct merge_state m;
  struct acs_results *w = NULL;
  int err;

  memset(st, 0, sizeof(*st));
  memset(&m, 0, sizeof(m));
  if (n == 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "no input file");
  if (!(m.seen = acs_keyset_new()) || !(m.data = calloc(n, sizeof(*m.data)))) {
    err = ACS_ENOMEM;
    goto out_with_state;
  }
  if ((err = read_all(&m, inputs, n, output, st, d)) < 0)
    goto out_with_state;
  if ((err = acs_results_open(output, command_line, &w, d)) < 0)
    goto out_with_state;
  for (size_t i = 0; i < n; i++)
    if ((err = copy_input(w, inputs[i], &m.data[i], st, d)) < 0) {
      acs_results_abort(w);
      goto out_with_state;
    }
  st->inputs = n;
  err = acs_results_commit(w, d);

out_with_state:
  if (m.has_existing)
    acs_results_data_free(&m.existing);
  for (size_t i = 0; m.data && i < n; i++)
    acs_results_data_free(&m.data[i]);
  free(m.data);
  free(m.origins);
  acs_keyset_free(m.seen);
  return err;
}
