"""Ambiguity of people outside the training data.

One rule decides a new person, whoever answers (a known model or a MIP): the
person is contestable at a budget iff some model within it scores them on
the other side of 0 from the baseline's prediction, or exactly at 0 (a tie;
see :mod:`.._core._hypothesis`). The margin of the class constrains training
patterns only. Both sides of the rule are closed sets of models, so one
feasibility MIP decides it exactly.

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

from ..._core import TOLERANCE, ClassBudget, Status, admits, verify
from ..._mip import _formulations
from ..timing._scheduling import Deadline

#: A score within this of 0 counts as 0 (a tie): a solver's solution meets
#: the closed score row within its feasibility tolerance (1e-9 for HiGHS).
SCORE_TOLERANCE = 1e-9


class Answer(Enum):
    """What the MIPs of one new person settled."""

    FLIP = "flip"  # a model within the budget predicts the other label
    STABLE = "stable"  # proven: no model within the budget does
    OPEN = "open"  # a limit stopped the MIPs first


def flip_new_patterns(
    state, solvers, patterns, baseline_new, budget, *, unflippable=None, deadline=None
):
    """Which new patterns a model of the level set predicts differently.

    Known models within the budget decide most patterns for free; a person
    who is a training pattern (and gets its baseline prediction) is answered
    by what the audit knows of that pattern; each remaining person gets MIPs
    of their own (:func:`ask_one`), in which the training patterns proven
    unflippable keep their label.

    Parameters
    ----------
    state : AuditState
    solvers : Solvers
    patterns : ndarray of shape (n_new, n_features)
        Distinct new patterns, in the audit space.
    baseline_new : ndarray of bool, shape (n_new,)
        The baseline's prediction (positive) of each.
    budget : float or ClassBudget
    unflippable : ndarray of bool, shape (n_patterns,) or None
        Training patterns proven unflippable within ``budget``.
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
    if unflippable is None:
        unflippable = np.zeros(state.problem.n_patterns, dtype=bool)
    decided = np.zeros(baseline_new.size, dtype=bool)
    for model in state.pool.within(budget):
        decided |= flips_of(model, canonical, baseline_new)
    seen = training_patterns(enc, canonical)
    undecided = np.zeros(baseline_new.size, dtype=bool)
    for index in np.flatnonzero(~decided):
        if decided[index]:  # a model found for another person flips this one
            continue
        u = seen[index]
        if u >= 0 and unflippable[u] and baseline_new[index] == state.baseline[u]:
            continue  # a training pattern that keeps its label in the level set
        key = (canonical[index].tobytes(), bool(baseline_new[index]))
        if proven_stable(state.stable_new.get(key, ()), budget):
            continue
        if deadline.expired():
            undecided[index] = True
            continue
        answer, models = ask_one(
            state,
            solvers,
            canonical,
            index,
            baseline_new,
            budget,
            unflippable,
            deadline,
        )
        for model in models:
            decided |= flips_of(model, canonical, baseline_new)
        if answer is Answer.STABLE:
            state.stable_new.setdefault(key, []).append(budget)
        elif answer is Answer.OPEN:
            undecided[index] = True
    return decided, undecided & ~decided


def training_patterns(enc, canonical):
    """Index of the training pattern each canonical row equals (-1: none)."""
    index = {row.tobytes(): u for u, row in enumerate(enc.X[: enc.n_train])}
    return np.array([index.get(row.tobytes(), -1) for row in canonical], dtype=int)


def flips_of(model, canonical, baseline_new):
    """Mask of the people ``model`` scores at or across 0 from the baseline's
    side (the rule of this module)."""
    scores = canonical @ model.w + model.b
    return np.where(baseline_new, scores <= SCORE_TOLERANCE, scores >= -SCORE_TOLERANCE)


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


def ask_one(
    state, solvers, canonical, index, baseline_new, budget, unflippable, deadline
):
    """Settle whether a model within ``budget`` flips person ``index``.

    One closed question (:func:`~.._mip._formulations.score_flip`, stopped
    at its first solution), its LP relaxation first: infeasible, the person
    keeps the baseline's prediction; a solution is a model that flips them.
    The training patterns ``unflippable`` keep the baseline's label in it:
    every model within the budget gives it to them.

    Returns
    -------
    answer : Answer
    models : list of CanonicalModel
        The verified models within ``budget`` found on the way (pooled).
    """
    enc = state.enc
    models = []

    def learn(w, b, source):
        """Pool a solution; whether it flips the person."""
        model = state.add_model(verify(enc, w, b, source=source))
        if model is None or not admits(model, budget):
            return False
        models.append(model)
        one = slice(index, index + 1)
        return bool(flips_of(model, canonical[one], baseline_new[one])[0])

    mip = _formulations.score_flip(
        enc, canonical[index], positive=not baseline_new[index], budget=budget
    )
    fixed = np.flatnonzero(unflippable)
    mip = _formulations.fix_labels(enc, mip, fixed, state.baseline[fixed])
    mip, relaxation = solvers.small(mip, deadline=deadline)
    if relaxation is not None:
        if relaxation.bound == np.inf:  # the LP is infeasible: so is the MIP
            return Answer.STABLE, models
        if relaxation.x is not None and learn(
            *relaxation.model(enc), f"LP of {mip.name}"
        ):
            return Answer.FLIP, models
    result = solvers.solve(mip, deadline, first_solution=True)
    state.record(mip, result)
    if result.status == Status.INFEASIBLE:
        return Answer.STABLE, models
    if result.has_solution and learn(*enc.decode(result.x)[:2], mip.name):
        return Answer.FLIP, models
    return Answer.OPEN, models
