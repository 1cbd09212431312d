"""Statistics, edges and views against the values and the tool."""
import numpy as np
import pytest

import profdb
from conftest import dump


def test_stats_agree_with_the_values(sample):
    with profdb.open(sample) as db:
        st = db.stats()
        threads = [p.index for p in db.profiles if not p.is_summary]
        for row in st:
            vals = [db.value(p, row.context, row.metric) for p in threads]
            vals = [float(v) for v in vals if v is not None]
            assert row.count == len(vals)
            assert row.sum == pytest.approx(sum(vals)) and row.max == max(vals)
            if db.metric(row.metric).combine == "sum":   # the others count as 0
                assert row.mean == pytest.approx(sum(vals) / len(threads))
            assert st.get(row.context, row.metric) == row
        assert st.n == len(threads)
        assert st.get(123456, 0) is None
        rows = st.rows()
        assert len(rows) == len(st) and rows["sum"].tolist() == [r.sum for r in st]
        m = rows["metric"][0]
        v = st.view(int(m), "max")
        assert v.base.owner is st and v.base.database is db
        assert v["max"].tolist() == rows["max"][rows["metric"] == m].tolist()
        with pytest.raises(ValueError):
            st.view(int(m), "median")
        del st, v
        one = db.stats(profiles="thread=1", threads=1)
        assert all(r.count == 1 and r.min_profile == 2 for r in one)
        del one


def test_edges_match_the_dump(sample):
    d = dump(sample, "edges")["edges"]
    with profdb.open(sample) as db:
        e = db.edges()
        assert len(e) == len(d)
        for row, de in zip(e, d):
            assert (int(row["caller"]), int(row["callee"])) == (de["caller"], de["callee"])
            site = None if row["site"] == 0xFFFFFFFF else int(row["site"])
            assert site == de["site"]
            for prof, metric, cost in de["costs"]:
                got = db.edge_cost(int(np.nonzero(e == row)[0][0]), metric, prof)
                assert got == pytest.approx(cost)


def edges_of_by_filter(db, contexts, side, metric, profile=None):
    """What edges_of() must give: edges() filtered, costs from edge_cost()."""
    want = []
    for i, row in enumerate(db.edges()):
        caller, callee, site = int(row["caller"]), int(row["callee"]), int(row["site"])
        hit = callee in contexts if side == "into" else (
            caller in contexts or (site != 0xFFFFFFFF and site in contexts))
        if hit:
            want.append(profdb.Edge((caller, callee, None if site == 0xFFFFFFFF else site,
                                     int(row["count"]) if row["has_count"] else None,
                                     db.edge_cost(i, metric, profile))))
    return want


@pytest.mark.parametrize("which", ["sample", "callgrind_file"])
def test_edges_of_are_the_edges_filtered(which, request):
    with profdb.open(request.getfixturevalue(which)) as db:
        e = db.edges()
        assert len(e) > 0
        metric = db.metrics[0].id
        ends = {int(x) for row in e for x in (row["caller"], row["callee"], row["site"])
                if x != 0xFFFFFFFF}
        for c in sorted(ends):
            for side in ("into", "out_of"):
                assert db.edges_of(c, side, metric) == edges_of_by_filter(db, {c}, side, metric)
        both = sorted(ends)[:3]
        assert db.edges_of(both + both, "out_of", metric, 0) == \
            edges_of_by_filter(db, set(both), "out_of", metric, 0)
        got = db.edges_of(both)
        assert got and all(isinstance(x, profdb.Edge) and x.cost is None for x in got)
        assert db.edges_of([]) == []
        with pytest.raises(ValueError):
            db.edges_of(both, "sideways")
        with pytest.raises(profdb.NotFound):
            db.edges_of(123456789)
        with pytest.raises(TypeError):
            db.edges_of("main")


def test_views(sample):
    with profdb.open(sample) as db:
        for kind in ("top-down", "bottom-up", "flat"):
            t = db.view(kind, metrics=["CPUTIME (sec)"])
            root = t[0]
            assert root.parent is None and root.type == "root"
            inc, exc = t.values(0)
            assert len(inc) == len(t)
            for k in root.children:
                assert t[k].parent == 0 and inc[k] <= inc[0] + 1e-9
            with pytest.raises(IndexError):
                t[len(t)]
            del t
        with pytest.raises(ValueError):
            db.view("sideways")


def test_empty_results_are_empty_arrays(sample):
    with profdb.open(sample) as db:
        st = db.stats(metrics=[1])
        empty = st.view(2)                # a metric without rows in this result
        assert len(empty) == 0 and empty.dtype.names == ("context", "sum")
        del empty, st
