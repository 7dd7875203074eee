"""LP dives (``_engine/_dive.py``) against enumeration of every dichotomy."""

import numpy as np
import pytest
from brute_force import Truth, baseline_truth, random_tiny

from sklearn_multiplicity._core._hypothesis import BoxMargin
from sklearn_multiplicity._core._models import in_class
from sklearn_multiplicity._core._problem import PatternProblem
from sklearn_multiplicity._engine.binary.search._dive import dive
from sklearn_multiplicity._engine.timing._scheduling import Deadline
from sklearn_multiplicity._mip import _formulations, encode
from sklearn_multiplicity._mip._relaxation import IdentitySeparator, Relaxation
from sklearn_multiplicity.backends._base import Backend, SolverError


def setting(seed, n=30, d=2, levels=3):
    """Encoding, separator, enumerated truth and a 0-1 optimal baseline."""
    X, y = random_tiny(seed, n=n, d=d, levels=levels, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    truth = Truth(X, y)
    # The same patterns in the same order, so labellings compare directly.
    np.testing.assert_array_equal(problem.patterns, truth.points)
    enc = encode(problem, BoxMargin())
    baseline = truth.D[np.argmin(truth.errors)]
    return enc, IdentitySeparator(enc), truth, baseline


def dive_at(enc, separator, baseline, budget, weight, deadline=None):
    mip = _formulations.max_disagreement(enc, baseline, budget)
    relaxation = separator.relax(mip)
    models = dive(
        separator,
        mip,
        relaxation,
        budget,
        priority=weight,
        deadline=deadline or Deadline(None),
    )
    return models, relaxation


@pytest.mark.parametrize("seed", range(8))
def test_dive_models_are_verified_and_never_beat_the_enumerated_discrepancy(seed):
    enc, separator, truth, baseline = setting(seed)
    weight = truth.pos + truth.neg
    n = enc.n_train
    for extra in (1, 3, 6):
        budget = truth.min_error + extra
        exact = truth.discrepancy(baseline, truth.min_error, extra / truth.total)
        models, relaxation = dive_at(enc, separator, baseline, budget, weight)
        for model in models:
            z = enc.X[:n] @ model.w + model.b > 0
            np.testing.assert_array_equal(model.z[:n], z)
            assert model.errors == truth.pos @ ~z + truth.neg @ z <= budget
            share = weight[z != baseline].sum() / truth.total
            assert share <= exact + 1e-12
            # The LP of the undived MIP bounds every model of the level set.
            assert share * truth.total <= relaxation.bound + 1e-6
        ends = [m for m in models if in_class(enc, m, tolerance=1e-6)]
        if np.isclose(relaxation.bound, exact * truth.total):
            # An LP as strong as the MIP: the dive ends at a model (on these
            # seeds, not in general).
            assert ends


def test_dives_reach_the_enumerated_discrepancy_where_the_lp_is_fractional():
    reached, dived = 0, 0
    for seed in range(8):
        enc, separator, truth, baseline = setting(seed)
        weight = truth.pos + truth.neg
        z_columns = slice(enc.z_offset, enc.z_offset + enc.n_train)
        for extra in (1, 3, 6):
            budget = truth.min_error + extra
            exact = truth.discrepancy(baseline, truth.min_error, extra / truth.total)
            models, relaxation = dive_at(enc, separator, baseline, budget, weight)
            z = relaxation.x[z_columns]
            if np.all((z < 1e-6) | (z > 1 - 1e-6)):
                continue  # the LP itself is a model: nothing to dive for
            dived += 1
            best = max(weight[m.z[: enc.n_train] != baseline].sum() for m in models)
            reached += bool(np.isclose(best / truth.total, exact))
    # Tiny grids leave the LP weak (12 of 22 dives reach the optimum on
    # these seeds); on COMPAS one dive reaches it (benchmarks/README.rst).
    assert dived >= 10
    assert reached >= 0.5 * dived


def test_an_expired_deadline_solves_no_lp_and_keeps_the_lps_own_models():
    from sklearn_multiplicity._engine.binary.search._heuristics import lp_models

    enc, separator, truth, baseline = setting(0)
    budget = truth.min_error + 3
    mip = _formulations.max_disagreement(enc, baseline, budget)
    relaxation = separator.relax(mip)
    recording = RecordingSeparator(separator, lambda fixings: False)
    models = dive(
        recording,
        mip,
        relaxation,
        budget,
        priority=truth.pos + truth.neg,
        deadline=Deadline(0.0),
    )
    assert recording.fixings == []
    expected = lp_models(enc, relaxation.x, budget)
    assert [m.errors for m in models] == [m.errors for m in expected]


class RecordingSeparator:
    """A separator that records the labels fixed in each of its LPs and
    fails those for which ``fails(fixings so far)`` holds."""

    def __init__(self, separator, fails):
        self.separator, self.enc, self.fails = separator, separator.enc, fails
        self.fixings = []

    def relax(self, mip, **kwargs):
        columns = slice(self.enc.z_offset, self.enc.z_offset + self.enc.n_train)
        fixed = np.flatnonzero(mip.var_lower[columns] == mip.var_upper[columns])
        self.fixings.append({int(u): mip.var_lower[columns][u] for u in fixed})
        if self.fails(self.fixings):
            return Relaxation(-np.inf, None, np.zeros(0, dtype=int))
        return self.separator.relax(mip, **kwargs)


def test_an_infeasible_fixing_is_undone_by_the_other_label():
    for seed in range(8):
        enc, separator, truth, baseline = setting(seed)
        weight = truth.pos + truth.neg
        budget = truth.min_error + 3
        mip = _formulations.max_disagreement(enc, baseline, budget)
        relaxation = separator.relax(mip)
        z = relaxation.x[enc.z_offset : enc.z_offset + enc.n_train]
        if np.all((z < 1e-6) | (z > 1 - 1e-6)):
            continue
        failing = RecordingSeparator(separator, lambda fixings: len(fixings) == 1)
        models = dive(
            failing, mip, relaxation, budget, priority=weight, deadline=Deadline(None)
        )
        first, second = failing.fixings[:2]
        assert first.keys() == second.keys() and len(first) == 1
        (pattern,) = first
        assert first[pattern] == 1.0 - second[pattern]
        assert first[pattern] == float(z[pattern] > 0.5)  # nearest label first
        for model in models:
            assert model.errors <= budget
        return
    pytest.fail("no fractional LP among the seeds")


class NoMIP(Backend):
    """Solves no MIP (the baseline is fitted before it is swapped in)."""

    name = "no-mip"

    def _solve(self, mip, *, first_solution=False):
        raise SolverError("no MIP here")


def test_discrepancy_without_mips_is_honest_and_certified_where_a_dive_meets_the_lp():
    from sklearn_multiplicity import MultiplicityAuditor

    certified = 0
    for seed in range(6):
        X, y = random_tiny(seed, n=30, d=2, levels=3, noise=0.3)
        auditor = MultiplicityAuditor(time_limit=20).fit(X, y)
        truth, z0, err0 = baseline_truth(auditor, X, y)
        auditor.session_.backend = NoMIP()
        for eps in (0.05, 0.1, 0.2):
            lower, upper = auditor.discrepancy_bounds(eps)
            exact = truth.discrepancy(z0, err0, eps)
            assert lower <= exact + 1e-12 <= upper + 2e-12
            certified += bool(np.isclose(lower, upper))
    assert certified > 0


def second_fixing_fails(fixings):
    """Whether the last LP fixes two labels, the first at its first value."""
    first, last = fixings[0], fixings[-1]
    return len(last) >= 2 and all(last.get(u) == v for u, v in first.items())


def test_a_dive_with_no_way_on_switches_an_earlier_fixing():
    for seed in range(8):
        enc, separator, truth, baseline = setting(seed)
        budget = truth.min_error + 6
        mip = _formulations.max_disagreement(enc, baseline, budget)
        relaxation = separator.relax(mip)
        failing = RecordingSeparator(separator, second_fixing_fails)
        models = dive(
            failing,
            mip,
            relaxation,
            budget,
            priority=truth.pos + truth.neg,
            deadline=Deadline(None),
        )
        if len(failing.fixings) < 4:
            continue  # the dive ended before a second fixing
        first, second, switched, back = failing.fixings[:4]
        ((pattern, value),) = first.items()
        # Both values of the second label fail, so the first one switches.
        assert len(second) == len(switched) == 2
        (other,) = second.keys() - {pattern}
        assert second[other] == 1.0 - switched[other]
        assert back == {pattern: 1.0 - value}
        for model in models:
            assert model.errors <= budget
        return
    pytest.fail("no dive reached a second fixing")
