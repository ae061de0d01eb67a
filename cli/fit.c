/*
 * fit.c - which selected schedulers run on which workloads.
 *
 * A scheduler runs only on the workload kinds it takes (`acsim list
 * schedulers`), so a selection can leave (scheduler, workload) pairs out.
 * That must never make a command silently do nothing: a scheduler named
 * with -s that takes none of the workloads is an error naming the kinds it
 * takes, unless another selected scheduler runs, in which case the pairs
 * left out are counted and named once, before anything runs.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

/* Workload names listed in one message, before "and N more". */
#define NAMES_SHOWN 4

/* "loop" or "dnn, graph, psplib or stg": the kinds ops takes. */
static void kinds_text(const struct acs_sched_ops *ops, char *buf, size_t size)
{
  int n = 0, total = 0;
  size_t off = 0;

  buf[0] = '\0';
  for (int k = 0; k < ACS_WL__COUNT; k++)
    total += (ops->kinds >> k) & 1u;
  for (int k = 0; k < ACS_WL__COUNT && off < size; k++)
    if (ops->kinds & (1u << k)) {
      const char *sep = n == 0 ? "" : n == total - 1 ? " or " : ", ";
      off += (size_t)snprintf(buf + off, size - off, "%s%s", sep, acs_wl_kind_name(k));
      n++;
    }
}

/* "alexnet, resnet18 and 3 more" for the workloads with mark[j] set. */
static void names_text(const struct acs_cli_wl *wls, size_t nwl, const unsigned char *mark,
                       char *buf, size_t size)
{
  size_t shown = 0, total = 0, off = 0;

  buf[0] = '\0';
  for (size_t j = 0; j < nwl; j++)
    total += mark[j];
  for (size_t j = 0; j < nwl && off < size; j++) {
    if (!mark[j] || shown == NAMES_SHOWN)
      continue;
    off += (size_t)snprintf(buf + off, size - off, "%s%s (%s)", shown ? ", " : "", wls[j].name,
                            acs_wl_kind_name(wls[j].kind));
    shown++;
  }
  if (total > shown && off < size)
    snprintf(buf + off, size - off, " and %zu more", total - shown);
}

/* The error: no selected scheduler takes any workload given. */
static int nothing_runs(const char *cmd, const struct acs_sched_ops *const *ops, size_t nops,
                        const struct acs_cli_wl *wls, size_t nwl, unsigned char *mark)
{
  char kinds[128], names[512], msg[2048];
  size_t off = 0;

  for (size_t k = 0; k < nops && off < sizeof(msg); k++) {
    kinds_text(ops[k], kinds, sizeof(kinds));
    off += (size_t)snprintf(msg + off, sizeof(msg) - off, "%s%s takes %s workloads",
                            k ? ", " : "", ops[k]->name, kinds);
  }
  memset(mark, 1, nwl);
  names_text(wls, nwl, mark, names, sizeof(names));
  acs_cli_usage(cmd, "nothing to run: %s, and the workloads given are %s. Select schedulers "
                "that take them with -s (`acsim list schedulers` shows what each takes)", msg,
                names);
  return ACS_EINVAL;
}

/* The note: each scheduler that skips workloads, with them, once. */
static void note_skipped(const char *cmd, const struct acs_sched_ops *const *ops, size_t nops,
                         const struct acs_cli_wl *wls, size_t nwl, unsigned char *mark,
                         const struct acs_cli_fit *fit)
{
  char kinds[128], names[512];
  size_t orphans = 0;

  fprintf(stderr, "acsim %s: note: %zu of %zu scheduler-workload pairs do not run, their "
                  "scheduler does not take the workload's kind:\n", cmd, fit->skipped,
          fit->skipped + fit->pairs);
  for (size_t k = 0; k < nops; k++) {
    size_t n = 0;
    for (size_t j = 0; j < nwl; j++)
      n += mark[j] = !acs_sched_accepts(ops[k], wls[j].kind);
    if (n == 0)
      continue;
    kinds_text(ops[k], kinds, sizeof(kinds));
    names_text(wls, nwl, mark, names, sizeof(names));
    fprintf(stderr, "  %s (takes %s) skips %s\n", ops[k]->name, kinds, names);
  }
  for (size_t j = 0; j < nwl; j++) {
    mark[j] = 1;
    for (size_t k = 0; k < nops && mark[j]; k++)
      mark[j] = !acs_sched_accepts(ops[k], wls[j].kind);
    orphans += mark[j];
  }
  if (orphans) {
    names_text(wls, nwl, mark, names, sizeof(names));
    fprintf(stderr, "  no selected scheduler runs on %s\n", names);
  }
}

int acs_cli_fit_check(const char *cmd, const struct acs_sched_ops *const *ops, size_t nops,
                      const struct acs_cli_wl *wls, size_t nwl, int named, int quiet,
                      struct acs_cli_fit *fit)
{
  unsigned char *mark = calloc(nwl ? nwl : 1, 1);

  if (!mark)
    return ACS_ENOMEM;
  memset(fit, 0, sizeof(*fit));
  for (size_t k = 0; k < nops; k++)
    for (size_t j = 0; j < nwl; j++) {
      if (acs_sched_accepts(ops[k], wls[j].kind))
        fit->pairs++;
      else
        fit->skipped++;
    }
  if (fit->pairs == 0 && nwl > 0) {
    int err = nothing_runs(cmd, ops, nops, wls, nwl, mark);
    free(mark);
    return err;
  }
  if (named && fit->skipped > 0 && !quiet)
    note_skipped(cmd, ops, nops, wls, nwl, mark, fit);
  free(mark);
  return ACS_OK;
}

int acs_cli_fit_workloads(const char *cmd, const struct acs_sched_ops *const *ops, size_t nops,
                          struct acs_workload *const *wls, size_t nwl, int named, int quiet,
                          struct acs_cli_fit *fit)
{
  struct acs_cli_wl *v = calloc(nwl ? nwl : 1, sizeof(*v));
  int err;

  if (!v)
    return ACS_ENOMEM;
  for (size_t j = 0; j < nwl; j++)
    v[j] = (struct acs_cli_wl){wls[j]->name, wls[j]->kind};
  err = acs_cli_fit_check(cmd, ops, nops, v, nwl, named, quiet, fit);
  free(v);
  return err;
}
