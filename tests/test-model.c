/*
 * test-model.c - graph, platform, problem binding and lower bounds.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/problem.h"
#include "core/suggest.h"
#include "tests/testutil.h"

static int position(const struct acs_graph *g, int32_t op)
{
  for (int32_t k = 0; k < g->nops; k++)
    if (g->topo[k] == op)
      return k;
  return -1;
}

Test(graph, topological_order_respects_every_edge)
{
  struct acs_graph g;

  tu_random_dag(&g, 7, 500, 10);
  for (int32_t e = 0; e < g.nedges; e++)
    cr_assert_lt(position(&g, g.edges[e].src), position(&g, g.edges[e].dst));
  acs_graph_destroy(&g);
}

Test(graph, topological_order_is_kahn_fifo_by_id)
{
  struct acs_graph g;
  int32_t a, b, c, d;

  /* d -> a, c -> b: sources in id order are c, d; then b (from c), a (from d). */
  tu_graph_npu(&g, "t");
  a = tu_op(&g, "a", ACS_OP_DPU, 1);
  b = tu_op(&g, "b", ACS_OP_DPU, 1);
  c = tu_op(&g, "c", ACS_OP_DPU, 1);
  d = tu_op(&g, "d", ACS_OP_DPU, 1);
  tu_edge(&g, d, a);
  tu_edge(&g, c, b);
  tu_finalize(&g);
  cr_assert_eq(g.topo[0], c);
  cr_assert_eq(g.topo[1], d);
  cr_assert_eq(g.topo[2], b);
  cr_assert_eq(g.topo[3], a);
  acs_graph_destroy(&g);
}

Test(graph, cycle_names_its_ops)
{
  struct acs_graph g;
  struct acs_diag d;
  int32_t a, b, c, x;

  tu_graph_npu(&g, "t");
  x = tu_op(&g, "x", ACS_OP_DPU, 1);
  a = tu_op(&g, "a", ACS_OP_DPU, 1);
  b = tu_op(&g, "b", ACS_OP_DPU, 1);
  c = tu_op(&g, "c", ACS_OP_DPU, 1);
  tu_edge(&g, x, a);
  tu_edge(&g, a, b);
  tu_edge(&g, b, c);
  tu_edge(&g, c, a);
  acs_diag_init(&d);
  cr_assert_eq(acs_graph_finalize(&g, &d), ACS_ECYCLE);
  /* The walk starts at the first unordered op (a) and follows predecessors. */
  cr_assert_str_eq(d.msg, "cycle: a -> b -> c -> a", "got %s", d.msg);
  acs_graph_destroy(&g);
}

Test(graph, self_loop_is_a_cycle)
{
  struct acs_graph g;
  struct acs_diag d;
  int32_t a;

  tu_graph_npu(&g, "t");
  a = tu_op(&g, "a", ACS_OP_DPU, 1);
  tu_edge(&g, a, a);
  acs_diag_init(&d);
  cr_assert_eq(acs_graph_finalize(&g, &d), ACS_ECYCLE);
  cr_assert_str_eq(d.msg, "cycle: a -> a");
  acs_graph_destroy(&g);
}

Test(graph, duplicate_names_are_rejected)
{
  struct acs_graph g;
  struct acs_diag d;

  tu_graph_npu(&g, "t");
  tu_op(&g, "a", ACS_OP_DPU, 1);
  tu_op(&g, "b", ACS_OP_DPU, 1);
  tu_op(&g, "a", ACS_OP_DPU, 1);
  acs_diag_init(&d);
  cr_assert_eq(acs_graph_finalize(&g, &d), ACS_EPARSE);
  cr_assert_str_eq(d.msg, "duplicate op name 'a'");
  acs_graph_destroy(&g);
}

Test(graph, find_op_survives_index_growth)
{
  struct acs_graph g;
  char name[32];

  tu_graph_npu(&g, "t");
  for (int i = 0; i < 5000; i++) {
    snprintf(name, sizeof(name), "op%d", i);
    tu_op(&g, name, ACS_OP_DPU, 1);
  }
  for (int i = 0; i < 5000; i += 37) {
    snprintf(name, sizeof(name), "op%d", i);
    cr_assert_eq(acs_graph_find_op(&g, name), i);
  }
  cr_assert_eq(acs_graph_find_op(&g, "op5000"), -1);
  acs_graph_destroy(&g);
}

Test(graph, resources_only_before_ops)
{
  struct acs_graph g;

  tu_graph_npu(&g, "t");
  tu_op(&g, "a", ACS_OP_DPU, 1);
  cr_assert_eq(acs_graph_add_resource(&g, "R1", ACS_RES_NAMED, 4), ACS_EINVAL);
  acs_graph_destroy(&g);
}

Test(graph, clone_is_deep_and_equal)
{
  struct acs_graph g, c;

  tu_random_dag(&g, 3, 200, 50);
  cr_assert_eq(acs_graph_clone(&g, &c), ACS_OK);
  cr_assert_eq(c.nops, g.nops);
  cr_assert_eq(c.nedges, g.nedges);
  cr_assert(c.finalized);
  for (int32_t i = 0; i < g.nops; i++) {
    cr_assert_str_eq(c.ops[i].name, g.ops[i].name);
    cr_assert_neq(c.ops[i].name, g.ops[i].name);
    cr_assert_eq(c.topo[i], g.topo[i]);
    for (int r = 0; r < g.nres; r++)
      cr_assert_eq(acs_graph_demand(&c, i, r), acs_graph_demand(&g, i, r));
  }
  acs_graph_destroy(&g);
  acs_graph_destroy(&c);
}

/* ---- platform ---- */

/* acs_sort_i64 and acs_sort_i32 against qsort, at the boundaries of their
 * insertion sort (16) and on inputs of few distinct values (their
 * three-way partitions), sorted, reversed and extreme values; the 32-bit
 * inputs are the 64-bit ones cut to 32 bits (kind 4: INT32_MIN, MAX). */
Test(util, sort_agrees_with_qsort_at_both_widths)
{
  static const size_t sizes[] = {0, 1, 2, 15, 16, 17, 18, 33, 100, 1000, 4097};
  uint64_t x = 88172645463325252u;

  for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
    for (int kind = 0; kind < 6; kind++) {
      size_t n = sizes[si];
      int64_t *a = malloc((n + 1) * sizeof(int64_t)), *b = malloc((n + 1) * sizeof(int64_t));
      int32_t *c = malloc((n + 1) * sizeof(int32_t)), *e = malloc((n + 1) * sizeof(int32_t));
      cr_assert(a && b && c && e);
      for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        a[i] = kind == 0 ? (int64_t)x : kind == 1 ? (int64_t)(x % 3) - 1
             : kind == 2 ? (int64_t)i : kind == 3 ? -(int64_t)i
             : kind == 4 ? ((x & 1) ? INT64_MAX : INT64_MIN)
             : (int64_t)(i < n / 2 ? i : n - i); /* organ pipe: defeats the median of
                                                  * three, so the qsort fallback runs */
        c[i] = kind == 4 ? ((x & 1) ? INT32_MAX : INT32_MIN) : (int32_t)(uint32_t)a[i];
      }
      memcpy(b, a, n * sizeof(int64_t));
      memcpy(e, c, n * sizeof(int32_t));
      acs_sort_i64(a, n);
      acs_sort_i32(c, n);
      if (n) {
        qsort(b, n, sizeof(int64_t), acs_cmp_i64);
        qsort(e, n, sizeof(int32_t), acs_cmp_i32);
      }
      for (size_t i = 0; i < n; i++) {
        cr_assert_eq(a[i], b[i], "i64: n %zu kind %d at %zu", n, kind, i);
        cr_assert_eq(c[i], e[i], "i32: n %zu kind %d at %zu", n, kind, i);
      }
      free(a), free(b), free(c), free(e);
    }
}

Test(platform, defaults_and_derived_values)
{
  struct acs_platform p;
  double ddr, bpc;

  acs_platform_init(&p);
  /* Defaults: 32 GB/s DMA, ratio 4 -> 8 GB/s DDR; at 700 MHz that is
   * 8e9 / 7e8 = 11.428... bytes per cycle. */
  ddr = acs_platform_ddr_gbps(&p);
  cr_assert_float_eq(ddr, 8.0, 1e-12);
  bpc = acs_platform_ddr_bytes_per_cycle(&p);
  cr_assert_float_eq(bpc, 8e9 / 7e8, 1e-9);
  cr_assert_eq(acs_platform_cmx_bytes(&p), 2048 * 1024);
  /* 1 MiB over DDR: 100 latency + ceil(1048576 * 0.0875) = 100 + ceil(91750.4). */
  cr_assert_eq(acs_platform_ddr_cycles(&p, 1048576), 100 + 91751);
  cr_assert_eq(acs_platform_ddr_cycles(&p, 0), 0);
  /* CMX to CMX at 32 GB/s = 45.714 B/cycle: 1000 bytes take ceil(21.875) = 22. */
  cr_assert_eq(acs_platform_cmx_cycles(&p, 1000), 22);
}

Test(suggest, names_the_closest_candidate_within_the_length_limit)
{
  const char *const names[] = {"sequential", "list", "spill", "naive-list", "cmx_kib",
                               "cmx_align_bytes", NULL, "pe_count"};
  const size_t n = sizeof(names) / sizeof(names[0]);

  /* One edit for short words, two up to 8 characters, three beyond. */
  cr_assert_str_eq(acs_suggest("spil", names, n), "spill");
  cr_assert_str_eq(acs_suggest("lsit", names, n), "list", "a transposition is one edit");
  cr_assert_null(acs_suggest("lxyt", names, n), "two edits on a 4-letter word is too far");
  cr_assert_str_eq(acs_suggest("pe_cont", names, n), "pe_count");
  cr_assert_str_eq(acs_suggest("sequentail", names, n), "sequential");
  cr_assert_str_eq(acs_suggest("NAIVE_LIST", names, n), "naive-list", "case and -/_ fold");
  /* A unique prefix of 3 or more characters; an ambiguous one is no answer. */
  cr_assert_str_eq(acs_suggest("seq", names, n), "sequential");
  cr_assert_null(acs_suggest("cmx", names, n), "cmx starts two names");
  cr_assert_null(acs_suggest("zz", names, n));
  cr_assert_null(acs_suggest("", names, n));
}

Test(suggest, ties_go_to_the_first_candidate_and_the_clause_reads_as_text)
{
  const char *const names[] = {"abcd", "abce"};
  char buf[64];

  cr_assert_str_eq(acs_suggest("abcx", names, 2), "abcd");
  cr_assert_str_eq(acs_suggest_clause("abcx", names, 2, buf, sizeof(buf)), "; did you mean abcd?");
  cr_assert_str_eq(acs_suggest_clause("qqqqqq", names, 2, buf, sizeof(buf)), "");
}

Test(platform, set_kv_validates)
{
  struct acs_platform p;
  struct acs_diag d;

  acs_platform_init(&p);
  acs_diag_init(&d);
  cr_assert_eq(acs_platform_set_kv(&p, "pe_count=8", &d), ACS_OK);
  cr_assert_eq((int)p.v[ACS_P_PE_COUNT], 8);
  cr_assert_eq(acs_platform_set_kv(&p, "pe_count=2.5", &d), ACS_EPARSE);
  cr_assert_str_eq(d.msg, "--set pe_count=2.5: '2.5' is not an integer");
  cr_assert_str_eq(d.file, "", "the message names the option itself");
  cr_assert_eq(acs_platform_set_kv(&p, "pe_count=0", &d), ACS_ERANGE);
  cr_assert_eq(acs_platform_set_kv(&p, "dma_gbps=fast", &d), ACS_EPARSE);
  cr_assert_str_eq(d.msg, "--set dma_gbps=fast: 'fast' is not a number");
  cr_assert_eq(acs_platform_set_kv(&p, "cmx_mib=4", &d), ACS_EPARSE);
  cr_assert_str_eq(d.msg, "--set cmx_mib=4: unknown parameter 'cmx_mib'; did you mean cmx_kib? "
                          "(see `acsim platform --help`)");
  cr_assert_eq(acs_platform_set_kv(&p, "frobs=4", &d), ACS_EPARSE);
  cr_assert_str_eq(d.msg, "--set frobs=4: unknown parameter 'frobs' (see `acsim platform --help`)");
  cr_assert_eq(acs_platform_set_kv(&p, "novalue", &d), ACS_EPARSE);
  cr_assert_eq(acs_platform_set_kv(&p, "name=x", &d), ACS_EINVAL);
  cr_assert_eq(acs_platform_set_kv(&p, "dma_gbps=inf", &d), ACS_ERANGE);
  cr_assert_str_eq(d.msg, "--set dma_gbps=inf: 'inf' is out of range (max 1e+08)");
  cr_assert_eq(acs_platform_set_kv(&p, "barriers=0", &d), ACS_OK);
  cr_assert_eq((int)p.v[ACS_P_PE_COUNT], 8, "failed sets leave the value alone");
}

Test(platform, validate_rejects_alignment_beyond_cmx)
{
  struct acs_platform p;
  struct acs_diag d;

  acs_platform_init(&p);
  acs_diag_init(&d);
  p.v[ACS_P_CMX_KIB] = 1;
  p.v[ACS_P_CMX_ALIGN_BYTES] = 2048;
  cr_assert_eq(acs_platform_validate(&p, &d), ACS_ERANGE);
}

/*
 * The documented bounds (README, "Platform descriptions"), written out here
 * rather than read from ACS_PARAM_MAP so that changing one is a decision:
 * each parameter takes its minimum and maximum, and refuses the next value
 * beyond either with ACS_ERANGE and a message naming the bound.
 */
static const struct {
  const char *name, *min, *max, *below, *above;
} documented[] = {
  { "freq_mhz", "0.001", "10000", "0.0009", "10000.5" },
  { "pe_count", "1", "1048576", "0", "1048577" },
  { "pe_macs_per_cycle", "1", "1048576", "0", "1048577" },
  { "cmx_kib", "1", "67108864", "0", "67108865" },
  { "cmx_align_bytes", "1", "1048576", "0", "1048577" },
  { "barriers", "0", "65536", "-1", "65537" },
  { "barrier_slots", "0", "65536", "-1", "65537" },
  { "dma_channels", "1", "1048576", "0", "1048577" },
  { "dma_gbps", "1e-06", "1e+08", "9e-7", "100000001" },
  { "ddr_ratio", "1e-06", "1e+06", "9e-7", "1000001" },
  { "ddr_latency_cycles", "0", "1000000", "-1", "1000001" },
  { "local_gbps", "1e-06", "1e+08", "9e-7", "100000001" },
  { "bytes_per_elem", "1", "16", "0", "17" },
  { "pe_vmem_kib", "0", "67108864", "-1", "67108865" },
  { "pe_pmem_kib", "0", "67108864", "-1", "67108865" },
  { "loop_iterations", "1", "100000", "0", "100001" },
};

Test(platform, every_parameter_takes_its_bounds_and_refuses_beyond)
{
  cr_assert_eq(sizeof(documented) / sizeof(documented[0]), ACS_PARAM_COUNT,
               "a parameter without a documented bound");
  for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++) {
    struct acs_platform p;
    struct acs_diag d;
    char kv[128], want[256];
    int k = acs_param_find(documented[i].name);

    cr_assert_geq(k, 0, "%s", documented[i].name);
    acs_platform_init(&p);
    acs_diag_init(&d);
    snprintf(kv, sizeof(kv), "%s=%s", documented[i].name, documented[i].min);
    cr_assert_eq(acs_platform_set_kv(&p, kv, &d), ACS_OK, "%s: %s", kv, d.msg);
    cr_assert_eq(p.v[k], strtod(documented[i].min, NULL), "%s", kv);
    snprintf(kv, sizeof(kv), "%s=%s", documented[i].name, documented[i].max);
    cr_assert_eq(acs_platform_set_kv(&p, kv, &d), ACS_OK, "%s: %s", kv, d.msg);
    cr_assert_eq(p.v[k], strtod(documented[i].max, NULL), "%s", kv);
    /* (cmx_align_bytes at its maximum needs a CMX of at least 1 MiB.) */
    if (k == ACS_P_CMX_ALIGN_BYTES)
      p.v[ACS_P_CMX_KIB] = 1024;
    cr_assert_eq(acs_platform_validate(&p, &d), ACS_OK, "%s: %s", kv, d.msg);

    snprintf(kv, sizeof(kv), "%s=%s", documented[i].name, documented[i].above);
    cr_assert_eq(acs_platform_set_kv(&p, kv, &d), ACS_ERANGE, "%s", kv);
    snprintf(want, sizeof(want), "--set %s: '%s' is out of range (max %s)", kv,
             documented[i].above, documented[i].max);
    cr_assert_str_eq(d.msg, want);
    snprintf(kv, sizeof(kv), "%s=%s", documented[i].name, documented[i].below);
    cr_assert_eq(acs_platform_set_kv(&p, kv, &d), ACS_ERANGE, "%s", kv);
    snprintf(want, sizeof(want), "--set %s: %s is below the minimum %s (", kv,
             documented[i].below, documented[i].min);
    cr_assert_eq(strncmp(d.msg, want, strlen(want)), 0, "%s", d.msg);
    cr_assert_eq(p.v[k], strtod(documented[i].max, NULL), "refused values change nothing");
  }
}

/* The inputs of issue 10: each used to be accepted (rounded, wrapped or
 * made infinite) and overflow later. */
Test(platform, absurd_values_are_out_of_range_never_rounded)
{
  static const char *const cases[][2] = {
    { "cmx_kib=9007199254740993", "--set cmx_kib=9007199254740993: '9007199254740993' is out of range (max 67108864)" },
    { "pe_count=2147483648", "--set pe_count=2147483648: '2147483648' is out of range (max 1048576)" },
    { "pe_count=100000000", "--set pe_count=100000000: '100000000' is out of range (max 1048576)" },
    { "pe_count=99999999999999999999", "--set pe_count=99999999999999999999: '99999999999999999999' is out of range (max 1048576)" },
    { "freq_mhz=1e308", "--set freq_mhz=1e308: '1e308' is out of range (max 10000)" },
    { "freq_mhz=1e999", "--set freq_mhz=1e999: '1e999' is out of range (max 10000)" },
    { "dma_gbps=inf", "--set dma_gbps=inf: 'inf' is out of range (max 1e+08)" },
    { "barriers=-99999999999999999999", "--set barriers=-99999999999999999999: -99999999999999999999 is below the minimum 0 (hardware barriers; 0 means no limit)" },
    { "freq_mhz=-0", "--set freq_mhz=-0: -0 is below the minimum 0.001 (clock frequency; cycles are of this clock)" },
  };
  struct acs_platform p;
  struct acs_diag d;

  acs_platform_init(&p);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    acs_diag_init(&d);
    cr_assert_eq(acs_platform_set_kv(&p, cases[i][0], &d), ACS_ERANGE, "%s", cases[i][0]);
    cr_assert_str_eq(d.msg, cases[i][1]);
  }
  /* Integers are integers: "1e3" and "4.0" are numbers but not integers. */
  acs_diag_init(&d);
  cr_assert_eq(acs_platform_set_kv(&p, "pe_count=1e3", &d), ACS_EPARSE);
  cr_assert_str_eq(d.msg, "--set pe_count=1e3: '1e3' is not an integer");
  cr_assert_eq(acs_platform_set_kv(&p, "pe_count=4.0", &d), ACS_EPARSE);
  cr_assert_eq(acs_platform_set_kv(&p, "pe_count=0x10", &d), ACS_EPARSE);
  cr_assert_str_eq(d.msg, "--set pe_count=0x10: '0x10' is not an integer");
  /* Located errors keep the parameter's name first (the CSV form). */
  cr_assert_eq(acs_platform_set(&p, ACS_P_PE_COUNT, "1048577", &d, "p.csv", 3, 7), ACS_ERANGE);
  cr_assert_str_eq(d.msg, "pe_count: '1048577' is out of range (max 1048576)");
  cr_assert_str_eq(d.file, "p.csv");
  cr_assert_eq(d.line, 3);
  cr_assert_eq(d.col, 7);
  for (int k = 0; k < ACS_PARAM_COUNT; k++)
    cr_assert_eq(p.v[k], acs_param_table[k].def, "%s changed", acs_param_table[k].name);
}

Test(platform, validate_refuses_values_beyond_the_bounds)
{
  struct acs_platform p;
  struct acs_diag d;

  acs_platform_init(&p);
  acs_diag_init(&d);
  p.v[ACS_P_PE_COUNT] = 2147483648.0; /* set directly, not parsed */
  cr_assert_eq(acs_platform_validate(&p, &d), ACS_ERANGE);
  cr_assert_str_eq(d.msg, "platform 'default': pe_count = 2147483648 is invalid "
                          "(from 1 to 1048576, integer)");
  acs_platform_init(&p);
  p.v[ACS_P_FREQ_MHZ] = HUGE_VAL;
  cr_assert_eq(acs_platform_validate(&p, &d), ACS_ERANGE);
}

/*
 * Transfer cycles at the top of the range, by hand: at 1000 MHz and 1 GB/s
 * (DDR ratio 1) a cycle moves exactly one byte, so 2^53 bytes take 2^53
 * cycles on the DMA engine, and a DDR transfer adds the 100-cycle latency:
 * 2^53 - 100 bytes are the most that fit in 2^53 cycles.
 */
Test(platform, transfer_cycles_stop_at_two_to_the_53)
{
  const char *sets[] = {"freq_mhz=1000", "dma_gbps=1", "ddr_ratio=1", NULL};
  struct acs_platform p;
  struct acs_diag d;
  const int64_t top = (int64_t)1 << 53;

  acs_platform_init(&p);
  acs_diag_init(&d);
  for (int i = 0; sets[i]; i++)
    cr_assert_eq(acs_platform_set_kv(&p, sets[i], &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(acs_platform_cmx_cycles(&p, top), top);
  cr_assert_eq(acs_platform_cmx_cycles(&p, top - 1), top - 1);
  cr_assert_eq(acs_platform_ddr_cycles(&p, top - 100), top);
  cr_assert_eq(acs_platform_ddr_cycles(&p, top - 99), -1);
  cr_assert_eq(acs_platform_ddr_cycles(&p, INT64_MAX), -1);
  /* The slowest link at the fastest clock: 1e-7 bytes per cycle. */
  p.v[ACS_P_FREQ_MHZ] = 10000;
  p.v[ACS_P_DMA_GBPS] = 1e-6;
  cr_assert_eq(acs_platform_cmx_cycles(&p, 900719925), 9007199250000000LL);
  cr_assert_eq(acs_platform_cmx_cycles(&p, 900719926), -1);
  cr_assert_eq(acs_platform_cmx_bytes(&p), 2048 * 1024);
  p.v[ACS_P_CMX_KIB] = 67108864; /* the maximum: 64 GiB, no overflow */
  cr_assert_eq(acs_platform_cmx_bytes(&p), (int64_t)1 << 36);
}

/* ---- problem ---- */

Test(problem, durations_from_macs_and_bytes)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_op op;
  int32_t c, x, y;
  const char *sets[] = {"pe_macs_per_cycle=100", NULL};

  tu_graph_npu(&g, "t");
  memset(&op, 0, sizeof(op));
  op.name = "conv";
  op.kind = ACS_OP_DPU;
  op.cycles = -1;
  op.macs = 1001; /* ceil(1001 / 100) = 11 */
  c = acs_graph_add_op(&g, &op);
  op.name = "load";
  op.kind = ACS_OP_DMA;
  op.src = ACS_MEM_DDR;
  op.dst = ACS_MEM_CMX;
  op.bytes = 1048576;
  x = acs_graph_add_op(&g, &op);
  op.name = "copy";
  op.src = ACS_MEM_CMX;
  op.bytes = 1000;
  y = acs_graph_add_op(&g, &op);
  tu_finalize(&g);
  tu_problem(&pb, &g, sets);
  cr_assert_eq(pb.dur[c], 11);
  cr_assert_eq(pb.dur[x], 100 + 91751);
  cr_assert_eq(pb.dur[y], 22);
  cr_assert_eq(pb.cap[TU_PE], 4);
  cr_assert_eq(pb.cap[TU_DMA], 2);
  cr_assert_eq(pb.cap[TU_CMX], 2048 * 1024);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(problem, bounds_by_hand)
{
  struct acs_graph g;
  struct acs_problem pb;
  int32_t ops[6];
  const char *sets[] = {"pe_count=2", NULL};

  /* Six independent 10-cycle dpu ops plus a chain a->b->c of 10 each among
   * them: critical path 30; PE work 60 over 2 PEs = 30. Add a seventh op of
   * 5 cycles: work 65 -> ceil(32.5) = 33 > 30. */
  tu_graph_npu(&g, "t");
  for (int i = 0; i < 6; i++) {
    char name[8];
    snprintf(name, sizeof(name), "o%d", i);
    ops[i] = tu_op(&g, name, ACS_OP_DPU, 10);
  }
  tu_op(&g, "o6", ACS_OP_DPU, 5);
  tu_edge(&g, ops[0], ops[1]);
  tu_edge(&g, ops[1], ops[2]);
  tu_finalize(&g);
  tu_problem(&pb, &g, sets);
  cr_assert_eq(acs_bound_critical_path(&pb), 30);
  cr_assert_eq(acs_bound_resources(&pb), 33);
  cr_assert_eq(acs_bound_best(&pb), 33);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

Test(problem, demand_beyond_capacity_is_infeasible)
{
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_diag d;
  int32_t a;
  const char *sets[] = {"cmx_kib=1", "cmx_align_bytes=1", NULL};

  tu_graph_npu(&g, "net");
  a = tu_op(&g, "big", ACS_OP_DPU, 10);
  acs_graph_set_demand(&g, a, TU_CMX, 2048);
  tu_finalize(&g);
  tu_problem(&pb, &g, sets);
  acs_diag_init(&d);
  cr_assert_eq(acs_problem_check_demands(&pb, &d), ACS_EINFEASIBLE);
  cr_assert_str_eq(d.msg, "op 'big' needs 2048 of resource 'cmx' but the platform has 1024");
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* An op demanding far more CMX than there is, for long: the work over the
 * capacity passes 2^63 (converting it to int64 was undefined behavior); a
 * problem no schedule solves gets the largest bound a quantity may have. */
Test(problem, resource_bound_of_an_infeasible_demand_is_capped)
{
  struct acs_graph g;
  struct acs_problem pb;
  int32_t a;
  const char *sets[] = {"cmx_kib=1", "cmx_align_bytes=1", NULL};

  tu_graph_npu(&g, "net");
  a = tu_op(&g, "huge", ACS_OP_DPU, (int64_t)1 << 40);
  acs_graph_set_demand(&g, a, TU_CMX, (int64_t)1 << 40);
  tu_finalize(&g);
  tu_problem(&pb, &g, sets);
  cr_assert_eq(acs_bound_resources(&pb), ACS_QTY_MAX);
  cr_assert_eq(acs_bound_best(&pb), ACS_QTY_MAX);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
}

/* Binds g to the default platform with overrides; returns the code and
 * leaves the message in d. */
static int bind(const struct acs_graph *g, const char *const *sets, struct acs_diag *d)
{
  struct acs_platform p;
  struct acs_problem pb;
  int err;

  acs_platform_init(&p);
  acs_diag_init(d);
  for (size_t i = 0; sets && sets[i]; i++)
    cr_assert_eq(acs_platform_set_kv(&p, sets[i], d), ACS_OK, "%s", d->msg);
  err = acs_problem_init(&pb, g, &p, d);
  if (err == ACS_OK)
    acs_problem_destroy(&pb);
  return err;
}

/*
 * Every duration and their sum stay at most 2^53 cycles: at one MAC per
 * cycle an op of 2^53 MACs is the longest there is, alone; a second op of
 * one MAC more than nothing makes the total too long, and the error names
 * it and its line.
 */
Test(problem, durations_and_their_sum_stop_at_two_to_the_53)
{
  const char *one_mac[] = {"pe_macs_per_cycle=1", NULL};
  struct acs_graph g;
  struct acs_diag d;
  struct acs_op op;
  int32_t a, b;

  tu_graph_npu(&g, "t");
  memset(&op, 0, sizeof(op));
  op.name = "a";
  op.kind = ACS_OP_DPU;
  op.cycles = -1;
  op.macs = (int64_t)1 << 53;
  op.line = 7;
  a = acs_graph_add_op(&g, &op);
  op.name = "b";
  op.macs = 0;
  op.line = 8;
  b = acs_graph_add_op(&g, &op);
  tu_edge(&g, a, b);
  tu_finalize(&g);
  cr_assert_eq(bind(&g, one_mac, &d), ACS_OK, "%s", d.msg);
  g.ops[b].macs = 1;
  cr_assert_eq(bind(&g, one_mac, &d), ACS_ERANGE);
  cr_assert_str_eq(d.msg, "the ops up to 'b' already take more than 9007199254740992 cycles in "
                          "all on platform 'default'");
  cr_assert_eq(d.line, 8);
  /* Two MACs per cycle halve the first op: fine again. */
  cr_assert_eq(bind(&g, NULL, &d), ACS_OK, "%s", d.msg);
  g.ops[a].macs = ((int64_t)1 << 53) + 1;
  cr_assert_eq(bind(&g, NULL, &d), ACS_ERANGE);
  cr_assert_str_eq(d.msg, "op 'a': macs is out of range (0 to 9007199254740992)");
  cr_assert_eq(d.line, 7);
  g.ops[a].macs = 0;
  g.ops[a].cycles = INT64_MAX;
  cr_assert_eq(bind(&g, NULL, &d), ACS_ERANGE);
  cr_assert_str_eq(d.msg, "op 'a' would take more than 9007199254740992 cycles on platform "
                          "'default'");
  acs_graph_destroy(&g);
}

/* A transfer is as long as its bytes over the link: the same op is fine on
 * a fast link and too long (a located error, not an overflow) on the
 * slowest link at the fastest clock. */
Test(problem, transfers_too_long_for_the_platform_are_located)
{
  const char *slow[] = {"freq_mhz=10000", "dma_gbps=1e-6", "ddr_ratio=1e6", NULL};
  struct acs_graph g;
  struct acs_diag d;
  struct acs_op op;

  tu_graph_npu(&g, "t");
  memset(&op, 0, sizeof(op));
  op.name = "load";
  op.kind = ACS_OP_DMA;
  op.src = ACS_MEM_DDR;
  op.dst = ACS_MEM_CMX;
  op.cycles = -1;
  op.bytes = (int64_t)1 << 40;
  op.line = 3;
  acs_graph_add_op(&g, &op);
  tu_finalize(&g);
  cr_assert_eq(bind(&g, NULL, &d), ACS_OK, "%s", d.msg);
  cr_assert_eq(bind(&g, slow, &d), ACS_ERANGE);
  cr_assert_str_eq(d.msg, "op 'load' would take more than 9007199254740992 cycles on "
                          "platform 'default'");
  cr_assert_eq(d.line, 3);
  /* A demand above 2^53 (a graph built in code) is refused too. */
  acs_graph_set_demand(&g, 0, TU_CMX, ((int64_t)1 << 53) + 1);
  cr_assert_eq(bind(&g, NULL, &d), ACS_ERANGE);
  cr_assert_str_eq(d.msg, "op 'load': cmx is out of range (0 to 9007199254740992)");
  acs_graph_destroy(&g);
}

Test(util, rng_is_deterministic_and_bounded)
{
  struct acs_rng a, b;

  acs_rng_seed(&a, 42);
  acs_rng_seed(&b, 42);
  for (int i = 0; i < 1000; i++) {
    uint64_t x = acs_rng_below(&a, 7);
    cr_assert_eq(x, acs_rng_below(&b, 7));
    cr_assert_lt(x, 7);
  }
}

Test(util, diag_format_omits_unknown_parts)
{
  struct acs_diag d;
  char buf[256];

  acs_diag_init(&d);
  acs_diag_set(&d, ACS_EPARSE, "p.csv", 3, 7, "bad");
  acs_diag_format(&d, buf, sizeof(buf));
  cr_assert_str_eq(buf, "p.csv:3:7: bad");
  acs_diag_set(&d, ACS_EPARSE, "p.csv", 0, 0, "bad");
  acs_diag_format(&d, buf, sizeof(buf));
  cr_assert_str_eq(buf, "p.csv: bad");
  cr_assert_str_eq(acs_strerror(ACS_ECYCLE), "graph has a cycle");
  cr_assert_str_eq(acs_err_name(ACS_EVERIFY), "EVERIFY");
}

/* ---- family result tables (core/model/rtab.h) ---- */

Test(rtab, names_follow_the_dataset_rule)
{
  char longest[ACS_RTAB_NAME_MAX + 2];

  memset(longest, 'a', sizeof(longest));
  longest[ACS_RTAB_NAME_MAX] = '\0';
  cr_assert(acs_rtab_name_ok(longest));
  longest[ACS_RTAB_NAME_MAX] = 'a';
  longest[ACS_RTAB_NAME_MAX + 1] = '\0';
  cr_assert(!acs_rtab_name_ok(longest));
  cr_assert(acs_rtab_name_ok("ii_2"));
  cr_assert(!acs_rtab_name_ok(""));
  cr_assert(!acs_rtab_name_ok(NULL));
  cr_assert(!acs_rtab_name_ok("a b"));
  cr_assert(!acs_rtab_name_ok("a/b"));
  cr_assert(!acs_rtab_name_ok("\xc3\xa9"));
}

Test(rtab, bad_tables_and_columns_are_refused)
{
  static const struct acs_rtab_col one[] = {{"x", ACS_RTAB_I64, NULL}};
  static const struct acs_rtab_col dup[] = {{"x", ACS_RTAB_I64, NULL}, {"x", ACS_RTAB_F64, NULL}};
  static const struct acs_rtab_col badtype[] = {{"x", 7, NULL}};
  struct acs_rtab_col many[ACS_RTAB_MAX_COLS + 1];
  char names[ACS_RTAB_MAX_COLS + 1][8];
  struct acs_schedule s;
  struct acs_rtab *t;

  acs_schedule_init(&s);
  for (int c = 0; c <= ACS_RTAB_MAX_COLS; c++) {
    snprintf(names[c], sizeof(names[c]), "c%d", c);
    many[c] = (struct acs_rtab_col){names[c], ACS_RTAB_F64, NULL};
  }
  cr_assert_eq(acs_schedule_add_rtab(&s, "ops", one, 1, &t), ACS_EINVAL, "a common table");
  cr_assert_eq(acs_schedule_add_rtab(&s, "waits", one, 1, &t), ACS_EINVAL);
  cr_assert_eq(acs_schedule_add_rtab(&s, "t", one, 0, &t), ACS_EINVAL, "no columns");
  cr_assert_eq(acs_schedule_add_rtab(&s, "t", dup, 2, &t), ACS_EINVAL, "duplicate column");
  cr_assert_eq(acs_schedule_add_rtab(&s, "t", badtype, 1, &t), ACS_EINVAL);
  cr_assert_eq(acs_schedule_add_rtab(&s, "t", many, ACS_RTAB_MAX_COLS + 1, &t), ACS_EINVAL);
  cr_assert_null(t);
  cr_assert_eq(acs_schedule_add_rtab(&s, "t", many, ACS_RTAB_MAX_COLS, &t), ACS_OK);
  cr_assert_eq(acs_schedule_add_rtab(&s, "t", one, 1, &t), ACS_EINVAL, "a second 't'");
  cr_assert_eq(s.ntables, 1);
  acs_schedule_destroy(&s);
}

Test(rtab, cells_are_typed_and_rows_start_blank)
{
  static const struct acs_rtab_col cols[] = {
    {"n", ACS_RTAB_I64, NULL}, {"x", ACS_RTAB_F64, "cycles"}, {"s", ACS_RTAB_STR, NULL}};
  struct acs_schedule s;
  struct acs_rtab *t;
  char text[] = "stripe";

  acs_schedule_init(&s);
  cr_assert_eq(acs_schedule_add_rtab(&s, "plans", cols, 3, &t), ACS_OK);
  cr_assert_eq(acs_schedule_find_rtab(&s, "plans"), t);
  cr_assert_null(acs_schedule_find_rtab(&s, "plan"));
  cr_assert_str_eq(t->cols[0].units, "");
  cr_assert_str_eq(t->cols[1].units, "cycles");
  cr_assert_eq(acs_rtab_set_i64(t, 0, 0, 1), ACS_EINVAL, "no row yet");
  for (int64_t r = 0; r < 1000; r++)
    cr_assert_eq(acs_rtab_add_row(t), r);
  cr_assert_eq(acs_rtab_get(t, 999, 0).i, 0);
  cr_assert(isnan(acs_rtab_get(t, 999, 1).f));
  cr_assert_str_eq(acs_rtab_get(t, 999, 2).s, "");
  cr_assert_eq(acs_rtab_set_f64(t, 5, 0, 1.0), ACS_EINVAL, "a double in an integer column");
  cr_assert_eq(acs_rtab_set_i64(t, 5, 2, 1), ACS_EINVAL);
  cr_assert_eq(acs_rtab_set_str(t, 5, 1, "x"), ACS_EINVAL);
  cr_assert_eq(acs_rtab_set_i64(t, 1000, 0, 1), ACS_EINVAL, "past the last row");
  cr_assert_eq(acs_rtab_set_i64(t, 5, 3, 1), ACS_EINVAL, "past the last column");
  cr_assert_eq(acs_rtab_set_i64(t, -1, 0, 1), ACS_EINVAL);
  cr_assert_eq(acs_rtab_set_str(t, 5, 2, text), ACS_OK);
  text[0] = 'X'; /* the table holds a copy */
  cr_assert_str_eq(acs_rtab_get(t, 5, 2).s, "stripe");
  cr_assert_eq(acs_rtab_col_find(t, "x"), 1);
  cr_assert_eq(acs_rtab_col_find(t, "y"), -1);
  acs_schedule_destroy(&s);
}

Test(rtab, owned_text_is_shared_not_copied)
{
  static const struct acs_rtab_col cols[] = {{"n", ACS_RTAB_I64, NULL}, {"s", ACS_RTAB_STR, NULL}};
  struct acs_schedule s;
  struct acs_rtab *t;
  char text[] = "pe3";
  const char *own;

  acs_schedule_init(&s);
  cr_assert_eq(acs_schedule_add_rtab(&s, "program", cols, 2, &t), ACS_OK);
  own = acs_rtab_own_str(t, text);
  cr_assert_not_null(own);
  text[0] = 'X'; /* the table holds its own copy */
  for (int64_t r = 0; r < 3; r++) {
    cr_assert_eq(acs_rtab_add_row(t), r);
    cr_assert_eq(acs_rtab_set_str_owned(t, r, 1, own), ACS_OK);
  }
  cr_assert_str_eq(acs_rtab_get(t, 2, 1).s, "pe3");
  cr_assert_eq(acs_rtab_get(t, 0, 1).s, acs_rtab_get(t, 2, 1).s, "one copy for every cell");
  cr_assert_eq(acs_rtab_set_str_owned(t, 0, 0, own), ACS_EINVAL, "an integer column");
  cr_assert_eq(acs_rtab_set_str_owned(t, 3, 1, own), ACS_EINVAL, "past the last row");
  cr_assert_eq(acs_rtab_set_str_owned(t, 0, 1, NULL), ACS_EINVAL);
  cr_assert_str_eq(acs_rtab_own_str(t, NULL), "");
  acs_schedule_destroy(&s);
}

Test(rtab, attributes_replace_by_name_and_reserve_layout_names)
{
  static const struct acs_rtab_col cols[] = {{"n", ACS_RTAB_I64, NULL}};
  struct acs_schedule s;
  struct acs_rtab *t;
  const struct acs_rtab_attr *a;

  acs_schedule_init(&s);
  cr_assert_eq(acs_schedule_add_rtab(&s, "modulo", cols, 1, &t), ACS_OK);
  cr_assert_eq(acs_rtab_attr_i64(t, "ii", 7), ACS_OK);
  cr_assert_eq(acs_rtab_attr_f64(t, "ii", 6.5), ACS_OK, "same name, new type");
  cr_assert_eq(t->nattrs, 1);
  a = acs_rtab_attr_find(t, "ii");
  cr_assert_eq(a->type, ACS_RTAB_F64);
  cr_assert(a->v.f == 6.5);
  cr_assert_eq(acs_rtab_attr_str(t, "FIELD_0_UNITS", "x"), ACS_EINVAL);
  cr_assert_eq(acs_rtab_attr_i64(t, "acsim_show", 1), ACS_EINVAL);
  cr_assert_eq(acs_rtab_attr_i64(t, "bad name", 1), ACS_EINVAL);
  cr_assert_null(acs_rtab_attr_find(t, "mii"));
  acs_schedule_destroy(&s);
}

/* A copy holds everything of its source, by value: the source is
 * destroyed (its arena and names gone) before the copy is read. */
Test(schedule, a_copy_is_deep_and_whole)
{
  static const struct acs_rtab_col cols[] = {{"n", ACS_RTAB_I64, "ops"}, {"s", ACS_RTAB_STR, NULL}};
  struct acs_schedule s, c;
  struct acs_rtab *t;
  const struct acs_rtab *ct;
  char name[] = "conv";

  acs_schedule_init(&s);
  s.nres = 2;
  s.res_name[0] = "pe";
  s.res_name[1] = "dma";
  s.res_cap[0] = 4, s.res_cap[1] = 2;
  s.res_pe = 0, s.res_dma = 1;
  s.barriers = 8, s.barrier_slots = 3, s.cmx_capacity = 1 << 20, s.lower_bound = 17;
  for (int i = 0; i < 3; i++) {
    struct acs_sop o = {.name = name, .unit = i, .start = 10 * i, .end = 10 * i + 5, .dur = 5,
                        .cmx_offset = -1, .cmx_bytes = -1, .cmx_alloc = NAN, .cmx_free = NAN,
                        .update_barrier = i - 1, .sim_start = NAN, .sim_end = NAN};
    name[0] = (char)('a' + i);
    cr_assert_eq(acs_schedule_add_op(&s, &o), i);
    cr_assert_eq(acs_schedule_set_demand(&s, i, 1, 100 + i), ACS_OK);
  }
  s.norig = 2;
  cr_assert_eq(acs_schedule_add_edge(&s, 0, 1, 0), ACS_OK);
  cr_assert_eq(acs_schedule_add_edge(&s, 1, 2, 1), ACS_OK);
  cr_assert_eq(acs_schedule_add_wait(&s, 2, 1), ACS_OK);
  acs_schedule_finish(&s);
  cr_assert_eq(acs_schedule_add_rtab(&s, "plans", cols, 2, &t), ACS_OK);
  t->show = 1;
  cr_assert_eq(acs_rtab_add_row(t), 0);
  cr_assert_eq(acs_rtab_add_row(t), 1);
  cr_assert_eq(acs_rtab_set_i64(t, 1, 0, 42), ACS_OK);
  cr_assert_eq(acs_rtab_set_str(t, 1, 1, "rows"), ACS_OK);
  cr_assert_eq(acs_rtab_attr_str(t, "order", "channels"), ACS_OK);
  cr_assert_eq(acs_rtab_attr_i64(t, "chosen", 3), ACS_OK);

  cr_assert_eq(acs_schedule_copy(&c, &s), ACS_OK);
  acs_schedule_destroy(&s);
  cr_assert_eq(c.nops, 3);
  cr_assert_eq(c.norig, 2);
  cr_assert_str_eq(c.ops[0].name, "aonv");
  cr_assert_str_eq(c.ops[2].name, "conv");
  cr_assert_eq(c.ops[2].start, 20);
  cr_assert_eq(c.ops[2].update_barrier, 1);
  cr_assert_eq(acs_schedule_demand(&c, 2, 1), 102);
  cr_assert_eq(acs_schedule_demand(&c, 2, 0), 0);
  cr_assert_str_eq(c.res_name[1], "dma");
  cr_assert_eq(c.res_cap[0], 4);
  cr_assert_eq(c.nedges, 2);
  cr_assert(c.edges[1].src == 1 && c.edges[1].dst == 2 && c.edges[1].kind == 1);
  cr_assert(c.nwaits == 1 && c.waits[0].op == 2 && c.waits[0].barrier == 1);
  cr_assert(c.barriers == 8 && c.barrier_slots == 3 && c.lower_bound == 17);
  cr_assert(c.makespan == 25 && c.cmx_capacity == 1 << 20);
  cr_assert_eq(c.ntables, 1);
  ct = acs_schedule_find_rtab(&c, "plans");
  cr_assert_not_null(ct);
  cr_assert(ct->show && ct->nrows == 2);
  cr_assert_str_eq(ct->cols[0].units, "ops");
  cr_assert_eq(acs_rtab_get(ct, 1, 0).i, 42);
  cr_assert_str_eq(acs_rtab_get(ct, 1, 1).s, "rows");
  cr_assert_str_eq(acs_rtab_get(ct, 0, 1).s, "");
  cr_assert_str_eq(acs_rtab_attr_find(ct, "order")->v.s, "channels");
  cr_assert_eq(acs_rtab_attr_find(ct, "chosen")->v.i, 3);
  cr_assert_eq(acs_schedule_add_edge(&c, 2, 0, 1), ACS_OK, "the copy grows on its own");
  acs_schedule_destroy(&c);
}
