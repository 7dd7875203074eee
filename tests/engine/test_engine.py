"""The engine driven through its session, against enumerated ground truth."""

import re

import numpy as np
import pytest
from brute_force import Truth, random_tiny

from sklearn_multiplicity._core import Status
from sklearn_multiplicity._engine import AuditSession, Deadline, capped
from sklearn_multiplicity._mip import MIPResult
from sklearn_multiplicity.backends import Backend


def open_session(X, y, **settings):
    """A session on ``(X, y)`` whose baseline is the 0-1 optimal model."""
    session = AuditSession.from_data(X, np.asarray(y), **settings)
    fit = session.min_error(Deadline(None))
    best = fit.model
    rows = best.z[session.problem.inverse]
    coef, intercept = session.problem.to_original(best.w, best.b)
    session.start(rows, coef, intercept, min_error=fit)
    return session, fit


def test_figure_one_of_the_paper():
    # Four points, 25 people each, labelled XOR: every linear model errs on
    # at least one point; at eps = 0 some optimal model flips each person
    # (ambiguity 100%) and one flips at most two points (discrepancy 50%).
    X = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], 25, axis=0)
    y = np.repeat([0, 1, 1, 0], 25)
    session, fit = open_session(X, y)
    assert fit.status == Status.OPTIMAL and fit.lower_bound == 25.0
    budget = session.level_set.budget(0.0)
    assert budget == 25.0
    session.certify_ambiguity(budget, Deadline(None))
    assert session.ambiguity_bounds(budget).lower == 1.0
    assert session.ambiguity_bounds(budget).certified
    result = session.discrepancy.discrepancy(budget)
    assert result.bounds.lower == result.bounds.upper == 0.5
    assert session.state.disagreement(result.model, np.full(4, 25.0)) == 50.0


@pytest.mark.parametrize("seed", range(6))
def test_session_matches_enumeration(seed):
    X, y = random_tiny(seed, n=9, d=2, levels=3)
    truth = Truth(X, y)
    session, fit = open_session(X, y)
    assert fit.model.errors == truth.min_error
    baseline, *_ = session.flip_evidence(session.level_set.budget(0))
    err0 = float((~baseline) @ truth.pos + baseline @ truth.neg)
    for eps in (0.0, 0.12, 0.3):
        budget = session.level_set.budget(eps)
        assert session.certify_ambiguity(budget, Deadline(None)).size == 0
        bounds = session.ambiguity_bounds(budget)
        assert bounds.certified
        assert bounds.lower == pytest.approx(truth.ambiguity(baseline, err0, eps))
        _, sure, maybe, _ = session.flip_evidence(budget)
        np.testing.assert_array_equal(sure, truth.flippable(baseline, err0, eps))
        np.testing.assert_array_equal(sure, maybe)
        disc = session.discrepancy.discrepancy(budget)
        assert disc.bounds.certified
        assert disc.bounds.lower == pytest.approx(
            truth.discrepancy(baseline, err0, eps)
        )


class NoProof(Backend):
    """Finds nothing and proves nothing."""

    name = "noproof"

    def _solve(self, mip, *, first_solution=False):
        worst = np.inf if mip.maximize else -np.inf
        return MIPResult(Status.NO_SOLUTION, None, np.nan, worst, 0.0, self.name)


# Seeds whose discrepancy needs a MIP after ambiguity (the others are settled
# by the relations between the measures alone).
@pytest.mark.parametrize("seed", [0, 1, 3, 5])
def test_unproven_mips_leave_honest_bounds(seed):
    X, y = random_tiny(seed, n=10, d=2, levels=4)
    truth = Truth(X, y)
    session, _ = open_session(X, y, cuts=False)
    session.backend = NoProof()
    baseline, *_ = session.flip_evidence(0)
    err0 = float((~baseline) @ truth.pos + baseline @ truth.neg)
    for eps in (0.1, 0.3):
        budget = session.level_set.budget(eps)
        session.certify_ambiguity(budget, Deadline(None))
        amb = session.ambiguity_bounds(budget)
        assert amb.lower <= truth.ambiguity(baseline, err0, eps) <= amb.upper
        disc = session.discrepancy.discrepancy(budget).bounds
        assert disc.lower <= truth.discrepancy(baseline, err0, eps) <= disc.upper
    unproven = [entry.status for entry in session.log if entry.solver == "noproof"]
    assert unproven and set(unproven) == {Status.NO_SOLUTION}


class RecordingNoProof(NoProof):
    """Finds nothing, proves nothing, and records the patterns of its flip
    MIPs in the order they were asked."""

    name = "recording-noproof"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.flipped = []

    def _solve(self, mip, *, first_solution=False):
        match = re.match(r"flip\[pattern (\d+) ", mip.name)
        if match:
            self.flipped.append(int(match.group(1)))
        return super()._solve(mip, first_solution=first_solution)


@pytest.mark.parametrize("exact", [False, True])
def test_flip_mips_a_limit_stopped_are_asked_again_last(exact):
    X, y = random_tiny(0, n=14, d=2, levels=5)
    session, _ = open_session(X, y, cuts=False)
    session.backend = backend = RecordingNoProof()
    budget = session.level_set.budget(0.1)
    state = session.state
    session.certify_ambiguity(budget, Deadline(None), exact=exact)
    first = backend.flipped
    assert first, "the case needs flip MIPs"
    assert len(set(first)) == len(first)  # one MIP per pattern and request
    # Every MIP it asked ended without deciding its pattern: each counts.
    assert np.array_equal(np.flatnonzero(state.flip_tries), np.sort(first))
    # A pattern that never had a MIP is asked before those that had one.
    state.flip_tries[:] = 0
    state.flip_tries[first[0]] = 1
    backend.flipped = []
    session.certify_ambiguity(budget, Deadline(None), exact=exact)
    assert backend.flipped[-1] == first[0]
    assert sorted(backend.flipped) == sorted(first)


def test_an_expired_deadline_learns_nothing():
    X, y = random_tiny(3, n=10, d=2, levels=4)
    session, _ = open_session(X, y)
    n_models, n_logged = len(session.state.pool), len(session.log)
    expired = Deadline(0.0)
    budget = session.level_set.budget(0.3)
    session.certify_ambiguity(budget, expired)
    session.discrepancy.discrepancy(budget, deadline=expired)
    assert len(session.state.pool) == n_models
    assert len(session.log) == n_logged


def test_capped_blocks_bound_every_deadline_made_inside():
    assert Deadline(None).remaining() == np.inf
    with capped(Deadline(5.0)):
        inner = Deadline(100.0, per_mip=20.0)
        assert inner.remaining() <= 5.0 and inner.per_mip == 20.0
        assert inner.limit() <= 5.0
        assert Deadline(None).remaining() <= 5.0
        with capped(Deadline(60.0)):  # an inner cap never ends later
            assert Deadline(None).remaining() <= 5.0
        with capped(Deadline(1.0)):
            assert Deadline(None).remaining() <= 1.0
    assert Deadline(None).remaining() == np.inf


def test_a_capped_request_learns_nothing_once_the_cap_is_up():
    X, y = random_tiny(3, n=10, d=2, levels=4)
    session, _ = open_session(X, y)
    n_logged = len(session.log)
    with capped(Deadline(0.0)):
        budget = session.level_set.budget(0.3)
        session.certify_ambiguity(budget, Deadline(100.0))
        session.discrepancy.discrepancy(budget, deadline=Deadline(100.0))
    assert len(session.log) == n_logged


def test_deadline_limits_each_mip_by_the_time_left():
    assert Deadline(None).limit() is None
    assert Deadline(None, per_mip=3.0).limit() == 3.0
    assert Deadline(None, per_mip=3.0).limit(1.0) == 1.0
    assert Deadline(2.0, per_mip=30.0).limit() <= 2.0
    inner = Deadline(100.0, within=Deadline(1.0))
    assert inner.remaining() <= 1.0
    assert Deadline(0.0).expired() and Deadline(0.0).limit() == 1e-3
    half = Deadline(10.0, per_mip=4.0).share(0.5)
    assert 4.0 < half.remaining() <= 5.0 and half.per_mip == 4.0
    assert Deadline(None).share(0.5).remaining() == np.inf
