#!/usr/bin/env bash
# End-to-end tests of the cascading scheduler through the CLI (README
# "`cascade`"): what /runs and /schedules hold for a cascade run, sweeps
# keeping every run's result tables, the report's Pareto front, and bad
# options. Prints "N passed, N failed".
set -u
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
PY=/usr/bin/python3
T=$(mktemp -d "${TMPDIR:-/tmp}/acsim-cascade-XXXXXX")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
pass=0; fail=0

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$T/err" ] && sed 's/^/     | /' "$T/err" | head -n 8; }
skip() { echo "skip $1"; }
# expect NAME CODE PATTERN -- CMD...: exit code and a stdout+stderr pattern.
expect() {
  local name=$1 code=$2 pat=$3; shift 4
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" != "$code" ]; then bad "$name (exit $rc, want $code)"; head -5 "$T/out"; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/out" "$T/err"; then bad "$name (no /$pat/)"; return; fi
  ok "$name"
}
# py NAME SCRIPT ARGS...: a Python check that prints nothing and exits 0.
py() {
  local name=$1 script=$2; shift 2
  if "$PY" -c "$script" "$@" >"$T/err" 2>&1; then ok "$name"; else bad "$name"; fi
}
have_h5py() { [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; }

cd "$SRC" || exit 2
NET=workloads/onnx/mobilenet_v1.onnx

# One run: the chosen plans are printed under the row.
expect run_prints_plans 0 'cascade_plans:' -- \
  "$ACSIM" run -w "$NET" -s cascade --set cmx_kib=256 --no-sim -o "$T/r.h5"

if have_h5py; then
  # MobileNetV1 has 568,740,352 MACs (published; README "Shipped networks"):
  # on 4 PEs of 256 MACs a cycle no schedule beats ceil(568740352 / 1024) =
  # 555411 cycles, the bound a cascade run reports (not the layer graph's
  # critical path, which a pipeline of stripes is not bound by).
  py run_row_bound_peak_spill '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
r = f["runs"][0]
assert r["scheduler"].decode() == "cascade" and r["status"].decode() == "ok", r
assert r["memory_model"].decode() == "resident"
assert r["lower_bound_cycles"] == 555411, r["lower_bound_cycles"]
assert r["spill_bytes"] == 0 and 0 < r["peak_cmx_bytes"] <= 256 * 1024
g = f["schedules/run_%d" % r["run_id"]]
front, plans = g["cascade_front"][:], g["cascade_plans"][:]
chosen = [p for p in front if p["chosen"] == 1]
assert len(chosen) == 1 and len(front) >= 2
assert r["peak_cmx_bytes"] <= chosen[0]["memory_bytes"] <= g["cascade_front"].attrs["budget_bytes"]
assert r["makespan_cycles"] == chosen[0]["cycles"] == sum(int(p["cycles"]) for p in plans)
' "$T/r.h5"
else
  skip "run_row_bound_peak_spill (python3-h5py missing)"
fi

# A sweep over barrier_slots with no barrier limit: three runs with one
# makespan. Only the first sets a record, so only it keeps its schedule;
# every run keeps its result tables all the same.
expect sweep_three_runs 0 '3 runs in .* 3 ok' -- \
  "$ACSIM" sweep -w "$NET" -s cascade --set cmx_kib=128 --vary barrier_slots=0,2,4 \
  --no-sim -j 1 -q -o "$T/s.h5"
if have_h5py; then
  py sweep_keeps_every_runs_tables '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
ids = [int(i) for i in f["runs"]["run_id"]]
ops = []
for i in ids:
    g = f["schedules/run_%d" % i]
    assert len(g["cascade_front"]) >= 2 and len(g["cascade_plans"]) >= 1, i
    ops.append(len(g["ops"]))
assert sorted(x > 0 for x in ops) == [False, False, True], ops
' "$T/s.h5"
else
  skip "sweep_keeps_every_runs_tables (python3-h5py missing)"
fi

# The report's front: one chosen proposal per run (three, all at 128 KiB).
expect report_writes 0 'report:' -- "$ACSIM" report "$T/s.h5" -o "$T/rep"
dat=$T/rep/plots/cascadefront_mobilenet_v1.dat
if [ -f "$dat" ] && [ "$(awk '/chosen proposal/ {on = 1; next} on && NF == 3' "$dat" | wc -l)" = 3 ]; then
  ok report_front_data
else
  bad report_front_data
fi
if command -v gnuplot >/dev/null 2>&1; then
  if [ -s "$T/rep/plots/cascadefront_mobilenet_v1.svg" ] &&
     grep -q 'cascadefront_mobilenet_v1.svg' "$T/rep/index.html"; then ok report_front_drawn
  else bad report_front_drawn; fi
else
  skip "report_front_drawn (gnuplot missing)"
fi

# No run ends below the network bound (MACs over the PEs, bytes that must
# cross the DDR link over its bandwidth), planned or simulated; the plan
# times DMAs on the shared link, so plan and simulation agree within 10%.
expect sweep_pe16 0 '4 runs in .* 4 ok' -- \
  "$ACSIM" sweep -w "$NET" -w workloads/onnx/resnet18.onnx -s cascade --set pe_count=16 \
  --vary cmx_kib=256,2048 -j 1 -q -o "$T/b.h5"
if have_h5py; then
  py not_below_the_network_bound '
import sys, h5py
for r in h5py.File(sys.argv[1], "r")["runs"]:
    nb, mk, sim = r["network_bound_cycles"], r["makespan_cycles"], r["sim_makespan_cycles"]
    assert nb > 0 and mk >= nb and sim >= nb, (r["workload_id"], nb, mk, sim)
    assert abs(sim - mk) <= 0.10 * sim, (r["workload_id"], mk, sim)
' "$T/b.h5"
else
  skip "not_below_the_network_bound (python3-h5py missing)"
fi

# Bad options: one line naming the option, exit 2, nothing run.
expect bad_mode 2 "option 'modes': unknown value 'sideways'" -- \
  "$ACSIM" run -w "$NET" -s cascade -O modes=sideways
expect bad_max_parts 2 "option 'max_parts': 17 is out of range \[1, 16\]" -- \
  "$ACSIM" run -w "$NET" -s cascade -O max_parts=17
expect bad_budget 2 "option 'budget_kib': '1e3x' is not an integer" -- \
  "$ACSIM" run -w "$NET" -s cascade -O budget_kib=1e3x
# An impossible budget is an answer, not an input error: the run is
# infeasible and says what the smallest proposal needs.
expect tiny_budget 0 'smallest proposal needs [0-9]+ bytes' -- \
  "$ACSIM" run -w "$NET" -s cascade -O budget_kib=8 --no-sim

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
