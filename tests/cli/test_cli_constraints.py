"""Constrained competitors from the command line."""

import json

import pytest
from test_cli import FAST, assert_usage_error, run, small_frame


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "data.csv"
    small_frame().to_csv(path, index=False)
    return path


def test_constraints_reach_the_audit_and_its_report(csv, tmp_path, capsys):
    out_dir = tmp_path / "report"
    code, out, err = run(
        capsys,
        "audit", csv, "--target", "outcome", "--groups", "group",
        "--epsilon", "0.1", "--out", out_dir,
        "--max-nonzero", "2", "--sign", "smoker=+1", "--sign", "region_north=0",
        "--rate-gap", "selection=0.5", *FAST,
    )  # fmt: skip
    assert code == 0, err
    report = json.loads((out_dir / "report.json").read_text())
    constraints = report["constraints"]
    assert constraints[0] == "at most 2 non-zero weights"
    assert "smoker" in constraints[1] and "region_north" in constraints[1]
    assert constraints[2].startswith("selection rate of groups A, B within 0.5")
    assert "Constraints in force: at most 2 non-zero weights" in out


@pytest.mark.parametrize(
    "extra",
    [
        ["--sign", "smoker=2"],
        ["--sign", "=+1"],
        ["--rate-gap", "parity=0.1"],
        ["--rate-gap", "selection=1.5"],
        ["--max-nonzero", "-1"],
        ["--max-nonzero", "many"],
    ],
)
def test_bad_constraint_options_are_usage_errors(csv, capsys, extra):
    code, _, err = run(capsys, "audit", csv, "--target", "outcome", *extra, *FAST)
    assert code == 2 and "Traceback" not in err
    assert "error:" in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--rate-gap", "selection=0.1"], "--rate-gap needs --groups"),
        (["--sign", "nonexistent=+1"], "nonexistent"),
        (
            ["--measure", "probabilistic", "--max-nonzero", "1"],
            "no constraints",
        ),
    ],
)
def test_constraints_the_audit_cannot_take_end_in_one_line(csv, capsys, extra, message):
    code, _, err = run(capsys, "audit", csv, "--target", "outcome", *extra, *FAST)
    assert_usage_error(code, err)
    assert message in err
