"""``sklearn-multiplicity audit --measure probabilistic``."""

import json

import matplotlib
import numpy as np
import pandas as pd
import pytest

from sklearn_multiplicity import ProbabilisticAuditor
from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._data import load_audit_data
from sklearn_multiplicity._cli._probabilistic import default_estimator

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
    auditor = ProbabilisticAuditor(default_estimator(), epsilon=0.02).fit(X, y)
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
