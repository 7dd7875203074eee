"""The assessment at the top of the command line's report."""

import json

import numpy as np
import pandas as pd

from sklearn_multiplicity._cli import main

FAST = ["--time-limit", "10", "--n-models", "20", "--quiet"]


def binary_csv(tmp_path, n=120, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.integers(0, 2, size=(n, 4)), columns=list("abcd"))
    score = frame["a"] + frame["b"] - frame["c"] + rng.normal(0, 0.7, n)
    frame["outcome"] = np.where(score > 0.5, "yes", "no")
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def test_report_and_summary_lead_with_the_assessment(tmp_path, capsys):
    out = tmp_path / "report"
    argv = ["audit", str(binary_csv(tmp_path)), "--target", "outcome"]
    code = main([*argv, "--out", str(out), *FAST])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    # The answer comes first, the assessment's headline right after it.
    assert stdout.startswith("Out of 120 people, ")
    assert "\n\nAssessment: exact" in stdout
    assert stdout.index("Assessment: exact") < stdout.index("Audit of ")
    report = json.loads((out / "report.json").read_text())
    assert report["assessment"]["regime"] == "exact"
    assert {"regime", "reasons", "routes"} <= set(report["assessment"])
    page = (out / "report.html").read_text()
    assert page.index('id="assessment"') < page.index("<h2>Measures</h2>")


def test_sample_audits_a_seeded_sample_of_rows(tmp_path, capsys):
    out = tmp_path / "report"
    argv = ["audit", str(binary_csv(tmp_path)), "--target", "outcome"]
    code = main([*argv, "--sample", "50", "--out", str(out), *FAST])
    _, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads((out / "report.json").read_text())
    assert report["dataset"]["n_rows"] == 50
    assert report["dataset"]["sample"] == 50
    assert "random sample of 50" in err
