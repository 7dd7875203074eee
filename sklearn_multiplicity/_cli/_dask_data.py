"""Tables larger than memory for the command line: Parquet (a file or a
folder of files), or a CSV too large to load, read through dask.

dask reads the rows once into their distinct ``(features, target[, group])``
rows and how many rows each stands for
(:func:`~.._estimators._dask_patterns.distinct_rows`); the encoding of
:mod:`._data` then runs on those distinct rows, with the same columns a
pandas table gets: one-hot of categories is row by row, and the quartiles of
``--binarize`` are computed exactly from the counts
(:func:`~._data.row_quantiles`). The audit fits the distinct rows with their
counts as weights, which is the audit of the rows. ``people`` goes back to
every row, as partitioned Parquet.
"""

import contextlib
import dataclasses
import logging
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

from .._estimators import _dask_patterns as dask_patterns
from ._data import (
    IDENTIFIER_DISTINCT_FRACTION,
    DataError,
    check_columns,
    check_present,
    class_target,
    encode_features,
    feature_columns,
    identifier_columns,
    leave_out_identifiers,
)

#: File endings read as Parquet (a folder is read as a Parquet dataset).
PARQUET_SUFFIXES = (".parquet", ".pq")
#: Share of the machine's memory above which a CSV file is read through dask.
CSV_MEMORY_FRACTION = 0.25
#: Share of the machine's memory above which a table (its size in memory, as
#: its Parquet metadata or its CSV file gives it) is read by a dask
#: ``LocalCluster`` rather than by threads in the audit's process.
LOCAL_CLUSTER_MEMORY_FRACTION = 0.25
#: ``--scheduler`` value that starts a ``LocalCluster`` whatever the size.
LOCAL_SCHEDULER = "local"
#: ``--scheduler`` value that keeps dask's threads in the audit's process
#: whatever the size.
THREADS_SCHEDULER = "threads"
#: Rows of the first partition in which identifier columns are looked for
#: (then confirmed on every row by dask's approximate distinct count).
SCREEN_ROWS = 100_000


def _memory():
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return float("inf")


def is_parquet(path):
    """Whether ``path`` is a Parquet file or a folder (a Parquet dataset)."""
    path = Path(path)
    return path.is_dir() or path.suffix.lower() in PARQUET_SUFFIXES


def reads_through_dask(path, scheduler=None):
    """Whether the command line reads ``path`` through dask: Parquet always;
    a CSV when a ``scheduler`` is named or when the file is larger than
    ``CSV_MEMORY_FRACTION`` of the machine's memory."""
    path = Path(path)
    if is_parquet(path) or scheduler is not None:
        return True
    return path.is_file() and path.stat().st_size > CSV_MEMORY_FRACTION * _memory()


def table_bytes(path):
    """The size of the table at ``path`` in memory, as far as it is known
    without reading it: the uncompressed size of every Parquet row group, or
    the CSV file's size."""
    path = Path(path)
    if not is_parquet(path):
        return path.stat().st_size if path.is_file() else 0
    import pyarrow.parquet as pq

    files = sorted(path.rglob("*")) if path.is_dir() else [path]
    total = 0
    for file in files:
        if file.is_file() and file.suffix.lower() in PARQUET_SUFFIXES:
            meta = pq.ParquetFile(file).metadata
            total += sum(
                meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)
            )
    return total


def _distributed():
    try:
        import distributed
    except ImportError:
        raise DataError(
            'a dask scheduler needs dask.distributed: pip install "dask[distributed]"'
        ) from None
    return distributed


#: The clients and clusters of the running :func:`scheduler` blocks.
_OPEN = []


def close_schedulers():
    """Close the dask clients and clusters :func:`scheduler` opened, for a
    process that ends without leaving its blocks (a stopped audit): its
    workers end and release what they hold."""
    for stack in reversed(list(_OPEN)):
        with contextlib.suppress(Exception):
            stack.close()


@contextlib.contextmanager
def _workers_ignore_sigint():
    """Processes started inside inherit an ignored SIGINT: Ctrl-C, sent to
    the whole process group, stops the audit (which then closes the
    cluster), not the workers in the middle of their work."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def scheduler(address, path, notes):
    """Where dask computes while the table at ``path`` is read and its
    people are written.

    ``address`` names a running scheduler; :data:`LOCAL_SCHEDULER` starts a
    ``LocalCluster`` of one single-threaded worker process per core, and
    :data:`THREADS_SCHEDULER` keeps dask's threads in this process. Without
    an address, a table larger than :data:`LOCAL_CLUSTER_MEMORY_FRACTION` of
    memory gets a ``LocalCluster`` too (when dask.distributed is installed),
    whose workers spill to disk under their memory limit; a smaller one is
    read by dask's threads in this process. What was chosen is appended to
    ``notes``.
    """
    _dask()
    if address == THREADS_SCHEDULER:
        yield
        return
    local = address == LOCAL_SCHEDULER
    if address is None:
        size = table_bytes(path)
        local = size > LOCAL_CLUSTER_MEMORY_FRACTION * _memory()
        if local:
            try:
                import distributed  # noqa: F401
            except ImportError:
                local = False
                notes.append(
                    f"the table takes about {size / 2**30:.1f} GiB in memory; "
                    "dask's threads read it in this process (install "
                    "dask[distributed] for a LocalCluster of worker processes)"
                )
    if address is None and not local:
        yield
        return
    distributed = _distributed()
    with contextlib.ExitStack() as stack:
        _OPEN.append(stack)
        stack.callback(_OPEN.remove, stack)
        if local:
            n_workers = os.cpu_count() or 1
            with _workers_ignore_sigint():
                cluster = stack.enter_context(
                    distributed.LocalCluster(
                        n_workers=n_workers,
                        threads_per_worker=1,
                        memory_limit=int(_memory() / (2 * n_workers)),
                        dashboard_address=":0",  # a free port, no warning
                        silence_logs=logging.ERROR,
                    )
                )
            address = cluster.scheduler_address
            notes.append(
                f"dask reads the table on a LocalCluster of {n_workers} worker "
                "processes (each limited to half of memory over the workers)"
            )
        stack.enter_context(distributed.Client(address))
        yield


@dataclasses.dataclass
class DistinctRows:
    """The rows read through dask and their distinct rows.

    Attributes
    ----------
    rows : dask.dataframe.DataFrame
        The columns read (features kept, target, group), one row per person.
    table : pandas.DataFrame
        Their distinct rows, in the order of the audited table.
    count : ndarray
        How many rows each distinct row stands for (the audit's weights).
    parquet : bool
        Whether the input was Parquet (``people`` is then written as
        partitioned Parquet).
    seconds : float
        Seconds of the scans of the rows.
    """

    rows: object
    table: pd.DataFrame
    count: np.ndarray
    parquet: bool
    seconds: float

    @property
    def n_rows(self):
        """The number of rows read."""
        return int(self.count.sum())


def read_rows(path):
    """The rows of ``path`` as a dask DataFrame (Parquet or CSV)."""
    dd = _dask()
    path = Path(path)
    if not path.exists():
        raise DataError(f"no such file or folder: {str(path)!r}")
    try:
        if is_parquet(path):
            return dd.read_parquet(path)
        return dd.read_csv(path, sep=None if path.suffix == ".tsv" else ",")
    except (ValueError, OSError) as exc:
        reason = " ".join(str(exc).split())
        raise DataError(f"cannot read {str(path)!r}: {reason}") from None


def _dask():
    try:
        return dask_patterns.require_dask()
    except ImportError as exc:
        raise DataError(str(exc)) from None


def _identifiers(rows, features, keep):
    """The identifier columns of ``rows``: found in its first rows by
    :func:`identifier_columns`, confirmed on every row when dask's
    approximate distinct count exceeds ``IDENTIFIER_DISTINCT_FRACTION`` of
    the rows."""
    screen = rows[features].head(SCREEN_ROWS, npartitions=-1)
    candidates = [c for c in identifier_columns(screen) if c not in keep]
    if not candidates or len(screen) < SCREEN_ROWS:
        return candidates  # the first rows are every row
    import dask

    n, *distinct = dask.compute(
        rows.shape[0], *(rows[c].nunique_approx() for c in candidates)
    )
    return [
        c
        for c, d in zip(candidates, distinct, strict=True)
        if d > IDENTIFIER_DISTINCT_FRACTION * n
    ]


def load_dask_data(
    path,
    target,
    groups=None,
    *,
    binarize=False,
    keep=(),
    exact=True,
    keep_groups=False,
    columns=None,
    drop=(),
):
    """Read ``path`` through dask and encode its distinct rows for the audit.

    Parameters
    ----------
    path : str or path-like
        A Parquet file or folder, or a CSV file.
    target : str
    groups : str, default=None
    binarize : bool, default=False
    keep : sequence of str, default=()
    exact : bool, default=True
    keep_groups, columns, drop
        As in :func:`~._data.load_audit_data`.

    Returns
    -------
    X : pandas.DataFrame
        The encoded distinct rows.
    y : ndarray
    group_values : ndarray or None
    notes : list of str
    distinct : DistinctRows
        The rows and their distinct rows; ``distinct.count`` is the weight
        of every row of ``X``.
    """
    start = time.perf_counter()
    rows = read_rows(path)
    check_columns(rows._meta, target, groups, keep, columns, drop)
    features = feature_columns(rows._meta, target, groups, keep_groups, columns, drop)
    identifiers = _identifiers(rows, features, keep)
    features = list(leave_out_identifiers(rows._meta[features], identifiers).columns)
    keys = [*features, target]
    keys += [] if groups is None or groups in features else [groups]
    raw = dask_patterns.distinct_table(rows[keys], keys)
    count = raw.pop(dask_patterns.WEIGHT).to_numpy(dtype=float)
    seconds = time.perf_counter() - start
    check_present(raw[target], target, "target", count)
    group_values = None if groups is None else raw[groups].to_numpy()
    if groups is not None:
        check_present(group_values, groups, "groups", count)
    y = class_target(raw[target], target)
    X, notes = encode_features(
        raw[features], binarize=binarize, exact=exact, counts=count
    )
    distinct = DistinctRows(rows[keys], raw, count, is_parquet(path), seconds)
    notes.insert(
        0,
        f"read {distinct.n_rows} rows through dask in {seconds:.1f} s: "
        f"{len(y)} distinct rows, audited with their counts as weights",
    )
    return X, y, group_values, notes, distinct


def write_people(distinct, people, out):
    """Write every row's line of ``people`` (one line per distinct row, in
    the order of ``distinct.table``) as partitioned Parquet in ``out/people``
    (the input's partitions); returns that folder."""
    answers = people.drop(columns=["weight"], errors="ignore")
    per_row = dask_patterns.to_rows(
        distinct.rows, distinct.table, answers.reset_index(drop=True)
    )
    folder = Path(out) / "people"
    per_row.to_parquet(folder, write_index=False, overwrite=True)
    return folder
