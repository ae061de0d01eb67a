/*
 * netbound.c - the network bound (see netbound.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/netbound.h"

static int add_tensor(const struct acs_lgraph *lg, int32_t t, int64_t bpe, uint8_t *seen,
                      int64_t *sum)
{
  int64_t b;

  if (t < 0 || seen[t])
    return ACS_OK;
  seen[t] = 1;
  if (acs_mul_i64(acs_ltensor_elems(&lg->t[t]), bpe, &b) != 0 || acs_add_i64(*sum, b, sum) != 0)
    return ACS_ERANGE;
  return ACS_OK;
}

/* Bytes of the distinct constants nodes read from memory (weights, and
 * constants read as data), the network inputs something reads, and the
 * network outputs. Constants used only as parameters (a Reshape's shape)
 * never leave the compiler. */
static int ddr_floor(const struct acs_lgraph *lg, int64_t bpe, int64_t *bytes)
{
  uint8_t *seen = calloc((size_t)lg->ntensors + 1, 1);
  int rc = ACS_OK;

  *bytes = 0;
  if (!seen)
    return ACS_ENOMEM;
  for (int32_t v = 0; v < lg->nnodes && rc == ACS_OK; v++) {
    const struct acs_lnode *n = &lg->n[v];
    for (int k = 0; k < n->nin && rc == ACS_OK; k++) {
      int32_t t = n->in[k];
      if (t < 0 || (n->role[k] != ACS_LR_DATA && n->role[k] != ACS_LR_WEIGHT))
        continue;
      if (lg->t[t].kind == ACS_LT_WEIGHT || lg->t[t].kind == ACS_LT_INPUT)
        rc = add_tensor(lg, t, bpe, seen, bytes);
    }
  }
  for (int32_t o = 0; o < lg->noutputs && rc == ACS_OK; o++)
    rc = add_tensor(lg, lg->outputs[o], bpe, seen, bytes);
  free(seen);
  return rc;
}

static int64_t ceil_div_d(double a, double b)
{
  double c = ceil(a / b - 1e-9);
  return c < 0 ? 0 : c > (double)ACS_QTY_MAX ? ACS_QTY_MAX : (int64_t)c;
}

int acs_netbound_compute(const struct acs_lgraph *lg, const struct acs_platform *p,
                         struct acs_netbound *nb)
{
  struct acs_lgraph_totals tot;
  int64_t bpe = (int64_t)acs_platform_get(p, ACS_P_BYTES_PER_ELEM);
  double lanes = acs_platform_get(p, ACS_P_PE_COUNT) * acs_platform_get(p, ACS_P_PE_MACS_PER_CYCLE);
  double rate = acs_platform_ddr_gbps(p), dma = acs_platform_get(p, ACS_P_DMA_GBPS) *
                                                acs_platform_get(p, ACS_P_DMA_CHANNELS);
  int rc;

  memset(nb, 0, sizeof(*nb));
  if ((rc = acs_lgraph_totals(lg, bpe, &tot)) < 0 || (rc = ddr_floor(lg, bpe, &nb->ddr_bytes)) < 0)
    return rc;
  nb->macs = tot.macs;
  nb->mac_cycles = tot.macs / (int64_t)lanes + (tot.macs % (int64_t)lanes != 0);
  rate = (rate < dma ? rate : dma) * 1e9 / (acs_platform_get(p, ACS_P_FREQ_MHZ) * 1e6);
  nb->ddr_cycles = ceil_div_d((double)nb->ddr_bytes, rate);
  nb->cycles = nb->mac_cycles > nb->ddr_cycles ? nb->mac_cycles : nb->ddr_cycles;
  return ACS_OK;
}
