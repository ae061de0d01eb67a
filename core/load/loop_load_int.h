/*
 * loop_load_int.h - the loop readers (internal to core/load).
 *
 * acs_loop_load (load.h) chooses the reader by extension; each fills an
 * initialised struct acs_loop, which is then checked (acs_loop_check).
 */
#ifndef ACS_LOAD_LOOP_LOAD_INT_H
#define ACS_LOAD_LOOP_LOAD_INT_H

#include "core/load/load.h"
#include "core/model/loop.h"

/* HatScheT GraphML graph and its resource model found beside it. */
int acs__loop_load_graphml(const char *path, struct acs_loop *l, struct acs_diag *d);
/* acsim's loop CSV. */
int acs__loop_load_csv(const char *path, struct acs_loop *l, struct acs_diag *d);
/* Whether the header row of a CSV file names a `class` column (a loop CSV). */
int acs__loop_csv_sniff(const char *path, int *is_loop, struct acs_diag *d);

/*
 * Reads a whole file (at most 512 MiB) into a malloc'd, NUL-terminated
 * buffer. Every file a loop reader reads through its own code is opened
 * here, so per-file bookkeeping (digests for run identity) has one place.
 */
int acs__loop_read_file(const char *path, char **buf, size_t *len, struct acs_diag *d);

#endif
