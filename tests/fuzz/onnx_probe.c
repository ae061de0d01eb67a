/*
 * onnx_probe.c - see onnx_probe.h.
 */
#include "config.h"

#include <string.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "tests/fuzz/onnx_probe.h"

/* Protobuf wire format: a key is (field << 3) | type; type 0 is a varint,
 * type 2 a length-delimited field. */
struct pb {
  uint8_t *buf;
  size_t len, cap;
};

static void put_byte(struct pb *b, uint8_t x)
{
  if (b->len < b->cap)
    b->buf[b->len] = x;
  b->len++;
}

static void put_varint(struct pb *b, uint64_t v)
{
  do {
    put_byte(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
    v >>= 7;
  } while (v);
}

static void put_int(struct pb *b, unsigned field, uint64_t v)
{
  put_varint(b, (uint64_t)field << 3);
  put_varint(b, v);
}

static void put_bytes(struct pb *b, unsigned field, const void *p, size_t n)
{
  put_varint(b, (uint64_t)field << 3 | 2);
  put_varint(b, n);
  for (size_t i = 0; i < n; i++)
    put_byte(b, ((const uint8_t *)p)[i]);
}

static void put_str(struct pb *b, unsigned field, const char *s)
{
  put_bytes(b, field, s, strlen(s));
}

/* A TypeProto of a float tensor, of shape [1, n] when n > 0. */
static size_t tensor_type(int64_t n, uint8_t *out, size_t cap)
{
  uint8_t d1[16], d2[16], shape[48], tensor[64];
  struct pb a = {d1, 0, sizeof(d1)}, b = {d2, 0, sizeof(d2)}, s = {shape, 0, sizeof(shape)};
  struct pb t = {tensor, 0, sizeof(tensor)}, o = {out, 0, cap};

  put_int(&a, 1, 1);                       /* Dimension.dim_value */
  put_int(&b, 1, (uint64_t)n);
  put_bytes(&s, 1, d1, a.len);             /* TensorShapeProto.dim */
  put_bytes(&s, 1, d2, b.len);
  put_int(&t, 1, 1);                       /* elem_type FLOAT */
  if (n > 0)
    put_bytes(&t, 2, shape, s.len);        /* shape */
  put_bytes(&o, 1, tensor, t.len);         /* TypeProto.tensor_type */
  return o.len <= cap ? o.len : 0;
}

size_t acs_fuzz_relu_model(int64_t n, uint8_t *buf, size_t cap)
{
  uint8_t node[32], tx[64], ty[32], vx[80], vy[48], graph[200], opset[8];
  struct pb nd = {node, 0, sizeof(node)}, x = {vx, 0, sizeof(vx)}, y = {vy, 0, sizeof(vy)};
  struct pb g = {graph, 0, sizeof(graph)}, op = {opset, 0, sizeof(opset)}, m = {buf, 0, cap};
  size_t ntx = tensor_type(n, tx, sizeof(tx)), nty = tensor_type(0, ty, sizeof(ty));

  put_str(&nd, 1, "x");                    /* NodeProto.input */
  put_str(&nd, 2, "y");                    /* output */
  put_str(&nd, 4, "Relu");                 /* op_type */
  put_str(&x, 1, "x");                     /* ValueInfoProto.name */
  put_bytes(&x, 2, tx, ntx);               /* type */
  put_str(&y, 1, "y");
  put_bytes(&y, 2, ty, nty);
  put_bytes(&g, 1, node, nd.len);          /* GraphProto.node */
  put_bytes(&g, 11, vx, x.len);            /* input */
  put_bytes(&g, 12, vy, y.len);            /* output */
  put_int(&op, 2, 13);                     /* OperatorSetIdProto.version */
  put_int(&m, 1, 7);                       /* ModelProto.ir_version */
  put_bytes(&m, 7, graph, g.len);          /* graph */
  put_bytes(&m, 8, opset, op.len);         /* opset_import */
  return m.len <= cap ? m.len : 0;
}
