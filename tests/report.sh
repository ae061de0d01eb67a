#!/usr/bin/env bash
# tests/report.sh - each family's page of `acsim report` shows its own
# figure, end to end from real sweeps: loops (II against MII per unit
# count, unit classes as the axis, Gantt rows by unit, runs.csv's loop and
# unit columns), recurrence equations (latency against the parameter) and
# cascade (the front titled and labelled as the planned cycles it plots).
# Each check fails without the behaviour it names.
# Prints "N passed, N failed" and exits non-zero on any failure.
set -u
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
T=$(mktemp -d /tmp/acsim-report-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
# check NAME FILE PATTERN: the file holds an extended regular expression.
check()  { if grep -qE -- "$3" "$2" 2>/dev/null; then ok "$1"; else bad "$1 (no /$3/ in ${2#$T/})"; fi; }
absent() { if grep -qE -- "$3" "$2" 2>/dev/null; then bad "$1 (/$3/ in ${2#$T/})"; else ok "$1"; fi; }
cd "$SRC" || exit 2

# Loops: two unit counts of mem, every schedule kept for the Gantt charts.
"$ACSIM" sweep -q -j 2 -w workloads/loops/fir3.csv -s modulo,list --vary units.mem=1,2 \
  --keep-schedules -o "$T/loops.h5" >/dev/null 2>&1 && "$ACSIM" report "$T/loops.h5" -o "$T/loops" >/dev/null 2>&1 ||
  bad "loop study"
L=$T/loops
check loop_ii_plot "$L/plots/loop_fir3.gp" "MII \\(lower bound\\)"
check loop_ii_per_unit_count "$L/index.html" "<h3>II against MII per unit count</h3>"
# The schedulers' columns come in registry order whatever order the -j 2
# sweep stored its runs in: list (II, cycles per iteration: 2, 3) before
# modulo (4, 5), then the MII (6); the script reads the columns so.
check loop_columns_registry_order "$L/plots/loop_fir3.gp" "using 0:4:xtic\\(1\\) with linespoints ls 2 title 'modulo II'"
check loop_list_columns_first "$L/plots/loop_fir3.gp" "using 0:3:xtic\\(1\\) .* title 'list, simulated'"
# fir3's MII is 4 with one mem unit (its four memory ops per iteration share
# it) and 3 with two (then its three multiplies on one mul unit bound it);
# list has no II.
check loop_ii_values "$L/plots/loop_fir3.dat" '^"units.mem=1" nan [0-9.]+ 4 [0-9.]+ 4$'
check loop_axis_is_the_unit_class "$L/index.html" "<b>mem units</b> \\(<code>units.mem</code>\\): 1, 2"
absent loop_axis_not_missing "$L/index.html" "No platform parameter varies"
check loop_gantt_rows_by_unit "$L/plots/gantt_fir3.gp" "'mem 0' -?[0-9]+"
absent loop_gantt_no_unit_row "$L/plots/gantt_fir3.gp" "no unit"
check loop_csv_columns "$L/runs.csv" "^run_id,.*,ii,mii,cycles_per_iter,.*,units,units.mem,message$"
check loop_csv_values "$L/runs.csv" ',fir3,loop,.*,modulo,.*,3,3,[0-9.]+,.*,mem:2,2,'

# Recurrence equations: one workload per value of K, one latency plot.
"$ACSIM" sweep -q -j 2 -w 'workloads/affine/fir.sare:N=8:K=2,4' -s affine,list -o "$T/aff.h5" >/dev/null 2>&1 &&
  "$ACSIM" report "$T/aff.h5" -o "$T/aff" >/dev/null 2>&1 || bad "affine study"
A=$T/aff
lat=$(ls "$A"/plots/latency_*.gp 2>/dev/null | head -n 1)
check affine_latency_plot "${lat:-$A/none}" "set xlabel 'K'"
check affine_latency_title "$A/index.html" "<h3>fir.sare: latency against K</h3>"
check affine_latency_points "${lat%.gp}.dat" "^4 [0-9]+$"
absent affine_no_empty_bytes_plot "$A/index.html" "plots/bytes_"

# Cascade: the front's y axis is the plan's cycles, and so is the title.
"$ACSIM" sweep -q -j 2 -w workloads/onnx/alexnet.onnx -s cascade --vary cmx_kib=256,1024 \
  -o "$T/cas.h5" >/dev/null 2>&1 && "$ACSIM" report "$T/cas.h5" -o "$T/cas" >/dev/null 2>&1 ||
  bad "cascade study"
check cascade_front_axis "$T/cas/plots/cascadefront_alexnet.gp" "set ylabel 'planned cycles"
check cascade_front_title "$T/cas/index.html" "Pareto front of proposals \\(CMX against planned cycles\\)"
absent cascade_front_not_simulated "$T/cas/index.html" "Pareto front of proposals \\(CMX against simulated"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
