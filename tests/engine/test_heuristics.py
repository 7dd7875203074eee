import numpy as np
import pytest
from brute_force import random_tiny

from sklearn_multiplicity._core._hypothesis import BoxMargin
from sklearn_multiplicity._core._models import in_class
from sklearn_multiplicity._core._problem import PatternProblem
from sklearn_multiplicity._engine.binary.search._heuristics import (
    best_thresholds,
    threshold_flips,
)
from sklearn_multiplicity._mip import encode


def every_threshold_errors(enc, w, u, label):
    """Fewest errors of ``z = X @ w > t`` over every t giving ``u`` ``label``."""
    prob = enc.problem
    scores = enc.X[: enc.n_train] @ w
    cuts = np.unique(scores)
    thresholds = np.concatenate(
        [[cuts[0] - 1.0], 0.5 * (cuts[1:] + cuts[:-1]), [cuts[-1] + 1.0]]
    )
    best = np.inf
    for t in thresholds:
        z = scores > t
        if z[u] == label:
            best = min(best, prob.errors(z))
    return best


@pytest.mark.parametrize("seed", range(4))
def test_threshold_flips_finds_the_best_threshold_of_each_direction(seed):
    X, y = random_tiny(seed, n=40, d=3, levels=3, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    enc = encode(problem, BoxMargin(), cuts=False)
    rng = np.random.default_rng(seed)
    directions = [rng.normal(size=enc.p) for _ in range(3)]
    baseline = rng.random(enc.n_train) < 0.5
    candidates = np.arange(enc.n_train)
    errors, models = threshold_flips(enc, directions, baseline, candidates)
    for u in candidates:
        expected = min(
            every_threshold_errors(enc, w, u, not baseline[u]) for w in directions
        )
        assert errors[u] == pytest.approx(expected)
        w, b = models[u]
        z = enc.X[: enc.n_train] @ w + b > 0
        assert z[u] != baseline[u]
        assert problem.errors(z) == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(4))
def test_margin_aware_thresholds_stay_in_the_class(seed):
    X, y = random_tiny(seed, n=60, d=3, levels=5, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    hypothesis = BoxMargin(margin=0.05)
    enc = encode(problem, hypothesis, cuts=False)
    rng = np.random.default_rng(seed)
    directions = [rng.normal(size=enc.p) for _ in range(4)]
    baseline = rng.random(enc.n_train) < 0.5
    candidates = np.arange(enc.n_train)
    min_gap = 2 * hypothesis.margin * (1 + 1e-5)
    errors, models = threshold_flips(
        enc, directions, baseline, candidates, min_gap=min_gap
    )
    for u, err, model in zip(candidates, errors, models, strict=True):
        # The best threshold with every pattern at least the margin away.
        expected = np.inf
        for w in directions:
            w = w / np.abs(w).max()
            scores = enc.X[: enc.n_train] @ w
            cuts = np.unique(scores)
            wide = np.diff(cuts) >= min_gap
            middles = 0.5 * (cuts[1:] + cuts[:-1])[wide]
            for t in np.concatenate([[cuts[0] - 1.0], middles, [cuts[-1] + 1.0]]):
                z = scores > t
                if z[u] != baseline[u]:
                    expected = min(expected, problem.errors(z))
        assert err == expected
        if model is not None:
            assert hypothesis.fit_model(problem, *model) is not None


@pytest.mark.parametrize("seed", range(5))
def test_rotated_thresholds_give_sound_models_of_the_class(seed):
    from brute_force import Truth

    from sklearn_multiplicity._core import in_class
    from sklearn_multiplicity._engine.binary.search._heuristics import (
        rotated_flip_models,
    )

    X, y = random_tiny(seed, n=9, d=2, levels=4, noise=0.3)
    truth = Truth(X, y)
    problem = PatternProblem.from_data(X, y)
    enc = encode(problem, BoxMargin(margin=0.05), cuts=False)
    rng = np.random.default_rng(seed)
    directions = [rng.normal(size=enc.p) for _ in range(6)]
    baseline = truth.D[np.argmin(truth.errors)]
    err0 = float(problem.errors(baseline))
    candidates = np.arange(enc.n_train)
    budget = err0 + 2
    models = rotated_flip_models(enc, directions, baseline, candidates, budget)
    flippable = truth.flippable(baseline, err0, 2 / truth.total)
    assert models, "the search should find some flips here"
    for model in models:
        assert in_class(enc, model, tolerance=1e-6)
        assert model.errors <= budget
        flips = model.z[: enc.n_train] != baseline
        assert flips.any() and np.all(flippable[flips])


@pytest.mark.parametrize("seed", range(5))
def test_disagreement_search_finds_sound_models_of_the_class(seed):
    from brute_force import Truth

    from sklearn_multiplicity._core import in_class
    from sklearn_multiplicity._engine.binary.search._heuristics import (
        disagreement_models,
    )

    X, y = random_tiny(seed, n=9, d=2, levels=4, noise=0.3)
    truth = Truth(X, y)
    problem = PatternProblem.from_data(X, y)
    enc = encode(problem, BoxMargin(margin=0.05), cuts=False)
    rng = np.random.default_rng(seed)
    directions = [rng.normal(size=enc.p) for _ in range(6)]
    baseline = truth.D[np.argmin(truth.errors)]
    err0 = float(problem.errors(baseline))
    weight = problem.pattern_weight
    budget = err0 + 2
    models = disagreement_models(enc, directions, baseline, weight, budget)
    assert models, "the search should find some models here"
    exact = truth.discrepancy(baseline, err0, 2 / truth.total) * truth.total
    for model in models:
        assert in_class(enc, model, tolerance=1e-6)
        assert model.errors <= budget
        assert weight[model.z[: enc.n_train] != baseline].sum() <= exact


@pytest.mark.parametrize("seed", range(4))
def test_best_thresholds_are_the_best_margin_keeping_models_of_a_direction(seed):
    X, y = random_tiny(seed, n=60, d=3, levels=5, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    hypothesis = BoxMargin(margin=0.05)
    enc = encode(problem, hypothesis, cuts=False)
    rng = np.random.default_rng(seed)
    directions = [rng.normal(size=enc.p) for _ in range(3)]
    models = best_thresholds(enc, directions)
    assert len(models) == len(directions)
    for w, model in zip(directions, models, strict=True):
        assert in_class(enc, model)
        w = w / np.abs(w).max()
        scores = enc.X[: enc.n_train] @ w
        cuts = np.unique(scores)
        wide = np.diff(cuts) >= 2 * hypothesis.margin * (1 + 1e-5)
        middles = 0.5 * (cuts[1:] + cuts[:-1])[wide]
        thresholds = np.concatenate([[cuts[0] - 1.0], middles, [cuts[-1] + 1.0]])
        expected = min(problem.errors(scores > t) for t in thresholds)
        assert model.errors == expected


@pytest.mark.parametrize("seed", range(5))
def test_moves_past_one_pattern_disagree_more_and_stay_sound(seed):
    from brute_force import Truth

    from sklearn_multiplicity._engine.binary.search._heuristics import moved_models

    X, y = random_tiny(seed, n=12, d=2, levels=4, noise=0.3)
    truth = Truth(X, y)
    problem = PatternProblem.from_data(X, y)
    enc = encode(problem, BoxMargin(), cuts=False)
    baseline = truth.D[np.argmin(truth.errors)]
    err0 = float(problem.errors(baseline))
    weight = problem.pattern_weight
    budget = err0 + 3
    start = best_thresholds(enc, [np.ones(enc.p)])[0]
    if start.errors > budget:
        start = min(
            best_thresholds(enc, [np.ones(enc.p), -np.ones(enc.p)]),
            key=lambda m: m.errors,
        )
    models = moved_models(enc, start, baseline, weight, budget)
    exact = truth.discrepancy(baseline, err0, 3 / truth.total) * truth.total
    previous = weight[start.z[: enc.n_train] != baseline].sum()
    for model in models:
        assert in_class(enc, model, tolerance=1e-6)
        assert model.errors <= budget
        disagreement = weight[model.z[: enc.n_train] != baseline].sum()
        assert previous < disagreement <= exact
        previous = disagreement


@pytest.mark.parametrize("seed", range(4))
def test_lp_models_are_verified_and_within_the_budget(seed):
    from sklearn_multiplicity._engine.binary.search._heuristics import lp_models
    from sklearn_multiplicity._mip import _formulations
    from sklearn_multiplicity._mip._relaxation import IdentitySeparator

    X, y = random_tiny(seed, n=40, d=3, levels=3, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    enc = encode(problem, BoxMargin())
    separator = IdentitySeparator(enc)
    err0 = separator.relax(_formulations.min_error(enc)).bound
    budget = np.ceil(err0) + 4
    baseline = np.zeros(enc.n_train, dtype=bool)
    mip = _formulations.max_disagreement(enc, baseline, budget)
    relaxation = separator.relax(mip)
    for model in lp_models(enc, relaxation.x, budget):
        z = enc.X[: enc.n_train] @ model.w + model.b > 0
        np.testing.assert_array_equal(model.z[: enc.n_train], z)
        assert model.errors == problem.errors(z) <= budget
