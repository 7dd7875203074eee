"""DataFrames of the auditor's results: one column per bound, one row per item."""

import pandas as pd


def bounds_columns(name, bounds):
    """``{name, name_lower, name_upper}`` of certified ``bounds`` (value = lower)."""
    return {
        name: bounds.lower,
        f"{name}_lower": bounds.lower,
        f"{name}_upper": bounds.upper,
    }


def path_frame(steps):
    """One row per tolerance of a path, with both measures' bounds.

    Parameters
    ----------
    steps : list of PathStep
        The session's path.

    Returns
    -------
    pandas.DataFrame
        Per overall tolerance: ``epsilon``, ``extra_errors`` and ``budget``;
        per class: ``epsilon`` (the common rate), ``epsilon_<label>`` for each
        class, ``false_positives_budget`` and ``false_negatives_budget`` (with
        more than two labels, ``budget_<label>``: the errors allowed on each
        label's rows). Then both measures' bounds and ``certified``.
    """
    return pd.DataFrame([path_row(step) for step in steps])


def path_row(step):
    """The row of one ``PathStep`` (see :func:`path_frame`)."""
    if step.per_class and len(step.budget.ceilings) > 2:  # per label, K labels
        labels = step.tolerance.labels
        row = {
            "epsilon": step.epsilon,
            **step.tolerance.columns(),
            **{
                f"budget_{c}": v
                for c, v in zip(labels, step.budget.ceilings, strict=True)
            },
        }
    elif step.per_class:
        row = {
            "epsilon": step.epsilon,
            **step.tolerance.columns(),
            "false_positives_budget": step.budget.false_positives,
            "false_negatives_budget": step.budget.false_negatives,
        }
    else:
        row = {
            "epsilon": step.epsilon,
            "extra_errors": step.extra_errors,
            "budget": step.budget,
        }
    return {
        **row,
        **bounds_columns("ambiguity", step.ambiguity),
        **bounds_columns("discrepancy", step.discrepancy),
        "certified": step.certified,
    }
