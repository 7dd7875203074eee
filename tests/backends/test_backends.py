"""Backends on hand-made MIPs: statuses, bounds, hints and OR-Tools traps."""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_multiplicity._mip._program import MIP
from sklearn_multiplicity.backends import available_solvers, get_backend
from sklearn_multiplicity.backends._mathopt import unwrap_status_error

SOLVERS = ["auto", "highs", "scip", "cpsat"]


def knapsack(**kwargs):
    # max 5a + 4b + 3c  s.t.  2a + 3b + c <= 5, binary: optimum 9 at (1, 1, 0).
    return MIP(
        objective=np.array([5.0, 4, 3]),
        A=sp.csr_matrix(np.array([[2.0, 3, 1]])),
        row_lower=np.array([-np.inf]),
        row_upper=np.array([5.0]),
        var_lower=np.zeros(3),
        var_upper=np.ones(3),
        is_integer=np.ones(3, bool),
        maximize=True,
        objective_is_integral=True,
        **kwargs,
    )


def test_registry():
    assert available_solvers() == ["auto", "cpsat", "highs", "scip"]
    # GLOP/PDLP would silently solve the LP relaxation: never offered.
    for name in ("glop", "pdlp", "cp_sat_mathopt", "gurobi"):
        with pytest.raises(ValueError, match="Unknown solver"):
            get_backend(name)


@pytest.mark.parametrize(
    "kind, solver",
    [("disagreement", "scip"), ("flip", "highs"), ("min_error", "highs")],
)
def test_auto_sends_each_kind_of_mip_to_its_solver(kind, solver):
    result = get_backend("auto", time_limit=10).solve(knapsack(kind=kind))
    assert result.solver == solver
    assert result.status == "optimal" and result.objective == 9


@pytest.mark.parametrize("solver", SOLVERS)
def test_optimal(solver):
    result = get_backend(solver, time_limit=10).solve(knapsack())
    assert result.status == "optimal"
    assert result.objective == result.bound == 9
    np.testing.assert_array_equal(result.x, [1, 1, 0])


@pytest.mark.parametrize("solver", SOLVERS)
def test_infeasible(solver):
    mip = knapsack().with_rows(np.array([[1.0, 1, 1]]), [3.5], [np.inf])
    result = get_backend(solver, time_limit=10).solve(mip)
    assert result.status == "infeasible"
    assert not result.has_solution
    assert result.bound == -np.inf  # maximising: nothing is achievable


@pytest.mark.parametrize("solver", SOLVERS)
def test_hint_is_accepted(solver):
    # A complete feasible hint (pywraplp's HiGHS SetHint crashed; MathOpt's does not).
    result = get_backend(solver, time_limit=10).solve(
        knapsack(hint=np.array([1.0, 0, 1]))
    )
    assert result.status == "optimal" and result.objective == 9


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("priority", [[1, 2, 3], [3, 2, 1], [0, 5, 0]])
def test_branching_priorities_change_the_search_not_the_optimum(solver, priority):
    mip = knapsack(branching_priority=np.array(priority))
    result = get_backend(solver, time_limit=10).solve(mip)
    assert result.status == "optimal" and result.objective == 9


def test_scip_is_handed_the_priorities_and_highs_is_not():
    from sklearn_multiplicity.backends._mathopt import HighsBackend, ScipBackend

    mip = knapsack(branching_priority=np.array([0, 7, 3]))
    scip = ScipBackend()._model_parameters(mip).branching_priorities
    assert list(scip.ids) == [1, 2] and list(scip.values) == [7, 3]
    highs = HighsBackend()._model_parameters(mip).branching_priorities
    assert list(highs.ids) == []


@pytest.mark.parametrize(
    "priority, match",
    [(np.array([1.0, 2, 3]), "integers"), (np.array([1, 2]), "shape")],
)
def test_bad_branching_priorities_are_refused(priority, match):
    with pytest.raises(ValueError, match=match):
        knapsack(branching_priority=priority)


@pytest.mark.parametrize("solver", SOLVERS)
def test_first_solution_stops_early_but_stays_honest(solver):
    result = get_backend(solver, time_limit=10).solve(knapsack(), first_solution=True)
    assert result.has_solution
    assert result.objective <= 9 <= result.bound


def test_cpsat_refuses_continuous_variables():
    # MathOpt's CP_SAT would round continuous variables and report a wrong optimum.
    mip = MIP(
        objective=np.array([1.0, 0.0]),
        A=sp.csr_matrix(np.array([[1.0, -1.0]])),
        row_lower=np.array([0.5]),
        row_upper=np.array([np.inf]),
        var_lower=np.zeros(2),
        var_upper=np.ones(2),
        is_integer=np.array([True, False]),
    )
    with pytest.raises(ValueError, match="integer"):
        get_backend("cpsat").solve(mip)
    # HiGHS solves it exactly: x0 = 1 (x1 <= 0.5 is continuous).
    assert get_backend("highs").solve(mip).objective == 1.0


def test_cpsat_refuses_fractional_coefficients():
    mip = knapsack()
    mip.A = sp.csr_matrix(np.array([[2.5, 3, 1]]))
    with pytest.raises(ValueError, match="integer"):
        get_backend("cpsat").solve(mip)


def test_highs_threads_can_change_between_solves():
    # HiGHS keeps one scheduler per process; a new thread count must not crash.
    for threads in (None, 2, 1, 2):
        result = get_backend("highs", threads=threads, time_limit=10).solve(knapsack())
        assert result.status == "optimal"


def test_mathopt_errors_are_readable():
    class StatusNotOk(Exception):
        pass

    try:
        try:
            raise StatusNotOk("HiGHS: invalid model [INVALID_ARGUMENT]")
        except StatusNotOk:
            raise AttributeError(  # noqa: B904 - reproduces OR-Tools' chain
                "'StatusNotOk' object has no attribute 'canonical_code'"
            )
    except AttributeError as exc:
        message = unwrap_status_error(exc)
    assert "invalid model" in message and "canonical_code" not in message


@pytest.mark.parametrize("solver", ["highs", "scip"])
def test_solver_failure_becomes_an_error_status(solver):
    # Lower bound above upper bound: MathOpt refuses the model.
    mip = knapsack()
    mip.var_lower = np.array([2.0, 0, 0])
    result = get_backend(solver, time_limit=10).solve(mip)
    assert result.status == "error"
    assert not result.has_solution
    assert result.bound == np.inf  # maximising: nothing proven
    assert result.message


def test_time_limit_gives_feasible_with_bounds():
    rng = np.random.default_rng(0)
    n = 60
    weights = rng.integers(20, 60, size=(4, n)).astype(float)
    values = rng.integers(10, 100, size=n).astype(float)
    mip = MIP(
        objective=values,
        A=sp.csr_matrix(weights),
        row_lower=np.full(4, -np.inf),
        row_upper=weights.sum(axis=1) / 3,
        var_lower=np.zeros(n),
        var_upper=np.ones(n),
        is_integer=np.ones(n, bool),
        maximize=True,
        objective_is_integral=True,
    )
    quick = get_backend("highs", time_limit=0.02).solve(mip)
    assert quick.status in ("feasible", "no_solution", "optimal")
    full = get_backend("highs", time_limit=60).solve(mip)
    assert full.status == "optimal"
    if quick.has_solution:
        assert quick.objective <= full.objective
    assert quick.bound >= full.objective


def test_a_violating_solution_is_discarded():
    from sklearn_multiplicity._mip._program import MIPResult
    from sklearn_multiplicity.backends import Backend

    class Liar(Backend):
        name = "liar"

        def _solve(self, mip, *, first_solution=False):
            return MIPResult("optimal", np.ones(3), 12.0, 12.0, 0.0, self.name)

    result = Liar().solve(knapsack())
    assert not result.has_solution
    assert result.status == "no_solution"
    assert "violates" in result.message


def test_scip_always_runs_one_thread():
    # threads=2 made MathOpt's SCIP fail some solves with an INTERNAL error.
    backend = get_backend("scip", threads=2)
    assert backend._parameters(knapsack(), first_solution=False).threads == 1


def test_scip_drops_its_cuts_and_restarts_on_ranked_disagreement_mips_only():
    from ortools.math_opt.python import mathopt

    backend = get_backend("scip")
    ranked = knapsack(kind="disagreement", branching_priority=np.array([3, 2, 1]))
    tuned = backend._parameters(ranked, first_solution=False)
    assert tuned.cuts == mathopt.Emphasis.OFF
    assert tuned.gscip.int_params["presolving/maxrestarts"] == 0
    # Other kinds, and disagreement MIPs without an order to branch by
    # (the batch strategy's), keep SCIP's defaults.
    for kind in ("flip", "min_error", "disagreement"):
        plain = backend._parameters(knapsack(kind=kind), first_solution=False)
        assert plain.cuts is None and not plain.gscip.int_params


def multi_knapsack(unit):
    """A knapsack with five rows, hard enough for node logs and callbacks."""
    rng = np.random.default_rng(0)
    n = 60
    A = rng.integers(1, 50, size=(5, n)).astype(float)
    return MIP(
        objective=rng.integers(1, 100, size=n).astype(float),
        A=sp.csr_matrix(A),
        row_lower=np.full(5, -np.inf),
        row_upper=np.floor(A.sum(axis=1) / 3),
        var_lower=np.zeros(n),
        var_upper=np.ones(n),
        is_integer=np.ones(n, bool),
        maximize=True,
        objective_is_integral=True,
        objective_unit=unit,
    )


@pytest.mark.parametrize("solver", SOLVERS)
def test_an_observer_hears_honest_bounds_while_the_solver_runs(solver):
    heard = []
    unit = 2.0
    backend = get_backend(
        solver,
        time_limit=20,
        threads=1,
        observer=lambda primal, dual: heard.append((primal, dual)),
    )
    result = backend.solve(multi_knapsack(unit))
    assert result.status == "optimal"
    assert heard
    primal, dual = np.array(heard).T
    # In weights (the unit applied): never better than the optimum found,
    # and no bound below it.
    assert np.all(primal[np.isfinite(primal)] <= result.objective + 1e-6)
    assert np.all(dual[np.isfinite(dual)] >= result.objective - 1e-6)
    assert np.isfinite(primal).any()
    assert result.objective % unit == 0


def test_without_an_observer_no_callback_is_registered():
    from sklearn_multiplicity.backends._mathopt import ScipBackend

    registration, on_event = ScipBackend()._events(multi_knapsack(1.0))
    assert on_event is None and not registration.request_registration


def test_a_failing_observer_never_fails_the_solve():
    def failing(primal, dual):
        raise RuntimeError("display closed")

    backend = get_backend("scip", time_limit=20, observer=failing)
    result = backend.solve(multi_knapsack(1.0))
    assert result.status == "optimal"
    assert backend.observer is None
