/*
 * check.c - the independent checker of SDF plans (see acs_gang_check_plan in
 * gang.h). It re-derives everything from the graph and the platform: the
 * durations of firings, transfers and loads, which tokens each firing reads
 * (its window [release(k - 1), need(k))) and writes, and where each token is
 * at every moment. It shares no code with the schedulers beyond the graph's
 * token arithmetic (core/model/sdf.c).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gang.h"

#define FAIL(d, ...) acs_diag_set((d), ACS_EVERIFY, NULL, 0, 0, __VA_ARGS__)

struct ck {
  const struct acs_sdf_graph *g;
  const struct acs_gang_plat *xp;
  const struct acs_gang_plan *pl;
  struct acs_diag *d;
  int32_t *bidx;         /* buffers sorted by (chan, j, pe, alloc) */
  int32_t *oidx;         /* DDR writes sorted by (chan, j, end) */
  int32_t nout;
};

static const char *act_name(const struct ck *c, const struct acs_gang_act *a, char *buf, size_t n)
{
  if (a->kind == ACS_GANG_FIRE)
    snprintf(buf, n, "firing %s#%lld on PE %d", c->g->actors[a->actor].name, (long long)a->k,
             (int)a->unit);
  else if (a->kind == ACS_GANG_LOAD)
    snprintf(buf, n, "load of '%s' into PE %d", c->g->actors[a->actor].name, (int)a->pe);
  else
    snprintf(buf, n, "transfer of token %lld of '%s' (%s)", (long long)a->k,
             c->g->channels[a->chan].name,
             a->xk == ACS_GANG_X_LOCAL ? "PE to PE"
             : a->xk == ACS_GANG_X_IN  ? "DDR to PE"
                                       : "PE to DDR");
  return buf;
}

/* ---- durations, units, each firing once ---- */

static int64_t expected_dur(const struct ck *c, const struct acs_gang_act *a)
{
  const struct acs_platform *p = c->xp->p;

  if (a->kind == ACS_GANG_FIRE)
    return acs_sdf_exec(c->g, a->actor, a->k);
  if (a->kind == ACS_GANG_LOAD)
    return acs_platform_ddr_cycles(p, c->g->actors[a->actor].kernel_bytes);
  if (a->xk == ACS_GANG_X_LOCAL)
    return acs_platform_cmx_cycles(p, c->g->channels[a->chan].token_bytes);
  return acs_platform_ddr_cycles(p, c->g->channels[a->chan].token_bytes);
}

static int check_acts(struct ck *c)
{
  const struct acs_sdf_graph *g = c->g;
  char *seen = calloc((size_t)g->total_firings + 1, 1), nm[300];
  int err = ACS_OK;

  if (!seen)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < c->pl->nacts && err == ACS_OK; i++) {
    const struct acs_gang_act *a = &c->pl->acts[i];
    int32_t units = a->kind == ACS_GANG_FIRE ? c->xp->npe : c->xp->ndma;
    if (a->start < 0 || a->end - a->start != expected_dur(c, a))
      err = FAIL(c->d, "%s runs [%lld, %lld) but takes %lld cycles", act_name(c, a, nm, sizeof(nm)),
                 (long long)a->start, (long long)a->end, (long long)expected_dur(c, a));
    else if (a->unit < 0 || a->unit >= units)
      err = FAIL(c->d, "%s is on unit %d, outside [0, %d)", act_name(c, a, nm, sizeof(nm)),
                 (int)a->unit, (int)units);
    else if (a->kind == ACS_GANG_FIRE) {
      if (a->actor < 0 || a->actor >= g->nactors || a->k < 0 || a->k >= g->actors[a->actor].total)
        err = FAIL(c->d, "a firing of actor %d index %lld is not part of the run", (int)a->actor,
                   (long long)a->k);
      else if (seen[g->base[a->actor] + a->k]++)
        err = FAIL(c->d, "%s is scheduled twice", act_name(c, a, nm, sizeof(nm)));
    } else if ((a->kind == ACS_GANG_LOAD && (a->pe < 0 || a->pe >= c->xp->npe)) ||
               (a->kind == ACS_GANG_XFER &&
                ((a->xk != ACS_GANG_X_IN && (a->pe_from < 0 || a->pe_from >= c->xp->npe)) ||
                 (a->xk != ACS_GANG_X_OUT && (a->pe < 0 || a->pe >= c->xp->npe))))) {
      err = FAIL(c->d, "%s names a PE outside [0, %d)", act_name(c, a, nm, sizeof(nm)),
                 (int)c->xp->npe);
    }
  }
  for (int32_t a = 0; a < g->nactors && err == ACS_OK; a++)
    for (int64_t k = 0; k < g->actors[a].total; k++)
      if (!seen[g->base[a] + k]) {
        err = FAIL(c->d, "firing %s#%lld is never scheduled", g->actors[a].name, (long long)k);
        break;
      }
  free(seen);
  return err;
}

/* ---- exclusive use of PEs, DMA channels and the DDR link (eq. 3.6) ---- */

struct iv {
  int64_t key, start, end;
  int32_t act;
};

static int cmp_iv(const void *x, const void *y)
{
  const struct iv *a = x, *b = y;

  if (a->key != b->key)
    return a->key < b->key ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->act > b->act) - (a->act < b->act);
}

static int check_exclusive(struct ck *c)
{
  const struct acs_gang_plan *pl = c->pl;
  struct iv *v = malloc(((size_t)pl->nacts * 2 + 1) * sizeof(*v));
  size_t n = 0;
  char n1[300], n2[300];
  int err = ACS_OK;

  if (!v)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < pl->nacts; i++) {
    const struct acs_gang_act *a = &pl->acts[i];
    if (a->end == a->start)
      continue;
    /* keys: PE p -> p; DMA channel k -> npe + k */
    v[n++] =
        (struct iv){a->kind == ACS_GANG_FIRE ? a->unit : c->xp->npe + a->unit, a->start, a->end, i};
  }
  qsort(v, n, sizeof(*v), cmp_iv);
  for (size_t k = 1; k < n && err == ACS_OK; k++)
    if (v[k].key == v[k - 1].key && v[k].start < v[k - 1].end)
      err = FAIL(c->d, "%s [%lld, %lld) and %s [%lld, %lld) overlap on %s",
                 act_name(c, &pl->acts[v[k - 1].act], n1, sizeof(n1)), (long long)v[k - 1].start,
                 (long long)v[k - 1].end, act_name(c, &pl->acts[v[k].act], n2, sizeof(n2)),
                 (long long)v[k].start, (long long)v[k].end,
                 v[k].key < c->xp->npe ? "a PE" : "a DMA channel");
  free(v);
  return err;
}

/* The DDR link carries at most acs_ddrlink_lanes() DDR transfers and kernel
 * loads at once (one unless DDR is faster than a DMA engine): more would
 * slow each other down, which no plan's durations allow for. */
static int check_link(struct ck *c)
{
  const struct acs_gang_plan *pl = c->pl;
  int64_t lanes = acs_ddrlink_lanes(c->xp->p), use = 0;
  struct iv *ev = malloc(((size_t)pl->nacts * 2 + 1) * sizeof(*ev));
  size_t n = 0;
  char nm[300];
  int err = ACS_OK;

  if (!ev)
    return ACS_ENOMEM;
  /* Events by time, ends (key 0) before starts (key 1) at one instant. */
  for (int32_t i = 0; i < pl->nacts; i++) {
    const struct acs_gang_act *a = &pl->acts[i];
    if (a->end > a->start &&
        (a->kind == ACS_GANG_LOAD || (a->kind == ACS_GANG_XFER && a->xk != ACS_GANG_X_LOCAL))) {
      ev[n++] = (struct iv){ a->end, 0, 0, i };
      ev[n++] = (struct iv){ a->start, 1, 0, i };
    }
  }
  qsort(ev, n, sizeof(*ev), cmp_iv);
  for (size_t k = 0; k < n && err == ACS_OK; k++)
    if ((use += ev[k].start ? 1 : -1) > lanes)
      err = FAIL(c->d, "at cycle %lld %s makes %lld transfers on the DDR link, which carries %lld "
                 "at once", (long long)ev[k].key, act_name(c, &pl->acts[ev[k].act], nm, sizeof(nm)),
                 (long long)use, (long long)lanes);
  free(ev);
  return err;
}

/* ---- memories at every instant ---- */

struct mev {
  int64_t t, delta;
  int32_t pe;
};

static int cmp_mev(const void *x, const void *y)
{
  const struct mev *a = x, *b = y;

  if (a->pe != b->pe)
    return a->pe < b->pe ? -1 : 1;
  if (a->t != b->t)
    return a->t < b->t ? -1 : 1;
  return (a->delta > b->delta) - (a->delta < b->delta);   /* frees first */
}

/* Peak per PE of intervals; fails when one exceeds cap. */
static int sweep(struct ck *c, struct mev *ev, size_t n, int64_t cap, const char *what)
{
  int64_t use = 0;
  int32_t pe = -1;

  qsort(ev, n, sizeof(*ev), cmp_mev);
  for (size_t k = 0; k < n; k++) {
    if (ev[k].pe != pe) {
      pe = ev[k].pe;
      use = 0;
    }
    use += ev[k].delta;
    if (use > cap)
      return FAIL(c->d, "at cycle %lld the %s of PE %d holds %lld bytes, more than its %lld",
                  (long long)ev[k].t, what, (int)pe, (long long)use, (long long)cap);
  }
  return ACS_OK;
}

static int check_vmem(struct ck *c)
{
  const struct acs_gang_plan *pl = c->pl;
  struct mev *ev = malloc(((size_t)pl->nbufs * 2 + 1) * sizeof(*ev));
  size_t n = 0;
  int err;

  if (!ev)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < pl->nbufs; i++) {
    const struct acs_gang_buf *b = &pl->bufs[i];
    const struct acs_sdf_channel *cc = &c->g->channels[b->chan];
    if (b->pe < 0 || b->pe >= c->xp->npe || b->offset < 0 || b->offset + b->bytes > c->xp->vmem ||
        b->bytes < cc->token_bytes || b->alloc > b->ready || b->ready > b->free) {
      free(ev);
      return FAIL(c->d, "buffer of token %lld of '%s' on PE %d ([%lld, +%lld) over [%lld, %lld), "
                  "ready %lld) is malformed or outside the PE's %lld bytes of VMEM",
                  (long long)b->j, cc->name, (int)b->pe, (long long)b->offset,
                  (long long)b->bytes, (long long)b->alloc, (long long)b->free,
                  (long long)b->ready, (long long)c->xp->vmem);
    }
    if (b->free > b->alloc) {
      ev[n++] = (struct mev){ b->alloc, b->bytes, b->pe };
      ev[n++] = (struct mev){ b->free, -b->bytes, b->pe };
    }
  }
  err = sweep(c, ev, n, c->xp->vmem, "VMEM");
  free(ev);
  return err;
}

static int check_pmem(struct ck *c)
{
  const struct acs_gang_plan *pl = c->pl;
  struct mev *ev = malloc(((size_t)pl->nacts * 2 + 1) * sizeof(*ev));
  size_t n = 0;
  int err;

  if (!ev)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < pl->nacts; i++) {
    const struct acs_gang_act *a = &pl->acts[i];
    int64_t until = a->evict < 0 ? pl->makespan : a->evict;
    if (a->kind != ACS_GANG_LOAD)
      continue;
    if (until < a->end) {
      free(ev);
      return FAIL(c->d, "the kernel of '%s' leaves PE %d at %lld before its load ends at %lld",
                  c->g->actors[a->actor].name, (int)a->pe, (long long)until, (long long)a->end);
    }
    ev[n++] = (struct mev){ a->start, c->g->actors[a->actor].kernel_bytes, a->pe };
    ev[n++] = (struct mev){ until, -c->g->actors[a->actor].kernel_bytes, a->pe };
  }
  err = sweep(c, ev, n, c->xp->pmem, "program memory");
  free(ev);
  return err;
}

/* Every firing runs a kernel loaded on its PE (eq. 3.8). */
static int check_loaded(struct ck *c)
{
  const struct acs_gang_plan *pl = c->pl;
  int32_t *ld = malloc(((size_t)pl->nacts + 1) * sizeof(int32_t)), nl = 0;
  char nm[300];
  int err = ACS_OK;

  if (!ld)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < pl->nacts; i++)
    if (pl->acts[i].kind == ACS_GANG_LOAD)
      ld[nl++] = i;
  for (int32_t i = 0; i < pl->nacts && err == ACS_OK; i++) {
    const struct acs_gang_act *a = &pl->acts[i];
    int ok = 0;
    if (a->kind != ACS_GANG_FIRE)
      continue;
    for (int32_t k = 0; k < nl && !ok; k++) {
      const struct acs_gang_act *l = &pl->acts[ld[k]];
      ok = l->actor == a->actor && l->pe == a->unit && l->end <= a->start &&
           (l->evict < 0 || l->evict >= a->end);
    }
    if (!ok)
      err = FAIL(c->d, "%s runs at %lld without its kernel loaded on that PE",
                 act_name(c, a, nm, sizeof(nm)), (long long)a->start);
  }
  free(ld);
  return err;
}

/* ---- tokens: where each one is ---- */

static const struct acs_gang_plan *sort_pl;

static int cmp_buf(const void *x, const void *y)
{
  const struct acs_gang_buf *a = &sort_pl->bufs[*(const int32_t *)x],
                            *b = &sort_pl->bufs[*(const int32_t *)y];

  if (a->chan != b->chan)
    return a->chan < b->chan ? -1 : 1;
  if (a->j != b->j)
    return a->j < b->j ? -1 : 1;
  if (a->pe != b->pe)
    return a->pe < b->pe ? -1 : 1;
  return (a->alloc > b->alloc) - (a->alloc < b->alloc);
}

static int cmp_out(const void *x, const void *y)
{
  const struct acs_gang_act *a = &sort_pl->acts[*(const int32_t *)x],
                            *b = &sort_pl->acts[*(const int32_t *)y];

  if (a->chan != b->chan)
    return a->chan < b->chan ? -1 : 1;
  if (a->k != b->k)
    return a->k < b->k ? -1 : 1;
  return (a->end > b->end) - (a->end < b->end);
}

/* First index in bidx of token (c, j). */
static int32_t buf_first(const struct ck *c, int32_t ch, int64_t j)
{
  int32_t lo = 0, hi = c->pl->nbufs;

  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    const struct acs_gang_buf *b = &c->pl->bufs[c->bidx[mid]];
    if (b->chan < ch || (b->chan == ch && b->j < j))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* A buffer of (ch, j) on pe that is ready by `from` and held until `to`. */
static int resident(const struct ck *c, int32_t ch, int64_t j, int32_t pe, int64_t from, int64_t to)
{
  for (int32_t i = buf_first(c, ch, j); i < c->pl->nbufs; i++) {
    const struct acs_gang_buf *b = &c->pl->bufs[c->bidx[i]];
    if (b->chan != ch || b->j != j)
      break;
    if (b->pe == pe && b->ready <= from && b->free >= to)
      return 1;
  }
  return 0;
}

/* A buffer of (ch, j) on pe written by act w. */
static int written(const struct ck *c, int32_t ch, int64_t j, int32_t pe, int32_t w)
{
  for (int32_t i = buf_first(c, ch, j); i < c->pl->nbufs; i++) {
    const struct acs_gang_buf *b = &c->pl->bufs[c->bidx[i]];
    if (b->chan != ch || b->j != j)
      break;
    if (b->pe == pe && b->writer == w)
      return 1;
  }
  return 0;
}

/* Token j of ch is in DDR by time t: a graph input, an initial token, or
 * written out earlier. */
static int in_ddr(const struct ck *c, int32_t ch, int64_t j, int64_t t)
{
  int32_t lo = 0, hi = c->nout;

  if (c->g->channels[ch].src < 0 || j < c->g->channels[ch].d0)
    return 1;
  while (lo < hi) {
    int32_t mid = (lo + hi) / 2;
    const struct acs_gang_act *a = &c->pl->acts[c->oidx[mid]];
    if (a->chan < ch || (a->chan == ch && a->k < j))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < c->nout && c->pl->acts[c->oidx[lo]].chan == ch &&
         c->pl->acts[c->oidx[lo]].k == j && c->pl->acts[c->oidx[lo]].end <= t;
}

static int check_firing(struct ck *c, int32_t i)
{
  const struct acs_sdf_graph *g = c->g;
  const struct acs_gang_act *a = &c->pl->acts[i];
  char nm[300];

  for (int32_t k = g->in_off[a->actor]; k < g->in_off[a->actor + 1]; k++) {
    int32_t ch = g->in_ch[k];
    for (int64_t j = acs_sdf_release(g, ch, a->k - 1); j < acs_sdf_need(g, ch, a->k); j++)
      if (!resident(c, ch, j, a->unit, a->start, a->end))
        return FAIL(c->d, "%s [%lld, %lld) reads token %lld of '%s', which is not in that PE's "
                    "VMEM from before its start until its end", act_name(c, a, nm, sizeof(nm)),
                    (long long)a->start, (long long)a->end, (long long)j, g->channels[ch].name);
  }
  for (int32_t k = g->out_off[a->actor]; k < g->out_off[a->actor + 1]; k++) {
    int32_t ch = g->out_ch[k];
    for (int64_t j = acs_sdf_avail(g, ch, a->k); j < acs_sdf_avail(g, ch, a->k + 1); j++)
      if (!written(c, ch, j, a->unit, i))
        return FAIL(c->d, "%s produces token %lld of '%s' but no buffer of its PE receives it",
                    act_name(c, a, nm, sizeof(nm)), (long long)j, g->channels[ch].name);
  }
  return ACS_OK;
}

static int check_transfer(struct ck *c, int32_t i)
{
  const struct acs_gang_act *a = &c->pl->acts[i];
  char nm[300];

  if (a->xk != ACS_GANG_X_IN && !resident(c, a->chan, a->k, a->pe_from, a->start, a->end))
    return FAIL(c->d, "%s [%lld, %lld) reads a token that is not in the source PE's VMEM "
                "throughout", act_name(c, a, nm, sizeof(nm)), (long long)a->start, (long long)a->end);
  if (a->xk == ACS_GANG_X_IN && !in_ddr(c, a->chan, a->k, a->start))
    return FAIL(c->d, "%s starts at %lld before the token is in DDR",
                act_name(c, a, nm, sizeof(nm)), (long long)a->start);
  if (a->xk != ACS_GANG_X_OUT && !written(c, a->chan, a->k, a->pe, i))
    return FAIL(c->d, "%s delivers to no buffer of PE %d", act_name(c, a, nm, sizeof(nm)),
                (int)a->pe);
  return ACS_OK;
}

/* Buffers: written by an activity that makes the token (or an initial
 * token), and each graph output token reaches DDR. */
static int check_writers(struct ck *c)
{
  const struct acs_sdf_graph *g = c->g;

  for (int32_t i = 0; i < c->pl->nbufs; i++) {
    const struct acs_gang_buf *b = &c->pl->bufs[i];
    const struct acs_gang_act *w;
    int ok;
    if (b->writer < 0) {
      if (b->j >= g->channels[b->chan].d0)
        return FAIL(c->d, "token %lld of '%s' appears in PE %d's VMEM without being written",
                    (long long)b->j, g->channels[b->chan].name, (int)b->pe);
      continue;
    }
    if (b->writer >= c->pl->nacts)
      return FAIL(c->d, "buffer of token %lld of '%s' names activity %d, which does not exist",
                  (long long)b->j, g->channels[b->chan].name, (int)b->writer);
    w = &c->pl->acts[b->writer];
    ok = w->kind == ACS_GANG_FIRE
             ? w->actor == g->channels[b->chan].src && w->unit == b->pe &&
                   acs_sdf_producer(g, b->chan, b->j) == w->k
             : w->kind == ACS_GANG_XFER && w->chan == b->chan && w->k == b->j && w->pe == b->pe;
    if (!ok || b->alloc > w->start || b->ready != w->end)
      return FAIL(c->d, "buffer of token %lld of '%s' on PE %d is not written by the activity it "
                  "names, or not over [its start, its end]", (long long)b->j,
                  g->channels[b->chan].name, (int)b->pe);
  }
  for (int32_t ch = 0; ch < g->nchannels; ch++) {
    const struct acs_sdf_channel *cc = &g->channels[ch];
    if (cc->dst >= 0 || cc->src < 0)
      continue;
    for (int64_t j = cc->d0; j < cc->d0 + cc->produced; j++)
      if (!in_ddr(c, ch, j, c->pl->makespan))
        return FAIL(c->d, "output token %lld of '%s' is never written to DDR", (long long)j,
                    cc->name);
  }
  return ACS_OK;
}

static int check_tokens(struct ck *c)
{
  const struct acs_gang_plan *pl = c->pl;
  int err = ACS_OK;

  c->bidx = malloc(((size_t)pl->nbufs + 1) * sizeof(int32_t));
  c->oidx = malloc(((size_t)pl->nacts + 1) * sizeof(int32_t));
  if (!c->bidx || !c->oidx)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < pl->nbufs; i++)
    c->bidx[i] = i;
  for (int32_t i = 0; i < pl->nacts; i++)
    if (pl->acts[i].kind == ACS_GANG_XFER && pl->acts[i].xk == ACS_GANG_X_OUT)
      c->oidx[c->nout++] = i;
  sort_pl = pl;
  qsort(c->bidx, (size_t)pl->nbufs, sizeof(int32_t), cmp_buf);
  qsort(c->oidx, (size_t)c->nout, sizeof(int32_t), cmp_out);
  for (int32_t i = 0; i < pl->nacts && err == ACS_OK; i++) {
    if (pl->acts[i].kind == ACS_GANG_FIRE)
      err = check_firing(c, i);
    else if (pl->acts[i].kind == ACS_GANG_XFER)
      err = check_transfer(c, i);
  }
  if (err == ACS_OK)
    err = check_writers(c);
  return err;
}

/* ---- pipeline classes ---- */

/* Whether actor `to` is reachable from `from` along channels (DFS). */
static int reaches(const struct acs_sdf_graph *g, int32_t from, int32_t to, char *seen,
                   int32_t *stack)
{
  int32_t top = 0;

  memset(seen, 0, (size_t)g->nactors);
  stack[top++] = from;
  seen[from] = 1;
  while (top > 0) {
    int32_t a = stack[--top];
    if (a == to)
      return 1;
    for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
      int32_t b = g->channels[g->out_ch[i]].dst;
      if (b >= 0 && !seen[b]) {
        seen[b] = 1;
        stack[top++] = b;
      }
    }
  }
  return 0;
}

/*
 * Seed 004, section 5.2.2: the output of an input- or none-class kernel is
 * complete only after its last firing, and a none-class kernel reads
 * complete inputs only. So along a channel a -> b that holds either, b's
 * first firing starts after a's last firing ends, unless a and b lie on a
 * cycle (which runs as one gang). O(A + F + C (A + C)).
 */
static int check_pipeline(struct ck *c)
{
  const struct acs_sdf_graph *g = c->g;
  int64_t *first = malloc(((size_t)g->nactors + 1) * sizeof(int64_t));
  int64_t *last = malloc(((size_t)g->nactors + 1) * sizeof(int64_t));
  int32_t *stack = malloc(((size_t)g->nactors + 1) * sizeof(int32_t));
  char *seen = malloc((size_t)g->nactors + 1);
  int err = ACS_OK;

  if (!first || !last || !stack || !seen) {
    err = ACS_ENOMEM;
    goto out_with_arrays;
  }
  for (int32_t a = 0; a < g->nactors; a++) {
    first[a] = INT64_MAX;
    last[a] = INT64_MIN;
  }
  for (int32_t i = 0; i < c->pl->nacts; i++) {
    const struct acs_gang_act *x = &c->pl->acts[i];
    if (x->kind != ACS_GANG_FIRE)
      continue;
    if (x->start < first[x->actor])
      first[x->actor] = x->start;
    if (x->end > last[x->actor])
      last[x->actor] = x->end;
  }
  for (int32_t ch = 0; ch < g->nchannels && err == ACS_OK; ch++) {
    int32_t a = g->channels[ch].src, b = g->channels[ch].dst;
    if (a < 0 || b < 0 || a == b ||
        (g->actors[a].pipe == ACS_SDF_PIPE_FULL && g->actors[b].pipe != ACS_SDF_PIPE_NONE) ||
        first[b] >= last[a] || reaches(g, b, a, seen, stack))
      continue;
    err = FAIL(c->d, "'%s'%s fires at %lld before '%s'%s has ended (at %lld): channel '%s' is "
               "complete only then", g->actors[b].name,
               g->actors[b].pipe == ACS_SDF_PIPE_NONE ? " (pipeline=none)" : "",
               (long long)first[b], g->actors[a].name,
               g->actors[a].pipe == ACS_SDF_PIPE_FULL ? ""
               : g->actors[a].pipe == ACS_SDF_PIPE_INPUT ? " (pipeline=input)" : " (pipeline=none)",
               (long long)last[a], g->channels[ch].name);
  }
out_with_arrays:
  free(first);
  free(last);
  free(stack);
  free(seen);
  return err;
}

int acs_gang_check_plan(const struct acs_sdf_graph *g, const struct acs_gang_plat *xp,
                        const struct acs_gang_plan *pl, struct acs_diag *d)
{
  struct ck c = { g, xp, pl, d, NULL, NULL, 0 };
  int err;

  if ((err = check_acts(&c)) < 0 || (err = check_exclusive(&c)) < 0 || (err = check_link(&c)) < 0 ||
      (err = check_vmem(&c)) < 0 || (err = check_pmem(&c)) < 0 ||
      (err = check_loaded(&c)) < 0 || (err = check_pipeline(&c)) < 0 ||
      (err = check_tokens(&c)) < 0)
    goto out;
out:
  free(c.bidx);
  free(c.oidx);
  return err;
}
