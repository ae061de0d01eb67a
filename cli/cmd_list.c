/*
 * cmd_list.c - `acsim list [schedulers|platforms|workloads]`.
 *
 * Platforms and workloads are found by walking the shipped folders and
 * keeping the regular files whose extension is one acsim reads (exactly,
 * case-insensitively): directories, hidden entries and other files (a
 * README.md) are not listed and never read. Each listed file is read, so
 * the listing shows what acsim makes of it (the platform rows, the workload
 * kind and size); a file that does not read is an input error, reported
 * with its location, and the listing goes on.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/model/layer.h"

static const char list_help[] =
  "usage: acsim list [schedulers|platforms|workloads|all] [-h]\n"
  "\n"
  "  schedulers  every scheduler variant: the document it implements, the\n"
  "              workload kinds it takes, its memory model and its options\n"
  "              (set with -O key=value)\n"
  "  platforms   the shipped platform files (platforms/*.csv) and their rows\n"
  "  workloads   the shipped workloads and suites under workloads/, each with\n"
  "              its kind, format and size\n"
  "  all         all three (the default)\n"
  "  -h, --help  this help\n"
  "\n"
  "Shipped data is looked up in the current directory, then in\n"
  "$ACSIM_DATADIR or the source tree. Only files of the kinds acsim reads\n"
  "are listed: platform .csv; workloads: .onnx (ONNX model), .csv (SCALE-Sim\n"
  "layer table, op graph or loop), .sm (PSPLIB), .stg (Standard Task Graph),\n"
  ".graphml (HatScheT loop, with its resource model X_RM.xml or XRM.xml\n"
  "beside it), .xml (SDF3 graph, SDF or CSDF), .sare (affine recurrence\n"
  "equations); suites .txt (one workload path per line).\n"
  "Exit 0, 2 when a listed file does not read (its error is printed).\n";

/* The documents the schedulers implement (struct acs_sched_ops.seed is the
 * file name in the seed folder, which means nothing to a reader), by the
 * number the file name starts with. */
static const struct {
  const char *number, *title;
} seed_titles[] = {
  {"000", "Kundeti, An Integer Linear Program for Generating Optimal Schedules with Resource "
          "Constraints (Intel)"},
  {"001", "Modulo Scheduler and Rau-Style Placement"},
  {"002", "Arm Ethos-U Cascading Scheduler (Apache TVM RFC 0037)"},
  {"003", "Risset, Reference Manual for the Alpha Scheduler (1997)"},
  {"004", "van Son, Automatic Control Flow Generation for OpenVX Graphs (master's thesis, "
          "2016)"},
};

static const char *seed_title(const char *seed)
{
  for (size_t i = 0; i < sizeof(seed_titles) / sizeof(seed_titles[0]); i++)
    if (strncmp(seed, seed_titles[i].number, 3) == 0)
      return seed_titles[i].title;
  return seed;
}

/* The workload extensions acsim reads (core/load/workload.c) and suites
 * (.txt). A new reader adds its extension here so `list` shows its files. */
static const char *const workload_exts[] = {".csv", ".graphml", ".onnx", ".sare", ".sm", ".stg",
                                            ".txt", ".xml", NULL};
static const char *const platform_exts[] = {".csv", NULL};

/* Directory walks stop at this depth (workloads/<family>/<set>/file). */
#define MAX_DEPTH 4

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
    printf("      from: %s\n      workloads:", seed_title(s->seed));
    for (int k = 0; k < ACS_WL__COUNT; k++)
      if (s->kinds & (1u << k))
        printf(" %s", acs_wl_kind_name(k));
    printf("; memory: %s", acs_mem_model_name(s->memory_model));
    if (s->searches)
      printf("; searches until --time-limit (sweep includes it only when asked)");
    if (s->proves)
      printf("; status ok = proven optimal");
    printf("\n");
    for (const struct acs_opt_desc *o = s->opts; o && o->name; o++)
      print_option(o);
  }
}

/* The extension of name when it is one of exts (exactly, ignoring case). */
static const char *known_ext(const char *name, const char *const *exts)
{
  const char *dot = strrchr(name, '.');

  if (!dot || dot == name)
    return NULL;
  for (const char *const *e = exts; *e; e++)
    if (strcasecmp(dot, *e) == 0)
      return *e;
  return NULL;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Appends to *out the paths, relative to root, of the regular files under
 * root/rel (rel "" for root itself) with one of exts, sorted by path, down
 * to MAX_DEPTH levels. Hidden entries (".", "..", dot files) are skipped;
 * symbolic links are followed (stat). Unreadable directories are skipped.
 * O(entries log entries).
 */
static int walk(const char *root, const char *rel, int depth, const char *const *exts,
                struct acs_strv *out)
{
  struct acs_strv names = {0};
  char dir[4096], path[4096], relpath[2048];
  struct dirent *e;
  DIR *dp;
  int err = ACS_OK;

  snprintf(dir, sizeof(dir), "%s%s%s", root, *rel ? "/" : "", rel);
  if (!(dp = opendir(dir)))
    return ACS_OK;
  while ((e = readdir(dp))) {
    char *copy;
    if (e->d_name[0] == '.')
      continue;
    if (!(copy = strdup(e->d_name)) || acs_strv_push(&names, copy) < 0) {
      free(copy);
      err = ACS_ENOMEM;
      break;
    }
  }
  closedir(dp);
  if (names.n)
    qsort(names.v, names.n, sizeof(*names.v), cmp_str);
  for (size_t i = 0; i < names.n; i++) {
    struct stat st;
    char *copy;
    if (err == ACS_OK) {
      snprintf(relpath, sizeof(relpath), "%s%s%s", rel, *rel ? "/" : "", names.v[i]);
      snprintf(path, sizeof(path), "%s/%s", root, relpath);
      if (stat(path, &st) < 0) {
        /* a dangling link: nothing to read */
      } else if (S_ISDIR(st.st_mode)) {
        if (depth + 1 < MAX_DEPTH)
          err = walk(root, relpath, depth + 1, exts, out);
      } else if (S_ISREG(st.st_mode) && known_ext(names.v[i], exts)) {
        if (!(copy = strdup(relpath)) || acs_strv_push(out, copy) < 0) {
          free(copy);
          err = ACS_ENOMEM;
        }
      }
    }
    free(names.v[i]);
  }
  acs_strv_free(&names);
  return err;
}

static void free_paths(struct acs_strv *v)
{
  for (size_t i = 0; i < v->n; i++)
    free(v->v[i]);
  acs_strv_free(v);
}

/* Returns ACS_OK, or the first error (already printed). */
static int list_platforms(void)
{
  struct acs_strv files = {0};
  char dir[2048], path[4096];
  int err, rc = ACS_OK;

  acs_cli_resolve("platforms", dir, sizeof(dir));
  if ((err = walk(dir, "", MAX_DEPTH - 1, platform_exts, &files)) < 0) {
    acs_cli_errorf("%s: %s", dir, acs_strerror(err));
    free_paths(&files);
    return err;
  }
  printf("platforms (%s):\n", dir);
  for (size_t i = 0; i < files.n; i++) {
    struct acs_platform *rows;
    struct acs_diag d;
    size_t nrows;
    acs_diag_init(&d);
    snprintf(path, sizeof(path), "%s/%s", dir, files.v[i]);
    if ((err = acs_platform_load(path, &rows, &nrows, &d)) < 0) {
      printf("  platforms/%-30s (does not read: see the error)\n", files.v[i]);
      acs_cli_error(&d);
      rc = rc < 0 ? rc : err;
      continue;
    }
    printf("  platforms/%-30s platform CSV, %zu row%s:", files.v[i], nrows,
           nrows == 1 ? "" : "s");
    for (size_t k = 0; k < nrows; k++)
      printf(" %s", rows[k].name);
    printf("\n");
    free(rows);
  }
  free_paths(&files);
  return rc;
}

/* The format a loaded workload was read from, for people. */
static const char *format_name(const struct acs_workload *w)
{
  const char *dot = strrchr(w->path, '.');
  int onnx = dot && strcasecmp(dot, ".onnx") == 0, csv = dot && strcasecmp(dot, ".csv") == 0;

  switch (w->kind) {
  case ACS_WL_DNN: return onnx ? "ONNX model" : "SCALE-Sim layer table";
  case ACS_WL_GRAPH: return "op-graph CSV";
  case ACS_WL_PSPLIB: return "PSPLIB .sm";
  case ACS_WL_STG: return "Standard Task Graph";
  case ACS_WL_LOOP: return csv ? "loop CSV" : "HatScheT GraphML with its resource model";
  case ACS_WL_SDF: return "SDF3 (C)SDF graph";
  case ACS_WL_AFFINE: return "recurrence equations";
  default: return "";
  }
}

/* "dnn (SCALE-Sim layer table): 8 layers" and the like, for a loaded
 * workload. Kinds whose op graph depends on the platform (loops unrolled,
 * SDF firings, affine instances) give its size on the built-in default
 * platform, as `acsim workload` does. */
static void describe_workload(const struct acs_workload *w, char *buf, size_t size)
{
  const struct acs_lgraph *lg = acs_workload_lgraph(w);
  const char *kind = acs_wl_kind_name(w->kind), *fmt = format_name(w);
  struct acs_platform p;
  struct acs_graph g;
  struct acs_diag d;

  if (w->kind == ACS_WL_DNN && w->nlayers == 0 && lg) {
    snprintf(buf, size, "%s (%s): %d node%s", kind, fmt, (int)lg->nnodes,
             lg->nnodes == 1 ? "" : "s");
  } else if (w->kind == ACS_WL_DNN) {
    snprintf(buf, size, "%s (%s): %zu layer%s", kind, fmt, w->nlayers,
             w->nlayers == 1 ? "" : "s");
  } else if (w->graph) {
    snprintf(buf, size, "%s (%s): %d ops, %d edges", kind, fmt, (int)w->graph->nops,
             (int)w->graph->nedges);
  } else {
    acs_platform_init(&p);
    acs_diag_init(&d);
    if (acs_workload_build(w, &p, &g, &d) == ACS_OK) {
      snprintf(buf, size, "%s (%s): %d ops, %d edges on the default platform", kind, fmt,
               (int)g.nops, (int)g.nedges);
      acs_graph_destroy(&g);
    } else {
      snprintf(buf, size, "%s (%s)", kind, fmt);
    }
  }
}

/*
 * The resource model of a HatScheT loop (X_RM.xml or XRM.xml beside
 * X.graphml) is read with the loop, not on its own: the GraphML's path
 * relative to root in buf, or 0 when path is no such file.
 */
static int resource_model_of(const char *root, const char *rel, char *buf, size_t size)
{
  static const char *const suffix[] = {"_RM.xml", "RM.xml"};
  size_t n = strlen(rel);
  char path[4096];

  for (size_t i = 0; i < 2; i++) {
    size_t m = strlen(suffix[i]);
    if (n <= m || strcmp(rel + n - m, suffix[i]) != 0)
      continue;
    snprintf(buf, size, "%.*s.graphml", (int)(n - m), rel);
    snprintf(path, sizeof(path), "%s/%s", root, buf);
    if (access(path, F_OK) == 0)
      return 1;
  }
  return 0;
}

static int describe_file(const char *path, char *buf, size_t size, struct acs_diag *d)
{
  int err;

  if (strcmp(known_ext(path, workload_exts), ".txt") == 0) {
    char **paths;
    size_t n;
    if ((err = acs_suite_load(path, &paths, &n, d)) < 0)
      return err;
    snprintf(buf, size, "suite: %zu workload%s", n, n == 1 ? "" : "s");
    acs_suite_free(paths, n);
  } else {
    struct acs_workload *w;
    if ((err = acs_workload_load(path, &w, d)) < 0)
      return err;
    describe_workload(w, buf, size);
    acs_workload_free(w);
  }
  return ACS_OK;
}

static int list_workloads(void)
{
  struct acs_strv files = {0};
  char dir[2048], path[4096], what[256], owner[2048];
  int err, rc = ACS_OK;

  acs_cli_resolve("workloads", dir, sizeof(dir));
  if ((err = walk(dir, "", 0, workload_exts, &files)) < 0) {
    acs_cli_errorf("%s: %s", dir, acs_strerror(err));
    free_paths(&files);
    return err;
  }
  printf("workloads (%s):\n", dir);
  for (size_t i = 0; i < files.n; i++) {
    struct acs_diag d;
    acs_diag_init(&d); /* no warn callback: a listing is not the place */
    snprintf(path, sizeof(path), "%s/%s", dir, files.v[i]);
    if (resource_model_of(dir, files.v[i], owner, sizeof(owner))) {
      printf("  workloads/%-36s resource model of workloads/%s\n", files.v[i], owner);
      continue;
    }
    if ((err = describe_file(path, what, sizeof(what), &d)) < 0) {
      printf("  workloads/%-36s (does not read: see the error)\n", files.v[i]);
      acs_cli_error(&d);
      rc = rc < 0 ? rc : err;
      continue;
    }
    printf("  workloads/%-36s %s\n", files.v[i], what);
  }
  free_paths(&files);
  return rc;
}

int acs_cmd_list(int argc, char **argv)
{
  const char *what = argc > 1 ? argv[1] : "all";
  int err = ACS_OK;

  if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
    fputs(list_help, stdout);
    return ACS_EXIT_OK;
  }
  if (what[0] == '-')
    return acs_cli_usage("list", "unknown option '%s'", what);
  if (argc > 2)
    return acs_cli_usage("list", "unexpected argument '%s'", argv[2]);
  if (strcmp(what, "schedulers") == 0) {
    list_schedulers();
  } else if (strcmp(what, "platforms") == 0) {
    err = list_platforms();
  } else if (strcmp(what, "workloads") == 0) {
    err = list_workloads();
  } else if (strcmp(what, "all") == 0) {
    int e2;
    list_schedulers();
    err = list_platforms();
    e2 = list_workloads();
    err = err < 0 ? err : e2;
  } else {
    return acs_cli_usage("list", "unknown list '%s' (schedulers, platforms, workloads)", what);
  }
  fflush(stdout);
  return err < 0 ? ACS_EXIT_USAGE : ACS_EXIT_OK;
}
