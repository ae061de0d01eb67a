/*
 * test-load.c - the readers: CSV layer, platform CSV, SCALE-Sim tables and
 * their op DAG (tiling, linking), the generic op-graph CSV, PSPLIB, STG,
 * suites and format dispatch.
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

#define LD(rel) "tests/data/load/" rel

/* ---- helpers ---- */

struct warns {
  int n;
  int line[64];
  char last[1024];
};

static void on_warn(void *ctx, const char *file, int line, int col, const char *msg)
{
  struct warns *w = ctx;
  (void)file;
  (void)col;
  if (w->n < 64)
    w->line[w->n] = line;
  w->n++;
  snprintf(w->last, sizeof(w->last), "%s", msg);
}

static void diag_with_warns(struct acs_diag *d, struct warns *w)
{
  acs_diag_init(d);
  memset(w, 0, sizeof(*w));
  d->warn = on_warn;
  d->warn_ctx = w;
}

static struct acs_workload *load_ok(const char *rel, struct warns *w)
{
  struct acs_diag d;
  struct acs_workload *wl = NULL;
  char buf[2048];

  diag_with_warns(&d, w);
  int rc = acs_workload_load(tu_path(rel), &wl, &d);
  acs_diag_format(&d, buf, sizeof(buf));
  cr_assert_eq(rc, ACS_OK, "loading %s: %s", rel, buf);
  return wl;
}

/* The default platform with overrides ("k=v", NULL-terminated). */
static void platform(struct acs_platform *p, const char *const *sets)
{
  struct acs_diag d;
  acs_platform_init(p);
  acs_diag_init(&d);
  for (size_t i = 0; sets && sets[i]; i++)
    cr_assert_eq(acs_platform_set_kv(p, sets[i], &d), ACS_OK, "%s", d.msg);
}

static void build_ok(const struct acs_workload *wl, const char *const *sets,
                     struct acs_graph *g)
{
  struct acs_platform p;
  struct acs_diag d;
  char buf[2048];

  platform(&p, sets);
  acs_diag_init(&d);
  int rc = acs_workload_build(wl, &p, g, &d);
  acs_diag_format(&d, buf, sizeof(buf));
  cr_assert_eq(rc, ACS_OK, "building %s: %s", wl->name, buf);
  cr_assert(g->finalized);
}

static int32_t op(const struct acs_graph *g, const char *name)
{
  int32_t id = acs_graph_find_op(g, name);
  cr_assert_geq(id, 0, "no op '%s'", name);
  return id;
}

static int has_edge(const struct acs_graph *g, const char *a, const char *b, int kind)
{
  int32_t s = op(g, a), t = op(g, b);
  for (int32_t e = 0; e < g->nedges; e++)
    if (g->edges[e].src == s && g->edges[e].dst == t && g->edges[e].kind == kind)
      return 1;
  return 0;
}

static int64_t demand(const struct acs_graph *g, const char *name, const char *res)
{
  int r = acs_graph_find_resource(g, res);
  cr_assert_geq(r, 0, "no resource '%s'", res);
  return acs_graph_demand(g, op(g, name), r);
}

static int count_kind(const struct acs_graph *g, int kind)
{
  int n = 0;
  for (int32_t i = 0; i < g->nops; i++)
    n += g->ops[i].kind == kind;
  return n;
}

/* Checks rc, the file (by suffix), line, column and the exact message. */
static void expect_diag(int rc, int want_rc, const struct acs_diag *d,
                        const char *rel, int line, int col, const char *msg)
{
  size_t fl = strlen(d->file), rl = strlen(rel);
  cr_assert_eq(rc, want_rc, "rc %d (%s), want %d", rc, d->msg, want_rc);
  cr_assert(fl >= rl && strcmp(d->file + fl - rl, rel) == 0,
            "file '%s' does not end in '%s'", d->file, rel);
  cr_assert_eq(d->line, line, "line %d, want %d (%s)", d->line, line, d->msg);
  cr_assert_eq(d->col, col, "column %d, want %d (%s)", d->col, col, d->msg);
  cr_assert_str_eq(d->msg, msg);
}

static void workload_fails(const char *rel, int want_rc, int line, int col,
                           const char *msg)
{
  struct acs_diag d;
  struct acs_workload *wl = (void *)1;
  acs_diag_init(&d);
  int rc = acs_workload_load(tu_path(rel), &wl, &d);
  cr_assert_null(wl);
  expect_diag(rc, want_rc, &d, rel, line, col, msg);
}

static void platform_fails(const char *rel, int want_rc, int line, int col,
                           const char *msg)
{
  struct acs_diag d;
  struct acs_platform *p = (void *)1;
  size_t n = 99;
  acs_diag_init(&d);
  int rc = acs_platform_load(tu_path(rel), &p, &n, &d);
  cr_assert_null(p);
  cr_assert_eq(n, 0);
  expect_diag(rc, want_rc, &d, rel, line, col, msg);
}

/* ---- csv layer ---- */

struct rec {
  int n;
  char text[16][64];
  int line[16], col[16];
};

static int collect(void *ctx, const struct acs_csv_field *f, size_t n, int line,
                   struct acs_diag *d)
{
  struct rec *r = ctx;
  (void)line;
  (void)d;
  for (size_t i = 0; i < n && r->n < 16; i++, r->n++) {
    snprintf(r->text[r->n], sizeof(r->text[0]), "%s", f[i].text);
    r->line[r->n] = f[i].line;
    r->col[r->n] = f[i].col;
  }
  return 0;
}

Test(csv, fields_carry_their_line_and_column)
{
  struct rec r;
  struct acs_diag d;
  memset(&r, 0, sizeof(r));
  acs_diag_init(&d);
  /* Line 1 has a BOM and a comment, 2 and 4 are blank, 5 is ",,,". Line 3 is
   * ` name , "a, b" ,plain`; line 6 `  x  ,"say ""hi""",`; lines 7-8 hold a
   * quoted field with a newline. Columns count bytes after the BOM; a quoted
   * field's column is that of its first character inside the quotes. */
  cr_assert_eq(acs_csv_read(tu_path(LD("csv_quirks.csv")), collect, &r, &d), ACS_OK);
  cr_assert_eq(r.n, 9);
  const char *text[9] = { "name", "a, b", "plain", "x", "say \"hi\"", "",
                          "multi\nline", "2", "3" };
  const int line[9] = { 3, 3, 3, 6, 6, 6, 7, 8, 8 };
  const int col[9] = { 2, 10, 17, 3, 8, 20, 2, 7, 9 }; /* quoted: after the quote */
  for (int i = 0; i < 9; i++) {
    cr_assert_str_eq(r.text[i], text[i], "field %d", i);
    cr_assert_eq(r.line[i], line[i], "field %d line", i);
    cr_assert_eq(r.col[i], col[i], "field %d col", i);
  }
}

Test(csv, unterminated_quote_is_located_at_the_quote)
{
  /* `ok,"4` on line 2: the quote is column 4. */
  platform_fails(LD("csv_unterminated.csv"), ACS_EPARSE, 2, 4,
                 "unterminated quoted field");
}

Test(csv, numbers_parse_strictly)
{
  int64_t i;
  double x;
  cr_assert_eq(acs_parse_i64("12", &i), 0);
  cr_assert_eq(i, 12);
  cr_assert_eq(acs_parse_i64("-7", &i), 0);
  cr_assert_eq(i, -7);
  const char *bad_int[] = { "", "12x", " 1", "1e3", "1.0", "+", "-", "0x10", "1 " };
  for (size_t k = 0; k < sizeof(bad_int) / sizeof(*bad_int); k++)
    cr_assert_eq(acs_parse_i64(bad_int[k], &i), ACS_EPARSE, "'%s'", bad_int[k]);
  cr_assert_eq(acs_parse_double("1.5e3", &x), 0);
  double want = 1500.0;
  cr_assert_float_eq(x, want, 1e-9);
  const char *bad_dbl[] = { "", "nan", "1.5x", " 2", "." };
  for (size_t k = 0; k < sizeof(bad_dbl) / sizeof(*bad_dbl); k++)
    cr_assert_eq(acs_parse_double(bad_dbl[k], &x), ACS_EPARSE, "'%s'", bad_dbl[k]);
}

/* Integers are read as integers: every int64_t exactly, one past either end
 * out of range (not a parse error, and never rounded through a double). */
Test(csv, integers_are_exact_to_the_int64_limits)
{
  int64_t i;
  double x;

  cr_assert_eq(acs_parse_i64("9223372036854775807", &i), ACS_OK);
  cr_assert_eq(i, INT64_MAX);
  cr_assert_eq(acs_parse_i64("-9223372036854775808", &i), ACS_OK);
  cr_assert_eq(i, INT64_MIN);
  /* 2^53 + 1: a double would make it 2^53. */
  cr_assert_eq(acs_parse_i64("9007199254740993", &i), ACS_OK);
  cr_assert_eq(i, (int64_t)9007199254740993LL);
  cr_assert_eq(acs_parse_i64("9223372036854775808", &i), ACS_ERANGE);
  cr_assert_eq(acs_parse_i64("-9223372036854775809", &i), ACS_ERANGE);
  cr_assert_eq(acs_parse_i64("99999999999999999999", &i), ACS_ERANGE);
  cr_assert_eq(acs_parse_i64("-0", &i), ACS_OK);
  cr_assert_eq(i, 0);
  const char *big[] = { "inf", "-inf", "1e999", "-1e309" };
  for (size_t k = 0; k < sizeof(big) / sizeof(*big); k++)
    cr_assert_eq(acs_parse_double(big[k], &x), ACS_ERANGE, "'%s'", big[k]);
  /* An underflow is a tiny number, not an error. */
  cr_assert_eq(acs_parse_double("1e-400", &x), ACS_OK);
  cr_assert(x >= 0 && x < 1e-300);
}

/* ---- platform CSV ---- */

Test(platform_csv, rows_fill_given_columns_and_defaults)
{
  struct acs_diag d;
  struct acs_platform *p;
  size_t n;
  acs_diag_init(&d);
  cr_assert_eq(acs_platform_load(tu_path(LD("plat_good.csv")), &p, &n, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(n, 2);
  cr_assert_str_eq(p[0].name, "small");
  cr_assert_str_eq(p[1].name, "big");
  double v[][2] = {
    { p[0].v[ACS_P_PE_COUNT], 2 }, { p[0].v[ACS_P_CMX_KIB], 512 },
    { p[0].v[ACS_P_DMA_GBPS], 16 }, { p[0].v[ACS_P_DDR_RATIO], 8 },
    { p[0].v[ACS_P_FREQ_MHZ], 700 },     /* column absent: default */
    { p[1].v[ACS_P_PE_COUNT], 4 },       /* empty field: default */
    { p[1].v[ACS_P_CMX_KIB], 4096 }, { p[1].v[ACS_P_DMA_GBPS], 64.5 },
    { p[1].v[ACS_P_DDR_RATIO], 2 },
  };
  for (size_t k = 0; k < sizeof(v) / sizeof(*v); k++) {
    double got = v[k][0];
    cr_assert_float_eq(got, v[k][1], 1e-12, "value %zu", k);
  }
  free(p);
}

Test(platform_csv, rows_without_a_name_column_are_numbered)
{
  struct acs_diag d;
  struct acs_platform *p;
  size_t n;
  acs_diag_init(&d);
  cr_assert_eq(acs_platform_load(tu_path(LD("plat_noname.csv")), &p, &n, &d), ACS_OK);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(p[0].name, "row1");
  double pe = p[0].v[ACS_P_PE_COUNT];
  cr_assert_float_eq(pe, 8.0, 1e-12);
  free(p);
}

Test(platform_csv, shipped_presets_load_with_their_documented_values)
{
  struct acs_diag d;
  struct acs_platform *p, def;
  size_t n;

  acs_diag_init(&d);
  acs_platform_init(&def);
  cr_assert_eq(acs_platform_load(tu_path("platforms/default.csv"), &p, &n, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(n, 1);
  cr_assert_str_eq(p[0].name, "default");
  for (int k = 0; k < ACS_PARAM_COUNT; k++) /* the file spells out the defaults */
    cr_assert_eq(p[0].v[k], def.v[k], "%s", acs_param_table[k].name);
  free(p);

  cr_assert_eq(acs_platform_load(tu_path("platforms/vpu.csv"), &p, &n, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(n, 2);
  cr_assert_eq(p[0].v[ACS_P_BARRIERS], 8.0);        /* seed 000: b <= 8 */
  cr_assert_eq(p[0].v[ACS_P_BARRIER_SLOTS], 256.0); /* seed 000: p <= 256 */
  cr_assert_eq(p[0].v[ACS_P_CMX_KIB], 2560.0);
  free(p);

  cr_assert_eq(acs_platform_load(tu_path("platforms/isp4.csv"), &p, &n, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(n, 1);
  cr_assert_eq(p[0].v[ACS_P_PE_COUNT], 4.0);     /* seed 004 */
  cr_assert_eq(p[0].v[ACS_P_DDR_RATIO], 40.0);   /* seed 004: DDR 40x slower */
  cr_assert_eq(p[0].v[ACS_P_DMA_CHANNELS], 1.0); /* one shared DMA */
  double ddr = acs_platform_ddr_gbps(&p[0]);
  cr_assert_float_eq(ddr, 8.0 / 40.0, 1e-12);
  free(p);
}

Test(platform_csv, unknown_column_is_an_error_at_the_header)
{
  struct acs_diag d;
  struct acs_platform *p;
  size_t n;
  acs_diag_init(&d);
  /* `name,pe_count,cmx_size`: cmx_size starts at column 15. */
  int rc = acs_platform_load(tu_path(LD("plat_unknown_col.csv")), &p, &n, &d);
  cr_assert_eq(rc, ACS_EPARSE);
  cr_assert_eq(d.line, 1);
  cr_assert_eq(d.col, 15);
  const char *want = "unknown column 'cmx_size' (known: name, freq_mhz, pe_count,";
  cr_assert_eq(strncmp(d.msg, want, strlen(want)), 0, "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "pe_pmem_kib, loop_iterations, units, units.CLASS)"), "%s",
                     d.msg);
}

Test(platform_csv, bad_number_is_located_at_its_field)
{
  /* line 2 is a comment; `x,four` is line 3, "four" at column 3 */
  platform_fails(LD("plat_bad_number.csv"), ACS_EPARSE, 3, 3,
                 "pe_count: 'four' is not a number");
}

Test(platform_csv, negative_capacity_is_an_error)
{
  platform_fails(LD("plat_negative.csv"), ACS_ERANGE, 2, 5,
                 "cmx_kib: -512 is below the minimum 1 (on-chip scratchpad (CMX) "
                 "size in KiB)");
}

Test(platform_csv, zero_capacity_is_an_error)
{
  platform_fails(LD("plat_zero.csv"), ACS_ERANGE, 2, 3,
                 "pe_count: 0 is below the minimum 1 (processing elements (DPU "
                 "tiles or cores))");
}

Test(platform_csv, duplicate_name_is_an_error)
{
  platform_fails(LD("plat_dup_name.csv"), ACS_EPARSE, 4, 1,
                 "duplicate platform name 'x' (first at line 2)");
}

Test(platform_csv, duplicate_column_is_an_error)
{
  platform_fails(LD("plat_dup_col.csv"), ACS_EPARSE, 1, 15,
                 "duplicate column 'pe_count' (also at column 6)");
}

Test(platform_csv, header_without_rows_is_an_error)
{
  platform_fails(LD("plat_header_only.csv"), ACS_EPARSE, 2, 1,
                 "no platform rows after the header");
}

Test(platform_csv, empty_file_is_an_error)
{
  platform_fails(LD("empty.csv"), ACS_EPARSE, 1, 1, "empty file: no header row");
  platform_fails(LD("comments_only.csv"), ACS_EPARSE, 1, 1,
                 "empty file: no header row");
}

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
   * made, naming the limit. */
  wl = load_ok(LD("dnn_taller.csv"), &w);
  platform(&p, sets);
  acs_diag_init(&d);
  int rc = acs_workload_build(wl, &p, &g, &d);
  cr_assert_eq(rc, ACS_ERANGE);
  cr_assert(strstr(d.msg, "node 'Tall'") && strstr(d.msg, "at most 1048576") , "%s", d.msg);
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

/* ---- suites and dispatch ---- */

Test(suite, entries_resolve_against_the_suite_directory)
{
  struct acs_diag d;
  char **paths;
  size_t n;
  char want[4096];

  acs_diag_init(&d);
  cr_assert_eq(acs_suite_load(tu_path(LD("suite_good.txt")), &paths, &n, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(n, 2);
  snprintf(want, sizeof(want), "%s", tu_path(LD("dnn_two_layers.csv")));
  cr_assert_str_eq(paths[0], want);
  snprintf(want, sizeof(want), "%s", tu_path(LD("graph_good.csv")));
  cr_assert_str_eq(paths[1], want);
  acs_suite_free(paths, n);
}

Test(suite, missing_entry_is_located_at_its_line)
{
  struct acs_diag d;
  char **paths;
  size_t n;
  acs_diag_init(&d);
  int rc = acs_suite_load(tu_path(LD("suite_missing.txt")), &paths, &n, &d);
  cr_assert_eq(rc, ACS_ENOTFOUND);
  cr_assert_null(paths);
  /* `  no_such.csv` on line 3: the entry starts at column 3 */
  cr_assert_eq(d.line, 3);
  cr_assert_eq(d.col, 3);
  char want[4096];
  snprintf(want, sizeof(want), "no such workload 'no_such.csv' (looked for "
           "'%s': No such file or directory)", tu_path(LD("no_such.csv")));
  cr_assert_str_eq(d.msg, want);
}

Test(suite, parent_steps_stop_at_relative_roots)
{
  /* A suite given as a bare relative path keeps its "../" (nothing to
   * cancel), and "./" or ".." directory parts are never cancelled. */
  const char *dir = tu_tmpdir();
  char sub[512], suite[600], wl[600], want[700];
  struct acs_diag d;
  char **paths;
  size_t n;
  FILE *f;
  snprintf(sub, sizeof(sub), "%s/a", dir);
  cr_assert_eq(mkdir(sub, 0700), 0);
  snprintf(wl, sizeof(wl), "%s/x.stg", dir);
  f = fopen(wl, "w");
  cr_assert_not_null(f);
  fputs("1\n0 0 0\n1 5 1 0\n2 0 1 1\n", f);
  fclose(f);
  snprintf(suite, sizeof(suite), "%s/a/../a/s.txt", dir);
  f = fopen(suite, "w");
  cr_assert_not_null(f);
  fputs("../x.stg\n", f);
  fclose(f);
  acs_diag_init(&d);
  cr_assert_eq(acs_suite_load(suite, &paths, &n, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 1);
  snprintf(want, sizeof(want), "%s/a/../x.stg", dir);
  cr_assert_str_eq(paths[0], want);
  acs_suite_free(paths, n);
}

Test(suite, suite_without_entries_is_an_error)
{
  struct acs_diag d;
  char **paths;
  size_t n;
  acs_diag_init(&d);
  int rc = acs_suite_load(tu_path(LD("suite_empty.txt")), &paths, &n, &d);
  expect_diag(rc, ACS_EPARSE, &d, LD("suite_empty.txt"), 1, 1,
              "suite lists no workloads");
}

Test(suite, default_suite_loads_and_builds)
{
  struct acs_diag d;
  char **paths;
  size_t n;
  acs_diag_init(&d);
  cr_assert_eq(acs_suite_load(tu_path("workloads/suites/default.txt"), &paths, &n, &d),
               ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 4);
  /* "../onnx/alexnet.onnx" in workloads/suites/ collapses to workloads/onnx/. */
  cr_assert_str_eq(paths[0], tu_path("workloads/onnx/alexnet.onnx"));
  cr_assert_str_eq(paths[3], tu_path("workloads/graphs/resnet_block_chain.csv"));
  for (size_t i = 0; i < n; i++) {
    struct acs_workload *wl;
    struct acs_graph g;
    struct acs_platform p;
    acs_diag_init(&d);
    cr_assert_eq(acs_workload_load(paths[i], &wl, &d), ACS_OK, "%s: %s", paths[i], d.msg);
    cr_assert_eq(d.nwarn, 0, "%s warns (the default suite must not)", paths[i]);
    platform(&p, NULL);
    cr_assert_eq(acs_workload_build(wl, &p, &g, &d), ACS_OK, "%s: %s", paths[i], d.msg);
    acs_graph_destroy(&g);
    acs_workload_free(wl);
  }
  acs_suite_free(paths, n);
}

Test(workload, format_follows_extension_and_header)
{
  static const struct { const char *rel; int kind; const char *name; } cases[] = {
    { LD("dnn_two_layers.csv"), ACS_WL_DNN, "dnn_two_layers" },
    { LD("dnn_quirks.csv"), ACS_WL_DNN, "dnn_quirks" },     /* BOM before header */
    { LD("graph_good.csv"), ACS_WL_GRAPH, "graph_good" },
    { LD("j301_1.sm"), ACS_WL_PSPLIB, "j301_1" },
    { LD("stg_small.stg"), ACS_WL_STG, "stg_small" },
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
    struct warns w;
    struct acs_workload *wl = load_ok(cases[k].rel, &w);
    cr_assert_eq(wl->kind, cases[k].kind, "%s", cases[k].rel);
    cr_assert_str_eq(wl->name, cases[k].name);
    acs_workload_free(wl);
  }
  cr_assert_str_eq(acs_wl_kind_name(ACS_WL_DNN), "dnn");
  cr_assert_str_eq(acs_wl_kind_name(ACS_WL_GRAPH), "graph");
  cr_assert_str_eq(acs_wl_kind_name(ACS_WL_PSPLIB), "psplib");
  cr_assert_str_eq(acs_wl_kind_name(ACS_WL_STG), "stg");
}

Test(workload, unknown_extension_is_an_error)
{
  workload_fails(LD("graph_bad_ext.txt"), ACS_EFORMAT, 0, 0,
                 "unknown workload format '.txt' (expected .csv, .sm, .stg, .onnx, "
                 ".graphml, .xml or .sare)");
}

Test(workload, a_directory_says_what_to_give_instead)
{
  /* tests/data/onnx is a folder whose name alone says nothing wrong; with
   * an extension the message would otherwise blame the format. */
  workload_fails("tests/data/onnx", ACS_EINVAL, 0, 0,
                 "is a directory; give a workload file (.onnx, .csv, .sm, .stg, .graphml, "
                 ".xml or .sare) or a suite (.txt) listing several");
}

Test(workload, missing_file_is_an_io_error)
{
  struct acs_diag d;
  struct acs_workload *wl;
  acs_diag_init(&d);
  int rc = acs_workload_load(tu_path(LD("no_such.sm")), &wl, &d);
  cr_assert_eq(rc, ACS_EIO);
  cr_assert_str_eq(d.msg, "cannot open: No such file or directory");
}

Test(workload, built_graphs_are_independent_copies)
{
  struct warns w;
  struct acs_graph a, b;
  struct acs_workload *wl = load_ok(LD("stg_small.stg"), &w);

  build_ok(wl, NULL, &a);
  build_ok(wl, NULL, &b);
  acs_graph_destroy(&a);
  cr_assert_eq(b.nops, 5);
  cr_assert_str_eq(b.ops[op(&b, "t3")].name, "t3");
  acs_graph_destroy(&b);
  acs_workload_free(wl);
}

/* ---- numbers at the boundaries (issue 10) ---- */

/*
 * SQLite-style boundary hunting: every reader gets the largest value it
 * accepts (which must still load) and the smallest it refuses (which must
 * be one located message, never an overflow later). Workload quantities
 * stop at 2^53 = 9007199254740992 (ACS_QTY_MAX); platform parameters at
 * their documented maxima.
 */

/* Writes `text` to a file `name` in a fresh directory; returns its path. */
static const char *scratch(const char *name, const char *text)
{
  static char path[1024];
  FILE *f;

  snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
  f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
  return path;
}

static void scratch_fails(const char *name, const char *text, int want_rc, int line, int col,
                          const char *msg)
{
  const char *path = scratch(name, text);
  struct acs_workload *wl = (void *)1;
  struct acs_diag d;
  int rc;

  acs_diag_init(&d);
  rc = acs_workload_load(path, &wl, &d);
  cr_assert_null(wl);
  expect_diag(rc, want_rc, &d, name, line, col, msg);
}

static struct acs_workload *scratch_ok(const char *name, const char *text)
{
  struct acs_workload *wl = NULL;
  struct acs_diag d;
  int rc;

  acs_diag_init(&d);
  rc = acs_workload_load(scratch(name, text), &wl, &d);
  cr_assert_eq(rc, ACS_OK, "%s: %s", name, d.msg);
  return wl;
}

Test(platform_csv, values_beyond_the_maxima_are_located)
{
  const char *path;
  struct acs_platform *p = NULL;
  struct acs_diag d;
  size_t n = 0;

  /* Every maximum at once loads (alignment 1 MiB needs a CMX of 1 MiB+). */
  path = scratch("max.csv",
                 "name,freq_mhz,pe_count,pe_macs_per_cycle,cmx_kib,cmx_align_bytes,barriers,"
                 "barrier_slots,dma_channels,dma_gbps,ddr_ratio,ddr_latency_cycles,local_gbps,"
                 "bytes_per_elem,pe_vmem_kib,pe_pmem_kib\n"
                 "big,10000,1048576,1048576,67108864,1048576,65536,65536,1048576,1e8,1e6,"
                 "1000000,1e8,16,67108864,67108864\n");
  acs_diag_init(&d);
  cr_assert_eq(acs_platform_load(path, &p, &n, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 1);
  cr_assert_eq(acs_platform_cmx_bytes(&p[0]), (int64_t)1 << 36);
  free(p);
  {
    static const struct { const char *row, *msg; int rc; } rows[] = {
      { "x,1048577\n", "pe_count: '1048577' is out of range (max 1048576)", ACS_ERANGE },
      { "x,2147483648\n", "pe_count: '2147483648' is out of range (max 1048576)", ACS_ERANGE },
      { "x,99999999999999999999\n",
        "pe_count: '99999999999999999999' is out of range (max 1048576)", ACS_ERANGE },
      { "x,1e3\n", "pe_count: '1e3' is not an integer", ACS_EPARSE },
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
      char text[256];
      snprintf(text, sizeof(text), "name,pe_count\n%s", rows[i].row);
      path = scratch("pe.csv", text);
      acs_diag_init(&d);
      p = (void *)1;
      expect_diag(acs_platform_load(path, &p, &n, &d), rows[i].rc, &d, "pe.csv", 2, 3,
                  rows[i].msg);
      cr_assert_null(p);
    }
  }
  path = scratch("cmx.csv", "name,freq_mhz,cmx_kib\nx,700,9007199254740993\n");
  acs_diag_init(&d);
  expect_diag(acs_platform_load(path, &p, &n, &d), ACS_ERANGE, &d, "cmx.csv", 2, 7,
              "cmx_kib: '9007199254740993' is out of range (max 67108864)");
  path = scratch("freq.csv", "name,freq_mhz\nx,1e308\n");
  acs_diag_init(&d);
  expect_diag(acs_platform_load(path, &p, &n, &d), ACS_ERANGE, &d, "freq.csv", 2, 3,
              "freq_mhz: '1e308' is out of range (max 10000)");
}

Test(graphcsv, quantities_stop_at_two_to_the_53)
{
  struct acs_workload *wl;
  struct acs_graph g;

  wl = scratch_ok("top.csv", "name,kind,cycles,macs,bytes,out_bytes,res:x=9007199254740992\n"
                             "a,dpu,9007199254740992,,,9007199254740992,9007199254740992\n"
                             "b,shave,,9007199254740992\n"
                             "c,dma,,,9007199254740992\n");
  build_ok(wl, NULL, &g);
  cr_assert_eq(g.ops[0].cycles, (int64_t)1 << 53);
  cr_assert_eq(g.ops[1].macs, (int64_t)1 << 53);
  cr_assert_eq(g.ops[2].bytes, (int64_t)1 << 53);
  cr_assert_eq(g.res[acs_graph_find_resource(&g, "x")].capacity, (int64_t)1 << 53);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
  scratch_fails("c.csv", "name,kind,cycles\na,dpu,9007199254740993\n", ACS_ERANGE, 2, 7,
                "'9007199254740993' is out of range for column 'cycles' (max 9007199254740992)");
  scratch_fails("b.csv", "name,kind,bytes\na,dma,9223372036854775807\n", ACS_ERANGE, 2, 7,
                "'9223372036854775807' is out of range for column 'bytes' (max 9007199254740992)");
  scratch_fails("m.csv", "name,kind,macs\na,dpu,9223372036854775808\n", ACS_ERANGE, 2, 7,
                "'9223372036854775808' is out of range for column 'macs' (max 9007199254740992)");
  scratch_fails("s.csv", "name,kind,cycles,slots\na,dpu,1,2147483648\n", ACS_ERANGE, 2, 9,
                "'2147483648' is out of range for column 'slots' (max 2147483647)");
  scratch_fails("r.csv", "name,cycles,res:x=9007199254740993\na,1,1\n", ACS_ERANGE, 1, 13,
                "resource 'x': capacity '9007199254740993' is out of range (max 9007199254740992)");
  scratch_fails("d.csv", "name,cycles,res:x=5\na,1,9007199254740993\n", ACS_ERANGE, 2, 5,
                "'9007199254740993' is out of range for column 'x' (max 9007199254740992)");
  scratch_fails("n.csv", "name,kind,cycles\na,dpu,-1\n", ACS_EPARSE, 2, 7,
                "column 'cycles' must be at least 0, got -1");
  /* Two inputs of 2^52 + 1 bytes each: their sum, the default cmx demand
   * of their consumer, is one past 2^53 + 1. */
  scratch_fails("sum.csv", "name,kind,cycles,out_bytes,inputs\n"
                           "a,dpu,1,4503599627370497\nb,dpu,1,4503599627370497\nc,dpu,1,1,a;b\n",
                ACS_ERANGE, 4, 13,
                "the inputs of op 'c' add up to more than 9007199254740992 bytes");
}

Test(psplib, numbers_beyond_two_to_the_53_are_located)
{
  /* j3013_1.sm, job 2 (line 56): "  2      1     3      10 ..."; the
   * duration is at column 16, the first request at column 23. */
  char *text = NULL, *at;
  size_t len = 0;
  FILE *f = fopen(tu_path("tests/data/psplib/j3013_1.sm"), "r");
  char big[2][4096];

  cr_assert_not_null(f);
  cr_assert_gt(getdelim(&text, &len, '\0', f), 0);
  fclose(f);
  at = strstr(text, "\n  2      1     3      10");
  cr_assert_not_null(at);
  at[1] = '\0';
  snprintf(big[0], sizeof(big[0]), "%s  2      1     9223372036854775808      10%s", text,
           at + 25);
  at[1] = ' ';
  scratch_fails("dur.sm", big[0], ACS_ERANGE, 56, 16,
                "'9223372036854775808' is out of range for the duration (max 9007199254740992)");
  at[1] = '\0';
  snprintf(big[1], sizeof(big[1]), "%s  2      1     3      9007199254740993%s", text, at + 25);
  at[1] = ' ';
  scratch_fails("req.sm", big[1], ACS_ERANGE, 56, 23,
                "'9007199254740993' is out of range for a resource request (max 9007199254740992)");
  free(text);
}

Test(stg, numbers_beyond_two_to_the_53_are_located)
{
  scratch_fails("t.stg", "1\n0 0 0\n1 9007199254740993 1 0\n2 0 1 1\n", ACS_ERANGE, 3, 3,
                "'9007199254740993' is out of range for the processing time (max 9007199254740992)");
  scratch_fails("n.stg", "99999999999999999999\n", ACS_ERANGE, 1, 1,
                "'99999999999999999999' is out of range for the number of tasks (max 9007199254740992)");
  struct acs_workload *wl = scratch_ok("ok.stg", "1\n0 0 0\n1 9007199254740992 1 0\n2 0 1 1\n");
  acs_workload_free(wl);
}

Test(dnn, numbers_beyond_two_to_the_53_are_located)
{
  static const char head[] = "Layer name, IFMAP Height, IFMAP Width, Filter Height, "
                             "Filter Width, Channels, Num Filter, Strides,\n";
  char text[512];
  struct acs_workload *wl;
  struct acs_platform p;
  struct acs_graph g;
  struct acs_diag d;

  snprintf(text, sizeof(text), "%sL,9007199254740993,1,1,1,1,1,1,\n", head);
  scratch_fails("h.csv", text, ACS_ERANGE, 2, 3,
                "'9007199254740993' is out of range for IFMAP Height (max 9007199254740992)");
  snprintf(text, sizeof(text), "%sL,2,2,1,1,-9223372036854775809,1,1,\n", head);
  scratch_fails("c.csv", text, ACS_EPARSE, 2, 11,
                "Channels must be positive, got -9223372036854775809");
  /* 2^26 x 2^26 x 1 input at 1 byte: 2^52 bytes, within the numbers; on
   * 2 MiB it would take far more ops than a network may have: refused. */
  snprintf(text, sizeof(text), "%sL,67108864,67108864,1,1,1,1,1,\n", head);
  wl = scratch_ok("ws.csv", text);
  platform(&p, NULL);
  acs_diag_init(&d);
  cr_assert_eq(acs_workload_build(wl, &p, &g, &d), ACS_ERANGE);
  cr_assert(strstr(d.msg, "node 'L'") && strstr(d.file, "ws.csv"), "%s: %s", d.file, d.msg);
  acs_workload_free(wl);
}

/* --vary reads integers as integers and checks each end of a range like a
 * field: out of range says so, at the column of the offending number. */
Test(vary, integers_beyond_the_maxima_are_out_of_range)
{
  static const char *const bad[][2] = {
    { "pe_count=99999999999999999999",
      "--vary:1:10: pe_count: '99999999999999999999' is out of range (max 1048576)" },
    { "pe_count=4,1048577", "--vary:1:12: pe_count: '1048577' is out of range (max 1048576)" },
    { "pe_count=1..2097152*2", "--vary:1:13: pe_count: '2097152' is out of range (max 1048576)" },
    { "cmx_kib=1..9007199254740993", "--vary:1:12: cmx_kib: '9007199254740993' is out of range (max 67108864)" },
    { "freq_mhz=1e308", "--vary:1:10: freq_mhz: '1e308' is out of range (max 10000)" },
    { "pe_count=1e3", "--vary:1:10: pe_count: '1e3' is not an integer" },
    { "pe_count=1..8+1.5", "--vary:1:15: pe_count: step 1.5 is not an integer" },
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    struct acs_vary v;
    struct acs_diag d;
    char msg[2048];
    acs_diag_init(&d);
    cr_assert_lt(acs_vary_parse(bad[i][0], 1, &v, &d), 0, "%s", bad[i][0]);
    acs_diag_format(&d, msg, sizeof(msg));
    cr_assert_str_eq(msg, bad[i][1]);
    cr_assert_null(v.values);
  }
}

Test(vary, ranges_reach_the_maxima_exactly)
{
  struct acs_vary v;
  struct acs_diag d;

  acs_diag_init(&d);
  /* 2^0 .. 2^26: 27 values, the last the maximum. */
  cr_assert_eq(acs_vary_parse("cmx_kib=1..67108864*2", 1, &v, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(v.n, 27);
  cr_assert_eq(v.values[26], 67108864.0);
  acs_vary_free(&v);
  /* A step past the end gives the start alone; a huge step never wraps. */
  cr_assert_eq(acs_vary_parse("pe_count=1..1048576+9223372036854775807", 1, &v, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(v.n, 1);
  cr_assert_eq(v.values[0], 1.0);
  acs_vary_free(&v);
  cr_assert_eq(acs_vary_parse("pe_count=1..1048576+1048575", 1, &v, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(v.n, 2);
  cr_assert_eq(v.values[1], 1048576.0);
  acs_vary_free(&v);
  cr_assert_eq(acs_vary_parse("dma_gbps=1e6..1e8*10", 1, &v, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(v.n, 3);
  cr_assert_eq(v.values[2], 1e8);
  acs_vary_free(&v);
}

