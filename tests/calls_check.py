#!/usr/bin/env python3
"""`profdb callers` / `profdb callees` against callgrind_annotate, on the
real Callgrind samples.

usage: calls_check.py PROFDB DATA_DIR

callgrind_annotate --tree=both lists, for each function ("*" line), its
callers ("<" lines, before it) and the functions it calls (">" lines,
after it), each with the call count and the inclusive cost of those calls
per event. For the hottest functions of each single-file sample, the rows
of `profdb callers|callees --json -n 0 -m EVENT` must hold the same
(file, function) pairs with the same counts and costs, for the first and
the last event of the file; with --inclusive=yes the "*" line is the
function's inclusive cost, which must equal the section's "inclusive".

Functions are keyed by name on both sides, and the rows or sections of one
name added up: callgrind_annotate keys a function by the file its code
comes from (an inlined header's fi=/fe= file makes a second entry of the
function), profdb by the function's fl= file as KCachegrind does (doc/
model.md, "Callgrind"), so only the name identifies a function in both.
Inclusive costs are compared only for functions that reach no call cycle
(profdb collapses recursion as KCachegrind does, callgrind_annotate adds the
recursive calls' cost again) that callgrind_annotate shows under one file
(its inclusive cost of a function split over files is not the sum of the
parts'). Exit 0 ok, 1 failures, 77 nothing to test (no
data or no callgrind_annotate).
"""
import json
import os
import re
import shutil
import subprocess
import sys

PROFDB, DATA = sys.argv[1:3]
SAMPLES = ["valgrind/01_default_ls.out", "valgrind/02_instr_gzip.out",
           "valgrind/04_nocompress_sqlite.out", "valgrind/09_cache_branch.out",
           "valgrind/10_sep_callers2.out", "valgrind/12_inline_O2g.out",
           "valgrind/13_python.out",
           "valgrind/22_recursion.out", "valgrind/23_recursion_seprecs.out",
           "public/gprof2dot/xapian.callgrind"]
# Not 19_mangle_names_no.out: callgrind_annotate 3.19 reads its uncompressed
# names as "" where the file refers to a name id it never defined.
FUNCTIONS = 12       # the hottest functions of each sample
failures = []
compared = 0
inclusive_compared = 0
split = set()        # functions callgrind_annotate shows under several files

COST = re.compile(r"(\d[\d,]*)(?:\s*\(\s*[\d.]+%\))?|(\.)")
LINE = re.compile(r"^(.*?)\s([<>*])\s+(\S.*)$")
NAME = re.compile(r"^(.*?)(?: \(([\d,]+)x\))?(?: \[([^\]]*)\])?\s*$")


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg)


def parse_name(text):
    """'file:fn (12x) [obj]' -> (fn, count or None)."""
    m = NAME.match(text)
    key, count = m.group(1), m.group(2)
    return key.partition(":")[2], (int(count.replace(",", "")) if count else None)


def annotate(path):
    """{function key: (inclusive costs, {caller key: (count, costs)}, {callee key: ...})}"""
    p = subprocess.run(["callgrind_annotate", "--tree=both", "--threshold=100",
                        "--inclusive=yes", "--auto=no", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if p.returncode != 0:
        return None, []
    events, funcs, order = [], {}, []
    block = []
    started = False
    for line in p.stdout.splitlines():
        if line.startswith("Events shown:"):
            events = line.split(":", 1)[1].split()
        if line.rstrip().endswith("file:function"):
            started = True
            continue
        if not started:
            continue
        m = LINE.match(line)
        if not m:
            if block:
                add_block(block, funcs, order)
            block = []
            continue
        costs = [int(a.replace(",", "")) if a else 0 for a, _ in COST.findall(m.group(1))]
        block.append((m.group(2), m.group(3), costs))
    if block:
        add_block(block, funcs, order)
    return events, [(k, funcs[k]) for k in order]


def add_block(block, funcs, order):
    """One function's block; a name seen before (another file) is added to."""
    calls = {"<": {}, ">": {}}
    me = None
    for mark, text, costs in block:
        key, count = parse_name(text)
        if mark == "*":
            me = (key, costs)
        else:
            calls[mark][key] = (count, costs)
    if not me:
        return
    if me[0] not in funcs:
        funcs[me[0]] = ([0] * len(me[1]), {}, {})
        order.append(me[0])
    else:
        split.add(me[0])
    inc, callers, callees = funcs[me[0]]
    for i, v in enumerate(me[1]):
        inc[i] += v
    for mine, theirs in ((callers, calls["<"]), (callees, calls[">"])):
        for k, (c, costs) in theirs.items():
            c0, costs0 = mine.get(k, (None, [0] * len(costs)))
            mine[k] = (None if c is None and c0 is None else (c or 0) + (c0 or 0),
                       [a + b for a, b in zip(costs0, costs)])


def no_inclusive_check(funcs, split):
    """The names whose inclusive costs are not compared: those that reach a
    call cycle (themselves included) through the callee lists, and the
    split ones."""
    graph = {k: set(v[2]) for k, v in funcs}
    cyclic = set()
    for start in graph:
        seen, todo = set(), list(graph[start])
        while todo:
            n = todo.pop()
            if n == start:
                cyclic.add(start)
                break
            if n not in seen:
                seen.add(n)
                todo.extend(graph.get(n, ()))
    out = set(split)
    for start in graph:
        seen, todo = set(), [start]
        while todo:
            n = todo.pop()
            if n in cyclic:
                out.add(start)
                break
            if n not in seen:
                seen.add(n)
                todo.extend(graph.get(n, ()))
    return out


def profdb_rows(path, direction, fn, event):
    p = subprocess.run([PROFDB, direction, "--json", "-n", "0", "-m", event, fn, path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace").strip()
    return json.loads(p.stdout), None


def compare(rel, path, fn, want, k, event, cyclic):
    global compared, inclusive_compared
    inclusive, callers, callees = want
    for direction, expect in (("callers", callers), ("callees", callees)):
        doc, err = profdb_rows(path, direction, fn, event)
        if doc is None:
            fail("%s: %s %r: %s" % (rel, direction, fn, err))
            return
        secs = doc["functions"]
        got, nested = {}, set()
        for s in secs:
            for r in s["rows"]:
                c, v = got.get(r["name"], (0, 0))
                # A nested call (inside a cycle, or recursive) has its count
                # and no cost; callgrind_annotate's cost is not compared.
                if r["nested"]:
                    nested.add(r["name"])
                    if r["value"] is not None:
                        fail("%s: %s of %r: nested row %r has a value" % (rel, direction, fn,
                                                                          r["name"]))
                got[r["name"]] = (c + (r["calls"] or 0),
                                  v + (0 if r["nested"] else int(r["value"])))
        want_rows = {kk: (c or 0, 0 if kk in nested else costs[k])
                     for kk, (c, costs) in expect.items()}
        if got != want_rows:
            diff = {kk: (got.get(kk), want_rows.get(kk)) for kk in set(got) | set(want_rows)
                    if got.get(kk) != want_rows.get(kk)}
            fail("%s: %s of %r, event %s: (profdb, callgrind_annotate) differ: %r"
                 % (rel, direction, fn, event, dict(list(diff.items())[:4])))
        inc = sum(int(s["inclusive"]) for s in secs)
        if direction == "callers" and fn not in cyclic:
            inclusive_compared += 1
        if direction == "callers" and fn not in cyclic and inc != inclusive[k]:
            fail("%s: inclusive of %r, event %s: profdb %d, callgrind_annotate %d"
                 % (rel, fn, event, inc, inclusive[k]))
        compared += 1


def main():
    if not shutil.which("callgrind_annotate"):
        print("SKIP: no callgrind_annotate")
        return 77
    tested = 0
    for rel in SAMPLES:
        path = os.path.join(DATA, "callgrind", rel)
        if not os.path.exists(path):
            print("SKIP %s: not present" % rel)
            continue
        split.clear()
        events, funcs = annotate(path)
        if not events:
            fail("%s: callgrind_annotate failed" % rel)
            continue
        tested += 1
        cyclic = no_inclusive_check(funcs, split)
        for k in sorted({0, len(events) - 1}):
            for fn, want in funcs[:FUNCTIONS]:
                compare(rel, path, fn, want, k, events[k], cyclic)
    print("%d caller/callee lists and %d inclusive costs compared on %d samples"
          % (compared, inclusive_compared, tested))
    if not tested:
        return 77
    return 1 if failures else 0


sys.exit(main())
