#!/usr/bin/env python3
"""`profdb info` reads the headers only; `info --values` reads every block.

usage: info_headers_check.py PROFDB MKSAMPLE WORKDIR

The writer's HPCToolkit 4.0 sample is copied and every byte of its value
blocks (profile.db: context index and values of each profile; but for the
few records the open compares with the other files) and of its trace lines
(trace.db) is overwritten with garbage that no reader of those blocks
accepts: index entries that do not start at value 0, samples that go
back in time. The headers stay intact. `info` must still print the counts
of the intact database (each from a header), and `info --values`, which
reads and checks every block, must fail naming a block.
"""
import shutil
import struct
import subprocess
import sys


def u32(b, at):
    return struct.unpack_from("<I", b, at)[0]


def u64(b, at):
    return struct.unpack_from("<Q", b, at)[0]


def section(b, at):
    """(pointer, size) of the section pair at header offset @at."""
    return u64(b, at + 8), u64(b, at)


def array(b, sec_ptr):
    """(first record, count, stride) of the record array a section opens with."""
    return u64(b, sec_ptr), u32(b, sec_ptr + 8), b[sec_ptr + 12]


def garble_profiles(path):
    """Fills each profile's index (12-byte records) and values (10-byte
    records) with 0xAB bytes, but for the records the open reads to see
    that the files belong together (the last index entry, the first and
    last value); returns how many bytes changed."""
    b = bytearray(open(path, "rb").read())
    first, n, stride = array(b, section(b, 0x10)[0])
    changed = 0
    for i in range(n):
        rec = first + i * stride
        n_val, p_val, n_ctx, p_idx = u64(b, rec), u64(b, rec + 8), u32(b, rec + 16), u64(b, rec + 24)
        for at, length in ((p_idx, 12 * (n_ctx - 1)), (p_val + 10, 10 * (n_val - 2))):
            if length > 0:
                b[at:at + length] = b"\xab" * length
                changed += length
    open(path, "wb").write(b)
    return changed


def garble_traces(path):
    """Rewrites each trace line's samples with times that decrease."""
    b = bytearray(open(path, "rb").read())
    first, n, stride = array(b, section(b, 0x10)[0])
    changed = 0
    for i in range(n):
        rec = first + i * stride
        start, end = u64(b, rec + 8), u64(b, rec + 16)
        count = (end - start) // 12
        for k in range(count):
            struct.pack_into("<QI", b, start + 12 * k, 1000 - k, 0xABABABAB)
        changed += end - start
    open(path, "wb").write(b)
    return changed


def run(profdb, *args):
    p = subprocess.run([profdb] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    profdb, mksample, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    good = work + "/sample.db"
    subprocess.run([mksample, "sample", good], check=True)
    fails = []

    rc, intact, err = run(profdb, "info", good)
    rc_v, intact_values, err_v = run(profdb, "info", "--values", good)
    if rc or rc_v or intact != intact_values:
        fails.append("intact database: info and info --values differ (%d, %d):\n%s\n%s%s%s"
                     % (rc, rc_v, intact, intact_values, err, err_v))
    if "values:    95\n" not in intact or "samples:   6\n" not in intact:
        fails.append("intact database: unexpected counts:\n" + intact)

    bad = work + "/garbled.db"
    shutil.copytree(good, bad)
    n_prof = garble_profiles(bad + "/profile.db")
    n_trace = garble_traces(bad + "/trace.db")
    if n_prof == 0 or n_trace == 0:
        fails.append("the sample has no value blocks (%d bytes) or trace lines (%d bytes)"
                     % (n_prof, n_trace))

    rc, out, err = run(profdb, "info", bad)
    # Only the sizes of the copied files may differ (they do not).
    if rc != 0 or out != intact:
        fails.append("info on garbled blocks: exit %d, want 0 and the intact output:\n%s%s"
                     % (rc, out, err))
    rc, out, err = run(profdb, "info", "--json", bad)
    if rc != 0 or '"values": 95' not in out or '"samples": 6' not in out:
        fails.append("info --json on garbled blocks: exit %d:\n%s%s" % (rc, out, err))

    rc, out, err = run(profdb, "info", "--values", bad)
    if rc != 1 or "profile value block" not in err:
        fails.append("info --values on garbled value blocks: exit %d, want 1 and an error "
                     "naming a profile value block:\n%s%s" % (rc, out, err))

    # With the value blocks intact, --values reaches the garbled trace lines.
    shutil.copy(good + "/profile.db", bad + "/profile.db")
    rc, out, err = run(profdb, "info", "--values", bad)
    if rc != 1 or "not sorted by time" not in err:
        fails.append("info --values on garbled trace lines: exit %d, want 1 and an error "
                     "on the order of a trace line:\n%s%s" % (rc, out, err))

    for f in fails:
        print("FAIL", f)
    print("%d checks failed" % len(fails) if fails else "ok: info read headers only")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
