/*
 * wire.h - the pipe protocol between the sweep engine (sweep.h) and its forked
 * workers: a finished run (its /runs row, the workload's op and edge counts
 * on that platform, and optionally its schedule) as one length-prefixed
 * message.
 *
 * Parent and workers are one program image (fork without exec), so fixed
 * structs travel as raw bytes; only pointers (names, arrays) are flattened.
 * A message is bounded-checked on reading all the same, so a worker that
 * dies mid-write is detected, never trusted.
 */
#ifndef ACS_SWEEP_WIRE_H
#define ACS_SWEEP_WIRE_H

#include "report/results.h"

#define ACS_WIRE_MAGIC 0x41435357u /* "ACSW" */

/* What a worker sends after each task. */
struct acs_wire_head {
  uint32_t magic;
  uint32_t task;             /* index in the parent's task list */
  int64_t ops, edges;        /* the workload's graph on that platform; -1 unknown */
  uint64_t sched_len;        /* bytes of the flattened schedule that follow; 0 none */
  struct acs_run_row row;
};

/* A growable byte buffer. */
struct acs_wbuf {
  unsigned char *p;
  size_t n, cap;
};
void acs_wbuf_free(struct acs_wbuf *b);

/* Appends the flattened schedule to b. O(V R + E + W + name bytes). */
int acs_wire_put_schedule(struct acs_wbuf *b, const struct acs_schedule *s);
/* Rebuilds a schedule (initialised here; destroy it in every case) from
 * len bytes. ACS_EFORMAT when the bytes are not a whole, consistent
 * schedule. */
int acs_wire_get_schedule(const unsigned char *p, size_t len, struct acs_schedule *s);
/* The result tables of an encoded schedule only, in O(ops) steps and no
 * allocation for the ops: s gets its resources, limits and tables, no
 * ops, edges or waits (makespan 0). */
int acs_wire_get_tables(const unsigned char *p, size_t len, struct acs_schedule *s);

/* Whole-buffer I/O on a pipe, retrying on EINTR and short transfers.
 * acs_wire_read returns 1 when done, 0 at end of file before any byte,
 * ACS_EIO otherwise (end of file in the middle included). */
int acs_wire_write(int fd, const void *p, size_t len);
int acs_wire_read(int fd, void *p, size_t len);

#endif
