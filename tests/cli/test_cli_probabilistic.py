"""``sklearn-multiplicity audit --measure probabilistic``."""

import dataclasses
import json

import matplotlib
import numpy as np
import pandas as pd
import pytest
from shared_data import SHARED_DATA

from sklearn_multiplicity import ProbabilisticAuditor
from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._data import load_audit_data
from sklearn_multiplicity._cli._run import (
    default_estimator,
    run_probabilistic_audit,
)

matplotlib.use("Agg")


@pytest.fixture
def csv(tmp_path):
    rng = np.random.RandomState(0)
    n = 80
    frame = pd.DataFrame(
        {
            "age": rng.normal(40, 10, n).round(),
            "region": rng.choice(["north", "south", "east"], n),
            "group": rng.choice(["A", "B"], n),
        }
    )
    score = (frame["age"] - 40) / 10 + 0.8 * (frame["region"] == "north")
    frame["outcome"] = np.where(score + rng.normal(0, 1, n) > 0, "yes", "no")
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


def test_probabilistic_audit_writes_every_output(csv, tmp_path, capsys):
    out = tmp_path / "report"
    argv = ["audit", str(csv), "--target", "outcome", "--groups", "group"]
    argv += ["--measure", "probabilistic", "--epsilon", "0.02", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "Probabilistic audit" in text and "ambiguity" in text
    files = {p.name for p in out.iterdir()}
    assert files == {
        "report.json",
        "report.html",
        "people.csv",
        "models.csv",
        "ranges.png",
    }
    report = json.loads((out / "report.json").read_text())
    assert report["measure"] == "probabilistic"
    people = pd.read_csv(out / "people.csv", index_col="row")
    # The report's numbers are the auditor's on the same encoded data.
    X, y, groups, _ = load_audit_data(csv, "outcome", "group")
    auditor = ProbabilisticAuditor(default_estimator(), log_loss_epsilon=0.02).fit(X, y)
    ranges = auditor.viable_prediction_range()
    np.testing.assert_allclose(people["upper"], ranges["upper"], atol=1e-9)
    measures = {m["index"]: m for m in report["measures"]}
    assert measures["ambiguity"]["value"] == pytest.approx(auditor.ambiguity())
    assert set(people["group"]) == {"A", "B"}
    models = pd.read_csv(out / "models.csv", index_col="model")
    assert (models["objective"] <= auditor.objective_level() + 1e-12).all()
    assert report["certified"] in (True, False)
    assert report["n_certified_ranges"] == len(people)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--epsilon", "auto"], "nats"),
        (["--threshold", "1.5"], "threshold"),
    ],
)
def test_probabilistic_usage_errors(csv, capsys, extra, message):
    argv = ["audit", str(csv), "--target", "outcome", "--measure", "probabilistic"]
    assert main(argv + extra) == 2
    assert message in capsys.readouterr().err


def test_flags_the_probabilistic_measure_does_not_use_are_named(csv, capsys):
    argv = ["audit", str(csv), "--target", "outcome", "--measure", "probabilistic"]
    argv += ["--epsilon", "0.02", "--total-time-limit", "30", "--n-models", "5"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "; --n-models ignored" in err
    assert "--time-limit" not in err.split(";")[-1]


def status_lines(text):
    """The summary's ranges line and the line after it (what is certified)."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if "Viable prediction ranges" in line)
    return lines[at], lines[at + 1]


def check_summary_names_what_is_open(text, report):
    """Each claim of the summary agrees with ``report.json``."""
    ranges, status = status_lines(text)
    n, pinned = report["dataset"]["n_rows"], report["n_certified_ranges"]
    assert f"{pinned} of {n} certified within" in ranges
    assert "NOT" not in ranges.upper()  # "N of M" already says how many
    open_measures = {
        m["index"]: m for m in report["measures"] if m["status"] == "bounds"
    }
    if report["certified"]:
        assert status.startswith("All certified") and not open_measures
        return
    assert status.startswith("Not certified: ")
    for name in ("ambiguity", "discrepancy"):
        if name not in open_measures:
            assert name not in status
            continue
        m = open_measures[name]
        assert f"{name} (bounds only: [{m['lower']:.2%}, {m['upper']:.2%}])" in status
    assert (f"{n - pinned} of {n} ranges" in status) == (pinned < n)


def test_summary_names_the_measure_that_is_not_pinned(tmp_path, capsys):
    # Every range is pinned while the discrepancy is only bounded (its lower
    # bound is a model found, its upper bound the ambiguity).
    rng = np.random.RandomState(0)
    n = 60
    frame = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n)})
    frame["y"] = np.where(frame.x1 + rng.normal(size=n) > 0, "yes", "no")
    frame.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "report"
    argv = ["audit", str(tmp_path / "data.csv"), "--target", "y", "--out", str(out)]
    assert main(argv + ["--measure", "probabilistic", "--epsilon", "0.02"]) == 0
    text = capsys.readouterr().out
    report = json.loads((out / "report.json").read_text())
    measures = {m["index"]: m for m in report["measures"]}
    assert report["n_certified_ranges"] == n
    assert measures["ambiguity"]["status"] == "certified"
    assert measures["discrepancy"]["status"] == "bounds"
    assert not report["certified"]
    check_summary_names_what_is_open(text, report)
    assert status_lines(text)[1].startswith("Not certified: discrepancy (")


def test_summary_names_unpinned_ranges_apart_from_the_measures(csv):
    X, y, _, _ = load_audit_data(csv, "outcome", None)
    report = run_probabilistic_audit(X, y, epsilon=0.02)
    n = len(y)
    pinned = {name: (lo, lo) for name, (lo, _) in report.bounds.items()}
    ranges = report.ranges.copy()
    ranges.loc[ranges.index[:3], "certified"] = False
    for ranges_, bounds, expected in [
        (report.ranges, pinned, "All certified: every range, ambiguity and "),
        (ranges, pinned, f"Not certified: 3 of {n} ranges"),
        (ranges, report.bounds, f"Not certified: 3 of {n} ranges, "),
    ]:
        changed = dataclasses.replace(report, ranges=ranges_, bounds=bounds)
        check_summary_names_what_is_open(changed.summary(), changed.to_dict())
        assert status_lines(changed.summary())[1].startswith(expected)


def test_german_credit_summary_is_consistent(tmp_path, capsys):
    path = SHARED_DATA / "german-credit.csv"
    if not path.exists():
        pytest.skip(f"German credit data not found at {path}")
    out = tmp_path / "report"
    argv = ["audit", str(path), "--target", "credit", "--measure", "probabilistic"]
    assert main(argv + ["--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    check_summary_names_what_is_open(capsys.readouterr().out, report)


def test_summary_gives_the_unit_of_eps_and_the_seed_reaches_the_auditor(
    csv, tmp_path, capsys
):
    out = tmp_path / "report"
    argv = ["audit", str(csv), "--target", "outcome", "--measure", "probabilistic"]
    argv += ["--epsilon", "0.02", "--random-state", "7", "--out", str(out)]
    assert main(argv) == 0
    shown = capsys.readouterr()
    text = shown.out
    level = next(line for line in text.splitlines() if "objective at most" in line)
    assert level.endswith("+ eps 0.02 nats of mean log-loss)")
    report = json.loads((out / "report.json").read_text())
    assert report["settings"]["random_state"] == 7
    # Progress on stderr unless --quiet.
    assert report["settings"]["verbose"] == 1
    assert "[ProbabilisticAuditor] eps=0.02 nats: closed-form" in shown.err
    assert main([*argv, "--quiet"]) == 0
    assert "ProbabilisticAuditor" not in capsys.readouterr().err
    report = json.loads((out / "report.json").read_text())
    assert report["settings"]["verbose"] == 0
