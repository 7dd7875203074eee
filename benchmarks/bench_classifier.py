"""Time to a certified 0-1 optimal linear classifier on COMPAS, per backend.

Usage: python benchmarks/bench_classifier.py [--data PATH] [--time-limit S]
"""

from _common import Timer, load, machine, parser, table

from sklearn_multiplicity import ZeroOneLinearClassifier


def main():
    p = parser(__doc__)
    p.add_argument("--time-limit", type=float, default=300.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--solvers", default="highs,scip,cpsat")
    args = p.parse_args()
    X, y, _ = load(args.data)
    print(f"COMPAS: {X.shape[0]} rows, {X.shape[1]} features; {machine()}")
    rows = []
    for solver in args.solvers.split(","):
        for cuts in (True, False):
            clf = ZeroOneLinearClassifier(
                solver=solver,
                time_limit=args.time_limit,
                cuts=cuts,
                n_jobs=args.threads,
                random_state=0,
            )
            with Timer() as t:
                clf.fit(X, y)
            rows.append(
                {
                    "solver": solver,
                    "cuts": cuts,
                    "wall_s": t.seconds,
                    "solver_s": clf.solve_time_,
                    "status": clf.status_,
                    "errors": clf.n_errors_,
                    "lower_bound": clf.lower_bound_,
                    "error_rate": clf.training_error_,
                    "patterns": clf.n_patterns_,
                    "identities": clf.n_identities_,
                    "class": "integer" if solver == "cpsat" else "continuous",
                }
            )
            table(rows[-1:], list(rows[-1]))
            print()
    print("Summary")
    table(rows, list(rows[0]))


if __name__ == "__main__":
    main()
