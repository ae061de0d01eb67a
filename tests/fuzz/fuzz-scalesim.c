/*
 * fuzz-scalesim.c - the SCALE-Sim topology reader (a .csv whose header
 * starts with "Layer name") and the DNN op graph built from its rows on two
 * platforms (2 MiB and 256 KiB of CMX, so layers are tiled; large tables
 * only once the builder bounds its cost, see fuzz.h).
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* Tighter limits: this builder costs much per op, and its limit checks
   * are the same code at any value (fuzz.h). */
  acs_fuzz_init_limits(ACS_FUZZ_SMALL_OPS, ACS_FUZZ_SMALL_EDGES);
  acs_fuzz_workload(acs_fuzz_file("in.csv", data, size), 1);
  return 0;
}
