/*
 * cmd_list.c - `acsim list [schedulers|platforms|workloads]`.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static const char list_help[] =
  "usage: acsim list [schedulers|platforms|workloads]\n"
  "\n"
  "  schedulers  every scheduler variant: seed document, accepted workload\n"
  "              kinds and options (set with -O key=value)\n"
  "  platforms   the shipped platform files and their rows\n"
  "  workloads   the shipped workloads and suites\n"
  "With no argument, all three. Shipped data is looked up in the current\n"
  "directory, then in $ACSIM_DATADIR or the source tree.\n";

static void print_option(const struct acs_opt_desc *o)
{
  printf("      -O %s=%s", o->name, o->def);
  if (o->type == ACS_OPT_ENUM && o->choices) {
    printf("  (");
    for (const char *const *c = o->choices; *c; c++)
      printf("%s%s", c == o->choices ? "" : "|", *c);
    printf(")");
  } else if (o->type == ACS_OPT_INT) {
    printf("  (integer %g..%g)", o->min, o->max);
  } else if (o->type == ACS_OPT_DOUBLE) {
    printf("  (number %g..%g)", o->min, o->max);
  } else if (o->type == ACS_OPT_STR) {
    printf("  (text)");
  }
  printf("\n          %s\n", o->doc);
}

static void list_schedulers(void)
{
  size_t n;
  const struct acs_sched_ops *const *all = acs_sched_list(&n);

  printf("schedulers:\n");
  for (size_t i = 0; i < n; i++) {
    const struct acs_sched_ops *s = all[i];
    printf("  %-12s %s\n", s->name, s->summary);
    printf("      seed: %s; workloads:", s->seed);
    for (int k = 0; k < ACS_WL__COUNT; k++)
      if (s->kinds & (1u << k))
        printf(" %s", acs_wl_kind_name(k));
    if (s->searches)
      printf("; searches until --time-limit (sweep includes it only when asked)");
    if (s->proves)
      printf("; status ok = proven optimal");
    printf("\n");
    for (const struct acs_opt_desc *o = s->opts; o && o->name; o++)
      print_option(o);
  }
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of dir's entries ending in one of the suffixes. */
static size_t scan_dir(const char *dir, const char *suffixes, char ***out)
{
  struct acs_strv v = {0};
  struct dirent *e;
  DIR *dp = opendir(dir);

  *out = NULL;
  if (!dp)
    return 0;
  while ((e = readdir(dp))) {
    const char *dot = strrchr(e->d_name, '.');
    char *copy;
    if (!dot || !strstr(suffixes, dot) || !(copy = strdup(e->d_name)))
      continue;
    if (acs_strv_push(&v, copy) < 0)
      free(copy);
  }
  closedir(dp);
  if (v.n)
    qsort(v.v, v.n, sizeof(*v.v), cmp_str);
  *out = v.v;
  return v.n;
}

static void list_platforms(void)
{
  char dir[2048], path[4096], **names;
  size_t n;

  acs_cli_resolve("platforms", dir, sizeof(dir));
  n = scan_dir(dir, ".csv", &names);
  printf("platforms (%s):\n", dir);
  for (size_t i = 0; i < n; i++) {
    struct acs_platform *rows;
    struct acs_diag d;
    size_t nrows;
    acs_diag_init(&d);
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    if (acs_platform_load(path, &rows, &nrows, &d) < 0) {
      acs_cli_error(&d);
    } else {
      printf("  platforms/%s:", names[i]);
      for (size_t k = 0; k < nrows; k++)
        printf(" %s", rows[k].name);
      printf("\n");
      free(rows);
    }
    free(names[i]);
  }
  free(names);
}

static void list_workloads(void)
{
  static const char *const sub[] = {"dnn", "graphs", "suites"};
  char dir[2048], rel[64], **names;

  for (size_t s = 0; s < sizeof(sub) / sizeof(sub[0]); s++) {
    size_t n;
    snprintf(rel, sizeof(rel), "workloads/%s", sub[s]);
    acs_cli_resolve(rel, dir, sizeof(dir));
    n = scan_dir(dir, ".csv .sm .stg .txt", &names);
    printf("%s (%s):\n", rel, dir);
    for (size_t i = 0; i < n; i++) {
      printf("  %s/%s\n", rel, names[i]);
      free(names[i]);
    }
    free(names);
  }
}

int acs_cmd_list(int argc, char **argv)
{
  const char *what = argc > 1 ? argv[1] : "all";

  if (argc > 2)
    return acs_cli_usage("list", "unexpected argument '%s'", argv[2]);
  if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
    fputs(list_help, stdout);
    return ACS_EXIT_OK;
  }
  if (strcmp(what, "schedulers") == 0)
    list_schedulers();
  else if (strcmp(what, "platforms") == 0)
    list_platforms();
  else if (strcmp(what, "workloads") == 0)
    list_workloads();
  else if (strcmp(what, "all") == 0) {
    list_schedulers();
    list_platforms();
    list_workloads();
  } else
    return acs_cli_usage("list", "unknown list '%s' (schedulers, platforms, workloads)", what);
  return ACS_EXIT_OK;
}
