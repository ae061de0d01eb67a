/*
 * test-simulate-platform.c - exact transfer times (alone, shared, local) and
 * the SimGrid platform XML (1, 4, 64 PEs; routes link by link; size linear).
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
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "simulate/sim_int.h"
#include "tests/testutil.h"
#include "tests/sim_util.h"

/* ---- transfers ---- */

Test(simulate, uncontended_ddr_transfer_takes_latency_plus_bytes_over_ddr_bandwidth)
{
  struct fix f;
  struct acs_sim_result r;
  int32_t a;

  tu_graph_npu(&f.g, "one");
  a = dma_op(&f.g, "load", MIB, ACS_MEM_DDR, ACS_MEM_CMX);
  fix_bind(&f, NULL);
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
  fix_bind(&f, sets);
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
  fix_bind(&f, NULL);
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
  fix_bind(&f, NULL);
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
  fix_bind(&f, NULL);
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
  fix_bind(&f, sets);
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
  fix_bind(&f, sets);
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

