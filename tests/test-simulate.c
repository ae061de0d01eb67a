/*
 * test-simulate.c - SimGrid platform XML, self-timed execution, isolation
 * and traces.
 *
 * Figures used below, for the default platform (700 MHz, dma_gbps 32,
 * ddr_ratio 4, ddr_latency_cycles 100, local_gbps 64):
 *   DDR link   8e9 B/s  = 80/7 B/cycle, so 1 MiB takes 1048576 * 7 / 80 = 91750.4 cycles;
 *   DMA link  32e9 B/s = 320/7 B/cycle: 1 MiB in 1048576 * 7 / 320 = 22937.6 cycles;
 *   PE link   64e9 B/s = 640/7 B/cycle: 1 MiB in 1048576 * 7 / 640 = 11468.8 cycles.
 * The planned duration of a 1 MiB DDR transfer is 100 + ceil(91750.4) = 91851.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <xbt/log.h>

#include "core/load/load.h"
#include "core/sched/barrier.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "simulate/sim_int.h"
#include "tests/testutil.h"

#define MIB 1048576
#define EPS 1e-6

/* A graph, its binding to a platform and a schedule to fill by hand. */
struct fix {
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
};

static int32_t dma_op(struct acs_graph *g, const char *name, int64_t bytes, int src, int dst)
{
  struct acs_op op;
  int32_t id;

  memset(&op, 0, sizeof(op));
  op.name = name;
  op.kind = ACS_OP_DMA;
  op.cycles = -1; /* derived from the bytes by the platform */
  op.bytes = bytes;
  op.src = (uint8_t)src;
  op.dst = (uint8_t)dst;
  op.slots = 1;
  id = acs_graph_add_op(g, &op);
  cr_assert_geq(id, 0);
  acs_graph_set_demand(g, id, TU_DMA, 1);
  return id;
}

static void bind(struct fix *f, const char *const *sets)
{
  tu_finalize(&f->g);
  tu_problem(&f->pb, &f->g, sets);
  cr_assert_eq(acs_schedule_init_problem(&f->s, &f->pb), ACS_OK);
}

static void place(struct fix *f, int32_t op, int unit, int64_t start)
{
  struct acs_sop *o = &f->s.ops[op];

  o->unit = unit;
  o->start = start;
  o->end = start + o->dur;
}

static void fix_destroy(struct fix *f)
{
  acs_schedule_destroy(&f->s);
  acs_problem_destroy(&f->pb);
  acs_graph_destroy(&f->g);
}

/* Runs the simulation, failing the test with its message on error. */
static void sim_ok(struct fix *f, struct acs_sim_result *r)
{
  struct acs_diag d;
  int err;

  acs_schedule_finish(&f->s);
  acs_diag_init(&d);
  err = acs_sim_run(&f->pb.plat, &f->s, NULL, r, &d);
  cr_assert_eq(err, ACS_OK, "acs_sim_run: %s: %s", acs_strerror(err), d.msg);
}

static void assert_near(double got, double want, const char *what)
{
  double diff = fabs(got - want);

  cr_assert_lt(diff, EPS, "%s: got %.9f, want %.9f", what, got, want);
}

/* ---- transfers ---- */

Test(simulate, uncontended_ddr_transfer_takes_latency_plus_bytes_over_ddr_bandwidth)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a;

  tu_graph_npu(&f.g, "one");
  a = dma_op(&f.g, "load", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  bind(&f, NULL);
  cr_assert_eq(f.s.ops[a].dur, 91851, "planned duration %lld", (long long)f.s.ops[a].dur);
  place(&f, a, 0, 0);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_start, 0.0, "start");
  assert_near(f.s.ops[a].sim_end, 100 + 91750.4, "end");
  assert_near(r.makespan_cycles, 91850.4, "makespan");
  cr_assert_eq(r.ddr_bytes, MIB);
  cr_assert_eq(r.ops_completed, 1);
  fix_destroy(&f);
}

Test(simulate, ddr_transfer_without_latency_takes_exactly_bytes_over_bandwidth)
{
  static const char *const sets[] = {"ddr_latency_cycles=0", NULL};
  struct fix f;
  struct acs_sim_result r;
  int32_t a;

  tu_graph_npu(&f.g, "one");
  a = dma_op(&f.g, "load", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  bind(&f, sets);
  place(&f, a, 0, 0);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 91750.4, "end");
  fix_destroy(&f);
}

Test(simulate, write_to_ddr_uses_the_same_link)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a;

  tu_graph_npu(&f.g, "one");
  a = dma_op(&f.g, "spill", MIB, ACS_MEM_CMX, ACS_MEM_DDR);
  bind(&f, NULL);
  place(&f, a, 1, 0);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 91850.4, "end");
  fix_destroy(&f);
}

Test(simulate, two_concurrent_ddr_transfers_take_twice_the_transfer_part)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b;

  tu_graph_npu(&f.g, "two");
  a = dma_op(&f.g, "a", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  b = dma_op(&f.g, "b", MIB, ACS_MEM_CMX, ACS_MEM_DDR);
  bind(&f, NULL);
  place(&f, a, 0, 0);
  place(&f, b, 1, 0);
  sim_ok(&f, &r);
  /* Both share the DDR link from the end of the latency on: 100 + 2 * 91750.4. */
  assert_near(f.s.ops[a].sim_end, 183600.8, "a end");
  assert_near(f.s.ops[b].sim_end, 183600.8, "b end");
  cr_assert_eq(r.ddr_bytes, 2 * MIB);
  fix_destroy(&f);
}

Test(simulate, cmx_to_cmx_transfer_uses_the_channel_bandwidth)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a;

  tu_graph_npu(&f.g, "local");
  a = dma_op(&f.g, "copy", MIB, ACS_MEM_CMX, ACS_MEM_CMX);
  bind(&f, NULL);
  cr_assert_eq(f.s.ops[a].dur, 22938);
  place(&f, a, 0, 0);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 22937.6, "end");
  cr_assert_eq(r.ddr_bytes, 0);
  fix_destroy(&f);
}

/* With ddr_ratio 0.5 the DDR link (64 GB/s) is faster than the channel
 * (32 GB/s): the channel's private link is the bottleneck, as the planner's
 * min(DDR, DMA) rate assumes: 100 + 22937.6 cycles. */
Test(simulate, ddr_transfer_is_limited_by_the_slower_of_channel_and_ddr)
{
  static const char *const sets[] = {"ddr_ratio=0.5", NULL};
  struct fix f;
  struct acs_sim_result r;
  int32_t a;

  tu_graph_npu(&f.g, "fast-ddr");
  a = dma_op(&f.g, "load", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  bind(&f, sets);
  cr_assert_eq(f.s.ops[a].dur, 100 + 22938);
  place(&f, a, 0, 0);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 23037.6, "end");
  fix_destroy(&f);
}

/* SimGrid's default TCP window (network/TCP-gamma) would cap the rate at
 * gamma / (2 * latency) = 4194304 / 2.857e-3 s = 1.47e9 B/s with a 1e6-cycle
 * latency; the XML turns it off, so the transfer still takes latency +
 * bytes / bandwidth. */
Test(simulate, long_ddr_latency_does_not_throttle_the_bandwidth)
{
  static const char *const sets[] = {"ddr_latency_cycles=1000000", NULL};
  struct fix f;
  struct acs_sim_result r;
  int32_t a;

  tu_graph_npu(&f.g, "far");
  a = dma_op(&f.g, "load", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  bind(&f, sets);
  place(&f, a, 0, 0);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 1000000 + 91750.4, "end");
  fix_destroy(&f);
}

/* Direct SimGrid use of the generated platform (Criterion runs every test
 * in its own process, so this one may load a platform). */
static double g_sent_at;

static void send_pe0_pe1(int argc, char **argv)
{
  sg_host_sendto(sg_host_by_name("pe0"), sg_host_by_name("pe1"), (double)MIB);
  g_sent_at = simgrid_get_clock();
}

static const char *xml_file(const struct acs_platform *p)
{
  static char path[512];
  FILE *f;

  snprintf(path, sizeof(path), "%s/platform.xml", tu_tmpdir());
  f = fopen(path, "w");
  cr_assert_not_null(f);
  cr_assert_eq(acs_sim_xml_write(f, p), ACS_OK);
  cr_assert_eq(fclose(f), 0);
  return path;
}

static void load_platform(const struct acs_platform *p)
{
  char arg0[] = "test-simulate";
  char *argv[] = {arg0, NULL};
  int argc = 1;

  simgrid_init(&argc, argv);
  xbt_log_control_set("root.thres:critical");
  simgrid_load_platform(xml_file(p));
}

Test(simulate, pe_to_pe_transfer_uses_the_local_bandwidth)
{
  struct acs_platform p;
  double cycles;

  acs_platform_init(&p);
  load_platform(&p);
  sg_actor_create("send", sg_host_by_name("pe0"), send_pe0_pe1, 0, NULL);
  simgrid_run();
  cycles = g_sent_at * 700e6;
  assert_near(cycles, 11468.8, "pe0 -> pe1");
}

/*
 * Routes are derived when SimGrid seals the platform, as the simulation
 * starts, so they are read from an actor: these record what a route check
 * measured, and the test asserts after simgrid_run.
 */
static struct {
  int npe;
  double pe_pe_bw[64], pe_ddr_bw[64], pe_ddr_lat[64], ddr_dma_bw[2], dma_cmx_bw[2];
  char route[8][128];
} g_routes;

static double route_bw(const char *a, const char *b)
{
  return sg_host_get_route_bandwidth(sg_host_by_name(a), sg_host_by_name(b));
}

static void measure_routes(int argc, char **argv)
{
  char a[16], b[16];

  (void)argc, (void)argv;
  for (int i = 0; i < g_routes.npe; i++) {
    snprintf(a, sizeof(a), "pe%d", i);
    snprintf(b, sizeof(b), "pe%d", (i + 1) % g_routes.npe);
    g_routes.pe_pe_bw[i] = g_routes.npe > 1 ? route_bw(a, b) : 64e9;
    g_routes.pe_ddr_bw[i] = route_bw(a, "ddr");
    g_routes.pe_ddr_lat[i] = sg_host_get_route_latency(sg_host_by_name(a), sg_host_by_name("ddr"));
  }
  for (int k = 0; k < 2; k++) {
    snprintf(a, sizeof(a), "dma%d", k);
    g_routes.ddr_dma_bw[k] = route_bw("ddr", a);
    g_routes.dma_cmx_bw[k] = route_bw(a, "cmx");
  }
}

/* Runs fn in an actor on ctl, once the platform is sealed. */
static void in_simulation(void (*fn)(int, char **))
{
  sg_actor_create("check", sg_host_by_name("ctl"), fn, 0, NULL);
  simgrid_run();
}

/* Every pair of routed hosts has a route with the expected bottleneck and
 * latency: the XML loads and is complete. */
static void check_platform_loads(int npe)
{
  struct acs_platform p;
  char kv[64];
  struct acs_diag d;
  double ddr_bps = 8e9, lat = 100 / 700e6;

  acs_platform_init(&p);
  acs_diag_init(&d);
  snprintf(kv, sizeof(kv), "pe_count=%d", npe);
  cr_assert_eq(acs_platform_set_kv(&p, kv, &d), ACS_OK);
  load_platform(&p);
  cr_assert_eq((int)sg_host_count(), npe + 2 + 3); /* PEs, 2 channels, ddr, cmx, ctl */
  g_routes.npe = npe;
  in_simulation(measure_routes);
  for (int i = 0; i < npe; i++) {
    cr_assert_float_eq(g_routes.pe_pe_bw[i], 64e9, 1.0);
    cr_assert_float_eq(g_routes.pe_ddr_bw[i], ddr_bps, 1.0);
    cr_assert_float_eq(g_routes.pe_ddr_lat[i], lat, 1e-18);
  }
  for (int k = 0; k < 2; k++) {
    cr_assert_float_eq(g_routes.ddr_dma_bw[k], ddr_bps, 1.0);
    cr_assert_float_eq(g_routes.dma_cmx_bw[k], 32e9, 1.0);
  }
}

Test(simulate, platform_xml_loads_with_1_pe, .timeout = 60)
{
  check_platform_loads(1);
}

Test(simulate, platform_xml_loads_with_4_pes, .timeout = 60)
{
  check_platform_loads(4);
}

Test(simulate, platform_xml_loads_with_64_pes, .timeout = 60)
{
  check_platform_loads(64);
}

/* The links a transfer from a to b crosses, as "l1,l2", into buf. */
static void route_of(const char *a, const char *b, char *buf, size_t size)
{
  xbt_dynar_t links = xbt_dynar_new(sizeof(sg_link_t), NULL);
  unsigned int k;
  sg_link_t l;
  size_t off = 0;

  sg_host_get_route(sg_host_by_name(a), sg_host_by_name(b), links);
  buf[0] = '\0';
  xbt_dynar_foreach (links, k, l)
    off += (size_t)snprintf(buf + off, size - off, "%s%s", k ? "," : "", sg_link_get_name(l));
  xbt_dynar_free(&links);
}

static const char *const g_pairs[][2] = {
  {"ddr", "dma1"}, {"dma0", "ddr"}, {"dma1", "cmx"}, {"cmx", "dma0"},
  {"pe0", "pe2"}, {"pe1", "cmx"}, {"pe2", "ddr"},
};

static void record_routes(int argc, char **argv)
{
  (void)argc, (void)argv;
  for (size_t k = 0; k < sizeof(g_pairs) / sizeof(g_pairs[0]); k++)
    route_of(g_pairs[k][0], g_pairs[k][1], g_routes.route[k], sizeof(g_routes.route[k]));
}

/* The routes SimGrid derives from the host links are the model's: the
 * source's own link, then the destination's; ddr's own link is the shared
 * DDR link; cmx has none. */
Test(simulate, routes_cross_exactly_the_private_links_and_the_ddr_link, .timeout = 60)
{
  static const char *const want[] = {"ddr,l_dma1", "l_dma0,ddr", "l_dma1", "l_dma0",
                                     "l_pe0,l_pe2", "l_pe1", "l_pe2,ddr"};
  struct acs_platform p;
  struct acs_diag d;

  acs_platform_init(&p);
  acs_diag_init(&d);
  cr_assert_eq(acs_platform_set_kv(&p, "pe_count=3", &d), ACS_OK);
  cr_assert_eq(acs_platform_set_kv(&p, "dma_channels=2", &d), ACS_OK);
  load_platform(&p);
  in_simulation(record_routes);
  for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
    cr_assert_str_eq(g_routes.route[k], want[k], "%s -> %s", g_pairs[k][0], g_pairs[k][1]);
}

static long xml_bytes(const char *kv)
{
  struct acs_platform p;
  struct acs_diag d;
  FILE *f = tmpfile();
  long n;

  acs_platform_init(&p);
  acs_diag_init(&d);
  cr_assert_not_null(f);
  cr_assert_eq(acs_platform_set_kv(&p, kv, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_sim_xml_write(f, &p), ACS_OK);
  n = ftell(f);
  fclose(f);
  return n;
}

/* Three lines (host, link, host link) of under 200 bytes per PE or
 * channel; a route per pair would add over 4,000 lines per PE here. */
Test(simulate, platform_xml_grows_linearly_with_pes_and_channels)
{
  long pe64 = xml_bytes("pe_count=64"), pe4096 = xml_bytes("pe_count=4096");
  long ch4096 = xml_bytes("dma_channels=4096");

  cr_assert_lt(pe4096 - pe64, (4096 - 64) * 200L, "%ld vs %ld bytes", pe4096, pe64);
  cr_assert_lt(ch4096 - pe64, (4096 - 2) * 200L, "%ld vs %ld bytes", ch4096, pe64);
}

/* The platform's XML as text, into buf (NUL-terminated). */
static void xml_text(const struct acs_platform *p, char *buf, size_t size)
{
  FILE *f = tmpfile();
  size_t n;

  cr_assert_not_null(f);
  cr_assert_eq(acs_sim_xml_write(f, p), ACS_OK);
  rewind(f);
  n = fread(buf, 1, size - 1, f);
  cr_assert_lt(n, size - 1, "XML larger than the test's buffer");
  buf[n] = '\0';
  fclose(f);
}

/* acs_sim_platform_cmp lists what the XML writer reads by hand: changing
 * any one parameter changes the XML exactly when the comparison sees it.
 * A parameter the writer starts to read without the comparison knowing
 * fails here. */
Test(simulate, platform_cmp_sees_exactly_what_the_xml_holds)
{
  static char base[1 << 16], other[1 << 16];
  struct acs_platform a, b;

  acs_platform_init(&a);
  xml_text(&a, base, sizeof(base));
  for (int i = 0; i < ACS_PARAM_COUNT; i++) {
    const struct acs_param_info *pi = &acs_param_table[i];
    double v = a.v[i] + 1 <= pi->max ? a.v[i] + 1 : pi->min;
    b = a;
    b.v[i] = v;
    xml_text(&b, other, sizeof(other));
    cr_assert_eq(acs_sim_platform_cmp(&a, &b) != 0, strcmp(base, other) != 0,
                 "%s: cmp %d, XML %s", pi->name, acs_sim_platform_cmp(&a, &b),
                 strcmp(base, other) ? "differs" : "equal");
    cr_assert_eq(acs_sim_platform_cmp(&a, &b), -acs_sim_platform_cmp(&b, &a), "%s", pi->name);
  }
}

Test(simulate, platform_name_is_escaped_in_the_xml)
{
  struct acs_platform p;
  char buf[4096];
  FILE *f;
  size_t n;

  acs_platform_init(&p);
  snprintf(p.name, sizeof(p.name), "a<b>&\"c\"--d");
  f = tmpfile();
  cr_assert_not_null(f);
  cr_assert_eq(acs_sim_xml_write(f, &p), ACS_OK);
  rewind(f);
  n = fread(buf, 1, sizeof(buf) - 1, f);
  buf[n] = '\0';
  fclose(f);
  cr_assert_not_null(strstr(buf, "value=\"a&lt;b&gt;&amp;&quot;c&quot;--d\""), "%s", buf);
}

/* ---- execution ---- */

/* a(10) -> b(20), a -> c(30), b -> d(5), c -> d on two PEs: planned
 * a [0,10) pe0, b [10,30) pe0, c [10,40) pe1, d [40,45) pe0. */
Test(simulate, compute_only_schedule_simulates_to_its_planned_times)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b, c, d;

  tu_graph_npu(&f.g, "diamond");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  b = tu_op(&f.g, "b", ACS_OP_DPU, 20);
  c = tu_op(&f.g, "c", ACS_OP_SHAVE, 30);
  d = tu_op(&f.g, "d", ACS_OP_DPU, 5);
  tu_edge(&f.g, a, b);
  tu_edge(&f.g, a, c);
  tu_edge(&f.g, b, d);
  tu_edge(&f.g, c, d);
  bind(&f, NULL);
  place(&f, a, 0, 0);
  place(&f, b, 0, 10);
  place(&f, c, 1, 10);
  place(&f, d, 0, 40);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  for (int32_t i = 0; i < f.s.nops; i++) {
    assert_near(f.s.ops[i].sim_start, (double)f.s.ops[i].start, f.s.ops[i].name);
    assert_near(f.s.ops[i].sim_end, (double)f.s.ops[i].end, f.s.ops[i].name);
  }
  assert_near(r.makespan_cycles, 45.0, "makespan");
  assert_near(r.slowdown, 1.0, "slowdown");
  /* 65 busy cycles on 4 PEs over 45 cycles. */
  assert_near(r.pe_utilization, 65.0 / (4 * 45.0), "pe utilization");
  assert_near(r.dma_utilization, 0.0, "dma utilization");
  fix_destroy(&f);
}

/*
 * A greedy list schedule (topological order, earliest free unit) of a
 * random DAG, for the replay tests: valid by construction.
 */
static void greedy(struct acs_schedule *s, const struct acs_graph *g, int npe, int ndma)
{
  int64_t fin[64] = {0};
  int64_t *ready = calloc((size_t)s->nops, sizeof(*ready));

  cr_assert_not_null(ready);
  for (int32_t k = 0; k < g->nops; k++) {
    int32_t v = g->topo[k];
    struct acs_sop *o = &s->ops[v];
    int dma = o->kind == ACS_OP_DMA, lo = dma ? npe : 0, hi = dma ? npe + ndma : npe, best = lo;
    for (int u = lo; u < hi; u++)
      if (fin[u] < fin[best])
        best = u;
    o->start = ready[v] > fin[best] ? ready[v] : fin[best];
    o->end = o->start + o->dur;
    o->unit = best - lo;
    fin[best] = o->end;
    for (int32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
      if (ready[g->succ[e]] < o->end)
        ready[g->succ[e]] = o->end;
  }
  free(ready);
  acs_schedule_finish(s);
}

/* The last PE and channel of a wide platform are reached (only busy units
 * get an actor; every host is in the platform). */
Test(simulate, wide_platform_runs_ops_on_its_last_pe_and_channel, .timeout = 120)
{
  static const char *const sets[] = {"pe_count=4096", "dma_channels=256", NULL};
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b;

  tu_graph_npu(&f.g, "wide");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  b = dma_op(&f.g, "load", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  tu_edge(&f.g, a, b);
  bind(&f, sets);
  place(&f, a, 4095, 0);
  place(&f, b, 255, 10);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 10, "a");
  assert_near(f.s.ops[b].sim_end, 10 + 100 + 91750.4, "load");
  fix_destroy(&f);
}

Test(simulate, random_compute_schedule_replays_exactly, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;

  tu_random_dag(&f.g, 7, 2000, 64);
  tu_problem(&f.pb, &f.g, NULL);
  cr_assert_eq(acs_schedule_init_problem(&f.s, &f.pb), ACS_OK);
  greedy(&f.s, &f.g, 4, 2);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  /* Fixed-duration transfers move no bytes, so nothing is contended. */
  for (int32_t i = 0; i < f.s.nops; i++) {
    assert_near(f.s.ops[i].sim_start, (double)f.s.ops[i].start, f.s.ops[i].name);
    assert_near(f.s.ops[i].sim_end, (double)f.s.ops[i].end, f.s.ops[i].name);
  }
  assert_near(r.makespan_cycles, (double)f.s.makespan, "makespan");
  fix_destroy(&f);
}

/*
 * Two 1 MiB DDR loads planned as if alone: a at 0 on dma0, b at 45000 on
 * dma1 (each planned 91851 cycles), then c (1000 cycles, pe0) after both,
 * planned at 136851. Derivation at 80/7 B/cycle on the DDR link:
 *  - a: latency until 100, then alone until b's latency ends at 45100,
 *    having sent 45000 * 80/7 = 514285.714 B; 534290.286 B are left;
 *  - from 45100 a and b share, 40/7 B/cycle each: a finishes after
 *    534290.286 * 7/40 = 93500.8 cycles, at 138600.8 (planned 91851);
 *  - b has then sent 534290.286 B too; the other 514285.714 B at the full
 *    80/7 take 45000 cycles: b ends at 183600.8 (planned 136851);
 *  - c runs [183600.8, 184600.8): 46749.8 cycles later than planned.
 */
Test(simulate, overlapping_ddr_transfers_slow_the_plan_by_the_derived_amount)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b, c;

  tu_graph_npu(&f.g, "overlap");
  a = dma_op(&f.g, "a", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  b = dma_op(&f.g, "b", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  c = tu_op(&f.g, "c", ACS_OP_DPU, 1000);
  tu_edge(&f.g, a, c);
  tu_edge(&f.g, b, c);
  bind(&f, NULL);
  place(&f, a, 0, 0);
  place(&f, b, 1, 45000);
  place(&f, c, 0, 136851);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 138600.8, "a end");
  assert_near(f.s.ops[b].sim_start, 45000.0, "b start");
  assert_near(f.s.ops[b].sim_end, 183600.8, "b end");
  assert_near(f.s.ops[c].sim_start, 183600.8, "c start");
  assert_near(r.makespan_cycles, 184600.8, "makespan");
  assert_near(r.makespan_cycles - (double)f.s.makespan, 46749.8, "slip");
  fix_destroy(&f);
}

/* A contended run still respects every edge, every unit's order and every
 * release time. */
Test(simulate, contended_replay_respects_edges_units_and_release_times, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_rng rng;

  tu_random_dag(&f.g, 11, 1500, 64);
  /* Give the transfers bytes (up to 256 KiB) so they contend. */
  acs_rng_seed(&rng, 3);
  for (int32_t i = 0; i < f.g.nops; i++)
    if (f.g.ops[i].kind == ACS_OP_DMA) {
      f.g.ops[i].cycles = -1;
      f.g.ops[i].bytes = 1 + (int64_t)acs_rng_below(&rng, 256 * 1024);
    }
  tu_problem(&f.pb, &f.g, NULL);
  cr_assert_eq(acs_schedule_init_problem(&f.s, &f.pb), ACS_OK);
  greedy(&f.s, &f.g, 4, 2);
  sim_ok(&f, &r);
  for (int32_t e = 0; e < f.s.nedges; e++) {
    const struct acs_sop *x = &f.s.ops[f.s.edges[e].src], *y = &f.s.ops[f.s.edges[e].dst];
    cr_assert_geq(y->sim_start, x->sim_end, "edge %s -> %s", x->name, y->name);
  }
  for (int32_t i = 0; i < f.s.nops; i++) {
    const struct acs_sop *o = &f.s.ops[i];
    cr_assert_geq(o->sim_start, (double)o->start, "%s starts before its release", o->name);
    cr_assert_geq(o->sim_end - o->sim_start, o->kind == ACS_OP_DMA ? 0.0 : (double)o->dur - EPS);
    for (int32_t j = 0; j < f.s.nops; j++) {
      const struct acs_sop *q = &f.s.ops[j];
      if (j == i || q->unit != o->unit || (q->kind == ACS_OP_DMA) != (o->kind == ACS_OP_DMA))
        continue;
      if (q->start > o->start || (q->start == o->start && j > i))
        cr_assert_geq(q->sim_start, o->sim_end, "%s and %s overlap on a unit", o->name, q->name);
    }
  }
  cr_assert_geq(r.makespan_cycles, (double)f.s.makespan - EPS);
  cr_assert_gt(r.ddr_bytes, 0);
  cr_assert(r.dma_utilization > 0 && r.dma_utilization <= 1, "%g", r.dma_utilization);
  cr_assert(r.pe_utilization > 0 && r.pe_utilization <= 1, "%g", r.pe_utilization);
  fix_destroy(&f);
}

/* Ops without work complete inline; 100,000 of them send 1.6 MB of times
 * back, more than a pipe holds, so the parent must read while the child
 * writes. */
Test(simulate, large_results_come_back_through_the_pipe, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  char name[32];
  int32_t n = 100000;

  tu_graph_npu(&f.g, "many");
  for (int32_t i = 0; i < n; i++) {
    snprintf(name, sizeof(name), "s%d", i);
    tu_op(&f.g, name, ACS_OP_SYNC, 0);
  }
  bind(&f, NULL);
  for (int32_t i = 0; i < n; i++)
    place(&f, i, -1, i % 7);
  sim_ok(&f, &r);
  cr_assert_eq(r.ops_completed, n);
  for (int32_t i = 0; i < n; i++)
    assert_near(f.s.ops[i].sim_end, (double)(i % 7), "sync op");
  fix_destroy(&f);
}

Test(simulate, ops_without_a_unit_wait_their_duration)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b;

  tu_graph_npu(&f.g, "jobs");
  a = tu_op(&f.g, "job1", ACS_OP_SHAVE, 7);
  b = tu_op(&f.g, "job2", ACS_OP_SHAVE, 9);
  tu_edge(&f.g, a, b);
  bind(&f, NULL);
  place(&f, a, -1, 3);
  place(&f, b, -1, 10);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_start, 3.0, "job1 start");
  assert_near(f.s.ops[b].sim_end, 19.0, "job2 end");
  fix_destroy(&f);
}

/* z (no work) sits on pe0 at 10, the start of b, and must precede b (edge
 * z -> b) although its id is larger: ordering a unit's ops by (start, id)
 * alone would put b first and deadlock this valid plan. */
Test(simulate, zero_duration_op_at_another_ops_start_does_not_deadlock, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b, z;

  tu_graph_npu(&f.g, "marker");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  b = tu_op(&f.g, "b", ACS_OP_DPU, 5);
  z = tu_op(&f.g, "z", ACS_OP_DPU, 0);
  tu_edge(&f.g, a, z);
  tu_edge(&f.g, z, b);
  bind(&f, NULL);
  place(&f, a, 0, 0);
  place(&f, b, 0, 10);
  place(&f, z, 0, 10);
  tu_assert_verified(&f.s);
  sim_ok(&f, &r);
  assert_near(f.s.ops[z].sim_end, 10.0, "z");
  assert_near(f.s.ops[b].sim_end, 15.0, "b");
  fix_destroy(&f);
}

/* At 1e12 cycles (1429 s) a double's resolution is 1.6e-4 cycle, far
 * coarser than the 1e-9-cycle timing precision: the engine must still
 * advance (no endless zero-length steps) and land on the expected times
 * within that resolution. */
Test(simulate, late_release_times_keep_their_precision, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a, b, c;
  int64_t t0 = 1000000000000;

  tu_graph_npu(&f.g, "late");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 1);
  b = dma_op(&f.g, "b", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  c = tu_op(&f.g, "c", ACS_OP_DPU, 3);
  tu_edge(&f.g, a, b);
  tu_edge(&f.g, b, c);
  bind(&f, NULL);
  place(&f, a, 0, t0);
  place(&f, b, 0, t0 + 1);
  place(&f, c, 1, t0 + 1 + 91851);
  sim_ok(&f, &r);
  cr_assert_lt(fabs(f.s.ops[a].sim_start - (double)t0), 1e-3, "%.6f", f.s.ops[a].sim_start);
  cr_assert_lt(fabs(f.s.ops[b].sim_end - ((double)t0 + 1 + 91850.4)), 1e-3, "%.6f",
               f.s.ops[b].sim_end);
  cr_assert_lt(fabs(f.s.ops[c].sim_end - ((double)t0 + 1 + 91851 + 3)), 1e-3, "%.6f",
               f.s.ops[c].sim_end);
  fix_destroy(&f);
}

/* ---- failures ---- */

static int sim_fail(struct fix *f, const struct acs_sim_opts *o, struct acs_sim_result *r,
                    struct acs_diag *d)
{
  acs_schedule_finish(&f->s);
  acs_diag_init(d);
  return acs_sim_run(&f->pb.plat, &f->s, o, r, d);
}

Test(simulate, control_edge_cycle_is_an_error_with_a_message, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int32_t a, b, c;
  int err;

  tu_graph_npu(&f.g, "cycle");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  b = tu_op(&f.g, "b", ACS_OP_DPU, 10);
  c = tu_op(&f.g, "c", ACS_OP_DPU, 10);
  tu_edge(&f.g, a, b);
  bind(&f, NULL);
  cr_assert_eq(acs_schedule_add_edge(&f.s, b, a, ACS_EDGE_CONTROL), ACS_OK);
  place(&f, a, 0, 0);
  place(&f, b, 1, 10);
  place(&f, c, 2, 0);
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_ESIM, "%s", acs_strerror(err));
  cr_assert_not_null(strstr(d.msg, "2 of 3 ops never finished"), "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "'a' waits for 'b' (control edge)"), "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "'b' waits for 'a' (data edge), a cycle of 2 ops"), "%s",
                     d.msg);
  cr_assert_eq(r.ops_completed, 1);
  assert_near(f.s.ops[c].sim_end, 10.0, "c, which could run");
  cr_assert(isnan(f.s.ops[a].sim_start));
  cr_assert(isnan(r.makespan_cycles));
  /* Found as a deadlock when the simulation ran dry, not by the timeout
   * (a wall-clock bound here would fail on a loaded machine). */
  cr_assert_null(strstr(d.msg, "did not finish within"), "%s", d.msg);
  fix_destroy(&f);
}

/* The plan puts x before y on pe0 but y -> x is an edge: x can never start,
 * and neither can w, which needs x. */
Test(simulate, op_that_can_never_start_is_an_error_naming_it, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int32_t x, y, w;
  int err;

  tu_graph_npu(&f.g, "stuck");
  x = tu_op(&f.g, "x", ACS_OP_DPU, 10);
  y = tu_op(&f.g, "y", ACS_OP_DPU, 10);
  w = tu_op(&f.g, "w", ACS_OP_DPU, 10);
  tu_edge(&f.g, y, x);
  tu_edge(&f.g, x, w);
  bind(&f, NULL);
  place(&f, x, 0, 0);
  place(&f, y, 0, 10);
  place(&f, w, 1, 20);
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "3 of 3 ops never finished (3 never started)"), "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "'x' waits for 'y' (data edge)"), "%s", d.msg);
  cr_assert_not_null(strstr(d.msg, "'y' waits for 'x' (previous op on pe0)"), "%s", d.msg);
  /* Found as a deadlock when the simulation ran dry, not by the timeout
   * (a wall-clock bound here would fail on a loaded machine). */
  cr_assert_null(strstr(d.msg, "did not finish within"), "%s", d.msg);
  fix_destroy(&f);
}

/* 'end' waits on a chain of 11 ops that ends in the cycle c0 <-> cx: the
 * message shows the first hops and the cycle, not all 13 hops. */
Test(simulate, long_wait_chain_is_elided_in_the_message, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int32_t end, prev = -1, cx, c0 = -1;
  char name[16];
  int err;

  tu_graph_npu(&f.g, "chain");
  end = tu_op(&f.g, "end", ACS_OP_DPU, 1);
  for (int k = 0; k <= 10; k++) {
    int32_t c;
    snprintf(name, sizeof(name), "c%d", k);
    c = tu_op(&f.g, name, ACS_OP_DPU, 1);
    if (prev >= 0)
      tu_edge(&f.g, prev, c);
    else
      c0 = c;
    prev = c;
  }
  cx = tu_op(&f.g, "cx", ACS_OP_DPU, 1);
  tu_edge(&f.g, prev, end);
  tu_edge(&f.g, c0, cx);
  bind(&f, NULL);
  cr_assert_eq(acs_schedule_add_edge(&f.s, cx, c0, ACS_EDGE_CONTROL), ACS_OK);
  for (int32_t i = 0; i < f.s.nops; i++)
    place(&f, i, -1, 0);
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "; 'end' waits for 'c10' (data edge), 'c10' waits for 'c9' "
                                   "(data edge), 'c9' waits for 'c8' (data edge), 'c8' waits for "
                                   "'c7' (data edge), ..., 'c1' waits for 'c0' (data edge), 'c0' "
                                   "waits for 'cx' (control edge), 'cx' waits for 'c0' (data edge), "
                                   "a cycle of 2 ops"), "%s", d.msg);
  fix_destroy(&f);
}

static void one_op(struct fix *f)
{
  int32_t a;

  tu_graph_npu(&f->g, "one");
  a = tu_op(&f->g, "a", ACS_OP_DPU, 10);
  bind(f, NULL);
  place(f, a, 0, 0);
}

/* A simulation costs what its schedule uses: the most PEs a platform may
 * have (2^20), one of them busy, make a platform file of one PE. */
Test(simulate, huge_platform_simulates_only_the_units_it_uses, .timeout = 60)
{
  static const char *const sets[] = {"pe_count=1048576", NULL};
  struct fix f;
  struct acs_sim_result r;
  int32_t a;

  tu_graph_npu(&f.g, "huge");
  a = tu_op(&f.g, "a", ACS_OP_DPU, 10);
  bind(&f, sets);
  place(&f, a, 1048575, 0);
  sim_ok(&f, &r);
  assert_near(f.s.ops[a].sim_end, 10, "a");
  assert_near(r.pe_utilization, 1.0 / 1048576, "pe utilization");
  fix_destroy(&f);
}

/* Beyond what an int32_t numbers with room to spare, a simulation (and the
 * platform file) refuses before anything is written. Parsing stops such a
 * platform far earlier (pe_count <= 2^20); a library caller can still fill
 * the struct directly, which this guard is for. */
Test(simulate, platform_too_wide_to_number_is_rejected)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  FILE *tmp;

  one_op(&f);
  f.pb.plat.v[ACS_P_PE_COUNT] = 1e12;
  cr_assert_eq(sim_fail(&f, NULL, &r, &d), ACS_EINVAL);
  cr_assert_str_eq(d.msg, "platform 'default' has more PEs and DMA channels than a simulation "
                          "can number (536870911)");
  cr_assert_not_null(tmp = tmpfile());
  cr_assert_eq(acs_sim_xml_write(tmp, &f.pb.plat), ACS_ERANGE);
  fclose(tmp);
  fix_destroy(&f);
}

Test(simulate, crash_in_the_child_is_an_error, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_ABORT;
  err = sim_fail(&f, &o, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "simulation crashed (signal 6"), "%s", d.msg);
  cr_assert(isnan(f.s.ops[0].sim_end));
  fix_destroy(&f);
}

Test(simulate, child_exiting_without_a_result_is_an_error, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_EXIT;
  err = sim_fail(&f, &o, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "exited with status 3"), "%s", d.msg);
  fix_destroy(&f);
}

/* A process that blocks uses no CPU time: the wall-clock backstop ends it. */
Test(simulate, blocked_simulation_is_killed_at_the_wall_clock_backstop, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_HANG;
  o.wall_timeout = 0.5;
  err = sim_fail(&f, &o, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "did not finish within 0.5 s"), "%s", d.msg);
  cr_assert_geq(r.sim_seconds, 0.5);
  fix_destroy(&f);
}

/* A runaway process is ended by its CPU time, however loaded the machine:
 * the limit counts what it consumed, not how long it took. */
Test(simulate, runaway_simulation_is_killed_at_its_cpu_time_limit, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_SPIN;
  o.timeout = 0.3;
  err = sim_fail(&f, &o, &r, &d);
  cr_assert_eq(err, ACS_ESIM);
  /* (Under ASan the process may add what it printed.) */
  cr_assert(strncmp(d.msg, "simulation used its CPU-time limit of 0.3 s and was killed", 58) == 0,
            "%s", d.msg);
  fix_destroy(&f);
}

/* A zygote that cannot start reports why, as the run's error. */
Test(simulate, zygote_that_cannot_start_is_an_error_with_its_reason, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;

  one_op(&f);
  cr_assert_eq(setenv("TMPDIR", "/nonexistent-acsim-dir", 1), 0);
  cr_assert_eq(sim_fail(&f, NULL, &r, &d), ACS_ESIM);
  cr_assert_not_null(strstr(d.msg, "simulation exited with status 8 without a result; it printed: "
                                   "acsim: cannot create a temporary file in "
                                   "/nonexistent-acsim-dir"), "%s", d.msg);
  cr_assert_eq(acs__sim_zygote_pid(&f.pb.plat, &f.s), 0);
  fix_destroy(&f);
}

/* INFINITY means no limit: a normal run still completes. */
Test(simulate, no_limit_runs_to_completion)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.timeout = INFINITY;
  acs_schedule_finish(&f.s);
  acs_diag_init(&d);
  cr_assert_eq(acs_sim_run(&f.pb.plat, &f.s, &o, &r, &d), ACS_OK, "%s", d.msg);
  assert_near(r.makespan_cycles, 10, "makespan");
  fix_destroy(&f);
}

/* Platform variants SimGrid cannot tell apart share one zygote (here: CMX
 * size and barriers; on platforms of over 256 units, also PEs the
 * schedules do not use); another SimGrid platform (a slower DDR link, more
 * PEs on a small platform) gets its own. */
Test(simulate, variants_of_one_simgrid_platform_share_a_zygote, .timeout = 60)
{
  static const char *const small[] = {"cmx_kib=512", "barriers=4", NULL};
  static const char *const slow[] = {"ddr_ratio=8", NULL};
  static const char *const more[] = {"pe_count=8", NULL};
  static const char *const wide[] = {"pe_count=300", NULL};
  static const char *const wider[] = {"pe_count=400", NULL};
  const char *const *sets[] = {NULL, small, slow, more, wide, wider};
  unsigned long before = acs__sim_zygote_starts();

  for (int k = 0; k < 6; k++) {
    struct fix f;
    struct acs_sim_result r;
    tu_graph_npu(&f.g, "one");
    tu_op(&f.g, "a", ACS_OP_DPU, 10);
    bind(&f, sets[k]);
    place(&f, 0, 0, 0);
    sim_ok(&f, &r);
    assert_near(r.makespan_cycles, 10, "makespan");
    fix_destroy(&f);
  }
  cr_assert_eq(acs__sim_zygote_starts() - before, 4);
}

/* A zygote that died between runs is replaced; one whose simulation
 * crashed goes on serving. */
Test(simulate, runs_survive_a_lost_zygote_and_a_crashed_simulation, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  pid_t z;

  one_op(&f);
  sim_ok(&f, &r);
  cr_assert_gt(z = acs__sim_zygote_pid(&f.pb.plat, &f.s), 0);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_ABORT;
  cr_assert_eq(sim_fail(&f, &o, &r, &d), ACS_ESIM);
  cr_assert_eq(acs__sim_zygote_pid(&f.pb.plat, &f.s), z, "the zygote outlives a crashed run");
  sim_ok(&f, &r);
  assert_near(r.makespan_cycles, 10, "after a crash");
  cr_assert_eq(kill(z, SIGKILL), 0);
  while (waitpid(z, NULL, 0) < 0 && errno == EINTR)
    ;
  /* The dead zygote fails this run or the next; then a new one serves. */
  for (int k = 0; k < 2; k++) {
    acs_diag_init(&d);
    if (acs_sim_run(&f.pb.plat, &f.s, NULL, &r, &d) == ACS_OK)
      break;
    cr_assert_not_null(strstr(d.msg, "zygote"), "%s", d.msg);
  }
  sim_ok(&f, &r);
  cr_assert_neq(acs__sim_zygote_pid(&f.pb.plat, &f.s), z);
  fix_destroy(&f);
}

/* A forked process does not use the zygotes it inherited (they answer its
 * parent): it starts its own, and the parent's keep working. */
Test(simulate, forked_process_starts_its_own_zygote, .timeout = 60)
{
  struct fix f;
  struct acs_sim_result r;
  pid_t pid, z;
  int st;

  one_op(&f);
  sim_ok(&f, &r);
  z = acs__sim_zygote_pid(&f.pb.plat, &f.s);
  fflush(NULL);
  if ((pid = fork()) == 0) {
    struct acs_diag d;
    acs_diag_init(&d);
    _exit(acs_sim_run(&f.pb.plat, &f.s, NULL, &r, &d) == ACS_OK && r.makespan_cycles == 10 &&
          acs__sim_zygote_pid(&f.pb.plat, &f.s) != z ? 0 : 1);
  }
  cr_assert_gt(pid, 0);
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
    ;
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the forked process's run failed");
  sim_ok(&f, &r);
  cr_assert_eq(acs__sim_zygote_pid(&f.pb.plat, &f.s), z);
  fix_destroy(&f);
}

Test(simulate, interrupt_request_kills_the_child, .timeout = 30)
{
  static volatile int flag = 1;
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_opts o;
  struct acs_diag d;
  int err;

  one_op(&f);
  acs_sim_opts_init(&o);
  o.hook = ACS_SIM_HOOK_HANG;
  o.interrupted = &flag;
  err = sim_fail(&f, &o, &r, &d);
  /* Interrupted, not ended by the default timeout: no wall-clock bound. */
  cr_assert_eq(err, ACS_EINTERRUPTED, "%s", d.msg);
  fix_destroy(&f);
}

Test(simulate, unit_outside_the_platform_is_rejected_before_forking)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int err;

  one_op(&f);
  f.s.ops[0].unit = 4; /* the default platform has PEs 0..3 */
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_EINVAL);
  cr_assert_str_eq(d.msg, "op 'a' runs on PE 4 but platform 'default' has 4");
  fix_destroy(&f);
}

Test(simulate, unscheduled_op_is_rejected)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_diag d;
  int err;

  one_op(&f);
  f.s.ops[0].start = -1;
  err = sim_fail(&f, NULL, &r, &d);
  cr_assert_eq(err, ACS_EINVAL);
  cr_assert_str_eq(d.msg, "op 'a' is not scheduled");
  fix_destroy(&f);
}

/* ---- traces ---- */

/* The check is Python's own JSON parser, plus the structure we promise. */
static const char *const checker =
    "import json, sys\n"
    "t = json.load(open(sys.argv[1], encoding='utf-8'))\n"
    "ev = t['traceEvents']\n"
    "x = [e for e in ev if e['ph'] == 'X']\n"
    "for pid in (1, 2):\n"
    "    n = len([e for e in x if e['pid'] == pid])\n"
    "    assert n == int(sys.argv[2]), (pid, n)\n"
    "names = {e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'process_name'}\n"
    "assert names == {'list on default', 'list on default (planned)'}, names\n"
    "threads = {e['args']['name'] for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name'}\n"
    "assert {'pe0', 'pe3', 'dma0', 'dma1'} <= threads, threads\n"
    "q = [e for e in x if e['args']['kind'] == 'dma' and e['pid'] == 1]\n"
    "assert q[0]['args']['bytes'] == 1048576 and q[0]['args']['cmx'] == '[0, 1048576)', q[0]\n"
    "assert q[0]['args']['update_barrier'] == 2 and q[0]['args']['waits'] == [5, 6], q[0]\n"
    "assert abs(q[0]['dur'] - 91850.4) < 1e-6, q[0]\n"
    "assert any(e['name'] == 'we\"ird\\\\na\\nme' + '\\ufffd' * 4 + '\\u00e9' for e in x), \\\n"
    "    [e['name'] for e in x]\n"
    "c = [e['args']['transfers'] for e in ev if e['ph'] == 'C' and e['pid'] == 1]\n"
    "assert c == [1, 0], c\n";

Test(simulate, trace_is_valid_json_with_one_event_per_op, .timeout = 30)
{
  struct fix f;
  struct acs_sim_result r;
  struct acs_sim_trace *t;
  struct acs_diag d;
  char path[512], py[600], cmd[2048];
  int32_t a, b;
  FILE *pf;
  struct stat st;

  tu_graph_npu(&f.g, "traced");
  a = dma_op(&f.g, "load", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  b = tu_op(&f.g, "we\"ird\\na\nme\xff\xed\xa0\x80\xc3\xa9", ACS_OP_DPU, 50);
  tu_edge(&f.g, a, b);
  bind(&f, NULL);
  place(&f, a, 1, 0);
  place(&f, b, 3, 91851);
  f.s.ops[a].cmx_offset = 0;
  f.s.ops[a].cmx_bytes = MIB;
  f.s.ops[a].update_barrier = 2;
  cr_assert_eq(acs_schedule_add_wait(&f.s, a, 5), ACS_OK);
  cr_assert_eq(acs_schedule_add_wait(&f.s, a, 6), ACS_OK);
  sim_ok(&f, &r);

  snprintf(path, sizeof(path), "%s/trace.json", tu_tmpdir());
  acs_diag_init(&d);
  cr_assert_eq(acs_sim_trace_open(path, &t, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(stat(path, &st), -1, "the trace appears only when complete");
  cr_assert_eq(acs_sim_trace_add(t, "list on default", &f.pb.plat, &f.s, ACS_SIM_TIMES_SIMULATED),
               ACS_OK);
  cr_assert_eq(acs_sim_trace_add(t, "list on default (planned)", &f.pb.plat, &f.s,
                                 ACS_SIM_TIMES_PLANNED), ACS_OK);
  cr_assert_eq(acs_sim_trace_close(t, &d), ACS_OK, "%s", d.msg);

  snprintf(py, sizeof(py), "%s.py", path);
  pf = fopen(py, "w");
  cr_assert_not_null(pf);
  fputs(checker, pf);
  fclose(pf);
  snprintf(cmd, sizeof(cmd), "python3 '%s' '%s' %d", py, path, (int)f.s.nops);
  cr_assert_eq(system(cmd), 0, "the trace does not parse or lacks events: %s", path);
  fix_destroy(&f);
}

/* ---- golden replays: every shipped workload under the fast schedulers ----
 *
 * tests/data/sim-golden.txt holds, for each run of the grid below, a digest
 * of the planned schedule and the simulated makespan with a digest of every
 * op's sim_start and sim_end (their exact bits). It was recorded by the
 * engine of the commit named in tests/data/README.md; this test re-plans
 * and re-simulates every run and compares exactly, so a change of the
 * simulation engine cannot move any simulated time unnoticed. A different
 * planned digest means a scheduler or workload reader changed, not the
 * simulator: the message says so. To re-record (after checking why the
 * numbers moved): ACS_SIM_GOLDEN_WRITE=tests/data/sim-golden.txt
 * tests/test-simulate --filter 'simgolden/write'.
 */

/* One platform variant of the grid: a row of a shipped platform file with
 * overrides. */
struct gvariant {
  const char *file, *row, *sets[3];
};

static const struct gvariant g_variants[] = {
  {"platforms/default.csv", "default", {"cmx_kib=512", "barriers=0", NULL}},
  {"platforms/default.csv", "default", {"cmx_kib=512", "barriers=4", NULL}},
  {"platforms/default.csv", "default", {"cmx_kib=2048", "barriers=0", NULL}},
  {"platforms/default.csv", "default", {"cmx_kib=2048", "barriers=4", NULL}},
  {"platforms/vpu.csv", "vpu", {"barriers=0", NULL}},
  {"platforms/vpu.csv", "vpu", {"barriers=4", NULL}},
  {"platforms/vpu.csv", "vpu-kb", {"barriers=0", NULL}},
  {"platforms/vpu.csv", "vpu-kb", {"barriers=4", NULL}},
  {"platforms/isp4.csv", "isp4", {NULL}},
};
#define G_NVARIANTS (sizeof(g_variants) / sizeof(g_variants[0]))

static const char *const g_workloads[] = {
  "workloads/dnn/alexnet.csv", "workloads/dnn/mobilenet_v1.csv",
  "workloads/dnn/resnet18.csv", "workloads/dnn/resnet50.csv",
  "workloads/dnn/vgg16.csv", "workloads/dnn/yolo.csv",
  "workloads/graphs/isp_pipeline.csv", "workloads/graphs/resnet_block_chain.csv",
  "tests/data/psplib/j301_1.sm", "tests/data/psplib/j3013_1.sm",
  "tests/data/load/rand0000.stg", "tests/data/load/stg_small.stg",
};
#define G_NWORKLOADS (sizeof(g_workloads) / sizeof(g_workloads[0]))

static const char *const g_scheds[] = {"sequential", "list", "spill"};

static uint64_t fnv_add(uint64_t h, const void *p, size_t n)
{
  const unsigned char *b = p;

  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static uint64_t fnv_i64(uint64_t h, int64_t v)
{
  return fnv_add(h, &v, sizeof(v));
}

/* The planned schedule as the simulator sees it: units, times, transfers,
 * edges and the barrier program. */
static uint64_t plan_digest(const struct acs_schedule *s)
{
  uint64_t h = 14695981039346656037ull;

  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    int64_t v[] = {o->kind, o->unit, o->start, o->end, o->bytes, o->src, o->dst,
                   o->update_barrier};
    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
      h = fnv_i64(h, v[k]);
  }
  for (int32_t e = 0; e < s->nedges; e++) {
    h = fnv_i64(h, s->edges[e].src);
    h = fnv_i64(h, s->edges[e].dst);
    h = fnv_i64(h, s->edges[e].kind);
  }
  for (int32_t w = 0; w < s->nwaits; w++) {
    h = fnv_i64(h, s->waits[w].op);
    h = fnv_i64(h, s->waits[w].barrier);
  }
  return h;
}

/* Every op's simulated times, bit for bit (NaN as one pattern). */
static uint64_t sim_digest(const struct acs_schedule *s)
{
  uint64_t h = 14695981039346656037ull;

  for (int32_t i = 0; i < s->nops; i++) {
    double t[2] = {s->ops[i].sim_start, s->ops[i].sim_end};
    for (int k = 0; k < 2; k++) {
      if (isnan(t[k]))
        t[k] = NAN;
      h = fnv_add(h, &t[k], sizeof(t[k]));
    }
  }
  return h;
}

static void gvariant_platform(const struct gvariant *v, struct acs_platform *out, char *name,
                              size_t size)
{
  struct acs_platform *rows;
  struct acs_diag d;
  size_t n, k;
  int off;

  acs_diag_init(&d);
  cr_assert_eq(acs_platform_load(tu_path(v->file), &rows, &n, &d), ACS_OK, "%s", d.msg);
  for (k = 0; k < n && strcmp(rows[k].name, v->row) != 0; k++)
    ;
  cr_assert_lt(k, n, "%s has no row %s", v->file, v->row);
  *out = rows[k];
  free(rows);
  off = snprintf(name, size, "%s", v->row);
  for (int j = 0; v->sets[j]; j++) {
    cr_assert_eq(acs_platform_set_kv(out, v->sets[j], &d), ACS_OK, "%s", d.msg);
    off += snprintf(name + off, size - (size_t)off, "%s%s", j ? "," : "[", v->sets[j]);
  }
  if (v->sets[0])
    snprintf(name + off, size - (size_t)off, "]");
}

/*
 * One golden line: "<variant> <workload> <scheduler> ops=N plan=HEX
 * status=ok makespan=M sim=S times=HEX", or status=<other> and the rest
 * left out when the run has no schedule to simulate. The run is the one
 * `acsim run` makes: schedule, verify, barrier pass when the platform has
 * barriers, verify, simulate.
 */
static void golden_line(const struct acs_platform *p, const char *vname, const char *wpath,
                        const char *sched, char *line, size_t size)
{
  const struct acs_sched_ops *ops = acs_sched_find(sched);
  struct acs_sched_ctx ctx = {1, 0, 0};
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_sim_result r;
  struct acs_diag d;
  void *opts;
  int err;

  acs_diag_init(&d);
  cr_assert_not_null(ops, "%s", sched);
  cr_assert_eq(acs_workload_load(tu_path(wpath), &w, &d), ACS_OK, "%s: %s", wpath, d.msg);
  cr_assert_eq(acs_workload_build(w, p, &g, &d), ACS_OK, "%s: %s", wpath, d.msg);
  cr_assert_eq(acs_problem_init(&pb, &g, p, &d), ACS_OK, "%s: %s", wpath, d.msg);
  cr_assert_not_null(opts = calloc(1, ops->opts_size + 1));
  cr_assert_eq(acs_sched_opts_defaults(ops, opts), ACS_OK);
  cr_assert_eq(acs_schedule_init_problem(&s, &pb), ACS_OK);
  err = ops->schedule(&pb, opts, &ctx, &s, &d);
  if (err == ACS_OK && s.barriers > 0) {
    tu_assert_verified(&s);
    err = acs_barrier_pass(&pb, &s, &ctx, &d);
  }
  if (err < 0) {
    snprintf(line, size, "%s %s %s status=%s", vname, w->name, sched,
             err == ACS_EINFEASIBLE ? "infeasible" : acs_strerror(err));
  } else {
    tu_assert_verified(&s);
    acs_schedule_finish(&s);
    err = acs_sim_run(p, &s, NULL, &r, &d);
    cr_assert_eq(err, ACS_OK, "%s %s %s: %s", vname, w->name, sched, d.msg);
    snprintf(line, size, "%s %s %s ops=%d plan=%016llx status=ok makespan=%lld sim=%.6f "
             "times=%016llx", vname, w->name, sched, (int)s.nops,
             (unsigned long long)plan_digest(&s), (long long)s.makespan, r.makespan_cycles,
             (unsigned long long)sim_digest(&s));
  }
  acs_schedule_destroy(&s);
  free(opts);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

/* Calls fn(line) for every run of variant v, in grid order. */
static void golden_variant(size_t v, void (*fn)(const char *line, void *ctx), void *ctx)
{
  struct acs_platform p;
  char vname[256], line[1024];

  gvariant_platform(&g_variants[v], &p, vname, sizeof(vname));
  for (size_t w = 0; w < G_NWORKLOADS; w++) {
    struct acs_workload *wl;
    struct acs_diag d;
    int kind;
    acs_diag_init(&d);
    cr_assert_eq(acs_workload_load(tu_path(g_workloads[w]), &wl, &d), ACS_OK, "%s", d.msg);
    kind = wl->kind;
    acs_workload_free(wl);
    for (size_t k = 0; k < sizeof(g_scheds) / sizeof(g_scheds[0]); k++) {
      if (!acs_sched_accepts(acs_sched_find(g_scheds[k]), kind))
        continue;
      golden_line(&p, vname, g_workloads[w], g_scheds[k], line, sizeof(line));
      fn(line, ctx);
    }
  }
}

static void golden_print(const char *line, void *ctx)
{
  fprintf(ctx, "%s\n", line);
}

Test(simgolden, write, .timeout = 600)
{
  const char *path = getenv("ACS_SIM_GOLDEN_WRITE");
  FILE *f;

  if (!path || !*path)
    cr_skip_test("set ACS_SIM_GOLDEN_WRITE=FILE to record the golden replays");
  cr_assert_not_null(f = fopen(path, "w"), "%s", path);
  fprintf(f, "# Golden replays for tests/test-simulate.c (simgolden); how it was made:\n"
             "# tests/data/README.md. One run per line: variant workload scheduler ops\n"
             "# plan-digest status planned-makespan simulated-makespan times-digest.\n");
  for (size_t v = 0; v < G_NVARIANTS; v++)
    golden_variant(v, golden_print, f);
  cr_assert_eq(fclose(f), 0);
}

/* The expected lines of one variant, and how many were matched. */
struct gexpect {
  char **line;
  size_t n, next;
  const char *prefix;
};

static void gexpect_load(struct gexpect *e, const char *prefix)
{
  FILE *f = fopen(tu_path("tests/data/sim-golden.txt"), "r");
  char buf[1024];

  memset(e, 0, sizeof(*e));
  e->prefix = prefix;
  cr_assert_not_null(f, "tests/data/sim-golden.txt is missing");
  cr_assert_not_null(e->line = calloc(1024, sizeof(*e->line)));
  while (fgets(buf, sizeof(buf), f)) {
    buf[strcspn(buf, "\n")] = '\0';
    if (buf[0] == '#' || strncmp(buf, prefix, strlen(prefix)) != 0)
      continue;
    cr_assert_lt(e->n, 1024);
    cr_assert_not_null(e->line[e->n++] = strdup(buf));
  }
  fclose(f);
}

/* Compares one computed line with the next expected one, naming what moved. */
static void golden_check(const char *got, void *ctx)
{
  struct gexpect *e = ctx;
  const char *want, *gp, *wp;

  cr_assert_lt(e->next, e->n, "a run the golden file does not have: %s", got);
  want = e->line[e->next++];
  if (strcmp(got, want) == 0)
    return;
  gp = strstr(got, " plan=");
  wp = strstr(want, " plan=");
  if (gp && wp && strncmp(gp, wp, 22) != 0)
    cr_assert_fail("the planned schedule changed (a scheduler or reader, not the simulator; "
                   "re-record as the test's comment says):\n  got  %s\n  want %s", got, want);
  cr_assert_fail("simulated times changed:\n  got  %s\n  want %s", got, want);
}

static void golden_compare(size_t v)
{
  struct acs_platform p;
  struct gexpect e;
  char vname[256], prefix[260];

  gvariant_platform(&g_variants[v], &p, vname, sizeof(vname));
  snprintf(prefix, sizeof(prefix), "%s ", vname);
  gexpect_load(&e, prefix);
  cr_assert_gt(e.n, 0, "no golden lines for %s", vname);
  golden_variant(v, golden_check, &e);
  cr_assert_eq(e.next, e.n, "%s: %zu golden runs, %zu made", vname, e.n, e.next);
  for (size_t k = 0; k < e.n; k++)
    free(e.line[k]);
  free(e.line);
}

Test(simgolden, default_512_kib_without_barriers, .timeout = 300) { golden_compare(0); }
Test(simgolden, default_512_kib_with_4_barriers, .timeout = 300) { golden_compare(1); }
Test(simgolden, default_2_mib_without_barriers, .timeout = 300) { golden_compare(2); }
Test(simgolden, default_2_mib_with_4_barriers, .timeout = 300) { golden_compare(3); }
Test(simgolden, vpu_without_barriers, .timeout = 300) { golden_compare(4); }
Test(simgolden, vpu_with_4_barriers, .timeout = 300) { golden_compare(5); }
Test(simgolden, vpu_kb_without_barriers, .timeout = 300) { golden_compare(6); }
Test(simgolden, vpu_kb_with_4_barriers, .timeout = 300) { golden_compare(7); }
Test(simgolden, isp4, .timeout = 300) { golden_compare(8); }
