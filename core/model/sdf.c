/*
 * sdf.c - construction, repetition vector, consistency and deadlock checks of
 * (C)SDF graphs, and the token arithmetic shared by the SDF schedulers.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/graph.h"
#include "core/model/sdf.h"
#include "core/model/sdf_int.h"

static const char *const pipe_names[] = { "full", "input", "none" };

const char *acs_sdf_pipe_name(int pipe)
{
  return pipe >= 0 && pipe <= ACS_SDF_PIPE_NONE ? pipe_names[pipe] : "?";
}

int acs_sdf_init(struct acs_sdf_graph *g, const char *name, const char *path)
{
  memset(g, 0, sizeof(*g));
  acs_arena_init(&g->arena);
  g->iterations = 1;
  g->default_token_bytes = 1;
  g->name = acs_arena_strdup(&g->arena, name ? name : "");
  g->path = acs_arena_strdup(&g->arena, path ? path : "");
  return g->name && g->path ? ACS_OK : ACS_ENOMEM;
}

void acs_sdf_destroy(struct acs_sdf_graph *g)
{
  if (!g)
    return;
  free(g->actors);
  free(g->ports);
  free(g->channels);
  free(g->in_off);
  free(g->in_ch);
  free(g->out_off);
  free(g->out_ch);
  free(g->base);
  acs__sdf_names_free(g);
  acs_arena_destroy(&g->arena);
  memset(g, 0, sizeof(*g));
}

/* ---- sequences ---- */

static int seq_finish(struct acs_sdf_graph *g, struct acs_sdf_seq *s)
{
  s->pre = acs_arena_alloc(&g->arena, ((size_t)s->n + 1) * sizeof(*s->pre));
  if (!s->pre)
    return ACS_ENOMEM;
  s->pre[0] = 0;
  s->max = 0;
  for (int32_t i = 0; i < s->n; i++) {
    if (acs_add_i64(s->pre[i], s->v[i], &s->pre[i + 1]))
      return ACS_ERANGE;
    if (s->v[i] > s->max)
      s->max = s->v[i];
  }
  s->sum = s->pre[s->n];
  return ACS_OK;
}

int acs_sdf_seq_const(struct acs_sdf_graph *g, int64_t v, struct acs_sdf_seq *out)
{
  out->n = 1;
  out->v = acs_arena_alloc(&g->arena, sizeof(*out->v));
  if (!out->v)
    return ACS_ENOMEM;
  out->v[0] = v;
  return seq_finish(g, out);
}

/* A non-negative decimal integer below 2^40 (so sums of a million stay far
 * from overflow), surrounding blanks allowed. */
static int parse_count(const char *s, const char *e, int64_t *out)
{
  int64_t v = 0;
  int digits = 0;

  while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
    s++;
  while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
    e--;
  for (; s < e; s++, digits++) {
    if (*s < '0' || *s > '9')
      return -1;
    v = v * 10 + (*s - '0');
    if (v >= ((int64_t)1 << 40))
      return -2;
  }
  if (digits == 0)
    return -1;
  *out = v;
  return 0;
}

/* Appends `count` copies of v to s (grown in a malloc'd buffer). */
static int seq_push(int64_t **buf, size_t *cap, int32_t *n, int64_t count, int64_t v)
{
  int err;

  if (count > ACS_SDF_MAX_SEQ - *n)
    return ACS_ERANGE;
  if ((err = acs_grow((void **)buf, sizeof(**buf), cap, (size_t)(*n + count))) < 0)
    return err;
  for (int64_t i = 0; i < count; i++)
    (*buf)[(*n)++] = v;
  return ACS_OK;
}

int acs_sdf_seq_parse(struct acs_sdf_graph *g, const char *text, struct acs_sdf_seq *out,
                      struct acs_diag *d)
{
  int64_t *buf = NULL;
  size_t cap = 0;
  int32_t n = 0;
  const char *p = text;
  int err = ACS_OK;

  for (;;) {
    const char *end = strchr(p, ','), *star;
    int64_t count = 1, v;
    int rc;
    if (!end)
      end = p + strlen(p);
    star = memchr(p, '*', (size_t)(end - p));
    if (star && (rc = parse_count(p, star, &count)) < 0) {
      err = acs_diag_set(d, rc == -2 ? ACS_ERANGE : ACS_EPARSE, NULL, 0, 0,
                         "bad repeat count in sequence '%s'", text);
      goto out_with_buf;
    }
    if ((rc = parse_count(star ? star + 1 : p, end, &v)) < 0) {
      err = acs_diag_set(d, rc == -2 ? ACS_ERANGE : ACS_EPARSE, NULL, 0, 0,
                         rc == -2 ? "value too large in sequence '%s'"
                                  : "'%s' is not a sequence of non-negative integers "
                                    "(v or n*v, comma-separated)", text);
      goto out_with_buf;
    }
    if ((err = seq_push(&buf, &cap, &n, count, v)) < 0) {
      if (err == ACS_ERANGE)
        acs_diag_set(d, err, NULL, 0, 0, "sequence '%.60s' has more than %d entries", text,
                     ACS_SDF_MAX_SEQ);
      goto out_with_buf;
    }
    if (*end == '\0')
      break;
    p = end + 1;
  }
  if (n == 0) {
    err = acs_diag_set(d, ACS_EPARSE, NULL, 0, 0, "empty sequence '%s'", text);
    goto out_with_buf;
  }
  out->n = n;
  out->v = acs_arena_alloc(&g->arena, (size_t)n * sizeof(*out->v));
  if (!out->v) {
    err = ACS_ENOMEM;
    goto out_with_buf;
  }
  memcpy(out->v, buf, (size_t)n * sizeof(*out->v));
  err = seq_finish(g, out);
  if (err == ACS_ERANGE)
    acs_diag_set(d, err, NULL, 0, 0, "sequence '%.60s' sums beyond 2^63", text);
out_with_buf:
  free(buf);
  return err;
}

/* ---- builders ---- */

int32_t acs_sdf_add_actor(struct acs_sdf_graph *g, const char *name, const char *type,
                          int32_t line)
{
  struct acs_sdf_actor *a;
  int err;

  if (g->nactors == INT32_MAX)
    return ACS_ENOMEM;
  if ((err = acs_grow((void **)&g->actors, sizeof(*g->actors), &g->cap_actors,
                      (size_t)g->nactors + 1)) < 0)
    return err;
  a = &g->actors[g->nactors];
  memset(a, 0, sizeof(*a));
  a->name = acs_arena_strdup(&g->arena, name);
  a->type = acs_arena_strdup(&g->arena, type ? type : "");
  if (!a->name || !a->type)
    return ACS_ENOMEM;
  a->line = line;
  a->exec.n = 0;   /* set by the reader; checked by finalize */
  g->nactors++;
  return (err = acs__sdf_names_add(g, ACS__SDF_ACTOR, g->nactors - 1)) < 0 ? err : g->nactors - 1;
}

int32_t acs_sdf_add_port(struct acs_sdf_graph *g, int32_t actor, const char *name, int dir,
                         const struct acs_sdf_seq *rate, int32_t line)
{
  struct acs_sdf_port *p;
  int err;

  if (actor < 0 || actor >= g->nactors || g->nports == INT32_MAX)
    return ACS_EINVAL;
  if ((err = acs_grow((void **)&g->ports, sizeof(*g->ports), &g->cap_ports,
                      (size_t)g->nports + 1)) < 0)
    return err;
  p = &g->ports[g->nports];
  memset(p, 0, sizeof(*p));
  if (!(p->name = acs_arena_strdup(&g->arena, name)))
    return ACS_ENOMEM;
  p->actor = actor;
  p->dir = dir;
  p->rate = *rate;
  p->token_bytes = -1;
  p->channel = -1;
  p->line = line;
  g->nports++;
  return (err = acs__sdf_names_add(g, ACS__SDF_PORT, g->nports - 1)) < 0 ? err : g->nports - 1;
}

int32_t acs_sdf_add_channel(struct acs_sdf_graph *g, const char *name, int32_t sport,
                            int32_t dport, int64_t d0, int32_t line)
{
  struct acs_sdf_channel *c;
  int err;

  if (g->nchannels == INT32_MAX)
    return ACS_ENOMEM;
  if ((err = acs_grow((void **)&g->channels, sizeof(*g->channels), &g->cap_channels,
                      (size_t)g->nchannels + 1)) < 0)
    return err;
  c = &g->channels[g->nchannels];
  memset(c, 0, sizeof(*c));
  if (!(c->name = acs_arena_strdup(&g->arena, name)))
    return ACS_ENOMEM;
  c->sport = sport;
  c->dport = dport;
  c->src = sport >= 0 ? g->ports[sport].actor : -1;
  c->dst = dport >= 0 ? g->ports[dport].actor : -1;
  c->d0 = d0;
  c->token_bytes = -1;   /* unset: the graph default applies */
  c->line = line;
  if (sport >= 0)
    g->ports[sport].channel = g->nchannels;
  if (dport >= 0)
    g->ports[dport].channel = g->nchannels;
  g->nchannels++;
  return (err = acs__sdf_names_add(g, ACS__SDF_CHANNEL, g->nchannels - 1)) < 0 ? err : g->nchannels - 1;
}

/* ---- finalize: DDR channels, phases, adjacency ---- */

/* lcm, or -1 on overflow. */
static int64_t lcm64(int64_t a, int64_t b)
{
  int64_t r;

  if (a == 0 || b == 0)
    return 0;
  if (acs_mul_i64(a / acs_gcd64(a, b), b, &r))
    return -1;
  return r;
}

/* Every port left unconnected becomes a channel to or from DDR, named
 * "<actor>.<port>". */
static int add_ddr_channels(struct acs_sdf_graph *g, struct acs_diag *d)
{
  int32_t np = g->nports;

  for (int32_t i = 0; i < np; i++) {
    struct acs_sdf_port *p = &g->ports[i];
    char name[512];
    int32_t c;
    if (p->channel >= 0)
      continue;
    snprintf(name, sizeof(name), "%s.%s", g->actors[p->actor].name, p->name);
    if (acs_sdf_find_channel(g, name) >= 0)
      return acs_diag_set(d, ACS_EPARSE, g->path, p->line, 0,
                          "port '%s' of actor '%s' is not connected, and its graph %s "
                          "channel name '%s' is already taken", p->name,
                          g->actors[p->actor].name, p->dir == ACS_SDF_IN ? "input" : "output",
                          name);
    c = p->dir == ACS_SDF_IN ? acs_sdf_add_channel(g, name, -1, i, 0, p->line)
                             : acs_sdf_add_channel(g, name, i, -1, 0, p->line);
    if (c < 0)
      return c;
    g->channels[c].token_bytes = g->ports[i].token_bytes;
  }
  return ACS_OK;
}

/* P(a), the lcm of the lengths of an actor's sequences: one pass over the
 * ports, O(A + P). */
static int set_phases(struct acs_sdf_graph *g, struct acs_diag *d)
{
  int64_t *ph = malloc(((size_t)g->nactors + 1) * sizeof(*ph));
  int err = ACS_OK;

  if (!ph)
    return ACS_ENOMEM;
  for (int32_t a = 0; a < g->nactors && err == ACS_OK; a++) {
    ph[a] = g->actors[a].exec.n;
    if (ph[a] == 0)
      err = acs_diag_set(d, ACS_EPARSE, g->path, g->actors[a].line, 0,
                         "actor '%s' has no execution time", g->actors[a].name);
  }
  for (int32_t i = 0; i < g->nports && err == ACS_OK; i++) {
    int32_t a = g->ports[i].actor;
    if (ph[a] > 0)
      ph[a] = lcm64(ph[a], g->ports[i].rate.n);
  }
  for (int32_t a = 0; a < g->nactors && err == ACS_OK; a++) {
    if (ph[a] < 0 || ph[a] > ACS_SDF_MAX_SEQ)
      err = acs_diag_set(d, ACS_ERANGE, g->path, g->actors[a].line, 0,
                         "actor '%s': its sequences have more than %d phases together",
                         g->actors[a].name, ACS_SDF_MAX_SEQ);
    else
      g->actors[a].nphases = (int32_t)ph[a];
  }
  free(ph);
  return err;
}

static int build_adjacency(struct acs_sdf_graph *g)
{
  int32_t n = g->nactors;
  int32_t *cin, *cout;

  g->in_off = calloc((size_t)n + 2, sizeof(*g->in_off));
  g->out_off = calloc((size_t)n + 2, sizeof(*g->out_off));
  g->in_ch = malloc(((size_t)g->nchannels + 1) * sizeof(*g->in_ch));
  g->out_ch = malloc(((size_t)g->nchannels + 1) * sizeof(*g->out_ch));
  if (!g->in_off || !g->out_off || !g->in_ch || !g->out_ch)
    return ACS_ENOMEM;
  for (int32_t c = 0; c < g->nchannels; c++) {
    if (g->channels[c].dst >= 0)
      g->in_off[g->channels[c].dst + 2]++;
    if (g->channels[c].src >= 0)
      g->out_off[g->channels[c].src + 2]++;
  }
  for (int32_t a = 0; a < n; a++) {
    g->in_off[a + 2] += g->in_off[a + 1];
    g->out_off[a + 2] += g->out_off[a + 1];
  }
  cin = g->in_off + 1;
  cout = g->out_off + 1;
  for (int32_t c = 0; c < g->nchannels; c++) {
    if (g->channels[c].dst >= 0)
      g->in_ch[cin[g->channels[c].dst]++] = c;
    if (g->channels[c].src >= 0)
      g->out_ch[cout[g->channels[c].src]++] = c;
  }
  return ACS_OK;
}

/* ---- repetition vector ---- */

/* Tokens per firing cycle (P(a) firings) of a port. */
static int port_cycle_tokens(const struct acs_sdf_graph *g, int32_t port, int64_t *out)
{
  const struct acs_sdf_port *p = &g->ports[port];
  int64_t reps = g->actors[p->actor].nphases / p->rate.n;

  return acs_mul_i64(reps, p->rate.sum, out) ? ACS_ERANGE : ACS_OK;
}

/* A fraction num/den in lowest terms, den > 0. */
struct frac {
  int64_t num, den;
};

static int frac_mul(struct frac a, int64_t num, int64_t den, struct frac *out)
{
  int64_t g1 = acs_gcd64(a.num, den), g2 = acs_gcd64(num, a.den), n, m;

  if (g1 == 0)
    g1 = 1;
  if (g2 == 0)
    g2 = 1;
  if (acs_mul_i64(a.num / g1, num / g2, &n) || acs_mul_i64(a.den / g2, den / g1, &m))
    return ACS_ERANGE;
  g1 = acs_gcd64(n, m);
  out->num = n / g1;
  out->den = m / g1;
  return ACS_OK;
}

static int inconsistent(const struct acs_sdf_graph *g, int32_t c, struct acs_diag *d)
{
  const struct acs_sdf_channel *ch = &g->channels[c];

  return acs_diag_set(d, ACS_EPARSE, g->path, ch->line, 0,
                      "inconsistent rates on channel '%s' (%s -> %s): no repetition vector "
                      "balances it with the rest of its component",
                      ch->name, g->actors[ch->src].name, g->actors[ch->dst].name);
}

/* Visits the component of `root` breadth-first, giving each actor a number
 * of firing cycles r as a fraction, and checks every channel on the way. */
static int solve_component(struct acs_sdf_graph *g, int32_t root, struct frac *r,
                           int32_t *queue, struct acs_diag *d)
{
  int32_t head = 0, tail = 0;
  int err;

  r[root] = (struct frac){1, 1};
  queue[tail++] = root;
  while (head < tail) {
    int32_t a = queue[head++];
    for (int side = 0; side < 2; side++) {
      const int32_t *off = side ? g->out_off : g->in_off, *ch = side ? g->out_ch : g->in_ch;
      for (int32_t k = off[a]; k < off[a + 1]; k++) {
        const struct acs_sdf_channel *c = &g->channels[ch[k]];
        int64_t tp, tc;
        int32_t b;
        struct frac want;
        if (c->src < 0 || c->dst < 0)
          continue;
        if ((err = port_cycle_tokens(g, c->sport, &tp)) < 0 ||
            (err = port_cycle_tokens(g, c->dport, &tc)) < 0)
          return acs_diag_set(d, err, g->path, c->line, 0, "channel '%s': rates overflow",
                              c->name);
        if (tp == 0 && tc == 0)
          continue;
        if (tp == 0 || tc == 0)
          return inconsistent(g, ch[k], d);
        /* r(src) * tp = r(dst) * tc */
        b = side ? c->dst : c->src;
        err = side ? frac_mul(r[a], tp, tc, &want) : frac_mul(r[a], tc, tp, &want);
        if (err < 0)
          return acs_diag_set(d, err, g->path, c->line, 0,
                              "channel '%s': the repetition vector overflows", c->name);
        if (r[b].den == 0) {
          r[b] = want;
          queue[tail++] = b;
        } else if (r[b].num != want.num || r[b].den != want.den) {
          return inconsistent(g, ch[k], d);
        }
      }
    }
  }
  /* Scale the component to the smallest integer vector. */
  int64_t l = 1, gg = 0;
  for (int32_t i = 0; i < tail; i++)
    if ((l = lcm64(l, r[queue[i]].den)) < 0)
      return acs_diag_set(d, ACS_ERANGE, g->path, g->actors[root].line, 0,
                          "the repetition vector of the component of '%s' overflows",
                          g->actors[root].name);
  for (int32_t i = 0; i < tail; i++) {
    struct frac *f = &r[queue[i]];
    if (acs_mul_i64(f->num, l / f->den, &f->num))
      return acs_diag_set(d, ACS_ERANGE, g->path, g->actors[queue[i]].line, 0,
                          "the repetition vector entry of '%s' overflows",
                          g->actors[queue[i]].name);
    f->den = 1;
    gg = acs_gcd64(gg, f->num);
  }
  for (int32_t i = 0; i < tail; i++) {
    struct acs_sdf_actor *ac = &g->actors[queue[i]];
    if (acs_mul_i64(r[queue[i]].num / gg, ac->nphases, &ac->q))
      return acs_diag_set(d, ACS_ERANGE, g->path, ac->line, 0,
                          "the repetition vector entry of '%s' overflows", ac->name);
  }
  return ACS_OK;
}

static int repetition_vector(struct acs_sdf_graph *g, struct acs_diag *d)
{
  struct frac *r = calloc((size_t)g->nactors + 1, sizeof(*r));
  int32_t *queue = malloc(((size_t)g->nactors + 1) * sizeof(*queue));
  int err = ACS_OK;

  if (!r || !queue) {
    err = ACS_ENOMEM;
    goto out_with_arrays;
  }
  for (int32_t a = 0; a < g->nactors && err == ACS_OK; a++)
    if (r[a].den == 0)
      err = solve_component(g, a, r, queue, d);
out_with_arrays:
  free(r);
  free(queue);
  return err;
}

/* Run totals: firings, and tokens produced and consumed per channel. */
static int run_totals(struct acs_sdf_graph *g, struct acs_diag *d)
{
  int64_t total = 0;

  /* Totals fit int64_t here; their cost is checked against the limits
   * once the channels' token counts are known (check_cost). */
  for (int32_t a = 0; a < g->nactors; a++) {
    struct acs_sdf_actor *ac = &g->actors[a];
    if (acs_mul_i64(ac->q, g->iterations, &ac->total) || acs_add_i64(total, ac->total, &total))
      return acs_diag_set(d, ACS_ERANGE, g->path, ac->line, 0,
                          "actor '%s': %lld iterations of %lld firings overflow 64-bit "
                          "integers", ac->name, (long long)g->iterations, (long long)ac->q);
  }
  g->total_firings = total;
  if (!(g->base = malloc(((size_t)g->nactors + 1) * sizeof(*g->base))))
    return ACS_ENOMEM;
  g->base[0] = 0;
  for (int32_t a = 0; a < g->nactors; a++)
    g->base[a + 1] = g->base[a] + g->actors[a].total;
  for (int32_t c = 0; c < g->nchannels; c++) {
    struct acs_sdf_channel *ch = &g->channels[c];
    /* Totals stay below 2^40 * 2 * 10^7 < 2^65 only when checked: */
    if (ch->src >= 0) {
      const struct acs_sdf_seq *s = &g->ports[ch->sport].rate;
      int64_t t = g->actors[ch->src].total;
      if (acs_mul_i64(t / s->n, s->sum, &ch->produced) ||
          acs_add_i64(ch->produced, s->pre[t % s->n], &ch->produced))
        return acs_diag_set(d, ACS_ERANGE, g->path, ch->line, 0,
                            "channel '%s': token count overflows", ch->name);
    }
    if (ch->dst >= 0) {
      const struct acs_sdf_seq *s = &g->ports[ch->dport].rate;
      int64_t t = g->actors[ch->dst].total;
      if (acs_mul_i64(t / s->n, s->sum, &ch->consumed) ||
          acs_add_i64(ch->consumed, s->pre[t % s->n], &ch->consumed))
        return acs_diag_set(d, ACS_ERANGE, g->path, ch->line, 0,
                            "channel '%s': token count overflows", ch->name);
    }
    if (ch->src < 0)
      ch->produced = ch->consumed;   /* a graph input holds what is read */
    if (ch->dst < 0)
      ch->consumed = 0;
    if (ch->token_bytes < 0)
      ch->token_bytes = g->default_token_bytes;
  }
  return ACS_OK;
}

/* ---- cost ---- */

/*
 * The edge bound: firing k of the destination reads the window
 * [C(k) - b, C(k + 1) + b) of tokens, C(k) the tokens consumed before it.
 * Its part [C(k), C(k + 1)) meets the token ranges of the producing
 * firings; over all k these two partitions of the tokens intersect in at
 * most T(src) + T(dst) pairs. The 2b absorbed tokens on either side add at
 * most min(2b, T(src)) producers per firing.
 */
void acs_sdf_cost(const struct acs_sdf_graph *g, int64_t *ops, int64_t *edges)
{
  int64_t f = 0, e = 0;

  for (int32_t a = 0; a < g->nactors; a++)
    f = acs_sat_add_i64(f, g->actors[a].total);
  for (int32_t c = 0; c < g->nchannels; c++) {
    const struct acs_sdf_channel *ch = &g->channels[c];
    int64_t ts = ch->src >= 0 ? g->actors[ch->src].total : 0;
    int64_t td = ch->dst >= 0 ? g->actors[ch->dst].total : 0;
    int64_t w = 0;
    if (ch->src >= 0 && ch->dst >= 0) {
      w = acs_sat_mul_i64(g->ports[ch->dport].absorb, 2);
      w = w < ts ? w : ts;
    }
    e = acs_sat_add_i64(e, acs_sat_add_i64(ts, acs_sat_mul_i64(td, acs_sat_add_i64(w, 1))));
  }
  *ops = f;
  *edges = e;
}

/* The run against the limits, located at the actor that fires most. */
static int check_cost(const struct acs_sdf_graph *g, struct acs_diag *d)
{
  char what[ACS_NAME_MAX + 160];
  int64_t ops, edges;
  int32_t most = 0;

  acs_sdf_cost(g, &ops, &edges);
  for (int32_t a = 1; a < g->nactors; a++)
    if (g->actors[a].total > g->actors[most].total)
      most = a;
  snprintf(what, sizeof(what), "a run of %lld iteration%s (actor '%.*s' fires %lld times)",
           (long long)g->iterations, g->iterations == 1 ? "" : "s", ACS_NAME_MAX,
           g->actors[most].name, (long long)g->actors[most].total);
  /* Two resources: the firing DAG's pe and dma (sdf_build.c). */
  return acs_graph_check_cost(ops, edges, 2, d, g->path, g->actors[most].line, 0, what);
}

/* ---- token arithmetic ---- */

int64_t acs_sdf_producer(const struct acs_sdf_graph *g, int32_t c, int64_t j)
{
  const struct acs_sdf_channel *ch = &g->channels[c];
  const struct acs_sdf_seq *s;
  int64_t cyc, lo, hi;

  if (ch->src < 0 || j < ch->d0)
    return -1;
  j -= ch->d0;   /* produced token index */
  s = &g->ports[ch->sport].rate;
  if (s->sum == 0)
    return -1;
  cyc = j / s->sum;
  j -= cyc * s->sum;
  /* Smallest phase i with pre[i + 1] > j. */
  lo = 0;
  hi = s->n - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (s->pre[mid + 1] > j)
      hi = mid;
    else
      lo = mid + 1;
  }
  return cyc * s->n + lo;
}

/* ---- deadlock: symbolic execution of the whole run ---- */

/* Interrupts are polled every this many steps of the symbolic execution. */
#define POLL_STEPS 65536

/* Tokens channel c holds for its destination after the firings so far. */
static int64_t have_tokens(const struct acs_sdf_graph *g, int32_t c, const int64_t *fired)
{
  const struct acs_sdf_channel *ch = &g->channels[c];

  return acs_sdf_avail(g, c, ch->src < 0 ? 0 : fired[ch->src]);
}

struct exec_state {
  int64_t *fired;     /* firings done per actor */
  int32_t *cursor;    /* input channels checked for the actor's next firing */
  int32_t *block;     /* the channel an actor waits on, -1 none */
  int32_t *queue;     /* ring of actors to examine */
  char *queued;
  int64_t steps;
};

/*
 * Fires actor a as far as its inputs allow. The channels before its
 * cursor hold enough tokens for its next firing and keep them (tokens only
 * arrive until that firing), so each (firing, input channel) pair is
 * checked once, and a wake-up that brings too few tokens costs one check.
 */
static int fire_actor(const struct acs_sdf_graph *g, int32_t a, struct exec_state *st)
{
  const int32_t *in = g->in_ch + g->in_off[a];
  int32_t nin = g->in_off[a + 1] - g->in_off[a];

  while (st->fired[a] < g->actors[a].total) {
    while (st->cursor[a] < nin) {
      int32_t c = in[st->cursor[a]];
      if (++st->steps % POLL_STEPS == 0 && acs_interrupt_pending())
        return ACS_EINTERRUPTED;
      if (have_tokens(g, c, st->fired) < acs_sdf_need(g, c, st->fired[a])) {
        st->block[a] = c;
        return ACS_OK;
      }
      st->cursor[a]++;
    }
    st->fired[a]++;
    st->cursor[a] = 0;
  }
  st->block[a] = -1;
  return ACS_OK;
}

/* Queues the consumers that wait on a channel out of a. */
static void wake_consumers(const struct acs_sdf_graph *g, int32_t a, struct exec_state *st,
                           int32_t head, int32_t *count)
{
  for (int32_t i = g->out_off[a]; i < g->out_off[a + 1]; i++) {
    int32_t c = g->out_ch[i], b = g->channels[c].dst;
    if (b >= 0 && !st->queued[b] && st->block[b] == c) {
      st->queue[(head + *count) % (g->nactors + 1)] = b;
      st->queued[b] = 1;
      (*count)++;
    }
  }
}

static int deadlock_report(const struct acs_sdf_graph *g, const struct exec_state *st,
                           struct acs_diag *d)
{
  for (int32_t a = 0; a < g->nactors; a++) {
    int32_t c = st->block[a];
    if (st->fired[a] >= g->actors[a].total || c < 0)
      continue;
    return acs_diag_set(d, ACS_EPARSE, g->path, g->channels[c].line, 0,
                        "deadlock: actor '%s' stops after %lld of its %lld firings, waiting "
                        "for tokens on channel '%s' (it needs %lld, %lld arrive)",
                        g->actors[a].name, (long long)st->fired[a],
                        (long long)g->actors[a].total, g->channels[c].name,
                        (long long)acs_sdf_need(g, c, st->fired[a]),
                        (long long)have_tokens(g, c, st->fired));
  }
  return ACS_OK;
}

/*
 * Fires actors in a worklist order until none can fire: every actor once,
 * then an actor again only when a firing of its producer adds tokens to
 * the channel it waits on. Work is O(A + sum over channels of the firings
 * of both ends), which check_cost bounded. A run that stops short names a
 * blocked actor.
 */
static int deadlock_check(struct acs_sdf_graph *g, struct acs_diag *d)
{
  size_t n = (size_t)g->nactors + 1;
  struct exec_state st = {calloc(n, sizeof(int64_t)), calloc(n, sizeof(int32_t)),
                          malloc(n * sizeof(int32_t)), malloc(n * sizeof(int32_t)),
                          calloc(n, 1), 0};
  int32_t head = 0, count = 0;
  int err = ACS_OK;

  if (!st.fired || !st.cursor || !st.block || !st.queue || !st.queued) {
    err = ACS_ENOMEM;
    goto out_with_state;
  }
  for (int32_t a = 0; a < g->nactors; a++) {
    st.block[a] = -1;
    st.queue[count++] = a;
    st.queued[a] = 1;
  }
  while (count > 0 && err == ACS_OK) {
    int32_t a = st.queue[head];
    int64_t before = st.fired[a];
    head = (head + 1) % (g->nactors + 1);
    count--;
    st.queued[a] = 0;
    err = fire_actor(g, a, &st);
    if (err == ACS_OK && st.fired[a] > before)
      wake_consumers(g, a, &st, head, &count);
  }
  if (err == ACS_OK)
    err = deadlock_report(g, &st, d);
out_with_state:
  free(st.fired);
  free(st.cursor);
  free(st.block);
  free(st.queue);
  free(st.queued);
  return err;
}

/* Absorbed tokens make sense only where the consumer consumes. */
static int check_ports(const struct acs_sdf_graph *g, struct acs_diag *d)
{
  for (int32_t i = 0; i < g->nports; i++) {
    const struct acs_sdf_port *p = &g->ports[i];
    if (p->absorb > 0 && p->dir != ACS_SDF_IN)
      return acs_diag_set(d, ACS_EPARSE, g->path, p->line, 0,
                          "port '%s' of actor '%s': only input ports absorb tokens", p->name,
                          g->actors[p->actor].name);
  }
  for (int32_t c = 0; c < g->nchannels; c++) {
    const struct acs_sdf_channel *ch = &g->channels[c];
    if (ch->src < 0 && ch->dst < 0)
      return acs_diag_set(d, ACS_EPARSE, g->path, ch->line, 0,
                          "channel '%s' connects no actor", ch->name);
    if (ch->token_bytes == 0)
      return acs_diag_set(d, ACS_EPARSE, g->path, ch->line, 0,
                          "channel '%s': token size must be at least 1 byte", ch->name);
  }
  return ACS_OK;
}

int acs_sdf_finalize(struct acs_sdf_graph *g, struct acs_diag *d)
{
  int err;

  if (g->nactors == 0)
    return acs_diag_set(d, ACS_EPARSE, g->path, 0, 0, "the graph has no actors");
  if ((err = add_ddr_channels(g, d)) < 0 || (err = check_ports(g, d)) < 0 ||
      (err = set_phases(g, d)) < 0 || (err = build_adjacency(g)) < 0 ||
      (err = repetition_vector(g, d)) < 0 || (err = run_totals(g, d)) < 0 ||
      (err = check_cost(g, d)) < 0 || (err = deadlock_check(g, d)) < 0)
    return err;
  g->finalized = 1;
  return ACS_OK;
}
