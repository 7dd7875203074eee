"""A stop request: every deadline ends at once, CP-SAT returns what it has
proved mid-solve, and a solve started after the request stops at once."""

import threading
import time

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_multiplicity._engine import Deadline
from sklearn_multiplicity._mip._program import MIP
from sklearn_multiplicity.backends import get_backend
from sklearn_multiplicity.backends._stopping import (
    clear_stop,
    request_stop,
    stop_requested,
)


@pytest.fixture(autouse=True)
def cleared():
    clear_stop()
    yield
    clear_stop()


def hard_knapsack():
    """A knapsack with many rows that CP-SAT does not close in minutes."""
    rng = np.random.default_rng(1)
    n, m = 300, 20
    A = rng.integers(1, 1000, size=(m, n)).astype(float)
    return MIP(
        objective=rng.integers(1, 1000, size=n).astype(float),
        A=sp.csr_matrix(A),
        row_lower=np.full(m, -np.inf),
        row_upper=np.floor(A.sum(axis=1) / 4),
        var_lower=np.zeros(n),
        var_upper=np.ones(n),
        is_integer=np.ones(n, bool),
        maximize=True,
        objective_is_integral=True,
    )


def test_a_stop_ends_every_deadline():
    unlimited, timed = Deadline(), Deadline(60.0, per_mip=5.0)
    assert unlimited.remaining() == np.inf and not timed.expired()
    request_stop()
    assert stop_requested()
    assert unlimited.expired() and timed.expired()
    assert timed.share(0.5).expired()
    clear_stop()
    assert not unlimited.expired() and not timed.expired()


def test_cpsat_stopped_mid_solve_returns_what_it_proved():
    mip = hard_knapsack()
    timer = threading.Timer(2.0, request_stop)
    start = time.perf_counter()
    timer.start()
    try:
        stopped = get_backend("cpsat", time_limit=120, threads=1).solve(mip)
    finally:
        timer.cancel()
    elapsed = time.perf_counter() - start
    assert elapsed < 60  # stopped, not run to its limit
    assert stopped.status == "feasible"
    # Honest: the bound it proved holds against a better-searched answer.
    clear_stop()
    longer = get_backend("cpsat", time_limit=5, threads=1).solve(mip)
    assert stopped.objective <= stopped.bound
    assert longer.objective <= stopped.bound + 1e-9
    assert stopped.objective <= longer.bound + 1e-9


@pytest.mark.parametrize("solver", ["highs", "scip", "cpsat"])
def test_a_solve_started_after_a_stop_stops_at_once(solver):
    request_stop()
    start = time.perf_counter()
    result = get_backend(solver, time_limit=120, threads=1).solve(hard_knapsack())
    assert time.perf_counter() - start < 30
    assert result.status in ("feasible", "no_solution")
    assert result.bound >= (result.objective if result.has_solution else -np.inf)
