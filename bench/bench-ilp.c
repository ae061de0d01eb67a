/*
 * bench-ilp.c - near-optimal and optimal schedules on PSPLIB j30 against the
 * proven optima (the figures of `acsim validate`).
 *
 * usage: bench-ilp DATADIR [SECONDS]
 *
 * DATADIR is the shared data directory (../shared/data). Prints, over
 * DATADIR/psplib/j30/ *.sm against DATADIR/psplib/optima/j30opt.sm:
 *  - `list` with iterations = 0, 100, 1000: average and maximum deviation
 *    from the optimum, instances at the optimum, time;
 *  - `ilp` with a limit of SECONDS (default 10) per instance: instances
 *    proven optimal, wrong claims (ok away from the optimum: must be 0),
 *    runs below the optimum (must be 0), the average gap reported by the
 *    unproven ones (makespan over their proven lower bound) and time.
 * Figures, not a test; about 96 x SECONDS at most.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"
#include "core/load/optima.h"

struct inst {
  char path[2400];
  struct acs_graph g;
  struct acs_problem pb;
  int64_t opt;
};

static int is_sm(const struct dirent *e)
{
  size_t n = strlen(e->d_name);
  return n > 3 && strcmp(e->d_name + n - 3, ".sm") == 0;
}

static struct inst *load_set(const char *datadir, size_t *n)
{
  char dir[2048], table[2048];
  struct acs_optima o;
  struct acs_platform plat;
  struct acs_diag d;
  struct dirent **ents;
  struct inst *set;
  int k;

  snprintf(dir, sizeof(dir), "%s/psplib/j30", datadir);
  snprintf(table, sizeof(table), "%s/psplib/optima/j30opt.sm", datadir);
  acs_optima_init(&o);
  acs_diag_init(&d);
  if (acs_optima_load_psplib(table, &o, &d) != ACS_OK) {
    fprintf(stderr, "bench-ilp: %s\n", d.msg);
    return NULL;
  }
  k = scandir(dir, &ents, is_sm, alphasort);
  set = calloc(k > 0 ? (size_t)k : 1, sizeof(*set));
  *n = 0;
  acs_platform_init(&plat);
  for (int i = 0; i < k; i++) {
    struct inst *in = &set[*n];
    const struct acs_optimum *e;
    int32_t grp, num;
    snprintf(in->path, sizeof(in->path), "%s/%s", dir, ents[i]->d_name);
    free(ents[i]);
    if (!set || acs_optima_psplib_name(in->path, "j30", &grp, &num) < 0 ||
        !(e = acs_optima_find_psplib(&o, grp, num)) ||
        acs_psplib_load(in->path, &in->g, &d) != ACS_OK)
      continue;
    if (acs_problem_init(&in->pb, &in->g, &plat, &d) != ACS_OK) {
      acs_graph_destroy(&in->g);
      continue;
    }
    in->opt = e->lower;
    (*n)++;
  }
  if (k > 0)
    free(ents);
  acs_optima_free(&o);
  if (*n == 0) {
    fprintf(stderr, "bench-ilp: no j30 instances with optima under %s\n", dir);
    free(set);
    return NULL;
  }
  return set;
}

/* Runs variant name with settings and a time limit. */
static int run(const char *name, const struct acs_problem *pb, const char *const *sets,
               double limit, struct acs_schedule *out, double *secs, struct acs_diag *d)
{
  const struct acs_sched_ops *ops = acs_sched_find(name);
  struct acs_sched_ctx ctx = { 1, limit, NULL, NULL, 0 };
  void *opts = calloc(1, ops->opts_size + 1);
  double t0;
  int err = opts ? acs_sched_opts_defaults(ops, opts) : ACS_ENOMEM;

  for (; err == ACS_OK && sets && *sets; sets++) {
    char key[64];
    const char *eq = strchr(*sets, '=');
    snprintf(key, sizeof(key), "%.*s", (int)(eq - *sets), *sets);
    err = acs_sched_opts_set(ops, opts, key, eq + 1, d);
  }
  if (err == ACS_OK)
    err = acs_schedule_init_problem(out, pb);
  t0 = acs_now_seconds();
  if (err == ACS_OK)
    err = ops->schedule(pb, opts, &ctx, out, d);
  *secs = acs_now_seconds() - t0;
  free(opts);
  return err;
}

static void bench_list(struct inst *set, size_t n, const char *iters)
{
  char opt[64];
  const char *sets[] = { opt, NULL };
  double sum = 0, max = 0, secs = 0;
  size_t at = 0, bugs = 0;

  snprintf(opt, sizeof(opt), "iterations=%s", iters);
  for (size_t i = 0; i < n; i++) {
    struct acs_schedule s;
    struct acs_diag d;
    double t, dev;
    acs_diag_init(&d);
    if (run("list", &set[i].pb, sets, 0, &s, &t, &d) != ACS_OK ||
        acs_schedule_verify(&s, &d) != ACS_OK) {
      fprintf(stderr, "bench-ilp: list: %s: %s\n", set[i].path, d.msg);
      acs_schedule_destroy(&s);
      return;
    }
    dev = 100.0 * (double)(s.makespan - set[i].opt) / (double)set[i].opt;
    sum += dev;
    max = dev > max ? dev : max;
    at += s.makespan == set[i].opt;
    bugs += s.makespan < set[i].opt;
    secs += t;
    acs_schedule_destroy(&s);
  }
  printf("list iterations=%-6s %4zu %8.2f %8.2f %6zu %9.2f%s\n", iters, n, sum / (double)n, max,
         at, secs, bugs ? "  BELOW THE OPTIMUM: BUG" : "");
}

/* The lower bound an unproven ilp run states ("lower bound N"). */
static long long stated_bound(const char *msg)
{
  const char *p = strstr(msg, "lower bound ");
  long long v = -1;

  if (p)
    sscanf(p + 12, "%lld", &v);
  return v;
}

static void bench_ilp(struct inst *set, size_t n, double limit)
{
  double secs = 0, gap = 0;
  size_t proven = 0, wrong = 0, below = 0, unproven = 0, at = 0;

  for (size_t i = 0; i < n; i++) {
    struct acs_schedule s;
    struct acs_diag d;
    double t;
    int err;
    acs_diag_init(&d);
    err = run("ilp", &set[i].pb, NULL, limit, &s, &t, &d);
    if ((err != ACS_OK && err != ACS_ETIMEOUT) || acs_schedule_verify(&s, &d) != ACS_OK) {
      fprintf(stderr, "bench-ilp: ilp: %s: %s\n", set[i].path, d.msg);
      acs_schedule_destroy(&s);
      continue;
    }
    secs += t;
    at += s.makespan == set[i].opt;
    below += s.makespan < set[i].opt;
    if (err == ACS_OK) {
      proven++;
      wrong += s.makespan != set[i].opt;
    } else {
      long long lb = stated_bound(d.msg);
      unproven++;
      if (lb > 0)
        gap += 100.0 * (double)(s.makespan - lb) / (double)lb;
      if (lb > set[i].opt)
        wrong++; /* a stated bound above the optimum is a wrong claim too */
    }
    acs_schedule_destroy(&s);
  }
  printf("ilp limit=%gs           %4zu proven %zu, at optimum %zu, wrong claims %zu, below %zu, "
         "unproven %zu with average stated gap %.2f%%, %.1f s\n",
         limit, n, proven, at, wrong, below, unproven, unproven ? gap / (double)unproven : 0.0,
         secs);
}

int main(int argc, char **argv)
{
  struct inst *set;
  size_t n;
  double limit = argc > 2 ? atof(argv[2]) : 10.0;

  if (argc < 2 || argc > 3 || !(limit > 0)) {
    fprintf(stderr, "usage: bench-ilp DATADIR [SECONDS]\n");
    return 2;
  }
  set = load_set(argv[1], &n);
  if (!set)
    return 2;
  printf("# j30 (%s/psplib/j30): deviation from the proven optimum, %%\n", argv[1]);
  printf("%-22s %4s %8s %8s %6s %9s\n", "configuration", "n", "avg_dev", "max_dev", "opt",
         "time_s");
  bench_list(set, n, "0");
  bench_list(set, n, "100");
  bench_list(set, n, "1000");
  bench_ilp(set, n, limit);
  for (size_t i = 0; i < n; i++) {
    acs_problem_destroy(&set[i].pb);
    acs_graph_destroy(&set[i].g);
  }
  free(set);
  return 0;
}
