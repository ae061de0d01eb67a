/*
 * args.c - the command line of the commands that run schedulers (run,
 * sweep, validate): one table of their common options and one getopt loop
 * (cli.h, acs_cli_parse).
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/job.h"

/* Every common option; a command takes those whose codes it names. */
static const struct option common_opts[] = {
  {"platform", required_argument, NULL, ACS_OPT_PLATFORM},
  {"workload", required_argument, NULL, ACS_OPT_WORKLOAD},
  {"sched", required_argument, NULL, ACS_OPT_SCHED},
  {"option", required_argument, NULL, ACS_OPT_OPTION},
  {"set", required_argument, NULL, ACS_OPT_SET},
  {"output", required_argument, NULL, ACS_OPT_OUTPUT},
  {"no-sim", no_argument, NULL, ACS_OPT_NO_SIM},
  {"time-limit", required_argument, NULL, ACS_OPT_TIME_LIMIT},
  {"seed", required_argument, NULL, ACS_OPT_SEED},
  {"quiet", no_argument, NULL, ACS_OPT_QUIET},
  {"help", no_argument, NULL, ACS_OPT_HELP},
  {"time-step", required_argument, NULL, ACS_OPT_TIME_STEP},
  {"sim-timeout", required_argument, NULL, ACS_OPT_SIM_TIMEOUT},
  {"max", required_argument, NULL, ACS_OPT_MAX},
};
#define NCOMMON (sizeof(common_opts) / sizeof(common_opts[0]))
#define MAXOPTS 32

/* The short form of a common option (-p, -w, ...); 0 for a long-only one. */
static int has_short(int code)
{
  return strchr("pwsOoqh", code) != NULL;
}

static int common_opt(const char *cmd, int c, const char *arg, const struct acs_cli_spec *spec,
                      struct acs_cli_args *a)
{
  switch (c) {
  case ACS_OPT_PLATFORM: a->platform = arg; return ACS_OK;
  case ACS_OPT_WORKLOAD: return acs_strv_push(&a->workloads, (char *)arg) < 0 ? ACS_ENOMEM : ACS_OK;
  case ACS_OPT_SCHED: a->sched = arg; a->sched_given = 1; return ACS_OK;
  case ACS_OPT_OPTION: return acs_strv_push(&a->opts, (char *)arg) < 0 ? ACS_ENOMEM : ACS_OK;
  case ACS_OPT_SET: return acs_strv_push(&a->sets, (char *)arg) < 0 ? ACS_ENOMEM : ACS_OK;
  case ACS_OPT_OUTPUT: a->output = arg; return ACS_OK;
  case ACS_OPT_NO_SIM: a->no_sim = 1; return ACS_OK;
  case ACS_OPT_QUIET: a->quiet = 1; return ACS_OK;
  case ACS_OPT_TIME_LIMIT:
    return acs_cli_parse_seconds(cmd, "--time-limit", arg, &a->time_limit) < 0 ? ACS_EINVAL
                                                                                : ACS_OK;
  case ACS_OPT_SEED:
    return acs_cli_parse_seed(cmd, arg, &a->seed) < 0 ? ACS_EINVAL : ACS_OK;
  case ACS_OPT_TIME_STEP:
    /* Shorthand for -O time_step=N (ilp): quantization of durations. */
    snprintf(a->time_step_kv, sizeof(a->time_step_kv), "time_step=%s", arg);
    return acs_strv_push(&a->opts, a->time_step_kv) < 0 ? ACS_ENOMEM : ACS_OK;
  case ACS_OPT_SIM_TIMEOUT:
    return acs_job_parse_sim_timeout(cmd, arg) < 0 ? ACS_EINVAL : ACS_OK;
  case ACS_OPT_MAX:
    return acs_cli_set_limit(cmd, arg) < 0 ? ACS_EINVAL : ACS_OK;
  default: /* ACS_OPT_HELP */
    if (spec->help)
      fputs(spec->help, stdout);
    else
      spec->print_help();
    return 1;
  }
}

int acs_cli_parse(const char *cmd, int argc, char **argv, const struct acs_cli_spec *spec,
                  struct acs_cli_args *a, void *ctx)
{
  struct option longopts[MAXOPTS + 1];
  char shortopts[2 * MAXOPTS + 2] = ":";
  size_t n = 0, ns = 1;
  int c, err;

  for (size_t i = 0; i < NCOMMON; i++)
    if (strchr(spec->common, common_opts[i].val))
      longopts[n++] = common_opts[i];
  for (const struct option *o = spec->own; o && o->name && n < MAXOPTS; o++)
    longopts[n++] = *o;
  memset(&longopts[n], 0, sizeof(longopts[n]));
  for (const char *p = spec->common; *p; p++)
    if (has_short(*p)) {
      shortopts[ns++] = *p;
      if (*p != ACS_OPT_QUIET && *p != ACS_OPT_HELP)
        shortopts[ns++] = ':';
    }
  snprintf(shortopts + ns, sizeof(shortopts) - ns, "%s", spec->own_short ? spec->own_short : "");
  if (strchr(spec->common, ACS_OPT_SCHED))
    a->sched = spec->sched;
  if (strchr(spec->common, ACS_OPT_SEED))
    a->seed = 1;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
    if (c == ':')
      return acs_cli_usage(cmd, "option '%s' needs a value", argv[optind - 1]), ACS_EINVAL;
    if (c > 0 && c != '?' && strchr(spec->common, c))
      err = common_opt(cmd, c, optarg, spec, a);
    else if (c > 0 && c != '?' && spec->own_opt)
      err = spec->own_opt(ctx, c, optarg);
    else
      err = ACS_CLI_NOT_MINE;
    if (err == ACS_CLI_NOT_MINE)
      return acs_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]), ACS_EINVAL;
    if (err != ACS_OK)
      return err;
  }
  return ACS_OK;
}

int acs_cli_setup_stop(int failed, int *rc)
{
  if (acs_cli_interrupted) {
    *rc = ACS_EXIT_INTERRUPTED;
    return 1;
  }
  return failed;
}

int acs_cli_started(int err, int *rc)
{
  if (err != ACS_OK) {
    *rc = err > 0 ? ACS_EXIT_OK : ACS_EXIT_USAGE;
    return 0;
  }
  /* From here on SIGINT and SIGTERM only set a flag that every phase
   * checks: the finished runs are kept and the command exits 130. */
  acs_cli_catch_signals();
  return 1;
}
