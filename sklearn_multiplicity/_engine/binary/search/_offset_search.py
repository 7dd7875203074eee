"""The exact search of one direction's cuts, class by class, under a rate gap.

For a direction of the weights outside the offset columns (see
:mod:`._offsets`), each offset class is cut by a threshold of its own. For
each window ``[L, L + gap]`` of group rates, :class:`OffsetSearch` takes
every class's cuts that keep its groups' rates in the window: the cut of
fewest errors flipping a pattern (:meth:`OffsetSearch.flips`), or the
combination of most disagreement within a budget, a knapsack with one choice
per class over Pareto fronts of errors and disagreement
(:meth:`OffsetSearch.most_disagreement`).
"""

from dataclasses import dataclass

import numpy as np

from ...._core import TOLERANCE

#: Scores closer than this count as tied (no cut between them).
TIE = 1e-9
#: Most window floors times cuts per direction: beyond, the floors are an
#: evenly spaced subset of the rates (memory stays at a few tens of MB on
#: tables of tens of thousands of patterns; the search is then not
#: exhaustive, its models still verified).
MAX_FLOOR_CUTS = 2_000_000


@dataclass
class _ClassCuts:
    """The cuts of one class on one direction, masked per window floor."""

    members: np.ndarray  # the class's patterns, by increasing score
    sorted_scores: np.ndarray
    thresholds: np.ndarray  # one per cut
    masked: np.ndarray  # (n_floors, n_cuts) errors, inf where not admissible
    best: np.ndarray  # (n_floors,) fewest errors of the class per floor


def _class_cuts(scores, pos, neg, share, totals, min_gap):
    """Errors and group rates of every cut of one class's scores."""
    order = np.argsort(scores, kind="stable")
    sorted_s = scores[order]
    pos_below = np.concatenate([[0.0], np.cumsum(pos[order])])
    neg_from = np.concatenate([np.cumsum(neg[order][::-1])[::-1], [0.0]])
    errors = pos_below + neg_from
    # Cuts between ties (up to rounding: the model's scores are summed in
    # another order), or between scores too close for the class's margin.
    errors[1:-1][np.diff(sorted_s) < max(min_gap, TIE)] = np.inf
    cut = np.concatenate([[sorted_s[0] - 1.0], sorted_s, [sorted_s[-1] + 1.0]])
    thresholds = 0.5 * (cut[:-1] + cut[1:])
    # Cut i predicts positive the patterns from the i-th smallest score on.
    counted_from = np.cumsum(share[:, order][:, ::-1], axis=1)[:, ::-1]
    positive_from = np.concatenate([counted_from, np.zeros((len(share), 1))], axis=1)
    rates = positive_from / totals[:, None]  # (groups of the class, n_cuts)
    return order, sorted_s, errors, thresholds, rates


class OffsetSearch:
    """Per-class thresholds of directions under a rate gap.

    Parameters
    ----------
    enc : Encoding
    classes : OffsetClasses
    min_gap : float
        Smallest score gap between which a cut is made, once the direction's
        largest weight is 1 (scores closer count as tied).
    """

    def __init__(self, enc, classes, min_gap):
        self.enc = enc
        self.classes = classes
        self.min_gap = min_gap
        self._members = [
            np.flatnonzero(classes.of_pattern == c) for c in range(classes.n_classes)
        ]

    def cuts(self, w):
        """Normalised direction and the cuts of every class.

        A direction of the offset columns alone leaves each class all
        positive or all negative, which may still flip patterns.
        """
        enc, classes = self.enc, self.classes
        w = np.array(w, dtype=float)
        w[classes.columns] = 0.0
        size = np.abs(w).max(initial=0.0)
        if size > 0:
            w /= size
        scores = enc.X[: enc.n_train] @ w
        gap = classes.gap
        totals = gap.share.sum(axis=1)
        pos, neg = enc.problem.positive_weight, enc.problem.negative_weight
        raw = []
        for c, members in enumerate(self._members):
            groups = np.flatnonzero(classes.group_class == c)
            share = gap.share[groups][:, members]
            raw.append(
                (groups,)
                + _class_cuts(
                    scores[members],
                    pos[members],
                    neg[members],
                    share,
                    totals[groups],
                    self.min_gap,
                )
            )
        # Every window floor worth trying: a rate some group reaches.
        floors = np.unique(np.concatenate([r[-1].ravel() for r in raw]))
        n_cuts = sum(r[3].size for r in raw)
        most = max(2, MAX_FLOOR_CUTS // n_cuts)
        if floors.size > most:
            floors = floors[np.linspace(0, floors.size - 1, most).round().astype(int)]
        limit = gap.max_gap + TOLERANCE
        per_class = []
        for members, (groups, order, sorted_s, errors, thresholds, rates) in zip(
            self._members, raw, strict=True
        ):
            if groups.size:
                low = rates.min(axis=0)[None, :] >= floors[:, None] - TOLERANCE
                high = rates.max(axis=0)[None, :] <= floors[:, None] + limit
                masked = np.where(low & high, errors[None, :], np.inf)
            else:
                masked = np.broadcast_to(errors, (floors.size, errors.size))
            per_class.append(
                _ClassCuts(
                    members[order], sorted_s, thresholds, masked, masked.min(axis=1)
                )
            )
        return w, scores, per_class

    def model(self, w, per_class, chosen):
        """``(w, b)`` with class ``c`` cut at ``chosen[c]``."""
        intercepts = -np.array(
            [cc.thresholds[k] for cc, k in zip(per_class, chosen, strict=True)]
        )
        b_and_offsets = self.classes.offsets @ intercepts
        w = w.copy()
        w[self.classes.columns] = b_and_offsets[1:]
        return w, float(b_and_offsets[0])

    def flips(self, directions, baseline, candidates):
        """Fewest errors found flipping each candidate, and a model doing so,
        as :func:`~._heuristics.threshold_flips` returns them, with one
        threshold per class."""
        candidates = np.asarray(candidates, dtype=np.int64)
        best = np.full(candidates.size, np.inf)
        models = [None] * candidates.size
        of_class = self.classes.of_pattern[candidates]
        for direction in directions:
            w, scores, per_class = self.cuts(direction)
            bests = np.array([cc.best for cc in per_class])  # (classes, floors)
            infinite = np.isinf(bests)
            finite = np.where(infinite, 0.0, bests)
            n_inf = infinite.sum(axis=0)
            for c, cc in enumerate(per_class):
                mine = np.flatnonzero(of_class == c)
                if mine.size == 0:
                    continue
                others = np.where(
                    n_inf - infinite[c] > 0, np.inf, finite.sum(axis=0) - finite[c]
                )
                up_to = np.minimum.accumulate(cc.masked, axis=1)
                from_ = np.minimum.accumulate(cc.masked[:, ::-1], axis=1)[:, ::-1]
                s = scores[candidates[mine]]
                to_negative = baseline[candidates[mine]]
                # To positive: a cut at or below the pattern's first tie; to
                # negative: at or above the cut just past its last tie.
                low = np.searchsorted(cc.sorted_scores, s, side="left")
                high = np.searchsorted(cc.sorted_scores, s, side="right")
                own = np.where(
                    to_negative[None, :], from_[:, high], up_to[:, low]
                )  # (floors, candidates of the class)
                cost = others[:, None] + own
                floor_at = np.argmin(cost, axis=0)
                value = cost[floor_at, np.arange(mine.size)]
                for i in np.flatnonzero(value < best[mine]):
                    j = mine[i]
                    f = floor_at[i]
                    chosen = [int(np.argmin(other.masked[f])) for other in per_class]
                    row = cc.masked[f]
                    if to_negative[i]:
                        chosen[c] = int(high[i] + np.argmin(row[high[i] :]))
                    else:
                        chosen[c] = int(np.argmin(row[: low[i] + 1]))
                    best[j] = value[i]
                    models[j] = self.model(w, per_class, chosen)
        return best, models

    def most_disagreement(self, direction, baseline, weights, budget):
        """Per-class cuts of ``direction`` disagreeing most with the baseline
        within ``budget`` errors and the gap.

        For each window floor, every class's admissible cuts are reduced to
        those no other cut beats on both errors and disagreement, and these
        fronts are combined class by class (a knapsack with one choice per
        class), keeping only combinations within the budget. Floors that
        admit the same cuts are solved once.

        Returns
        -------
        (disagreement, errors, (w, b)) or None
            ``None`` when no combination meets the budget.
        """
        w, _, per_class = self.cuts(direction)
        bests = np.array([cc.best for cc in per_class])  # (classes, floors)
        slack = budget - bests.sum(axis=0)
        floors = np.flatnonzero(slack >= -TOLERANCE)
        if floors.size == 0:
            return None
        gains = [_cut_disagreement(cc.members, baseline, weights) for cc in per_class]
        admits = np.concatenate(
            [np.isfinite(cc.masked[floors]) for cc in per_class], axis=1
        )
        _, first = np.unique(np.packbits(admits, axis=1), axis=0, return_index=True)
        best = None
        for f in floors[np.sort(first)]:
            front = (np.zeros(1), np.zeros(1), np.zeros((1, 0), dtype=np.int64))
            for cc, gain in zip(per_class, gains, strict=True):
                excess = cc.masked[f] - cc.best[f]
                front = _combine(front, _front(excess, gain, slack[f]), slack[f])
            excess, gain, chosen = front
            i = int(np.argmax(gain))
            if best is None or gain[i] > best[0]:
                errors = float(bests[:, f].sum() + excess[i])
                best = (float(gain[i]), errors, chosen[i])
        value, errors, chosen = best
        return value, errors, self.model(w, per_class, chosen)


def _cut_disagreement(members, baseline, weights):
    """Weight predicted unlike the baseline by each cut of a class whose
    patterns ``members`` are sorted by score (cut i predicts members[i:]
    positive)."""
    base = baseline[members]
    gain = weights[members]
    below = np.concatenate([[0.0], np.cumsum(gain * base)])
    above = np.concatenate([np.cumsum((gain * ~base)[::-1])[::-1], [0.0]])
    return below + above


def _pareto(excess, gain, slack):
    """Indices of the entries within ``slack`` that no other beats on both
    excess errors and gain, by increasing excess."""
    within = np.flatnonzero(excess <= slack + TOLERANCE)
    order = within[np.lexsort((-gain[within], excess[within]))]
    g = gain[order]
    return order[g > np.concatenate([[-np.inf], np.maximum.accumulate(g)[:-1]])]


def _front(excess, gain, slack):
    """The cuts of one class on the front within ``slack``: (excess, gain,
    cut) by increasing excess."""
    kept = _pareto(excess, gain, slack)
    return excess[kept], gain[kept], kept


def _combine(front, cuts, slack):
    """The front of one choice from ``front`` (of earlier classes) and one
    from ``cuts`` (of the next class), within ``slack``."""
    e_front, g_front, chosen = front
    e_cuts, g_cuts, index = cuts
    excess = (e_front[:, None] + e_cuts[None, :]).ravel()
    gain = (g_front[:, None] + g_cuts[None, :]).ravel()
    kept = _pareto(excess, gain, slack)
    rows, cols = np.divmod(kept, e_cuts.size)
    return excess[kept], gain[kept], np.column_stack([chosen[rows], index[cols]])
