import numpy as np
import pytest
import scipy.sparse as sp
from brute_force import random_tiny
from scipy.optimize import linprog

from sklearn_multiplicity import _formulations
from sklearn_multiplicity._hypothesis import BoxMargin
from sklearn_multiplicity._problem import PatternProblem
from sklearn_multiplicity._relaxation import FlipRelaxation
from sklearn_multiplicity.backends import get_backend


def encoding(seed, n=40, d=3):
    X, y = random_tiny(seed, n=n, d=d, levels=3, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    return _formulations.encode(problem, BoxMargin())


def full_lp(enc, pattern, label):
    """The LP relaxation with every identity row at once."""
    mip = _formulations.flip(enc, pattern, label)
    finite_hi, finite_lo = np.isfinite(mip.row_upper), np.isfinite(mip.row_lower)
    A = sp.vstack([mip.A[finite_hi], -mip.A[finite_lo]], format="csr")
    b = np.concatenate([mip.row_upper[finite_hi], -mip.row_lower[finite_lo]])
    result = linprog(
        mip.objective,
        A_ub=A,
        b_ub=b,
        bounds=np.column_stack([mip.var_lower, mip.var_upper]),
        method="highs",
    )
    assert result.status == 0
    return result.fun + mip.objective_offset


@pytest.mark.parametrize("seed", range(4))
def test_separated_lp_equals_the_full_lp(seed):
    enc = encoding(seed)
    assert enc.n_identities > 0
    relaxation = FlipRelaxation(enc)
    for u in range(enc.n_train):
        for label in (0, 1):
            bound = relaxation.lower_bound(u, label)
            assert bound == pytest.approx(full_lp(enc, u, label), abs=1e-4)


@pytest.mark.parametrize("seed", range(4))
def test_lp_bound_never_exceeds_the_flip_optimum(seed):
    enc = encoding(seed)
    relaxation = FlipRelaxation(enc)
    backend = get_backend("highs", time_limit=20)
    for u in range(enc.n_train):
        for label in (0, 1):
            result = backend.solve(_formulations.flip(enc, u, label))
            assert result.status == "optimal"
            assert relaxation.lower_bound(u, label) <= result.objective + 1e-9


def test_lp_bound_without_identities_is_still_a_bound():
    X, y = random_tiny(3, n=40, d=3, levels=3, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    enc = _formulations.encode(problem, BoxMargin(), cuts=False)
    assert enc.n_identities == 0
    relaxation = FlipRelaxation(enc)
    backend = get_backend("highs", time_limit=20)
    for u in range(enc.n_train):
        optimum = backend.solve(_formulations.flip(enc, u, 1)).objective
        assert relaxation.lower_bound(u, 1) <= optimum + 1e-9


def test_failed_lp_proves_nothing(monkeypatch):
    import sklearn_multiplicity._relaxation as relaxation_module

    class Failed:
        status = 4  # numerical difficulties

    enc = encoding(0)
    monkeypatch.setattr(relaxation_module, "linprog", lambda *a, **k: Failed())
    assert FlipRelaxation(enc).lower_bound(0, 1) == -np.inf


def test_lp_proofs_alone_give_honest_ambiguity_bounds():
    # A solver that fails every MIP: whatever the audit still proves comes
    # from models (lower bound) and LP relaxations (upper bound).
    from brute_force import Truth
    from sklearn.linear_model import LogisticRegression

    from sklearn_multiplicity import MultiplicityAuditor
    from sklearn_multiplicity.backends._base import Backend, SolverError

    class Failing(Backend):
        name = "failing"

        def _solve(self, mip, *, first_solution=False):
            raise SolverError("no MIP today")

    proved_something = False
    for seed in range(6):
        X, y = random_tiny(seed, n=30, d=2, levels=3, noise=0.3)
        truth = Truth(X, y)
        auditor = MultiplicityAuditor(LogisticRegression(), time_limit=5).fit(X, y)
        auditor._engine.backend = Failing()
        z0 = auditor.predict(truth.points) == auditor.classes_[1]
        lower, upper = auditor.ambiguity_bounds(0.05)
        exact = truth.ambiguity(z0, auditor.baseline_errors_, 0.05)
        assert lower <= exact + 1e-12 and exact <= upper + 1e-12
        screens = [e for e in auditor.mip_log_ if e["mip"].startswith("lp_")]
        proved_something |= any(e["objective"] > 0 for e in screens)
    assert proved_something


@pytest.mark.parametrize("seed", range(3))
def test_lp_model_is_a_feasible_flip_and_often_an_optimal_one(seed):
    from sklearn_multiplicity._models import in_class, verify

    enc = encoding(seed)
    relaxation = FlipRelaxation(enc)
    backend = get_backend("highs", time_limit=20)
    attained = 0
    for u in range(enc.n_train):
        for label in (0, 1):
            bound, model = relaxation.relax(u, label)
            optimum = backend.solve(_formulations.flip(enc, u, label)).objective
            if model is None:
                continue
            found = verify(enc, *model)
            if not in_class(enc, found, tolerance=1e-4) or found.z[u] != label:
                continue
            # A model of the class giving u the label: never below the optimum.
            assert found.errors >= optimum - 1e-9
            if found.errors <= bound + 1e-4:  # the LP proves it optimal
                assert found.errors == pytest.approx(optimum)
                attained += 1
    assert attained > 0
