/*
 * platform.c - platform parameters: defaults, validation, derived values.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/platform.h"
#include "core/suggest.h"

const struct acs_param_info acs_param_table[ACS_PARAM_COUNT] = {
#define XX(id, col, def, min, max, isint, doc) {#col, def, min, max, isint, doc},
  ACS_PARAM_MAP(XX)
#undef XX
};

void acs_platform_init(struct acs_platform *p)
{
  memset(p, 0, sizeof(*p));
  snprintf(p->name, sizeof(p->name), "default");
  for (int i = 0; i < ACS_PARAM_COUNT; i++)
    p->v[i] = acs_param_table[i].def;
}

int acs_param_after_scheduling(int i)
{
  return i == ACS_P_BARRIERS || i == ACS_P_BARRIER_SLOTS;
}

int acs_param_find(const char *name)
{
  for (int i = 0; i < ACS_PARAM_COUNT; i++)
    if (strcmp(acs_param_table[i].name, name) == 0)
      return i;
  return -1;
}

const char *acs_param_suggest(const char *key, char *buf, size_t size)
{
  const char *names[ACS_PARAM_COUNT + 1];

  for (int i = 0; i < ACS_PARAM_COUNT; i++)
    names[i] = acs_param_table[i].name;
  names[ACS_PARAM_COUNT] = "units";
  return acs_suggest_clause(key, names, ACS_PARAM_COUNT + 1, buf, size);
}

/* "%g" for real parameters, plain digits for integer ones (1048576, not
 * 1.04858e+06), so a bound reads back as the number to type. */
static const char *bound_text(const struct acs_param_info *info, double x, char *buf,
                              size_t size)
{
  if (info->integer)
    snprintf(buf, size, "%.0f", x);
  else
    snprintf(buf, size, "%g", x);
  return buf;
}

/*
 * Reads `text` as a value of `info` into *out. On error writes the reason
 * after "<subject>: " into d (the subject is the parameter's name, or the
 * whole "--set key=value") and returns ACS_EPARSE or ACS_ERANGE.
 */
static int parse_value(const struct acs_param_info *info, const char *text, const char *subject,
                       double *out, struct acs_diag *d, const char *file, int line, int col)
{
  char lim[32];
  int64_t i;
  double v;
  int err;

  if (info->integer) {
    err = acs_parse_i64(text, &i);
    if (err == ACS_EPARSE) {
      /* "4.5" and "1e3" are numbers but not integers: say which. */
      err = acs_parse_double(text, &v);
      return acs_diag_set(d, ACS_EPARSE, file, line, col, "%s: '%s' is not %s", subject, text,
                          err == ACS_EPARSE ? "a number" : "an integer");
    }
    /* Beyond int64_t: below the minimum when negative, else above the maximum. */
    v = err == ACS_ERANGE ? (text[0] == '-' ? -HUGE_VAL : HUGE_VAL) : (double)i;
  } else if ((err = acs_parse_double(text, &v)) == ACS_EPARSE) {
    return acs_diag_set(d, ACS_EPARSE, file, line, col, "%s: '%s' is not a number", subject,
                        text);
  } else if (err == ACS_ERANGE) {
    v = text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
  }
  if (v < info->min)
    return acs_diag_set(d, ACS_ERANGE, file, line, col, "%s: %s is below the minimum %s (%s)",
                        subject, text, bound_text(info, info->min, lim, sizeof(lim)),
                        info->doc);
  if (v > info->max)
    return acs_diag_set(d, ACS_ERANGE, file, line, col, "%s: '%s' is out of range (max %s)",
                        subject, text, bound_text(info, info->max, lim, sizeof(lim)));
  *out = v;
  return ACS_OK;
}

int acs_platform_set(struct acs_platform *p, int param, const char *text,
                     struct acs_diag *d, const char *file, int line, int col)
{
  if (param < 0 || param >= ACS_PARAM_COUNT)
    return acs_diag_set(d, ACS_EINVAL, file, line, col, "no such parameter");
  return parse_value(&acs_param_table[param], text, acs_param_table[param].name, &p->v[param],
                     d, file, line, col);
}

int acs_platform_set_kv(struct acs_platform *p, const char *kv, struct acs_diag *d)
{
  const char *eq = strchr(kv, '=');
  char key[128], subject[256];
  size_t klen;
  int param;

  if (!eq || eq == kv)
    return acs_diag_set(d, ACS_EPARSE, NULL, 0, 0, "--set %s: expected key=value", kv);
  klen = (size_t)(eq - kv);
  if (klen >= sizeof(key))
    return acs_diag_set(d, ACS_EPARSE, NULL, 0, 0, "--set %.60s...: key too long", kv);
  memcpy(key, kv, klen);
  key[klen] = '\0';
  if (strcmp(key, "name") == 0) {
    /* --set keeps the variant's name (DESIGN.md); renaming would break
     * matching in `acsim compare`. */
    return acs_diag_set(d, ACS_EINVAL, NULL, 0, 0,
                        "--set %s: 'name' cannot be set; it identifies the platform row", kv);
  }
  if (strcmp(key, "units") == 0 || acs_platform_units_key(key))
    return acs_platform_set_key(p, key, eq + 1, d, "--set", 0, 0);
  param = acs_param_find(key);
  if (param < 0) {
    char hint[128];
    return acs_diag_set(d, ACS_EPARSE, NULL, 0, 0,
                        "--set %s: unknown parameter '%s'%s (see `acsim platform --help`)", kv,
                        key, acs_param_suggest(key, hint, sizeof(hint)));
  }
  snprintf(subject, sizeof(subject), "--set %s", kv);
  return parse_value(&acs_param_table[param], eq + 1, subject, &p->v[param], d, NULL, 0, 0);
}

/* ---- unit-count overrides ---- */

#define UNITS_PREFIX "units."

/* One "class:n" item of a canonical list. */
struct unit_item {
  const char *cls;
  size_t len;
  int64_t n;
};

/* Splits the canonical list p->units (written only by units_store, so well
 * formed) into at most `max` items. */
static size_t units_split(const char *list, struct unit_item *it, size_t max)
{
  size_t k = 0;

  while (*list && k < max) {
    const char *colon = strchr(list, ':'), *semi;
    if (!colon)
      break;
    it[k].cls = list;
    it[k].len = (size_t)(colon - list);
    it[k].n = strtoll(colon + 1, NULL, 10);
    k++;
    semi = strchr(colon, ';');
    if (!semi)
      break;
    list = semi + 1;
  }
  return k;
}

static int units_class_ok(const char *cls, size_t len)
{
  if (len == 0 || len >= ACS_UNIT_CLASS_MAX)
    return 0;
  for (size_t i = 0; i < len; i++)
    if (strchr(":;,= \t\r\n", cls[i]) || (unsigned char)cls[i] < 0x20)
      return 0;
  return 1;
}

/* Writes items (sorted by class here: insertion sort, lists are short)
 * as the canonical text. ACS_ERANGE when it does not fit. */
static int units_store(char *out, struct unit_item *it, size_t k)
{
  char buf[ACS_PLATFORM_UNITS_MAX];
  size_t off = 0;

  for (size_t i = 1; i < k; i++)
    for (size_t j = i; j > 0; j--) {
      const struct unit_item *a = &it[j - 1], *b = &it[j];
      size_t m = a->len < b->len ? a->len : b->len;
      int c = memcmp(a->cls, b->cls, m);
      if (c < 0 || (c == 0 && a->len <= b->len))
        break;
      struct unit_item t = it[j - 1];
      it[j - 1] = it[j];
      it[j] = t;
    }
  buf[0] = '\0';
  for (size_t i = 0; i < k; i++) {
    int w = snprintf(buf + off, sizeof(buf) - off, "%s%.*s:%lld", i ? ";" : "", (int)it[i].len,
                     it[i].cls, (long long)it[i].n);
    if (w < 0 || (size_t)w >= sizeof(buf) - off)
      return ACS_ERANGE;
    off += (size_t)w;
  }
  memcpy(out, buf, off + 1);
  return ACS_OK;
}

#define UNITS_MAX_ITEMS (ACS_PLATFORM_UNITS_MAX / 4)

int acs_platform_units_get(const struct acs_platform *p, const char *cls, int64_t *n)
{
  struct unit_item it[UNITS_MAX_ITEMS];
  size_t k = units_split(p->units, it, UNITS_MAX_ITEMS), len = strlen(cls);

  for (size_t i = 0; i < k; i++)
    if (it[i].len == len && memcmp(it[i].cls, cls, len) == 0) {
      *n = it[i].n;
      return 1;
    }
  return 0;
}

/* Checks a count: an integer >= 1, or -1 for unlimited. */
static int units_count(const char *text, const char *cls, size_t len, int64_t *n,
                       struct acs_diag *d, const char *file, int line, int col)
{
  char *end;
  long long v;

  errno = 0;
  v = strtoll(text, &end, 10);
  while (*end == ' ' || *end == '\t')
    end++;
  if (end == text || (*end && *end != ';') || errno == ERANGE)
    return acs_diag_set(d, ACS_EPARSE, file, line, col,
                        "units.%.*s: '%.*s' is not an integer", (int)len, cls,
                        (int)strcspn(text, ";"), text);
  if (v < 1 && v != -1)
    return acs_diag_set(d, ACS_ERANGE, file, line, col,
                        "units.%.*s: %lld units (a count is at least 1, or -1 for unlimited)",
                        (int)len, cls, v);
  *n = (int64_t)v;
  return ACS_OK;
}

static int units_put(struct unit_item *it, size_t *k, const char *cls, size_t len, int64_t n)
{
  for (size_t i = 0; i < *k; i++)
    if (it[i].len == len && memcmp(it[i].cls, cls, len) == 0) {
      it[i].n = n;
      return ACS_OK;
    }
  if (*k >= UNITS_MAX_ITEMS)
    return ACS_ERANGE;
  it[(*k)++] = (struct unit_item){cls, len, n};
  return ACS_OK;
}

int acs_platform_units_set(struct acs_platform *p, const char *cls, int64_t n,
                           struct acs_diag *d, const char *file, int line, int col)
{
  struct unit_item it[UNITS_MAX_ITEMS];
  char copy[ACS_PLATFORM_UNITS_MAX];
  size_t k, len = strlen(cls);

  if (!units_class_ok(cls, len))
    return acs_diag_set(d, ACS_EPARSE, file, line, col,
                        "units: bad class name '%s' (1 to %d bytes, none of ':;,=' or blanks)",
                        cls, ACS_UNIT_CLASS_MAX - 1);
  if (n < 1 && n != -1)
    return acs_diag_set(d, ACS_ERANGE, file, line, col,
                        "units.%s: %lld units (a count is at least 1, or -1 for unlimited)", cls,
                        (long long)n);
  memcpy(copy, p->units, sizeof(copy));
  k = units_split(copy, it, UNITS_MAX_ITEMS);
  if (units_put(it, &k, cls, len, n) < 0 || units_store(p->units, it, k) < 0)
    return acs_diag_set(d, ACS_ERANGE, file, line, col,
                        "units: the list of unit counts would exceed %d bytes",
                        ACS_PLATFORM_UNITS_MAX - 1);
  return ACS_OK;
}

int acs_platform_units_parse(struct acs_platform *p, const char *text, struct acs_diag *d,
                             const char *file, int line, int col)
{
  struct unit_item it[UNITS_MAX_ITEMS];
  size_t k = 0;
  const char *s = text;

  while (*s) {
    const char *item, *colon, *stop;
    size_t len;
    int64_t n;
    int err;
    while (*s == ' ' || *s == '\t' || *s == ';')
      s++;
    if (!*s)
      break;
    item = s;
    stop = item + strcspn(item, ";");
    colon = memchr(item, ':', (size_t)(stop - item));
    if (!colon)
      return acs_diag_set(d, ACS_EPARSE, file, line, col + (int)(item - text),
                          "units: expected class:count, not '%.*s'", (int)(stop - item), item);
    len = (size_t)(colon - item);
    while (len > 0 && (item[len - 1] == ' ' || item[len - 1] == '\t'))
      len--;
    if (!units_class_ok(item, len))
      return acs_diag_set(d, ACS_EPARSE, file, line, col + (int)(item - text),
                          "units: bad class name '%.*s' (1 to %d bytes, none of ':;,=' or blanks)",
                          (int)len, item, ACS_UNIT_CLASS_MAX - 1);
    s = colon + 1;
    while (*s == ' ' || *s == '\t')
      s++;
    if ((err = units_count(s, item, len, &n, d, file, line, col + (int)(s - text))) < 0)
      return err;
    for (size_t i = 0; i < k; i++)
      if (it[i].len == len && memcmp(it[i].cls, item, len) == 0)
        return acs_diag_set(d, ACS_EPARSE, file, line, col + (int)(item - text),
                            "units: class '%.*s' appears twice", (int)len, item);
    if (units_put(it, &k, item, len, n) < 0)
      return acs_diag_set(d, ACS_ERANGE, file, line, col, "units: too many classes");
    s = stop;
  }
  if (units_store(p->units, it, k) < 0)
    return acs_diag_set(d, ACS_ERANGE, file, line, col,
                        "units: the list of unit counts exceeds %d bytes",
                        ACS_PLATFORM_UNITS_MAX - 1);
  return ACS_OK;
}

const char *acs_platform_units_key(const char *key)
{
  return strncmp(key, UNITS_PREFIX, sizeof(UNITS_PREFIX) - 1) == 0
             ? key + sizeof(UNITS_PREFIX) - 1 : NULL;
}

int acs_platform_set_key(struct acs_platform *p, const char *key, const char *text,
                         struct acs_diag *d, const char *file, int line, int col)
{
  const char *cls = acs_platform_units_key(key);
  int param;

  if (strcmp(key, "units") == 0)
    return acs_platform_units_parse(p, text, d, file, line, col);
  if (cls) {
    int64_t n;
    int err;
    if (!units_class_ok(cls, strlen(cls)))
      return acs_diag_set(d, ACS_EPARSE, file, line, col,
                          "units: bad class name '%s' (1 to %d bytes, none of ':;,=' or blanks)",
                          cls, ACS_UNIT_CLASS_MAX - 1);
    if ((err = units_count(text, cls, strlen(cls), &n, d, file, line, col)) < 0)
      return err;
    if (strchr(text, ';'))
      return acs_diag_set(d, ACS_EPARSE, file, line, col, "units.%s: '%s' is not an integer",
                          cls, text);
    return acs_platform_units_set(p, cls, n, d, file, line, col);
  }
  param = acs_param_find(key);
  if (param < 0) {
    char hint[128];
    return acs_diag_set(d, ACS_ENOTFOUND, file, line, col, "unknown parameter '%s'%s", key,
                        acs_param_suggest(key, hint, sizeof(hint)));
  }
  return acs_platform_set(p, param, text, d, file, line, col);
}

int acs_platform_validate(const struct acs_platform *p, struct acs_diag *d)
{
  for (int i = 0; i < ACS_PARAM_COUNT; i++) {
    const struct acs_param_info *info = &acs_param_table[i];
    char lo[32], hi[32];
    if (!isfinite(p->v[i]) || p->v[i] < info->min || p->v[i] > info->max ||
        (info->integer && p->v[i] != floor(p->v[i])))
      return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0,
                          "platform '%s': %s = %.15g is invalid (from %s to %s%s)", p->name,
                          info->name, p->v[i], bound_text(info, info->min, lo, sizeof(lo)),
                          bound_text(info, info->max, hi, sizeof(hi)),
                          info->integer ? ", integer" : "");
  }
  /* Offsets must stay aligned inside the CMX, so the alignment cannot
   * exceed it. */
  if (p->v[ACS_P_CMX_ALIGN_BYTES] > p->v[ACS_P_CMX_KIB] * 1024.0)
    return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0,
                        "platform '%s': cmx_align_bytes %g exceeds the CMX size",
                        p->name, p->v[ACS_P_CMX_ALIGN_BYTES]);
  return ACS_OK;
}

int64_t acs_platform_cmx_bytes(const struct acs_platform *p)
{
  return (int64_t)p->v[ACS_P_CMX_KIB] * 1024;
}

double acs_platform_ddr_gbps(const struct acs_platform *p)
{
  return p->v[ACS_P_DMA_GBPS] / p->v[ACS_P_DDR_RATIO];
}

static double gbps_to_bytes_per_cycle(const struct acs_platform *p, double gbps)
{
  return gbps * 1e9 / (p->v[ACS_P_FREQ_MHZ] * 1e6);
}

/* A DDR transfer also passes through a DMA engine, so its rate is the
 * slower of the two (ddr_ratio < 1 makes the engine the bottleneck). */
double acs_platform_ddr_bytes_per_cycle(const struct acs_platform *p)
{
  double ddr = acs_platform_ddr_gbps(p), dma = p->v[ACS_P_DMA_GBPS];

  return gbps_to_bytes_per_cycle(p, ddr < dma ? ddr : dma);
}

double acs_platform_dma_bytes_per_cycle(const struct acs_platform *p)
{
  return gbps_to_bytes_per_cycle(p, p->v[ACS_P_DMA_GBPS]);
}

double acs_platform_local_bytes_per_cycle(const struct acs_platform *p)
{
  return gbps_to_bytes_per_cycle(p, p->v[ACS_P_LOCAL_GBPS]);
}

/* Whole cycles, rounded up: a transfer occupies its channel until its last
 * byte has moved. -1 beyond ACS_QTY_MAX (a huge tensor on a slow link),
 * checked in double before any conversion to int64_t. */
static int64_t cycles_for(int64_t bytes, double bytes_per_cycle)
{
  double c;

  if (bytes <= 0)
    return 0;
  c = ceil((double)bytes / bytes_per_cycle - 1e-9);
  if (!(c <= (double)ACS_QTY_MAX))
    return -1;
  return c < 1.0 ? 1 : (int64_t)c;
}

int64_t acs_platform_ddr_cycles(const struct acs_platform *p, int64_t bytes)
{
  int64_t c;

  if (bytes <= 0)
    return 0;
  c = cycles_for(bytes, acs_platform_ddr_bytes_per_cycle(p));
  /* The latency is at most 10^6 (ACS_PARAM_MAP): the sum cannot overflow. */
  c = c < 0 ? -1 : (int64_t)p->v[ACS_P_DDR_LATENCY_CYCLES] + c;
  return c > ACS_QTY_MAX ? -1 : c;
}

int64_t acs_platform_cmx_cycles(const struct acs_platform *p, int64_t bytes)
{
  return cycles_for(bytes, acs_platform_dma_bytes_per_cycle(p));
}
