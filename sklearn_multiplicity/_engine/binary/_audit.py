"""The audit of one tolerance, run (or continued) by its plan.

The audit of a tolerance is one computation that grows: every call that asks
about the tolerance continues it from the audit state within what its
account has left (:mod:`._accounts`), by the plan
:data:`~._plans.TOLERANCE_AUDIT`, and a call whose question the state
settles returns at once.
"""

from .._records import group_key
from ..timing._plans import PER_CLASS_PATH, TOLERANCE_AUDIT, run_plan
from ..timing._scheduling import Deadline


def read_discrepancy(session, budget, weights=None, key="all"):
    """The discrepancy bounds known at ``budget``, with no solver call."""
    return session.discrepancy_bounds(
        budget, weights=weights, key=key, deadline=Deadline(0.0)
    )


def is_settled(session, budget):
    """Whether the state certifies every measure of the audit at ``budget``:
    every person's flag, the discrepancy, each group's discrepancy."""
    if session.n_undetermined(budget) > 0:
        return False
    if not read_discrepancy(session, budget).bounds.certified:
        return False
    return all(
        read_discrepancy(session, budget, weights, group_key(label)).bounds.certified
        for label, weights in session.groups.items()
    )


def audit_tolerance(session, budget, deadline):
    """Run the plan of the audit at ``budget`` until ``deadline``.

    Parameters
    ----------
    session : AuditSession
    budget : float or ClassBudget
    deadline : Deadline
    """

    def ambiguity(deadline):
        session.certify_ambiguity(budget, deadline)

    def discrepancy(deadline):
        session.discrepancy_bounds(budget, deadline=deadline)

    def groups(deadline):
        # Each group gets an equal share of what is left when it starts.
        items = list(session.groups.items())
        for i, (label, weights) in enumerate(items):
            session.discrepancy_bounds(
                budget,
                weights=weights,
                key=group_key(label),
                deadline=deadline.share(1.0 / (len(items) - i)),
            )

    def still_open(deadline):
        ambiguity(deadline)
        discrepancy(deadline)
        if session.groups:
            groups(deadline)

    steps = {"ambiguity": ambiguity, "discrepancy": discrepancy, "open": still_open}
    holds = ()
    if session.groups:
        steps["groups"] = groups
        holds = ("groups",)
    run_plan(TOLERANCE_AUDIT, deadline, steps, holds=holds)


def per_class_path(session, budgets, deadline):
    """Both measures along per-class ``budgets`` that grow in both kinds of
    error, by the plan :data:`~._plans.PER_CLASS_PATH`.

    The largest pair first: a flip it proves infeasible is infeasible at
    every step (each is no larger in either kind of error), so the steps
    below only decide the patterns the largest pair can flip.

    Returns
    -------
    ambiguity, discrepancy : list of Bounds
        Related at each step and monotone along the steps.
    """

    def largest(deadline):
        session.certify_ambiguity(budgets[-1], deadline)

    def steps(deadline):
        for budget in budgets:
            session.certify_ambiguity(budget, deadline)
            session.discrepancy_bounds(budget, deadline=deadline)

    run_plan(PER_CLASS_PATH, deadline, {"largest": largest, "steps": steps})
    discrepancy = [read_discrepancy(session, b).bounds for b in budgets]
    return session.path_bounds(budgets, discrepancy)
