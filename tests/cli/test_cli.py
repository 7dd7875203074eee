import json
import subprocess
import sys
import time

import matplotlib
import numpy as np
import pandas as pd
import pytest

from sklearn_multiplicity import MultiplicityAuditor
from sklearn_multiplicity._cli import main
from sklearn_multiplicity._cli._data import load_audit_data
from sklearn_multiplicity._cli._run import run_audit
from sklearn_multiplicity.backends import Backend, get_backend
from sklearn_multiplicity.backends._base import SolverError

matplotlib.use("Agg")

REPORT_KEYS = {
    "dataset",
    "settings",
    "epsilon",
    "hypothesis_class",
    "baseline",
    "ambiguity",
    "discrepancy",
    "sampling",
    "groups",
    "path",
    "sampling_path",
    "certified",
    "mip_log",
    "timings",
    "versions",
    "files",
}
FAST = ["--time-limit", "10", "--n-models", "20", "--quiet"]


def small_frame(n=40, seed=0):
    rng = np.random.RandomState(seed)
    frame = pd.DataFrame(
        {
            "smoker": rng.randint(0, 2, n),
            "region": rng.choice(["north", "south", "east"], n),
            "member": rng.rand(n) > 0.5,
            "group": rng.choice(["A", "B"], n),
        }
    )
    score = (
        frame["smoker"]
        + 0.8 * (frame["region"] == "north")
        - 0.6 * frame["member"]
        + rng.normal(0, 0.7, n)
    )
    frame["outcome"] = np.where(score > 0.4, "yes", "no")
    return frame


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "data.csv"
    small_frame().to_csv(path, index=False)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_usage_error(code, err):
    assert code == 2
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, err


def test_audit_writes_every_output(csv, tmp_path, capsys):
    out_dir = tmp_path / "report"
    code, out, err = run(
        capsys,
        "audit", csv, "--target", "outcome", "--groups", "group",
        "--epsilon", "0.1", "--out", out_dir, *FAST,
    )  # fmt: skip
    assert code == 0, err
    for name in (
        "report.json",
        "people.csv",
        "models.csv",
        "path.png",
        "groups.png",
        "report.html",
    ):
        assert (out_dir / name).stat().st_size > 0, name
    report = json.loads((out_dir / "report.json").read_text())
    assert REPORT_KEYS <= set(report)
    for measure in ("ambiguity", "discrepancy"):
        values = report[measure]
        assert values["lower"] <= values["upper"]
        assert report["sampling"][measure] <= values["upper"] + 1e-12
        assert values["certified"] == (values["status"] == "certified")
    assert report["epsilon"]["extra_errors"] == 4
    assert {g["group"] for g in report["groups"]} == {"A", "B"}
    assert report["dataset"]["n_rows"] == 40
    assert set(report["versions"]) >= {
        "sklearn-multiplicity",
        "scikit-learn",
        "numpy",
        "ortools",
        "python",
    }
    log = report["mip_log"]
    assert len(log["entries"]) == log["n_mips"] > 0
    assert {e["status"] for e in log["entries"]} <= {
        "optimal",
        "feasible",
        "infeasible",
        "no_solution",
        "error",
    }
    assert all(e["mip"] for e in log["entries"])
    people = pd.read_csv(out_dir / "people.csv")
    assert len(people) == 40
    assert {"baseline", "contestable", "undecided"} <= set(people.columns)
    models = pd.read_csv(out_dir / "models.csv", index_col="model")
    assert {"intercept", "n_errors", "source", "smoker"} <= set(models.columns)
    assert "baseline" in models.index
    html = (out_dir / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 2
    assert "sampling (lower estimate)" in out
    assert "ambiguity" in out and "discrepancy" in out
    # The baseline tells people apart: nothing to announce.
    assert len(set(people["baseline"])) == 2
    assert report["baseline"]["constant"] is False
    assert report["baseline"]["constant_class"] is None
    assert "baseline is constant" not in (out + err + html).lower()


def test_audit_logistic_auto_epsilon_binarize(tmp_path, capsys):
    frame = small_frame()
    frame["age"] = np.random.RandomState(1).randint(18, 80, len(frame))
    path = tmp_path / "ages.csv"
    frame.to_csv(path, index=False)
    out_dir = tmp_path / "out"
    code, _, err = run(
        capsys,
        "audit", path, "--target", "outcome", "--estimator", "logistic",
        "--epsilon", "auto", "--binarize", "--out", out_dir, *FAST,
    )  # fmt: skip
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    assert report["epsilon"]["method"] == "auto"
    assert 0 <= report["epsilon"]["value"] <= 1
    assert "bootstrap" in report["epsilon"]["suggestion"]["description"]
    assert report["groups"] is None
    assert not (out_dir / "groups.png").exists()
    assert any(
        name.startswith("age >= ") for name in report["dataset"]["feature_names"]
    )
    assert "age" not in report["dataset"]["feature_names"]


def test_time_limited_audit_reports_bounds(csv, tmp_path, capsys):
    out_dir = tmp_path / "out"
    code, out, err = run(
        capsys,
        "audit", csv, "--target", "outcome", "--epsilon", "0.1",
        "--total-time-limit", "0.001", "--out", out_dir, *FAST,
    )  # fmt: skip
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    assert report["certified"] is False
    assert report["discrepancy"]["certified"] is False
    assert report["discrepancy"]["lower"] < report["discrepancy"]["upper"]
    assert (out_dir / "people.csv").exists() and (out_dir / "report.html").exists()
    assert "bounds (time limit)" in out


def test_total_time_limit_settles_values_at_epsilon_before_the_path(
    csv, tmp_path, capsys
):
    reports = {}
    for name, limit in [
        ("unlimited", ["--total-time-limit", "none"]),
        ("limited", ["--total-time-limit", "600"]),
    ]:
        out_dir = tmp_path / name
        code, _, err = run(
            capsys,
            "audit", csv, "--target", "outcome", "--groups", "group",
            "--epsilon", "0.05", "--max-epsilon", "0.1", "--out", out_dir,
            *limit, *FAST,
        )  # fmt: skip
        assert code == 0, err
        reports[name] = json.loads((out_dir / "report.json").read_text())
    stages = {name: list(r["timings"]) for name, r in reports.items()}
    assert stages["unlimited"][1:3] == ["path", "measures"]
    assert stages["limited"][1:3] == ["measures", "path"]
    unlimited, limited = reports["unlimited"], reports["limited"]
    # Time was ample: the order changes nothing certified.
    assert limited["certified"] and unlimited["certified"]
    for measure in ("ambiguity", "discrepancy"):
        for side in ("lower", "upper"):
            assert limited[measure][side] == pytest.approx(unlimited[measure][side])
    for key in ("groups", "path"):
        assert len(limited[key]) == len(unlimited[key]) > 0
        for ours, theirs in zip(limited[key], unlimited[key], strict=True):
            bounds = [k for k in theirs if k.endswith(("_lower", "_upper"))]
            assert len(bounds) == 4
            assert [ours[k] for k in bounds] == pytest.approx(
                [theirs[k] for k in bounds]
            )


class FailingDisagreementMIPs(Backend):
    """The real solver, but disagreement MIPs fail while ``failing`` is set."""

    name = "failing-disagreement"
    failing = True
    failures = 0

    def __init__(self, real, **kwargs):
        super().__init__(**kwargs)
        self.real = real

    def _solve(self, mip, *, first_solution=False):
        if mip.kind == "disagreement" and FailingDisagreementMIPs.failing:
            FailingDisagreementMIPs.failures += 1
            raise SolverError("injected failure")
        self.real.time_limit = self.time_limit
        return self.real._solve(mip, first_solution=first_solution)


def test_report_reads_values_at_epsilon_after_the_path(csv, monkeypatch):
    # Under a total time limit the measures at epsilon run before the path.
    # Their discrepancy MIPs fail here; the path's MIP at the same tolerance
    # then certifies it, and the report must show that, not the stale bounds.
    X, y, _, _ = load_audit_data(csv, "outcome", None)
    monkeypatch.setattr(FailingDisagreementMIPs, "failing", True)
    monkeypatch.setattr(FailingDisagreementMIPs, "failures", 0)
    before_path = []
    original_path = MultiplicityAuditor.path

    def spy_path(self, *args, **kwargs):
        session = self.session_  # read what is known, without solving
        budget = session.level_set.budget(0.1)
        before_path.append(session.discrepancy.envelope([budget])[0])
        FailingDisagreementMIPs.failing = False
        return original_path(self, *args, **kwargs)

    monkeypatch.setattr(MultiplicityAuditor, "path", spy_path)
    report = run_audit(
        X,
        y,
        epsilon=0.1,
        max_epsilon=0.15,
        total_time_limit=600,
        n_models=5,
        solver=FailingDisagreementMIPs(get_backend("auto")),
    )
    assert FailingDisagreementMIPs.failures > 0
    (stale,) = before_path
    assert stale.lower < stale.upper
    lower, upper = report.bounds["discrepancy"]
    row = report.path.loc[report.path["epsilon"] <= 0.1].iloc[-1]
    assert row["discrepancy_lower"] == row["discrepancy_upper"]
    assert lower == upper == pytest.approx(row["discrepancy"])


@pytest.mark.parametrize(
    "content, argv, message",
    [
        (None, ["--target", "outcome"], "no such file"),
        ("frame", ["--target", "label"], "'label' not found"),
        ("frame", ["--target", "outcome", "--groups", "nope"], "'nope' not found"),
        (
            "a,y\n" + "".join(f"{i},{i}\n" for i in range(21)),
            ["--target", "y"],
            "21 distinct value(s)",
        ),
        ("a,y\n1,0\n0,1\n1,2\n0,2\n", ["--target", "y"], "one row only"),
        ("a,y\n1,0\n1,0\n", ["--target", "y"], "1 distinct value(s)"),
        ("a,b,y\n1,2,0\n1,2,3,4,5\n", ["--target", "y"], "cannot read"),
        ("", ["--target", "y"], "is empty"),
        ("a,y\n", ["--target", "y"], "no rows"),
        (
            "age,y\n20,0\n31,1\nabc,0\n44,1\n",
            ["--target", "y"],
            "looks numeric but has 1 non-numeric",
        ),
        ("a,y\n1,0\n,1\n0,1\n", ["--target", "y"], "missing or infinite"),
        ("a,y\n1,0\n0,\n0,1\n", ["--target", "y"], "missing values"),
        ("y\n0\n1\n", ["--target", "y"], "no feature columns"),
    ],
)
def test_data_errors_exit_2_with_one_line(tmp_path, capsys, content, argv, message):
    path = tmp_path / "input.csv"
    if content == "frame":
        small_frame().to_csv(path, index=False)
    elif content is not None:
        path.write_text(content)
    code, _, err = run(capsys, "audit", path, *argv, "--out", tmp_path / "o", *FAST)
    assert_usage_error(code, err)
    assert message in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["audit"],
        ["audit", "data.csv"],
        ["audit", "data.csv", "--target", "y", "--epsilon", "2"],
        ["audit", "data.csv", "--target", "y", "--epsilon", "many"],
        ["audit", "data.csv", "--target", "y", "--time-limit", "0"],
        ["audit", "data.csv", "--target", "y", "--estimator", "forest"],
        ["audit", "data.csv", "--target", "y", "--n-jobs", "0"],
        ["nonsense"],
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert "Traceback" not in err
    assert "error:" in err


def test_help_from_the_command_line():
    result = subprocess.run(
        [sys.executable, "-m", "sklearn_multiplicity", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0
    assert "audit" in result.stdout and "demo" in result.stdout


def test_help_of_audit_returns_0(capsys):
    code, out, _ = run(capsys, "audit", "--help")
    assert code == 0
    assert "--binarize" in out and "--target" in out


def test_a_hard_audit_ends_by_its_total_time_limit(tmp_path, capsys):
    # 300 continuous patterns in 6 dimensions: nothing certifies in seconds,
    # so every step runs into the deadline. The run must still end by it
    # (with the slack of the step in progress) and report bounds.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = (X @ rng.normal(size=6) + rng.normal(scale=1.5, size=300) > 0).astype(int)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)]).assign(y=y)
    path = tmp_path / "hard.csv"
    frame.to_csv(path, index=False)
    limit = 4.0
    began = time.perf_counter()
    code, out, err = run(
        capsys, "audit", path, "--target", "y", "--total-time-limit", limit,
        "--out", tmp_path / "out", *FAST,
    )  # fmt: skip
    elapsed = time.perf_counter() - began
    assert code == 0, err
    assert "Traceback" not in err
    assert elapsed <= 1.1 * limit + 15.0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["ambiguity"]["lower"] <= report["ambiguity"]["upper"]


def test_sampling_is_rebased_when_no_pooled_model_is_in_the_level_set(tmp_path, capsys):
    # XOR: the 0-1 optimal baseline errs on 25 people, logistic models on 50.
    X = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], 25, axis=0)
    frame = pd.DataFrame(X, columns=["a", "b"]).assign(y=np.repeat([0, 1, 1, 0], 25))
    path = tmp_path / "xor.csv"
    frame.to_csv(path, index=False)
    code, out, err = run(
        capsys, "audit", path, "--target", "y", "--out", tmp_path / "out", *FAST
    )
    assert code == 0, err
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["sampling"]["label"] == "sampling (among sampled models)"
    assert "most accurate" in report["sampling"]["compares"]
    assert "Sampling: " in out and "not a bound on the exact values" in out


def test_running_out_of_memory_ends_in_one_line_with_advice(
    tmp_path, capsys, csv, monkeypatch
):
    def allocate(*args, **kwargs):
        # What numpy raises when an array does not fit (a MemoryError).
        return np.empty((2**40, 2**10))

    monkeypatch.setattr(
        "sklearn_multiplicity._mip._encoding.affine_identities", allocate
    )
    code, out, err = run(
        capsys, "audit", csv, "--target", "outcome", "--out", tmp_path / "o", *FAST
    )
    assert code == 1
    assert "Traceback" not in err
    # The time limit, said as the work began, then the error alone.
    limit, error = err.strip().splitlines()
    assert limit.startswith("Total time limit: 300 s")
    assert error.startswith("error: out of memory.")
    assert "fewer rows" in err
    assert not (tmp_path / "o").exists()


def test_a_constant_baseline_is_reported(tmp_path, capsys):
    # "no" is the majority among smokers and non-smokers alike: the 0-1
    # optimal baseline predicts "no" for everyone, with 5 + 6 errors.
    frame = pd.DataFrame(
        {
            "smoker": [0] * 15 + [1] * 15,
            "outcome": ["no"] * 10 + ["yes"] * 5 + ["no"] * 9 + ["yes"] * 6,
        }
    )
    path = tmp_path / "flat.csv"
    frame.to_csv(path, index=False)
    out_dir = tmp_path / "out"
    code, out, err = run(
        capsys, "audit", path, "--target", "outcome", "--out", out_dir, *FAST
    )
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    baseline = report["baseline"]
    assert baseline["constant"] is True and baseline["constant_class"] == "no"
    assert baseline["errors"] == 11 == baseline["min_error"]["lower"]
    assert "the baseline is constant: it predicts 'no' for all 30 people" in out
    assert "the class's certified minimum is [11, 11]" in out
    assert "warning: The baseline is constant: it predicts 'no'" in err
    html = (out_dir / "report.html").read_text()
    assert "the baseline is constant: it predicts &#x27;no&#x27;" in html


def test_a_baseline_far_from_the_class_optimum_is_said_so(tmp_path, capsys):
    # Four far negatives pull the logistic regression off: it errs on 16
    # people, where the threshold between 9 and 10 errs only on those four.
    frame = pd.DataFrame(
        {
            "x": np.r_[np.arange(20), [200] * 4].astype(float),
            "y": np.r_[[0] * 10, [1] * 10, [0] * 4],
        }
    )
    path = tmp_path / "outliers.csv"
    frame.to_csv(path, index=False)
    out_dir = tmp_path / "out"
    argv = ["audit", path, "--target", "y", "--estimator", "logistic"]
    code, out, err = run(capsys, *argv, "--out", out_dir, *FAST)
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    baseline = report["baseline"]
    assert baseline["errors"] == 16 and baseline["min_error"]["upper"] == 4
    note = baseline["far_from_optimum"]
    assert "16 training errors" in note and "makes 4" in note
    assert "how far the baseline is from the best models" in out
    assert (
        "how far the baseline is from the best models"
        in (out_dir / "report.html").read_text()
    )
    # A baseline within the tolerance of the optimum gets no such note.
    close = tmp_path / "close.csv"
    frame.iloc[:20].to_csv(close, index=False)
    code, out, err = run(capsys, "audit", close, "--target", "y", *FAST)
    assert code == 0, err
    assert "how far the baseline is" not in out


def test_without_matplotlib_the_terminal_says_so_once(
    csv, tmp_path, capsys, monkeypatch
):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # not installed
    out_dir = tmp_path / "out"
    code, _, err = run(
        capsys, "audit", csv, "--target", "outcome", "--out", out_dir, *FAST
    )
    assert code == 0, err
    assert err.count("matplotlib is not installed (pip install matplotlib)") == 1
    assert not (out_dir / "path.png").exists()
    assert "Plots skipped" in (out_dir / "report.html").read_text()
