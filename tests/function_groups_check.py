#!/usr/bin/env python3
"""`profdb top --by function --inclusive` on every real Callgrind sample:
a function group's inclusive value is its members' self cost plus the calls
leaving the group (profdb_group_inclusive, doc/model.md "Combining
numbers"), so no row may exceed the total. The recordings valgrind made
(valgrind/, big/) must hold that within 1e-4 % (valgrind's own "summary:"
line can exceed its "totals:" line by a few events, 09_cache_branch.out);
the files other producers wrote (public/: Xdebug, an entry point that
toggles collection, converters, hand-written parser tests) record calls
that cost more than the file's total, so a row above 100 % there is
printed as a note. tests/test-functions.c checks the rule itself on
profiles whose answer is known.

usage: function_groups_check.py PROFDB SAMPLE_DATA"""
import json
import os
import subprocess
import sys


def main():
    tool, data = sys.argv[1], os.environ.get("PROFDB_SAMPLE_DATA", sys.argv[2])
    root = os.path.join(data, "callgrind")
    if not os.path.isdir(root):
        print(f"SKIP: {root} not found")
        return 77
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs
                   if not f.startswith(("README", ".")))
    bad = rows = ranked = 0
    for f in files:
        p = subprocess.run([tool, "top", "--inclusive", "--json", "-n", "0", f],
                           capture_output=True, text=True)
        if p.returncode != 0:
            continue   # not a profile (or refused): the format tests say why
        ranked += 1
        out = json.loads(p.stdout)
        for r in out["rows"]:
            rows += 1
            if r["percent"] is None or r["percent"] <= 100.0 + 1e-4:
                continue
            strict = os.sep + "public" + os.sep not in f
            bad += strict
            print(f"{'FAIL' if strict else 'note'} {f}: {r['name'][:80]} at "
                  f"{r['percent']:.6f} %")
    print(f"{ranked} of {len(files)} samples ranked, {rows} function groups, "
          f"{bad} above 100 %")
    if ranked == 0:
        print("FAIL: no sample ranked")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
