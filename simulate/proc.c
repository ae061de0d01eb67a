/*
 * proc.c - the processes a simulation runs in.
 *
 * SimGrid holds one platform per process and cannot be reset, so every run
 * needs a process of its own. Forking one per run from the caller and
 * starting SimGrid in it cost about 15 ms of CPU time for a small run
 * (perf: SimGrid's initialisation and platform parsing were 40% of it, the
 * page faults of a fresh process most of the rest). So the first run on a
 * SimGrid platform forks a "zygote" that initialises SimGrid and loads the
 * platform once; each run then asks it to fork a simulation process, which
 * inherits the loaded platform, replays the plan and exits. Sweep variants
 * that differ only in what SimGrid does not model (CMX size, barriers,
 * names) share the zygote, whose key is the unnamed platform XML.
 *
 * Per run, the caller writes the plan to an unlinked temporary file and
 * sends the zygote, over a socket, three descriptors: the plan, the write
 * end of the result pipe and of the output pipe (the simulation process's
 * stdout and stderr). The zygote forks and answers with the new process's
 * pid, then with its wait status once it ended. The caller reads both pipes
 * until they close and watches the process's CPU time (its clock is
 * readable from here) against the CPU limit, wall time against the
 * backstop, and the interrupt flag; it kills the process on any of them.
 * A zygote whose socket misbehaves is killed and forgotten; the run fails,
 * and the next one starts a new zygote.
 *
 * Zygotes end when the caller exits (their socket reads end of file, or
 * PR_SET_PDEATHSIG on Linux), or by acs_sim_shutdown. A process forked by
 * the caller inherits the sockets but not the zygotes: g_owner tells.
 */
#define _DEFAULT_SOURCE 1 /* struct cmsghdr, CMSG_*, for descriptor passing */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "simulate/sim_int.h"
#include "core/proc.h"

#define ZYGOTE_MAX 4
#define REQ_MAGIC 0x61637a72u

struct zygote {
  pid_t pid;                  /* 0: slot free */
  int sock;
  char *key;                  /* unnamed XML text and the stack size */
  size_t keylen;
  unsigned long used;         /* LRU stamp */
};

static struct zygote g_zyg[ZYGOTE_MAX];
static pid_t g_owner;
static unsigned long g_clock, g_starts;

/* What the zygote sends back: the simulation process's pid after the fork
 * (status = 0, or pid = -1 and status = errno), then its wait status. */
struct zmsg {
  int32_t pid;
  int32_t status;
};

static void close_fd(int *fd)
{
  if (*fd >= 0) {
    while (close(*fd) < 0 && errno == EINTR)
      ;
    *fd = -1;
  }
}

static int make_pipe(int fds[2])
{
  if (pipe(fds) < 0)
    return -1;
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  return 0;
}

/* ---- the zygote and the simulation process (children) ---- */

/* A request on the zygote's socket: the magic word, and the plan, result
 * and output descriptors as SCM_RIGHTS. Both ends lay it out here. */
struct request {
  uint32_t magic;
  struct iovec iov;
  struct msghdr m;
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(3 * sizeof(int))];
  } ctl;                 /* last: to clang its size is not a constant expression */
};

static void request_init(struct request *r)
{
  memset(r, 0, sizeof(*r));
  r->iov.iov_base = &r->magic;
  r->iov.iov_len = sizeof(r->magic);
  r->m.msg_iov = &r->iov;
  r->m.msg_iovlen = 1;
  r->m.msg_control = r->ctl.buf;
  r->m.msg_controllen = sizeof(r->ctl.buf);
}

/* Receives a request and its three descriptors (plan, result, output).
 * 0 ok, 1 at end of file, -1 malformed. */
static int recv_request(int sock, int fds[3])
{
  struct request r;
  struct cmsghdr *c;
  ssize_t got;

  request_init(&r);
  while ((got = recvmsg(sock, &r.m, 0)) < 0 && errno == EINTR)
    ;
  if (got == 0)
    return 1;
  c = CMSG_FIRSTHDR(&r.m);
  if (got != sizeof(r.magic) || r.magic != REQ_MAGIC || !c || c->cmsg_type != SCM_RIGHTS ||
      c->cmsg_len != CMSG_LEN(3 * sizeof(int)))
    return -1;
  memcpy(fds, CMSG_DATA(c), 3 * sizeof(int));
  return 0;
}

/* The simulation process: reads the plan, runs it, never returns. */
static void sim_process(int fds[3]) __attribute__((noreturn));
static void sim_process(int fds[3])
{
  struct acs__sim_plan pl;
  off_t size = lseek(fds[0], 0, SEEK_END);
  void *buf;

  dup2(fds[2], STDOUT_FILENO);
  dup2(fds[2], STDERR_FILENO);
  close(fds[2]);
  if (size <= 0 || !(buf = malloc((size_t)size)) || lseek(fds[0], 0, SEEK_SET) != 0 ||
      acs_read_all(fds[0], buf, (size_t)size) != 0 ||
      acs__plan_decode(&pl, buf, (size_t)size) < 0) {
    fputs("acsim: the simulation process cannot read its plan\n", stderr);
    _exit(7);
  }
  close(fds[0]);
  acs__sim_child(&pl, fds[1]);
}

/* Writes the platform file the zygote loads; "" on failure. */
static void zygote_xml(const struct zygote *z, char *path, size_t size)
{
  const char *dir = getenv("TMPDIR");
  int fd;

  snprintf(path, size, "%s/acsim-sim-XXXXXX", dir && *dir ? dir : "/tmp");
  if ((fd = mkstemp(path)) < 0) {
    fprintf(stderr, "acsim: cannot create a temporary file in %s: %s\n",
            dir && *dir ? dir : "/tmp", strerror(errno));
    path[0] = '\0';
    return;
  }
  if (acs_write_all(fd, z->key, strlen(z->key)) < 0 || close(fd) < 0) {
    fprintf(stderr, "acsim: cannot write %s: %s\n", path, strerror(errno));
    unlink(path);
    path[0] = '\0';
  }
}

/*
 * The zygote: loads the platform (its messages go to the first run's
 * output pipe, out), says it is ready, then forks a simulation process per
 * request and reports its pid and wait status. Ends at end of file.
 */
/* Dies with the parent: PR_SET_PDEATHSIG, and a parent that died before
 * it was set is noticed by its pid. */
static void die_with(pid_t parent, const char *name)
{
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_NAME, name);
#endif
  (void)name;
  if (getppid() != parent)
    _exit(0);
}

static void zygote_main(const struct zygote *z, int sock, int out, int stack_kib, pid_t parent)
    __attribute__((noreturn));
static void zygote_main(const struct zygote *z, int sock, int out, int stack_kib, pid_t parent)
{
  char path[4096], ready = 'R';
  int fds[3], null;
  pid_t self = getpid();

  die_with(parent, "acsim-zygote");
  /* Interrupts are the caller's to handle: it kills what it must (the
   * simulation processes inherit this too). */
  signal(SIGINT, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  acs_close_other_fds(sock, out);
#ifdef __GLIBC__
  /* A fixed mmap threshold: glibc raises it as large blocks are freed, and
   * then the actors' stacks (128 KiB) come from the heap, which calloc
   * must clear page by page in every simulation process (page faults were
   * a third of a small run's cost). Mapped fresh, a stack costs only the
   * pages it touches. */
  mallopt(M_MMAP_THRESHOLD, 64 << 10);
  /* The caller keeps freed memory for its next run (cli/main.c); what it
   * had free when it forked us is given back, or every simulation process
   * forked from here would copy its page tables too. */
  mallopt(M_TRIM_THRESHOLD, 128 << 10);
  malloc_trim(0);
#endif
  dup2(out, STDOUT_FILENO);
  dup2(out, STDERR_FILENO);
  close(out);
  zygote_xml(z, path, sizeof(path));
  if (!path[0])
    _exit(8);
  acs__sim_load(path, stack_kib);
  unlink(path);
  if ((null = open("/dev/null", O_WRONLY)) >= 0) {
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    close(null);
  }
  if (acs_send_all(sock, &ready, 1) < 0)
    _exit(0);
  for (;;) {
    struct zmsg msg = {0, 0};
    int rc = recv_request(sock, fds), st;
    pid_t pid;
    if (rc != 0)
      _exit(rc > 0 ? 0 : 9);
    if ((pid = fork()) == 0) {
      close(sock);
      die_with(self, "acsim-sim");
      sim_process(fds);
    }
    close(fds[0]), close(fds[1]), close(fds[2]);
    msg.pid = (int32_t)pid;
    msg.status = pid < 0 ? errno : 0;
    if (acs_send_all(sock, &msg, sizeof(msg)) < 0)
      _exit(0);
    if (pid < 0)
      continue;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
    msg.status = st;
    if (acs_send_all(sock, &msg, sizeof(msg)) < 0)
      _exit(0);
  }
}

/* ---- the caller's side ---- */

/* What a run's process did and how it ended. */
struct child {
  pid_t pid;                  /* the simulation process; -1 before the fork */
  int res_fd, out_fd;         /* read ends: result, stdout+stderr */
  char *buf;                  /* the result bytes */
  size_t len, cap;
  char head[1024];            /* the first bytes it printed */
  size_t head_len;
  int status;                 /* wait status */
  clockid_t clk;              /* its CPU-time clock */
  double cpu_limit;           /* seconds, INFINITY for none */
  int have_clk, have_status;
  int timed_out, cpu_out, interrupted, zygote_lost;
};

/* Ends a zygote (and its simulation process, PR_SET_PDEATHSIG) and frees
 * its slot. */
static void zygote_forget(struct zygote *z)
{
  if (z->pid > 0)
    kill(z->pid, SIGKILL);
  close_fd(&z->sock);
  if (z->pid > 0)
    while (waitpid(z->pid, NULL, 0) < 0 && errno == EINTR)
      ;
  free(z->key);
  memset(z, 0, sizeof(*z));
  z->sock = -1;
}

void acs_sim_shutdown(void)
{
  if (g_owner != getpid())
    return;
  for (int k = 0; k < ZYGOTE_MAX; k++)
    if (g_zyg[k].pid > 0)
      zygote_forget(&g_zyg[k]);
}

/* Drops zygotes inherited through a fork: they answer the parent. */
static void adopt_process(void)
{
  if (g_owner == getpid())
    return;
  g_starts = 0;
  for (int k = 0; k < ZYGOTE_MAX; k++) {
    if (g_zyg[k].pid > 0)
      close(g_zyg[k].sock);
    free(g_zyg[k].key);
    memset(&g_zyg[k], 0, sizeof(g_zyg[k]));
    g_zyg[k].sock = -1;
  }
  g_owner = getpid();
}

/* Up to this many PEs and channels a zygote loads them all: a few
 * milliseconds once, and every run on the platform shares it, whichever
 * units it uses. Wider platforms load only the units a run uses. */
#define ALL_UNITS_MAX 256

/* The unnamed platform XML (all units, or those pl uses) and the stack
 * size: what a zygote loads, and the key that finds it again. */
static int zygote_key(const struct acs_platform *p, const struct acs__sim_plan *pl,
                      int stack_kib, char **key, size_t *len)
{
  FILE *f = open_memstream(key, len);
  int err;

  if (!f)
    return ACS_ENOMEM;
  if (acs_platform_get(p, ACS_P_PE_COUNT) + acs_platform_get(p, ACS_P_DMA_CHANNELS) <=
      ALL_UNITS_MAX)
    err = acs__sim_xml_write(f, p, 0);
  else
    err = acs__sim_xml_write_units(f, p, 0, pl->unit_id, pl->nunits);
  fprintf(f, "<!-- contexts/stack-size %d -->\n", stack_kib);
  if (fclose(f) != 0 || err < 0) {
    free(*key);
    return ACS_ENOMEM;
  }
  return ACS_OK;
}

static int stop_requested(struct child *c, double deadline, const volatile int *intr);

/* Waits until fd is readable or the deadline, the interrupt; 1 readable. */
static int wait_readable(struct child *c, int fd, double deadline, const volatile int *intr)
{
  for (;;) {
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    double left = deadline - acs_now_seconds();
    int ms = left <= 0 ? 0 : left > 0.1 ? 100 : (int)(left * 1000) + 1, rc;
    if (stop_requested(c, deadline, intr))
      return 0;
    rc = poll(&pfd, 1, ms);
    if (rc > 0)
      return 1;
    if (rc < 0 && errno != EINTR)
      return -1;
  }
}

/* Keeps the first bytes a process prints: SimGrid states a failure first,
 * then a backtrace. */
static void keep_head(struct child *c, const char *p, size_t n)
{
  size_t room = sizeof(c->head) - 1 - c->head_len;

  n = n < room ? n : room;
  memcpy(c->head + c->head_len, p, n);
  c->head_len += n;
}

static int drain_fd(struct child *c, int *fd, int is_result);

/* Waits for the zygote's ready byte, keeping what it prints meanwhile on
 * its init pipe (*init) in c's head: 0 ready, -1 it died or a limit or an
 * interrupt. */
static int wait_ready(struct zygote *z, struct child *c, int *init, double deadline,
                      const volatile int *intr)
{
  char ready;

  for (;;) {
    struct pollfd pfd[2] = {{.fd = z->sock, .events = POLLIN},
                            {.fd = *init, .events = POLLIN}};
    double left = deadline - acs_now_seconds();
    int ms = left <= 0 ? 0 : left > 0.1 ? 100 : (int)(left * 1000) + 1, rc;
    if (stop_requested(c, deadline, intr))
      return -1;
    rc = poll(pfd, 2, ms);
    if (rc < 0 && errno != EINTR)
      return -1;
    if (rc > 0 && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) && drain_fd(c, init, 0) < 0)
      return -1;
    if (rc > 0 && (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
      return acs_read_all(z->sock, &ready, 1) == 0 ? 0 : -1;
  }
}

/*
 * Starts a zygote for key. What it prints while it starts goes to a pipe of
 * its own, read here: it becomes c's output when the start fails, and is
 * dropped when it succeeds (ASan's notes, for one, are not the run's).
 * Returns the zygote, or NULL with c describing the failure (an exit
 * status, a timeout, an interrupt).
 */
static struct zygote *zygote_start(struct zygote *z, char *key, size_t keylen, int stack_kib,
                                   struct child *c, double deadline,
                                   const volatile int *intr, struct acs_diag *d)
{
  pid_t parent;
  int sv[2], init[2];

  if (make_pipe(init) < 0) {
    acs_diag_set(d, ACS_EIO, NULL, 0, 0, "pipe: %s", strerror(errno));
    free(key);
    return NULL;
  }
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
    acs_diag_set(d, ACS_EIO, NULL, 0, 0, "socketpair: %s", strerror(errno));
    close(init[0]), close(init[1]);
    free(key);
    return NULL;
  }
  z->key = key;
  z->keylen = keylen;
  /* SimGrid calls exit() on some errors, which would write a second copy
   * of the caller's buffered output. */
  fflush(NULL);
  parent = getpid();
  if ((z->pid = fork()) < 0) {
    acs_diag_set(d, ACS_EIO, NULL, 0, 0, "fork: %s", strerror(errno));
    close(sv[0]), close(sv[1]), close(init[0]), close(init[1]);
    free(key);
    memset(z, 0, sizeof(*z));
    z->sock = -1;
    return NULL;
  }
  if (z->pid == 0) {
    close(sv[0]);
    zygote_main(z, sv[1], init[1], stack_kib, parent);
  }
  close(sv[1]);
  close(init[1]);
  z->sock = sv[0];
  z->used = ++g_clock;
  g_starts++;
  /* Ready, or it died (end of file): its output explains. */
  if (wait_ready(z, c, &init[0], deadline, intr) == 0) {
    close_fd(&init[0]);
    c->head_len = 0;
    return z;
  }
  c->pid = z->pid;
  if (!c->timed_out && !c->interrupted) {
    /* It ended: its exit status and output are the run's. */
    while (waitpid(z->pid, &c->status, 0) < 0 && errno == EINTR)
      ;
    c->have_status = 1;
    z->pid = 0;
    while (init[0] >= 0 && drain_fd(c, &init[0], 0) > 0)
      ;
  }
  close_fd(&init[0]);
  zygote_forget(z);
  return NULL;
}

/* The zygote for key: a kept one, else a new one in a free slot or in the
 * least recently used one's. Takes ownership of key. */
static struct zygote *zygote_get(char *key, size_t keylen, int stack_kib, struct child *c,
                                 double deadline, const volatile int *intr, struct acs_diag *d)
{
  struct zygote *lru = &g_zyg[0];

  adopt_process();
  for (int k = 0; k < ZYGOTE_MAX; k++) {
    struct zygote *z = &g_zyg[k];
    if (z->pid > 0 && z->keylen == keylen && memcmp(z->key, key, keylen) == 0) {
      free(key);
      z->used = ++g_clock;
      return z;
    }
    if (z->pid <= 0 || (lru->pid > 0 && z->used < lru->used))
      lru = z;
  }
  if (lru->pid > 0)
    zygote_forget(lru);
  return zygote_start(lru, key, keylen, stack_kib, c, deadline, intr, d);
}

/* The plan in an unlinked temporary file, which the simulation process
 * reads from its start; -1 with d set on failure. */
static int plan_file(const void *plan, size_t len, struct acs_diag *d)
{
  const char *dir = getenv("TMPDIR");
  char path[4096];
  int fd;

  snprintf(path, sizeof(path), "%s/acsim-plan-XXXXXX", dir && *dir ? dir : "/tmp");
  if ((fd = mkstemp(path)) < 0) {
    acs_diag_set(d, ACS_EIO, NULL, 0, 0, "cannot create a temporary file in %s: %s",
                 dir && *dir ? dir : "/tmp", strerror(errno));
    return -1;
  }
  unlink(path);
  if (acs_write_all(fd, plan, len) < 0) {
    acs_diag_set(d, ACS_EIO, NULL, 0, 0, "cannot write the simulation plan to %s: %s",
                 dir && *dir ? dir : "/tmp", strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

/* Sends the request with the three descriptors. */
static int send_request(int sock, int plan_fd, int res_w, int out_w)
{
  struct request r;
  struct cmsghdr *c;
  int fds[3] = {plan_fd, res_w, out_w};

  request_init(&r);
  r.magic = REQ_MAGIC;
  c = CMSG_FIRSTHDR(&r.m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(fds));
  memcpy(CMSG_DATA(c), fds, sizeof(fds));
  while (sendmsg(sock, &r.m, MSG_NOSIGNAL) < 0)
    if (errno != EINTR)
      return -1;
  return 0;
}

/* CPU seconds the simulation process has used; -1 when unknown. */
static double cpu_seconds(struct child *c)
{
  struct timespec ts;

  if (!c->have_clk || clock_gettime(c->clk, &ts) < 0)
    return -1;
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int stop_requested(struct child *c, double deadline, const volatile int *intr)
{
  if (intr && *intr)
    c->interrupted = 1;
  else if (acs_now_seconds() >= deadline)
    c->timed_out = 1;
  else if (isfinite(c->cpu_limit) && cpu_seconds(c) >= c->cpu_limit)
    c->cpu_out = 1;
  return c->interrupted || c->timed_out || c->cpu_out;
}

/* Reads what is available on fd; 0 at end of file. */
static int drain_fd(struct child *c, int *fd, int is_result)
{
  char tmp[65536];
  ssize_t got = read(*fd, tmp, sizeof(tmp));

  if (got < 0)
    return errno == EINTR || errno == EAGAIN ? 1 : -1;
  if (got == 0) {
    close_fd(fd);
    return 0;
  }
  if (!is_result) {
    keep_head(c, tmp, (size_t)got);
    return 1;
  }
  if (acs_grow((void **)&c->buf, 1, &c->cap, c->len + (size_t)got) < 0)
    return -1;
  memcpy(c->buf + c->len, tmp, (size_t)got);
  c->len += (size_t)got;
  return 1;
}

/* Reads the zygote's message about c's process: its wait status. */
static int read_status(struct zygote *z, struct child *c)
{
  struct zmsg msg;

  if (acs_read_all(z->sock, &msg, sizeof(msg)) != 0 || msg.pid != (int32_t)c->pid) {
    c->zygote_lost = 1;
    return -1;
  }
  c->status = msg.status;
  c->have_status = 1;
  return 0;
}

/* Reads both pipes and the zygote's socket until the pipes closed and the
 * process's status came, or a limit or an interrupt. Polls at least every
 * 100 ms to notice them. */
static int collect(struct zygote *z, struct child *c, double deadline, const volatile int *intr)
{
  while (c->res_fd >= 0 || c->out_fd >= 0 || !c->have_status) {
    struct pollfd pfd[3];
    nfds_t nfd = 0;
    double left = deadline - acs_now_seconds();
    int ms = left <= 0 ? 0 : left > 0.1 ? 100 : (int)(left * 1000) + 1, rc;
    if (stop_requested(c, deadline, intr))
      return 0;
    if (c->res_fd >= 0)
      pfd[nfd++] = (struct pollfd){.fd = c->res_fd, .events = POLLIN};
    if (c->out_fd >= 0)
      pfd[nfd++] = (struct pollfd){.fd = c->out_fd, .events = POLLIN};
    if (!c->have_status)
      pfd[nfd++] = (struct pollfd){.fd = z->sock, .events = POLLIN};
    rc = poll(pfd, nfd, ms);
    if (rc < 0 && errno != EINTR)
      return -1;
    for (nfds_t k = 0; rc > 0 && k < nfd; k++) {
      if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      if (pfd[k].fd == z->sock ? read_status(z, c) < 0
          : pfd[k].fd == c->res_fd ? drain_fd(c, &c->res_fd, 1) < 0
                                   : drain_fd(c, &c->out_fd, 0) < 0)
        return -1;
    }
  }
  return 0;
}

/* Stops the process and waits for the zygote to report it (5 s at most,
 * then the zygote is deemed lost). */
static void stop_process(struct zygote *z, struct child *c)
{
  struct child tmp;

  kill(c->pid, SIGKILL);
  memset(&tmp, 0, sizeof(tmp));
  tmp.cpu_limit = INFINITY;
  if (!c->have_status &&
      (wait_readable(&tmp, z->sock, acs_now_seconds() + 5, NULL) != 1 || read_status(z, c) < 0))
    c->zygote_lost = 1;
}

/* The start of the process's printed output, on one line, for a message. */
static const char *head_text(struct child *c)
{
  size_t n = 0;
  int space = 1;

  for (size_t k = 0; k < c->head_len && n < 300; k++) {
    char ch = c->head[k];
    if (ch == '\n' || ch == '\r' || ch == '\t' || ch == ' ') {
      if (!space)
        c->head[n++] = ' ';
      space = 1;
    } else {
      c->head[n++] = ch;
      space = 0;
    }
  }
  while (n > 0 && c->head[n - 1] == ' ')
    n--;
  c->head[n] = '\0';
  return c->head;
}

/* Turns how the process ended into ACS_OK or an error with a message. */
static int judge(struct child *c, double cpu_limit, double wall_limit, struct acs_diag *d)
{
  const char *out = head_text(c);
  const char *sep = *out ? "; it printed: " : "";

  if (c->interrupted)
    return acs_diag_set(d, ACS_EINTERRUPTED, NULL, 0, 0, "simulation interrupted");
  if (c->cpu_out)
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0,
                        "simulation used its CPU-time limit of %.3g s and was killed%s%s",
                        cpu_limit, sep, out);
  if (c->timed_out)
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0,
                        "simulation did not finish within %.3g s and was killed%s%s",
                        wall_limit, sep, out);
  if (c->have_status && WIFSIGNALED(c->status))
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0, "simulation crashed (signal %d, %s)%s%s",
                        WTERMSIG(c->status), strsignal(WTERMSIG(c->status)), sep, out);
  if (c->have_status && WIFEXITED(c->status) && WEXITSTATUS(c->status) != 0)
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0,
                        "simulation exited with status %d without a result%s%s",
                        WEXITSTATUS(c->status), sep, out);
  if (c->zygote_lost)
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0,
                        "simulation ended without a report from its zygote process%s%s",
                        sep, out);
  return ACS_OK;
}

/* Sends the request and starts watching the process: its pid first. */
static int start_process(struct zygote *z, struct child *c, int plan_fd, int res_w,
                         int out_w, double deadline, const volatile int *intr)
{
  struct zmsg msg;

  if (send_request(z->sock, plan_fd, res_w, out_w) < 0) {
    c->zygote_lost = 1;
    return -1;
  }
  /* Without its pid the process cannot be watched, and the zygote's next
   * messages would be out of step: it goes (and its process with it,
   * PR_SET_PDEATHSIG). */
  if (wait_readable(c, z->sock, deadline, intr) != 1 ||
      acs_read_all(z->sock, &msg, sizeof(msg)) != 0) {
    c->zygote_lost = 1;
    return -1;
  }
  if (msg.pid < 0) {
    errno = msg.status;
    return -2;
  }
  c->pid = (pid_t)msg.pid;
  c->have_clk = clock_getcpuclockid(c->pid, &c->clk) == 0;
  return 0;
}

/* One run in process c: request, watch, stop if needed. */
static int run_in(struct zygote *z, struct child *c, int plan_fd, int res_w, int out_w,
                  double deadline, const volatile int *intr, struct acs_diag *d)
{
  int rc = start_process(z, c, plan_fd, res_w, out_w, deadline, intr);

  close_fd(&res_w);
  close_fd(&out_w);
  if (rc == -2)
    return acs_diag_set(d, ACS_EIO, NULL, 0, 0, "fork: %s", strerror(errno));
  if (rc == 0 && collect(z, c, deadline, intr) < 0)
    c->zygote_lost = 1;
  if (c->pid > 0 && !c->have_status && !c->zygote_lost)
    stop_process(z, c);
  if (c->zygote_lost) {
    if (c->pid > 0 && !c->have_status)
      kill(c->pid, SIGKILL);
    zygote_forget(z);
  }
  return ACS_OK;
}

int acs__proc_run(const struct acs_platform *p, const struct acs__sim_plan *pl,
                  const struct acs_sim_opts *o, const void *plan, size_t plan_len,
                  double cpu_limit, double wall_limit, struct acs__proc_result *res,
                  struct acs_diag *d)
{
  double deadline = acs_now_seconds() + wall_limit;
  int stack_kib = o->stack_kib > 0 ? o->stack_kib : 128;
  int res_p[2], out_p[2], plan_fd, err;
  struct zygote *z;
  struct child c;
  char *key;
  size_t keylen;

  memset(&c, 0, sizeof(c));
  c.pid = -1;
  c.res_fd = c.out_fd = -1;
  res->buf = NULL;
  res->len = 0;
  c.cpu_limit = cpu_limit;
  if ((err = zygote_key(p, pl, stack_kib, &key, &keylen)) < 0)
    return err;
  if (make_pipe(res_p) < 0 || make_pipe(out_p) < 0) {
    free(key);
    return acs_diag_set(d, ACS_EIO, NULL, 0, 0, "pipe: %s", strerror(errno));
  }
  c.res_fd = res_p[0];
  c.out_fd = out_p[0];
  z = zygote_get(key, keylen, stack_kib, &c, deadline, o->interrupted, d);
  if (!z && !c.have_status && !c.timed_out && !c.interrupted) {
    err = ACS_EIO; /* d says why */
  } else if (!z) {
    /* The zygote failed to start: its output and exit status explain. */
    err = judge(&c, cpu_limit, wall_limit, d);
    if (err == ACS_OK)
      err = acs_diag_set(d, ACS_ESIM, NULL, 0, 0, "simulation could not load its platform");
  } else if ((plan_fd = plan_file(plan, plan_len, d)) < 0) {
    err = ACS_EIO;
  } else {
    err = run_in(z, &c, plan_fd, res_p[1], out_p[1], deadline, o->interrupted, d);
    res_p[1] = out_p[1] = -1; /* closed by run_in */
    close(plan_fd);
    if (err == ACS_OK)
      err = judge(&c, cpu_limit, wall_limit, d);
  }
  close_fd(&res_p[1]), close_fd(&out_p[1]);
  close_fd(&c.res_fd), close_fd(&c.out_fd);
  if (err == ACS_OK) {
    res->buf = c.buf;
    res->len = c.len;
  } else {
    free(c.buf);
  }
  return err;
}

unsigned long acs__sim_zygote_starts(void)
{
  adopt_process();
  return g_starts;
}

pid_t acs__sim_zygote_pid(const struct acs_platform *p, const struct acs_schedule *s)
{
  struct acs__sim_plan pl;
  struct acs_diag d;
  char *key;
  size_t len;
  pid_t pid = 0;
  int err;

  adopt_process();
  acs_diag_init(&d);
  if (acs__plan_build(&pl, p, s, NULL, 0, &d) < 0)
    return 0;
  err = zygote_key(p, &pl, 128, &key, &len);
  acs__plan_free(&pl);
  if (err < 0)
    return 0;
  for (int k = 0; k < ZYGOTE_MAX; k++)
    if (g_zyg[k].pid > 0 && g_zyg[k].keylen == len && memcmp(g_zyg[k].key, key, len) == 0)
      pid = g_zyg[k].pid;
  free(key);
  return pid;
}
