/*
 * modulo_util.h - helpers shared by the test-modulo-* programs: loading
 * loops, binding them to a platform, search options and a checked search.
 */
#ifndef ACS_TESTS_MODULO_UTIL_H
#define ACS_TESTS_MODULO_UTIL_H

#include "core/load/load.h"
#include "core/sched/modulo/modulo_int.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

#define LP(rel) "tests/data/loops/" rel
#define LB(rel) "tests/data/loops_bad/" rel

/* ---- helpers ---- */

struct acs_workload *loop_load_ok(const char *rel);

void load_fails(const char *rel, int rc, int line, const char *part);

/* A problem over the loop with default units (platform overrides: sets). */
struct bound {
  struct acs_loop_layout lay;
  struct acs_msp m;
};

void loop_bind(struct bound *b, const struct acs_loop *l, const char *const *sets);

void loop_unbind(struct bound *b);

void defaults(struct acs_mopts *o);

/* Runs the search and asserts the checker accepts the result. */
void search_ok(const struct acs_msp *m, const struct acs_mopts *o, struct acs_mresult *r);

/* A loop built in code: classes (name, lat, bt, limit) and ops. */
void loop_new(struct acs_loop *l);

#endif
