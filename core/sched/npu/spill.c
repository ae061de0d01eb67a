/*
 * spill.c - memory-aware scheduling with dynamic spills (seed 000,
 * "Generating a Feasible Schedule Under Producer/Consumer Resource
 * Constraints with Dynamic Spill Operations", GenerateFeasibleSchedulePCR),
 * contiguous CMX addresses from a disjoint interval set, and control edges
 * from the resulting time-by-address packing.
 *
 * Model (the seed's producer/consumer resource model, PC-R). An op with
 * out_bytes > 0 produces a tensor that occupies one contiguous, aligned CMX
 * range from the op's start until its last consumer (data successor) ends.
 * An op may start when its predecessors are done, every input tensor is in
 * CMX, its output gets a range, and its PE / DMA / named demands fit. The
 * graph's `cmx` demand column (the working set `list` uses, S-R model) is
 * not used: here memory is the tensors. In the schedule each op's cmx demand
 * becomes the bytes of the range it allocates, so the capacity check and
 * the ranges say the same thing.
 *
 * Weights and inputs: a DMA from DDR into CMX (layer weights, the network
 * input, the input rows of a tiled layer) is an op like any other; its
 * tensor is the bytes it loads. Such a tensor is clean: its data stays in
 * DDR, so evicting it needs no write. With clean=drop (the default) it is
 * dropped and later re-read from its source (a spill-read DMA whose data
 * predecessor is the original load); clean=write writes it out first like
 * every other tensor, as the seed's Figure-12 does for A_in. A tensor read
 * back by a spill-read is clean in both modes (its DDR copy exists).
 *
 * Precondition (the seed's): every op's distinct input tensors plus its
 * output, each rounded up to the alignment, fit the CMX. A workload that
 * violates it is ACS_EINFEASIBLE naming the op and the bytes; DNN layers
 * are already tiled along output rows to fit when their op DAG is built
 * (acs_lgraph_build).
 *
 * The scheduler is event-driven like the seed's: at each instant T it first
 * releases every op ending at T (ranges whose last reader ended are freed,
 * finished spill-writes free theirs), then walks the ready ops in priority
 * order (rule: latest finish time or topological position, ties by op id)
 * and starts each that can start. An op whose inputs were evicted gets
 * spill-read DMAs (DDR to CMX, one channel, their own range) and starts
 * after they end; later consumers read that copy while it stays. Where the
 * seed differs:
 *
 *  - The seed evicts whenever no ready op fits at an instant. Ops still
 *    running will free memory when they end, so evicting then only adds DDR
 *    traffic; here eviction happens only when nothing runs and nothing can
 *    start (then waiting cannot help). The target is the most urgent ready
 *    op; until it starts, spill-reads are issued for it only, so evicted
 *    tensors of other ops do not come back and fight for its space.
 *  - Contiguity. Evicting the least recently used tensor frees bytes but not
 *    necessarily a gap where the blocked buffer fits. The victims are
 *    instead a window [x, x + need) of the CMX (x at a range boundary) made
 *    of free bytes and evictable tensors. Windows whose tensors are all
 *    clean come first (dropping costs the re-read only, a dirty tensor also
 *    a write; without this rule resnet50 at 4 MiB wrote out an activation
 *    needed next while prefetched weights stayed). Then the eviction policy:
 *    evict=lru takes the window whose most recent use is the oldest (with
 *    one tensor per window this is plain LRU), evict=belady the window whose
 *    soonest next use (the rank of the first unstarted consumer) is the
 *    furthest. Ties: fewer bytes, then the lower address. The target's own
 *    inputs are kept; when no window avoids them, every evictable tensor
 *    goes (a flush), after which the target's inputs come back packed from
 *    address 0 and its output fits by the precondition: progress is certain.
 *    "Enough bytes in total but no gap" therefore waits while ops run and
 *    evicts a window when idle; a placement never overcommits.
 *  - Prefetch. Weight DMAs have no predecessors: a greedy list scheduler
 *    loads every layer's weights at time 0 and fills the CMX with tensors
 *    needed much later, which then have to be evicted. Option `lookahead`
 *    lets an op start only when its rank is within that many of the most
 *    urgent ready op's (0 = no limit; by default 16 per PE). Wider windows gave shorter makespans
 *    and fewer spills on the DNN suite but cost O(window) per instant; 64
 *    keeps the 10^5-op benchmark near 1 s (doc/spill.md has the figures).
 *    Letting every ready op start at idle instants (a soft window) made
 *    each idle instant O(V): 121 s on that benchmark.
 *  - The seed has no notion of units; spill DMAs take a DMA channel and the
 *    platform's DDR transfer time (acs_platform_ddr_cycles).
 *
 * Placement: `placement=first` takes the lowest gap that fits, `best` the
 * smallest; see doc/spill.md for the measured fragmentation of both.
 *
 * Files: this one is the planner (setup, placement, the event loop, the
 * output, the variant); spill_evict.c the spill and reload choice (spill
 * DMAs, spill-reads, the eviction windows and the rescue above);
 * spill_int.h what the two share.
 *
 * After scheduling, units are assigned by one sweep in order of (start, op
 * id) like every variant, and acs__ctrl_edges_add (ctrledge.c) adds the
 * control edges of the packing, so any execution that respects the data and
 * control edges keeps the CMX ranges disjoint.
 *
 * Complexity. Each instant walks at most `lookahead` ready ops (a two-level
 * bitset over ranks finds them); a placement is O(m) over the m ranges in
 * CMX, rejected in O(1) when the largest gap is too small; an eviction
 * O(m), one slide over the candidate windows. With L = lookahead and m
 * resident tensors, a pass is O((V + S) (L (deg + m) + log V) + E) for S
 * spill ops, plus the control edges (ctrledge.h). lookahead=0 makes each
 * instant O(ready ops), O(V^2) on very wide graphs.
 */
#include "config.h"

/* The default window: the DNN lowering makes one op per PE for each tile,
 * so 16 ranks per PE span about 16 tiles whatever the PE count (64 ranks
 * at 4 PEs; a fixed 64 let a 16-PE schedule look only 4 tiles ahead and
 * made it slower than on 4 PEs). */
#define LOOKAHEAD_PER_PE 16

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/npu/spill_int.h"

/* ---- ready set ---------------------------------------------------------- */

static int rs_init(struct readyset *r, int32_t n)
{
  size_t n0 = ((size_t)n + 63) / 64 + 1, n1 = (n0 + 63) / 64 + 1;

  r->n = n;
  r->w0 = calloc(n0, sizeof(*r->w0));
  r->w1 = calloc(n1, sizeof(*r->w1));
  return r->w0 && r->w1 ? ACS_OK : ACS_ENOMEM;
}

static void rs_set(struct readyset *r, int32_t i)
{
  r->w0[i >> 6] |= UINT64_C(1) << (i & 63);
  r->w1[i >> 12] |= UINT64_C(1) << ((i >> 6) & 63);
}

static void rs_clear(struct readyset *r, int32_t i)
{
  r->w0[i >> 6] &= ~(UINT64_C(1) << (i & 63));
  if (r->w0[i >> 6] == 0)
    r->w1[i >> 12] &= ~(UINT64_C(1) << ((i >> 6) & 63));
}

/* ---- setup ---------------------------------------------------------------- */

/* rank[v]: position in priority order. lft: latest finish time against the
 * critical path (smallest first), O(V + E); topo: topological position. */
static int make_ranks(struct spill *s)
{
  const struct acs_graph *g = s->pb->g;
  struct acs__rank_key *k = acs__sched_array((size_t)s->n, sizeof(*k));
  int64_t *lp = acs__sched_array((size_t)s->n, sizeof(*lp)), cp = 0;

  if (!k || !lp) {
    free(k);
    free(lp);
    return ACS_ENOMEM;
  }
  for (int32_t i = s->n - 1; i >= 0; i--) {
    int32_t v = g->topo[i];
    int64_t best = 0;
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      best = lp[g->succ[e]] > best ? lp[g->succ[e]] : best;
    lp[v] = s->pb->dur[v] + best;
    cp = lp[v] > cp ? lp[v] : cp;
  }
  for (int32_t i = 0; i < s->n; i++) {
    int32_t v = g->topo[i];
    k[v].id = v;
    k[v].key = s->o->rule == RULE_TOPO ? i : cp - (lp[v] - s->pb->dur[v]);
  }
  qsort(k, (size_t)s->n, sizeof(*k), acs__rank_key_cmp);
  for (int32_t i = 0; i < s->n; i++) {
    s->by_rank[i] = k[i].id;
    s->rank[k[i].id] = i;
  }
  free(k);
  free(lp);
  return ACS_OK;
}

/* Sorts every segment of a CSR by id and removes duplicates in place
 * (duplicate data edges are legal in a graph). */
static void csr_dedupe(int32_t *off, int32_t *adj, int32_t n)
{
  int32_t w = 0, start = 0;

  for (int32_t v = 0; v < n; v++) {
    int32_t end = off[v + 1], first = w;
    qsort(adj + start, (size_t)(end - start), sizeof(*adj), acs_cmp_i32);
    for (int32_t k = start; k < end; k++)
      if (k == start || adj[k] != adj[k - 1])
        adj[w++] = adj[k];
    off[v] = first;
    start = end;
  }
  off[n] = w;
}

/* CSR of the data edges out of tensors: by destination (inputs) or by
 * source (consumers). */
static int data_csr(const struct spill *s, int by_src, int32_t **off_out, int32_t **adj_out)
{
  const struct acs_graph *g = s->pb->g;
  int32_t *off = calloc((size_t)s->n + 2, sizeof(*off));
  int32_t *adj = acs__sched_array((size_t)g->nedges, sizeof(*adj));

  *off_out = off;
  *adj_out = adj;
  if (!off || !adj)
    return ACS_ENOMEM;
  for (int32_t e = 0; e < g->nedges; e++)
    if (g->edges[e].kind == ACS_EDGE_DATA && has_tensor(s, g->edges[e].src))
      off[(by_src ? g->edges[e].src : g->edges[e].dst) + 2]++;
  for (int32_t v = 0; v < s->n; v++)
    off[v + 2] += off[v + 1];
  for (int32_t e = 0; e < g->nedges; e++)
    if (g->edges[e].kind == ACS_EDGE_DATA && has_tensor(s, g->edges[e].src)) {
      const struct acs_edge *ed = &g->edges[e];
      adj[off[(by_src ? ed->src : ed->dst) + 1]++] = by_src ? ed->dst : ed->src;
    }
  csr_dedupe(off, adj, s->n);
  return ACS_OK;
}

/* The ranks qsort compares by (set only during make_io's sorts). */
static const int32_t *cmp_rank;

static int cmp_by_rank(const void *a, const void *b)
{
  int32_t x = cmp_rank[*(const int32_t *)a], y = cmp_rank[*(const int32_t *)b];

  return (x > y) - (x < y);
}

/* Inputs of every op; consumers of every tensor in rank order (for the
 * Belady cursor). O(E log E). */
static int make_io(struct spill *s)
{
  int err = data_csr(s, 0, &s->in_off, &s->in);

  if (err == ACS_OK)
    err = data_csr(s, 1, &s->cons_off, &s->cons);
  if (err != ACS_OK)
    return err;
  cmp_rank = s->rank;
  for (int32_t v = 0; v < s->n; v++)
    qsort(s->cons + s->cons_off[v], (size_t)(s->cons_off[v + 1] - s->cons_off[v]),
          sizeof(*s->cons), cmp_by_rank);
  cmp_rank = NULL;
  return ACS_OK;
}

/*
 * The checks before scheduling: the renewable demands (PE, DMA, named) of
 * every op fit their capacities, durations are sane (acs__sched_precheck
 * would also compare the graph's cmx working-set column, which this model
 * does not use), and the seed's precondition holds.
 */
static int precheck(struct spill *s)
{
  const struct acs_graph *g = s->pb->g;
  int64_t total = 0;

  for (int32_t v = 0; v < s->n; v++) {
    int64_t need = has_tensor(s, v) ? rsv(s, g->ops[v].out_bytes) : 0, in = 0;
    for (int r = 0; r < s->pb->nres; r++)
      if (r != s->res_cmx && acs_problem_demand(s->pb, v, r) > s->pb->cap[r])
        return acs_diag_set(s->d, ACS_EINFEASIBLE, g->path, g->ops[v].line, 0,
                            "op '%s' needs %lld of resource '%s' but the platform has %lld",
                            g->ops[v].name, (long long)acs_problem_demand(s->pb, v, r),
                            g->res[r].name, (long long)s->pb->cap[r]);
    if (s->pb->dur[v] < 0 || acs_add_i64(total, s->pb->dur[v], &total))
      return FAIL(s, ACS_ERANGE, "op '%s': negative duration or durations beyond 2^63",
                  g->ops[v].name);
    /* Each term is at most 2^53 + align (acs_problem_init); saturating at
     * 2^62 keeps the sum and in + need from overflowing on any fan-in. */
    for (int32_t k = s->in_off[v]; k < s->in_off[v + 1]; k++) {
      int64_t b = rsv(s, g->ops[s->in[k]].out_bytes);
      in = in > ((int64_t)1 << 62) - b ? (int64_t)1 << 62 : in + b;
    }
    if (in + need > s->cap)
      return acs_diag_set(s->d, ACS_EINFEASIBLE, g->path, g->ops[v].line, 0,
                          "op '%s' needs %lld bytes of CMX at once (%d input tensors, "
                          "%lld bytes, and its output, %lld bytes, aligned to %lld) but "
                          "the CMX holds %lld", g->ops[v].name, (long long)(in + need),
                          (int)(s->in_off[v + 1] - s->in_off[v]), (long long)in,
                          (long long)need, (long long)s->align, (long long)s->cap);
  }
  return ACS_OK;
}

/* ---- CMX placement ---------------------------------------------------- */

static void gaps_refresh(struct spill *s)
{
  if (!s->gaps_ok) {
    acs__ivset_gaps(&s->used, s->cap, s->align, &s->largest, &s->freeb);
    s->gaps_ok = 1;
  }
}

/* Places `bytes` for tensor p; returns the offset or -1 (no gap). */
int64_t acs__spill_place(struct spill *s, int32_t p, int64_t bytes)
{
  int64_t len = rsv(s, bytes), off;

  gaps_refresh(s);
  if (len > s->largest) {
    s->st->alloc_refused++;
    s->st->contig_refused += s->freeb >= len;
    return -1;
  }
  off = acs__ivset_find_gap(&s->used, s->cap, len, s->align, (int)s->o->placement);
  if (off < 0 || acs__ivset_insert(&s->used, off, off + len, p) < 0)
    return -1; /* cannot happen: the largest gap holds it */
  s->gaps_ok = 0;
  return off;
}

/* Gives back the range of tensor p; the holder's cmx_free is the latest end
 * of the ops that held it. */
void acs__spill_unplace(struct spill *s, int32_t p)
{
  struct tensor *t = &s->t[p];
  struct acs_sop *h = &s->out->ops[t->holder];
  int64_t until = t->hold_until > h->end ? t->hold_until : h->end;

  h->cmx_free = (double)until;
  acs__ivset_erase_at(&s->used, t->off);
  s->gaps_ok = 0;
  t->holder = -1;
  t->off = t->len = -1;
}

/* ---- tensor states ----------------------------------------------------------- */

/* Sets p's state, keeping the count of missing inputs of its ready
 * consumers up to date when p stops or starts being resident. O(deg). */
void acs__spill_set_state(struct spill *s, int32_t p, uint8_t state)
{
  int was = s->t[p].state == T_RESIDENT, is = state == T_RESIDENT;

  s->t[p].state = state;
  if (was == is)
    return;
  for (int32_t k = s->cons_off[p]; k < s->cons_off[p + 1]; k++)
    if (s->opstate[s->cons[k]] == OP_READY)
      s->missing[s->cons[k]] += was ? 1 : -1;
}

static void make_ready(struct spill *s, int32_t v)
{
  int32_t m = 0;

  for (int32_t k = s->in_off[v]; k < s->in_off[v + 1]; k++)
    m += s->t[s->in[k]].state != T_RESIDENT;
  s->missing[v] = m;
  s->opstate[v] = OP_READY;
  rs_set(&s->rs, s->rank[v]);
}

/* ---- starting ops --------------------------------------------------------- */

int acs__spill_note_start(struct spill *s, int32_t op, int64_t dur, int64_t *end)
{
  int err;

  if (acs_add_i64(s->now, dur, end))
    return FAIL(s, ACS_ERANGE, "op '%s': time beyond 2^63 cycles", s->out->ops[op].name);
  s->out->ops[op].start = s->now;
  s->out->ops[op].end = *end;
  if ((err = acs_grow((void **)&s->pos, sizeof(*s->pos), &s->poscap, (size_t)op + 1)) < 0)
    return err;
  s->pos[op] = s->seq++;
  return acs_heap_push(&s->run, *end, op);
}

static int renewables_fit(const struct spill *s, int32_t v)
{
  for (int r = 0; r < s->pb->nres; r++)
    if (r != s->res_cmx && acs_problem_demand(s->pb, v, r) > s->avail[r])
      return 0;
  return 1;
}

/* The op reads its inputs: pins them and, for a tensor read from a spilled
 * copy, adds the data edge from the copy. */
static int read_inputs(struct spill *s, int32_t v, int64_t end)
{
  for (int32_t k = s->in_off[v]; k < s->in_off[v + 1]; k++) {
    struct tensor *t = &s->t[s->in[k]];
    int err;
    t->running++;
    t->hold_until = end > t->hold_until ? end : t->hold_until;
    t->last_use = ++s->stamp;
    if (t->holder != s->in[k] &&
        (err = acs_schedule_add_edge(s->out, t->holder, v, ACS_EDGE_DATA)) < 0)
      return err;
  }
  return ACS_OK;
}

static int start_op(struct spill *s, int32_t v, int64_t off)
{
  const struct acs_op *g = &s->pb->g->ops[v];
  struct acs_sop *o = &s->out->ops[v];
  int64_t end;
  int err;

  if ((err = acs__spill_note_start(s, v, s->pb->dur[v], &end)) < 0 || (err = read_inputs(s, v, end)) < 0)
    return err;
  if (off >= 0) {
    struct tensor *t = &s->t[v];
    o->cmx_offset = t->off = off;
    o->cmx_bytes = t->len = rsv(s, g->out_bytes);
    o->cmx_alloc = (double)s->now;
    t->holder = v;
    t->hold_until = end;
    t->last_use = ++s->stamp;
    acs__spill_set_state(s, v, T_PRODUCING);
    /* A load from DDR leaves its data there: clean unless the seed's
     * write-back of every evicted tensor is asked for. */
    t->ddr_src = s->o->clean == CLEAN_DROP && g->kind == ACS_OP_DMA && g->src == ACS_MEM_DDR
                 ? v : -1;
  }
  for (int r = 0; r < s->pb->nres; r++)
    if (r != s->res_cmx)
      s->avail[r] -= acs_problem_demand(s->pb, v, r);
  s->opstate[v] = OP_RUNNING;
  rs_clear(&s->rs, s->rank[v]);
  if (s->rescue == v)
    s->rescue = -1;
  return ACS_OK;
}

/*
 * Starts v if it can start now. Evicted inputs get spill-reads first
 * (outside a rescue, or for the rescued op itself). Returns 1 started, 0
 * not now, < 0 error. The count of missing inputs makes the common refusals
 * O(1): no tensor is looked at unless a read can start.
 */
static int try_op(struct spill *s, int32_t v)
{
  int64_t off = -1;
  int err;

  if (s->missing[v] > 0) {
    if (!dma_free(s) || (s->rescue >= 0 && s->rescue != v))
      return 0;
    for (int32_t k = s->in_off[v]; k < s->in_off[v + 1] && dma_free(s); k++)
      if (s->t[s->in[k]].state == T_IN_DDR && (err = acs__spill_try_read(s, s->in[k])) < 0)
        return err;
    return 0;
  }
  if (!renewables_fit(s, v))
    return 0;
  if (has_tensor(s, v) && (off = acs__spill_place(s, v, s->pb->g->ops[v].out_bytes)) < 0)
    return 0;
  return (err = start_op(s, v, off)) < 0 ? err : 1;
}

/* One decision instant: ready ops in rank order within `lookahead` ranks of
 * the most urgent one (0 = all). */
static int decide(struct spill *s, int64_t lookahead)
{
  int32_t base = rs_next(&s->rs, 0);
  int64_t limit = lookahead > 0 ? (int64_t)base + lookahead : INT64_MAX;

  for (int32_t r = base; r >= 0 && r <= limit; r = rs_next(&s->rs, r + 1)) {
    int err = try_op(s, s->by_rank[r]);
    if (err < 0)
      return err;
  }
  return ACS_OK;
}

/* ---- completions ------------------------------------------------------------ */

static void consumed(struct spill *s, int32_t p)
{
  struct tensor *t = &s->t[p];

  t->running--;
  if (--t->remaining == 0) {
    acs__spill_unplace(s, p);
    acs__spill_set_state(s, p, T_FREED);
  }
}

static void finish_graph_op(struct spill *s, int32_t v)
{
  const struct acs_graph *g = s->pb->g;

  for (int r = 0; r < s->pb->nres; r++)
    if (r != s->res_cmx)
      s->avail[r] += acs_problem_demand(s->pb, v, r);
  for (int32_t k = s->in_off[v]; k < s->in_off[v + 1]; k++)
    consumed(s, s->in[k]);
  if (has_tensor(s, v)) {
    acs__spill_set_state(s, v, T_RESIDENT);
    if (s->t[v].remaining == 0) {
      acs__spill_unplace(s, v);
      acs__spill_set_state(s, v, T_FREED);
    }
  }
  s->opstate[v] = OP_DONE;
  s->ndone++;
  for (int32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
    if (--s->waiting[g->succ[k]] == 0)
      make_ready(s, g->succ[k]);
}

static void finish_spill_op(struct spill *s, int32_t id)
{
  const struct xop *x = &s->x[id - s->n];
  struct tensor *t = &s->t[x->tensor];

  dma_take(s, -1);
  if (x->what == X_READ) {
    acs__spill_set_state(s, x->tensor, T_RESIDENT);
    return;
  }
  acs__spill_unplace(s, x->tensor);
  acs__spill_set_state(s, x->tensor, T_IN_DDR);
  t->ddr_src = id;
}

/* Releases every op ending at or before the current time. */
static void release_due(struct spill *s)
{
  while (!acs_heap_empty(&s->run) && acs_heap_peek(&s->run).key <= s->now) {
    int32_t id = acs_heap_pop(&s->run).id;
    if (id < s->n)
      finish_graph_op(s, id);
    else
      finish_spill_op(s, id);
  }
}

/* ---- the event loop ------------------------------------------------------------- */

static void account_frag(struct spill *s, int64_t next)
{
  gaps_refresh(s);
  if (s->freeb > 0 && next > s->now)
    s->frag_area += (double)(next - s->now) * (1.0 - (double)s->largest / (double)s->freeb);
}

static int run_loop(struct spill *s)
{
  int err;

  for (;;) {
    if (s->interrupted && *s->interrupted)
      return ACS_EINTERRUPTED;
    release_due(s);
    if ((err = decide(s, s->lookahead)) < 0)
      return err;
    if (!acs_heap_empty(&s->run)) {
      int64_t next = acs_heap_peek(&s->run).key;
      account_frag(s, next);
      s->now = next;
      continue;
    }
    if (s->ndone == s->n)
      return ACS_OK;
    if (rs_next(&s->rs, 0) < 0)
      return FAIL(s, ACS_EINVAL, "spill: %d ops wait but none is ready", s->n - s->ndone);
    if ((err = acs__spill_rescue(s)) < 0)
      return err;
  }
}

/* ---- output ---------------------------------------------------------------- */

/* Which unit resource an op occupies (as the verifier reads it), or -1. */
static int unit_res(const struct acs_schedule *o, int32_t i)
{
  int r = o->ops[i].kind == ACS_OP_DMA ? o->res_dma : o->res_pe;

  return r >= 0 && acs_schedule_demand(o, i, r) > 0 ? r : -1;
}

static const struct acs_schedule *cmp_sched;

static int cmp_start(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  int64_t sx = cmp_sched->ops[x].start, sy = cmp_sched->ops[y].start;

  if (sx != sy)
    return sx < sy ? -1 : 1;
  return (x > y) - (x < y);
}

/* Free PEs (pool 0) and DMA channels (pool 1), lowest index on top; never
 * more units than ops are needed. */
static int pools_init(const struct acs_schedule *o, struct acs_heap pool[2])
{
  int err = ACS_OK;

  for (int p = 0; p < 2; p++) {
    int r = p == 0 ? o->res_pe : o->res_dma;
    int64_t units = r >= 0 ? (o->res_cap[r] < o->nops ? o->res_cap[r] : o->nops) : 0;
    if (acs_heap_init(&pool[p], (size_t)units + 1) < 0)
      err = ACS_ENOMEM;
    for (int64_t u = 0; u < units && err == ACS_OK; u++)
      err = acs_heap_push(&pool[p], u, (int32_t)u);
  }
  return err;
}

/* Gives op i the lowest free unit of its kind (after `busy` returned the
 * units of ops ended by its start). Zero-length ops hold nothing: the
 * lowest free unit, or 0 when all are busy. */
static int take_unit(struct acs_schedule *o, int32_t i, struct acs_heap *busy,
                     struct acs_heap pool[2])
{
  struct acs_heap *pl = &pool[o->ops[i].kind == ACS_OP_DMA];
  int err = ACS_OK;

  while (err == ACS_OK && !acs_heap_empty(busy) && acs_heap_peek(busy).key <= o->ops[i].start) {
    int32_t j = acs_heap_pop(busy).id;
    err = acs_heap_push(&pool[o->ops[j].kind == ACS_OP_DMA], o->ops[j].unit, o->ops[j].unit);
  }
  o->ops[i].unit = -1;
  if (err != ACS_OK || unit_res(o, i) < 0)
    return err;
  if (o->ops[i].dur == 0) {
    o->ops[i].unit = acs_heap_empty(pl) ? 0 : (int32_t)acs_heap_peek(pl).key;
    return ACS_OK;
  }
  if (acs_heap_empty(pl))
    return ACS_EINVAL; /* capacities were violated: a bug */
  o->ops[i].unit = (int32_t)acs_heap_pop(pl).key;
  return acs_heap_push(busy, o->ops[i].end, i);
}

/* Lowest free unit at each op's start, ops in (start, id) order: the sweep
 * every variant uses (common.c), over the added ops too. O(V log V). qsort
 * has no context argument; cmp_sched holds it during the call (the library
 * is single-threaded). */
static int assign_units(struct acs_schedule *o)
{
  struct acs_heap busy, pool[2];
  int32_t *ord = acs__sched_array((size_t)o->nops, sizeof(*ord));
  int err = ord ? acs_heap_init(&busy, 64) : ACS_ENOMEM;

  if (err < 0)
    goto out_with_order;
  err = pools_init(o, pool);
  for (int32_t i = 0; i < o->nops; i++)
    ord[i] = i;
  cmp_sched = o;
  qsort(ord, (size_t)o->nops, sizeof(*ord), cmp_start);
  cmp_sched = NULL;
  for (int32_t k = 0; k < o->nops && err == ACS_OK; k++)
    err = take_unit(o, ord[k], &busy, pool);
  acs_heap_destroy(&pool[0]);
  acs_heap_destroy(&pool[1]);
  acs_heap_destroy(&busy);
out_with_order:
  free(ord);
  return err;
}

/* Every op's cmx demand becomes the bytes of the range it allocates. */
static void set_cmx_demands(struct acs_schedule *o, int res_cmx)
{
  for (int32_t i = 0; i < o->nops; i++)
    o->demand[(size_t)i * (size_t)o->nres + (size_t)res_cmx] =
        o->ops[i].cmx_bytes > 0 ? o->ops[i].cmx_bytes : 0;
}

/* ---- the variant ------------------------------------------------------------- */

static int spill_init(struct spill *s, const struct acs_problem *pb, const struct spill_opts *o,
                      struct acs_schedule *out, struct acs_spill_stats *st, struct acs_diag *d)
{
  size_t n = (size_t)pb->nops;

  memset(s, 0, sizeof(*s));
  s->pb = pb;
  s->o = o;
  s->out = out;
  s->d = d;
  s->st = st;
  s->n = pb->nops;
  s->res_cmx = pb->res_cmx;
  s->res_dma = pb->res_dma;
  s->res_ddr = pb->res_ddr;
  s->lookahead = o->lookahead >= 0 ? o->lookahead
               : LOOKAHEAD_PER_PE * (pb->res_pe >= 0 ? pb->cap[pb->res_pe] : 1);
  s->align = out->cmx_align > 1 ? out->cmx_align : 1;
  s->cap = pb->cap[pb->res_cmx] / s->align * s->align;
  s->rescue = -1;
  for (int r = 0; r < pb->nres; r++)
    s->avail[r] = pb->cap[r];
  acs__ivset_init(&s->used);
  s->rank = acs__sched_array(n, sizeof(*s->rank));
  s->by_rank = acs__sched_array(n, sizeof(*s->by_rank));
  s->waiting = acs__sched_array(n, sizeof(*s->waiting));
  s->missing = calloc(n + 1, sizeof(*s->missing));
  s->mark = calloc(n + 1, sizeof(*s->mark));
  s->opstate = calloc(n + 1, sizeof(*s->opstate));
  s->t = calloc(n + 1, sizeof(*s->t));
  if (!s->rank || !s->by_rank || !s->waiting || !s->missing || !s->mark || !s->opstate || !s->t ||
      rs_init(&s->rs, pb->nops) < 0 || acs_heap_init(&s->run, 1024) < 0)
    return ACS_ENOMEM;
  return ACS_OK;
}

static void spill_destroy(struct spill *s)
{
  free(s->rank);
  free(s->by_rank);
  free(s->waiting);
  free(s->missing);
  free(s->mark);
  free(s->opstate);
  free(s->t);
  free(s->in_off);
  free(s->in);
  free(s->cons_off);
  free(s->cons);
  free(s->x);
  free(s->pos);
  free(s->rs.w0);
  free(s->rs.w1);
  acs__ivset_destroy(&s->used);
  acs_heap_destroy(&s->run);
}

/* Initial states: tensors, waiting counts, the ready ops. */
static void spill_reset(struct spill *s)
{
  const struct acs_graph *g = s->pb->g;

  for (int32_t v = 0; v < s->n; v++) {
    struct tensor *t = &s->t[v];
    t->bytes = g->ops[v].out_bytes;
    t->off = t->len = -1;
    t->holder = t->ddr_src = -1;
    t->remaining = s->cons_off[v + 1] - s->cons_off[v];
    s->waiting[v] = g->pred_off[v + 1] - g->pred_off[v];
  }
  for (int32_t v = 0; v < s->n; v++)
    if (s->waiting[v] == 0)
      make_ready(s, v);
}

static int finish_output(struct spill *s)
{
  struct acs_schedule *o = s->out;
  double t0;
  int err;

  set_cmx_demands(o, s->res_cmx);
  if ((err = assign_units(o)) < 0)
    return err;
  acs_schedule_finish(o);
  t0 = acs_now_seconds();
  err = acs__ctrl_edges_add(o, s->pos, s->o->reduce, &s->st->ctrl);
  s->st->ctrl_seconds = acs_now_seconds() - t0;
  if (err == ACS_EINVAL)
    return FAIL(s, ACS_EINVAL, "spill: the CMX packing contradicts the start order");
  s->st->frag = o->makespan > 0 ? s->frag_area / (double)o->makespan : 0;
  return err;
}

/* acs__spill_run, stopping with ACS_EINTERRUPTED once *interrupted is set. */
static int spill_run(const struct acs_problem *pb, const void *opts, struct acs_schedule *out,
                     struct acs_spill_stats *st, const volatile sig_atomic_t *interrupted,
                     struct acs_diag *d)
{
  struct acs_spill_stats own;
  struct spill s;
  int err;

  st = st ? st : &own;
  memset(st, 0, sizeof(*st));
  if (pb->res_cmx < 0 || pb->res_dma < 0)
    return acs_diag_set(d, ACS_EUNSUPPORTED, pb->g->path, 0, 0,
                        "spill: workload '%s' has no cmx or dma resource", pb->g->name);
  if ((err = spill_init(&s, pb, opts, out, st, d)) < 0)
    goto out_with_state;
  s.interrupted = interrupted;
  if ((err = make_ranks(&s)) < 0 || (err = make_io(&s)) < 0 || (err = precheck(&s)) < 0)
    goto out_with_state;
  spill_reset(&s);
  if ((err = run_loop(&s)) == ACS_OK)
    err = finish_output(&s);
out_with_state:
  spill_destroy(&s);
  return err;
}

int acs__spill_run(const struct acs_problem *pb, const void *opts,
                   struct acs_schedule *out, struct acs_spill_stats *st,
                   struct acs_diag *d)
{
  return spill_run(pb, opts, out, st, NULL, d);
}

static int spill_schedule(const struct acs_problem *pb, const void *opts,
                          const struct acs_sched_ctx *ctx, struct acs_schedule *out,
                          struct acs_diag *d)
{
  return spill_run(pb, opts, out, NULL, ctx ? ctx->interrupted : NULL, d);
}

static const char *const placement_choices[] = { "first", "best", NULL };
static const char *const evict_choices[] = { "lru", "belady", NULL };
static const char *const clean_choices[] = { "drop", "write", NULL };
static const char *const rule_choices[] = { "lft", "topo", NULL };

static const struct acs_opt_desc spill_opts_desc[] = {
  ACS_OPT_ENUM_FIELD(struct spill_opts, placement, "first", placement_choices,
    "CMX placement: first (lowest gap that fits) or best (smallest gap)"),
  ACS_OPT_ENUM_FIELD(struct spill_opts, evict, "lru", evict_choices,
    "victims when nothing fits: lru (least recently used) or belady (furthest next use)"),
  ACS_OPT_ENUM_FIELD(struct spill_opts, clean, "drop", clean_choices,
    "tensors loaded from DDR: drop (evict without a write, re-read from the source) or "
    "write (spill-write them like the seed)"),
  ACS_OPT_INT_FIELD(struct spill_opts, lookahead, "-1", -1, 1e9,
    "an op starts only within this many ranks of the most urgent ready op (0 = no limit; "
    "-1 = 16 per PE)"),
  ACS_OPT_ENUM_FIELD(struct spill_opts, rule, "lft", rule_choices,
    "priority: lft (latest finish time) or topo (topological position)"),
  ACS_OPT_INT_FIELD(struct spill_opts, reduce, "4096", 0, 1e9,
    "control edges: ops visited per search for an existing path (0 = keep every edge)"),
  ACS_OPT_END,
};

const struct acs_sched_ops acs_sched_spill = {
  .name = "spill",
  .memory_model = ACS_MEM_RESIDENT, /* producer-to-last-consumer tensors, spilled to DDR when they do not fit */
  .seed = ACS_SEED_KUNDETI,
  .summary = "producer/consumer memory model with dynamic spills, contiguous CMX "
             "addresses and control edges",
  .kinds = ACS_KINDS_NETWORK,
  ACS_SCHED_OPTS(struct spill_opts, spill_opts_desc),
  .schedule = spill_schedule,
};
