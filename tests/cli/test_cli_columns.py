"""Choosing the feature columns on the command line: --columns and
--drop-column, checked before any solver, with the closest names on a typo."""

import json

import numpy as np
import pandas as pd
import pytest

from sklearn_multiplicity._cli import main


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 2, n),
            "b": rng.integers(0, 2, n),
            "noisy": rng.normal(size=n),
            "y": rng.integers(0, 2, n),
        }
    )
    frame.loc[3, "noisy"] = np.nan
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    return path


def run(table, tmp_path, *options):
    out = tmp_path / "out"
    argv = ["audit", str(table), "--target", "y", "-q", "--n-models", "5"]
    code = main([*argv, "--out", str(out), *options])
    return code, out


def features(out):
    return json.loads((out / "report.json").read_text())["dataset"]["feature_names"]


def test_a_column_with_missing_values_names_the_option_that_leaves_it_out(
    table, tmp_path, capsys
):
    code, _ = run(table, tmp_path)
    assert code == 2
    err = capsys.readouterr().err
    assert "'noisy' has 1 missing" in err and "--drop-column noisy" in err


def test_drop_column_leaves_it_out(table, tmp_path):
    code, out = run(table, tmp_path, "--drop-column", "noisy")
    assert code == 0
    assert features(out) == ["a", "b"]


def test_columns_audits_only_those(table, tmp_path):
    code, out = run(table, tmp_path, "--columns", "b")
    assert code == 0
    assert features(out) == ["b"]


@pytest.mark.parametrize("option", ["--columns", "--drop-column"])
def test_a_mistyped_column_gets_the_closest_names(table, tmp_path, capsys, option):
    code, _ = run(table, tmp_path, option, "nosy")
    assert code == 2
    err = capsys.readouterr().err
    assert f"{option} column 'nosy' not found; did you mean 'noisy'" in err
