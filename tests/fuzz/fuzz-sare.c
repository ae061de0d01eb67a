/*
 * fuzz-sare.c - the reader of systems of affine recurrence equations
 * (.sare), the enumeration of their instances and the instance DAG. A first
 * line starting with ':' is the parameter list after the path
 * ("matmul.sare:N=64"), the rest is the file.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char spec[1024 + 256];
  const char *path;
  size_t n = 0, skip = 0;

  /* Tighter limits: this builder costs much per op, and its limit checks
   * are the same code at any value (fuzz.h). */
  acs_fuzz_init_limits(ACS_FUZZ_SMALL_OPS, ACS_FUZZ_SMALL_EDGES);
  if (size > 0 && data[0] == ':') {
    while (n < size && data[n] != '\n')
      n++;
    if (n >= 256 || memchr(data, '\0', n))
      return 0;
    skip = n < size ? n + 1 : n;
  }
  path = acs_fuzz_file("in.sare", data + skip, size - skip);
  snprintf(spec, sizeof(spec), "%s%.*s", path, (int)n, (const char *)data);
  acs_fuzz_workload(spec, 1);
  return 0;
}
