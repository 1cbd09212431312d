#!/usr/bin/env python3
"""One default metric (profdb_metric_default, doc/model.md "The default
metric"), the same for every front-end and for a measurement and its
database.

  1. Each of the seven hpctoolkit-tests pairs (hpcrun/NAME.m and v4/NAME):
     `profdb top --json` on both names the same metric with the same total,
     bit for bit (hpcrun's a sum over the thread profiles, hpcprof's its
     stored summary), and that metric is the one listed below.
  2. On each of those files and on every Cube sample: `profdb tree --json`
     and the speedscope converter (its profiles are named "PROFILE:
     METRIC"; its trace profiles are named "PROFILE (trace)") use the
     metric `top` uses; a Cube sample with a `time` metric defaults to it.

usage: default_metric_check.py PROFDB DATA_DIR
Exit 0 ok, 1 failures, 77 no sample data."""
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from samples import readable  # noqa: E402  tests/samples.py, beside this script

PROFDB = sys.argv[1]
DATA = os.environ.get("PROFDB_SAMPLE_DATA") or sys.argv[2]
# The metric both sides of each pair default to.
PAIRS = {
    "loops-cputime-t": "CPUTIME (sec)",
    "small": "CPUTIME (sec)",
    "loops-perf": "perf::cpu-clock",
    "loops-cuda-nvidia-t": "GPUOP (sec)",
    "loops-cuda-nvidiapc-t": "GPUOP (sec)",
    "loops-hip-amd-t": "GPUOP (sec)",
    "recursion-cuda-nvidiapc-t": "GPUOP (sec)",
}
failures = []


def run_json(args):
    p = subprocess.run([PROFDB] + args, capture_output=True, text=True)
    if p.returncode != 0:
        failures.append("%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        return None
    return json.loads(p.stdout)


def default_of(path):
    """(metric name, total) of `top`, after checking tree and speedscope."""
    top = run_json(["top", "-n", "1", "--json", path])
    tree = run_json(["tree", "--json", "--depth", "1", path])
    conv = run_json(["convert", "-t", "speedscope", path])
    if not top or not tree or not conv:
        return None
    name = top["metric"]["name"]
    rel = os.path.relpath(path, DATA)
    if tree["metric"]["name"] != name:
        failures.append("%s: tree defaults to %r, top to %r" % (rel, tree["metric"]["name"], name))
    for p in conv["profiles"]:
        if not p["name"].endswith(" (trace)") and not p["name"].endswith(": " + name):
            failures.append("%s: speedscope profile %r is not of %r" % (rel, p["name"], name))
            break
    return name, top["total"]


def main():
    root = os.path.join(DATA, "hpctoolkit")
    if not os.path.isdir(os.path.join(root, "hpcrun")):
        print("SKIP: no sample data under %s" % DATA)
        return 77
    for name, want in sorted(PAIRS.items()):
        m = os.path.join(root, "hpcrun", "hpctoolkit-tests-%s.m" % name)
        d = os.path.join(root, "v4", "hpctoolkit-tests-%s" % name)
        if not (os.path.exists(m) and os.path.exists(d)):
            failures.append("%s: the pair is missing" % name)
            continue
        a, b = default_of(m), default_of(d)
        if not a or not b:
            continue
        ok = a[0] == b[0] == want and a[1] == b[1]
        print("%-4s %-28s %-16s %.17g %.17g" % ("ok" if ok else "FAIL", name, a[0], a[1], b[1]))
        if not ok:
            failures.append("%s: measurement %r total %r, database %r total %r, expected %r"
                            % (name, a[0], a[1], b[0], b[1], want))
    cubes = readable(sorted(glob.glob(os.path.join(DATA, "cube", "*.cubex"))), sys.stdout)
    for c in cubes:
        got = default_of(c)
        names = [m["name"] for m in (run_json(["metrics", "--json", c]) or {}).get("metrics", [])]
        if got and got[0] != "time" and "time" in names:
            failures.append("%s: defaults to %r, not time" % (os.path.relpath(c, DATA), got[0]))
    print("%d pairs, %d Cube samples checked" % (len(PAIRS), len(cubes)))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
