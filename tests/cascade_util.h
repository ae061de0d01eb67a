/*
 * cascade_util.h - helpers shared by the test-cascade-* programs: layer graphs
 * built by hand, boxes compared, and a rig that lowers cascade plans.
 */
#ifndef ACS_TESTS_CASCADE_UTIL_H
#define ACS_TESTS_CASCADE_UTIL_H

#include <stdint.h>

#include "core/model/layer.h"
#include "core/model/problem.h"
#include "core/sched/cascade/cascade.h"
#include "core/sched/cascade/cgraph.h"
#include "core/sched/cascade/propagator.h"
#include "core/sched/sched.h"
#include "tests/lgraph_util.h"
#include "tests/testutil.h"

/* ---- building graphs ---- */

extern const uint8_t ROLES[];
extern const uint8_t DATA2[];

struct acs_lattrs window(int64_t k, int64_t s, int64_t dil, int64_t pb, int64_t pe,
                                int64_t group);

/* The node's propagated, clipped box for slot `slot`. */
void propagated(const struct acs_lgraph *lg, int32_t v, int slot,
                       const struct acs_lbox *out, struct acs_lbox *in);

void assert_box_eq(const struct acs_lbox *a, const struct acs_lbox *b, const char *what);

void random_box(struct acs_rng *r, const struct acs_ltensor *t, struct acs_lbox *b);

/* ---- plans ---- */

/* A platform whose figures make costs countable by hand: one PE doing one
 * MAC (or elementary op) a cycle, DMA and DDR moving a byte a cycle with no
 * latency, bytes of one byte, no alignment. */
extern const char *const HAND[];

/* Two PEs, 16-byte alignment, bytes of one byte, room for anything. */
extern const char *const CHAIN[];

struct rig {
  int64_t peak;              /* of the last lowering */
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
  struct acs_cgraph cg;
  struct acs_cas_env env;
};

/* Binds lg to a platform (`sets` over the defaults) and a schedule to
 * lower into. acs_schedule_init_problem gives the schedule the platform's
 * resources and CMX; it needs a problem graph, here one op, which the
 * lowering replaces with the cascade's ops. */
void rig_make(struct rig *r, const struct acs_lgraph *lg, const char *const *sets);

void rig_free(struct rig *r);

void walk_ok(const struct rig *r, int32_t first, int32_t nparts, struct acs_cas_plan *p);

/* Lowers plans, verifies the schedule, and checks it: the cycles are the
 * plans' sum and the peak CMX at most their memory. */
void lower_ok(struct rig *r, const struct acs_cas_plan *plans, int32_t n,
                     int64_t predicted);

/* x (1, 2, 4, 4) -> relu: two stripes of 2 rows, by hand on HAND. Each
 * stripe loads 16 bytes (16 cycles), computes 16 elements (16 cycles) and
 * stores 16 bytes (16 cycles); both DMA channels share one DDR link of a
 * byte a cycle. One slot per buffer: 0-16 load 0 (channel 0), 16-32 relu
 * 0, 32-48 store 0 (channel 1, free first); load 1 is issued at 32
 * (channel 0: the input slot frees when relu 0 ends) but the link is
 * store 0's until 48, so it moves its bytes at 48-64; 64-80 relu 1, 80-96
 * store 1: 96 cycles, 32 bytes. (Each channel at the full rate would
 * overlap store 0 and load 1, 80 cycles, twice what the link carries.)
 * Double buffering (two slots each, 64 bytes): load 1 is issued at 0 on
 * channel 1 and moves at 16-32, beside relu 0; store 0 at 32-48 beside
 * relu 1, store 1 at 48-64: 64 cycles. */
/* A chain of `n` layers on x (1, 4, 16, 16): conv 3x3 (8 filters), relu,
 * depthwise 3x3 stride 2, conv 1x1 (16 filters), in that order. */
void chain(struct acs_lgraph *lg, int n);

#endif
