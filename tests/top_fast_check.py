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

The fast path ranks a large function table in parts on several threads
and merges them in order; PROFDB_THREADS sets how many. The real samples
are ranked with 1 to 3 threads in turn, and generated texts of 3 000
functions (every group's functions spread over every part, some after
one of their group, keys copied or viewed, a filter, and a cost above 2^52 whose sums the parts could
round otherwise; names in two objects or two files, namesakes that are
groups of their own, next to each other and in different parts) with 1,
2, 3 and 7.

usage: top_fast_check.py PROFDB SAMPLE_DATA   (the real samples)
       top_fast_check.py PROFDB --generated    (the generated texts)
Exit 0 ok, 1 a difference, 77 no Callgrind samples.
"""
import os
import random
import subprocess
import sys
import tempfile

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

# By line (tool/top-lines.c: the functions whose lines can rank, the
# others not read); on every sample, big/ included.
LINE_RANKINGS = [
    (1, ["--lines"]),
    (0, ["--json", "--lines", "-n", "0", "--min-percent", "0.05"]),
    (0, ["--json", "--by", "line", "-n", "7", "--unknown-lines"]),
    (1, ["--lines", "-n", "12", "-m", "all", "--match", "[0-9]", "--exclude", "9"]),
    (0, ["--json", "--lines", "-n", "4", "--profile", "1"]),
    (1, ["--lines", "-n", "6", "--profiles", "1-3", "-m", "all"]),
    (1, ["--lines", "-n", "3", "--min-percent", "0.5"]),
]
BIG_LINE_RANKINGS = 2


# (the text's id column is as wide as the largest context id, which the
# walk's open, with line contexts, counts differently: JSON only)
GENERATED_RANKINGS = [
    (0, ["--json", "-n", "0"]),
    (0, ["--json", "-n", "40", "--wide"]),
    (0, ["--json", "-n", "10", "--match", "^[fg]1", "-m", "all"]),
]


# (a cost of 2^60 + 1, the events): the generated texts
TEXTS = [(0, 2), (1, 2), (0, 20)]

# The generated texts of lines: (positions, parts)
LINE_TEXTS = [("line", 1), ("instr line", 1), ("line", 3)]


def top(tool, args, path, threads=None):
    env = dict(os.environ)
    if threads is not None:
        env["PROFDB_THREADS"] = str(threads)
    return subprocess.run([tool, "top"] + args + [path], capture_output=True, env=env)


def generated(huge, events=2):
    """A Callgrind text of 3 000 functions in 60 groups: each group's
    functions (separate-callers names) all over the table, every fourth
    right after one of its group (which the ranking finds without a
    lookup when the key is a view), unnamed ones ("0x...", whose keys the
    ranking rewrites and copies) among them; the functions of every fifth
    group in two objects, of every tenth in two files (namesakes: a
    function is its object, file and name), each in turn over the table
    and a function right after one of its group in the other; with @p huge,
    one cost of 2^60 + 1; @p events events (more than the 16 values a
    function that a ranking thread holds on its stack: the rest on its
    heap)."""
    rnd = random.Random(7)
    names = ["Ir", "Dr"] + ["E%d" % e for e in range(2, events)]
    lines = ["events: " + " ".join(names[:events]), ""]
    for i in range(3000):
        g = (i if i % 4 else i - 1) % 60
        base = "0x%016x" % (0x1000 + g) if g % 7 == 0 else "%s%d" % ("fg"[g % 2], g)
        # (a function right after one of its group: in the other one)
        turn = (i // 60 + (i % 4 == 0)) % 2
        ob = 3 + turn if g % 5 == 1 else g % 3
        fl = "alt%d.c" % turn if g % 10 == 3 else "src%d.c" % (g % 4)
        lines.append("ob=(%d) /lib/obj%d.so" % (ob + 1, ob))
        lines.append("fl=(%d) %s" % (turn + 5 if g % 10 == 3 else g % 4 + 1, fl))
        lines.append("fn=(%d) %s'caller%d" % (i + 1, base, i))
        ir = (1 << 60) + 1 if huge and i == 1500 else rnd.randrange(1, 1 << 20)
        rest = " ".join(str(rnd.randrange(0, 1000)) for _ in range(events - 1))
        lines.append("%d %d %s" % (i % 50 + 1, ir, rest))
    return "\n".join(lines) + "\n"


def generated_lines(positions, parts):
    """A Callgrind text of 400 functions' lines in @p parts parts: every
    third function from a file "???" (its one line at 0: hidden by line),
    every fifth with a "???:0" line inlined (fi=), some of them the
    costliest lines; costs of one function equal to another's, lines
    equal to their function's, ties everywhere between the parts."""
    rnd = random.Random(11)
    out = ["positions: " + positions, "events: Ir Dr"]
    for part in range(parts):
        if parts > 1:
            out += ["", "part: %d" % (part + 1)]
        out += ["ob=(1) /lib/a.so"]
        for i in range(400):
            unknown = i % 3 == 0
            out.append("fl=(%d) %s" % (2 if unknown else 1, "???" if unknown else "src.c"))
            out.append("fn=(%d) f%d" % (i + 1, i))
            rows = [(0, rnd.choice([500, 990, rnd.randrange(1, 1000)]))] if unknown else \
                [(10 + j, rnd.choice([7, 500, rnd.randrange(0, 1000)])) for j in range(5)]
            for j, (line, ir) in enumerate(rows):
                pos = "0x%x %d" % (0x1000 + 64 * i + 4 * j, line) if positions != "line" \
                    else str(line)
                out.append("%s %d %d" % (pos, ir, rnd.randrange(0, 9)))
            if i % 5 == 1:
                out += ["fi=(2) ???", ("0x%x 0" % (0x1000 + 64 * i + 40)) if positions != "line"
                        else "0", "fe=(1)"]
                out[-2] += " %d 1" % rnd.choice([7, 500, 999])
    return "\n".join(out) + "\n"


def compare(tool, path, skip, args, threads):
    """1 when the fast path (on @p threads) prints what the walk prints."""
    fast = top(tool, args, path, threads)
    walk = top(tool, ["--focus", "0"] + args, path, threads)
    out_fast = fast.stdout.split(b"\n", skip)[skip:]
    out_walk = walk.stdout.split(b"\n", skip)[skip:]
    if fast.returncode == walk.returncode and fast.stderr == walk.stderr and \
            out_fast == out_walk:
        return fast.returncode == 0
    print("FAIL %s: top %s, PROFDB_THREADS=%s differs from the walk (exit %d vs %d)"
          % (path, " ".join(args), threads, fast.returncode, walk.returncode))
    a, b = b"".join(out_fast).splitlines(), b"".join(out_walk).splitlines()
    for x, y in [(x, y) for x, y in zip(a, b) if x != y][:3]:
        print("  fast: %s\n  walk: %s" % (x.decode(errors="replace")[:200],
                                         y.decode(errors="replace")[:200]))
    if fast.stderr != walk.stderr:
        print("  stderr: %r vs %r" % (fast.stderr[-200:], walk.stderr[-200:]))
    return -1


def check_generated(tool):
    """The generated texts on 1, 2, 3 and 7 threads, against the walk and
    against each other: the number of rankings that differ (every one
    must rank)."""
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for huge, events in TEXTS:
            path = os.path.join(tmp, "callgrind.out.gen%d-%d" % (huge, events))
            with open(path, "w") as f:
                f.write(generated(huge, events))
            for skip, args in GENERATED_RANKINGS:
                outs = set()
                for threads in (1, 2, 3, 7):
                    # (sums that round: the walk, adding in its own order,
                    # may differ in the last bits; the thread counts may not)
                    if not huge:
                        bad += compare(tool, path, skip, args, threads) != 1
                    outs.add(top(tool, args, path, threads).stdout)
                if len(outs) != 1:
                    print("FAIL %s: top %s differs between thread counts" % (path, " ".join(args)))
                    bad += 1
        for positions, parts in LINE_TEXTS:
            path = os.path.join(tmp, "callgrind.out.lines%d-%s" % (parts, positions[:4]))
            with open(path, "w") as f:
                f.write(generated_lines(positions, parts))
            for skip, args in LINE_RANKINGS + [(1, ["--lines", "-n", "40"]),
                                               (0, ["--json", "--lines", "-n", "0"])]:
                # (--profile 1 of a text of one part is refused alike)
                bad += compare(tool, path, skip, args, 1) < 0
    print("generated: %d texts, %d rankings on 4 thread counts; %d texts of lines: %d differ"
          % (len(TEXTS), len(GENERATED_RANKINGS), len(LINE_TEXTS), bad))
    return bad


def main():
    tool = sys.argv[1]
    if sys.argv[2] == "--generated":
        return 1 if check_generated(tool) else 0
    data = os.environ.get("PROFDB_SAMPLE_DATA") or sys.argv[2]
    root = os.path.join(data, "callgrind")
    if not os.path.isdir(root):
        print("SKIP: %s not found" % root)
        return 77
    bad = 0
    files = sorted(os.path.join(d, f) for d, _, names in os.walk(root) for f in names
                   if not f.startswith(("README", ".")))
    runs = ranked = 0
    for path in files:
        big = os.sep + "big" + os.sep in path
        lines = LINE_RANKINGS[:BIG_LINE_RANKINGS] if big else LINE_RANKINGS
        for skip, args in (RANKINGS[:BIG_RANKINGS] if big else RANKINGS) + lines:
            got = compare(tool, path, skip, args, runs % 3 + 1)
            runs += 1
            ranked += got == 1
            bad += got < 0
    print("%d samples, %d rankings (%d ranked, the rest refused alike): %d differ"
          % (len(files), runs, ranked, bad))
    return 0 if files and ranked and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
