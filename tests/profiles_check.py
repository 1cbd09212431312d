#!/usr/bin/env python3
"""`profdb profiles` and `profdb trace` on every real sample.

usage: profiles_check.py PROFDB DATA_DIR SCHEMA_DIR

For each real sample: `profiles --json` validates against
doc/profdb-profiles-2.schema.json and lists profdb_profile_count()
profiles (its "count", and as many rows as `dump --csv --table profiles`,
which enumerates profdb_profile_at), each with the name and identity dump
gives; `profiles --csv` has the same rows; the trace lengths add up to
info's "samples". Where there are traces, `trace --json -n 3` validates
against doc/profdb-trace-2.schema.json, starts at the earliest sample and
names every context it uses. Exit 0 ok, 1 failures, 77 no sample data.
"""
import csv
import io
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema_check  # noqa: E402
from samples import real_samples  # noqa: E402

PROFDB, DATA, SCHEMAS = sys.argv[1:4]
DATA = os.environ.get("PROFDB_SAMPLE_DATA") or DATA
failures = []
checked = 0


def fail(name, msg):
    failures.append("%s: %s" % (name, msg))
    print("FAIL %s: %s" % (name, msg))


def samples():
    return real_samples(DATA)


def run(*args):
    p = subprocess.run([PROFDB] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C"))
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode(errors="replace")


def validate(name, schema, doc):
    for e in schema_check.validate(os.path.join(SCHEMAS, schema), doc):
        fail(name, "%s: %s" % (schema, e))


def check(path):
    global checked
    name = os.path.relpath(path, DATA)
    rc, out, err = run("info", "--json", path)
    if rc != 0:
        print("skip %s: profdb cannot read it: %s" % (name, err.strip()[:100]))
        return
    info = json.loads(out)
    checked += 1
    rc, out, err = run("profiles", "--json", path)
    if rc != 0:
        fail(name, "profiles --json exited %d: %s" % (rc, err.strip()))
        return
    doc = json.loads(out)
    validate(name, "profdb-profiles-2.schema.json", doc)
    rc, out, err = run("dump", "--csv", "--table", "profiles", path)
    rows = list(csv.reader(io.StringIO(out)))[1:]
    if doc["count"] != len(rows) or len(doc["profiles"]) != len(rows):
        fail(name, "profiles lists %d (count %d), dump %d" % (len(doc["profiles"]), doc["count"],
                                                             len(rows)))
    for p, r in zip(doc["profiles"], rows):
        ident = " ".join("%s=%d" % (k, v) for k, v in p["identity"])
        if [str(p["index"]), str(int(p["summary"])), p["name"], ident] != r:
            fail(name, "profile %r, dump says %r" % (p, r))
            break
    rc, out, err = run("profiles", "--csv", path)
    csv_rows = list(csv.reader(io.StringIO(out)))
    if rc != 0 or len(csv_rows) != len(rows) + 1:
        fail(name, "profiles --csv: exit %d, %d rows" % (rc, len(csv_rows) - 1))
    lengths = [p["trace_length"] for p in doc["profiles"]]
    if sum(n or 0 for n in lengths) != info["samples"]:
        fail(name, "trace lengths add up to %d, info says %d samples" % (
            sum(n or 0 for n in lengths), info["samples"]))
    if info["samples"] == 0:
        return
    rc, out, err = run("trace", "--json", "-n", "3", path)
    if rc != 0:
        fail(name, "trace --json exited %d: %s" % (rc, err.strip()))
        return
    tr = json.loads(out)
    validate(name + " trace", "profdb-trace-2.schema.json", tr)
    firsts = [s[1] for s in tr["samples"]]
    if tr["start_ns"] != min(firsts):
        fail(name, "trace start %r, earliest first sample %r" % (tr["start_ns"], min(firsts)))
    named = {c["id"] for c in tr["contexts"]}
    if {s[2] for s in tr["samples"]} != named:
        fail(name, "trace --json names contexts %r for samples %r" % (named, tr["samples"][:5]))
    want = sum(min(3, n or 0) for n in lengths)
    if len(tr["samples"]) != want:
        fail(name, "trace -n 3 printed %d samples, want %d" % (len(tr["samples"]), want))


def main():
    if not os.path.isdir(DATA):
        print("SKIP: no sample data at %r" % DATA)
        return 77
    for path in samples():
        check(path)
    print("%d samples checked" % checked)
    if failures:
        return 1
    return 0 if checked else 77


sys.exit(main())
