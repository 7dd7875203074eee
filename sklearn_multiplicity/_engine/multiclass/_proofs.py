"""What a K-class audit has proven about patterns keeping their label.

Flip MIPs prove two kinds of things about a pattern ``u``: that no model
within an error ceiling changes its label (the MIP is infeasible, or its
bound lies above the ceiling), and, within a single total ceiling, that no
model changing it makes fewer errors than the MIP's bound. :class:`FlipProofs`
keeps both, and answers which patterns are proven to keep their label within
any ceiling: a total (a weight) or per-label ceilings
(:class:`~.._core._level_set.LabelCeilings`), each proof serving every
ceiling it covers.
"""

import math

import numpy as np

from ..._core import TOLERANCE, LabelCeilings, Status
from ..._core._level_set import covers

#: Slack of the comparisons of a solver's bound with a ceiling.
BOUND_SLACK = 1e-6


def size(ceiling):
    """The largest total error within ``ceiling``."""
    return ceiling.total if isinstance(ceiling, LabelCeilings) else ceiling


class FlipProofs:
    """Proofs that patterns keep their label, by error ceiling.

    Parameters
    ----------
    n_patterns : int

    Attributes
    ----------
    unflippable_at : ndarray of shape (n_patterns,)
        The largest total ceiling within which the pattern is proven to keep
        its label (``-inf``: none).
    fewest_flip_errors : ndarray of shape (n_patterns,)
        A proven lower bound on the errors of any model changing it.
    within_labels : dict
        Per-label ceilings and the patterns proven to keep their label
        within them.
    """

    def __init__(self, n_patterns):
        self.unflippable_at = np.full(n_patterns, -np.inf)
        self.fewest_flip_errors = np.full(n_patterns, -np.inf)
        self.within_labels = {}

    def unflippable(self, ceiling):
        """Mask of the patterns proven to keep their label within
        ``ceiling``."""
        total = size(ceiling)
        # Proofs within at least the total cover per-label ceilings too.
        proven = self.unflippable_at >= total - TOLERANCE
        proven |= self.fewest_flip_errors > total + BOUND_SLACK * max(1.0, total)
        for within, patterns in self.within_labels.items():
            if covers(within, ceiling):
                proven |= patterns
        return proven

    def record(self, patterns, ceiling):
        """Record that ``patterns`` (an index or mask) keep their label
        within ``ceiling``."""
        if isinstance(ceiling, LabelCeilings):
            n = self.unflippable_at.size
            known = self.within_labels.setdefault(ceiling, np.zeros(n, dtype=bool))
            known[patterns] = True
        else:
            self.unflippable_at[patterns] = np.maximum(
                self.unflippable_at[patterns], ceiling
            )

    def raise_fewest(self, pattern, bound):
        """Record that every model changing ``pattern`` makes at least
        ``bound`` errors."""
        self.fewest_flip_errors[pattern] = max(self.fewest_flip_errors[pattern], bound)

    def fewest_known(self, pattern, errors):
        """Whether a model changing ``pattern`` with ``errors`` errors is
        proven to make the fewest."""
        return errors <= self.fewest_flip_errors[pattern] + TOLERANCE


def kept_labels(unflippable, baseline_labels):
    """``(patterns, labels)`` of the ``unflippable`` patterns (a mask) with
    their baseline labels: fixed in a MIP within the ceiling they were proven
    at, a valid cut of its level set."""
    patterns = np.flatnonzero(unflippable)
    return patterns, np.asarray(baseline_labels)[patterns]


def raised_lower(result, entry, lower, upper):
    """``lower`` (on a minimum) raised by a minimisation's bound, unless a
    verified model making ``upper`` errors refutes the bound (then the MIP's
    log ``entry`` says so)."""
    if result.status == Status.INFEASIBLE:
        entry.refute("a verified model exists")
        return lower
    bound = result.bound
    if not math.isfinite(bound):
        return lower
    if bound > upper + BOUND_SLACK * max(1.0, abs(upper)):
        entry.refute(f"bound {bound:g} above a verified model's {upper:g}")
        return lower
    return max(lower, bound)
