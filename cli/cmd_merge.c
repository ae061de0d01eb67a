/*
 * cmd_merge.c - `acsim merge a.h5 b.h5 ... -o all.h5`: joins results files,
 * e.g. the shards of one sweep (logic in report/merge.c).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"

static const char merge_help[] =
  "usage: acsim merge A.h5 B.h5 ... -o ALL.h5 [--max K=N]... [-h]\n"
  "\n"
  "Appends every run of the inputs (with their platforms, workloads and stored\n"
  "schedules) to ALL.h5, creating it when missing; e.g. the shards of a sweep\n"
  "run with --shard K/N. The inputs must be results files of this schema, and\n"
  "no run may appear twice (in two inputs, or already in ALL.h5): a run is\n"
  "identified by its platform variant and parameters, workload, scheduler and\n"
  "options. Nothing is written unless every input merges.\n"
  "\n"
  "  -o, --output FILE     the merged file (required)\n"
  "      --max K=N         raise a limit on what an input may cost (ops, edges,\n"
  "                        bytes, isl_ops; docs/fuzzing.md), for the whole command\n"
  "  -h, --help            this help\n"
  "\n"
  "Exit 0; 2 on a bad option, a bad or missing input, a duplicate run, or an\n"
  "output it cannot write (nothing is written then).\n";

int acs_cmd_merge(int argc, char **argv)
{
  static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'}, {"help", no_argument, NULL, 'h'},
    {"max", required_argument, NULL, 'L'},    {NULL, 0, NULL, 0}};
  struct acs_merge_stats st;
  struct acs_diag d;
  const char *output = NULL;
  char *cmdline;
  int c, err;

  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': output = optarg; break;
    case 'L':
      if (acs_cli_set_limit("merge", optarg) < 0)
        return ACS_EXIT_USAGE;
      break;
    case 'h': fputs(merge_help, stdout); return ACS_EXIT_OK;
    case ':': return acs_cli_usage("merge", "option '%s' needs a value", argv[optind - 1]);
    default: return acs_cli_usage("merge", "unknown option '%s'", argv[optind - 1]);
    }
  }
  if (!output || !*output)
    return acs_cli_usage("merge", "no output: give -o ALL.h5");
  if (optind >= argc)
    return acs_cli_usage("merge", "no input files");
  acs_diag_init(&d);
  cmdline = acs_cli_join_argv(argc, argv);
  err = acs_merge((const char *const *)argv + optind, (size_t)(argc - optind), output,
                  cmdline ? cmdline : "acsim merge", &st, &d);
  free(cmdline);
  if (err < 0) {
    if (d.msg[0])
      acs_cli_error(&d);
    else
      acs_cli_errorf("%s", acs_strerror(err));
    /* Nothing was merged (a missing or bad input, an output it cannot
     * write): 2, as in every command. */
    return ACS_EXIT_USAGE;
  }
  printf("merged %zu run%s (%zu schedule%s) from %zu file%s into %s", st.runs,
         st.runs == 1 ? "" : "s", st.schedules, st.schedules == 1 ? "" : "s", st.inputs,
         st.inputs == 1 ? "" : "s", output);
  if (st.existing)
    printf(" (which already held %zu)", st.existing);
  printf("\n");
  return ACS_EXIT_OK;
}
