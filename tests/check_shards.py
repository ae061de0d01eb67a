#!/usr/bin/python3
"""Checks that the shards of a sweep, merged, equal the same sweep unsharded.

usage: check_shards.py ORDER FULL.h5 MERGED.h5 SHARD-1.h5 ... SHARD-N.h5

ORDER lists the grid in its canonical order, one run a line, as
"platform variant<TAB>workload<TAB>scheduler", written by the caller
from the sweep's own parameters (not read back from acsim), so the
check of which shard holds which run is independent of acsim.

Checks, each failure a line naming the run:
  - FULL and MERGED hold the same runs (a run is identified by its
    platform variant and every parameter, its workload row, scheduler
    and options), none twice, and run by run every /runs column but ids
    and wall-clock seconds (sched_seconds, sim_seconds) is equal,
    bit for bit (NaN equals NaN);
  - the same runs have a stored schedule in both, and every dataset
    under /schedules/run_<id>/ is identical (dtype, shape, bytes);
  - each shard holds exactly the runs i of ORDER with i mod N = K - 1
    (counting from 0), and each of its runs equals FULL's.
Prints "same: R runs, S schedules, N shards" and exits 0, else 1.
"""
import sys

import h5py
import numpy as np

# Columns that are not results: row ids (they depend on the file) and
# wall-clock timings (they depend on the machine's load).
SKIP = {"run_id", "platform_id", "workload_id", "sched_seconds", "sim_seconds"}


def text(v):
    return v.decode() if isinstance(v, bytes) else v


def same_value(x, y):
    if isinstance(x, float) or isinstance(x, np.floating):
        return (np.isnan(x) and np.isnan(y)) or x == y
    return x == y


def load(path):
    """Returns {key: (values, schedule or None)} and the run names."""
    f = h5py.File(path, "r")
    plats = {p["platform_id"]: p for p in f["/platforms"][:]}
    wls = {w["workload_id"]: w for w in f["/workloads"][:]}
    runs = f["/runs"][:]
    cols = [n for n in runs.dtype.names if n not in SKIP]
    sched = f["/schedules"] if "schedules" in f else None
    out, names = {}, {}
    for r in runs:
        p, w = plats[r["platform_id"]], wls[r["workload_id"]]
        key = (tuple((n, p[n]) for n in p.dtype.names if n != "platform_id"),
               tuple((n, w[n]) for n in w.dtype.names if n != "workload_id"),
               r["scheduler"], r["options"])
        if key in out:
            raise SystemExit(f"{path}: run stored twice: {describe(p, w, r)}")
        group = f"run_{r['run_id']}"
        stored = None
        if sched is not None and group in sched:
            stored = {}
            sched[group].visititems(lambda n, o: stored.__setitem__(n, o[()])
                                    if isinstance(o, h5py.Dataset) else None)
        out[key] = ([(c, r[c]) for c in cols], stored)
        names[key] = describe(p, w, r)
    return out, names


def describe(p, w, r):
    return f"{text(p['name'])} / {text(w['name'])} / {text(r['scheduler'])}"


def grid_name(key):
    plat, wl, sched, _ = key
    return (text(dict(plat)["name"]), text(dict(wl)["name"]), text(sched))


def compare_runs(a, b, names, what, errors):
    for key in a:
        if key not in b:
            errors.append(f"{names[key]}: missing from {what}")
            continue
        (va, sa), (vb, sb) = a[key], b[key]
        for (col, x), (_, y) in zip(va, vb):
            if not same_value(x, y):
                errors.append(f"{names[key]}: {col} is {x!r} here, {y!r} in {what}")
        if (sa is None) != (sb is None):
            errors.append(f"{names[key]}: schedule stored in one file only ({what})")
        elif sa is not None:
            if sa.keys() != sb.keys():
                errors.append(f"{names[key]}: schedule tables {sorted(sa)} vs {sorted(sb)} in {what}")
            for t in sa.keys() & sb.keys():
                x, y = sa[t], sb[t]
                if x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                    errors.append(f"{names[key]}: schedule table {t} differs in {what}")


def main(argv):
    if len(argv) < 5:
        raise SystemExit(__doc__.split("\n\n")[1])
    order_path, full_path, merged_path, shard_paths = argv[1], argv[2], argv[3], argv[4:]
    order = [tuple(line.rstrip("\n").split("\t")) for line in open(order_path) if line.strip()]
    full, names = load(full_path)
    merged, mnames = load(merged_path)
    errors = []

    compare_runs(full, merged, names, "the merged file", errors)
    for key in merged.keys() - full.keys():
        errors.append(f"{mnames[key]}: in the merged file only")

    # Which shard holds which run, from the grid order alone.
    position = {}
    for i, g in enumerate(order):
        if g in position:
            errors.append(f"{g}: twice in the grid order")
        position[g] = i
    by_grid = {grid_name(k): k for k in full}
    if len(by_grid) != len(full) or set(by_grid) != set(position):
        errors.append(f"the grid order ({len(order)} runs) does not name the unsharded runs ({len(full)})")
    n = len(shard_paths)
    seen = set()
    for k, path in enumerate(shard_paths, start=1):
        shard, snames = load(path)
        want = {g for g, i in position.items() if i % n == k - 1}
        got = {grid_name(key) for key in shard}
        for g in sorted(want - got):
            errors.append(f"{path}: lacks {' / '.join(g)} (grid run {position[g]})")
        for g in sorted(got - want):
            errors.append(f"{path}: holds {' / '.join(g)}, which belongs to another shard")
        compare_runs(shard, full, snames, "the unsharded file", errors)
        if seen & shard.keys():
            errors.append(f"{path}: shares runs with an earlier shard")
        seen |= shard.keys()

    for e in errors[:40]:
        print("FAIL", e)
    if errors:
        print(f"{len(errors)} differences")
        return 1
    nsched = sum(1 for v in full.values() if v[1] is not None)
    print(f"same: {len(full)} runs, {nsched} schedules, {n} shards")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
