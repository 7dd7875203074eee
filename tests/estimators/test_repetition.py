"""Repeating the data, or scaling its weights, changes no share of the audit.

The MIPs count weight in the problem's unit (the gcd of whole weights, else
the lightest weight), so ``k`` copies of every row give the solvers the same
numbers as one, and every share comes back the same; fractional weights
are checked against enumeration.
"""

import numpy as np
import pandas as pd
import pytest
from brute_force import baseline_truth, random_tiny
from brute_force_multiclass import tiny_case

from sklearn_multiplicity import MultiplicityAuditor

EPSILONS = [0.0, 0.1, 0.25]


def _audit(X, y, weight=None):
    """The audit around the 0-1 optimal baseline."""
    auditor = MultiplicityAuditor(time_limit=20, random_state=0)
    return auditor.fit(X, y, sample_weight=weight)


@pytest.mark.parametrize("seed", [0, 3])
def test_repeated_rows_give_the_same_audit(seed):
    X, y = random_tiny(seed, n=9, d=2, levels=3)
    k = 40
    once, many = _audit(X, y), _audit(np.repeat(X, k, axis=0), np.repeat(y, k))
    assert many.n_patterns_ == once.n_patterns_
    assert many.baseline_error_ == once.baseline_error_
    lower, upper = once.min_error_bounds_
    assert many.min_error_bounds_ == (k * lower, k * upper)
    # A unit k times larger: the solvers see the same numbers.
    assert many.session_.enc.unit == k * once.session_.enc.unit
    truth, z0, err0 = baseline_truth(once, X, y)
    for eps in EPSILONS:
        assert many.ambiguity_bounds(eps) == once.ambiguity_bounds(eps)
        assert many.discrepancy_bounds(eps) == once.discrepancy_bounds(eps)
        assert once.ambiguity_bounds(eps) == pytest.approx(
            (truth.ambiguity(z0, err0, eps),) * 2
        )
        assert once.discrepancy_bounds(eps) == pytest.approx(
            (truth.discrepancy(z0, err0, eps),) * 2
        )


@pytest.mark.parametrize("scale", [1.0, 1e-4, 300.0])
def test_fractional_weights_match_enumeration(scale):
    X, y = random_tiny(21, n=9, d=2, levels=3)
    weight = scale * np.array([0.5, 1.25, 3.0, 0.75, 2.0, 1.5, 0.25, 2.5, 1.0])
    auditor = _audit(X, y, weight)
    assert auditor.session_.enc.unit == pytest.approx(0.25 * scale)
    truth, z0, err0 = baseline_truth(auditor, X, y, weight)
    assert auditor.min_error_bounds_ == pytest.approx((truth.min_error,) * 2)
    many = _audit(np.repeat(X, 3, axis=0), np.repeat(y, 3), np.repeat(weight, 3))
    for eps in EPSILONS:
        assert many.ambiguity_bounds(eps) == pytest.approx(
            auditor.ambiguity_bounds(eps)
        )
        assert many.discrepancy_bounds(eps) == pytest.approx(
            auditor.discrepancy_bounds(eps)
        )
        assert auditor.discrepancy_bounds(eps) == pytest.approx(
            (truth.discrepancy(z0, err0, eps),) * 2
        )
        assert auditor.ambiguity_bounds(eps) == pytest.approx(
            (truth.ambiguity(z0, err0, eps),) * 2
        )


@pytest.mark.parametrize("labels", [2, 3])
def test_repeated_rows_give_the_same_path(labels):
    # Error counts move in steps of the copies: the path of k copies has the
    # steps of the rows, not k times as many.
    if labels == 2:
        X, y = random_tiny(0, n=12)
    else:
        X, y, _ = tiny_case(1)
    k = 1000
    once = _audit(X, y).path(0.3)
    many = _audit(X, y, np.full(len(y), float(k))).path(0.3)
    assert len(many) == len(once) > 1
    np.testing.assert_allclose(many["epsilon"], once["epsilon"])
    np.testing.assert_allclose(many["extra_errors"], k * once["extra_errors"])
    shares = [c for c in once.columns if c.startswith(("ambiguity", "discrepancy"))]
    pd.testing.assert_frame_equal(many[shares], once[shares])
