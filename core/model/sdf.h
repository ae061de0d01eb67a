/*
 * sdf.h - (cyclo-static) synchronous dataflow graphs of image kernels
 * (seed 004): actors with per-phase execution times and rates, channels with
 * initial tokens and token sizes, the repetition vector, consistency and
 * deadlock checks, and the token arithmetic every SDF scheduler and checker
 * shares.
 *
 * A run executes `iterations` graph iterations: actor a fires
 * T(a) = iterations * q(a) times, where q is the repetition vector. Firings
 * of an actor are numbered k = 0 .. T(a) - 1 over the whole run; phase k mod
 * P(a) gives the rates and the execution time of firing k (P(a) is the lcm
 * of the lengths of its sequences, which are indexed modulo their own
 * length, as SDF3 does).
 *
 * Channels carry numbered tokens j = 0, 1, ...: the d0 initial tokens first,
 * then the tokens of the source's firings in order. A channel whose source
 * (destination) port is not connected in the file is a graph input (output)
 * held in DDR: its tokens are all there when the run starts (are written
 * there). Consumption follows the seed's filter model (section 2.4):
 * a port that *absorbs* b tokens needs b tokens beyond its rate before the
 * first firing and keeps the last b tokens it consumed until the next, and
 * its last firing releases everything. With C(k) the tokens consumed by
 * firings 0..k per the rate sequence and Tc = C(T - 1) the run's total:
 *
 *   need(k)    = min(Tc, C(k) + b)         tokens that must have arrived
 *   release(k) = Tc if k is the last firing, else max(0, C(k) - b)
 *
 * so firing k reads the window [release(k - 1), need(k)) of tokens, and a
 * 3x3 filter over lines (rate 1, b = 1) reads lines k-1, k, k+1.
 */
#ifndef ACS_MODEL_SDF_H
#define ACS_MODEL_SDF_H

#include "core/acs.h"

/* Longest rate or execution-time sequence (entries after n*v expansion). */
#define ACS_SDF_MAX_SEQ 1000000

enum acs_sdf_dir { ACS_SDF_IN, ACS_SDF_OUT };
/* How far a kernel can be pipelined (seed 004, sections 2.4.4 and 5.2.2). */
enum acs_sdf_pipe {
  ACS_SDF_PIPE_FULL,   /* line-based: consumers may run in the same gang */
  ACS_SDF_PIPE_INPUT,  /* only its input is pipelined (histogram, mean): its
                        * output is complete after its last firing, so its
                        * consumers run in a later gang */
  ACS_SDF_PIPE_NONE    /* not pipelineable at all: runs in a gang of its own */
};
const char *acs_sdf_pipe_name(int pipe);   /* "full", "input", "none" */

/* A sequence of non-negative integers, indexed modulo its length. */
struct acs_sdf_seq {
  int32_t n;
  int64_t *v;            /* n values */
  int64_t *pre;          /* n + 1 prefix sums */
  int64_t sum, max;
};

/* Sum of the first k entries of the infinite repetition of s. */
static inline int64_t acs_sdf_seq_cum(const struct acs_sdf_seq *s, int64_t k)
{
  /* Most sequences have one entry (SDF rates, line kernels): no division. */
  if (s->n == 1)
    return k * s->sum;
  return (k / s->n) * s->sum + s->pre[k % s->n];
}
static inline int64_t acs_sdf_seq_at(const struct acs_sdf_seq *s, int64_t k)
{
  return s->v[k % s->n];
}

struct acs_sdf_port {
  const char *name;
  int32_t actor;
  int dir;               /* enum acs_sdf_dir */
  struct acs_sdf_seq rate;
  int64_t absorb;        /* b above (input ports) */
  int64_t token_bytes;   /* for the DDR channel of an unconnected port; -1 unset */
  int32_t channel;       /* -1 until connected */
  int32_t line;
};

struct acs_sdf_actor {
  const char *name, *type;
  struct acs_sdf_seq exec;   /* cycles per firing */
  int64_t kernel_bytes;      /* program memory the kernel binary takes */
  int pipe;                  /* enum acs_sdf_pipe */
  int32_t nphases;           /* P(a) */
  int64_t q;                 /* repetition vector entry (firings per iteration) */
  int64_t total;             /* T(a) = iterations * q */
  int32_t line;
};

struct acs_sdf_channel {
  const char *name;
  int32_t src, dst;          /* actors; -1 = DDR (graph input / output) */
  int32_t sport, dport;      /* ports; -1 on the DDR side */
  int64_t d0;                /* initial tokens */
  int64_t token_bytes;
  int64_t produced;          /* tokens the source produces in the run */
  int64_t consumed;          /* tokens the destination consumes in the run (Tc) */
  int32_t line;
};

struct acs_sdf_graph {
  struct acs_arena arena;
  const char *name, *path;
  int32_t nactors, nports, nchannels;
  size_t cap_actors, cap_ports, cap_channels;
  struct acs_sdf_actor *actors;
  struct acs_sdf_port *ports;
  struct acs_sdf_channel *channels;
  int64_t iterations;        /* graph iterations per run (default 1) */
  int64_t default_token_bytes;
  int finalized;
  /* Filled by acs_sdf_finalize: channels in and out of each actor (CSR). */
  int32_t *in_off, *in_ch, *out_off, *out_ch;
  int64_t total_firings;
  int64_t *base;             /* firing k of actor a is firing base[a] + k of the run */
  /* Actors and channels by name, ports by actor and name (sdf_names.c). */
  struct acs__sdf_names *names;
};

int acs_sdf_init(struct acs_sdf_graph *g, const char *name, const char *path);
void acs_sdf_destroy(struct acs_sdf_graph *g);

/*
 * Parses an SDF3 sequence: comma-separated entries, each a non-negative
 * integer "v" or "n*v" (n copies of v, SDF3's syntax). Returns ACS_OK or
 * ACS_EPARSE/ACS_ERANGE with a message (no location) in d.
 */
int acs_sdf_seq_parse(struct acs_sdf_graph *g, const char *text, struct acs_sdf_seq *out,
                      struct acs_diag *d);
/* A one-entry sequence. */
int acs_sdf_seq_const(struct acs_sdf_graph *g, int64_t v, struct acs_sdf_seq *out);

/* Builders (names are copied). Return the new index or a negative error. */
int32_t acs_sdf_add_actor(struct acs_sdf_graph *g, const char *name, const char *type,
                          int32_t line);
int32_t acs_sdf_add_port(struct acs_sdf_graph *g, int32_t actor, const char *name, int dir,
                         const struct acs_sdf_seq *rate, int32_t line);
int32_t acs_sdf_add_channel(struct acs_sdf_graph *g, const char *name, int32_t sport,
                            int32_t dport, int64_t d0, int32_t line);
/* Lookups by name (hashed: O(1) expected); -1 when absent. */
int32_t acs_sdf_find_actor(const struct acs_sdf_graph *g, const char *name);
int32_t acs_sdf_find_port(const struct acs_sdf_graph *g, int32_t actor, const char *name);
int32_t acs_sdf_find_channel(const struct acs_sdf_graph *g, const char *name);

/*
 * Completes the graph: a DDR channel for every unconnected port, phase
 * counts, the repetition vector by rational balance equations per connected
 * component (overflow-checked; an inconsistent graph is ACS_EPARSE naming
 * the channel), run totals, the cost of the run against the limits
 * (acs_sdf_cost; ACS_ELIMIT naming the actor that fires most), and a
 * deadlock check by symbolic execution of the whole run (ACS_EPARSE naming
 * the actor that cannot fire and the channel it waits on). Errors are
 * located at the line of the element. O(P + C) up to the cost check, which
 * bounds the rest: the deadlock check is O(F + sum over channels of the
 * firings of both ends) for F firings. Polls acs_interrupt_pending().
 */
int acs_sdf_finalize(struct acs_sdf_graph *g, struct acs_diag *d);

/*
 * What the run of a graph with its totals set costs, from the model alone
 * in O(A + C): *ops is the firings (the ops of the firing DAG); *edges an
 * upper bound on the edges of the firing DAG, sum over channels between
 * actors of T(src) + T(dst) (1 + min(2b, T(src))) with b the tokens the
 * destination absorbs, plus the firings of the actors that read DDR
 * (what the deadlock check walks). Each term saturates at INT64_MAX.
 */
void acs_sdf_cost(const struct acs_sdf_graph *g, int64_t *ops, int64_t *edges);

/*
 * The firing DAG of the run (sdf_build.c), which is what the common schedule
 * of every SDF scheduler places: op base[a] + k is firing k of actor a,
 * named "<actor>#<k>", of kind shave with the firing's execution time and a
 * demand of one PE (resources "pe" and "dma" from the platform); a data edge
 * runs from the source firing of every token a firing reads (its window
 * [release(k - 1), need(k))) on every channel between two actors. Firings
 * of one actor are not chained: they may run concurrently unless a
 * self-edge orders them, as in SDF3. Refuses a run over the limits
 * (acs_sdf_cost) before it allocates; O(F + E log P) for F firings, E
 * edges and P phases; polls acs_interrupt_pending().
 */
struct acs_graph;
int acs_sdf_build_dag(const struct acs_sdf_graph *g, struct acs_graph *out, struct acs_diag *d);

/* ---- token arithmetic (finalized graphs) ---- */

/* The four below are inline: the schedulers evaluate them at every firing. */

/* Tokens channel c has received from its source after source firings
 * 0..k-1 (k = 0: none), initial tokens included; a DDR source has them all. */
static inline int64_t acs_sdf_avail(const struct acs_sdf_graph *g, int32_t c, int64_t k)
{
  const struct acs_sdf_channel *ch = &g->channels[c];

  if (ch->src < 0)
    return ch->produced + ch->d0;
  return ch->d0 + acs_sdf_seq_cum(&g->ports[ch->sport].rate, k);
}

/* need(k) and release(k) of the destination port of c, as above
 * (release(-1) = 0). */
static inline int64_t acs_sdf_need(const struct acs_sdf_graph *g, int32_t c, int64_t k)
{
  const struct acs_sdf_channel *ch = &g->channels[c];
  const struct acs_sdf_port *p = &g->ports[ch->dport];
  int64_t v;

  if (k < 0)
    return 0;
  v = acs_sdf_seq_cum(&p->rate, k + 1) + p->absorb;
  return v < ch->consumed ? v : ch->consumed;
}

static inline int64_t acs_sdf_release(const struct acs_sdf_graph *g, int32_t c, int64_t k)
{
  const struct acs_sdf_channel *ch = &g->channels[c];
  const struct acs_sdf_port *p = &g->ports[ch->dport];
  int64_t v;

  if (k < 0)
    return 0;
  if (k >= g->actors[ch->dst].total - 1)
    return ch->consumed;
  v = acs_sdf_seq_cum(&p->rate, k + 1) - p->absorb;
  return v > 0 ? v : 0;
}

/* Tokens of c produced by source firings 0..k (the initial ones not counted). */
static inline int64_t acs_sdf_prod(const struct acs_sdf_graph *g, int32_t c, int64_t k)
{
  const struct acs_sdf_channel *ch = &g->channels[c];

  if (ch->src < 0)
    return ch->produced;
  return acs_sdf_seq_cum(&g->ports[ch->sport].rate, k + 1);
}

/* The source firing that produced token j of c, or -1 for an initial token
 * (or a DDR source). O(log P). */
int64_t acs_sdf_producer(const struct acs_sdf_graph *g, int32_t c, int64_t j);
/* Execution time of firing k of actor a. */
static inline int64_t acs_sdf_exec(const struct acs_sdf_graph *g, int32_t a, int64_t k)
{
  return acs_sdf_seq_at(&g->actors[a].exec, k);
}

/*
 * Throughput (sdf_thr.c): the maximal throughput of the graph in graph
 * iterations per cycle under self-timed execution with unbounded buffers,
 * actors firing auto-concurrently unless a self-edge limits them (SDF3's
 * semantics), DDR channels ignored. 0 with *unbounded = 1 when no cycle
 * limits it.
 *
 * acs_sdf_throughput_selftimed explores the state space of each strongly
 * connected component until a state recurs (the periodic phase);
 * acs_sdf_throughput_mcr computes the maximum cycle ratio of the HSDF
 * expansion by Howard's policy iteration. Both return ACS_OK, ACS_ERANGE
 * when the state space or the expansion exceeds `limit` states / firings.
 */
int acs_sdf_throughput_selftimed(const struct acs_sdf_graph *g, int64_t limit,
                                 double *thr, int *unbounded, struct acs_diag *d);
int acs_sdf_throughput_mcr(const struct acs_sdf_graph *g, int64_t limit, double *thr,
                           int *unbounded, struct acs_diag *d);

#endif
