/*
 * test-limits.c - the limits on what one workload may ask for (core/acs.h,
 * ACS_LIMIT_MAP), and every reader's and builder's cost bound: the
 * reproducers the fuzzers found (tests/fuzz/repro/) and variants of them
 * (larger shapes, more actors, more variables), each of which must end
 * `ok` or with ACS_ELIMIT and a message naming the limit. Nothing here is
 * timed: each test asserts a counted quantity (ops and edges built, points
 * enumerated, the exact count at which a refusal starts), worked out by
 * hand in the comments.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/graph.h"
#include "core/model/sare.h"
#include "core/model/sdf.h"
#include "tests/fuzz/onnx_probe.h"
#include "tests/testutil.h"

static void restore_limits(void)
{
  acs_limits_reset();
}

TestSuite(limits, .fini = restore_limits);

static const char *write_tmp(const char *name, const char *text, size_t len)
{
  static char path[4][512];
  static int k;
  char *p = path[k++ % 4];
  FILE *f;

  snprintf(p, sizeof(path[0]), "%s/%s", tu_tmpdir(), name);
  f = fopen(p, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(text, 1, len, f), len);
  fclose(f);
  return p;
}

static const char *write_text(const char *name, const char *text)
{
  return write_tmp(name, text, strlen(text));
}

/* Loads and builds on the default platform; the load's or the build's
 * error, ACS_OK with *g built (destroy it) otherwise. */
static int load_build(const char *path, const char *const *sets, struct acs_graph *g,
                      struct acs_diag *d)
{
  struct acs_workload *w;
  struct acs_platform p;
  int err;

  acs_diag_init(d);
  if ((err = acs_workload_load(path, &w, d)) < 0)
    return err;
  acs_platform_init(&p);
  for (; sets && *sets; sets++)
    cr_assert_eq(acs_platform_set_kv(&p, *sets, d), ACS_OK, "%s", d->msg);
  err = acs_workload_build(w, &p, g, d);
  acs_workload_free(w);
  return err;
}

static void assert_refused(int err, const struct acs_diag *d, const char *limit)
{
  char want[64];

  snprintf(want, sizeof(want), "the limit %s", limit);
  cr_assert_eq(err, ACS_ELIMIT, "expected ELIMIT, got %s: %s", acs_err_name(err), d->msg);
  cr_assert_not_null(strstr(d->msg, want), "'%s' does not name %s", d->msg, want);
  cr_assert_not_null(strstr(d->msg, "--max"), "'%s' does not say how to raise it", d->msg);
}

/* ---- the limits themselves ---- */

Test(limits, defaults_keys_and_setting)
{
  struct acs_diag d;

  cr_assert_str_eq(acs_limit_key(ACS_LIMIT_OPS), "ops");
  cr_assert_str_eq(acs_limit_key(ACS_LIMIT_EDGES), "edges");
  cr_assert_str_eq(acs_limit_key(ACS_LIMIT_BYTES), "bytes");
  cr_assert_str_eq(acs_limit_key(ACS_LIMIT_ISL_OPS), "isl_ops");
  cr_assert_eq(acs_limit_get(ACS_LIMIT_OPS), 2097152);
  cr_assert_eq(acs_limit_get(ACS_LIMIT_EDGES), 8388608);
  cr_assert_eq(acs_limit_get(ACS_LIMIT_BYTES), 1073741824);
  cr_assert_eq(acs_limit_get(ACS_LIMIT_ISL_OPS), 5000000);
  acs_diag_init(&d);
  cr_assert_eq(acs_limit_set_kv("edges=12", &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_limit_get(ACS_LIMIT_EDGES), 12);
  cr_assert_eq(acs_limit_set_kv("opps=3", &d), ACS_ENOTFOUND);
  cr_assert_not_null(strstr(d.msg, "the limits are ops, edges, bytes, isl_ops"), "%s", d.msg);
  cr_assert_eq(acs_limit_set_kv("ops=0", &d), ACS_ERANGE);
  cr_assert_eq(acs_limit_set_kv("ops=4611686018427387905", &d), ACS_ERANGE);
  cr_assert_eq(acs_limit_set_kv("ops=1e6", &d), ACS_EPARSE);
  cr_assert_eq(acs_limit_set_kv("ops", &d), ACS_EPARSE);
  cr_assert_eq(acs_limit_get(ACS_LIMIT_OPS), 2097152, "a refused value changed the limit");
  acs_limits_reset();
  cr_assert_eq(acs_limit_get(ACS_LIMIT_EDGES), 8388608);
}

Test(limits, check_names_the_amount_the_limit_and_the_place)
{
  struct acs_diag d;

  acs_diag_init(&d);
  acs_limit_set(ACS_LIMIT_OPS, 10);
  cr_assert_eq(acs_limit_check(ACS_LIMIT_OPS, 10, &d, "f", 1, 2, "x"), ACS_OK);
  cr_assert_eq(acs_limit_check(ACS_LIMIT_OPS, 11, &d, "f.xml", 3, 4, "a %s", "run"),
               ACS_ELIMIT);
  cr_assert_str_eq(d.msg, "a run would need 11 ops, more than the limit ops=10 "
                          "(--max ops=N raises it)");
  cr_assert_str_eq(d.file, "f.xml");
  cr_assert_eq(d.line, 3);
  cr_assert_eq(d.col, 4);
}

/* A graph's bytes: 188 + 16 per resource per op (two records of 56 bytes,
 * a name, its index slots, CSR offsets and its place in the order), 32 per
 * edge (two records of 12 bytes, two CSR entries). */
Test(limits, graph_cost_by_hand_and_saturating)
{
  struct acs_diag d;

  cr_assert_eq(acs_graph_cost_bytes(1000, 0, 3), 1000 * (188 + 48));
  cr_assert_eq(acs_graph_cost_bytes(0, 1000, 3), 32000);
  cr_assert_eq(acs_graph_cost_bytes(INT64_MAX / 2, 1, 1), INT64_MAX);
  acs_diag_init(&d);
  /* 2^21 ops on 128 resources: 2^21 x (188 + 2048) bytes, beyond 1 GiB. */
  assert_refused(acs_graph_check_cost(2097152, 0, 128, &d, "g", 0, 0, "it"), &d, "bytes");
  cr_assert_eq(acs_graph_check_cost(2097152, 8388608 - 2097152, 3, &d, "g", 0, 0, "it"), ACS_OK,
               "%s", d.msg);
}

/* ---- SDF: rates that ask for millions of firings ---- */

/* Two actors a -> b, a producing `out` tokens a firing, b consuming one:
 * q = (1, out), out + 1 firings. */
static const char *sdf_rates(int64_t out)
{
  static char text[2048];

  snprintf(text, sizeof(text),
           "<?xml version=\"1.0\"?>\n<sdf3 type=\"sdf\" version=\"1.0\">\n"
           "<applicationGraph name=\"g\"><sdf name=\"g\" type=\"g\">\n"
           "<actor name=\"a\" type=\"A\"><port name=\"o\" type=\"out\" rate=\"%lld\"/></actor>\n"
           "<actor name=\"b\" type=\"B\"><port name=\"i\" type=\"in\" rate=\"1\"/></actor>\n"
           "<channel name=\"c\" srcActor=\"a\" srcPort=\"o\" dstActor=\"b\" dstPort=\"i\"/>\n"
           "</sdf><sdfProperties>\n"
           "<actorProperties actor=\"a\"><processor type=\"p\" default=\"true\">"
           "<executionTime time=\"1\"/></processor></actorProperties>\n"
           "<actorProperties actor=\"b\"><processor type=\"p\" default=\"true\">"
           "<executionTime time=\"1\"/></processor></actorProperties>\n"
           "</sdfProperties></applicationGraph></sdf3>\n", (long long)out);
  return write_text("rates.xml", text);
}

Test(limits, sdf_reproducer_is_refused_before_anything_is_built)
{
  struct acs_graph g;
  struct acs_diag d;
  int err = load_build(tu_path("tests/fuzz/repro/sdf3/rates-1-19999999.xml"), NULL, &g, &d);

  /* 1 + 19,999,999 firings: refused by the reader, at actor b (line 6). */
  assert_refused(err, &d, "ops=2097152");
  cr_assert_not_null(strstr(d.msg, "would need 20000000 ops"), "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "actor 'b' fires 19999999 times"), "%s", d.msg);
  cr_assert_eq(d.line, 6, "%d", d.line);
}

Test(limits, sdf_firings_up_to_the_limit_are_built_exactly)
{
  struct acs_graph g;
  struct acs_diag d;

  acs_limit_set(ACS_LIMIT_OPS, 1000);
  /* 999 + 1 firings fit; b's 999 firings each read one token of a#0. */
  cr_assert_eq(load_build(sdf_rates(999), NULL, &g, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(g.nops, 1000);
  cr_assert_eq(g.nedges, 999);
  acs_graph_destroy(&g);
  assert_refused(load_build(sdf_rates(1000), NULL, &g, &d), &d, "ops=1000");
}

/* Rates of 2^39 tokens a firing: one firing each side, one edge. The
 * builder jumps from producer to producer; token by token it would visit
 * 2^39 tokens. */
Test(limits, sdf_huge_rates_cost_their_firings_not_their_tokens)
{
  static const char text[] =
    "<?xml version=\"1.0\"?>\n<sdf3 type=\"sdf\" version=\"1.0\">\n"
    "<applicationGraph name=\"g\"><sdf name=\"g\" type=\"g\">\n"
    "<actor name=\"a\" type=\"A\"><port name=\"o\" type=\"out\" rate=\"549755813888\"/></actor>\n"
    "<actor name=\"b\" type=\"B\"><port name=\"i\" type=\"in\" rate=\"549755813888\"/></actor>\n"
    "<channel name=\"c\" srcActor=\"a\" srcPort=\"o\" dstActor=\"b\" dstPort=\"i\"/>\n"
    "</sdf><sdfProperties>\n"
    "<actorProperties actor=\"a\"><processor type=\"p\" default=\"true\">"
    "<executionTime time=\"1\"/></processor></actorProperties>\n"
    "<actorProperties actor=\"b\"><processor type=\"p\" default=\"true\">"
    "<executionTime time=\"1\"/></processor></actorProperties>\n"
    "</sdfProperties></applicationGraph></sdf3>\n";
  struct acs_graph g;
  struct acs_diag d;

  cr_assert_eq(load_build(write_text("huge.xml", text), NULL, &g, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(g.nops, 2);
  cr_assert_eq(g.nedges, 1);
  acs_graph_destroy(&g);
}

/* A chain of n actors, each producing 8 tokens a firing for its successor
 * that consumes 1: q = 1, 8, 64, ... 8^(n-1). */
static const char *sdf_chain(int n)
{
  static char text[16384];
  size_t used = 0;

  used += (size_t)snprintf(text + used, sizeof(text) - used,
                           "<sdf3 type=\"sdf\"><applicationGraph name=\"c\"><sdf name=\"c\" type=\"c\">\n");
  for (int i = 0; i < n; i++)
    used += (size_t)snprintf(text + used, sizeof(text) - used,
                             "<actor name=\"a%d\" type=\"A\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
                             "<port name=\"o\" type=\"out\" rate=\"8\"/></actor>\n", i);
  for (int i = 0; i + 1 < n; i++)
    used += (size_t)snprintf(text + used, sizeof(text) - used,
                             "<channel name=\"c%d\" srcActor=\"a%d\" srcPort=\"o\" dstActor=\"a%d\" "
                             "dstPort=\"i\"/>\n", i, i, i + 1);
  used += (size_t)snprintf(text + used, sizeof(text) - used, "</sdf><sdfProperties>\n");
  for (int i = 0; i < n; i++)
    used += (size_t)snprintf(text + used, sizeof(text) - used,
                             "<actorProperties actor=\"a%d\"><processor type=\"p\" default=\"true\">"
                             "<executionTime time=\"1\"/></processor></actorProperties>\n", i);
  snprintf(text + used, sizeof(text) - used, "</sdfProperties></applicationGraph></sdf3>\n");
  return write_text("chain.xml", text);
}

Test(limits, sdf_more_actors)
{
  struct acs_graph g;
  struct acs_diag d;

  /* 7 actors: 1 + 8 + ... + 8^6 = 299,593 firings, accepted; the last
   * actor reads its input and the first's from DDR. */
  cr_assert_eq(load_build(sdf_chain(7), NULL, &g, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(g.nops, 299593);
  /* each firing of a(i+1) reads one token of one a(i) firing */
  cr_assert_eq(g.nedges, 299593 - 1);
  acs_graph_destroy(&g);
  /* 8 actors: 2,396,745 firings; 20: about 1.6 x 10^17, still counted
   * exactly (no overflow), and refused the same way. */
  assert_refused(load_build(sdf_chain(8), NULL, &g, &d), &d, "ops=2097152");
  assert_refused(load_build(sdf_chain(20), NULL, &g, &d), &d, "ops=2097152");
}

/*
 * The edge bound counts what the deadlock check walks too: every firing
 * of an actor per channel it reads, DDR inputs included. a -> b with q(b)
 * = 2^17 = 131072 (a produces 131072 tokens a firing) and k more input
 * ports of b left unconnected (graph inputs in DDR): 1 + 131072 for the
 * channel, 131072 per DDR input. With k = 63 that is 8,388,609, one over
 * the limit; with k = 62, 8,257,537.
 */
static const char *sdf_ddr_inputs(int k)
{
  static char text[16384];
  size_t used = 0;

  used += (size_t)snprintf(text + used, sizeof(text) - used,
                           "<sdf3 type=\"sdf\"><applicationGraph name=\"g\"><sdf name=\"g\" type=\"g\">\n"
                           "<actor name=\"a\" type=\"A\"><port name=\"o\" type=\"out\" rate=\"131072\"/></actor>\n"
                           "<actor name=\"b\" type=\"B\"><port name=\"i\" type=\"in\" rate=\"1\"/>");
  for (int i = 0; i < k; i++)
    used += (size_t)snprintf(text + used, sizeof(text) - used,
                             "<port name=\"d%d\" type=\"in\" rate=\"1\"/>", i);
  snprintf(text + used, sizeof(text) - used,
           "</actor>\n<channel name=\"c\" srcActor=\"a\" srcPort=\"o\" dstActor=\"b\" dstPort=\"i\"/>\n"
           "</sdf><sdfProperties>\n"
           "<actorProperties actor=\"a\"><processor type=\"p\" default=\"true\">"
           "<executionTime time=\"1\"/></processor></actorProperties>\n"
           "<actorProperties actor=\"b\"><processor type=\"p\" default=\"true\">"
           "<executionTime time=\"1\"/></processor></actorProperties>\n"
           "</sdfProperties></applicationGraph></sdf3>\n");
  return write_text("ddr.xml", text);
}

Test(limits, sdf_edge_bound_counts_every_channel_a_firing_reads)
{
  struct acs_sdf_graph g;
  struct acs_diag d;
  int64_t ops, edges;

  acs_diag_init(&d);
  cr_assert_eq(acs_sdf3_read(sdf_ddr_inputs(62), &g, &d), ACS_OK, "%s", d.msg);
  acs_sdf_cost(&g, &ops, &edges);
  cr_assert_eq(ops, 131073);
  cr_assert_eq(edges, 131073 + 62 * 131072);
  acs_sdf_destroy(&g);
  assert_refused(acs_sdf3_read(sdf_ddr_inputs(63), &g, &d), &d, "edges=8388608");
  cr_assert_not_null(strstr(d.msg, "would need 8388609 edges"), "%s", d.msg);
}

/* The bound holds: on every shipped SDF graph (absorbed tokens included)
 * the DAG has exactly the firings counted and at most the edges bounded. */
Test(limits, sdf_cost_bounds_every_shipped_graph)
{
  static const char *const files[] = {
    "workloads/sdf/canny.xml", "workloads/sdf/difference.xml", "workloads/sdf/hdr.xml",
    "workloads/sdf/hdr2.xml", "workloads/sdf/histeq.xml", "workloads/sdf/verification.xml",
    "tests/data/sdf/modem.xml", "tests/data/sdf/samplerate.xml",
    "tests/data/sdf/csdf_simple_example.xml", "tests/data/sdf/h263decoder.xml"};

  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    struct acs_sdf_graph g;
    struct acs_graph dag;
    struct acs_diag d;
    int64_t ops, edges;
    acs_diag_init(&d);
    cr_assert_eq(acs_sdf3_read(tu_path(files[i]), &g, &d), ACS_OK, "%s: %s", files[i], d.msg);
    cr_assert_eq(acs_sdf_build_dag(&g, &dag, &d), ACS_OK, "%s: %s", files[i], d.msg);
    acs_sdf_cost(&g, &ops, &edges);
    cr_assert_eq(ops, dag.nops, "%s", files[i]);
    cr_assert_geq(edges, dag.nedges, "%s: bound %lld < %d edges", files[i], (long long)edges,
                  (int)dag.nedges);
    acs_graph_destroy(&dag);
    acs_sdf_destroy(&g);
  }
}

Test(limits, sdf_build_stops_on_an_interrupt)
{
  static volatile sig_atomic_t flag;
  struct acs_graph g;
  struct acs_diag d;

  flag = 1;
  acs_interrupt_flag_set(&flag);
  /* 300,000 firings: the reader's deadlock check polls the flag. */
  cr_assert_eq(load_build(sdf_rates(299999), NULL, &g, &d), ACS_EINTERRUPTED);
  acs_interrupt_flag_set(NULL);
}

/* ---- affine systems: domains whose bounding box dwarfs their points ---- */

/* n variables (the first an input), each a two-wide band i <= j <= i + 1
 * across a (N+1) x (N+1) box, each reading the one before: (N+1) + N =
 * 2N + 1 points per variable. */
static const char *sare_bands(int n, int64_t big_n)
{
  static char text[65536];
  size_t used = 0;

  used += (size_t)snprintf(text + used, sizeof(text) - used,
                           "params [N] -> { : N >= 1 }\nbind N = %lld\n"
                           "input { V0[i,j] : 0 <= i, j <= N and i <= j <= i + 1 }\n",
                           (long long)big_n);
  for (int v = 1; v < n; v++)
    used += (size_t)snprintf(text + used, sizeof(text) - used,
                             "output { V%d[i,j] : 0 <= i, j <= N and i <= j <= i + 1 } delay 1\n"
                             "read { V%d[i,j] -> V%d[i,j] }\n", v, v, v - 1);
  return write_text("bands.sare", text);
}

Test(limits, sare_reproducer_builds_what_it_holds)
{
  struct acs_graph g;
  struct acs_diag d;

  /* Eight computed variables of 2 x 8191 + 1 = 16,383 points; seven of
   * them read a computed one (V1 reads the input A): 7 x 16,383 edges. */
  cr_assert_eq(load_build(tu_path("tests/fuzz/repro/sare/bands-9x8192.sare"), NULL, &g, &d),
               ACS_OK, "%s", d.msg);
  cr_assert_eq(g.nops, 8 * 16383);
  cr_assert_eq(g.nedges, 7 * 16383);
  acs_graph_destroy(&g);
}

Test(limits, sare_instances_are_enumerated_not_their_box)
{
  struct acs_sare *m;
  struct acs_sare_inst in;
  struct acs_diag d;
  int64_t total = 0;

  acs_diag_init(&d);
  cr_assert_eq(acs_sare_read(tu_path("tests/fuzz/repro/sare/bands-9x8192.sare"), &m, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(acs_sare_inst_build(m, NULL, &in, &d), ACS_OK, "%s", d.msg);
  for (int32_t v = 0; v < in.nvars; v++) {
    /* the band's points, first and last: (0,0) and (8191,8191) */
    cr_assert_eq(in.var[v].count, 16383);
    cr_assert_eq(in.var[v].pt[0], 0);
    cr_assert_eq(in.var[v].pt[2 * 16383 - 1], 8191);
    total += in.var[v].count;
  }
  cr_assert_eq(total, 9 * 16383);
  acs_sare_inst_free(&in);
  acs_sare_free(m);
}

Test(limits, sare_instances_are_capped_across_variables)
{
  struct acs_graph g;
  struct acs_diag d;

  /* N = 511: 1023 points a variable. 97 variables hold 99,231 points, 98
   * hold 100,254: the cap counts every variable's points together. */
  acs_limit_set(ACS_LIMIT_OPS, 100000);
  cr_assert_eq(load_build(sare_bands(97, 511), NULL, &g, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(g.nops, 96 * 1023);
  acs_graph_destroy(&g);
  assert_refused(load_build(sare_bands(98, 511), NULL, &g, &d), &d, "ops=100000");
  cr_assert_not_null(strstr(d.msg, "hold more than 100000 instances"), "%s", d.msg);
  /* a larger box: 2 x 2^20 - 1 points for one variable alone */
  assert_refused(load_build(sare_bands(2, 1048575), NULL, &g, &d), &d, "ops=100000");
}

/* i ranges over a million values but only multiples of 1000 (and one
 * more) have a j: the dead ends are counted steps, refused past 256 per
 * op of the limit, and accepted within it. */
Test(limits, sare_dead_ends_are_counted)
{
  static const char text[] =
    "params [N] -> { : N >= 1 }\nbind N = 1000000\n"
    "output { F[i,j] : 0 <= i, j <= N and 1000 j <= i <= 1000 j + 1 } delay 1\n";
  struct acs_graph g;
  struct acs_diag d;

  /* points: i = 1000 j or 1000 j + 1 for j = 0..999, and i = 10^6 */
  cr_assert_eq(load_build(write_text("f.sare", text), NULL, &g, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(g.nops, 2001);
  acs_graph_destroy(&g);
  acs_limit_set(ACS_LIMIT_OPS, 2001);
  assert_refused(load_build(write_text("f.sare", text), NULL, &g, &d), &d, "ops=2001");
  cr_assert_not_null(strstr(d.msg, "enumerating the instances of 'F' takes more than"), "%s",
                     d.msg);
}

/* isl's work is counted by isl: matmul.sare reads in about 8,000
 * operations; with 1,000 allowed the reader stops at a statement, and its
 * instances, read with the default, cannot be enumerated with 100. */
Test(limits, sare_isl_work_is_bounded)
{
  struct acs_sare *m;
  struct acs_sare_inst in;
  struct acs_diag d;
  int64_t n[] = {4};

  acs_diag_init(&d);
  acs_limit_set(ACS_LIMIT_ISL_OPS, 1000);
  assert_refused(acs_sare_read(tu_path("workloads/affine/matmul.sare"), &m, &d), &d,
                 "isl_ops=1000");
  cr_assert_gt(d.line, 6, "located at a statement, line %d", d.line);
  acs_limits_reset();
  cr_assert_eq(acs_sare_read(tu_path("workloads/affine/matmul.sare"), &m, &d), ACS_OK, "%s",
               d.msg);
  acs_limit_set(ACS_LIMIT_ISL_OPS, 100);
  assert_refused(acs_sare_inst_build(m, n, &in, &d), &d, "isl_ops=100");
  acs_limits_reset();
  /* the bound is lifted after each phase: the model still enumerates */
  cr_assert_eq(acs_sare_inst_build(m, n, &in, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(in.nops, 64);
  acs_sare_inst_free(&in);
  acs_sare_free(m);
}

/* ---- loops unrolled ---- */

Test(limits, loop_iterations_against_the_limit)
{
  static const char *const it55[] = {"loop_iterations=55", NULL};
  static const char *const it56[] = {"loop_iterations=56", NULL};
  struct acs_graph g;
  struct acs_diag d;

  /* fir3: 18 graph ops an iteration (README "Loop workloads"): 55
   * iterations are 990 ops, 56 are 1008. */
  acs_limit_set(ACS_LIMIT_OPS, 1000);
  cr_assert_eq(load_build(tu_path("workloads/loops/fir3.csv"), it55, &g, &d), ACS_OK, "%s",
               d.msg);
  cr_assert_eq(g.nops, 990);
  acs_graph_destroy(&g);
  assert_refused(load_build(tu_path("workloads/loops/fir3.csv"), it56, &g, &d), &d,
                 "ops=1000");
  cr_assert_not_null(strstr(d.msg, "56 iterations of loop 'fir3' (18 ops each"), "%s", d.msg);
}

/* ---- readers of explicit graphs ---- */

Test(limits, declared_counts_are_refused_at_their_line)
{
  struct acs_graph g;
  struct acs_diag d;

  acs_limit_set(ACS_LIMIT_OPS, 10);
  /* STG: 9 tasks and the two dummies are 11 ops, at the count (1:1). */
  assert_refused(load_build(write_text("t.stg", "9\n"), NULL, &g, &d), &d, "ops=10");
  cr_assert_eq(d.line, 1);
  cr_assert_eq(d.col, 1);
  /* PSPLIB: the jobs line of j301_1 declares 32. */
  assert_refused(load_build(tu_path("tests/data/load/j301_1.sm"), NULL, &g, &d), &d, "ops=10");
  cr_assert_not_null(strstr(d.msg, "a project of 32 jobs"), "%s", d.msg);
  /* op-graph CSV: the 11th op's row (after the header, line 12). */
  {
    char text[512];
    size_t used = (size_t)snprintf(text, sizeof(text), "name,cycles\n");
    for (int i = 0; i < 11; i++)
      used += (size_t)snprintf(text + used, sizeof(text) - used, "op%d,1\n", i);
    assert_refused(load_build(write_text("g.csv", text), NULL, &g, &d), &d, "ops=10");
    cr_assert_eq(d.line, 12);
  }
}

/* ---- DNN builders (core/load/layer_build.c, core/load/dnn.c) ---- */

/*
 * One Relu on [1, 2^36]: 59 bytes that made the layer-graph builder search
 * its tiling quadratically (never ending). It must end within the limits:
 * built within them, or refused naming one.
 */
static void onnx_relu_ends(int64_t n)
{
  uint8_t model[64];
  size_t len = acs_fuzz_relu_model(n, model, sizeof(model));
  struct acs_graph g;
  struct acs_diag d;
  int err;

  cr_assert_gt(len, 0);
  err = load_build(write_tmp("relu.onnx", (const char *)model, len), NULL, &g, &d);
  if (err == ACS_OK) {
    cr_assert_leq(g.nops, acs_limit_get(ACS_LIMIT_OPS));
    cr_assert_leq(g.nedges, acs_limit_get(ACS_LIMIT_EDGES));
    acs_graph_destroy(&g);
  } else {
    assert_refused(err, &d, "");
  }
}

Test(limits, onnx_reproducer_file_is_the_relu_model)
{
  uint8_t model[64];
  size_t len = acs_fuzz_relu_model(INT64_C(1) << 36, model, sizeof(model));
  FILE *f = fopen(tu_path("tests/fuzz/repro/onnx-build/relu-1x2e36.onnx"), "rb");
  uint8_t file[128];
  size_t n;

  cr_assert_not_null(f);
  n = fread(file, 1, sizeof(file), f);
  fclose(f);
  cr_assert_eq(n, len);
  cr_assert_eq(memcmp(file, model, len), 0);
}

Test(limits, onnx_reproducer_loads)
{
  struct acs_workload *w;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(tu_path("tests/fuzz/repro/onnx-build/relu-1x2e36.onnx"), &w,
                                 &d), ACS_OK, "%s", d.msg);
  acs_workload_free(w);
}

Test(limits, onnx_reproducer_ends_within_the_limits)
{
  onnx_relu_ends(INT64_C(1) << 36);
  /* larger shapes */
  onnx_relu_ends(INT64_C(1) << 40);
  onnx_relu_ends(INT64_C(1) << 50);
}

Test(limits, scalesim_tall_table_ends_within_the_limits)
{
  static const char *const small_cmx[] = {"cmx_kib=16", NULL};
  struct acs_graph g;
  struct acs_diag d;
  int err;

  /* 10^9 rows of 8 pixels: 2.9 M ops at 16 KiB of CMX, built whole. */
  err = load_build(tu_path("tests/fuzz/repro/scalesim/tall-1e9.csv"), small_cmx, &g, &d);
  if (err == ACS_OK) {
    cr_assert_leq(g.nops, acs_limit_get(ACS_LIMIT_OPS));
    acs_graph_destroy(&g);
  } else {
    assert_refused(err, &d, "");
  }
}
