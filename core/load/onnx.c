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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/load/load.h"
#include "core/load/onnx.pb-c.h"
#include "core/model/layer.h"

/* protobuf's own limit on a message */
#define ONNX_MAX_BYTES ((size_t)INT32_MAX)
/* Longest node name kept (op names add suffixes such as ".t1234567"). */
#define NODE_NAME_MAX 200

typedef Onnx__TensorProto TensorProto;

/* A constant: an initializer or the value of a Constant node. */
struct konst {
  const TensorProto *tp;       /* or NULL for the list forms below */
  const int64_t *ints;         /* value_int(s) of a Constant node */
  const float *floats;         /* value_float(s) */
  size_t n;
  int scalar;
};

struct rd {
  const char *path;
  struct acs_diag *d;
  struct acs_lgraph *lg;
  const Onnx__GraphProto *g;
  int64_t opset;
  struct konst *k;             /* per tensor id; tp/ints/floats NULL if not a constant */
  size_t cap_k;
  struct acs__names names;     /* node names in use */
  int32_t cur;                 /* node index in the file, for messages */
  const char *cur_name, *cur_op;
};

/* ---- messages ---- */

static int ferr(struct rd *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int ferr(struct rd *r, int err, const char *fmt, ...)
{
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return acs_diag_set(r->d, err, r->path, 0, 0, "%s", msg);
}

/* An error at the node being read: "node 'NAME' (OP): ...". */
static int nerr(struct rd *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int nerr(struct rd *r, int err, const char *fmt, ...)
{
  char msg[768], nb[128], ob[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  acs_lname_mask(r->cur_name, nb, sizeof(nb));
  acs_lname_mask(r->cur_op, ob, sizeof(ob));
  return acs_diag_set(r->d, err, r->path, 0, 0, "node '%s' (%s): %s", nb, ob, msg);
}

static const char *masked(const char *s, char *buf, size_t size)
{
  acs_lname_mask(s ? s : "", buf, size);
  return buf;
}

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
  if ((uint64_t)st.st_size > ONNX_MAX_BYTES) {
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

/* ---- constants ---- */

static int64_t tp_elems(const TensorProto *tp)
{
  int64_t e = 1;
  for (size_t i = 0; i < tp->n_dims; i++)
    if (tp->dims[i] < 0 || acs_mul_i64(e, tp->dims[i], &e) != 0)
      return -1;
  return e;
}

static uint64_t le_bytes(const uint8_t *p, int n)
{
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

/*
 * The integer values of constant tensor `t` (INT64 or INT32; a scalar or a
 * vector of at most `max` values) into out[0..*n).
 */
static int const_ints(struct rd *r, int32_t t, const char *what, int64_t *out, int max, int *n)
{
  const struct konst *k = &r->k[t];
  char tb[128];
  masked(r->lg->t[t].name, tb, sizeof(tb));
  if (!k->tp && !k->ints)
    return nerr(r, ACS_EPARSE, "%s '%s' must be a constant (an initializer or a Constant "
                "node)", what, tb);
  if (!k->tp) {
    if (k->n > (size_t)max)
      return nerr(r, ACS_EPARSE, "%s '%s' has more than %d values", what, tb, max);
    for (size_t i = 0; i < k->n; i++)
      out[i] = k->ints[i];
    *n = (int)k->n;
    return ACS_OK;
  }
  const TensorProto *tp = k->tp;
  int64_t e = tp_elems(tp);
  int dt = tp->data_type;
  if (tp->n_dims > 1 || e < 0 || e > max)
    return nerr(r, ACS_EPARSE, "%s '%s' must be a vector of at most %d values", what, tb, max);
  if (dt != ONNX__TENSOR_PROTO__DATA_TYPE__INT64 && dt != ONNX__TENSOR_PROTO__DATA_TYPE__INT32)
    return nerr(r, ACS_EPARSE, "%s '%s' must hold integers", what, tb);
  if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return nerr(r, ACS_EPARSE, "%s '%s' is stored outside the file", what, tb);
  int w = dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? 8 : 4;
  size_t have = tp->has_raw_data ? tp->raw_data.len / (size_t)w
              : w == 8 ? tp->n_int64_data : tp->n_int32_data;
  if (have != (size_t)e || (tp->has_raw_data && tp->raw_data.len % (size_t)w))
    return nerr(r, ACS_EPARSE, "%s '%s' has %zu values for %lld elements", what, tb, have,
                (long long)e);
  for (int64_t i = 0; i < e; i++) {
    if (tp->has_raw_data) {
      uint64_t v = le_bytes(tp->raw_data.data + i * w, w);
      out[i] = w == 8 ? (int64_t)v : (int64_t)(int32_t)(uint32_t)v;
    } else {
      out[i] = w == 8 ? tp->int64_data[i] : tp->int32_data[i];
    }
  }
  *n = (int)e;
  return ACS_OK;
}

/* The floating-point values of constant tensor t (FLOAT or DOUBLE). */
static int const_floats(struct rd *r, int32_t t, const char *what, double *out, int max, int *n)
{
  const struct konst *k = &r->k[t];
  char tb[128];
  masked(r->lg->t[t].name, tb, sizeof(tb));
  if (!k->tp && !k->floats)
    return nerr(r, ACS_EPARSE, "%s '%s' must be a constant (an initializer or a Constant "
                "node)", what, tb);
  if (!k->tp) {
    if (k->n > (size_t)max)
      return nerr(r, ACS_EPARSE, "%s '%s' has more than %d values", what, tb, max);
    for (size_t i = 0; i < k->n; i++)
      out[i] = k->floats[i];
    *n = (int)k->n;
    return ACS_OK;
  }
  const TensorProto *tp = k->tp;
  int64_t e = tp_elems(tp);
  int dt = tp->data_type;
  if (tp->n_dims > 1 || e < 0 || e > max)
    return nerr(r, ACS_EPARSE, "%s '%s' must be a vector of at most %d values", what, tb, max);
  if (dt != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT && dt != ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE)
    return nerr(r, ACS_EPARSE, "%s '%s' must hold float or double values", what, tb);
  if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return nerr(r, ACS_EPARSE, "%s '%s' is stored outside the file", what, tb);
  int w = dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE ? 8 : 4;
  size_t have = tp->has_raw_data ? tp->raw_data.len / (size_t)w
              : w == 8 ? tp->n_double_data : tp->n_float_data;
  if (have != (size_t)e || (tp->has_raw_data && tp->raw_data.len % (size_t)w))
    return nerr(r, ACS_EPARSE, "%s '%s' has %zu values for %lld elements", what, tb, have,
                (long long)e);
  for (int64_t i = 0; i < e; i++) {
    if (tp->has_raw_data) {
      uint64_t v = le_bytes(tp->raw_data.data + i * w, w);
      if (w == 8) {
        double x;
        memcpy(&x, &v, sizeof(x));
        out[i] = x;
      } else {
        uint32_t u = (uint32_t)v;
        float x;
        memcpy(&x, &u, sizeof(x));
        out[i] = x;
      }
    } else {
      out[i] = w == 8 ? tp->double_data[i] : tp->float_data[i];
    }
  }
  *n = (int)e;
  return ACS_OK;
}

/* Whether tensor t is a constant with no elements (an omitted parameter,
 * as exporters write an unused Resize roi or scales). */
static int const_empty(const struct rd *r, int32_t t)
{
  const struct konst *k = &r->k[t];
  if (k->tp)
    return tp_elems(k->tp) == 0;
  return (k->ints || k->floats) && k->n == 0;
}

/* ---- tensors ---- */

static int grow_k(struct rd *r)
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
static int new_tensor(struct rd *r, const char *name, const char *what, int32_t *id)
{
  char tb[128];
  if (!name || !*name)
    return ferr(r, ACS_EPARSE, "%s without a name", what);
  *id = acs_lgraph_add_tensor(r->lg, name);
  if (*id == ACS_EINVAL)
    return ferr(r, ACS_EPARSE, "%s '%s' is defined twice", what, masked(name, tb, sizeof(tb)));
  if (*id < 0)
    return *id;
  return grow_k(r);
}

/* A constant's shape from its TensorProto (dims may be 0: empty constants
 * are legal as parameters, e.g. an unused Resize roi). */
static int const_shape(struct rd *r, int32_t id, const TensorProto *tp, const char *what)
{
  struct acs_ltensor *t = &r->lg->t[id];
  char tb[128];
  masked(t->name, tb, sizeof(tb));
  if (tp->n_dims > ACS_LAYER_MAX_RANK)
    return ferr(r, ACS_EPARSE, "%s '%s' has rank %zu (at most %d)", what, tb, tp->n_dims,
                ACS_LAYER_MAX_RANK);
  for (size_t i = 0; i < tp->n_dims; i++)
    if (tp->dims[i] < 0)
      return ferr(r, ACS_EPARSE, "%s '%s' has a negative dimension %lld", what, tb,
                  (long long)tp->dims[i]);
  if (tp_elems(tp) < 0 || tp_elems(tp) > INT64_MAX / 16)
    return ferr(r, ACS_ERANGE, "%s '%s' has too many elements", what, tb);
  acs_ltensor_set_shape(t, (int)tp->n_dims, tp->dims);
  t->dtype = tp->data_type;
  t->elem_bytes = acs_ldtype_bytes(tp->data_type);
  t->kind = ACS_LT_WEIGHT;
  r->k[id].tp = tp;
  return ACS_OK;
}

static int add_initializers(struct rd *r)
{
  for (size_t i = 0; i < r->g->n_initializer; i++) {
    const TensorProto *tp = r->g->initializer[i];
    int32_t id;
    int rc = new_tensor(r, tp->name, "initializer", &id);
    if (rc == 0)
      rc = const_shape(r, id, tp, "initializer");
    if (rc != 0)
      return rc;
  }
  if (r->g->n_sparse_initializer)
    return ferr(r, ACS_EPARSE, "sparse initializers are not supported");
  return ACS_OK;
}

/* A Constant node's value becomes a constant tensor named after its output. */
static int add_constant(struct rd *r, const Onnx__NodeProto *n)
{
  int32_t id;
  if (n->n_output != 1 || n->n_attribute != 1)
    return nerr(r, ACS_EPARSE, "needs one output and one value attribute");
  const Onnx__AttributeProto *at = n->attribute[0];
  int rc = new_tensor(r, n->output[0], "tensor", &id);
  if (rc != 0)
    return rc;
  struct acs_ltensor *t = &r->lg->t[id];
  struct konst *k = &r->k[id];
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
    return nerr(r, ACS_EPARSE, "attribute '%s' is not supported", masked(an, ab, sizeof(ab)));
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
static int add_graph_inputs(struct rd *r)
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

/* ---- attributes ---- */

typedef Onnx__AttributeProto Attr;

static const Attr *find_attr(const Onnx__NodeProto *n, const char *name)
{
  for (size_t i = 0; i < n->n_attribute; i++)
    if (n->attribute[i]->name && strcmp(n->attribute[i]->name, name) == 0)
      return n->attribute[i];
  return NULL;
}

/* The attribute's type; files before IR version 3 leave it out, so it is
 * then told from the field that is set. */
static int attr_type(const Attr *a)
{
  if (a->has_type)
    return a->type;
  if (a->has_f)
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
  if (a->has_i)
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  if (a->has_s)
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
  if (a->n_floats)
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
  if (a->n_ints)
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
  return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

static int wrong_type(struct rd *r, const char *name, const char *want)
{
  return nerr(r, ACS_EPARSE, "attribute '%s' must be %s", name, want);
}

static int attr_int(struct rd *r, const Onnx__NodeProto *n, const char *name, int64_t def,
                    int64_t *out)
{
  const Attr *a = find_attr(n, name);
  *out = def;
  if (!a)
    return ACS_OK;
  if (attr_type(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)
    return wrong_type(r, name, "an integer");
  *out = a->i;
  return ACS_OK;
}

/* A flag attribute (0 or 1). */
static int attr_flag(struct rd *r, const Onnx__NodeProto *n, const char *name, int *out)
{
  int64_t v;
  int rc = attr_int(r, n, name, 0, &v);
  if (rc == 0 && v != 0 && v != 1)
    return nerr(r, ACS_EPARSE, "attribute '%s' must be 0 or 1, is %lld", name, (long long)v);
  *out = (int)v;
  return rc;
}

static int attr_ints(struct rd *r, const Onnx__NodeProto *n, const char *name, int64_t *out,
                     int max, int *count)
{
  const Attr *a = find_attr(n, name);
  *count = 0;
  if (!a)
    return ACS_OK;
  if (attr_type(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
    return wrong_type(r, name, "a list of integers");
  if (a->n_ints > (size_t)max)
    return nerr(r, ACS_EPARSE, "attribute '%s' has %zu values (at most %d)", name, a->n_ints,
                max);
  for (size_t i = 0; i < a->n_ints; i++)
    out[i] = a->ints[i];
  *count = (int)a->n_ints;
  return ACS_OK;
}

static int attr_floats(struct rd *r, const Onnx__NodeProto *n, const char *name, double *out,
                       int max, int *count)
{
  const Attr *a = find_attr(n, name);
  *count = 0;
  if (!a)
    return ACS_OK;
  if (attr_type(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS)
    return wrong_type(r, name, "a list of floats");
  if (a->n_floats > (size_t)max)
    return nerr(r, ACS_EPARSE, "attribute '%s' has %zu values (at most %d)", name,
                a->n_floats, max);
  for (size_t i = 0; i < a->n_floats; i++)
    out[i] = a->floats[i];
  *count = (int)a->n_floats;
  return ACS_OK;
}

/* A string attribute, as one of `choices` (NULL-terminated): its index. */
static int attr_choice(struct rd *r, const Onnx__NodeProto *n, const char *name,
                       const char *const *choices, int def, int *out)
{
  const Attr *a = find_attr(n, name);
  char vb[64];
  *out = def;
  if (!a)
    return ACS_OK;
  if (attr_type(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING)
    return wrong_type(r, name, "a string");
  size_t len = a->s.len;
  for (int i = 0; choices[i]; i++)
    if (len == strlen(choices[i]) && memcmp(a->s.data, choices[i], len) == 0) {
      *out = i;
      return ACS_OK;
    }
  char raw[64];
  size_t m = len < sizeof(raw) - 1 ? len : sizeof(raw) - 1;
  if (m)
    memcpy(raw, a->s.data, m);
  raw[m] = '\0';
  return nerr(r, ACS_EPARSE, "attribute '%s' = '%s' is not supported", name,
              masked(raw, vb, sizeof(vb)));
}

/* Refuses attributes the op does not know (an attribute acsim ignored
 * could change the shapes). `known` is a space-separated list. */
static int check_attr_names(struct rd *r, const Onnx__NodeProto *n, const char *known)
{
  for (size_t i = 0; i < n->n_attribute; i++) {
    const char *an = n->attribute[i]->name ? n->attribute[i]->name : "";
    size_t len = strlen(an);
    const char *p = known;
    int ok = 0;
    while (*p && !ok) {
      size_t w = strcspn(p, " ");
      ok = w == len && len > 0 && strncmp(p, an, len) == 0;
      p += w + (p[w] == ' ');
    }
    if (!ok) {
      char ab[64];
      return nerr(r, ACS_EPARSE, "attribute '%s' is not supported",
                  masked(an, ab, sizeof(ab)));
    }
  }
  return ACS_OK;
}

/* ---- per-op attributes ---- */

static const char *const auto_pad_names[] = { "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID",
                                              NULL };

/* kernel_shape, strides, dilations, pads, auto_pad of a conv or pool. */
static int window_attrs(struct rd *r, const Onnx__NodeProto *n, struct acs_lattrs *a)
{
  int rc;
  if ((rc = attr_ints(r, n, "kernel_shape", a->kernel, ACS_LAYER_MAX_SPATIAL, &a->nkernel)) ||
      (rc = attr_ints(r, n, "strides", a->strides, ACS_LAYER_MAX_SPATIAL, &a->nstrides)) ||
      (rc = attr_ints(r, n, "dilations", a->dilations, ACS_LAYER_MAX_SPATIAL, &a->ndilations)) ||
      (rc = attr_ints(r, n, "pads", a->pads, 2 * ACS_LAYER_MAX_SPATIAL, &a->npads)))
    return rc;
  return attr_choice(r, n, "auto_pad", auto_pad_names, ACS_AUTO_PAD_NOTSET, &a->auto_pad);
}

static int conv_attrs(struct rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  int rc;
  if (op == ACS_LOP_CONV_TRANSPOSE) {
    rc = check_attr_names(r, n, "auto_pad dilations group kernel_shape pads strides "
                                "output_padding output_shape");
    if (rc == 0)
      rc = attr_ints(r, n, "output_padding", a->out_pad, ACS_LAYER_MAX_SPATIAL, &a->nout_pad);
    if (rc == 0)
      rc = attr_ints(r, n, "output_shape", a->out_shape, ACS_LAYER_MAX_RANK, &a->nout_shape);
  } else {
    rc = check_attr_names(r, n, "auto_pad dilations group kernel_shape pads strides");
  }
  if (rc == 0)
    rc = attr_int(r, n, "group", 1, &a->group);
  return rc == 0 ? window_attrs(r, n, a) : rc;
}

static int pool_attrs(struct rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  int rc = check_attr_names(r, n, op == ACS_LOP_MAX_POOL
      ? "auto_pad ceil_mode dilations kernel_shape pads storage_order strides"
      : "auto_pad ceil_mode count_include_pad dilations kernel_shape pads strides");
  if (rc == 0)
    rc = window_attrs(r, n, a);
  if (rc == 0)
    rc = attr_flag(r, n, "ceil_mode", &a->ceil_mode);
  if (rc == 0)
    rc = attr_flag(r, n, "count_include_pad", &a->count_include_pad);
  if (rc == 0 && a->nkernel == 0)
    return nerr(r, ACS_EPARSE, "kernel_shape is required");
  return rc;
}

/* Add, Sub, Mul, Div before opset 7 broadcast only with broadcast = 1, and
 * then along `axis` when it is given: that legacy alignment is refused. */
static int binary_attrs(struct rd *r, const Onnx__NodeProto *n, int op)
{
  int rc = check_attr_names(r, n, op == ACS_LOP_PRELU ? "consumed_inputs"
                                                      : "axis broadcast consumed_inputs");
  if (rc == 0 && find_attr(n, "axis") && r->opset < 7)
    return nerr(r, ACS_EPARSE, "legacy broadcasting along 'axis' is not supported");
  return rc;
}

static int unary_attrs(struct rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  int64_t to;
  int rc;
  switch (op) {
  case ACS_LOP_LEAKY_RELU: case ACS_LOP_ELU: case ACS_LOP_CELU: case ACS_LOP_THRESHOLDED_RELU:
    return check_attr_names(r, n, "alpha consumed_inputs");
  case ACS_LOP_HARD_SIGMOID: return check_attr_names(r, n, "alpha beta consumed_inputs");
  case ACS_LOP_SELU: return check_attr_names(r, n, "alpha gamma consumed_inputs");
  case ACS_LOP_CLIP: return check_attr_names(r, n, "min max consumed_inputs");
  case ACS_LOP_CAST:
    rc = check_attr_names(r, n, "to");
    if (rc == 0)
      rc = attr_int(r, n, "to", 0, &to);
    if (rc == 0 && (to < 1 || to > 16))
      return nerr(r, ACS_EPARSE, "attribute 'to' = %lld is not a data type", (long long)to);
    a->to_dtype = (int)to;
    return rc;
  default: return check_attr_names(r, n, "consumed_inputs");
  }
}

static int reduce_attrs(struct rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  int64_t keep, axis;
  int rc;
  if (op == ACS_LOP_ARGMAX || op == ACS_LOP_ARGMIN) {
    rc = check_attr_names(r, n, "axis keepdims select_last_index");
    if (rc == 0)
      rc = attr_int(r, n, "axis", 0, &axis);
    a->naxes = 1;
    a->axes[0] = axis;
  } else {
    rc = check_attr_names(r, n, "axes keepdims noop_with_empty_axes");
    if (rc == 0)
      rc = attr_ints(r, n, "axes", a->axes, ACS_LAYER_MAX_RANK, &a->naxes);
    if (rc == 0)
      rc = attr_flag(r, n, "noop_with_empty_axes", &a->noop_empty);
  }
  if (rc == 0)
    rc = attr_int(r, n, "keepdims", 1, &keep);
  a->keepdims = keep != 0;
  return rc;
}

static int norm_attrs(struct rd *r, const Onnx__NodeProto *n)
{
  int64_t spatial, training;
  int rc = check_attr_names(r, n, "epsilon momentum spatial is_test training_mode "
                                  "consumed_inputs");
  if (rc == 0)
    rc = attr_int(r, n, "spatial", 1, &spatial);
  if (rc == 0)
    rc = attr_int(r, n, "training_mode", 0, &training);
  if (rc == 0 && spatial != 1)
    return nerr(r, ACS_EPARSE, "spatial = 0 (per-element statistics) is not supported");
  if (rc == 0 && training != 0)
    return nerr(r, ACS_EPARSE, "training mode is not supported");
  return rc;
}

static int resize_attrs(struct rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  static const char *const modes[] = { "nearest", "linear", "cubic", "bilinear", NULL };
  static const char *const coords[] = { "half_pixel", "pytorch_half_pixel", "align_corners",
                                        "asymmetric", "tf_half_pixel_for_nn",
                                        "tf_crop_and_resize", NULL };
  int rc, coord;
  if (op == ACS_LOP_UPSAMPLE) {
    rc = check_attr_names(r, n, "mode scales");
    if (rc == 0)
      rc = attr_floats(r, n, "scales", a->scales, ACS_LAYER_MAX_RANK, &a->nscales);
  } else {
    rc = check_attr_names(r, n, "mode coordinate_transformation_mode cubic_coeff_a "
                                "exclude_outside extrapolation_value nearest_mode");
  }
  if (rc == 0)
    rc = attr_choice(r, n, "mode", modes, 0, &a->resize_mode);
  if (a->resize_mode == 3)
    a->resize_mode = ACS_RESIZE_LINEAR;
  if (rc == 0)
    rc = attr_choice(r, n, "coordinate_transformation_mode", coords, 0, &coord);
  if (rc == 0 && coord == 5)
    return nerr(r, ACS_EPARSE, "coordinate_transformation_mode 'tf_crop_and_resize' is not "
                "supported");
  return rc;
}

static int view_attrs(struct rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  int rc;
  switch (op) {
  case ACS_LOP_RESHAPE:
    rc = check_attr_names(r, n, "allowzero shape consumed_inputs");
    if (rc == 0)
      rc = attr_flag(r, n, "allowzero", &a->allowzero);
    if (rc == 0 && r->opset < 5)
      rc = attr_ints(r, n, "shape", a->shape, ACS_LAYER_MAX_RANK, &a->nshape);
    return rc;
  case ACS_LOP_FLATTEN:
    rc = check_attr_names(r, n, "axis");
    return rc == 0 ? attr_int(r, n, "axis", 1, &a->axis) : rc;
  case ACS_LOP_SQUEEZE:
  case ACS_LOP_UNSQUEEZE:
    rc = check_attr_names(r, n, "axes");
    return rc == 0 ? attr_ints(r, n, "axes", a->axes, ACS_LAYER_MAX_RANK, &a->naxes) : rc;
  case ACS_LOP_DROPOUT:
    return check_attr_names(r, n, "ratio seed is_test consumed_inputs");
  default:
    return check_attr_names(r, n, "");
  }
}

static int pad_attrs(struct rd *r, const Onnx__NodeProto *n, struct acs_lattrs *a)
{
  static const char *const modes[] = { "constant", "reflect", "edge", NULL };
  int rc = check_attr_names(r, n, r->opset < 11 ? "mode pads value" : "mode");
  if (rc == 0)
    rc = attr_choice(r, n, "mode", modes, ACS_PAD_CONSTANT, &a->pad_mode);
  if (rc == 0 && r->opset < 11)
    rc = attr_ints(r, n, "pads", a->pads, 2 * ACS_LAYER_MAX_RANK, &a->npads);
  return rc;
}

static int parse_attrs(struct rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  int rc;
  memset(a, 0, sizeof(*a));
  switch (acs_lop_class(op)) {
  case ACS_LC_CONV:
    return conv_attrs(r, n, op, a);
  case ACS_LC_MATMUL:
    if (op == ACS_LOP_MATMUL)
      return check_attr_names(r, n, "");
    rc = check_attr_names(r, n, "alpha beta transA transB broadcast");
    if (rc == 0)
      rc = attr_flag(r, n, "transA", &a->trans_a);
    return rc == 0 ? attr_flag(r, n, "transB", &a->trans_b) : rc;
  case ACS_LC_POOL:
    return pool_attrs(r, n, op, a);
  case ACS_LC_GLOBAL_POOL:
    return check_attr_names(r, n, "");
  case ACS_LC_BINARY:
    a->prelu_channel = op == ACS_LOP_PRELU && r->opset < 7;
    return binary_attrs(r, n, op);
  case ACS_LC_UNARY:
    return unary_attrs(r, n, op, a);
  case ACS_LC_REDUCE:
    return reduce_attrs(r, n, op, a);
  case ACS_LC_NORM:
    return norm_attrs(r, n);
  case ACS_LC_CONCAT:
    rc = check_attr_names(r, n, "axis");
    if (rc == 0 && !find_attr(n, "axis") && r->opset >= 4)
      return nerr(r, ACS_EPARSE, "attribute 'axis' is required");
    return rc == 0 ? attr_int(r, n, "axis", 1, &a->axis) : rc;
  case ACS_LC_RESIZE:
    return resize_attrs(r, n, op, a);
  case ACS_LC_VIEW:
    return view_attrs(r, n, op, a);
  case ACS_LC_TRANSPOSE:
    rc = check_attr_names(r, n, "perm");
    return rc == 0 ? attr_ints(r, n, "perm", a->perm, ACS_LAYER_MAX_RANK, &a->nperm) : rc;
  case ACS_LC_PAD:
    return pad_attrs(r, n, a);
  case ACS_LC_SOFTMAX:
    /* Before opset 13 the input is coerced to 2-D at `axis` (default 1),
     * so the normalization runs over every dim from axis on. */
    rc = check_attr_names(r, n, "axis");
    a->axis_to_end = r->opset < 13;
    return rc == 0 ? attr_int(r, n, "axis", r->opset < 13 ? 1 : -1, &a->axis) : rc;
  default:
    return ACS_EINVAL;
  }
}

/* ---- input roles and parameter inputs ---- */

/* Most inputs an op takes (the opset changes a few). */
static int max_inputs(const struct rd *r, int op)
{
  switch (op) {
  case ACS_LOP_CONV: case ACS_LOP_CONV_TRANSPOSE: case ACS_LOP_GEMM: return 3;
  case ACS_LOP_CLIP: return r->opset < 11 ? 1 : 3;
  case ACS_LOP_BATCH_NORM: return 5;
  case ACS_LOP_CONCAT: case ACS_LOP_SUM: case ACS_LOP_MAX: case ACS_LOP_MIN: case ACS_LOP_MEAN:
    return INT32_MAX;
  case ACS_LOP_REDUCE_SUM: return r->opset < 13 ? 1 : 2;
  case ACS_LOP_RESIZE: return r->opset < 11 ? 2 : 4;
  case ACS_LOP_UPSAMPLE: return r->opset < 9 ? 1 : 2;
  case ACS_LOP_RESHAPE: return r->opset < 5 ? 1 : 2;
  case ACS_LOP_SQUEEZE: case ACS_LOP_UNSQUEEZE: return r->opset < 13 ? 1 : 2;
  case ACS_LOP_DROPOUT: return r->opset < 12 ? 1 : 3;
  case ACS_LOP_PAD: return r->opset < 11 ? 1 : 4;
  default:
    return acs_lop_class(op) == ACS_LC_BINARY || op == ACS_LOP_MATMUL ? 2 : 1;
  }
}

/* The role an input slot has by the op's definition. */
static uint8_t slot_role(int op, int slot)
{
  switch (acs_lop_class(op)) {
  case ACS_LC_CONV:
  case ACS_LC_NORM:
    return slot == 0 ? ACS_LR_DATA : ACS_LR_WEIGHT;
  case ACS_LC_MATMUL:
    return slot == 0 || op == ACS_LOP_MATMUL ? ACS_LR_DATA : ACS_LR_WEIGHT;
  case ACS_LC_BINARY:
    return op == ACS_LOP_PRELU && slot == 1 ? ACS_LR_WEIGHT : ACS_LR_DATA;
  case ACS_LC_CONCAT:
    return ACS_LR_DATA;
  default:
    return slot == 0 ? ACS_LR_DATA : ACS_LR_PARAM;
  }
}

/* Parameters given as inputs (opset-dependent) into the attributes. */
static int resolve_params(struct rd *r, int op, const int32_t *in, int nin,
                          struct acs_lattrs *a)
{
  int rc = ACS_OK, cnt;
#define IN(k) ((k) < nin ? in[k] : -1)
  switch (op) {
  case ACS_LOP_RESHAPE:
    if (r->opset < 5)
      return a->nshape ? ACS_OK : nerr(r, ACS_EPARSE, "attribute 'shape' is required");
    if (IN(1) < 0)
      return nerr(r, ACS_EPARSE, "the shape input is required");
    return const_ints(r, IN(1), "shape", a->shape, ACS_LAYER_MAX_RANK, &a->nshape);
  case ACS_LOP_RESIZE:
  case ACS_LOP_UPSAMPLE: {
    int ks = op == ACS_LOP_UPSAMPLE || r->opset < 11 ? 1 : 2;
    if (op == ACS_LOP_UPSAMPLE && r->opset < 9)
      return ACS_OK; /* scales came as an attribute */
    if (IN(ks) >= 0 && !const_empty(r, IN(ks)))
      rc = const_floats(r, IN(ks), "scales", a->scales, ACS_LAYER_MAX_RANK, &a->nscales);
    if (rc == 0 && ks == 2 && IN(3) >= 0 && !const_empty(r, IN(3)))
      rc = const_ints(r, IN(3), "sizes", a->sizes, ACS_LAYER_MAX_RANK, &a->nsizes);
    if (rc == 0 && a->nscales && a->nsizes)
      return nerr(r, ACS_EPARSE, "both scales and sizes are given");
    return rc;
  }
  case ACS_LOP_PAD:
    if (r->opset < 11)
      return ACS_OK;
    if (IN(3) >= 0)
      return nerr(r, ACS_EPARSE, "the axes input is not supported");
    if (IN(1) < 0)
      return nerr(r, ACS_EPARSE, "the pads input is required");
    return const_ints(r, IN(1), "pads", a->pads, 2 * ACS_LAYER_MAX_RANK, &a->npads);
  case ACS_LOP_SQUEEZE:
  case ACS_LOP_UNSQUEEZE:
  case ACS_LOP_REDUCE_SUM:
    if (r->opset < 13 || IN(1) < 0 || const_empty(r, IN(1)))
      return ACS_OK;
    rc = const_ints(r, IN(1), "axes", a->axes, ACS_LAYER_MAX_RANK, &cnt);
    a->naxes = cnt;
    return rc;
  default:
    return ACS_OK;
  }
#undef IN
}

/* ---- nodes ---- */

static int is_default_domain(const char *dom)
{
  return !dom || !*dom || strcmp(dom, "ai.onnx") == 0;
}

/* Names the node for the messages and the graph: its own name, or
 * "<op>_<index>" when it has none; "@<index>" makes a repeated name unique,
 * control bytes become '?' and long names are cut. */
static int name_node(struct rd *r, const Onnx__NodeProto *n, int32_t i, const char **out)
{
  char buf[NODE_NAME_MAX + 32];
  int32_t old;
  if (n->name && *n->name)
    snprintf(buf, NODE_NAME_MAX + 1, "%s", n->name);
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

static void at_node(struct rd *r, const Onnx__NodeProto *n, int32_t i, const char *name)
{
  r->cur = i;
  r->cur_name = name;
  r->cur_op = n->op_type ? n->op_type : "";
}

/* Every node must be of a supported op: the first that is not is the error. */
static int check_ops(struct rd *r)
{
  for (size_t i = 0; i < r->g->n_node; i++) {
    const Onnx__NodeProto *n = r->g->node[i];
    char nb[128], db[64];
    const char *name = n->name && *n->name ? n->name : "";
    if (!n->op_type || !*n->op_type)
      return ferr(r, ACS_EPARSE, "node %zu ('%s') has no op_type", i,
                  masked(name, nb, sizeof(nb)));
    at_node(r, n, (int32_t)i, *name ? name : "");
    if (!*name) {
      snprintf(nb, sizeof(nb), "%.64s_%zu", n->op_type, i);
      r->cur_name = nb;
    }
    if (!is_default_domain(n->domain))
      return nerr(r, ACS_EPARSE, "ops of domain '%s' are not supported",
                  masked(n->domain, db, sizeof(db)));
    if (strcmp(n->op_type, "Constant") != 0 && acs_lop_parse(n->op_type) < 0)
      return nerr(r, ACS_EPARSE, "unsupported op (README \"ONNX models\" lists the "
                  "supported ones)");
  }
  return ACS_OK;
}

/* Pass 1: names, constants, and a tensor for every node output. */
static int add_outputs(struct rd *r, const char **names)
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
      return nerr(r, ACS_EPARSE, "has no output");
    for (size_t k = 0; k < n->n_output; k++) {
      int32_t id;
      char tb[128];
      if (!n->output[k] || !*n->output[k])
        continue;
      id = acs_lgraph_add_tensor(r->lg, n->output[k]);
      if (id == ACS_EINVAL)
        return nerr(r, ACS_EPARSE, "output '%s' is already defined",
                    masked(n->output[k], tb, sizeof(tb)));
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
static int add_node(struct rd *r, const Onnx__NodeProto *n, const char *name, struct uses *u)
{
  int op = acs_lop_parse(n->op_type), nin = (int)n->n_input, nout = (int)n->n_output, rc;
  struct acs_lattrs a;
  char tb[128];
  if (n->n_input > (size_t)max_inputs(r, op))
    return nerr(r, ACS_EPARSE, "has %zu inputs; the op takes at most %d", n->n_input,
                max_inputs(r, op));
  if (n->n_output > 8)
    return nerr(r, ACS_EPARSE, "has %zu outputs (at most 8)", n->n_output);
  int32_t *in = calloc((size_t)nin + 1, sizeof(*in)), out[8];
  uint8_t *role = calloc((size_t)nin + 1, sizeof(*role));
  if (!in || !role) {
    rc = ACS_ENOMEM;
    goto out_with_arrays;
  }
  for (int k = 0; k < nin; k++) {
    const char *tn = n->input[k];
    in[k] = tn && *tn ? acs_lgraph_find_tensor(r->lg, tn) : -1;
    role[k] = in[k] >= 0 ? slot_role(op, k) : ACS_LR_NONE;
    if (tn && *tn && in[k] < 0) {
      rc = nerr(r, ACS_EPARSE, "reads '%s', which no initializer, graph input or node defines",
                masked(tn, tb, sizeof(tb)));
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
  rc = parse_attrs(r, n, op, &a);
  if (rc == 0)
    rc = resolve_params(r, op, in, nin, &a);
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
static int classify(struct rd *r, const struct uses *u, const char **names)
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
    masked(T->name, tb, sizeof(tb));
    int has = vi_shape(vi, &rank, dims, &dtype, &unknown, &param);
    if (has < 0)
      return nerr(r, ACS_EPARSE, "input '%s' is not a tensor (sequence, map and optional "
                  "types are not supported)", tb);
    if (has == 0)
      return nerr(r, ACS_EPARSE, "input '%s' has no shape in the file", tb);
    if (rank > ACS_LAYER_MAX_RANK)
      return nerr(r, ACS_EPARSE, "input '%s' has rank %d (at most %d)", tb, rank,
                  ACS_LAYER_MAX_RANK);
    if (unknown >= 0)
      return nerr(r, ACS_EPARSE, "input '%s' has an unknown dimension %d%s%s%s", tb, unknown,
                  param ? " ('" : "", param ? masked(param, pb, sizeof(pb)) : "",
                  param ? "')" : "");
    for (int k = 0; k < rank; k++)
      if (dims[k] < 1)
        return nerr(r, ACS_EPARSE, "input '%s' has dimension %d of size %lld (empty tensors "
                    "are not supported)", tb, k, (long long)dims[k]);
    acs_ltensor_set_shape(T, rank, dims);
    if (acs_ltensor_elems(T) > INT64_MAX / 16)
      return nerr(r, ACS_ERANGE, "input '%s' has more than %lld elements", tb,
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
      return nerr(r, ACS_EPARSE, "reads the empty constant '%s'",
                  masked(lg->t[t].name, tb, sizeof(tb)));
    }
  return ACS_OK;
}

static int mark_outputs(struct rd *r)
{
  struct acs_lgraph *lg = r->lg;
  if (r->g->n_output == 0)
    return ferr(r, ACS_EPARSE, "the graph has no outputs");
  lg->outputs = acs_arena_calloc(&lg->arena, r->g->n_output + 1, sizeof(*lg->outputs));
  if (!lg->outputs)
    return ACS_ENOMEM;
  for (size_t i = 0; i < r->g->n_output; i++) {
    char tb[128];
    const char *name = r->g->output[i]->name;
    int32_t t = name ? acs_lgraph_find_tensor(lg, name) : -1;
    if (t < 0)
      return ferr(r, ACS_EPARSE, "graph output '%s' is not defined by any node, input or "
                  "initializer", masked(name, tb, sizeof(tb)));
    if (lg->t[t].is_output)
      continue;
    lg->t[t].is_output = 1;
    lg->outputs[lg->noutputs++] = t;
  }
  return ACS_OK;
}

/* Shapes the file declares (graph outputs, value_info) against the
 * inferred ones, dimension by dimension where the file gives a value. */
static int check_declared(struct rd *r, const Onnx__ValueInfoProto *const *vis, size_t n,
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
    masked(T->name, tb, sizeof(tb));
    const struct acs_lnode *p = &lg->n[T->producer];
    at_node(r, r->g->node[p->index], p->index, p->name);
    if (has < 0) {
      if (is_output)
        return nerr(r, ACS_EPARSE, "output '%s' is declared as a non-tensor type", tb);
      continue;
    }
    if (dtype && T->dtype && dtype != T->dtype)
      return nerr(r, ACS_EPARSE, "output '%s' has element type %d but the file declares %d",
                  tb, T->dtype, dtype);
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
    return nerr(r, ACS_EPARSE, "output '%s' is %s but the file declares %s", tb, got, want);
  }
  return ACS_OK;
}

/* ---- the model ---- */

static int model_opset(struct rd *r, const Onnx__ModelProto *m)
{
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = m->opset_import[i];
    if (is_default_domain(o->domain)) {
      r->opset = o->has_version ? o->version : 0;
      if (r->opset < 1)
        return ferr(r, ACS_EPARSE, "the default opset has no valid version");
      return ACS_OK;
    }
  }
  return ferr(r, ACS_EPARSE, "the model imports no opset of the default ONNX domain");
}

static int read_graph(struct rd *r)
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
  struct rd r;
  int rc;

  memset(&r, 0, sizeof(r));
  r.path = path;
  r.d = d;
  r.lg = lg;
  rc = acs_lgraph_init(lg, name, path);
  if (rc != 0)
    return rc;
  if (len == 0) {
    rc = ferr(&r, ACS_EFORMAT, "empty file: not an ONNX model");
    goto out_with_graph;
  }
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
  if (!m) {
    rc = ferr(&r, ACS_EFORMAT, "not an ONNX model, or a truncated or corrupt one (protobuf "
              "decoding failed)");
    goto out_with_graph;
  }
  r.g = m->graph;
  rc = r.g ? check_ops(&r) : ferr(&r, ACS_EPARSE, "the model has no graph");
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

static int lgraph_build(const struct acs_workload *w, const struct acs_platform *p,
                        struct acs_graph *g, struct acs_diag *d)
{
  return acs_lgraph_build(w->model, p, g, d);
}

static void lgraph_free(void *model)
{
  acs_lgraph_destroy(model);
  free(model);
}

static const struct acs_wl_model_ops lgraph_model_ops = { lgraph_build, lgraph_free };

const struct acs_lgraph *acs_workload_lgraph(const struct acs_workload *w)
{
  return w && w->model_ops == &lgraph_model_ops ? w->model : NULL;
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
  w->kind = ACS_WL_DNN;
  w->model = lg;
  w->model_ops = &lgraph_model_ops;
  return ACS_OK;
}
