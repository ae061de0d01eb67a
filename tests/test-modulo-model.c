/*
 * test-modulo-model.c - loop workloads (seed 001): the readers (HatScheT
 * GraphML with its resource model, CSV) and their located errors, the
 * unrolled DAG, platform unit counts, the modulo reservation table, MII by
 * hand and by brute force (resource and recurrence bounds).
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

#include "tests/modulo_util.h"

/* ---- readers ---- */

Test(loop_load, graphml_with_resource_model)
{
  struct acs_workload *w = loop_load_ok(LP("tiny.graphml"));
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
  struct acs_workload *w = loop_load_ok(LP("fir_gen.graphml"));
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
  struct acs_workload *w = loop_load_ok(LP("fir.csv"));
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
  struct acs_workload *w = loop_load_ok(LP("tiny.graphml"));
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
  struct acs_workload *w = loop_load_ok(LP("tiny.graphml"));
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
  loop_bind(&b, &l, NULL);
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
  loop_unbind(&b);
  acs_loop_destroy(&l);
}

Test(mii, recurrence_bound_of_shipped_loops_matches_brute_force)
{
  static const char *const files[] = {LP("iir_biqu.graphml"), LP("graph18.graphml"),
                                      LP("fir_gen.graphml"), LP("tiny.graphml")};
  for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
    struct acs_workload *w = loop_load_ok(files[k]);
    struct bound b;
    struct acs_mii mii;
    loop_bind(&b, w->model, NULL);
    cr_assert_eq(acs__msp_mii(&b.m, &mii, NULL), ACS_OK);
    cr_assert_eq(mii.rec, brute_rec(w->model), "%s", files[k]);
    loop_unbind(&b);
    acs_workload_free(w);
  }
}

