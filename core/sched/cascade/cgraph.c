/*
 * cgraph.c - building the CascaderGraph from a layer graph (see cgraph.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/sched/cascade/cgraph.h"

/* The Tensor of layer tensor lt, made on first use. */
static int32_t tensor_get(struct acs_cgraph *cg, int32_t lt, int64_t elem_bytes, int weight)
{
  const struct acs_ltensor *t = &cg->lg->t[lt];
  struct acs_ctensor *c;

  if (cg->tensor_of[lt] >= 0)
    return cg->tensor_of[lt];
  c = &cg->tensors[cg->ntensors];
  memset(c, 0, sizeof(*c));
  c->lt = lt;
  c->weight = weight || t->kind == ACS_LT_WEIGHT;
  c->producer = -1;
  c->bytes = acs_ltensor_elems(t) * (elem_bytes > 0 ? elem_bytes : t->elem_bytes);
  cg->tensor_of[lt] = cg->ntensors;
  return cg->ntensors++;
}

/* Part k from node v: its slots, propagators and output. */
static int part_build(struct acs_cgraph *cg, int32_t k, int32_t v, int32_t *slot_off,
                      int64_t elem_bytes)
{
  const struct acs_lnode *n = &cg->lg->n[v];
  struct acs_cpart *p = &cg->parts[k];
  int err;

  p->node = v;
  p->view = acs_lnode_is_view(cg->lg, v);
  p->nin = n->nin;
  p->in = cg->slot_in + *slot_off;
  p->prop = cg->slot_prop + *slot_off;
  p->iprop = cg->slot_iprop + *slot_off;
  *slot_off += n->nin;
  for (int s = 0; s < n->nin; s++) {
    int used = n->in[s] >= 0 && (n->role[s] == ACS_LR_DATA || n->role[s] == ACS_LR_WEIGHT);
    p->in[s] = used ? tensor_get(cg, n->in[s], elem_bytes, n->role[s] == ACS_LR_WEIGHT) : -1;
    memset(&p->iprop[s], 0, sizeof(p->iprop[s]));
    if (n->in[s] < 0) {
      memset(&p->prop[s], 0, sizeof(p->prop[s]));
      continue;
    }
    if ((err = acs_prop_of(cg->lg, v, s, &p->prop[s])) < 0)
      return err;
    acs_iprop_make(&p->prop[s], &p->iprop[s]);
  }
  p->out = tensor_get(cg, n->out[0], elem_bytes, 0);
  cg->tensors[p->out].producer = k;
  return ACS_OK;
}

/* Consumers in CSR, in Part order: count, prefix sums, fill. */
static int link_consumers(struct acs_cgraph *cg)
{
  int32_t total = 0;

  for (int32_t k = 0; k < cg->nparts; k++)
    for (int s = 0; s < cg->parts[k].nin; s++)
      if (cg->parts[k].in[s] >= 0)
        cg->tensors[cg->parts[k].in[s]].ncons++, total++;
  if (!(cg->cons = malloc(((size_t)total + 1) * sizeof(*cg->cons))))
    return ACS_ENOMEM;
  for (int32_t t = 0, off = 0; t < cg->ntensors; t++) {
    cg->tensors[t].cons_off = off;
    off += cg->tensors[t].ncons;
    cg->tensors[t].ncons = 0;
  }
  for (int32_t k = 0; k < cg->nparts; k++)
    for (int s = 0; s < cg->parts[k].nin; s++) {
      struct acs_ctensor *t;
      if (cg->parts[k].in[s] < 0)
        continue;
      t = &cg->tensors[cg->parts[k].in[s]];
      cg->cons[t->cons_off + t->ncons++] = (struct acs_ccons){k, s};
    }
  cg->ncons = total;
  return ACS_OK;
}

int acs_cgraph_build(const struct acs_lgraph *lg, int64_t elem_bytes, struct acs_cgraph *cg)
{
  size_t slots = 0;
  int32_t off = 0;
  int err = ACS_ENOMEM;

  memset(cg, 0, sizeof(*cg));
  cg->lg = lg;
  if (!lg->finalized || !lg->inferred)
    return ACS_EINVAL;
  for (int32_t v = 0; v < lg->nnodes; v++)
    slots += (size_t)lg->n[v].nin;
  cg->parts = calloc((size_t)lg->nnodes + 1, sizeof(*cg->parts));
  cg->tensors = calloc((size_t)lg->ntensors + 1, sizeof(*cg->tensors));
  cg->tensor_of = malloc(((size_t)lg->ntensors + 1) * sizeof(*cg->tensor_of));
  cg->slot_in = malloc((slots + 1) * sizeof(*cg->slot_in));
  cg->slot_prop = malloc((slots + 1) * sizeof(*cg->slot_prop));
  cg->slot_iprop = malloc((slots + 1) * sizeof(*cg->slot_iprop));
  if (!cg->parts || !cg->tensors || !cg->tensor_of || !cg->slot_in || !cg->slot_prop ||
      !cg->slot_iprop)
    goto out_with_graph;
  for (int32_t t = 0; t < lg->ntensors; t++)
    cg->tensor_of[t] = -1;
  for (int32_t k = 0; k < lg->nnodes; k++)
    if ((err = part_build(cg, k, lg->topo[k], &off, elem_bytes)) < 0)
      goto out_with_graph;
  cg->nparts = lg->nnodes;
  if ((err = link_consumers(cg)) < 0)
    goto out_with_graph;
  return ACS_OK;

out_with_graph:
  acs_cgraph_free(cg);
  return err;
}

void acs_cgraph_free(struct acs_cgraph *cg)
{
  free(cg->parts);
  free(cg->tensors);
  free(cg->cons);
  free(cg->tensor_of);
  free(cg->slot_in);
  free(cg->slot_prop);
  free(cg->slot_iprop);
  memset(cg, 0, sizeof(*cg));
}
