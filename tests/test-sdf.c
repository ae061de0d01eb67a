/*
 * test-sdf.c - the (C)SDF model and the SDF3 reader (seed 004): the shared
 * SDF3 benchmark graphs read unchanged with repetition vectors derived by
 * hand or checked against the balance equations, CSDF phases and the n*v
 * syntax, the filter token arithmetic (need/release windows), located
 * errors for every class of bad input (malformed XML, missing attributes,
 * unknown names, inconsistent rates naming the channel, deadlocks, external
 * entities), the firing DAG, and the maximal throughput by self-timed
 * execution checked against the maximum cycle ratio of the HSDF expansion
 * on the SDF3 graphs and on hand-made graphs with known throughput.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/graph.h"
#include "core/model/sdf.h"
#include "tests/testutil.h"

#define SD(name) tu_path("tests/data/sdf/" name)

/* ---- helpers ---- */

static void read_ok(const char *path, struct acs_sdf_graph *g)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = acs_sdf3_read(path, g, &d);
  cr_assert_eq(err, ACS_OK, "%s: %s (line %d)", path, d.msg, d.line);
}

/* Reads text expecting error `want` at `line` with `msg` in the message. */
static void read_fails(const char *text, int want, int line, const char *msg)
{
  const char *path = tu_write_tmp("bad.xml", text);
  struct acs_sdf_graph g;
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = acs_sdf3_read(path, &g, &d);
  cr_assert_eq(err, want, "expected %s, got %s (%s)", acs_err_name(want), acs_err_name(err), d.msg);
  cr_assert_eq(d.line, line, "error at line %d, expected %d: %s", d.line, line, d.msg);
  cr_assert(strstr(d.msg, msg) != NULL, "message '%s' lacks '%s'", d.msg, msg);
  cr_assert(strstr(d.file, "bad.xml") != NULL, "file '%s'", d.file);
}

static int64_t q_of(const struct acs_sdf_graph *g, const char *name)
{
  int32_t a = acs_sdf_find_actor(g, name);
  cr_assert_geq(a, 0, "no actor %s", name);
  return g->actors[a].q;
}

/* A graph text: actors and channels inside <sdf>, properties inside
 * <sdfProperties>. */
static char *graph_text(const char *body, const char *props)
{
  static char buf[16384];

  snprintf(buf, sizeof(buf),
           "<?xml version=\"1.0\"?>\n<sdf3 type=\"sdf\" version=\"1.0\">\n"
           "<applicationGraph name=\"t\">\n<sdf name=\"t\" type=\"T\">\n%s</sdf>\n"
           "<sdfProperties>\n%s</sdfProperties>\n</applicationGraph>\n</sdf3>\n",
           body, props);
  return buf;
}

#define EXEC(a, t) "<actorProperties actor=\"" a "\"><processor type=\"p\" default=\"true\">" \
                   "<executionTime time=\"" t "\"/></processor></actorProperties>\n"

/* ---- the shared SDF3 graphs ---- */

Test(sdf, samplerate_repetition_vector_by_hand)
{
  struct acs_sdf_graph g;

  /* a->b 1:1, b->c 2:3, c->d 2:7, d->e 8:7, e->f 5:1: with r(d) = 28,
   * c = 7*28/2 = 98, b = a = 3*98/2 = 147, e = 8*28/7 = 32, f = 5*32. */
  read_ok(SD("samplerate.xml"), &g);
  cr_assert_eq(q_of(&g, "a"), 147);
  cr_assert_eq(q_of(&g, "b"), 147);
  cr_assert_eq(q_of(&g, "c"), 98);
  cr_assert_eq(q_of(&g, "d"), 28);
  cr_assert_eq(q_of(&g, "e"), 32);
  cr_assert_eq(q_of(&g, "f"), 160);
  cr_assert_eq(g.total_firings, 147 + 147 + 98 + 28 + 32 + 160);
  acs_sdf_destroy(&g);
}

Test(sdf, csdf_example_phases_and_vector)
{
  struct acs_sdf_graph g;

  /* a produces 3,1 per cycle of two phases (4), b consumes 4,2 (6): r(a) 4
   * = r(b) 6 -> r = (3, 2); b produces 2,4 (6), c consumes 6,6 (12): r(c)
   * = 1. Firings q = 2 r = (6, 4, 2). */
  read_ok(SD("csdf_simple_example.xml"), &g);
  cr_assert_eq(g.actors[acs_sdf_find_actor(&g, "a")].nphases, 2);
  cr_assert_eq(q_of(&g, "a"), 6);
  cr_assert_eq(q_of(&g, "b"), 4);
  cr_assert_eq(q_of(&g, "c"), 2);
  cr_assert_eq(acs_sdf_exec(&g, acs_sdf_find_actor(&g, "a"), 1), 3);
  cr_assert_eq(acs_sdf_exec(&g, acs_sdf_find_actor(&g, "a"), 2), 1);
  acs_sdf_destroy(&g);
}

Test(sdf, h263_vector_and_token_sizes)
{
  struct acs_sdf_graph g;

  read_ok(SD("h263decoder.xml"), &g);
  cr_assert_eq(q_of(&g, "vld"), 1);
  cr_assert_eq(q_of(&g, "iq"), 594);
  cr_assert_eq(q_of(&g, "idct"), 594);
  cr_assert_eq(q_of(&g, "mc"), 1);
  cr_assert_eq(g.channels[acs_sdf_find_channel(&g, "mc2mc")].token_bytes, 304128);
  /* The first processor marked default is taken: vld's "arm" at 26018. */
  cr_assert_eq(acs_sdf_exec(&g, acs_sdf_find_actor(&g, "vld"), 0), 26018);
  acs_sdf_destroy(&g);
}

/* Every channel balances and each component's vector is the smallest. */
static void assert_balanced(const struct acs_sdf_graph *g)
{
  for (int32_t c = 0; c < g->nchannels; c++) {
    const struct acs_sdf_channel *ch = &g->channels[c];
    if (ch->src < 0 || ch->dst < 0)
      continue;
    int64_t made = acs_sdf_seq_cum(&g->ports[ch->sport].rate, g->actors[ch->src].q);
    int64_t used = acs_sdf_seq_cum(&g->ports[ch->dport].rate, g->actors[ch->dst].q);
    cr_assert_eq(made, used, "channel %s: %lld made, %lld used per iteration", ch->name,
                 (long long)made, (long long)used);
  }
}

Test(sdf, every_shared_graph_reads_unchanged_and_balances)
{
  static const char *const files[] = { "modem.xml", "satellite.xml",
    "mp3decoder_granule_parallelism.xml", "samplerate.xml", "h263decoder.xml",
    "csdf_simple_example.xml" };

  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    char rel[256];
    struct acs_sdf_graph g;
    snprintf(rel, sizeof(rel), "tests/data/sdf/%s", files[i]);
    read_ok(tu_path(rel), &g);
    assert_balanced(&g);
    acs_sdf_destroy(&g);
  }
}

Test(sdf, workload_kind_and_firing_dag)
{
  struct acs_workload *w;
  struct acs_graph dag;
  struct acs_platform p;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(SD("csdf_simple_example.xml"), &w, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(w->kind, ACS_WL_SDF);
  acs_platform_init(&p);
  cr_assert_eq(acs_workload_build(w, &p, &dag, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(dag.nops, 12);
  cr_assert_eq(acs_graph_find_op(&dag, "b#3"), 6 + 3);
  /* b's firing 0 consumes 4 tokens of alpha, made by a's firings 0 (3) and
   * 1 (1): two edges into b#0 from alpha, plus d2's initial token. */
  {
    int32_t b0 = acs_graph_find_op(&dag, "b#0"), n = 0;
    for (int32_t k = dag.pred_off[b0]; k < dag.pred_off[b0 + 1]; k++)
      n++;
    cr_assert_eq(n, 2);
  }
  acs_graph_destroy(&dag);
  acs_workload_free(w);
}

/* ---- filters: need and release windows ---- */

Test(sdf, filter_windows_follow_the_seed)
{
  struct acs_sdf_graph g;
  const char *txt = graph_text(
    "<actor name=\"s\" type=\"S\"><port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
    "<actor name=\"f\" type=\"F\"><port name=\"i\" type=\"in\" rate=\"1\"/></actor>\n"
    "<channel name=\"c\" srcActor=\"s\" srcPort=\"o\" dstActor=\"f\" dstPort=\"i\"/>\n",
    EXEC("s", "1") EXEC("f", "1")
    "<actorProperties actor=\"f\"><acsimPort port=\"i\" absorb=\"1\"/></actorProperties>\n"
    "<graphProperties><acsim iterations=\"10\"/></graphProperties>\n");
  int32_t c;

  read_ok(tu_write_tmp("filter.xml", txt), &g);
  c = acs_sdf_find_channel(&g, "c");
  /* Seed 004, figure 2.5: the first firing needs two lines, each later
   * one a line more, the last none; nothing is released after the first,
   * one line after each later one, and everything after the last. */
  cr_assert_eq(acs_sdf_need(&g, c, 0), 2);
  cr_assert_eq(acs_sdf_need(&g, c, 4), 6);
  cr_assert_eq(acs_sdf_need(&g, c, 8), 10);
  cr_assert_eq(acs_sdf_need(&g, c, 9), 10);
  cr_assert_eq(acs_sdf_release(&g, c, 0), 0);
  cr_assert_eq(acs_sdf_release(&g, c, 1), 1);
  cr_assert_eq(acs_sdf_release(&g, c, 8), 8);
  cr_assert_eq(acs_sdf_release(&g, c, 9), 10);
  /* Firing k reads lines k-1, k, k+1: the window [release(k-1), need(k)). */
  cr_assert_eq(acs_sdf_release(&g, c, 4 - 1), 3);
  cr_assert_eq(acs_sdf_producer(&g, c, 7), 7);
  acs_sdf_destroy(&g);
}

Test(sdf, repeat_syntax_and_lcm_phases)
{
  struct acs_sdf_graph g;
  const char *txt = graph_text(
    "<actor name=\"h\" type=\"H\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
    "<port name=\"o\" type=\"out\" rate=\"5*0,1\"/></actor>\n"
    "<actor name=\"t\" type=\"T\"><port name=\"i\" type=\"in\" rate=\"1\"/></actor>\n"
    "<channel name=\"c\" srcActor=\"h\" srcPort=\"o\" dstActor=\"t\" dstPort=\"i\"/>\n",
    EXEC("h", "2,3") EXEC("t", "1"));

  read_ok(tu_write_tmp("rep.xml", txt), &g);
  /* h has sequences of 6 and 2 entries: 6 phases; one token per 6 firings. */
  cr_assert_eq(g.actors[acs_sdf_find_actor(&g, "h")].nphases, 6);
  cr_assert_eq(q_of(&g, "h"), 6);
  cr_assert_eq(q_of(&g, "t"), 1);
  cr_assert_eq(acs_sdf_exec(&g, acs_sdf_find_actor(&g, "h"), 3), 3);
  acs_sdf_destroy(&g);
}

/* ---- errors ---- */

Test(sdf, malformed_xml_is_located_by_libxml2)
{
  read_fails("<?xml version=\"1.0\"?>\n<sdf3>\n  <applicationGraph>\n  </sdf3>\n",
             ACS_EPARSE, 4, "mismatch");
}

Test(sdf, not_sdf3)
{
  read_fails("<?xml version=\"1.0\"?>\n<graphml/>\n", ACS_EFORMAT, 2, "not <sdf3>");
}

Test(sdf, missing_attribute)
{
  read_fails(graph_text("<actor type=\"A\"/>\n", ""), ACS_EPARSE, 5, "needs a 'name'");
}

Test(sdf, duplicate_actor)
{
  read_fails(graph_text("<actor name=\"a\" type=\"A\"/>\n<actor name=\"a\" type=\"A\"/>\n", ""),
             ACS_EPARSE, 6, "two actors are named 'a'");
}

Test(sdf, bad_rate)
{
  read_fails(graph_text("<actor name=\"a\" type=\"A\">\n<port name=\"o\" type=\"out\" rate=\"1,x\"/>"
                        "</actor>\n", ""), ACS_EPARSE, 6, "rate");
}

Test(sdf, unknown_actor_in_channel)
{
  read_fails(graph_text("<actor name=\"a\" type=\"A\"><port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
                        "<channel name=\"c\" srcActor=\"a\" srcPort=\"o\" dstActor=\"zz\" dstPort=\"i\"/>\n",
                        ""), ACS_EPARSE, 6, "dstActor 'zz' is not an actor");
}

Test(sdf, port_direction)
{
  read_fails(graph_text("<actor name=\"a\" type=\"A\"><port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
                        "<actor name=\"b\" type=\"B\"><port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
                        "<channel name=\"c\" srcActor=\"a\" srcPort=\"o\" dstActor=\"b\" dstPort=\"o\"/>\n",
                        ""), ACS_EPARSE, 7, "output port");
}

Test(sdf, inconsistent_graph_names_the_channel)
{
  /* a -> b twice with rates 1:1 and 2:1: no vector balances both. */
  read_fails(graph_text(
    "<actor name=\"a\" type=\"A\"><port name=\"o\" type=\"out\" rate=\"1\"/>"
    "<port name=\"p\" type=\"out\" rate=\"2\"/></actor>\n"
    "<actor name=\"b\" type=\"B\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
    "<port name=\"j\" type=\"in\" rate=\"1\"/></actor>\n"
    "<channel name=\"one\" srcActor=\"a\" srcPort=\"o\" dstActor=\"b\" dstPort=\"i\"/>\n"
    "<channel name=\"two\" srcActor=\"a\" srcPort=\"p\" dstActor=\"b\" dstPort=\"j\"/>\n",
    EXEC("a", "1") EXEC("b", "1")), ACS_EPARSE, 8, "inconsistent rates on channel 'two'");
}

Test(sdf, deadlock_names_actor_and_channel)
{
  read_fails(graph_text(
    "<actor name=\"a\" type=\"A\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
    "<port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
    "<actor name=\"b\" type=\"B\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
    "<port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
    "<channel name=\"ab\" srcActor=\"a\" srcPort=\"o\" dstActor=\"b\" dstPort=\"i\"/>\n"
    "<channel name=\"ba\" srcActor=\"b\" srcPort=\"o\" dstActor=\"a\" dstPort=\"i\"/>\n",
    EXEC("a", "1") EXEC("b", "1")), ACS_EPARSE, 8, "deadlock");
}

Test(sdf, deadlock_message_detail)
{
  const char *path = tu_write_tmp("dl.xml", graph_text(
    "<actor name=\"a\" type=\"A\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
    "<port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
    "<actor name=\"b\" type=\"B\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
    "<port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
    "<channel name=\"ab\" srcActor=\"a\" srcPort=\"o\" dstActor=\"b\" dstPort=\"i\"/>\n"
    "<channel name=\"ba\" srcActor=\"b\" srcPort=\"o\" dstActor=\"a\" dstPort=\"i\"/>\n",
    EXEC("a", "1") EXEC("b", "1")));
  struct acs_sdf_graph g;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_sdf3_read(path, &g, &d), ACS_EPARSE);
  cr_assert(strstr(d.msg, "actor 'a' stops after 0 of its 1 firings") != NULL, "%s", d.msg);
  cr_assert(strstr(d.msg, "channel 'ba'") != NULL, "%s", d.msg);
  cr_assert_eq(d.line, 8, "%d", d.line);
}

Test(sdf, one_initial_token_breaks_the_deadlock)
{
  struct acs_sdf_graph g;

  read_ok(tu_write_tmp("ok.xml", graph_text(
    "<actor name=\"a\" type=\"A\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
    "<port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
    "<actor name=\"b\" type=\"B\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
    "<port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n"
    "<channel name=\"ab\" srcActor=\"a\" srcPort=\"o\" dstActor=\"b\" dstPort=\"i\"/>\n"
    "<channel name=\"ba\" srcActor=\"b\" srcPort=\"o\" dstActor=\"a\" dstPort=\"i\" initialTokens=\"1\"/>\n",
    EXEC("a", "1") EXEC("b", "1"))), &g);
  acs_sdf_destroy(&g);
}

Test(sdf, missing_execution_time)
{
  read_fails(graph_text("<actor name=\"a\" type=\"A\"/>\n", ""), ACS_EPARSE, 5, "no execution time");
}

Test(sdf, unknown_acsim_attribute_is_an_error)
{
  read_fails(graph_text("<actor name=\"a\" type=\"A\"/>\n",
                        "<actorProperties actor=\"a\"><processor type=\"p\"><executionTime time=\"1\"/>"
                        "</processor>\n<acsim kernelsize=\"4\"/></actorProperties>\n"),
             ACS_EPARSE, 9, "unknown attribute 'kernelsize'");
}

Test(sdf, absorb_only_on_inputs)
{
  read_fails(graph_text("<actor name=\"a\" type=\"A\"><port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n",
                        "<actorProperties actor=\"a\"><processor type=\"p\"><executionTime time=\"1\"/>"
                        "</processor>\n<acsimPort port=\"o\" absorb=\"1\"/></actorProperties>\n"),
             ACS_EPARSE, 5, "only input ports absorb");
}

Test(sdf, bad_numbers_are_located)
{
  read_fails(graph_text("<actor name=\"a\" type=\"A\"/>\n",
                        "<actorProperties actor=\"a\"><processor type=\"p\"><executionTime time=\"1\"/>"
                        "</processor>\n<acsim kernelSize=\"-3\"/></actorProperties>\n"),
             ACS_ERANGE, 9, "out of range");
  read_fails(graph_text("<actor name=\"a\" type=\"A\"/>\n",
                        "<graphProperties>\n<acsim iterations=\"1e3\"/></graphProperties>\n"),
             ACS_EPARSE, 9, "not an integer");
}

Test(sdf, external_entities_are_not_expanded)
{
  /* An entity naming a file must neither be read nor reach the graph. */
  const char *txt =
    "<?xml version=\"1.0\"?>\n"
    "<!DOCTYPE sdf3 [<!ENTITY x SYSTEM \"file:///etc/hostname\">]>\n"
    "<sdf3><applicationGraph><sdf name=\"t\">\n"
    "<actor name=\"&x;\" type=\"A\"/>\n"
    "</sdf></applicationGraph></sdf3>\n";
  const char *path = tu_write_tmp("xxe.xml", txt);
  struct acs_sdf_graph g;
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = acs_sdf3_read(path, &g, &d);
  if (err == ACS_OK) {
    cr_assert(g.nactors == 1 && strlen(g.actors[0].name) == 0, "entity expanded to '%s'",
              g.nactors ? g.actors[0].name : "");
    acs_sdf_destroy(&g);
  } else {
    cr_assert(err == ACS_EPARSE, "%s", d.msg);
  }
}

Test(sdf, truncated_file)
{
  read_fails("<?xml version=\"1.0\"?>\n<sdf3 type=\"sdf\">\n<applicationGraph name=\"t\">\n<sdf na",
             ACS_EPARSE, 4, "");
}

/* ---- throughput ---- */

static void thr_both(const struct acs_sdf_graph *g, double *a, double *b, int *ua, int *ub)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_sdf_throughput_selftimed(g, 1000000, a, ua, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_sdf_throughput_mcr(g, 1000000, b, ub, &d), ACS_OK, "%s", d.msg);
}

Test(sdf, throughput_methods_agree_on_sdf3_graphs)
{
  static const char *const files[] = { "modem.xml", "satellite.xml",
    "mp3decoder_granule_parallelism.xml", "samplerate.xml", "h263decoder.xml",
    "csdf_simple_example.xml" };

  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    char rel[256];
    struct acs_sdf_graph g;
    double a, b;
    int ua, ub;
    snprintf(rel, sizeof(rel), "tests/data/sdf/%s", files[i]);
    read_ok(tu_path(rel), &g);
    thr_both(&g, &a, &b, &ua, &ub);
    cr_assert_eq(ua, ub, "%s", files[i]);
    cr_assert_float_eq(a, b, 1e-12 * (a > b ? a : b) + 1e-18, "%s: %.15g vs %.15g", files[i], a, b);
    acs_sdf_destroy(&g);
  }
}

Test(sdf, throughput_known_values)
{
  struct acs_sdf_graph g;
  double a, b;
  int ua, ub;

  /* samplerate: f fires 160 times per iteration, 6 cycles each, and a
   * self-edge keeps it sequential: 960 cycles per iteration. */
  read_ok(SD("samplerate.xml"), &g);
  thr_both(&g, &a, &b, &ua, &ub);
  cr_assert_float_eq(a, 1.0 / 960, 1e-15);
  acs_sdf_destroy(&g);
  /* h263: iq fires 594 times at 559 cycles, sequential: 332046. */
  read_ok(SD("h263decoder.xml"), &g);
  thr_both(&g, &a, &b, &ua, &ub);
  cr_assert_float_eq(a, 1.0 / 332046, 1e-18);
  acs_sdf_destroy(&g);
  /* The CSDF example: a's two phases take 1 and 3, six firings: 12. */
  read_ok(SD("csdf_simple_example.xml"), &g);
  thr_both(&g, &a, &b, &ua, &ub);
  cr_assert_float_eq(a, 1.0 / 12, 1e-15);
  acs_sdf_destroy(&g);
}

/* a <-> b with `tok` tokens on the back edge and optional self-edges. */
static void two_actor_cycle(int tok, int self, int ta, int tb, double want)
{
  char body[2048], props[1024];
  struct acs_sdf_graph g;
  double a, b;
  int ua, ub;

  snprintf(body, sizeof(body),
           "<actor name=\"a\" type=\"A\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
           "<port name=\"o\" type=\"out\" rate=\"1\"/><port name=\"si\" type=\"in\" rate=\"1\"/>"
           "<port name=\"so\" type=\"out\" rate=\"1\"/></actor>\n"
           "<actor name=\"b\" type=\"B\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
           "<port name=\"o\" type=\"out\" rate=\"1\"/><port name=\"si\" type=\"in\" rate=\"1\"/>"
           "<port name=\"so\" type=\"out\" rate=\"1\"/></actor>\n"
           "<channel name=\"ab\" srcActor=\"a\" srcPort=\"o\" dstActor=\"b\" dstPort=\"i\"/>\n"
           "<channel name=\"ba\" srcActor=\"b\" srcPort=\"o\" dstActor=\"a\" dstPort=\"i\" initialTokens=\"%d\"/>\n"
           "%s",
           tok, self ? "<channel name=\"aa\" srcActor=\"a\" srcPort=\"so\" dstActor=\"a\" dstPort=\"si\" initialTokens=\"1\"/>\n"
                       "<channel name=\"bb\" srcActor=\"b\" srcPort=\"so\" dstActor=\"b\" dstPort=\"si\" initialTokens=\"1\"/>\n"
                     : "<channel name=\"aa\" srcActor=\"a\" srcPort=\"so\" dstActor=\"a\" dstPort=\"si\" initialTokens=\"9\"/>\n"
                       "<channel name=\"bb\" srcActor=\"b\" srcPort=\"so\" dstActor=\"b\" dstPort=\"si\" initialTokens=\"9\"/>\n");
  snprintf(props, sizeof(props),
           "<actorProperties actor=\"a\"><processor type=\"p\"><executionTime time=\"%d\"/></processor></actorProperties>\n"
           "<actorProperties actor=\"b\"><processor type=\"p\"><executionTime time=\"%d\"/></processor></actorProperties>\n",
           ta, tb);
  read_ok(tu_write_tmp("cyc.xml", graph_text(body, props)), &g);
  thr_both(&g, &a, &b, &ua, &ub);
  cr_assert_float_eq(a, want, 1e-12, "self-timed %.12g, want %.12g", a, want);
  cr_assert_float_eq(b, want, 1e-12, "mcr %.12g, want %.12g", b, want);
  acs_sdf_destroy(&g);
}

Test(sdf, throughput_of_hand_made_cycles)
{
  /* One token around a cycle of 2 + 3 cycles: one iteration per 5. */
  two_actor_cycle(1, 1, 2, 3, 1.0 / 5);
  /* Two tokens: the cycle allows 2 per 5, but each actor is sequential
   * (self-edge) and b takes 3: one per 3. */
  two_actor_cycle(2, 1, 2, 3, 1.0 / 3);
  /* Two tokens, actors free to overlap (nine tokens on the self-edges do
   * not bind): the cycle alone, 2 per 5. */
  two_actor_cycle(2, 0, 2, 3, 2.0 / 5);
}

Test(sdf, acyclic_graph_is_unbounded)
{
  struct acs_sdf_graph g;
  double a, b;
  int ua, ub;

  read_ok(tu_path("workloads/sdf/difference.xml"), &g);
  thr_both(&g, &a, &b, &ua, &ub);
  cr_assert(ua && ub, "%d %d", ua, ub);
  acs_sdf_destroy(&g);
}
