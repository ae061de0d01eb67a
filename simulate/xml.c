/*
 * xml.c - a platform description as a SimGrid XML platform.
 *
 * SimGrid 3.32 builds platforms from C only through XML (zones and links are
 * C++ API), so the executor and users' own SimGrid tools load this file.
 */
#include "config.h"

#include <stdio.h>

#include "simulate/sim.h"

/*
 * Host order: PEs, DMA channels, then the two memories. Only these are
 * routed; "ctl" (ops without a unit: they wait, move nothing) has no links.
 */
enum host_class { H_PE, H_DMA, H_DDR, H_CMX };

struct host {
  int cls;
  int idx;
};

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

static void host_name(char *buf, size_t size, struct host h)
{
  switch (h.cls) {
  case H_PE: snprintf(buf, size, "pe%d", h.idx); break;
  case H_DMA: snprintf(buf, size, "dma%d", h.idx); break;
  case H_DDR: snprintf(buf, size, "ddr"); break;
  default: snprintf(buf, size, "cmx"); break;
  }
}

static struct host host_at(int i, int npe, int ndma)
{
  if (i < npe)
    return (struct host){H_PE, i};
  if (i < npe + ndma)
    return (struct host){H_DMA, i - npe};
  return (struct host){i == npe + ndma ? H_DDR : H_CMX, 0};
}

/* A host's own link: the first hop out of it and the last hop into it. */
static int private_link(char *buf, size_t size, struct host h)
{
  if (h.cls == H_PE)
    snprintf(buf, size, "l_pe%d", h.idx);
  else if (h.cls == H_DMA)
    snprintf(buf, size, "l_dma%d", h.idx);
  else
    return 0;
  return 1;
}

/*
 * The route between two hosts: a's private link, the shared DDR link when
 * either end is DDR, then b's private link. Routes are symmetrical (SimGrid
 * reverses the list for b -> a), which is right because every link is
 * shared by both directions of the traffic it carries.
 */
static void write_route(FILE *f, struct host a, struct host b)
{
  char an[32], bn[32], link[32];

  host_name(an, sizeof(an), a);
  host_name(bn, sizeof(bn), b);
  fprintf(f, "    <route src=\"%s\" dst=\"%s\">", an, bn);
  if (private_link(link, sizeof(link), a))
    fprintf(f, "<link_ctn id=\"%s\"/>", link);
  if (a.cls == H_DDR || b.cls == H_DDR)
    fprintf(f, "<link_ctn id=\"ddr\"/>");
  if (private_link(link, sizeof(link), b))
    fprintf(f, "<link_ctn id=\"%s\"/>", link);
  fprintf(f, "</route>\n");
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

static void write_hosts_and_links(FILE *f, const struct acs_platform *p,
                                  int npe, int ndma)
{
  double speed = hz(p);
  double ddr_bw = acs_platform_ddr_gbps(p) * 1e9;
  double dma_bw = acs_platform_get(p, ACS_P_DMA_GBPS) * 1e9;
  double pe_bw = acs_platform_get(p, ACS_P_LOCAL_GBPS) * 1e9;
  double lat = acs_platform_get(p, ACS_P_DDR_LATENCY_CYCLES) / speed;

  /* One flop per cycle: compute ops execute their duration in flops. */
  for (int i = 0; i < npe; i++)
    fprintf(f, "    <host id=\"pe%d\" speed=\"%.17gf\"/>\n", i, speed);
  for (int k = 0; k < ndma; k++)
    fprintf(f, "    <host id=\"dma%d\" speed=\"%.17gf\"/>\n", k, speed);
  fprintf(f, "    <host id=\"ddr\" speed=\"%.17gf\"/>\n", speed);
  fprintf(f, "    <host id=\"cmx\" speed=\"%.17gf\"/>\n", speed);
  fprintf(f, "    <host id=\"ctl\" speed=\"%.17gf\"/>\n", speed);
  fprintf(f, "    <link id=\"ddr\" bandwidth=\"%.17gBps\" latency=\"%.17gs\"/>\n",
          ddr_bw, lat);
  for (int k = 0; k < ndma; k++)
    fprintf(f, "    <link id=\"l_dma%d\" bandwidth=\"%.17gBps\" latency=\"0s\"/>\n",
            k, dma_bw);
  for (int i = 0; i < npe; i++)
    fprintf(f, "    <link id=\"l_pe%d\" bandwidth=\"%.17gBps\" latency=\"0s\"/>\n",
            i, pe_bw);
}

int acs_sim_xml_write(FILE *f, const struct acs_platform *p)
{
  int npe = (int)acs_platform_get(p, ACS_P_PE_COUNT);
  int ndma = (int)acs_platform_get(p, ACS_P_DMA_CHANNELS);
  int nhost = npe + ndma + 2;

  fprintf(f, "<?xml version='1.0'?>\n");
  fprintf(f, "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
  fprintf(f, "<!-- Generated by acsim %s; the model is described in the acsim README, \"Simulation\". -->\n",
          PACKAGE_VERSION);
  fprintf(f, "<platform version=\"4.1\">\n");
  write_config(f, p);
  /* Full routing: every route is listed, so a reader sees exactly which
   * links a transfer crosses; O(H^2) routes is small for accelerator-sized
   * platforms (SimGrid 3.32 has no star zone in XML). */
  fprintf(f, "  <zone id=\"acsim\" routing=\"Full\">\n");
  fprintf(f, "    <prop id=\"acsim_platform\" value=\"");
  write_escaped(f, p->name);
  fprintf(f, "\"/>\n");
  write_hosts_and_links(f, p, npe, ndma);
  for (int a = 0; a < nhost; a++)
    for (int b = a + 1; b < nhost; b++)
      write_route(f, host_at(a, npe, ndma), host_at(b, npe, ndma));
  fprintf(f, "  </zone>\n");
  fprintf(f, "</platform>\n");
  return ferror(f) ? ACS_EIO : ACS_OK;
}
