"""The descent: exact line searches of the 0-1 loss, checked against direct
evaluation and enumeration of every linear dichotomy."""

import functools

import numpy as np
import pytest
from brute_force import Truth, random_tiny

from sklearn_multiplicity._core._hypothesis import BoxMargin
from sklearn_multiplicity._core._models import in_class, verify
from sklearn_multiplicity._core._problem import PatternProblem
from sklearn_multiplicity._engine._descent import Descent, applies, line_search
from sklearn_multiplicity._mip import encode
from sklearn_multiplicity._mip._constraints import SignRows


@pytest.mark.parametrize("seed", range(6))
def test_line_search_totals_are_those_of_the_labels_at_each_point(seed):
    rng = np.random.default_rng(seed)
    k = 30
    # Ties among breakpoints and patterns that do not move along the line.
    scores = rng.integers(-4, 5, size=k).astype(float)
    delta = rng.integers(-2, 3, size=k).astype(float)
    if_positive = rng.random((k, 2))
    if_negative = rng.random((k, 2))
    points, totals = line_search(scores, delta, if_positive, if_negative)
    moving = delta != 0
    breaks = np.unique(-scores[moving] / delta[moving])
    assert points.size == breaks.size + 1
    assert np.all(np.diff(points) > 0)
    # One point strictly inside each interval between breakpoints.
    inside = np.searchsorted(breaks, points)
    np.testing.assert_array_equal(inside, np.arange(points.size))
    assert not np.isin(points, breaks).any()
    for point, total in zip(points, totals, strict=True):
        positive = scores + point * delta > 0
        expected = if_positive[positive].sum(0) + if_negative[~positive].sum(0)
        np.testing.assert_allclose(total, expected)


def test_line_search_of_a_line_that_moves_nothing_is_its_one_labelling():
    scores = np.array([1.0, -1.0, 0.0])
    values = np.eye(3)
    points, totals = line_search(scores, np.zeros(3), values, 2 * values)
    assert points.size == 1
    np.testing.assert_allclose(totals[0], [1.0, 2.0, 2.0])


@functools.lru_cache
def tiny_truth(seed):
    X, y = random_tiny(seed, n=10, d=2, levels=5, noise=0.3)
    return X, y, Truth(X, y)


def tiny_audit(seed, extra):
    X, y, truth = tiny_truth(seed)
    problem = PatternProblem.from_data(X, y)
    enc = encode(problem, BoxMargin(), cuts=False)
    baseline = truth.D[np.argmin(truth.errors)]
    budget = float(problem.errors(baseline)) + extra
    return truth, problem, enc, baseline, budget


def flips_from_constants(enc, baseline, budget):
    """The descent's flip of every pattern, from the constant model with the
    pattern's baseline label (it must find its own way): ``{pattern: model}``
    for the patterns it flipped."""
    _, _, b_lo, b_hi = enc.hypothesis.weight_bounds(enc.problem)
    found = {}
    for u in range(enc.n_train):
        label = not baseline[u]
        start = verify(enc, np.zeros(enc.p), b_lo if label else b_hi)
        model = Descent(enc, seed=u).flip(start, u, label, budget)
        if model is not None:
            assert model.z[u] == label
            found[u] = model
    return found


@pytest.mark.parametrize("seed", range(8))
def test_flip_descent_finds_sound_flips_and_only_flippable_ones(seed):
    truth, problem, enc, baseline, budget = tiny_audit(seed, extra=2)
    flippable = ((truth.D != baseline) & (truth.errors <= budget)[:, None]).any(0)
    found = flips_from_constants(enc, baseline, budget)
    for u, model in found.items():
        assert flippable[u]
        assert in_class(enc, model, tolerance=1e-6)
        assert model.errors == problem.errors(model.z[: enc.n_train]) <= budget
    # Not vacuous: on these tiny sets the descent reaches most flips.
    assert len(found) >= 0.5 * flippable.sum() > 0


@pytest.mark.parametrize("seed", range(6))
def test_disagreement_descent_gains_and_stays_below_the_discrepancy(seed):
    truth, problem, enc, baseline, budget = tiny_audit(seed, extra=3)
    weights = problem.pattern_weight
    within = truth.errors <= budget
    exact = ((truth.D[within] != baseline) @ weights).max()
    # The baseline itself, realised in the class, is the start.
    start = verify(enc, *_realised_baseline(enc, baseline))
    gained = 0
    for seed_ in range(5):
        model = Descent(enc, seed=seed_).disagree(start, baseline, weights, budget)
        if model is None:
            continue
        disagreement = weights[model.z[: enc.n_train] != baseline].sum()
        assert in_class(enc, model, tolerance=1e-6)
        assert model.errors <= budget
        assert 0 < disagreement <= exact
        gained += 1
    assert gained > 0


def _realised_baseline(enc, baseline):
    from sklearn_multiplicity._mip import realise

    solution = realise(enc, baseline)
    assert solution is not None
    return solution


def test_descents_search_continuous_unconstrained_classes_only():
    from sklearn_multiplicity._core._hypothesis import IntegerWeights

    X, y = random_tiny(0, n=10, d=2, levels=5, noise=0.3)
    problem = PatternProblem.from_data(X, y)
    signs = SignRows(np.array([1.0, -1.0]), names=[])
    assert applies(encode(problem, BoxMargin(), cuts=False))
    assert not applies(encode(problem, BoxMargin(), cuts=False, constraints=(signs,)))
    assert not applies(encode(problem, IntegerWeights(), cuts=False))


@pytest.mark.parametrize("seed", range(6))
def test_flip_descent_keeps_to_both_budgets_of_a_class_budget(seed):
    from sklearn_multiplicity._core import ClassBudget

    truth, problem, enc, baseline, _ = tiny_audit(seed, extra=0)
    fp0, fn0 = float(baseline @ truth.neg), float((~baseline) @ truth.pos)
    budget = ClassBudget(fp0 + 1, fn0 + 2)
    admitted = (truth.fp <= budget.false_positives) & (
        truth.fn <= budget.false_negatives
    )
    flippable = ((truth.D != baseline) & admitted[:, None]).any(0)
    found = flips_from_constants(enc, baseline, budget)
    for u, model in found.items():
        assert flippable[u]
        assert model.false_positives <= budget.false_positives
        assert model.false_negatives <= budget.false_negatives
        assert in_class(enc, model, tolerance=1e-6)
    assert len(found) >= 0.5 * flippable.sum()


@pytest.mark.parametrize("seed", range(6))
def test_fewest_errors_descent_improves_and_never_beats_the_minimum(seed):
    truth, problem, enc, _, _ = tiny_audit(seed, extra=0)
    _, _, b_lo, b_hi = enc.hypothesis.weight_bounds(problem)
    for b in (b_lo, b_hi):
        start = verify(enc, np.zeros(enc.p), b)
        model = Descent(enc, seed=seed).fewest_errors(start)
        assert model is not None  # a constant model is never optimal here
        assert truth.errors.min() <= model.errors < start.errors
        assert model.errors == problem.errors(model.z[: enc.n_train])
        assert in_class(enc, model, tolerance=1e-6)
