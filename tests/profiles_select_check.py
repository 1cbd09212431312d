#!/usr/bin/env python3
"""`profdb profiles` prints identities that `--profiles` selects by.

usage: profiles_select_check.py PROFDB MKSAMPLE WORKDIR

On the writer's database with profiles identified by every kind
(`profdb-mksample kinds`: threads, GPU devices, contexts and streams, cores,
and stored kind names with a blank and an '='), each kind=value pair exactly
as `profdb profiles --csv` prints it, fed back as `--profiles KIND=VALUE`,
selects exactly the profiles whose printed identity holds that pair; a
whole printed identity (its pairs joined by ',') selects exactly the
profiles whose identity holds all of them, the profile itself included.
The printed kinds must include every kind the library names with a dash
and the stored names as a selection spells them. Exit 0 ok, 1 failures.
"""
import csv
import io
import os
import shutil
import subprocess
import sys

PROFDB, MKSAMPLE, WORK = sys.argv[1:4]
# What the database holds, as `profdb profiles` spells it.
EXPECTED_KINDS = {"node", "rank", "thread", "gpu-device", "gpu-context", "gpu-stream", "core",
                  "my_kind", "a_b"}
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def run(*args):
    p = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C"))
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode(errors="replace")


def listing(db, selection=None):
    """{index: [(kind, value), ...]} of `profdb profiles --csv [--profiles SEL]`."""
    args = [PROFDB, "profiles", "--csv"] + (["--profiles", selection] if selection else []) + [db]
    rc, out, err = run(*args)
    if rc != 0:
        fail("%s exited %d: %s" % (" ".join(args[1:]), rc, err.strip()))
        return {}
    rows = {}
    for row in csv.DictReader(io.StringIO(out)):
        pairs = [tuple(p.split("=", 1)) for p in row["identity"].split()]
        if any(len(p) != 2 for p in pairs):
            fail("identity %r of profile %s is not kind=value pairs" % (row["identity"],
                                                                       row["index"]))
        rows[int(row["index"])] = pairs
    return rows


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    db = os.path.join(WORK, "kinds.d")
    rc, _, err = run(MKSAMPLE, "kinds", db)
    if rc != 0:
        print("profdb-mksample kinds failed: " + err)
        return 1
    every = listing(db)
    if len(every) != 8:
        fail("expected 8 profiles (summary + 7), `profdb profiles` lists %d" % len(every))
    kinds = {k for pairs in every.values() for k, _ in pairs}
    if kinds != EXPECTED_KINDS:
        fail("printed kinds %s, expected %s" % (sorted(kinds), sorted(EXPECTED_KINDS)))

    checked = 0
    pairs_seen = sorted({p for pairs in every.values() for p in pairs})
    for kind, value in pairs_seen:
        selection = "%s=%s" % (kind, value)
        want = {i for i, pairs in every.items() if (kind, value) in pairs}
        got = set(listing(db, selection))
        checked += 1
        if got != want:
            fail("--profiles %s selects %s, the listing has that pair in %s"
                 % (selection, sorted(got), sorted(want)))
    for index, pairs in sorted(every.items()):
        if not pairs:
            continue
        selection = ",".join("%s=%s" % p for p in pairs)
        want = {i for i, other in every.items() if set(pairs) <= set(other)}
        got = set(listing(db, selection))
        checked += 1
        if index not in got or got != want:
            fail("--profiles %s (profile %d's identity) selects %s, expected %s"
                 % (selection, index, sorted(got), sorted(want)))
    print("%d selections from %d printed pairs and %d identities; %d failures"
          % (checked, len(pairs_seen), sum(1 for p in every.values() if p), len(failures)))
    if not failures:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
