/*
 * ddrlink.h - the DDR link that every DMA touching DDR goes through.
 *
 * The platform has one link to DDR of `dma_gbps / ddr_ratio`; every DMA
 * channel reaches DDR through it, as SimGrid models it (simulate/xml.c: one
 * shared link, transfers that overlap on it share its bandwidth). A transfer
 * alone moves min(DDR, DMA) bytes per cycle after `ddr_latency_cycles`.
 *
 * A plan is physically possible only when the link could have carried its
 * transfers: each transfer i of b_i bytes, planned over [s_i, e_i), moves
 * its bytes within [s_i + L, e_i) at no more than one transfer's rate, and
 * the transfers together never exceed the link's bandwidth. With the
 * first condition checked per transfer, the second is a preemptive
 * single-machine problem with release times and deadlines, which
 * earliest-deadline-first decides exactly (Horn 1974): acs_ddrlink_check
 * runs EDF over the fluid link in O(n log n). When one transfer saturates
 * the link (DDR no faster than a DMA engine, the usual case) the two
 * conditions are also sufficient; when several fit side by side they are
 * necessary (the per-transfer rate cap is checked on each transfer alone).
 *
 * Schedulers that hold durations fixed (the seed-000 family) see the link as
 * a resource of kind ACS_RES_DDR with acs_ddrlink_lanes() units, each DDR
 * transfer demanding one unit for its whole duration: at the default
 * DDR/DMA ratio of 4 one transfer saturates the link, so such transfers run
 * one after another at full rate, which never overruns the link. Planners
 * that time transfers themselves (cascade, gang) may overlap latencies and
 * share bandwidth however they like as long as the check above holds.
 */
#ifndef ACS_MODEL_DDRLINK_H
#define ACS_MODEL_DDRLINK_H

#include "core/model/graph.h"
#include "core/model/platform.h"

struct acs_schedule;
struct acs_diag;

struct acs_ddrlink {
  double link_bpc;     /* the link's bytes per cycle (DDR bandwidth); 0 = no link */
  double xfer_bpc;     /* one transfer's bytes per cycle: min(DDR, DMA engine) */
  int64_t latency;     /* cycles before a transfer's first byte moves */
};

/* The link of platform p. */
void acs_ddrlink_from_platform(struct acs_ddrlink *l, const struct acs_platform *p);

/* How many transfers the link carries at once at a transfer's full rate:
 * floor(link / transfer rate), at least 1. The capacity of the
 * ACS_RES_DDR resource. */
int64_t acs_ddrlink_lanes(const struct acs_platform *p);

/* Whether a transfer between memories src and dst crosses the link. */
static inline int acs_ddrlink_crosses(int src, int dst)
{
  return src == ACS_MEM_DDR || dst == ACS_MEM_DDR;
}

/* Shortest time a transfer of `bytes` can take: latency + ceil(bytes /
 * xfer_bpc); 0 for no bytes. */
int64_t acs_ddrlink_min_cycles(const struct acs_ddrlink *l, int64_t bytes);

/*
 * Whether the link could carry every DDR transfer of s as planned (see the
 * top of this file). Transfers are the dma ops with a DDR end and bytes > 0.
 * A schedule without a link (link_bpc == 0, e.g. read from a file written
 * before the link was recorded) passes. ACS_EVERIFY with the op, its window
 * and the bytes left when a transfer is shorter than it can be or the link
 * cannot finish it by its end; ACS_ENOMEM. O(n log n) in the transfers.
 */
int acs_ddrlink_check(const struct acs_schedule *s, struct acs_diag *d);

#endif
