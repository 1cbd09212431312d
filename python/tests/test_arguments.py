"""Arguments as a user passes them: integers range-checked (never taken
modulo 2^32), one profile index as well as a list, the frames' column
names as metric selectors, and what dir(profdb) shows."""
import os
import shutil

import numpy as np
import pytest

import profdb
from conftest import WORK


@pytest.mark.parametrize("call", [
    lambda db: db.value(2 ** 32, 4, 2),
    lambda db: db.value(-1, 5, 1),
    lambda db: db.value(1, 2 ** 32 + 5, 1),
    lambda db: db.inclusive(1, 5, 2 ** 32 + 1),
    lambda db: db.exclusive(-1, 5, 1),
    lambda db: db.context(2 ** 32),
    lambda db: db.context(-1),
    lambda db: db.metric(2 ** 32 + 1),
    lambda db: db.values(profile=2 ** 32 + 1),
    lambda db: db.values(context=-2),
    lambda db: db.trace(2 ** 32),
    lambda db: db.stats(profiles=[2 ** 32 + 1]),
    lambda db: db.stats(threads=2 ** 32),
    lambda db: db.edge_cost(2 ** 64, 1),
    lambda db: db.edge_cost(0, 2 ** 32 + 1),
    lambda db: db.edge_cost(0, 1, profile=2 ** 32 + 1),
], ids=lambda c: "")
def test_out_of_range_integers_raise_overflow(sample, call):
    with profdb.open(sample) as db:
        with pytest.raises(OverflowError):
            call(db)


def test_numpy_integers_are_integers(sample):
    with profdb.open(sample) as db:
        assert db.value(np.uint32(1), np.int64(5), np.uint16(1)) == db.value(1, 5, 1)
        assert db.context(np.int32(5)).id == 5
        with pytest.raises(OverflowError):
            db.value(np.int64(-1), 5, 1)
        with pytest.raises(TypeError):
            db.value(1.0, 5, 1)


def test_stats_get_and_view_check_their_range(sample):
    with profdb.open(sample) as db:
        st = db.stats()
        row = st[0]
        assert st.get(row.context, row.metric) == row
        with pytest.raises(OverflowError):
            st.get(2 ** 32 + row.context, row.metric)
        with pytest.raises(OverflowError):
            st.get(row.context, -1)
        with pytest.raises(OverflowError):
            st.view(2 ** 32 + row.metric)
        with pytest.raises(TypeError):
            st.get(1.0, row.metric)
        del st, row


def test_one_profile_index_selects_like_a_list(sample):
    with profdb.open(sample) as db:
        assert db.profile_indices(1) == [1]
        assert db.stats(profiles=1).rows().tolist() == db.stats(profiles=[1]).rows().tolist()
        assert db.dataframe(profiles=1).equals(db.dataframe(profiles=[1]))
        with pytest.raises(TypeError):
            db.profile_indices(1.5)


def test_frame_column_names_select_metrics(sample):
    with profdb.open(sample) as db:
        df = db.dataframe()
        names = {m.name for m in db.metrics}
        for col in df.columns:
            if col in ("name", "file", "line", "module") or col in names:
                continue   # a metric's own name is looked up as such (metric())
            one = db.dataframe(metrics=col)
            assert [c for c in one.columns if c not in ("name", "file", "line", "module")] \
                == [col]
        inc = [c for c in df.columns if c.endswith(" (inc)")][0]
        assert db.metric(db.metric_ids(inc)[0]).kind == "inclusive"
        with pytest.raises(profdb.NotFound):
            db.metric_ids("no such column (inc)")


def test_loop_and_line_rows_are_named_as_the_tool_names_them(sample):
    with profdb.open(sample) as db:
        tree = db.tree()
        df = db.dataframe()
    for kind in ("loop", "line"):
        rows = tree[tree["type"] == kind]
        assert len(rows) > 0, kind
        for node, r in rows.iterrows():
            where = "%s:%d" % (r["file"].rsplit("/", 1)[-1], r["line"])
            assert r["name"] == ("loop at " + where if kind == "loop" else where), node
            assert set(df.xs(node, level="node")["name"]) <= {r["name"]}
    assert tree.loc[3, "name"] == "loop at sample.c:12"
    assert tree.loc[4, "name"] == "sample.c:13"


def test_dir_shows_the_public_names_only(sample):
    names = dir(profdb)
    for hidden in ("np", "Optional", "Union", "NamedTuple", "Sequence", "Iterator"):
        assert hidden not in names, hidden
    for name in profdb.__all__:
        assert name in names, name


def test_a_database_without_meta_db_is_refused(sample):
    path = os.path.join(WORK, "no-meta-db")
    shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(sample, path)
    os.remove(os.path.join(path, "meta.db"))
    with pytest.raises(profdb.NotFound) as e:
        profdb.open(path)
    assert os.path.join(path, "meta.db") in str(e.value)
    shutil.rmtree(path)
