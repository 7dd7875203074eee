"""Cheap searches for models that flip patterns, tried before any MIP.

A model found here is verified like any other, so it certifies the flips it
makes; the heuristics never prove that a pattern cannot be flipped.
"""

import numpy as np

from ._models import verify


def threshold_flips(enc, directions, baseline, candidates):
    """Best threshold shift of each direction that flips each candidate.

    For a direction ``w`` (the weights of a known model), moving the
    threshold just past pattern ``u``'s score flips ``u`` and every pattern
    beyond it; the error of every such shift is a cumulative sum over the
    patterns sorted by score. Returns, per candidate pattern, the fewest
    errors found and the model ``(w, b)`` achieving it (unscaled).

    Parameters
    ----------
    enc : Encoding
    directions : list of ndarray
        Canonical weight vectors.
    baseline : ndarray of bool, shape (n_patterns,)
    candidates : ndarray of int
        Patterns to flip.

    Returns
    -------
    errors : ndarray of shape (n_candidates,)
    models : list of (w, b) or None
    """
    prob = enc.problem
    X = enc.X[: enc.n_train]
    pos, neg = prob.positive_weight, prob.negative_weight
    best = np.full(candidates.size, np.inf)
    models = [None] * candidates.size
    for w in directions:
        if not np.any(w):
            continue
        s = X @ w
        order = np.argsort(s, kind="stable")
        sorted_s = s[order]
        # Errors if every pattern with score >= the i-th sorted score is positive.
        pos_below = np.concatenate([[0.0], np.cumsum(pos[order])])  # excl. i
        neg_from = np.concatenate([np.cumsum(neg[order][::-1])[::-1], [0.0]])
        rank_low = np.searchsorted(sorted_s, s, side="left")  # first with s_v >= s_u
        rank_high = np.searchsorted(sorted_s, s, side="right")  # first with s_v > s_u
        to_positive = pos_below[rank_low] + neg_from[rank_low]
        to_negative = pos_below[rank_high] + neg_from[rank_high]
        for j, u in enumerate(candidates):
            if baseline[u]:  # flip u to negative: threshold just above s_u
                err = to_negative[u]
                hi = rank_high[u]
                upper = sorted_s[hi] if hi < s.size else s[u] + 1.0
                threshold = 0.5 * (s[u] + upper)
            else:  # flip u to positive: threshold just below s_u
                err = to_positive[u]
                lo = rank_low[u]
                lower = sorted_s[lo - 1] if lo > 0 else s[u] - 1.0
                threshold = 0.5 * (s[u] + lower)
            if err < best[j]:
                best[j] = err
                models[j] = (w, -threshold)
    return best, models


def heuristic_flip_models(enc, directions, baseline, candidates, budget):
    """Verified models of the class, within ``budget``, flipping candidates.

    Tries threshold shifts of every direction; returns the distinct models
    (in the class, within the budget) that flip at least one candidate.
    """
    if candidates.size == 0 or not directions:
        return []
    errors, models = threshold_flips(enc, directions, baseline, candidates)
    found = []
    seen = set()
    for err, model in zip(errors, models, strict=True):
        if model is None or err > budget + 1e-9:
            continue
        key = (id(model[0]), round(model[1], 12))
        if key in seen:
            continue
        seen.add(key)
        fitted = enc.hypothesis.fit_model(enc.problem, *model)
        if fitted is not None:
            candidate = verify(enc, *fitted, source="threshold shift")
            if candidate.errors <= budget + 1e-9:
                found.append(candidate)
    return found


def pulled_directions(enc, baseline, candidates, *, C=0.01, pull=0.02):
    """Logistic-regression directions pulled towards flipping each candidate.

    For every candidate pattern, a logistic regression on the weighted
    patterns where the candidate's opposite label gets extra weight
    (``pull`` times the total weight) and its own label none. Their threshold
    shifts (:func:`threshold_flips`) find flips within the budget for most
    patterns that have one, at the cost of one small fit each.
    """
    from sklearn.linear_model import LogisticRegression

    prob = enc.problem
    if enc.p == 0:
        return []
    X = enc.X[: enc.n_train]
    k = X.shape[0]
    both = np.vstack([X, X])
    labels = np.concatenate([np.ones(k), np.zeros(k)])
    weights = np.concatenate([prob.positive_weight, prob.negative_weight])
    extra = pull * weights.sum()
    directions = []
    for u in candidates:
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
