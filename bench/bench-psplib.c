/*
 * bench-psplib.c - quality of `list` on PSPLIB against known optima.
 *
 * usage: bench-psplib DATADIR
 *
 * DATADIR is the shared benchmark data directory (../shared/data). For each
 * configuration (priority rule, schedule generation scheme, forward-backward
 * rounds) it prints, over DATADIR/psplib/j30/ *.sm, the number of instances,
 * the average and maximum deviation from the proven optimum
 * (DATADIR/psplib/optima/j30opt.sm), how many were solved optimally and the
 * total time; then the same over DATADIR/psplib/j60 against the lower bounds
 * and the best known upper bounds (j60lb.sm: UB, LB). A makespan below a
 * proven optimum or lower bound would be a bug and is reported as such.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/benchutil.h"

struct instance {
  char path[1024];
  struct acs_graph g;
  struct acs_problem pb;
  int64_t ref, ub;   /* optimum (j30) or lower bound (j60); best known UB */
};

static int is_sm(const struct dirent *e)
{
  size_t n = strlen(e->d_name);
  return n > 3 && strcmp(e->d_name + n - 3, ".sm") == 0;
}

/* Loads every .sm of dir that has a row in the optima file. */
static int load_set(const char *dir, const char *optfile, int two_values,
                    struct instance **out, size_t *nout)
{
  struct bench_optima o;
  struct dirent **ents;
  struct acs_platform plat;
  int n;

  *out = NULL;
  *nout = 0;
  if (bench_optima_load(optfile, &o) != ACS_OK) {
    fprintf(stderr, "bench-psplib: cannot read %s\n", optfile);
    return -1;
  }
  n = scandir(dir, &ents, is_sm, alphasort);
  if (n <= 0) {
    fprintf(stderr, "bench-psplib: no .sm files in %s\n", dir);
    bench_optima_free(&o);
    return -1;
  }
  *out = calloc((size_t)n, sizeof(**out));
  acs_platform_init(&plat);
  for (int i = 0; i < n; i++) {
    struct instance *in = &(*out)[*nout];
    struct acs_diag d;
    long row;
    acs_diag_init(&d);
    snprintf(in->path, sizeof(in->path), "%s/%s", dir, ents[i]->d_name);
    free(ents[i]);
    row = bench_optima_find(&o, in->path);
    if (!*out || row < 0)
      continue;
    if (acs_psplib_load(in->path, &in->g, &d) != ACS_OK ||
        acs_problem_init(&in->pb, &in->g, &plat, &d) != ACS_OK) {
      fprintf(stderr, "bench-psplib: %s: %s\n", in->path, d.msg);
      continue;
    }
    in->ref = two_values ? o.v2[row] : o.v1[row];
    in->ub = o.v1[row];
    (*nout)++;
  }
  free(ents);
  bench_optima_free(&o);
  return *out ? 0 : -1;
}

static void free_set(struct instance *set, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    acs_problem_destroy(&set[i].pb);
    acs_graph_destroy(&set[i].g);
  }
  free(set);
}

/* One configuration over one set; returns the average deviation or -1. */
static double run_config(struct instance *set, size_t n, const char *const *sets,
                         const char *label, int with_ub)
{
  double sum = 0, max = 0, sum_ub = 0, secs = 0;
  size_t nopt = 0, bugs = 0;

  for (size_t i = 0; i < n; i++) {
    struct acs_schedule s;
    struct acs_diag d;
    double t = 0, dev;
    acs_diag_init(&d);
    if (bench_run("list", &set[i].pb, sets, &s, &t, &d) != ACS_OK ||
        acs_schedule_verify(&s, &d) != ACS_OK) {
      fprintf(stderr, "bench-psplib: %s: %s: %s\n", label, set[i].path, d.msg);
      acs_schedule_destroy(&s);
      return -1;
    }
    secs += t;
    if (s.makespan < set[i].ref)
      bugs++;
    dev = 100.0 * (double)(s.makespan - set[i].ref) / (double)set[i].ref;
    sum += dev;
    if (dev > max)
      max = dev;
    nopt += s.makespan == set[i].ref;
    sum_ub += 100.0 * (double)(s.makespan - set[i].ub) / (double)set[i].ub;
    acs_schedule_destroy(&s);
  }
  printf("%-34s %4zu %8.2f %8.2f %6zu", label, n, sum / (double)n, max, nopt);
  if (with_ub)
    printf(" %9.2f", sum_ub / (double)n);
  printf(" %9.4f%s\n", secs, bugs ? "  BELOW THE REFERENCE: BUG" : "");
  return sum / (double)n;
}

static const char *const rules[] = { "topo", "lpath", "lft", "mts" };
static const char *const sgs[] = { "parallel", "serial" };
static const char *const rounds[] = { "0", "1", "2", "3", "5", "10" };

static void run_all(struct instance *set, size_t n, int with_ub)
{
  for (size_t r = 0; r < 4; r++)
    for (size_t s = 0; s < 2; s++)
      for (size_t j = 0; j < sizeof(rounds) / sizeof(rounds[0]); j++) {
        char a[32], b[32], c[32], label[96];
        const char *sets[] = { a, b, c, NULL };
        snprintf(a, sizeof(a), "rule=%s", rules[r]);
        snprintf(b, sizeof(b), "sgs=%s", sgs[s]);
        snprintf(c, sizeof(c), "justify=%s", rounds[j]);
        snprintf(label, sizeof(label), "%s %s %s", a, b, c);
        run_config(set, n, sets, label, with_ub);
      }
  run_config(set, n, NULL, "(defaults)", with_ub);
}

int main(int argc, char **argv)
{
  char dir[2048], opt[2048];
  struct instance *set;
  size_t n;

  if (argc != 2) {
    fprintf(stderr, "usage: bench-psplib DATADIR (the shared data directory)\n");
    return 2;
  }
  snprintf(dir, sizeof(dir), "%s/psplib/j30", argv[1]);
  snprintf(opt, sizeof(opt), "%s/psplib/optima/j30opt.sm", argv[1]);
  if (load_set(dir, opt, 0, &set, &n) != 0)
    return 2;
  printf("# j30 (%s): deviation from the proven optimum, %%\n", dir);
  printf("%-34s %4s %8s %8s %6s %9s\n", "configuration", "n", "avg_dev", "max_dev", "opt", "time_s");
  run_all(set, n, 0);
  free_set(set, n);

  snprintf(dir, sizeof(dir), "%s/psplib/j60", argv[1]);
  snprintf(opt, sizeof(opt), "%s/psplib/optima/j60lb.sm", argv[1]);
  if (load_set(dir, opt, 1, &set, &n) != 0)
    return 2;
  printf("\n# j60 (%s): deviation from the lower bound (and from the best known UB), %%\n", dir);
  printf("%-34s %4s %8s %8s %6s %9s %9s\n", "configuration", "n", "avg_lb", "max_lb", "=lb",
         "avg_ub", "time_s");
  run_all(set, n, 1);
  free_set(set, n);
  return 0;
}
