"""Solving many MIPs at once under one wall-clock deadline.

The solvers release the GIL, so on one machine MIPs run in threads with one
solver thread each; inside a distributed joblib backend (dask, ray, ...)
they are shipped through joblib instead.
"""

import contextlib
import contextvars
import math
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass

from joblib import Parallel, delayed
from joblib.parallel import get_active_backend

from ...backends._stopping import stop_requested

#: The deadline that every :class:`Deadline` made in this context ends by.
_CAP = contextvars.ContextVar("sklearn_multiplicity_deadline_cap", default=None)


class Deadline:
    """The wall-clock contract of one request: seconds in all, and per MIP.

    A deadline made inside a :func:`capped` block ends no later than the cap.

    Parameters
    ----------
    seconds : float or None
        Seconds from now for all MIPs of the request (``None``: unlimited).
    per_mip : float or None, default=None
        Seconds for each MIP (``None``: unlimited).
    within : Deadline or None, default=None
        An enclosing deadline that ends this one no later than itself.
    """

    def __init__(self, seconds=None, *, per_mip=None, within=None):
        self.end = None if seconds is None else time.perf_counter() + seconds
        for outer in (within, _CAP.get()):
            if outer is not None and outer.end is not None:
                self.end = outer.end if self.end is None else min(self.end, outer.end)
        self.per_mip = per_mip

    def remaining(self):
        """Seconds left (``inf`` when unlimited, none once a stop is
        requested: see :func:`~sklearn_multiplicity.backends.request_stop`)."""
        if stop_requested():
            return 0.0
        return math.inf if self.end is None else self.end - time.perf_counter()

    def expired(self):
        """Whether no time is left."""
        return self.remaining() <= 0

    def share(self, fraction):
        """A deadline ending after ``fraction`` of the time left (same per MIP)."""
        left = self.remaining()
        seconds = None if math.isinf(left) else max(fraction * left, 0.0)
        return Deadline(seconds, per_mip=self.per_mip, within=self)

    def limit(self, per_mip=None):
        """Time limit of the next MIP (``None``: unlimited).

        ``per_mip`` (default: the deadline's own) capped by the time left.
        """
        per_mip = self.per_mip if per_mip is None else per_mip
        left = self.remaining()
        candidates = [t for t in (per_mip, left) if t is not None and math.isfinite(t)]
        return max(min(candidates), 1e-3) if candidates else None


@contextlib.contextmanager
def capped(deadline):
    """Within the block, every new :class:`Deadline` ends by ``deadline``.

    Caps nest: an inner cap never ends later than an outer one. A command
    that runs several requests (fit, measures, path ...) bounds them all.
    """
    token = _CAP.set(Deadline(None, within=deadline))
    try:
        yield deadline
    finally:
        _CAP.reset(token)


def solve(backend, mip, first_solution):
    return backend.solve(mip, first_solution=first_solution)


def on_cluster():
    """Whether the user chose a distributed joblib backend (dask, ray, ...).

    On one machine MIPs run in threads; inside ``joblib.parallel_config``
    with another backend they are shipped through joblib instead.
    """
    backend, _ = get_active_backend()
    return type(backend).__name__ not in (
        "LokyBackend",
        "ThreadingBackend",
        "SequentialBackend",
        "MultiprocessingBackend",
    )


def solver_threads(workers):
    """Solver threads of each solve when ``workers`` solves run at once.

    ``1`` with several workers, so that they share the cores; ``None`` (the
    solver's default) alone.
    """
    return 1 if workers > 1 else None


def solve_all(mips, first_solution, n_jobs, make_backend):
    """Solve ``mips``, ``n_jobs`` at a time.

    ``make_backend(threads)`` returns the backend of one solve (see
    :func:`solver_threads`).

    Returns
    -------
    list of MIPResult, in the order of ``mips``
    """
    backends = [make_backend(solver_threads(n_jobs)) for _ in mips]
    if n_jobs > 1 and len(mips) > 1:
        if on_cluster():
            return Parallel(n_jobs=n_jobs)(
                delayed(solve)(b, m, first_solution)
                for b, m in zip(backends, mips, strict=True)
            )
        with ThreadPoolExecutor(max_workers=n_jobs) as pool:
            return list(pool.map(solve, backends, mips, [first_solution] * len(mips)))
    return [solve(b, m, first_solution) for b, m in zip(backends, mips, strict=True)]


@dataclass
class Job:
    """One MIP handed out by :func:`hand_out`.

    Parameters
    ----------
    mip : MIP
    learn : callable
        ``learn(result)``, run in the calling thread when the MIP is solved.
    first_solution : bool
        Stop at the first feasible solution.
    refresh : callable or None
        ``refresh()``, run just before the MIP starts; it may update ``mip``
        with what was learnt since the job was prepared, and returns False
        when the MIP is no longer needed.
    backend : Backend or None
        The backend of this job (None: the one :func:`hand_out` makes).
    """

    mip: object
    learn: Callable
    first_solution: bool = False
    refresh: Callable | None = None
    backend: object = None


def hand_out(workers, next_job, deadline, make_backend, *, lookahead=False):
    """Solve MIPs ``workers`` at a time in threads, one handed out per finish.

    ``next_job()`` returns a :class:`Job` or ``None`` when nothing is left;
    each job's ``learn(result)`` runs in this thread before the next job
    starts. Without ``lookahead``, the next job is chosen after that, so each
    choice sees every result so far. With ``lookahead``, it is prepared while
    every worker is busy, so that no core waits while it is built; its
    ``refresh()`` then brings it up to date before it starts.
    ``make_backend(threads)`` returns the backend of one solve (see
    :func:`solver_threads`).
    """
    threads = solver_threads(workers)
    pool = ThreadPoolExecutor(max_workers=workers)
    running = {}
    prepared = None
    try:
        while True:
            while len(running) < workers and not deadline.expired():
                job, prepared = prepared or next_job(), None
                if job is None:
                    break
                if job.refresh is not None and not job.refresh():
                    continue
                backend = job.backend or make_backend(threads)
                future = pool.submit(solve, backend, job.mip, job.first_solution)
                running[future] = job.learn
            if not running:
                break
            if lookahead and prepared is None and not deadline.expired():
                prepared = next_job()
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                running.pop(future)(future.result())
    finally:
        pool.shutdown(wait=not running, cancel_futures=True)
