"""COMPAS ambiguity at 1% with the flip MIPs on a dask cluster.

The default baseline is fitted first (on this process); then ambiguity at
eps = 1% is timed in three set-ups: threads on this process (``n_jobs=1``),
and a ``dask.distributed.LocalCluster`` of 1 and of 2 worker processes (one
thread each) through ``joblib.parallel_config(backend="dask")`` with
``n_jobs`` equal to the workers. The table gives the time, the certified
bounds, the MIPs of the audit and the tasks the cluster ran.

Usage: python benchmarks/bench_dask.py [--data compas.csv]
"""

import time
import warnings

from _common import load, machine, parser, table
from joblib import parallel_config

from sklearn_multiplicity import MultiplicityAuditor


def ambiguity(X, y, n_jobs):
    auditor = MultiplicityAuditor(n_jobs=n_jobs, total_time_limit=None).fit(X, y)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lower, upper = auditor.ambiguity_bounds(0.01)
    return time.perf_counter() - start, lower, upper, len(auditor.mip_log_)


def main():
    from distributed import Client, LocalCluster, get_task_stream

    args = parser(__doc__).parse_args()
    X, y, _ = load(args.data)
    print(machine())
    rows = []
    seconds, lower, upper, mips = ambiguity(X, y, 1)
    rows.append(
        dict(
            setup="threads, n_jobs=1",
            seconds=seconds,
            lower=lower,
            upper=upper,
            mips=mips,
            tasks=0,
        )  # fmt: skip
    )
    for workers in (1, 2):
        with (
            LocalCluster(
                n_workers=workers,
                processes=True,
                threads_per_worker=1,
                dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
            get_task_stream(client) as stream,
            parallel_config(backend="dask"),
        ):
            seconds, lower, upper, mips = ambiguity(X, y, workers)
        rows.append(
            dict(setup=f"dask, {workers} worker process(es)", seconds=seconds,
                 lower=lower, upper=upper, mips=mips, tasks=len(stream.data))
        )  # fmt: skip
    table(rows, ["setup", "seconds", "lower", "upper", "mips", "tasks"])


if __name__ == "__main__":
    main()
