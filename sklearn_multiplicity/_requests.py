"""What every request of :class:`MultiplicityAuditor` shares: its tolerance,
budget and deadline; and the coefficient ranges of a level set."""

from numbers import Real

import pandas as pd
from sklearn.utils._param_validation import Interval, validate_params
from sklearn.utils.validation import check_is_fitted

from ._core._validation import check_tolerance
from ._engine import Deadline
from ._progress import audit_progress


class RequestMixin:
    """Tolerances, error budgets and coefficient ranges of the auditor.

    Reads the fitted ``session_`` and ``classes_`` and the parameters
    ``epsilon``, ``total_time_limit`` and ``time_limit``.
    """

    def _request(self, eps):
        """Validate a request's settings; its tolerance, budget and deadline.

        The tolerance is a number, or per class a :class:`PerClassEpsilon`
        ``(eps_neg, eps_pos)`` whose budget is a ``ClassBudget``.
        """
        check_is_fitted(self)
        self._validate_params()  # limits are read per request (set_params)
        eps = check_tolerance(self.epsilon if eps is None else eps, self.classes_)
        deadline = Deadline(self.total_time_limit, per_mip=self.time_limit)
        return eps, self.session_.level_set.budget(eps), deadline

    def _audited(self, eps):
        """Run, or continue, the audit of ``eps`` within what its account has
        left (see :meth:`refine`); its tolerance and budget."""
        eps, budget, _ = self._request(eps)
        session = self.session_

        def watching():
            return audit_progress(self.verbose, session, budget, f"audit at eps={eps}")

        session.audit(budget, self.total_time_limit, self.time_limit, watching=watching)
        return eps, budget

    def refine(self, eps=None, seconds=None):
        """Continue the audit of ``eps`` for ``seconds`` more.

        The audit of a tolerance is one computation that grows: the first
        call about ``eps`` (a measure, :meth:`evidence`, :meth:`by_group`,
        a scorer, a Display) runs it for at most ``total_time_limit``
        seconds, by one plan for both measures (and every group's
        discrepancy when ``fit`` had groups); later calls read what it
        certified, at no solver time. ``refine`` gives it more time: it
        continues from everything found and proven so far, so bounds only
        tighten.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.
        seconds : float or None, default=None
            Seconds more (``None``: ``total_time_limit`` more, or no limit
            when that is ``None``).

        Returns
        -------
        self : MultiplicityAuditor
            The auditor, its audit of ``eps`` refined.
        """
        _check_seconds(seconds)
        _, budget, _ = self._request(eps)
        seconds = self.total_time_limit if seconds is None else seconds
        self.session_.grant(budget, seconds, self.total_time_limit)
        self._audited(eps)
        return self

    def error_budget(self, eps=None):
        """Largest weighted training error of a model of the ``eps``-level set.

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance, or one per class label (on that class's error
            rate); defaults to the ``epsilon`` parameter.

        Returns
        -------
        float or dict
            ``err(h0) + eps * W``, the allowance rounded down to a whole
            number with integral weights. Per class, a dict with the largest
            weighted ``false_positives`` (``FP(h0) + eps_neg * W_neg``) and
            ``false_negatives`` (``FN(h0) + eps_pos * W_pos``).
        """
        budget = self._request(eps)[1]
        if isinstance(budget, float):
            return budget
        return {
            "false_positives": budget.false_positives,
            "false_negatives": budget.false_negatives,
        }

    def coefficient_ranges(self, eps=None):
        """Least and largest weight of every feature over the level set.

        Two MIPs per weight of the canonical representation (columns that are
        affine combinations of others carry no weight and are left out),
        after the audit of ``eps`` (whose unflippable patterns keep the
        baseline's label in every level-set model) and one minimum-error MIP
        per sign that no known level-set model shows (infeasible: the sign is
        stable). Ends those MIPs leave open are narrowed by bisection:
        minimum-error MIPs with the weight bounded at a threshold, each
        either finding a model of the level set beyond it or proving there is
        none (a proof a second solver confirms).

        Parameters
        ----------
        eps : float in [0, 1] or dict, default=None
            Error tolerance (or one per class label); defaults to the
            ``epsilon`` parameter.

        Returns
        -------
        pandas.DataFrame
            One row per feature: ``feature``, ``min`` and ``max`` (weights
            in the normalisation of the hypothesis class, see Notes: the
            certified values, or inner bounds when a limit stopped a MIP),
            ``scale``, ``min_original`` and ``max_original`` (the same ends
            per unit of the audited feature), ``min_lower``,
            ``min_upper``, ``max_lower``, ``max_upper`` (certified bounds),
            ``sign`` (``"non-negative"``, ``"non-positive"``, ``"either"``
            or ``"unknown"``: stable when every model of the level set keeps
            it), ``certified`` (both ends' bounds at most ``1e-5`` apart, ten
            times the tolerance within which a solver's model counts as one
            of the class), and ``min_model``, ``max_model`` (fitted
            level-set models attaining the inner ends, or ``None``).

        Notes
        -----
        A linear classifier is unchanged by a positive rescaling of its
        weights and intercept, so a weight has a range only once the scale
        of the model is fixed: here, by the normalisation of the hypothesis
        class (``hypothesis_class_``). ``min``, ``max`` and the four bounds
        are weights of the canonical feature: with continuous weights, the
        feature min-max scaled over the training rows, ``(x - min(x)) /
        scale`` with ``scale = max(x) - min(x)``, every weight in
        ``[-1, 1]``; with integer weights, the feature itself (``scale`` is
        1), every weight an integer in ``[-max_weight, max_weight]``.
        ``min_original = min / scale`` and ``max_original = max / scale``
        are the same ends per unit of the feature as the audited estimator
        sees it (for a Pipeline, its transformed features): the coefficients
        that ``min_model`` and ``max_model`` have on it. Divide a bound by
        ``scale`` for its value in those units. Scaled ranges compare
        features of different units; original-unit ranges say how far the
        score of a model so normalised moves per unit of the feature.
        """
        eps, budget = self._audited(eps)  # its proofs fix labels
        deadline = self._request(eps)[2]
        session = self.session_
        names = getattr(self, "feature_names_in_", None)
        audit_names = self._fitted_baseline.feature_names
        names = audit_names if audit_names is not None else names
        problem, scaled = session.problem, session.hypothesis.scaled
        rows = []
        for end in session.coefficient_ranges(budget, deadline):
            column = int(problem.kept_columns[end.feature])
            least, largest = end.least, end.largest
            # The class's canonical feature is (x - offset) / scale: a weight
            # w on it is w / scale per unit of x (as ``to_original`` maps it).
            scale = float(problem.scale[end.feature]) if scaled else 1.0
            rows.append(
                {
                    "feature": column if names is None else names[column],
                    "min": least.upper,
                    "max": largest.lower,
                    "scale": scale,
                    "min_original": least.upper / scale,
                    "max_original": largest.lower / scale,
                    "min_lower": least.lower,
                    "min_upper": least.upper,
                    "max_lower": largest.lower,
                    "max_upper": largest.upper,
                    "sign": end.sign,
                    "certified": end.certified,
                    "min_model": self._model_or_none(end.least_model),
                    "max_model": self._model_or_none(end.largest_model),
                }
            )
        columns = ["feature", "min", "max", "scale", "min_original", "max_original"]
        columns += ["min_lower", "min_upper"]
        columns += ["max_lower", "max_upper", "sign", "certified"]
        columns += ["min_model", "max_model"]
        return pd.DataFrame(rows, columns=columns)

    def _model_or_none(self, model):
        return None if model is None else self._estimator_of(model)


@validate_params(
    {"seconds": [Interval(Real, 0, None, closed="neither"), None]},
    prefer_skip_nested_validation=True,
)
def _check_seconds(seconds):
    """Validate the ``seconds`` of :meth:`RequestMixin.refine`."""
