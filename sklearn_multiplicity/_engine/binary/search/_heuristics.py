"""Cheap searches for models that flip patterns, tried before any MIP.

A model found here is verified like any other, so it certifies the flips it
makes; the heuristics never prove that a pattern cannot be flipped.
"""

import numpy as np

from ...._core import LevelSet, verify
from ...._mip import realise
from ._offset_models import offset_flip_models


def running_argmin(values):
    """Index of the first minimum of ``values[: i + 1]``, for every ``i``."""
    best_so_far = np.minimum.accumulate(values)
    new_best = np.ones(values.size, dtype=bool)
    new_best[1:] = values[1:] < best_so_far[:-1]
    return np.maximum.accumulate(np.where(new_best, np.arange(values.size), 0))


def _cuts(scores, pos, neg):
    """Every threshold of ``scores`` and its weighted error.

    Cut ``i`` predicts positive the patterns from the ``i``-th smallest score
    on: its error is the positive weight below plus the negative weight from
    there. Cuts between ties get an infinite error.

    Returns
    -------
    order, sorted_scores, errors, thresholds : ndarray
        ``errors`` and ``thresholds`` have one entry per cut (``k + 1``).
    """
    order = np.argsort(scores, kind="stable")
    sorted_s = scores[order]
    pos_below = np.concatenate([[0.0], np.cumsum(pos[order])])
    neg_from = np.concatenate([np.cumsum(neg[order][::-1])[::-1], [0.0]])
    errors = pos_below + neg_from
    errors[1:-1][np.diff(sorted_s) <= 0] = np.inf
    cut = np.concatenate([[sorted_s[0] - 1.0], sorted_s, [sorted_s[-1] + 1.0]])
    return order, sorted_s, errors, 0.5 * (cut[:-1] + cut[1:])


def _with_gap(errors, sorted_scores, min_gap):
    """``errors`` with the cuts between scores under ``min_gap`` apart ruled out."""
    if min_gap <= 0:
        return errors
    errors = errors.copy()
    errors[1:-1][np.diff(sorted_scores) < min_gap] = np.inf
    return errors


def direction_cuts(enc, w, min_gap, *, scale=False):
    """The thresholds of direction ``w`` that the class admits.

    ``w`` is first repaired to meet the constraints on weights, and scaled
    to ``max |w_j| = 1`` with ``scale`` or a positive ``min_gap``; cuts
    between scores under ``min_gap`` apart, and cuts whose labelling breaks
    a constraint, get an infinite error.

    Returns
    -------
    None when the repaired direction is zero, else ``(w, scores, order,
    sorted_scores, errors, thresholds)`` as in :func:`_cuts`.
    """
    for constraint in enc.constraints:
        w = constraint.repair(w)
    if not np.any(w):
        return None
    if scale or min_gap > 0:
        w = w / np.abs(w).max()
    s = enc.X[: enc.n_train] @ w
    pos, neg = enc.problem.positive_weight, enc.problem.negative_weight
    order, sorted_s, errors, thresholds = _cuts(s, pos, neg)
    errors = _with_gap(errors, sorted_s, min_gap)
    for constraint in enc.constraints:
        admissible = constraint.admissible_cuts(order)
        if admissible is not None:
            errors = np.where(admissible, errors, np.inf)
    return w, s, order, sorted_s, errors, thresholds


def admitted_cuts(enc, directions, min_gap, *, scale=False):
    """:func:`direction_cuts` of each direction not zero once repaired."""
    for w in directions:
        cuts = direction_cuts(enc, w, min_gap, scale=scale)
        if cuts is not None:
            yield cuts


def class_gap(enc):
    """Smallest score gap a threshold needs to keep the class's margin.

    Twice the margin, with the slack that ``fit_model``'s membership test
    allows; 0 for classes without a margin.
    """
    margin = getattr(enc.hypothesis, "margin", 0.0)
    return 2 * margin * (1 + 1e-5) if margin else 0.0


def _realised(enc, z, budget, source):
    """A verified model of the class within ``budget`` predicting ``z``, or None."""
    solution = realise(enc, z)
    if solution is None:
        return None
    model = verify(enc, *solution, source=source)
    return model if LevelSet.within(model.errors, budget) else None


def _rotated(enc, z, budget, tried):
    """The max-margin LP's model of labelling ``z`` within ``budget`` (or
    None), and whether the LP ran: not for a labelling ``tried`` before."""
    if not _first_try(z, tried):
        return None, False
    return _realised(enc, z, budget, "rotated threshold"), True


def best_thresholds(enc, directions, *, source="threshold"):
    """The model of fewest errors on each direction, among the class's thresholds.

    Each direction is scaled to ``max |w_j| = 1`` and cut only between scores
    far enough apart for the class's margin, so the models lie in the class
    even when the direction's own intercept leaves a pattern too close to
    its hyperplane (common with thousands of distinct patterns).

    Returns
    -------
    list of CanonicalModel
        One verified model per non-zero direction.
    """
    _, _, b_lo, b_hi = enc.hypothesis.weight_bounds(enc.problem)
    models = []
    for w, _, _, _, errors, thresholds in admitted_cuts(
        enc, directions, class_gap(enc), scale=True
    ):
        b = float(np.clip(-thresholds[int(np.argmin(errors))], b_lo, b_hi))
        models.append(verify(enc, w, b, source=source))
    return models


def threshold_flips(enc, directions, baseline, candidates, *, min_gap=0.0):
    """Best threshold of each direction that flips each candidate.

    For a direction ``w`` (the weights of a known model), a threshold
    between two consecutive distinct scores predicts positive every pattern
    above it; the error of every threshold is a cumulative sum over the
    patterns sorted by score. Pattern ``u`` is flipped to positive by every
    threshold below its score (to negative, above it), so the best of those
    is a running minimum. Returns, per candidate pattern, the fewest errors
    found and the model ``(w, b)`` achieving it (unscaled).

    Parameters
    ----------
    enc : Encoding
    directions : list of ndarray
        Canonical weight vectors.
    baseline : ndarray of bool, shape (n_patterns,)
    candidates : ndarray of int
        Patterns to flip.
    min_gap : float, default=0.0
        With a positive ``min_gap``, each direction is scaled to
        ``max |w_j| = 1`` and only thresholds between consecutive scores at
        least ``min_gap`` apart are used: those leave every pattern at
        ``min_gap / 2`` from the threshold, the margin of the hypothesis class.

    Returns
    -------
    errors : ndarray of shape (n_candidates,)
    models : list of (w, b) or None
    """
    candidates = np.asarray(candidates, dtype=np.int64)
    best = np.full(candidates.size, np.inf)
    models = [None] * candidates.size
    to_negative = baseline[candidates]
    for w, s, _, sorted_s, errors, thresholds in admitted_cuts(
        enc, directions, min_gap
    ):
        k = s.size
        best_up_to = running_argmin(errors)  # best cut at or below i
        best_from = k - running_argmin(errors[::-1])[::-1]  # at or above i
        rank_low = np.searchsorted(sorted_s, s[candidates], side="left")
        rank_high = np.searchsorted(sorted_s, s[candidates], side="right")
        chosen = np.where(to_negative, best_from[rank_high], best_up_to[rank_low])
        err = errors[chosen]
        better = np.flatnonzero(err < best)
        best[better] = err[better]
        for j in better:
            models[j] = (w, -thresholds[chosen[j]])
    return best, models


def heuristic_flip_models(enc, directions, baseline, candidates, budget):
    """Verified models of the class, within ``budget``, flipping candidates.

    Tries threshold shifts of every direction and, under a rate gap whose
    groups columns tell apart, a threshold per class of those columns
    (:mod:`._offsets`); returns the distinct models (in the class, within
    the budget) that flip at least one candidate.
    """
    if candidates.size == 0 or not directions:
        return []
    offset_models = offset_flip_models(enc, directions, baseline, candidates, budget)
    errors, models = threshold_flips(
        enc, directions, baseline, candidates, min_gap=class_gap(enc)
    )
    found = []
    seen = set()
    for err, model in zip(errors, models, strict=True):
        if model is None or not LevelSet.within(err, budget):
            continue
        key = (id(model[0]), round(model[1], 12))
        if key in seen:
            continue
        seen.add(key)
        fitted = enc.hypothesis.fit_model(enc.problem, *model)
        if fitted is not None:
            candidate = verify(enc, *fitted, source="threshold shift")
            if LevelSet.within(candidate.errors, budget):
                found.append(candidate)
    return found + offset_models


def pulled_directions(enc, baseline, candidates, *, C=0.01, pull=0.02, deadline=None):
    """Logistic-regression directions pulled towards flipping each candidate.

    For every candidate pattern, a logistic regression on the weighted
    patterns where the candidate's opposite label gets extra weight
    (``pull`` times the total weight) and its own label none. Their threshold
    shifts (:func:`threshold_flips`) find flips within the budget for most
    patterns that have one, at the cost of one small fit each; the fits stop
    when ``deadline`` expires.
    """
    from sklearn.linear_model import LogisticRegression

    prob = enc.problem
    if enc.p == 0:
        return []
    X = enc.X[: enc.n_train]
    k = X.shape[0]
    both = np.vstack([X, X])
    labels = np.concatenate([np.ones(k), np.zeros(k)])
    # In the solvers' unit, so that repeated data gives the same fits.
    weights = np.concatenate([prob.positive_weight, prob.negative_weight])
    weights = weights / prob.weight_unit
    extra = pull * weights.sum()
    directions = []
    for u in candidates:
        if deadline is not None and deadline.expired():
            break
        w = weights.copy()
        wanted, unwanted = (k + u, u) if baseline[u] else (u, k + u)
        w[wanted] += extra
        w[unwanted] = 0.0
        keep = w > 0
        if np.unique(labels[keep]).size < 2:
            continue
        model = LogisticRegression(C=C, max_iter=200)
        model.fit(both[keep], labels[keep], sample_weight=w[keep])
        directions.append(model.coef_.ravel())
    return directions


def rotated_flip_models(
    enc,
    directions,
    baseline,
    candidates,
    budget,
    *,
    deadline=None,
    max_lps=None,
    tried=None,
):
    """Models of the class for threshold labellings its margin rules out.

    The best threshold of the known directions that flips a candidate gives
    a labelling within the budget that no threshold of that direction may
    realise with the class's margin; a rotated hyperplane often does. The
    max-margin LP (:func:`~.._mip.max_margin`) decides it and returns that
    model. Candidates are taken dearest first (within the budget): the
    threshold that flips the dearest also flips every candidate between it
    and the baseline's, so one LP may settle many. A candidate is skipped
    once a model found meanwhile flips it. Continuous classes only. ``tried`` (a set,
    updated) holds the labellings already decided, which are not tried again.

    Returns
    -------
    list of CanonicalModel
        Verified models within ``budget``.
    """
    if enc.hypothesis.integer or candidates.size == 0 or not directions:
        return []
    k = enc.n_train
    errors, labellings = threshold_flips(enc, directions, baseline, candidates)
    open_ = np.zeros(k, dtype=bool)
    open_[candidates] = True
    found, n_lps = [], 0
    X = enc.X[:k]
    within = np.flatnonzero(LevelSet.within(errors, budget))
    for j in within[np.argsort(-errors[within], kind="stable")]:
        u = candidates[j]
        if not open_[u]:
            continue
        if (max_lps is not None and n_lps >= max_lps) or (
            deadline is not None and deadline.expired()
        ):
            break
        w, b = labellings[j]
        model, solved = _rotated(enc, X @ w + b > 0, budget, tried)
        n_lps += solved
        if model is not None:
            found.append(model)
            open_ &= model.z[:k] == baseline[:k]
    return found


def disagreement_models(
    enc,
    directions,
    baseline,
    weights,
    budget,
    *,
    deadline=None,
    max_lps=20,
    tried=None,
):
    """Models within ``budget`` that disagree most with the baseline.

    Along a direction, the weight a threshold predicts unlike the baseline is
    a pair of prefix sums, like its error. The threshold of most disagreement
    within the budget that keeps the class's margin is a model of the class
    as it is; the best thresholds that do not are tried with a rotated
    hyperplane (the max-margin LP, at most ``max_lps`` of them, best first).

    Parameters
    ----------
    enc, directions, baseline
        As in :func:`threshold_flips`.
    weights : ndarray of shape (n_patterns,)
        Weight of disagreeing on each pattern.
    budget : float
    deadline : Deadline or None
        Stops the LPs when it expires.
    max_lps : int
        Largest number of max-margin LPs.
    tried : set or None
        Labellings already decided (updated); they are not tried again.

    Returns
    -------
    list of CanonicalModel
        Verified models within ``budget``.
    """
    min_gap = class_gap(enc)
    k = enc.n_train
    X = enc.X[:k]
    pos, neg = enc.problem.positive_weight, enc.problem.negative_weight
    base = np.asarray(baseline[:k], dtype=bool)
    weights = np.asarray(weights, dtype=float)
    found, rotations = [], []
    for w in directions:
        if not np.any(w):
            continue
        if min_gap:
            w = w / np.abs(w).max()
        scores = X @ w
        order, sorted_s, any_errors, thresholds = _cuts(scores, pos, neg)
        # Cut i predicts order[i:] positive: it disagrees on the baseline's
        # positives below the cut and on its negatives from there.
        below = np.concatenate([[0.0], np.cumsum((weights * base)[order])])
        above = np.cumsum((weights * ~base)[order][::-1])[::-1]
        disagreement = below + np.concatenate([above, [0.0]])
        errors = _with_gap(any_errors, sorted_s, min_gap)
        kept = np.flatnonzero(LevelSet.within(errors, budget))
        best = -np.inf
        if kept.size:
            i = kept[np.argmax(disagreement[kept])]
            best = disagreement[i]
            fitted = enc.hypothesis.fit_model(enc.problem, w, -thresholds[i])
            if fitted is not None:
                model = verify(enc, *fitted, source="disagreement threshold")
                if LevelSet.within(model.errors, budget):
                    found.append(model)
        if min_gap:
            kept = np.flatnonzero(LevelSet.within(any_errors, budget))
            if kept.size:
                i = kept[np.argmax(disagreement[kept])]
                if disagreement[i] > best:
                    item = (disagreement[i], len(rotations), scores, thresholds[i])
                    rotations.append(item)
    rotations.sort(key=lambda item: (-item[0], item[1]))
    n_lps = 0
    for _, _, scores, threshold in rotations:
        if n_lps >= max_lps or (deadline is not None and deadline.expired()):
            break
        model, solved = _rotated(enc, scores > threshold, budget, tried)
        n_lps += solved
        if model is not None:
            found.append(model)
    return found


def moved_models(enc, start, baseline, weights, budget, *, deadline=None, tried=None):
    """Move the hyperplane of ``start`` past one pattern at a time, while the
    error stays within ``budget``, so that it disagrees with the baseline on
    more weight.

    Patterns the model still agrees with the baseline on are tried nearest
    to its hyperplane first; a move is kept when the max-margin LP
    (:func:`~.._mip.realise`) finds a model of the class with the new
    labelling. Continuous classes only; stops when ``deadline`` expires or
    no move is left.

    Returns
    -------
    list of CanonicalModel
        Every verified model reached, each disagreeing more than the last.
    """
    if enc.hypothesis.integer or start is None:
        return []
    k = enc.n_train
    pos, neg = enc.problem.positive_weight, enc.problem.negative_weight
    base = np.asarray(baseline[:k], dtype=bool)
    gain = np.asarray(weights, dtype=float)[:k]
    model, found = start, []
    while deadline is None or not deadline.expired():
        z = model.z[:k]
        scores = enc.X[:k] @ model.w + model.b
        # Errors after flipping each pattern alone.
        after = model.errors + np.where(z, pos - neg, neg - pos)
        movable = np.flatnonzero(
            (z == base) & (gain > 0) & LevelSet.within(after, budget)
        )
        moved = None
        for u in movable[np.argsort(np.abs(scores[movable]), kind="stable")]:
            if deadline is not None and deadline.expired():
                break
            labelling = z.copy()
            labelling[u] = not labelling[u]
            if not _first_try(labelling, tried):
                continue
            moved = _realised(enc, labelling, budget, "moved past a pattern")
            if moved is not None:
                break
        if moved is None:
            break
        model = moved
        found.append(model)
    return found


def lp_models(enc, x, budget):
    """Models within ``budget`` from an LP relaxation's solution.

    Its own weights (verified; the pool keeps them only in the class, as
    with an integral ``z``) and its labels rounded at 1/2, realised by the
    max-margin LP.

    Returns
    -------
    list of CanonicalModel
    """
    found = []
    w, b, z = enc.decode(x)
    model = verify(enc, w, b, source="LP relaxation")
    if LevelSet.within(model.errors, budget):
        found.append(model)
    if not enc.hypothesis.integer:
        rounded = np.asarray(z[: enc.n_train]) > 0.5
        if not np.array_equal(rounded, model.z[: enc.n_train]):
            realised = _realised(enc, rounded, budget, "rounded LP relaxation")
            if realised is not None:
                found.append(realised)
    return found


def _first_try(z, tried):
    """Whether labelling ``z`` is new to ``tried`` (then recorded there)."""
    if tried is None:
        return True
    key = np.packbits(z).tobytes()
    if key in tried:
        return False
    tried.add(key)
    return True


def distinct_directions(directions):
    """``directions`` without repeats up to a positive scale, in order.

    Threshold shifts of one direction all share it, so a pool of models holds
    far fewer directions than models.
    """
    seen, distinct = set(), []
    for w in directions:
        size = np.abs(w).max(initial=0.0)
        if size == 0:
            continue
        key = np.round(w / size, 12).tobytes()
        if key not in seen:
            seen.add(key)
            distinct.append(w)
    return distinct
