/*
 * test-cascade-nets.c - the cascading scheduler on networks nobody tuned it
 * for: unread elements (a worked example), and a property test over random
 * networks (tests/netgen.h) at three CMX budgets, where every run must be
 * `ok` (checked, verified, simulated, not below the network bound) or
 * `infeasible` with a reason; the same over every libonnx-testdata model
 * acsim reads.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/load/load.h"
#include "core/model/layer.h"
#include "core/model/netbound.h"
#include "core/model/problem.h"
#include "core/model/schedule.h"
#include "core/sched/cascade/cascade.h"
#include "core/sched/cascade/cgraph.h"
#include "core/sched/cascade/walk.h"
#include "tests/cascade_util.h"
#include "tests/lgraph_util.h"
#include "tests/netgen.h"
#include "tests/testutil.h"

/* ---- unread elements ---- */

/* A square k x k window, stride s, pad p on every side, one group. */
static struct acs_lattrs square_window(int64_t k, int64_t s, int64_t p)
{
  struct acs_lattrs a;

  memset(&a, 0, sizeof(a));
  a.group = 1;
  a.nkernel = a.nstrides = a.ndilations = 2;
  a.kernel[0] = a.kernel[1] = k;
  a.strides[0] = a.strides[1] = s;
  a.dilations[0] = a.dilations[1] = 1;
  a.npads = 4;
  a.pads[0] = a.pads[1] = a.pads[2] = a.pads[3] = p;
  return a;
}

static int32_t conv(struct acs_lgraph *lg, const char *name, int32_t x, const char *w,
                    const struct acs_lattrs *a, const char *out)
{
  static const uint8_t roles[] = {ACS_LR_DATA, ACS_LR_WEIGHT};
  int64_t k = a->kernel[0];
  int32_t in[2] = {x, tensor(lg, w, ACS_LT_WEIGHT, 4, (const int64_t[]){1, 1, k, k})};
  int32_t o = tensor(lg, out, ACS_LT_ACT, 0, NULL);

  cr_assert_geq(acs_lgraph_add_node(lg, name, ACS_LOP_CONV, a, 2, in, roles, 1, &o), 0);
  return o;
}

/* x (1, 1, 9, 9) -> A: 3x3 conv, pad 1 -> y (1, 1, 9, 9) -> B: 1x1 conv,
 * stride 3 -> z (1, 1, 3, 3). B reads rows and columns 0, 3 and 6 of y:
 * the box [0, 7) x [0, 7); rows and columns 7 and 8 of y are read by
 * nobody. */
static void short_reader(struct acs_lgraph *lg)
{
  struct acs_lattrs a3 = square_window(3, 1, 1), a1 = square_window(1, 3, 0);
  int32_t x, y, z;

  cr_assert_eq(acs_lgraph_init(lg, "short", "short.onnx"), ACS_OK);
  x = tensor(lg, "x", ACS_LT_INPUT, 4, (const int64_t[]){1, 1, 9, 9}); /* the one input */
  y = conv(lg, "A", x, "wa", &a3, "y");
  z = conv(lg, "B", y, "wb", &a1, "z");
  lg->t[z].is_output = 1;
  infer_ok(lg);
}

/* One PE doing one MAC a cycle, a byte a cycle, bytes of one byte, 64 KiB
 * of CMX (HAND of cascade_util.c with a CMX size; the rig is cascade_util's). */
static const char *const HAND_64K[] = {
  "pe_count=1", "pe_macs_per_cycle=1", "dma_channels=2", "freq_mhz=1000", "dma_gbps=1",
  "ddr_ratio=1", "ddr_latency_cycles=0", "cmx_align_bytes=1", "bytes_per_elem=1",
  "cmx_kib=64", NULL};

/* A plan of the two Parts A and B: stripes of h rows, one channel slice,
 * single buffers, rolling as given, the output to DDR. */
static void two_part_plan(struct acs_cas_plan *p, int64_t h, uint32_t rolling)
{
  memset(p, 0, sizeof(*p));
  p->nparts = 2;
  p->h = h;
  p->c = 1;
  p->nbuf = 1;
  p->rolling = rolling;
  p->out_home = ACS_CAS_HOME_DDR;
}

/* A and B in one cascade, one stripe: A computes only what B reads, 7 x 7
 * outputs of 9 MACs each (441), B 3 x 3 of one MAC (9): 450 MACs, where
 * computing y whole would take 81 x 9 + 9 = 738. The lowered schedule
 * passes the cascade checker and the verifier. */
Test(unread, producer_computes_only_what_is_read)
{
  struct acs_cas_plan p;
  struct acs_cas_group g;
  struct acs_cas_tag *tags;
  struct acs_lgraph lg;
  struct acs_diag d;
  struct rig r;

  short_reader(&lg);
  rig_make(&r, &lg, HAND_64K);
  cr_assert(acs_cas_group_of(&r.cg, 0, 2, &g));
  two_part_plan(&p, 3, 0);
  cr_assert_eq(acs_cas_walk(&r.env, &g, &p, NULL), ACS_OK);
  cr_assert_eq(p.macs, 450);
  acs_diag_init(&d);
  cr_assert_eq(acs_cas_lower(&r.env, &p, 1, r.s.cmx_capacity, &r.s, &tags, &d), ACS_OK, "%s",
               d.msg);
  tu_assert_verified(&r.s);
  cr_assert_eq(acs_cas_check(&r.env, tags, r.s.cmx_capacity, p.mem, &r.s, &d), ACS_OK, "%s",
               d.msg);
  free(tags);
  rig_free(&r);
  acs_lgraph_destroy(&lg);
}

/* Two 3 x 3 convolutions on 9 x 9, y rolled a row at a time: each of B's
 * rows reads three rows of y that A made in different stripes, so each
 * read is covered only by boxes stacked along H. The checker accepts the
 * lowered schedule; without one of those data edges it refuses it,
 * naming the read. */
Test(unread, a_read_needs_every_block_it_spans)
{
  struct acs_lattrs a3 = square_window(3, 1, 1);
  struct acs_cas_plan p;
  struct acs_cas_group g;
  struct acs_cas_tag *tags;
  struct acs_lgraph lg;
  struct acs_diag d;
  struct rig r;
  int32_t x, y, z, cut = -1;

  cr_assert_eq(acs_lgraph_init(&lg, "rows", "rows.onnx"), ACS_OK);
  x = tensor(&lg, "x", ACS_LT_INPUT, 4, (const int64_t[]){1, 1, 9, 9});
  y = conv(&lg, "A", x, "wa", &a3, "y");
  z = conv(&lg, "B", y, "wb", &a3, "z");
  lg.t[z].is_output = 1;
  infer_ok(&lg);
  rig_make(&r, &lg, HAND_64K);
  cr_assert(acs_cas_group_of(&r.cg, 0, 2, &g));
  two_part_plan(&p, 1, 1); /* y rolled */
  cr_assert_eq(acs_cas_walk(&r.env, &g, &p, NULL), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(acs_cas_lower(&r.env, &p, 1, r.s.cmx_capacity, &r.s, &tags, &d), ACS_OK, "%s",
               d.msg);
  cr_assert_eq(acs_cas_check(&r.env, tags, r.s.cmx_capacity, p.mem, &r.s, &d), ACS_OK, "%s",
               d.msg);
  /* A middle row of B: its data edges from A's computes, three of them. */
  for (int32_t v = 0; v < r.s.nops && cut < 0; v++) {
    int32_t from_a = 0, last = -1;
    if (tags[v].what != ACS_CAS_OP_COMPUTE || tags[v].part != 1)
      continue;
    for (int32_t e = 0; e < r.s.nedges; e++)
      if (r.s.edges[e].dst == v && r.s.edges[e].kind == ACS_EDGE_DATA &&
          tags[r.s.edges[e].src].what == ACS_CAS_OP_COMPUTE && tags[r.s.edges[e].src].part == 0)
        from_a++, last = e;
    if (from_a >= 3)
      cut = last;
  }
  cr_assert(cut >= 0, "no row of B reads three of A's blocks");
  r.s.edges[cut] = r.s.edges[--r.s.nedges];
  cr_assert_eq(acs_cas_check(&r.env, tags, r.s.cmx_capacity, p.mem, &r.s, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "reads a region of 'y'"), "%s", d.msg);
  free(tags);
  rig_free(&r);
  acs_lgraph_destroy(&lg);
}

/* The checker still demands network outputs whole: with B's compute op and
 * the store after it untagged (as if they were not there), z is not
 * computed, and the check names it. */
Test(unread, network_output_must_be_whole)
{
  struct acs_cas_plan p;
  struct acs_cas_group g;
  struct acs_cas_tag *tags;
  struct acs_lgraph lg;
  struct acs_diag d;
  struct rig r;
  int hidden = 0;

  short_reader(&lg);
  rig_make(&r, &lg, HAND_64K);
  cr_assert(acs_cas_group_of(&r.cg, 0, 2, &g));
  two_part_plan(&p, 3, 0);
  cr_assert_eq(acs_cas_walk(&r.env, &g, &p, NULL), ACS_OK);
  acs_diag_init(&d);
  cr_assert_eq(acs_cas_lower(&r.env, &p, 1, r.s.cmx_capacity, &r.s, &tags, &d), ACS_OK, "%s",
               d.msg);
  for (int32_t i = 0; i < r.s.nops; i++)
    if ((tags[i].what == ACS_CAS_OP_COMPUTE && tags[i].part == 1) ||
        tags[i].what == ACS_CAS_OP_STORE) {
      tags[i].what = ACS_CAS_OP_OTHER;
      hidden++;
    }
  cr_assert_eq(hidden, 2);
  cr_assert_eq(acs_cas_check(&r.env, tags, r.s.cmx_capacity, p.mem, &r.s, &d), ACS_EVERIFY);
  cr_assert(strstr(d.msg, "network output 'z'"), "%s", d.msg);
  free(tags);
  rig_free(&r);
  acs_lgraph_destroy(&lg);
}

/* The network bound counts the needed elements: B reads rows and columns
 * 0, 3 and 6 of y, so A must compute 3 x 3 outputs of 9 MACs (81) and B 9
 * (90 MACs, against 738 for the whole tensors); A's taps for those rows
 * with padding 1 are rows 0-7 of x, so 8 x 8 = 64 input bytes cross DDR,
 * with 9 + 1 weight bytes and the 9 output bytes: 83. One MAC and one
 * byte a cycle (HAND_64K): max(90, 83) = 90 cycles. */
Test(unread, network_bound_counts_needed_elements)
{
  struct acs_netbound nb;
  struct acs_lgraph lg;
  struct rig r;

  short_reader(&lg);
  rig_make(&r, &lg, HAND_64K);
  cr_assert_eq(acs_netbound_compute(&lg, &r.pb.plat, &nb), ACS_OK);
  cr_assert_eq(nb.macs, 90);
  cr_assert_eq(nb.ddr_bytes, 83);
  cr_assert_eq(nb.cycles, 90);
  rig_free(&r);
  acs_lgraph_destroy(&lg);
}

/* ---- the walk's DDR link ---- */

/* A link of 2 bytes a cycle, transfers of 1 byte a cycle each (a DMA
 * engine at 1 GB/s, ddr_ratio 0.5), latency 10, by hand: two transfers of
 * 100 bytes issued at 0 run side by side, [10, 110) each; a third issued at
 * 0 finds the link full until 110 and moves at 110-210; a fourth issued at
 * 150 shares what the third leaves (1 byte a cycle) and ends at 260. */
Test(link, transfers_take_the_bandwidth_left_before_them)
{
  static const char *const sets[] = {"freq_mhz=1000", "dma_gbps=1", "ddr_ratio=0.5",
                                     "ddr_latency_cycles=10", NULL};
  struct acs_platform p;
  struct acs_diag d;
  struct acs_cw_link l;

  acs_platform_init(&p);
  acs_diag_init(&d);
  for (int i = 0; sets[i]; i++)
    cr_assert_eq(acs_platform_set_kv(&p, sets[i], &d), ACS_OK);
  acs__cw_link_init(&l, &p);
  cr_assert_eq(acs__cw_link_xfer(&l, 0, 100), 110);
  cr_assert_eq(acs__cw_link_xfer(&l, 0, 100), 110);
  cr_assert_eq(acs__cw_link_xfer(&l, 0, 100), 210);
  cr_assert_eq(acs__cw_link_xfer(&l, 150, 100), 260);
  /* Forgetting what ends before 200 keeps what later transfers see: one
   * issued at 195 finds the link full at 205-210 (the third and fourth)
   * and 1 byte a cycle left after 210: 10 bytes end at 220. */
  acs__cw_link_forget(&l, 200);
  cr_assert_eq(acs__cw_link_xfer(&l, 195, 10), 220);
  acs__cw_link_free(&l);
}

/* ---- random networks ---- */

/* Small networks (7-40 pixels, up to 32 channels, up to 5 blocks) keep
 * the check short; bench/bench-cascade sweeps the large ones. */
static const struct acs_netgen_opts SMALL = {7, 40, 32, 5};

/* Three budgets per network, and the PE count varying with the seed. */
static const char *const BUDGETS[] = {"cmx_kib=8", "cmx_kib=48", "cmx_kib=1024"};
static const char *const PES[] = {"pe_count=4", "pe_count=1", "pe_count=16"};
/* Half the networks through the barrier pass too (8 barriers of 256 slots:
 * it re-times the plan), as a sweep over barrier counts runs them. */
static const char *const BARRIERS[] = {"barriers=0", "barriers=8"};

#define NETS 100

/* Every run on NETS random networks at three budgets is ok (the cascade
 * checker, the verifier, SimGrid, and at or above the network bound) or
 * infeasible with a reason; most are ok. */
Test(random_nets, every_run_is_ok_or_infeasible_with_a_reason, .timeout = 1200)
{
  int ok = 0, infeasible = 0;

  for (uint64_t seed = 0; seed < NETS; seed++) {
    struct acs_lgraph lg;
    char desc[512];
    int err = acs_netgen_make(seed, &SMALL, &lg, desc, sizeof(desc));
    cr_assert_eq(err, ACS_OK, "net %llu: %s", (unsigned long long)seed, desc);
    for (int b = 0; b < 3; b++) {
      const char *sets[] = {BUDGETS[b], PES[seed % 3], BARRIERS[seed / 3 % 2],
                            "barrier_slots=256", NULL};
      struct acs_netgen_run r;
      cr_assert_eq(acs_netgen_cascade(&lg, sets, NULL, 1, &r), ACS_OK);
      cr_assert_neq(r.status, ACS_NETGEN_ERROR, "net %llu (%s) at %s, %s, %s: %s",
                    (unsigned long long)seed, desc, sets[0], sets[1], sets[2], r.msg);
      if (r.status == ACS_NETGEN_INFEASIBLE) {
        cr_assert(r.msg[0] != '\0');
        infeasible++;
        continue;
      }
      cr_assert_geq(r.makespan, r.netbound);
      cr_assert(r.sim >= (double)r.netbound - 1e-6);
      ok++;
    }
    acs_lgraph_destroy(&lg);
  }
  cr_log_info("%d runs: %d ok, %d infeasible", 3 * NETS, ok, infeasible);
  /* The budgets are chosen so most networks fit: a test that ended
   * infeasible everywhere would prove nothing. */
  cr_assert_geq(ok, 2 * NETS, "%d ok, %d infeasible", ok, infeasible);
}

/* The generator is deterministic: a seed is a network. */
Test(random_nets, same_seed_same_network)
{
  struct acs_lgraph a, b;
  char da[512], db[512];

  cr_assert_eq(acs_netgen_make(7, &SMALL, &a, da, sizeof(da)), ACS_OK);
  cr_assert_eq(acs_netgen_make(7, &SMALL, &b, db, sizeof(db)), ACS_OK);
  cr_assert_str_eq(da, db);
  cr_assert_eq(a.nnodes, b.nnodes);
  cr_assert_eq(a.ntensors, b.ntensors);
  for (int32_t t = 0; t < a.ntensors; t++)
    cr_assert(a.t[t].rank == b.t[t].rank &&
              memcmp(a.t[t].dims, b.t[t].dims, sizeof(a.t[t].dims)) == 0);
  acs_lgraph_destroy(&a);
  acs_lgraph_destroy(&b);
}

/* ---- libonnx-testdata ---- */

#define TESTDATA "/usr/share/libonnx-testdata/data"

static int by_name(const struct dirent **a, const struct dirent **b)
{
  return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every model of Debian's libonnx-testdata (the ONNX project's operator
 * and model tests) that acsim reads as it is (test-onnx counts them) runs
 * through cascade on the default platform: ok (checked, verified,
 * simulated, not below the network bound) or infeasible with a reason. */
Test(onnx_testdata, cascade_is_ok_or_infeasible_on_every_model, .timeout = 1200)
{
  static const char *const cats[] = {"node", "pytorch-converted", "pytorch-operator", "simple",
                                     "real"};
  static const char *const sets[] = {"cmx_kib=256", NULL};
  struct stat st;
  int loaded = 0, ok = 0;

  if (stat(TESTDATA, &st) != 0)
    cr_skip_test("libonnx-testdata is not installed (" TESTDATA ")");
  for (size_t c = 0; c < sizeof(cats) / sizeof(*cats); c++) {
    char base[1024];
    struct dirent **ents;
    int n;
    snprintf(base, sizeof(base), "%s/%s", TESTDATA, cats[c]);
    n = scandir(base, &ents, NULL, by_name);
    for (int i = 0; i < n; i++) {
      char path[2048];
      struct acs_workload *w;
      struct acs_netgen_run r;
      struct acs_diag d;
      const struct acs_lgraph *lg;
      snprintf(path, sizeof(path), "%s/%s/model.onnx", base, ents[i]->d_name);
      acs_diag_init(&d);
      if (ents[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
          acs_workload_load(path, &w, &d) == ACS_OK) {
        if ((lg = acs_workload_lgraph(w)) != NULL) {
          loaded++;
          cr_assert_eq(acs_netgen_cascade(lg, sets, NULL, 1, &r), ACS_OK, "%s", path);
          cr_assert_neq(r.status, ACS_NETGEN_ERROR, "%s: %s", path, r.msg);
          cr_assert(r.status == ACS_NETGEN_OK || r.msg[0] != '\0', "%s", path);
          ok += r.status == ACS_NETGEN_OK;
        }
        acs_workload_free(w);
      }
      free(ents[i]);
    }
    if (n >= 0)
      free(ents);
  }
  cr_log_info("%d models read, %d ok, %d infeasible", loaded, ok, loaded - ok);
  cr_assert_gt(loaded, 400); /* the package reads as a few hundred models */
}
