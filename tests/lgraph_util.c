/*
 * lgraph_util.c - layer graphs built by hand in the tests (lgraph_util.h).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "tests/lgraph_util.h"

int32_t tensor(struct acs_lgraph *lg, const char *name, int kind, int rank,
               const int64_t *dims)
{
  int32_t t = acs_lgraph_add_tensor(lg, name);

  cr_assert_geq(t, 0, "tensor %s", name);
  lg->t[t].kind = (uint8_t)kind;
  if (dims) {
    acs_ltensor_set_shape(&lg->t[t], rank, dims);
    lg->t[t].dtype = 1;
    lg->t[t].elem_bytes = 4;
  }
  if (kind == ACS_LT_INPUT) {
    int32_t *in = acs_arena_calloc(&lg->arena, (size_t)lg->ninputs + 1, sizeof(*in));
    cr_assert_not_null(in);
    if (lg->ninputs)
      memcpy(in, lg->inputs, (size_t)lg->ninputs * sizeof(*in));
    in[lg->ninputs++] = t;
    lg->inputs = in;
  }
  return t;
}

int32_t node(struct acs_lgraph *lg, const char *name, int op, const struct acs_lattrs *a,
             int nin, const int32_t *in, const uint8_t *roles, const char *out)
{
  int32_t o = tensor(lg, out, ACS_LT_ACT, 0, NULL);
  int32_t v = acs_lgraph_add_node(lg, name, op, a, nin, in, roles, 1, &o);

  cr_assert_geq(v, 0);
  return v;
}

void infer_ok(struct acs_lgraph *lg)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_lgraph_finalize(lg, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_lgraph_infer(lg, &d), ACS_OK, "%s", d.msg);
}
