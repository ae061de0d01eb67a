#!/usr/bin/env bash
# acsim quick start.
#   ./quickstart.sh          set up, build, run the default study, write its HTML report
#   ./quickstart.sh check    set up, build, run every test
# Installs only the Debian packages that are missing, regenerates the build
# only when its inputs changed, builds with all cores. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"

mode=${1:-run}
case "$mode" in
  run|check) ;;
  -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 [check]" >&2; exit 2 ;;
esac

# Debian packages acsim builds and tests with. slurm-wlm and munge serve
# tests/slurm.sh, which runs a private cluster (own munged socket, own
# config, free ports), so services apt may start do not get in its way;
# mandoc lints the man pages (tests/man.sh).
packages=(gcc make autoconf automake pkg-config libsimgrid-dev libhdf5-dev
          libcsv-dev libcriterion-dev libglpk-dev hdf5-tools python3 python3-h5py
          gnuplot-nox slurm-wlm munge protobuf-c-compiler libprotobuf-c-dev libonnx-dev
          python3-onnx libonnx-testdata libxml2-dev libisl-dev mandoc)
# The report's browser check (tests/browser.sh) renders it in headless
# Chromium; a large package, so only for `check`.
if [ "$mode" = check ]; then
  packages+=(chromium)
fi

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
fi
if ((${#missing[@]})); then
  echo "quickstart: installing ${missing[*]}"
  if [ "$(id -u)" = 0 ]; then
    sudo=()
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo)
  else
    echo "quickstart: cannot install packages (not root, no password-less sudo). Run:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
elif ! command -v dpkg-query >/dev/null 2>&1; then
  echo "quickstart: not a Debian system; make sure these are installed: ${packages[*]}" >&2
fi

# Regenerate only what is out of date.
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
  autoreconf -fi
fi
if [ ! -f Makefile ] || [ configure -nt config.status ]; then
  # Autoconf's probes try to remove stray `core` dumps, which trips over
  # our core/ directory; that message is noise.
  ./configure -q 2> >(grep -v "cannot remove 'core'" >&2)
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -s -j"$jobs"

if [ "$mode" = check ]; then
  status=0
  make -s -j"$jobs" check || status=$?
  # One closing line for people and CI: Criterion's per-program syntheses and
  # the end-to-end script's counts, added up.
  passed=0; failed=0
  for log in tests/*.log tests/fuzz/*.log; do
    [ -f "$log" ] || continue
    line=$(grep -E 'Synthesis: Tested: [0-9]+' "$log" | tail -n 1 || true)
    if [ -n "$line" ]; then
      p=$(sed -E 's/.*Passing: ([0-9]+).*/\1/' <<<"$line")
      f=$(sed -E 's/.*Failing: ([0-9]+) \| Crashing: ([0-9]+).*/\1+\2/' <<<"$line")
      passed=$((passed + p)); failed=$((failed + f))
      continue
    fi
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
    if [ -n "$line" ]; then
      passed=$((passed + ${line%% passed*}))
      f=${line#*, }; failed=$((failed + ${f%% failed}))
    fi
  done
  if [ "$status" != 0 ]; then
    for log in tests/*.log tests/fuzz/*.log; do
      grep -qE ":test-result: (FAIL|ERROR)" "${log%.log}.trs" 2>/dev/null && { echo "==> $log"; tail -n 40 "$log"; }
    done
    ((failed > 0)) || failed=1
  fi
  echo "check: $passed passed, $failed failed"
  exit "$status"
fi

# The default study (default platform and suite, every fast scheduler, a
# grid over CMX size and barrier count), then its report.
mkdir -p out
rm -f out/study.h5
status=0
./acsim sweep -o out/study.h5 || status=$?
if [ -s out/study.h5 ]; then
  ./acsim report out/study.h5 -o out/report || status=$?
  echo
  echo "Report:  $PWD/out/report/index.html (open it in a browser; it works offline)."
  echo "Runs:    out/report/runs.csv (one row per run); study: out/study.h5 (HDF5, README \"HDF5 results\")."
fi
exit "$status"
