/*
 * fuzz-onnx.c - the ONNX reader: a model becomes a layer graph, its shapes
 * inferred, constants folded and layers fused; then what `acsim workload`
 * derives from it per node (work, weights, shapes) and in total. The op
 * graph is fuzz-onnx-build's.
 */
#include "config.h"

#include "core/model/layer.h"
#include "tests/fuzz/fuzz.h"

static void walk_layers(const struct acs_lgraph *lg)
{
  struct acs_lgraph_totals tot;
  char text[256];

  for (int32_t i = 0; i < lg->nnodes; i++) {
    int32_t v = lg->topo[i];
    const struct acs_lnode *n = &lg->n[v];
    struct acs_lbox box;
    int64_t work;
    if (n->nout < 1 || n->out[0] < 0)
      continue;
    acs_ltensor_box(&lg->t[n->out[0]], &box);
    (void)acs_lnode_work(lg, v, &box, &work);
    (void)acs_lnode_weight_elems(lg, v);
    acs_lnode_op_text(n, text, sizeof(text));
    acs_ltensor_shape_text(&lg->t[n->out[0]], text, sizeof(text));
  }
  (void)acs_lgraph_totals(lg, 1, &tot);
  (void)acs_lgraph_totals(lg, 16, &tot);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct acs_workload *w = NULL;
  struct acs_diag d;
  int err;

  acs_fuzz_init();
  acs_diag_init(&d);
  err = acs_workload_load(acs_fuzz_file("in.onnx", data, size), &w, &d);
  acs_fuzz_check_refusal(err, &d);
  if (err < 0)
    return 0;
  if (!acs_workload_lgraph(w))
    acs_fuzz_fail("an ONNX workload without a layer graph", NULL);
  walk_layers(acs_workload_lgraph(w));
  acs_workload_free(w);
  return 0;
}
