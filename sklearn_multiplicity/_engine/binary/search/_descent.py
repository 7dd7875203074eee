"""Local search on the 0-1 loss itself: exact line searches of a hyperplane.

Along a line ``(w, b) + t (dw, db)`` the score of pattern ``i`` is
``s_i + t d_i``, so its label changes once, at ``t_i = -s_i / d_i``. Between
consecutive breakpoints every label is constant: one sort of the breakpoints
and cumulative sums give the errors (and the weight of disagreement with the
baseline, and whether a given pattern is flipped) on every interval of the
line at once. A descent moves to the best interval of one line after another
(every coordinate, the intercept, random directions) while that improves.

Threshold shifts (:mod:`._heuristics`) search one such line per direction,
the intercept's; the descent turns any model into the best of its
neighbours along many lines, and so flips, within the budget, many of the
patterns that threshold shifts, rotated thresholds and LP relaxations leave
to MIPs. A model found is verified like any other.

Constraints (:class:`~.._mip._constraints.ConstraintRows`) keep a descent in
their class: a step never crosses a fixed sign of the weight box, never
moves a weight outside a full support (``MaxNonzero``), and group rates are
counted on every interval like the errors, their excess over the allowed
gap lowered before anything else.
"""

import math

import numpy as np

from ...._core import ClassBudget, LevelSet, verify
from .._state import CLASS_TOLERANCE, in_class_or_repaired

#: Lines searched per round: every coordinate, the intercept, and this many
#: random directions.
RANDOM_LINES = 10
#: Rounds without a strict improvement before a descent stops.
PATIENCE = 2
#: Most rounds of one descent.
MAX_ROUNDS = 30
#: Probability of moving to an interval as good as the current one (so the
#: descent walks along plateaus of the 0-1 loss instead of stopping there).
SIDESTEP = 0.3
#: Patterns in a row whose descent finds no flip before the rest are left
#: to the MIPs (patterns come likeliest first).
MAX_MISSES = 20
#: Passes of :func:`flip_patterns` on an encoding with affine-identity rows,
#: whose MIPs settle what one pass leaves (COMPAS at eps = 1%: further
#: passes flipped 2 more patterns in 6 s, and the MIPs took as long).
PASSES_WITH_IDENTITIES = 1


def line_search(scores, delta, if_positive, if_negative, cuts=()):
    """A point inside every interval of the line ``scores + t * delta``, and
    the total value of the patterns there.

    Parameters
    ----------
    scores, delta : ndarray of shape (k,)
    if_positive, if_negative : ndarray of shape (k, c)
        Value of each pattern when it is predicted positive (score > 0) or
        negative.
    cuts : sequence of float, default=()
        Further breakpoints (the ends of the steps a constraint allows), so
        that every interval lies on one side of each.

    Returns
    -------
    points : ndarray of shape (m,)
        Increasing; one per interval between distinct breakpoints.
    totals : ndarray of shape (m, c)
        Sum over patterns of their value at each point.
    """
    moving = delta != 0
    fixed_positive = ~moving & (scores > 0)
    fixed_negative = ~moving & ~(scores > 0)
    fixed = if_positive[fixed_positive].sum(axis=0) + if_negative[fixed_negative].sum(
        axis=0
    )
    t = -scores[moving] / delta[moving]
    breaks = np.unique(np.concatenate([t, np.asarray(cuts, dtype=float)]))
    if breaks.size == 0:
        return np.zeros(1), fixed[None, :]
    span = max(1.0, float(np.abs(breaks).max()))
    points = np.concatenate(
        [[breaks[0] - span], 0.5 * (breaks[:-1] + breaks[1:]), [breaks[-1] + span]]
    )
    rising = delta[moving] > 0  # positive exactly when the point passes t_i
    totals = np.broadcast_to(fixed, (points.size, fixed.size)).copy()
    for mask, before, after in (
        (rising, if_negative, if_positive),
        (~rising, if_positive, if_negative),
    ):
        order = np.argsort(t[mask], kind="stable")
        passed = np.searchsorted(t[mask][order], points)  # breakpoints below
        rows = np.flatnonzero(moving)[mask][order]
        cum_after = np.vstack([np.zeros(fixed.size), np.cumsum(after[rows], axis=0)])
        cum_before = np.vstack([np.zeros(fixed.size), np.cumsum(before[rows], axis=0)])
        totals += cum_after[passed] + (cum_before[-1] - cum_before[passed])
    return points, totals


class Descent:
    """Exact line searches from known models towards flips and disagreement.

    Parameters
    ----------
    enc : Encoding
        Of a continuous hypothesis class.
    seed : int
        Seeds the random lines, so that a search is repeatable.
    deadline : Deadline or None
        Every descent stops when it expires.
    """

    def __init__(self, enc, *, seed=0, deadline=None):
        self.enc = enc
        self.rng = np.random.default_rng(seed)
        self.deadline = deadline
        self.X = enc.X[: enc.n_train]
        problem = enc.problem
        self.errors_if = (problem.negative_weight, problem.positive_weight)
        # Signs are the only scale-free sides of the weight box: a descent
        # keeps to them by limiting each step; a weight fixed at 0 never moves.
        self.nonnegative = enc.w_lower >= 0
        self.nonpositive = enc.w_upper <= 0
        self.movable = ~(self.nonnegative & self.nonpositive)
        # What the constraints count of each pattern predicted positive
        # (group rates), carried as extra columns of every line search.
        self.counted = [c.counted_if_positive(enc.n_train) for c in enc.constraints]
        self.total_weight = float(problem.pattern_weight.sum())
        if not any(c.shape[1] for c in self.counted):
            self.counted = []
        # Where each constraint's columns end, after the measure's own.
        self.counted_ends = np.cumsum([c.shape[1] for c in self.counted], dtype=int)

    def _expired(self):
        return self.deadline is not None and self.deadline.expired()

    def flip(self, start, pattern, label, budget):
        """A verified model within ``budget`` that predicts ``label`` for
        ``pattern``, or None.

        ``start`` is typically the known model of fewest errors with that
        label (too many of them): the descent lowers its excess over the
        budget, then its errors, while keeping the label, and stops as soon
        as the model is within the budget. From a model with the other label
        it first moves to the best interval with the wanted one.

        Parameters
        ----------
        start : CanonicalModel
        pattern : int
        label : bool
        budget : float or ClassBudget
            Overall errors, or false positives and false negatives apart.
        """
        k = self.X.shape[0]
        negative, positive = self.errors_if
        at_pattern = np.zeros(k)
        at_pattern[pattern] = 1.0
        # Columns: false positives, false negatives, the pattern positive.
        if_pos = np.column_stack([negative, np.zeros(k), at_pattern])
        if_neg = np.column_stack([np.zeros(k), positive, np.zeros(k)])
        heavy = 1.0 + float(negative.sum() + positive.sum())

        def badness(totals):
            kept = (totals[:, 2] > 0.5) == bool(label)
            errors = totals[:, 0] + totals[:, 1]
            excess = _excess(totals[:, 0], totals[:, 1], budget)
            return np.where(kept, heavy * excess + errors, np.inf)

        def done(totals):
            return bool(_admits(totals[0], totals[1], budget))

        model = self._descend(start, if_pos, if_neg, badness, done)
        if model is None or bool(model.z[pattern]) != bool(label):
            return None
        if not _admits(model.false_positives, model.false_negatives, budget):
            return None
        return model

    def fewest_errors(self, start):
        """A verified model with fewer errors than ``start``, or None."""
        negative, positive = self.errors_if
        if_pos, if_neg = negative[:, None], positive[:, None]
        model = self._descend(start, if_pos, if_neg, lambda totals: totals[:, 0], None)
        return model if model is not None and model.errors < start.errors else None

    def disagree(self, start, baseline, weights, budget):
        """A verified model within ``budget`` that disagrees with ``baseline``
        on more ``weights`` than ``start`` (a model within it), or None."""
        base = np.asarray(baseline[: self.X.shape[0]], dtype=bool)
        weights = np.asarray(weights, dtype=float)[: self.X.shape[0]]
        if_pos = np.column_stack([self.errors_if[0], weights * ~base])
        if_neg = np.column_stack([self.errors_if[1], weights * base])
        # Most disagreement first, then fewest errors.
        tie = 1.0 / (1.0 + float(self.errors_if[0].sum() + self.errors_if[1].sum()))

        def badness(totals):
            within = LevelSet.within(totals[:, 0], budget)
            return np.where(within, tie * totals[:, 0] - totals[:, 1], np.inf)

        model = self._descend(start, if_pos, if_neg, badness, None)
        if model is None or not LevelSet.within(model.errors, budget):
            return None
        gained = float(weights[model.z[: base.size] != base].sum())
        before = float(weights[start.z[: base.size] != base].sum())
        return model if gained > before else None

    # -- the descent -----------------------------------------------------------
    def _lines(self, p):
        """Coordinates, the intercept and random directions, shuffled; no
        line moves a weight fixed at 0."""
        eye = np.eye(p)
        lines = [(eye[j], 0.0) for j in np.flatnonzero(self.movable)]
        lines += [(np.zeros(p), 1.0)]
        lines += [
            (
                np.where(self.movable, self.rng.standard_normal(p), 0.0),
                float(self.rng.standard_normal()),
            )
            for _ in range(RANDOM_LINES)
        ]
        return [lines[i] for i in self.rng.permutation(len(lines))]

    def _followed(self, w, dw):
        """``dw`` without the moves of weights the constraints hold at ``w``."""
        for rule in self.enc.constraints:
            dw = rule.line_direction(w, dw)
        return dw

    def _steps(self, w, dw):
        """The steps ``t`` for which ``w + t dw`` keeps the fixed signs: an
        interval ``(low, high)``."""
        low, high = -np.inf, np.inf
        for side, sign in ((self.nonnegative, 1.0), (self.nonpositive, -1.0)):
            # sign * (w_j + t dw_j) >= 0 for the weights of that side.
            slope, value = sign * dw[side], sign * w[side]
            up, down = slope > 0, slope < 0
            if up.any():
                low = max(low, float(np.max(-value[up] / slope[up])))
            if down.any():
                high = min(high, float(np.min(-value[down] / slope[down])))
        return low, high

    def _constraint_excess(self, totals, width):
        """How far the constraints' columns of ``totals`` (after the first
        ``width``) break the constraints, in people (0 where all are met)."""
        excess = np.zeros(totals.shape[0])
        lo = width
        for rule, end in zip(self.enc.constraints, self.counted_ends, strict=True):
            excess += rule.excess_of_counts(totals[:, lo : width + end])
            lo = width + end
        return excess * self.total_weight

    def _judged(self, badness, width):
        """The excess over the constraints first, then ``badness`` of the
        first ``width`` columns of totals: a descent may so pass through
        models that break a rate gap on its way to one that meets it."""
        if not self.counted:
            return badness
        # Above any badness of the searches, whose values stay below it.
        first = (1.0 + self.total_weight) ** 2

        def judge(totals):
            excess = self._constraint_excess(totals, width)
            return first * excess + np.asarray(badness(totals[:, :width]), float)

        return judge

    def _descend(self, start, if_pos, if_neg, badness, done):
        """Move ``start`` to the best interval of line after line.

        Returns the model reached (verified and in the class), or None when
        no line offered a move or the class has no model with its labels.
        """
        width = if_pos.shape[1]
        if self.counted:
            k = if_pos.shape[0]
            if_pos = np.hstack([if_pos, *self.counted])
            if_neg = np.hstack([if_neg, np.zeros((k, if_pos.shape[1] - width))])
        badness = self._judged(badness, width)
        w, b = np.array(start.w, dtype=float), float(start.b)
        # Models of the class meet the signs and the sparsity within the
        # solver's tolerance; the margin keeps their labels when cleaned.
        w[np.abs(w) <= CLASS_TOLERANCE] = 0.0
        w = np.where(self.nonnegative, np.maximum(w, 0.0), w)
        w = np.where(self.nonpositive, np.minimum(w, 0.0), w)
        scores = self.X @ w + b
        current = badness(_totals(scores, if_pos, if_neg)[None, :])[0]
        moved, stale = False, 0
        for _ in range(MAX_ROUNDS):
            improved = False
            for dw, db in self._lines(w.size):
                if self._expired():
                    break
                dw = self._followed(w, dw)
                if not dw.any() and db == 0:
                    continue
                low, high = self._steps(w, dw)
                if not low < high:
                    continue
                points, totals = line_search(
                    scores,
                    self.X @ dw + db,
                    if_pos,
                    if_neg,
                    cuts=[t for t in (low, high) if np.isfinite(t)],
                )
                bad = badness(totals)
                bad[(points <= low) | (points >= high)] = np.inf
                pick = int(np.argmin(bad))
                if not np.isfinite(bad[pick]):
                    continue
                better = bad[pick] < current - 1e-9
                sideways = (
                    not better
                    and bad[pick] <= current + 1e-9
                    and self.rng.random() < SIDESTEP
                )
                if not (better or sideways):
                    continue
                w, b = _normalised(w + points[pick] * dw, b + points[pick] * db)
                scores = self.X @ w + b
                now = _totals(scores, if_pos, if_neg)
                current = badness(now[None, :])[0]
                moved, improved = True, improved or better
                if (
                    done is not None
                    and done(now[:width])
                    and not (
                        self.counted and self._constraint_excess(now[None, :], width)[0]
                    )
                ):
                    return self._model(w, b)
            if self._expired():
                break
            stale = 0 if improved else stale + 1
            if stale >= PATIENCE:
                break
        return self._model(w, b) if moved else None

    def _model(self, w, b):
        """The model of the class with the labels of ``(w, b)``: itself
        scaled into the class, else its labelling's max-margin model
        (:func:`~._state.in_class_or_repaired`); None when neither is."""
        enc = self.enc
        fitted = enc.hypothesis.fit_model(enc.problem, w, b)
        model = verify(enc, *(fitted or (w, b)), source="descent")
        return in_class_or_repaired(enc, model)


def _admits(false_positives, false_negatives, budget):
    """Whether the error counts are within ``budget`` (overall or per class)."""
    if isinstance(budget, ClassBudget):
        return budget.admits(false_positives, false_negatives)
    return LevelSet.within(false_positives + false_negatives, budget)


def _excess(false_positives, false_negatives, budget):
    """How far the error counts exceed ``budget`` (0 within it)."""
    if isinstance(budget, ClassBudget):
        return np.maximum(false_positives - budget.false_positives, 0) + np.maximum(
            false_negatives - budget.false_negatives, 0
        )
    return np.maximum(false_positives + false_negatives - budget, 0)


def applies(enc):
    """Whether descents search the class of ``enc``: continuous weights (the
    constraints keep them to the class through
    :class:`~.._mip._constraints.ConstraintRows`'s hooks)."""
    return not enc.hypothesis.integer


def flip_patterns(state, patterns, budget, deadline):
    """Descend towards a flip of each of ``patterns``, likeliest first, in
    passes, until ``deadline`` or two passes in a row that flip nothing
    (with identity rows, :data:`PASSES_WITH_IDENTITIES`); every model found
    within ``budget`` is pooled.

    First the model of fewest errors is lowered by descents (every error it
    saves is budget for a flip). A pass then starts each pattern's descents
    from one shared model, by turns the model of fewest errors and the one
    nearest the baseline, and then from the pattern's best known flip; it
    stops after :data:`MAX_MISSES` patterns in a row get no flip. The lines
    of a descent are random, so each pass searches anew, from the models the
    passes before found (``benchmarks/README.rst`` compares the starts).

    Parameters
    ----------
    state : AuditState
    patterns : ndarray of int
        Undecided patterns; the likeliest flips (fewest errors of a known
        flip) are tried first.
    budget : float or ClassBudget
    deadline : Deadline
    """
    if not applies(state.enc) or len(patterns) == 0 or not len(state.pool):
        return  # no pattern to flip, or no model to start from
    descent = Descent(state.enc, deadline=deadline)
    _lower_fewest(state, descent, deadline)
    passes = PASSES_WITH_IDENTITIES if state.enc.n_identities else math.inf
    # Patterns that no model found here flips (the budget may be a pair,
    # which the state's flip bounds do not answer).
    open_ = np.zeros(state.problem.n_patterns, dtype=bool)
    open_[patterns] = True
    turn, empty = 0, 0
    while turn < passes and empty < 2 and not deadline.expired():
        # The shared starts take turns: one per pass keeps a pass's misses
        # cheap (two descents each).
        shared = _shared_start(state, nearest=bool(turn % 2))
        flipped = _flip_pass(state, descent, open_, shared, budget, deadline)
        empty = 0 if flipped else empty + 1
        turn += 1


def _lower_fewest(state, descent, deadline):
    """Pool models of fewer errors than the fewest known, by descents from
    it, until :data:`PATIENCE` in a row find none."""
    fewest = _shared_start(state, nearest=False)
    misses = 0
    while misses < PATIENCE and not deadline.expired():
        lower = state.add_model(descent.fewest_errors(fewest))
        if lower is None or lower.errors >= fewest.errors:
            misses += 1
        else:
            fewest, misses = lower, 0


def _flip_pass(state, descent, open_, shared, budget, deadline):
    """One pass of :func:`flip_patterns` over the patterns of the mask
    ``open_`` (updated in place), from the shared start ``shared`` and each
    pattern's best known flip; whether it flipped any pattern."""
    patterns = np.flatnonzero(open_)
    patterns = patterns[np.argsort(state.flip_upper[patterns], kind="stable")]
    k = state.problem.n_patterns
    misses, flipped = 0, False
    for u in patterns:
        if deadline.expired() or misses >= MAX_MISSES:
            break
        if not open_[u]:
            continue
        model = None
        for start in _starts(shared, state.witness_of(u)):
            model = state.add_model(
                descent.flip(start, u, not state.baseline[u], budget)
            )
            if model is not None:
                break
        if model is None:
            misses += 1
        else:  # within the budget: its flips are settled
            misses, flipped = 0, True
            open_ &= model.z[:k] == state.baseline
    return flipped


def _shared_start(state, *, nearest):
    """The pooled model of fewest errors, or with ``nearest`` the one nearest
    the baseline (fewest people predicted otherwise: the baseline itself
    when the class realises it), where every pattern's descents of a pass
    start.

    On German credit the flips known cost 25 errors over the budget, and
    the descents from them found none of 40, from the baseline 8. On breast
    cancer (6 features) the model of fewest errors (5 below the baseline)
    and the baseline each start flips that the other misses.
    """
    models = state.pool.models
    if nearest:
        weight = state.problem.pattern_weight
        return min(models, key=lambda m: state.disagreement(m, weight))
    return min(models, key=lambda m: m.errors)


def _starts(*models):
    """The distinct models given, in order, without None."""
    starts = []
    for model in models:
        if model is not None and all(model is not other for other in starts):
            starts.append(model)
    return starts


def _totals(scores, if_positive, if_negative):
    """Total value of the patterns at ``scores``."""
    positive = scores > 0
    return if_positive[positive].sum(axis=0) + if_negative[~positive].sum(axis=0)


def _normalised(w, b):
    """``(w, b)`` scaled to ``max |w_j| = 1`` (unchanged when ``w`` is 0)."""
    size = np.abs(w).max(initial=0.0)
    return (w / size, b / size) if size > 0 else (w, b)
