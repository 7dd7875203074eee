"""Rate gaps met class by class: a threshold per offset class of patterns.

Under a :class:`~sklearn_multiplicity.constraints.GroupRateGap` whose groups
are told apart by columns of the audit space (one-hot race columns, say),
the weights of those columns and the intercept shift the scores of each
class of patterns that share their values by an amount of its own. For a
direction of the other weights, a model is then one threshold per class,
and the best ones are a small exact search: for a window ``[L, L + gap]``
of rates, each class takes its cut of fewest errors among those that keep
the rates of its groups in the window, and the window's floor ``L`` runs
over every rate a group reaches.

A single threshold of the same direction moves every group's rate at once,
so under a tight gap few of them qualify (on COMPAS under a 2-point gap
among six races, almost none). The models found here are verified like any
other: the search certifies flips, never that a pattern cannot be flipped.
"""

from dataclasses import dataclass

import numpy as np

from .._core import TOLERANCE, LevelSet, verify
from .._core._models import in_class
from .._mip import realise
from .._mip._constraints import RateGapRows

#: Scores closer than this count as tied (no cut between them).
TIE = 1e-9
#: Most window floors times cuts per direction: beyond, the floors are an
#: evenly spaced subset of the rates (memory stays at a few tens of MB on
#: tables of tens of thousands of patterns; the search is then not
#: exhaustive, its models still verified).
MAX_FLOOR_CUTS = 2_000_000


@dataclass(frozen=True)
class OffsetClasses:
    """Classes of training patterns whose scores a model shifts independently.

    Attributes
    ----------
    columns : ndarray of int
        Canonical columns constant on every group of the gap: their weights
        and the intercept are the offsets.
    of_pattern : ndarray of int, shape (n_train,)
        Class of each training pattern.
    offsets : ndarray of shape (len(columns) + 1, n_classes)
        Maps the intercepts wanted per class to ``[b, w[columns]]``.
    group_class : ndarray of int, shape (n_groups,)
        The class holding every counted pattern of each group.
    gap : RateGapRows
    """

    columns: np.ndarray
    of_pattern: np.ndarray
    offsets: np.ndarray
    group_class: np.ndarray
    gap: RateGapRows

    @property
    def n_classes(self):
        return self.offsets.shape[1]


def offset_classes(enc):
    """The offset classes of ``enc``'s rate gap, or ``None`` if it has none.

    They exist when the class's only constraint is one rate gap, its weights
    are continuous, and the columns constant on every group split the
    patterns into at least two classes whose intercepts the columns' weights
    and the intercept set independently.
    """
    if enc.hypothesis.integer or len(enc.constraints) != 1:
        return None
    gap = enc.constraints[0]
    if not isinstance(gap, RateGapRows):
        return None
    X = enc.X[: enc.n_train]
    members = gap.share[:, : enc.n_train] > 0
    columns = np.array(
        [j for j in range(enc.p) if all(np.ptp(X[m, j]) == 0 for m in members)],
        dtype=np.int64,
    )
    if columns.size == 0:
        return None
    vectors, of_pattern = np.unique(X[:, columns], axis=0, return_inverse=True)
    of_pattern = of_pattern.ravel()
    n_classes = len(vectors)
    design = np.column_stack([np.ones(n_classes), vectors])
    if n_classes < 2 or np.linalg.matrix_rank(design) < n_classes:
        return None
    group_class = np.array([of_pattern[np.flatnonzero(m)[0]] for m in members])
    return OffsetClasses(columns, of_pattern, np.linalg.pinv(design), group_class, gap)


@dataclass
class _ClassCuts:
    """The cuts of one class on one direction, masked per window floor."""

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
        for groups, _, sorted_s, errors, thresholds, rates in raw:
            if groups.size:
                low = rates.min(axis=0)[None, :] >= floors[:, None] - TOLERANCE
                high = rates.max(axis=0)[None, :] <= floors[:, None] + limit
                masked = np.where(low & high, errors[None, :], np.inf)
            else:
                masked = np.broadcast_to(errors, (floors.size, errors.size))
            per_class.append(
                _ClassCuts(sorted_s, thresholds, masked, masked.min(axis=1))
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
        """Fewest errors found flipping each candidate, and a model doing so.

        Returns
        -------
        errors : ndarray of shape (n_candidates,)
        models : list of (w, b) or None
        """
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


def offset_flip_models(enc, directions, baseline, candidates, budget):
    """Models of the class within ``budget`` flipping candidates, by per-class cuts.

    Cuts are taken between any two distinct scores; once the offsets are
    set, the margin of the class may need another scaling than the
    direction's, so each labelling found is brought into the class by its
    max-margin LP when plain scaling does not do it. Candidates are taken
    cheapest first, and one whose flip a model already found makes is
    skipped, so that few LPs are solved.

    Empty when the class has no offset classes (see :func:`offset_classes`)
    or the budget is not one number.
    """
    classes = offset_classes(enc)
    if classes is None or np.ndim(budget) or candidates.size == 0 or not directions:
        return []
    candidates = np.asarray(candidates, dtype=np.int64)
    errors, models = OffsetSearch(enc, classes, TIE).flips(
        directions, baseline, candidates
    )
    found = []
    flipped = np.zeros(baseline.size, dtype=bool)
    for i in np.argsort(errors, kind="stable"):
        if not LevelSet.within(errors[i], budget):
            break
        if flipped[candidates[i]]:
            continue
        model = _in_class(enc, *models[i])
        if model is None or not LevelSet.within(model.errors, budget):
            continue
        found.append(model)
        flipped |= model.z[: baseline.size] != baseline
    return found


def _in_class(enc, w, b):
    """The model ``(w, b)`` scaled into the class, else its labelling's
    max-margin model of the class, else ``None``."""
    fitted = enc.hypothesis.fit_model(enc.problem, w, b)
    if fitted is not None:
        model = verify(enc, *fitted, source="offset thresholds")
        if in_class(enc, model):
            return model
    z = verify(enc, w, b).z
    solution = realise(enc, z)
    if solution is None:
        return None
    model = verify(enc, *solution, source="offset thresholds")
    return model if in_class(enc, model) and np.array_equal(model.z, z) else None
