"""Relations that certified ambiguity and discrepancy bounds always obey.

Each measure's certifier bounds it on its own; these relations hold between
the measures, so every reported band is the tightest they imply:

- **discrepancy <= ambiguity** (same people and weights): whoever one model
  of the level set flips, some model flips;
- **discrepancy <= (err(h0) + E) / W**: where a model disagrees with the
  baseline ``h0``, one of the two errs, so a model with at most ``E`` errors
  disagrees on at most ``err(h0) + E`` of the weight (on any subset of the
  people as well, whose weight ``W`` is then the subset's);
- **both are non-decreasing in the budget**: a lower bound at a smaller
  budget holds at a larger one, an upper bound at a larger budget at a
  smaller one;
- **groups against the whole** (groups that partition the people): the
  ambiguity of the whole is the weighted mean of the groups'; the most a
  model flips overall is at least its most in one group and at most the sum
  over groups of each group's most; and a group's discrepancy is at most the
  overall one's weight over the group's.

The functions take and return :class:`~._results.Bounds` and never solve
anything; a lower bound is never lowered and an upper bound never raised.
"""

import numpy as np

from ._level_set import ClassBudget
from ._results import Bounds


def overall_error(budget):
    """The largest overall weighted error of a model within ``budget``."""
    return budget.total if isinstance(budget, ClassBudget) else float(budget)


def disagreement_cap(baseline_errors, budget, weight):
    """Largest share of ``weight`` a model within ``budget`` can flip
    (``(err(h0) + E) / W``, at most 1)."""
    if weight <= 0:
        return 0.0
    return min(1.0, (float(baseline_errors) + overall_error(budget)) / weight)


def _bounds(lower, upper):
    lower = min(max(float(lower), 0.0), 1.0)
    return Bounds(lower, max(lower, min(float(upper), 1.0)))


def within_level_set(ambiguity, discrepancy, cap=1.0):
    """Both measures of one level set, tightened by each other and ``cap``.

    Parameters
    ----------
    ambiguity, discrepancy : Bounds
        Certified bounds of the two measures over the same people.
    cap : float, default=1.0
        A certified upper bound on discrepancy (:func:`disagreement_cap`).

    Returns
    -------
    ambiguity, discrepancy : Bounds
    """
    disc_upper = min(discrepancy.upper, ambiguity.upper, cap)
    amb_lower = max(ambiguity.lower, discrepancy.lower)
    return (
        _bounds(amb_lower, ambiguity.upper),
        _bounds(discrepancy.lower, disc_upper),
    )


def along_budgets(bounds):
    """Bounds at non-decreasing budgets, made monotone.

    Parameters
    ----------
    bounds : sequence of Bounds
        One measure at budgets in non-decreasing order (each no smaller than
        the one before in every error kind).

    Returns
    -------
    list of Bounds
    """
    if not len(bounds):
        return []
    lower = np.maximum.accumulate([b.lower for b in bounds])
    upper = np.minimum.accumulate([b.upper for b in bounds][::-1])[::-1]
    return [_bounds(lo, up) for lo, up in zip(lower, upper, strict=True)]


def across_groups(overall, groups, weights):
    """Overall and group bounds of both measures, tightened by each other.

    Parameters
    ----------
    overall : tuple of Bounds
        ``(ambiguity, discrepancy)`` over all people.
    groups : list of tuple of Bounds
        ``(ambiguity, discrepancy)`` of each group; the groups partition the
        people.
    weights : array-like of shape (n_groups,)
        Weight of each group.

    Returns
    -------
    overall : tuple of Bounds
    groups : list of tuple of Bounds
    """
    weights = np.asarray(weights, dtype=float)
    total = float(weights.sum())
    if total <= 0 or not len(groups):
        return overall, list(groups)
    share = weights / total
    amb, disc = overall
    amb_lo = np.array([g[0].lower for g in groups])
    amb_hi = np.array([g[0].upper for g in groups])
    disc_lo = np.array([g[1].lower for g in groups])
    disc_hi = np.array([g[1].upper for g in groups])
    # Ambiguity of the whole is the weighted mean of the groups'.
    amb = _bounds(max(amb.lower, share @ amb_lo), min(amb.upper, share @ amb_hi))
    rest_lo = share @ amb_lo - share * amb_lo  # the other groups' least
    rest_hi = share @ amb_hi - share * amb_hi
    with np.errstate(divide="ignore", invalid="ignore"):
        group_amb_lo = np.where(share > 0, (amb.lower - rest_hi) / share, 0.0)
        group_amb_hi = np.where(share > 0, (amb.upper - rest_lo) / share, 1.0)
        group_disc_hi = np.where(share > 0, disc.upper / share, 1.0)
    # One model's flips: at least its most in one group, at most the sum.
    disc = _bounds(
        max(disc.lower, float(np.max(share * disc_lo))),
        min(disc.upper, float(share @ disc_hi)),
    )
    tightened = [
        (
            _bounds(max(a.lower, lo), min(a.upper, hi)),
            _bounds(d.lower, min(d.upper, cap)),
        )
        for (a, d), lo, hi, cap in zip(
            groups, group_amb_lo, group_amb_hi, group_disc_hi, strict=True
        )
    ]
    return (amb, disc), tightened
