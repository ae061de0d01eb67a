/*
 * bench-modulo.c - the modulo scheduler over a set of loops (HatScheT /
 * Oppermann GraphML files), side by side with plain Rau IMS.
 *
 * usage: bench-modulo [--exact SEC] [--list] DIR...
 *
 * Every X.graphml under each DIR (recursively, sorted) is loaded with its
 * resource model and scheduled three ways, each result checked by the
 * independent modulo checker:
 *  - ref:     plain Rau IMS, HeightR priorities, budget 6 N, no arms, no
 *             restarts (the reference the issue quotes);
 *  - acsim:   the scheduler with its default options;
 *  - exact:   with --exact SEC, -O exact=1 with a time limit of SEC per
 *             loop: the minimum II proven, or a timeout.
 * It prints the time of each, how many loops reach II = MII, and how many
 * reach the optimum where it is known: II = MII is optimal by itself; other
 * optima are known only from the exact mode's proofs (II proven minimal). A
 * schedule the checker rejects is counted and reported: it must never
 * happen. With --list, one line per loop.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/load/load.h"
#include "core/sched/modulo/modulo_int.h"

struct loopres {
  char path[1024];
  int32_t ops;
  int64_t mii, ii_ref, ii, ii_exact;
  int exact_ok;             /* exact mode proved ii_exact minimal */
  double t_ref, t, t_exact;
  int bad;                  /* a checker rejection */
};

static int ends_with(const char *s, const char *suf)
{
  size_t n = strlen(s), k = strlen(suf);
  return n >= k && strcmp(s + n - k, suf) == 0;
}

static void collect(const char *dir, char ***out, size_t *n, size_t *cap)
{
  struct dirent **ents;
  int k = scandir(dir, &ents, NULL, alphasort);

  for (int i = 0; i < k; i++) {
    char path[1024];
    struct stat st;
    if (ents[i]->d_name[0] == '.') {
      free(ents[i]);
      continue;
    }
    snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
      collect(path, out, n, cap);
    else if (ends_with(path, ".graphml") && !ends_with(path, ".200MHz.graphml") &&
             acs_grow((void **)out, sizeof(**out), cap, *n + 1) == 0)
      (*out)[(*n)++] = strdup(path);
    free(ents[i]);
  }
  if (k >= 0)
    free(ents);
}

static void mopts_default(struct acs_mopts *o)
{
  memset(o, 0, sizeof(*o));
  o->budget = 6;
  o->restarts = 4;
  o->arms = 1;
  o->seed = 1;
}

/* Runs the search with o and checks the result; returns the II or -1. */
static int64_t run(const struct acs_msp *m, const struct acs_mopts *o, double *sec, int *bad,
                   int *proven, const char *path)
{
  struct acs_mresult r;
  struct acs_diag d;
  int64_t ii = -1;
  int err;

  acs_diag_init(&d);
  err = acs__modulo_search(m, o, &r, &d);
  *sec = r.seconds;
  if (err == ACS_OK) {
    ii = r.ii;
    if (proven)
      *proven = r.proven;
    acs_diag_init(&d);
    if (acs__modulo_check(m, r.ii, r.t, r.unit, &d) < 0) {
      fprintf(stderr, "bench-modulo: %s: CHECK FAILED (%s): %s\n", path, r.how, d.msg);
      *bad = 1;
    }
  } else {
    fprintf(stderr, "bench-modulo: %s: %s %s\n", path, acs_strerror(err), d.msg);
  }
  acs__mresult_free(&r);
  return ii;
}

int main(int argc, char **argv)
{
  char **paths = NULL;
  size_t n = 0, cap = 0;
  double exact_sec = 0;
  int list = 0, ndirs = 0;
  struct loopres *res;
  struct acs_platform plat;

  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--exact") == 0 && i + 1 < argc)
      exact_sec = atof(argv[++i]);
    else if (strcmp(argv[i], "--list") == 0)
      list = 1;
    else {
      collect(argv[i], &paths, &n, &cap);
      ndirs++;
    }
  }
  if (ndirs == 0 || n == 0) {
    fprintf(stderr, "usage: bench-modulo [--exact SEC] [--list] DIR...  (no .graphml found)\n");
    return 2;
  }
  res = calloc(n, sizeof(*res));
  acs_platform_init(&plat);
  for (size_t k = 0; k < n; k++) {
    struct loopres *x = &res[k];
    struct acs_workload *w;
    struct acs_loop_layout lay;
    struct acs_mopts o;
    struct acs_msp m;
    struct acs_mii mii;
    struct acs_diag d;

    snprintf(x->path, sizeof(x->path), "%s", paths[k]);
    x->ii = x->ii_ref = x->ii_exact = -1;
    acs_diag_init(&d);
    if (acs_workload_load(paths[k], &w, &d) < 0) {
      fprintf(stderr, "bench-modulo: %s\n", d.msg);
      x->bad = 1;
      continue;
    }
    acs_loop_layout_init(&lay, w->model, &plat);
    acs__msp_init(&m, w->model, lay.units);
    x->ops = m.n;
    acs__msp_mii(&m, &mii, NULL);
    x->mii = mii.mii;
    mopts_default(&o);
    o.arms = 0;
    o.restarts = 0;
    x->ii_ref = run(&m, &o, &x->t_ref, &x->bad, NULL, x->path);
    mopts_default(&o);
    x->ii = run(&m, &o, &x->t, &x->bad, NULL, x->path);
    if (exact_sec > 0) {
      mopts_default(&o);
      o.exact = 1;
      o.time_limit = exact_sec;
      x->ii_exact = run(&m, &o, &x->t_exact, &x->bad, &x->exact_ok, x->path);
    }
    if (list)
      printf("%-60s ops %5d mii %4lld ref %4lld acsim %4lld%s exact %4lld %s  %.3fs %.3fs %.2fs\n",
             x->path, (int)x->ops, (long long)x->mii, (long long)x->ii_ref, (long long)x->ii,
             x->ii == x->mii ? "=" : " ", (long long)x->ii_exact,
             exact_sec > 0 ? (x->exact_ok ? "proven" : "TIMEOUT") : "-", x->t_ref, x->t,
             x->t_exact);
    fflush(stdout);
    acs__msp_destroy(&m);
    acs_loop_layout_destroy(&lay);
    acs_workload_free(w);
  }
  {
    size_t at_mii_ref = 0, at_mii = 0, known = 0, opt_ref = 0, opt = 0, proven = 0, bad = 0;
    size_t unreach = 0;
    double t_ref = 0, t = 0, t_exact = 0, worst_exact = 0;
    for (size_t k = 0; k < n; k++) {
      const struct loopres *x = &res[k];
      int64_t optv = -1;
      bad += x->bad;
      t_ref += x->t_ref;
      t += x->t;
      t_exact += x->t_exact;
      if (x->t_exact > worst_exact)
        worst_exact = x->t_exact;
      at_mii_ref += x->ii_ref == x->mii;
      at_mii += x->ii == x->mii;
      if (x->ii == x->mii || x->ii_ref == x->mii)
        optv = x->mii;
      else if (x->exact_ok)
        optv = x->ii_exact;
      proven += x->exact_ok;
      if (optv < 0)
        continue;
      known++;
      unreach += optv > x->mii;
      opt_ref += x->ii_ref == optv;
      opt += x->ii == optv;
    }
    printf("loops: %zu in %d director%s; checker rejections: %zu\n", n, ndirs,
           ndirs == 1 ? "y" : "ies", bad);
    printf("%-28s %10s %10s %14s\n", "", "time_s", "II=MII", "II=optimum");
    printf("%-28s %10.2f %9.1f%% %8zu/%zu %5.1f%%\n", "plain IMS (budget 6N)", t_ref,
           100.0 * (double)at_mii_ref / (double)n, opt_ref, known,
           known ? 100.0 * (double)opt_ref / (double)known : 0.0);
    printf("%-28s %10.2f %9.1f%% %8zu/%zu %5.1f%%\n", "acsim modulo (defaults)", t,
           100.0 * (double)at_mii / (double)n, opt, known,
           known ? 100.0 * (double)opt / (double)known : 0.0);
    if (exact_sec > 0)
      printf("%-28s %10.2f proven %zu/%zu (%.1f%%) within %.0f s each, longest %.1f s; "
             "MII provably unreachable on %zu\n",
             "acsim modulo -O exact=1", t_exact, proven, n, 100.0 * (double)proven / (double)n,
             exact_sec, worst_exact, unreach);
    else
      printf("optimum known only where II = MII (run with --exact SEC for proofs)\n");
    for (size_t k = 0; k < n; k++)
      free(paths[k]);
    free(paths);
    free(res);
    return bad ? 1 : 0;
  }
}
