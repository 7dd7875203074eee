"""The command line reads Parquet through dask and reports exactly what the
same table as CSV gives; ``people`` goes back to every row as Parquet."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sklearn_multiplicity._cli import _dask_data as dask_data
from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._data import DataError, load_audit_data

dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("pyarrow")


def applicants(n=400, seed=0):
    """Categories, a continuous column, a row number (an identifier) and a
    target, with repeated patterns."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "id": np.arange(n) + 1000,
            "income": rng.choice([20.0, 35.5, 50.0, 61.25, 80.0, 120.0], n),
            "region": rng.choice(["north", "south", "east"], n),
            "smoker": rng.integers(0, 2, n),
            "group": rng.choice(["a", "b"], n),
        }
    )
    score = (
        frame["smoker"]
        + (frame["region"] == "north")
        + (frame["income"] > 50)
        + rng.normal(0, 0.8, n)
    )
    frame["outcome"] = np.where(score > 1.2, "yes", "no")
    return frame


@pytest.fixture
def data(tmp_path):
    frame = applicants()
    csv = tmp_path / "applicants.csv"
    frame.to_csv(csv, index=False)
    folder = tmp_path / "applicants"
    dd.from_pandas(frame, npartitions=3).to_parquet(folder, write_index=False)
    return frame, csv, folder


def audit(path, out, *extra):
    code = main(
        [
            "audit",
            str(path),
            "--target",
            "outcome",
            "--groups",
            "group",
            "--binarize",
            "--epsilon",
            "0.05",
            "--total-time-limit",
            "60",
            "--quiet",
            "--out",
            str(out),
            *extra,
        ]
    )
    assert code == 0
    return json.loads((out / "report.json").read_text())


def test_encoding_of_distinct_rows_is_the_encoding_of_the_rows(data):
    frame, csv, folder = data
    with pytest.warns(UserWarning, match="identifier"):
        X, y, groups, notes = load_audit_data(csv, "outcome", "group", binarize=True)
    with pytest.warns(UserWarning, match="identifier"):
        Xd, yd, groupsd, notesd, distinct = dask_data.load_dask_data(
            folder, "outcome", "group", binarize=True
        )
    assert list(Xd.columns) == list(X.columns)
    assert distinct.n_rows == len(frame) and len(Xd) < len(frame) / 2
    # The distinct rows, repeated by their counts, are the rows.
    rows = pd.concat([X, pd.Series(y, name="y"), pd.Series(groups, name="g")], axis=1)
    repeated = np.repeat(np.arange(len(Xd)), distinct.count.astype(int))
    expanded = pd.concat(
        [Xd, pd.Series(yd, name="y"), pd.Series(groupsd, name="g")], axis=1
    ).iloc[repeated]
    key = list(rows.columns)
    pd.testing.assert_frame_equal(
        rows.sort_values(key).reset_index(drop=True),
        expanded.sort_values(key).reset_index(drop=True),
    )
    assert notesd[1:] == notes


def test_parquet_report_equals_the_csv_report(data, tmp_path, capsys):
    frame, csv, folder = data
    from_csv = audit(csv, tmp_path / "csv")
    said_csv = capsys.readouterr().out
    from_parquet = audit(folder, tmp_path / "parquet")
    # The answer counts people, not the distinct rows they are read as.
    said = capsys.readouterr()
    assert said.out.splitlines()[0] == said_csv.splitlines()[0]
    assert said.out.startswith(f"Out of {len(frame)} people")
    for key in ("ambiguity", "discrepancy", "groups", "path", "baseline"):
        assert from_parquet[key] == from_csv[key], key
    for key in ("n_contestable", "n_undecided", "certified"):
        assert from_parquet[key] == from_csv[key], key
    assert from_parquet["dataset"]["n_rows"] == len(frame)
    assert (
        from_parquet["dataset"]["feature_names"]
        == (from_csv["dataset"]["feature_names"])
    )
    # Every row's line, as Parquet, in the order of the input's rows.
    people = pd.read_parquet(tmp_path / "parquet" / "people")
    expected = pd.read_csv(tmp_path / "csv" / "people.csv")
    columns = ["target", "group", "baseline", "contestable", "undecided"]
    pd.testing.assert_frame_equal(
        people[columns].reset_index(drop=True), expected[columns], check_dtype=False
    )
    assert "written as Parquet" in said.err


def test_a_table_larger_than_its_share_of_memory_gets_a_local_cluster(
    data, tmp_path, monkeypatch, capsys
):
    pytest.importorskip("distributed")
    frame, csv, folder = data
    assert dask_data.table_bytes(csv) == csv.stat().st_size
    assert dask_data.table_bytes(folder) > 0
    threads = audit(folder, tmp_path / "threads")
    assert "LocalCluster" not in capsys.readouterr().err
    monkeypatch.setattr(dask_data, "LOCAL_CLUSTER_MEMORY_FRACTION", 0.0)
    cluster = audit(folder, tmp_path / "cluster")
    assert "on a LocalCluster of" in capsys.readouterr().err
    audit(folder, tmp_path / "asked", "--scheduler", "threads")
    assert "LocalCluster" not in capsys.readouterr().err
    for key in ("ambiguity", "discrepancy", "groups", "baseline", "certified"):
        assert cluster[key] == threads[key], key
    people = pd.read_parquet(tmp_path / "cluster" / "people")
    assert len(people) == len(frame)
    pd.testing.assert_frame_equal(
        people, pd.read_parquet(tmp_path / "threads" / "people")
    )


def test_routes_that_need_the_rows_are_not_offered(data, tmp_path, capsys):
    _, csv, folder = data
    said = {}
    for name, path in (("csv", csv), ("parquet", folder)):
        code = main(
            ["audit", str(path), "--target", "outcome", "--epsilon", "0.05"]
            + ["--total-time-limit", "0.001", "--out", str(tmp_path / name)]
        )
        assert code == 0
        said[name] = capsys.readouterr().out
    assert "Routes to a sharper answer" in said["parquet"]
    assert "--measure probabilistic" in said["csv"]
    assert "--measure probabilistic" not in said["parquet"]
    assert "--sample" not in said["parquet"]


def test_options_that_need_the_rows_are_refused(data, capsys):
    _, _, folder = data
    code = main(["audit", str(folder), "--target", "outcome", "--epsilon", "auto"])
    assert code == 2
    assert "--epsilon auto" in capsys.readouterr().err


def test_a_missing_extra_is_one_error_line(data, monkeypatch, capsys):
    _, _, folder = data

    def missing():
        raise ImportError(
            "reading tables through dask needs dask[dataframe] and pyarrow: "
            'pip install "sklearn-multiplicity[scale]"'
        )

    monkeypatch.setattr(dask_data.dask_patterns, "require_dask", missing)
    with pytest.raises(DataError, match="sklearn-multiplicity\\[scale\\]"):
        dask_data.read_rows(folder)
    code = main(["audit", str(folder), "--target", "outcome"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("error: ") and "[scale]" in err[-1]


def test_ctrl_c_stops_an_audit_on_a_local_cluster_cleanly(tmp_path):
    # Ctrl-C reaches the whole process group: the audit stops and keeps its
    # report, the workers are closed, and no process prints a traceback.
    pytest.importorskip("distributed")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 6))
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    frame["y"] = X @ rng.normal(size=6) + rng.normal(scale=1.5, size=200) > 0
    frame["y"] = frame["y"].astype(int)
    folder = tmp_path / "continuous"
    dd.from_pandas(frame, npartitions=2).to_parquet(folder, write_index=False)
    out = tmp_path / "out"
    root = Path(__file__).resolve().parents[2]
    path = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    process = subprocess.Popen(
        [sys.executable, "-m", "sklearn_multiplicity", "audit", str(folder)]
        + ["--target", "y", "--time-limit", "2", "--n-models", "10", "-q"]
        + ["--total-time-limit", "120", "--scheduler", "local", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        start_new_session=True,
    )
    began = time.monotonic()
    while not (out / "report.json").exists():
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() - began < 90, "no report within 90 s"
        time.sleep(0.1)
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "leaked" not in err, err
    assert "stopped by SIGINT" in err
    assert len(pd.read_parquet(out / "people")) == len(frame)
