/*
 * actors.c - the forked child: replays a plan with SimGrid actors.
 *
 * SimGrid's C API has no activity dependencies, so the DAG is driven with
 * actors: when the last dependency of an op finishes (data and control
 * edges, the previous op on its unit, the barrier uses it waits on) and the
 * ops it must not overtake have started (the consumers of the previous use
 * of the barrier it reprograms), the op is due at once or waits
 * in a heap for its planned start; when due it gets an actor that does the
 * work (compute, transfer or wait) and then releases its successors. Ops
 * without work complete inline, without an actor. Each op is released once
 * and finishes once, so a run costs O((V + E) log V) here plus SimGrid's
 * per-event cost.
 *
 * The simulation is single-threaded (actors are coroutines), so the run
 * state below needs no locking. Only one run happens per process, which is
 * why it can live in one static pointer: actors receive nothing but their
 * op index (as actor data).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <xbt/config.h>
#include <xbt/log.h>

#include "simulate/simint.h"

enum op_state { ST_WAITING, ST_RELEASED, ST_DONE };

/* An op whose dependencies are done but whose planned start is ahead. */
struct pending {
  double release;
  int32_t op;
};

struct run {
  const struct acs__sim_plan *pl;
  struct acs__sim_op *op;     /* private copy: npred counts down */
  sg_host_t *host;            /* the host table of simint.h */
  double *t;                  /* n start times, then n end times */
  uint8_t *state;             /* enum op_state */
  int32_t *stack;             /* ops finished at the current instant */
  size_t top;
  int32_t ndone;
  int32_t *rq;                /* ops released by a start (REUSE_START), to make ready */
  size_t nrq;
  struct pending *heap;       /* min-heap by (release, op) */
  size_t nheap;
  sg_sem_t wake;              /* wakes the releaser before its timeout */
  int releaser_alive;
  double releaser_until;      /* when the sleeping releaser wakes; -inf if awake */
};

static struct run *g_run;

static void op_main(int argc, char **argv);
static void releaser_main(int argc, char **argv);

/* ---- pending releases: a binary heap, O(log V) per operation ---- */

static int pending_less(const struct pending *a, const struct pending *b)
{
  return a->release < b->release || (a->release == b->release && a->op < b->op);
}

static void heap_push(struct run *r, struct pending x)
{
  size_t k = r->nheap++;

  while (k > 0 && pending_less(&x, &r->heap[(k - 1) / 2])) {
    r->heap[k] = r->heap[(k - 1) / 2];
    k = (k - 1) / 2;
  }
  r->heap[k] = x;
}

static struct pending heap_pop(struct run *r)
{
  struct pending top = r->heap[0], last = r->heap[--r->nheap];
  size_t k = 0, c;

  while ((c = 2 * k + 1) < r->nheap) {
    if (c + 1 < r->nheap && pending_less(&r->heap[c + 1], &r->heap[c]))
      c++;
    if (!pending_less(&r->heap[c], &last))
      break;
    r->heap[k] = r->heap[c];
    k = c;
  }
  if (r->nheap > 0)
    r->heap[k] = last;
  return top;
}

static void spawn(const char *name, sg_host_t host, void (*code)(int, char **), int32_t data)
{
  sg_actor_t a = sg_actor_init(name, host);

  sg_actor_set_data(a, (void *)(intptr_t)data);
  sg_actor_start(a, code, 0, NULL);
}

/* Op i starts now: it releases the ops that waited for it to start (the
 * next producers of a barrier whose use it consumes). They are queued, not
 * made ready here, so long chains of such releases never recurse. */
static void on_start(int32_t i, double now)
{
  struct run *r = g_run;
  const struct acs__sim_plan *pl = r->pl;

  r->t[i] = now;
  for (int32_t k = pl->ssucc_off[i]; k < pl->ssucc_off[i + 1]; k++)
    if (--r->op[pl->ssucc[k]].npred == 0)
      r->rq[r->nrq++] = pl->ssucc[k];
}

/*
 * Op i's dependencies are done. The plan's start is a release time: the
 * planner may have delayed the op for a capacity SimGrid does not model
 * (CMX bytes, named resources), and starting earlier would violate it. An
 * op not yet due waits in the heap rather than in a sleeping actor, so only
 * running ops hold an actor (and its stack). A due op without work is
 * queued as finished now; any other gets its actor.
 */
static void ready(int32_t i, double now)
{
  struct run *r = g_run;
  const struct acs__sim_op *o = &r->op[i];

  r->state[i] = ST_RELEASED;
  if (o->release > now) {
    heap_push(r, (struct pending){o->release, i});
    if (!r->releaser_alive) {
      r->releaser_alive = 1;
      spawn("releaser", r->host[ACS__HOST_CTL(r->pl)], releaser_main, -1);
    } else if (o->release < r->releaser_until) {
      sg_sem_release(r->wake);
    }
    return;
  }
  on_start(i, now);
  if (o->act == ACS__ACT_NONE) {
    r->stack[r->top++] = i;
    return;
  }
  spawn(r->pl->s->ops[i].name, r->host[o->host], op_main, i);
}

/* ready(i), then every op that a start released meanwhile. */
static void ready_all(int32_t i, double now)
{
  struct run *r = g_run;

  ready(i, now);
  while (r->nrq > 0)
    ready(r->rq[--r->nrq], now);
}

/*
 * Finishes the ops on the stack and everything that becomes finished at the
 * same instant. The stack is shared by all actors: starting an actor is a
 * simcall, during which another actor of the same scheduling round may run
 * this loop too; it then drains the same stack at the same simulated time,
 * which is equally correct. Each op is pushed once, so n entries suffice.
 */
static void drain(double now)
{
  struct run *r = g_run;
  const struct acs__sim_plan *pl = r->pl;

  while (r->top > 0) {
    int32_t u = r->stack[--r->top];
    r->t[pl->n + u] = now;
    r->state[u] = ST_DONE;
    r->ndone++;
    for (int32_t k = pl->succ_off[u]; k < pl->succ_off[u + 1]; k++) {
      int32_t v = pl->succ[k];
      if (--r->op[v].npred == 0)
        ready_all(v, now);
    }
  }
}

/*
 * Releases pending ops when they fall due. It sleeps on a semaphore with a
 * timeout until the earliest release; an op pending earlier than that posts
 * the semaphore to wake it sooner (a stale post only causes one extra loop).
 * It lives only while ops are pending, so an empty heap never keeps the
 * simulation alive, and a live releaser always has a timeout ahead, so a
 * pending op never looks like a deadlock.
 */
static void releaser_main(int argc, char **argv)
{
  struct run *r = g_run;

  while (r->nheap > 0) {
    double now = simgrid_get_clock(), due = r->heap[0].release;
    if (due > now) {
      r->releaser_until = due;
      sg_sem_acquire_timeout(r->wake, due - now);
      r->releaser_until = -INFINITY;
      continue;
    }
    ready_all(heap_pop(r).op, now);
    drain(now);
  }
  r->releaser_alive = 0;
}

static void op_main(int argc, char **argv)
{
  struct run *r = g_run;
  int32_t i = (int32_t)(intptr_t)sg_actor_self_get_data();
  const struct acs__sim_op *o = &r->op[i];
  int unit_host = r->pl->s->ops[i].unit + r->pl->npe;

  r->t[i] = simgrid_get_clock();
  switch (o->act) {
  case ACS__ACT_EXEC:
    sg_actor_execute(o->amount);
    break;
  case ACS__ACT_SLEEP:
    sg_actor_sleep_for(o->amount);
    break;
  case ACS__ACT_SEND:
    /* DDR transfers cross the shared ddr link, so transfers that overlap
     * in time share its bandwidth; CMX-to-CMX ones only the channel. */
    if (o->xfer == ACS__XFER_PE)
      sg_host_sendto(r->host[o->host], r->host[o->peer], o->amount);
    else if (o->xfer == ACS__XFER_FROM_DDR)
      sg_host_sendto(r->host[ACS__HOST_DDR(r->pl)], r->host[unit_host], o->amount);
    else if (o->xfer == ACS__XFER_TO_DDR)
      sg_host_sendto(r->host[unit_host], r->host[ACS__HOST_DDR(r->pl)], o->amount);
    else
      sg_host_sendto(r->host[unit_host], r->host[ACS__HOST_CMX(r->pl)], o->amount);
    break;
  default:
    break;
  }
  r->stack[r->top++] = i;
  drain(simgrid_get_clock());
}

/* ---- what did not run, and why ---- */

static const char *dep_reason(const struct acs__sim_plan *pl, const struct acs__sim_dep *e,
                              char *buf, size_t size)
{
  const struct acs_sop *o = &pl->s->ops[e->dst];

  if (e->kind == ACS__DEP_DATA)
    return "data edge";
  if (e->kind == ACS__DEP_CONTROL)
    return "control edge";
  if (e->kind == ACS__DEP_BARRIER) {
    snprintf(buf, size, "barrier %d", (int)pl->s->ops[e->src].update_barrier);
    return buf;
  }
  if (e->kind == ACS__DEP_REUSE_END || e->kind == ACS__DEP_REUSE_START) {
    snprintf(buf, size, "to %s: barrier %d reused", e->kind == ACS__DEP_REUSE_END ? "end" : "start",
             (int)o->update_barrier);
    return buf;
  }
  snprintf(buf, size, "previous op on %s%d", o->kind == ACS_OP_DMA ? "dma" : "pe", o->unit);
  return buf;
}

/* Index in pl->dep of the first unfinished dependency of op u, or -1.
 * pred_off/pred index dep entries by destination. */
static int32_t first_unfinished(const struct run *r, const int32_t *pred_off,
                                const int32_t *pred, int32_t u)
{
  for (int32_t k = pred_off[u]; k < pred_off[u + 1]; k++) {
    const struct acs__sim_dep *e = &r->pl->dep[pred[k]];
    if (e->kind == ACS__DEP_REUSE_START ? isnan(r->t[e->src]) : r->state[e->src] != ST_DONE)
      return pred[k];
  }
  return -1;
}

/* Appends one "'a' waits for 'b' (why)" hop to msg. */
static void append_hop(const struct acs__sim_plan *pl, int32_t e, int first, char *msg,
                       size_t size)
{
  const struct acs__sim_dep *dep = &pl->dep[e];
  size_t len = strlen(msg);
  char why[64];

  if (len + 1 >= size)
    return;
  snprintf(msg + len, size - len, "%s'%s' waits for '%s' (%s)", first ? "; " : ", ",
           pl->s->ops[dep->dst].name,
           pl->s->ops[dep->src].name, dep_reason(pl, dep, why, sizeof(why)));
}

/* Dependencies by destination: pred[pred_off[v] .. pred_off[v + 1]) are
 * indices into pl->dep. pos is scratch of n entries. O(V + E). */
static void pred_index(const struct acs__sim_plan *pl, int32_t *pred_off, int32_t *pred,
                       int32_t *pos)
{
  for (int32_t e = 0; e < pl->ndeps; e++)
    pred_off[pl->dep[e].dst + 1]++;
  for (int32_t v = 0; v < pl->n; v++)
    pred_off[v + 1] += pred_off[v];
  memcpy(pos, pred_off, (size_t)pl->n * sizeof(*pos));
  for (int32_t e = 0; e < pl->ndeps; e++)
    pred[pos[pl->dep[e].dst]++] = e;
}

/* Prints the hops of path, eliding the middle of a long chain. */
static void append_path(const struct acs__sim_plan *pl, const int32_t *path, int32_t len,
                        char *msg, size_t size)
{
  for (int32_t h = 0; h < len; h++) {
    if (len > 8 && h == 4) {
      size_t l = strlen(msg);
      snprintf(msg + l, size - l, ", ...");
      h = len - 4; /* the loop's increment makes it len - 3 */
      continue;
    }
    append_hop(pl, path[h], h == 0, msg, size);
  }
}

/*
 * Explains an incomplete run: starting from the first op (by id) that never
 * started, follows unfinished dependencies until an op repeats (a cycle) or
 * one has none left. O(V + E).
 */
static int explain(const struct run *r, char *msg, size_t size)
{
  const struct acs__sim_plan *pl = r->pl;
  int32_t n = pl->n, u = -1, len = 0, nstart = 0;
  int32_t *pred_off = calloc((size_t)n + 1, sizeof(*pred_off));
  int32_t *pred = malloc(((size_t)pl->ndeps + 1) * sizeof(*pred));
  int32_t *pos = malloc(((size_t)n + 1) * sizeof(*pos));   /* hop at which an op waits */
  int32_t *path = malloc(((size_t)n + 1) * sizeof(*path)); /* dep index per hop */

  if (!pred_off || !pred || !pos || !path) {
    free(pred_off), free(pred), free(pos), free(path);
    return -1;
  }
  pred_index(pl, pred_off, pred, pos);
  for (int32_t v = n - 1; v >= 0; v--) {
    pos[v] = -1;
    if (r->state[v] == ST_WAITING)
      u = v, nstart++;
  }
  snprintf(msg, size, "simulation incomplete: %d of %d ops never finished (%d never started)",
           (int)(n - r->ndone), (int)n, (int)nstart);
  while (u >= 0 && pos[u] < 0) {
    int32_t e = first_unfinished(r, pred_off, pred, u);
    pos[u] = len;
    if (e < 0)
      break;
    path[len++] = e;
    u = pl->dep[e].src;
  }
  append_path(pl, path, len, msg, size);
  if (u >= 0 && pos[u] < len) {
    size_t l = strlen(msg);
    snprintf(msg + l, size - l, ", a cycle of %d ops", (int)(len - pos[u]));
  } else if (u >= 0 && len == 0) {
    size_t l = strlen(msg);
    snprintf(msg + l, size - l, "; '%s' never started though its dependencies finished",
             pl->s->ops[u].name);
  }
  free(pred_off), free(pred), free(pos), free(path);
  return 0;
}

/* ---- the child's main ---- */

/* Leaves the child with a reason the parent quotes in its message. */
static void die(int code, const char *why) __attribute__((noreturn));
static void die(int code, const char *why)
{
  ssize_t w = write(STDERR_FILENO, why, strlen(why));

  (void)w;
  _exit(code);
}

static int write_all(int fd, const void *buf, size_t len)
{
  const char *p = buf;

  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

static void answer(const struct run *r, int fd, const char *msg)
{
  struct acs__sim_wire h;

  memset(&h, 0, sizeof(h));
  h.magic = ACS__SIM_MAGIC;
  h.status = r->ndone == r->pl->n ? ACS__SIM_DONE : ACS__SIM_INCOMPLETE;
  h.n = r->pl->n;
  h.ndone = r->ndone;
  h.msglen = (uint32_t)strlen(msg);
  if (write_all(fd, &h, sizeof(h)) < 0 || write_all(fd, msg, h.msglen) < 0 ||
      write_all(fd, r->t, 2 * (size_t)r->pl->n * sizeof(*r->t)) < 0)
    die(4, "acsim: cannot send the simulation result\n");
}

static void setup_simgrid(const struct acs__sim_plan *pl)
{
  /* Static: SimGrid may keep pointers into its command line. */
  static char arg0[] = "acsim-sim";
  static char *argv[] = {arg0, NULL};
  int argc = 1;

  simgrid_init(&argc, argv);
  xbt_log_control_set("root.thres:critical");
  sg_cfg_set_int("contexts/stack-size", pl->stack_kib);
  simgrid_load_platform(pl->xml_path);
  /* The parent removes it too; this removes it as early as possible. */
  unlink(pl->xml_path);
  if (pl->hook == ACS_SIM_HOOK_ABORT)
    abort();
  if (pl->hook == ACS_SIM_HOOK_EXIT)
    _exit(3);
  if (pl->hook == ACS_SIM_HOOK_HANG)
    for (;;)
      pause();
}

static int alloc_run(struct run *r, const struct acs__sim_plan *pl)
{
  size_t n = (size_t)pl->n, nh = (size_t)pl->npe + (size_t)pl->ndma + 3;

  memset(r, 0, sizeof(*r));
  r->pl = pl;
  r->op = malloc((n + 1) * sizeof(*r->op));
  r->host = malloc(nh * sizeof(*r->host));
  r->t = malloc((2 * n + 1) * sizeof(*r->t));
  r->state = calloc(n + 1, 1);
  r->stack = malloc((n + 1) * sizeof(*r->stack));
  r->heap = malloc((n + 1) * sizeof(*r->heap));
  r->rq = malloc((n + 1) * sizeof(*r->rq));
  if (!r->op || !r->host || !r->t || !r->state || !r->stack || !r->heap || !r->rq)
    return -1;
  memcpy(r->op, pl->op, n * sizeof(*r->op));
  for (size_t k = 0; k < 2 * n; k++)
    r->t[k] = NAN;
  return 0;
}

static int find_hosts(struct run *r)
{
  const struct acs__sim_plan *pl = r->pl;
  char name[32];

  for (int i = 0; i < pl->npe + pl->ndma; i++) {
    if (i < pl->npe)
      snprintf(name, sizeof(name), "pe%d", i);
    else
      snprintf(name, sizeof(name), "dma%d", i - pl->npe);
    if (!(r->host[i] = sg_host_by_name(name)))
      return -1;
  }
  r->host[ACS__HOST_DDR(pl)] = sg_host_by_name("ddr");
  r->host[ACS__HOST_CMX(pl)] = sg_host_by_name("cmx");
  r->host[ACS__HOST_CTL(pl)] = sg_host_by_name("ctl");
  return r->host[ACS__HOST_DDR(pl)] && r->host[ACS__HOST_CMX(pl)] &&
         r->host[ACS__HOST_CTL(pl)] ? 0 : -1;
}

void acs__sim_child(const struct acs__sim_plan *pl, int fd)
{
  static struct run run;
  char msg[1024] = "";

  if (alloc_run(&run, pl) < 0)
    die(5, "acsim: out of memory in the simulation child\n");
  g_run = &run;
  setup_simgrid(pl);
  if (find_hosts(&run) < 0)
    die(6, "acsim: the generated platform lacks a host\n");
  run.wake = sg_sem_init(0);
  run.releaser_until = -INFINITY;
  /* Ops without dependencies start first, in id order (deterministic). */
  for (int32_t i = 0; i < pl->n; i++)
    if (run.op[i].npred == 0 && run.state[i] == ST_WAITING) {
      ready_all(i, 0.0);
      drain(0.0);
    }
  simgrid_run();
  if (run.ndone < pl->n && explain(&run, msg, sizeof(msg)) < 0)
    snprintf(msg, sizeof(msg), "simulation incomplete: %d of %d ops never finished",
             (int)(pl->n - run.ndone), (int)pl->n);
  answer(&run, fd, msg);
  /* _exit: no atexit handlers (SimGrid's teardown, the caller's). */
  _exit(0);
}
