#!/usr/bin/env bash
# bench-lower: the NPU lowering against its goals, each figure beside its
# goal (and, where the lowering before layers were spread over the PEs
# measured one, that figure), in one run:
#   1. PE scaling: list at cmx_kib=2048, pe_count=1 over pe_count=4, on
#      MobileNetV1 and ResNet-18 (ONNX and SCALE-Sim): goal >= 3.3 (was 1.00);
#   2. list simulated / network bound at cmx_kib=2048: goal <= 1.20 (was
#      4.03 on MobileNetV1);
#   3. list and spill simulated at cmx_kib=256: MobileNetV1 <= 1.5 M cycles
#      (was 3.17 M and 4.41 M), ResNet-18 <= 3.5 M (was 8.39 M and 9.18 M);
#   4. planned vs simulated for list and spill at 256 KiB, 2 MiB and 16 PEs:
#      goal within 10%;
#   5. building the op graph of ResNet-50 and scheduling it with list: goal
#      under 1 s (wall clock, best of 3).
# A figure, not a test: it prints the machine load with the figures.
#   bench/bench-lower.sh [ACSIM] [SOURCE_DIR]
set -euo pipefail
ACSIM=${1:-${ACSIM:-./acsim}}
SRC=${2:-${ACS_SRCDIR:-.}}
cd "$SRC"
echo "bench-lower: load $(cut -d' ' -f1-3 /proc/loadavg)"

# Fields of `acsim run` rows: scheduler status makespan simulated slow% bound.
row() { # row WORKLOAD SCHED SETS...
  local w=$1 s=$2
  shift 2
  "$ACSIM" run -q -w "$w" -s "$s" "$@" 2>/dev/null | awk -v s="$s" '$3 == s { print $5, $6, $8 }'
}

echo
echo "1. list, cmx_kib=2048: pe_count=1 / pe_count=4 (goal >= 3.3; before 1.00)"
for w in workloads/onnx/mobilenet_v1.onnx workloads/onnx/resnet18.onnx \
         workloads/dnn/mobilenet_v1.csv workloads/dnn/resnet18.csv; do
  one=$(row "$w" list --set cmx_kib=2048 --set pe_count=1 | cut -d' ' -f2)
  four=$(row "$w" list --set cmx_kib=2048 --set pe_count=4 | cut -d' ' -f2)
  awk -v w="$w" -v a="$one" -v b="$four" 'BEGIN { printf "  %-36s %10d %10d  %.2f\n", w, a, b, a / b }'
done

echo
echo "2. list simulated / network bound, cmx_kib=2048 (goal <= 1.20; before 4.03 on MobileNetV1)"
for w in workloads/onnx/mobilenet_v1.onnx workloads/onnx/resnet18.onnx \
         workloads/dnn/mobilenet_v1.csv workloads/dnn/resnet18.csv; do
  row "$w" list --set cmx_kib=2048 |
    awk -v w="$w" '{ printf "  %-36s %10d / %10d = %.3f\n", w, $2, $3, $2 / $3 }'
done

echo
echo "3. simulated cycles at cmx_kib=256 (goal MobileNetV1 <= 1.5 M, ResNet-18 <= 3.5 M)"
for w in mobilenet_v1 resnet18; do
  case $w in mobilenet_v1) was="3.17 M / 4.41 M" ;; *) was="8.39 M / 9.18 M" ;; esac
  l=$(row "workloads/onnx/$w.onnx" list --set cmx_kib=256 | cut -d' ' -f2)
  s=$(row "workloads/onnx/$w.onnx" spill --set cmx_kib=256 | cut -d' ' -f2)
  awk -v w="$w" -v l="$l" -v s="$s" -v was="$was" \
    'BEGIN { printf "  %-14s list %.3f M, spill %.3f M (before %s)\n", w, l / 1e6, s / 1e6, was }'
done

echo
echo "4. planned vs simulated, list and spill (goal within 10%)"
for w in workloads/onnx/mobilenet_v1.onnx workloads/onnx/resnet18.onnx workloads/onnx/resnet50.onnx; do
  for sets in "cmx_kib=256" "cmx_kib=2048" "pe_count=16"; do
    for s in list spill; do
      row "$w" "$s" --set "$sets" | awk -v w="${w##*/}" -v s="$s" -v p="$sets" \
        '{ printf "  %-18s %-13s %-6s plan %9d sim %9d  %+.1f%%\n", w, p, s, $1, $2, 100 * ($2 - $1) / $1 }'
    done
  done
done

echo
echo "5. build + list on ResNet-50, no simulation (goal < 1 s; best of 3)"
best=
for i in 1 2 3; do
  t0=$(date +%s.%N)
  "$ACSIM" run -q -w workloads/onnx/resnet50.onnx -s list --no-sim >/dev/null 2>&1
  t1=$(date +%s.%N)
  t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  best=$(awk -v a="${best:-$t}" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
done
echo "  resnet50.onnx: ${best} s"
echo "bench-lower: load $(cut -d' ' -f1-3 /proc/loadavg)"
