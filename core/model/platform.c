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

const struct acs_param_info acs_param_table[ACS_PARAM_COUNT] = {
#define XX(id, col, def, min, isint, doc) {#col, def, min, isint, doc},
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

int acs_param_find(const char *name)
{
  for (int i = 0; i < ACS_PARAM_COUNT; i++)
    if (strcmp(acs_param_table[i].name, name) == 0)
      return i;
  return -1;
}

int acs_platform_set(struct acs_platform *p, int param, const char *text,
                     struct acs_diag *d, const char *file, int line, int col)
{
  const struct acs_param_info *info;
  char *end;
  double v;

  if (param < 0 || param >= ACS_PARAM_COUNT)
    return acs_diag_set(d, ACS_EINVAL, file, line, col, "no such parameter");
  info = &acs_param_table[param];
  errno = 0;
  v = strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
    return acs_diag_set(d, ACS_EPARSE, file, line, col,
                        "%s: '%s' is not a number", info->name, text);
  if (info->integer && (v != floor(v) || fabs(v) > 9007199254740992.0))
    return acs_diag_set(d, ACS_EPARSE, file, line, col,
                        "%s: '%s' is not an integer", info->name, text);
  if (v < info->min)
    return acs_diag_set(d, ACS_ERANGE, file, line, col,
                        "%s: %s is below the minimum %g (%s)", info->name, text,
                        info->min, info->doc);
  p->v[param] = v;
  return ACS_OK;
}

int acs_platform_set_kv(struct acs_platform *p, const char *kv, struct acs_diag *d)
{
  const char *eq = strchr(kv, '=');
  char key[128];
  size_t klen;
  int param;

  if (!eq || eq == kv)
    return acs_diag_set(d, ACS_EPARSE, "--set", 0, 0,
                        "'%s': expected key=value", kv);
  klen = (size_t)(eq - kv);
  if (klen >= sizeof(key))
    return acs_diag_set(d, ACS_EPARSE, "--set", 0, 0, "'%s': key too long", kv);
  memcpy(key, kv, klen);
  key[klen] = '\0';
  if (strcmp(key, "name") == 0) {
    /* --set keeps the variant's name (DESIGN.md); renaming would break
     * matching in `acsim compare`. */
    return acs_diag_set(d, ACS_EINVAL, "--set", 0, 0,
                        "'name' cannot be set; it identifies the platform row");
  }
  param = acs_param_find(key);
  if (param < 0)
    return acs_diag_set(d, ACS_EPARSE, "--set", 0, 0,
                        "unknown parameter '%s' (see `acsim platform --help`)", key);
  return acs_platform_set(p, param, eq + 1, d, "--set", 0, 0);
}

int acs_platform_validate(const struct acs_platform *p, struct acs_diag *d)
{
  for (int i = 0; i < ACS_PARAM_COUNT; i++) {
    const struct acs_param_info *info = &acs_param_table[i];
    if (!isfinite(p->v[i]) || p->v[i] < info->min ||
        (info->integer && p->v[i] != floor(p->v[i])))
      return acs_diag_set(d, ACS_ERANGE, NULL, 0, 0,
                          "platform '%s': %s = %g is invalid (minimum %g%s)",
                          p->name, info->name, p->v[i], info->min,
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
 * byte has moved. */
static int64_t cycles_for(int64_t bytes, double bytes_per_cycle)
{
  double c;

  if (bytes <= 0)
    return 0;
  c = ceil((double)bytes / bytes_per_cycle - 1e-9);
  return c < 1.0 ? 1 : (int64_t)c;
}

int64_t acs_platform_ddr_cycles(const struct acs_platform *p, int64_t bytes)
{
  if (bytes <= 0)
    return 0;
  return (int64_t)p->v[ACS_P_DDR_LATENCY_CYCLES] +
         cycles_for(bytes, acs_platform_ddr_bytes_per_cycle(p));
}

int64_t acs_platform_cmx_cycles(const struct acs_platform *p, int64_t bytes)
{
  return cycles_for(bytes, acs_platform_dma_bytes_per_cycle(p));
}
