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
from sklearn_multiplicity._engine.binary._min_error import solve_min_error
from sklearn_multiplicity._mip import encode
from sklearn_multiplicity._mip._infeasible import error_lower_bound
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


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_without_the_mip_the_bound_comes_from_infeasible_sets(seed):
    from brute_force import Truth
    from faulty_backends import NoSolutionBackend

    X, y = random_tiny(seed, n=14, d=2, levels=3, noise=0.5)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    enc = encode(problem, BoxMargin(), cuts=False)
    result = solve_min_error(enc, NoSolutionBackend(), Deadline(60))
    truth = Truth(X, y).min_error
    # The MIP proved nothing; the sets still do, rounded up to whole errors.
    assert result.result.status == "no_solution"
    assert result.lower_bound == np.ceil(error_lower_bound(enc)[0] - 1e-6)
    assert problem.unavoidable_errors <= result.lower_bound <= truth
    assert result.lower_bound <= result.model.errors


@pytest.mark.parametrize("solver", ["highs", "scip"])
def test_progress_hears_a_band_that_only_narrows_to_the_certified_one(solver):
    from brute_force import Truth

    X, y = random_tiny(1, n=14, d=2, levels=3, noise=0.5)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    enc = encode(problem, BoxMargin(), cuts=False)
    heard = []
    result = solve_min_error(
        enc,
        get_backend(solver, time_limit=20),
        Deadline(30),
        progress=lambda lower, upper: heard.append((lower, upper)),
    )
    truth = Truth(X, y).min_error
    lower, upper = np.array(heard).T
    # Every reported end brackets the true minimum (the solver's incumbent
    # may be in the class's relaxation, so only the lower ends are proofs).
    assert np.all(lower[~np.isnan(lower)] <= truth + 1e-9)
    assert np.all(upper[~np.isnan(upper)] >= truth - 1e-9)
    assert heard[-1] == (result.lower_bound, result.model.errors)
