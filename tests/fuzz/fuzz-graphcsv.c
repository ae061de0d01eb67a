/*
 * fuzz-graphcsv.c - the op-graph CSV reader (README "Input formats"), the
 * graph it builds and the problem and bounds `acsim run` derives from it.
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  acs_fuzz_workload(acs_fuzz_file("in.csv", data, size), 1);
  return 0;
}
