#!/usr/bin/env python3
"""profdb-mpi against profdb stats, at 1, 2 and 4 ranks.

usage: mpi_check.py synthetic|real LAUNCHER 'LAUNCHER ARGS' PROFDB_MPI PROFDB MKSAMPLE WORK DATA

- --fixed-order output is byte-identical to `profdb stats --threads 1`
  (JSON, and the text table on the synthetic databases);
- the default tree reduction agrees exactly on count, min, max and their
  profiles, and on sum, mean and stddev within the summation-order bound;
- a rank that fails (injected, or a missing database of an ensemble) makes
  every rank exit 1 with one message naming the file, within a timeout;
- ranks that disagree (an MPMD launch of two databases, --fixed-order on
  one rank only, one relative path naming different files in each rank's
  working directory) stop at start with one message and exit 2;
  --ensemble -m NUMBER means the first run's metric of that id, found by
  name in the others (refused when one lacks it); -o FILE holds exactly
  what standard output would, and -o /dev/full exits 1 with a message;
- --ensemble: the same database thrice has no spread; the fixed-order
  result is the same at every rank count; the tree's within the bound;
  on 18 runs of 5 databases (paths shared and not), every (path, metric)
  is the left fold of the runs' own values in run order;
  --json valid against doc/profdb-ensemble-stats-1.schema.json; --csv the
  same rows with each call path as text, the labels of `profdb diff`.
Several databases go to one launch (profdb-mpi stats A B ... prints each in
turn), and checks that one rank cannot tell apart (tree and fixed order at
1 rank) are launched once, to keep the launcher's start-up (about half a
second a launch) down: both modes take about 18 s on the 2-core box at
load 4, more when the box is busier; the
ensemble-fold check adds 8 launches, about 6 s.
Exit 77 (skipped) when there is nothing to compare (no sample data)."""
import csv, io, json, math, os, re, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schema_check  # noqa: E402

mode, launcher, largs, mpitool, tool, mksample, work, data = sys.argv[1:9]
largs = largs.split()
EPS = 2.0 ** -53
failures = []
checked = 0
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "doc")
stats_cache = {}


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


# Sanitized builds: the ASAN_OPTIONS that check leaks, for the launches
# marked leaks=True (one per code path: see tests/lsan-mpi.supp).
LEAK_CHECK = os.environ.get("PROFDB_MPI_LEAK_CHECK")


def mpirun(n, args, env=None, timeout=120, leaks=False):
    e = dict(os.environ)
    e.update(env or {})
    if leaks and LEAK_CHECK:
        e["ASAN_OPTIONS"] = LEAK_CHECK
    return subprocess.run([launcher] + largs + ["-n", str(n), mpitool, "stats"] + args,
                          capture_output=True, text=True, env=e, timeout=timeout)


def stats(db, extra):
    key = (db, tuple(extra))
    if key not in stats_cache:
        stats_cache[key] = subprocess.run([tool, "stats", "--threads", "1"] + extra + [db],
                                          capture_output=True, text=True, timeout=600)
    return stats_cache[key]


def validate(name, schema_file, doc):
    for e in schema_check.validate(os.path.join(DOC, schema_file), doc):
        fail(f"{name}: {schema_file}: {e}")


def split_json(text):
    dec, pos, out = json.JSONDecoder(), 0, []
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            break
        obj, pos = dec.raw_decode(text, pos)
        out.append(obj)
    return out


def num(v):
    return float(v) if not isinstance(v, str) else float(v.split("(")[0])


def close(a, b, bound):
    if isinstance(a, str) or isinstance(b, str):
        return str(a).split("(")[0] == str(b).split("(")[0]
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= bound


def compare_rows(name, got, want):
    """Tree result against the one-process result."""
    if len(got) != len(want):
        return fail(f"{name}: {len(got)} rows, expected {len(want)}")
    for g, w in zip(got, want):
        for k in ("context", "metric", "count", "min", "max", "min_profile", "max_profile"):
            if g[k] != w[k]:
                return fail(f"{name}: row {w['context']}/{w['metric']}: {k} {g[k]} != {w[k]}")
        n = w["count"]
        mag = max(abs(num(w["min"])), abs(num(w["max"])))
        if math.isnan(mag):
            mag = abs(num(w["sum"]))
        gamma = 2 * (n - 1) * EPS / (1 - (n - 1) * EPS)   # doc/model.md: 2 gamma_{n-1} sum|v|
        bound = gamma * n * mag
        if not close(g["sum"], w["sum"], bound) or not close(g["mean"], w["mean"], bound / n * 2):
            return fail(f"{name}: row {w['context']}/{w['metric']}: sum {g['sum']} vs {w['sum']} "
                        f"beyond {bound}")
        if not close(g["stddev"], w["stddev"], 1e-9 * mag + 1e-300):
            return fail(f"{name}: row {w['context']}/{w['metric']}: stddev {g['stddev']} vs "
                        f"{w['stddev']}")


def check_batch(label, dbs, text=False):
    global checked
    want_json = "".join(stats(d, ["--json"]).stdout for d in dbs)
    want_objs = split_json(want_json)
    want_text = "".join(stats(d, []).stdout for d in dbs) if text else None
    for n in (1, 2, 4):
        r = mpirun(n, ["--fixed-order", "--json"] + dbs, leaks=n == 2)
        if r.returncode != 0 or r.stdout != want_json:
            fail(f"{label}: {n} ranks --fixed-order --json differs from profdb stats "
                 f"(exit {r.returncode}: {r.stderr.strip()[:300]})")
        if text and n == 4:   # the printer is shared: once is enough
            r = mpirun(n, ["--fixed-order"] + dbs)
            if r.stdout != want_text:
                fail(f"{label}: {n} ranks --fixed-order text differs from profdb stats")
        if n == 1:            # one rank: no reduction, the fixed order's result
            checked += len(dbs)
            continue
        r = mpirun(n, ["--json"] + dbs, leaks=n == 2)
        if r.returncode != 0:
            fail(f"{label}: {n} ranks --json: exit {r.returncode}: {r.stderr.strip()[:300]}")
            continue
        got = split_json(r.stdout)
        if len(got) != len(want_objs):
            fail(f"{label}: {n} ranks: {len(got)} outputs, expected {len(want_objs)}")
            continue
        for d, g, w in zip(dbs, got, want_objs):
            if n == 2 and mode == "synthetic":   # the printer is profdb stats' own;
                # the stdlib validator is slow on the real databases' rows
                validate(f"{d} ({n} ranks)", "profdb-stats-2.schema.json", g)
            if {k: v for k, v in g.items() if k != "rows"} != {k: v for k, v in w.items() if k != "rows"}:
                fail(f"{d}: {n} ranks: header differs")
            compare_rows(f"{d} ({n} ranks)", g["rows"], w["rows"])
        checked += len(dbs)
    print(f"ok: {label}: {len(dbs)} databases at 1, 2, 4 ranks")


def check_faults(db, ens):
    # each stage under each order once, the chain's middle and end ranks
    for n, spec, fixed in ((2, "1:read", ["--fixed-order"]), (4, "3:open", []),
                           (4, "2:read", []), (4, "2:open", ["--fixed-order"])):
        try:
            r = mpirun(n, fixed + [db], env={"PROFDB_MPI_FAULT": spec}, timeout=60,
                       leaks=n == 2)
        except subprocess.TimeoutExpired:
            fail(f"fault {spec} at {n} ranks {fixed}: hung")
            continue
        rank = spec.split(":")[0]
        if r.returncode != 1 or f"rank {rank}:" not in r.stderr or db not in r.stderr:
            fail(f"fault {spec} at {n} ranks {fixed}: exit {r.returncode}, stderr {r.stderr!r}")
    missing = os.path.join(work, "no-such-run")
    for n, fixed in ((2, []), (4, ["--fixed-order"])):
        r = mpirun(n, fixed + ["--ensemble", ens[0], ens[1], missing, ens[2]], timeout=60,
                   leaks=n == 2)
        if r.returncode != 1 or missing not in r.stderr or \
                sum(line.startswith("profdb-mpi:") for line in r.stderr.splitlines()) != 1:
            fail(f"ensemble with a missing run at {n} ranks: exit {r.returncode}, {r.stderr!r}")
    print("ok: faults")


def mpmd(parts, timeout=60):
    """One launch of several programs: parts are (ranks, extra launcher
    arguments, profdb-mpi stats arguments)."""
    cmd = [launcher] + largs
    for i, (n, extra, args) in enumerate(parts):
        cmd += ([":"] if i else []) + ["-n", str(n)] + extra + [os.path.abspath(mpitool), "stats"]
        cmd += args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def one_message(r, code, text, what):
    msgs = [line for line in r.stderr.splitlines() if line.startswith("profdb-mpi:")]
    if r.returncode != code or len(msgs) != 1 or text not in msgs[0]:
        fail(f"{what}: exit {r.returncode} (expected {code}), stderr {r.stderr!r}")


def check_agreement(dbs, ens):
    try:
        one_message(mpmd([(1, [], [dbs[0]]), (1, [], [dbs[1]])]), 2, "different arguments",
                    "MPMD launch of two databases")
        one_message(mpmd([(1, [], ["--fixed-order", dbs[2]]), (1, [], [dbs[2]])]), 2,
                    "different arguments", "--fixed-order on one rank only")
        wd = []
        for i, src in enumerate(ens[:2]):   # the same relative name, other files
            d = os.path.join(work, f"wdir{i}")
            shutil.copytree(src, os.path.join(d, "db"))
            wd.append(d)
        one_message(mpmd([(1, ["-wdir", wd[0]], ["db"]), (1, ["-wdir", wd[1]], ["db"])]), 2,
                    "the ranks see different files", "one path, different files per rank")
    except subprocess.TimeoutExpired as e:
        fail(f"disagreeing ranks hung: {e.cmd}")
    # -m 1 is the first run's metric 1, by name in every run
    name = json.loads(subprocess.run([tool, "metrics", "--json", ens[0]], capture_output=True,
                                     text=True).stdout)["metrics"][1]["name"]
    by_id = mpirun(2, ["--ensemble", "--json", "-m", "1"] + ens[:3])
    by_name = mpirun(2, ["--ensemble", "--json", "-m", name] + ens[:3])
    if by_id.returncode != 0 or by_id.stdout != by_name.stdout:
        fail(f"--ensemble -m 1 differs from -m {name!r}: {by_id.stderr!r}")
    r = mpirun(2, ["--ensemble", "-m", "1", dbs[0], ens[0]])
    lacks = json.loads(subprocess.run([tool, "metrics", "--json", dbs[0]], capture_output=True,
                                      text=True).stdout)["metrics"][1]["name"]
    one_message(r, 1, f"no metric named or numbered '{lacks}'",
                "--ensemble -m 1 whose metric a later run lacks")
    out = os.path.join(work, "out.json")
    r = mpirun(2, ["--json", "-o", out, dbs[0]])
    with open(out) as f:
        got = f.read()
    if r.returncode != 0 or r.stdout or got != stats(dbs[0], ["--json"]).stdout:
        fail(f"-o FILE: exit {r.returncode}, output not that of profdb stats: {r.stderr!r}")
    if os.path.exists("/dev/full"):
        one_message(mpirun(2, ["-o", "/dev/full", dbs[0]]), 1, "writing the output failed",
                    "-o /dev/full")
    r = mpirun(2, ["-o", os.path.join(work, "no-such-dir", "out"), dbs[0]])
    one_message(r, 1, "cannot create the output", "-o in a missing folder")
    print("ok: agreement between ranks, --ensemble -m NUMBER, -o")


def check_ensemble(ens):
    same = [ens[0]] * 3
    r = mpirun(2, ["--ensemble", "--json"] + same)
    o = json.loads(r.stdout) if r.returncode == 0 else None
    if not o or not o["rows"] or any(x["count"] != 3 or x["min"] != x["max"] or
                                     x["min_profile"] != 0 for x in o["rows"]):
        fail(f"ensemble of one database thrice: {r.returncode} {r.stderr[:300]}")
    ref = None
    for n in (1, 2, 4):
        r = mpirun(n, ["--ensemble", "--fixed-order", "--json"] + ens)
        if r.returncode != 0:
            fail(f"ensemble at {n} ranks: {r.stderr[:300]}")
            continue
        ref = ref or r.stdout
        if r.stdout != ref:
            fail(f"ensemble --fixed-order at {n} ranks differs from 1 rank")
        validate(f"ensemble ({n} ranks)", "profdb-ensemble-stats-1.schema.json",
                 json.loads(r.stdout))
        if n == 1:   # one rank: no reduction, the fixed order's result
            continue
        t = mpirun(n, ["--ensemble", "--json", "@" + os.path.join(work, "list")], leaks=n == 2)
        if t.returncode != 0:
            fail(f"ensemble @list at {n} ranks: {t.stderr[:300]}")
            continue
        g, w = json.loads(t.stdout), json.loads(ref)
        if g["paths"] != w["paths"]:
            fail(f"ensemble tree at {n} ranks: other paths")
        compare_rows(f"ensemble ({n} ranks)", g["rows"], w["rows"])
    rows = json.loads(ref)["rows"] if ref else []
    if not any(x["count"] == len(ens) for x in rows):
        fail("ensemble: no call path matched in every run")
    if ref:
        check_ensemble_csv(ens, json.loads(ref))
    print(f"ok: ensemble of {len(ens)} runs, {len(rows)} rows")


def welford(values):
    """The accumulator of (run, value) pairs folded in run order, as
    PROFDB__ACC_ADD folds them, finished as profdb_stats_from_accs does:
    the exact left fold `--fixed-order` promises (doc/model.md)."""
    n = total = mean = m2 = 0.0
    lo = hi = None
    for run, v in values:
        n += 1
        if n == 1:
            total = mean = lo = hi = v
            m2, lo_run, hi_run = 0.0, run, run
            continue
        total += v
        d = v - mean
        mean += d / n
        m2 += d * (v - mean)
        if v < lo:
            lo, lo_run = v, run
        if v > hi:
            hi, hi_run = v, run
    return {"count": int(n), "sum": total, "min": lo, "max": hi, "min_profile": lo_run,
            "max_profile": hi_run, "mean": total / n,
            "stddev": math.sqrt(m2 / n) if m2 > 0 else 0.0}


def check_ensemble_fold():
    """The per-rank fold (mpi/fold.c: a hash of call-path keys, sorted once)
    on many runs whose paths overlap (the same run again; the shared top of
    every seed's tree) and differ (each seed's own subtrees), with two
    metrics and more keys than the index's first size: the result of every
    (path, metric) must be the left fold over the runs in order, computed
    here from each run's own values, at 1 rank, at 3 (an uneven cut, the
    chain handing its list on) and, within the bound, with the tree."""
    seeds = (11, 12, 13, 14, 15)
    distinct = []
    for seed in seeds:   # one context count: the same function table in every run
        d = os.path.join(work, f"fold{seed}")
        subprocess.run([mksample, "synth", d, "2", "400", "2", "0.6", "5", str(seed)],
                       check=True, capture_output=True)
        distinct.append(d)
    runs = [distinct[i] for i in (0, 1, 0, 2, 3, 1, 4, 2, 0, 4, 2, 3, 4, 3, 1, 0, 1, 4)]
    metrics = ["-m", "metric-0", "-m", "metric-1"]
    per_run = {}   # database -> {(label, metric index): value}
    for d in distinct:   # each run alone: its own values, nothing folded
        r = mpirun(1, ["--ensemble", "--json"] + metrics + [d])
        o = json.loads(r.stdout) if r.returncode == 0 else None
        if not o:
            return fail(f"ensemble fold: {d} alone: exit {r.returncode} {r.stderr[:300]}")
        vals = {(o["paths"][x["context"]], x["metric"]): num(x["sum"]) for x in o["rows"]}
        if len(vals) != len(o["rows"]):
            return fail(f"ensemble fold: {d}: two paths with one label; the check needs "
                        "unique labels")
        per_run[d] = vals
    want = {}
    for i, d in enumerate(runs):
        for k, v in per_run[d].items():
            want.setdefault(k, []).append((i, v))
    shared = sum(len(v) == len(runs) for v in want.values())
    if len(want) < 2048 or shared == 0 or shared == len(want):
        return fail(f"ensemble fold: inputs do not mix shared and own paths "
                    f"({len(want)} keys, {shared} in every run)")
    ref = None
    for n, order in ((1, ["--fixed-order"]), (3, ["--fixed-order"]), (3, [])):
        r = mpirun(n, ["--ensemble", "--json"] + order + metrics + runs, leaks=n == 3)
        if r.returncode != 0:
            fail(f"ensemble fold at {n} ranks {order}: {r.stderr[:300]}")
            continue
        if n == 1:
            ref = json.loads(r.stdout)
            ref_text = r.stdout
        elif order:
            if r.stdout != ref_text:
                fail("ensemble fold: --fixed-order at 3 ranks differs from 1 rank")
        elif ref:
            g = json.loads(r.stdout)
            if g["paths"] != ref["paths"]:
                fail("ensemble fold: the tree at 3 ranks has other paths")
            compare_rows("ensemble fold (tree, 3 ranks)", g["rows"], ref["rows"])
    if not ref:
        return
    got = {}
    for x in ref["rows"]:
        key = (ref["paths"][x["context"]], x["metric"])
        if key in got:
            return fail(f"ensemble fold: {key} twice")
        got[key] = x
    if set(got) != set(want):
        return fail(f"ensemble fold: paths differ from the runs' own: "
                    f"{sorted(set(got) ^ set(want))[:3]}")
    for key, values in want.items():
        w, g = welford(values), got[key]
        for f in ("count", "min_profile", "max_profile", "sum", "min", "max", "mean", "stddev"):
            if num(g[f]) != w[f]:
                return fail(f"ensemble fold: {key}: {f} {g[f]} != {w[f]} (runs {values[:4]}...)")
    rows = ref["rows"]
    if rows != sorted(rows, key=lambda x: (x["metric"], x["context"])):
        fail("ensemble fold: rows not in (metric, path) order")
    print(f"ok: ensemble fold: {len(runs)} runs, {len(want)} (path, metric) keys "
          f"({shared} in every run), each the left fold of its runs' values")


def check_ensemble_csv(ens, ref):
    """--csv: the JSON's rows, the metric by name, the call path as text
    with its depth; the paths are those `profdb diff --csv` prints for the
    same runs (the key has no "[I] " and marks the k-th look-alike " #k")."""
    r = mpirun(2, ["--ensemble", "--fixed-order", "--csv"] + ens, leaks=True)
    rows = list(csv.reader(io.StringIO(r.stdout)))
    head = ["path_id", "metric", "count", "sum", "min", "max", "mean", "stddev", "imbalance",
            "imbalance_pct", "min_profile", "max_profile", "metric_name", "depth", "path"]
    if r.returncode != 0 or not rows or rows[0] != head:
        return fail(f"ensemble --csv: exit {r.returncode}, header {rows[:1]}")
    if len(rows) - 1 != len(ref["rows"]):
        return fail(f"ensemble --csv: {len(rows) - 1} rows, JSON {len(ref['rows'])}")
    for c, j in zip(rows[1:], ref["rows"]):
        path = ref["paths"][j["context"]]
        want = [str(j["context"]), str(j["metric"]), str(j["count"])]
        if c[:3] != want or c[12] != ref["metrics"][j["metric"]] or c[14] != path or \
                int(c[13]) != (0 if j["context"] == 0 else path.count(" > ") + 1):
            return fail(f"ensemble --csv row {c} against JSON {j} ({path})")
        if any(not close(num(c[3 + i]), num(j[k]), 0)
               for i, k in enumerate(("sum", "min", "max", "mean", "stddev"))):
            return fail(f"ensemble --csv row {c}: numbers differ from JSON {j}")
    diff = set()
    for other in ens[1:]:
        d = subprocess.run([tool, "diff", "--csv", "-n", "0", ens[0], other],
                           capture_output=True, text=True, timeout=120)
        diff |= {x[-1].replace("[I] ", "") for x in list(csv.reader(io.StringIO(d.stdout)))[1:]}
    mine = {re.sub(r" #\d+(?= > |$)", "", p) for p in ref["paths"]}
    # diff lists the function level (no nested loop or line): its paths are
    # some of the ensemble's, labelled the same
    if not diff or not diff <= mine:
        fail(f"ensemble paths differ from profdb diff's: {sorted(diff - mine)[:4]}")
    print(f"ok: ensemble --csv, {len(mine)} call paths as profdb diff labels them")


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
if mode == "synthetic":
    dbs = []
    for name, args in (("sample", ["sample"]), ("nan", ["nan"]),
                       ("synth", ["synth", "40", "300", "3", "0.3", "10"])):
        d = os.path.join(work, name)
        subprocess.run([mksample, args[0], d] + args[1:], check=True, capture_output=True)
        dbs.append(d)
    check_batch("synthetic", dbs, text=True)
    ens = []
    for seed in (1, 2, 3, 4, 5):
        d = os.path.join(work, f"run{seed}")
        subprocess.run([mksample, "synth", d, "4", "200", "2", "0.5", "5", str(seed)], check=True,
                       capture_output=True)
        ens.append(d)
    with open(os.path.join(work, "list"), "w") as f:
        f.write("# the runs\n" + "\n".join(ens) + "\n")
    check_ensemble(ens)
    check_ensemble_fold()
    check_faults(dbs[2], ens)
    check_agreement(dbs, ens)
else:
    dbs = []
    for sub in ("v4", "v4-devstage"):
        root = os.path.join(data, "hpctoolkit", sub)
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            if stats(d, ["--json"]).returncode == 0:
                dbs.append(d)
            else:
                print(f"skip: {d}: profdb stats cannot read it in this build")
    if not dbs:
        print(f"SKIP: no HPCToolkit database under {data}/hpctoolkit")
        sys.exit(77)
    check_batch("real HPCToolkit databases", dbs)
print(f"{checked} database comparisons, {len(failures)} failures")
sys.exit(1 if failures else 0)
