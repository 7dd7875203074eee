"""Intercept shifts: cheap models of a K-class level set from known ones.

Raising one label's intercept (for label 0, whose score is fixed at 0,
lowering every other) hands that label the patterns where it trails least,
one after another, and changes nothing else. For a known model and a label
``m``, sorting the patterns by the raise ``m`` needs to win them by the
margin gives every model of this kind at once: a prefix of that order. Its
errors (per label) and its disagreement with the baseline are cumulative
sums, so the largest prefix within the ceiling (the most patterns handed to
``m``) and the prefix of most disagreement come from one pass. A prefix is
only a model of the class when the next pattern trails by at least twice the
margin more (it must keep its own label by the margin).

The technique yields witnesses (flips, disagreeing models) and no proofs;
the certifier verifies every candidate before it counts.
"""

import numpy as np

from ..._core import TOLERANCE, LabelCeilings, admits
from ..._core._hypothesis import scores

#: Rounds of intercept shifts, and the most-disagreeing models shifted in each.
SHIFT_ROUNDS = 2
SHIFT_BASES = 8


def shift_search(certifier, budget):
    """Pool the intercept shifts of the models of a
    :class:`~._multiclass.MulticlassCertifier` within ``budget`` that
    disagree most with the baseline, and of the one with the fewest errors;
    then of the new ones, for :data:`SHIFT_ROUNDS` rounds. No solver."""
    problem, hypothesis = certifier.problem, certifier.hypothesis
    ceiling = certifier.ceiling(budget)
    for _ in range(SHIFT_ROUNDS):
        within = [m for m in certifier.pool if admits(m, ceiling)]
        if not within:
            return
        bases = sorted(within, key=certifier.disagreement, reverse=True)
        bases = bases[:SHIFT_BASES] + [min(within, key=lambda m: m.errors)]
        found = 0
        for base in {id(m): m for m in bases}.values():
            for W, b, source in intercept_shifts(
                problem,
                hypothesis.margin,
                certifier.enc.X,
                base,
                certifier.baseline_labels,
                ceiling,
            ):
                fitted = hypothesis.fit_model(problem, W, b)
                model = None
                if fitted is not None:
                    model = certifier.verify(*fitted, source)
                # A labelling already pooled witnesses nothing new.
                if model is not None and not certifier.knows(model):
                    certifier.add(model)
                    found += 1
        if not found:
            return


def intercept_shifts(problem, margin, X, base, baseline_labels, ceiling):
    """Candidate models from shifting one intercept of ``base``.

    Parameters
    ----------
    problem : PatternProblem
    margin : float
        The margin of the class.
    X : ndarray of shape (n_patterns, p)
        Canonical scaled patterns.
    base : MulticlassModel
        A verified model.
    baseline_labels : ndarray of int, shape (n_patterns,)
    ceiling : float or LabelCeilings
        The level set's error ceiling.

    Returns
    -------
    list of tuple
        ``(W, b, source)`` of each candidate (not yet verified).
    """
    S = scores(base.W, base.b, X)
    labels = base.labels
    counts, weight = problem.counts, problem.pattern_weight
    K = counts.shape[1]
    candidates = []
    for m in range(K):
        others = S.copy()
        others[:, m] = -np.inf
        raise_needed = others.max(axis=1) - S[:, m] + margin
        moved = np.flatnonzero(labels != m)
        if moved.size == 0:
            continue
        moved = moved[np.argsort(raise_needed[moved], kind="stable")]
        needed = raise_needed[moved]
        # Errors per true label after handing the first j patterns to m.
        change = counts[moved] * (
            (np.arange(K) == labels[moved, None]).astype(float)
            - (np.arange(K) == m).astype(float)
        )
        label_errors = base.label_errors + np.cumsum(change, axis=0)
        within = _within(label_errors, ceiling)
        # The next pattern must keep its label by the margin.
        within &= np.append(needed[1:] >= needed[:-1] + 2 * margin, True)
        if not within.any():
            continue
        differ = (labels != baseline_labels).astype(float)
        gain = weight[moved] * (
            (m != baseline_labels[moved]).astype(float) - differ[moved]
        )
        disagreement = np.cumsum(gain)
        largest = int(np.flatnonzero(within)[-1])
        most = int(np.flatnonzero(within)[np.argmax(disagreement[within])])
        for j in sorted({largest, most}):
            b = np.asarray(base.b, dtype=float).copy()
            if m == 0:
                b -= needed[j]
            else:
                b[m - 1] += needed[j]
            candidates.append((base.W, b, f"intercept shift of {m} ({base.source})"))
    return candidates


def _within(label_errors, ceiling):
    """Rows of per-label errors ``(j, K)`` within ``ceiling``."""
    if isinstance(ceiling, LabelCeilings):
        limits = np.asarray(ceiling.ceilings) + TOLERANCE
        return np.all(label_errors <= limits, axis=1)
    return label_errors.sum(axis=1) <= ceiling + TOLERANCE
