"""Reading and encoding the data that the command line audits.

CSV files (comma, ``;``, tab or ``|``; UTF-8 or latin-1), their target and
group columns, identifier columns left out (:func:`identifier_columns`), and
the features' encoding (numbers as they are, categories one-hot,
``--binarize`` quartile indicators). Every problem with the data raises
:class:`DataError` with a message meant for the user.
"""

import csv
import difflib
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

#: Breast cancer features kept (and binarised at their median) by ``demo``.
DEMO_FEATURES = (
    "mean radius",
    "mean texture",
    "mean smoothness",
    "mean compactness",
    "mean concavity",
    "mean symmetry",
    "worst radius",
    "worst texture",
)

#: Largest magnitude accepted in a numeric feature (beyond it, sums overflow
#: and the solvers lose all precision).
MAX_MAGNITUDE = 1e15

#: Delimiters tried when the comma finds a single column.
OTHER_DELIMITERS = (";", "\t", "|")

#: Quantiles whose thresholds ``--binarize`` turns into ``>=`` indicators.
BINARIZE_QUANTILES = (0.25, 0.5, 0.75)

#: Rows a table needs before a column is taken for an identifier (in a small
#: table, honest columns often have a value per row).
MIN_IDENTIFIER_ROWS = 20
#: Share of the rows above which a text column's distinct values make it an
#: identifier.
IDENTIFIER_DISTINCT_FRACTION = 0.95

#: Columns named in full by a "column not found" error; more are counted.
SHOWN_COLUMNS = 20


class DataError(ValueError):
    """The input data cannot be audited as given."""


def _encoding(path):
    """``utf-16`` for a file starting with its BOM, else ``utf-8``."""
    with open(path, "rb") as file:
        start = file.read(2)
    return "utf-16" if start in (b"\xff\xfe", b"\xfe\xff") else "utf-8"


def _sniff(path, encoding):
    """The delimiter among ``, ; tab |`` that splits the first records into
    the most columns, all records alike (``,`` on ties or when none does)."""
    with open(path, encoding=encoding, errors="replace", newline="") as file:
        text = file.read(1 << 16)
    lines = text.splitlines(keepends=True)
    if len(text) == 1 << 16 and len(lines) > 1:
        lines = lines[:-1]  # possibly cut short
    best, most = ",", 1
    for sep in (",", *OTHER_DELIMITERS):
        try:
            records = [r for r in csv.reader(lines[:50], delimiter=sep) if r][:20]
        except csv.Error:
            continue
        widths = {len(r) for r in records}
        if len(widths) == 1 and widths.pop() > most:
            best, most = sep, len(records[0])
    return best


def _read_csv(path):
    """``pd.read_csv`` that also reads latin-1 files and ``;``, tab or ``|`` ones.

    A file that is not UTF-8 is read as latin-1. When the comma finds a single
    column or cannot parse the file, the delimiter that splits the first
    records into the most (and equally many) columns is used.
    """
    encoding = _encoding(path)
    try:
        with open(path, encoding=encoding) as file:
            while file.read(1 << 20):
                pass
    except UnicodeDecodeError:
        encoding = "latin-1"
    try:
        frame = pd.read_csv(path, encoding=encoding)
    except pd.errors.ParserError:
        sep = _sniff(path, encoding)
        if sep == ",":
            raise
        return pd.read_csv(path, encoding=encoding, sep=sep)
    if frame.shape[1] == 1:
        sep = _sniff(path, encoding)
        if sep != ",":
            frame = pd.read_csv(path, encoding=encoding, sep=sep)
    return frame


def read_table(path):
    """Read a CSV file into a DataFrame with clear errors.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    pandas.DataFrame
    """
    path = Path(path)
    if not path.exists():
        raise DataError(f"no such file: {str(path)!r}")
    if path.is_dir():
        raise DataError(f"{str(path)!r} is a directory, not a CSV file")
    try:
        frame = _read_csv(path)
    except pd.errors.EmptyDataError:
        raise DataError(f"{str(path)!r} is empty") from None
    except (pd.errors.ParserError, UnicodeError, csv.Error) as exc:
        reason = " ".join(str(exc).split())
        raise DataError(f"cannot read {str(path)!r} as CSV: {reason}") from None
    if frame.shape[0] == 0:
        raise DataError(f"{str(path)!r} has a header but no rows")
    return frame


def _column_list(columns):
    """The columns in words: every one, or the first ``SHOWN_COLUMNS`` and how
    many more."""
    shown = ", ".join(repr(str(c)) for c in columns[:SHOWN_COLUMNS])
    more = len(columns) - SHOWN_COLUMNS
    return shown + (f" and {more} more" if more > 0 else "")


def _check_exists(frame, name, role):
    if name not in frame.columns:
        columns = [str(c) for c in frame.columns]
        # A near miss first (a typo, another case): the column meant.
        close = difflib.get_close_matches(str(name), columns, n=3, cutoff=0.6)
        close += [
            c for c in columns if c.lower() == str(name).lower() and c not in close
        ]
        meant = f"did you mean {_column_list(close)}? " if close else ""
        raise DataError(
            f"{role} column {name!r} not found; {meant}the {frame.shape[1]} "
            f"column(s) are: {_column_list(columns)}"
        )


def check_present(values, name, role, count=None):
    """That ``values`` of column ``name`` have no missing value (``count``:
    how many rows each value stands for, 1 when ``None``)."""
    missing = pd.isna(np.asarray(values))
    if missing.any():
        n = int(missing.sum() if count is None else count[missing].sum())
        raise DataError(
            f"{role} column {name!r} has {n} missing values; drop those rows first"
        )


#: Most labels of a target (the K-class audit's limit).
MAX_LABELS = 20


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


def class_target(values, name):
    """The target as an array, checked to have 2 to 20 distinct values (a
    binary or a K-class audit).

    Parameters
    ----------
    values : pandas.Series
    name : str

    Returns
    -------
    ndarray
    """
    distinct = pd.unique(values)
    if not 2 <= len(distinct) <= MAX_LABELS:
        shown = ", ".join(repr(_python(v)) for v in list(distinct)[:5])
        more = ", ..." if len(distinct) > 5 else ""
        raise DataError(
            f"target {name!r} has {len(distinct)} distinct value(s) ({shown}{more}); "
            f"an audit needs 2 labels (binary) or 3 to {MAX_LABELS} (K-class)"
        )
    array = values.to_numpy()
    if array.dtype.kind == "f" and not (
        np.all(np.isfinite(array))
        and np.all(array == np.trunc(array))
        and np.all(np.abs(array) < 2**53)
    ):
        # sklearn reads non-integer (or infinite) floats as a continuous
        # target: use the two values as labels.
        array = np.array([repr(_python(v)) for v in array], dtype=object)
    return array


def _is_categorical(column):
    return pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(
        column
    )


def _numeric_or_categorical(column):
    """A text column whose values are mostly numbers is a broken numeric column."""
    present = column.dropna()
    parsed = pd.to_numeric(present, errors="coerce")
    numbers = int(parsed.notna().sum())
    if numbers == len(present) and numbers > 0:
        return parsed.reindex(column.index).astype(float)
    if numbers > 0 and numbers >= len(present) / 2:
        bad = present[parsed.isna()]
        raise DataError(
            f"column {column.name!r} looks numeric but has {len(bad)} non-numeric "
            f"value(s) such as {bad.iloc[0]!r} (row {bad.index[0]}); fix or remove "
            "them"
        )
    return None


def _check_numeric(column):
    values = column.to_numpy(dtype=float)
    if not np.all(np.isfinite(values)):
        raise DataError(
            f"numeric column {column.name!r} has {int((~np.isfinite(values)).sum())} "
            "missing or infinite values; impute them, or leave the column out "
            f"(--drop-column {column.name})"
        )
    largest = float(np.max(np.abs(values))) if values.size else 0.0
    if largest > MAX_MAGNITUDE:
        raise DataError(
            f"numeric column {column.name!r} has values as large as {largest:g} in "
            f"magnitude; rescale it (at most {MAX_MAGNITUDE:g})"
        )
    return column.astype(float)


def _is_binary(column):
    return set(np.unique(column.to_numpy())) <= {0.0, 1.0}


def row_quantiles(values, counts, quantiles):
    """``np.quantile`` (linear) of the rows that ``values`` stand for, each
    repeated ``counts`` times, without repeating them: the same floats."""
    order = np.argsort(values, kind="stable")
    values, ends = values[order], np.cumsum(counts[order])
    n = ends[-1]
    found = []
    for q in quantiles:
        # numpy's virtual index, its floor and its linear interpolation.
        virtual = n * q + (1 + q * -1) - 1
        below = np.floor(virtual)
        t = virtual - below
        a = values[np.searchsorted(ends, below, side="right")]
        b = values[np.searchsorted(ends, min(below + 1, n - 1), side="right")]
        found.append(b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t)
    return np.array(found)


def quartile_indicators(column, counts=None):
    """Indicators ``column >= q`` for its distinct quartiles, constant ones dropped.

    Parameters
    ----------
    column : pandas.Series of float
    counts : ndarray or None, default=None
        How many rows each value stands for (the distinct rows of a table
        read through dask): the quartiles are those of the rows.

    Returns
    -------
    pandas.DataFrame
        Columns named ``"<name> >= <q>"``.
    """
    if counts is None:
        quartiles = np.quantile(column.to_numpy(), BINARIZE_QUANTILES)
    else:
        quartiles = row_quantiles(column.to_numpy(), counts, BINARIZE_QUANTILES)
    thresholds = np.unique(quartiles)
    out = {}
    for q in thresholds:
        indicator = (column >= q).astype(float)
        if indicator.nunique() > 1:
            out[f"{column.name} >= {q:g}"] = indicator
    return pd.DataFrame(out, index=column.index)


def _is_identifier(column):
    n = len(column)
    if n < MIN_IDENTIFIER_ROWS or pd.api.types.is_bool_dtype(column):
        return False
    if pd.api.types.is_integer_dtype(column):
        return column.nunique() == n
    if pd.api.types.is_numeric_dtype(column):
        return False  # floats are measurements
    present = column.dropna()
    if pd.to_numeric(present, errors="coerce").notna().sum() >= len(present) / 2:
        return False  # numbers written as text: read as numbers
    return present.nunique() > IDENTIFIER_DISTINCT_FRACTION * n


def identifier_columns(frame):
    """The columns of ``frame`` that name rows instead of describing them.

    In a table of at least ``MIN_IDENTIFIER_ROWS`` (20) rows, a text column
    with distinct values on more than ``IDENTIFIER_DISTINCT_FRACTION`` (95%)
    of the rows, or an integer column with a distinct value on every row, is an
    identifier (a person's id, name or row number): as a feature it would
    only tell people apart. Float columns (measurements), booleans and
    columns of numbers written as text never are.

    Parameters
    ----------
    frame : pandas.DataFrame

    Returns
    -------
    list
        The identifier columns, in the order of ``frame``.
    """
    return [name for name in frame.columns if _is_identifier(frame[name])]


def encode_features(frame, *, binarize=False, exact=True, counts=None):
    """Numeric feature matrix of a table.

    Categorical columns (text, ``category``, ``bool``) are one-hot encoded
    with one indicator per level (``pd.get_dummies``, ``drop_first=False``;
    a missing value gets no indicator). A text column whose values are
    mostly numbers is read as numbers, and rejected if some are not. Numeric
    columns are used as they are; with ``binarize``, each numeric column
    that is not already 0/1 is replaced by the indicators of ``x >= q`` for
    its 25%, 50% and 75% quantiles ``q`` (distinct, non-constant ones).

    Parameters
    ----------
    frame : pandas.DataFrame
        The feature columns only.
    binarize : bool, default=False
    exact : bool, default=True
        Whether the exact audit's MIPs will read the features: its note on
        continuous columns then says they slow it down.
    counts : ndarray or None, default=None
        How many rows each row of ``frame`` stands for (distinct rows): the
        quartiles of ``binarize`` are those of the rows.

    Returns
    -------
    X : pandas.DataFrame of float
    notes : list of str
        What was done, for the user.
    """
    numeric, categorical, notes = {}, [], []
    for name in frame.columns:
        column = frame[name]
        if _is_categorical(column):
            parsed = None
            if not pd.api.types.is_bool_dtype(column):
                parsed = _numeric_or_categorical(column)
            if parsed is None:
                categorical.append(name)
                continue
            column = parsed
        numeric[name] = _check_numeric(column)
    parts = []
    continuous = [n for n, c in numeric.items() if not _is_binary(c)]
    for name, column in numeric.items():
        if binarize and name in continuous:
            parts.append(quartile_indicators(column, counts))
        else:
            parts.append(column.to_frame())
    if categorical:
        parts.append(
            pd.get_dummies(
                frame[categorical].astype(object),
                columns=categorical,
                drop_first=False,
                dtype=float,
            )
        )
        notes.append(f"one-hot encoded {len(categorical)} categorical column(s)")
    if continuous:
        notes.append(
            f"binarised {len(continuous)} numeric column(s) at their quartiles"
            if binarize
            else f"{len(continuous)} numeric column(s) used as they are"
            + (
                " (continuous features make the exact audit slower; --binarize "
                "thresholds them)"
                if exact
                else ""
            )
        )
    X = pd.concat(parts, axis=1) if parts else pd.DataFrame(index=frame.index)
    if X.shape[1] == 0:
        raise DataError("no feature columns left to audit")
    X.columns = [str(c) for c in X.columns]
    return X, notes


def load_audit_data(
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
    """Read and encode a CSV file for the audit.

    Identifier columns (:func:`identifier_columns`) are left out of the
    features, with a warning naming them, unless named in ``keep``. The
    groups column defines the groups and is left out of the features too,
    unless ``keep_groups``.

    Parameters
    ----------
    path : str or path-like
    target : str
    groups : str, default=None
    binarize : bool, default=False
    keep : sequence of str, default=()
        Columns kept as features even when they look like identifiers.
    exact : bool, default=True
        Whether the exact audit reads the features (:func:`encode_features`).
    keep_groups : bool, default=False
        Keep the groups column as a feature as well.
    columns : sequence of str or None, default=None
        The feature columns to audit (``None``: every column but the target
        and the groups).
    drop : sequence of str, default=()
        Columns left out of the features.

    Returns
    -------
    X : pandas.DataFrame
    y : ndarray
    group_values : ndarray or None
    notes : list of str
    """
    frame = read_table(path)
    check_columns(frame, target, groups, keep, columns, drop)
    check_present(frame[target], target, "target")
    if groups is not None:
        check_present(frame[groups], groups, "groups")
    y = class_target(frame[target], target)
    group_values = None if groups is None else frame[groups].to_numpy()
    features = frame[feature_columns(frame, target, groups, keep_groups, columns, drop)]
    identifiers = [c for c in identifier_columns(features) if c not in keep]
    features = leave_out_identifiers(features, identifiers)
    X, notes = encode_features(features, binarize=binarize, exact=exact)
    return X, y, group_values, notes


def check_columns(frame, target, groups, keep, columns=None, drop=()):
    """That the ``target``, ``groups``, ``keep``, ``columns`` and ``drop``
    columns are in ``frame`` (only its columns are read) and that ``groups``
    is not ``target``."""
    _check_exists(frame, target, "target")
    if groups is not None:
        if groups == target:
            raise DataError("the groups column must differ from the target column")
        _check_exists(frame, groups, "groups")
    for names, option in ((keep, "--keep-column"), (columns or (), "--columns")):
        for name in names:
            _check_exists(frame, name, option)
    for name in drop:
        _check_exists(frame, name, "--drop-column")
    if columns and target in columns:
        raise DataError(f"--columns names the target {target!r}")


def feature_columns(frame, target, groups, keep_groups=False, columns=None, drop=()):
    """The names of the feature columns of ``frame``: ``columns`` (every
    column but the target and the groups when ``None``), the groups too with
    ``keep_groups``, less ``drop``."""
    if columns:
        names = list(columns)
        if groups is not None and keep_groups and groups not in names:
            names.append(groups)
    else:
        left_out = {target} if groups is None or keep_groups else {target, groups}
        names = [c for c in frame.columns if c not in left_out]
    names = [c for c in names if c not in drop]
    if not names:
        raise DataError("no feature columns left to audit")
    return names


def leave_out_identifiers(features, identifiers):
    """``features`` without the ``identifiers`` columns, with a warning naming
    them (an error when they are every column)."""
    if identifiers and len(identifiers) == features.shape[1]:
        raise DataError(
            f"no feature columns left to audit: every one looks like an "
            f"identifier ({_column_list(identifiers)}); --keep-column NAME "
            "keeps one as a feature"
        )
    if identifiers:
        warnings.warn(
            f"left out {len(identifiers)} identifier column(s) "
            f"({_column_list(identifiers)}): a distinct value on nearly every "
            "row tells people apart instead of describing them; "
            "--keep-column NAME keeps one as a feature",
            UserWarning,
            stacklevel=3,
        )
        features = features.drop(columns=identifiers)
    return features


def load_demo_data():
    """Breast cancer data with 8 features binarised at their median.

    Returns
    -------
    X : pandas.DataFrame of 0/1 floats
    y : ndarray of str ("malignant" or "benign")
    """
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    columns = data.data[list(DEMO_FEATURES)]
    medians = columns.median()
    X = pd.DataFrame(
        {
            f"{name} >= {medians[name]:.4g}": (columns[name] >= medians[name]).astype(
                float
            )
            for name in DEMO_FEATURES
        }
    )
    y = np.asarray(data.target_names)[data.target.to_numpy()]
    return X, y
