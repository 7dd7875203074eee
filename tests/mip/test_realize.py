"""The max-margin LP decides which labellings the continuous class realises."""

import itertools

import numpy as np
import pytest
from brute_force import random_tiny, separable

from sklearn_multiplicity._core import BoxMargin, PatternProblem
from sklearn_multiplicity._mip import encode, max_margin


@pytest.mark.parametrize("seed", range(5))
def test_max_margin_agrees_with_separability(seed):
    X, y = random_tiny(seed, n=7, d=2, levels=3)
    problem = PatternProblem.from_data(X, y)
    enc = encode(problem, BoxMargin(margin=1e-3), cuts=False)
    points = problem.patterns
    for bits in itertools.product([False, True], repeat=len(points)):
        z = np.array(bits)
        w, b, delta = max_margin(enc, z)
        if separable(points, z):
            assert delta > 0
            np.testing.assert_array_equal(enc.X[: enc.n_train] @ w + b > 0, z)
        else:
            assert delta <= 1e-9
