"""Tests for :func:`sklearn_multiplicity.datasets.load_compas`.

They read ProPublica's ``compas-scores-two-years.csv`` from the shared data
directory and are skipped when it is absent.
"""

import csv

import numpy as np
import pandas as pd
import pytest
from shared_data import COMPAS_PATH as SHARED_FILE

from sklearn_multiplicity.datasets import load_compas

pytestmark = pytest.mark.skipif(
    not SHARED_FILE.is_file(), reason=f"COMPAS data not found at {SHARED_FILE}"
)

EXPECTED_FEATURES = [
    "race_African_American",
    "race_Caucasian",
    "race_Hispanic",
    "race_Other",
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
N_ROWS = 6172
N_ARREST = 2809
N_FEATURES = 21
# Distinct feature vectors among the 6,172 rows.
N_PATTERNS = 329

RACE_COLS = EXPECTED_FEATURES[:4]
AGE_COLS = ["age_lt_25", "age_25_to_45", "age_geq_46"]


@pytest.fixture(scope="module")
def compas():
    return load_compas(SHARED_FILE)


@pytest.fixture(scope="module")
def compas_frame():
    return load_compas(SHARED_FILE, as_frame=True)


@pytest.fixture(scope="module")
def raw_filtered():
    """Filtered raw rows, computed with the csv module (independent of pandas).

    Row dicts keep the first of duplicated column names (``priors_count``).
    """
    rows = []
    with open(SHARED_FILE, newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader)
        first = {}
        for i, name in enumerate(header):
            first.setdefault(name, i)
        for rec in reader:
            r = {name: rec[i] for name, i in first.items()}
            days = r["days_b_screening_arrest"]
            if days == "" or not -30 <= float(days) <= 30:
                continue
            if int(r["is_recid"]) == -1:
                continue
            if r["c_charge_degree"] == "O":
                continue
            if r["score_text"] in ("N/A", ""):
                continue
            rows.append(r)
    return rows


def _row(bunch, i):
    return dict(zip(bunch.feature_names, bunch.data[i].tolist(), strict=True))


def _expected(on):
    out = dict.fromkeys(EXPECTED_FEATURES, 0)
    out.update(dict.fromkeys(on, 1))
    return out


def test_shape_and_counts(compas):
    assert compas.data.shape == (N_ROWS, len(EXPECTED_FEATURES)) == (6172, 21)
    assert compas.target.shape == (N_ROWS,)
    assert int(compas.target.sum()) == N_ARREST
    assert set(np.unique(compas.target).tolist()) == {0, 1}
    assert compas.feature_names == EXPECTED_FEATURES
    assert compas.frame is None
    assert isinstance(compas.DESCR, str) and "COMPAS" in compas.DESCR
    assert np.issubdtype(compas.data.dtype, np.integer)
    assert np.issubdtype(compas.target.dtype, np.integer)


def test_filter_matches_independent_reimplementation(compas, raw_filtered):
    assert len(raw_filtered) == N_ROWS
    y_raw = np.array([int(r["two_year_recid"]) for r in raw_filtered])
    np.testing.assert_array_equal(compas.target, y_raw)


def test_features_binary(compas):
    assert set(np.unique(compas.data).tolist()) <= {0, 1}


def test_distinct_feature_patterns(compas):
    assert len(np.unique(compas.data, axis=0)) == N_PATTERNS == 329


def test_one_hot_blocks(compas_frame):
    X = compas_frame.data
    assert (X[RACE_COLS].sum(axis=1) == 1).all()
    assert (X[AGE_COLS].sum(axis=1) == 1).all()
    for prefix in ("priors", "juv_misd", "juv_fel"):
        np.testing.assert_array_equal(X[f"{prefix}_eq_0"], 1 - X[f"{prefix}_geq_1"])
        # thresholds are nested
        assert (X[f"{prefix}_geq_2"] <= X[f"{prefix}_geq_1"]).all()
        assert (X[f"{prefix}_geq_5"] <= X[f"{prefix}_geq_2"]).all()


def test_features_match_raw_columns(compas, raw_filtered):
    X = pd.DataFrame(compas.data, columns=compas.feature_names)
    age = np.array([int(r["age"]) for r in raw_filtered])
    priors = np.array([int(r["priors_count"]) for r in raw_filtered])
    np.testing.assert_array_equal(X["age_25_to_45"], (age >= 25) & (age <= 45))
    np.testing.assert_array_equal(X["priors_geq_5"], priors >= 5)
    female = np.array([r["sex"] == "Female" for r in raw_filtered])
    np.testing.assert_array_equal(X["female"], female)
    assert int(X["female"].sum()) == 1175
    assert int(X["race_African_American"].sum()) == 3175
    assert int(X["race_Caucasian"].sum()) == 2103
    assert int(X["race_Hispanic"].sum()) == 509
    # "Other" (343) + "Asian" (31) + "Native American" (11)
    assert int(X["race_Other"].sum()) == 385


# Expectations written by hand from the raw CSV lines.
#
# Filtered row 0 = raw id 1:
#   1,miguel hernandez,...,Male,1947-04-18,69,Greater than 45,Other,
#   juv_fel_count=0,...,juv_misd_count=0,...,priors_count=0,days=-1,...,
#   c_charge_degree=F,...,is_violent_recid=0,...,two_year_recid=0
# Filtered row 2 = raw id 4:
#   4,ed philo,...,Male,1991-05-14,24,Less than 25,African-American,
#   juv_fel_count=0,...,juv_misd_count=0,...,priors_count=4,days=-1,...,
#   c_charge_degree=F,...,is_violent_recid=0,...,two_year_recid=1
# Filtered row 73 = raw id 128:
#   128,kambrel tarver,...,Male,1991-01-30,25,25 - 45,African-American,
#   juv_fel_count=1,...,juv_misd_count=6,...,priors_count=14,days=-1,...,
#   c_charge_degree=F,...,is_violent_recid=1,...,two_year_recid=1
# Filtered row 189 = raw id 333:
#   333,tumeka warner,...,Female,1974-04-25,41,25 - 45,African-American,
#   juv_fel_count=0,...,juv_misd_count=0,...,priors_count=5,days=0,...,
#   c_charge_degree=M,...,is_violent_recid=0,...,two_year_recid=0
# Filtered row 408 = raw id 730 (first Asian row; merged into race_Other):
#   730,cuong do,...,Male,1981-03-30,35,25 - 45,Asian,
#   juv_fel_count=0,...,juv_misd_count=0,...,priors_count=0,days=-1,...,
#   c_charge_degree=F,...,is_violent_recid=0,...,two_year_recid=0
# Filtered row 646 = raw id 1157 (first Native American row; race_Other):
#   1157,james tiger,...,Male,1988-09-09,27,25 - 45,Native American,
#   juv_fel_count=0,...,juv_misd_count=0,...,priors_count=3,days=0,...,
#   c_charge_degree=M,...,is_violent_recid=0,...,two_year_recid=0
KNOWN_ROWS = [
    (
        0,
        "1",
        ("Other", "Male"),
        ["race_Other", "age_geq_46", "priors_eq_0", "juv_misd_eq_0", "juv_fel_eq_0"],
        0,
        0,
    ),
    (
        2,
        "4",
        ("African-American", "Male"),
        [
            "race_African_American",
            "age_lt_25",
            "priors_geq_1",
            "priors_geq_2",
            "juv_misd_eq_0",
            "juv_fel_eq_0",
        ],
        1,
        0,
    ),
    (
        73,
        "128",
        ("African-American", "Male"),
        [
            "race_African_American",
            "age_25_to_45",
            "priors_geq_1",
            "priors_geq_2",
            "priors_geq_5",
            "juv_misd_geq_1",
            "juv_misd_geq_2",
            "juv_misd_geq_5",
            "juv_fel_geq_1",
        ],
        1,
        1,
    ),
    (
        189,
        "333",
        ("African-American", "Female"),
        [
            "race_African_American",
            "age_25_to_45",
            "female",
            "priors_geq_1",
            "priors_geq_2",
            "priors_geq_5",
            "juv_misd_eq_0",
            "juv_fel_eq_0",
            "charge_degree_M",
        ],
        0,
        0,
    ),
    (
        408,
        "730",
        ("Asian", "Male"),
        [
            "race_Other",
            "age_25_to_45",
            "priors_eq_0",
            "juv_misd_eq_0",
            "juv_fel_eq_0",
        ],
        0,
        0,
    ),
    (
        646,
        "1157",
        ("Native American", "Male"),
        [
            "race_Other",
            "age_25_to_45",
            "priors_geq_1",
            "priors_geq_2",
            "juv_misd_eq_0",
            "juv_fel_eq_0",
            "charge_degree_M",
        ],
        0,
        0,
    ),
]


@pytest.mark.parametrize(
    ("pos", "raw_id", "group", "on", "y_arrest", "y_violent"), KNOWN_ROWS
)
def test_known_rows(compas, raw_filtered, pos, raw_id, group, on, y_arrest, y_violent):
    assert raw_filtered[pos]["id"] == raw_id
    assert _row(compas, pos) == _expected(on)
    assert int(compas.target[pos]) == y_arrest
    assert tuple(compas.groups.iloc[pos]) == group
    violent = load_compas(SHARED_FILE, target="violent", return_X_y=True)[1]
    assert int(violent[pos]) == y_violent


def test_as_frame(compas, compas_frame):
    b = compas_frame
    assert isinstance(b.data, pd.DataFrame)
    assert list(b.data.columns) == EXPECTED_FEATURES
    assert isinstance(b.target, pd.Series)
    assert b.target.name == "two_year_recid"
    assert isinstance(b.frame, pd.DataFrame)
    assert list(b.frame.columns) == [*EXPECTED_FEATURES, "two_year_recid"]
    assert b.frame.shape == (N_ROWS, N_FEATURES + 1)
    np.testing.assert_array_equal(b.data.to_numpy(), compas.data)
    np.testing.assert_array_equal(b.target.to_numpy(), compas.target)
    assert b.feature_names == EXPECTED_FEATURES


def test_return_X_y(compas):
    X, y = load_compas(SHARED_FILE, return_X_y=True)
    assert isinstance(X, np.ndarray) and isinstance(y, np.ndarray)
    np.testing.assert_array_equal(X, compas.data)
    np.testing.assert_array_equal(y, compas.target)
    out = load_compas(SHARED_FILE, return_X_y=True, as_frame=True)
    assert len(out) == 2
    assert isinstance(out[0], pd.DataFrame) and isinstance(out[1], pd.Series)


def test_return_groups_false():
    b = load_compas(SHARED_FILE, return_groups=False)
    assert "groups" not in b


def test_violent_target(compas, raw_filtered):
    b = load_compas(SHARED_FILE, target="violent", as_frame=True)
    y_raw = np.array([int(r["is_violent_recid"]) for r in raw_filtered])
    np.testing.assert_array_equal(b.target.to_numpy(), y_raw)
    assert int(b.target.sum()) == int(y_raw.sum()) == 692
    assert b.target.name == "is_violent_recid"
    assert b.data.shape == (N_ROWS, N_FEATURES)
    np.testing.assert_array_equal(b.data.to_numpy(), compas.data)


def test_groups(compas, raw_filtered):
    g = compas.groups
    assert isinstance(g, pd.DataFrame)
    assert list(g.columns) == ["race", "sex"]
    assert len(g) == N_ROWS
    assert g["race"].tolist() == [r["race"] for r in raw_filtered]
    assert g["sex"].tolist() == [r["sex"] for r in raw_filtered]
    assert set(g["sex"]) == {"Male", "Female"}
    assert set(g["race"]) == {
        "African-American",
        "Asian",
        "Caucasian",
        "Hispanic",
        "Native American",
        "Other",
    }
    # groups agree with the race / sex dummies; "Asian" and "Native
    # American" are merged into race_Other as in Marx, Calmon & Ustun (2020)
    X = pd.DataFrame(compas.data, columns=compas.feature_names)
    np.testing.assert_array_equal(X["female"], g["sex"] == "Female")
    for col, races in (
        ("race_African_American", ["African-American"]),
        ("race_Caucasian", ["Caucasian"]),
        ("race_Hispanic", ["Hispanic"]),
        ("race_Other", ["Other", "Asian", "Native American"]),
    ):
        np.testing.assert_array_equal(X[col], g["race"].isin(races))
    assert "race_Asian" not in compas.feature_names
    assert "race_Native_American" not in compas.feature_names


def test_score_text_na_rows_dropped(tmp_path):
    # ProPublica marks missing scores with the literal "N/A", which pandas
    # reads as NaN; such rows must still be removed by the filter.
    # Raw rows 0-2 (ids 1, 3, 4) pass the filter.
    df = pd.read_csv(SHARED_FILE, nrows=3)
    p = tmp_path / "ok.csv"
    df.to_csv(p, index=False)
    assert load_compas(p).data.shape == (3, N_FEATURES)

    df.loc[1, "score_text"] = "N/A"
    p = tmp_path / "na.csv"
    df.to_csv(p, index=False)
    assert "N/A" in p.read_text()
    b = load_compas(p)
    assert b.data.shape == (2, N_FEATURES)
    assert b.groups["race"].tolist() == ["Other", "African-American"]
    assert b.target.tolist() == [0, 1]


def test_unknown_target_raises():
    with pytest.raises(ValueError, match="Unknown target"):
        load_compas(SHARED_FILE, target="felony")


def test_missing_column_raises(tmp_path):
    df = pd.read_csv(SHARED_FILE, nrows=20)
    p = tmp_path / "bad.csv"
    df.drop(columns=["juv_fel_count"]).to_csv(p, index=False)
    with pytest.raises(ValueError, match="juv_fel_count"):
        load_compas(p)


def test_missing_file_raises(tmp_path):
    with pytest.raises(OSError, match="not found"):
        load_compas(tmp_path / "nope.csv")


def test_unparsable_file_raises(tmp_path):
    p = tmp_path / "empty.csv"
    p.write_text("")
    with pytest.raises(ValueError, match="parse"):
        load_compas(p)


def test_download_and_cache(tmp_path, compas):
    cache = tmp_path / "cache"
    b = load_compas(url=SHARED_FILE.as_uri(), data_home=cache)
    cached = cache / "compas-scores-two-years.csv"
    assert cached.is_file()
    assert cached.read_bytes() == SHARED_FILE.read_bytes()
    # no leftover temporary files
    assert sorted(p.name for p in cache.iterdir()) == [cached.name]
    np.testing.assert_array_equal(b.data, compas.data)
    np.testing.assert_array_equal(b.target, compas.target)
    pd.testing.assert_frame_equal(b.groups, compas.groups)

    # Second call: served from the cache, the (bogus) url is never used.
    bogus = (tmp_path / "does-not-exist.csv").as_uri()
    b2 = load_compas(url=bogus, data_home=cache)
    np.testing.assert_array_equal(b2.data, compas.data)


def test_download_failure_raises(tmp_path):
    cache = tmp_path / "cache"
    bogus = (tmp_path / "does-not-exist.csv").as_uri()
    with pytest.raises(OSError, match="Could not download"):
        load_compas(url=bogus, data_home=cache)
    # nothing (not even a partial file) is left in the cache
    assert list(cache.iterdir()) == []
