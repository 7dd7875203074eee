"""The boundary walk alone: its brackets against scipy's constrained solver,
its quadratic lower model against points of the set, and its exits."""

import numpy as np
import pytest
from ground_truth import (
    boundary_samples,
    precise_lr,
    scipy_extremes,
    small_problem,
)
from scipy.special import expit

from sklearn_multiplicity import ProbabilisticAuditor
from sklearn_multiplicity._engine import Deadline
from sklearn_multiplicity._probabilistic._ellipsoids import outer_ellipsoid
from sklearn_multiplicity._probabilistic._solver import prob_gap
from sklearn_multiplicity._probabilistic._walk import BoundaryWalk

CASES = {
    "l2": (dict(), 0.02),
    "l2-strong": (dict(C=0.1), 0.02),
    "no-penalty": (dict(C=np.inf), 0.02),
    "wide": (dict(), 0.2),
}


def _walk_of(name, seed=0, n=60, d=3, R_scale=1.0):
    params, eps = CASES[name]
    X, y = small_problem(seed, n=n, d=d)
    auditor = ProbabilisticAuditor(precise_lr(**params), log_loss_epsilon=eps).fit(X, y)
    level_set = auditor._level_set
    level = level_set.level(eps)
    delta = level - level_set.min_upper
    _, R = outer_ellipsoid(
        level_set.objective, level_set.center, level_set.center_grad, delta
    )
    walk = BoundaryWalk(
        level_set.objective,
        level_set.center,
        level,
        R * R_scale,
    )
    return X, y, auditor, walk, params, level


def _run(walk, rows, deadline=None):
    K = rows.shape[0]
    deadline = Deadline(None) if deadline is None else deadline
    return walk.run(
        rows.T, np.full(K, -np.inf), np.full(K, np.inf), 1e-6, deadline=deadline
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_walk_brackets_hold_scipys_extremes_and_its_models_attain_them(name):
    X, y, auditor, walk, params, level = _walk_of(name)
    rows = auditor._rows
    lower, upper, models = _run(walk, np.vstack([rows, -rows]))
    n = len(y)
    theta0 = auditor._level_set.theta0
    for i in range(0, n, 9):
        low, high = scipy_extremes(X[i], X, y, theta0, level, **params)
        # scipy's optima are models of the set: within the walk's brackets.
        assert lower[i] - 1e-7 <= high <= upper[i] + 1e-7
        assert lower[n + i] - 1e-7 <= -low <= upper[n + i] + 1e-7
    # Every model the walk reports is in the set and attains its lower end.
    found = ~np.isnan(models).any(axis=0)
    assert found.all()
    objective = auditor._level_set.objective
    assert np.all(objective.value(models) <= level)
    scores = np.einsum("kp,pk->k", np.vstack([rows, -rows]), models)
    np.testing.assert_allclose(scores, lower, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["l2", "no-penalty", "wide"])
def test_the_shared_quadratic_lies_below_the_objective_on_the_set(name):
    X, y, auditor, walk, params, level = _walk_of(name, seed=1)
    objective = auditor._level_set.objective
    rows = auditor._rows
    _, _, models = _run(walk, rows[:10])
    F, g, _ = objective.derivatives(models)
    theta0 = auditor._level_set.theta0
    samples = boundary_samples(X, y, theta0, theta0, level, n_dirs=60, **params)
    factor = np.tril(walk.lower_factor[0])
    Q = factor @ factor.T
    for b in range(models.shape[1]):
        v = samples - models[:, b]
        model = F[b] + v @ g[:, b] + 0.5 * np.einsum("sp,pq,sq->s", v, Q, v)
        assert np.all(objective.value(samples.T) >= model - 1e-10)


def test_walk_settles_most_ends_on_its_own():
    _, _, auditor, walk, _, _ = _walk_of("l2", seed=2, n=300, d=5)
    rows = auditor._rows
    lower, upper, _ = _run(walk, np.vstack([rows, -rows]))
    settled = prob_gap(lower, upper) <= 1e-6
    assert settled.mean() > 0.9
    # The exact solver agrees with the walk's brackets where both finish.
    ranges = auditor._ranges(auditor.log_loss_epsilon)
    n = len(rows)
    assert np.all(ranges.bounds.upper_out >= lower[:n] - 1e-9)
    assert np.all(ranges.bounds.upper_in <= upper[:n] + 1e-9)


def test_walk_stops_at_its_deadline_and_keeps_the_known_brackets():
    _, _, auditor, walk, _, _ = _walk_of("l2")
    rows = auditor._rows
    known_lo, known_hi = rows @ auditor._level_set.theta0, np.full(len(rows), 50.0)
    lower, upper, models = walk.run(
        rows.T, known_lo, known_hi, 1e-6, deadline=Deadline(0.0)
    )
    np.testing.assert_array_equal(lower, known_lo)
    np.testing.assert_array_equal(upper, known_hi)
    assert np.isnan(models).all()


def test_singular_curvature_leaves_everything_to_the_exact_solver():
    # Without a penalty, margins that may move without bound give no
    # curvature to the shared lower model: the walk steps aside.
    _, _, auditor, walk, _, _ = _walk_of("no-penalty", R_scale=1e4)
    assert not walk.usable
    rows = auditor._rows
    lower, upper, models = _run(walk, rows)
    assert np.all(lower == -np.inf) and np.all(upper == np.inf)
    assert np.isnan(models).all()


def test_ranges_with_the_walk_keep_their_models_in_the_set():
    X, y = small_problem(3, n=200, d=4)
    auditor = ProbabilisticAuditor(precise_lr(), log_loss_epsilon=0.05).fit(X, y)
    ranges = auditor.viable_prediction_range()
    assert ranges["certified"].all()
    for i in (0, 57, 199):
        low, high = auditor.extreme_models(i)
        assert auditor.objective(low) <= auditor.objective_level()
        assert auditor.objective(high) <= auditor.objective_level()
        assert expit(low.decision_function(X[[i]])[0]) == pytest.approx(
            ranges.lower.iloc[i], abs=1e-4
        )
        assert expit(high.decision_function(X[[i]])[0]) == pytest.approx(
            ranges.upper.iloc[i], abs=1e-4
        )
