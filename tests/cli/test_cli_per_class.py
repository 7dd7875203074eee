"""Per-class tolerances from the command line: ``--epsilon no=EPS,yes=EPS``."""

import json

import numpy as np
import pandas as pd
import pytest
from test_cli import FAST, run, small_frame

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._data import load_audit_data


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "data.csv"
    small_frame().to_csv(path, index=False)
    return path


def test_per_class_tolerances_reach_the_audit_and_its_report(csv, tmp_path, capsys):
    out_dir = tmp_path / "report"
    code, out, err = run(
        capsys,
        "audit", csv, "--target", "outcome", "--groups", "group",
        "--epsilon", "no=0.05,yes=0.1", "--max-epsilon", "no=0.1,yes=0.1",
        "--out", out_dir, *FAST,
    )  # fmt: skip
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    level_set = report["epsilon"]
    assert level_set["value"] == {"no": 0.05, "yes": 0.1}
    assert report["settings"]["max_epsilon"] == {"no": 0.1, "yes": 0.1}

    # The same level set and measures as the API on the same encoded data.
    X, y, _, _ = load_audit_data(csv, "outcome", "group")
    auditor = MultiplicityAuditor(time_limit=10).fit(X, y)
    eps = {"no": 0.05, "yes": 0.1}
    assert level_set["budget"] == auditor.error_budget(eps)
    baseline = report["baseline"]
    extra = level_set["extra_errors"]
    assert extra == {
        "false_positives": float(int(0.05 * baseline["negatives"])),
        "false_negatives": float(int(0.1 * baseline["positives"])),
    }
    assert level_set["budget"]["false_positives"] == (
        baseline["false_positives"] + extra["false_positives"]
    )
    for name in ("ambiguity", "discrepancy"):
        bounds = getattr(auditor, f"{name}_bounds")(eps)
        assert (report[name]["lower"], report[name]["upper"]) == pytest.approx(bounds)
    assert "per class -> " in out
    assert f"{extra['false_positives']:g} extra false positives" in out

    # The path takes equal steps on both rates up to --max-epsilon.
    path = report["path"]
    assert [row["epsilon_no"] for row in path][-1] == pytest.approx(0.1)
    assert [row["epsilon_yes"] for row in path][-1] == pytest.approx(0.1)
    assert all(row["epsilon_no"] <= row["epsilon"] + 1e-12 for row in path)
    assert [row["epsilon"] for row in report["sampling_path"]] == pytest.approx(
        [row["epsilon"] for row in path]
    )
    assert (out_dir / "report.html").read_text().count("false positives") >= 1


def test_labels_of_a_numeric_target_match_their_text(tmp_path, capsys):
    frame = small_frame()
    frame["outcome"] = (frame["outcome"] == "yes").astype(int)
    path = tmp_path / "numeric.csv"
    frame.to_csv(path, index=False)
    code, out, err = run(
        capsys, "audit", path, "--target", "outcome", "--epsilon", "0=0,1=0.1",
        *FAST,
    )  # fmt: skip
    assert code == 0, err
    assert "eps = {0: 0, 1: 0.1} per class" in out


@pytest.mark.parametrize(
    "epsilon, extra, message",
    [
        ("no=0.05,maybe=0.1", [], "not class labels"),
        ("no=0.05,no=0.1", [], "given twice"),
        ("no=0.05", [], "each of the two classes"),
        ("no=1.5,yes=0.1", [], "[0, 1]"),
        ("no:0.1,yes=0.1", [], "LABEL=EPS"),
        ("no=0.05,yes=0.1", ["--max-epsilon", "0.2"], "per class"),
        ("0.05", ["--max-epsilon", "no=0.1,yes=0.1"], "per class"),
        ("no=0.05,yes=0.1", ["--measure", "probabilistic"], "log-loss"),
    ],
)
def test_bad_per_class_tolerances_are_usage_errors(
    csv, capsys, epsilon, extra, message
):
    code, _, err = run(
        capsys, "audit", csv, "--target", "outcome", "--epsilon", epsilon, *extra,
        *FAST,
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err
    assert "error:" in err and message in err


def test_a_path_end_that_does_not_match_epsilon_fails_before_any_solver(
    tmp_path, capsys
):
    # Per-class --epsilon with one --max-epsilon: one error line, before the
    # fit (whose first step would say the time limit).
    path = tmp_path / "data.csv"
    pd.DataFrame(
        {"x": np.arange(20) % 5, "group": ["a", "b"] * 10, "outcome": [0, 1] * 10}
    ).to_csv(path, index=False)
    argv = ["audit", str(path), "--target", "outcome", "-q", "--out", str(tmp_path)]
    code = main([*argv, "--epsilon", "0=0.01,1=0.02", "--max-epsilon", "0.05"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "max_epsilon must be per class" in err
    assert "Total time limit" not in err
