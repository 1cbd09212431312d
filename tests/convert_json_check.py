#!/usr/bin/env python3
"""`profdb convert -t folded|speedscope|chrome` on every real sample.

usage: convert_json_check.py PROFDB DATA_DIR [SPEEDSCOPE_SCHEMA]

- folded: every metric that adds up (combine sum, stored values) converts
  unless it has a negative value (the list of refused (file, metric) pairs
  must be empty), and the weights add up to the top-down view's total:
  exactly for integer metrics, within 1e-9 relative for doubles (for the
  first TOTALS metrics of each file, to keep the test fast), or exceed it
  where the view itself has callees above their caller;
- speedscope (default metric, every profile): validates against speedscope
  1.25.0's file-format-schema.json (skipped visibly when the schema or
  python3-jsonschema is missing), frame indices in range, len(weights) =
  len(samples), evented profiles' open/close events balance and never go
  back in time;
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
from fractions import Fraction

PROFDB, DATA = sys.argv[1:3]
SCHEMA = sys.argv[3] if len(sys.argv) > 3 else ""
SKIP_SUFFIXES = (".md", ".txt", ".py", ".c", ".h", ".json", ".csv", ".log", ".gz")
failures, refused, skipped = [], [], []
TOTALS = 3           # metrics per file whose folded total is compared
counts = {"converted": 0, "folded": 0, "speedscope": 0, "schema": 0, "chrome": 0}


def fail(name, msg):
    failures.append("%s: %s" % (name, msg))
    print("FAIL %s: %s" % (name, msg))


def samples():
    out = []
    for sub in ("cube", "hpctoolkit/v4", "hpctoolkit/v4-devstage", "hpctoolkit/prerelease",
                "hpctoolkit/hpcrun"):
        d = os.path.join(DATA, sub)
        if os.path.isdir(d):
            out += [os.path.join(d, f) for f in sorted(os.listdir(d))
                    if f.endswith(".cubex") or not sub.startswith("cube")]
    for base, _, files in sorted(os.walk(os.path.join(DATA, "callgrind"))):
        if "/src" in base or base.endswith("/big"):
            continue
        for f in sorted(files):
            tail = f.rpartition(".")[2]
            series = tail.isdigit() or (f.rsplit("-", 1)[-1].isdigit() and "-" in f)
            if not f.endswith(SKIP_SUFFIXES) and not series:
                out.append(os.path.join(base, f))
    return out


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


def check_folded(name, path, m, totals):
    rc, out, err = run("convert", "-t", "folded", "-m", str(m["id"]), path)
    if rc != 0:
        if has_negative(path, m["id"]):
            return
        refused.append((name, m["name"], err.strip()))
        fail(name, "folded refused metric %s (%d): %s" % (m["name"], m["id"], err.strip()))
        return
    counts["converted"] += 1
    if not totals:
        return
    rc, tree, err = run("tree", "-m", str(m["id"]), "--json", "-n", "1", path)
    if rc != 0:
        fail(name, "tree: " + err.strip())
        return
    total = json.loads(tree)["total"]   # scaled, as the weights
    integral = m["type"] in ("u64", "i64") and float(m["scale"]).is_integer()
    acc = 0 if integral else Fraction(0)
    for line in out.decode("utf-8", "replace").splitlines():
        stack, _, w = line.rpartition(" ")
        if not stack or "\n" in stack:
            fail(name, "folded: bad line %r" % line)
            return
        if integral:
            if not w.isdigit():
                fail(name, "folded: metric %d is integral, weight %r is not" % (m["id"], w))
                return
            acc += int(w)
        else:
            acc += Fraction(float(w))
            if float(w) <= 0:
                fail(name, "folded: weight %r not positive" % w)
    if (acc > total) if integral else (float(acc) > total * (1 + 1e-9)):
        if view_excess(path, m["id"]):
            counts["folded"] += 1
            return   # callees above their caller in the view: wider by design
    if integral:
        if acc != round(total):
            fail(name, "folded metric %d: weights add up to %d, total %r" % (m["id"], acc, total))
    elif abs(float(acc) - total) > 1e-9 * abs(total):
        fail(name, "folded metric %d: weights add up to %r, total %r" % (m["id"], float(acc), total))
    counts["folded"] += 1


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


def check_speedscope(name, path, validator):
    rc, out, err = run("convert", "-t", "speedscope", path)
    if rc != 0:
        if "no metric that adds up" not in err:
            fail(name, "speedscope: " + err.strip())
        return
    doc = json.loads(out)
    if validator is not None:
        errs = list(validator.iter_errors(doc))
        for e in errs[:3]:
            fail(name, "speedscope schema: %s at %s" % (e.message[:200], list(e.path)[:6]))
        counts["schema"] += not errs
    nf = len(doc["shared"]["frames"])
    for p in doc["profiles"]:
        if p["type"] == "sampled":
            if len(p["samples"]) != len(p["weights"]):
                fail(name, "speedscope %s: %d samples, %d weights" %
                     (p["name"], len(p["samples"]), len(p["weights"])))
            if any(not 0 <= i < nf for s in p["samples"] for i in s):
                fail(name, "speedscope %s: frame index out of range" % p["name"])
        else:
            stack, at = [], p["startValue"]
            for e in p["events"]:
                if not 0 <= e["frame"] < nf or e["at"] < at:
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


def check_chrome(name, path):
    rc, out, err = run("convert", "-t", "chrome", path)
    if rc != 0:
        if "no trace to write" not in err:
            fail(name, "chrome: " + err.strip())
        return
    doc = json.loads(out, parse_float=Fraction)
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
        ts = [int(Fraction(e["ts"]) * 1000) + epoch for e in evs]
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
    for path in samples():
        name = os.path.relpath(path, DATA)
        rc, out, err = run("metrics", "--json", path)
        if rc != 0:
            continue   # not a profile profdb opens (the open tests check those)
        k = 0
        for m in json.loads(out)["metrics"]:
            if m["combine"] == "sum" and m["has_data"] and m.get("has_values") and \
                    m["kind"] not in ("summary", "derived"):
                check_folded(name, path, m, k < TOTALS)   # totals of the first few (time)
                k += 1
        check_speedscope(name, path, validator)
        check_chrome(name, path)
    for s in skipped:
        print("SKIP: " + s)
    print("refused (file, metric) pairs: %d" % len(refused))
    print("checked: %d folded conversions (%d totals), %d speedscope files (%d schema-valid), "
          "%d chrome traces; %d failures" % (counts["converted"], counts["folded"], counts["speedscope"],
                                             counts["schema"], counts["chrome"], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
