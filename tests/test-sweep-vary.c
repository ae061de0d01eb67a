/*
 * test-sweep-vary.c - trade-study building blocks: --vary parsing and the
 * cartesian product of platform variants (core/load/vary.c), and the
 * sweep's worker wire format for schedules (sweep/wire.c). Expected
 * values are written out by hand from the range definitions.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sweep/wire.h"
#include "core/load/load.h"
#include "core/sched/sched.h"
#include "report/report.h"
#include "tests/testutil.h"

#include "tests/sweep_util.h"

/* ---- --vary ---- */

static void parse_ok(const char *arg, struct acs_vary *v)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_vary_parse(arg, 1, v, &d), ACS_OK, "%s: %s", arg, d.msg);
}

static void assert_values(const struct acs_vary *v, const double *want, size_t n)
{
  cr_assert_eq(v->n, n, "got %zu values, want %zu", v->n, n);
  for (size_t i = 0; i < n; i++)
    cr_assert(v->values[i] == want[i], "value %zu: %.17g, want %.17g", i, v->values[i], want[i]);
}

/* The located message of a bad --vary, as the CLI prints it. */
static void parse_bad(const char *arg, int index, int err, const char *want)
{
  struct acs_vary v;
  struct acs_diag d;
  char msg[2048];

  acs_diag_init(&d);
  cr_assert_eq(acs_vary_parse(arg, index, &v, &d), err, "%s", arg);
  acs_diag_format(&d, msg, sizeof(msg));
  cr_assert(strncmp(msg, want, strlen(want)) == 0, "'%s': got '%s', want '%s...'", arg, msg, want);
  cr_assert_null(v.values);
}

Test(vary, list_keeps_the_order_given)
{
  struct acs_vary v;
  const double want[] = {512, 128, 2048};

  parse_ok("cmx_kib=512,128,2048", &v);
  cr_assert_eq(v.param, ACS_P_CMX_KIB);
  assert_values(&v, want, 3);
  acs_vary_free(&v);
}

Test(vary, geometric_range_doubles_up_to_the_end)
{
  struct acs_vary v;
  const double want[] = {128, 256, 512, 1024, 2048, 4096};

  parse_ok("cmx_kib=128..4096*2", &v);
  assert_values(&v, want, 6);
  acs_vary_free(&v);
}

Test(vary, geometric_range_stops_below_an_end_it_does_not_hit)
{
  struct acs_vary v;
  const double want[] = {100, 300, 900};

  parse_ok("cmx_kib=100..2000*3", &v);
  assert_values(&v, want, 3);
  acs_vary_free(&v);
}

Test(vary, linear_range_steps_by_its_increment)
{
  struct acs_vary v;
  double want[16];

  for (int i = 0; i < 16; i++)
    want[i] = 2 + 2 * i; /* 2, 4, ..., 32 */
  parse_ok("barriers=2..32+2", &v);
  assert_values(&v, want, 16);
  acs_vary_free(&v);
}

Test(vary, range_without_step_counts_by_one)
{
  struct acs_vary v;
  const double want[] = {1, 2, 3, 4};

  parse_ok("pe_count=1..4", &v);
  assert_values(&v, want, 4);
  acs_vary_free(&v);
}

Test(vary, fractional_steps_land_exactly_on_the_end)
{
  struct acs_vary v;
  const double want[] = {0.5, 1.0, 1.5, 2.0};
  const double tenths[] = {0.1, 0.2, 0.30000000000000004, 0.4};

  parse_ok("ddr_ratio=0.5..2+0.5", &v);
  assert_values(&v, want, 4);
  acs_vary_free(&v);
  /* 0.1 + 3 * 0.1 is 0.30000000000000004 but the end 0.4 is taken as given. */
  parse_ok("ddr_ratio=0.1..0.4+0.1", &v);
  cr_assert_eq(v.n, 4);
  cr_assert(v.values[3] == 0.4);
  cr_assert(fabs(v.values[2] - tenths[2]) < 1e-15);
  acs_vary_free(&v);
}

Test(vary, items_mix_numbers_and_ranges)
{
  struct acs_vary v;
  const double want[] = {0, 4, 8, 16, 32};

  parse_ok("barriers=0,4..32*2", &v);
  assert_values(&v, want, 5);
  acs_vary_free(&v);
}

Test(vary, integer_parameter_rounds_a_geometric_range)
{
  struct acs_vary v;
  /* 100 * 1.5^k = 100, 150, 225, 337.5, 506.25, 759.375 (then 1139 > 1000). */
  const double want[] = {100, 150, 225, 338, 506, 759};

  parse_ok("cmx_kib=100..1000*1.5", &v);
  assert_values(&v, want, 6);
  acs_vary_free(&v);
  /* 1.1^k rounds to 1, 1, 1, 1, 1, 2, ...: rounding repeats are dropped. */
  parse_ok("pe_count=1..3*1.1", &v);
  {
    const double w2[] = {1, 2, 3};
    assert_values(&v, w2, 3);
  }
  acs_vary_free(&v);
}

Test(vary, blanks_around_items_are_ignored)
{
  struct acs_vary v;
  const double want[] = {1, 2};

  parse_ok("pe_count= 1 , 2 ", &v);
  assert_values(&v, want, 2);
  acs_vary_free(&v);
}

Test(vary, errors_are_located_in_the_argument)
{
  parse_bad("cmx=1,2", 1, ACS_EPARSE, "--vary:1:1: unknown parameter 'cmx' (known: freq_mhz");
  parse_bad("cmx_kib", 2, ACS_EPARSE, "--vary:2:1: 'cmx_kib': expected key=v1,v2");
  parse_bad("name=a,b", 1, ACS_EINVAL, "--vary:1:1: 'name' cannot be varied");
  parse_bad("cmx_kib=128,abc", 3, ACS_EPARSE, "--vary:3:13: cmx_kib: 'abc' is not a number");
  parse_bad("cmx_kib=128,,256", 1, ACS_EPARSE, "--vary:1:13: cmx_kib: empty value");
  parse_bad("cmx_kib=", 1, ACS_EPARSE, "--vary:1:9: cmx_kib: empty value list");
  parse_bad("cmx_kib=0", 1, ACS_ERANGE, "--vary:1:9: cmx_kib: 0 is below the minimum 1");
  parse_bad("cmx_kib=1.5", 1, ACS_EPARSE, "--vary:1:9: cmx_kib: '1.5' is not an integer");
  parse_bad("cmx_kib=128,128", 1, ACS_EINVAL, "--vary:1:13: cmx_kib: value 128 appears twice");
  parse_bad("barriers=32..2+2", 1, ACS_ERANGE, "--vary:1:10: barriers: range start 32 is above its end 2");
  parse_bad("cmx_kib=128..4096*1", 1, ACS_ERANGE, "--vary:1:19: cmx_kib: factor 1 must be greater than 1");
  parse_bad("barriers=2..32+0", 1, ACS_ERANGE, "--vary:1:16: barriers: step 0 must be positive");
  parse_bad("barriers=0..32*2", 1, ACS_ERANGE, "--vary:1:10: barriers: a geometric range needs a positive start");
  parse_bad("barriers=2..x", 1, ACS_EPARSE, "--vary:1:13: barriers: range end 'x' is not a number");
  parse_bad("barriers=2..32+y", 1, ACS_EPARSE, "--vary:1:16: barriers: step 'y' is not a number");
  parse_bad("cmx_kib=1..100000", 1, ACS_ERANGE, "--vary:1:9: cmx_kib: range '1..100000' has more than 10000 values");
  /* The cap is on the argument: 6000 + 5000 values in two ranges, the
   * 10,001st refused at the second range (column 17). */
  parse_bad("cmx_kib=1..6000,6001..11000", 1, ACS_ERANGE, "--vary:1:17: cmx_kib: more than 10000 values");
  /* a repeat across items is still found (through the index) */
  parse_bad("cmx_kib=1..5000,4999", 1, ACS_EINVAL, "--vary:1:17: cmx_kib: value 4999 appears twice");
}

Test(vary, values_print_canonically)
{
  char buf[64];

  acs_vary_format_value(4096, buf, sizeof(buf));
  cr_assert_str_eq(buf, "4096");
  acs_vary_format_value(0.1, buf, sizeof(buf));
  cr_assert_str_eq(buf, "0.1");
  acs_vary_format_value(2.5e-7, buf, sizeof(buf));
  cr_assert_str_eq(buf, "2.5e-07");
  acs_vary_format_value(1.0 / 3.0, buf, sizeof(buf));
  cr_assert(strtod(buf, NULL) == 1.0 / 3.0, "%s does not read back", buf);
}

static void two_rows(struct acs_platform base[2])
{
  acs_platform_init(&base[0]);
  acs_platform_init(&base[1]);
  snprintf(base[0].name, sizeof(base[0].name), "npu");
  snprintf(base[1].name, sizeof(base[1].name), "big");
  base[1].v[ACS_P_PE_COUNT] = 16;
}

Test(vary, product_names_variants_first_vary_outermost)
{
  struct acs_platform base[2], *out;
  struct acs_vary v[2];
  struct acs_diag d;
  size_t n;
  static const char *const names[] = {
    "npu[cmx_kib=128,barriers=2]", "npu[cmx_kib=128,barriers=8]", "npu[cmx_kib=256,barriers=2]",
    "npu[cmx_kib=256,barriers=8]", "npu[cmx_kib=512,barriers=2]", "npu[cmx_kib=512,barriers=8]",
    "big[cmx_kib=128,barriers=2]"};

  two_rows(base);
  parse_ok("cmx_kib=128..512*2", &v[0]);
  parse_ok("barriers=2,8", &v[1]);
  acs_diag_init(&d);
  cr_assert_eq(acs_vary_expand(base, 2, v, 2, &out, &n, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 12); /* 2 rows x 3 x 2 */
  for (size_t i = 0; i < 7; i++)
    cr_assert_str_eq(out[i].name, names[i]);
  cr_assert(out[3].v[ACS_P_CMX_KIB] == 256 && out[3].v[ACS_P_BARRIERS] == 8);
  /* Everything not varied comes from the base row. */
  cr_assert(out[3].v[ACS_P_PE_COUNT] == 4 && out[11].v[ACS_P_PE_COUNT] == 16);
  cr_assert(out[11].v[ACS_P_CMX_KIB] == 512 && out[11].v[ACS_P_BARRIERS] == 8);
  free(out);
  acs_vary_free(&v[0]);
  acs_vary_free(&v[1]);
}

Test(vary, no_vary_copies_the_rows_with_their_names)
{
  struct acs_platform base[2], *out;
  struct acs_diag d;
  size_t n;

  two_rows(base);
  acs_diag_init(&d);
  cr_assert_eq(acs_vary_expand(base, 2, NULL, 0, &out, &n, &d), ACS_OK);
  cr_assert_eq(n, 2);
  cr_assert_str_eq(out[0].name, "npu");
  cr_assert_str_eq(out[1].name, "big");
  free(out);
}

Test(vary, product_errors)
{
  struct acs_platform base[2], *out;
  struct acs_vary v[3];
  struct acs_diag d;
  size_t n;

  two_rows(base);
  parse_ok("cmx_kib=1..100", &v[0]);
  parse_ok("barriers=1..100", &v[1]);
  parse_ok("cmx_kib=128", &v[2]);
  acs_diag_init(&d);
  /* The same key twice. */
  {
    struct acs_vary twice[2] = {v[0], v[2]};
    cr_assert_eq(acs_vary_expand(base, 2, twice, 2, &out, &n, &d), ACS_EINVAL);
    cr_assert(strstr(d.msg, "cmx_kib is already varied by --vary number 1"), "%s", d.msg);
    cr_assert_eq(d.line, 2);
  }
  /* 2 x 100 x 100 = 20000 fits; 2 x 100 x 100 x 10 does not. */
  cr_assert_eq(acs_vary_expand(base, 2, v, 2, &out, &n, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 20000);
  free(out);
  {
    struct acs_vary more[3] = {v[0], v[1], {0}};
    parse_ok("dma_channels=1..10", &more[2]);
    cr_assert_eq(acs_vary_expand(base, 2, more, 3, &out, &n, &d), ACS_ERANGE);
    cr_assert(strstr(d.msg, "more than 100000 platform variants"), "%s", d.msg);
    acs_vary_free(&more[2]);
  }
  /* A variant that fails validation names itself. */
  {
    struct acs_vary small;
    parse_ok("cmx_kib=1", &small);
    base[0].v[ACS_P_CMX_ALIGN_BYTES] = 4096;
    cr_assert_eq(acs_vary_expand(base, 1, &small, 1, &out, &n, &d), ACS_ERANGE);
    cr_assert(strstr(d.msg, "npu[cmx_kib=1]") && strstr(d.msg, "exceeds the CMX size"), "%s", d.msg);
    acs_vary_free(&small);
  }
  /* A name longer than the column. */
  memset(base[0].name, 'n', sizeof(base[0].name) - 1);
  base[0].name[sizeof(base[0].name) - 1] = '\0';
  base[0].v[ACS_P_CMX_ALIGN_BYTES] = 64;
  cr_assert_eq(acs_vary_expand(base, 1, &v[2], 1, &out, &n, &d), ACS_ERANGE);
  cr_assert(strstr(d.msg, "would be longer than 127 bytes"), "%s", d.msg);
  for (int i = 0; i < 3; i++)
    acs_vary_free(&v[i]);
}

/* ---- the worker wire format ---- */

Test(wire, schedule_round_trips_field_by_field)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s, back;
  struct acs_wbuf buf = {0};

  schedule_of(&g, &pb, &s);
  cr_assert_eq(acs_wire_put_schedule(&buf, &s), ACS_OK);
  cr_assert_eq(acs_wire_get_schedule(buf.p, buf.n, &back), ACS_OK);
  cr_assert_eq(back.nops, s.nops);
  cr_assert_eq(back.norig, s.norig);
  cr_assert_eq(back.nres, s.nres);
  cr_assert_eq(back.nedges, s.nedges);
  cr_assert_eq(back.nwaits, 1);
  cr_assert_eq(back.cmx_capacity, s.cmx_capacity);
  cr_assert_eq(back.makespan, s.makespan);
  cr_assert_eq(back.res_pe, s.res_pe);
  for (int r = 0; r < s.nres; r++) {
    cr_assert_str_eq(back.res_name[r], s.res_name[r]);
    cr_assert_eq(back.res_cap[r], s.res_cap[r]);
  }
  for (int32_t i = 0; i < s.nops; i++) {
    cr_assert_str_eq(back.ops[i].name, s.ops[i].name);
    cr_assert_eq(back.ops[i].start, s.ops[i].start);
    cr_assert_eq(back.ops[i].end, s.ops[i].end);
    cr_assert_eq(back.ops[i].unit, s.ops[i].unit);
    for (int r = 0; r < s.nres; r++)
      cr_assert_eq(acs_schedule_demand(&back, i, r), acs_schedule_demand(&s, i, r));
  }
  {
    double a = back.ops[1].sim_end;
    cr_assert_float_eq(a, 101.25, 0);
  }
  for (int32_t e = 0; e < s.nedges; e++)
    cr_assert(back.edges[e].src == s.edges[e].src && back.edges[e].dst == s.edges[e].dst &&
              back.edges[e].kind == s.edges[e].kind);
  cr_assert_eq(back.waits[0].op, 3);
  cr_assert_eq(back.waits[0].barrier, 3);
  tu_assert_rtabs_eq(&s, &back);
  acs_schedule_destroy(&back);
  acs_wbuf_free(&buf);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* The parent reads only the tables of most runs: the same tables as the
 * whole schedule's, its resources, and none of its ops. */
Test(wire, tables_alone_are_the_schedules_tables)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s, back;
  struct acs_wbuf buf = {0};

  schedule_of(&g, &pb, &s);
  cr_assert_gt(s.ntables, 0);
  cr_assert_eq(acs_wire_put_schedule(&buf, &s), ACS_OK);
  cr_assert_eq(acs_wire_get_tables(buf.p, buf.n, &back), ACS_OK);
  cr_assert(back.nops == 0 && back.norig == 0 && back.nedges == 0 && back.nwaits == 0);
  cr_assert_eq(back.makespan, 0);
  cr_assert_eq(back.nres, s.nres);
  for (int r = 0; r < s.nres; r++)
    cr_assert_str_eq(back.res_name[r], s.res_name[r]);
  tu_assert_rtabs_eq(&s, &back);
  acs_schedule_destroy(&back);
  acs_wbuf_free(&buf);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(wire, truncated_or_padded_bytes_are_refused)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s, back;
  struct acs_wbuf buf = {0};

  schedule_of(&g, &pb, &s);
  cr_assert_eq(acs_wire_put_schedule(&buf, &s), ACS_OK);
  /* Every proper prefix is refused, never half-read, by both readers. */
  for (size_t n = 0; n < buf.n; n++) {
    cr_assert_eq(acs_wire_get_schedule(buf.p, n, &back), ACS_EFORMAT, "prefix of %zu bytes", n);
    acs_schedule_destroy(&back);
    cr_assert_eq(acs_wire_get_tables(buf.p, n, &back), ACS_EFORMAT, "prefix of %zu bytes", n);
    acs_schedule_destroy(&back);
  }
  cr_assert_eq(acs_wire_put_schedule(&buf, &s), ACS_OK); /* two schedules back to back */
  cr_assert_eq(acs_wire_get_schedule(buf.p, buf.n, &back), ACS_EFORMAT);
  acs_schedule_destroy(&back);
  cr_assert_eq(acs_wire_get_tables(buf.p, buf.n, &back), ACS_EFORMAT);
  acs_schedule_destroy(&back);
  acs_wbuf_free(&buf);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

