/*
 * test-load-bounds.c - numbers at the boundaries: every reader (and --vary)
 * given the largest value it accepts and the smallest it refuses.
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

/* ---- numbers at the boundaries (issue 10) ---- */

/*
 * SQLite-style boundary hunting: every reader gets the largest value it
 * accepts (which must still load) and the smallest it refuses (which must
 * be one located message, never an overflow later). Workload quantities
 * stop at 2^53 = 9007199254740992 (ACS_QTY_MAX); platform parameters at
 * their documented maxima.
 */

static void scratch_fails(const char *name, const char *text, int want_rc, int line, int col,
                          const char *msg)
{
  const char *path = tu_write_tmp(name, text);
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
  rc = acs_workload_load(tu_write_tmp(name, text), &wl, &d);
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
  path = tu_write_tmp("max.csv",
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
      path = tu_write_tmp("pe.csv", text);
      acs_diag_init(&d);
      p = (void *)1;
      expect_diag(acs_platform_load(path, &p, &n, &d), rows[i].rc, &d, "pe.csv", 2, 3,
                  rows[i].msg);
      cr_assert_null(p);
    }
  }
  path = tu_write_tmp("cmx.csv", "name,freq_mhz,cmx_kib\nx,700,9007199254740993\n");
  acs_diag_init(&d);
  expect_diag(acs_platform_load(path, &p, &n, &d), ACS_ERANGE, &d, "cmx.csv", 2, 7,
              "cmx_kib: '9007199254740993' is out of range (max 67108864)");
  path = tu_write_tmp("freq.csv", "name,freq_mhz\nx,1e308\n");
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
  cr_assert_eq(acs_workload_build(wl, &p, &g, &d), ACS_ELIMIT);
  cr_assert(strstr(d.msg, "node 'L'") && strstr(d.msg, "limit ops=") && strstr(d.file, "ws.csv"),
            "%s: %s", d.file, d.msg);
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

