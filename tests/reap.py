#!/usr/bin/python3
"""reap.py CMD... - runs CMD as a child subreaper (Linux prctl) and prints
how many processes it left behind: processes that CMD's tree did not reap
end as children of the nearest subreaper, here, instead of their parent.
Their CPU time is then missing from CMD's rusage (`time CMD`). Waits for
every descendant (no timing); exit status that of CMD."""
import ctypes, os, sys

PR_SET_CHILD_SUBREAPER = 36
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("reap.py: prctl: %s" % os.strerror(ctypes.get_errno()))
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
status, orphans = 0, 0
while True:
    try:
        p, st = os.waitpid(-1, 0)
    except ChildProcessError:
        break
    if p == pid:
        status = os.waitstatus_to_exitcode(st)
    else:
        orphans += 1
print("orphans %d" % orphans)
sys.exit(status if status >= 0 else 128 - status)
