"""Loader for ProPublica's COMPAS two-year recidivism data.

The binarisation follows Marx, Calmon & Ustun (ICML 2020), "Predictive
Multiplicity in Classification".
"""

from __future__ import annotations

import os
import shutil
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import get_data_home
from sklearn.utils import Bunch

__all__ = ["load_compas"]

COMPAS_URL = (
    "https://raw.githubusercontent.com/propublica/compas-analysis/master/"
    "compas-scores-two-years.csv"
)
COMPAS_FILENAME = "compas-scores-two-years.csv"

_TARGET_COLUMNS = {
    "arrest": "two_year_recid",
    "violent": "is_violent_recid",
}

# Columns needed for the filter, the features and the groups (the target
# column is added per call).
_BASE_COLUMNS = (
    "race",
    "sex",
    "age",
    "priors_count",
    "juv_misd_count",
    "juv_fel_count",
    "c_charge_degree",
    "days_b_screening_arrest",
    "is_recid",
    "score_text",
)

# Race dummies as in Marx, Calmon & Ustun (2020): the raw races "Asian" and
# "Native American" are merged into ``race_Other`` together with "Other".
_RACES = (
    ("race_African_American", ("African-American",)),
    ("race_Caucasian", ("Caucasian",)),
    ("race_Hispanic", ("Hispanic",)),
    ("race_Other", ("Other", "Asian", "Native American")),
)

FEATURE_NAMES = [
    *(name for name, _ in _RACES),
    "age_lt_25",
    "age_25_to_45",
    "age_geq_46",
    "female",
    "priors_eq_0",
    "priors_geq_1",
    "priors_geq_2",
    "priors_geq_5",
    "juv_misd_eq_0",
    "juv_misd_geq_1",
    "juv_misd_geq_2",
    "juv_misd_geq_5",
    "juv_fel_eq_0",
    "juv_fel_geq_1",
    "juv_fel_geq_2",
    "juv_fel_geq_5",
    "charge_degree_M",
]

_DESCR = """\
COMPAS two-year recidivism (ProPublica, Broward County, FL, 2013-2014)
----------------------------------------------------------------------

Rows: defendants in ``compas-scores-two-years.csv`` kept by ProPublica's
standard filter (|days_b_screening_arrest| <= 30, is_recid != -1,
c_charge_degree != "O", score_text != "N/A"): 6,172 rows on the
published file.

Features: 21 binary (0/1) indicators, as in Marx, Calmon & Ustun (2020):
race (4 one-hot dummies: African-American, Caucasian, Hispanic, Other,
where Other also covers Asian and Native American), age (<25, 25-45,
>=46), female, priors (==0, >=1, >=2, >=5), juvenile misdemeanours
(==0, >=1, >=2, >=5), juvenile felonies (==0, >=1, >=2, >=5), charge
degree M. The 6,172 rows have 329 distinct feature vectors.

Targets: ``"arrest"`` = ``two_year_recid`` (2,809 positives);
``"violent"`` = ``is_violent_recid`` on the same rows (692 positives).

Source: https://github.com/propublica/compas-analysis
"""


def _default_data_home(data_home):
    if data_home is None:
        home = Path(get_data_home()) / "sklearn_multiplicity"
    else:
        home = Path(os.path.expanduser(str(data_home)))
    home.mkdir(parents=True, exist_ok=True)
    return home


def _download(url, dest):
    """Download ``url`` to ``dest`` atomically (temporary file + rename)."""
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{dest.name}.", suffix=".part", dir=dest.parent
    )
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url) as resp:
            shutil.copyfileobj(resp, out)
        if os.path.getsize(tmp_name) == 0:
            raise OSError(f"downloaded file from {url!r} is empty")
        os.replace(tmp_name, dest)
    except (OSError, ValueError) as exc:
        # urllib.error.URLError is an OSError; an unknown URL type is a
        # ValueError.
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise OSError(
            f"Could not download the COMPAS data from {url!r}: {exc}. "
            "Download compas-scores-two-years.csv manually and pass its "
            "location with `path=`."
        ) from exc


def _fetch(data_home, url):
    """Return the path of the cached CSV, downloading it if needed."""
    home = _default_data_home(data_home)
    dest = home / COMPAS_FILENAME
    if not dest.is_file():
        _download(COMPAS_URL if url is None else url, dest)
    return dest


def _read_csv(path, required):
    path = Path(os.path.expanduser(str(path)))
    if not path.is_file():
        raise FileNotFoundError(f"COMPAS data file not found: {str(path)!r}")
    try:
        # Only the first of the duplicated ``priors_count`` columns is read
        # (pandas renames the second one to ``priors_count.1``).
        df = pd.read_csv(path, usecols=lambda c: c in required)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"Could not parse {str(path)!r} as a COMPAS CSV file: {exc}"
        ) from exc
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(
            f"{str(path)!r} is missing required COMPAS column(s) {missing}; "
            "expected ProPublica's compas-scores-two-years.csv."
        )
    return df


def _numeric(df, columns):
    out = {}
    for col in columns:
        try:
            out[col] = pd.to_numeric(df[col], errors="raise")
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"COMPAS column {col!r} contains non-numeric values: {exc}"
            ) from exc
    return out


def _binarise(df):
    race = df["race"].astype(str)
    age = df["age"]
    priors = df["priors_count"]
    misd = df["juv_misd_count"]
    fel = df["juv_fel_count"]

    cols = {name: race.isin(values) for name, values in _RACES}
    cols["age_lt_25"] = age < 25
    cols["age_25_to_45"] = (age >= 25) & (age <= 45)
    cols["age_geq_46"] = age >= 46
    cols["female"] = df["sex"].astype(str) == "Female"
    for prefix, counts in (("priors", priors), ("juv_misd", misd), ("juv_fel", fel)):
        cols[f"{prefix}_eq_0"] = counts == 0
        for k in (1, 2, 5):
            cols[f"{prefix}_geq_{k}"] = counts >= k
    cols["charge_degree_M"] = df["c_charge_degree"].astype(str).str.strip() == "M"

    X = pd.DataFrame({name: cols[name] for name in FEATURE_NAMES}, index=df.index)
    return X.astype(np.int64)


def load_compas(
    path=None,
    *,
    target="arrest",
    as_frame=False,
    return_groups=True,
    return_X_y=False,
    data_home=None,
    url=None,
):
    """Load ProPublica's COMPAS data binarised as in Marx, Calmon & Ustun (2020).

    Reads ``compas-scores-two-years.csv``, applies ProPublica's standard row
    filter and encodes each defendant with 21 binary (0/1) features.

    Parameters
    ----------
    path : str or path-like, default=None
        Location of a local copy of ``compas-scores-two-years.csv``. When
        None, the file is downloaded once from ``url`` into ``data_home`` and
        read from that cache on later calls.
    target : {"arrest", "violent"}, default="arrest"
        Label to return. ``"arrest"`` is ``two_year_recid`` (re-arrest within
        two years). ``"violent"`` is ``is_violent_recid`` on the same
        filtered rows (see Notes).
    as_frame : bool, default=False
        If True, ``data`` is a :class:`pandas.DataFrame` with the feature
        names as columns, ``target`` a :class:`pandas.Series` and ``frame``
        their column-wise concatenation.
    return_groups : bool, default=True
        If True, the returned Bunch has a ``groups`` entry holding the raw
        ``race`` and ``sex`` strings of each row. Ignored when
        ``return_X_y=True``.
    return_X_y : bool, default=False
        If True, return ``(data, target)`` only (never the groups).
    data_home : str or path-like, default=None
        Cache directory for the downloaded file. Defaults to
        ``<sklearn data home>/sklearn_multiplicity``, i.e.
        ``~/scikit_learn_data/sklearn_multiplicity`` unless the
        ``SCIKIT_LEARN_DATA`` environment variable says otherwise.
    url : str, default=None
        Where to download the file from when ``path`` is None and the cache
        is empty. Defaults to ProPublica's GitHub raw URL
        ``https://raw.githubusercontent.com/propublica/compas-analysis/master/compas-scores-two-years.csv``.
        Any URL understood by :func:`urllib.request.urlopen` works,
        including ``file://`` URLs. Not used when the cached file exists.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        Dictionary-like object with the following attributes.

        data : ndarray of shape (n_samples, 21) or DataFrame
            Binary features, dtype int64.
        target : ndarray of shape (n_samples,) or Series
            0/1 labels, dtype int64. As a Series it is named after the
            source column (``"two_year_recid"`` or ``"is_violent_recid"``).
        feature_names : list of str
            The 21 feature names listed in Notes.
        groups : DataFrame of shape (n_samples, 2)
            Columns ``race`` and ``sex`` with the raw strings, in the same
            row order as ``data``. Only present when ``return_groups=True``.
        frame : DataFrame of shape (n_samples, 22) or None
            Features and target together when ``as_frame=True``, else None.
        DESCR : str
            Short description of the dataset.

    (data, target) : tuple if ``return_X_y`` is True
        Arrays, or a DataFrame and a Series when ``as_frame=True``.

    Raises
    ------
    ValueError
        If ``target`` is unknown, or if the file cannot be parsed or lacks a
        required column.
    OSError
        If the file does not exist or cannot be downloaded.

    Notes
    -----
    **Row filter** (ProPublica's ``compas-analysis`` notebook): keep rows
    with ``-30 <= days_b_screening_arrest <= 30``, ``is_recid != -1``,
    ``c_charge_degree != "O"`` and ``score_text != "N/A"`` (pandas reads
    ``"N/A"`` as missing, so missing ``score_text`` values are dropped as
    well, as are missing ``days_b_screening_arrest``). On the published
    file this keeps 6,172 of 7,214 rows; 2,809 have ``two_year_recid == 1``
    and 692 have ``is_violent_recid == 1``.

    **Features** (21 columns, in this order; every entry is 0 or 1):

    - ``race_African_American``, ``race_Caucasian``, ``race_Hispanic``,
      ``race_Other`` -- one-hot ``race`` (``"African-American"``,
      ``"Caucasian"``, ``"Hispanic"``; ``race_Other`` is 1 for ``"Other"``,
      ``"Asian"`` and ``"Native American"``, which are merged as in the
      paper);
    - ``age_lt_25``, ``age_25_to_45``, ``age_geq_46`` -- one-hot ``age``
      (< 25, 25 to 45 inclusive, >= 46);
    - ``female`` -- ``sex == "Female"``;
    - ``priors_eq_0``, ``priors_geq_1``, ``priors_geq_2``, ``priors_geq_5``
      -- from ``priors_count`` (the first of the two duplicate columns);
    - ``juv_misd_eq_0``, ``juv_misd_geq_1``, ``juv_misd_geq_2``,
      ``juv_misd_geq_5`` -- from ``juv_misd_count``;
    - ``juv_fel_eq_0``, ``juv_fel_geq_1``, ``juv_fel_geq_2``,
      ``juv_fel_geq_5`` -- from ``juv_fel_count``;
    - ``charge_degree_M`` -- ``c_charge_degree == "M"`` (misdemeanour;
      0 means felony).

    These are the 21 binary features of the paper. As there, the raw races
    ``"Asian"`` and ``"Native American"`` (31 and 11 of the 6,172 rows)
    have no dummy of their own and are merged into ``race_Other``; the raw
    strings are still available in ``groups["race"]``. The race and age
    blocks are full one-hot encodings (each sums to 1 per row) and
    ``*_eq_0`` is the complement of ``*_geq_1``, so the encoding is
    redundant; drop columns to obtain a non-redundant basis. On the
    published file the 6,172 rows have 329 distinct feature vectors.

    **Violent target.** ProPublica builds violent recidivism from a
    separate file (``compas-scores-two-years-violent.csv``, with its own
    filter), which is *not* read here. ``target="violent"`` instead returns
    ``is_violent_recid`` for the rows of the two-year file kept by the
    filter above. This approximates the violent outcome: the row set
    differs from ProPublica's violent analysis and ``is_violent_recid`` is
    not restricted to the two-year window.

    References
    ----------
    .. [1] C. Marx, F. Calmon and B. Ustun. "Predictive Multiplicity in
       Classification". Proceedings of the 37th International Conference on
       Machine Learning (ICML), PMLR 119, 2020.
    .. [2] J. Angwin, J. Larson, S. Mattu and L. Kirchner. "Machine Bias".
       ProPublica, 2016. Data and analysis:
       https://github.com/propublica/compas-analysis

    Examples
    --------
    >>> from sklearn_multiplicity.datasets import load_compas
    >>> compas = load_compas()  # doctest: +SKIP
    >>> compas.data.shape  # doctest: +SKIP
    (6172, 21)
    >>> int(compas.target.sum())  # doctest: +SKIP
    2809
    >>> X, y = load_compas("compas-scores-two-years.csv",
    ...                    return_X_y=True)  # doctest: +SKIP
    """
    if target not in _TARGET_COLUMNS:
        raise ValueError(
            f"Unknown target {target!r}; expected one of {sorted(_TARGET_COLUMNS)}."
        )
    target_col = _TARGET_COLUMNS[target]

    if path is None:
        path = _fetch(data_home, url)

    required = (*_BASE_COLUMNS, target_col)
    df = _read_csv(path, required)

    num = _numeric(
        df,
        (
            "age",
            "priors_count",
            "juv_misd_count",
            "juv_fel_count",
            "days_b_screening_arrest",
            "is_recid",
            target_col,
        ),
    )
    score_text = df["score_text"]
    keep = (
        num["days_b_screening_arrest"].between(-30, 30)
        & (num["is_recid"] != -1)
        & (df["c_charge_degree"].astype(str).str.strip() != "O")
        & score_text.notna()
        & (score_text.astype(str).str.strip() != "N/A")
    )
    df = df.assign(**num).loc[keep].reset_index(drop=True)

    feature_cols = ["age", "priors_count", "juv_misd_count", "juv_fel_count"]
    if df[[*feature_cols, target_col]].isna().to_numpy().any():
        raise ValueError(
            "COMPAS data has missing values in feature or target columns "
            "after filtering."
        )
    y = df[target_col]
    if not y.isin([0, 1]).all():
        raise ValueError(f"COMPAS column {target_col!r} is not binary (0/1).")

    X = _binarise(df)
    y = y.astype(np.int64).rename(target_col)
    groups = df[["race", "sex"]].copy()

    if as_frame:
        data, target_out = X, y
        frame = pd.concat([X, y], axis=1)
    else:
        data, target_out = X.to_numpy(), y.to_numpy()
        frame = None

    if return_X_y:
        return data, target_out

    bunch = Bunch(
        data=data,
        target=target_out,
        feature_names=list(FEATURE_NAMES),
        frame=frame,
        DESCR=_DESCR,
    )
    if return_groups:
        bunch.groups = groups
    return bunch
