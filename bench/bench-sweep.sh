#!/usr/bin/env bash
# bench-sweep: the same sweep of 120 runs (GRID below) with 1 and with 2
# workers, best of 3 rounds; prints both wall-clock times and the speedup.
# A figure, not a test: run it on an otherwise idle machine.
#   bench/bench-sweep.sh [ACSIM] [SOURCE_DIR]
set -euo pipefail
ACSIM=${1:-${ACSIM:-./acsim}}
SRC=${2:-${ACS_SRCDIR:-.}}
T=$(mktemp -d /tmp/acsim-bench-sweep-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$SRC"

# 2 workloads x 5 CMX sizes x 3 DMA bandwidths x 2 schedulers = 60 runs per
# DDR ratio, two ratios: 120 runs, each scheduled, verified and simulated.
GRID=(-w workloads/dnn/vgg16.csv -w workloads/dnn/yolo.csv
      --vary cmx_kib=256..4096*2 --vary dma_gbps=16,32,64 --vary ddr_ratio=4,8
      -s sequential,list -q --keep-schedules=none)

run() {
  local jobs=$1 t0 t1
  rm -f "$T/s.h5"
  t0=$(date +%s.%N)
  "$ACSIM" sweep "${GRID[@]}" -j "$jobs" -o "$T/s.h5" >"$T/out" 2>/dev/null
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}'
}
runs() { sed -nE 's/^([0-9]+) runs in .*/\1/p' "$T/out"; }

echo "bench-sweep: $(nproc) cores; grid: ${GRID[*]}"
best1=; best2=
for rep in 1 2 3; do
  t1=$(run 1); t2=$(run 2)
  printf "  round %d: -j 1 %6.2f s   -j 2 %6.2f s   (%s runs)\n" "$rep" "$t1" "$t2" "$(runs)"
  best1=$(awk -v a="${best1:-1e9}" -v b="$t1" 'BEGIN{print (b < a ? b : a)}')
  best2=$(awk -v a="${best2:-1e9}" -v b="$t2" 'BEGIN{print (b < a ? b : a)}')
done
awk -v a="$best1" -v b="$best2" -v n="$(runs)" 'BEGIN{
  printf "best of 3: -j 1 %.2f s (%.1f runs/s), -j 2 %.2f s (%.1f runs/s): speedup %.2fx\n",
         a, n / a, b, n / b, a / b }'
