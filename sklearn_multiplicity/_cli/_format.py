"""The values of an audit report as plain data.

Status labels, JSON-ready copies, the coefficients of a linear model and the
versions of the software that computed a report.
"""

import importlib.metadata
import math
import platform

import numpy as np
import pandas as pd
from sklearn.frozen import FrozenEstimator
from sklearn.pipeline import Pipeline

from .._core import certified as is_certified
from .._core._validation import PerClassEpsilon

SAMPLING_LABEL = "sampling (lower estimate)"
#: Its label when the pool is compared with its own best model instead.
SAMPLING_AMONG_LABEL = "sampling (among sampled models)"


def sampling_label(sampling):
    """The column label of a :class:`SamplingAuditor`'s estimates."""
    return SAMPLING_LABEL if sampling.reference == "baseline" else SAMPLING_AMONG_LABEL


CERTIFIED = "certified"
#: The file of a report's path table, linked from its page.
PATH_TABLE = "path.csv"
BOUNDS = "bounds (time limit)"
MEASURES = ("ambiguity", "discrepancy")


def status_label(lower, upper):
    """:data:`CERTIFIED` when the bounds pin the value, else :data:`BOUNDS`."""
    return CERTIFIED if is_certified(lower, upper) else BOUNDS


def unwrap(estimator):
    """The estimator inside a :class:`~sklearn.frozen.FrozenEstimator`."""
    return estimator.estimator if isinstance(estimator, FrozenEstimator) else estimator


def final_linear(estimator, default_names):
    """``(names, linear)``: the linear model of ``estimator`` (itself, or the
    last step of its Pipeline) and the names of its input columns (``None``
    when the Pipeline's steps do not name them)."""
    estimator = unwrap(estimator)
    names = list(default_names)
    if isinstance(estimator, Pipeline):
        try:
            names = list(estimator[:-1].get_feature_names_out(names))
        except (AttributeError, ValueError, TypeError):
            names = None
        estimator = estimator[-1]
    return names, estimator


def column_names(names, n_columns):
    """``names`` if there is one per column, else ``x0, x1, ...``."""
    if names is None or len(names) != n_columns:
        return [f"x{j}" for j in range(n_columns)]
    return names


def linear_parts(estimator, default_names):
    """``(names, coef, intercept)`` of a linear model or a Pipeline ending in
    one: ``coef`` of shape (n_rows, n_names), ``intercept`` (n_rows,), one
    row for two labels and one per label for K."""
    names, estimator = final_linear(estimator, default_names)
    coef = np.atleast_2d(np.asarray(estimator.coef_, dtype=float))
    intercept = np.broadcast_to(
        np.asarray(estimator.intercept_, dtype=float), coef.shape[:1]
    )
    return column_names(names, coef.shape[1]), coef, intercept


def n_continuous(X):
    """How many columns of ``X`` hold values other than 0 and 1."""
    values = np.asarray(X, dtype=float)
    return int(np.sum(~np.all((values == 0) | (values == 1), axis=0)))


def dataset_record(X, y, classes, dataset):
    """The report's description of the data: feature names, ``dataset`` (what
    the command line read), the number of rows, the classes and how many
    features are continuous (not 0/1)."""
    return {
        "source": "data",
        "feature_names": [str(c) for c in X.columns],
        **(dataset or {}),
        "n_rows": int(len(y)),
        "classes": [plain(c) for c in classes],
        "n_continuous_features": n_continuous(X),
    }


#: How the columns of a report's tables that hold shares of people begin:
#: they are shown as percentages (counts, budgets and tolerances as numbers).
PERCENT_COLUMNS = (
    "value",
    "lower",
    "upper",
    "ambiguity",
    "discrepancy",
    "delta_ambiguity",
    "width",
    "mean_width",
    "error_rate",
    "sampling",
)


def shown_as_percentages(frame, missing="-"):
    """A copy of ``frame`` to show: its float columns of shares
    (:data:`PERCENT_COLUMNS`) as percentages, counts held as floats as whole
    numbers, and ``missing`` where a value is missing (a band is not a
    value)."""
    shown = frame.copy()
    for name in frame.columns:
        column = frame[name]
        if not pd.api.types.is_float_dtype(column):
            continue
        values = column.to_numpy()
        if str(name).startswith(PERCENT_COLUMNS):
            text = [None if np.isnan(v) else f"{v:.2%}" for v in values]
        elif np.all(np.isnan(values) | (values == np.round(values))):
            text = [None if np.isnan(v) else f"{v:.0f}" for v in values]
        else:
            continue
        shown[name] = [missing if t is None else t for t in text]
    return shown


def versions():
    """Versions of Python and of the packages behind a report."""
    import sklearn_multiplicity

    found = {"python": platform.python_version()}
    found["sklearn-multiplicity"] = sklearn_multiplicity.__version__
    for package in ("scikit-learn", "numpy", "ortools"):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = None
    return found


def plain(value):
    """JSON-ready copy: numpy scalars to Python, NaN and infinity to None,
    per-class tolerances to ``{label: tolerance}``."""
    if isinstance(value, PerClassEpsilon):
        value = dict(zip(value.labels, value, strict=True))
    if isinstance(value, dict):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray, pd.Index)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def records(frame):
    """The rows of ``frame``, index included, as JSON-ready dicts."""
    return plain(frame.reset_index().to_dict(orient="records"))


def finite_or_none(value):
    """JSON has no inf/NaN: report a missing or unbounded number as null."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


#: First characters that make a spreadsheet read a text cell as a formula
#: (OWASP's "CSV injection"): such a cell is written with a leading quote.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(table):
    """``table`` with every text cell a spreadsheet would run as a formula
    prefixed by a single quote, as OWASP recommends; numbers, and text that
    starts otherwise, are untouched. Column names and the index too.

    Parameters
    ----------
    table : pandas.DataFrame

    Returns
    -------
    pandas.DataFrame
        A copy.
    """

    def cell(value):
        if isinstance(value, str) and value.startswith(FORMULA_STARTS):
            return "'" + value
        return value

    def text(dtype):
        return not (
            pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)
        )

    safe = table.copy()
    for name in safe.columns:
        if text(safe[name].dtype):
            safe[name] = safe[name].astype(object).map(cell)
    safe.columns = [cell(name) for name in safe.columns]
    if text(safe.index.dtype):
        safe.index = safe.index.map(cell)
    return safe


def write_csv(table, path, *, raw=False):
    """Write ``table`` to ``path`` as CSV, spreadsheet-safe unless ``raw``."""
    (table if raw else spreadsheet_safe(table)).to_csv(path)
