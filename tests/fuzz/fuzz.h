/*
 * fuzz.h - what the fuzz harnesses share (docs/fuzzing.md).
 *
 * A harness is one LLVMFuzzerTestOneInput over one reader and the builders
 * behind it, called through the public entry points the acsim program uses
 * (acs_workload_load, acs_workload_build, acs_platform_load, ...). It is
 * linked twice: with libFuzzer (./configure --enable-fuzzing CC=clang, then
 * `make fuzz`), and with replay.c, a main() that feeds it every file of its
 * committed corpus and reproducers (`make check`, in every build).
 *
 * A harness aborts, which the fuzzer reports as a crash, when a property
 * every input must keep does not hold: a refused input carries a message,
 * an accepted one builds a finalized graph within the limits.
 */
#ifndef ACS_TESTS_FUZZ_FUZZ_H
#define ACS_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "core/load/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The limits while fuzzing: small enough that an input at a limit takes
 * milliseconds under the sanitizers, so the fuzzer spends its time on
 * logic and never on building a large graph; the checks are the same code
 * at any value. Replay runs with the same limits, so it is deterministic.
 */
#define ACS_FUZZ_OPS (INT64_C(1) << 15)
#define ACS_FUZZ_EDGES (INT64_C(1) << 17)
#define ACS_FUZZ_BYTES (INT64_C(1) << 26)
#define ACS_FUZZ_ISL_OPS INT64_C(200000)

/* Once per process: the scratch directory and the fuzzing limits. */
void acs_fuzz_init(void);
/*
 * acs_fuzz_init, then tighter ops and edges limits for a harness whose
 * inputs cost per op more than the others' (a builder that walks many
 * ops, or one that plans each): the limit checks are the same code at
 * any value, and a lower one makes the inputs that reach it cheap, so the
 * fuzzer runs more of them. Every call must pass the same values (replay
 * and fuzzing then agree).
 */
void acs_fuzz_init_limits(int64_t ops, int64_t edges);
/* Those of the harnesses that call acs_fuzz_init_limits. */
#define ACS_FUZZ_SMALL_OPS (INT64_C(1) << 12)
#define ACS_FUZZ_SMALL_EDGES (INT64_C(1) << 14)
/* The source tree (tests/fuzz/corpus, tests/data): $ACS_SRCDIR, else the
 * one this program was built from. */
const char *acs_fuzz_srcdir(void);
/* The scratch directory (removed at exit). */
const char *acs_fuzz_dir(void);
/* Writes data to scratch file `name` and returns its path (valid until the
 * next call with the same name); aborts when the write fails. */
const char *acs_fuzz_file(const char *name, const void *data, size_t size);

/* Aborts with a message naming the property that failed. */
void acs_fuzz_fail(const char *what, const struct acs_diag *d) __attribute__((noreturn));
/* A refusal (err < 0) must say why: every input error carries a message. */
void acs_fuzz_check_refusal(int err, const struct acs_diag *d);

/*
 * Loads `path` (or a .sare spec) as a workload and, when `build`, builds
 * it on the default platform and on a second variant (256 KiB of CMX, so
 * layers are tiled, and three loop iterations), checks each graph
 * (finalized, within the limits) and prepares its problem and bounds as
 * `acsim run` does. Returns the load's result.
 */
int acs_fuzz_workload(const char *path, int build);

/* Splits data at the first occurrence of the NUL-free separator sep:
 * [data, *n1) and [*rest, end). No separator: all of it is the first part. */
void acs_fuzz_split(const uint8_t *data, size_t size, const char *sep, size_t *n1,
                    const uint8_t **rest, size_t *n2);

#endif
