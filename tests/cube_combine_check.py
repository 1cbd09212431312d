#!/usr/bin/env python3
"""Cube views against the rules of doc/model.md ("Combining numbers", Cube),
computed here from the stored cells alone.

On every Cube sample (tests/samples.py): for the metrics named time, visits,
min_time and max_time, the inclusive and exclusive value of every cnode in
`profdb tree --json -m M` (combined over every location) must equal what
this script computes from `profdb dump --csv --table values` (the stored
cells) and the call tree of `dump --table contexts`:

- per location, a cnode's own value is its stored cell; a cnode whose row is
  absent holds the neutral value (0; +DBL_MAX for a min metric, -DBL_MAX for
  a max metric), a stored 0 is a value;
- EXCLUSIVE metric: inclusive = own (+) inclusive of each child, children in
  call-tree order; INCLUSIVE metric: exclusive = own (-) own of each child;
  (+) is +, min or max, (-) is -, max or min (CubeLib's value classes);
- over locations, in location-id order: a sum adds every location; a min or
  max combines the locations whose value is not the neutral one (a stored 0
  takes part and wins a minimum), and is 0 when none has one.

Sums may differ from the script's by rounding only where profdb's order is
not the script's (they are compared within 4 ulps of the magnitude); min and
max must be equal. Per location, `tree --json --profile L` must equal
cube_dump's reference CSVs (cube/reference-csv, 3 files; 6 significant
digits, so within 1e-5 relative). The named case: Score-P-summary.cubex, min_time at
print_results_ (cnode 87) is 0.0 exclusive, and so is cnode 0's inclusive
(location 0 stores 6.409e-05, locations 1-63 store 0; CubeLib 4.8.2 gives
0.0).

usage: cube_combine_check.py PROFDB DATA_DIR
Exit 0 ok, 1 failures, 77 no sample data.
"""
import csv
import io
import json
import os
import subprocess
import sys
from samples import real_samples  # tests/samples.py, beside this script

PROFDB = sys.argv[1]
DATA = os.environ.get("PROFDB_SAMPLE_DATA") or sys.argv[2]
METRICS = ("time", "visits", "min_time", "max_time")
DBL_MAX = sys.float_info.max
failures = []


def run(*args):
    p = subprocess.run([PROFDB, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("profdb %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def table(path, name):
    return list(csv.DictReader(io.StringIO(run("dump", "--csv", "--table", name, path))))


def rule_ops(combine):
    if combine == "min":
        return (lambda a, b: b if b < a else a), (lambda a, b: b if a < b else a), DBL_MAX
    if combine == "max":
        return (lambda a, b: b if b > a else a), (lambda a, b: b if b < a else a), -DBL_MAX
    return (lambda a, b: a + b), (lambda a, b: a - b), 0.0


def expected(ctxs, children, cells, n_locs, kind, combine):
    """{cnode: (inclusive, exclusive)} combined over the locations."""
    plus, minus, neutral = rule_ops(combine)
    order = []          # pre-order, so a reversed walk sees children first
    stack = [c for c in reversed(children.get(None, []))]
    while stack:
        c = stack.pop()
        order.append(c)
        stack.extend(reversed(children.get(c, [])))
    per_loc = {}        # cnode -> (incl list, excl list) over locations
    for c in reversed(order):
        own = [cells.get((l, c), neutral) for l in range(n_locs)]
        if kind == "exclusive":
            inc = list(own)
            for k in children.get(c, []):
                inc = [plus(a, b) for a, b in zip(inc, per_loc[k][0])]
            per_loc[c] = (inc, own)
        else:
            exc = list(own)
            for k in children.get(c, []):
                exc = [minus(a, cells.get((l, k), neutral)) for l, a in enumerate(exc)]
            per_loc[c] = (own, exc)
    out = {}
    for c, (inc, exc) in per_loc.items():
        pair = []
        for vals in (inc, exc):
            acc, first = 0.0, True
            for v in vals:
                if v == neutral:     # no value at this location
                    continue
                acc = v if first else plus(acc, v)
                first = False
            pair.append(acc)
        out[c] = tuple(pair)
    return out


def close(got, want, combine):
    if combine in ("min", "max"):
        return got == want
    return got == want or abs(got - want) <= 4 * sys.float_info.epsilon * max(abs(want), 1e-300)


def check_file(path):
    metrics = {m["name"]: m for m in table(path, "metrics")}
    ctxs = table(path, "contexts")
    children = {}
    for c in ctxs:
        parent = int(c["parent"]) if c["parent"] else None
        children.setdefault(parent, []).append(int(c["id"]))
    n_locs = len(table(path, "profiles"))
    wanted = [m for m in METRICS if m in metrics and metrics[m]["has_data"] == "1"]
    values = table(path, "values")
    checked = {}
    for name in wanted:
        m = metrics[name]
        mid = m["id"]
        cells = {(int(v["profile"]), int(v["context"])): float(v["value"])
                 for v in values if v["metric"] == mid}
        tree = json.loads(run("tree", "--json", "-m", mid, path))
        combine = tree["metric"]["combine"]
        want = expected(ctxs, children, cells, n_locs, m["kind"], combine)
        n = 0
        for node in tree["nodes"]:
            c = node["context"]
            if c is None:
                continue
            wi, we = want[c]
            for what, got, w in (("inclusive", node["inclusive"], wi),
                                 ("exclusive", node["exclusive"], we)):
                if not close(got, w, combine):
                    failures.append("%s: %s cnode %d %s: profdb %r, rule %r"
                                    % (os.path.basename(path), name, c, what, got, w))
            n += 1
        if n != len(ctxs):
            failures.append("%s: %s: the tree shows %d of %d cnodes"
                            % (os.path.basename(path), name, n, len(ctxs)))
        checked[name] = (tree, want)
    return checked


def print_results_case(checked):
    """Score-P-summary.cubex, min_time: the stored zeros win the minimum."""
    tree, want = checked["min_time"]
    nodes = {n["context"]: n for n in tree["nodes"] if n["context"] is not None}
    p = nodes[87]
    if p["name"] != "print_results_" or p["exclusive"] != 0.0 or want[87][1] != 0.0:
        failures.append("print_results_ (cnode 87): exclusive min_time %r, want 0.0" % p["exclusive"])
    if nodes[0]["inclusive"] != 0.0:
        failures.append("cnode 0: inclusive min_time %r, want 0.0" % nodes[0]["inclusive"])


REFERENCE = {"pycubexr-blast.p64.r1.cubex": "blast.p64.r1",
             "pycubexr-call_tree_test.cubex": "call_tree_test",
             "pycubexr-time.p4.n2000.x1.r0.cubex": "time.p4.n2000.x1.r0"}


def check_reference(path, folder):
    """Every location's view against cube_dump's incl.csv and excl.csv."""
    ref = {}
    for scope in ("incl", "excl"):
        with open(os.path.join(DATA, "cube", "reference-csv", folder, scope + ".csv")) as f:
            rows = list(csv.reader(f))
        head = [h.strip() for h in rows[0]]
        for r in rows[1:]:
            for name in METRICS:
                if name in head:
                    ref[(scope, name, int(r[1]), int(r[0]))] = float(r[head.index(name)])
    locs = sorted({k[2] for k in ref})
    n = 0
    for name in METRICS:
        if not any(k[1] == name for k in ref):
            continue
        for loc in locs:
            tree = json.loads(run("tree", "--json", "--profile", str(loc), "-m", name, path))
            for node in tree["nodes"]:
                c = node["context"]
                if c is None:
                    continue
                for scope, got in (("incl", node["inclusive"]), ("excl", node["exclusive"])):
                    want = ref[(scope, name, loc, c)]
                    if abs(got - want) > 1e-5 * max(abs(want), abs(got)) + 1e-12:
                        failures.append("%s: %s location %d cnode %d %s: profdb %r, cube_dump %r"
                                        % (folder, name, loc, c, scope, got, want))
                    n += 1
    return n


def main():
    paths = [p for p in real_samples(DATA) if p.endswith(".cubex")]
    if not paths:
        print("no Cube sample data under %s: skipped" % DATA)
        return 77
    named = False
    for path in paths:
        try:
            checked = check_file(path)
        except (RuntimeError, KeyError, ValueError, OSError) as e:
            failures.append("%s: %s" % (os.path.basename(path), e))
            continue
        print("%s: %s" % (os.path.basename(path), ", ".join(sorted(checked)) or "no such metric"))
        folder = REFERENCE.get(os.path.basename(path))
        if folder:
            print("  %d values against cube_dump's CSV" % check_reference(path, folder))
        if os.path.basename(path) == "Score-P-summary.cubex":
            print_results_case(checked)
            named = True
    if not named:
        failures.append("Score-P-summary.cubex is missing: the print_results_ case did not run")
    for f in failures[:50]:
        print("FAIL", f)
    print("%d Cube samples, %d failures" % (len(paths), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
