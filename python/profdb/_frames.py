"""pandas frames over a profdb Database (imported on first use, so that
`import profdb` needs numpy only).

dataframe() follows hatchet's layout: a MultiIndex (node = context id,
profile = profile index), one column per metric -- '<name>' for an
exclusive metric, '<name> (inc)' for an inclusive one, '<name> (<kind>)'
for the other kinds -- and name, file, line, module. Metric columns are
pandas' masked arrays (Float64, UInt64, Int64): a cell is missing (<NA>)
exactly where nothing is stored, and a stored NaN stays a value with its
bits, so df[metric columns].count().sum() is the number of stored values.
"""
import numpy as np
import pandas as pd

from ._profdb import NotFound

_KINDS = ("all", "exclusive", "inclusive", "point", "summary", "other")


def column_names(metrics):
    """The column name of each metric (unique; ' [id N]' breaks ties)."""
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


def _context_lookup(db, ids):
    """name, file, line, module of each context id in `ids`: categoricals
    (codes into the distinct strings) and a line array, from the tree table
    plus the contexts that have values but no tree node (HPCToolkit elides
    some; a trace's "no context" id 0 has neither)."""
    t = db._context_table()
    cols = ("name", "file", "module")
    cats = {col: list(t[col + "_values"]) for col in cols}
    where = {col: {s: i for i, s in enumerate(cats[col])} for col in cols}
    missing = np.setdiff1d(np.unique(ids), t["id"]).tolist()
    extra = {col: np.zeros(len(missing), np.int32) for col in cols}
    extra_line = np.zeros(len(missing), np.uint64)
    for k, cid in enumerate(missing):
        try:
            c = db.context(int(cid))
            texts, extra_line[k] = (c.name, c.file, c.module), c.line
        except NotFound:
            texts = ("", "", "")
        for col, text in zip(cols, texts):
            code = where[col].get(text)
            if code is None:
                code = where[col][text] = len(cats[col])
                cats[col].append(text)
            extra[col][k] = code
    all_ids = np.concatenate([t["id"], np.array(missing, dtype=np.uint32)])
    order = np.argsort(all_ids, kind="stable")
    pos = order[np.searchsorted(all_ids[order], ids)] if len(all_ids) else \
        np.zeros(len(ids), np.intp)
    frame = {}
    for col in cols:
        codes = np.concatenate([t[col], extra[col]])[pos] if len(all_ids) else pos
        frame[col] = pd.Categorical.from_codes(codes, categories=cats[col])
    frame["line"] = np.concatenate([t["line"], extra_line])[pos] if len(all_ids) else \
        np.zeros(len(ids), np.uint64)
    return frame


def _masked(bits, present, mtype):
    mask = ~present
    if mtype == "u64":
        return pd.arrays.IntegerArray(bits.view(np.uint64), mask)
    if mtype == "i64":
        return pd.arrays.IntegerArray(bits.view(np.int64), mask)
    return pd.arrays.FloatingArray(bits.view(np.float64), mask)


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
    ctxinfo = _context_lookup(db, ctx)
    for col in ("name", "file", "line", "module"):
        data[col] = ctxinfo[col]
    index = pd.MultiIndex.from_arrays([ctx, prof], names=["node", "profile"])
    return pd.DataFrame(data, index=index, copy=False)


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
    info = _context_lookup(db, ctx)
    return pd.DataFrame({"time": time, "context": ctx, "name": info["name"],
                         "duration": pd.arrays.IntegerArray(dur, mask)})
