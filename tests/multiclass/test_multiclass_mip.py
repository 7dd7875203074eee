"""The K-class MIPs against enumeration, solved by HiGHS and SCIP."""

import numpy as np
import pytest
from brute_force_multiclass import tiny_case

from sklearn_multiplicity._core import Status
from sklearn_multiplicity._core._hypothesis import MulticlassBoxMargin, predict
from sklearn_multiplicity._core._problem import PatternProblem as MulticlassProblem
from sklearn_multiplicity._mip import _multiclass as formulations
from sklearn_multiplicity.backends import get_backend

SEEDS = range(4)


def _setup(seed):
    X, y, truth = tiny_case(seed)
    problem = MulticlassProblem.from_data(X, y)
    np.testing.assert_array_equal(problem.patterns, truth.points)
    return problem, formulations.encode(problem, MulticlassBoxMargin()), truth


def _labels(enc, result):
    """Labels recomputed from the solution's coefficients, checked against
    the solver's ``z``."""
    W, b, z_labels = enc.decode(result.x)
    labels = predict(W, b, enc.X)
    np.testing.assert_array_equal(labels, z_labels)
    return labels


@pytest.mark.parametrize("solver", ["highs", "scip"])
@pytest.mark.parametrize("seed", SEEDS)
def test_formulations_match_enumeration(seed, solver):
    problem, enc, truth = _setup(seed)
    backend = get_backend(solver, time_limit=30, threads=1)
    result = backend.solve(formulations.min_error(enc))
    assert result.status == Status.OPTIMAL
    assert result.objective == result.bound == truth.min_error
    best = _labels(enc, result)
    assert problem.errors(best) == truth.min_error

    for u in range(problem.n_patterns):
        label = best[u]
        flipped = backend.solve(formulations.flip(enc, u, label))
        fewest = truth.fewest_flip_errors(u, label)
        assert flipped.objective == flipped.bound == fewest, u
        assert _labels(enc, flipped)[u] != label
        # Within fewer errors than that, no model changes the pattern.
        below = backend.solve(formulations.flip(enc, u, label, max_errors=fewest - 1))
        assert below.status == Status.INFEASIBLE

    for budget in (0, 1, 2):
        ceiling = truth.min_error + budget
        result = backend.solve(formulations.max_disagreement(enc, best, ceiling))
        expected = truth.discrepancy(best, budget) * truth.total
        assert result.status == Status.OPTIMAL
        assert result.objective == pytest.approx(expected)
        labels = _labels(enc, result)
        assert problem.errors(labels) <= ceiling
        assert problem.pattern_weight[labels != best].sum() == pytest.approx(expected)


def test_weighted_disagreement_counts_in_its_own_unit():
    X, y, truth = tiny_case(1)
    weight = 1.0 + (np.arange(len(y)) % 3)
    problem = MulticlassProblem.from_data(X, y, weight)
    enc = formulations.encode(problem, MulticlassBoxMargin())
    backend = get_backend("highs", time_limit=30, threads=1)
    best = _labels(enc, backend.solve(formulations.min_error(enc)))
    weights = np.where(np.arange(problem.n_patterns) % 2, 0.5, 1.5)
    ceiling = problem.errors(best) + 2
    mip = formulations.max_disagreement(enc, best, ceiling, weights=weights)
    assert mip.objective_unit == 0.5
    result = backend.solve(mip)
    labels = _labels(enc, result)
    assert result.objective == pytest.approx(weights[labels != best].sum())
