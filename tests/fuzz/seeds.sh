#!/bin/sh
# seeds.sh NAME SRCDIR OUT: copies into OUT every shipped file (workloads/,
# platforms/, tests/data/) a harness reads, in the form its input takes.
# Harnesses whose inputs are programs of their own (csdf, results, setvary)
# have no shipped files: their committed corpus seeds them.
set -eu
name=$1 src=$2 out=$3
mkdir -p "$out"
cd "$src"

copy() {
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$out/$(echo "$f" | tr / _)"
  done
  return 0
}

# A loop graph and its resource model as one input: the graph, a line
# "--RM--", the model (fuzz-graphml.c).
graphml_pairs() {
  for g in workloads/loops/*.graphml tests/data/loops/*.graphml tests/data/loops_bad/*.graphml; do
    base=${g%.graphml}
    rm=
    for cand in "${base}_RM.xml" "${base}RM.xml"; do
      [ -f "$cand" ] && rm=$cand
    done
    dst="$out/$(echo "$g" | tr / _)"
    if [ -n "$rm" ]; then
      { cat "$g"; printf '\n--RM--\n'; cat "$rm"; } >"$dst"
    else
      cp "$g" "$dst"
    fi
  done
}

# SCALE-Sim tables start with "Layer name"; loop CSVs name a `class` column.
scalesim() { grep -l -i '^[" ]*Layer name' "$@" 2>/dev/null || true; }
loopcsv() { grep -l -E '(^|,) *class *(,|$)' "$@" 2>/dev/null || true; }

case "$name" in
  onnx|onnx-build) copy workloads/onnx/*.onnx tests/data/onnx/*.onnx ;;
  scalesim) copy $(scalesim workloads/dnn/*.csv tests/data/load/*.csv) ;;
  graphcsv) copy workloads/graphs/*.csv tests/data/load/graph_*.csv tests/data/load/csv_*.csv \
                 tests/data/load/empty.csv tests/data/load/comments_only.csv ;;
  loopcsv) copy $(loopcsv workloads/loops/*.csv tests/data/loops/*.csv tests/data/loops_bad/*.csv) ;;
  psplib) copy tests/data/psplib/*.sm tests/data/load/*.sm ;;
  stg) copy tests/data/load/*.stg ;;
  sdf3) copy workloads/sdf/*.xml tests/data/sdf/*.xml ;;
  sare) copy workloads/affine/*.sare ;;
  graphml) graphml_pairs ;;
  platform) copy platforms/*.csv tests/data/load/plat_*.csv ;;
  suite) copy workloads/suites/*.txt tests/data/load/suite_*.txt ;;
  csdf|results|setvary) ;;
  *) echo "seeds.sh: unknown harness '$name'" >&2; exit 2 ;;
esac
