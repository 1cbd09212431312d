#!/usr/bin/env python3
"""`profdb top --min-percent P` shows the rows of `top -n 0` up to the first
one below P % of the total.

The rows are shown by their first value, descending, and the first row
whose percentage is below P ends them (a row without a percentage, NaN,
does not). For each ranking (every --by, --inclusive, several metrics, one
profile, a sum over profiles, --stat, --match) this takes the rows of
`top -n 0 --json` and cuts them by hand at P = 0, 1, 10, 50, 100 and at
each row's exact percentage; `top -n 0 --min-percent P --json` and
`top -n K --min-percent P --json` must give exactly those rows (their
first K). Where no value is NaN, the text of `--min-percent P` must also
equal, below its first line, the text of `-n N` for the N rows it shows
(the column widths depend on the rows shown).

Inputs: the writer's sample database, its variants with special doubles
(`nan`) and with values of either sign and a total below 0 (`signs`), the
writer's Cube sample, the hand-written Callgrind profile; with --real, every
real sample (the big Callgrind profiles too), at fewer percentages.

That is about 4 000 runs of the tool. With --every N (the sanitizer builds,
where each start of the tool costs 15 times more) each ranking is still
read whole, but of its checks (a percentage with one -n, or the text
comparison) only every Nth is made, staggered from one ranking to the
next so that together they cover every kind, plus the edges: -n 0 at 0 %
(every row) and at 100 %.

usage: top_min_percent_check.py PROFDB WORKDIR GOLDEN_DIR MKSAMPLE [MKCUBE] [--every N]
       top_min_percent_check.py PROFDB --real DATA_DIR
Exit 0 ok, 1 failures, 77 no sample data (--real).
"""
import json
import math
import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

EVERY = 1
if "--every" in sys.argv:
    at = sys.argv.index("--every")
    EVERY = int(sys.argv[at + 1])
    del sys.argv[at:at + 2]
PROFDB = sys.argv[1]
REAL = len(sys.argv) > 2 and sys.argv[2] == "--real"
failures = []
checked = 0
count_lock = threading.Lock()   # the rankings are checked on several threads

RANKINGS = [
    [], ["--by", "context"], ["--by", "line"], ["--by", "file"], ["--by", "module"],
    ["--by", "loop"], ["--inclusive"], ["--inclusive", "--by", "context"],
    ["--inclusive", "--by", "line"], ["-m", "all"], ["-m", "all", "--by", "context"],
    ["--profile", "1"], ["--profile", "1", "--by", "context"], ["--profile", "2"],
    ["--profile", "2", "--by", "context"], ["--profiles", "1-2", "--by", "context"],
    ["--stat", "sum"], ["--stat", "max", "--by", "line"], ["--match", "a"],
    ["--match", "a", "--by", "context"],
]
REAL_RANKINGS = [[], ["--by", "context"], ["--by", "line"], ["--inclusive"],
                 ["--by", "file"], ["-m", "all", "--by", "context"]]


def rows_text(text):
    """The text of `top` below its first line, without the note on the
    hidden "???:0" lines, which counts those among the rows -n or
    --min-percent would show with them (two different sets)."""
    return [line for line in text.split("\n")[1:]
            if not (line.startswith("note: ") and "('???:0')" in line)]


def run(args):
    p = subprocess.run([PROFDB] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def cut(rows, p):
    """The rows shown at --min-percent @p: up to the first whose
    percentage is a number below @p."""
    out = []
    for r in rows:
        if is_number(r["percent"]) and r["percent"] < p:
            break
        out.append(r)
    return out


def fail(what, msg):
    with count_lock:
        failures.append("%s: %s" % (what, msg))


def tally():
    global checked
    with count_lock:
        checked += 1


def wanted(case, p, count):
    """Is check number @p case of a ranking made (--every)?"""
    return EVERY == 1 or case % EVERY == 0 or (count == "0" and p in (0, 100))


def check_ranking(path, opts, real, seq):
    """The checks of one ranking, the @p seq th: numbered from @p seq on."""
    name = "%s %s" % (os.path.basename(path), " ".join(opts) or "(default)")
    case = seq
    rc, out, err = run(["top", "-n", "0", "--json"] + opts + [path])
    if rc != 0:
        rc2, _, _ = run(["top", "-n", "0", "--min-percent", "1", "--json"] + opts + [path])
        if rc2 != rc:
            fail(name, "exit %d without --min-percent, %d with it" % (rc, rc2))
        return
    rows = json.loads(out)["rows"]
    special = any(not is_number(r["value"]) or (isinstance(r["value"], float) and
                  not math.isfinite(r["value"])) for r in rows)
    exact = [r["percent"] for r in rows if is_number(r["percent"]) and 0 <= r["percent"] <= 100]
    if real and len(exact) > 4:   # the first, two in the middle, the last
        exact = [exact[0], exact[len(exact) // 3], exact[2 * len(exact) // 3], exact[-1]]
    for p in [0, 1, 10, 50, 100] + exact:
        ptext = repr(float(p))
        want = cut(rows, float(p))
        for count in ["0", "1", "2", str(len(want) + 1)]:
            if real and count in ("1", "2"):
                continue
            case += 1
            if not wanted(case, p, count):
                continue
            rc, out, err = run(["top", "-n", count, "--min-percent", ptext, "--json"] + opts +
                               [path])
            if rc != 0:
                fail(name, "-n %s --min-percent %s: exit %d: %s" % (count, ptext, rc, err))
                continue
            got = json.loads(out)["rows"]
            w = want[:int(count)] if count != "0" else want
            tally()
            if got != w:
                fail(name, "-n %s --min-percent %s: %d rows, want %d (first difference: "
                     "%r)" % (count, ptext, len(got), len(w),
                              next(((a, b) for a, b in zip(got, w) if a != b), None)))
        case += 1
        if special or not want or not wanted(case, p, "text"):
            continue
        rc, text, _ = run(["top", "-n", "0", "--min-percent", ptext] + opts + [path])
        rc2, text2, _ = run(["top", "-n", str(len(want))] + opts + [path])
        tally()
        if rc or rc2 or rows_text(text) != rows_text(text2):
            fail(name, "--min-percent %s: the text differs from -n %d's" % (ptext, len(want)))


def fixtures():
    work, golden, mksample = sys.argv[2:5]
    mkcube = sys.argv[5] if len(sys.argv) > 5 else None
    os.makedirs(work, exist_ok=True)
    paths = []
    for kind in ("sample", "nan", "signs"):
        db = os.path.join(work, kind + ".db")
        subprocess.run(["rm", "-rf", db], check=True)
        if subprocess.call([mksample, kind, db]) != 0:
            fail(kind, "profdb-mksample %s failed" % kind)
        paths.append(db)
    if mkcube:
        cube = os.path.join(work, "sample.cubex")
        if subprocess.call([mkcube, cube]) != 0:
            fail("cube", "profdb-tool-mkcube failed")
        paths.append(cube)
    paths.append(os.path.join(golden, "sample.callgrind"))
    return paths


def main():
    if REAL:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from samples import real_samples
        data = os.environ.get("PROFDB_SAMPLE_DATA") or sys.argv[3]
        paths = real_samples(data, big=True)
        if not paths:
            print("SKIP: no sample data at %r" % data)
            return 77
    else:
        paths = fixtures()
    # thousands of short processes (each slow to start under the
    # sanitizers): one ranking per core at a time
    jobs = [(path, opts) for path in paths for opts in (REAL_RANKINGS if REAL else RANKINGS)]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for f in [pool.submit(check_ranking, p, o, REAL, i) for i, (p, o) in enumerate(jobs)]:
            f.result()
    for f in failures:
        print("FAIL " + f)
    print("%d outputs checked%s, %d failures" % (
        checked, " (every %dth check and the edges)" % EVERY if EVERY > 1 else "", len(failures)))
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
