"""Ambiguity of people outside the training data."""

import numpy as np

from .._core import Status, admits, verify
from .._mip import IdentitySeparator, _formulations, encode
from ._scheduling import Deadline
from ._state import in_class_or_repaired


def flip_new_patterns(
    state, solvers, patterns, baseline_new, budget, cuts, *, deadline=None
):
    """Which new patterns a model of the level set predicts differently.

    Known models within the budget decide most patterns for free; each
    remaining pattern gets a flip MIP in an encoding extended with it.

    Parameters
    ----------
    state : AuditState
    solvers : Solvers
    patterns : ndarray of shape (n_new, n_features)
        Distinct new patterns, in the audit space.
    baseline_new : ndarray of bool, shape (n_new,)
        The baseline's prediction of each.
    budget : float or ClassBudget
    cuts : bool
        Add the affine-identity rows to the extended encoding.
    deadline : Deadline or None

    Returns
    -------
    decided, undecided : ndarray of bool, shape (n_new,)
        Certified ambiguous; not decided within the limits.
    """
    deadline = deadline or Deadline(None)
    patterns = np.asarray(patterns, dtype=float)
    n_new = patterns.shape[0]
    decided = np.zeros(n_new, dtype=bool)
    hypothesis = state.enc.hypothesis
    canonical = state.problem.canonical(patterns, scaled=hypothesis.scaled)
    for m in state.pool.within(budget):
        decided |= ((canonical @ m.w + m.b) > 0) != baseline_new
    todo = np.flatnonzero(~decided)
    undecided = np.zeros(n_new, dtype=bool)
    if todo.size == 0:
        return decided, undecided
    enc = encode(
        state.problem,
        hypothesis,
        extra_patterns=patterns[todo],
        cuts=cuts,
        constraints=state.enc.constraints,
    )
    separator = (
        IdentitySeparator(enc, time_limit=deadline.limit())
        if enc.n_identities
        else None
    )

    def learn(w, b, source):
        model = in_class_or_repaired(enc, verify(enc, w, b, source=source))
        if model is not None and admits(model, budget):
            decided[:] |= ((canonical @ model.w + model.b) > 0) != baseline_new

    for j, index in enumerate(todo):
        if decided[index]:
            continue
        if deadline.expired():
            undecided[index] = True
            continue
        mip = _formulations.flip(
            enc, enc.n_train + j, int(not baseline_new[index]), budget=budget
        )
        if separator is not None:
            mip, relaxation = separator.tighten(mip, time_limit=deadline.limit())
            if relaxation.bound == np.inf:  # LP infeasible: no flip in budget
                continue
            if relaxation.x is not None:  # the LP's own model may flip it
                learn(*relaxation.model(enc), f"LP of {mip.name}")
                if decided[index]:
                    continue
        result = solvers.solve(mip, deadline, first_solution=True)
        state.record(mip, result)
        if result.has_solution:
            learn(*enc.decode(result.x)[:2], mip.name)
        if not decided[index] and result.status != Status.INFEASIBLE:
            undecided[index] = True
    return decided, undecided & ~decided
