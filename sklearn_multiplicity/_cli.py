"""Command line: ``sklearn-multiplicity demo`` and ``sklearn-multiplicity audit``.

Every failure the user can cause (a missing or unreadable file, a bad
column, a non-binary target) ends with one ``error: ...`` line on stderr
and exit code 2, like argparse's usage errors.
"""

import argparse
import csv
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

#: Exit code of every user error (argparse uses it for usage errors too).
USAGE_ERROR = 2

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

_HANDLED = (ValueError, TypeError, OSError, pd.errors.ParserError)


class DataError(ValueError):
    """The input data cannot be audited as given."""


# --------------------------------------------------------------------- data
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


def _check_column(frame, name, role):
    if name not in frame.columns:
        shown = ", ".join(repr(str(c)) for c in frame.columns[:20])
        raise DataError(f"{role} column {name!r} not found; columns are: {shown}")
    if frame[name].isna().any():
        raise DataError(
            f"{role} column {name!r} has {int(frame[name].isna().sum())} missing "
            "values; drop those rows first"
        )


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


def binary_target(values, name):
    """The target as an array, checked to have exactly two distinct values.

    Parameters
    ----------
    values : pandas.Series
    name : str

    Returns
    -------
    ndarray
    """
    distinct = pd.unique(values)
    if len(distinct) != 2:
        shown = ", ".join(repr(_python(v)) for v in list(distinct)[:5])
        more = ", ..." if len(distinct) > 5 else ""
        raise DataError(
            f"target {name!r} has {len(distinct)} distinct value(s) ({shown}{more}); "
            "a binary classification audit needs exactly 2"
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
            "missing or infinite values; impute or drop them first"
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


def quartile_indicators(column):
    """Indicators ``column >= q`` for its distinct quartiles, constant ones dropped.

    Parameters
    ----------
    column : pandas.Series of float

    Returns
    -------
    pandas.DataFrame
        Columns named ``"<name> >= <q>"``.
    """
    thresholds = np.unique(np.quantile(column.to_numpy(), BINARIZE_QUANTILES))
    out = {}
    for q in thresholds:
        indicator = (column >= q).astype(float)
        if indicator.nunique() > 1:
            out[f"{column.name} >= {q:g}"] = indicator
    return pd.DataFrame(out, index=column.index)


def encode_features(frame, *, binarize=False):
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
            parts.append(quartile_indicators(column))
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
            else f"{len(continuous)} numeric column(s) used as they are (continuous "
            "features make the exact audit slower; --binarize thresholds them)"
        )
    X = pd.concat(parts, axis=1) if parts else pd.DataFrame(index=frame.index)
    if X.shape[1] == 0:
        raise DataError("no feature columns left to audit")
    X.columns = [str(c) for c in X.columns]
    return X, notes


def load_audit_data(path, target, groups=None, *, binarize=False):
    """Read and encode a CSV file for the audit.

    Returns
    -------
    X : pandas.DataFrame
    y : ndarray
    group_values : ndarray or None
    notes : list of str
    """
    frame = read_table(path)
    _check_column(frame, target, "target")
    if groups is not None:
        if groups == target:
            raise DataError("the groups column must differ from the target column")
        _check_column(frame, groups, "groups")
    y = binary_target(frame[target], target)
    group_values = None if groups is None else frame[groups].to_numpy()
    features = frame.drop(columns=[c for c in (target, groups) if c is not None])
    X, notes = encode_features(features, binarize=binarize)
    return X, y, group_values, notes


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


# ----------------------------------------------------------------- commands
def _estimator(name):
    if name == "logistic":
        from sklearn.linear_model import LogisticRegression

        return LogisticRegression(max_iter=1000)
    return None


def _finish(report, out):
    _flush_diagnostics()
    print(report.summary())
    if out is not None:
        files = report.write(out)
        print(f"\nReport written to {out}/: " + ", ".join(p.name for p in files))
    return 0


def _run(args, X, y, groups, dataset):
    from ._report import run_audit

    return run_audit(
        X,
        y,
        estimator=_estimator(args.estimator),
        epsilon=args.epsilon,
        groups=groups,
        max_epsilon=args.max_epsilon,
        time_limit=args.time_limit,
        total_time_limit=args.total_time_limit,
        n_jobs=args.n_jobs,
        n_models=args.n_models,
        random_state=args.random_state,
        verbose=0 if args.quiet else 1,
        dataset=dataset,
    )


def _audit(args):
    X, y, groups, notes = load_audit_data(
        args.data, args.target, args.groups, binarize=args.binarize
    )
    for note in notes:
        _diagnostic(f"note: {note}")
    dataset = {
        "source": str(args.data),
        "target": args.target,
        "groups": args.groups,
        "feature_names": list(X.columns),
        "encoding": notes,
        "binarize": args.binarize,
    }
    report = _run(args, X, y, groups, dataset)
    return _finish(report, args.out)


def _demo(args):
    start = time.perf_counter()
    X, y = load_demo_data()
    print(
        "Breast cancer (scikit-learn): 569 people, 8 features binarised at their "
        "median; baseline: the 0-1 optimal linear classifier"
    )
    dataset = {
        "source": "scikit-learn breast cancer (8 features, binarised at the median)",
        "target": "diagnosis",
        "groups": None,
        "feature_names": list(X.columns),
    }
    report = _run(args, X, y, None, dataset)
    code = _finish(report, args.out)
    print(f"Wall time: {time.perf_counter() - start:.1f} s")
    return code


# ------------------------------------------------------------------ parsing
def _epsilon(text):
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number in [0, 1] or 'auto', got {text!r}"
        ) from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def _fraction(text):
    value = _epsilon(text)
    if value == "auto":
        raise argparse.ArgumentTypeError("expected a number in [0, 1]")
    return value


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or not np.isfinite(value):
        raise argparse.ArgumentTypeError(
            f"expected a positive number of seconds, got {text!r}"
        )
    return value


def _jobs(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value == 0:
        raise argparse.ArgumentTypeError(
            f"expected a non-zero integer (-1: all cores), got {text!r}"
        )
    return value


def _common_options(sub, *, epsilon_help, default_out):
    sub.add_argument("--epsilon", type=_epsilon, default=0.01, help=epsilon_help)
    sub.add_argument(
        "--max-epsilon",
        type=_fraction,
        default=None,
        help="end of the plotted path (default: the epsilon)",
    )
    sub.add_argument(
        "--time-limit",
        type=_seconds,
        default=60.0,
        metavar="S",
        help="seconds per MIP (default 60)",
    )
    sub.add_argument(
        "--total-time-limit",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds for the whole audit; the values at --epsilon come "
        "before the path, and values still open are reported as certified "
        "bounds",
    )
    sub.add_argument(
        "--n-jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="parallel MIPs / solver threads (-1: all cores)",
    )
    sub.add_argument(
        "--n-models",
        type=int,
        default=100,
        metavar="N",
        help="size of the sampled pool of logistic regressions (default 100)",
    )
    sub.add_argument("--random-state", type=int, default=0, metavar="SEED")
    sub.add_argument(
        "--out",
        default=default_out,
        metavar="DIR",
        help="directory of report.json, report.html, people.csv, models.csv "
        "and the plots" + ("" if default_out is None else f" (default: {default_out})"),
    )
    sub.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bars on stderr"
    )


def build_parser():
    """The argument parser of ``sklearn-multiplicity``.

    Returns
    -------
    argparse.ArgumentParser
    """
    parser = argparse.ArgumentParser(
        prog="sklearn-multiplicity",
        description="Exact predictive multiplicity (ambiguity, discrepancy) of "
        "linear classifiers, certified by mixed-integer programming.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo",
        help="audit scikit-learn's breast cancer data",
        description="Audit the 0-1 optimal linear classifier on scikit-learn's "
        "breast cancer data (8 features binarised at their median).",
    )
    _common_options(
        demo, epsilon_help="error tolerance in [0, 1] or 'auto'", default_out=None
    )
    demo.set_defaults(func=_demo, estimator="zero-one")
    audit = commands.add_parser(
        "audit",
        help="audit a CSV file",
        description="Audit a linear classifier trained on a CSV file. Text, "
        "category and bool columns are one-hot encoded; numeric columns are used "
        "as they are, or with --binarize replaced by indicators of >= each "
        "quartile.",
    )
    audit.add_argument("data", metavar="DATA.csv", help="the training data")
    audit.add_argument(
        "--target", required=True, metavar="COLUMN", help="binary label column"
    )
    audit.add_argument(
        "--groups", default=None, metavar="COLUMN", help="group column (e.g. race)"
    )
    audit.add_argument(
        "--estimator",
        choices=("zero-one", "logistic"),
        default="zero-one",
        help="baseline: the 0-1 optimal linear classifier (default) or a "
        "logistic regression",
    )
    audit.add_argument(
        "--binarize",
        action="store_true",
        help="replace non-binary numeric columns by indicators of >= quartiles",
    )
    _common_options(
        audit,
        epsilon_help="error tolerance in [0, 1] (default 0.01), or 'auto' "
        "(half-width of the 95%% bootstrap interval of the baseline's error)",
        default_out="multiplicity-report",
    )
    audit.set_defaults(func=_audit)
    return parser


#: Notes and warnings of the running command, shown once it succeeds (so
#: that a failure prints its one ``error:`` line alone).
_PENDING = []


def _diagnostic(line):
    _PENDING.append(line)


def _flush_diagnostics():
    for line in _PENDING:
        print(line, file=sys.stderr)
    _PENDING.clear()


def _show_warning(message, category, filename, lineno, file=None, line=None):
    _diagnostic(f"warning: {' '.join(str(message).split())}")


def _one_line(exc):
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if isinstance(exc, DataError) else f"{type(exc).__name__}: {text}"


def main(argv=None):
    """Run the command line and return its exit code.

    Parameters
    ----------
    argv : list of str, default=None
        Arguments (``sys.argv[1:]`` when ``None``).

    Returns
    -------
    int
        0 on success, 2 on a usage or data error.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code
    _PENDING.clear()
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            code = args.func(args)
        except _HANDLED as exc:
            _PENDING.clear()
            print(f"error: {_one_line(exc)}", file=sys.stderr)
            return USAGE_ERROR
        _flush_diagnostics()
        return code
