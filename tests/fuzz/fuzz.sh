#!/bin/sh
# fuzz.sh run|merge SRCDIR BUILDDIR SECONDS FLAGS NAME... (`make fuzz`,
# `make fuzz-merge`; docs/fuzzing.md).
#
# run: fuzzes each harness in turn for SECONDS seconds with one job, under
# the limits the goals state (-rss_limit_mb=2048 -timeout=10), its
# dictionary, and three corpus directories: BUILDDIR/fuzz-work/NAME/corpus
# (where new inputs go), the committed tests/fuzz/corpus/NAME and the
# shipped files of its format (seeds.sh). Crashes, timeouts and
# out-of-memory inputs land in fuzz-work/NAME/ (crash-*, timeout-*, oom-*),
# the log in fuzz-work/NAME/log. Prints one line per harness: executions,
# coverage (libFuzzer's cov: and ft:), new inputs, artifacts. Exits 1 when
# any harness left an artifact. FLAGS are added to libFuzzer's options.
#
# merge: minimizes the committed corpus together with fuzz-work/NAME/corpus
# (libFuzzer -set_cover_merge=1, edges without hit counts) into tests/fuzz/corpus/NAME,
# keeping only inputs of
# at most MAX_KEEP bytes (default 4096) that reach code the shipped files
# do not.
set -eu
mode=$1 src=$2 build=$3 seconds=$4 flags=$5
shift 5
status=0
MAX_KEEP=${MAX_KEEP:-4096}

for name in "$@"; do
  bin="$build/tests/fuzz/fuzz-$name"
  work="$build/fuzz-work/$name"
  committed="$src/tests/fuzz/corpus/$name"
  dict="$src/tests/fuzz/dict/$name.dict"
  mkdir -p "$work/corpus" "$committed"
  rm -rf "$work/seeds"
  "$src/tests/fuzz/seeds.sh" "$name" "$src" "$work/seeds"
  dictopt=
  [ -f "$dict" ] && dictopt="-dict=$dict"
  # Per-harness options (docs/fuzzing.md). onnx-build: models up to 16 KB
  # (the shipped networks up to squeezenet and unet; the larger ones take
  # half a second or more per build under the sanitizers, and their
  # parsing is fuzzed by the onnx harness at any size).
  hflags=
  case "$name" in
  onnx-build) hflags=-max_len=16384 ;;
  esac
  case "$mode" in
  run)
    before=$(ls "$work/corpus" | wc -l)
    old_arts=$(ls "$work" | grep -E '^(crash|timeout|oom|leak|slow-unit)-' || true)
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$work/" $dictopt $hflags $flags \
      "$work/corpus" "$committed" "$work/seeds" >"$work/log" 2>&1 || true
    after=$(ls "$work/corpus" | wc -l)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -n 1)
    cov=$(grep -E '^#[0-9]+.*cov: ' "$work/log" | tail -n 1 | sed -E 's/.*(cov: [0-9]+ ft: [0-9]+).*/\1/')
    # Only what this run found: earlier artifacts stay until removed.
    arts=$(ls "$work" | grep -E '^(crash|timeout|oom|leak|slow-unit)-' |
           grep -vxF "$old_arts" || true)
    printf '%-11s %10s execs  %-22s %5d new inputs  %s\n' "$name" "${execs:-?}" "${cov:-cov: ?}" \
      $((after - before)) "${arts:+artifacts: $(echo $arts)}"
    [ -z "$arts" ] || status=1
    ;;
  merge)
    # The shipped seeds' coverage first (minimized into base/), then what
    # the committed corpus and the fuzz runs add beyond it: only that is
    # committed, the seeds stay where they are shipped. Inputs over
    # MAX_KEEP bytes are left out to keep the corpus small.
    rm -rf "$work/base" "$work/merged"
    mkdir -p "$work/base" "$work/merged"
    "$bin" -set_cover_merge=1 -use_counters=0 -rss_limit_mb=2048 -timeout=10 "$work/base" "$work/seeds" \
      >"$work/merge.log" 2>&1
    cp "$work/base"/* "$work/merged"/ 2>/dev/null || true
    "$bin" -set_cover_merge=1 -use_counters=0 -rss_limit_mb=2048 -timeout=10 "$work/merged" "$committed" "$work/corpus" \
      >>"$work/merge.log" 2>&1
    rm -f "$committed"/*
    for f in "$work/merged"/*; do
      [ -f "$f" ] && [ ! -e "$work/base/${f##*/}" ] && [ "$(wc -c <"$f")" -le "$MAX_KEEP" ] &&
        cp "$f" "$committed"/
    done
    printf '%-11s %5d inputs  %8d bytes\n' "$name" "$(ls "$committed" | wc -l)" \
      "$(cat "$committed"/* 2>/dev/null | wc -c)"
    ;;
  *) echo "fuzz.sh: unknown mode '$mode'" >&2; exit 2 ;;
  esac
done
exit $status
