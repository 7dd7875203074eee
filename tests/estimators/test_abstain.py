"""Set-valued predictions and abstention, against enumeration."""

import numpy as np
import pytest
from brute_force import baseline_truth, random_tiny, separable
from sklearn.model_selection import cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from sklearn_multiplicity import (
    AbstainingClassifier,
    MultiplicityAuditor,
    coverage_score,
    coverage_scorer,
    decided_accuracy_score,
    decided_accuracy_scorer,
)


def seeds(n, fast):
    """``range(n)``, only the first ``fast`` in the default run (the others
    are marked slow)."""
    return [
        i if i < fast else pytest.param(i, marks=pytest.mark.slow) for i in range(n)
    ]


@pytest.mark.parametrize("seed", [1, *seeds(3, 0)[:1], *seeds(3, 0)[2:]])
def test_predict_set_matches_enumeration(seed):
    X, y = random_tiny(seed + 50, n=10, d=2, levels=4)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    # Every point of the grid: training patterns and new people.
    grid = np.array([[a, b] for a in range(4) for b in range(4)], dtype=float)
    for eps in [0.0, 0.2, {0: 0.1, 1: 0.3}]:
        sets = auditor.predict_set(grid, eps)
        baseline = auditor.predict(grid) == 1
        np.testing.assert_array_equal(sets[np.arange(len(grid)), baseline * 1], True)
        if isinstance(eps, dict):
            S = truth.class_level_set(z0, eps[0], eps[1])
        else:
            S = truth.level_set(err0, eps)
        # A new point is contestable iff some dichotomy of the level set on
        # the training points extends to it with the other label.
        for i, point in enumerate(grid):
            other = ~baseline[i]
            points = np.vstack([truth.points, point])
            expected = any(separable(points, np.append(z, other)) for z in S)
            assert sets[i].all() == expected, (eps, point)


def test_abstaining_classifier_in_a_pipeline_and_cross_validate():
    X, y = random_tiny(3, n=40, d=2, levels=4)
    clf = AbstainingClassifier(MultiplicityAuditor(epsilon=0.05, time_limit=20))
    pipe = make_pipeline(FunctionTransformer(), clf).fit(X, y)
    predictions = pipe.predict(X)
    contestable = pipe[-1].auditor_.conflicts()
    np.testing.assert_array_equal(predictions == -1, contestable)
    decided = ~contestable
    np.testing.assert_array_equal(
        predictions[decided], pipe[-1].auditor_.predict(X)[decided]
    )
    assert coverage_score(y, predictions) == pytest.approx(decided.mean())
    assert pipe.score(X, y) == pytest.approx(
        np.mean(predictions[decided] == y[decided])
    )
    scores = cross_validate(
        pipe,
        X,
        y,
        cv=2,
        scoring={"coverage": coverage_scorer, "accuracy": decided_accuracy_scorer},
    )
    assert np.all((scores["test_coverage"] >= 0) & (scores["test_coverage"] <= 1))
    assert np.all(scores["test_accuracy"] <= 1)


def test_string_labels_reject_values_and_bad_input():
    X, y = random_tiny(4, n=20, d=2, levels=3)
    labels = np.where(y == 1, "yes", "no")
    clf = AbstainingClassifier(
        MultiplicityAuditor(time_limit=20), eps=0.2, reject="abstain"
    ).fit(X, labels)
    predictions = clf.predict(X)
    assert set(predictions) <= {"yes", "no", "abstain"}
    assert "abstain" in set(predictions)
    with pytest.raises(ValueError, match="is a class label"):
        AbstainingClassifier(reject="yes").fit(X, labels)
    with pytest.raises(TypeError, match="need an AbstainingClassifier"):
        coverage_scorer(MultiplicityAuditor().fit(X, y), X)
    assert decided_accuracy_score([1, 0], [-1, -1]) != decided_accuracy_score(
        [1, 0], [-1, -1]
    )  # nan: nobody decided
    assert coverage_score([1, 0, 1], [1, -1, 0], sample_weight=[1, 2, 1]) == 0.5


@pytest.mark.parametrize(
    "name, classes, reject, dtype",
    [
        ("integers", [0, 1], -1, np.int64),
        ("minus one is a label", [-1, 1], -2, np.int64),
        ("floats", [0.0, 1.0], -1, np.float64),
        ("text", ["no", "yes"], "reject", object),
        ("reject is a label", ["accept", "reject"], "abstain", object),
    ],
)
def test_default_reject_value_is_of_the_labels_kind(name, classes, reject, dtype):
    X, y = random_tiny(4, n=20, d=2, levels=3)
    labels = np.asarray(classes)[y]
    clf = AbstainingClassifier(MultiplicityAuditor(time_limit=20), eps=0.2)
    clf.fit(X, labels)
    assert clf.reject_ == reject and type(clf.reject_) is type(reject)
    predictions = clf.predict(X)
    assert predictions.dtype == dtype
    # Never a mix of types: every value is a label or the reject value.
    assert len({type(v) for v in predictions.tolist()}) == 1
    contestable = clf.auditor_.conflicts(0.2)
    assert contestable.any() and not contestable.all()
    assert all(p == reject for p in predictions[contestable])
    np.testing.assert_array_equal(
        predictions[~contestable], clf.auditor_.predict(X)[~contestable]
    )
    assert coverage_scorer(clf, X) == pytest.approx(1 - contestable.mean())
    assert decided_accuracy_scorer(clf, X, labels) == clf.score(X, labels)


def test_a_reject_value_of_another_kind_than_the_labels_is_refused():
    X, y = random_tiny(4, n=20, d=2, levels=3)
    text = np.where(y == 1, "yes", "no")
    with pytest.raises(ValueError, match="reject=-1 is not of the kind.*'no', 'yes'"):
        AbstainingClassifier(reject=-1).fit(X, text)
    with pytest.raises(ValueError, match="reject='abstain' is not of the kind"):
        AbstainingClassifier(reject="abstain").fit(X, y)
    with pytest.raises(ValueError, match="reject=True is not of the kind"):
        AbstainingClassifier(reject=True).fit(X, y)
    clf = AbstainingClassifier(MultiplicityAuditor(time_limit=20), eps=0.2, reject=0.5)
    predictions = clf.fit(X, y).predict(X)
    assert predictions.dtype == np.float64 and 0.5 in set(predictions)
