import numpy as np
import pytest
from multinomial_truth import (
    fitted,
    min_with_label,
    objective,
    probs,
    sample_set,
    three_labels,
)
from scipy.special import log_softmax
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.svm import LinearSVC

from sklearn_multiplicity._engine import Deadline
from sklearn_multiplicity._probabilistic import ProbabilisticAuditor
from sklearn_multiplicity._probabilistic._label_cone import NO, OPEN, YES
from sklearn_multiplicity._probabilistic._level_set import (
    LevelSet,
    _max_log_prob,
    blahut_arimoto,
)
from sklearn_multiplicity._probabilistic._objective import full_scores

EPS = 0.03


@pytest.fixture(scope="module")
def problem():
    X, y = three_labels()
    lr = fitted(X, y)
    level_set = LevelSet.of(lr, X, y)
    W0 = np.hstack([lr.coef_, lr.intercept_[:, None]])
    level = objective(W0, X, y, 1.0) + EPS
    return X, y, lr, level_set, W0, level, level_set.label_reach(X, EPS)


def test_objective_is_sklearns(problem):
    X, y, lr, level_set, W0, level, _ = problem
    assert level_set.baseline_objective == pytest.approx(objective(W0, X, y, 1.0))
    assert level_set.level(EPS) == pytest.approx(level)


def test_label_reach_agrees_with_scipy(problem):
    X, y, lr, level_set, W0, level, reach = problem
    K = 3
    assert np.all(reach.status != OPEN)
    for i in range(len(X)):
        for lab in range(K):
            if reach.status[i, lab] == YES and lab != reach.baseline[i]:
                theta = reach.witness(i, lab)
                V = theta.reshape(K - 1, -1)
                W = np.vstack([np.zeros(V.shape[1]), V])
                assert objective(W, X, y, 1.0) <= level + 1e-12
                assert np.argmax(probs(W, X[i])) == lab
    # scipy on the pairs the closed forms do not settle trivially
    checked = 0
    for i in range(len(X)):
        for lab in range(K):
            if lab == reach.baseline[i] or reach.settled_by[i, lab] == 1:
                continue
            best = min_with_label(X, y, 1.0, W0, X[i], lab)
            if reach.status[i, lab] == NO:
                assert best > level - 1e-7, (i, lab)
            else:
                assert best <= level + 1e-7, (i, lab)
            checked += 1
    assert checked > 0


def test_outer_refutations_hold_against_samples(problem):
    X, y, lr, level_set, W0, level, reach = problem
    for W in sample_set(X, y, 1.0, W0, level, n=1500):
        labels = np.argmax(np.c_[X, np.ones(len(X))] @ W.T, axis=1)
        assert np.all(reach.status[np.arange(len(X)), labels] == YES)


def test_probability_brackets_hold_samples(problem):
    X, y, lr, level_set, W0, level, reach = problem
    r = level_set.probability_ranges(X, EPS, reach)
    assert np.all(r.lower_out <= r.lower_in + 1e-12)
    assert np.all(r.lower_in <= r.baseline + 1e-12)
    assert np.all(r.baseline <= r.upper_in + 1e-12)
    assert np.all(r.upper_in <= r.upper_out + 1e-12)
    for W in sample_set(X, y, 1.0, W0, level, n=1500, seed=1):
        P = np.array([probs(W, x) for x in X])
        assert np.all(P >= r.lower_out - 1e-9) and np.all(P <= r.upper_out + 1e-9)


def test_capacity_bracket(problem):
    X, y, lr, level_set, W0, level, reach = problem
    lower, upper = level_set.rashomon_capacity(X, EPS, reach)
    assert np.all(1 - 1e-9 <= lower) and np.all(lower <= upper + 1e-9)
    assert np.all(upper <= 3 + 1e-9)
    assert np.any(lower > 1.01)


@pytest.mark.parametrize("K, delta", [(3, 0.1), (4, 0.3), (5, 0.0)])
def test_blahut_arimoto_reaches_symmetric_channels_capacity(K, delta):
    # The K-ary symmetric channel: log2 K - H(delta) - delta log2 (K - 1)
    # bits; with its inputs repeated (as a person's duplicate models are) and
    # beside a channel whose inputs all agree (capacity 0).
    rows = np.full((K, K), delta / (K - 1))
    np.fill_diagonal(rows, 1 - delta)
    entropy = -sum(t * np.log2(t) for t in (delta, 1 - delta) if t > 0)
    capacity = np.log2(K) - entropy - delta * np.log2(K - 1)
    W = np.stack([np.vstack([rows, rows]), np.tile(rows[:1], (2 * K, 1))])
    lower = blahut_arimoto(W)
    assert np.all(lower <= [capacity + 1e-12, 1e-12])
    assert lower == pytest.approx([capacity, 0.0], abs=1e-4)


def test_most_probable_points_of_the_ellipsoids_beat_its_boundary():
    # log p_label is concave in the scores: the ascent's points lie in each
    # person's ellipsoid and are at least as probable as any sampled point
    # of its boundary.
    rng = np.random.default_rng(0)
    n, k, radius2 = 30, 2, 0.5
    z_c = rng.normal(size=(n, k))
    A = rng.normal(size=(n, k, k))
    G = A @ np.swapaxes(A, 1, 2) + 0.1 * np.eye(k)
    L = np.linalg.cholesky(G)
    angles = np.linspace(0, 2 * np.pi, 721)
    circle = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    boundary = z_c[:, None] + np.sqrt(radius2) * np.einsum("nij,aj->nai", L, circle)
    for label in range(k + 1):
        best = _max_log_prob(z_c, G, radius2, label)
        offset = np.linalg.solve(L, (best - z_c)[:, :, None])[:, :, 0]
        assert np.all(np.sum(offset**2, axis=1) <= radius2 * (1 + 1e-9))
        sampled = log_softmax(full_scores(boundary.reshape(-1, k)), axis=1)
        sampled = sampled[:, label].reshape(n, -1).max(axis=1)
        found = log_softmax(full_scores(best), axis=1)[:, label]
        assert np.all(found >= sampled - 1e-6)


def test_two_labels_agree_with_binary_auditor():
    rng = np.random.RandomState(3)
    X = rng.normal(size=(40, 2))
    y = (X @ [1.0, 0.5] + rng.normal(size=40) > 0).astype(int)
    lr = fitted(X, y)
    vpr = (
        ProbabilisticAuditor(
            LogisticRegression(tol=1e-12, max_iter=10_000), log_loss_epsilon=EPS
        )
        .fit(X, y)
        .viable_prediction_range()
    )
    r = LevelSet.of(lr, X, y).probability_ranges(X, EPS)
    assert np.allclose(r.baseline[:, 1], vpr["baseline"], atol=1e-8)
    assert np.all(r.upper_out[:, 1] >= vpr["upper"] - 1e-7)
    assert np.all(r.lower_out[:, 1] <= vpr["lower"] + 1e-7)
    assert np.all(r.upper_in[:, 1] <= vpr["upper_bound"] + 1e-7)
    assert np.all(r.lower_in[:, 1] >= vpr["lower_bound"] - 1e-7)


def test_an_expired_deadline_leaves_pairs_open_not_wrong(problem):
    X, y, lr, level_set, W0, level, reach = problem
    early = level_set.label_reach(X, EPS, deadline=Deadline(0))
    decided = early.status != OPEN
    assert np.all(early.status[decided] == reach.status[decided])
    a, b = early.ambiguity(), reach.ambiguity()
    assert a.lower <= b.lower <= b.upper <= a.upper


@pytest.mark.parametrize(
    "estimator",
    [
        LogisticRegression(l1_ratio=1.0, solver="saga", max_iter=5000),
        LinearSVC(),
    ],
)
def test_unsupported_estimators_raise(estimator):
    X, y = three_labels()
    estimator.fit(X, y)
    with pytest.raises(ValueError):
        LevelSet.of(estimator, X, y)


def test_regression_estimator_raises():
    X, y = three_labels()
    with pytest.raises(ValueError):
        LevelSet.of(LinearRegression().fit(X, y), X, y)
