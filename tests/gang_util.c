/*
 * gang_util.c - helpers shared by the test-gang-* programs: the isp4
 * platform, running the SDF variants, SDF3 graphs written on the fly,
 * result tables and the gang context of a graph.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/sched/gang/gang.h"
#include "core/sched/sched.h"
#include "tests/testutil.h"

#include "tests/gang_util.h"

void platform_isp4(struct acs_platform *p, const char *const *sets)
{
  struct acs_platform *rows;
  size_t n;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_platform_load(tu_path("platforms/isp4.csv"), &rows, &n, &d), ACS_OK, "%s", d.msg);
  *p = rows[0];
  free(rows);
  for (; sets && *sets; sets++)
    cr_assert_eq(acs_platform_set_kv(p, *sets, &d), ACS_OK, "%s: %s", *sets, d.msg);
}

void open_run(struct run *r, const char *where, const char *const *sets)
{
  struct acs_platform p;
  struct acs_diag d;
  char path[1024];

  snprintf(path, sizeof(path), "%s", where);   /* tu_path's buffer is reused */
  acs_diag_init(&d);
  platform_isp4(&p, sets);
  cr_assert_eq(acs_workload_load(path, &r->w, &d), ACS_OK, "%s: %s", path, d.msg);
  cr_assert_eq(acs_workload_build(r->w, &p, &r->g, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_problem_init(&r->pb, &r->g, &p, &d), ACS_OK, "%s", d.msg);
  acs_workload_bind(r->w, &r->pb);
}

void close_run(struct run *r)
{
  acs_problem_destroy(&r->pb);
  acs_graph_destroy(&r->g);
  acs_workload_free(r->w);
}

int sched(const char *name, struct run *r, const char *const *opts,
                 const volatile sig_atomic_t *intr, struct acs_schedule *s, struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find(name);
  struct acs_sched_ctx ctx = { 1, 0, intr, NULL, 0 };
  void *o;
  int err;

  cr_assert_not_null(ops, "%s", name);
  o = calloc(1, ops->opts_size + 1);
  cr_assert_eq(acs_sched_opts_defaults(ops, o), ACS_OK);
  for (; opts && *opts; opts++) {
    char key[64];
    const char *eq = strchr(*opts, '=');
    snprintf(key, sizeof(key), "%.*s", (int)(eq - *opts), *opts);
    cr_assert_eq(acs_sched_opts_set(ops, o, key, eq + 1, d), ACS_OK, "%s", d->msg);
  }
  cr_assert_eq(acs_schedule_init_problem(s, &r->pb), ACS_OK);
  acs_diag_init(d);
  err = ops->schedule(&r->pb, o, &ctx, s, d);
  free(o);
  return err;
}

/* Runs and requires success and a verified schedule; returns the makespan. */
int64_t sched_ok(const char *name, struct run *r, const char *const *opts,
                        struct acs_schedule *s)
{
  struct acs_diag d;
  int err = sched(name, r, opts, NULL, s, &d);

  cr_assert_eq(err, ACS_OK, "%s on %s: %s (%s)", name, r->w->name, acs_strerror(err), d.msg);
  tu_assert_verified(s);
  return s->makespan;
}

/*
 * A chain of k line kernels k0 -> k1 -> ... over `lines` lines of `bytes`
 * each: input from DDR into k0, output of the last to DDR. Kernel i takes
 * exec[i] cycles and ksize bytes of program memory; pipe[i] (or NULL) its
 * pipeline class.
 */
const char *chain_xml(int k, int lines, int bytes, const int *exec, int ksize,
                             const char *const *pipe)
{
  static char buf[32768];
  size_t n = 0;

  n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                        "<?xml version=\"1.0\"?>\n<sdf3 type=\"sdf\"><applicationGraph name=\"c\">"
                        "<sdf name=\"c\" type=\"C\">\n");
  for (int i = 0; i < k; i++)
    n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                          "<actor name=\"k%d\" type=\"K\"><port name=\"i\" type=\"in\" rate=\"1\"/>"
                          "<port name=\"o\" type=\"out\" rate=\"1\"/></actor>\n", i);
  for (int i = 0; i + 1 < k; i++)
    n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                          "<channel name=\"c%d\" srcActor=\"k%d\" srcPort=\"o\" dstActor=\"k%d\" "
                          "dstPort=\"i\"/>\n", i, i, i + 1);
  n += (size_t)snprintf(buf + n, sizeof(buf) - n, "</sdf><sdfProperties>\n");
  for (int i = 0; i < k; i++)
    n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                          "<actorProperties actor=\"k%d\"><processor type=\"p\" default=\"true\">"
                          "<executionTime time=\"%d\"/></processor><acsim kernelSize=\"%d\"%s%s%s/>"
                          "</actorProperties>\n", i, exec[i], ksize, pipe && pipe[i] ? " pipeline=\"" : "",
                          pipe && pipe[i] ? pipe[i] : "", pipe && pipe[i] ? "\"" : "");
  n += (size_t)snprintf(buf + n, sizeof(buf) - n,
                        "<graphProperties><acsim iterations=\"%d\" tokenSize=\"%d\"/></graphProperties>"
                        "</sdfProperties></applicationGraph></sdf3>\n", lines, bytes);
  return buf;
}

const struct acs_rtab *table(const struct acs_schedule *s, const char *name)
{
  const struct acs_rtab *t = acs_schedule_find_rtab(s, name);
  cr_assert_not_null(t, "no table %s", name);
  return t;
}

int64_t attr_i64(const struct acs_rtab *t, const char *name)
{
  const struct acs_rtab_attr *a = acs_rtab_attr_find(t, name);
  cr_assert_not_null(a, "no attribute %s", name);
  return a->v.i;
}

/* An SDF3 file read and the family's context on platform p. */
void open_ctx(struct acs_gang_ctx *c, struct acs_sdf_graph *g, const char *path,
                     struct acs_platform *p)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_sdf3_read(path, g, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_gang_ctx_init(c, g, p, &d), ACS_OK, "%s", d.msg);
}

/* The heuristic's partition of an SDF3 file on isp4 (gang's realizations). */
void partition_of(const char *path, struct acs_platform *p, struct acs_sdf_graph *g,
                         struct acs_gang_ctx *c, struct acs_gang_part *pt)
{
  struct acs_gang_opts o;
  struct acs_diag d;

  platform_isp4(p, NULL);
  open_ctx(c, g, path, p);
  c->modes = 1;
  acs_sched_opts_defaults(&acs_sched_gang, &o);
  acs_diag_init(&d);
  cr_assert_eq(acs_gang_partition(c, &o, 0, pt, &d), ACS_OK, "%s", d.msg);
}

/* The gang of actor `name` in a partition. */
int32_t gang_in(const struct acs_gang_part *pt, const struct acs_sdf_graph *g, const char *name)
{
  for (int32_t i = 0; i < pt->ngangs; i++)
    for (int32_t k = 0; k < pt->gangs[i].nact; k++)
      if (strcmp(g->actors[pt->gangs[i].act[k]].name, name) == 0)
        return i;
  cr_assert_fail("actor %s in no gang", name);
  return -1;
}

