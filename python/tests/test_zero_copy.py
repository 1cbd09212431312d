"""Zero copy, measured: the arrays' memory is the file mapping, their base
chain ends at the Database, and reading every value does not grow the
process's anonymous memory."""
import gc

import numpy as np

import profdb
from conftest import mksample


def mapping_of(address):
    """The /proc/self/maps line holding address (None when none does)."""
    with open("/proc/self/maps") as f:
        for line in f:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if lo <= address < hi:
                return line
    return None


def rss_anon_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("RssAnon:"):
                return int(line.split()[1])
    return 0


def test_values_lie_in_the_mapping_of_profile_db(sample):
    with profdb.open(sample) as db:
        idx, rec = db.values(profile=1)
        for arr, path in ((rec, "profile.db"), (db.trace(1), "trace.db")):
            base = arr.base
            assert isinstance(base, profdb.View) and base.owner is db and base.database is db
            address = arr.__array_interface__["data"][0]
            assert address == base.address
            line = mapping_of(address)
            assert line is not None and line.rstrip().endswith("/" + path), line
            assert not arr.flags.writeable and not arr.flags.owndata
            try:
                arr.flags.writeable = True
                raise AssertionError("a read-only mapping became writable")
            except ValueError:
                pass
            del arr, base
        # the buffer protocol gives the same memory, strides included
        m = memoryview(rec.base)
        assert m.readonly and m.strides == (rec.strides[0],) and m.shape == (len(rec),)
        assert np.asarray(rec.base)["value"].tolist() == rec["value"].tolist()
        del m, idx, rec


def test_views_and_slices_keep_the_chain(sample):
    with profdb.open(sample) as db:
        rec = db.values(profile=1).records
        part = rec[2:5]["value"]
        b = part
        while isinstance(b, np.ndarray):
            b = b.base
        assert isinstance(b, profdb.View) and b.database is db
        del rec, part, b


def test_rss_anon_does_not_grow_with_the_values_read():
    # 40 profiles x 20000 contexts x 12 metric ids x 0.5 = 4.8 M values, 48 MB
    path = mksample("synth", 40, 20000, 4, 0.5, 10)
    with profdb.open(path) as db:
        gc.collect()
        before = rss_anon_kb()
        total, n = 0.0, 0
        for p in range(db.counts.profiles):
            idx, rec = db.values(profile=p)
            total += float(rec["value"].sum())       # touches every value
            n += len(rec)
            del idx, rec
        grown = rss_anon_kb() - before
        assert n == db.counts.values and n > 4_000_000
        assert grown < 8 * 1024, "RssAnon grew %d kB reading %d values" % (grown, n)
