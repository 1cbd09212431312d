#!/usr/bin/env python3
"""`profdb convert -t timeline` (doc/CONVERT.md, "SVG timeline") on
generated inputs and real traces, against `profdb trace`.

usage: timeline_check.py PROFDB MKSAMPLE WORK DATA_DIR

Generated inputs: the writer's HPCToolkit sample and a synthetic database
(profdb-mksample synth: 6 trace lines of 3 000 samples). Real traces:
HPCToolkit 4.0 (hpcviewer-issue-233, 135 lines; hpcviewer-multithread)
and hpcrun .hpctrace sets (miniapp-hpctrace, trace files alone;
hpctoolkit-tests-loops-cputime-t.m, with their .hpcrun trees) under
DATA_DIR; absent:
said (skipped, counted), and the generated inputs still run.

Each picture must parse with expat, and for every row rect (in a
<g class="row" data-profile="P">), at the centre time of every pixel
column it covers (the root's data-start-ns + data-from-ns +
floor((2c + 1) (to - from) / (2 columns))), the sample of profile P in
effect (the last one at or before that time, from `profdb trace --json`)
must run the rect's data-fn: with the default depth, that sample's
function as `profdb trace` names it (its enclosing function, or its own
label when it is one); with --depth D, the D-th frame from the top of
its call path, from `profdb dump --table contexts` (where the frame is a
named function; others counted as unchecked). A sample's innermost frame
is its context itself when that is entered by a call (a callee without a
function context, "libomp.so+0x134a30"), as in every stack format. A column without a rect
must be before the row's first sample, after its last, or at a sample
that runs nothing. Also: every legend rect names a function drawn, the
window and depth are those asked, formats without traces and bad windows
are refused and leave an existing output as it was, and the pictures the
README shows (doc/sample-flame.svg, doc/sample-timeline.svg) are what
profdb draws of the writer's sample.

Exit 0 ok, 1 failures.
"""
import bisect
import json
import os
import subprocess
import sys
import xml.parsers.expat
from samples import readable  # tests/samples.py, beside this script

PROFDB, MKSAMPLE, WORK, DATA = sys.argv[1:5]
failures = []
counts = {"pictures": 0, "rects": 0, "columns": 0, "unchecked": 0, "skipped": 0, "refused": 0}


def fail(name, msg):
    failures.append(name)
    print("FAIL %s: %s" % (name, msg))


def run(*args):
    p = subprocess.run([PROFDB] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def parse(path):
    """(root attributes, [(profile, x, width, fn)] of the rows, [fn] of the legend)."""
    root, rows, legend, stack = {}, [], [], []
    parser = xml.parsers.expat.ParserCreate()

    def start(name, attrs):
        if name == "svg":
            root.update(attrs)
        elif name == "g":
            stack.append(attrs)
        elif name == "rect":
            g = stack[-1] if stack else {}
            if "data-fn" not in attrs:
                raise ValueError("a rect without data-fn: %r" % attrs)
            if g.get("class") == "row":
                rows.append((int(g["data-profile"]), int(attrs["x"]), int(attrs["width"]),
                             attrs["data-fn"]))
            else:
                legend.append(attrs["data-fn"])

    def end(name):
        if name == "g":
            stack.pop()
    parser.StartElementHandler, parser.EndElementHandler = start, end
    with open(path, "rb") as f:
        parser.ParseFile(f)
    return root, rows, legend


class Trace:
    """The samples of every profile and the names of their contexts, from
    `profdb trace --json`; the call paths from `profdb dump`."""

    def __init__(self, src):
        rc, out, err = run("trace", "--json", src)
        if rc:
            raise RuntimeError("profdb trace: %s" % err)
        doc = json.loads(out)
        self.times, self.ctx = {}, {}
        for p, t, c in doc["samples"]:
            self.times.setdefault(p, []).append(t)
            self.ctx.setdefault(p, []).append(c)
        self.names = {c["id"]: c for c in doc["contexts"]}
        self.tree = None
        self.src = src

    def contexts(self):
        if self.tree is None:
            rc, out, err = run("dump", "--table", "contexts", "--json", self.src)
            self.tree = {c["id"]: c for c in json.loads(out)["contexts"]} if not rc else {}
        return self.tree

    def innermost(self, ctx):
        """The innermost frame's name: the enclosing function `profdb trace`
        gives, or the context's own label when it is a frame itself (a
        function, "[I] " marking an inlined one, or a callee without a
        function context: "libomp.so+0x134a30")."""
        c = self.names[ctx]
        if c["function"] is None and c["label"] == "<program root>":
            return None                   # HPCToolkit's context 0: running nothing
        d = self.contexts().get(ctx)
        if c["function"] is None or (d is not None and d["relation"] == "call"):
            label = c["label"]
            return label[4:] if label.startswith("[I] ") else label
        return c["function"]

    def at_depth(self, ctx, depth):
        """The D-th frame's name from the top, or "?" when the frame is not a
        named function (not checked)."""
        if self.innermost(ctx) is None:
            return None
        path, c = [], self.contexts().get(ctx)
        while c is not None:
            if c["type"] in ("function", "root") or c["relation"] == "call" or c["parent"] is None:
                path.append(c)
            c = self.tree.get(c["parent"]) if c["parent"] is not None else None
        path.reverse()
        if not path:
            return "?"
        f = path[min(depth, len(path)) - 1]
        return f["function"] if f["type"] == "function" and f["function"] else "?"

    def in_effect(self, p, t):
        times = self.times.get(p, [])
        i = bisect.bisect_right(times, t) - 1
        if i < 0 or t > times[-1]:
            return None
        return self.ctx[p][i]


def check_picture(name, svg, tr, depth, window):
    counts["pictures"] += 1
    try:
        root, rows, legend = parse(svg)
    except (ValueError, xml.parsers.expat.ExpatError) as e:
        fail(name, "does not parse: %s" % e)
        return
    start, lo, hi = int(root["data-start-ns"]), int(root["data-from-ns"]), int(root["data-to-ns"])
    x0, cols = int(root["data-x0"]), int(root["data-columns"])
    if int(root["data-depth"]) != depth or (window and (lo, hi) != window):
        fail(name, "depth %s, window %s..%s, not those asked" % (root["data-depth"], lo, hi))
    span = hi - lo

    def col_time(c):
        return start + lo + (2 * c + 1) * span // (2 * cols)

    covered = {}
    for p, x, w, fn in rows:
        counts["rects"] += 1
        for c in range(x - x0, x - x0 + w):
            counts["columns"] += 1
            covered[(p, c)] = fn
            ctx = tr.in_effect(p, col_time(c))
            want = None if ctx is None else (tr.innermost(ctx) if not depth
                                             else tr.at_depth(ctx, depth))
            if want == "?":
                counts["unchecked"] += 1
            elif want != fn:
                fail(name, "profile %d column %d (t=%d): drawn %r, in effect %r (context %s)"
                     % (p, c, col_time(c), fn, want, ctx))
                return
    for p in {p for p, _, _, _ in rows}:
        for c in range(cols):
            if (p, c) in covered:
                continue
            ctx = tr.in_effect(p, col_time(c))
            if ctx is not None and tr.innermost(ctx) is not None:
                fail(name, "profile %d column %d: no rect, but context %d runs then" % (p, c, ctx))
                return
    drawn = {fn for _, _, _, fn in rows}
    if not rows or not legend or not set(legend) <= drawn:
        fail(name, "%d rects; legend %r not among the functions drawn" % (len(rows), legend[:3]))
    print("ok %s: %d rects, %d functions" % (name, len(rows), len(drawn)))


def pictures(name, src, width, windows, depths):
    tr = Trace(src)
    for window in windows:
        for depth in depths:
            svg = os.path.join(WORK, "%s-%d.svg" % (name, counts["pictures"]))
            args = ["convert", "-t", "timeline", "--width", str(width), "-o", svg]
            if window:
                args += ["--window", "%dns,%dns" % window]
            if depth:
                args += ["--depth", str(depth)]
            rc, _, err = run(*(args + [src]))
            if rc:
                fail(name, "convert %s: %s" % (" ".join(args[4:]), err.strip()))
                continue
            check_picture("%s w=%s d=%s" % (name, window, depth), svg, tr, depth, window)


def refusals(sample):
    out = os.path.join(WORK, "kept.svg")
    with open(out, "w") as f:
        f.write("kept")
    cg = os.path.join(WORK, "callgrind.out.tiny")
    with open(cg, "w") as f:
        f.write("events: Ir\nfn=main\n1 10\n")
    cases = [([cg], 1, "no trace to write"),
             (["--window", "2us,1us", sample], 2, "ends at or before"),
             (["--window", "1h,", sample], 2, "not a time"),
             (["--window", "1s,", sample], 1, "after the last sample"),
             (["--depth", "0", sample], 2, "outermost"),
             (["-m", "1", sample], 1, "no metric values")]
    for args, code, words in cases:
        rc, _, err = run("convert", "-t", "timeline", "-o", out, *args)
        if rc != code or words not in err:
            fail("refusal", "%s: exit %d, %r (want %d, %r)" % (args, rc, err.strip(), code, words))
        counts["refused"] += 1
    if open(out).read() != "kept" or sorted(os.listdir(WORK)).count("kept.svg") != 1 or \
            any(n.startswith(".kept.svg.") for n in os.listdir(WORK)):
        fail("refusal", "the existing output changed or a temporary file stayed")


def readme_pictures():
    """The pictures README shows (doc/sample-flame.svg, doc/sample-timeline.svg)
    are what profdb draws of the writer's sample."""
    doc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "doc")
    subprocess.run([MKSAMPLE, "sample", os.path.join(WORK, "sample.db")], check=True)
    for kind, name in (("svg", "sample-flame.svg"), ("timeline", "sample-timeline.svg")):
        p = subprocess.run([os.path.abspath(PROFDB), "convert", "-t", kind, "--width", "800",
                            "-o", name, "sample.db"], cwd=WORK)
        with open(os.path.join(WORK, name), "rb") as a, open(os.path.join(doc, name), "rb") as b:
            if p.returncode or a.read() != b.read():
                fail(name, "doc/%s is not what profdb draws: in a folder with the writer's "
                     "sample.db, run profdb convert -t %s --width 800 -o %s sample.db"
                     % (name, kind, name))


def main():
    os.makedirs(WORK, exist_ok=True)
    sample = os.path.join(WORK, "sample")
    synth = os.path.join(WORK, "synth")
    subprocess.run([MKSAMPLE, "sample", sample], check=True)
    subprocess.run([MKSAMPLE, "synth", synth, "6", "300", "1", "0.1", "3000", "7"], check=True)
    pictures("sample", sample, 60, [None, (1500, 4500)], [0, 1, 2, 3])
    pictures("synth", synth, 400, [None, (1000000000, 1250000000)], [0, 3])
    refusals(sample)
    readme_pictures()
    hk = os.path.join(DATA, "hpctoolkit")
    real = [("issue-233", os.path.join(hk, "v4", "hpcviewer-issue-233"), 1000, [0, 2]),
            ("multithread", os.path.join(hk, "v4-devstage", "hpcviewer-multithread"), 300, [0, 2]),
            ("hpcrun", os.path.join(hk, "hpcrun", "miniapp-hpctrace"), 300, [0]),
            ("hpcrun-cct", os.path.join(hk, "hpcrun", "hpctoolkit-tests-loops-cputime-t.m"), 300,
             [0, 3])]
    for name, src, width, depths in real:
        if not os.path.exists(src) or not readable([src]):
            print("skip %s: %s absent" % (name, src))
            counts["skipped"] += 1
            continue
        pictures(name, src, width, [None], depths)
    print(" ".join("%s=%d" % kv for kv in counts.items()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
