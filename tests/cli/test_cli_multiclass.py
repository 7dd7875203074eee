"""``audit`` on a target of 3 labels: the K-class exact audit, its summary
and report files, checked against enumeration and against the auditor."""

import json

import numpy as np
import pandas as pd
import pytest
from brute_force_multiclass import MulticlassTruth, tiny_case

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._cli import main

FAST = ["--time-limit", "10", "--quiet"]
LABELS = np.array(["low", "mid", "high"])
#: The labels in sorted order, as the audit counts them.
CLASSES = np.sort(LABELS)


def tiny_frame():
    """16 rows on 6 distinct points (every label at least twice) and a group
    column that splits some points."""
    X, y, _ = tiny_case(2)
    X, y = np.vstack([X, X]), np.concatenate([y, y])
    frame = pd.DataFrame(X, columns=["a", "b"])
    frame["grade"] = LABELS[y]
    frame["site"] = np.where(np.arange(len(y)) % 3 == 0, "north", "south")
    return frame


@pytest.fixture
def csv(tmp_path):
    frame = tiny_frame()
    path = tmp_path / "grades.csv"
    frame.drop(columns="site").to_csv(path, index=False)
    return path, frame[["a", "b"]].to_numpy(), frame["grade"].to_numpy()


def audit(capsys, path, out, *flags):
    argv = ["audit", path, "--target", "grade", "--out", out, *flags, *FAST]
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    report = json.loads((out / "report.json").read_text())
    sets = {"labels": str, "labels_open": str}
    people = pd.read_csv(out / "people.csv", index_col="row", dtype=sets)
    people[list(sets)] = people[list(sets)].fillna("")
    return captured.out, report, people


def truth_of(X, labels, people):
    """The enumerated truth and the baseline's label of each of its points."""
    truth = MulticlassTruth(X, np.searchsorted(CLASSES, labels))
    baseline = np.searchsorted(CLASSES, people["baseline"].to_numpy())
    rows = [np.flatnonzero((X == p).all(axis=1))[0] for p in truth.points]
    return truth, baseline[rows]


def label_sets(column):
    return [set(text.split(";")) - {""} for text in column]


def test_a_k_label_target_gets_the_k_class_audit(csv, tmp_path, capsys):
    path, X, y = csv
    text, report, people = audit(capsys, path, tmp_path / "r", "--epsilon", "0.125")
    assert "K-class audit" in text and "3 labels" in text
    assert report["kind"] == "K-class" and report["dataset"]["classes"] == [
        "high",
        "low",
        "mid",
    ]
    truth, baseline = truth_of(X, y, people)
    budget = report["epsilon"]["extra_errors"]
    assert budget == 2  # 0.125 of 16 rows
    assert report["ambiguity"]["value"] == pytest.approx(
        truth.ambiguity(baseline, budget)
    )
    assert report["discrepancy"]["value"] == pytest.approx(
        truth.discrepancy(baseline, budget)
    )
    assert report["certified"] and "Every value above is certified." in text
    # Every person's labels are the labels of the enumerated level set, and a
    # person is contestable exactly when they have more than one.
    for i, row in enumerate(X):
        expected = truth.label_set(baseline, budget, row)
        assert label_sets(people["labels"])[i] == {CLASSES[k] for k in expected}
    many = people["labels"].str.count(";") > 0
    assert (people["contestable"] == many).all()
    assert people["contestable"].mean() == pytest.approx(report["ambiguity"]["value"])
    assert not people["undecided"].any() and (people["labels_open"] == "").all()
    assert (people["target"].to_numpy() == y).all()
    assert report["n_contestable"] == many.sum()


def test_the_people_file_holds_predict_set_and_the_path_the_auditors(
    csv, tmp_path, capsys
):
    path, X, y = csv
    flags = ["--epsilon", "0.125", "--max-epsilon", "0.25"]
    _, report, people = audit(capsys, path, tmp_path / "r", *flags)
    auditor = MultiplicityAuditor(time_limit=10).fit(
        pd.DataFrame(X, columns=["a", "b"]), y
    )
    mask = auditor.predict_set(pd.DataFrame(X, columns=["a", "b"]), 0.125)
    expected = [set(auditor.classes_[row]) for row in mask]
    assert label_sets(people["labels"]) == expected

    # The path's rows are the auditor's path, and the enumeration's.
    table = pd.DataFrame(report["path"])
    ours = auditor.path(0.25)
    # 0.25 of 16 rows, every row twice: error counts are even.
    assert list(table["extra_errors"]) == [0, 2, 4]
    for column in ("epsilon", "budget", "ambiguity", "discrepancy"):
        assert np.allclose(table[column], ours[column]), column
    truth, baseline = truth_of(X, y, people)
    for _, row in table.iterrows():
        extra = row["extra_errors"]
        assert row["ambiguity"] == pytest.approx(truth.ambiguity(baseline, extra))
        assert row["discrepancy"] == pytest.approx(truth.discrepancy(baseline, extra))
    assert report["settings"]["max_epsilon"] == 0.25


@pytest.mark.parametrize("estimator", ["zero-one", "logistic"])
def test_the_models_file_reproduces_the_baseline_and_the_discrepancy(
    csv, tmp_path, capsys, estimator
):
    path, X, y = csv
    flags = ["--epsilon", "0.125", "--estimator", estimator]
    _, report, people = audit(capsys, path, tmp_path / "r", *flags)
    models = pd.read_csv(tmp_path / "r" / "models.csv", index_col=["model", "label"])
    assert set(models.index.get_level_values("model")) == {"baseline", "discrepancy"}

    def predict(name):
        rows = models.loc[name]
        scores = X @ rows[["a", "b"]].to_numpy().T + rows["intercept"].to_numpy()
        return rows.index.to_numpy()[np.argmax(scores, axis=1)]

    assert (predict("baseline") == people["baseline"].to_numpy()).all()
    changed = np.mean(predict("discrepancy") != people["baseline"].to_numpy())
    assert changed == pytest.approx(report["discrepancy"]["value"])
    assert models.loc["discrepancy", "n_errors"].iloc[0] <= report["epsilon"]["budget"]
    assert (
        report["settings"]["estimator"]
        == {
            "zero-one": "ZeroOneLinearClassifier",
            "logistic": "LogisticRegression",
        }[estimator]
    )


def test_the_html_report_and_the_mip_log(csv, tmp_path, capsys):
    path, _, _ = csv
    out = tmp_path / "r"
    _, report, _ = audit(capsys, path, out, "--epsilon", "0.125")
    page = (out / "report.html").read_text()
    for heading in ("Measures", "Baseline", "Path", "Models", "People", "Timings (s)"):
        assert f"<h2>{heading}</h2>" in page
    assert "For two labels only" in page and "coefficient ranges" in page
    value = report["ambiguity"]["value"]
    assert f"{value:.2%}" in page  # the measures table
    log = report["mip_log"]
    assert log["n_mips"] == len(log["entries"]) > 0
    assert sum(log["by_status"].values()) == log["n_mips"]
    timings = report["timings"]
    assert set(timings) == {"fit", "measures", "people", "path", "total"}
    assert timings["total"] == pytest.approx(
        sum(v for k, v in timings.items() if k != "total")
    )
    files = set(report["files"])
    assert {"people.csv", "models.csv", "report.json", "report.html"} <= files
    pytest.importorskip("matplotlib")
    assert "path.png" in files and (out / "path.png").stat().st_size > 0
    assert 'alt="path"' in page


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--epsilon", "auto"], "--epsilon auto is for two labels"),
        (["--max-epsilon", "low=0.1,mid=0.1,high=0.1"], "give --epsilon per label"),
        (["--sign", "a=+1"], "constraints"),
        (["--epsilon", "low=0.1,mid=0.1"], "no tolerance for class 'high'"),
        (["--epsilon", "low=0.1,mid=0.1,top=0.1"], "not class labels"),
    ],
)
def test_what_stays_for_two_labels_says_so(csv, tmp_path, capsys, flags, message):
    path, _, _ = csv
    argv = ["audit", path, "--target", "grade", *flags, "--out", tmp_path / "o"]
    assert main([str(a) for a in [*argv, *FAST]]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and message in err
    assert len(err.strip().splitlines()) == 1
