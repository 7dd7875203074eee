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


@pytest.mark.parametrize("seed", SEEDS)
def test_identity_rows_keep_every_realisable_labelling(seed):
    from brute_force_multiclass import labellings

    problem, enc, truth = _setup(seed)
    assert enc.n_identities > 0  # integer grids hold affine identities
    plain = formulations.encode(problem, MulticlassBoxMargin(), cuts=False)
    K = problem.n_classes
    extra = enc.A.shape[0] - plain.A.shape[0]
    assert extra == enc.n_identities * K * (K - 1)
    rows = enc.A[plain.A.shape[0] :]
    for labels in labellings(problem.patterns, K):
        z = np.zeros((problem.n_patterns, K))
        z[np.arange(problem.n_patterns), labels] = 1.0
        activity = rows[:, enc.z_offset :] @ z.ravel()
        assert np.all(activity <= 3.0 + 1e-9)


def test_identity_rows_for_two_labels_are_the_two_label_cuts():
    from sklearn_multiplicity._mip._cuts import identity_rows, label_identity_rows

    quads = np.array([[0, 1, 2, 3], [4, 4, 5, 6]])
    r, c, v = label_identity_rows(quads, lambda u, label: 2 * u + label, 2)
    K_rows = np.zeros((r.max() + 1, 14))
    np.add.at(K_rows, (r, c), v)
    r2, c2, v2 = identity_rows(quads, 0, 7)
    two = np.zeros((2, 7))
    np.add.at(two, (r2, c2), v2)
    # With z[u, 0] = 1 - z[u, 1], the K-label rows "<= 3" are the two-label
    # rows "z_a + z_b - z_c - z_d <= 1" and ">= -1".
    for z1 in np.ndindex(*(2,) * 7):
        z1 = np.array(z1, float)
        z = np.column_stack([1 - z1, z1]).ravel()
        k_ok = np.all(K_rows @ z <= 3 + 1e-9)
        two_ok = np.all(np.abs(two @ z1) <= 1 + 1e-9)
        assert k_ok == two_ok
