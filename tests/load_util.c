/*
 * load_util.c - helpers shared by the test-load-* programs: loading with
 * warnings collected, building, finding ops and edges, located errors.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "tests/testutil.h"

#include "tests/load_util.h"

void on_warn(void *ctx, const char *file, int line, int col, const char *msg)
{
  struct warns *w = ctx;
  (void)file;
  (void)col;
  if (w->n < 64)
    w->line[w->n] = line;
  w->n++;
  snprintf(w->last, sizeof(w->last), "%s", msg);
}

void diag_with_warns(struct acs_diag *d, struct warns *w)
{
  acs_diag_init(d);
  memset(w, 0, sizeof(*w));
  d->warn = on_warn;
  d->warn_ctx = w;
}

struct acs_workload *load_ok(const char *rel, struct warns *w)
{
  struct acs_diag d;
  struct acs_workload *wl = NULL;
  char buf[2048];

  diag_with_warns(&d, w);
  int rc = acs_workload_load(tu_path(rel), &wl, &d);
  acs_diag_format(&d, buf, sizeof(buf));
  cr_assert_eq(rc, ACS_OK, "loading %s: %s", rel, buf);
  return wl;
}

/* The default platform with overrides ("k=v", NULL-terminated). */
void platform(struct acs_platform *p, const char *const *sets)
{
  struct acs_diag d;
  acs_platform_init(p);
  acs_diag_init(&d);
  for (size_t i = 0; sets && sets[i]; i++)
    cr_assert_eq(acs_platform_set_kv(p, sets[i], &d), ACS_OK, "%s", d.msg);
}

void build_ok(const struct acs_workload *wl, const char *const *sets,
                     struct acs_graph *g)
{
  struct acs_platform p;
  struct acs_diag d;
  char buf[2048];

  platform(&p, sets);
  acs_diag_init(&d);
  int rc = acs_workload_build(wl, &p, g, &d);
  acs_diag_format(&d, buf, sizeof(buf));
  cr_assert_eq(rc, ACS_OK, "building %s: %s", wl->name, buf);
  cr_assert(g->finalized);
}

int32_t op(const struct acs_graph *g, const char *name)
{
  int32_t id = acs_graph_find_op(g, name);
  cr_assert_geq(id, 0, "no op '%s'", name);
  return id;
}

int has_edge(const struct acs_graph *g, const char *a, const char *b, int kind)
{
  int32_t s = op(g, a), t = op(g, b);
  for (int32_t e = 0; e < g->nedges; e++)
    if (g->edges[e].src == s && g->edges[e].dst == t && g->edges[e].kind == kind)
      return 1;
  return 0;
}

int64_t demand(const struct acs_graph *g, const char *name, const char *res)
{
  int r = acs_graph_find_resource(g, res);
  cr_assert_geq(r, 0, "no resource '%s'", res);
  return acs_graph_demand(g, op(g, name), r);
}

int count_kind(const struct acs_graph *g, int kind)
{
  int n = 0;
  for (int32_t i = 0; i < g->nops; i++)
    n += g->ops[i].kind == kind;
  return n;
}

/* Checks rc, the file (by suffix), line, column and the exact message. */
void expect_diag(int rc, int want_rc, const struct acs_diag *d,
                        const char *rel, int line, int col, const char *msg)
{
  size_t fl = strlen(d->file), rl = strlen(rel);
  cr_assert_eq(rc, want_rc, "rc %d (%s), want %d", rc, d->msg, want_rc);
  cr_assert(fl >= rl && strcmp(d->file + fl - rl, rel) == 0,
            "file '%s' does not end in '%s'", d->file, rel);
  cr_assert_eq(d->line, line, "line %d, want %d (%s)", d->line, line, d->msg);
  cr_assert_eq(d->col, col, "column %d, want %d (%s)", d->col, col, d->msg);
  cr_assert_str_eq(d->msg, msg);
}

void workload_fails(const char *rel, int want_rc, int line, int col,
                           const char *msg)
{
  struct acs_diag d;
  struct acs_workload *wl = (void *)1;
  acs_diag_init(&d);
  int rc = acs_workload_load(tu_path(rel), &wl, &d);
  cr_assert_null(wl);
  expect_diag(rc, want_rc, &d, rel, line, col, msg);
}

void platform_fails(const char *rel, int want_rc, int line, int col,
                           const char *msg)
{
  struct acs_diag d;
  struct acs_platform *p = (void *)1;
  size_t n = 99;
  acs_diag_init(&d);
  int rc = acs_platform_load(tu_path(rel), &p, &n, &d);
  cr_assert_null(p);
  cr_assert_eq(n, 0);
  expect_diag(rc, want_rc, &d, rel, line, col, msg);
}

