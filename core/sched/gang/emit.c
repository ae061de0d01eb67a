/*
 * emit.c - the plan (every activity and buffer of a run), and a scheduled
 * gang written into it: kernel loads, preamble, L copies of the loop body
 * shifted by the period, postamble; then every token's residency in the
 * VMEM slots of its edge (ring buffers: token j of an edge with c slots sits
 * in slot j mod c, which never collides because at most c are held at once).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/gang/gsched.h"

void acs_gang_plan_init(struct acs_gang_plan *pl)
{
  memset(pl, 0, sizeof(*pl));
}

void acs_gang_plan_free(struct acs_gang_plan *pl)
{
  free(pl->acts);
  free(pl->bufs);
  memset(pl, 0, sizeof(*pl));
}

int32_t acs_gang_plan_add_act(struct acs_gang_plan *pl, const struct acs_gang_act *a)
{
  int err;

  if (pl->nacts == INT32_MAX)
    return ACS_ENOMEM;
  if ((err = acs_grow((void **)&pl->acts, sizeof(*pl->acts), &pl->cap_acts,
                      (size_t)pl->nacts + 1)) < 0)
    return err;
  pl->acts[pl->nacts] = *a;
  if (a->end > pl->makespan)
    pl->makespan = a->end;
  return pl->nacts++;
}

int acs_gang_plan_add_buf(struct acs_gang_plan *pl, const struct acs_gang_buf *b)
{
  int err;

  if (pl->nbufs == INT32_MAX)
    return ACS_ENOMEM;
  if ((err = acs_grow((void **)&pl->bufs, sizeof(*pl->bufs), &pl->cap_bufs,
                      (size_t)pl->nbufs + 1)) < 0)
    return err;
  pl->bufs[pl->nbufs++] = *b;
  return ACS_OK;
}

/* Activity ids of every firing of every node, indexed off[v] + k - f0. */
struct emit {
  const struct acs_gang_ctx *c;
  const struct acs_gang *gg;
  struct acs_gang_plan *pl;
  int32_t gang;
  int64_t *off;
  int32_t *act;
};

static struct acs_gang_act firing_act(const struct emit *em, int32_t v, int64_t k, int64_t start)
{
  const struct acs_gang_node *n = &em->gg->nodes[v];
  struct acs_gang_act a;

  memset(&a, 0, sizeof(a));
  a.start = start;
  a.end = start + acs_gang_node_dur(em->c, n, k);
  a.k = k;
  a.gang = em->gang;
  a.evict = -1;
  if (n->kind == ACS_GANG_N_PROC) {
    a.kind = ACS_GANG_FIRE;
    a.actor = n->actor;
    a.chan = -1;
    a.unit = n->hw;
    a.pe = a.pe_from = n->hw;
  } else {
    a.kind = ACS_GANG_XFER;
    a.xk = n->kind == ACS_GANG_N_XLOCAL ? ACS_GANG_X_LOCAL
           : n->kind == ACS_GANG_N_XIN  ? ACS_GANG_X_IN
                                        : ACS_GANG_X_OUT;
    a.actor = -1;
    a.chan = n->chan;
    a.unit = n->hw;
    a.pe = n->pe_to;
    a.pe_from = n->pe_from;
    a.bytes = n->bytes;
  }
  return a;
}

/* Adds the firings of a finished segment run at offset t0 (+ shift). */
static int add_segment(struct emit *em, const struct acs_gang_run *run, int64_t t0)
{
  for (int32_t v = 0; v < em->gg->nnodes; v++)
    for (int64_t k = run->from[v]; k < run->to[v]; k++) {
      struct acs_gang_act a =
          firing_act(em, v, k, t0 + run->t_start[run->off[v] + k - run->from[v]]);
      int32_t id = acs_gang_plan_add_act(em->pl, &a);
      if (id < 0)
        return id;
      em->act[em->off[v] + k - em->gg->nodes[v].f0] = id;
    }
  return ACS_OK;
}

static int add_loads(struct emit *em, int64_t t0, int64_t *t)
{
  const struct acs_sdf_graph *g = em->c->g;

  *t = t0;
  for (int32_t v = 0; v < em->gg->nnodes; v++) {
    const struct acs_gang_node *n = &em->gg->nodes[v];
    struct acs_gang_act a;
    int32_t id;
    if (n->kind != ACS_GANG_N_PROC)
      continue;
    memset(&a, 0, sizeof(a));
    a.kind = ACS_GANG_LOAD;
    a.actor = n->actor;
    a.chan = -1;
    a.unit = 0;
    a.pe = a.pe_from = n->hw;
    a.bytes = g->actors[n->actor].kernel_bytes;
    a.start = *t;
    a.end = *t + acs_platform_ddr_cycles(em->c->xp.p, a.bytes);
    a.gang = em->gang;
    a.evict = -1;
    if ((id = acs_gang_plan_add_act(em->pl, &a)) < 0)
      return id;
    *t = a.end;
  }
  return ACS_OK;
}

/* The destination firing that releases token j of edge e, searched forward
 * from *k (tokens are released in order); -1 when it is never released. */
static int64_t releaser(const struct emit *em, const struct acs_gang_edge *e, int64_t j, int64_t *k)
{
  const struct acs_gang_node *d = &em->gg->nodes[e->dst];

  if (d->kind != ACS_GANG_N_PROC)
    return j >= d->f0 && j < d->f0 + d->T ? j : -1;
  while (*k < d->f0 + d->T && acs_gang_e_release(em->c, em->gg, e, *k) <= j)
    (*k)++;
  return *k < d->f0 + d->T ? *k : -1;
}

static int add_edge_buffers(struct emit *em, const struct acs_gang_edge *e, int64_t t0,
                            int64_t t_end)
{
  const struct acs_gang *gg = em->gg;
  const struct acs_gang_node *s = &gg->nodes[e->src], *d = &gg->nodes[e->dst];
  int64_t first = acs_gang_e_arrived(em->c, gg, e, s->f0),
          last = acs_gang_e_arrived(em->c, gg, e, s->f0 + s->T);
  int64_t kr = d->f0;
  int err;

  for (int64_t j = e->base; j < last; j++) {
    struct acs_gang_buf b;
    int64_t f, k;
    memset(&b, 0, sizeof(b));
    b.chan = e->chan;
    b.j = j;
    b.pe = e->pe;
    b.bytes = e->slot;
    b.offset = e->offset + (j % e->cap) * e->slot;
    if (j < first) {
      b.writer = -1;
      b.alloc = b.ready = t0;
    } else {
      f = s->kind == ACS_GANG_N_PROC ? acs_sdf_producer(em->c->g, e->chan, j) : j;
      b.writer = em->act[em->off[e->src] + f - s->f0];
      b.alloc = em->pl->acts[b.writer].start;
      b.ready = em->pl->acts[b.writer].end;
    }
    k = releaser(em, e, j, &kr);
    b.free = k >= 0 ? em->pl->acts[em->act[em->off[e->dst] + k - d->f0]].end : t_end;
    if (b.free < b.ready)
      b.free = b.ready;
    if ((err = acs_gang_plan_add_buf(em->pl, &b)) < 0)
      return err;
  }
  return ACS_OK;
}

int acs_gang_emit(const struct acs_gang_ctx *c, const struct acs_gang *gg, int32_t gang_index,
                  int64_t t0, struct acs_gang_plan *pl, int64_t *t_end)
{
  struct emit em = { c, gg, pl, gang_index, NULL, NULL };
  struct acs_gang_run run;
  int32_t first_act = pl->nacts;
  int64_t t, total = 0;
  int err;

  if (!gg->ok)
    return ACS_EINVAL;
  if ((err = acs_gang_run_init(&run, c, gg)) < 0)
    return err;
  em.off = calloc((size_t)gg->nnodes + 1, sizeof(*em.off));
  for (int32_t v = 0; em.off && v < gg->nnodes; v++) {
    em.off[v] = total;
    total += gg->nodes[v].T;
  }
  em.act = malloc(((size_t)total + 1) * sizeof(*em.act));
  if (!em.off || !em.act) {
    err = ACS_ENOMEM;
    goto out_with_run;
  }
  if ((err = add_loads(&em, t0, &t)) < 0)
    goto out_with_run;
  /* Preamble, loop iterations, postamble: each starts when the previous
   * has ended on every unit (the control program synchronises all). */
  acs_gang_set_pre(gg, gg->r, &run);
  if ((err = acs_gang_run_segment(&run, 1)) < 0 || (err = add_segment(&em, &run, t)) < 0)
    goto out_with_run;
  t += run.makespan;
  if (gg->L > 0) {
    acs_gang_set_body(gg, gg->r, &run);
    if ((err = acs_gang_run_segment(&run, 1)) < 0)
      goto out_with_run;
    for (int64_t i = 0; i < gg->L; i++) {
      for (int32_t v = 0; v < gg->nnodes; v++) {
        run.from[v] += i == 0 ? 0 : gg->nodes[v].qL;
        run.to[v] += i == 0 ? 0 : gg->nodes[v].qL;
      }
      if ((err = add_segment(&em, &run, t)) < 0)
        goto out_with_run;
      t += gg->P;
    }
  }
  acs_gang_set_post(gg, gg->r, gg->L, &run);
  if ((err = acs_gang_run_segment(&run, 1)) < 0 || (err = add_segment(&em, &run, t)) < 0)
    goto out_with_run;
  t += run.makespan;
  for (int32_t i = first_act; i < pl->nacts; i++)
    if (pl->acts[i].kind == ACS_GANG_LOAD)
      pl->acts[i].evict = t;
  for (int32_t e = 0; e < gg->nedges; e++)
    if (gg->edges[e].pe >= 0 && gg->edges[e].src >= 0 && gg->edges[e].dst >= 0 &&
        (err = add_edge_buffers(&em, &gg->edges[e], t0, t)) < 0)
      goto out_with_run;
  *t_end = t;
out_with_run:
  acs_gang_run_free(&run);
  free(em.off);
  free(em.act);
  return err;
}
