"""DataFrames of the auditor's results: one column per bound, one row per item."""

import pandas as pd


def bounds_columns(name, bounds):
    """``{name, name_lower, name_upper}`` of certified ``bounds`` (value = lower)."""
    return {
        name: bounds.lower,
        f"{name}_lower": bounds.lower,
        f"{name}_upper": bounds.upper,
    }


def path_frame(epsilons, extras, budgets, ambiguity, discrepancy):
    """One row per tolerance of a path, with both measures' bounds.

    Parameters
    ----------
    epsilons, extras, budgets : ndarray
        The tolerances, the extra errors they allow and their error budgets.
    ambiguity, discrepancy : list of Bounds
        The certified bounds at each tolerance.

    Returns
    -------
    pandas.DataFrame
    """
    rows = [
        {
            "epsilon": eps,
            "extra_errors": extra,
            "budget": budget,
            **bounds_columns("ambiguity", amb),
            **bounds_columns("discrepancy", disc),
            "certified": bool(amb.certified and disc.certified),
        }
        for eps, extra, budget, amb, disc in zip(
            epsilons, extras, budgets, ambiguity, discrepancy, strict=True
        )
    ]
    return pd.DataFrame(rows)
