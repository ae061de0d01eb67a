/*
 * onnx_int.h - internal to the ONNX reader: onnx.c reads the graph,
 * onnx_attr.c the messages, constant values, attributes, input roles and
 * parameter inputs.
 */
#ifndef ACS_LOAD_ONNX_INT_H
#define ACS_LOAD_ONNX_INT_H

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/load/onnx.pb-c.h"
#include "core/model/layer.h"

/* protobuf's own limit on a message */
#define ACS_ONNX_MAX_BYTES ((size_t)INT32_MAX)
/* Longest node name kept (op names add suffixes such as ".t1234567"). */
#define ACS_ONNX_NODE_NAME_MAX 200

/* A constant: an initializer or the value of a Constant node. */
struct acs_onnx_konst {
  const Onnx__TensorProto *tp;  /* or NULL for the list forms below */
  const int64_t *ints;          /* value_int(s) of a Constant node */
  const float *floats;          /* value_float(s) */
  size_t n;
  int scalar;
};

struct acs_onnx_rd {
  const char *path;
  struct acs_diag *d;
  struct acs_lgraph *lg;
  const Onnx__GraphProto *g;
  int64_t opset;
  struct acs_onnx_konst *k;    /* per tensor id; tp/ints/floats NULL if not a constant */
  size_t cap_k;
  struct acs__names names;     /* node names in use */
  int32_t cur;                 /* node index in the file, for messages */
  const char *cur_name, *cur_op;
};

/* Errors: of the file, and at the node being read ("node 'NAME' (OP): ..."). */
int acs__onnx_ferr(struct acs_onnx_rd *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int acs__onnx_nerr(struct acs_onnx_rd *r, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* s masked for a message (acs_lname_mask) into buf; returns buf. */
const char *acs__onnx_masked(const char *s, char *buf, size_t size);

/* Elements of an Onnx__TensorProto (-1 on a negative dim or overflow). */
int64_t acs__onnx_tp_elems(const Onnx__TensorProto *tp);
/* The values of constant tensor t: integers (INT64, INT32) or floats
 * (FLOAT, DOUBLE), a scalar or a vector of at most max; `what` names it in
 * the error ("shape 's' must be a constant"). */
int acs__onnx_const_ints(struct acs_onnx_rd *r, int32_t t, const char *what, int64_t *out, int max,
                         int *n);
int acs__onnx_const_floats(struct acs_onnx_rd *r, int32_t t, const char *what, double *out, int max,
                           int *n);
/* Whether t is a constant with no elements (an omitted parameter). */
int acs__onnx_const_empty(const struct acs_onnx_rd *r, int32_t t);

/* The attributes of node n of op `op` into *a (the opset's defaults). */
int acs__onnx_parse_attrs(struct acs_onnx_rd *r, const Onnx__NodeProto *n, int op,
                          struct acs_lattrs *a);
/* Most inputs the op takes at the model's opset. */
int acs__onnx_max_inputs(const struct acs_onnx_rd *r, int op);
/* The role input `slot` of `op` has by the op's definition. */
uint8_t acs__onnx_slot_role(int op, int slot);
/* Parameters given as inputs (Reshape's shape, Resize's scales...) into *a. */
int acs__onnx_resolve_params(struct acs_onnx_rd *r, int op, const int32_t *in, int nin,
                             struct acs_lattrs *a);

#endif
