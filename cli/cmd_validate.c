/*
 * cmd_validate.c - `acsim validate psplib|stg DIR`: the chosen schedulers
 * over a benchmark set with known optima, and how far from them they are;
 * `acsim validate modulo DIR`: modulo scheduling over a set of loops, with
 * each loop's II against its lower bound MII.
 */
#include "config.h"

#include <dirent.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/job.h"
#include "core/load/optima.h"
#include "report/validation.h"

static const char validate_help[] =
  "usage: acsim validate psplib|stg|modulo DIR [-s SCHED,...|all] [-O opt=v]... [--set k=v]...\n"
  "                      [-o out.h5] [--time-limit SEC] [--time-step N] [--seed N]\n"
  "                      [--max K=N]... [-q] [-h]\n"
  "\n"
  "Runs the chosen schedulers (default list) over a benchmark set with known\n"
  "optima and prints, per set and scheduler: instances, average and maximum\n"
  "deviation from the optimum, how many runs reached it, how many proved it\n"
  "(an exact scheduler's `ok`, or a makespan equal to the lower bound), runs\n"
  "below it (a bug), timeouts, errors and the scheduling time. Schedules are\n"
  "verified, not simulated.\n"
  "\n"
  "  psplib DIR   PSPLIB .sm instances: DIR/<set>/*.sm with DIR/optima/<set>opt.sm\n"
  "               (or <set>lb.sm: UB and LB, <set>hrs.sm: best known), or\n"
  "               DIR/<set>*.sm with DIR/<set>opt.sm beside them\n"
  "  stg DIR      STG graphs DIR/<n>/*.stg with DIR/optimal/Case<n>_<p>_OPT.csv, run\n"
  "               on p processors for every p (or only --set pe_count=P)\n"
  "  modulo DIR   loops: every *.graphml under DIR (HatScheT files, each with its\n"
  "               resource model beside it), scheduled by modulo (the default -s):\n"
  "               per loop the MII parts, II, II/MII, stages, time and whether II is\n"
  "               proven minimal; then the share at II = MII, the mean II/MII and\n"
  "               the proven count (-O exact=1 --time-limit SEC proves the rest)\n"
  "  -s, --sched LIST      comma-separated schedulers, or all\n"
  "                        default: list; modulo for loops\n"
  "  -O, --option K=V      scheduler option for every selected scheduler that has it\n"
  "      --set K=V         override a platform parameter on every row\n"
  "                        (one row of built-in defaults: acsim platform --help)\n"
  "  -o, --output FILE     append every run to /runs and the figures to /validation\n"
  ACS_CLI_HELP_TIME_LIMIT
  ACS_CLI_HELP_TIME_STEP
  ACS_CLI_HELP_SEED_MAX_QUIET
  "\n"
  "Where only bounds are known, deviations are from the lower bound. Exit 0;\n"
  "1 when a run is below a proven optimum or lower bound, or ends in error;\n"
  "2 on a bad option, a bad or missing input, or an output it cannot write;\n"
  "130 when interrupted.\n";

struct val_args {
  struct acs_cli_args c;       /* -s -O --set -o --time-limit ... */
  const char *kind, *dir;
};

static int parse_args(int argc, char **argv, struct val_args *a)
{
  static const struct acs_cli_spec spec = {
    .common = "sOSoTRqhPL", .sched = "list", .help = validate_help};
  int err;

  memset(a, 0, sizeof(*a));
  if ((err = acs_cli_parse("validate", argc, argv, &spec, &a->c, a)) != ACS_OK)
    return err;
  if (argc - optind != 2)
    return acs_cli_usage("validate", "expected a set kind (psplib, stg or modulo) and a directory"), ACS_EINVAL;
  a->kind = argv[optind];
  a->dir = argv[optind + 1];
  if (strcmp(a->kind, "psplib") != 0 && strcmp(a->kind, "stg") != 0 &&
      strcmp(a->kind, "modulo") != 0)
    return acs_cli_usage("validate", "unknown set kind '%s' (psplib, stg or modulo)", a->kind),
           ACS_EINVAL;
  if (strcmp(a->kind, "modulo") == 0 && !a->c.sched_given)
    a->c.sched = "modulo";
  return ACS_OK;
}

/* ---- instances --------------------------------------------------------- */

struct instance {
  char *path;
  char set[64];                  /* "j30", "50 p=4" */
  int32_t procs;                 /* STG: pe_count; -1 */
  int64_t lower, upper;          /* reference values (see optima.h) */
};

struct inst_list {
  struct instance *v;
  size_t n, cap;
  size_t unmatched;              /* instance files without a reference row */
};

static int is_dir(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int add_instance(struct inst_list *l, const char *path, const char *set, int32_t procs,
                        const struct acs_optimum *ref)
{
  struct instance *in;

  if (!ref) {
    l->unmatched++;
    return ACS_OK;
  }
  if (acs_grow((void **)&l->v, sizeof(*l->v), &l->cap, l->n + 1) < 0)
    return ACS_ENOMEM;
  in = &l->v[l->n];
  in->path = strdup(path);
  if (!in->path)
    return ACS_ENOMEM;
  snprintf(in->set, sizeof(in->set), "%s", set);
  in->procs = procs;
  in->lower = ref->lower;
  in->upper = ref->upper;
  l->n++;
  return ACS_OK;
}

/* dir/name into buf; an over-long path is cut (and then matches nothing). */
static void path_join(char *buf, size_t size, const char *dir, const char *name)
{
  if (snprintf(buf, size, "%s/%s", dir, name) >= (int)size)
    buf[size - 1] = '\0';
}

/* The sorted names in dir ending with suffix; *n of them, malloc'd. */
static int list_dir(const char *dir, const char *suffix, char ***names, size_t *n)
{
  struct dirent **ents;
  int k = scandir(dir, &ents, NULL, alphasort);
  size_t cap = 0;

  *names = NULL;
  *n = 0;
  if (k < 0)
    return ACS_OK;
  for (int i = 0; i < k; i++) {
    if (acs_cli_ends_with(ents[i]->d_name, suffix) &&
        acs_grow((void **)names, sizeof(**names), &cap, *n + 1) == 0 &&
        ((*names)[*n] = strdup(ents[i]->d_name)) != NULL)
      (*n)++;
    free(ents[i]);
  }
  free(ents);
  return ACS_OK;
}

static void free_names(char **names, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

/* The optima table of PSPLIB set `set` in odir: opt, then lb, then hrs. */
static int psplib_table(const char *odir, const char *set, char *buf, size_t size)
{
  static const char *const kinds[] = { "opt", "lb", "hrs" };

  for (size_t k = 0; k < 3; k++) {
    snprintf(buf, size, "%s/%s%s.sm", odir, set, kinds[k]);
    if (is_file(buf))
      return 1;
  }
  return 0;
}

/* One PSPLIB set: instance files in idir named <set><g>_<i>.sm. */
static int psplib_set(struct inst_list *l, const char *idir, const char *table,
                      const char *set)
{
  struct acs_optima o;
  struct acs_diag d;
  char **names, path[4096], label[64];
  size_t n;
  int err;

  acs_optima_init(&o);
  acs_diag_init(&d);
  if ((err = acs_optima_load_psplib(table, &o, &d)) < 0) {
    acs_cli_error(&d);
    goto out;
  }
  list_dir(idir, ".sm", &names, &n);
  snprintf(label, sizeof(label), "psplib/%s", set);
  for (size_t i = 0; err == ACS_OK && i < n; i++) {
    int32_t g, k;
    if (acs_optima_psplib_name(names[i], set, &g, &k) < 0)
      continue;
    path_join(path, sizeof(path), idir, names[i]);
    err = add_instance(l, path, label, -1, acs_optima_find_psplib(&o, g, k));
  }
  free_names(names, n);
out:
  acs_optima_free(&o);
  return err;
}

/* Sets of DIR: tables <set>{opt,lb,hrs}.sm in DIR/optima or DIR; instances
 * in DIR/<set>/ or DIR itself. */
static int find_psplib(struct inst_list *l, const char *dir)
{
  const char *odirs[2];
  char odir[4096], table[4096], idir[4096];
  int err = ACS_OK;

  snprintf(odir, sizeof(odir), "%s/optima", dir);
  odirs[0] = odir;
  odirs[1] = dir;
  for (int k = 0; k < 2 && err == ACS_OK; k++) {
    char **names;
    size_t n;
    list_dir(odirs[k], ".sm", &names, &n);
    for (size_t i = 0; err == ACS_OK && i < n; i++) {
      char set[64];
      size_t len = strlen(names[i]);
      /* "<set>opt.sm" names the set; lb and hrs tables only when no opt. */
      if (len < 7 || len - 6 >= sizeof(set) || !acs_cli_ends_with(names[i], "opt.sm"))
        continue;
      snprintf(set, sizeof(set), "%.*s", (int)(len - 6), names[i]);
      psplib_table(odirs[k], set, table, sizeof(table));
      path_join(idir, sizeof(idir), dir, set);
      err = psplib_set(l, is_dir(idir) ? idir : dir, table, set);
    }
    for (size_t i = 0; err == ACS_OK && i < n; i++) {
      char set[64];
      size_t len = strlen(names[i]);
      if (len < 6 || len - 5 >= sizeof(set) || !acs_cli_ends_with(names[i], "lb.sm"))
        continue;
      snprintf(set, sizeof(set), "%.*s", (int)(len - 5), names[i]);
      snprintf(table, sizeof(table), "%s/%sopt.sm", odirs[k], set);
      path_join(idir, sizeof(idir), dir, set);
      if (!is_file(table) && is_dir(idir)) {
        path_join(table, sizeof(table), odirs[k], names[i]);
        err = psplib_set(l, idir, table, set);
      }
    }
    free_names(names, n);
  }
  return err;
}

/* STG: DIR/optimal/Case<n>_<p>_OPT.csv for DIR/<n>/ *.stg. */
static int find_stg(struct inst_list *l, const char *dir, int32_t only_p)
{
  char odir[4096], table[4096], idir[4096], path[4096], key[512], label[64];
  char **cases, **names;
  size_t ncases, n;
  int err = ACS_OK;

  snprintf(odir, sizeof(odir), "%s/optimal", dir);
  list_dir(odir, "_OPT.csv", &cases, &ncases);
  for (size_t c = 0; err == ACS_OK && c < ncases; c++) {
    struct acs_optima o;
    struct acs_diag d;
    int size, p;
    if (sscanf(cases[c], "Case%d_%d_OPT.csv", &size, &p) != 2 || (only_p > 0 && p != only_p))
      continue;
    path_join(table, sizeof(table), odir, cases[c]);
    snprintf(idir, sizeof(idir), "%s/%d", dir, size);
    acs_optima_init(&o);
    acs_diag_init(&d);
    if ((err = acs_optima_load_stg(table, &o, &d)) < 0) {
      acs_cli_error(&d);
      acs_optima_free(&o);
      break;
    }
    list_dir(idir, ".stg", &names, &n);
    snprintf(label, sizeof(label), "stg/%d p=%d", size, p);
    for (size_t i = 0; err == ACS_OK && i < n; i++) {
      snprintf(key, sizeof(key), "%d/%s", size, names[i]);
      path_join(path, sizeof(path), idir, names[i]);
      err = add_instance(l, path, label, p, acs_optima_find_stg(&o, key, p));
    }
    free_names(names, n);
    acs_optima_free(&o);
  }
  free_names(cases, ncases);
  return err;
}

/* Loops: every .graphml under dir, recursively, in sorted order. There is
 * no reference file: a loop's reference is its own lower bound MII. */
static int find_modulo(struct inst_list *l, const char *dir, const char *top)
{
  static const struct acs_optimum none = {-1, -1, NULL, -1, -1, -1, 0};
  struct dirent **ents;
  int k = scandir(dir, &ents, NULL, alphasort), err = ACS_OK;

  for (int i = 0; i < k; i++) {
    char path[4096];
    if (err == ACS_OK && ents[i]->d_name[0] != '.') {
      path_join(path, sizeof(path), dir, ents[i]->d_name);
      if (is_dir(path))
        err = find_modulo(l, path, top);
      else if (acs_cli_ends_with(path, ".graphml"))
        err = add_instance(l, path, "modulo", -1, &none);
    }
    free(ents[i]);
  }
  if (k >= 0)
    free(ents);
  (void)top;
  return err;
}

/* ---- figures ----------------------------------------------------------- */

struct tally {
  char set[64];
  size_t sched;
  int64_t n, bounds_only, at_ref, proven, below, timeouts, errors;
  double sum_dev, max_dev, seconds;
};

/* One modulo run: the figures of its `modulo` table. */
struct mrow {
  const struct instance *in;
  size_t sched;
  int32_t ops;
  int64_t res, rec, fine, dep, mii, ii, stages;
  int proven, has;               /* has: a schedule with its table */
  char status[16];
  double seconds;
};

struct val_state {
  struct val_args args;
  struct inst_list inst;
  struct mrow *m;
  size_t nm, cap_m;
  struct acs_sched_sel *sel;
  size_t nsel;
  struct tally *t;
  size_t nt, cap_t;
  struct acs_results *res;
  int tty, bug;
};

static struct tally *tally_of(struct val_state *st, const char *set, size_t k)
{
  for (size_t i = 0; i < st->nt; i++)
    if (st->t[i].sched == k && strcmp(st->t[i].set, set) == 0)
      return &st->t[i];
  if (acs_grow((void **)&st->t, sizeof(*st->t), &st->cap_t, st->nt + 1) < 0)
    return NULL;
  memset(&st->t[st->nt], 0, sizeof(st->t[0]));
  snprintf(st->t[st->nt].set, sizeof(st->t[0].set), "%s", set);
  st->t[st->nt].sched = k;
  return &st->t[st->nt++];
}

/* Adds one run to its tally. The reference is the optimum when known, else
 * the lower bound, else the best known upper value. */
static void count_run(struct val_state *st, const struct instance *in, size_t k,
                      const struct acs_run_row *row)
{
  struct tally *t = tally_of(st, in->set, k);
  int64_t ref = in->lower >= 0 ? in->lower : in->upper;
  double dev;

  if (!t)
    return;
  t->seconds += row->sched_seconds;
  if (strcmp(row->status, "timeout") == 0)
    t->timeouts++;
  if (isnan(row->makespan_cycles)) {
    t->errors++;
    st->bug = 1;
    return;
  }
  t->n++;
  t->bounds_only += in->lower != in->upper;
  dev = 100.0 * (row->makespan_cycles - (double)ref) / (double)ref;
  t->sum_dev += dev;
  if (t->n == 1 || dev > t->max_dev)
    t->max_dev = dev;
  t->at_ref += row->makespan_cycles == (double)ref;
  t->proven += (strcmp(row->status, "ok") == 0 && st->sel[k].ops->proves) ||
               row->makespan_cycles <= row->lower_bound_cycles;
  if (in->lower >= 0 && row->makespan_cycles < (double)in->lower) {
    t->below++;
    st->bug = 1;
  }
}

static void print_tallies(const struct val_state *st)
{
  printf("%-14s %-10s %-24s %5s %8s %8s %6s %6s %5s %7s %5s %9s\n", "set", "scheduler",
         "options", "n", "avg_dev%", "max_dev%", "at_opt", "proven", "below", "timeout",
         "error", "time_s");
  for (size_t i = 0; i < st->nt; i++) {
    const struct tally *t = &st->t[i];
    char opts[ACS_STR_MSG];
    acs_job_options_text(&st->sel[t->sched], opts, sizeof(opts));
    printf("%-14s %-10s %-24s %5lld %8.2f %8.2f %6lld %6lld %5lld %7lld %5lld %9.2f\n",
           t->set, st->sel[t->sched].ops->name, opts[0] ? opts : "-", (long long)t->n,
           t->n ? t->sum_dev / (double)t->n : NAN, t->n ? t->max_dev : NAN,
           (long long)t->at_ref, (long long)t->proven, (long long)t->below,
           (long long)t->timeouts, (long long)t->errors, t->seconds);
    if (t->bounds_only)
      printf("    %lld of them have bounds, not a proven optimum: deviation from the lower bound\n",
             (long long)t->bounds_only);
  }
}

/* The /validation rows of the tallies, into res. */
static int write_validation(const struct val_state *st, struct acs_results *res,
                            struct acs_diag *d)
{
  struct acs_validation_row *rows = calloc(st->nt + 1, sizeof(*rows));
  int err;

  if (!rows)
    return ACS_ENOMEM;
  for (size_t i = 0; i < st->nt; i++) {
    const struct tally *t = &st->t[i];
    struct acs_validation_row *r = &rows[i];
    snprintf(r->set, sizeof(r->set), "%s", t->set);
    snprintf(r->path, sizeof(r->path), "%s", st->args.dir);
    snprintf(r->scheduler, sizeof(r->scheduler), "%s", st->sel[t->sched].ops->name);
    acs_job_options_text(&st->sel[t->sched], r->options, sizeof(r->options));
    r->instances = t->n;
    r->bounds_only = t->bounds_only;
    r->avg_dev_pct = t->n ? t->sum_dev / (double)t->n : NAN;
    r->max_dev_pct = t->n ? t->max_dev : NAN;
    r->at_reference = t->at_ref;
    r->proven = t->proven;
    r->below = t->below;
    r->timeouts = t->timeouts;
    r->errors = t->errors;
    r->time_limit = st->args.c.time_limit > 0 ? st->args.c.time_limit : NAN;
    r->seconds = t->seconds;
  }
  err = acs_validation_add(res, rows, st->nt, d);
  free(rows);
  return err;
}

/* ---- modulo figures ------------------------------------------------------ */

static int64_t attr_i64(const struct acs_rtab *t, const char *name)
{
  const struct acs_rtab_attr *a = acs_rtab_attr_find(t, name);
  return a && a->type == ACS_RTAB_I64 ? a->v.i : -1;
}

/* Records a modulo run from its row and the `modulo` table of s. */
static void count_modulo(struct val_state *st, const struct instance *in, size_t k,
                         const struct acs_graph *g, const struct acs_schedule *s,
                         const struct acs_run_row *row, int keep)
{
  const struct acs_rtab *t = keep ? acs_schedule_find_rtab(s, "modulo") : NULL;
  struct mrow *x;

  (void)g;
  if (acs_grow((void **)&st->m, sizeof(*st->m), &st->cap_m, st->nm + 1) < 0)
    return;
  x = &st->m[st->nm++];
  memset(x, 0, sizeof(*x));
  x->in = in;
  x->sched = k;
  x->seconds = row->sched_seconds;
  snprintf(x->status, sizeof(x->status), "%s", row->status);
  if (!t) {
    st->bug |= strcmp(row->status, "error") == 0;
    return;
  }
  x->has = 1;
  x->ops = (int32_t)t->nrows;
  x->res = attr_i64(t, "res_mii");
  x->rec = attr_i64(t, "rec_mii");
  x->fine = attr_i64(t, "fine_mii");
  x->dep = attr_i64(t, "dep_mii");
  x->mii = attr_i64(t, "mii");
  x->ii = attr_i64(t, "ii");
  x->stages = attr_i64(t, "stages");
  x->proven = attr_i64(t, "proven") == 1;
  if (x->ii < x->mii)
    st->bug = 1; /* below a lower bound: a bug */
}

/* The name of a loop relative to the set's directory. */
static const char *loop_name(const struct val_state *st, const struct instance *in)
{
  size_t n = strlen(st->args.dir);
  const char *p = in->path;

  if (strncmp(p, st->args.dir, n) == 0 && p[n] == '/')
    p += n + 1;
  return p;
}

struct msum {
  size_t n, at_mii, proven, by_exact, timeouts, errors, below;
  double sum_ratio, max_ratio, seconds;
};

static void modulo_summary(const struct val_state *st, size_t k, struct msum *m)
{
  memset(m, 0, sizeof(*m));
  for (size_t i = 0; i < st->nm; i++) {
    const struct mrow *x = &st->m[i];
    double ratio;
    if (x->sched != k)
      continue;
    m->seconds += x->seconds;
    m->timeouts += strcmp(x->status, "timeout") == 0;
    if (!x->has) {
      m->errors++;
      continue;
    }
    m->n++;
    ratio = (double)x->ii / (double)x->mii;
    m->sum_ratio += ratio;
    if (ratio > m->max_ratio)
      m->max_ratio = ratio;
    m->at_mii += x->ii == x->mii;
    m->proven += x->proven;
    m->by_exact += x->proven && x->ii > x->mii;
    m->below += x->ii < x->mii;
  }
}

static void print_modulo(const struct val_state *st)
{
  int w = 4;

  for (size_t i = 0; i < st->nm; i++) {
    int len = (int)strlen(loop_name(st, st->m[i].in));
    if (len > w)
      w = len;
  }
  printf("%-*s %-10s %5s %5s %5s %5s %5s %5s %5s %6s %6s %8s %s\n", w, "loop", "scheduler",
         "ops", "res", "rec", "fine", "dep", "mii", "ii", "ii/mii", "stages", "time_s", "proven");
  for (size_t i = 0; i < st->nm; i++) {
    const struct mrow *x = &st->m[i];
    const char *name = st->sel[x->sched].ops->name;
    if (!x->has) {
      printf("%-*s %-10s %s\n", w, loop_name(st, x->in), name, x->status);
      continue;
    }
    printf("%-*s %-10s %5d %5lld %5lld %5lld %5lld %5lld %5lld %6.3f %6lld %8.3f %s\n", w,
           loop_name(st, x->in), name, (int)x->ops, (long long)x->res, (long long)x->rec,
           (long long)x->fine, (long long)x->dep, (long long)x->mii, (long long)x->ii,
           (double)x->ii / (double)x->mii, (long long)x->stages, x->seconds,
           x->proven ? (x->ii == x->mii ? "yes (II = MII)" : "yes (exact)")
                     : strcmp(x->status, "timeout") == 0 ? "no (timeout)" : "no");
  }
  for (size_t k = 0; k < st->nsel; k++) {
    struct msum m;
    char opts[ACS_STR_MSG];
    modulo_summary(st, k, &m);
    acs_job_options_text(&st->sel[k], opts, sizeof(opts));
    printf("%s%s%s: %zu loops; II = MII on %zu (%.1f%%); mean II/MII %.4f (max %.3f); "
           "proven minimal %zu (%.1f%%: %zu at MII, %zu by the exact mode); %zu timeouts, "
           "%zu errors, %zu below MII; %.2f s scheduling\n",
           st->sel[k].ops->name, opts[0] ? " " : "", opts, m.n, m.at_mii,
           m.n ? 100.0 * (double)m.at_mii / (double)m.n : 0.0,
           m.n ? m.sum_ratio / (double)m.n : NAN, m.max_ratio, m.proven,
           m.n ? 100.0 * (double)m.proven / (double)m.n : 0.0, m.proven - m.by_exact, m.by_exact,
           m.timeouts, m.errors, m.below, m.seconds);
  }
}

/* The /validation rows of a modulo set: the reference is MII (a bound). */
static int write_modulo_validation(const struct val_state *st, struct acs_results *res,
                                   struct acs_diag *d)
{
  struct acs_validation_row *rows = calloc(st->nsel + 1, sizeof(*rows));
  int err;

  if (!rows)
    return ACS_ENOMEM;
  for (size_t k = 0; k < st->nsel; k++) {
    struct acs_validation_row *r = &rows[k];
    struct msum m;
    modulo_summary(st, k, &m);
    snprintf(r->set, sizeof(r->set), "modulo");
    snprintf(r->path, sizeof(r->path), "%s", st->args.dir);
    snprintf(r->scheduler, sizeof(r->scheduler), "%s", st->sel[k].ops->name);
    acs_job_options_text(&st->sel[k], r->options, sizeof(r->options));
    r->instances = (int64_t)m.n;
    r->bounds_only = (int64_t)m.n;
    r->avg_dev_pct = m.n ? 100.0 * (m.sum_ratio / (double)m.n - 1.0) : NAN;
    r->max_dev_pct = m.n ? 100.0 * (m.max_ratio - 1.0) : NAN;
    r->at_reference = (int64_t)m.at_mii;
    r->proven = (int64_t)m.proven;
    r->below = (int64_t)m.below;
    r->timeouts = (int64_t)m.timeouts;
    r->errors = (int64_t)m.errors;
    r->time_limit = st->args.c.time_limit > 0 ? st->args.c.time_limit : NAN;
    r->seconds = m.seconds;
  }
  err = acs_validation_add(res, rows, st->nsel, d);
  free(rows);
  return err;
}

/* ---- runs ---------------------------------------------------------------- */

static int platform_for(const struct val_state *st, const struct instance *in,
                        struct acs_platform *p)
{
  struct acs_diag d;
  char kv[64];

  acs_platform_init(p);
  acs_diag_init(&d);
  for (size_t i = 0; i < st->args.c.sets.n; i++)
    if (acs_platform_set_kv(p, st->args.c.sets.v[i], &d) < 0) {
      acs_cli_error(&d);
      return ACS_EINVAL;
    }
  if (in->procs > 0) {
    snprintf(kv, sizeof(kv), "pe_count=%d", in->procs);
    if (acs_platform_set_kv(p, kv, &d) < 0) {
      acs_cli_errorf("%s: %s", in->path, d.msg);
      return ACS_EINVAL;
    }
  }
  return ACS_OK;
}

static int store_ids(struct val_state *st, const struct acs_platform *p,
                     const struct acs_workload *w, const struct acs_graph *g, int32_t *pid,
                     int32_t *wid)
{
  struct acs_workload_row wrow;
  int err;

  *pid = *wid = -1;
  if (!st->res)
    return ACS_OK;
  if ((err = acs_results_add_platform(st->res, p, pid)) < 0)
    return err;
  acs_results_workload_row(w, g->nops, g->nedges, &wrow);
  return acs_results_add_workload(st->res, &wrow, wid);
}

static void progress(const struct val_state *st, size_t i, const struct instance *in)
{
  const char *base = strrchr(in->path, '/');

  if (!st->tty)
    return;
  fprintf(stderr, "\r\033[K[%zu/%zu] %s %s", i + 1, st->inst.n, in->set,
          base ? base + 1 : in->path);
  fflush(stderr);
}

/* Where the runs of one instance go: the tallies and the results file. */
struct instance_out {
  struct val_state *st;
  const struct instance *in;
  const struct acs_graph *g;
  int kind;
};

static int on_run(void *arg, size_t k, const struct acs_schedule *s, struct acs_run_row *row,
                  int keep)
{
  struct instance_out *o = arg;

  if (o->kind == ACS_WL_LOOP)
    count_modulo(o->st, o->in, k, o->g, s, row, keep);
  else
    count_run(o->st, o->in, k, row);
  return o->st->res ? acs_results_add_run(o->st->res, row, NULL) : ACS_OK;
}

/* Every selected scheduler on one instance. */
static int run_instance(struct val_state *st, const struct instance *in)
{
  struct acs_sched_ctx ctx = { st->args.c.seed, st->args.c.time_limit, &acs_cli_interrupted, NULL, 0 };
  struct acs_workload *w;
  struct acs_platform p;
  struct acs_problem pb;
  struct acs_graph g;
  struct acs_diag d;
  struct acs_job_pair pair = {&pb, &g, 0, -1, -1, 0};
  struct instance_out out = {st, in, &g, 0};
  int err;

  acs_diag_init(&d);
  if ((err = platform_for(st, in, &p)) < 0)
    return err;
  if ((err = acs_workload_load(in->path, &w, &d)) < 0) {
    acs_cli_error(&d);
    return err;
  }
  if ((err = acs_job_prepare(w, &p, &g, &pb, &pair.bound, &d)) < 0) {
    acs_cli_error(&d);
    goto out_with_workload;
  }
  pair.kind = out.kind = w->kind;
  if ((err = store_ids(st, &p, w, &g, &pair.pid, &pair.wid)) == ACS_OK)
    err = acs_job_run_pair(&pair, st->sel, st->nsel, &ctx, 0, on_run, &out);
  acs_problem_destroy(&pb);
  acs_graph_destroy(&g);
out_with_workload:
  acs_workload_free(w);
  return err;
}

/* A set holds workloads of one kind: a selection none of whose schedulers
 * takes it would validate nothing (fit.c). */
static int check_fit(const struct val_state *st, const struct acs_sched_ops **ops, size_t n)
{
  struct acs_cli_wl set = {st->args.dir, strcmp(st->args.kind, "psplib") == 0 ? ACS_WL_PSPLIB
                                         : strcmp(st->args.kind, "stg") == 0  ? ACS_WL_STG
                                                                              : ACS_WL_LOOP};
  struct acs_cli_fit fit;

  return acs_cli_fit_check("validate", ops, n, &set, 1, st->args.c.sched_given &&
                           strcmp(st->args.c.sched, "all") != 0, st->args.c.quiet, &fit);
}

static int select_schedulers(struct val_state *st)
{
  const struct acs_sched_ops **ops;
  int err;

  if ((err = acs_job_select("validate", st->args.c.sched, &st->sel, &st->nsel, &ops)) < 0)
    return err;
  err = check_fit(st, ops, st->nsel);
  free(ops);
  if (err < 0)
    return err;
  return acs_job_bind_options("validate", st->sel, st->nsel, st->args.c.opts.v, st->args.c.opts.n);
}

/* pe_count from --set, for choosing the STG processor count. */
static int32_t set_pe_count(const struct val_args *a)
{
  int32_t p = -1;

  /* Read as --set reads it; a value it refuses (here left -1) is reported
   * when the platform is built. */
  for (size_t i = 0; i < a->c.sets.n; i++) {
    int64_t v;
    if (strncmp(a->c.sets.v[i], "pe_count=", 9) == 0 &&
        acs_parse_i64(a->c.sets.v[i] + 9, &v) == ACS_OK && v > 0 && v <= INT32_MAX)
      p = (int32_t)v;
  }
  return p;
}

static int find_instances(struct val_state *st)
{
  int err;

  if (!is_dir(st->args.dir)) {
    acs_cli_errorf("%s: not a directory", st->args.dir);
    return ACS_EIO;
  }
  if (strcmp(st->args.kind, "psplib") == 0)
    err = find_psplib(&st->inst, st->args.dir);
  else if (strcmp(st->args.kind, "modulo") == 0)
    err = find_modulo(&st->inst, st->args.dir, st->args.dir);
  else
    err = find_stg(&st->inst, st->args.dir, set_pe_count(&st->args));
  if (err == ACS_OK && st->inst.n == 0) {
    acs_cli_errorf("%s: no %s instances with known optima (see acsim validate --help)",
                   st->args.dir, st->args.kind);
    err = ACS_ENOTFOUND;
  }
  return err;
}

static void state_free(struct val_state *st)
{
  if (st->res)
    acs_results_abort(st->res);
  for (size_t i = 0; i < st->inst.n; i++)
    free(st->inst.v[i].path);
  free(st->inst.v);
  free(st->t);
  free(st->m);
  acs_job_free_options(st->sel, st->nsel);
  free(st->sel);
  acs_strv_free(&st->args.c.sets);
  acs_strv_free(&st->args.c.opts);
}

/* Commits the runs and, unless interrupted, the figures. */
static int finish_output(struct val_state *st)
{
  struct acs_results *res = st->res;
  struct acs_diag d;

  acs_diag_init(&d);
  st->res = NULL;
  if (!acs_cli_interrupted &&
      (strcmp(st->args.kind, "modulo") == 0 ? write_modulo_validation(st, res, &d)
                                             : write_validation(st, res, &d)) < 0) {
    acs_cli_error(&d);
    acs_results_abort(res);
    return ACS_EIO;
  }
  return acs_job_commit_results(&res) < 0 ? ACS_EIO : ACS_OK;
}

int acs_cmd_validate(int argc, char **argv)
{
  struct val_state st;
  struct acs_diag d;
  int err = ACS_OK, rc = ACS_EXIT_USAGE;
  double t0 = acs_now_seconds();

  memset(&st, 0, sizeof(st));
  acs_diag_init(&d);
  if (!acs_cli_started(parse_args(argc, argv, &st.args), &rc))
    goto out;
  if (select_schedulers(&st) < 0 || find_instances(&st) < 0)
    goto out;
  if (st.args.c.output) {
    if (acs_job_open_results("validate", st.args.c.output, argc, argv, &st.res) < 0)
      goto out;
  }
  st.tty = !st.args.c.quiet && isatty(STDERR_FILENO);
  for (size_t i = 0; i < st.inst.n && !acs_cli_interrupted && err == ACS_OK; i++) {
    progress(&st, i, &st.inst.v[i]);
    err = run_instance(&st, &st.inst.v[i]);
  }
  if (st.tty)
    fprintf(stderr, "\r\033[K");
  if (err < 0 && err != ACS_EINTERRUPTED)
    goto out;
  if (strcmp(st.args.kind, "modulo") == 0)
    print_modulo(&st);
  else
    print_tallies(&st);
  printf("%zu instances in %.1f s%s\n", st.inst.n, acs_now_seconds() - t0,
         acs_cli_interrupted ? " (interrupted: figures of the finished runs)" : "");
  if (st.inst.unmatched)
    printf("%zu instance files have no reference value and were skipped\n", st.inst.unmatched);
  if (st.res && finish_output(&st) < 0)
    goto out;
  if (st.args.c.output)
    printf("runs%s written to %s\n", acs_cli_interrupted ? "" : " and /validation",
           st.args.c.output);
  rc = acs_cli_interrupted ? ACS_EXIT_INTERRUPTED : st.bug ? ACS_EXIT_FAIL : ACS_EXIT_OK;
out:
  state_free(&st);
  return rc;
}
