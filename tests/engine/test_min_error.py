"""The warm start of the minimum-error MIP when logistic regression sits too
close to a pattern for the class's margin."""

import numpy as np
import pytest
from brute_force import random_tiny

from sklearn_multiplicity._core import logistic_fit, logistic_model, verify
from sklearn_multiplicity._core._hypothesis import BoxMargin
from sklearn_multiplicity._core._models import in_class
from sklearn_multiplicity._core._problem import PatternProblem
from sklearn_multiplicity._engine import Deadline
from sklearn_multiplicity._engine._min_error import solve_min_error
from sklearn_multiplicity._mip import encode
from sklearn_multiplicity.backends import get_backend

REPAIRED = {"logistic regression (max margin)", "logistic threshold"}


@pytest.mark.parametrize("seed", range(4))
def test_a_logistic_fit_outside_the_margin_still_warm_starts_the_mip(seed):
    X, y = random_tiny(seed, n=60, d=3, levels=6, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    enc = encode(problem, BoxMargin(margin=0.05), cuts=False)
    assert logistic_model(enc) is None  # scaling alone leaves a pattern too close
    result = solve_min_error(enc, get_backend("highs", time_limit=10), Deadline(20))
    repaired = [m for m in result.candidates if m.source in REPAIRED]
    assert len(repaired) == 1
    model = repaired[0]
    assert in_class(enc, model)
    assert model.errors == verify(enc, model.w, model.b).errors
    constant = min(
        m.errors for m in result.candidates if m.source.startswith("constant")
    )
    assert model.errors < constant
    assert result.warm_start is model
    if model.source == "logistic regression (max margin)":
        # The same labelling as the logistic regression, with the margin.
        np.testing.assert_array_equal(model.z, verify(enc, *logistic_fit(enc)).z)
    assert result.model.errors <= model.errors
