/*
 * cmd_platform.c - `acsim platform FILE [--set k=v]...`: resolved parameters.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "simulate/sim.h"

static void print_help(void)
{
  printf("usage: acsim platform [PLATFORM.csv] [--set k=v]... [--row NAME] [--simgrid-xml]\n"
         "                      [-h]\n"
         "\n"
         "Prints every row of a platform file (default platforms/default.csv)\n"
         "with --set overrides applied, and the values derived from it.\n"
         "\n"
         "      --set K=V         override a platform parameter on every row\n"
         "      --row NAME        only the row called NAME\n"
         "      --simgrid-xml     print the SimGrid platform XML that `acsim run`\n"
         "                        simulates on (one row: use --row when the file has\n"
         "                        several), for reuse in your own SimGrid tools\n"
         "  -h, --help            this help\n"
         "\n"
         "Exit 0; 2 on a bad option or a bad or missing platform file.\n"
         "\n"
         "Parameters (CSV columns; a missing column or empty field takes the default;\n"
         "a value outside its range is an error; integers are read exactly):\n");
  for (int i = 0; i < ACS_PARAM_COUNT; i++) {
    char range[48];
    snprintf(range, sizeof(range), acs_param_table[i].integer ? "%.0f .. %.0f" : "%g .. %g",
             acs_param_table[i].min, acs_param_table[i].max);
    printf("  %-20s %-20s default %-8g %s\n", acs_param_table[i].name, range,
           acs_param_table[i].def, acs_param_table[i].doc);
  }
  printf("  %-20s %-20s default %-8s %s\n", "units", "class:n;...", "\"\"",
         "functional units per class of loop workloads (-1 unlimited)");
  printf("  %-20s %-20s %-16s %s\n", "units.CLASS", "-1, 1 .. 1000000", "", "the unit count of one class");
  printf("\nDerived: ddr_gbps = dma_gbps / ddr_ratio; bytes per cycle = GB/s * 1e9 / (freq_mhz * 1e6);\n"
         "a DDR transfer of B bytes takes ddr_latency_cycles + ceil(B / DDR bytes per cycle).\n");
}

static void print_platform(const struct acs_platform *p)
{
  printf("%s\n", p->name);
  for (int i = 0; i < ACS_PARAM_COUNT; i++)
    printf("  %-20s %-12g # %s\n", acs_param_table[i].name, p->v[i], acs_param_table[i].doc);
  if (p->units[0])
    printf("  %-20s %s\n", "units", p->units);
  printf("  derived: cmx_bytes %lld, ddr_gbps %g, ddr_bytes_per_cycle %.4f, "
         "dma_bytes_per_cycle %.4f\n",
         (long long)acs_platform_cmx_bytes(p), acs_platform_ddr_gbps(p),
         acs_platform_ddr_bytes_per_cycle(p), acs_platform_dma_bytes_per_cycle(p));
}

static int print_rows(const struct acs_cli_platforms *plats, const char *row, int xml)
{
  size_t shown = 0, match = 0;

  for (size_t i = 0; i < plats->n; i++)
    if (!row || strcmp(plats->rows[i].name, row) == 0)
      match++;
  if (row && match == 0)
    return acs_cli_usage("platform", "%s has no row named '%s'", plats->path, row);
  if (xml && match != 1)
    return acs_cli_usage("platform", "%s has %zu rows; --simgrid-xml needs one (--row NAME)",
                         plats->path, match);
  for (size_t i = 0; i < plats->n; i++) {
    if (row && strcmp(plats->rows[i].name, row) != 0)
      continue;
    if (xml) {
      int err = acs_sim_xml_write(stdout, &plats->rows[i]);
      if (err == ACS_OK && fflush(stdout) != 0)
        err = ACS_EIO;
      if (err < 0) {
        acs_cli_errorf("cannot write the XML of %s: %s", plats->rows[i].name, acs_strerror(err));
        return ACS_EXIT_USAGE;
      }
    }
    if (!xml)
      print_platform(&plats->rows[i]);
    shown++;
  }
  return shown ? ACS_EXIT_OK : ACS_EXIT_USAGE;
}

struct platform_opts {
  const char *row;
  int xml;
};

static int own_opt(void *ctx, int c, const char *arg)
{
  struct platform_opts *o = ctx;

  if (c == 'r')
    o->row = arg;
  else if (c == 'x')
    o->xml = 1;
  else
    return ACS_CLI_NOT_MINE;
  return ACS_OK;
}

int acs_cmd_platform(int argc, char **argv)
{
  static const struct option own[] = {
    {"row", required_argument, NULL, 'r'}, {"simgrid-xml", no_argument, NULL, 'x'},
    {NULL, 0, NULL, 0}};
  static const struct acs_cli_spec spec = {
    .common = "Sh", .own = own, .print_help = print_help, .own_opt = own_opt};
  struct platform_opts o = {NULL, 0};
  struct acs_cli_args a = {0};
  struct acs_cli_platforms plats;
  const char *path = NULL;
  int err, rc = ACS_EXIT_USAGE;

  if ((err = acs_cli_parse("platform", argc, argv, &spec, &a, &o)) != ACS_OK) {
    rc = err > 0 ? ACS_EXIT_OK : ACS_EXIT_USAGE;
    goto out;
  }
  if (optind < argc)
    path = argv[optind++];
  if (optind < argc) {
    rc = acs_cli_usage("platform", "unexpected argument '%s'", argv[optind]);
    goto out;
  }
  if (acs_cli_load_platforms(path, a.sets.v, a.sets.n, &plats) < 0)
    goto out;
  rc = print_rows(&plats, o.row, o.xml);
  free(plats.rows);
out:
  acs_strv_free(&a.sets);
  return rc;
}
