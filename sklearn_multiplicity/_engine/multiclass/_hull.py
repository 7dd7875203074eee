"""Hull proofs: people no K-class model of a level set relabels, without a MIP.

Under a linear argmax model the region of each label is convex, and every
training pattern a model of the class labels ``l`` wins ``l`` by the margin.
So a point ``u`` that is a convex combination of patterns a model labels
``l`` gets ``l`` from that model too. If ``u`` is a convex combination of each
of several disjoint sets of patterns ``S_1, ..., S_J`` of label ``l``, a model
that gives ``u`` another label must label some pattern of every ``S_j``
otherwise, and pays for it: relabelling pattern ``v`` costs its rows of true
label ``l`` beyond the errors it makes whatever its label. When the cheapest
way to hit every set costs more than the level set allows, ``u`` keeps ``l``
in every model of the level set: a proof.

The sets come from linear programs, one per set (``u`` in the convex hull of
the patterns not used yet; a vertex solution has at most ``p + 1`` of them),
and each combination is checked with exact arithmetic on its residual, so a
proof holds for the class's margin. The technique yields proofs only, and
applies to any number of labels and to per-label ceilings.
"""

import numpy as np
from scipy.optimize import linprog

from ..._core import TOLERANCE, LabelCeilings


def hull_screen(certifier, budget, deadline):
    """Record the hull proofs (:func:`hull_proofs`) of the patterns of a
    :class:`~._multiclass.MulticlassCertifier` still open at ``budget``,
    heaviest first, until ``deadline``."""
    ceiling = certifier.ceiling(budget)
    witness, _, unflippable = certifier.flips(budget)
    open_ = np.array([w is None for w in witness]) & ~unflippable
    weight = certifier.problem.pattern_weight
    order = np.flatnonzero(open_)
    order = order[np.argsort(-weight[order], kind="stable")]
    certifier.proofs.record(hull_proofs(certifier, ceiling, order, deadline), ceiling)


def hull_proofs(certifier, ceiling, patterns, deadline):
    """The patterns of ``patterns`` proven to keep their baseline label within
    ``ceiling`` (a weight or :class:`LabelCeilings`), until ``deadline``.

    Parameters
    ----------
    certifier : MulticlassCertifier
    ceiling : float or LabelCeilings
    patterns : sequence of int
        Patterns to try, in order.
    deadline : Deadline

    Returns
    -------
    list of int
    """
    proof = HullProof(certifier, ceiling)
    X, labels = certifier.enc.X, certifier.baseline_labels
    proven = []
    for u in patterns:
        if deadline.expired():
            break
        if proof.keeps(X[u], labels[u], exclude=u):
            proven.append(int(u))
    return proven


class HullProof:
    """Hull proofs within one ceiling of a certifier's level set.

    Parameters
    ----------
    certifier : MulticlassCertifier
    ceiling : float or LabelCeilings
    """

    def __init__(self, certifier, ceiling):
        counts = certifier.problem.counts
        if isinstance(ceiling, LabelCeilings):
            # Errors on label l's rows: relabelling v costs its rows of l.
            self.cost = counts
            self.allowance = np.asarray(ceiling.ceilings, dtype=float)
        else:
            # Beyond the errors every model makes at each pattern.
            unavoidable = counts.sum(axis=1) - counts.max(axis=1)
            self.cost = np.maximum(counts - unavoidable[:, None], 0.0)
            self.allowance = np.full(counts.shape[1], ceiling - unavoidable.sum())
        self.X = certifier.enc.X
        self.bound = _box_of_gaps(certifier)

    def keeps(self, point, label, exclude=-1):
        """Whether every model of the level set gives the canonical ``point``
        ``label`` (by the margin), proven from the patterns other than
        ``exclude``."""
        cost, allowance = self.cost[:, label], self.allowance[label]
        others = np.flatnonzero(cost > 0)
        others = others[others != exclude]
        if not _in_box(self.X[others], point):
            return False  # outside their bounding box, so outside their hull
        paid = hitting_cost(self.X, point, others, cost, allowance, self.bound)
        return paid > allowance + TOLERANCE * max(1.0, abs(allowance))


def hitting_cost(X, point, candidates, cost, allowance, bound):
    """The least cost of hitting a packing of disjoint sets of ``candidates``
    whose convex hulls hold ``point``: sets are added until that cost exceeds
    ``allowance`` or no more is found."""
    paid = 0.0
    left = np.asarray(candidates)
    while paid <= allowance + TOLERANCE * max(1.0, abs(allowance)) and left.size:
        support = convex_support(X[left], point, 1.0 / cost[left], bound)
        if support is None:
            break
        paid += float(cost[left[support]].min())
        left = np.delete(left, support)
    return paid


def convex_support(points, point, penalty, bound):
    """Indices of at most ``p + 1`` of ``points`` whose convex combination is
    ``point`` up to what the class's gaps tolerate, or None.

    The combination may miss ``point`` by a residual ``r`` and its weights
    may sum to ``1 - d``: a model's score gap at ``point`` is then at least
    ``margin * (1 - d) - bound[0] * |r|_1 - bound[1] * |d|``, which must stay
    positive (``bound`` from :func:`_box_of_gaps`).
    """
    n, p = points.shape
    A = np.vstack([points.T, np.ones((1, n))])
    b = np.append(point, 1.0)
    found = linprog(penalty, A_eq=A, b_eq=b, bounds=(0, None), method="highs-ds")
    if found.status != 0:
        return None
    weights = np.clip(found.x, 0.0, None)
    support = np.flatnonzero(weights > 1e-12)
    residual = point - weights[support] @ points[support]
    short = 1.0 - weights[support].sum()
    margin, per_feature, per_intercept = bound
    gap = (
        margin * (1.0 - abs(short))
        - per_feature * np.abs(residual).sum()
        - per_intercept * abs(short)
    )
    return support if gap > 0 else None


def _in_box(points, point):
    """Whether ``point`` lies in the bounding box of ``points``."""
    if points.shape[0] == 0:
        return False
    return bool(np.all((points.min(axis=0) <= point) & (point <= points.max(axis=0))))


def _box_of_gaps(certifier):
    """``(margin, a, c)``: how much a score gap can move per unit of a
    combination's residual (two weights in ``[w_lo, w_hi]``) and per unit of
    its weights' shortfall (two intercepts in ``[b_lo, b_hi]``)."""
    hypothesis, problem = certifier.hypothesis, certifier.problem
    w_lo, w_hi, b_lo, b_hi = hypothesis.weight_bounds(problem)
    per_feature = 2.0 * float(np.max(np.maximum(np.abs(w_lo), np.abs(w_hi)), initial=1))
    per_intercept = 2.0 * max(abs(b_lo), abs(b_hi))
    return hypothesis.margin, per_feature, per_intercept
