/*
 * sim_int.h - internals of the simulate library, not a public header.
 *
 *  plan.c    the parent: a schedule becomes a plan (what each op does, its
 *            release time, its dependencies) and the plan's wire form;
 *  proc.c    the processes: a "zygote" per SimGrid platform that loads it
 *            once and forks one simulation process per run; limits, kills,
 *            crashes;
 *  actors.c  the simulation process: SimGrid actors replay the plan;
 *  explain.c the parent: why an incomplete run stopped;
 *  exec.c    acs_sim_run: the above in order, and the figures.
 */
#ifndef ACS_SIMULATE_SIM_INT_H
#define ACS_SIMULATE_SIM_INT_H

#include <sys/types.h>

#include "simulate/sim.h"

/* What an op does once released. */
enum acs__act {
  ACS__ACT_NONE,   /* zero duration: completes at its release */
  ACS__ACT_EXEC,   /* amount flops on its PE (one flop per cycle) */
  ACS__ACT_SLEEP,  /* amount seconds: takes time, moves nothing */
  ACS__ACT_SEND    /* amount bytes between two hosts */
};

/* Which hosts a transfer connects (with its channel dma<unit>), or, for
 * PE, two PEs over their local links (a dma op from pe to pe, no channel:
 * the lowering of the affine family). */
enum acs__xfer { ACS__XFER_FROM_DDR, ACS__XFER_TO_DDR, ACS__XFER_LOCAL, ACS__XFER_PE };

/* Why one op waits for another. BARRIER: the destination waits on the
 * barrier use that the source produces (it starts after the source ends).
 * REUSE_END / REUSE_START: the destination reprograms a barrier for its
 * next use, so it starts only after the source, a producer of the previous
 * use, has ended / a consumer of it has started (core/model/bprog.h). */
enum acs__dep { ACS__DEP_DATA, ACS__DEP_CONTROL, ACS__DEP_UNIT, ACS__DEP_BARRIER,
                ACS__DEP_REUSE_END, ACS__DEP_REUSE_START };

/* Op states the simulation reports back. WAITING: dependencies pending;
 * PENDING: ready, its release is ahead; STARTED: running; DONE: finished. */
enum acs__state { ACS__ST_WAITING, ACS__ST_PENDING, ACS__ST_STARTED, ACS__ST_DONE };

/*
 * Units are numbered densely over the busy ones (those with working ops),
 * in the order PEs, then channels: unit_id[u] is PE u's index i (host
 * pe<i>), or npe + k for channel k (host dma<k>). So a run's memory, its
 * platform file and its actors grow with what it uses, not with pe_count.
 * Host indices in the simulation's host table: the busy units, then ddr,
 * cmx and ctl.
 */
#define ACS__HOST_DDR(pl) ((pl)->nunits)
#define ACS__HOST_CMX(pl) ((pl)->nunits + 1)
#define ACS__HOST_CTL(pl) ((pl)->nunits + 2)

struct acs__sim_op {
  double amount;      /* flops, seconds or bytes, after act */
  double release;     /* planned start, seconds: not started before */
  int32_t npred;      /* dependencies not yet finished */
  int32_t host;       /* where it runs (index above) */
  int32_t unit;       /* dense busy unit (above); -1 none */
  int32_t peer;       /* ACS__XFER_PE: the receiving PE's host; else -1 */
  uint8_t act;        /* enum acs__act */
  uint8_t xfer;       /* enum acs__xfer, for ACS__ACT_SEND */
};

struct acs__sim_dep {
  int32_t src, dst;
  uint8_t kind;       /* enum acs__dep */
};

/*
 * What the simulation process needs: counts, then arrays. The parent's
 * plan also keeps the dependency list and the schedule (for explain); the
 * simulation process gets this part over a socket (acs__plan_encode).
 */
struct acs__sim_plan {
  int32_t n;
  int32_t npe;                    /* the platform's PEs (to name units) */
  int32_t nunits;                 /* busy units */
  int32_t hook;                   /* enum acs_sim_hook */
  struct acs__sim_op *op;         /* n */
  int32_t *succ_off, *succ;       /* successors over dep, CSR (released at the end) */
  int32_t *ssucc_off, *ssucc;     /* REUSE_START successors (released at the start) */
  /* The working ops of each busy unit in planned order:
   * uop[uoff[u] .. uoff[u + 1]), CSR over nunits units. */
  int32_t *uoff, *uop;
  int32_t *unit_id;               /* nunits: PE i, or npe + channel k */
  /* Parent only. */
  const struct acs_schedule *s;
  const struct acs_bprog *bp;     /* s's program, built by the caller, or NULL */
  int edges_implied;              /* bp verified: its dependencies imply the edges */
  double hz;
  int32_t ndma;                   /* the platform's channels */
  int32_t ndeps;
  struct acs__sim_dep *dep;
};

/* xml.c: the platform XML; without the name (named = 0), so that platform
 * variants SimGrid cannot tell apart (they differ in CMX size, barriers,
 * names) give the same text and share a zygote. */
int acs__sim_xml_write(FILE *f, const struct acs_platform *p, int named);
/* The same with only the units listed (unit_id as in the plan, nunits of
 * them), ddr, cmx and ctl: what a simulation process needs. */
int acs__sim_xml_write_units(FILE *f, const struct acs_platform *p, int named,
                             const int32_t *unit_id, int32_t nunits);
/* Units (PEs plus channels) a platform may have for a simulation: their
 * indices must fit an int32_t with room to spare. */
#define ACS__SIM_MAX_UNITS (INT32_MAX / 4)

/* plan.c */
/* bp: s's barrier program, built already, or NULL; with `implied`, bp
 * was verified and its dependencies stand for the edges (sim.h). */
int acs__plan_build(struct acs__sim_plan *pl, const struct acs_platform *p,
                    const struct acs_schedule *s, const struct acs_bprog *bp, int implied,
                    struct acs_diag *d);
void acs__plan_free(struct acs__sim_plan *pl);
/* The wire form: a header then the arrays; *out is malloc'd. */
int acs__plan_encode(const struct acs__sim_plan *pl, void **out, size_t *len);
/* Points pl's arrays into buf (len bytes, kept alive by the caller) after
 * checking every count and index; -1 when malformed. */
int acs__plan_decode(struct acs__sim_plan *pl, void *buf, size_t len);

/* The simulation's answer on the result pipe: this header, then n start
 * times and n end times (seconds, NaN = not run) and n states. 16 bytes,
 * so the times that follow it in a malloc'd buffer are aligned. */
#define ACS__SIM_MAGIC 0x61637332u
struct acs__sim_wire {
  uint32_t magic;
  int32_t n, ndone;
  uint32_t reserved;  /* 0 */
};

/* actors.c: in the zygote, initialises SimGrid with the context options
 * and loads the platform file; exits on failure (SimGrid does). */
void acs__sim_load(const char *xml_path, int stack_kib);
/* actors.c: in a simulation process forked from the zygote, runs the plan
 * (its own copy: the op counters are used up), writes the answer to fd and
 * exits. */
void acs__sim_child(struct acs__sim_plan *pl, int fd) __attribute__((noreturn));

/* explain.c: the message of an incomplete run from the states and start
 * times the simulation reported. */
void acs__explain(const struct acs__sim_plan *pl, const uint8_t *state, const double *t,
                  int32_t ndone, char *msg, size_t size);

/* proc.c: one run in a simulation process. */
struct acs__proc_result {
  char *buf;          /* the answer's bytes (malloc'd) */
  size_t len;
};
int acs__proc_run(const struct acs_platform *p, const struct acs__sim_plan *pl,
                  const struct acs_sim_opts *o, const void *plan, size_t plan_len,
                  double cpu_limit, double wall_limit, struct acs__proc_result *res,
                  struct acs_diag *d);
/* For tests: zygotes this process started so far, and the pid of the live
 * one for plan pl on p (default stack size), or 0. */
unsigned long acs__sim_zygote_starts(void);
pid_t acs__sim_zygote_pid(const struct acs_platform *p, const struct acs_schedule *s);

#endif
