/*
 * onnx_probe.h - a one-Relu ONNX model written in memory (for the ONNX
 * harnesses and tests/test-limits.c).
 */
#ifndef ACS_TESTS_FUZZ_ONNX_PROBE_H
#define ACS_TESTS_FUZZ_ONNX_PROBE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The ONNX bytes of a model with one Relu from input "x" of shape [1, n]
 * (float) to output "y", opset 13, IR version 7, into buf (cap bytes:
 * 64 suffice). Returns the length, or 0 when cap is too small.
 */
size_t acs_fuzz_relu_model(int64_t n, uint8_t *buf, size_t cap);

#endif
