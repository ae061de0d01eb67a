/*
 * sim.h - SimGrid execution of schedules: platform XML, self-timed replay
 * in an isolated child process, and Chrome Trace Event output.
 *
 * The platform model (README, "Simulation"):
 *  - hosts "pe<i>" (one per PE, speed freq_mhz * 1e6 flop/s, so one flop is
 *    one cycle), "dma<k>" (one per DMA channel), "ddr", "cmx", and "ctl"
 *    (runs ops without a unit; it has no links);
 *  - a shared link "ddr" of bandwidth dma_gbps / ddr_ratio and latency
 *    ddr_latency_cycles / freq, a private link "l_dma<k>" (dma_gbps) per
 *    channel and "l_pe<i>" (local_gbps) per PE, all other latencies 0;
 *  - a Full routing zone with a route for every pair of pe/dma/ddr/cmx hosts:
 *    a host reaches another over its own private link, then the other's
 *    (ddr and cmx have none, except that every route touching ddr also
 *    crosses the ddr link). So DDR<->DMA<k> is [l_dma<k>, ddr] and
 *    DMA<k><->CMX is [l_dma<k>];
 *  - CM02 without cross traffic, TCP window, latency or bandwidth factors,
 *    and a timing precision of 1e-9 cycle, so an uncontended transfer takes
 *    exactly latency + bytes / bottleneck bandwidth.
 *
 * Execution is a replay of the plan, never a re-decision: every unit runs its
 * ops in planned order; an op starts when its edge predecessors and its unit
 * predecessor have finished and not before its planned start (a release
 * time). Compute ops execute `dur` flops on their PE; DMA ops move their
 * bytes, so transfers that overlap in time share the DDR link.
 *
 * Every acs_sim_run forks one child (SimGrid holds one platform per process
 * and cannot be reset); the child's crash, hang or incomplete run comes back
 * as ACS_ESIM with a message, never as a crash or hang of the caller.
 */
#ifndef ACS_SIMULATE_SIM_H
#define ACS_SIMULATE_SIM_H

#include <stdio.h>

#include "core/model/platform.h"
#include "core/model/schedule.h"

/*
 * Writes the platform as SimGrid XML (platform version 4.1) to f. Returns
 * ACS_OK, or ACS_EIO when writing fails. O(H^2) for H = pe_count +
 * dma_channels + 2 hosts (one route per pair; 2,278 routes for 64 PEs).
 */
int acs_sim_xml_write(FILE *f, const struct acs_platform *p);

/* The SimGrid timing precision (surf/precision, seconds) the XML sets:
 * 1e-9 cycle. */
double acs_sim_precision_seconds(const struct acs_platform *p);

/* Test hooks: make the child misbehave so the isolation can be tested. */
enum acs_sim_hook {
  ACS_SIM_HOOK_NONE,
  ACS_SIM_HOOK_ABORT,     /* the child calls abort() after loading the platform */
  ACS_SIM_HOOK_HANG,      /* the child sleeps forever before running */
  ACS_SIM_HOOK_EXIT       /* the child exits with status 3 without a result */
};

struct acs_sim_opts {
  /* Wall-clock limit for one run in seconds; <= 0 means the default,
   * 10 s + 1 ms per op + 0.1 ms per edge (about 40 times the expected cost,
   * so only a hung child reaches it). */
  double timeout;
  /* When not NULL and nonzero (e.g. set by a SIGINT handler), the child is
   * killed and the run returns ACS_EINTERRUPTED. Checked every 100 ms. */
  const volatile int *interrupted;
  /* Actor stack size in KiB (contexts/stack-size); 0 = 128 (actors run a
   * few calls deep; SimGrid's 8 MiB default only costs address space). */
  int stack_kib;
  int hook;               /* enum acs_sim_hook; tests only */
};
void acs_sim_opts_init(struct acs_sim_opts *o);

struct acs_sim_result {
  double makespan_cycles;   /* max sim_end; NaN unless the run succeeded */
  double slowdown;          /* makespan_cycles / planned makespan (NaN if 0) */
  int64_t ddr_bytes;        /* bytes moved over the DDR link */
  double pe_utilization;    /* compute time on PEs / (pe_count * makespan) */
  double dma_utilization;   /* transfer time on channels / (channels * makespan) */
  double sim_seconds;       /* wall time of the whole run, fork to reap */
  int32_t ops_total;
  int32_t ops_completed;
};

/*
 * Simulates s on p in a forked child and writes ops[i].sim_start/sim_end
 * (cycles, rounded to 1e-6; NaN for ops that never ran) back into s; fills r.
 * Returns:
 *  - ACS_OK;
 *  - ACS_EINVAL when s cannot be replayed on p (an op unscheduled, a unit
 *    outside the platform, a negative duration), message in d;
 *  - ACS_ESIM when the child crashed, timed out or did not complete every op
 *    (a cycle through edges and unit order; the message names an op that
 *    never started and what it waits for); ops that did run keep their times;
 *  - ACS_EINTERRUPTED when opts->interrupted was set;
 *  - ACS_ENOMEM, ACS_EIO (fork, pipe or temporary file failures).
 * opts may be NULL (defaults). The caller's stdio buffers are flushed before
 * the fork. Cost: O(V log V + E) here plus SimGrid's run in the child.
 */
int acs_sim_run(const struct acs_platform *p, struct acs_schedule *s,
                const struct acs_sim_opts *opts, struct acs_sim_result *r,
                struct acs_diag *d);

/*
 * Chrome Trace Event JSON (Perfetto, chrome://tracing). One process per
 * added run, one thread per PE, per DMA channel and one for ops without a
 * unit, one complete event per op, and a counter of DDR transfers in flight.
 * Timestamps are cycles presented as microseconds (1 us in the viewer = 1
 * platform cycle), so figures read directly as cycles. The file is written
 * to a temporary name and renamed into place by acs_sim_trace_close, so an
 * interrupted run never leaves a truncated trace.
 */
enum acs_sim_times { ACS_SIM_TIMES_SIMULATED, ACS_SIM_TIMES_PLANNED };

struct acs_sim_trace;
int acs_sim_trace_open(const char *path, struct acs_sim_trace **out,
                       struct acs_diag *d);
/* Adds one run as a process named `process_name` (e.g. "list on default").
 * times selects sim_start/sim_end or the planned start/end; ops without the
 * selected times (NaN) are left out. O(V log V + W). */
int acs_sim_trace_add(struct acs_sim_trace *t, const char *process_name,
                      const struct acs_platform *p, const struct acs_schedule *s,
                      int times);
/* Finishes the JSON and renames it into place; frees t in every case. */
int acs_sim_trace_close(struct acs_sim_trace *t, struct acs_diag *d);
/* Removes the partial file; frees t. */
void acs_sim_trace_abort(struct acs_sim_trace *t);

#endif
