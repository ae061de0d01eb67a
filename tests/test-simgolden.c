/*
 * test-simgolden.c - golden replays (`simgolden`): every shipped workload
 * under the fast schedulers on nine platform variants, simulated times
 * compared to the bit with tests/data/sim-golden.txt.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <xbt/log.h>

#include "core/load/load.h"
#include "core/model/bprog.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "simulate/sim_int.h"
#include "tests/testutil.h"

/* ---- golden replays: every shipped workload under the fast schedulers ----
 *
 * tests/data/sim-golden.txt holds, for each run of the grid below, a digest
 * of the planned schedule and the simulated makespan with a digest of every
 * op's sim_start and sim_end (their exact bits). It was recorded by the
 * engine of the commit named in tests/data/README.md; this test re-plans
 * and re-simulates every run and compares exactly, so a change of the
 * simulation engine cannot move any simulated time unnoticed. A different
 * planned digest means a scheduler or workload reader changed, not the
 * simulator: the message says so. To re-record (after checking why the
 * numbers moved): ACS_SIM_GOLDEN_WRITE=tests/data/sim-golden.txt
 * tests/test-simgolden --filter 'simgolden/write'.
 */

/* One platform variant of the grid: a row of a shipped platform file with
 * overrides. */
struct gvariant {
  const char *file, *row, *sets[3];
};

static const struct gvariant g_variants[] = {
  {"platforms/default.csv", "default", {"cmx_kib=512", "barriers=0", NULL}},
  {"platforms/default.csv", "default", {"cmx_kib=512", "barriers=4", NULL}},
  {"platforms/default.csv", "default", {"cmx_kib=2048", "barriers=0", NULL}},
  {"platforms/default.csv", "default", {"cmx_kib=2048", "barriers=4", NULL}},
  {"platforms/vpu.csv", "vpu", {"barriers=0", NULL}},
  {"platforms/vpu.csv", "vpu", {"barriers=4", NULL}},
  {"platforms/vpu.csv", "vpu-kb", {"barriers=0", NULL}},
  {"platforms/vpu.csv", "vpu-kb", {"barriers=4", NULL}},
  {"platforms/isp4.csv", "isp4", {NULL}},
};
#define G_NVARIANTS (sizeof(g_variants) / sizeof(g_variants[0]))

static const char *const g_workloads[] = {
  "workloads/dnn/alexnet.csv", "workloads/dnn/mobilenet_v1.csv",
  "workloads/dnn/resnet18.csv", "workloads/dnn/resnet50.csv",
  "workloads/dnn/vgg16.csv", "workloads/dnn/yolo.csv",
  "workloads/graphs/isp_pipeline.csv", "workloads/graphs/resnet_block_chain.csv",
  "tests/data/psplib/j301_1.sm", "tests/data/psplib/j3013_1.sm",
  "tests/data/load/rand0000.stg", "tests/data/load/stg_small.stg",
};
#define G_NWORKLOADS (sizeof(g_workloads) / sizeof(g_workloads[0]))

static const char *const g_scheds[] = {"sequential", "list", "spill"};

static uint64_t fnv_add(uint64_t h, const void *p, size_t n)
{
  const unsigned char *b = p;

  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static uint64_t fnv_i64(uint64_t h, int64_t v)
{
  return fnv_add(h, &v, sizeof(v));
}

/* The planned schedule as the simulator sees it: units, times, transfers,
 * edges and the barrier program. */
static uint64_t plan_digest(const struct acs_schedule *s)
{
  uint64_t h = 14695981039346656037ull;

  for (int32_t i = 0; i < s->nops; i++) {
    const struct acs_sop *o = &s->ops[i];
    int64_t v[] = {o->kind, o->unit, o->start, o->end, o->bytes, o->src, o->dst,
                   o->update_barrier};
    for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
      h = fnv_i64(h, v[k]);
  }
  for (int32_t e = 0; e < s->nedges; e++) {
    h = fnv_i64(h, s->edges[e].src);
    h = fnv_i64(h, s->edges[e].dst);
    h = fnv_i64(h, s->edges[e].kind);
  }
  for (int32_t w = 0; w < s->nwaits; w++) {
    h = fnv_i64(h, s->waits[w].op);
    h = fnv_i64(h, s->waits[w].barrier);
  }
  return h;
}

/* Every op's simulated times, bit for bit (NaN as one pattern). */
static uint64_t sim_digest(const struct acs_schedule *s)
{
  uint64_t h = 14695981039346656037ull;

  for (int32_t i = 0; i < s->nops; i++) {
    double t[2] = {s->ops[i].sim_start, s->ops[i].sim_end};
    for (int k = 0; k < 2; k++) {
      if (isnan(t[k]))
        t[k] = NAN;
      h = fnv_add(h, &t[k], sizeof(t[k]));
    }
  }
  return h;
}

static void gvariant_platform(const struct gvariant *v, struct acs_platform *out, char *name,
                              size_t size)
{
  struct acs_platform *rows;
  struct acs_diag d;
  size_t n, k;
  int off;

  acs_diag_init(&d);
  cr_assert_eq(acs_platform_load(tu_path(v->file), &rows, &n, &d), ACS_OK, "%s", d.msg);
  for (k = 0; k < n && strcmp(rows[k].name, v->row) != 0; k++)
    ;
  cr_assert_lt(k, n, "%s has no row %s", v->file, v->row);
  *out = rows[k];
  free(rows);
  off = snprintf(name, size, "%s", v->row);
  for (int j = 0; v->sets[j]; j++) {
    cr_assert_eq(acs_platform_set_kv(out, v->sets[j], &d), ACS_OK, "%s", d.msg);
    off += snprintf(name + off, size - (size_t)off, "%s%s", j ? "," : "[", v->sets[j]);
  }
  if (v->sets[0])
    snprintf(name + off, size - (size_t)off, "]");
}

/*
 * One golden line: "<variant> <workload> <scheduler> ops=N plan=HEX
 * status=ok makespan=M sim=S times=HEX", or status=<other> and the rest
 * left out when the run has no schedule to simulate. The run is the one
 * `acsim run` makes: schedule, verify, barrier pass when the platform has
 * barriers, verify, simulate.
 */
static void golden_line(const struct acs_platform *p, const char *vname, const char *wpath,
                        const char *sched, char *line, size_t size)
{
  const struct acs_sched_ops *ops = acs_sched_find(sched);
  struct acs_sched_ctx ctx = {1, 0, 0, NULL, 0};
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_sim_result r;
  struct acs_diag d;
  void *opts;
  int err;

  acs_diag_init(&d);
  cr_assert_not_null(ops, "%s", sched);
  cr_assert_eq(acs_workload_load(tu_path(wpath), &w, &d), ACS_OK, "%s: %s", wpath, d.msg);
  cr_assert_eq(acs_workload_build(w, p, &g, &d), ACS_OK, "%s: %s", wpath, d.msg);
  cr_assert_eq(acs_problem_init(&pb, &g, p, &d), ACS_OK, "%s: %s", wpath, d.msg);
  cr_assert_not_null(opts = calloc(1, ops->opts_size + 1));
  cr_assert_eq(acs_sched_opts_defaults(ops, opts), ACS_OK);
  cr_assert_eq(acs_schedule_init_problem(&s, &pb), ACS_OK);
  err = ops->schedule(&pb, opts, &ctx, &s, &d);
  if (err == ACS_OK && s.barriers > 0) {
    tu_assert_verified(&s);
    err = acs_barrier_pass(&pb, &s, &ctx, &d);
  }
  if (err < 0) {
    snprintf(line, size, "%s %s %s status=%s", vname, w->name, sched,
             err == ACS_EINFEASIBLE ? "infeasible" : acs_strerror(err));
  } else {
    struct acs_sim_opts so;
    struct acs_bprog bp;
    /* as cli/job.c: the program the verifier accepted serves the
     * simulation, which then leaves out the edges it implies */
    cr_assert_eq(acs_schedule_verify_keep(&s, &bp, &d), ACS_OK, "%s", d.msg);
    acs_schedule_finish(&s);
    acs_sim_opts_init(&so);
    so.bprog = s.barriers > 0 ? &bp : NULL;
    so.bprog_verified = 1;
    err = acs_sim_run(p, &s, &so, &r, &d);
    acs_bprog_destroy(&bp);
    cr_assert_eq(err, ACS_OK, "%s %s %s: %s", vname, w->name, sched, d.msg);
    snprintf(line, size, "%s %s %s ops=%d plan=%016llx status=ok makespan=%lld sim=%.6f "
             "times=%016llx", vname, w->name, sched, (int)s.nops,
             (unsigned long long)plan_digest(&s), (long long)s.makespan, r.makespan_cycles,
             (unsigned long long)sim_digest(&s));
  }
  acs_schedule_destroy(&s);
  free(opts);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

/* Calls fn(line) for every run of variant v, in grid order. */
static void golden_variant(size_t v, void (*fn)(const char *line, void *ctx), void *ctx)
{
  struct acs_platform p;
  char vname[256], line[1024];

  gvariant_platform(&g_variants[v], &p, vname, sizeof(vname));
  for (size_t w = 0; w < G_NWORKLOADS; w++) {
    struct acs_workload *wl;
    struct acs_diag d;
    int kind;
    acs_diag_init(&d);
    cr_assert_eq(acs_workload_load(tu_path(g_workloads[w]), &wl, &d), ACS_OK, "%s", d.msg);
    kind = wl->kind;
    acs_workload_free(wl);
    for (size_t k = 0; k < sizeof(g_scheds) / sizeof(g_scheds[0]); k++) {
      if (!acs_sched_accepts(acs_sched_find(g_scheds[k]), kind))
        continue;
      golden_line(&p, vname, g_workloads[w], g_scheds[k], line, sizeof(line));
      fn(line, ctx);
    }
  }
}

static void golden_print(const char *line, void *ctx)
{
  fprintf(ctx, "%s\n", line);
}

Test(simgolden, write, .timeout = 600)
{
  const char *path = getenv("ACS_SIM_GOLDEN_WRITE");
  FILE *f;

  if (!path || !*path)
    cr_skip_test("set ACS_SIM_GOLDEN_WRITE=FILE to record the golden replays");
  cr_assert_not_null(f = fopen(path, "w"), "%s", path);
  fprintf(f, "# Golden replays for tests/test-simgolden.c (simgolden); how it was made:\n"
             "# tests/data/README.md. One run per line: variant workload scheduler ops\n"
             "# plan-digest status planned-makespan simulated-makespan times-digest.\n");
  for (size_t v = 0; v < G_NVARIANTS; v++)
    golden_variant(v, golden_print, f);
  cr_assert_eq(fclose(f), 0);
}

/* The expected lines of one variant, and how many were matched. */
struct gexpect {
  char **line;
  size_t n, next;
  const char *prefix;
};

static void gexpect_load(struct gexpect *e, const char *prefix)
{
  FILE *f = fopen(tu_path("tests/data/sim-golden.txt"), "r");
  char buf[1024];

  memset(e, 0, sizeof(*e));
  e->prefix = prefix;
  cr_assert_not_null(f, "tests/data/sim-golden.txt is missing");
  cr_assert_not_null(e->line = calloc(1024, sizeof(*e->line)));
  while (fgets(buf, sizeof(buf), f)) {
    buf[strcspn(buf, "\n")] = '\0';
    if (buf[0] == '#' || strncmp(buf, prefix, strlen(prefix)) != 0)
      continue;
    cr_assert_lt(e->n, 1024);
    cr_assert_not_null(e->line[e->n++] = strdup(buf));
  }
  fclose(f);
}

/* Compares one computed line with the next expected one, naming what moved. */
static void golden_check(const char *got, void *ctx)
{
  struct gexpect *e = ctx;
  const char *want, *gp, *wp;

  cr_assert_lt(e->next, e->n, "a run the golden file does not have: %s", got);
  want = e->line[e->next++];
  if (strcmp(got, want) == 0)
    return;
  gp = strstr(got, " plan=");
  wp = strstr(want, " plan=");
  if (gp && wp && strncmp(gp, wp, 22) != 0)
    cr_assert_fail("the planned schedule changed (a scheduler or reader, not the simulator; "
                   "re-record as the test's comment says):\n  got  %s\n  want %s", got, want);
  cr_assert_fail("simulated times changed:\n  got  %s\n  want %s", got, want);
}

static void golden_compare(size_t v)
{
  struct acs_platform p;
  struct gexpect e;
  char vname[256], prefix[260];

  gvariant_platform(&g_variants[v], &p, vname, sizeof(vname));
  snprintf(prefix, sizeof(prefix), "%s ", vname);
  gexpect_load(&e, prefix);
  cr_assert_gt(e.n, 0, "no golden lines for %s", vname);
  golden_variant(v, golden_check, &e);
  cr_assert_eq(e.next, e.n, "%s: %zu golden runs, %zu made", vname, e.n, e.next);
  for (size_t k = 0; k < e.n; k++)
    free(e.line[k]);
  free(e.line);
}

/* A guard against a hang only, never a measure of speed: a variant runs
 * every shipped workload under the fast schedulers (up to about a minute
 * of CPU in a plain build, several under the sanitizers on a busy
 * machine). */
#define GOLDEN_TIMEOUT 1800

Test(simgolden, default_512_kib_without_barriers, .timeout = GOLDEN_TIMEOUT) { golden_compare(0); }
Test(simgolden, default_512_kib_with_4_barriers, .timeout = GOLDEN_TIMEOUT) { golden_compare(1); }
Test(simgolden, default_2_mib_without_barriers, .timeout = GOLDEN_TIMEOUT) { golden_compare(2); }
Test(simgolden, default_2_mib_with_4_barriers, .timeout = GOLDEN_TIMEOUT) { golden_compare(3); }
Test(simgolden, vpu_without_barriers, .timeout = GOLDEN_TIMEOUT) { golden_compare(4); }
Test(simgolden, vpu_with_4_barriers, .timeout = GOLDEN_TIMEOUT) { golden_compare(5); }
Test(simgolden, vpu_kb_without_barriers, .timeout = GOLDEN_TIMEOUT) { golden_compare(6); }
Test(simgolden, vpu_kb_with_4_barriers, .timeout = GOLDEN_TIMEOUT) { golden_compare(7); }
Test(simgolden, isp4, .timeout = GOLDEN_TIMEOUT) { golden_compare(8); }
