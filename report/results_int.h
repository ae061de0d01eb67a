/*
 * results_int.h - the results writer's state, shared by its two halves:
 * results.c (the file: open, atomic checkpoints, commit) and results_rows.c
 * (the rows: the cached /platforms and /workloads tables and their index,
 * /runs, and the /schedules groups). Internal to report/; not installed.
 */
#ifndef ACS_REPORT_RESULTS_INT_H
#define ACS_REPORT_RESULTS_INT_H

#include <hdf5.h>

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

/* A hash index of cached rows, for dedupe in O(1) expected. */
struct rowindex {
  uint32_t *slot;          /* row position + 1; 0 is empty */
  size_t cap;              /* a power of two, at least twice the rows */
};

typedef uint64_t (*row_hash_fn)(const void *rows, size_t i);
typedef int (*row_eq_fn)(const void *rows, size_t i, const void *key);

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

/* Fill the caches of an existing file opened as r->file: its platforms and
 * workloads (indexed), and its run ids in row order (next_run = the largest
 * + 1). */
int acs__results_load_platforms(struct acs_results *r);
int acs__results_load_workloads(struct acs_results *r);
int acs__results_load_run_ids(struct acs_results *r);
/* "run_<id>": the /schedules group of run id. */
void acs__results_group_name(char *buf, size_t size, int64_t id);

#endif
