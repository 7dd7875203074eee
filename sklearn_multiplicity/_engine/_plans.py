"""The plans of the requests: their steps, in order, with shares of the budget.

A request is a *target* (the audit of a tolerance, new people, the ends of
the weights, a path ...) and a *plan*: the steps that work towards it. A
share is of the request's budget, the seconds it may spend when it starts,
not of the time left: step ``i`` ends by ``start + (s_1 + ... + s_i) x
budget``, so every step gets at least its own share and time that an earlier
step does not use flows to the later ones. Shares of a plan sum to 1. An
unlimited request runs every step to its end.

Each step names a callable that the request hands to :func:`run_plan`;
a step without one (the groups of an audit without groups) passes its time
on.
"""

import math
import time
from dataclasses import dataclass

from ._scheduling import Deadline


@dataclass(frozen=True)
class Step:
    """One row of a plan.

    Parameters
    ----------
    name : str
        The step's callable in the request.
    share : float
        Its share of the request's budget.
    yields : str
        What it adds to the audit state.
    """

    name: str
    share: float
    yields: str


#: The audit of one tolerance: every person's flag, the most disagreement,
#: each group's, then whatever is still open.
TOLERANCE_AUDIT = (
    Step("ambiguity", 0.45, "flips (witnesses), unflippable patterns (proofs)"),
    Step("discrepancy", 0.35, "disagreeing models, bounds on the most disagreement"),
    Step("groups", 0.10, "each group's disagreeing models and bounds"),
    Step("open", 0.10, "more of both measures, where still open"),
)

#: A path of per-class tolerances: the largest pair first (a flip it proves
#: infeasible is infeasible at every step), then each step in turn.
PER_CLASS_PATH = (
    Step("largest", 0.5, "proofs that hold at every step"),
    Step("steps", 0.5, "both measures at each step"),
)

#: ``fit`` of an auditor whose baseline the class does not realise: a share
#: of the minimum error's account, to say whether the level sets may be empty.
MIN_ERROR_IN_FIT = 0.25

#: The command-line audit under a total time limit: the values at epsilon,
#: which the report leads with, before the path.
COMMAND_LINE_AUDIT = (
    Step("fit", 0.2, "the baseline, the class's minimum error"),
    Step("epsilon", 0.05, "a suggested tolerance (bootstrap), when asked for"),
    Step("measures", 0.35, "the audit at epsilon: both measures, the groups"),
    Step("path", 0.3, "both measures along the tolerances"),
    Step("sampling", 0.1, "the sampled estimate"),
)

#: Without a limit the path goes first: its flip MIPs, solved to optimality
#: once, answer ambiguity at every tolerance, epsilon's included.
COMMAND_LINE_AUDIT_UNLIMITED = (
    COMMAND_LINE_AUDIT[0],
    COMMAND_LINE_AUDIT[1],
    COMMAND_LINE_AUDIT[3],
    COMMAND_LINE_AUDIT[2],
    COMMAND_LINE_AUDIT[4],
)

PLANS = {
    "tolerance audit": TOLERANCE_AUDIT,
    "per-class path": PER_CLASS_PATH,
    "command-line audit": COMMAND_LINE_AUDIT,
    "command-line audit, unlimited": COMMAND_LINE_AUDIT_UNLIMITED,
}


def run_plan(plan, deadline, steps):
    """Run the ``steps`` of ``plan`` in order, each by its end (see module).

    Parameters
    ----------
    plan : sequence of Step
    deadline : Deadline
        The request's deadline; its time left now is the budget.
    steps : dict
        ``name -> callable(deadline)``; rows without one pass their time on.
    """
    start, budget = time.perf_counter(), deadline.remaining()
    reached = 0.0
    for step in plan:
        reached += step.share
        if deadline.expired():
            return
        run = steps.get(step.name)
        if run is None:
            continue
        if math.isinf(budget):
            run(deadline)
            continue
        seconds = start + reached * budget - time.perf_counter()
        run(Deadline(max(seconds, 0.0), per_mip=deadline.per_mip, within=deadline))
