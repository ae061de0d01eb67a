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
 *  - a Cluster zone (a star in SimGrid 3.32) in which each pe/dma host's
 *    host link is its private link and ddr's is the ddr link: a transfer
 *    crosses the source's link, then the destination's, so DDR<->DMA<k> is
 *    [l_dma<k>, ddr] and DMA<k><->CMX is [l_dma<k>]. The file is O(H);
 *    SimGrid derives the routes;
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
 * Every run happens in a process of its own (SimGrid holds one platform per
 * process and cannot be reset), forked from a "zygote" that loaded the
 * platform once; the process's crash, hang or incomplete run comes back as
 * ACS_ESIM with a message, never as a crash or hang of the caller.
 */
#ifndef ACS_SIMULATE_SIM_H
#define ACS_SIMULATE_SIM_H

#include <stdio.h>

#include "core/model/platform.h"
#include "core/model/schedule.h"

/*
 * Writes the platform as SimGrid XML (platform version 4.1) to f. Returns
 * ACS_OK, ACS_EIO when writing fails, ACS_ERANGE when the platform has more
 * PEs and channels than a simulation can number (2^29). O(H) for
 * H = pe_count + dma_channels + 3 hosts. (A simulation loads a platform of
 * only the PEs and channels its schedule uses.)
 */
int acs_sim_xml_write(FILE *f, const struct acs_platform *p);

/*
 * Orders platforms by what SimGrid models of them (the inputs of the XML
 * above: clock, PE and channel counts, bandwidths, DDR latency), 0 when
 * they load the same SimGrid platform. Runs on such platforms share a
 * zygote, so a sweep that runs them one after another starts SimGrid once
 * for them all instead of once per platform variant. O(1).
 */
int acs_sim_platform_cmp(const struct acs_platform *a, const struct acs_platform *b);

/* The SimGrid timing precision (surf/precision, seconds) the XML sets:
 * 1e-9 cycle. */
double acs_sim_precision_seconds(const struct acs_platform *p);

/* Test hooks: make the simulation process misbehave so the isolation can be
 * tested. They act after the platform is loaded. */
enum acs_sim_hook {
  ACS_SIM_HOOK_NONE,
  ACS_SIM_HOOK_ABORT,     /* it calls abort() */
  ACS_SIM_HOOK_HANG,      /* it sleeps forever (no CPU time) */
  ACS_SIM_HOOK_EXIT,      /* it exits with status 3 without a result */
  ACS_SIM_HOOK_SPIN       /* it loops forever (all CPU time) */
};

struct acs_sim_opts {
  /*
   * Limit on the CPU time of the simulation process, in seconds: 0 means
   * the default, 10 s + 1 ms per op + 0.1 ms per dependency (over a hundred times
   * the expected cost, so only a runaway simulation reaches it);
   * INFINITY means none. CPU time, not wall time, so a loaded machine
   * never makes a run time out.
   */
  double timeout;
  /* Wall-clock backstop in seconds, for a process that stops consuming
   * CPU time without ending (blocked): 0 means the default, 60 s + 10 times
   * the CPU limit (none when that is INFINITY); INFINITY means none. */
  double wall_timeout;
  /* When not NULL and nonzero (e.g. set by a SIGINT handler), the
   * simulation is killed and the run returns ACS_EINTERRUPTED. Checked
   * every 100 ms. */
  const volatile int *interrupted;
  /* Actor stack size in KiB (contexts/stack-size); 0 = 128. */
  int stack_kib;
  int hook;               /* enum acs_sim_hook; tests only */
  /* The schedule's barrier program as acs_bprog_build makes it from this
   * very schedule (acs_schedule_verify_keep hands it back), or NULL: the
   * simulation builds it. */
  const struct acs_bprog *bprog;
  /* Set when bprog is the program acs_schedule_verify_keep accepted: the
   * verifier then found every edge enforced through the program, so its
   * dependencies (a consumer after the producers of its use) imply every
   * edge, and the simulation leaves the edges out of its dependencies.
   * The run is the same: an implied dependency is met when the others are.
   * A cascade schedule carries ten times more edges than its program needs. */
  int bprog_verified;
};
void acs_sim_opts_init(struct acs_sim_opts *o);

struct acs_sim_result {
  double makespan_cycles;   /* max sim_end; NaN unless the run succeeded */
  double slowdown;          /* makespan_cycles / planned makespan (NaN if 0) */
  int64_t ddr_bytes;        /* bytes moved over the DDR link */
  double pe_utilization;    /* compute time on PEs / (pe_count * makespan) */
  double dma_utilization;   /* transfer time on channels / (channels * makespan) */
  double sim_seconds;       /* wall time of the whole acs_sim_run */
  int32_t ops_total;
  int32_t ops_completed;
};

/*
 * Simulates s on p in a simulation process and writes
 * ops[i].sim_start/sim_end (cycles, rounded to 1e-6; NaN for ops that never
 * ran) back into s; fills r. Returns:
 *  - ACS_OK;
 *  - ACS_EINVAL when s cannot be replayed on p (an op unscheduled, a unit
 *    outside the platform, a negative duration), message in d;
 *  - ACS_ESIM when the simulation crashed, exceeded a limit or did not
 *    complete every op (a cycle through edges and unit order; the message
 *    names an op that never started and what it waits for); ops that did
 *    run keep their times;
 *  - ACS_EINTERRUPTED when opts->interrupted was set;
 *  - ACS_ENOMEM, ACS_EIO (fork, pipe or temporary file failures).
 * opts may be NULL (defaults). The caller's stdio buffers are flushed before
 * any fork. Cost: O(V log V + E) here plus SimGrid's run in the simulation
 * process; the platform is loaded once per distinct SimGrid platform and
 * process (by a zygote kept for the next runs; a handful are kept, the
 * least recently used goes first). A process that forks after simulating
 * leaves its zygotes to its parent: the forked child starts its own.
 */
int acs_sim_run(const struct acs_platform *p, struct acs_schedule *s,
                const struct acs_sim_opts *opts, struct acs_sim_result *r,
                struct acs_diag *d);

/* Ends every zygote of this process (they also end on their own when it
 * exits). Optional: for callers that want no child processes left. */
void acs_sim_shutdown(void);

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
