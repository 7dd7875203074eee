"""Measures of multiplicity read off certified ranges and models of the set.

Each measure is a share of people (weighted) with certified bounds: the
lower bound counts people decided by attained ends (models of the level
set), the upper bound those that the outer ends do not rule out.
"""

import numpy as np
from scipy.special import logit

from .._core import Bounds
from ._objective import full_scores


def _share(mask, weight):
    return float(weight[mask].sum() / weight.sum())


def threshold_logit(threshold):
    """The score of the probability ``threshold`` (decisions: score above it)."""
    return float(logit(threshold))


def flips(bounds, threshold):
    """``(sure, possible)`` masks of people whose thresholded decision a model
    of the set flips: attained ends cross the threshold / outer ends do."""
    tau = threshold_logit(threshold)
    positive = bounds.baseline > tau
    sure = np.where(positive, bounds.lower_in <= tau, bounds.upper_in > tau)
    possible = np.where(positive, bounds.lower_out <= tau, bounds.upper_out > tau)
    return sure, possible


def ambiguity(bounds, weight, threshold):
    """Certified bounds on the share of people some model flips."""
    sure, possible = flips(bounds, threshold)
    return Bounds(_share(sure, weight), _share(possible, weight))


def delta_ambiguity(probabilities, weight, delta):
    """Certified bounds on the share of people whose probability (K labels:
    of some label) some model moves by more than ``delta`` from the
    baseline's; ``probabilities`` are the ranges' :class:`~._level_set.Brackets`."""
    base = probabilities.baseline

    def moved(lower, upper):
        far = np.maximum(upper - base, base - lower) > delta
        return far.reshape(len(weight), -1).any(axis=1)

    sure = moved(probabilities.lower_in, probabilities.upper_in)
    possible = moved(probabilities.lower_out, probabilities.upper_out)
    return Bounds(_share(sure, weight), _share(possible, weight))


def changed_decisions(objective, rows, models, baseline, threshold=None):
    """Blocks (n, m) saying whether each of the ``models`` (dim, M) decides
    otherwise than the baseline for the augmented ``rows``: two labels, its
    score against the logit of ``threshold`` (``baseline``: the positive
    decisions); K labels, its most probable label (``baseline``: the
    baseline's labels)."""
    width = 64 if objective.is_multiclass else 256
    for start in range(0, models.shape[1], width):
        block = models[:, start : start + width]
        if objective.is_multiclass:
            z = full_scores(np.moveaxis(objective.scores(rows, block), 1, 2))
            yield np.argmax(z, axis=2) != baseline[:, None]
        else:
            yield (rows @ block > threshold_logit(threshold)) != baseline[:, None]


def discrepancy(changed, weight, upper):
    """Certified bounds on the largest share of decisions one model of the
    set changes: below, the best of the blocks ``changed`` of
    :func:`changed_decisions`; above, ``upper`` (the ambiguity's upper
    bound: every person a model changes is ambiguous)."""
    best = 0.0
    for moved in changed:
        best = max(best, float((weight @ moved).max(initial=0.0) / weight.sum()))
    return Bounds(min(best, upper), upper)


def rashomon_capacity(lower, upper):
    """Rashomon capacity ``2 ** C`` of the Bernoulli outputs ``[lower, upper]``.

    ``C`` (bits) is the capacity of the channel from models to a label drawn
    with the model's probability. For two outcomes the outputs form a segment
    of the simplex, so the capacity is that of the binary channel with rows
    ``(1 - a, a)`` and ``(1 - b, b)``, ``a = lower``, ``b = upper`` (mixing
    inner points never helps: mutual information is convex in the channel).
    With ``h`` the binary entropy in bits, the 2x2 channel's capacity is
    ``C = log2(2 ** c0 + 2 ** c1)``, ``c0 = (a h(b) - b h(a)) / (b - a)`` and
    ``c1 = ((1 - b) h(a) - (1 - a) h(b)) / (b - a)`` (the square-channel
    formula of Muroga, 1953), so ``2 ** C = 2 ** c0 + 2 ** c1``, from 1 (no
    spread) to 2 (``a = 0``, ``b = 1``).
    """
    a = np.clip(np.asarray(lower, dtype=float), 0.0, 1.0)
    b = np.clip(np.asarray(upper, dtype=float), 0.0, 1.0)
    a, b = np.minimum(a, b), np.maximum(a, b)
    width = b - a
    flat = width < 1e-12
    w = np.where(flat, 1.0, width)
    c0 = (a * _entropy(b) - b * _entropy(a)) / w
    c1 = ((1 - b) * _entropy(a) - (1 - a) * _entropy(b)) / w
    value = np.exp2(c0) + np.exp2(c1)
    return np.where(flat, 1.0, np.clip(value, 1.0, 2.0))


def _entropy(p):
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = -(p * np.log2(p)) - (1 - p) * np.log2(1 - p)
    return np.nan_to_num(terms, nan=0.0)
