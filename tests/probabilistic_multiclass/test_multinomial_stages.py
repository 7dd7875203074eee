"""The stages of the label reach alone: the score-ellipsoid margins against
sampled points, the inner ellipsoid's witnesses, the tangent certificate
against models of the set, and the walk's answers against scipy's
constrained solver; the objective's two sums and the harvest's bookkeeping."""

import numpy as np
import pytest
from multinomial_truth import fitted, min_with_label, objective, three_labels
from scipy.special import logsumexp

from sklearn_multiplicity._engine import Deadline
from sklearn_multiplicity._probabilistic._label_cone import leads, tangent_bound
from sklearn_multiplicity._probabilistic._label_walk import (
    Harvest,
    LabelWalk,
    _new_pairs,
)
from sklearn_multiplicity._probabilistic._level_set import LevelSet
from sklearn_multiplicity._probabilistic._objective import full_scores
from sklearn_multiplicity._probabilistic._score_ellipsoids import (
    MarginProblem,
    ellipsoid_witnesses,
)

EPS = 0.03


@pytest.fixture(scope="module")
def level_set():
    X, y = three_labels(seed=1, n=40)
    lr = fitted(X, y)
    return X, y, lr, LevelSet.of(lr, X, y)


def test_margins_bracket_sampled_points():
    rng = np.random.RandomState(0)
    J, K = 30, 4
    A = rng.normal(size=(J, K - 1, K - 1))
    G = np.zeros((J, K, K))
    G[:, 1:, 1:] = A @ np.swapaxes(A, 1, 2)
    s = rng.normal(size=(J, K)) * 2
    s[:, 0] = 0
    labels = rng.randint(K, size=J)
    r = rng.uniform(0.2, 2.0, size=J)
    upper, lower, w = MarginProblem(s, G, labels, r).solve()
    assert np.all(lower <= upper + 1e-9)
    for j in range(J):
        # Points of the ellipsoid {s + r G u : u' G u <= 1}.
        u = rng.normal(size=(4000, K))
        u /= np.sqrt(np.einsum("mk,kl,ml->m", u, G[j], u))[:, None] + 1e-300
        u *= rng.uniform(0, 1, size=(4000, 1)) ** (1 / K)
        pts = s[j] + r[j] * u @ G[j]
        lead = pts[:, [labels[j]]] - pts
        lead[:, labels[j]] = np.inf
        best = lead.min(axis=1).max()
        assert best <= upper[j] + 1e-7
        assert lower[j] <= best + 1e-6 or lower[j] <= upper[j] + 1e-9
    # The duality gap closes (the problem is small and smooth here).
    assert np.median(upper - lower) < 1e-3


def test_tangent_bound_is_below_models_of_the_set(level_set):
    X, y, lr, ls = level_set
    obj, K = ls.objective, ls.objective.K
    rows = obj.augment(X)
    outer = ls.outer(EPS)
    rng = np.random.RandomState(0)
    J = 12
    people, labels = rng.randint(len(X), size=J), rng.randint(K, size=J)
    theta = ls.center[:, None] + 0.5 * rng.normal(size=(obj.dim, J))
    F, g, _ = obj.derivatives(theta)
    mu = rng.uniform(0, 1, size=(J, K))
    mu[np.arange(J), labels] = 0
    bound = tangent_bound(obj, outer, rows[people], labels, theta, F, g, mu)
    # Models of the set (sampled around the minimiser) giving the label.
    samples = ls.center[:, None] + 0.4 * rng.normal(size=(obj.dim, 3000))
    values = obj.value(samples)
    inside = samples[:, values <= ls.level(EPS)]
    assert inside.shape[1] > 50
    for j in range(J):
        rep = np.repeat(rows[people[j]][None], inside.shape[1], axis=0)
        lead = leads(obj, rep, inside, np.full(inside.shape[1], labels[j]))
        gives = np.all(lead >= 0, axis=1)
        if gives.any():
            assert bound[j] <= obj.value(inside[:, gives]).min() + 1e-12


def test_walk_answers_agree_with_scipy(level_set):
    X, y, lr, ls = level_set
    obj = ls.objective
    rows = obj.augment(X)
    level = ls.level(EPS)
    base = full_scores(obj.scores(rows, ls.theta0[:, None])[:, :, 0])
    shift = 1e-8 * (1 + np.abs(base).max())
    harvest = Harvest(obj, rows, shift)
    harvest.add(ls.theta0[:, None], level)
    walk = LabelWalk(obj, ls.center, ls.H_inv, level, shift, ls.outer(EPS))
    people, labels = np.nonzero(~harvest.reached)
    refuted = walk.run(rows, people, labels, harvest, Deadline(None))
    W0 = np.hstack([lr.coef_, lr.intercept_[:, None]])
    assert harvest.reached.sum() > len(X) and refuted.any()
    for i, lab in zip(*np.nonzero(harvest.reached), strict=True):
        theta = harvest.model(i, lab)
        assert obj.value(theta[:, None])[0] <= level
        s = full_scores(obj.scores(rows[i : i + 1], theta[:, None])[0, :, 0])
        assert np.argmax(s) == lab
    for i, lab in zip(people[refuted], labels[refuted], strict=True):
        assert not harvest.reached[i, lab]
        best = min_with_label(X, y, 1.0, W0, X[i], lab)
        assert best > level - 1e-7, (i, lab)
    # The set's objective is scikit-learn's (independent formula).
    assert ls.baseline_objective == pytest.approx(objective(W0, X, y, 1.0))


def _shift(ls, rows):
    base = full_scores(ls.objective.scores(rows, ls.theta0[:, None])[:, :, 0])
    return 1e-8 * (1 + np.abs(base).max()), np.argmax(base, axis=1)


def test_inner_witnesses_are_models_of_the_set_giving_their_label(level_set):
    X, y, lr, ls = level_set
    obj, K = ls.objective, ls.objective.K
    rows = obj.augment(X)
    shift, baseline = _shift(ls, rows)
    people, labels = np.nonzero(np.arange(K)[None] != baseline[:, None])
    inner = ls.inner(EPS)
    found, models = ellipsoid_witnesses(obj, inner, rows, people, labels, shift)
    assert 0 < found.sum() < found.size and models.shape == (obj.dim, found.sum())
    offset = models - inner.center[:, None]
    assert np.all(np.einsum("pj,pq,qj->j", offset, inner.Q, offset) <= inner.radius2)
    assert np.all(obj.value(models) <= ls.level(EPS))
    ahead = leads(obj, rows[people[found]], models, labels[found])
    ahead[np.arange(found.sum()), labels[found]] = np.inf
    assert np.all(ahead.min(axis=1) >= shift)
    # A deadline stops the stage between blocks of pairs: none found.
    stopped, none = ellipsoid_witnesses(
        obj, inner, rows, people, labels, shift, Deadline(0)
    )
    assert not stopped.any() and none.shape == (obj.dim, 0)
    # A pair the inner ellipsoid misses has no sampled point giving it.
    rng = np.random.RandomState(0)
    u = rng.normal(size=(obj.dim, 4000))
    u /= np.sqrt(np.einsum("pj,pq,qj->j", u, inner.Q, u))
    thetas = inner.center[:, None] + np.sqrt(inner.radius2) * u * rng.uniform(
        0, 1, size=4000
    ) ** (1 / obj.dim)
    for i, lab in zip(people[~found], labels[~found], strict=True):
        s = full_scores(obj.scores(rows[i : i + 1], thetas)[0].T)
        lead = s[:, lab][:, None] - np.delete(s, lab, axis=1)
        assert not np.any(lead.min(axis=1) > 1e-6), (i, lab)


def test_new_pairs_are_the_open_top_labels_with_their_lead():
    rng = np.random.RandomState(0)
    for k in (1, 2, 4, 7):
        z = rng.normal(size=(300, k, 5)).round(1)  # ties and zeros
        open_pairs = rng.uniform(size=(300, k + 1)) < 0.6
        models = np.array([True, False, True, True, True])
        full = full_scores(np.moveaxis(z, 1, 2))  # (n, B, K)
        ordered = np.sort(full, axis=2)
        top = np.argmax(full, axis=2)
        clear = ordered[:, :, -1] - ordered[:, :, -2] >= 0.05
        rows = np.arange(300)[:, None]
        expected = clear & open_pairs[rows, top] & models[None, :]
        people, labels, which = _new_pairs(z, open_pairs, 0.05, models)
        got = np.zeros_like(expected)
        got[people, which] = True
        assert np.array_equal(got, expected)
        assert np.array_equal(labels, top[people, which])
        assert len(people) == expected.sum()


def test_objective_sums_directly_and_shifted_alike(level_set):
    X, y, lr, ls = level_set
    obj = ls.objective
    rng = np.random.RandomState(0)
    # Ordinary models, and models whose scores overflow exp (above 709).
    for scale in (0.5, 400.0):
        thetas = ls.center[:, None] + scale * rng.normal(size=(obj.dim, 6))
        z = obj.scores(obj.X, thetas)
        assert (np.abs(z).max() > 709) == (scale > 1)
        full = full_scores(np.moveaxis(z, 1, 2))  # (n, B, K)
        picked = np.take_along_axis(full, obj.labels[:, None, None], axis=2)[:, :, 0]
        expected = obj.a @ (logsumexp(full, axis=2) - picked)
        expected += obj.penalty_value(thetas)
        value, grad, _ = obj.derivatives(thetas)
        assert np.all(np.isfinite(value)) and np.all(np.isfinite(grad))
        np.testing.assert_allclose(value, expected, rtol=1e-13)
        np.testing.assert_allclose(obj.value(thetas), expected, rtol=1e-13)
    assert obj.evaluate(thetas[:, :0]).value.shape == (0,)
    # The gradient of some models is the gradient of those models alone.
    evaluation = obj.evaluate(thetas)
    np.testing.assert_allclose(
        evaluation.gradient([4, 1]), obj.derivatives(thetas[:, [4, 1]])[1], rtol=1e-12
    )


def test_harvest_samples_walked_models_before_recorded_ones(level_set):
    X, y, lr, ls = level_set
    obj = ls.objective
    rows = obj.augment(X)
    shift, baseline = _shift(ls, rows)
    harvest = Harvest(obj, rows, shift)
    harvest.add(ls.theta0[:, None], ls.level(EPS))
    recorded = np.repeat(ls.center[:, None], 5, axis=1) + 1e-3
    others = np.flatnonzero(baseline != 0)[:5]
    harvest.record(others, np.zeros(5, dtype=int), recorded)
    assert harvest.n_models == 6
    assert np.array_equal(harvest.model(others[2], 0), recorded[:, 2])
    assert np.array_equal(harvest.sample(1), ls.theta0[:, None])
    assert harvest.sample(3).shape[1] == 3
    assert np.array_equal(harvest.sample(3)[:, 0], ls.theta0)
    assert harvest.sample(100).shape[1] == 6


def test_an_expired_deadline_leaves_the_pairs_after_the_closed_forms_open(
    level_set, monkeypatch
):
    from sklearn_multiplicity._probabilistic import _label_reach

    def never(*args, **kwargs):
        raise AssertionError("a stage ran after the deadline")

    X, y, lr, ls = level_set
    full = ls.label_reach(X, EPS)  # no deadline
    monkeypatch.setattr(_label_reach, "_walk_stage", never)
    monkeypatch.setattr(_label_reach, "_exact_stage", never)
    stopped = ls.label_reach(X, EPS, deadline=Deadline(0))
    # Only the baseline's labels and the outer ellipsoid's refutations
    # (which cost no search) are settled; the inner stage stops too.
    assert np.all(np.isin(stopped.settled_by, [-1, 0, 1]))
    assert not stopped.complete
    settled = stopped.status != -1
    assert np.array_equal(stopped.status[settled], full.status[settled])
    amb, whole = stopped.ambiguity(), full.ambiguity()
    assert amb.lower <= whole.lower == whole.upper <= amb.upper
