#!/usr/bin/python3
"""Where a barrier program's makespan goes, read from an acsim results file.

usage: barrier-profile.py RESULTS.h5 [BASE_RUN]

For every stored run with a barrier program (some op updates a barrier) it
prints, without any acsim code:
  - the makespan and, when BASE_RUN (the run id of the same workload and
    scheduler without a barrier limit) is given, the edges the barrier pass
    added (edges of the run that the base run does not have);
  - the critical path of the plan: from the op that ends last, back through
    the edge (or, failing one, the same unit's previous op) that ends exactly
    when the op starts; the cycles of the path spent after an added edge;
  - barrier uses, recovered by the rule of core/model/bprog.h (ops in
    topological order by planned start; an op opens a new use of its barrier
    when a direct predecessor produces or consumes the barrier's current use,
    else joins it; a wait consumes the latest use of its barrier among the
    op's direct predecessors), and how long they live: from the first
    producer's start until the last consumer starts (or, with no consumer,
    the last producer ends); the time-weighted mean and the peak of uses
    live at once;
  - missed sharing: producers with the same set of successors over the
    base run's edges (so the same consumers) that sit in more uses than
    their slots require (ceil(slots / barrier_slots)).
Figures, not a test.
"""
import heapq
import sys

import h5py


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def load(f, rid):
    g = f["schedules/run_%d" % rid]
    ops = g["ops"][()]
    edges = [(int(e["src"]), int(e["dst"])) for e in g["edges"][()]]
    waits = [(int(w["op"]), int(w["barrier"])) for w in g["waits"][()]]
    return ops, edges, waits


def topo_by_start(n, start, edges):
    succ = [[] for _ in range(n)]
    indeg = [0] * n
    for a, b in edges:
        succ[a].append(b)
        indeg[b] += 1
    h = [(start[v], v) for v in range(n) if indeg[v] == 0]
    heapq.heapify(h)
    order = []
    while h:
        _, u = heapq.heappop(h)
        order.append(u)
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heapq.heappush(h, (start[v], v))
    return order


def uses_of(ops, edges, waits):
    """The rule of bprog.h: per op its use, per use its producers/consumers."""
    n = len(ops)
    start = [int(x) for x in ops["start"]]
    upd = [int(x) for x in ops["update_barrier"]]
    pred = [[] for _ in range(n)]
    for a, b in edges:
        pred[b].append(a)
    wl = [[] for _ in range(n)]
    for o, b in waits:
        wl[o].append(b)
    use_of = [-1] * n
    cons_of = {}  # (op, barrier) -> use
    cur = {}
    prod, cons, bar = [], [], []
    for r in topo_by_start(n, start, edges):
        for b in wl[r]:
            best = -1
            for x in pred[r]:
                if upd[x] == b and use_of[x] > best:
                    best = use_of[x]
            if best >= 0:
                cons_of[(r, b)] = best
                cons[best].append(r)
        b = upd[r]
        if b < 0:
            continue
        u = cur.get(b, -1)
        if u >= 0:
            for x in pred[r]:
                if use_of[x] == u or cons_of.get((x, b)) == u:
                    u = -1
                    break
        if u < 0:
            u = len(prod)
            prod.append([])
            cons.append([])
            bar.append(b)
            cur[b] = u
        use_of[r] = u
        prod[u].append(r)
    return use_of, prod, cons, bar


def critical_path(ops, edges, added):
    n = len(ops)
    start = [int(x) for x in ops["start"]]
    end = [int(x) for x in ops["end"]]
    unit = [(s(k) == "dma", int(u)) for k, u in zip(ops["kind"], ops["unit"])]
    pred = [[] for _ in range(n)]
    for a, b in edges:
        pred[b].append((a, (a, b) in added))
    by_unit = {}
    for i in range(n):
        if unit[i][1] >= 0 and end[i] > start[i]:
            by_unit.setdefault(unit[i], []).append(i)
    prev_on_unit = {}
    for lst in by_unit.values():
        lst.sort(key=lambda i: (start[i], i))
        for x, y in zip(lst, lst[1:]):
            prev_on_unit[y] = x
    v = max(range(n), key=lambda i: (end[i], -i))
    steps = {"data/scheduler edge": 0, "added edge": 0, "unit": 0, "idle": 0}
    cycles = {"added edge": 0}
    length = 0
    while True:
        length += 1
        tight = [(a, add) for a, add in pred[v] if end[a] == start[v]]
        tight.sort(key=lambda x: x[1])  # prefer an edge that was there before
        if tight:
            a, add = tight[0]
            k = "added edge" if add else "data/scheduler edge"
            steps[k] += 1
            if add:
                cycles["added edge"] += end[v] - start[v]
            v = a
            continue
        u = prev_on_unit.get(v)
        if u is not None and end[u] == start[v]:
            steps["unit"] += 1
            v = u
            continue
        if start[v] > 0:
            steps["idle"] += 1
        break
    return length, steps, cycles


def live_stats(ops, prod, cons):
    start = [int(x) for x in ops["start"]]
    end = [int(x) for x in ops["end"]]
    ev, lives = [], []
    for u in range(len(prod)):
        lo = min(start[p] for p in prod[u])
        hi = max(start[c] for c in cons[u]) if cons[u] else max(end[p] for p in prod[u])
        lives.append(hi - lo)
        ev.append((lo, 1))
        ev.append((hi, -1))
    ev.sort(key=lambda e: (e[0], e[1]))
    cur = peak = 0
    area = 0
    last = ev[0][0] if ev else 0
    for t, d in ev:
        area += cur * (t - last)
        last = t
        cur += d
        peak = max(peak, cur)
    span = max(end) - min(start) if len(start) else 1
    lives.sort()
    return lives, area / max(span, 1), peak


def missed_sharing(ops, base_edges, use_of, slots_limit):
    n = len(ops)
    succ = [[] for _ in range(n)]
    for a, b in base_edges:
        if a < n and b < n:
            succ[a].append(b)
    groups = {}
    for v in range(n):
        if succ[v]:
            groups.setdefault(tuple(sorted(set(succ[v]))), []).append(v)
    missed = 0
    for members in groups.values():
        if len(members) < 2:
            continue
        need = 1
        if slots_limit > 0:
            tot = sum(1 if s(ops["kind"][v]) == "dma" else max(1, int(ops["slots"][v])) for v in members)
            need = -(-tot // slots_limit)
        missed += max(0, len({use_of[v] for v in members}) - need)
    return missed


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    base_id = int(sys.argv[2]) if len(sys.argv) > 2 else None
    with h5py.File(sys.argv[1], "r") as f:
        runs = {int(r["run_id"]): r for r in f["runs"][()]}
        plats = {int(p["platform_id"]): p for p in f["platforms"][()]}
        base_edges = set(load(f, base_id)[1]) if base_id else None
        for rid in sorted(runs):
            name = "schedules/run_%d" % rid
            if name not in f:
                continue
            ops, edges, waits = load(f, rid)
            if not (ops["update_barrier"] >= 0).any():
                continue
            p = plats[int(runs[rid]["platform_id"])]
            b, slots = int(p["barriers"]), int(p["barrier_slots"])
            added = set(edges) - base_edges if base_edges is not None else set()
            use_of, prod, cons, bar = uses_of(ops, edges, waits)
            lives, mean_live, peak = live_stats(ops, prod, cons)
            length, steps, cyc = critical_path(ops, edges, added)
            mk = int(max(ops["end"]))
            print("run %d: %s %s barriers=%d slots=%d: makespan %d, %d ops, %d edges (%d added)"
                  % (rid, s(runs[rid]["scheduler"]), s(runs[rid]["status"]), b, slots, mk,
                     len(ops), len(edges), len(added)))
            print("  critical path: %d ops; steps %s; cycles after added edges %d (%.1f%%)"
                  % (length, steps, cyc["added edge"], 100.0 * cyc["added edge"] / max(mk, 1)))
            if lives:
                print("  uses %d on %d barriers; life cycles median %d, p90 %d, max %d; "
                      "live at once: mean %.1f, peak %d"
                      % (len(prod), len(set(bar)), lives[len(lives) // 2],
                         lives[int(len(lives) * 0.9)], lives[-1], mean_live, peak))
            if base_edges is not None:
                print("  producers with the same consumers split beyond their slots: %d"
                      % missed_sharing(ops, base_edges, use_of, slots))
    return 0


if __name__ == "__main__":
    sys.exit(main())
