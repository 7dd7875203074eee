import itertools

import numpy as np
import pytest
from brute_force import dichotomies

from sklearn_multiplicity._core._hypothesis import BoxMargin, IntegerWeights
from sklearn_multiplicity._core._problem import (
    PatternProblem,
    affinely_independent_columns,
)
from sklearn_multiplicity._mip import _formulations, encode
from sklearn_multiplicity._mip._cuts import affine_identities


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
