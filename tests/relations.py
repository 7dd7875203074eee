"""One checker of every reported band, independent of the library's code.

The relations that hold between the true values (whatever the solvers did):

- ``0 <= lower <= upper <= 1`` for every band, and a ``certified`` flag is
  true exactly when the band pins the value;
- discrepancy <= ambiguity, so a band's discrepancy upper bound is at most
  its ambiguity upper bound and its ambiguity lower bound at least its
  discrepancy lower bound;
- discrepancy <= (err(h0) + budget) / W: where a model disagrees with the
  baseline, one of the two errs;
- both measures are non-decreasing in the tolerance: along a path, lower
  bounds and upper bounds never decrease;
- groups partition the people: overall ambiguity is the weighted mean of the
  groups', overall discrepancy at least a group's (weighted) and at most the
  weighted sum of the groups', and a group's discrepancy at most the overall
  one's over the group's share.

Each check returns a list of violations (empty: all hold), so a test can
report every one of them at once.
"""

import math

import numpy as np

#: Slack for floating-point sums of shares.
SLACK = 1e-9
MEASURES = ("ambiguity", "discrepancy")


def check_band(lower, upper, certified=None, where=""):
    """Violations of one band: order, range and the ``certified`` flag."""
    out = []
    if not (-SLACK <= lower <= upper + SLACK and upper <= 1 + SLACK):
        out.append(f"{where}: band [{lower}, {upper}] is not ordered within [0, 1]")
    if certified is not None and bool(certified) != (upper - lower <= SLACK):
        out.append(f"{where}: certified={certified} but band is [{lower}, {upper}]")
    return out


def check_level_set(bands, *, cap=None, where=""):
    """Violations between both measures of one level set.

    ``bands``: ``{"ambiguity": (lower, upper), "discrepancy": (lower, upper)}``;
    ``cap``: ``(err(h0) + budget) / W`` when known.
    """
    (amb_lo, amb_hi), (disc_lo, disc_hi) = bands["ambiguity"], bands["discrepancy"]
    out = []
    if disc_hi > amb_hi + SLACK:
        out.append(f"{where}: discrepancy upper {disc_hi} > ambiguity upper {amb_hi}")
    if amb_lo < disc_lo - SLACK:
        out.append(f"{where}: ambiguity lower {amb_lo} < discrepancy lower {disc_lo}")
    if cap is not None and disc_hi > min(1.0, cap) + SLACK:
        out.append(f"{where}: discrepancy upper {disc_hi} > (err(h0) + E) / W = {cap}")
    return out


def _band(row, measure):
    return float(row[f"{measure}_lower"]), float(row[f"{measure}_upper"])


def _budget_of(row):
    if "budget" in row:
        return float(row["budget"])
    return float(row["false_positives_budget"]) + float(row["false_negatives_budget"])


def check_path(path, *, baseline_errors, total_weight):
    """Violations in a path table (a DataFrame or a list of row dicts)."""
    rows = path.to_dict("records") if hasattr(path, "to_dict") else list(path)
    out = []
    for i, row in enumerate(rows):
        where = f"path row {i} (eps {row['epsilon']})"
        bands = {m: _band(row, m) for m in MEASURES}
        both = all(hi - lo <= SLACK for lo, hi in bands.values())
        for m in MEASURES:
            out += check_band(*bands[m], where=f"{where} {m}")
            if not math.isclose(float(row[m]), bands[m][0], abs_tol=SLACK):
                out.append(f"{where}: {m} value {row[m]} is not its lower bound")
        if "certified" in row and bool(row["certified"]) != both:
            out.append(f"{where}: certified={row['certified']} but bands {bands}")
        cap = (baseline_errors + _budget_of(row)) / total_weight
        out += check_level_set(bands, cap=cap, where=where)
    for m in MEASURES:
        for end in ("lower", "upper"):
            values = np.array([float(row[f"{m}_{end}"]) for row in rows])
            drops = np.flatnonzero(np.diff(values) < -SLACK)
            for i in drops:
                out.append(
                    f"path: {m}_{end} decreases from {values[i]} (row {i}) to "
                    f"{values[i + 1]} (row {i + 1})"
                )
    return out


def check_groups(overall, groups, *, cap=None):
    """Violations in a group table.

    ``overall``: a mapping with ``n`` and the bound columns; ``groups``: a
    list of such mappings, one per group (a partition of the people).
    """
    out = []
    total = float(overall["n"])
    shares = np.array([float(g["n"]) for g in groups]) / total
    bands = {m: np.array([_band(g, m) for g in groups]) for m in MEASURES}
    whole = {m: _band(overall, m) for m in MEASURES}
    out += check_level_set(whole, cap=cap, where="overall")
    for m in MEASURES:
        out += check_band(*whole[m], where=f"overall {m}")
    for i, group in enumerate(groups):
        where = f"group {group.get('group', i)}"
        group_bands = {m: tuple(bands[m][i]) for m in MEASURES}
        for m in MEASURES:
            out += check_band(*group_bands[m], where=f"{where} {m}")
        out += check_level_set(group_bands, where=where)
        if shares[i] > 0:
            cap_g = whole["discrepancy"][1] / shares[i]
            if group_bands["discrepancy"][1] > min(1.0, cap_g) + SLACK:
                out.append(
                    f"{where}: discrepancy upper {group_bands['discrepancy'][1]} "
                    f"> overall upper over its share {cap_g}"
                )
    amb, disc = bands["ambiguity"], bands["discrepancy"]
    if whole["ambiguity"][0] < shares @ amb[:, 0] - SLACK:
        out.append("overall ambiguity lower below the groups' weighted lower")
    if whole["ambiguity"][1] > shares @ amb[:, 1] + SLACK:
        out.append("overall ambiguity upper above the groups' weighted upper")
    if whole["discrepancy"][0] < np.max(shares * disc[:, 0]) - SLACK:
        out.append("overall discrepancy lower below a group's weighted lower")
    if whole["discrepancy"][1] > shares @ disc[:, 1] + SLACK:
        out.append("overall discrepancy upper above the groups' weighted sum")
    return out


def check_frame(frame, *, cap=None):
    """Violations in a :class:`MultiplicityFrame`."""
    groups = [{"group": g, **row} for g, row in frame.by_group.to_dict("index").items()]
    return check_groups(frame.overall.to_dict(), groups, cap=cap)


def check_auditor(auditor, eps=None):
    """Violations in an auditor's bands at ``eps`` (read after the requests)."""
    amb = auditor.ambiguity_bounds(eps)
    disc = auditor.discrepancy_bounds(eps)
    total = float(auditor.session_.problem.total_weight)
    budget = auditor.error_budget(eps)
    if isinstance(budget, dict):
        budget = sum(budget.values())
    cap = (auditor.baseline_errors_ + budget) / total
    out = check_band(*amb, where="ambiguity") + check_band(*disc, where="discrepancy")
    return out + check_level_set(
        {"ambiguity": amb, "discrepancy": disc}, cap=cap, where="measures"
    )


def check_report(report):
    """Violations in a ``report.json`` (a dict) of the exact audit."""
    if "ambiguity" not in report or "lower" not in report.get("ambiguity", {}):
        return []  # not an exact audit's report
    out = []
    total = float(report["dataset"]["n_rows"])
    errors = float(report["baseline"]["errors"])
    budget = report["epsilon"]["budget"]
    budget = sum(budget.values()) if isinstance(budget, dict) else float(budget)
    bands = {}
    for m in MEASURES:
        entry = report[m]
        bands[m] = (float(entry["lower"]), float(entry["upper"]))
        out += check_band(*bands[m], entry.get("certified"), where=m)
        if "value" in entry and not (
            entry.get("certified")
            and math.isclose(float(entry["value"]), bands[m][0], abs_tol=SLACK)
        ):
            out.append(f"{m}: value {entry['value']} of a band {bands[m]}")
    out += check_level_set(bands, cap=(errors + budget) / total, where="measures")
    if report.get("certified") is not None:
        pinned = all(hi - lo <= SLACK for lo, hi in bands.values())
        if bool(report["certified"]) and not pinned:
            out.append(f"report certified but bands are {bands}")
    if report.get("path"):
        out += check_path(report["path"], baseline_errors=errors, total_weight=total)
    if report.get("groups"):
        overall = {"n": total}
        for m in MEASURES:
            overall[f"{m}_lower"], overall[f"{m}_upper"] = bands[m]
        out += check_groups(overall, report["groups"], cap=(errors + budget) / total)
    return out
