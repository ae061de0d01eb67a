/*
 * fuzz-onnx-build.c - an ONNX model loaded and its op graph built
 * (acs_lgraph_build, through acs_workload_build) on two platforms: 2 MiB
 * and 256 KiB of CMX, so layers are tiled. While the builder does not
 * bound its cost up front, large models are loaded but not built (see
 * acs_fuzz_workload in fuzz.h).
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* Tighter limits: this builder costs much per op, and its limit checks
   * are the same code at any value (fuzz.h). */
  acs_fuzz_init_limits(ACS_FUZZ_SMALL_OPS, ACS_FUZZ_SMALL_EDGES);
  acs_fuzz_workload(acs_fuzz_file("in.onnx", data, size), 1);
  return 0;
}
