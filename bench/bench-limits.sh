#!/usr/bin/env bash
# bench-limits.sh ACSIM: inputs of about a megabyte that ask for a lot, one
# per reader, each loaded and built by `acsim workload` (or read by `acsim
# platform`) at the default limits: wall time, peak memory, and whether it
# was built or refused (exit 2, the limit named). docs/fuzzing.md states the
# goal: built within 10 s and 1 GB, or refused. Not a test: the figures
# depend on the machine and its load, which the last line prints.
set -u
ACSIM=${1:?usage: bench-limits.sh ACSIM}
W=$(mktemp -d /tmp/acsim-bench-limits-XXXXXX)
trap 'rm -rf "$W"' EXIT

/usr/bin/python3 - "$W" <<'PY'
import random, sys
random.seed(1)
W = sys.argv[1]
MB = 1 << 20

def fit(make, n0):
    """The largest size of make(n) near one megabyte (make is linear)."""
    n = max(1, int(n0 * MB / len(make(n0))))
    return make(n)

def sdf_chain(n):
    a = ['<sdf3 type="sdf"><applicationGraph name="g"><sdf name="g" type="g">']
    a += ['<actor name="a%d" type="A"><port name="i" type="in" rate="1"/>'
          '<port name="o" type="out" rate="1"/></actor>' % i for i in range(n)]
    a += ['<channel name="c%d" srcActor="a%d" srcPort="o" dstActor="a%d" dstPort="i"/>'
          % (i, i, i + 1) for i in range(n - 1)]
    a.append('</sdf><sdfProperties>')
    a += ['<actorProperties actor="a%d"><processor type="p" default="true">'
          '<executionTime time="1"/></processor></actorProperties>' % i for i in range(n)]
    a.append('<graphProperties><acsim iterations="50"/></graphProperties>')
    a.append('</sdfProperties></applicationGraph></sdf3>')
    return "\n".join(a)

def stg(n):
    lines = [str(n), "0 0 0"]
    for i in range(1, n + 1):
        p = sorted(set(random.randrange(0, i) for _ in range(10)))
        lines.append("%d %d %d %s" % (i, random.randrange(1, 100), len(p), " ".join(map(str, p))))
    lines.append("%d 0 %d %s" % (n + 1, n, " ".join(map(str, range(1, n + 1)))))
    return "\n".join(lines) + "\n"

def graph_csv(n):
    return "name,cycles,inputs\n" + "".join(
        "o%d,1,%s\n" % (i, "o%d" % (i - 1) if i else "") for i in range(n))

def loop_csv(n):
    l = ["kind,name,class,latency,blocking,limit,inputs", "class,alu,,3,1,4,", "class,mem,,2,1,2,"]
    for i in range(n):
        ins = ";".join("x%d@%d+%d" % (random.randrange(n), random.randrange(1, 4),
                                      random.randrange(5)) for _ in range(2)) if i else ""
        l.append("op,x%d,%s,,,,%s" % (i, "alu" if i % 2 else "mem", ins))
    return "\n".join(l) + "\n"

def sare(n):
    l = ["params [N] -> { : N >= 1 }", "bind N = 15", "input { V0[i,j] : 0 <= i, j <= N }"]
    for v in range(1, n):
        l.append("output { V%d[i,j] : 0 <= i, j <= N } delay 1" % v)
        l.append("read { V%d[i,j] -> V%d[j,i] }" % (v, v - 1))
    return "\n".join(l) + "\n"

def bands(n):
    l = ["params [N] -> { : N >= 1 }", "bind N = 1048575",
         "input { V0[i,j] : 0 <= i, j <= N and i <= j <= i + 1 }"]
    for v in range(1, n):
        l.append("output { V%d[i,j] : 0 <= i, j <= N and i <= j <= i + 1 } delay 1" % v)
        l.append("read { V%d[i,j] -> V%d[i,j] }" % (v, v - 1))
    return "\n".join(l) + "\n"

def platform(n):
    return "name,freq_mhz,pe_count,cmx_kib\n" + "".join(
        "p%d,700,%d,%d\n" % (i, 1 + i % 64, 64 + i % 4096) for i in range(n))

files = {"chain.xml": fit(sdf_chain, 2000), "tasks.stg": fit(stg, 2000),
         "chain.csv": fit(graph_csv, 5000), "loop.csv": fit(loop_csv, 2000),
         "statements.sare": fit(sare, 500), "bands.sare": bands(20),
         "rows.csv": fit(platform, 5000)}
for name, text in files.items():
    open("%s/%s" % (W, name), "w").write(text)
PY

printf '%-16s %9s %8s %9s  %s\n' input bytes seconds "peak MB" outcome
for f in chain.xml tasks.stg chain.csv loop.csv statements.sare bands.sare rows.csv; do
  cmd=(workload "$W/$f")
  [ "$f" = rows.csv ] && cmd=(platform "$W/$f")
  /usr/bin/time -f '%e %M' -o "$W/time" "$ACSIM" "${cmd[@]}" >"$W/out" 2>"$W/err"
  rc=$?
  read -r secs kb < <(tail -n 1 "$W/time")
  if [ "$rc" = 0 ]; then
    what=$(grep -oE 'op graph [0-9]+ ops' "$W/out" | head -n 1)
    [ -n "$what" ] || what="read"
  else
    what="exit $rc: $(grep -oE 'more than the limit [a-z_]+=[0-9]+' "$W/err" | head -n 1)"
  fi
  printf '%-16s %9d %8s %9d  %s\n' "$f" "$(wc -c <"$W/$f")" "$secs" $((kb / 1024)) "$what"
done
echo "load: $(uptime | sed 's/.*load average: //')"
