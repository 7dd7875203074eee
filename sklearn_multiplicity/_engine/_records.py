"""The records that every session (:mod:`.session`) hands the estimators.

Plain values: numbers, :class:`~.._core.Bounds`, budgets, arrays per training
row or per person, and level-set models as coefficients on the audited
features. None of them refers to the audit state, so an estimator that holds
one reads nothing else of the engine.
"""

from dataclasses import dataclass

import numpy as np

from .._core import Bounds, ClassBudget


@dataclass(frozen=True)
class SessionSummary:
    """The set-up of an audit, as the estimators report it.

    Attributes
    ----------
    n_patterns : int
        Distinct training patterns in the audit space.
    n_dimensions : int
        Affinely independent columns: the weights of every MIP.
    n_identities : int
        Affine-identity inequalities of the encoding.
    total_weight : float
        Total weight of the training rows.
    hypothesis_class : str
        The class over which every result is exact.
    integer : bool
        Whether the class has integer weights.
    constraints : list of str
        One line per constraint in force on the class.
    baseline_errors : float or None
        Weighted training errors of the baseline (``None`` before ``start``).
    """

    n_patterns: int
    n_dimensions: int
    n_identities: int
    total_weight: float
    hypothesis_class: str
    integer: bool
    constraints: list
    baseline_errors: float = None


@dataclass(frozen=True)
class MinErrorFit:
    """The 0-1 optimal classifier of a session: what
    :class:`~sklearn_multiplicity.ZeroOneLinearClassifier` stores.

    Attributes
    ----------
    coef : ndarray of shape (1, d) or (K, d)
        Two labels: one row; K labels: one per class (class 0's at 0).
    intercept : ndarray of shape (1,) or (K,)
    errors : float
        Its weighted training errors (the minimum error's upper bound).
    lower_bound : float
        Certified lower bound on the fewest errors of the class.
    status : str
        ``"optimal"``, ``"feasible"`` or another :class:`~.._core.Status`.
    gap : float
        Relative gap between ``errors`` and ``lower_bound``.
    solve_time : float
        Seconds in the solvers.
    solver_status : str
        The last solver's own status.
    warm_start : dict
        ``source`` and ``n_errors`` of the model the search started from.
    """

    coef: object
    intercept: object
    errors: float
    lower_bound: float
    status: str
    gap: float
    solve_time: float
    solver_status: str
    warm_start: dict


@dataclass(frozen=True)
class FoundModel:
    """A verified model of the class, on the audited features.

    Attributes
    ----------
    coef : ndarray of shape (n_features,)
        Weights on the columns of the audit space (0 on dropped columns).
    intercept : float
    errors : float
        Its weighted training errors.
    source : str
        What found it.
    """

    coef: np.ndarray
    intercept: float
    errors: float
    source: str


@dataclass(frozen=True)
class Reading:
    """Both measures at one budget, as the audit state knows them.

    Attributes
    ----------
    ambiguity, discrepancy : Bounds
        Certified bounds, each related to the other.
    model : FoundModel or None
        The level-set model realising ``discrepancy.lower``.
    """

    ambiguity: Bounds
    discrepancy: Bounds
    model: FoundModel = None


@dataclass(frozen=True)
class GroupReading:
    """Both measures over one group of training people.

    Attributes
    ----------
    label : object
        The group.
    weight : float
        Its total weight.
    ambiguity, discrepancy : Bounds
    """

    label: object
    weight: float
    ambiguity: Bounds
    discrepancy: Bounds


@dataclass(frozen=True)
class GroupReadings:
    """Both measures overall and per group, related across the groups.

    Attributes
    ----------
    overall : GroupReading
        Over every training person (``label`` is ``None``).
    groups : list of GroupReading
        One per group, in the order of their labels.
    """

    overall: GroupReading
    groups: list


@dataclass(frozen=True)
class Evidence:
    """Per training row, what the audit of one budget knows of its flip.

    Rows of zero weight (no pattern) have baseline 0, are neither
    contestable nor undecided and have no flip errors (NaN).

    Attributes
    ----------
    baseline : ndarray of int
        The baseline's label (0 or 1).
    contestable : ndarray of bool
        Certified: a model of the level set flips it.
    undecided : ndarray of bool
        Neither certified contestable nor proven stable.
    min_flip_errors : ndarray of float
        Fewest errors of a known model flipping it.
    """

    baseline: np.ndarray
    contestable: np.ndarray
    undecided: np.ndarray
    min_flip_errors: np.ndarray


@dataclass(frozen=True)
class WeightRange:
    """Certified ends of one weight over a level set.

    Attributes
    ----------
    column : int
        The weight's column of the audit space.
    scale : float
        Units of the column per unit of the class's canonical feature.
    least, largest : Bounds
        Certified bounds on the least and on the largest value (canonical).
    sign : str
        ``"non-negative"``, ``"non-positive"``, ``"either"`` or ``"unknown"``.
    certified : bool
        Whether both ends are pinned.
    least_model, largest_model : FoundModel or None
        Level-set models at the inner ends.
    """

    column: int
    scale: float
    least: Bounds
    largest: Bounds
    sign: str
    certified: bool
    least_model: FoundModel
    largest_model: FoundModel


@dataclass(frozen=True)
class PathStep:
    """Both measures at one tolerance of a path.

    Attributes
    ----------
    epsilon : float
        The tolerance (per class: the common rate, before each class's cap).
    tolerance : float or PerClassEpsilon
        The tolerance the budget is of.
    extra_errors : float or None
        The errors it allows beyond the baseline's (``None`` per class).
    budget : float or ClassBudget
    ambiguity, discrepancy : Bounds
    """

    epsilon: float
    tolerance: object
    extra_errors: float
    budget: object
    ambiguity: Bounds
    discrepancy: Bounds

    @property
    def per_class(self):
        """Whether the budget bounds each kind of error apart."""
        return isinstance(self.budget, ClassBudget)

    @property
    def certified(self):
        """Whether both measures are certified at this tolerance."""
        return bool(self.ambiguity.certified and self.discrepancy.certified)


@dataclass(frozen=True)
class Route:
    """One way to an answer that the audit as set up will not certify.

    Attributes
    ----------
    name : str
        ``"coarser encoding"``, ``"sample"``, ``"probabilistic"`` or
        ``"more time"``.
    action : str
        What to do.
    effect : str
        What it would change, with numbers.
    n_patterns : int or None
        The distinct patterns it would give, when it changes them.
    columns : tuple of int
        The columns of the audit space it leaves out.
    """

    name: str
    action: str
    effect: str
    n_patterns: int = None
    columns: tuple = ()

    def as_dict(self):
        """The route as a JSON-ready dict."""
        return {
            "name": self.name,
            "action": self.action,
            "effect": self.effect,
            "n_patterns": self.n_patterns,
            "columns": list(self.columns),
        }


@dataclass(frozen=True)
class Assessment:
    """What an audit can be expected to certify, judged before any MIP runs.

    Attributes
    ----------
    regime : {"exact", "bands", "lower-bounds"}
        ``"exact"``: certification expected within the limit; ``"bands"``:
        certified bands, not exact values; ``"lower-bounds"``: only
        witnessed lower bounds are realistic.
    reasons : tuple of str
        Sentences with the numbers the regime follows from.
    routes : tuple of Route
        What would answer instead (empty when the regime is exact).
    signals : dict
        The numbers read (patterns, columns, the root LP bound, seconds, ...).
    """

    regime: str
    reasons: tuple
    routes: tuple
    signals: dict

    def as_dict(self):
        """The assessment as a JSON-ready dict (``regime``, ``reasons``,
        ``routes``, ``signals``)."""
        return {
            "regime": self.regime,
            "reasons": list(self.reasons),
            "routes": [route.as_dict() for route in self.routes],
            "signals": dict(self.signals),
        }

    def headline(self):
        """One line: the regime and what it means."""
        return f"Assessment: {self.regime} ({REGIME_WORDS[self.regime]})"

    def text(self):
        """The assessment in lines: headline, reasons, then routes."""
        lines = [self.headline(), *(f"  - {reason}" for reason in self.reasons)]
        if self.routes:
            lines.append("  Routes to an answer:")
            lines += [f"  * {r.name}: {r.action} {r.effect}" for r in self.routes]
        return "\n".join(lines)


#: What each regime means, in words.
REGIME_WORDS = {
    "exact": "certification expected within the limit",
    "bands": "certified bands expected, not exact values",
    "lower-bounds": "only witnessed lower bounds are realistic",
}


def group_key(label):
    """The key under which a group's measures are recorded in an audit."""
    return f"group {label}"
