/*
 * fuzz-stg.c - the Standard Task Graph (.stg) reader and the graph it builds.
 */
#include "config.h"

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  acs_fuzz_workload(acs_fuzz_file("in.stg", data, size), 1);
  return 0;
}
