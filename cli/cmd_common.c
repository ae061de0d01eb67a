/*
 * cmd_common.c - shared pieces of the subcommands: messages, data paths, platform
 * and workload expansion, scheduler selection, signals.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "report/results.h"
#include "core/suggest.h"

volatile sig_atomic_t acs_cli_interrupted;

void acs_cli_error(const struct acs_diag *d)
{
  char buf[2048];

  acs_diag_format(d, buf, sizeof(buf));
  /* Messages may quote input bytes (a garbled header, say): keep control
   * characters from reaching the terminal. */
  for (char *c = buf; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      *c = '?';
  fprintf(stderr, "acsim: %s\n", buf);
}

void acs_cli_errorf(const char *fmt, ...)
{
  va_list ap;

  fputs("acsim: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

void acs_cli_warn(void *ctx, const char *file, int line, int col, const char *msg)
{
  size_t np = strlen(ACS_NOTE_PREFIX);
  const char *kind = "warning: ";

  (void)ctx;
  if (strncmp(msg, ACS_NOTE_PREFIX, np) == 0) {
    kind = ACS_NOTE_PREFIX; /* a note carries its own prefix */
    msg += np;
  }
  if (line > 0 && col > 0)
    fprintf(stderr, "%s:%d:%d: %s%s\n", file, line, col, kind, msg);
  else if (line > 0)
    fprintf(stderr, "%s:%d: %s%s\n", file, line, kind, msg);
  else
    fprintf(stderr, "%s: %s%s\n", file ? file : "acsim", kind, msg);
}

int acs_cli_usage(const char *cmd, const char *fmt, ...)
{
  va_list ap;

  fprintf(stderr, "acsim %s: ", cmd);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry 'acsim %s --help'.\n", cmd);
  return ACS_EXIT_USAGE;
}

const char *acs_cli_datadir(void)
{
  const char *env = getenv("ACSIM_DATADIR");

  return env && *env ? env : ACS_DATADIR;
}

const char *acs_cli_resolve(const char *path, char *buf, size_t size)
{
  if (path[0] == '/' || access(path, F_OK) == 0) {
    snprintf(buf, size, "%s", path);
    return buf;
  }
  snprintf(buf, size, "%s/%s", acs_cli_datadir(), path);
  if (access(buf, F_OK) == 0)
    return buf;
  snprintf(buf, size, "%s", path); /* let the loader report it missing */
  return buf;
}

int acs_cli_load_platforms(const char *path, char **sets, size_t nsets,
                           struct acs_cli_platforms *out)
{
  struct acs_diag d;
  int err;

  acs_diag_init(&d);
  d.warn = acs_cli_warn;
  memset(out, 0, sizeof(*out));
  acs_cli_resolve(path ? path : "platforms/default.csv", out->path, sizeof(out->path));
  if ((err = acs_platform_load(out->path, &out->rows, &out->n, &d)) < 0) {
    acs_cli_error(&d);
    return err;
  }
  for (size_t i = 0; i < out->n; i++) {
    for (size_t k = 0; k < nsets; k++)
      if ((err = acs_platform_set_kv(&out->rows[i], sets[k], &d)) < 0)
        goto out_with_rows;
    if ((err = acs_platform_validate(&out->rows[i], &d)) < 0)
      goto out_with_rows;
  }
  return ACS_OK;

out_with_rows:
  acs_cli_error(&d);
  free(out->rows);
  out->rows = NULL;
  return err;
}

int acs_cli_ends_with(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);

  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * Pushes one workload; a .sare spec with parameter values is resolved on
 * its file part and expanded into one spec per combination of values
 * ("matmul.sare:N=8..64*2").
 */
static int push_workload(struct acs_strv *out, const char *p)
{
  const char *suffix = acs_sare_spec_suffix(p);
  struct acs_diag d;
  char file[4096], where[4096], buf[8192], **specs;
  size_t ns;
  int err = ACS_OK;

  if (!suffix || !*suffix) {
    char *copy = strdup(p);
    err = copy ? acs_strv_push(out, copy) : ACS_ENOMEM;
    if (err < 0)
      free(copy);
    return err;
  }
  acs_diag_init(&d);
  snprintf(file, sizeof(file), "%.*s", (int)(suffix - p), p);
  snprintf(buf, sizeof(buf), "%s%s", acs_cli_resolve(file, where, sizeof(where)), suffix);
  if ((err = acs_sare_spec_expand(buf, &specs, &ns, &d)) < 0) {
    acs_cli_error(&d);
    return err;
  }
  for (size_t k = 0; k < ns; k++)
    if (err == ACS_OK)
      err = acs_strv_push(out, specs[k]);
    else
      free(specs[k]);
  free(specs);
  return err;
}

int acs_cli_expand_workloads(char **args, size_t nargs, char ***paths, size_t *n)
{
  struct acs_strv out = {0};
  struct acs_diag d;
  char buf[4096];
  int err = ACS_OK;

  acs_diag_init(&d);
  for (size_t i = 0; i < nargs && err == ACS_OK; i++) {
    const char *p = acs_cli_resolve(args[i], buf, sizeof(buf));
    if (acs_cli_ends_with(p, ".txt")) {
      char **suite;
      size_t ns;
      if ((err = acs_suite_load(p, &suite, &ns, &d)) < 0) {
        acs_cli_error(&d);
        break;
      }
      for (size_t k = 0; k < ns; k++) {
        if (err == ACS_OK)
          err = push_workload(&out, suite[k]);
        free(suite[k]);
      }
      free(suite);
    } else {
      err = push_workload(&out, p);
    }
  }
  if (err < 0) {
    acs_suite_free(out.v, out.n);
    return err;
  }
  *paths = out.v;
  *n = out.n;
  return ACS_OK;
}

/* "; did you mean spill?" for a misspelled scheduler name, or "". */
static const char *sched_suggest(const char *name, char *buf, size_t size)
{
  size_t n;
  const struct acs_sched_ops *const *all = acs_sched_list(&n);
  const char *names[64];

  if (n > 63)
    n = 63;
  for (size_t i = 0; i < n; i++)
    names[i] = all[i]->name;
  names[n] = "all";
  return acs_suggest_clause(name, names, n + 1, buf, size);
}

int acs_cli_parse_schedulers(const char *cmd, const char *spec,
                             const struct acs_sched_ops ***out, size_t *n)
{
  size_t nall, cap = 0, count = 0;
  const struct acs_sched_ops *const *all = acs_sched_list(&nall);
  const struct acs_sched_ops **sel = NULL;
  char *copy, *tok, *save = NULL;

  if (strcmp(spec, "all") == 0) {
    sel = malloc((nall ? nall : 1) * sizeof(*sel));
    if (!sel)
      return ACS_ENOMEM;
    for (size_t i = 0; i < nall; i++)
      sel[i] = all[i];
    *out = sel;
    *n = nall;
    return ACS_OK;
  }
  if (!(copy = strdup(spec)))
    return ACS_ENOMEM;
  for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    const struct acs_sched_ops *ops = acs_sched_find(tok);
    if (!ops) {
      char hint[128];
      acs_cli_usage(cmd, "unknown scheduler '%s'%s (see `acsim list schedulers`)", tok,
                    sched_suggest(tok, hint, sizeof(hint)));
      goto out_with_copy;
    }
    for (size_t k = 0; k < count; k++)
      if (sel[k] == ops)
        ops = NULL;
    if (!ops)
      continue;
    if (acs_grow((void **)&sel, sizeof(*sel), &cap, count + 1) < 0)
      goto out_with_copy;
    sel[count++] = ops;
  }
  free(copy);
  if (count == 0) {
    free(sel);
    return acs_cli_usage(cmd, "no scheduler selected in '%s'", spec), ACS_EINVAL;
  }
  *out = sel;
  *n = count;
  return ACS_OK;

out_with_copy:
  free(copy);
  free(sel);
  return ACS_EINVAL;
}

int acs_cli_parse_seconds(const char *cmd, const char *opt, const char *text, double *out)
{
  char *end;
  double v = strtod(text, &end);

  if (*end || end == text || !(v > 0) || !isfinite(v))
    return acs_cli_usage(cmd, "%s: '%s' is not a positive number of seconds", opt, text),
           ACS_EINVAL;
  *out = v;
  return ACS_OK;
}

int acs_cli_parse_seed(const char *cmd, const char *text, uint64_t *out)
{
  char *end;
  unsigned long long v;

  errno = 0;
  v = strtoull(text, &end, 10);
  if (*end || end == text || text[0] == '-' || errno == ERANGE)
    return acs_cli_usage(cmd, "--seed: '%s' is not a non-negative integer", text), ACS_EINVAL;
  *out = v;
  return ACS_OK;
}

const char *acs_cli_bytes(int64_t bytes, char *buf, size_t size)
{
  if (bytes < 0)
    snprintf(buf, size, "-");
  else if (bytes < 1024)
    snprintf(buf, size, "%lld B", (long long)bytes);
  else if (bytes < 1024 * 1024)
    snprintf(buf, size, "%.1f KiB", (double)bytes / 1024.0);
  else if (bytes < 1024LL * 1024 * 1024)
    snprintf(buf, size, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
  else
    snprintf(buf, size, "%.1f GiB", (double)bytes / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

char *acs_cli_join_argv(int argc, char **argv)
{
  size_t len = 1;
  char *s;

  for (int i = 0; i < argc; i++)
    len += strlen(argv[i]) + 1;
  if (!(s = malloc(len)))
    return NULL;
  s[0] = '\0';
  for (int i = 0; i < argc; i++) {
    if (i)
      strcat(s, " ");
    strcat(s, argv[i]);
  }
  return s;
}

int acs_strv_push(struct acs_strv *sv, char *s)
{
  int err = acs_grow((void **)&sv->v, sizeof(*sv->v), &sv->cap, sv->n + 1);

  if (err < 0)
    return err;
  sv->v[sv->n++] = s;
  return ACS_OK;
}

void acs_strv_free(struct acs_strv *sv)
{
  free(sv->v);
  memset(sv, 0, sizeof(*sv));
}

static void on_signal(int sig)
{
  (void)sig;
  acs_cli_interrupted = 1;
}

void acs_cli_catch_signals(void)
{
  struct sigaction sa;

  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  acs_interrupt_flag_set(&acs_cli_interrupted);
}

int acs_cli_set_limit(const char *cmd, const char *kv)
{
  struct acs_diag d;

  acs_diag_init(&d);
  if (acs_limit_set_kv(kv, &d) < 0)
    return acs_cli_usage(cmd, "%s", d.msg), ACS_EINVAL;
  return ACS_OK;
}
