"""Rate gaps met class by class: a threshold per offset class of patterns.

Under a :class:`~sklearn_multiplicity.constraints.GroupRateGap` whose groups
are told apart by columns of the audit space (one-hot race columns, say),
the weights of those columns and the intercept shift the scores of each
class of patterns that share their values by an amount of its own. For a
direction of the other weights, a model is then one threshold per class,
and the best ones are a small exact search: for a window ``[L, L + gap]``
of rates, each class takes its cut of fewest errors among those that keep
the rates of its groups in the window, and the window's floor ``L`` runs
over every rate a group reaches. For disagreement with the baseline, each
window is a knapsack with one choice per class: the cuts of most
disagreement whose errors together meet the budget. A random ascent over
directions, each scored by that exact search, finds the directions.

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
#: Random steps of one ascent over directions (about 1 ms each on COMPAS).
ASCENT_STEPS = 2000
#: Ascents from the same start, each with its own random steps: their
#: results vary widely (on COMPAS under a 2-point race gap, from 3.3% to
#: 11.6% of the people over ten), so several are worth more than one long.
ASCENT_RESTARTS = 10
#: An ascent stops after this many steps in a row without a gain.
ASCENT_PATIENCE = 300
#: A step moves each weight outside the offset columns with this chance, by
#: a normal amount of this scale (times the largest weight). On COMPAS
#: under a 2-point race gap, ten ascents found at most 1.0% of the people
#: when every weight moves at each step, 5.3% to 6.7% with chances from 0.07
#: to 0.3 and scales from 0.02 to 0.1, and 3.4% at a scale of 0.2.
STEP_CHANCE = 0.3
STEP_SCALE = 0.05


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


def offset_disagreement_models(
    enc, directions, baseline, weights, budget, *, deadline=None, max_models=20
):
    """Models of the class within ``budget`` disagreeing most with the
    baseline, by per-class cuts of each direction.

    Each direction's best combination of cuts (see
    :meth:`OffsetSearch.most_disagreement`) is a candidate; the
    ``max_models`` that disagree most are brought into the class (by scaling,
    else by their labelling's max-margin LP) and verified.

    Empty when the class has no offset classes (see :func:`offset_classes`)
    or the budget is not one number.
    """
    classes = offset_classes(enc)
    if classes is None or np.ndim(budget) or not directions:
        return []
    search = OffsetSearch(enc, classes, TIE)
    k = enc.n_train
    baseline = np.asarray(baseline[:k], dtype=bool)
    weights = np.asarray(weights, dtype=float)[:k]
    candidates = []
    for direction in directions:
        if deadline is not None and deadline.expired():
            break
        best = search.most_disagreement(direction, baseline, weights, budget)
        if best is not None and best[0] > 0:
            candidates.append(best)
    candidates.sort(key=lambda item: -item[0])
    found, seen = [], set()
    for _, _, (w, b) in candidates:
        if len(found) >= max_models or (deadline is not None and deadline.expired()):
            break
        z = enc.X[:k] @ w + b > 0
        key = np.packbits(z).tobytes()
        if key in seen:
            continue
        seen.add(key)
        model = _in_class(enc, w, b)
        if model is not None and LevelSet.within(model.errors, budget):
            found.append(model)
    return found


def offset_ascent_models(
    enc, start, baseline, weights, budget, *, deadline=None, seed=0
):
    """Models of the class within ``budget`` found by a random ascent over
    directions, each scored by its per-class cuts of most disagreement.

    From the direction of ``start``, a step adds normal noise to some of
    the weights outside the offset columns and is kept when its best cuts
    (:meth:`OffsetSearch.most_disagreement`) disagree no less; each of
    :data:`ASCENT_RESTARTS` ascents takes :data:`ASCENT_STEPS` steps at
    most, and stops after :data:`ASCENT_PATIENCE` in a row without a gain.
    The search over cuts is exact for each direction, so the ascent moves
    only the direction; the best combination of each ascent is verified
    and kept when it lies in the class within the budget.

    Empty when the class has no offset classes, the budget is not one
    number or ``start`` is ``None``.
    """
    classes = offset_classes(enc)
    if classes is None or np.ndim(budget) or start is None:
        return []
    search = OffsetSearch(enc, classes, TIE)
    k = enc.n_train
    baseline = np.asarray(baseline[:k], dtype=bool)
    weights = np.asarray(weights, dtype=float)[:k]
    movable = np.ones(enc.p, dtype=bool)
    movable[classes.columns] = False
    rng = np.random.default_rng(seed)
    own_cuts = search.most_disagreement(start.w, baseline, weights, budget)
    found = []
    for _ in range(ASCENT_RESTARTS):
        direction, best = np.array(start.w, dtype=float), own_cuts
        since_gain = 0
        for _ in range(ASCENT_STEPS):
            if since_gain >= ASCENT_PATIENCE or (
                deadline is not None and deadline.expired()
            ):
                break
            moved = rng.uniform(size=enc.p) < STEP_CHANCE
            step = rng.normal(size=enc.p) * (moved & movable)
            trial = direction + STEP_SCALE * np.abs(direction).max() * step
            value = search.most_disagreement(trial, baseline, weights, budget)
            since_gain += 1
            if value is None or (best is not None and value[0] < best[0]):
                continue
            # Equal values are kept too: the ascent drifts along plateaus.
            if best is None or value[0] > best[0]:
                since_gain = 0
            direction, best = trial, value
        if best is not None and best[0] > 0:
            model = _in_class(enc, *best[2])
            if model is not None and LevelSet.within(model.errors, budget):
                found.append(model)
        if deadline is not None and deadline.expired():
            break
    return found


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
