"""Tables larger than memory, read through dask.

An audit works on distinct feature patterns, so a dask DataFrame of any
number of rows is read once by dask (a ``groupby`` over its partitions,
summing weights per distinct row) into a small pandas table of distinct
``(features, label[, group])`` rows with their summed ``weight``: no process
holds the rows. Fitting that weighted table is the audit of the full rows,
since every measure and error count is a sum of weights.

People-level answers go back to the rows the same way: the answers of the
distinct patterns (computed in pandas) are joined to every partition on the
feature columns, giving dask objects with the rows' index.

dask is optional (the ``scale`` extra); nothing here imports it before a
dask object is seen or :func:`require_dask` is called.
"""

import numpy as np
import pandas as pd

#: How to install what reading a table through dask needs.
SCALE_EXTRA = 'pip install "sklearn-multiplicity[scale]"'

#: Columns of the distinct table beside the features (names no feature
#: plausibly has).
TARGET, WEIGHT, GROUP = "__target__", "__weight__", "__group__"


def require_dask():
    """``dask.dataframe``, or an ImportError of one line naming the extra."""
    try:
        import dask.dataframe as dd
        import pyarrow  # noqa: F401  (dask's Parquet and string columns)
    except ImportError:
        raise ImportError(
            "reading tables through dask needs dask[dataframe] and pyarrow: "
            f"{SCALE_EXTRA}"
        ) from None
    return dd


def is_dask(data):
    """Whether ``data`` is a dask DataFrame or Series (dask is not imported)."""
    return type(data).__module__.startswith("dask") and hasattr(data, "map_partitions")


def _check_aligned(X, name, value):
    if value is not None and not is_dask(value):
        raise TypeError(
            f"X is a dask DataFrame, so {name} must be a dask Series of the same "
            f"partitions (a column of the same frame), got {type(value).__name__}."
        )


def distinct_rows(X, y, sample_weight=None, groups=None):
    """The distinct rows of a dask table and their summed weights, in pandas.

    Parameters
    ----------
    X : dask.dataframe.DataFrame
        Features.
    y : dask.dataframe.Series
        Target, partitioned as ``X`` (e.g. a column of the same frame).
    sample_weight : dask.dataframe.Series or None
        Weight of every row (``None``: 1 each).
    groups : dask.dataframe.Series or None
        Group of every row.

    Returns
    -------
    X : pandas.DataFrame
        One row per distinct ``(features, label[, group])``, sorted, with a
        ``RangeIndex``.
    y : ndarray
    weight : ndarray of float
        Summed weight (with no ``sample_weight``: the rows' count).
    groups : ndarray or None
    """
    require_dask()
    for name, value in (("y", y), ("sample_weight", sample_weight)):
        _check_aligned(X, name, value)
    _check_aligned(X, "groups", groups)
    if y is None:
        raise ValueError("y is required.")
    features = [str(c) for c in X.columns]
    if len(set(features)) != len(features) or {TARGET, WEIGHT, GROUP} & set(features):
        raise ValueError(
            f"The columns of X must be distinct and none named {TARGET!r}, "
            f"{WEIGHT!r} or {GROUP!r}."
        )
    extra = {TARGET: y}
    if sample_weight is not None:
        extra[WEIGHT] = sample_weight
    if groups is not None:
        extra[GROUP] = groups
    table = distinct_table(
        X.assign(**extra), [*X.columns, *extra], WEIGHT if WEIGHT in extra else None
    )
    return (
        table[list(X.columns)],
        table[TARGET].to_numpy(),
        table[WEIGHT].to_numpy(dtype=float),
        None if groups is None else table[GROUP].to_numpy(),
    )


def distinct_table(frame, keys, weight=None):
    """The distinct rows of the dask DataFrame ``frame`` on the columns
    ``keys``, in pandas (sorted, missing values last, a ``RangeIndex``), with
    their summed ``weight`` column (``None``: the rows' count) in a column
    named ``WEIGHT``."""
    require_dask()
    keys = [k for k in keys if k != weight]
    if weight is None:
        frame = frame.assign(**{WEIGHT: 1.0})
    elif weight != WEIGHT:
        frame = frame.rename(columns={weight: WEIGHT})
    # One output partition: a tree reduction of per-partition sums, never a
    # shuffle of rows between workers (the distinct rows are few).
    table = (
        frame.groupby(keys, dropna=False, sort=False, observed=True)[WEIGHT]
        .sum(split_out=1)
        .compute()
        .reset_index()
    )
    table = table.sort_values(keys, kind="stable", na_position="last")
    return table.reset_index(drop=True)


def distinct_patterns(X):
    """The distinct rows of the dask DataFrame ``X``, in pandas (sorted, with
    a ``RangeIndex``)."""
    require_dask()
    table = X.drop_duplicates().compute()
    columns = list(table.columns)
    table = table.sort_values(columns, kind="stable", na_position="last")
    return table.reset_index(drop=True)


def _answers_of_rows(partition, answers, columns, names):
    """The rows of ``answers`` (keyed by the feature ``columns``) for every
    row of ``partition``, with its index and the answer columns ``names``."""
    found = partition[columns].merge(answers, on=columns, how="left", sort=False)
    found.index = partition.index
    found = found.drop(columns=columns)
    found.columns = names
    return found


def to_rows(X, patterns, values):
    """Per row of the dask DataFrame ``X``: the values of its pattern.

    Parameters
    ----------
    X : dask.dataframe.DataFrame
    patterns : pandas.DataFrame
        Distinct rows of the columns of ``X``.
    values : pandas.DataFrame
        One row per row of ``patterns``: the answers.

    Returns
    -------
    dask.dataframe.DataFrame
        The columns of ``values``, one row per row of ``X``, with its index.
    """
    columns, names = list(X.columns), list(values.columns)
    # Placeholder names: an answer may share a name with a feature.
    answers = values.reset_index(drop=True).set_axis(
        [f"__answer_{i}__" for i in range(len(names))], axis=1
    )
    answers = pd.concat([patterns.reset_index(drop=True), answers], axis=1)
    meta = _answers_of_rows(X._meta, answers.iloc[:0], columns, names)
    return X.map_partitions(_answers_of_rows, answers, columns, names, meta=meta)


def answer_patterns(X, answer):
    """``answer(patterns)`` for every row of the dask DataFrame ``X``, where
    ``answer`` is a pandas function of its distinct patterns that returns one
    value (a 1-d array or Series: a dask Series, named ``"answer"`` unless
    the Series has a name) or one row (a DataFrame) per pattern."""
    patterns = distinct_patterns(X)
    found = answer(patterns)
    if isinstance(found, pd.Series) or np.ndim(found) == 1:
        name = getattr(found, "name", None) or "answer"
        return to_rows(X, patterns, pd.DataFrame({name: np.asarray(found)}))[name]
    return to_rows(X, patterns, pd.DataFrame(found))


def _series_of(partition, predict, name):
    return pd.Series(predict(partition), index=partition.index, name=name)


def per_partition(X, predict, name):
    """``predict`` (a function of rows, one value each) of every partition of
    the dask DataFrame ``X``: a dask Series named ``name`` with its index."""
    meta = _series_of(X._meta_nonempty, predict, name).iloc[:0]
    return X.map_partitions(_series_of, predict, name, meta=meta)


def training_rows(X, table, values):
    """Per training row of the dask DataFrame ``X``: ``values`` (a pandas
    DataFrame of one row per row of the distinct ``table``) of its pattern.

    The values must depend on the pattern only (the same for every label
    and group of a pattern), as every per-person reading of an audit does.
    """
    first = ~table.duplicated(keep="first").to_numpy()
    return to_rows(X, table[first], values[first])
