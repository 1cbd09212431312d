#!/usr/bin/env python3
"""Machine-readable output of the profdb tool, on every format it can read.

usage: test-tool-json.py PROFDB MKSAMPLE WORKDIR SCHEMA_DIR GOLDEN_DIR [MKCUBE]

For each input — the writer's generated HPCToolkit sample, a Callgrind
profile written here, and the real samples of ../shared/data when present —
checks that:
  - info --json, metrics --json and dump --json validate against
    doc/profdb-{info,metrics,dump}-2.schema.json;
  - info's counts equal the lengths of dump's lists (values, contexts,
    profiles, metrics) and the traces' samples sum to info.samples;
  - dump's values name existing profiles and metrics and have the metric's
    type; contexts list parents before children, ids unique;
  - dump --csv holds the same values as dump --json;
  - dump's edges have called contexts as callees, costs naming known
    profiles and metrics, and the CSV edges table as many costs;
  - `profdb value` answers what dump says, for a spread of entries;
  - top, tree, value and trace run, and their --json validates against
    doc/profdb-{top,tree,value,trace}-2.schema.json (trace: a clear message
    and exit 1 for formats without traces);
  - diff --json of each input against itself validates against
    doc/profdb-diff-2.schema.json with every ranked call path in both and
    no difference, and --csv lists the same rows; a generated Callgrind pair
    (tests/tool-golden/sample{,-b}.callgrind) gives the known counts;
  - callers/callees of a function context (#ID) and profiles validate
    against doc/profdb-{calls,profiles}-2.schema.json; profiles lists dump's
    profiles and --values adds up to dump's values;
  - the output does not change with the locale (LC_ALL / LC_NUMERIC).
Also the normative counts of issue-233. Exit 0 ok, 1 failures, 77 nothing
to test.
"""
import csv
import io
import json
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema_check  # noqa: E402

PROFDB, MKSAMPLE, WORK, SCHEMAS, GOLDEN = sys.argv[1:6]
MKCUBE = sys.argv[6] if len(sys.argv) > 6 else None
DATA = os.environ.get("PROFDB_SAMPLE_DATA") or os.environ.get("PROFDB_SAMPLE_DATA_DEFAULT", "")
failures = []
checked = 0


def fail(name, msg):
    failures.append("%s: %s" % (name, msg))
    print("FAIL %s: %s" % (name, msg))


def run(*args, env=None):
    e = dict(os.environ)
    e.setdefault("LC_ALL", "C")
    if env:
        e.update(env)
    p = subprocess.run([PROFDB] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=e)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def schema(name):
    return os.path.join(SCHEMAS, name)


def validate(name, schema_file, doc):
    errs = schema_check.validate(schema(schema_file), doc)
    for e in errs:
        fail(name, "%s: %s" % (schema_file, e))
    return not errs


NAN_RE = re.compile(r"^nan\(0x([0-9a-f]{16})\)$")


def is_special(x):
    """The tool's strings for doubles JSON has no number for."""
    return isinstance(x, str) and (x in ("inf", "-inf") or NAN_RE.match(x) is not None)


def f64_bits(x):
    """The 64 bits of a double given as a float or as "nan(0x…)"/"inf"/"-inf"; None otherwise."""
    if isinstance(x, str):
        m = NAN_RE.match(x)
        if m:
            return int(m.group(1), 16)
        if x not in ("inf", "-inf"):
            return None
        x = float(x)
    if not isinstance(x, float):
        return None
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def num_equal(a, b):
    """a, b: numbers or the special strings; doubles compare bit for bit (the
    sign of 0, NaN payloads), integers by value."""
    if isinstance(a, float) or isinstance(b, float) or is_special(a) or is_special(b):
        x, y = f64_bits(a), f64_bits(b)
        return x is not None and x == y
    return a == b


def parse_like(text, like):
    """Parses the tool's text form of a number the way the JSON value @like is typed."""
    if isinstance(like, str) or is_special(text):
        return text
    try:
        return float(text) if isinstance(like, float) else int(text)
    except ValueError:
        return None


def check_input(name, path, must_open, summary_agrees=True):
    """All checks on one input. must_open: fail (not skip) if it cannot be read.
    summary_agrees: an HPCToolkit 4.0 summary profile matches its threads."""
    global checked
    rc, out, err = run("info", "--json", path)
    if rc != 0:
        if must_open:
            fail(name, "info --json exited %d: %s" % (rc, err.strip()))
        else:
            print("SKIP %s: profdb cannot read it (yet): %s" % (name, err.strip()))
        return None
    checked += 1
    info = json.loads(out)
    validate(name + " info", "profdb-info-2.schema.json", info)
    if info["contexts"] is None or info["values"] is None:
        # counts the headers do not give: --values reads them, the rest agrees
        rc, out, err = run("info", "--json", "--values", path)
        if rc != 0:
            fail(name, "info --json --values exited %d: %s" % (rc, err.strip()))
            return None
        full = json.loads(out)
        validate(name + " info --values", "profdb-info-2.schema.json", full)
        if full["contexts"] is None or full["values"] is None or any(
                info[k] != full[k] for k in info if info[k] is not None):
            fail(name, "info %r and info --values %r disagree" % (info, full))
        info = full

    rc, out, err = run("metrics", "--json", path)
    if rc != 0:
        fail(name, "metrics --json exited %d: %s" % (rc, err.strip()))
    else:
        validate(name + " metrics", "profdb-metrics-2.schema.json", json.loads(out))

    rc, out, err = run("dump", "--json", path)
    if rc != 0:
        fail(name, "dump --json exited %d: %s" % (rc, err.strip()))
        return info
    dump_text = out
    dump = json.loads(out)
    validate(name + " dump", "profdb-dump-2.schema.json", dump)
    for key in ("values", "contexts", "profiles", "metrics"):
        n = len(dump[key])
        # A format's count may leave out its synthetic root (HPCToolkit's
        # global context id 0 is a tree node but not a meta.db record).
        synthetic = key == "contexts" and n == info[key] + 1 and dump["contexts"][0][
            "type"] == "root" and dump["contexts"][0]["function"] == ""
        # HPCToolkit lists summary-only statistic ids as metrics too, while
        # the count is the propagated ids: the list may be longer.
        longer = key == "metrics" and n >= info[key]
        if info[key] != n and not synthetic and not longer:
            fail(name, "info.%s = %d but dump has %d" % (key, info[key], n))
    nsamples = sum(len(t["samples"]) for t in dump["traces"])
    if nsamples != info["samples"]:
        fail(name, "info.samples = %d but dump's traces hold %d" % (info["samples"], nsamples))
    for k in ("format", "version", "title"):
        if dump[k] != info[k]:
            fail(name, "dump.%s %r != info.%s %r" % (k, dump[k], k, info[k]))

    # Values: existing profiles/metrics, typed as the metric says.
    mtype = {m["id"]: m["type"] for m in dump["metrics"]}
    nprof = len(dump["profiles"])
    bad = 0
    for v in dump["values"]:
        p, c, m, x = v
        t = mtype.get(m)
        ok = p < nprof and t is not None
        if t == "f64":
            ok = ok and (isinstance(x, float) or is_special(x))
        elif t in ("u64", "i64"):
            ok = ok and isinstance(x, int) and (t == "i64" or x >= 0)
        if not ok and bad < 5:
            fail(name, "value %r: profile/metric unknown or type not %s" % (v, t))
        bad += not ok
    # Contexts: unique ids, parents first.
    seen = set()
    for c in dump["contexts"]:
        if c["id"] in seen:
            fail(name, "context %d listed twice" % c["id"])
        if c["parent"] is not None and c["parent"] not in seen:
            fail(name, "context %d comes before its parent %d" % (c["id"], c["parent"]))
            break
        seen.add(c["id"])

    # CSV: the same values.
    rc, out, err = run("dump", "--csv", "--table", "values", path)
    if rc != 0:
        fail(name, "dump --csv exited %d: %s" % (rc, err.strip()))
    else:
        rows = list(csv.reader(io.StringIO(out.decode("utf-8"))))
        if rows[0] != ["profile", "context", "metric", "value"]:
            fail(name, "csv header %r" % rows[0])
        if len(rows) - 1 != len(dump["values"]):
            fail(name, "csv has %d values, json %d" % (len(rows) - 1, len(dump["values"])))
        for r, v in zip(rows[1:], dump["values"]):
            if [int(r[0]), int(r[1]), int(r[2])] != v[:3] or not num_equal(
                    parse_like(r[3], v[3]), v[3]):
                fail(name, "csv row %r != json %r" % (r, v))
                break
    # Edges: callees are called contexts, costs name known profiles and
    # metrics; the CSV table lists the same costs.
    ctx_by_id = {c["id"]: c for c in dump["contexts"]}
    ncosts = 0
    for e in dump["edges"]:
        c = ctx_by_id.get(e["callee"])
        if c is None or c["relation"] not in ("call", "inlined"):
            fail(name, "edge %r: the callee is not a called context" % (e,))
            break
        for p, m, x in e["costs"]:
            if (p is not None and p >= nprof) or m not in mtype:
                fail(name, "edge cost %r names an unknown profile or metric" % ([p, m, x],))
        ncosts += len(e["costs"])
    rc, out, err = run("dump", "--csv", "--table", "edges", path)
    rows = list(csv.reader(io.StringIO(out.decode("utf-8")))) if rc == 0 else []
    if rc != 0 or rows[0] != ["caller", "callee", "site", "count", "profile", "metric", "cost"]:
        fail(name, "dump --csv --table edges exited %d or has a bad header" % rc)
    elif len(rows) - 1 != ncosts:
        fail(name, "csv has %d edge costs, json %d" % (len(rows) - 1, ncosts))
    rc, out, err = run("dump", "--csv", path)
    if rc != 0 or b"# values\nprofile,context,metric,value\n" not in out:
        fail(name, "dump --csv (all tables) exited %d or lacks the values table" % rc)

    # `profdb value` agrees with the dump (a spread of up to 7 entries).
    vals = dump["values"]
    for i in sorted({0, len(vals) // 7, len(vals) // 3, len(vals) // 2, len(vals) - 1,
                     2 * len(vals) // 3, 6 * len(vals) // 7}):
        if not vals:
            break
        p, c, m, x = vals[i]
        rc, out, err = run("value", "--profile", str(p), "--context", str(c), "--metric",
                           str(m), path)
        text = out.decode().strip()
        got = parse_like(text, x)
        if rc != 0 or got is None or not num_equal(got, x):
            fail(name, "value %d/%d/%d printed %r (exit %d), dump says %r" % (p, c, m, text,
                                                                              rc, x))

    # Reports: text runs, JSON validates, rows hottest first, the tree
    # lists each shown context once with its parent shown before it.
    for args in (["top", "-n", "5"], ["top", "--inclusive", "--by", "function", "-n", "5"],
                 ["tree", "--depth", "3"]):
        rc, out, err = run(*(args + [path]))
        if rc != 0 and not ("neither inclusive nor exclusive" in err or "no metrics" in err):
            fail(name, "%s exited %d: %s" % (" ".join(args), rc, err.strip()))
    for args in (["top", "--json", "-n", "0"], ["top", "--json", "--inclusive", "--by", "function"],
                 ["top", "--json", "-m", "all", "--by", "file", "-n", "5"],
                 ["tree", "--json"], ["tree", "--json", "-m", "all", "--view", "bottom-up",
                                      "--depth", "2"]):
        rc, out, err = run(*(args + [path]))
        if rc != 0:
            if not ("neither inclusive nor exclusive" in err or "no metrics" in err):
                fail(name, "%s exited %d: %s" % (" ".join(args), rc, err.strip()))
            continue
        doc = json.loads(out)
        validate("%s %s" % (name, " ".join(args)), "profdb-%s-2.schema.json" % args[0], doc)
        if args[0] == "top":
            vals = [float(r["value"]) for r in doc["rows"]]
            if vals != sorted(vals, reverse=True):
                fail(name, "%s rows not hottest first" % " ".join(args))
        else:
            shown = set()
            for n in doc["nodes"]:
                if n["node"] in shown or (n["parent_node"] is not None
                                          and n["parent_node"] not in shown):
                    fail(name, "tree --json: node %r out of order" % n)
                    break
                shown.add(n["node"])
            # Callgrind's top-down view expands the call graph: a function
            # may appear on several paths.
            # (the bottom-up view lists a function under each of its callers)
            if (len(doc["nodes"]) > len(dump["contexts"]) and info["format"] != "callgrind"
                    and "--view" not in args):
                fail(name, "tree --json has more nodes than dump's contexts")
    if vals := dump["values"]:
        p, c, m, x = vals[len(vals) // 2]
        rc, out, err = run("value", "--json", "--profile", str(p), "--context", str(c),
                           "--metric", str(m), path)
        if rc != 0:
            fail(name, "value --json exited %d: %s" % (rc, err.strip()))
        else:
            doc = json.loads(out)
            validate(name + " value", "profdb-value-2.schema.json", doc)
            if not num_equal(doc["value"], x) or doc["type"] != mtype.get(m):
                fail(name, "value --json %r, dump says %r (%s)" % (doc, x, mtype.get(m)))
    rc, out, err = run("trace", "--json", path)
    if rc == 0:
        doc = json.loads(out)
        validate(name + " trace", "profdb-trace-2.schema.json", doc)
        if len(doc["samples"]) != nsamples:
            fail(name, "trace --json has %d samples, dump %d" % (len(doc["samples"]), nsamples))
    if dump["traces"] and rc != 0:
        fail(name, "trace exited %d: %s" % (rc, err.strip()))
    if rc not in (0, 1) or (rc == 1 and "no traces" not in err and "trace" not in err):
        fail(name, "trace exited %d without a clear message: %s" % (rc, err.strip()))

    # callers/callees (of the first function context, by #ID) and profiles:
    # the schemas, rows hottest first, contexts that exist.
    fn = next((c for c in dump["contexts"] if c["type"] == "function"), None)
    for direction in ("callers", "callees"):
        if fn is None:
            break
        rc, out, err = run(direction, "--json", "-n", "0", "#%d" % fn["id"], path)
        if rc != 0:
            if not ("neither inclusive nor exclusive" in err or "no metrics" in err):
                fail(name, "%s --json exited %d: %s" % (direction, rc, err.strip()))
            continue
        doc = json.loads(out)
        validate("%s %s" % (name, direction), "profdb-calls-2.schema.json", doc)
        for sec in doc["functions"]:
            vals = [float(r["value"]) for r in sec["rows"]]
            if vals != sorted(vals, reverse=True):
                fail(name, "%s rows not hottest first" % direction)
            if any(c not in ctx_by_id for r in sec["rows"] for c in r["contexts"]):
                fail(name, "%s names a context dump does not list" % direction)
    rc, out, err = run("profiles", "--json", "--values", path)
    if rc != 0:
        fail(name, "profiles --json exited %d: %s" % (rc, err.strip()))
    else:
        doc = json.loads(out)
        validate(name + " profiles", "profdb-profiles-2.schema.json", doc)
        if [(p["index"], p["summary"], p["name"], p["identity"]) for p in doc["profiles"]] != [
                (p["index"], p["summary"], p["name"], p["identity"]) for p in dump["profiles"]]:
            fail(name, "profiles --json differs from dump's profiles")
        nvals = sum(p["values"] or 0 for p in doc["profiles"])
        if all(p["values"] is not None for p in doc["profiles"]) and nvals != len(dump["values"]):
            fail(name, "profiles --values add up to %d, dump has %d values"
                 % (nvals, len(dump["values"])))

    # stats: the schema, the order of the rows, CSV = JSON, and each row's
    # count against dump's values of the non-summary profiles.
    rc, out, err = run("stats", "--json", "--threads", "2", path)
    if rc != 0:
        fail(name, "stats --json exited %d: %s" % (rc, err.strip()))
    else:
        doc = json.loads(out)
        validate(name + " stats", "profdb-stats-2.schema.json", doc)
        keys = [(r["metric"], r["context"]) for r in doc["rows"]]
        if keys != sorted(set(keys)):
            fail(name, "stats rows not sorted by (metric, context)")
        summary = {p["index"] for p in dump["profiles"] if p["summary"]}
        if doc["profiles"] != sorted(p["index"] for p in dump["profiles"]
                                     if not p["summary"]):
            fail(name, "stats profiles %r" % doc["profiles"])
        want = {}
        for p, c, m, x in dump["values"]:
            if p not in summary:
                want[(m, c)] = want.get((m, c), 0) + 1
        got = {(r["metric"], r["context"]): r["count"] for r in doc["rows"]}
        stats_metrics = {m for m, _ in keys}
        if any(got.get(k, 0) != n for k, n in want.items() if k[0] in stats_metrics):
            fail(name, "stats counts differ from dump's values")
        rc, out, err = run("stats", "--csv", "--threads", "1", path)
        lines = out.decode().splitlines()
        if rc != 0 or len(lines) != len(doc["rows"]) + 1:
            fail(name, "stats --csv: %d lines for %d rows" % (len(lines), len(doc["rows"])))
    if info["format"] == "hpctoolkit-4.0" and summary_agrees:
        rc, out, err = run("stats", "--check-summary", "--json", path)
        if rc != 0:
            fail(name, "stats --check-summary exited %d: %s" % (rc, err.strip()))
        else:
            doc = json.loads(out)
            validate(name + " stats --check-summary", "profdb-stats-check-2.schema.json", doc)
            if doc["checked"] + doc["unknown_ids"] != doc["stored"] or doc["unexplained"]:
                fail(name, "stats --check-summary: %r" % {k: v for k, v in doc.items()
                                                          if k != "issues"})

    # diff against itself: the schema, every call path in both, no difference.
    check_diff(name, path, path, same=True)

    # The locale does not change a byte.
    rc1, out1, _ = run("tree", "--depth", "2", path)
    for loc in locales():
        for var in ("LC_ALL", "LC_NUMERIC"):
            env = {"LC_ALL": ""} if var == "LC_NUMERIC" else {}
            env[var] = loc
            env["LANG"] = loc
            rc, out, err = run("dump", "--json", path, env=env)
            if out != dump_text:
                fail(name, "dump --json differs under %s=%s" % (var, loc))
            rc2, out2, _ = run("tree", "--depth", "2", path, env=env)
            if out1 != out2 or rc1 != rc2:
                fail(name, "tree differs under %s=%s" % (var, loc))
    return info


def fnum(x):
    """A JSON number of the tool as a float ("nan..." strings are NaN)."""
    return float("nan") if isinstance(x, str) and x.startswith("nan") else float(x)


def check_diff(name, a, b, same):
    """profdb diff --json of a against b validates; CSV holds the same rows;
    same: every row is in both with a zero difference."""
    rc, out, err = run("diff", "--json", "-n", "0", a, b)
    if rc != 0:
        if "neither inclusive nor exclusive" in err or "no metrics" in err:
            return None
        fail(name, "diff --json exited %d: %s" % (rc, err.strip()))
        return None
    doc = json.loads(out)
    validate(name + " diff", "profdb-diff-2.schema.json", doc)
    c = doc["counts"]
    # the function level is ranked (nested loops and lines are left out):
    # at most one row per call path, each once
    listed = [r["row"] for r in doc["rows"]]
    if not 0 < len(listed) <= c["matched"] + c["only_a"] + c["only_b"] or \
            len(set(listed)) != len(listed):
        fail(name, "diff --json -n 0 lists %d rows, counts %r" % (len(doc["rows"]), c))
    keys = [abs(fnum(r[doc["rank"]]["diff"])) for r in doc["rows"]]
    if any(x < y for x, y in zip(keys, keys[1:]) if x == x and y == y):
        fail(name, "diff rows not ordered by |B - A|")
    if same:
        bad = [r for r in doc["rows"] if r["in"] != "both" or r["node_a"] != r["node_b"]
               or any(fnum(r[s]["diff"]) != 0 for s in ("exclusive", "inclusive")
                      if fnum(r[s]["a"]) == fnum(r[s]["a"]))]
        if bad or c["only_a"] or c["only_b"]:
            fail(name, "diff against itself: %d rows differ, counts %r" % (len(bad), c))
    rc, out, err = run("diff", "--csv", "-n", "0", a, b)
    rows = list(csv.reader(io.StringIO(out.decode("utf-8")))) if rc == 0 else []
    if rc != 0 or len(rows) != len(doc["rows"]) + 1 or rows[0][0] != "in":
        fail(name, "diff --csv exited %d with %d lines" % (rc, len(rows)))
    elif [r[0] for r in rows[1:]] != [r["in"] for r in doc["rows"]]:
        fail(name, "diff --csv rows differ from --json")
    return doc

# profdb-mksample nan: (profile, context, metric) -> the stored bits.
SPECIAL = {(1, 13, 3): 0x7ff800000000beef, (1, 13, 4): 0xfff8000000000000,
           (2, 0, 3): 0x7ff0000000000001, (2, 13, 3): 0x7ff0000000000000,
           (2, 13, 4): 0x8000000000000000}


def check_special_doubles():
    """NaN payloads, the sign of NaN and of 0, infinities: every output
    (text, CSV, JSON of value and dump) gives back the stored bits."""
    db = os.path.join(WORK, "nan.db")
    if subprocess.call([MKSAMPLE, "nan", db]) != 0:
        fail("mksample", "profdb-mksample nan failed")
        return
    # The writer keeps the sample's summary profile: it no longer matches.
    check_input("generated special doubles", db, True, summary_agrees=False)
    rc, out, err = run("dump", "--json", "--table", "values", db)
    dumped = {tuple(v[:3]): v[3] for v in json.loads(out)["values"]} if rc == 0 else {}
    rc, out, err = run("dump", "--csv", "--table", "values", db)
    rows = list(csv.reader(io.StringIO(out.decode("utf-8"))))[1:] if rc == 0 else []
    csvd = {(int(r[0]), int(r[1]), int(r[2])): r[3] for r in rows}
    for (p, c, m), bits in SPECIAL.items():
        key = (p, c, m)
        args = ["--profile", str(p), "--context", str(c), "--metric", str(m), db]
        rc1, text, _ = run("value", *args)
        rc2, js, _ = run("value", "--json", *args)
        got = {"dump --json": dumped.get(key), "dump --csv": parse_like(csvd.get(key, ""), 0.0),
               "value": parse_like(text.decode().strip(), 0.0),
               "value --json": json.loads(js)["value"] if rc2 == 0 else None}
        for what, x in got.items():
            if f64_bits(x) != bits:
                fail("special doubles", "%s of %r gave %r, stored 0x%016x" % (what, key, x, bits))
    if f64_bits("nan(0x7ff800000000beef)") != 0x7ff800000000beef or f64_bits("nan") is not None:
        fail("special doubles", "f64_bits is broken")


_locales = None


def locales():
    """Locales with a ',' decimal point when installed, else C.UTF-8."""
    global _locales
    if _locales is None:
        try:
            have = subprocess.run(["locale", "-a"], stdout=subprocess.PIPE,
                                  universal_newlines=True).stdout.split()
        except OSError:
            have = []
        low = {h.lower().replace("-", ""): h for h in have}
        _locales = [low[k] for k in ("de_de.utf8", "fr_fr.utf8", "c.utf8") if k in low][:2]
        if not _locales:
            _locales = ["C.UTF-8"]
    return _locales




def main():
    os.makedirs(WORK, exist_ok=True)
    db = os.path.join(WORK, "sample.db")
    if subprocess.call([MKSAMPLE, "sample", db]) != 0:
        fail("mksample", "profdb-mksample sample failed")
        return
    synth = os.path.join(WORK, "synth.db")
    if subprocess.call([MKSAMPLE, "synth", synth, "4", "300", "3", "0.3", "50", "7"]) != 0:
        fail("mksample", "profdb-mksample synth failed")
        return
    cg = os.path.join(WORK, "callgrind.out.4242")
    with open(os.path.join(GOLDEN, "sample.callgrind")) as src, open(cg, "w") as f:
        f.write(src.read())

    cg_b = os.path.join(WORK, "callgrind.out.4343")
    with open(os.path.join(GOLDEN, "sample-b.callgrind")) as src, open(cg_b, "w") as f:
        f.write(src.read())
    doc = check_diff("generated callgrind pair", cg, cg_b, same=False)
    if doc and (doc["counts"] != {"matched": 4, "only_a": 1, "only_b": 1} or
                doc["rows"][0]["path"] != ["main", "work"]):
        fail("generated callgrind pair", "diff: counts %r, first row %r" % (
            doc["counts"], doc["rows"][0]["path"]))

    info = check_input("generated sample", db, True)
    if info and (info["profiles"], info["contexts"], info["metrics"], info["values"],
                 info["traces"], info["samples"]) != (3, 14, 5, 95, 2, 6):
        fail("generated sample", "counts %r" % info)
    check_input("generated synth", synth, True)
    check_special_doubles()
    check_input("generated callgrind", cg, False)
    if MKCUBE:
        cube = os.path.join(WORK, "sample.cubex")
        if subprocess.call([MKCUBE, cube]) != 0:
            fail("mkcube", "profdb-tool-mkcube failed")
        else:
            info = check_input("generated cube", cube, False)
            # tests/writer/writer.h: 5 metrics (6 with the derived one),
            # 5 cnodes, 3 locations.
            if info and (info["profiles"], info["contexts"], info["metrics"]) != (3, 5, 6):
                fail("generated cube", "counts %r" % info)

    if not DATA or not os.path.isdir(DATA):
        print("SKIP real samples: no sample data at %r" % DATA)
        return
    i233 = os.path.join(DATA, "hpctoolkit/v4/hpcviewer-issue-233")
    if os.path.isdir(i233):
        info = check_input("issue-233", i233, True)
        want = {"profiles": 136, "contexts": 7477, "metrics": 3, "values": 231963,
                "traces": 135, "samples": 106197}
        if info and any(info[k] != v for k, v in want.items()):
            fail("issue-233", "counts %r, want %r" % ({k: info[k] for k in want}, want))
    else:
        print("SKIP issue-233: not in %s" % DATA)
    for rel, must in (("hpctoolkit/v4/hpctoolkit-tests-small", True),
                      ("hpctoolkit/v4-devstage/hpcviewer-multithread", True),
                      ("hpctoolkit/prerelease/hpcviewer-prof2", False),
                      ("hpctoolkit/hpcrun/hpctoolkit-tests-small.m", False),
                      ("cube/extrap-example.f1.cubex", False),
                      ("cube/MetaCG-circle.cubex", False),
                      ("callgrind/valgrind/01_default_ls.out", False),
                      ("callgrind/edge/hex_cost.out", False)):
        p = os.path.join(DATA, rel)
        if os.path.exists(p):
            check_input(rel, p, must)
        else:
            print("SKIP %s: not present" % rel)


main()
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
if checked == 0:
    sys.exit(77)
print("all JSON checks passed on %d inputs" % checked)
