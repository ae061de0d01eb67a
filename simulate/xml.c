/*
 * xml.c - a platform description as a SimGrid XML platform.
 *
 * SimGrid 3.32 builds platforms from C only through XML (zones and links are
 * C++ API), so the executor and users' own SimGrid tools load this file.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "simulate/sim_int.h"

/* Writes s as XML attribute text. */
static void write_escaped(FILE *f, const char *s)
{
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    default: fputc(*s, f); break;
    }
  }
}

static double hz(const struct acs_platform *p)
{
  return acs_platform_get(p, ACS_P_FREQ_MHZ) * 1e6;
}

double acs_sim_precision_seconds(const struct acs_platform *p)
{
  return 1e-9 / hz(p);
}

/*
 * Why each setting: CM02 is the plain max-min bandwidth-sharing model;
 * crosstraffic would charge 5% of each flow to the reverse direction;
 * TCP-gamma bounds a flow's rate by window / (2 * latency), which a long DDR
 * latency would hit; the latency and bandwidth factors and weight-S are
 * empirical TCP corrections (1, 1 and 0 make a transfer take exactly
 * latency + bytes / bandwidth, and make flows on one link share it
 * equally). surf/precision defaults to 1 ns, which is more than a cycle
 * above 1 GHz (a 1-cycle wait took 2 cycles at 2 GHz); 1e-9 cycle keeps
 * cycle times exact. Below a double's resolution of the clock it simply
 * means exact comparison, which SimGrid's lazy updates handle: a run at
 * 1e12 cycles is tested.
 */
static void write_config(FILE *f, const struct acs_platform *p)
{
  fprintf(f, "  <config>\n");
  fprintf(f, "    <prop id=\"network/model\" value=\"CM02\"/>\n");
  fprintf(f, "    <prop id=\"network/crosstraffic\" value=\"0\"/>\n");
  fprintf(f, "    <prop id=\"network/TCP-gamma\" value=\"0\"/>\n");
  fprintf(f, "    <prop id=\"network/latency-factor\" value=\"1\"/>\n");
  fprintf(f, "    <prop id=\"network/bandwidth-factor\" value=\"1\"/>\n");
  fprintf(f, "    <prop id=\"network/weight-S\" value=\"0\"/>\n");
  fprintf(f, "    <prop id=\"surf/precision\" value=\"%.17g\"/>\n",
          acs_sim_precision_seconds(p));
  fprintf(f, "  </config>\n");
}

/*
 * Hosts, links and each host's own link. In a Cluster zone (SimGrid 3.32
 * makes it a star) a transfer from a to b crosses a's host link, then b's;
 * a host without one (cmx, ctl) adds nothing, and a link on both ends of a
 * route counts once. So DDR<->dma<k> crosses [ddr, l_dma<k>], dma<k><->CMX
 * [l_dma<k>], pe<i>->pe<j> [l_pe<i>, l_pe<j>], and the routes cost O(H),
 * derived by SimGrid rather than listed. A host link serves both
 * directions (up = down), as every link here is shared by the traffic it
 * carries either way.
 */
static void write_hosts_and_links(FILE *f, const struct acs_platform *p,
                                  const int32_t *unit_id, int32_t nunits)
{
  int32_t npe = (int32_t)acs_platform_get(p, ACS_P_PE_COUNT);
  double speed = hz(p);
  double ddr_bw = acs_platform_ddr_gbps(p) * 1e9;
  double dma_bw = acs_platform_get(p, ACS_P_DMA_GBPS) * 1e9;
  double pe_bw = acs_platform_get(p, ACS_P_LOCAL_GBPS) * 1e9;
  double lat = acs_platform_get(p, ACS_P_DDR_LATENCY_CYCLES) / speed;

  /* One flop per cycle: compute ops execute their duration in flops. */
  for (int32_t u = 0; u < nunits; u++)
    fprintf(f, "    <host id=\"%s%d\" speed=\"%.17gf\"/>\n", unit_id[u] < npe ? "pe" : "dma",
            (int)(unit_id[u] < npe ? unit_id[u] : unit_id[u] - npe), speed);
  fprintf(f, "    <host id=\"ddr\" speed=\"%.17gf\"/>\n", speed);
  fprintf(f, "    <host id=\"cmx\" speed=\"%.17gf\"/>\n", speed);
  fprintf(f, "    <host id=\"ctl\" speed=\"%.17gf\"/>\n", speed);
  fprintf(f, "    <link id=\"ddr\" bandwidth=\"%.17gBps\" latency=\"%.17gs\"/>\n",
          ddr_bw, lat);
  fprintf(f, "    <host_link id=\"ddr\" up=\"ddr\" down=\"ddr\"/>\n");
  for (int32_t u = 0; u < nunits; u++) {
    int k = (int)(unit_id[u] - npe);
    if (unit_id[u] < npe)
      continue;
    fprintf(f, "    <link id=\"l_dma%d\" bandwidth=\"%.17gBps\" latency=\"0s\"/>\n",
            k, dma_bw);
    fprintf(f, "    <host_link id=\"dma%d\" up=\"l_dma%d\" down=\"l_dma%d\"/>\n", k, k, k);
  }
  for (int32_t u = 0; u < nunits && unit_id[u] < npe; u++) {
    int i = (int)unit_id[u];
    fprintf(f, "    <link id=\"l_pe%d\" bandwidth=\"%.17gBps\" latency=\"0s\"/>\n",
            i, pe_bw);
    fprintf(f, "    <host_link id=\"pe%d\" up=\"l_pe%d\" down=\"l_pe%d\"/>\n", i, i, i);
  }
}

/* Keep in step with write_hosts_and_links and write_config: every value
 * they read is compared here (test-simulate checks the two agree). */
int acs_sim_platform_cmp(const struct acs_platform *a, const struct acs_platform *b)
{
  static const enum acs_param sim_params[] = {
      ACS_P_FREQ_MHZ,  ACS_P_PE_COUNT,   ACS_P_DMA_CHANNELS,
      ACS_P_DMA_GBPS,  ACS_P_LOCAL_GBPS, ACS_P_DDR_LATENCY_CYCLES,
  };
  double x, y;

  for (size_t i = 0; i < sizeof(sim_params) / sizeof(sim_params[0]); i++) {
    x = acs_platform_get(a, sim_params[i]);
    y = acs_platform_get(b, sim_params[i]);
    if (x != y)
      return x < y ? -1 : 1;
  }
  x = acs_platform_ddr_gbps(a);
  y = acs_platform_ddr_gbps(b);
  return x < y ? -1 : x > y;
}

int acs_sim_xml_write(FILE *f, const struct acs_platform *p)
{
  return acs__sim_xml_write(f, p, 1);
}

/* Every PE and channel, as units: ACS_ERANGE past ACS__SIM_MAX_UNITS. */
int acs__sim_xml_write(FILE *f, const struct acs_platform *p, int named)
{
  double units = acs_platform_get(p, ACS_P_PE_COUNT) + acs_platform_get(p, ACS_P_DMA_CHANNELS);
  int32_t *id;
  int err;

  if (!(units <= ACS__SIM_MAX_UNITS))
    return ACS_ERANGE;
  if (!(id = malloc(((size_t)units + 1) * sizeof(*id))))
    return ACS_ENOMEM;
  for (int32_t u = 0; u < (int32_t)units; u++)
    id[u] = u;
  err = acs__sim_xml_write_units(f, p, named, id, (int32_t)units);
  free(id);
  return err;
}

int acs__sim_xml_write_units(FILE *f, const struct acs_platform *p, int named,
                             const int32_t *unit_id, int32_t nunits)
{
  fprintf(f, "<?xml version='1.0'?>\n");
  fprintf(f, "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
  fprintf(f, "<!-- Generated by acsim %s; the model is described in the acsim README, \"Simulation\". -->\n",
          PACKAGE_VERSION);
  fprintf(f, "<platform version=\"4.1\">\n");
  write_config(f, p);
  fprintf(f, "  <zone id=\"acsim\" routing=\"Cluster\">\n");
  if (named) {
    fprintf(f, "    <prop id=\"acsim_platform\" value=\"");
    write_escaped(f, p->name);
    fprintf(f, "\"/>\n");
  }
  write_hosts_and_links(f, p, unit_id, nunits);
  fprintf(f, "  </zone>\n");
  fprintf(f, "</platform>\n");
  return ferror(f) ? ACS_EIO : ACS_OK;
}
