"""What the auditor says about people: evidence per row, new people, groups.

The functions behind :meth:`MultiplicityAuditor.evidence`,
:meth:`~MultiplicityAuditor.ambiguous`, :meth:`~MultiplicityAuditor.by_group`
and the other per-person methods, with those methods' docstrings. They take
the session's records (:mod:`._engine.session._records`) and the auditor's parameters.
"""

import warnings

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline

from ._competing import CompetingModel
from ._exceptions import CertificationWarning
from ._frame import frame_from_rows
from ._tables import bounds_columns

# Docstrings of the auditor's methods about people.
CONFLICTS = """Boolean mask of training rows whose prediction is contestable.

    Parameters
    ----------
    {eps}

    Returns
    -------
    ndarray of bool, shape (n_samples,)
        ``True`` where a model of the level set (see
        :meth:`competing_model`) predicts the row differently from the
        baseline; ``False`` for rows of zero weight.
    """

COMPETING_MODEL = """A fitted level-set model that flips training row ``index``.

    Parameters
    ----------
    index : int
        Row of the training data.
    {eps}

    Returns
    -------
    CompetingModel or Pipeline or None
        ``None`` when no model of the level set flips the row (or none was
        found within the limits; see :meth:`conflicts`).
    """

DISCREPANCY_MODEL = """The fitted level-set model realising the discrepancy (lower bound).

    Parameters
    ----------
    {eps}

    Returns
    -------
    CompetingModel or Pipeline or None
        ``None`` when no model of the level set is known.
    """  # noqa: E501 (the summary line of a method)

EVIDENCE = """Per training row: baseline prediction and whether it is contestable.

    Parameters
    ----------
    {eps}

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

AMBIGUOUS = """Whether a level-set model gives each new person the other prediction.

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
    {eps}

    Returns
    -------
    ndarray of bool, shape (n_samples,)
        Certified ambiguous; undecided people (time limit) are ``False``
        and raise a :class:`CertificationWarning`.
    """

PREDICT_SET = """The labels that the models of the level set give each person.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        People (new or training).
    {eps}

    Returns
    -------
    ndarray of bool, shape (n_samples, n_classes)
        A mask over ``classes_`` (as MAPIE's prediction sets), not the
        labels themselves: column ``i`` says whether some model of the
        level set predicts ``classes_[i]`` (or scores the person exactly
        0, a tie: see :meth:`ambiguous`). One label (the baseline's)
        for people no model flips, both for contestable people (see
        :meth:`ambiguous` for the rule). With more than two labels, a
        label is in the set when some model of the level set scores it at
        least as high as every other label (a tie counts; on a training
        person the class's margin makes every label strict), decided by
        one MIP per person and label that no known model settles. A label
        a limit left unsettled is in the set (every label left out is
        certified out of reach), with a :class:`CertificationWarning`. The
        label sets are ``[self.classes_[row] for row in mask]``.
    """

BY_GROUP = """Ambiguity and discrepancy overall and per group.

    Group ambiguity aggregates the per-person flags of the group; group
    discrepancy is its own MIP (disagreement restricted to the group).

    Parameters
    ----------
    {eps}

    Returns
    -------
    MultiplicityFrame
        ``overall``, ``by_group`` (one row per group) and group summaries.
    """


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
