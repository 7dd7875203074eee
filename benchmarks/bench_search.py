"""Lower bounds from search alone: what the audit certifies without any MIP.

The baseline is fitted as usual (its minimum-error MIP solved); then every
later MIP is refused by a backend that returns no solution and proves
nothing, so the certified lower bounds come only from the searches (threshold
shifts, pulled logistic directions, rotated thresholds, LP relaxations and
their models). The exact values, where known, put them in proportion.

Usage: python benchmarks/bench_search.py [--data compas.csv] [--seconds 30]
"""

import math
import time
import warnings

from _common import load, machine, parser, table

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._mip._program import MIPResult
from sklearn_multiplicity.backends import Backend

#: Exact values at eps = 1% on COMPAS (certified, benchmarks/README.rst).
EXACT = {"ambiguity": 0.6683, "discrepancy": 0.1683}


class NoMIPBackend(Backend):
    """Solves nothing: no solution, no bound."""

    name = "no-mip"

    def _solve(self, mip, *, first_solution=False):
        worst = math.inf if mip.maximize else -math.inf
        return MIPResult("no_solution", None, math.nan, worst, 0.0, self.name)


def main():
    p = parser(__doc__)
    p.add_argument("--epsilon", type=float, default=0.01)
    p.add_argument("--seconds", type=float, default=30.0)
    args = p.parse_args()
    print(machine())
    X, y, _ = load(args.data)
    auditor = MultiplicityAuditor(total_time_limit=args.seconds).fit(X, y)
    auditor.session_.backend = NoMIPBackend()
    rows = []
    for measure in ("ambiguity", "discrepancy"):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lower, upper = getattr(auditor, f"{measure}_bounds")(args.epsilon)
        rows.append(
            {
                "measure": measure,
                "seconds": f"{time.perf_counter() - start:.1f}",
                "lower": f"{lower:.2%}",
                "upper": f"{upper:.2%}",
                "exact": f"{EXACT[measure]:.2%}",
                "lower/exact": f"{lower / EXACT[measure]:.1%}",
            }
        )
    table(rows, list(rows[0]))


if __name__ == "__main__":
    main()
