/*
 * test-load-platform.c - the CSV layer and the platform CSV reader.
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

