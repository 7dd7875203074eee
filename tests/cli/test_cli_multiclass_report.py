"""The K-class command-line audit's groups, per-label tolerances, abstention
and time model, checked against enumeration."""

import numpy as np
import pandas as pd
import pytest
from test_cli_multiclass import CLASSES, audit, label_sets, tiny_frame, truth_of

from sklearn_multiplicity._cli._plans import PLANS
from sklearn_multiplicity._cli._run import run_audit


@pytest.fixture
def csv(tmp_path):
    """The data without its group column, and the frame."""
    frame = tiny_frame()
    path = tmp_path / "grades.csv"
    frame.drop(columns="site").to_csv(path, index=False)
    return path, frame


def test_groups_get_their_measures(csv, tmp_path, capsys):
    _, frame = csv
    path = tmp_path / "with-groups.csv"
    frame.to_csv(path, index=False)
    flags = ["--epsilon", "0.125", "--groups", "site"]
    text, report, people = audit(capsys, path, tmp_path / "r", *flags)
    X, y = frame[["a", "b"]].to_numpy(), frame["grade"].to_numpy()
    truth, baseline = truth_of(X, y, people)
    level_set = truth.level_set(baseline, report["epsilon"]["extra_errors"])
    changed = level_set[:, truth.inverse] != baseline[truth.inverse]  # per row
    groups = {row["group"]: row for row in report["groups"]}
    assert set(groups) == {"north", "south"}
    for name, row in groups.items():
        rows = frame["site"].to_numpy() == name
        assert row["n"] == rows.sum()
        assert row["ambiguity"] == pytest.approx(changed[:, rows].any(axis=0).mean())
        assert row["discrepancy"] == pytest.approx(changed[:, rows].mean(axis=1).max())
    assert "By group:" in text and "north" in text
    assert (people["group"] == frame["site"]).all()
    page = (tmp_path / "r" / "report.html").read_text()
    assert "<h2>By group</h2>" in page


def test_per_label_tolerances_bound_each_labels_errors(csv, tmp_path, capsys):
    path, frame = csv
    flags = ["--epsilon", "low=0,mid=0.2,high=0.4"]
    text, report, people = audit(capsys, path, tmp_path / "r", *flags)
    X, y = frame[["a", "b"]].to_numpy(), frame["grade"].to_numpy()
    truth, baseline = truth_of(X, y, people)
    level_set = report["epsilon"]
    assert level_set["per_label"] and level_set["value"] == {
        "low": 0.0,
        "mid": 0.2,
        "high": 0.4,
    }
    counts = pd.Series(y).value_counts()
    errors = {r["label"]: r["errors"] for r in report["baseline"]["by_label"]}
    for label, eps in level_set["value"].items():
        extra = np.floor(eps * counts[label] + 1e-9)
        assert level_set["extra_errors"][label] == extra
        assert level_set["budget"][label] == errors[label] + extra
    extra = [level_set["extra_errors"][c] for c in CLASSES]
    assert report["ambiguity"]["value"] == pytest.approx(
        truth.ambiguity(baseline, extra)
    )
    assert report["discrepancy"]["value"] == pytest.approx(
        truth.discrepancy(baseline, extra)
    )
    for i, row in enumerate(X):
        expected = {CLASSES[k] for k in truth.label_set(baseline, extra, row)}
        assert label_sets(people["labels"])[i] == expected
    # The path of per-label tolerances ends at them.
    assert "per label" in text and "steps of the per-label tolerances" in text
    last = report["path"][-1]
    for label, eps in level_set["value"].items():
        assert last[f"epsilon_{label}"] == pytest.approx(eps)
        assert last[f"budget_{label}"] == level_set["budget"][label]

    # One number ends the path of one overall tolerance beside them.
    flags += ["--max-epsilon", "0.125"]
    text, report, _ = audit(capsys, path, tmp_path / "r2", *flags)
    # Every row twice: error counts are even, so the path steps by 2.
    assert [row["extra_errors"] for row in report["path"]] == [0, 2]


def test_abstention_decides_the_people_no_model_relabels(csv, tmp_path, capsys):
    path, _ = csv
    flags = ["--epsilon", "0.0625", "--abstain"]
    text, report, people = audit(capsys, path, tmp_path / "r", *flags)
    decided = ~people["contestable"]
    assert (people.loc[decided, "decision"] == people.loc[decided, "baseline"]).all()
    assert (people.loc[~decided, "decision"] == "abstain").all()
    abstention = report["abstention"]
    assert abstention["n_decided"] == decided.sum()
    right = people.loc[decided, "decision"] == people.loc[decided, "target"]
    assert abstention["decided_accuracy"] == pytest.approx(right.mean())
    assert "Abstaining on 16 people" in text


def test_the_plan_settles_epsilon_first_and_a_spent_deadline_reports_bounds():
    plan = PLANS["command-line K-class audit"]
    assert [step.name for step in plan] == ["fit", "measures", "people", "path"]
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 2, size=(120, 8)), columns=list("abcdefgh"))
    y = rng.integers(0, 4, size=120)  # noise: hard to certify
    report = run_audit(
        X, y, epsilon=0.05, max_epsilon=0.1, total_time_limit=0.5, time_limit=10
    )
    # Every step ran, and all that a limit left open is reported as open.
    assert set(report.timings) == {"fit", "measures", "people", "path", "total"}
    after_fit = report.timings["total"] - report.timings["fit"]
    assert after_fit < 0.5 + 3.0  # the deadline, and the MIPs' stopping
    data = report.to_dict()
    assert not data["certified"] and report.open_values()
    contestable, undecided = report.flags()
    assert (report.labels_open.any(axis=1) >= undecided).all()
    assert not (contestable & undecided).any()
    assert data["n_undecided"] == undecided.sum()
    assert "Not certified (bounds only)" in report.summary()
