"""A certified multiplicity audit of COMPAS, phase by phase.

Targets (see benchmarks/README.rst):
  1. baseline + discrepancy(eps) + ambiguity(eps)      (default)
  2. the full path up to --path-max                     (--path-max 0.05)
  3. the same audit on every row repeated --repeat times (--repeat 100)
  4. the ambiguity phase with --n-jobs 1 vs 2           (--n-jobs 2)

Usage: python benchmarks/bench_audit.py [--data PATH] [--epsilon 0.01]
       [--strategy each|batch] [--n-jobs N] [--repeat K] [--path-max E]
       [--time-limit S] [--total-time-limit S] [--skip-discrepancy]
"""

import numpy as np
from _common import Timer, load, machine, parser, peak_memory_mb, table

from sklearn_multiplicity import MultiplicityAuditor


def main():
    p = parser(__doc__)
    p.add_argument("--epsilon", type=float, default=0.01)
    p.add_argument("--strategy", default="each")
    p.add_argument("--n-jobs", type=int, default=1)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--path-max", type=float, default=None)
    p.add_argument("--time-limit", type=float, default=600.0)
    p.add_argument(
        "--total-time-limit",
        type=float,
        default=None,
        help="seconds for all MIPs of one request (the path, say)",
    )
    p.add_argument("--skip-discrepancy", action="store_true")
    args = p.parse_args()
    X, y, _ = load(args.data)
    if args.repeat > 1:
        X, y = np.repeat(X, args.repeat, axis=0), np.repeat(y, args.repeat)
    print(f"COMPAS x{args.repeat}: {X.shape[0]} rows; {machine()}")
    print(
        f"strategy={args.strategy} n_jobs={args.n_jobs} eps={args.epsilon} "
        f"time_limit={args.time_limit}"
    )
    auditor = MultiplicityAuditor(
        epsilon=args.epsilon,
        time_limit=args.time_limit,
        total_time_limit=args.total_time_limit,
        strategy=args.strategy,
        n_jobs=args.n_jobs,
        random_state=0,
    )
    rows = []
    with Timer() as t:
        auditor.fit(X, y)
    lo, hi = auditor.min_error_bounds_
    rows.append(
        {
            "phase": "baseline (0-1 optimal)",
            "wall_s": t.seconds,
            "value": auditor.baseline_error_,
            "lower": lo / len(y),
            "upper": hi / len(y),
            "mips": len(auditor.mip_log_),
            "peak_mb": peak_memory_mb(),
        }
    )
    print(f"patterns: {auditor.n_patterns_}, identities: {auditor.n_identities_}")

    def measure(phase, request, value_of):
        n0 = len(auditor.mip_log_)
        with Timer() as t:
            result = request()
        value, lower, upper = value_of(result)
        rows.append(
            {"phase": phase, "wall_s": t.seconds, "value": value, "lower": lower,
             "upper": upper, "mips": len(auditor.mip_log_) - n0,
             "peak_mb": peak_memory_mb()}
        )  # fmt: skip
        return result

    if args.path_max is not None:
        path = measure(
            f"path to eps={args.path_max}",
            lambda: auditor.path(args.path_max),
            lambda p: (float(p["certified"].mean()), None, None),
        )
        print(path.to_string(index=False))
        for name in ("ambiguity", "discrepancy"):
            width = 100 * (path[f"{name}_upper"] - path[f"{name}_lower"])
            print(
                f"{name}: certified at {int((width <= 1e-10).sum())} of {len(path)}"
                f" tolerances; width of the bounds (percentage points):"
                f" max {width.max():.2f}, mean {width.mean():.2f}"
            )
    else:
        # Ambiguity first: the patterns it proves unflippable keep their
        # label in the discrepancy MIP.
        measure(f"ambiguity({args.epsilon})", auditor.ambiguity_bounds,
                lambda b: (b[0], *b))  # fmt: skip
        if not args.skip_discrepancy:
            measure(f"discrepancy({args.epsilon})", auditor.discrepancy_bounds,
                    lambda b: (b[0], *b))  # fmt: skip
    rows.append(
        {
            "phase": "total",
            "wall_s": sum(r["wall_s"] for r in rows),
            "mips": len(auditor.mip_log_),
            "peak_mb": peak_memory_mb(),
        }
    )
    table(rows, ["phase", "wall_s", "value", "lower", "upper", "mips", "peak_mb"])
    statuses = {}
    for entry in auditor.mip_log_:
        kind = entry["mip"].split("[")[0]
        key = (kind, entry["solver"], entry["status"])
        count, seconds = statuses.get(key, (0, 0.0))
        statuses[key] = (count + 1, seconds + entry["seconds"])
    print()
    table(
        [
            {
                "mip": k[0],
                "solver": k[1],
                "status": k[2],
                "count": v[0],
                "solver_s": v[1],
            }
            for k, v in sorted(statuses.items())
        ],
        ["mip", "solver", "status", "count", "solver_s"],
    )


if __name__ == "__main__":
    main()
