/*
 * actors.c - SimGrid in the zygote (start, platform, warm-up) and in the
 * simulation process (a plan replayed by actors).
 *
 * One actor per unit (PE or DMA channel) that has working ops, plus one
 * control actor: the number of actors does not grow with the number of ops,
 * so SimGrid's per-actor costs (a context with its stack and guard page, an
 * exception to end it) are paid O(units) times, not O(ops) times.
 *
 * SimGrid's C API has no activity dependencies, so the DAG is driven by
 * counters. When the last dependency of an op finishes (data and control
 * edges, the previous op on its unit, the barrier uses it waits on) and the
 * ops it must not overtake have started (the consumers of the previous use
 * of the barrier it reprograms), the op is ready: due at once, or it waits
 * in the control actor's timer heap for its planned start. A due op starts
 * (its start time is taken, REUSE_START successors are released) and then:
 *  - an op with a unit is performed by that unit's actor, which works
 *    through its unit's ops in planned order and blocks on its semaphore
 *    until the next one has started (the unit order is a dependency, so the
 *    next op to start on a unit is always the head of its list);
 *  - an op without a unit (PSPLIB jobs: they take time and contend for
 *    nothing; many run at once) gets a timer for its end in the heap;
 *  - an op without work completes at once, inline.
 * Finishing an op releases its successors. Each op is released once and
 * finishes once, so a run costs O((V + E) log V) here plus SimGrid's
 * per-activity cost (one execution, transfer or sleep per working op).
 *
 * The simulation is single-threaded (actors are coroutines), so the run
 * state below needs no locking. Only one run happens per process, which is
 * why it can live in one static pointer.
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

#include "simulate/sim_int.h"
#include "core/proc.h"

/* Op states are enum acs__state (sim_int.h): the parent explains an
 * incomplete run from them. */
enum { ST_WAITING = ACS__ST_WAITING, ST_PENDING = ACS__ST_PENDING,
       ST_STARTED = ACS__ST_STARTED, ST_DONE = ACS__ST_DONE };

/* A timer: an op's release time (RELEASE) or the end of an op without a
 * unit (END). */
enum timer_kind { TM_RELEASE, TM_END };
struct timer {
  double at;
  int32_t op;
  int32_t kind;
};

/* A unit's actor: it works through uop[uoff[u] .. uoff[u + 1]). */
struct unit {
  sg_sem_t sem;               /* posted when its head op starts */
  int waiting;                /* blocked on sem */
};

struct run {
  const struct acs__sim_plan *pl;
  struct acs__sim_op *op;     /* the plan's, this process's own: npred counts down */
  sg_host_t *host;            /* the host table of sim_int.h */
  struct unit *unit;          /* nunits, the busy units */
  double *t;                  /* n start times, then n end times */
  uint8_t *state;             /* enum acs__state */
  int32_t *stack;             /* ops finished at the current instant */
  size_t top;
  int32_t ndone;
  int32_t *rq;                /* ops released by a start (REUSE_START), to make ready */
  size_t nrq;
  struct timer *heap;         /* min-heap by (at, op) */
  size_t nheap;
  int32_t running;            /* ops started on a unit and not finished */
  sg_sem_t wake;              /* wakes the control actor before its timeout */
  double ctl_until;           /* when the waiting control actor wakes; -inf if awake */
  int stop;                   /* nothing can progress: unit actors leave */
};

static struct run *g_run;

/* ---- timers: a binary heap, O(log V) per operation ---- */

static int timer_less(const struct timer *a, const struct timer *b)
{
  return a->at < b->at || (a->at == b->at && a->op < b->op);
}

static void heap_push(struct run *r, struct timer x)
{
  size_t k = r->nheap++;

  while (k > 0 && timer_less(&x, &r->heap[(k - 1) / 2])) {
    r->heap[k] = r->heap[(k - 1) / 2];
    k = (k - 1) / 2;
  }
  r->heap[k] = x;
}

static struct timer heap_pop(struct run *r)
{
  struct timer top = r->heap[0], last = r->heap[--r->nheap];
  size_t k = 0, c;

  while ((c = 2 * k + 1) < r->nheap) {
    if (c + 1 < r->nheap && timer_less(&r->heap[c + 1], &r->heap[c]))
      c++;
    if (!timer_less(&r->heap[c], &last))
      break;
    r->heap[k] = r->heap[c];
    k = c;
  }
  if (r->nheap > 0)
    r->heap[k] = last;
  return top;
}

/* Adds a timer and wakes the control actor if it sleeps past it. Every op
 * gets at most two timers (a release, an end), so the heap holds at most
 * 2n entries. */
static void add_timer(struct run *r, double at, int32_t op, int kind)
{
  heap_push(r, (struct timer){at, op, kind});
  if (at < r->ctl_until)
    sg_sem_release(r->wake);
}

/* Op i starts now: it releases the ops that waited for it to start (the
 * next producers of a barrier whose use it consumes). They are queued, not
 * made ready here, so long chains of such releases never recurse. */
static void on_start(int32_t i, double now)
{
  struct run *r = g_run;
  const struct acs__sim_plan *pl = r->pl;

  r->t[i] = now;
  r->state[i] = ST_STARTED;
  for (int32_t k = pl->ssucc_off[i]; k < pl->ssucc_off[i + 1]; k++)
    if (--r->op[pl->ssucc[k]].npred == 0)
      r->rq[r->nrq++] = pl->ssucc[k];
}

static void spawn(const char *name, sg_host_t host, void (*code)(int, char **), int32_t data);
static void drain(double now);

/* A PE-to-PE transfer: its bytes from the producer's PE to the consumer's,
 * crossing both PEs' local links. */
static void transfer_main(int argc, char **argv)
{
  struct run *r = g_run;
  int32_t i = (int32_t)(intptr_t)sg_actor_self_get_data();
  const struct acs__sim_op *o = &r->op[i];

  (void)argc, (void)argv;
  sg_host_sendto(r->host[o->host], r->host[o->peer], o->amount);
  r->running--;
  r->stack[r->top++] = i;
  drain(simgrid_get_clock());
}

/*
 * PE-to-PE transfers overlap each other and the PEs' computations (a
 * systolic array latches a neighbour's value while it computes), so each
 * gets an actor of its own for its duration, on the sending PE's host,
 * rather than a place in a unit's queue. Only the affine family's
 * schedules have them; every other op keeps the actor-per-unit replay.
 */
static void spawn_transfer(struct run *r, int32_t i)
{
  spawn("xfer", r->host[r->op[i].host], transfer_main, i);
}

/*
 * Op i's dependencies are done. The plan's start is a release time: the
 * planner may have delayed the op for a capacity SimGrid does not model
 * (CMX bytes, named resources), and starting earlier would violate it. An
 * op not yet due waits in the timer heap. A due op starts: without work it
 * is queued as finished now; without a unit its end is a timer; otherwise
 * its unit's actor performs it (posted only when it waits, so no post is
 * ever stale).
 */
static void ready(int32_t i, double now)
{
  struct run *r = g_run;
  const struct acs__sim_op *o = &r->op[i];
  struct unit *u;

  if (o->release > now) {
    r->state[i] = ST_PENDING;
    add_timer(r, o->release, i, TM_RELEASE);
    return;
  }
  on_start(i, now);
  if (o->act == ACS__ACT_NONE) {
    r->stack[r->top++] = i;
    return;
  }
  if (o->act == ACS__ACT_SEND && o->xfer == ACS__XFER_PE) {
    r->running++;
    spawn_transfer(r, i);
    return;
  }
  if (o->host == ACS__HOST_CTL(r->pl)) {
    add_timer(r, now + o->amount, i, TM_END);
    return;
  }
  r->running++;
  u = &r->unit[o->unit];
  if (u->waiting)
    sg_sem_release(u->sem);
}

/* ready(i), then every op that a start released meanwhile. */
static void ready_all(int32_t i, double now)
{
  struct run *r = g_run;

  ready(i, now);
  while (r->nrq > 0)
    ready(r->rq[--r->nrq], now);
}

/* True when every op has finished, or when nothing runs, waits for a
 * timer or is about to be released, so nothing ever will (a cycle). */
static int settled(const struct run *r)
{
  return r->ndone == r->pl->n ||
         (r->running == 0 && r->nheap == 0 && r->top == 0 && r->nrq == 0);
}

/*
 * Finishes the ops on the stack and everything that becomes finished at the
 * same instant. The stack is shared by all actors: a semaphore post is a
 * simcall, during which another actor of the same scheduling round may run
 * this loop too; it then drains the same stack at the same simulated time,
 * which is equally correct. Each op is pushed once, so n entries suffice.
 * Wakes the control actor when the run has settled, so it can end it.
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
  if (r->ctl_until > -INFINITY && settled(r))
    sg_sem_release(r->wake);
}

/*
 * The control actor: fires timers (releases, and the ends of ops without a
 * unit) when they fall due, sleeping on a semaphore with a timeout until
 * the earliest; an earlier timer or a settled run posts the semaphore to
 * wake it sooner (a stale post only costs one extra loop). It is the only
 * actor that outlives the run: when everything finished, or nothing can
 * progress any more, it releases the unit actors still waiting and leaves,
 * so a cycle ends the simulation instead of looking like a SimGrid
 * deadlock.
 */
static void control_main(int argc, char **argv)
{
  struct run *r = g_run;
  int32_t nunits = r->pl->nunits;

  (void)argc, (void)argv;
  while (!settled(r)) {
    double now = simgrid_get_clock();
    struct timer tm;
    if (r->nheap == 0 || r->heap[0].at > now) {
      r->ctl_until = r->nheap == 0 ? INFINITY : r->heap[0].at;
      if (r->nheap == 0)
        sg_sem_acquire(r->wake);
      else
        sg_sem_acquire_timeout(r->wake, r->heap[0].at - now);
      r->ctl_until = -INFINITY;
      continue;
    }
    tm = heap_pop(r);
    if (tm.kind == TM_RELEASE)
      ready_all(tm.op, now);
    else
      r->stack[r->top++] = tm.op;
    drain(now);
  }
  r->stop = 1;
  for (int32_t u = 0; u < nunits; u++)
    if (r->unit[u].waiting)
      sg_sem_release(r->unit[u].sem);
}

/* Performs op i on its unit: compute, transfer or wait. */
static void perform(struct run *r, int32_t i)
{
  const struct acs__sim_op *o = &r->op[i];
  sg_host_t unit = r->host[o->host];

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
    if (o->xfer == ACS__XFER_FROM_DDR)
      sg_host_sendto(r->host[ACS__HOST_DDR(r->pl)], unit, o->amount);
    else if (o->xfer == ACS__XFER_TO_DDR)
      sg_host_sendto(unit, r->host[ACS__HOST_DDR(r->pl)], o->amount);
    else
      sg_host_sendto(unit, r->host[ACS__HOST_CMX(r->pl)], o->amount);
    break;
  default:
    break;
  }
}

/* A unit's actor: its ops in planned order, each once it has started. */
static void unit_main(int argc, char **argv)
{
  struct run *r = g_run;
  const struct acs__sim_plan *pl = r->pl;
  int32_t u = (int32_t)(intptr_t)sg_actor_self_get_data();
  struct unit *un = &r->unit[u];

  (void)argc, (void)argv;
  for (int32_t k = pl->uoff[u]; k < pl->uoff[u + 1] && !r->stop; k++) {
    int32_t i = pl->uop[k];
    while (r->state[i] != ST_STARTED && !r->stop) {
      un->waiting = 1;
      sg_sem_acquire(un->sem);
      un->waiting = 0;
    }
    if (r->stop)
      break;
    perform(r, i);
    r->running--;
    r->stack[r->top++] = i;
    drain(simgrid_get_clock());
  }
}

static void spawn(const char *name, sg_host_t host, void (*code)(int, char **), int32_t data)
{
  sg_actor_t a = sg_actor_init(name, host);

  sg_actor_set_data(a, (void *)(intptr_t)data);
  sg_actor_start(a, code, 0, NULL);
}

/* Host and actor name of busy unit u: pe<i> or dma<k>. */
static void unit_name(const struct acs__sim_plan *pl, int32_t u, char *buf, size_t size)
{
  int32_t id = pl->unit_id[u];

  if (id < pl->npe)
    snprintf(buf, size, "pe%d", (int)id);
  else
    snprintf(buf, size, "dma%d", (int)(id - pl->npe));
}

/* One actor per busy unit, then the control actor. */
static void spawn_actors(struct run *r)
{
  const struct acs__sim_plan *pl = r->pl;
  char name[32];

  for (int32_t u = 0; u < pl->nunits; u++) {
    r->unit[u].sem = sg_sem_init(0);
    unit_name(pl, u, name, sizeof(name));
    spawn(name, r->host[u], unit_main, u);
  }
  r->wake = sg_sem_init(0);
  spawn("control", r->host[ACS__HOST_CTL(pl)], control_main, -1);
}

/* ---- the simulation process ---- */

/* Leaves with a reason the parent quotes in its message. */
static void die(int code, const char *why) __attribute__((noreturn));
static void die(int code, const char *why)
{
  ssize_t w = write(STDERR_FILENO, why, strlen(why));

  (void)w;
  _exit(code);
}

/* The header, every start and end time, every state. */
static void answer(const struct run *r, int fd)
{
  struct acs__sim_wire h;

  memset(&h, 0, sizeof(h));
  h.magic = ACS__SIM_MAGIC;
  h.n = r->pl->n;
  h.ndone = r->ndone;
  if (acs_write_all(fd, &h, sizeof(h)) < 0 ||
      acs_write_all(fd, r->t, 2 * (size_t)r->pl->n * sizeof(*r->t)) < 0 ||
      acs_write_all(fd, r->state, (size_t)r->pl->n) < 0)
    die(4, "acsim: cannot send the simulation result\n");
}

static void warm_up_main(int argc, char **argv)
{
  (void)argc, (void)argv;
}

/*
 * A simulation of one actor that does nothing, in the zygote: SimGrid seals
 * the platform, builds its scheduler's state, and ends the actor the way it
 * ends every actor, with a C++ exception, whose first throw binds about 20
 * symbols of libstdc++ and libgcc_s lazily. Done here, all of that is
 * inherited by every simulation process instead of being redone in each
 * (perf: lazy binding alone was a tenth of a small run). No simulated time
 * passes: the clock stays at 0, so the runs that follow start where a
 * fresh process would.
 */
static void warm_up(void)
{
  sg_actor_create("warm-up", sg_host_by_name("ctl"), warm_up_main, 0, NULL);
  simgrid_run();
  if (simgrid_get_clock() != 0.0)
    die(10, "acsim: the simulation clock moved while warming up\n");
}

void acs__sim_load(const char *xml_path, int stack_kib)
{
  /* Static: SimGrid may keep pointers into its command line. */
  static char arg0[] = "acsim-sim";
  static char *argv[] = {arg0, NULL};
  int argc = 1;

  simgrid_init(&argc, argv);
  xbt_log_control_set("root.thres:critical");
  /*
   * Context options, chosen rather than inherited. There is one actor per
   * busy unit plus one, so a context's fixed costs (allocating its stack,
   * two mprotect calls for the guard page, whose TLB shootdowns stall the
   * other cores) are paid O(units) times per run and do not matter; what
   * matters is that an overflow is caught. Hence a guard page (SimGrid's
   * default, set here so it stays), which turns an overflow into a crash
   * the parent reports instead of silent corruption. The actors run a few
   * calls deep (SimGrid's simcalls included), and 128 KiB leaves a wide
   * margin, also under AddressSanitizer; SimGrid's 8 MiB default would
   * only reserve address space (32 GiB for 4,096 units).
   */
  sg_cfg_set_int("contexts/stack-size", stack_kib);
  sg_cfg_set_int("contexts/guard-size", 1);
  simgrid_load_platform(xml_path);
  warm_up();
}

static int alloc_run(struct run *r, struct acs__sim_plan *pl)
{
  size_t n = (size_t)pl->n, nu = (size_t)pl->nunits, nh = nu + 3;

  memset(r, 0, sizeof(*r));
  r->pl = pl;
  r->op = pl->op;
  r->host = calloc(nh, sizeof(*r->host));
  r->t = malloc((2 * n + 1) * sizeof(*r->t));
  r->state = calloc(n + 1, 1);
  r->stack = malloc((n + 1) * sizeof(*r->stack));
  r->heap = malloc((2 * n + 1) * sizeof(*r->heap));
  r->rq = malloc((n + 1) * sizeof(*r->rq));
  r->unit = calloc(nu + 1, sizeof(*r->unit));
  if (!r->op || !r->host || !r->t || !r->state || !r->stack || !r->heap || !r->rq || !r->unit)
    return -1;
  r->ctl_until = -INFINITY;
  for (size_t k = 0; k < 2 * n; k++)
    r->t[k] = NAN;
  return 0;
}

/* The hosts the run uses: busy units, ddr, cmx and ctl. O(busy units). */
static int find_hosts(struct run *r)
{
  const struct acs__sim_plan *pl = r->pl;
  char name[32];

  for (int32_t u = 0; u < pl->nunits; u++) {
    unit_name(pl, u, name, sizeof(name));
    if (!(r->host[u] = sg_host_by_name(name)))
      return -1;
  }
  r->host[ACS__HOST_DDR(pl)] = sg_host_by_name("ddr");
  r->host[ACS__HOST_CMX(pl)] = sg_host_by_name("cmx");
  r->host[ACS__HOST_CTL(pl)] = sg_host_by_name("ctl");
  return r->host[ACS__HOST_DDR(pl)] && r->host[ACS__HOST_CMX(pl)] &&
         r->host[ACS__HOST_CTL(pl)] ? 0 : -1;
}

/* Test hooks (enum acs_sim_hook): misbehave as a broken simulation would. */
static void run_hook(int hook)
{
  if (hook == ACS_SIM_HOOK_ABORT)
    abort();
  if (hook == ACS_SIM_HOOK_EXIT)
    _exit(3);
  if (hook == ACS_SIM_HOOK_HANG)
    for (;;)
      pause();
  if (hook == ACS_SIM_HOOK_SPIN)
    for (volatile unsigned long k = 0;; k++)
      ;
}

void acs__sim_child(struct acs__sim_plan *pl, int fd)
{
  static struct run run;

  run_hook(pl->hook);
  if (alloc_run(&run, pl) < 0)
    die(5, "acsim: out of memory in the simulation process\n");
  g_run = &run;
  if (find_hosts(&run) < 0)
    die(6, "acsim: the generated platform lacks a host\n");
  spawn_actors(&run);
  /* Ops without dependencies start first, in id order (deterministic);
   * the actors run once simgrid_run starts, so nothing is posted here. */
  for (int32_t i = 0; i < pl->n; i++)
    if (run.op[i].npred == 0 && run.state[i] == ST_WAITING) {
      ready_all(i, 0.0);
      drain(0.0);
    }
  simgrid_run();
  answer(&run, fd);
  /* _exit: no atexit handlers (SimGrid's teardown, the caller's). */
  _exit(0);
}
