#!/usr/bin/env python3
"""`profdb convert -t svg` (the flame graph, doc/CONVERT.md) on generated
inputs and every real sample.

usage: svg_check.py PROFDB MKSAMPLE MKCHAIN WORK DATA_DIR [MKCUBE]

Generated inputs: the writer's HPCToolkit sample (flame and --icicle), a
synthetic database, a call chain in every format profdb-mkchain writes,
the writer's Cube file (MKCUBE, when built), and a Callgrind profile
written here whose names need escaping (< & " ', an invalid UTF-8 byte,
U+FFFE, a 3 000-byte name). Real samples: every one tests/samples.py
lists (the big Callgrind profiles are bench/convert-json.sh's); none
there: said, and the generated inputs still run.

Each picture must:
- parse with expat (xml.parsers.expat);
- have the root frame (depth 0) first, drawn as wide as the picture
  (data-width), its value the total `profdb tree --json` gives for the same
  metric (within 1e-9 relative);
- have frames in pre-order (each depth at most one more than the previous);
- for every frame, its children's values plus its own part (data-s, which
  holds what the frames not drawn had) equal its value within 1e-9
  relative, or exceed it (callees stored above their caller: counted, and
  not allowed on the generated inputs but the synthetic one);
- draw no frame narrower than the minimum width (0.1 px; 2 px in one run,
  which must then draw fewer frames), and each frame as wide as its value
  (width x value / total) when no frame's children exceed it;
- name every frame in data-n, its tooltip (<title>) starting with that
  name, its label that name or its start and "..".
The page's script, where node is installed (else skipped, counted): run
on a stand-in DOM (tests/svg_script.js) with #search=NAME&zoom=N, the
zoomed frame and its subtree fill the width, the other frames hidden, the
matches (a match inside a match counted once) and their share right, and
a click zooms into the frame clicked and puts the state in the URL.
Refusals: a metric that combines by min, max or no rule (the real Cube
samples'), with the message saying why, and an existing output left as it
was with no temporary file behind.

Exit 0 ok, 1 failures.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.parse
import xml.parsers.expat
from samples import real_samples  # tests/samples.py, beside this script

PROFDB, MKSAMPLE, MKCHAIN, WORK, DATA = sys.argv[1:6]
MKCUBE = sys.argv[6] if len(sys.argv) > 6 else ""
REL = 1e-9
failures = []
scripts = []   # (picture, job for node, its check), run by run_scripts()
counts = {"pictures": 0, "frames": 0, "excess": 0, "refused": 0, "skipped": 0, "scripts": 0,
          "script_skipped": 0}
NODE = shutil.which("node") or shutil.which("nodejs")


def fail(name, msg):
    failures.append("%s: %s" % (name, msg))
    print("FAIL %s: %s" % (name, msg))


def run(*args):
    p = subprocess.run([PROFDB] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C"))
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def parse(path):
    """The root's attributes and the frames: (attrs, rect attrs, title, label)."""
    root, frames, stack, text = {}, [], [], []

    def start(tag, attrs):
        stack.append(tag)
        if tag == "svg" and not root:
            root.update(attrs)
        elif tag == "g" and attrs.get("class") == "f":
            frames.append([attrs, None, None, None])
        elif frames and "g" in stack and tag == "rect":
            frames[-1][1] = attrs
        if tag in ("title", "text"):
            text.clear()

    def end(tag):
        stack.pop()
        if frames and tag == "title" and frames[-1][2] is None:
            frames[-1][2] = "".join(text)
        elif frames and tag == "text" and "g" in stack and frames[-1][3] is None:
            frames[-1][3] = "".join(text)

    p = xml.parsers.expat.ParserCreate("UTF-8")
    p.StartElementHandler, p.EndElementHandler = start, end
    p.CharacterDataHandler = text.append
    with open(path, "rb") as f:
        p.ParseFile(f)
    return root, frames


def close(a, b):
    return abs(a - b) <= REL * max(abs(a), abs(b), 1e-300)


def check_frames(name, frames, width, min_width, allow_excess):
    """The tree rules; returns the number of frames whose children exceed them."""
    v = [float(f[0]["data-v"]) for f in frames]
    s = [float(f[0]["data-s"]) for f in frames]
    d = [int(f[0]["data-d"]) for f in frames]
    sub, parents = [0.0] * len(frames), []
    for i in range(len(frames)):
        if i and not 1 <= d[i] <= d[i - 1] + 1:
            fail(name, "frame %d at depth %d after depth %d: not pre-order" % (i, d[i], d[i - 1]))
            return 0
        while parents and d[parents[-1]] >= d[i]:
            parents.pop()
        if parents:
            sub[parents[-1]] += v[i]
        parents.append(i)
    excess = 0
    for i in range(len(frames)):
        if close(sub[i] + s[i], v[i]):
            continue
        if sub[i] + s[i] > v[i]:
            excess += 1
            continue
        fail(name, "frame %d (%s): children %r + own %r != value %r"
             % (i, frames[i][0]["data-n"], sub[i], s[i], v[i]))
        return excess
    if excess and not allow_excess:
        fail(name, "%d frames whose children exceed them" % excess)
    for i, f in enumerate(frames):
        attrs, rect, title, label = f
        n = attrs["data-n"]
        w = float(rect["width"])
        if i and w < min_width - 0.006:
            fail(name, "frame %d (%s) drawn %.2f px wide, under the minimum %g" % (i, n, w, min_width))
            return excess
        if not excess and v[0] > 0 and abs(w - v[i] * width / v[0]) > 0.006:
            fail(name, "frame %d (%s): %.2f px for value %r of %r" % (i, n, w, v[i], v[0]))
            return excess
        if title is None or title.split("\n")[0] != n:
            fail(name, "frame %d: tooltip %r does not start with the name %r" % (i, title, n))
            return excess
        if label is not None and label != n and not (label.endswith("..") and n.startswith(label[:-2])):
            fail(name, "frame %d: label %r is not the name %r shortened" % (i, label, n))
            return excess
    return excess


def check(name, src, out, args=(), allow_excess=False, min_width=0.1):
    """Converts @src with @args into @out and checks the picture; its frames
    (or None when it failed)."""
    rc, _, err = run("convert", "-t", "svg", "-o", out, *args, src)
    if rc != 0:
        # Refused as the folded writer refuses it (no metric with values).
        frc, _, ferr = run("convert", "-t", "folded", "-o", os.devnull, *args, src)
        if frc and ferr.split("profdb_convert: ")[-1].replace("folded stacks", "") == \
                err.split("profdb_convert: ")[-1].replace("an SVG flame graph", ""):
            print("refused like folded: %s: %s" % (name, err.strip()))
            counts["refused"] += 1
        else:
            fail(name, "convert failed (%d): %s" % (rc, err.strip()))
        return None
    try:
        root, frames = parse(out)
    except xml.parsers.expat.ExpatError as e:
        fail(name, "expat: %s" % e)
        return None
    counts["pictures"] += 1
    counts["frames"] += len(frames)
    width = float(root.get("data-width", "nan"))
    if not frames or frames[0][0].get("data-d") != "0":
        fail(name, "no root frame first")
        return None
    if abs(float(frames[0][1]["width"]) - width) > 0.006:
        fail(name, "the root is %s px wide, the picture %r" % (frames[0][1]["width"], width))
    metric = [a for a in args if a.startswith("-m")]
    rc, tree, err = run("tree", "--json", "-d", "0", *(["-m", args[args.index("-m") + 1]] if metric else []), src)
    if rc == 0:
        total = json.loads(tree)["total"]
        if total is not None and not close(float(frames[0][0]["data-v"]), float(total)):
            fail(name, "root value %s, `profdb tree` total %r" % (frames[0][0]["data-v"], total))
    else:
        fail(name, "profdb tree failed: %s" % err.strip())
    counts["excess"] += check_frames(name, frames, width, min_width, allow_excess)
    check_script(name, out, root, frames, width)
    return frames


def spans(frames):
    """What the script draws each frame as: max(value, own part + the
    children's spans); and each frame's parent."""
    v = [float(f[0]["data-v"]) for f in frames]
    s = [float(f[0]["data-s"]) for f in frames]
    d = [int(f[0]["data-d"]) for f in frames]
    par, st = [-1] * len(frames), []
    for i in range(len(frames)):
        while st and d[st[-1]] >= d[i]:
            st.pop()
        par[i] = st[-1] if st else -1
        st.append(i)
    sub = [0.0] * len(frames)
    sp = [0.0] * len(frames)
    for i in reversed(range(len(frames))):
        sp[i] = max(v[i], s[i] + sub[i])
        if par[i] >= 0:
            sub[par[i]] += sp[i]
    return sp, par


def check_script(name, out, root, frames, width):
    """The page's script, run by node on tests/svg_script.js's stand-in
    DOM with #search=NAME&zoom=FRAME: the frame zoomed fills the width,
    its subtree scaled, its ancestors dimmed at full width, every other
    frame hidden; the matches marked and their share shown; a click zooms
    into the frame clicked and writes the search and zoom into the URL."""
    if not NODE:
        counts["script_skipped"] += 1
        return
    sp, par = spans(frames)
    d = [int(f[0]["data-d"]) for f in frames]
    names = [f[0]["data-n"] for f in frames]
    inner = [i for i in range(1, len(frames)) if d[i] >= 2 and i + 1 < len(frames) and d[i + 1] > d[i]]
    z = inner[0] if inner else len(frames) - 1
    ident = lambda n: re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)
    plain = [n for n in names[1:] if ident(n)]
    term = plain[-1] if plain else ""
    if z + 1 < len(frames) and ident(names[z]) and ident(names[z + 1]):
        term = "^(%s|%s)$" % (names[z], names[z + 1])   # a match inside a match
    click = z + 1 if z + 1 < len(frames) and d[z + 1] > d[z] else 0
    text = open(out, encoding="utf-8").read()
    script = text[text.index("<![CDATA[") + 9:text.index("]]></script>")]
    job = {"root": root, "frames": [[f[0], f[1], f[3], f[2]] for f in frames], "script": script,
           "hash": "search=%s&zoom=%d" % (term, z), "click": click}
    # Run later, with every other picture's, by one node process.
    scripts.append((name, job, lambda got: check_script_result(name, frames, width, sp, par, d,
                                                               names, z, term, click, got)))


def run_scripts():
    """Every picture's script in one node process (tests/svg_script.js),
    each result checked by the function check_script left for it."""
    if not scripts:
        return
    p = subprocess.run([NODE, os.path.join(os.path.dirname(__file__), "svg_script.js")],
                       input=json.dumps([job for _, job, _ in scripts]).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = json.loads(p.stdout) if p.returncode == 0 else []
    if len(results) != len(scripts):
        fail("node", "%d results for %d pictures (exit %d): %s" % (
            len(results), len(scripts), p.returncode, p.stderr.decode(errors="replace")[-800:]))
        return
    for (name, _, verify), got in zip(scripts, results):
        if "error" in got:
            fail(name, "the script failed under node: %s" % got["error"][-800:])
            continue
        counts["scripts"] += 1
        verify(got)


def check_script_result(name, frames, width, sp, par, d, names, z, term, click, got):
    ancestors = set()
    a = par[z]
    while a >= 0:
        ancestors.add(a)
        a = par[a]
    end = z + 1
    while end < len(frames) and d[end] > d[z]:
        end += 1
    left = 10 + 0.0
    for i, g in enumerate(got["frames"]):
        if i in ancestors:
            ok = g["shown"] and abs(g["x"] - left) < 0.01 and abs(g["width"] - width) < 0.01 \
                and "up" in g["classes"]
        elif z <= i < end:
            ok = g["shown"] and abs(g["width"] - sp[i] * width / sp[z]) < 0.011
            ok = ok and (i != z or abs(g["x"] - left) < 0.01)
        else:
            ok = not g["shown"]
        if not ok:
            fail(name, "#zoom=%d: frame %d (%s) drawn as %r" % (z, i, names[i], g))
            return
    matched, total, until = set(), 0.0, 0
    for i in range(1, len(frames)):
        if term and re.search(term, names[i]):
            matched.add(i)
            if i >= until:
                total += float(frames[i][0]["data-v"])
                until = i + 1
                while until < len(frames) and d[until] > d[i]:
                    until += 1
    marked = set(i for i, g in enumerate(got["frames"]) if "m" in g["classes"])
    v0 = float(frames[0][0]["data-v"])
    want = "Matched: %.2f %%" % (100 * total / v0 if v0 else 0) if term else ""
    if marked != matched or got["matched"] != want:
        fail(name, "#search=%s: frames %r marked, %r match; shown %r, want %r"
             % (term, sorted(marked)[:10], sorted(matched)[:10], got["matched"], want))
    after = got["clicked"]
    parts = (["search=" + urllib.parse.quote(term, safe="-_.!~*'()")] if term else []) + \
        (["zoom=%d" % click] if click else [])
    c = after["frames"][click]
    if not c["shown"] or abs(c["x"] - left) > 0.01 or abs(c["width"] - width) > 0.01 or \
            after["hash"] != ("#" + "&".join(parts) if parts else ""):
        fail(name, "a click on frame %d: drawn as %r, the URL %r" % (click, c, after["hash"]))


HOSTILE = (b"events: Ir\n"
           b"fn=main\n1 10\ncfn=a<b>&\"c'\ncalls=1 2\n2 300\ncfn=bad\xffbyte\xef\xbf\xbe\ncalls=1 3\n3 50\n"
           b"cfn=" + b"long" * 750 + b"\ncalls=1 4\n4 20\n"
           b"fn=a<b>&\"c'\n2 100\ncfn=main\ncalls=1 1\n5 200\n"
           b"fn=bad\xffbyte\xef\xbf\xbe\n3 50\n"
           b"fn=" + b"long" * 750 + b"\n4 20\n")


def generated():
    os.makedirs(WORK, exist_ok=True)
    w = lambda *p: os.path.join(WORK, *p)
    subprocess.run([MKSAMPLE, "sample", w("sample")], check=True)
    subprocess.run([MKSAMPLE, "synth", w("synth"), "3", "400", "2", "0.5", "0"], check=True)
    check("sample", w("sample"), w("sample.svg"))
    ice = check("sample --icicle", w("sample"), w("sample-icicle.svg"), ("--icicle",))
    if ice:
        ys = [float(f[1]["y"]) for f in ice]
        if ys[0] != min(ys):
            fail("sample --icicle", "the root is not at the top")
    one = check("sample --profiles 0", w("sample"), w("sample-p0.svg"), ("--profiles", "0"))
    check("synth", w("synth"), w("synth.svg"), allow_excess=True)
    for fmt, out in (("hpctk4", "chain-db"), ("pre", "chain-pre"), ("hpcrun", "chain.hpcrun"),
                     ("cube", "chain.cubex"), ("callgrind", "chain.cg")):
        if subprocess.run([MKCHAIN, fmt, "300", "every", w(out)], stderr=subprocess.DEVNULL).returncode:
            print("skip: profdb-mkchain %s (not in this build)" % fmt)
            counts["skipped"] += 1
            continue
        rc, _, err = run("metrics", w(out))
        if rc:   # written, but this build cannot read it (-Dexpat=disabled: Cube)
            print("skip: chain %s: %s" % (fmt, err.strip()))
            counts["skipped"] += 1
            continue
        frames = check("chain " + fmt, w(out), w(out + ".svg"))
        if frames and len(frames) < 290:
            fail("chain " + fmt, "%d frames drawn of a 300-frame chain" % len(frames))
    if MKCUBE:
        subprocess.run([MKCUBE, w("sample.cubex")], check=True)
        check("cube sample", w("sample.cubex"), w("sample-cube.svg"))
    with open(w("hostile.cg"), "wb") as f:
        f.write(HOSTILE)
    frames = check("hostile names", w("hostile.cg"), w("hostile.svg"))
    names = set(f[0]["data-n"] for f in frames or [])
    for want in ("a<b>&\"c'", "bad\ufffdbyte\ufffd", "long" * 750):
        if frames and want not in names:
            fail("hostile names", "no frame named %r (names: %r)" % (want[:40], sorted(names)))
    # A bigger minimum draws fewer frames, and none narrower than it.
    all_ = check("synth", w("synth"), w("synth2.svg"), ("--min-width", "2"), True, 2.0)
    few = parse(w("synth.svg"))[1]
    if all_ is not None and not len(all_) < len(few):
        fail("synth --min-width 2", "%d frames, %d at 0.1 px" % (len(all_), len(few)))


def refusals(path):
    """Every min/max/none metric with values of @path refused, an existing
    output kept. Returns how many."""
    rc, out, _ = run("metrics", "--json", path)
    if rc:
        return 0
    n = 0
    for m in json.loads(out)["metrics"]:
        if m["combine"] == "sum" or not m.get("has_values"):
            continue
        target = os.path.join(WORK, "refused.svg")
        with open(target, "w") as f:
            f.write("kept\n")
        rc, _, err = run("convert", "-t", "svg", "-m", str(m["id"]), "-o", target, path)
        name = "%s metric %d (%s)" % (os.path.basename(path), m["id"], m["combine"])
        if rc == 0 or "adds up" not in err or "combines by " + m["combine"] not in err:
            fail(name, "not refused as it should be (%d): %s" % (rc, err.strip()))
        if open(target).read() != "kept\n":
            fail(name, "the existing output was replaced")
        if [f for f in os.listdir(WORK) if f.startswith(".refused.svg.")]:
            fail(name, "a temporary file was left behind")
        n += 1
        if n == 3:
            break
    return n


def main():
    generated()
    files = real_samples(DATA)
    if not files:
        print("skip: no real samples under %r (PROFDB_SAMPLE_DATA)" % DATA)
    lacks = None
    try:
        from samples import build_lacks
        lacks = build_lacks
    except ImportError:
        pass
    for i, path in enumerate(files):
        name = os.path.relpath(path, DATA)
        if lacks and lacks(path):
            print("skip %s: this build has no %s" % (name, lacks(path)))
            counts["skipped"] += 1
            continue
        rc, _, err = run("metrics", path)
        if rc:   # damaged or unsupported on purpose: the readers' tests
            print("skip %s: does not open: %s" % (name, err.strip()))
            counts["skipped"] += 1
            continue
        check(name, path, os.path.join(WORK, "real%d.svg" % i), allow_excess=True)
        counts["refused"] += refusals(path)
    run_scripts()
    print("svg: %(pictures)d pictures, %(frames)d frames, %(excess)d frames whose children "
          "exceed them, %(refused)d metrics refused, %(skipped)d inputs skipped; the script "
          "run by node on %(scripts)d pictures, skipped on %(script_skipped)d" % counts)
    if counts["script_skipped"]:
        print("skip: the script checks need node (nodejs), not found")
    if failures:
        print("%d failures" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
