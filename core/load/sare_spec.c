/*
 * sare_spec.c - parameter suffixes of .sare workload paths: where a suffix
 * starts ("matmul.sare:N=64:K=3"), and the expansion of value lists and
 * ranges ("conv2d.sare:N=8..64*2") into one path per combination, so that a
 * suite or a sweep runs each as a workload of its own. The reader
 * (sare_read.c) applies a single suffix's values to the system it read.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/load/load.h"
#include "core/model/sare_int.h"

const char *acs_sare_spec_suffix(const char *spec)
{
  const char *base = strrchr(spec, '/'), *p;

  base = base ? base + 1 : spec;
  for (p = strstr(base, ".sare"); p; p = strstr(p + 1, ".sare"))
    if (p[5] == ':' || p[5] == '\0')
      return p + 5;
  return NULL;
}

/* ---- sweeps over parameter values ---- */

#define MAX_SPECS 10000

/* One item of a value list: "8", "8..64" (step 1), "8..64+8", "8..64*2".
 * Appends its values to *vals. */
static int spec_item(const char *spec, const char *s, size_t len, int64_t **vals, size_t *n,
                     size_t *cap, struct acs_diag *d)
{
  char buf[64], *end;
  long long a, b, step = 1;
  int geometric = 0, col = (int)(s - spec) + 1;
  const char *dots;

  if (len == 0 || len >= sizeof(buf))
    return acs_diag_set(d, ACS_EPARSE, spec, 0, col, "expected a value or a range a..b[+s|*f]");
  memcpy(buf, s, len);
  buf[len] = '\0';
  dots = strstr(buf, "..");
  errno = 0;
  a = strtoll(buf, &end, 10);
  if (end == buf || errno == ERANGE || (dots ? end != dots : *end != '\0'))
    return acs_diag_set(d, ACS_EPARSE, spec, 0, col, "'%s' is not an integer or a range", buf);
  b = a;
  if (dots) {
    b = strtoll(dots + 2, &end, 10);
    if (end == dots + 2 || errno == ERANGE)
      return acs_diag_set(d, ACS_EPARSE, spec, 0, col, "'%s': expected an integer after '..'", buf);
    if (*end == '+' || *end == '*') {
      geometric = *end == '*';
      step = strtoll(end + 1, &end, 10);
    }
    if (*end != '\0' || errno == ERANGE || step < 1 + geometric || b < a)
      return acs_diag_set(d, ACS_EPARSE, spec, 0, col, "'%s': a range is a..b with a <= b, "
                          "a..b+step (step >= 1) or a..b*factor (factor >= 2)", buf);
  }
  if (a < -ACS_SARE_MAX_VALUE || b > ACS_SARE_MAX_VALUE || (geometric && a < 1))
    return acs_diag_set(d, ACS_ERANGE, spec, 0, col, "'%s' leaves [-%" PRId64 ", %" PRId64 "]%s",
                        buf, ACS_SARE_MAX_VALUE, ACS_SARE_MAX_VALUE,
                        geometric ? " or starts below 1" : "");
  for (long long x = a; x <= b; x = geometric ? x * step : x + step) {
    if (*n >= MAX_SPECS)
      return acs_diag_set(d, ACS_ERANGE, spec, 0, col, "more than %d values", MAX_SPECS);
    if (acs_grow((void **)vals, sizeof(**vals), cap, *n + 1) < 0)
      return ACS_ENOMEM;
    (*vals)[(*n)++] = x;
  }
  return ACS_OK;
}

struct spec_param {
  char name[ACS_SARE_NAME_MAX];
  int64_t *vals;
  size_t n, cap;
};

static int spec_params(const char *spec, const char *suffix, struct spec_param *sp, int *np,
                       struct acs_diag *d)
{
  const char *s = suffix;
  int err;

  *np = 0;
  while (*s == ':') {
    const char *eq = strchr(s + 1, '='), *stop = strchr(s + 1, ':');
    stop = stop ? stop : s + strlen(s);
    if (!eq || eq > stop || eq == s + 1 || (size_t)(eq - s - 1) >= ACS_SARE_NAME_MAX)
      return acs_diag_set(d, ACS_EPARSE, spec, 0, (int)(s - spec) + 2, "expected NAME=VALUES after ':'");
    if (*np >= ACS_SARE_MAX_PARAMS)
      return acs_diag_set(d, ACS_EPARSE, spec, 0, (int)(s - spec) + 2, "more than %d parameters",
                          ACS_SARE_MAX_PARAMS);
    memset(&sp[*np], 0, sizeof(sp[*np]));
    memcpy(sp[*np].name, s + 1, (size_t)(eq - s - 1));
    for (const char *item = eq + 1; item <= stop;) {
      const char *comma = memchr(item, ',', (size_t)(stop - item));
      const char *iend = comma ? comma : stop;
      if ((err = spec_item(spec, item, (size_t)(iend - item), &sp[*np].vals, &sp[*np].n,
                           &sp[*np].cap, d)) < 0) {
        free(sp[*np].vals);
        return err;
      }
      item = iend + 1;
    }
    (*np)++;
    s = stop;
  }
  return *s ? acs_diag_set(d, ACS_EPARSE, spec, 0, (int)(s - spec) + 1, "unexpected '%s'", s)
            : ACS_OK;
}

int acs_sare_spec_expand(const char *spec, char ***out, size_t *nout, struct acs_diag *d)
{
  const char *suffix = acs_sare_spec_suffix(spec);
  struct spec_param sp[ACS_SARE_MAX_PARAMS];
  size_t total = 1, idx[ACS_SARE_MAX_PARAMS] = {0}, cap = 0, n = 0;
  char **v = NULL;
  int np = 0, err;

  *out = NULL;
  *nout = 0;
  if (!suffix)
    return ACS_EINVAL;
  if ((err = spec_params(spec, suffix, sp, &np, d)) < 0) {
    for (int k = 0; k < np; k++)
      free(sp[k].vals);
    return err;
  }
  for (int k = 0; k < np && err == ACS_OK; k++)
    if (acs_mul_size(total, sp[k].n, &total) || total > MAX_SPECS)
      err = acs_diag_set(d, ACS_ERANGE, spec, 0, 0, "more than %d parameter combinations",
                         MAX_SPECS);
  /* the cartesian product, the first parameter outermost */
  for (size_t c = 0; c < total && err == ACS_OK; c++) {
    char buf[4096];
    size_t used = (size_t)snprintf(buf, sizeof(buf), "%.*s", (int)(suffix - spec), spec);
    for (int k = 0; k < np && used < sizeof(buf); k++)
      used += (size_t)snprintf(buf + used, sizeof(buf) - used, ":%s=%" PRId64, sp[k].name,
                               sp[k].vals[idx[k]]);
    if (used >= sizeof(buf))
      err = acs_diag_set(d, ACS_ERANGE, spec, 0, 0, "workload name too long");
    else if ((err = acs_grow((void **)&v, sizeof(*v), &cap, n + 1)) == ACS_OK &&
             !(v[n++] = strdup(buf)))
      err = ACS_ENOMEM;
    for (int k = np - 1; k >= 0; k--) {
      if (++idx[k] < sp[k].n)
        break;
      idx[k] = 0;
    }
  }
  for (int k = 0; k < np; k++)
    free(sp[k].vals);
  if (err < 0) {
    acs_suite_free(v, n);
    return err;
  }
  *out = v;
  *nout = n;
  return ACS_OK;
}
