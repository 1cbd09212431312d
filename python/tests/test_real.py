"""Every real sample of the sample data directory (suite real-data):
it opens, its arrays have the C counts, every value is bit-identical to
`profdb dump --json`, and db.dataframe() holds each stored value once."""
import errno
import json
import os
import subprocess

import pytest

import profdb
from conftest import DATA, TOOL, callgrind_series, dump, real_samples, run_tool
from helpers import assert_values_match_dump, dataframe_checks

SAMPLES = real_samples()
SERIES = callgrind_series()
pytestmark = pytest.mark.real


def name(path):
    return os.path.relpath(path, DATA)


@pytest.mark.skipif(not SAMPLES, reason="no real sample data at %r" % DATA)
@pytest.mark.parametrize("path", SAMPLES, ids=[name(p) for p in SAMPLES])
def test_real_sample(path):
    try:
        db = profdb.open(path)
    except profdb.Error as e:
        # refused (a damaged edge case, a format this build lacks): the tool
        # must refuse it the same way
        p = subprocess.run([TOOL, "info", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert p.returncode != 0 and e.strerror in p.stderr.decode(errors="replace")
        if e.errno == errno.ENOTSUP:
            pytest.skip("this build cannot read it: %s" % e.strerror)
        return
    with db:
        c = db.counts
        assert len(db.profiles) == c.profiles
        d = dump(path)
        assert_values_match_dump(db, d["values"])
        assert sum(len(v.records) for v in db.all_values()) == c.values
        if c.traces:
            assert sum(len(db.trace(p)) for p in range(c.profiles)) == c.samples
            for t in d["traces"][:3]:
                tr = db.trace(t["profile"])
                assert tr["time"].tolist() == [s[0] for s in t["samples"]]
                assert tr["context"].tolist() == [s[1] for s in t["samples"]]
                del tr
        dataframe_checks(db, d["values"])
        assert len(db.tree()) == len(d["contexts"])
        assert len(db.edges()) == len(d["edges"])


@pytest.mark.skipif(not SAMPLES, reason="no real sample data at %r" % DATA)
def test_real_sample_count():
    # the listing found the folders the README of the sample data names
    assert len(SAMPLES) > 50


DEFAULT_SAMPLES = sorted(
    p for p in SAMPLES
    if os.path.basename(p).startswith("hpctoolkit-tests-") and not p.endswith(".nostruct")
    or p.endswith(("Score-P-summary.cubex", "extrap-lulesh.p27.size25.r1.cubex")))


@pytest.mark.skipif(not DEFAULT_SAMPLES, reason="no real sample data at %r" % DATA)
@pytest.mark.parametrize("path", DEFAULT_SAMPLES, ids=[name(p) for p in DEFAULT_SAMPLES])
def test_default_metric_is_top(path):
    # the module's default is the one `profdb top` ranks by, in view() and
    # in the frames' attrs (doc/model.md, "The default metric")
    p = subprocess.run([TOOL, "top", "-n", "1", "--json", path], capture_output=True, text=True,
                       check=True)
    want = json.loads(p.stdout)["metric"]
    with profdb.open(path) as db:
        m = db.default_metric()
        assert (m.id, m.name) == (want["id"], want["name"])
        a, b = db.view().values(0), db.view(metrics=[m.id]).values(0)
        assert a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes()
        col = db.dataframe().attrs["default_metric"]
        assert col is not None and col.startswith(m.name)
        col = db.dataframe(computed=True).attrs["default_metric"]
        assert col == m.name


def profiles_and_total(path):
    """Profiles and the Ir total (every cost is stored once) of @path."""
    with profdb.open(path) as db:
        vs = db.all_values()
        total = sum(int(v.records["value"][v.records["metric"] == 0].sum()) for v in vs)
        n = len(db.profiles)
        del vs
    return n, total


@pytest.mark.skipif(not SERIES, reason="no Callgrind set or series at %r" % DATA)
@pytest.mark.parametrize("base", sorted(SERIES), ids=[name(p) for p in sorted(SERIES)])
def test_callgrind_set_and_members(base):
    """The base name opens every file of the set, a member's name that file
    alone, with the profiles and the total `profdb top` reports."""
    got = []
    for path in [base] + SERIES[base]:
        n, total = profiles_and_total(path)
        top = json.loads(run_tool("top", "--json", "-m", "0", "-n", "1", path))
        assert total == int(top["total"]), path
        profiles = json.loads(run_tool("profiles", "--json", path))
        assert n == len(profiles["profiles"]), path
        got.append((n, total))
    # the members add up to the set, less what the base file holds itself
    # (a dump series' last dump; a thread set's base file is empty)
    members = (sum(n for n, _ in got[1:]), sum(t for _, t in got[1:]))
    if os.path.getsize(base) == 0:
        assert members == got[0]
    else:
        assert members[0] < got[0][0] and members[1] < got[0][1]
