#!/usr/bin/env bash
# End-to-end tests of SDF graphs (seed 004): every SDF scheduler on a
# benchmark graph, verified, simulated, stored with its result tables and
# control program, re-checked independently; bad SDF3 input is exit 2 with a
# located message; a PE x VMEM study and its report.
# Prints "N passed, N failed" and exits non-zero on any failure.
set -u
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/acsim-sdf-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; [ -f "$T/err" ] && sed 's/^/     | /' "$T/err" | head -n 5; }
expect() {
  local name=$1 code=$2 pat=$3; shift 4
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  if [ "$rc" != "$code" ]; then bad "$name (exit $rc, want $code)"; return; fi
  if [ -n "$pat" ] && ! grep -qE -- "$pat" "$T/out" "$T/err"; then bad "$name (no /$pat/)"; return; fi
  ok "$name"
}
have_h5py() { [ -x "$PY" ] && "$PY" -c 'import h5py' 2>/dev/null; }

cd "$SRC" || exit 2

# Four schedulers, verified and simulated, with the control program.
expect run_all 0 'gang +ok +[0-9]+ +[0-9]+ ' -- \
  "$ACSIM" run -p platforms/isp4.csv -w workloads/sdf/verification.xml -s all \
  -O program="$T/prog.txt" -o "$T/r.h5"
for s in sequential gang tiling naive-list; do
  if grep -qE "^isp4 +verification +$s +ok +[0-9]+ +[0-9]+ " "$T/out"; then ok "simulated_$s"; else bad "simulated_$s"; fi
done
if grep -q '^LOOP i 0 -> [0-9]' "$T/prog.txt" && grep -q '^#postamble' "$T/prog.txt"; then
  ok program_text
else
  bad program_text
fi
if have_h5py; then
  expect independent_checker 0 'checked 4 schedules, 0 with violations' -- "$PY" tests/check_schedules.py "$T/r.h5"
  expect program_table 0 'start_P' -- "$PY" -c '
import h5py, sys
f = h5py.File(sys.argv[1])
for run in f["schedules"]:
    g = f["schedules"][run]
    if "program" in g:
        p = g["program"][()]
        print(set(x.decode() for x in p["instruction"]), len(g["gangs"][()]), len(g["partition"][()]))
' "$T/r.h5"
else
  echo "skip independent_checker (python3-h5py missing)"
fi
# Three DMA channels share one DDR link (SimGrid shares its bandwidth):
# every plan puts no more transfers on the link than it carries at full
# rate, so SimGrid replays each plan to the cycle (rounding aside), the
# dynamic gang's MP3 decoder too.
# A DDR twice as fast as a DMA engine carries two transfers at once.
for r in 4 0.5; do
  for w in workloads/sdf/histeq.xml tests/data/sdf/mp3decoder_granule_parallelism.xml; do
    "$ACSIM" run -p platforms/isp4.csv --set dma_channels=3 --set ddr_ratio=$r -w "$w" -s all \
      >"$T/out" 2>"$T/err"
    n=$(awk '$1 == "isp4" && $4 == "ok" && ($5 - $6 <= 1 && $6 - $5 <= 1)' "$T/out" | wc -l)
    name="planned_is_simulated_$(basename "$w" .xml)_ddr_ratio_$r"
    if [ "$n" = 4 ]; then ok "$name"; else bad "$name ($n of 4)"; cat "$T/out" >> "$T/err"; fi
  done
done
expect program_needs_gang 2 "no selected scheduler has option 'program'" -- \
  "$ACSIM" run -p platforms/isp4.csv -w workloads/sdf/verification.xml -s tiling -O program=x.txt --no-sim

# Bad input: one located message, exit 2, nothing written.
printf '<?xml version="1.0"?>\n<sdf3>\n<applicationGraph>\n</sdf3>\n' > "$T/bad.xml"
expect malformed_xml 2 'bad.xml:4:[0-9]+: .*mismatch' -- "$ACSIM" run -w "$T/bad.xml" -o "$T/none.h5"
if [ ! -e "$T/none.h5" ]; then ok nothing_written; else bad nothing_written; fi
cat > "$T/inc.xml" <<'XML'
<?xml version="1.0"?>
<sdf3 type="sdf"><applicationGraph name="t"><sdf name="t" type="T">
<actor name="a" type="A"><port name="o" type="out" rate="1"/><port name="p" type="out" rate="2"/></actor>
<actor name="b" type="B"><port name="i" type="in" rate="1"/><port name="j" type="in" rate="1"/></actor>
<channel name="one" srcActor="a" srcPort="o" dstActor="b" dstPort="i"/>
<channel name="two" srcActor="a" srcPort="p" dstActor="b" dstPort="j"/>
</sdf><sdfProperties>
<actorProperties actor="a"><processor type="p"><executionTime time="1"/></processor></actorProperties>
<actorProperties actor="b"><processor type="p"><executionTime time="1"/></processor></actorProperties>
</sdfProperties></applicationGraph></sdf3>
XML
expect inconsistent 2 "inc.xml:6: inconsistent rates on channel 'two'" -- "$ACSIM" run -w "$T/inc.xml"
expect no_vmem 0 'infeasible' -- "$ACSIM" run -w workloads/sdf/difference.xml -s gang --no-sim

# A PE x VMEM study and its report.
expect sweep 0 'written to' -- "$ACSIM" sweep -p platforms/isp4.csv -w workloads/sdf/difference.xml \
  -s gang,tiling --vary pe_count=1,2 --vary pe_vmem_kib=32,128 --no-sim -j 2 -o "$T/s.h5"
expect report 0 '' -- "$ACSIM" report "$T/s.h5" -o "$T/rep"
for p in sdfvariants_difference sdfpevmem_difference; do
  if [ -f "$T/rep/plots/$p.gp" ] && grep -q "plots/$p" "$T/rep/index.html"; then ok "plot_$p"; else bad "plot_$p"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
