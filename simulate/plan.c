/*
 * plan.c - a schedule as a plan for the simulation: what each op does, its
 * release time, its dependencies (edges, the planned order on each unit,
 * the barrier program) as successor lists, and each unit's ops in order;
 * and the plan's wire form, which the simulation process receives.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/bprog.h"
#include "simulate/sim_int.h"

void acs__plan_free(struct acs__sim_plan *pl)
{
  free(pl->op);
  free(pl->dep);
  free(pl->succ_off);
  free(pl->succ);
  free(pl->ssucc_off);
  free(pl->ssucc);
  free(pl->uoff);
  free(pl->uop);
  free(pl->unit_id);
  memset(pl, 0, sizeof(*pl));
}

/* Checks one op against the platform and fills its plan entry. */
static int plan_op(struct acs__sim_plan *pl, const struct acs_platform *p, int32_t i,
                   struct acs_diag *d)
{
  const struct acs_sop *so = &pl->s->ops[i];
  struct acs__sim_op *o = &pl->op[i];
  int is_dma = so->kind == ACS_OP_DMA, nunit = is_dma ? pl->ndma : pl->npe;

  if (so->start < 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "op '%s' is not scheduled", so->name);
  if (so->dur < 0)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "op '%s' has a negative duration %lld",
                        so->name, (long long)so->dur);
  if (so->unit >= nunit)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                        "op '%s' runs on %s %d but platform '%s' has %d", so->name,
                        is_dma ? "DMA channel" : "PE", (int)so->unit, p->name, nunit);
  memset(o, 0, sizeof(*o));
  o->release = (double)so->start / pl->hz;
  /* Hosts and dense units are known once the busy units are (plan_units). */
  o->unit = o->peer = -1;
  if (is_dma && so->unit < 0 && so->bytes > 0 && so->src == ACS_MEM_PE &&
      so->dst == ACS_MEM_PE) {
    /* Between two PEs over their local links; which PEs, the edges tell
     * (pe_transfer_ends, once the busy units are numbered). */
    o->act = ACS__ACT_SEND;
    o->amount = (double)so->bytes;
    o->xfer = ACS__XFER_PE;
  } else if (is_dma && so->unit >= 0 && so->bytes > 0) {
    o->act = ACS__ACT_SEND;
    o->amount = (double)so->bytes;
    if (so->src == ACS_MEM_DDR)
      o->xfer = ACS__XFER_FROM_DDR;
    else if (so->dst == ACS_MEM_DDR)
      o->xfer = ACS__XFER_TO_DDR;
    else
      o->xfer = ACS__XFER_LOCAL;
  } else if (so->dur == 0) {
    o->act = ACS__ACT_NONE;
  } else if (!is_dma && so->unit >= 0) {
    o->act = ACS__ACT_EXEC;
    o->amount = (double)so->dur;
  } else {
    /* No unit (PSPLIB jobs), or a transfer with a fixed duration but no
     * bytes: it takes its time and contends for nothing. */
    o->act = ACS__ACT_SLEEP;
    o->amount = (double)so->dur / pl->hz;
  }
  return ACS_OK;
}

struct unit_key {
  int32_t unit;   /* PEs first, then channels after npe */
  int32_t id;
  int64_t start;
};

static int cmp_unit_key(const void *a, const void *b)
{
  const struct unit_key *x = a, *y = b;

  if (x->unit != y->unit)
    return x->unit < y->unit ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

/* Appends dependency (src, dst, kind), growing pl->dep. */
static int add_dep(struct acs__sim_plan *pl, size_t *cap, int32_t src, int32_t dst, int kind)
{
  if ((size_t)pl->ndeps == *cap) {
    size_t ncap = *cap * 2 + 64;
    struct acs__sim_dep *d = realloc(pl->dep, ncap * sizeof(*d));
    if (!d || pl->ndeps == INT32_MAX)
      return ACS_ENOMEM;
    pl->dep = d;
    *cap = ncap;
  }
  pl->dep[pl->ndeps++] = (struct acs__sim_dep){src, dst, (uint8_t)kind};
  return ACS_OK;
}

/*
 * The barrier program as dependencies (issue 5; uses recovered by the rule
 * of core/model/bprog.h). A consumer starts after every producer of the
 * use it waits on has ended (BARRIER). A producer of a barrier's next use
 * starts only when the previous use is complete: after every consumer of
 * it has started (REUSE_START, released when the source starts; the
 * consumers' own BARRIER dependencies cover the producers), or, for a use
 * nobody waits on, after its producers have ended (REUSE_END). An op that
 * consumes the previous use and produces the next one is its own release.
 * So a program that breaks the reuse rule is delayed here as the hardware
 * would delay it, and one that cannot run at all shows up as an incomplete
 * run, never as a hang. O(sum over uses of producers x consumers).
 */
static int barrier_deps(struct acs__sim_plan *pl)
{
  struct acs_bprog own;
  const struct acs_bprog *bp = pl->bp;
  size_t cap = (size_t)pl->s->nedges + (size_t)pl->n + 1;
  int err = ACS_OK;

  if (!bp && (err = acs_bprog_build(pl->s, &own)) < 0)
    return err;
  if (!bp)
    bp = &own;
  for (int32_t u = 0; u < bp->nuses && err == ACS_OK; u++) {
    int32_t q = bp->prev[u];
    for (int32_t j = bp->prod_off[u]; j < bp->prod_off[u + 1] && err == ACS_OK; j++) {
      int32_t p = bp->prod[j];
      for (int32_t k = bp->cons_off[u]; k < bp->cons_off[u + 1] && err == ACS_OK; k++)
        err = add_dep(pl, &cap, p, bp->cons[k], ACS__DEP_BARRIER);
      if (q < 0)
        continue;
      if (bp->cons_off[q + 1] > bp->cons_off[q]) {
        for (int32_t k = bp->cons_off[q]; k < bp->cons_off[q + 1] && err == ACS_OK; k++)
          if (bp->cons[k] != p)
            err = add_dep(pl, &cap, bp->cons[k], p, ACS__DEP_REUSE_START);
      } else {
        for (int32_t k = bp->prod_off[q]; k < bp->prod_off[q + 1] && err == ACS_OK; k++)
          err = add_dep(pl, &cap, bp->prod[k], p, ACS__DEP_REUSE_END);
      }
    }
  }
  if (bp == &own)
    acs_bprog_destroy(&own);
  return err;
}

/*
 * The busy units, numbered densely in the order of the sorted keys (PEs,
 * then channels), and each one's working ops in planned order as CSR: the
 * list a unit's actor works through. Then every op's host: its dense unit,
 * or ctl. O(V), whatever pe_count is.
 */
static int plan_units(struct acs__sim_plan *pl, const struct unit_key *key, size_t nkey)
{
  int32_t u = -1;

  pl->uoff = malloc((nkey + 2) * sizeof(*pl->uoff));
  pl->uop = malloc((nkey + 1) * sizeof(*pl->uop));
  pl->unit_id = malloc((nkey + 1) * sizeof(*pl->unit_id));
  if (!pl->uoff || !pl->uop || !pl->unit_id)
    return ACS_ENOMEM;
  for (size_t k = 0; k < nkey; k++) {
    if (k == 0 || key[k].unit != key[k - 1].unit) {
      pl->unit_id[++u] = key[k].unit;
      pl->uoff[u] = (int32_t)k;
    }
    pl->uop[k] = key[k].id;
    pl->op[key[k].id].unit = u;
  }
  pl->nunits = u + 1;
  pl->uoff[pl->nunits] = (int32_t)nkey;
  for (int32_t i = 0; i < pl->n; i++)
    pl->op[i].host = pl->op[i].unit >= 0 ? pl->op[i].unit : ACS__HOST_CTL(pl);
  return ACS_OK;
}

/*
 * Dependencies: every schedule edge (none when a verified program implies
 * them, sim.h), then an implicit one from each op to the next on its unit
 * in planned order (start, ties by id), which is how the executor replays
 * the plan's order instead of re-deciding it. Ops
 * without work (zero duration, no bytes) occupy no unit, so they stay out
 * of the unit order: at one instant a verified plan may put such an op
 * before or after a working one whatever their ids, and ordering them by
 * id could contradict an edge and deadlock a valid plan. The barrier
 * program is the third source (barrier_deps). O(V log V + E) plus the
 * barrier dependencies.
 */
static int plan_deps(struct acs__sim_plan *pl)
{
  const struct acs_schedule *s = pl->s;
  struct unit_key *key = malloc(((size_t)pl->n + 1) * sizeof(*key));
  size_t nkey = 0;
  int err;

  pl->dep = malloc(((size_t)s->nedges + (size_t)pl->n + 1) * sizeof(*pl->dep));
  if (!key || !pl->dep) {
    free(key);
    return ACS_ENOMEM;
  }
  for (int32_t e = 0; e < s->nedges && !pl->edges_implied; e++)
    pl->dep[pl->ndeps++] = (struct acs__sim_dep){
        s->edges[e].src, s->edges[e].dst,
        s->edges[e].kind == ACS_EDGE_CONTROL ? ACS__DEP_CONTROL : ACS__DEP_DATA};
  for (int32_t i = 0; i < pl->n; i++) {
    const struct acs_sop *o = &s->ops[i];
    if (o->unit >= 0 && pl->op[i].act != ACS__ACT_NONE)
      key[nkey++] = (struct unit_key){o->kind == ACS_OP_DMA ? pl->npe + o->unit : o->unit,
                                      i, o->start};
  }
  qsort(key, nkey, sizeof(*key), cmp_unit_key);
  for (size_t k = 1; k < nkey; k++)
    if (key[k].unit == key[k - 1].unit)
      pl->dep[pl->ndeps++] = (struct acs__sim_dep){key[k - 1].id, key[k].id, ACS__DEP_UNIT};
  err = plan_units(pl, key, nkey);
  free(key);
  if (err < 0)
    return err;
  return acs_bprog_present(s) && (err = barrier_deps(pl)) < 0 ? err : ACS_OK;
}

/* Successors (CSR) over the dependencies of pl->dep released at the end
 * (start = 0) or at the start (start = 1) of their source. */
static int plan_csr(struct acs__sim_plan *pl, int start, int32_t **off_out, int32_t **idx_out)
{
  int32_t *off = calloc((size_t)pl->n + 1, sizeof(*off));
  int32_t *idx = malloc(((size_t)pl->ndeps + 1) * sizeof(*idx));
  int32_t *cur = malloc(((size_t)pl->n + 1) * sizeof(*cur));

  *off_out = off;
  *idx_out = idx;
  if (!off || !idx || !cur) {
    free(cur);
    return ACS_ENOMEM;
  }
  for (int32_t e = 0; e < pl->ndeps; e++)
    if ((pl->dep[e].kind == ACS__DEP_REUSE_START) == start)
      off[pl->dep[e].src + 1]++;
  for (int32_t v = 0; v < pl->n; v++)
    off[v + 1] += off[v];
  memcpy(cur, off, (size_t)pl->n * sizeof(*cur));
  for (int32_t e = 0; e < pl->ndeps; e++)
    if ((pl->dep[e].kind == ACS__DEP_REUSE_START) == start)
      idx[cur[pl->dep[e].src]++] = pl->dep[e].dst;
  free(cur);
  return ACS_OK;
}

/* Successor lists (CSR) and predecessor counts over pl->dep: those
 * released when their source ends, and (REUSE_START) when it starts.
 * O(V + E). */
static int plan_succ(struct acs__sim_plan *pl)
{
  int err;

  for (int32_t e = 0; e < pl->ndeps; e++)
    pl->op[pl->dep[e].dst].npred++;
  if ((err = plan_csr(pl, 0, &pl->succ_off, &pl->succ)) < 0)
    return err;
  return plan_csr(pl, 1, &pl->ssucc_off, &pl->ssucc);
}

static int is_pe_xfer(const struct acs__sim_op *o)
{
  return o->act == ACS__ACT_SEND && o->xfer == ACS__XFER_PE;
}

/*
 * The ends of each PE-to-PE transfer: the host of the PE its data
 * predecessor computed on, and of the PE its data successors compute on
 * (the verifier requires exactly one of each). Both compute there, so both
 * are busy units with hosts in the simulation. O(V + E).
 */
static int pe_transfer_ends(struct acs__sim_plan *pl, struct acs_diag *d)
{
  const struct acs_schedule *s = pl->s;

  for (int32_t e = 0; e < s->nedges; e++) {
    int32_t a = s->edges[e].src, b = s->edges[e].dst;
    if (s->edges[e].kind != ACS_EDGE_DATA)
      continue;
    if (is_pe_xfer(&pl->op[b]) && s->ops[a].kind != ACS_OP_DMA && pl->op[a].unit >= 0)
      pl->op[b].host = pl->op[a].unit;
    if (is_pe_xfer(&pl->op[a]) && s->ops[b].kind != ACS_OP_DMA && pl->op[b].unit >= 0)
      pl->op[a].peer = pl->op[b].unit;
  }
  for (int32_t i = 0; i < pl->n; i++) {
    const struct acs__sim_op *o = &pl->op[i];
    if (is_pe_xfer(o) && (o->host >= pl->nunits || o->peer < 0))
      return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                          "PE-to-PE transfer '%s' has no %s computing on a PE", s->ops[i].name,
                          o->host >= pl->nunits ? "producer" : "consumer");
  }
  return ACS_OK;
}

int acs__plan_build(struct acs__sim_plan *pl, const struct acs_platform *p,
                    const struct acs_schedule *s, const struct acs_bprog *bp, int implied,
                    struct acs_diag *d)
{
  int err;

  memset(pl, 0, sizeof(*pl));
  pl->s = s;
  pl->bp = bp;
  pl->edges_implied = bp && implied && acs_bprog_present(s);
  pl->n = s->nops;
  if (acs_platform_get(p, ACS_P_PE_COUNT) + acs_platform_get(p, ACS_P_DMA_CHANNELS) >
      ACS__SIM_MAX_UNITS)
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                        "platform '%s' has more PEs and DMA channels than a simulation can "
                        "number (%d)", p->name, (int)ACS__SIM_MAX_UNITS);
  pl->npe = (int32_t)acs_platform_get(p, ACS_P_PE_COUNT);
  pl->ndma = (int32_t)acs_platform_get(p, ACS_P_DMA_CHANNELS);
  pl->hz = acs_platform_get(p, ACS_P_FREQ_MHZ) * 1e6;
  if (!(pl->op = malloc(((size_t)pl->n + 1) * sizeof(*pl->op))))
    return ACS_ENOMEM;
  for (int32_t i = 0; i < pl->n; i++)
    if ((err = plan_op(pl, p, i, d)) < 0)
      goto out_with_plan;
  for (int32_t e = 0; e < s->nedges; e++)
    if (s->edges[e].src < 0 || s->edges[e].src >= pl->n || s->edges[e].dst < 0 ||
        s->edges[e].dst >= pl->n) {
      err = acs_diag_set(d, ACS_EINVAL, NULL, 0, 0, "edge %d refers to a missing op", (int)e);
      goto out_with_plan;
    }
  if ((err = plan_deps(pl)) < 0 || (err = pe_transfer_ends(pl, d)) < 0 ||
      (err = plan_succ(pl)) < 0)
    goto out_with_plan;
  return ACS_OK;

out_with_plan:
  acs__plan_free(pl);
  return err;
}

/* ---- the wire form ---- */

#define PLAN_MAGIC 0x61637370u

/* Counts first; the arrays follow in this order, each padded to 8 bytes:
 * op[n], succ_off[n + 1], succ[nsucc], ssucc_off[n + 1], ssucc[nssucc],
 * uoff[nunits + 1], uop[nuop], unit_id[nunits]. */
#define PLAN_PARTS 8
struct plan_head {
  uint32_t magic;
  int32_t n, npe, nunits, hook;
  int32_t nsucc, nssucc, nuop;
};

struct plan_part {
  void *p;            /* where the array is (encode) or goes (decode) */
  size_t count, size;
};

static size_t pad8(size_t x)
{
  return (x + 7) & ~(size_t)7;
}

static void plan_parts(const struct acs__sim_plan *pl, const struct plan_head *h,
                       struct plan_part part[PLAN_PARTS])
{
  size_t n = (size_t)h->n, units = (size_t)h->nunits;

  part[0] = (struct plan_part){pl->op, n, sizeof(*pl->op)};
  part[1] = (struct plan_part){pl->succ_off, n + 1, sizeof(int32_t)};
  part[2] = (struct plan_part){pl->succ, (size_t)h->nsucc, sizeof(int32_t)};
  part[3] = (struct plan_part){pl->ssucc_off, n + 1, sizeof(int32_t)};
  part[4] = (struct plan_part){pl->ssucc, (size_t)h->nssucc, sizeof(int32_t)};
  part[5] = (struct plan_part){pl->uoff, units + 1, sizeof(int32_t)};
  part[6] = (struct plan_part){pl->uop, (size_t)h->nuop, sizeof(int32_t)};
  part[7] = (struct plan_part){pl->unit_id, units, sizeof(int32_t)};
}

int acs__plan_encode(const struct acs__sim_plan *pl, void **out, size_t *len)
{
  struct plan_head h = {PLAN_MAGIC, pl->n, pl->npe, pl->nunits, pl->hook,
                        pl->succ_off[pl->n], pl->ssucc_off[pl->n], pl->uoff[pl->nunits]};
  struct plan_part part[PLAN_PARTS];
  size_t total = pad8(sizeof(h)), off;
  char *buf;

  plan_parts(pl, &h, part);
  for (int k = 0; k < PLAN_PARTS; k++)
    total += pad8(part[k].count * part[k].size);
  if (!(buf = calloc(1, total)))
    return ACS_ENOMEM;
  memcpy(buf, &h, sizeof(h));
  off = pad8(sizeof(h));
  for (int k = 0; k < PLAN_PARTS; k++) {
    memcpy(buf + off, part[k].p, part[k].count * part[k].size);
    off += pad8(part[k].count * part[k].size);
  }
  *out = buf;
  *len = total;
  return ACS_OK;
}

/* Every CSR is monotone and ends at its length, and every index it holds
 * is an op. O(V + E). */
static int csr_ok(const int32_t *off, int32_t rows, const int32_t *idx, int32_t n)
{
  if (off[0] != 0)
    return 0;
  for (int32_t r = 0; r < rows; r++)
    if (off[r + 1] < off[r])
      return 0;
  for (int32_t k = 0; k < off[rows]; k++)
    if (idx[k] < 0 || idx[k] >= n)
      return 0;
  return 1;
}

/* Ops refer to hosts and units that exist; units are named by indices
 * that fit. */
static int ops_ok(const struct acs__sim_plan *pl)
{
  for (int32_t i = 0; i < pl->n; i++) {
    const struct acs__sim_op *o = &pl->op[i];
    if (o->host < 0 || o->host > ACS__HOST_CTL(pl) || o->unit < -1 || o->unit >= pl->nunits ||
        o->act > ACS__ACT_SEND || o->xfer > ACS__XFER_PE)
      return 0;
    if (is_pe_xfer(o) && (o->host >= pl->nunits || o->peer < 0 || o->peer >= pl->nunits))
      return 0;
  }
  for (int32_t u = 0; u < pl->nunits; u++)
    if (pl->unit_id[u] < 0 || pl->unit_id[u] > ACS__SIM_MAX_UNITS)
      return 0;
  return 1;
}

int acs__plan_decode(struct acs__sim_plan *pl, void *buf, size_t len)
{
  struct plan_head h;
  struct plan_part part[PLAN_PARTS];
  size_t off = pad8(sizeof(h));
  void **dst[PLAN_PARTS];

  memset(pl, 0, sizeof(*pl));
  if (len < sizeof(h))
    return -1;
  memcpy(&h, buf, sizeof(h));
  if (h.magic != PLAN_MAGIC || h.n < 0 || h.npe < 1 || h.npe > ACS__SIM_MAX_UNITS ||
      h.nunits < 0 || h.nunits > h.n || h.nsucc < 0 || h.nssucc < 0 || h.nuop < 0)
    return -1;
  plan_parts(pl, &h, part);
  dst[0] = (void **)&pl->op, dst[1] = (void **)&pl->succ_off, dst[2] = (void **)&pl->succ;
  dst[3] = (void **)&pl->ssucc_off, dst[4] = (void **)&pl->ssucc;
  dst[5] = (void **)&pl->uoff, dst[6] = (void **)&pl->uop, dst[7] = (void **)&pl->unit_id;
  for (int k = 0; k < PLAN_PARTS; k++) {
    size_t bytes = part[k].count * part[k].size;
    if (off > len || pad8(bytes) > len - off)
      return -1;
    *dst[k] = (char *)buf + off;
    off += pad8(bytes);
  }
  pl->n = h.n, pl->npe = h.npe, pl->nunits = h.nunits, pl->hook = h.hook;
  if (off != len || pl->succ_off[h.n] != h.nsucc || pl->ssucc_off[h.n] != h.nssucc ||
      pl->uoff[h.nunits] != h.nuop || !ops_ok(pl) ||
      !csr_ok(pl->succ_off, h.n, pl->succ, h.n) || !csr_ok(pl->ssucc_off, h.n, pl->ssucc, h.n) ||
      !csr_ok(pl->uoff, h.nunits, pl->uop, h.n))
    return -1;
  return 0;
}
