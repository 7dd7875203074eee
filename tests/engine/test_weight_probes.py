"""Bisection probes on coefficient-range ends (``_engine/_weight_probes.py``)
against enumeration: for every dichotomy within the budget an LP gives the
least and largest weight of a model predicting it."""

import math

import numpy as np
import pytest
from brute_force import Truth, random_tiny, weight_range

from sklearn_multiplicity._core import (
    Bounds,
    BoxMargin,
    IntegerWeights,
    PatternProblem,
    Status,
    verify,
)
from sklearn_multiplicity._engine.binary._solvers import Solvers
from sklearn_multiplicity._engine.binary._state import AuditState
from sklearn_multiplicity._engine.binary._weight_probes import (
    PROBE_RESOLUTION,
    WeightEnd,
    probe_ends,
)
from sklearn_multiplicity._engine.timing._scheduling import Deadline
from sklearn_multiplicity._mip import MIPResult, _formulations, encode
from sklearn_multiplicity.backends import Backend, get_backend


def setting(seed, hypothesis=None):
    """Tiny data in the continuous class (or ``hypothesis``), its enumerated
    truth and a 0-1 optimal baseline, pooled in a fresh audit state."""
    X, y = random_tiny(seed, n=9, d=2, levels=3, noise=0.3)
    problem = PatternProblem.from_data(X, y, np.ones(len(y)))
    if problem.n_kept != 2:
        pytest.skip("a column left the canonical representation")
    truth = Truth(X, y)
    enc = encode(problem, hypothesis or BoxMargin())
    baseline = truth.D[np.argmin(truth.errors)]
    return enc, truth, baseline


def box_ends(enc, *, known=None):
    """Every end at the weight box, with no model known unless ``known``."""
    w_lo, w_hi, _, _ = enc.weight_bounds()
    ends = []
    for j in range(enc.p):
        for maximize in (False, True):
            # Nothing known: the inner end is infinite.
            bounds = (
                Bounds(-math.inf, w_hi[j]) if maximize else Bounds(w_lo[j], math.inf)
            )
            if known is not None:
                value = float(known.w[j])
                bounds = Bounds(value, w_hi[j]) if maximize else Bounds(w_lo[j], value)
            ends.append(
                WeightEnd.from_bounds(
                    j, maximize, bounds, known, (w_lo[j], w_hi[j]),
                    integer=bool(enc.hypothesis.integer),
                )
            )  # fmt: skip
    return ends


def true_ends(truth, budget):
    """``(least, largest)`` of each weight over the dichotomies within ``budget``."""
    S = truth.D[truth.errors <= budget + 1e-9]
    out = []
    for j in range(truth.points.shape[1]):
        for maximize in (False, True):
            values = [weight_range(truth.points, z, j, maximize) for z in S]
            values = [v for v in values if v is not None]
            out.append(max(values) if maximize else min(values))
    return np.array(out)


def test_end_thresholds_and_bounds():
    end = WeightEnd.from_bounds(0, False, Bounds(-1.0, -0.25), None, (-1.0, 1.0))
    # A least end in its own direction: -w_0 in [0.25, 1].
    assert (end.inner, end.outer, end.floor) == (0.25, 1.0, -1.0)
    assert end.threshold() == 1.0  # the edge of the box first
    end.probes = 1
    assert end.threshold() == pytest.approx(0.625)
    assert end.bounds() == Bounds(-1.0, -0.25)
    nothing = WeightEnd.from_bounds(1, True, Bounds(-math.inf, 1.0), None, (-1, 1))
    nothing.probes = 1
    assert nothing.threshold() == 0.0  # from the box's other edge
    integer = WeightEnd.from_bounds(
        0, True, Bounds(2.0, 7.5), None, (-10, 10), integer=True
    )
    assert integer.outer == 7
    integer.probes = 1
    assert integer.threshold() == 5
    # After a polish: just above the inner end, where "none" settles it.
    end.check_inner = integer.check_inner = True
    assert end.threshold() == pytest.approx(0.25 + PROBE_RESOLUTION / 2)
    assert integer.threshold() == 3


@pytest.mark.parametrize("seed", range(3))
def test_labelled_weight_is_the_labellings_extreme_weight(seed):
    enc, truth, _ = setting(seed)
    budget = truth.min_error + 2
    backend = get_backend("highs")
    for z in truth.D[truth.errors <= budget][:12]:
        for j in range(enc.p):
            for maximize in (False, True):
                mip = _formulations.labelled_weight(
                    enc, j, z, budget, maximize=maximize
                )
                result = backend.solve(mip)
                assert result.status == Status.OPTIMAL
                expected = weight_range(truth.points, z, j, maximize)
                assert result.objective == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("extra", [0, 1])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_probes_from_the_box_pin_every_end(seed, extra, n_jobs):
    enc, truth, baseline = setting(seed)
    budget = truth.min_error + extra
    state = AuditState(enc, baseline, truth.min_error)
    solvers = Solvers(enc, get_backend("highs"), n_jobs=n_jobs)
    ends = box_ends(enc)
    probe_ends(state, solvers, budget, ends, np.array([], int), Deadline(60))
    expected = true_ends(truth, budget)
    for end, value in zip(ends, expected, strict=True):
        bounds = end.bounds()
        # Within the resolution: a model within the class's tolerance may
        # pass the exact end by a little.
        slack = PROBE_RESOLUTION
        assert bounds.lower - slack <= value <= bounds.upper + slack
        assert bounds.upper - bounds.lower <= PROBE_RESOLUTION
        assert end.model is not None and end.model.errors <= budget + 1e-9
        assert end.model.w[end.feature] == pytest.approx(end.sign * end.inner)
    logged = [entry.mip.split("[")[0] for entry in state.log]
    assert "weight_probe" in logged
    assert set(logged) <= {"weight_probe", "min_labelled_weight", "max_labelled_weight"}


def test_integer_weights_end_at_integers():
    enc, _, baseline = setting(1, IntegerWeights(max_weight=3))
    state = AuditState(enc, baseline, 0.0)
    budget = float(state.baseline_errors) + 1
    solvers = Solvers(enc, get_backend("cpsat"))
    ends = box_ends(enc)
    probe_ends(state, solvers, budget, ends, np.array([], int), Deadline(60))
    for end in ends:
        # The exact end, from the weight's own MIP solved to optimality.
        mip = _formulations.coefficient(enc, end.feature, budget, maximize=end.maximize)
        result = get_backend("cpsat").solve(mip)
        assert result.status == Status.OPTIMAL
        assert end.bounds() == Bounds(result.objective, result.objective)
        assert all(e.status != Status.ERROR for e in state.log)


class ScriptedBackend(Backend):
    """Answers every probe with one status and no solution."""

    name = "scripted"

    def __init__(self, status, **kwargs):
        super().__init__(**kwargs)
        self.status = status
        self.calls = []  # shared by the copies each solve gets

    def _solve(self, mip, *, first_solution=False):
        self.calls.append(mip.name)
        bound = math.inf if self.status == Status.INFEASIBLE else -math.inf
        return MIPResult(self.status.value, None, math.nan, bound, 0.0, self.name, "")


def test_unanswered_probes_leave_ends_unchanged():
    enc, truth, baseline = setting(0)
    budget = truth.min_error + 1
    for status, flag in [(Status.NO_SOLUTION, "timed_out"), (Status.ERROR, "stalled")]:
        state = AuditState(enc, baseline, truth.min_error)
        backend = ScriptedBackend(status)
        ends = box_ends(enc)
        before = [end.bounds() for end in ends]
        probe_ends(state, Solvers(enc, backend), budget, ends, np.array([], int),
                   Deadline(5))  # fmt: skip
        assert [end.bounds() for end in ends] == before
        # One probe per end: a retry round needs a longer limit per probe.
        assert len(backend.calls) == len(ends)
        assert all(getattr(end, flag) for end in ends)


def test_an_infeasibility_a_known_model_contradicts_is_refuted():
    enc, truth, baseline = setting(0)
    budget = truth.min_error + 1
    state = AuditState(enc, baseline, truth.min_error)
    # A model of the level set at the largest weight 0, pooled.
    mip = _formulations.coefficient(enc, 0, budget, maximize=True)
    w, b, _ = enc.decode(get_backend("highs").solve(mip).x)
    known = state.add_model(verify(enc, w, b))
    value = float(known.w[0])
    # Its end, with no inner model yet: the first probe asks for ``value``,
    # and a solver claiming that no model reaches it is contradicted.
    end = WeightEnd.from_bounds(0, True, Bounds(-1.0, value), None, (-1.0, 1.0))
    probe_ends(state, Solvers(enc, ScriptedBackend(Status.INFEASIBLE)), budget,
               [end], np.array([], int), Deadline(5))  # fmt: skip
    assert end.bounds() == Bounds(-1.0, value)
    assert end.stalled
    assert [entry.status for entry in state.log] == [Status.ERROR]


def test_no_time_no_probe():
    enc, truth, baseline = setting(0)
    state = AuditState(enc, baseline, truth.min_error)
    backend = ScriptedBackend(Status.NO_SOLUTION)
    ends = box_ends(enc)
    probe_ends(state, Solvers(enc, backend), truth.min_error, ends,
               np.array([], int), Deadline(0))  # fmt: skip
    assert not backend.calls


def test_a_false_infeasibility_is_caught_by_the_second_solver():
    # Every probe's first answer is "infeasible": the second solver (SCIP)
    # finds the models that refute it, and no end moves past its true value.
    enc, truth, baseline = setting(1)
    budget = truth.min_error + 1
    state = AuditState(enc, baseline, truth.min_error)
    ends = box_ends(enc)
    probe_ends(state, Solvers(enc, ScriptedBackend(Status.INFEASIBLE)), budget,
               ends, np.array([], int), Deadline(30))  # fmt: skip
    refuted = [e for e in state.log if "second solver" in e.message]
    assert refuted and all(e.status == Status.ERROR for e in refuted)
    for end, value in zip(ends, true_ends(truth, budget), strict=True):
        bounds = end.bounds()
        slack = PROBE_RESOLUTION  # the class's tolerance blurs the rest
        assert bounds.lower - slack <= value <= bounds.upper + slack


def test_an_unconfirmed_infeasibility_proves_nothing(monkeypatch):
    enc, truth, baseline = setting(1)
    budget = truth.min_error + 1
    state = AuditState(enc, baseline, truth.min_error)
    second = ScriptedBackend(Status.NO_SOLUTION)
    monkeypatch.setattr(Solvers, "second_opinion", lambda self, deadline: second)
    ends = box_ends(enc)
    before = [end.bounds() for end in ends]
    probe_ends(state, Solvers(enc, ScriptedBackend(Status.INFEASIBLE)), budget,
               ends, np.array([], int), Deadline(5))  # fmt: skip
    assert [end.bounds() for end in ends] == before
    assert all(end.timed_out for end in ends)
    assert len(second.calls) == len(ends)
