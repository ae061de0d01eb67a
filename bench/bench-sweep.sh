#!/usr/bin/env bash
# bench-sweep: two sweeps of 120 runs each, with 1 and with 2 workers, best
# of 3 rounds; prints the wall-clock times, the -j 2 / -j 1 speedup and the
# cost of a run per core (wall time x workers / runs).
#   large: vgg16 and yolo (up to 7,600 ops a run);
#   small: the default suite's four small networks (12 to 71 ops a run), where
#          the fixed cost of a run (scheduling, verifying, a simulation
#          process, storing) is what counts.
# Targets (issue 10), on an otherwise idle 2-core machine: speedup >= 1.8
# on both, at most 20 ms per run per core on the small one. A figure, not a
# test; the load at the start and the end is printed with the figures.
#   bench/bench-sweep.sh [ACSIM] [SOURCE_DIR]
set -euo pipefail
ACSIM=${1:-${ACSIM:-./acsim}}
SRC=${2:-${ACS_SRCDIR:-.}}
T=$(mktemp -d /tmp/acsim-bench-sweep-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$SRC"

# 2 workloads x 5 CMX sizes x 3 DMA bandwidths x 2 schedulers = 60 runs per
# DDR ratio, two ratios: 120 runs, each scheduled, verified and simulated.
LARGE=(-w workloads/dnn/vgg16.csv -w workloads/dnn/yolo.csv
       --vary cmx_kib=256..4096*2 --vary dma_gbps=16,32,64 --vary ddr_ratio=4,8
       -s sequential,list -q --keep-schedules=none)
# 4 workloads x 5 CMX sizes x 3 DMA bandwidths x 2 schedulers = 120 runs.
SMALL=(-w workloads/suites/default.txt
       --vary cmx_kib=512..8192*2 --vary dma_gbps=16,32,64
       -s sequential,list -q --keep-schedules=none)

# Wall seconds of one sweep: run NAME JOBS GRID...
run() {
  local name=$1 jobs=$2 t0 t1
  shift 2
  rm -f "$T/s.h5"
  t0=$(date +%s.%N)
  "$ACSIM" sweep "$@" -j "$jobs" -o "$T/s.h5" >"$T/out.$name" 2>/dev/null
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}'
}
runs() { sed -nE 's/^([0-9]+) runs in .*/\1/p' "$T/out.$1"; }
min() { awk -v a="${1:-1e9}" -v b="$2" 'BEGIN{print (b < a ? b : a)}'; }

bench() {
  local name=$1 best1= best2= t1 t2 n
  shift
  echo "$name grid: $*"
  for rep in 1 2 3; do
    t1=$(run "$name" 1 "$@"); t2=$(run "$name" 2 "$@")
    printf "  round %d: -j 1 %6.2f s   -j 2 %6.2f s   (%s runs)\n" "$rep" "$t1" "$t2" "$(runs "$name")"
    best1=$(min "$best1" "$t1"); best2=$(min "$best2" "$t2")
  done
  n=$(runs "$name")
  awk -v a="$best1" -v b="$best2" -v n="$n" -v name="$name" 'BEGIN{
    printf "  %s, best of 3: -j 1 %.2f s, -j 2 %.2f s: speedup %.2fx (target >= 1.8);\n", name, a, b, a / b
    printf "  per run per core: -j 1 %.1f ms, -j 2 %.1f ms (target <= 20 ms on the small grid)\n",
           1000 * a / n, 2000 * b / n }'
}

echo "bench-sweep: $(nproc) cores; load at start:$(uptime | sed 's/.*load average//')"
bench large "${LARGE[@]}"
bench small "${SMALL[@]}"
echo "load at end:$(uptime | sed 's/.*load average//')"
