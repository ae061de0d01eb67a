/*
 * netbound.h - one lower bound for a network on a platform, whatever the
 * family that schedules it.
 *
 * Every family lowers a network its own way (ops per PE workload, stripes
 * of a cascade, ...) and each reports the bound of its own op graph, which
 * cannot be compared across families. The network bound depends only on
 * the network and the hardware:
 *
 *   mac_cycles = ceil(MACs / (pe_count x pe_macs_per_cycle))
 *     every multiply-accumulate runs on some PE at pe_macs_per_cycle
 *     (recomputing a region only adds MACs);
 *   ddr_cycles = ceil(bytes that must cross DDR at least once / the
 *     fastest rate DDR can be read or written)
 *     every weight, every network input and every network output crosses
 *     the DDR link once; the link moves at most min(DDR bandwidth,
 *     dma_channels x DMA engine bandwidth) bytes per cycle;
 *   cycles = max(mac_cycles, ddr_cycles).
 *
 * A plan shorter than `cycles` is a bug (a scheduler or a model that is
 * faster than the hardware).
 */
#ifndef ACS_MODEL_NETBOUND_H
#define ACS_MODEL_NETBOUND_H

#include "core/model/layer.h"
#include "core/model/platform.h"

struct acs_netbound {
  int64_t macs;        /* multiply-accumulates of the network */
  int64_t ddr_bytes;   /* weights + network inputs + network outputs */
  int64_t mac_cycles, ddr_cycles, cycles;
};

/* The bound of an inferred layer graph on platform p, at the platform's
 * bytes_per_elem. ACS_ERANGE when a count overflows. O(V + E). */
int acs_netbound_compute(const struct acs_lgraph *lg, const struct acs_platform *p,
                         struct acs_netbound *nb);

#endif
