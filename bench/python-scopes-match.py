#!/usr/bin/env python3
"""CPU time of Database.match() (a database against itself) and of
dataframe(computed=True) beside dataframe() for the first two metrics
with data. One greppable line per database:

  python-scopes-match NAME: contexts=... profiles=... rows=... computed_cpu_ms=...
      stored_cpu_ms=... match_rows=... match_metrics=... match_cpu_ms=...

usage: bench/python-scopes-match.py BUILD_DIR DB...

CPU time (time.process_time) of this process, pandas imported and the
frame helpers warmed before the clock starts; databases open with
functions_only=True, as `profdb diff` opens them.
"""
import os
import sys
import time


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.join(argv[1], "python"))
    import profdb
    for path in argv[2:]:
        db = profdb.open(path, functions_only=True)
        ids = db.metric_ids()[:2]
        db.dataframe(metrics=ids[:1])                # imports pandas and _frames
        t = time.process_time()
        df = db.dataframe(computed=True, metrics=ids)
        computed = time.process_time() - t
        t = time.process_time()
        db.dataframe(metrics=ids)
        stored = time.process_time() - t
        t = time.process_time()
        m = db.match(db)
        match = time.process_time() - t
        print("python-scopes-match %s: contexts=%d profiles=%d rows=%d computed_cpu_ms=%.1f "
              "stored_cpu_ms=%.1f match_rows=%d match_metrics=%d match_cpu_ms=%.1f"
              % (os.path.basename(path.rstrip("/")), len(db.contexts), len(db.profiles),
                 len(df), computed * 1e3, stored * 1e3, m.counts.rows, m.counts.metrics,
                 match * 1e3))
        del df
        db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
