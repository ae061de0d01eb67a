/*
 * simdag.h - the random DAG and schedule that bench-sim and bare-sim both
 * simulate, so their figures compare the same work.
 */
#ifndef ACS_BENCH_SIMDAG_H
#define ACS_BENCH_SIMDAG_H

#include "core/model/schedule.h"

struct simdag {
  struct acs_graph g;
  struct acs_problem pb;
  struct acs_schedule s;
};

/*
 * A layered random DAG of n ops (layers 1 to 8 wide, each op with 1 to 3
 * predecessors in the previous layer): three quarters dpu ops of 1 to 100
 * cycles, one quarter DMA transfers of 1 to 64 KiB between DDR and CMX,
 * bound to the default platform and scheduled greedily (topological order,
 * earliest free unit). Deterministic for a seed. Returns ACS_OK or an error.
 */
int simdag_build(struct simdag *b, int32_t n, uint64_t seed);
void simdag_destroy(struct simdag *b);

#endif
