"""Database.match() against `profdb diff --json -n 0` (the same
profdb_match_new, read by the tool), and dataframe(computed=True) against
Database.exclusive()/inclusive() cell by cell, bit for bit."""
import json
import math
import os
import struct

import numpy as np
import pytest

import profdb
from conftest import DATA, mksample, real_samples, run_tool

CG_B = ("# callgrind format\nversion: 1\ncreator: test\nevents: Ir Dr\n"
        "fl=main.c\nfn=main\n3 12 2\ncfn=work\ncalls=2 8\n4 90 40\ncfn=fresh\ncalls=1 20\n"
        "5 7 1\nfn=work\n8 90 40\nfn=fresh\n21 7 1\n")


def diff_json(a, b, metric=None, profiles=None):
    args = ["diff", "--json", "-n", "0"]
    if metric:
        args += ["-m", metric]
    if profiles:
        args += ["--profiles", profiles]
    return json.loads(run_tool(*(args + [a, b])))


def json_float(v):
    return math.nan if v is None or (isinstance(v, str) and v.lower() == "nan") else float(v)


def same_float(x, y):
    return (math.isnan(x) and math.isnan(y)) or struct.pack("<d", x) == struct.pack("<d", y)


def assert_match_is_diff(m, d):
    """Every row of the tool's JSON is the same row of the Match."""
    c = d["counts"]
    assert (m.counts.matched, m.counts.only_a, m.counts.only_b) == \
        (c["matched"], c["only_a"], c["only_b"])
    # diff ranks the function level (a loop or line nested in its
    # function's code is left out): its rows are some of the Match's pairs
    assert m.counts.rows == len(m.pairs) >= len(d["rows"]) > 0
    assert len({r["row"] for r in d["rows"]}) == len(d["rows"])
    assert m.counts.rows == m.counts.matched + m.counts.only_a + m.counts.only_b
    assert m.metrics == [(d["a"]["metric"]["id"], d["b"]["metric"]["id"])]
    as_id = lambda v: -1 if v is None else v  # noqa: E731
    for r in d["rows"]:
        p, v = m.pairs[r["row"]], m.values[0, r["row"]]
        assert (p["node_a"], p["node_b"], p["context_a"], p["context_b"], p["parent"],
                p["depth"]) == (as_id(r["node_a"]), as_id(r["node_b"]), as_id(r["context_a"]),
                                as_id(r["context_b"]), as_id(r["parent_row"]), r["depth"])
        assert r["in"] == ("b" if p["node_a"] < 0 else "a" if p["node_b"] < 0 else "both")
        for sc in ("exclusive", "inclusive"):
            assert same_float(float(v[sc + "_a"]), json_float(r[sc]["a"])), (r, sc)
            assert same_float(float(v[sc + "_b"]), json_float(r[sc]["b"])), (r, sc)


def check_against_diff(path_a, path_b, profiles=None, functions_only=False):
    d = diff_json(path_a, path_b, profiles=profiles)
    pa = pb = None
    if profiles:
        sa, _, sb = profiles.partition(":")
        pa, pb = sa, sb or sa
    with profdb.open(path_a, functions_only=functions_only) as a, \
            profdb.open(path_b, functions_only=functions_only) as b:
        m = a.match(b, metrics=d["a"]["metric"]["id"], other_metrics=d["b"]["metric"]["id"],
                    profiles=pa, other_profiles=pb)
    assert_match_is_diff(m, d)
    return m


def test_match_sample_profiles(sample):
    m = check_against_diff(sample, sample, profiles="1:2")
    assert m.counts.only_a == m.counts.only_b == 0 and m.counts.matched > 1
    assert m.pairs[0]["parent"] == -1 and m.pairs[0]["depth"] == 0


def test_match_synth_pair():
    a, b = mksample("synth", 3, 40, 2, 0.5, 0, 1), mksample("synth", 3, 40, 2, 0.5, 0, 2)
    m = check_against_diff(a, b)
    assert m.counts.rows > 1


def test_match_callgrind_pair(callgrind_file, tmp_path):
    b = tmp_path / "callgrind.out.2"
    b.write_text(CG_B)
    m = check_against_diff(callgrind_file, str(b), functions_only=True)
    assert m.counts.only_b >= 1          # main > fresh is new in B


def test_match_defaults_options_and_errors(sample, callgrind_file):
    with profdb.open(sample) as a, profdb.open(callgrind_file) as c:
        m = a.match(a)                   # every metric name both have
        assert m.counts.metrics == len(m.metrics) == m.values.shape[0] >= 1
        assert m.counts.only_a == m.counts.only_b == 0
        one = a.match(a, metrics=[m.metrics[0][0]])
        assert np.array_equal(one.pairs, m.pairs)
        for f in one.values.dtype.names:
            assert np.array_equal(one.values[0][f], m.values[0][f], equal_nan=True)
        with pytest.raises(profdb.NotFound):
            a.match(a, metrics=["no such metric"])
        with pytest.raises(profdb.Error):
            a.match(c)                   # no metric name in common
        with pytest.raises(ValueError):
            a.match(a, metrics=[1, 2], other_metrics=[1])
        with pytest.raises(TypeError):
            a.match("not a database")
    with pytest.raises(ValueError):      # closed
        a.match(a)


def test_match_result_holds_no_database(sample):
    db = profdb.open(sample)
    m = db.match(db)
    assert db.exports == 0
    db.close()                           # the result is a copy
    assert len(m.pairs) == m.counts.rows


# ---- dataframe(computed=True) ----

def cell_bits(x):
    if x is None:
        return None
    if isinstance(x, float):
        return ("f", struct.pack("<d", x))
    return ("i", int(x))


def frame_cell_bits(v):
    if v is None or v is __import__("pandas").NA:
        return None
    if isinstance(v, (float, np.floating)):
        return ("f", struct.pack("<d", float(v)))
    return ("i", int(v))


def check_scopes_frame(db, profiles=None, metrics=None):
    df = db.dataframe(computed=True, profiles=profiles, metrics=metrics)
    from profdb._frames import _quantities
    qs = _quantities(db, metrics)
    cols = [c for c in df.columns if c not in ("name", "file", "line", "module")]
    assert len(cols) == 2 * len(qs)
    seen = set()
    for (node, prof), row in zip(df.index, df[cols].itertuples(index=False)):
        seen.add((node, prof))
        any_value = False
        for k, (m, _) in enumerate(qs):
            for j, fn in enumerate((db.exclusive, db.inclusive)):
                try:
                    want = fn(prof, node, m.id)
                except profdb.NotSupported:
                    want = None
                got = frame_cell_bits(row[2 * k + j])
                assert got == cell_bits(want), (node, prof, m.id, j, got, want)
                any_value |= want is not None
        assert any_value
    # every tree node of every profile with some value is a row
    for p in db.profile_indices(profiles):
        for c in db.contexts:
            if (c.id, p) in seen:
                continue
            for m, _ in qs:
                for fn in (db.exclusive, db.inclusive):
                    try:
                        assert fn(p, c.id, m.id) is None, (p, c.id, m.id)
                    except profdb.NotSupported:
                        pass
    return df


def test_computed_frame_sample(sample):
    with profdb.open(sample) as db:
        df = check_scopes_frame(db)
        assert "CPUTIME (sec) (inc)" in df.columns
        inc = db.dataframe(computed=True, scope="inclusive")
        assert all(c.endswith("(inc)") for c in inc.columns[:-4])
        with pytest.raises(ValueError):
            db.dataframe(computed=True, scope="point")


def test_computed_frame_callgrind(callgrind_file):
    with profdb.open(callgrind_file) as db:
        df = check_scopes_frame(db)
        # main's inclusive Ir is its own cost plus the call's
        main = [n for n, _ in df.index if db.context(n).name == "main"]
        assert df.loc[(main[0], 0), "Ir"] == 10 and df.loc[(main[0], 0), "Ir (inc)"] == 110
        assert df["Ir (inc)"].max() >= df["Ir"].max()


def test_computed_frame_synth():
    with profdb.open(mksample("synth", 2, 30, 2, 0.4, 0, 3)) as db:
        check_scopes_frame(db)


# ---- real samples ----

REAL = real_samples()


def _size(p):
    if os.path.isdir(p):
        return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(p) for f in fs)
    return os.path.getsize(p)


def smallest_per_format():
    """The smallest real sample of each folder (callgrind/public,
    cube, hpctoolkit/v4, ...): every format, kept fast."""
    best = {}
    for p in REAL:
        parts = os.path.relpath(p, DATA).split(os.sep)
        group = os.sep.join(parts[:2]) if len(parts) > 2 else parts[0]
        if _size(p) and (group not in best or _size(p) < _size(best[group])):
            best[group] = p
    return sorted(best.values())


SMALL = smallest_per_format() if REAL else []


@pytest.mark.real
@pytest.mark.skipif(not SMALL, reason="no real sample data at %r" % DATA)
@pytest.mark.parametrize("path", SMALL, ids=[os.path.relpath(p, DATA) for p in SMALL])
def test_real_match_self_is_diff(path):
    try:
        d = diff_json(path, path)
    except AssertionError as e:
        pytest.skip("profdb diff refuses it: %s" % str(e)[:200])
    with profdb.open(path, functions_only=True) as db:
        m = db.match(db, metrics=d["a"]["metric"]["id"], other_metrics=d["b"]["metric"]["id"])
    assert_match_is_diff(m, d)
    assert m.counts.only_a == m.counts.only_b == 0


@pytest.mark.real
@pytest.mark.skipif(not SMALL, reason="no real sample data at %r" % DATA)
@pytest.mark.parametrize("path", SMALL, ids=[os.path.relpath(p, DATA) for p in SMALL])
def test_real_computed_frame(path):
    try:
        db = profdb.open(path)
    except profdb.Error as e:
        pytest.skip("cannot open: %s" % e.strerror)
    with db:
        metrics = db.metric_ids()[:2]
        profiles = db.profile_indices()[:2]
        if not metrics:
            pytest.skip("no metric with data")
        check_scopes_frame(db, profiles=profiles, metrics=metrics)
