/*
 * proc.h - process and descriptor helpers shared by the forking parts of
 * acsim: the ILP child (core/sched), the simulation zygote and its
 * actors (simulate/) and the sweep's workers (sweep/).
 */
#ifndef ACS_CORE_PROC_H
#define ACS_CORE_PROC_H

#include <stddef.h>

/* write() until all len bytes are written, retrying on EINTR and short
 * writes. 0, or -1 on an error or a write that makes no progress. */
int acs_write_all(int fd, const void *buf, size_t len);
/* The same on a socket, with send(): a closed peer is -1, not SIGPIPE. */
int acs_send_all(int fd, const void *buf, size_t len);

/* read() exactly len bytes, retrying on EINTR and short reads. 0 ok, 1 at
 * end of file before any byte, -1 on an error or end of file midway. */
int acs_read_all(int fd, void *buf, size_t len);

/* Closes every descriptor but stdio, keep1 and keep2 (-1 keeps none): a
 * forked child must not hold its parent's files (an HDF5 study's lock
 * among them). Lists /proc/self/fd, else closes 3..1023. */
void acs_close_other_fds(int keep1, int keep2);

#endif
