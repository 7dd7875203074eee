"""What a report says about the baseline's decisions: its error on each class
and, with abstention, which people it decides."""

import numpy as np

#: The decision of a person whom a model of the level set predicts differently.
ABSTAIN = "abstain"


def decisions(evidence):
    """Per training row: the baseline's label, or ``"abstain"`` where a model
    of the level set flips it (or a limit left that open).

    Parameters
    ----------
    evidence : pandas.DataFrame
        :meth:`MultiplicityAuditor.evidence`.

    Returns
    -------
    ndarray of object, shape (n_samples,)
    """
    out = evidence["baseline"].to_numpy().astype(object)
    out[(evidence["contestable"] | evidence["undecided"]).to_numpy()] = ABSTAIN
    return out


def abstention(evidence, y):
    """Coverage and accuracy of abstaining on contestable people.

    Returns
    -------
    dict
        ``n_decided``, ``coverage`` (share decided), ``decided_accuracy``
        (accuracy on the decided, ``nan`` when none is) and
        ``baseline_accuracy`` (on everyone).
    """
    chosen = decisions(evidence)
    y = np.asarray(y, dtype=object)
    decided = chosen != ABSTAIN
    baseline = evidence["baseline"].to_numpy().astype(object)
    accuracy = np.mean(chosen[decided] == y[decided]) if decided.any() else np.nan
    return {
        "n_decided": int(decided.sum()),
        "coverage": float(decided.mean()),
        "decided_accuracy": float(accuracy),
        "baseline_accuracy": float(np.mean(baseline == y)),
    }


def error_rates(evidence, y, classes):
    """The baseline's false positives and false negatives, and their rates.

    Returns
    -------
    dict
        ``false_positives`` (of ``negatives``), ``false_negatives`` (of
        ``positives``), ``false_positive_rate`` and ``false_negative_rate``.
    """
    negative, positive = classes
    y = np.asarray(y)
    baseline = evidence["baseline"].to_numpy()
    negatives, positives = int(np.sum(y == negative)), int(np.sum(y == positive))
    fp = int(np.sum((y == negative) & (baseline == positive)))
    fn = int(np.sum((y == positive) & (baseline == negative)))
    return {
        "false_positives": fp,
        "negatives": negatives,
        "false_positive_rate": fp / negatives if negatives else float("nan"),
        "false_negatives": fn,
        "positives": positives,
        "false_negative_rate": fn / positives if positives else float("nan"),
    }
