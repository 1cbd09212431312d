#!/usr/bin/env python3
"""profdb-mpi (issue 18) against profdb stats, at 1, 2 and 4 ranks.

usage: mpi_check.py synthetic|real LAUNCHER 'LAUNCHER ARGS' PROFDB_MPI PROFDB MKSAMPLE WORK DATA

- --fixed-order output is byte-identical to `profdb stats --threads 1`
  (JSON, and the text table on the synthetic databases);
- the default tree reduction agrees exactly on count, min, max and their
  profiles, and on sum, mean and stddev within the summation-order bound;
- a rank that fails (injected, or a missing database of an ensemble) makes
  every rank exit 1 with one message naming the file, within a timeout;
- --ensemble: the same database thrice has no spread; the fixed-order
  result is the same at every rank count; the tree's within the bound.
Several databases go to one launch (profdb-mpi stats A B ... prints each in
turn) to keep the launcher's start-up out of the test time.
Exit 77 (skipped) when there is nothing to compare (no sample data)."""
import json, math, os, shutil, subprocess, sys

mode, launcher, largs, mpitool, tool, mksample, work, data = sys.argv[1:9]
largs = largs.split()
EPS = 2.0 ** -53
failures = []
checked = 0


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def mpirun(n, args, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([launcher] + largs + ["-n", str(n), mpitool, "stats"] + args,
                          capture_output=True, text=True, env=e, timeout=timeout)


def stats(db, extra):
    r = subprocess.run([tool, "stats", "--threads", "1"] + extra + [db], capture_output=True,
                       text=True, timeout=600)
    return r


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
        r = mpirun(n, ["--fixed-order", "--json"] + dbs)
        if r.returncode != 0 or r.stdout != want_json:
            fail(f"{label}: {n} ranks --fixed-order --json differs from profdb stats "
                 f"(exit {r.returncode}: {r.stderr.strip()[:300]})")
        if text:
            r = mpirun(n, ["--fixed-order"] + dbs)
            if r.stdout != want_text:
                fail(f"{label}: {n} ranks --fixed-order text differs from profdb stats")
        r = mpirun(n, ["--json"] + dbs)
        if r.returncode != 0:
            fail(f"{label}: {n} ranks --json: exit {r.returncode}: {r.stderr.strip()[:300]}")
            continue
        got = split_json(r.stdout)
        if len(got) != len(want_objs):
            fail(f"{label}: {n} ranks: {len(got)} outputs, expected {len(want_objs)}")
            continue
        for d, g, w in zip(dbs, got, want_objs):
            if {k: v for k, v in g.items() if k != "rows"} != {k: v for k, v in w.items() if k != "rows"}:
                fail(f"{d}: {n} ranks: header differs")
            compare_rows(f"{d} ({n} ranks)", g["rows"], w["rows"])
        checked += len(dbs)
    print(f"ok: {label}: {len(dbs)} databases at 1, 2, 4 ranks")


def check_faults(db, ens):
    for n, spec in ((2, "1:read"), (4, "3:open"), (4, "2:read")):
        for fixed in ([], ["--fixed-order"]):
            try:
                r = mpirun(n, fixed + [db], env={"PROFDB_MPI_FAULT": spec}, timeout=60)
            except subprocess.TimeoutExpired:
                fail(f"fault {spec} at {n} ranks {fixed}: hung")
                continue
            rank = spec.split(":")[0]
            if r.returncode != 1 or f"rank {rank}:" not in r.stderr or db not in r.stderr:
                fail(f"fault {spec} at {n} ranks {fixed}: exit {r.returncode}, stderr {r.stderr!r}")
    missing = os.path.join(work, "no-such-run")
    for n in (1, 2, 4):
        r = mpirun(n, ["--ensemble", ens[0], ens[1], missing, ens[2]], timeout=60)
        if r.returncode != 1 or missing not in r.stderr or \
                sum(line.startswith("profdb-mpi:") for line in r.stderr.splitlines()) != 1:
            fail(f"ensemble with a missing run at {n} ranks: exit {r.returncode}, {r.stderr!r}")
    print("ok: faults")


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
        t = mpirun(n, ["--ensemble", "--json", "@" + os.path.join(work, "list")])
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
    print(f"ok: ensemble of {len(ens)} runs, {len(rows)} rows")


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
    check_faults(dbs[2], ens)
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
