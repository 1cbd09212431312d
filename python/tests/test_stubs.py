"""The type stubs (profdb/__init__.pyi) name what the module has, and
every public callable has a docstring."""
import ast
import inspect
import os
import subprocess
import sys

import numpy as np
import pytest

import profdb


def stub_tree():
    path = os.path.join(os.path.dirname(profdb.__file__), "__init__.pyi")
    with open(path) as f:
        return ast.parse(f.read())


def test_stub_names_exist():
    tree = stub_tree()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == "_StructSequence":
            continue   # the stubs' own base of the struct sequences
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            assert hasattr(profdb, node.name), node.name
        if isinstance(node, ast.ClassDef):
            cls = getattr(profdb, node.name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    assert hasattr(cls, item.name), "%s.%s" % (node.name, item.name)
                if isinstance(item, ast.AnnAssign):
                    assert item.target.id in getattr(cls, "_fields", ()) or \
                        hasattr(cls, item.target.id), "%s.%s" % (node.name, item.target.id)


def test_public_surface_is_in_the_stubs_and_documented():
    tree = stub_tree()
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    for name in profdb.__all__:
        assert name in stubbed, name
        assert getattr(profdb, name).__doc__, name
    db_stub = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Database")
    for item in db_stub.body:
        if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
            assert getattr(profdb.Database, item.name).__doc__, item.name


def stub_params(fn):
    """The parameter names of a stub function, self and cls left out."""
    a = fn.args
    names = [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]
    names += [p.arg for p in (a.vararg, a.kwarg) if p is not None]
    return [n for n in names if n not in ("self", "cls", "_cls")]


def test_runtime_signatures_match_the_stubs():
    """Every stubbed method of the C core and the package has a signature
    (the C methods through their text signatures) with the stub's
    parameters, in order."""
    checked = 0
    for node in stub_tree().body:
        if not isinstance(node, ast.ClassDef) or not hasattr(profdb, node.name):
            continue
        cls = getattr(profdb, node.name)
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or item.name.startswith("__"):
                continue
            if any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list):
                continue
            sig = inspect.signature(getattr(cls, item.name))
            stub_first = (item.args.posonlyargs + item.args.args)[:1]
            if [p.arg for p in stub_first] == ["self"]:
                # a method's signature read from its class starts at self
                # (a C method's only when its text signature names $self)
                assert list(sig.parameters)[:1] == ["self"], \
                    "%s.%s%s" % (node.name, item.name, sig)
            names = [n for n in sig.parameters if n != "self"]
            assert names == stub_params(item), "%s.%s" % (node.name, item.name)
            checked += 1
    assert checked >= 25
    assert list(inspect.signature(profdb.Database).parameters)[:2] == ["path", "copy"]


def test_records_keep_their_fields_as_the_stubs_type_them():
    """Profile.index, Stat.count and Values.index are fields (the stubs
    declare them as such, not as tuple's methods)."""
    assert "index" in profdb.Values._fields
    assert profdb.Profile.n_fields >= 4 and profdb.Stat.n_fields >= 12


def mypy_or_skip():
    try:
        import mypy.api  # noqa: F401
    except ImportError:
        pytest.skip("mypy is not installed (python3-mypy; scripts/deps.sh --tests)")
    import mypy.api
    return mypy.api


def test_stubtest_finds_no_mismatch(tmp_path):
    mypy_or_skip()
    cfg = tmp_path / "mypy.ini"
    cfg.write_text("[mypy]\nignore_missing_imports = True\ncache_dir = %s\n" % (tmp_path / "c"))
    pkg_root = os.path.dirname(os.path.dirname(profdb.__file__))
    env = dict(os.environ, PYTHONPATH=pkg_root)
    p = subprocess.run([sys.executable, "-m", "mypy.stubtest", "--mypy-config-file", str(cfg),
                        "profdb"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=env, cwd=str(tmp_path))
    assert p.returncode == 0, p.stdout.decode(errors="replace")


def test_a_typical_script_type_checks(tmp_path, sample):
    api = mypy_or_skip()
    script = tmp_path / "use.py"
    script.write_text(
        "import pathlib\nimport profdb\n"
        "db = profdb.open(pathlib.Path(%r))\n"
        "i: int = db.profiles[1].index\n"
        "st = db.stats().get(1, 1)\n"
        "n: int = st.count if st is not None else 0\n"
        "index, records = db.values(profile=1)\n"
        "same = db.values(profile=1).index is not None\n" % sample)
    out, err, rc = api.run([str(script), "--ignore-missing-imports",
                            "--cache-dir", str(tmp_path / "c")])
    assert rc == 0, out + err


def test_record_classes_are_named_tuples():
    """Values, Match, MatchCounts and the Summary* records: namedtuples
    with their fields, annotations, methods and pickling."""
    import pickle
    counts = profdb.MatchCounts(1, 2, 3, 4, 5)
    assert counts._fields == ("metrics", "rows", "matched", "only_a", "only_b")
    assert counts.rows == 2 and counts[4] == 5 and isinstance(counts, tuple)
    assert counts._asdict()["only_a"] == 4 and counts._replace(rows=7).rows == 7
    assert repr(counts) == "MatchCounts(metrics=1, rows=2, matched=3, only_a=4, only_b=5)"
    assert pickle.loads(pickle.dumps(counts)) == counts
    assert list(profdb.SummaryIssue.__annotations__) == list(profdb.SummaryIssue._fields)
    assert profdb.Values.__module__ == "profdb" and profdb.Values.__doc__
    v = profdb.Values(np.array([(7, 0), (9, 2)], dtype=[("context", "u4"), ("start", "u8")]),
                      np.zeros(3, dtype=[("metric", "u2"), ("value", "f8")]))
    assert v.outer().tolist() == [7, 7, 9]
    zero = profdb.SummaryCounts(*([0] * len(profdb.SummaryCounts._fields)))
    assert profdb.SummaryCheck(zero, []).ok
