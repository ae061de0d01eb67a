/*
 * fuzz-sdf3.c - the SDF3 XML reader (SDF and CSDF graphs, acsim's extensions), the (C)SDF model's checks (repetition vector, deadlock) and the firing DAG.
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  /* Tighter limits: this builder costs much per op, and its limit checks
   * are the same code at any value (fuzz.h). */
  acs_fuzz_init_limits(ACS_FUZZ_SMALL_OPS, ACS_FUZZ_SMALL_EDGES);
  acs_fuzz_workload(acs_fuzz_file("in.xml", data, size), 1);
  return 0;
}
