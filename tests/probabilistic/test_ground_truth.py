"""Certified ranges against scipy's constrained solver and samples of the set."""

import numpy as np
import pytest
from ground_truth import (
    boundary_samples,
    precise_lr,
    scipy_extremes,
    sklearn_objective,
    small_problem,
)
from scipy.special import expit, logit
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import ProbabilisticAuditor

CASES = {
    "l2": dict(estimator=precise_lr()),
    "l2-strong": dict(estimator=precise_lr(C=0.1)),
    "no-penalty": dict(estimator=precise_lr(C=np.inf)),
    "no-intercept": dict(estimator=precise_lr(fit_intercept=False)),
    "weighted": dict(estimator=precise_lr(), weighted=True),
    "default-tol": dict(estimator=LogisticRegression()),
}


def _setting(name, seed=0):
    case = CASES[name]
    X, y = small_problem(seed, n=40, d=2)
    weight = None
    if case.get("weighted"):
        weight = np.random.RandomState(seed).uniform(0.2, 3.0, size=len(y))
    est = case["estimator"]
    kw = {
        "C": est.C,
        "sample_weight": weight,
        "fit_intercept": est.fit_intercept,
    }
    return X, y, weight, kw


@pytest.mark.parametrize("name", sorted(CASES))
def test_ranges_match_scipy_constrained_extremes(name):
    X, y, weight, kw = _setting(name)
    eps = 0.02
    auditor = ProbabilisticAuditor(
        CASES[name]["estimator"], log_loss_epsilon=eps, tol=1e-6
    )
    auditor.fit(X, y, sample_weight=weight)
    ranges = auditor.viable_prediction_range()
    lr = auditor.estimator_
    theta0 = (
        np.append(lr.coef_.ravel(), lr.intercept_)
        if kw["fit_intercept"]
        else lr.coef_.ravel()
    )
    level = sklearn_objective(theta0, X, y, **kw) + eps
    assert auditor.objective_level() == pytest.approx(level, abs=1e-12)
    for i in range(0, len(y), 7):
        low, high = scipy_extremes(X[i], X, y, theta0, level, **kw)
        r = ranges.iloc[i]
        # scipy's points are in the set: never beyond the certified bounds ...
        assert (
            r.lower_bound - 1e-9 <= expit(low) and expit(high) <= r.upper_bound + 1e-9
        )
        # ... and the attained ends agree with scipy's optimum.
        assert expit(high) == pytest.approx(r.upper, abs=2e-5)
        assert expit(low) == pytest.approx(r.lower, abs=2e-5)
    assert ranges["certified"].all()


@pytest.mark.parametrize("name", ["l2", "no-penalty", "weighted"])
def test_samples_of_the_level_set_never_leave_the_certified_ranges(name):
    X, y, weight, kw = _setting(name, seed=1)
    eps = 0.05
    auditor = ProbabilisticAuditor(CASES[name]["estimator"], log_loss_epsilon=eps)
    auditor.fit(X, y, sample_weight=weight)
    ranges = auditor.viable_prediction_range()
    lr = auditor.estimator_
    theta0 = np.append(lr.coef_.ravel(), lr.intercept_)
    level = sklearn_objective(theta0, X, y, **kw) + eps
    points = boundary_samples(X, y, theta0, theta0, level, **kw)
    scores = expit(np.hstack([X, np.ones((len(y), 1))]) @ points.T)
    assert np.all(scores.min(axis=1) >= ranges["lower_bound"] - 1e-12)
    assert np.all(scores.max(axis=1) <= ranges["upper_bound"] + 1e-12)
    # The samples come close to the attained ends (boundary rays are dense).
    assert np.all(scores.max(axis=1) <= ranges["upper"] + 1e-4)
    assert np.median(ranges["upper"] - scores.max(axis=1)) < 0.05


def test_new_people_match_scipy():
    X, y = small_problem(2, n=50, d=3)
    auditor = ProbabilisticAuditor(precise_lr(), log_loss_epsilon=0.03, tol=1e-6).fit(
        X, y
    )
    new = np.random.RandomState(5).normal(size=(4, 3)) * 2
    ranges = auditor.viable_prediction_range(new)
    lr = auditor.estimator_
    theta0 = np.append(lr.coef_.ravel(), lr.intercept_)
    level = auditor.objective_level()
    for i, x in enumerate(new):
        low, high = scipy_extremes(x, X, y, theta0, level)
        assert expit(high) == pytest.approx(ranges.upper.iloc[i], abs=2e-5)
        assert expit(low) == pytest.approx(ranges.lower.iloc[i], abs=2e-5)


def test_ranges_nest_as_eps_grows():
    X, y = small_problem(3, n=60, d=3)
    auditor = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(X, y)
    previous = None
    for eps in (0.0, 0.001, 0.01, 0.05, 0.2):
        r = auditor.viable_prediction_range(eps=eps)
        assert np.all(r.lower <= r.baseline) and np.all(r.baseline <= r.upper)
        if previous is not None:
            # Attained ends of a smaller set are inside the bounds of a larger.
            assert np.all(r.lower_bound <= previous.lower + 1e-12)
            assert np.all(previous.upper <= r.upper_bound + 1e-12)
            assert np.all(r.width >= previous.width - 2e-6)
        previous = r


def test_ranges_collapse_at_eps_zero_for_an_optimal_baseline():
    X, y = small_problem(4, n=60, d=3)
    auditor = ProbabilisticAuditor(precise_lr(), tol=1e-6).fit(X, y)
    r = auditor.viable_prediction_range(eps=0.0)
    assert np.all(r.upper_bound - r.lower_bound < 1e-5)
    assert np.allclose(r.lower, r.baseline, atol=1e-5)
    assert auditor.ambiguity(0.0) == 0.0


def test_extreme_models_are_in_the_set_and_attain_the_ends():
    X, y = small_problem(5, n=50, d=2)
    auditor = ProbabilisticAuditor(LogisticRegression(), log_loss_epsilon=0.05).fit(
        X, y
    )
    ranges = auditor.viable_prediction_range()
    for i in (0, 13, 49, -1):
        low, high = auditor.extreme_models(i)
        assert auditor.objective(low) <= auditor.objective_level()
        assert auditor.objective(high) <= auditor.objective_level()
        kw = {"C": 1.0}
        for model in (low, high):
            theta = np.append(model.coef_.ravel(), model.intercept_)
            assert (
                sklearn_objective(theta, X, y, **kw)
                <= auditor.objective_level() + 1e-12
            )
        p_low = low.predict_proba(X[[i]])[0, 1]
        p_high = high.predict_proba(X[[i]])[0, 1]
        assert p_low == pytest.approx(ranges.lower.iloc[i], abs=1e-4)
        assert p_high == pytest.approx(ranges.upper.iloc[i], abs=1e-4)
        assert p_low <= ranges.baseline.iloc[i] <= p_high


def test_logit_threshold_helper_is_consistent():
    assert logit(0.5) == 0.0
