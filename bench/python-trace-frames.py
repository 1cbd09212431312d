#!/usr/bin/env python3
"""trace_frame() of every trace of a database, in one fresh process: wall
and CPU time of the loop (the first call reads the context table), and
the rows made. doc/PERFORMANCE.md gives the figures.

  python-trace-frames NAME: wall_ms=... cpu_ms=... traces=... rows=...

usage: bench/python-trace-frames.py BUILD_DIR DB [REPEAT]

Run with the interpreter the module was built for (/usr/bin/python3 on
Debian); REPEAT fresh processes (default 5), each printing one line.
"""
import os
import subprocess
import sys

CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import numpy, pandas
import profdb
db = profdb.open(sys.argv[2])
profiles = [p.index for p in db.profiles]
t0, c0 = time.perf_counter(), time.process_time()
traces = rows = 0
for p in profiles:
    try:
        rows += len(db.trace_frame(p))
        traces += 1
    except profdb.NotFound:
        pass
t1, c1 = time.perf_counter(), time.process_time()
print("python-trace-frames %s: wall_ms=%.1f cpu_ms=%.1f traces=%d rows=%d"
      % (sys.argv[2].rstrip("/").rsplit("/", 1)[-1], 1e3 * (t1 - t0), 1e3 * (c1 - c0),
         traces, rows))
"""


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    build, db = sys.argv[1], sys.argv[2]
    repeat = int(sys.argv[3]) if len(sys.argv) == 4 else 5
    module = os.path.join(os.path.abspath(build), "python")
    for _ in range(repeat):
        subprocess.run([sys.executable, "-c", CHILD, module, db], check=True)


if __name__ == "__main__":
    main()
