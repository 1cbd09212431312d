"""Shared fixtures of the Python module's tests.

The environment comes from python/tests/meson.build: PYTHONPATH at the
build tree's package, PROFDB_TOOL (the `profdb` program, the reference the
module is compared with), PROFDB_MKSAMPLE (the test-data writer),
PROFDB_SAMPLE_DATA(_DEFAULT) (the real samples) and PROFDB_PY_WORK.
"""
import json
import os
import shutil
import subprocess
import sys

import pytest

# tests/samples.py: the one list of the real samples, beside the C tests'
# checks (this folder lives in the source tree next to tests/).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                os.pardir, "tests"))
import samples  # noqa: E402

TOOL = os.environ.get("PROFDB_TOOL", "")
MKSAMPLE = os.environ.get("PROFDB_MKSAMPLE", "")
DATA = os.environ.get("PROFDB_SAMPLE_DATA") or os.environ.get("PROFDB_SAMPLE_DATA_DEFAULT", "")
WORK = os.environ.get("PROFDB_PY_WORK") or "/tmp/profdb-py-work"



def pytest_configure(config):
    config.addinivalue_line("markers", "real: needs the real sample files (suite real-data)")


def pytest_sessionfinish(session, exitstatus):
    """Exit 77 (meson's SKIP) when tests ran but every one was skipped,
    as the Criterion programs do through tc_main."""
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is None or exitstatus != 0:
        return
    passed = len(tr.stats.get("passed", []))
    skipped = len(tr.stats.get("skipped", []))
    if passed == 0 and skipped > 0:
        session.exitstatus = 77


def run_tool(*args):
    if not TOOL:
        pytest.skip("the profdb tool is not built (-Dtool=disabled)")
    p = subprocess.run([TOOL] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, LC_ALL="C"))
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    return p.stdout


def dump(path, table=None):
    args = ["dump", "--json"] + (["--table", table] if table else []) + [path]
    return json.loads(run_tool(*args))


def mksample(kind, *args):
    """A database the project's test-data writer makes (cached per run)."""
    if not MKSAMPLE:
        pytest.skip("the test-data writer is not built (-Dtests=disabled)")
    d = os.path.join(WORK, "-".join([kind] + [str(a) for a in args]))
    if not os.path.isdir(d):
        os.makedirs(WORK, exist_ok=True)
        tmp = d + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        subprocess.run([MKSAMPLE, kind, tmp] + [str(a) for a in args], check=True,
                       stdout=subprocess.DEVNULL)
        os.rename(tmp, d)
    return d


@pytest.fixture(scope="session")
def sample():
    return mksample("sample")


@pytest.fixture(scope="session")
def nan_sample():
    return mksample("nan")


@pytest.fixture(scope="session")
def callgrind_file(tmp_path_factory):
    """A small Callgrind profile (text), for a decoded format."""
    p = tmp_path_factory.mktemp("cg") / "callgrind.out.1"
    p.write_text("# callgrind format\nversion: 1\ncreator: test\nevents: Ir Dr\n"
                 "fl=main.c\nfn=main\n3 10 2\ncfn=work\ncalls=2 8\n4 100 40\n"
                 "fn=work\n8 100 40\n9 5\n")
    return str(p)


def real_samples():
    """Every real sample (tests/samples.py)."""
    return samples.real_samples(DATA)


def callgrind_series():
    """{base path: [member paths]} of the Callgrind thread sets and dump
    series (tests/samples.py)."""
    return samples.callgrind_series(DATA)
