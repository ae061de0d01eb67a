/*
 * netgen.c - random layer graphs from a seed (see netgen.h).
 *
 * The generator tracks each tensor's shape itself, so it only draws
 * attributes that give a valid output (at least one row and column), and
 * lets acs_lgraph_infer confirm them.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/acs.h"
#include "core/model/netbound.h"
#include "core/model/problem.h"
#include "core/model/schedule.h"
#include "core/sched/cascade/cascade.h"
#include "core/sched/npu/barrier.h"
#include "core/sched/sched.h"
#include "simulate/sim.h"
#include "tests/netgen.h"

/* A tensor being built on: its id and NCHW shape (rank 2 after a head). */
struct cur {
  int32_t t;
  int64_t c, h, w;
  int rank;
};

struct gen {
  struct acs_lgraph *lg;
  struct acs_rng rng;
  const struct acs_netgen_opts *o;
  int ids;                   /* names: t<k>, w<k>, n<k> */
  int err;
  char *desc;
  size_t size, used;
};

static int64_t below(struct gen *g, int64_t n)
{
  return n > 0 ? (int64_t)acs_rng_below(&g->rng, (uint64_t)n) : 0;
}

static int64_t between(struct gen *g, int64_t lo, int64_t hi)
{
  return hi <= lo ? lo : lo + below(g, hi - lo + 1);
}

static void say(struct gen *g, const char *fmt, int64_t a, int64_t b, int64_t c, int64_t d)
{
  int n;

  if (g->used + 1 >= g->size)
    return;
  n = snprintf(g->desc + g->used, g->size - g->used, fmt, (long long)a, (long long)b,
               (long long)c, (long long)d);
  if (n > 0)
    g->used = g->used + (size_t)n < g->size ? g->used + (size_t)n : g->size - 1;
}

static int32_t tensor(struct gen *g, char kind, int ltkind, int rank, const int64_t *dims)
{
  char name[32];
  int32_t t;

  snprintf(name, sizeof(name), "%c%d", kind, g->ids++);
  if ((t = acs_lgraph_add_tensor(g->lg, name)) < 0) {
    g->err = (int)t;
    return -1;
  }
  g->lg->t[t].kind = (uint8_t)ltkind;
  if (dims) {
    acs_ltensor_set_shape(&g->lg->t[t], rank, dims);
    g->lg->t[t].dtype = 1;
    g->lg->t[t].elem_bytes = 4;
  }
  return t;
}

/* A node reading `in` (roles given) into a new activation. */
static int32_t node(struct gen *g, int op, const struct acs_lattrs *a, int nin, const int32_t *in,
                    const uint8_t *roles)
{
  char name[32];
  int32_t o, v;

  if (g->err < 0 || (o = tensor(g, 't', ACS_LT_ACT, 0, NULL)) < 0)
    return -1;
  snprintf(name, sizeof(name), "n%d", g->ids++);
  if ((v = acs_lgraph_add_node(g->lg, name, op, a, nin, in, roles, 1, &o)) < 0) {
    g->err = (int)v;
    return -1;
  }
  return o;
}

static struct acs_lattrs window(int64_t k, int64_t s, int64_t d, const int64_t pads[4],
                                int64_t group)
{
  struct acs_lattrs a;

  memset(&a, 0, sizeof(a));
  a.group = group;
  a.nkernel = a.nstrides = a.ndilations = 2;
  a.kernel[0] = a.kernel[1] = k;
  a.strides[0] = a.strides[1] = s;
  a.dilations[0] = a.dilations[1] = d;
  a.npads = 4;
  memcpy(a.pads, pads, 4 * sizeof(*pads));
  return a;
}

/* Output length of a window over n with pads pb, pe. */
static int64_t out_len(int64_t n, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe)
{
  int64_t span = d * (k - 1) + 1;

  return n + pb + pe < span ? 0 : (n + pb + pe - span) / s + 1;
}

static struct cur conv(struct gen *g, struct cur x, int64_t cout, int64_t k, int64_t s,
                       int64_t d, const int64_t pads[4], int64_t group, int bias)
{
  static const uint8_t roles[] = {ACS_LR_DATA, ACS_LR_WEIGHT, ACS_LR_WEIGHT};
  struct acs_lattrs a = window(k, s, d, pads, group);
  int32_t in[3];
  struct cur y = x;

  in[0] = x.t;
  in[1] = tensor(g, 'w', ACS_LT_WEIGHT, 4, (const int64_t[]){cout, x.c / group, k, k});
  in[2] = bias ? tensor(g, 'w', ACS_LT_WEIGHT, 1, (const int64_t[]){cout}) : -1;
  y.t = node(g, ACS_LOP_CONV, &a, bias ? 3 : 2, in, roles);
  y.c = cout;
  y.h = out_len(x.h, k, s, d, pads[0], pads[2]);
  y.w = out_len(x.w, k, s, d, pads[1], pads[3]);
  return y;
}

/* Channels for a new tensor: small ones often, up to max_ch. */
static int64_t channels(struct gen *g, int64_t most)
{
  int64_t m = most < g->o->max_ch ? most : g->o->max_ch;

  if (m < 1)
    m = 1;
  return below(g, 3) == 0 ? between(g, 1, m < 8 ? m : 8) : between(g, 1, m);
}

/* Group count for cin -> cout: depthwise (cout = cin), a divisor of both,
 * or one. Sets *cout for depthwise. */
static int64_t groups(struct gen *g, int64_t cin, int64_t *cout)
{
  int64_t kind = below(g, 8), div[64], n = 0;

  if (kind < 2) {
    *cout = cin;
    return cin;
  }
  if (kind == 2) {
    for (int64_t q = 2; q < cin && n < 64; q++)
      if (cin % q == 0)
        div[n++] = q;
    if (n > 0) {
      int64_t q = div[below(g, n)];
      *cout = q * between(g, 1, g->o->max_ch / q > 1 ? g->o->max_ch / q : 1);
      return q;
    }
  }
  return 1;
}

/* A conv of random attributes that leaves at least one row and column. */
static struct cur rand_conv(struct gen *g, struct cur x)
{
  int64_t k = between(g, 1, 7), s = between(g, 1, 3), d = between(g, 1, 3), pads[4];
  int64_t cout = channels(g, g->o->max_ch), grp = groups(g, x.c, &cout);

  for (int i = 0; i < 4; i++)
    pads[i] = between(g, 0, 3);
  if (x.h <= 9 || x.w <= 9)
    s = 1;
  while (k > 1 && (out_len(x.h, k, s, d, pads[0], pads[2]) < 1 ||
                   out_len(x.w, k, s, d, pads[1], pads[3]) < 1)) {
    if (d > 1)
      d--;
    else
      k--;
  }
  say(g, " conv%lldx%lld/s%lld,d%lld", k, k, s, d);
  say(g, ",p%lld%lld,g%lld", pads[0], pads[2], grp, 0);
  return conv(g, x, cout, k, s, d, pads, grp, below(g, 2) == 0);
}

static struct cur pool(struct gen *g, struct cur x, int64_t k, int64_t s, int64_t p, int max)
{
  static const uint8_t roles[] = {ACS_LR_DATA};
  int64_t pads[4] = {p, p, p, p};
  struct acs_lattrs a = window(k, s, 1, pads, 0);
  struct cur y = x;

  y.t = node(g, max ? ACS_LOP_MAX_POOL : ACS_LOP_AVERAGE_POOL, &a, 1, &x.t, roles);
  y.h = out_len(x.h, k, s, 1, p, p);
  y.w = out_len(x.w, k, s, 1, p, p);
  return y;
}

static struct cur rand_pool(struct gen *g, struct cur x)
{
  int64_t k = between(g, 2, 3), s = x.h <= 9 || x.w <= 9 ? 1 : between(g, 1, 2);
  int64_t p = between(g, 0, k - 1);
  int max = below(g, 2) == 0;

  while (k > 1 && (out_len(x.h, k, s, 1, p, p) < 1 || out_len(x.w, k, s, 1, p, p) < 1))
    k--;
  p = p < k ? p : k - 1; /* a pool's padding is less than its window */

  say(g, max ? " maxpool%lld/s%lld,p%lld" : " avgpool%lld/s%lld,p%lld", k, s, p, 0);
  return pool(g, x, k, s, p, max);
}

static struct cur unary(struct gen *g, struct cur x)
{
  static const uint8_t roles[] = {ACS_LR_DATA};
  struct acs_lattrs a;
  int sig = below(g, 2) == 0;

  memset(&a, 0, sizeof(a));
  say(g, sig ? " sigmoid" : " relu", 0, 0, 0, 0);
  x.t = node(g, sig ? ACS_LOP_SIGMOID : ACS_LOP_RELU, &a, 1, &x.t, roles);
  return x;
}

static struct cur add(struct gen *g, struct cur x, struct cur y)
{
  static const uint8_t roles[] = {ACS_LR_DATA, ACS_LR_DATA};
  struct acs_lattrs a;
  int32_t in[2] = {x.t, y.t};

  memset(&a, 0, sizeof(a));
  x.t = node(g, ACS_LOP_ADD, &a, 2, in, roles);
  return x;
}

/* A "same" conv: odd kernel, padding d (k - 1) / 2 each side. */
static struct cur same_conv(struct gen *g, struct cur x, int64_t cout, int64_t k, int64_t s,
                            int64_t d)
{
  int64_t p = d * (k - 1) / 2, pads[4] = {p, p, p, p};

  return conv(g, x, cout, k, s, d, pads, 1, 0);
}

static int64_t odd_kernel(struct gen *g)
{
  return 2 * between(g, 0, 3) + 1;
}

static struct cur residual(struct gen *g, struct cur x)
{
  int64_t s = x.h <= 9 || x.w <= 9 ? 1 : between(g, 1, 2);
  int64_t cout = below(g, 2) ? x.c : channels(g, g->o->max_ch);
  int64_t k = odd_kernel(g), d = between(g, 1, 2);
  struct cur y = same_conv(g, x, cout, k, s, d), sc = x;
  int two = below(g, 2) == 0;

  if (two)
    y = same_conv(g, y, cout, odd_kernel(g), 1, between(g, 1, 3));
  if (s != 1 || cout != x.c) {
    int64_t z[4] = {0, 0, 0, 0};
    sc = conv(g, x, cout, 1, s, 1, z, 1, 0);
  }
  say(g, " res(k%lld/s%lld,%lld convs,proj %lld)", k, s, 1 + two, sc.t != x.t);
  return add(g, y, sc);
}

static struct cur branch(struct gen *g, struct cur x, int64_t cout)
{
  int64_t kind = below(g, 3), z[4] = {0, 0, 0, 0};

  if (kind == 0)
    return same_conv(g, x, cout, odd_kernel(g), 1, between(g, 1, 3));
  if (kind == 1) {
    struct cur y = conv(g, x, channels(g, g->o->max_ch / 2), 1, 1, 1, z, 1, 0);
    return same_conv(g, y, cout, odd_kernel(g), 1, between(g, 1, 2));
  }
  x = pool(g, x, 3, 1, 1, 1);
  return conv(g, x, cout, 1, 1, 1, z, 1, 0);
}

static struct cur concat(struct gen *g, struct cur x)
{
  static const uint8_t roles[] = {ACS_LR_DATA, ACS_LR_DATA, ACS_LR_DATA, ACS_LR_DATA};
  int64_t nb = between(g, 2, 4), total = 0;
  struct acs_lattrs a;
  int32_t in[4];
  struct cur y = x;

  for (int64_t b = 0; b < nb; b++) {
    y = branch(g, x, channels(g, g->o->max_ch / nb));
    in[b] = y.t;
    total += y.c;
  }
  memset(&a, 0, sizeof(a));
  a.axis = 1;
  y.t = node(g, ACS_LOP_CONCAT, &a, (int)nb, in, roles);
  y.c = total;
  say(g, " concat(%lld branches ->%lld)", nb, total, 0, 0);
  return y;
}

/* GlobalAveragePool (or nothing, when small) then Flatten and Gemm. */
static struct cur head(struct gen *g, struct cur x)
{
  static const uint8_t data[] = {ACS_LR_DATA};
  static const uint8_t roles[] = {ACS_LR_DATA, ACS_LR_WEIGHT, ACS_LR_WEIGHT};
  int64_t n = channels(g, g->o->max_ch), feat;
  struct acs_lattrs a;
  int32_t in[3];

  memset(&a, 0, sizeof(a));
  if (x.c * x.h * x.w > 4096 || below(g, 2) == 0) {
    x.t = node(g, ACS_LOP_GLOBAL_AVERAGE_POOL, &a, 1, &x.t, data);
    x.h = x.w = 1;
  }
  feat = x.c * x.h * x.w;
  a.axis = 1;
  x.t = node(g, ACS_LOP_FLATTEN, &a, 1, &x.t, data);
  memset(&a, 0, sizeof(a));
  a.trans_b = 1;
  in[0] = x.t;
  in[1] = tensor(g, 'w', ACS_LT_WEIGHT, 2, (const int64_t[]){n, feat});
  in[2] = tensor(g, 'w', ACS_LT_WEIGHT, 1, (const int64_t[]){n});
  x.t = node(g, ACS_LOP_GEMM, &a, 3, in, roles);
  x.c = n;
  x.rank = 2;
  say(g, " fc(%lld->%lld)", feat, n, 0, 0);
  return x;
}

static struct cur block(struct gen *g, struct cur x)
{
  int64_t r = below(g, 10);

  if (r < 4)
    return rand_conv(g, x);
  if (r < 5)
    return rand_pool(g, x);
  if (r < 6)
    return unary(g, x);
  if (r < 8)
    return residual(g, x);
  return concat(g, x);
}

int acs_netgen_make(uint64_t seed, const struct acs_netgen_opts *o, struct acs_lgraph *lg,
                    char *desc, size_t size)
{
  struct gen g;
  struct cur x;
  struct acs_diag d;
  int32_t extra = -1;
  int nblocks, err;

  memset(&g, 0, sizeof(g));
  g.lg = lg;
  g.o = o;
  g.desc = desc;
  g.size = size;
  if (size)
    desc[0] = '\0';
  acs_rng_seed(&g.rng, seed);
  if ((err = acs_lgraph_init(lg, "net", "net.onnx")) < 0)
    return err;
  x.c = between(&g, 1, o->max_ch < 16 ? o->max_ch : 16);
  x.h = between(&g, o->min_hw, o->max_hw);
  x.w = between(&g, o->min_hw, o->max_hw);
  x.rank = 4;
  x.t = tensor(&g, 'x', ACS_LT_INPUT, 4, (const int64_t[]){1, x.c, x.h, x.w});
  if (x.t >= 0) {
    int32_t *in = acs_arena_calloc(&lg->arena, 1, sizeof(*in));
    if (!in)
      g.err = ACS_ENOMEM;
    else
      in[0] = x.t, lg->inputs = in, lg->ninputs = 1;
  }
  say(&g, "%lldx%lldx%lld:", x.c, x.h, x.w, 0);
  nblocks = (int)between(&g, 1, o->max_blocks);
  for (int b = 0; b < nblocks && g.err == 0; b++) {
    x = block(&g, x);
    if (b + 1 < nblocks && below(&g, 8) == 0)
      extra = x.t;
  }
  if (g.err == 0 && below(&g, 4) == 0)
    x = head(&g, x);
  if (g.err < 0) {
    acs_lgraph_destroy(lg);
    return g.err;
  }
  lg->t[x.t].is_output = 1;
  if (extra >= 0) {
    lg->t[extra].is_output = 1;
    say(&g, " +inner output", 0, 0, 0, 0);
  }
  acs_diag_init(&d);
  if ((err = acs_lgraph_finalize(lg, &d)) < 0 || (err = acs_lgraph_infer(lg, &d)) < 0) {
    if (size)
      snprintf(desc, size, "%s", d.msg);
    acs_lgraph_destroy(lg);
    return err;
  }
  return ACS_OK;
}

/* ---- one cascade run ---- */

/* The problem the schedule is initialised for: the platform and a one-op
 * graph with the resources acsim's lowering gives a network (PE, DMA, CMX
 * and the DDR link; the cascade replaces the ops). */
static int rig(struct acs_graph *g, struct acs_problem *pb, const char *const *sets,
               struct acs_diag *d)
{
  struct acs_platform p;
  struct acs_op op;
  int err = ACS_OK;

  acs_platform_init(&p);
  for (; sets && *sets; sets++)
    if ((err = acs_platform_set_kv(&p, *sets, d)) < 0)
      return err;
  if ((err = acs_graph_init(g, "net", "net")) < 0)
    return err;
  memset(&op, 0, sizeof(op));
  op.name = "x";
  op.kind = ACS_OP_DPU;
  op.cycles = 1;
  op.slots = 1;
  if (acs_graph_add_resource(g, "pe", ACS_RES_PE, 0) < 0 ||
      acs_graph_add_resource(g, "dma", ACS_RES_DMA, 0) < 0 ||
      acs_graph_add_resource(g, "cmx", ACS_RES_CMX, 0) < 0 ||
      acs_graph_add_resource(g, "ddr", ACS_RES_DDR, 0) < 0 || acs_graph_add_op(g, &op) < 0 ||
      (err = acs_graph_finalize(g, d)) < 0 || (err = acs_problem_init(pb, g, &p, d)) < 0) {
    acs_graph_destroy(g);
    return err < 0 ? err : ACS_ENOMEM;
  }
  return ACS_OK;
}

static void verdict(struct acs_netgen_run *r, int status, const char *what, const char *msg)
{
  r->status = status;
  snprintf(r->msg, sizeof(r->msg), "%.100s%.1024s", what, msg);
}

/* Simulates s and checks both makespans against the network bound. */
static void sim_and_bound(const struct acs_problem *pb, struct acs_schedule *s, int sim,
                          struct acs_netgen_run *r)
{
  struct acs_sim_result sr;
  struct acs_diag d;
  char buf[128];
  int err;

  acs_diag_init(&d);
  if (sim && (err = acs_sim_run(&pb->plat, s, NULL, &sr, &d)) < 0) {
    verdict(r, ACS_NETGEN_ERROR, "simulation: ", d.msg[0] ? d.msg : acs_strerror(err));
    return;
  }
  if (sim)
    r->sim = sr.makespan_cycles;
  if (r->makespan < r->netbound || (sim && r->sim < (double)r->netbound - 1e-6)) {
    snprintf(buf, sizeof(buf), "planned %lld, simulated %.0f, network bound %lld",
             (long long)r->makespan, r->sim, (long long)r->netbound);
    verdict(r, ACS_NETGEN_ERROR, "below the network bound: ", buf);
  }
}

static int set_opts(const struct acs_sched_ops *ops, void *o, const char *const *opts,
                    struct acs_diag *d)
{
  int err = acs_sched_opts_defaults(ops, o);

  for (; err == ACS_OK && opts && *opts; opts++) {
    char key[64];
    const char *eq = strchr(*opts, '=');
    if (!eq)
      return ACS_EINVAL;
    snprintf(key, sizeof(key), "%.*s", (int)(eq - *opts), *opts);
    err = acs_sched_opts_set(ops, o, key, eq + 1, d);
  }
  return err;
}

/* When the platform limits barriers, the barrier pass as acsim runs it,
 * and the verifier again; infeasible with a reason is a verdict too. */
static int barrier_program(const struct acs_problem *pb, struct acs_schedule *s,
                           struct acs_netgen_run *r)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  if ((err = acs_barrier_pass(pb, s, NULL, &d)) < 0)
    verdict(r, err == ACS_EINFEASIBLE && d.msg[0] ? ACS_NETGEN_INFEASIBLE : ACS_NETGEN_ERROR,
            "barrier pass: ", d.msg[0] ? d.msg : acs_strerror(err));
  else if ((err = acs_schedule_verify(s, &d)) < 0)
    verdict(r, ACS_NETGEN_ERROR, "after the barrier pass: ", d.msg);
  return err;
}

int acs_netgen_cascade(const struct acs_lgraph *lg, const char *const *sets,
                       const char *const *opts, int sim, struct acs_netgen_run *r)
{
  const struct acs_sched_ops *ops = acs_sched_find("cascade");
  struct acs_cas_opts o;
  struct acs_schedule_stats st;
  struct acs_netbound nb;
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_diag d;
  int err = ACS_EINVAL;

  memset(r, 0, sizeof(*r));
  r->sim = NAN;
  acs_diag_init(&d);
  if (!ops || ops->opts_size != sizeof(o) || (err = set_opts(ops, &o, opts, &d)) < 0 ||
      (err = rig(&g, &pb, sets, &d)) < 0)
    return ops ? err : ACS_EINVAL;
  acs_schedule_init(&s);
  if ((err = acs_schedule_init_problem(&s, &pb)) < 0 ||
      (err = acs_netbound_compute(lg, &pb.plat, &nb)) < 0)
    goto out;
  r->netbound = nb.cycles;
  err = acs_cas_schedule(lg, &pb.plat, &o, NULL, NULL, &s, &d);
  if (err == ACS_EINFEASIBLE) {
    verdict(r, d.msg[0] ? ACS_NETGEN_INFEASIBLE : ACS_NETGEN_ERROR, d.msg[0] ? "" : "no reason",
            d.msg);
  } else if (err < 0) {
    verdict(r, ACS_NETGEN_ERROR, "", d.msg[0] ? d.msg : acs_strerror(err));
  } else if ((err = acs_schedule_verify(&s, &d)) < 0) {
    verdict(r, ACS_NETGEN_ERROR, "schedule violates an invariant: ", d.msg);
  } else if (s.barriers > 0 && (err = barrier_program(&pb, &s, r)) < 0) {
    /* the verdict is set */
  } else {
    acs_schedule_stats(&s, &st);
    r->makespan = st.makespan;
    sim_and_bound(&pb, &s, sim, r);
  }
  err = err == ACS_ENOMEM ? err : ACS_OK;
out:
  acs_schedule_destroy(&s);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
  return err;
}
