#!/usr/bin/env bash
# End-to-end tests of trade studies: `acsim sweep` (resume after a kill,
# shards, progress, bad --vary), `acsim merge`, `acsim compare` (exit codes)
# and `acsim report` (files exist, references resolve, runs.csv complete).
# Tiny grids keep it to a few seconds. Prints "N passed, N failed".
set -u
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
PY=/usr/bin/python3
T=$(mktemp -d "${TMPDIR:-/tmp}/acsim-sweep-XXXXXX")
# Whatever ends the script, the sweep it runs in the background (bg, while
# not yet reaped) does not outlive it, and its directory goes.
bg=""
trap '[ -n "$bg" ] && kill -9 $bg 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
pass=0; fail=0

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$T/err" ] && sed 's/^/     | /' "$T/err" | head -n 8; }
# expect NAME CODE PATTERN -- CMD...: exit code and a stdout+stderr pattern.
expect() {
  local name=$1 code=$2 pat=$3; shift 4
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" != "$code" ]; then bad "$name (exit $rc, want $code)"; cat "$T/out" | head -5; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/out" "$T/err"; then bad "$name (no /$pat/)"; return; fi
  ok "$name"
}
have_h5py() { [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; }
# Number of runs in a results file.
nruns() { h5dump -H -d /runs "$1" 2>/dev/null | sed -nE 's/.*DATASPACE  SIMPLE \{ \( ([0-9]+) \).*/\1/p'; }

cd "$SRC" || exit 2

# A tiny grid: 3 CMX sizes x 2 barrier counts x alexnet x 2 schedulers = 12 runs.
GRID_LOUD=(-w workloads/dnn/alexnet.csv --vary cmx_kib=256..1024*2 --vary barriers=0,8 -s sequential,list)
GRID=("${GRID_LOUD[@]}" -q)

expect sweep_help 0 'usage: acsim sweep' -- "$ACSIM" sweep --help
expect sweep_grid 0 '12 runs in .* 12 ok' -- "$ACSIM" sweep "${GRID[@]}" -j 2 -o "$T/full.h5"
expect sweep_names_variants 0 'default\[cmx_kib=512,barriers=8\]' -- h5dump -d /platforms "$T/full.h5"
# Progress (not with -q, which silences it as it does warnings).
expect sweep_plain_progress 0 '^sweep: 12/12 runs \(100%\)' -- "$ACSIM" sweep "${GRID_LOUD[@]}" -j 1 -o "$T/again.h5"
# The same command again resumes: everything is already there.
expect sweep_resume_skips 0 '= 12 runs; 12 already in' -- "$ACSIM" sweep "${GRID[@]}" -o "$T/full.h5"
[ "$(nruns "$T/full.h5")" = 12 ] && ok "resume_adds_nothing" || bad "resume_adds_nothing ($(nruns "$T/full.h5") runs)"
# One /workloads row per workload, though its graph differs with the CMX
# size: each run has its own graph size (the tiles follow the CMX).
if have_h5py; then
  expect one_workload_row 0 '^1 row \(ops -1\), ops by CMX: \{256: [0-9]+, 512: [0-9]+, 1024: [0-9]+\}, differ$' -- "$PY" -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
w, r, p = f["workloads"][:], f["runs"][:], f["platforms"][:]
cmx = {int(q["platform_id"]): int(q["cmx_kib"]) for q in p}
ops = {}
for x in r:
    ops.setdefault(cmx[int(x["platform_id"])], set()).add(int(x["ops"]))
assert all(len(v) == 1 for v in ops.values()), ops
by = {k: min(v) for k, v in sorted(ops.items())}
print("%d row%s (ops %d), ops by CMX: %s, %s" % (len(w), "" if len(w) == 1 else "s",
      w[0]["ops"], by, "differ" if len(set(by.values())) > 1 else "equal"))
' "$T/full.h5"
  # The schedules stored by default are those of the best and worst run of
  # the workload (and of its resident runs), ties to the first stored, and
  # no others: computed here from the rows.
  expect extremes_are_the_records 0 '^stored [0-9, ]+ = records$' -- "$PY" -c '
import sys, math, h5py
f = h5py.File(sys.argv[1], "r")
def val(x):
    v = float(x["sim_makespan_cycles"])
    return float(x["makespan_cycles"]) if math.isnan(v) else v
ok = [x for x in f["runs"][:] if x["status"] == b"ok"]
want = set()
for rs in (ok, [x for x in ok if x["memory_model"] == b"resident"]):
    if rs:
        want.add(int(min(rs, key=lambda x: (val(x), int(x["run_id"])))["run_id"]))
        want.add(int(max(rs, key=lambda x: (val(x), -int(x["run_id"])))["run_id"]))
got = {int(k[4:]) for k, g in f["schedules"].items() if "ops" in g and g["ops"].shape[0] > 0}
print("stored %s %s records" % (", ".join(map(str, sorted(got))), "=" if got == want else "!= %s" % sorted(want)))
' "$T/full.h5"
  # One worker schedules a problem once for all its barrier counts and runs
  # only the barrier pass again: every run must be what a process of its
  # own computes (`acsim run` per barrier count), figure for figure.
  MEMO=(-w workloads/dnn/alexnet.csv -s list,spill,cascade --set cmx_kib=512 --no-sim -q)
  "$ACSIM" sweep "${MEMO[@]}" --vary barriers=0,4,8 -j 1 -o "$T/memo.h5" >/dev/null 2>&1
  for b in 0 4 8; do
    "$ACSIM" run "${MEMO[@]}" --set barriers=$b -o "$T/memo_$b.h5" >/dev/null 2>&1
  done
  expect reused_schedules_are_fresh_ones 0 '^9 runs, 9 as in their own process$' -- "$PY" -c '
import sys, h5py
cols = ("status", "makespan_cycles", "barriers_used", "control_edges", "peak_cmx_bytes", "ops")
def rows(path):
    f = h5py.File(path, "r")
    bar = {int(p["platform_id"]): int(p["barriers"]) for p in f["platforms"][:]}
    return {(bar[int(x["platform_id"])], x["scheduler"]): tuple(x[c] for c in cols)
            for x in f["runs"][:]}
swept = rows(sys.argv[1])
own = {}
for path in sys.argv[2:]:
    own.update(rows(path))
same = sum(1 for k, v in swept.items() if own.get(k) == v)
print("%d runs, %d as in their own process" % (len(swept), same))
' "$T/memo.h5" "$T/memo_0.h5" "$T/memo_4.h5" "$T/memo_8.h5"
  # Ids follow the grid, not the order results arrive in from two workers:
  # platforms as --vary lists them, workloads as -w gives them.
  "$ACSIM" sweep -q -j 2 -w workloads/graphs/isp_pipeline.csv -w workloads/dnn/alexnet.csv \
    -s list --vary cmx_kib=1024,256,512 --no-sim -o "$T/ids.h5" >/dev/null 2>&1
  expect ids_follow_the_grid 0 '^1024 256 512 / isp_pipeline alexnet$' -- "$PY" -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
p = sorted(f["platforms"][:], key=lambda x: x["platform_id"])
w = sorted(f["workloads"][:], key=lambda x: x["workload_id"])
print(" ".join(str(int(x["cmx_kib"])) for x in p), "/", " ".join(x["name"].decode() for x in w))
' "$T/ids.h5"
  # A graph that does not depend on the platform keeps its size in its row
  # (isp_pipeline: 10 ops, 12 edges, as `acsim list` says).
  "$ACSIM" sweep -q -j 1 -w workloads/graphs/isp_pipeline.csv -s list --vary cmx_kib=256,512 \
    --no-sim -o "$T/graph.h5" >/dev/null 2>&1
  expect graph_workload_row 0 '^10 12 1$' -- "$PY" -c '
import sys, h5py
w = h5py.File(sys.argv[1], "r")["workloads"][:]
print(w[0]["ops"], w[0]["edges"], len(w))' "$T/graph.h5"
fi

# Bad input: exit 2, a located message, nothing written.
expect vary_bad_number 2 '--vary:2:13: cmx_kib: .abc. is not a number' -- \
  "$ACSIM" sweep -w workloads/dnn/alexnet.csv --vary barriers=0 --vary cmx_kib=128,abc -o "$T/bad.h5"
expect vary_unknown_key 2 "--vary:1:1: unknown parameter 'cmx'" -- "$ACSIM" sweep --vary cmx=1 -o "$T/bad.h5"
expect vary_and_set_clash 2 'cmx_kib is also given by --set' -- \
  "$ACSIM" sweep -w workloads/dnn/alexnet.csv --set cmx_kib=512 --vary cmx_kib=128,256 -o "$T/bad.h5"
expect bad_shard 2 "--shard: '4/3' is not K/N" -- "$ACSIM" sweep --shard 4/3 -o "$T/bad.h5"
[ -e "$T/bad.h5" ] && bad "bad_input_writes_nothing" || ok "bad_input_writes_nothing"

# Shards cover the grid exactly once and merge back to the single-run table.
total=0
for k in 1 2 3; do
  "$ACSIM" sweep "${GRID[@]}" --shard $k/3 -j 1 -o "$T/shard$k.h5" >"$T/out" 2>"$T/err" || bad "shard $k"
  total=$((total + $(nruns "$T/shard$k.h5")))
done
[ "$total" = 12 ] && ok "shards_cover_the_grid ($total runs)" || bad "shards_cover_the_grid ($total runs)"
expect merge_shards 0 'merged 12 runs' -- "$ACSIM" merge "$T/shard1.h5" "$T/shard2.h5" "$T/shard3.h5" -o "$T/merged.h5"
expect merged_equals_single 0 '12 matched: 0 regressions, 0 improvements, 0 other changes, 12 within 0%; 0 missing, 0 new' -- \
  "$ACSIM" compare "$T/full.h5" "$T/merged.h5" --tolerance 0
if have_h5py; then
  # Every column but wall-clock times, run by run, keyed by identity.
  cat >"$T/same.py" <<'EOF'
import sys, h5py, numpy as np
def table(path):
    f = h5py.File(path, "r")
    plats = {p["platform_id"]: p for p in f["/platforms"][:]}
    wls = {w["workload_id"]: w for w in f["/workloads"][:]}
    out = {}
    for r in f["/runs"][:]:
        p, w = plats[r["platform_id"]], wls[r["workload_id"]]
        key = (p["name"], tuple(p[n] for n in p.dtype.names[2:]), w["name"], r["scheduler"], r["options"])
        assert key not in out, key
        out[key] = tuple(r[n] for n in r.dtype.names
                         if n not in ("run_id", "platform_id", "workload_id", "sched_seconds", "sim_seconds"))
    return out
a, b = table(sys.argv[1]), table(sys.argv[2])
assert a.keys() == b.keys(), "different runs"
for k in a:
    for x, y in zip(a[k], b[k]):
        assert x == y or (isinstance(x, float) and np.isnan(x) and np.isnan(y)), (k, x, y)
print("same table:", len(a), "runs")
EOF
  expect merged_table_is_identical 0 'same table: 12 runs' -- "$PY" "$T/same.py" "$T/full.h5" "$T/merged.h5"
else
  echo "skip merged_table_is_identical (python3-h5py missing)"
fi
expect merge_rejects_duplicates 2 'duplicates run' -- "$ACSIM" merge "$T/shard1.h5" "$T/full.h5" -o "$T/dup.h5"
[ -e "$T/dup.h5" ] && bad "rejected_merge_writes_nothing" || ok "rejected_merge_writes_nothing"

# Stopping a sweep at a known point without timing: the test hook
# ACSIM_TEST_WORKER="hang N" blocks the worker that gets the N-th run of the
# invocation, so with -j 1 runs 1..N-1 finish and the sweep can go no
# further. wait_runs waits for the event "the file holds K runs" (the
# parent checkpoints about once a second while it waits on the worker); the
# bound is only a watchdog against a hang, far beyond any load.
wait_runs() { # FILE K PID
  local i
  for i in $(seq 1 3000); do
    [ "$(nruns "$1")" = "$2" ] && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.2
  done
  return 1
}
# 12 runs (2 CMX sizes x 3 DMA bandwidths x 2 schedulers) of a small
# network, so that no simulation comes near its wall-clock limit even in a
# sanitizer build on a loaded machine (a run ending in error would be run
# again on resume and change the counts); the 8th hangs.
KGRID=(-w workloads/dnn/alexnet.csv --vary cmx_kib=512,1024 --vary dma_gbps=16,32,64 -s sequential,list -q -j 1)

# Resume after a killed sweep: kill -9 once 7 runs are checkpointed, run
# the same command again, and every run is stored exactly once.
ACSIM_TEST_WORKER="hang 8" "$ACSIM" sweep "${KGRID[@]}" -o "$T/killed.h5" >/dev/null 2>&1 &
pid=$!; bg=$pid
wait_runs "$T/killed.h5" 7 $pid && ok "killed_sweep_checkpointed_7_runs" || bad "killed_sweep_checkpointed_7_runs ($(nruns "$T/killed.h5"))"
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; bg=""
expect resume_after_kill 0 "= 12 runs; 7 already in" -- "$ACSIM" sweep "${KGRID[@]}" -o "$T/killed.h5"
grep -q "^5 runs in .* 5 ok" "$T/out" && ok "resume_ran_the_rest" || bad "resume_ran_the_rest"
[ "$(nruns "$T/killed.h5")" = 12 ] && ok "resumed_has_every_run" || bad "resumed_has_every_run ($(nruns "$T/killed.h5"))"
expect resumed_runs_stored_once 0 'merged 12 runs' -- "$ACSIM" merge "$T/killed.h5" -o "$T/killed-check.h5"
ls -a "$T" | grep -q '\.tmp$' && bad "no_temporaries_left" || ok "no_temporaries_left"

# Ctrl-C (SIGINT) keeps the finished runs and exits 130: sent once 7 runs
# are on disk (so the sweep has its handler), the 8th hanging.
ACSIM_TEST_WORKER="hang 8" "$ACSIM" sweep "${KGRID[@]}" -o "$T/int.h5" >"$T/out" 2>"$T/err" &
pid=$!; bg=$pid
wait_runs "$T/int.h5" 7 $pid
kill -INT $pid; wait $pid; rc=$?; bg=""
n=$(nruns "$T/int.h5")
if [ "$rc" = 130 ] && [ "$n" = 7 ] && grep -q '^interrupted after 7 runs' "$T/out" &&
   grep -q 'run the same command again to resume' "$T/out"; then
  ok "interrupt_keeps_finished_runs ($n runs)"
else
  bad "interrupt_keeps_finished_runs (exit $rc, ${n:-no file} runs)"
fi

# Run identity is the workload's content (issue 10). Two networks both
# named net.csv are two workloads; one file by two paths is one (a note,
# every run once, so merge accepts the file); an edited file is new runs.
mkdir -p "$T/a" "$T/b"
cp workloads/graphs/isp_pipeline.csv "$T/a/net.csv"
cp workloads/graphs/resnet_block_chain.csv "$T/b/net.csv"
IGRID=(--vary cmx_kib=512,1024 -s sequential,list -q -j 2 --no-sim)
expect id_first_net 0 '= 4 runs$' -- "$ACSIM" sweep -w "$T/a/net.csv" "${IGRID[@]}" -o "$T/id.h5"
expect id_other_net_same_name 0 '= 4 runs$' -- "$ACSIM" sweep -w "$T/b/net.csv" "${IGRID[@]}" -o "$T/id.h5"
[ "$(nruns "$T/id.h5")" = 8 ] && ok "id_both_nets_stored" || bad "id_both_nets_stored ($(nruns "$T/id.h5"))"
expect id_two_paths_one_workload 0 "note: -w $T/a/\.\./a/net.csv is the same workload as -w $T/a/net.csv .*runs once" -- \
  "$ACSIM" sweep -w "$T/a/net.csv" -w "$T/a/../a/net.csv" "${IGRID[@]}" -o "$T/dup.h5"
grep -q '= 4 runs$' "$T/out" && [ "$(nruns "$T/dup.h5")" = 4 ] && ok "id_two_paths_run_once" || bad "id_two_paths_run_once ($(nruns "$T/dup.h5"))"
expect id_two_paths_merge 0 'merged 4 runs' -- "$ACSIM" merge "$T/dup.h5" -o "$T/dup-check.h5"
expect id_resume_by_content 0 '= 8 runs; 8 already in' -- \
  "$ACSIM" sweep -w "$T/b/net.csv" -w "$T/a/net.csv" "${IGRID[@]}" -o "$T/id.h5"
echo "# edited" >>"$T/a/net.csv"
expect id_edited_file_is_new 0 '= 8 runs; 4 already in' -- \
  "$ACSIM" sweep -w "$T/b/net.csv" -w "$T/a/net.csv" "${IGRID[@]}" -o "$T/id.h5"
[ "$(nruns "$T/id.h5")" = 12 ] && ok "id_edited_runs_added" || bad "id_edited_runs_added ($(nruns "$T/id.h5"))"
expect id_merge_keeps_both_versions 0 'merged 12 runs' -- "$ACSIM" merge "$T/id.h5" -o "$T/id-check.h5"
# The report keeps the three workloads called net apart: each label carries
# the start of its digest (runs.csv holds one row per run either way).
expect id_report 0 'open .*index.html' -- "$ACSIM" report "$T/id.h5" -o "$T/idrep"
n=$(grep -oE 'net \([0-9a-f]{8}\)' "$T/idrep/index.html" | sort -u | wc -l)
[ "$n" = 3 ] && ok "id_report_labels_each_net ($n)" || bad "id_report_labels_each_net ($n labels, want 3)"
if have_h5py; then
  # The stored digest is what sha256sum prints.
  want=$(sha256sum "$T/b/net.csv" | cut -c1-64)
  expect id_digest_is_sha256 0 "^$want\$" -- "$PY" -c "
import h5py, sys
for w in h5py.File(sys.argv[1], 'r')['/workloads'][:]:
    if w['path'].decode() == sys.argv[2]: print(w['digest'].decode())" "$T/id.h5" "$T/b/net.csv"
  # A file from before the digest column: its runs are found by name.
  cp "$T/full.h5" "$T/old.h5"
  "$PY" - "$T/old.h5" <<'EOF2'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r+")
w = f["/workloads"][:]
names = [n for n in w.dtype.names if n != "digest"]
old = np.empty(len(w), dtype=[(n, w.dtype[n]) for n in names])
for n in names:
    old[n] = w[n]
del f["/workloads"]
f.create_dataset("/workloads", data=old, maxshape=(None,), chunks=True)
EOF2
  expect id_old_file_resumes_by_name 0 '= 12 runs; 12 already in' -- "$ACSIM" sweep "${GRID[@]}" -o "$T/old.h5"
  grep -q '^note: 12 of the runs already in .* matched by workload name' "$T/out" &&
    ok "id_old_file_says_so" || bad "id_old_file_says_so"
  expect id_old_file_compares_by_name 0 'matched by platform name, workload name, scheduler' -- "$ACSIM" compare "$T/old.h5" "$T/full.h5"
else
  echo "skip id_digest_is_sha256, id_old_file_* (python3-h5py missing)"
fi

# A worker that dies is retried once in a fresh worker (test hook
# ACSIM_TEST_WORKER="abort N": the worker aborts on the N-th run, every
# time; "abort-once N": the first time only).
expect retry_after_one_death 0 '^1 run retried in a fresh worker after its worker died' -- \
  env ACSIM_TEST_WORKER="abort-once 5" "$ACSIM" sweep "${GRID[@]}" -j 2 -o "$T/once.h5"
grep -q '^12 runs in .* 12 ok' "$T/out" && ok "retried_run_stored_ok" || bad "retried_run_stored_ok"
expect error_after_two_deaths 1 '12 runs in .* 11 ok, 0 infeasible, 0 timeout, 1 error' -- \
  env ACSIM_TEST_WORKER="abort 5" "$ACSIM" sweep "${GRID[@]}" -j 2 -o "$T/twice.h5"
[ "$(nruns "$T/twice.h5")" = 12 ] && ok "error_run_stored" || bad "error_run_stored ($(nruns "$T/twice.h5"))"
if have_h5py; then
  expect error_names_the_signal 0 'killed by signal 6 \(Abort' -- "$PY" -c "
import h5py, sys
for r in h5py.File(sys.argv[1], 'r')['/runs'][:]:
    if r['status'] == b'error': print(r['run_id'], r['message'].decode())" "$T/twice.h5"
  err_id=$(awk '{print $1; exit}' "$T/out")
fi
# Running the same command again retries the stored error run, in its row.
expect rerun_retries_error 0 '= 12 runs; 11 already in .*; 1 error run to retry' -- \
  "$ACSIM" sweep "${GRID[@]}" -j 2 -o "$T/twice.h5"
grep -q '^1 run in .* 1 ok' "$T/out" && ok "retried_run_ok" || bad "retried_run_ok"
[ "$(nruns "$T/twice.h5")" = 12 ] && ok "retry_replaces_the_row" || bad "retry_replaces_the_row ($(nruns "$T/twice.h5"))"
expect retried_file_merges 0 'merged 12 runs' -- "$ACSIM" merge "$T/twice.h5" -o "$T/twice-check.h5"
if have_h5py && [ -n "${err_id:-}" ]; then
  expect retried_row_keeps_its_id 0 "^$err_id ok\$" -- "$PY" -c "
import h5py, sys
for r in h5py.File(sys.argv[1], 'r')['/runs'][:]:
    if r['run_id'] == int(sys.argv[2]): print(r['run_id'], r['status'].decode())" "$T/twice.h5" "$err_id"
fi
expect help_says_retry 0 'retried once in a fresh worker' -- "$ACSIM" sweep --help

# compare: itself 0; a regression 1 (worst first); bad input 2.
expect compare_self 0 '0 regressions' -- "$ACSIM" compare "$T/full.h5" "$T/full.h5"
expect compare_by_content 0 'matched by platform name, workload content, scheduler' -- \
  "$ACSIM" compare "$T/full.h5" "$T/merged.h5"
# A DDR four times slower: every run of the grid is slower, whatever the
# heuristics and the barrier pass make of it (at twice slower one barrier
# program came out 3% faster, which is a fair answer, not what this checks).
"$ACSIM" sweep "${GRID[@]}" --set ddr_ratio=16 -o "$T/slow.h5" >/dev/null 2>&1
expect compare_regression 1 'Regressions \([0-9]+\)' -- "$ACSIM" compare "$T/full.h5" "$T/slow.h5"
first=$(awk '/^Regressions/{getline; getline; print $1; exit}' "$T/out" | tr -d '+%')
rest=$(awk '/^Regressions/{f=1; getline; getline; next} f&&/^  \+/{print $1}' "$T/out" | tr -d '+%' | sort -g | tail -n 1)
if [ -n "$first" ] && awk -v a="$first" -v b="${rest:-0}" 'BEGIN{exit !(a >= b)}'; then
  ok "worst_regression_first (+$first%)"
else
  bad "worst_regression_first ($first vs $rest)"
fi
expect compare_markdown 1 '^\| \+[0-9.]+% \|' -- "$ACSIM" compare "$T/full.h5" "$T/slow.h5" --format markdown --junit "$T/j.xml"
grep -q '<failure type="regression"' "$T/j.xml" 2>/dev/null && ok "junit_written" || bad "junit_written"
expect compare_improvement_only 0 'Improvements \([0-9]+\)' -- "$ACSIM" compare "$T/slow.h5" "$T/full.h5"
expect compare_bad_metric 2 "unknown metric 'speed' \(numeric /runs columns: sim_makespan_cycles" -- \
  "$ACSIM" compare "$T/full.h5" "$T/slow.h5" --metric speed
echo "not hdf5" >"$T/text.h5"
expect compare_bad_file 2 'text.h5: not an HDF5 file' -- "$ACSIM" compare "$T/full.h5" "$T/text.h5"

# report: the page, runs.csv with one row per run, every plot non-empty,
# and every file the page names exists.
expect report 0 'open .*index.html' -- "$ACSIM" report "$T/full.h5" -o "$T/rep"
lines=$(($(wc -l <"$T/rep/runs.csv") - 1))
[ "$lines" = 12 ] && ok "runs_csv_one_row_per_run" || bad "runs_csv_one_row_per_run ($lines rows)"
missing=0; refs=0
for f in $(grep -oE '(src|href)="[^"#][^"]*"' "$T/rep/index.html" | sed -E 's/^[a-z]+="//; s/"$//'); do
  refs=$((refs + 1))
  [ -s "$T/rep/$f" ] || { missing=$((missing + 1)); echo "     | missing: $f"; }
done
[ "$missing" = 0 ] && [ "$refs" -gt 0 ] && ok "report_references_exist ($refs files)" || bad "report_references_exist ($missing of $refs missing)"
if command -v gnuplot >/dev/null; then
  empty=0; plots=0
  for gp in "$T"/rep/plots/*.gp; do
    plots=$((plots + 1)); [ -s "${gp%.gp}.svg" ] || empty=$((empty + 1))
  done
  [ "$empty" = 0 ] && [ "$plots" -ge 5 ] && ok "every_plot_drawn ($plots plots)" || bad "every_plot_drawn ($empty of $plots missing)"
else
  echo "skip every_plot_drawn (gnuplot missing)"
fi
expect report_without_gnuplot 0 'gnuplot not found' -- "$ACSIM" report "$T/full.h5" -o "$T/rep2" --gnuplot /nonexistent/gnuplot
grep -q '\.svg' "$T/rep2/index.html" && bad "no_svg_without_gnuplot" || ok "no_svg_without_gnuplot"
expect report_bad_file 2 'text.h5: not an HDF5 file' -- "$ACSIM" report "$T/text.h5" -o "$T/rep3"

# Every process a command starts is reaped by it (the simulation zygotes
# of `acsim run` and of each sweep worker), so `time acsim ...` counts
# their CPU time.
if [ -x "$PY" ]; then
  expect run_reaps_its_processes 0 '^orphans 0$' -- "$PY" "$SRC/tests/reap.py" "$ACSIM" run -q \
    -w workloads/dnn/alexnet.csv -s list
  expect sweep_reaps_its_processes 0 '^orphans 0$' -- "$PY" "$SRC/tests/reap.py" "$ACSIM" sweep \
    "${GRID[@]}" -j 2 -o "$T/reap.h5"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
