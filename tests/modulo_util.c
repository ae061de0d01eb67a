/*
 * modulo_util.c - helpers shared by the test-modulo-* programs: loading
 * loops, binding them to a platform, search options and a checked search.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/sched/modulo/modulo_int.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

#include "tests/modulo_util.h"

/* ---- helpers ---- */

struct acs_workload *loop_load_ok(const char *rel)
{
  struct acs_workload *w;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(tu_path(rel), &w, &d), ACS_OK, "%s: %s", rel, d.msg);
  cr_assert_eq(w->kind, ACS_WL_LOOP);
  return w;
}

void load_fails(const char *rel, int rc, int line, const char *part)
{
  struct acs_workload *w = NULL;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(tu_path(rel), &w, &d), rc, "%s: %s", rel, d.msg);
  cr_assert_null(w);
  cr_assert_eq(d.line, line, "%s: line %d, want %d (%s)", rel, d.line, line, d.msg);
  cr_assert_not_null(strstr(d.msg, part), "%s: '%s' lacks '%s'", rel, d.msg, part);
}

void loop_bind(struct bound *b, const struct acs_loop *l, const char *const *sets)
{
  struct acs_platform p;
  struct acs_diag d;

  acs_platform_init(&p);
  acs_diag_init(&d);
  for (size_t i = 0; sets && sets[i]; i++)
    cr_assert_eq(acs_platform_set_kv(&p, sets[i], &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_loop_layout_init(&b->lay, l, &p), ACS_OK);
  cr_assert_eq(acs__msp_init(&b->m, l, b->lay.units), ACS_OK);
}

void loop_unbind(struct bound *b)
{
  acs__msp_destroy(&b->m);
  acs_loop_layout_destroy(&b->lay);
}

void defaults(struct acs_mopts *o)
{
  memset(o, 0, sizeof(*o));
  o->budget = 6;
  o->restarts = 4;
  o->arms = 1;
  o->seed = 1;
}

/* Runs the search and asserts the checker accepts the result. */
void search_ok(const struct acs_msp *m, const struct acs_mopts *o, struct acs_mresult *r)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_search(m, o, r, &d), ACS_OK, "%s", d.msg);
  cr_assert_gt(r->ii, 0);
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(m, r->ii, r->t, r->unit, &d), ACS_OK, "%s", d.msg);
}

/* A loop built in code: classes (name, lat, bt, limit) and ops. */
void loop_new(struct acs_loop *l)
{
  cr_assert_eq(acs_loop_init(l, "t", "t.csv"), ACS_OK);
}

