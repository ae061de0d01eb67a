#!/bin/sh
# tests/layering.sh - the layers of the source tree include only downwards.
#
#   core/model   the model: core/*.h and core/model/ only
#   core/load    readers and builders: the model
#   core/sched   schedulers: the model (a family reaches its workload's
#                model through core/model/problem.h, never through core/load)
#   simulate     SimGrid execution: the model
#   report       results, compare, merge, the report: the model, load, sched
#   sweep        the sweep engine: every layer below cli
#   cli          the acsim program: everything
#
# Each layer is a static library linked in this order, so an upward call
# that an include let through would also fail to link; this check names the
# file and line instead. Prints one line per offending include and exits 1
# when there is any.
SRC=${ACS_SRCDIR:-.}
cd "$SRC" || exit 2

allowed() { # $1 = file, prints the include prefixes its layer may use
  case $1 in
  core/load/*) echo "core/acs.h core/proc.h core/suggest.h core/model/ core/load/" ;;
  core/sched/*) echo "core/acs.h core/proc.h core/suggest.h core/model/ core/sched/" ;;
  core/*) echo "core/acs.h core/proc.h core/suggest.h core/model/" ;;   # core/model and core/*.c
  simulate/*) echo "core/acs.h core/proc.h core/model/ simulate/" ;;
  report/*) echo "core/acs.h core/proc.h core/model/ core/load/ core/sched/ report/" ;;
  sweep/*) echo "core/ simulate/ report/ sweep/" ;;
  *) echo "" ;;
  esac
}

bad=0
files=$(find core simulate report sweep -name '*.[ch]' 2>/dev/null | sort)
for f in $files; do
  ok=$(allowed "$f")
  grep -n '^#include "' "$f" | while IFS= read -r line; do
    n=${line%%:*}
    inc=${line#*#include \"}
    inc=${inc%%\"*}
    case $inc in */*) ;; *) continue ;; esac   # config.h, generated headers
    fine=0
    for p in $ok; do
      case $inc in "$p"*) fine=1 ;; esac
    done
    [ $fine = 1 ] || echo "$f:$n: includes $inc, above its layer (allowed: $ok)"
  done
done >layering.out
if [ -s layering.out ]; then
  cat layering.out
  bad=1
fi
echo "layering: $(echo "$files" | wc -l) files, $(wc -l <layering.out) includes above their layer"
rm -f layering.out
exit $bad
