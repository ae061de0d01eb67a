#!/usr/bin/env bash
# tests/readme.sh - every command of README.md and of the manual (docs/*.md)
# runs as written from the root of a fresh clone.
#
# What it runs: every command of every ```sh block and every ```python block
# of README.md and then of each page of docs/ in the order of the README's
# table of pages, from the root of a scratch copy of what a
# clone holds that the commands use (platforms/, workloads/, tests/data/,
# tests/check_schedules.py) plus the acsim just built (as ./acsim and on
# PATH as acsim, with ACSIM_DATADIR pointing at the copy so nothing falls
# back to the source tree). Files a block writes stay for the blocks after
# it, as for a reader who follows the README from the top.
#
# A command is its line and the lines its trailing backslashes join; lines
# that are comments only are not commands (#SBATCH lines too: a Slurm batch
# script is run as the plain shell script it also is, with the variables a
# job of an array gets, SLURM_ARRAY_TASK_ID=1 and SLURM_CPUS_PER_TASK=2).
# Each command must exit 0 unless its comment says "(expect exit N)".
#
# Skipped, and said so: the commands that install and build acsim itself
# (./quickstart.sh, autoreconf, ./configure, make ...). They are what CI runs
# (`./quickstart.sh check` builds and then runs this very test); running them
# here would build a second acsim inside `make check` (and `make check`
# would recurse). And the commands that submit jobs to a Slurm cluster
# (contrib/slurm/*, sbatch): tests/slurm.sh runs them on a private one-node
# cluster it starts, and checks what they produce.
#
# Also checked: each usage block of the README (a plain ``` block whose first
# line is `acsim COMMAND ...` with a [bracketed] option) names exactly the
# options of the usage lines of `acsim COMMAND --help`.
#
# Prints "N passed, N failed, N skipped" and exits non-zero on any failure.
set -u
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
README=$SRC/README.md
# The pages in the order the README lists them, then any page it does not.
DOCS=$(grep -oE '\(docs/[a-z0-9_-]+\.md\)' "$README" | tr -d '()' | awk '!seen[$0]++' | tr '\n' ' ')
for f in "$SRC"/docs/*.md; do
  f=docs/${f##*/}
  case " $DOCS " in *" $f "*) ;; *) DOCS="$DOCS $f" ;; esac
done
PAGES="README.md $DOCS"
PY=/usr/bin/python3
W=$(mktemp -d /tmp/acsim-readme-XXXXXX)
trap 'rm -rf "$W"' EXIT
pass=0; fail=0; skipped=0

ok()   { pass=$((pass + 1)); echo "ok   $1"; }
bad()  { fail=$((fail + 1)); echo "FAIL $1"; }
skip() { skipped=$((skipped + 1)); echo "skip $1"; }

# The scratch clone.
mkdir -p "$W/clone/tests" || exit 2
cp -R "$SRC/platforms" "$SRC/workloads" "$W/clone/" &&
cp -R "$SRC/tests/data" "$W/clone/tests/" &&
cp "$SRC/tests/check_schedules.py" "$W/clone/tests/" &&
cp "$ACSIM" "$W/clone/acsim" || { echo "cannot make the scratch copy"; exit 2; }
export PATH="$W/clone:$PATH" ACSIM_DATADIR="$W/clone"
export SLURM_ARRAY_TASK_ID=1 SLURM_CPUS_PER_TASK=2

# Extraction: one record per command, "LINE<TAB>LANG<TAB>EXPECT<TAB>TEXT";
# a python block is one record, its newlines as \001.
for page in $PAGES; do
awk -v OFS='\t' -v page="$page" '
  /^```/ {
    if (lang == "") {
      lang = substr($0, 4); sub(/[ \t].*/, "", lang)
      if (lang != "sh" && lang != "python") lang = "other"
      start = NR + 1; cmd = ""; text = ""
      next
    }
    if (lang == "python") print page ":" start, "python", 0, text
    lang = ""; next
  }
  lang == "python" { text = text $0 "\001"; next }
  lang == "sh" {
    line = $0
    if (cmd == "" && line ~ /^[ \t]*(#|$)/) next
    if (cmd == "") at = NR
    if (line ~ /\\$/) { cmd = cmd substr(line, 1, length(line) - 1); next }
    cmd = cmd line
    expect = 0
    if (match(cmd, /\(expect exit [0-9]+\)/)) expect = substr(cmd, RSTART + 13, RLENGTH - 14)
    print page ":" at, "sh", expect, cmd
    cmd = ""
  }
' "$SRC/$page" || exit 2
done >"$W/commands"
[ -s "$W/commands" ] || { echo "no commands found in $README"; exit 2; }

n=0
while IFS='	' read -r line lang expect text; do
  n=$((n + 1))
  text=$(printf '%s' "$text" | tr '\001' '\n')
  first=$(printf '%s' "$text" | head -n 1 | cut -c1-100)
  begin=$(date +%s)
  if [ "$lang" = python ]; then
    if ! [ -x "$PY" ] || ! "$PY" -c 'import h5py' 2>/dev/null; then
      skip "$line python block (python3-h5py missing)"; continue
    fi
    (cd "$W/clone" && printf '%s\n' "$text" | "$PY" -) >"$W/out" 2>&1
  else
    case "$text" in
      ./quickstart.sh*|autoreconf*|./configure*|make*)
        skip "$line $first (installs or builds acsim: CI's ./quickstart.sh check)"
        continue ;;
      contrib/slurm/*|sbatch*|job=\$\(sbatch*)
        skip "$line $first (needs a Slurm cluster: tests/slurm.sh runs it)"
        continue ;;
    esac
    (cd "$W/clone" && bash -c "$text") >"$W/out" 2>&1
  fi
  rc=$?
  end=$(date +%s); secs=$((end - begin))
  first="$first [${secs}s]"
  if [ "$rc" = "$expect" ]; then ok "$line $first"
  else
    bad "$line $first (exit $rc, want $expect)"
    tail -n 8 "$W/out" | sed 's/^/     | /'
  fi
done <"$W/commands"
[ "$n" -ge 20 ] && ok "found $n commands" || bad "found only $n commands"

# Usage blocks: the options a README usage block shows are those of --help.
awk '
  /^```/ { if (!inb) { inb = 1; first = 1; plain = $0 == "```"; next } inb = 0; next }
  inb && first {
    first = 0; cmd = ""
    if (plain && $0 ~ /^acsim [a-z]+ / && index($0, "[")) { cmd = $2; print "C " cmd }
  }
  inb && cmd != "" {
    s = $0
    while (match(s, /(^|[[ ,])--?[A-Za-z][-A-Za-z]*/)) {
      t = substr(s, RSTART, RLENGTH); sub(/^[[ ,]/, "", t); print "O " cmd " " t
      s = substr(s, RSTART + RLENGTH)
    }
  }
' $(for page in $PAGES; do echo "$SRC/$page"; done) >"$W/usage"
for c in $(awk '$1 == "C" { print $2 }' "$W/usage" | sort -u); do
  awk -v c="$c" '$1 == "O" && $2 == c { print $3 }' "$W/usage" | sort -u >"$W/readme.$c"
  "$ACSIM" "$c" --help | awk '/^usage:/ { u = 1 } u && /^$/ { exit } u' |
    grep -oE '(^|[][ ,])--?[A-Za-z][-A-Za-z]*' | sed -E 's/^[][ ,]//' | sort -u >"$W/help.$c"
  if cmp -s "$W/readme.$c" "$W/help.$c"; then ok "README usage of acsim $c matches --help"
  else bad "README usage of acsim $c differs from --help: $(diff "$W/readme.$c" "$W/help.$c" | grep '^[<>]' | tr '\n' ' ')"; fi
done

# Licences: acsim's own, and beside every folder of shipped data a README
# that names the licence of its files (the folder's own, or for tests/data
# the one at its top); the licence texts the READMEs point at exist.
grep -q '^MIT License' "$SRC/LICENSE" && ok "LICENSE is acsim's MIT licence" || bad "LICENSE is not the MIT licence"
for dir in $(cd "$SRC" && find workloads tests/data -type f ! -name README.md -exec dirname {} \; | sort -u); do
  d=$dir; found=
  while :; do
    if [ -f "$SRC/$d/README.md" ] && grep -qi 'licen[cs]e' "$SRC/$d/README.md"; then found=$d; break; fi
    case $d in workloads/*/*|tests/data/*) d=${d%/*} ;; *) break ;; esac
  done
  [ -n "$found" ] && ok "licence of $dir/ in $found/README.md" || bad "no README.md naming the licence of $dir/"
done
for t in $(cd "$SRC" && grep -rhoE 'LICENSES/[A-Za-z0-9.-]+\.txt' LICENSE workloads tests/data --include=README.md --include=LICENSE | sed 's|.*LICENSES/|LICENSES/|' | sort -u); do
  [ -s "$SRC/$t" ] && ok "$t exists" || bad "$t is named but missing"
done

echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
