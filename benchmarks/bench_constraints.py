"""Per-class tolerances, constrained competitors and coefficient ranges on COMPAS.

Scenarios (each a fresh auditor: fit, then ambiguity and discrepancy at the
tolerance, each request under --total-time-limit):
  per-class-1-1      eps = {0: 1%, 1: 1%} (false positive / negative rates)
  per-class-0.5-2    eps = {0: 0.5%, 1: 2%}
  race-gap-5         GroupRateGap(race, selection rate, 5 points), eps = 1%
  race-gap-2         GroupRateGap(race, selection rate, 2 points), eps = 1%
  nonzero-5          MaxNonzero(5), eps = 1%
  ranges-1           coefficient ranges at eps = 1% (no constraint)

Usage: python benchmarks/bench_constraints.py [--data PATH]
       [--scenario NAME ...] [--time-limit S] [--total-time-limit S]
       [--n-jobs N]
"""

from _common import Timer, load, machine, parser, peak_memory_mb, table

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity.constraints import GroupRateGap, MaxNonzero

SCENARIOS = {
    "per-class-1-1": ({0: 0.01, 1: 0.01}, None),
    "per-class-0.5-2": ({0: 0.005, 1: 0.02}, None),
    "race-gap-5": (0.01, ("race", 0.05)),
    "race-gap-2": (0.01, ("race", 0.02)),
    "nonzero-5": (0.01, "nonzero"),
    "ranges-1": (0.01, "ranges"),
}


def status(lower, upper):
    return "certified" if upper - lower <= 1e-9 else "bounds"


def run(name, X, y, groups, args):
    eps, extra = SCENARIOS[name]
    constraints = []
    if isinstance(extra, tuple):
        constraints = [GroupRateGap(groups[extra[0]].to_numpy(), max_gap=extra[1])]
    elif extra == "nonzero":
        constraints = [MaxNonzero(5)]
    auditor = MultiplicityAuditor(
        time_limit=args.time_limit,
        total_time_limit=args.total_time_limit,
        constraints=constraints,
        n_jobs=args.n_jobs,
        random_state=0,
    )
    rows = []
    with Timer() as t:
        auditor.fit(X, y)
    lo, hi = auditor.min_error_bounds_
    rows.append(
        {"scenario": name, "phase": "fit", "wall_s": t.seconds,
         "status": status(lo, hi), "lower": lo / len(y), "upper": hi / len(y),
         "mips": len(auditor.mip_log_)}
    )  # fmt: skip
    budget = auditor.error_budget(eps)
    print(f"{name}: constraints {auditor.constraints_}; budget {budget}")
    if extra == "ranges":
        n0 = len(auditor.mip_log_)
        with Timer() as t:
            ranges = auditor.coefficient_ranges(eps)
        print(ranges.drop(columns=["min_model", "max_model"]).to_string(index=False))
        probes = {}
        for entry in auditor.mip_log_[n0:]:
            if entry["mip"].startswith("sign_test"):
                print(f"{entry['mip']}: {entry['status']}, {entry['seconds']:.1f} s")
            if entry["mip"].startswith("weight_probe"):
                count, seconds = probes.get(entry["status"], (0, 0.0))
                probes[entry["status"]] = (count + 1, seconds + entry["seconds"])
        for key, (count, seconds) in sorted(probes.items()):
            print(f"weight probes {key}: {count}, {seconds:.1f} s in all")
        rows.append(
            {"scenario": name, "phase": f"coefficient_ranges({eps})",
             "wall_s": t.seconds,
             "status": "certified" if ranges["certified"].all() else "bounds",
             "mips": len(auditor.mip_log_) - n0}
        )  # fmt: skip
        return rows, auditor
    for measure in ("ambiguity", "discrepancy"):
        n0 = len(auditor.mip_log_)
        with Timer() as t:
            lower, upper = getattr(auditor, f"{measure}_bounds")(eps)
        rows.append(
            {"scenario": name, "phase": f"{measure}({eps})", "wall_s": t.seconds,
             "status": status(lower, upper), "lower": lower, "upper": upper,
             "mips": len(auditor.mip_log_) - n0}
        )  # fmt: skip
    return rows, auditor


def main():
    p = parser(__doc__)
    p.add_argument("--scenario", nargs="*", choices=sorted(SCENARIOS), default=None)
    p.add_argument("--time-limit", type=float, default=300.0)
    p.add_argument("--total-time-limit", type=float, default=300.0)
    p.add_argument("--n-jobs", type=int, default=2, help="parallel MIPs")
    args = p.parse_args()
    X, y, groups = load(args.data)
    print(f"COMPAS: {X.shape[0]} rows; {machine()}")
    rows = []
    for name in args.scenario or SCENARIOS:
        found, auditor = run(name, X, y, groups, args)
        rows += found
        table(
            found, ["scenario", "phase", "wall_s", "status", "lower", "upper", "mips"]
        )
        print(f"peak memory {peak_memory_mb():.0f} MB\n", flush=True)
    if len(rows) > len(found):
        table(rows, ["scenario", "phase", "wall_s", "status", "lower", "upper", "mips"])


if __name__ == "__main__":
    main()
