/*
 * limits.c - the process-wide limits on the work one workload may ask for
 * (see ACS_LIMIT_MAP in acs.h and docs/fuzzing.md, "Limits").
 *
 * The values are set once, by the program at start-up, before any reader
 * runs; workers forked later inherit them. Nothing else is global here.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/acs.h"

/* Values above 2^62 would let a sum of two limits overflow int64_t. */
#define LIMIT_MAX (INT64_C(1) << 62)

static const struct {
  const char *key;
  int64_t def;
  const char *doc;
} limit_info[ACS_LIMIT__COUNT] = {
#define XX(id, key, def, doc) {#key, def, doc},
  ACS_LIMIT_MAP(XX)
#undef XX
};

static int64_t limit_value[ACS_LIMIT__COUNT] = {
#define XX(id, key, def, doc) def,
  ACS_LIMIT_MAP(XX)
#undef XX
};

static int valid(int which)
{
  return which >= 0 && which < ACS_LIMIT__COUNT;
}

const char *acs_limit_key(int which)
{
  return valid(which) ? limit_info[which].key : "?";
}

int64_t acs_limit_default(int which)
{
  return valid(which) ? limit_info[which].def : 0;
}

const char *acs_limit_doc(int which)
{
  return valid(which) ? limit_info[which].doc : "";
}

int64_t acs_limit_get(int which)
{
  return valid(which) ? limit_value[which] : 0;
}

int acs_limit_set(int which, int64_t value)
{
  if (!valid(which) || value < 1 || value > LIMIT_MAX)
    return ACS_EINVAL;
  limit_value[which] = value;
  return ACS_OK;
}

void acs_limits_reset(void)
{
  for (int i = 0; i < ACS_LIMIT__COUNT; i++)
    limit_value[i] = limit_info[i].def;
}

int acs_limit_set_kv(const char *kv, struct acs_diag *d)
{
  const char *eq = strchr(kv, '=');
  size_t klen = eq ? (size_t)(eq - kv) : strlen(kv);
  int64_t v;
  int err;

  for (int i = 0; i < ACS_LIMIT__COUNT; i++) {
    if (strlen(limit_info[i].key) != klen || strncmp(kv, limit_info[i].key, klen) != 0)
      continue;
    if (!eq)
      return acs_diag_set(d, ACS_EPARSE, NULL, 0, 0, "--max %s: expected %s=N", kv, kv);
    if ((err = acs_parse_i64(eq + 1, &v)) == ACS_EPARSE)
      return acs_diag_set(d, err, NULL, 0, 0, "--max %s: '%s' is not an integer", kv, eq + 1);
    if (err == ACS_ERANGE || v < 1 || v > LIMIT_MAX)
      return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0,
                          "--max %s: '%s' is out of range [1, %" PRId64 "]", kv, eq + 1,
                          LIMIT_MAX);
    return acs_limit_set(i, v);
  }
  {
    char keys[128];
    acs_names_join(keys, sizeof(keys), &limit_info[0].key, ACS_LIMIT__COUNT,
                   sizeof(limit_info[0]));
    return acs_diag_set(d, ACS_ENOTFOUND, NULL, 0, 0,
                        "--max %s: unknown limit '%.*s' (the limits are %s)", kv, (int)klen,
                        kv, keys);
  }
}

int acs_limit_check(int which, int64_t amount, struct acs_diag *d, const char *file, int line,
                    int col, const char *what_fmt, ...)
{
  char what[512];
  va_list ap;

  if (amount <= acs_limit_get(which))
    return ACS_OK;
  va_start(ap, what_fmt);
  vsnprintf(what, sizeof(what), what_fmt, ap);
  va_end(ap);
  return acs_diag_set(d, ACS_ELIMIT, file, line, col,
                      "%s would need %" PRId64 " %s, more than the limit %s=%" PRId64
                      " (--max %s=N raises it)", what, amount, acs_limit_key(which),
                      acs_limit_key(which), acs_limit_get(which), acs_limit_key(which));
}
