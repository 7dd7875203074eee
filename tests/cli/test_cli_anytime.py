"""A command-line audit never loses work: a default total time limit said in
its first line, a report rewritten whole whenever a step tightens it, and a
run stopped by SIGINT or SIGTERM that leaves the last report and says so."""

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

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._arguments import (
    DEFAULT_TOTAL_TIME_LIMIT,
    parse_arguments,
)
from sklearn_multiplicity._cli._report import atomic_file

ROOT = Path(__file__).resolve().parents[2]

#: A continuous table whose audit is far from certified in minutes: the
#: MIPs stop at their per-MIP limit (2 s), so the fit, and with it the
#: baseline, takes the same few seconds whatever the total limit.
SLOW = ["--target", "y", "--time-limit", "2", "--n-models", "10", "-q"]


def continuous_table(path, n=200, p=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X @ rng.normal(size=p) + rng.normal(scale=1.5, size=n) > 0).astype(int)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    frame["y"] = y
    frame.to_csv(path, index=False)
    return path


def start(table, out, *options):
    """``audit`` in a process of its own, running this checkout."""
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-m", "sklearn_multiplicity", "audit", str(table)]
        + ["--out", str(out), *SLOW, *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
    )


def report_of(out):
    return (
        json.loads((out / "report.json").read_text()),
        pd.read_csv(out / "people.csv", index_col="row"),
    )


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    return continuous_table(tmp_path_factory.mktemp("data") / "continuous.csv")


@pytest.fixture(scope="module")
def finished(table, tmp_path_factory):
    out = tmp_path_factory.mktemp("finished")
    process = start(table, out, "--total-time-limit", "15")
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return report_of(out)


def bands_agree(ours, theirs):
    """Both reports' certified bounds hold together: each band meets the
    other (both hold the true value), and no person is certified
    contestable in one and proven decided in the other."""
    (a, people_a), (b, people_b) = ours, theirs
    for measure in ("ambiguity", "discrepancy"):
        assert (
            max(a[measure]["lower"], b[measure]["lower"])
            <= min(a[measure]["upper"], b[measure]["upper"]) + 1e-9
        ), measure
    low_a, low_b = (r["baseline"]["min_error"] for r in (a, b))
    assert max(low_a["lower"], low_b["lower"]) <= min(low_a["upper"], low_b["upper"])

    def decided(people):
        return ~people["contestable"] & ~people["undecided"]

    assert not (people_a["contestable"] & decided(people_b)).any()
    assert not (people_b["contestable"] & decided(people_a)).any()


@pytest.mark.parametrize(
    "signum, code",
    [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_stopped_audit_leaves_the_report_so_far(
    table, finished, tmp_path, signum, code
):
    out = tmp_path / "stopped"
    process = start(table, out, "--total-time-limit", "120")
    began = time.monotonic()
    while not (out / "report.json").exists():
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() - began < 60, "no report within 60 s"
        time.sleep(0.1)
    process.send_signal(signum)
    _, err = process.communicate(timeout=30)
    assert process.returncode == code, err
    assert "Traceback" not in err
    name = signal.Signals(signum).name
    # Its running MIPs end within their 2 s limit: the report is rewritten
    # with what they proved.
    assert f"stopped by {name}: the report of what was certified when it" in err
    assert str(out) in err
    assert err.splitlines()[0].startswith("Total time limit: 120 s")
    stopped = report_of(out)
    data = stopped[0]
    assert data["certified"] is False  # stopped long before its limit
    assert all((out / name).exists() for name in data["files"])
    assert not list(out.glob(".*"))  # no staging file left behind
    page = (out / "report.html").read_text()
    assert "<h1>Predictive multiplicity audit</h1>" in page
    assert page.rstrip().endswith("</html>")
    if data["baseline"]["errors"] == finished[0]["baseline"]["errors"] and (
        stopped[1]["baseline"].equals(finished[1]["baseline"])
    ):
        # Same baseline, same level set: the bands bound the same values.
        bands_agree(stopped, finished)


def test_a_signal_during_the_fit_leaves_a_report(table, finished, tmp_path):
    out = tmp_path / "early"
    process = start(table, out, "--total-time-limit", "120")
    # The first line is said as the audit starts; the fit runs after it.
    assert process.stderr.readline().startswith("Total time limit: 120 s")
    time.sleep(1.0)
    assert not (out / "report.json").exists()
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert "stopped by SIGINT: the report of what was certified when it" in err
    stopped = report_of(out)
    assert stopped[0]["certified"] is False
    assert (out / "report.html").read_text().rstrip().endswith("</html>")
    if stopped[0]["baseline"]["errors"] == finished[0]["baseline"]["errors"]:
        bands_agree(stopped, finished)


def test_atomic_file_shows_the_old_file_or_the_new(tmp_path):
    path = tmp_path / "people.csv"
    path.write_text("old")
    with atomic_file(path) as temporary:
        temporary.write_text("half of the n")
        assert path.read_text() == "old"
        assert temporary.parent == path.parent
        temporary.write_text("new")
    assert path.read_text() == "new"
    with pytest.raises(RuntimeError), atomic_file(path) as temporary:
        temporary.write_text("broken")
        raise RuntimeError("stopped while writing")
    assert path.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["people.csv"]


def test_a_report_is_replaced_whole(tmp_path):
    frame = pd.DataFrame({"a": [0, 1, 0, 1] * 5, "y": [0, 1, 1, 1] * 5})
    frame.to_csv(tmp_path / "tiny.csv", index=False)
    out = tmp_path / "out"
    argv = ["audit", str(tmp_path / "tiny.csv"), "--target", "y", "-q"]
    for _ in range(2):
        assert main([*argv, "--out", str(out), "--n-models", "5"]) == 0
    assert not list(out.glob(".*"))
    assert json.loads((out / "report.json").read_text())["certified"]


def test_total_time_limit_none_is_no_limit():
    def limit(*options):
        argv = ["audit", "data.csv", "--target", "y", *options]
        return parse_arguments(argv).total_time_limit

    assert limit() == DEFAULT_TOTAL_TIME_LIMIT == 300.0
    assert DEFAULT_TOTAL_TIME_LIMIT == MultiplicityAuditor().total_time_limit
    assert limit("--total-time-limit", "none") is None
    assert limit("--total-time-limit", "None") is None
    assert limit("--total-time-limit", "42") == 42.0
    with pytest.raises(SystemExit):
        limit("--total-time-limit", "0")


@pytest.mark.parametrize(
    "options, first",
    [
        ([], "Total time limit: 300 s, the default"),
        (["--total-time-limit", "none"], "Total time limit: none: exact values"),
        (["--total-time-limit", "30"], "Total time limit: 30 s"),
    ],
)
def test_the_first_line_states_the_time_limit(tmp_path, capsys, options, first):
    frame = pd.DataFrame({"a": [0, 1, 0, 1] * 5, "y": [0, 1, 1, 1] * 5})
    frame.to_csv(tmp_path / "tiny.csv", index=False)
    argv = ["audit", str(tmp_path / "tiny.csv"), "--target", "y", "-q"]
    argv += ["--out", str(tmp_path / "out"), "--n-models", "5", *options]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0].startswith(first)
    settings = json.loads((tmp_path / "out" / "report.json").read_text())
    expected = None if "none" in options else float(first.split()[3])
    assert settings["settings"]["total_time_limit"] == expected


def test_progress_says_what_runs_and_never_promises_past_the_deadline(capsys):
    from sklearn_multiplicity._engine import Deadline, capped
    from sklearn_multiplicity._reporting._progress import progress_bar

    with capped(Deadline(5.0)):
        update = progress_bar(1, 1000, "ambiguity path")
        time.sleep(0.3)
        before = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()
        # One pattern in 0.3 s: the rate alone would promise 999 x 0.3 s.
        update(999)
        after = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()
        update(0)
    assert "0/1000" not in before[-1]
    assert "solving the MIPs of 1000 open patterns" in before[-1]
    assert "at most 00:0" in before[-1]  # 5 s at most
    assert "1/1000 pattern [00:00<00:0" in after[-1]
