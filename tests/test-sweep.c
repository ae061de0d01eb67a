/*
 * test-sweep.c - trade-study building blocks: --vary parsing and the
 * cartesian product of platform variants (core/load/vary.c), the sweep's
 * worker wire format for schedules (sweep/wire.c), run identities and
 * `acsim merge` on hand-built files (report/runkey.c, report/merge.c), and
 * the content digest that identifies a workload (core/load/digest.c),
 * checked against the FIPS 180-2 examples and against sha256sum.
 * Expected values are written out by hand from the range definitions.
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

static void schedule_of(struct acs_graph *g, struct acs_problem *pb, struct acs_schedule *s)
{
  const struct acs_sched_ops *ops = acs_sched_find("list");
  struct acs_sched_ctx ctx = {1, 0, NULL};
  void *opts;
  struct acs_diag d;

  tu_graph_npu(g, "w");
  int32_t a = tu_op(g, "load", ACS_OP_DMA, 50);
  int32_t b = tu_op(g, "conv", ACS_OP_DPU, 100);
  int32_t c = tu_op(g, "pool", ACS_OP_DPU, 30);
  int32_t e = tu_op(g, "store", ACS_OP_DMA, 40);
  tu_edge(g, a, b);
  tu_edge(g, a, c);
  tu_edge(g, b, e);
  tu_edge(g, c, e);
  tu_finalize(g);
  tu_problem(pb, g, NULL);
  cr_assert_eq(acs_schedule_init_problem(s, pb), ACS_OK);
  opts = calloc(1, ops->opts_size + 1);
  acs_sched_opts_defaults(ops, opts);
  acs_diag_init(&d);
  cr_assert_eq(ops->schedule(pb, opts, &ctx, s, &d), ACS_OK, "%s", d.msg);
  free(opts);
  /* Things a scheduler may add: a control edge (a ends before e starts
   * anyway), a wait, simulated times. */
  cr_assert_eq(acs_schedule_add_edge(s, a, e, ACS_EDGE_CONTROL), ACS_OK);
  cr_assert_eq(acs_schedule_add_wait(s, e, 3), ACS_OK);
  s->ops[1].sim_start = 0.5;
  s->ops[1].sim_end = 101.25;
  tu_sample_rtabs(s);
}

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

Test(wire, truncated_or_padded_bytes_are_refused)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s, back;
  struct acs_wbuf buf = {0};

  schedule_of(&g, &pb, &s);
  cr_assert_eq(acs_wire_put_schedule(&buf, &s), ACS_OK);
  /* Every proper prefix is refused, never half-read. */
  for (size_t n = 0; n < buf.n; n += 7) {
    cr_assert_eq(acs_wire_get_schedule(buf.p, n, &back), ACS_EFORMAT, "prefix of %zu bytes", n);
    acs_schedule_destroy(&back);
  }
  cr_assert_eq(acs_wire_put_schedule(&buf, &s), ACS_OK); /* two schedules back to back */
  cr_assert_eq(acs_wire_get_schedule(buf.p, buf.n, &back), ACS_EFORMAT);
  acs_schedule_destroy(&back);
  acs_wbuf_free(&buf);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- run identities and merge ---- */

static char dir[256];

static void setup(void)
{
  snprintf(dir, sizeof(dir), "%s", tu_tmpdir());
}

static const char *at(const char *name)
{
  static char buf[4][512];
  static int k;

  k = (k + 1) % 4;
  snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
  return buf[k];
}

/* A file of runs of workload "net" (with content digest `digest`, NULL for
 * none, as acsim wrote before the column) on platform variants named after
 * cmx sizes, one run per (cmx, scheduler) given. */
static void write_study_of(const char *path, const int *cmx, size_t n, const char *sched,
                           double makespan, const char *digest)
{
  struct acs_results *r;
  struct acs_workload_row w;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(path, "test", &r, &d), ACS_OK, "%s", d.msg);
  memset(&w, 0, sizeof(w));
  snprintf(w.name, sizeof(w.name), "net");
  snprintf(w.path, sizeof(w.path), "net.csv");
  snprintf(w.kind, sizeof(w.kind), "graph");
  w.ops = 4;
  w.edges = 4;
  snprintf(w.digest, sizeof(w.digest), "%s", digest ? digest : "");
  for (size_t i = 0; i < n; i++) {
    struct acs_platform p;
    struct acs_run_row row;
    acs_platform_init(&p);
    p.v[ACS_P_CMX_KIB] = cmx[i];
    snprintf(p.name, sizeof(p.name), "default[cmx_kib=%d]", cmx[i]);
    acs_run_row_init(&row);
    cr_assert_eq(acs_results_add_platform(r, &p, &row.platform_id), ACS_OK);
    cr_assert_eq(acs_results_add_workload(r, &w, &row.workload_id), ACS_OK);
    snprintf(row.scheduler, sizeof(row.scheduler), "%s", sched);
    snprintf(row.status, sizeof(row.status), "ok");
    row.makespan_cycles = makespan + cmx[i];
    row.sim_makespan_cycles = makespan + cmx[i] + 0.5;
    cr_assert_eq(acs_results_add_run(r, &row, NULL), ACS_OK);
  }
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "%s", d.msg);
}

static void write_study(const char *path, const int *cmx, size_t n, const char *sched,
                        double makespan)
{
  write_study_of(path, cmx, n, sched, makespan, NULL);
}

static void read_ok(const char *path, struct acs_results_data *data)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_results_read(path, data, &d), ACS_OK, "%s", d.msg);
}

static long file_size(const char *path)
{
  struct stat st;

  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

TestSuite(merge, .init = setup);
TestSuite(identity, .init = setup);

Test(merge, run_key_tells_options_and_parameters_apart)
{
  struct acs_platform p, q;
  char a[ACS_RUN_KEY_MAX], b[ACS_RUN_KEY_MAX];

  acs_platform_init(&p);
  q = p;
  acs_run_key(&p, "net", "dnn", NULL, "list", "", ACS_KEY_NAME | ACS_KEY_PARAMS, a);
  acs_run_key(&q, "net", "dnn", NULL, "list", "", ACS_KEY_NAME | ACS_KEY_PARAMS, b);
  cr_assert_str_eq(a, b);
  acs_run_key(&q, "net", "dnn", NULL, "list", "rule=lpath", ACS_KEY_NAME | ACS_KEY_PARAMS, b);
  cr_assert_str_neq(a, b);
  q.v[ACS_P_DDR_RATIO] = nextafter(4.0, 5.0); /* one ulp apart is another platform */
  acs_run_key(&q, "net", "dnn", NULL, "list", "", ACS_KEY_NAME | ACS_KEY_PARAMS, b);
  cr_assert_str_neq(a, b);
  /* By name only, the parameters do not matter. */
  acs_run_key(&p, "net", "dnn", NULL, "list", "", ACS_KEY_NAME, a);
  acs_run_key(&q, "net", "dnn", NULL, "list", "", ACS_KEY_NAME, b);
  cr_assert_str_eq(a, b);
}

Test(merge, keyset_adds_finds_and_grows)
{
  struct acs_keyset *ks = acs_keyset_new();
  char key[32];
  int64_t v;

  cr_assert_not_null(ks);
  for (int i = 0; i < 1000; i++) {
    snprintf(key, sizeof(key), "k%d", i);
    cr_assert_eq(acs_keyset_add(ks, key, i, NULL), 0);
  }
  cr_assert_eq(acs_keyset_add(ks, "k17", 99, &v), 1);
  cr_assert_eq(v, 17);
  cr_assert_eq(acs_keyset_get(ks, "k999", &v), 1);
  cr_assert_eq(v, 999);
  cr_assert_eq(acs_keyset_get(ks, "k1000", NULL), 0);
  cr_assert_eq(acs_keyset_size(ks), 1000);
  acs_keyset_free(ks);
}

Test(merge, shards_join_into_one_table)
{
  const int a[] = {128, 512}, b[] = {256, 1024};
  const char *in[2];
  struct acs_merge_stats st;
  struct acs_results_data data;
  struct acs_diag d;

  write_study(at("a.h5"), a, 2, "list", 1000);
  write_study(at("b.h5"), b, 2, "list", 1000);
  in[0] = at("a.h5");
  in[1] = at("b.h5");
  acs_diag_init(&d);
  cr_assert_eq(acs_merge(in, 2, at("all.h5"), "merge", &st, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(st.runs, 4);
  cr_assert_eq(st.inputs, 2);
  read_ok(at("all.h5"), &data);
  cr_assert_eq(data.nruns, 4);
  cr_assert_eq(data.nplatforms, 4);
  cr_assert_eq(data.nworkloads, 1); /* the same workload row is stored once */
  for (size_t i = 0; i < 4; i++) {
    const struct acs_platform_row *p = acs_results_platform_of(&data, &data.runs[i]);
    double want = 1000 + p->plat.v[ACS_P_CMX_KIB] + 0.5, got = data.runs[i].sim_makespan_cycles;
    cr_assert_float_eq(got, want, 0, "run %zu", i);
  }
  acs_results_data_free(&data);
}

Test(merge, duplicated_run_is_refused_and_nothing_written)
{
  const int a[] = {128, 512}, b[] = {256, 512};
  const char *in[2];
  struct acs_merge_stats st;
  struct acs_diag d;

  write_study(at("a.h5"), a, 2, "list", 1000);
  write_study(at("b.h5"), b, 2, "list", 1000);
  in[0] = at("a.h5");
  in[1] = at("b.h5");
  acs_diag_init(&d);
  cr_assert_eq(acs_merge(in, 2, at("all.h5"), "merge", &st, &d), ACS_EINVAL);
  cr_assert(strstr(d.msg, "run 2 (list on default[cmx_kib=512], workload net) duplicates run 2 of"),
            "%s", d.msg);
  cr_assert_eq(file_size(at("all.h5")), -1);
  /* Into an existing file: a run it holds counts as a duplicate too, and the
   * file stays byte for byte as it was. */
  write_study(at("all.h5"), b, 2, "list", 1000);
  {
    long before = file_size(at("all.h5"));
    cr_assert_eq(acs_merge(in + 1, 1, at("all.h5"), "merge", &st, &d), ACS_EINVAL);
    cr_assert_eq(file_size(at("all.h5")), before);
  }
  /* Another scheduler is another run. */
  write_study(at("c.h5"), a, 2, "sequential", 1000);
  in[0] = at("c.h5");
  cr_assert_eq(acs_merge(in, 1, at("all.h5"), "merge", &st, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(st.existing, 2);
}

Test(merge, other_schema_is_refused)
{
  const int a[] = {128};
  const char *in[2];
  struct acs_merge_stats st;
  struct acs_diag d;
  hid_t f, att, sp;
  int v = 2;

  write_study(at("a.h5"), a, 1, "list", 1000);
  write_study(at("b.h5"), a, 1, "sequential", 1000);
  f = H5Fopen(at("b.h5"), H5F_ACC_RDWR, H5P_DEFAULT);
  cr_assert_geq(f, 0);
  cr_assert_geq(H5Adelete(f, "schema_version"), 0);
  sp = H5Screate(H5S_SCALAR);
  att = H5Acreate2(f, "schema_version", H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT);
  cr_assert_geq(H5Awrite(att, H5T_NATIVE_INT, &v), 0);
  H5Aclose(att);
  H5Sclose(sp);
  H5Fclose(f);
  in[0] = at("a.h5");
  in[1] = at("b.h5");
  acs_diag_init(&d);
  cr_assert_eq(acs_merge(in, 2, at("all.h5"), "merge", &st, &d), ACS_EFORMAT);
  cr_assert(strstr(d.msg, "schema_version 2"), "%s", d.msg);
  cr_assert_eq(file_size(at("all.h5")), -1);
}

Test(merge, input_that_is_the_output_is_refused)
{
  const int a[] = {128};
  const char *in[1];
  struct acs_merge_stats st;
  struct acs_diag d;

  write_study(at("a.h5"), a, 1, "list", 1000);
  in[0] = at("a.h5");
  acs_diag_init(&d);
  cr_assert_eq(acs_merge(in, 1, at("a.h5"), "merge", &st, &d), ACS_EINVAL);
  cr_assert(strstr(d.msg, "is the output"), "%s", d.msg);
}

Test(merge, schedules_come_along)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s, back;
  struct acs_results *r;
  struct acs_run_row row;
  struct acs_workload_row w;
  struct acs_merge_stats st;
  struct acs_results_data data;
  struct acs_diag d;
  const char *in[1];

  schedule_of(&g, &pb, &s);
  s.nwaits = 0; /* the wait above refers to no barrier anyone updates */
  acs_diag_init(&d);
  cr_assert_eq(acs_results_open(at("a.h5"), "t", &r, &d), ACS_OK);
  memset(&w, 0, sizeof(w));
  snprintf(w.name, sizeof(w.name), "w");
  snprintf(w.kind, sizeof(w.kind), "graph");
  acs_run_row_init(&row);
  cr_assert_eq(acs_results_add_platform(r, &pb.plat, &row.platform_id), ACS_OK);
  cr_assert_eq(acs_results_add_workload(r, &w, &row.workload_id), ACS_OK);
  snprintf(row.scheduler, sizeof(row.scheduler), "list");
  snprintf(row.status, sizeof(row.status), "ok");
  cr_assert_eq(acs_results_add_run(r, &row, &s), ACS_OK);
  cr_assert_eq(acs_results_commit(r, &d), ACS_OK);
  in[0] = at("a.h5");
  cr_assert_eq(acs_merge(in, 1, at("all.h5"), "merge", &st, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(st.schedules, 1);
  read_ok(at("all.h5"), &data);
  cr_assert_eq(acs_results_read_schedule(at("all.h5"), data.runs[0].run_id, &back, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(back.nops, s.nops);
  cr_assert_eq(back.makespan, s.makespan);
  tu_assert_verified(&back);
  acs_schedule_destroy(&back);
  acs_results_data_free(&data);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- workload content digests (run identity) ---- */

static void sha256_text(const void *p, size_t n, char hex[ACS_DIGEST_HEX + 1])
{
  unsigned char md[ACS_SHA256_BYTES];
  struct acs_sha256 s;

  acs_sha256_init(&s);
  acs_sha256_update(&s, p, n);
  acs_sha256_final(&s, md);
  acs_sha256_hex(md, hex);
}

/* The examples of FIPS 180-2, appendix B. */
Test(identity, sha256_matches_the_standard_examples)
{
  static const char *const abc448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  char hex[ACS_DIGEST_HEX + 1], a[1000];
  unsigned char md[ACS_SHA256_BYTES];
  struct acs_sha256 s;

  sha256_text("abc", 3, hex);
  cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  sha256_text(abc448, strlen(abc448), hex);
  cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  sha256_text("", 0, hex);
  cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  /* One million 'a', fed 1000 at a time. */
  memset(a, 'a', sizeof(a));
  acs_sha256_init(&s);
  for (int i = 0; i < 1000; i++)
    acs_sha256_update(&s, a, sizeof(a));
  acs_sha256_final(&s, md);
  acs_sha256_hex(md, hex);
  cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Every length around the block and padding boundaries (55, 56, 63, 64,
 * 119, 120 ...), fed whole and in chunks of every size from 1 to 67, gives
 * one digest: the buffering cannot depend on how the bytes arrive. */
Test(identity, sha256_is_the_same_however_the_bytes_arrive)
{
  unsigned char msg[200], md[ACS_SHA256_BYTES];
  char whole[ACS_DIGEST_HEX + 1], pieces[ACS_DIGEST_HEX + 1];

  for (size_t i = 0; i < sizeof(msg); i++)
    msg[i] = (unsigned char)(i * 37 + 11);
  for (size_t n = 0; n <= sizeof(msg); n++) {
    sha256_text(msg, n, whole);
    for (size_t chunk = 1; chunk <= 67; chunk++) {
      struct acs_sha256 s;
      acs_sha256_init(&s);
      for (size_t off = 0; off < n; off += chunk)
        acs_sha256_update(&s, msg + off, n - off < chunk ? n - off : chunk);
      acs_sha256_final(&s, md);
      acs_sha256_hex(md, pieces);
      cr_assert_str_eq(pieces, whole, "length %zu in chunks of %zu", n, chunk);
    }
  }
}

/* The output of `cmd` (one line, newline stripped). */
static void run_line(const char *cmd, char *buf, size_t size)
{
  FILE *p = popen(cmd, "r");

  cr_assert_not_null(p, "%s", cmd);
  cr_assert_not_null(fgets(buf, (int)size, p), "no output from %s", cmd);
  buf[strcspn(buf, "\n")] = '\0';
  pclose(p);
}

static void copy_file(const char *from, const char *to)
{
  char buf[4096];
  size_t n;
  FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");

  cr_assert(in && out, "copy %s to %s", from, to);
  while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
    cr_assert_eq(fwrite(buf, 1, n, out), n);
  fclose(in);
  fclose(out);
}

static struct acs_workload *load_ok(const char *path)
{
  struct acs_workload *w;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(path, &w, &d), ACS_OK, "%s", d.msg);
  return w;
}

/*
 * A workload's digest is sha256sum of its file (a second, independent
 * implementation), for every format; the same file by another path or
 * under another name has the same one, an edited copy another. The record
 * of files read names the path given.
 */
Test(identity, workload_digest_is_sha256sum_of_its_file)
{
  static const char *const files[] = {"workloads/dnn/alexnet.csv",
                                      "workloads/graphs/isp_pipeline.csv",
                                      "tests/data/psplib/j301_1.sm"};
  char cmd[2048], want[128], other[600];
  struct acs_workload *w, *v;

  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    w = load_ok(tu_path(files[i]));
    snprintf(cmd, sizeof(cmd), "sha256sum '%s' | cut -c1-64", tu_path(files[i]));
    run_line(cmd, want, sizeof(want));
    cr_assert_str_eq(w->digest, want, "%s", files[i]);
    cr_assert_eq(w->nfiles, 1);
    cr_assert_str_eq(w->files[0].path, tu_path(files[i]));
    cr_assert_str_eq(w->files[0].sha256, want);
    acs_workload_free(w);
  }
  /* Another path to the same file, and a copy under another name. */
  w = load_ok(tu_path("workloads/graphs/isp_pipeline.csv"));
  v = load_ok(tu_path("workloads/graphs/../graphs/isp_pipeline.csv"));
  cr_assert_str_eq(v->digest, w->digest);
  acs_workload_free(v);
  snprintf(other, sizeof(other), "%s", at("renamed.csv"));
  copy_file(tu_path("workloads/graphs/isp_pipeline.csv"), other);
  v = load_ok(other);
  cr_assert_str_eq(v->digest, w->digest);
  cr_assert_str_neq(v->name, w->name);
  acs_workload_free(v);
  /* A comment line changes the bytes: another workload. */
  {
    FILE *f = fopen(other, "ab");
    cr_assert_not_null(f);
    fputs("# edited\n", f);
    fclose(f);
  }
  v = load_ok(other);
  cr_assert_str_neq(v->digest, w->digest);
  acs_workload_free(v);
  acs_workload_free(w);
}

/* A workload read from several files (as a graph with a resource model
 * will be): the digest of the files' digests, one hex line each, in the
 * order read, which is what `sha256sum A B | cut -c1-64 | sha256sum`
 * prints; swapping the files' roles changes it. */
Test(identity, digest_of_several_files_is_over_their_digests_in_order)
{
  char a[2048], b[2048], cmd[4200], want[128], ab[ACS_DIGEST_HEX + 1];
  struct acs_workload *w;
  struct acs_diag d;

  snprintf(a, sizeof(a), "%s", tu_path("workloads/graphs/isp_pipeline.csv"));
  snprintf(b, sizeof(b), "%s", tu_path("workloads/graphs/resnet_block_chain.csv"));
  acs_diag_init(&d);
  w = load_ok(a);
  cr_assert_eq(acs__workload_note_file(w, b, &d), ACS_OK, "%s", d.msg);
  acs__workload_seal_digest(w);
  cr_assert_eq(w->nfiles, 2);
  snprintf(cmd, sizeof(cmd), "sha256sum '%s' '%s' | cut -c1-64 | sha256sum | cut -c1-64", a, b);
  run_line(cmd, want, sizeof(want));
  cr_assert_str_eq(w->digest, want);
  snprintf(ab, sizeof(ab), "%s", w->digest);
  acs_workload_free(w);

  w = load_ok(b);
  cr_assert_eq(acs__workload_note_file(w, a, &d), ACS_OK, "%s", d.msg);
  acs__workload_seal_digest(w);
  cr_assert_str_neq(w->digest, ab, "the order of the files is part of the digest");
  /* A file that cannot be read is a located error. */
  cr_assert_eq(acs__workload_note_file(w, at("absent.csv"), &d), ACS_EIO);
  cr_assert(strstr(d.msg, "cannot open") != NULL, "%s", d.msg);
  acs_workload_free(w);
}

/* By digest, the workload's name does not count and its content does; a
 * row without a digest falls back to its name, and a digest key never
 * equals a name key. */
Test(identity, run_key_counts_the_workload_by_content)
{
  static const char *const d1 = "1111111111111111111111111111111111111111111111111111111111111111";
  static const char *const d2 = "2222222222222222222222222222222222222222222222222222222222222222";
  const int f = ACS_KEY_NAME | ACS_KEY_PARAMS | ACS_KEY_DIGEST;
  char a[ACS_RUN_KEY_MAX], b[ACS_RUN_KEY_MAX];
  struct acs_platform p;

  acs_platform_init(&p);
  acs_run_key(&p, "net", "graph", d1, "list", "", f, a);
  acs_run_key(&p, "other", "graph", d1, "list", "", f, b);
  cr_assert_str_eq(a, b, "the same content under another name is the same run");
  acs_run_key(&p, "net", "graph", d2, "list", "", f, b);
  cr_assert_str_neq(a, b, "another content under the same name is another run");
  acs_run_key(&p, "net", "dnn", d1, "list", "", f, b);
  cr_assert_str_neq(a, b, "the kind still counts");
  acs_run_key(&p, "net", "graph", "", "list", "", f, a);
  acs_run_key(&p, "net", "graph", NULL, "list", "", f, b);
  cr_assert_str_eq(a, b);
  acs_run_key(&p, "net", "graph", d1, "list", "", ACS_KEY_NAME | ACS_KEY_PARAMS, b);
  cr_assert_str_eq(a, b, "without ACS_KEY_DIGEST the name counts");
  /* A workload named like a digest is not that digest. */
  acs_run_key(&p, d1, "graph", NULL, "list", "", f, a);
  acs_run_key(&p, "net", "graph", d1, "list", "", f, b);
  cr_assert_str_neq(a, b);
}

static const char *const D1 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char *const D2 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

/* Merge by content: two networks both named net merge; the same content
 * twice is refused; a file without digests makes names count, so the two
 * networks then collide (the strict reading of an older file). */
Test(identity, merge_tells_workloads_apart_by_content)
{
  const int a[] = {128, 512};
  char n1[512], n2[512], n1b[512], old[512];
  const char *in[2] = {n1, n2};
  struct acs_merge_stats st;
  struct acs_results_data data;
  struct acs_diag d;

  acs_diag_init(&d);
  snprintf(n1, sizeof(n1), "%s", at("n1.h5"));
  snprintf(n2, sizeof(n2), "%s", at("n2.h5"));
  snprintf(n1b, sizeof(n1b), "%s", at("n1b.h5"));
  snprintf(old, sizeof(old), "%s", at("old.h5"));
  write_study_of(n1, a, 2, "list", 1000, D1);
  write_study_of(n2, a, 2, "list", 1000, D2);
  cr_assert_eq(acs_merge(in, 2, at("all.h5"), "merge", &st, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(st.runs, 4);
  read_ok(at("all.h5"), &data);
  cr_assert_eq(data.nruns, 4);
  cr_assert_eq(acs_results_digested(&data), 1);
  acs_results_data_free(&data);

  write_study_of(n1b, a + 1, 1, "list", 1000, D1);
  in[1] = n1b;
  cr_assert_eq(acs_merge(in, 2, at("dup.h5"), "merge", &st, &d), ACS_EINVAL);
  cr_assert(strstr(d.msg, "run 1 (list on default[cmx_kib=512], workload net) duplicates run 2 "
                          "of") && strstr(d.msg, "n1.h5"), "%s", d.msg);

  write_study(old, a, 1, "sequential", 1000);
  in[0] = old;
  cr_assert_eq(acs_merge(in, 1, at("all.h5"), "merge", &st, &d), ACS_EINVAL,
               "with an older file in the merge, the two nets share a name");
  cr_assert(strstr(d.msg, "duplicates run"), "%s", d.msg);
}

/* Compare by content: a workload edited between base and head is missing
 * and new, not compared, and counted as changed; with a file lacking
 * digests the names match them again (and say so). */
Test(identity, compare_matches_by_content_when_both_files_have_digests)
{
  const int a[] = {128, 512};
  struct acs_compare_opts o = {NULL, 0.01, ACS_KEY_NAME};
  struct acs_results_data b, h;
  struct acs_compare_result r;
  struct acs_diag d;
  char *text = NULL;
  size_t len = 0;
  FILE *f;

  acs_diag_init(&d);
  write_study_of(at("base.h5"), a, 2, "list", 1000, D1);
  write_study_of(at("head.h5"), a, 2, "list", 1100, D2);
  read_ok(at("base.h5"), &b);
  read_ok(at("head.h5"), &h);
  cr_assert_eq(acs_compare_data(&b, &h, &o, &r, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(r.by_digest, 1);
  cr_assert_eq(r.matched, 0);
  cr_assert_eq(r.count[ACS_CMP_MISSING], 2);
  cr_assert_eq(r.count[ACS_CMP_NEW], 2);
  cr_assert_eq(r.changed_workloads, 1);
  cr_assert_str_eq(r.changed_example, "net");
  f = open_memstream(&text, &len);
  cr_assert_not_null(f);
  acs_compare_write(f, &r, ACS_CMP_TEXT, "base.h5", "head.h5", 0);
  fclose(f);
  cr_assert(strstr(text, "matched by platform name, workload content, scheduler"), "%s", text);
  cr_assert(strstr(text, "1 workload (e.g. net) changed content under the same name"), "%s",
            text);
  free(text);
  acs_compare_free(&r);
  acs_results_data_free(&h);

  /* The head without digests: by name, the runs match (a 10% regression). */
  write_study(at("head.h5"), a, 2, "list", 1100);
  read_ok(at("head.h5"), &h);
  cr_assert_eq(acs_compare_data(&b, &h, &o, &r, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(r.by_digest, 0);
  cr_assert_eq(r.matched, 2);
  cr_assert_eq(r.count[ACS_CMP_REGRESSION], 2);
  cr_assert_eq(r.changed_workloads, 0);
  acs_compare_free(&r);
  acs_results_data_free(&h);
  acs_results_data_free(&b);
}
