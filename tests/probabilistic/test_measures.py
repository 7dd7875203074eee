"""Measures read off the ranges, against direct computations."""

import numpy as np
import pandas as pd
import pytest
from ground_truth import boundary_samples, precise_lr, sklearn_objective, small_problem
from scipy.special import expit
from sklearn.model_selection import cross_validate

from sklearn_multiplicity import (
    ProbabilisticAuditor,
    ViablePredictionRangeDisplay,
    probabilistic_ambiguity_scorer,
    vpr_width_scorer,
)
from sklearn_multiplicity._probabilistic._ellipsoids import (
    inner_ellipsoid,
    outer_ellipsoid,
)
from sklearn_multiplicity._probabilistic._measures import rashomon_capacity


@pytest.fixture(scope="module")
def fitted():
    X, y = small_problem(11, n=80, d=3, noise=2.0)
    return X, y, ProbabilisticAuditor(precise_lr(), log_loss_epsilon=0.02).fit(X, y)


def blahut_arimoto(outputs, iters=3000):
    """``2 ** capacity`` (bits) of the channel with rows ``(1 - p, p)``."""
    W = np.column_stack([1 - outputs, outputs])
    q = np.full(len(outputs), 1 / len(outputs))

    def divergence(q):
        py = q @ W
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(W > 0, W * np.log2(W / py), 0.0)
        return terms.sum(axis=1)

    for _ in range(iters):
        q = q * np.exp2(divergence(q))
        q /= q.sum()
    return 2 ** float(q @ divergence(q))


@pytest.mark.parametrize("a, b", [(0.1, 0.9), (0.2, 0.35), (0.0, 1.0), (0.6, 0.99)])
def test_rashomon_capacity_matches_blahut_arimoto(a, b):
    # Inputs: the whole segment [a, b] of Bernoulli outputs, not only its ends.
    grid = np.linspace(a, b, 21)
    assert rashomon_capacity(a, b) == pytest.approx(blahut_arimoto(grid), abs=1e-6)


def test_rashomon_capacity_of_the_auditor(fitted):
    X, y, auditor = fitted
    capacity = auditor.rashomon_capacity()
    ranges = auditor.viable_prediction_range()
    assert np.all((capacity >= 1) & (capacity <= 2))
    i = int(np.argmax(ranges["width"]))
    grid = np.linspace(ranges.lower.iloc[i], ranges.upper.iloc[i], 11)
    assert capacity.iloc[i] == pytest.approx(blahut_arimoto(grid), abs=1e-6)
    assert auditor.rashomon_capacity(eps=0.0).max() < 1.0001


def test_ambiguity_is_the_share_of_ranges_crossing_the_threshold(fitted):
    X, y, auditor = fitted
    for threshold in (0.3, 0.5, 0.8):
        r = auditor.viable_prediction_range()
        positive = r.baseline > threshold
        crosses = np.where(positive, r.lower <= threshold, r.upper > threshold)
        assert auditor.ambiguity(threshold=threshold) == pytest.approx(crosses.mean())
        lo, hi = auditor.ambiguity_bounds(threshold=threshold)
        assert lo == hi


def test_refining_only_at_the_threshold_gives_the_same_ambiguity(fitted):
    X, y, auditor = fitted
    fast = ProbabilisticAuditor(precise_lr(), log_loss_epsilon=0.02, refine="threshold")
    fast.fit(X, y)
    assert fast.ambiguity() == auditor.ambiguity()
    r_fast, r_all = fast.viable_prediction_range(), auditor.viable_prediction_range()
    assert np.all(r_fast.lower_bound <= r_all.lower + 1e-12)
    assert np.all(r_all.upper <= r_fast.upper_bound + 1e-12)


def test_sampled_models_never_beat_the_certified_measures(fitted):
    X, y, auditor = fitted
    lr = auditor.estimator_
    theta0 = np.append(lr.coef_.ravel(), lr.intercept_)
    level = auditor.objective_level()
    points = boundary_samples(X, y, theta0, theta0, level, n_dirs=300, seed=3)
    assert all(sklearn_objective(t, X, y) <= level for t in points)
    scores = expit(np.hstack([X, np.ones((len(y), 1))]) @ points.T)
    base = lr.predict_proba(X)[:, 1]
    flips = (scores > 0.5) != (base > 0.5)[:, None]
    lo, hi = auditor.discrepancy_bounds()
    assert flips.mean(axis=0).max() <= hi
    assert flips.any(axis=1).mean() <= auditor.ambiguity()
    assert 0 < lo <= hi
    moved = np.abs(scores - base[:, None]).max(axis=1)
    for delta in (0.01, 0.05, 0.2):
        assert (moved > delta).mean() <= auditor.delta_ambiguity(delta=delta)
    values = [auditor.delta_ambiguity(delta=d) for d in (0.0, 0.05, 0.1, 0.5, 1.0)]
    assert values == sorted(values, reverse=True) and values[-1] == 0.0


def test_closed_form_ellipsoids_are_inside_and_around_the_level_set(fitted):
    X, y, auditor = fitted
    ls = auditor._level_set
    objective = ls.objective
    eps = 0.05
    delta = ls.level(eps) - ls.min_upper
    outer, R = outer_ellipsoid(objective, ls.center, ls.center_grad, delta)
    inner = inner_ellipsoid(objective, ls.center, ls.center_grad, delta, R)
    rng = np.random.RandomState(0)
    for _ in range(50):
        c = rng.normal(size=objective.dim)
        assert objective.value(inner.extreme(c)) <= ls.level(eps)
    points = boundary_samples(X, y, ls.theta0, ls.center, ls.level(eps), seed=4)
    margins = np.abs(objective.X @ (points - ls.center).T)
    assert np.all(margins.max(axis=1) <= R)
    rows = objective.X
    mid, half = outer.extents(rows)
    scores = rows @ points.T
    assert np.all(scores.max(axis=1) <= mid + half + 1e-9)
    assert np.all(scores.min(axis=1) >= mid - half - 1e-9)


def test_display_and_scorers(fitted):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    X, y, auditor = fitted
    ax = Figure().add_subplot()
    display = ViablePredictionRangeDisplay.from_auditor(auditor, ax=ax, color="k")
    assert display.ax_ is ax and display.threshold_line_.get_ydata()[0] == 0.5
    assert len(display.line_.get_xdata()) == len(y)
    scores = cross_validate(
        ProbabilisticAuditor(log_loss_epsilon=0.02),
        X,
        y,
        cv=2,
        scoring={
            "width": vpr_width_scorer(),
            "ambiguity": probabilistic_ambiguity_scorer(),
        },
    )
    assert np.all((scores["test_width"] > 0) & (scores["test_width"] < 1))
    assert np.all((scores["test_ambiguity"] >= 0) & (scores["test_ambiguity"] <= 1))
    held_out = vpr_width_scorer()(auditor, X[:10], y[:10])
    assert held_out == pytest.approx(
        auditor.viable_prediction_range(X[:10])["width"].mean()
    )
    with pytest.raises(TypeError, match="ProbabilisticAuditor"):
        vpr_width_scorer()(auditor.estimator_, X, y)


def test_display_from_estimator_and_its_alias_from_auditor_agree(fitted):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    X, y, auditor = fitted
    new = ViablePredictionRangeDisplay.from_estimator(
        auditor, X[:30], 0.03, ax=Figure().add_subplot(), alpha=0.5
    )
    old = ViablePredictionRangeDisplay.from_auditor(
        auditor, X[:30], 0.03, ax=Figure().add_subplot(), alpha=0.5
    )
    assert type(new) is type(old) is ViablePredictionRangeDisplay
    pd.testing.assert_frame_equal(new.ranges, old.ranges)
    pd.testing.assert_frame_equal(
        new.ranges, auditor.viable_prediction_range(X[:30], 0.03)
    )
    assert new.threshold == old.threshold == auditor.threshold
    np.testing.assert_array_equal(new.line_.get_ydata(), old.line_.get_ydata())
    assert new.band_.get_alpha() == old.band_.get_alpha() == 0.5


def test_closed_forms_alone_bracket_the_exact_values(fitted):
    X, y, auditor = fitted
    bounds = ProbabilisticAuditor(
        precise_lr(), log_loss_epsilon=0.02, refine="none"
    ).fit(X, y)
    lo, hi = bounds.ambiguity_bounds()
    assert lo <= auditor.ambiguity() <= hi
    r_bounds, r_exact = (
        bounds.viable_prediction_range(),
        auditor.viable_prediction_range(),
    )
    assert np.all(r_bounds.lower_bound <= r_exact.lower + 1e-12)
    assert np.all(r_bounds.lower >= r_exact.lower_bound - 1e-12)
    assert np.all(r_bounds.upper <= r_exact.upper_bound + 1e-12)
    assert np.all(r_bounds.upper_bound >= r_exact.upper - 1e-12)
