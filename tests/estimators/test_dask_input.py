"""A dask DataFrame read from Parquet audits exactly as the pandas table.

The distinct rows with their summed weights are the audit of the full rows
(every measure is a share of total weight): the measures, the minimum
error, the groups and every per-person answer are equal, not close.
"""

import builtins

import numpy as np
import pandas as pd
import pytest

from sklearn_multiplicity import MultiplicityAuditor, ZeroOneLinearClassifier
from sklearn_multiplicity._estimators import _dask_patterns

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")

EPSILONS = [0.0, 0.05, 0.15]


def table(seed=0, n=300, labels=2):
    """Rows of few distinct patterns (repeated many times), a target that is
    not linear in them, a group and a weight."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 2, n).astype(float),
            "b": rng.integers(0, 3, n).astype(float),
            "c": rng.integers(0, 2, n).astype(float),
        }
    )
    noise = rng.random(n) < 0.2
    score = frame["a"] + frame["b"] - frame["c"]
    if labels == 2:
        y = (score >= 1) ^ noise
        frame["y"] = np.where(y, "yes", "no")
    else:
        frame["y"] = np.where(noise, rng.integers(0, labels, n), score.clip(0, 2))
        frame["y"] = frame["y"].astype(int)
    frame["group"] = np.where(rng.random(n) < 0.4, "g1", "g2")
    frame["w"] = rng.integers(1, 4, n).astype(float)
    return frame


def parquet(frame, folder, partitions=3):
    """``frame`` written as ``partitions`` Parquet files, read back by dask."""
    dd.from_pandas(frame, npartitions=partitions).to_parquet(folder)
    return dd.read_parquet(folder)


FEATURES = ["a", "b", "c"]


def assert_same_audit(big, small, groups=False):
    assert big.classes_.tolist() == small.classes_.tolist()
    assert big.baseline_errors_ == small.baseline_errors_
    assert big.baseline_error_ == small.baseline_error_
    assert big.n_patterns_ == small.n_patterns_
    assert big.min_error_bounds_ == small.min_error_bounds_
    for eps in EPSILONS:
        assert big.ambiguity_bounds(eps) == small.ambiguity_bounds(eps)
        assert big.discrepancy_bounds(eps) == small.discrepancy_bounds(eps)
        if groups:
            pd.testing.assert_frame_equal(
                big.by_group(eps).by_group, small.by_group(eps).by_group
            )


def test_fit_on_parquet_is_the_pandas_audit(tmp_path):
    frame = table()
    rows = parquet(frame, tmp_path / "t")
    pandas = MultiplicityAuditor(time_limit=20, random_state=0).fit(
        frame[FEATURES], frame["y"], groups=frame["group"]
    )
    dask = MultiplicityAuditor(time_limit=20, random_state=0).fit(
        rows[FEATURES], rows["y"], groups=rows["group"]
    )
    assert dask.n_features_in_ == 3
    assert list(dask.feature_names_in_) == FEATURES
    assert_same_audit(dask, pandas, groups=True)
    np.testing.assert_array_equal(dask.estimator_.coef_, pandas.estimator_.coef_)

    # Per training person: the evidence, back on the rows with their index.
    evidence = dask.evidence(0.05)
    assert isinstance(evidence, dd.DataFrame)
    expected = pandas.evidence(0.05)
    pd.testing.assert_frame_equal(evidence.compute().sort_index(), expected)


def test_weights_and_groups_read_from_columns(tmp_path):
    frame = table(seed=1)
    rows = parquet(frame, tmp_path / "t", partitions=4)
    pandas = MultiplicityAuditor(time_limit=20).fit(
        frame[FEATURES], frame["y"], sample_weight=frame["w"], groups=frame["group"]
    )
    dask = MultiplicityAuditor(time_limit=20).fit(
        rows[FEATURES], rows["y"], sample_weight=rows["w"], groups=rows["group"]
    )
    assert_same_audit(dask, pandas, groups=True)
    for eps in EPSILONS:
        pd.testing.assert_series_equal(
            dask.undecided_by_group(eps), pandas.undecided_by_group(eps)
        )


def test_people_answers_are_dask_objects_equal_to_pandas(tmp_path):
    frame = table(seed=2)
    rows = parquet(frame, tmp_path / "t")
    auditor = MultiplicityAuditor(time_limit=20).fit(frame[FEATURES], frame["y"])
    people = rows[FEATURES]
    predicted = auditor.predict(people)
    assert isinstance(predicted, dd.Series)
    np.testing.assert_array_equal(
        predicted.compute().sort_index().to_numpy(), auditor.predict(frame[FEATURES])
    )
    ambiguous = auditor.ambiguous(people, 0.05)
    assert isinstance(ambiguous, dd.Series) and ambiguous.name == "ambiguous"
    np.testing.assert_array_equal(
        ambiguous.compute().sort_index().to_numpy(),
        auditor.ambiguous(frame[FEATURES], 0.05),
    )
    sets = auditor.predict_set(people, 0.05)
    assert list(sets.columns) == ["no", "yes"]
    np.testing.assert_array_equal(
        sets.compute().sort_index().to_numpy(),
        auditor.predict_set(frame[FEATURES], 0.05),
    )


def test_k_labels_on_parquet(tmp_path):
    frame = table(seed=3, n=240, labels=3)
    rows = parquet(frame, tmp_path / "t")
    pandas = MultiplicityAuditor(time_limit=20).fit(frame[FEATURES], frame["y"])
    dask = MultiplicityAuditor(time_limit=20).fit(rows[FEATURES], rows["y"])
    assert_same_audit(dask, pandas)
    sets = dask.predict_set(rows[FEATURES], 0.05).compute().sort_index()
    np.testing.assert_array_equal(
        sets.to_numpy(), pandas.predict_set(frame[FEATURES], 0.05)
    )


def test_classifier_fits_the_distinct_rows(tmp_path):
    frame = table(seed=4)
    rows = parquet(frame, tmp_path / "t")
    pandas = ZeroOneLinearClassifier(time_limit=20).fit(
        frame[FEATURES], frame["y"], sample_weight=frame["w"]
    )
    dask = ZeroOneLinearClassifier(time_limit=20).fit(
        rows[FEATURES], rows["y"], sample_weight=rows["w"]
    )
    assert (dask.n_errors_, dask.lower_bound_, dask.status_) == (
        pandas.n_errors_,
        pandas.lower_bound_,
        pandas.status_,
    )
    assert dask.n_patterns_ == pandas.n_patterns_
    assert dask.training_error_ == pandas.training_error_


def test_a_local_cluster_gives_the_same_audit(tmp_path):
    distributed = pytest.importorskip("distributed")
    frame = table(seed=5)
    rows = parquet(frame, tmp_path / "t")
    pandas = MultiplicityAuditor(time_limit=20).fit(
        frame[FEATURES], frame["y"], groups=frame["group"]
    )
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    )
    with cluster, distributed.Client(cluster):
        dask = MultiplicityAuditor(time_limit=20).fit(
            rows[FEATURES], rows["y"], groups=rows["group"]
        )
        assert_same_audit(dask, pandas, groups=True)
        ambiguous = dask.ambiguous(rows[FEATURES], 0.05).compute().sort_index()
    np.testing.assert_array_equal(
        ambiguous.to_numpy(), pandas.ambiguous(frame[FEATURES], 0.05)
    )


def test_columns_of_another_frame_are_refused(tmp_path):
    frame = table(seed=6, n=40)
    rows = parquet(frame, tmp_path / "t")
    with pytest.raises(TypeError, match="dask Series of the same partitions"):
        MultiplicityAuditor().fit(rows[FEATURES], frame["y"].to_numpy())


def test_a_missing_extra_is_one_line_naming_it(monkeypatch):
    real_import = builtins.__import__

    def without_pyarrow(name, *args, **kwargs):
        if name == "pyarrow":
            raise ImportError("No module named 'pyarrow'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_pyarrow)
    with pytest.raises(ImportError) as raised:
        _dask_patterns.require_dask()
    message = str(raised.value)
    assert "\n" not in message
    assert 'pip install "sklearn-multiplicity[scale]"' in message
