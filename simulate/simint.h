/*
 * simint.h - internals shared by exec.c (the parent: plan, fork, results)
 * and actors.c (the forked child: SimGrid actors). Not a public header.
 */
#ifndef ACS_SIMULATE_SIMINT_H
#define ACS_SIMULATE_SIMINT_H

#include "simulate/sim.h"

/* What an op does once released. */
enum acs__act {
  ACS__ACT_NONE,   /* zero duration: completes at its release */
  ACS__ACT_EXEC,   /* amount flops on its PE (one flop per cycle) */
  ACS__ACT_SLEEP,  /* amount seconds: takes time, moves nothing */
  ACS__ACT_SEND    /* amount bytes between two hosts */
};

/* Which hosts a transfer connects (with its channel dma<unit>). */
enum acs__xfer { ACS__XFER_FROM_DDR, ACS__XFER_TO_DDR, ACS__XFER_LOCAL };

/* Why one op waits for another. BARRIER: the destination waits on the
 * barrier use that the source produces (it starts after the source ends).
 * REUSE_END / REUSE_START: the destination reprograms a barrier for its
 * next use, so it starts only after the source, a producer of the previous
 * use, has ended / a consumer of it has started (core/model/bprog.h). */
enum acs__dep { ACS__DEP_DATA, ACS__DEP_CONTROL, ACS__DEP_UNIT, ACS__DEP_BARRIER,
                ACS__DEP_REUSE_END, ACS__DEP_REUSE_START };

/*
 * Host indices in the child's host table: pe<i> is i, dma<k> is npe + k,
 * then ddr, cmx and ctl.
 */
#define ACS__HOST_DDR(pl) ((pl)->npe + (pl)->ndma)
#define ACS__HOST_CMX(pl) ((pl)->npe + (pl)->ndma + 1)
#define ACS__HOST_CTL(pl) ((pl)->npe + (pl)->ndma + 2)

struct acs__sim_op {
  double amount;      /* flops, seconds or bytes, after act */
  double release;     /* planned start, seconds: not started before */
  int32_t npred;      /* dependencies not yet finished */
  int32_t host;       /* where its actor runs (index above) */
  uint8_t act;        /* enum acs__act */
  uint8_t xfer;       /* enum acs__xfer, for ACS__ACT_SEND */
};

struct acs__sim_dep {
  int32_t src, dst;
  uint8_t kind;       /* enum acs__dep */
};

/* Everything the child needs, built by the parent before the fork. */
struct acs__sim_plan {
  const struct acs_schedule *s;   /* op names, for actors and messages */
  int32_t n;
  int npe, ndma;
  double hz;
  struct acs__sim_op *op;
  int32_t ndeps;
  struct acs__sim_dep *dep;
  int32_t *succ_off, *succ;       /* successors over dep, CSR (released at the end) */
  int32_t *ssucc_off, *ssucc;     /* REUSE_START successors (released at the start) */
  /* The working ops of each unit (PEs, then channels after npe) in planned
   * order: uop[uoff[u] .. uoff[u + 1]), CSR over npe + ndma units. */
  int32_t *uoff, *uop;
  const char *xml_path;
  int stack_kib;
  int hook;
};

/* The child's answer on the result pipe: this header, msglen bytes of
 * message, then n start times and n end times (seconds, NaN = not run). */
#define ACS__SIM_MAGIC 0x61637331u
enum acs__sim_status { ACS__SIM_DONE, ACS__SIM_INCOMPLETE };
struct acs__sim_wire {
  uint32_t magic;
  int32_t status;     /* enum acs__sim_status */
  int32_t n, ndone;
  uint32_t msglen;
};

/* Runs the plan with SimGrid in this (forked) process, writes the answer
 * to fd, and exits. */
void acs__sim_child(const struct acs__sim_plan *pl, int fd)
    __attribute__((noreturn));

#endif
