/*
 * testutil.c - shared helpers for the Criterion tests.
 */
#include "config.h"

/* nftw() is an X/Open interface. */
#define _XOPEN_SOURCE 700

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sched/sched.h"
#include "tests/testutil.h"

const char *tu_path(const char *rel)
{
  static char buf[4096];

  snprintf(buf, sizeof(buf), "%s/%s", ACS_SRCDIR, rel);
  return buf;
}

/*
 * Temporary directories. Criterion runs each test in a process of its own,
 * which may crash or be killed, so a test cannot be trusted to clean up.
 * Instead the runner makes one root directory before any test (PRE_ALL),
 * passes it to the test processes in the environment, and removes it with
 * everything in it after the last test (POST_ALL), whatever the tests did.
 */
#define TU_ROOT_ENV "ACS_TU_TMPROOT"
static char tu_root[512];

static const char *tmp_base(void)
{
  const char *t = getenv("TMPDIR");

  return t && *t ? t : "/tmp";
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
  (void)set;
  snprintf(tu_root, sizeof(tu_root), "%s/acsim-test-XXXXXX", tmp_base());
  if (!mkdtemp(tu_root))
    tu_root[0] = '\0'; /* tu_tmpdir makes its directories under TMPDIR */
  else
    setenv(TU_ROOT_ENV, tu_root, 1);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
  (void)stats;
  if (tu_root[0])
    nftw(tu_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tu_tmpdir(void)
{
  static char buf[768];
  const char *root = getenv(TU_ROOT_ENV);

  snprintf(buf, sizeof(buf), "%s/acsim-test-XXXXXX", root && *root ? root : tmp_base());
  cr_assert_not_null(mkdtemp(buf), "mkdtemp failed");
  return buf;
}

static char tu_scratch_dir[256];

void tu_scratch_init(void)
{
  snprintf(tu_scratch_dir, sizeof(tu_scratch_dir), "%s", tu_tmpdir());
}

const char *tu_at(const char *name)
{
  static char buf[4][512];
  static int k;

  k = (k + 1) % 4;
  snprintf(buf[k], sizeof(buf[k]), "%s/%s", tu_scratch_dir, name);
  return buf[k];
}

const char *tu_write_tmp(const char *name, const char *text)
{
  static char path[1024];
  FILE *f;

  snprintf(path, sizeof(path), "%s/%s", tu_tmpdir(), name);
  f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
  return path;
}

void tu_graph_npu(struct acs_graph *g, const char *name)
{
  cr_assert_eq(acs_graph_init(g, name, name), ACS_OK);
  cr_assert_eq(acs_graph_add_resource(g, "pe", ACS_RES_PE, 0), TU_PE);
  cr_assert_eq(acs_graph_add_resource(g, "dma", ACS_RES_DMA, 0), TU_DMA);
  cr_assert_eq(acs_graph_add_resource(g, "cmx", ACS_RES_CMX, 0), TU_CMX);
}

int32_t tu_op(struct acs_graph *g, const char *name, int kind, int64_t cycles)
{
  struct acs_op op;
  int32_t id;

  memset(&op, 0, sizeof(op));
  op.name = name;
  op.kind = (uint8_t)kind;
  op.cycles = cycles;
  op.slots = 1;
  if (kind == ACS_OP_DMA) {
    op.src = ACS_MEM_DDR;
    op.dst = ACS_MEM_CMX;
  }
  id = acs_graph_add_op(g, &op);
  cr_assert_geq(id, 0, "add_op %s: %d", name, id);
  if (kind == ACS_OP_DPU || kind == ACS_OP_SHAVE) {
    int pe = acs_graph_resource_of_kind(g, ACS_RES_PE);
    if (pe >= 0)
      acs_graph_set_demand(g, id, pe, 1);
  } else if (kind == ACS_OP_DMA) {
    int dma = acs_graph_resource_of_kind(g, ACS_RES_DMA);
    if (dma >= 0)
      acs_graph_set_demand(g, id, dma, 1);
  }
  return id;
}

void tu_edge(struct acs_graph *g, int32_t a, int32_t b)
{
  cr_assert_eq(acs_graph_add_edge(g, a, b, ACS_EDGE_DATA), ACS_OK);
}

void tu_finalize(struct acs_graph *g)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_graph_finalize(g, &d), ACS_OK, "finalize: %s", d.msg);
}

void tu_problem(struct acs_problem *pb, const struct acs_graph *g, const char *const *sets)
{
  struct acs_platform p;
  struct acs_diag d;

  acs_platform_init(&p);
  acs_diag_init(&d);
  for (; sets && *sets; sets++)
    cr_assert_eq(acs_platform_set_kv(&p, *sets, &d), ACS_OK, "--set %s: %s", *sets, d.msg);
  cr_assert_eq(acs_problem_init(pb, g, &p, &d), ACS_OK, "problem: %s", d.msg);
}

void tu_assert_verified(const struct acs_schedule *s)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  err = acs_schedule_verify(s, &d);
  cr_assert_eq(err, ACS_OK, "schedule does not verify: %s", d.msg);
}

void tu_random_dag(struct acs_graph *g, uint64_t seed, int32_t n, int64_t cmx_max)
{
  struct acs_rng r;
  char name[32];
  int32_t width;

  acs_rng_seed(&r, seed);
  tu_graph_npu(g, "random");
  width = 1 + (int32_t)acs_rng_below(&r, 8);
  for (int32_t i = 0; i < n; i++) {
    int kind = acs_rng_below(&r, 4) == 0 ? ACS_OP_DMA : ACS_OP_DPU;
    int32_t id, layer = i / width, npred;
    snprintf(name, sizeof(name), "op%d", i);
    id = tu_op(g, name, kind, 1 + (int64_t)acs_rng_below(&r, 100));
    acs_graph_set_demand(g, id, TU_CMX, 1 + (int64_t)acs_rng_below(&r, (uint64_t)cmx_max));
    if (layer == 0)
      continue;
    npred = 1 + (int32_t)acs_rng_below(&r, 3);
    for (int32_t k = 0; k < npred; k++) {
      int32_t lo = (layer - 1) * width;
      int32_t p = lo + (int32_t)acs_rng_below(&r, (uint64_t)(layer * width - lo));
      tu_edge(g, p, id);
    }
  }
  tu_finalize(g);
}

void tu_sample_rtabs(struct acs_schedule *s)
{
  static const struct acs_rtab_col plans[] = {
    {"part", ACS_RTAB_I64, NULL},
    {"cycles", ACS_RTAB_F64, "cycles"},
    {"stripe", ACS_RTAB_STR, ""},
  };
  static const struct acs_rtab_col front[] = {{"memory", ACS_RTAB_I64, "bytes"}};
  /* The parentheses tell clang the split literal (which ends the \x97
   * escape before the digit) is one element. */
  static const char *const text[] = {"(1,3,3,4)", "", ("\xce\xb1=\xe2\x88\x9e 3\xc3\x97" "3")};
  struct acs_rtab *t;

  cr_assert_eq(acs_schedule_add_rtab(s, "plans", plans, 3, &t), ACS_OK);
  t->show = 1;
  for (int r = 0; r < 3; r++) {
    cr_assert_eq(acs_rtab_add_row(t), r);
    cr_assert_eq(acs_rtab_set_i64(t, r, 0, INT64_MIN + r), ACS_OK);
    if (r != 1)
      cr_assert_eq(acs_rtab_set_f64(t, r, 1, 0.1 * r - 1e300), ACS_OK);
    cr_assert_eq(acs_rtab_set_str(t, r, 2, text[r]), ACS_OK);
  }
  cr_assert_eq(acs_rtab_attr_i64(t, "budget", INT64_MAX), ACS_OK);
  cr_assert_eq(acs_rtab_attr_f64(t, "ratio", -0.25), ACS_OK);
  cr_assert_eq(acs_rtab_attr_str(t, "latency", "[N] -> { [(2N - 1)] }"), ACS_OK);
  cr_assert_eq(acs_schedule_add_rtab(s, "front", front, 1, &t), ACS_OK);
}

static void assert_val_eq(int type, union acs_rtab_val x, union acs_rtab_val y, const char *what)
{
  if (type == ACS_RTAB_I64)
    cr_assert_eq(x.i, y.i, "%s", what);
  else if (type == ACS_RTAB_F64)
    cr_assert((isnan(x.f) && isnan(y.f)) || x.f == y.f, "%s: %.17g vs %.17g", what, x.f, y.f);
  else
    cr_assert_str_eq(x.s, y.s, "%s", what);
}

void tu_assert_rtabs_eq(const struct acs_schedule *a, const struct acs_schedule *b)
{
  cr_assert_eq(a->ntables, b->ntables);
  for (int32_t k = 0; k < a->ntables; k++) {
    const struct acs_rtab *x = a->tables[k];
    const struct acs_rtab *y = acs_schedule_find_rtab(b, x->name);
    cr_assert_not_null(y, "table %s", x->name);
    cr_assert_eq(x->show, y->show, "%s shown", x->name);
    cr_assert_eq(x->ncols, y->ncols, "%s columns", x->name);
    cr_assert_eq(x->nrows, y->nrows, "%s rows", x->name);
    for (int32_t c = 0; c < x->ncols; c++) {
      cr_assert_str_eq(x->cols[c].name, y->cols[c].name);
      cr_assert_eq(x->cols[c].type, y->cols[c].type, "%s.%s", x->name, x->cols[c].name);
      cr_assert_str_eq(x->cols[c].units, y->cols[c].units, "%s.%s", x->name, x->cols[c].name);
      for (int64_t r = 0; r < x->nrows; r++)
        assert_val_eq(x->cols[c].type, acs_rtab_get(x, r, c), acs_rtab_get(y, r, c),
                      x->cols[c].name);
    }
    cr_assert_eq(x->nattrs, y->nattrs, "%s attributes", x->name);
    for (int32_t i = 0; i < x->nattrs; i++) {
      const struct acs_rtab_attr *p = &x->attrs[i], *q = acs_rtab_attr_find(y, p->name);
      cr_assert_not_null(q, "attribute %s", p->name);
      cr_assert_eq(p->type, q->type, "attribute %s", p->name);
      assert_val_eq(p->type, p->v, q->v, p->name);
    }
  }
}

void *tu_sched_opts(const char *name, const char *const *sets, struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find(name);
  void *opts;
  int err;

  cr_assert_not_null(ops, "no scheduler '%s'", name);
  opts = calloc(1, ops->opts_size + 1);
  cr_assert_not_null(opts);
  cr_assert_eq(acs_sched_opts_defaults(ops, opts), ACS_OK);
  for (; sets && *sets; sets++) {
    char key[64];
    const char *eq = strchr(*sets, '=');
    cr_assert_not_null(eq);
    snprintf(key, sizeof(key), "%.*s", (int)(eq - *sets), *sets);
    err = acs_sched_opts_set(ops, opts, key, eq + 1, d);
    cr_assert_eq(err, ACS_OK, "option %s: %s", *sets, d->msg);
  }
  return opts;
}

void tu_small_graph(struct acs_graph *g, int32_t n, const int64_t *dur,
                    const int32_t (*edges)[2], int32_t nedges)
{
  char name[16];

  tu_graph_npu(g, "small");
  for (int32_t i = 0; i < n; i++) {
    snprintf(name, sizeof(name), "%c", 'a' + i);
    tu_op(g, name, ACS_OP_SHAVE, dur[i]);
  }
  for (int32_t e = 0; e < nedges; e++)
    tu_edge(g, edges[e][0], edges[e][1]);
  tu_finalize(g);
}

void tu_schedule_verified(const char *name, const struct acs_problem *pb,
                          struct acs_schedule *s)
{
  struct acs_sched_ctx ctx = {1, 0, NULL, NULL, 0};
  struct acs_diag d;
  int err = tu_run_ctx(name, pb, NULL, &ctx, s, &d);

  cr_assert_eq(err, ACS_OK, "%s: %s", name, d.msg);
  tu_assert_verified(s);
}

void tu_case_random(struct tu_case *c, uint64_t seed, int32_t n)
{
  tu_random_dag(&c->g, seed, n, 1000);
  tu_problem(&c->pb, &c->g, NULL);
  tu_schedule_verified("list", &c->pb, &c->s);
}

void tu_case_free(struct tu_case *c)
{
  acs_schedule_destroy(&c->s);
  acs_problem_destroy(&c->pb);
  acs_graph_destroy(&c->g);
}

int tu_run_ctx(const char *name, const struct acs_problem *pb, const char *const *sets,
               const struct acs_sched_ctx *ctx, struct acs_schedule *out, struct acs_diag *d)
{
  void *opts = tu_sched_opts(name, sets, d);
  int err;

  cr_assert_eq(acs_schedule_init_problem(out, pb), ACS_OK);
  acs_diag_init(d);
  err = acs_sched_find(name)->schedule(pb, opts, ctx, out, d);
  free(opts);
  return err;
}
