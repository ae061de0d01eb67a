/*
 * onnx.c - ONNX models (.onnx) into layer graphs.
 *
 * The file is decoded by protobuf-c with the code protoc-c generates at
 * build time from the ONNX schema of libonnx-dev (core/load/onnx.pb-c.h in
 * the build tree); nothing here decodes protobuf by hand. The reader then
 * maps the graph onto the layer graph (core/model/layer.h): initializers and
 * Constant nodes become constants, each node of a supported op becomes a
 * node with its attributes (ONNX defaults of the model's opset applied) and
 * the role of each input (data, weight, or a parameter folded into the
 * attributes such as a Reshape's shape), graph inputs become network inputs
 * or, when only weight slots read them, weights (shape-only models declare
 * their weights that way). Shapes come from acsim's own inference; the
 * shapes the file declares (value_info, graph outputs) are checked against
 * it. Errors are located by node: "file: node 'conv1' (Conv): ...".
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/load/onnx_int.h"

/* ---- the file ---- */

/*
 * Reads the whole file: every file the ONNX reader opens goes through here.
 * Returns a malloc'd buffer (one byte more than *len, so even an empty file
 * has one).
 */
static int read_file(const char *path, uint8_t **buf, size_t *len, struct acs_diag *d)
{
  struct stat st;
  FILE *f = fopen(path, "rb");
  *buf = NULL;
  *len = 0;
  if (!f)
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot open: %s", strerror(errno));
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "not a regular file");
  }
  if ((uint64_t)st.st_size > ACS_ONNX_MAX_BYTES) {
    fclose(f);
    return acs_diag_set(d, ACS_EFORMAT, path, 0, 0, "file of %lld bytes is larger than "
                        "protobuf's 2 GiB limit", (long long)st.st_size);
  }
  *buf = malloc((size_t)st.st_size + 1);
  if (!*buf) {
    fclose(f);
    return ACS_ENOMEM;
  }
  *len = fread(*buf, 1, (size_t)st.st_size, f);
  int bad = ferror(f) || *len != (size_t)st.st_size;
  fclose(f);
  if (bad) {
    free(*buf);
    *buf = NULL;
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "read error");
  }
  return ACS_OK;
}

/* ---- tensors ---- */

static int grow_k(struct acs_onnx_rd *r)
{
  size_t old = r->cap_k;
  if (acs_grow((void **)&r->k, sizeof(*r->k), &r->cap_k, (size_t)r->lg->ntensors + 1) != 0)
    return ACS_ENOMEM;
  if (r->cap_k > old)
    memset(r->k + old, 0, (r->cap_k - old) * sizeof(*r->k));
  return ACS_OK;
}

/* A new tensor `name`; `what` names the definition for the error when the
 * name is taken. */
static int new_tensor(struct acs_onnx_rd *r, const char *name, const char *what, int32_t *id)
{
  char tb[128];
  if (!name || !*name)
    return acs__onnx_ferr(r, ACS_EPARSE, "%s without a name", what);
  *id = acs_lgraph_add_tensor(r->lg, name);
  if (*id == ACS_EINVAL)
    return acs__onnx_ferr(r, ACS_EPARSE, "%s '%s' is defined twice", what,
                          acs__onnx_masked(name, tb, sizeof(tb)));
  if (*id < 0)
    return *id;
  return grow_k(r);
}

/* A constant's shape from its Onnx__TensorProto (dims may be 0: empty constants
 * are legal as parameters, e.g. an unused Resize roi). */
static int const_shape(struct acs_onnx_rd *r, int32_t id, const Onnx__TensorProto *tp,
                       const char *what)
{
  struct acs_ltensor *t = &r->lg->t[id];
  char tb[128];
  acs__onnx_masked(t->name, tb, sizeof(tb));
  if (tp->n_dims > ACS_LAYER_MAX_RANK)
    return acs__onnx_ferr(r, ACS_EPARSE, "%s '%s' has rank %zu (at most %d)", what, tb, tp->n_dims,
                          ACS_LAYER_MAX_RANK);
  for (size_t i = 0; i < tp->n_dims; i++)
    if (tp->dims[i] < 0)
      return acs__onnx_ferr(r, ACS_EPARSE, "%s '%s' has a negative dimension %lld", what, tb,
                            (long long)tp->dims[i]);
  if (acs__onnx_tp_elems(tp) < 0 || acs__onnx_tp_elems(tp) > INT64_MAX / 16)
    return acs__onnx_ferr(r, ACS_ERANGE, "%s '%s' has too many elements", what, tb);
  acs_ltensor_set_shape(t, (int)tp->n_dims, tp->dims);
  t->dtype = tp->data_type;
  t->elem_bytes = acs_ldtype_bytes(tp->data_type);
  t->kind = ACS_LT_WEIGHT;
  r->k[id].tp = tp;
  return ACS_OK;
}

static int add_initializers(struct acs_onnx_rd *r)
{
  for (size_t i = 0; i < r->g->n_initializer; i++) {
    const Onnx__TensorProto *tp = r->g->initializer[i];
    int32_t id;
    int rc = new_tensor(r, tp->name, "initializer", &id);
    if (rc == 0)
      rc = const_shape(r, id, tp, "initializer");
    if (rc != 0)
      return rc;
  }
  if (r->g->n_sparse_initializer)
    return acs__onnx_ferr(r, ACS_EPARSE, "sparse initializers are not supported");
  return ACS_OK;
}

/* A Constant node's value becomes a constant tensor named after its output. */
static int add_constant(struct acs_onnx_rd *r, const Onnx__NodeProto *n)
{
  int32_t id;
  if (n->n_output != 1 || n->n_attribute != 1)
    return acs__onnx_nerr(r, ACS_EPARSE, "needs one output and one value attribute");
  const Onnx__AttributeProto *at = n->attribute[0];
  int rc = new_tensor(r, n->output[0], "tensor", &id);
  if (rc != 0)
    return rc;
  struct acs_ltensor *t = &r->lg->t[id];
  struct acs_onnx_konst *k = &r->k[id];
  const char *an = at->name ? at->name : "";
  t->kind = ACS_LT_WEIGHT;
  if (strcmp(an, "value") == 0 && at->t)
    return const_shape(r, id, at->t, "constant");
  int64_t one = 1;
  if (strcmp(an, "value_float") == 0) {
    k->floats = &at->f;
    k->n = 1;
    t->dtype = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  } else if (strcmp(an, "value_int") == 0) {
    k->ints = &at->i;
    k->n = 1;
    t->dtype = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  } else if (strcmp(an, "value_floats") == 0) {
    k->floats = at->floats;
    k->n = at->n_floats;
    t->dtype = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  } else if (strcmp(an, "value_ints") == 0) {
    k->ints = at->ints;
    k->n = at->n_ints;
    t->dtype = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  } else {
    char ab[64];
    return acs__onnx_nerr(r, ACS_EPARSE, "attribute '%s' is not supported",
                          acs__onnx_masked(an, ab, sizeof(ab)));
  }
  int64_t n1 = (int64_t)k->n;
  k->scalar = strcmp(an, "value_float") == 0 || strcmp(an, "value_int") == 0;
  acs_ltensor_set_shape(t, k->scalar ? 0 : 1, k->scalar ? &one : &n1);
  t->elem_bytes = acs_ldtype_bytes(t->dtype);
  return ACS_OK;
}

/*
 * A declared tensor type: rank, dims (-1 where the file gives no value),
 * element type. Returns 1 when vi is a tensor type with a shape, 0 when it
 * is a tensor without a shape, -1 when it is not a tensor type.
 */
static int vi_shape(const Onnx__ValueInfoProto *vi, int *rank, int64_t *dims, int *dtype,
                    int *unknown, const char **param)
{
  const Onnx__TypeProto *tp = vi->type;
  *unknown = -1;
  *param = NULL;
  *dtype = 0;
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
    return -1;
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  *dtype = tt->has_elem_type ? tt->elem_type : 0;
  if (!tt->shape)
    return 0;
  if (tt->shape->n_dim > ACS_LAYER_MAX_RANK) {
    *rank = (int)tt->shape->n_dim;
    return 1;
  }
  *rank = (int)tt->shape->n_dim;
  for (int i = 0; i < *rank; i++) {
    const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[i];
    if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
      dims[i] = dm->dim_value;
    } else {
      dims[i] = -1;
      if (*unknown < 0) {
        *unknown = i;
        if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
          *param = dm->dim_param;
      }
    }
  }
  return 1;
}

/* Graph inputs that are not initializers: network inputs for now (weights
 * or parameters once the nodes show how they are read). Shapes are checked
 * when the inputs are classified, so an unknown dimension can name the node
 * that reads it. */
static int add_graph_inputs(struct acs_onnx_rd *r)
{
  for (size_t i = 0; i < r->g->n_input; i++) {
    const Onnx__ValueInfoProto *vi = r->g->input[i];
    if (vi->name && acs_lgraph_find_tensor(r->lg, vi->name) >= 0 &&
        r->k[acs_lgraph_find_tensor(r->lg, vi->name)].tp)
      continue; /* an initializer also listed as an input (IR version < 4) */
    int32_t id;
    int rc = new_tensor(r, vi->name, "graph input", &id);
    if (rc != 0)
      return rc;
    r->lg->t[id].kind = ACS_LT_INPUT;
  }
  return ACS_OK;
}

/* ---- nodes ---- */

static int is_default_domain(const char *dom)
{
  return !dom || !*dom || strcmp(dom, "ai.onnx") == 0;
}

/* Names the node for the messages and the graph: its own name, or
 * "<op>_<index>" when it has none; "@<index>" makes a repeated name unique,
 * control bytes become '?' and long names are cut. */
static int name_node(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int32_t i, const char **out)
{
  char buf[ACS_ONNX_NODE_NAME_MAX + 32];
  int32_t old;
  if (n->name && *n->name)
    snprintf(buf, ACS_ONNX_NODE_NAME_MAX + 1, "%s", n->name);
  else
    snprintf(buf, sizeof(buf), "%.64s_%d", n->op_type ? n->op_type : "node", (int)i);
  for (char *p = buf; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      *p = '?';
  if (acs__names_get(&r->names, buf) >= 0) {
    size_t len = strlen(buf);
    snprintf(buf + len, sizeof(buf) - len, "@%d", (int)i);
  }
  *out = acs_arena_strdup(&r->lg->arena, buf);
  if (!*out)
    return ACS_ENOMEM;
  int rc = acs__names_put(&r->names, *out, i, &old);
  return rc < 0 ? rc : ACS_OK;
}

static void at_node(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int32_t i, const char *name)
{
  r->cur = i;
  r->cur_name = name;
  r->cur_op = n->op_type ? n->op_type : "";
}

/* Every node must be of a supported op: the first that is not is the error. */
static int check_ops(struct acs_onnx_rd *r)
{
  for (size_t i = 0; i < r->g->n_node; i++) {
    const Onnx__NodeProto *n = r->g->node[i];
    char nb[128], db[64];
    const char *name = n->name && *n->name ? n->name : "";
    if (!n->op_type || !*n->op_type)
      return acs__onnx_ferr(r, ACS_EPARSE, "node %zu ('%s') has no op_type", i,
                            acs__onnx_masked(name, nb, sizeof(nb)));
    at_node(r, n, (int32_t)i, *name ? name : "");
    if (!*name) {
      snprintf(nb, sizeof(nb), "%.64s_%zu", n->op_type, i);
      r->cur_name = nb;
    }
    if (!is_default_domain(n->domain))
      return acs__onnx_nerr(r, ACS_EPARSE, "ops of domain '%s' are not supported",
                            acs__onnx_masked(n->domain, db, sizeof(db)));
    if (strcmp(n->op_type, "Constant") != 0 && acs_lop_parse(n->op_type) < 0)
      return acs__onnx_nerr(r, ACS_EPARSE,
                            "unsupported op (README \"ONNX models\" lists the "
                            "supported ones)");
  }
  return ACS_OK;
}

/* Pass 1: names, constants, and a tensor for every node output. */
static int add_outputs(struct acs_onnx_rd *r, const char **names)
{
  for (size_t i = 0; i < r->g->n_node; i++) {
    const Onnx__NodeProto *n = r->g->node[i];
    int rc = name_node(r, n, (int32_t)i, &names[i]);
    if (rc != 0)
      return rc;
    at_node(r, n, (int32_t)i, names[i]);
    if (strcmp(n->op_type, "Constant") == 0) {
      if ((rc = add_constant(r, n)) != 0)
        return rc;
      continue;
    }
    if (n->n_output == 0 || !n->output[0] || !*n->output[0])
      return acs__onnx_nerr(r, ACS_EPARSE, "has no output");
    for (size_t k = 0; k < n->n_output; k++) {
      int32_t id;
      char tb[128];
      if (!n->output[k] || !*n->output[k])
        continue;
      id = acs_lgraph_add_tensor(r->lg, n->output[k]);
      if (id == ACS_EINVAL)
        return acs__onnx_nerr(r, ACS_EPARSE, "output '%s' is already defined",
                              acs__onnx_masked(n->output[k], tb, sizeof(tb)));
      if (id < 0 || (rc = grow_k(r)) != 0)
        return id < 0 ? id : rc;
    }
  }
  return ACS_OK;
}

enum { USE_DATA = 1, USE_WEIGHT = 2, USE_PARAM = 4 };

struct uses {
  uint8_t *flags;              /* per tensor */
  int32_t *first;              /* per tensor: the file index of its first reader, -1 */
};

/* Pass 2: a node's inputs with their roles, its attributes, the node. */
static int add_node(struct acs_onnx_rd *r, const Onnx__NodeProto *n, const char *name,
                    struct uses *u)
{
  int op = acs_lop_parse(n->op_type), nin = (int)n->n_input, nout = (int)n->n_output, rc;
  struct acs_lattrs a;
  char tb[128];
  if (n->n_input > (size_t)acs__onnx_max_inputs(r, op))
    return acs__onnx_nerr(r, ACS_EPARSE, "has %zu inputs; the op takes at most %d", n->n_input,
                          acs__onnx_max_inputs(r, op));
  if (n->n_output > 8)
    return acs__onnx_nerr(r, ACS_EPARSE, "has %zu outputs (at most 8)", n->n_output);
  int32_t *in = calloc((size_t)nin + 1, sizeof(*in)), out[8];
  uint8_t *role = calloc((size_t)nin + 1, sizeof(*role));
  if (!in || !role) {
    rc = ACS_ENOMEM;
    goto out_with_arrays;
  }
  for (int k = 0; k < nin; k++) {
    const char *tn = n->input[k];
    in[k] = tn && *tn ? acs_lgraph_find_tensor(r->lg, tn) : -1;
    role[k] = in[k] >= 0 ? acs__onnx_slot_role(op, k) : ACS_LR_NONE;
    if (tn && *tn && in[k] < 0) {
      rc = acs__onnx_nerr(r, ACS_EPARSE,
                          "reads '%s', which no initializer, graph input or node defines",
                          acs__onnx_masked(tn, tb, sizeof(tb)));
      goto out_with_arrays;
    }
    if (in[k] < 0)
      continue;
    const struct acs_ltensor *t = &r->lg->t[in[k]];
    /* A constant read as data is a weight; a node's output read as a
     * weight is data. */
    if (role[k] == ACS_LR_DATA && t->kind == ACS_LT_WEIGHT)
      role[k] = ACS_LR_WEIGHT;
    else if (role[k] == ACS_LR_WEIGHT && t->kind == ACS_LT_ACT)
      role[k] = ACS_LR_DATA;
    u->flags[in[k]] |= role[k] == ACS_LR_DATA ? USE_DATA
                     : role[k] == ACS_LR_WEIGHT ? USE_WEIGHT : USE_PARAM;
    if (u->first[in[k]] < 0)
      u->first[in[k]] = r->cur;
  }
  for (int k = 0; k < nout; k++)
    out[k] = n->output[k] && *n->output[k] ? acs_lgraph_find_tensor(r->lg, n->output[k]) : -1;
  rc = acs__onnx_parse_attrs(r, n, op, &a);
  if (rc == 0)
    rc = acs__onnx_resolve_params(r, op, in, nin, &a);
  if (rc == 0) {
    int32_t id = acs_lgraph_add_node(r->lg, name, op, &a, nin, in, role, nout, out);
    rc = id < 0 ? id : ACS_OK;
    if (id >= 0)
      r->lg->n[id].index = r->cur;
  }
out_with_arrays:
  free(in);
  free(role);
  return rc;
}

/* Graph inputs read as data are network inputs; read only as weights,
 * weights; only as parameters, parameters. Inputs and weights need a known
 * shape of dims >= 1: an unknown dimension names the first node reading it. */
static int classify(struct acs_onnx_rd *r, const struct uses *u, const char **names)
{
  struct acs_lgraph *lg = r->lg;
  int32_t ninputs = 0;
  for (int32_t t = 0; t < lg->ntensors; t++) {
    struct acs_ltensor *T = &lg->t[t];
    uint8_t f = u->flags[t];
    if (T->kind == ACS_LT_INPUT)
      T->kind = f & USE_DATA ? ACS_LT_INPUT : f & USE_WEIGHT ? ACS_LT_WEIGHT
              : f & USE_PARAM ? ACS_LT_PARAM : ACS_LT_INPUT;
    else if (T->kind == ACS_LT_WEIGHT && !(f & (USE_DATA | USE_WEIGHT)) && f & USE_PARAM)
      T->kind = ACS_LT_PARAM;
    ninputs += T->kind == ACS_LT_INPUT && !r->k[t].tp;
  }
  lg->inputs = acs_arena_calloc(&lg->arena, (size_t)ninputs + 1, sizeof(*lg->inputs));
  if (!lg->inputs)
    return ACS_ENOMEM;
  for (size_t i = 0; i < r->g->n_input; i++) {
    const Onnx__ValueInfoProto *vi = r->g->input[i];
    int32_t t = acs_lgraph_find_tensor(lg, vi->name);
    struct acs_ltensor *T = &lg->t[t];
    int rank, dtype, unknown;
    int64_t dims[ACS_LAYER_MAX_RANK];
    const char *param;
    char tb[128], pb[64];
    if (r->k[t].tp)
      continue;
    if (T->kind == ACS_LT_INPUT)
      lg->inputs[lg->ninputs++] = t;
    if (T->kind == ACS_LT_PARAM || !u->flags[t])
      continue; /* no memory of its own: its shape does not matter */
    const Onnx__NodeProto *n = r->g->node[u->first[t]];
    at_node(r, n, u->first[t], names[u->first[t]]);
    acs__onnx_masked(T->name, tb, sizeof(tb));
    int has = vi_shape(vi, &rank, dims, &dtype, &unknown, &param);
    if (has < 0)
      return acs__onnx_nerr(r, ACS_EPARSE,
                            "input '%s' is not a tensor (sequence, map and optional "
                            "types are not supported)",
                            tb);
    if (has == 0)
      return acs__onnx_nerr(r, ACS_EPARSE, "input '%s' has no shape in the file", tb);
    if (rank > ACS_LAYER_MAX_RANK)
      return acs__onnx_nerr(r, ACS_EPARSE, "input '%s' has rank %d (at most %d)", tb, rank,
                            ACS_LAYER_MAX_RANK);
    if (unknown >= 0)
      return acs__onnx_nerr(r, ACS_EPARSE, "input '%s' has an unknown dimension %d%s%s%s", tb,
                            unknown, param ? " ('" : "",
                            param ? acs__onnx_masked(param, pb, sizeof(pb)) : "",
                            param ? "')" : "");
    for (int k = 0; k < rank; k++)
      if (dims[k] < 1)
        return acs__onnx_nerr(r, ACS_EPARSE,
                              "input '%s' has dimension %d of size %lld (empty tensors "
                              "are not supported)",
                              tb, k, (long long)dims[k]);
    acs_ltensor_set_shape(T, rank, dims);
    if (acs_ltensor_elems(T) > INT64_MAX / 16)
      return acs__onnx_nerr(r, ACS_ERANGE, "input '%s' has more than %lld elements", tb,
                            (long long)(INT64_MAX / 16));
    T->dtype = dtype;
    T->elem_bytes = acs_ldtype_bytes(dtype);
  }
  /* Constants read as weights must not be empty either. */
  for (int32_t t = 0; t < lg->ntensors; t++)
    if (r->k[t].tp || r->k[t].ints || r->k[t].floats) {
      if (!(u->flags[t] & (USE_DATA | USE_WEIGHT)) || acs_ltensor_elems(&lg->t[t]) > 0)
        continue;
      const Onnx__NodeProto *n = r->g->node[u->first[t]];
      char tb[128];
      at_node(r, n, u->first[t], names[u->first[t]]);
      return acs__onnx_nerr(r, ACS_EPARSE, "reads the empty constant '%s'",
                            acs__onnx_masked(lg->t[t].name, tb, sizeof(tb)));
    }
  return ACS_OK;
}

static int mark_outputs(struct acs_onnx_rd *r)
{
  struct acs_lgraph *lg = r->lg;
  if (r->g->n_output == 0)
    return acs__onnx_ferr(r, ACS_EPARSE, "the graph has no outputs");
  lg->outputs = acs_arena_calloc(&lg->arena, r->g->n_output + 1, sizeof(*lg->outputs));
  if (!lg->outputs)
    return ACS_ENOMEM;
  for (size_t i = 0; i < r->g->n_output; i++) {
    char tb[128];
    const char *name = r->g->output[i]->name;
    int32_t t = name ? acs_lgraph_find_tensor(lg, name) : -1;
    if (t < 0)
      return acs__onnx_ferr(r, ACS_EPARSE,
                            "graph output '%s' is not defined by any node, input or "
                            "initializer",
                            acs__onnx_masked(name, tb, sizeof(tb)));
    if (lg->t[t].is_output)
      continue;
    lg->t[t].is_output = 1;
    lg->outputs[lg->noutputs++] = t;
  }
  return ACS_OK;
}

/* Shapes the file declares (graph outputs, value_info) against the
 * inferred ones, dimension by dimension where the file gives a value. */
static int check_declared(struct acs_onnx_rd *r, const Onnx__ValueInfoProto *const *vis, size_t n,
                          int is_output)
{
  struct acs_lgraph *lg = r->lg;
  for (size_t i = 0; i < n; i++) {
    const Onnx__ValueInfoProto *vi = vis[i];
    int32_t t = vi->name ? acs_lgraph_find_tensor(lg, vi->name) : -1;
    int rank, dtype, unknown, has;
    int64_t dims[ACS_LAYER_MAX_RANK];
    const char *param;
    char tb[128], want[160], got[160];
    if (t < 0 || lg->t[t].producer < 0)
      continue;
    const struct acs_ltensor *T = &lg->t[t];
    has = vi_shape(vi, &rank, dims, &dtype, &unknown, &param);
    acs__onnx_masked(T->name, tb, sizeof(tb));
    const struct acs_lnode *p = &lg->n[T->producer];
    at_node(r, r->g->node[p->index], p->index, p->name);
    if (has < 0) {
      if (is_output)
        return acs__onnx_nerr(r, ACS_EPARSE, "output '%s' is declared as a non-tensor type", tb);
      continue;
    }
    if (dtype && T->dtype && dtype != T->dtype)
      return acs__onnx_nerr(r, ACS_EPARSE,
                            "output '%s' has element type %d but the file declares %d", tb,
                            T->dtype, dtype);
    if (has == 0)
      continue;
    int same = rank == T->rank;
    for (int k = 0; same && k < rank; k++)
      same = dims[k] < 0 || dims[k] == T->dims[k];
    if (same)
      continue;
    acs_ltensor_shape_text(T, got, sizeof(got));
    if (rank > ACS_LAYER_MAX_RANK) {
      snprintf(want, sizeof(want), "rank %d", rank);
    } else {
      size_t len = 0;
      want[0] = '\0';
      for (int k = 0; k < rank && len < sizeof(want); k++)
        len += (size_t)(dims[k] < 0 ? snprintf(want + len, sizeof(want) - len, "%s?", k ? "x" : "")
                        : snprintf(want + len, sizeof(want) - len, "%s%lld", k ? "x" : "",
                                   (long long)dims[k]));
      if (rank == 0)
        snprintf(want, sizeof(want), "scalar");
    }
    return acs__onnx_nerr(r, ACS_EPARSE, "output '%s' is %s but the file declares %s", tb, got,
                          want);
  }
  return ACS_OK;
}

/* ---- the model ---- */

static int model_opset(struct acs_onnx_rd *r, const Onnx__ModelProto *m)
{
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m->opset_import[i];
    if (is_default_domain(o->domain)) {
      r->opset = o->has_version ? o->version : 0;
      if (r->opset < 1)
        return acs__onnx_ferr(r, ACS_EPARSE, "the default opset has no valid version");
      return ACS_OK;
    }
  }
  return acs__onnx_ferr(r, ACS_EPARSE, "the model imports no opset of the default ONNX domain");
}

static int read_graph(struct acs_onnx_rd *r)
{
  struct acs_lgraph *lg = r->lg;
  struct uses u = { NULL, NULL };
  const char **names = NULL;
  int rc;

  if ((rc = add_initializers(r)) != 0 || (rc = add_graph_inputs(r)) != 0)
    return rc;
  names = calloc(r->g->n_node + 1, sizeof(*names));
  if (!names)
    return ACS_ENOMEM;
  if ((rc = add_outputs(r, names)) != 0)
    goto out_with_names;
  u.flags = calloc((size_t)lg->ntensors + 1, 1);
  u.first = malloc(((size_t)lg->ntensors + 1) * sizeof(*u.first));
  if (!u.flags || !u.first) {
    rc = ACS_ENOMEM;
    goto out_with_uses;
  }
  for (int32_t t = 0; t < lg->ntensors; t++)
    u.first[t] = -1;
  for (size_t i = 0; i < r->g->n_node && rc == 0; i++) {
    const Onnx__NodeProto *n = r->g->node[i];
    if (strcmp(n->op_type, "Constant") == 0)
      continue;
    at_node(r, n, (int32_t)i, names[i]);
    rc = add_node(r, n, names[i], &u);
  }
  if (rc == 0)
    rc = classify(r, &u, names);
  if (rc == 0)
    rc = mark_outputs(r);
  if (rc == 0)
    rc = acs_lgraph_finalize(lg, r->d);
  if (rc == 0)
    rc = acs_lgraph_infer(lg, r->d);
  if (rc == 0)
    rc = check_declared(r, (const Onnx__ValueInfoProto *const *)r->g->output,
                        r->g->n_output, 1);
  if (rc == 0)
    rc = check_declared(r, (const Onnx__ValueInfoProto *const *)r->g->value_info,
                        r->g->n_value_info, 0);
out_with_uses:
  free(u.flags);
  free(u.first);
out_with_names:
  free(names);
  return rc;
}

int acs_onnx_read_buffer(const void *buf, size_t len, const char *name, const char *path,
                         struct acs_lgraph *lg, struct acs_diag *d)
{
  struct acs_onnx_rd r;
  int rc;

  memset(&r, 0, sizeof(r));
  r.path = path;
  r.d = d;
  r.lg = lg;
  rc = acs_lgraph_init(lg, name, path);
  if (rc != 0)
    return rc;
  if (len == 0) {
    rc = acs__onnx_ferr(&r, ACS_EFORMAT, "empty file: not an ONNX model");
    goto out_with_graph;
  }
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
  if (!m) {
    rc = acs__onnx_ferr(&r, ACS_EFORMAT,
                        "not an ONNX model, or a truncated or corrupt one (protobuf "
                        "decoding failed)");
    goto out_with_graph;
  }
  r.g = m->graph;
  rc = r.g ? check_ops(&r) : acs__onnx_ferr(&r, ACS_EPARSE, "the model has no graph");
  if (rc == 0)
    rc = model_opset(&r, m);
  if (rc == 0)
    rc = read_graph(&r);
  /* Folding and fusing come last: the declared shapes name tensors the
   * fused graph drops. */
  if (rc == 0)
    rc = acs_lgraph_fuse(lg, d);
  onnx__model_proto__free_unpacked(m, NULL);
  free(r.k);
  acs__names_free(&r.names);
  if (rc == 0)
    return ACS_OK;
out_with_graph:
  acs_lgraph_destroy(lg);
  return rc;
}

int acs_onnx_load(const char *path, struct acs_workload *w, struct acs_diag *d)
{
  uint8_t *buf;
  size_t len;
  struct acs_lgraph *lg = malloc(sizeof(*lg));
  if (!lg)
    return ACS_ENOMEM;
  int rc = read_file(path, &buf, &len, d);
  if (rc == 0) {
    rc = acs_onnx_read_buffer(buf, len, w->name, path, lg, d);
    free(buf);
  }
  if (rc != 0) {
    free(lg);
    return rc;
  }
  acs_workload_set_lgraph(w, lg);
  return ACS_OK;
}
