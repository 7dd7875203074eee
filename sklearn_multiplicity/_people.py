"""What the auditor says about people: evidence per row, new people, groups."""

import warnings

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted, validate_data

from ._competing import CompetingModel
from ._engine import group_key
from ._exceptions import CertificationWarning
from ._frame import frame_from_rows
from ._tables import bounds_columns


class PeopleMixin:
    """Per-person and per-group results of :class:`MultiplicityAuditor`.

    Reads the fitted ``session_``, ``estimator_``, ``classes_`` and
    ``groups_``, and the auditor's request methods: ``_request(eps)``
    (tolerance, budget and deadline of a request) and ``_audited(eps)`` (run
    or continue the audit of ``eps``; its tolerance and budget).
    """

    def conflicts(self, eps=None):
        """Boolean mask of training rows whose prediction is contestable.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            ``True`` where a model of the level set (see
            :meth:`competing_model`) predicts the row differently from the
            baseline; ``False`` for rows of zero weight.
        """
        return self.evidence(eps)["contestable"].to_numpy()

    def competing_model(self, index, eps=None):
        """A fitted level-set model that flips training row ``index``.

        Parameters
        ----------
        index : int
            Row of the training data.
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        CompetingModel or Pipeline or None
            ``None`` when no model of the level set flips the row (or none was
            found within the limits; see :meth:`conflicts`).
        """
        _, budget = self._audited(eps)
        pattern = self.session_.problem.inverse[int(index)]
        model = self.session_.competing_model(pattern, budget)
        return None if model is None else self._estimator_of(model)

    def discrepancy_model(self, eps=None):
        """The fitted level-set model realising the discrepancy (lower bound).

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        CompetingModel or Pipeline or None
            ``None`` when no model of the level set is known.
        """
        _, budget = self._audited(eps)
        result = self.session_.read(budget)[1]
        return None if result.model is None else self._estimator_of(result.model)

    def _estimator_of(self, model):
        session = self.session_
        coef, intercept = session.problem.to_original(
            model.w, model.b, scaled=session.hypothesis.scaled
        )
        linear = CompetingModel(
            coef, intercept, self.classes_, model.errors, model.source
        ).fit()
        prefix = self._fitted_baseline.prefix
        return Pipeline([*prefix, ("competing", linear)]) if prefix else linear

    def evidence(self, eps=None):
        """Per training row: baseline prediction and whether it is contestable.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        pandas.DataFrame
            One row per training row, indexed by the index of the DataFrame
            given to ``fit`` (a ``RangeIndex`` for arrays). Columns
            ``baseline`` (predicted class), ``contestable`` (certified: a
            level-set model flips it), ``undecided`` (neither certified
            contestable nor certified stable: a limit stopped its MIP) and
            ``min_flip_errors`` (fewest errors of a found model flipping it).
        """
        _, budget = self._audited(eps)
        baseline, sure, maybe, flip_errors = self.session_.flip_evidence(budget)
        return pd.DataFrame(
            {
                "baseline": self.classes_[self._rows(baseline.astype(int), fill=0)],
                "contestable": self._rows(sure),
                "undecided": self._rows(maybe & ~sure),
                "min_flip_errors": self._rows(flip_errors, fill=np.nan),
            },
            index=self._row_index,
        )

    def _rows(self, pattern_values, fill=False):
        inverse = self.session_.problem.inverse
        out = np.full(inverse.shape[0], fill, dtype=np.asarray(pattern_values).dtype)
        active = inverse >= 0
        out[active] = pattern_values[inverse[active]]
        return out

    def ambiguous(self, X, eps=None):
        """Whether a level-set model gives each new person the other prediction.

        One rule, whoever answers (a known model or a MIP): a person is
        contestable iff some model of the level set scores them on the other
        side of 0 from the baseline's prediction, or exactly at 0 (a tie,
        which the baseline's side does not win by any margin); the margin of
        the hypothesis class constrains training people only. The audit of
        ``eps`` runs first (see :meth:`refine`: only if no earlier call ran
        it): a new person who is a training pattern is answered by it, and
        its proofs fix labels in the other MIPs. Each other distinct person
        is asked alone, in a MIP of the training data plus a row on that
        person's score, within ``total_time_limit`` for all the people of
        the call: the answer depends on that person and the training data
        only, never on who else is in ``X``. What the MIPs find and prove is
        kept, so asking again costs nothing.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            New people.
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            Certified ambiguous; undecided people (time limit) are ``False``
            and raise a :class:`CertificationWarning`.
        """
        decided, _, _ = self._new_people(X, eps)
        return decided

    def predict_set(self, X, eps=None):
        """The labels that the models of the level set give each person.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            People (new or training).
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        ndarray of bool, shape (n_samples, 2)
            A mask over ``classes_`` (as MAPIE's prediction sets), not the
            labels themselves: column ``i`` says whether some model of the
            level set predicts ``classes_[i]`` (or scores the person exactly
            0, a tie: see :meth:`ambiguous`). One label (the baseline's)
            for people no model flips, both for contestable people (see
            :meth:`ambiguous` for the rule). A person whose flip a limit left
            unsettled gets both labels (a singleton is always certified),
            with a :class:`CertificationWarning`. The label sets are
            ``[self.classes_[row] for row in mask]``.
        """
        decided, undecided, baseline = self._new_people(X, eps)
        sets = np.zeros((baseline.size, 2), dtype=bool)
        sets[np.arange(baseline.size), baseline.astype(int)] = True
        sets[decided | undecided] = True
        return sets

    def _new_people(self, X, eps):
        """Per person: certified ambiguous, undecided, baseline (positive)."""
        validate_data(self, X, dtype=None, ensure_all_finite=False, reset=False)
        # The tolerance's audit first (its own account), then the people's
        # MIPs within this request's time.
        eps, budget = self._audited(eps)
        deadline = self._request(eps)[2]
        Z = self._fitted_baseline.audit_space(X)
        predictions = np.asarray(self.estimator_.predict(X)) == self.classes_[1]
        patterns, inverse = np.unique(Z, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        baseline_new = np.zeros(patterns.shape[0], dtype=bool)
        baseline_new[inverse] = predictions
        decided, undecided = self.session_.ambiguous_new(
            patterns, baseline_new, budget, deadline
        )
        if undecided.any():
            warn_uncertified(
                f"ambiguity of {int(undecided[inverse].sum())} new people", eps
            )
        return decided[inverse], undecided[inverse], predictions

    # -------------------------------------------------------------- groups
    def by_group(self, eps=None):
        """Ambiguity and discrepancy overall and per group.

        Group ambiguity aggregates the per-person flags of the group; group
        discrepancy is its own MIP (disagreement restricted to the group).

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        MultiplicityFrame
            ``overall``, ``by_group`` (one row per group) and group summaries.
        """
        check_is_fitted(self)
        if self.groups_ is None:
            raise ValueError("Pass groups= to fit to get per-group results.")
        eps, budget = self._audited(eps)  # every group's discrepancy too
        session = self.session_
        overall = session.read(budget)
        overall = (overall[0], overall[1].bounds)
        labels = np.unique(self.groups_)
        weights = [session.groups[label] for label in labels]
        groups = []
        for label, group_weights in zip(labels, weights, strict=True):
            amb, disc = session.read(budget, group_weights, group_key(label))
            groups.append((amb, disc.bounds))
        overall, groups = session.group_bounds(budget, overall, groups, weights)
        rows = [
            {
                "group": g,
                "n": float(w.sum()),
                **bounds_columns("ambiguity", amb),
                **bounds_columns("discrepancy", disc),
            }
            for g, w, (amb, disc) in zip(labels, weights, groups, strict=True)
        ]
        return frame_from_rows(
            {
                "n": session.problem.total_weight,
                **bounds_columns("ambiguity", overall[0]),
                **bounds_columns("discrepancy", overall[1]),
            },
            rows,
            eps,
        )


def warn_uncertified(what, eps, bounds=None):
    """Warn that ``what`` at ``eps`` is reported as its certified lower bound
    (its ``bounds`` when it is a measure)."""
    band = (
        "" if bounds is None else f" lies in [{bounds.lower:.4g}, {bounds.upper:.4g}]"
    )
    reported = (
        "reporting the certified lower bound; the *_bounds methods give both "
        "bounds at no solver time"
        if bounds is not None
        else "they are reported undecided (False from ambiguous, both labels "
        "from predict_set)"
    )
    warnings.warn(
        f"The {what} at eps={eps}{band} is not certified: its audit stopped "
        f"at total_time_limit (or a MIP at time_limit); {reported}. "
        f"auditor.refine(eps={eps}, seconds=...) continues the audit from what "
        "it has found and proven.",
        CertificationWarning,
        stacklevel=4,
    )
