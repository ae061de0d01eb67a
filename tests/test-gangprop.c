/*
 * test-gangprop.c - the SDF family on random graphs nobody tuned for
 * (tests/sdfgen.c: random rates, CSDF phases, token sizes, execution
 * times, cycles and self-edges with the initial tokens that keep them live,
 * filters, pipeline classes, kernel sizes) on five platform variants.
 *
 * Properties, for every graph: each variant ends `ok` (its plan passed the
 * family's checker inside the variant, and the common verifier here) or
 * `infeasible` with a reason, never an error; no plan is shorter than its
 * transfers to and from DDR, which share one link; and gang, which takes the
 * shortest of its own search and the partitions the baselines imply, is
 * `ok` whenever a baseline is and plans no longer than any of them.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/ddrlink.h"
#include "tests/gang_util.h"
#include "tests/sdfgen.h"
#include "tests/testutil.h"

/* isp4 and four variations of it, one per seed modulo 5: two and three
 * DMA channels (the DDR link shared), two PEs, a small VMEM, a DDR only
 * four times slower than the local memories. */
static void platform_for(uint64_t seed, struct acs_platform *p)
{
  static const char *const sets[5][3] = {
    { NULL }, { "dma_channels=2", NULL }, { "pe_count=2", NULL },
    { "pe_vmem_kib=32", NULL }, { "dma_channels=3", "ddr_ratio=4", NULL },
  };

  platform_isp4(p, sets[seed % 5]);
}

/* Writes random graph `seed` and returns its path. */
static const char *graph_file(uint64_t seed)
{
  static char xml[65536];

  cr_assert_gt(sdfgen_xml(seed, 1500, xml, sizeof(xml)), 0, "seed %llu", (unsigned long long)seed);
  return tu_write_tmp("rnd.xml", xml);
}

static void check_graph(uint64_t seed, int *dynamic)
{
  struct acs_platform p;
  struct sdfgen_outcome o;
  int64_t best;

  platform_for(seed, &p);
  /* The generator makes consistent, live graphs: a load error is its bug. */
  cr_assert_eq(sdfgen_run(graph_file(seed), &p, &o), ACS_OK, "seed %llu: %s",
               (unsigned long long)seed, o.load.msg);
  for (int v = 0; v < SDFGEN_NVAR; v++) {
    cr_assert(o.err[v] == ACS_OK || o.err[v] == ACS_EINFEASIBLE, "seed %llu: %s: %s (%s)",
              (unsigned long long)seed, sdfgen_variants[v], acs_strerror(o.err[v]), o.msg[v]);
    if (o.err[v] == ACS_EINFEASIBLE)
      cr_assert(o.msg[v][0], "seed %llu: %s infeasible without a reason",
                (unsigned long long)seed, sdfgen_variants[v]);
    /* One DDR link carries every DDR transfer (and kernel load), a few at
     * once at most (acs_ddrlink_lanes): no plan is shorter than that. */
    if (o.err[v] == ACS_OK)
      cr_assert_geq(o.makespan[v] * acs_ddrlink_lanes(&p), o.ddr[v], "seed %llu: %s plans %lld "
                    "cycles, its DDR transfers take %lld", (unsigned long long)seed,
                    sdfgen_variants[v], (long long)o.makespan[v], (long long)o.ddr[v]);
  }
  best = sdfgen_best_baseline(&o);
  if (best < 0)
    return;
  cr_assert_eq(o.err[0], ACS_OK, "seed %llu: gang infeasible (%s), a baseline plans %lld",
               (unsigned long long)seed, o.msg[0], (long long)best);
  cr_assert_leq(o.makespan[0], best, "seed %llu: gang %lld, best baseline %lld",
                (unsigned long long)seed, (long long)o.makespan[0], (long long)best);
  *dynamic += strcmp(o.gang_mode, "dynamic") == 0;
}

Test(property, random_graphs_never_error_and_gang_never_behind, .timeout = 1800)
{
  int dynamic = 0;

  for (uint64_t seed = 1; seed <= 300; seed++)
    check_graph(seed, &dynamic);
  /* gang's own search must carry most graphs, not the dynamic gang. */
  cr_assert_lt(dynamic, 150, "the dynamic gang won %d of 300 graphs", dynamic);
}

Test(property, generator_is_deterministic_and_varied)
{
  static char a[65536], b[65536];
  int csdf = 0, cycles = 0, filters = 0;

  for (uint64_t seed = 1; seed <= 100; seed++) {
    int n = sdfgen_xml(seed, 1500, a, sizeof(a));
    cr_assert_eq(sdfgen_xml(seed, 1500, b, sizeof(b)), n);
    cr_assert_eq(memcmp(a, b, (size_t)n), 0, "seed %llu", (unsigned long long)seed);
    csdf += strstr(a, "<csdf ") != NULL;
    cycles += strstr(a, "initialTokens") != NULL;
    filters += strstr(a, "absorb=") != NULL;
  }
  /* Each feature shows up in a fair share of the graphs. */
  cr_assert_gt(csdf, 15);
  cr_assert_gt(cycles, 30);
  cr_assert_gt(filters, 10);
}
