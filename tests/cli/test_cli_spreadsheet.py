"""CSV files a spreadsheet opens safely: text cells that would run as a
formula get a leading quote (OWASP), numbers are untouched, and ``--raw-csv``
writes them as they are."""

import csv

import numpy as np
import pandas as pd
import pytest
from test_cli import FAST, run, small_frame

from sklearn_multiplicity._cli._format import spreadsheet_safe

HOSTILE = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx"]


def test_formula_cells_get_a_quote_and_numbers_stay_numbers():
    table = pd.DataFrame(
        {
            "text": HOSTILE + ["plain", "a=b"],
            "number": [-1.5, 2.0, -3.0, 4.0, 5.0, 6.0, 7.0, -8.0],
            "group": pd.Categorical(["=x", "y"] * 4),
        },
        index=pd.Index([f"r{i}" for i in range(7)] + ["=row"], name="row"),
    )
    safe = spreadsheet_safe(table)
    assert safe["text"].tolist() == ["'" + v for v in HOSTILE] + ["plain", "a=b"]
    np.testing.assert_array_equal(safe["number"], table["number"])
    assert safe["number"].dtype == float
    assert safe["group"].tolist() == ["'=x", "y"] * 4
    assert safe.index[-1] == "'=row" and safe.index[0] == "r0"
    assert table["text"].iloc[0] == HOSTILE[0]  # the original is untouched


@pytest.mark.parametrize("raw", [False, True], ids=["safe", "raw"])
def test_people_csv_neutralises_a_hostile_group_unless_raw(tmp_path, capsys, raw):
    frame = small_frame()
    frame["group"] = np.where(frame["group"] == "A", HOSTILE[0], "B")
    path = tmp_path / "hostile.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    flags = ["--raw-csv"] if raw else []
    argv = ["audit", path, "--target", "outcome", "--groups", "group", "--out", out]
    code, _, err = run(capsys, *argv, *flags, *FAST)
    assert code == 0, err
    with open(out / "people.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    groups = {row["group"] for row in rows}
    assert groups == ({HOSTILE[0], "B"} if raw else {"'" + HOSTILE[0], "B"})
    # Numbers stay numbers: no cell of a numeric column is quoted.
    assert not any(row["min_flip_errors"].startswith("'") for row in rows)
