#!/usr/bin/env bash
# End-to-end tests of affine workloads (.sare, seed 003) through `acsim`:
# the schedule vectors on the terminal and in HDF5, parameter values after
# the path and their ranges in sweeps, the run with no one-dimensional
# schedule, and bad input (exit 2, located message).
# Prints "N passed, N failed" and exits non-zero on any failure.
set -u
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/acsim-affine-XXXXXX)
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

# has NAME PATTERN: the output of the previous command matches.
has() {
  if grep -qE -- "$2" "$T/out" "$T/err"; then ok "$1"; else bad "$1 (no /$2/)"; fi
}

cd "$SRC" || exit 2
W=workloads/affine

# The issue's command: verified, simulated, the vectors shown.
expect matmul_affine_list 0 'tau' -- "$ACSIM" run -w $W/matmul.sare -s affine,list -o "$T/mm.h5"
has matmul_vector_shown 'C +output +1 +\[N\] -> \{ C\[i,j,k\] -> \[\(k\)\] \}'
has matmul_latency_shown 'latency=\[N\] -> \{ \[\(N\)\] \}, latency_cycles=8'
has matmul_both_ok 'matmul +list +ok'
has matmul_affine_simulated 'matmul +affine +ok +128 +128 '
if [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; then
  expect table_in_hdf5 0 '^C \[N\] -> \{ C\[i,j,k\] -> \[\(k\)\] \} 0 \[N\] -> \{ \[\(N\)\] \}$' -- "$PY" -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
t = f["/schedules/run_1/affine"]
for r in t[()]:
    if r["variable"] == b"C":
        print(r["variable"].decode(), r["tau"].decode(), r["alpha"].decode(), t.attrs["latency"].decode())
runs = f["/runs"][()]
assert runs[0]["sim_makespan_cycles"] >= runs[0]["makespan_cycles"] - 1e-6
' "$T/mm.h5"
  expect schedules_check 0 'checked 2 schedules, 0 with violations' -- "$PY" tests/check_schedules.py "$T/mm.h5"
fi

# Transfers between PEs on the systolic array, simulated over local links.
expect systolic_transfers 0 'transfers=128, transfer_bytes=128' -- "$ACSIM" run -w $W/matmul_systolic.sare -s affine --set pe_count=64
has systolic_latency 'c +output +1 +\[N\] -> \{ c\[i,j,k\] -> \[\(k \+ N\)\] \}'

# Parameter values after the path; ranges make one workload per value.
expect suffix_binds 0 'matmul\[N=4\] +affine +ok' -- "$ACSIM" run -w "$W/matmul.sare:N=4" -s affine --no-sim
has suffix_latency 'latency_cycles=4'
expect suffix_range 0 'matmul\[N=8\] +affine' -- "$ACSIM" run -w "$W/matmul.sare:N=2..8*2" -s affine --no-sim
expect suffix_range_three 0 '' -- test "$(grep -c 'matmul\[N=' "$T/out")" = 3
expect sweep_range 0 '4 runs' -- "$ACSIM" sweep -q -w "$W/fir.sare:N=8:K=2,4" -s affine,list -o "$T/sw.h5"
expect suffix_bad_value 2 "'x' is not an integer or a range" -- "$ACSIM" run -w "$W/matmul.sare:N=x" -s affine --no-sim
expect suffix_bad_param 2 "'Q' is not a parameter of the system" -- "$ACSIM" run -w "$W/matmul.sare:Q=3" -s affine --no-sim
expect outside_context 2 'outside the context' -- "$ACSIM" run -w "$W/matmul.sare:N=0" -s affine --no-sim

# No one-dimensional schedule: an infeasible run naming the cycle; list
# still runs the instance DAG.
expect flatten_infeasible 0 'infeasible: no one-dimensional affine schedule: the dependences of the cycle S -> S' -- "$ACSIM" run -w $W/flatten.sare -s affine,list --no-sim
has flatten_list_ok 'flatten +list +ok +16'

# ... and with -O dims=2 a two-dimensional schedule (Feautrier's part II).
expect flatten_two_dims 0 'no one-dimensional schedule \(the cycle S -> S\); 2-dimensional schedule' -- "$ACSIM" run -w $W/flatten.sare -s affine -O dims=2
has flatten_rows 'S +output +1 +\[N\] -> \{ S\[i,j\] -> \[\(i\), \(j\)\] \}'
has flatten_two_dims_simulated 'flatten +affine +ok +16 +16'

# -s all runs every variant that accepts the kind; isl's opinion on request.
expect all_variants 0 'fir +sequential +ok' -- "$ACSIM" run -w $W/fir.sare -s all --no-sim
expect isl_opinion 0 'isl_latency_cycles=15' -- "$ACSIM" run -w $W/editdist.sare -s affine -O isl=1 --no-sim
expect fold_option 0 'editdist +affine +ok' -- "$ACSIM" run -w $W/editdist.sare -s affine -O fold=block --no-sim
expect bad_fold 2 "fold" -- "$ACSIM" run -w $W/editdist.sare -s affine -O fold=diagonal --no-sim

# Bad files: exit 2, file:line:column.
printf 'params [N] -> { : N >= 1 }\nbind N = 3\noutput { C[i] : 0 <= i < N and }\n' > "$T/bad1.sare"
expect bad_syntax 2 'bad1.sare:3:32: expected a number' -- "$ACSIM" run -w "$T/bad1.sare" -s affine --no-sim
printf 'params [N] -> { : N >= 1 }\nbind N = 3\noutput { C[i] : 0 <= i < N }\nread { C[i] -> C[i+1] }\n' > "$T/bad2.sare"
expect bad_read 2 'bad2.sare:4:6: this read reaches outside the domain' -- "$ACSIM" run -w "$T/bad2.sare" -s affine --no-sim
printf 'params [N] -> { : N >= 1 }\nbind N = 3\noutput { C[i] : 0 <= i < N }\nread { C[i] -> C[i] }\n' > "$T/cyc.sare"
expect instance_cycle 2 'cycle: C\[0\] -> C\[0\]' -- "$ACSIM" run -w "$T/cyc.sare" -s affine --no-sim
printf 'params [N] -> { : N >= 1 }\noutput { C[i] : 0 <= i < N }\n' > "$T/nobind.sare"
expect no_value 2 "parameter N has no value" -- "$ACSIM" run -w "$T/nobind.sare" -s affine --no-sim
expect listed 0 'affine +Feautrier' -- "$ACSIM" list schedulers
has listed_kind 'from: Risset, Reference Manual for the Alpha Scheduler \(1997\)'
has listed_kinds '^      workloads: affine;'
# an op graph is no system of equations: affine is not run on it
expect other_kind_skipped 0 '' -- "$ACSIM" run -w workloads/graphs/isp_pipeline.csv -s affine,list --no-sim
has other_kind_list_only 'isp_pipeline +list'
if grep -q 'isp_pipeline +affine' "$T/out"; then bad other_kind_no_affine; else ok other_kind_no_affine; fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
