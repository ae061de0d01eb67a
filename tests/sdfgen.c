/*
 * sdfgen.c - random SDF and CSDF graphs as SDF3 XML (see sdfgen.h).
 *
 * Consistency by construction: each actor a first gets a number of cycles
 * per iteration cyc(a) (a cycle is its P(a) phases), then a channel a -> b
 * produces Sp = m cyc(b) / g tokens per cycle of a and consumes Sc =
 * m cyc(a) / g per cycle of b (g = gcd, m = 1 or 2), so both ends move
 * cyc(a) cyc(b) m / g tokens per iteration. Liveness by construction: a
 * back edge b -> a (a before b) holds one iteration of a's consumption, a
 * self-edge one token, so the actors can run iteration by iteration.
 * Absorbed tokens only in graphs without back edges (a filter in a cycle
 * could wait for the tokens of the next iteration).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/load/load.h"
#include "core/sched/sched.h"
#include "tests/sdfgen.h"

enum { MAXA = 9, MAXP = 16, MAXC = 40 };

struct port {
  char name[8];
  int out;
  int n;
  int64_t rate[3];
  int absorb;
};

struct chan {
  int src, dst;          /* actors */
  int sp, dp;            /* their ports */
  int64_t d0, bytes;
};

struct gen {
  struct acs_rng r;
  int n, csdf, cyc[MAXA], P[MAXA], np[MAXA], nch;
  struct port port[MAXA][MAXP];
  struct chan ch[MAXC];
  char *buf;
  size_t size, len;
  int overflow;
};

static void put(struct gen *g, const char *fmt, ...)
{
  va_list ap;
  int w;

  va_start(ap, fmt);
  w = vsnprintf(g->buf + g->len, g->len < g->size ? g->size - g->len : 0, fmt, ap);
  va_end(ap);
  if (w < 0 || g->len + (size_t)w >= g->size)
    g->overflow = 1;
  else
    g->len += (size_t)w;
}

static int64_t gcd64(int64_t a, int64_t b)
{
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static int pick(struct gen *g, int n)
{
  return (int)acs_rng_below(&g->r, (uint64_t)n);
}

/* S tokens over the P phases of a cycle (zeros allowed in CSDF). */
static void split(struct gen *g, struct port *p, int P, int64_t S)
{
  int64_t left = S;

  p->n = P;
  for (int i = 0; i < P - 1; i++) {
    p->rate[i] = (int64_t)acs_rng_below(&g->r, (uint64_t)left + 1);
    left -= p->rate[i];
  }
  p->rate[P - 1] = left;
}

static int add_port(struct gen *g, int a, int out)
{
  struct port *p = &g->port[a][g->np[a]];

  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "p%d", g->np[a]);
  p->out = out;
  return g->np[a]++;
}

/* Channel a -> b moving Sp per cycle of a, Sc per cycle of b. */
static void add_channel(struct gen *g, int a, int b, int64_t sp, int64_t sc, int64_t d0,
                        int64_t bytes)
{
  struct chan *c = &g->ch[g->nch++];

  c->src = a;
  c->dst = b;
  c->sp = add_port(g, a, 1);
  c->dp = add_port(g, b, 0);
  split(g, &g->port[a][c->sp], g->P[a], sp);
  split(g, &g->port[b][c->dp], g->P[b], sc);
  c->d0 = d0;
  c->bytes = bytes;
}

static int64_t token_bytes(struct gen *g)
{
  static const int64_t sizes[] = { 16, 64, 256, 1024, 1920, 4096 };
  return sizes[pick(g, 6)];
}

static void channels(struct gen *g)
{
  int back = pick(g, 3);

  for (int b = 1; b < g->n; b++) {
    int k = 1 + pick(g, b < 2 ? 1 : 2), first = pick(g, b);
    for (int i = 0; i < k; i++) {
      int a = (first + i) % b, m = 1 + pick(g, 2);
      int64_t q = gcd64(g->cyc[a], g->cyc[b]);
      add_channel(g, a, b, g->cyc[b] / q * m, g->cyc[a] / q * m, 0, token_bytes(g));
    }
  }
  for (int i = 0; i < back; i++) {
    int a = pick(g, g->n - 1), b = a + 1 + pick(g, g->n - 1 - a), m = 1 + pick(g, 2);
    int64_t q = gcd64(g->cyc[a], g->cyc[b]), sc = g->cyc[b] / q * m;
    add_channel(g, b, a, g->cyc[a] / q * m, sc, sc * g->cyc[a], token_bytes(g));
  }
  for (int a = 0; a < g->n; a++)
    if (pick(g, 10) < 3) {
      int s = add_port(g, a, 1), d = add_port(g, a, 0);
      struct chan *c = &g->ch[g->nch++];
      split(g, &g->port[a][s], g->P[a], g->P[a]);
      split(g, &g->port[a][d], g->P[a], g->P[a]);
      for (int i = 0; i < g->P[a]; i++)
        g->port[a][s].rate[i] = g->port[a][d].rate[i] = 1;
      *c = (struct chan){ a, a, s, d, 1, 16 };
    }
  /* Filters: some forward input ports keep one token to the next firing. */
  for (int i = 0; back == 0 && i < g->nch; i++)
    if (g->ch[i].d0 == 0 && pick(g, 6) == 0)
      g->port[g->ch[i].dst][g->ch[i].dp].absorb = 1;
}

static void write_rates(struct gen *g, const struct port *p)
{
  for (int i = 0; i < p->n; i++)
    put(g, "%s%lld", i ? "," : "", (long long)p->rate[i]);
}

static void write_graph(struct gen *g, uint64_t seed)
{
  const char *kind = g->csdf ? "csdf" : "sdf";

  put(g, "<?xml version=\"1.0\"?>\n<sdf3 type=\"%s\"><applicationGraph name=\"rnd%llu\">\n"
         "<%s name=\"rnd\" type=\"R\">\n", kind, (unsigned long long)seed, kind);
  for (int a = 0; a < g->n; a++) {
    put(g, "<actor name=\"a%d\" type=\"A\">", a);
    for (int i = 0; i < g->np[a]; i++) {
      put(g, "<port name=\"%s\" type=\"%s\" rate=\"", g->port[a][i].name,
          g->port[a][i].out ? "out" : "in");
      write_rates(g, &g->port[a][i]);
      put(g, "\"/>");
    }
    put(g, "</actor>\n");
  }
  for (int i = 0; i < g->nch; i++) {
    const struct chan *c = &g->ch[i];
    put(g, "<channel name=\"c%d\" srcActor=\"a%d\" srcPort=\"%s\" dstActor=\"a%d\" dstPort=\"%s\"",
        i, c->src, g->port[c->src][c->sp].name, c->dst, g->port[c->dst][c->dp].name);
    if (c->d0 > 0)
      put(g, " initialTokens=\"%lld\"", (long long)c->d0);
    put(g, "/>\n");
  }
  put(g, "</%s><%sProperties>\n", kind, kind);
}

static void write_properties(struct gen *g, int64_t iters)
{
  static const char *const pipes[] = { "", "", "", "", "", "", "", "", "input", "none" };
  static const int ksizes[] = { 0, 1024, 4096, 16384 };
  const char *kind = g->csdf ? "csdf" : "sdf";

  for (int a = 0; a < g->n; a++) {
    const char *pipe = pipes[pick(g, 10)];
    put(g, "<actorProperties actor=\"a%d\"><processor type=\"p\" default=\"true\">"
           "<executionTime time=\"", a);
    for (int i = 0; i < g->P[a]; i++)   /* log-uniform in [10, 200000] */
      put(g, "%s%lld", i ? "," : "", (long long)(10.0 * exp(acs_rng_unit(&g->r) * log(20000.0))));
    put(g, "\"/></processor><acsim kernelSize=\"%d\"%s%s%s/>", ksizes[pick(g, 4)],
        pipe[0] ? " pipeline=\"" : "", pipe, pipe[0] ? "\"" : "");
    for (int i = 0; i < g->np[a]; i++)
      if (g->port[a][i].absorb)
        put(g, "<acsimPort port=\"%s\" absorb=\"1\"/>", g->port[a][i].name);
    put(g, "</actorProperties>\n");
  }
  for (int i = 0; i < g->nch; i++)
    put(g, "<channelProperties channel=\"c%d\"><tokenSize sz=\"%lld\"/></channelProperties>\n",
        i, (long long)g->ch[i].bytes);
  put(g, "<graphProperties><acsim iterations=\"%lld\" tokenSize=\"%lld\"/></graphProperties>\n"
         "</%sProperties></applicationGraph></sdf3>\n", (long long)iters,
      (long long)token_bytes(g), kind);
}

int sdfgen_xml(uint64_t seed, int64_t max_firings, char *buf, size_t size)
{
  static const int64_t iters_choice[] = { 1, 1, 2, 4, 16, 64, 200 };
  struct gen g;
  int64_t per_iter = 0, iters;
  int in, out;

  memset(&g, 0, sizeof(g));
  g.buf = buf;
  g.size = size;
  acs_rng_seed(&g.r, seed);
  g.n = 2 + pick(&g, MAXA - 1);
  g.csdf = pick(&g, 3) == 0;
  for (int a = 0; a < g.n; a++) {
    g.cyc[a] = 1 + pick(&g, 3);
    g.P[a] = g.csdf ? 1 + pick(&g, 3) : 1;
    per_iter += (int64_t)g.cyc[a] * g.P[a];
  }
  channels(&g);
  /* A graph input into the first actor, a graph output from the last. */
  in = add_port(&g, 0, 0);
  split(&g, &g.port[0][in], g.P[0], g.P[0]);
  for (int i = 0; i < g.P[0]; i++)
    g.port[0][in].rate[i] = 1;
  out = add_port(&g, g.n - 1, 1);
  for (int i = 0; i < g.P[g.n - 1]; i++)
    g.port[g.n - 1][out].rate[i] = 1;
  g.port[g.n - 1][out].n = g.P[g.n - 1];
  iters = iters_choice[pick(&g, 7)];
  if (iters * per_iter > max_firings)
    iters = max_firings / per_iter > 0 ? max_firings / per_iter : 1;
  write_graph(&g, seed);
  write_properties(&g, iters);
  return g.overflow ? -1 : (int)g.len;
}

/* ---- running the family on one graph ---- */

const char *const sdfgen_variants[SDFGEN_NVAR] = { "gang", "sequential", "tiling", "naive-list" };

static double cpu_seconds(void)
{
  struct timespec ts;

  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One variant with its default options; the schedule verified. */
static void run_variant(int v, struct acs_problem *pb, struct sdfgen_outcome *o)
{
  const struct acs_sched_ops *ops = acs_sched_find(sdfgen_variants[v]);
  struct acs_sched_ctx ctx = { 1, 0, NULL, NULL, 0 };
  struct acs_schedule s;
  struct acs_diag d;
  char opts[4096];
  double t0;

  acs_diag_init(&d);
  o->makespan[v] = -1;
  if (!ops || ops->opts_size > sizeof(opts) || acs_sched_opts_defaults(ops, opts) < 0 ||
      acs_schedule_init_problem(&s, pb) < 0) {
    o->err[v] = ACS_EINVAL;
    snprintf(o->msg[v], sizeof(o->msg[v]), "cannot set up %s", sdfgen_variants[v]);
    return;
  }
  t0 = cpu_seconds();
  o->err[v] = ops->schedule(pb, opts, &ctx, &s, &d);
  o->seconds[v] = cpu_seconds() - t0;
  if (o->err[v] == ACS_OK && (o->err[v] = acs_schedule_verify(&s, &d)) == ACS_OK) {
    const struct acs_rtab *t = acs_schedule_find_rtab(&s, "gangs");
    o->makespan[v] = s.makespan;
    for (int32_t i = 0; i < s.nops; i++)
      if (s.ops[i].src == ACS_MEM_DDR || s.ops[i].dst == ACS_MEM_DDR)
        o->ddr[v] += s.ops[i].end - s.ops[i].start;
    if (v == 0 && t && t->nrows > 0)
      snprintf(o->gang_mode, sizeof(o->gang_mode), "%s", acs_rtab_get(t, 0, 13).s);
  }
  snprintf(o->msg[v], sizeof(o->msg[v]), "%s", d.msg);
  acs_schedule_destroy(&s);
}

int sdfgen_run(const char *path, const struct acs_platform *p, struct sdfgen_outcome *o)
{
  struct acs_workload *w;
  struct acs_graph g;
  struct acs_problem pb;
  int err;

  memset(o, 0, sizeof(*o));
  acs_diag_init(&o->load);
  if ((err = acs_workload_load(path, &w, &o->load)) < 0)
    return err;
  if ((err = acs_workload_build(w, p, &g, &o->load)) < 0)
    goto out_with_workload;
  if ((err = acs_problem_init(&pb, &g, p, &o->load)) < 0)
    goto out_with_graph;
  acs_workload_bind(w, &pb);
  for (int v = 0; v < SDFGEN_NVAR; v++)
    run_variant(v, &pb, o);
  acs_problem_destroy(&pb);
out_with_graph:
  acs_graph_destroy(&g);
out_with_workload:
  acs_workload_free(w);
  return err;
}

int64_t sdfgen_best_baseline(const struct sdfgen_outcome *o)
{
  int64_t best = -1;

  for (int v = 1; v < SDFGEN_NVAR; v++)
    if (o->err[v] == ACS_OK && (best < 0 || o->makespan[v] < best))
      best = o->makespan[v];
  return best;
}
