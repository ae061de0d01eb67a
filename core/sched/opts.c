/*
 * opts.c - scheduler options driven by each variant's descriptor table.
 *
 * A variant describes its options (name, type, offset in its own options
 * struct, default as text, range or choices); this file parses text into
 * that struct, so the CLI (`-O key=value`), defaults and `acsim list
 * schedulers` all work from the one table and no variant parses text itself.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sched/sched.h"

const struct acs_opt_desc *acs_sched_opt_find(const struct acs_sched_ops *ops,
                                              const char *key)
{
  if (!ops || !ops->opts || !key)
    return NULL;
  for (const struct acs_opt_desc *o = ops->opts; o->name; o++)
    if (strcmp(o->name, key) == 0)
      return o;
  return NULL;
}

/* "topo, lpath, lft, mts" for messages. */
static void format_choices(const struct acs_opt_desc *o, char *buf, size_t size)
{
  size_t used = 0;

  buf[0] = '\0';
  for (const char *const *c = o->choices; c && *c && used < size; c++) {
    int k = snprintf(buf + used, size - used, "%s%s", c == o->choices ? "" : ", ", *c);
    if (k < 0)
      break;
    used += (size_t)k;
  }
}

static int set_int(const struct acs_opt_desc *o, void *opts, const char *value,
                   struct acs_diag *d)
{
  char *end;
  long long v;

  errno = 0;
  v = strtoll(value, &end, 10);
  if (end == value || *end != '\0' || errno == ERANGE)
    return acs_diag_set(d, ACS_EPARSE, NULL, 0, 0,
                        "option '%s': '%s' is not an integer", o->name, value);
  if ((double)v < o->min || (double)v > o->max)
    return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0,
                        "option '%s': %lld is out of range [%.17g, %.17g]",
                        o->name, v, o->min, o->max);
  *(int64_t *)((char *)opts + o->offset) = (int64_t)v;
  return ACS_OK;
}

static int set_double(const struct acs_opt_desc *o, void *opts, const char *value,
                      struct acs_diag *d)
{
  char *end;
  double v;

  errno = 0;
  v = strtod(value, &end);
  if (end == value || *end != '\0' || errno == ERANGE || !isfinite(v))
    return acs_diag_set(d, ACS_EPARSE, NULL, 0, 0,
                        "option '%s': '%s' is not a number", o->name, value);
  if (v < o->min || v > o->max)
    return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0,
                        "option '%s': %.17g is out of range [%.17g, %.17g]",
                        o->name, v, o->min, o->max);
  *(double *)((char *)opts + o->offset) = v;
  return ACS_OK;
}

static int set_enum(const struct acs_opt_desc *o, void *opts, const char *value,
                    struct acs_diag *d)
{
  char choices[512];

  for (int64_t i = 0; o->choices && o->choices[i]; i++)
    if (strcmp(o->choices[i], value) == 0) {
      *(int64_t *)((char *)opts + o->offset) = i;
      return ACS_OK;
    }
  format_choices(o, choices, sizeof(choices));
  return acs_diag_set(d, ACS_EPARSE, NULL, 0, 0,
                      "option '%s': unknown value '%s' (choices: %s)",
                      o->name, value, choices);
}

static int set_str(const struct acs_opt_desc *o, void *opts, const char *value,
                   struct acs_diag *d)
{
  size_t len = strlen(value);

  if (len >= ACS_OPT_STR_MAX)
    return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0,
                        "option '%s': value longer than %d bytes", o->name, ACS_OPT_STR_MAX - 1);
  memcpy((char *)opts + o->offset, value, len + 1);
  return ACS_OK;
}

static int set_one(const struct acs_opt_desc *o, void *opts, const char *value,
                   struct acs_diag *d)
{
  switch (o->type) {
  case ACS_OPT_STR:
    return set_str(o, opts, value, d);
  case ACS_OPT_INT:
    return set_int(o, opts, value, d);
  case ACS_OPT_DOUBLE:
    return set_double(o, opts, value, d);
  case ACS_OPT_ENUM:
    return set_enum(o, opts, value, d);
  default:
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                        "option '%s': bad descriptor type %d", o->name, o->type);
  }
}

/* A bad default is a bug in the variant's table; it is reported, not hidden. */
int acs_sched_opts_defaults(const struct acs_sched_ops *ops, void *opts)
{
  struct acs_diag d;
  int err;

  if (!ops)
    return ACS_EINVAL;
  if (ops->opts_size > 0)
    memset(opts, 0, ops->opts_size);
  acs_diag_init(&d);
  for (const struct acs_opt_desc *o = ops->opts; o && o->name; o++) {
    err = set_one(o, opts, o->def, &d);
    if (err != ACS_OK)
      return err;
  }
  return ACS_OK;
}

int acs_sched_opts_set(const struct acs_sched_ops *ops, void *opts,
                       const char *key, const char *value, struct acs_diag *d)
{
  const struct acs_opt_desc *o = acs_sched_opt_find(ops, key);

  if (!o)
    return acs_diag_set(d, ACS_ENOTFOUND, NULL, 0, 0,
                        "scheduler '%s' has no option '%s'",
                        ops ? ops->name : "?", key ? key : "");
  return set_one(o, opts, value ? value : "", d);
}
