#!/usr/bin/env bash
# End-to-end tests of the `acsim` program: runs, results files, and every
# class of bad input (exit 2 with a located message, files left intact).
# Prints "N passed, N failed" and exits non-zero on any failure.
set -u
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
SHARED=$SRC/../shared/data
PY=/usr/bin/python3
T=$(mktemp -d /tmp/acsim-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
nruns() { h5dump -H -d /runs "$1" 2>/dev/null | sed -nE 's/.*DATASPACE  SIMPLE \{ \( ([0-9]+) \).*/\1/p'; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$T/err" ] && sed 's/^/     | /' "$T/err" | head -n 5; }
# expect NAME CODE PATTERN -- CMD...: exit code and a stderr+stdout pattern.
expect() {
  local name=$1 code=$2 pat=$3; shift 4
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" != "$code" ]; then bad "$name (exit $rc, want $code)"; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/out" "$T/err"; then bad "$name (no /$pat/)"; return; fi
  ok "$name"
}

cd "$SRC" || exit 2

expect version 0 '^acsim [0-9]' -- "$ACSIM" --version
expect help 0 'usage: acsim' -- "$ACSIM" --help
expect run_help 0 'usage: acsim run' -- "$ACSIM" run --help
# The help of the commands that take workloads names every format.
for c in run sweep list; do
  "$ACSIM" $c --help >"$T/help" 2>&1
  miss=
  for f in .onnx SCALE-Sim 'op graph' .sm .stg .graphml 'resource model' .xml SDF3 CSDF .sare .txt; do
    grep -qF -- "$f" "$T/help" || miss="$miss $f"
  done
  [ -z "$miss" ] && ok "help_formats_$c" || bad "help_formats_$c (missing:$miss)"
done
expect workload_directory 2 "workloads/onnx: is a directory; give a workload file" -- "$ACSIM" run -w workloads/onnx
expect unknown_command 2 "unknown command 'frob'" -- "$ACSIM" frob
expect list_schedulers 0 'list' -- "$ACSIM" list schedulers
expect list_platforms 0 'default' -- "$ACSIM" list platforms
expect platform_default 0 'pe_count' -- "$ACSIM" platform
expect platform_set 0 'pe_count +16' -- "$ACSIM" platform platforms/default.csv --set pe_count=16

# A real network, every scheduler, stored and checked independently.
expect run_alexnet 0 'list .* ok' -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s all -o "$T/r.h5" --no-sim
if [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; then
  expect independent_checker 0 'checked [0-9]+ schedules, 0 with violations' -- "$PY" tests/check_schedules.py "$T/r.h5"
else
  echo "skip independent_checker (python3-h5py missing)"
fi
# Appending continues the file (one more row than -s all wrote).
if command -v h5dump >/dev/null; then
  nruns=$(h5dump -H -d /runs "$T/r.h5" | grep -oE 'SIMPLE \{ \( [0-9]+' | grep -oE '[0-9]+$')
fi
expect run_append 0 'written to' -- "$ACSIM" run -w workloads/dnn/resnet18.csv -s list -o "$T/r.h5" --no-sim
if command -v h5dump >/dev/null; then
  expect appended_rows 0 "DATASPACE  SIMPLE \\{ \\( $((nruns + 1)) \\) " -- h5dump -H -d /runs "$T/r.h5"
fi

# Simulation: planned and simulated makespans, simulated times that respect
# every stored edge (checked independently), a trace that is valid JSON.
expect run_sim 0 'list +ok +[0-9]+ +[0-9]+ ' -- "$ACSIM" run -w workloads/dnn/resnet18.csv -s all -o "$T/sim.h5" --trace "$T/trace.json"
if [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; then
  expect sim_times_respect_edges 0 'run_2: [0-9]+ ops \(simulated\), ok' -- "$PY" tests/check_schedules.py "$T/sim.h5"
fi
expect trace_is_json 0 '' -- "$PY" -c 'import json,sys; t=json.load(open(sys.argv[1])); assert any(e.get("ph")=="X" for e in t["traceEvents"])' "$T/trace.json"
expect trace_with_no_sim 2 'cannot go with --no-sim' -- "$ACSIM" run -w workloads/dnn/alexnet.csv --no-sim --trace "$T/x.json"
expect simgrid_xml 0 '<platform version="4.1">' -- "$ACSIM" platform platforms/vpu.csv --row vpu --simgrid-xml
expect simgrid_xml_needs_row 2 'needs one' -- "$ACSIM" platform platforms/vpu.csv --simgrid-xml

# PSPLIB through the CLI: never below the proven optimum.
sm=$SHARED/psplib/j30/j301_1.sm
if [ -f "$sm" ]; then
  "$ACSIM" run -w "$sm" -s list --no-sim >"$T/out" 2>"$T/err"
  mk=$(awk '$3=="list" && $4=="ok" {print $5}' "$T/out")
  opt=$(awk '$1==1 && $2==1 && NF>=3 && $3 ~ /^[0-9]+$/ {print $3; exit}' "$SHARED/psplib/optima/j30opt.sm")
  if [ -n "$mk" ] && [ -n "$opt" ] && [ "$mk" -ge "$opt" ]; then ok "psplib_not_below_optimum ($mk >= $opt)"; else bad "psplib_not_below_optimum ($mk vs $opt)"; fi
fi

# Bad input: exit 2, one located message, nothing written.
printf 'name,pe_count,warp_drive\nx,4,1\n' >"$T/badcol.csv"
expect unknown_column 2 'badcol.csv:1:[0-9]+: .*warp_drive' -- "$ACSIM" platform "$T/badcol.csv"
printf 'name,pe_count\nx,four\n' >"$T/badnum.csv"
expect bad_number 2 'badnum.csv:2:3: ' -- "$ACSIM" run -p "$T/badnum.csv" -w workloads/dnn/alexnet.csv --no-sim
printf 'name,cmx_kib\nx,0\n' >"$T/zero.csv"
expect zero_capacity 2 'zero.csv:2:3: ' -- "$ACSIM" platform "$T/zero.csv"
expect unknown_scheduler 2 "unknown scheduler 'nope'" -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s nope
expect unknown_option 2 "no selected scheduler has option 'frobnicate'" -- "$ACSIM" run -w workloads/dnn/alexnet.csv -O frobnicate=1
expect bad_set 2 "unknown parameter 'cmx_mib'" -- "$ACSIM" run -w workloads/dnn/alexnet.csv --set cmx_mib=4
# Never a silent no-op: schedulers that take none of the workloads are an
# error naming the kinds they take; beside one that runs, the pairs left
# out are named once; the sweep announces only the runs it will make.
expect nothing_runs_modulo_onnx 2 "nothing to run: modulo takes loop workloads, and the workloads given are alexnet \(dnn\)" -- "$ACSIM" run -w workloads/onnx/alexnet.onnx -s modulo -o "$T/none.h5"
[ ! -e "$T/none.h5" ] && ok nothing_runs_writes_nothing || bad nothing_runs_writes_nothing
expect nothing_runs_gang_affine 2 "gang takes sdf workloads, affine takes affine workloads" -- "$ACSIM" run -w workloads/onnx/alexnet.onnx -s gang,affine
expect nothing_runs_cascade_spill_loop 2 "cascade takes dnn workloads, spill takes dnn or graph workloads, and the workloads given are fir3 \(loop\)" -- "$ACSIM" sweep -w workloads/loops/fir3.csv -s cascade,spill -o "$T/none.h5"
expect nothing_runs_validate 2 "modulo takes loop workloads" -- "$ACSIM" validate psplib tests/data/psplib -s modulo
expect skipped_pairs_named 0 "modulo \(takes loop\) skips alexnet \(dnn\)" -- "$ACSIM" run -w workloads/onnx/alexnet.onnx -w workloads/loops/fir3.csv -s modulo,spill --no-sim -o "$T/mixed.h5"
grep -q "spill (takes dnn or graph) skips fir3 (loop)" "$T/err" && [ "$(grep -c 'skips' "$T/err")" = 2 ] && ok skipped_pairs_named_once || bad skipped_pairs_named_once
[ "$(nruns "$T/mixed.h5")" = 2 ] && ok skipped_pairs_not_stored || bad "skipped_pairs_not_stored ($(nruns "$T/mixed.h5"))"
expect quiet_hides_skip_note 0 "" -- "$ACSIM" run -q -w workloads/onnx/alexnet.onnx -w workloads/loops/fir3.csv -s modulo,spill --no-sim
[ ! -s "$T/err" ] && ok quiet_hides_skip_note_empty || bad quiet_hides_skip_note_empty
# 4 workloads (3 dnn, 1 graph) x modulo,list: only list runs, 4 pairs x 2 CMX sizes.
expect sweep_counts_applicable 0 "^sweep: 2 platform variants x 4 scheduler-workload pairs = 8 runs$" -- "$ACSIM" sweep -q -j 1 -w workloads/suites/default.txt --vary cmx_kib=256,512 -s modulo,list --no-sim -o "$T/fit.h5"
grep -q "4 workloads x 2 schedulers make 8 pairs; 4 do not run" "$T/out" && [ "$(nruns "$T/fit.h5")" = 8 ] && ok sweep_stores_applicable || bad "sweep_stores_applicable ($(nruns "$T/fit.h5"))"
# The next step names a report directory beside the study, as quickstart writes it.
mkdir -p "$T/sub"
expect sweep_next_beside 0 "^next: acsim report $T/sub/s.h5 -o $T/sub/report\$" -- "$ACSIM" sweep -q -w workloads/onnx/alexnet.onnx -s list --no-sim -o "$T/sub/s.h5"
grep -q "= 1 run\$" "$T/out" && ok sweep_one_run_singular || bad sweep_one_run_singular
expect sweep_all_applicable 0 "^sweep: 1 platform variant x 1 workload x 2 schedulers = 2 runs$" -- "$ACSIM" sweep -q -j 1 -w workloads/onnx/alexnet.onnx -s list,spill --no-sim -o "$T/fit2.h5"

# "Did you mean": a likely misspelling of a scheduler, an option or a
# parameter is named; an option of an unselected scheduler says who has it.
expect suggest_scheduler 2 "unknown scheduler 'spil'; did you mean spill\?" -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s list,spil
expect suggest_option 2 "option 'iteration'; did you mean iterations\?" -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s list -O iteration=3
expect option_elsewhere 2 "option 'iterations' \(list, ilp, strip have it" -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s spill -O iterations=3
expect suggest_set 2 "unknown parameter 'pe_cont'; did you mean pe_count\?" -- "$ACSIM" run -w workloads/dnn/alexnet.csv --set pe_cont=8
expect suggest_vary 2 "unknown parameter 'barrier'; did you mean barriers\?" -- "$ACSIM" sweep -w workloads/dnn/alexnet.csv --vary barrier=4 -o "$T/never.h5"
expect missing_workload 2 'nonexistent.csv' -- "$ACSIM" run -w "$T/nonexistent.csv"
expect no_workload 2 'no workload' -- "$ACSIM" run
printf 'Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\nConv1,224,224,7,7,three,64,2,\n' >"$T/baddnn.csv"
expect bad_dnn_field 2 'baddnn.csv:2:[0-9]+: ' -- "$ACSIM" run -w "$T/baddnn.csv"

# A truncated results file is rejected and left exactly as it was.
cp "$T/r.h5" "$T/trunc.h5"; truncate -s 2000 "$T/trunc.h5"; sum=$(md5sum <"$T/trunc.h5")
expect truncated_h5 2 'trunc.h5' -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s list -o "$T/trunc.h5" --no-sim
if [ "$(md5sum <"$T/trunc.h5")" = "$sum" ]; then ok truncated_h5_untouched; else bad truncated_h5_untouched; fi
ls "$T"/trunc.h5.* >/dev/null 2>&1 && bad "temporary file left behind" || ok no_temp_left

# An infeasible platform is a result, not a crash.
expect infeasible_cmx 0 'infeasible' -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s list --set cmx_kib=1 --set cmx_align_bytes=1 --no-sim

# Optimal schedules (issue 6): ilp proves a PSPLIB optimum, reports its gap
# on a DNN within the limit (the schedule verifies and simulates), strip
# packs; validate end to end on small sets, with /validation in HDF5.
# (The limits of runs that must prove optimality are generous watchdogs:
# they prove in well under a second, but the limit is wall-clock, and a
# sanitizer build on a loaded machine is many times slower.)
expect ilp_psplib_ok 0 'ilp +ok +43 ' -- "$ACSIM" run -w tests/data/psplib/j301_1.sm -s ilp --time-limit 120 --no-sim
expect ilp_dnn_gap 0 'ilp +(ok|timeout) +[0-9]+ +[0-9]+' -- "$ACSIM" run -w workloads/dnn/resnet18.csv -s ilp --time-limit 1
expect strip_dnn 0 'strip +(ok|timeout) +[0-9]+' -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s strip --time-limit 2 --no-sim
# Packings that reuse an address carry control edges, so the barrier pass,
# which re-times the plan, cannot make two ranges overlap (it did: "CMX
# ranges of 'Conv5.w1' and 'Conv2.i0' overlap" at 4-byte elements).
expect strip_barriers_keep_ranges_apart 0 'strip +(ok|timeout) +[0-9]+' -- "$ACSIM" run -q -w workloads/dnn/alexnet.csv -s strip --set bytes_per_elem=4 --set barriers=3 --time-limit 2 --no-sim
expect ilp_contiguous_barriers_keep_ranges_apart 0 'ilp +(ok|timeout) +[0-9]+' -- "$ACSIM" run -q -w workloads/dnn/alexnet.csv -s ilp -O contiguous=1 -O max_steps=100 --set bytes_per_elem=4 --set barriers=3 --time-limit 2 --no-sim
expect validate_psplib 0 'psplib/j30 +ilp .* 12 ' -- "$ACSIM" validate psplib tests/data/psplib -s list,ilp -O iterations=50 --time-limit 0.3 -o "$T/v.h5"
if command -v h5dump >/dev/null; then
  expect validation_rows 0 'DATASPACE  SIMPLE \{ \( 2 \) ' -- h5dump -H -d /validation "$T/v.h5"
  expect validate_runs_stored 0 'DATASPACE  SIMPLE \{ \( 24 \) ' -- h5dump -H -d /runs "$T/v.h5"
fi
mkdir -p "$T/stg/50" "$T/stg/optimal"
cp tests/data/load/rand0000.stg "$T/stg/50/"
printf '50/rand0000.stg,4,66\n' >"$T/stg/optimal/Case50_4_OPT.csv"
expect validate_stg 0 'stg/50 p=4 +list .* 1 +0\.00 +0\.00 +1 ' -- "$ACSIM" validate stg "$T/stg"
printf 'Par Inst Makespan CPU-Time\n1 1 4x3 0.1\n' >"$T/stg/optimal/bad.sm"
mkdir -p "$T/badset/optima" && cp "$T/stg/optimal/bad.sm" "$T/badset/optima/j30opt.sm"
expect validate_bad_table 2 'j30opt.sm:2:5: ' -- "$ACSIM" validate psplib "$T/badset" -o "$T/vbad.h5"
[ -e "$T/vbad.h5" ] && bad "validate wrote a file after bad input" || ok validate_bad_input_writes_nothing
expect validate_bad_kind 2 "unknown set kind 'rcp'" -- "$ACSIM" validate rcp "$T/stg"

# Memory-aware scheduling (issue 4): spill ops in a verified, simulated
# schedule, checked independently; the precondition names the op and bytes.
expect spill_mobilenet 0 'spill +ok +[0-9]+ +[0-9]+ ' -- "$ACSIM" run -w workloads/dnn/mobilenet_v1.csv -s spill --set cmx_kib=256 -o "$T/spill.h5"
if [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; then
  expect spill_checker 0 'checked 1 schedules, 0 with violations' -- "$PY" tests/check_schedules.py "$T/spill.h5"
  expect spill_ops_stored 0 'spill ops [1-9]' -- "$PY" -c '
import h5py, sys
g = h5py.File(sys.argv[1], "r")["/schedules/run_1"]
ops, n = g["ops"][()], int(g.attrs["norig"])
added = [o for o in ops[n:] if o["kind"] == b"dma" and o["unit"] >= 0 and o["bytes"] > 0]
assert len(added) == len(ops) - n and any(o["cmx_offset"] >= 0 for o in added)
assert sum(1 for e in g["edges"][()] if e["kind"] == b"control") > 0
print("spill ops", len(added))' "$T/spill.h5"
fi
expect spill_write_back 0 'spill +ok ' -- "$ACSIM" run -w workloads/dnn/resnet18.csv -s spill -O clean=write -O evict=belady --set cmx_kib=128 --no-sim
expect spill_precondition 0 "op 'denoise' needs 92160 bytes of CMX at once" -- "$ACSIM" run -w workloads/graphs/isp_pipeline.csv -s spill --set cmx_kib=64 --no-sim
expect spill_bad_option 2 "option 'placement': unknown value 'worst'" -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s spill -O placement=worst --no-sim

# Barrier programs (issue 5): a verified, simulated run with 2 barriers whose
# stored program touches at most 2 barriers and has waits and barrier edges;
# an op needing more producer slots than a barrier has is infeasible.
expect barriers_resnet18 0 'list +ok +[0-9]+ +[0-9]+ ' -- "$ACSIM" run -w workloads/dnn/resnet18.csv -s list --set barriers=2 -o "$T/bar.h5"
if [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; then
  expect barriers_checker 0 'checked 1 schedules, 0 with violations' -- "$PY" tests/check_schedules.py "$T/bar.h5"
  expect barriers_stored 0 'barriers [12] waits [1-9]' -- "$PY" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
g, run = f["/schedules/run_1"], f["/runs"][0]
ops = g["ops"][()]
assert (ops["update_barrier"] >= 0).all() and (ops["update_barrier"] < 2).all()
assert run["barriers_used"] == len(set(ops["update_barrier"])) <= 2
assert run["control_edges"] == sum(1 for e in g["edges"][()] if e["kind"] == b"control") > 0
print("barriers", run["barriers_used"], "waits", len(g["waits"]))' "$T/bar.h5"
fi
expect barriers_slots_infeasible 0 "infeasible: op 'merge' needs 2 barrier producer slots but a barrier has 1" -- "$ACSIM" run -w workloads/graphs/isp_pipeline.csv -s list --set barriers=4 --set barrier_slots=1 --no-sim

# A proven optimum is its own lower bound: ilp on j301_1 reaches the optimum
# read from j30opt.sm and shows a 0.0% gap.
if [ -f "$sm" ] && [ -n "$opt" ]; then
  expect ilp_proven_has_no_gap 0 "ilp +ok +$opt .* $opt +0\\.0 " -- "$ACSIM" run -q -w "$sm" -s ilp --time-limit 120 --no-sim
fi

# --time-step is -O time_step for ilp; with no ilp selected it is a usage error.
expect time_step_flag 0 'time step 500 cycles' -- "$ACSIM" run -q -w workloads/graphs/isp_pipeline.csv -s ilp --time-step 500 --no-sim
expect time_step_without_ilp 2 "no selected scheduler has option 'time_step'" -- "$ACSIM" run -q -w workloads/graphs/isp_pipeline.csv -s list --time-step 500 --no-sim

# Bounded inputs (issue 10): every platform parameter has a documented
# maximum; a value above it, or an integer beyond int64, is one located
# line and exit 2 (never rounded through a double, never an overflow
# later); the largest values still run.
# one_line NAME CODE PATTERN -- CMD...: like expect, and stdout+stderr are one line.
one_line() {
  local name=$1; expect "$@"
  [ "$(cat "$T/out" "$T/err" | wc -l)" = 1 ] && ok "${name}_one_line" || bad "${name}_one_line ($(cat "$T/out" "$T/err" | wc -l) lines)"
}
printf 'name,pe_count\nhuge,100000000\n' >"$T/huge.csv"
one_line pe_count_above_max 2 "huge.csv:2:6: pe_count: '100000000' is out of range \(max 1048576\)" -- "$ACSIM" run -p "$T/huge.csv" -w workloads/dnn/alexnet.csv --no-sim
one_line set_beyond_int64 2 "^acsim: --set pe_count=99999999999999999999: '99999999999999999999' is out of range \(max 1048576\)$" -- "$ACSIM" run -w workloads/dnn/alexnet.csv --set pe_count=99999999999999999999 --no-sim
one_line set_not_rounded 2 "'9007199254740993' is out of range \(max 67108864\)" -- "$ACSIM" platform --set cmx_kib=9007199254740993
one_line set_freq_1e308 2 "--set freq_mhz=1e308: '1e308' is out of range \(max 10000\)" -- "$ACSIM" run -w workloads/dnn/alexnet.csv --set freq_mhz=1e308 --no-sim
one_line set_int32_plus_one 2 "'2147483648' is out of range \(max 1048576\)" -- "$ACSIM" run -w workloads/dnn/alexnet.csv --set pe_count=2147483648 --no-sim
one_line vary_beyond_int64 2 "^acsim: --vary:1:10: pe_count: '99999999999999999999' is out of range \(max 1048576\)$" -- "$ACSIM" sweep -w workloads/dnn/alexnet.csv --vary pe_count=99999999999999999999 -o "$T/vary.h5"
one_line vary_below_min 2 "^acsim: --vary:1:9: cmx_kib: 0 is below the minimum 1" -- "$ACSIM" sweep -w workloads/dnn/alexnet.csv --vary cmx_kib=0 -o "$T/vary.h5"
[ -e "$T/vary.h5" ] && bad "vary_errors_write_nothing" || ok "vary_errors_write_nothing"
expect platform_help_lists_bounds 0 'pe_count +1 \.\. 1048576' -- "$ACSIM" platform --help
expect largest_platform_runs 0 'list +ok' -- "$ACSIM" run -q -w workloads/dnn/alexnet.csv -s sequential,list,spill --no-sim \
  --set pe_count=1048576 --set dma_channels=1048576 --set cmx_kib=67108864 --set freq_mhz=10000 \
  --set pe_macs_per_cycle=1048576 --set barriers=65536 --set barrier_slots=65536 --set dma_gbps=1e8 \
  --set local_gbps=1e8 --set ddr_ratio=1e6 --set ddr_latency_cycles=1000000 --set bytes_per_elem=16 \
  --set cmx_align_bytes=1048576 --set pe_vmem_kib=67108864 --set pe_pmem_kib=67108864
expect smallest_platform_runs 0 'sequential +infeasible' -- "$ACSIM" run -q -w workloads/dnn/alexnet.csv -s sequential --no-sim \
  --set pe_count=1 --set dma_channels=1 --set cmx_kib=1 --set freq_mhz=0.001 --set dma_gbps=1e-6 \
  --set local_gbps=1e-6 --set ddr_ratio=1e-6 --set cmx_align_bytes=1
# Derived overflow: alexnet's weights over a 1 kB/s link at 10 GHz take
# longer than 2^53 cycles, a located error rather than a wrapped duration.
one_line transfer_too_long 2 "alexnet.csv:2: op 'Conv1.w[0-9]*' would take more than 9007199254740992 cycles on platform 'default'" -- "$ACSIM" run -q -w workloads/dnn/alexnet.csv --no-sim --set freq_mhz=10000 --set dma_gbps=1e-6 --set ddr_ratio=1e6 --set bytes_per_elem=16
printf 'name,kind,cycles\na,dpu,9223372036854775807\n' >"$T/bigop.csv"
one_line graph_cycles_beyond_2_53 2 "bigop.csv:2:7: '9223372036854775807' is out of range for column 'cycles' \(max 9007199254740992\)" -- "$ACSIM" run -w "$T/bigop.csv" --no-sim
printf 'name,kind,cycles,after\na,dpu,4503599627370496\nb,dpu,4503599627370497,a\n' >"$T/sumop.csv"
one_line graph_sum_beyond_2_53 2 "sumop.csv:3: the ops up to 'b' already take more than 9007199254740992 cycles" -- "$ACSIM" run -w "$T/sumop.csv" --no-sim
printf 'name,kind,cycles,after\na,dpu,4503599627370496\nb,dpu,4503599627370496,a\n' >"$T/topop.csv"
expect graph_sum_at_2_53_runs 0 'sequential +ok +9007199254740992 ' -- "$ACSIM" run -w "$T/topop.csv" -s sequential,list --no-sim

# Interrupts (issue 10): SIGINT or SIGTERM in any phase exits 130, keeps the
# runs that finished and leaves no temporary file or child process behind.
# The signal goes once the program shows it is in the phase (a line it
# printed, a child it started, a file that appeared), never after a sleep.
# wait_for PID COMMAND...: polls COMMAND until it succeeds, or PID is gone (1).
wait_for() {
  local pid=$1; shift
  for _ in $(seq 3000); do "$@" && return 0; kill -0 "$pid" 2>/dev/null || return 1; sleep 0.1; done
  return 1
}
# no_leftovers NAME DIR PATTERN: DIR holds exactly the files in PATTERN
# (a regex over `ls -A` joined by spaces) and no process mentions DIR.
no_leftovers() {
  local files; files=$(ls -A "$2" | tr '\n' ' ')
  if ! [[ "$files" =~ ^$3\ $ ]]; then bad "$1_no_temporaries (left: $files)"; else ok "$1_no_temporaries"; fi
  if pgrep -f "$2" >/dev/null; then bad "$1_no_child_left ($(pgrep -af "$2" | head -n 2))"; else ok "$1_no_child_left"; fi
}
if command -v h5dump >/dev/null && command -v pgrep >/dev/null; then
  # Ctrl-C while ilp searches (the two runs before it printed): sequential
  # and list are kept in the results file and the trace; nothing else is
  # left, not even the SimGrid platform XML in TMPDIR.
  D="$T/int-run"; mkdir -p "$D/tmp"
  TMPDIR="$D/tmp" "$ACSIM" run -w tests/data/psplib/j3013_1.sm -s sequential,list,ilp,strip --time-limit 60 \
    -o "$D/r.h5" --trace "$D/t.json" >"$D/out" 2>"$D/err" &
  pid=$!
  wait_for $pid grep -q ' list ' "$D/out" && kill -INT $pid
  wait $pid; rc=$?
  [ "$rc" = 130 ] && ok "sigint_during_ilp_exits_130" || bad "sigint_during_ilp_exits_130 (exit $rc)"
  [ "$(nruns "$D/r.h5")" = 2 ] && ok "sigint_keeps_finished_runs" || bad "sigint_keeps_finished_runs ($(nruns "$D/r.h5") runs)"
  expect sigint_trace_has_them 0 '^2$' -- "$PY" -c 'import json,sys; t=json.load(open(sys.argv[1])); print(len({e["pid"] for e in t["traceEvents"] if e.get("ph")=="X"}))' "$D/t.json"
  rmdir "$D/tmp" 2>/dev/null && ok "sigint_no_xml_left" || bad "sigint_no_xml_left ($(ls "$D/tmp"))"
  no_leftovers sigint_run "$D" 'err out r.h5 t.json'

  # SIGTERM while GLPK solves a big model in its child process: the child
  # is killed, nothing was finished, the results file is created empty.
  D="$T/int-ilp"; mkdir -p "$D"
  "$ACSIM" run -q -w workloads/dnn/resnet50.csv -s ilp -O max_steps=2000 --time-limit 30 --no-sim -o "$D/r.h5" >"$D/out" 2>"$D/err" &
  pid=$!
  wait_for $pid pgrep -P $pid >/dev/null && kill -TERM $pid
  wait $pid; rc=$?
  [ "$rc" = 130 ] && ok "sigterm_during_glpk_exits_130" || bad "sigterm_during_glpk_exits_130 (exit $rc)"
  [ "$(nruns "$D/r.h5")" = 0 ] && ok "sigterm_keeps_nothing_unfinished" || bad "sigterm_keeps_nothing_unfinished ($(nruns "$D/r.h5"))"
  no_leftovers sigterm_glpk "$D" 'err out r.h5'

  # SIGTERM to a sweep once its first run is durable (the study file
  # appears at the first checkpoint): the ilp run in flight stops, the list
  # run is kept, the command says how to resume.
  D="$T/int-sweep"; mkdir -p "$D"
  "$ACSIM" sweep -w tests/data/psplib/j3013_1.sm -s list,ilp --time-limit 30 -j 1 -o "$D/s.h5" >"$D/out" 2>"$D/err" &
  pid=$!
  wait_for $pid test -e "$D/s.h5" && kill -TERM $pid
  wait $pid; rc=$?
  if [ "$rc" = 130 ] && [ "$(nruns "$D/s.h5")" = 1 ] && grep -q 'run the same command again to resume' "$D/out"; then
    ok "sigterm_sweep_keeps_finished_runs"
  else
    bad "sigterm_sweep_keeps_finished_runs (exit $rc, $(nruns "$D/s.h5") runs)"
  fi
  no_leftovers sigterm_sweep "$D" 'err out s.h5'
else
  echo "skip interrupts (h5dump or pgrep missing)"
fi

# ONNX models (issue 11): every shipped network runs list and spill,
# verified and simulated, with no warning; `acsim workload` shows the layer
# table and the seed's 1.2 MB working set; bad files are exit 2, located.
# expect_clean NAME PATTERN -- CMD...: exit 0, PATTERN in the output, no warning.
expect_clean() {
  local name=$1 pat=$2; shift 3
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" != 0 ]; then bad "$name (exit $rc)"; return; fi
  if grep -qi warning "$T/out" "$T/err"; then bad "$name (warns)"; return; fi
  if ! grep -qE -- "$pat" "$T/out"; then bad "$name (no /$pat/)"; return; fi
  ok "$name"
}
for net in mobilenet_v1 mobilenet_v2 resnet18 resnet50 squeezenet1_1 tiny_yolov2 unet alexnet; do
  expect_clean "onnx_run_$net" "spill +ok +[0-9]+ +[0-9]+ " -- "$ACSIM" run -w "workloads/onnx/$net.onnx" -s list,spill
done
expect_clean onnx_default_study_suite 'runs in' -- "$ACSIM" sweep -w workloads/suites/default.txt -s list -o "$T/suite.h5"
expect workload_help 0 'usage: acsim workload' -- "$ACSIM" workload --help
expect workload_table 0 'naive working set 1204224 B \(node block1.pw' -- "$ACSIM" workload workloads/onnx/mobilenet_v1.onnx
expect workload_totals 0 'total: 568.74 M MACs \(568740352\).*\(4231976\)' -- "$ACSIM" workload workloads/onnx/mobilenet_v1.onnx
expect workload_fused 0 'block1.dw +Conv\+BatchNormalization\+Relu +1x32x112x112 +1x32x112x112' -- "$ACSIM" workload workloads/onnx/mobilenet_v1.onnx
expect workload_scalesim 0 'Conv1 .* 1x3x224x224 +1x96x54x54' -- "$ACSIM" workload -q workloads/dnn/alexnet.csv
expect workload_graph 0 'op graph [0-9]+ ops' -- "$ACSIM" workload workloads/graphs/isp_pipeline.csv
expect workload_two_bytes 0 'naive working set 2408448 B' -- "$ACSIM" workload workloads/onnx/mobilenet_v1.onnx --set bytes_per_elem=2
expect workload_missing 2 'WORKLOAD is required' -- "$ACSIM" workload
expect onnx_unsupported_op 2 "lstm.onnx: node 'lstm1' \(LSTM\): unsupported op" -- "$ACSIM" run -w tests/data/onnx/lstm.onnx
expect onnx_unknown_dim 2 "symbolic.onnx: node 'conv' \(Conv\): input 'x' has an unknown dimension 0 \('N'\)" -- "$ACSIM" workload tests/data/onnx/symbolic.onnx
head -c 3000 workloads/onnx/resnet18.onnx >"$T/cut.onnx"
expect onnx_truncated 2 'cut.onnx: not an ONNX model, or a truncated or corrupt one' -- "$ACSIM" run -w "$T/cut.onnx"

# Limits (docs/fuzzing.md): a workload that asks for more than a limit is
# refused before anything is built, exit 2, one located line naming the
# limit and how to raise it; --max raises (or lowers) it for the command.
one_line limit_sdf_rates 2 "rates-1-19999999.xml:6: .*would need 20000000 ops, more than the limit ops=2097152 \(--max ops=N raises it\)$" -- "$ACSIM" run -w tests/fuzz/repro/sdf3/rates-1-19999999.xml -s list --no-sim -o "$T/limit.h5"
[ -e "$T/limit.h5" ] && bad "limit_refusal_writes_nothing" || ok "limit_refusal_writes_nothing"
expect limit_lowered 2 "fir3.csv: 8 iterations of loop 'fir3' \(18 ops each; loop_iterations\) would need 144 ops, more than the limit ops=100" -- "$ACSIM" workload workloads/loops/fir3.csv --max ops=100
expect limit_raised 0 'op graph 144 ops' -- "$ACSIM" workload workloads/loops/fir3.csv --max ops=144
for c in run sweep workload validate report compare merge; do
  expect "limit_bad_key_$c" 2 "--max opps=1: unknown limit 'opps' \(the limits are ops, edges, bytes, isl_ops\)" -- "$ACSIM" $c --max opps=1
done
expect limit_bad_value 2 "--max ops=0: '0' is out of range" -- "$ACSIM" run -w workloads/loops/fir3.csv --max ops=0

# --help (issue 10): each usage line lists every option documented below it
# and nothing else; an option means the same in every command (the same
# first line of description; -o is the output everywhere, whatever it
# holds); a short option stands for one long option in every command.
cat >"$T/help.awk" <<'AWK'
function tokens(s, kind,   t) {
  while (match(s, /(^|[[ ,])--?[A-Za-z][-A-Za-z]*/)) {
    t = substr(s, RSTART, RLENGTH); sub(/^[[ ,]/, "", t)
    if (kind == "U") print "U " t; else forms = forms " " t
    s = substr(s, RSTART + RLENGTH)
  }
}
/^usage:/ { inusage = 1 }
inusage && /^$/ { inusage = 0; next }
inusage { sub(/^usage: acsim [a-z]+/, ""); tokens($0, "U"); next }
/^ +-/ && match($0, /^ +/) && RLENGTH <= 6 {
  line = $0; sub(/^ +/, "", line); spec = line; desc = ""
  if (match(line, /  +/)) { spec = substr(line, 1, RSTART - 1); desc = substr(line, RSTART + RLENGTH) }
  forms = ""; tokens(spec, "D"); sub(/^ /, "", forms)
  print "D " forms "\t" desc
}
AWK
: >"$T/alldoc"
for c in run sweep validate report compare merge list platform; do
  "$ACSIM" $c --help | awk -f "$T/help.awk" >"$T/help.$c"
  grep '^U ' "$T/help.$c" | cut -c3- | sort -u >"$T/usage.$c"
  grep '^D ' "$T/help.$c" | cut -c3- >"$T/doc.$c"
  sed "s/^/$c	/" "$T/doc.$c" >>"$T/alldoc"
  missing=""; extra=""
  while IFS='	' read -r forms desc; do
    hit=0; for f in $forms; do grep -qxF -- "$f" "$T/usage.$c" && hit=1; done
    [ $hit = 1 ] || missing="$missing $forms"
  done <"$T/doc.$c"
  while read -r u; do
    cut -f1 "$T/doc.$c" | tr ' ' '\n' | grep -qxF -- "$u" || extra="$extra $u"
  done <"$T/usage.$c"
  if [ -s "$T/doc.$c" ] && [ -z "$missing$extra" ]; then ok "help_usage_lists_options_$c ($(wc -l <"$T/doc.$c") options)"
  else bad "help_usage_lists_options_$c (documented, not in usage:${missing:- none}; in usage, not documented:${extra:- none})"; fi
done
[ "$(wc -l <"$T/doc.run")" -ge 12 ] && ok help_parsed_run_options || bad "help_parsed_run_options ($(wc -l <"$T/doc.run"))"
# One description per long option (the output aside), one long option per short one.
incons=$(awk -F'\t' '{ n = split($2, f, " "); long = f[n]
  if (long == "--output") next
  if (long in d && d[long] != $3) print long ": \"" d[long] "\" (" c[long] ") vs \"" $3 "\" (" $1 ")"
  d[long] = $3; c[long] = $1 }' "$T/alldoc")
[ -z "$incons" ] && ok help_same_option_same_meaning || bad "help_same_option_same_meaning: $incons"
incons=$(awk -F'\t' '{ n = split($2, f, " "); if (n < 2) { lo[f[1]] = lo[f[1]] ""; next }
  s = f[1]; l = f[2]
  if (s in sl && sl[s] != l) print s " is " sl[s] " and " l
  if (l in ls && ls[l] != s) print l " is " ls[l] " and " s
  sl[s] = l; ls[l] = s } END { for (l in lo) if (l in ls) print l " has no short form in some command" }' "$T/alldoc")
[ -z "$incons" ] && ok help_short_options_consistent || bad "help_short_options_consistent: $incons"
grep -qE '^-q --quiet	no warnings or progress' "$T/doc.validate" && ok help_quiet_validate || bad help_quiet_validate

# Exit codes (issue 10), the same situation the same code in every command:
# a bad option, a missing input, an output that cannot be written are 2.
for c in run sweep validate report compare merge list platform; do
  expect "exit_bad_option_$c" 2 "unknown option '--bogus'" -- "$ACSIM" $c --bogus
done
expect exit_missing_input_run 2 'nope.csv: cannot open' -- "$ACSIM" run -w "$T/nope.csv"
expect exit_missing_input_sweep 2 'nope.csv: cannot open' -- "$ACSIM" sweep -w "$T/nope.csv" -o "$T/never.h5"
expect exit_missing_input_validate 2 'nope' -- "$ACSIM" validate psplib "$T/nope"
expect exit_missing_input_report 2 'nope.h5: cannot open' -- "$ACSIM" report "$T/nope.h5" -o "$T/never"
expect exit_missing_input_compare 2 'nope.h5: cannot open' -- "$ACSIM" compare "$T/nope.h5" "$T/r.h5"
expect exit_missing_input_merge 2 'nope.h5: cannot open' -- "$ACSIM" merge "$T/nope.h5" -o "$T/never.h5"
expect exit_missing_input_platform 2 'nope.csv: cannot open' -- "$ACSIM" platform "$T/nope.csv"
nd=$T/no/such/dir
expect exit_unwritable_run 2 'cannot create' -- "$ACSIM" run -q -w workloads/dnn/alexnet.csv -s list --no-sim -o "$nd/x.h5"
expect exit_unwritable_sweep 2 'cannot create' -- "$ACSIM" sweep -q -w workloads/dnn/alexnet.csv -s list --no-sim -o "$nd/x.h5"
expect exit_unwritable_validate 2 'cannot create' -- "$ACSIM" validate psplib tests/data/psplib -O iterations=0 -o "$nd/x.h5"
expect exit_unwritable_report 2 'cannot create' -- "$ACSIM" report "$T/r.h5" -o "$nd/rep"
expect exit_unwritable_compare 2 'cannot write' -- "$ACSIM" compare "$T/r.h5" "$T/r.h5" --junit "$nd/j.xml"
expect exit_unwritable_merge 2 'cannot create' -- "$ACSIM" merge "$T/r.h5" -o "$nd/x.h5"
[ -e "$T/never.h5" ] || [ -e "$T/never" ] && bad "a refused command wrote its output" || ok refused_commands_write_nothing

# -q: no warnings and no progress (a sweep's progress line goes to stderr).
"$ACSIM" sweep -w workloads/dnn/alexnet.csv -s list --no-sim -j 1 -o "$T/q1.h5" >/dev/null 2>"$T/err"
grep -q 'note: ' "$T/err" && grep -qE '^sweep: [0-9]+/[0-9]+ runs' "$T/err" && ok sweep_progress_without_q || bad sweep_progress_without_q
"$ACSIM" sweep -q -w workloads/dnn/alexnet.csv -s list --no-sim -j 1 -o "$T/q2.h5" >/dev/null 2>"$T/err"
[ ! -s "$T/err" ] && ok sweep_quiet_is_silent || bad sweep_quiet_is_silent

# acsim list (issue 10): only regular files of the kinds acsim reads, with
# their kind; a directory is never read; a file that does not read is a
# located error and exit 2, and the listing goes on.
L=$T/listing
mkdir -p "$L/platforms/sub.csv" "$L/workloads/set/deeper" "$L/workloads/.hidden"
cp platforms/default.csv "$L/platforms/"
printf 'name,pe_count\nx,four\n' >"$L/platforms/broken.csv"
printf 'notes\n' >"$L/platforms/README.md"
cp platforms/default.csv "$L/platforms/.hidden.csv"
cp tests/data/psplib/j301_1.sm "$L/workloads/set/"
cp workloads/graphs/isp_pipeline.csv "$L/workloads/set/deeper/"
cp workloads/dnn/alexnet.csv "$L/workloads/.hidden/"
printf 'set/j301_1.sm\n' >"$L/workloads/mine.txt"
(cd "$L" && "$ACSIM" list platforms) >"$T/out" 2>"$T/err"; rc=$?
if [ $rc = 2 ] && grep -qE '^  platforms/default.csv +platform CSV, 1 row: default$' "$T/out" &&
   grep -q 'broken.csv:2:3: ' "$T/err" && grep -q 'platforms/broken.csv .*does not read' "$T/out" &&
   ! grep -qE 'sub.csv|README|hidden|Is a directory' "$T/out" "$T/err"; then ok list_platforms_regular_files_only
else bad "list_platforms_regular_files_only (exit $rc)"; cat "$T/out" "$T/err" | head; fi
(cd "$L" && "$ACSIM" list workloads) >"$T/out" 2>"$T/err"; rc=$?
if [ $rc = 0 ] && [ ! -s "$T/err" ] && [ "$(grep -c '^  workloads/' "$T/out")" = 3 ] &&
   grep -qE '^  workloads/mine.txt +suite: 1 workload$' "$T/out" &&
   grep -qE '^  workloads/set/deeper/isp_pipeline.csv +graph \(op-graph CSV\): 10 ops, 12 edges$' "$T/out" &&
   grep -qE '^  workloads/set/j301_1.sm +psplib \(PSPLIB .sm\): 32 ops, ' "$T/out"; then ok list_workloads_kinds
else bad "list_workloads_kinds (exit $rc)"; cat "$T/out" "$T/err" | head; fi
expect list_shipped_clean 0 'workloads/suites/default.txt +suite' -- "$ACSIM" list
grep -q 'error' "$T/err" && bad list_shipped_no_errors || ok list_shipped_no_errors
# Every shipped family is listed (SDF3 graphs and recurrence equations
# too), a loop's resource model as such, and the schedulers by the title of
# the document they implement, not by a file name of the seed folder.
grep -qE '^  workloads/sdf/canny.xml +sdf \(SDF3 \(C\)SDF graph\): [0-9]+ ops' "$T/out" && ok list_shows_sdf || bad list_shows_sdf
grep -qE '^  workloads/affine/matmul.sare +affine \(recurrence equations\): 512 ops, 448 edges' "$T/out" && ok list_shows_affine || bad list_shows_affine
grep -qE '^  workloads/loops/iir_biquRM.xml +resource model of workloads/loops/iir_biqu.graphml$' "$T/out" && ok list_shows_resource_model || bad list_shows_resource_model
grep -qE '[0-9]{3}_[0-9a-f]{16}' "$T/out" && bad list_no_seed_hashes || ok list_no_seed_hashes
grep -q 'from: Risset, Reference Manual for the Alpha Scheduler' "$T/out" && ok list_seed_titles || bad list_seed_titles
missing=0
for f in $(grep -oE '^  (platforms|workloads)/[^ ]+' "$T/out"); do [ -f "$f" ] || missing=1; done
[ $missing = 0 ] && ok list_names_existing_files || bad list_names_existing_files

# The bound column (issue 10): a scheduler's proven lower bound reaches it.
# ilp proves 24428 cycles on isp_pipeline (its message says so) where the
# critical-path/resource bound, list's column, is lower; a proven bound
# never exceeds the makespan. slow% never prints -0.0. (ilp settles its
# step model here in about 0.6 s: the 30 s limit is a watchdog.)
"$ACSIM" run -q -w workloads/graphs/isp_pipeline.csv -s list,ilp --time-limit 30 --no-sim -o "$T/bound.h5" >"$T/out" 2>"$T/err"
lb_list=$(awk '$3=="list" {print $8}' "$T/out")
lb_ilp=$(awk '$3=="ilp" {print $8}' "$T/out")
mk_ilp=$(awk '$3=="ilp" {print $5}' "$T/out")
lb_msg=$(grep -oE 'lower bound [0-9]+ cycles' "$T/out" | grep -oE '[0-9]+')
if [ -n "$lb_ilp" ] && [ "$lb_ilp" = "$lb_msg" ] && [ "$lb_ilp" -gt "$lb_list" ] && [ "$lb_ilp" -le "$mk_ilp" ]; then
  ok "bound_column_is_the_proven_bound ($lb_list < $lb_ilp <= $mk_ilp)"
else bad "bound_column_is_the_proven_bound (list $lb_list, ilp $lb_ilp, message $lb_msg, makespan $mk_ilp)"; cat "$T/out"; fi
# The same bound in /runs and in the report's runs.csv.
"$ACSIM" report "$T/bound.h5" -o "$T/boundrep" --gnuplot "$T/no-gnuplot" >/dev/null 2>&1
csv_lb=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "lower_bound_cycles") c = i }
                  NR > 1 && $8 == "ilp" { print $c }' "$T/boundrep/runs.csv")
[ -n "$lb_ilp" ] && [ "$csv_lb" = "$lb_ilp" ] && ok "bound_in_runs_csv ($csv_lb)" || bad "bound_in_runs_csv ('$csv_lb' vs '$lb_ilp')"
if [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; then
  expect bound_in_hdf5 0 "^$lb_ilp\$" -- "$PY" -c '
import h5py, sys
runs = h5py.File(sys.argv[1], "r")["/runs"][()]
print("%.0f" % [r["lower_bound_cycles"] for r in runs if r["scheduler"] == b"ilp"][0])' "$T/bound.h5"
fi
expect slow_pct_no_negative_zero 0 'sequential +ok +[0-9]+ +[0-9]+ +[0-9]' -- "$ACSIM" run -q -w workloads/dnn/resnet18.csv -s sequential
grep -q -- '-0\.0' "$T/out" && bad slow_pct_printed_negative_zero || ok slow_pct_never_negative_zero

# HDF5 (issue 10): every string column of every table is tagged UTF-8 and
# every column with a unit names it in FIELD_<i>_UNITS (checked with h5py,
# independently of acsim's reader, and with h5dump).
if [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; then
  expect h5_utf8_and_units 0 'utf-8 strings in [0-9]+ tables, units ok' -- "$PY" -c '
import h5py, sys
want = {"/runs": {"makespan_cycles": "cycles", "peak_cmx_bytes": "bytes", "sched_seconds": "seconds",
                  "pe_utilization": "1", "run_id": None, "barriers_used": "barriers",
                  "ii": "cycles", "mii": "cycles", "cycles_per_iter": "cycles"},
        "/platforms": {"freq_mhz": "MHz", "cmx_kib": "KiB", "dma_gbps": "GB/s", "pe_count": "PEs",
                       "barriers": "barriers"},
        "/schedules/run_1/ops": {"start": "cycles", "cmx_offset": "bytes", "demand_cmx": "bytes", "unit": None},
        "/validation": {"avg_dev_pct": "%", "time_limit": "seconds", "instances": None}}
n = 0
for path in sys.argv[1:]:
    f = h5py.File(path, "r")
    def visit(name, obj):
        global n
        if not isinstance(obj, h5py.Dataset): return
        n += 1
        for col in obj.dtype.names:
            info = h5py.check_string_dtype(obj.dtype.fields[col][0])
            assert info is None or info.encoding == "utf-8", (path, name, col, info)
        units = {obj.dtype.names[i]: obj.attrs[f"FIELD_{i}_UNITS"].decode()
                 for i in range(len(obj.dtype.names)) if f"FIELD_{i}_UNITS" in obj.attrs}
        for col, u in want.get("/" + name, {}).items():
            assert units.get(col) == u, (path, name, col, units.get(col), u)
    f.visititems(visit)
    for a in ("acsim_version", "command_line", "created_utc"):
        assert h5py.check_string_dtype(f.attrs.get_id(a).dtype).encoding == "utf-8", a
print("utf-8 strings in", n, "tables, units ok")' "$T/r.h5" "$T/v.h5"
fi
if command -v h5dump >/dev/null; then
  expect h5dump_validation_units 0 'FIELD_[0-9]+_UNITS.*' -- h5dump -a /validation/FIELD_7_UNITS "$T/v.h5"
  grep -q '"%"' "$T/out" && ok h5dump_avg_dev_pct_in_percent || bad h5dump_avg_dev_pct_in_percent
fi

# Loops (issue 14): modulo and list on the same unrolled iterations, verified,
# simulated, stored; the stored schedules pass the independent checker and
# the modulo table agrees with /runs.
expect loop_modulo_list 0 'loop: II 14 \(MII 14\)' -- "$ACSIM" run -w workloads/loops/iir_biqu.graphml -s modulo,list -o "$T/loop.h5"
expect loop_list_runs 0 'list +ok' -- "$ACSIM" run -w workloads/loops/iir_biqu.graphml -s modulo,list --set loop_iterations=3 --no-sim
expect loop_units_override 0 'modulo: ii=2, mii=2' -- "$ACSIM" run -w workloads/loops/fir3.csv -s modulo --set units.mul=2 --no-sim
expect loop_units_default 0 'modulo: ii=3, mii=3' -- "$ACSIM" run -w workloads/loops/fir3.csv -s modulo --no-sim
# (The exact search proves it in milliseconds: 30 s is a watchdog.)
expect loop_exact_proves 0 'II 3 proven minimal' -- "$ACSIM" run -w tests/data/loops/unreachable.csv -s modulo -O exact=1 --time-limit 30 --no-sim
expect loop_tries_shown 0 'modulo_tries' -- "$ACSIM" run -w tests/data/loops/unreachable.csv -s modulo --no-sim
expect loop_no_rm 2 'looked for norm_RM.xml, normRM.xml' -- "$ACSIM" run -w tests/data/loops_bad/norm.graphml -s modulo --no-sim
expect loop_malformed 2 'malformed.graphml:5:[0-9]+: XML' -- "$ACSIM" run -w tests/data/loops_bad/malformed.graphml -s modulo --no-sim
expect loop_bad_units 2 'units.mul: 0 units' -- "$ACSIM" run -w workloads/loops/fir3.csv -s modulo --set units.mul=0 --no-sim
expect validate_modulo 0 'modulo: 4 loops; II = MII on 3 ' -- "$ACSIM" validate modulo tests/data/loops -o "$T/val.h5"
expect sweep_units 0 'runs' -- "$ACSIM" sweep -w workloads/loops/fir3.csv -s modulo,list --vary units.mem=1,2 -o "$T/sweep-loop.h5" -j 1
if [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; then
  expect loop_independent_checker 0 'checked [0-9]+ schedules, 0 with violations' -- "$PY" tests/check_schedules.py "$T/loop.h5"
  expect loop_tables_agree 0 'modulo table ok' -- "$PY" -c '
import h5py, math, sys
f = h5py.File(sys.argv[1], "r")
runs = f["runs"][:]
for r in runs:
    name = r["scheduler"].decode()
    g = "schedules/run_%d" % r["run_id"]
    if name != "modulo":
        assert math.isnan(r["ii"]) and math.isnan(r["mii"]), name
        continue
    t = f[g + "/modulo"]
    ii = int(t.attrs["ii"])
    assert ii == r["ii"] and int(t.attrs["mii"]) == r["mii"]
    for row in t[:]:
        assert row["slot"] == row["start"] % ii and row["stage"] == row["start"] // ii
    assert r["cycles_per_iter"] > 0
print("modulo table ok")' "$T/loop.h5"
  # Each variant keeps its unit counts (the platform row's units column).
  expect sweep_unit_variants 0 "default\\[units.mem=2\\]'\\] \\['mem:1', 'mem:2'\\]" -- "$PY" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
print([p.decode() for p in f["platforms"]["name"]], [u.decode() for u in f["platforms"]["units"]])' "$T/sweep-loop.h5"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
