/*
 * test-load-dnn.c - SCALE-Sim tables and their op DAG (tiling, linking).
 *
 * Expected numbers are worked out by hand in the comments; bad inputs check
 * the exact message and its line:column. Test files are in tests/data/load/
 * (provenance in tests/data/README.md).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "tests/testutil.h"

#include "tests/load_util.h"

/* ---- SCALE-Sim tables ---- */

/*
 * dnn_two_layers.csv, on the default platform (bytes_per_elem 1, 4 PEs):
 *  L1: 8x8x2 input, 3x3 filters, 4 of them, stride 1.
 *      OH = OW = (8 - 3) / 1 + 1 = 6; w = 3*3*2*4 = 72 B;
 *      macs = 6*6 * 3*3*2 * 4 = 2592
 *  L2: 6x6x4 input (= L1's output: chained), 3x3, 8 filters, stride 2.
 *      OH = OW = (6 - 3) / 2 + 1 = 2; w = 3*3*4*8 = 288 B;
 *      macs = 2*2 * 3*3*4 * 8 = 1152
 * The layer graph: a network input of 1x2x8x8, L1, L2 reading L1's output,
 * L2's output the network's. One note says how the rows were linked.
 */
Test(dnn, two_layer_table_becomes_a_layer_graph)
{
  struct warns w;
  struct acs_graph g;
  struct acs_workload *wl = load_ok(LD("dnn_two_layers.csv"), &w);
  const struct acs_lgraph *lg = acs_workload_lgraph(wl);

  cr_assert_eq(wl->kind, ACS_WL_DNN);
  cr_assert_eq(wl->nlayers, 2);
  cr_assert_eq(wl->layers[1].line, 3);
  cr_assert_eq(w.n, 1);
  cr_assert_str_eq(w.last, "note: 2 SCALE-Sim rows linked as a layer graph: 1 chained, 0 after "
                           "an implicit pooling, 0 after an implicit resampling, 1 reading a new "
                           "input from DDR; 1 output no row reads (network outputs)");
  cr_assert_not_null(lg);
  cr_assert_eq(lg->nnodes, 2);
  cr_assert_eq(lg->ninputs, 1);
  cr_assert_eq(lg->noutputs, 1);
  cr_assert_eq(lg->t[lg->n[1].in[0]].producer, 0, "L2 reads L1");
  build_ok(wl, NULL, &g);
  cr_assert_str_eq(g.res[0].name, "pe");
  cr_assert_str_eq(g.res[1].name, "dma");
  cr_assert_str_eq(g.res[2].name, "cmx");
  cr_assert_str_eq(g.res[3].name, "ddr");
  cr_assert_eq(g.res[3].kind, ACS_RES_DDR);
  cr_assert_eq(g.ops[op(&g, "L1.w")].bytes, 72);
  cr_assert_eq(g.ops[op(&g, "L2.w")].bytes, 288);
  cr_assert_eq(demand(&g, "L1.w", "ddr"), 1);
  /* The workloads of each layer add up to its MACs. */
  int64_t m1 = 0, m2 = 0;
  for (int32_t i = 0; i < g.nops; i++) {
    if (g.ops[i].kind != ACS_OP_DPU)
      continue;
    if (strncmp(g.ops[i].name, "L1", 2) == 0)
      m1 += g.ops[i].macs;
    else if (strncmp(g.ops[i].name, "L2", 2) == 0)
      m2 += g.ops[i].macs;
    cr_assert_eq(demand(&g, g.ops[i].name, "pe"), 1);
  }
  cr_assert_eq(m1, 2592);
  cr_assert_eq(m2, 1152);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(dnn, bytes_scale_with_bytes_per_elem_and_macs_do_not)
{
  struct warns w;
  struct acs_graph g;
  struct acs_workload *wl = load_ok(LD("dnn_two_layers.csv"), &w);
  const char *const sets[] = { "bytes_per_elem=2", NULL };
  int64_t macs = 0;

  build_ok(wl, sets, &g);
  cr_assert_eq(g.ops[op(&g, "L1.w")].bytes, 144);
  for (int32_t i = 0; i < g.nops; i++)
    macs += g.ops[i].kind == ACS_OP_DPU ? g.ops[i].macs : 0;
  cr_assert_eq(macs, 2592 + 1152);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(dnn, bom_blank_rows_spaces_and_extra_columns_are_tolerated)
{
  struct warns w;
  struct acs_workload *wl = load_ok(LD("dnn_quirks.csv"), &w);
  /* Same layers as dnn_two_layers.csv, written the messy way: only the
   * note. */
  cr_assert_eq(wl->nlayers, 2);
  cr_assert_eq(w.n, 1);
  cr_assert_str_eq(wl->layers[0].name, "L1");
  cr_assert_eq(wl->layers[0].line, 4);
  cr_assert_eq(wl->layers[0].ifmap_h, 8);
  cr_assert_eq(wl->layers[0].num_filt, 4);
  cr_assert_eq(wl->layers[0].stride, 1);
  cr_assert_str_eq(wl->layers[1].name, "L2");
  cr_assert_eq(wl->layers[1].stride, 2); /* last line, no newline */
  acs_workload_free(wl);
}

Test(dnn, rows_that_do_not_chain_are_linked_by_the_rules)
{
  struct warns w;
  /* A: 10x10x3 -> 8x8x16. B reads 4x4x16: A pooled 2x2. B -> 2x2x32, C
   * reads 2x2x32: chained. The second A repeats a name (a warning) and
   * becomes A@5; it reads 2x2x8: C's output. */
  struct acs_workload *wl = load_ok(LD("dnn_warn.csv"), &w);
  const struct acs_lgraph *lg = acs_workload_lgraph(wl);
  cr_assert_eq(w.n, 2);
  cr_assert_eq(w.line[0], 5);
  cr_assert_str_eq(wl->layers[3].name, "A@5");
  cr_assert_eq(lg->nnodes, 5, "A, B.pool, B, C, A@5");
  cr_assert_eq(lg->noutputs, 1);
  cr_assert(strstr(w.last, "2 chained, 1 after an implicit pooling"), "%s", w.last);

  struct acs_diag d;
  diag_with_warns(&d, &w);
  acs_workload_free(wl);
  cr_assert_eq(acs_workload_load(tu_path(LD("dnn_warn.csv")), &wl, &d), ACS_OK);
  cr_assert_eq(d.nwarn, 1, "the note is not a warning");
  acs_workload_free(wl);
}

Test(dnn, alexnet_links_its_two_pools)
{
  struct warns w;
  struct acs_workload *wl = load_ok("workloads/dnn/alexnet.csv", &w);
  /* Conv1 (224, 11x11/4) gives 54, Conv2 reads 27x27x96: a 2x2 pool left
   * out. Conv2 (27, 5x5/1) gives 23, Conv3 reads 13: 23 / 2 = 11 padded
   * by 2 <= (3-1) + (5-1). Conv3 -> Conv4 -> Conv5 chain (13 from 11,
   * padded). */
  cr_assert_eq(wl->nlayers, 5);
  cr_assert_eq(w.n, 1);
  cr_assert_str_eq(w.last, "note: 5 SCALE-Sim rows linked as a layer graph: 2 chained, 2 "
                           "after an implicit pooling, 0 after an implicit resampling, 1 reading "
                           "a new input from DDR; 1 output no row reads (network outputs)");
  acs_workload_free(wl);
}

/* Every compute op fits the CMX unless its layer cannot be split at all. */
static void assert_tiles_fit(const struct acs_graph *g, int64_t cmx)
{
  for (int32_t i = 0; i < g->nops; i++)
    if (g->ops[i].kind == ACS_OP_DPU)
      cr_assert_leq(acs_graph_demand(g, i, 2), cmx, "op %s", g->ops[i].name);
}

Test(dnn, shipped_tables_load_and_build)
{
  static const struct { const char *file; size_t layers; } nets[] = {
    { "workloads/dnn/alexnet.csv", 5 },       { "workloads/dnn/resnet18.csv", 21 },
    { "workloads/dnn/resnet50.csv", 54 },     { "workloads/dnn/mobilenet_v1.csv", 27 },
    { "workloads/dnn/vgg16.csv", 16 },        { "workloads/dnn/yolo.csv", 22 },
  };
  for (size_t k = 0; k < sizeof(nets) / sizeof(*nets); k++) {
    struct warns w;
    struct acs_graph g;
    struct acs_workload *wl = load_ok(nets[k].file, &w);
    cr_assert_eq(wl->nlayers, nets[k].layers, "%s", nets[k].file);
    cr_assert_eq(w.n, 1, "%s: one note, no warning", nets[k].file);
    cr_assert_not_null(acs_workload_lgraph(wl));
    build_ok(wl, NULL, &g);
    cr_assert_geq(count_kind(&g, ACS_OP_DPU), (int)wl->nlayers);
    assert_tiles_fit(&g, 2048 * 1024);
    acs_graph_destroy(&g);
    acs_workload_free(wl);
  }
}

Test(dnn, resnet50_extra_columns_are_ignored)
{
  struct warns w;
  struct acs_workload *wl = load_ok("workloads/dnn/resnet50.csv", &w);
  /* Row 3 is `Conv1,224,224,7,7,3,64,2,,,110,110,12100`; row 2 is ",,,,". */
  cr_assert_str_eq(wl->layers[0].name, "Conv1");
  cr_assert_eq(wl->layers[0].line, 3);
  cr_assert_eq(wl->layers[0].stride, 2);
  cr_assert_eq(wl->layers[0].num_filt, 64);
  cr_assert_str_eq(wl->layers[53].name, "FC6");
  cr_assert_eq(wl->layers[53].channels, 2048);
  acs_workload_free(wl);
}

Test(dnn, absurd_tile_counts_are_refused)
{
  struct warns w;
  struct acs_graph g;
  struct acs_platform p;
  struct acs_diag d;
  const char *const sets[] = { "cmx_kib=1", NULL };
  /* 200000 rows of 8 bytes, one 1x1 filter, on 1 KiB: a few thousand
   * tiles, built. */
  struct acs_workload *wl = load_ok(LD("dnn_tall.csv"), &w);
  build_ok(wl, sets, &g);
  cr_assert_gt(count_kind(&g, ACS_OP_DPU), 1000);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
  /* With 10^9 rows the cut needs millions of ops: refused before any is
   * made, naming the node and the limit on ops (core/acs.h). */
  wl = load_ok(LD("dnn_taller.csv"), &w);
  platform(&p, sets);
  acs_diag_init(&d);
  int rc = acs_workload_build(wl, &p, &g, &d);
  cr_assert_eq(rc, ACS_ELIMIT);
  cr_assert(strstr(d.msg, "node 'Tall'") && strstr(d.msg, "more than the limit ops=2097152"),
            "%s", d.msg);
  cr_assert_gt(d.line, 0);
  acs_workload_free(wl);
}

Test(dnn, bad_number_is_located_at_its_field)
{
  /* `L2,6,6,3,x3,...`: Filter Width at column 10 */
  workload_fails(LD("dnn_bad_number.csv"), ACS_EPARSE, 3, 10,
                 "bad number 'x3' for Filter Width (expected a positive integer)");
}

Test(dnn, non_positive_value_is_an_error)
{
  workload_fails(LD("dnn_zero.csv"), ACS_EPARSE, 2, 14,
                 "Num Filter must be positive, got 0");
}

Test(dnn, filter_larger_than_ifmap_is_an_error)
{
  workload_fails(LD("dnn_filter_too_big.csv"), ACS_EPARSE, 3, 8,
                 "filter 5x5 is larger than the 4x4 ifmap");
}

Test(dnn, short_row_is_an_error_after_its_last_field)
{
  workload_fails(LD("dnn_short_row.csv"), ACS_EPARSE, 2, 15,
                 "layer row has 7 fields; expected 8 (name, IFMAP Height, IFMAP "
                 "Width, Filter Height, Filter Width, Channels, Num Filter, "
                 "Strides)");
}

Test(dnn, header_without_layers_is_an_error)
{
  workload_fails(LD("dnn_header_only.csv"), ACS_EPARSE, 1, 1,
                 "no layer rows after the header");
}

/* Sizes beyond 2^53 are refused at the row that asks for them. */
Test(dnn, overflowing_sizes_are_an_error_at_their_row)
{
  workload_fails(LD("dnn_overflow.csv"), ACS_ERANGE, 2, 5,
                 "layer 'Big': its input tensor has more than 9007199254740992 elements");
}

