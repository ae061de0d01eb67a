/*
 * test-lower.c - the NPU lowering of layer graphs (core/load/layer_*.c):
 * the workload split rules, the double-buffered tiling, residency and the
 * links, each on a layer worked out by hand; SCALE-Sim tables linked into
 * layer graphs by their rules; and, over random networks and the shipped
 * ones, that every schedule verifies and no run ends below the network
 * bound.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "core/model/netbound.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

/* ---- layer graphs by hand ---- */

static struct acs_lgraph *lg_new(void)
{
  struct acs_lgraph *lg = malloc(sizeof(*lg));
  cr_assert_not_null(lg);
  cr_assert_eq(acs_lgraph_init(lg, "net", "net.onnx"), ACS_OK);
  return lg;
}

static int32_t lg_tensor(struct acs_lgraph *lg, const char *name, int kind, int rank,
                         const int64_t *dims)
{
  int32_t t = acs_lgraph_add_tensor(lg, name);
  cr_assert_geq(t, 0, "tensor %s", name);
  lg->t[t].kind = (uint8_t)kind;
  if (dims) {
    acs_ltensor_set_shape(&lg->t[t], rank, dims);
    lg->t[t].dtype = 1;
    lg->t[t].elem_bytes = 1;
  }
  return t;
}

static int32_t lg_input(struct acs_lgraph *lg, const char *name, int64_t c, int64_t h,
                        int64_t w)
{
  const int64_t dims[4] = { 1, c, h, w };
  int32_t t = lg_tensor(lg, name, ACS_LT_INPUT, 4, dims);
  int32_t *in = acs_arena_calloc(&lg->arena, (size_t)lg->ninputs + 1, sizeof(*in));
  cr_assert_not_null(in);
  if (lg->ninputs)
    memcpy(in, lg->inputs, (size_t)lg->ninputs * sizeof(*in));
  in[lg->ninputs++] = t;
  lg->inputs = in;
  return t;
}

/* A convolution of `x` (c channels) into k channels, a kh x kw kernel,
 * stride s, pad p on every side, `group` groups; returns its output. */
static int32_t lg_conv(struct acs_lgraph *lg, const char *name, int32_t x, int64_t c,
                       int64_t k, int64_t kh, int64_t kw, int64_t s, int64_t p, int64_t group)
{
  static const uint8_t roles[] = { ACS_LR_DATA, ACS_LR_WEIGHT };
  char wn[64], on[64];
  const int64_t wd[4] = { k, c / group, kh, kw };
  struct acs_lattrs a;
  int32_t in[2], out;

  snprintf(wn, sizeof(wn), "%s.weight", name);
  snprintf(on, sizeof(on), "%s:0", name);
  in[0] = x;
  in[1] = lg_tensor(lg, wn, ACS_LT_WEIGHT, 4, wd);
  out = lg_tensor(lg, on, ACS_LT_ACT, 0, NULL);
  memset(&a, 0, sizeof(a));
  a.nkernel = a.nstrides = 2;
  a.kernel[0] = kh;
  a.kernel[1] = kw;
  a.strides[0] = a.strides[1] = s;
  a.npads = 4;
  a.pads[0] = a.pads[1] = a.pads[2] = a.pads[3] = p;
  a.group = group;
  cr_assert_geq(acs_lgraph_add_node(lg, name, ACS_LOP_CONV, &a, 2, in, roles, 1, &out), 0);
  return out;
}

/* Marks the outputs, finalizes and infers. */
static void lg_done(struct acs_lgraph *lg, int n, const int32_t *outs)
{
  struct acs_diag d;
  lg->outputs = acs_arena_calloc(&lg->arena, (size_t)n + 1, sizeof(*lg->outputs));
  cr_assert_not_null(lg->outputs);
  for (int i = 0; i < n; i++) {
    lg->outputs[i] = outs[i];
    lg->t[outs[i]].is_output = 1;
  }
  lg->noutputs = n;
  acs_diag_init(&d);
  cr_assert_eq(acs_lgraph_finalize(lg, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_lgraph_infer(lg, &d), ACS_OK, "%s", d.msg);
}

static void lg_free(struct acs_lgraph *lg)
{
  acs_lgraph_destroy(lg);
  free(lg);
}

/* One convolution as its own network. */
static struct acs_lgraph *one_conv(int64_t c, int64_t h, int64_t w, int64_t k, int64_t kh,
                                   int64_t p, int64_t group)
{
  struct acs_lgraph *lg = lg_new();
  int32_t y = lg_conv(lg, "c", lg_input(lg, "x", c, h, w), c, k, kh, kh, 1, p, group);
  lg_done(lg, 1, &y);
  return lg;
}

static void build(const struct acs_lgraph *lg, const char *const *sets, struct acs_graph *g,
                  struct acs_platform *p)
{
  struct acs_diag d;
  acs_platform_init(p);
  acs_diag_init(&d);
  for (; sets && *sets; sets++)
    cr_assert_eq(acs_platform_set_kv(p, *sets, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_lgraph_build(lg, p, g, &d), ACS_OK, "%s", d.msg);
}

static int32_t op(const struct acs_graph *g, const char *name)
{
  int32_t id = acs_graph_find_op(g, name);
  cr_assert_geq(id, 0, "no op '%s'", name);
  return id;
}

static int has_op(const struct acs_graph *g, const char *name)
{
  return acs_graph_find_op(g, name) >= 0;
}

static int has_edge(const struct acs_graph *g, const char *a, const char *b)
{
  int32_t s = op(g, a), t = op(g, b);
  for (int32_t e = 0; e < g->nedges; e++)
    if (g->edges[e].src == s && g->edges[e].dst == t)
      return 1;
  return 0;
}

/* Schedules g with `name` and verifies the schedule; returns its makespan,
 * or -1 when the scheduler finds the problem infeasible (message in msg). */
static int64_t schedule(const struct acs_graph *g, const struct acs_platform *p, const char *name,
                        char *msg, size_t size)
{
  const struct acs_sched_ops *ops = acs_sched_find(name);
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  void *opts = calloc(1, ops->opts_size + 1);
  int64_t mk;
  int rc;

  acs_diag_init(&d);
  cr_assert_not_null(opts);
  cr_assert_eq(acs_sched_opts_defaults(ops, opts), ACS_OK);
  cr_assert_eq(acs_problem_init(&pb, g, p, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_schedule_init_problem(&s, &pb), ACS_OK);
  rc = ops->schedule(&pb, opts, NULL, &s, &d);
  if (msg)
    snprintf(msg, size, "%s", d.msg);
  if (rc == ACS_EINFEASIBLE) {
    mk = -1;
  } else {
    cr_assert_eq(rc, ACS_OK, "%s: %s", name, d.msg);
    tu_assert_verified(&s);
    mk = s.makespan;
  }
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  free(opts);
  return mk;
}

/* ---- the split of a tile over the PEs ---- */

/*
 * Weight-heavy: a 1x1 convolution of 1x16x4x4 into 32 channels on 4 PEs,
 * one tile. By channels each PE computes 8 channels: 4*4*8*16 = 2048 MACs
 * and reads the whole input (256 B), 128 B of weights, writes 128 B: 512 B
 * each, 2048 in all. By rows each PE computes one row: 1*4*32*16 = 2048
 * MACs (as balanced) but reads 64 B of input, all 512 B of weights, writes
 * 128 B: 2816 in all. Channels win on what they read.
 */
Test(lower_split, weight_heavy_splits_channels)
{
  struct acs_lgraph *lg = one_conv(16, 4, 4, 32, 1, 0, 1);
  struct acs_platform p;
  struct acs_graph g;

  build(lg, NULL, &g, &p);
  for (int k = 0; k < 4; k++) {
    char name[16];
    snprintf(name, sizeof(name), "c.%d", k);
    cr_assert_eq(g.ops[op(&g, name)].macs, 2048);
    cr_assert_eq(g.ops[op(&g, name)].out_bytes, 128, "channels [8k, 8k + 8) of 4x4");
  }
  cr_assert(!has_op(&g, "c.4"));
  acs_graph_destroy(&g);
  lg_free(lg);
}

/*
 * Activation-heavy: a 1x1 convolution of 1x4x8x8 into 4 channels. By
 * channels: 8*8*1*4 = 256 MACs each, reading the whole 256-B input, 4 B of
 * weights, writing 64 B: 1296 B in all. By rows (2 rows each): 2*8*4*4 =
 * 256 MACs, reading 64 B of input, all 16 B of weights, writing 64 B: 576
 * B in all. Rows win: each workload's output is 2 rows of every channel.
 */
Test(lower_split, activation_heavy_splits_space)
{
  struct acs_lgraph *lg = one_conv(4, 8, 8, 4, 1, 0, 1);
  struct acs_platform p;
  struct acs_graph g;

  build(lg, NULL, &g, &p);
  for (int k = 0; k < 4; k++) {
    char name[16];
    snprintf(name, sizeof(name), "c.%d", k);
    cr_assert_eq(g.ops[op(&g, name)].macs, 256);
    cr_assert_eq(g.ops[op(&g, name)].out_bytes, 4 * 2 * 8);
  }
  acs_graph_destroy(&g);
  lg_free(lg);
}

/*
 * Balance first: a 3x3 convolution (pad 1) of 1x2x16x16 into 2 channels.
 * Only 2 PEs could share the channels (4,608 MACs each); 4 PEs share the
 * 16 rows, 4 rows each: 4*16*2*2*9 = 2304 MACs.
 */
Test(lower_split, few_channels_split_rows_to_use_every_pe)
{
  struct acs_lgraph *lg = one_conv(2, 16, 16, 2, 3, 1, 1);
  struct acs_platform p;
  struct acs_graph g;

  build(lg, NULL, &g, &p);
  for (int k = 0; k < 4; k++) {
    char name[16];
    snprintf(name, sizeof(name), "c.%d", k);
    cr_assert_eq(g.ops[op(&g, name)].macs, 2304);
  }
  /* One PE: a single workload named after the node. */
  const char *one[] = { "pe_count=1", NULL };
  acs_graph_destroy(&g);
  build(lg, one, &g, &p);
  cr_assert_eq(g.ops[op(&g, "c")].macs, 16 * 16 * 2 * 2 * 9);
  acs_graph_destroy(&g);
  lg_free(lg);
}

/* ---- tiles sized for overlap ---- */

/*
 * A 1x1 convolution of 1x8x16x16 into 8 channels (input 2048 B, weights
 * 64 B, output 2048 B) on a 2-KiB CMX, 4 PEs, int8, 700 MHz, the link at
 * 80/7 B/cycle, latency 100:
 *  - the input would take the whole CMX, so it stays in DDR; the output is
 *    the network's and nothing reads it, so it is stored tile by tile;
 *  - the cut must fit twice: 2 x (64 + input rows + output rows) <= 2048,
 *    i.e. 256 B per row of input and output: at most 3 rows a tile, so 6
 *    row tiles (3,3,3,3,2,2 rows). With 2 channel groups (32 B of weights,
 *    128 B of output a row, the input still 128 B a row) 4 rows fit: 4
 *    tiles x 2 groups;
 *  - link time: 6 tiles x (load + store) + 1 weight DMA = 13 DMAs x 100 +
 *    4160 B / (80/7) = 1664 cycles; 4 x 2 tiles: 18 DMAs x 100 and 6208 B
 *    (the input read once per group) = 2343, or rows outer 20 DMAs and 6352
 *    B = 2556: 6 row tiles win;
 *  - a tile of 3 rows x 16 columns x 8 channels: by channels each PE reads
 *    the tile's 384-B input, by columns 96 B, both 768 MACs: columns.
 */
Test(lower_tiles, double_buffered_tiles_by_hand)
{
  struct acs_lgraph *lg = one_conv(8, 16, 16, 8, 1, 0, 1);
  const char *sets[] = { "cmx_kib=2", NULL };
  struct acs_platform p;
  struct acs_graph g;
  int nload = 0, nstore = 0, nwl = 0;

  build(lg, sets, &g, &p);
  for (int32_t i = 0; i < g.nops; i++) {
    nload += strncmp(g.ops[i].name, "c.i", 3) == 0;
    nstore += strncmp(g.ops[i].name, "c.o", 3) == 0;
    nwl += strncmp(g.ops[i].name, "c.t", 3) == 0;
  }
  cr_assert_eq(nload, 6);
  cr_assert_eq(nstore, 6);
  cr_assert_eq(nwl, 6 * 4);
  cr_assert(has_op(&g, "c.w") && !has_op(&g, "input") && !has_op(&g, "c.buf"));
  cr_assert_eq(g.ops[op(&g, "c.i0")].bytes, 3 * 16 * 8);
  cr_assert_eq(g.ops[op(&g, "c.i5")].bytes, 2 * 16 * 8);
  cr_assert_eq(g.ops[op(&g, "c.o0")].bytes, 3 * 16 * 8);
  /* Column split: 4 columns of 3 rows x 8 channels, 8 MACs an output. */
  cr_assert_eq(g.ops[op(&g, "c.t0.0")].macs, 3 * 4 * 8 * 8);
  cr_assert_eq(g.ops[op(&g, "c.t0.3")].out_bytes, 3 * 4 * 8);
  cr_assert(has_edge(&g, "c.w", "c.t3.2") && has_edge(&g, "c.i3", "c.t3.2") &&
            has_edge(&g, "c.t3.2", "c.o3") && !has_edge(&g, "c.i3", "c.t2.2"));
  cr_assert(has_edge(&g, "c.o5", "output") && g.ops[op(&g, "output")].kind == ACS_OP_SYNC);
  /* Every op fits the CMX, and the schedules verify. */
  for (int32_t i = 0; i < g.nops; i++)
    cr_assert_leq(acs_graph_demand(&g, i, 2), 2048, "%s", g.ops[i].name);
  cr_assert_gt(schedule(&g, &p, "list", NULL, 0), 0);
  cr_assert_gt(schedule(&g, &p, "spill", NULL, 0), 0);
  acs_graph_destroy(&g);
  lg_free(lg);
}

/* A layer whose smallest tile (one row of one channel with its weights)
 * does not fit is infeasible, with the layer's op and both byte counts. */
Test(lower_tiles, smallest_tile_too_large_is_infeasible_with_its_bytes)
{
  /* One output row of one channel of a 3x3 conv over 64 channels of 1024
   * columns reads 3 x 1024 x 64 = 196,608 B; the CMX has 64 KiB. */
  struct acs_lgraph *lg = one_conv(64, 8, 1024, 64, 3, 1, 1);
  const char *sets[] = { "cmx_kib=64", NULL };
  struct acs_platform p;
  struct acs_graph g;
  char msg[1024];

  build(lg, sets, &g, &p);
  cr_assert_eq(schedule(&g, &p, "list", msg, sizeof(msg)), -1);
  cr_assert(strstr(msg, "op 'c.") && strstr(msg, "'cmx'") && strstr(msg, "65536"), "%s", msg);
  acs_graph_destroy(&g);
  lg_free(lg);
}

/* ---- residency and links ---- */

/*
 * Two 3x3 convolutions (pad 1) of 1x8x16x16, 8 channels each, on 2 MiB:
 * c1's output (2048 B) stays in CMX, which saves its store and c2's load.
 * Both split 16 rows over 4 PEs (by channels each PE would read the whole
 * 2048-B input; by rows 640 B: a tie in MACs, rows read less). c2's
 * workload 1 (rows [4, 8)) reads c1's rows [3, 9): c1's workloads 0, 1
 * and 2, and c1's buffer.
 */
Test(lower_links, resident_tensor_between_layers)
{
  struct acs_lgraph *lg = lg_new();
  int32_t y = lg_conv(lg, "c1", lg_input(lg, "x", 8, 16, 16), 8, 8, 3, 3, 1, 1, 1);
  int32_t z = lg_conv(lg, "c2", y, 8, 8, 3, 3, 1, 1, 1);
  struct acs_platform p;
  struct acs_graph g;

  lg_done(lg, 1, &z);
  build(lg, NULL, &g, &p);
  cr_assert(has_op(&g, "c1.buf") && !has_op(&g, "c1.o") && !has_op(&g, "c2.i"));
  cr_assert_eq(g.ops[op(&g, "c1.buf")].out_bytes, 2048);
  cr_assert_eq(g.ops[op(&g, "c1.1")].out_bytes, 0, "written into the buffer");
  cr_assert(has_edge(&g, "c1.buf", "c1.0") && has_edge(&g, "c1.buf", "c2.1"));
  cr_assert(has_edge(&g, "c1.0", "c2.1") && has_edge(&g, "c1.1", "c2.1") &&
            has_edge(&g, "c1.2", "c2.1") && !has_edge(&g, "c1.3", "c2.1"));
  cr_assert(has_edge(&g, "c1.0", "c2.0") && has_edge(&g, "c1.1", "c2.0") &&
            !has_edge(&g, "c1.2", "c2.0"));
  cr_assert_eq(g.ops[op(&g, "c2.1")].macs, 4 * 16 * 8 * 8 * 9);
  cr_assert_gt(schedule(&g, &p, "list", NULL, 0), 0);
  cr_assert_gt(schedule(&g, &p, "spill", NULL, 0), 0);
  acs_graph_destroy(&g);
  lg_free(lg);
}

/*
 * The same chain with c1 a 1x1 convolution, on 2 KiB: no tensor can stay
 * (each takes the whole CMX). c1 is cut as in double_buffered_tiles_by_hand
 * (6 row tiles: rows [0,3) [3,6) [6,9) [9,12) [12,14) [14,16)). c2 (576 B
 * of weights) fits 2 x (weights + input + output) <= 2048 only with 2
 * channel groups of 2 rows (2 x (288 + 4 x 128 + 2 x 64) = 1856): 8 row
 * tiles x 2 groups (4 groups of 3 rows or 8 of 4 take more DMAs), groups
 * outer (the input is read for each group, the weights once a group). Its
 * load at position 1 (rows [2, 4), reading c1's rows [1, 5)) waits for
 * exactly c1's stores 0 and 1.
 */
Test(lower_links, tensor_through_ddr_waits_for_the_stores_it_reads)
{
  struct acs_lgraph *lg = lg_new();
  int32_t y = lg_conv(lg, "c1", lg_input(lg, "x", 8, 16, 16), 8, 8, 1, 1, 1, 0, 1);
  int32_t z = lg_conv(lg, "c2", y, 8, 8, 3, 3, 1, 1, 1);
  const char *sets[] = { "cmx_kib=2", NULL };
  struct acs_platform p;
  struct acs_graph g;

  lg_done(lg, 1, &z);
  build(lg, sets, &g, &p);
  cr_assert(!has_op(&g, "c1.buf") && has_op(&g, "c1.o5") && !has_op(&g, "c1.o6"));
  cr_assert(has_op(&g, "c2.w1") && !has_op(&g, "c2.w2") && has_op(&g, "c2.i15") &&
            !has_op(&g, "c2.i16"));
  cr_assert_eq(g.ops[op(&g, "c2.w0")].bytes, 288);
  cr_assert_eq(g.ops[op(&g, "c2.i1")].bytes, 4 * 16 * 8);
  cr_assert_eq(g.ops[op(&g, "c2.i0")].bytes, 3 * 16 * 8, "rows [0, 2) read rows [0, 3)");
  cr_assert(has_edge(&g, "c1.o0", "c2.i1") && has_edge(&g, "c1.o1", "c2.i1") &&
            !has_edge(&g, "c1.o2", "c2.i1"));
  /* Group 1's loads read the same rows again. */
  cr_assert(has_edge(&g, "c1.o0", "c2.i9") && has_edge(&g, "c2.w1", "c2.t9.0"));
  cr_assert_gt(schedule(&g, &p, "list", NULL, 0), 0);
  cr_assert_gt(schedule(&g, &p, "spill", NULL, 0), 0);
  acs_graph_destroy(&g);
  lg_free(lg);
}

/* ---- SCALE-Sim tables as layer graphs ---- */

static char g_note[1024];
static int g_nnotes;

static void keep_note(void *ctx, const char *file, int line, int col, const char *msg)
{
  (void)ctx;
  (void)file;
  (void)line;
  (void)col;
  snprintf(g_note, sizeof(g_note), "%s", msg);
  g_nnotes++;
}

static int32_t node_id(const struct acs_lgraph *lg, const char *name)
{
  for (int32_t v = 0; v < lg->nnodes; v++)
    if (strcmp(lg->n[v].name, name) == 0)
      return v;
  cr_assert_fail("no node '%s'", name);
  return -1;
}

/* The producer of node `name`'s data input, or "" for a network input. */
static const char *source_of(const struct acs_lgraph *lg, const char *name)
{
  int32_t p = lg->t[lg->n[node_id(lg, name)].in[0]].producer;
  return p >= 0 ? lg->n[p].name : "";
}

/*
 * tests/data/load/dnn_links.csv, each rule once:
 *  A 10x10x3, 3x3: a new input (nothing before), out 8x8x8;
 *  B 10x10x8: A's 8x8 padded by 2 <= (3-1)+(3-1): chained, out 8x8x8;
 *  C 4x4x8, 1x1: B's 8x8 halves: B -> C.pool (2x2, stride 2) -> C, out 4x4x16;
 *  D 8x8x8: C has 16 channels; B matches as is: a branch from B, out 6x6x8;
 *  E 1x1x8: D's 6x6 pooled globally: D -> E.gap -> E, out 1x1x10;
 *  F 12x12x10, 3x3: E's 1x1 x10 padded by 2: E -> F.up (x10) -> F, 10x10x4;
 *  G 5x5x7: 7 channels nobody makes: a new input, out 3x3x7;
 *  DW 7x7x7, Num Filter 1, and PW reads 7 channels: depthwise (group 7),
 *    G's 3x3 padded by 4 = (3-1)+(3-1): chained, out 5x5x7;
 *  PW 5x5x7, 1x1: chained to DW, out 5x5x2.
 * Outputs nobody reads: C, F, PW. One note for the file.
 */
Test(lower_scalesim, rows_link_by_the_rules)
{
  struct acs_workload *w;
  struct acs_diag d;
  const struct acs_lgraph *lg;

  acs_diag_init(&d);
  d.warn = keep_note;
  g_nnotes = 0;
  cr_assert_eq(acs_workload_load(tu_path("tests/data/load/dnn_links.csv"), &w, &d), ACS_OK,
               "%s", d.msg);
  lg = acs_workload_lgraph(w);
  cr_assert_not_null(lg);
  cr_assert_str_eq(source_of(lg, "A"), "");
  cr_assert_str_eq(source_of(lg, "B"), "A");
  cr_assert_str_eq(source_of(lg, "C.pool"), "B");
  cr_assert_str_eq(source_of(lg, "C"), "C.pool");
  cr_assert_str_eq(source_of(lg, "D"), "B");
  cr_assert_str_eq(source_of(lg, "E.gap"), "D");
  cr_assert_str_eq(source_of(lg, "F.up"), "E");
  cr_assert_str_eq(source_of(lg, "F"), "F.up");
  cr_assert_str_eq(source_of(lg, "G"), "");
  cr_assert_str_eq(source_of(lg, "DW"), "G");
  cr_assert_str_eq(source_of(lg, "PW"), "DW");
  cr_assert_eq(lg->n[node_id(lg, "DW")].a.group, 7);
  cr_assert_eq(lg->n[node_id(lg, "C.pool")].a.kernel[0], 2);
  cr_assert_eq(lg->ninputs, 2);
  cr_assert_eq(lg->noutputs, 3);
  /* Sizes as SCALE-Sim computes them: (IFMAP - Filter) / Stride + 1. */
  char shape[64];
  acs_ltensor_shape_text(&lg->t[lg->n[node_id(lg, "B")].out[0]], shape, sizeof(shape));
  cr_assert_str_eq(shape, "1x8x8x8");
  acs_ltensor_shape_text(&lg->t[lg->n[node_id(lg, "F")].out[0]], shape, sizeof(shape));
  cr_assert_str_eq(shape, "1x4x10x10");
  acs_ltensor_shape_text(&lg->t[lg->n[node_id(lg, "DW")].out[0]], shape, sizeof(shape));
  cr_assert_str_eq(shape, "1x7x5x5");
  cr_assert_eq(g_nnotes, 1);
  cr_assert_str_eq(g_note, "note: 9 SCALE-Sim rows linked as a layer graph: 4 chained, 2 after "
                           "an implicit pooling, 1 after an implicit resampling, 2 reading a new "
                           "input from DDR; 3 outputs no row reads (network outputs)");
  acs_workload_free(w);
}

/* ---- random networks and shipped ones: verified, never below the bound ---- */

/* A generic node reading `n` tensors into one new tensor. */
static int32_t lg_op(struct acs_lgraph *lg, const char *name, int op, const struct acs_lattrs *a,
                     int n, const int32_t *in)
{
  static const uint8_t data[] = { ACS_LR_DATA, ACS_LR_DATA, ACS_LR_DATA, ACS_LR_DATA };
  char on[64];
  snprintf(on, sizeof(on), "%s:0", name);
  int32_t out = lg_tensor(lg, on, ACS_LT_ACT, 0, NULL);
  cr_assert_geq(acs_lgraph_add_node(lg, name, op, a, n, in, data, 1, &out), 0);
  return out;
}

/*
 * A random chain of convolutions (kernels 1-5 with "same" padding, strides
 * 1-2, depthwise or not), pools, residual adds and channel concats over
 * shapes from a seed; every tensor's shape is tracked so joins meet equal
 * shapes.
 */
static struct acs_lgraph *random_net(uint64_t seed)
{
  struct acs_lgraph *lg = lg_new();
  struct acs_rng r;
  int64_t c, h, w;
  int32_t x, prev = -1, nlayers;
  int64_t pc = 0, ph = 0, pw = 0;

  acs_rng_seed(&r, seed);
  c = 1 + (int64_t)acs_rng_below(&r, 24);
  h = 3 + (int64_t)acs_rng_below(&r, 40);
  w = 3 + (int64_t)acs_rng_below(&r, 40);
  x = lg_input(lg, "x", c, h, w);
  nlayers = 2 + (int32_t)acs_rng_below(&r, 7);
  for (int32_t i = 0; i < nlayers; i++) {
    char name[32];
    struct acs_lattrs a;
    int kind = (int)acs_rng_below(&r, 6);
    snprintf(name, sizeof(name), "n%d", (int)i);
    memset(&a, 0, sizeof(a));
    if (kind == 4 && prev >= 0 && pc == c && ph == h && pw == w) {
      int32_t in[2] = { x, prev };
      x = lg_op(lg, name, ACS_LOP_ADD, &a, 2, in);
    } else if (kind == 5 && prev >= 0 && ph == h && pw == w) {
      int32_t in[2] = { x, prev };
      a.axis = 1;
      x = lg_op(lg, name, ACS_LOP_CONCAT, &a, 2, in);
      c += pc;
    } else if (kind == 3 && h >= 2 && w >= 2) {
      a.nkernel = a.nstrides = 2;
      a.kernel[0] = a.kernel[1] = a.strides[0] = a.strides[1] = 2;
      prev = x, pc = c, ph = h, pw = w;
      x = lg_op(lg, name, ACS_LOP_MAX_POOL, &a, 1, &x);
      h /= 2, w /= 2;
    } else {
      int64_t k = 1 + 2 * (int64_t)acs_rng_below(&r, 3), s = 1 + (int64_t)acs_rng_below(&r, 2);
      int dw = acs_rng_below(&r, 3) == 0;
      int64_t kout = dw ? c : 1 + (int64_t)acs_rng_below(&r, 48);
      prev = x, pc = c, ph = h, pw = w;
      x = lg_conv(lg, name, x, c, kout, k, k, s, k / 2, dw ? c : 1);
      c = kout;
      h = (h + 2 * (k / 2) - k) / s + 1;
      w = (w + 2 * (k / 2) - k) / s + 1;
    }
  }
  lg_done(lg, 1, &x);
  return lg;
}

/* Runs list, spill and sequential on g: each verifies (or is infeasible)
 * and none ends below the network bound. */
static void check_families(const struct acs_lgraph *lg, const char *const *sets, const char *what)
{
  static const char *const names[] = { "list", "spill", "sequential" };
  struct acs_platform p;
  struct acs_graph g;
  struct acs_netbound nb;

  build(lg, sets, &g, &p);
  cr_assert_eq(acs_netbound_compute(lg, &p, &nb), ACS_OK);
  for (int k = 0; k < 3; k++) {
    int64_t mk = schedule(&g, &p, names[k], NULL, 0);
    cr_assert(mk < 0 || mk >= nb.cycles, "%s, %s: makespan %lld below the network bound %lld",
              what, names[k], (long long)mk, (long long)nb.cycles);
  }
  acs_graph_destroy(&g);
}

Test(lower_property, random_networks_verify_above_the_bound)
{
  static const char *const plats[][4] = {
    { "cmx_kib=2048", "pe_count=4", NULL },
    { "cmx_kib=4", "pe_count=3", NULL },
    { "cmx_kib=1", "pe_count=16", "bytes_per_elem=2", NULL },
  };
  for (uint64_t seed = 1; seed <= 40; seed++) {
    struct acs_lgraph *lg = random_net(seed);
    for (size_t i = 0; i < sizeof(plats) / sizeof(plats[0]); i++) {
      char what[64];
      snprintf(what, sizeof(what), "seed %llu, platform %zu", (unsigned long long)seed, i);
      check_families(lg, plats[i], what);
    }
    lg_free(lg);
  }
}

/* Every shipped network, ONNX and SCALE-Sim, at a small and a large CMX
 * and at 4 and 16 PEs. */
Test(lower_property, shipped_networks_verify_above_the_bound, .timeout = 600)
{
  static const char *const nets[] = {
    "workloads/onnx/mobilenet_v1.onnx", "workloads/onnx/resnet18.onnx",
    "workloads/onnx/squeezenet1_1.onnx", "workloads/onnx/tiny_yolov2.onnx",
    "workloads/onnx/unet.onnx", "workloads/dnn/mobilenet_v1.csv", "workloads/dnn/resnet18.csv",
    "workloads/dnn/alexnet.csv",
  };
  static const char *const plats[][3] = {
    { "cmx_kib=256", "pe_count=4", NULL }, { "cmx_kib=2048", "pe_count=16", NULL },
  };
  for (size_t n = 0; n < sizeof(nets) / sizeof(nets[0]); n++) {
    struct acs_workload *w;
    struct acs_diag d;
    acs_diag_init(&d);
    cr_assert_eq(acs_workload_load(tu_path(nets[n]), &w, &d), ACS_OK, "%s", d.msg);
    for (size_t i = 0; i < sizeof(plats) / sizeof(plats[0]); i++) {
      char what[128];
      snprintf(what, sizeof(what), "%s, %s, %s", nets[n], plats[i][0], plats[i][1]);
      check_families(acs_workload_lgraph(w), plats[i], what);
    }
    acs_workload_free(w);
  }
}

/*
 * A reader of every channel group of a producer cut in many waits on one
 * sync per row tile of the producer (`<u>.r<i>`), not on each store: a 1x1
 * conv into 256 channels at 4 KiB of CMX is cut in channel groups, and each
 * input load of the 3x3 conv after it reads all 256 channels of a few rows.
 */
Test(lower_links, readers_of_every_channel_group_wait_on_row_bands)
{
  struct acs_lgraph *lg = lg_new();
  int32_t y = lg_conv(lg, "c1", lg_input(lg, "x", 16, 16, 16), 16, 256, 1, 1, 1, 0, 1);
  int32_t z = lg_conv(lg, "c2", y, 256, 8, 3, 3, 1, 1, 1);
  const char *sets[] = { "cmx_kib=4", NULL };
  struct acs_platform p;
  struct acs_graph g;
  int64_t bands = 0, stores = 0, loads = 0, from_stores = 0, from_bands = 0;

  lg_done(lg, 1, &z);
  build(lg, sets, &g, &p);
  for (int32_t i = 0; i < g.nops; i++) {
    const char *n = g.ops[i].name;
    bands += strncmp(n, "c1.r", 4) == 0 && n[4] != 'd';
    stores += strncmp(n, "c1.o", 4) == 0;
    loads += strncmp(n, "c2.i", 4) == 0;
  }
  for (int32_t e = 0; e < g.nedges; e++) {
    const char *s = g.ops[g.edges[e].src].name, *t = g.ops[g.edges[e].dst].name;
    if (strncmp(t, "c2.i", 4) != 0)
      continue;
    from_stores += strncmp(s, "c1.o", 4) == 0;
    from_bands += strncmp(s, "c1.r", 4) == 0;
  }
  cr_log_info("%lld stores, %lld row bands, %lld loads", (long long)stores, (long long)bands,
              (long long)loads);
  cr_assert_geq(stores, 8 * bands, "c1 is cut in at least 8 channel groups a row tile");
  cr_assert_gt(bands, 0);
  cr_assert_eq(from_stores, 0, "no load waits on a store directly");
  cr_assert_geq(from_bands, loads, "every load waits on the bands of its rows");
  cr_assert_leq(from_bands, loads * bands);
  acs_graph_destroy(&g);
  lg_free(lg);
}
