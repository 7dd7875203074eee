"""``audit`` on a target of 3 labels: the K-class exact audit, its summary
and report files, checked against enumeration."""

import json

import numpy as np
import pandas as pd
import pytest
from brute_force_multiclass import MulticlassTruth, tiny_case

from sklearn_multiplicity._cli import main

FAST = ["--time-limit", "10", "--quiet"]
LABELS = np.array(["low", "mid", "high"])


@pytest.fixture
def csv(tmp_path):
    X, y, _ = tiny_case(2)
    X, y = np.vstack([X, X]), np.concatenate([y, y])  # every label twice
    frame = pd.DataFrame(X, columns=["a", "b"])
    frame["grade"] = LABELS[y]
    path = tmp_path / "grades.csv"
    frame.to_csv(path, index=False)
    return path, X, y


def test_a_k_label_target_gets_the_k_class_audit(csv, tmp_path, capsys):
    path, X, y = csv
    out = tmp_path / "report"
    argv = ["audit", path, "--target", "grade", "--epsilon", "0.125", "--out", out]
    assert main([str(a) for a in [*argv, *FAST]]) == 0
    text = capsys.readouterr().out
    assert "K-class audit" in text and "3 labels" in text
    report = json.loads((out / "report.json").read_text())
    people = pd.read_csv(out / "people.csv", index_col=0)
    # The truth counts labels in sorted order, as the audit does.
    classes = np.sort(LABELS)
    baseline = np.searchsorted(classes, people["baseline"].to_numpy())
    truth = MulticlassTruth(X, np.searchsorted(classes, LABELS[y]))
    rows = [np.flatnonzero((X == p).all(axis=1))[0] for p in truth.points]
    budget = report["error_budget"] - report["baseline"]["errors"]
    ambiguity = truth.ambiguity(baseline[rows], budget)
    discrepancy = truth.discrepancy(baseline[rows], budget)
    measures = report["measures"]
    assert measures["ambiguity"]["value"] == pytest.approx(ambiguity)
    assert measures["discrepancy"]["value"] == pytest.approx(discrepancy)
    # Every person's flag agrees with the measure, and an ambiguous person
    # has a second label found.
    assert (people["ambiguous"] == "yes").mean() == pytest.approx(ambiguity)
    found = people["labels_found"].str.split(";").str.len()
    assert ((found > 1) == (people["ambiguous"] == "yes")).all()
    assert (people["label"].to_numpy() == LABELS[y]).all()


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--measure", "probabilistic"], "is for two labels"),
        (["--epsilon", "low=0.1,mid=0.1,high=0.1"], "one tolerance"),
    ],
)
def test_what_is_not_yet_for_k_labels_says_so(csv, tmp_path, capsys, flags, message):
    path, _, _ = csv
    argv = ["audit", path, "--target", "grade", *flags, "--out", tmp_path / "o"]
    assert main([str(a) for a in [*argv, *FAST]]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and message in err
