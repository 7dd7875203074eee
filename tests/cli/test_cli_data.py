"""The command line's data loading: identifier columns and missing columns."""

import json

import numpy as np
import pandas as pd
import pytest

from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._data import (
    DataError,
    identifier_columns,
    load_audit_data,
)

N = 40


def people(n=N, seed=0):
    """A table with a text id, a row number and honest features."""
    rng = np.random.RandomState(seed)
    frame = pd.DataFrame(
        {
            "name": [f"person {i:03d}" for i in rng.permutation(n)],
            "row": np.arange(n) + 1000,
            "income": rng.normal(50, 10, n),  # every value distinct, a measurement
            "smoker": rng.randint(0, 2, n),
            "region": rng.choice(["north", "south", "east"], n),
        }
    )
    score = frame["smoker"] + (frame["region"] == "north") + rng.normal(0, 0.7, n)
    frame["outcome"] = np.where(score > 0.8, "yes", "no")
    return frame


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "people.csv"
    people().to_csv(path, index=False)
    return path


def test_identifiers_are_text_or_integer_columns_with_a_value_per_row():
    frame = people().drop(columns="outcome")
    assert identifier_columns(frame) == ["name", "row"]
    # Nearly every value distinct (39 of 40) still names people...
    nearly = frame.assign(name=[f"p{i}" for i in range(N - 1)] + ["p0"])
    assert identifier_columns(nearly) == ["name", "row"]
    # ...while an integer column with a repeated value, a text column with
    # 90% distinct values, numbers written as text and floats do not.
    honest = pd.DataFrame(
        {
            "count": list(range(N - 1)) + [0],
            "city": [f"c{i}" for i in range(36)] + ["c0"] * 4,
            "as_text": [str(i) for i in range(N)],
            "floats": np.arange(N) + 0.5,
            "flags": [True, False] * (N // 2),
        }
    )
    assert identifier_columns(honest) == []
    # A small table has too few rows to tell an identifier from a feature.
    assert identifier_columns(frame.head(19)) == []
    assert identifier_columns(frame.head(20)) == ["name", "row"]


def test_identifiers_are_left_out_with_a_warning_unless_kept(csv):
    with pytest.warns(UserWarning, match=r"identifier column\(s\) \('name', 'row'\)"):
        X, y, _, _ = load_audit_data(csv, "outcome")
    assert "row" not in X.columns
    assert not any(c.startswith("name") for c in X.columns)
    assert {"income", "smoker", "region_north"} <= set(X.columns)
    with pytest.warns(UserWarning, match=r"\('name'\)"):
        X, _, _, _ = load_audit_data(csv, "outcome", keep=["row"])
    assert "row" in X.columns
    with pytest.warns(UserWarning, match=r"\('row'\)"):
        X, _, _, _ = load_audit_data(csv, "outcome", groups="name")
    with pytest.raises(DataError, match="--keep-column column 'nope' not found"):
        load_audit_data(csv, "outcome", keep=["nope"])


def test_a_table_of_identifiers_only_says_so(tmp_path):
    path = tmp_path / "ids.csv"
    people()[["name", "row", "outcome"]].to_csv(path, index=False)
    with pytest.raises(DataError, match="every one looks like an identifier"):
        load_audit_data(path, "outcome")


def test_the_command_line_warns_and_keeps_on_request(csv, tmp_path, capsys):
    argv = ["audit", str(csv), "--target", "outcome", "--measure", "probabilistic"]
    assert main(argv + ["--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "warning: left out 2 identifier column(s) ('name', 'row')" in err
    assert "--keep-column NAME" in err
    report = json.loads((tmp_path / "a" / "report.json").read_text())
    assert "row" not in report["dataset"]["feature_names"]
    argv += ["--keep-column", "row", "--keep-column", "name"]
    assert main(argv + ["--out", str(tmp_path / "b")]) == 0
    assert "identifier" not in capsys.readouterr().err
    report = json.loads((tmp_path / "b" / "report.json").read_text())
    assert "row" in report["dataset"]["feature_names"]
    assert f"name_person {0:03d}" in report["dataset"]["feature_names"]


@pytest.mark.parametrize("n_columns, shown", [(5, 5), (20, 20), (26, 20)])
def test_column_not_found_lists_the_columns(tmp_path, capsys, n_columns, shown):
    names = [f"c{j}" for j in range(n_columns)]
    frame = pd.DataFrame(np.zeros((3, n_columns), dtype=int), columns=names)
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    assert main(["audit", str(path), "--target", "label", "-q"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert f"'label' not found; the {n_columns} column(s) are: " in line
    listed = line.split(" are: ")[1]
    assert [f"'{c}'" for c in names[:shown]] == listed.split(" and ")[0].split(", ")
    assert (f"and {n_columns - shown} more" in line) == (n_columns > shown)


@pytest.mark.parametrize("typed", ["Reoffend", "reofend", "REOFFEND"])
def test_a_mistyped_column_gets_the_closest_names_first(tmp_path, capsys, typed):
    # The column meant sits past the first twenty listed: the error names it.
    names = [f"feature_{j:02d}" for j in range(24)] + ["reoffend"]
    frame = pd.DataFrame(np.zeros((3, len(names)), dtype=int), columns=names)
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    assert main(["audit", str(path), "--target", typed, "-q"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert f"{typed!r} not found; did you mean 'reoffend'" in line
    assert line.index("reoffend'") < line.index("'feature_00'")


def test_a_continuous_target_is_named_as_such_in_the_library():
    from sklearn_multiplicity import MultiplicityAuditor

    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="target is continuous .*class labels"):
        MultiplicityAuditor().fit(X, X[:, 0] * 1.5)
