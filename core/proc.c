/*
 * proc.c - whole-buffer descriptor I/O and descriptor hygiene for forked
 * children (proc.h).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/proc.h"

/* write() or, on a socket (`sock`), send() without SIGPIPE, until done. */
static int put_all(int fd, const void *buf, size_t len, int sock)
{
  const char *p = buf;

  while (len > 0) {
    ssize_t w = sock ? send(fd, p, len, MSG_NOSIGNAL) : write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int acs_write_all(int fd, const void *buf, size_t len)
{
  return put_all(fd, buf, len, 0);
}

int acs_send_all(int fd, const void *buf, size_t len)
{
  return put_all(fd, buf, len, 1);
}

int acs_read_all(int fd, void *buf, size_t len)
{
  char *p = buf;
  size_t got = 0;

  while (got < len) {
    ssize_t r = read(fd, p + got, len - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return -1;
    if (r == 0)
      return got == 0 ? 1 : -1;
    got += (size_t)r;
  }
  return 0;
}

void acs_close_other_fds(int keep1, int keep2)
{
  DIR *dp = opendir("/proc/self/fd");
  struct dirent *e;

  if (!dp) {
    for (int fd = 3; fd < 1024; fd++)
      if (fd != keep1 && fd != keep2)
        close(fd);
    return;
  }
  while ((e = readdir(dp))) {
    int fd = atoi(e->d_name);
    if (fd > 2 && fd != keep1 && fd != keep2 && fd != dirfd(dp))
      close(fd);
  }
  closedir(dp);
}
