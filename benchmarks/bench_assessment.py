"""Whether the assessment ``MultiplicityAuditor.fit`` states before any MIP
holds: on a grid of generated tables, the regime it assesses against what
the audit then certifies within the time it was given.

Each table has people with binary columns (each 1 with its own probability
between 0.25 and 0.75) and standard normal continuous columns, and labels
drawn from a logistic model of them whose signal is strong (``low`` label
noise) or weak (``high``). For each table and each ``--limits`` value,
``MultiplicityAuditor(total_time_limit=L, n_jobs=1).fit(X, y)`` (the default
0-1 optimal baseline) then ``ambiguity(0.01)`` and ``discrepancy(0.01)`` are
timed, and the outcome is read from the certified bounds:

- ``exact``: the minimum error, ambiguity and discrepancy certified;
- ``bands``: something left open, with an upper bound below 100% on
  ambiguity or discrepancy;
- ``lower-bounds``: neither ambiguity nor discrepancy bounded below 100%.

The assessment *hits* when it says ``exact`` exactly when the audit
certifies (``bands`` and ``lower-bounds`` both promise no values). An
``exact`` regime whose audit ends in bands is a defect (``exact -> bands``),
counted apart: it tells a user to expect values and hands them bands. A
table certified at one limit is not audited again at a larger one (more
time keeps what was certified); its row says so.

``--records FILE`` writes the rows as JSON; ``--rescore FILE ...`` reads them
back and assesses the same tables again with the current rule (seconds, no
MIP), so a change of the rule is scored against the outcomes measured.

``--everyday`` times the assessment alone on the tables of
``bench_everyday.py`` (regime, seconds; target: at most 5 s).

Usage: python benchmarks/bench_assessment.py [--quick] [--limits 10 60]
       [--only TABLE ...] [--records FILE] [--rescore FILE ...] [--everyday]
"""

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from _common import machine, table

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._engine import AuditSession

EPSILON = 0.01

#: (rows, binary columns, continuous columns, label noise) of the grid.
GRID = [
    (500, 6, 0, "low"),
    (500, 6, 0, "high"),
    (1000, 7, 0, "high"),
    (300, 8, 0, "low"),
    (300, 8, 0, "high"),
    (1000, 8, 0, "low"),
    (1000, 8, 0, "high"),
    (2000, 8, 0, "low"),
    (2000, 8, 0, "high"),
    (4000, 8, 0, "low"),
    (1000, 9, 0, "low"),
    (2000, 9, 0, "low"),
    (3000, 9, 0, "low"),
    (500, 10, 0, "low"),
    (500, 10, 0, "high"),
    (2000, 10, 0, "low"),
    (2000, 10, 0, "high"),
    (2000, 14, 0, "low"),
    (2000, 14, 0, "high"),
    (6000, 14, 0, "high"),
    (40, 2, 2, "high"),
    (100, 4, 2, "low"),
    (100, 4, 2, "high"),
    (400, 4, 2, "low"),
    (400, 4, 2, "high"),
    (300, 0, 6, "high"),
]
#: A grid that runs in a few minutes at 10 s (``--quick``).
QUICK = [GRID[i] for i in (0, 2, 5, 8, 10, 15, 17, 19, 22)]
#: Weight scale of the logistic model per label noise.
SIGNAL = {"low": 3.0, "high": 0.7}


def generate(n, n_binary, n_continuous, noise, seed=0):
    """A table of ``n`` people and its labels (a noisy logistic model)."""
    rng = np.random.default_rng(seed)
    share = rng.uniform(0.25, 0.75, n_binary)
    X = np.hstack(
        [
            (rng.random((n, n_binary)) < share).astype(float),
            np.round(rng.normal(size=(n, n_continuous)), 3),
        ]
    )
    z = (X - X.mean(0)) / X.std(0)
    scores = SIGNAL[noise] * z @ rng.normal(size=X.shape[1]) / np.sqrt(X.shape[1])
    y = (rng.random(n) < 1 / (1 + np.exp(-scores))).astype(int)
    return X, y


def name_of(n, n_binary, n_continuous, noise):
    return f"{n}x{n_binary}b+{n_continuous}c/{noise}"


def band(bounds, scale=1.0):
    lower, upper = bounds
    if scale == 1.0:
        return f"[{lower:.1%}, {upper:.1%}]"
    return f"[{lower:g}, {upper:g}]"


def outcome(row):
    """The regime the certified bounds of an audit (a row) show."""
    total, (lower, upper) = row["total"], row["min error"]
    ambiguity, discrepancy = row["ambiguity"], row["discrepancy"]
    closed = [
        upper - lower <= 1e-5 * total,
        ambiguity[1] - ambiguity[0] <= 1e-5,
        discrepancy[1] - discrepancy[0] <= 1e-5,
    ]
    if all(closed):
        return "exact"
    if min(ambiguity[1], discrepancy[1]) >= 1 - 1e-9:
        return "lower-bounds"
    return "bands"


def audit(X, y, limit):
    """The assessment and the outcome of one audit within ``limit``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        auditor = MultiplicityAuditor(total_time_limit=limit, n_jobs=1).fit(X, y)
        fitted = time.perf_counter()
        ambiguity = auditor.ambiguity_bounds(EPSILON)
        discrepancy = auditor.discrepancy_bounds(EPSILON)
        end = time.perf_counter()
        min_error = auditor.min_error_bounds_
    signals = auditor.assessment_.signals
    row = {
        "regime": auditor.assessment_.regime,
        "fit s": round(fitted - start, 1),
        "audit s": round(end - fitted, 1),
        "min error": [float(v) for v in min_error],
        "ambiguity": [float(v) for v in ambiguity],
        "discrepancy": [float(v) for v in discrepancy],
        "total": float(signals["total_weight"]),
        "baseline errors": float(auditor.baseline_errors_),
        "extra errors": float(auditor.session_.extra_errors(EPSILON)),
        "signals": {k: v for k, v in signals.items() if k != "limit"},
    }
    return {**row, "outcome": outcome(row)}


def assess(X, y, limit):
    """The regime the current rule assesses (no MIP runs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = AuditSession.from_data(X, y)
        return session.assess(limit, session.extra_errors(EPSILON)).regime


def run_grid(grid, limits):
    records = []
    for spec in grid:
        X, y = generate(*spec)
        certified_at = None
        for limit in sorted(limits):
            row = {"table": name_of(*spec), "spec": list(spec), "limit": limit}
            if certified_at is not None:
                row.update(certified_at, limit=limit, regime=assess(X, y, limit))
                row["note"] = f"certified at {certified_at['limit']:g} s"
            else:
                row.update(audit(X, y, limit))
                if row["outcome"] == "exact":
                    certified_at = dict(row)
            records.append(row)
            print(f"  {row['table']} at {limit} s: {row['outcome']}", flush=True)
    return records


def rescore(records):
    """``records`` assessed again by the current rule."""
    for row in records:
        X, y = generate(*row["spec"])
        row["regime before"] = row["regime"]
        row["regime"] = assess(X, y, row["limit"])
    return records


def score(records, key="regime"):
    """Hits, ``exact -> bands`` defects and certified audits not assessed
    exact, of the regimes under ``key``."""
    exact = [(r[key] == "exact", r["outcome"] == "exact") for r in records]
    hits = sum(said == done for said, done in exact)
    defects = sum(said and not done for said, done in exact)
    return hits, defects, sum(done and not said for said, done in exact)


def show(records):
    rows = []
    for r in records:
        s = r["signals"]
        rows.append(
            {
                "table": r["table"],
                "patterns": s["n_patterns"],
                "LP share": (
                    "" if s["root_lp_share"] is None else f"{s['root_lp_share']:.0%}"
                ),
                "gap": (
                    ""
                    if s["root_lp_bound"] is None
                    else f"{s['best_known_errors'] - s['root_lp_bound']:.0f}"
                ),
                "limit": r["limit"],
                **({"before": r["regime before"]} if "regime before" in r else {}),
                "regime": r["regime"],
                "outcome": r["outcome"],
                "fit s": r["fit s"],
                "audit s": r["audit s"],
                "min error": band(r["min error"], 0),
                "ambiguity": band(r["ambiguity"]),
                "discrepancy": band(r["discrepancy"]),
            }
        )
    table(rows, list(rows[0]))
    keys = ["regime before", "regime"] if "regime before" in records[0] else ["regime"]
    for key in keys:
        hits, defects, missed = score(records, key)
        print(
            f"\n{key}: hit rate {hits}/{len(records)} ({hits / len(records):.0%}); "
            f"exact -> bands defects: {defects}; certified but not assessed "
            f"exact: {missed}"
        )


def everyday():
    """The assessment alone on the tables of ``bench_everyday.py``."""
    from bench_everyday import datasets

    from sklearn_multiplicity._cli._data import load_demo_data

    rows = []
    demo = ("demo", *load_demo_data(), None, None)
    for name, X, y, _, estimator in [demo, *datasets()]:
        Z = np.asarray(X, float)
        if estimator is not None:  # the audit space: the pipeline's features
            Z = estimator[:-1].fit_transform(Z)
        y01 = (np.asarray(y) == np.unique(y)[1]).astype(int)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            session = AuditSession.from_data(Z, y01)
            start = time.perf_counter()
            assessment = session.assess(60.0, float(np.floor(0.01 * len(y01))))
            seconds = time.perf_counter() - start
        signals = assessment.signals
        rows.append(
            {
                "dataset": name,
                "patterns": signals["n_patterns"],
                "columns": signals["n_dimensions"],
                "root LP share": f"{signals['root_lp_share']:.1%}",
                "regime": assessment.regime,
                "seconds": f"{seconds:.2f}",
            }
        )
    table(rows, list(rows[0]))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="a smaller grid")
    p.add_argument("--limits", type=float, nargs="+", default=None)
    p.add_argument("--records", type=Path, help="write the rows as JSON")
    p.add_argument("--rescore", type=Path, nargs="+", help="assess recorded rows")
    p.add_argument("--only", nargs="+", help="tables of the grid by name")
    p.add_argument("--everyday", action="store_true", help="everyday tables")
    args = p.parse_args()
    print(machine())
    if args.everyday:
        return everyday()
    if args.rescore:
        records = rescore([r for f in args.rescore for r in json.loads(f.read_text())])
    else:
        limits = args.limits or ([10.0] if args.quick else [10.0, 60.0])
        grid = QUICK if args.quick else GRID
        if args.only:
            grid = [spec for spec in grid if name_of(*spec) in args.only]
        records = run_grid(grid, limits)
    if args.records:
        args.records.write_text(json.dumps(records, indent=1))
    show(records)


if __name__ == "__main__":
    main()
