/*
 * platform.h - parameterized platform descriptions.
 *
 * Every parameter is a row of ACS_PARAM_MAP: its CSV column name, default,
 * smallest and largest legal value, whether it must be an integer, and a
 * one-line description. The HDF5 /platforms table, `acsim platform`, `--set`,
 * `--vary` and the CSV loader are all driven by this one table, so adding a
 * parameter is a one-line change.
 */
#ifndef ACS_MODEL_PLATFORM_H
#define ACS_MODEL_PLATFORM_H

#include "core/acs.h"

/*
 * The maxima are what a real machine could have, with margin, so that no
 * value a user can give makes a derived quantity overflow (cmx_kib * 1024,
 * pe_count host arrays, cycles from bytes and bandwidth) or a simulation
 * platform explode. Why each one:
 *
 *  freq_mhz           10 GHz: no shipping chip clocks above 6.2 GHz; 1 kHz at
 *                     the bottom.
 *  pe_count           2^20: the largest chip, Cerebras WSE-3, has 900,000
 *                     cores.
 *  pe_macs_per_cycle  2^20: a 1024 x 1024 systolic array (the TPU v1 matrix
 *                     unit is 256 x 256 = 65,536).
 *  cmx_kib            2^26 KiB = 64 GiB: WSE-3 has 44 GB of on-chip SRAM.
 *  cmx_align_bytes    1 MiB: real buffer alignments are 16 B to 4 KiB (and
 *                     the alignment may not exceed the CMX).
 *  barriers           65,536: VPUs have 32 to 64 hardware barriers.
 *  barrier_slots      65,536: hardware producer counters are 8-bit (256).
 *  dma_channels       2^20: one engine per PE on the largest chip.
 *  dma_gbps,          1e8 GB/s (100 PB/s): above the 21 PB/s aggregate SRAM
 *  local_gbps         bandwidth of WSE-3; 1 kB/s at the bottom.
 *  ddr_ratio          1e6 either way: DDR a million times slower or faster
 *                     than the DMA engine covers every memory system.
 *  ddr_latency_cycles 10^6: DRAM answers in about 100 ns (1,000 cycles at
 *                     10 GHz); even memory over a network takes microseconds.
 *  bytes_per_elem     16: complex128 and float128 are the widest elements.
 *  pe_vmem_kib,       2^26 KiB = 64 GiB, the CMX bound: per-PE memories are
 *  pe_pmem_kib        kilobytes to megabytes.
 *
 * With these bounds a transfer of ACS_QTY_MAX bytes can still take more than
 * ACS_QTY_MAX cycles (1 kB/s at 10 GHz): acs_platform_ddr_cycles reports that
 * (-1) and acs_problem_init refuses it with the op's location.
 */
/* XX(ID, column, default, minimum, maximum, integer, description) */
#define ACS_PARAM_MAP(XX)                                                     \
  XX(FREQ_MHZ, freq_mhz, 700.0, 1e-3, 1e4, 0, "clock frequency; cycles are of this clock") \
  XX(PE_COUNT, pe_count, 4, 1, 1048576, 1, "processing elements (DPU tiles or cores)") \
  XX(PE_MACS_PER_CYCLE, pe_macs_per_cycle, 256, 1, 1048576, 1, "MACs one PE completes per cycle") \
  XX(CMX_KIB, cmx_kib, 2048, 1, 67108864, 1, "on-chip scratchpad (CMX) size in KiB") \
  XX(CMX_ALIGN_BYTES, cmx_align_bytes, 64, 1, 1048576, 1, "alignment of CMX buffer offsets") \
  XX(BARRIERS, barriers, 0, 0, 65536, 1, "hardware barriers; 0 means no limit") \
  XX(BARRIER_SLOTS, barrier_slots, 0, 0, 65536, 1, "producer slots per barrier; 0 means no limit") \
  XX(DMA_CHANNELS, dma_channels, 2, 1, 1048576, 1, "DMA engines (channels)") \
  XX(DMA_GBPS, dma_gbps, 32.0, 1e-6, 1e8, 0, "DMA engine bandwidth in GB/s (1e9 B/s)") \
  XX(DDR_RATIO, ddr_ratio, 4.0, 1e-6, 1e6, 0, "DMA bandwidth / DDR bandwidth") \
  XX(DDR_LATENCY_CYCLES, ddr_latency_cycles, 100, 0, 1000000, 1, "latency of one DDR access") \
  XX(LOCAL_GBPS, local_gbps, 64.0, 1e-6, 1e8, 0, "PE-to-PE local link bandwidth in GB/s") \
  XX(BYTES_PER_ELEM, bytes_per_elem, 1, 1, 16, 1, "bytes per tensor element (1 = int8)") \
  XX(PE_VMEM_KIB, pe_vmem_kib, 0, 0, 67108864, 1, "per-PE vector memory in KiB (ISP, seed 004)") \
  XX(PE_PMEM_KIB, pe_pmem_kib, 0, 0, 67108864, 1, "per-PE program memory in KiB (ISP, seed 004)") \
  XX(LOOP_ITERATIONS, loop_iterations, 8, 1, 100000, 1, "iterations of a loop workload unrolled for DAG schedulers and the modulo lowering")

enum acs_param {
#define XX(id, col, def, min, max, isint, doc) ACS_P_##id,
  ACS_PARAM_MAP(XX)
#undef XX
  ACS_PARAM_COUNT
};

struct acs_param_info {
  const char *name;
  double def;
  double min, max;
  int integer;
  const char *doc;
};

extern const struct acs_param_info acs_param_table[ACS_PARAM_COUNT];

#define ACS_PLATFORM_NAME_MAX 128
/* Longest unit-count list ("class:n;class:n"), terminator included. */
#define ACS_PLATFORM_UNITS_MAX 512
/* Longest functional-unit class name in an override, terminator included. */
#define ACS_UNIT_CLASS_MAX 128

struct acs_platform {
  char name[ACS_PLATFORM_NAME_MAX];
  double v[ACS_PARAM_COUNT];
  /*
   * Functional units per resource class of loop workloads, overriding the
   * workload's own limits (README "Loop workloads"): "class:n;class:n"
   * sorted by class name, n >= 1 or -1 for unlimited; "" overrides nothing.
   * Classes are named by the workloads, so they cannot be rows of
   * ACS_PARAM_MAP: this list is the platform's only text-valued parameter.
   * It is set by the `units` column or key (the whole list) and by
   * `units.CLASS` keys (one class), in CSV headers, --set and --vary.
   */
  char units[ACS_PLATFORM_UNITS_MAX];
};

/* Fills defaults; name "default". */
void acs_platform_init(struct acs_platform *p);
/* Index of a parameter by column name, or -1. */
int acs_param_find(const char *name);
/* Whether only the barrier pass after scheduling reads parameter i (the
 * barrier count and slots): variants that differ in these alone plan the
 * same (the sweep's plan groups and the runs' memo of schedules). */
int acs_param_after_scheduling(int i);
/* "; did you mean cmx_kib?" when an unknown key is a likely misspelling
 * of a parameter or of `units`, else "" (core/suggest.h); returns buf. */
const char *acs_param_suggest(const char *key, char *buf, size_t size);
/*
 * Sets one parameter from text ("key=value" handled by the caller). Integer
 * parameters are read as integers (never through a double); validates the
 * number, integer-ness, minimum and maximum. On error fills d (file/line/col
 * are the caller's) with "<name>: ..." and returns ACS_EPARSE (not a number,
 * not an integer) or ACS_ERANGE (below the minimum, above the maximum or
 * beyond int64_t: "'<text>' is out of range (max N)").
 */
int acs_platform_set(struct acs_platform *p, int param, const char *text,
                     struct acs_diag *d, const char *file, int line, int col);
/* Applies a "key=value" override (the --set form). Errors read
 * "--set key=value: ..." (d->file empty). */
int acs_platform_set_kv(struct acs_platform *p, const char *kv,
                        struct acs_diag *d);
/*
 * Unit-count overrides (the `units` list above).
 *  - acs_platform_units_get: 1 and *n when cls has an override, else 0.
 *  - acs_platform_units_set: adds or replaces the override of cls (n >= 1, or
 *    -1 for unlimited); ACS_EPARSE for a class name that is empty, longer
 *    than ACS_UNIT_CLASS_MAX - 1 bytes or holds one of ":;,=" or a blank,
 *    ACS_ERANGE for a bad count or a list that would not fit.
 *  - acs_platform_units_parse: replaces the whole list by "class:n;..."
 *    (blanks around items allowed, "" clears it); errors as above, at the
 *    item's column (col is the text's first column).
 * O(length of the list) each.
 */
int acs_platform_units_get(const struct acs_platform *p, const char *cls, int64_t *n);
int acs_platform_units_set(struct acs_platform *p, const char *cls, int64_t n,
                           struct acs_diag *d, const char *file, int line, int col);
int acs_platform_units_parse(struct acs_platform *p, const char *text, struct acs_diag *d,
                             const char *file, int line, int col);
/* "units.CLASS" keys: the class name after the prefix, or NULL. */
const char *acs_platform_units_key(const char *key);
/*
 * Sets the value of any key a platform has: a parameter of ACS_PARAM_MAP,
 * `units` (the whole list) or `units.CLASS` (one count). ACS_ENOTFOUND
 * (message in d) for an unknown key; other errors as the setters above.
 */
int acs_platform_set_key(struct acs_platform *p, const char *key, const char *text,
                         struct acs_diag *d, const char *file, int line, int col);

/* Every value within its bounds, and the alignment within the CMX. */
int acs_platform_validate(const struct acs_platform *p, struct acs_diag *d);

static inline double acs_platform_get(const struct acs_platform *p, int param)
{
  return p->v[param];
}

/* Derived values. */
int64_t acs_platform_cmx_bytes(const struct acs_platform *p);
double acs_platform_ddr_gbps(const struct acs_platform *p);      /* dma_gbps / ddr_ratio */
double acs_platform_ddr_bytes_per_cycle(const struct acs_platform *p); /* min(DDR, DMA) rate */
double acs_platform_dma_bytes_per_cycle(const struct acs_platform *p);
double acs_platform_local_bytes_per_cycle(const struct acs_platform *p);
/* Cycles of a DDR<->CMX transfer of `bytes` running alone: latency +
 * ceil(bytes / ddr B/cycle); -1 when that is more than ACS_QTY_MAX. */
int64_t acs_platform_ddr_cycles(const struct acs_platform *p, int64_t bytes);
/* Cycles of a CMX<->CMX transfer (no DDR): ceil(bytes / dma B/cycle); -1
 * when that is more than ACS_QTY_MAX. */
int64_t acs_platform_cmx_cycles(const struct acs_platform *p, int64_t bytes);

#endif
