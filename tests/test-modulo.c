/*
 * test-modulo.c - loop workloads and the modulo scheduler (seed 001).
 *
 * Values are derived independently of the code under test: by hand (in the
 * comments), by brute-force enumeration of start times, or by the
 * scheduler's own independent checker on every produced schedule. Loops
 * copied from the HatScheT set are in tests/data/loops (README there).
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

#define LP(rel) "tests/data/loops/" rel
#define LB(rel) "tests/data/loops_bad/" rel

/* ---- helpers ---- */

static struct acs_workload *load_ok(const char *rel)
{
  struct acs_workload *w;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(tu_path(rel), &w, &d), ACS_OK, "%s: %s", rel, d.msg);
  cr_assert_eq(w->kind, ACS_WL_LOOP);
  return w;
}

static void load_fails(const char *rel, int rc, int line, const char *part)
{
  struct acs_workload *w = NULL;
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs_workload_load(tu_path(rel), &w, &d), rc, "%s: %s", rel, d.msg);
  cr_assert_null(w);
  cr_assert_eq(d.line, line, "%s: line %d, want %d (%s)", rel, d.line, line, d.msg);
  cr_assert_not_null(strstr(d.msg, part), "%s: '%s' lacks '%s'", rel, d.msg, part);
}

/* A problem over the loop with default units (platform overrides: sets). */
struct bound {
  struct acs_loop_layout lay;
  struct acs_msp m;
};

static void bind(struct bound *b, const struct acs_loop *l, const char *const *sets)
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

static void unbind(struct bound *b)
{
  acs__msp_destroy(&b->m);
  acs_loop_layout_destroy(&b->lay);
}

static void defaults(struct acs_mopts *o)
{
  memset(o, 0, sizeof(*o));
  o->budget = 6;
  o->restarts = 4;
  o->arms = 1;
  o->seed = 1;
}

/* Runs the search and asserts the checker accepts the result. */
static void search_ok(const struct acs_msp *m, const struct acs_mopts *o, struct acs_mresult *r)
{
  struct acs_diag d;

  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_search(m, o, r, &d), ACS_OK, "%s", d.msg);
  cr_assert_gt(r->ii, 0);
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(m, r->ii, r->t, r->unit, &d), ACS_OK, "%s", d.msg);
}

/* A loop built in code: classes (name, lat, bt, limit) and ops. */
static void loop_new(struct acs_loop *l)
{
  cr_assert_eq(acs_loop_init(l, "t", "t.csv"), ACS_OK);
}

/* ---- readers ---- */

Test(loop_load, graphml_with_resource_model)
{
  struct acs_workload *w = load_ok(LP("tiny.graphml"));
  const struct acs_loop *l = w->model;

  /* Four ops (modsched_info is skipped), names trimmed, five edges. */
  cr_assert_eq(l->nops, 4);
  cr_assert_str_eq(l->ops[2].name, "mul");
  cr_assert_eq(l->nedges, 5);
  cr_assert_eq(l->nclasses, 4);
  /* limit "inf" is unlimited; blocking time 0 with a limit is kept as 0
   * in the model and read as 1 when scheduling. */
  cr_assert_eq(l->classes[2].limit, ACS_LOOP_UNLIMITED);
  cr_assert_eq(l->classes[3].blocking, 0);
  cr_assert_eq(acs_loop_blocking(l, 3, 2), 1);
  /* The edge 2 -> 3 (shift -> mul) has delay 1; 1 -> 2 has no delay data. */
  int seen = 0;
  for (int32_t e = 0; e < l->nedges; e++) {
    if (l->edges[e].src == 1 && l->edges[e].dst == 2) {
      cr_assert_eq(l->edges[e].delay, 1);
      seen++;
    }
    if (l->edges[e].src == 0 && l->edges[e].dst == 1) {
      cr_assert_eq(l->edges[e].delay, 0);
      seen++;
    }
  }
  cr_assert_eq(seen, 2);
  cr_assert_not_null(strstr(l->rm_path, "tiny_RM.xml"));
  acs_workload_free(w);
}

Test(loop_load, resource_model_named_without_underscore)
{
  struct acs_workload *w = load_ok(LP("fir_gen.graphml"));
  const struct acs_loop *l = w->model;

  cr_assert_not_null(strstr(l->rm_path, "fir_genRM.xml"));
  cr_assert_eq(l->nops, 15);
  acs_workload_free(w);
}

Test(loop_load, errors_are_located_and_name_both_files)
{
  load_fails(LB("norm.graphml"), ACS_ENOTFOUND, 0, "looked for norm_RM.xml, normRM.xml");
  load_fails(LB("malformed.graphml"), ACS_EPARSE, 5, "XML: Opening and ending tag mismatch");
  load_fails(LB("badres.graphml"), ACS_EPARSE, 5, "uses resource 'fpu', which");
  load_fails(LB("badres.graphml"), ACS_EPARSE, 5, "badres_RM.xml does not define");
  load_fails(LB("dupid.graphml"), ACS_EPARSE, 5, "duplicate node id '1' (first at line 4)");
  load_fails(LB("edgeref.graphml"), ACS_EPARSE, 5, "no node with id '9'");
  load_fails(LB("badrm.graphml"), ACS_EPARSE, 4, "(the resource model of badrm.graphml)");
  load_fails(LB("zerocycle.graphml"), ACS_ECYCLE, 7, "a -> b");
  load_fails(LB("empty.graphml"), ACS_EPARSE, 0, "empty file");
  load_fails(LB("csv_badclass.csv"), ACS_EPARSE, 3, "unknown class 'fpu'");
  load_fails(LB("csv_badinput.csv"), ACS_EPARSE, 4, "distance 'two'");
  load_fails(LB("csv_wrongfield.csv"), ACS_EPARSE, 2, "'inputs' is not a field of class rows");
}

Test(loop_load, csv_inputs_with_distance_and_delay)
{
  struct acs_workload *w = load_ok(LP("fir.csv"));
  const struct acs_loop *l = w->model;
  int acc_self = 0, st_delay = 0;

  cr_assert_eq(l->nclasses, 3);
  cr_assert_eq(l->nops, 10);
  /* inputs: 3 + 2 + 2 + 2 (acc: s1 and acc@1) + 1 = 10 edges. */
  cr_assert_eq(l->nedges, 10);
  for (int32_t e = 0; e < l->nedges; e++) {
    const struct acs_loop_edge *x = &l->edges[e];
    if (strcmp(l->ops[x->src].name, "acc") == 0 && x->src == x->dst)
      acc_self = x->distance == 1 && x->delay == 0;
    if (strcmp(l->ops[x->dst].name, "st") == 0)
      st_delay = x->delay == 1 && x->distance == 0;
  }
  cr_assert(acc_self && st_delay);
  acs_workload_free(w);
}

/* ---- the unrolled DAG ---- */

Test(loop_graph, unrolling_has_parts_and_iteration_edges)
{
  struct acs_workload *w = load_ok(LP("tiny.graphml"));
  struct acs_platform p;
  struct acs_graph g;
  struct acs_diag d;

  acs_platform_init(&p);
  acs_diag_init(&d);
  cr_assert_eq(acs_platform_set_kv(&p, "loop_iterations=3", &d), ACS_OK);
  cr_assert_eq(acs_workload_build(w, &p, &g, &d), ACS_OK, "%s", d.msg);
  /* Per iteration: load (issue 1 + lat 1), shift (issue 0 + wait "+1"),
   * mul (issue 3, unlimited), acc (issue 1: latency 1 = blocking 1):
   * 2 + 2 + 1 + 1 = 6 ops; 3 iterations. Resources: mem and add only. */
  cr_assert_eq(g.nops, 18);
  cr_assert_eq(g.nres, 2);
  cr_assert_neq(acs_graph_find_op(&g, "load@2.lat"), -1);
  cr_assert_neq(acs_graph_find_op(&g, "shift@0+1"), -1);
  int32_t a0 = acs_graph_find_op(&g, "acc@0"), a1 = acs_graph_find_op(&g, "acc@1");
  int found = 0;
  for (int32_t k = g.succ_off[a0]; k < g.succ_off[a0 + 1]; k++)
    found |= g.succ[k] == a1;
  cr_assert(found, "acc@0 -> acc@1 (distance 1) missing");
  /* mul@0 lasts its latency and demands nothing. */
  int32_t m0 = acs_graph_find_op(&g, "mul@0");
  cr_assert_eq(g.ops[m0].cycles, 3);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

Test(loop_graph, unit_overrides_change_capacities)
{
  struct acs_workload *w = load_ok(LP("tiny.graphml"));
  struct acs_platform p;
  struct acs_graph g;
  struct acs_diag d;

  acs_platform_init(&p);
  acs_diag_init(&d);
  /* mul becomes limited (2 units), mem gets 3. */
  cr_assert_eq(acs_platform_set_kv(&p, "units=mul:2;mem:3", &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_workload_build(w, &p, &g, &d), ACS_OK, "%s", d.msg);
  int r = acs_graph_find_resource(&g, "mul");
  cr_assert_geq(r, 0);
  cr_assert_eq(g.res[r].capacity, 2);
  cr_assert_eq(g.res[acs_graph_find_resource(&g, "mem")].capacity, 3);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

/* ---- platform unit counts ---- */

Test(platform_units, set_parse_get_and_vary)
{
  struct acs_platform p, *out;
  struct acs_vary v;
  struct acs_diag d;
  size_t n;
  int64_t k;

  acs_platform_init(&p);
  acs_diag_init(&d);
  cr_assert_eq(acs_platform_set_kv(&p, "units=b:2; a:-1", &d), ACS_OK, "%s", d.msg);
  cr_assert_str_eq(p.units, "a:-1;b:2");
  cr_assert_eq(acs_platform_set_kv(&p, "units.c=4", &d), ACS_OK);
  cr_assert_str_eq(p.units, "a:-1;b:2;c:4");
  cr_assert_eq(acs_platform_units_get(&p, "c", &k), 1);
  cr_assert_eq(k, 4);
  cr_assert_eq(acs_platform_units_get(&p, "d", &k), 0);
  cr_assert_eq(acs_platform_set_kv(&p, "units.c=0", &d), ACS_ERANGE);
  cr_assert_eq(acs_platform_set_kv(&p, "units.c:x=1", &d), ACS_EPARSE);
  cr_assert_eq(acs_platform_set_kv(&p, "units=a:1;a:2", &d), ACS_EPARSE);
  cr_assert_str_eq(p.units, "a:-1;b:2;c:4", "a failed --set changed the list");
  cr_assert_eq(acs_vary_parse("units.mem=1..4*2", 1, &v, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(v.n, 3);
  cr_assert_eq(acs_vary_expand(&p, 1, &v, 1, &out, &n, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(n, 3);
  cr_assert_str_eq(out[2].name, "default[units.mem=4]");
  cr_assert_str_eq(out[2].units, "a:-1;b:2;c:4;mem:4");
  free(out);
  acs_vary_free(&v);
}

/* ---- the reservation table: the seed's probe/commit contract ---- */

Test(rrt, probe_before_commit)
{
  struct acs_loop l;
  struct acs_msp m;
  struct acs_rrt t;
  int64_t units[2] = {2, ACS_LOOP_UNLIMITED};
  uint64_t before[64];

  loop_new(&l);
  cr_assert_geq(acs_loop_add_class(&l, "u", 1, 2, 2, 1), 0);
  cr_assert_geq(acs_loop_add_class(&l, "free", 1, 1, -1, 2), 0);
  cr_assert_geq(acs_loop_add_op(&l, "a", 0, 3), 0);
  cr_assert_eq(acs__msp_init(&m, &l, units), ACS_OK);
  cr_assert_eq(acs__rrt_init(&t, &m, 4), ACS_OK);
  /* An empty table takes any footprint of at most II rows. */
  cr_assert_eq(acs__rrt_probe(&t, 0, 0, 2, 3), 1);
  cr_assert_eq(acs__rrt_probe(&t, 0, 0, 5, 0), 0, "a footprint longer than II overlaps itself");
  /* Commit rows 3 and 0 (wrapping) of unit 0. */
  cr_assert_eq(acs__rrt_commit(&t, 0, 0, 2, 3), ACS_OK);
  cr_assert_eq(acs__rrt_row_load(&t, 0, 3), 1);
  cr_assert_eq(acs__rrt_row_load(&t, 0, 0), 1);
  cr_assert_eq(acs__rrt_row_load(&t, 0, 1), 0);
  /* Any footprint touching row 0 or 3 on unit 0 is refused; negative
   * starts are residues too (-1 is row 3). */
  cr_assert_eq(acs__rrt_probe(&t, 0, 0, 1, 0), 0);
  cr_assert_eq(acs__rrt_probe(&t, 0, 0, 1, -1), 0);
  cr_assert_eq(acs__rrt_probe(&t, 0, 0, 2, 1), 1);
  cr_assert_eq(acs__rrt_probe(&t, 0, 1, 2, 3), 1, "unit 1 is independent");
  cr_assert_eq(acs__rrt_free_unit(&t, 0, 2, 0), 1);
  /* A commit that probing would refuse is refused whole: no row changes,
   * although its second row (1) was free. */
  memcpy(before, t.rows, t.nwords * sizeof(uint64_t));
  cr_assert_eq(acs__rrt_commit(&t, 0, 0, 2, 0), ACS_EINVAL);
  cr_assert_eq(memcmp(before, t.rows, t.nwords * sizeof(uint64_t)), 0);
  /* Unlimited classes have no rows: every probe passes, commits are no-ops. */
  cr_assert_eq(acs__rrt_probe(&t, 1, 0, 1, 0), 1);
  cr_assert_eq(acs__rrt_commit(&t, 1, 0, 1, 0), ACS_OK);
  /* Release frees exactly the footprint. */
  acs__rrt_release(&t, 0, 0, 2, 3);
  cr_assert_eq(acs__rrt_probe(&t, 0, 0, 4, 0), 1);
  acs__rrt_destroy(&t);
  acs__msp_destroy(&m);
  acs_loop_destroy(&l);
}

Test(rrt, units_beyond_one_word)
{
  struct acs_loop l;
  struct acs_msp m;
  struct acs_rrt t;
  int64_t units[1] = {70};

  loop_new(&l);
  cr_assert_geq(acs_loop_add_class(&l, "u", 1, 1, 70, 1), 0);
  cr_assert_eq(acs__msp_init(&m, &l, units), ACS_OK);
  cr_assert_eq(acs__rrt_init(&t, &m, 1), ACS_OK);
  for (int32_t u = 0; u < 70; u++) {
    cr_assert_eq(acs__rrt_free_unit(&t, 0, 1, 0), u);
    cr_assert_eq(acs__rrt_commit(&t, 0, u, 1, 0), ACS_OK);
  }
  cr_assert_eq(acs__rrt_free_unit(&t, 0, 1, 0), -1);
  cr_assert_eq(acs__rrt_row_load(&t, 0, 0), 70);
  cr_assert_eq(acs__rrt_probe(&t, 0, 70, 1, 0), 0, "unit 70 does not exist");
  acs__rrt_destroy(&t);
  acs__msp_destroy(&m);
  acs_loop_destroy(&l);
}

/* ---- lower bounds ---- */

/* RecMII by brute force: the least II for which Floyd-Warshall finds no
 * positive cycle in w - d II. */
static int64_t brute_rec(const struct acs_loop *l)
{
  int32_t n = l->nops;
  for (int64_t ii = 1;; ii++) {
    double *dist = malloc(sizeof(double) * (size_t)(n * n));
    int pos = 0;
    for (int32_t i = 0; i < n * n; i++)
      dist[i] = -INFINITY;
    for (int32_t e = 0; e < l->nedges; e++) {
      const struct acs_loop_edge *x = &l->edges[e];
      double c = (double)(l->classes[l->ops[x->src].cls].latency + x->delay - x->distance * ii);
      if (c > dist[x->src * n + x->dst])
        dist[x->src * n + x->dst] = c;
    }
    for (int32_t k = 0; k < n; k++)
      for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < n; j++)
          if (dist[i * n + k] + dist[k * n + j] > dist[i * n + j])
            dist[i * n + j] = dist[i * n + k] + dist[k * n + j];
    for (int32_t i = 0; i < n; i++)
      pos |= dist[i * n + i] > 0;
    free(dist);
    if (!pos)
      return ii;
  }
}

Test(mii, parts_match_hand_and_brute_force)
{
  struct acs_loop l;
  struct bound b;
  struct acs_mii mii;

  loop_new(&l);
  /* u: 5 ops of blocking 1 on 2 units -> ResMII ceil(5/2) = 3.
   * v: 3 ops of blocking 2 on 2 units -> ResMII ceil(6/2) = 3, but a unit
   *    holds floor(II/2) ops, so II >= 2 ceil(3/2) = 4 (fine-density). */
  cr_assert_geq(acs_loop_add_class(&l, "u", 1, 1, 2, 1), 0);
  cr_assert_geq(acs_loop_add_class(&l, "v", 3, 2, 2, 2), 0);
  for (int i = 0; i < 5; i++) {
    char name[8];
    snprintf(name, sizeof(name), "u%d", i);
    cr_assert_geq(acs_loop_add_op(&l, name, 0, 0), 0);
  }
  for (int i = 0; i < 3; i++) {
    char name[8];
    snprintf(name, sizeof(name), "v%d", i);
    cr_assert_geq(acs_loop_add_op(&l, name, 1, 0), 0);
  }
  /* Cycles: u0 -> v0 -> u0 at distance 2: (1 + 3 + 1) / 2 -> 3;
   * v1 -> v2 -> v1 at distance 1 with a delay 1: (3 + 1 + 3) / 1 = 7. */
  cr_assert_eq(acs_loop_add_edge(&l, 0, 5, 1, 0, 0), ACS_OK);
  cr_assert_eq(acs_loop_add_edge(&l, 5, 0, 0, 2, 0), ACS_OK);
  cr_assert_eq(acs_loop_add_edge(&l, 6, 7, 1, 0, 0), ACS_OK);
  cr_assert_eq(acs_loop_add_edge(&l, 7, 6, 0, 1, 0), ACS_OK);
  cr_assert_eq(acs_loop_check(&l, NULL), ACS_OK);
  bind(&b, &l, NULL);
  cr_assert_eq(acs__msp_mii(&b.m, &mii, NULL), ACS_OK);
  cr_assert_eq(mii.res, 3);
  cr_assert_eq(mii.fine, 4);
  cr_assert_eq(mii.rec, 7);
  cr_assert_eq(mii.rec, brute_rec(&l));
  cr_assert_eq(mii.dep, 1);
  cr_assert_eq(mii.mii, 7);
  /* A stage cap of 2: the longest distance-0 path is u0 -> v0 (start 2) and
   * v1 -> v2 (start 4), so the last start is >= 4 and needs 2 II > 4: 3. */
  b.m.max_stages = 2;
  cr_assert_eq(acs__msp_mii(&b.m, &mii, NULL), ACS_OK);
  cr_assert_eq(mii.dep, 3);
  unbind(&b);
  acs_loop_destroy(&l);
}

Test(mii, recurrence_bound_of_shipped_loops_matches_brute_force)
{
  static const char *const files[] = {LP("iir_biqu.graphml"), LP("graph18.graphml"),
                                      LP("fir_gen.graphml"), LP("tiny.graphml")};
  for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
    struct acs_workload *w = load_ok(files[k]);
    struct bound b;
    struct acs_mii mii;
    bind(&b, w->model, NULL);
    cr_assert_eq(acs__msp_mii(&b.m, &mii, NULL), ACS_OK);
    cr_assert_eq(mii.rec, brute_rec(w->model), "%s", files[k]);
    unbind(&b);
    acs_workload_free(w);
  }
}

/* ---- MII provably unreachable ---- */

/*
 * unreachable.csv: ops a, b on one unit (latency 2, blocking 1), a -> b
 * and b -> a at distance 2. By enumeration: with t_a fixed at 0 (any
 * schedule can be shifted), every t_b in [0, 2 II + 2] and both units
 * orders, no schedule satisfies the edges and the unit at II = 2; one does
 * at II = 3. (Starts beyond 2 II + 2 break b -> a.)
 */
static int enumerate_feasible(int64_t ii)
{
  for (int64_t tb = 0; tb <= 2 * ii + 2; tb++) {
    int deps = tb >= 0 + 2 && 0 + 2 * ii >= tb + 2;
    int unit = (tb % ii) != 0; /* one unit, blocking 1: distinct residues */
    if (deps && unit)
      return 1;
  }
  return 0;
}

Test(unreachable, mii_is_proven_unreachable)
{
  struct acs_workload *w = load_ok(LP("unreachable.csv"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;

  cr_assert_eq(enumerate_feasible(2), 0);
  cr_assert_eq(enumerate_feasible(3), 1);
  bind(&b, w->model, NULL);
  /* Heuristic: MII 2 (ResMII 2, RecMII ceil(4 / 2) = 2), II 3, not proven. */
  defaults(&o);
  search_ok(&b.m, &o, &r);
  cr_assert_eq(r.mii.res, 2);
  cr_assert_eq(r.mii.rec, 2);
  cr_assert_eq(r.mii.mii, 2);
  cr_assert_eq(r.ii, 3);
  cr_assert_eq(r.proven, 0);
  cr_assert_eq(r.tries[0].ii, 2);
  cr_assert_eq(r.tries[0].ok, 0);
  acs__mresult_free(&r);
  /* Exact: II 2 proven infeasible, so 3 is proven minimal. */
  o.exact = 1;
  search_ok(&b.m, &o, &r);
  cr_assert_eq(r.ii, 3);
  cr_assert_eq(r.proven, 1);
  cr_assert_eq(r.exact_status, ACS_OK);
  int proved2 = 0;
  for (size_t k = 0; k < r.ntries; k++)
    proved2 |= r.tries[k].ii == 2 && r.tries[k].ok == -1;
  cr_assert(proved2, "II 2 not recorded as proven infeasible");
  cr_assert_not_null(strstr(r.note, "proven infeasible"), "%s", r.note);
  acs__mresult_free(&r);
  unbind(&b);
  acs_workload_free(w);
}

Test(unreachable, failure_diagnostics_name_op_window_and_pool)
{
  struct acs_workload *w = load_ok(LP("unreachable.csv"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;

  bind(&b, w->model, NULL);
  defaults(&o);
  o.arms = 0;
  o.restarts = 0;
  search_ok(&b.m, &o, &r);
  const struct acs_mfail *f = &r.tries[0].fail;
  cr_assert_eq(r.tries[0].ok, 0);
  cr_assert(f->set);
  cr_assert_eq(f->ii, 2);
  cr_assert_str_eq(f->arm, "ims");
  cr_assert(f->op == 0 || f->op == 1);
  cr_assert_eq(f->occ, 1);
  acs__mresult_free(&r);
  unbind(&b);
  acs_workload_free(w);
}

/* ---- schedules ---- */

Test(heuristic, shipped_loops_verified_and_deterministic)
{
  static const char *const files[] = {LP("iir_biqu.graphml"), LP("graph18.graphml"),
                                      LP("fir_gen.graphml"), LP("tiny.graphml"), LP("fir.csv")};
  for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
    struct acs_workload *w = load_ok(files[k]);
    struct bound b;
    struct acs_mopts o;
    struct acs_mresult r1, r2;
    bind(&b, w->model, NULL);
    defaults(&o);
    search_ok(&b.m, &o, &r1);
    search_ok(&b.m, &o, &r2);
    cr_assert_eq(r1.ii, r2.ii);
    cr_assert_eq(memcmp(r1.t, r2.t, sizeof(int64_t) * (size_t)b.m.n), 0, "%s", files[k]);
    cr_assert_eq(memcmp(r1.unit, r2.unit, sizeof(int32_t) * (size_t)b.m.n), 0);
    cr_assert_geq(r1.ii, r1.mii.mii);
    cr_assert_eq(r1.proven, r1.ii == r1.mii.mii);
    acs__mresult_free(&r1);
    acs__mresult_free(&r2);
    unbind(&b);
    acs_workload_free(w);
  }
}

/* Every arm alone and IMS alone give checker-valid schedules when they
 * succeed; on fir.csv at a generous II every one of them succeeds. */
Test(heuristic, every_arm_yields_valid_schedules)
{
  struct acs_workload *w = load_ok(LP("fir.csv"));
  struct bound b;
  struct acs_mstate s;
  struct acs_diag d;
  int32_t order[64];
  int64_t height[64], rank[64];
  int64_t ii = 6;

  bind(&b, w->model, NULL);
  cr_assert_eq(acs__mstate_init(&s, &b.m, ii), ACS_OK);
  cr_assert_eq(acs__msp_priority(&b.m, ii, order, height), ACS_OK);
  for (int32_t p = 0; p < b.m.n; p++)
    rank[order[p]] = p;
  for (int k = 0; k < 5; k++) {
    int rc = k == 0   ? acs__arm_permute(&s, &b.m, order)
             : k == 1 ? acs__arm_fuse(&s, &b.m, order, height)
             : k == 2 ? acs__arm_retry(&s, &b.m, order)
             : k == 3 ? acs__arm_cost(&s, &b.m, order)
                      : acs__ims(&s, &b.m, rank, 6 * b.m.n, NULL, NULL);
    cr_assert_eq(rc, 1, "arm %d failed at II %lld", k, (long long)ii);
    acs__mstate_normalize(&s, &b.m);
    acs_diag_init(&d);
    cr_assert_eq(acs__modulo_check(&b.m, ii, s.t, s.unit, &d), ACS_OK, "arm %d: %s", k, d.msg);
  }
  acs__mstate_destroy(&s);
  unbind(&b);
  acs_workload_free(w);
}

Test(heuristic, gallop_search_is_valid_and_units_help)
{
  struct acs_workload *w = load_ok(LP("fir.csv"));
  static const char *const more[] = {"units.mul=3", NULL};
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;

  /* fir.csv: 3 multiplies on 1 unit -> ResMII 3; 4 memory ops on 2 ports
   * -> 2; acc's recurrence 1. With 3 multipliers, MII = 2. */
  bind(&b, w->model, NULL);
  defaults(&o);
  o.search = ACS_MSP_SEARCH_GALLOP;
  search_ok(&b.m, &o, &r);
  cr_assert_eq(r.mii.mii, 3);
  cr_assert_eq(r.mii.res_class, 1);
  acs__mresult_free(&r);
  unbind(&b);
  bind(&b, w->model, more);
  search_ok(&b.m, &o, &r);
  cr_assert_eq(r.mii.mii, 2);
  cr_assert_eq(r.ii, 2);
  acs__mresult_free(&r);
  unbind(&b);
  acs_workload_free(w);
}

Test(heuristic, stage_cap_is_respected_or_infeasible)
{
  struct acs_workload *w = load_ok(LP("fir.csv"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;
  struct acs_diag d;

  bind(&b, w->model, NULL);
  defaults(&o);
  o.max_stages = 1;
  b.m.max_stages = 1;
  search_ok(&b.m, &o, &r);
  /* One stage: every start below II. The chain x -> m -> s0 -> s1 -> acc
   * -> st starts st at 2 + 3 + 1 + 1 + 1 + 1 (delay) = 9 at least, so
   * II >= 10 (dependency MII). */
  cr_assert_eq(r.mii.dep, 10);
  cr_assert_geq(r.ii, 10);
  cr_assert_eq(r.stages, 1);
  acs__mresult_free(&r);
  /* An II cap below what one stage needs: infeasible, with a message. */
  o.ii_max = 9;
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_search(&b.m, &o, &r, &d), ACS_EINFEASIBLE);
  cr_assert_not_null(strstr(d.msg, "below the lower bound"), "%s", d.msg);
  acs__mresult_free(&r);
  unbind(&b);
  acs_workload_free(w);
}

Test(heuristic, interrupt_stops_the_search)
{
  struct acs_workload *w = load_ok(LP("graph18.graphml"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;
  struct acs_diag d;
  volatile sig_atomic_t flag = 1;

  bind(&b, w->model, NULL);
  defaults(&o);
  o.interrupted = &flag;
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_search(&b.m, &o, &r, &d), ACS_EINTERRUPTED);
  acs__mresult_free(&r);
  unbind(&b);
  acs_workload_free(w);
}

/* ---- the independent checker ---- */

Test(check, rejects_each_kind_of_violation)
{
  struct acs_workload *w = load_ok(LP("fir.csv"));
  struct bound b;
  struct acs_mopts o;
  struct acs_mresult r;
  struct acs_diag d;
  int64_t t[16];
  int32_t u[16];

  bind(&b, w->model, NULL);
  defaults(&o);
  search_ok(&b.m, &o, &r);
  /* Ops: 0-2 x (mem), 3-5 m (mul), 6 s0, 7 s1, 8 acc, 9 st. */
  memcpy(t, r.t, sizeof(int64_t) * 10);
  memcpy(u, r.unit, sizeof(int32_t) * 10);
  t[3] = t[0]; /* m0 before its load's result */
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&b.m, r.ii, t, u, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "edge 'x0' -> 'm0'"), "%s", d.msg);
  memcpy(t, r.t, sizeof(int64_t) * 10);
  memcpy(u, r.unit, sizeof(int32_t) * 10);
  u[3] = 1; /* mul has one unit */
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&b.m, r.ii, t, u, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "outside [0, 1)"), "%s", d.msg);
  memcpy(u, r.unit, sizeof(int32_t) * 10);
  u[6] = 0; /* add is unlimited */
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&b.m, r.ii, t, u, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "unlimited class"), "%s", d.msg);
  memcpy(u, r.unit, sizeof(int32_t) * 10);
  t[0] = -1;
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&b.m, r.ii, t, u, &d), ACS_EVERIFY);
  acs__mresult_free(&r);
  unbind(&b);
  acs_workload_free(w);
}

Test(check, resource_overlap_in_one_residue)
{
  struct acs_loop l;
  struct acs_msp m;
  struct acs_diag d;
  int64_t units[1] = {1}, t[2] = {0, 3};
  int32_t u[2] = {0, 0};

  loop_new(&l);
  cr_assert_geq(acs_loop_add_class(&l, "u", 1, 2, 1, 1), 0);
  cr_assert_geq(acs_loop_add_op(&l, "a", 0, 2), 0);
  cr_assert_geq(acs_loop_add_op(&l, "b", 0, 3), 0);
  cr_assert_eq(acs__msp_init(&m, &l, units), ACS_OK);
  /* II 4: a holds residues 0, 1; b 3, 0 (wrapping): residue 0 twice. */
  acs_diag_init(&d);
  cr_assert_eq(acs__modulo_check(&m, 4, t, u, &d), ACS_EVERIFY);
  cr_assert_not_null(strstr(d.msg, "residue 0"), "%s", d.msg);
  t[1] = 2; /* residues 2, 3: fits */
  cr_assert_eq(acs__modulo_check(&m, 4, t, u, &d), ACS_OK);
  acs__msp_destroy(&m);
  acs_loop_destroy(&l);
}

/* ---- the variant: lowering, verifier, tables ---- */

static void run_variant(const char *rel, const char *const *sets, const char *const *opts,
                        struct acs_schedule *s, struct acs_workload **wout,
                        struct acs_graph *g, struct acs_problem *pb, int want)
{
  const struct acs_sched_ops *ops = acs_sched_find("modulo");
  struct acs_sched_ctx ctx = {1, 0, NULL};
  struct acs_workload *w = load_ok(rel);
  struct acs_platform p;
  struct acs_diag d;
  char optbuf[256];

  acs_platform_init(&p);
  acs_diag_init(&d);
  for (size_t i = 0; sets && sets[i]; i++)
    cr_assert_eq(acs_platform_set_kv(&p, sets[i], &d), ACS_OK);
  cr_assert_eq(acs_workload_build(w, &p, g, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_problem_init(pb, g, &p, &d), ACS_OK);
  pb->wl = w;
  cr_assert_not_null(ops);
  void *o = calloc(1, ops->opts_size);
  cr_assert_eq(acs_sched_opts_defaults(ops, o), ACS_OK);
  for (size_t i = 0; opts && opts[i]; i++) {
    snprintf(optbuf, sizeof(optbuf), "%s", opts[i]);
    char *eq = strchr(optbuf, '=');
    *eq = '\0';
    cr_assert_eq(acs_sched_opts_set(ops, o, optbuf, eq + 1, &d), ACS_OK, "%s", d.msg);
  }
  cr_assert_eq(acs_schedule_init_problem(s, pb), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(ops->schedule(pb, o, &ctx, s, &d), want, "%s", d.msg);
  free(o);
  *wout = w;
}

Test(variant, lowering_is_verified_and_periodic)
{
  static const char *const sets[] = {"loop_iterations=5", NULL};
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  run_variant(LP("iir_biqu.graphml"), sets, NULL, &s, &w, &g, &pb, ACS_OK);
  tu_assert_verified(&s);
  const struct acs_rtab *t = acs_schedule_find_rtab(&s, "modulo");
  cr_assert_not_null(t);
  int64_t ii = acs_rtab_attr_find(t, "ii")->v.i;
  cr_assert_eq(acs_rtab_attr_find(t, "iterations")->v.i, 5);
  cr_assert_eq(t->nrows, ((const struct acs_loop *)w->model)->nops);
  /* Every op of iteration k starts k II after its iteration-0 self, and the
   * table's start and slot agree with the lowered schedule. */
  for (int64_t row = 0; row < t->nrows; row++) {
    char name[ACS_NAME_MAX + 16];
    int64_t start = acs_rtab_get(t, row, 2).i;
    cr_assert_eq(acs_rtab_get(t, row, 4).i, start % ii);
    cr_assert_eq(acs_rtab_get(t, row, 3).i, start / ii);
    for (int k = 0; k < 5; k++) {
      snprintf(name, sizeof(name), "%s@%d", acs_rtab_get(t, row, 0).s, k);
      int32_t i = acs_graph_find_op(&g, name);
      cr_assert_geq(i, 0, "%s", name);
      cr_assert_eq(s.ops[i].start, start + k * ii, "%s", name);
    }
  }
  /* Planned cycles per iteration: 4 II plus the span of iteration 0 (its
   * latest end), over 5 iterations. */
  int64_t span = 0;
  for (int32_t i = 0; i < s.norig / 5; i++)
    if (s.ops[i].end > span)
      span = s.ops[i].end;
  double cpi = acs_loop_cycles_per_iter(w->model, &pb.plat, &s, 0);
  double want = (double)(4 * ii + span) / 5.0;
  cr_assert_float_eq(cpi, want, 1e-9);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

Test(variant, exact_mode_reports_proof)
{
  static const char *const opts[] = {"exact=1", NULL};
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;

  run_variant(LP("unreachable.csv"), NULL, opts, &s, &w, &g, &pb, ACS_OK);
  tu_assert_verified(&s);
  const struct acs_rtab *t = acs_schedule_find_rtab(&s, "modulo");
  cr_assert_eq(acs_rtab_attr_find(t, "ii")->v.i, 3);
  cr_assert_eq(acs_rtab_attr_find(t, "proven")->v.i, 1);
  const struct acs_rtab *tries = acs_schedule_find_rtab(&s, "modulo_tries");
  cr_assert_not_null(tries);
  cr_assert(tries->show, "II > MII: the tries are shown");
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

Test(variant, list_runs_on_the_same_unrolled_iterations)
{
  static const char *const sets[] = {"loop_iterations=4", NULL};
  const struct acs_sched_ops *list = acs_sched_find("list");
  struct acs_sched_ctx ctx = {1, 0, NULL};
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s, ls;
  struct acs_diag d;

  run_variant(LP("fir.csv"), sets, NULL, &s, &w, &g, &pb, ACS_OK);
  cr_assert(acs_sched_accepts(list, ACS_WL_LOOP));
  void *o = calloc(1, list->opts_size);
  cr_assert_eq(acs_sched_opts_defaults(list, o), ACS_OK);
  cr_assert_eq(acs_schedule_init_problem(&ls, &pb), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(list->schedule(&pb, o, &ctx, &ls, &d), ACS_OK, "%s", d.msg);
  tu_assert_verified(&ls);
  cr_assert_eq(ls.nops, s.nops);
  free(o);
  acs_schedule_destroy(&ls);
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  acs_workload_free(w);
}

/* ---- cross-check by enumeration on tiny random loops ---- */

/*
 * A random loop of 3 ops: a limited class (1 or 2 units, blocking 1 or 2,
 * latency 0..3) and an unlimited one (latency 0..2); 3 to 5 edges with
 * delay 0..1 and distance 0..2 (distance 0 only forward, so no zero
 * cycle). Deterministic for a seed.
 */
static void random_loop(struct acs_loop *l, uint64_t seed)
{
  struct acs_rng rng;

  acs_rng_seed(&rng, seed);
  loop_new(l);
  cr_assert_geq(acs_loop_add_class(l, "u", (int64_t)acs_rng_below(&rng, 4),
                                   1 + (int64_t)acs_rng_below(&rng, 2),
                                   1 + (int64_t)acs_rng_below(&rng, 2), 1), 0);
  cr_assert_geq(acs_loop_add_class(l, "f", (int64_t)acs_rng_below(&rng, 3), 1, -1, 2), 0);
  for (int i = 0; i < 3; i++) {
    char name[8];
    snprintf(name, sizeof(name), "o%d", i);
    /* At least two ops on the limited class. */
    cr_assert_geq(acs_loop_add_op(l, name, i < 2 ? 0 : (int32_t)acs_rng_below(&rng, 2), 3 + i), 0);
  }
  int ne = 3 + (int)acs_rng_below(&rng, 3);
  for (int k = 0; k < ne; k++) {
    int32_t a = (int32_t)acs_rng_below(&rng, 3), b = (int32_t)acs_rng_below(&rng, 3);
    int64_t dist = (int64_t)acs_rng_below(&rng, 3);
    if (a >= b && dist == 0)
      dist = 1;
    cr_assert_eq(acs_loop_add_edge(l, a, b, (int64_t)acs_rng_below(&rng, 2), dist, 9), ACS_OK);
  }
  cr_assert_eq(acs_loop_check(l, NULL), ACS_OK);
}

/*
 * Whether a schedule exists at II (within `stages` stages when > 0), by
 * enumerating every start in [0, bound) and every unit, the independent
 * checker deciding each candidate. The bound is safe (exact.c): if a
 * schedule exists, the least one with its residues and units starts every
 * op below II + sum over ops of (largest out-weight + II), here below
 * 4 II + 15.
 */
static int brute_feasible(const struct acs_msp *m, int64_t ii, int64_t stages)
{
  int64_t bound = stages > 0 ? stages * ii : 4 * ii + 15, t[3];
  int32_t u[3], nu[3];
  struct acs_diag d;

  for (int i = 0; i < 3; i++)
    nu[i] = m->units[m->cls[i]] == ACS_LOOP_UNLIMITED ? 1 : (int32_t)m->units[m->cls[i]];
  for (t[0] = 0; t[0] < bound; t[0]++)
    for (t[1] = 0; t[1] < bound; t[1]++)
      for (t[2] = 0; t[2] < bound; t[2]++)
        for (int32_t k = 0; k < nu[0] * nu[1] * nu[2]; k++) {
          u[0] = k % nu[0];
          u[1] = (k / nu[0]) % nu[1];
          u[2] = k / (nu[0] * nu[1]);
          for (int i = 0; i < 3; i++)
            if (m->units[m->cls[i]] == ACS_LOOP_UNLIMITED)
              u[i] = -1;
          acs_diag_init(&d);
          if (acs__modulo_check(m, ii, t, u, &d) == ACS_OK)
            return 1;
        }
  return 0;
}

Test(enumeration, exact_mode_finds_the_least_ii_and_heuristic_is_valid, .timeout = 120)
{
  int beyond_mii = 0;

  for (uint64_t seed = 1; seed <= 80; seed++) {
    int64_t cap = seed % 4 == 0 ? 2 : 0;
    struct acs_loop l;
    struct bound b;
    struct acs_mopts o;
    struct acs_mresult r;
    int64_t best = 0;

    random_loop(&l, seed);
    bind(&b, &l, NULL);
    b.m.max_stages = cap;
    for (int64_t ii = 1; ii <= 24 && !best; ii++)
      if (brute_feasible(&b.m, ii, cap))
        best = ii;
    cr_assert_gt(best, 0, "seed %llu: no schedule up to II 24", (unsigned long long)seed);
    defaults(&o);
    o.max_stages = cap;
    search_ok(&b.m, &o, &r);
    cr_assert_geq(r.ii, best, "seed %llu: heuristic II %lld below the least %lld",
                  (unsigned long long)seed, (long long)r.ii, (long long)best);
    cr_assert_leq(r.mii.mii, best, "seed %llu: MII %lld above the least II %lld",
                  (unsigned long long)seed, (long long)r.mii.mii, (long long)best);
    if (cap > 0)
      cr_assert_leq(r.stages, cap);
    acs__mresult_free(&r);
    o.exact = 1;
    search_ok(&b.m, &o, &r);
    cr_assert_eq(r.ii, best, "seed %llu: exact II %lld, enumeration %lld",
                 (unsigned long long)seed, (long long)r.ii, (long long)best);
    cr_assert_eq(r.proven, 1);
    beyond_mii += best > r.mii.mii;
    acs__mresult_free(&r);
    unbind(&b);
    acs_loop_destroy(&l);
  }
  /* The sample must exercise the integer program, not only II = MII. */
  cr_assert_gt(beyond_mii, 0, "no loop with MII unreachable in the sample");
}
