/*
 * problem.c - binding a graph to a platform, and lower bounds.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/ddrlink.h"
#include "core/model/problem.h"

/* Cycles of one op on platform p, at most ACS_QTY_MAX. A DMA touching DDR
 * is limited by the DDR link; CMX-to-CMX transfers run at the DMA engine's
 * own rate. Returns ACS_OK, ACS_ERANGE (more than ACS_QTY_MAX cycles) or
 * ACS_EINVAL (no way to derive it). */
static int op_cycles(const struct acs_op *op, const struct acs_platform *p, int64_t *out)
{
  int64_t per;

  if (op->cycles >= 0) {
    *out = op->cycles;
    return op->cycles > ACS_QTY_MAX ? ACS_ERANGE : ACS_OK;
  }
  switch (op->kind) {
  case ACS_OP_DMA:
    if (op->bytes < 0)
      return ACS_EINVAL;
    if (op->src == ACS_MEM_DDR || op->dst == ACS_MEM_DDR)
      *out = acs_platform_ddr_cycles(p, op->bytes);
    else
      *out = acs_platform_cmx_cycles(p, op->bytes);
    return *out < 0 ? ACS_ERANGE : ACS_OK;
  case ACS_OP_DPU:
  case ACS_OP_SHAVE:
    per = (int64_t)acs_platform_get(p, ACS_P_PE_MACS_PER_CYCLE);
    if (op->macs < 0 || per <= 0)
      return ACS_EINVAL;
    *out = op->macs / per + (op->macs % per != 0);
    return *out > ACS_QTY_MAX ? ACS_ERANGE : ACS_OK;
  default:
    *out = 0;
    return ACS_OK;
  }
}

/* What an op asks for, each at most ACS_QTY_MAX (loaders check their own
 * fields; this guards graphs built in code). Returns the first bad field or
 * NULL. */
static const char *op_out_of_range(const struct acs_graph *g, int32_t i)
{
  const struct acs_op *op = &g->ops[i];

  if (op->macs > ACS_QTY_MAX || op->macs < 0)
    return "macs";
  if (op->bytes > ACS_QTY_MAX || op->bytes < 0)
    return "bytes";
  if (op->out_bytes > ACS_QTY_MAX || op->out_bytes < 0)
    return "out_bytes";
  for (int r = 0; r < g->nres; r++)
    if (acs_graph_demand(g, i, r) > ACS_QTY_MAX || acs_graph_demand(g, i, r) < 0)
      return g->res[r].name;
  return NULL;
}

/*
 * Durations from work, each and their sum at most ACS_QTY_MAX: every start,
 * end and path length a scheduler computes (at most the sum, plus what it
 * adds of the same size) then fits int64_t, and is exact in the float64
 * HDF5 columns. Errors name the op and its line. O(V R).
 */
static int bind_durations(struct acs_problem *pb, const struct acs_platform *plat,
                          struct acs_diag *d)
{
  const struct acs_graph *g = pb->g;
  int64_t total = 0;
  const char *bad;
  int err;

  for (int32_t i = 0; i < g->nops; i++) {
    const struct acs_op *op = &g->ops[i];
    if ((bad = op_out_of_range(g, i)))
      return acs_diag_set(d, ACS_ERANGE, g->path, op->line, 0,
                          "op '%s': %s is out of range (0 to %lld)", op->name, bad,
                          (long long)ACS_QTY_MAX);
    err = op_cycles(op, plat, &pb->dur[i]);
    if (err == ACS_ERANGE)
      return acs_diag_set(d, ACS_ERANGE, g->path, op->line, 0,
                          "op '%s' would take more than %lld cycles on platform '%s'",
                          op->name, (long long)ACS_QTY_MAX, plat->name);
    if (err < 0)
      return acs_diag_set(d, ACS_EINVAL, g->path, op->line, 0,
                          "op '%s': cannot derive its duration", op->name);
    total += pb->dur[i]; /* both <= 2^53: no overflow */
    if (total > ACS_QTY_MAX)
      return acs_diag_set(d, ACS_ERANGE, g->path, op->line, 0,
                          "the ops up to '%s' already take more than %lld cycles in all on "
                          "platform '%s'", op->name, (long long)ACS_QTY_MAX, plat->name);
  }
  return ACS_OK;
}

/* The model when the workload is of kind `kind`, else NULL. */
static const void *model_of(const struct acs_problem *pb, int kind)
{
  return pb && pb->kind == kind ? pb->model : NULL;
}

const struct acs_loop *acs_problem_loop(const struct acs_problem *pb)
{
  return model_of(pb, ACS_WL_LOOP);
}

const struct acs_sdf_graph *acs_problem_sdf(const struct acs_problem *pb)
{
  return model_of(pb, ACS_WL_SDF);
}

const struct acs_sare *acs_problem_sare(const struct acs_problem *pb)
{
  return model_of(pb, ACS_WL_AFFINE);
}

const struct acs_lgraph *acs_problem_lgraph(const struct acs_problem *pb)
{
  return model_of(pb, ACS_WL_DNN);
}

int acs_problem_init(struct acs_problem *pb, const struct acs_graph *g,
                     const struct acs_platform *plat, struct acs_diag *d)
{
  int err;

  memset(pb, 0, sizeof(*pb));
  pb->kind = -1;
  if (!g->finalized)
    return acs_diag_set(d, ACS_EINVAL, g->path, 0, 0, "graph '%s' is not finalized", g->name);
  pb->g = g;
  pb->plat = *plat;
  pb->nops = g->nops;
  pb->nres = g->nres;
  pb->dur = malloc(((size_t)g->nops + 1) * sizeof(*pb->dur));
  if (!pb->dur)
    return ACS_ENOMEM;
  if ((err = bind_durations(pb, plat, d)) < 0) {
    acs_problem_destroy(pb);
    return err;
  }
  pb->res_pe = pb->res_dma = pb->res_cmx = pb->res_ddr = -1;
  for (int r = 0; r < g->nres; r++) {
    switch (g->res[r].kind) {
    case ACS_RES_PE:
      pb->cap[r] = (int64_t)acs_platform_get(plat, ACS_P_PE_COUNT);
      pb->res_pe = r;
      break;
    case ACS_RES_DMA:
      pb->cap[r] = (int64_t)acs_platform_get(plat, ACS_P_DMA_CHANNELS);
      pb->res_dma = r;
      break;
    case ACS_RES_CMX:
      pb->cap[r] = acs_platform_cmx_bytes(plat);
      pb->res_cmx = r;
      break;
    case ACS_RES_DDR:
      pb->cap[r] = acs_ddrlink_lanes(plat);
      pb->res_ddr = r;
      break;
    default:
      pb->cap[r] = g->res[r].capacity;
      if (pb->cap[r] > ACS_QTY_MAX) {
        acs_problem_destroy(pb);
        return acs_diag_set(d, ACS_ERANGE, g->path, 0, 0,
                            "resource '%s': capacity %lld is out of range (max %lld)",
                            g->res[r].name, (long long)pb->cap[r], (long long)ACS_QTY_MAX);
      }
    }
  }
  return ACS_OK;
}

void acs_problem_destroy(struct acs_problem *pb)
{
  free(pb->dur);
  pb->dur = NULL;
}

int acs_problem_check_demands(const struct acs_problem *pb, struct acs_diag *d)
{
  const struct acs_graph *g = pb->g;

  for (int32_t i = 0; i < pb->nops; i++)
    for (int r = 0; r < pb->nres; r++) {
      int64_t need = acs_problem_demand(pb, i, r);
      if (need > pb->cap[r])
        return acs_diag_set(d, ACS_EINFEASIBLE, g->path, g->ops[i].line, 0,
                            "op '%s' needs %lld of resource '%s' but the platform has %lld",
                            g->ops[i].name, (long long)need, g->res[r].name,
                            (long long)pb->cap[r]);
    }
  return ACS_OK;
}

int64_t acs_bound_critical_path(const struct acs_problem *pb)
{
  const struct acs_graph *g = pb->g;
  int64_t *finish = calloc((size_t)pb->nops + 1, sizeof(*finish));
  int64_t best = 0;

  if (!finish)
    return 0;
  /* Longest path in topological order: earliest finish of every op. */
  for (int32_t k = 0; k < pb->nops; k++) {
    int32_t v = g->topo[k];
    int64_t est = 0;
    for (int32_t j = g->pred_off[v]; j < g->pred_off[v + 1]; j++)
      if (finish[g->pred[j]] > est)
        est = finish[g->pred[j]];
    finish[v] = est + pb->dur[v];
    if (finish[v] > best)
      best = finish[v];
  }
  free(finish);
  return best;
}

/*
 * ceil(work / capacity) of resource r. Work in long double: dur * demand
 * can exceed int64 for CMX bytes. When every op's demand fits the
 * capacity, the quotient is at most the sum of the durations, itself at
 * most ACS_QTY_MAX; past that some op can never run (the schedulers say
 * so), and the bound stays ACS_QTY_MAX: the quotient can pass 2^63, which
 * no int64 holds (a SCALE-Sim row 4.2e9 wide made it 1.7e19).
 */
static int64_t resource_bound(const struct acs_problem *pb, int r)
{
  long double work = 0, q;
  int64_t bound;

  for (int32_t i = 0; i < pb->nops; i++)
    work += (long double)pb->dur[i] * (long double)acs_problem_demand(pb, i, r);
  q = work / (long double)pb->cap[r];
  if (q >= (long double)ACS_QTY_MAX)
    return ACS_QTY_MAX;
  bound = (int64_t)q;
  if ((long double)bound * (long double)pb->cap[r] < work)
    bound++;
  return bound;
}

int64_t acs_bound_resources(const struct acs_problem *pb)
{
  int64_t best = 0;

  for (int r = 0; r < pb->nres; r++) {
    int64_t bound = pb->cap[r] > 0 ? resource_bound(pb, r) : 0;
    if (bound > best)
      best = bound;
  }
  return best;
}

int64_t acs_bound_best(const struct acs_problem *pb)
{
  int64_t a = acs_bound_critical_path(pb), b = acs_bound_resources(pb);

  return a > b ? a : b;
}
