"""Several Python threads on one Database (the GIL is released inside the
library): same answers as one thread, and close() refuses while a call
is running."""
import threading

import numpy as np

import profdb
from conftest import mksample


def test_threads_read_one_database():
    path = mksample("synth", 8, 5000, 2, 0.5, 100)
    db = profdb.open(path)
    expect = [float(db.values(profile=p).records["value"].sum())
              for p in range(db.counts.profiles)]
    expect_stats = len(db.stats(threads=1))
    results, errors = {}, []

    def work(k):
        try:
            for _ in range(3):
                got = [float(db.values(profile=p).records["value"].sum())
                       for p in range(db.counts.profiles)]
                st = db.stats(threads=1)
                results[k] = (got, len(st))
                df = db.dataframe(profiles=[k % db.counts.profiles])
                assert len(df) > 0
                del st, df
        except Exception as e:       # reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors
    for got, n in results.values():
        assert got == expect and n == expect_stats
    db.close()


def test_gil_is_released_during_statistics():
    path = mksample("synth", 40, 20000, 4, 0.5, 10)
    db = profdb.open(path)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)
            stop.wait(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    st = db.stats(threads=1)              # tens of ms over 4.8 M values
    stop.set()
    t.join()
    assert len(st) > 0 and len(ticks) > 3
    del st
    db.close()
    assert np.isfinite(len(ticks))


def test_match_from_threads_agrees():
    """match() releases the GIL and marks both handles busy; threads
    matching the same pair at once all get the one answer."""
    a = profdb.open(mksample("synth", 4, 3000, 2, 0.5, 0, 1))
    b = profdb.open(mksample("synth", 4, 3000, 2, 0.5, 0, 2))
    want = a.match(b)
    got = [None] * 4

    def run(i):
        got[i] = b.match(a) if i % 2 else a.match(b)

    ts = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i, m in enumerate(got):
        if i % 2:
            assert m.counts == want.counts._replace(only_a=want.counts.only_b,
                                                    only_b=want.counts.only_a)
        else:
            assert np.array_equal(m.pairs, want.pairs) and m.counts == want.counts
            assert np.array_equal(m.values["inclusive_a"], want.values["inclusive_a"],
                                  equal_nan=True)
    assert want.counts.rows > 1
    a.close()
    b.close()
