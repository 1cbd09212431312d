#!/usr/bin/env python3
"""`profdb convert -t folded|speedscope|chrome` on every real sample.

usage: convert_json_check.py PROFDB DATA_DIR [SPEEDSCOPE_SCHEMA [CONVERT_METRICS]]

Each file is converted once per format, in as few processes as the checks
allow (about four per file):
- folded: every metric that adds up (combine sum, stored values) converts
  unless it has a negative value (the list of refused (file, metric) pairs
  must be empty), and the weights add up to the top-down view's total:
  exactly for integer metrics, within 1e-9 relative for doubles, or exceed
  it where the view itself has callees above their caller. All metrics of
  a file go through one CONVERT_METRICS process (tests/convert-metrics.c,
  the library's profdb_convert() and profdb_tree_new()); without it, the
  first TOTALS metrics of each file through `profdb`, and the skip is said;
- speedscope (default metric, every profile): validates against speedscope
  1.25.0's file-format-schema.json (skipped visibly when the schema or
  python3-jsonschema is missing; arrays longer than SCHEMA_ITEMS are
  validated on their first SCHEMA_ITEMS items, the script's own checks
  below read every item, and the count is printed), frame indices in
  range, len(weights) = len(samples), evented profiles' open/close events
  balance and never go back in time; for HPCToolkit 4.0 databases (whose
  sampled profiles come from one context walk, lib/convert/stacks-ctx.c)
  the first and last sampled profiles equal `convert -t folded --profiles
  INDEX` of that profile, which builds the profile's top-down view;
- chrome (files with traces): every B has its E (same name, innermost
  first), timestamps never decrease per thread, and each function's time
  (its outermost slices) equals the sum of the durations of the samples
  whose call path holds it, sample times read by `profdb trace --json`.

Exit 0 ok, 1 failures, 77 nothing to test (no data).
"""
import json
import os
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from samples import real_samples  # tests/samples.py, beside this script

PROFDB, DATA = sys.argv[1:3]
SCHEMA = sys.argv[3] if len(sys.argv) > 3 else ""
HELPER = sys.argv[4] if len(sys.argv) > 4 else ""
SCHEMA_ITEMS = 200  # array items per profile the schema validator reads
failures, refused, skipped = [], [], []
TOTALS = 3           # without the helper: metrics per file whose folded total is compared
counts = {"converted": 0, "folded": 0, "speedscope": 0, "schema": 0, "chrome": 0,
          "cut": 0, "same_stacks": 0}
unopened = []


def fail(name, msg):
    failures.append("%s: %s" % (name, msg))
    print("FAIL %s: %s" % (name, msg))


def samples():
    return real_samples(DATA, hpcrun_all=True)


def run(*args):
    p = subprocess.run([PROFDB] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C"))
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def has_negative(path, mid):
    rc, out, _ = run("stats", "--csv", "-m", str(mid), path)
    if rc != 0:
        return False
    lines = out.decode().splitlines()
    head = lines[0].split(",") if lines else []
    if "min" not in head:
        return False
    k = head.index("min")
    return any(float(l.split(",")[k]) < 0 for l in lines[1:] if len(l.split(",")) > k)


def check_weights(name, r):
    """One metric's folded result: r as convert-metrics prints it."""
    if r["rc"] != 0:
        if r["negative"]:
            return
        refused.append((name, r["name"], r["error"]))
        fail(name, "folded refused metric %s (%d): %s" % (r["name"], r["id"], r["error"]))
        return
    counts["converted"] += 1
    if r.get("tree_rc", 0) != 0:
        fail(name, "folded metric %d: the top-down view failed (%d)" % (r["id"], r["tree_rc"]))
        return
    if r["bad"]:
        fail(name, "folded metric %d: %d weights not %s" %
             (r["id"], r["bad"], "integers" if r["integral"] else "positive numbers"))
        return
    acc, total = r["sum"], r["total"]
    if ((acc > total) if r["integral"] else (acc > total * (1 + 1e-9))) and r["excess"]:
        counts["folded"] += 1
        return   # callees above their caller in the view: wider by design
    if r["integral"]:
        if acc != round(total):
            fail(name, "folded metric %d: weights add up to %d, total %r" % (r["id"], acc, total))
    elif abs(acc - total) > 1e-9 * abs(total):
        fail(name, "folded metric %d: weights add up to %r, total %r" % (r["id"], acc, total))
    counts["folded"] += 1


def folded_all(name, path):
    """Every metric of @path in one helper process. The non-summary
    profiles (speedscope's order), or None when profdb cannot open it."""
    p = subprocess.run([HELPER, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C"))
    lines = p.stdout.decode("utf-8", "replace").splitlines()
    if p.returncode != 0 and not lines:
        unopened.append((name, p.stderr.decode(errors="replace").strip()))
        return None
    if p.returncode != 0:
        fail(name, "convert-metrics: " + p.stderr.decode(errors="replace").strip())
    for line in lines[1:]:
        check_weights(name, json.loads(line))
    return json.loads(lines[0])["profiles"]


def folded_sums(path, mid, integral):
    """Without the helper: `profdb convert` and `profdb tree` per metric."""
    rc, out, err = run("convert", "-t", "folded", "-m", str(mid), path)
    r = {"id": mid, "rc": rc, "error": err.strip(), "integral": integral, "bad": 0,
         "sum": 0 if integral else Fraction(0), "total": 0, "excess": 0}
    if rc != 0:
        r["negative"] = has_negative(path, mid)
        return r
    for line in out.decode("utf-8", "replace").splitlines():
        stack, _, w = line.rpartition(" ")
        if integral:
            if not stack or not w.isdigit():
                r["bad"] += 1
            else:
                r["sum"] += int(w)
        elif not stack or float(w) <= 0:
            r["bad"] += 1
        else:
            r["sum"] += Fraction(float(w))
    r["sum"] = r["sum"] if integral else float(r["sum"])
    rc, tree, err = run("tree", "-m", str(mid), "--json", "-n", "1", path)
    if rc != 0:
        r["tree_rc"] = rc
        return r
    r["total"] = json.loads(tree)["total"]   # scaled, as the weights
    r["excess"] = view_excess(path, mid)
    return r


def folded_each(name, path):
    """The fallback: the first TOTALS metrics of @path, a process each."""
    rc, out, err = run("metrics", "--json", path)
    if rc != 0:
        unopened.append((name, err.strip()))
        return None
    k = 0
    for m in json.loads(out)["metrics"]:
        if m["combine"] == "sum" and m["has_data"] and m.get("has_values") and \
                m["kind"] not in ("summary", "derived") and k < TOTALS:
            integral = m["type"] in ("u64", "i64") and float(m["scale"]).is_integer()
            r = folded_sums(path, m["id"], integral)
            r["name"] = m["name"]
            check_weights(name, r)
            k += 1
    return []


def view_excess(path, mid):
    """Does the top-down view hold a node whose children's inclusive values
    add up to more than its own (inconsistent data)?"""
    rc, out, _ = run("tree", "-m", str(mid), "--json", "-n", "0", "--min-percent", "0", path)
    if rc != 0:
        return False
    nodes = json.loads(out)["nodes"]
    inc = {n["node"]: n["inclusive"] for n in nodes}
    sub = {}
    for n in nodes:
        if n["parent_node"] is not None:
            sub[n["parent_node"]] = sub.get(n["parent_node"], 0) + n["inclusive"]
    return any(v > inc[k] * (1 + 1e-12) + 1e-300 for k, v in sub.items())


def load_validator():
    if not SCHEMA or not os.path.exists(SCHEMA):
        skipped.append("speedscope schema not installed (scripts/deps.sh --tests fetches it "
                       "with npm into .deps/npm)")
        return None
    try:
        import jsonschema
    except ImportError:
        skipped.append("python3-jsonschema missing: speedscope output not validated")
        return None
    with open(SCHEMA) as f:
        return jsonschema.Draft7Validator(json.load(f))


def cut_for_schema(doc):
    """@doc with each profile's arrays cut to SCHEMA_ITEMS items (every
    item is still read by check_speedscope's own checks)."""
    profiles = []
    for p in doc["profiles"]:
        q = dict(p)
        for key in ("samples", "weights", "events"):
            if key in q and len(q[key]) > SCHEMA_ITEMS:
                q[key] = q[key][:SCHEMA_ITEMS]
                counts["cut"] += 1
        profiles.append(q)
    return dict(doc, profiles=profiles)


def is_num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_speedscope(name, path, validator, profiles):
    rc, out, err = run("convert", "-t", "speedscope", path)
    if rc != 0:
        if "no metric that adds up" not in err:
            fail(name, "speedscope: " + err.strip())
        return
    doc = json.loads(out)
    if validator is not None:
        errs = list(validator.iter_errors(cut_for_schema(doc)))
        for e in errs[:3]:
            fail(name, "speedscope schema: %s at %s" % (e.message[:200], list(e.path)[:6]))
        counts["schema"] += not errs
    nf = len(doc["shared"]["frames"])
    sampled = []
    for p in doc["profiles"]:
        if p["type"] == "sampled":
            sampled.append(p)
            if len(p["samples"]) != len(p["weights"]):
                fail(name, "speedscope %s: %d samples, %d weights" %
                     (p["name"], len(p["samples"]), len(p["weights"])))
            if any(not isinstance(i, int) or not 0 <= i < nf for s in p["samples"] for i in s):
                fail(name, "speedscope %s: frame index out of range" % p["name"])
            if not all(is_num(w) for w in p["weights"]):
                fail(name, "speedscope %s: a weight is not a number" % p["name"])
        else:
            stack, at = [], p["startValue"]
            for e in p["events"]:
                if e.get("type") not in ("O", "C") or not isinstance(e.get("frame"), int) or \
                        not is_num(e.get("at")) or not 0 <= e["frame"] < nf or e["at"] < at:
                    fail(name, "speedscope %s: bad event %r" % (p["name"], e))
                    break
                at = e["at"]
                if e["type"] == "O":
                    stack.append(e["frame"])
                elif not stack or stack.pop() != e["frame"]:
                    fail(name, "speedscope %s: close of a frame not open %r" % (p["name"], e))
                    break
            if stack or at > p["endValue"]:
                fail(name, "speedscope %s: events do not balance" % p["name"])
    counts["speedscope"] += 1
    if profiles and name.startswith("hpctoolkit/v4"):
        if len(sampled) != len(profiles):
            fail(name, "speedscope: %d sampled profiles for %d profiles" %
                 (len(sampled), len(profiles)))
            return
        names = [f["name"].replace(";", ":") for f in doc["shared"]["frames"]]
        for i in sorted({0, len(profiles) - 1}):
            same_stacks(name, path, profiles[i], sampled[i], names)


def same_stacks(name, path, index, prof, names):
    """Sampled profile @prof equals the folded stacks of profile @index."""
    rc, out, err = run("convert", "-t", "folded", "--profiles", str(index), path)
    if rc != 0:
        fail(name, "folded --profiles %d: %s" % (index, err.strip()))
        return
    want = []
    for line in out.decode("utf-8", "replace").splitlines():
        stack, _, w = line.rpartition(" ")
        want.append((stack, float(w)))
    got = [(";".join(names[i] for i in s), float(w))
           for s, w in zip(prof["samples"], prof["weights"])]
    if got != want:
        bad = [k for k in range(min(len(got), len(want))) if got[k] != want[k]][:1]
        fail(name, "speedscope profile %d differs from its folded stacks (%d/%d lines; first "
             "difference %r)" % (index, len(got), len(want),
                                 (got[bad[0]], want[bad[0]]) if bad else "in length"))
        return
    counts["same_stacks"] += 1


def check_chrome(name, path):
    rc, out, err = run("convert", "-t", "chrome", path)
    if rc != 0:
        if "no trace to write" not in err:
            fail(name, "chrome: " + err.strip())
        return
    doc = json.loads(out, parse_float=Decimal)
    rc, tr, err = run("trace", "--json", path)
    if rc != 0:
        fail(name, "trace: " + err.strip())
        return
    epoch = int(doc["otherData"]["epoch_ns"])
    times = {}
    for p, t, _ in json.loads(tr)["samples"]:
        times.setdefault(p, []).append(t)
    threads = {}
    for e in doc["traceEvents"]:
        if e["ph"] in "BE":
            threads.setdefault(e["tid"], []).append(e)
    for tid, evs in threads.items():
        ts = [int(Decimal(e["ts"]) * 1000) + epoch for e in evs]
        if any(b < a for a, b in zip(ts, ts[1:])):
            fail(name, "chrome tid %d: time goes back" % tid)
            continue
        stack, slices, at = [], {}, {}
        for e, t in zip(evs, ts):
            if e["ph"] == "B":
                stack.append((e["name"], t))
            else:
                if not stack or stack[-1][0] != e["name"]:
                    fail(name, "chrome tid %d: E of %r does not close the innermost slice" %
                         (tid, e["name"]))
                    break
                n, t0 = stack.pop()
                if all(s[0] != n for s in stack):  # the outermost slice of that name
                    slices[n] = slices.get(n, 0) + t - t0
            at[t] = [s[0] for s in stack]
        if stack:
            fail(name, "chrome tid %d: %d slices never end" % (tid, len(stack)))
            continue
        # the samples' durations: the path in effect after each sample's events
        st = times.get(tid, [])
        expect, paths, k, cur = {}, [], 0, []
        for t in st:
            while k < len(ts) and ts[k] <= t:
                cur = at[ts[k]]
                k += 1
            paths.append(cur)
        for i in range(len(st) - 1):
            for n in set(paths[i]):
                expect[n] = expect.get(n, 0) + st[i + 1] - st[i]
        expect = {n: d for n, d in expect.items() if d}
        slices = {n: d for n, d in slices.items() if d}
        if expect != slices:
            diff = [n for n in set(expect) | set(slices) if expect.get(n) != slices.get(n)]
            fail(name, "chrome tid %d: function times differ from the samples' for %s" %
                 (tid, diff[:5]))
    counts["chrome"] += 1


def main():
    if not os.path.isdir(DATA):
        print("SKIP: no sample data at %s" % DATA)
        return 77
    validator = load_validator()
    if not HELPER or not os.path.exists(HELPER):
        skipped.append("no convert-metrics helper: folded totals of the first %d metrics per "
                       "file only, a process each, and no speedscope/folded cross-check" % TOTALS)
    for path in samples():
        name = os.path.relpath(path, DATA)
        if HELPER and os.path.exists(HELPER):
            profiles = folded_all(name, path)
        else:
            profiles = folded_each(name, path)
        if profiles is None:
            continue   # not a profile profdb opens (listed below; the open tests check those)
        check_speedscope(name, path, validator, profiles)
        check_chrome(name, path)
    for s in skipped:
        print("SKIP: " + s)
    # Not profiles, or formats this build cannot read (the open tests
    # check both); grouped by the reason given, with a few of the files.
    reasons = {}
    for name, err in unopened:
        why = err.rpartition(": ")[2] or "no message"
        reasons.setdefault(why, []).append(name)
    for why, names in sorted(reasons.items()):
        print("SKIP: not opened (%s): %d file(s): %s%s" %
              (why, len(names), ", ".join(names[:3]), ", ..." if len(names) > 3 else ""))
    print("refused (file, metric) pairs: %d" % len(refused))
    print("checked: %d folded conversions (%d totals), %d speedscope files (%d schema-valid, "
          "%d arrays validated on their first %d items), %d HPCToolkit 4.0 sampled profiles "
          "equal to their folded stacks, %d chrome traces; %d failures" %
          (counts["converted"], counts["folded"], counts["speedscope"], counts["schema"],
           counts["cut"], SCHEMA_ITEMS, counts["same_stacks"], counts["chrome"], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
