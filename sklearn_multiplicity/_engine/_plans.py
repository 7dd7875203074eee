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

Inside a request, the certifiers' own steps (the second half of this module)
take shares of the time *left* when each starts (``deadline.share(x)``), in
the order the certifier runs them; the rest goes to its MIPs. A share keyed
``"... without identities"`` replaces its twin when the encoding has no
affine-identity rows: the LP relaxations then prove little (on German
credit, nothing) and the searches matter more.
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

# -- The certifiers' steps: shares of the time left --------------------------

#: Ambiguity at one budget (``AmbiguityCertifier.certify``), in order:
AMBIGUITY_STEPS = {
    # the search for models before the LP proofs and the MIPs (its fits and
    # LPs check the deadline);
    "search": 0.3,
    "search without identities": 0.7,
    # then the flips of a sparse class support by support (exact when they
    # all finish, see ``_supports``);
    "support": 0.5,
    # the LP proofs, so that a slow screen leaves time for the descent and
    # the MIPs;
    "screen": 0.85,
    # the ascents over directions under a rate gap whose groups columns tell
    # apart (``ascent rounds`` at most, each aiming at what the ones before
    # left);
    "ascent": 0.1,
    # the descent (exact line searches from the best known flip of each
    # pattern left), before the flip MIPs.
    "descent": 0.5,
}
#: Rounds of the ambiguity certifier's ascent.
ASCENT_ROUNDS = 5

#: Discrepancy at one budget (``DiscrepancyCertifier.request``), in order:
DISCREPANCY_STEPS = {
    # a sparse class's disagreement MIPs support by support (exact when they
    # all finish);
    "support": 0.5,
    # the search for models (also the deadline of the disagreement and
    # offset models of its directions);
    "search": 0.25,
    "search without identities": 0.4,
    # the ascent over directions under a rate gap (see ``_offsets``);
    "offsets": 0.1,
    # moving the best model past one pattern at a time (``moved_models``);
    # without identity rows the MIP finds little and the moves much (German
    # credit: discrepancy found from 5.4% to 17.0% in 116 moves, 30 s);
    "moves": 0.1,
    "moves without identities": 0.3,
    # the descent of the best model towards more disagreement;
    "descent": 0.1,
    # the LP proofs that fix labels in the disagreement MIP;
    "screen": 0.35,
    "screen without identities": 0.05,
    # an LP dive from the MIP's relaxation (``_dive``), which often ends at
    # the MIP's optimum; the MIP gets the rest.
    "dive": 0.2,
}

#: A time-limited discrepancy path first brackets every
#: ``spacing``-th open budget with a disagreement MIP of at most ``seconds``,
#: using at most ``share`` of the time left (``DiscrepancyPaths.path``).
BRACKETING = {"spacing": 10, "seconds": 5.0, "share": 0.2}

#: The minimum error (``solve_min_error``), in order:
MIN_ERROR_STEPS = {
    # descents from the best warm start (exact line searches of the 0-1 loss);
    "descent": 0.1,
    # a sparse class's minimum-error MIPs support by support; if they do not
    # all finish, the joint MIP gets the rest, from the best model found;
    "support": 0.5,
    # infeasible subsets (their bound and cuts) before the MIP.
    "subsets": 0.1,
}

#: The ends of the weights (``coefficient_ranges``), in order:
COEFFICIENT_STEPS = {
    # the sign tests, which come first: a sign is what a reader looks for;
    "signs": 0.5,
    # the weights' own MIPs, which settle small problems exactly; bisection
    # probes (``_weight_probes``) narrow what they leave open in the rest.
    "weight MIPs": 0.25,
}

PLANS = {
    "tolerance audit": TOLERANCE_AUDIT,
    "per-class path": PER_CLASS_PATH,
    "command-line audit": COMMAND_LINE_AUDIT,
    "command-line audit, unlimited": COMMAND_LINE_AUDIT_UNLIMITED,
}


def run_plan(plan, deadline, steps, *, every_step=False):
    """Run the ``steps`` of ``plan`` in order, each by its end (see module).

    Parameters
    ----------
    plan : sequence of Step
    deadline : Deadline
        The request's deadline; its time left now is the budget.
    steps : dict
        ``name -> callable(deadline)``; rows without one pass their time on.
    every_step : bool, default=False
        Once the request's time is up, still run the steps left, each with
        an expired deadline (to report what is known), instead of stopping.
    """
    start, budget = time.perf_counter(), deadline.remaining()
    reached = 0.0
    for step in plan:
        reached += step.share
        if deadline.expired():
            if not every_step:
                return
            if step.name in steps:
                steps[step.name](Deadline(0.0))
            continue
        run = steps.get(step.name)
        if run is None:
            continue
        if math.isinf(budget):
            run(deadline)
            continue
        seconds = start + reached * budget - time.perf_counter()
        run(Deadline(max(seconds, 0.0), per_mip=deadline.per_mip, within=deadline))
