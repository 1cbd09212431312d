# Type stubs of the profdb package (the C core profdb._profdb included).
#
# Profile, Stat and Values are tuples at run time (struct sequences, a
# collections.namedtuple) whose fields `index` and `count` would clash with tuple's
# methods of those names under a type checker: they are declared here as
# plain classes with the sequence protocol instead.
import os
from typing import (Any, ClassVar, Iterable, Iterator, NamedTuple, Optional, Sequence, Tuple,
                    Union, final)

import numpy as np
import pandas as pd

__version__: str

def library_version() -> str: ...

class _StructSequence:
    n_fields: ClassVar[int]
    n_sequence_fields: ClassVar[int]
    n_unnamed_fields: ClassVar[int]
    __match_args__: ClassVar[tuple[str, ...]]

class Error(OSError): ...
class NotFound(Error, LookupError): ...
class NotSupported(Error): ...
class Corrupt(Error): ...

@final
class Metric(_StructSequence, tuple):
    id: int
    name: str
    unit: str
    description: str
    kind: str
    statistic: str
    type: str
    exclusive_id: Optional[int]
    inclusive_id: Optional[int]
    has_data: bool
    combine: str
    period: int
    scale: float

@final
class Profile(_StructSequence):
    @property
    def index(self) -> int: ...
    @property
    def is_summary(self) -> bool: ...
    @property
    def name(self) -> str: ...
    @property
    def identity(self) -> tuple[tuple[str, int], ...]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...

@final
class Context(_StructSequence, tuple):
    id: int
    parent: Optional[int]
    children: tuple[int, ...]
    depth: int
    relation: str
    type: str
    name: str
    file: str
    line: int
    module: str
    offset: Optional[int]
    in_tree: bool

@final
class Counts(_StructSequence, tuple):
    profiles: int
    contexts: int
    metrics: int
    values: int
    traces: int
    samples: int

@final
class Stat(_StructSequence):
    context: int
    metric: int
    @property
    def count(self) -> int: ...
    sum: float
    min: float
    max: float
    mean: float
    stddev: float
    imbalance: float
    imbalance_pct: float
    min_profile: int
    max_profile: int
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Any: ...
    def __iter__(self) -> Iterator[Any]: ...

@final
class Node(_StructSequence, tuple):
    id: int
    parent: Optional[int]
    children: tuple[int, ...]
    depth: int
    type: str
    recursive: bool
    context: Optional[int]
    name: str
    file: str
    line: int
    module: str

@final
class Edge(_StructSequence, tuple):
    caller: int
    callee: int
    site: Optional[int]
    calls: Optional[int]
    cost: Optional[_Number]

@final
class View:
    @property
    def owner(self) -> object: ...
    @property
    def database(self) -> Database: ...
    @property
    def address(self) -> int: ...

@final
class Stats:
    n: int
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Stat: ...
    def get(self, context: int, metric: int, /) -> Optional[Stat]: ...
    def rows(self) -> np.ndarray: ...
    def view(self, metric: int, field: str = ...) -> np.ndarray: ...

@final
class Tree:
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> Node: ...
    def values(self, k: int, /) -> tuple[np.ndarray, np.ndarray]: ...

class MatchCounts(NamedTuple):
    metrics: int
    rows: int
    matched: int
    only_a: int
    only_b: int

class Match(NamedTuple):
    pairs: np.ndarray
    values: np.ndarray
    metrics: list[tuple[Optional[int], Optional[int]]]
    counts: MatchCounts

class SummaryCounts(NamedTuple):
    summary: int
    stored: int
    checked: int
    agree: int
    explained: int
    unexplained: int
    unchecked: int
    unknown_ids: int
    missing: int
    missing_explained: int
    missing_unchecked: int

class SummaryIssue(NamedTuple):
    context: int
    statistic_id: int
    metric: int
    statistic: str
    missing: bool
    stored: Optional[float]
    expected: float
    bound: float
    terms: int
    reason: str

class SummaryCheck(NamedTuple):
    counts: SummaryCounts
    issues: list[SummaryIssue]
    @property
    def ok(self) -> bool: ...

class Values:
    __match_args__: ClassVar[tuple[str, ...]]
    def __new__(_cls, index: np.ndarray, records: np.ndarray) -> Values: ...
    @property
    def index(self) -> np.ndarray: ...
    @property
    def records(self) -> np.ndarray: ...
    def __len__(self) -> int: ...
    def __getitem__(self, i: int) -> np.ndarray: ...
    def __iter__(self) -> Iterator[np.ndarray]: ...
    def outer(self) -> np.ndarray: ...

def as_float(records: np.ndarray) -> np.ndarray: ...

class Contexts:
    def __init__(self, db: Database) -> None: ...
    def __getitem__(self, id: int) -> Context: ...
    def __contains__(self, id: object) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Context]: ...
    @property
    def roots(self) -> tuple[int, ...]: ...
    def parent(self, id: int) -> Optional[Context]: ...
    def children(self, id: int) -> list[Context]: ...

ProfileSel = Union[None, str, int, Sequence[int]]
_MetricSel = Union[None, str, int, Sequence[Union[str, int]]]
_Number = Union[int, float]
_Path = Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]

def _column_names(metrics: Sequence[Metric]) -> list[str]: ...

class Database:
    def __init__(self, path: _Path, *, copy: bool = ..., populate: bool = ...,
                 tolerant: bool = ..., functions_only: bool = ..., max_memory: int = ...) -> None: ...
    def __enter__(self) -> Database: ...
    def __exit__(self, *exc: object) -> bool: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...
    @property
    def path(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def counts(self) -> Counts: ...
    @property
    def exports(self) -> int: ...
    @property
    def warnings(self) -> tuple[str, ...]: ...
    @property
    def metrics(self) -> tuple[Metric, ...]: ...
    @property
    def profiles(self) -> tuple[Profile, ...]: ...
    @property
    def contexts(self) -> Contexts: ...
    def metric(self, key: Union[int, str], /) -> Metric: ...
    def default_metric(self) -> Metric: ...
    def context(self, id: int, /) -> Context: ...
    def select(self, spec: Optional[str], /) -> tuple[int, ...]: ...
    def profile_indices(self, profiles: ProfileSel = ..., summary: bool = ...) -> list[int]: ...
    def metric_ids(self, metrics: _MetricSel = ...) -> list[int]: ...
    def value(self, profile: int, context: int, metric: int) -> Optional[_Number]: ...
    def inclusive(self, profile: int, context: int, metric: int) -> Optional[_Number]: ...
    def exclusive(self, profile: int, context: int, metric: int) -> Optional[_Number]: ...
    def values(self, profile: Optional[int] = ..., context: Optional[int] = ...) -> Values: ...
    def all_values(self) -> list[Values]: ...
    def trace(self, profile: int, /) -> np.ndarray: ...
    def stats(self, profiles: ProfileSel = ..., metrics: _MetricSel = ...,
              threads: int = ...) -> Stats: ...
    def edges(self) -> np.ndarray: ...
    def edge_cost(self, index: int, metric: int, profile: Optional[int] = ...) -> Optional[_Number]: ...
    def edges_of(self, contexts: Union[int, Iterable[int]], side: str = ...,
                 metric: Optional[int] = ..., profile: Optional[int] = ...) -> list[Edge]: ...
    def summary_check(self, threads: int = ...) -> SummaryCheck: ...
    def view(self, kind: str = ..., metrics: _MetricSel = ..., profiles: ProfileSel = ...,
             cutoff: float = ...) -> Tree: ...
    def match(self, other: Database, metrics: _MetricSel = ..., other_metrics: _MetricSel = ...,
              profiles: ProfileSel = ..., other_profiles: ProfileSel = ...,
              cutoff: float = ...) -> Match: ...
    def to_svg(self, path: _Path, metric: Union[None, str, int] = ..., profiles: ProfileSel = ...,
               icicle: bool = ..., width: float = ..., min_width: float = ...,
               color: str = ..., title: Optional[str] = ...) -> None: ...
    def to_timeline(self, path: _Path, profiles: ProfileSel = ...,
                    window: Optional[Tuple[Union[None, str, int], Union[None, str, int]]] = ...,
                    depth: Optional[int] = ..., width: float = ...,
                    title: Optional[str] = ...) -> None: ...
    def dataframe(self, metrics: _MetricSel = ..., profiles: ProfileSel = ...,
                  scope: str = ..., computed: bool = ...) -> pd.DataFrame: ...
    def tree(self) -> pd.DataFrame: ...
    def stats_frame(self, profiles: ProfileSel = ..., metrics: _MetricSel = ...,
                    threads: int = ...) -> pd.DataFrame: ...
    def trace_frame(self, profile: int) -> pd.DataFrame: ...

def open(path: _Path, *, copy: bool = ..., populate: bool = ...,
         tolerant: bool = ..., functions_only: bool = ..., max_memory: int = ...) -> Database: ...
