/*
 * cmd_report.c - `acsim report study.h5 -o DIR`: the HTML report with
 * gnuplot plots (logic in report/html.c and report/plots.c).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"

static const char report_help[] =
  "usage: acsim report STUDY.h5 [-o DIR] [--gnuplot PROGRAM] [--max K=N]... [-h]\n"
  "\n"
  "Writes DIR/index.html (default DIR: report), a page that opens offline in\n"
  "any browser and answers first: per workload, the smallest CMX within 5% of\n"
  "the best at each barrier count, the fewest barriers within 5% of no limit\n"
  "at each CMX size, and what more PEs buy. The best run of a configuration is\n"
  "its fastest run of a scheduler that keeps tensors resident in CMX (when the\n"
  "workload has one), in every table, heatmap and Gantt chart. Then the\n"
  "schedulers against the best of each configuration, and per workload its\n"
  "family's figure (II against MII for loops, latency against the parameter\n"
  "for recurrence equations, the cascade's Pareto front, gang over PEs x\n"
  "VMEM), makespan against the varied parameters, a heatmap, bytes through\n"
  "DDR, the cost of contention and Gantt charts of the best and worst run; a\n"
  "plot without data is left out with a sentence. DIR/runs.csv has every run\n"
  "with its platform's parameters as columns. The plots are SVG made by\n"
  "gnuplot; each plot's script (.gp) and data (.dat) sit next to it in\n"
  "DIR/plots, so `cd DIR/plots && gnuplot NAME.gp` redraws it after an edit.\n"
  "\n"
  "  -o, --output DIR      output directory (created; files in it are replaced)\n"
  "      --gnuplot PROG    the gnuplot to run (default: gnuplot on PATH)\n"
  "      --max K=N         raise a limit on what an input may cost (ops, edges,\n"
  "                        bytes, isl_ops; docs/fuzzing.md), for the whole command\n"
  "  -h, --help            this help\n"
  "\n"
  "Without gnuplot (Debian: apt-get install gnuplot-nox) the page, runs.csv and\n"
  "the scripts and data are still written, and the page says how to make the\n"
  "plots. Exit 0; 1 when gnuplot failed on a plot; 2 on a bad option, a bad\n"
  "or missing study, or an output directory it cannot write.\n";

int acs_cmd_report(int argc, char **argv)
{
  static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'}, {"gnuplot", required_argument, NULL, 'g'},
    {"max", required_argument, NULL, 'L'},    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  struct acs_report_opts o = {NULL};
  struct acs_report_info info;
  struct acs_diag d;
  const char *dir = "report";
  int c, err;

  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': dir = optarg; break;
    case 'g': o.gnuplot = optarg; break;
    case 'L':
      if (acs_cli_set_limit("report", optarg) < 0)
        return ACS_EXIT_USAGE;
      break;
    case 'h': fputs(report_help, stdout); return ACS_EXIT_OK;
    case ':': return acs_cli_usage("report", "option '%s' needs a value", argv[optind - 1]);
    default: return acs_cli_usage("report", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (argc - optind != 1)
    return acs_cli_usage("report", "expected one results file (STUDY.h5)");
  if (!*dir)
    return acs_cli_usage("report", "-o: empty directory name");
  acs_diag_init(&d);
  if ((err = acs_report_write(argv[optind], dir, &o, &info, &d)) < 0) {
    if (d.msg[0])
      acs_cli_error(&d);
    else
      acs_cli_errorf("%s", acs_strerror(err));
    /* Whatever stopped it (a missing or bad study, an output directory it
     * cannot write), the report was not made: 2, as in every command. */
    return ACS_EXIT_USAGE;
  }
  if (info.gnuplot_missing)
    fprintf(stderr, "acsim report: gnuplot not found (%s); wrote the page, runs.csv and the "
                    "plot scripts and data without the plots. Install it (Debian: apt-get "
                    "install gnuplot-nox) and run the same command again.\n",
            info.gnuplot_error);
  else if (info.plot_failures)
    fprintf(stderr, "acsim report: %zu of %zu plots failed; first: %s\n", info.plot_failures,
            info.plots, info.gnuplot_error);
  printf("report: %zu runs, %zu workloads, %zu plots, %zu Gantt charts\n", info.runs,
         info.workloads, info.plots - info.plot_failures, info.gantts);
  printf("open %s/index.html (runs.csv: every run, one row each)\n", dir);
  return info.plot_failures && !info.gnuplot_missing ? ACS_EXIT_FAIL : ACS_EXIT_OK;
}
