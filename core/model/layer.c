/*
 * layer.c - the layer graph: construction, tensor names, linking
 * (producers, consumers, topological order), folding and fusing, totals.
 * Shape inference is in layer_infer.c, regions and work in layer_region.c.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/layer.h"

static const struct {
  const char *name;
  int cls;
} lop_table[ACS_LOP__COUNT] = {
#define XX(id, onnx, cls) { onnx, ACS_LC_##cls },
  ACS_LOP_MAP(XX)
#undef XX
};

const char *acs_lop_name(int op)
{
  return op >= 0 && op < ACS_LOP__COUNT ? lop_table[op].name : "?";
}

int acs_lop_parse(const char *name)
{
  for (int i = 0; i < ACS_LOP__COUNT; i++)
    if (strcmp(name, lop_table[i].name) == 0)
      return i;
  return -1;
}

int acs_lop_class(int op)
{
  return op >= 0 && op < ACS_LOP__COUNT ? lop_table[op].cls : -1;
}

int acs_lop_is_mac(int op)
{
  return op == ACS_LOP_CONV || op == ACS_LOP_CONV_TRANSPOSE || op == ACS_LOP_GEMM ||
         op == ACS_LOP_MATMUL;
}

void acs_lname_mask(const char *s, char *buf, size_t size)
{
  size_t j = 0, i;

  if (size == 0)
    return;
  for (i = 0; s && s[i] && j + 1 < size; i++) {
    unsigned char c = (unsigned char)s[i];
    if (i == 80 && size > 84) {
      memcpy(buf + j, "...", 3);
      j += 3;
      break;
    }
    buf[j++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
  buf[j] = '\0';
}

/* ---- tensor names: open addressing over tensor ids, FNV-1a ---- */

struct acs__lindex {
  size_t mask;
  int32_t *slot; /* tensor id or -1 */
};

/* Rebuilds the index with room for n names at a load factor under 1/2. */
static int index_rebuild(struct acs_lgraph *lg, size_t n)
{
  struct acs__lindex *ix = lg->index;
  size_t cap = 64;

  while (cap / 2 <= n) {
    if (cap > SIZE_MAX / 4)
      return ACS_ENOMEM;
    cap *= 2;
  }
  if (ix && ix->mask + 1 >= cap)
    return ACS_OK;
  int32_t *slot = malloc(cap * sizeof(*slot));
  if (!slot)
    return ACS_ENOMEM;
  if (!ix) {
    ix = calloc(1, sizeof(*ix));
    if (!ix) {
      free(slot);
      return ACS_ENOMEM;
    }
    lg->index = ix;
  }
  free(ix->slot);
  ix->slot = slot;
  ix->mask = cap - 1;
  for (size_t i = 0; i < cap; i++)
    slot[i] = -1;
  for (int32_t t = 0; t < lg->ntensors; t++) {
    size_t i = acs_str_hash(lg->t[t].name) & ix->mask;
    while (slot[i] >= 0)
      i = (i + 1) & ix->mask;
    slot[i] = t;
  }
  return ACS_OK;
}

int32_t acs_lgraph_find_tensor(const struct acs_lgraph *lg, const char *name)
{
  const struct acs__lindex *ix = lg->index;
  if (!ix)
    return -1;
  for (size_t i = acs_str_hash(name) & ix->mask; ix->slot[i] >= 0; i = (i + 1) & ix->mask)
    if (strcmp(lg->t[ix->slot[i]].name, name) == 0)
      return ix->slot[i];
  return -1;
}

/* ---- construction ---- */

int acs_lgraph_init(struct acs_lgraph *lg, const char *name, const char *path)
{
  memset(lg, 0, sizeof(*lg));
  acs_arena_init(&lg->arena);
  lg->name = acs_arena_strdup(&lg->arena, name ? name : "");
  lg->path = acs_arena_strdup(&lg->arena, path ? path : "");
  if (!lg->name || !lg->path || index_rebuild(lg, 0) != 0) {
    acs_lgraph_destroy(lg);
    return ACS_ENOMEM;
  }
  return ACS_OK;
}

static void free_links(struct acs_lgraph *lg)
{
  free(lg->cons_off);
  free(lg->cons);
  free(lg->topo);
  lg->cons_off = NULL;
  lg->cons = NULL;
  lg->topo = NULL;
  lg->finalized = lg->inferred = 0;
}

void acs_lgraph_destroy(struct acs_lgraph *lg)
{
  if (!lg)
    return;
  free_links(lg);
  free(lg->t);
  free(lg->n);
  if (lg->index) {
    free(lg->index->slot);
    free(lg->index);
  }
  acs_arena_destroy(&lg->arena);
  memset(lg, 0, sizeof(*lg));
}

int32_t acs_lgraph_add_tensor(struct acs_lgraph *lg, const char *name)
{
  if (acs_lgraph_find_tensor(lg, name) >= 0)
    return ACS_EINVAL;
  if (lg->ntensors == INT32_MAX - 1 ||
      acs_grow((void **)&lg->t, sizeof(*lg->t), &lg->cap_t, (size_t)lg->ntensors + 1) != 0)
    return ACS_ENOMEM;
  struct acs_ltensor *t = &lg->t[lg->ntensors];
  memset(t, 0, sizeof(*t));
  t->name = acs_arena_strdup(&lg->arena, name);
  if (!t->name)
    return ACS_ENOMEM;
  t->producer = -1;
  t->kind = ACS_LT_ACT;
  int32_t id = lg->ntensors++;
  int rc = index_rebuild(lg, (size_t)lg->ntensors);
  if (rc != 0) {
    lg->ntensors--;
    return rc;
  }
  struct acs__lindex *ix = lg->index;
  size_t i = acs_str_hash(t->name) & ix->mask;
  while (ix->slot[i] >= 0 && ix->slot[i] != id)
    i = (i + 1) & ix->mask;
  ix->slot[i] = id;
  free_links(lg);
  return id;
}

void acs_ltensor_set_shape(struct acs_ltensor *t, int rank, const int64_t *dims)
{
  t->rank = rank;
  for (int i = 0; i < rank; i++)
    t->dims[i] = dims[i];
  t->shaped = 1;
}

int32_t acs_lgraph_add_node(struct acs_lgraph *lg, const char *name, int op,
                            const struct acs_lattrs *a, int nin, const int32_t *in,
                            const uint8_t *role, int nout, const int32_t *out)
{
  if (op < 0 || op >= ACS_LOP__COUNT || nin < 0 || nout < 0)
    return ACS_EINVAL;
  if (lg->nnodes == INT32_MAX - 1 ||
      acs_grow((void **)&lg->n, sizeof(*lg->n), &lg->cap_n, (size_t)lg->nnodes + 1) != 0)
    return ACS_ENOMEM;
  struct acs_lnode *n = &lg->n[lg->nnodes];
  memset(n, 0, sizeof(*n));
  n->name = acs_arena_strdup(&lg->arena, name);
  n->in = acs_arena_calloc(&lg->arena, (size_t)nin + 1, sizeof(*n->in));
  n->role = acs_arena_calloc(&lg->arena, (size_t)nin + 1, sizeof(*n->role));
  n->out = acs_arena_calloc(&lg->arena, (size_t)nout + 1, sizeof(*n->out));
  if (!n->name || !n->in || !n->role || !n->out)
    return ACS_ENOMEM;
  n->op = op;
  n->index = lg->nnodes;
  if (a)
    n->a = *a;
  n->nin = nin;
  n->nout = nout;
  if (nin) {
    memcpy(n->in, in, (size_t)nin * sizeof(*in));
    memcpy(n->role, role, (size_t)nin * sizeof(*role));
  }
  if (nout)
    memcpy(n->out, out, (size_t)nout * sizeof(*out));
  free_links(lg);
  return lg->nnodes++;
}

/* ---- linking ---- */

static int node_err(struct acs_diag *d, const struct acs_lgraph *lg, int32_t node,
                    int err, const char *what, const char *tensor)
{
  char nb[128], tb[128];
  acs_lname_mask(lg->n[node].name, nb, sizeof(nb));
  acs_lname_mask(tensor, tb, sizeof(tb));
  return acs_diag_set(d, err, lg->path, 0, 0, "node '%s' (%s): %s '%s'", nb,
                      acs_lop_name(lg->n[node].op), what, tb);
}

static int set_producers(struct acs_lgraph *lg, struct acs_diag *d)
{
  for (int32_t t = 0; t < lg->ntensors; t++)
    lg->t[t].producer = -1;
  for (int32_t v = 0; v < lg->nnodes; v++) {
    const struct acs_lnode *n = &lg->n[v];
    for (int k = 0; k < n->nout; k++) {
      int32_t t = n->out[k];
      if (t < 0)
        continue;
      if (t >= lg->ntensors)
        return ACS_EINVAL;
      struct acs_ltensor *T = &lg->t[t];
      if (T->producer >= 0)
        return node_err(d, lg, v, ACS_EPARSE, "writes a tensor another node already writes:",
                        T->name);
      if (T->kind != ACS_LT_ACT)
        return node_err(d, lg, v, ACS_EPARSE,
                        T->kind == ACS_LT_INPUT ? "writes a network input:" : "writes a constant:",
                        T->name);
      T->producer = v;
    }
  }
  for (int32_t v = 0; v < lg->nnodes; v++) {
    const struct acs_lnode *n = &lg->n[v];
    for (int k = 0; k < n->nin; k++) {
      int32_t t = n->in[k];
      if (t >= lg->ntensors)
        return ACS_EINVAL;
      if (t >= 0 && lg->t[t].kind == ACS_LT_ACT && lg->t[t].producer < 0)
        return node_err(d, lg, v, ACS_EPARSE,
                        "reads a tensor that is neither a network input, a constant nor a "
                        "node's output:", lg->t[t].name);
    }
  }
  return ACS_OK;
}

/* Consumers in CSR form, in node id order: O(V + E). */
static int set_consumers(struct acs_lgraph *lg)
{
  size_t total = 0;
  lg->cons_off = calloc((size_t)lg->ntensors + 1, sizeof(*lg->cons_off));
  if (!lg->cons_off)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < lg->nnodes; v++)
    for (int k = 0; k < lg->n[v].nin; k++)
      if (lg->n[v].in[k] >= 0) {
        lg->cons_off[lg->n[v].in[k] + 1]++;
        total++;
      }
  for (int32_t t = 0; t < lg->ntensors; t++)
    lg->cons_off[t + 1] += lg->cons_off[t];
  lg->cons = malloc((total + 1) * sizeof(*lg->cons));
  int32_t *fill = malloc(((size_t)lg->ntensors + 1) * sizeof(*fill));
  if (!lg->cons || !fill) {
    free(fill);
    return ACS_ENOMEM;
  }
  memcpy(fill, lg->cons_off, (size_t)lg->ntensors * sizeof(*fill));
  for (int32_t v = 0; v < lg->nnodes; v++)
    for (int k = 0; k < lg->n[v].nin; k++) {
      int32_t t = lg->n[v].in[k];
      if (t >= 0)
        lg->cons[fill[t]++] = (struct acs_lref){ v, k };
    }
  free(fill);
  return ACS_OK;
}

/* Names the nodes of one cycle among the nodes Kahn's algorithm left. */
static int report_cycle(struct acs_lgraph *lg, const int32_t *indeg, struct acs_diag *d)
{
  int32_t start = -1, v;
  char msg[900];
  size_t len = 0;

  for (v = 0; v < lg->nnodes && start < 0; v++)
    if (indeg[v] > 0)
      start = v;
  /* Walk back through unfinished producers until a node repeats. */
  int32_t *seen = calloc((size_t)lg->nnodes, sizeof(*seen));
  if (!seen)
    return ACS_ENOMEM;
  v = start;
  for (int32_t step = 1; !seen[v]; step++) {
    seen[v] = step;
    const struct acs_lnode *n = &lg->n[v];
    int32_t next = -1;
    for (int k = 0; k < n->nin && next < 0; k++) {
      int32_t t = n->in[k];
      if (t >= 0 && lg->t[t].producer >= 0 && indeg[lg->t[t].producer] > 0)
        next = lg->t[t].producer;
    }
    if (next < 0)
      break;
    v = next;
  }
  int32_t first = v;
  len += (size_t)snprintf(msg, sizeof(msg), "the nodes form a cycle: ");
  int32_t u = first;
  for (int i = 0; i < 16 && len < sizeof(msg) - 100; i++) {
    char nb[100];
    acs_lname_mask(lg->n[u].name, nb, sizeof(nb));
    len += (size_t)snprintf(msg + len, sizeof(msg) - len, "'%s' <- ", nb);
    const struct acs_lnode *n = &lg->n[u];
    int32_t next = -1;
    for (int k = 0; k < n->nin && next < 0; k++) {
      int32_t t = n->in[k];
      if (t >= 0 && lg->t[t].producer >= 0 && indeg[lg->t[t].producer] > 0)
        next = lg->t[t].producer;
    }
    if (next < 0 || next == first) {
      char fb[100];
      acs_lname_mask(lg->n[first].name, fb, sizeof(fb));
      snprintf(msg + len, sizeof(msg) - len, "'%s'", fb);
      break;
    }
    u = next;
  }
  free(seen);
  return acs_diag_set(d, ACS_ECYCLE, lg->path, 0, 0, "%s", msg);
}

/* Kahn's algorithm with a FIFO seeded in id order: O(V + E). */
static int set_topo(struct acs_lgraph *lg, struct acs_diag *d)
{
  int32_t *indeg = calloc((size_t)lg->nnodes + 1, sizeof(*indeg));
  lg->topo = malloc(((size_t)lg->nnodes + 1) * sizeof(*lg->topo));
  if (!indeg || !lg->topo) {
    free(indeg);
    return ACS_ENOMEM;
  }
  for (int32_t v = 0; v < lg->nnodes; v++)
    for (int k = 0; k < lg->n[v].nin; k++) {
      int32_t t = lg->n[v].in[k];
      if (t >= 0 && lg->t[t].producer >= 0)
        indeg[v]++;
    }
  int32_t head = 0, tail = 0;
  for (int32_t v = 0; v < lg->nnodes; v++)
    if (indeg[v] == 0)
      lg->topo[tail++] = v;
  while (head < tail) {
    const struct acs_lnode *n = &lg->n[lg->topo[head++]];
    for (int k = 0; k < n->nout; k++) {
      int32_t t = n->out[k];
      if (t < 0)
        continue;
      for (int32_t c = lg->cons_off[t]; c < lg->cons_off[t + 1]; c++)
        if (--indeg[lg->cons[c].node] == 0)
          lg->topo[tail++] = lg->cons[c].node;
    }
  }
  int rc = tail == lg->nnodes ? ACS_OK : report_cycle(lg, indeg, d);
  free(indeg);
  return rc;
}

int acs_lgraph_finalize(struct acs_lgraph *lg, struct acs_diag *d)
{
  free_links(lg);
  int rc = set_producers(lg, d);
  if (rc == 0)
    rc = set_consumers(lg);
  if (rc == 0)
    rc = set_topo(lg, d);
  if (rc != 0) {
    free_links(lg);
    return rc;
  }
  lg->finalized = 1;
  return ACS_OK;
}

const struct acs_lref *acs_lgraph_consumers(const struct acs_lgraph *lg, int32_t t,
                                            int32_t *n)
{
  *n = lg->cons_off[t + 1] - lg->cons_off[t];
  return lg->cons + lg->cons_off[t];
}

/* ---- folding and fusing ---- */

static int only_reader(const struct acs_lgraph *lg, int32_t t, int32_t node)
{
  int32_t n;
  const struct acs_lref *c = acs_lgraph_consumers(lg, t, &n);
  return n == 1 && c[0].node == node && !lg->t[t].is_output;
}

static int is_activation(int op)
{
  return op == ACS_LOP_RELU || op == ACS_LOP_LEAKY_RELU || op == ACS_LOP_CLIP ||
         op == ACS_LOP_SIGMOID || op == ACS_LOP_HARD_SIGMOID || op == ACS_LOP_HARD_SWISH ||
         op == ACS_LOP_TANH;
}

static int has_activation(const struct acs_lnode *n)
{
  for (int i = 0; i < n->nfused; i++)
    if (is_activation(n->fused[i]))
      return 1;
  return 0;
}

/* The node that node v (a BatchNormalization or an activation) folds into,
 * or -1: the producer of its data input, when v is that tensor's only
 * reader and v writes one output. */
static int32_t fuse_target(const struct acs_lgraph *lg, int32_t v)
{
  const struct acs_lnode *n = &lg->n[v];
  int nouts = 0;
  for (int k = 0; k < n->nout; k++)
    nouts += n->out[k] >= 0;
  if (n->nin < 1 || n->in[0] < 0 || nouts != 1 || n->out[0] < 0)
    return -1;
  int32_t t = n->in[0], p = lg->t[t].producer;
  if (p < 0 || !only_reader(lg, t, v) || lg->n[p].nfused >= ACS_LAYER_MAX_FUSED)
    return -1;
  const struct acs_lnode *P = &lg->n[p];
  if (P->out[0] != t)
    return -1;
  int conv = P->op == ACS_LOP_CONV || P->op == ACS_LOP_CONV_TRANSPOSE;
  if (n->op == ACS_LOP_BATCH_NORM)
    return conv && P->nfused == 0 ? p : -1;
  if (!is_activation(n->op) || has_activation(P))
    return -1;
  int cls = acs_lop_class(P->op);
  return cls == ACS_LC_CONV || cls == ACS_LC_MATMUL ||
         (cls == ACS_LC_BINARY && P->op != ACS_LOP_PRELU) ? p : -1;
}

/* Node v folds into p: p takes v's output (and, for a BatchNormalization
 * after a convolution without bias, its bias B). v is marked dead. */
static int fold_into(struct acs_lgraph *lg, int32_t v, int32_t p, uint8_t *dead)
{
  struct acs_lnode *n = &lg->n[v], *P = &lg->n[p];
  if (n->op == ACS_LOP_BATCH_NORM) {
    /* scale goes into the weights; B into the bias, or away if there is one */
    int64_t c = lg->t[n->out[0]].dims[1];
    P->folded_params += P->nin >= 3 && P->in[2] >= 0 ? 2 * c : c;
  }
  if (n->op == ACS_LOP_BATCH_NORM && (P->nin < 3 || P->in[2] < 0) && n->nin >= 3 &&
      n->in[2] >= 0) {
    if (P->nin < 3) {
      int32_t *in = acs_arena_calloc(&lg->arena, 4, sizeof(*in));
      uint8_t *role = acs_arena_calloc(&lg->arena, 4, sizeof(*role));
      if (!in || !role)
        return ACS_ENOMEM;
      memcpy(in, P->in, (size_t)P->nin * sizeof(*in));
      memcpy(role, P->role, (size_t)P->nin * sizeof(*role));
      for (int k = P->nin; k < 3; k++)
        in[k] = -1;
      P->in = in;
      P->role = role;
      P->nin = 3;
    }
    P->in[2] = n->in[2];
    P->role[2] = ACS_LR_WEIGHT;
  }
  P->out[0] = n->out[0];
  P->fused[P->nfused++] = n->op;
  dead[v] = 1;
  return ACS_OK;
}

/* Drops dead nodes and tensors nothing uses any more, renumbering both. */
static int compact(struct acs_lgraph *lg, const uint8_t *dead)
{
  int32_t *tmap = malloc(((size_t)lg->ntensors + 1) * sizeof(*tmap));
  uint8_t *used = calloc((size_t)lg->ntensors + 1, 1);
  if (!tmap || !used) {
    free(tmap);
    free(used);
    return ACS_ENOMEM;
  }
  for (int32_t i = 0; i < lg->ninputs; i++)
    used[lg->inputs[i]] = 1;
  for (int32_t i = 0; i < lg->noutputs; i++)
    used[lg->outputs[i]] = 1;
  for (int32_t v = 0; v < lg->nnodes; v++) {
    if (dead[v])
      continue;
    for (int k = 0; k < lg->n[v].nin; k++)
      if (lg->n[v].in[k] >= 0)
        used[lg->n[v].in[k]] = 1;
    for (int k = 0; k < lg->n[v].nout; k++)
      if (lg->n[v].out[k] >= 0)
        used[lg->n[v].out[k]] = 1;
  }
  int32_t nt = 0, nn = 0;
  for (int32_t t = 0; t < lg->ntensors; t++) {
    tmap[t] = used[t] ? nt : -1;
    if (used[t])
      lg->t[nt++] = lg->t[t];
  }
  for (int32_t v = 0; v < lg->nnodes; v++) {
    if (dead[v])
      continue;
    struct acs_lnode *n = &lg->n[nn];
    *n = lg->n[v];
    for (int k = 0; k < n->nin; k++)
      n->in[k] = n->in[k] >= 0 ? tmap[n->in[k]] : -1;
    for (int k = 0; k < n->nout; k++)
      n->out[k] = n->out[k] >= 0 ? tmap[n->out[k]] : -1;
    nn++;
  }
  for (int32_t i = 0; i < lg->ninputs; i++)
    lg->inputs[i] = tmap[lg->inputs[i]];
  for (int32_t i = 0; i < lg->noutputs; i++)
    lg->outputs[i] = tmap[lg->outputs[i]];
  lg->ntensors = nt;
  lg->nnodes = nn;
  free(tmap);
  free(used);
  /* The ids changed: index the names afresh. */
  if (lg->index) {
    free(lg->index->slot);
    free(lg->index);
    lg->index = NULL;
  }
  return index_rebuild(lg, (size_t)lg->ntensors);
}

int acs_lgraph_fuse(struct acs_lgraph *lg, struct acs_diag *d)
{
  if (!lg->inferred)
    return ACS_EINVAL;
  uint8_t *dead = calloc((size_t)lg->nnodes + 1, 1);
  if (!dead)
    return ACS_ENOMEM;
  int rc = ACS_OK, changed = 0;
  /* In topological order, so Conv -> BN -> Relu folds BN first; each fold
   * keeps the links of the untouched nodes valid, and a folded node's
   * output keeps its single reader, so later folds see the updated producer. */
  for (int32_t i = 0; i < lg->nnodes && rc == 0; i++) {
    int32_t v = lg->topo[i];
    const struct acs_lnode *n = &lg->n[v];
    if (n->op != ACS_LOP_BATCH_NORM && !is_activation(n->op))
      continue;
    int32_t p = fuse_target(lg, v);
    if (p < 0)
      continue;
    int32_t t_mid = n->in[0], t_out = n->out[0];
    rc = fold_into(lg, v, p, dead);
    if (rc == 0) {
      /* Keep the links the next folds read: t_out is now p's output. */
      lg->t[t_out].producer = p;
      lg->t[t_mid].producer = -1;
      changed = 1;
    }
  }
  if (rc == 0 && changed)
    rc = compact(lg, dead);
  free(dead);
  if (rc != 0 || !changed)
    return rc;
  rc = acs_lgraph_finalize(lg, d);
  return rc == 0 ? acs_lgraph_infer(lg, d) : rc;
}

/* ---- queries ---- */

int64_t acs_ltensor_elems(const struct acs_ltensor *t)
{
  int64_t e = 1;
  for (int i = 0; i < t->rank; i++)
    if (acs_mul_i64(e, t->dims[i], &e) != 0)
      return INT64_MAX;
  return e;
}

void acs_ltensor_box(const struct acs_ltensor *t, struct acs_lbox *b)
{
  b->rank = t->rank;
  for (int i = 0; i < t->rank; i++) {
    b->lo[i] = 0;
    b->hi[i] = t->dims[i];
  }
}

int64_t acs_lbox_elems(const struct acs_lbox *b)
{
  int64_t e = 1;
  for (int i = 0; i < b->rank; i++) {
    if (b->hi[i] <= b->lo[i])
      return 0;
    if (acs_mul_i64(e, b->hi[i] - b->lo[i], &e) != 0)
      return INT64_MAX;
  }
  return e;
}

int acs_lnode_is_view(const struct acs_lgraph *lg, int32_t node)
{
  const struct acs_lnode *n = &lg->n[node];
  int cls = acs_lop_class(n->op);
  if (cls == ACS_LC_VIEW)
    return 1;
  if (cls != ACS_LC_CONCAT || n->out[0] < 0)
    return 0;
  const struct acs_ltensor *o = &lg->t[n->out[0]];
  for (int64_t i = 0; i < n->a.axis && i < o->rank; i++)
    if (o->dims[i] != 1)
      return 0;
  for (int k = 0; k < n->nin; k++)
    if (n->in[k] >= 0 && n->role[k] != ACS_LR_DATA)
      return 0; /* a constant slice must be copied in */
  return 1;
}

int64_t acs_lnode_weight_elems(const struct acs_lgraph *lg, int32_t node)
{
  const struct acs_lnode *n = &lg->n[node];
  int64_t e = 0;
  for (int k = 0; k < n->nin; k++)
    if (n->in[k] >= 0 && n->role[k] == ACS_LR_WEIGHT)
      e += acs_ltensor_elems(&lg->t[n->in[k]]);
  return e;
}

static int64_t tensor_bytes(const struct acs_ltensor *t, int64_t elem_bytes)
{
  int64_t b;
  if (acs_mul_i64(acs_ltensor_elems(t), elem_bytes ? elem_bytes : t->elem_bytes, &b) != 0)
    return INT64_MAX;
  return b;
}

/* Bytes of a node's distinct data inputs plus its outputs. */
static int64_t node_io_bytes(const struct acs_lgraph *lg, int32_t v, int64_t elem_bytes)
{
  const struct acs_lnode *n = &lg->n[v];
  int64_t sum = 0;
  for (int k = 0; k < n->nin; k++) {
    int32_t t = n->in[k];
    int dup = 0;
    if (t < 0 || n->role[k] != ACS_LR_DATA)
      continue;
    for (int j = 0; j < k; j++)
      dup |= n->in[j] == t && n->role[j] == ACS_LR_DATA;
    if (!dup && acs_add_i64(sum, tensor_bytes(&lg->t[t], elem_bytes), &sum) != 0)
      return INT64_MAX;
  }
  for (int k = 0; k < n->nout; k++)
    if (n->out[k] >= 0 &&
        acs_add_i64(sum, tensor_bytes(&lg->t[n->out[k]], elem_bytes), &sum) != 0)
      return INT64_MAX;
  return sum;
}

int acs_lgraph_totals(const struct acs_lgraph *lg, int64_t elem_bytes,
                      struct acs_lgraph_totals *out)
{
  memset(out, 0, sizeof(*out));
  out->naive_node = -1;
  for (int32_t v = 0; v < lg->nnodes; v++) {
    const struct acs_lnode *n = &lg->n[v];
    struct acs_lbox box;
    int64_t work, w = 0;
    if (n->out[0] < 0)
      continue;
    acs_ltensor_box(&lg->t[n->out[0]], &box);
    int rc = acs_lnode_work(lg, v, &box, &work);
    if (rc != 0)
      return rc;
    if (acs_add_i64(acs_lop_is_mac(n->op) ? out->macs : out->ops, work,
                    acs_lop_is_mac(n->op) ? &out->macs : &out->ops) != 0)
      return ACS_ERANGE;
    for (int k = 0; k < n->nin; k++)
      if (n->in[k] >= 0 && n->role[k] == ACS_LR_WEIGHT &&
          acs_add_i64(w, tensor_bytes(&lg->t[n->in[k]], elem_bytes), &w) != 0)
        return ACS_ERANGE;
    if (acs_add_i64(out->params, acs_lnode_weight_elems(lg, v), &out->params) != 0 ||
        acs_add_i64(out->params, n->folded_params, &out->params) != 0 ||
        acs_add_i64(out->weight_bytes, w, &out->weight_bytes) != 0)
      return ACS_ERANGE;
    if (acs_lnode_is_view(lg, v))
      continue;
    int64_t io = node_io_bytes(lg, v, elem_bytes);
    if (io == INT64_MAX)
      return ACS_ERANGE;
    if (io > out->naive_ws) {
      out->naive_ws = io;
      out->naive_node = v;
    }
  }
  return ACS_OK;
}

void acs_lnode_op_text(const struct acs_lnode *n, char *buf, size_t size)
{
  size_t len = (size_t)snprintf(buf, size, "%s", acs_lop_name(n->op));
  for (int i = 0; i < n->nfused && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "+%s", acs_lop_name(n->fused[i]));
}

void acs_ltensor_shape_text(const struct acs_ltensor *t, char *buf, size_t size)
{
  size_t len = 0;
  if (size == 0)
    return;
  buf[0] = '\0';
  if (t->rank == 0) {
    snprintf(buf, size, "scalar");
    return;
  }
  for (int i = 0; i < t->rank && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? "x" : "",
                            (long long)t->dims[i]);
}
