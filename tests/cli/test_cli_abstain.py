"""The report's error rates per class, constraints in force and abstention."""

import json

import numpy as np
import pandas as pd
from test_cli import FAST, run, small_frame

from sklearn_multiplicity._cli._data import load_audit_data
from sklearn_multiplicity._cli._run import run_audit
from sklearn_multiplicity.constraints import MaxNonzero


def test_audit_with_abstain_reports_decisions_and_rates(tmp_path, capsys):
    csv = tmp_path / "data.csv"
    small_frame().to_csv(csv, index=False)
    out_dir = tmp_path / "report"
    code, out, err = run(
        capsys,
        "audit", csv, "--target", "outcome", "--epsilon", "0.1",
        "--abstain", "--out", out_dir, *FAST,
    )  # fmt: skip
    assert code == 0, err
    people = pd.read_csv(out_dir / "people.csv")
    report = json.loads((out_dir / "report.json").read_text())
    flagged = people["contestable"] | people["undecided"]
    assert (people.loc[flagged, "decision"] == "abstain").all()
    decided = people.loc[~flagged]
    assert (decided["decision"] == decided["baseline"]).all()
    abstention = report["abstention"]
    assert abstention["n_decided"] == len(decided)
    assert abstention["coverage"] == len(decided) / len(people)
    assert abstention["decided_accuracy"] == np.mean(
        decided["decision"] == decided["target"]
    )
    baseline = report["baseline"]
    negatives = people["target"] == "no"
    fp = int((negatives & (people["baseline"] == "yes")).sum())
    fn = int((~negatives & (people["baseline"] == "no")).sum())
    assert (baseline["false_positives"], baseline["false_negatives"]) == (fp, fn)
    assert baseline["false_positive_rate"] == fp / negatives.sum()
    assert baseline["false_negative_rate"] == fn / (~negatives).sum()
    assert fp + fn == baseline["errors"]
    assert report["constraints"] == []
    assert "Abstaining on contestable people" in out
    assert "Constraints in force: none" in out
    assert "false negative rate" in out
    assert "Abstention" in (out_dir / "report.html").read_text()


def test_report_lists_the_constraints_in_force(tmp_path):
    csv = tmp_path / "data.csv"
    small_frame().to_csv(csv, index=False)
    X, y, _, _ = load_audit_data(csv, "outcome", None)
    report = run_audit(
        X,
        y,
        epsilon=0.1,
        n_models=5,
        time_limit=10,
        constraints=[MaxNonzero(1)],
        dataset={"target": "outcome"},
    )
    assert report.to_dict()["constraints"] == ["at most 1 non-zero weight"]
    assert report.to_dict()["abstention"] is None
    assert "Constraints in force: at most 1 non-zero weight" in report.summary()
    assert (
        np.sum(
            report.models()
            .loc["baseline"]
            .drop(["intercept", "n_errors", "source"])
            .astype(float)
            != 0
        )
        <= 1
    )


def test_abstaining_on_everyone_reports_no_accuracy(tmp_path, capsys):
    csv = tmp_path / "data.csv"
    small_frame().to_csv(csv, index=False)
    out_dir = tmp_path / "report"
    # At eps = 1 every model is in the level set: everyone is contestable.
    code, out, err = run(
        capsys,
        "audit", csv, "--target", "outcome", "--epsilon", "1",
        "--abstain", "--out", out_dir, *FAST,
    )  # fmt: skip
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    assert report["abstention"]["n_decided"] == 0
    assert report["abstention"]["decided_accuracy"] is None
    assert "decides 0 (0.0%), no accuracy to report" in out
    assert "no accuracy to report" in (out_dir / "report.html").read_text()
