import numpy as np
import pytest
from brute_force import random_tiny
from joblib import parallel_config
from sklearn.linear_model import LogisticRegression

from sklearn_multiplicity import MultiplicityAuditor


def audit(n_jobs):
    X, y = random_tiny(40, n=40, d=3, levels=4, noise=0.3)
    auditor = MultiplicityAuditor(LogisticRegression(), time_limit=20, n_jobs=n_jobs)
    auditor.fit(X, y)
    return auditor.ambiguity_bounds(0.05), auditor.discrepancy_bounds(0.05), auditor


def test_parallel_flips_give_the_same_numbers():
    serial = audit(1)
    parallel = audit(2)
    assert serial[0] == parallel[0]
    assert serial[1] == parallel[1]
    np.testing.assert_array_equal(
        serial[2].conflicts(0.05), parallel[2].conflicts(0.05)
    )


def test_dask_backend_gives_the_same_numbers():
    distributed = pytest.importorskip("distributed")
    serial = audit(1)
    with distributed.Client(
        processes=False, n_workers=2, threads_per_worker=1, dashboard_address=None
    ):
        with parallel_config(backend="dask"):
            on_dask = audit(2)
    assert serial[0] == on_dask[0]
    assert serial[1] == on_dask[1]


def test_parallel_path_gives_the_same_numbers():
    X, y = random_tiny(41, n=30, d=2, levels=4, noise=0.3)
    paths = []
    for n_jobs in (1, 2):
        auditor = MultiplicityAuditor(
            LogisticRegression(), time_limit=20, n_jobs=n_jobs
        )
        paths.append(auditor.fit(X, y).path(0.3))
    serial, parallel = paths
    assert len(serial) > 3 and serial["certified"].all()
    for column in ("ambiguity", "discrepancy", "certified"):
        np.testing.assert_array_equal(serial[column], parallel[column])
