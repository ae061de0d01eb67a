/*
 * affine_util.c - helpers shared by the test-affine-* programs: reading and
 * solving .sare systems, located errors, latency and schedule texts.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/val.h>

#include "core/load/load.h"
#include "core/sched/affine/affine.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "tests/testutil.h"

#include "tests/affine_util.h"

/* ---- helpers ---- */

struct acs_sare *sare_read_ok(const char *rel)
{
  struct acs_sare *m = NULL;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_sare_read(tu_path(rel), &m, &d), ACS_OK, "%s: %s:%d:%d: %s", rel, d.file,
               d.line, d.col, d.msg);
  return m;
}

/* Writes text to a fresh file and reads it; returns the error code and
 * fills d. */
int read_text(const char *text, struct acs_diag *d, struct acs_sare **m)
{
  static int n;
  char path[512];
  FILE *f;

  snprintf(path, sizeof(path), "%s/t%d.sare", tu_tmpdir(), n++);
  f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  fclose(f);
  acs_diag_init(d);
  *m = NULL;
  return acs_sare_read(path, m, d);
}

void expect_error(const char *text, int line, int col, const char *part)
{
  struct acs_diag d;
  struct acs_sare *m;
  int err = read_text(text, &d, &m);

  cr_assert_lt(err, 0, "accepted: %s", text);
  cr_assert_null(m);
  cr_assert_eq(d.line, line, "line %d, expected %d: %s", d.line, line, d.msg);
  cr_assert_eq(d.col, col, "column %d, expected %d: %s", d.col, col, d.msg);
  cr_assert_not_null(strstr(d.msg, part), "message '%s' lacks '%s'", d.msg, part);
}

/* Builds and solves the program (default selection). */
void solve_ok(const struct acs_sare *m, struct acs_affine_sched *s)
{
  struct acs_affine_lp lp;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_affine_lp_build(m, NULL, &lp, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_affine_solve(m->ctx, &lp, NULL, s, &d), ACS_OK, "%s: %s", m->path, d.msg);
  acs_affine_lp_free(&lp);
}

void assert_latency_text(const struct acs_affine_sched *s, const struct acs_sare *m,
                                const char *want)
{
  char buf[512];

  acs_affine_text_latency(s, m, buf, sizeof(buf));
  cr_assert_str_eq(buf, want);
}

void assert_var_text(const struct acs_affine_sched *s, const struct acs_sare *m,
                            const char *var, const char *want)
{
  char buf[512];
  int32_t v = acs_sare_find_var(m, var);

  cr_assert_geq(v, 0, "no variable %s", var);
  acs_affine_text_var(s, m, v, 1, buf, sizeof(buf));
  cr_assert_str_eq(buf, want);
}

/* Parameter values: every parameter n. */
void values_all(const struct acs_sare *m, int64_t n, int64_t *vals)
{
  for (int32_t p = 0; p < m->nparams; p++)
    vals[p] = n;
}

