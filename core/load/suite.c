/*
 * suite.c - suite files: one workload path per line.
 *
 * Blank lines and lines starting with '#' are skipped; surrounding blanks are
 * trimmed (a path may contain inner spaces). A relative path is taken from
 * the suite file's directory, so a suite works from any working directory.
 * Every entry must name an existing regular file; a missing one is an error
 * at its line. O(lines).
 */
#include "config.h"

#include "core/load/load.h"
#include "core/load/load_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* dir of the suite + "/" + entry, or entry alone when absolute or when the
 * suite path has no directory part; leading "../" of the entry cancel the
 * directory's last components ("suites/../dnn/x.csv" is "dnn/x.csv"), so
 * messages and stored paths read naturally. malloc'd. */
static char *resolve(const char *suite, const char *entry)
{
  const char *slash = strrchr(suite, '/');
  size_t dlen = slash && entry[0] != '/' ? (size_t)(slash - suite) : 0;

  while (dlen > 0 && strncmp(entry, "../", 3) == 0) {
    size_t start = dlen;
    while (start > 0 && suite[start - 1] != '/')
      start--;
    size_t clen = dlen - start;
    if ((clen == 2 && strncmp(suite + start, "..", 2) == 0) ||
        (clen == 1 && suite[start] == '.') || clen == 0)
      break;
    dlen = start > 0 ? start - 1 : 0;
    entry += 3;
    if (start == 0) {
      dlen = 0;
      break;
    }
  }
  size_t elen = strlen(entry);
  char *out = malloc(dlen + 1 + elen + 1);
  if (!out)
    return NULL;
  memcpy(out, suite, dlen);
  if (dlen > 0)
    out[dlen++] = '/';
  memcpy(out + dlen, entry, elen + 1);
  return out;
}

static int check_entry(const char *suite, const char *entry, const char *full,
                       int line, int col, struct acs_diag *d)
{
  struct stat st;
  /* a .sare entry may carry parameter values after its name ("m.sare:N=8") */
  const char *suffix = acs_sare_spec_suffix(full);
  char file[4096];
  if (suffix && *suffix) {
    snprintf(file, sizeof(file), "%.*s", (int)(suffix - full), full);
    full = file;
  }
  if (stat(full, &st) != 0)
    return acs_diag_set(d, ACS_ENOTFOUND, suite, line, col,
                        "no such workload '%s' (looked for '%s': %s)", entry,
                        full, strerror(errno));
  if (!S_ISREG(st.st_mode))
    return acs_diag_set(d, ACS_ENOTFOUND, suite, line, col,
                        "workload '%s' is not a regular file ('%s')", entry, full);
  return ACS_OK;
}

/* Trims the line in place; returns the entry (NULL for blank and comment
 * lines) and its 1-based column. */
static char *entry_of(char *line, int *col)
{
  char *s = line + strspn(line, " \t");
  size_t len = strlen(s);
  while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
    s[--len] = '\0';
  *col = (int)(s - line) + 1;
  return len == 0 || s[0] == '#' ? NULL : s;
}

static int add_path(char ***paths, size_t *n, size_t *cap, char *p)
{
  if (acs_grow((void **)paths, sizeof(**paths), cap, *n + 1) != 0) {
    free(p);
    return ACS_ENOMEM;
  }
  (*paths)[(*n)++] = p;
  return ACS_OK;
}

int acs_suite_load(const char *path, char ***paths, size_t *n, struct acs_diag *d)
{
  struct acs__lines lr;
  size_t cap = 0;
  int rc, col;

  *paths = NULL;
  *n = 0;
  rc = acs__lines_open(&lr, path, d);
  if (rc != 0)
    return rc;
  while ((rc = acs__lines_next(&lr, d)) > 0) {
    char *entry = entry_of(lr.buf, &col);
    if (!entry)
      continue;
    char *full = resolve(path, entry);
    if (!full) {
      rc = ACS_ENOMEM;
      break;
    }
    rc = check_entry(path, entry, full, lr.line, col, d);
    if (rc != 0) {
      free(full);
      break;
    }
    if ((rc = add_path(paths, n, &cap, full)) != 0)
      break;
  }
  if (rc == 0 && *n == 0)
    rc = acs_diag_set(d, ACS_EPARSE, path, 1, 1, "suite lists no workloads");
  acs__lines_close(&lr);
  if (rc != 0) {
    acs_suite_free(*paths, *n);
    *paths = NULL;
    *n = 0;
  }
  return rc;
}

void acs_suite_free(char **paths, size_t n)
{
  for (size_t i = 0; i < n; i++)
    free(paths[i]);
  free(paths);
}
