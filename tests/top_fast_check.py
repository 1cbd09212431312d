#!/usr/bin/env python3
"""`profdb top` by function reads a Callgrind profile's function table
directly instead of asking for every context of the tree in tree order
(tool/cmd-top.c, rank_graph). It must print what the walk prints:
`--focus 0` (the root's subtree, i.e. every context) takes the walk, so
both are run on every real sample under callgrind/ (gzip included), with
several metrics, profiles, filters and row counts, and compared byte for
byte: standard output (the JSON whole; the text from its second line, as
the first names the focus), standard error and exit status. The outputs
are compared here, in memory: the only programs started are the two
`profdb top` runs of each ranking.

usage: top_fast_check.py PROFDB SAMPLE_DATA
Exit 0 ok, 1 a difference, 77 no Callgrind samples.
"""
import os
import subprocess
import sys

# (lines of standard output skipped, arguments of `top`)
RANKINGS = [
    (0, ["--json", "-n", "0"]),
    (0, ["--json", "-n", "0", "--inclusive"]),
    # tens of MB under big/: the two above only
    (1, ["-n", "30", "--wide"]),
    (0, ["--json", "-n", "15", "-m", "all"]),
    (0, ["--json", "-n", "0", "--min-percent", "0.5"]),
    (0, ["--json", "-n", "10", "--match", "^[a-m_]", "--exclude", "alloc"]),
    (0, ["--json", "-n", "10", "--profile", "1"]),
    (0, ["--json", "-n", "10", "--profiles", "1-3", "-m", "all"]),
    (1, ["-n", "25", "--inclusive", "-m", "all", "--match", "^[^m]"]),
    (0, ["--json", "-n", "10", "--inclusive", "--profile", "2"]),
]
BIG_RANKINGS = 2


def top(tool, args, path):
    return subprocess.run([tool, "top"] + args + [path], capture_output=True)


def main():
    tool = sys.argv[1]
    data = os.environ.get("PROFDB_SAMPLE_DATA") or sys.argv[2]
    root = os.path.join(data, "callgrind")
    if not os.path.isdir(root):
        print("SKIP: %s not found" % root)
        return 77
    files = sorted(os.path.join(d, f) for d, _, names in os.walk(root) for f in names
                   if not f.startswith(("README", ".")))
    runs = ranked = bad = 0
    for path in files:
        big = os.sep + "big" + os.sep in path
        for skip, args in RANKINGS[:BIG_RANKINGS] if big else RANKINGS:
            fast = top(tool, args, path)
            walk = top(tool, ["--focus", "0"] + args, path)
            runs += 1
            ranked += fast.returncode == 0
            out_fast = fast.stdout.split(b"\n", skip)[skip:]
            out_walk = walk.stdout.split(b"\n", skip)[skip:]
            if fast.returncode != walk.returncode or fast.stderr != walk.stderr or \
                    out_fast != out_walk:
                bad += 1
                print("FAIL %s: top %s differs from the walk (exit %d vs %d)"
                      % (path, " ".join(args), fast.returncode, walk.returncode))
                a, b = b"".join(out_fast).splitlines(), b"".join(out_walk).splitlines()
                diff = [(x, y) for x, y in zip(a, b) if x != y][:3]
                for x, y in diff:
                    print("  fast: %s\n  walk: %s" % (x.decode(errors="replace")[:200],
                                                     y.decode(errors="replace")[:200]))
                if fast.stderr != walk.stderr:
                    print("  stderr: %r vs %r" % (fast.stderr[-200:], walk.stderr[-200:]))
    print("%d samples, %d rankings (%d ranked, the rest refused alike): %d differ"
          % (len(files), runs, ranked, bad))
    return 0 if files and ranked and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
