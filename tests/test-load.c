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
 * dnn_two_layers.csv, on the default platform (bytes_per_elem 1, CMX 2 MiB):
 *  L1: 8x8x2 input, 3x3 filters, 4 of them, stride 1.
 *      OH = OW = (8 - 3) / 1 + 1 = 6
 *      in = 8*8*2 = 128, w = 3*3*2*4 = 72, out = 6*6*4 = 144
 *      macs = 6*6 * 3*3*2 * 4 = 2592, working set 128 + 72 + 144 = 344
 *  L2: 6x6x4 input (= L1's output), 3x3, 8 filters, stride 2.
 *      OH = OW = (6 - 3) / 2 + 1 = 2
 *      in = 6*6*4 = 144, w = 3*3*4*8 = 288, out = 2*2*8 = 32
 *      macs = 2*2 * 3*3*4 * 8 = 1152, working set 464
 * Nothing is tiled: input -> L1 -> L2 -> output, plus L1.w, L2.w: 6 ops,
 * 5 edges.
 */
Test(dnn, two_layer_table_becomes_hand_computed_ops)
{
  struct warns w;
  struct acs_graph g;
  struct acs_workload *wl = load_ok(LD("dnn_two_layers.csv"), &w);

  cr_assert_eq(wl->kind, ACS_WL_DNN);
  cr_assert_eq(wl->nlayers, 2);
  cr_assert_eq(w.n, 0);
  cr_assert_eq(wl->layers[1].line, 3);
  build_ok(wl, NULL, &g);
  cr_assert_eq(g.nops, 6);
  cr_assert_eq(g.nedges, 5);
  cr_assert_str_eq(g.res[0].name, "pe");
  cr_assert_str_eq(g.res[1].name, "dma");
  cr_assert_str_eq(g.res[2].name, "cmx");
  cr_assert_eq(g.res[0].kind, ACS_RES_PE);
  cr_assert_eq(g.res[1].kind, ACS_RES_DMA);
  cr_assert_eq(g.res[2].kind, ACS_RES_CMX);

  const struct acs_op *in = &g.ops[op(&g, "input")];
  cr_assert_eq(in->kind, ACS_OP_DMA);
  cr_assert_eq(in->src, ACS_MEM_DDR);
  cr_assert_eq(in->dst, ACS_MEM_CMX);
  cr_assert_eq(in->bytes, 128);
  const struct acs_op *l1 = &g.ops[op(&g, "L1")];
  cr_assert_eq(l1->kind, ACS_OP_DPU);
  cr_assert_eq(l1->cycles, -1);
  cr_assert_eq(l1->macs, 2592);
  cr_assert_eq(l1->out_bytes, 144);
  cr_assert_eq(demand(&g, "L1", "pe"), 1);
  cr_assert_eq(demand(&g, "L1", "cmx"), 344);
  cr_assert_eq(g.ops[op(&g, "L1.w")].bytes, 72);
  cr_assert_eq(demand(&g, "L1.w", "cmx"), 72);
  cr_assert_eq(demand(&g, "L1.w", "dma"), 1);
  const struct acs_op *l2 = &g.ops[op(&g, "L2")];
  cr_assert_eq(l2->macs, 1152);
  cr_assert_eq(l2->out_bytes, 32);
  cr_assert_eq(demand(&g, "L2", "cmx"), 464);
  cr_assert_eq(g.ops[op(&g, "L2.w")].bytes, 288);
  const struct acs_op *out = &g.ops[op(&g, "output")];
  cr_assert_eq(out->src, ACS_MEM_CMX);
  cr_assert_eq(out->dst, ACS_MEM_DDR);
  cr_assert_eq(out->bytes, 32);

  cr_assert(has_edge(&g, "input", "L1", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "L1.w", "L1", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "L1", "L2", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "L2.w", "L2", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "L2", "output", ACS_EDGE_DATA));
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(dnn, bytes_scale_with_bytes_per_elem_and_macs_do_not)
{
  struct warns w;
  struct acs_graph g;
  struct acs_workload *wl = load_ok(LD("dnn_two_layers.csv"), &w);
  const char *const sets[] = { "bytes_per_elem=2", NULL };

  build_ok(wl, sets, &g);
  cr_assert_eq(g.ops[op(&g, "input")].bytes, 256);
  cr_assert_eq(g.ops[op(&g, "L1.w")].bytes, 144);
  cr_assert_eq(g.ops[op(&g, "L1")].macs, 2592);
  cr_assert_eq(g.ops[op(&g, "L1")].out_bytes, 288);
  cr_assert_eq(demand(&g, "L1", "cmx"), 688);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(dnn, bom_blank_rows_spaces_and_extra_columns_are_tolerated)
{
  struct warns w;
  struct acs_workload *wl = load_ok(LD("dnn_quirks.csv"), &w);
  /* Same layers as dnn_two_layers.csv, written the messy way. */
  cr_assert_eq(wl->nlayers, 2);
  cr_assert_eq(w.n, 0);
  cr_assert_str_eq(wl->layers[0].name, "L1");
  cr_assert_eq(wl->layers[0].line, 4);
  cr_assert_eq(wl->layers[0].ifmap_h, 8);
  cr_assert_eq(wl->layers[0].num_filt, 4);
  cr_assert_eq(wl->layers[0].stride, 1);
  cr_assert_str_eq(wl->layers[1].name, "L2");
  cr_assert_eq(wl->layers[1].stride, 2); /* last line, no newline */
  acs_workload_free(wl);
}

Test(dnn, inconsistent_rows_warn_and_keep_their_own_shape)
{
  struct warns w;
  struct acs_graph g;
  /* A: 10x10x3 -> 8x8x16. B reads 4x4x16: a mismatch (warning 1). B -> 2x2x32,
   * C reads 2x2x32: consistent. The second A repeats a name (warning 2) and
   * becomes A@5. */
  struct acs_workload *wl = load_ok(LD("dnn_warn.csv"), &w);
  cr_assert_eq(w.n, 2);
  cr_assert_eq(w.line[0], 3);
  cr_assert_eq(w.line[1], 5);
  cr_assert_str_eq(w.last, "duplicate layer name 'A' (first at line 2); calling it 'A@5'");
  cr_assert_str_eq(wl->layers[3].name, "A@5");
  build_ok(wl, NULL, &g);
  /* B's input bytes come from its own row: 4*4*16 = 256, w 3*3*16*32 = 4608,
   * out 2*2*32 = 128. */
  cr_assert_eq(demand(&g, "B", "cmx"), 256 + 4608 + 128);
  cr_assert(has_edge(&g, "A", "B", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "C", "A@5", ACS_EDGE_DATA));
  acs_graph_destroy(&g);
  acs_workload_free(wl);

  struct acs_diag d;
  diag_with_warns(&d, &w);
  cr_assert_eq(acs_workload_load(tu_path(LD("dnn_warn.csv")), &wl, &d), ACS_OK);
  cr_assert_eq(d.nwarn, 2);
  acs_workload_free(wl);
}

Test(dnn, alexnet_warns_about_each_pooling_gap)
{
  struct warns w;
  struct acs_workload *wl = load_ok("workloads/dnn/alexnet.csv", &w);
  /* Conv1 (224, 11x11/4) gives 54 without padding or 56 with it, but Conv2
   * reads 27x27x96: the 3x3/2 pool is left out. Conv2 (27, 5x5/1) gives 23
   * or 27, Conv3 reads 13: the second pool. Conv3 -> Conv4 -> Conv5 keep
   * 13x13 with padding, so they are consistent: two warnings, as AlexNet
   * has two pools between its convolutions. */
  cr_assert_eq(wl->nlayers, 5);
  cr_assert_eq(w.n, 2);
  for (int i = 0; i < 2; i++)
    cr_assert_eq(w.line[i], 3 + i);
  cr_assert_str_eq(w.last, "layer 'Conv3' input 13x13x256 does not match 'Conv2' "
                           "output 23x23x256 (27x27 padded; a pooling or branch layer left out?); using "
                           "the row's own shape");
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
  static const struct { const char *file; size_t layers; int warns; } nets[] = {
    { "workloads/dnn/alexnet.csv", 5, 2 },    /* 2 pools */
    { "workloads/dnn/resnet18.csv", 21, 5 },  /* pool, 3 shortcuts, avgpool */
    { "workloads/dnn/resnet50.csv", 54, 6 },   /* extra columns, a ",,,," row */
    { "workloads/dnn/mobilenet_v1.csv", 27, 1 },
    { "workloads/dnn/vgg16.csv", 16, 5 },     /* the 5 max pools */
    { "workloads/dnn/yolo.csv", 22, 12 },
  };
  for (size_t k = 0; k < sizeof(nets) / sizeof(*nets); k++) {
    struct warns w;
    struct acs_graph g;
    struct acs_workload *wl = load_ok(nets[k].file, &w);
    cr_assert_eq(wl->nlayers, nets[k].layers, "%s", nets[k].file);
    cr_assert_eq(w.n, nets[k].warns, "%s", nets[k].file);
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

/*
 * dnn_tile_rows.csv with cmx_kib=1 (1024 bytes): 16x16x4 input, 3x3, 8
 * filters, stride 1. OH = OW = 14; in 1024, w 288, out 14*14*8 = 1568; the
 * working set 2880 does not fit. r output rows with all filters need
 * (r+2)*16*4 + 288 + r*14*8 = 176 r + 416 <= 1024, so r <= 3: ceil(14/3) = 5
 * tiles (4 rows would need 1120). Balanced: 3,3,3,3,2 rows; tile 0 has
 * 5 input rows (320 B) + 288 + 3*14*8 = 336, working set 944; tile 4 has
 * 4 input rows (256) + 288 + 224 = 768. MACs per row 14*3*3*4*8 = 4032.
 */
Test(dnn, tiles_split_rows_into_the_fewest_that_fit)
{
  struct warns w;
  struct acs_graph g;
  const char *const sets[] = { "cmx_kib=1", NULL };
  struct acs_workload *wl = load_ok(LD("dnn_tile_rows.csv"), &w);

  build_ok(wl, sets, &g);
  cr_assert_eq(count_kind(&g, ACS_OP_DPU), 5);
  cr_assert_eq(demand(&g, "Big.t0", "cmx"), 944);
  cr_assert_eq(demand(&g, "Big.t4", "cmx"), 768);
  cr_assert_eq(g.ops[op(&g, "Big.t0")].macs, 3 * 4032);
  cr_assert_eq(g.ops[op(&g, "Big.t4")].macs, 2 * 4032);
  cr_assert_eq(g.ops[op(&g, "Big.t0")].out_bytes, 336);
  int64_t macs = 0;
  for (int i = 0; i < 5; i++) {
    char name[16];
    snprintf(name, sizeof(name), "Big.t%d", i);
    macs += g.ops[op(&g, name)].macs;
    cr_assert(has_edge(&g, "Big.w", name, ACS_EDGE_DATA));
  }
  cr_assert_eq(macs, 14 * 14 * 288); /* the tiles add up to the layer */
  /* Tiled first and last layer: input and output are sync ops; each tile
   * reads its rows (Big.i<k>) and writes its output (Big.o<k>). */
  cr_assert_eq(g.ops[op(&g, "input")].kind, ACS_OP_SYNC);
  cr_assert_eq(g.ops[op(&g, "output")].kind, ACS_OP_SYNC);
  cr_assert_eq(g.ops[op(&g, "Big.i0")].bytes, 320);
  cr_assert_eq(g.ops[op(&g, "Big.i4")].bytes, 256);
  cr_assert_eq(g.ops[op(&g, "Big.o4")].bytes, 224);
  cr_assert(has_edge(&g, "input", "Big.i3", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "Big.i3", "Big.t3", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "Big.t3", "Big.o3", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "Big.o3", "output", ACS_EDGE_DATA));
  /* input, Big.w, 5 tiles, 5 reads, 5 writes, output; edges 5 per kind. */
  cr_assert_eq(g.nops, 18);
  cr_assert_eq(g.nedges, 25);
  assert_tiles_fit(&g, 1024);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

/*
 * dnn_tile_filters.csv, cmx 1024: 3x3x8 input, 3x3, 64 filters: OH = 1, so
 * rows cannot split; in 72, w 4608, out 64. One row with g filters needs
 * 72 + 72 g + g <= 1024: g <= 13, so ceil(64/13) = 5 groups (4 groups of 16
 * would need 1240): filters 13,13,13,13,12; group 0 working set
 * 72 + 936 + 13 = 1021, one weight DMA per group.
 */
Test(dnn, tiles_split_filters_when_one_row_does_not_fit)
{
  struct warns w;
  struct acs_graph g;
  const char *const sets[] = { "cmx_kib=1", NULL };
  struct acs_workload *wl = load_ok(LD("dnn_tile_filters.csv"), &w);

  build_ok(wl, sets, &g);
  cr_assert_eq(count_kind(&g, ACS_OP_DPU), 5);
  cr_assert_eq(demand(&g, "Wide.t0", "cmx"), 1021);
  cr_assert_eq(demand(&g, "Wide.t4", "cmx"), 72 + 864 + 12);
  cr_assert_eq(g.ops[op(&g, "Wide.w0")].bytes, 936);
  cr_assert_eq(g.ops[op(&g, "Wide.w4")].bytes, 864);
  cr_assert(has_edge(&g, "Wide.w2", "Wide.t2", ACS_EDGE_DATA));
  cr_assert(!has_edge(&g, "Wide.w2", "Wide.t3", ACS_EDGE_DATA));
  cr_assert_eq(g.ops[op(&g, "Wide.t4")].macs, 9 * 8 * 12);
  assert_tiles_fit(&g, 1024);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

/*
 * dnn_tile_mixed.csv, cmx 1024: 10x10x8, 3x3, 32 filters: OH = OW = 8,
 * w = 72*32 = 2304 alone exceeds the CMX. r rows x g filters need
 * (r+2)*80 + 72 g + 8 r g. Per group size g (with the fewest groups G):
 *   g=8  (G=4): 736 + 144 r -> r=2, 4 row tiles -> 16 tiles
 *   g=7  (G=5): 664 + 136 r -> r=2 -> 20;   g=6 (G=6): 592 + 128 r -> r=3 -> 18
 *   g=5  (G=7): 520 + 120 r -> r=4, 2 row tiles -> 14 tiles (the fewest)
 *   g=4  (G=8): 448 + 112 r -> r=5 -> 16;   g=3 (G=11): r=6 -> 22; g=11: none
 * So 7 groups (5,5,5,5,4,4,4 filters) x 2 row tiles (4,4 rows): tile 0 is
 * 6 input rows (480) + 360 + 4*8*5 = 1000.
 */
Test(dnn, tiles_pick_the_fewest_row_tiles_times_filter_groups)
{
  struct warns w;
  struct acs_graph g;
  const char *const sets[] = { "cmx_kib=1", NULL };
  struct acs_workload *wl = load_ok(LD("dnn_tile_mixed.csv"), &w);

  build_ok(wl, sets, &g);
  cr_assert_eq(count_kind(&g, ACS_OP_DPU), 14);
  cr_assert_geq(op(&g, "Mix.w6"), 0);
  cr_assert_lt(acs_graph_find_op(&g, "Mix.w7"), 0);
  cr_assert_eq(demand(&g, "Mix.t0", "cmx"), 1000);
  /* tile 13 = group 6 (4 filters), row tile 1 (4 rows) */
  cr_assert_eq(demand(&g, "Mix.t13", "cmx"), 480 + 288 + 128);
  cr_assert(has_edge(&g, "Mix.w6", "Mix.t13", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "Mix.w0", "Mix.t1", ACS_EDGE_DATA));
  int64_t macs = 0;
  for (int32_t i = 0; i < g.nops; i++)
    if (g.ops[i].kind == ACS_OP_DPU)
      macs += g.ops[i].macs;
  cr_assert_eq(macs, 8 * 8 * 3 * 3 * 8 * 32);
  assert_tiles_fit(&g, 1024);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(dnn, layer_that_cannot_fit_stays_one_op)
{
  struct warns w;
  struct acs_graph g;
  const char *const sets[] = { "cmx_kib=1", NULL };
  /* 3x3x200 input alone is 1800 > 1024 bytes: no tile can fit, so the layer
   * stays whole (in 1800 + w 1800 + out 1) for the scheduler to report. */
  struct acs_workload *wl = load_ok(LD("dnn_tile_none.csv"), &w);
  build_ok(wl, sets, &g);
  cr_assert_eq(count_kind(&g, ACS_OP_DPU), 1);
  cr_assert_eq(demand(&g, "Huge", "cmx"), 3601);
  cr_assert_eq(g.ops[op(&g, "input")].kind, ACS_OP_DMA);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

/*
 * dnn_tile_chain.csv, cmx 1024: Small (6x6x2 -> 4x4x4, fits), Big (5 tiles
 * as above), Tail (14x14x8, 1x1, 2 filters: 140 r + 16 <= 1024 -> r = 7, two
 * tiles of 7 rows). Small -> Big: Small.o writes to DDR, sync Big.in, Big.i*
 * read; Big -> Tail: Big.o0-4 -> Tail.in -> Tail.i0-1; Tail.o0-1 -> output.
 */
Test(dnn, tiled_layers_link_through_ddr_and_one_sync)
{
  struct warns w;
  struct acs_graph g;
  const char *const sets[] = { "cmx_kib=1", NULL };
  struct acs_workload *wl = load_ok(LD("dnn_tile_chain.csv"), &w);

  build_ok(wl, sets, &g);
  cr_assert_eq(g.nops, 30);
  cr_assert_eq(g.nedges, 39);
  cr_assert_eq(g.ops[op(&g, "input")].kind, ACS_OP_DMA);
  cr_assert_eq(g.ops[op(&g, "input")].bytes, 72);
  cr_assert(has_edge(&g, "Small", "Small.o", ACS_EDGE_DATA));
  cr_assert_eq(g.ops[op(&g, "Small.o")].bytes, 64);
  cr_assert_eq(g.ops[op(&g, "Small.o")].dst, ACS_MEM_DDR);
  cr_assert(has_edge(&g, "Small.o", "Big.in", ACS_EDGE_DATA));
  cr_assert_eq(g.ops[op(&g, "Big.in")].kind, ACS_OP_SYNC);
  cr_assert_eq(g.ops[op(&g, "Big.in")].cycles, 0);
  cr_assert(has_edge(&g, "Big.in", "Big.i0", ACS_EDGE_DATA));
  cr_assert(!has_edge(&g, "Small", "Big.t0", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "Big.o2", "Tail.in", ACS_EDGE_DATA));
  cr_assert(has_edge(&g, "Tail.in", "Tail.i1", ACS_EDGE_DATA));
  cr_assert_eq(g.ops[op(&g, "Tail.i0")].bytes, 7 * 14 * 8);
  cr_assert_eq(g.ops[op(&g, "Tail.o1")].bytes, 7 * 14 * 2);
  cr_assert(has_edge(&g, "Tail.o1", "output", ACS_EDGE_DATA));
  cr_assert_eq(g.ops[op(&g, "output")].kind, ACS_OP_SYNC);
  for (int32_t i = 0; i < g.nops; i++)
    cr_assert_leq(acs_graph_demand(&g, i, 2), 1024, "op %s", g.ops[i].name);
  acs_graph_destroy(&g);
  acs_workload_free(wl);
}

Test(dnn, absurd_tile_counts_are_refused)
{
  struct warns w;
  struct acs_graph g;
  struct acs_platform p;
  struct acs_diag d;
  /* 200000x8x1 input, one 1x1 filter: OH = 200000, OW = 8. r output rows
   * need 8 r input bytes + 1 weight byte + 8 r output bytes: 16 r + 1 <= 1024
   * gives r = 63 and ceil(200000 / 63) = 3175 row tiles, allowed. With
   * 1e9 rows it would be ceil(1e9 / 63) = 15873016 tiles: refused. */
  struct acs_workload *wl = load_ok(LD("dnn_tall.csv"), &w);
  const char *const sets[] = { "cmx_kib=1", NULL };
  build_ok(wl, sets, &g);
  cr_assert_eq(count_kind(&g, ACS_OP_DPU), 3175);
  acs_graph_destroy(&g);
  acs_workload_free(wl);

  wl = load_ok(LD("dnn_taller.csv"), &w);
  platform(&p, sets);
  acs_diag_init(&d);
  int rc = acs_workload_build(wl, &p, &g, &d);
  expect_diag(rc, ACS_ERANGE, &d, LD("dnn_taller.csv"), 2, 0,
              "layer 'Tall' would need 15873016 x 1 tiles to fit the 1024-byte "
              "CMX (at most 1048576)");
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

Test(dnn, overflowing_sizes_are_an_error_at_build)
{
  struct warns w;
  struct acs_graph g;
  struct acs_platform p;
  struct acs_diag d;
  struct acs_workload *wl = load_ok(LD("dnn_overflow.csv"), &w);

  platform(&p, NULL);
  acs_diag_init(&d);
  int rc = acs_workload_build(wl, &p, &g, &d);
  expect_diag(rc, ACS_ERANGE, &d, LD("dnn_overflow.csv"), 2, 0,
              "layer 'Big': its input tensor has more than 9007199254740992 bytes "
              "(bytes_per_elem 1)");
  acs_workload_free(wl);
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
  /* 2^26 x 2^26 x 1 input at 1 byte: 2^52 bytes, its output as big: the
   * working set 2^53 + 1 is one byte too many. */
  snprintf(text, sizeof(text), "%sL,67108864,67108864,1,1,1,1,1,\n", head);
  wl = scratch_ok("ws.csv", text);
  platform(&p, NULL);
  acs_diag_init(&d);
  expect_diag(acs_workload_build(wl, &p, &g, &d), ACS_ERANGE, &d, "ws.csv", 2, 0,
              "layer 'L': its input, weights and output have more than 9007199254740992 bytes "
              "(bytes_per_elem 1)");
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

/* ---- the SCALE-Sim op graphs, frozen ----
 *
 * Every shipped table, built at three platforms, is dumped to text (every op
 * field, every demand, every edge, in order) and compared with
 * tests/data/load/dnn_golden.txt, written by the builder before the layer
 * graph work. The file holds the full dumps at the default platform and, for
 * every table and platform, the op and edge counts and an FNV-1a digest of
 * the dump (the dumps at small CMX run to megabytes). The SCALE-Sim path
 * must give the same ops: other tests and stored studies depend on them.
 * Regenerate only on purpose:
 * ACS_UPDATE_GOLDEN=1 tests/test-load --filter 'dnn/op_graphs*'.
 */
static void dump_graph(FILE *f, const struct acs_graph *g)
{
  for (int r = 0; r < g->nres; r++)
    fprintf(f, "res %s %d %lld\n", g->res[r].name, g->res[r].kind,
            (long long)g->res[r].capacity);
  for (int32_t i = 0; i < g->nops; i++) {
    const struct acs_op *o = &g->ops[i];
    fprintf(f, "op %s %d %d %d %lld %lld %lld %lld %d %d", o->name, o->kind, o->src,
            o->dst, (long long)o->cycles, (long long)o->macs, (long long)o->bytes,
            (long long)o->out_bytes, (int)o->slots, (int)o->line);
    for (int r = 0; r < g->nres; r++)
      fprintf(f, " %lld", (long long)acs_graph_demand(g, i, r));
    fputc('\n', f);
  }
  for (int32_t e = 0; e < g->nedges; e++)
    fprintf(f, "edge %d %d %d\n", (int)g->edges[e].src, (int)g->edges[e].dst,
            g->edges[e].kind);
}

static uint64_t fnv1a(const char *s, size_t n)
{
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
  return h;
}

Test(dnn, op_graphs_match_golden)
{
  static const char *const tables[] = { "alexnet", "mobilenet_v1", "resnet18",
                                        "resnet50", "vgg16", "yolo" };
  static const char *const plats[][3] = {
    { NULL },                                   /* 2 MiB, int8: few tiles */
    { "cmx_kib=128", NULL },                    /* rows and filter groups */
    { "cmx_kib=512", "bytes_per_elem=2", NULL },
  };
  static const char *const plat_names[] = { "default", "cmx_kib=128",
                                            "cmx_kib=512,bytes_per_elem=2" };
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert_not_null(f);
  for (size_t t = 0; t < sizeof(tables) / sizeof(*tables); t++) {
    char rel[256];
    struct warns w;
    snprintf(rel, sizeof(rel), "workloads/dnn/%s.csv", tables[t]);
    struct acs_workload *wl = load_ok(rel, &w);
    for (size_t p = 0; p < sizeof(plats) / sizeof(*plats); p++) {
      struct acs_graph g;
      char *one = NULL;
      size_t n = 0;
      FILE *m = open_memstream(&one, &n);
      cr_assert_not_null(m);
      build_ok(wl, plats[p][0] ? plats[p] : NULL, &g);
      dump_graph(m, &g);
      cr_assert_eq(fclose(m), 0);
      fprintf(f, "graph %s @ %s: %d ops %d edges digest %016llx\n", tables[t],
              plat_names[p], (int)g.nops, (int)g.nedges,
              (unsigned long long)fnv1a(one, n));
      if (p == 0)
        fwrite(one, 1, n, f);
      free(one);
      acs_graph_destroy(&g);
    }
    acs_workload_free(wl);
  }
  cr_assert_eq(fclose(f), 0);
  const char *golden = tu_path(LD("dnn_golden.txt"));
  if (getenv("ACS_UPDATE_GOLDEN")) {
    FILE *out = fopen(golden, "w");
    cr_assert_not_null(out);
    cr_assert_eq(fwrite(text, 1, len, out), len);
    cr_assert_eq(fclose(out), 0);
  }
  FILE *in = fopen(golden, "r");
  cr_assert_not_null(in, "cannot open %s", golden);
  char line[4096];
  size_t off = 0;
  int lineno = 0;
  while (fgets(line, sizeof(line), in)) {
    size_t n = strlen(line);
    lineno++;
    cr_assert(off + n <= len && memcmp(text + off, line, n) == 0,
              "dnn_golden.txt:%d differs: want '%.*s', built '%.*s'", lineno,
              (int)strcspn(line, "\n"), line,
              (int)(off < len ? strcspn(text + off, "\n") : 0), off < len ? text + off : "");
    off += n;
  }
  fclose(in);
  cr_assert_eq(off, len, "the build has more lines than dnn_golden.txt (%d)", lineno);
  free(text);
}
