/*
 * sdf_thr.c - maximal throughput of (C)SDF graphs by two independent
 * methods (see acs_sdf_throughput_* in sdf.h).
 *
 * Semantics (SDF3's): actors fire self-timed, as soon as their tokens are
 * there, auto-concurrently unless a self-edge limits them; a firing consumes
 * its tokens when it starts and produces when it ends; buffers are
 * unbounded; DDR channels (graph inputs and outputs) never limit anything;
 * rates repeat periodically (absorbed tokens, an acsim extension for whole
 * runs, play no part in the steady state).
 *
 * 1. Self-timed execution of each strongly connected component until its
 *    state (tokens, phases, remaining times of active firings) recurs; the
 *    recurrent part gives iterations per cycle. Components without a cycle
 *    do not limit the throughput; the graph's is the slowest component's,
 *    scaled by how many component iterations one graph iteration needs.
 * 2. The maximum cycle ratio of the homogeneous (HSDF) expansion of one
 *    graph iteration, with initial tokens as delays counted in iterations:
 *    throughput = 1 / MCR. It is found exactly by cycle improvement (as in
 *    Lawler's method): Bellman-Ford finds a cycle whose ratio beats the
 *    current one (weights w - ratio * delay, compared exactly in integers),
 *    until none does.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/sdf.h"

/* ---- 1. self-timed state space ---- */

struct st {
  const struct acs_sdf_graph *g;
  int32_t n;             /* actors of the component */
  int32_t *act;          /* component actors */
  int32_t *pos;          /* actor -> index in act, -1 outside */
  int32_t nch, *ch;      /* internal channels */
  int64_t *tok;          /* tokens per internal channel */
  int64_t *phase;        /* next firing's phase per actor */
  int64_t *fired;        /* firings started per actor */
  /* active firings: actor index, phase, remaining time */
  int32_t na, cap;
  int32_t *fa;
  int64_t *fp, *fr;
};

static int st_enabled(const struct st *s, int32_t i)
{
  const struct acs_sdf_graph *g = s->g;
  int32_t a = s->act[i];
  int64_t ph = s->phase[i];

  for (int32_t k = 0; k < s->nch; k++) {
    const struct acs_sdf_channel *c = &g->channels[s->ch[k]];
    if (c->dst == a && s->tok[k] < acs_sdf_seq_at(&g->ports[c->dport].rate, ph))
      return 0;
  }
  return 1;
}

static int st_start(struct st *s, int32_t i)
{
  const struct acs_sdf_graph *g = s->g;
  int32_t a = s->act[i];
  int64_t ph = s->phase[i];

  for (int32_t k = 0; k < s->nch; k++) {
    const struct acs_sdf_channel *c = &g->channels[s->ch[k]];
    if (c->dst == a)
      s->tok[k] -= acs_sdf_seq_at(&g->ports[c->dport].rate, ph);
  }
  if (s->na == s->cap) {
    int32_t nc = s->cap ? 2 * s->cap : 16;
    int32_t *fa = realloc(s->fa, (size_t)nc * sizeof(*fa));
    int64_t *fp, *fr;
    if (!fa)
      return ACS_ENOMEM;
    s->fa = fa;
    if (!(fp = realloc(s->fp, (size_t)nc * sizeof(*fp))))
      return ACS_ENOMEM;
    s->fp = fp;
    if (!(fr = realloc(s->fr, (size_t)nc * sizeof(*fr))))
      return ACS_ENOMEM;
    s->fr = fr;
    s->cap = nc;
  }
  s->fa[s->na] = i;
  s->fp[s->na] = ph;
  s->fr[s->na] = acs_sdf_seq_at(&g->actors[a].exec, ph);
  s->na++;
  s->phase[i] = (ph + 1) % g->actors[a].nphases;
  s->fired[i]++;
  return ACS_OK;
}

static void st_end(struct st *s, int32_t f)
{
  const struct acs_sdf_graph *g = s->g;
  int32_t a = s->act[s->fa[f]];

  for (int32_t k = 0; k < s->nch; k++) {
    const struct acs_sdf_channel *c = &g->channels[s->ch[k]];
    if (c->src == a)
      s->tok[k] += acs_sdf_seq_at(&g->ports[c->sport].rate, s->fp[f]);
  }
  s->na--;
  s->fa[f] = s->fa[s->na];
  s->fp[f] = s->fp[s->na];
  s->fr[f] = s->fr[s->na];
}

/* The state as a canonical vector: tokens, phases, then active firings
 * sorted by (actor, phase, remaining). */
static int64_t *st_key(struct st *s, size_t *len)
{
  size_t n = (size_t)s->nch + (size_t)s->n + 1 + 3 * (size_t)s->na;
  int64_t *k = malloc((n + 1) * sizeof(*k)), *p;

  if (!k)
    return NULL;
  /* Insertion sort of the active firings (a handful). */
  for (int32_t i = 1; i < s->na; i++)
    for (int32_t j = i; j > 0; j--) {
      int64_t a0 = s->fa[j - 1], a1 = s->fa[j];
      if (a0 < a1 || (a0 == a1 && (s->fp[j - 1] < s->fp[j] ||
                                   (s->fp[j - 1] == s->fp[j] && s->fr[j - 1] <= s->fr[j]))))
        break;
      int32_t ta = s->fa[j];
      int64_t tp = s->fp[j], tr = s->fr[j];
      s->fa[j] = s->fa[j - 1];
      s->fp[j] = s->fp[j - 1];
      s->fr[j] = s->fr[j - 1];
      s->fa[j - 1] = ta;
      s->fp[j - 1] = tp;
      s->fr[j - 1] = tr;
    }
  p = k;
  memcpy(p, s->tok, (size_t)s->nch * sizeof(*p));
  p += s->nch;
  memcpy(p, s->phase, (size_t)s->n * sizeof(*p));
  p += s->n;
  *p++ = s->na;
  for (int32_t i = 0; i < s->na; i++) {
    *p++ = s->fa[i];
    *p++ = s->fp[i];
    *p++ = s->fr[i];
  }
  *len = n;
  return k;
}

struct seen {
  size_t cap, n;
  uint64_t *h;
  int64_t **key;
  size_t *len;
  int64_t *t, *f;
};

static uint64_t hash_key(const int64_t *k, size_t n)
{
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= (uint64_t)k[i];
    h *= 1099511628211ull;
  }
  return h;
}

static void seen_free(struct seen *s)
{
  for (size_t i = 0; i < s->cap; i++)
    free(s->key[i]);
  free(s->h);
  free(s->key);
  free(s->len);
  free(s->t);
  free(s->f);
  memset(s, 0, sizeof(*s));
}

static size_t seen_slot(const struct seen *s, uint64_t h, const int64_t *k, size_t n)
{
  size_t i = (size_t)h & (s->cap - 1);

  while (s->key[i] && !(s->h[i] == h && s->len[i] == n && memcmp(s->key[i], k, n * sizeof(*k)) == 0))
    i = (i + 1) & (s->cap - 1);
  return i;
}

static int seen_grow(struct seen *s)
{
  struct seen nw;
  size_t cap = s->cap ? 2 * s->cap : 1024;

  memset(&nw, 0, sizeof(nw));
  nw.cap = cap;
  nw.h = calloc(cap, sizeof(*nw.h));
  nw.key = calloc(cap, sizeof(*nw.key));
  nw.len = calloc(cap, sizeof(*nw.len));
  nw.t = calloc(cap, sizeof(*nw.t));
  nw.f = calloc(cap, sizeof(*nw.f));
  if (!nw.h || !nw.key || !nw.len || !nw.t || !nw.f) {
    seen_free(&nw);
    return ACS_ENOMEM;
  }
  for (size_t i = 0; i < s->cap; i++)
    if (s->key[i]) {
      size_t j = seen_slot(&nw, s->h[i], s->key[i], s->len[i]);
      nw.h[j] = s->h[i];
      nw.key[j] = s->key[i];
      nw.len[j] = s->len[i];
      nw.t[j] = s->t[i];
      nw.f[j] = s->f[i];
      s->key[i] = NULL;
      nw.n++;
    }
  seen_free(s);
  *s = nw;
  return ACS_OK;
}

/*
 * Runs component s until a state recurs. *iters / *cycles is its
 * throughput in firings of act[0]; *dead = 1 when it deadlocks.
 */
static int st_run(struct st *s, int64_t limit, int64_t *firings, int64_t *cycles, int *dead)
{
  struct seen seen;
  int64_t t = 0;
  int err = ACS_OK;

  memset(&seen, 0, sizeof(seen));
  *dead = 0;
  for (int64_t step = 0;; step++) {
    int64_t *key, dt = INT64_MAX;
    size_t len, slot;
    uint64_t h;
    for (int progress = 1; progress;) {
      progress = 0;
      for (int32_t i = 0; i < s->n; i++)
        while (st_enabled(s, i)) {
          if ((err = st_start(s, i)) < 0)
            goto out_with_seen;
          progress = 1;
          if (s->na > 1000000) {
            err = ACS_ERANGE;
            goto out_with_seen;
          }
        }
      /* Zero-time firings end at once. */
      for (int32_t f = 0; f < s->na; f++)
        if (s->fr[f] == 0) {
          st_end(s, f--);
          progress = 1;
        }
    }
    if (s->na == 0) {
      *dead = 1;
      break;
    }
    if (step >= limit) {
      err = ACS_ERANGE;
      break;
    }
    if (!(key = st_key(s, &len))) {
      err = ACS_ENOMEM;
      break;
    }
    h = hash_key(key, len);
    if (seen.cap && seen.key[slot = seen_slot(&seen, h, key, len)]) {
      *firings = s->fired[0] - seen.f[slot];
      *cycles = t - seen.t[slot];
      free(key);
      break;
    }
    if ((seen.n + 1) * 2 > seen.cap && (err = seen_grow(&seen)) < 0) {
      free(key);
      break;
    }
    slot = seen_slot(&seen, h, key, len);
    seen.key[slot] = key;
    seen.h[slot] = h;
    seen.len[slot] = len;
    seen.t[slot] = t;
    seen.f[slot] = s->fired[0];
    seen.n++;
    for (int32_t f = 0; f < s->na; f++)
      if (s->fr[f] < dt)
        dt = s->fr[f];
    t += dt;
    for (int32_t f = 0; f < s->na; f++)
      s->fr[f] -= dt;
    for (int32_t f = 0; f < s->na; f++)
      if (s->fr[f] == 0)
        st_end(s, f--);
  }
out_with_seen:
  seen_free(&seen);
  return err;
}

/* Strongly connected components by repeated reachability (graphs of SDF3
 * size); comp[a] = smallest actor of a's component. O(A (A + C)). */
static int components(const struct acs_sdf_graph *g, int32_t *comp)
{
  int32_t n = g->nactors;
  char *fw = malloc((size_t)n + 1), *bw = malloc((size_t)n + 1);
  int32_t *stack = malloc(((size_t)n + 1) * sizeof(int32_t));

  if (!fw || !bw || !stack) {
    free(fw);
    free(bw);
    free(stack);
    return ACS_ENOMEM;
  }
  for (int32_t a = 0; a < n; a++)
    comp[a] = -1;
  for (int32_t r = 0; r < n; r++) {
    if (comp[r] >= 0)
      continue;
    for (int dir = 0; dir < 2; dir++) {
      char *m = dir ? bw : fw;
      int32_t top = 0;
      memset(m, 0, (size_t)n);
      m[r] = 1;
      stack[top++] = r;
      while (top > 0) {
        int32_t v = stack[--top];
        const int32_t *off = dir ? g->in_off : g->out_off, *ch = dir ? g->in_ch : g->out_ch;
        for (int32_t k = off[v]; k < off[v + 1]; k++) {
          const struct acs_sdf_channel *c = &g->channels[ch[k]];
          int32_t w = dir ? c->src : c->dst;
          if (w >= 0 && !m[w]) {
            m[w] = 1;
            stack[top++] = w;
          }
        }
      }
    }
    for (int32_t a = 0; a < n; a++)
      if (fw[a] && bw[a])
        comp[a] = r;
  }
  free(fw);
  free(bw);
  free(stack);
  return ACS_OK;
}

/* Whether the component of root has a cycle (two actors, or a self-edge). */
static int has_cycle(const struct acs_sdf_graph *g, const int32_t *comp, int32_t root)
{
  int32_t members = 0;

  for (int32_t a = 0; a < g->nactors; a++)
    members += comp[a] == root;
  if (members > 1)
    return 1;
  for (int32_t c = 0; c < g->nchannels; c++)
    if (g->channels[c].src == root && g->channels[c].dst == root)
      return 1;
  return 0;
}

static int selftimed_component(const struct acs_sdf_graph *g, const int32_t *comp, int32_t root,
                               int64_t limit, double *thr, int *dead)
{
  struct st s;
  int64_t firings = 0, cycles = 0;
  int err = ACS_ENOMEM;

  memset(&s, 0, sizeof(s));
  s.g = g;
  s.act = malloc(((size_t)g->nactors + 1) * sizeof(int32_t));
  s.ch = malloc(((size_t)g->nchannels + 1) * sizeof(int32_t));
  s.tok = calloc((size_t)g->nchannels + 1, sizeof(int64_t));
  s.phase = calloc((size_t)g->nactors + 1, sizeof(int64_t));
  s.fired = calloc((size_t)g->nactors + 1, sizeof(int64_t));
  if (!s.act || !s.ch || !s.tok || !s.phase || !s.fired)
    goto out_with_state;
  for (int32_t a = 0; a < g->nactors; a++)
    if (comp[a] == root)
      s.act[s.n++] = a;
  for (int32_t c = 0; c < g->nchannels; c++) {
    const struct acs_sdf_channel *cc = &g->channels[c];
    if (cc->src >= 0 && cc->dst >= 0 && comp[cc->src] == root && comp[cc->dst] == root) {
      s.tok[s.nch] = cc->d0;
      s.ch[s.nch++] = c;
    }
  }
  if ((err = st_run(&s, limit, &firings, &cycles, dead)) < 0 || *dead)
    goto out_with_state;
  /* Graph iterations per cycle: a graph iteration fires act[0] q times. */
  *thr = cycles > 0 ? (double)firings / (double)g->actors[s.act[0]].q / (double)cycles : 0;
out_with_state:
  free(s.act);
  free(s.ch);
  free(s.tok);
  free(s.phase);
  free(s.fired);
  free(s.fa);
  free(s.fp);
  free(s.fr);
  return err;
}

int acs_sdf_throughput_selftimed(const struct acs_sdf_graph *g, int64_t limit, double *thr,
                                 int *unbounded, struct acs_diag *d)
{
  int32_t *comp = malloc(((size_t)g->nactors + 1) * sizeof(int32_t));
  int err;

  *thr = 0;
  *unbounded = 1;
  if (!comp)
    return ACS_ENOMEM;
  if ((err = components(g, comp)) < 0)
    goto out_with_comp;
  for (int32_t r = 0; r < g->nactors; r++) {
    double t;
    int dead;
    if (comp[r] != r || !has_cycle(g, comp, r))
      continue;
    if ((err = selftimed_component(g, comp, r, limit, &t, &dead)) < 0) {
      if (err == ACS_ERANGE)
        acs_diag_set(d, err, g->path, 0, 0, "the self-timed state space of the component of "
                     "'%s' exceeds %lld states", g->actors[r].name, (long long)limit);
      goto out_with_comp;
    }
    if (dead)
      t = 0;
    if (*unbounded || t < *thr)
      *thr = t;
    *unbounded = 0;
  }
  err = ACS_OK;
out_with_comp:
  free(comp);
  return err;
}

/* ---- 2. maximum cycle ratio of the HSDF expansion ---- */

struct hedge {
  int32_t u, v;
  int64_t w;             /* execution time of u */
  int64_t d;             /* delay in iterations */
};

/* One HSDF edge per (consumer firing, distinct producing firing and
 * iteration) of one iteration; tokens are taken per phase rates. */
static int expand(const struct acs_sdf_graph *g, int64_t limit, struct hedge **out, int32_t *ne,
                  int64_t *base, int32_t *nv)
{
  size_t cap = 0;
  *ne = 0;
  *out = NULL;
  base[0] = 0;
  for (int32_t a = 0; a < g->nactors; a++)
    base[a + 1] = base[a] + g->actors[a].q;
  if (base[g->nactors] > limit || base[g->nactors] > INT32_MAX)
    return ACS_ERANGE;
  *nv = (int32_t)base[g->nactors];
  for (int32_t c = 0; c < g->nchannels; c++) {
    const struct acs_sdf_channel *ch = &g->channels[c];
    const struct acs_sdf_seq *pr, *cr;
    int64_t per_it;
    if (ch->src < 0 || ch->dst < 0)
      continue;
    pr = &g->ports[ch->sport].rate;
    cr = &g->ports[ch->dport].rate;
    per_it = acs_sdf_seq_cum(pr, g->actors[ch->src].q);
    if (per_it == 0)
      continue;
    for (int64_t k = 0; k < g->actors[ch->dst].q; k++) {
      int64_t lo = acs_sdf_seq_cum(cr, k), hi = acs_sdf_seq_cum(cr, k + 1), last_f = -1, last_it = 1;
      for (int64_t j = lo; j < hi; j++) {
        int64_t jp = j - ch->d0, it, r, f, a, b;
        it = jp >= 0 ? jp / per_it : -((-jp + per_it - 1) / per_it);
        r = jp - it * per_it;
        /* Producer firing within its iteration: smallest f with cum(f+1) > r. */
        a = 0;
        b = g->actors[ch->src].q - 1;
        while (a < b) {
          int64_t m = (a + b) / 2;
          if (acs_sdf_seq_cum(pr, m + 1) > r)
            b = m;
          else
            a = m + 1;
        }
        f = a;
        if (f == last_f && it == last_it)
          continue;
        last_f = f;
        last_it = it;
        if ((size_t)*ne == cap) {
          struct hedge *n2;
          cap = cap ? 2 * cap : 1024;
          if ((int64_t)cap > 4 * limit)
            return ACS_ERANGE;
          if (!(n2 = realloc(*out, cap * sizeof(*n2))))
            return ACS_ENOMEM;
          *out = n2;
        }
        (*out)[(*ne)++] = (struct hedge){ (int32_t)(base[ch->src] + f), (int32_t)(base[ch->dst] + k),
                                          acs_sdf_exec(g, ch->src, f), -it };
      }
    }
  }
  return ACS_OK;
}

/*
 * A cycle with sum(w) * den - sum(d) * num > 0, i.e. ratio above num/den,
 * by Bellman-Ford on the longest-path form; its ratio in *cn / *cd.
 * Returns 1 found, 0 none, < 0 error. O(V E).
 */
static int better_cycle(const struct hedge *e, int32_t ne, int32_t nv, int64_t num, int64_t den,
                        int64_t *cn, int64_t *cd)
{
  __int128 *dist = calloc((size_t)nv + 1, sizeof(*dist));
  int32_t *pred = malloc(((size_t)nv + 1) * sizeof(*pred)), x = -1;
  int rc = 0;

  if (!dist || !pred) {
    rc = ACS_ENOMEM;
    goto out_with_arrays;
  }
  for (int32_t v = 0; v < nv; v++)
    pred[v] = -1;
  for (int32_t it = 0; it <= nv; it++) {
    x = -1;
    for (int32_t i = 0; i < ne; i++) {
      __int128 cand = dist[e[i].u] + (__int128)e[i].w * den - (__int128)e[i].d * num;
      if (cand > dist[e[i].v]) {
        dist[e[i].v] = cand;
        pred[e[i].v] = i;
        x = e[i].v;
      }
    }
    if (x < 0)
      break;
  }
  if (x < 0)
    goto out_with_arrays;
  /* Walk back nv steps to land on the cycle, then collect it. */
  for (int32_t i = 0; i < nv; i++)
    x = e[pred[x]].u;
  {
    int64_t sw = 0, sd = 0;
    int32_t v = x;
    do {
      const struct hedge *h = &e[pred[v]];
      sw += h->w;
      sd += h->d;
      v = h->u;
    } while (v != x);
    *cn = sw;
    *cd = sd;
  }
  rc = 1;
out_with_arrays:
  free(dist);
  free(pred);
  return rc;
}

int acs_sdf_throughput_mcr(const struct acs_sdf_graph *g, int64_t limit, double *thr,
                           int *unbounded, struct acs_diag *d)
{
  int64_t *base = malloc(((size_t)g->nactors + 2) * sizeof(int64_t)), num = 0, den = 1;
  struct hedge *e = NULL;
  int32_t ne = 0, nv = 0;
  int err, found = 0;

  *thr = 0;
  *unbounded = 1;
  if (!base)
    return ACS_ENOMEM;
  if ((err = expand(g, limit, &e, &ne, base, &nv)) < 0) {
    if (err == ACS_ERANGE)
      acs_diag_set(d, err, g->path, 0, 0, "the HSDF expansion exceeds %lld firings",
                   (long long)limit);
    goto out_with_graph;
  }
  /* Start below every ratio: any cycle at all beats -1/1 (weights >= 0). */
  num = -1;
  den = 1;
  for (int64_t round = 0; round < 100000; round++) {
    int64_t cn, cd;
    int rc = better_cycle(e, ne, nv, num, den, &cn, &cd);
    if (rc < 0) {
      err = rc;
      goto out_with_graph;
    }
    if (rc == 0)
      break;
    found = 1;
    if (cd == 0) {   /* a cycle without tokens: deadlock, throughput 0 */
      *unbounded = 0;
      *thr = 0;
      goto out_with_graph;
    }
    {
      int64_t gg = acs_gcd64(cn, cd);
      num = cn / (gg ? gg : 1);
      den = cd / (gg ? gg : 1);
    }
  }
  if (found) {
    *unbounded = 0;
    *thr = num > 0 ? (double)den / (double)num : 0;
    if (num == 0)
      *unbounded = 1;
  }
  err = ACS_OK;
out_with_graph:
  free(base);
  free(e);
  return err;
}
