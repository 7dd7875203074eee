"""``audit --measure probabilistic`` (and ``both``) on a target of 3 labels:
the multinomial level set's labels, measures and ranges, checked against the
auditor called directly, and the models file against an objective written
out here."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.special import log_softmax
from sklearn.linear_model import LogisticRegression
from test_cli_multiclass import CLASSES, label_sets, tiny_frame, truth_of

from sklearn_multiplicity import ProbabilisticAuditor
from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._data import load_audit_data
from sklearn_multiplicity._cli._run import default_estimator, run_probabilistic_audit
from sklearn_multiplicity._cli._sentences import LABELS_DIFFERENCE
from sklearn_multiplicity._exceptions import CertificationWarning

QUIET = ["--quiet"]
FIELDS = ("baseline", "lower", "upper", "lower_bound", "upper_bound")


@pytest.fixture
def csv(tmp_path):
    """The 3-label table with its group column."""
    path = tmp_path / "grades.csv"
    tiny_frame().to_csv(path, index=False)
    return path


def audit(capsys, path, out, *flags):
    argv = ["audit", path, "--target", "grade", "--groups", "site", "--out", out]
    code = main([str(a) for a in [*argv, *flags]])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads((out / "report.json").read_text())
    return captured, report


def read_people(path):
    sets = {"labels": str, "labels_open": str}
    people = pd.read_csv(path, index_col="row", dtype=sets)
    people[list(sets)] = people[list(sets)].fillna("")
    return people


def check_values_only_when_certified(measures):
    for row in measures:
        assert row["lower"] <= row["upper"] + 1e-12
        if row["status"] == "certified":
            assert row["value"] == pytest.approx(row["lower"])
            assert row["upper"] - row["lower"] <= 1e-12
        else:
            assert "value" not in row


def check_people(people, classes):
    """Each person's labels agree with the per-label columns, the baseline's
    label is always reachable and the ranges are ordered."""
    reach = people[[f"reach_{c}" for c in classes]].to_numpy()
    assert set(np.unique(reach)) <= {"yes", "no", "open"}
    found, left = label_sets(people["labels"]), label_sets(people["labels_open"])
    for i, baseline in enumerate(people["baseline"]):
        yes, open_ = found[i], left[i]
        assert yes == {c for k, c in enumerate(classes) if reach[i, k] == "yes"}
        assert open_ == {c for k, c in enumerate(classes) if reach[i, k] == "open"}
        assert baseline in yes
        contestable = bool(yes - {baseline})
        assert people["contestable"].iloc[i] == contestable
        assert people["undecided"].iloc[i] == (not contestable and bool(open_))
    for c in classes:
        lo, hi = people[f"lower_{c}"], people[f"upper_{c}"]
        assert (people[f"lower_bound_{c}"] <= lo + 1e-12).all()
        assert (lo <= people[f"baseline_{c}"] + 1e-12).all()
        assert (people[f"baseline_{c}"] <= hi + 1e-12).all()
        assert (hi <= people[f"upper_bound_{c}"] + 1e-12).all()
    capacity = people["rashomon_capacity_lower"]
    assert ((capacity >= 1 - 1e-9) & (capacity <= len(classes) + 1e-9)).all()


def sklearn_objective(Z, y, coef, intercept, C=1.0):
    """scikit-learn's multinomial objective over ``C n``: mean log-loss plus
    ``||coef||^2 / (2 C n)``, the weights centred over the labels."""
    coef = coef - coef.mean(axis=0)
    scores = Z @ coef.T + intercept
    loss = -log_softmax(scores, axis=1)[np.arange(len(y)), y].mean()
    return loss + (coef**2).sum() / (2 * C * len(y))


def test_the_probabilistic_audit_of_three_labels(csv, tmp_path, capsys):
    out = tmp_path / "r"
    captured, report = audit(capsys, csv, out, "--measure", "probabilistic",
                             "--epsilon", "0.02", *QUIET)  # fmt: skip
    assert "Probabilistic audit of" in captured.out and "3 labels" in captured.out
    assert report["measure"] == "probabilistic" and report["kind"] == "K-label"
    files = {"report.json", "report.html", "people.csv", "models.csv"}
    assert files <= set(report["files"]) == {p.name for p in out.iterdir()}
    check_values_only_when_certified(report["measures"])
    people = read_people(out / "people.csv")
    check_people(people, CLASSES)

    # The same numbers as the auditor on the same encoded data.
    X, y, groups, _ = load_audit_data(csv, "grade", "site")
    auditor = ProbabilisticAuditor(
        default_estimator(), epsilon=0.02, random_state=0
    ).fit(X, y)
    reach = auditor.reachable_labels()
    for label in auditor.classes_:
        assert (people[f"reach_{label}"].to_numpy() == reach[label].to_numpy()).all()
    ranges = auditor.viable_prediction_range()
    for field in FIELDS:
        for label in auditor.classes_:
            np.testing.assert_allclose(
                people[f"{field}_{label}"], ranges[(field, label)], atol=1e-9
            )
    np.testing.assert_allclose(
        people["rashomon_capacity_lower"], auditor.rashomon_capacity(), atol=1e-9
    )
    measures = {m["index"]: m for m in report["measures"]}
    for name in ("ambiguity", "discrepancy"):
        lower, upper = getattr(auditor, f"{name}_bounds")()
        assert (measures[name]["lower"], measures[name]["upper"]) == pytest.approx(
            (lower, upper)
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CertificationWarning)
        for delta in (0.05, 0.1, 0.2):
            row = measures[f"delta_ambiguity({delta:g})"]
            assert row["lower"] == pytest.approx(auditor.delta_ambiguity(delta=delta))
    assert (people["baseline"].to_numpy() == auditor.predict(X)).all()
    # Label ambiguity is exact here (no pair open): the share of people
    # another label reaches.
    assert report["labels"]["open"] == 0
    assert measures["ambiguity"]["value"] == pytest.approx(people["contestable"].mean())
    assert report["n_contestable"] == people["contestable"].sum()
    for row in report["groups"]:
        mine = people["group"] == row["group"]
        assert row["n"] == mine.sum()
        assert row["ambiguity_lower"] == pytest.approx(
            people.loc[mine, "contestable"].mean()
        )

    # Every model in models.csv is in the level set by an objective written
    # out here, and each witness gives its person the label it names.
    models = pd.read_csv(out / "models.csv", index_col=["model", "label"])
    Z = ((X - X.mean()) / X.std(ddof=0)).to_numpy(dtype=float)
    codes = np.searchsorted(auditor.classes_, y)
    witnesses = [m for m in models.index.unique("model") if m != "baseline"]
    assert witnesses  # someone gets another label at this tolerance
    for name in ["baseline", *witnesses]:
        rows = models.loc[name].loc[auditor.classes_]
        coef = rows[list(X.columns)].to_numpy()
        intercept = rows["intercept"].to_numpy()
        objective = sklearn_objective(Z, codes, coef, intercept)
        assert objective == pytest.approx(rows["objective"].iloc[0], rel=1e-8)
        assert objective <= report["objective_level"] + 1e-9
        if name != "baseline":
            row, label = int(name.split()[1]), name.split()[-1]
            scores = Z[row] @ coef.T + intercept
            assert auditor.classes_[np.argmax(scores)] == label
            assert label in label_sets(people["labels"])[row]

    page = (out / "report.html").read_text()
    assert "(K labels)" in page and "<h2>Models</h2>" in page
    if "label_ranges.png" in report["files"]:
        assert 'alt="label_ranges"' in page


@pytest.mark.parametrize("flags", [["--estimator", "logistic"], ["--measure", "both"]])
def test_both_audits_of_one_logistic_model_in_one_report(csv, tmp_path, capsys, flags):
    out = tmp_path / "r"
    captured, report = audit(capsys, csv, out, *flags, "--epsilon", "0.125",
                             "--time-limit", "10", *QUIET)  # fmt: skip
    # The K-class 0-1 section, checked against enumeration.
    assert report["kind"] == "K-class"
    assert report["baseline"]["estimator"] == "LogisticRegression"
    people = read_people(out / "people.csv")
    frame = tiny_frame()
    X, y = frame[["a", "b"]].to_numpy(), frame["grade"].to_numpy()
    truth, baseline = truth_of(X, y, people)
    extra = report["epsilon"]["extra_errors"]
    assert report["ambiguity"]["value"] == pytest.approx(
        truth.ambiguity(baseline, extra)
    )
    # The probabilistic section audits the same model in nats.
    prob = report["probabilistic"]
    assert prob["kind"] == "K-label" and prob["settings"]["epsilon"] == 0.01
    check_values_only_when_certified(prob["measures"])
    Xe, ye, _, _ = load_audit_data(csv, "grade", "site")
    auditor = ProbabilisticAuditor(
        LogisticRegression(max_iter=1000), epsilon=0.01, random_state=0
    ).fit(Xe, ye)
    measures = {m["index"]: m for m in prob["measures"]}
    lower, upper = auditor.ambiguity_bounds()
    assert (measures["ambiguity"]["lower"], measures["ambiguity"]["upper"]) == (
        pytest.approx((lower, upper))
    )
    prob_people = read_people(out / "probabilistic_people.csv")
    check_people(prob_people, CLASSES)
    assert (prob_people["baseline"] == people["baseline"]).all()  # one model
    for name in ("probabilistic_people.csv", "probabilistic_models.csv"):
        assert name in report["files"] and (out / name).exists()
    assert report["difference"] == LABELS_DIFFERENCE
    assert report["lead"] in ("decisions", "probabilistic")
    text = captured.out
    assert LABELS_DIFFERENCE in text and "labels and ambiguity:" in text
    first, second = "K-class audit of", "Probabilistic audit of"
    if report["lead"] == "probabilistic":
        first, second = second, first
    assert text.index(first) < text.index(second)
    page = (out / "report.html").read_text()
    assert page.count('<section id="probabilistic">') == 1
    assert "nats of mean log-loss" in page


def test_notes_and_progress_of_the_probabilistic_audit(csv, tmp_path, capsys):
    flags = ["--measure", "probabilistic", "--epsilon", "0.02", "--threshold", "0.3"]
    flags += ["--max-epsilon", "0.2", "--n-models", "5"]
    captured, _ = audit(capsys, csv, tmp_path / "r", *flags)
    err = captured.err
    assert "note: --threshold is for two labels" in err
    assert "--max-epsilon, --n-models ignored" in err
    # One progress line per stage unless --quiet.
    assert "[ProbabilisticAuditor] eps=0.02 nats: labels: 48 of 48 pairs" in err
    captured, _ = audit(capsys, csv, tmp_path / "q", *flags, "--quiet")
    assert "ProbabilisticAuditor" not in captured.err


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--measure", "probabilistic", "--epsilon", "auto"], "nats"),
        (
            ["--measure", "probabilistic", "--epsilon", "low=0.1,mid=0.1,high=0.1"],
            "log-loss",
        ),
        (["--measure", "probabilistic", "--sign", "a=+1"], "constraints"),
        (["--measure", "both", "--rate-gap", "fpr=0.1"], "constraints"),
        (["--measure", "both", "--log-loss-epsilon", "-1"], "must be >= 0"),
        (["--estimator", "logistic", "--epsilon", "auto"], "auto is for two labels"),
    ],
)
def test_what_the_probabilistic_audit_refuses_says_so(
    csv, tmp_path, capsys, flags, message
):
    argv = ["audit", csv, "--target", "grade", "--groups", "site", *flags]
    assert main([str(a) for a in [*argv, "--out", tmp_path / "o", *QUIET]]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and message in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert not (tmp_path / "o").exists()


def test_a_spent_deadline_reports_open_labels_and_bounds():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 5)), columns=list("abcde"))
    y = np.argmax(X.to_numpy()[:, :4] + 2.0 * rng.normal(size=(200, 4)), axis=1)
    # Expired before the walk starts: the pairs the closed forms leave stay
    # open, and everything is still reported.
    report = run_probabilistic_audit(X, y, epsilon=0.02, total_time_limit=1e-6)
    data = report.to_dict()
    assert data["labels"]["open"] > 0 and not data["certified"]
    check_values_only_when_certified(data["measures"])
    people = report.people()
    people["baseline"] = people["baseline"].astype(str)  # as the sets read
    check_people(people, [str(c) for c in report.classes])
    assert data["n_undecided"] == people["undecided"].sum() > 0
    assert "(person, label) pairs" in report.summary()
    assert set(report.timings) == {"fit", "labels", "measures", "ranges", "models",
                                   "total"}  # fmt: skip


def test_the_terminal_says_no_nan_and_no_exact_audit_advice(tmp_path, capsys):
    # Continuous columns slow the exact audit's MIPs, not this one; a value
    # the bounds do not pin is a dash, never NaN.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    grade = np.array(CLASSES)[np.argmax(X @ rng.normal(size=(3, 3)), axis=1)]
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(grade=grade)
    path = tmp_path / "continuous.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", path, "--target", "grade", "--measure", "probabilistic"]
    code = main([str(a) for a in [*argv, "--out", tmp_path / "p", *QUIET]])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "NaN" not in captured.out
    assert "3 numeric column(s) used as they are" in captured.err
    assert "exact audit slower" not in captured.err
    argv = ["audit", path, "--target", "grade", "--total-time-limit", "5"]
    code = main([str(a) for a in [*argv, "--out", tmp_path / "d", *QUIET]])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "exact audit slower" in captured.err
