/*
 * exec.c - self-timed replay of a schedule, isolated in a forked child.
 *
 * The parent checks the schedule against the platform, turns it into a plan
 * (what each op does, its release time, and its dependencies: edges plus
 * the planned order on each unit), writes the platform XML to a temporary
 * file, and forks. The child (actors.c) runs SimGrid and answers over a
 * pipe; the parent reads while the child writes (so any result size goes
 * through), with a deadline, and turns a crash, a hang or an incomplete run
 * into ACS_ESIM with a message. SimGrid holds one platform per process and
 * cannot be reset, so the fork is also what makes repeated runs possible.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/model/bprog.h"
#include "simulate/simint.h"

void acs_sim_opts_init(struct acs_sim_opts *o)
{
  memset(o, 0, sizeof(*o));
}

/* ---- the plan ---- */

static void plan_free(struct acs__sim_plan *pl)
{
  free(pl->op);
  free(pl->dep);
  free(pl->succ_off);
  free(pl->succ);
  free(pl->ssucc_off);
  free(pl->ssucc);
  free(pl->uoff);
  free(pl->uop);
  memset(pl, 0, sizeof(*pl));
}

/* Checks one op against the platform and fills its plan entry. */
static int plan_op(struct acs__sim_plan *pl, const struct acs_platform *p, int32_t i,
                   struct acs_diag *d)
{
  const struct acs_sop *so = &pl->s->ops[i];
  struct acs__sim_op *o = &pl->op[i];
  int is_dma = so->kind == ACS_OP_DMA, nunit = is_dma ? pl->ndma : pl->npe;

  if (so->start < 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "op '%s' is not scheduled", so->name);
  if (so->dur < 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "op '%s' has a negative duration %lld",
                        so->name, (long long)so->dur);
  if (so->unit >= nunit)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                        "op '%s' runs on %s %d but platform '%s' has %d", so->name,
                        is_dma ? "DMA channel" : "PE", (int)so->unit, p->name, nunit);
  memset(o, 0, sizeof(*o));
  o->release = (double)so->start / pl->hz;
  o->host = so->unit < 0 ? ACS__HOST_CTL(pl) : is_dma ? pl->npe + so->unit : so->unit;
  if (is_dma && so->unit >= 0 && so->bytes > 0) {
    o->act = ACS__ACT_SEND;
    o->amount = (double)so->bytes;
    if (so->src == ACS_MEM_DDR)
      o->xfer = ACS__XFER_FROM_DDR;
    else if (so->dst == ACS_MEM_DDR)
      o->xfer = ACS__XFER_TO_DDR;
    else
      o->xfer = ACS__XFER_LOCAL;
  } else if (so->dur == 0) {
    o->act = ACS__ACT_NONE;
  } else if (!is_dma && so->unit >= 0) {
    o->act = ACS__ACT_EXEC;
    o->amount = (double)so->dur;
  } else {
    /* No unit (PSPLIB jobs), or a transfer with a fixed duration but no
     * bytes: it takes its time and contends for nothing. */
    o->act = ACS__ACT_SLEEP;
    o->amount = (double)so->dur / pl->hz;
  }
  return ACS_OK;
}

struct unit_key {
  int32_t unit;   /* PEs first, then channels after npe */
  int32_t id;
  int64_t start;
};

static int cmp_unit_key(const void *a, const void *b)
{
  const struct unit_key *x = a, *y = b;

  if (x->unit != y->unit)
    return x->unit < y->unit ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* Appends dependency (src, dst, kind), growing pl->dep. */
static int add_dep(struct acs__sim_plan *pl, size_t *cap, int32_t src, int32_t dst, int kind)
{
  if ((size_t)pl->ndeps == *cap) {
    size_t ncap = *cap * 2 + 64;
    struct acs__sim_dep *d = realloc(pl->dep, ncap * sizeof(*d));
    if (!d || pl->ndeps == INT32_MAX)
      return ACS_ENOMEM;
    pl->dep = d;
    *cap = ncap;
  }
  pl->dep[pl->ndeps++] = (struct acs__sim_dep){src, dst, (uint8_t)kind};
  return ACS_OK;
}

/*
 * The barrier program as dependencies (issue 5; uses recovered by the rule
 * of core/model/bprog.h). A consumer starts after every producer of the
 * use it waits on has ended (BARRIER). A producer of a barrier's next use
 * starts only when the previous use is complete: after every consumer of
 * it has started (REUSE_START, released when the source starts; the
 * consumers' own BARRIER dependencies cover the producers), or, for a use
 * nobody waits on, after its producers have ended (REUSE_END). An op that
 * consumes the previous use and produces the next one is its own release.
 * So a program that breaks the reuse rule is delayed here as the hardware
 * would delay it, and one that cannot run at all shows up as an incomplete
 * run, never as a hang. O(sum over uses of producers x consumers).
 */
static int barrier_deps(struct acs__sim_plan *pl)
{
  struct acs_bprog bp;
  size_t cap = (size_t)pl->s->nedges + (size_t)pl->n + 1;
  int err;

  if ((err = acs_bprog_build(pl->s, &bp)) < 0)
    return err;
  for (int32_t u = 0; u < bp.nuses && err == ACS_OK; u++) {
    int32_t q = bp.prev[u];
    for (int32_t j = bp.prod_off[u]; j < bp.prod_off[u + 1] && err == ACS_OK; j++) {
      int32_t p = bp.prod[j];
      for (int32_t k = bp.cons_off[u]; k < bp.cons_off[u + 1] && err == ACS_OK; k++)
        err = add_dep(pl, &cap, p, bp.cons[k], ACS__DEP_BARRIER);
      if (q < 0)
        continue;
      if (bp.cons_off[q + 1] > bp.cons_off[q]) {
        for (int32_t k = bp.cons_off[q]; k < bp.cons_off[q + 1] && err == ACS_OK; k++)
          if (bp.cons[k] != p)
            err = add_dep(pl, &cap, bp.cons[k], p, ACS__DEP_REUSE_START);
      } else {
        for (int32_t k = bp.prod_off[q]; k < bp.prod_off[q + 1] && err == ACS_OK; k++)
          err = add_dep(pl, &cap, bp.prod[k], p, ACS__DEP_REUSE_END);
      }
    }
  }
  acs_bprog_destroy(&bp);
  return err;
}

/* Each unit's working ops in planned order (the sorted keys), as CSR: the
 * list a unit's actor in the child works through. O(V + units). */
static int plan_units(struct acs__sim_plan *pl, const struct unit_key *key, size_t nkey)
{
  size_t nunits = (size_t)pl->npe + (size_t)pl->ndma;

  pl->uoff = calloc(nunits + 1, sizeof(*pl->uoff));
  pl->uop = malloc((nkey + 1) * sizeof(*pl->uop));
  if (!pl->uoff || !pl->uop)
    return ACS_ENOMEM;
  for (size_t k = 0; k < nkey; k++) {
    pl->uoff[key[k].unit + 1]++;
    pl->uop[k] = key[k].id;
  }
  for (size_t u = 0; u < nunits; u++)
    pl->uoff[u + 1] += pl->uoff[u];
  return ACS_OK;
}

/*
 * Dependencies: every schedule edge, then an implicit one from each op to
 * the next on its unit in planned order (start, ties by id), which is how
 * the executor replays the plan's order instead of re-deciding it. Ops
 * without work (zero duration, no bytes) occupy no unit, so they stay out
 * of the unit order: at one instant a verified plan may put such an op
 * before or after a working one whatever their ids, and ordering them by
 * id could contradict an edge and deadlock a valid plan. The barrier
 * program is the third source (barrier_deps). O(V log V + E) plus the
 * barrier dependencies.
 */
static int plan_deps(struct acs__sim_plan *pl)
{
  const struct acs_schedule *s = pl->s;
  struct unit_key *key = malloc(((size_t)pl->n + 1) * sizeof(*key));
  size_t nkey = 0;
  int err;

  pl->dep = malloc(((size_t)s->nedges + (size_t)pl->n + 1) * sizeof(*pl->dep));
  if (!key || !pl->dep) {
    free(key);
    return ACS_ENOMEM;
  }
  for (int32_t e = 0; e < s->nedges; e++)
    pl->dep[pl->ndeps++] = (struct acs__sim_dep){
        s->edges[e].src, s->edges[e].dst,
        s->edges[e].kind == ACS_EDGE_CONTROL ? ACS__DEP_CONTROL : ACS__DEP_DATA};
  for (int32_t i = 0; i < pl->n; i++) {
    const struct acs_sop *o = &s->ops[i];
    if (o->unit >= 0 && pl->op[i].act != ACS__ACT_NONE)
      key[nkey++] = (struct unit_key){o->kind == ACS_OP_DMA ? pl->npe + o->unit : o->unit,
                                      i, o->start};
  }
  qsort(key, nkey, sizeof(*key), cmp_unit_key);
  for (size_t k = 1; k < nkey; k++)
    if (key[k].unit == key[k - 1].unit)
      pl->dep[pl->ndeps++] = (struct acs__sim_dep){key[k - 1].id, key[k].id, ACS__DEP_UNIT};
  err = plan_units(pl, key, nkey);
  free(key);
  if (err < 0)
    return err;
  return acs_bprog_present(s) && (err = barrier_deps(pl)) < 0 ? err : ACS_OK;
}

/* Successors (CSR) over the dependencies of pl->dep released at the end
 * (start = 0) or at the start (start = 1) of their source. */
static int plan_csr(struct acs__sim_plan *pl, int start, int32_t **off_out, int32_t **idx_out)
{
  int32_t *off = calloc((size_t)pl->n + 1, sizeof(*off));
  int32_t *idx = malloc(((size_t)pl->ndeps + 1) * sizeof(*idx));
  int32_t *cur = malloc(((size_t)pl->n + 1) * sizeof(*cur));

  *off_out = off;
  *idx_out = idx;
  if (!off || !idx || !cur) {
    free(cur);
    return ACS_ENOMEM;
  }
  for (int32_t e = 0; e < pl->ndeps; e++)
    if ((pl->dep[e].kind == ACS__DEP_REUSE_START) == start)
      off[pl->dep[e].src + 1]++;
  for (int32_t v = 0; v < pl->n; v++)
    off[v + 1] += off[v];
  memcpy(cur, off, (size_t)pl->n * sizeof(*cur));
  for (int32_t e = 0; e < pl->ndeps; e++)
    if ((pl->dep[e].kind == ACS__DEP_REUSE_START) == start)
      idx[cur[pl->dep[e].src]++] = pl->dep[e].dst;
  free(cur);
  return ACS_OK;
}

/* Successor lists (CSR) and predecessor counts over pl->dep: those
 * released when their source ends, and (REUSE_START) when it starts.
 * O(V + E). */
static int plan_succ(struct acs__sim_plan *pl)
{
  int err;

  for (int32_t e = 0; e < pl->ndeps; e++)
    pl->op[pl->dep[e].dst].npred++;
  if ((err = plan_csr(pl, 0, &pl->succ_off, &pl->succ)) < 0)
    return err;
  return plan_csr(pl, 1, &pl->ssucc_off, &pl->ssucc);
}

static int plan_build(struct acs__sim_plan *pl, const struct acs_platform *p,
                      const struct acs_schedule *s, const struct acs_sim_opts *o,
                      struct acs_diag *d)
{
  int err;

  memset(pl, 0, sizeof(*pl));
  pl->s = s;
  pl->n = s->nops;
  pl->npe = (int)acs_platform_get(p, ACS_P_PE_COUNT);
  pl->ndma = (int)acs_platform_get(p, ACS_P_DMA_CHANNELS);
  pl->hz = acs_platform_get(p, ACS_P_FREQ_MHZ) * 1e6;
  pl->stack_kib = o->stack_kib > 0 ? o->stack_kib : 128;
  pl->hook = o->hook;
  if (!(pl->op = malloc(((size_t)pl->n + 1) * sizeof(*pl->op))))
    return ACS_ENOMEM;
  for (int32_t i = 0; i < pl->n; i++)
    if ((err = plan_op(pl, p, i, d)) < 0)
      goto out_with_plan;
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].src < 0 || s->edges[e].src >= pl->n || s->edges[e].dst < 0 ||
        s->edges[e].dst >= pl->n) {
      err = acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "edge %d refers to a missing op", (int)e);
      goto out_with_plan;
    }
  if ((err = plan_deps(pl)) < 0 || (err = plan_succ(pl)) < 0)
    goto out_with_plan;
  return ACS_OK;

out_with_plan:
  plan_free(pl);
  return err;
}

/* ---- the platform file ---- */

static int write_xml(const struct acs_platform *p, char *path, size_t size, struct acs_diag *d)
{
  const char *dir = getenv("TMPDIR");
  FILE *f;
  int fd, err;

  snprintf(path, size, "%s/acsim-sim-XXXXXX", dir && *dir ? dir : "/tmp");
  if ((fd = mkstemp(path)) < 0)
    return acs_diag_set(d, ACS_EIO, NULL, 0, 0, "cannot create a temporary file in %s: %s",
                        dir && *dir ? dir : "/tmp", strerror(errno));
  if (!(f = fdopen(fd, "w"))) {
    close(fd);
    unlink(path);
    return ACS_ENOMEM;
  }
  err = acs_sim_xml_write(f, p);
  if (fclose(f) != 0 || err < 0) {
    unlink(path);
    return acs_diag_set(d, ACS_EIO, NULL, 0, 0, "cannot write %s: %s", path, strerror(errno));
  }
  return ACS_OK;
}

/* ---- the child process ---- */

struct child {
  pid_t pid;
  int res_fd, out_fd;         /* read ends: result, child's stdout+stderr */
  char *buf;                  /* the result bytes */
  size_t len, cap;
  char head[1024];            /* the first bytes the child printed */
  size_t head_len;
  int status;                 /* waitpid status */
  int timed_out, interrupted, reaped;
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

/* Forks; the child runs the plan and never returns. */
static int spawn(struct child *c, const struct acs__sim_plan *pl, struct acs_diag *d)
{
  int res[2], out[2];

  memset(c, 0, sizeof(*c));
  c->res_fd = c->out_fd = -1;
  if (make_pipe(res) < 0)
    return acs_diag_set(d, ACS_EIO, NULL, 0, 0, "pipe: %s", strerror(errno));
  if (make_pipe(out) < 0) {
    close_fd(&res[0]), close_fd(&res[1]);
    return acs_diag_set(d, ACS_EIO, NULL, 0, 0, "pipe: %s", strerror(errno));
  }
  /* The child leaves with _exit, but SimGrid calls exit() on some errors,
   * which would write a second copy of the caller's buffered output. */
  fflush(NULL);
  if ((c->pid = fork()) < 0) {
    close_fd(&res[0]), close_fd(&res[1]), close_fd(&out[0]), close_fd(&out[1]);
    return acs_diag_set(d, ACS_EIO, NULL, 0, 0, "fork: %s", strerror(errno));
  }
  if (c->pid == 0) {
    close(res[0]);
    close(out[0]);
    /* SimGrid's own messages go to the parent, which shows them only when
     * the run fails. */
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    close(out[1]);
    acs__sim_child(pl, res[1]);
  }
  close_fd(&res[1]);
  close_fd(&out[1]);
  c->res_fd = res[0];
  c->out_fd = out[0];
  return ACS_OK;
}

/* Reads what is available on fd; returns 0 at end of file. */
static int drain(struct child *c, int *fd, int is_result)
{
  char tmp[65536];
  ssize_t got = read(*fd, tmp, sizeof(tmp));

  if (got < 0)
    return errno == EINTR || errno == EAGAIN ? 1 : -1;
  if (got == 0) {
    close_fd(fd);
    return 0;
  }
  if (is_result) {
    if (acs_grow((void **)&c->buf, 1, &c->cap, c->len + (size_t)got) < 0)
      return -1;
    memcpy(c->buf + c->len, tmp, (size_t)got);
    c->len += (size_t)got;
  } else if (c->head_len + 1 < sizeof(c->head)) {
    /* Keep the first bytes: SimGrid states the failure first, then a
     * backtrace. */
    size_t n = sizeof(c->head) - 1 - c->head_len;
    n = n < (size_t)got ? n : (size_t)got;
    memcpy(c->head + c->head_len, tmp, n);
    c->head_len += n;
  }
  return 1;
}

static int stop_requested(struct child *c, double deadline, const volatile int *intr)
{
  if (intr && *intr)
    c->interrupted = 1;
  else if (acs_now_seconds() >= deadline)
    c->timed_out = 1;
  return c->interrupted || c->timed_out;
}

/* Reads both pipes until both close, the deadline passes or an interrupt
 * is requested. Polls at least every 100 ms to notice an interrupt. */
static int collect(struct child *c, double deadline, const volatile int *intr)
{
  while (c->res_fd >= 0 || c->out_fd >= 0) {
    struct pollfd pfd[2];
    nfds_t nfd = 0;
    double left = deadline - acs_now_seconds();
    int ms = left <= 0 ? 0 : left > 0.1 ? 100 : (int)(left * 1000) + 1, rc;

    if (stop_requested(c, deadline, intr))
      return 0;
    if (c->res_fd >= 0)
      pfd[nfd++] = (struct pollfd){.fd = c->res_fd, .events = POLLIN};
    if (c->out_fd >= 0)
      pfd[nfd++] = (struct pollfd){.fd = c->out_fd, .events = POLLIN};
    rc = poll(pfd, nfd, ms);
    if (rc < 0 && errno != EINTR)
      return -1;
    for (nfds_t k = 0; rc > 0 && k < nfd; k++) {
      if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      if (pfd[k].fd == c->res_fd ? drain(c, &c->res_fd, 1) < 0
                                 : drain(c, &c->out_fd, 0) < 0)
        return -1;
    }
  }
  return 0;
}

static void sleep_seconds(double sec)
{
  struct timespec ts = {(time_t)sec, (long)((sec - (double)(time_t)sec) * 1e9)};

  while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
    ;
}

/*
 * Waits for the child to exit until the deadline (its pipes close a moment
 * before it becomes a zombie), then kills it; always reaps it. A parent
 * that ignores SIGCHLD has its children reaped by the kernel (ECHILD):
 * the result, when complete, still counts.
 */
static void reap(struct child *c, double deadline)
{
  double pause = 50e-6;
  pid_t w;

  if (!c->timed_out && !c->interrupted) {
    while ((w = waitpid(c->pid, &c->status, WNOHANG)) == 0 && acs_now_seconds() < deadline) {
      sleep_seconds(pause);
      pause = pause < 0.01 ? pause * 2 : pause;
    }
    if (w == c->pid || (w < 0 && errno == ECHILD)) {
      c->reaped = w == c->pid;
      return;
    }
    c->timed_out = 1;
  }
  kill(c->pid, SIGKILL);
  while ((w = waitpid(c->pid, &c->status, 0)) < 0 && errno == EINTR)
    ;
  c->reaped = w == c->pid;
}

/* The start of the child's printed output, on one line, for a message. */
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

/* Turns how the child ended into ACS_OK or an error with a message. */
static int judge(struct child *c, double timeout, struct acs_diag *d)
{
  const char *out = head_text(c);
  const char *sep = *out ? "; it printed: " : "";

  if (c->interrupted)
    return acs_diag_set(d, ACS_EINTERRUPTED, NULL, 0, 0, "simulation interrupted");
  if (c->timed_out)
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0,
                        "simulation did not finish within %.3g s and was killed%s%s",
                        timeout, sep, out);
  if (c->reaped && WIFSIGNALED(c->status))
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0, "simulation crashed (signal %d, %s)%s%s",
                        WTERMSIG(c->status), strsignal(WTERMSIG(c->status)), sep, out);
  if (c->reaped && WIFEXITED(c->status) && WEXITSTATUS(c->status) != 0)
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0,
                        "simulation exited with status %d without a result%s%s",
                        WEXITSTATUS(c->status), sep, out);
  return ACS_OK;
}

/* ---- results ---- */

/* Rounds to a grid of 1e-6 cycle, which hides the last bits of floating
 * point noise (times come back in seconds) but no simulated effect. The
 * rounding is monotone, so simulated times keep respecting every edge. */
static double to_cycles(double sec, double hz)
{
  return isnan(sec) ? NAN : round(sec * hz * 1e6) / 1e6;
}

static int decode(const struct child *c, const struct acs__sim_plan *pl,
                  struct acs_schedule *s, struct acs_sim_result *r, struct acs_diag *d)
{
  struct acs__sim_wire h;
  size_t need;
  const char *msg;
  double t;

  if (c->len < sizeof(h))
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0, "simulation ended without a result");
  memcpy(&h, c->buf, sizeof(h));
  need = sizeof(h) + h.msglen + 2 * (size_t)pl->n * sizeof(double);
  if (h.magic != ACS__SIM_MAGIC || h.n != pl->n || c->len != need)
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0, "simulation returned a malformed result");
  msg = c->buf + sizeof(h);
  for (int32_t i = 0; i < pl->n; i++) {
    const char *at = msg + h.msglen + (size_t)i * sizeof(double);
    memcpy(&t, at, sizeof(t));
    s->ops[i].sim_start = to_cycles(t, pl->hz);
    memcpy(&t, at + (size_t)pl->n * sizeof(double), sizeof(t));
    s->ops[i].sim_end = to_cycles(t, pl->hz);
  }
  r->ops_completed = h.ndone;
  if (h.status != ACS__SIM_DONE || h.ndone != pl->n)
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0, "%.*s", (int)h.msglen, msg);
  return ACS_OK;
}

/* Makespan, DDR bytes and utilizations from the simulated times. O(V). */
static void measure(const struct acs__sim_plan *pl, const struct acs_schedule *s,
                    struct acs_sim_result *r)
{
  double pe_busy = 0, dma_busy = 0, span = 0, planned = 0;

  for (int32_t i = 0; i < pl->n; i++) {
    const struct acs_sop *o = &s->ops[i];
    double busy = o->sim_end - o->sim_start;
    if (o->sim_end > span)
      span = o->sim_end;
    if ((double)o->end > planned)
      planned = (double)o->end;
    if (o->unit >= 0 && o->kind == ACS_OP_DMA)
      dma_busy += busy;
    else if (o->unit >= 0)
      pe_busy += busy;
    if (pl->op[i].act == ACS__ACT_SEND && pl->op[i].xfer != ACS__XFER_LOCAL)
      r->ddr_bytes += o->bytes;
  }
  r->makespan_cycles = span;
  r->slowdown = planned > 0 ? span / planned : NAN;
  r->pe_utilization = span > 0 ? pe_busy / ((double)pl->npe * span) : 0;
  r->dma_utilization = span > 0 ? dma_busy / ((double)pl->ndma * span) : 0;
}

static void result_init(struct acs_sim_result *r, const struct acs_schedule *s)
{
  memset(r, 0, sizeof(*r));
  r->makespan_cycles = r->slowdown = NAN;
  r->pe_utilization = r->dma_utilization = NAN;
  r->ops_total = s->nops;
  for (int32_t i = 0; i < s->nops; i++)
    s->ops[i].sim_start = s->ops[i].sim_end = NAN;
}

/* The default limit: about 40 times the expected cost (SimGrid replays
 * some 40,000 ops per second), so only a hung child reaches it. */
static double default_timeout(const struct acs_schedule *s)
{
  return 10.0 + 1e-3 * (double)s->nops + 1e-4 * (double)s->nedges;
}

static int run_plan(const struct acs__sim_plan *pl, const struct acs_sim_opts *o,
                    double timeout, struct child *c, struct acs_diag *d)
{
  double deadline = acs_now_seconds() + timeout;
  int err;

  if ((err = spawn(c, pl, d)) < 0)
    return err;
  if (collect(c, deadline, o->interrupted) < 0)
    c->timed_out = 1; /* a read error: stop the child rather than wait */
  close_fd(&c->res_fd);
  close_fd(&c->out_fd);
  reap(c, deadline);
  return judge(c, timeout, d);
}

int acs_sim_run(const struct acs_platform *p, struct acs_schedule *s,
                const struct acs_sim_opts *opts, struct acs_sim_result *r,
                struct acs_diag *d)
{
  double t0 = acs_now_seconds(), timeout;
  struct acs_sim_opts defaults;
  struct acs__sim_plan pl;
  struct child c;
  char xml[4096];
  int err;

  if (!opts) {
    acs_sim_opts_init(&defaults);
    opts = &defaults;
  }
  result_init(r, s);
  timeout = opts->timeout > 0 ? opts->timeout : default_timeout(s);
  if ((err = plan_build(&pl, p, s, opts, d)) < 0)
    goto out;
  if ((err = write_xml(p, xml, sizeof(xml), d)) < 0)
    goto out_with_plan;
  pl.xml_path = xml;
  err = run_plan(&pl, opts, timeout, &c, d);
  unlink(xml);
  if (err == ACS_OK)
    err = decode(&c, &pl, s, r, d);
  if (err == ACS_OK)
    measure(&pl, s, r);
  free(c.buf);
out_with_plan:
  plan_free(&pl);
out:
  r->sim_seconds = acs_now_seconds() - t0;
  return err;
}
