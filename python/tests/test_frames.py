"""The pandas frames: hatchet's layout, every stored value once."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

import profdb
from conftest import dump
from helpers import dataframe_checks


def frame_name(c):
    """The name column of a context of `profdb dump --json`: its function,
    or the tool's label of an unnamed loop or line scope."""
    if c["function"] or c["type"] not in ("loop", "line"):
        return c["function"]
    where = "%s:%d" % (c["file"].rsplit("/", 1)[-1], c["line"])
    return "loop at " + where if c["type"] == "loop" else where


def test_dataframe_holds_every_stored_value(sample):
    d = dump(sample)
    with profdb.open(sample) as db:
        df = dataframe_checks(db, d["values"])
        assert df.index.names == ["node", "profile"]
        assert "CPUTIME (sec)" in df.columns and "CPUTIME (sec) (inc)" in df.columns
        for col in ("name", "file", "line", "module"):
            assert col in df.columns
        names = {c["id"]: frame_name(c) for c in d["contexts"]}
        by_col = dict(zip([m.id for m in db.metrics if m.has_data],
                          [c for c in df.columns if c not in ("name", "file", "line", "module")]))
        for p, c, m, v in d["values"]:
            cell = df.at[(c, p), by_col[m]]
            assert cell == v or (isinstance(v, str)), (p, c, m, v, cell)
            if c in names:
                assert df.at[(c, p), "name"] == names[c]


def test_dataframe_names_its_contexts_without_the_tree_table(sample):
    d = dump(sample)
    names = {c["id"]: frame_name(c) for c in d["contexts"]}
    with profdb.open(sample) as db:
        db._context_table = lambda: pytest.fail("a frame of stored values walks no tree")
        df = db.dataframe()
        ctx = df.index.get_level_values("node")
        assert len(ctx) == len(df) > 0
        for c, name in zip(ctx.tolist(), df["name"].tolist()):
            if c in names:
                assert name == names[c], c
        # the categories are the frame's own strings, each once
        assert set(df["name"].cat.categories) == set(df["name"])
        assert df["name"].cat.categories.is_unique
        again = db.dataframe(profiles=[1])
        one = df.xs(1, level="profile", drop_level=False)
        assert again["name"].tolist() == one["name"].tolist()

def test_levels_are_the_sorted_distinct_ids_and_each_ids_position(sample):
    with profdb.open(sample) as db:
        ids = np.array([7, 3, 7, 0, 12, 3], np.uint32)
        level, codes = db._levels(ids)
        assert level.tolist() == [0, 3, 7, 12] == np.unique(ids).tolist()
        assert level[codes].tolist() == ids.tolist()
        empty, none = db._levels(np.zeros(0, np.uint32))
        assert len(empty) == 0 and len(none) == 0
        # too sparse for a table by id: the caller hashes instead
        assert db._levels(np.array([1, 4000000000], np.uint32)) is None

def test_dataframe_keeps_stored_nans_apart_from_missing(nan_sample):
    d = dump(nan_sample, "values")["values"]
    with profdb.open(nan_sample) as db:
        df = dataframe_checks(db, d)
        bits, stored_nan = set(), 0
        for col in df.columns[:-4]:
            arr = df[col].array
            stored_nan += int((np.isnan(arr._data) & ~arr._mask).sum())
            bits |= set(arr._data[~arr._mask].view(np.uint64).tolist())
        assert stored_nan >= 3      # counted as values, not as missing
        assert {0x7ff800000000beef, 0xfff8000000000000, 0x7ff0000000000001} <= bits


def test_dataframe_selections(sample):
    with profdb.open(sample) as db:
        df = db.dataframe(metrics=["cycles"], profiles=[1, 2])
        assert set(df.index.get_level_values("profile")) <= {1, 2}
        assert [c for c in df.columns if "cycles" in c] == ["cycles (inc)"]
        inc = db.dataframe(scope="inclusive")
        assert all(c.endswith("(inc)") for c in inc.columns[:-4])
        thread1 = db.dataframe(profiles="thread=1")
        assert set(thread1.index.get_level_values("profile")) == {2}


def test_tree_frame(sample):
    d = dump(sample, "contexts")["contexts"]
    with profdb.open(sample) as db:
        t = db.tree()
        assert list(t.index) == [c["id"] for c in d]
        for c in d:
            row = t.loc[c["id"]]
            assert (pd.isna(row["parent"]) if c["parent"] is None else row["parent"] == c["parent"])
            assert row["name"] == frame_name(c) and row["line"] == c["line"]
            for k in row["children"]:
                assert t.loc[k, "parent"] == c["id"]


def test_stats_frame_matches_the_stats(sample):
    with profdb.open(sample) as db:
        sf = db.stats_frame()
        st = db.stats()
        for row in st:
            name = [n for n in sf.columns.get_level_values(0).unique()
                    if db.metric(row.metric).name in n]
            assert name
        first = st[0]
        col = [c for c in sf.columns.get_level_values(0).unique()][0]
        assert sf.index.name == "node"
        assert np.isfinite(sf[(col, "sum")].dropna()).all()
        assert sf.loc[first.context].notna().any()
        del st


def test_trace_frame(sample):
    d = dump(sample, "traces")["traces"]
    with profdb.open(sample) as db:
        for t in d:
            tf = db.trace_frame(t["profile"])
            assert tf["time"].tolist() == [s[0] for s in t["samples"]]
            assert tf["context"].tolist() == [s[1] for s in t["samples"]]
            assert tf["duration"].iloc[:-1].tolist() == list(np.diff(tf["time"]))
            assert pd.isna(tf["duration"].iloc[-1])
        assert db.exports == 0


def test_trace_frame_names_from_one_context_table(sample):
    d = dump(sample)
    names = {c["id"]: frame_name(c) for c in d["contexts"]}
    with profdb.open(sample) as db:
        calls = []
        table = db._context_table
        db._context_table = lambda: calls.append(1) or table()
        for t in d["traces"]:
            tf = db.trace_frame(t["profile"])
            # a sample's "no context" (id 0) has no name
            assert tf["name"].tolist() == [names.get(s[1], "") for s in t["samples"]]
        db.dataframe()
        db.trace_frame(d["traces"][0]["profile"])
        assert len(calls) == 1, "the context table is read once per database"


def test_trace_frame_from_threads(sample):
    profiles = [t["profile"] for t in dump(sample, "traces")["traces"]]
    with profdb.open(sample) as db:
        want = {p: db.trace_frame(p) for p in profiles}
    with profdb.open(sample) as db:
        # every thread starts on a database whose context index is not built
        with ThreadPoolExecutor(max_workers=8) as pool:
            got = list(pool.map(db.trace_frame, profiles * 8))
        df = db.dataframe()
    for p, tf in zip(profiles * 8, got):
        pd.testing.assert_frame_equal(tf, want[p])
    assert len(df) > 0


def owner(a):
    while a.base is not None and isinstance(a.base, np.ndarray):
        a = a.base
    return a


def test_frame_memory_arena(sample):
    """The arena behind a frame's arrays (python/src/arena.c): zeros are
    zeros in a reused chunk, a resize keeps the bytes, arrays bigger than
    a chunk and small ones (malloc's) work, and arrays freed in other
    threads after the block return their memory; the allocator before the
    block is back after it and after dataframe()."""
    try:                                     # numpy 2 moved numpy.core to numpy._core
        from numpy._core.multiarray import get_handler_name
    except ImportError:
        from numpy.core.multiarray import get_handler_name
    before = get_handler_name()
    with profdb.open(sample) as db:
        df = db.dataframe()
        assert get_handler_name() == before
        token = db._frame_memory()
        try:
            assert get_handler_name() == "profdb_frame_arena"
            big = np.full(300_000, 7, np.uint64)
            assert get_handler_name(owner(big)) == "profdb_frame_arena"
            del big                                      # the chunk is reused from its start
            z = np.zeros(300_000, np.uint64)
            assert not z.any()
            r = np.arange(100_000, dtype=np.int64)
            r.resize(400_000, refcheck=False)
            assert (r[:100_000] == np.arange(100_000)).all() and not r[100_000:].any()
            huge = np.ones(3 << 20, np.uint8)            # bigger than a chunk
            small = np.ones(10, np.uint8)
            kept = [np.full(50_000, i, np.int64) for i in range(40)]
            frame = db.dataframe()
        finally:
            db._frame_memory_end(token)
        assert get_handler_name() == before
        pd.testing.assert_frame_equal(df, frame, check_exact=True)
        assert int(huge.sum()) == 3 << 20 and int(small.sum()) == 10
        assert all((k == i).all() for i, k in enumerate(kept))
        del z, r, huge, small
        with ThreadPoolExecutor(4) as ex:
            list(ex.map(lambda _: kept.pop(), range(len(kept))))
        assert not kept
