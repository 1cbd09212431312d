"""The module on the project's generated samples: what open() gives, the
values bit for bit against the tool, errors and the close rule."""
import errno
import json
import os
import shutil

import numpy as np
import pytest

import profdb
from conftest import dump, run_tool
from helpers import assert_values_match_dump


def test_open_describes_the_database(sample):
    info = json.loads(run_tool("info", "--json", sample))
    with profdb.open(sample) as db:
        assert db.format == info["format"] == "hpctoolkit-4.0"
        assert db.path == sample
        c = db.counts
        for k in ("profiles", "contexts", "metrics", "values", "traces", "samples"):
            assert getattr(c, k) == info[k], k
        # the normative count leaves out what model.md says; the list is every metric
        assert len(db.metrics) == len(dump(sample, "metrics")["metrics"])
        assert len(db.profiles) == c.profiles
        assert db.profiles[0].is_summary and not db.profiles[1].is_summary
        assert dict(db.profiles[1].identity)["thread"] == 0
    assert db.closed


def test_metrics_and_contexts_as_dump_lists_them(sample):
    d = dump(sample)
    with profdb.open(sample) as db:
        for m, dm in zip(db.metrics, d["metrics"]):
            assert (m.id, m.name, m.kind, m.type, m.combine) == \
                (dm["id"], dm["name"], dm["kind"], dm["type"], dm["combine"])
        assert db.metric(d["metrics"][1]["id"]).id == d["metrics"][1]["id"]
        assert db.metric("cycles").name == "cycles"
        walked = [c.id for c in db.contexts]
        assert walked == [c["id"] for c in d["contexts"]]
        assert len(db.contexts) == len(walked)
        for dc in d["contexts"]:
            c = db.contexts[dc["id"]]
            assert (c.parent, c.depth, c.name, c.file, c.line, c.module, c.type) == \
                (dc["parent"], dc["depth"], dc["function"], dc["file"], dc["line"],
                 dc["module"], dc["type"])
            for k in c.children:
                assert db.context(k).parent == c.id
        root = db.contexts.roots[0]
        assert db.contexts.parent(root) is None
        assert [k.id for k in db.contexts.children(root)] == list(db.context(root).children)


@pytest.mark.parametrize("which", ["sample", "nan_sample"])
def test_values_bit_identical_to_the_tool(which, request):
    path = request.getfixturevalue(which)
    dumped = dump(path, "values")["values"]
    with profdb.open(path) as db:
        assert_values_match_dump(db, dumped)
        # value() gives the same numbers one at a time, NaN payloads kept
        for p, c, m, v in dumped[:50]:
            got = db.value(p, c, m)
            if isinstance(v, str) and "nan" in v:
                assert np.float64(got).view(np.uint64) == int(v[v.index("(") + 1:-1], 16)
            elif isinstance(v, (int, float)):
                assert got == v
        # a context id that is neither a tree node nor carries values
        with pytest.raises(profdb.NotFound):
            db.value(1, 999999, 0)


def test_nan_payloads_survive_the_arrays(nan_sample):
    with profdb.open(nan_sample) as db:
        idx, rec = db.values(profile=1)
        bits = set(rec["value"].view(np.uint64).tolist())
        assert 0x7ff800000000beef in bits and 0xfff8000000000000 in bits
        idx2, rec2 = db.values(profile=2)
        assert 0x7ff0000000000001 in set(rec2["value"].view(np.uint64).tolist())
        del idx, rec, idx2, rec2


def test_context_values_and_traces_match_the_c_counts(sample):
    d = dump(sample)
    with profdb.open(sample) as db:
        threads = {p.index for p in db.profiles if not p.is_summary}
        assert 0 < len(threads) < db.counts.profiles    # a summary profile to leave out
        total = 0
        for c in sorted({v[1] for v in d["values"]}):      # tree node or not
            v = db.values(context=c)
            total += len(v.records)
            assert set(v.records["profile"].tolist()) <= threads
        # every thread profile's value once; the summary's are its profile's
        assert total == sum(1 for v in d["values"] if v[0] in threads)
        assert total < db.counts.values
        del v
        for t in d["traces"]:
            tr = db.trace(t["profile"])
            assert tr.dtype.names == ("time", "context")
            assert [[int(a), int(b)] for a, b in tr] == t["samples"]
            del tr
        assert sum(len(db.trace(p)) for p in range(db.counts.profiles)) == db.counts.samples
        with pytest.raises(TypeError):
            db.values()


def test_errors_carry_errno_and_the_library_message(sample, callgrind_file, tmp_path):
    with pytest.raises(profdb.NotFound) as e:
        profdb.open(str(tmp_path / "missing"))
    assert e.value.errno == errno.ENOENT and "missing" in e.value.strerror
    assert isinstance(e.value, profdb.Error) and isinstance(e.value, OSError)
    junk = tmp_path / "junk.txt"
    junk.write_bytes(b"not a profile at all\n" * 10)
    with pytest.raises(profdb.NotSupported) as e:
        profdb.open(str(junk))
    assert e.value.errno == errno.EPROTONOSUPPORT
    with profdb.open(callgrind_file) as db:
        assert db.format == "callgrind"
        with pytest.raises(profdb.NotSupported):
            db.trace(0)
    with profdb.open(sample) as db:
        with pytest.raises(profdb.NotFound):
            db.values(profile=99)
        with pytest.raises(profdb.NotFound):
            db.metric("no such metric")
        with pytest.raises(profdb.NotFound):
            db.context(123456)
        with pytest.raises(profdb.Error) as e:
            db.select("rank=0-3")       # the sample has no ranks
        assert e.value.errno == errno.EINVAL


def test_a_truncated_file_is_corrupt(sample, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(sample, bad)
    pdb = bad / "profile.db"
    pdb.write_bytes(pdb.read_bytes()[:-100])
    with pytest.raises(profdb.Corrupt) as e:
        with profdb.open(str(bad)) as db:
            for p in range(db.counts.profiles):
                db.values(profile=p)
    assert e.value.errno in (errno.EBADMSG, errno.ENODATA)
    assert "profile.db" in e.value.strerror


def test_close_refuses_while_arrays_are_alive(sample):
    db = profdb.open(sample)
    idx, rec = db.values(profile=1)
    tr = db.trace(1)
    assert db.exports == 3
    with pytest.raises(BufferError):
        db.close()
    assert not db.closed
    first = rec["value"].copy()
    del idx, rec
    with pytest.raises(BufferError):
        db.close()
    del tr
    st = db.stats()
    with pytest.raises(BufferError):
        db.close()
    del st
    assert db.exports == 0
    db.close()
    db.close()                      # twice: a no-op
    assert db.closed and len(first) > 0
    with pytest.raises(ValueError):
        db.values(profile=1)
    with pytest.raises(ValueError):
        db.counts


def test_arrays_keep_the_database_alive(sample):
    rec = profdb.open(sample).values(profile=1).records   # the Database is unnamed
    total = float(rec["value"].sum())
    assert rec.base.database.exports >= 1
    assert total > 0


def test_a_with_block_that_leaks_an_array_raises_on_exit(sample):
    with pytest.raises(BufferError):
        with profdb.open(sample) as db:
            kept = db.values(profile=1).records
    assert kept.base.database is db and not db.closed
    del kept
    db.close()


def test_options_and_warnings(sample):
    with profdb.open(sample, copy=True, populate=False, tolerant=True, max_memory=1 << 30) as db:
        assert db.counts.values > 0
        assert db.warnings == ()
    with pytest.raises(TypeError):
        profdb.open(sample, no_such_option=True)


def test_decoded_formats_give_arrays_over_the_handle(callgrind_file):
    with profdb.open(callgrind_file) as db:
        vals = db.values(profile=0)
        assert len(vals.records) == db.counts.values
        assert vals.records.base.database is db
        assert sorted(profdb.as_float(vals.records).tolist()) == sorted(
            float(db.value(0, int(c), int(m)))
            for c, m in zip(vals.outer(), vals.records["metric"]))
        del vals
