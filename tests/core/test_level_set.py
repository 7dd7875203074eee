"""The level set, defined once: budgets, membership, the grid of a path."""

import numpy as np
import pytest

from sklearn_multiplicity._core import (
    TOLERANCE,
    BoxMargin,
    LevelSet,
    PatternProblem,
    error_ceiling,
)
from sklearn_multiplicity._mip import _formulations, encode


def test_unit_weights_allow_floor_eps_n_extra_errors():
    level = LevelSet(baseline_errors=10.0, total_weight=100.0, integral=True)
    assert level.budget(0.0) == 10.0
    assert level.budget(0.01) == 11.0
    assert level.budget(0.019) == 11.0  # 1.9 extra errors round down
    assert level.budget(0.07) == 17.0  # 0.07 * 100 is 7.000000000000001
    assert level.budget(1.0) == 110.0


def test_fractional_weights_keep_the_exact_allowance():
    level = LevelSet(baseline_errors=2.5, total_weight=10.0, integral=False)
    assert level.budget(0.03) == pytest.approx(2.8)
    assert level.above(2.8) > 2.8
    assert level.above(2.8) - 2.8 == pytest.approx(TOLERANCE * 10.0)


def test_above_is_the_next_whole_error_count():
    level = LevelSet(3.0, 20.0, integral=True)
    assert level.above(5.0) == 6.0
    assert level.above(5.0 - 1e-12) == 6.0
    assert level.above(5.5) == 6.0


def test_within_tolerates_only_rounding():
    assert LevelSet.within(5.0 + TOLERANCE / 2, 5.0)
    assert not LevelSet.within(5.0 + 1e-6, 5.0)
    np.testing.assert_array_equal(
        LevelSet.within(np.array([4.0, 5.0, 6.0]), 5.0), [True, True, False]
    )


def test_grid_of_a_path():
    level = LevelSet(7.0, 50.0, integral=True)
    epsilons, extras, budgets = level.grid(0.1)
    np.testing.assert_array_equal(extras, np.arange(6.0))
    np.testing.assert_array_equal(budgets, 7.0 + np.arange(6.0))
    np.testing.assert_allclose(epsilons, np.arange(6.0) / 50)
    weighted = LevelSet(1.5, 4.0, integral=False)
    epsilons, extras, budgets = weighted.grid(0.2)
    assert epsilons.size == 11 and epsilons[-1] == pytest.approx(0.2)
    np.testing.assert_allclose(budgets, 1.5 + epsilons * 4.0)


def test_a_path_steps_by_the_unit_of_whole_weights():
    # Rows repeated 1000 times: the level sets change only every 1000 errors.
    rows = LevelSet.from_weights(np.ones(50), 7.0)
    repeated = LevelSet.from_weights(np.full(50, 1000.0), 7000.0)
    assert (rows.unit, repeated.unit) == (1.0, 1000.0)
    for eps in (0.0, 0.05, 0.1, 0.37):
        np.testing.assert_allclose(repeated.grid(eps)[0], rows.grid(eps)[0])
        np.testing.assert_allclose(repeated.grid(eps)[1], 1000 * rows.grid(eps)[1])
    # Not a multiple of the unit: the level set of the multiple below.
    mixed = LevelSet.from_weights([2.0, 4.0, 6.0], 2.0)
    np.testing.assert_array_equal(mixed.grid(0.9)[1], [0.0, 2.0, 4.0, 6.0, 8.0, 10.0])


def test_from_weights_and_from_problem_agree():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    weights = np.array([1.0, 2.0, 1.0, 3.0])
    problem = PatternProblem.from_data(X, y, weights)
    assert LevelSet.from_problem(problem, 2.0) == LevelSet.from_weights(weights, 2.0)
    assert not LevelSet.from_weights([0.5, 1.0], 0.0).integral


def test_the_budget_row_of_a_mip_is_the_level_sets_ceiling():
    X = np.array([[0.0, 1], [1, 0], [1, 1], [2, 2], [0, 2]])
    y = np.array([0, 1, 1, 0, 1])
    problem = PatternProblem.from_data(X, y)
    enc = encode(problem, BoxMargin())
    for budget in (1.0, 2.0, 2.7):
        mip = _formulations.flip(enc, 0, 1, budget=budget)
        offset = enc.error_objective()[1]
        ceiling = error_ceiling(budget, problem.total_weight, True)
        assert mip.row_upper[-1] + offset == ceiling == np.floor(budget)
