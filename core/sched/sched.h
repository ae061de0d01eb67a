/*
 * sched.h - scheduler variants as ops tables, and their registry.
 *
 * A variant is a struct acs_sched_ops: name, the seed it comes from, the
 * workload kinds it accepts, a descriptor table of options bound to its own
 * options struct, and schedule(). The registry (registry.c) lists every
 * variant; `-s all` means every variant that accepts the workload.
 */
#ifndef ACS_SCHED_SCHED_H
#define ACS_SCHED_SCHED_H

#include <signal.h>
#include <stddef.h>

#include "core/model/schedule.h"

enum acs_opt_type { ACS_OPT_INT, ACS_OPT_DOUBLE, ACS_OPT_ENUM, ACS_OPT_STR };

/* Longest text option, NUL included. */
#define ACS_OPT_STR_MAX 256

/* One option: stored at `offset` in the variant's options struct (an int64_t
 * for INT and ENUM (index into choices), a double for DOUBLE, a
 * char[ACS_OPT_STR_MAX] for STR (a path, for example)). */
struct acs_opt_desc {
  const char *name;
  int type;
  size_t offset;
  const char *def;       /* default, as text */
  double min, max;       /* for INT and DOUBLE */
  const char *const *choices; /* ENUM: NULL-terminated names */
  const char *doc;
};

/*
 * Rows of a descriptor table. An option is named after the field it sets,
 * so what a user types and the member it writes cannot drift apart, and a
 * row states only what is particular to the option: its default (as text),
 * range or choices, and doc. ACS_OPT_END closes a table.
 */
#define ACS_OPT_INT_FIELD(type, field, def, min, max, doc) \
  {#field, ACS_OPT_INT, offsetof(type, field), def, min, max, NULL, doc}
#define ACS_OPT_ENUM_FIELD(type, field, def, choices, doc) \
  {#field, ACS_OPT_ENUM, offsetof(type, field), def, 0, 0, choices, doc}
#define ACS_OPT_STR_FIELD(type, field, def, doc) \
  {#field, ACS_OPT_STR, offsetof(type, field), def, 0, 0, NULL, doc}
#define ACS_OPT_END {NULL, 0, 0, NULL, 0, 0, NULL, NULL}

/* What every run gets besides the problem. */
struct acs_sched_ctx {
  uint64_t seed;         /* --seed */
  double time_limit;     /* seconds, <= 0 = none */
  /*
   * An interrupt request (the CLI points it at its SIGINT/SIGTERM flag), or
   * NULL. Every scheduler that can run longer than a fraction of a second
   * polls it (acs__stop_now in core/sched/common.h) at least every 0.1 s and, once
   * it is nonzero, returns ACS_EINTERRUPTED promptly with no schedule. A
   * scheduler family added later must do the same: Ctrl-C stops any phase
   * within a second.
   */
  const volatile sig_atomic_t *interrupted;
  /* What schedulers may keep from one run for the next in this process
   * (cache.h), or NULL. A scheduler gives the same schedule with or
   * without it; only its time changes. */
  struct acs_sched_cache *cache;
  /* The most threads a scheduler may run at once: 0 for its own choice
   * (at most the online CPUs), 1 for the caller's alone (a sweep with
   * several worker processes already keeps the CPUs busy). The result
   * does not depend on it; only the time does. */
  int threads;
};

/* Seed documents that more than one variant comes from. */
#define ACS_SEED_KUNDETI "000_a679b194fa1bdb4b.txt" /* list, spill, ilp, strip */
#define ACS_SEED_VAN_SON "004_f57d4dacff9f18c5.txt" /* gang, tiling, naive-list, sequential */

/* acs_sched_ops.kinds: one bit per workload kind, and the sets several
 * variants share. A network (layer graph or op graph) has tensors to place
 * in CMX; the op-graph kinds are those scheduled as a plain graph of ops,
 * with no loop, SDF or recurrence model behind them. */
#define ACS_WL_BIT(kind) (1u << (kind))
#define ACS_KINDS_NETWORK (ACS_WL_BIT(ACS_WL_DNN) | ACS_WL_BIT(ACS_WL_GRAPH))
#define ACS_KINDS_OPGRAPH \
  (ACS_KINDS_NETWORK | ACS_WL_BIT(ACS_WL_PSPLIB) | ACS_WL_BIT(ACS_WL_STG))

/* A variant's options in its ops table: the struct they fill and the table
 * that describes it, named together so that the size always matches. */
#define ACS_SCHED_OPTS(type, table) .opts_size = sizeof(type), .opts = (table)

struct acs_sched_ops {
  const char *name;
  const char *seed;      /* seed document, e.g. "000_a679b194fa1bdb4b.txt" */
  const char *summary;
  unsigned kinds;        /* bitmask of (1u << ACS_WL_*), core/model/problem.h */
  size_t opts_size;
  const struct acs_opt_desc *opts; /* ends with ACS_OPT_END; NULL: no options */
  int proves;            /* 1: status ok means the makespan is proven optimal */
  int searches;          /* 1: searches until --time-limit (seconds to minutes a run);
                          * `acsim sweep` leaves such variants out unless asked */
  int memory_model;      /* enum acs_mem_model (core/model/schedule.h) */
  /* 1: the schedule's ops are the variant's own work items (cascade
   * stripes), not the problem graph's ops, so the graph's lower bounds
   * (critical path of whole layers) do not bound it; only the bound it
   * reports in lower_bound does. */
  int own_ops;
  /*
   * Fills `out` (already initialised by acs_schedule_init_problem) with a
   * complete schedule. Returns ACS_OK; ACS_EINFEASIBLE with the reason in d;
   * ACS_ETIMEOUT with the best schedule found in out (or out->nops ops still
   * unscheduled if none); ACS_EINTERRUPTED when ctx->interrupted was set
   * (out holds nothing worth keeping); other negative codes for failures.
   */
  int (*schedule)(const struct acs_problem *pb, const void *opts,
                  const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                  struct acs_diag *d);
};

const struct acs_sched_ops *const *acs_sched_list(size_t *n);
const struct acs_sched_ops *acs_sched_find(const char *name);
int acs_sched_accepts(const struct acs_sched_ops *ops, int wl_kind);

/* Fills opts (ops->opts_size bytes) with the defaults. */
int acs_sched_opts_defaults(const struct acs_sched_ops *ops, void *opts);
/* Sets key=value; ACS_ENOTFOUND when the variant has no such option,
 * ACS_EPARSE/ACS_ERANGE for a bad value (message in d). */
int acs_sched_opts_set(const struct acs_sched_ops *ops, void *opts,
                       const char *key, const char *value, struct acs_diag *d);
/* "name=default (doc)" lines, for `acsim list schedulers`. */
const struct acs_opt_desc *acs_sched_opt_find(const struct acs_sched_ops *ops,
                                              const char *key);

/* The variants (one file each). */
extern const struct acs_sched_ops acs_sched_sequential;
extern const struct acs_sched_ops acs_sched_listsched;
extern const struct acs_sched_ops acs_sched_spill;
extern const struct acs_sched_ops acs_sched_ilp;
extern const struct acs_sched_ops acs_sched_strip;
extern const struct acs_sched_ops acs_sched_gang;        /* core/sched/gang/variants.c */
extern const struct acs_sched_ops acs_sched_tiling;
extern const struct acs_sched_ops acs_sched_naive;
extern const struct acs_sched_ops acs_sched_modulo;
extern const struct acs_sched_ops acs_sched_affine;
extern const struct acs_sched_ops acs_sched_cascade;     /* core/sched/cascade/variant.c */

#endif
