/*
 * sare_wl.c - a .sare file as a workload: the reader's model, the name
 * with its parameter values, and the instance DAG every DAG scheduler sees.
 *
 * The instance DAG for bound parameters: one dpu op per computed instance
 * ("C[1,2,3]", `delay` cycles, one PE, producing bytes_per_elem bytes), in
 * the order of acs_sare_inst_build (variables as declared, points in
 * lexicographic order), and a data edge from each producer instance to
 * each consumer instance that reads it. Inputs are no ops: their values
 * are in the PEs' memories before the run starts. O(instances + dependence
 * instances).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/model/sare.h"

struct dag_build {
  const struct acs_sare *m;
  const struct acs_sare_inst *in;
  struct acs_graph *g;
  struct acs_diag *d;
};

static int add_edge(void *user, int32_t e, int64_t xr, const int64_t *x, int64_t yr,
                    const int64_t *y)
{
  struct dag_build *b = user;
  const struct acs_sare_dep *dep = &b->m->deps[e];
  char name[ACS_NAME_MAX];

  if (!acs_sare_computed(b->m, dep->src))
    return 0;
  if (yr < 0) {
    acs_sare_point_name(b->m, dep->dst, x, name, sizeof(name));
    return acs_diag_set(b->d, ACS_EPARSE, b->m->path, dep->line, dep->col,
                        "%s reads outside the domain of '%s'", name, b->m->vars[dep->src].name);
  }
  return acs_graph_add_edge(b->g, (int32_t)(b->in->var[dep->src].first_op + yr),
                            (int32_t)(b->in->var[dep->dst].first_op + xr), ACS_EDGE_DATA);
}

static int add_ops(const struct acs_sare *m, const struct acs_sare_inst *in, int64_t elem,
                   int res_pe, struct acs_graph *g)
{
  int64_t x[ACS_SARE_MAX_DIMS];
  char name[ACS_NAME_MAX];

  for (int32_t v = 0; v < m->nvars; v++) {
    const struct acs_sare_vinst *vi = &in->var[v];
    if (!acs_sare_computed(m, v))
      continue;
    for (int64_t k = 0; k < vi->count; k++) {
      struct acs_op op;
      int32_t id;
      int err;
      if (k % 4096 == 0 && acs_interrupt_pending())
        return ACS_EINTERRUPTED;
      for (int32_t j = 0; j < m->vars[v].ndims; j++)
        x[j] = vi->pt[(size_t)k * (size_t)m->vars[v].ndims + (size_t)j];
      acs_sare_point_name(m, v, x, name, sizeof(name));
      memset(&op, 0, sizeof(op));
      op.name = name;
      op.kind = ACS_OP_DPU;
      op.cycles = m->vars[v].delay;
      op.out_bytes = elem;
      op.slots = 1;
      op.line = m->vars[v].line;
      if ((id = acs_graph_add_op(g, &op)) < 0)
        return id;
      if ((err = acs_graph_set_demand(g, id, res_pe, 1)) < 0)
        return err;
    }
  }
  return ACS_OK;
}

/* The instance DAG's ops and an upper bound on its edges, against the
 * limits. O(variables + dependences). */
static int check_cost(const struct acs_sare *m, const struct acs_sare_inst *in,
                      struct acs_diag *d)
{
  int64_t edges = 0;

  for (int32_t e = 0; e < m->ndeps; e++)
    if (acs_sare_computed(m, m->deps[e].src) &&
        acs_add_i64(edges, in->var[m->deps[e].dst].count, &edges))
      edges = INT64_MAX;
  return acs_graph_check_cost(in->nops, edges, 1, d, m->path, 0, 0, "the instance DAG");
}

int acs_sare_build_graph(const struct acs_sare *m, const struct acs_sare_inst *in,
                         int64_t elem_bytes, const char *name, const char *path,
                         struct acs_graph *g, struct acs_diag *d)
{
  struct dag_build b = {m, in, g, d};
  int err, res_pe;

  if ((err = check_cost(m, in, d)) < 0)
    return err;
  if ((err = acs_graph_init(g, name, path)) < 0)
    return err;
  res_pe = acs_graph_add_resource(g, "pe", ACS_RES_PE, 0);
  err = res_pe < 0 ? res_pe : add_ops(m, in, elem_bytes, res_pe, g);
  if (err == ACS_OK)
    err = acs_sare_foreach_dep_instance(m, in, add_edge, &b);
  if (err == ACS_OK)
    err = acs_graph_finalize(g, d);
  if (err < 0)
    acs_graph_destroy(g);
  return err;
}

static int sare_build(const struct acs_workload *w, const struct acs_platform *p,
                      struct acs_graph *g, struct acs_diag *d)
{
  const struct acs_sare *m = w->model;
  struct acs_sare_inst in;
  int err;

  if ((err = acs_sare_inst_build(m, NULL, &in, d)) < 0)
    return err;
  err = acs_sare_build_graph(m, &in, (int64_t)acs_platform_get(p, ACS_P_BYTES_PER_ELEM),
                             w->name, w->path, g, d);
  acs_sare_inst_free(&in);
  return err;
}

static void sare_free(void *model)
{
  acs_sare_free(model);
}

static const struct acs_wl_model_ops sare_ops = {sare_build, sare_free};

int acs_sare_load(const char *spec, struct acs_workload *w, struct acs_diag *d)
{
  struct acs_sare *m;
  const char *suffix = acs_sare_spec_suffix(spec);
  int err = acs_sare_read(spec, &m, d);

  if (err < 0)
    return err;
  w->kind = ACS_WL_AFFINE;
  w->model = m;
  w->model_ops = &sare_ops;
  /* Run identity: the file's content, and the values bound after its name. */
  if ((err = acs__workload_note_file(w, m->path, d)) < 0 ||
      (suffix && *suffix && (err = acs__workload_note_text(w, "binding", suffix)) < 0))
    return err;
  /* Parameter values given after the path name the workload, so runs of
   * one file at several sizes are told apart ("matmul[N=64]"). */
  if (suffix && *suffix) {
    char stem[ACS_NAME_MAX], name[ACS_NAME_MAX + 256];
    size_t used;
    acs__path_stem(m->path, stem, sizeof(stem));
    used = (size_t)snprintf(name, sizeof(name), "%s[", stem);
    for (const char *s = suffix + 1; *s && used + 2 < sizeof(name); s++)
      name[used++] = *s == ':' ? ',' : *s;
    snprintf(name + used, sizeof(name) - used, "]");
    if (!(w->name = acs_arena_strdup(&w->arena, name)))
      return ACS_ENOMEM;
  }
  return ACS_OK;
}
