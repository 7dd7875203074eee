"""What the auditor says about people: evidence per row, new people, groups.

The functions behind :meth:`MultiplicityAuditor.evidence`,
:meth:`~MultiplicityAuditor.ambiguous`, :meth:`~MultiplicityAuditor.by_group`
and the other per-person methods. They take the session's records
(:mod:`.._engine._records`) and the auditor's parameters.
"""

import warnings

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline

from .._exceptions import CertificationWarning
from .._reporting._frame import frame_from_rows
from .._reporting._tables import bounds_columns
from ._competing import CompetingModel


def competing_estimator(found, classes, prefix):
    """The fitted estimator of a level-set model (a ``FoundModel`` or None).

    Parameters
    ----------
    found : FoundModel or None
        The model, on the audited features.
    classes : ndarray of shape (2,)
        The auditor's ``classes_``.
    prefix : list of (str, estimator)
        The steps of the baseline's Pipeline before its classifier.

    Returns
    -------
    CompetingModel or Pipeline or None
    """
    if found is None:
        return None
    linear = CompetingModel(
        found.coef, found.intercept, classes, found.errors, found.source
    ).fit()
    return Pipeline([*prefix, ("competing", linear)]) if prefix else linear


def evidence_frame(evidence, classes, index):
    """The table of :meth:`MultiplicityAuditor.evidence` of an ``Evidence``
    record, indexed by ``index`` (``None``: a ``RangeIndex``)."""
    return pd.DataFrame(
        {
            "baseline": classes[evidence.baseline],
            "contestable": evidence.contestable,
            "undecided": evidence.undecided,
            "min_flip_errors": evidence.min_flip_errors,
        },
        index=index,
    )


def new_people(session, eps, budget, Z, predictions, limit, per_mip):
    """Per person: certified ambiguous, undecided, baseline (positive).

    The people's MIPs run within ``limit`` seconds (``per_mip`` each), after
    the audit of ``budget``; people they leave undecided raise a
    :class:`CertificationWarning` (for the caller's caller).
    """
    decided, undecided = session.ambiguous_people(
        Z, predictions, budget, limit, per_mip
    )
    if undecided.any():
        warn_uncertified(f"ambiguity of {int(undecided.sum())} new people", eps)
    return decided, undecided, predictions


def label_sets(session, eps, budget, Z, labels, limit, per_mip):
    """The mask of :meth:`MultiplicityAuditor.predict_set` with more than two
    labels: every label certified given by a model of the level set, and
    every label a limit left unsettled (with a :class:`CertificationWarning`)."""
    reachable, open_ = session.label_sets(Z, labels, budget, limit, per_mip)
    if open_.any():
        people = int(open_.any(axis=1).sum())
        warn_uncertified(f"label sets of {people} people", eps)
    return reachable | open_


def prediction_sets(decided, undecided, baseline):
    """The mask of :meth:`MultiplicityAuditor.predict_set`."""
    sets = np.zeros((baseline.size, 2), dtype=bool)
    sets[np.arange(baseline.size), baseline.astype(int)] = True
    sets[decided | undecided] = True
    return sets


def group_frame(readings, eps):
    """The :class:`MultiplicityFrame` of :meth:`MultiplicityAuditor.by_group`
    of a ``GroupReadings`` record."""
    overall = readings.overall
    rows = [
        {
            "group": group.label,
            "n": group.weight,
            **bounds_columns("ambiguity", group.ambiguity),
            **bounds_columns("discrepancy", group.discrepancy),
        }
        for group in readings.groups
    ]
    return frame_from_rows(
        {
            "n": overall.weight,
            **bounds_columns("ambiguity", overall.ambiguity),
            **bounds_columns("discrepancy", overall.discrepancy),
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
        else "they are reported undecided (False from ambiguous, every "
        "unsettled label in predict_set)"
    )
    warnings.warn(
        f"The {what} at eps={eps}{band} is not certified: its audit stopped "
        f"at total_time_limit (or a MIP at time_limit); {reported}. "
        f"auditor.refine(eps={eps}, seconds=...) continues the audit from what "
        "it has found and proven.",
        CertificationWarning,
        stacklevel=4,
    )
