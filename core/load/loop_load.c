/*
 * loop_load.c - loop workloads: choosing the reader, checking the loop, and
 * the model functions that give it meaning (its unrolled DAG for a
 * platform; freeing it).
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"
#include "core/load/loop_load_int.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

ACS__WL_MODEL_OPS(loop_model_ops, acs_loop_build_graph, acs_loop_destroy);

/* A header field "class" (blanks and quotes around it allowed). */
static void has_class_field(const char *s, void *arg)
{
  int *is_loop = arg;

  for (const char *f = s; *f;) {
    size_t len = strcspn(f, ",");
    const char *a = f, *b = f + len;
    while (a < b && (*a == ' ' || *a == '\t' || *a == '"'))
      a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '"' || b[-1] == '\r'))
      b--;
    if (b - a == 5 && strncmp(a, "class", 5) == 0)
      *is_loop = 1;
    f += len + (f[len] == ',');
  }
}

int acs__loop_csv_sniff(const char *path, int *is_loop, struct acs_diag *d)
{
  *is_loop = 0;
  return acs__lines_first_content(path, has_class_field, is_loop, d);
}

int acs_loop_load(const char *path, struct acs_workload *w, struct acs_diag *d)
{
  struct acs_loop *l = calloc(1, sizeof(*l));
  const char *dot = strrchr(path, '.');
  int err;

  if (!l)
    return ACS_ENOMEM;
  if ((err = acs_loop_init(l, w->name, path)) < 0) {
    free(l);
    return err;
  }
  if (dot && strcasecmp(dot, ".graphml") == 0)
    err = acs__loop_load_graphml(path, l, d);
  else
    err = acs__loop_load_csv(path, l, d);
  if (err == ACS_OK)
    err = acs_loop_check(l, d);
  /* The resource model is part of the workload: a changed one is a new run
   * (the run identity hashes every file a workload reads). */
  if (err == ACS_OK && l->rm_path)
    err = acs__workload_note_file(w, l->rm_path, d);
  if (err < 0) {
    loop_model_ops_free(l);
    return err;
  }
  w->kind = ACS_WL_LOOP;
  w->model = l;
  w->model_ops = &loop_model_ops;
  return ACS_OK;
}
