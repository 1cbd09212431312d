#!/usr/bin/env python3
"""The Python module's benchmarks; doc/PERFORMANCE.md explains
them. One greppable line per case:

  python-dataframe NAME: first_ms=... first_cpu_ms=... warm_ms=... rss_beyond_pandas_mb=... rows=... cells=...
  python-arrays NAME: first_ms=... warm_ms=... arrays=... values=... rss_anon_mb=...

usage: bench/python-bench.py BUILD_DIR [--dataframe DB]... [--arrays DB]...

Run with the interpreter the module was built for (Meson's
find_installation, /usr/bin/python3 on Debian). Every case runs in a fresh
process; memory is that process's peak RSS (VmHWM) minus the peak of a
process that only runs `import numpy, pandas`. A dataframe's first_ms is
the wall time of `import profdb`, the open and the first dataframe() (what a script pays
beyond `import numpy, pandas`); first_cpu_ms the CPU time of the same,
which a machine busy with other work changes less.
"""
import json
import os
import subprocess
import sys

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    return 0.0

mode, path = sys.argv[2], sys.argv[3]
import numpy, pandas
out = {"hwm_imports": status("VmHWM")}
if mode == "baseline":
    print(json.dumps(out)); sys.exit(0)
i0, c0 = time.perf_counter(), time.process_time()
import profdb
t0 = time.perf_counter()
db = profdb.open(path)
if mode == "dataframe":
    df = db.dataframe()
    out["first_ms"] = (time.perf_counter() - i0) * 1e3
    out["first_cpu_ms"] = (time.process_time() - c0) * 1e3
    cols = [c for c in df.columns if c not in ("name", "file", "line", "module")]
    out["rows"], out["cells"] = len(df), int(df[cols].count().sum())
    out["hwm"] = status("VmHWM")
    del df
    warm = []
    for _ in range(5):
        t = time.perf_counter(); df = db.dataframe(); warm.append(time.perf_counter() - t); del df
    out["warm_ms"] = min(warm) * 1e3
else:
    anon0 = status("RssAnon")
    vals = db.all_values()
    out["first_ms"] = (time.perf_counter() - t0) * 1e3
    out["arrays"] = 2 * len(vals)
    out["values"] = sum(len(v.records) for v in vals)
    del vals
    warm = []
    for _ in range(5):
        t = time.perf_counter(); vals = db.all_values(); warm.append(time.perf_counter() - t)
        del vals
    out["warm_ms"] = min(warm) * 1e3
    out["rss_anon_mb"] = status("RssAnon") - anon0
    out["hwm"] = status("VmHWM")
print(json.dumps(out))
"""


def child(build, mode, path=""):
    # The module's bytecode is cached (in the build tree, as an installed
    # package has it) even where the environment says not to write it:
    # compiling profdb's sources in every run would be counted otherwise.
    env = dict(os.environ, PYTHONPYCACHEPREFIX=os.path.join(build, "python-bench-pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    p = subprocess.run([sys.executable, "-c", CHILD, os.path.join(build, "python"), mode, path],
                       stdout=subprocess.PIPE, check=True, env=env)
    return json.loads(p.stdout)


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    build, cases = argv[1], []
    it = iter(argv[2:])
    for flag in it:
        if flag not in ("--dataframe", "--arrays"):
            print(__doc__, file=sys.stderr)
            return 2
        cases.append((flag[2:], next(it)))
    base = min(child(build, "baseline")["hwm_imports"] for _ in range(3))
    for mode, path in cases[:1]:
        child(build, mode, path)   # writes the bytecode cache
    print("python-imports numpy+pandas: peak_rss_mb=%.1f" % base)
    for mode, path in cases:
        r = child(build, mode, path)
        name = os.path.basename(path.rstrip("/"))
        if mode == "dataframe":
            print("python-dataframe %s: first_ms=%.1f first_cpu_ms=%.1f warm_ms=%.1f "
                  "rss_beyond_pandas_mb=%.1f rows=%d cells=%d" % (
                      name, r["first_ms"], r["first_cpu_ms"], r["warm_ms"], r["hwm"] - base,
                      r["rows"], r["cells"]))
        else:
            print("python-arrays %s: first_ms=%.1f warm_ms=%.1f arrays=%d values=%d "
                  "rss_anon_mb=%.1f rss_beyond_pandas_mb=%.1f" % (
                      name, r["first_ms"], r["warm_ms"], r["arrays"], r["values"],
                      r["rss_anon_mb"], r["hwm"] - base))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
