/*
 * lgraph_util.h - layer graphs built by hand in the tests (test-layer,
 * test-cascade-*): tensors, nodes and shape inference that must succeed.
 */
#ifndef ACS_TESTS_LGRAPH_UTIL_H
#define ACS_TESTS_LGRAPH_UTIL_H

#include <stdint.h>

#include "core/model/layer.h"

/* Adds tensor `name` of `kind` (ACS_LT_*) with `rank` dims (none when dims
 * is NULL: inferred later), 4-byte elements; an input is also listed among
 * the graph's inputs. Returns its id. */
int32_t tensor(struct acs_lgraph *lg, const char *name, int kind, int rank,
               const int64_t *dims);

#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define NDIMS(...) ((int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define INPUT(lg, name, ...) tensor(lg, name, ACS_LT_INPUT, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))
#define WEIGHT(lg, name, ...) tensor(lg, name, ACS_LT_WEIGHT, NDIMS(__VA_ARGS__), DIMS(__VA_ARGS__))

/* A node with inputs `in` (slot roles `roles`) writing a new tensor `out`;
 * returns the node id. */
int32_t node(struct acs_lgraph *lg, const char *name, int op, const struct acs_lattrs *a,
             int nin, const int32_t *in, const uint8_t *roles, const char *out);

/* Finalizes and infers lg, failing the test with the message on error. */
void infer_ok(struct acs_lgraph *lg);

#endif
