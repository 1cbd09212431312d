"""Database.to_svg() writes the flame graph `profdb convert -t svg`
writes: the same bytes for the same input and options, a file expat
parses whose root frame holds the tool's total, and a refusal that leaves
an existing file as it was."""
import os
import stat
import xml.parsers.expat

import pytest

import profdb
from conftest import run_tool


def frames(svg_bytes):
    """The attributes of every frame (<g class="f">), in document order;
    expat raises on anything that is not well-formed XML."""
    out = []
    parser = xml.parsers.expat.ParserCreate()

    def start(name, attrs):
        if name == "g" and attrs.get("class") == "f":
            out.append(attrs)
    parser.StartElementHandler = start
    parser.Parse(svg_bytes, True)
    return out


OPTION_SETS = [
    ({}, []),
    ({"metric": 1, "profiles": "thread=0", "icicle": True, "width": 1600.0,
      "min_width": 1.0, "color": "file"},
     ["-m", "1", "--profiles", "thread=0", "--icicle", "--width", "1600",
      "--min-width", "1", "--color-by", "file"]),
    ({"metric": "CPUTIME (sec) (inc)", "profiles": [1, 2]}, ["-m", "2", "--profiles", "1,2"]),
]


@pytest.mark.parametrize("kwargs,flags", OPTION_SETS)
def test_to_svg_writes_the_tools_bytes(sample, tmp_path, kwargs, flags):
    out = tmp_path / "sample.svg"
    with profdb.open(sample) as db:
        db.to_svg(out, **kwargs)
    written = out.read_bytes()
    tool = run_tool("convert", "-t", "svg", *flags, sample)
    assert written == tool
    ours, theirs = frames(written), frames(tool)
    assert ours[0]["data-d"] == "0"
    assert float(ours[0]["data-v"]) == float(theirs[0]["data-v"]) > 0
    assert os.listdir(tmp_path) == ["sample.svg"]      # no temporary file left


def test_to_svg_title_and_mode(sample, tmp_path):
    out = tmp_path / "named.svg"
    out.write_bytes(b"old")
    os.chmod(out, 0o640)
    with profdb.open(sample) as db:
        db.to_svg(str(out), title="a <run> & more")
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640     # the replaced file's mode
    text = out.read_text()
    assert "a &lt;run&gt; &amp; more" in text
    frames(out.read_bytes())


def test_to_svg_refusals_leave_the_file(sample, tmp_path):
    out = tmp_path / "kept.svg"
    out.write_bytes(b"kept")
    with profdb.open(sample) as db:
        with pytest.raises(ValueError):
            db.to_svg(out, color="rainbow")
        with pytest.raises(profdb.Error) as e:
            db.to_svg(out, width=-1.0)
        assert "width" in e.value.strerror
        with pytest.raises(profdb.NotFound):
            db.to_svg(out, metric="no such metric")
        db.to_svg(os.devnull)                  # not a regular file: written directly
    assert out.read_bytes() == b"kept"
    assert os.listdir(tmp_path) == ["kept.svg"]


def test_to_svg_closed_database(sample, tmp_path):
    db = profdb.open(sample)
    db.close()
    with pytest.raises(ValueError):
        db.to_svg(tmp_path / "closed.svg")
    assert os.listdir(tmp_path) == []
