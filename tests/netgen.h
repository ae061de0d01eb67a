/*
 * netgen.h - random layer graphs from a seed, for the cascade property test
 * (tests/test-cascade-prop.c) and its longer sweep (bench/bench-cascade).
 *
 * A network is a stem input (1, C, H, W) followed by blocks, each one of:
 *  - a layer: Conv (kernel 1-7, stride 1-3, dilation 1-3, pads 0-3 each
 *    side independently; one group, depthwise, or a group count dividing
 *    both channel counts), MaxPool or AveragePool, or an elementwise
 *    Relu/Sigmoid;
 *  - a residual block: one or two convolutions with "same" padding (the
 *    first possibly strided) added to the block's input, through a 1x1
 *    projection when the stride or the channels change;
 *  - a concat of 2-4 branches (each a convolution, a 1x1 then a k x k
 *    convolution, or a 3x3 pool, all keeping the spatial size), joined
 *    along the channels;
 * and, now and then, a fully connected head (GlobalAveragePool or a
 * flatten, then Gemm). Sometimes an inner tensor is a network output too.
 * Every size is chosen so the graph infers; spatial sizes are odd or even
 * as they fall (the input's are drawn from [min_hw, max_hw]). The same
 * seed and options give the same graph. O(layers).
 */
#ifndef ACS_TESTS_NETGEN_H
#define ACS_TESTS_NETGEN_H

#include <stddef.h>
#include <stdint.h>

#include "core/model/layer.h"

struct acs_netgen_opts {
  int64_t min_hw, max_hw;     /* input height and width */
  int64_t max_ch;             /* most channels of any tensor */
  int max_blocks;             /* blocks after the stem: 1..max_blocks */
};

/*
 * Builds network `seed` into lg (initialised here, finalized and inferred)
 * and a one-line description into desc. ACS_OK, ACS_ENOMEM, or the error of
 * inference (a bug in the generator).
 */
int acs_netgen_make(uint64_t seed, const struct acs_netgen_opts *o, struct acs_lgraph *lg,
                    char *desc, size_t size);

/* What one cascade run on a generated network ended as (job.c's words). */
enum { ACS_NETGEN_OK, ACS_NETGEN_INFEASIBLE, ACS_NETGEN_ERROR };

struct acs_netgen_run {
  int status;                /* ACS_NETGEN_* */
  char msg[1200];            /* the reason, for infeasible and error */
  int64_t makespan;          /* planned */
  double sim;                /* simulated, NaN when not */
  int64_t netbound;          /* the network bound (core/model/netbound.h) */
};

/*
 * Runs `cascade` with its default options (then `opts`, NULL-ended
 * "key=value") on lg over the default platform with `sets` (NULL-ended
 * "key=value"), as `acsim run` does: schedule, the cascade checker, the
 * common verifier, then (with sim) SimGrid. A run below the network bound,
 * planned or simulated, is an error too. Returns ACS_OK with the outcome in
 * r, or a negative code when the rig itself fails (bad sets, ENOMEM).
 */
int acs_netgen_cascade(const struct acs_lgraph *lg, const char *const *sets,
                       const char *const *opts, int sim, struct acs_netgen_run *r);

#endif
