/*
 * compare.c - `acsim compare`: regressions between two results files.
 *
 * Runs are matched by identity (report.h): platform variant name (or its
 * parameters with ACS_KEY_PARAMS), workload (its content digest, or its name
 * when a file predates digests), scheduler and options. For each
 * matched pair the chosen metric decides: a relative change beyond the
 * tolerance in the bad direction is a regression, in the good direction an
 * improvement. Status changes come first: a run that was ok and is not any
 * more, or that became `error`, is a regression whatever the metric says; a
 * failed run that is ok now is an improvement. Runs in one file only are
 * listed as missing or new. O((B + H) log(B + H)).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"

/* The identity flags of a comparison: the platform by name or parameters,
 * the workload by digest when both files have them. */
static int key_flags(const struct acs_compare_result *r)
{
  return r->match | (r->by_digest ? ACS_KEY_DIGEST : 0);
}

/* The latest run of each identity of `data` (a file appended to twice holds
 * an identity twice): a keyset from key to run index. */
static int index_runs(const struct acs_results_data *data, int match, struct acs_keyset **out,
                      size_t *dups, const char *what, struct acs_diag *d)
{
  struct acs_keyset *ks = acs_keyset_new();
  char key[ACS_RUN_KEY_MAX];
  int rc;

  *dups = 0;
  if (!ks)
    return ACS_ENOMEM;
  for (size_t i = 0; i < data->nruns; i++) {
    int64_t old;
    if (acs_run_key_of(data, &data->runs[i], match, key) < 0) {
      acs_keyset_free(ks);
      return acs_diag_set(d, ACS_EFORMAT, what, 0, 0,
                          "run %lld refers to a platform or workload the file does not have",
                          (long long)data->runs[i].run_id);
    }
    if ((rc = acs_keyset_add(ks, key, (int64_t)i, &old)) < 0) {
      acs_keyset_free(ks);
      return rc;
    }
    if (rc == 1) {
      (*dups)++;
      if (data->runs[i].run_id > data->runs[old].run_id)
        acs_keyset_put(ks, key, (int64_t)i);
    }
  }
  *out = ks;
  return ACS_OK;
}

static void item_from(struct acs_cmp_item *it, const struct acs_results_data *data,
                      const struct acs_run_row *r)
{
  const struct acs_platform_row *p = acs_results_platform_of(data, r);
  const struct acs_workload_row *w = acs_results_workload_of(data, r);

  snprintf(it->platform, sizeof(it->platform), "%s", p ? p->plat.name : "?");
  snprintf(it->workload, sizeof(it->workload), "%s", w ? w->name : "?");
  snprintf(it->scheduler, sizeof(it->scheduler), "%s", r->scheduler);
  snprintf(it->options, sizeof(it->options), "%s", r->options);
  snprintf(it->message, sizeof(it->message), "%s", r->message);
}

static int is_ok(const char *status)
{
  return strcmp(status, "ok") == 0;
}

/* How much worse head is, as a positive number when worse (the change with
 * the metric's sign of "bad"). */
static double badness(const struct acs_compare_result *r, const struct acs_cmp_item *it)
{
  if (isnan(it->change))
    return INFINITY;   /* a lost value */
  return r->metric->higher_is_better ? -it->change : it->change;
}

/* Classifies a matched pair. */
static void classify(const struct acs_compare_result *res, struct acs_cmp_item *it)
{
  int bok = is_ok(it->base_status), hok = is_ok(it->head_status);
  double bad;

  it->status_changed = strcmp(it->base_status, it->head_status) != 0;
  it->change = NAN;
  if (!isnan(it->base) && !isnan(it->head)) {
    if (it->base != 0)
      it->change = (it->head - it->base) / fabs(it->base);
    else
      it->change = it->head == 0 ? 0.0 : it->head > 0 ? INFINITY : -INFINITY;
  }
  if (it->status_changed) {
    if ((bok && !hok) || strcmp(it->head_status, "error") == 0)
      it->kind = ACS_CMP_REGRESSION;
    else if (!bok && hok)
      it->kind = ACS_CMP_IMPROVEMENT;
    else
      it->kind = ACS_CMP_CHANGE;
    return;
  }
  if (!bok) {
    it->kind = ACS_CMP_SAME;
    return;
  }
  if (isnan(it->base) && isnan(it->head)) {
    it->kind = ACS_CMP_SAME;
  } else if (isnan(it->head)) {
    it->kind = ACS_CMP_REGRESSION; /* the metric was lost (e.g. not simulated any more) */
  } else if (isnan(it->base)) {
    it->kind = ACS_CMP_CHANGE;
  } else {
    bad = res->metric->higher_is_better ? -it->change : it->change;
    it->kind = bad > res->tolerance ? ACS_CMP_REGRESSION
               : -bad > res->tolerance ? ACS_CMP_IMPROVEMENT : ACS_CMP_SAME;
  }
}

static const struct acs_compare_result *sort_ctx;

static int key_cmp(const struct acs_cmp_item *a, const struct acs_cmp_item *b)
{
  int c;

  if ((c = strcmp(a->workload, b->workload)) != 0 || (c = strcmp(a->platform, b->platform)) != 0 ||
      (c = strcmp(a->scheduler, b->scheduler)) != 0)
    return c;
  return strcmp(a->options, b->options);
}

/* Kind order; inside regressions, status regressions first then the worst
 * change; inside improvements the best change; ties by key. */
static int item_cmp(const void *pa, const void *pb)
{
  const struct acs_cmp_item *a = pa, *b = pb;
  double ba, bb;

  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  if (a->kind == ACS_CMP_REGRESSION || a->kind == ACS_CMP_IMPROVEMENT) {
    if (a->status_changed != b->status_changed)
      return a->status_changed ? -1 : 1;
    ba = badness(sort_ctx, a);
    bb = badness(sort_ctx, b);
    if (a->kind == ACS_CMP_IMPROVEMENT) {
      ba = -ba;
      bb = -bb;
    }
    if (ba != bb)
      return ba > bb ? -1 : 1;
  }
  return key_cmp(a, b);
}

static int push_item(struct acs_compare_result *r, size_t *cap, const struct acs_cmp_item *it)
{
  int err = acs_grow((void **)&r->items, sizeof(*r->items), cap, r->nitems + 1);

  if (err < 0)
    return err;
  r->items[r->nitems++] = *it;
  r->count[it->kind]++;
  return ACS_OK;
}

/* Every latest base run: matched or missing. */
static int match_base(const struct acs_results_data *base, const struct acs_results_data *head,
                      struct acs_keyset *bk, struct acs_keyset *hk, struct acs_compare_result *r,
                      size_t *cap)
{
  char key[ACS_RUN_KEY_MAX];
  int err;

  for (size_t i = 0; i < base->nruns; i++) {
    const struct acs_run_row *br = &base->runs[i];
    struct acs_cmp_item it;
    int64_t bi, hi;
    memset(&it, 0, sizeof(it));
    acs_run_key_of(base, br, key_flags(r), key);
    if (!acs_keyset_get(bk, key, &bi) || (size_t)bi != i)
      continue; /* superseded by a later run of the same identity */
    item_from(&it, base, br);
    snprintf(it.base_status, sizeof(it.base_status), "%s", br->status);
    it.base = acs_metric_value(r->metric, br);
    it.base_run = br->run_id;
    it.head_run = -1;
    it.head = NAN;
    it.change = NAN;
    if (!acs_keyset_get(hk, key, &hi)) {
      it.kind = ACS_CMP_MISSING;
    } else {
      const struct acs_run_row *hr = &head->runs[hi];
      item_from(&it, head, hr);
      snprintf(it.head_status, sizeof(it.head_status), "%s", hr->status);
      it.head = acs_metric_value(r->metric, hr);
      it.head_run = hr->run_id;
      classify(r, &it);
      r->matched++;
    }
    if ((err = push_item(r, cap, &it)) < 0)
      return err;
  }
  return ACS_OK;
}

static int add_new(const struct acs_results_data *head, struct acs_keyset *bk,
                   struct acs_keyset *hk, struct acs_compare_result *r, size_t *cap)
{
  char key[ACS_RUN_KEY_MAX];
  int err;

  for (size_t i = 0; i < head->nruns; i++) {
    const struct acs_run_row *hr = &head->runs[i];
    struct acs_cmp_item it;
    int64_t hi;
    acs_run_key_of(head, hr, key_flags(r), key);
    if (!acs_keyset_get(hk, key, &hi) || (size_t)hi != i || acs_keyset_get(bk, key, NULL))
      continue;
    memset(&it, 0, sizeof(it));
    item_from(&it, head, hr);
    it.kind = ACS_CMP_NEW;
    snprintf(it.head_status, sizeof(it.head_status), "%s", hr->status);
    it.base = NAN;
    it.head = acs_metric_value(r->metric, hr);
    it.change = NAN;
    it.base_run = -1;
    it.head_run = hr->run_id;
    if ((err = push_item(r, cap, &it)) < 0)
      return err;
  }
  return ACS_OK;
}

/* Workload names that have missing runs and new runs: matched by digest,
 * these are workloads whose content changed under the same name, which a
 * reader would otherwise take for unrelated runs. O(items). */
static int count_changed(struct acs_compare_result *r)
{
  struct acs_keyset *added = acs_keyset_new(), *seen = acs_keyset_new();
  int err = ACS_OK;

  if (!added || !seen) {
    err = ACS_ENOMEM;
    goto out_with_sets;
  }
  for (size_t i = 0; i < r->nitems && err >= 0; i++)
    if (r->items[i].kind == ACS_CMP_NEW)
      err = acs_keyset_add(added, r->items[i].workload, 0, NULL);
  for (size_t i = 0; i < r->nitems && err >= 0; i++) {
    const char *name = r->items[i].workload;
    if (r->items[i].kind != ACS_CMP_MISSING || !acs_keyset_get(added, name, NULL))
      continue;
    if ((err = acs_keyset_add(seen, name, 0, NULL)) == 0 && r->changed_workloads++ == 0)
      snprintf(r->changed_example, sizeof(r->changed_example), "%s", name);
  }
out_with_sets:
  acs_keyset_free(added);
  acs_keyset_free(seen);
  return err < 0 ? err : ACS_OK;
}

int acs_compare_data(const struct acs_results_data *base, const struct acs_results_data *head,
                     const struct acs_compare_opts *o, struct acs_compare_result *r,
                     struct acs_diag *d)
{
  struct acs_keyset *bk = NULL, *hk = NULL;
  size_t cap = 0;
  int err;

  memset(r, 0, sizeof(*r));
  r->metric = acs_metric_find(o->metric ? o->metric : "sim_makespan_cycles");
  if (!r->metric) {
    char names[1024];
    acs_metric_names(names, sizeof(names));
    return acs_diag_set(d, ACS_EINVAL, "--metric", 0, 0,
                        "unknown metric '%s' (numeric /runs columns: %s)", o->metric, names);
  }
  r->tolerance = o->tolerance;
  r->match = o->match == ACS_KEY_PARAMS ? ACS_KEY_PARAMS : ACS_KEY_NAME;
  r->by_digest = acs_results_digested(base) && acs_results_digested(head);
  r->base_runs = base->nruns;
  r->head_runs = head->nruns;
  if ((err = index_runs(base, key_flags(r), &bk, &r->base_dups, "base", d)) < 0 ||
      (err = index_runs(head, key_flags(r), &hk, &r->head_dups, "head", d)) < 0 ||
      (err = match_base(base, head, bk, hk, r, &cap)) < 0 ||
      (err = add_new(head, bk, hk, r, &cap)) < 0 ||
      (err = count_changed(r)) < 0) {
    acs_compare_free(r);
    goto out_with_sets;
  }
  /* qsort has no context argument; compare runs one at a time. */
  sort_ctx = r;
  if (r->nitems > 1)
    qsort(r->items, r->nitems, sizeof(*r->items), item_cmp);
  sort_ctx = NULL;
  err = ACS_OK;
out_with_sets:
  acs_keyset_free(bk);
  acs_keyset_free(hk);
  return err;
}

void acs_compare_free(struct acs_compare_result *r)
{
  free(r->items);
  r->items = NULL;
  r->nitems = 0;
}

/* ---- writing ---- */

static void fmt_value(double v, const struct acs_metric *m, char *buf, size_t size)
{
  if (isnan(v))
    snprintf(buf, size, "-");
  else if (strcmp(m->unit, "s") == 0 || strcmp(m->unit, "fraction") == 0)
    snprintf(buf, size, "%.4g", v);
  else
    snprintf(buf, size, "%.0f", v);
}

static void fmt_change(const struct acs_cmp_item *it, char *buf, size_t size)
{
  if (it->status_changed && (it->kind == ACS_CMP_REGRESSION || it->kind == ACS_CMP_IMPROVEMENT ||
                             it->kind == ACS_CMP_CHANGE))
    snprintf(buf, size, "%s -> %s", it->base_status, it->head_status);
  else if (isnan(it->change) && !isnan(it->base))
    snprintf(buf, size, "value lost");
  else if (isnan(it->change))
    snprintf(buf, size, "-");
  else if (isinf(it->change))
    snprintf(buf, size, "%cinf%%", it->change > 0 ? '+' : '-');
  else
    snprintf(buf, size, "%+.2f%%", 100.0 * it->change);
}

static void fmt_sched(const struct acs_cmp_item *it, char *buf, size_t size)
{
  if (it->options[0])
    snprintf(buf, size, "%s[%s]", it->scheduler, it->options);
  else
    snprintf(buf, size, "%s", it->scheduler);
}

static const char *const section_title[] = {
  "Regressions", "Improvements", "Other changes", "Missing in head (in base only)",
  "New in head (not in base)",
};

static void write_row(FILE *f, const struct acs_compare_result *r, const struct acs_cmp_item *it,
                      int format)
{
  char change[64], b[48], h[48], sched[ACS_STR_NAME + ACS_STR_OPTS + 4];

  fmt_change(it, change, sizeof(change));
  fmt_value(it->base, r->metric, b, sizeof(b));
  fmt_value(it->head, r->metric, h, sizeof(h));
  fmt_sched(it, sched, sizeof(sched));
  if (it->kind == ACS_CMP_MISSING || it->kind == ACS_CMP_NEW)
    snprintf(change, sizeof(change), "%s",
             it->kind == ACS_CMP_MISSING ? it->base_status : it->head_status);
  if (format == ACS_CMP_MARKDOWN) {
    fprintf(f, "| %s | %s | %s | %s | %s | `%s` |\n", change, b, h, it->workload, sched,
            it->platform);
    return;
  }
  fprintf(f, "  %-18s %14s %14s  %-18s %-14s %s\n", change, b, h, it->workload, sched,
          it->platform);
  if (it->status_changed && strcmp(it->head_status, "ok") != 0 && it->message[0])
    fprintf(f, "  %18s %s\n", "", it->message);
}

static void write_section(FILE *f, const struct acs_compare_result *r, int kind, int format,
                          size_t limit)
{
  size_t shown = 0, n = r->count[kind];

  if (n == 0)
    return;
  if (format == ACS_CMP_MARKDOWN) {
    fprintf(f, "\n### %s (%zu)\n\n", section_title[kind], n);
    fprintf(f, "| change | base | head | workload | scheduler | platform |\n");
    fprintf(f, "|---|---:|---:|---|---|---|\n");
  } else {
    fprintf(f, "\n%s (%zu)\n", section_title[kind], n);
    fprintf(f, "  %-18s %14s %14s  %-18s %-14s %s\n", "change", "base", "head", "workload",
            "scheduler", "platform");
  }
  for (size_t i = 0; i < r->nitems; i++) {
    if (r->items[i].kind != kind)
      continue;
    if (limit && shown == limit) {
      fprintf(f, format == ACS_CMP_MARKDOWN ? "\n... and %zu more\n" : "  ... and %zu more\n",
              n - shown);
      break;
    }
    write_row(f, r, &r->items[i], format);
    shown++;
  }
}

int acs_compare_write(FILE *f, const struct acs_compare_result *r, int format,
                      const char *base_name, const char *head_name, size_t limit)
{
  const char *by = r->match == ACS_KEY_PARAMS ? "platform parameters" : "platform name";
  const char *wl = r->by_digest ? "workload content" : "workload name";
  const char *nl = format == ACS_CMP_MARKDOWN ? "\n" : "";

  if (format == ACS_CMP_MARKDOWN)
    fprintf(f, "## acsim compare: %s\n\n`%s` (base, %zu runs) vs `%s` (head, %zu runs); "
               "tolerance %g%%; runs matched by %s, %s, scheduler and options.\n",
            r->metric->name, base_name, r->base_runs, head_name, r->head_runs,
            100.0 * r->tolerance, by, wl);
  else
    fprintf(f, "acsim compare: %s (%s), tolerance %g%%, matched by %s, %s, scheduler\n"
               "base: %s (%zu runs)\nhead: %s (%zu runs)\n",
            r->metric->name, r->metric->higher_is_better ? "higher is better" : "lower is better",
            100.0 * r->tolerance, by, wl, base_name, r->base_runs, head_name, r->head_runs);
  if (!r->by_digest)
    fprintf(f, "%snote: workloads are matched by name: a file has workloads without a "
               "content digest (written by an older acsim)\n", nl);
  if (r->changed_workloads)
    fprintf(f, "%snote: %zu workload%s (e.g. %s) changed content under the same name; "
               "their runs are listed as missing and new, not compared\n", nl,
            r->changed_workloads, r->changed_workloads == 1 ? "" : "s", r->changed_example);
  if (r->base_dups || r->head_dups)
    fprintf(f, "%snote: %zu base and %zu head runs repeat an earlier run's identity; the latest "
               "of each is compared\n", format == ACS_CMP_MARKDOWN ? "\n" : "",
            r->base_dups, r->head_dups);
  for (int k = ACS_CMP_REGRESSION; k < ACS_CMP_SAME; k++)
    write_section(f, r, k, format, limit);
  fprintf(f, "%s%zu matched: %zu regression%s, %zu improvement%s, %zu other change%s, "
             "%zu within %g%%; %zu missing, %zu new%s\n",
          format == ACS_CMP_MARKDOWN ? "\n**" : "\n", r->matched, r->count[ACS_CMP_REGRESSION],
          r->count[ACS_CMP_REGRESSION] == 1 ? "" : "s", r->count[ACS_CMP_IMPROVEMENT],
          r->count[ACS_CMP_IMPROVEMENT] == 1 ? "" : "s", r->count[ACS_CMP_CHANGE],
          r->count[ACS_CMP_CHANGE] == 1 ? "" : "s", r->count[ACS_CMP_SAME],
          100.0 * r->tolerance, r->count[ACS_CMP_MISSING], r->count[ACS_CMP_NEW],
          format == ACS_CMP_MARKDOWN ? "**" : "");
  return ferror(f) ? ACS_EIO : ACS_OK;
}

/* ---- JUnit ---- */

static void xml_text(FILE *f, const char *s)
{
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '&')
      fputs("&amp;", f);
    else if (c == '<')
      fputs("&lt;", f);
    else if (c == '>')
      fputs("&gt;", f);
    else if (c == '"')
      fputs("&quot;", f);
    else if (c < 0x20 && c != '\t' && c != '\n')
      fputc(' ', f); /* not allowed in XML 1.0 */
    else
      fputc(c, f);
  }
}

static void junit_case(FILE *f, const struct acs_compare_result *r, const struct acs_cmp_item *it)
{
  char sched[ACS_STR_NAME + ACS_STR_OPTS + 4], change[64], b[48], h[48];

  fmt_sched(it, sched, sizeof(sched));
  fmt_change(it, change, sizeof(change));
  fmt_value(it->base, r->metric, b, sizeof(b));
  fmt_value(it->head, r->metric, h, sizeof(h));
  fputs("    <testcase classname=\"", f);
  xml_text(f, it->workload);
  fputs("\" name=\"", f);
  xml_text(f, sched);
  fputs(" on ", f);
  xml_text(f, it->platform);
  fputs("\">", f);
  if (it->kind == ACS_CMP_REGRESSION) {
    fprintf(f, "<failure type=\"regression\" message=\"%s: %s (base %s, head %s)\">",
            r->metric->name, change, b, h);
    xml_text(f, it->message);
    fputs("</failure>", f);
  } else if (it->kind == ACS_CMP_MISSING) {
    fputs("<skipped message=\"missing in head\"/>", f);
  } else if (it->kind != ACS_CMP_SAME) {
    fprintf(f, "<system-out>%s: %s (base %s, head %s)</system-out>", r->metric->name, change, b, h);
  }
  fputs("</testcase>\n", f);
}

int acs_compare_write_junit(const char *path, const struct acs_compare_result *r,
                            const char *base_name, const char *head_name, struct acs_diag *d)
{
  char tmp[4096];
  FILE *f;

  if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >= sizeof(tmp))
    return acs_diag_set(d, ACS_EINVAL, path, 0, 0, "path too long");
  if (!(f = fopen(tmp, "w")))
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(f, "<testsuites>\n  <testsuite name=\"acsim compare ");
  xml_text(f, r->metric->name);
  fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", r->nitems,
          r->count[ACS_CMP_REGRESSION], r->count[ACS_CMP_MISSING]);
  fputs("    <properties><property name=\"base\" value=\"", f);
  xml_text(f, base_name);
  fputs("\"/><property name=\"head\" value=\"", f);
  xml_text(f, head_name);
  fprintf(f, "\"/><property name=\"tolerance\" value=\"%g\"/></properties>\n", r->tolerance);
  for (size_t i = 0; i < r->nitems; i++)
    junit_case(f, r, &r->items[i]);
  fputs("  </testsuite>\n</testsuites>\n", f);
  if (ferror(f) | (fclose(f) != 0)) {
    unlink(tmp);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
  }
  if (rename(tmp, path) != 0) {
    unlink(tmp);
    return acs_diag_set(d, ACS_EIO, path, 0, 0, "cannot write: %s", strerror(errno));
  }
  return ACS_OK;
}
