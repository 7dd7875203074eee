"""The descent: exact line searches of the 0-1 loss, checked against direct
evaluation and enumeration of every linear dichotomy."""

import functools

import numpy as np
import pytest
from brute_force import Truth, random_tiny

from sklearn_multiplicity._core._hypothesis import BoxMargin
from sklearn_multiplicity._core._models import in_class, verify
from sklearn_multiplicity._core._problem import PatternProblem
from sklearn_multiplicity._engine.binary._state import AuditState
from sklearn_multiplicity._engine.binary.search._descent import (
    Descent,
    applies,
    flip_patterns,
    line_search,
)
from sklearn_multiplicity._engine.timing._scheduling import Deadline
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
def test_flip_passes_lower_the_fewest_errors_and_flip_only_flippable_patterns(seed):
    truth, problem, enc, baseline, budget = tiny_audit(seed, extra=2)
    flippable = ((truth.D != baseline) & (truth.errors <= budget)[:, None]).any(0)
    # Only the constant model with the majority's label is known: the
    # passes must first find models of fewer errors to start from.
    _, _, b_lo, b_hi = enc.hypothesis.weight_bounds(problem)
    majority = problem.positive_weight.sum() >= problem.negative_weight.sum()
    state = AuditState(enc, baseline, 0.0)
    constant = state.add_model(verify(enc, np.zeros(enc.p), b_hi if majority else b_lo))
    patterns = np.arange(problem.n_patterns)
    flip_patterns(state, patterns, budget, Deadline(None))
    fewest = min(model.errors for model in state.pool.models)
    assert fewest < constant.errors
    assert fewest >= truth.errors.min()
    found = state.flippable(budget)
    assert not (found & ~flippable).any()
    assert found.sum() >= 0.5 * flippable.sum() > 0
    for model in state.pool.models:
        assert in_class(enc, model, tolerance=1e-6)
        assert model.errors == problem.errors(model.z[: enc.n_train])


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


def test_descents_search_continuous_classes_only():
    from sklearn_multiplicity._core._hypothesis import IntegerWeights

    X, y = random_tiny(0, n=10, d=2, levels=5, noise=0.3)
    problem = PatternProblem.from_data(X, y)
    signs = SignRows(np.array([1.0, -1.0]), names=[])
    rates = _rate_gap(problem, y, np.arange(10) % 2, 0.2)
    assert applies(encode(problem, BoxMargin(), cuts=False))
    for constraints in [(signs,), (rates,), (signs, rates)]:
        assert applies(
            encode(problem, BoxMargin(), cuts=False, constraints=constraints)
        )
    assert not applies(encode(problem, IntegerWeights(), cuts=False))


def _rate_gap(problem, y, groups, max_gap, rate="selection"):
    from sklearn_multiplicity._mip._constraints import ConstraintContext
    from sklearn_multiplicity.constraints import GroupRateGap

    context = ConstraintContext(problem, np.asarray(y), np.ones(len(y)), groups)
    return GroupRateGap(groups, rate=rate, max_gap=max_gap).bind(context)


def test_line_search_cuts_split_the_intervals_without_changing_totals():
    scores = np.array([1.0, -2.0, 0.5])
    delta = np.array([1.0, 1.0, -1.0])
    values = np.eye(3)
    plain_points, plain = line_search(scores, delta, values, 0 * values)
    points, totals = line_search(scores, delta, values, 0 * values, cuts=[0.25, 7.0])
    assert points.size == plain_points.size + 2
    # Breakpoints -1, 0.5 and 2, cuts 0.25 and 7: one point in each interval.
    breaks = np.array([-1.0, 0.25, 0.5, 2.0, 7.0])
    np.testing.assert_array_equal(np.searchsorted(breaks, points), np.arange(6))
    for point, total in zip(points, totals, strict=True):
        positive = scores + point * delta > 0
        np.testing.assert_allclose(total, positive.astype(float))


@pytest.mark.parametrize("seed", range(5))
def test_steps_keep_exactly_the_fixed_signs(seed):
    rng = np.random.default_rng(seed)
    X, y = random_tiny(seed, n=10, d=3, levels=5, noise=0.3)
    problem = PatternProblem.from_data(X, y)
    signs = SignRows(np.array([1.0, -1.0, np.nan]), names=[])
    descent = Descent(encode(problem, BoxMargin(), cuts=False, constraints=(signs,)))
    for _ in range(20):
        w = np.array([rng.random(), -rng.random(), rng.normal()])
        dw = rng.normal(size=3)
        low, high = descent._steps(w, dw)
        assert low < 0 < high
        for t in (low, high):
            if np.isfinite(t):
                inside = w + (t - np.sign(t) * 1e-9) * dw
                outside = w + (t + np.sign(t) * 1e-3) * dw
                assert inside[0] >= 0 and inside[1] <= 0
                assert outside[0] < 0 or outside[1] > 0


@pytest.mark.parametrize("rate", ["selection", "fpr", "fnr"])
def test_rate_excess_of_counts_is_zero_exactly_for_labellings_within_the_gap(rate):
    rng = np.random.default_rng(0)
    X, y = random_tiny(3, n=12, d=3, levels=6, noise=0.3)
    problem = PatternProblem.from_data(X, y)
    rows = _rate_gap(problem, y, np.arange(12) % 3, 0.25, rate=rate)
    counted = rows.counted_if_positive(problem.n_patterns)
    z = rng.random((200, problem.n_patterns)) < 0.5
    excess = rows.excess_of_counts(z.astype(float) @ counted)
    for labels, over in zip(z, excess, strict=True):
        rates = rows.rates(labels)
        spread = rates.max() - rates.min()
        assert (over == 0) == (spread <= 0.25 + 1e-9)
        assert over == pytest.approx(max(0.0, spread - 0.25), abs=1e-9)


@functools.lru_cache
def constrained_truth(seed, max_gap):
    """Tiny data, weight 0 non-negative, two groups whose selection rates
    stay within ``max_gap``: the enumerated truth and the bound rows."""
    X, y = random_tiny(seed, n=10, d=2, levels=5, noise=0.3)
    groups = np.arange(10) % 2
    truth = Truth(X, y, signs={0: 1}, groups=groups)
    rates = truth.rates("selection")
    truth.keep(rates.max(axis=1) - rates.min(axis=1) <= max_gap + 1e-9)
    problem = PatternProblem.from_data(X, y)
    constraints = (
        SignRows(np.array([1.0, np.nan]), names=[]),
        _rate_gap(problem, y, groups, max_gap),
    )
    return truth, problem, constraints


def sound_flips(truth, problem, enc):
    """The descent's flips from constants (:func:`flips_from_constants`) at
    two errors over the enumerated minimum, each checked against the truth
    and the class (constraints included), and the flippable patterns."""
    baseline = truth.D[np.argmin(truth.errors)]
    budget = float(problem.errors(baseline)) + 2
    flippable = ((truth.D != baseline) & (truth.errors <= budget)[:, None]).any(0)
    found = flips_from_constants(enc, baseline, budget)
    for u, model in found.items():
        assert flippable[u]
        assert in_class(enc, model, tolerance=1e-6)
        assert model.errors <= budget
    return found, flippable


@pytest.mark.parametrize("max_gap", [0.2, 0.4])
@pytest.mark.parametrize("seed", range(6))
def test_flip_descent_keeps_to_signs_and_group_rates(seed, max_gap):
    truth, problem, constraints = constrained_truth(seed, max_gap)
    enc = encode(problem, BoxMargin(), cuts=False, constraints=constraints)
    found, flippable = sound_flips(truth, problem, enc)
    # Descents blind to the constraints reach 4 to 7 of 8 or 9 here.
    assert len(found) >= 0.75 * flippable.sum() > 0


@pytest.mark.parametrize("seed", range(6))
def test_fewest_errors_descent_under_constraints_never_beats_their_minimum(seed):
    truth, problem, constraints = constrained_truth(seed, 0.2)
    enc = encode(problem, BoxMargin(), cuts=False, constraints=constraints)
    _, _, b_lo, b_hi = enc.hypothesis.weight_bounds(problem)
    improved = 0
    for b in (b_lo, b_hi):
        start = verify(enc, np.zeros(enc.p), b)
        model = Descent(enc, seed=seed).fewest_errors(start)
        if model is not None:
            assert truth.errors.min() <= model.errors < start.errors
            assert in_class(enc, model, tolerance=1e-6)
            improved += 1
    assert improved > 0


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


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("seed", range(4))
def test_flip_descent_keeps_to_a_sparsity_bound(seed, k):
    from sklearn_multiplicity._mip._constraints import NonzeroRows

    X, y = random_tiny(seed, n=9, d=3, levels=4, noise=0.3)
    truth = Truth(X, y, max_nonzero=k)
    problem = PatternProblem.from_data(X, y)
    enc = encode(problem, BoxMargin(), cuts=False, constraints=(NonzeroRows(k, p=3),))
    found, flippable = sound_flips(truth, problem, enc)
    assert all(np.count_nonzero(model.w) <= k for model in found.values())
    assert len(found) >= 0.5 * flippable.sum() > 0


def test_sparsity_moves_weights_outside_the_support_only_while_it_has_room():
    from sklearn_multiplicity._mip._constraints import NonzeroRows

    rows = NonzeroRows(2, p=4)
    dw = np.array([0.1, -3.0, 0.2, 0.5])
    w = np.array([0.5, 0.0, 0.0, 0.0])
    # One free place: the largest new move is kept.
    np.testing.assert_array_equal(rows.line_direction(w, dw), [0.1, -3.0, 0.0, 0.0])
    w = np.array([0.5, 0.0, -1.0, 0.0])
    np.testing.assert_array_equal(rows.line_direction(w, dw), [0.1, 0.0, 0.2, 0.0])
    w = np.zeros(4)
    np.testing.assert_array_equal(rows.line_direction(w, dw), [0.0, -3.0, 0.0, 0.5])
