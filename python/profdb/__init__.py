"""profdb: HPC performance profiles (HPCToolkit, hpcrun, Cube, Callgrind)
read in place, as numpy arrays over the file's mapping and pandas frames.

    import profdb
    with profdb.open("hpctoolkit-database") as db:
        print(db.format, db.counts)
        index, records = db.values(profile=1)   # numpy arrays over the mmap
        df = db.dataframe()                     # hatchet's layout (pandas)

The C core (profdb._profdb) is written over libprofdb's public API; this
file adds the Python-shaped surface and profdb/_frames.py the pandas
frames. doc/PYTHON.md is the walk-through.

Lifetimes: every array over the database's memory keeps its Database
alive (arr.base is a profdb.View whose .database is the Database), and
Database.close() raises BufferError while any of them, or any Stats or
Tree, is alive -- as mmap.close() does. Copy what must outlive the handle.
"""
from __future__ import annotations

import operator
import os
import stat as _stat
from collections import namedtuple as _namedtuple
from typing import Iterator, Optional, Sequence, Tuple, Union

import numpy as np

from . import _profdb
from ._profdb import (Context, Corrupt, Counts, Edge, Error, Metric, Node,  # noqa: F401
                      NotFound, NotSupported, Profile, Stat, Stats, Tree, View,
                      library_version)

__all__ = ["open", "Database", "Values", "Contexts", "Error", "NotFound", "NotSupported",
           "Corrupt", "Metric", "Profile", "Context", "Counts", "Stat", "Stats", "Node", "Edge",
           "Tree", "View", "library_version", "as_float", "Match", "MatchCounts",
           "SummaryCheck", "SummaryCounts", "SummaryIssue"]

__version__ = library_version()


def __dir__() -> list:
    """The public names only: not numpy or the typing helpers imported here."""
    return sorted(set(__all__) | {"__version__", "__doc__", "__file__", "__name__",
                                  "__path__", "__all__"})


_TREE_KINDS = {"top-down": 0, "bottom-up": 1, "flat": 2}


def _record(cls):
    """The class statement `cls` as a collections.namedtuple: its fields
    are the annotated names in order, and its docstring, methods and
    properties are copied over. The same class typing.NamedTuple makes
    (fields, __annotations__, repr, _asdict, _replace, pickling), without
    typing's check of every annotation: a few times cheaper at import."""
    body = cls.__dict__
    fields = body.get("__annotations__", {})
    made = _namedtuple(cls.__name__, fields, module=cls.__module__)
    made.__annotations__ = made.__new__.__annotations__ = dict(fields)
    made.__qualname__ = cls.__qualname__
    for key, value in body.items():
        if key not in ("__annotations__", "__dict__", "__weakref__", "__module__",
                       "__qualname__"):
            setattr(made, key, value)
    return made


@_record
class Values:
    """The stored values of one profile (or one context), as two read-only
    numpy structured arrays over the database's memory:

    - index: one record per context (per metric for a context's values):
      fields 'context' (or 'metric') and 'start', the position of its first
      record in `records`;
    - records: fields 'metric' (or 'profile') and 'value', plus 'tag' (a
      profdb type: 1 u64, 2 i64, 3 f64) when the format mixes value types,
      in which case 'value' holds the 64 bits (see as_float()).
    """
    index: np.ndarray
    records: np.ndarray

    def outer(self) -> np.ndarray:
        """The index key of every record (a copy): the context of each
        record of a profile's values, the metric of each of a context's."""
        starts = self.index["start"].astype(np.int64)
        lengths = np.diff(np.append(starts, len(self.records)))
        return np.repeat(self.index[self.index.dtype.names[0]], lengths)


def as_float(records: np.ndarray) -> np.ndarray:
    """The 'value' field of a records array as float64 (a copy): a
    'tag'-ged field is read per record by its type tag, f64 bits as stored."""
    v = records["value"]
    if "tag" not in records.dtype.names:
        return v.astype(np.float64)
    bits = np.ascontiguousarray(v).astype(np.uint64)
    tag = records["tag"]
    out = bits.astype(np.float64)               # u64
    i64 = tag == 2
    out[i64] = bits[i64].view(np.int64).astype(np.float64)
    f64 = tag == 3
    out[f64] = bits[f64].view(np.float64)
    out[tag == 0] = np.nan
    return out


class Contexts:
    """The calling-context tree, by context id: db.contexts[id] is a
    Context (parent, children, name, file, line, module, ...);
    iteration walks the tree in pre-order."""

    def __init__(self, db: "Database"):
        self._db = db

    def __getitem__(self, id: int) -> Context:
        return self._db.context(id)

    def __contains__(self, id: object) -> bool:
        try:
            self._db.context(id)  # type: ignore[arg-type]
            return True
        except (NotFound, TypeError, OverflowError):
            return False

    def __len__(self) -> int:
        return len(self._db._context_table()["id"])

    @property
    def roots(self) -> tuple:
        """The ids of the roots, in order."""
        return self._db._roots()

    def parent(self, id: int) -> Optional[Context]:
        p = self._db.context(id).parent
        return None if p is None else self._db.context(p)

    def children(self, id: int) -> list:
        return [self._db.context(c) for c in self._db.context(id).children]

    def __iter__(self) -> Iterator[Context]:
        stack = list(reversed(self.roots))
        while stack:
            c = self._db.context(stack.pop())
            yield c
            stack.extend(reversed(c.children))


ProfileSel = Union[None, str, int, Sequence[int]]


def _column_names(metrics) -> list:
    """The column name of each metric in the frames (unique; ' [id N]'
    breaks ties): '<name>' for an exclusive metric, '<name> (inc)' for an
    inclusive one, '<name> (<kind>)' for the other kinds."""
    names, seen = [], set()
    for m in metrics:
        if m.kind == "exclusive":
            n = m.name
        elif m.kind == "inclusive":
            n = m.name + " (inc)"
        else:
            n = "%s (%s)" % (m.name, m.kind)
        if n in seen or n in ("name", "file", "line", "module"):
            n = "%s [id %d]" % (n, m.id)
        seen.add(n)
        names.append(n)
    return names

# The records of Match.pairs and Match.values (profdb_pair, profdb_pair_values).
_PAIR_FIELDS = ("node_a", "node_b", "context_a", "context_b", "parent", "depth")
_PAIR_DTYPE = np.dtype([(f, np.int64) for f in _PAIR_FIELDS])
_PAIR_VALUES_DTYPE = np.dtype([(f, np.float64) for f in
                               ("inclusive_a", "exclusive_a", "inclusive_b", "exclusive_b")])


@_record
class MatchCounts:
    """The sizes of a match (profdb_match_counts): rows = matched + only_a + only_b."""
    metrics: int
    rows: int
    matched: int
    only_a: int
    only_b: int


@_record
class Match:
    """The call paths of two databases paired (Database.match(); profdb_match_new).
    A copy: it holds neither database.

    - pairs: one record per call path in either top-down view, in pre-order
      of the union of the two trees (row 0 pairs the roots); int64 fields
      node_a, node_b (node ids in the views, -1 on the side that lacks the
      path), context_a, context_b (the context each node stands for, -1 for
      none: a missing side, the root, a "<other>" node), parent (row of the
      parent path, -1 for row 0) and depth;
    - values: shape (metrics, rows), float64 fields inclusive_a,
      exclusive_a, inclusive_b, exclusive_b (0 on the side that lacks the
      path, NaN where the format cannot give the scope);
    - metrics: the matched metrics, (id in self, id in other) each;
    - counts: MatchCounts.
    """
    pairs: np.ndarray
    values: np.ndarray
    metrics: list
    counts: MatchCounts


@_record
class SummaryCounts:
    """What Database.summary_check() found, as counts (profdb_summary_counts)."""
    summary: int            # the summary profile's index
    stored: int             # values stored in the summary profile
    checked: int            # ... under a statistic id: every one is checked
    agree: int              # within the bound
    explained: int          # disagreements with a documented hpcprof defect
    unexplained: int
    unchecked: int          # lex_aware values at loop contexts that differ
    unknown_ids: int        # stored under an id that is no statistic id
    missing: int            # thread values without their summary value
    missing_explained: int
    missing_unchecked: int  # ... of a lex_aware statistic at a loop context


@_record
class SummaryIssue:
    """A stored summary value that disagrees with profdb's statistic
    (missing False), or thread values whose statistic is not stored
    (missing True; stored None). profdb_summary_issue."""
    context: int
    statistic_id: int       # its metric id in the summary profile
    metric: int             # the metric id it summarises
    statistic: str          # "sum", "min", "max", "sum of squares", "count", ...
    missing: bool
    stored: Optional[float]
    expected: float         # profdb's statistic; NaN without thread values
    bound: float            # the tolerance applied
    terms: int              # thread values combined
    reason: str             # profdb_summary_reason_name(): "none", "hpcprof-...", ...


@_record
class SummaryCheck:
    """The check of a stored summary profile against the thread profiles
    (Database.summary_check(); profdb_summary_check_new). A copy: it holds
    no database.

    - counts: SummaryCounts;
    - issues: the disagreements in the order of the summary profile's
      values, then the missing values by statistic id and context.
    """
    counts: SummaryCounts
    issues: list

    @property
    def ok(self) -> bool:
        """True when every disagreement and every missing value has a
        documented reason or is unchecked (the exit status 0 of
        `profdb stats --check-summary`)."""
        n = self.counts
        return n.unexplained == 0 and n.missing <= n.missing_explained + n.missing_unchecked


def _metric_keys(metrics) -> Optional[list]:
    """match()'s metrics as profdb_match_options wants them: names or ids."""
    if metrics is None:
        return None
    if isinstance(metrics, (str, int)):
        return [metrics]
    return list(metrics)


class Database(_profdb.Database):
    """An open profile database (profdb.open()); a context manager."""

    @property
    def metrics(self) -> tuple:
        """Every metric (Metric), in the format's order."""
        return self._metrics()

    @property
    def profiles(self) -> tuple:
        """Every profile (Profile), summary included, by index."""
        return self._profiles()

    @property
    def contexts(self) -> Contexts:
        """The calling-context tree (Contexts)."""
        return Contexts(self)

    def profile_indices(self, profiles: ProfileSel = None, summary: bool = True) -> list:
        """Profile indices from a selection: None (every profile, or every
        non-summary one with summary=False), a spec string ('rank=0-3'), an
        index, or a sequence of indices."""
        if profiles is None and summary:
            return list(range(self._profile_count()))
        if profiles is None:
            return [p.index for p in self.profiles if not p.is_summary]
        if isinstance(profiles, str):
            return list(self.select(profiles))
        if not isinstance(profiles, np.ndarray) and hasattr(type(profiles), "__index__"):
            profiles = [profiles]
        return [operator.index(p) for p in profiles]

    def metric_ids(self, metrics: Union[None, str, int, Sequence[Union[str, int]]] = None) -> list:
        """Metric ids from names, ids or the frames' column names ('time
        (inc)'; None: every metric with data)."""
        if metrics is None:
            return [m.id for m in self.metrics if m.has_data]
        if isinstance(metrics, (str, int)):
            metrics = [metrics]
        return [self._metric_by_key(m).id for m in metrics]

    def _metric_by_key(self, key) -> Metric:
        """metric(key), and for a string that names no metric, the metric
        whose column in dataframe() or stats_frame() has that name."""
        try:
            return self.metric(key)
        except NotFound:
            if not isinstance(key, str):
                raise
            columns = dict(zip(_column_names(self.metrics), self.metrics))
            if key not in columns:
                raise
            return columns[key]

    def values(self, profile: Optional[int] = None, context: Optional[int] = None) -> Values:
        """The stored values of one profile (profile=index) or of one
        context over the profiles that are not summary profiles
        (context=id), as Values(index, records): numpy arrays over the
        database's memory, not copies."""
        if (profile is None) == (context is None):
            raise TypeError("values(): give exactly one of profile= and context=")
        if profile is not None:
            return Values(*self._profile_arrays(profile))
        return Values(*self._context_arrays(context))

    def all_values(self) -> list:
        """Values of every profile, by index: one validation pass with the
        GIL released, then arrays over the mapping (no copy)."""
        return [Values(*p) for p in self._all_profile_arrays()]

    def stats(self, profiles: ProfileSel = None, metrics=None, threads: int = 0) -> Stats:
        """Statistics over profiles (count, sum, min, max, mean, stddev,
        imbalance per context and metric) in one parallel pass; profiles
        None = every non-summary profile, metrics None = every metric with
        stored values. Stats.n is the number of profiles selected: for a
        metric that adds, mean, stddev and imbalance count a selected
        profile without a value as 0. The GIL is released while it runs."""
        p = None if profiles is None else self.profile_indices(profiles)
        m = None if metrics is None else self.metric_ids(metrics)
        return self._stats(p, m, threads)

    def summary_check(self, threads: int = 0) -> SummaryCheck:
        """Check every value of the summary profile that hpcprof stores
        (HPCToolkit 4.0) against the thread profiles, and every statistic
        the thread values have against a stored value, with hpcprof's own
        rule (profdb_summary_check_new; what `profdb stats --check-summary`
        prints). threads: worker threads (0: every core). The GIL is
        released while it runs. Raises NotSupported for a format that
        stores no summary statistics or a database without a summary
        profile."""
        counts, issues = self._summary_check(threads)
        return SummaryCheck(SummaryCounts(*counts), [SummaryIssue(*t) for t in issues])

    def view(self, kind: str = "top-down", metrics=None, profiles: ProfileSel = None,
             cutoff: float = 0.0) -> Tree:
        """One of the three views: 'top-down', 'bottom-up' or 'flat', for
        the metrics (names or ids; None: default_metric(), as `profdb tree`
        picks it) over the profiles (None: the summary where there is one)."""
        if kind not in _TREE_KINDS:
            raise ValueError("kind must be one of %s" % ", ".join(_TREE_KINDS))
        ids = [self.default_metric().id] if metrics is None else self.metric_ids(metrics)
        p = None if profiles is None else self.profile_indices(profiles)
        return self._view(_TREE_KINDS[kind], ids, p, cutoff)

    def match(self, other: "Database", metrics=None, other_metrics=None,
              profiles: ProfileSel = None, other_profiles: ProfileSel = None,
              cutoff: float = 0.0) -> Match:
        """Pair the call paths of this database's top-down view with those
        of `other` (any two formats; profdb_match_new): paths by their
        function, file and line names, metrics by name.

        metrics: names or ids of this database's metrics (None: every
        metric name both have); other_metrics: the metric of `other` paired
        with each (None: the one of the same name). profiles /
        other_profiles: the profiles combined on each side (None: the
        view's default, the summary where stored). cutoff: the views'
        cut-off (0: their default). The GIL is released while it runs;
        the result is a copy (Match)."""
        p = None if profiles is None else self.profile_indices(profiles)
        q = None if other_profiles is None else other.profile_indices(other_profiles)
        pairs, values, ids, counts = self._match(other, _metric_keys(metrics),
                                                 _metric_keys(other_metrics), p, q, float(cutoff))
        none = np.uint32(0xFFFFFFFF)
        out = np.empty(len(pairs), dtype=_PAIR_DTYPE)
        for k, f in enumerate(_PAIR_FIELDS):
            col = pairs[:, k]
            out[f] = np.where(col == none, -1, col.astype(np.int64)) if f != "depth" else col
        vals = np.empty(values.shape[:2], dtype=_PAIR_VALUES_DTYPE)
        for k, f in enumerate(_PAIR_VALUES_DTYPE.names):
            vals[f] = values[:, :, k]
        return Match(out, vals, [tuple(t) for t in ids], MatchCounts(*counts))

    def to_svg(self, path, metric: Union[None, str, int] = None, profiles: ProfileSel = None,
               icicle: bool = False, width: float = 1200.0, min_width: float = 0.1,
               color: str = "module", title: Optional[str] = None) -> None:
        """Draw a flame graph into `path` as one self-contained SVG file
        (`profdb convert -t svg`; doc/CONVERT.md "SVG flame graph").

        metric: a name, id or frame column name (None: the first metric
        with values, as the tool picks it); profiles: the profiles combined
        by the metric's rule (None: every non-summary profile; a spec
        string as `--profiles`). icicle draws the root at the top; width is
        the frames' width in pixels; frames narrower than min_width pixels
        are merged into their parent; color is "module" or "file"; title
        names the picture (None: the path this database was opened with,
        as the tool gives its input's path, so both write the same bytes).
        A metric that does not add up raises NotSupported. The file is
        written to a temporary file next to `path` and renamed over it on
        success, so a refused conversion leaves an existing file as it was.
        The GIL is released while it runs."""
        if color not in _SVG_COLORS:
            raise ValueError("color must be one of %s" % ", ".join(_SVG_COLORS))
        m = None if metric is None else [self._metric_by_key(metric).id]
        p = None if profiles is None else self.profile_indices(profiles)
        _write_through_temporary(path, lambda fd: self._convert(
            fd, "svg", m, p, bool(icicle), float(width), float(min_width),
            self.path if title is None else title, _SVG_COLORS[color]))

    def to_timeline(self, path, profiles: ProfileSel = None,
                    window: Optional[Tuple[Union[None, str, int], Union[None, str, int]]] = None,
                    depth: Optional[int] = None, width: float = 1200.0,
                    title: Optional[str] = None) -> None:
        """Draw the traces into `path` as one self-contained SVG timeline
        (`profdb convert -t timeline`; doc/CONVERT.md "SVG timeline"): one
        row per trace line, each pixel column coloured by the function in
        effect at its centre time.

        profiles: the rows (None: every non-summary profile with samples; a
        spec string as `--profiles`); window: (FROM, TO) since the trace's
        start, each a time as `profdb trace --from` reads it ("1.5s",
        "200ms") or integer nanoseconds, None for the start or the end;
        depth: colour by the function at that call depth (1 the outermost;
        None: the innermost); width: pixel columns; title as for to_svg.
        A database without traces raises NotSupported. Written through a
        temporary file renamed over `path` on success, the GIL released."""
        def ns(v, what):
            if v is None:
                return 0
            if isinstance(v, str):
                return self._time_parse(v)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v >= 1 << 64:
                raise ValueError("window %s: a time string or nanoseconds in [0, 2^64)" % what)
            return v
        lo, hi = (None, None) if window is None else window
        lo_ns, hi_ns = ns(lo, "FROM"), ns(hi, "TO")
        if hi is not None and hi_ns <= lo_ns:
            raise ValueError("window: ends at or before it starts")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int)
                                  or not 1 <= depth < 1 << 32):
            raise ValueError("depth: 1 is the outermost frame (None: the innermost)")
        p = None if profiles is None else self.profile_indices(profiles)
        _write_through_temporary(path, lambda fd: self._convert(
            fd, "timeline", None, p, False, float(width), 0.0,
            self.path if title is None else title, 0, lo_ns, hi_ns, depth or 0))

    # ---- pandas (imported on first use) ----

    def dataframe(self, metrics=None, profiles: ProfileSel = None, scope: str = "all",
                  computed: bool = False):
        """Every stored value as a pandas DataFrame in hatchet's layout; with
        computed=True, the exclusive and inclusive value of each metric's
        quantity by its rule (profdb_exclusive/profdb_inclusive) instead.
        attrs["default_metric"] names the column of default_metric() (as
        hatchet's default_metric), None when the frame has no such column."""
        from . import _frames
        return _frames.frame(self, metrics, profiles, scope, computed)

    def tree(self):
        """The calling-context tree as a DataFrame indexed by node id."""
        from . import _frames
        return _frames.tree(self)

    def stats_frame(self, profiles: ProfileSel = None, metrics=None, threads: int = 0):
        """Statistics over profiles as a DataFrame, one row per context."""
        from . import _frames
        return _frames.stats_frame(self, profiles, metrics, threads)

    def trace_frame(self, profile: int):
        """A profile's trace as a DataFrame (time, context, name, duration)."""
        from . import _frames
        return _frames.trace_frame(self, profile)


_SVG_COLORS = {"module": 0, "file": 1}


def _write_through_temporary(path, write) -> None:
    """Call write(fd) on a new file next to `path` (created with mode
    0o666 less the umask, or the mode of the file it replaces) and rename
    it over `path` once write returned; remove it if write raised. A path
    that exists and is not a regular file (/dev/null, a FIFO) is written
    directly."""
    path = os.fsdecode(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    if st is not None and not _stat.S_ISREG(st.st_mode):
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC | os.O_NOCTTY)
        try:
            write(fd)
        finally:
            os.close(fd)
        return
    final = os.path.realpath(path) if st is not None else path
    folder, name = os.path.split(final)
    for _ in range(100):
        tmp = os.path.join(folder, ".%s.%s" % (name, os.urandom(6).hex()))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError("%s: no free temporary name next to it" % path)
    try:
        try:
            write(fd)
        finally:
            os.close(fd)
        if st is not None:
            os.chmod(tmp, _stat.S_IMODE(st.st_mode))
        os.replace(tmp, final)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def open(path, **options) -> Database:  # noqa: A001 (the module's verb, as gzip.open)
    """Open a database of any format profdb reads: an HPCToolkit database
    directory, a measurements directory, a .cubex, a callgrind.out file.

    Options (keyword only): copy (read into memory instead of mapping),
    populate (prefault the mapping), tolerant (damaged blocks read as
    absent; see .warnings), functions_only (Callgrind: no line contexts),
    max_memory (bytes a decoder may materialise; 0 = 4 GiB).
    Raises profdb.Error (NotFound, NotSupported, Corrupt) with the errno
    and the library's message."""
    return Database(path, **options)
