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
expect ilp_psplib_ok 0 'ilp +ok +43 ' -- "$ACSIM" run -w tests/data/psplib/j301_1.sm -s ilp --time-limit 5 --no-sim
expect ilp_dnn_gap 0 'ilp +(ok|timeout) +[0-9]+ +[0-9]+' -- "$ACSIM" run -w workloads/dnn/resnet18.csv -s ilp --time-limit 1
expect strip_dnn 0 'strip +(ok|timeout) +[0-9]+' -- "$ACSIM" run -w workloads/dnn/alexnet.csv -s strip --time-limit 2 --no-sim
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
  expect ilp_proven_has_no_gap 0 "ilp +ok +$opt .* $opt +0\\.0 " -- "$ACSIM" run -q -w "$sm" -s ilp --time-limit 10 --no-sim
fi

# --time-step is -O time_step for ilp; with no ilp selected it is a usage error.
expect time_step_flag 0 'time step 500 cycles' -- "$ACSIM" run -q -w workloads/graphs/isp_pipeline.csv -s ilp --time-step 500 --no-sim
expect time_step_without_ilp 2 "no selected scheduler has option 'time_step'" -- "$ACSIM" run -q -w workloads/graphs/isp_pipeline.csv -s list --time-step 500 --no-sim


# Loops (issue 14): modulo and list on the same unrolled iterations, verified,
# simulated, stored; the stored schedules pass the independent checker and
# the modulo table agrees with /runs.
expect loop_modulo_list 0 'loop: II 14 \(MII 14\)' -- "$ACSIM" run -w workloads/loops/iir_biqu.graphml -s modulo,list -o "$T/loop.h5"
expect loop_list_runs 0 'list +ok' -- "$ACSIM" run -w workloads/loops/iir_biqu.graphml -s modulo,list --set loop_iterations=3 --no-sim
expect loop_units_override 0 'modulo: ii=2, mii=2' -- "$ACSIM" run -w workloads/loops/fir3.csv -s modulo --set units.mul=2 --no-sim
expect loop_units_default 0 'modulo: ii=3, mii=3' -- "$ACSIM" run -w workloads/loops/fir3.csv -s modulo --no-sim
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
  expect sweep_unit_variants 0 'default\[units.mem=2\]' -- "$PY" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
print([p.decode() for p in f["platforms"]["name"]], [u.decode() for u in f["platforms"]["units"]])' "$T/sweep-loop.h5"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
