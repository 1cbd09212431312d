#!/usr/bin/env python3
"""The old HPCToolkit databases (experiment.xml with .metric-db records)
under DATA_DIR/hpctoolkit/xml, read through `profdb`.

usage: xml_db_check.py PROFDB DATA_DIR

For each sample: the profile and context counts read from the files by
hand (README of the samples), the traces (every sample's context in the
tree, times in order per line, counts), every thread value summed over the
.metric-db records equals the summary value experiment.xml prints in its
<M> elements to the 6 significant digits hpcprof printed, for every sum
metric (a summary metric "X:Sum (I)" sums the thread metric "X (I)"),
and `top`, `tree`, `stats` and `convert` run and print something. Exit 0
ok, 1 failures, 77 no sample data.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from samples import readable  # noqa: E402

PROFDB, DATA = sys.argv[1:3]
DATA = os.environ.get("PROFDB_SAMPLE_DATA") or DATA
# folder: (profiles, contexts, thread values), counted in the files
EXPECTED = {"hatchet-cpi": (5, 59, 202), "hatchet-allgather": (21, 1943, 9221),
            "hpcviewer-inline": (9, 85, 538)}
# folder: (trace lines, samples, first sample of profile 1 as (ns, context)),
# read from experiment.mt by hand: its first trace's first sample names it=19,
# the it attribute of <S i="3">
TRACES = {"hpcviewer-inline": (8, 11086, (1659713364904210000, 3))}
failures = []


def fail(name, msg):
    failures.append("%s: %s" % (name, msg))
    print("FAIL %s: %s" % (name, msg))


def run(*args):
    p = subprocess.run([PROFDB] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C"))
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode(errors="replace")


def check_sums(name, d):
    metrics = {m["id"]: m for m in d["metrics"]}
    thread_id = {m["name"]: m["id"] for m in d["metrics"] if m["kind"] != "summary"}
    printed, sums = {}, {}
    for p, c, m, v in d["values"]:
        if p == 0:
            printed[(c, m)] = v
        else:
            sums[(c, m)] = sums.get((c, m), 0.0) + v
    compared = 0
    for sid, m in metrics.items():
        if m["kind"] != "summary" or m["statistic"] != "sum":
            continue
        tid = thread_id.get(m["name"].replace(":Sum ", " "))
        if tid is None:
            fail(name, "summary metric %r has no thread metric" % m["name"])
            continue
        ctxs = {c for (c, k) in printed if k == sid} | {c for (c, k) in sums if k == tid}
        for c in sorted(ctxs):
            want = printed.get((c, sid), 0.0)
            got = sums.get((c, tid), 0.0)
            compared += 1
            if "%.6g" % got != "%.6g" % want:
                fail(name, "context %d metric %d: threads sum to %r, experiment.xml prints %r"
                     % (c, sid, got, want))
    if compared == 0:
        fail(name, "no summary value compared")
    return compared


def check_traces(name, d, path):
    """Every sample names a context of the tree; times never decrease
    along a line; the counts and the first sample as read by hand."""
    ids = {c["id"] for c in d["contexts"]}
    lines = [t for t in d["traces"] if t["samples"]]
    n = 0
    for t in lines:
        last = 0
        for time, ctx in t["samples"]:
            if ctx not in ids:
                fail(name, "profile %d: sample at %d names context %d, not in the tree"
                     % (t["profile"], time, ctx))
                return
            if time < last:
                fail(name, "profile %d: time %d after %d" % (t["profile"], time, last))
                return
            last = time
            n += 1
    want = TRACES.get(name, (0, 0, None))
    first = tuple(lines[0]["samples"][0]) if lines else None
    if (len(lines), n, first) != want:
        fail(name, "traces, samples, first sample %r, expected %r" % ((len(lines), n, first), want))
    if lines:
        for cmd in (["trace", "-n", "5"], ["convert", "--to", "timeline"]):
            rc, out, err = run(*cmd, path)
            if rc != 0 or not out.strip():
                fail(name, "%s: exit %d, %s" % (" ".join(cmd), rc, err.strip()[:200]))
        print("ok %s: %d trace samples in the tree's contexts, in time order" % (name, n))


def check(path):
    name = os.path.basename(path)
    rc, out, err = run("dump", "--json", path)
    if rc != 0:
        fail(name, "dump: %s" % err.strip()[:200])
        return
    d = json.loads(out)
    if d["format"] != "hpctoolkit-xml":
        fail(name, "format %r" % d["format"])
    got = (len(d["profiles"]), len(d["contexts"]),
           sum(1 for v in d["values"] if v[0] != 0))
    if name in EXPECTED and got != EXPECTED[name]:
        fail(name, "profiles, contexts, thread values %r, expected %r" % (got, EXPECTED[name]))
    n = check_sums(name, d)
    check_traces(name, d, path)
    for cmd in (["top"], ["tree"], ["stats"], ["convert", "--to", "folded"]):
        rc, out, err = run(*cmd, path)
        if rc != 0 or not out.strip():
            fail(name, "%s: exit %d, %s" % (" ".join(cmd), rc, err.strip()[:200]))
    print("ok %s: %d summary values reproduced from the threads" % (name, n))


def main():
    root = os.path.join(DATA or "", "hpctoolkit", "xml")
    if not os.path.isdir(root):
        print("skip: no sample data at %s" % root)
        return 77
    paths = readable([os.path.join(root, f) for f in sorted(os.listdir(root))
                      if os.path.isdir(os.path.join(root, f))])
    if not paths:
        return 77
    for p in paths:
        check(p)
    return 1 if failures else 0


sys.exit(main())
