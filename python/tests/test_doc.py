"""doc/PYTHON.md's walk-through runs as written: every ```python block,
in order, in one namespace, on the sample the test-data writer makes (the
path the document gives, /tmp/sample, replaced by the generated one).
An example that shows an exception must raise it; one that shows output
must print it (whitespace aside, pandas printing every column); one that
shows nothing only has to run."""
import doctest
import os
import re

import pandas as pd

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "doc",
                   "PYTHON.md")
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
