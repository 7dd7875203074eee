"""The path of per-label tolerances of a 3-label target on the command line
(``--max-epsilon LABEL=EPS,...``), checked against the auditor's own path
and against enumeration."""

import numpy as np
import pandas as pd
import pytest
from test_cli_multiclass import CLASSES, FAST, audit, tiny_frame, truth_of

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._cli import main

EPSILON = {"low": 0.0, "mid": 0.2, "high": 0.4}


def flag(tolerances):
    return ",".join(f"{label}={eps:g}" for label, eps in tolerances.items())


@pytest.fixture
def csv(tmp_path):
    frame = tiny_frame()
    path = tmp_path / "grades.csv"
    frame.drop(columns="site").to_csv(path, index=False)
    return path, frame[["a", "b"]].to_numpy(), frame["grade"].to_numpy()


def test_the_per_label_path_is_the_auditors_and_the_enumerations(csv, tmp_path, capsys):
    path, X, y = csv
    top = {"low": 0.25, "mid": 0.1, "high": 0.4}
    out = tmp_path / "r"
    flags = ["--epsilon", flag(EPSILON), "--max-epsilon", flag(top)]
    text, report, people = audit(capsys, path, out, *flags)
    # Each label's end is its --max-epsilon, at least its --epsilon.
    ends = {label: max(top[label], EPSILON[label]) for label in CLASSES}
    assert report["settings"]["max_epsilon"] == pytest.approx(ends)
    table = pd.DataFrame(report["path"])
    for label in CLASSES:
        steps = table[f"epsilon_{label}"]
        assert steps.iloc[-1] == pytest.approx(ends[label])
        assert (steps <= table["epsilon"] + 1e-12).all()  # capped equal steps
        assert (np.diff(table[f"budget_{label}"]) >= 0).all()

    # The auditor's path of the same tolerances, called directly.
    frame = pd.DataFrame(X, columns=["a", "b"])
    auditor = MultiplicityAuditor(time_limit=10, epsilon=EPSILON).fit(frame, y)
    ours = auditor.path(ends)
    assert set(table.columns) == {*ours.columns, "budget"}
    for column in ours.columns:
        assert np.allclose(table[column], ours[column]), column
    budgets = table[[f"budget_{c}" for c in CLASSES]].sum(axis=1)
    assert np.allclose(table["budget"], budgets)  # the most errors in all

    # Every step's measures are the enumeration's at its per-label budgets.
    truth, baseline = truth_of(X, y, people)
    errors = {r["label"]: r["errors"] for r in report["baseline"]["by_label"]}
    for _, row in table.iterrows():
        extra = [row[f"budget_{c}"] - errors[c] for c in CLASSES]
        assert row["ambiguity"] == pytest.approx(truth.ambiguity(baseline, extra))
        assert row["discrepancy"] == pytest.approx(truth.discrepancy(baseline, extra))
        assert row["certified"]
    assert f"Path: {len(table)} steps of the per-label tolerances" in text
    page = (out / "report.html").read_text()
    assert "budget_LABEL" in page and 'href="path.csv"' in page
    assert "epsilon_low" in pd.read_csv(out / "path.csv").columns
    if "path.png" in report["files"]:
        assert 'alt="path"' in page


def test_without_max_epsilon_the_path_ends_at_the_per_label_tolerances(
    csv, tmp_path, capsys
):
    path, _, _ = csv
    _, report, _ = audit(capsys, path, tmp_path / "r", "--epsilon", flag(EPSILON))
    assert report["settings"]["max_epsilon"] == pytest.approx(EPSILON)
    last = report["path"][-1]
    for label, eps in EPSILON.items():
        assert last[f"epsilon_{label}"] == pytest.approx(eps)
        assert last[f"budget_{label}"] == report["epsilon"]["budget"][label]
    # The last step is the level set at --epsilon: the same measures.
    for name in ("ambiguity", "discrepancy"):
        assert last[name] == pytest.approx(report[name]["value"])


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--max-epsilon", "low=0.1,mid=0.1,high=0.1"], "give --epsilon per label"),
        (
            ["--epsilon", flag(EPSILON), "--max-epsilon", "low=0.1,mid=0.1"],
            "max_epsilon gives no tolerance for class 'high'",
        ),
        (
            ["--epsilon", flag(EPSILON), "--max-epsilon", "low=0.1,mid=0.1,top=0.1"],
            "not class labels",
        ),
    ],
)
def test_a_bad_per_label_path_is_one_error_line(csv, tmp_path, capsys, flags, message):
    path, _, _ = csv
    argv = ["audit", path, "--target", "grade", *flags, "--out", tmp_path / "o"]
    assert main([str(a) for a in [*argv, *FAST]]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and message in err
    assert len(err.strip().splitlines()) == 1
