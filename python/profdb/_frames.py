"""pandas frames over a profdb Database (imported on first use, so that
`import profdb` needs numpy only).

dataframe() follows hatchet's layout: a MultiIndex (node = context id,
profile = profile index), one column per metric -- '<name>' for an
exclusive metric, '<name> (inc)' for an inclusive one, '<name> (<kind>)'
for the other kinds -- and name, file, line, module (name: the function,
or for a loop or line scope the tool's "loop at file.c:12", "file.c:13"). Metric columns are
pandas' masked arrays (Float64, UInt64, Int64): a cell is missing (<NA>)
exactly where nothing is stored, and a stored NaN stays a value with its
bits, so df[metric columns].count().sum() is the number of stored values.
"""
import numpy as np
import pandas as pd

from . import NotFound, _column_names

_KINDS = ("all", "exclusive", "inclusive", "point", "summary", "other")


def column_names(metrics):
    """The column name of each metric (unique; ' [id N]' breaks ties)."""
    return _column_names(metrics)


class _ContextIndex:
    """Contexts as _context_lookup() reads them, sorted by id: the codes of
    name, file and module into their string lists, and the line. `tree`
    says whether it holds every tree node (read from _context_table()) or
    only the contexts frames asked for. Never changed once made: contexts
    found later make a new index that replaces it, so a reader in another
    thread always holds a whole one."""

    _COLS = ("name", "file", "module")

    def __init__(self, ids, codes, line, cats, where, tree):
        self.ids, self.codes, self.line, self.cats = ids, codes, line, cats
        self._slot = None   # positions by id (dense ids), built by positions()
        self.where = where  # per column: string -> code, the inverse of cats
        self.tree = tree
        self._dtypes = None

    @property
    def dtypes(self):
        """The CategoricalDtype of each column (pandas checks the
        categories of a dtype once, not per frame). The categories come
        as an object Index, so pandas does not infer the type of a list
        of strings first."""
        if self._dtypes is None:
            dtypes = {}
            for col in self._COLS:
                cats = pd.Index(np.array(self.cats[col], dtype=object), dtype=object, copy=False)
                dtypes[col] = pd.CategoricalDtype(cats)
            self._dtypes = dtypes   # whole, for a reader in another thread
        return self._dtypes

    @classmethod
    def of_table(cls, t):
        order = np.argsort(t["id"], kind="stable")
        cats = {col: t[col + "_values"] for col in cls._COLS}
        return cls(t["id"][order],
                   {col: _category_codes(t[col][order], len(cats[col])) for col in cls._COLS},
                   t["line"][order], cats, {col: t[col + "_index"] for col in cls._COLS}, True)

    @classmethod
    def empty(cls):
        """An index of no context, which frames fill with theirs."""
        return cls(np.zeros(0, np.uint32), {col: np.zeros(0, np.int8) for col in cls._COLS},
                   np.zeros(0, np.uint64), {col: [] for col in cls._COLS},
                   {col: {} for col in cls._COLS}, False)

    def _dense(self, top):
        """Whether ids up to `top` are dense enough for tables indexed by
        id (context ids number the slots of a database): one read per row
        instead of a binary search, and no sort of the rows."""
        return top < 4 * len(self.ids) + 65536

    def lacking(self, ids):
        """The distinct ids of `ids` the index lacks, ascending."""
        if not len(ids):
            return ids[:0]
        top = max(int(ids.max()), int(self.ids[-1]) if len(self.ids) else 0)
        if self._dense(top):
            seen = np.zeros(top + 1, np.bool_)
            seen[ids] = True
            seen[self.ids] = False
            return np.flatnonzero(seen).astype(ids.dtype)
        distinct = np.unique(ids)
        return distinct[~np.isin(distinct, self.ids, assume_unique=True)]

    def positions(self, ids):
        """Where each id of `ids`, all of them in the index, is in it."""
        if not len(ids):
            return np.zeros(0, np.intp)
        top = int(self.ids[-1])
        if self._dense(top):
            if self._slot is None:
                slot = np.zeros(top + 1, np.intp)
                slot[self.ids] = np.arange(len(self.ids))
                self._slot = slot
            return self._slot[ids]
        return np.searchsorted(self.ids, ids)

    def with_contexts(self, db, missing):
        """A new index that also holds the contexts `missing` (those the
        database cannot name read as empty strings: a trace's "no
        context" id 0)."""
        cats = {col: list(self.cats[col]) for col in self._COLS}
        where = {col: dict(self.where[col]) for col in self._COLS}
        # in C, one pass: the copies above grow by the new strings
        *codes, extra_line = db._context_rows(
            missing.astype(np.uint32),
            *[x for col in self._COLS for x in (where[col], cats[col])])
        extra = dict(zip(self._COLS, codes))
        ids = np.concatenate([self.ids, missing.astype(np.uint32)])
        order = np.argsort(ids, kind="stable")
        codes = {col: _category_codes(np.concatenate([self.codes[col], extra[col]])[order],
                                      len(cats[col]))
                 for col in self._COLS}
        return _ContextIndex(ids[order], codes, np.concatenate([self.line, extra_line])[order],
                             cats, where, self.tree)


def _category_codes(codes, n):
    """`codes` in the integer type a pandas Categorical of `n` categories
    keeps them in (int8 below 127 categories, int16 below 32767, ...):
    from_codes then takes each frame's codes without converting a copy."""
    for t in (np.int8, np.int16, np.int32):
        if n < np.iinfo(t).max:
            return codes.astype(t, copy=False)
    return codes.astype(np.int64, copy=False)


def _context_index(db, ids, tree):
    """The database's _ContextIndex, holding every id of `ids`, and the
    position of each id in it. With `tree`, the index starts from the
    whole tree's table (read once per database: the traces of a database
    name most of its nodes, a few at a time); without, from the contexts
    of `ids` alone (a frame of stored values names each of its contexts
    once: its distinct ids are asked for in one call, the tree walk and
    the nodes without values spared)."""
    index = db.__dict__.get("_frames_context_index")
    if index is None or (tree and not index.tree):
        index = _ContextIndex.of_table(db._context_table()) if tree else _ContextIndex.empty()
        db.__dict__["_frames_context_index"] = index
    missing = index.lacking(ids)
    if len(missing):
        index = index.with_contexts(db, missing)
        # One assignment: a thread that extended the index at the same
        # time replaces it with one as good for its own caller.
        db.__dict__["_frames_context_index"] = index
    return index, index.positions(ids)


def _context_lookup(db, ids, cols=("name", "file", "module"), tree=False, rows=None):
    """name, file, module (or those of `cols`) and line of each context id
    in `ids`: categoricals (codes into the distinct strings) and a line
    array, from the database's _ContextIndex: tree nodes and the contexts
    that have values but no tree node (HPCToolkit elides some; a trace's
    "no context" id 0 has neither) alike. `tree`: see _context_index.
    With `rows` (positions into `ids`), `ids` are distinct and the columns
    are those of ids[rows], found per distinct id and then spread."""
    ids = np.asarray(ids, dtype=np.uint32)
    index, pos = _context_index(db, ids, tree)
    frame = {}
    for col in cols:
        codes = index.codes[col][pos] if len(index.ids) else pos
        if rows is not None:
            codes = codes[rows]
        frame[col] = pd.Categorical.from_codes(codes, dtype=index.dtypes[col])
    line = index.line[pos] if len(index.ids) else np.zeros(len(ids), np.uint64)
    frame["line"] = line if rows is None else line[rows]
    return frame


def _frame_rows(db, ctx, prof):
    """The MultiIndex (node, profile) of a frame's rows and its context
    columns (_context_lookup). Where the ids allow a table by id
    (_levels), the levels and codes come from one pass in C each, without
    hashing every row, and each distinct context is looked up once."""
    ctx_level, prof_level = db._levels(ctx), db._levels(prof)
    if ctx_level is None or prof_level is None:
        return (pd.MultiIndex.from_arrays([ctx, prof], names=["node", "profile"]),
                _context_lookup(db, ctx))
    index = pd.MultiIndex(levels=[pd.Index(ctx_level[0]), pd.Index(prof_level[0])],
                          codes=[ctx_level[1], prof_level[1]], names=["node", "profile"],
                          verify_integrity=False)
    return index, _context_lookup(db, ctx_level[0], rows=ctx_level[1])


def _masked(bits, present, mtype):
    mask = ~present
    if mtype == "u64":
        return pd.arrays.IntegerArray(bits.view(np.uint64), mask)
    if mtype == "i64":
        return pd.arrays.IntegerArray(bits.view(np.int64), mask)
    return pd.arrays.FloatingArray(bits.view(np.float64), mask)


class _FrameMemory:
    """numpy's data allocations of the block, in this thread or task,
    come from an arena of huge-page chunks (python/src/arena.c): a frame
    touches every page of its arrays once, and a fault per 2 MiB instead
    of per 4 KiB is most of a first frame's time on a virtual machine."""

    def __init__(self, db):
        self._db = db

    def __enter__(self):
        self._token = self._db._frame_memory()

    def __exit__(self, *exc):
        self._db._frame_memory_end(self._token)


def frame(db, metrics=None, profiles=None, scope="all", computed=False):
    """Database.dataframe(): the stored frame or (computed) scopes_frame,
    its arrays in a _FrameMemory arena."""
    with _FrameMemory(db):
        if computed:
            return scopes_frame(db, metrics, profiles, scope)
        return dataframe(db, metrics, profiles, scope)


def dataframe(db, metrics=None, profiles=None, scope="all"):
    """Every stored value (of the metrics, in the profiles) in hatchet's
    layout; scope keeps only the metrics of one kind ('exclusive',
    'inclusive', 'point', 'summary', 'other'; 'all' keeps every one)."""
    if scope not in _KINDS:
        raise ValueError("scope must be one of " + ", ".join(_KINDS))
    ids = db.metric_ids(metrics)
    infos = [db.metric(i) for i in ids]
    if scope != "all":
        infos = [m for m in infos if m.kind == scope]
    ids = [m.id for m in infos]
    ctx, prof, bits, present = db._gather(db.profile_indices(profiles), ids)
    data = {}
    for j, (m, col) in enumerate(zip(infos, column_names(infos))):
        data[col] = _masked(bits[j], present[j], m.type)
    index, ctxinfo = _frame_rows(db, ctx, prof)
    for col in ("name", "file", "line", "module"):
        data[col] = ctxinfo[col]
    df = pd.DataFrame(data, index=index, copy=False)
    df.attrs["default_metric"] = _default_column(db, zip(ids, column_names(infos)))
    return df


_TAG_TYPES = {1: "u64", 2: "i64", 3: "f64"}


def _quantities(db, metrics):
    """One metric per quantity (its exclusive and inclusive scopes, and a
    point metric that names them, are one quantity), in the order first
    met: the quantity's exclusive metric (else its inclusive one) and the
    column name of its exclusive value, the metric's name; a metric with
    neither scope id stands alone as '<name> (<kind>)'."""
    out, seen = [], set()
    for i in db.metric_ids(metrics):
        m = db.metric(i)
        key = (m.exclusive_id, m.inclusive_id)
        if key == (None, None):          # no scopes of its own: named by its kind
            key, base = ("id", m.id), "%s (%s)" % (m.name, m.kind)
        else:                            # named as hatchet names the exclusive scope
            m, base = db.metric(m.exclusive_id if m.exclusive_id is not None
                                else m.inclusive_id), m.name
        if key in seen:
            continue
        seen.add(key)
        out.append((m, base))
    return out


def _scope_column(bits, tags, declared):
    """A masked column from the library's numbers: their own type when all
    agree (bits unchanged), float64 converted per number when they mix."""
    present = tags != 0
    kinds = np.unique(tags[present])
    if len(kinds) <= 1:
        mtype = _TAG_TYPES[int(kinds[0])] if len(kinds) else declared
        return _masked(bits, present, mtype)
    out = bits.astype(np.float64)                  # u64
    i64 = tags == 2
    out[i64] = bits[i64].view(np.int64).astype(np.float64)
    f64 = tags == 3
    out[f64] = bits[f64].view(np.float64)
    return pd.arrays.FloatingArray(out, ~present)


def scopes_frame(db, metrics=None, profiles=None, scope="all"):
    """dataframe(computed=True): per (profile, context), the exclusive
    ('<name>') and inclusive ('<name> (inc)') value of each metric's
    quantity, as profdb_exclusive/profdb_inclusive give them (combined by
    the metric's rule); scope 'exclusive' or 'inclusive' keeps one of the
    two. A cell is <NA> where the library has nothing there or cannot say
    (ENOTSUP); a row is there when any cell holds a value. Contexts: every
    tree node and every context with a stored value in the profiles."""
    if scope not in ("all", "exclusive", "inclusive"):
        raise ValueError("with computed=True, scope must be 'all', 'exclusive' or 'inclusive'")
    qs = _quantities(db, metrics)
    prof = db.profile_indices(profiles)
    ids = [m.id for m, _ in qs]
    stored = sorted({i for m, _ in qs for i in (m.id, m.exclusive_id, m.inclusive_id)
                     if i is not None})
    ctx_stored = db._gather(prof, stored)[0]
    contexts = np.union1d(db._context_table()["id"], ctx_stored).astype(np.uint32)
    ctx, prof_col, bits, tags = db._scopes(prof, contexts.tolist(), ids)
    data, taken, columns = {}, {"name", "file", "line", "module"}, []
    for k, (m, base) in enumerate(qs):
        for j, (sc, col) in enumerate((("exclusive", base), ("inclusive", base + " (inc)"))):
            if scope != "all" and scope != sc:
                continue
            if col in taken:
                col = "%s [id %d]" % (col, m.id)
            taken.add(col)
            columns.append((m.id, col))
            data[col] = _scope_column(bits[2 * k + j], tags[2 * k + j], m.type)
    ctxinfo = _context_lookup(db, ctx)
    for col in ("name", "file", "line", "module"):
        data[col] = ctxinfo[col]
    index = pd.MultiIndex.from_arrays([ctx, prof_col], names=["node", "profile"])
    df = pd.DataFrame(data, index=index, copy=False)
    df.attrs["default_metric"] = _default_column(db, columns)
    return df


def _default_column(db, columns):
    """The column, among (metric id, column name) pairs, of the library's
    default metric (db.default_metric(), as `profdb top` picks it): its own
    id first, then its exclusive and its inclusive scope; None when the
    frame holds none of them or no metric has values."""
    columns = list(columns)
    try:
        d = db.default_metric()
    except NotFound:
        return None
    for want in (d.id, d.exclusive_id, d.inclusive_id):
        for mid, col in columns:
            if want is not None and mid == want:
                return col
    return None


_CTX_TYPES = ("unknown", "root", "function", "loop", "line", "instruction")


def tree(db):
    """The tree nodes in pre-order: index node (context id), columns
    parent (<NA> for a root), children (tuple of ids), depth, type, name,
    file, line, module."""
    t = db._context_table()
    ids, parent = t["id"], t["parent"]
    children = {int(i): [] for i in ids}
    for i, p in zip(ids.tolist(), parent.tolist()):
        if p >= 0 and p in children:
            children[p].append(i)
    frame = {
        "parent": pd.arrays.IntegerArray(np.where(parent < 0, 0, parent).astype(np.int64),
                                         parent < 0),
        "children": [tuple(children[i]) for i in ids.tolist()],
        "depth": t["depth"],
        "type": pd.Categorical.from_codes(t["type"].astype(np.int32), categories=_CTX_TYPES),
    }
    for col in ("name", "file", "module"):
        frame[col] = pd.Categorical.from_codes(t[col], categories=t[col + "_values"])
    frame["line"] = t["line"]
    return pd.DataFrame(frame, index=pd.Index(ids, name="node"))


_STATS = ("count", "sum", "min", "max", "mean", "stddev", "imbalance", "imbalance_pct",
          "min_profile", "max_profile")


def stats_frame(db, profiles=None, metrics=None, threads=0):
    """Statistics over profiles: one row per context (index node), columns
    (metric column name, statistic) -- count, sum, min, max, mean, stddev,
    imbalance, imbalance_pct, min_profile, max_profile."""
    st = db.stats(profiles, metrics, threads)
    rows = st.rows()
    del st
    flat = pd.DataFrame({f: rows[f] for f in ("context", "metric") + _STATS})
    wide = flat.pivot(index="context", columns="metric", values=list(_STATS))
    infos = [db.metric(int(i)) for i in wide.columns.get_level_values(1).unique()]
    names = dict(zip([m.id for m in infos], column_names(infos)))
    wide.columns = pd.MultiIndex.from_tuples(
        [(names[m], s) for s, m in wide.columns], names=["metric", "statistic"])
    wide = wide.sort_index(axis=1, level=0, sort_remaining=False)
    wide.index.name = "node"
    return wide


def trace_frame(db, profile):
    """A profile's trace: columns time (ns), context, name and duration (ns
    to the next sample; <NA> for the last), one row per sample."""
    tr = db.trace(profile)
    time = np.array(tr["time"], dtype=np.uint64)
    ctx = np.array(tr["context"], dtype=np.uint32)
    del tr
    dur = np.zeros(len(time), dtype=np.uint64)
    if len(time):
        dur[:-1] = np.diff(time)
    mask = np.zeros(len(time), dtype=bool)
    mask[-1:] = True
    info = _context_lookup(db, ctx, ("name",), tree=True)
    return pd.DataFrame({"time": time, "context": ctx, "name": info["name"],
                         "duration": pd.arrays.IntegerArray(dur, mask)})
