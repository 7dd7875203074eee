import numpy as np
import pytest
import scipy.sparse as sp
from brute_force import random_tiny
from scipy.optimize import linprog

from sklearn_multiplicity._core._hypothesis import BoxMargin
from sklearn_multiplicity._core._problem import PatternProblem
from sklearn_multiplicity._mip import _formulations, encode
from sklearn_multiplicity._mip._relaxation import IdentitySeparator
from sklearn_multiplicity.backends import get_backend


def encoding(seed, n=40, d=3):
    X, y = random_tiny(seed, n=n, d=d, levels=3, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    return encode(problem, BoxMargin())


def full_lp_of(mip):
    """Value of the LP relaxation of ``mip`` with all of its rows."""
    finite_hi, finite_lo = np.isfinite(mip.row_upper), np.isfinite(mip.row_lower)
    A = sp.vstack([mip.A[finite_hi], -mip.A[finite_lo]], format="csr")
    b = np.concatenate([mip.row_upper[finite_hi], -mip.row_lower[finite_lo]])
    sign = -1.0 if mip.maximize else 1.0
    result = linprog(
        sign * mip.objective,
        A_ub=A,
        b_ub=b,
        bounds=np.column_stack([mip.var_lower, mip.var_upper]),
        method="highs",
    )
    assert result.status == 0
    return sign * result.fun + mip.objective_offset


def full_lp(enc, pattern, label):
    """The LP relaxation of a flip MIP with every identity row at once."""
    return full_lp_of(_formulations.flip(enc, pattern, label))


@pytest.mark.parametrize("seed", range(4))
def test_separated_lp_equals_the_full_lp(seed):
    enc = encoding(seed)
    assert enc.n_identities > 0
    relaxation = IdentitySeparator(enc)
    for u in range(enc.n_train):
        for label in (0, 1):
            bound = relaxation.flip_bound(u, label)
            assert bound == pytest.approx(full_lp(enc, u, label), abs=1e-4)


@pytest.mark.parametrize("seed", range(4))
def test_lp_bound_never_exceeds_the_flip_optimum(seed):
    enc = encoding(seed)
    relaxation = IdentitySeparator(enc)
    backend = get_backend("highs", time_limit=20)
    for u in range(enc.n_train):
        for label in (0, 1):
            result = backend.solve(_formulations.flip(enc, u, label))
            assert result.status == "optimal"
            assert relaxation.flip_bound(u, label) <= result.objective + 1e-9


def test_lp_bound_without_identities_is_still_a_bound():
    X, y = random_tiny(3, n=40, d=3, levels=3, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    enc = encode(problem, BoxMargin(), cuts=False)
    assert enc.n_identities == 0
    relaxation = IdentitySeparator(enc)
    backend = get_backend("highs", time_limit=20)
    for u in range(enc.n_train):
        optimum = backend.solve(_formulations.flip(enc, u, 1)).objective
        assert relaxation.flip_bound(u, 1) <= optimum + 1e-9


def test_failed_lp_proves_nothing(monkeypatch):
    import sklearn_multiplicity._mip._relaxation as relaxation_module

    class Failed:
        status = 4  # numerical difficulties

    enc = encoding(0)
    monkeypatch.setattr(relaxation_module, "linprog", lambda *a, **k: Failed())
    assert IdentitySeparator(enc).flip_bound(0, 1) == -np.inf


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
        auditor.session_.backend = Failing()
        z0 = auditor.predict(truth.points) == auditor.classes_[1]
        lower, upper = auditor.ambiguity_bounds(0.05)
        exact = truth.ambiguity(z0, auditor.baseline_errors_, 0.05)
        assert lower <= exact + 1e-12 and exact <= upper + 1e-12
        screens = [e for e in auditor.mip_log_ if e["mip"].startswith("lp_")]
        proved_something |= any(e["objective"] > 0 for e in screens)
    assert proved_something


@pytest.mark.parametrize("seed", range(3))
def test_lp_model_is_a_feasible_flip_and_often_an_optimal_one(seed):
    from sklearn_multiplicity._core._models import in_class, verify

    enc = encoding(seed)
    relaxation = IdentitySeparator(enc)
    backend = get_backend("highs", time_limit=20)
    attained = 0
    for u in range(enc.n_train):
        for label in (0, 1):
            flip = _formulations.flip(enc, u, label)
            lp = relaxation.relax(flip)
            optimum = backend.solve(flip).objective
            if lp.x is None:
                continue
            found = verify(enc, *lp.model(enc))
            if not in_class(enc, found, tolerance=1e-4) or found.z[u] != label:
                continue
            # A model of the class giving u the label: never below the optimum.
            assert found.errors >= optimum - 1e-9
            if found.errors <= lp.bound + 1e-4:  # the LP proves it optimal
                assert found.errors == pytest.approx(optimum)
                attained += 1
    assert attained > 0


@pytest.mark.parametrize("seed", range(3))
def test_mips_with_only_their_lp_rows_keep_their_optimum(seed):
    enc = encoding(seed)
    separator = IdentitySeparator(enc)
    backend = get_backend("highs", time_limit=20)
    baseline = backend.solve(_formulations.min_error(enc))
    z0 = np.round(baseline.x[enc.z_offset :]).astype(bool)
    mips = [_formulations.min_error(enc)]
    mips += [
        _formulations.flip(enc, u, 1, budget=baseline.objective + 3)
        for u in range(0, enc.n_train, 3)
    ]
    mips += [
        _formulations.max_disagreement(enc, z0, baseline.objective + extra)
        for extra in (0, 2, 5)
    ]
    n_smaller = 0
    for mip in mips:
        small, lp = separator.tighten(mip)
        assert small.n_rows <= mip.n_rows
        n_smaller += small.n_rows < mip.n_rows
        full, reduced = backend.solve(mip), backend.solve(small)
        assert reduced.status == full.status
        if full.status == "optimal":
            assert reduced.objective == pytest.approx(full.objective)
            # The separated LP is the full LP, and it bounds the optimum.
            assert lp.bound == pytest.approx(full_lp_of(mip), abs=1e-4)
            if mip.maximize:
                assert lp.bound >= full.objective - 1e-9
            else:
                assert lp.bound <= full.objective + 1e-9
        else:
            assert full.status == "infeasible"
    assert n_smaller > 0


@pytest.mark.parametrize("seed", range(3))
def test_a_path_of_mips_separated_from_the_rows_before_keeps_every_optimum(seed):
    """Disagreement MIPs of consecutive budgets, each LP separated from the
    rows of the one before (``near``), as a discrepancy path prepares them:
    the same LP bound and MIP optimum as with every identity row, in no
    more LPs than separating each from the minimum-error LP's rows."""
    enc = encoding(seed)
    separator = IdentitySeparator(enc)
    backend = get_backend("highs", time_limit=20)
    baseline = backend.solve(_formulations.min_error(enc))
    z0 = np.round(baseline.x[enc.z_offset :]).astype(bool)
    near, n_lps_near, n_lps_alone = None, 0, 0
    for extra in range(6):
        mip = _formulations.max_disagreement(enc, z0, baseline.objective + extra)
        before = separator.n_lps
        small, lp = separator.tighten(mip, near=near)
        n_lps_near += separator.n_lps - before
        assert np.all(np.isin(near if near is not None else [], lp.rows))
        near = lp.rows
        before = separator.n_lps
        _, alone = separator.tighten(mip)
        n_lps_alone += separator.n_lps - before
        assert lp.bound == pytest.approx(full_lp_of(mip), abs=1e-4)
        assert lp.bound == pytest.approx(alone.bound, abs=1e-6)
        full, reduced = backend.solve(mip), backend.solve(small)
        assert full.status == reduced.status == "optimal"
        assert reduced.objective == pytest.approx(full.objective)
        assert lp.bound >= full.objective - 1e-9
    assert n_lps_near <= n_lps_alone


@pytest.mark.parametrize("seed", range(2))
def test_a_time_limited_lp_still_bounds_the_flip_optimum(seed):
    enc = encoding(seed)
    separator = IdentitySeparator(enc, time_limit=0)
    assert separator.base_rows.size == 0  # no LP solved in no time
    backend = get_backend("highs", time_limit=20)
    for u in range(enc.n_train):
        mip = _formulations.flip(enc, u, 0)
        assert separator.relax(mip, time_limit=0).bound == -np.inf
        bound = separator.relax(mip, time_limit=5).bound
        result = backend.solve(mip)
        if result.has_solution:
            assert bound <= result.objective + 1e-6
