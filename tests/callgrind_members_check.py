#!/usr/bin/env python3
"""Callgrind thread sets and dump series: a member opens alone, the base
name opens the whole set, and `info` lists what was read.

usage: callgrind_members_check.py PROFDB DATA_DIR

For every set or series under DATA_DIR/callgrind (tests/samples.py,
callgrind_series): each member file's total per event (`profdb top
--json -m all`) must equal the PROGRAM TOTALS line that callgrind_annotate
prints for that file, and `profdb info` must list that file alone; the base
name's total must be the sum of the totals callgrind_annotate prints for
every file of the set (the base file included unless it is empty, as
valgrind leaves it under --separate-threads), and `info` must list every
file. Exit 0 ok, 1 failures, 77 nothing to test (no data, no
callgrind_annotate).
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from samples import callgrind_series  # tests/samples.py, beside this script  # noqa: E402

PROFDB, DATA = sys.argv[1:3]
failures = []
TOTALS = re.compile(r"^(.*?)\s*PROGRAM TOTALS\s*$", re.M)


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def annotate_totals(path):
    """callgrind_annotate's PROGRAM TOTALS of @path, one per event, or None."""
    p = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = TOTALS.search(p.stdout) if p.returncode == 0 else None
    if not m:
        return None
    counts = re.sub(r"\([^)]*\)", " ", m.group(1)).split()
    return [int(c.replace(",", "")) for c in counts]


def profdb_json(*args):
    p = subprocess.run([PROFDB] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if p.returncode != 0:
        fail("profdb %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        return None
    return json.loads(p.stdout)


def profdb_totals(path):
    """profdb's total per event of @path (every profile), or None."""
    top = profdb_json("top", "--json", "-m", "all", "-n", "1", path)
    if top is None:
        return None
    return [int(m["total"]) for m in top["metrics"]]


def profdb_files(path):
    info = profdb_json("info", "--json", path)
    return None if info is None else sorted(info["files"])


def check(path, want, files, what):
    got = profdb_totals(path)
    if got is not None and got != want:
        fail("%s (%s): profdb totals %s, callgrind_annotate %s" % (path, what, got, want))
    listed = profdb_files(path)
    if listed is not None and listed != sorted(files):
        fail("%s: info lists %s, not %s" % (path, listed, sorted(files)))


def main():
    if not shutil.which("callgrind_annotate"):
        print("SKIP: no callgrind_annotate")
        return 77
    series = callgrind_series(DATA)
    if not series:
        print("SKIP: no Callgrind thread set or dump series under %s" % DATA)
        return 77
    members = 0
    for base, paths in sorted(series.items()):
        whole = None
        readable = [p for p in [base] + paths if os.path.getsize(p) > 0]
        for p in readable:
            want = annotate_totals(p)
            if want is None:
                fail("%s: callgrind_annotate printed no PROGRAM TOTALS" % p)
                continue
            whole = want if whole is None else [a + b for a, b in zip(whole, want)]
            if p != base:
                check(p, want, [os.path.basename(p)], "the member alone")
                members += 1
        if whole is not None:
            check(base, whole, [os.path.basename(p) for p in [base] + paths], "the whole set")
    print("%d member files and %d sets compared with callgrind_annotate"
          % (members, len(series)))
    return 1 if failures else 0


sys.exit(main())
