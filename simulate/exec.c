/*
 * exec.c - acs_sim_run: a self-timed replay of a schedule in a simulation
 * process.
 *
 * The caller's process checks the schedule against the platform and turns it
 * into a plan (plan.c), hands the plan's wire form to a simulation process
 * forked from the platform's zygote (proc.c), reads back every op's times
 * and state, explains an incomplete run (explain.c) and measures the
 * figures. The limits: CPU time of the simulation process (it scales with
 * the plan, and a loaded machine does not consume it), and wall time only
 * as a backstop for a process that blocks.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simulate/sim_int.h"

void acs_sim_opts_init(struct acs_sim_opts *o)
{
  memset(o, 0, sizeof(*o));
}

/* ---- results ---- */

/* Rounds to a grid of 1e-6 cycle, which hides the last bits of floating
 * point noise (times come back in seconds) but no simulated effect. The
 * rounding is monotone, so simulated times keep respecting every edge. */
static double to_cycles(double sec, double hz)
{
  return isnan(sec) ? NAN : round(sec * hz * 1e6) / 1e6;
}

/*
 * The answer: every op's times into s (ops that never ran keep NaN), and
 * for an incomplete run the explanation, from the states that follow the
 * times. O(V + E).
 */
static int decode(const struct acs__proc_result *res, const struct acs__sim_plan *pl,
                  struct acs_schedule *s, struct acs_sim_result *r, struct acs_diag *d)
{
  struct acs__sim_wire h;
  size_t n = (size_t)pl->n, times = sizeof(h), states = times + 2 * n * sizeof(double);
  char msg[1024];
  double t;

  if (res->len < sizeof(h))
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0, "simulation ended without a result");
  memcpy(&h, res->buf, sizeof(h));
  if (h.magic != ACS__SIM_MAGIC || h.n != pl->n || h.ndone < 0 || h.ndone > pl->n ||
      res->len != states + n)
    return acs_diag_set(d, ACS_ESIM, NULL, 0, 0, "simulation returned a malformed result");
  for (size_t i = 0; i < n; i++) {
    memcpy(&t, res->buf + times + i * sizeof(double), sizeof(t));
    s->ops[i].sim_start = to_cycles(t, pl->hz);
    memcpy(&t, res->buf + times + (n + i) * sizeof(double), sizeof(t));
    s->ops[i].sim_end = to_cycles(t, pl->hz);
  }
  r->ops_completed = h.ndone;
  if (h.ndone == pl->n)
    return ACS_OK;
  acs__explain(pl, (const uint8_t *)res->buf + states,
               (const double *)(const void *)(res->buf + times), h.ndone, msg, sizeof(msg));
  return acs_diag_set(d, ACS_ESIM, NULL, 0, 0, "%s", msg);
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
    if (pl->op[i].act == ACS__ACT_SEND && (pl->op[i].xfer == ACS__XFER_FROM_DDR ||
                                           pl->op[i].xfer == ACS__XFER_TO_DDR))
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

/* The default CPU-time limit: 10 s + 1 ms per op + 0.1 ms per dependency,
 * over a hundred times what a run costs (bench-sim: about 6 us of CPU time
 * per op with 2 dependencies, 30 us under the sanitizers), so only a
 * runaway simulation reaches it, however large the plan. */
static double cpu_limit(const struct acs_sim_opts *o, const struct acs__sim_plan *pl)
{
  if (o->timeout > 0)
    return o->timeout;
  return 10.0 + 1e-3 * (double)pl->n + 1e-4 * (double)pl->ndeps;
}

/* The wall-clock backstop: 60 s + 10 times the CPU limit. A process that
 * works gets its CPU time even on a machine loaded ten times over; one
 * that blocks (a hung system call) uses none and is caught here. */
static double wall_limit(const struct acs_sim_opts *o, double cpu)
{
  if (o->wall_timeout > 0)
    return o->wall_timeout;
  return isfinite(cpu) ? 60.0 + 10.0 * cpu : INFINITY;
}

int acs_sim_run(const struct acs_platform *p, struct acs_schedule *s,
                const struct acs_sim_opts *opts, struct acs_sim_result *r,
                struct acs_diag *d)
{
  double t0 = acs_now_seconds(), cpu;
  struct acs_sim_opts defaults;
  struct acs__sim_plan pl;
  struct acs__proc_result res;
  void *wire;
  size_t len;
  int err;

  if (!opts) {
    acs_sim_opts_init(&defaults);
    opts = &defaults;
  }
  result_init(r, s);
  if ((err = acs__plan_build(&pl, p, s, opts->bprog, opts->bprog && opts->bprog_verified, d)) < 0)
    goto out;
  pl.hook = opts->hook;
  if ((err = acs__plan_encode(&pl, &wire, &len)) < 0)
    goto out_with_plan;
  cpu = cpu_limit(opts, &pl);
  err = acs__proc_run(p, &pl, opts, wire, len, cpu, wall_limit(opts, cpu), &res, d);
  free(wire);
  if (err == ACS_OK)
    err = decode(&res, &pl, s, r, d);
  if (err == ACS_OK)
    measure(&pl, s, r);
  free(res.buf);
out_with_plan:
  acs__plan_free(&pl);
out:
  r->sim_seconds = acs_now_seconds() - t0;
  return err;
}
