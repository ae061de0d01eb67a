#!/usr/bin/env bash
# End-to-end test of sweeps on Slurm (README "Shards"): starts a private
# one-node Slurm cluster on localhost (its own munged, slurmctld and slurmd,
# everything under one temporary directory, free ports), submits a sharded
# sweep with contrib/slurm/acsim-slurm-sweep (a job array and a dependent
# merge job), runs the same sweep unsharded, and checks run by run that the
# merged study equals it (tests/check_shards.py). Also: a failing shard
# holds the merge back, and a shard submitted again resumes.
# Stops the daemons and removes the directory on exit, failure or signal.
# Needs root (slurmd runs each job as its owner) and the Debian packages
# slurm-wlm, munge and python3-h5py; exits 77 (skip) without them.
# Prints "N passed, N failed".
set -u
PATH=$PATH:/usr/sbin:/sbin
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
PY=/usr/bin/python3
SUBMIT=contrib/slurm/acsim-slurm-sweep
pass=0; fail=0

skip() { echo "SKIP: $*"; exit 77; }
ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; }
now()  { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

[ "$(id -u)" = 0 ] || skip "the Slurm test needs root: slurmd runs every job as the user who submitted it (CI runs as root)"
for prog in munged munge slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$prog" >/dev/null || skip "$prog not found: install slurm-wlm and munge (./quickstart.sh check does)"
done
"$PY" -c 'import h5py' 2>/dev/null || skip "$PY cannot import h5py: install python3-h5py (./quickstart.sh check does)"
case $ACSIM in /*) ;; *) ACSIM=$(cd "$(dirname "$ACSIM")" && pwd)/$(basename "$ACSIM") ;; esac
cd "$SRC" || exit 2
START=$(now)

T=$(mktemp -d /tmp/acsim-slurm-XXXXXX) || exit 2
# munged insists that everyone may traverse the directories to its socket.
chmod 711 "$T"
mkdir -m 711 "$T/munge" && mkdir "$T/state" "$T/spool" "$T/log" "$T/out" "$T/bad" || exit 2
CONF=$T/slurm.conf
export SLURM_CONF=$CONF
MUNGED= SLURMCTLD= SLURMD=

# A process of ours that has not exited (an exited child stays a zombie
# until waited for, and kill -0 still finds it).
alive() { [ -r "/proc/$1/stat" ] && ! grep -qE '^[0-9]+ \(.*\) Z' "/proc/$1/stat" 2>/dev/null; }
# Runs a command in the background and waits for it: a background
# command ignores SIGINT and `wait` returns at once on a signal, so Ctrl-C
# reaches our trap even while a Slurm client (which handles SIGINT and
# exits normally, and bash then lets the signal pass) is running.
bgwait() { "$@" & wait $!; }
pause() { bgwait sleep 0.1; }
stop() {
  local pid=$1 i
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 100; i++)); do alive "$pid" || break; sleep 0.1; done
  alive "$pid" && kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
cleanup() {
  local p round found
  trap - EXIT INT TERM HUP
  set +e
  stop "$SLURMD"; stop "$SLURMCTLD"; stop "$MUNGED"
  # Anything else this run started (jobs still running: a slurmstepd and
  # its job leave slurmd's session; the unsharded sweep) carries
  # SLURM_CONF=$CONF, a path unique to this run, so nothing else matches.
  # Stopped first, so that a sweep cannot fork a new worker for one that
  # was killed.
  unset SLURM_CONF
  for round in 1 2 3; do
    found=()
    for p in $(grep -lzxF "SLURM_CONF=$CONF" /proc/[0-9]*/environ 2>/dev/null); do
      p=${p#/proc/}; p=${p%/environ}
      [ "$p" != $$ ] && kill -STOP "$p" 2>/dev/null && found+=("$p")
    done
    ((${#found[@]})) || break
    kill -KILL "${found[@]}" 2>/dev/null
    sleep 0.1
  done
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
# On a failure to start: the daemons' last words, then out.
die() {
  echo "FAIL $*"
  for f in "$T"/log/*; do [ -s "$f" ] && { echo "==> $f"; tail -n 15 "$f"; }; done
  echo "$pass passed, $((fail + 1)) failed"
  exit 1
}

# ---- munge: a key of our own, a daemon on a socket of our own ----
if command -v mungekey >/dev/null; then
  mungekey -c -k "$T/munge/munge.key" 2>"$T/log/mungekey.err" || die "mungekey"
else
  dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$T/munge/munge.key"
fi
munged -F --socket="$T/munge/socket" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
  --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" >"$T/log/munged.out" 2>&1 &
MUNGED=$!
for ((i = 0; i < 600; i++)); do
  bgwait munge -S "$T/munge/socket" -n </dev/null >/dev/null 2>&1 && break
  alive "$MUNGED" || die "munged exited"
  pause
done
munge -S "$T/munge/socket" -n </dev/null >/dev/null 2>&1 || die "munged did not answer within 60 s"

# ---- slurm.conf: this machine as the only node, free ports ----
# slurmd -C prints this machine as a node line: its name (slurmd's idea
# of the host name, which slurmctld also checks itself against) and its
# CPUs, sockets, cores, threads and memory.
nodeline=$(slurmd -C 2>/dev/null | grep '^NodeName=')
host=$(sed -n 's/^NodeName=\([^ ]*\).*/\1/p' <<<"$nodeline")
node=$(sed -n 's/^NodeName=[^ ]* //p' <<<"$nodeline")
[ -n "$host" ] && [ -n "$node" ] || die "slurmd -C printed no node line"
write_conf() {
  cat >"$CONF" <<EOF
ClusterName=acsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge/socket
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
PlugStackConfig=$T/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
NodeName=$host NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=acsim Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}
: >"$T/plugstack.conf"

# ---- slurmctld and slurmd; ready when the node is idle ----
# The ports are free when picked; should another program take one before
# the daemon binds it, the daemon exits and we try new ones.
ready=0
for attempt in 1 2 3; do
  read -r p1 p2 < <("$PY" -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
  write_conf "$p1" "$p2"
  slurmctld -D -f "$CONF" >"$T/log/slurmctld.out" 2>&1 &
  SLURMCTLD=$!
  slurmd -D -N "$host" -f "$CONF" >"$T/log/slurmd.out" 2>&1 &
  SLURMD=$!
  for ((i = 0; i < 600; i++)); do
    alive "$SLURMCTLD" && alive "$SLURMD" || break
    bgwait scontrol ping >"$T/poll" 2>&1
    if grep -q 'is UP' "$T/poll" && bgwait sinfo -h -n "$host" -o %T >"$T/poll" 2>&1 && [ "$(cat "$T/poll")" = idle ]; then
      ready=1; break
    fi
    pause
  done
  [ "$ready" = 1 ] && break
  if grep -qs 'in use' "$T"/log/slurm*.out; then
    stop "$SLURMD"; stop "$SLURMCTLD"; SLURMD= SLURMCTLD=
    rm -rf "$T/state"/* "$T/spool"/*
    continue
  fi
  break
done
[ "$ready" = 1 ] || die "the cluster did not come up within 60 s"
ok "cluster_up (ports $p1/$p2, $(since "$START") s)"

# Waits until every job (or array task) of ID has ended; sets STATES to
# their states, one a line. The deadline is generous (slow sanitizer
# builds, a loaded CI machine); polling the controller is the
# synchronization. No subshell, so a signal reaches the trap at once.
wait_job() {
  local id=$1 i
  for ((i = 0; i < 12000; i++)); do
    alive "$SLURMCTLD" && alive "$SLURMD" || die "a Slurm daemon exited"
    bgwait scontrol -o show job "$id" >"$T/poll" 2>/dev/null
    STATES=$(sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p' "$T/poll")
    if [ -n "$STATES" ] && ! grep -qE '^(PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED|RESIZING)' <<<"$STATES"; then
      return 0
    fi
    pause
  done
  return 1
}
job_ids() { sed -n "s/^$1: job[a-z ]* \([0-9][0-9]*\) .*/\1/p" "$2"; }

# ---- the sharded sweep: 3 CMX sizes x 2 barrier counts x 2 workloads x
# 3 schedulers = 36 runs in 5 shards (8, 7, 7, 7, 7 runs). The workloads
# are small (a DNN and an op graph, some runs infeasible at 128 KiB); the
# list scheduler searches randomly (iterations=20), which must not depend
# on the shard either. Every schedule is stored, to compare those too.
CMX=(128 512 2048) BARRIERS=(0 8) WORKLOADS=(dnn/alexnet graphs/resnet_block_chain) SCHEDS=(sequential list spill)
GRID=(-w "workloads/${WORKLOADS[0]}.csv" -w "workloads/${WORKLOADS[1]}.csv"
      --vary "cmx_kib=$(IFS=,; echo "${CMX[*]}")" --vary "barriers=$(IFS=,; echo "${BARRIERS[*]}")"
      -s "$(IFS=,; echo "${SCHEDS[*]}")" -O iterations=20 --keep-schedules=all -q)
N=5
# The grid in its canonical order, from the README: platform variants
# (the last --vary changing fastest), then workloads (named after their
# file), then schedulers.
for c in "${CMX[@]}"; do for b in "${BARRIERS[@]}"; do for w in "${WORKLOADS[@]}"; do for s in "${SCHEDS[@]}"; do
  printf 'default[cmx_kib=%s,barriers=%s]\t%s\t%s\n' "$c" "$b" "${w#*/}" "$s"
done; done; done; done >"$T/order.txt"
RUNS=$(wc -l <"$T/order.txt")

t0=$(now)
"$SUBMIT" -n "$N" -d "$T/out" --acsim "$ACSIM" -- "${GRID[@]}" >"$T/submit.out" 2>&1
array=$(job_ids sweep "$T/submit.out") merge=$(job_ids merge "$T/submit.out")
if [ -n "$array" ] && [ -n "$merge" ]; then ok "submitted (array $array, merge $merge)"; else bad "submitted"; cat "$T/submit.out"; fi

# Meanwhile, the same sweep without shards, outside Slurm.
"$ACSIM" sweep "${GRID[@]}" -j 2 -o "$T/full.h5" >"$T/full.out" 2>&1 &
fullpid=$!

wait_job "${array:-0}" || bad "array_finished (still: $(echo $STATES))"
states=$STATES
ncomp=$(grep -c '^COMPLETED$' <<<"$states")
[ "$ncomp" = "$N" ] && ok "array_tasks_completed ($N of $N)" || bad "array_tasks_completed ($ncomp of $N: $(echo $states))"
exits=$(scontrol -o show job "${array:-0}" 2>/dev/null | grep -o ' ExitCode=[0-9:]*' | sort -u | tr -d ' ')
[ "$exits" = "ExitCode=0:0" ] && ok "array_tasks_exit_0" || bad "array_tasks_exit_0 ($(echo $exits))"
wait_job "${merge:-0}"; mstate=$STATES
[ "$mstate" = COMPLETED ] && ok "merge_job_completed (after the array)" || bad "merge_job_completed ($mstate)"
slurm_seconds=$(since "$t0")

# Each task ran its own shard, of the size the split gives.
for ((k = 1; k <= N; k++)); do
  want=$(( (RUNS - k) / N + 1 ))
  log=$T/out/slurm-${array}_$k.out
  if grep -q "^sweep-shard: shard $k/$N " "$log" 2>/dev/null && grep -q "; shard $k/$N: $want\$" "$log"; then
    ok "task_${k}_ran_shard_$k/$N ($want runs)"
  else
    bad "task_${k}_ran_shard_$k/$N ($want runs)"; tail -n 5 "$log" 2>/dev/null
  fi
done
grep -q "^merged $RUNS runs" "$T/out/slurm-$merge-merge.out" 2>/dev/null &&
  ok "merge_log ($RUNS runs)" || { bad "merge_log"; cat "$T/out/slurm-$merge-merge.out" 2>/dev/null; }

wait "$fullpid"; rc=$?
[ "$rc" = 0 ] && grep -q "^$RUNS runs in" "$T/full.out" && ok "unsharded_sweep ($RUNS runs)" ||
  { bad "unsharded_sweep (exit $rc)"; tail -n 5 "$T/full.out"; }

shards=()
for ((k = 1; k <= N; k++)); do shards+=("$T/out/shard-$k.h5"); done
if "$PY" tests/check_shards.py "$T/order.txt" "$T/full.h5" "$T/out/study.h5" "${shards[@]}" >"$T/check.out" 2>&1; then
  ok "merged_equals_unsharded ($(sed -n 's/^same: //p' "$T/check.out"))"
else
  bad "merged_equals_unsharded"; head -n 20 "$T/check.out"
fi
# The checker catches what it is for: one result off by a cycle, one
# schedule's op moved, shards given in the wrong order.
cp "$T/out/study.h5" "$T/tampered.h5"
"$PY" - "$T/tampered.h5" <<'EOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r+")
runs = f["/runs"]
i = list(runs["status"]).index(b"ok")
row = runs[i]; row["makespan_cycles"] += 1; runs[i] = row
ops = f["/schedules"][sorted(f["/schedules"])[-1]]["ops"]
op = ops[0]; op["start"] += 1; ops[0] = op
EOF
"$PY" tests/check_shards.py "$T/order.txt" "$T/full.h5" "$T/tampered.h5" "${shards[@]}" >"$T/check.out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q 'makespan_cycles is' "$T/check.out" && grep -q 'schedule table ops differs' "$T/check.out" &&
  ok "checker_sees_a_changed_result" || { bad "checker_sees_a_changed_result (exit $rc)"; head -n 5 "$T/check.out"; }
"$PY" tests/check_shards.py "$T/order.txt" "$T/full.h5" "$T/out/study.h5" "${shards[1]}" "${shards[0]}" "${shards[@]:2}" \
  >"$T/check.out" 2>&1; rc=$?
[ "$rc" = 1 ] && grep -q 'which belongs to another shard' "$T/check.out" &&
  ok "checker_sees_a_misplaced_shard" || { bad "checker_sees_a_misplaced_shard (exit $rc)"; head -n 5 "$T/check.out"; }

# ---- a shard submitted again resumes: it finds all its runs stored ----
again=$(sbatch --parsable --array=2 --output="$T/out/again-%A_%a.out" contrib/slurm/sweep-shard.sbatch \
  --shards "$N" --out "$T/out" --acsim "$ACSIM" -- "${GRID[@]}" 2>&1)
wait_job "${again%%;*}"; state=$STATES
want=$(( (RUNS - 2) / N + 1 ))
[ "$state" = COMPLETED ] && grep -q "; $want already in" "$T/out/again-${again%%;*}_2.out" 2>/dev/null &&
  ok "shard_resubmitted_resumes ($want already in)" || { bad "shard_resubmitted_resumes ($state)"; cat "$T/out/again-"* 2>/dev/null; }

# ---- a failing shard holds the merge back: bad input in every task ----
"$SUBMIT" -n 2 -d "$T/bad" --acsim "$ACSIM" -- -w workloads/dnn/alexnet.csv --vary cmx_kib=128,abc >"$T/bad.out" 2>&1
barray=$(job_ids sweep "$T/bad.out") bmerge=$(job_ids merge "$T/bad.out")
wait_job "${barray:-0}"; bstates=$STATES
[ "$(grep -c '^FAILED$' <<<"$bstates")" = 2 ] && ok "bad_shards_fail" || bad "bad_shards_fail ($(echo $bstates))"
grep -q "cmx_kib: 'abc' is not a number" "$T/bad/slurm-${barray}_1.out" 2>/dev/null &&
  ok "bad_shard_log_says_why" || bad "bad_shard_log_says_why"
wait_job "${bmerge:-0}"; bmstate=$STATES
[ "$bmstate" = CANCELLED ] && [ ! -e "$T/bad/study.h5" ] && ok "merge_cancelled_after_failed_shard" ||
  bad "merge_cancelled_after_failed_shard ($bmstate)"

# ---- usage errors: exit 2 and a message, nothing queued ----
# (the controller keeps ended jobs for MinJobAge, 300 s: counting every
# job it knows sees one submitted in between even if it already ended)
before=$(scontrol -o show job | grep -c '^JobId=')
"$SUBMIT" -d "$T/u" -- -w x >"$T/u.out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q 'the number of shards) is required' "$T/u.out" && ok "submit_needs_shards" || bad "submit_needs_shards (exit $rc)"
"$SUBMIT" -n 2 -d "$T/u" --acsim "$ACSIM" -- -w x -o y.h5 >"$T/u.out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "'-o': this script sets" "$T/u.out" && ok "submit_refuses_output" || bad "submit_refuses_output (exit $rc)"
"$SUBMIT" -n 2 -d "$T/u" --acsim /nonexistent/acsim >"$T/u.out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "is not a program" "$T/u.out" && ok "submit_needs_acsim" || bad "submit_needs_acsim (exit $rc)"
after=$(scontrol -o show job | grep -c '^JobId=')
[ "$after" = "$before" ] && ok "usage_errors_queue_nothing ($before jobs known)" || bad "usage_errors_queue_nothing ($before, then $after jobs)"
contrib/slurm/merge-shards.sbatch --shards 6 --out "$T/out" --acsim "$ACSIM" --study "$T/u.h5" >"$T/u.out" 2>&1; rc=$?
[ "$rc" = 2 ] && grep -q "shard-6.h5 is missing" "$T/u.out" && [ ! -e "$T/u.h5" ] &&
  ok "merge_needs_every_shard" || bad "merge_needs_every_shard (exit $rc)"

echo "slurm: $(since "$START") s in all; the sharded sweep took $slurm_seconds s from submission to merged (unsharded run alongside)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
