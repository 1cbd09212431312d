#!/usr/bin/env python3
"""Callgrind inclusive costs against KCachegrind's rule, computed here from
the calls= lines, on every single-file Callgrind recording.

usage: cg_cycles_check.py PROFDB LIBPROFDB.so DATA_DIR [--groups-known] [--big]

--big checks the two big profiles of callgrind/big (66 and 4 MB once
unpacked; most of the run time, so a test of the 'slow' suite of its own),
and without it every other recording. With --big the same reading of each
text also makes cg_function_check.py's checks (function count, self costs
per name, call edges): that test leaves callgrind/big out with
--without-big, so that the 66 MB text is read once.

KCachegrind with cycle detection (tracedata.cpp: TraceFunction::cycleDFS,
::update): the cycles are the strongly connected components of two or more
functions of the call graph (Tarjan, here in plain Python); a function's
inclusive cost is its self cost plus the inclusive cost of its calls to
other functions outside its cycle (calls to itself and calls between
members of one cycle add nothing); a `<cycle N>` carries its members' self
costs plus every call leaving it. The calls= lines and self costs come from
cg_function_check.Reader, which shares no code with profdb.

Checked per file, for every event:
  - the rows of `profdb top --json -n 0 -m all` (by function, exclusive)
    are the self costs per function identity (object, file, folded name):
    the reader's functions with the separate-callers and recursion
    suffixes folded (by libprofdb's profdb_function_fold, whose rule
    tests/test-functions.c checks), named as doc/model.md says (the
    folded name; "name (file) [module]" by base names where two
    identities would print the same);
  - every function's inclusive cost in `profdb top --inclusive --by context
    --json -n 0 -m all` equals the rule's (functions are matched by
    (object, file, name) through libprofdb's function table);
  - no row of `top --inclusive` (by context, by function and its `<cycle
    N>` rows) is above the total, nor any row of `callers`/`callees` of the
    hottest functions and of both ends of every call whose recorded cost is
    above the total (the only rows that could be); a row is `nested` (calls,
    no cost) exactly when its calls go between two members of one cycle or
    from a function to itself;
  - every node of the top-down `tree --json` is at most its parent, and
    every context of the common interface (the table `dump` writes) has an
    inclusive value at most its parent's (4 ulps).
A file whose own calls= lines make a function's rule value exceed the total
(the writer's call costs disagree with its self costs: Xdebug's
cachegrind.out.example1, gprof2dot's bzr.callgrind, ld.so's entry point by
a few instructions) is reported as a NOTE naming the file; profdb must
still give exactly the rule's value there, and rows and contexts made of
those functions may be above the total by what the file records. The
cycles profdb finds per function (profdb_cg_cycle_count) must be the
rule's; `<cycle N>` rows of `top --by function` group the functions first.
Files without a non-zero cost are skipped.

Exit 0 ok, 1 failures, 77 no data.
"""
import contextlib
import ctypes
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cg_function_check as cgf  # noqa: E402
import samples  # noqa: E402

# Sets and series open together (doc/model.md, "Callgrind"): not single files.
SERIES = ("valgrind/05_threads.out", "valgrind/06_dump_every_bb.out",
          "valgrind/07_dump_before.out")
HOTTEST = 8
# The two big profiles: each profdb run reads 66 MB, so fewer of the hottest
# functions' callers/callees (the rows above the total are all still run).
HOTTEST_BIG = 2
# Rows of `top --by function` that group several functions by name (a
# function and its recursion variants f'2, or two "(below main)" of
# different objects, one calling the other) add nested costs twice until
# the grouping folds names before computing inclusive costs; with
# --groups-known they are listed, not failed.
GROUPS_KNOWN = "--groups-known" in sys.argv
BIG = "--big" in sys.argv
failures = []


def fail(rel, msg):
    failures.append(rel)
    print("FAIL %s: %s" % (rel, msg))


def cycles(funcs, calls):
    """{function: cycle number} for the members of components of two or
    more functions (iterative Tarjan)."""
    adj = {f: [] for f in funcs}
    for (a, b) in calls:
        adj.setdefault(a, []).append(b)
        adj.setdefault(b, [])
    index, low, on, stack, comp = {}, {}, set(), [], {}
    n = 0
    for root in adj:
        if root in index:
            continue
        work = [(root, 0)]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, i = work[-1]
            if i < len(adj[v]):
                work[-1] = (v, i + 1)
                w = adj[v][i]
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                members = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    members.append(w)
                    if w == v:
                        break
                if len(members) > 1:
                    for w in members:
                        comp[w] = v
    return comp


def rule(reader):
    """{function: {event: inclusive}}, {cycle id: {event: inclusive}}."""
    funcs = set(reader.self_by_fn) | {f for k in reader.calls for f in k}
    cyc = cycles(funcs, reader.calls)
    incl = {f: dict(reader.self_by_fn.get(f, {})) for f in funcs}
    for (a, b), (_, cost) in reader.calls.items():
        if a == b or (a in cyc and cyc.get(b) == cyc[a]):
            continue
        for ev, v in cost.items():
            incl[a][ev] = incl[a].get(ev, 0) + v
    per_cycle = {}
    for f, c in cyc.items():
        d = per_cycle.setdefault(c, {})
        for ev, v in incl[f].items():
            d[ev] = d.get(ev, 0) + v
    return incl, per_cycle, cyc


def top_names(top, by_fn, ids, f):
    """The row names `top` gives function @f (by context and by function)."""
    ctx = [c for c, g in ids.items() if g == f]
    return {r["name"] for v in (top, by_fn) for r in v["rows"] if r["context"] in ctx}


def hex_segment(s, i):
    """The length of "0x" and hex digits at @i of @s ending at its end or
    an apostrophe, else 0 (tool/names.c)."""
    m = HEX_SEGMENT.match(s, i)
    return len(m.group(1)) if m else 0


HEX_SEGMENT = re.compile(rb"(0x[0-9a-fA-F]+)(?:'|$)")


def base(path):
    return path[path.rfind(b"/") + 1:]


def printable(b):
    """A name as the text shows it: each control byte as '?', a NUL too."""
    return bytes(ord("?") if c < 0x20 or c == 0x7f else c for c in b)


def shown_name(fold, module):
    """`top`'s name of a function, its bytes: addresses
    ("0x0000000000001f00", also a segment after an apostrophe) without
    their leading zeros, an unnamed function (an address) with its
    object's base name."""
    out, i = [], 0
    while i < len(fold):
        h = hex_segment(fold, i) if i == 0 or fold[i - 1:i] == b"'" else 0
        if not h:
            out.append(fold[i:i + 1])
            i += 1
            continue
        digits = fold[i + 2:i + h]
        out.append(b"0x" + (digits.lstrip(b"0") or digits[-1:]))
        i += h
    name = b"".join(out)
    obj = base(module)
    if hex_segment(fold, 0) and obj and obj != b"???":
        name += b" [" + obj + b"]"
    return name


def namesake_name(fold, file, module):
    """A function told apart from others whose names print alike: "name
    (file) [module]", base names, as `callers` prints it."""
    name = shown_name(fold, b"") or b"<unknown function>"
    if file and not (file[:1] == b"[" and file[-1:] == b"]"):
        name += b" (" + base(file) + b")"
    if module:
        name += b" [" + base(module) + b"]"
    return name


def json_text(b):
    """@b as a JSON string of the tool decodes: UTF-8, any other byte as
    the code point of its value (tool/print.c, put_json_str)."""
    return "".join(chr(ord(c) - 0xdc00) if 0xdc80 <= ord(c) <= 0xdcff else c
                   for c in b.decode("utf-8", "surrogateescape"))


def folder(lib, path):
    """profdb_function_fold of the profile @path: a function of a name."""
    db = ctypes.c_void_p()
    if lib.profdb_open(ctypes.byref(db), path.encode(), None) < 0:
        return None, None

    def fold(name):
        buf = ctypes.create_string_buffer(name, len(name) + 1)
        r = lib.profdb_function_fold(db, cgf.Str(ctypes.cast(buf, ctypes.c_void_p).value,
                                                 len(name)))
        return name[:r.len]
    return db, fold


def check_function_rows(lib, path, rel, reader, events):
    """The rows of `top` by function, exclusive: one per identity (object,
    file, folded name), its self cost summed over the identity's
    functions, named as doc/model.md says. Rows of equal name and values
    are counted, not told apart."""
    db, fold = folder(lib, path)
    if db is None:
        return fail(rel, "profdb_open failed")
    try:
        ident = {f: (f[0], f[1], fold(f[2])) for f in reader.funcs | set(reader.self_by_fn)}
    finally:
        lib.profdb_close(db)
    cost = {}
    for f, d in reader.self_by_fn.items():
        c = cost.setdefault(ident[f], {})
        for ev, v in d.items():
            c[ev] = c.get(ev, 0) + v
    keys = {}   # the functions of each name as printed
    for i in set(ident.values()):
        keys.setdefault(printable(shown_name(i[2], i[0])), []).append(i)
    got = run(["top", "--json", "-n", "0", "-m", "all", path])
    names = [m["name"] for m in got["metrics"]]
    cols = [(ev, names.index(ev)) for ev in events if ev in names]
    if not names or names[0] not in events:
        print("%-55s by function: first metric %r not an event, not compared" % (rel, names[:1]))
        return
    want = Counter()
    for key, ids in keys.items():
        for i in ids:
            c = cost.get(i, {})
            if not c.get(names[0]):
                continue          # no row: a zero first value
            name = namesake_name(i[2], i[1], i[0]) if len(ids) > 1 else shown_name(i[2], i[0])
            want[(json_text(name), tuple(float(c.get(ev, 0)) for ev, _ in cols))] += 1
    have = Counter((r["name"], tuple(r["values"][k] for _, k in cols)) for r in got["rows"])
    if want != have:
        only_top, only_rule = have - want, want - have
        fail(rel, "top by function: %d rows only in top, %d only by identity, e.g. %r / %r"
             % (sum(only_top.values()), sum(only_rule.values()),
                next(iter(only_top), None), next(iter(only_rule), None)))
    namesakes = sum(len(ids) for ids in keys.values() if len(ids) > 1)
    print("%-55s by function: %d rows, %d functions named apart%s"
          % (rel, len(got["rows"]), namesakes, " FAIL" if want != have else ""))


def run(args):
    r = subprocess.run([PROFDB] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("profdb %s: rc %d: %s" % (" ".join(args), r.returncode,
                                                   r.stderr.strip()[:300]))
    return json.loads(r.stdout)


def ulps4(x):
    return 4 * 2.0 ** -52 * abs(x)


def function_ids(lib, path):
    """{context id: (object, file, name)} from libprofdb's function table."""
    cg = ctypes.c_void_p()
    r = lib.profdb_cg_open(ctypes.byref(cg), path.encode(), None)
    if r < 0:
        return None
    try:
        out = {}
        for i in range(lib.profdb_cg_function_count(cg)):
            f = cgf.Func()
            lib.profdb_cg_function_get(cg, i, ctypes.byref(f))
            out[i + 1] = (f.object.bytes(), f.file.bytes(), f.name.bytes())
        return out
    finally:
        lib.profdb_cg_close(cg)


class Ctx(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint32), ("parent", ctypes.c_uint32),
                ("first_child", ctypes.c_uint32), ("next_sibling", ctypes.c_uint32),
                ("depth", ctypes.c_uint32), ("relation", ctypes.c_int), ("type", ctypes.c_int),
                ("function", cgf.Str), ("file", cgf.Str), ("line", ctypes.c_uint64),
                ("module", cgf.Str), ("offset", ctypes.c_uint64), ("has_offset", ctypes.c_int),
                ("in_tree", ctypes.c_int), ("reserved", ctypes.c_uint64 * 4)]


class Num(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("u64", ctypes.c_uint64)]


def check_contexts(lib, path, rel, allowed):
    """Every context's inclusive value at most its parent's, through the
    common interface, per profile (the first three), for the first event:
    the shape does not depend on the event."""
    db = ctypes.c_void_p()
    if lib.profdb_open(ctypes.byref(db), path.encode(), None) < 0:
        return fail(rel, "profdb_open failed")
    try:
        nctx, nprof = lib.profdb_context_count(db), lib.profdb_profile_count(db)
        above = 0
        for p in range(min(nprof, 3)):
            incl, parent = {}, {}
            c, v = Ctx(), Num()
            for i in range(nctx):
                if lib.profdb_context_get(db, i, ctypes.byref(c)) != 0:
                    continue
                r = lib.profdb_inclusive(db, p, i, 0, ctypes.byref(v))
                incl[i], parent[i] = v.u64 if r == 1 else 0, c.parent
            for i, s in incl.items():
                q = parent[i]
                if q in incl and s > incl[q] and i not in allowed:
                    above += 1
                    if above <= 3:
                        fail(rel, "profile %d: context %d's inclusive %d above its parent %d's %d"
                             % (p, i, s, q, incl[q]))
        return above
    finally:
        lib.profdb_close(db)


def check_file(lib, path, rel):
    reader = cgf.Reader().read(cgf.read_text(path))
    if BIG:
        check_functions(lib, path, rel, reader)
    incl, per_cycle, cyc = rule(reader)
    events = reader.events
    ids = function_ids(lib, path)
    if ids is None:
        return fail(rel, "profdb_cg_open failed")
    top = run(["top", "--inclusive", "--by", "context", "--json", "-n", "0", "-m", "all", path])
    names = [m["name"] for m in top["metrics"]]
    totals = [m["total"] for m in top["metrics"]]
    if not any(totals):
        print("%-55s skipped: no non-zero cost" % rel)
        return
    check_function_rows(lib, path, rel, reader, events)
    by_fn = run(["top", "--inclusive", "--json", "-n", "0", "-m", "all", path])
    cols = [names.index(e) if e in names else None for e in events]
    seen = set()
    bad = 0
    for row in top["rows"]:
        f = ids.get(row["context"])
        if f is None:
            continue
        seen.add(f)
        want = incl.get(f, {})
        for ev, col in zip(events, cols):
            if col is not None and row["values"][col] != want.get(ev, 0):
                bad += 1
                if bad <= 3:
                    fail(rel, "%r %s: profdb %r, KCachegrind's rule %d"
                         % (f[2][:60], ev, row["values"][col], want.get(ev, 0)))
    for f, d in incl.items():           # rows top left out must be zero
        if f not in seen and any(d.values()):
            bad += 1
            if bad <= 3:
                fail(rel, "%r missing from top (rule %r)" % (f[2][:60], d))
    over = [(f, ev, v) for f, d in incl.items() for ev, v in d.items()
            if ev in names and v > totals[names.index(ev)]]
    excess = set()
    over_ctx = set()
    for f, ev, v in over:
        t = totals[names.index(ev)]
        print("NOTE %s: writer inconsistency: the file's calls= lines give %r %s %d, %d above "
              "its total %d (KCachegrind shows the same)" % (rel, f[2][:60].decode(errors="replace"),
                                                           ev, v, v - t, t))
        excess |= {(n, v) for n in top_names(top, by_fn, ids, f)}
        over_ctx |= {c for c, g in ids.items() if g == f}
    n_cycle_rows = 0
    for view in (top, by_fn):
        for row in view["rows"]:
            cycle = row["name"].startswith("<cycle ") and view is by_fn
            n_cycle_rows += cycle
            group = view is by_fn and row["contexts"] > 1 and not cycle
            for v, t in zip(row["values"], totals):
                if v > t and group and GROUPS_KNOWN:
                    print("KNOWN %s: group %r: %r above the total %r" % (rel, row["name"], v, t))
                    break
                if v > t and view is by_fn and over and (group or cycle):
                    print("NOTE %s: row %r %r above the total %r: it holds the file's "
                          "inconsistent call costs" % (rel, row["name"][:60], v, t))
                    break
                if v > t and (row["name"], v) not in excess:
                    fail(rel, "top row %r: %r above the total %r" % (row["name"], v, t))
                    break
    if lib.profdb_cg_cycle_count_of(path) != len(per_cycle):
        fail(rel, "profdb finds %d cycles, the rule %d" % (lib.profdb_cg_cycle_count_of(path),
                                                           len(per_cycle)))
    if per_cycle and not n_cycle_rows:
        fail(rel, "no <cycle> row in top --inclusive, the rule finds %d cycles" % len(per_cycle))
    ctx_of = {g: c for c, g in ids.items()}
    hottest = HOTTEST_BIG if rel.startswith("big/") else HOTTEST
    todo = [(r["context"], cmd) for r in top["rows"][:hottest] if r["context"] is not None
            for cmd in ("callers", "callees")]
    # Both ends of every call whose recorded cost is above the total: the
    # only rows that could be (a row sums one caller's calls to one callee).
    for (a, b), (_, cost) in sorted(reader.calls.items()):
        if any(ev in names and v > totals[names.index(ev)] for ev, v in cost.items()):
            todo += [(ctx_of.get(b), "callers"), (ctx_of.get(a), "callees")]
    for ctx, cmd in dict.fromkeys(t for t in todo if t[0] is not None):
        out = run([cmd, "--json", "-n", "0", "-m", "all", "#%d" % ctx, path])
        for sec in out["functions"]:
            for row in sec.get("rows", []):
                f, g = ids.get(ctx), ids.get((row.get("contexts") or [None])[0])
                nested = f == g or (f in cyc and cyc.get(g) == cyc[f])
                if g is not None and row["nested"] != nested:
                    fail(rel, "%s of context %d: row %r nested %r, the rule %r"
                         % (cmd, ctx, row.get("name"), row["nested"], nested))
                for v, t in zip(row.get("values", []), totals):
                    if v is not None and v > t and over:
                        print("NOTE %s: %s of context %d: row %r %r above the total %r: "
                              "the file's inconsistent call costs" % (rel, cmd, ctx,
                                                                     row.get("name"), v, t))
                        break
                    if v is not None and v > t:
                        fail(rel, "%s of context %d: row %r %r above the total %r"
                             % (cmd, ctx, row.get("name"), v, t))
                        break
    # The two big profiles take too long for this test (tests/test-tree.c
    # checks their trees).
    tree_bad = 0 if rel.startswith("big/") else check_tree(run(["tree", "--json", "-m", "all",
                                                                path]))
    if tree_bad:
        fail(rel, "%d tree nodes above their parent" % tree_bad)
    ctx_bad = check_contexts(lib, path, rel, over_ctx)
    print("%-55s %5d functions %3d cycles%s" % (rel, len(incl), len(per_cycle),
                                              " FAIL" if bad or tree_bad or ctx_bad
                                              else ""))


def check_functions(lib, path, rel, reader):
    """cg_function_check.py's checks (function count, self costs per name,
    call edges), which it leaves to this run on the big profiles so that
    their text is read once."""
    r, got = cgf.profdb_read(lib, path)
    if r < 0:
        return fail(rel, "profdb_cg_open failed: %d" % r)
    msgs = cgf.compare(lib, path, got, reader)
    for m in msgs:
        fail(rel, "function check: " + m)
    print("%-55s %5d functions %6d call pairs (cg_function_check.py's checks)%s"
          % (rel, got["count"], len(reader.calls), " FAIL" if msgs else ""))


def check_tree(tree):
    nodes = tree["nodes"]
    by_id = {n["node"]: n for n in nodes}
    bad = 0
    for n in nodes:
        p = by_id.get(n.get("parent_node"))
        if p is None:
            continue
        for v, pv in zip(n["inclusives"], p["inclusives"]):
            if v is not None and pv is not None and v > pv + ulps4(pv):
                bad += 1
                break
    return bad


@contextlib.contextmanager
def unpacked(path):
    """A gzip-compressed profile unpacked once into a temporary file, so
    that the many profdb runs on it do not each inflate it again (the
    reader's gzip path has tests of its own)."""
    if not path.endswith(".gz"):
        yield path
        return
    with tempfile.NamedTemporaryFile(suffix=".out") as tmp:
        with gzip.open(path, "rb") as src:
            shutil.copyfileobj(src, tmp, 1 << 20)
        tmp.flush()
        yield tmp.name


def main():
    global PROFDB
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    PROFDB, so, data = [a for a in sys.argv[1:] if not a.startswith("--")][:3]
    data = os.environ.get("PROFDB_SAMPLE_DATA") or data
    root = os.path.join(data, "callgrind")
    if not os.path.isdir(root):
        print("SKIP: no sample data at %s" % root)
        return 77
    lib = ctypes.CDLL(so)
    cgf.setup(lib)
    vp = ctypes.c_void_p
    lib.profdb_cg_open.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, vp]
    lib.profdb_cg_close.argtypes = [vp]
    lib.profdb_cg_function_count.argtypes = [vp]
    lib.profdb_cg_function_count.restype = ctypes.c_int64
    lib.profdb_cg_function_get.argtypes = [vp, ctypes.c_uint32, vp]
    lib.profdb_cg_cycle_count.argtypes = [vp]
    lib.profdb_cg_cycle_count.restype = ctypes.c_int64

    def cycle_count_of(path):
        cg = vp()
        if lib.profdb_cg_open(ctypes.byref(cg), path.encode(), None) < 0:
            return -1
        try:
            return lib.profdb_cg_cycle_count(cg)
        finally:
            lib.profdb_cg_close(cg)
    lib.profdb_cg_cycle_count_of = cycle_count_of
    lib.profdb_open.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, vp]
    lib.profdb_close.argtypes = [vp]
    for fn in ("profdb_context_count", "profdb_profile_count"):
        getattr(lib, fn).argtypes = [vp]
        getattr(lib, fn).restype = ctypes.c_int64
    lib.profdb_context_get.argtypes = [vp, ctypes.c_uint32, vp]
    lib.profdb_inclusive.argtypes = [vp, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, vp]
    lib.profdb_function_fold.argtypes = [vp, cgf.Str]
    lib.profdb_function_fold.restype = cgf.Str
    big = os.path.join(root, "big")
    if BIG:
        paths = samples.readable([os.path.join(big, f) for f in sorted(os.listdir(big))
                                  if f.endswith(".gz")]) if os.path.isdir(big) else []
    else:
        paths = [p for p in samples.real_samples(data) if "/callgrind/" in p]
    if not paths:
        print("SKIP: no readable Callgrind recording under %s" % root)
        return 77
    n = 0
    for p in paths:
        rel = os.path.relpath(p, root)
        if rel in SERIES or rel in cgf.EXPECTED_REJECT or "/src" in p:
            continue
        with open(p, "rb") as f:
            if not f.read(1):
                continue                 # an empty file: no profile
        try:
            with unpacked(p) as plain:
                check_file(lib, plain, rel)
        except RuntimeError as e:
            if "no metric has a non-zero value" in str(e):
                print("%-55s skipped: no non-zero cost" % rel)
            else:
                fail(rel, str(e))
        n += 1
    print("%d files, %d failures" % (n, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
