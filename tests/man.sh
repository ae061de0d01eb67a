#!/usr/bin/env bash
# tests/man.sh - the man pages (man/*.1): one per command and acsim(1),
# each free of lint warnings, and each naming every option its command's
# --help names.
#
# Lint: `mandoc -T lint -W warning` when Debian's mandoc is installed
# (./quickstart.sh check installs it), else `groff -mdoc -ww -z`, which
# must print nothing. Options: every `-x` and `--long` word of the --help
# output must appear in the page as formatted for a terminal (so a
# misspelled or forgotten option fails, whatever macros wrote it).
#
# Prints "N passed, N failed" and exits non-zero on any failure; exits 77
# (skipped) when neither mandoc nor groff is installed.
set -u
ACSIM=${ACSIM:-./acsim}
SRC=${ACS_SRCDIR:-.}
T=$(mktemp -d /tmp/acsim-man-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok()  { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

if command -v mandoc >/dev/null 2>&1; then
  lint() { mandoc -T lint -W warning "$1" >"$T/lint" 2>&1; }
  render() { mandoc -T ascii "$1" | col -bx; }
  echo "lint: mandoc -T lint -W warning"
elif command -v groff >/dev/null 2>&1; then
  lint() { groff -mdoc -ww -z "$1" >"$T/lint" 2>&1 && [ ! -s "$T/lint" ]; }
  render() { groff -mdoc -T ascii -P -cbou "$1" 2>/dev/null; }
  echo "lint: groff -mdoc -ww -z (mandoc is not installed)"
else
  echo "SKIP: neither mandoc nor groff is installed (apt-get install mandoc)"
  exit 77
fi

# The commands, from `acsim --help`: each has its page, and there is no other.
cmds=$("$ACSIM" --help | awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { exit }')
[ -n "$cmds" ] || { bad "no commands in acsim --help"; echo "$pass passed, $fail failed"; exit 1; }
pages="acsim"
for c in $cmds; do pages="$pages acsim-$c"; done
for f in "$SRC"/man/*.1; do
  p=$(basename "$f" .1)
  case " $pages " in *" $p "*) ;; *) bad "man/$p.1 documents no command of acsim --help" ;; esac
done

# The options of a help text, one per line: every option word of its usage
# lines (from "usage:" to the first blank line) and the option words that
# start its option list's entries ("  -p, --platform FILE  ..."). Options of
# other commands that the prose mentions are not its own.
options() {
  awk '/^usage:/ { u = 1 } u && /^$/ { u = 0 } u { print; next }
       /^ +--?[A-Za-z]/ { sub(/^ +/, ""); if (match($0, /^(-[A-Za-z], )?--?[A-Za-z][-A-Za-z]*/)) print substr($0, 1, RLENGTH) }' |
    grep -oE '(^|[^A-Za-z0-9_-])--?[A-Za-z][-A-Za-z]*' | sed -E 's/^[^-]+//' | sort -u
}
# The options of help text $2 that the OPTIONS section of rendered page $1
# does not name (the synopsis alone does not count: each needs its entry).
missing_options() {
  sed -n '/^OPTIONS/,/^[A-Z]/p' "$1" >"$T/section"
  for o in $(options <"$2"); do
    grep -qE -- "(^|[^A-Za-z0-9_-])$o([^A-Za-z0-9_-]|\$)" "$T/section" || printf ' %s' "$o"
  done
}

for p in $pages; do
  f=$SRC/man/$p.1
  if [ ! -f "$f" ]; then bad "man/$p.1 is missing"; continue; fi
  if lint "$f"; then ok "$p.1 lints clean"; else bad "$p.1 lint: $(head -n 3 "$T/lint" | tr '\n' ' ')"; fi
  render "$f" >"$T/page"
  grep -q "^NAME" "$T/page" && grep -qE "^ +$p --? " "$T/page" && ok "$p.1 is named $p" || bad "$p.1 has no NAME line for $p"
  if [ "$p" = acsim ]; then "$ACSIM" --help >"$T/help"; else "$ACSIM" "${p#acsim-}" --help >"$T/help"; fi
  missing=$(missing_options "$T/page" "$T/help")
  n=$(options <"$T/help" | wc -l)
  [ -z "$missing" ] && ok "$p.1 describes all $n options of its --help" || bad "$p.1 lacks options of its --help:$missing"
done

# The check itself: a page whose OPTIONS lack one (still in its synopsis) is caught.
awk '/^\.It /{skip = /^\.It Fl -seed/} !skip' "$SRC/man/acsim-run.1" >"$T/cut.1"
render "$T/cut.1" >"$T/page"
"$ACSIM" run --help >"$T/help"
[ "$(missing_options "$T/page" "$T/help")" = " --seed" ] && ok "a page lacking an option is caught" ||
  bad "a page lacking --seed is not caught ($(missing_options "$T/page" "$T/help"))"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
