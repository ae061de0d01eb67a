/*
 * fuzz-loopcsv.c - the loop CSV reader (a header with a `class` column) and the unrolled DAG it builds on two platforms (loop_iterations 8 and 3).
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  acs_fuzz_workload(acs_fuzz_file("in.csv", data, size), 1);
  return 0;
}
