"""How strong the LP relaxation is under a race rate gap on COMPAS, and two
strengthenings of it that were measured and not adopted.

For ``GroupRateGap(race, selection rate, max_gap)`` at eps = 1%, it prints:

- the certified minimum error and the LP bound of the minimum-error MIP;
- the LP bound with *envelope rows*: per offset class ``c``, group ``g`` and
  slope ``beta``, the valid row ``errors_c(z) - beta * N_g * rate_g(z) >=
  alpha`` where ``alpha`` is the dual bound of that objective's MIP without
  the gap (a Lagrangian view of each class alone);
- the least LP bound over *rate windows*: every group's rate in
  ``[L, L + width + max_gap]`` for ``L`` on a grid (a disjunction that covers
  every model meeting the gap);
- how many of the patterns undecided after the fit the flip LPs prove
  unflippable, without and with the envelope rows.

Usage: ``python benchmarks/bench_gap_relaxation.py [--data PATH] [--gap 0.05]``
"""

import copy
import time

import numpy as np
from _common import Timer, load, machine, parser, peak_memory_mb, table

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._engine.binary.search._offsets import offset_classes
from sklearn_multiplicity._mip import _formulations
from sklearn_multiplicity._mip._encoding import encode
from sklearn_multiplicity.constraints import GroupRateGap

#: Errors per selected person that each envelope row trades.
SLOPES = (-0.6, -0.4, -0.25, -0.1, 0.1, 0.25, 0.4, 0.6)
#: Groups smaller than this get no envelope rows.
MIN_GROUP = 50


def envelope_rows(session, time_limit):
    """``(A, lower, upper, seconds)`` of the envelope rows of every large group."""
    enc = session.enc
    classes = offset_classes(enc)
    gap, prob = classes.gap, enc.problem
    k, z0 = enc.n_train, enc.z_offset
    free = encode(prob, enc.hypothesis)  # same variables, no gap rows
    backend = copy.copy(session.solvers.backend)
    backend.time_limit = time_limit
    errors, _ = enc.error_objective()
    rows, lower = [], []
    start = time.perf_counter()
    for g, c in enumerate(classes.group_class):
        members = classes.of_pattern == c
        if gap.share[g].sum() < MIN_GROUP:
            continue
        offset = float(prob.positive_weight[members].sum())
        for beta in SLOPES:
            objective = np.zeros(enc.n_vars)
            objective[z0 : z0 + k] = np.where(members, errors[z0 : z0 + k], 0.0)
            objective[z0 : z0 + k] -= beta * gap.share[g][:k]
            mip = free.mip(
                objective, offset, maximize=False, integral=False,
                name="envelope", kind="envelope",
            )  # fmt: skip
            rows.append(objective)
            lower.append(backend.solve(mip).bound - offset)
    A = np.array(rows)
    return A, np.array(lower), np.full(len(lower), np.inf), time.perf_counter() - start


def window_bound(session, max_gap, width):
    """The least LP bound over rate windows of ``width``, and its window."""
    enc = session.enc
    gap = offset_classes(enc).gap
    k, z0 = enc.n_train, enc.z_offset
    totals = gap.share.sum(axis=1)
    A = np.zeros((len(totals), enc.n_vars))
    A[:, z0 : z0 + k] = gap.share[:, :k] / totals[:, None]
    separator = session.solvers.separator(None)
    mip = _formulations.min_error(enc)
    bounds = {}
    for floor in np.arange(0.0, 1.0, width):
        lo = np.full(len(totals), floor)
        hi = np.full(len(totals), floor + width + max_gap)
        bounds[floor] = separator.relax(mip.with_rows(A, lo, hi)).bound
    best = min(bounds, key=bounds.get)
    return bounds[best], best


def main():
    p = parser(__doc__)
    p.add_argument("--gap", type=float, default=0.05)
    p.add_argument("--width", type=float, default=0.02)
    p.add_argument("--envelope-time-limit", type=float, default=20.0)
    args = p.parse_args()
    X, y, groups = load(args.data)
    print(f"COMPAS: {X.shape[0]} rows; {machine()}; gap {args.gap}")
    auditor = MultiplicityAuditor(
        time_limit=120,
        total_time_limit=120,
        constraints=[GroupRateGap(groups["race"].to_numpy(), max_gap=args.gap)],
        n_jobs=2,
        random_state=0,
    )
    rows = []
    with Timer() as t:
        auditor.fit(X, y)
    session, budget = auditor.session_, auditor.error_budget(0.01)
    lo, hi = auditor.min_error_bounds_
    rows.append({"bound": "min-error MIP", "value": f"[{lo:.0f}, {hi:.0f}]",
                 "wall_s": t.seconds})  # fmt: skip
    separator = session.solvers.separator(None)
    mip = _formulations.min_error(session.enc)
    with Timer() as t:
        plain = separator.relax(mip).bound
    rows.append({"bound": "LP", "value": plain, "wall_s": t.seconds})
    A, rlo, rhi, seconds = envelope_rows(session, args.envelope_time_limit)
    with Timer() as t:
        enveloped = separator.relax(mip.with_rows(A, rlo, rhi)).bound
    rows.append({"bound": f"LP + {len(rlo)} envelope rows", "value": enveloped,
                 "wall_s": seconds + t.seconds})  # fmt: skip
    with Timer() as t:
        value, floor = window_bound(session, args.gap, args.width)
    rows.append({"bound": f"least LP over windows (at L = {floor:.2f})",
                 "value": value, "wall_s": t.seconds})  # fmt: skip
    undecided = session.state.undetermined(budget)
    baseline = session.state.baseline
    for name, extra in (("flip LPs", None), ("flip LPs + envelope", (A, rlo, rhi))):
        with Timer() as t:
            proven = 0
            for u in undecided:
                flip = _formulations.flip(session.enc, u, not baseline[u])
                if extra is not None:
                    flip = flip.with_rows(*extra)
                proven += separator.relax(flip).bound > budget
        value = f"{proven} of {len(undecided)}"
        rows.append({"bound": f"{name}: undecided proven", "value": value,
                     "wall_s": t.seconds})  # fmt: skip
    print(f"budget {budget}")
    table(rows, ["bound", "value", "wall_s"])
    print(f"peak memory {peak_memory_mb():.0f} MB")


if __name__ == "__main__":
    main()
