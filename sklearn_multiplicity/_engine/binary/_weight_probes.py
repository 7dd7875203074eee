"""Bisection probes on the ends of coefficient ranges.

A probe asks whether a model within the budget has weight ``j`` at least
``t`` (for a largest end; at most ``-t`` for a least end): the fewest-errors
MIP :func:`~.._mip._formulations.weight_probe`, stopped at its first
solution. A model it finds lifts the inner end to its weight; an infeasible
probe proves the end below ``t``. An error objective prunes by the budget far
sooner than the weight's own objective, so probes narrow the ends that the
weight MIPs leave open. The first probe of an end is at its outer bound (on
unconstrained data often the edge of the weight box, which a model either
attains, settling the end exactly, or not); the next ones halve the band.
"""

import math
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from ..._core import TOLERANCE, Bounds, ClassBudget, LevelSet, Status, admits, verify
from ..._mip import _formulations
from ..timing._scheduling import Deadline, Job

#: Width below which an end is not probed further: ten times the tolerance
#: (1e-6, on scores and weights) within which a solver's model counts as one
#: of the class, so that no probe asks for what that tolerance blurs.
PROBE_RESOLUTION = 1e-5

#: How much longer a retry round's time per probe must be than the last
#: round's for ends whose probe ran out of time to be taken up again.
RETRY_GROWTH = 1.5


@dataclass
class WeightEnd:
    """Certified bounds on one end of one weight, in the end's own direction.

    Values are ``sign * w_j`` (``sign`` -1 for a least end), so that every
    end is a largest value: ``inner <= value <= outer``.

    Attributes
    ----------
    feature : int
        Index of the weight among the canonical columns.
    maximize : bool
        Whether this is the largest (else the least) value of the weight.
    inner, outer : float
        Inner (a known model within the budget; ``-inf`` when none) and outer
        bounds on ``sign * w_j``.
    model : CanonicalModel or None
        A verified model of the level set at ``inner``.
    floor : float
        The least ``sign * w_j`` of the class (the other edge of the weight
        box), the low side of the first bisection step when no model is
        known.
    integer : bool
        Whether the weight is integer (thresholds are then integers).
    probes : int
        Probes answered so far.
    check_inner : bool
        Whether the next probe is just above the inner end (set when a
        polish raised it after any other probe).
    timed_out : bool
        Whether the last probe ran out of time (the end waits for a round
        with a longer limit).
    stalled : bool
        Whether a probe failed or was refuted (the end is not probed again).
    """

    feature: int
    maximize: bool
    inner: float
    outer: float
    model: object = None
    floor: float = -math.inf
    integer: bool = False
    probes: int = 0
    check_inner: bool = field(default=False, repr=False)
    timed_out: bool = field(default=False, repr=False)
    stalled: bool = field(default=False, repr=False)

    @classmethod
    def from_bounds(cls, feature, maximize, bounds, model, box, *, integer=False):
        """The end of ``bounds`` (on ``w_j`` itself, its outer side clipped
        to the weight's ``box`` ``(least, largest)``) and its inner ``model``."""
        sign = 1.0 if maximize else -1.0
        inner, outer = (bounds.lower, bounds.upper)[:: int(sign)]
        floor, edge = sorted((sign * box[0], sign * box[1]))
        outer = sign * min(sign * outer, edge)
        if integer:
            outer = math.floor(sign * outer + TOLERANCE)  # the value is integer
            return cls(feature, maximize, sign * inner, outer, model, floor, True)
        return cls(feature, maximize, sign * inner, sign * outer, model, floor)

    @property
    def sign(self):
        return 1.0 if self.maximize else -1.0

    @property
    def width(self):
        return self.outer - self.inner

    @property
    def open(self):
        """Whether a probe could still narrow the end."""
        wide = self.width > max(PROBE_RESOLUTION, TOLERANCE)
        bracketed = self.probes == 0 or math.isfinite(max(self.inner, self.floor))
        return wide and bracketed and not (self.stalled or self.timed_out)

    def threshold(self):
        """Where the next probe asks for a model: the outer bound first; just
        above the inner end after a polish raised it (an infeasible answer
        then settles the end); else the middle of the band."""
        if self.probes == 0:
            return self.outer
        if self.check_inner:
            return self.inner + (1 if self.integer else 0.5 * PROBE_RESOLUTION)
        middle = 0.5 * (max(self.inner, self.floor) + self.outer)
        return math.ceil(middle) if self.integer else middle

    def bounds(self):
        """The certified :class:`Bounds` on the end's value of ``w_j``."""
        if self.maximize:
            return Bounds(self.inner, self.outer)
        return Bounds(-self.outer, -self.inner)


def probe_ends(state, solvers, budget, ends, fixed, deadline):
    """Narrow the open :class:`WeightEnd` ``ends`` in place by bisection.

    Probes run ``solvers.n_jobs`` at a time, widest band first, until every
    end is settled to :data:`PROBE_RESOLUTION` or ``deadline`` ends. In each
    round a probe gets at most an equal share of the time among the ends
    open at its start, so that one hard end does not starve the others; ends
    whose probe ran out of time are taken up again in a next round, with the
    larger share the time left then gives. ``fixed`` patterns keep the
    baseline's label (proven unflippable within ``budget``).
    """
    workers = max(1, int(solvers.n_jobs))
    last_cap = 0.0
    while not deadline.expired():
        n_open = sum(end.open for end in ends)
        timed_out = [end for end in ends if end.timed_out]
        cap = deadline.remaining() * min(workers, n_open + len(timed_out))
        cap /= max(n_open + len(timed_out), 1)
        if not n_open and (not timed_out or cap < RETRY_GROWTH * last_cap):
            return
        for end in timed_out:
            end.timed_out = False
        _probe_round(state, solvers, budget, ends, fixed, deadline, cap)
        if math.isinf(cap):
            return  # unlimited time: a probe that stopped will stop again
        last_cap = cap


def _probe_round(state, solvers, budget, ends, fixed, deadline, cap):
    """Probe the open ends until none is left or ``deadline`` ends, each
    probe within ``cap`` seconds."""
    workers = max(1, min(int(solvers.n_jobs), sum(end.open for end in ends)))
    if deadline.per_mip is not None:
        cap = min(cap, deadline.per_mip)
    probes = Deadline(None, per_mip=cap, within=deadline)
    running = set()
    second_opinions = []  # jobs confirming an infeasibility, run first

    def next_job():
        if second_opinions:
            return second_opinions.pop(0)
        waiting = [e for e in ends if e.open and id(e) not in running]
        if not waiting or probes.expired():
            return None
        end = max(waiting, key=lambda e: e.width)
        t = end.threshold()
        mip = _formulations.weight_probe(
            state.enc, end.feature, end.sign * t, budget, maximize=end.maximize
        )
        mip = _formulations.fix_labels(state.enc, mip, fixed, state.baseline[fixed])
        mip, _ = solvers.small(mip, deadline=probes)
        running.add(id(end))
        polish = partial(_polish, state, solvers, budget, end, probes)

        def confirm(entry, checked):
            learn = partial(_confirmed, state, budget, end, t, mip, entry, polish,
                            checked, running)  # fmt: skip
            backend = solvers.second_opinion(probes)
            second_opinions.append(Job(mip, learn, True, backend=backend))

        learn = partial(_learn, state, budget, end, t, mip, running, polish, confirm)
        return Job(mip, learn, first_solution=True)

    solvers.hand_out(workers, next_job, probes)


def _learn(state, budget, end, t, mip, running, polish, confirm, result):
    """Narrow ``end`` by the answer of its probe at ``t``.

    ``polish(model)`` gives the model of the most extreme weight with
    ``model``'s labelling; ``confirm(entry, checked)`` queues the probe for a
    second solver, whose agreement an infeasibility needs (the end stays
    busy until it answers).
    """
    entry = state.record(mip, result)
    j, sign = end.feature, end.sign
    checked, end.check_inner = end.check_inner, False
    end.probes += 1
    if result.has_solution:
        _lift(state, budget, end, result, mip.name, polish, checked)
    if _refuted(result, budget):
        # No model within the budget reaches t, unless a known one does.
        if known_reaches(state, budget, j, sign, t):
            entry.refute("infeasibility refuted by a verified model")
            end.stalled = True
        else:
            confirm(entry, checked)
            return
    elif result.status == Status.ERROR:
        end.stalled = True
    elif not result.has_solution:
        end.timed_out = True
    _settle(end, running)


def _confirmed(state, budget, end, t, mip, entry, polish, checked, running, second):
    """Narrow ``end`` by the second solver's answer to its probe at ``t``,
    which the first solver found infeasible (``entry``)."""
    state.record(mip, second)
    if second.has_solution:
        entry.refute("infeasibility refuted by a second solver's model")
        _lift(state, budget, end, second, mip.name, polish, checked)
    if _refuted(second, budget):
        # The end is below t: at most t (t - 1 for an integer weight).
        end.outer = min(end.outer, t - 1 if end.integer else t)
    elif not second.has_solution:
        end.timed_out = True  # unconfirmed: perhaps with more time
    _settle(end, running)


def _settle(end, running):
    """Free ``end`` for its next probe."""
    running.discard(id(end))
    if 0 < end.inner - end.outer <= TOLERANCE:
        end.inner = end.outer  # an attained bound, up to rounding


def known_reaches(state, budget, j, sign, t):
    """Whether a pooled model within ``budget`` has ``sign * w_j >= t``."""
    return any(sign * m.w[j] >= t - TOLERANCE for m in state.pool.within(budget))


def _lift(state, budget, end, result, source, polish, checked):
    """Raise ``end``'s inner bound to the model of ``result`` (polished)."""
    j, sign = end.feature, end.sign
    w, b, _ = state.enc.decode(result.x)
    found = state.add_model(verify(state.enc, w, b, source=source))
    for model in (found, polish(found)):
        if _raises(model, end, budget):
            end.inner, end.model = float(sign * model.w[j]), model
            # Check just above it next, unless this probe did: a run of
            # checks that find models must not stall the bisection.
            end.check_inner = not checked


def _raises(model, end, budget):
    """Whether ``model`` is a model within ``budget`` beyond ``end``'s inner
    bound."""
    if model is None or not admits(model, budget):
        return False
    return end.sign * model.w[end.feature] > end.inner


def _polish(state, solvers, budget, end, deadline, model):
    """The model with ``model``'s labelling of the training patterns whose
    weight is at ``end`` (:func:`~.._mip._formulations.labelled_weight`);
    None when ``model`` is None or the solve fails."""
    if model is None or deadline.expired():
        return None
    enc, k = state.enc, state.problem.n_patterns
    mip = _formulations.labelled_weight(
        enc, end.feature, model.z[:k], budget, maximize=end.maximize
    )
    result = solvers.solve(mip, deadline)
    state.record(mip, result)
    if not result.has_solution:
        return None
    w, b, _ = enc.decode(result.x)
    return state.add_model(verify(enc, w, b, source="polished weight probe"))


def _refuted(result, budget):
    """Whether the probe proves that no model within ``budget`` reaches it."""
    if result.status == Status.INFEASIBLE:
        return True
    if isinstance(budget, ClassBudget) or result.status == Status.ERROR:
        return False
    bound = result.bound
    return bool(np.isfinite(bound) and not LevelSet.within(bound, budget))


__all__ = ["PROBE_RESOLUTION", "WeightEnd", "known_reaches", "probe_ends"]
