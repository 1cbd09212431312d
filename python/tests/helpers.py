"""Comparisons of the module's arrays with `profdb dump --json`."""
import math
import struct

import numpy as np

import profdb


def record_bits(records):
    """The 64 bits of every record's value, as profdb_view_value reads
    them: floats and integers as stored (u16/u32 widened)."""
    v = records["value"]
    if v.dtype.kind == "f":
        return v.astype(v.dtype.newbyteorder("=")).view(np.uint64)
    if v.dtype.kind == "i":
        return v.astype(np.int64).view(np.uint64)
    return v.astype(np.uint64)


def record_is_float(records):
    if "tag" in records.dtype.names:
        return records["tag"] == 3
    return np.full(len(records), records["value"].dtype.kind == "f")


def module_values(db):
    """(profile, context, metric, bits, is_float) of every stored value,
    read through the zero-copy arrays."""
    parts = []
    for p, vals in enumerate(db.all_values()):
        n = len(vals.records)
        parts.append((np.full(n, p, np.uint64), vals.outer().astype(np.uint64),
                      vals.records["metric"].astype(np.uint64), record_bits(vals.records),
                      record_is_float(vals.records)))
    if not parts:
        return tuple(np.zeros(0, np.uint64) for _ in range(4)) + (np.zeros(0, bool),)
    return tuple(np.concatenate([p[i] for p in parts]) for i in range(5))


def dump_number_bits(v, is_float):
    """The bits `profdb dump --json` means by a value (ints exact, floats
    with 17 digits, "nan(0x...)" with its bits, "inf", "-inf")."""
    if isinstance(v, str):
        if v.startswith("nan(") or v.startswith("-nan("):
            return int(v[v.index("(") + 1:-1], 16)
        v = {"inf": math.inf, "-inf": -math.inf}[v]
    if is_float or isinstance(v, float):
        return struct.unpack("<Q", struct.pack("<d", float(v)))[0]
    return v & 0xFFFFFFFFFFFFFFFF


def assert_values_match_dump(db, dumped):
    """Every stored value bit for bit, and nothing else."""
    P, C, M, B, F = module_values(db)
    order = np.lexsort((M, C, P))
    rows = sorted((int(p), int(c), int(m), v) for p, c, m, v in dumped)
    assert len(rows) == len(P), "value count: dump %d, arrays %d" % (len(rows), len(P))
    assert [r[:3] for r in rows] == list(zip(P[order].tolist(), C[order].tolist(),
                                             M[order].tolist()))
    expect = np.array([dump_number_bits(r[3], bool(f)) for r, f in zip(rows, F[order])],
                      dtype=np.uint64)
    bad = np.nonzero(expect != B[order])[0]
    assert len(bad) == 0, "first differing value: %r vs bits %#x" % (
        rows[bad[0]], int(B[order][bad[0]]))


def dataframe_checks(db, dumped):
    """In db.dataframe(): non-missing metric cells == stored values, rows ==
    distinct (profile, context) pairs."""
    df = db.dataframe()
    metric_cols = [c for c in df.columns if c not in ("name", "file", "line", "module")]
    cells = int(df[metric_cols].count().sum())
    pairs = len({(p, c) for p, c, _, _ in dumped})
    assert cells == db.counts.values == len(dumped)
    assert len(df) == pairs
    return df


__all__ = ["profdb", "module_values", "assert_values_match_dump", "dataframe_checks"]
