"""K-class estimators against enumeration: the 0-1 optimal classifier and the
auditor's ambiguity and discrepancy, and their errors on bad input."""

import functools
import pickle

import numpy as np
import pandas as pd
import pytest
from brute_force_multiclass import MulticlassTruth, tiny_case
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from sklearn_multiplicity import MultiplicityAuditor, ZeroOneLinearClassifier

SEEDS = [0, 1, 2, 3]


@functools.cache
def twice(seed):
    """A tiny case with every row twice (a label on one row is refused)."""
    X, y, _ = tiny_case(seed)
    X, y = np.vstack([X, X]), np.concatenate([y, y])
    return X, y, MulticlassTruth(X, y)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_zero_one_classifier_is_optimal_over_k_labels(seed):
    X, y, truth = twice(seed)
    clf = ZeroOneLinearClassifier(time_limit=20).fit(X, y)
    assert clf.status_ == "optimal"
    assert clf.n_errors_ == clf.lower_bound_ == truth.min_error
    assert clf.coef_.shape == (3, X.shape[1]) and clf.intercept_.shape == (3,)
    # Its predictions are its argmax and make the errors it reports.
    assert np.sum(clf.predict(X) != y) == clf.n_errors_
    scores = clf.decision_function(X)
    np.testing.assert_array_equal(clf.classes_[scores.argmax(axis=1)], clf.predict(X))


def _baseline_labels(auditor, X, truth):
    """The baseline's label index of every enumerated point."""
    rows = [np.flatnonzero((X == point).all(axis=1))[0] for point in truth.points]
    return np.searchsorted(auditor.classes_, auditor.predict(X[rows]))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    "estimator", [None, LogisticRegression(), LinearSVC(), RidgeClassifier()]
)
def test_k_class_measures_equal_enumeration(seed, estimator):
    X, y, truth = twice(seed)
    auditor = MultiplicityAuditor(estimator, time_limit=20).fit(X, y)
    baseline = _baseline_labels(auditor, X, truth)
    assert auditor.baseline_errors_ == truth.errors_of(baseline)
    for eps in (0.0, 0.125, 0.25):
        budget = np.floor(eps * truth.total + 1e-9)
        ambiguity = truth.ambiguity(baseline, budget)
        discrepancy = truth.discrepancy(baseline, budget)
        assert auditor.ambiguity_bounds(eps) == pytest.approx((ambiguity,) * 2)
        assert auditor.discrepancy_bounds(eps) == pytest.approx((discrepancy,) * 2)
        assert auditor.ambiguity(eps) == pytest.approx(ambiguity)
        assert auditor.error_budget(eps) == truth.errors_of(baseline) + budget
    assert auditor.min_error_bounds_ == (truth.min_error, truth.min_error)


def test_a_figure_one_with_three_labels():
    # Four collinear points, 25 people each, labelled A, B, A, C; the 0-1
    # optimal model labels them A A A C (25 errors: the B point). Within
    # 25 more errors a model may label the first three points B (it errs on
    # both A points, 50, and is right on B): discrepancy 75%; every point
    # changes under some model (the C point becomes A at 25 more errors):
    # ambiguity 100%.
    X = np.repeat([[0.0], [1.0], [2.0], [3.0]], 25, axis=0)
    y = np.repeat(["A", "B", "A", "C"], 25)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    assert auditor.baseline_errors_ == 25
    np.testing.assert_array_equal(auditor.predict(X[::25]), ["A", "A", "A", "C"])
    assert auditor.ambiguity(0.25) == pytest.approx(1.0)
    assert auditor.discrepancy(0.25) == pytest.approx(0.75)


def test_k_class_audits_work_like_estimators():
    X, y, _ = twice(0)
    frame = pd.DataFrame(X, columns=["a", "b"])
    labels = np.array(["low", "mid", "high"])[y]
    pipeline = make_pipeline(StandardScaler(), LogisticRegression())
    auditor = MultiplicityAuditor(pipeline, time_limit=20).fit(frame, labels)
    np.testing.assert_array_equal(auditor.feature_names_in_, ["a", "b"])
    assert set(auditor.predict(frame)) <= set(labels)
    copy = clone(auditor).fit(frame, labels)
    assert copy.ambiguity_bounds(0.25) == auditor.ambiguity_bounds(0.25)
    # A reading after the audit solves nothing more, nor does a pickled copy.
    solved = len(auditor.mip_log_)
    auditor.discrepancy_bounds(0.25)
    assert len(auditor.mip_log_) == solved
    copy = pickle.loads(pickle.dumps(auditor))
    assert copy.ambiguity_bounds(0.25) == auditor.ambiguity_bounds(0.25)
    assert len(copy.mip_log_) == solved


def test_k_class_bad_input_gets_one_clear_error():
    X, y, _ = twice(0)
    once = y.copy()
    once[0] = 7  # a label on one row
    with pytest.raises(ValueError, match="one row only"):
        MultiplicityAuditor(LogisticRegression()).fit(X, once)
    many = np.arange(len(X) * 3) % 21
    with pytest.raises(ValueError, match="at most 20"):
        MultiplicityAuditor(LogisticRegression()).fit(np.tile(X, (3, 1)), many)
    with pytest.raises(TypeError, match="not a linear classifier"):
        MultiplicityAuditor(DecisionTreeClassifier()).fit(X, y)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    with pytest.raises(ValueError, match="not class labels"):
        auditor.ambiguity({0: 0.1, 1: 0.1, 5: 0.1})
    with pytest.raises(NotImplementedError, match="two labels"):
        auditor.coefficient_ranges(0.1)  # two labels only
    with pytest.raises(ValueError, match="one group per row"):
        MultiplicityAuditor(LogisticRegression()).fit(X, y, groups=y[:-1])
    with pytest.raises(ValueError, match="two labels"):
        ZeroOneLinearClassifier(weights="integer").fit(X, y)


def test_k_class_time_limits_give_honest_bounds():
    from faulty_backends import NoSolutionBackend

    X, y, truth = twice(1)
    auditor = MultiplicityAuditor(
        LogisticRegression(), solver=NoSolutionBackend(), time_limit=1
    ).fit(X, y)
    baseline = _baseline_labels(auditor, X, truth)
    # At 2 extra errors a quarter of the people keep their label: only a
    # solver proves it (witness searches find flips, never proofs).
    eps, budget = 0.125, 2.0
    assert truth.ambiguity(baseline, budget) < 1.0
    with pytest.warns(Warning):
        lower = auditor.ambiguity(eps)
    low, high = auditor.ambiguity_bounds(eps)
    assert lower == low <= truth.ambiguity(baseline, budget) <= high
    low, high = auditor.discrepancy_bounds(eps)
    assert low <= truth.discrepancy(baseline, budget) <= high
    # Whoever a verified model changes is ambiguous: readings use it all.
    assert auditor.ambiguity_bounds(eps)[0] >= low


def test_a_reading_uses_the_models_of_later_steps(monkeypatch):
    # Ambiguity runs out of time while the discrepancy MIP then finds a
    # model that changes people: the ambiguity read afterwards counts them.
    from sklearn_multiplicity._engine.multiclass import _certifier as _multiclass

    X, y, truth = twice(3)
    monkeypatch.setattr(
        _multiclass.MulticlassCertifier, "ambiguity", _no_flip_mips(_multiclass)
    )
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20).fit(X, y)
    baseline = _baseline_labels(auditor, X, truth)
    low, high = auditor.discrepancy_bounds(0.25)
    assert low == high == pytest.approx(truth.discrepancy(baseline, 4.0))
    assert auditor.ambiguity_bounds(0.25)[0] >= low > 0


def _no_flip_mips(module):
    """``MulticlassCertifier.ambiguity`` that solves no MIP."""

    original = module.MulticlassCertifier.ambiguity

    def without_mips(self, budget, deadline=None):
        return original(self, budget, module.Deadline(0.0))

    return without_mips
