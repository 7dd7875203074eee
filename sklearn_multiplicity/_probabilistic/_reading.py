"""What the probabilistic auditor reads off its certified ranges: ambiguity,
discrepancy, delta-ambiguity and Rashomon capacity."""

import warnings

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from .._core._validation import check_epsilon
from .._exceptions import CertificationWarning
from . import _measures

#: Most ambiguous people whose range-attaining models the discrepancy's lower
#: bound tries (a sample of them, drawn with ``random_state``, beyond it).
MAX_FLIP_MODELS = 2000


class MeasuresMixin:
    """Measures of :class:`ProbabilisticAuditor`.

    Reads the auditor's ``_ranges(eps, threshold)``, ``_eps``, ``_threshold``,
    ``viable_prediction_range``, ``random_state``, the training ``_rows`` and
    ``_weight`` and the fitted ``_level_set``.
    """

    def ambiguity_bounds(self, eps=None, threshold=None):
        """Certified ``(lower, upper)`` bounds on ambiguity.

        Parameters
        ----------
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.
        threshold : float, default=None
            Decision threshold; defaults to the ``threshold`` parameter.

        Returns
        -------
        tuple of float
            ``lower <= ambiguity <= upper``.
        """
        if self._labels is not None:
            b = self._label_measure("ambiguity", eps, threshold)
            return b.lower, b.upper
        b = _measures.ambiguity(
            self._ranges(eps, threshold).bounds,
            self._weight,
            self._threshold(threshold),
        )
        return b.lower, b.upper

    def ambiguity(self, eps=None, threshold=None):
        """Share of training people whose thresholded decision a model flips.

        Exact from the ranges: the set is convex, so a decision can flip if
        and only if the person's range crosses the threshold.

        Parameters
        ----------
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.
        threshold : float, default=None
            Decision threshold; defaults to the ``threshold`` parameter.

        Returns
        -------
        float
            The certified value (weighted by ``sample_weight``), or its lower
            bound with a :class:`CertificationWarning` when ranges that touch
            the threshold within ``tol`` leave it open.
        """
        return _value(self.ambiguity_bounds(eps, threshold), "ambiguity")

    def discrepancy_bounds(self, eps=None, threshold=None):
        """Certified ``(lower, upper)`` bounds on discrepancy.

        Parameters
        ----------
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.
        threshold : float, default=None
            Decision threshold; defaults to the ``threshold`` parameter.

        Returns
        -------
        tuple of float
            Below: the most flips of a model found (the models attaining the
            people's ranges; of a sample of 2000 people drawn with
            ``random_state`` when more are ambiguous); above: the ambiguity's
            upper bound.
        """
        if self._labels is not None:
            b = self._label_measure("discrepancy", eps, threshold)
            return b.lower, b.upper
        eps, threshold = self._eps(eps), self._threshold(threshold)
        ranges = self._ranges(eps, threshold)
        candidates = self._flip_models(ranges, eps, threshold)
        b = _measures.discrepancy(
            self._rows, ranges.bounds, self._weight, threshold, candidates
        )
        return b.lower, b.upper

    def discrepancy(self, eps=None, threshold=None):
        """Largest share of training decisions that one model of the set flips.

        Parameters
        ----------
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.
        threshold : float, default=None
            Decision threshold; defaults to the ``threshold`` parameter.

        Returns
        -------
        float
            The certified lower bound (weighted); a
            :class:`CertificationWarning` says when it is not pinned (see
            :meth:`discrepancy_bounds`).
        """
        return _value(self.discrepancy_bounds(eps, threshold), "discrepancy")

    def _flip_models(self, ranges, eps, threshold):
        """Models of the set flipping some decisions: those attaining each
        ambiguous person's crossing end (of a sample of ``MAX_FLIP_MODELS``
        people when there are more), and models pushing many people across at
        once (``max c . theta`` with ``c`` a weighted sum of the ambiguous
        people's rows, the nearer to the threshold the heavier)."""
        b = ranges.bounds
        sure, _ = _measures.flips(b, threshold)
        tau = _measures.threshold_logit(threshold)
        positive = b.baseline > tau
        people = np.flatnonzero(sure)
        p = self._rows.shape[1]
        if people.size == 0:
            return np.empty((p, 0))
        chosen = people
        if people.size > MAX_FLIP_MODELS:
            rng = check_random_state(self.random_state)
            chosen = rng.choice(people, MAX_FLIP_MODELS, replace=False)
        models = [
            self._level_set.attaining(
                ranges, i, self._rows[i], "lower" if positive[i] else "upper", eps
            )
            for i in chosen
        ]
        rows = self._rows[people]
        direction = np.where(positive[people], -1.0, 1.0)[:, None] * rows
        direction /= np.maximum(np.linalg.norm(rows, axis=1), 1e-300)[:, None]
        # How far each person must move, relative to how far they can.
        lo, hi, base = b.lower_in[people], b.upper_in[people], b.baseline[people]
        reach = np.where(positive[people], base - lo, hi - base)
        need = np.abs(base - tau) / np.maximum(reach, 1e-12)
        weights = [np.ones(people.size), 1 / (need + 0.05), 1 / (need + 0.05) ** 2]
        for share in (0.25, 0.5, 0.75):
            weights.append((need <= np.quantile(need, share)).astype(float))
        C = np.column_stack([w @ direction for w in weights])
        C = C[:, np.linalg.norm(C, axis=0) > 0]
        pushed = self._level_set.maximisers(
            C, eps, self.tol, deadline=self._deadline(), n_jobs=self.n_jobs
        )
        return np.column_stack(models + [pushed])

    def delta_ambiguity(self, eps=None, delta=0.1):
        """Share of training people whose probability can move by more than ``delta``.

        Parameters
        ----------
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.
        delta : float, default=0.1
            Change of the probability, in [0, 1].

        Returns
        -------
        float
            The certified share (weighted) of people for whom some model of
            the set gives a probability more than ``delta`` away from the
            baseline's (lower bound with a :class:`CertificationWarning` when
            not pinned).
        """
        delta = check_epsilon(delta, name="delta")
        if self._labels is not None:
            b = self._label_measure("delta_ambiguity", eps, delta=delta)
            return _value((b.lower, b.upper), "delta-ambiguity")
        b = _measures.delta_ambiguity(self._ranges(eps).bounds, self._weight, delta)
        return _value((b.lower, b.upper), "delta-ambiguity")

    def rashomon_capacity(self, X=None, eps=None):
        """Rashomon capacity of every person's set of predicted probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            People to score; ``None``: the training rows.
        eps : float, default=None
            Tolerance, in nats of mean log-loss; defaults to the ``epsilon``
            parameter.

        Returns
        -------
        pandas.Series
            ``2 ** C`` in [1, 2], with ``C`` the capacity (bits) of the channel
            from the models of the set to the label drawn with their
            probability. For two classes it is attained at the two ends of the
            range: ``2 ** c0 + 2 ** c1`` with ``c0 = (a h(b) - b h(a)) / (b - a)``
            and ``c1 = ((1 - b) h(a) - (1 - a) h(b)) / (b - a)``, ``[a, b]``
            the attained range and ``h`` the binary entropy in bits. For
            three or more labels, in [1, K]: a certified lower bound, the
            information of the Blahut-Arimoto input distribution over the
            person's models of the set found (baseline, witnesses, the inner
            ellipsoid's most probable points).
        """
        if self._labels is not None:
            return self._label_capacity(X, eps)
        ranges = self.viable_prediction_range(X, eps)
        return pd.Series(
            _measures.rashomon_capacity(ranges["lower"], ranges["upper"]),
            index=ranges.index,
            name="rashomon_capacity",
        )


def _value(bounds, name):
    lower, upper = bounds
    if upper - lower > 1e-12:
        warnings.warn(
            f"The {name} is not pinned by the certified ranges: reporting its "
            f"lower bound {lower:.6g} (upper bound {upper:.6g}); see the "
            "*_bounds methods, or lower tol.",
            CertificationWarning,
            stacklevel=3,
        )
    return lower
