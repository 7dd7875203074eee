"""The plans of the requests: their steps, in order, with shares of the budget.

A request is a *target* (the audit of a tolerance, a flip, the most
disagreement, the minimum error, the ends of the weights, a path ...) and a
*plan*: the steps that work towards it, each a technique that says what it
applies to and what it adds to the audit state. A share is of the request's
budget, the seconds it has when it starts, not of the time left: step ``i``
ends by ``start + (s_1 + ... + s_i) x budget``, so every step gets at least
its own share and time that an earlier step does not use flows to the later
ones. Shares of a plan sum to 1; a step that does not apply to the problem
at hand hands its share to the others in proportion. An unlimited request
runs every step to its end.

:class:`Schedule` gives each step of a request its deadline;
:func:`run_plan` runs a plan whose steps are callables. Both are checked
against the plan: a step's condition must be one of :data:`CONDITIONS`, a
callable must name a step of the plan, and a step that applies must have
one, so a misspelt name fails loudly instead of dropping a step.
"""

import math
import time
from dataclasses import dataclass

from ._scheduling import Deadline

#: The conditions a step may apply under, each with the problems it names.
#: A request says which hold for the problem at hand (``holds``); a step
#: whose condition does not hold hands its share to the others.
CONDITIONS = {
    "always": "every problem",
    "support split": "a class that splits by support (MaxNonzero, few supports)",
    "rate gap": "a rate-gap constraint whose groups the columns tell apart",
    "finite limit": "a request under a finite time limit",
    "real weights": "a class with real weights",
    "descents": "a class with real weights and no constraints",
    "sign tests": "weights whose signs are still to be tested",
    "groups": "an audit that watches groups",
}


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
    applies : str, default="always"
        The condition (a key of :data:`CONDITIONS`) under which it applies;
        where it does not hold the request leaves the step out.
    """

    name: str
    share: float
    yields: str
    applies: str = "always"

    def __post_init__(self):
        if self.applies not in CONDITIONS:
            raise ValueError(
                f"Step {self.name!r} applies under {self.applies!r}, which is "
                f"not a condition of the plans ({sorted(CONDITIONS)})."
            )


class Schedule:
    """The deadlines of the steps of one request, by its plan.

    Parameters
    ----------
    plan : sequence of Step
    deadline : Deadline
        The request's deadline; its time left now is the budget.
    holds : collection of str, default=()
        The conditions (:data:`CONDITIONS`) that hold for the problem at
        hand. A step whose condition does not hold does not apply: its share
        goes to the others in proportion.
    """

    def __init__(self, plan, deadline, holds=()):
        unknown = set(holds) - set(CONDITIONS)
        if unknown:
            raise ValueError(f"Unknown conditions {sorted(unknown)}.")
        self.deadline = deadline
        self.start, self.budget = time.perf_counter(), deadline.remaining()
        steps = [step for step in plan if applies(step, holds)]
        total = sum(step.share for step in steps)
        self.ends, reached = {}, 0.0
        for step in steps:
            reached += step.share / total if total > 0 else 0.0
            self.ends[step.name] = reached
        if steps:  # the last step ends with the request, whatever the rounding
            self.ends[steps[-1].name] = 1.0

    def __contains__(self, name):
        return name in self.ends

    @property
    def steps(self):
        """The names of the steps that apply, in the plan's order."""
        return list(self.ends)

    def step(self, name):
        """The deadline of step ``name``: its cumulative end, same per MIP."""
        if name not in self.ends:
            raise KeyError(f"{name!r} is not a step of this request's plan")
        deadline = self.deadline
        if math.isinf(self.budget):
            return deadline
        seconds = self.start + self.ends[name] * self.budget - time.perf_counter()
        return Deadline(max(seconds, 0.0), per_mip=deadline.per_mip, within=deadline)


#: The audit of one tolerance: every person's flag, the most disagreement,
#: each group's, then whatever is still open.
TOLERANCE_AUDIT = (
    Step("ambiguity", 0.45, "flips (witnesses), unflippable patterns (proofs)"),
    Step("discrepancy", 0.35, "disagreeing models, bounds on the most disagreement"),
    Step("groups", 0.10, "each group's disagreeing models and bounds", "groups"),
    Step("open", 0.10, "more of both measures, where still open"),
)

#: A path of per-class tolerances: the largest pair first (a flip it proves
#: infeasible is infeasible at every step), then each step in turn.
PER_CLASS_PATH = (
    Step("largest", 0.5, "proofs that hold at every step"),
    Step("steps", 0.5, "both measures at each step"),
)

#: ``fit`` with the default baseline: the share of ``total_time_limit`` its
#: search for the minimum error may take. The fit is part of the audit of the
#: auditor's ``epsilon`` and is charged to its account, so the readings at
#: ``epsilon`` get what the fit leaves and ``fit`` plus both readings keep to
#: the limit.
FIT_SHARE = 0.5

# -- The certifiers' plans ---------------------------------------------------
# Each has a twin "without identities" for encodings without affine-identity
# rows: their LP relaxations prove little (on German credit, nothing), so
# the searches get more and the LP screens less.

_SPLIT = "support split"
_RATE_GAP = "rate gap"


def _twin(plan, shares):
    """``plan`` with the shares ``{name: share}`` replaced."""
    return tuple(
        Step(s.name, shares.get(s.name, s.share), s.yields, s.applies) for s in plan
    )


#: Ambiguity at one budget (``AmbiguityCertifier.certify``).
AMBIGUITY = (
    Step("search", 0.2, "flips: threshold shifts of known and pulled directions"),
    Step("support", 0.2, "flips and proofs, support by support", _SPLIT),
    Step("screen", 0.35, "unflippable patterns (LP bounds); the LPs' models"),
    Step("ascent", 0.05, "flips: per-class cuts of ascended directions", _RATE_GAP),
    Step("descent", 0.08, "flips: exact line searches from the best known flips"),
    Step("mips", 0.12, "flips and proofs of the patterns still open"),
)
#: Without identity rows the LPs prove nothing and the flip MIPs find
#: little, but the LPs' models start descents, which keep finding flips
#: (breast cancer, 6 features, eps = 1%: flip MIPs found none in 76 s of a
#: 300 s audit, descents 28 in 5.7 s, and 21 in 10.5 s without the LPs'
#: models to start from).
AMBIGUITY_WITHOUT_IDENTITIES = _twin(
    AMBIGUITY, {"search": 0.15, "screen": 0.2, "descent": 0.33, "mips": 0.07}
)
#: Rounds of the ambiguity certifier's ascent.
ASCENT_ROUNDS = 5

#: Ambiguity at a pair of per-class budgets (``ClassBudgetCertifier``): the
#: scalar evidence at the pair's total, threshold shifts within both budgets,
#: then the MIPs (flip MIPs, or the disagreement MIP of a discrepancy).
PER_CLASS = (
    Step("search", 0.2, "flips at the pair's total; the directions searched"),
    Step("screen", 0.35, "patterns unflippable at the pair's total (LP bounds)"),
    Step("shifts", 0.1, "flips within both budgets: per-class thresholds"),
    Step("descent", 0.1, "flips: exact line searches within both budgets"),
    Step("mips", 0.25, "flips and proofs, or the most disagreement"),
)
PER_CLASS_WITHOUT_IDENTITIES = _twin(
    PER_CLASS, {"search": 0.45, "screen": 0.08, "shifts": 0.12}
)

#: Discrepancy at one budget (``DiscrepancyCertifier.request``).
DISCREPANCY = (
    Step("support", 0.5, "the most disagreement, support by support", _SPLIT),
    # Also the deadline of the disagreement and offset models of the
    # directions it finds.
    Step("search", 0.125, "models within the budget: shifts, offsets"),
    Step("offsets", 0.04, "models: per-class cuts of an ascent", _RATE_GAP),
    Step("moves", 0.035, "models: the best one moved past one pattern at a time"),
    Step("descent", 0.03, "models: descents of the best towards disagreement"),
    Step("screen", 0.095, "unflippable patterns, fixed in the MIP"),
    # Often ends at the MIP's optimum; the MIP gets the rest.
    Step("dive", 0.035, "models: an LP dive from the MIP's relaxation"),
    Step("mip", 0.14, "the most disagreement: a model and a bound"),
)
#: Without identity rows the MIP finds little and the moves much (German
#: credit: discrepancy found from 5.4% to 17.0% in 116 moves, 30 s).
DISCREPANCY_WITHOUT_IDENTITIES = _twin(
    DISCREPANCY,
    {
        "search": 0.2,
        "offsets": 0.03,
        "moves": 0.08,
        "descent": 0.02,
        "screen": 0.01,
        "dive": 0.03,
        "mip": 0.13,
    },
)

#: Discrepancy at one budget of a path (its ascending and bracketing
#: passes): the MIP is warm-started with the best model of the budgets below,
#: so the searches before it would only slow the preparation of the next
#: MIP, which runs on the main thread while the solvers work (on COMPAS 1 to
#: 5 s per budget with the searches, against 0.1 to 6 s per MIP).
DISCREPANCY_IN_PATH = (
    Step("screen", 0.5, "unflippable patterns, fixed in the MIP"),
    Step("mip", 0.5, "the most disagreement: a model and a bound"),
)

#: A discrepancy path (``DiscrepancyPaths.path``): the support frontier, then
#: short MIPs at every ``spacing``-th open budget (at most ``seconds`` each,
#: largest first), then the budgets in ascending order.
DISCREPANCY_PATH = (
    Step("support", 0.5, "the most disagreement at every budget", _SPLIT),
    Step("bracketing", 0.1, "bounds at evenly spaced budgets", "finite limit"),
    Step("ascending", 0.4, "both bounds at each budget, the hints passed up"),
)
BRACKETING = {"spacing": 10, "seconds": 5.0}

#: The minimum error (``solve_min_error``).
MIN_ERROR = (
    # Not under constraints (see ``solve_min_error``).
    Step("descent", 0.06, "models: descents from the best warm start", "descents"),
    # If they do not all finish, the joint MIP starts from the best model.
    Step("support", 0.4, "the minimum error, support by support", _SPLIT),
    # As MIP rows they slowed HiGHS's search: only their bound is used.
    Step("subsets", 0.06, "a lower bound from infeasible subsets", "real weights"),
    Step("mip", 0.48, "the minimum error: a model and a bound"),
)

#: The ends of the weights (``coefficient_ranges``).
COEFFICIENT_RANGES = (
    # First: a sign is what a reader looks for.
    Step("signs", 0.5, "signs that no model of the level set takes", "sign tests"),
    # Settle small problems exactly.
    Step("weight mips", 0.125, "both ends of each weight: models and bounds"),
    Step("probes", 0.375, "the ends left open, narrowed by bisection"),
)

#: Seconds for the assessment's root LP (``_assessment``), which stops early
#: with a valid, weaker bound: the assessment comes before any MIP.
ASSESSMENT_LP_SECONDS = 1.0

#: Least seconds of a flip MIP in the first, short round of a K-class
#: ambiguity (each open pattern gets an even share of the time left, at least
#: this; the MIPs stop at their first solution).
K_CLASS_FIRST_ROUND_SECONDS = 1.0

#: The audit of one tolerance of a K-class baseline.
K_CLASS_AUDIT = (
    Step("ambiguity", 0.5, "flips (witnesses), unflippable patterns (proofs)"),
    Step("discrepancy", 0.35, "disagreeing models, bounds on the most disagreement"),
    Step("groups", 0.15, "each group's disagreeing models and bounds", "groups"),
)

#: Ambiguity at one K-class budget: witness LPs and hull proofs (linear
#: programs), then the flip MIPs of the patterns still open.
K_CLASS_AMBIGUITY = (
    Step("witness LPs", 0.15, "flips (witnesses) near the best model known"),
    Step("hull", 0.15, "patterns that keep their label (hull proofs)"),
    Step("flips", 0.7, "flips (witnesses) and proofs of the patterns still open"),
)

#: A path of tolerances of a K-class baseline: the flip MIPs once, to
#: optimality within the largest budget, then one disagreement MIP per
#: tolerance.
K_CLASS_PATH = (
    Step("ambiguity", 0.5, "every pattern's fewest flip errors (witnesses, bounds)"),
    Step("discrepancy", 0.5, "disagreeing models and bounds at each tolerance"),
)

PLANS = {
    "tolerance audit": TOLERANCE_AUDIT,
    "K-class audit": K_CLASS_AUDIT,
    "K-class path": K_CLASS_PATH,
    "K-class ambiguity": K_CLASS_AMBIGUITY,
    "per-class path": PER_CLASS_PATH,
    "ambiguity": AMBIGUITY,
    "ambiguity without identities": AMBIGUITY_WITHOUT_IDENTITIES,
    "per-class": PER_CLASS,
    "per-class without identities": PER_CLASS_WITHOUT_IDENTITIES,
    "discrepancy": DISCREPANCY,
    "discrepancy without identities": DISCREPANCY_WITHOUT_IDENTITIES,
    "discrepancy path": DISCREPANCY_PATH,
    "discrepancy in a path": DISCREPANCY_IN_PATH,
    "minimum error": MIN_ERROR,
    "coefficient ranges": COEFFICIENT_RANGES,
}


def plan_of(name, enc):
    """The plan ``name`` for the encoding ``enc`` (its twin without
    identities when ``enc`` has no affine-identity rows)."""
    if not enc.n_identities and f"{name} without identities" in PLANS:
        return PLANS[f"{name} without identities"]
    return PLANS[name]


def applies(step, holds):
    """Whether ``step`` applies where the conditions ``holds`` hold."""
    return step.applies == "always" or step.applies in holds


def run_plan(plan, deadline, steps, *, holds=(), every_step=False):
    """Run the ``steps`` of ``plan`` in order, each by its end (see module).

    Parameters
    ----------
    plan : sequence of Step
    deadline : Deadline
        The request's deadline; its time left now is the budget.
    steps : dict
        ``name -> callable(deadline)``, one for every step that applies.
    holds : collection of str, default=()
        The conditions that hold (see :class:`Schedule`).
    every_step : bool, default=False
        Once the request's time is up, still run the steps left, each with
        an expired deadline (to report what is known), instead of stopping.

    Raises
    ------
    ValueError
        When ``steps`` names a step the plan does not hold, or a step that
        applies has no callable.
    """
    names = {step.name for step in plan}
    stray = set(steps) - names
    missing = {s.name for s in plan if applies(s, holds)} - set(steps)
    if stray or missing:
        raise ValueError(
            f"The steps do not match the plan ({sorted(names)}): "
            + (f"not in the plan: {sorted(stray)}; " if stray else "")
            + (f"no callable for: {sorted(missing)}" if missing else "")
        )
    schedule = Schedule(plan, deadline, holds)
    for step in plan:
        if step.name not in schedule:
            continue
        if deadline.expired():
            if not every_step:
                return
            steps[step.name](Deadline(0.0))
            continue
        steps[step.name](schedule.step(step.name))
