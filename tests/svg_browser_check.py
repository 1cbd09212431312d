#!/usr/bin/env python3
"""The SVG pictures (`profdb convert -t svg` and `-t timeline`) in a real
browser: headless Chromium, where installed (Debian's `chromium`;
scripts/deps.sh --tests installs it), else the test is skipped (exit 77)
and says so.

usage: svg_browser_check.py PROFDB MKSAMPLE WORK [DATA_DIR [SAMPLE_PROG]]

Pictures: every one scripts/demo.sh draws (the writer's HPCToolkit
sample as a flame graph and as a timeline; the flame graph of a Callgrind
profile of SAMPLE_PROG, recorded here where valgrind is installed, else
skipped and said), the sample's --icicle flame graph, and
hpcviewer-issue-233 under DATA_DIR when present (flame graph and
timeline). For each timeline: a screenshot that is not blank, no script
error, and, for those under 1 MiB, the page's DOM after its script ran
holding every rect of the file. For each flame graph:
- a screenshot is not blank (more than a few colours in it) and the page
  logged no script error (Chromium's console on standard error);
- `--dump-dom` of the picture opened as FILE#search=^(A|B)$&zoom=Z, with
  Z a frame that has a child and A, B the names of Z and that child: the
  frames marked as matches are exactly those named A or B, frame Z is
  drawn from the left edge over the whole width, its ancestors dimmed,
  the frames outside its subtree hidden, and the share the page shows is
  that of the outermost matches in the total (B inside A counted once).
Exit 0 ok, 1 failures, 77 no Chromium.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import urllib.parse
import zlib

PROFDB, MKSAMPLE, WORK = sys.argv[1:4]
DATA = sys.argv[4] if len(sys.argv) > 4 else ""
SAMPLE_PROG = sys.argv[5] if len(sys.argv) > 5 else ""
failures = []


def fail(name, msg):
    failures.append(name)
    print("FAIL %s: %s" % (name, msg))


def chromium(*args):
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
           "--v=0", "--virtual-time-budget=3000", "--user-data-dir=" + os.path.join(WORK, "profile")]
    p = subprocess.run(cmd + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def png_colours(path):
    """The distinct pixel colours of an 8-bit RGB(A) PNG."""
    data = open(path, "rb").read()
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            bpp = {2: 3, 6: 4}[ctype]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, colours = zlib.decompress(idat), w * bpp, None, set()
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        prev = prev or bytearray(stride)
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        colours.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp * 7))
        prev = line
    return colours


def frames_of(dom):
    """(attributes text, rect text) of each frame, in document order."""
    return re.findall(r'<g ([^>]*class="f[^"]*"[^>]*)>.*?(<rect [^>]*>)', dom, re.S)


def attr(text, name):
    m = re.search(r'\b%s="([^"]*)"' % name, text)
    return m.group(1) if m else None


def unescape(s):
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")


def screenshot(name, svg):
    """A screenshot that is not blank, and no script error logged."""
    shot = os.path.join(WORK, name + ".png")
    _, err = chromium("--window-size=1220,600", "--screenshot=" + shot, "file://" + svg)
    errors = [l for l in err.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    if errors:
        fail(name, "the page logged: %s" % errors[:3])
    if not os.path.exists(shot) or len(png_colours(shot)) < 5:
        fail(name, "the screenshot is blank")


def check_timeline(name, svg):
    screenshot(name, svg)
    if os.path.getsize(svg) > 1 << 20:
        print("ok %s: screenshot (no DOM count above 1 MiB)" % name)
        return
    dom, _ = chromium("--dump-dom", "file://" + svg)
    want = len(re.findall(r"<rect [^>]*data-fn=", open(svg, encoding="utf-8").read()))
    got = len(re.findall(r"<rect [^>]*data-fn=", dom))
    if not want or got != want:
        fail(name, "%d rects in the page's DOM, %d in the file" % (got, want))
    print("ok %s: %d rects" % (name, want))


def check(name, svg):
    screenshot(name, svg)
    text = open(svg, encoding="utf-8").read()
    frames = frames_of(text)
    d = [int(attr(g, "data-d")) for g, _ in frames]
    names = [unescape(attr(g, "data-n")) for g, _ in frames]
    inner = [i for i in range(1, len(frames) - 1) if d[i + 1] > d[i]]
    z = next((i for i in inner if d[i] >= 2), inner[0] if inner else None)
    if z is None:
        fail(name, "no frame with a child")
        return
    term = "^(%s|%s)$" % (re.escape(names[z]), re.escape(names[z + 1]))
    url = "file://%s#search=%s&zoom=%d" % (svg, urllib.parse.quote(term, safe=""), z)
    dom, err = chromium("--dump-dom", url)
    got = frames_of(dom)
    if len(got) != len(frames):
        fail(name, "%d frames in the page's DOM, %d in the file" % (len(got), len(frames)))
        return
    end = z + 1
    while end < len(frames) and d[end] > d[z]:
        end += 1
    ancestors, a = set(), z
    for i in range(z - 1, -1, -1):
        if d[i] < d[a]:
            ancestors.add(i)
            a = i
    for i, (g, rect) in enumerate(got):
        classes = attr(g, "class").split()
        hidden = "display: none" in (attr(g, "style") or "")
        want_m = names[i] in (names[z], names[z + 1]) and i > 0
        if ("m" in classes) != want_m:
            fail(name, "frame %d (%s): marked %s" % (i, names[i], "m" in classes))
            return
        if i in ancestors and (hidden or "up" not in classes or attr(rect, "width") != "1200.00"):
            fail(name, "ancestor %d (%s) of the zoomed frame: %s %s" % (i, names[i], g, rect))
            return
        if not z <= i < end and i not in ancestors and not hidden:
            fail(name, "frame %d (%s) outside the zoomed subtree is shown" % (i, names[i]))
            return
    zr = got[z][1]
    if attr(zr, "x") != "10.00" or attr(zr, "width") != "1200.00":
        fail(name, "the zoomed frame is drawn as %s" % zr)
    v = [float(attr(g, "data-v")) for g, _ in frames]
    total, until = 0.0, 0   # the outermost matches
    for i in range(1, len(frames)):
        if i >= until and names[i] in (names[z], names[z + 1]):
            total += v[i]
            until = i + 1
            while until < len(frames) and d[until] > d[i]:
                until += 1
    share = "Matched: %.2f %%" % (100 * total / v[0])
    if share not in dom:
        fail(name, "the page does not show %r" % share)
    print("ok %s: %d frames, zoom %d, search %s" % (name, len(frames), z, term))


def main():
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        print("skip: chromium not installed (scripts/deps.sh --tests installs it)")
        return 77
    os.makedirs(WORK, exist_ok=True)
    sample = os.path.join(WORK, "sample")
    subprocess.run([MKSAMPLE, "sample", sample], check=True)
    jobs = [("sample", sample, "svg", []), ("sample-trace", sample, "timeline", []),
            ("sample-icicle", sample, "svg", ["--icicle"])]
    cg = os.path.join(WORK, "callgrind.out.sample-prog")
    if SAMPLE_PROG and shutil.which("valgrind"):
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg, SAMPLE_PROG],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        jobs.append(("sample-prog", cg, "svg", []))
    else:
        print("skip: sample-prog (no valgrind or no sample program)")
    db233 = os.path.join(DATA, "hpctoolkit", "v4", "hpcviewer-issue-233")
    if DATA and os.path.isdir(db233):
        jobs += [("issue-233", db233, "svg", []), ("issue-233-trace", db233, "timeline", [])]
    else:
        print("skip: issue-233 (no sample data)")
    for name, src, kind, args in jobs:
        svg = os.path.abspath(os.path.join(WORK, name + ".svg"))
        subprocess.run([PROFDB, "convert", "-t", kind, "-o", svg] + args + [src], check=True)
        (check_timeline if kind == "timeline" else check)(name, svg)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
