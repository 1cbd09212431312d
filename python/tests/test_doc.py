"""doc/PYTHON.md's walk-through runs as written: every ```python block,
in order, in one namespace, on the sample the test-data writer makes (the
path the document gives, /tmp/sample, replaced by the generated one).
An example that shows an exception must raise it; one that shows output
must print it (whitespace aside, pandas printing every column); one that
shows nothing only has to run.

The install commands (the ```sh blocks of "Installing") are checked as
far as a test can without installing: the packages they name are the ones
scripts/deps.sh installs, `scripts/deps.sh --python` names an interpreter
that has them even when another `python3` comes first on PATH, the
build-tree import works with that interpreter, and the pip block is the
one python/pip-check.sh runs as written."""
import doctest
import os
import re
import shlex
import stat
import subprocess

import pandas as pd
import pytest

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
DOC = os.path.join(SRC, "doc", "PYTHON.md")
DEPS = os.path.join(SRC, "scripts", "deps.sh")
_EXC = re.compile(r"^([\w.]+(?:Error|NotFound|NotSupported|Corrupt)): ")


def examples():
    with open(DOC) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    return doctest.DocTestParser().get_examples("\n".join(blocks))


def shown(value):
    return "" if value is None else repr(value)


def exception_text(e):
    cls = type(e)
    name = cls.__name__ if cls.__module__ == "builtins" else cls.__module__ + "." + cls.__name__
    return "%s: %s" % (name, e)


def squeeze(text):
    return re.sub(r"\s+", "", text)


def test_walk_through_runs_as_written(sample):
    ns = {}
    checker = doctest.OutputChecker()
    ran = 0
    with pd.option_context("display.width", 250, "display.max_columns", None):
        for ex in examples():
            source = ex.source.replace("/tmp/sample", sample)
            try:
                try:
                    code = compile(source, DOC, "eval")
                except SyntaxError:
                    exec(compile(source, DOC, "exec"), ns)
                    got = ""
                else:
                    got = shown(eval(code, ns))
            except Exception as e:  # noqa: BLE001 (compared with what the document shows)
                got = exception_text(e)
                assert _EXC.match(ex.want), "%s raised %s" % (source.strip(), got)
            want = ex.want.strip()
            if want:
                assert checker.check_output(squeeze(want), squeeze(got), doctest.ELLIPSIS), \
                    "%s\nthe document shows:\n%s\nit gives:\n%s" % (source.strip(), want, got)
            ran += 1
    assert ran >= 30


def install_blocks():
    with open(DOC) as f:
        text = f.read()
    section = text[text.index("## Installing"):text.index("## A walk-through")]
    return re.findall(r"```sh\n(.*?)```", section, re.S)


def deps_packages(variable):
    with open(DEPS) as f:
        m = re.search(r'^%s="([^"]*)"' % variable, f.read(), re.M)
    assert m, "scripts/deps.sh has no %s" % variable
    return set(m.group(1).split())


def apt_lines():
    lines = [ln for b in install_blocks() for ln in b.splitlines()
             if ln.startswith("sudo apt-get install ")]
    return [set(shlex.split(ln.split("#")[0])[3:]) for ln in lines]


def test_install_packages_are_those_deps_sh_installs():
    module, tests = apt_lines()
    assert module == deps_packages("python_pkgs")
    with open(DEPS) as f:
        assert tests <= set(f.read().split()), tests


def test_install_commands_name_existing_scripts():
    named = set(re.findall(r"\b((?:scripts|python)/[\w.-]+\.sh)\b", "".join(install_blocks())))
    assert "scripts/deps.sh" in named
    for rel in named:
        assert os.access(os.path.join(SRC, rel), os.X_OK), rel


def test_pip_block_is_the_one_pip_check_runs():
    pip = [b for b in install_blocks() if "venv/bin/pip install" in b]
    assert len(pip) == 1, pip
    lines = [ln.split("#")[0].strip() for ln in pip[0].splitlines()]
    assert lines[0] == "py=$(scripts/deps.sh --python)"
    assert '"$py" -m venv --system-site-packages venv' in lines
    assert "venv/bin/pip install --no-build-isolation ." in lines


def deps_python(env):
    """`scripts/deps.sh --python`, when it has nothing to install."""
    need = deps_packages("pkgs") | deps_packages("python_pkgs")
    try:
        missing = [p for p in sorted(need) if b"ok installed" not in subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", p], stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL).stdout]
    except FileNotFoundError:
        pytest.skip("no dpkg-query: not a Debian system")
    if missing:
        pytest.skip("scripts/deps.sh --python would install %s" % " ".join(missing))
    p = subprocess.run([DEPS, "--python"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, universal_newlines=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_deps_python_names_the_system_interpreter_whatever_is_on_path(tmp_path):
    # A python3 first on PATH without numpy or meson-python, as pyenv's is.
    fake = tmp_path / "python3"
    fake.write_text("#!/bin/sh\necho 'No module named mesonpy' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    env = dict(os.environ, PATH="%s:%s" % (tmp_path, os.environ.get("PATH", "")))
    out = deps_python(env)
    assert out == "/usr/bin/python3\n"
    p = subprocess.run([out.strip(), "-c", "import numpy, mesonpy, venv, ensurepip"],
                       stderr=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 0, p.stderr


def test_build_tree_import_with_that_interpreter():
    # PYTHONPATH=build/python "$py" -c 'import profdb', with the build tree
    # the tests run against (python/tests/meson.build sets PYTHONPATH).
    py = deps_python(dict(os.environ)).strip()
    p = subprocess.run([py, "-c", "import profdb, sys; print(profdb.__file__)"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 0, p.stderr
    assert os.path.realpath(p.stdout.strip()).startswith(
        os.path.realpath(os.environ["PYTHONPATH"].split(os.pathsep)[0])), p.stdout


def test_readme_installs_with_the_same_interpreter():
    with open(os.path.join(SRC, "README.md")) as f:
        pip = [b for b in re.findall(r"```sh\n(.*?)```", f.read(), re.S)
               if "venv/bin/pip install" in b]
    assert len(pip) == 1, pip
    lines = [ln.split("#")[0].strip() for ln in pip[0].splitlines()]
    assert lines[:2] == ["py=$(scripts/deps.sh --python)",
                         '"$py" -m venv --system-site-packages venv'], lines
