"""Database.summary_check() (profdb_summary_check_new) gives what
`profdb stats --check-summary --json` prints: the counts and every issue,
on the writer's database and on real HPCToolkit 4.0 databases whose
check finds documented hpcprof defects, unchecked lex_aware loop values
and missing values."""
import json
import math
import os
import subprocess

import pytest

import profdb
from conftest import DATA, TOOL

COUNT_FIELDS = ("stored", "checked", "agree", "explained", "unexplained", "unchecked",
                "unknown_ids", "missing", "missing_explained", "missing_unchecked")
# small real databases whose check finds each kind of issue
REAL = ("hpctoolkit/v4/hpctoolkit-formats-small_v4.0",
        "hpctoolkit/v4/hpctoolkit-tests-loops-cputime-t")


def tool_check(path):
    if not TOOL:
        pytest.skip("the profdb tool is not built (-Dtool=disabled)")
    p = subprocess.run([TOOL, "stats", "--check-summary", "--json", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C"))
    assert p.returncode in (0, 1), p.stderr.decode(errors="replace")
    return json.loads(p.stdout), p.returncode


def same_number(a, b):
    """a (Python) is b (the tool's JSON: a NaN is the string "nan(0x...)")."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(b, str):
        return b.startswith("nan") and math.isnan(a)
    return a == b


def assert_same_as_tool(path):
    want, rc = tool_check(path)
    with profdb.open(path) as db:
        got = db.summary_check(threads=2)
    assert isinstance(got, profdb.SummaryCheck)
    assert got.counts.summary == want["summary_profile"]
    for f in COUNT_FIELDS:
        assert getattr(got.counts, f) == want[f], f
    assert got.ok == (rc == 0)
    assert len(got.issues) == len(want["issues"])
    for a, b in zip(got.issues, want["issues"]):
        assert isinstance(a, profdb.SummaryIssue)
        for f in ("context", "statistic_id", "metric", "statistic", "missing", "terms",
                  "reason"):
            assert getattr(a, f) == b[f], (f, a, b)
        for f in ("stored", "expected", "bound"):
            assert same_number(getattr(a, f), b[f]), (f, a, b)
        assert (a.stored is None) == a.missing
    return got


def test_the_writers_database_agrees(sample):
    got = assert_same_as_tool(sample)
    assert got.counts.stored > 0 and got.counts.agree == got.counts.stored
    assert got.issues == [] and got.ok


def test_a_format_without_summaries_is_not_supported(callgrind_file):
    with profdb.open(callgrind_file) as db:
        with pytest.raises(profdb.NotSupported):
            db.summary_check()
        with pytest.raises(OverflowError):
            db.summary_check(threads=-1)


@pytest.mark.real
@pytest.mark.parametrize("rel", REAL)
def test_real_issues_are_the_tools(rel):
    path = os.path.join(DATA, rel)
    if not os.path.isdir(path):
        pytest.skip("no %s under %r" % (rel, DATA))
    got = assert_same_as_tool(path)
    assert got.issues, "the database was chosen for its issues"
