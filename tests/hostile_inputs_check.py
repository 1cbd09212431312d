#!/usr/bin/env python3
"""Hostile and changing input files through the `profdb` tool.

usage: hostile_inputs_check.py PROFDB DATA_DIR WORK_DIR [MKCUBE]

- A FIFO, a dangling symbolic link and a self-looping one in every position
  a reader opens (meta.db, profile.db, cct.db, trace.db of a 4.0 database,
  the pre-release trace.db, an hpcrun .hpctrace, the PATH itself): exit 1
  within a second, with a message naming the file.
- A file truncated while `dump` reads it: exit 1 with one message naming
  it ("changed size while being read"); with --copy the same run succeeds.
- 60 single-bit flips in the deflate stream and trailer of a .cubex made
  with `gzip -9 -c`: every flip that changes what `dump --csv` prints is an
  error; a zeroed CRC-32 and a cut trailer are errors naming the member.
- Messages: a gzip .cubex cut by 8 bytes, a damaged gzip header on Cube
  and on Callgrind, an hpcrun folder holding a FIFO.
- convert: a refused conversion leaves an existing output file as it was
  and creates none (a Chrome trace of a profile without traces);
  `--separate -o /dev/null` and `-o EXISTING_FILE` are refused.
Cases whose sample is absent are skipped visibly. Exit 0 ok, 1 failures,
77 nothing could run.
"""
import gzip
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from samples import build_lacks  # noqa: E402  tests/samples.py, beside this script

PROFDB, DATA, WORK = sys.argv[1:4]
MKCUBE = sys.argv[4] if len(sys.argv) > 4 else None
DATA = os.environ.get("PROFDB_SAMPLE_DATA") or DATA
failures = []
ran = 0


def fail(case, msg):
    failures.append("%s: %s" % (case, msg))
    print("FAIL %s: %s" % (case, msg))


def run(args, timeout=10, stdin=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run([PROFDB] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, stdin=subprocess.DEVNULL,
                           env=dict(os.environ, LC_ALL="C"))
    except subprocess.TimeoutExpired:
        return None, b"", "timed out after %d s" % timeout, timeout
    return p.returncode, p.stdout, p.stderr.decode(errors="replace"), time.monotonic() - t0


def expect_error(case, args, needles, timeout=1.0, status=1):
    """Exit @status within @timeout seconds, stderr holding every needle."""
    global ran
    ran += 1
    rc, _, err, took = run(args, timeout=max(5, int(timeout) + 4))
    if rc != status:
        fail(case, "exit %s, expected %d (%s)" % (rc, status, err.strip()[:200]))
    elif took > timeout:
        fail(case, "took %.2f s, more than %.1f s" % (took, timeout))
    for n in needles:
        if n not in err:
            fail(case, "message %r does not contain %r" % (err.strip()[:300], n))
    return err


def sample(*parts):
    p = os.path.join(DATA, *parts)
    if not os.path.exists(p):
        print("skip: %s absent" % p)
        return None
    if build_lacks(p):
        print("skip: %s: this build has no %s" % (p, build_lacks(p)))
        return None
    return p


def fresh(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    return d


def copy_dir(src, name):
    d = fresh(name)
    shutil.copytree(src, d)
    for f in os.listdir(d):
        os.chmod(os.path.join(d, f), 0o644)
    return d


def replace_with(path, kind):
    os.unlink(path)
    if kind == "fifo":
        os.mkfifo(path)
        return "FIFO"
    if kind == "dangling":
        os.symlink(os.path.basename(path) + ".gone", path)
        return "does not exist"
    os.symlink(os.path.basename(path), path)   # loops to itself
    return "loops"


# ---- FIFOs and broken links in every position --------------------------------

# Links are checked where format detection (lib/query) or the input layer
# (lib/core) meets them: the first file a database folder is known by, the
# path itself, the files of an hpcrun folder.
ALL_KINDS = ("fifo", "dangling", "loop")


def positions():
    v4 = sample("hpctoolkit", "v4", "hpctoolkit-tests-small")
    if v4:
        for f in ("meta.db", "profile.db", "cct.db", "trace.db"):
            kinds = ALL_KINDS if f == "meta.db" else ("fifo",)
            yield "4.0 " + f, v4, f, "info", kinds
            yield "4.0 " + f, v4, f, "dump --csv", kinds
    pre = sample("hpctoolkit", "prerelease", "hpcviewer-prof2")
    if pre:
        yield "pre-release trace.db", pre, "trace.db", "trace", ("fifo",)
    hr = sample("hpctoolkit", "hpcrun", "hpctoolkit-tests-small.m")
    if hr:
        trace = [f for f in os.listdir(hr) if f.endswith(".hpctrace")][0]
        yield "hpcrun .hpctrace", hr, trace, "info", ALL_KINDS


def check_special_files():
    n = 0
    for what, src, member, cmd, kinds in positions():
        for kind in kinds:
            d = copy_dir(src, "special-%d" % n)
            n += 1
            says = replace_with(os.path.join(d, member), kind)
            case = "%s as a %s (%s)" % (what, kind, cmd)
            expect_error(case, cmd.split() + [d], [member, says])
    # the PATH itself
    for kind in ("fifo", "dangling", "loop"):
        p = os.path.join(fresh("special-path"), "x.cubex")
        os.makedirs(os.path.dirname(p))
        open(p, "w").close()
        says = replace_with(p, kind)
        expect_error("PATH as a %s" % kind, ["info", p], ["x.cubex", says])


# ---- truncation while reading ----------------------------------------------------

def check_truncation():
    global ran
    src = sample("cube", "Score-P-summary.cubex")
    if not src:
        return
    work = fresh("truncate")
    os.makedirs(work)
    victim = os.path.join(work, "victim.cubex")
    for copy in (False, True):
        shutil.copyfile(src, victim)
        ran += 1
        args = [PROFDB, "dump", "--csv"] + (["--copy"] if copy else []) + [victim]
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # dump fills the pipe and waits for it to drain: then the file
        # shrinks under it, and the reading resumes
        time.sleep(1.0)
        os.truncate(victim, 0)
        out = p.stdout.read()
        err = p.stderr.read().decode(errors="replace")
        rc = p.wait()
        case = "truncated while dump reads it" + (" (--copy)" if copy else "")
        if copy:
            if rc != 0:
                fail(case, "exit %d: %s" % (rc, err.strip()[:200]))
            continue
        if len(out) < 65536:
            print("skip %s: dump wrote %d bytes, finished before the truncation" %
                  (case, len(out)))
            continue
        if rc != 1:
            fail(case, "exit %d, expected 1 (%s)" % (rc, err.strip()[:200]))
        lines = err.strip().splitlines()
        if len(lines) != 1 or "victim.cubex changed size while being read" not in err:
            fail(case, "expected one message naming the file, got %r" % err[:300])


# ---- gzip integrity ---------------------------------------------------------------

def gzip_cubex():
    src = sample("cube", "extrap-lulesh.p27.size25.r1.cubex") or sample("cube", "MetaCG-001.cubex")
    plain = os.path.join(WORK, "plain.cubex")
    if src:
        shutil.copyfile(src, plain)
    elif MKCUBE:
        subprocess.run([MKCUBE, plain], check=True)
    else:
        return None, None
    with open(plain, "rb") as f:
        data = f.read()
    z = subprocess.run(["gzip", "-9", "-c"], input=data, stdout=subprocess.PIPE, check=True).stdout
    return plain, z


def check_gzip():
    global ran
    if "expat" in os.environ.get("PROFDB_BUILD_LACKS", "").split():
        print("skip gzip .cubex checks: this build has no expat")
        return
    plain, z = gzip_cubex()
    if plain is None:
        return
    if "zlib" in os.environ.get("PROFDB_BUILD_LACKS", "").split():
        path = os.path.join(WORK, "flip.cubex")
        with open(path, "wb") as f:
            f.write(z)
        expect_error("gzip .cubex without zlib", ["info", path], ["flip.cubex", "no zlib"],
                     timeout=10)
        return
    rc, want, err, _ = run(["dump", "--csv", plain], timeout=60)
    if rc != 0:
        fail("gzip: plain dump", err.strip()[:200])
        return
    path = os.path.join(WORK, "flip.cubex")
    # the deflate stream starts after the 10-byte header (plus the name
    # gzip -c does not store); 52 flips there, 8 in the trailer
    spots = [10 + (len(z) - 18) * i // 52 for i in range(52)]
    spots += [len(z) - 8 + i for i in range(8)]
    changed = 0
    for i, at in enumerate(spots):
        bad = bytearray(z)
        bad[at] ^= 1 << (i % 8)
        with open(path, "wb") as f:
            f.write(bad)
        ran += 1
        rc, out, err, _ = run(["dump", "--csv", path], timeout=60)
        if rc == 0 and out != want:
            fail("gzip flip at byte %d bit %d" % (at, i % 8),
                 "exit 0 with different output")
        if rc == 0:
            continue
        changed += 1
        if rc != 1 or "flip.cubex" not in err:
            fail("gzip flip at byte %d" % at, "exit %s, message %r" % (rc, err.strip()[:200]))
    print("gzip: %d of %d flips refused" % (changed, len(spots)))
    # the trailer: zeroed CRC-32, wrong ISIZE, cut by 8 bytes
    for case, bad, needle in (
            ("zeroed CRC-32", z[:-8] + b"\0\0\0\0" + z[-4:], "CRC-32"),
            ("wrong ISIZE", z[:-4] + bytes([z[-4] ^ 1]) + z[-3:], "ISIZE"),
            ("cut by 8 bytes", z[:-8], "cut short")):
        with open(path, "wb") as f:
            f.write(bad)
        expect_error("gzip .cubex: " + case, ["info", path],
                     ["flip.cubex", "gzip member 1", needle], timeout=10)
    # a damaged header: reserved flag bits set
    with open(path, "wb") as f:
        f.write(z[:3] + bytes([0xe0]) + z[4:])
    expect_error("gzip .cubex: damaged header", ["info", path],
                 ["flip.cubex", "gzip member 1", "header"], timeout=10)
    # the gzip magic itself damaged: neither tar nor gzip, said as such
    with open(path, "wb") as f:
        f.write(b"\x1f\x8c" + z[2:])
    err = expect_error("gzip .cubex: damaged magic", ["info", path], ["flip.cubex"],
                       timeout=10)
    if "no tar header" in err:
        fail("gzip .cubex: damaged magic", "blames the tar layer: %r" % err.strip()[:200])


def check_callgrind_gzip():
    src = sample("callgrind", "edge", "jfn.out")
    if not src:
        return
    with open(src, "rb") as f:
        z = bytearray(gzip.compress(f.read(), mtime=0))
    z[3] |= 4                           # FEXTRA, with a length past the end
    z[10:10] = b"\xff\xff"
    path = os.path.join(WORK, "profile.out.gz")
    with open(path, "wb") as f:
        f.write(z)
    if "zlib" in os.environ.get("PROFDB_BUILD_LACKS", "").split():
        expect_error("callgrind gzip without zlib", ["info", path],
                     ["profile.out.gz", "no zlib"], timeout=10)
        return
    err = expect_error("callgrind gzip: bad FEXTRA", ["info", path],
                       ["profile.out.gz", "FEXTRA"], timeout=10)
    if "not a supported profile" in err:
        fail("callgrind gzip: bad FEXTRA", "blames the format: %r" % err.strip()[:200])


# ---- messages ---------------------------------------------------------------------

def check_stats_prefix():
    cube = sample("cube", "MetaCG-001.cubex")
    if not cube:
        return
    err = expect_error("stats --check-summary on a Cube file",
                       ["stats", "--check-summary", cube],
                       ["profdb: stats: ", "needs an HPCToolkit 4.0 database"], timeout=10)
    if "profdb stats:" in err:
        fail("stats --check-summary prefix", err.strip())


def check_hpcrun_fifo():
    hr = sample("hpctoolkit", "hpcrun", "hpctoolkit-tests-small.m")
    if not hr:
        return
    d = fresh("hpcrun-fifo")
    os.makedirs(d)
    os.mkfifo(os.path.join(d, "x-0.hpcrun"))
    err = expect_error("hpcrun folder holding only a FIFO", ["info", d], ["x-0.hpcrun", "FIFO"])
    if "no profile found" in err:
        fail("hpcrun folder holding only a FIFO", "says %r" % err.strip())


# ---- convert -------------------------------------------------------------------

def check_convert():
    global ran
    src = sample("cube", "extrap-lulesh.p27.size25.r1.cubex")
    work = fresh("convert")
    os.makedirs(work)
    keep = os.path.join(work, "ex2")
    with open(keep, "w") as f:
        f.write("keep\n")
    if src:
        ran += 1
        rc, _, err, _ = run(["convert", "-t", "folded", "-m", "max_time", "-o", keep, src])
        with open(keep) as f:
            left = f.read()
        if rc == 0:
            print("skip convert refusal: the conversion succeeded (%s)" % src)
        elif left != "keep\n":
            fail("convert refused", "the existing output now holds %r" % left[:40])
        if [f for f in os.listdir(work) if f != "ex2"]:
            fail("convert refused", "left files behind: %s" % os.listdir(work))
    cg = sample("callgrind", "edge", "jfn.out")
    if not cg:
        return
    expect_error("convert --separate -o /dev/null",
                 ["convert", "-t", "callgrind", "--separate", "-o", "/dev/null", cg],
                 ["/dev/null", "not a regular file"], status=2)
    for f in os.listdir("/dev"):
        if f.startswith("null."):
            fail("convert --separate -o /dev/null", "created /dev/%s" % f)
    rc, _, err, _ = run(["convert", "-t", "callgrind", "--separate", "-o", keep, cg])
    ran += 1
    if rc != 2 or "existing file" not in err:
        fail("convert --separate -o EXISTING", "exit %s: %r" % (rc, err.strip()[:200]))
    # a Chrome trace of a profile without traces is refused: no new file,
    # and an existing one as it was
    with open(keep, "w") as f:
        f.write("keep\n")
    for out in (os.path.join(work, "trace.json"), keep):
        rc, _, err, _ = run(["convert", "-t", "chrome", "-o", out, cg])
        ran += 1
        if rc == 0:
            fail("convert -t chrome refused", "converted a profile without traces")
        elif out == keep and open(keep).read() != "keep\n":
            fail("convert -t chrome refused", "the existing output now holds %r" %
                 open(keep).read()[:40])
        elif out != keep and os.path.exists(out):
            fail("convert -t chrome refused", "created %s (%d bytes)" %
                 (out, os.path.getsize(out)))
    # a successful conversion replaces the file, keeping its mode
    os.chmod(keep, 0o640)
    rc, _, err, _ = run(["convert", "-t", "callgrind", "-o", keep, cg])
    ran += 1
    st = os.stat(keep)
    if rc != 0 or st.st_size <= 5 or st.st_mode & 0o777 != 0o640:
        fail("convert -o EXISTING", "exit %s, %d bytes, mode %o: %s" %
             (rc, st.st_size, st.st_mode & 0o777, err.strip()[:200]))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    check_special_files()
    check_truncation()
    check_gzip()
    check_callgrind_gzip()
    check_hpcrun_fifo()
    check_stats_prefix()
    check_convert()
    print("%d checks, %d failures" % (ran, len(failures)))
    if failures:
        return 1
    return 0 if ran else 77


sys.exit(main())
