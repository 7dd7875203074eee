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


def binary_audit(n_jobs):
    # A binary table on which ambiguity at 2% needs some ten flip MIPs.
    X, y = random_tiny(0, n=120, d=8, levels=2, noise=0.1)
    auditor = MultiplicityAuditor(
        LogisticRegression(), time_limit=30, total_time_limit=None, n_jobs=n_jobs
    ).fit(X, y)
    return auditor.ambiguity_bounds(0.02), auditor.discrepancy_bounds(0.02), auditor


def test_flip_mips_on_a_local_cluster_of_two_processes_give_the_same_numbers():
    distributed = pytest.importorskip("distributed")
    serial = binary_audit(1)
    with (
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        with distributed.get_task_stream(client) as stream:
            with parallel_config(backend="dask"):
                on_cluster = binary_audit(2)
        workers = {task["worker"] for task in stream.data}
        addresses = set(client.scheduler_info()["workers"])
    assert serial[0] == on_cluster[0] and serial[0][0] == serial[0][1]  # certified
    assert serial[1] == on_cluster[1] and serial[1][0] == serial[1][1]
    assert stream.data, "no MIP was shipped to the cluster"
    assert workers <= addresses
    flip_mips = [e for e in on_cluster[2].mip_log_ if e["mip"].startswith("flip")]
    assert flip_mips
