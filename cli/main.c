/*
 * main.c - `acsim` entry point: dispatches to the subcommands.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli/cli.h"
#include "simulate/sim.h"

static const struct {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *summary;
} commands[] = {
  {"run", acs_cmd_run, "schedule (and simulate) workloads on a platform, store results"},
  {"list", acs_cmd_list, "list schedulers, shipped platforms or workloads"},
  {"platform", acs_cmd_platform, "print a platform's resolved parameters"},
  {"workload", acs_cmd_workload, "a workload's layers, MACs, parameters, working set, op graph"},
  {"validate", acs_cmd_validate, "run schedulers over a benchmark set with known optima"},
  {"sweep", acs_cmd_sweep, "trade study: every variant x workload x scheduler, in parallel"},
  {"report", acs_cmd_report, "HTML report with plots of a study"},
  {"compare", acs_cmd_compare, "regressions between two results files (exit 1 on any)"},
  {"merge", acs_cmd_merge, "join results files (e.g. the shards of a sweep)"},
};

static void usage(FILE *f)
{
  fprintf(f,
          "usage: acsim COMMAND [ARGS]...\n"
          "       acsim --version | --help\n"
          "\n"
          "acsim is a hardware co-design simulator: parameterized platforms drive\n"
          "scheduler variants over workloads; results go to HDF5.\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f,
          "\n"
          "`acsim COMMAND --help` describes one command. Exit codes, the same in\n"
          "every command: 0 ok; 1 the command did its work and a check failed (a\n"
          "run ended in error, a regression); 2 it could not do its work (a bad\n"
          "option, a bad or missing input, an output it cannot write); 130\n"
          "interrupted (Ctrl-C; finished runs are kept).\n");
}

/*
 * A run allocates and frees arrays of megabytes (a barrier pass on 20,000
 * ops, the verifier's reachability rows), hundreds of times in a sweep
 * worker. glibc serves blocks from 128 KiB up (its threshold grows only to
 * 32 MiB) with mmap and returns them at free, so every run faulted its
 * pages in afresh: a tenth of a sweep's CPU, mostly system time (1.56 M
 * minor faults on a 30-run ResNet-18 sweep, 0.21 M with this). Blocks below
 * 512 MiB come from the heap and stay for the next run; the peak resident
 * size stays what the largest run needs.
 */
static void malloc_keep_memory(void)
{
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 512 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int main(int argc, char **argv)
{
  malloc_keep_memory();
  if (argc < 2) {
    usage(stderr);
    return ACS_EXIT_USAGE;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
      strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return ACS_EXIT_OK;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
    printf("acsim %s\n", PACKAGE_VERSION);
    return ACS_EXIT_OK;
  }
  for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
    if (strcmp(argv[1], commands[i].name) == 0) {
      int rc = commands[i].fn(argc - 1, argv + 1);
      /* Reap the simulation processes: left to PR_SET_PDEATHSIG, they end
       * children of init, and the CPU time they spent is missing from the
       * rusage of `time acsim ...` (a fifth to a third of a sweep's). */
      acs_sim_shutdown();
      return rc;
    }
  fprintf(stderr, "acsim: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return ACS_EXIT_USAGE;
}
