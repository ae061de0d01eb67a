/*
 * test-load-graphs.c - the generic op-graph CSV, PSPLIB and STG readers.
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

/* ---- generic op-graph CSV ---- */

/*
 * graph_good.csv: w (dma 100 B) -> a (dpu, 1000 MACs, out 40) -> c (5 cycles,
 * out 20, cmx 500 given, acc 2); b (shave 7, out 30, slots 2, acc 1) reads
 * a and c (c is defined after b); d (sync) comes after b and c (control);
 * out (dma 30 B CMX->DDR) reads b, after d.
 * Default cmx = inputs' out_bytes + own out_bytes: w 100, a 100+40,
 * b 40+20+30, d 0, out 30.
 */
Test(graphcsv, good_file_gives_ops_edges_and_demands)
{
  struct warns w;
  struct acs_graph g;
  struct acs_workload *wl = load_ok(LD("graph_good.csv"), &w);

  cr_assert_eq(wl->kind, ACS_WL_GRAPH);
  build_ok(wl, NULL, &g);
  cr_assert_eq(g.nops, 6);
  cr_assert_eq(g.nedges, 8);
  cr_assert_eq(g.nres, 4);
  cr_assert_str_eq(g.res[3].name, "acc");
  cr_assert_eq(g.res[3].kind, ACS_RES_NAMED);
  cr_assert_eq(g.res[3].capacity, 2);

  const struct acs_op *wop = &g.ops[op(&g, "w")];
  cr_assert_eq(wop->kind, ACS_OP_DMA);
  cr_assert_eq(wop->bytes, 100);
  cr_assert_eq(wop->out_bytes, 100);
  cr_assert_eq(wop->src, ACS_MEM_DDR);
  cr_assert_eq(wop->dst, ACS_MEM_CMX);
  cr_assert_eq(g.ops[op(&g, "a")].macs, 1000);
  cr_assert_eq(g.ops[op(&g, "a")].cycles, -1);
  cr_assert_eq(g.ops[op(&g, "b")].cycles, 7);
  cr_assert_eq(g.ops[op(&g, "b")].slots, 2);
  cr_assert_eq(g.ops[op(&g, "b")].kind, ACS_OP_SHAVE);
  cr_assert_eq(g.ops[op(&g, "d")].kind, ACS_OP_SYNC);
  cr_assert_eq(g.ops[op(&g, "d")].cycles, 0);
  cr_assert_eq(g.ops[op(&g, "out")].out_bytes, 0);

  cr_assert_eq(demand(&g, "w", "cmx"), 100);
  cr_assert_eq(demand(&g, "w", "dma"), 1);
  cr_assert_eq(demand(&g, "w", "pe"), 0);
  cr_assert_eq(demand(&g, "a", "cmx"), 140);
  cr_assert_eq(demand(&g, "a", "pe"), 1);
  cr_assert_eq(demand(&g, "b", "cmx"), 90);
  cr_assert_eq(demand(&g, "b", "acc"), 1);
  cr_assert_eq(demand(&g, "c", "cmx"), 500);
  cr_assert_eq(demand(&g, "c", "acc"), 2);
  cr_assert_eq(demand(&g, "d", "cmx"), 0);
  cr_assert_eq(demand(&g, "d", "pe"), 0);
  cr_assert_eq(demand(&g, "out", "cmx"), 30);

  cr_assert(has_edge(&g, "w", "a", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "a", "b", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "c", "b", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "a", "c", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "b", "d", ACS_EDGE_CONTROL));
  cr_assert(has_edge(&g, "c", "d", ACS_EDGE_CONTROL));
  cr_assert(has_edge(&g, "b", "out", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "d", "out", ACS_EDGE_CONTROL));
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(graphcsv, shipped_graphs_have_their_branches_and_joins)
{
  struct warns w;
  struct acs_graph g;
  struct acs_workload *wl = load_ok("workloads/graphs/resnet_block_chain.csv", &w);

  build_ok(wl, NULL, &g);
  /* stem: input, conv1.w, conv1, pool1; 4 plain blocks x 5 ops, 2 projection
   * blocks x 7 ops; output: 4 + 20 + 14 + 1 = 39 ops. */
  cr_assert_eq(g.nops, 39);
  cr_assert(has_edge(&g, "b1.c2", "b1.add", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "pool1", "b1.add", ACS_EDGE_DATA)); /* identity skip */
  cr_assert(has_edge(&g, "b3.sc", "b3.add", ACS_EDGE_DATA)); /* projection */
  cr_assert(has_edge(&g, "b2.add", "b3.sc", ACS_EDGE_DATA)); /* the fork */
  cr_assert(has_edge(&g, "b2.add", "b3.c1", ACS_EDGE_DATA));
  /* b1.c1: 56*56 outputs x 3*3*64 x 64 filters */
  cr_assert_eq(g.ops[op(&g, "b1.c1")].macs, 56LL * 56 * 9 * 64 * 64);
  acs_graph_destroy(&g);
  acs_workload_free(wl);

  wl = load_ok("workloads/graphs/isp_pipeline.csv", &w);
  build_ok(wl, NULL, &g);
  cr_assert_eq(g.nops, 10);
  cr_assert(has_edge(&g, "edges", "stats", ACS_EDGE_CONTROL));
  cr_assert_eq(g.res[acs_graph_find_resource(&g, "lut")].capacity, 1);
  cr_assert_eq(demand(&g, "gamma", "lut"), 1);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(graphcsv, unknown_op_reference_is_located_at_the_name)
{
  /* `b,shave,2,a;zz`: the list starts at column 11, zz at 13 */
  workload_fails(LD("graph_unknown_ref.csv"), ACS_EPARSE, 3, 13,
                 "unknown op 'zz' in 'inputs' of op 'b'");
}

Test(graphcsv, unknown_name_in_a_quoted_list_is_located_exactly)
{
  /* `b,shave,2,"a; zz"`: the quote is column 11, the text starts at 12 and
   * zz at 15 */
  workload_fails(LD("graph_unknown_ref_quoted.csv"), ACS_EPARSE, 3, 15,
                 "unknown op 'zz' in 'inputs' of op 'b'");
}

Test(graphcsv, cycle_names_its_ops_and_the_file)
{
  workload_fails(LD("graph_cycle.csv"), ACS_ECYCLE, 2, 0,
                 "cycle: a -> b -> c -> a");
}

Test(graphcsv, duplicate_op_name_is_an_error)
{
  workload_fails(LD("graph_dup.csv"), ACS_EPARSE, 4, 1,
                 "duplicate op name 'a' (first at line 2)");
}

Test(graphcsv, unknown_column_is_an_error_at_the_header)
{
  workload_fails(LD("graph_unknown_col.csv"), ACS_EPARSE, 1, 11,
                 "unknown column 'cycle' (known: name, kind, cycles, macs, bytes, "
                 "src, dst, out_bytes, inputs, after, slots, pe, dma, cmx, "
                 "res:NAME=CAPACITY)");
}

Test(graphcsv, bad_number_is_located_at_its_field)
{
  workload_fails(LD("graph_bad_number.csv"), ACS_EPARSE, 2, 9,
                 "bad number '12x' in column 'cycles'");
}

Test(graphcsv, unknown_kind_is_an_error)
{
  workload_fails(LD("graph_bad_kind.csv"), ACS_EPARSE, 2, 3,
                 "unknown kind 'npu' (known: dpu, dma, shave, sync)");
}

Test(graphcsv, compute_op_without_duration_is_an_error)
{
  workload_fails(LD("graph_no_duration.csv"), ACS_EPARSE, 2, 1,
                 "dpu op 'a' needs 'cycles' or 'macs'");
}

Test(graphcsv, resource_column_needs_a_capacity)
{
  workload_fails(LD("graph_bad_res.csv"), ACS_EPARSE, 1, 18,
                 "resource column 'res:acc' must be res:NAME=CAPACITY");
}

/* Records ended by a lone '\r' (old Mac text): several on one line as
 * the reader counts lines, every field still located, the header read
 * once (its fields were on line 0, so the next record was read as the
 * header again, and the first header's columns leaked). */
Test(graphcsv, records_ended_by_carriage_returns_are_located)
{
  struct acs_workload *wl = NULL;
  struct acs_diag d;
  int rc;

  acs_diag_init(&d);
  rc = acs_workload_load(tu_write_tmp("cr.csv", "name,cycles\ra,5\rb,x\r"), &wl, &d);
  expect_diag(rc, ACS_EPARSE, &d, "cr.csv", 1, 19, "bad number 'x' in column 'cycles'");
  acs_diag_init(&d);
  rc = acs_workload_load(tu_write_tmp("cr.csv", ",\rname\r\nout\n"), &wl, &d);
  expect_diag(rc, ACS_EPARSE, &d, "cr.csv", 2, 1, "dpu op 'out' needs 'cycles' or 'macs'");
  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(tu_write_tmp("cr.csv", "name,cycles\ra,5\rb,7\r"), &wl, &d),
               ACS_OK, "%s", d.msg);
  acs_workload_free(wl);
}

Test(graphcsv, empty_file_is_an_error)
{
  workload_fails(LD("empty.csv"), ACS_EPARSE, 1, 1, "empty file: no header row");
}

/* ---- PSPLIB ---- */

Test(psplib, j301_1_maps_jobs_resources_and_successors)
{
  struct warns w;
  struct acs_graph g;
  struct acs_workload *wl = load_ok(LD("j301_1.sm"), &w);

  cr_assert_eq(wl->kind, ACS_WL_PSPLIB);
  build_ok(wl, NULL, &g);
  /* 32 jobs; the successor counts of PRECEDENCE RELATIONS add up to 48. */
  cr_assert_eq(g.nops, 32);
  cr_assert_eq(g.nedges, 48);
  cr_assert_eq(g.nres, 4);
  const int64_t cap[4] = { 12, 13, 4, 12 }; /* RESOURCEAVAILABILITIES */
  for (int r = 0; r < 4; r++) {
    char name[8];
    snprintf(name, sizeof(name), "R%d", r + 1);
    cr_assert_str_eq(g.res[r].name, name);
    cr_assert_eq(g.res[r].kind, ACS_RES_NAMED);
    cr_assert_eq(g.res[r].capacity, cap[r]);
  }
  cr_assert_eq(g.ops[op(&g, "j1")].kind, ACS_OP_SYNC);
  cr_assert_eq(g.ops[op(&g, "j1")].cycles, 0);
  cr_assert_eq(g.ops[op(&g, "j32")].kind, ACS_OP_SYNC);
  /* `2 1 8 4 0 0 0` and `6 1 8 0 0 0 8` */
  cr_assert_eq(g.ops[op(&g, "j2")].kind, ACS_OP_SHAVE);
  cr_assert_eq(g.ops[op(&g, "j2")].cycles, 8);
  cr_assert_eq(demand(&g, "j2", "R1"), 4);
  cr_assert_eq(demand(&g, "j6", "R4"), 8);
  cr_assert_eq(demand(&g, "j6", "R1"), 0);
  /* `1 1 3 2 3 4` and `8 1 3 12 19 27` */
  cr_assert(has_edge(&g, "j1", "j2", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "j1", "j4", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "j8", "j27", ACS_EDGE_DATA));
  cr_assert_eq(g.succ_off[op(&g, "j8") + 1] - g.succ_off[op(&g, "j8")], 3);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(psplib, truncated_file_is_an_error_at_its_end)
{
  /* the first 30 lines: rows for jobs 1-12 (lines 19-30) */
  workload_fails(LD("sm_truncated.sm"), ACS_EPARSE, 30, 0,
                 "file ends before PRECEDENCE RELATIONS has all 32 rows (it has 12)");
}

Test(psplib, successor_out_of_range_is_located)
{
  /* `   5        1          1          40`: 40 at column 35 */
  workload_fails(LD("sm_succ_range.sm"), ACS_EPARSE, 23, 35,
                 "successor 40 of job 5 is out of range 1..32");
}

Test(psplib, section_with_a_missing_row_is_an_error)
{
  workload_fails(LD("sm_short_section.sm"), ACS_EPARSE, 50, 1,
                 "PRECEDENCE RELATIONS ends after 31 of 32 jobs");
}

Test(psplib, wrong_successor_count_is_an_error)
{
  /* job 2 claims 4 successors and lists 3; the line ends at column 44 */
  workload_fails(LD("sm_bad_count.sm"), ACS_EPARSE, 20, 45,
                 "expected 7 fields (jobnr, #modes, #successors and the "
                 "successors), got 6");
}

Test(psplib, missing_job_count_is_an_error)
{
  workload_fails(LD("sm_no_jobs.sm"), ACS_EPARSE, 16, 0,
                 "missing 'jobs (incl. supersource/sink ):' line before "
                 "PRECEDENCE RELATIONS");
}

/* ---- STG ---- */

Test(stg, small_file_maps_tasks_to_ops)
{
  struct warns w;
  struct acs_graph g;
  struct acs_workload *wl = load_ok(LD("stg_small.stg"), &w);

  cr_assert_eq(wl->kind, ACS_WL_STG);
  build_ok(wl, NULL, &g);
  cr_assert_eq(g.nops, 5);
  cr_assert_eq(g.nedges, 5);
  cr_assert_eq(g.nres, 1);
  cr_assert_str_eq(g.res[0].name, "pe");
  cr_assert_eq(g.res[0].kind, ACS_RES_PE);
  cr_assert_eq(g.ops[op(&g, "t0")].kind, ACS_OP_SYNC);
  cr_assert_eq(demand(&g, "t0", "pe"), 0);
  cr_assert_eq(g.ops[op(&g, "t1")].kind, ACS_OP_SHAVE);
  cr_assert_eq(g.ops[op(&g, "t1")].cycles, 5);
  cr_assert_eq(demand(&g, "t1", "pe"), 1);
  cr_assert_eq(g.ops[op(&g, "t3")].cycles, 4);
  cr_assert(has_edge(&g, "t1", "t3", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "t2", "t3", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "t3", "t4", ACS_EDGE_DATA));
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

/* Longest path in cycles over the topological order: O(V + E). */
static int64_t longest_path(const struct acs_graph *g)
{
  int64_t *fin = calloc((size_t)g->nops, sizeof(*fin)), best = 0;
  for (int32_t k = 0; k < g->nops; k++) {
    int32_t v = g->topo[k];
    int64_t start = 0;
    for (int32_t e = g->pred_off[v]; e < g->pred_off[v + 1]; e++)
      if (fin[g->pred[e]] > start)
        start = fin[g->pred[e]];
    fin[v] = start + g->ops[v].cycles;
    if (fin[v] > best)
      best = fin[v];
  }
  free(fin);
  return best;
}

Test(stg, rand0000_matches_the_statistics_in_its_comments)
{
  struct warns w;
  struct acs_graph g;
  struct acs_workload *wl = load_ok(LD("rand0000.stg"), &w);

  build_ok(wl, NULL, &g);
  /* "# Tasks : 50 (+dummy tasks : 2)", "# Edges : 96 / 1225 (+dummy edges :
   * 23)", "# CP Length : 55" */
  cr_assert_eq(g.nops, 52);
  cr_assert_eq(g.nedges, 96 + 23);
  cr_assert_eq(longest_path(&g), 55);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(stg, bad_predecessor_id_is_located)
{
  /* `3 4 2 1 7`: 7 at column 9 */
  workload_fails(LD("stg_bad_pred.stg"), ACS_EPARSE, 5, 9,
                 "predecessor 7 of task 3 is not an earlier task (0..2)");
}

Test(stg, truncated_file_is_an_error)
{
  workload_fails(LD("stg_truncated.stg"), ACS_EPARSE, 4, 0,
                 "file ends after 3 of 5 task lines (tasks 0..4)");
}

