"""Infeasible subsets and their error bound, against enumeration."""

import numpy as np
import pytest
from brute_force import Truth, random_tiny
from scipy.optimize import linprog

from sklearn_multiplicity._core._hypothesis import BoxMargin
from sklearn_multiplicity._core._problem import PatternProblem
from sklearn_multiplicity._mip import encode
from sklearn_multiplicity._mip._infeasible import (
    FarkasSystem,
    error_lower_bound,
    hitting_bound,
    majority_labels,
)


def realisable_in_class(enc, patterns, labels):
    """The class's own definition as an LP: margin on each pattern, weight box."""
    X = enc.X[patterns]
    sign = np.where(labels[patterns], 1.0, -1.0)
    margin = enc.hypothesis.margin
    w_lo, w_hi, b_lo, b_hi = enc.hypothesis.weight_bounds(enc.problem)
    A = -sign[:, None] * np.column_stack([X, np.ones(len(X))])
    result = linprog(
        np.zeros(X.shape[1] + 1),
        A_ub=A,
        b_ub=-margin * np.ones(len(X)),
        bounds=[*zip(w_lo, w_hi, strict=True), (b_lo, b_hi)],
        method="highs",
    )
    return result.status == 0


def setting(seed, n=9, d=2, noise=0.4):
    X, y = random_tiny(seed, n=n, d=d, levels=3, noise=noise)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    return X, y, encode(problem, BoxMargin(), cuts=False)


@pytest.mark.parametrize("seed", range(12))
def test_no_subset_cuts_off_a_realisable_labelling(seed):
    X, y, enc = setting(seed)
    bound, subsets, labels = error_lower_bound(enc)
    truth = Truth(X, y)
    # Truth's points are sorted like the problem's patterns.
    np.testing.assert_array_equal(truth.points, enc.problem.patterns)
    for subset in subsets:
        assert not realisable_in_class(enc, subset, labels)
        # Every linear dichotomy labels some pattern of the set otherwise.
        disagrees = truth.D[:, subset] != labels[subset]
        assert disagrees.any(axis=1).all()
    assert bound <= truth.min_error + 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_the_bound_is_at_least_the_unavoidable_errors_and_one_per_disjoint_set(seed):
    X, y, enc = setting(seed, n=14, noise=0.5)
    bound, subsets, labels = error_lower_bound(enc)
    _, costs = majority_labels(enc.problem)
    unavoidable = enc.problem.unavoidable_errors
    assert bound >= unavoidable - 1e-9
    # The first sets of the greedy packing are disjoint: each costs its
    # cheapest pattern at least (the hitting set LP is no smaller).
    disjoint, used = [], set()
    for subset in subsets:
        if used.isdisjoint(subset.tolist()):
            disjoint.append(subset)
            used |= set(subset.tolist())
    packing = sum(costs[s].min() for s in disjoint)
    assert bound >= unavoidable + packing * (1 - 1e-5) - 1e-9
    assert bound <= Truth(X, y).min_error + 1e-9


def test_a_realisable_labelling_has_no_certificate():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([0, 1, 1, 1])
    problem = PatternProblem.from_data(X, y, np.ones(4))
    enc = encode(problem, BoxMargin(), cuts=False)
    labels, _ = majority_labels(problem)
    system = FarkasSystem(enc, labels)
    assert system.certificate(np.arange(4)) is None
    # A made-up multiplier proves nothing.
    assert not system.holds(np.arange(4), np.ones(4))
    assert error_lower_bound(enc)[0] == 0


def test_xor_is_one_error_at_least():
    # The paper's Figure 1 shape: XOR cannot be realised, one error at least.
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    y = np.array([0, 0, 1, 1])
    problem = PatternProblem.from_data(X, y, np.full(4, 25.0))
    enc = encode(problem, BoxMargin(), cuts=False)
    bound, subsets, labels = error_lower_bound(enc)
    assert len(subsets) == 1
    assert sorted(subsets[0].tolist()) == [0, 1, 2, 3]
    assert bound == pytest.approx(25.0, rel=1e-5)
    assert bound <= 25.0


def test_hitting_bound_is_the_lp_of_the_cheapest_hitting_set():
    subsets = [np.array([0, 1]), np.array([1, 2]), np.array([0, 2])]
    # Each pattern costs 1: the LP puts 1/2 on each (value 1.5, integer 2).
    assert hitting_bound(subsets, np.ones(3)) == pytest.approx(1.5, rel=1e-5)
    assert hitting_bound([], np.ones(3)) == 0.0
