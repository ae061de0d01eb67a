/*
 * affine_util.h - helpers shared by the test-affine-* programs: reading and
 * solving .sare systems, located errors, latency and schedule texts.
 */
#ifndef ACS_TESTS_AFFINE_UTIL_H
#define ACS_TESTS_AFFINE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/load/load.h"
#include "core/sched/affine/affine.h"
#include "tests/testutil.h"

#define EX(name) "workloads/affine/" name ".sare"

/* ---- helpers ---- */

struct acs_sare *sare_read_ok(const char *rel);

/* Writes text to a fresh file and reads it; returns the error code and
 * fills d. */
int read_text(const char *text, struct acs_diag *d, struct acs_sare **m);

void expect_error(const char *text, int line, int col, const char *part);

/* Builds and solves the program (default selection). */
void solve_ok(const struct acs_sare *m, struct acs_affine_sched *s);

void assert_latency_text(const struct acs_affine_sched *s, const struct acs_sare *m,
                                const char *want);

void assert_var_text(const struct acs_affine_sched *s, const struct acs_sare *m,
                            const char *var, const char *want);

/* Parameter values: every parameter n. */
void values_all(const struct acs_sare *m, int64_t n, int64_t *vals);

#endif
