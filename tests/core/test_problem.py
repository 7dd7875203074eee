import itertools

import numpy as np
import pytest
from brute_force import dichotomies

from sklearn_multiplicity._core import LevelSet
from sklearn_multiplicity._core._hypothesis import BoxMargin, IntegerWeights
from sklearn_multiplicity._core._problem import (
    PatternProblem,
    affinely_independent_columns,
    distinct_rows,
    weight_unit,
)
from sklearn_multiplicity._mip import IdentitySeparator, _formulations, encode
from sklearn_multiplicity._mip._cuts import affine_identities
from sklearn_multiplicity.backends import get_backend


def test_compression_counts_weights_per_pattern():
    X = np.array([[0, 1], [0, 1], [1, 0], [0, 1], [1, 1]], dtype=float)
    y = np.array([1, 0, 1, 1, 0])
    w = np.array([1.0, 2.0, 3.0, 0.5, 0.0])  # the last row has no weight
    prob = PatternProblem.from_data(X, y, w)
    assert prob.n_patterns == 2
    np.testing.assert_array_equal(prob.patterns, [[0, 1], [1, 0]])
    np.testing.assert_allclose(prob.positive_weight, [1.5, 3.0])
    np.testing.assert_allclose(prob.negative_weight, [2.0, 0.0])
    assert prob.unavoidable_errors == 1.5
    assert prob.inverse[-1] == -1
    assert prob.total_weight == 6.5
    assert not prob.weights_are_integral


def test_two_labels_are_the_problem_of_two_classes():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 3, size=(40, 2)).astype(float)
    y = rng.integers(0, 2, 40)
    w = rng.uniform(0, 2, 40)
    prob = PatternProblem.from_data(X, y, w)
    np.testing.assert_array_equal(prob.classes, [0, 1])
    np.testing.assert_array_equal(prob.counts[:, 0], prob.negative_weight)
    np.testing.assert_array_equal(prob.counts[:, 1], prob.positive_weight)
    z = rng.integers(0, 2, (3, prob.n_patterns))
    np.testing.assert_allclose(prob.errors(z), prob.label_errors(z).sum(axis=1))
    minority = np.minimum(prob.positive_weight, prob.negative_weight).sum()
    assert prob.unavoidable_errors == minority
    three = PatternProblem.from_data(X, rng.integers(0, 3, 40))
    with pytest.raises(ValueError, match="3 labels has no positives"):
        _ = three.positive_weight


def test_redundant_columns_are_dropped_and_scores_preserved():
    rng = np.random.default_rng(0)
    group = rng.integers(0, 3, size=30)
    X = np.column_stack([np.eye(3)[group], rng.integers(0, 4, 30), np.full(30, 7.0)])
    kept = affinely_independent_columns(np.unique(X, axis=0))
    assert kept.size == 3  # two dummies + the count; constant and one dummy go
    prob = PatternProblem.from_data(X, (group == 1).astype(int))
    coef, intercept = rng.normal(size=5), 0.3
    w, b = prob.from_original(coef, intercept)
    back_coef, back_intercept = prob.to_original(w, b)
    np.testing.assert_allclose(
        prob.patterns @ back_coef + back_intercept, prob.patterns @ coef + intercept
    )


def test_almost_collinear_columns_are_kept():
    # Only exact affine combinations are dropped: a 1e-6 deviation is data.
    X = np.array([[0, 0, 0], [1, 0, 1], [0, 1, 1], [1, 1, 2 + 1e-6]], dtype=float)
    assert affinely_independent_columns(X).size == 3
    exact = X.copy()
    exact[3, 2] = 2.0
    assert affinely_independent_columns(exact).size == 2


def test_affine_identities_hold_and_are_valid_for_all_dichotomies():
    cube = np.array(list(itertools.product([0, 1], repeat=3)), dtype=float)
    quads = affine_identities(cube)
    assert quads.shape[0] > 0
    sums_left = cube[quads[:, 0]] + cube[quads[:, 1]]
    sums_right = cube[quads[:, 2]] + cube[quads[:, 3]]
    np.testing.assert_array_equal(sums_left, sums_right)
    for labels in dichotomies(cube):
        z = labels.astype(int)
        value = z[quads[:, 0]] + z[quads[:, 1]] - z[quads[:, 2]] - z[quads[:, 3]]
        assert np.all(np.abs(value) <= 1)


def test_no_identities_on_fractional_data():
    X = np.array([[0.5, 0.0], [1.0, 0.5], [0.0, 1.0], [0.5, 0.5]])
    assert affine_identities(X).shape == (0, 4)


@pytest.mark.parametrize("hypothesis", [BoxMargin(1e-3), IntegerWeights(5)])
def test_every_model_of_the_class_is_a_solution(hypothesis):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 3, size=(25, 3)).astype(float)
    y = rng.integers(0, 2, size=25)
    prob = PatternProblem.from_data(X, y)
    enc = encode(prob, hypothesis)
    mip = _formulations.min_error(enc)
    for _ in range(20):
        w, b = rng.normal(size=enc.p), rng.normal()
        fitted = hypothesis.fit_model(prob, w, b)
        if fitted is None:
            continue
        x = enc.encode(*fitted)
        assert mip.max_violation(x) <= 1e-9
        z = x[enc.z_offset :].astype(bool)
        assert mip.evaluate(x) == prob.errors(z)


def test_formulations_emit_solver_neutral_mips():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    prob = PatternProblem.from_data(X, [0, 1, 1, 0])
    enc = encode(prob, BoxMargin(1e-3))
    flip = _formulations.flip(enc, 2, 0, budget=3)
    assert flip.var_lower[enc.z_offset + 2] == flip.var_upper[enc.z_offset + 2] == 0
    assert flip.n_rows == enc.A.shape[0] + 1
    disagree = _formulations.max_disagreement(enc, np.array([0, 1, 1, 1], bool), 2)
    assert disagree.maximize
    x = enc.encode(np.zeros(enc.p), -1.0)  # everybody negative
    assert disagree.evaluate(x) == 3  # disagrees with the three positives


def test_disagreement_mips_branch_on_the_heaviest_patterns_first():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=float)
    # Pattern weights 1, 3, 2, 4 (repeated rows).
    rows = np.repeat(np.arange(4), [1, 3, 2, 4])
    prob = PatternProblem.from_data(X[rows], [0] + [1] * 5 + [0] * 4)
    np.testing.assert_array_equal(np.sort(prob.pattern_weight), [1, 2, 3, 4])
    enc = encode(prob, BoxMargin(1e-3))
    for weights in (None, np.array([0.0, 5, 0, 1])):
        mip = _formulations.max_disagreement(enc, np.zeros(4, bool), 2, weights=weights)
        weights = prob.pattern_weight if weights is None else weights
        z_priority = mip.branching_priority[enc.z_offset :]
        assert np.unique(z_priority).size == 4  # a strict order
        assert np.all(np.diff(weights[np.argsort(-z_priority)]) <= 0)
        assert not mip.branching_priority[: enc.z_offset].any()


def test_distinct_rows_are_those_of_np_unique():
    rng = np.random.default_rng(3)
    for trial in range(50):
        n, d = rng.integers(1, 40), rng.integers(1, 4)
        X = rng.integers(-2, 3, size=(n, d)) * rng.choice([1.0, 0.5, 1e-3], size=d)
        if trial % 2:
            X[X == 0] = -0.0  # equal to 0.0 for np.unique
        patterns, inverse = distinct_rows(X)
        expected, expected_inverse = np.unique(X, axis=0, return_inverse=True)
        np.testing.assert_array_equal(patterns, expected)
        np.testing.assert_array_equal(inverse, expected_inverse.ravel())
    # Keys beyond 2**62 are renumbered on the way (continuous columns).
    X = rng.normal(size=(300, 12))
    X = np.vstack([X, X[::7]])
    patterns, inverse = distinct_rows(X)
    np.testing.assert_array_equal(patterns, np.unique(X, axis=0))
    np.testing.assert_array_equal(patterns[inverse], X)


def test_weight_unit_is_the_gcd_of_whole_weights_else_the_lightest():
    assert weight_unit([300.0, 200.0, 0.0, 500.0]) == 100.0
    assert weight_unit([1.0, 0.0, 1.0]) == 1.0
    assert weight_unit([0.5, 1.25, 2.0]) == 0.5
    assert weight_unit([0.0, 0.0]) == weight_unit([]) == 1.0
    problem = PatternProblem.from_data(
        np.array([[0.0], [1.0], [1.0]]), [0, 1, 0], [4.0, 6.0, 2.0]
    )
    assert problem.weight_unit == 2.0


def _repeated(X, y, weight, k):
    return (
        np.repeat(X, k, axis=0),
        np.repeat(y, k),
        None if weight is None else np.repeat(weight, k),
    )


def _every_mip(enc, eps_pair=(0.2, 0.3)):
    """One MIP of every formulation, at budgets of the same tolerances."""
    problem = enc.problem
    z0 = problem.positive_weight >= problem.negative_weight
    level_set = LevelSet.from_problem(problem, problem.errors(z0), z0)
    budget, pair = level_set.budget(0.2), level_set.budget(eps_pair)
    zero_one = (np.arange(problem.n_patterns) % 2).astype(float)
    return [
        _formulations.min_error(enc),
        _formulations.flip(enc, 1, 0, budget=budget),
        _formulations.flip(enc, 2, 1, budget=pair),
        _formulations.score_flip(enc, enc.X[0], positive=True, budget=budget),
        _formulations.max_disagreement(enc, z0, budget),
        _formulations.max_disagreement(enc, z0, pair),
        _formulations.max_disagreement(enc, z0, budget, weights=zero_one),
        _formulations.coefficient(enc, 0, budget, maximize=True),
        _formulations.sign_test(enc, 1, budget, nonpositive=True),
    ]


@pytest.mark.parametrize(
    "weight", [None, np.array([1.0, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3])]
)
def test_repeated_data_give_the_same_solver_inputs(weight):
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(12, 3)).astype(float)
    y = rng.integers(0, 2, size=12)
    once = encode(PatternProblem.from_data(X, y, weight), BoxMargin(1e-3))
    k = 7
    many = encode(PatternProblem.from_data(*_repeated(X, y, weight, k)), BoxMargin())
    assert many.unit == k * once.unit
    np.testing.assert_array_equal(many.positive_weight, once.positive_weight)
    np.testing.assert_array_equal(many.negative_weight, once.negative_weight)
    # The 0/1 disagreement weights, and a weight, count as they are.
    ratios = [k] * 6 + [1, 1, k]
    mips = zip(_every_mip(once), _every_mip(many), ratios, strict=True)
    for a, b, ratio in mips:
        assert (a.A != b.A).nnz == 0, a.name
        for attr in ("objective", "row_lower", "row_upper", "var_lower", "var_upper"):
            np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
        assert a.objective_offset == b.objective_offset
        assert a.objective_is_integral == b.objective_is_integral
        np.testing.assert_array_equal(a.branching_priority, b.branching_priority)
        assert b.objective_unit == ratio * a.objective_unit


def test_fractional_weights_count_in_the_lightest_and_still_verify():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [2, 1]], dtype=float)
    y = np.array([0, 1, 1, 0, 1])
    weight = np.array([0.25, 0.5, 1.25, 0.75, 2.0])
    problem = PatternProblem.from_data(X, y, weight)
    enc = encode(problem, BoxMargin(1e-3))
    assert enc.unit == 0.25
    np.testing.assert_allclose(enc.positive_weight * enc.unit, problem.positive_weight)
    mip = _formulations.min_error(enc)
    for w, b in [(np.zeros(enc.p), -1.0), (np.array([0.5, -0.5]), 0.1)]:
        x = enc.encode(w, b)
        z = x[enc.z_offset :].astype(bool)
        assert mip.objective_unit * mip.evaluate(x) == pytest.approx(problem.errors(z))
    # The budget row admits exactly the errors within the budget.
    budget = 1.0
    flip = _formulations.flip(enc, 0, 1, budget=budget)
    offset = enc.error_objective()[1]
    assert (flip.row_upper[-1] + offset) * enc.unit == pytest.approx(budget, abs=1e-8)


def test_solvers_report_in_weights():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 3, size=(15, 2)).astype(float)
    y = rng.integers(0, 2, size=15)
    k = 5
    once = encode(PatternProblem.from_data(X, y), BoxMargin(1e-3))
    many = encode(PatternProblem.from_data(*_repeated(X, y, None, k)), BoxMargin())
    backend = get_backend("highs")
    for a, b in zip(_every_mip(once), _every_mip(many), strict=True):
        if a.kind == "coefficient":
            continue
        first, second = backend.solve(a), backend.solve(b)
        assert first.status == second.status, a.name
        ratio = b.objective_unit / a.objective_unit
        if first.has_solution:
            assert second.objective == pytest.approx(ratio * first.objective)
        if np.isfinite(first.bound):
            assert second.bound == pytest.approx(ratio * first.bound)
        lp_once = IdentitySeparator(once).relax(a).bound
        lp_many = IdentitySeparator(many).relax(b).bound
        assert lp_many == pytest.approx(ratio * lp_once)
