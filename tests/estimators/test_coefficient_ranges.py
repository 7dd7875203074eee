"""Coefficient ranges over a level set, against enumeration.

For every dichotomy of the level set, an LP gives the least and largest
weight of a model of the continuous class predicting it
(``brute_force.weight_range``); the range is their minimum and maximum.
"""

import math

import numpy as np
import pytest
from brute_force import baseline_truth, random_tiny, weight_range
from test_per_class import StoppedBackend

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity.constraints import Signs


def seeds(n, fast):
    """``range(n)``, only the first ``fast`` in the default run (the others
    are marked slow)."""
    return [
        i if i < fast else pytest.param(i, marks=pytest.mark.slow) for i in range(n)
    ]


def enumerated_ranges(truth, S, signs=None):
    """Per feature, the least and largest weight over the dichotomies ``S``."""
    d = truth.points.shape[1]
    out = []
    for j in range(d):
        ends = []
        for maximize in (False, True):
            values = [
                weight_range(truth.points, z, j, maximize, signs=signs) for z in S
            ]
            values = [v for v in values if v is not None]
            ends.append(max(values) if maximize else min(values))
        out.append(ends)
    return np.array(out)


def expected_sign(low, high):
    if low >= -1e-9:
        return "non-negative"
    if high <= 1e-9:
        return "non-positive"
    return "either"


@pytest.mark.parametrize("seed", seeds(4, 2))
def test_ranges_match_enumeration(seed):
    X, y = random_tiny(seed + 30, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(auditor, X, y)
    for eps in [0.0, 0.2]:
        expected = enumerated_ranges(truth, truth.level_set(err0, eps))
        ranges = auditor.coefficient_ranges(eps)
        assert ranges["certified"].all()
        np.testing.assert_allclose(ranges[["min", "max"]], expected, atol=1e-6)
        np.testing.assert_allclose(ranges["min_lower"], expected[:, 0], atol=1e-6)
        np.testing.assert_allclose(ranges["max_upper"], expected[:, 1], atol=1e-6)
        assert list(ranges["sign"]) == [expected_sign(*e) for e in expected]
        scale = X.max(axis=0) - X.min(axis=0)
        for j, row in enumerate(ranges.itertuples()):
            for model, end in [(row.min_model, row.min), (row.max_model, row.max)]:
                # The attaining models are of the level set, and attain the end
                # (in the documented normalisation: features scaled to [0, 1]).
                assert model.coef_[0, j] * scale[j] == pytest.approx(end, abs=1e-9)
                assert model.n_errors_ <= auditor.error_budget(eps) + 1e-9
                z = model.predict(truth.points) == 1
                assert (truth.level_set(err0, eps) == z).all(axis=1).any()


def test_ranges_per_class_and_under_signs():
    X, y = random_tiny(33, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(constraints=[Signs({0: 1})], time_limit=20)
    auditor.fit(X, y)
    truth, z0, _ = baseline_truth(auditor, X, y, signs={0: 1})
    S = truth.class_level_set(z0, 0.2, 0.4)
    expected = enumerated_ranges(truth, S, signs={0: 1})
    ranges = auditor.coefficient_ranges({0: 0.2, 1: 0.4})
    np.testing.assert_allclose(ranges[["min", "max"]], expected, atol=1e-6)
    assert ranges["sign"][0] == "non-negative"


def test_stopped_mips_leave_honest_ranges():
    X, y = random_tiny(31, n=9, d=2, levels=3)
    reference = MultiplicityAuditor(time_limit=20).fit(X, y)
    truth, z0, err0 = baseline_truth(reference, X, y)
    expected = enumerated_ranges(truth, truth.level_set(err0, 0.2))
    for stopped in ["min_weight", "max_weight"]:
        auditor = MultiplicityAuditor(
            solver=StoppedBackend(only=stopped), time_limit=20, cuts=False
        ).fit(X, y)
        ranges = auditor.coefficient_ranges(0.2)
        assert not ranges["certified"].all()
        assert np.all(ranges["min_lower"] <= expected[:, 0] + 1e-6)
        assert np.all(expected[:, 0] <= ranges["min_upper"] + 1e-6)
        assert np.all(ranges["max_lower"] <= expected[:, 1] + 1e-6)
        assert np.all(expected[:, 1] <= ranges["max_upper"] + 1e-6)
        assert not math.isnan(ranges["min"].sum())
