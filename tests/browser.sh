#!/usr/bin/env bash
# tests/browser.sh - the report in a real browser: headless Chromium renders
# the report of a study with the default study's structure (CMX sizes x
# barrier counts x PE counts, a network and an op graph, the default
# schedulers) and of a study of the loop and recurrence-equation families,
# at 1366 x 768, and fails on a console error, a broken image, or an
# element wider than the viewport or cut off in its box (tests/browser.py).
# A page with one fault of each kind, checked first, must show all three:
# so the check is known to catch them.
#
# The studies are small (48 and 12 runs) to keep `make check` short; the
# default study's own report has the same sections and plots, more rows.
# Exits 77 (skipped, saying why) without Chromium (./quickstart.sh check
# installs Debian's chromium) or python3; needs gnuplot for the images.
set -u
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/acsim-browser-XXXXXX)
trap 'rm -rf "$T"' EXIT

chromium=
for c in chromium chromium-browser google-chrome; do
  command -v "$c" >/dev/null 2>&1 && { chromium=$(command -v "$c"); break; }
done
if [ -z "$chromium" ]; then
  echo "SKIP: Chromium is not installed (apt-get install chromium; ./quickstart.sh check does)"
  exit 77
fi
[ -x "$PY" ] || { echo "SKIP: $PY is missing"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot is missing: the report would have no images"; exit 77; }
echo "browser: $chromium ($("$chromium" --version 2>/dev/null | head -n 1))"

cd "$SRC" || exit 2
mkdir -p "$T/bad"
cat >"$T/bad/index.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>three faults</title></head><body>
<p>A console error, a broken image and an element wider than the viewport.</p>
<img src="missing.svg" alt="missing"><div style="width:2000px">too wide</div>
<script>console.error("the check must see this");</script></body></html>
HTML

"$ACSIM" sweep -q -j 2 -w workloads/onnx/alexnet.onnx -w workloads/graphs/resnet_block_chain.csv \
  --vary cmx_kib=256,1024 --vary barriers=0,8 --vary pe_count=4,8 -o "$T/default.h5" >"$T/log" 2>&1 &&
"$ACSIM" report "$T/default.h5" -o "$T/default" >>"$T/log" 2>&1 &&
"$ACSIM" sweep -q -j 2 -w workloads/loops/fir3.csv -w 'workloads/affine/matmul.sare:N=4,8' \
  -s modulo,list,affine --vary units.mem=1,2 -o "$T/families.h5" >>"$T/log" 2>&1 &&
"$ACSIM" report "$T/families.h5" -o "$T/families" >>"$T/log" 2>&1 ||
  { echo "FAIL: the studies or their reports"; cat "$T/log"; exit 1; }

status=0
"$PY" "$SRC/tests/browser.py" "$chromium" --expect-bad "$T/bad/index.html" || status=1
"$PY" "$SRC/tests/browser.py" "$chromium" "$T/default/index.html" "$T/families/index.html" || status=1
[ "$status" = 0 ] && echo "3 passed, 0 failed" || echo "some pages failed"
exit "$status"
