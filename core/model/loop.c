/*
 * loop.c - loop bodies: building, checking, unit counts, unrolling.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/loop.h"

int acs_loop_init(struct acs_loop *l, const char *name, const char *path)
{
  memset(l, 0, sizeof(*l));
  acs_arena_init(&l->arena);
  l->name = acs_arena_strdup(&l->arena, name ? name : "");
  l->path = acs_arena_strdup(&l->arena, path ? path : "");
  if (!l->name || !l->path) {
    acs_arena_destroy(&l->arena);
    return ACS_ENOMEM;
  }
  return ACS_OK;
}

void acs_loop_destroy(struct acs_loop *l)
{
  if (!l)
    return;
  free(l->classes);
  free(l->ops);
  free(l->edges);
  acs_arena_destroy(&l->arena);
  memset(l, 0, sizeof(*l));
}

int32_t acs_loop_add_class(struct acs_loop *l, const char *name, int64_t latency,
                           int64_t blocking, int64_t limit, int32_t line)
{
  struct acs_loop_class *c;

  if (l->nclasses == INT32_MAX ||
      acs_grow((void **)&l->classes, sizeof(*l->classes), &l->cap_classes,
               (size_t)l->nclasses + 1) < 0)
    return ACS_ENOMEM;
  c = &l->classes[l->nclasses];
  c->name = acs_arena_strdup(&l->arena, name);
  if (!c->name)
    return ACS_ENOMEM;
  c->latency = latency;
  c->blocking = blocking;
  c->limit = limit;
  c->line = line;
  return l->nclasses++;
}

int32_t acs_loop_add_op(struct acs_loop *l, const char *name, int32_t cls, int32_t line)
{
  struct acs_loop_op *o;

  if (l->nops == INT32_MAX ||
      acs_grow((void **)&l->ops, sizeof(*l->ops), &l->cap_ops, (size_t)l->nops + 1) < 0)
    return ACS_ENOMEM;
  o = &l->ops[l->nops];
  o->name = acs_arena_strdup(&l->arena, name);
  if (!o->name)
    return ACS_ENOMEM;
  o->cls = cls;
  o->line = line;
  return l->nops++;
}

int acs_loop_add_edge(struct acs_loop *l, int32_t src, int32_t dst, int64_t delay,
                      int64_t distance, int32_t line)
{
  if (l->nedges == INT32_MAX ||
      acs_grow((void **)&l->edges, sizeof(*l->edges), &l->cap_edges, (size_t)l->nedges + 1) < 0)
    return ACS_ENOMEM;
  l->edges[l->nedges++] = (struct acs_loop_edge){src, dst, delay, distance, line};
  return ACS_OK;
}

/* ---- checks ---- */

static int check_values(const struct acs_loop *l, struct acs_diag *d)
{
  const char *f = l->path;

  for (int32_t c = 0; c < l->nclasses; c++) {
    const struct acs_loop_class *k = &l->classes[c];
    const char *rf = l->rm_path ? l->rm_path : f;
    if (k->latency < 0 || k->latency > ACS_LOOP_VALUE_MAX)
      return acs_diag_set(d, ACS_ERANGE, rf, k->line, 0,
                          "class '%s': latency %lld outside [0, %d]", k->name,
                          (long long)k->latency, ACS_LOOP_VALUE_MAX);
    if (k->blocking < 0 || k->blocking > ACS_LOOP_VALUE_MAX)
      return acs_diag_set(d, ACS_ERANGE, rf, k->line, 0,
                          "class '%s': blocking time %lld outside [0, %d]", k->name,
                          (long long)k->blocking, ACS_LOOP_VALUE_MAX);
    if ((k->limit < 1 && k->limit != ACS_LOOP_UNLIMITED) || k->limit > ACS_LOOP_VALUE_MAX)
      return acs_diag_set(d, ACS_ERANGE, rf, k->line, 0,
                          "class '%s': limit %lld (expected -1 for unlimited, or 1 to %d)",
                          k->name, (long long)k->limit, ACS_LOOP_VALUE_MAX);
  }
  for (int32_t i = 0; i < l->nops; i++)
    if (l->ops[i].cls < 0 || l->ops[i].cls >= l->nclasses)
      return acs_diag_set(d, ACS_EINVAL, f, l->ops[i].line, 0, "op '%s' has no class",
                          l->ops[i].name);
  for (int32_t e = 0; e < l->nedges; e++) {
    const struct acs_loop_edge *x = &l->edges[e];
    if (x->src < 0 || x->src >= l->nops || x->dst < 0 || x->dst >= l->nops)
      return acs_diag_set(d, ACS_EINVAL, f, x->line, 0, "edge %d refers to no op", (int)e);
    if (x->delay < 0 || x->delay > ACS_LOOP_VALUE_MAX)
      return acs_diag_set(d, ACS_ERANGE, f, x->line, 0,
                          "edge '%s' -> '%s': delay %lld outside [0, %d]", l->ops[x->src].name,
                          l->ops[x->dst].name, (long long)x->delay, ACS_LOOP_VALUE_MAX);
    if (x->distance < 0 || x->distance > ACS_LOOP_VALUE_MAX)
      return acs_diag_set(d, ACS_ERANGE, f, x->line, 0,
                          "edge '%s' -> '%s': distance %lld outside [0, %d]",
                          l->ops[x->src].name, l->ops[x->dst].name, (long long)x->distance,
                          ACS_LOOP_VALUE_MAX);
  }
  return ACS_OK;
}

/* "a -> b -> a" into msg, from the cycle found by following, from op v,
 * a distance-0 edge to an op still in the residual set (every such op has
 * one: Kahn's algorithm left them with unfinished predecessors, so walking
 * predecessors backwards must repeat an op). O(V + E). */
static int report_cycle(const struct acs_loop *l, const int32_t *indeg, const int32_t *pred_off,
                        const int32_t *pred_edge, int32_t v, struct acs_diag *d)
{
  int32_t *seen = malloc(((size_t)l->nops + 1) * sizeof(*seen));
  int32_t *path = malloc(((size_t)l->nops + 1) * sizeof(*path));
  int32_t *via = malloc(((size_t)l->nops + 1) * sizeof(*via));
  int32_t n = 0, start, line;
  char msg[768];
  size_t off = 0;
  int err;

  if (!seen || !path || !via) {
    free(seen), free(path), free(via);
    return ACS_ENOMEM;
  }
  for (int32_t i = 0; i < l->nops; i++)
    seen[i] = via[i] = -1;
  /* Walk predecessors that are still in the residual set until one repeats. */
  while (seen[v] < 0) {
    int32_t next = -1, e = -1;
    seen[v] = n;
    path[n++] = v;
    for (int32_t k = pred_off[v]; k < pred_off[v + 1] && next < 0; k++) {
      const struct acs_loop_edge *x = &l->edges[pred_edge[k]];
      if (indeg[x->src] > 0) {
        next = x->src;
        e = pred_edge[k];
      }
    }
    via[n - 1] = e;
    v = next;
  }
  /* path[seen[v]] .. path[n-1] is the cycle, walked backwards. */
  start = seen[v];
  line = n > 0 && via[n - 1] >= 0 ? l->edges[via[n - 1]].line : 0;
  for (int32_t k = n - 1; k >= start && off < sizeof(msg); k--)
    off += (size_t)snprintf(msg + off, sizeof(msg) - off, "%s%s", k == n - 1 ? "" : " -> ",
                            l->ops[path[k]].name);
  if (off < sizeof(msg))
    snprintf(msg + off, sizeof(msg) - off, " -> %s", l->ops[path[n - 1]].name);
  err = acs_diag_set(d, ACS_ECYCLE, l->path, line, 0,
                     "cycle of distance 0 (an iteration would wait for itself): %s", msg);
  free(seen), free(path), free(via);
  return err;
}

/* Kahn's algorithm on the distance-0 edges. O(V + E). */
static int check_zero_cycles(const struct acs_loop *l, struct acs_diag *d)
{
  size_t n = (size_t)l->nops + 1;
  int32_t *indeg = calloc(n, sizeof(*indeg)), *queue = malloc(n * sizeof(*queue));
  int32_t *succ_off = calloc(n + 1, sizeof(*succ_off)), *succ = NULL;
  int32_t *pred_off = calloc(n + 1, sizeof(*pred_off)), *pred_edge = NULL;
  int32_t head = 0, tail = 0, done = 0;
  int err = ACS_ENOMEM;

  if (!indeg || !queue || !succ_off || !pred_off)
    goto out;
  succ = malloc(((size_t)l->nedges + 1) * sizeof(*succ));
  pred_edge = malloc(((size_t)l->nedges + 1) * sizeof(*pred_edge));
  if (!succ || !pred_edge)
    goto out;
  for (int32_t e = 0; e < l->nedges; e++)
    if (l->edges[e].distance == 0) {
      succ_off[l->edges[e].src + 1]++;
      pred_off[l->edges[e].dst + 1]++;
      indeg[l->edges[e].dst]++;
    }
  for (int32_t i = 0; i < l->nops; i++) {
    succ_off[i + 1] += succ_off[i];
    pred_off[i + 1] += pred_off[i];
  }
  {
    int32_t *fs = malloc(n * sizeof(*fs)), *fp = malloc(n * sizeof(*fp));
    if (!fs || !fp) {
      free(fs), free(fp);
      goto out;
    }
    memcpy(fs, succ_off, (size_t)l->nops * sizeof(*fs));
    memcpy(fp, pred_off, (size_t)l->nops * sizeof(*fp));
    for (int32_t e = 0; e < l->nedges; e++)
      if (l->edges[e].distance == 0) {
        succ[fs[l->edges[e].src]++] = l->edges[e].dst;
        pred_edge[fp[l->edges[e].dst]++] = e;
      }
    free(fs), free(fp);
  }
  for (int32_t i = 0; i < l->nops; i++)
    if (indeg[i] == 0)
      queue[tail++] = i;
  while (head < tail) {
    int32_t v = queue[head++];
    done++;
    for (int32_t k = succ_off[v]; k < succ_off[v + 1]; k++)
      if (--indeg[succ[k]] == 0)
        queue[tail++] = succ[k];
  }
  err = ACS_OK;
  if (done < l->nops)
    for (int32_t i = 0; i < l->nops; i++)
      if (indeg[i] > 0) {
        err = report_cycle(l, indeg, pred_off, pred_edge, i, d);
        break;
      }
out:
  free(indeg), free(queue), free(succ_off), free(succ), free(pred_off), free(pred_edge);
  return err;
}

int acs_loop_check(const struct acs_loop *l, struct acs_diag *d)
{
  int err = check_values(l, d);

  if (err == ACS_OK)
    err = check_zero_cycles(l, d);
  return err;
}

void acs_loop_units(const struct acs_loop *l, const struct acs_platform *p, int64_t *units)
{
  for (int32_t c = 0; c < l->nclasses; c++) {
    int64_t n;
    units[c] = p && acs_platform_units_get(p, l->classes[c].name, &n) ? n : l->classes[c].limit;
  }
}

/* ---- unrolling ---- */

void acs_loop_layout_destroy(struct acs_loop_layout *lay)
{
  free(lay->first);
  free(lay->ready_off);
  free(lay->delays);
  free(lay->delay_off);
  free(lay->units);
  memset(lay, 0, sizeof(*lay));
}

/* Graph ops of loop op i besides its delay chain: the issue, plus a latency
 * tail or a blocking hold when those differ (limited classes). */
static int32_t base_parts(const struct acs_loop *l, const int64_t *units, int32_t i)
{
  int32_t c = l->ops[i].cls;
  int64_t b = acs_loop_blocking(l, c, units[c]);

  return units[c] != ACS_LOOP_UNLIMITED && b != l->classes[c].latency ? 2 : 1;
}

int acs_loop_layout_init(struct acs_loop_layout *lay, const struct acs_loop *l,
                         const struct acs_platform *p)
{
  size_t n = (size_t)l->nops + 1, m = (size_t)l->nedges + 1;
  int64_t per = 0;

  memset(lay, 0, sizeof(*lay));
  lay->nops = l->nops;
  lay->iterations = p ? (int32_t)acs_platform_get(p, ACS_P_LOOP_ITERATIONS) : 1;
  lay->first = calloc(n, sizeof(*lay->first));
  lay->ready_off = calloc(n, sizeof(*lay->ready_off));
  lay->delay_off = calloc(n, sizeof(*lay->delay_off));
  lay->delays = malloc(m * sizeof(*lay->delays));
  lay->units = malloc(((size_t)l->nclasses + 1) * sizeof(*lay->units));
  if (!lay->first || !lay->ready_off || !lay->delay_off || !lay->delays || !lay->units) {
    acs_loop_layout_destroy(lay);
    return ACS_ENOMEM;
  }
  acs_loop_units(l, p, lay->units);
  /* Distinct positive out-delays per op: count, place, sort, dedupe.
   * O(E log E). */
  for (int32_t e = 0; e < l->nedges; e++)
    if (l->edges[e].delay > 0)
      lay->delay_off[l->edges[e].src + 1]++;
  for (int32_t i = 0; i < l->nops; i++)
    lay->delay_off[i + 1] += lay->delay_off[i];
  {
    int32_t *fill = malloc(n * sizeof(*fill)), w = 0;
    if (!fill) {
      acs_loop_layout_destroy(lay);
      return ACS_ENOMEM;
    }
    memcpy(fill, lay->delay_off, n * sizeof(*fill));
    for (int32_t e = 0; e < l->nedges; e++)
      if (l->edges[e].delay > 0)
        lay->delays[fill[l->edges[e].src]++] = l->edges[e].delay;
    for (int32_t i = 0; i < l->nops; i++) {
      int32_t a = lay->delay_off[i], b = lay->delay_off[i + 1], start = w;
      qsort(lay->delays + a, (size_t)(b - a), sizeof(int64_t), acs_cmp_i64);
      for (int32_t k = a; k < b; k++)
        if (k == a || lay->delays[k] != lay->delays[k - 1])
          lay->delays[w++] = lay->delays[k];
      lay->delay_off[i] = start;
      fill[i] = w;
    }
    for (int32_t i = l->nops; i > 0; i--)
      lay->delay_off[i] = fill[i - 1];
    lay->delay_off[0] = 0;
    free(fill);
  }
  for (int32_t i = 0; i < l->nops; i++) {
    lay->first[i] = (int32_t)per;
    lay->ready_off[i] = l->classes[l->ops[i].cls].latency;
    per += base_parts(l, lay->units, i) + (lay->delay_off[i + 1] - lay->delay_off[i]);
  }
  if (per > INT32_MAX / 2) {
    acs_loop_layout_destroy(lay);
    return ACS_ERANGE;
  }
  lay->first[l->nops] = (int32_t)per;
  lay->per_iter = (int32_t)per;
  return ACS_OK;
}

int32_t acs_loop_layout_source(const struct acs_loop_layout *lay, const struct acs_loop *l,
                               int32_t i, int64_t delay)
{
  int32_t base = base_parts(l, lay->units, i);
  int32_t c = l->ops[i].cls;

  if (delay <= 0) {
    /* The result is ready at the end of the latency tail when there is
     * one, else at the end of the issue. */
    int has_tail = base == 2 && l->classes[c].latency > acs_loop_blocking(l, c, lay->units[c]);
    return lay->first[i] + (has_tail ? 1 : 0);
  }
  /* The delays of an op are sorted and distinct: a binary search keeps an
   * op with thousands of out-edges linear. */
  for (int32_t lo = lay->delay_off[i], hi = lay->delay_off[i + 1]; lo < hi;) {
    int32_t mid = lo + (hi - lo) / 2;
    if (lay->delays[mid] == delay)
      return lay->first[i] + base + (mid - lay->delay_off[i]);
    if (lay->delays[mid] < delay)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* One named resource per limited class some op uses; res[c] its index or -1. */
static int add_resources(const struct acs_loop *l, const struct acs_loop_layout *lay,
                         struct acs_graph *g, int *res, struct acs_diag *d)
{
  char *used = calloc((size_t)l->nclasses + 1, 1);
  int32_t nlim = 0;
  int err = ACS_OK;

  if (!used)
    return ACS_ENOMEM;
  for (int32_t i = 0; i < l->nops; i++)
    used[l->ops[i].cls] = 1;
  for (int32_t c = 0; c < l->nclasses; c++)
    nlim += used[c] && lay->units[c] != ACS_LOOP_UNLIMITED;
  if (nlim > ACS_MAX_RES)
    err = acs_diag_set(d, ACS_ERANGE, l->path, 0, 0,
                       "loop '%s' has %d limited resource classes; a graph holds at most %d "
                       "resources", l->name, (int)nlim, ACS_MAX_RES);
  for (int32_t c = 0; c < l->nclasses && err == ACS_OK; c++) {
    res[c] = -1;
    if (!used[c] || lay->units[c] == ACS_LOOP_UNLIMITED)
      continue;
    res[c] = acs_graph_add_resource(g, l->classes[c].name, ACS_RES_NAMED, lay->units[c]);
    if (res[c] < 0)
      err = res[c];
  }
  free(used);
  return err;
}

/*
 * What the unrolled DAG costs, from the layout: per iteration, per_iter
 * ops, one edge inside each op's chain of parts (per_iter - nops), and the
 * loop's edges (an upper bound: an edge of distance d is dropped in the
 * last d iterations). Refused before the graph is allocated.
 */
static int check_cost(const struct acs_loop *l, const struct acs_loop_layout *lay,
                      struct acs_diag *d)
{
  int64_t ops, edges, per_edges = (int64_t)lay->per_iter - l->nops + l->nedges;
  char what[ACS_NAME_MAX + 96];
  int nres = 0;

  for (int32_t c = 0; c < l->nclasses; c++)
    nres += lay->units[c] != ACS_LOOP_UNLIMITED;
  if (acs_mul_i64(lay->per_iter, lay->iterations, &ops))
    ops = INT64_MAX;
  if (acs_mul_i64(per_edges, lay->iterations, &edges))
    edges = INT64_MAX;
  snprintf(what, sizeof(what), "%d iterations of loop '%.*s' (%d ops each; loop_iterations)",
           (int)lay->iterations, ACS_NAME_MAX, l->name, (int)lay->per_iter);
  int err = acs_graph_check_cost(ops, edges, nres < ACS_MAX_RES ? nres : ACS_MAX_RES, d,
                                 l->path, 0, 0, what);

  if (err == ACS_OK && ops > INT32_MAX / 2)
    err = acs_diag_set(d, ACS_ERANGE, l->path, 0, 0, "%s are more ops than a graph holds", what);
  return err;
}

/* The graph ops of iteration k. */
static int add_iteration_ops(const struct acs_loop *l, const struct acs_loop_layout *lay,
                             const int *res, int32_t k, struct acs_graph *g)
{
  char name[ACS_NAME_MAX + 64];

  for (int32_t i = 0; i < l->nops; i++) {
    int32_t c = l->ops[i].cls;
    int64_t lat = l->classes[c].latency, b = acs_loop_blocking(l, c, lay->units[c]);
    int limited = res[c] >= 0, prev = 0;
    struct acs_op op;
    int32_t id;

    memset(&op, 0, sizeof(op));
    op.kind = ACS_OP_SHAVE;
    op.slots = 1;
    op.line = l->ops[i].line;
    op.cycles = limited && b < lat ? b : lat;
    snprintf(name, sizeof(name), "%s@%d", l->ops[i].name, (int)k);
    op.name = name;
    if ((id = acs_graph_add_op(g, &op)) < 0)
      return id;
    if (limited && acs_graph_set_demand(g, id, res[c], 1) < 0)
      return ACS_ENOMEM;
    prev = id;
    if (limited && b != lat) {
      /* The rest of the latency (free unit) or of the blocking (held unit). */
      op.kind = lat > b ? ACS_OP_SYNC : ACS_OP_SHAVE;
      op.cycles = lat > b ? lat - b : b - lat;
      snprintf(name, sizeof(name), "%s@%d.%s", l->ops[i].name, (int)k, lat > b ? "lat" : "hold");
      if ((id = acs_graph_add_op(g, &op)) < 0 || acs_graph_add_edge(g, prev, id, ACS_EDGE_DATA) < 0)
        return id < 0 ? id : ACS_ENOMEM;
      if (lat < b && acs_graph_set_demand(g, id, res[c], 1) < 0)
        return ACS_ENOMEM;
      if (lat > b)
        prev = id;
    }
    for (int32_t q = lay->delay_off[i]; q < lay->delay_off[i + 1]; q++) {
      op.kind = ACS_OP_SYNC;
      op.cycles = lay->delays[q] - (q > lay->delay_off[i] ? lay->delays[q - 1] : 0);
      snprintf(name, sizeof(name), "%s@%d+%lld", l->ops[i].name, (int)k,
               (long long)lay->delays[q]);
      if ((id = acs_graph_add_op(g, &op)) < 0 || acs_graph_add_edge(g, prev, id, ACS_EDGE_DATA) < 0)
        return id < 0 ? id : ACS_ENOMEM;
      prev = id;
    }
  }
  return ACS_OK;
}

int acs_loop_build_graph(const struct acs_loop *l, const struct acs_platform *p,
                         struct acs_graph *g, struct acs_diag *d)
{
  struct acs_loop_layout lay;
  int *resv = NULL;
  int err;

  if ((err = acs_loop_layout_init(&lay, l, p)) < 0)
    return err == ACS_ENOMEM ? err
                             : acs_diag_set(d, err, l->path, 0, 0, "loop '%s' is too large",
                                            l->name);
  if ((err = check_cost(l, &lay, d)) < 0)
    goto out_with_layout;
  if ((err = acs_graph_init(g, l->name, l->path)) < 0)
    goto out_with_layout;
  resv = malloc(((size_t)l->nclasses + 1) * sizeof(*resv));
  if (!resv) {
    err = ACS_ENOMEM;
    goto out_with_graph;
  }
  if ((err = add_resources(l, &lay, g, resv, d)) < 0)
    goto out_with_graph;
  for (int32_t k = 0; k < lay.iterations && err == ACS_OK; k++)
    err = acs_interrupt_pending() ? ACS_EINTERRUPTED : add_iteration_ops(l, &lay, resv, k, g);
  for (int32_t k = 0; k < lay.iterations && err == ACS_OK; k++) {
    if (acs_interrupt_pending())
      err = ACS_EINTERRUPTED;
    for (int32_t e = 0; e < l->nedges && err == ACS_OK; e++) {
      const struct acs_loop_edge *x = &l->edges[e];
      int64_t kd = (int64_t)k + x->distance;
      if (kd >= lay.iterations)
        continue;
      err = acs_graph_add_edge(g, k * lay.per_iter + acs_loop_layout_source(&lay, l, x->src, x->delay),
                               (int32_t)kd * lay.per_iter + lay.first[x->dst], ACS_EDGE_DATA);
    }
  }
  if (err == ACS_OK)
    err = acs_graph_finalize(g, d);
  if (err == ACS_OK)
    goto out_with_layout;
out_with_graph:
  acs_graph_destroy(g);
out_with_layout:
  free(resv);
  acs_loop_layout_destroy(&lay);
  return err;
}

double acs_loop_cycles_per_iter(const struct acs_loop *l, const struct acs_platform *p,
                                const struct acs_schedule *s, int simulated)
{
  struct acs_loop_layout lay;
  double end = 0;
  int32_t n;

  if (acs_loop_layout_init(&lay, l, p) < 0)
    return NAN;
  n = lay.iterations;
  if ((int64_t)lay.per_iter * n != s->norig || n < 1) {
    acs_loop_layout_destroy(&lay);
    return NAN;
  }
  acs_loop_layout_destroy(&lay);
  for (int32_t i = 0; i < s->norig; i++) {
    double e = simulated ? s->ops[i].sim_end : (double)s->ops[i].end;
    if (isnan(e))
      return NAN;
    if (e > end)
      end = e;
  }
  return end / (double)n;
}
