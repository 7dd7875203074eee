"""Ambiguity of people outside the training data.

A model of the class predicts a person positive iff its score is ``> 0``
(the class's own rule; a margin constrains training patterns only, see
:mod:`.._core._hypothesis`). A new person is ambiguous at a budget iff some
model within it scores them on the other side of 0 from the baseline's
prediction: one rule, whether a known model or a MIP answers.

Each distinct person is asked alone, in the training encoding plus one row
on that person's score (:func:`.._mip._formulations.score_flip`), so an
answer depends on that person and the training data only, never on who else
is in the call. Every model found on the way joins the audit's pool, where
it answers other people (and training patterns) for free, and every proof
that a person keeps the baseline's prediction is kept by pattern and budget,
so asking again costs nothing.
"""

from enum import Enum

import numpy as np

from .._core import TOLERANCE, ClassBudget, Status, admits, verify
from .._mip import _formulations
from ._scheduling import Deadline


class Answer(Enum):
    """What the MIPs of one new person settled."""

    FLIP = "flip"  # a model within the budget predicts the other label
    STABLE = "stable"  # proven: no model within the budget does
    OPEN = "open"  # a limit stopped the MIPs first


def flip_new_patterns(state, solvers, patterns, baseline_new, budget, *, deadline=None):
    """Which new patterns a model of the level set predicts differently.

    Known models within the budget decide most patterns for free; each
    remaining pattern gets its own MIPs (:func:`ask_one`).

    Parameters
    ----------
    state : AuditState
    solvers : Solvers
    patterns : ndarray of shape (n_new, n_features)
        Distinct new patterns, in the audit space.
    baseline_new : ndarray of bool, shape (n_new,)
        The baseline's prediction (positive) of each.
    budget : float or ClassBudget
    deadline : Deadline or None

    Returns
    -------
    decided, undecided : ndarray of bool, shape (n_new,)
        Certified ambiguous; not decided within the limits.
    """
    deadline = deadline or Deadline(None)
    enc = state.enc
    baseline_new = np.asarray(baseline_new, dtype=bool)
    canonical = state.problem.canonical(
        np.asarray(patterns, dtype=float), scaled=enc.hypothesis.scaled
    )
    decided = np.zeros(baseline_new.size, dtype=bool)
    for model in state.pool.within(budget):
        decided |= flips_of(model, canonical, baseline_new)
    undecided = np.zeros(baseline_new.size, dtype=bool)
    for index in np.flatnonzero(~decided):
        if decided[index]:  # a model found for another person flips this one
            continue
        key = (canonical[index].tobytes(), bool(baseline_new[index]))
        if proven_stable(state.stable_new.get(key, ()), budget):
            continue
        if deadline.expired():
            undecided[index] = True
            continue
        answer, models = ask_one(
            state, solvers, canonical, index, baseline_new, budget, deadline
        )
        for model in models:
            decided |= flips_of(model, canonical, baseline_new)
        if answer is Answer.STABLE:
            state.stable_new.setdefault(key, []).append(budget)
        elif answer is Answer.OPEN:
            undecided[index] = True
    return decided, undecided & ~decided


def flips_of(model, canonical, baseline_new):
    """Mask of the people ``model`` predicts unlike the baseline (score > 0)."""
    return ((canonical @ model.w + model.b) > 0) != baseline_new


def proven_stable(budgets, budget):
    """Whether a proof at one of ``budgets`` covers ``budget``: a person no
    model within a budget flips is flipped by none within a smaller one."""
    for proven in budgets:
        if isinstance(budget, ClassBudget) != isinstance(proven, ClassBudget):
            continue
        if isinstance(budget, ClassBudget):
            if (
                budget.false_positives <= proven.false_positives + TOLERANCE
                and budget.false_negatives <= proven.false_negatives + TOLERANCE
            ):
                return True
        elif budget <= proven + TOLERANCE:
            return True
    return False


def ask_one(state, solvers, canonical, index, baseline_new, budget, deadline):
    """Settle whether a model within ``budget`` flips person ``index``.

    First the closed question (:func:`~.._mip._formulations.score_flip`
    with the error objective, stopped at its first solution): infeasible, the
    person is stable; a solution strictly across 0 flips them. A solution
    exactly at 0 (the closed row binding) leaves the strict question open,
    and the person's extreme score within the budget settles it.

    Returns
    -------
    answer : Answer
    models : list of CanonicalModel
        The verified models within ``budget`` found on the way (pooled).
    """
    enc = state.enc
    x = canonical[index]
    positive = not baseline_new[index]
    floor = enc.hypothesis.positive_floor(x) if positive else 0.0
    models = []

    def learn(w, b, source):
        """Pool a solution; whether it flips the person."""
        model = state.add_model(verify(enc, w, b, source=source))
        if model is None or not admits(model, budget):
            return False
        models.append(model)
        return bool(
            flips_of(model, canonical[index : index + 1], baseline_new[[index]])[0]
        )

    for objective in ("errors", "score"):
        mip = _formulations.score_flip(
            enc, x, positive=positive, budget=budget, floor=floor, objective=objective
        )
        mip, relaxation = solvers.small(mip, deadline=deadline)
        if relaxation is not None:
            if _excludes(relaxation.bound, objective, positive):
                return Answer.STABLE, models
            if relaxation.x is not None and learn(
                *relaxation.model(enc), f"LP of {mip.name}"
            ):
                return Answer.FLIP, models
        result = solvers.solve(mip, deadline, first_solution=objective == "errors")
        state.record(mip, result)
        if result.status == Status.INFEASIBLE:
            return Answer.STABLE, models
        if result.has_solution and learn(*enc.decode(result.x)[:2], mip.name):
            return Answer.FLIP, models
        if objective == "score" and _excludes(result.bound, objective, positive):
            return Answer.STABLE, models
        if not result.has_solution:  # a limit stopped it: nothing settled
            return Answer.OPEN, models
    return Answer.OPEN, models


def _excludes(bound, objective, positive):
    """Whether a certified bound of a :func:`score_flip` MIP proves that no
    model within its budget scores the person strictly across 0.

    With the error objective only infeasibility proves it (a bound of
    ``+inf``); with the score objective, a largest score of at most 0 (when
    asking for ``> 0``) or a least score above 0 (when asking for ``<= 0``).
    """
    if objective == "errors":
        return bool(bound == np.inf)
    return bool(bound <= 0.0) if positive else bool(bound > 0.0)
