/*
 * spill.h - internals of the `spill` variant that tests and benchmarks
 * measure (fragmentation, spill traffic, control-edge reduction). The
 * variant itself is acs_sched_spill in sched.h.
 */
#ifndef ACS_SCHED_SPILL_H
#define ACS_SCHED_SPILL_H

#include "core/sched/ctrledge.h"
#include "core/sched/sched.h"

struct acs_spill_stats {
  int64_t writes, reads;      /* spill-write and spill-read DMAs added */
  int64_t write_bytes, read_bytes;
  int64_t drops;              /* clean tensors evicted without a write */
  int64_t rescues;            /* idle instants at which nothing fit: evictions */
  int64_t alloc_refused;      /* placements refused (no gap) */
  int64_t contig_refused;     /* ... of which with enough free bytes in total */
  double frag;                /* time-weighted mean of 1 - largest gap / free bytes */
  struct acs_ctrl_stats ctrl; /* control edges */
  double ctrl_seconds;        /* time spent generating them */
};

/* The variant's schedule() with its figures; opts as set through the
 * variant's descriptor table (acs_sched_opts_defaults / _set). */
int acs__spill_run(const struct acs_problem *pb, const void *opts,
                   struct acs_schedule *out, struct acs_spill_stats *st,
                   struct acs_diag *d);

#endif
