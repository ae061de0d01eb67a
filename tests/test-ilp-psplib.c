/*
 * test-ilp-psplib.c - PSPLIB instances against their proven optima (`ilp`
 * ok only at the optimum, list iterations never below it), sampling
 * determinism, the optima readers, the /validation table. PSPLIB optima are
 * read from the published tables; every schedule goes through the verifier.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/load/optima.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "report/validation.h"
#include "tests/testutil.h"

#include "tests/ilp_util.h"

/* ---- PSPLIB ------------------------------------------------------------------- */

/* The optimum of a copied or shared j30 instance from its table. */
static int64_t j30_optimum(const struct acs_optima *o, const char *path)
{
  const struct acs_optimum *e;
  int32_t grp, inst;

  cr_assert_eq(acs_optima_psplib_name(path, "j30", &grp, &inst), 0, "%s", path);
  e = acs_optima_find_psplib(o, grp, inst);
  cr_assert_not_null(e, "no optimum for %s", path);
  cr_assert_eq(e->lower, e->upper);
  return e->lower;
}

static int is_sm(const struct dirent *e)
{
  size_t n = strlen(e->d_name);
  return n > 3 && strcmp(e->d_name + n - 3, ".sm") == 0 && strstr(e->d_name, "opt") == NULL;
}

/* Runs `name` with sets on every instance of dir; never below the optimum,
 * ok only at it when the variant proves. Returns the instances run. */
static int psplib_dir(const char *dir, const char *optfile, const char *name,
                      const char *const *sets, double limit, int64_t *at_opt)
{
  struct acs_optima o;
  struct acs_diag d;
  struct dirent **ents;
  int n;

  acs_optima_init(&o);
  acs_diag_init(&d);
  cr_assert_eq(acs_optima_load_psplib(optfile, &o, &d), ACS_OK, "%s", d.msg);
  n = scandir(dir, &ents, is_sm, alphasort);
  cr_assert_gt(n, 0, "no instances in %s", dir);
  *at_opt = 0;
  for (int i = 0; i < n; i++) {
    char path[2048];
    struct acs_graph g;
    struct acs_problem pb;
    struct acs_schedule s;
    int64_t opt;
    int err;
    snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
    free(ents[i]);
    cr_assert_eq(acs_psplib_load(path, &g, &d), ACS_OK, "%s", d.msg);
    tu_problem(&pb, &g, NULL);
    opt = j30_optimum(&o, path);
    err = run_sched(name, &pb, sets, limit, 1, &s, &d);
    cr_assert(err == ACS_OK || err == ACS_ETIMEOUT, "%s: %s (%s)", path, acs_strerror(err), d.msg);
    tu_assert_verified(&s);
    cr_assert_geq(s.makespan, opt, "%s: %s makespan %lld below the optimum %lld", path, name,
                  (long long)s.makespan, (long long)opt);
    if (err == ACS_OK && acs_sched_find(name)->proves)
      cr_assert_eq(s.makespan, opt, "%s: claims optimal at %lld, optimum %lld", path,
                   (long long)s.makespan, (long long)opt);
    *at_opt += s.makespan == opt;
    acs_schedule_destroy(&s);
    acs_problem_destroy(&pb);
    acs_graph_destroy(&g);
  }
  free(ents);
  acs_optima_free(&o);
  return n;
}

/* A time limit of 0.5 s per instance: whether GLPK proves an instance in
 * time depends on the machine, so each assertion holds either way (never
 * below the optimum; ok, meaning proven, only at it) and none counts the
 * instances proven. */
Test(psplib, ilp_is_ok_only_at_the_optimum_on_copied_j30, .timeout = 120)
{
  int64_t at;
  static const char *const sets[] = { "iterations=200", NULL };

  char dir[2048], opt[2048];

  snprintf(dir, sizeof(dir), "%s", tu_path("tests/data/psplib"));
  snprintf(opt, sizeof(opt), "%s", tu_path("tests/data/psplib/j30opt.sm"));
  psplib_dir(dir, opt, "ilp", sets, 0.5, &at);
}

Test(psplib, list_iterations_never_beat_the_optimum, .timeout = 120)
{
  static const char *const one[] = { "iterations=0", NULL }, *const many[] = { "iterations=300", NULL };
  int64_t at1, at2;

  char dir[2048], opt[2048];

  snprintf(dir, sizeof(dir), "%s", tu_path("tests/data/psplib"));
  snprintf(opt, sizeof(opt), "%s", tu_path("tests/data/psplib/j30opt.sm"));
  psplib_dir(dir, opt, "list", one, 0, &at1);
  psplib_dir(dir, opt, "list", many, 0, &at2);
  /* Sampling keeps the rule's own pass, so it never loses an optimum. */
  cr_assert_geq(at2, at1);
}

Test(psplib, shared_j30_list_iterations_never_beat_the_optimum, .timeout = 120)
{
  static const char *const sets[] = { "iterations=100", NULL };
  char dir[2048], opt[2048];
  DIR *probe;
  int64_t at;

  snprintf(dir, sizeof(dir), "%s", tu_path("../shared/data/psplib/j30"));
  snprintf(opt, sizeof(opt), "%s", tu_path("../shared/data/psplib/optima/j30opt.sm"));
  probe = opendir(dir);
  if (!probe)
    cr_skip_test("%s is absent", dir);
  closedir(probe);
  cr_assert_eq(psplib_dir(dir, opt, "list", sets, 0, &at), 96);
}

Test(list, iterations_are_deterministic_for_a_seed)
{
  static const char *const sets[] = { "iterations=50", NULL };
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule a, b;
  struct acs_diag d;

  cr_assert_eq(acs_psplib_load(tu_path("tests/data/psplib/j3013_1.sm"), &g, &d), ACS_OK);
  tu_problem(&pb, &g, NULL);
  cr_assert_eq(run_sched("list", &pb, sets, 0, 7, &a, &d), ACS_OK);
  cr_assert_eq(run_sched("list", &pb, sets, 0, 7, &b, &d), ACS_OK);
  tu_assert_verified(&a);
  for (int32_t i = 0; i < a.nops; i++)
    cr_assert_eq(a.ops[i].start, b.ops[i].start, "op %d differs between two runs", i);
  acs_schedule_destroy(&a);
  acs_schedule_destroy(&b);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* ---- optima tables -------------------------------------------------------------- */

/* Writes text to a new file in the test's directory; the path is malloc'd. */
static char *write_tmp(const char *name, const char *text)
{
  char *path = strdup(tu_write_tmp(name, text)); /* several alive at once */

  cr_assert_not_null(path);
  return path;
}

Test(optima, reads_the_j30_table)
{
  struct acs_optima o;
  struct acs_diag d;
  const struct acs_optimum *e;

  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(tu_path("tests/data/psplib/j30opt.sm"), &o, &d), ACS_OK,
               "%s", d.msg);
  cr_assert_eq(o.n, 12);
  e = acs_optima_find_psplib(&o, 1, 1);
  cr_assert_not_null(e);
  cr_assert_eq(e->lower, 43);
  cr_assert_eq(e->upper, 43);
  cr_assert_null(acs_optima_find_psplib(&o, 2, 1));
  acs_optima_free(&o);
}

Test(optima, reads_bounds_and_best_known_tables)
{
  struct acs_optima o;
  struct acs_diag d;
  char *lb = write_tmp("j60lb.sm",
                             "notes\n===\nPar  Inst    UB   LB         Author LB\n===\n"
                             "  1   1    77    77    *\n  5   3    90    85    Someone\n");
  char *hrs = write_tmp("j60hrs.sm", "Par\tInst\tMakespan\tDate\tAuthor\n===\n"
                                           "1\t1\t77\t\tTue Apr  2 1996  X\n");
  const struct acs_optimum *e;

  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(lb, &o, &d), ACS_OK, "%s", d.msg);
  e = acs_optima_find_psplib(&o, 5, 3);
  cr_assert_not_null(e);
  cr_assert_eq(e->lower, 85);
  cr_assert_eq(e->upper, 90);
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(hrs, &o, &d), ACS_OK, "%s", d.msg);
  e = acs_optima_find_psplib(&o, 1, 1);
  cr_assert_not_null(e);
  cr_assert_eq(e->lower, -1);
  cr_assert_eq(e->upper, 77);
  acs_optima_free(&o);
  free(lb);
  free(hrs);
}

Test(optima, bad_rows_are_located)
{
  struct acs_optima o;
  struct acs_diag d;
  char *bad = write_tmp("bad.sm", "Paramter Instance Makespan CPU-Time[sec.]\n"
                                        "1 1 43 0.30\n1 2 4x7 0.11\n");
  char *dup = write_tmp("dup.sm", "Par Inst UB LB\n1 1 43 40\n1 1 44 41\n");
  char *inv = write_tmp("inv.sm", "Par Inst UB LB\n1 1 40 43\n");
  char *none = write_tmp("none.sm", "1 1 43 0.30\n");

  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(bad, &o, &d), ACS_EPARSE);
  cr_assert_eq(d.line, 3);
  cr_assert_eq(d.col, 5);
  cr_assert(strstr(d.msg, "4x7") != NULL, "%s", d.msg);
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(dup, &o, &d), ACS_EPARSE);
  cr_assert_eq(d.line, 3);
  cr_assert(strstr(d.msg, "line 2") != NULL, "%s", d.msg);
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(inv, &o, &d), ACS_EPARSE);
  cr_assert_eq(d.line, 2);
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_psplib(none, &o, &d), ACS_EPARSE);
  cr_assert(strstr(d.msg, "header") != NULL, "%s", d.msg);
  acs_optima_free(&o);
  free(bad);
  free(dup);
  free(inv);
  free(none);
}

Test(optima, reads_stg_optima_and_bounds)
{
  struct acs_optima o;
  struct acs_diag d;
  char *ok = write_tmp("Case50_4_OPT.csv", "50/rand0000.stg,4,66\n50/rand0009.stg,4,132,134\n");
  char *bad = write_tmp("bad.csv", "50/rand0000.stg,4,66\n50/rand0001.stg,4\n");
  const struct acs_optimum *e;

  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_stg(ok, &o, &d), ACS_OK, "%s", d.msg);
  e = acs_optima_find_stg(&o, "50/rand0009.stg", 4);
  cr_assert_not_null(e);
  cr_assert_eq(e->lower, 132);
  cr_assert_eq(e->upper, 134);
  cr_assert_null(acs_optima_find_stg(&o, "50/rand0009.stg", 8));
  acs_optima_free(&o);
  acs_optima_init(&o);
  cr_assert_eq(acs_optima_load_stg(bad, &o, &d), ACS_EPARSE);
  cr_assert_eq(d.line, 2);
  acs_optima_free(&o);
  free(ok);
  free(bad);
}

Test(optima, parses_psplib_file_names)
{
  int32_t g, i;

  cr_assert_eq(acs_optima_psplib_name("x/j3010_2.sm", "j30", &g, &i), 0);
  cr_assert_eq(g, 10);
  cr_assert_eq(i, 2);
  cr_assert_eq(acs_optima_psplib_name("j301_1.sm", "j30", &g, &i), 0);
  cr_assert_eq(g, 1);
  cr_assert_eq(acs_optima_psplib_name("j30opt.sm", "j30", &g, &i), -1);
  cr_assert_eq(acs_optima_psplib_name("j601_1.sm", "j30", &g, &i), -1);
}

/* ---- /validation --------------------------------------------------------------- */

Test(validation, rows_round_trip_and_ids_continue)
{
  char path[1024];
  struct acs_results *r;
  struct acs_diag d;
  struct acs_validation_row row, *back;
  size_t n;

  snprintf(path, sizeof(path), "%s/v.h5", tu_tmpdir());
  for (int pass = 0; pass < 2; pass++) {
    memset(&row, 0, sizeof(row));
    snprintf(row.set, sizeof(row.set), "psplib/j30");
    snprintf(row.scheduler, sizeof(row.scheduler), "ilp");
    row.instances = 96;
    row.avg_dev_pct = 0.25;
    row.proven = 69 + pass;
    cr_assert_eq(acs_results_open(path, "test", &r, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(acs_validation_add(r, &row, 1, &d), ACS_OK, "%s", d.msg);
    cr_assert_eq(acs_results_commit(r, &d), ACS_OK, "%s", d.msg);
  }
  cr_assert_eq(acs_validation_read(path, &back, &n, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 2);
  cr_assert_eq(back[0].validation_id, 1);
  cr_assert_eq(back[1].validation_id, 2);
  cr_assert_str_eq(back[1].set, "psplib/j30");
  cr_assert_eq(back[1].proven, 70);
  double avg = back[1].avg_dev_pct;
  cr_assert_float_eq(avg, 0.25, 1e-12);
  free(back);
}

