"""The K-class certifier against enumeration, by hand and the binary auditor."""

import math

import numpy as np
import pytest
from brute_force import random_tiny
from brute_force_multiclass import MulticlassTruth, tiny_case
from faulty_backends import CrashingBackend, InfeasibleBackend, NoSolutionBackend

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._core import Status
from sklearn_multiplicity._core._hypothesis import predict
from sklearn_multiplicity._core._problem import PatternProblem as MulticlassProblem
from sklearn_multiplicity._engine import Deadline
from sklearn_multiplicity._engine.multiclass._certifier import MulticlassCertifier
from sklearn_multiplicity._mip import MIPResult
from sklearn_multiplicity.backends import Backend, get_backend

BUDGETS = (0, 1, 2)


def _certifier(seed, solver="highs", baseline="logistic"):
    X, y, truth = tiny_case(seed)
    problem = MulticlassProblem.from_data(X, y)
    if baseline == "majority":  # may lie outside the class
        labels = problem.counts.argmax(axis=1)
    else:
        probe = MulticlassCertifier(problem, np.zeros(problem.n_patterns, int))
        model = next(m for m in probe.pool if m.source.startswith("multinomial"))
        labels = model.labels
    return MulticlassCertifier(problem, labels, solver=solver), truth


def _assert_honest(found, value):
    assert found.lower - 1e-9 <= value <= found.upper + 1e-9


@pytest.mark.parametrize("baseline", ["logistic", "majority"])
@pytest.mark.parametrize("seed", range(4))
def test_certified_measures_match_enumeration(seed, baseline):
    certifier, truth = _certifier(seed, baseline=baseline)
    b0 = certifier.baseline_labels
    found = certifier.min_error()
    assert found.exact and found.lower == truth.min_error
    assert found.model.errors == truth.min_error
    for budget in BUDGETS:
        ambiguity = certifier.ambiguity(budget)
        assert ambiguity.exact
        assert ambiguity.lower == pytest.approx(truth.ambiguity(b0, budget))
        np.testing.assert_array_equal(ambiguity.flippable, truth.flippable(b0, budget))
        for u, model in ambiguity.witnesses.items():
            assert model.labels[u] != b0[u]
            assert model.errors <= certifier.baseline_errors + budget
        discrepancy = certifier.discrepancy(budget)
        assert discrepancy.exact
        assert discrepancy.lower == pytest.approx(truth.discrepancy(b0, budget))
        if discrepancy.model is not None:
            model = discrepancy.model
            assert model.errors <= certifier.baseline_errors + budget
            labels = predict(model.W, model.b, certifier.enc.X)
            np.testing.assert_array_equal(labels, model.labels)


def test_scip_certifies_the_same_values():
    certifier, truth = _certifier(1, solver="scip")
    b0 = certifier.baseline_labels
    assert certifier.min_error().lower == truth.min_error
    for budget in BUDGETS:
        ambiguity = certifier.ambiguity(budget)
        discrepancy = certifier.discrepancy(budget)
        assert ambiguity.exact and discrepancy.exact
        assert ambiguity.lower == pytest.approx(truth.ambiguity(b0, budget))
        assert discrepancy.lower == pytest.approx(truth.discrepancy(b0, budget))
    assert {entry.solver for entry in certifier.log} == {"scip"}


def figure_one_three_classes():
    """Four collinear points x = 0, 1, 2, 3 with labels A, B, A, C (A, B, C =
    0, 1, 2), 25 people each.

    On a line every label of an argmax of linear scores holds one interval,
    so A, B, A, C needs one error (25 of 100). The one-error labellings are
    B B A C, A A A C, A B B C and A B C C: relabelling the last point leaves
    A, B, A. Around the baseline A A A C, at no extra error:

    - discrepancy 50%: each other labelling changes two points
      (the first two, or the middle two);
    - ambiguity 75%: the first three points change, the last never does.

    With 25 extra errors (two in all), A A A A changes the last point too:
    ambiguity 100%; discrepancy 75%, since changing all four labels of
    A A A C would cost three errors (the first, third and last points) but
    B B C C changes three at two errors. The second column repeats the
    first, so it is dropped as affinely redundant.
    """
    X = np.repeat([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], 25, axis=0)
    y = np.repeat([0, 1, 0, 2], 25)
    return X, y


def test_figure_one_with_three_classes():
    X, y = figure_one_three_classes()
    problem = MulticlassProblem.from_data(X, y)
    assert problem.n_kept == 1
    baseline = np.array([0, 0, 0, 2])
    certifier = MulticlassCertifier(problem, baseline)
    assert certifier.baseline_errors == 25
    assert certifier.min_error().lower == 25
    expected = {0: (0.5, 0.75), 25: (0.75, 1.0)}
    for budget, (discrepancy, ambiguity) in expected.items():
        assert certifier.discrepancy(budget).lower == discrepancy
        assert certifier.discrepancy(budget).upper == discrepancy
        assert certifier.ambiguity(budget).lower == ambiguity
        assert certifier.ambiguity(budget).upper == ambiguity
    np.testing.assert_array_equal(
        certifier.ambiguity(0).flippable, [True, True, True, False]
    )
    # The enumeration agrees with the hand-worked values.
    truth = MulticlassTruth(X[::25], y[::25])
    for budget, (discrepancy, ambiguity) in expected.items():
        assert truth.discrepancy(baseline, budget // 25) == discrepancy
        assert truth.ambiguity(baseline, budget // 25) == ambiguity


@pytest.mark.parametrize("seed", [0, 3])
def test_two_classes_agree_with_the_binary_auditor(seed):
    X, y = random_tiny(seed, n=9, d=2, levels=3)
    auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
    problem = MulticlassProblem.from_data(X, y)
    baseline = (auditor.predict(problem.patterns) == auditor.classes_[1]).astype(int)
    certifier = MulticlassCertifier(problem, baseline)
    assert certifier.baseline_errors == auditor.baseline_errors_
    found = certifier.min_error()
    assert (found.lower, found.upper) == tuple(auditor.min_error_bounds_)
    for eps in (0.0, 0.25):
        budget = math.floor(eps * len(y))
        ambiguity = certifier.ambiguity(budget)
        discrepancy = certifier.discrepancy(budget)
        assert (ambiguity.lower, ambiguity.upper) == pytest.approx(
            auditor.ambiguity_bounds(eps)
        )
        assert (discrepancy.lower, discrepancy.upper) == pytest.approx(
            auditor.discrepancy_bounds(eps)
        )


class StoppedBackend(Backend):
    """HiGHS whose every run reports a limit reached: the solution is kept,
    the bound proves nothing."""

    name = "stopped"

    def _solve(self, mip, *, first_solution=False):
        result = get_backend("highs", threads=1)._solve(mip)
        worst = math.inf if mip.maximize else -math.inf
        status = Status.FEASIBLE if result.x is not None else Status.NO_SOLUTION
        return MIPResult(status, result.x, result.objective, worst, 0.0, self.name)


@pytest.mark.parametrize(
    "solver",
    [StoppedBackend(), NoSolutionBackend(), CrashingBackend()],
    ids=lambda b: b.name,
)
def test_solvers_stopped_or_failing_leave_honest_bounds(solver):
    certifier, truth = _certifier(0, solver=solver)
    b0 = certifier.baseline_labels
    found = certifier.min_error()
    _assert_honest(found, truth.min_error)
    assert found.lower >= certifier.problem.unavoidable_errors
    for budget in BUDGETS:
        ambiguity = certifier.ambiguity(budget)
        _assert_honest(ambiguity, truth.ambiguity(b0, budget))
        assert not (ambiguity.flippable & ambiguity.unflippable).any()
        assert not (ambiguity.flippable & ~truth.flippable(b0, budget)).any()
        _assert_honest(certifier.discrepancy(budget), truth.discrepancy(b0, budget))


def test_stopped_solver_leaves_a_gap_that_a_real_solver_closes():
    certifier, truth = _certifier(0, solver=NoSolutionBackend())
    b0 = certifier.baseline_labels
    # A budget some pattern cannot be flipped within: only a solver proves it
    # (witness searches find flips, never proofs).
    budget = next(b for b in BUDGETS if truth.ambiguity(b0, b) < 1.0)
    open_ = certifier.ambiguity(budget)
    assert open_.upper == 1.0 and open_.upper > truth.ambiguity(b0, budget)
    certifier.solver = "highs"  # more time continues from the proofs so far
    closed = certifier.ambiguity(budget)
    assert closed.exact
    assert closed.lower == pytest.approx(truth.ambiguity(b0, budget))


def test_expired_deadline_solves_nothing_and_stays_honest():
    certifier, truth = _certifier(2)
    b0 = certifier.baseline_labels
    expired = Deadline(0.0)
    _assert_honest(certifier.min_error(expired), truth.min_error)
    for budget in BUDGETS:
        _assert_honest(
            certifier.ambiguity(budget, expired), truth.ambiguity(b0, budget)
        )
        _assert_honest(
            certifier.discrepancy(budget, expired), truth.discrepancy(b0, budget)
        )
    assert certifier.log == []


def test_tiny_time_limits_stay_honest():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 3)).round(1)
    y = np.argmax(X @ rng.normal(size=(3, 3)) + rng.normal(size=(30, 3)), axis=1)
    problem = MulticlassProblem.from_data(X, y)
    exact = MulticlassCertifier(problem, problem.counts.argmax(axis=1))
    value = exact.min_error(Deadline(30)).lower
    rushed = MulticlassCertifier(problem, problem.counts.argmax(axis=1))
    found = rushed.min_error(Deadline(None, per_mip=1e-3))
    _assert_honest(found, value)
    discrepancy = rushed.discrepancy(problem.total_weight, Deadline(None, per_mip=1e-3))
    assert 0 <= discrepancy.lower <= discrepancy.upper <= 1


def test_a_solver_claiming_infeasibility_is_refuted_by_a_verified_model():
    certifier, truth = _certifier(2, solver=InfeasibleBackend(), baseline="majority")
    assert min(m.errors for m in certifier.pool) > certifier.problem.unavoidable_errors
    found = certifier.min_error()
    assert found.lower == certifier.problem.unavoidable_errors
    assert certifier.log[-1].status == Status.ERROR  # the claim is refuted
    _assert_honest(found, truth.min_error)


def test_an_empty_level_set_is_proven_by_infeasibility():
    # The majority label of every pattern makes fewer errors than any model.
    certifier, truth = _certifier(2, baseline="majority")
    assert certifier.baseline_errors < truth.min_error
    ambiguity = certifier.ambiguity(0)
    assert ambiguity.upper == 0 and ambiguity.unflippable.all()
    discrepancy = certifier.discrepancy(0)
    assert discrepancy.upper == 0 and discrepancy.model is None


def test_bad_baseline_and_budget_are_refused():
    X, y, _ = tiny_case(0)
    problem = MulticlassProblem.from_data(X, y)
    with pytest.raises(ValueError, match="baseline_labels"):
        MulticlassCertifier(problem, np.zeros(problem.n_patterns + 1, int))
    with pytest.raises(ValueError, match="baseline_labels"):
        MulticlassCertifier(problem, np.full(problem.n_patterns, 3))
    certifier = MulticlassCertifier(problem, np.zeros(problem.n_patterns, int))
    with pytest.raises(ValueError, match="budget"):
        certifier.ambiguity(-1)


@pytest.mark.parametrize("seed", range(4))
def test_intercept_shifts_add_only_realisable_labellings(seed):
    from sklearn_multiplicity._engine.multiclass._shifts import shift_search

    certifier, truth = _certifier(seed, solver=NoSolutionBackend())
    realisable = {tuple(row) for row in truth.L.tolist()}
    before = len(certifier.pool)
    for budget in BUDGETS:
        shift_search(certifier, budget)
    shifted = certifier.pool[before:]
    if seed in (0, 2):  # data where they find labellings the first pass did not
        assert any(m.source.startswith("intercept shift") for m in shifted)
    for model in certifier.pool:
        # Verified in the class: a labelling enumeration finds, errors recomputed.
        assert tuple(model.labels.tolist()) in realisable
        assert model.errors == truth.errors_of(model.labels)
    # No solver ran, and what the shifts witness never exceeds enumeration.
    assert not certifier.log
    for budget in BUDGETS:
        flippable, _, most, _ = certifier.known(budget)
        baseline = certifier.baseline_labels
        assert not (flippable & ~truth.flippable(baseline, budget)).any()
        assert most <= truth.discrepancy(baseline, budget) * truth.total + 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_hull_proofs_never_contradict_enumeration(seed):
    from sklearn_multiplicity._core import LabelCeilings
    from sklearn_multiplicity._engine.multiclass._hull import hull_proofs

    certifier, truth = _certifier(seed, solver=NoSolutionBackend())
    baseline = certifier.baseline_labels
    everyone = range(certifier.problem.n_patterns)
    for budget in BUDGETS:
        ceiling = certifier.ceiling(budget)
        for u in hull_proofs(certifier, ceiling, everyone, Deadline(None)):
            assert not truth.flippable(baseline, budget)[u]
    for extra in ([0, 0, 0], [1, 0, 2], [2, 2, 2]):
        ceilings = LabelCeilings(tuple(truth.label_errors(baseline) + extra))
        for u in hull_proofs(certifier, ceilings, everyone, Deadline(None)):
            S = truth.level_set(baseline, np.array(extra, dtype=float))
            assert (S[:, u] == baseline[u]).all()


def test_hull_proofs_settle_deep_people_without_a_solver():
    from sklearn_multiplicity._engine.multiclass._hull import hull_proofs

    # Three labels on a line, three people per point: A on 0..4, B on 6..8,
    # C on 10..12. The point 2 lies between 1 and 3 and between 0 and 4:
    # relabelling it means relabelling a person of each pair, 6 errors.
    points = np.array([0, 1, 2, 3, 4, 6, 7, 8, 10, 11, 12], dtype=float)
    labels = np.array([0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2])
    X = np.repeat(points, 3)[:, None]
    y = np.repeat(labels, 3)
    problem = MulticlassProblem.from_data(X, y)
    certifier = MulticlassCertifier(problem, labels, solver=NoSolutionBackend())
    deep = int(np.flatnonzero(problem.patterns[:, 0] == 2)[0])
    edge = int(np.flatnonzero(problem.patterns[:, 0] == 0)[0])
    everyone = range(problem.n_patterns)
    assert deep in hull_proofs(certifier, 5.0, everyone, Deadline(None))
    assert deep not in hull_proofs(certifier, 6.0, everyone, Deadline(None))
    assert edge not in hull_proofs(certifier, 0.0, everyone, Deadline(None))
    # The audit uses them: the deep person is unflippable and gets no MIP.
    ambiguity = certifier.ambiguity(5.0, Deadline(10.0))
    assert ambiguity.unflippable[deep]
    asked = [entry.as_dict()["mip"] for entry in certifier.log]
    assert asked and not any(f"pattern {deep} " in name for name in asked)
