"""Database.to_svg() and to_timeline() write the pictures `profdb convert
-t svg` and `-t timeline` write: the same bytes for the same input and
options, a file expat parses (whose root frame holds the tool's total;
whose rects all name a function), and a refusal that leaves an existing
file as it was."""
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


def rects(svg_bytes):
    """(profile of the row or None for the legend, data-fn) of every rect;
    expat raises on anything that is not well-formed XML."""
    out, row = [], []
    parser = xml.parsers.expat.ParserCreate()

    def start(name, attrs):
        if name == "g":
            row.append(attrs.get("data-profile"))
        elif name == "rect":
            out.append((row[-1] if row else None, attrs["data-fn"]))

    def end(name):
        if name == "g":
            row.pop()
    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.Parse(svg_bytes, True)
    return out


TIMELINE_SETS = [
    ({}, []),
    ({"window": ("1us", "4500ns"), "depth": 1, "width": 90.0, "profiles": "thread=0"},
     ["--window", "1us,4500ns", "--depth", "1", "--width", "90", "--profiles", "thread=0"]),
    ({"window": (2000, None)}, ["--window", "2000,"]),
]


@pytest.mark.parametrize("kwargs,flags", TIMELINE_SETS)
def test_to_timeline_writes_the_tools_bytes(sample, tmp_path, kwargs, flags):
    out = tmp_path / "trace.svg"
    with profdb.open(sample) as db:
        db.to_timeline(out, **kwargs)
    written = out.read_bytes()
    assert written == run_tool("convert", "-t", "timeline", *flags, sample)
    drawn = rects(written)
    assert drawn and all(fn for _, fn in drawn)
    assert {p for p, _ in drawn} == {"1", None}       # the one trace line, the legend
    assert os.listdir(tmp_path) == ["trace.svg"]


def test_to_timeline_refusals_leave_the_file(sample, callgrind_file, tmp_path):
    out = tmp_path / "kept.svg"
    out.write_bytes(b"kept")
    with profdb.open(sample) as db:
        for bad in [{"window": ("1x", None)}, {"window": ("2us", "1us")}, {"depth": 0},
                    {"window": (-1, None)}]:
            with pytest.raises(ValueError):
                db.to_timeline(out, **bad)
        with pytest.raises(profdb.Error):
            db.to_timeline(out, window=("1s", None))   # after the last sample
    with profdb.open(callgrind_file) as db:
        with pytest.raises(profdb.NotSupported):
            db.to_timeline(out)
    assert out.read_bytes() == b"kept"
    assert os.listdir(tmp_path) == ["kept.svg"]
