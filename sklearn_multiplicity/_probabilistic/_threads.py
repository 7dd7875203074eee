"""Batches of small dense problems, run in threads."""

from joblib import Parallel, delayed
from threadpoolctl import threadpool_limits


def in_threads(run, size, width, n_jobs):
    """``[run(chunk) ...]`` over the slices of ``range(size)`` of ``width``.

    Batches of small matrices: one BLAS thread each, the batches in joblib
    threads (numpy releases the GIL), no copies of the data to worker
    processes.
    """
    chunks = [slice(s, s + width) for s in range(0, size, width)]
    with threadpool_limits(1):
        return Parallel(n_jobs=n_jobs, prefer="threads")(
            delayed(run)(chunk) for chunk in chunks
        )
