"""The real samples under the sample-data folder, listed one way for every
check that walks them (tests/*_check.py, python/tests/conftest.py).

A sample is what `profdb` opens: a Cube file, an HPCToolkit database
directory, an hpcrun measurement directory, or a Callgrind file. The base
name of a Callgrind thread set or dump series (`NAME`, beside `NAME-01`,
`NAME.2`) opens every file of it, a member's name that file alone; the
members are listed on their own only when asked for (`members=True`, and
`callgrind_series()`).
"""
import os
import sys

# READMEs, program sources, reference tables and logs are not profiles;
# .gz files are the compressed copies (the big samples and two valgrind
# outputs), left out unless asked for.
NOT_PROFILES = (".md", ".txt", ".py", ".c", ".h", ".json", ".csv", ".log")


def is_series_member(name):
    """A member's name: NAME-NN (a --separate-threads file), NAME.N (a
    periodic dump) or NAME.N-NN; `callgrind.out.<pid>` ends in a pid and is
    a base name."""
    return series_base(name) != name


def build_lacks(path):
    """The dependency this build was configured without (PROFDB_BUILD_LACKS,
    set by the test definitions: 'expat', 'zlib') that @path needs, or None.
    Cube files and experiment.xml need expat; gzip-compressed files zlib."""
    lacks = os.environ.get("PROFDB_BUILD_LACKS", "").split()
    if not lacks:
        return None
    xml = path.endswith((".cubex", "experiment.xml")) or (
        os.path.isdir(path) and os.path.exists(os.path.join(path, "experiment.xml"))
        and not os.path.exists(os.path.join(path, "meta.db")))
    if xml and "expat" in lacks:
        return "expat"
    if "zlib" in lacks and os.path.isfile(path):
        with open(path, "rb") as f:
            if f.read(2) == b"\x1f\x8b":
                return "zlib"
    return None


def readable(paths, log=None):
    """@paths without those this build cannot read, each left out named on
    @log (default: stderr) with the dependency it lacks."""
    out = []
    for p in paths:
        need = build_lacks(p)
        if need is None:
            out.append(p)
        else:
            print("skip %s: this build has no %s" % (p, need), file=log or sys.stderr)
    return out


def series_base(name):
    """The base name of member @name (NAME-NN, NAME.N, NAME.N-NN: NAME)."""
    if "-" in name and name.rsplit("-", 1)[-1].isdigit():
        name = name.rsplit("-", 1)[0]
    head, _, tail = name.rpartition(".")
    if head and tail.isdigit() and head.rsplit("/", 1)[-1] != "callgrind.out":
        name = head
    return name


def callgrind_series(data):
    """{base path: [member paths, sorted]} for every Callgrind thread set or
    dump series under @data/callgrind whose base file exists. {} when @data
    is unset or absent."""
    out = {}
    if not data or not os.path.isdir(data):
        return out
    for base, _, files in sorted(os.walk(os.path.join(data, "callgrind"))):
        names = set(files)
        for f in sorted(files):
            if is_series_member(f) and series_base(f) in names:
                out.setdefault(os.path.join(base, series_base(f)), []).append(
                    os.path.join(base, f))
    return out


def real_samples(data, hpcrun_all=False, big=False, gz=False, members=False, everything=False):
    """Every sample under @data, sorted per folder: Cube, HPCToolkit 4.0,
    dev-stage, pre-release and experiment.xml databases, hpcrun measurements (the `.m`
    directories, or with @hpcrun_all every entry), then the Callgrind files
    (callgrind/big with @big, .gz files with @gz, the members of thread sets
    and dump series with @members). [] when @data is unset or absent.
    Samples this build cannot read are left out, each named on stderr,
    unless @everything."""
    out = []
    if not data or not os.path.isdir(data):
        return out
    subs = ["cube", "hpctoolkit/v4", "hpctoolkit/v4-devstage", "hpctoolkit/prerelease",
            "hpctoolkit/xml"]
    for sub in subs + (["hpctoolkit/hpcrun"] if hpcrun_all else []):
        d = os.path.join(data, sub)
        if os.path.isdir(d):
            out += [os.path.join(d, f) for f in sorted(os.listdir(d))
                    if (f.endswith(".cubex") or sub != "cube") and not f.endswith(NOT_PROFILES)]
    d = os.path.join(data, "hpctoolkit/hpcrun")
    if not hpcrun_all and os.path.isdir(d):
        out += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".m")]
    skip = NOT_PROFILES + (() if gz else (".gz",))
    for base, _, files in sorted(os.walk(os.path.join(data, "callgrind"))):
        if "/src" in base or (base.endswith("/big") and not big):
            continue
        out += [os.path.join(base, f) for f in sorted(files)
                if not f.endswith(skip) and (members or not is_series_member(f))]
    return out if everything else readable(out)
