"""``audit --estimator logistic`` / ``--measure both``: the 0-1 audit and the
probabilistic audit of the same logistic model in one report."""

import dataclasses
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._both import BothReport
from sklearn_multiplicity._cli._run import run_probabilistic_audit
from sklearn_multiplicity._cli._sentences import DIFFERENCE
from sklearn_multiplicity._cli._text import TITLES

FAST = ["--time-limit", "10", "--n-models", "20", "--quiet"]


@pytest.fixture
def csv(tmp_path):
    rng = np.random.RandomState(0)
    frame = pd.DataFrame(
        {
            "a": rng.randint(0, 2, 40),
            "b": rng.randint(0, 3, 40),
            "group": rng.choice(["u", "v"], 40),
        }
    )
    noise = rng.rand(40) < 0.2
    frame["outcome"] = ((frame["a"] + frame["b"] >= 2) ^ noise).astype(int)
    path = tmp_path / "small.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("flags", [["--estimator", "logistic"], ["--measure", "both"]])
def test_a_logistic_audit_reports_both_level_sets(csv, tmp_path, capsys, flags):
    out_dir = tmp_path / "out"
    argv = ["audit", csv, "--target", "outcome", "--groups", "group", *flags]
    code = main([str(a) for a in [*argv, "--out", out_dir, *FAST]])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    prob = report["probabilistic"]
    # The same model: the 0-1 section's logistic baseline, audited in nats.
    assert report["baseline"]["estimator"] == "LogisticRegression"
    assert prob["settings"]["epsilon"] == 0.01
    measures = {row["index"]: row for row in prob["measures"]}
    assert set(measures) >= {"ambiguity", "discrepancy"}
    ambiguity = measures["ambiguity"]
    assert 0 <= ambiguity["lower"] <= ambiguity["upper"] <= 1
    assert report["lead"] in ("decisions", "probabilistic")
    assert report["difference"] == DIFFERENCE
    for name in ("probabilistic_people.csv", "probabilistic_models.csv"):
        assert (out_dir / name).exists() and name in report["files"]
    people = pd.read_csv(out_dir / "probabilistic_people.csv")
    assert len(people) == 40
    assert DIFFERENCE in out
    assert "Probabilistic audit of" in out and "Audit of" in out
    page = (out_dir / "report.html").read_text()
    assert '<section id="probabilistic">' in page
    # The assessment tops both the summary and the page.
    assert out.index("Assessment:") < out.index("Both level sets")
    assert page.index('id="assessment"') < page.index('id="probabilistic"')
    assert out.count("Assessment:") == 1
    assert "nats of mean log-loss" in page


def test_the_log_loss_tolerance_is_checked(csv, capsys):
    argv = ["audit", csv, "--target", "outcome", "--measure", "both"]
    code = main([str(a) for a in [*argv, "--log-loss-epsilon", "-1", *FAST]])
    _, err = capsys.readouterr()
    assert code == 2 and "--log-loss-epsilon must be >= 0" in err


def _stub(certified, text):
    return SimpleNamespace(
        open_values=lambda: [] if certified else ["ambiguity"],
        decisions_certified=certified,
        multinomial=False,
        settles="ranges and ambiguity",
        parts=lambda: {
            "answer": [f"{text} ANSWER"],
            "groups": [],
            "limits": ["ASSESSMENT"] if text == "ZERO-ONE" else [],
            "details": [text],
            "solver": [f"{text} SOLVER"],
        },
    )


@pytest.mark.parametrize(
    "decisions, probabilistic, lead",
    [
        (True, True, "decisions"),
        (True, False, "decisions"),
        (False, True, "probabilistic"),
        (False, False, "decisions"),
    ],
)
def test_the_certified_audit_leads(decisions, probabilistic, lead):
    both = BothReport(_stub(decisions, "ZERO-ONE"), _stub(probabilistic, "PROB"))
    assert both.lead() == lead
    text = both.summary()
    first, second = (
        ("PROB", "ZERO-ONE")
        if lead == "probabilistic"
        else (
            "ZERO-ONE",
            "PROB",
        )
    )
    # The answers open the summary, the certified audit's first; then the
    # assessment, the details in the same order, the solver's side last.
    assert text.startswith(f"{TITLES[lead]}: {first} ANSWER")
    assert text.index(f"{first} ANSWER") < text.index(f"{second} ANSWER")
    assert text.index(f"{second} ANSWER") < text.index("ASSESSMENT")
    assert text.index("ASSESSMENT") < text.index(f"\n{first}\n")
    assert text.index(f"\n{first}\n") < text.index(f"\n{second}\n")
    assert text.index(f"\n{second}\n") < text.index("ZERO-ONE SOLVER")
    assert text.index("ZERO-ONE SOLVER") < text.index("PROB SOLVER")


def test_the_probabilistic_decisions_are_certified_by_ranges_and_ambiguity(csv):
    frame = pd.read_csv(csv)
    X, y = frame[["a", "b"]], frame["outcome"].to_numpy()
    report = run_probabilistic_audit(X, y, epsilon=0.01)
    lower, _ = report.bounds["ambiguity"]
    pinned = dataclasses.replace(
        report,
        bounds={**report.bounds, "ambiguity": (lower, lower)},
        ranges=report.ranges.assign(certified=True),
    )
    assert pinned.decisions_certified
    # A band on the discrepancy leaves the decisions certified ...
    pinned.bounds["discrepancy"] = (0.1, 0.2)
    assert pinned.decisions_certified
    # ... one open range or a band on the ambiguity does not.
    ranges = pinned.ranges.copy()
    ranges.loc[ranges.index[0], "certified"] = False
    assert not dataclasses.replace(pinned, ranges=ranges).decisions_certified
    band = {**pinned.bounds, "ambiguity": (lower, lower + 0.1)}
    assert not dataclasses.replace(pinned, bounds=band).decisions_certified
