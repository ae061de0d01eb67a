/*
 * load_util.h - helpers shared by the test-load-* programs: loading with
 * warnings collected, building, finding ops and edges, located errors.
 */
#ifndef ACS_TESTS_LOAD_UTIL_H
#define ACS_TESTS_LOAD_UTIL_H

#include <stdint.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "tests/testutil.h"

#define LD(rel) "tests/data/load/" rel

/* ---- helpers ---- */

struct warns {
  int n;
  int line[64];
  char last[1024];
};

void on_warn(void *ctx, const char *file, int line, int col, const char *msg);

void diag_with_warns(struct acs_diag *d, struct warns *w);

struct acs_workload *load_ok(const char *rel, struct warns *w);

/* The default platform with overrides ("k=v", NULL-terminated). */
void platform(struct acs_platform *p, const char *const *sets);

void build_ok(const struct acs_workload *wl, const char *const *sets,
                     struct acs_graph *g);

int32_t op(const struct acs_graph *g, const char *name);

int has_edge(const struct acs_graph *g, const char *a, const char *b, int kind);

int64_t demand(const struct acs_graph *g, const char *name, const char *res);

int count_kind(const struct acs_graph *g, int kind);

/* Checks rc, the file (by suffix), line, column and the exact message. */
void expect_diag(int rc, int want_rc, const struct acs_diag *d,
                        const char *rel, int line, int col, const char *msg);

void workload_fails(const char *rel, int want_rc, int line, int col,
                           const char *msg);

void platform_fails(const char *rel, int want_rc, int line, int col,
                           const char *msg);

#endif
