/*
 * onnx_attr.c - the ONNX reader's messages, constant values, attributes
 * (with the defaults of the model's opset), input roles and the parameters
 * ops take as inputs.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/onnx_int.h"

/* ---- messages ---- */

int acs__onnx_ferr(struct acs_onnx_rd *r, int err, const char *fmt, ...)
{
  char msg[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return acs_diag_set(r->d, err, r->path, 0, 0, "%s", msg);
}

/* An error at the node being read: "node 'NAME' (OP): ...". */
int acs__onnx_nerr(struct acs_onnx_rd *r, int err, const char *fmt, ...)
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

const char *acs__onnx_masked(const char *s, char *buf, size_t size)
{
  acs_lname_mask(s ? s : "", buf, size);
  return buf;
}

/* ---- constants ---- */

int64_t acs__onnx_tp_elems(const Onnx__TensorProto *tp)
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
 * The checks shared by the readers of a constant tensor t below: a
 * constant at all (`listed`: the value list of a Constant node is set), at
 * most max values, a vector, of element type dt8 (8 bytes wide) or dt4 (4
 * bytes), stored in the file, as many values as elements. ACS_OK with *tpp
 * NULL for a Constant node's list (k->n values); else *tpp, the element
 * width *w and the element count *e.
 */
static int const_check(struct acs_onnx_rd *r, int32_t t, const char *what, int max, int listed, int dt8,
                       int dt4, const char *holds, const Onnx__TensorProto **tpp, int *w, int64_t *e)
{
  const struct acs_onnx_konst *k = &r->k[t];
  char tb[128];
  acs__onnx_masked(r->lg->t[t].name, tb, sizeof(tb));
  *tpp = NULL;
  if (!k->tp && !listed)
    return acs__onnx_nerr(r, ACS_EPARSE, "%s '%s' must be a constant (an initializer or a Constant "
                "node)", what, tb);
  if (!k->tp) {
    if (k->n > (size_t)max)
      return acs__onnx_nerr(r, ACS_EPARSE, "%s '%s' has more than %d values", what, tb, max);
    return ACS_OK;
  }
  const Onnx__TensorProto *tp = k->tp;
  int dt = tp->data_type;
  *e = acs__onnx_tp_elems(tp);
  if (tp->n_dims > 1 || *e < 0 || *e > max)
    return acs__onnx_nerr(r, ACS_EPARSE, "%s '%s' must be a vector of at most %d values", what, tb, max);
  if (dt != dt8 && dt != dt4)
    return acs__onnx_nerr(r, ACS_EPARSE, "%s '%s' must hold %s", what, tb, holds);
  if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return acs__onnx_nerr(r, ACS_EPARSE, "%s '%s' is stored outside the file", what, tb);
  *w = dt == dt8 ? 8 : 4;
  size_t have = tp->has_raw_data ? tp->raw_data.len / (size_t)*w
              : dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? tp->n_int64_data
              : dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT32 ? tp->n_int32_data
              : dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE ? tp->n_double_data
                                                            : tp->n_float_data;
  if (have != (size_t)*e || (tp->has_raw_data && tp->raw_data.len % (size_t)*w))
    return acs__onnx_nerr(r, ACS_EPARSE, "%s '%s' has %zu values for %lld elements", what, tb, have,
                (long long)*e);
  *tpp = tp;
  return ACS_OK;
}

/*
 * The integer values of constant tensor `t` (INT64 or INT32; a scalar or a
 * vector of at most `max` values) into out[0..*n).
 */
int acs__onnx_const_ints(struct acs_onnx_rd *r, int32_t t, const char *what, int64_t *out, int max,
                         int *n)
{
  const struct acs_onnx_konst *k = &r->k[t];
  const Onnx__TensorProto *tp;
  int64_t e = 0;
  int w = 0;
  int err = const_check(r, t, what, max, k->ints != NULL, ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
                        ONNX__TENSOR_PROTO__DATA_TYPE__INT32, "integers", &tp, &w, &e);
  if (err < 0)
    return err;
  if (!tp) {
    for (size_t i = 0; i < k->n; i++)
      out[i] = k->ints[i];
    *n = (int)k->n;
    return ACS_OK;
  }
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
int acs__onnx_const_floats(struct acs_onnx_rd *r, int32_t t, const char *what, double *out, int max,
                           int *n)
{
  const struct acs_onnx_konst *k = &r->k[t];
  const Onnx__TensorProto *tp;
  int64_t e = 0;
  int w = 0;
  int err = const_check(r, t, what, max, k->floats != NULL, ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE,
                        ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, "float or double values", &tp, &w,
                        &e);
  if (err < 0)
    return err;
  if (!tp) {
    for (size_t i = 0; i < k->n; i++)
      out[i] = k->floats[i];
    *n = (int)k->n;
    return ACS_OK;
  }
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
int acs__onnx_const_empty(const struct acs_onnx_rd *r, int32_t t)
{
  const struct acs_onnx_konst *k = &r->k[t];
  if (k->tp)
    return acs__onnx_tp_elems(k->tp) == 0;
  return (k->ints || k->floats) && k->n == 0;
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

static int wrong_type(struct acs_onnx_rd *r, const char *name, const char *want)
{
  return acs__onnx_nerr(r, ACS_EPARSE, "attribute '%s' must be %s", name, want);
}

static int attr_int(struct acs_onnx_rd *r, const Onnx__NodeProto *n, const char *name, int64_t def,
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
static int attr_flag(struct acs_onnx_rd *r, const Onnx__NodeProto *n, const char *name, int *out)
{
  int64_t v;
  int rc = attr_int(r, n, name, 0, &v);
  if (rc == 0 && v != 0 && v != 1)
    return acs__onnx_nerr(r, ACS_EPARSE, "attribute '%s' must be 0 or 1, is %lld", name, (long long)v);
  *out = (int)v;
  return rc;
}

static int attr_ints(struct acs_onnx_rd *r, const Onnx__NodeProto *n, const char *name, int64_t *out,
                     int max, int *count)
{
  const Attr *a = find_attr(n, name);
  *count = 0;
  if (!a)
    return ACS_OK;
  if (attr_type(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS)
    return wrong_type(r, name, "a list of integers");
  if (a->n_ints > (size_t)max)
    return acs__onnx_nerr(r, ACS_EPARSE, "attribute '%s' has %zu values (at most %d)", name, a->n_ints,
                max);
  for (size_t i = 0; i < a->n_ints; i++)
    out[i] = a->ints[i];
  *count = (int)a->n_ints;
  return ACS_OK;
}

static int attr_floats(struct acs_onnx_rd *r, const Onnx__NodeProto *n, const char *name, double *out,
                       int max, int *count)
{
  const Attr *a = find_attr(n, name);
  *count = 0;
  if (!a)
    return ACS_OK;
  if (attr_type(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS)
    return wrong_type(r, name, "a list of floats");
  if (a->n_floats > (size_t)max)
    return acs__onnx_nerr(r, ACS_EPARSE, "attribute '%s' has %zu values (at most %d)", name,
                a->n_floats, max);
  for (size_t i = 0; i < a->n_floats; i++)
    out[i] = a->floats[i];
  *count = (int)a->n_floats;
  return ACS_OK;
}

/* A string attribute, as one of `choices` (NULL-terminated): its index. */
static int attr_choice(struct acs_onnx_rd *r, const Onnx__NodeProto *n, const char *name,
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
  return acs__onnx_nerr(r, ACS_EPARSE, "attribute '%s' = '%s' is not supported", name,
              acs__onnx_masked(raw, vb, sizeof(vb)));
}

/* Refuses attributes the op does not know (an attribute acsim ignored
 * could change the shapes). `known` is a space-separated list. */
static int check_attr_names(struct acs_onnx_rd *r, const Onnx__NodeProto *n, const char *known)
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
      return acs__onnx_nerr(r, ACS_EPARSE, "attribute '%s' is not supported",
                  acs__onnx_masked(an, ab, sizeof(ab)));
    }
  }
  return ACS_OK;
}

/* ---- per-op attributes ---- */

static const char *const auto_pad_names[] = { "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID",
                                              NULL };

/* kernel_shape, strides, dilations, pads, auto_pad of a conv or pool. */
static int window_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, struct acs_lattrs *a)
{
  int rc;
  if ((rc = attr_ints(r, n, "kernel_shape", a->kernel, ACS_LAYER_MAX_SPATIAL, &a->nkernel)) ||
      (rc = attr_ints(r, n, "strides", a->strides, ACS_LAYER_MAX_SPATIAL, &a->nstrides)) ||
      (rc = attr_ints(r, n, "dilations", a->dilations, ACS_LAYER_MAX_SPATIAL, &a->ndilations)) ||
      (rc = attr_ints(r, n, "pads", a->pads, 2 * ACS_LAYER_MAX_SPATIAL, &a->npads)))
    return rc;
  return attr_choice(r, n, "auto_pad", auto_pad_names, ACS_AUTO_PAD_NOTSET, &a->auto_pad);
}

static int conv_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
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

static int pool_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
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
    return acs__onnx_nerr(r, ACS_EPARSE, "kernel_shape is required");
  return rc;
}

/* Add, Sub, Mul, Div before opset 7 broadcast only with broadcast = 1, and
 * then along `axis` when it is given: that legacy alignment is refused. */
static int binary_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int op)
{
  int rc = check_attr_names(r, n, op == ACS_LOP_PRELU ? "consumed_inputs"
                                                      : "axis broadcast consumed_inputs");
  if (rc == 0 && find_attr(n, "axis") && r->opset < 7)
    return acs__onnx_nerr(r, ACS_EPARSE, "legacy broadcasting along 'axis' is not supported");
  return rc;
}

static int unary_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  int64_t to = 0;
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
      return acs__onnx_nerr(r, ACS_EPARSE, "attribute 'to' = %lld is not a data type", (long long)to);
    a->to_dtype = (int)to;
    return rc;
  default: return check_attr_names(r, n, "consumed_inputs");
  }
}

static int reduce_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  int64_t keep = 1, axis = 0;
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

static int norm_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n)
{
  int64_t spatial = 1, training = 0;
  int rc = check_attr_names(r, n, "epsilon momentum spatial is_test training_mode "
                                  "consumed_inputs");
  if (rc == 0)
    rc = attr_int(r, n, "spatial", 1, &spatial);
  if (rc == 0)
    rc = attr_int(r, n, "training_mode", 0, &training);
  if (rc == 0 && spatial != 1)
    return acs__onnx_nerr(r, ACS_EPARSE, "spatial = 0 (per-element statistics) is not supported");
  if (rc == 0 && training != 0)
    return acs__onnx_nerr(r, ACS_EPARSE, "training mode is not supported");
  return rc;
}

static int resize_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
{
  static const char *const modes[] = { "nearest", "linear", "cubic", "bilinear", NULL };
  static const char *const coords[] = { "half_pixel", "pytorch_half_pixel", "align_corners",
                                        "asymmetric", "tf_half_pixel_for_nn",
                                        "tf_crop_and_resize", NULL };
  int rc, coord = 0;
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
    return acs__onnx_nerr(r, ACS_EPARSE, "coordinate_transformation_mode 'tf_crop_and_resize' is not "
                "supported");
  return rc;
}

static int view_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
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

static int pad_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, struct acs_lattrs *a)
{
  static const char *const modes[] = { "constant", "reflect", "edge", NULL };
  int rc = check_attr_names(r, n, r->opset < 11 ? "mode pads value" : "mode");
  if (rc == 0)
    rc = attr_choice(r, n, "mode", modes, ACS_PAD_CONSTANT, &a->pad_mode);
  if (rc == 0 && r->opset < 11)
    rc = attr_ints(r, n, "pads", a->pads, 2 * ACS_LAYER_MAX_RANK, &a->npads);
  return rc;
}

int acs__onnx_parse_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int op, struct acs_lattrs *a)
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
      return acs__onnx_nerr(r, ACS_EPARSE, "attribute 'axis' is required");
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
int acs__onnx_max_inputs(const struct acs_onnx_rd *r, int op)
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
uint8_t acs__onnx_slot_role(int op, int slot)
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
int acs__onnx_resolve_params(struct acs_onnx_rd *r, int op, const int32_t *in, int nin,
                          struct acs_lattrs *a)
{
  int rc = ACS_OK, cnt;
#define IN(k) ((k) < nin ? in[k] : -1)
  switch (op) {
  case ACS_LOP_RESHAPE:
    if (r->opset < 5)
      return a->nshape ? ACS_OK : acs__onnx_nerr(r, ACS_EPARSE, "attribute 'shape' is required");
    if (IN(1) < 0)
      return acs__onnx_nerr(r, ACS_EPARSE, "the shape input is required");
    return acs__onnx_const_ints(r, IN(1), "shape", a->shape, ACS_LAYER_MAX_RANK, &a->nshape);
  case ACS_LOP_RESIZE:
  case ACS_LOP_UPSAMPLE: {
    int ks = op == ACS_LOP_UPSAMPLE || r->opset < 11 ? 1 : 2;
    if (op == ACS_LOP_UPSAMPLE && r->opset < 9)
      return ACS_OK; /* scales came as an attribute */
    if (IN(ks) >= 0 && !acs__onnx_const_empty(r, IN(ks)))
      rc = acs__onnx_const_floats(r, IN(ks), "scales", a->scales, ACS_LAYER_MAX_RANK, &a->nscales);
    if (rc == 0 && ks == 2 && IN(3) >= 0 && !acs__onnx_const_empty(r, IN(3)))
      rc = acs__onnx_const_ints(r, IN(3), "sizes", a->sizes, ACS_LAYER_MAX_RANK, &a->nsizes);
    if (rc == 0 && a->nscales && a->nsizes)
      return acs__onnx_nerr(r, ACS_EPARSE, "both scales and sizes are given");
    return rc;
  }
  case ACS_LOP_PAD:
    if (r->opset < 11)
      return ACS_OK;
    if (IN(3) >= 0)
      return acs__onnx_nerr(r, ACS_EPARSE, "the axes input is not supported");
    if (IN(1) < 0)
      return acs__onnx_nerr(r, ACS_EPARSE, "the pads input is required");
    return acs__onnx_const_ints(r, IN(1), "pads", a->pads, 2 * ACS_LAYER_MAX_RANK, &a->npads);
  case ACS_LOP_SQUEEZE:
  case ACS_LOP_UNSQUEEZE:
  case ACS_LOP_REDUCE_SUM:
    if (r->opset < 13 || IN(1) < 0 || acs__onnx_const_empty(r, IN(1)))
      return ACS_OK;
    rc = acs__onnx_const_ints(r, IN(1), "axes", a->axes, ACS_LAYER_MAX_RANK, &cnt);
    a->naxes = cnt;
    return rc;
  default:
    return ACS_OK;
  }
#undef IN
}
