/*
 * cmd_compare.c - `acsim compare BASE.h5 HEAD.h5`: regressions between two
 * studies, for people and CI (logic in report/compare.c).
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"

static const char compare_help[] =
  "usage: acsim compare BASE.h5 HEAD.h5 [--metric NAME] [--tolerance PCT]\n"
  "                     [--match name|params] [--format text|markdown]\n"
  "                     [--junit FILE] [--limit N] [--max K=N]... [-h]\n"
  "\n"
  "Matches the runs of two results files by platform variant name, workload,\n"
  "scheduler and options (--match params: by the platform's parameters\n"
  "instead of its name) and prints, worst first: regressions beyond the\n"
  "tolerance, improvements, status changes, and runs missing from or new in\n"
  "HEAD. A run that was ok and is not any more, or that became `error`, is a\n"
  "regression whatever the metric says.\n"
  "\n"
  "      --metric NAME     a numeric /runs column (default sim_makespan_cycles);\n"
  "                        utilizations are better higher, all others lower\n"
  "      --tolerance PCT   relative change ignored, in percent (default 1)\n"
  "      --match name|params  how runs are matched (default name)\n"
  "      --format text|markdown  markdown for CI comments (default text)\n"
  "      --junit FILE      also write JUnit XML: a test case per run, a failure\n"
  "                        per regression\n"
  "      --limit N         at most N rows per section (default all)\n"
  "      --max K=N         raise a limit on what an input may cost (ops, edges,\n"
  "                        bytes, isl_ops; docs/fuzzing.md), for the whole command\n"
  "  -h, --help            this help\n"
  "\n"
  "Exit 0 when nothing regressed; 1 on any regression; 2 on a bad option, a\n"
  "bad or missing input, or a --junit file it cannot write.\n";

struct compare_args {
  struct acs_compare_opts o;
  int format;
  const char *junit;
  size_t limit;
};

static int parse_option(int c, const char *arg, struct compare_args *a)
{
  char *end;

  switch (c) {
  case 'm': a->o.metric = arg; return ACS_OK;
  case 't':
    a->o.tolerance = strtod(arg, &end) / 100.0;
    if (*end || end == arg || !(a->o.tolerance >= 0) || !isfinite(a->o.tolerance))
      return acs_cli_usage("compare", "--tolerance: '%s' is not a percentage >= 0", arg),
             ACS_EINVAL;
    return ACS_OK;
  case 'M':
    if (strcmp(arg, "name") != 0 && strcmp(arg, "params") != 0)
      return acs_cli_usage("compare", "--match: '%s' is not name or params", arg), ACS_EINVAL;
    a->o.match = strcmp(arg, "params") == 0 ? ACS_KEY_PARAMS : ACS_KEY_NAME;
    return ACS_OK;
  case 'f':
    if (strcmp(arg, "text") != 0 && strcmp(arg, "markdown") != 0)
      return acs_cli_usage("compare", "--format: '%s' is not text or markdown", arg), ACS_EINVAL;
    a->format = strcmp(arg, "markdown") == 0 ? ACS_CMP_MARKDOWN : ACS_CMP_TEXT;
    return ACS_OK;
  case 'j': a->junit = arg; return ACS_OK;
  case 'L': return acs_cli_set_limit("compare", arg);
  default: { /* 'l' */
    long n = strtol(arg, &end, 10);
    if (*end || end == arg || n < 0)
      return acs_cli_usage("compare", "--limit: '%s' is not a count", arg), ACS_EINVAL;
    a->limit = (size_t)n;
    return ACS_OK;
  }
  }
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
  static const struct option longopts[] = {
    {"metric", required_argument, NULL, 'm'}, {"tolerance", required_argument, NULL, 't'},
    {"match", required_argument, NULL, 'M'},  {"format", required_argument, NULL, 'f'},
    {"junit", required_argument, NULL, 'j'},  {"limit", required_argument, NULL, 'l'},
    {"max", required_argument, NULL, 'L'},    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  int c;

  memset(a, 0, sizeof(*a));
  a->o.tolerance = 0.01;
  a->o.match = ACS_KEY_NAME;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
    switch (c) {
    case 'h': fputs(compare_help, stdout); return 1;
    case ':': return acs_cli_usage("compare", "option '%s' needs a value", argv[optind - 1]), ACS_EINVAL;
    case '?': return acs_cli_usage("compare", "unknown option '%s'", argv[optind - 1]), ACS_EINVAL;
    default:
      if (parse_option(c, optarg, a) < 0)
        return ACS_EINVAL;
    }
  }
  if (argc - optind != 2)
    return acs_cli_usage("compare", "expected two files, BASE.h5 and HEAD.h5"), ACS_EINVAL;
  return ACS_OK;
}

int acs_cmd_compare(int argc, char **argv)
{
  struct acs_results_data base, head;
  struct acs_compare_result r;
  struct compare_args a;
  struct acs_diag d;
  int err, rc = ACS_EXIT_USAGE;

  if ((err = parse_args(argc, argv, &a)) != ACS_OK)
    return err > 0 ? ACS_EXIT_OK : ACS_EXIT_USAGE;
  acs_diag_init(&d);
  /* The metric first: a typo should not wait for two files to load. */
  if (a.o.metric && !acs_metric_find(a.o.metric)) {
    char names[1024];
    acs_metric_names(names, sizeof(names));
    return acs_cli_usage("compare", "--metric: unknown metric '%s' (numeric /runs columns: %s)",
                         a.o.metric, names);
  }
  if (acs_results_read(argv[optind], &base, &d) < 0) {
    acs_cli_error(&d);
    return ACS_EXIT_USAGE;
  }
  if (acs_results_read(argv[optind + 1], &head, &d) < 0) {
    acs_cli_error(&d);
    goto out_with_base;
  }
  if ((err = acs_compare_data(&base, &head, &a.o, &r, &d)) < 0) {
    acs_cli_error(&d);
    goto out_with_head;
  }
  acs_compare_write(stdout, &r, a.format, argv[optind], argv[optind + 1], a.limit);
  rc = r.count[ACS_CMP_REGRESSION] > 0 ? ACS_EXIT_FAIL : ACS_EXIT_OK;
  if (a.junit && acs_compare_write_junit(a.junit, &r, argv[optind], argv[optind + 1], &d) < 0) {
    acs_cli_error(&d);
    rc = ACS_EXIT_USAGE;
  }
  acs_compare_free(&r);
out_with_head:
  acs_results_data_free(&head);
out_with_base:
  acs_results_data_free(&base);
  return rc;
}
