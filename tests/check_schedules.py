#!/usr/bin/python3
"""Independent schedule checker for acsim results files.

Reads every /schedules/run_<id> group of an HDF5 results file with h5py and
checks, without any acsim code: precedence over every edge of the edges
table, that ops sharing a unit never overlap, and that at every instant the
summed demand_<resource> columns of running ops fit the capacities in the
resources table. When the run was simulated, the simulated times must also
respect every edge, keep each unit's ops apart, and never start an op before
its planned start (the plan's starts are release times). Prints one line per run and exits 1 on any violation.

usage: check_schedules.py RESULTS.h5
"""
import sys

import h5py


def s(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def check_run(name, grp):
    ops = grp["ops"][()]
    edges = grp["edges"][()]
    res = grp["resources"][()]
    start = [float(v) for v in ops["start"]]
    end = [float(v) for v in ops["end"]]
    kind = [s(v) for v in ops["kind"]]
    unit = [int(v) for v in ops["unit"]]
    names = [s(v) for v in ops["op"]]
    errors = []
    for e in edges:
        a, b = int(e["src"]), int(e["dst"])
        if start[b] < end[a]:
            errors.append("edge %s -> %s: starts %g before %g" % (names[a], names[b], start[b], end[a]))
    sim_s = [float(v) for v in ops["sim_start"]]
    sim_e = [float(v) for v in ops["sim_end"]]
    simulated = all(v == v for v in sim_e)  # no NaN
    if simulated:
        for e in edges:
            a, b = int(e["src"]), int(e["dst"])
            if sim_s[b] < sim_e[a] - 1e-6:
                errors.append("simulated edge %s -> %s: starts %g before %g" % (names[a], names[b], sim_s[b], sim_e[a]))
        for i in range(len(start)):
            if sim_s[i] < start[i] - 1e-6 or sim_e[i] < sim_s[i]:
                errors.append("simulated %s runs [%g, %g), planned start %g" % (names[i], sim_s[i], sim_e[i], start[i]))
    # Unit exclusivity: DMA channels and PEs are separate unit spaces.
    by_unit = {}
    for i, u in enumerate(unit):
        if u >= 0 and end[i] > start[i]:
            by_unit.setdefault((kind[i] == "dma", u), []).append((start[i], end[i], i))
    for key, lst in by_unit.items():
        lst.sort()
        for (s0, e0, i0), (s1, e1, i1) in zip(lst, lst[1:]):
            if s1 < e0:
                errors.append("unit %s: %s and %s overlap" % (key, names[i0], names[i1]))
            if simulated and sim_s[i1] < sim_e[i0] - 1e-6:
                errors.append("simulated unit %s: %s and %s overlap" % (key, names[i0], names[i1]))
    # Capacities: sweep over start/end events, ends first at equal times.
    for r in res:
        rname, cap = s(r["name"]), float(r["capacity"])
        dem = ops["demand_" + rname]
        events = []
        for i in range(len(start)):
            if end[i] > start[i] and dem[i] > 0:
                events.append((start[i], 1, float(dem[i])))
                events.append((end[i], 0, -float(dem[i])))
        events.sort()
        use = 0.0
        for t, _, delta in events:
            use += delta
            if use > cap + 1e-9:
                errors.append("resource %s over capacity at %g: %g > %g" % (rname, t, use, cap))
                break
    return len(ops), simulated, errors


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    bad = 0
    with h5py.File(sys.argv[1], "r") as f:
        runs = sorted(f["schedules"].keys(), key=lambda k: int(k.split("_")[1])) if "schedules" in f else []
        for name in runs:
            n, simulated, errors = check_run(name, f["schedules"][name])
            print("%s: %d ops%s, %s" % (name, n, " (simulated)" if simulated else "",
                                        "ok" if not errors else errors[0]))
            bad += bool(errors)
    print("checked %d schedules, %d with violations" % (len(runs), bad))
    return 1 if bad or not runs else 0


if __name__ == "__main__":
    sys.exit(main())
