/*
 * fuzz-psplib.c - the PSPLIB .sm reader and the project graph it builds.
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  acs_fuzz_workload(acs_fuzz_file("in.sm", data, size), 1);
  return 0;
}
